//! Kafka with SASL and TLS, against the test broker (tansu) and a `tessera start` process, with
//! the stream settings a Pinot table gives its Kafka consumer: `security.protocol`,
//! `sasl.mechanism`, `sasl.jaas.config`, a PEM truststore, `ssl.endpoint.identification.algorithm`.
//!
//! tansu requires SASL with `--authentication` (SCRAM only, against users none of which an
//! in-memory broker that requires authentication can be given); it has no TLS listener of its
//! own, so TLS is a real TLS front before it ([`support::tls_proxy`]) that the broker advertises.
//! Each TLS case
//! counts and sums the ids a table ingested; a table whose settings must not reach the broker
//! ingests nothing while its neighbour on the same topic ingests every row.

mod support;

use serde_json::{Value, json};
use std::time::{Duration, Instant};
use support::free_port;
use support::kafka::{Kafka, Tansu};
use support::realtime::{JSON_DECODER, Tessera, event_schema, http, kafka_stream, realtime_table};
use support::tls_proxy::TlsProxy;
use tessera_api::stream::kafka_security::KafkaSecurity;

const ROWS: i64 = 40;

/// The stream config of `topic` at `broker`, with the Kafka client properties `security`.
fn stream(broker: &str, topic: &str, security: &Value) -> Value {
    let mut m = kafka_stream(topic, broker, JSON_DECODER, 1000);
    if let (Some(m), Some(extra)) = (m.as_object_mut(), security.as_object()) {
        m.extend(extra.clone());
    }
    m
}

/// Creates table `name` over `topic` with the client properties `security`.
fn create(t: &Tessera, name: &str, broker: &str, topic: &str, security: &Value) {
    t.post_ok("/schemas", event_schema(name));
    t.post_ok(
        "/tables",
        realtime_table(name, json!({}), stream(broker, topic, security)),
    );
}

/// The security a test's own producer uses: what Tessera makes of the same properties.
fn client_security(security: &Value) -> KafkaSecurity {
    let m = stream("127.0.0.1:1", "t", security);
    let config = segments::types::table_config::StreamConfig::new(m.as_object().unwrap()).unwrap();
    KafkaSecurity::of(&config).unwrap()
}

fn produce_rows(kafka: &Kafka, topic: &str) {
    kafka.create_topic(topic, 1);
    let rows: Vec<Value> = (0..ROWS)
        .map(|i| json!({"id": i, "kind": "k", "ts": 1_700_000_000_000i64 + i}))
        .collect();
    kafka.produce(topic, 0, &rows);
}

