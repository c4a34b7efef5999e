//! `item(mapColumn, 'key')` — written `mapColumn['key']` — the value a MAP column holds under a
//! key (Pinot's `ItemTransformFunction`), as the map's value type; the type's default null value
//! when the row's map lacks the key, as Pinot reads a key no segment stores.
//!
//! The binder ([`crate::plan::binder::map_item`]) checks the call as Pinot does (a MAP column
//! and a text literal) and appends the map's value type as a third, literal argument, so the
//! kernel knows what to read and what an absent key reads as; the catalog entry is that
//! three-argument form.

use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::map::item;
use segments::types::{ColumnType, DataType, Value};

/// The function's name, as Pinot registers it.
pub const ITEM: &str = "item";

/// The MAP functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[FunctionDef::new(
    ITEM,
    Arity::Exact(3),
    &[Param::Any, Param::Text, Param::Text],
    Returns::InferColumn(value_type),
    read_item,
)];

/// The value type the binder appended as the third argument.
fn value_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    let Some(name) = args[2].literal_text() else {
        return Err(FunctionError::NeedsLiteral {
            function: ITEM,
            position: 3,
        });
    };
    match DataType::parse(&name) {
        Some(t) if t != DataType::Map => Ok(ColumnType::sv(t)),
        _ => Err(FunctionError::invalid_literal(
            ITEM,
            name,
            "not a MAP value type",
        )),
    }
}

fn read_item(args: &[Value]) -> Result<Value, FunctionError> {
    let invalid = |value: &Value, reason: String| FunctionError::InvalidArgument {
        function: ITEM,
        value: value.to_string(),
        reason,
    };
    let (Some(key), Some(t)) = (args[1].as_str(), args[2].as_str()) else {
        return Err(invalid(&args[1], "the key and type must be text".into()));
    };
    let value_type = DataType::parse(t).ok_or_else(|| invalid(&args[2], "not a type".into()))?;
    item(&args[0], key, value_type).map_err(|reason| invalid(&args[0], reason))
}

#[cfg(test)]
mod tests {
    use crate::functions::{ArgType, lookup};
    use segments::types::{ColumnType, DataType, Value};

    #[test]
    fn reads_a_key_as_the_value_type() {
        let def = lookup("item").unwrap();
        let map = Value::Map(r#"{"a":3}"#.into());
        let s = |t: &str| Value::String(t.into());
        assert_eq!(
            def.eval(&[map.clone(), s("a"), s("INT")]),
            Ok(Value::Int(3))
        );
        assert_eq!(
            def.eval(&[map.clone(), s("b"), s("INT")]),
            Ok(Value::Int(i32::MIN))
        );
        assert_eq!(def.eval(&[map, s("a"), s("STRING")]), Ok(s("3")));
        let int = s("INT");
        let args = [
            ArgType::of_column(ColumnType::map(DataType::Int)),
            ArgType::of(DataType::String),
            ArgType::literal(&int),
        ];
        assert_eq!(
            def.resolve_column(&args).unwrap(),
            ColumnType::sv(DataType::Int)
        );
    }
}
