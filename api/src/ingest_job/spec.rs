//! Pinot's `SegmentGenerationJobSpec` as types, read from its YAML unchanged. Keys Tessera's
//! local runner does not need (`executionFrameworkSpec`, class names) are read and ignored, as
//! they name Java classes; every key that changes what the job does is typed (`pinotFSSpecs`'
//! S3 configs reach object storage, see [`super::remote`]).

use serde::Deserialize;
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// What the job does.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub enum JobType {
    SegmentCreation,
    SegmentTarPush,
    SegmentUriPush,
    SegmentMetadataPush,
    SegmentCreationAndTarPush,
    SegmentCreationAndUriPush,
    SegmentCreationAndMetadataPush,
}

impl JobType {
    /// The job builds segments from input files.
    pub fn creates(self) -> bool {
        matches!(
            self,
            JobType::SegmentCreation
                | JobType::SegmentCreationAndTarPush
                | JobType::SegmentCreationAndUriPush
                | JobType::SegmentCreationAndMetadataPush
        )
    }

    /// How the job pushes segments, if it does.
    pub fn push(self) -> Option<Push> {
        match self {
            JobType::SegmentCreation => None,
            JobType::SegmentTarPush | JobType::SegmentCreationAndTarPush => Some(Push::Tar),
            JobType::SegmentUriPush | JobType::SegmentCreationAndUriPush => Some(Push::Uri),
            JobType::SegmentMetadataPush | JobType::SegmentCreationAndMetadataPush => {
                Some(Push::Metadata)
            }
        }
    }
}

/// How segments reach the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Push {
    /// The whole tar.gz is uploaded.
    Tar,
    /// The controller fetches the tar.gz from its URI in the output directory.
    Uri,
    /// The controller gets the metadata and the URI.
    Metadata,
}

/// `recordReaderSpec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RecordReaderSpec {
    /// `csv`, `json`, `parquet`, `avro` (Pinot's names).
    pub data_format: String,
    #[serde(default)]
    pub class_name: Option<String>,
    #[serde(default)]
    pub config_class_name: Option<String>,
    /// Reader options (CSV `delimiter`, `header`, `multiValueDelimiter`, …).
    #[serde(default)]
    pub configs: BTreeMap<String, Json>,
}

/// `tableSpec`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TableSpec {
    pub table_name: String,
    /// A controller URL (`http://host:9000/tables/t/schema`) or a file.
    #[serde(default, rename = "schemaURI")]
    pub schema_uri: Option<String>,
    /// A controller URL (`http://host:9000/tables/t`) or a file.
    #[serde(default, rename = "tableConfigURI")]
    pub table_config_uri: Option<String>,
}

/// `segmentNameGeneratorSpec`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct SegmentNameGeneratorSpec {
    /// `simple` (the default), `normalizedDate` or `inputFile`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub configs: BTreeMap<String, Json>,
}

/// One of `pinotFSSpecs`: a URI scheme and its file system's configs (`region`, `endpoint`,
/// `accessKey`, `secretKey` for `s3`).
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct PinotFsSpec {
    pub scheme: String,
    #[serde(default)]
    pub configs: BTreeMap<String, Json>,
}

/// One of `pinotClusterSpecs`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct ClusterSpec {
    #[serde(rename = "controllerURI")]
    pub controller_uri: String,
}

/// `pushJobSpec`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PushJobSpec {
    #[serde(default = "one")]
    pub push_attempts: u32,
    #[serde(default = "one")]
    pub push_parallelism: u32,
    #[serde(default = "second")]
    pub push_retry_interval_millis: u64,
    /// URI and metadata pushes name an archive as `segmentUriPrefix` + its path +
    /// `segmentUriSuffix` when either is set (say, an HTTP server over the output directory),
    /// else as its `file://` URI.
    #[serde(default)]
    pub segment_uri_prefix: String,
    #[serde(default)]
    pub segment_uri_suffix: String,
}

impl PushJobSpec {
    /// The URI a URI or metadata push names the archive at `path` by.
    pub fn segment_uri(&self, path: &std::path::Path) -> String {
        if self.segment_uri_prefix.is_empty() && self.segment_uri_suffix.is_empty() {
            return format!("file://{}", path.display());
        }
        format!(
            "{}{}{}",
            self.segment_uri_prefix,
            path.display(),
            self.segment_uri_suffix
        )
    }
}

impl Default for PushJobSpec {
    fn default() -> PushJobSpec {
        PushJobSpec {
            push_attempts: 1,
            push_parallelism: 1,
            push_retry_interval_millis: 1000,
            segment_uri_prefix: String::new(),
            segment_uri_suffix: String::new(),
        }
    }
}

fn one() -> u32 {
    1
}

fn second() -> u64 {
    1000
}

/// A job spec.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    pub job_type: JobType,
    #[serde(rename = "inputDirURI", default)]
    pub input_dir_uri: Option<String>,
    #[serde(default)]
    pub include_file_name_pattern: Option<String>,
    #[serde(default)]
    pub exclude_file_name_pattern: Option<String>,
    #[serde(default)]
    pub search_recursively: bool,
    #[serde(rename = "outputDirURI", default)]
    pub output_dir_uri: Option<String>,
    #[serde(default)]
    pub overwrite_output: bool,
    #[serde(default)]
    pub record_reader_spec: Option<RecordReaderSpec>,
    pub table_spec: TableSpec,
    #[serde(default)]
    pub segment_name_generator_spec: Option<SegmentNameGeneratorSpec>,
    #[serde(default)]
    pub pinot_cluster_specs: Vec<ClusterSpec>,
    #[serde(rename = "pinotFSSpecs", default)]
    pub pinot_fs_specs: Vec<PinotFsSpec>,
    #[serde(default)]
    pub push_job_spec: Option<PushJobSpec>,
    /// Segments built at once (0 or absent: one).
    #[serde(default)]
    pub segment_creation_job_parallelism: u32,
}

