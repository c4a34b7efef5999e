//! How a Kafka consumer authenticates and encrypts, from a table's stream config — the Kafka
//! client properties Pinot passes through unchanged (its consumer is built from the whole
//! `streamConfigs` map), read here for rskafka:
//!
//! * `security.protocol`: `PLAINTEXT` (the default), `SSL`, `SASL_PLAINTEXT`, `SASL_SSL`;
//! * SASL: `sasl.mechanism` `PLAIN`, `SCRAM-SHA-256` or `SCRAM-SHA-512` (Kafka's default,
//!   `GSSAPI`, and `OAUTHBEARER` are refused by name) with the user and password of
//!   `sasl.jaas.config` (`…PlainLoginModule required username="u" password="p";`, or
//!   `…ScramLoginModule` for SCRAM);
//! * TLS trust: a PEM truststore (`ssl.truststore.type=PEM` with `ssl.truststore.location` or
//!   `ssl.truststore.certificates`), or Pinot's `stream.kafka.ssl.server.certificate` (the
//!   server's certificate, base64 DER, from which Pinot writes a truststore); else the
//!   platform's roots. `ssl.endpoint.identification.algorithm` set empty checks the chain but
//!   not the broker's name, as Kafka does.
//!
//! * TLS identity (mutual TLS): a PEM keystore (`ssl.keystore.type=PEM` with
//!   `ssl.keystore.location`, or `ssl.keystore.key` and `ssl.keystore.certificate.chain`), or
//!   Pinot's `stream.kafka.ssl.client.certificate` and `stream.kafka.ssl.client.key`.
//!
//! Java keystores (JKS, PKCS12) and encrypted keys are refused with what to give instead: a
//! table whose settings cannot be honoured is not created, rather than consumed some other way.

use super::StreamError;
use rskafka::client::{Credentials, SaslConfig};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};
use segments::types::table_config::StreamConfig;
use std::sync::Arc;

/// A consumer's security: TLS and SASL, either, both or none.
#[derive(Clone, Default)]
pub struct KafkaSecurity {
    pub tls: Option<Arc<rustls::ClientConfig>>,
    pub sasl: Option<SaslConfig>,
}

impl std::fmt::Debug for KafkaSecurity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KafkaSecurity")
            .field("tls", &self.tls.is_some())
            .field("sasl", &self.sasl.as_ref().map(mechanism_name))
            .finish()
    }
}

fn mechanism_name(sasl: &SaslConfig) -> &'static str {
    match sasl {
        SaslConfig::Plain(_) => "PLAIN",
        SaslConfig::ScramSha256(_) => "SCRAM-SHA-256",
        SaslConfig::ScramSha512(_) => "SCRAM-SHA-512",
        SaslConfig::Oauthbearer(_) => "OAUTHBEARER",
    }
}

/// A Kafka client property of the stream config, trimmed.
fn setting<'a>(config: &StreamConfig<'a>, key: &str) -> Option<&'a str> {
    config.get(key).map(str::trim)
}

fn config_error(message: String) -> StreamError {
    StreamError::Config(message)
}

impl KafkaSecurity {
    /// The security `config` asks for; a setting Tessera cannot honour, or a file it cannot
    /// read, is an error that names it.
    pub fn of(config: &StreamConfig<'_>) -> Result<KafkaSecurity, StreamError> {
        let protocol = setting(config, "security.protocol")
            .unwrap_or("PLAINTEXT")
            .to_ascii_uppercase();
        let (tls, sasl) = match protocol.as_str() {
            "PLAINTEXT" => (false, false),
            "SSL" => (true, false),
            "SASL_PLAINTEXT" => (false, true),
            "SASL_SSL" => (true, true),
            other => {
                return Err(config_error(format!(
                    "security.protocol '{other}' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, \
                     SASL_SSL"
                )));
            }
        };
        Ok(KafkaSecurity {
            tls: tls.then(|| tls_config(config)).transpose()?.map(Arc::new),
            sasl: sasl.then(|| sasl_config(config)).transpose()?,
        })
    }
}

