//! Boolean logic and `CASE` over whole columns: `AND`, `OR`, `NOT` over unboxed BOOLEAN columns
//! in SQL's three-valued logic, and a `CASE` whose conditions are such columns picking each
//! row's value from its branches' columns (`SUM(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0
//! END)`). Each takes its inputs already evaluated; `None` when one is not unboxed BOOLEAN (a
//! text `'true'`, a number as a condition), and the caller evaluates row by row. Children are
//! evaluated for every row here, where the row evaluator stops at the first deciding one: the
//! caller falls back to it when a child fails, so a row a `CASE` or `AND` guards never reports
//! an error its branch would raise.

use crate::column::{Cells, Column};
use planner::plan::eval::coerce;
use segments::types::{DataType, Value};

/// An unboxed BOOLEAN column's values (0/1) and null flags.
fn truths(c: &Column) -> Option<(&[i64], Option<&[bool]>)> {
    match (&c.cells, c.data_type) {
        (Cells::I64(v), DataType::Boolean) => Some((v, c.nulls.as_deref())),
        _ => None,
    }
}

/// Row `i` of a BOOLEAN column: `Some(true/false)`, or `None` when NULL.
fn truth((v, nulls): (&[i64], Option<&[bool]>), i: usize) -> Option<bool> {
    match nulls.is_some_and(|n| n[i]) {
        true => None,
        false => Some(v[i] != 0),
    }
}

fn booleans(values: Vec<Option<bool>>) -> Column {
    let nulls = values
        .iter()
        .any(Option::is_none)
        .then(|| values.iter().map(Option::is_none).collect());
    Column {
        cells: Cells::I64(values.iter().map(|v| i64::from(*v == Some(true))).collect()),
        data_type: DataType::Boolean,
        nulls,
    }
}

/// `AND` (`all`) or `OR` of `parts` row by row: the deciding value (FALSE for `AND`, TRUE for
/// `OR`) if any part has it, else NULL if any part is NULL, else the other.
pub fn junction(all: bool, parts: &[Column], n: usize) -> Option<Column> {
    let parts: Vec<_> = parts.iter().map(truths).collect::<Option<_>>()?;
    let deciding = !all;
    let rows = (0..n)
        .map(|i| {
            let mut saw_null = false;
            for p in &parts {
                match truth(*p, i) {
                    Some(b) if b == deciding => return Some(deciding),
                    None => saw_null = true,
                    Some(_) => {}
                }
            }
            (!saw_null).then_some(all)
        })
        .collect();
    Some(booleans(rows))
}

/// `NOT c` row by row (NULL stays NULL).
pub fn not(c: &Column, n: usize) -> Option<Column> {
    let t = truths(c)?;
    Some(booleans((0..n).map(|i| truth(t, i).map(|b| !b)).collect()))
}

/// `CASE WHEN conditions[k] THEN values[k] … ELSE otherwise END` row by row, each row's value
/// coerced to `return_type` as the row evaluator does; `None` when a condition is not unboxed
/// BOOLEAN or a value does not coerce.
pub fn case(
    conditions: &[Column],
    values: &[Column],
    otherwise: &Column,
    return_type: DataType,
    n: usize,
) -> Option<Column> {
    let conditions: Vec<_> = conditions.iter().map(truths).collect::<Option<_>>()?;
    // Row i's branch: the first whose condition is TRUE, else the last (ELSE).
    let branch = |i: usize| {
        conditions
            .iter()
            .position(|c| truth(*c, i) == Some(true))
            .unwrap_or(values.len())
    };
    let columns: Vec<&Column> = values.iter().chain(std::iter::once(otherwise)).collect();
    // Numbers in, DOUBLE out: unboxed all the way.
    if return_type == DataType::Double
        && let Some(numbers) = columns
            .iter()
            .map(|c| c.numbers())
            .collect::<Option<Vec<_>>>()
    {
        let mut out = Vec::with_capacity(n);
        let mut nulls = vec![false; n];
        for (i, null) in nulls.iter_mut().enumerate() {
            let k = branch(i);
            *null = columns[k].nulls.as_ref().is_some_and(|f| f[i]);
            out.push(numbers[k][i]);
        }
        return Some(Column {
            cells: Cells::F64(out),
            data_type: return_type,
            nulls: nulls.contains(&true).then_some(nulls),
        });
    }
    let rows = (0..n)
        .map(|i| coerce(columns[branch(i)].value(i), return_type).ok())
        .collect::<Option<Vec<Value>>>()?;
    Some(Column::from_values(return_type, rows))
}
