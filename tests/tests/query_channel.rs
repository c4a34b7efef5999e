//! The query channel between a broker and servers in other processes (`transport::frames`,
//! `server::query_port`): a controller+broker cluster and two server-only clusters, each
//! server reached through its query port. Many concurrent queries share one connection per
//! server and each gets its own answer; a restarted server (same ports) is reached again; the
//! port refuses a bad hello, a foreign frame and bytes that are no frame, and closes on stop.

use api::auth::{Auth, basic_token};
use api::cluster::{self, Cluster, Roles, StartOptions};
use api::http::multipart;
use api::transport::frames::{self, Frame, FrameError, Kind};
use async_std::io::WriteExt;
use async_std::net::TcpStream;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn test_logging() -> api::logging::LoggingHandle {
    static LOGGING: std::sync::OnceLock<api::logging::LoggingHandle> = std::sync::OnceLock::new();
    LOGGING
        .get_or_init(|| api::logging::init_for_tests().unwrap())
        .clone()
}

fn options(dir: &Path, roles: &str, controller: Option<&str>) -> StartOptions {
    let mut opts = StartOptions::ephemeral(dir.to_path_buf());
    opts.logging = Some(test_logging());
    opts.roles = Roles::parse(roles).unwrap();
    opts.controller_url = controller.map(str::to_string);
    opts
}

