//! A job's input and output directories in object storage (`inputDirURI: s3://bucket/raw/`,
//! `outputDirURI: s3://bucket/segments/`, also `gs://` and `az://`), as Pinot's `pinotFSSpecs`
//! reach them: the spec's S3 configs (`region`, `endpoint`, `accessKey`, `secretKey`) over the
//! SDK variables. The local runner stages them: matching input objects are downloaded into a
//! local directory and built from there; each built archive is uploaded to the output prefix, and
//! a URI or metadata push names the object's URI (servers and the controller read it there); a
//! push-only job downloads the output prefix's archives first.

use super::JobError;
use super::inputs::Pattern;
use super::spec::{JobSpec, config_text};
use crate::cloud::{ObjectStores, ObjectUri};
use std::path::{Path, PathBuf};

/// The object stores a job reaches: the SDK variables, then each `pinotFSSpecs` entry's configs
/// under `object_store`'s names.
pub fn stores(spec: &JobSpec) -> ObjectStores {
    let configs = spec
        .pinot_fs_specs
        .iter()
        .filter(|fs| matches!(fs.scheme.to_ascii_lowercase().as_str(), "s3" | "s3a"))
        .flat_map(|fs| fs.configs.iter().map(|(k, v)| (k.as_str(), config_text(v))));
    ObjectStores::from_env().with_options(crate::cloud::s3_options(configs))
}

/// A local directory removed when dropped: where a job stages objects.
pub struct Staging(pub PathBuf);

impl Staging {
    pub fn new() -> Result<Staging, JobError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("tessera-job-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| {
            JobError::Input(format!(
                "cannot create staging directory '{}': {e}",
                dir.display()
            ))
        })?;
        Ok(Staging(dir))
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The objects below `prefix` (its sub-prefixes too when `recursive`) whose path matches
/// `include` and not `exclude` — patterns see `s3:/bucket/key`, the path Pinot's matcher sees
/// for an object's URI — downloaded into `into`; their local paths in key order.
pub fn fetch_inputs(
    stores: &ObjectStores,
    prefix: &ObjectUri,
    include: Option<&str>,
    exclude: Option<&str>,
    recursive: bool,
    into: &Path,
) -> Result<Vec<PathBuf>, JobError> {
    let include = include.map(Pattern::parse).transpose()?;
    let exclude = exclude.map(Pattern::parse).transpose()?;
    let listed = stores
        .list_all(prefix)
        .map_err(|e| JobError::Input(format!("input directory {prefix}: {e}")))?;
    let mut out = Vec::new();
    for entry in listed {
        if entry.name.is_empty()
            || entry.name.ends_with('/')
            || !recursive && entry.name.contains('/')
        {
            continue;
        }
        let object = prefix.child(&entry.name);
        let seen = PathBuf::from(format!(
            "{}:/{}/{}",
            object.scheme, object.bucket, object.key
        ));
        if include.as_ref().is_some_and(|p| !p.matches(&seen))
            || exclude.as_ref().is_some_and(|p| p.matches(&seen))
        {
            continue;
        }
        let local = into.join(&entry.name);
        if let Some(dir) = local.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| JobError::Input(format!("cannot stage {object}: {e}")))?;
        }
        stores
            .get_to_file(&object, &local, u64::MAX)
            .map_err(|e| JobError::Input(format!("cannot read input {e}")))?;
        out.push(local);
    }
    Ok(out)
}

/// Uploads `archive` as `<out>/<its file name>`; an existing object is an error unless
/// `overwrite`. Returns the object's URI.
pub fn upload_output(
    stores: &ObjectStores,
    out: &ObjectUri,
    archive: &Path,
    overwrite: bool,
) -> Result<String, JobError> {
    let name = archive
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let object = out.child(&name);
    if !overwrite
        && stores
            .list(out)
            .map_err(|e| JobError::Input(format!("output directory {out}: {e}")))?
            .iter()
            .any(|e| e.name == name)
    {
        return Err(JobError::Build(format!(
            "output '{object}' exists and overwriteOutput is false"
        )));
    }
    stores
        .put_file(&object, archive)
        .map_err(|e| JobError::Build(format!("cannot write output {e}")))?;
    Ok(object.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinot_fs_specs_become_object_store_options() {
        let spec = JobSpec::parse(
            "jobType: SegmentCreation\ntableSpec: {tableName: t}\npinotFSSpecs:\n  - scheme: s3\n    className: org.apache.pinot.plugin.filesystem.S3PinotFS\n    configs:\n      region: 'eu-west-1'\n      endpoint: 'http://127.0.0.1:9'\n      accessKey: 'k'\n      secretKey: 's'\n  - scheme: file\n    className: org.apache.pinot.spi.filesystem.LocalPinotFS\n",
            &[],
        )
        .unwrap();
        let shown = format!("{:?}", stores(&spec));
        for key in [
            "aws_region",
            "aws_endpoint",
            "aws_allow_http",
            "aws_access_key_id",
            "aws_secret_access_key",
        ] {
            assert!(shown.contains(key), "{key}: {shown}");
        }
        assert!(!shown.contains("eu-west-1"), "values stay hidden: {shown}");
    }
}
