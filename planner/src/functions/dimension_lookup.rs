//! `lookUp('dimTable', 'dimColumn', 'keyColumn', factValue [, 'keyColumn2', factValue2 …])`:
//! the value of a dimension table's column in the row whose primary key the fact values make,
//! NULL when there is none (Pinot's lookup UDF join).
//!
//! Dimension tables (`isDimTable`) are replicated to every server, and `lookUp` runs where the
//! rows are, against the copy that process hosts. A process that hosts segments registers its
//! [`DimensionTables`] with [`register_dimensions`] (as Pinot's servers register their
//! `DimensionTableDataManager`s); the kernel asks each registered source in turn. The binder
//! checks the call against the catalog (the table is a dimension table, the column exists, the
//! key columns are its primary key) and types it as the looked-up column
//! ([`crate::plan::binder`]); here the arguments are only read.

use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};
use std::sync::{Arc, RwLock, Weak};

/// Where `lookUp` finds dimension tables' rows in this process.
pub trait DimensionTables: Send + Sync {
    /// `column` of `table`'s (raw name) row whose `key_columns` hold `key`: `None` when this
    /// source does not host the table, `Some(Value::Null)` when no row has the key.
    fn lookup(
        &self,
        table: &str,
        column: &str,
        key_columns: &[&str],
        key: &[Value],
    ) -> Option<Result<Value, String>>;
}

static SOURCES: RwLock<Vec<Weak<dyn DimensionTables>>> = RwLock::new(Vec::new());

/// Adds a source of dimension tables for the rest of its life (dropped sources are forgotten).
pub fn register_dimensions(source: &Arc<dyn DimensionTables>) {
    if let Ok(mut sources) = SOURCES.write() {
        sources.retain(|s| s.strong_count() > 0);
        sources.push(Arc::downgrade(source));
    }
}

/// The dimension-table function.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[FunctionDef::new(
    "lookUp",
    Arity::AtLeast(4),
    &[Param::Text, Param::Text, Param::Text, Param::Any],
    // The binder types each call as the looked-up column.
    Returns::Fixed(DataType::String),
    look_up,
)
.handles_nulls()
// Never folded where it is bound: a broker holds no dimension rows.
.nondeterministic()];

fn text(position: usize, v: &Value) -> Result<&str, FunctionError> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(FunctionError::InvalidArgument {
            function: "lookUp",
            value: other.to_string(),
            reason: format!("argument {position} must be a name (a string literal)"),
        }),
    }
}

fn look_up(args: &[Value]) -> Result<Value, FunctionError> {
    let failed = |reason: String| FunctionError::InvalidArgument {
        function: "lookUp",
        value: args.first().map(Value::to_string).unwrap_or_default(),
        reason,
    };
    if args.len() < 4 || !args.len().is_multiple_of(2) {
        return Err(failed(
            "Should have the same number of JoinKey and JoinValue arguments".into(),
        ));
    }
    let table = text(1, &args[0])?;
    let column = text(2, &args[1])?;
    let mut key_columns = Vec::with_capacity(args.len() / 2 - 1);
    let mut key = Vec::with_capacity(args.len() / 2 - 1);
    for (i, pair) in args[2..].chunks(2).enumerate() {
        key_columns.push(text(3 + 2 * i, &pair[0])?);
        key.push(pair[1].clone());
    }
    // A NULL key value matches no row.
    if key.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let sources = SOURCES.read().map_err(|_| failed("poisoned".into()))?;
    for source in sources.iter().filter_map(Weak::upgrade) {
        if let Some(found) = source.lookup(table, column, &key_columns, &key) {
            return found.map_err(failed);
        }
    }
    Err(failed(format!(
        "Dimension table is not populated: {table}_OFFLINE"
    )))
}
