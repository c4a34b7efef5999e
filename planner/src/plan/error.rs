//! [`PlanError`]: everything that can go wrong between a parsed statement and a query plan,
//! each variant carrying Pinot's error code and the message Pinot puts in `exceptions[]`.

use segments::types::ErrorCode;

/// The text Pinot's broker returns when a query needs the multi-stage engine.
pub const MULTI_STAGE_ONLY_MESSAGE: &str = "It seems that the query is only supported by the multi-stage query engine, please retry the query using the multi-stage query engine (https://docs.pinot.apache.org/developers/advanced/v2-multi-stage-query-engine)";

/// A binding or planning failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// The `FROM` table is not in the catalog (190).
    #[error("table '{0}' does not exist")]
    TableNotFound(String),
    /// An identifier is neither a column of the table nor a select-list alias (710).
    #[error("unknown column '{0}'")]
    UnknownColumn(String),
    /// A construct only the multi-stage engine runs: joins, subqueries, set operations, CTEs,
    /// window functions (150).
    #[error("'{0}' needs the multi-stage engine")]
    MultiStageOnly(String),
    /// `useMultistageEngine=true` was requested, but the v2 engine does not exist yet (200).
    #[error("multi-stage engine (v2) is not available yet")]
    MultiStageUnavailable,
    /// A query shape Pinot's SQL compiler rejects, e.g. a non-grouped column next to an
    /// aggregate (150).
    #[error("{0}")]
    Compilation(String),
    /// A type mismatch or invalid argument (700).
    #[error("{0}")]
    Validation(String),
    /// A well-formed query this planner cannot plan (720).
    #[error("{0}")]
    Planning(String),
}

impl PlanError {
    /// Pinot's error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            PlanError::TableNotFound(_) => ErrorCode::TableDoesNotExist,
            PlanError::UnknownColumn(_) => ErrorCode::UnknownColumn,
            PlanError::MultiStageOnly(_) | PlanError::Compilation(_) => ErrorCode::SqlParsing,
            PlanError::MultiStageUnavailable => ErrorCode::QueryExecution,
            PlanError::Validation(_) => ErrorCode::QueryValidation,
            PlanError::Planning(_) => ErrorCode::QueryPlanning,
        }
    }

    /// The message for `exceptions[].message`, built the way Pinot builds it
    /// (`<default message>[: <detail>]`).
    pub fn pinot_message(&self) -> String {
        let detail = match self {
            PlanError::TableNotFound(_) => String::new(),
            PlanError::UnknownColumn(c) => format!("Unknown columnName '{c}' found in the query"),
            PlanError::MultiStageOnly(_) => MULTI_STAGE_ONLY_MESSAGE.to_string(),
            PlanError::MultiStageUnavailable
            | PlanError::Compilation(_)
            | PlanError::Validation(_)
            | PlanError::Planning(_) => self.to_string(),
        };
        self.code().message(&detail)
    }

    /// Shorthand for a validation (700) error.
    pub fn validation(message: impl Into<String>) -> PlanError {
        PlanError::Validation(message.into())
    }

    /// Shorthand for a planning (720) error.
    pub fn planning(message: impl Into<String>) -> PlanError {
        PlanError::Planning(message.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_messages_follow_pinot() {
        let e = PlanError::UnknownColumn("x".into());
        assert_eq!(e.code().code(), 710);
        assert_eq!(
            e.pinot_message(),
            "UnknownColumnError: Unknown columnName 'x' found in the query"
        );
        let e = PlanError::TableNotFound("t".into());
        assert_eq!(e.code().code(), 190);
        assert_eq!(e.pinot_message(), "TableDoesNotExistError");
        let e = PlanError::MultiStageOnly("JOIN".into());
        assert_eq!(e.code().code(), 150);
        assert!(
            e.pinot_message()
                .starts_with("SQLParsingError: It seems that the query is only supported")
        );
        assert_eq!(PlanError::MultiStageUnavailable.code().code(), 200);
        assert_eq!(PlanError::validation("bad").code().code(), 700);
        assert_eq!(PlanError::planning("no").code().code(), 720);
    }
}
