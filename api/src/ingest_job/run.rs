//! The local runner of a job spec (Pinot's `standalone` execution framework): fetch the table's
//! schema and config, build one segment per input file (`segmentCreationJobParallelism` at a
//! time, each build on the calling rayon pool), write each as `<segment>.tar.gz` into the output
//! directory, then push them (`pushParallelism` at a time, `pushAttempts` tries
//! `pushRetryIntervalMillis` apart): the whole tar (`/v2/segments`); for a URI push, its URI for
//! the controller to fetch; for a metadata push, only its metadata and its URI, where servers
//! fetch it. Input and output directories in object storage go through a local staging
//! directory ([`super::remote`]); archives pushed by URI are then named by their object URIs.

use super::JobError;
use super::inputs;
use super::naming::{Built, Namer};
use super::remote;
use super::spec::{JobSpec, Push, PushJobSpec, config_text};
use crate::cloud::ObjectUri;
use crate::common::archive;
use segments::input::InputOptions;
use segments::input::complex::ComplexTypes;
use segments::metadata::SegmentMetadata;
use segments::types::{DataType, Schema};
use segments::{BuildConfig, InputFormat, InputSource, build_segment, rename_segment};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One segment the job built.
#[derive(Clone, Debug)]
pub struct BuiltSegment {
    pub input: PathBuf,
    pub name: String,
    /// `<output dir>/<name>.tar.gz`.
    pub archive: PathBuf,
    pub rows: u32,
    pub seconds: f64,
}

/// What the job did.
#[derive(Debug, Default)]
pub struct JobSummary {
    pub built: Vec<BuiltSegment>,
    /// Archives pushed to the controller.
    pub pushed: Vec<PathBuf>,
}