/// Why a job spec cannot be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SpecError {
    #[error("invalid job spec YAML: {0}")]
    Yaml(String),
    #[error("invalid job spec: {0}")]
    Invalid(String),
}

impl JobSpec {
    /// Reads a job spec's YAML after replacing each `${key}` of `values` (Pinot's
    /// `-values key=value` template arguments).
    pub fn parse(yaml: &str, values: &[(String, String)]) -> Result<JobSpec, SpecError> {
        let mut text = yaml.to_string();
        for (k, v) in values {
            text = text.replace(&format!("${{{k}}}"), v);
        }
        let docs = yaml_rust2::YamlLoader::load_from_str(&text)
            .map_err(|e| SpecError::Yaml(e.to_string()))?;
        let doc = docs
            .into_iter()
            .next()
            .ok_or_else(|| SpecError::Invalid("the file is empty".into()))?;
        serde_json::from_value(to_json(doc)).map_err(|e| SpecError::Invalid(e.to_string()))
    }
}

/// A YAML document as JSON (keys as strings; YAML's scalars keep their types).
fn to_json(y: yaml_rust2::Yaml) -> Json {
    use yaml_rust2::Yaml;
    match y {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Json::String(s), Json::Number),
        Yaml::Integer(i) => Json::from(i),
        Yaml::String(s) => Json::String(s),
        Yaml::Boolean(b) => Json::Bool(b),
        Yaml::Array(a) => Json::Array(a.into_iter().map(to_json).collect()),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) | Yaml::Real(s) => s,
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    _ => continue,
                };
                m.insert(key, to_json(v));
            }
            Json::Object(m)
        }
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Json::Null,
    }
}

/// A config value as text (`true`, `7`, `x`), as Pinot reads `configs` maps of strings.
pub fn config_text(v: &Json) -> String {
    match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec of Pinot's batch ingestion docs (`examples/batch/airlineStats`).
    const DOCS: &str = r#"
executionFrameworkSpec:
  name: 'standalone'
  segmentGenerationJobRunnerClassName: 'org.apache.pinot.plugin.ingestion.batch.standalone.SegmentGenerationJobRunner'
  segmentTarPushJobRunnerClassName: 'org.apache.pinot.plugin.ingestion.batch.standalone.SegmentTarPushJobRunner'
jobType: SegmentCreationAndTarPush
inputDirURI: '${dir}/rawdata'
includeFileNamePattern: 'glob:**/*.avro'
searchRecursively: true
outputDirURI: 'examples/batch/airlineStats/segments'
overwriteOutput: true
pinotFSSpecs:
  - scheme: file
    className: org.apache.pinot.spi.filesystem.LocalPinotFS
recordReaderSpec:
  dataFormat: 'avro'
  className: 'org.apache.pinot.plugin.inputformat.avro.AvroRecordReader'
tableSpec:
  tableName: 'airlineStats'
  schemaURI: 'http://localhost:9000/tables/airlineStats/schema'
  tableConfigURI: 'http://localhost:9000/tables/airlineStats'
segmentNameGeneratorSpec:
  type: normalizedDate
  configs:
    segment.name.prefix: 'airlineStats_batch'
    exclude.sequence.id: true
pinotClusterSpecs:
  - controllerURI: 'http://localhost:9000'
pushJobSpec:
  pushParallelism: 2
  pushAttempts: 2
  pushRetryIntervalMillis: 1000
"#;

    #[test]
    fn pinots_documented_spec_reads() {
        let s = JobSpec::parse(DOCS, &[("dir".into(), "/data".into())]).unwrap();
        assert_eq!(s.job_type, JobType::SegmentCreationAndTarPush);
        assert!(s.job_type.creates());
        assert_eq!(s.job_type.push(), Some(Push::Tar));
        assert_eq!(s.input_dir_uri.as_deref(), Some("/data/rawdata"));
        assert_eq!(
            s.include_file_name_pattern.as_deref(),
            Some("glob:**/*.avro")
        );
        assert!(s.search_recursively && s.overwrite_output);
        assert_eq!(s.record_reader_spec.unwrap().data_format, "avro");
        assert_eq!(
            s.table_spec.schema_uri.as_deref(),
            Some("http://localhost:9000/tables/airlineStats/schema")
        );
        let names = s.segment_name_generator_spec.unwrap();
        assert_eq!(names.kind.as_deref(), Some("normalizedDate"));
        assert_eq!(config_text(&names.configs["exclude.sequence.id"]), "true");
        assert_eq!(
            s.pinot_cluster_specs[0].controller_uri,
            "http://localhost:9000"
        );
        let push = s.push_job_spec.unwrap();
        assert_eq!((push.push_attempts, push.push_parallelism), (2, 2));
    }

    #[test]
    fn bad_specs_say_why() {
        assert!(matches!(
            JobSpec::parse("jobType: [", &[]),
            Err(SpecError::Yaml(_))
        ));
        let e = JobSpec::parse("jobType: Reticulate\ntableSpec: {tableName: t}", &[]).unwrap_err();
        assert!(e.to_string().contains("Reticulate"), "{e}");
        let e = JobSpec::parse("jobType: SegmentCreation", &[]).unwrap_err();
        assert!(e.to_string().contains("tableSpec"), "{e}");
    }
}
