//! Query options as one typed struct: `SET k = v;` statements and legacy `OPTION(...)` from the
//! SQL text plus the request's `queryOptions` string (`k1=v1;k2=v2`).
//!
//! Rules (Pinot's `RequestUtils`/`QueryOptionsUtils`): keys are matched case-insensitively to
//! their canonical names; options from the SQL win and the request string only fills keys not
//! already set; booleans are `true` iff the value is `true` in any case (`useStarTree` is off iff
//! it is `false`); numbers out of range are errors naming the option. Unknown keys are kept in
//! [`QueryOptions::extra`] without interpretation.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Pinot's default query timeout when `timeoutMs` is not given.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// Pinot's default `numGroupsLimit`.
pub const DEFAULT_NUM_GROUPS_LIMIT: u32 = 100_000;

/// An invalid option string or value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    /// A `queryOptions` entry without exactly one `=` (Guava's message).
    #[error("Chunk [{0}] is not a valid entry")]
    InvalidEntry(String),
    /// The same key twice in the `queryOptions` string (Guava's message).
    #[error("Duplicate key [{0}] found.")]
    DuplicateKey(String),
    /// A number outside its option's range, or not a number.
    #[error("{option} must be a number between {min} and {max}, got: {value}")]
    OutOfRange {
        option: &'static str,
        value: String,
        min: i64,
        max: &'static str,
    },
    /// A value that must be an integer but is not.
    #[error("{option} must be an integer, got: {value}")]
    NotAnInteger { option: &'static str, value: String },
    /// A malformed `skipIndexes` value.
    #[error(
        "Invalid format for skipIndexes. Example of valid format: SET skipIndexes='col1=inverted,range&col2=inverted', got: {0}"
    )]
    InvalidSkipIndexes(String),
    /// An unknown index type in `skipIndexes`.
    #[error("unknown index type '{0}' in skipIndexes")]
    UnknownIndexType(String),
    /// A `joinOverflowMode` other than `THROW` or `BREAK`.
    #[error("joinOverflowMode must be THROW or BREAK, got: {0}")]
    InvalidJoinOverflowMode(String),
    /// A `windowOverflowMode` other than `THROW` or `BREAK`.
    #[error("windowOverflowMode must be THROW or BREAK, got: {0}")]
    InvalidWindowOverflowMode(String),
}

/// `joinOverflowMode` (and `windowOverflowMode`): what a multi-stage join (window) does past
/// `maxRowsInJoin` (`maxRowsInWindow`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum JoinOverflowMode {
    /// Fail the query with Pinot's error naming `maxRowsInJoin`.
    #[default]
    Throw,
    /// Stop at the limit and mark the answer partial.
    Break,
}

impl JoinOverflowMode {
    /// `THROW` or `BREAK`, as Pinot's enum names them (an option's or a hint's value).
    pub fn parse(text: &str) -> Option<JoinOverflowMode> {
        match text {
            "THROW" => Some(JoinOverflowMode::Throw),
            "BREAK" => Some(JoinOverflowMode::Break),
            _ => None,
        }
    }
}

/// Index types that `skipIndexes` can name (Pinot's `FieldConfig.IndexType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SkipIndexType {
    Inverted,
    Sorted,
    Text,
    Fst,
    Ifst,
    H3,
    Json,
    Timestamp,
    Vector,
    Range,
}

impl SkipIndexType {
    const ALL: [(&'static str, SkipIndexType); 10] = [
        ("INVERTED", SkipIndexType::Inverted),
        ("SORTED", SkipIndexType::Sorted),
        ("TEXT", SkipIndexType::Text),
        ("FST", SkipIndexType::Fst),
        ("IFST", SkipIndexType::Ifst),
        ("H3", SkipIndexType::H3),
        ("JSON", SkipIndexType::Json),
        ("TIMESTAMP", SkipIndexType::Timestamp),
        ("VECTOR", SkipIndexType::Vector),
        ("RANGE", SkipIndexType::Range),
    ];

    fn parse(s: &str) -> Result<Self, OptionsError> {
        Self::ALL
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(s))
            .map(|(_, t)| *t)
            .ok_or_else(|| OptionsError::UnknownIndexType(s.to_string()))
    }
}

