//! The HTTP client one role uses to call another.

use std::time::Duration;

/// A client with TCP_NODELAY, keep-alive and a 30 s timeout; in a process with TLS, one that
/// dials `https://` with its trust ([`crate::tls::client::TlsHttpClient`]).
pub fn http_client() -> surf::Client {
    http_client_with_timeout(Duration::from_secs(30))
}

/// [`http_client`] with another timeout per request.
pub fn http_client_with_timeout(timeout: Duration) -> surf::Client {
    if crate::tls::current().is_some() {
        return surf::Config::new()
            .set_http_client(crate::tls::client::TlsHttpClient::new(timeout))
            .try_into()
            .unwrap_or_default();
    }
    surf::Config::new()
        .set_tcp_no_delay(true)
        .set_timeout(Some(timeout))
        .try_into()
        .unwrap_or_default()
}

/// A client like `client` (its default headers: credentials) whose requests may take up to
/// `timeout` — for calls that wait on purpose, such as a minion's result being applied.
pub fn patient(client: &surf::Client, timeout: Duration) -> surf::Client {
    let fresh = http_client_with_timeout(timeout);
    let mut config = fresh.config().clone();
    for (name, values) in client.config().headers.iter() {
        for v in values.iter() {
            config = match config.clone().add_header(name.as_str(), v.as_str()) {
                Ok(c) => c,
                Err(_) => config,
            };
        }
    }
    config.try_into().unwrap_or(fresh)
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
