//! TLS on every port: `tessera start --tls-cert-file cert.pem --tls-key-file key.pem
//! [--tls-ca-file ca.pem]` makes every role's HTTP port (controller and console, broker,
//! server) and the query port speak TLS only — a plain request is refused at the handshake — and
//! every call one role makes to another verify its peer against the CA file (the platform's
//! roots without one). rustls with ring: no OpenSSL.
//!
//! The setting is the process's ([`install`]): one identity per process, as one `tessera
//! start` has one certificate. [`Stream`] is a connection either way, plain TCP or TLS, that a
//! reader and a writer use at once (the HTTP connection loop and the query channel read and
//! write one connection from two tasks); [`client`] is the HTTP client backend that dials
//! `https://` with the same trust.

pub mod client;

use async_std::net::TcpStream;
use futures_lite::io::{AsyncRead, AsyncWrite};
use futures_rustls::{TlsAcceptor, TlsConnector};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

/// How long a TLS handshake may take before the connection is dropped.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The PEM files `--tls-cert-file`, `--tls-key-file` and `--tls-ca-file` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// This process's certificate chain.
    pub cert: PathBuf,
    /// Its private key.
    pub key: PathBuf,
    /// The CA that peers' certificates must chain to; `None`: the platform's roots.
    pub ca: Option<PathBuf>,
}

/// A process's TLS: what it presents to clients and how it checks the servers it calls.
pub struct Tls {
    acceptor: TlsAcceptor,
    connector: TlsConnector,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls")
    }
}

/// rustls with ring, the one crypto provider of every TLS use here.
pub(crate) fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of a PEM file; none, or an unreadable file, is an error naming `what`.
pub(crate) fn read_certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(|i| i.collect::<Result<_, _>>())
        .map_err(|e| format!("cannot read the {what} '{}': {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "the {what} '{}' holds no certificate",
            path.display()
        ));
    }
    Ok(certs)
}

impl Tls {
    /// Reads the files; a missing, unreadable or mismatched file is an error that names it.
    pub fn load(files: &TlsFiles) -> Result<Tls, String> {
        let chain = read_certs(&files.cert, "certificate file")?;
        let key = PrivateKeyDer::from_pem_file(&files.key)
            .map_err(|e| format!("cannot read the key file '{}': {e}", files.key.display()))?;
        let server = rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| format!("the certificate and key do not make a TLS identity: {e}"))?;
        let mut roots = rustls::RootCertStore::empty();
        match &files.ca {
            Some(ca) => {
                for cert in read_certs(ca, "CA file")? {
                    roots
                        .add(cert)
                        .map_err(|e| format!("the CA file '{}': {e}", ca.display()))?;
                }
            }
            None => {
                let found = platform_roots();
                roots.add_parsable_certificates(found);
            }
        }
        let client = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(server)),
            connector: TlsConnector::from(Arc::new(client)),
        })
    }
}

/// The platform's trusted roots (`/etc/ssl/certs`), for a process given no CA file.
pub(crate) fn platform_roots() -> Vec<CertificateDer<'static>> {
    let mut out = Vec::new();
    for dir in [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
    ] {
        if let Ok(iter) = CertificateDer::pem_file_iter(dir) {
            out.extend(iter.flatten());
        }
    }
    out
}

static INSTALLED: OnceLock<Arc<Tls>> = OnceLock::new();

/// Makes `tls` this process's TLS (once; a second, different setting is refused).
pub fn install(tls: Tls) -> Result<Arc<Tls>, String> {
    if INSTALLED.get().is_some() {
        return Err("TLS is already set up in this process".into());
    }
    let tls = Arc::new(tls);
    let _ = INSTALLED.set(tls.clone());
    Ok(INSTALLED.get().cloned().unwrap_or(tls))
}

/// This process's TLS, when it has one.
pub fn current() -> Option<Arc<Tls>> {
    INSTALLED.get().cloned()
}

/// `https` when this process speaks TLS, else `http`: the scheme of every role URL.
pub fn scheme() -> &'static str {
    if current().is_some() { "https" } else { "http" }
}

