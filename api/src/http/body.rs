//! Request extractors that fail the way Pinot does: bad JSON is a 400 with the parser's message,
//! an oversized body is a 413 before it is read to the end, query parameters are looked up by
//! name without a serde struct per endpoint.

use super::ApiError;
use async_std::io::ReadExt;
use serde::de::DeserializeOwned;
use tide::Request;

/// The value of query parameter `name`, if present (empty values are `Some("")`).
pub fn query_param<S>(req: &Request<S>, name: &str) -> Option<String> {
    req.url()
        .query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// A path parameter (always present on a matched route).
pub fn path_param<S>(req: &Request<S>, name: &str) -> Result<String, ApiError> {
    req.param(name)
        .map(|s| s.to_string())
        .map_err(|_| ApiError::bad_request(format!("missing path parameter '{name}'")))
}

/// The 413 of a body over `limit` bytes.
fn too_large(limit: u64) -> ApiError {
    ApiError::new(
        413,
        format!("Request body exceeds the limit of {limit} bytes"),
    )
}

/// The body, refused at once when it declares more than `limit` bytes, else cut one byte past
/// the limit (a caller that reads that byte knows the body is too large).
fn bounded_body<S>(
    req: &mut Request<S>,
    limit: u64,
) -> Result<impl async_std::io::Read + Unpin, ApiError> {
    if req.len().is_some_and(|n| n as u64 > limit) {
        return Err(too_large(limit));
    }
    Ok(req.take_body().take(limit + 1))
}

/// Reads at most `limit` bytes of body; a declared or actual larger body is a 413.
pub async fn read_bounded<S>(req: &mut Request<S>, limit: u64) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    bounded_body(req, limit)?
        .read_to_end(&mut out)
        .await
        .map_err(|e| ApiError::bad_request(format!("cannot read request body: {e}")))?;
    if out.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(out)
}

/// Streams at most `limit` bytes of body into the new file `to`, never holding it in memory; a
/// declared or actual larger body is a 413 (what was written stays for the caller to remove).
pub async fn read_bounded_to_file<S>(
    req: &mut Request<S>,
    limit: u64,
    to: &std::path::Path,
) -> Result<u64, ApiError> {
    let body = bounded_body(req, limit)?;
    let mut file = async_std::fs::File::create(to)
        .await
        .map_err(|e| ApiError::internal(format!("cannot create '{}': {e}", to.display())))?;
    let copied = async_std::io::copy(body, &mut file)
        .await
        .map_err(|e| ApiError::bad_request(format!("cannot read request body: {e}")))?;
    async_std::io::WriteExt::flush(&mut file)
        .await
        .map_err(|e| ApiError::internal(format!("cannot write '{}': {e}", to.display())))?;
    if copied > limit {
        return Err(too_large(limit));
    }
    Ok(copied)
}

/// The body as UTF-8 text (400 if it is not).
pub async fn read_text<S>(req: &mut Request<S>, limit: u64) -> Result<String, ApiError> {
    let bytes = read_bounded(req, limit).await?;
    String::from_utf8(bytes).map_err(|_| ApiError::bad_request("request body is not valid UTF-8"))
}

/// Parses JSON text into `T`; a parse error is a 400 whose message starts with `prefix`.
pub fn parse_json<T: DeserializeOwned>(text: &str, prefix: &str) -> Result<T, ApiError> {
    serde_json::from_str(text).map_err(|e| ApiError::bad_request(format!("{prefix}{e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_are_400_with_the_prefix() {
        let e = parse_json::<serde_json::Value>("{", "Invalid JSON: ").unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.starts_with("Invalid JSON: "), "{}", e.message);
        assert_eq!(parse_json::<u32>("7", "").unwrap(), 7);
    }

    #[async_std::test]
    async fn bounded_reads_refuse_big_bodies() {
        let mut app = tide::new();
        app.at("/x").post(|mut req: Request<()>| async move {
            let b = query_param(&req, "b");
            let c = query_param(&req, "c");
            let limit: u64 = query_param(&req, "limit")
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            let n = read_bounded(&mut req, limit).await.map(|v| v.len());
            Ok(format!("{b:?} {c:?} {n:?}"))
        });
        let call = |url: &'static str| {
            let app = app.clone();
            async move {
                let mut http = tide::http::Request::new(tide::http::Method::Post, url);
                http.set_body(vec![7u8; 100]);
                let mut res: tide::http::Response = app.respond(http).await.unwrap();
                res.body_string().await.unwrap()
            }
        };
        assert!(call("http://t/x?limit=99").await.contains("status: 413"));
        assert_eq!(
            call("http://t/x?limit=100&b=").await,
            "Some(\"\") None Ok(100)"
        );
    }
}
