//! `GET /metrics` on every role, in Prometheus' text exposition format (hand-written, version
//! 0.0.4): HTTP requests by route and status (all roles), queries, their latency histogram and
//! errors by Pinot code (broker), documents scanned and segments loaded (server), and the
//! process' resident memory (`/proc/self/statm`).
//!
//! Each role owns one [`Metrics`]; [`mount`] installs the request-counting middleware and the
//! endpoint. Counters are atomics or short-held mutexes: recording costs nanoseconds.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tide::{Middleware, Next, Request};

/// Upper bounds (seconds) of the query latency histogram buckets.
pub const LATENCY_BUCKETS: [f64; 12] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// The metrics of one role.
#[derive(Debug)]
pub struct Metrics {
    role: &'static str,
    http: Mutex<BTreeMap<(&'static str, u16), u64>>,
    queries: AtomicU64,
    latency_buckets: [AtomicU64; LATENCY_BUCKETS.len()],
    latency_sum_us: AtomicU64,
    errors: Mutex<BTreeMap<i64, u64>>,
    docs_scanned: AtomicU64,
}

/// A gauge sampled when `/metrics` is scraped: name, help, value.
pub type Gauge = (&'static str, &'static str, f64);

impl Metrics {
    /// Empty metrics of `role` (`controller`, `broker`, `server`).
    pub fn new(role: &'static str) -> Metrics {
        Metrics {
            role,
            http: Mutex::new(BTreeMap::new()),
            queries: AtomicU64::new(0),
            latency_buckets: Default::default(),
            latency_sum_us: AtomicU64::new(0),
            errors: Mutex::new(BTreeMap::new()),
            docs_scanned: AtomicU64::new(0),
        }
    }

    /// Counts one HTTP request.
    pub fn record_http(&self, route: &'static str, status: u16) {
        if let Ok(mut m) = self.http.lock() {
            *m.entry((route, status)).or_insert(0) += 1;
        }
    }

