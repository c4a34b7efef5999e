//! `/loggers` end to end: runtime levels through the process logger, logger records and errors,
//! log-file listing and download (with every path-traversal form refused), and the controller's
//! remote endpoints against a second instance listening on port 0.

use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use tessera_api::common::loggers::{self, InstanceEndpoint, LoggerState, RemoteLoggerState};
use tessera_api::http::routes::Routes;
use tessera_api::http::{ErrorStyle, new_app};
use tessera_api::logging::{self, LevelFilter, LogConfig, LoggingHandle};
use tide::http::{Method, Url};
use tide::listener::Listener;

#[derive(Clone)]
struct Local {
    logging: LoggingHandle,
}

impl LoggerState for Local {
    fn logging(&self) -> &LoggingHandle {
        &self.logging
    }
}

#[derive(Clone)]
struct Controller {
    logging: LoggingHandle,
    instances: Vec<InstanceEndpoint>,
}

impl LoggerState for Controller {
    fn logging(&self) -> &LoggingHandle {
        &self.logging
    }
}

impl RemoteLoggerState for Controller {
    fn instances(&self) -> Vec<InstanceEndpoint> {
        self.instances.clone()
    }
    fn remote_timeout(&self) -> Duration {
        Duration::from_secs(3)
    }
}

fn local_app(logging: LoggingHandle, style: ErrorStyle) -> tide::Server<Local> {
    let mut app = new_app(Local { logging }, style);
    loggers::routes(&mut Routes::new(&mut app));
    app
}

fn standalone(dir: &Path, instance: &str) -> LoggingHandle {
    LoggingHandle::standalone(LogConfig {
        stderr: false,
        ..LogConfig::new(dir, instance)
    })
    .expect("standalone logging")
}

struct Reply {
    status: u16,
    content_type: Option<String>,
    disposition: Option<String>,
    header: Option<String>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

async fn call<S: Clone + Send + Sync + 'static>(
    app: &tide::Server<S>,
    method: Method,
    path: &str,
    accept: Option<&str>,
) -> Reply {
    let url = Url::parse(&format!("http://t{path}")).expect("url");
    let mut req = tide::http::Request::new(method, url);
    if let Some(accept) = accept {
        req.insert_header("accept", accept);
    }
    let mut res: tide::http::Response = app.respond(req).await.expect("respond");
    let header = |name: &str| res.header(name).map(|v| v.as_str().to_string());
    let (content_type, disposition, header) = (
        header("content-type"),
        header("content-disposition"),
        header(loggers::FAILED_INSTANCES_HEADER),
    );
    let body = res.body_bytes().await.expect("body");
    Reply {
        status: res.status() as u16,
        content_type,
        disposition,
        header,
        body,
    }
}

async fn get<S: Clone + Send + Sync + 'static>(app: &tide::Server<S>, path: &str) -> Reply {
    call(app, Method::Get, path, None).await
}

/// Deterministic, non-text bytes so a byte-identical download means something.
fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8)
        .collect()
}

#[async_std::test]
async fn levels_change_at_runtime_through_the_process_logger() {
    let handle = logging::init_for_tests().expect("init");
    assert_eq!(
        logging::init_for_tests().expect("again").log_dir(),
        handle.log_dir(),
        "one logger per process"
    );
    let file = handle.log_dir().join("test.log");
    let app = local_app(handle.clone(), ErrorStyle::CodeError);
    let read = || std::fs::read_to_string(&file).unwrap_or_default();

    log::debug!(target: "tessera_api::broker::query", "marker-before");
    log::info!(target: "tessera_api::broker::query", "marker-info");
    assert!(!read().contains("marker-before"));
    assert!(
        read().contains("INFO  [test] tessera::broker::query - marker-info"),
        "{}",
        read()
    );

    let put = call(
        &app,
        Method::Put,
        "/loggers/tessera::broker?level=DEBUG",
        None,
    )
    .await;
    assert_eq!(put.status, 200);
    assert_eq!(
        put.json(),
        json!({"name": "tessera::broker", "level": "DEBUG", "filter": null})
    );
    assert!(
        log::max_level() >= LevelFilter::Debug,
        "max level follows the most verbose logger"
    );
    log::debug!(target: "tessera_api::broker::query", "marker-during");
    log::debug!(target: "tessera_api::server::query", "marker-sibling");
    assert!(
        read().contains("DEBUG [test] tessera::broker::query - marker-during"),
        "{}",
        read()
    );
    assert!(
        !read().contains("marker-sibling"),
        "only tessera::broker's subtree changed"
    );

    let put = call(
        &app,
        Method::Put,
        "/loggers/tessera.broker?level=info",
        None,
    )
    .await;
    assert_eq!(
        put.json(),
        json!({"name": "tessera::broker", "level": "INFO", "filter": null})
    );
    assert_eq!(
        log::max_level(),
        LevelFilter::Info,
        "disabled levels are cut at the facade again"
    );
    log::debug!(target: "tessera_api::broker::query", "marker-after");
    assert!(!read().contains("marker-after"));

    let names = get(&app, "/loggers").await.json();
    let names: Vec<&str> = names
        .as_array()
        .expect("array")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(names.first(), Some(&"root"));
    for expected in ["tessera", "tessera::broker", "tessera::broker::query"] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let files = get(&app, "/loggers/files").await.json();
    assert!(
        files
            .as_array()
            .expect("array")
            .contains(&json!("test.log"))
    );
}

