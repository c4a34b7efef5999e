//! One `DEBUG` line per HTTP request under the `tessera::http` logger: method, path, status and
//! time taken. Costs a level check when the logger is above `DEBUG`.

use std::time::Instant;
use tide::{Middleware, Next, Request};

/// Logger target of the request lines.
pub const TARGET: &str = "tessera::http";

/// The request-logging middleware every role's app installs.
#[derive(Debug, Default, Clone, Copy)]
pub struct RequestLog;

#[tide::utils::async_trait]
impl<S: Clone + Send + Sync + 'static> Middleware<S> for RequestLog {
    async fn handle(&self, req: Request<S>, next: Next<'_, S>) -> tide::Result {
        if !log::log_enabled!(target: TARGET, log::Level::Debug) {
            return Ok(next.run(req).await);
        }
        let start = Instant::now();
        let method = req.method();
        let path = req.url().path().to_string();
        let res = next.run(req).await;
        log::debug!(
            target: TARGET,
            "{method} {path} -> {} in {:.3} ms",
            res.status() as u16,
            start.elapsed().as_secs_f64() * 1e3
        );
        Ok(res)
    }
}
