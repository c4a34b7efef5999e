//! The broker role: Pinot's query endpoints (`POST /query/sql`, `GET /query/sql`, `POST /query`
//! for the multi-stage engine), routing over the controller's routing tables, scatter-gather to
//! servers, reduce, and Pinot's response JSON.
//!
//! * [`request`] — the request shapes and query options.
//! * [`response`] — response completion, error codes, HTTP status mapping.
//! * [`scatter`] — replica choice and scatter-gather with per-server deadlines.
//! * [`catalog`] — table schemas for planning, mirrored from the controller.
//! * [`query`] — one query from request to response.
//! * [`table_parts`] — the typed tables a query reads (both halves of a hybrid table, bounded).
//! * [`multistage`] — placing and running a multi-stage (v2) query's stages.
//! * [`membership`] — registration, heartbeats, catalog refresh.

pub mod admission;
pub mod catalog;
pub mod membership;
pub mod multistage;
pub mod plan_cache;
pub mod query;
pub mod query_quota;
pub mod request;
pub mod response;
pub mod routing_cache;
pub mod scatter;
pub mod table_parts;
pub mod trace;

use crate::common::loggers::{self, LoggerState};
use crate::http::body::{query_param, read_text};
use crate::http::metrics::{self, Metrics};
use crate::http::routes::Routes;
use crate::http::{ErrorStyle, new_app};
use crate::logging::LoggingHandle;
use crate::metadata::changes::{Change, ChangeListener};
use crate::transport::stages::{MailboxState, mailbox_routes};
use crate::transport::{ControllerClient, Mailboxes, ServerDirectory};
use request::QueryRequest;
use std::sync::Arc;
use std::time::Duration;
use tide::Request;

/// Broker settings.
#[derive(Clone, Debug)]
pub struct BrokerConfig {
    /// This broker's id (`Broker_<host>_<port>`).
    pub instance_id: String,
    /// Base URL other processes reach this broker at (multi-stage root mailboxes without a
    /// query port).
    pub url: String,
    /// `host:port` of this broker's query port, where servers send its multi-stage queries'
    /// root blocks.
    pub query_address: Option<String>,
    /// The broker's query timeout (Pinot's `pinot.broker.timeoutMs`): how long it waits for
    /// servers, unless a query's `timeoutMs` says otherwise (longer or shorter, as in Pinot). A
    /// server that has not answered by then is reported as error 427.
    pub server_timeout: Duration,
    /// How long a routing table fetched from the controller is reused (zero: never).
    pub routing_ttl: Duration,
    /// Queries run at once ([`admission`]); more wait in a queue of `max_queued_queries`.
    pub max_running_queries: usize,
    pub max_queued_queries: usize,
    /// Rows an answer holds at most (Pinot's `pinot.broker.query.response.limit`): a larger
    /// `LIMIT` is lowered to it.
    pub query_response_limit: usize,
    /// Largest query request (body or `sql` parameter) in bytes; larger is 413.
    pub max_query_bytes: u64,
}

impl BrokerConfig {
    /// How long a query planned with `options` may take: its `timeoutMs` when it gave one (in
    /// its options or a `SET`) — Pinot's query-level timeout replaces the broker's, longer or
    /// shorter — else [`BrokerConfig::server_timeout`].
    pub fn query_timeout(&self, options: &planner::plan::ExecutionOptions) -> Duration {
        if options.timeout_given {
            Duration::from_millis(options.timeout_ms.max(1))
        } else {
            self.server_timeout
        }
    }
}

#[cfg(test)]
impl BrokerConfig {
    /// A test broker's settings: `Broker_test`, no query port, routing never cached.
    pub fn for_tests(server_timeout: Duration, running: usize, queued: usize) -> BrokerConfig {
        BrokerConfig {
            instance_id: "Broker_test".into(),
            url: "http://127.0.0.1:1".into(),
            query_address: None,
            server_timeout,
            routing_ttl: Duration::ZERO,
            max_running_queries: running,
            max_queued_queries: queued,
            query_response_limit: DEFAULT_QUERY_RESPONSE_LIMIT,
            max_query_bytes: DEFAULT_MAX_QUERY_BYTES,
        }
    }
}

