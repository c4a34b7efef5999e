//! The binder's door to the scalar function catalog ([`crate::functions`]): return-type
//! inference at bind time, by canonical name, with literal arguments passed as literals so
//! functions like `jsonExtractScalar(json, path, 'INT')` can take their type from them. (The
//! evaluator calls the catalog itself, in [`super::eval`].)

use super::expr::Expr;
use crate::functions::{self, ArgType};
use segments::types::ColumnType;

/// Infers the return type of scalar function `canonical` for the given bound arguments;
/// `None` when no such function exists, `Some(Err(message))` when the arguments do not fit.
pub fn return_type(canonical: &str, args: &[Expr]) -> Option<Result<ColumnType, String>> {
    let def = functions::lookup(canonical)?;
    let arg_types: Vec<ArgType> = args
        .iter()
        .map(|a| match a {
            Expr::Literal { value, .. } => ArgType::literal(value),
            other => ArgType::of_column(other.column_type()),
        })
        .collect();
    Some(def.resolve_column(&arg_types).map_err(|e| e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::{DataType, Value};

    #[test]
    fn resolves_return_types() {
        let args = [Expr::literal(Value::String("abc".into()))];
        assert_eq!(
            return_type("upper", &args),
            Some(Ok(ColumnType::sv(DataType::String)))
        );
        assert!(return_type("nosuchfunction", &args).is_none());
        assert!(matches!(return_type("upper", &[]), Some(Err(_))));
    }
}
