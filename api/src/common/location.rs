//! [`Location`]: where a file a user names by URI lives — on this machine (`file:///path` or an
//! absolute path), behind an `http://` URL, or in object storage (`s3://bucket/key`, `gs://…`,
//! `az://…`, read with the process's [`ObjectStores`]) — and reading it with a size bound.
//!
//! One reader for every place Tessera takes a URI: `/ingestFromURI`'s `sourceURIStr`, a URI or
//! metadata push's `DOWNLOAD_URI`, and servers fetching a segment from the deep store its
//! record names rather than from the controller.

use crate::cloud::{ObjectStores, ObjectUri};
use crate::http::on_rayon;
use std::path::PathBuf;

/// A parsed file URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A path on this machine.
    Local(PathBuf),
    /// An `http://` URL.
    Http(String),
    /// An object in object storage.
    Object(ObjectUri),
}

/// What [`Location::parse`] takes, for messages.
pub const LOCATION_FORMS: &str = "file:///path, an absolute path, http://, s3://, gs:// or az://";

impl Location {
    /// `file:///path`, `/path`, `http://…` or an object URI (`s3://bucket/key`, …); `None` for
    /// anything else.
    pub fn parse(uri: &str) -> Option<Location> {
        if let Some(path) = uri.strip_prefix("file://") {
            return path
                .starts_with('/')
                .then(|| Location::Local(PathBuf::from(path)));
        }
        if uri.starts_with('/') {
            return Some(Location::Local(PathBuf::from(uri)));
        }
        if uri.starts_with("http://") {
            return Some(Location::Http(uri.to_string()));
        }
        ObjectUri::parse(uri)
            .filter(|o| !o.key.is_empty() && !o.key.ends_with('/'))
            .map(Location::Object)
    }

    /// The file's bytes, at most `limit` of them; otherwise why not.
    pub async fn read(&self, limit: u64, cloud: &ObjectStores) -> Result<Vec<u8>, String> {
        match self {
            Location::Http(url) => crate::http::client::get_bounded(url, limit).await,
            Location::Object(o) => cloud.read(o, limit).await.map_err(|e| e.to_string()),
            Location::Local(path) => {
                let path = path.clone();
                // One byte past the limit tells a file that is too large, however it changes.
                let bytes = on_rayon(move || -> std::io::Result<Vec<u8>> {
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(
                        &mut std::io::Read::take(std::fs::File::open(&path)?, limit + 1),
                        &mut bytes,
                    )?;
                    Ok(bytes)
                })
                .await?
                .map_err(|e| e.to_string())?;
                if bytes.len() as u64 > limit {
                    return Err(format!("larger than the upload limit of {limit} bytes"));
                }
                Ok(bytes)
            }
        }
    }

    /// Whether the file can be found: a local file exists, an HTTP URL answers a HEAD with 2xx,
    /// an object exists.
    pub async fn check(&self, cloud: &ObjectStores) -> Result<(), String> {
        match self {
            Location::Object(o) => cloud.size(o).await.map(|_| ()).map_err(|e| e.to_string()),
            Location::Local(path) => match async_std::fs::metadata(path).await {
                Ok(m) if m.is_file() => Ok(()),
                Ok(_) => Err("not a file".into()),
                Err(e) => Err(e.to_string()),
            },
            Location::Http(url) => {
                let res = crate::http::client::http_client()
                    .head(url)
                    .await
                    .map_err(|e| e.to_string())?;
                if res.status().is_success() {
                    Ok(())
                } else {
                    Err(format!("HTTP {}", res.status() as u16))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_uris_users_write() {
        assert_eq!(
            Location::parse("file:///data/a.tar.gz"),
            Some(Location::Local("/data/a.tar.gz".into()))
        );
        assert_eq!(
            Location::parse("/data/a.csv"),
            Some(Location::Local("/data/a.csv".into()))
        );
        assert_eq!(
            Location::parse("http://h:9/a"),
            Some(Location::Http("http://h:9/a".into()))
        );
        assert_eq!(
            Location::parse("s3://b/k/a.tar.gz"),
            Some(Location::Object(
                ObjectUri::parse("s3://b/k/a.tar.gz").unwrap()
            ))
        );
        for bad in [
            "s3://bucket/",
            "s3://bucket",
            "file://relative/a",
            "data/a.csv",
            "",
        ] {
            assert_eq!(Location::parse(bad), None, "{bad}");
        }
    }

    #[async_std::test]
    async fn reads_a_local_file_within_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        let loc = Location::Local(path);
        let cloud = ObjectStores::new(Vec::new());
        assert_eq!(loc.read(5, &cloud).await.unwrap(), b"12345");
        assert!(
            loc.read(4, &cloud)
                .await
                .unwrap_err()
                .contains("upload limit")
        );
        assert!(loc.check(&cloud).await.is_ok());
        let missing = Location::Local(dir.path().join("nope"));
        assert!(missing.read(5, &cloud).await.is_err());
        assert!(missing.check(&cloud).await.is_err());
        assert!(
            Location::Local(dir.path().to_path_buf())
                .check(&cloud)
                .await
                .is_err()
        );
    }
}
