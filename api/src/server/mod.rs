//! The server role: hosts the segments the controller assigns to it (downloaded from the
//! controller's deep store, kept under the data dir, reopened after a restart) and answers the
//! broker's per-segment query requests.
//!
//! * [`hosting`] — the local segment directory and the set of loaded segments.
//! * [`sync`] — registration, heartbeats and applying the assignment.
//! * [`consuming`] — real-time segments being consumed: [`consumer`] reads the stream into a
//!   [`row_buffer`] (rows decoded by [`stream_rows`]) that queries read as a snapshot of
//!   immutable chunks, then builds and commits the segment; [`upsert`] keeps an upsert table's
//!   latest row per primary key the only one queries see.
//! * [`stages`] — the workers of multi-stage queries assigned to this server.
//!
//! [`LocalServer`] is the server as a [`ServerClient`]: a broker in the same process calls it
//! directly.

pub mod consumer;
pub mod consuming;
pub mod hosting;
pub mod row_buffer;
pub mod stages;
pub mod stream_rows;
pub mod sync;
pub mod upsert;
pub mod upsert_snapshot;
pub mod worker_pool;

use crate::common::loggers::{self, LoggerState};
use crate::http::body::{parse_json, read_bounded, read_text};
use crate::http::metrics::{self, Metrics};
use crate::http::routes::Routes;
use crate::http::{ErrorStyle, new_app};
use crate::http::{catching, on_rayon};
use crate::logging::LoggingHandle;
use crate::transport::consumer_info::{SegmentConsumerInfo, ServerOffsetInfo};
use crate::transport::stages::{MailboxState, mailbox_routes};
use crate::transport::wire;
use crate::transport::{
    BoxFuture, ControllerClient, Mailboxes, ServerClient, ServerQuery, StageRequest, TransportError,
};
use engine::QueryContext;
use engine::response::QueryException;
use engine::server::execute_server;
use engine::server::result::ServerResult;
use hosting::Hosted;
use segments::types::ErrorCode;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tide::{Body, Request};

/// Server settings.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// `Server_<host>_<port>`.
    pub instance_id: String,
    /// Host and port the server registers under.
    pub host: String,
    pub port: u16,
    /// Where hosted segments live (`<data dir>/server/<instance id>`).
    pub segment_dir: PathBuf,
    /// Time between heartbeats.
    pub heartbeat_interval: Duration,
    /// Tags to register with when new (default: `DefaultTenant_OFFLINE`/`_REALTIME`).
    pub tags: Option<Vec<String>>,
    /// The bound query port of this process ([`crate::transport::query_port`]), announced when
    /// registering.
    pub query_port: Option<u16>,
    /// Clients of object storage: segments whose download URI is an object are read there.
    pub cloud: Arc<crate::cloud::ObjectStores>,
}

impl ServerConfig {
    /// What the server registers with the controller as.
    pub fn registration(&self) -> crate::transport::Registration {
        crate::transport::Registration {
            host: self.host.clone(),
            port: self.port,
            instance_type: crate::metadata::records::InstanceType::Server,
            instance_name: Some(self.instance_id.clone()),
            tags: self.tags.clone(),
            query_port: self.query_port,
        }
    }
}

/// The server's state.
pub struct Server {
    pub config: ServerConfig,
    pub hosted: Hosted,
    /// Real-time segments being consumed here.
    pub consuming: consuming::ConsumingSegments,
    /// Upsert tables' keys and the docs queries see.
    pub upsert: upsert::UpsertTables,
    /// The controller: registration, heartbeats, segment downloads.
    pub controller: Arc<dyn ControllerClient>,
    /// Held while a heartbeat's assignment is applied, so a pushed change and the heartbeat
    /// loop never apply at once.
    pub sync_lock: async_std::sync::Mutex<()>,
    /// The process's mailboxes for multi-stage queries.
    pub mailboxes: Arc<Mailboxes>,
    /// Multi-stage workers running here.
    pub stages: stages::RunningStages,
    /// The threads those workers run on.
    pub workers: worker_pool::WorkerPool,
    pub logging: LoggingHandle,
    pub metrics: Arc<Metrics>,
    /// The dimension tables hosted here, as `lookUp` reads them (registered for this
    /// process while the server lives).
    pub dimensions: Arc<dyn planner::functions::DimensionTables>,
}

