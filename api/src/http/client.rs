//! The HTTP client one role uses to call another.

use std::time::Duration;

/// A client with TCP_NODELAY, keep-alive and a 30 s timeout; in a process with TLS, one that
/// dials `https://` with its trust ([`crate::tls::client::TlsHttpClient`]).
pub fn http_client() -> surf::Client {
    if crate::tls::current().is_some() {
        return surf::Config::new()
            .set_http_client(crate::tls::client::TlsHttpClient::new(Duration::from_secs(
                30,
            )))
            .try_into()
            .unwrap_or_default();
    }
    surf::Config::new()
        .set_tcp_no_delay(true)
        .set_timeout(Some(Duration::from_secs(30)))
        .try_into()
        .unwrap_or_default()
}

/// The body of `GET uri` (an `http://` URL a controller fetches a file or segment from), at most
/// `limit` bytes; otherwise why not, for the caller's message.
pub async fn get_bounded(uri: &str, limit: u64) -> Result<Vec<u8>, String> {
    let mut res = http_client().get(uri).await.map_err(|e| e.to_string())?;
    if !res.status().is_success() {
        return Err(format!("HTTP {}", res.status() as u16));
    }
    let bytes = res.body_bytes().await.map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!("larger than the upload limit of {limit} bytes"));
    }
    Ok(bytes)
}