#[async_std::test]
async fn logger_records_and_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = local_app(standalone(dir.path(), "Broker_1"), ErrorStyle::CodeError);

    let root = get(&app, "/loggers/root").await;
    assert_eq!(
        (root.status, root.json()),
        (
            200,
            json!({"name": "root", "level": "INFO", "filter": null})
        )
    );
    let missing = get(&app, "/loggers/nope").await;
    assert_eq!(
        (missing.status, missing.json()),
        (404, json!({"code": 404, "error": "Logger nope not found"}))
    );

    let bad = call(&app, Method::Put, "/loggers/root?level=LOUD", None).await;
    assert_eq!(
        (bad.status, bad.json()),
        (
            400,
            json!({"code": 400, "error": "Unrecognized logger level - LOUD"})
        )
    );
    let none = call(&app, Method::Put, "/loggers/root", None).await;
    assert_eq!(
        (none.status, none.json()),
        (
            400,
            json!({"code": 400, "error": "Unrecognized logger level - "})
        )
    );
    let unknown = call(&app, Method::Put, "/loggers/foo.bar?level=DEBUG", None).await;
    assert_eq!(
        (unknown.status, unknown.json()),
        (
            404,
            json!({"code": 404, "error": "Logger foo.bar not found"})
        )
    );

    let fatal = call(
        &app,
        Method::Put,
        "/loggers/tessera.server?level=fatal",
        None,
    )
    .await;
    assert_eq!(
        fatal.json(),
        json!({"name": "tessera::server", "level": "ERROR", "filter": null})
    );
    let all = call(
        &app,
        Method::Put,
        "/loggers/tessera%3A%3Aserver?level=All",
        Some("application/json"),
    )
    .await;
    assert_eq!(
        all.json(),
        json!({"name": "tessera::server", "level": "TRACE", "filter": null})
    );
    let inherited = get(&app, "/loggers/tessera").await;
    assert_eq!(
        inherited.json()["level"],
        "INFO",
        "an ancestor keeps root's level"
    );
    let names = get(&app, "/loggers").await.json();
    // `tessera::logging` was seen logging the level changes.
    assert_eq!(
        names,
        json!(["root", "tessera", "tessera::logging", "tessera::server"])
    );

    let refused = call(&app, Method::Get, "/loggers", Some("text/plain")).await;
    assert_eq!(refused.status, 406);
    let browser = call(&app, Method::Get, "/loggers", Some("text/html,*/*;q=0.8")).await;
    assert_eq!(browser.status, 200);
    // The static segment wins over `/loggers/:loggerName`.
    assert_eq!(
        get(&app, "/loggers/files").await.json(),
        json!(["Broker_1.log"])
    );
}

