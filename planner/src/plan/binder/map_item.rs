//! Binding `item(mapColumn, 'key')` and `mapColumn['key']`: checked as Pinot's
//! `ItemTransformFunction.init` checks it — two arguments, a MAP on the left, a text literal on
//! the right — and typed as the map's value type, which is appended as a literal third argument
//! for the kernel ([`crate::functions::map`]). The map may be a table's column or one a
//! subquery passes on: its type carries the value type either way.

use crate::functions::map::ITEM;
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use segments::types::{ColumnType, DataType, Value};

/// The bound call, or Pinot's message for what is wrong with it.
pub fn bind_item(mut args: Vec<Expr>) -> Result<Expr, PlanError> {
    let invalid = |m: String| Err(PlanError::Validation(m));
    if args.len() != 2 {
        return invalid(format!("Expected exactly 2 arguments, got: {}", args.len()));
    }
    let map_type = args[0].column_type();
    let value_type = match map_type {
        ColumnType {
            data_type: DataType::Map,
            map_value: Some(value),
            ..
        } => value,
        _ => {
            return invalid(format!(
                "Column: {} must be a MAP or OPEN_STRUCT column",
                args[0]
            ));
        }
    };
    // The key is the literal's text, as Pinot's `getStringLiteral` reads it (`m[1]` is key "1").
    let key = match args[1].as_literal() {
        Some(Value::Null | Value::Array(_)) | None => {
            return invalid("Map Item: Right operand must be a literal".into());
        }
        Some(v) => v.to_string(),
    };
    args[1] = Expr::literal(Value::String(key));
    args.push(Expr::literal(Value::String(value_type.name().to_string())));
    Ok(Expr::Call {
        name: ITEM.to_string(),
        args,
        return_type: ColumnType::sv(value_type),
    })
}
