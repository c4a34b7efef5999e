//! The bytes of a v1 query between a broker and a server in another process: the typed
//! [`ServerQuery`](super::ServerQuery) and [`ServerResult`](engine::server::result::ServerResult)
//! in MessagePack ([`MSGPACK`]), their serde shapes unchanged (structs as maps, so optional
//! and defaulted fields keep their meaning). Against JSON it writes floats and integers as
//! binary (no formatting or parsing of digits, non-finite values intact) and strings without
//! escaping. A request says its encoding with `Content-Type` and the one it wants back with
//! `Accept`; JSON stays accepted both ways, so `curl` and older peers still talk to a server.

use super::TransportError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The media type of MessagePack bodies.
pub const MSGPACK: &str = "application/x-msgpack";

/// `value` as MessagePack.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, TransportError> {
    rmp_serde::to_vec_named(value).map_err(|e| TransportError::Unreadable(e.to_string()))
}

/// A value from MessagePack bytes.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, TransportError> {
    rmp_serde::from_slice(bytes).map_err(|e| TransportError::Unreadable(e.to_string()))
}

/// A value from a body whose media type (`Content-Type`) says MessagePack or, otherwise, JSON;
/// an error is the decoder's own message.
pub fn decode_as<T: DeserializeOwned>(bytes: &[u8], media_type: Option<&str>) -> Result<T, String> {
    if is_msgpack(media_type) {
        rmp_serde::from_slice(bytes).map_err(|e| e.to_string())
    } else {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// Whether a media type (a `Content-Type` or `Accept` value) names MessagePack.
pub fn is_msgpack(media_type: Option<&str>) -> bool {
    media_type.is_some_and(|m| m.split(',').any(|t| t.trim().starts_with(MSGPACK)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::ServerQuery;
    use engine::provider::MemoryTables;
    use engine::server::result::ServerResult;
    use planner::plan::QueryPlan;
    use segments::types::{DataType, FieldSpec, Schema};
    use std::sync::Arc;

    fn plan(sql: &str) -> planner::plan::ServerQueryPlan {
        let mut schema = Schema {
            schema_name: "t".into(),
            ..Schema::default()
        };
        schema
            .fields
            .push(FieldSpec::dimension("g", DataType::String));
        schema.fields.push(FieldSpec::metric("v", DataType::Double));
        schema.fields.push(FieldSpec::metric("n", DataType::Long));
        let mut tables = MemoryTables::new();
        tables.add("t", schema, Vec::new());
        match engine::plan_sql(sql, None, &tables).unwrap().0 {
            QueryPlan::SingleStage(p) => Arc::unwrap_or_clone(p.server),
            other => panic!("not single-stage: {other:?}"),
        }
    }

    #[test]
    fn queries_and_results_survive_the_round_trip() {
        for sql in [
            "SELECT g, SUM(v), DISTINCTCOUNTHLL(n), PERCENTILETDIGEST(v, 90), COUNT(*) FILTER (WHERE n > 3) \
             FROM t WHERE g IN ('a', 'b') AND v BETWEEN 1.5 AND 9 GROUP BY g ORDER BY SUM(v) DESC LIMIT 7",
            "SELECT g, v FROM t WHERE REGEXP_LIKE(g, '^x') OR n IS NULL ORDER BY v LIMIT 3",
            "SELECT MAX(v), MIN(n), AVG(v) FROM t",
        ] {
            let q = ServerQuery {
                table_name_with_type: "t_OFFLINE".into(),
                segments: vec!["s0".into(), "s1".into()],
                segment_crcs: vec![1, 2],
                segment_incarnations: Vec::new(),
                plan: Arc::new(plan(sql)),
                trace: true,
                inline: false,
            };
            let back: ServerQuery = decode(&encode(&q).unwrap()).unwrap();
            assert_eq!(
                serde_json::to_value(&back).unwrap(),
                serde_json::to_value(&q).unwrap(),
                "{sql}"
            );
            assert_eq!(back.plan, q.plan, "{sql}");
            // A broker that does not say whether to try inline asks for the attempt.
            let mut older = serde_json::to_value(&q).unwrap();
            older.as_object_mut().unwrap().remove("inline");
            let older: ServerQuery = serde_json::from_value(older).unwrap();
            assert!(older.inline, "{sql}");
        }
        // Answers with groups, stats and exceptions, and floats JSON cannot carry.
        use engine::aggregate::AggState;
        use segments::types::Value;
        let result = ServerResult {
            data: engine::server::result::IntermediateData::Groups(vec![
                (
                    vec![Value::String("a".into()), Value::Long(-3)],
                    vec![
                        AggState::Sum(Some(f64::NAN)),
                        AggState::Max(Some(f64::INFINITY)),
                        AggState::Avg { sum: 1.5, count: 2 },
                    ],
                ),
                (
                    vec![Value::Null, Value::Double(f64::NEG_INFINITY)],
                    vec![AggState::Sum(None), AggState::Max(None), AggState::Count(7)],
                ),
            ]),
            stats: engine::stats::ExecutionStats {
                num_docs_scanned: 5,
                total_docs: 9,
                ..Default::default()
            },
            num_groups_limit_reached: true,
            exceptions: vec![engine::response::QueryException {
                error_code: 235,
                message: "segment 's2' is not hosted".into(),
            }],
            trace: None,
            over_budget: true,
        };
        let back: ServerResult = decode(&encode(&result).unwrap()).unwrap();
        assert_eq!(format!("{back:?}"), format!("{result:?}"));
    }

    #[test]
    fn media_types() {
        assert!(is_msgpack(Some(MSGPACK)));
        assert!(is_msgpack(Some("application/json, application/x-msgpack")));
        assert!(!is_msgpack(Some("application/json")));
        assert!(!is_msgpack(None));
        assert!(decode::<ServerResult>(b"\xc1 not msgpack").is_err());
        // A body decodes by its media type: MessagePack, else JSON.
        let v = vec![1u32, 2, 3];
        let packed = encode(&v).unwrap();
        assert_eq!(decode_as::<Vec<u32>>(&packed, Some(MSGPACK)), Ok(v.clone()));
        assert_eq!(
            decode_as::<Vec<u32>>(b"[1,2,3]", Some("application/json")),
            Ok(v.clone())
        );
        assert_eq!(decode_as::<Vec<u32>>(b"[1,2,3]", None), Ok(v));
        assert!(decode_as::<Vec<u32>>(&packed, None).is_err());
    }
}