/// Every option a query can carry. Fields are `None`/default when the option was not given;
/// accessors such as [`QueryOptions::timeout`] apply Pinot's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryOptions {
    /// `timeoutMs` (≥ 1).
    pub timeout_ms: Option<u64>,
    /// `useMultistageEngine`.
    pub use_multistage_engine: bool,
    /// `enableNullHandling`.
    pub enable_null_handling: bool,
    /// `useStarTree` (default true; only `false` turns it off).
    pub use_star_tree: bool,
    /// `skipIndexes='col1=inverted,range&col2=sorted'`: per column, the indexes not to use.
    pub skip_indexes: BTreeMap<String, BTreeSet<SkipIndexType>>,
    /// `numGroupsLimit` (≥ 1).
    pub num_groups_limit: Option<u32>,
    /// `errorOnNumGroupsLimit`: reaching `numGroupsLimit` fails the query.
    pub error_on_num_groups_limit: bool,
    /// `groupTrimThreshold` (non-positive disables on-the-fly trimming).
    pub group_trim_threshold: Option<i32>,
    /// `minSegmentGroupTrimSize` (non-positive disables segment-level trimming).
    pub min_segment_group_trim_size: Option<i32>,
    /// `minServerGroupTrimSize`.
    pub min_server_group_trim_size: Option<i32>,
    /// `minBrokerGroupTrimSize`.
    pub min_broker_group_trim_size: Option<i32>,
    /// `maxExecutionThreads` (≥ 1).
    pub max_execution_threads: Option<u32>,
    /// `maxInitialResultHolderCapacity` (≥ 1).
    pub max_initial_result_holder_capacity: Option<u32>,
    /// `stageParallelism` (≥ 1): workers per server of each multi-stage intermediate stage.
    pub stage_parallelism: Option<u32>,
    /// `maxRowsInJoin` (≥ 1).
    pub max_rows_in_join: Option<u32>,
    /// `maxRowsInWindow` (≥ 1): rows a multi-stage window operator may hold.
    pub max_rows_in_window: Option<u32>,
    /// `windowOverflowMode`: what a window past `maxRowsInWindow` does.
    pub window_overflow_mode: Option<JoinOverflowMode>,
    /// `joinOverflowMode` (`THROW` or `BREAK`, as Pinot's enum names them).
    pub join_overflow_mode: Option<JoinOverflowMode>,
    /// `trace`.
    pub trace: bool,
    /// `explainPlanVerbose`.
    pub explain_plan_verbose: bool,
    /// `preserveType`.
    pub preserve_type: bool,
    /// `serverReturnFinalResult`.
    pub server_return_final_result: bool,
    /// `skipUpsert`.
    pub skip_upsert: bool,
    /// `skipUpsertView`: each segment's current docs even under a consistency mode.
    pub skip_upsert_view: bool,
    /// `upsertViewFreshnessMs`: the oldest `SNAPSHOT` view the query takes (negative: the
    /// table's refresh interval).
    pub upsert_view_freshness_ms: Option<i64>,
    /// `dropResults`.
    pub drop_results: bool,
    /// `autoRewriteAggregationType`: `MIN`/`MAX` of text become `MINSTRING`/`MAXSTRING`.
    pub auto_rewrite_aggregation_type: bool,
    /// Options this struct does not model, by canonical (or as-given) key; kept, not interpreted.
    pub extra: BTreeMap<String, String>,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            timeout_ms: None,
            use_multistage_engine: false,
            enable_null_handling: false,
            use_star_tree: true,
            skip_indexes: BTreeMap::new(),
            num_groups_limit: None,
            error_on_num_groups_limit: false,
            group_trim_threshold: None,
            min_segment_group_trim_size: None,
            min_server_group_trim_size: None,
            min_broker_group_trim_size: None,
            max_execution_threads: None,
            max_initial_result_holder_capacity: None,
            stage_parallelism: None,
            max_rows_in_join: None,
            join_overflow_mode: None,
            max_rows_in_window: None,
            window_overflow_mode: None,
            trace: false,
            explain_plan_verbose: false,
            preserve_type: false,
            server_return_final_result: false,
            skip_upsert: false,
            skip_upsert_view: false,
            upsert_view_freshness_ms: None,
            drop_results: false,
            auto_rewrite_aggregation_type: false,
            extra: BTreeMap::new(),
        }
    }
}

/// Applies one option value to the struct.
type Setter = fn(&mut QueryOptions, &str) -> Result<(), OptionsError>;

