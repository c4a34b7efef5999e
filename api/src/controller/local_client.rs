//! The controller as a [`ControllerClient`] for the brokers and servers of its own process:
//! the same functions the HTTP endpoints call, with typed values and no serialization.

use super::Controller;
use super::archive_store::read_archive;
use super::instances::{heartbeat, register, routing_for_broker};
use super::segments::find_segment;
use super::tables::catalog_entries;
use crate::http::ApiError;
use crate::metadata::records::{AssignedSegment, RoutingTable, SegmentReport};
use crate::transport::minion_tasks::{TaskAssignment, TaskReport};
use crate::transport::{
    BoxFuture, CommitOutcome, ControllerClient, RealtimeSetup, Registration, RoutingError,
    SegmentCommit, TransportError,
};
use planner::plan::TableInfo;
use segments::types::Schema;
use std::sync::Arc;

impl ControllerClient for Controller {
    fn routing<'a>(
        &'a self,
        typed: &'a str,
        broker: &'a str,
    ) -> BoxFuture<'a, Result<RoutingTable, RoutingError>> {
        Box::pin(async move {
            routing_for_broker(self, typed, Some(broker)).map_err(|e| match e.status {
                404 => RoutingError::TableMissing(typed.to_string()),
                403 => RoutingError::NotServed(typed.to_string()),
                _ => RoutingError::Controller {
                    table: typed.to_string(),
                    reason: e.message,
                },
            })
        })
    }

    fn catalog(&self) -> BoxFuture<'_, Result<Vec<TableInfo>, TransportError>> {
        Box::pin(async move {
            let mut tables = Vec::new();
            for entry in catalog_entries(self)? {
                match Schema::from_json(&entry.schema.to_string()) {
                    Ok(s) => tables.push(TableInfo {
                        dim_table: entry.dim_table,
                        statistics: entry.statistics.map(Arc::new),
                        servers: entry.servers,
                        ..TableInfo::new(entry.name, s)
                    }),
                    Err(e) => log::warn!("stored schema of table '{}' is invalid: {e}", entry.name),
                }
            }
            Ok(tables)
        })
    }

    fn register<'a>(&'a self, r: &'a Registration) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move { Ok(register(self, r).await.map(|_| ())?) })
    }

    fn heartbeat<'a>(
        &'a self,
        id: &'a str,
        report: Option<SegmentReport>,
    ) -> BoxFuture<'a, Result<Option<Vec<AssignedSegment>>, TransportError>> {
        Box::pin(async move { Ok(heartbeat(self, id, report).await?) })
    }

    fn download_segment<'a>(
        &'a self,
        typed: &'a str,
        segment: &'a str,
    ) -> BoxFuture<'a, Result<Vec<u8>, TransportError>> {
        Box::pin(async move {
            let record = find_segment(self, typed, segment)?;
            Ok(read_archive(self, record).await.map_err(ApiError::from)?.1)
        })
    }

    fn commit_segment<'a>(
        &'a self,
        commit: &'a SegmentCommit,
        archive: Vec<u8>,
    ) -> BoxFuture<'a, Result<CommitOutcome, TransportError>> {
        Box::pin(async move {
            let outcome = super::realtime::commit(self, commit, archive).await;
            // No request middleware here: publish the change as an HTTP commit would.
            super::changes::publish(self).await;
            Ok(outcome?)
        })
    }

    fn realtime_setup<'a>(
        &'a self,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<Option<RealtimeSetup>, TransportError>> {
        Box::pin(async move { Ok(super::realtime::setup(self, typed)?) })
    }

    fn next_task<'a>(
        &'a self,
        minion: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskAssignment>, TransportError>> {
        Box::pin(async move { Ok(super::minion_tasks::next(self, minion).await?) })
    }

    fn finish_task<'a>(
        &'a self,
        report: &'a TaskReport,
        archives: Arc<Vec<Vec<u8>>>,
    ) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let done = super::minion_tasks::finish(self, report, archives).await;
            // No request middleware here: publish the change as an HTTP call would.
            super::changes::publish(self).await;
            done.map_err(|e| TransportError::from(crate::http::ApiError::from(e)))
        })
    }
}
