//! [`ControllerClient`]: what brokers and servers ask of the controller — routing tables, the
//! table catalog, registration and heartbeats (a server's heartbeat answer is its
//! assignment), and segment archives. [`HttpControllerClient`] reaches a controller in another
//! process; the controller role implements the trait itself for the roles of its own process.

use super::error::{json_body, send_ok, status_error};
use super::minion_tasks::{TaskAssignment, TaskReport};
use super::{BoxFuture, TransportError};
use crate::metadata::records::{
    AssignedSegment, InstanceType, LoadedSegments, RoutingTable, SegmentReport,
};
use planner::plan::TableInfo;
use segments::types::{ErrorCode, Schema};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::sync::Arc;

/// Why a table could not be routed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoutingError {
    /// The controller does not know the table.
    #[error("table '{0}' does not exist")]
    TableMissing(String),
    /// This broker is not in the table's broker tenant.
    #[error("broker is not serving table '{0}'")]
    NotServed(String),
    /// The controller could not be asked.
    #[error("cannot fetch routing for '{table}' from the controller: {reason}")]
    Controller { table: String, reason: String },
}

impl RoutingError {
    /// Pinot's code for the failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            RoutingError::TableMissing(_) => ErrorCode::TableDoesNotExist,
            RoutingError::Controller { .. } | RoutingError::NotServed(_) => {
                ErrorCode::BrokerResourceMissing
            }
        }
    }

    /// The detail after Pinot's default message: none for a table this broker does not serve
    /// (Pinot answers its bare `NO_TABLE_RESULT`, `BrokerResourceMissingError`).
    pub fn detail(&self) -> String {
        match self {
            RoutingError::NotServed(_) => String::new(),
            other => other.to_string(),
        }
    }
}

/// A server's heartbeat (`POST /instances/{id}/heartbeat`): the segments it hosts and those it
/// is consuming; a broker's carries none.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heartbeat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_segments: Option<LoadedSegments>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consuming_segments: Option<LoadedSegments>,
}

impl Heartbeat {
    /// The report it carries (a server's), if any.
    pub fn report(self) -> Option<SegmentReport> {
        self.loaded_segments.map(|hosted| SegmentReport {
            hosted,
            consuming: self.consuming_segments.unwrap_or_default(),
        })
    }
}

/// The controller's answer to a heartbeat: the segments the instance must host.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Assignment {
    #[serde(default)]
    pub segments: Vec<AssignedSegment>,
}

/// A broker's or server's registration (`POST /instances`, Pinot's shape).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    pub host: String,
    pub port: u16,
    #[serde(rename = "type")]
    pub instance_type: InstanceType,
    #[serde(default)]
    pub instance_name: Option<String>,
    /// Tags for a new instance (`tessera start --tags`); default: Pinot's per role.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// A broker's or server's query port ([`super::query_port`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_port: Option<u16>,
}

/// A server's commit of a consuming segment it built (`POST /tessera/segmentCommit`, the
/// archive as the body): the messages before `end_offset` are in it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentCommit {
    pub table_name_with_type: String,
    pub segment_name: String,
    pub instance: String,
    pub end_offset: i64,
}

