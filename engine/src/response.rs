//! [`BrokerResponse`]: Pinot's `BrokerResponseNative` JSON, field for field and in Pinot's
//! order (`@JsonPropertyOrder`), so clients that read Pinot read Tessera.
//!
//! `resultTable` is omitted when absent (error responses); every other key is always present,
//! zero when Tessera has nothing to report.

use crate::error::EngineError;
use crate::stats::ExecutionStats;
use planner::plan::ColumnType;
use segments::types::Value;
use serde::{Deserialize, Serialize};

/// `resultTable.dataSchema`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataSchema {
    pub column_names: Vec<String>,
    /// Pinot type names (`LONG`, `STRING_ARRAY`).
    pub column_data_types: Vec<String>,
}

impl DataSchema {
    /// The schema of columns with these names and types.
    pub fn of(columns: &[(String, ColumnType)]) -> DataSchema {
        DataSchema {
            column_names: columns.iter().map(|(n, _)| n.clone()).collect(),
            column_data_types: columns.iter().map(|(_, t)| t.pinot_name()).collect(),
        }
    }
}

/// `resultTable`: schema plus rows of JSON values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultTable {
    pub data_schema: DataSchema,
    pub rows: Vec<Vec<serde_json::Value>>,
}

impl ResultTable {
    /// A table from column names/types and typed rows (values rendered Pinot's way).
    pub fn new(columns: &[(String, ColumnType)], rows: &[Vec<Value>]) -> ResultTable {
        ResultTable {
            data_schema: DataSchema::of(columns),
            rows: rows
                .iter()
                .map(|r| r.iter().map(Value::to_json).collect())
                .collect(),
        }
    }
}

/// One entry of `exceptions`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryException {
    pub error_code: i32,
    pub message: String,
}

impl From<&EngineError> for QueryException {
    fn from(e: &EngineError) -> QueryException {
        if let EngineError::Remote { code, message } = e {
            return QueryException {
                error_code: *code,
                message: message.clone(),
            };
        }
        QueryException {
            error_code: e.code().code(),
            message: e.pinot_message(),
        }
    }
}

/// The broker's answer to a query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrokerResponse {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub result_table: Option<ResultTable>,
    pub num_rows_result_set: u64,
    pub partial_result: bool,
    pub exceptions: Vec<QueryException>,
    pub num_groups_limit_reached: bool,
    pub num_groups_warning_limit_reached: bool,
    pub max_rows_in_distinct_reached: bool,
    pub max_rows_without_change_in_distinct_reached: bool,
    pub max_execution_time_in_distinct_reached: bool,
    pub time_used_ms: u64,
    pub request_id: String,
    pub client_request_id: Option<String>,
    pub broker_id: String,
    pub num_docs_scanned: u64,
    pub total_docs: u64,
    pub num_entries_scanned_in_filter: u64,
    pub num_entries_scanned_post_filter: u64,
    pub num_servers_queried: u64,
    pub num_servers_responded: u64,
    pub num_segments_queried: u64,
    pub num_segments_processed: u64,
    pub num_segments_matched: u64,
    pub num_consuming_segments_queried: u64,
    pub num_consuming_segments_processed: u64,
    pub num_consuming_segments_matched: u64,
    pub min_consuming_freshness_time_ms: u64,
    pub num_segments_pruned_by_broker: u64,
    pub num_segments_pruned_by_server: u64,
    pub num_segments_pruned_invalid: u64,
    pub num_segments_pruned_by_limit: u64,
    pub num_segments_pruned_by_value: u64,
    pub broker_reduce_time_ms: u64,
    pub offline_thread_cpu_time_ns: u64,
    pub realtime_thread_cpu_time_ns: u64,
    pub offline_system_activities_cpu_time_ns: u64,
    pub realtime_system_activities_cpu_time_ns: u64,
    pub offline_response_serialization_cpu_time_ns: u64,
    pub realtime_response_serialization_cpu_time_ns: u64,
    pub offline_total_cpu_time_ns: u64,
    pub realtime_total_cpu_time_ns: u64,
    pub explain_plan_num_empty_filter_segments: u64,
    pub explain_plan_num_match_all_filter_segments: u64,
    pub trace_info: serde_json::Map<String, serde_json::Value>,
    pub tables_queried: Vec<String>,
    pub offline_thread_mem_allocated_bytes: u64,
    pub realtime_thread_mem_allocated_bytes: u64,
    pub offline_response_ser_mem_allocated_bytes: u64,
    pub realtime_response_ser_mem_allocated_bytes: u64,
    pub offline_total_mem_allocated_bytes: u64,
    pub realtime_total_mem_allocated_bytes: u64,
    pub pools: Vec<i64>,
    pub rls_filters_applied: bool,
    pub groups_trimmed: bool,
    /// Multi-stage queries: whether a join stopped at `maxRowsInJoin` (`joinOverflowMode=BREAK`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_rows_in_join_reached: Option<bool>,
    /// Multi-stage queries: whether a window stopped at `maxRowsInWindow`
    /// (`windowOverflowMode=BREAK`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub max_rows_in_window_reached: Option<bool>,
    /// Multi-stage queries: what each operator of each stage did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stage_stats: Option<crate::stats::OperatorStats>,
}