/// Generates the table of modelled options: canonical key and how its value is stored.
macro_rules! option_table {
    ($($key:literal => |$o:ident, $v:ident| $apply:expr;)*) => {
        const MODELLED: &[(&str, Setter)] = &[
            $(($key, |$o: &mut QueryOptions, $v: &str| { $apply; Ok(()) }),)*
        ];
    };
}

option_table! {
    "timeoutMs" => |o, v| o.timeout_ms = Some(parse_long("timeoutMs", v, 1)?);
    "useMultistageEngine" => |o, v| o.use_multistage_engine = parse_bool(v);
    "enableNullHandling" => |o, v| o.enable_null_handling = parse_bool(v);
    "useStarTree" => |o, v| o.use_star_tree = !v.eq_ignore_ascii_case("false");
    "skipIndexes" => |o, v| o.skip_indexes = parse_skip_indexes(v)?;
    "numGroupsLimit" => |o, v| o.num_groups_limit = Some(parse_positive_int("numGroupsLimit", v)?);
    "errorOnNumGroupsLimit" => |o, v| o.error_on_num_groups_limit = parse_bool(v);
    "groupTrimThreshold" => |o, v| o.group_trim_threshold = Some(parse_int("groupTrimThreshold", v)?);
    "minSegmentGroupTrimSize" =>
        |o, v| o.min_segment_group_trim_size = Some(parse_int("minSegmentGroupTrimSize", v)?);
    "minServerGroupTrimSize" =>
        |o, v| o.min_server_group_trim_size = Some(parse_int("minServerGroupTrimSize", v)?);
    "minBrokerGroupTrimSize" =>
        |o, v| o.min_broker_group_trim_size = Some(parse_int("minBrokerGroupTrimSize", v)?);
    "maxExecutionThreads" =>
        |o, v| o.max_execution_threads = Some(parse_positive_int("maxExecutionThreads", v)?);
    "maxInitialResultHolderCapacity" => |o, v| o.max_initial_result_holder_capacity =
        Some(parse_positive_int("maxInitialResultHolderCapacity", v)?);
    "stageParallelism" =>
        |o, v| o.stage_parallelism = Some(parse_positive_int("stageParallelism", v)?);
    "maxRowsInJoin" => |o, v| o.max_rows_in_join = Some(parse_positive_int("maxRowsInJoin", v)?);
    "joinOverflowMode" => |o, v| o.join_overflow_mode = Some(JoinOverflowMode::parse(v)
        .ok_or_else(|| OptionsError::InvalidJoinOverflowMode(v.to_string()))?);
    "maxRowsInWindow" =>
        |o, v| o.max_rows_in_window = Some(parse_positive_int("maxRowsInWindow", v)?);
    "windowOverflowMode" => |o, v| o.window_overflow_mode = Some(JoinOverflowMode::parse(v)
        .ok_or_else(|| OptionsError::InvalidWindowOverflowMode(v.to_string()))?);
    "trace" => |o, v| o.trace = parse_bool(v);
    "explainPlanVerbose" => |o, v| o.explain_plan_verbose = parse_bool(v);
    "preserveType" => |o, v| o.preserve_type = parse_bool(v);
    "serverReturnFinalResult" => |o, v| o.server_return_final_result = parse_bool(v);
    "skipUpsert" => |o, v| o.skip_upsert = parse_bool(v);
    "skipUpsertView" => |o, v| o.skip_upsert_view = parse_bool(v);
    "upsertViewFreshnessMs" =>
        |o, v| o.upsert_view_freshness_ms = Some(i64::from(parse_int("upsertViewFreshnessMs", v)?));
    "dropResults" => |o, v| o.drop_results = parse_bool(v);
    "autoRewriteAggregationType" => |o, v| o.auto_rewrite_aggregation_type = parse_bool(v);
}

