//! What can go wrong while setting up logging, changing levels or serving log files.

use std::path::PathBuf;

/// Errors of the [`crate::logging`] module. The HTTP layer (`common::loggers`) maps each
/// variant to a status and Pinot's wire message.
#[derive(Debug, thiserror::Error)]
pub enum LoggingError {
    /// A file-system operation on the log directory failed.
    #[error("cannot {action} '{}': {source}", path.display())]
    Io {
        /// What was being done (`create log directory`, `open log file`, …).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Some other `log` implementation owns this process's logger.
    #[error("another logger is already installed in this process")]
    ForeignLogger,
    /// The logger is not known (not configured, not seen, and not related to one that is).
    #[error("logger '{0}' not found")]
    UnknownLogger(String),
    /// The text is not a level (`OFF ERROR WARN INFO DEBUG TRACE`, `FATAL`, `ALL`).
    #[error("unrecognized logger level '{0}'")]
    BadLevel(String),
    /// The path is not one of the listed log files.
    #[error("invalid log file path '{0}'")]
    InvalidFilePath(String),
    /// The path was listed but the file is gone.
    #[error("log file '{0}' does not exist")]
    FileGone(String),
}