/// The tide state of the server app.
pub type ServerState = Arc<Server>;

impl Server {
    /// A server over its segment directory (segments found there are reopened).
    pub fn new(
        config: ServerConfig,
        controller: Arc<dyn ControllerClient>,
        mailboxes: Arc<Mailboxes>,
        logging: LoggingHandle,
    ) -> Result<Server, hosting::HostingError> {
        let hosted = Hosted::open(&config.segment_dir)?;
        let dimensions: Arc<dyn planner::functions::DimensionTables> =
            Arc::new(engine::dimension::SegmentDimensions::new(hosted.view()));
        planner::functions::register_dimensions(&dimensions);
        Ok(Server {
            config,
            hosted,
            consuming: consuming::ConsumingSegments::default(),
            upsert: upsert::UpsertTables::default(),
            controller,
            sync_lock: async_std::sync::Mutex::new(()),
            mailboxes,
            stages: stages::RunningStages::default(),
            workers: worker_pool::WorkerPool::new("stage-worker", worker_pool::KEEP_ALIVE),
            logging,
            metrics: Arc::new(Metrics::new("server")),
            dimensions,
        })
    }
}

impl Server {
    /// Table → segments this server answers for: hosted ones and consuming ones.
    pub fn loaded(&self) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut all = self.hosted.loaded();
        for (table, segs) in self.consuming.loaded() {
            let names = all.entry(table).or_default();
            for s in segs {
                if !names.contains(&s) {
                    names.push(s);
                }
            }
        }
        all
    }

    /// The segments a query reads for one routed segment: its hosted copy, or a consuming
    /// segment's snapshot (several chunks, or none yet). `Err` says why not, with the CRC of
    /// another hosted copy if that is the reason.
    pub fn resolve(
        &self,
        table: &str,
        segment: &str,
        crc: Option<u32>,
        incarnation: Option<u64>,
    ) -> Result<Vec<Arc<segments::ImmutableSegment>>, Option<u32>> {
        let hosted = self.hosted.get(table, segment);
        match &hosted {
            Some(h) if h.answers_for(crc, incarnation) => return Ok(vec![h.segment.clone()]),
            _ => {}
        }
        match self.consuming.get(table, segment) {
            Some(c) if c.answers_for(incarnation) => Ok(c.snapshot()),
            _ => Err(hosted.map(|h| h.crc)),
        }
    }

    /// The segments a query reads for the routed segments `resolved` found, and — under an
    /// upsert table's consistency mode (`SYNC`, `SNAPSHOT`) — the docs they show, from one view
    /// of the table ([`upsert::UpsertTable::view`]): a segment's parts are then the view's, and
    /// a segment the view does not hold yet (a copy still being scanned) shows no docs. `None`
    /// without a consistency mode: each part shows its current docs as the query reaches it.
    pub fn query_segments(
        &self,
        table: &str,
        options: &planner::plan::UpsertView,
        resolved: Vec<(&str, Vec<Arc<segments::ImmutableSegment>>)>,
    ) -> (
        Vec<Arc<segments::ImmutableSegment>>,
        Option<Arc<engine::docs_view::DocsView>>,
    ) {
        let Some(view) = self.upsert.get(table).and_then(|u| u.view(options)) else {
            return (
                resolved.into_iter().flat_map(|(_, parts)| parts).collect(),
                None,
            );
        };
        let mut docs = engine::docs_view::DocsView::default();
        let mut segments = Vec::new();
        for (name, parts) in resolved {
            match view.get(name) {
                Some(seen) => {
                    for (segment, shown) in seen {
                        docs.insert(segment, shown.clone());
                        segments.push(segment.clone());
                    }
                }
                None => {
                    for segment in parts {
                        docs.insert(&segment, Some(Arc::default()));
                        segments.push(segment);
                    }
                }
            }
        }
        (segments, Some(Arc::new(docs)))
    }
}

