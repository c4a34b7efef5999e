//! `traceInfo` of a traced query (`"trace": true`): Pinot's shape, a map from server instance
//! id to a JSON array *serialized as a string*, one element per segment:
//! `{"<segment>": [{"FilterOperator Time": 0.02, "FilterOperator Rows": 10}, ...]}` with times
//! in milliseconds (fractional) and the rows each operator produced.

use engine::trace::SegmentTrace;
use serde_json::{Map, Value as Json, json};

/// The trace string of one server.
pub fn server_trace(segments: &[SegmentTrace]) -> String {
    let list: Vec<Json> = segments
        .iter()
        .map(|s| {
            let ops: Vec<Json> = s
                .operators
                .iter()
                .map(|o| {
                    let mut m = Map::new();
                    m.insert(
                        format!("{} Time", o.operator),
                        json!(o.time_ns as f64 / 1e6),
                    );
                    m.insert(format!("{} Rows", o.operator), json!(o.rows));
                    Json::Object(m)
                })
                .collect();
            json!({ s.segment.clone(): ops })
        })
        .collect();
    Json::Array(list).to_string()
}

/// Takes the raw trace a server attached to its result (`"trace"` key) out of `body`.
pub fn take_server_trace(body: &mut Json) -> Option<Vec<SegmentTrace>> {
    let raw = body.as_object_mut()?.remove("trace")?;
    serde_json::from_value(raw).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::trace::OperatorTrace;

    #[test]
    fn pinot_shape_as_string() {
        let mut body = json!({"trace": [{"segment": "s0", "operators": [
            {"operator": "FilterOperator", "timeNs": 1500000, "rows": 3}]}], "stats": {}});
        let t = take_server_trace(&mut body).unwrap();
        assert!(body.get("trace").is_none());
        assert_eq!(
            t[0].operators[0],
            OperatorTrace {
                operator: "FilterOperator".into(),
                time_ns: 1_500_000,
                rows: 3
            }
        );
        let parsed: Json = serde_json::from_str(&server_trace(&t)).unwrap();
        assert_eq!(parsed[0]["s0"][0]["FilterOperator Time"], 1.5);
        assert_eq!(parsed[0]["s0"][0]["FilterOperator Rows"], 3);
        assert_eq!(take_server_trace(&mut json!({})), None);
    }
}
