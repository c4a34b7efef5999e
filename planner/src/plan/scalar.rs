//! The binder's and evaluator's door to the scalar function catalog ([`crate::functions`]):
//! return-type inference at bind time (literal arguments passed as literals, so functions
//! like `jsonExtractScalar(json, path, 'INT')` can take their type from them), per-row
//! invocation at run time, and determinism for constant folding — all by canonical name.

use super::column_type::ColumnType;
use super::eval::EvalError;
use super::expr::Expr;
use crate::functions::{self, ArgType};
use segments::types::Value;

/// Infers the return type of scalar function `canonical` for the given bound arguments;
/// `None` when no such function exists, `Some(Err(message))` when the arguments do not fit.
pub fn return_type(canonical: &str, args: &[Expr]) -> Option<Result<ColumnType, String>> {
    let def = functions::lookup(canonical)?;
    let arg_types: Vec<ArgType> = args
        .iter()
        .map(|a| match a {
            Expr::Literal { value, .. } => ArgType::literal(value),
            other => ArgType::of(other.column_type().data_type),
        })
        .collect();
    Some(
        def.resolve(&arg_types)
            .map(ColumnType::sv)
            .map_err(|e| e.to_string()),
    )
}

/// Calls scalar function `canonical` on one row's argument values.
pub fn invoke(canonical: &str, args: &[Value]) -> Result<Value, EvalError> {
    let def = functions::lookup(canonical)
        .ok_or_else(|| EvalError(format!("unknown function '{canonical}'")))?;
    def.eval(args).map_err(|e| EvalError(e.to_string()))
}

/// Whether calls of `canonical` may be folded (the function is deterministic).
pub fn is_deterministic(canonical: &str) -> bool {
    functions::lookup(canonical).is_some_and(|d| d.is_deterministic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::DataType;

    #[test]
    fn resolves_invokes_and_reports_determinism() {
        let args = [Expr::literal(Value::String("abc".into()))];
        assert_eq!(
            return_type("upper", &args),
            Some(Ok(ColumnType::sv(DataType::String)))
        );
        assert_eq!(
            invoke("upper", &[Value::String("abc".into())]).unwrap(),
            Value::String("ABC".into())
        );
        assert!(return_type("nosuchfunction", &args).is_none());
        assert!(matches!(return_type("upper", &[]), Some(Err(_))));
        assert!(is_deterministic("upper"));
        assert!(!is_deterministic("now"));
        assert!(invoke("nosuchfunction", &[]).is_err());
    }
}