impl LoggerState for ServerState {
    fn logging(&self) -> &LoggingHandle {
        &self.logging
    }
}

/// The server's tide app.
pub fn app(state: ServerState) -> tide::Server<ServerState> {
    let mut app = new_app(state, ErrorStyle::MessageStatus);
    let m = app.state().metrics.clone();
    let mut r = Routes::new(&mut app);
    r.group("Health")
        .get("/health", "OK when the server is up", |_| async {
            Ok("OK")
        });
    r.group("Table")
        .get("/tables", "Tables with segments on this server", tables)
        .get(
            "/tables/:table/consumingSegmentsInfo",
            "The consumers of a real-time table's consuming segments here: offsets, lag, last consumed time",
            consuming_info,
        )
        .get(
            "/tessera/segments/:table",
            "The segments of a table this server hosts, with their rows and CRCs",
            hosted_segments,
        );
    r.group("Internal")
        .post(
            "/tessera/query",
            "Runs a broker's server-side plan over local segments",
            query,
        )
        .post(
            "/tessera/changed",
            "The controller's notice of a metadata change",
            changed,
        )
        .post(
            "/tessera/stage",
            "Starts workers of a multi-stage query's stage",
            submit_stage,
        )
        .post(
            "/tessera/cancel",
            "Cancels a multi-stage query's workers",
            cancel_query,
        );
    mailbox_routes(&mut r);
    loggers::routes(&mut r);
    metrics::mount(&mut r, m, |s: &ServerState| {
        let loaded: usize = s.loaded().values().map(Vec::len).sum();
        let received = s
            .stages
            .rows_received
            .load(std::sync::atomic::Ordering::Relaxed);
        vec![
            (
                "tessera_segments_loaded",
                "Segments loaded on this server.",
                loaded as f64,
            ),
            (
                "tessera_stage_rows_received",
                "Rows the multi-stage workers of this server received from other stages.",
                received as f64,
            ),
            (
                "tessera_decoded_dictionary_bytes",
                "Bytes of large text dictionaries this process keeps decompressed.",
                segments::dictionary::decoded::used() as f64,
            ),
        ]
    });
    r.document("Tessera server API");
    app
}

/// `GET /tables` on a server: the tables it hosts segments of.
#[derive(Serialize)]
struct HostedTables {
    tables: Vec<String>,
}

