//! [`ApiError`] and the one mapping from errors to Pinot's HTTP error bodies.
//!
//! Controller and broker answer every failure with `{"code": <status>, "error": "<message>"}`
//! (`WebApplicationExceptionMapper`, `BrokerCommonExceptionMapper`); servers with
//! `{"message": "<message>", "status": <status>}` (`DefaultExceptionMapper`). The
//! [`ErrorBodies`] middleware applies that to handler errors, tide's own extractor errors (whose
//! 422 for bad JSON becomes 400), unmatched routes and panics, so nothing reaches a client as an
//! empty body or a dropped connection.

use futures_lite::FutureExt;
use serde::Serialize;
use std::panic::AssertUnwindSafe;
use tide::http::StatusCode;
use tide::{Middleware, Next, Request, Response};

/// A request failure with the HTTP status Pinot uses for it. Deliberately not a
/// `std::error::Error`: tide turns those into 500s, this one keeps its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status code.
    pub status: u16,
    /// The message, as Pinot words it.
    pub message: String,
}

impl ApiError {
    /// An error with any status.
    pub fn new(status: u16, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }
    /// 400 Bad Request.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, message)
    }
    /// 404 Not Found.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(404, message)
    }
    /// 409 Conflict.
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(409, message)
    }
    /// 500 Internal Server Error.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, message)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<ApiError> for tide::Error {
    fn from(e: ApiError) -> tide::Error {
        let status = StatusCode::try_from(e.status).unwrap_or(StatusCode::InternalServerError);
        tide::Error::from_str(status, e.message)
    }
}

/// Which error body shape a role uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorStyle {
    /// `{"code": N, "error": "..."}` (controller, broker).
    CodeError,
    /// `{"message": "...", "status": N}` (server admin API).
    MessageStatus,
}

/// The controller's and broker's error body (`{"code": N, "error": "..."}`).
#[derive(Debug, Serialize)]
struct CodeErrorBody<'a> {
    code: u16,
    error: &'a str,
}

/// The server admin API's error body (`{"message": "...", "status": N}`).
#[derive(Debug, Serialize)]
struct MessageStatusBody<'a> {
    message: &'a str,
    status: u16,
}

/// A JSON error response in `style`.
pub fn error_response(style: ErrorStyle, status: u16, message: &str) -> Response {
    let status_code = StatusCode::try_from(status).unwrap_or(StatusCode::InternalServerError);
    let code = status_code as u16;
    let body = match style {
        ErrorStyle::CodeError => serde_json::to_string(&CodeErrorBody {
            code,
            error: message,
        }),
        ErrorStyle::MessageStatus => serde_json::to_string(&MessageStatusBody {
            message,
            status: code,
        }),
    };
    let mut res = Response::new(status_code);
    // Two fields of plain types: serializing them cannot fail.
    res.set_body(body.unwrap_or_default());
    res.set_content_type(tide::http::mime::JSON);
    res
}

/// Middleware turning handler errors, empty 404/405s and panics into JSON error bodies.
#[derive(Clone, Copy, Debug)]
pub struct ErrorBodies {
    style: ErrorStyle,
}

impl ErrorBodies {
    /// The middleware for one role's error style.
    pub fn new(style: ErrorStyle) -> ErrorBodies {
        ErrorBodies { style }
    }
}

#[tide::utils::async_trait]
impl<S: Clone + Send + Sync + 'static> Middleware<S> for ErrorBodies {
    async fn handle(&self, req: Request<S>, next: Next<'_, S>) -> tide::Result {
        let res = match AssertUnwindSafe(next.run(req)).catch_unwind().await {
            Ok(res) => res,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "internal error".to_string());
                log::error!("request handler panicked: {what}");
                return Ok(error_response(self.style, 500, &what));
            }
        };
        if let Some(err) = res.error() {
            let status = match res.status() {
                // tide answers a body that fails to deserialize with 422; Pinot says 400.
                StatusCode::UnprocessableEntity => 400,
                s => s as u16,
            };
            let message = err.to_string();
            if status >= 500 {
                log::error!("request failed with {status}: {message}");
            }
            return Ok(error_response(self.style, status, &message));
        }
        if matches!(
            res.status(),
            StatusCode::NotFound | StatusCode::MethodNotAllowed
        ) && res.is_empty() == Some(true)
        {
            let status = res.status() as u16;
            let text = format!("HTTP {status} {}", res.status().canonical_reason());
            return Ok(error_response(self.style, status, &text));
        }
        Ok(res)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tide::http::{Method, Url};

    fn app() -> tide::Server<()> {
        let mut app = crate::http::new_app((), ErrorStyle::CodeError);
        app.at("/fail").get(|_| async {
            Err::<String, _>(ApiError::conflict("Schema: x already exists").into())
        });
        app.at("/panic").get(|_| async {
            if true {
                panic!("boom");
            }
            Ok("unreachable")
        });
        app.at("/json").post(|mut req: Request<()>| async move {
            let v: serde_json::Value = req.body_json().await?;
            Ok(v.to_string())
        });
        app
    }

    async fn call(method: Method, path: &str, body: &str) -> (u16, serde_json::Value) {
        let mut req =
            tide::http::Request::new(method, Url::parse(&format!("http://t{path}")).unwrap());
        req.set_body(body);
        let mut res: tide::http::Response = app().respond(req).await.unwrap();
        let text = res.body_string().await.unwrap();
        (
            res.status() as u16,
            serde_json::from_str(&text).unwrap_or(serde_json::Value::Null),
        )
    }

    #[async_std::test]
    async fn errors_become_code_error_bodies() {
        assert_eq!(
            call(Method::Get, "/fail", "").await,
            (
                409,
                json!({"code": 409, "error": "Schema: x already exists"})
            )
        );
        let (status, body) = call(Method::Post, "/json", "{not json").await;
        assert_eq!(status, 400);
        assert_eq!(body["code"], 400);
        assert!(body["error"].as_str().is_some_and(|s| !s.is_empty()));
        assert_eq!(call(Method::Get, "/nope", "").await.0, 404);
        assert_eq!(call(Method::Get, "/nope", "").await.1["code"], 404);
    }

    #[async_std::test]
    async fn panics_become_500() {
        assert_eq!(
            call(Method::Get, "/panic", "").await,
            (500, json!({"code": 500, "error": "boom"}))
        );
    }

    #[test]
    fn server_style_body() {
        let res = error_response(ErrorStyle::MessageStatus, 404, "gone");
        assert_eq!(res.status(), StatusCode::NotFound);
    }
}
