//! Pinot's numbered query error codes (`QueryErrorCode.java`) and their HTTP statuses.

use serde::{Serialize, Serializer};

/// A Pinot query error code. The number is what clients see in `exceptions[].errorCode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    JsonParsing,
    SqlParsing,
    SqlRuntime,
    AccessDenied,
    TableDoesNotExist,
    QueryExecution,
    ServerTableMissing,
    ServerSegmentMissing,
    /// Every query slot taken and the queue full.
    ServerOutOfCapacity,
    /// No query slot freed within the query's timeout.
    QuerySchedulingTimeout,
    ServerResourceLimitExceeded,
    ExecutionTimeout,
    BrokerTimeout,
    BrokerResourceMissing,
    BrokerInstanceMissing,
    BrokerRequestSend,
    ServerNotResponding,
    TooManyRequests,
    Internal,
    MergeResponse,
    QueryCancellation,
    QueryValidation,
    UnknownColumn,
    QueryPlanning,
    Unknown,
}

impl ErrorCode {
    /// Pinot's number for this code.
    pub fn code(self) -> i32 {
        match self {
            ErrorCode::JsonParsing => 100,
            ErrorCode::SqlParsing => 150,
            ErrorCode::SqlRuntime => 160,
            ErrorCode::AccessDenied => 180,
            ErrorCode::TableDoesNotExist => 190,
            ErrorCode::QueryExecution => 200,
            ErrorCode::ServerTableMissing => 230,
            ErrorCode::ServerSegmentMissing => 235,
            ErrorCode::ServerOutOfCapacity => 211,
            ErrorCode::QuerySchedulingTimeout => 240,
            ErrorCode::ServerResourceLimitExceeded => 245,
            ErrorCode::ExecutionTimeout => 250,
            ErrorCode::BrokerTimeout => 400,
            ErrorCode::BrokerResourceMissing => 410,
            ErrorCode::BrokerInstanceMissing => 420,
            ErrorCode::BrokerRequestSend => 425,
            ErrorCode::ServerNotResponding => 427,
            ErrorCode::TooManyRequests => 429,
            ErrorCode::Internal => 450,
            ErrorCode::MergeResponse => 500,
            ErrorCode::QueryCancellation => 503,
            ErrorCode::QueryValidation => 700,
            ErrorCode::UnknownColumn => 710,
            ErrorCode::QueryPlanning => 720,
            ErrorCode::Unknown => 1000,
        }
    }

    /// Pinot's default message, the prefix of every exception message with this code.
    pub fn default_message(self) -> &'static str {
        match self {
            ErrorCode::JsonParsing => "JsonParsingError",
            ErrorCode::SqlParsing => "SQLParsingError",
            ErrorCode::SqlRuntime => "SQLRuntimeError",
            ErrorCode::AccessDenied => "AccessDenied",
            ErrorCode::TableDoesNotExist => "TableDoesNotExistError",
            ErrorCode::QueryExecution => "QueryExecutionError",
            ErrorCode::ServerTableMissing => "ServerTableMissing",
            ErrorCode::ServerSegmentMissing => "ServerSegmentMissing",
            ErrorCode::ServerOutOfCapacity => "ServerOutOfCapacityError",
            ErrorCode::QuerySchedulingTimeout => "QuerySchedulingTimeoutError",
            ErrorCode::ExecutionTimeout => "ExecutionTimeoutError",
            ErrorCode::BrokerTimeout => "BrokerTimeoutError",
            ErrorCode::BrokerResourceMissing => "BrokerResourceMissingError",
            ErrorCode::BrokerInstanceMissing => "BrokerInstanceMissingError",
            ErrorCode::BrokerRequestSend => "BrokerRequestSend",
            ErrorCode::ServerNotResponding => "ServerNotResponding",
            ErrorCode::TooManyRequests => "TooManyRequests",
            ErrorCode::Internal => "InternalError",
            ErrorCode::MergeResponse => "MergeResponseError",
            ErrorCode::QueryCancellation => "QueryCancellationError",
            ErrorCode::QueryValidation => "QueryValidationError",
            ErrorCode::ServerResourceLimitExceeded => "ServerResourceLimitExceededError",
            ErrorCode::UnknownColumn => "UnknownColumnError",
            ErrorCode::QueryPlanning => "QueryPlanningError",
            ErrorCode::Unknown => "UnknownError",
        }
    }

    /// The HTTP status Pinot uses for this code when `Pinot-Use-Http-Status-For-Errors` is set.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::JsonParsing
            | ErrorCode::SqlParsing
            | ErrorCode::QueryValidation
            | ErrorCode::UnknownColumn
            | ErrorCode::QueryPlanning => 400,
            ErrorCode::AccessDenied => 403,
            ErrorCode::TableDoesNotExist
            | ErrorCode::ServerTableMissing
            | ErrorCode::ServerSegmentMissing => 404,
            ErrorCode::ExecutionTimeout
            | ErrorCode::BrokerTimeout
            | ErrorCode::QuerySchedulingTimeout => 408,
            ErrorCode::TooManyRequests => 429,
            ErrorCode::BrokerResourceMissing
            | ErrorCode::BrokerInstanceMissing
            | ErrorCode::BrokerRequestSend
            | ErrorCode::ServerNotResponding
            | ErrorCode::ServerResourceLimitExceeded
            | ErrorCode::ServerOutOfCapacity
            | ErrorCode::QueryCancellation => 503,
            ErrorCode::SqlRuntime
            | ErrorCode::QueryExecution
            | ErrorCode::Internal
            | ErrorCode::MergeResponse
            | ErrorCode::Unknown => 500,
        }
    }

    /// `"<default message>: <detail>"`, the way Pinot builds exception messages.
    pub fn message(self, detail: &str) -> String {
        if detail.is_empty() {
            self.default_message().to_string()
        } else {
            format!("{}: {}", self.default_message(), detail)
        }
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_messages_match_pinot() {
        assert_eq!(ErrorCode::SqlParsing.code(), 150);
        assert_eq!(ErrorCode::TableDoesNotExist.code(), 190);
        assert_eq!(ErrorCode::UnknownColumn.code(), 710);
        assert_eq!(
            ErrorCode::UnknownColumn.message("Unknown columnName 'x' found in the query"),
            "UnknownColumnError: Unknown columnName 'x' found in the query"
        );
        assert_eq!(ErrorCode::ExecutionTimeout.http_status(), 408);
        assert_eq!(
            serde_json::to_string(&ErrorCode::QueryExecution).unwrap(),
            "200"
        );
    }
}
