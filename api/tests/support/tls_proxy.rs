//! A TLS front for a plain TCP service on 127.0.0.1 (as a load balancer or sidecar terminates
//! TLS before a broker): each connection's handshake is made with the certificate and key
//! given, then its bytes are forwarded both ways to the target. rustls with ring, on
//! async-std tasks of its own thread; it lives as long as the test process.

use futures_lite::io::{copy, split};
use futures_rustls::TlsAcceptor;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::sync::Arc;

/// A running TLS front.
pub struct TlsProxy {
    pub port: u16,
}

impl TlsProxy {
    /// A TLS front on a free port of 127.0.0.1 for `target` (`host:port`), presenting the PEM
    /// certificate chain `cert` with the PEM key `key`.
    pub fn start(target: String, cert: &str, key: &str) -> TlsProxy {
        TlsProxy::start_with_clients(target, cert, key, None)
    }

    /// [`TlsProxy::start`]; with `client_ca` (PEM), a client must present a certificate that CA
    /// signed, or the handshake fails (mutual TLS).
    pub fn start_with_clients(
        target: String,
        cert: &str,
        key: &str,
        client_ca: Option<&str>,
    ) -> TlsProxy {
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert.as_bytes())
            .collect::<Result<_, _>>()
            .expect("certificate PEM");
        let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).expect("key PEM");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = match client_ca {
            None => builder.with_no_client_auth(),
            Some(ca) => {
                let mut roots = rustls::RootCertStore::empty();
                for c in CertificateDer::pem_slice_iter(ca.as_bytes()) {
                    roots.add(c.expect("client CA PEM")).expect("client CA");
                }
                let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .expect("client verifier");
                builder.with_client_cert_verifier(verifier)
            }
        };
        let config = builder
            .with_single_cert(chain, key)
            .expect("a TLS identity");
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the TLS front");
        let port = listener.local_addr().expect("its address").port();
        std::thread::spawn(move || {
            async_std::task::block_on(async move {
                let listener = async_std::net::TcpListener::from(listener);
                while let Ok((client, _)) = listener.accept().await {
                    let (acceptor, target) = (acceptor.clone(), target.clone());
                    async_std::task::spawn(async move {
                        let Ok(tls) = acceptor.accept(client).await else {
                            return;
                        };
                        let Ok(server) = async_std::net::TcpStream::connect(&target).await else {
                            return;
                        };
                        let (from_client, to_client) = split(tls);
                        let up = copy(from_client, server.clone());
                        let down = copy(server, to_client);
                        let _ = futures_lite::future::zip(up, down).await;
                    });
                }
            })
        });
        TlsProxy { port }
    }
}
