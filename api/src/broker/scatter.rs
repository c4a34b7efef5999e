//! Routing and scatter-gather: fetch a table's routing table from the controller, pick one
//! replica per segment (rotating over replicas, passing over servers found unreachable while
//! another replica is there: [`ServerHealth`]), send each chosen server its share of segments,
//! and gather the answers with a per-server deadline. A server that fails or misses the
//! deadline becomes a `ServerNotResponding` (427) exception; the others' results are kept. One
//! that cannot be reached (refused, reset, silent on its channel) is recorded as down.

use super::Broker;
use crate::metadata::records::RoutingTable;
use crate::transport::{Ask, ServerHealth, ServerQuery};
use engine::response::QueryException;
use engine::server::result::ServerResult;
use planner::plan::ServerQueryPlan;
use segments::types::ErrorCode;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::Duration;

/// Which server gets which segments, plus segments no online server has.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Server id → (base URL, segments).
    pub per_server: BTreeMap<String, (String, Vec<String>)>,
    /// Segments with no online replica.
    pub unavailable: Vec<String>,
    /// The routing table chosen from: the CRC and incarnation of each segment's copy to query
    /// (shared, not copied per query).
    pub routing: Arc<RoutingTable>,
}

/// Picks one replica per segment, rotating the starting replica per query, among the servers
/// not down in `health` where the segment has such a replica.
pub fn choose_replicas(routing: &Arc<RoutingTable>, health: &ServerHealth) -> Plan {
    choose_among(routing, None, &BTreeSet::new(), health)
}

/// The address a server is reached at, as [`ServerHealth`] knows it: its query port, else its
/// URL.
pub fn server_address<'a>(routing: &'a RoutingTable, server: &str, url: &'a str) -> &'a str {
    routing
        .query_addresses
        .get(server)
        .map_or(url, String::as_str)
}

/// The plan that re-sends the segments of the servers `gathered` could not reach to their other
/// replicas; `None` when some of them has no other replica.
pub fn reroute(
    routing: &Arc<RoutingTable>,
    gathered: &Gathered,
    health: &ServerHealth,
) -> Option<Plan> {
    let avoid: BTreeSet<String> = gathered
        .unreachable
        .iter()
        .map(|(s, _, _)| s.clone())
        .collect();
    let only: BTreeSet<String> = gathered
        .unreachable
        .iter()
        .flat_map(|(_, segs, _)| segs.iter().cloned())
        .collect();
    let plan = choose_among(routing, Some(&only), &avoid, health);
    (plan.unavailable.is_empty() && !plan.per_server.is_empty()).then_some(plan)
}

/// One replica per segment (of `only`, if given) among the replicas not in `avoid`, those not
/// down in `health` first.
fn choose_among(
    routing: &Arc<RoutingTable>,
    only: Option<&BTreeSet<String>>,
    avoid: &BTreeSet<String>,
    health: &ServerHealth,
) -> Plan {
    static ROTATION: AtomicUsize = AtomicUsize::new(0);
    let turn = ROTATION.fetch_add(1, Ordering::Relaxed);
    let mut plan = Plan {
        routing: routing.clone(),
        ..Plan::default()
    };
    let segments = routing
        .segments
        .iter()
        .filter(|(s, _)| only.is_none_or(|o| o.contains(*s)));
    for (i, (segment, hosts)) in segments.enumerate() {
        let mut usable: Vec<&String> = hosts
            .iter()
            .filter(|h| routing.servers.contains_key(*h) && !avoid.contains(*h))
            .collect();
        if usable.is_empty() {
            plan.unavailable.push(segment.clone());
            continue;
        }
        let up = |h: &&String| !health.is_down(server_address(routing, h, &routing.servers[*h]));
        if usable.iter().any(up) {
            usable.retain(up);
        }
        let host = usable[(turn + i) % usable.len()];
        let url = routing.servers[host].clone();
        plan.per_server
            .entry(host.clone())
            .or_insert_with(|| (url, Vec::new()))
            .1
            .push(segment.clone());
    }
    plan
}

