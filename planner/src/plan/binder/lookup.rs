//! Binding `lookUp('dimTable', 'dimColumn', 'keyColumn', factValue …)`: the call is checked
//! against the catalog as Pinot's `LookupTransformFunction.init` checks it — the table is a
//! dimension table, the column exists, the key columns are exactly its primary key, each fact
//! value is a single value — and typed as the looked-up column. The table name is replaced by
//! the catalog's own spelling, which the servers' [`crate::functions::DimensionTables`] know.

use super::scope::Scope;
use crate::plan::error::PlanError;
use crate::plan::expr::Expr;
use segments::types::Value;

/// Pinot's usage line, the start of its argument-count message.
const USAGE: &str = "At least 4 arguments are required for LOOKUP transform function: LOOKUP(TableName, ColumnName, JoinKey, JoinValue [, JoinKey2, JoinValue2 ...])";

fn name_at(args: &[Expr], i: usize, what: &str) -> Result<String, PlanError> {
    match args[i].as_literal() {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(PlanError::Validation(what.to_string())),
    }
}

/// The bound call, or Pinot's message for what is wrong with it. A key the dimension table lacks
/// reads as the looked-up column's default null value, as Pinot's `LookupTransformFunction`
/// fills it (its DOUBLE default through `intValue()`, as Pinot's) — with null handling too, as
/// the function marks no nulls of its own.
pub fn bind_lookup(scope: &Scope<'_>, mut args: Vec<Expr>) -> Result<Expr, PlanError> {
    let invalid = |m: String| Err(PlanError::Validation(m));
    if args.len() < 4 {
        return invalid(USAGE.to_string());
    }
    if !args.len().is_multiple_of(2) {
        return invalid("Should have the same number of JoinKey and JoinValue arguments".into());
    }
    let table = name_at(
        &args,
        0,
        "First argument must be a literal(string) representing the dimension table name",
    )?;
    let column = name_at(
        &args,
        1,
        "Second argument must be a literal(string) representing the column name from dimension table to lookup",
    )?;
    let mut keys = Vec::new();
    for i in (2..args.len()).step_by(2) {
        keys.push(name_at(
            &args,
            i,
            "JoinKey argument must be a literal(string) representing the primary key for the dimension table",
        )?);
        if !args[i + 1].column_type().single_value {
            return invalid("JoinValue argument must be a single value expression".into());
        }
    }
    let with_type = format!("{table}_OFFLINE");
    let Some(info) = scope
        .catalog
        .and_then(|c| c.resolve_table(&table))
        .filter(|t| t.dim_table)
    else {
        return invalid(format!("Dimension table does not exist: {with_type}"));
    };
    let schema = &info.schema;
    let field = |name: &str| schema.fields.iter().find(|f| f.name == name);
    let Some(looked_up) = field(&column) else {
        return invalid(format!(
            "Column does not exist in dimension table: {with_type}:{column}"
        ));
    };
    if let Some(missing) = keys.iter().find(|k| field(k).is_none()) {
        return invalid(format!(
            "Primary key column doesn't exist in dimension table: {with_type}:{missing}"
        ));
    }
    if keys != schema.primary_key_columns {
        return invalid(format!(
            "Provided join keys ([{}]) must be the same as table primary keys: [{}]",
            keys.join(", "),
            schema.primary_key_columns.join(", ")
        ));
    }
    args[0] = Expr::literal(Value::String(info.name.clone()));
    let return_type = looked_up.column_type();
    let call = Expr::Call {
        name: "lookup".into(),
        args,
        return_type,
    };
    if !looked_up.single_value_field {
        return Ok(call);
    }
    let default = match looked_up.default_null() {
        Value::Double(d) => Value::Double(f64::from(d as i32)),
        other => other,
    };
    Ok(Expr::Call {
        name: "coalesce".into(),
        args: vec![
            call,
            Expr::Literal {
                value: default,
                data_type: looked_up.data_type,
            },
        ],
        return_type,
    })
}
