//! A broker query request from any of its shapes: `POST /query/sql` JSON
//! (`{"sql", "trace", "queryOptions"}`), `GET /query/sql?sql=&trace=&queryOptions=`, the
//! `?queryOptions=` URL parameter pinot-connect sends (empty allowed), and `/query`, which
//! forces `useMultistageEngine=true`.

use crate::http::ApiError;
use serde_json::Value as Json;

/// A parsed query request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryRequest {
    /// The SQL text (may start with `SET k=v;` statements).
    pub sql: String,
    /// `"trace": true`.
    pub trace: bool,
    /// Request options in order of appearance (`k=v` pairs; SQL `SET`s are the planner's).
    pub options: Vec<(String, String)>,
}

/// Splits `k1=v1;k2=v2` (whitespace trimmed, empty pairs skipped).
pub fn parse_options(text: &str) -> Result<Vec<(String, String)>, ApiError> {
    let mut out = Vec::new();
    for pair in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').ok_or_else(|| {
            ApiError::bad_request(format!(
                "Invalid queryOptions: '{pair}' is not of the form key=value"
            ))
        })?;
        out.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(out)
}

impl QueryRequest {
    /// From a POST body plus the URL's `queryOptions`; `force_multistage` for `/query`.
    pub fn from_body(
        text: &str,
        url_options: Option<&str>,
        force_multistage: bool,
    ) -> Result<QueryRequest, ApiError> {
        let json: Json = serde_json::from_str(text)
            .map_err(|e| ApiError::bad_request(format!("Invalid JSON: {e}")))?;
        let sql = json.get("sql").and_then(Json::as_str).ok_or_else(|| {
            ApiError::bad_request("Payload is missing the query string field 'sql'")
        })?;
        let trace = match json.get("trace") {
            Some(Json::Bool(b)) => *b,
            Some(Json::String(s)) => s.eq_ignore_ascii_case("true"),
            _ => false,
        };
        let body_options = json
            .get("queryOptions")
            .and_then(Json::as_str)
            .unwrap_or("");
        QueryRequest::new(sql, trace, body_options, url_options, force_multistage)
    }

    /// From parts; body options come first, URL options fill keys not set yet.
    pub fn new(
        sql: &str,
        trace: bool,
        body_options: &str,
        url_options: Option<&str>,
        force_multistage: bool,
    ) -> Result<QueryRequest, ApiError> {
        let mut req = QueryRequest {
            sql: sql.to_string(),
            trace,
            options: parse_options(body_options)?,
        };
        for (k, v) in parse_options(url_options.unwrap_or(""))? {
            req.set_if_absent(&k, &v);
        }
        if force_multistage {
            req.options
                .retain(|(k, _)| !k.eq_ignore_ascii_case("useMultistageEngine"));
            req.options
                .push(("useMultistageEngine".into(), "true".into()));
        }
        if trace {
            req.set_if_absent("trace", "true");
        }
        Ok(req)
    }

    fn set_if_absent(&mut self, key: &str, value: &str) {
        if !self
            .options
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(key))
        {
            self.options.push((key.to_string(), value.to_string()));
        }
    }

    /// The value of option `key` (case-insensitive).
    pub fn option(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the query is traced (`"trace": true`, or option `trace=true`).
    pub fn traced(&self) -> bool {
        self.trace
            || self
                .option("trace")
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The options as `k1=v1;k2=v2`.
    pub fn options_string(&self) -> String {
        self.options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_shape() {
        let r = QueryRequest::from_body(
            r#"{"sql":"SELECT 1","queryOptions":"timeoutMs=5; a=b;"}"#,
            Some(""),
            false,
        )
        .unwrap();
        assert_eq!(r.sql, "SELECT 1");
        assert_eq!(r.options_string(), "timeoutMs=5;a=b");
        let r = QueryRequest::from_body(
            r#"{"sql":"SELECT 1","trace":true}"#,
            Some("timeoutMs=9;useMultistageEngine=false"),
            true,
        )
        .unwrap();
        assert_eq!(r.option("timeoutMs"), Some("9"));
        assert_eq!(r.option("USEMULTISTAGEENGINE"), Some("true"));
        assert_eq!(r.option("trace"), Some("true"));
        let r = QueryRequest::from_body(
            r#"{"sql":"x","queryOptions":"timeoutMs=1"}"#,
            Some("timeoutMs=2"),
            false,
        )
        .unwrap();
        assert_eq!(r.option("timeoutMs"), Some("1"));
    }

    #[test]
    fn errors_are_pinots() {
        assert_eq!(
            QueryRequest::from_body(r#"{"trace":true}"#, None, false)
                .unwrap_err()
                .message,
            "Payload is missing the query string field 'sql'"
        );
        let e = QueryRequest::from_body("{bad", None, false).unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.starts_with("Invalid JSON: "));
        assert!(parse_options("novalue").is_err());
    }
}