/// The gathered answers of one scatter.
#[derive(Debug, Default, Clone)]
pub struct Gathered {
    pub servers_queried: usize,
    pub servers_responded: usize,
    /// Each responding server's id and result.
    pub responses: Vec<(String, ServerResult)>,
    /// 427s for servers that failed, timed out or answered something unreadable.
    pub exceptions: Vec<QueryException>,
    /// Servers that could not be reached at all (refused, reset: not a timeout), with the
    /// segments they were sent and the index of their exception in `exceptions`; another
    /// replica can answer for them at once.
    pub unreachable: Vec<(String, Vec<String>, usize)>,
}

impl Gathered {
    /// Adds what another table's part of the query gathered (a hybrid table's other half).
    pub fn absorb(&mut self, other: Gathered) {
        let base = self.exceptions.len();
        self.servers_queried += other.servers_queried;
        self.servers_responded += other.servers_responded;
        self.responses.extend(other.responses);
        self.exceptions.extend(other.exceptions);
        self.unreachable.extend(
            other
                .unreachable
                .into_iter()
                .map(|(s, segs, at)| (s, segs, base + at)),
        );
    }

    /// Replaces the unreachable servers' failures with `retry`'s answers for their segments.
    pub fn merge_retry(&mut self, retry: Gathered) {
        let mut gone: Vec<usize> = self.unreachable.drain(..).map(|(_, _, at)| at).collect();
        gone.sort_unstable();
        for at in gone.into_iter().rev() {
            self.exceptions.remove(at);
        }
        self.servers_queried += retry.servers_queried;
        self.servers_responded += retry.servers_responded;
        self.responses.extend(retry.responses);
        let base = self.exceptions.len();
        self.exceptions.extend(retry.exceptions);
        self.unreachable = retry
            .unreachable
            .into_iter()
            .map(|(s, segs, at)| (s, segs, base + at))
            .collect();
    }
}

/// Sends `query` for each server's segments to every server in `plan` and gathers, each
/// server through its [`ServerClient`](crate::transport::ServerClient) (in-process or HTTP).
pub async fn scatter(
    broker: &Broker,
    plan: &Plan,
    table: &str,
    query: &Arc<ServerQueryPlan>,
    ask: Ask,
    timeout: Duration,
) -> Gathered {
    let (mut asked, mut answers) = (Vec::new(), Vec::new());
    for (server, (url, segs)) in &plan.per_server {
        let q = ServerQuery {
            table_name_with_type: table.to_string(),
            segments: segs.clone(),
            segment_crcs: segs
                .iter()
                .map_while(|s| plan.routing.crcs.get(s).copied())
                .collect(),
            segment_incarnations: segs
                .iter()
                .map_while(|s| plan.routing.incarnations.get(s).copied())
                .collect(),
            plan: query.clone(),
            trace: ask.trace,
            inline: ask.inline,
        };
        let query_address = plan.routing.query_addresses.get(server);
        let client = broker
            .servers
            .client(server, url, query_address.map(String::as_str));
        let address = server_address(&plan.routing, server, url).to_string();
        asked.push((server.clone(), segs.clone(), address, client.clone()));
        answers.push(Box::pin(async move {
            // Any failure is worth a replica's try; only a server not reached is down.
            client.query(q).await.map_err(|e| {
                let down = matches!(e, crate::transport::TransportError::Unreachable(_));
                (e.to_string(), true, down)
            })
        }));
    }
    let mut g = Gathered {
        servers_queried: asked.len(),
        ..Gathered::default()
    };
    let answers = all_within(answers, timeout).await;
    let health = &broker.servers.health;
    let outcomes =
        asked
            .into_iter()
            .zip(answers)
            .map(|((server, segs, address, client), answer)| {
                let out = answer.unwrap_or_else(|| {
                    Err((
                        format!("no response within {} ms", timeout.as_millis()),
                        false,
                        false,
                    ))
                });
                if let Err((_, _, true)) = &out {
                    health.mark_unreachable(&server, &address, client);
                }
                (server, segs, out)
            });
    for outcome in outcomes {
        match outcome {
            (server, _, Ok(body)) => {
                g.servers_responded += 1;
                g.responses.push((server, body));
            }
            (server, segs, Err((reason, unreachable, _))) => {
                if unreachable {
                    g.unreachable
                        .push((server.clone(), segs, g.exceptions.len()));
                }
                g.exceptions.push(QueryException {
                    error_code: ErrorCode::ServerNotResponding.code(),
                    message: ErrorCode::ServerNotResponding.message(&format!("{server}: {reason}")),
                });
            }
        }
    }
    g
}

