//! [`TlsHttpClient`]: surf's HTTP/1.1 backend for a process with TLS — each request dials its
//! URL's host (`https://` with this process's trust, `http://` plain), writes the request and
//! reads the answer with async-h1 over a [`super::Stream`], bounded by a timeout.

use super::Stream;
use http_client::{Config, Error, HttpClient, Request, Response};
use std::time::Duration;

/// The HTTP client backend of a process with TLS.
#[derive(Debug)]
pub struct TlsHttpClient {
    config: Config,
    timeout: Duration,
}

impl TlsHttpClient {
    /// A backend whose requests take at most `timeout` each.
    pub fn new(timeout: Duration) -> TlsHttpClient {
        TlsHttpClient {
            config: Config::new(),
            timeout,
        }
    }
}

#[async_trait::async_trait]
impl HttpClient for TlsHttpClient {
    async fn send(&self, mut req: Request) -> Result<Response, Error> {
        let url = req.url().clone();
        let host = url
            .host_str()
            .ok_or_else(|| Error::from_str(400, format!("no host in '{url}'")))?
            .to_string();
        let port = url
            .port_or_known_default()
            .ok_or_else(|| Error::from_str(400, format!("no port in '{url}'")))?;
        req.insert_header("host", format!("{host}:{port}"));
        let exchange = async {
            let stream = match url.scheme() {
                scheme @ ("https" | "http") => {
                    Stream::connect(&host, port, self.timeout, scheme == "https").await?
                }
                other => {
                    return Err(Error::from_str(
                        400,
                        format!("unsupported URL scheme '{other}'"),
                    ));
                }
            };
            async_h1::connect(stream, req).await
        };
        async_std::future::timeout(self.timeout, exchange)
            .await
            .map_err(|_| Error::from_str(504, format!("{url}: timed out")))?
    }

    fn set_config(&mut self, config: Config) -> http_client::http_types::Result<()> {
        if let Some(t) = config.timeout {
            self.timeout = t;
        }
        self.config = config;
        Ok(())
    }

    fn config(&self) -> &Config {
        &self.config
    }
}