/// The controller's answer to a [`SegmentCommit`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum CommitOutcome {
    /// Stored; the archive's CRC is the segment's.
    Committed { crc: u32 },
    /// Not committed (another replica did, or the segment is gone): drop the built copy and
    /// load what the assignment says.
    Discard { reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A routing answer of 404 with a body, then one of 200, over one pooled connection: the
    /// error body must be read off the connection, or the second call reads it as its status
    /// line ("invalid HTTP version"). The body is large so that it is still on the socket when
    /// the first call returns (a short one did so only sometimes: it failed a CI run once).
    #[async_std::test]
    async fn an_error_answer_leaves_the_pooled_connection_clean() {
        let listener = crate::http::bind("127.0.0.1", 0).unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut app = tide::new();
        app.at("/tessera/routing/:table")
            .get(|req: tide::Request<()>| async move {
                let table = req.param("table")?.to_string();
                if table.ends_with("_REALTIME") {
                    let mut res = tide::Response::new(404);
                    res.set_body(format!(
                        "{{\"code\":404,\"error\":\"Table {table} not found, {}\"}}",
                        "x".repeat(200_000)
                    ));
                    return Ok(res);
                }
                let r = RoutingTable {
                    table_name_with_type: table,
                    ..RoutingTable::default()
                };
                Ok(tide::Response::from(serde_json::to_string(&r)?))
            });
        let task = crate::http::serve(app, listener);
        let client = HttpControllerClient::new(
            &format!("http://127.0.0.1:{port}"),
            crate::http::http_client(),
        );
        for _ in 0..5 {
            assert!(matches!(
                client.routing("t_REALTIME", "b").await,
                Err(RoutingError::TableMissing(_))
            ));
            let r = client.routing("t_OFFLINE", "b").await.unwrap();
            assert_eq!(r.table_name_with_type, "t_OFFLINE");
        }
        task.cancel().await;
    }

    /// Both answers travel as JSON between processes.
    #[test]
    fn commit_outcomes_round_trip_as_json() {
        for o in [
            CommitOutcome::Committed { crc: 7 },
            CommitOutcome::Discard {
                reason: "already committed".into(),
            },
        ] {
            let text = serde_json::to_string(&o).unwrap();
            assert_eq!(serde_json::from_str::<CommitOutcome>(&text).unwrap(), o);
        }
    }
}

/// What a server needs to consume a real-time table: its config and schema as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RealtimeSetup {
    pub table_config: Json,
    pub schema: Json,
}

/// The controller, as brokers and servers reach it.
pub trait ControllerClient: Send + Sync {
    /// The routing table of typed table `typed` for broker `broker`.
    fn routing<'a>(
        &'a self,
        typed: &'a str,
        broker: &'a str,
    ) -> BoxFuture<'a, Result<RoutingTable, RoutingError>>;

    /// Every table's raw name with its schema (what brokers plan with).
    fn catalog(&self) -> BoxFuture<'_, Result<Vec<TableInfo>, TransportError>>;

    /// Registers (or re-registers) an instance.
    fn register<'a>(&'a self, r: &'a Registration) -> BoxFuture<'a, Result<(), TransportError>>;

    /// One heartbeat of instance `id` (with what a server holds). `Ok(None)`: the controller
    /// does not know the instance (register again); otherwise the segments assigned to it
    /// (empty for brokers).
    fn heartbeat<'a>(
        &'a self,
        id: &'a str,
        report: Option<SegmentReport>,
    ) -> BoxFuture<'a, Result<Option<Vec<AssignedSegment>>, TransportError>>;

    /// The archive (tar.gz) of one segment from the deep store.
    fn download_segment<'a>(
        &'a self,
        typed: &'a str,
        segment: &'a str,
    ) -> BoxFuture<'a, Result<Vec<u8>, TransportError>>;

    /// Commits a consuming segment this server built (the archive's bytes).
    fn commit_segment<'a>(
        &'a self,
        commit: &'a SegmentCommit,
        archive: Vec<u8>,
    ) -> BoxFuture<'a, Result<CommitOutcome, TransportError>>;

    /// The config and schema of a real-time table (`None`: no such table).
    fn realtime_setup<'a>(
        &'a self,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<Option<RealtimeSetup>, TransportError>>;

    /// The next subtask for minion `minion` (`None`: nothing to do).
    fn next_task<'a>(
        &'a self,
        minion: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskAssignment>, TransportError>>;

    /// Reports a subtask done (with the archives it built) or failed.
    fn finish_task<'a>(
        &'a self,
        report: &'a TaskReport,
        archives: Arc<Vec<Vec<u8>>>,
    ) -> BoxFuture<'a, Result<(), TransportError>>;
}

/// A controller in another process.
#[derive(Clone)]
pub struct HttpControllerClient {
    base_url: String,
    client: surf::Client,
    /// For a minion's result: applying it waits for the new segments to load.
    patient: surf::Client,
}

