//! [`EngineError`]: every way a query can fail, phase by phase, each with Pinot's error code
//! and the exact message shape Pinot puts in `exceptions[]`.

use planner::plan::PlanError;
use planner::plan::eval::EvalError;
use segments::types::ErrorCode;

/// A query failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The SQL text does not parse (150).
    #[error("cannot parse '{sql}': {message}")]
    Parse { sql: String, message: String },
    /// An invalid query option (700).
    #[error("invalid query option: {0}")]
    Options(String),
    /// Binding or planning failed (code per [`PlanError::code`]).
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The query ran past its deadline (250).
    #[error("query timed out after {0} ms")]
    Timeout(u64),
    /// The query was cancelled (503).
    #[error("query was cancelled")]
    Cancelled,
    /// An inline attempt ran out of its budget ([`crate::context::QueryContext::inline`]); the
    /// query runs again without one, so no user ever sees this.
    #[error("inline attempt over its budget")]
    OverBudget,
    /// A value could not be computed (200).
    #[error("{0}")]
    Execution(String),
    /// A segment could not be read (200).
    #[error("segment '{segment}': {message}")]
    Segment { segment: String, message: String },
    /// A limit on what an operator may hold was reached (245), e.g. `maxRowsInJoin`.
    #[error("{0}")]
    ResourceLimit(String),
    /// Another stage of a multi-stage query failed: its error code and message as that stage
    /// reported them.
    #[error("{message}")]
    Remote { code: i32, message: String },
}

impl From<EvalError> for EngineError {
    fn from(e: EvalError) -> EngineError {
        EngineError::Execution(e.0)
    }
}

impl EngineError {
    /// Pinot's error code.
    pub fn code(&self) -> ErrorCode {
        match self {
            EngineError::Parse { .. } => ErrorCode::SqlParsing,
            EngineError::Options(_) => ErrorCode::QueryValidation,
            EngineError::Plan(p) => p.code(),
            EngineError::Timeout(_) => ErrorCode::ExecutionTimeout,
            EngineError::ResourceLimit(_) => ErrorCode::ServerResourceLimitExceeded,
            EngineError::Cancelled => ErrorCode::QueryCancellation,
            EngineError::Execution(_)
            | EngineError::OverBudget
            | EngineError::Segment { .. }
            | EngineError::Remote { .. } => ErrorCode::QueryExecution,
        }
    }

    /// The `exceptions[].message` text.
    pub fn pinot_message(&self) -> String {
        match self {
            EngineError::Parse { sql, message } => self.code().message(&format!(
                "Caught exception while parsing query: {sql}: {message}"
            )),
            EngineError::Plan(p) => p.pinot_message(),
            EngineError::Remote { message, .. } => message.clone(),
            other => other.code().message(&other.to_string()),
        }
    }

    /// `errorOnNumGroupsLimit`: an aggregation reached `numGroupsLimit` (245).
    pub fn groups_limit() -> EngineError {
        EngineError::ResourceLimit("NUM_GROUPS_LIMIT has been reached".into())
    }

    /// An execution error from any displayable cause.
    pub fn execution(message: impl Into<String>) -> EngineError {
        EngineError::Execution(message.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_follow_pinot() {
        let e = EngineError::Parse {
            sql: "SELEC 1".into(),
            message: "Encountered \"SELEC\" at line 1, column 1.".into(),
        };
        assert_eq!(e.code().code(), 150);
        assert_eq!(
            e.pinot_message(),
            "SQLParsingError: Caught exception while parsing query: SELEC 1: Encountered \"SELEC\" at line 1, column 1."
        );
        assert_eq!(EngineError::Timeout(5).code().code(), 250);
        assert_eq!(
            EngineError::Timeout(5).pinot_message(),
            "ExecutionTimeoutError: query timed out after 5 ms"
        );
        assert_eq!(
            EngineError::from(PlanError::UnknownColumn("x".into()))
                .code()
                .code(),
            710
        );
        assert_eq!(
            EngineError::from(EvalError("boom".into())).pinot_message(),
            "QueryExecutionError: boom"
        );
    }
}