/// Progress, reported as it happens.
pub enum JobEvent<'a> {
    /// How many input files the job builds (or, for a push-only job, archives it pushes).
    Inputs(usize),
    Built(&'a BuiltSegment),
    Pushed(&'a Path),
}

/// Reads `uri`: an `http://` URL (a controller's `/tables/t` or `/tables/t/schema`) or a file.
fn fetch(uri: &str) -> Result<String, JobError> {
    if uri.starts_with("http://") {
        return async_std::task::block_on(async {
            let mut res = surf::get(uri)
                .await
                .map_err(|e| JobError::Fetch(format!("GET {uri}: {e}")))?;
            let body = res
                .body_string()
                .await
                .map_err(|e| JobError::Fetch(format!("GET {uri}: {e}")))?;
            if !res.status().is_success() {
                return Err(JobError::Fetch(format!(
                    "GET {uri}: HTTP {}: {body}",
                    res.status() as u16
                )));
            }
            Ok(body)
        });
    }
    let path = inputs::local_path(uri);
    std::fs::read_to_string(&path)
        .map_err(|e| JobError::Fetch(format!("cannot read '{}': {e}", path.display())))
}

/// Milliseconds per unit of the time column's raw values (for `normalizedDate`).
fn millis_per_unit(schema: &Schema, column: &str) -> Option<i64> {
    let f = schema.field(column)?;
    if f.data_type == DataType::Timestamp {
        return Some(1);
    }
    segments::types::time::epoch_unit_millis(f.format.as_deref()?)
}

/// The input format of `path`: the record reader's `dataFormat`, else the file's extension.
fn format_of(spec: &JobSpec, path: &Path) -> Result<InputFormat, JobError> {
    let named = spec
        .record_reader_spec
        .as_ref()
        .map(|r| r.data_format.as_str());
    match named {
        Some(n) => InputFormat::parse(n).ok_or_else(|| {
            JobError::Spec(format!(
                "unsupported recordReaderSpec.dataFormat '{n}' (csv, json, parquet or avro)"
            ))
        }),
        None => InputFormat::from_path(path).ok_or_else(|| {
            JobError::Spec(format!(
                "no recordReaderSpec.dataFormat, and '{}' has no known extension",
                path.display()
            ))
        }),
    }
}

/// The reader options of the spec's `recordReaderSpec.configs` (see
/// [`InputOptions::set_csv_config`]); refuses options Tessera's readers cannot honour.
fn reader_options(spec: &JobSpec) -> Result<InputOptions, JobError> {
    let mut options = InputOptions::default();
    let Some(r) = &spec.record_reader_spec else {
        return Ok(options);
    };
    for (key, value) in &r.configs {
        options
            .set_csv_config(key, &config_text(value))
            .map_err(|why| JobError::Spec(format!("recordReaderSpec.configs.{key}: {why}")))?;
    }
    Ok(options)
}

/// Runs `spec`; `on` hears of each step.
pub fn run(spec: &JobSpec, on: &(dyn Fn(JobEvent<'_>) + Sync)) -> Result<JobSummary, JobError> {
    let table = spec.table_spec.table_name.clone();
    let controller = spec
        .pinot_cluster_specs
        .first()
        .map(|c| c.controller_uri.trim_end_matches('/').to_string());
    let push = spec.job_type.push();
    if push.is_some() && controller.is_none() {
        return Err(JobError::Spec(
            "a push job needs pinotClusterSpecs[0].controllerURI".into(),
        ));
    }
    let out_text = spec
        .output_dir_uri
        .as_deref()
        .ok_or_else(|| JobError::Spec("outputDirURI is required".into()))?;
    // Object storage is staged through a local directory.
    let stores = remote::stores(spec);
    let staging = remote::Staging::new()?;
    let remote_out = ObjectUri::parse(out_text);
    let out_dir = match &remote_out {
        Some(_) => staging.0.join("output"),
        None => inputs::local_path(out_text),
    };
    std::fs::create_dir_all(&out_dir).map_err(|e| {
        JobError::Input(format!(
            "cannot create output directory '{}': {e}",
            out_dir.display()
        ))
    })?;
    let out_dir = std::fs::canonicalize(&out_dir)
        .map_err(|e| JobError::Input(format!("output directory '{}': {e}", out_dir.display())))?;
    let mut summary = JobSummary::default();
    // The object URI of each archive written to (or read from) an object-store output.
    let mut uris: HashMap<PathBuf, String> = HashMap::new();
    if spec.job_type.creates() {
        let inputs = Inputs {
            stores: &stores,
            staging: &staging.0,
        };
        summary.built = create(spec, &table, controller.as_deref(), &out_dir, &inputs, on)?;
        if let Some(out) = &remote_out {
            for b in &summary.built {
                let uri = remote::upload_output(&stores, out, &b.archive, spec.overwrite_output)?;
                uris.insert(b.archive.clone(), uri);
            }
        }
    }
    if let (Some(push), Some(controller)) = (push, controller) {
        let archives: Vec<PathBuf> = if spec.job_type.creates() {
            summary.built.iter().map(|b| b.archive.clone()).collect()
        } else {
            let archives = match &remote_out {
                Some(out) => {
                    let fetched = remote::fetch_inputs(
                        &stores,
                        out,
                        Some("glob:**/*.tar.gz"),
                        None,
                        true,
                        &out_dir,
                    )?;
                    for path in &fetched {
                        let name = path.strip_prefix(&out_dir).unwrap_or(path);
                        uris.insert(path.clone(), out.child(&name.to_string_lossy()).to_string());
                    }
                    fetched
                }
                None => inputs::list(&out_dir, Some("glob:**/*.tar.gz"), None, true)?,
            };
            on(JobEvent::Inputs(archives.len()));
            archives
        };
        let settings = spec.push_job_spec.clone().unwrap_or_default();
        let uri_of = |path: &Path| match uris.get(path) {
            Some(uri)
                if settings.segment_uri_prefix.is_empty()
                    && settings.segment_uri_suffix.is_empty() =>
            {
                uri.clone()
            }
            _ => settings.segment_uri(path),
        };
        summary.pushed = push_all(&settings, push, &controller, &table, &archives, &uri_of, on)?;
    }
    Ok(summary)
}

/// Where a job's inputs may come from besides local directories.
struct Inputs<'a> {
    stores: &'a crate::cloud::ObjectStores,
    staging: &'a Path,
}

fn create(
    spec: &JobSpec,
    table: &str,
    controller: Option<&str>,
    out_dir: &Path,
    remote: &Inputs<'_>,
    on: &(dyn Fn(JobEvent<'_>) + Sync),
) -> Result<Vec<BuiltSegment>, JobError> {
    let mut options = reader_options(spec)?;
    let from_controller = |path: &str| {
        controller.map(|c| format!("{c}{path}")).ok_or_else(|| {
            JobError::Spec(format!(
                "tableSpec needs a URI or pinotClusterSpecs for {path}"
            ))
        })
    };
    let schema_uri = match &spec.table_spec.schema_uri {
        Some(u) => u.clone(),
        None => from_controller(&format!("/tables/{table}/schema"))?,
    };
    let config_uri = match &spec.table_spec.table_config_uri {
        Some(u) => u.clone(),
        None => from_controller(&format!("/tables/{table}"))?,
    };
    let schema = Schema::from_json(&fetch(&schema_uri)?)
        .map_err(|e| JobError::Spec(format!("schema from '{schema_uri}': {e}")))?;
    let config: Json = serde_json::from_str(&fetch(&config_uri)?)
        .map_err(|e| JobError::Spec(format!("table config from '{config_uri}': {e}")))?;
    // Validated once, with the name each build replaces.
    let base = BuildConfig::from_table_config_json(&config, &schema, Some(table))
        .map_err(|e| JobError::Spec(format!("table config from '{config_uri}': {e}")))?;
    options.complex = ComplexTypes::from_table_config(&config)
        .map_err(|e| JobError::Spec(format!("table config from '{config_uri}': {e}")))?;
    let namer = Namer::new(spec.segment_name_generator_spec.as_ref(), table)?;
    let unit = base
        .time_column
        .as_deref()
        .and_then(|c| millis_per_unit(&schema, c));
    let input_uri = spec
        .input_dir_uri
        .as_deref()
        .ok_or_else(|| JobError::Spec("inputDirURI is required to create segments".into()))?;
    let (include, exclude) = (
        spec.include_file_name_pattern.as_deref(),
        spec.exclude_file_name_pattern.as_deref(),
    );
    let files = match ObjectUri::parse(input_uri) {
        Some(prefix) => remote::fetch_inputs(
            remote.stores,
            &prefix,
            include,
            exclude,
            spec.search_recursively,
            &remote.staging.join("input"),
        )?,
        None => inputs::list(
            &inputs::local_path(input_uri),
            include,
            exclude,
            spec.search_recursively,
        )?,
    };
    if files.is_empty() {
        return Err(JobError::Input(format!(
            "no input file under '{}' matches {}",
            input_uri,
            spec.include_file_name_pattern
                .as_deref()
                .unwrap_or("any name")
        )));
    }
    on(JobEvent::Inputs(files.len()));
    let threads = spec.segment_creation_job_parallelism as usize;
    let mut built = in_parallel(threads, &files, |seq, input| {
        let built = build_one(
            spec, &schema, &base, &namer, unit, out_dir, seq, input, &options,
        )?;
        on(JobEvent::Built(&built));
        Ok(built)
    })?;
    built.sort_by(|a, b| a.input.cmp(&b.input));
    Ok(built)
}

#[allow(clippy::too_many_arguments)]
fn build_one(
    spec: &JobSpec,
    schema: &Schema,
    base: &BuildConfig,
    namer: &Namer,
    unit: Option<i64>,
    out_dir: &Path,
    seq: usize,
    input: &Path,
    options: &InputOptions,
) -> Result<BuiltSegment, JobError> {
    let started = Instant::now();
    let format = format_of(spec, input)?;
    let scratch = out_dir.join(format!(".building-{seq}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let config = BuildConfig {
        segment_name: format!("{}_{seq}", base.table_name),
        ..base.clone()
    };
    let source = InputSource {
        path: input.to_path_buf(),
        format,
        options: options.clone(),
    };
    let failed = |e: String| JobError::Build(format!("'{}': {e}", input.display()));
    let result = (|| {
        let summary = build_segment(schema, &config, &source, &scratch, &mut |_| {})
            .map_err(|e| failed(e.to_string()))?;
        let meta_path = summary.segment_dir.join(segments::format::METADATA_FILE);
        let text = std::fs::read(&meta_path).map_err(|e| failed(e.to_string()))?;
        let meta = SegmentMetadata::parse(&meta_path, &text).map_err(|e| failed(e.to_string()))?;
        let built = Built {
            input,
            time_range: meta.start_time.zip(meta.end_time),
            millis_per_unit: unit,
        };
        let name = namer.name(seq, &built);
        let archive_path = out_dir.join(format!("{name}.tar.gz"));
        if archive_path.exists() && !spec.overwrite_output {
            return Err(JobError::Build(format!(
                "output '{}' exists and overwriteOutput is false",
                archive_path.display()
            )));
        }
        let dir = rename_segment(&summary.segment_dir, &name).map_err(|e| failed(e.to_string()))?;
        let bytes = archive::pack(&dir).map_err(|e| failed(e.to_string()))?;
        let tmp = out_dir.join(format!(".{name}.tar.gz.tmp"));
        std::fs::write(&tmp, &bytes)
            .and_then(|()| std::fs::rename(&tmp, &archive_path))
            .map_err(|e| failed(format!("cannot write '{}': {e}", archive_path.display())))?;
        Ok(BuiltSegment {
            input: input.to_path_buf(),
            name,
            archive: archive_path,
            rows: summary.total_docs,
            seconds: started.elapsed().as_secs_f64(),
        })
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// Pushes every archive; a URI or metadata push names each by `uri_of`.
fn push_all(
    settings: &PushJobSpec,
    push: Push,
    controller: &str,
    table: &str,
    archives: &[PathBuf],
    uri_of: &(dyn Fn(&Path) -> String + Sync),
    on: &(dyn Fn(JobEvent<'_>) + Sync),
) -> Result<Vec<PathBuf>, JobError> {
    in_parallel(settings.push_parallelism as usize, archives, |_, path| {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match push_one(push, controller, table, path, &uri_of(path)) {
                Ok(()) => break,
                Err(e) if attempt >= settings.push_attempts.max(1) => return Err(e),
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(settings.push_retry_interval_millis))
                }
            }
        }
        on(JobEvent::Pushed(path));
        Ok(path.clone())
    })
}

/// `work(i, item)` for every item on `threads` threads (at least one), each taking the next
/// item as it finishes one; the results in item order, or the first error in item order.
fn in_parallel<I: Sync, T: Send>(
    threads: usize,
    items: &[I],
    work: impl Fn(usize, &I) -> Result<T, JobError> + Sync,
) -> Result<Vec<T>, JobError> {
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, items.len().max(1));
    let mut results: Vec<(usize, Result<T, JobError>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        let r = work(i, item);
                        let failed = r.is_err();
                        done.push((i, r));
                        if failed {
                            return done;
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join().unwrap_or_else(|_| {
                    vec![(
                        usize::MAX,
                        Err(JobError::Build("a job thread panicked".into())),
                    )]
                })
            })
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn push_one(
    push: Push,
    controller: &str,
    table: &str,
    path: &Path,
    uri: &str,
) -> Result<(), JobError> {
    let url = format!("{controller}/v2/segments?tableName={table}");
    let failed = |e: String| JobError::Push(format!("pushing '{}': {e}", path.display()));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    async_std::task::block_on(async {
        let request = match push {
            Push::Tar => {
                let bytes = std::fs::read(path).map_err(|e| failed(e.to_string()))?;
                let (content_type, body) =
                    crate::http::multipart::encode_file(&name, &name, &bytes);
                surf::post(&url)
                    .header("Content-Type", content_type)
                    .body(surf::Body::from_bytes(body))
            }
            Push::Uri => surf::post(&url)
                .header("UPLOAD_TYPE", "URI")
                .header("DOWNLOAD_URI", uri),
            // Only the segment's metadata travels; the archive stays in the output directory.
            Push::Metadata => {
                let bytes = std::fs::read(path).map_err(|e| failed(e.to_string()))?;
                let metadata =
                    archive::metadata_archive(&bytes).map_err(|e| failed(e.to_string()))?;
                let (content_type, body) =
                    crate::http::multipart::encode_file(&name, &name, &metadata);
                surf::post(&url)
                    .header("UPLOAD_TYPE", "METADATA")
                    .header("DOWNLOAD_URI", uri)
                    .header("Content-Type", content_type)
                    .body(surf::Body::from_bytes(body))
            }
        };
        let mut res = request.await.map_err(|e| failed(e.to_string()))?;
        let body = res.body_string().await.unwrap_or_default();
        if !res.status().is_success() {
            return Err(failed(format!("HTTP {}: {body}", res.status() as u16)));
        }
        Ok(())
    })
}