/// How long a minion waits for the controller to apply its result.
const FINISH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);

impl HttpControllerClient {
    /// A client for the controller at `base_url`.
    pub fn new(base_url: &str, client: surf::Client) -> HttpControllerClient {
        HttpControllerClient {
            base_url: base_url.trim_end_matches('/').to_string(),
            patient: crate::http::client::patient(&client, FINISH_TIMEOUT),
            client,
        }
    }

    /// The controller's base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }
}

/// An answer that is a JSON value, or nothing when its status is `absent`.
async fn optional_json<T: serde::de::DeserializeOwned>(
    mut res: surf::Response,
    absent: u16,
    what: &str,
) -> Result<Option<T>, TransportError> {
    if res.status() == absent {
        // Read whole, so the pooled connection is clean for its next call.
        let _ = res.body_bytes().await;
        return Ok(None);
    }
    if !res.status().is_success() {
        return Err(status_error(&mut res).await);
    }
    res.body_json()
        .await
        .map(Some)
        .map_err(|e| TransportError::Unreadable(format!("{what}: {e}")))
}

fn unreachable(e: impl std::fmt::Display) -> TransportError {
    TransportError::Unreachable(e.to_string())
}

impl ControllerClient for HttpControllerClient {
    fn routing<'a>(
        &'a self,
        typed: &'a str,
        broker: &'a str,
    ) -> BoxFuture<'a, Result<RoutingTable, RoutingError>> {
        Box::pin(async move {
            let url = format!("{}/tessera/routing/{typed}?broker={broker}", self.base_url);
            let fail = |reason: String| RoutingError::Controller {
                table: typed.to_string(),
                reason,
            };
            let mut res = self
                .client
                .get(&url)
                .await
                .map_err(|e| fail(e.to_string()))?;
            let status = res.status() as u16;
            if !(200..300).contains(&status) {
                // Read the error body whole: left unread, it would stay on the pooled
                // connection and the next call on it would read it as its status line
                // ("invalid HTTP version").
                let _ = res.body_bytes().await;
                return Err(match status {
                    404 => RoutingError::TableMissing(typed.to_string()),
                    403 => RoutingError::NotServed(typed.to_string()),
                    s => fail(format!("HTTP {s}")),
                });
            }
            res.body_json().await.map_err(|e| fail(e.to_string()))
        })
    }

    fn catalog(&self) -> BoxFuture<'_, Result<Vec<TableInfo>, TransportError>> {
        Box::pin(async move {
            let url = format!("{}/tessera/catalog", self.base_url);
            let mut res = self.client.get(&url).await.map_err(unreachable)?;
            if !res.status().is_success() {
                return Err(status_error(&mut res).await);
            }
            let body: Json = res
                .body_json()
                .await
                .map_err(|e| TransportError::Unreadable(e.to_string()))?;
            let dims: Vec<&str> = body["dimTables"]
                .as_array()
                .map(|a| a.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            let mut tables = Vec::new();
            if let Some(map) = body["tables"].as_object() {
                for (name, schema) in map {
                    match Schema::from_json(&schema.to_string()) {
                        Ok(s) => tables.push(TableInfo {
                            dim_table: dims.contains(&name.as_str()),
                            statistics: serde_json::from_value(body["statistics"][name].clone())
                                .ok()
                                .map(Arc::new),
                            servers: body["servers"][name].as_u64().unwrap_or(0) as usize,
                            ..TableInfo::new(name.clone(), s)
                        }),
                        Err(e) => {
                            log::warn!(
                                "schema of table '{name}' from the controller is invalid: {e}"
                            )
                        }
                    }
                }
            }
            Ok(tables)
        })
    }

    fn register<'a>(&'a self, r: &'a Registration) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let url = format!("{}/instances", self.base_url);
            send_ok(self.client.post(url).body(json_body(r)?)).await
        })
    }

    fn heartbeat<'a>(
        &'a self,
        id: &'a str,
        report: Option<SegmentReport>,
    ) -> BoxFuture<'a, Result<Option<Vec<AssignedSegment>>, TransportError>> {
        Box::pin(async move {
            let (loaded_segments, consuming_segments) = match report {
                Some(r) => (Some(r.hosted), Some(r.consuming)),
                None => (None, None),
            };
            let body = json_body(&Heartbeat {
                loaded_segments,
                consuming_segments,
            })?;
            let mut res = self
                .client
                .post(format!("{}/instances/{id}/heartbeat", self.base_url))
                .body(body)
                .await
                .map_err(unreachable)?;
            if res.status() == 404 {
                // Read whole, so the pooled connection is clean for its next call.
                let _ = res.body_bytes().await;
                return Ok(None);
            }
            if !res.status().is_success() {
                return Err(status_error(&mut res).await);
            }
            let answer: Assignment = res
                .body_json()
                .await
                .map_err(|e| TransportError::Unreadable(format!("heartbeat answer: {e}")))?;
            Ok(Some(answer.segments))
        })
    }

    fn download_segment<'a>(
        &'a self,
        typed: &'a str,
        segment: &'a str,
    ) -> BoxFuture<'a, Result<Vec<u8>, TransportError>> {
        Box::pin(async move {
            let url = format!("{}/segments/{typed}/{segment}", self.base_url);
            let mut res = self.client.get(&url).await.map_err(unreachable)?;
            if !res.status().is_success() {
                return Err(status_error(&mut res).await);
            }
            res.body_bytes().await.map_err(unreachable)
        })
    }

    fn commit_segment<'a>(
        &'a self,
        commit: &'a SegmentCommit,
        archive: Vec<u8>,
    ) -> BoxFuture<'a, Result<CommitOutcome, TransportError>> {
        Box::pin(async move {
            let url = format!(
                "{}/tessera/segmentCommit?table={}&segment={}&instance={}&endOffset={}",
                self.base_url,
                commit.table_name_with_type,
                commit.segment_name,
                commit.instance,
                commit.end_offset
            );
            let mut res = self
                .client
                .post(url)
                .body(surf::Body::from_bytes(archive))
                .await
                .map_err(unreachable)?;
            if !res.status().is_success() {
                return Err(status_error(&mut res).await);
            }
            res.body_json()
                .await
                .map_err(|e| TransportError::Unreadable(format!("commit answer: {e}")))
        })
    }

    fn realtime_setup<'a>(
        &'a self,
        typed: &'a str,
    ) -> BoxFuture<'a, Result<Option<RealtimeSetup>, TransportError>> {
        Box::pin(async move {
            let url = format!("{}/tessera/realtime/{typed}", self.base_url);
            let res = self.client.get(&url).await.map_err(unreachable)?;
            optional_json(res, 404, "realtime setup").await
        })
    }

    fn next_task<'a>(
        &'a self,
        minion: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskAssignment>, TransportError>> {
        Box::pin(async move {
            let url = format!("{}/tessera/tasks/next?minion={minion}", self.base_url);
            let res = self.client.post(&url).await.map_err(unreachable)?;
            optional_json(res, 204, "task assignment").await
        })
    }

    fn finish_task<'a>(
        &'a self,
        report: &'a TaskReport,
        archives: Arc<Vec<Vec<u8>>>,
    ) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let report_json = serde_json::to_vec(report)
                .map_err(|e| TransportError::Unreadable(format!("task report: {e}")))?;
            let mut parts: Vec<(&str, Option<&str>, &[u8])> = vec![("report", None, &report_json)];
            parts.extend(
                archives
                    .iter()
                    .map(|a| ("segment", Some("segment.tar.gz"), a.as_slice())),
            );
            let (content_type, body) = crate::http::multipart::encode_parts(&parts);
            let url = format!("{}/tessera/tasks/finish", self.base_url);
            let mut res = self
                .patient
                .post(&url)
                .body(surf::Body::from_bytes(body))
                .content_type(content_type.as_str())
                .await
                .map_err(unreachable)?;
            if !res.status().is_success() {
                return Err(status_error(&mut res).await);
            }
            let _ = res.body_bytes().await;
            Ok(())
        })
    }
}
