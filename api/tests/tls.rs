//! TLS on every port, with certificates made here (rcgen: a CA and a certificate for 127.0.0.1
//! it signs): a controller+broker+server in this process and a second server as its own
//! process, all started with `--tls-cert-file`/`--tls-key-file`/`--tls-ca-file`. Every role
//! answers over HTTPS; segments reach both servers; single- and multi-stage queries cross the
//! servers' query ports (TLS too) and answer every row; plain HTTP to a TLS port gets no HTTP
//! answer; a client that does not trust the CA is refused at the handshake.
//!
//! TLS is a process's setting, so this file is a test binary of its own.

mod support;

use serde_json::json;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::{call, lineitem_segment, post_json, upload_segment};
use tessera_api::cluster::{self, StartOptions};
use tessera_api::quickstart::lineitem;
use tessera_api::tls::TlsFiles;

/// Writes a CA and a certificate for 127.0.0.1 and localhost signed by it; returns the files.
fn certificates(dir: &Path) -> TlsFiles {
    let (ca, cert, key) =
        support::certs::ca_and_leaf("Tessera test CA", &["127.0.0.1", "localhost"]);
    let write = |name: &str, text: String| -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    TlsFiles {
        cert: write("cert.pem", cert),
        key: write("key.pem", key),
        ca: Some(write("ca.pem", ca)),
    }
}

async fn count(broker: &str, multistage: bool) -> serde_json::Value {
    let (_, b) = post_json(
        &format!("{broker}/query/sql"),
        json!({"sql": "SELECT COUNT(*) FROM lineitem",
               "queryOptions": format!("useMultistageEngine={multistage}")}),
    )
    .await;
    b
}

#[async_std::test]
async fn every_port_speaks_tls() {
    let dir = tempfile::tempdir().unwrap();
    let files = certificates(dir.path());
    let mut opts = StartOptions::ephemeral(dir.path().join("a"));
    opts.tls = Some(files.clone());
    opts.logging = Some(tessera_api::logging::init_for_tests().unwrap());
    let c = cluster::start(opts).await.unwrap();
    let (ctl, broker, server) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
        c.server_url.clone().unwrap(),
    );
    for url in [&ctl, &broker, &server] {
        assert!(url.starts_with("https://127.0.0.1:"), "{url}");
        let (s, b) = call("GET", &format!("{url}/health"), None).await;
        assert_eq!(s, 200, "{url}: {b}");
    }
    // A second server, a process of its own, joins over HTTPS.
    let data = dir.path().join("b");
    let (server_b, urls) = support::start(&[
        "--roles",
        "server",
        "--controller-url",
        &ctl,
        "--data-dir",
        data.to_str().unwrap(),
        "--server-port",
        "0",
        "--heartbeat-ms",
        "100",
        "--no-log-stderr",
        "--tls-cert-file",
        files.cert.to_str().unwrap(),
        "--tls-key-file",
        files.key.to_str().unwrap(),
        "--tls-ca-file",
        files.ca.as_ref().unwrap().to_str().unwrap(),
    ]);
    assert!(urls["server"].starts_with("https://"), "{urls:?}");
    support::wait_for_servers(&ctl, 2).await;

    // Segments over HTTPS, spread over both servers; queries cross their query ports.
    assert_eq!(
        post_json(&format!("{ctl}/schemas"), lineitem::schema())
            .await
            .0,
        200
    );
    assert_eq!(
        post_json(&format!("{ctl}/tables"), lineitem::table_config())
            .await
            .0,
        200
    );
    let work = dir.path().join("work");
    for (i, docs) in [(0, 1000u64), (1, 700), (2, 300)] {
        let name = format!("lineitem_{i}");
        let (s, b) = upload_segment(
            &ctl,
            "lineitem",
            &name,
            &lineitem_segment(&work, &name, docs),
        )
        .await;
        assert_eq!(s, 200, "{b}");
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v1 = count(&broker, false).await;
        let v2 = count(&broker, true).await;
        if v1["resultTable"]["rows"][0][0] == 2000
            && v2["resultTable"]["rows"][0][0] == 2000
            && v1["numServersQueried"] == 2
        {
            break;
        }
        assert!(Instant::now() < deadline, "v1 {v1}\nv2 {v2}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }

    // Plain HTTP to a TLS port gets no HTTP answer.
    for url in [&ctl, &broker, &server, &urls["server"]] {
        let addr = url.trim_start_matches("https://").to_string();
        let answer = async_std::task::spawn_blocking(move || {
            let mut s = std::net::TcpStream::connect(&addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
            s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
            let mut got = Vec::new();
            let _ = s.read_to_end(&mut got);
            String::from_utf8_lossy(&got).into_owned()
        })
        .await;
        assert!(
            !answer.contains("HTTP/1.1 200"),
            "{url} answered plain HTTP: {answer}"
        );
    }

    // A client that does not trust the CA is refused at the handshake.
    let addr = broker.trim_start_matches("https://").to_string();
    let stranger = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(rustls::RootCertStore::empty())
    .with_no_client_auth();
    let tcp = async_std::net::TcpStream::connect(&addr).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let refused = futures_rustls::TlsConnector::from(Arc::new(stranger))
        .connect(name, tcp)
        .await;
    let e = refused.expect_err("an untrusted certificate is refused");
    assert!(e.to_string().contains("UnknownIssuer"), "{e}");

    drop(server_b);
    c.stop().await;
}
