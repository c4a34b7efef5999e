//! `segmentsConfig` (`SegmentsValidationAndRetentionConfig.java`): time column, retention,
//! replication and push settings. Numeric-looking values are strings in Pinot's JSON
//! (`"replication": "1"`), and stay strings here so they are written back unchanged.

use super::coerce;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;
use std::fmt;

/// `java.util.concurrent.TimeUnit`, as used by `timeType` and `retentionTimeUnit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    Nanoseconds,
    Microseconds,
    Milliseconds,
    Seconds,
    Minutes,
    Hours,
    Days,
}

impl TimeUnit {
    const ALL: [TimeUnit; 7] = [
        TimeUnit::Nanoseconds,
        TimeUnit::Microseconds,
        TimeUnit::Milliseconds,
        TimeUnit::Seconds,
        TimeUnit::Minutes,
        TimeUnit::Hours,
        TimeUnit::Days,
    ];

    /// The Java constant name (`"DAYS"`).
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Nanoseconds => "NANOSECONDS",
            TimeUnit::Microseconds => "MICROSECONDS",
            TimeUnit::Milliseconds => "MILLISECONDS",
            TimeUnit::Seconds => "SECONDS",
            TimeUnit::Minutes => "MINUTES",
            TimeUnit::Hours => "HOURS",
            TimeUnit::Days => "DAYS",
        }
    }

    /// Parses a unit name case-insensitively, also accepting the legacy `daysSinceEpoch`
    /// family (`TimeUtils#timeUnitFromString`).
    pub fn parse(text: &str) -> Option<TimeUnit> {
        let upper = text.trim().to_ascii_uppercase();
        let name = match upper.as_str() {
            "DAYSSINCEEPOCH" => "DAYS",
            "HOURSSINCEEPOCH" => "HOURS",
            "MINUTESSINCEEPOCH" => "MINUTES",
            "SECONDSSINCEEPOCH" => "SECONDS",
            other => other,
        };
        TimeUnit::ALL.into_iter().find(|u| u.name() == name)
    }

    /// Milliseconds in one unit (0 for sub-millisecond units).
    pub fn millis(self) -> i64 {
        match self {
            TimeUnit::Nanoseconds | TimeUnit::Microseconds => 0,
            TimeUnit::Milliseconds => 1,
            TimeUnit::Seconds => 1_000,
            TimeUnit::Minutes => 60_000,
            TimeUnit::Hours => 3_600_000,
            TimeUnit::Days => 86_400_000,
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for TimeUnit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// `timeType`: empty or null means unset; anything else must name a unit.
fn opt_time_unit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TimeUnit>, D::Error> {
    match coerce::opt_string(d)? {
        None => Ok(None),
        Some(s) if s.is_empty() => Ok(None),
        Some(s) => TimeUnit::parse(&s).map(Some).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "No enum constant java.util.concurrent.TimeUnit.{}",
                s.to_uppercase()
            ))
        }),
    }
}

/// `segmentsConfig`. Fields are declared in the order Pinot writes them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentsConfig {
    /// Deprecated in Pinot (use `segmentAssignmentConfigMap`), still accepted and echoed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_assignment_strategy: Option<String>,
    /// The time column; required for REALTIME tables.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub time_column_name: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "opt_time_unit"
    )]
    pub time_type: Option<TimeUnit>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub retention_time_unit: Option<String>,
    /// A number held in a string (`"5"`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub retention_time_value: Option<String>,
    /// A period string (`"7d"`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub deleted_segments_retention_period: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub untracked_segments_retention_time_unit: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub untracked_segments_retention_time_value: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_push_frequency: Option<String>,
    /// `APPEND` or `REFRESH` (legacy location; `ingestionConfig.batchIngestionConfig` wins).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub segment_push_type: Option<String>,
    /// A number held in a string (`"1"`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub replication: Option<String>,
    /// REALTIME replication (legacy), a number held in a string.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub replicas_per_partition: Option<String>,
    /// Deprecated: the schema name must equal the raw table name.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub schema_name: Option<String>,
    /// Opaque (`{"partitionColumn", "numInstancesPerPartition"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_group_strategy_config: Option<Json>,
    /// Opaque (`{"completionMode": "DOWNLOAD"}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_config: Option<Json>,
    /// `http` or `https`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub peer_segment_download_scheme: Option<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_bool"
    )]
    pub threshold_for_num_of_col_values_enabled: Option<bool>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "coerce::opt_string"
    )]
    pub crypter_class_name: Option<String>,
    /// Always written (a Java primitive).
    #[serde(default, deserialize_with = "coerce::bool_or_false")]
    pub minimize_data_movement: bool,
}

impl SegmentsConfig {
    /// The retention period in milliseconds, when both unit and value are set and valid.
    pub fn retention_millis(&self) -> Option<i64> {
        let unit = TimeUnit::parse(self.retention_time_unit.as_deref()?)?;
        let value: i64 = self.retention_time_value.as_deref()?.trim().parse().ok()?;
        value.checked_mul(unit.millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_stay_strings_and_primitives_are_written() {
        let c: SegmentsConfig = serde_json::from_value(json!({
            "timeColumnName": "DaysSinceEpoch", "timeType": "days", "replication": 1,
            "retentionTimeUnit": "DAYS", "retentionTimeValue": "5"
        }))
        .unwrap();
        assert_eq!(c.time_type, Some(TimeUnit::Days));
        assert_eq!(c.replication.as_deref(), Some("1"));
        assert_eq!(c.retention_millis(), Some(5 * 86_400_000));
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"timeColumnName": "DaysSinceEpoch", "timeType": "DAYS", "retentionTimeUnit": "DAYS",
                   "retentionTimeValue": "5", "replication": "1", "minimizeDataMovement": false})
        );
    }

    #[test]
    fn time_type_rules() {
        assert_eq!(TimeUnit::parse("daysSinceEpoch"), Some(TimeUnit::Days));
        let empty: SegmentsConfig = serde_json::from_value(json!({"timeType": ""})).unwrap();
        assert_eq!(empty.time_type, None);
        let err = serde_json::from_value::<SegmentsConfig>(json!({"timeType": "weeks"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("TimeUnit.WEEKS"), "{err}");
    }
}
