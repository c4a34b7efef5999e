//! Pinot's batch ingestion job specs (`SegmentGenerationJobSpec` YAML), run by `tessera ingest
//! --job-spec job.yaml [--values k=v …]` as Pinot's standalone runner runs them:
//!
//! * [`spec`] — the spec as types, read from YAML unchanged (`${key}` template values first);
//! * [`inputs`] — the input files (`inputDirURI`, `glob:`/`regex:` include and exclude
//!   patterns, `searchRecursively`);
//! * [`naming`] — segment names (`simple`, `normalizedDate`, `inputFile` generators);
//! * [`run`] — schema and table config from the controller (or files), one segment per input
//!   file built in parallel with `segments::build_segment`, `<segment>.tar.gz` into
//!   `outputDirURI`, and the tar, URI or metadata push to the controller with retries (a
//!   metadata push sends only the segment's metadata and the archive's URI: servers fetch the
//!   archive from `outputDirURI`, which must stay readable to them);
//! * [`remote`] — input and output directories in object storage (`s3://`, `gs://`, `az://`),
//!   staged through a local directory.

pub mod inputs;
pub mod naming;
pub mod remote;
pub mod run;
pub mod spec;

pub use run::{BuiltSegment, JobEvent, JobSummary, run};
pub use spec::JobSpec;

/// Why a job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The spec asks for something impossible or unsupported.
    #[error("{0}")]
    Spec(String),
    /// Input or output directories.
    #[error("{0}")]
    Input(String),
    /// Reading the schema or table config.
    #[error("{0}")]
    Fetch(String),
    /// A segment build.
    #[error("{0}")]
    Build(String),
    /// A push to the controller.
    #[error("{0}")]
    Push(String),
}