/// `<parent>/logs` is the log dir; `<parent>/secret.txt` must never be served.
fn traversal_fixture() -> (tempfile::TempDir, LoggingHandle, Vec<u8>) {
    let parent = tempfile::tempdir().expect("tempdir");
    let logs = parent.path().join("logs");
    let handle = standalone(&logs, "Server_1");
    std::fs::write(parent.path().join("secret.txt"), b"TOP-SECRET").expect("write");
    let big = pattern(1 << 20);
    std::fs::write(logs.join("a.log"), &big).expect("write");
    std::fs::create_dir_all(logs.join("sub/dir")).expect("mkdir");
    std::fs::write(logs.join("sub/dir/nested.log"), b"nested\n").expect("write");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(parent.path().join("secret.txt"), logs.join("link.log"))
            .expect("symlink");
        std::os::unix::fs::symlink(parent.path(), logs.join("linkdir")).expect("symlink");
    }
    (parent, handle, big)
}

#[async_std::test]
async fn files_are_listed_and_downloaded_byte_identical() {
    let (_parent, handle, big) = traversal_fixture();
    let app = local_app(handle, ErrorStyle::CodeError);
    let files = get(&app, "/loggers/files").await;
    assert_eq!(
        files.json(),
        json!(["Server_1.log", "a.log", "sub/dir/nested.log"])
    );

    let a = call(
        &app,
        Method::Get,
        "/loggers/download?filePath=a.log",
        Some("application/octet_string"),
    )
    .await;
    assert_eq!(a.status, 200);
    assert!(a.body == big, "download differs from the file");
    assert_eq!(a.content_type.as_deref(), Some("application/octet-stream"));
    assert_eq!(a.disposition.as_deref(), Some("attachment; filename=a.log"));
    let nested = get(&app, "/loggers/download?filePath=sub%2Fdir%2Fnested.log").await;
    assert_eq!(
        (nested.status, nested.body.as_slice()),
        (200, b"nested\n".as_slice())
    );
    assert_eq!(
        nested.disposition.as_deref(),
        Some("attachment; filename=nested.log")
    );
    let missing = get(&app, "/loggers/download").await;
    assert_eq!(missing.status, 400);
}

#[async_std::test]
async fn every_traversal_form_is_403() {
    let (parent, handle, _) = traversal_fixture();
    let app = local_app(handle, ErrorStyle::CodeError);
    let absolute = parent.path().join("secret.txt").display().to_string();
    let cases = [
        ("../secret.txt", "../secret.txt"),
        ("%2e%2e/secret.txt", "../secret.txt"),
        ("%2E%2E%2Fsecret.txt", "../secret.txt"),
        ("..%2fsecret.txt", "../secret.txt"),
        ("%252e%252e/secret.txt", "%2e%2e/secret.txt"),
        ("sub/../../secret.txt", "sub/../../secret.txt"),
        ("sub/dir/../../a.log", "sub/dir/../../a.log"),
        ("./a.log", "./a.log"),
        ("/etc/passwd", "/etc/passwd"),
        (absolute.as_str(), absolute.as_str()),
        ("link.log", "link.log"),
        ("linkdir/secret.txt", "linkdir/secret.txt"),
        ("sub", "sub"),
        ("", ""),
    ];
    for (query, decoded) in cases {
        let reply = get(&app, &format!("/loggers/download?filePath={query}")).await;
        assert_eq!(reply.status, 403, "{query}");
        assert_eq!(
            reply.json(),
            json!({"code": 403, "error": format!("Invalid file path: {decoded}")}),
            "{query}"
        );
        assert!(
            !String::from_utf8_lossy(&reply.body).contains("TOP-SECRET"),
            "{query}"
        );
    }
}

/// Serves `app` on 127.0.0.1:0; returns the base URL and the accept task.
async fn serve(
    app: tide::Server<Local>,
) -> (String, async_std::task::JoinHandle<std::io::Result<()>>) {
    let mut listener = app.bind("127.0.0.1:0").await.expect("bind");
    let base = listener.info()[0].connection().to_string();
    let task = async_std::task::spawn(async move { listener.accept().await });
    (base, task)
}

fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}")
}