/// The SASL mechanism and credentials of `sasl.mechanism` and `sasl.jaas.config`.
fn sasl_config(config: &StreamConfig<'_>) -> Result<SaslConfig, StreamError> {
    let get = |key| setting(config, key);
    let mechanism = get("sasl.mechanism")
        .unwrap_or("GSSAPI")
        .to_ascii_uppercase();
    let module = match mechanism.as_str() {
        "PLAIN" => "PlainLoginModule",
        "SCRAM-SHA-256" | "SCRAM-SHA-512" => "ScramLoginModule",
        other => {
            return Err(config_error(format!(
                "sasl.mechanism '{other}' is not supported (supported: PLAIN, SCRAM-SHA-256, \
                 SCRAM-SHA-512)"
            )));
        }
    };
    let jaas = get("sasl.jaas.config").ok_or_else(|| {
        config_error(format!(
            "sasl.jaas.config is missing: SASL {mechanism} needs '<{module}> required \
             username=\"…\" password=\"…\";'"
        ))
    })?;
    let login =
        JaasLogin::parse(jaas).map_err(|e| config_error(format!("sasl.jaas.config: {e}")))?;
    if login.module.rsplit('.').next() != Some(module) {
        return Err(config_error(format!(
            "sasl.jaas.config names the login module '{}', but sasl.mechanism {mechanism} \
             takes {module}",
            login.module
        )));
    }
    let option = |name: &str| {
        login
            .options
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| config_error(format!("sasl.jaas.config has no {name}")))
    };
    let credentials = Credentials::new(option("username")?, option("password")?);
    Ok(match mechanism.as_str() {
        "PLAIN" => SaslConfig::Plain(credentials),
        "SCRAM-SHA-256" => SaslConfig::ScramSha256(credentials),
        _ => SaslConfig::ScramSha512(credentials),
    })
}

/// One login module of a JAAS configuration: `<class> <flag> (key=value)* ;`, a value quoted
/// (with `\"` and `\\` escapes) or a bare word.
#[derive(Debug, PartialEq)]
struct JaasLogin {
    module: String,
    options: Vec<(String, String)>,
}

impl JaasLogin {
    fn parse(text: &str) -> Result<JaasLogin, String> {
        let mut rest = text.trim_start();
        let word = |rest: &mut &str| -> String {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ';' || c == '=')
                .unwrap_or(rest.len());
            let w = rest[..end].to_string();
            *rest = rest[end..].trim_start();
            w
        };
        let module = word(&mut rest);
        if module.is_empty() {
            return Err("no login module".into());
        }
        let flag = word(&mut rest).to_ascii_lowercase();
        if !matches!(
            flag.as_str(),
            "required" | "requisite" | "sufficient" | "optional"
        ) {
            return Err(format!(
                "'{flag}' after the login module is not a control flag (required, requisite, \
                 sufficient, optional)"
            ));
        }
        let mut options = Vec::new();
        loop {
            if let Some(after) = rest.strip_prefix(';') {
                if !after.trim().is_empty() {
                    return Err("only one login module may be given".into());
                }
                return Ok(JaasLogin { module, options });
            }
            if rest.is_empty() {
                return Err("it does not end with ';'".into());
            }
            let key = word(&mut rest);
            rest = rest
                .strip_prefix('=')
                .ok_or_else(|| format!("option '{key}' has no '='"))?
                .trim_start();
            let value = if let Some(quoted) = rest.strip_prefix('"') {
                let mut value = String::new();
                let mut chars = quoted.char_indices();
                let end = loop {
                    match chars.next() {
                        Some((_, '\\')) => match chars.next() {
                            Some((_, c)) => value.push(c),
                            None => return Err(format!("option '{key}' is not closed")),
                        },
                        Some((i, '"')) => break i,
                        Some((_, c)) => value.push(c),
                        None => return Err(format!("option '{key}' is not closed")),
                    }
                };
                rest = quoted[end + 1..].trim_start();
                value
            } else {
                word(&mut rest)
            };
            if key.is_empty() {
                return Err("an option has no name".into());
            }
            options.push((key, value));
        }
    }
}