/// `GET /tessera/segments/{table}`: hosted segment name → what the server has of it.
#[derive(Serialize)]
struct HostedSegments {
    segments: std::collections::BTreeMap<String, HostedSegment>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HostedSegment {
    total_docs: u64,
    crc: u32,
    reload_version: u64,
}

/// `GET /tables/{table}/consumingSegmentsInfo`: Pinot's list of `SegmentConsumerInfo`.
async fn consuming_info(req: Request<ServerState>) -> tide::Result {
    let table = crate::http::body::path_param(&req, "table")?;
    let now = crate::common::clock::now_ms();
    let infos: Vec<SegmentConsumerInfo> = req
        .state()
        .consuming
        .of_table(&table)
        .iter()
        .map(|c| {
            let p = c.progress();
            let key = c.partition.to_string();
            let one = |v: String| std::collections::BTreeMap::from([(key.clone(), v)]);
            let current = p.current_offset.to_string();
            let latest = p.high_watermark.unwrap_or(p.current_offset);
            SegmentConsumerInfo {
                segment_name: c.segment.clone(),
                consumer_state: match p.phase {
                    consuming::Phase::Consuming => "CONSUMING",
                    _ => "NOT_CONSUMING",
                }
                .into(),
                last_consumed_timestamp: p.last_consumed_ms.unwrap_or(0),
                partition_to_offset_map: one(current.clone()),
                partition_offset_info: ServerOffsetInfo {
                    current_offsets: one(current),
                    latest_upstream_offsets: one(latest.to_string()),
                    records_lag: one((latest - p.current_offset).max(0).to_string()),
                    availability_lag_ms: one(p
                        .last_consumed_ms
                        .filter(|_| latest > p.current_offset)
                        .map_or(0, |t| now - t)
                        .to_string()),
                },
            }
        })
        .collect();
    Ok(Body::from_json(&infos)?.into())
}

async fn tables(req: Request<ServerState>) -> tide::Result {
    let names: Vec<String> = req.state().hosted.loaded().into_keys().collect();
    Ok(Body::from_json(&HostedTables { tables: names })?.into())
}

/// `GET /tessera/segments/{table}`: the hosted segments of a table with their row counts.
async fn hosted_segments(req: Request<ServerState>) -> tide::Result {
    let table = crate::http::body::path_param(&req, "table")?;
    let segments = req
        .state()
        .hosted
        .segments_of(&table)
        .into_iter()
        .map(|(name, h)| {
            let view = HostedSegment {
                total_docs: h.total_docs,
                crc: h.crc,
                reload_version: h.reload_version,
            };
            (name, view)
        })
        .collect();
    Ok(Body::from_json(&HostedSegments { segments })?.into())
}

/// `POST /tessera/changed`: the controller pushed a metadata change; the assignment is
/// fetched and applied in the background (the controller does not wait for downloads), then
/// what is loaded is reported at once — the controller routes a new segment only once a
/// server reports it, and tells the brokers then.
async fn changed(req: Request<ServerState>) -> tide::Result {
    let server = req.state().clone();
    async_std::task::spawn(async move {
        let mut rounds = 0;
        while rounds < 3
            && sync::sync_once(&server).await == (sync::Synced::Applied { changed: true })
        {
            rounds += 1;
        }
    });
    Ok("OK".into())
}

/// `POST /tessera/stage`: start this server's workers of one stage.
async fn submit_stage(mut req: Request<ServerState>) -> tide::Result {
    let text = read_text(&mut req, 64 << 20).await?;
    let r: StageRequest = parse_json(&text, "Invalid stage request: ")?;
    stages::submit(req.state(), r)?;
    Ok("OK".into())
}

/// `POST /tessera/cancel?query=N`: stop every worker of a multi-stage query.
async fn cancel_query(req: Request<ServerState>) -> tide::Result {
    let id = crate::http::body::query_param(&req, "query")
        .and_then(|q| q.parse().ok())
        .ok_or_else(|| crate::http::ApiError::bad_request("missing or bad 'query'"))?;
    stages::cancel(req.state(), id);
    Ok("OK".into())
}

/// `POST /tessera/query`: [`run_query`] on the request body, in MessagePack or JSON (its
/// `Content-Type`), answered in MessagePack when the request accepts it, else JSON.
async fn query(mut req: Request<ServerState>) -> tide::Result {
    let media_type = req.content_type();
    let binary_out = wire::is_msgpack(req.header("Accept").map(|h| h.as_str()));
    let bytes = read_bounded(&mut req, 64 << 20).await?;
    let q: ServerQuery = wire::decode_as(&bytes, media_type.as_ref().map(|m| m.essence()))
        .map_err(|e| crate::http::ApiError::bad_request(format!("Invalid server query: {e}")))?;
    let result = run_query(req.state(), q).await?;
    if binary_out {
        let mut body = Body::from_bytes(wire::encode(&result)?);
        body.set_mime(wire::MSGPACK);
        Ok(body.into())
    } else {
        Ok(Body::from_json(&result)?.into())
    }
}

/// How long a query may run on the task that received it before it moves to rayon
/// ([`engine::QueryContext::inline`]): a point query takes a few microseconds, a scan block
/// of 10k documents tens.
const INLINE_BUDGET: Duration = Duration::from_micros(50);

/// Runs a broker's server plan over the named hosted segments (inline within a budget, else on
/// rayon) and answers the engine's [`ServerResult`] (with `trace` for traced queries). Segments
/// not hosted here are reported as `ServerSegmentMissing` (235) exceptions. Called by the HTTP
/// endpoint, the query port, and directly, without serialization, by a broker in the same
/// process (as its [`ServerClient`]).
pub async fn run_query(
    server: &Server,
    q: ServerQuery,
) -> Result<ServerResult, crate::http::ApiError> {
    let mut resolved = Vec::with_capacity(q.segments.len());
    let mut missing = Vec::new();
    let checked = q.segment_crcs.len() == q.segments.len();
    let incarnations = q.segment_incarnations.len() == q.segments.len();
    for (i, s) in q.segments.iter().enumerate() {
        let expected = checked.then(|| q.segment_crcs[i]);
        let incarnation = incarnations.then(|| q.segment_incarnations[i]);
        match server.resolve(&q.table_name_with_type, s, expected, incarnation) {
            Ok(found) => resolved.push((s.as_str(), found)),
            Err(other) => {
                let why = match (other, expected) {
                    (Some(other), Some(crc)) => format!(
                        "segment '{s}' of table '{}' on {} is another copy (crc {other}, expected {crc})",
                        q.table_name_with_type, server.config.instance_id
                    ),
                    _ => format!(
                        "segment '{s}' of table '{}' is not hosted on {}",
                        q.table_name_with_type, server.config.instance_id
                    ),
                };
                missing.push(QueryException {
                    error_code: ErrorCode::ServerSegmentMissing.code(),
                    message: ErrorCode::ServerSegmentMissing.message(&why),
                })
            }
        }
    }
    let plan = q.plan;
    let (segments, docs) =
        server.query_segments(&q.table_name_with_type, &plan.options.upsert_view, resolved);
    let mut ctx = QueryContext::new(plan.options.clone()).with_docs(docs);
    if q.trace {
        ctx = ctx.with_trace();
    }
    let failed = |e| crate::http::ApiError::internal(format!("query execution failed: {e}"));
    // First here, within a budget (point and index-answered queries finish inside it), unless
    // the broker learned that this plan does not; past it, the attempt is dropped, the broker
    // told, and the query runs on rayon.
    let mut over_budget = false;
    if q.inline {
        let attempt = ctx.inline(INLINE_BUDGET);
        let inline = catching(|| execute_server(&plan, &segments, &attempt));
        if !attempt.over_budget() {
            let mut result = inline.map_err(failed)?;
            result.trace = attempt.trace.map(|t| t.take());
            return Ok(finish(server, result, missing));
        }
        over_budget = true;
        ctx = attempt.unbounded();
    }
    let mut result = on_rayon(move || {
        let mut result = execute_server(&plan, &segments, &ctx);
        result.trace = ctx.trace.map(|t| t.take());
        result
    })
    .await
    .map_err(failed)?;
    result.over_budget = over_budget;
    Ok(finish(server, result, missing))
}

/// A server's answer with the exceptions of the segments it does not host, counted in its
/// metrics.
fn finish(server: &Server, mut result: ServerResult, missing: Vec<QueryException>) -> ServerResult {
    result.exceptions.extend(missing);
    server
        .metrics
        .add_docs_scanned(result.stats.num_docs_scanned);
    result
}

impl MailboxState for ServerState {
    fn mailboxes(&self) -> &Arc<Mailboxes> {
        &self.mailboxes
    }
}

/// The server of this process as its broker's [`ServerClient`].
pub struct LocalServer(pub ServerState);

impl ServerClient for LocalServer {
    fn query(&self, q: ServerQuery) -> BoxFuture<'_, Result<ServerResult, TransportError>> {
        Box::pin(async move { Ok(run_query(&self.0, q).await?) })
    }

