//! The HTTP client one role uses to call another.

use std::time::Duration;

/// A client with TCP_NODELAY, keep-alive and a 30 s timeout.
pub fn http_client() -> surf::Client {
    surf::Config::new()
        .set_tcp_no_delay(true)
        .set_timeout(Some(Duration::from_secs(30)))
        .try_into()
        .unwrap_or_default()
}