/// The TLS client setup: trusted roots, and whether the broker's name is checked.
fn tls_config(config: &StreamConfig<'_>) -> Result<rustls::ClientConfig, StreamError> {
    let get = |key| setting(config, key);
    let identity = client_identity(config)?;
    let mut roots = rustls::RootCertStore::empty();
    let add = |roots: &mut rustls::RootCertStore, certs: Vec<CertificateDer<'static>>, what| {
        if certs.is_empty() {
            return Err(config_error(format!("{what} holds no certificate")));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| config_error(format!("{what}: {e}")))?;
        }
        Ok(())
    };
    let truststore_type = get("ssl.truststore.type").map(str::to_ascii_uppercase);
    if let Some(encoded) = get("stream.kafka.ssl.server.certificate").filter(|v| !v.is_empty()) {
        use base64::Engine as _;
        let der = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|e| {
                config_error(format!(
                    "stream.kafka.ssl.server.certificate is not base64: {e}"
                ))
            })?;
        add(
            &mut roots,
            vec![CertificateDer::from(der)],
            "stream.kafka.ssl.server.certificate",
        )?;
    } else if let Some(pem) = get("ssl.truststore.certificates").filter(|v| !v.is_empty()) {
        let certs = CertificateDer::pem_slice_iter(pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| config_error(format!("ssl.truststore.certificates: {e}")))?;
        add(&mut roots, certs, "ssl.truststore.certificates")?;
    } else if let Some(location) = get("ssl.truststore.location").filter(|v| !v.is_empty()) {
        if truststore_type.as_deref() != Some("PEM") {
            return Err(config_error(format!(
                "ssl.truststore.type '{}' is not supported: give a PEM truststore \
                 (ssl.truststore.type=PEM) or stream.kafka.ssl.server.certificate",
                truststore_type.as_deref().unwrap_or("JKS")
            )));
        }
        let certs = crate::tls::read_certs(std::path::Path::new(location), "truststore")
            .map_err(config_error)?;
        add(&mut roots, certs, "ssl.truststore.location")?;
    } else {
        roots.add_parsable_certificates(crate::tls::platform_roots());
    }
    let provider = crate::tls::provider();
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| config_error(e.to_string()))?;
    let check_name = get("ssl.endpoint.identification.algorithm").is_none_or(|a| !a.is_empty());
    let builder = if check_name {
        builder.with_root_certificates(roots)
    } else {
        let chain = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| config_error(format!("the truststore: {e}")))?;
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(ChainOnly(chain)))
    };
    match identity {
        None => Ok(builder.with_no_client_auth()),
        Some((chain, key)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(|e| config_error(format!("the client certificate and key: {e}"))),
    }
}

/// A client certificate chain and its key.
type Identity = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

