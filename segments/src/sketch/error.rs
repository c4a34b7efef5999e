//! [`SketchError`]: a sketch parameter out of range, or bytes that are not a sketch.

use crate::types::ErrorCode;

/// Why a sketch could not be built or decoded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SketchError {
    #[error("invalid {sketch} parameter '{value}': {reason}")]
    InvalidParameter {
        sketch: &'static str,
        value: String,
        reason: &'static str,
    },
    #[error("corrupt {sketch} bytes: {reason}")]
    Corrupt {
        sketch: &'static str,
        reason: String,
    },
}

impl SketchError {
    /// Pinot's code: a bad parameter is a query validation error (700); undecodable bytes are
    /// an execution error (200).
    pub fn code(&self) -> ErrorCode {
        match self {
            SketchError::InvalidParameter { .. } => ErrorCode::QueryValidation,
            SketchError::Corrupt { .. } => ErrorCode::QueryExecution,
        }
    }

    pub(crate) fn corrupt(sketch: &'static str, reason: impl Into<String>) -> SketchError {
        SketchError::Corrupt {
            sketch,
            reason: reason.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_codes() {
        let e = SketchError::InvalidParameter {
            sketch: "hyperloglog",
            value: "40".into(),
            reason: "log2m must be between 4 and 16",
        };
        assert_eq!(
            e.to_string(),
            "invalid hyperloglog parameter '40': log2m must be between 4 and 16"
        );
        assert_eq!(e.code(), ErrorCode::QueryValidation);
        assert_eq!(
            SketchError::corrupt("t-digest", "truncated").code(),
            ErrorCode::QueryExecution
        );
    }
}
