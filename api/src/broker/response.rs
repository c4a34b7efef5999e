//! Broker response JSON (`BrokerResponseNative`): the fields every client relies on are always
//! present (`numServersQueried`, `numServersResponded`, `numGroupsLimitReached`, `timeUsedMs`,
//! `exceptions`, ...), and [`to_http`] sets `X-Pinot-Error-Code` and, when the client asks with
//! `Pinot-Use-Http-Status-For-Errors: true`, the HTTP status of the first error.

use segments::types::ErrorCode;
use serde_json::{Map, Value as Json, json};
use tide::{Response, StatusCode};

/// The fields a response carries even when the engine did not fill them, in Pinot's order.
fn defaults() -> Vec<(&'static str, Json)> {
    let zero = || json!(0);
    let mut v: Vec<(&'static str, Json)> = Vec::new();
    v.extend([
        ("numRowsResultSet", zero()),
        ("partialResult", json!(false)),
        ("exceptions", json!([])),
        ("numGroupsLimitReached", json!(false)),
        ("numGroupsWarningLimitReached", json!(false)),
        ("maxRowsInDistinctReached", json!(false)),
        ("timeUsedMs", zero()),
        ("requestId", json!("0")),
        ("clientRequestId", Json::Null),
        ("brokerId", json!("")),
        ("numDocsScanned", zero()),
        ("totalDocs", zero()),
        ("numEntriesScannedInFilter", zero()),
        ("numEntriesScannedPostFilter", zero()),
        ("numServersQueried", zero()),
        ("numServersResponded", zero()),
        ("numSegmentsQueried", zero()),
        ("numSegmentsProcessed", zero()),
        ("numSegmentsMatched", zero()),
        ("numConsumingSegmentsQueried", zero()),
        ("numSegmentsPrunedByBroker", zero()),
        ("brokerReduceTimeMs", zero()),
        ("traceInfo", json!({})),
        ("tablesQueried", json!([])),
    ]);
    v
}

/// Adds every missing standard field to `body` (keeping `resultTable` first when present) and
/// recomputes `partialResult` from the exceptions and limit flags.
pub fn complete(body: Json) -> Json {
    let mut src = match body {
        Json::Object(m) => m,
        _ => Map::new(),
    };
    let mut out = Map::new();
    if let Some(rt) = src.remove("resultTable") {
        out.insert("resultTable".into(), rt);
    }
    for (k, v) in defaults() {
        out.insert(k.to_string(), src.remove(k).unwrap_or(v));
    }
    for (k, v) in src {
        out.insert(k, v);
    }
    let has_errors = out["exceptions"].as_array().is_some_and(|e| !e.is_empty());
    let partial =
        has_errors || out["numGroupsLimitReached"] == true || out["partialResult"] == true;
    out.insert("partialResult".into(), json!(partial));
    Json::Object(out)
}

/// One `exceptions[]` entry.
pub fn exception(code: ErrorCode, detail: &str) -> Json {
    json!({ "errorCode": code.code(), "message": code.message(detail) })
}

/// A complete response carrying one exception and no result table.
pub fn error_response_body(code: ErrorCode, detail: &str) -> Json {
    complete(json!({ "exceptions": [exception(code, detail)] }))
}

/// The first exception's code, or -1.
pub fn first_error_code(body: &Json) -> i64 {
    body["exceptions"]
        .as_array()
        .and_then(|e| e.first())
        .and_then(|e| e["errorCode"].as_i64())
        .unwrap_or(-1)
}

/// The HTTP status Pinot uses for a numeric error code.
pub fn http_status_of(code: i64) -> u16 {
    match code {
        100 | 150 | 155 | 246 | 700 | 710 | 720 => 400,
        180 => 403,
        190 | 191 | 230 | 235 => 404,
        240 | 250 | 400 => 408,
        429 => 429,
        210 | 211 | 245 | 305 | 410 | 420 | 425 | 427 | 503 | 510 => 503,
        _ => 500,
    }
}

/// The HTTP response for a broker body.
pub fn to_http(body: &Json, use_http_status: bool) -> Response {
    let code = first_error_code(body);
    let status = if use_http_status && code >= 0 {
        http_status_of(code)
    } else {
        200
    };
    let mut res =
        Response::new(StatusCode::try_from(status).unwrap_or(StatusCode::InternalServerError));
    res.set_body(body.to_string());
    res.set_content_type(tide::http::mime::JSON);
    res.insert_header("X-Pinot-Error-Code", code.to_string());
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_have_every_required_field() {
        let b = error_response_body(ErrorCode::SqlParsing, "bad");
        for k in [
            "numServersQueried",
            "numServersResponded",
            "numGroupsLimitReached",
            "timeUsedMs",
            "exceptions",
        ] {
            assert!(b.get(k).is_some(), "{k}");
        }
        assert_eq!(b["exceptions"][0]["errorCode"], 150);
        assert_eq!(b["exceptions"][0]["message"], "SQLParsingError: bad");
        assert_eq!(b["partialResult"], true);
        assert!(b.get("resultTable").is_none());
        assert_eq!(first_error_code(&b), 150);
        let res = to_http(&b, true);
        assert_eq!(res.status(), StatusCode::BadRequest);
        assert_eq!(res.header("X-Pinot-Error-Code").unwrap().as_str(), "150");
        assert_eq!(to_http(&b, false).status(), StatusCode::Ok);
    }

    #[test]
    fn complete_keeps_result_table_first_and_engine_fields() {
        let b =
            complete(json!({"numDocsScanned": 7, "resultTable": {"rows": []}, "stageStats": {}}));
        assert_eq!(b.as_object().unwrap().keys().next().unwrap(), "resultTable");
        assert_eq!(b["numDocsScanned"], 7);
        assert_eq!(b["partialResult"], false);
        assert!(b.get("stageStats").is_some());
        assert_eq!(
            to_http(&b, true)
                .header("X-Pinot-Error-Code")
                .unwrap()
                .as_str(),
            "-1"
        );
    }
}
