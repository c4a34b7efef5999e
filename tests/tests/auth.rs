//! Pinot's basic auth on a real two-process-shaped cluster: a controller, broker and server in
//! one cluster and a second server joined to it over HTTP, all started with the same auth config.
//! No credentials → 401 on every role (public paths excepted); a read-only, one-table principal
//! reads its table and gets 403 for writes and for queries of other tables (through the broker and
//! through the controller's `POST /sql`, which forwards the caller's credentials); the roles talk
//! to each other with the internal credentials (heartbeats, segment loading, multi-stage exchanges
//! across the two servers, the controller's `/loggers/instances`).

use api::auth::{Auth, basic_token};
use api::cluster::{self, Roles, StartOptions};
use api::http::multipart;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const CONFIG: &str = "
controller.admin.access.control.principals=admin,reader
controller.admin.access.control.principals.admin.password=verysecret
controller.admin.access.control.principals.reader.password=secret
controller.admin.access.control.principals.reader.permissions=READ
controller.admin.access.control.principals.reader.tables=open
";

async fn call(
    method: &str,
    url: &str,
    auth: Option<(&str, &str)>,
    body: Option<(Vec<u8>, &str)>,
) -> (u16, Value, Option<String>) {
    let client = api::http::http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "POST" => client.post(url),
        "PUT" => client.put(url),
        "DELETE" => client.delete(url),
        other => panic!("method {other}"),
    };
    if let Some((user, password)) = auth {
        req = req.header("Authorization", basic_token(user, password));
    }
    if let Some((b, ct)) = body {
        req = req.body(b).content_type(ct);
    }
    let mut res = req.await.unwrap();
    let challenge = res
        .header("WWW-Authenticate")
        .map(|h| h.last().as_str().to_string());
    let text = res.body_string().await.unwrap();
    (
        res.status().into(),
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
        challenge,
    )
}

fn json_body(v: Value) -> Option<(Vec<u8>, &'static str)> {
    Some((v.to_string().into_bytes(), "application/json"))
}

const ADMIN: Option<(&str, &str)> = Some(("admin", "verysecret"));
const READER: Option<(&str, &str)> = Some(("reader", "secret"));

async fn create_table(ctl: &str, name: &str) {
    let schema = json!({"schemaName": name,
        "dimensionFieldSpecs": [{"name": "k", "dataType": "INT"}, {"name": "s", "dataType": "STRING"}]});
    let (s, b, _) = call("POST", &format!("{ctl}/schemas"), ADMIN, json_body(schema)).await;
    assert_eq!(s, 200, "{b}");
    let table = json!({"tableName": name, "tableType": "OFFLINE",
        "segmentsConfig": {"replication": "1"}, "tenants": {}, "tableIndexConfig": {}});
    let (s, b, _) = call("POST", &format!("{ctl}/tables"), ADMIN, json_body(table)).await;
    assert_eq!(s, 200, "{b}");
    // Two segments, so both servers may hold one.
    for part in 0..2 {
        let rows: String = (0..10)
            .map(|i| format!("{{\"k\": {}, \"s\": \"v{i}\"}}\n", part * 10 + i))
            .collect();
        let (ct, body) = multipart::encode_file("file", "rows.json", rows.as_bytes());
        let url = format!(
            "{ctl}/ingestFromFile?tableNameWithType={name}_OFFLINE&batchConfigMapStr=%7B%22inputFormat%22%3A%22json%22%2C%22segmentNameGenerator.configs.segment.name.postfix%22%3A%22{part}%22%7D"
        );
        let (s, b, _) = call("POST", &url, ADMIN, Some((body, &ct))).await;
        assert_eq!(s, 200, "{b}");
    }
}

async fn query(
    base: &str,
    path: &str,
    who: Option<(&str, &str)>,
    sql: &str,
    v2: bool,
) -> (u16, Value) {
    let mut body = json!({ "sql": sql });
    if v2 {
        body["queryOptions"] = json!("useMultistageEngine=true");
    }
    let (s, b, _) = call("POST", &format!("{base}{path}"), who, json_body(body)).await;
    (s, b)
}