/// The URL of a role listening on `host:port`.
pub fn url(host: &str, port: u16) -> String {
    format!("{}://{host}:{port}", scheme())
}

/// One connection, plain or TLS, read and written from clones at once (the TLS state is locked
/// for each poll, never across one).
#[derive(Clone)]
pub struct Stream {
    tcp: TcpStream,
    tls: Option<Arc<Mutex<futures_rustls::TlsStream<TcpStream>>>>,
}

impl Stream {
    /// A plain connection.
    pub fn plain(tcp: TcpStream) -> Stream {
        Stream { tcp, tls: None }
    }

    /// The server side of an accepted connection: with this process's TLS, after its handshake
    /// (bounded by [`HANDSHAKE_TIMEOUT`]; a client that speaks plain HTTP fails it).
    pub async fn accept(tcp: TcpStream) -> std::io::Result<Stream> {
        let Some(tls) = current() else {
            return Ok(Stream::plain(tcp));
        };
        let handshake = tls.acceptor.accept(tcp.clone());
        let stream = async_std::io::timeout(HANDSHAKE_TIMEOUT, handshake).await?;
        Ok(Stream {
            tcp,
            tls: Some(Arc::new(Mutex::new(stream.into()))),
        })
    }

    /// The client side: a connection to `host:port`, TLS when `secure` (the server's certificate
    /// checked for `host` with this process's trust; an error in a process without TLS).
    pub async fn connect(
        host: &str,
        port: u16,
        timeout: Duration,
        secure: bool,
    ) -> std::io::Result<Stream> {
        let tcp = async_std::io::timeout(timeout, TcpStream::connect((host, port))).await?;
        tcp.set_nodelay(true)?;
        if !secure {
            return Ok(Stream::plain(tcp));
        }
        let tls = current().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this process has no TLS (start it with --tls-cert-file)",
            )
        })?;
        Stream::wrap_client(&tls, tcp, host, timeout).await
    }

    async fn wrap_client(
        tls: &Tls,
        tcp: TcpStream,
        host: &str,
        timeout: Duration,
    ) -> std::io::Result<Stream> {
        let name =
            ServerName::try_from(host.trim_matches(['[', ']']).to_string()).map_err(|e| {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("'{host}': {e}"))
            })?;
        let stream =
            async_std::io::timeout(timeout, tls.connector.connect(name, tcp.clone())).await?;
        Ok(Stream {
            tcp,
            tls: Some(Arc::new(Mutex::new(stream.into()))),
        })
    }

    /// The TCP connection underneath (addresses, shutdown, no-delay).
    pub fn tcp(&self) -> &TcpStream {
        &self.tcp
    }
}

/// Runs `f` on the TLS stream under its lock.
fn locked<T>(
    tls: &Mutex<futures_rustls::TlsStream<TcpStream>>,
    f: impl FnOnce(Pin<&mut futures_rustls::TlsStream<TcpStream>>) -> Poll<std::io::Result<T>>,
) -> Poll<std::io::Result<T>> {
    let mut guard = tls.lock().unwrap_or_else(|p| p.into_inner());
    f(Pin::new(&mut *guard))
}

impl AsyncRead for &Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        match &self.tls {
            Some(t) => locked(t, |s| s.poll_read(cx, buf)),
            None => Pin::new(&mut &self.tcp).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for &Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match &self.tls {
            Some(t) => locked(t, |s| s.poll_write(cx, buf)),
            None => Pin::new(&mut &self.tcp).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &self.tls {
            Some(t) => locked(t, |s| s.poll_flush(cx)),
            None => Pin::new(&mut &self.tcp).poll_flush(cx),
        }
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &self.tls {
            Some(t) => locked(t, |s| s.poll_close(cx)),
            None => Pin::new(&mut &self.tcp).poll_close(cx),
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut &*self).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut &*self).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut &*self).poll_flush(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut &*self).poll_close(cx)
    }
}
