//! `POST /sql` and `GET /sql` on the controller (`PinotQueryResource`): forwards the query to an
//! online broker's `POST /query/sql` and relays its answer. Controller-side failures are broker
//! responses with one exception and HTTP 200, as Pinot does (410 no broker, 420 none online).

use super::ControllerState;
use crate::http::body::{query_param, read_text};
use crate::http::routes::Routes;
use crate::metadata::records::InstanceType;
use engine::BrokerResponse;
use segments::types::ErrorCode;
use serde::Serialize;
use serde_json::Value as Json;
use tide::{Body, Request, Response, StatusCode};

/// Mounts the query endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Query")
        .post(
            "/sql",
            "Runs SQL through a broker (as the console does)",
            post_sql,
        )
        .get("/sql", "Runs SQL given as ?sql= through a broker", get_sql);
}

/// `GET /sql`'s query parameters, forwarded as the broker's request body.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SqlParams {
    sql: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    query_options: Option<String>,
}

fn answer(body: BrokerResponse) -> tide::Result {
    let mut res = Response::new(StatusCode::Ok);
    res.set_body(Body::from_json(&body)?);
    Ok(res)
}

async fn forward(
    c: &ControllerState,
    payload: Json,
    authorization: Option<String>,
) -> tide::Result {
    let brokers: Vec<_> = c
        .instances()?
        .into_iter()
        .filter(|i| i.instance_type == InstanceType::Broker)
        .collect();
    if brokers.is_empty() {
        return answer(BrokerResponse::from_exception(
            ErrorCode::BrokerResourceMissing,
            "No broker found for the query",
        ));
    }
    let online: Vec<_> = brokers
        .into_iter()
        .filter(|b| c.is_online(&b.instance_name))
        .collect();
    let Some(broker) = online.get(crate::common::clock::now_ms() as usize % online.len().max(1))
    else {
        return answer(BrokerResponse::from_exception(
            ErrorCode::BrokerInstanceMissing,
            "No online broker found for the query",
        ));
    };
    let url = format!("{}/query/sql", broker.base_url());
    let mut request = c.client.post(&url).body(Body::from_json(&payload)?);
    // The broker checks the caller's own credentials (its tables), not the controller's.
    if let Some(a) = authorization {
        request = request.header("Authorization", a);
    }
    let sent = request.await;
    match sent {
        Ok(mut res) => {
            let status = res.status();
            let text = res.body_string().await.unwrap_or_default();
            let mut out = Response::new(status);
            out.set_body(text);
            out.set_content_type(tide::http::mime::JSON);
            if let Some(code) = res.header("X-Pinot-Error-Code") {
                out.insert_header("X-Pinot-Error-Code", code.as_str());
            }
            Ok(out)
        }
        Err(e) => answer(BrokerResponse::from_exception(
            ErrorCode::BrokerRequestSend,
            &format!("cannot reach broker {}: {e}", broker.instance_name),
        )),
    }
}

async fn post_sql(mut req: Request<ControllerState>) -> tide::Result {
    let text = read_text(&mut req, 16 << 20).await?;
    let payload: Json = match serde_json::from_str(&text) {
        Ok(p) => p,
        Err(e) => {
            return answer(BrokerResponse::from_exception(
                ErrorCode::JsonParsing,
                &e.to_string(),
            ));
        }
    };
    if !payload.get("sql").is_some_and(Json::is_string) {
        return answer(BrokerResponse::from_exception(
            ErrorCode::JsonParsing,
            "Payload is missing the query string field 'sql'",
        ));
    }
    let authorization = crate::auth::authorization(&req).map(str::to_string);
    forward(req.state(), payload, authorization).await
}

async fn get_sql(req: Request<ControllerState>) -> tide::Result {
    let Some(sql) = query_param(&req, "sql") else {
        return answer(BrokerResponse::from_exception(
            ErrorCode::JsonParsing,
            "Payload is missing the query string field 'sql'",
        ));
    };
    let payload = SqlParams {
        sql,
        trace: query_param(&req, "trace").map(|t| t.eq_ignore_ascii_case("true")),
        query_options: query_param(&req, "queryOptions"),
    };
    let authorization = crate::auth::authorization(&req).map(str::to_string);
    forward(req.state(), serde_json::to_value(payload)?, authorization).await
}