async fn call(method: &str, url: &str, body: Option<(Vec<u8>, String)>) -> (u16, Value) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        _ => client.post(url),
    };
    if let Some((b, ct)) = body {
        req = req.body(b).content_type(ct.as_str());
    }
    let mut res = req.await.unwrap();
    let text = res.body_string().await.unwrap();
    (
        res.status().into(),
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn sql(broker: &str, q: &str) -> Value {
    let body = json!({ "sql": q }).to_string().into_bytes();
    let (status, v) = call(
        "POST",
        &format!("{broker}/query/sql"),
        Some((body, "application/json".into())),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    v
}

async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
}

/// Table `kv` (`k` INT, `v` STRING) in two segments: k < 200 and k ≥ 200, `v` = `v<k>`.
async fn load(ctl: &str) {
    let schema = json!({"schemaName": "kv",
        "dimensionFieldSpecs": [{"name": "k", "dataType": "INT"}, {"name": "v", "dataType": "STRING"}]});
    let table = json!({"tableName": "kv", "tableType": "OFFLINE",
        "segmentsConfig": {"replication": "1"}, "tenants": {}, "tableIndexConfig": {}});
    for (path, v) in [("schemas", schema), ("tables", table)] {
        let body = Some((v.to_string().into_bytes(), "application/json".into()));
        let (s, b) = call("POST", &format!("{ctl}/{path}"), body).await;
        assert_eq!(s, 200, "{b}");
    }
    for part in 0..2 {
        let text: String = std::iter::once("k,v\n".to_string())
            .chain((part * 200..part * 200 + 200).map(|k| format!("{k},v{k}\n")))
            .collect();
        let (ct, body) = multipart::encode_file("file", "rows.csv", text.as_bytes());
        let url = format!(
            "{ctl}/ingestFromFile?tableNameWithType=kv_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22csv%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%22{part}%22%7D"
        );
        let (s, b) = call("POST", &url, Some((body, ct))).await;
        assert_eq!(s, 200, "{b}");
    }
}

/// Whether `broker` answers the whole table from both servers.
async fn both_servers_answer(broker: &str) -> bool {
    let v = sql(broker, "SELECT COUNT(*) FROM kv").await;
    v["resultTable"]["rows"][0][0] == json!(400)
        && v["numServersResponded"] == json!(2)
        && v["exceptions"].as_array().is_some_and(Vec::is_empty)
}

#[async_std::test]
async fn concurrent_queries_over_query_channels_get_their_own_answers() {
    let dir = tempfile::tempdir().unwrap();
    let a = cluster::start(options(&dir.path().join("a"), "controller,broker", None))
        .await
        .unwrap();
    let ctl = a.controller_url.clone().unwrap();
    let broker = a.broker_url.clone().unwrap();
    let mut servers: Vec<Cluster> = Vec::new();
    for name in ["s1", "s2"] {
        let s = cluster::start(options(&dir.path().join(name), "server", Some(&ctl)))
            .await
            .unwrap();
        servers.push(s);
    }
    eventually(
        "both servers to register with their query ports",
        async || {
            let (_, v) = call("GET", &format!("{ctl}/instances"), None).await;
            v["instances"].as_array().is_some_and(|i| i.len() == 4)
        },
    )
    .await;
    load(&ctl).await;
    eventually("both servers to serve kv", async || {
        both_servers_answer(&broker).await
    })
    .await;

    // Every query asks both servers; 300 at once share one channel per server. An answer
    // handed to the wrong query shows as another key's row.
    let tasks: Vec<_> = (0..300)
        .map(|i| {
            let broker = broker.clone();
            async_std::task::spawn(async move {
                let k = (i * 7) % 400;
                let v = sql(&broker, &format!("SELECT k, v FROM kv WHERE k = {k}")).await;
                (k, v)
            })
        })
        .collect();
    for t in tasks {
        let (k, v) = t.await;
        assert_eq!(v["exceptions"], json!([]), "k = {k}: {v}");
        assert_eq!(v["numServersResponded"], json!(2), "k = {k}: {v}");
        assert_eq!(
            v["resultTable"]["rows"],
            json!([[k, format!("v{k}")]]),
            "k = {k}"
        );
    }

    // A multi-stage join over both servers: stages are submitted through the servers' query
    // ports, blocks between them and to the broker's root go through query ports too.
    let v = sql(
        &broker,
        "SET useMultistageEngine=true; SELECT a.k, b.v FROM kv a JOIN kv b ON a.k = b.k \
         WHERE a.k IN (3, 250, 399) ORDER BY a.k",
    )
    .await;
    assert_eq!(v["exceptions"], json!([]), "{v}");
    assert_eq!(
        v["resultTable"]["rows"],
        json!([[3, "v3"], [250, "v250"], [399, "v399"]]),
        "{v}"
    );
    // The broker's port takes blocks, not a server's requests.
    let mut c = connect(a.query_port.unwrap(), &frames::hello(None)).await;
    c.write_all(&frames::encode(4, Kind::Cancel, &7u64.to_be_bytes()))
        .await
        .unwrap();
    let f = read(&mut c).await.unwrap();
    assert_eq!((f.id, f.kind), (4, Kind::Failure));
    assert_eq!(frames::read_failure(&f.payload).0, 404);

    // A server stopped and started again on the same ports and data: the broker's channel to
    // it ended with the old process, and the next queries open a new one.
    let old = servers.remove(0);
    let (port, query_port) = (
        old.server_url
            .as_ref()
            .unwrap()
            .rsplit(':')
            .next()
            .unwrap()
            .parse()
            .unwrap(),
        old.query_port.unwrap(),
    );
    old.stop().await;
    let mut opts = options(&dir.path().join("s1"), "server", Some(&ctl));
    opts.server_port = port;
    opts.query_port = query_port;
    servers.push(cluster::start(opts).await.unwrap());
    eventually("the restarted server to answer again", async || {
        both_servers_answer(&broker).await
    })
    .await;
    let v = sql(&broker, "SELECT v FROM kv WHERE k = 7").await;
    assert_eq!(v["resultTable"]["rows"], json!([["v7"]]), "{v}");

    for s in servers {
        s.stop().await;
    }
    a.stop().await;
}

async fn read(stream: &mut TcpStream) -> Result<Frame, FrameError> {
    async_std::io::timeout(Duration::from_secs(10), async {
        Ok(frames::read(stream, |_| 1 << 20).await)
    })
    .await
    .unwrap()
}

async fn connect(port: u16, hello: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    s.write_all(hello).await.unwrap();
    s
}

#[async_std::test]
async fn the_query_port_refuses_what_is_not_its_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let auth = Arc::new(
        Auth::parse(
            "controller.admin.access.control.principals=admin,reader
controller.admin.access.control.principals.admin.password=verysecret
controller.admin.access.control.principals.reader.password=secret
controller.admin.access.control.principals.reader.permissions=READ",
        )
        .unwrap(),
    );
    // A server alone (its controller is nowhere): the query port serves all the same.
    let mut opts = options(dir.path(), "server", Some("http://127.0.0.1:1"));
    opts.auth = Some(auth);
    let s = cluster::start(opts).await.unwrap();
    let port = s.query_port.unwrap();
    let admin = basic_token("admin", "verysecret");

    let failure = |r: Result<Frame, FrameError>| {
        let f = r.unwrap();
        assert_eq!(f.kind, Kind::Failure);
        (f.id, frames::read_failure(&f.payload))
    };
    // No credentials, wrong ones, a principal that may only read: refused, then closed.
    for (who, status) in [
        (None, 401),
        (Some(basic_token("admin", "wrong")), 401),
        (Some(basic_token("reader", "secret")), 403),
    ] {
        let mut c = connect(port, &frames::hello(who.as_deref())).await;
        assert_eq!(failure(read(&mut c).await).1.0, status, "{who:?}");
        assert!(matches!(read(&mut c).await, Err(FrameError::Closed)));
    }
    // Another protocol version, a query before the hello: refused, then closed.
    let next = frames::VERSION + 1;
    let mut other = frames::hello(Some(&admin));
    other[13..15].copy_from_slice(&next.to_be_bytes());
    let mut c = connect(port, &other).await;
    let (_, (status, message)) = failure(read(&mut c).await);
    assert_eq!(status, 400);
    assert!(message.contains(&format!("version {next}")), "{message}");
    let mut c = connect(port, &frames::encode(5, Kind::Query, b"x")).await;
    assert_eq!(failure(read(&mut c).await).1.0, 400);
    assert!(matches!(read(&mut c).await, Err(FrameError::Closed)));

    // After a good hello: an unreadable query fails under its own id and the channel goes on;
    // a frame that is not a query ends it; so do bytes that are no frame.
    let mut c = connect(port, &frames::hello(Some(&admin))).await;
    for id in [7u64, 8] {
        c.write_all(&frames::encode(id, Kind::Query, b"\xc1"))
            .await
            .unwrap();
        let (got, (status, message)) = failure(read(&mut c).await);
        assert_eq!((got, status), (id, 400));
        assert!(message.starts_with("Invalid server query"), "{message}");
    }
    // A query over the size limit (64 MiB) is read past and refused under its id; the
    // channel goes on.
    c.write_all(&frames::encode(10, Kind::Query, &vec![0u8; (64 << 20) + 1]))
        .await
        .unwrap();
    let (got, (status, message)) = failure(read(&mut c).await);
    assert_eq!((got, status), (10, 413), "{message}");
    c.write_all(&frames::encode(11, Kind::Query, b"\xc1"))
        .await
        .unwrap();
    assert_eq!(failure(read(&mut c).await).0, 11);
    c.write_all(&frames::encode(9, Kind::Answer, b""))
        .await
        .unwrap();
    assert_eq!(
        failure(read(&mut c).await),
        (9, (400, "Answer frame where a request was expected".into()))
    );
    assert!(matches!(read(&mut c).await, Err(FrameError::Closed)));
    let mut c = connect(port, &frames::hello(Some(&admin))).await;
    c.write_all(&[0, 0, 0, 2, 1, 1]).await.unwrap();
    assert_eq!(failure(read(&mut c).await).0, 0);
    assert!(matches!(read(&mut c).await, Err(FrameError::Closed)));

    // Stopped: an open channel ends and no new one opens. One request is answered on it first,
    // so the port has read the hello: a socket closed with its hello unread ends in a reset, not
    // a close (this raced under a loaded test run).
    let mut open = connect(port, &frames::hello(Some(&admin))).await;
    open.write_all(&frames::encode(12, Kind::Query, b"\xc1"))
        .await
        .unwrap();
    assert_eq!(failure(read(&mut open).await).0, 12);
    s.stop().await;
    assert!(matches!(read(&mut open).await, Err(FrameError::Closed)));
    assert!(TcpStream::connect(("127.0.0.1", port)).await.is_err());
}
