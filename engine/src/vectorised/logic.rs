//! Boolean logic and `CASE` over whole columns: `AND`, `OR`, `NOT` over BOOLEAN columns (unboxed,
//! or boxed as a per-entry result gives them) in SQL's three-valued logic, and a `CASE` whose
//! conditions are such columns picking each row's value from its branches' columns
//! (`SUM(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END)`). Each takes its inputs already
//! evaluated; `None` when one is not BOOLEAN (a text `'true'`, a number as a condition), and the
//! caller evaluates row by row. Children are
//! evaluated for every row here, where the row evaluator stops at the first deciding one: the
//! caller falls back to it when a child fails, so a row a `CASE` or `AND` guards never reports
//! an error its branch would raise.

use super::Vector;
use planner::plan::eval::coerce;
use segments::types::{DataType, Value};
use std::borrow::Cow;

/// A BOOLEAN column's values (0/1) and null flags.
type Truths<'c> = (Cow<'c, [i64]>, Option<Cow<'c, [bool]>>);

/// A BOOLEAN column's truths: unboxed as they are, or read once from boxed booleans (what
/// an expression over one dictionary column gives per entry); `None` for anything else.
fn truths<V: Vector>(c: &V, n: usize) -> Option<Truths<'_>> {
    if c.data_type() != DataType::Boolean {
        return None;
    }
    if let Some(v) = c.integers() {
        return Some((Cow::Borrowed(v), c.nulls()));
    }
    let mut bits = Vec::with_capacity(n);
    let mut nulls = vec![false; n];
    for (i, null) in nulls.iter_mut().enumerate() {
        match c.value(i) {
            Value::Boolean(b) => bits.push(i64::from(b)),
            Value::Null => {
                bits.push(0);
                *null = true;
            }
            _ => return None,
        }
    }
    Some((
        Cow::Owned(bits),
        nulls.contains(&true).then_some(Cow::Owned(nulls)),
    ))
}

/// Row `i` of a BOOLEAN column: `Some(true/false)`, or `None` when NULL.
fn truth((v, nulls): &Truths<'_>, i: usize) -> Option<bool> {
    match nulls.as_ref().is_some_and(|n| n[i]) {
        true => None,
        false => Some(v[i] != 0),
    }
}

fn booleans<V: Vector>(values: Vec<Option<bool>>) -> V {
    let nulls = values
        .iter()
        .any(Option::is_none)
        .then(|| values.iter().map(Option::is_none).collect());
    let truths = values.iter().map(|v| i64::from(*v == Some(true))).collect();
    V::unboxed_integers(DataType::Boolean, truths, nulls)
}

/// `AND` (`all`) or `OR` of `parts` row by row: the deciding value (FALSE for `AND`, TRUE for
/// `OR`) if any part has it, else NULL if any part is NULL, else the other.
pub fn junction<V: Vector>(all: bool, parts: &[Cow<'_, V>], n: usize) -> Option<V> {
    let parts: Vec<_> = parts
        .iter()
        .map(|p| truths(p.as_ref(), n))
        .collect::<Option<_>>()?;
    let deciding = !all;
    let rows = (0..n)
        .map(|i| {
            let mut saw_null = false;
            for p in &parts {
                match truth(p, i) {
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
pub fn not<V: Vector>(c: &V, n: usize) -> Option<V> {
    let t = truths(c, n)?;
    Some(booleans((0..n).map(|i| truth(&t, i).map(|b| !b)).collect()))
}

/// `CASE WHEN conditions[k] THEN values[k] … ELSE otherwise END` row by row, each row's value
/// coerced to `return_type` as the row evaluator does; `None` when a condition is not unboxed
/// BOOLEAN or a value does not coerce.
pub fn case<V: Vector>(
    conditions: &[Cow<'_, V>],
    values: &[Cow<'_, V>],
    otherwise: &V,
    return_type: DataType,
    n: usize,
) -> Option<V> {
    let conditions: Vec<_> = conditions
        .iter()
        .map(|c| truths(c.as_ref(), n))
        .collect::<Option<_>>()?;
    // Row i's branch: the first whose condition is TRUE, else the last (ELSE).
    let branch = |i: usize| {
        conditions
            .iter()
            .position(|c| truth(c, i) == Some(true))
            .unwrap_or(values.len())
    };
    let columns: Vec<&V> = (values.iter().map(|v| v.as_ref()))
        .chain(std::iter::once(otherwise))
        .collect();
    // Numbers in, DOUBLE out: unboxed all the way.
    if return_type == DataType::Double
        && let Some(numbers) = columns
            .iter()
            .map(|c| c.numbers())
            .collect::<Option<Vec<_>>>()
    {
        let flags: Vec<_> = columns.iter().map(|c| c.nulls()).collect();
        let mut out = Vec::with_capacity(n);
        let mut nulls = vec![false; n];
        for (i, null) in nulls.iter_mut().enumerate() {
            let k = branch(i);
            *null = flags[k].as_ref().is_some_and(|f| f[i]);
            out.push(numbers[k][i]);
        }
        let nulls = nulls.contains(&true).then_some(nulls);
        return Some(V::unboxed_doubles(return_type, out, nulls));
    }
    let rows = (0..n)
        .map(|i| coerce(columns[branch(i)].value(i), return_type).ok())
        .collect::<Option<Vec<Value>>>()?;
    Some(V::boxed(return_type, rows))
}
