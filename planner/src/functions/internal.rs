//! Pinot's internal functions (`InternalFunctions`): `reqId`, `cid`, `brokerId`, `startTime`,
//! `endTime`, `queryEngine`, `stageId` and `workerId` — what the running query knows about
//! itself.
//!
//! Each takes one STRING argument that is not read: it only says where the call is evaluated. A
//! NULL argument gives NULL. With a literal argument Pinot's broker folds the call while it
//! compiles the query, so `stageId('x')` is -1 even in a multi-stage query; with a column
//! argument the call runs where the rows are, and a multi-stage worker answers its own stage and
//! worker ids.
//!
//! Here the kernels never run: the calls stay in the bound plan (the functions are not
//! deterministic, so neither folded by the binder nor kept in the broker's plan cache) and the
//! query's [`QueryIdentity`](crate::plan::QueryIdentity) replaces them with their values —
//! the broker's identity before the plan runs, a multi-stage worker's stage and worker where it
//! runs (`crate::plan::identity`). A kernel that is reached anyway (a plan run without its
//! identity) fails rather than answer something made up.

use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};

/// One internal function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Internal {
    /// `reqId`: the broker's request id (LONG).
    RequestId,
    /// `cid`: the correlation id — the client's `clientQueryId`, else the request id (STRING).
    CorrelationId,
    /// `brokerId`: the broker instance (STRING).
    BrokerId,
    /// `startTime`: when the broker took the query, epoch ms (LONG).
    StartTime,
    /// `endTime`: the query's deadline, epoch ms (LONG).
    EndTime,
    /// `queryEngine`: `SSE` or `MSE` (STRING).
    QueryEngine,
    /// `stageId`: the multi-stage stage evaluating the call, -1 elsewhere (INT).
    StageId,
    /// `workerId`: the multi-stage worker evaluating the call, -1 elsewhere (INT).
    WorkerId,
}

impl Internal {
    /// The internal function a bound call's canonical name refers to.
    pub fn of(canonical: &str) -> Option<Internal> {
        Some(match canonical {
            "reqid" => Internal::RequestId,
            "cid" => Internal::CorrelationId,
            "brokerid" => Internal::BrokerId,
            "starttime" => Internal::StartTime,
            "endtime" => Internal::EndTime,
            "queryengine" => Internal::QueryEngine,
            "stageid" => Internal::StageId,
            "workerid" => Internal::WorkerId,
            _ => return None,
        })
    }

    /// Whether only the worker evaluating a row knows the value.
    pub fn per_worker(self) -> bool {
        matches!(self, Internal::StageId | Internal::WorkerId)
    }
}

const T: Param = Param::Text;

/// The internal functions (names as Pinot's methods spell them).
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    internal("reqId", DataType::Long),
    internal("cid", DataType::String),
    internal("brokerId", DataType::String),
    internal("startTime", DataType::Long),
    internal("endTime", DataType::Long),
    internal("queryEngine", DataType::String),
    internal("stageId", DataType::Int),
    internal("workerId", DataType::Int),
];

const fn internal(name: &'static str, returns: DataType) -> FunctionDef {
    FunctionDef::new(
        name,
        Arity::Exact(1),
        &[T],
        Returns::Fixed(returns),
        unbound,
    )
    .nondeterministic()
}

/// Every internal function's kernel: reached only by a plan run without its identity.
fn unbound(_: &[Value]) -> Result<Value, FunctionError> {
    Err(FunctionError::InvalidArgument {
        function: "reqId/cid/brokerId/startTime/endTime/queryEngine/stageId/workerId",
        value: String::new(),
        reason: "evaluated outside a query: the query's identity was not bound to the plan".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::functions::{canonical_name, lookup};

    #[test]
    fn every_name_resolves_to_its_kind_and_refuses_to_run_unbound() {
        for def in FUNCTIONS {
            let canonical = canonical_name(def.name());
            assert!(Internal::of(&canonical).is_some(), "{}", def.name());
            assert!(!def.is_deterministic());
            assert!(def.eval(&[Value::String("x".into())]).is_err());
            assert_eq!(def.eval(&[Value::Null]).unwrap(), Value::Null);
        }
        assert_eq!(lookup("REQ_ID").unwrap().name(), "reqId");
        assert_eq!(Internal::of("now"), None);
    }
}
