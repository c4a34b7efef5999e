//! [`SegmentError`]: everything that can go wrong building, opening or reading a segment.
//!
//! Every variant names the file (and for input errors the line and column) it is about, so a
//! message alone is enough to find the problem: a truncated data file, a bad CSV cell, an
//! unsupported format version. Nothing read from disk or from an input file panics; it becomes
//! one of these.

use crate::types::ErrorCode;
use std::path::{Path, PathBuf};

/// A segment build, open or read failure.
#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    /// An operating-system I/O failure on a file.
    #[error("i/o error on '{}': {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file exists but its content is inconsistent (bad magic, checksum, offsets, lengths).
    #[error("corrupt segment file '{}': {reason}", file.display())]
    Corrupt { file: PathBuf, reason: String },
    /// A file was written by a format version this build cannot read.
    #[error("unsupported format version {found} in '{}' (expected {expected})", file.display())]
    UnsupportedVersion {
        file: PathBuf,
        found: u32,
        expected: u32,
    },
    /// A bad input row or cell: `lineitem.csv line 17, column 'l_quantity': cannot parse 'x' as DOUBLE`.
    #[error("{} line {line}, column '{column}': {reason}", file.display())]
    Input {
        file: PathBuf,
        line: u64,
        column: String,
        reason: String,
    },
    /// A malformed input row as a whole (wrong arity, not a JSON object).
    #[error("{} line {line}: {reason}", file.display())]
    InputRow {
        file: PathBuf,
        line: u64,
        reason: String,
    },
    /// An input file as a whole cannot be read (not Parquet, a column the schema cannot take).
    #[error("{}: {reason}", file.display())]
    InputFile { file: PathBuf, reason: String },
    /// A bad cell of a columnar input file, by row group and row (1-based within the file).
    #[error("{} row group {row_group}, row {row}, column '{column}': {reason}", file.display())]
    InputRecord {
        file: PathBuf,
        row_group: usize,
        row: u64,
        column: String,
        reason: String,
    },
    /// The schema cannot be used to build a segment.
    #[error("schema error: {0}")]
    Schema(String),
    /// The table config (or build config) asks for something impossible.
    #[error("config error: {0}")]
    Config(String),
    /// A segment exceeds a format limit (e.g. more than 2^32 - 1 multi-value entries).
    #[error("limit exceeded: {0}")]
    Limit(String),
    /// A document of a JSON-indexed column cannot be indexed (not JSON, too many combinations).
    #[error(
        "Column: {column}: document {doc} cannot be JSON-indexed: {reason} (the column's json index config can set skipInvalidJson)"
    )]
    JsonIndex {
        column: String,
        doc: u32,
        reason: String,
    },
}

impl SegmentError {
    /// An [`SegmentError::Io`] for `path`.
    pub fn io(path: impl AsRef<Path>, source: std::io::Error) -> SegmentError {
        SegmentError::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    /// A [`SegmentError::Corrupt`] for `file`.
    pub fn corrupt(file: impl AsRef<Path>, reason: impl Into<String>) -> SegmentError {
        SegmentError::Corrupt {
            file: file.as_ref().to_path_buf(),
            reason: reason.into(),
        }
    }

    /// Pinot's error code for this failure as seen by a query.
    pub fn code(&self) -> ErrorCode {
        match self {
            SegmentError::Schema(_) | SegmentError::Config(_) => ErrorCode::QueryValidation,
            _ => ErrorCode::QueryExecution,
        }
    }
}

/// Short alias used throughout the crate.
pub type Result<T, E = SegmentError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_file_line_and_column() {
        let e = SegmentError::Input {
            file: "lineitem.csv".into(),
            line: 17,
            column: "l_quantity".into(),
            reason: "cannot parse 'x' as DOUBLE".into(),
        };
        assert_eq!(
            e.to_string(),
            "lineitem.csv line 17, column 'l_quantity': cannot parse 'x' as DOUBLE"
        );
        let e = SegmentError::corrupt("s/columns.bin", "bad magic");
        assert_eq!(
            e.to_string(),
            "corrupt segment file 's/columns.bin': bad magic"
        );
        assert_eq!(
            SegmentError::Config("x".into()).code(),
            ErrorCode::QueryValidation
        );
    }
}
