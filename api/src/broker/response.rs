//! The broker response on the wire: the typed [`BrokerResponse`] (Pinot's
//! `BrokerResponseNative`, every field always present, in Pinot's order) serialized by serde;
//! [`to_http`] sets `X-Pinot-Error-Code` and, when the client asks with
//! `Pinot-Use-Http-Status-For-Errors: true`, the HTTP status of the first error.

use engine::BrokerResponse;
use tide::{Response, StatusCode};

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

/// The HTTP response for a broker response.
pub fn to_http(body: &BrokerResponse, use_http_status: bool) -> Response {
    let code = body.error_code() as i64;
    let status = if use_http_status && code >= 0 {
        http_status_of(code)
    } else {
        200
    };
    let mut res =
        Response::new(StatusCode::try_from(status).unwrap_or(StatusCode::InternalServerError));
    match serde_json::to_string(body) {
        Ok(text) => res.set_body(text),
        Err(e) => {
            res.set_status(StatusCode::InternalServerError);
            res.set_body(format!(
                "{{\"code\":500,\"error\":\"cannot serialize the response: {e}\"}}"
            ));
        }
    }
    res.set_content_type(tide::http::mime::JSON);
    res.insert_header("X-Pinot-Error-Code", code.to_string());
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::ErrorCode;

    #[test]
    fn error_bodies_have_every_required_field_and_status() {
        let b = BrokerResponse::from_exception(ErrorCode::SqlParsing, "bad");
        let json = serde_json::to_value(&b).unwrap();
        for k in [
            "numServersQueried",
            "numServersResponded",
            "numGroupsLimitReached",
            "timeUsedMs",
            "exceptions",
        ] {
            assert!(json.get(k).is_some(), "{k}");
        }
        assert_eq!(json["exceptions"][0]["errorCode"], 150);
        assert_eq!(json["exceptions"][0]["message"], "SQLParsingError: bad");
        assert_eq!(json["partialResult"], true);
        assert!(json.get("resultTable").is_none());
        let res = to_http(&b, true);
        assert_eq!(res.status(), StatusCode::BadRequest);
        assert_eq!(res.header("X-Pinot-Error-Code").unwrap().as_str(), "150");
        assert_eq!(to_http(&b, false).status(), StatusCode::Ok);
        let ok = BrokerResponse::default();
        assert_eq!(
            to_http(&ok, true)
                .header("X-Pinot-Error-Code")
                .unwrap()
                .as_str(),
            "-1"
        );
    }
}