/// The default of [`BrokerConfig::max_query_bytes`].
pub const DEFAULT_MAX_QUERY_BYTES: u64 = 16 << 20;

/// The default of [`BrokerConfig::query_response_limit`].
pub const DEFAULT_QUERY_RESPONSE_LIMIT: usize = 1_000_000;

/// The broker's state.
pub struct Broker {
    pub config: BrokerConfig,
    /// The controller: routing tables and the table catalog.
    pub controller: Arc<dyn ControllerClient>,
    /// The servers, in-process ones called directly.
    pub servers: Arc<ServerDirectory>,
    /// The process's mailboxes (the root stage of multi-stage queries receives here).
    pub mailboxes: Arc<Mailboxes>,
    pub logging: LoggingHandle,
    pub catalog: Arc<catalog::BrokerCatalog>,
    pub metrics: Arc<Metrics>,
    pub routing: routing_cache::RoutingCache,
    /// Plans of repeated queries.
    pub plans: plan_cache::PlanCache,
    /// The query slots and their queue.
    pub admission: admission::Admission,
    /// The tables' query quotas.
    pub quotas: query_quota::QueryQuotas,
}

/// The tide state of the broker app.
pub type BrokerState = Arc<Broker>;

impl Broker {
    /// A broker.
    pub fn new(
        config: BrokerConfig,
        controller: Arc<dyn ControllerClient>,
        servers: Arc<ServerDirectory>,
        mailboxes: Arc<Mailboxes>,
        logging: LoggingHandle,
    ) -> Broker {
        Broker {
            controller,
            servers,
            mailboxes,
            logging,
            catalog: Arc::new(catalog::BrokerCatalog::default()),
            metrics: Arc::new(Metrics::new("broker")),
            routing: routing_cache::RoutingCache::new(config.routing_ttl),
            plans: plan_cache::PlanCache::default(),
            quotas: query_quota::QueryQuotas::default(),
            admission: admission::Admission::new(
                config.max_running_queries,
                config.max_queued_queries,
            ),
            config,
        }
    }
}

impl MailboxState for BrokerState {
    fn mailboxes(&self) -> &Arc<Mailboxes> {
        &self.mailboxes
    }
}

impl LoggerState for BrokerState {
    fn logging(&self) -> &LoggingHandle {
        &self.logging
    }
}

/// The broker's tide app.
pub fn app(state: BrokerState) -> tide::Server<BrokerState> {
    let mut app = new_app(state, ErrorStyle::CodeError);
    let m = app.state().metrics.clone();
    let mut r = Routes::new(&mut app);
    r.group("Health")
        .get("/health", "OK when the broker is up", |_| async {
            Ok("OK")
        });
    r.group("Query")
        .post(
            "/query/sql",
            "Runs SQL ({\"sql\", \"queryOptions\", \"trace\"}); single-stage unless useMultistageEngine=true",
            |r| post_query(r, false),
        )
        .get("/query/sql", "Runs SQL given as ?sql= (and queryOptions=, trace=)", get_query)
        .post("/query/sql/", "As POST /query/sql", |r| post_query(r, false))
        .get("/query/sql/", "As GET /query/sql", get_query)
        .post("/query", "Runs SQL on the multi-stage engine", |r| post_query(r, true))
        .get("/query", "Runs SQL given as ?sql= on the multi-stage engine", get_query_multistage)
        .post("/query/", "As POST /query", |r| post_query(r, true));
    r.group("Internal").post(
        "/tessera/changed",
        "The controller's notice of a metadata change",
        changed,
    );
    mailbox_routes(&mut r);
    loggers::routes(&mut r);
    metrics::mount(&mut r, m, |_| Vec::new());
    r.document("Tessera broker API");
    app
}

/// The authenticated principal of a request (access control on).
fn identity(req: &Request<BrokerState>) -> Option<&crate::auth::Principal> {
    req.ext::<crate::auth::guard::Identity>().map(|i| &*i.0)
}

