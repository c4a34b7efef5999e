//! An input file as whole records — JSON objects with the number of the line or record each
//! came from — for the paths that need a record at a time rather than a column at a time:
//! JSON lines always, and Avro, Parquet and ORC files when the table's `complexTypeConfig` reshapes
//! records ([`super::complex`], applied here, so one input record may become several).

use super::{InputFormat, InputSource, avro, compression, orc, parquet};
use crate::error::SegmentError;
use serde_json::{Map, Value as Json};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// One record and the 1-based line (JSON lines) or record number it came from.
pub type Numbered = (u64, Map<String, Json>);

/// The records of an input, in order.
pub type Records = Box<dyn Iterator<Item = Result<Numbered, SegmentError>> + Send>;

fn row_error(path: &Path, line: u64, reason: String) -> SegmentError {
    SegmentError::InputRow {
        file: path.to_path_buf(),
        line,
        reason,
    }
}

/// The records of `source` (not CSV), reshaped by its `complexTypeConfig` if it has one.
pub fn records(source: &InputSource) -> Result<Records, SegmentError> {
    let path = source.path.clone();
    let file = File::open(&path).map_err(|e| SegmentError::io(&path, e))?;
    let raw: Records = match source.format {
        InputFormat::Json => Box::new(json_lines(path.clone(), file)?),
        InputFormat::Avro => numbered(path.clone(), avro::records(&path, file)?),
        InputFormat::Parquet => numbered(path.clone(), parquet::records(&path, file)?),
        InputFormat::Orc => numbered(path.clone(), orc::records(&path, file)?),
        InputFormat::Csv => {
            return Err(SegmentError::InputFile {
                file: path,
                reason: "CSV files are read a column at a time, not as records".into(),
            });
        }
    };
    let Some(complex) = source.options.complex.clone() else {
        return Ok(raw);
    };
    Ok(Box::new(raw.flat_map(move |r| {
        let out: Vec<Result<Numbered, SegmentError>> = match r {
            Ok((n, row)) => match complex.transform(row) {
                Ok(rows) => rows.into_iter().map(|row| Ok((n, row))).collect(),
                Err(e) => vec![Err(row_error(&path, n, e))],
            },
            Err(e) => vec![Err(e)],
        };
        out
    })))
}

/// A typed file's records numbered from 1, each failure naming the file and the record.
fn numbered(
    path: PathBuf,
    records: impl Iterator<Item = Result<Map<String, Json>, String>> + Send + 'static,
) -> Records {
    Box::new(
        records
            .zip(1..)
            .map(move |(r, n)| r.map(|r| (n, r)).map_err(|e| row_error(&path, n, e))),
    )
}

/// The objects of a JSON-lines file (blank lines skipped), decompressed if need be.
fn json_lines(
    path: PathBuf,
    file: File,
) -> Result<impl Iterator<Item = Result<Numbered, SegmentError>> + Send, SegmentError> {
    let mut rdr = BufReader::with_capacity(1 << 20, compression::decoded(&path, file)?);
    let mut line: u64 = 0;
    let mut text = String::new();
    let mut done = false;
    Ok(std::iter::from_fn(move || {
        while !done {
            text.clear();
            let n = match rdr.read_line(&mut text) {
                Ok(n) => n,
                Err(e) => {
                    done = true;
                    return Some(Err(match e.kind() {
                        std::io::ErrorKind::InvalidData => {
                            row_error(&path, line + 1, "line is not valid utf-8".into())
                        }
                        _ => SegmentError::io(&path, e),
                    }));
                }
            };
            if n == 0 {
                done = true;
                break;
            }
            line += 1;
            if text.trim().is_empty() {
                continue;
            }
            return Some(
                serde_json::from_str::<Map<String, Json>>(&text)
                    .map(|row| (line, row))
                    .map_err(|e| row_error(&path, line, format!("not a JSON object: {e}"))),
            );
        }
        None
    }))
}
