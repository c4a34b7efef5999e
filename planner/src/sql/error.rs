//! Parse errors: a Calcite-style message plus the 1-based line and column it points at.

use segments::types::ErrorCode;

/// A SQL syntax error. `Display` is the message Pinot/Calcite prints, e.g.
/// `Encountered "FROM" at line 1, column 8.`; the engine wraps it as error code 150.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// The full message (already includes the position where Calcite would print one).
    pub message: String,
    /// 1-based line of the offending token.
    pub line: usize,
    /// 1-based column of the offending token.
    pub column: usize,
}

impl ParseError {
    /// The Pinot error code for every parse error: `SQLParsingError` (150).
    pub fn code(&self) -> ErrorCode {
        ErrorCode::SqlParsing
    }
}
