//! [`TransportError`]: why a call to another role failed.

/// A failed call to another role.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The role answered with an error status; `message` is its error body's text.
    #[error("HTTP {status}: {message}")]
    Status { status: u16, message: String },
    /// The role could not be reached or the exchange broke off.
    #[error("{0}")]
    Unreachable(String),
    /// The role answered something that is not the expected shape.
    #[error("unreadable answer: {0}")]
    Unreadable(String),
}

impl From<crate::http::ApiError> for TransportError {
    fn from(e: crate::http::ApiError) -> TransportError {
        TransportError::Status {
            status: e.status,
            message: e.message,
        }
    }
}

/// Reads an error answer whole (it says why, and leaves the pooled connection clean) and turns
/// it into [`TransportError::Status`] with the message of Pinot's error body when there is one.
pub async fn status_error(res: &mut surf::Response) -> TransportError {
    let text = res.body_string().await.unwrap_or_default();
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|j| {
            j.get("message")
                .or_else(|| j.get("error"))
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or(text);
    TransportError::Status {
        status: res.status() as u16,
        message,
    }
}

/// Sends `request` and reads its answer whole (so the pooled connection is clean for the next
/// request): `Ok` on a success status, else the status error.
pub async fn send_ok(request: surf::RequestBuilder) -> Result<(), TransportError> {
    let mut res = request
        .await
        .map_err(|e| TransportError::Unreachable(e.to_string()))?;
    if !res.status().is_success() {
        return Err(status_error(&mut res).await);
    }
    let _ = res.body_bytes().await;
    Ok(())
}

/// A JSON request body.
pub fn json_body<T: serde::Serialize>(value: &T) -> Result<surf::Body, TransportError> {
    surf::Body::from_json(value).map_err(|e| TransportError::Unreadable(e.to_string()))
}
