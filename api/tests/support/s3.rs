//! A real S3-compatible server for tests: moto's server mode, which the repo's test setup
//! installs from pinned PyPI packages (`scripts/get-moto.sh`) into `target/moto/venv`, or the
//! `moto_server` that `TESSERA_MOTO` names. It listens on 127.0.0.1 on a port it picks and is
//! killed, by its id, with the test.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::Proc;

/// The moto server, if the test setup installed it. Under CI its absence fails the test.
pub fn moto() -> Option<PathBuf> {
    let path = std::env::var_os("TESSERA_MOTO")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/moto/venv/bin/moto_server")
        });
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "no S3 server at {}: run scripts/get-moto.sh",
        path.display()
    );
    eprintln!(
        "skipped: no S3 server at {} (run scripts/get-moto.sh)",
        path.display()
    );
    None
}

/// A running S3 server.
pub struct S3 {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    _server: Proc,
}

impl S3 {
    /// Starts moto on a port it picks; with `authenticate`, every request must carry keys the
    /// server issued (none are: every key is refused).
    pub fn start(authenticate: bool) -> Option<S3> {
        let bin = moto()?;
        let mut cmd = Command::new(bin);
        cmd.args(["-H", "127.0.0.1", "-p", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if authenticate {
            cmd.env("INITIAL_NO_AUTH_ACTION_COUNT", "0");
        }
        let mut child = cmd.spawn().expect("start moto_server");
        let stderr = child.stderr.take().expect("moto stderr");
        let server = Proc(child);
        let mut lines = BufReader::new(stderr).lines();
        let endpoint = loop {
            let line = lines
                .next()
                .expect("moto_server ended before it listened")
                .expect("moto stderr");
            if let Some(at) = line.find("http://127.0.0.1:") {
                let url = &line[at..];
                let end = url
                    .char_indices()
                    .skip("http://127.0.0.1:".len())
                    .find(|(_, c)| !c.is_ascii_digit())
                    .map_or(url.len(), |(i, _)| i);
                break url[..end].to_string();
            }
        };
        // moto logs every request to stderr: keep the pipe drained.
        std::thread::spawn(move || for _ in lines {});
        Some(S3 {
            endpoint,
            _server: server,
        })
    }

    /// The `object_store` options that reach this server.
    pub fn options(&self) -> Vec<(String, String)> {
        vec![
            ("aws_endpoint".into(), self.endpoint.clone()),
            ("aws_allow_http".into(), "true".into()),
            ("aws_region".into(), "us-east-1".into()),
            ("aws_access_key_id".into(), "tessera".into()),
            ("aws_secret_access_key".into(), "tessera-secret".into()),
        ]
    }

    /// Creates a bucket (moto takes an unsigned request when it does not authenticate).
    pub async fn create_bucket(&self, bucket: &str) {
        let (status, body) = super::call("PUT", &format!("{}/{bucket}", self.endpoint), None).await;
        assert_eq!(status, 200, "create bucket {bucket}: {body}");
    }

    /// The keys under `prefix` in `bucket`, read with S3's own listing (not through Tessera).
    pub async fn keys(&self, bucket: &str, prefix: &str) -> Vec<String> {
        let url = format!("{}/{bucket}?list-type=2&prefix={prefix}", self.endpoint);
        let (status, body) = super::call("GET", &url, None).await;
        assert_eq!(status, 200, "list {bucket}/{prefix}: {body}");
        let xml = body.as_str().unwrap_or_default().to_string();
        xml.split("<Key>")
            .skip(1)
            .filter_map(|s| s.split_once("</Key>").map(|(k, _)| k.to_string()))
            .collect()
    }
}