#[async_std::test]
async fn basic_auth_on_every_role() {
    let dir = tempfile::tempdir().unwrap();
    let auth = Arc::new(Auth::parse(CONFIG).unwrap());
    let mut opts = StartOptions::ephemeral(dir.path().join("a"));
    opts.auth = Some(auth.clone());
    let a = cluster::start(opts).await.unwrap();
    let ctl = a.controller_url.clone().unwrap();
    let broker = a.broker_url.clone().unwrap();
    let mut opts = StartOptions::ephemeral(dir.path().join("b"));
    opts.auth = Some(auth);
    opts.roles = Roles::parse("server").unwrap();
    opts.controller_url = Some(ctl.clone());
    let b = cluster::start(opts).await.unwrap();
    let server_b = b.server_url.clone().unwrap();

    // No or wrong credentials: 401 with a Basic challenge, on every role; /health is public.
    for url in [
        format!("{ctl}/tables"),
        format!("{broker}/loggers"),
        format!("{server_b}/tables"),
        format!("{ctl}/loggers"),
    ] {
        let (s, body, challenge) = call("GET", &url, None, None).await;
        assert_eq!(s, 401, "{url}: {body}");
        assert!(challenge.is_some_and(|c| c.starts_with("Basic")), "{url}");
        let (s, _, _) = call("GET", &url, Some(("admin", "wrong")), None).await;
        assert_eq!(s, 401, "{url}");
    }
    let (s, body, _) = call("GET", &format!("{ctl}/tables"), None, None).await;
    assert_eq!(
        body,
        json!({"code": 401, "error": "HTTP 401 Unauthorized"}),
        "{s}"
    );
    assert_eq!(
        call("GET", &format!("{ctl}/health"), None, None).await.0,
        200
    );
    // The console's login endpoints answer anyone.
    let (s, body, _) = call("GET", &format!("{ctl}/auth/info"), None, None).await;
    assert_eq!((s, body), (200, json!({"workflow": "BASIC"})));
    let verify = |who, q: &str| {
        let url = format!("{ctl}/auth/verify{q}");
        async move { call("GET", &url, who, None).await.1 }
    };
    assert_eq!(verify(None, "/v2").await, json!(false));
    assert_eq!(verify(READER, "/v2").await, json!(true));
    assert_eq!(verify(READER, "?tableName=open").await, json!(true));
    assert_eq!(verify(READER, "?tableName=closed").await, json!(false));
    assert_eq!(
        verify(READER, "?tableName=open&accessType=UPDATE").await,
        json!(false)
    );
    let (s, body) = query(&broker, "/query/sql", None, "SELECT 1", false).await;
    assert_eq!(s, 401, "{body}");

    // The second server registered with the internal credentials.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, i, _) = call("GET", &format!("{ctl}/instances"), ADMIN, None).await;
        let servers = i["instances"].as_array().map_or(0, |l| {
            l.iter()
                .filter(|n| n.as_str().is_some_and(|n| n.starts_with("Server_")))
                .count()
        });
        if servers == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "second server did not register: {i}"
        );
        async_std::task::sleep(Duration::from_millis(50)).await;
    }
    create_table(&ctl, "open").await;
    create_table(&ctl, "closed").await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, b) = query(
            &broker,
            "/query/sql",
            ADMIN,
            "SELECT COUNT(*) FROM closed",
            false,
        )
        .await;
        if b["resultTable"]["rows"] == json!([[20]]) {
            break;
        }
        assert!(Instant::now() < deadline, "rows never loaded: {b}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }

    // The reader: reads its table, nothing else, writes nothing.
    let (s, body, _) = call("GET", &format!("{ctl}/tables/open"), READER, None).await;
    assert_eq!(s, 200, "{body}");
    let (s, body, _) = call("GET", &format!("{ctl}/tables/closed"), READER, None).await;
    assert_eq!(s, 403, "{body}");
    let (s, body, _) = call("DELETE", &format!("{ctl}/tables/open"), READER, None).await;
    assert_eq!(
        body,
        json!({"code": 403, "error": "Permission is denied for DELETE '/tables/open' for table 'open'"}),
        "{s}"
    );
    let (s, _, _) = call("GET", &format!("{ctl}/tables/open"), ADMIN, None).await;
    assert_eq!(s, 200, "the rejected delete changed nothing");
    let (s, body) = query(
        &broker,
        "/query/sql",
        READER,
        "SELECT COUNT(*) FROM open",
        false,
    )
    .await;
    assert_eq!(
        (s, &body["resultTable"]["rows"]),
        (200, &json!([[20]])),
        "{body}"
    );
    let (s, body) = query(
        &broker,
        "/query/sql",
        READER,
        "SELECT COUNT(*) FROM closed",
        false,
    )
    .await;
    assert_eq!(
        (s, body),
        (
            403,
            json!({"code": 403, "error": "Permission denied.Reason: Authorization Failed for tables: [closed]"})
        )
    );
    // v2: every table of a join is checked.
    let join = "SELECT COUNT(*) FROM open o JOIN closed c ON o.k = c.k";
    let (s, body) = query(&broker, "/query/sql", READER, join, true).await;
    assert_eq!(s, 403, "{body}");
    // Through the controller: the broker sees the caller's credentials, not the controller's.
    let (s, body) = query(&ctl, "/sql", READER, "SELECT COUNT(*) FROM closed", false).await;
    assert_eq!(s, 403, "{body}");
    let (s, body) = query(&ctl, "/sql", READER, "SELECT COUNT(*) FROM open", false).await;
    assert_eq!(
        (s, &body["resultTable"]["rows"]),
        (200, &json!([[20]])),
        "{body}"
    );

    // The admin: a multi-stage join whose stages exchange rows across both servers.
    let (s, body) = query(&broker, "/query/sql", ADMIN, join, true).await;
    assert_eq!(
        (s, &body["resultTable"]["rows"]),
        (200, &json!([[20]])),
        "{body}"
    );
    // The controller lists every instance's log files with the caller's credentials.
    let (s, body, _) = call("GET", &format!("{ctl}/loggers/instances"), ADMIN, None).await;
    assert_eq!(s, 200, "{body}");
    let id = b.server_id.clone().unwrap();
    assert!(body.get(&id).is_some(), "{id} missing: {body}");
    b.stop().await;
    a.stop().await;
}