impl Default for BrokerResponse {
    fn default() -> BrokerResponse {
        BrokerResponse {
            result_table: None,
            num_rows_result_set: 0,
            partial_result: false,
            exceptions: Vec::new(),
            num_groups_limit_reached: false,
            num_groups_warning_limit_reached: false,
            max_rows_in_distinct_reached: false,
            max_rows_without_change_in_distinct_reached: false,
            max_execution_time_in_distinct_reached: false,
            time_used_ms: 0,
            request_id: String::new(),
            client_request_id: None,
            broker_id: default_broker_id(),
            num_docs_scanned: 0,
            total_docs: 0,
            num_entries_scanned_in_filter: 0,
            num_entries_scanned_post_filter: 0,
            num_servers_queried: 0,
            num_servers_responded: 0,
            num_segments_queried: 0,
            num_segments_processed: 0,
            num_segments_matched: 0,
            num_consuming_segments_queried: 0,
            num_consuming_segments_processed: 0,
            num_consuming_segments_matched: 0,
            min_consuming_freshness_time_ms: 0,
            num_segments_pruned_by_broker: 0,
            num_segments_pruned_by_server: 0,
            num_segments_pruned_invalid: 0,
            num_segments_pruned_by_limit: 0,
            num_segments_pruned_by_value: 0,
            broker_reduce_time_ms: 0,
            offline_thread_cpu_time_ns: 0,
            realtime_thread_cpu_time_ns: 0,
            offline_system_activities_cpu_time_ns: 0,
            realtime_system_activities_cpu_time_ns: 0,
            offline_response_serialization_cpu_time_ns: 0,
            realtime_response_serialization_cpu_time_ns: 0,
            offline_total_cpu_time_ns: 0,
            realtime_total_cpu_time_ns: 0,
            explain_plan_num_empty_filter_segments: 0,
            explain_plan_num_match_all_filter_segments: 0,
            trace_info: serde_json::Map::new(),
            tables_queried: Vec::new(),
            offline_thread_mem_allocated_bytes: 0,
            realtime_thread_mem_allocated_bytes: 0,
            offline_response_ser_mem_allocated_bytes: 0,
            realtime_response_ser_mem_allocated_bytes: 0,
            offline_total_mem_allocated_bytes: 0,
            realtime_total_mem_allocated_bytes: 0,
            pools: Vec::new(),
            rls_filters_applied: false,
            groups_trimmed: false,
            max_rows_in_join_reached: None,
            max_rows_in_window_reached: None,
            stage_stats: None,
        }
    }
}

/// The broker id of an in-process broker (`Broker_<host>_<port>` in Pinot).
pub fn default_broker_id() -> String {
    "Broker_localhost_8099".to_string()
}

impl BrokerResponse {
    /// A response carrying one exception and no result table.
    pub fn from_error(e: &EngineError) -> BrokerResponse {
        let mut r = BrokerResponse::default();
        r.push_exception(e);
        r
    }

    /// A response carrying one exception with Pinot's message for `code` and `detail`.
    pub fn from_exception(code: segments::types::ErrorCode, detail: &str) -> BrokerResponse {
        let mut r = BrokerResponse::default();
        r.add_exception(QueryException {
            error_code: code.code(),
            message: code.message(detail),
        });
        r
    }

    /// Adds an exception (and marks the result partial).
    pub fn add_exception(&mut self, e: QueryException) {
        self.exceptions.push(e);
        self.partial_result = true;
    }