    /// Counts one query with its latency and, if it failed, its first error code.
    pub fn record_query(&self, latency: Duration, error_code: Option<i64>) {
        self.queries.fetch_add(1, Ordering::Relaxed);
        let secs = latency.as_secs_f64();
        for (i, le) in LATENCY_BUCKETS.iter().enumerate() {
            if secs <= *le {
                self.latency_buckets[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_sum_us
            .fetch_add(latency.as_micros() as u64, Ordering::Relaxed);
        if let Some(code) = error_code
            && let Ok(mut e) = self.errors.lock()
        {
            *e.entry(code).or_insert(0) += 1;
        }
    }

    /// Adds scanned documents.
    pub fn add_docs_scanned(&self, docs: u64) {
        self.docs_scanned.fetch_add(docs, Ordering::Relaxed);
    }

    /// The exposition text, with `gauges` appended.
    pub fn render(&self, gauges: &[Gauge]) -> String {
        let role = self.role;
        let mut out = String::new();
        let header = |out: &mut String, name: &str, kind: &str, help: &str| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        header(
            &mut out,
            "tessera_http_requests_total",
            "counter",
            "HTTP requests by route and status.",
        );
        if let Ok(m) = self.http.lock() {
            for ((route, status), n) in m.iter() {
                let _ = writeln!(
                    out,
                    "tessera_http_requests_total{{role=\"{role}\",route=\"{}\",status=\"{status}\"}} {n}",
                    escape(route)
                );
            }
        }
        let queries = self.queries.load(Ordering::Relaxed);
        header(
            &mut out,
            "tessera_queries_total",
            "counter",
            "Queries answered.",
        );
        let _ = writeln!(out, "tessera_queries_total{{role=\"{role}\"}} {queries}");
        header(
            &mut out,
            "tessera_query_latency_seconds",
            "histogram",
            "Query latency at the broker.",
        );
        for (i, le) in LATENCY_BUCKETS.iter().enumerate() {
            let n = self.latency_buckets[i].load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "tessera_query_latency_seconds_bucket{{role=\"{role}\",le=\"{le}\"}} {n}"
            );
        }
        let _ = writeln!(
            out,
            "tessera_query_latency_seconds_bucket{{role=\"{role}\",le=\"+Inf\"}} {queries}"
        );
        let sum = self.latency_sum_us.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(
            out,
            "tessera_query_latency_seconds_sum{{role=\"{role}\"}} {sum}\ntessera_query_latency_seconds_count{{role=\"{role}\"}} {queries}"
        );
        header(
            &mut out,
            "tessera_query_errors_total",
            "counter",
            "Failed queries by Pinot error code.",
        );
        if let Ok(e) = self.errors.lock() {
            for (code, n) in e.iter() {
                let _ = writeln!(
                    out,
                    "tessera_query_errors_total{{role=\"{role}\",code=\"{code}\"}} {n}"
                );
            }
        }
        header(
            &mut out,
            "tessera_docs_scanned_total",
            "counter",
            "Documents scanned by queries.",
        );
        let _ = writeln!(
            out,
            "tessera_docs_scanned_total{{role=\"{role}\"}} {}",
            self.docs_scanned.load(Ordering::Relaxed)
        );
        for (name, help, value) in gauges {
            header(&mut out, name, "gauge", help);
            let _ = writeln!(out, "{name}{{role=\"{role}\"}} {value}");
        }
        if let Some(rss) = resident_bytes() {
            header(
                &mut out,
                "process_resident_memory_bytes",
                "gauge",
                "Resident set size of the process.",
            );
            let _ = writeln!(
                out,
                "process_resident_memory_bytes{{role=\"{role}\"}} {rss}"
            );
        }
        out
    }
}

fn escape(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Resident memory from `/proc/self/statm` (resident pages × 4 KiB), where available.
pub fn resident_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The route templates every role registers (tide's app-level middleware runs before routing,
/// so the matched template is recovered here); `:x` matches any one path segment.
const ROUTES: &[&str] = &[
    "/",
    "/health",
    "/metrics",
    "/instances",
    "/instances/:id",
    "/instances/:id/heartbeat",
    "/instances/:id/updateTags",
    "/tenants",
    "/tenants/:name",
    "/schemas",
    "/schemas/:name",
    "/tables",
    "/tables/:table",
    "/tables/:table/externalview",
    "/tables/:table/idealstate",
    "/tables/:table/size",
    "/tables/:table/schema",
    "/tables/:table/pauseConsumption",
    "/tables/:table/pauseStatus",
    "/tables/:table/resumeConsumption",
    "/table/:table",
    "/segments",
    "/segments/:table",
    "/segments/:table/:segment",
    "/segments/:table/reload",
    "/segments/:table/relocate",
    "/segments/:table/servers",
    "/v2/segments",
    "/ingestFromFile",
    "/ingestFromURI",
    "/query",
    "/query/sql",
    "/sql",
    "/pinot-controller/admin",
    "/loggers",
    "/loggers/:name",
    "/loggers/download",
    "/loggers/files",
    "/loggers/instances",
    "/loggers/instances/:name",
    "/loggers/instances/:name/download",
    "/tessera/catalog",
    "/tessera/query",
    "/tessera/routing/:table",
    "/tessera/segments/:table",
];

/// The route label of a path: the registered template it matches (`/tables/x/size` →
/// `/tables/:table/size`; the one with most literal segments wins), else `other`, so label
/// cardinality stays bounded whatever names clients use.
pub fn route_label(path: &str) -> &'static str {
    /// Each template's segments, split once.
    static SPLIT: std::sync::LazyLock<Vec<(Vec<&'static str>, &'static str)>> =
        std::sync::LazyLock::new(|| {
            ROUTES
                .iter()
                .map(|t| (t.split('/').filter(|p| !p.is_empty()).collect(), *t))
                .collect()
        });
    let parts = || path.split('/').filter(|p| !p.is_empty());
    let n = parts().count();
    SPLIT
        .iter()
        .filter(|(pattern, _)| {
            pattern.len() == n
                && pattern
                    .iter()
                    .zip(parts())
                    .all(|(t, p)| t.starts_with(':') || *t == p)
        })
        .max_by_key(|(pattern, _)| pattern.iter().filter(|t| !t.starts_with(':')).count())
        .map_or("other", |(_, template)| template)
}

struct Counting(Arc<Metrics>);

#[tide::utils::async_trait]
impl<S: Clone + Send + Sync + 'static> Middleware<S> for Counting {
    async fn handle(&self, req: Request<S>, next: Next<'_, S>) -> tide::Result {
        let route = route_label(req.url().path());
        let res = next.run(req).await;
        self.0.record_http(route, res.status() as u16);
        Ok(res)
    }
}

/// Installs request counting and `GET /metrics` (with the role's `gauges`) on `app`.
pub fn mount<S, G>(r: &mut super::routes::Routes<'_, S>, metrics: Arc<Metrics>, gauges: G)
where
    S: Clone + Send + Sync + 'static,
    G: Fn(&S) -> Vec<Gauge> + Send + Sync + 'static,
{
    r.app().with(Counting(metrics.clone()));
    let gauges = Arc::new(gauges);
    r.group("Metrics").get(
        "/metrics",
        "Request counts, latencies and gauges (Prometheus text)",
        move |req: Request<S>| {
            let metrics = metrics.clone();
            let gauges = gauges.clone();
            async move {
                let text = metrics.render(&gauges(req.state()));
                let mut res = tide::Response::new(200);
                res.set_body(text);
                res.set_content_type("text/plain; version=0.0.4");
                Ok(res)
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::new("broker");
        m.record_http("/query/sql", 200);
        m.record_http("/query/sql", 200);
        m.record_query(Duration::from_millis(3), None);
        m.record_query(Duration::from_millis(30), Some(190));
        m.add_docs_scanned(7);
        let text = m.render(&[("tessera_segments_loaded", "Segments loaded.", 2.0)]);
        assert!(text.contains(
            "tessera_http_requests_total{role=\"broker\",route=\"/query/sql\",status=\"200\"} 2"
        ));
        assert!(text.contains("tessera_queries_total{role=\"broker\"} 2"));
        assert!(
            text.contains("tessera_query_latency_seconds_bucket{role=\"broker\",le=\"0.005\"} 1")
        );
        assert!(
            text.contains("tessera_query_latency_seconds_bucket{role=\"broker\",le=\"0.05\"} 2")
        );
        assert!(text.contains("tessera_query_errors_total{role=\"broker\",code=\"190\"} 1"));
        assert!(text.contains("tessera_docs_scanned_total{role=\"broker\"} 7"));
        assert!(text.contains("tessera_segments_loaded{role=\"broker\"} 2"));
        assert!(text.contains("# TYPE tessera_query_latency_seconds histogram"));
        // Every sample line is `name{labels} value` with a numeric value.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let value = line.rsplit(' ').next().unwrap();
            assert!(value.parse::<f64>().is_ok(), "{line}");
        }
    }

    #[test]
    fn route_labels_stay_few() {
        assert_eq!(route_label("/tables/foo/size"), "/tables/:table/size");
        assert_eq!(route_label("/query/sql"), "/query/sql");
        assert_eq!(route_label("/query/sql/"), "/query/sql");
        assert_eq!(route_label("/segments/t/reload"), "/segments/:table/reload");
        assert_eq!(
            route_label("/segments/t/seg_1"),
            "/segments/:table/:segment"
        );
        assert_eq!(
            route_label("/tessera/routing/x_OFFLINE"),
            "/tessera/routing/:table"
        );
        assert_eq!(route_label("/"), "/");
        assert_eq!(route_label("/no/such/route/at/all"), "other");
        assert!(resident_bytes().unwrap_or(1) > 0);
    }
}
