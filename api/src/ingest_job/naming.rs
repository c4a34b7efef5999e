//! Segment names as Pinot's segment name generators make them (`segmentNameGeneratorSpec`):
//!
//! * `simple` (the default): `prefix[_minTime_maxTime][_postfix][_sequenceId]` — the prefix is
//!   `segment.name.prefix` or the table name, the times are the segment's raw time column
//!   bounds (when the table has a time column);
//! * `normalizedDate`: `prefix[_yyyy-MM-dd_yyyy-MM-dd][_sequenceId]`, the bounds as UTC dates;
//! * `inputFile`: `segment.name.template` with `${filePathPattern:\N}` replaced by group N of
//!   `file.path.pattern` matched against the input path; without a pattern, the input file's
//!   name without extensions, other characters than letters, digits, `-` and `_` made `_`.
//!
//! The sequence id is the input file's position among the job's inputs; `exclude.sequence.id`
//! drops it.

use super::JobError;
use super::spec::{SegmentNameGeneratorSpec, config_text};
use std::path::Path;

/// The naming rule of a job.
pub enum Namer {
    Simple {
        prefix: String,
        postfix: Option<String>,
        exclude_sequence: bool,
    },
    NormalizedDate {
        prefix: String,
        exclude_sequence: bool,
    },
    InputFile {
        pattern: Option<regex::Regex>,
        template: Option<String>,
    },
}

/// What a name may depend on besides the sequence id.
pub struct Built<'a> {
    pub input: &'a Path,
    /// The time column's bounds in its raw unit, and that unit in milliseconds.
    pub time_range: Option<(i64, i64)>,
    pub millis_per_unit: Option<i64>,
}

impl Namer {
    /// The rule `spec` names (`simple` when absent).
    pub fn new(spec: Option<&SegmentNameGeneratorSpec>, table: &str) -> Result<Namer, JobError> {
        let config = |k: &str| {
            spec.and_then(|s| s.configs.get(k))
                .map(config_text)
                .filter(|v| !v.is_empty())
        };
        let prefix = config("segment.name.prefix").unwrap_or_else(|| table.to_string());
        let exclude_sequence = config("exclude.sequence.id").is_some_and(|v| v == "true");
        let kind = spec.and_then(|s| s.kind.clone()).unwrap_or_default();
        Ok(match kind.to_ascii_lowercase().as_str() {
            "" | "simple" => Namer::Simple {
                prefix,
                postfix: config("segment.name.postfix"),
                exclude_sequence,
            },
            "normalizeddate" => Namer::NormalizedDate {
                prefix,
                exclude_sequence,
            },
            "inputfile" => Namer::InputFile {
                pattern: config("file.path.pattern")
                    .map(|p| regex::Regex::new(&p))
                    .transpose()
                    .map_err(|e| JobError::Spec(format!("invalid file.path.pattern: {e}")))?,
                template: config("segment.name.template"),
            },
            other => {
                return Err(JobError::Spec(format!(
                    "unknown segmentNameGeneratorSpec type '{other}' (simple, normalizedDate or inputFile)"
                )));
            }
        })
    }

    /// The name of the segment built from input `sequence`.
    pub fn name(&self, sequence: usize, built: &Built<'_>) -> String {
        match self {
            Namer::Simple {
                prefix,
                postfix,
                exclude_sequence,
            } => {
                let mut parts = vec![prefix.clone()];
                if let Some((min, max)) = built.time_range {
                    parts.push(min.to_string());
                    parts.push(max.to_string());
                }
                parts.extend(postfix.clone());
                if !exclude_sequence {
                    parts.push(sequence.to_string());
                }
                parts.join("_")
            }
            Namer::NormalizedDate {
                prefix,
                exclude_sequence,
            } => {
                let mut parts = vec![prefix.clone()];
                if let (Some((min, max)), Some(unit)) = (built.time_range, built.millis_per_unit) {
                    parts.push(date(min.saturating_mul(unit)));
                    parts.push(date(max.saturating_mul(unit)));
                }
                if !exclude_sequence {
                    parts.push(sequence.to_string());
                }
                parts.join("_")
            }
            Namer::InputFile { pattern, template } => {
                let path = built.input.to_string_lossy();
                if let (Some(p), Some(t)) = (pattern, template)
                    && let Some(caps) = p.captures(&path)
                {
                    let mut name = t.clone();
                    for i in (1..caps.len()).rev() {
                        let group = caps.get(i).map_or("", |m| m.as_str());
                        name = name.replace(&format!("${{filePathPattern:\\{i}}}"), group);
                    }
                    return sanitize(&name);
                }
                let file = built
                    .input
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                sanitize(file.split('.').next().unwrap_or(&file))
            }
        }
    }
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `yyyy-MM-dd` (UTC) of epoch milliseconds.
fn date(ms: i64) -> String {
    let (year, month, day) = segments::types::time::civil_from_days(ms.div_euclid(86_400_000));
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(kind: &str, configs: serde_json::Value) -> SegmentNameGeneratorSpec {
        serde_json::from_value(json!({"type": kind, "configs": configs})).unwrap()
    }

    #[test]
    fn names_as_pinots_generators() {
        let timed = Built {
            input: Path::new("/in/2024/part-7.csv.gz"),
            time_range: Some((1_704_067_200_000, 1_704_153_600_000)),
            millis_per_unit: Some(1),
        };
        let untimed = Built {
            time_range: None,
            millis_per_unit: None,
            ..timed
        };
        let simple = Namer::new(None, "trips").unwrap();
        assert_eq!(
            simple.name(3, &timed),
            "trips_1704067200000_1704153600000_3"
        );
        assert_eq!(simple.name(0, &untimed), "trips_0");
        let with = Namer::new(
            Some(&spec(
                "simple",
                json!({"segment.name.prefix": "p", "segment.name.postfix": "x", "exclude.sequence.id": true}),
            )),
            "trips",
        )
        .unwrap();
        assert_eq!(with.name(3, &untimed), "p_x");
        let dated = Namer::new(Some(&spec("normalizedDate", json!({}))), "trips").unwrap();
        assert_eq!(dated.name(1, &timed), "trips_2024-01-01_2024-01-02_1");
        let file = Namer::new(Some(&spec("inputFile", json!({}))), "trips").unwrap();
        assert_eq!(file.name(1, &timed), "part-7");
        let templ = Namer::new(
            Some(&spec(
                "inputFile",
                json!({"file.path.pattern": ".*/(\\d+)/part-(\\d+).*", "segment.name.template": "trips_${filePathPattern:\\1}_${filePathPattern:\\2}"}),
            )),
            "trips",
        )
        .unwrap();
        assert_eq!(templ.name(1, &timed), "trips_2024_7");
        assert!(Namer::new(Some(&spec("fancy", json!({}))), "t").is_err());
    }
}