/// A query's HTTP answer; a table the principal may not read is HTTP 403, as in Pinot.
fn answer(r: &engine::BrokerResponse, use_status: bool) -> tide::Response {
    if r.error_code() == segments::types::ErrorCode::AccessDenied.code()
        && let Some(e) = r.exceptions.first()
    {
        let message = e
            .message
            .strip_prefix("AccessDenied: ")
            .unwrap_or(&e.message);
        return crate::http::error_response(crate::http::ErrorStyle::CodeError, 403, message);
    }
    response::to_http(r, use_status)
}

fn uses_http_status(req: &Request<BrokerState>) -> bool {
    req.header("Pinot-Use-Http-Status-For-Errors")
        .is_some_and(|v| v.as_str().eq_ignore_ascii_case("true"))
}

async fn post_query(mut req: Request<BrokerState>, force_multistage: bool) -> tide::Result {
    let use_status = uses_http_status(&req);
    let url_options = query_param(&req, "queryOptions");
    let limit = req.state().config.max_query_bytes;
    let text = read_text(&mut req, limit).await?;
    let query = QueryRequest::from_body(&text, url_options.as_deref(), force_multistage)?;
    let r = query::run(req.state(), &query, identity(&req)).await;
    Ok(answer(&r, use_status))
}

async fn get_query_with(req: Request<BrokerState>, force_multistage: bool) -> tide::Result {
    let use_status = uses_http_status(&req);
    let sql = query_param(&req, "sql").ok_or_else(|| {
        crate::http::ApiError::bad_request("Payload is missing the query string field 'sql'")
    })?;
    let limit = req.state().config.max_query_bytes;
    if sql.len() as u64 > limit {
        return Err(crate::http::ApiError::new(
            413,
            format!(
                "query of {} bytes is larger than the limit of {limit} bytes",
                sql.len()
            ),
        )
        .into());
    }
    let trace = query_param(&req, "trace").is_some_and(|t| t.eq_ignore_ascii_case("true"));
    let options = query_param(&req, "queryOptions").unwrap_or_default();
    let query = QueryRequest::new(&sql, trace, &options, None, force_multistage)?;
    let r = query::run(req.state(), &query, identity(&req)).await;
    Ok(answer(&r, use_status))
}

async fn get_query(req: Request<BrokerState>) -> tide::Result {
    get_query_with(req, false).await
}

async fn get_query_multistage(req: Request<BrokerState>) -> tide::Result {
    get_query_with(req, true).await
}

/// `POST /tessera/changed`: the controller's push of a metadata change.
async fn changed(mut req: Request<BrokerState>) -> tide::Result {
    let text = read_text(&mut req, 1 << 20).await?;
    let change: Change = crate::http::body::parse_json(&text, "Invalid change: ")?;
    req.state().changed(&change).await;
    Ok("OK".into())
}

#[cfg(test)]
mod timeout_tests {
    use super::*;
    use planner::options::QueryOptions;
    use planner::plan::ExecutionOptions;

    #[test]
    fn a_query_timeout_replaces_the_brokers_longer_or_shorter() {
        let config = BrokerConfig::for_tests(Duration::from_millis(300), 1, 1);
        let timeout = |sql_set: &[(&str, &str)], request: &str| {
            let set: Vec<(String, String)> = sql_set
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let o = QueryOptions::resolve(&set, Some(request)).unwrap();
            config.query_timeout(&ExecutionOptions::from_query_options(&o))
        };
        assert_eq!(timeout(&[], ""), Duration::from_millis(300));
        assert_eq!(timeout(&[], "timeoutMs=60000"), Duration::from_secs(60));
        assert_eq!(timeout(&[], "timeoutMs=250"), Duration::from_millis(250));
        // Pinot's default (10 s) given explicitly is still the query's own.
        assert_eq!(timeout(&[], "timeoutMs=10000"), Duration::from_secs(10));
        // A SET in the SQL is the query's too.
        assert_eq!(
            timeout(&[("timeoutMs", "60000")], ""),
            Duration::from_secs(60)
        );
    }
}