/// Awaits every future of `futures` concurrently, in this task, until all are done or
/// `timeout` has passed: the outputs, `None` for those still running then (dropped). One timer
/// serves them all, and it is armed only if some future is still pending after the first poll
/// (an in-process server answering inline needs none). Spawning a task per server instead cost
/// each query a spawn, a cross-thread join and a timer (each inserted timer wakes the reactor
/// thread) per server.
async fn all_within<F: Future + Unpin>(
    mut futures: Vec<F>,
    timeout: Duration,
) -> Vec<Option<F::Output>> {
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    let mut deadline: Option<Pin<Box<dyn Future<Output = ()> + Send>>> = None;
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, out) in futures.iter_mut().zip(outputs.iter_mut()) {
            if out.is_none() {
                match Pin::new(f).poll(cx) {
                    Poll::Ready(v) => *out = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if !pending {
            return Poll::Ready(());
        }
        let timer = deadline.get_or_insert_with(|| Box::pin(async_std::task::sleep(timeout)));
        timer.as_mut().poll(cx)
    })
    .await;
    outputs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[async_std::test]
    async fn all_within_keeps_what_finished_and_drops_what_did_not() {
        type Answer = Pin<Box<dyn Future<Output = u32> + Send>>;
        let slow = |ms: u64, v: u32| -> Answer {
            Box::pin(async move {
                async_std::task::sleep(Duration::from_millis(ms)).await;
                v
            })
        };
        let never: Answer = Box::pin(std::future::pending());
        let ready: Answer = Box::pin(async { 7 });
        // Every future runs at once: the two 30 ms sleepers both finish within 1 s, the one
        // that never finishes is given up at the deadline, the ready one answers at once.
        let got = all_within(
            vec![slow(30, 1), never, ready, slow(30, 2)],
            Duration::from_secs(1),
        )
        .await;
        assert_eq!(got, vec![Some(1), None, Some(7), Some(2)]);
        // Nothing pending: no deadline to wait for.
        let got = all_within(
            vec![Box::pin(async { 3u32 }) as Answer],
            Duration::from_secs(3600),
        )
        .await;
        assert_eq!(got, vec![Some(3)]);
        assert!(
            all_within(Vec::<Answer>::new(), Duration::ZERO)
                .await
                .is_empty()
        );
    }

    #[test]
    fn one_replica_per_segment_and_unavailable_segments() {
        let mut r = RoutingTable::default();
        r.servers.insert("A".into(), "http://a".into());
        r.servers.insert("B".into(), "http://b".into());
        r.segments.insert("s0".into(), vec!["A".into(), "B".into()]);
        r.segments.insert("s1".into(), vec!["A".into(), "B".into()]);
        r.segments.insert("s2".into(), vec![]);
        let plan = choose_replicas(&Arc::new(r), &ServerHealth::default());
        let total: usize = plan.per_server.values().map(|(_, s)| s.len()).sum();
        assert_eq!(total, 2);
        assert_eq!(plan.unavailable, vec!["s2".to_string()]);
        // Consecutive segments go to different replicas.
        assert_eq!(plan.per_server.len(), 2);
    }

    #[test]
    fn unreachable_servers_segments_go_to_their_other_replicas() {
        let mut r = RoutingTable::default();
        for s in ["A", "B", "C"] {
            r.servers.insert(s.into(), format!("http://{s}"));
        }
        r.segments.insert("s0".into(), vec!["A".into(), "B".into()]);
        r.segments.insert("s1".into(), vec!["B".into(), "C".into()]);
        r.segments.insert("s2".into(), vec!["C".into()]);
        let failure = |server: &str| QueryException {
            error_code: ErrorCode::ServerNotResponding.code(),
            message: format!("{server}: refused"),
        };
        let mut g = Gathered {
            servers_queried: 2,
            exceptions: vec![failure("C"), failure("A")],
            unreachable: vec![("A".into(), vec!["s0".into()], 1)],
            ..Gathered::default()
        };
        // Only A's segment is re-sent, and never to A.
        let r = Arc::new(r);
        let health = ServerHealth::default();
        let plan = reroute(&r, &g, &health).unwrap();
        assert_eq!(plan.per_server.len(), 1);
        assert_eq!(plan.per_server["B"].1, vec!["s0".to_string()]);
        // A segment whose only replica is unreachable cannot be rerouted.
        let lone = Gathered {
            unreachable: vec![("C".into(), vec!["s2".into()], 0)],
            ..Gathered::default()
        };
        assert!(reroute(&r, &lone, &health).is_none());
        // The retry's answer replaces exactly A's failure.
        let retry = Gathered {
            servers_queried: 1,
            servers_responded: 1,
            ..Gathered::default()
        };
        g.merge_retry(retry);
        assert_eq!(g.exceptions, vec![failure("C")]);
        assert!(g.unreachable.is_empty());
        assert_eq!((g.servers_queried, g.servers_responded), (3, 1));
    }

    fn test_plan() -> ServerQueryPlan {
        ServerQueryPlan {
            table: "t".into(),
            filter: None,
            kind: planner::plan::ServerQueryKind::Selection {
                exprs: Vec::new(),
                order_by: Vec::new(),
                limit: 10,
            },
            options: planner::plan::ExecutionOptions::default(),
            explain: false,
            layout: planner::plan::ResultLayout::Rows,
        }
    }

    fn fake_server(delay: Duration) -> (String, async_std::task::JoinHandle<std::io::Result<()>>) {
        let listener = crate::http::bind("127.0.0.1", 0).unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut app = tide::new();
        app.at("/tessera/query")
            .post(move |mut req: tide::Request<()>| async move {
                // The broker sends MessagePack; this server answers JSON, which it reads too.
                let q: ServerQuery = crate::transport::wire::decode(&req.body_bytes().await?)?;
                async_std::task::sleep(delay).await;
                // An empty aggregation result naming the segments it was sent.
                let result = ServerResult {
                    data: engine::server::result::IntermediateData::Rows(
                        q.segments
                            .iter()
                            .map(|s| vec![segments::types::Value::String(s.clone())])
                            .collect(),
                    ),
                    stats: Default::default(),
                    num_groups_limit_reached: false,
                    exceptions: Vec::new(),
                    trace: None,
                    over_budget: false,
                };
                Ok(serde_json::to_string(&result)?)
            });
        (
            format!("http://127.0.0.1:{port}"),
            crate::http::serve(app, listener),
        )
    }

    #[async_std::test]
    async fn slow_servers_become_427_and_the_rest_is_kept() {
        let (fast, fast_task) = fake_server(Duration::ZERO);
        let (slow, slow_task) = fake_server(Duration::from_secs(3));
        let http = crate::http::http_client();
        let broker = Broker::new(
            super::super::BrokerConfig::for_tests(Duration::from_millis(300), 4, 4),
            std::sync::Arc::new(crate::transport::HttpControllerClient::new(
                "http://127.0.0.1:1",
                http.clone(),
            )),
            std::sync::Arc::new(crate::transport::ServerDirectory::new(
                http.clone(),
                std::sync::Arc::new(crate::transport::Channels::new(None)),
            )),
            std::sync::Arc::new(crate::transport::Mailboxes::new(
                http,
                std::sync::Arc::new(crate::transport::Channels::new(None)),
            )),
            crate::logging::init_for_tests().unwrap(),
        );
        let mut plan = Plan::default();
        plan.per_server
            .insert("Server_fast".into(), (fast, vec!["s0".into()]));
        plan.per_server
            .insert("Server_slow".into(), (slow, vec!["s1".into()]));
        let g = scatter(
            &broker,
            &plan,
            "t_OFFLINE",
            &Arc::new(test_plan()),
            Ask {
                trace: false,
                inline: true,
            },
            Duration::from_millis(300),
        )
        .await;
        assert_eq!((g.servers_queried, g.servers_responded), (2, 1));
        assert_eq!(g.responses.len(), 1);
        assert_eq!(g.responses[0].0, "Server_fast");
        assert_eq!(
            g.responses[0].1.data,
            engine::server::result::IntermediateData::Rows(vec![vec![
                segments::types::Value::String("s0".into())
            ]])
        );
        assert_eq!(g.exceptions.len(), 1);
        assert_eq!(g.exceptions[0].error_code, 427);
        assert!(g.exceptions[0].message.contains("Server_slow"));
        // An unreachable controller is a routing failure.
        let err = broker
            .controller
            .routing("t_OFFLINE", "Broker_test")
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::BrokerResourceMissing);
        fast_task.cancel().await;
        slow_task.cancel().await;
    }
}
