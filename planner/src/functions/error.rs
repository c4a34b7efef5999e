//! [`FunctionError`]: why a scalar function call could not be typed or evaluated.

use segments::types::{ColumnType, ErrorCode};

/// A scalar function failure. Type and arity problems are found while binding (Pinot's
/// `QueryValidationError`, 700); the others happen while evaluating rows (`QueryExecutionError`,
/// 200).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FunctionError {
    #[error("function '{function}' expects {expected} arguments, got {actual}")]
    Arity {
        function: &'static str,
        expected: String,
        actual: usize,
    },
    #[error("function '{function}' cannot take {column_type} as argument {position}")]
    ArgumentType {
        function: &'static str,
        position: usize,
        column_type: ColumnType,
    },
    #[error("function '{function}' needs a literal as argument {position}")]
    NeedsLiteral {
        function: &'static str,
        position: usize,
    },
    #[error("invalid literal '{value}' for function '{function}': {reason}")]
    InvalidLiteral {
        function: &'static str,
        value: String,
        reason: String,
    },
    #[error("function '{function}' cannot combine argument types {types}")]
    IncompatibleTypes {
        function: &'static str,
        types: String,
    },
    #[error("invalid argument '{value}' for function '{function}': {reason}")]
    InvalidArgument {
        function: &'static str,
        value: String,
        reason: String,
    },
    #[error("division by zero in function '{function}'")]
    DivisionByZero { function: &'static str },
    #[error("numeric overflow in function '{function}' for '{value}'")]
    Overflow {
        function: &'static str,
        value: String,
    },
    #[error("invalid regular expression '{pattern}': {reason}")]
    InvalidRegex { pattern: String, reason: String },
    #[error(
        "unknown time zone '{zone}': expected a tz database region such as 'America/Los_Angeles', UTC or an offset such as '+05:30'"
    )]
    UnsupportedTimeZone { zone: String },
    #[error("illegal json path '{path}' when reading '{json}'")]
    JsonPath { path: String, json: String },
    #[error("result of function '{function}' would be too large ({size} characters)")]
    ResultTooLarge { function: &'static str, size: u64 },
}

impl FunctionError {
    /// Pinot's error code: validation (700) for type, arity and literal problems found while
    /// binding; execution (200) for failures while evaluating rows.
    pub fn code(&self) -> ErrorCode {
        match self {
            FunctionError::Arity { .. }
            | FunctionError::ArgumentType { .. }
            | FunctionError::NeedsLiteral { .. }
            | FunctionError::InvalidLiteral { .. }
            | FunctionError::IncompatibleTypes { .. } => ErrorCode::QueryValidation,
            _ => ErrorCode::QueryExecution,
        }
    }

    /// A runtime argument error, quoting (a prefix of) the offending value.
    pub(crate) fn invalid(
        function: &'static str,
        value: impl std::fmt::Display,
        reason: impl Into<String>,
    ) -> Self {
        FunctionError::InvalidArgument {
            function,
            value: clip(&value.to_string()),
            reason: reason.into(),
        }
    }

    /// A plan-time literal error, quoting the literal.
    pub(crate) fn invalid_literal(
        function: &'static str,
        value: impl std::fmt::Display,
        reason: impl Into<String>,
    ) -> Self {
        FunctionError::InvalidLiteral {
            function,
            value: clip(&value.to_string()),
            reason: reason.into(),
        }
    }
}

/// At most 200 characters of a quoted value, so a huge cell does not flood an error message.
pub(crate) fn clip(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_split_validation_from_execution() {
        let arity = FunctionError::Arity {
            function: "upper",
            expected: "1".into(),
            actual: 2,
        };
        assert_eq!(arity.code(), ErrorCode::QueryValidation);
        assert_eq!(
            arity.to_string(),
            "function 'upper' expects 1 arguments, got 2"
        );
        let zero = FunctionError::DivisionByZero { function: "mod" };
        assert_eq!(zero.code(), ErrorCode::QueryExecution);
        let long = FunctionError::invalid("abs", "x".repeat(500), "not a number");
        assert!(long.to_string().len() < 300);
        assert!(long.to_string().starts_with("invalid argument 'xxx"));
    }
}
