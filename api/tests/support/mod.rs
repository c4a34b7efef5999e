//! What the process-level tests share: `tessera start` children that die with the test, free
//! ports, and a small HTTP helper.

#![allow(dead_code)] // each test file uses what it needs

pub mod certs;
pub mod history;
pub mod hosts;
pub mod kafka;
pub mod netns;
pub mod proxy;
pub mod realtime;
pub mod s3;
pub mod tls_proxy;
pub mod zookeeper;

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use tessera_api::http::http_client;

/// A child process killed when dropped.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `tessera start <args>` and returns it with the URL each of its roles printed (one
/// `role url` line per role in `--roles`, all three by default).
pub fn start(args: &[&str]) -> (Proc, BTreeMap<String, String>) {
    start_with_env(args, &[])
}

/// [`start`] with environment variables set for the child.
pub fn start_with_env(args: &[&str], env: &[(String, String)]) -> (Proc, BTreeMap<String, String>) {
    try_start_with_env(args, env).unwrap_or_else(|why| panic!("{why}"))
}

/// [`start`], or why the process did not print its URLs (it exited: a port taken, say).
pub fn try_start(args: &[&str]) -> Result<(Proc, BTreeMap<String, String>), String> {
    try_start_with_env(args, &[])
}

fn try_start_with_env(
    args: &[&str],
    env: &[(String, String)],
) -> Result<(Proc, BTreeMap<String, String>), String> {
    let roles = args
        .iter()
        .position(|a| *a == "--roles")
        .and_then(|i| args.get(i + 1))
        .map_or(3, |r| r.split(',').count());
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("start")
        .args(args)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    // The last lines the child wrote to stderr, drained all along (a full pipe would stop it),
    // for the message if it ends before printing its URLs.
    let stderr_tail = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    if let Some(stderr) = child.stderr.take() {
        let tail = stderr_tail.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == 20 {
                    t.remove(0);
                }
                t.push(line);
            }
        });
    }
    let mut proc = Proc(child);
    let mut urls = BTreeMap::new();
    for line in BufReader::new(stdout).lines().take(roles) {
        let Ok(line) = line else { break };
        if let Some((role, url)) = line.split_once(' ') {
            urls.insert(role.to_string(), url.to_string());
        }
    }
    if urls.len() != roles {
        let status = proc.0.wait().map(|s| s.to_string()).unwrap_or_default();
        // The drain thread reads to the end of the pipe once the child is gone.
        std::thread::sleep(std::time::Duration::from_millis(200));
        let tail = stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .join("\n");
        return Err(format!(
            "tessera start {args:?} printed {urls:?} and ended: {status}; stderr:\n{tail}"
        ));
    }
    Ok((proc, urls))
}

/// Ports handed out below Linux's ephemeral range (32768–60999 by default): a port a test
/// passes to a server — and binds again after killing it — is never given meanwhile to a
/// `bind(0)` listener or an outgoing connection, of this test or a test beside it.
const FIXED_PORTS: std::ops::Range<u16> = 20_000..32_000;

/// A port nothing listens on right now, outside the ephemeral range ([`FIXED_PORTS`]).
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let span = u32::from(FIXED_PORTS.end - FIXED_PORTS.start);
    // Each process starts at its own offset, so tests in parallel processes rarely try the same.
    let start = std::process::id().wrapping_mul(7919) % span;
    loop {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        assert!(n < span, "no free port in {FIXED_PORTS:?}");
        let port = FIXED_PORTS.start + ((start + n * 97) % span) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// `method url` with an optional `(body, content type)`: the status and the body as JSON (or as
/// a JSON string); status 0 when nothing answered.
pub async fn call(method: &str, url: &str, body: Option<(Vec<u8>, String)>) -> (u16, Value) {
    let client = http_client();
    let mut req = match method {
        "GET" => client.get(url),
        "PUT" => client.put(url),
        "DELETE" => client.delete(url),
        _ => client.post(url),
    };
    if let Some((b, ct)) = body {
        req = req.body(b).content_type(ct.as_str());
    }
    match req.await {
        Ok(mut res) => {
            let text = res.body_string().await.unwrap_or_default();
            (
                res.status().into(),
                serde_json::from_str(&text).unwrap_or(Value::String(text)),
            )
        }
        Err(e) => (0, Value::String(e.to_string())),
    }
}

/// Waits (at most 20 s) until the controller at `ctl` lists `n` servers.
pub async fn wait_for_servers(ctl: &str, n: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let (_, i) = call("GET", &format!("{ctl}/instances"), None).await;
        let servers = i["instances"].as_array().map_or(0, |l| {
            l.iter()
                .filter(|n| n.as_str().is_some_and(|n| n.starts_with("Server_")))
                .count()
        });
        if servers == n {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{n} servers did not register: {i}"
        );
        async_std::task::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// A JSON request body.
pub fn json_body(v: Value) -> Option<(Vec<u8>, String)> {
    Some((v.to_string().into_bytes(), "application/json".into()))
}

/// A generated `lineitem` segment named `name` with `docs` rows, packed for upload (built under
/// `root`).
pub fn lineitem_segment(root: &std::path::Path, name: &str, docs: u64) -> Vec<u8> {
    use tessera_api::quickstart::lineitem;
    let work = root.join(format!("build-{name}"));
    let schema = segments::types::Schema::from_json(&lineitem::schema().to_string()).unwrap();
    let config = segments::BuildConfig::from_table_config_json(
        &lineitem::table_config(),
        &schema,
        Some(name),
    )
    .unwrap();
    segments::build_segment_from_rows(
        &schema,
        &config,
        lineitem::rows(docs, docs as usize).map(Ok),
        &work,
    )
    .unwrap();
    tessera_api::common::archive::pack(&work.join(name)).unwrap()
}

/// Uploads a segment archive to the controller at `ctl` for `table` (`POST /segments`, as
/// Pinot's upload): the status and body.
pub async fn upload_segment(ctl: &str, table: &str, name: &str, archive: &[u8]) -> (u16, Value) {
    let (ct, body) =
        tessera_api::http::multipart::encode_file(name, &format!("{name}.tar.gz"), archive);
    call(
        "POST",
        &format!("{ctl}/segments?tableName={table}"),
        Some((body, ct)),
    )
    .await
}

/// `POST url` with a JSON body: the status and the body.
pub async fn post_json(url: &str, v: Value) -> (u16, Value) {
    call(
        "POST",
        url,
        Some((v.to_string().into_bytes(), "application/json".into())),
    )
    .await
}