#[async_std::test]
async fn controller_serves_other_instances_logs() {
    let (_parent, server_logging, big) = traversal_fixture();
    let server_files = server_logging.list_files().expect("list");
    // The remote instance is a server: its errors are `{"message","status"}`.
    let (base, task) = serve(local_app(server_logging, ErrorStyle::MessageStatus)).await;

    let controller_dir = tempfile::tempdir().expect("tempdir");
    let instance = |name: &str, base_url: &str, online: bool| InstanceEndpoint {
        name: name.to_string(),
        base_url: base_url.to_string(),
        online,
    };
    let state = Controller {
        logging: standalone(controller_dir.path(), "Controller_1"),
        instances: vec![
            instance("Server_1", &base, true),
            instance("Broker_down", &closed_port_url(), true),
            instance("Server_off", "http://127.0.0.1:9", false),
        ],
    };
    let mut app = new_app(state, ErrorStyle::CodeError);
    let mut r = Routes::new(&mut app);
    loggers::routes(&mut r);
    loggers::remote_routes(&mut r);

    let all = get(&app, "/loggers/instances").await;
    assert_eq!(all.status, 200);
    assert_eq!(all.json(), json!({"Server_1": server_files}));
    assert_eq!(all.header.as_deref(), Some("Broker_down"));

    let one = call(
        &app,
        Method::Get,
        "/loggers/instances/Server_1",
        Some("application/json"),
    )
    .await;
    assert_eq!((one.status, one.json()), (200, json!(server_files)));
    let unknown = get(&app, "/loggers/instances/nope").await;
    assert_eq!(
        (unknown.status, unknown.json()),
        (
            404,
            json!({"code": 404, "error": "Instance nope not found"})
        )
    );
    for down in ["Broker_down", "Server_off"] {
        let reply = get(&app, &format!("/loggers/instances/{down}")).await;
        assert_eq!(reply.status, 503, "{down}");
        assert!(
            reply.json()["error"]
                .as_str()
                .is_some_and(|e| e.contains(down)),
            "{down}"
        );
    }

    // An instance's loggers, through the controller: its list, one level read and set.
    // (A logger of its own, so the process-wide root level other tests read never changes.)
    let loggers = get(&app, "/loggers/instances/Server_1/loggers").await;
    assert_eq!(loggers.status, 200);
    assert_eq!(loggers.json()[0], "root");
    let set = call(
        &app,
        Method::Put,
        "/loggers/instances/Server_1/loggers/tessera::remote_proxy_test?level=WARN",
        None,
    )
    .await;
    assert_eq!((set.status, &set.json()["level"]), (200, &json!("WARN")));
    let read = get(
        &app,
        "/loggers/instances/Server_1/loggers/tessera::remote_proxy_test",
    )
    .await;
    assert_eq!(read.json()["level"], "WARN");
    let bad = call(
        &app,
        Method::Put,
        "/loggers/instances/Server_1/loggers/root?level=LOUD",
        None,
    )
    .await;
    assert_eq!(bad.status, 400);
    assert_eq!(
        get(&app, "/loggers/instances/nope/loggers").await.status,
        404
    );
    assert_eq!(
        get(&app, "/loggers/instances/Server_off/loggers")
            .await
            .status,
        503
    );

    let file = get(&app, "/loggers/instances/Server_1/download?filePath=a.log").await;
    assert_eq!(file.status, 200);
    assert!(file.body == big, "remote download differs from the file");
    assert_eq!(
        file.content_type.as_deref(),
        Some("application/octet-stream")
    );
    assert_eq!(
        file.disposition.as_deref(),
        Some("attachment; filename=a.log")
    );
    let nested = get(
        &app,
        "/loggers/instances/Server_1/download?filePath=sub/dir/nested.log",
    )
    .await;
    assert_eq!(nested.body, b"nested\n");

    let traversal = get(
        &app,
        "/loggers/instances/Server_1/download?filePath=%2e%2e/secret.txt",
    )
    .await;
    assert_eq!(
        (traversal.status, traversal.json()),
        (
            403,
            json!({"code": 403, "error": "Invalid file path: ../secret.txt"})
        )
    );
    let down = get(
        &app,
        "/loggers/instances/Broker_down/download?filePath=a.log",
    )
    .await;
    assert_eq!(down.status, 503);
    let unknown = get(&app, "/loggers/instances/nope/download?filePath=a.log").await;
    assert_eq!(unknown.status, 404);
    // The controller's own files stay on the local endpoint.
    assert_eq!(
        get(&app, "/loggers/files").await.json(),
        json!(["Controller_1.log"])
    );
    task.cancel().await;
}
