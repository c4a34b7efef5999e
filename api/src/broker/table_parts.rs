//! Which typed tables a query of a raw table name reads: its OFFLINE or REALTIME table, or — a
//! hybrid table — both, each with the time bound of its half. Both engines route from it (the
//! single-stage scatter in [`super::query`], multi-stage leaves in [`super::multistage`]).

use super::Broker;
use super::routing_cache;
use crate::metadata::records::RoutingTable;
use crate::metadata::table_name::{TableType, with_type};
use crate::transport::{RoutingError, TimeBound};
use engine::TableProvider;
use engine::response::QueryException;
use planner::plan::ColumnType;
use segments::types::ErrorCode;

/// The typed tables a query of table `raw` reads, each with the time bound of its half of a
/// hybrid table: the OFFLINE or the REALTIME table alone, or — for a hybrid table — both, split
/// at the time boundary (offline `time <= boundary`, real-time `time > boundary`; with no
/// boundary yet, as Pinot, the real-time table alone). Used by both engines.
pub async fn table_parts(
    broker: &Broker,
    raw: &str,
) -> Result<Vec<(String, Option<TimeBound>)>, QueryException> {
    let mut found = typed_tables(broker, raw, true).await?;
    if found.is_empty() {
        // Neither half known (as cached): a table created since is found by asking again.
        found = typed_tables(broker, raw, false).await?;
    }
    match found.as_slice() {
        [] => Err(QueryException {
            error_code: ErrorCode::TableDoesNotExist.code(),
            message: ErrorCode::TableDoesNotExist.message(&format!("Unknown table '{raw}'")),
        }),
        [(typed, _)] => Ok(vec![(typed.clone(), None)]),
        [(offline, offline_routing), (realtime, _)] => {
            let boundary = offline_routing
                .time_boundary
                .as_ref()
                .and_then(|b| Some((b, time_column_type(broker, raw, &b.column)?)));
            Ok(match boundary {
                Some((b, column_type)) => vec![
                    (offline.clone(), Some(TimeBound::new(b, column_type, true))),
                    (
                        realtime.clone(),
                        Some(TimeBound::new(b, column_type, false)),
                    ),
                ],
                None => vec![(realtime.clone(), None)],
            })
        }
        _ => unreachable!("at most two table types"),
    }
}

/// The typed tables of `raw` that exist, with their routing.
pub(super) async fn typed_tables(
    broker: &Broker,
    raw: &str,
    allow_cached: bool,
) -> Result<Vec<(String, std::sync::Arc<RoutingTable>)>, QueryException> {
    let mut found = Vec::new();
    for t in [TableType::Offline, TableType::Realtime] {
        let typed = with_type(raw, t);
        match routing_cache::routing(broker, &typed, allow_cached).await {
            Ok((routing, _)) => found.push((typed, routing)),
            Err(RoutingError::TableMissing(_)) => {}
            Err(e) => {
                return Err(QueryException {
                    error_code: e.code().code(),
                    message: e.code().message(&e.detail()),
                });
            }
        }
    }
    Ok(found)
}

/// The type of a hybrid table's time column, from the broker's catalog.
fn time_column_type(broker: &Broker, raw: &str, column: &str) -> Option<ColumnType> {
    let schema = broker.catalog.schema(raw)?;
    let f = schema.field(column)?;
    Some(f.column_type())
}