/// Other Pinot option keys: not modelled, but still resolved to their canonical spelling.
const KNOWN_UNMODELLED: &[&str] = &[
    "AndScanReordering",
    "accurateGroupByWithoutOrderBy",
    "extraPassiveTimeoutMs",
    "filteredAggregationsSkipEmptyGroups",
    "groupByMode",
    "inPredicateLookupAlgorithm",
    "inPredicatePreSorted",
    "isSecondaryWorkload",
    "maxQueryResponseSizeBytes",
    "maxRowsInDistinct",
    "maxRowsInWindow",
    "maxServerResponseSizeBytes",
    "maxStreamingPendingBlocks",
    "minInitialIndexedTableCapacity",
    "multiStageLeafLimit",
    "numGroupsWarningLimit",
    "numReplicaGroupsToQuery",
    "orderByAlgorithm",
    "responseFormat",
    "routingOptions",
    "scanStarTreeNodes",
    "serverReturnFinalResultKeyUnpartitioned",
    "skipPlannerRules",
    "useFixedReplica",
    "usePlannerRules",
    "useScanReorderOpt",
    "windowOverflowMode",
    "workloadName",
];

/// The canonical spelling of a known option key (matched case-insensitively), or the key as
/// given when it is unknown.
pub fn canonical_key(key: &str) -> &str {
    MODELLED
        .iter()
        .map(|(k, _)| *k)
        .chain(KNOWN_UNMODELLED.iter().copied())
        .find(|k| k.eq_ignore_ascii_case(key))
        .unwrap_or(key)
}

/// Pinot's `Boolean.parseBoolean`: `true` in any case is true, anything else false.
fn parse_bool(v: &str) -> bool {
    v.eq_ignore_ascii_case("true")
}

/// A long in `[min, 2^63-1]`.
fn parse_long(option: &'static str, v: &str, min: i64) -> Result<u64, OptionsError> {
    match v.parse::<i64>() {
        Ok(n) if n >= min => Ok(n.unsigned_abs()),
        _ => Err(OptionsError::OutOfRange {
            option,
            value: v.to_string(),
            min,
            max: "2^63-1",
        }),
    }
}

/// An int in `[1, 2^31-1]`.
fn parse_positive_int(option: &'static str, v: &str) -> Result<u32, OptionsError> {
    match v.parse::<i32>() {
        Ok(n) if n >= 1 => Ok(n.unsigned_abs()),
        _ => Err(OptionsError::OutOfRange {
            option,
            value: v.to_string(),
            min: 1,
            max: "2^31-1",
        }),
    }
}

/// Any int.
fn parse_int(option: &'static str, v: &str) -> Result<i32, OptionsError> {
    v.parse::<i32>().map_err(|_| OptionsError::NotAnInteger {
        option,
        value: v.to_string(),
    })
}

/// `col1=inverted,range&col2=sorted` (Pinot's `QueryOptionsUtils#getSkipIndexes`; empty parts
/// are skipped as `StringUtils.split` does).
fn parse_skip_indexes(v: &str) -> Result<BTreeMap<String, BTreeSet<SkipIndexType>>, OptionsError> {
    let mut skip: BTreeMap<String, BTreeSet<SkipIndexType>> = BTreeMap::new();
    for column_conf in v.split('&').filter(|s| !s.is_empty()) {
        let parts: Vec<&str> = column_conf.split('=').filter(|s| !s.is_empty()).collect();
        let [column, types] = parts[..] else {
            return Err(OptionsError::InvalidSkipIndexes(v.to_string()));
        };
        for index_type in types.split(',').filter(|s| !s.is_empty()) {
            skip.entry(column.to_string())
                .or_default()
                .insert(SkipIndexType::parse(index_type)?);
        }
    }
    Ok(skip)
}

/// Splits a request `queryOptions` string: entries separated by `;` (trimmed, empty ones
/// skipped), each `key=value` with exactly one `=` (key and value trimmed); a repeated key is
/// an error, as in Guava's `MapSplitter`.
pub fn split_request_options(s: &str) -> Result<Vec<(String, String)>, OptionsError> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for entry in s.split(';').map(str::trim).filter(|e| !e.is_empty()) {
        let mut fields = entry.split('=');
        let (Some(key), Some(value), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(OptionsError::InvalidEntry(entry.to_string()));
        };
        let key = key.trim();
        if pairs.iter().any(|(k, _)| k == key) {
            return Err(OptionsError::DuplicateKey(key.to_string()));
        }
        pairs.push((key.to_string(), value.trim().to_string()));
    }
    Ok(pairs)
}

impl QueryOptions {
    /// Resolves the options of one request: `sql_options` (from `SET`/`OPTION`, in order, later
    /// wins) then the request's `queryOptions` string for keys the SQL did not set.
    pub fn resolve(
        sql_options: &[(String, String)],
        request_query_options: Option<&str>,
    ) -> Result<QueryOptions, OptionsError> {
        Self::resolve_with_trace(sql_options, request_query_options, false)
    }