    /// Adds an exception (and marks the result partial, as Pinot does).
    pub fn push_exception(&mut self, e: &EngineError) {
        self.exceptions.push(QueryException::from(e));
        self.partial_result = true;
    }

    /// Copies execution counters into the response.
    pub fn set_stats(&mut self, s: &ExecutionStats) {
        self.num_docs_scanned = s.num_docs_scanned;
        self.total_docs = s.total_docs;
        self.num_entries_scanned_in_filter = s.num_entries_scanned_in_filter;
        self.num_entries_scanned_post_filter = s.num_entries_scanned_post_filter;
        self.num_segments_queried = s.num_segments_queried;
        self.num_segments_processed = s.num_segments_processed;
        self.num_segments_matched = s.num_segments_matched;
        self.num_segments_pruned_by_server = s.num_segments_pruned_by_server;
        self.num_segments_pruned_by_value = s.num_segments_pruned_by_value;
        self.explain_plan_num_empty_filter_segments = s.explain_num_empty_filter_segments;
        self.explain_plan_num_match_all_filter_segments = s.explain_num_match_all_filter_segments;
        self.num_consuming_segments_queried = s.num_consuming_segments_queried;
        self.num_consuming_segments_processed = s.num_consuming_segments_processed;
        self.num_consuming_segments_matched = s.num_consuming_segments_matched;
        self.min_consuming_freshness_time_ms = s.min_consuming_freshness_time_ms;
    }

    /// Installs the result table and `numRowsResultSet`.
    pub fn set_result(&mut self, table: ResultTable) {
        self.num_rows_result_set = table.rows.len() as u64;
        self.result_table = Some(table);
    }

    /// The first exception's code, or -1 (the `X-Pinot-Error-Code` header value).
    pub fn error_code(&self) -> i32 {
        self.exceptions.first().map_or(-1, |e| e.error_code)
    }

    /// Pretty-printed JSON.
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;

    #[test]
    fn keys_in_pinot_order_and_result_table_omitted_on_error() {
        let r = BrokerResponse::from_error(&EngineError::Timeout(10));
        let json = serde_json::to_value(&r).unwrap();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys[0], "numRowsResultSet");
        assert_eq!(keys[2], "exceptions");
        assert_eq!(keys.last().unwrap().as_str(), "groupsTrimmed");
        assert!(json.get("resultTable").is_none());
        assert_eq!(json["exceptions"][0]["errorCode"], 250);
        assert_eq!(json["partialResult"], true);
        assert_eq!(json["clientRequestId"], serde_json::Value::Null);
        assert_eq!(r.error_code(), 250);
        let names = [
            "numGroupsLimitReached",
            "timeUsedMs",
            "requestId",
            "brokerId",
            "numDocsScanned",
            "totalDocs",
            "numEntriesScannedInFilter",
            "numEntriesScannedPostFilter",
            "numServersQueried",
            "numSegmentsPrunedByValue",
            "brokerReduceTimeMs",
            "offlineTotalCpuTimeNs",
            "explainPlanNumMatchAllFilterSegments",
            "traceInfo",
            "tablesQueried",
            "offlineThreadMemAllocatedBytes",
            "realtimeTotalMemAllocatedBytes",
            "pools",
            "rlsFiltersApplied",
        ];
        for n in names {
            assert!(json.get(n).is_some(), "missing {n}");
        }
    }

    #[test]
    fn result_table_renders_values() {
        let mut r = BrokerResponse::default();
        r.set_result(ResultTable::new(
            &[
                ("count(*)".into(), ColumnType::sv(DataType::Long)),
                ("tags".into(), ColumnType::mv(DataType::String)),
            ],
            &[vec![
                Value::Long(3),
                Value::Array(vec![Value::String("a".into())]),
            ]],
        ));
        let json = serde_json::to_value(&r).unwrap();
        let first_key = json.as_object().unwrap().keys().next().unwrap().clone();
        assert_eq!(first_key, "resultTable");
        assert_eq!(
            json["resultTable"]["dataSchema"]["columnDataTypes"][1],
            "STRING_ARRAY"
        );
        assert_eq!(json["resultTable"]["rows"][0][0], 3);
        assert_eq!(json["numRowsResultSet"], 1);
    }
}