/// The certificate this client presents (mutual TLS), if the config gives one: a PEM keystore
/// (`ssl.keystore.type=PEM` with `ssl.keystore.location`, a file holding the key and the
/// chain, or `ssl.keystore.key` and `ssl.keystore.certificate.chain` as text), or Pinot's
/// `stream.kafka.ssl.client.certificate` and `stream.kafka.ssl.client.key` (base64 DER, the key
/// PKCS#8). Encrypted keys (`ssl.key.password`) and Java keystores are refused.
fn client_identity(config: &StreamConfig<'_>) -> Result<Option<Identity>, StreamError> {
    use base64::Engine as _;
    let get = |key| setting(config, key).filter(|v: &&str| !v.is_empty());
    let base64 = |key: &str, text: &str| {
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| config_error(format!("{key} is not base64: {e}")))
    };
    let pem_key = |what: &str, pem: &[u8]| {
        PrivateKeyDer::from_pem_slice(pem).map_err(|e| config_error(format!("{what}: {e}")))
    };
    let pem_chain = |what: &str, pem: &[u8]| {
        let chain = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| config_error(format!("{what}: {e}")))?;
        if chain.is_empty() {
            return Err(config_error(format!("{what} holds no certificate")));
        }
        Ok(chain)
    };
    if let Some(cert) = get("stream.kafka.ssl.client.certificate") {
        let key = get("stream.kafka.ssl.client.key").ok_or_else(|| {
            config_error(
                "stream.kafka.ssl.client.certificate needs stream.kafka.ssl.client.key".into(),
            )
        })?;
        let chain = vec![CertificateDer::from(base64(
            "stream.kafka.ssl.client.certificate",
            cert,
        )?)];
        let key = PrivatePkcs8KeyDer::from(base64("stream.kafka.ssl.client.key", key)?);
        return Ok(Some((chain, key.into())));
    }
    let location = get("ssl.keystore.location");
    let inline = get("ssl.keystore.certificate.chain");
    if location.is_none() && inline.is_none() {
        return Ok(None);
    }
    let keystore_type = get("ssl.keystore.type").map(str::to_ascii_uppercase);
    if keystore_type.as_deref() != Some("PEM") {
        return Err(config_error(format!(
            "ssl.keystore.type '{}' is not supported: give a PEM keystore (ssl.keystore.type=PEM) \
             or stream.kafka.ssl.client.certificate and stream.kafka.ssl.client.key",
            keystore_type.as_deref().unwrap_or("JKS")
        )));
    }
    if get("ssl.key.password").is_some() {
        return Err(config_error(
            "ssl.key.password: encrypted private keys are not supported; give the key unencrypted"
                .into(),
        ));
    }
    match (inline, location) {
        (Some(chain), _) => {
            let key = get("ssl.keystore.key").ok_or_else(|| {
                config_error("ssl.keystore.certificate.chain needs ssl.keystore.key".into())
            })?;
            Ok(Some((
                pem_chain("ssl.keystore.certificate.chain", chain.as_bytes())?,
                pem_key("ssl.keystore.key", key.as_bytes())?,
            )))
        }
        (None, Some(location)) => {
            let pem = std::fs::read(location).map_err(|e| {
                config_error(format!(
                    "cannot read ssl.keystore.location '{location}': {e}"
                ))
            })?;
            let what = format!("ssl.keystore.location '{location}'");
            Ok(Some((pem_chain(&what, &pem)?, pem_key(&what, &pem)?)))
        }
        (None, None) => Ok(None),
    }
}