/// Waits until every table of `ingesting` holds all the rows, then checks each of `refused`
/// holds none (they started together, and a refused consumer keeps failing).
fn expect(t: &Tessera, ingesting: &[&str], refused: &[&str]) {
    let all = (ROWS, (0..ROWS).sum::<i64>());
    for table in ingesting {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut last = (0, 0);
        while Instant::now() < deadline && last != all {
            last = t.count_sum(table, "id", "");
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(last, all, "{table}\n{}", t.log_tail());
    }
    std::thread::sleep(Duration::from_secs(1));
    for table in refused {
        assert_eq!(
            t.count_sum(table, "id", "").0,
            0,
            "{table} must not reach the broker"
        );
    }
}

fn plain_login(user: &str, password: &str) -> String {
    format!(
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{user}\" \
         password=\"{password}\";"
    )
}

fn scram_login(user: &str, password: &str) -> String {
    format!(
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"{user}\" \
         password=\"{password}\";"
    )
}

/// A broker that requires SASL: Tessera's consumer runs the SCRAM exchange with it, as far as
/// the broker's user lookup (tansu keeps SCRAM users in its storage, and its in-memory storage
/// lets only an authenticated client add one, so none exists), and one without SASL settings is
/// refused before any exchange.
#[test]
fn sasl_scram_reaches_a_broker_that_requires_it() {
    let port = free_port();
    let tansu = Tansu {
        authentication: true,
        ..Tansu::default()
    };
    let Some(_broker) = Kafka::spawn(tansu, port, port) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    let broker = format!("SASL_PLAINTEXT://127.0.0.1:{port}");
    let alice = json!({
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": scram_login("alice", "alice-secret"),
    });
    create(&t, "scram", &broker, "events", &alice);
    create(&t, "without_sasl", &broker, "events", &json!({}));
    let deadline = Instant::now() + Duration::from_secs(60);
    let said = |table: &str, what: &str| {
        t.log_tail()
            .lines()
            .any(|l| l.contains(&format!("{table}_REALTIME")) && l.contains(what))
    };
    while Instant::now() < deadline
        && !(said("scram", "SCRAM outcome error") && said("without_sasl", "cannot start consuming"))
    {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(said("scram", "SCRAM outcome error"), "{}", t.log_tail());
    assert!(!said("without_sasl", "Sasl"), "{}", t.log_tail());
    assert_eq!(t.count_sum("scram", "id", "").0, 0);
}

/// A CA, and a certificate for `names` it signs; PEM (ca, cert, key).
fn certificates(names: &[&str]) -> (String, String, String) {
    support::certs::ca_and_leaf("Tessera Kafka test CA", names)
}

/// TLS before the broker, its certificate for `names`: tansu behind a TLS front it advertises.
fn behind_tls(names: &[&str], client: &Value) -> Option<(Kafka, support::Proc, String)> {
    let (ca, cert, key) = certificates(names);
    let broker_port = free_port();
    let front = TlsProxy::start(format!("127.0.0.1:{broker_port}"), &cert, &key);
    let mut client = client.clone();
    client["ssl.truststore.certificates"] = json!(ca);
    let (kafka, proc) = Kafka::start_with(
        Tansu::default(),
        front.port,
        broker_port,
        client_security(&client),
    )?;
    Some((kafka, proc, ca))
}

fn tls_settings(ca_pem: &str, check_name: bool) -> Value {
    let mut s = json!({
        "security.protocol": "SSL",
        "ssl.truststore.type": "PEM",
        "ssl.truststore.certificates": ca_pem,
    });
    if !check_name {
        s["ssl.endpoint.identification.algorithm"] = json!("");
    }
    s
}

/// A broker certificate for 127.0.0.1: a PEM truststore holding its CA (inline, or as a file)
/// reaches it, a truststore of another CA or none (the platform's roots) does not.
#[test]
fn tls_trusts_the_truststore_and_only_it() {
    let Some((kafka, _broker, ca)) = behind_tls(&["127.0.0.1"], &tls_settings("", true)) else {
        return;
    };
    produce_rows(&kafka, "events");
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &ca).unwrap();
    let (other_ca, _, _) = certificates(&["127.0.0.1"]);
    let t = Tessera::start(&dir.path().join("tessera"));
    let broker = format!("SSL://{}", kafka.address);
    create(&t, "inline", &broker, "events", &tls_settings(&ca, true));
    let from_file = json!({
        "security.protocol": "SSL",
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": ca_file.to_str().unwrap(),
    });
    create(&t, "from_file", &broker, "events", &from_file);
    create(
        &t,
        "other_ca",
        &broker,
        "events",
        &tls_settings(&other_ca, false),
    );
    create(
        &t,
        "platform",
        &broker,
        "events",
        &json!({"security.protocol": "SSL"}),
    );
    create(&t, "plaintext", &broker, "events", &json!({}));
    expect(
        &t,
        &["inline", "from_file"],
        &["other_ca", "platform", "plaintext"],
    );
}

/// A broker certificate that does not name the address dialled: refused by default, accepted
/// with `ssl.endpoint.identification.algorithm` empty (the chain still checked).
#[test]
fn tls_without_the_name_check_still_checks_the_chain() {
    let Some((kafka, _broker, ca)) = behind_tls(&["kafka.example"], &tls_settings("", false))
    else {
        return;
    };
    produce_rows(&kafka, "events");
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    create(
        &t,
        "no_name_check",
        &kafka.address,
        "events",
        &tls_settings(&ca, false),
    );
    create(
        &t,
        "name_checked",
        &kafka.address,
        "events",
        &tls_settings(&ca, true),
    );
    expect(&t, &["no_name_check"], &["name_checked"]);
}

/// A broker that requires a client certificate (mutual TLS): a PEM keystore file or Pinot's
/// base64 client certificate and key reach it; the same trust without an identity does not.
#[test]
fn tls_with_a_client_certificate() {
    use base64::Engine as _;
    use rustls::pki_types::pem::PemObject;
    let (ca, cert, key) = certificates(&["127.0.0.1"]);
    let (client_ca, client_cert, client_key) = certificates(&["tessera-consumer"]);
    let broker_port = free_port();
    let front = TlsProxy::start_with_clients(
        format!("127.0.0.1:{broker_port}"),
        &cert,
        &key,
        Some(&client_ca),
    );
    let dir = tempfile::tempdir().unwrap();
    let keystore = dir.path().join("client.pem");
    std::fs::write(&keystore, format!("{client_key}{client_cert}")).unwrap();
    let mut from_file = tls_settings(&ca, true);
    from_file["ssl.keystore.type"] = json!("PEM");
    from_file["ssl.keystore.location"] = json!(keystore.to_str().unwrap());
    let Some((kafka, _broker)) = Kafka::start_with(
        Tansu::default(),
        front.port,
        broker_port,
        client_security(&from_file),
    ) else {
        return;
    };
    produce_rows(&kafka, "events");
    let b64 = |der: &[u8]| base64::engine::general_purpose::STANDARD.encode(der);
    let cert_der =
        rustls::pki_types::CertificateDer::from_pem_slice(client_cert.as_bytes()).unwrap();
    let key_der =
        rustls::pki_types::PrivatePkcs8KeyDer::from_pem_slice(client_key.as_bytes()).unwrap();
    let mut pinot = tls_settings(&ca, true);
    pinot["stream.kafka.ssl.client.certificate"] = json!(b64(cert_der.as_ref()));
    pinot["stream.kafka.ssl.client.key"] = json!(b64(key_der.secret_pkcs8_der()));
    let t = Tessera::start(&dir.path().join("tessera"));
    create(&t, "keystore_file", &kafka.address, "events", &from_file);
    create(&t, "pinot_base64", &kafka.address, "events", &pinot);
    create(
        &t,
        "no_identity",
        &kafka.address,
        "events",
        &tls_settings(&ca, true),
    );
    expect(&t, &["keystore_file", "pinot_base64"], &["no_identity"]);
}

/// Settings Tessera cannot honour are refused when the table is created, naming the setting.
#[test]
fn unusable_security_settings_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = Tessera::start(dir.path());
    t.post_ok("/schemas", event_schema("odd"));
    for (security, says) in [
        (
            json!({"security.protocol": "SASL_SSL", "sasl.mechanism": "GSSAPI",
                "sasl.jaas.config": plain_login("a", "b")}),
            "sasl.mechanism 'GSSAPI'",
        ),
        (
            json!({"security.protocol": "SSL", "ssl.truststore.location": "/etc/kafka/trust.jks",
                "ssl.truststore.password": "changeit"}),
            "ssl.truststore.type 'JKS'",
        ),
        (
            json!({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                "sasl.jaas.config": "PlainLoginModule required username=\"a\""}),
            "sasl.jaas.config",
        ),
    ] {
        let table = realtime_table("odd", json!({}), stream("127.0.0.1:1", "odd", &security));
        let (s, b) = http("POST", &format!("{}/tables", t.controller), Some(table));
        assert_eq!(s, 400, "{security}: {b}");
        assert!(
            b["error"].as_str().unwrap_or("").contains(says),
            "{security}: {b}"
        );
    }
    let (_, tables) = http("GET", &format!("{}/tables", t.controller), None);
    assert_eq!(tables["tables"], json!([]), "nothing was created");
}
