//! The time boundary of a hybrid table (an OFFLINE and a REALTIME table of one name), as
//! Pinot's broker computes it: the largest end time of the offline segments less one day (one
//! hour for an `HOURLY` push frequency when the time column's unit is not days), in the time
//! column's own unit. The broker asks the offline table for `time <= boundary` and the
//! real-time table for `time > boundary`, so a row in both answers once.

use super::Controller;
use crate::http::ApiError;
use crate::metadata::records::TimeBoundary;
use crate::metadata::table_name::{self, TableType};
use segments::types::table_config::TableConfig;
use segments::types::time::epoch_unit_millis;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// The time boundary of the hybrid table whose offline part is `offline_typed`; None when the
/// table is not hybrid, has no time column with an epoch format, or no offline segment with an
/// end time.
pub fn time_boundary(
    c: &Controller,
    offline_typed: &str,
) -> Result<Option<TimeBoundary>, ApiError> {
    let raw = table_name::split(offline_typed).0;
    if table_name::split(offline_typed).1 != Some(TableType::Offline)
        || c.table_config(&table_name::with_type(raw, TableType::Realtime))?
            .is_none()
    {
        return Ok(None);
    }
    let Some(config) = c
        .table_config(offline_typed)?
        .and_then(|j| TableConfig::from_value(j).ok())
    else {
        return Ok(None);
    };
    let Some(column) = config.time_column().map(str::to_string) else {
        return Ok(None);
    };
    let Some(unit_ms) = c
        .schema(raw)?
        .and_then(|s| s.field(&column).and_then(|f| f.format.clone()))
        .and_then(|f| epoch_unit_millis(&f))
    else {
        return Ok(None);
    };
    let Some(max_end_ms) = super::lineage::visible_segments(c, offline_typed)?
        .iter()
        .filter_map(|s| s.end_time_ms)
        .max()
    else {
        return Ok(None);
    };
    let hourly = config
        .batch_ingestion_frequency()
        .is_some_and(|f| f.eq_ignore_ascii_case("HOURLY"))
        && unit_ms != DAY_MS;
    let boundary_ms = max_end_ms - if hourly { HOUR_MS } else { DAY_MS };
    Ok(Some(TimeBoundary {
        column,
        value: boundary_ms.div_euclid(unit_ms),
    }))
}