    /// Like [`QueryOptions::resolve`], with the request body's `"trace": true` adding
    /// `trace=true` at the request level (so a SQL `SET trace = false` still wins).
    pub fn resolve_with_trace(
        sql_options: &[(String, String)],
        request_query_options: Option<&str>,
        trace: bool,
    ) -> Result<QueryOptions, OptionsError> {
        let mut merged: Vec<(&str, String)> = Vec::new();
        for (key, value) in sql_options {
            let key = canonical_key(key);
            match merged.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value.clone(),
                None => merged.push((key, value.clone())),
            }
        }
        let mut request = match request_query_options {
            Some(s) => split_request_options(s)?,
            None => Vec::new(),
        };
        if trace {
            match request.iter_mut().find(|(k, _)| k == "trace") {
                Some(entry) => entry.1 = "true".to_string(),
                None => request.push(("trace".to_string(), "true".to_string())),
            }
        }
        let mut options = QueryOptions::default();
        for (key, value) in &merged {
            options.set(key, value)?;
        }
        for (key, value) in &request {
            let key = canonical_key(key);
            if !merged.iter().any(|(k, _)| *k == key) {
                options.set(key, value)?;
            }
        }
        Ok(options)
    }

    /// Sets one option (key matched case-insensitively), replacing any earlier value; used
    /// for overrides such as `POST /query` forcing `useMultistageEngine=true`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), OptionsError> {
        let key = canonical_key(key);
        match MODELLED.iter().find(|(k, _)| *k == key) {
            Some((_, apply)) => apply(self, value),
            None => {
                self.extra.insert(key.to_string(), value.to_string());
                Ok(())
            }
        }
    }

    /// The query timeout (`timeoutMs`, default 10 s).
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    /// `numGroupsLimit` or its default (100 000).
    pub fn num_groups_limit_or_default(&self) -> u32 {
        self.num_groups_limit.unwrap_or(DEFAULT_NUM_GROUPS_LIMIT)
    }

    /// Whether index `kind` may be used for `column` (not excluded by `skipIndexes`).
    pub fn index_allowed(&self, column: &str, kind: SkipIndexType) -> bool {
        !self
            .skip_indexes
            .get(column)
            .is_some_and(|kinds| kinds.contains(&kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sql(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn defaults() {
        let o = QueryOptions::resolve(&[], None).unwrap();
        assert_eq!(o, QueryOptions::default());
        assert!(o.use_star_tree);
        assert!(!o.use_multistage_engine);
        assert_eq!(o.timeout(), Duration::from_millis(10_000));
        assert_eq!(o.num_groups_limit_or_default(), 100_000);
    }

    #[test]
    fn typed_values_and_case_insensitive_keys() {
        let o = QueryOptions::resolve(
            &sql(&[
                ("TIMEOUTMS", "1500"),
                ("usemultistageengine", "TRUE"),
                ("enableNullHandling", "yes"),
                ("useStarTree", "False"),
                ("numGroupsLimit", "7"),
                ("groupTrimThreshold", "-1"),
                ("maxExecutionThreads", "2"),
                ("trace", "true"),
                ("skipIndexes", "a=inverted,RANGE&b=sorted"),
                ("somethingNew", "x"),
                ("maxrowsindistinct", "5"),
            ]),
            None,
        )
        .unwrap();
        assert_eq!(o.timeout_ms, Some(1500));
        assert!(o.use_multistage_engine);
        assert!(!o.enable_null_handling, "only 'true' is true, as in Java");
        assert!(!o.use_star_tree);
        assert_eq!(o.num_groups_limit, Some(7));
        assert_eq!(o.group_trim_threshold, Some(-1));
        assert_eq!(o.max_execution_threads, Some(2));
        assert!(o.trace);
        assert!(!o.index_allowed("a", SkipIndexType::Range));
        assert!(!o.index_allowed("a", SkipIndexType::Inverted));
        assert!(o.index_allowed("a", SkipIndexType::Sorted));
        assert!(!o.index_allowed("b", SkipIndexType::Sorted));
        assert_eq!(o.extra.get("somethingNew").map(String::as_str), Some("x"));
        assert_eq!(
            o.extra.get("maxRowsInDistinct").map(String::as_str),
            Some("5")
        );
    }

    #[test]
    fn sql_wins_over_request_string() {
        let o = QueryOptions::resolve(
            &sql(&[("timeoutMs", "100"), ("timeoutMs", "200")]),
            Some(" TimeoutMs = 5000 ; useMultistageEngine=true;; "),
        )
        .unwrap();
        assert_eq!(
            o.timeout_ms,
            Some(200),
            "later SET wins, request only fills gaps"
        );
        assert!(o.use_multistage_engine);
    }

    #[test]
    fn trace_flag_is_request_level() {
        let o = QueryOptions::resolve_with_trace(&[], None, true).unwrap();
        assert!(o.trace);
        let o = QueryOptions::resolve_with_trace(&sql(&[("trace", "false")]), None, true).unwrap();
        assert!(!o.trace);
    }

    #[test]
    fn request_string_errors() {
        assert_eq!(
            split_request_options("a=1;b").unwrap_err(),
            OptionsError::InvalidEntry("b".to_string())
        );
        assert_eq!(
            split_request_options("a=1=2").unwrap_err().to_string(),
            "Chunk [a=1=2] is not a valid entry"
        );
        assert_eq!(
            split_request_options("a=1;a=2").unwrap_err(),
            OptionsError::DuplicateKey("a".to_string())
        );
        assert_eq!(
            split_request_options(" a = 1 ;; b=").unwrap(),
            vec![
                ("a".to_string(), "1".to_string()),
                ("b".to_string(), String::new())
            ]
        );
    }

    #[test]
    fn bad_numbers_name_the_option() {
        let e = QueryOptions::resolve(&sql(&[("timeoutMs", "abc")]), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "timeoutMs must be a number between 1 and 2^63-1, got: abc"
        );
        let e = QueryOptions::resolve(&[], Some("numGroupsLimit=0")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "numGroupsLimit must be a number between 1 and 2^31-1, got: 0"
        );
        let e = QueryOptions::resolve(&sql(&[("groupTrimThreshold", "1.5")]), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "groupTrimThreshold must be an integer, got: 1.5"
        );
        assert!(
            QueryOptions::resolve(&sql(&[("maxExecutionThreads", "3000000000")]), None).is_err()
        );
        // `stageParallelism` is a positive count of workers per server.
        let o = QueryOptions::resolve(&sql(&[("stageParallelism", "3")]), None).unwrap();
        assert_eq!(o.stage_parallelism, Some(3));
        assert!(o.extra.is_empty());
        assert!(QueryOptions::resolve(&sql(&[("stageParallelism", "0")]), None).is_err());
    }

    #[test]
    fn skip_indexes_errors() {
        assert!(matches!(
            QueryOptions::resolve(&sql(&[("skipIndexes", "a")]), None),
            Err(OptionsError::InvalidSkipIndexes(_))
        ));
        assert_eq!(
            QueryOptions::resolve(&sql(&[("skipIndexes", "a=bogus")]), None),
            Err(OptionsError::UnknownIndexType("bogus".to_string()))
        );
    }

    #[test]
    fn set_overrides_and_canonicalises() {
        let mut o = QueryOptions::resolve(&sql(&[("useMultistageEngine", "false")]), None).unwrap();
        o.set("USEMULTISTAGEENGINE", "true").unwrap();
        assert!(o.use_multistage_engine);
        assert_eq!(canonical_key("ANDSCANREORDERING"), "AndScanReordering");
        assert_eq!(canonical_key("notAKey"), "notAKey");
    }

    #[test]
    fn serde_round_trip() {
        let o =
            QueryOptions::resolve(&sql(&[("skipIndexes", "a=range"), ("x", "y")]), None).unwrap();
        let json = serde_json::to_string(&o).unwrap();
        let back: QueryOptions = serde_json::from_str(&json).unwrap();
        assert_eq!(back, o);
    }

    #[test]
    fn join_overflow_mode_is_pinots_enum_name() {
        let o = QueryOptions::resolve(&sql(&[("joinOverflowMode", "BREAK")]), None).unwrap();
        assert_eq!(o.join_overflow_mode, Some(JoinOverflowMode::Break));
        let e = QueryOptions::resolve(&sql(&[("joinOverflowMode", "break")]), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "joinOverflowMode must be THROW or BREAK, got: break"
        );
    }
}