/// Checks a server's certificate chain but not that it names the host dialled
/// (`ssl.endpoint.identification.algorithm=`, empty).
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value as Json, json};

    fn map(extra: Json) -> Map<String, Json> {
        let mut m = json!({
            "streamType": "kafka",
            "stream.kafka.topic.name": "t",
            "stream.kafka.broker.list": "127.0.0.1:9092",
            "stream.kafka.decoder.class.name":
                "org.apache.pinot.plugin.stream.kafka.KafkaJSONMessageDecoder",
        });
        if let (Some(m), Json::Object(extra)) = (m.as_object_mut(), extra) {
            m.extend(extra);
        }
        m.as_object().cloned().unwrap_or_default()
    }

    fn security(extra: Json) -> Result<KafkaSecurity, String> {
        let m = map(extra);
        let config = StreamConfig::new(&m).map_err(|e| e.to_string())?;
        KafkaSecurity::of(&config).map_err(|e| e.to_string())
    }

    const PLAIN: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required \
                         username=\"alice\" password=\"a \\\"quoted\\\" secret\";";

    #[test]
    fn jaas_login_modules_parse_as_kafka_reads_them() {
        let login = JaasLogin::parse(PLAIN).unwrap();
        assert_eq!(
            login.module,
            "org.apache.kafka.common.security.plain.PlainLoginModule"
        );
        assert_eq!(
            login.options,
            vec![
                ("username".to_string(), "alice".to_string()),
                ("password".to_string(), "a \"quoted\" secret".to_string()),
            ]
        );
        let bare =
            JaasLogin::parse("x.ScramLoginModule  required  username=bob password=pw ;").unwrap();
        assert_eq!(bare.options[0], ("username".into(), "bob".into()));
        for (bad, says) in [
            ("", "no login module"),
            ("M required username=\"a\"", "does not end with ';'"),
            ("M maybe username=\"a\";", "not a control flag"),
            ("M required username;", "has no '='"),
            ("M required username=\"a;", "not closed"),
            ("M required; N required;", "only one login module"),
        ] {
            let e = JaasLogin::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn protocols_and_mechanisms_choose_tls_and_sasl() {
        let none = security(json!({})).unwrap();
        assert!(none.tls.is_none() && none.sasl.is_none());
        let plain = security(json!({
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": PLAIN,
        }))
        .unwrap();
        assert!(plain.tls.is_none());
        assert!(matches!(&plain.sasl, Some(SaslConfig::Plain(c)) if c.username == "alice"));
        let scram = security(json!({
            "security.protocol": "sasl_ssl",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule \
                                 required username=\"bob\" password=\"pw\";",
        }))
        .unwrap();
        assert!(scram.tls.is_some());
        assert!(matches!(&scram.sasl, Some(SaslConfig::ScramSha512(c)) if c.password == "pw"));
        // SASL settings under PLAINTEXT are not read, as Kafka's client ignores them.
        let ignored = security(json!({"sasl.mechanism": "GSSAPI"})).unwrap();
        assert!(ignored.sasl.is_none());
    }

    #[test]
    fn settings_that_cannot_be_honoured_are_refused_by_name() {
        for (extra, says) in [
            (
                json!({"security.protocol": "SASL"}),
                "security.protocol 'SASL'",
            ),
            (
                json!({"security.protocol": "SASL_PLAINTEXT", "sasl.jaas.config": PLAIN}),
                "sasl.mechanism 'GSSAPI' is not supported",
            ),
            (
                json!({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN"}),
                "sasl.jaas.config is missing",
            ),
            (
                json!({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "SCRAM-SHA-256",
                       "sasl.jaas.config": PLAIN}),
                "takes ScramLoginModule",
            ),
            (
                json!({"security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
                       "sasl.jaas.config": "x.PlainLoginModule required username=\"a\";"}),
                "has no password",
            ),
            (
                json!({"security.protocol": "SSL", "ssl.truststore.location": "/x.jks"}),
                "ssl.truststore.type 'JKS' is not supported",
            ),
            (
                json!({"security.protocol": "SSL", "ssl.truststore.type": "PEM",
                       "ssl.truststore.location": "/no/such/ca.pem"}),
                "/no/such/ca.pem",
            ),
            (
                json!({"security.protocol": "SSL", "ssl.truststore.certificates": "nothing"}),
                "holds no certificate",
            ),
            (
                json!({"security.protocol": "SSL", "stream.kafka.ssl.server.certificate": "%%"}),
                "not base64",
            ),
            (
                json!({"security.protocol": "SSL", "ssl.keystore.location": "/k.p12"}),
                "ssl.keystore.type 'JKS' is not supported",
            ),
            (
                json!({"security.protocol": "SSL", "ssl.keystore.type": "PEM",
                       "ssl.keystore.location": "/no/such/client.pem"}),
                "/no/such/client.pem",
            ),
            (
                json!({"security.protocol": "SSL", "ssl.keystore.type": "PEM",
                       "ssl.keystore.certificate.chain": "x", "ssl.keystore.key": "y",
                       "ssl.key.password": "pw"}),
                "encrypted private keys are not supported",
            ),
            (
                json!({"security.protocol": "SSL", "stream.kafka.ssl.client.certificate": "AAAA"}),
                "needs stream.kafka.ssl.client.key",
            ),
        ] {
            let e = security(extra.clone()).unwrap_err();
            assert!(e.contains(says), "{extra}: {e}");
        }
    }
}
