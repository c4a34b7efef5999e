//! The HTTP edge shared by every role: a TCP_NODELAY listener, Pinot's error bodies, request
//! helpers (JSON bodies that fail with 400, bounded bodies, multipart forms) and the bridge that
//! moves CPU work from the async executor to rayon.
//!
//! Every role builds its `tide::Server` with [`new_app`], which installs [`ErrorBodies`] so that
//! no handler error, malformed body or panic reaches the client as anything but a JSON body
//! (`{"code": N, "error": "..."}` on controller and broker, `{"message", "status"}` on servers),
//! and [`request_log::RequestLog`], a `DEBUG` line per request under `tessera::http`.

pub mod blocking;
pub mod body;
pub mod client;
pub mod connection;
pub mod error;
pub mod listener;
pub mod metrics;
pub mod multipart;
pub mod request_log;
pub mod routes;

pub use blocking::{catching, on_rayon};
pub use client::http_client;
pub use error::{ApiError, ErrorBodies, ErrorStyle, error_response};
pub use listener::{bind, serve};

/// A tide app for one role with Pinot's error mapping installed.
pub fn new_app<S: Clone + Send + Sync + 'static>(state: S, style: ErrorStyle) -> tide::Server<S> {
    let mut app = tide::with_state(state);
    app.with(request_log::RequestLog);
    app.with(ErrorBodies::new(style));
    app
}