    fn submit_stage(&self, r: StageRequest) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move { Ok(stages::submit(&self.0, r)?) })
    }

    fn cancel_query(&self, query_id: u64) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            stages::cancel(&self.0, query_id);
            Ok(())
        })
    }

    /// The server runs in the caller's process: alive while the caller is.
    fn ping(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::archive;
    use planner::plan::{ExecutionOptions, ServerQueryKind, ServerQueryPlan};

    fn count_plan() -> ServerQueryPlan {
        ServerQueryPlan {
            table: "t".into(),
            filter: None,
            kind: ServerQueryKind::Aggregation {
                aggregates: vec![planner::plan::AggregateCall {
                    function: planner::plan::AggregateFunction::Count,
                    arg: None,
                    second: None,
                    multi_value: false,
                    filter: None,
                    name: "count(*)".into(),
                }],
            },
            options: ExecutionOptions::default(),
            explain: false,
            layout: planner::plan::ResultLayout::Rows,
        }
    }

    /// A server holding another copy of a segment under the routed name (a table deleted and
    /// re-created before this server heard of it) answers 235, never the old rows.
    #[async_std::test]
    async fn another_copy_under_the_same_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let http = crate::http::http_client();
        let server = Server::new(
            ServerConfig {
                instance_id: "Server_test".into(),
                host: "127.0.0.1".into(),
                port: 1,
                segment_dir: dir.path().join("segs"),
                heartbeat_interval: Duration::from_secs(1),
                tags: None,
                query_port: None,
                cloud: Arc::new(crate::cloud::ObjectStores::new(Vec::new())),
            },
            Arc::new(crate::transport::HttpControllerClient::new(
                "http://127.0.0.1:1",
                http.clone(),
            )),
            Arc::new(Mailboxes::new(
                http,
                Arc::new(crate::transport::Channels::new(None)),
            )),
            crate::logging::init_for_tests().unwrap(),
        )
        .unwrap();
        let src = tempfile::tempdir().unwrap();
        let bytes = archive::pack(&archive::tests_support::build(src.path(), "s0", 5)).unwrap();
        server
            .hosted
            .install(
                "t_OFFLINE",
                "s0",
                &bytes,
                hosting::SegmentCopy {
                    crc: 11,
                    reload_version: 0,
                    incarnation: 3,
                },
            )
            .unwrap();
        let query = |crcs: Vec<u32>, incarnations: Vec<u64>| ServerQuery {
            table_name_with_type: "t_OFFLINE".into(),
            segments: vec!["s0".into()],
            segment_crcs: crcs,
            segment_incarnations: incarnations,
            plan: Arc::new(count_plan()),
            trace: false,
            inline: true,
        };
        let same = run_query(&server, query(vec![11], vec![])).await.unwrap();
        assert!(same.exceptions.is_empty());
        assert_eq!(same.stats.total_docs, 5);
        // A refresh routed before this server swapped copies: the older version answers.
        let older = run_query(&server, query(vec![12], vec![3])).await.unwrap();
        assert!(older.exceptions.is_empty(), "{:?}", older.exceptions);
        // Another incarnation (the table re-created) never does, whatever the CRC.
        let reborn = run_query(&server, query(vec![11], vec![4])).await.unwrap();
        assert_eq!(reborn.exceptions[0].error_code, 235);
        let other = run_query(&server, query(vec![12], vec![])).await.unwrap();
        assert_eq!(other.exceptions.len(), 1);
        assert_eq!(other.exceptions[0].error_code, 235);
        assert!(
            other.exceptions[0].message.contains("another copy"),
            "{:?}",
            other.exceptions
        );
        assert_eq!(other.stats.total_docs, 0);
        // Without CRCs (an older broker) any copy answers.
        assert!(
            run_query(&server, query(vec![], vec![]))
                .await
                .unwrap()
                .exceptions
                .is_empty()
        );
    }
}
