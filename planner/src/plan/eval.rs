//! Row-at-a-time evaluation of bound [`Expr`]s: constant folding in the binder, and the
//! general path of the engine (anything without a vectorised kernel), HAVING and
//! post-aggregation expressions at the broker.
//!
//! Semantics follow Pinot v1: arithmetic is DOUBLE (BIG_DECIMAL when an operand is), NULL in
//! → NULL out, AND/OR/NOT are three-valued, comparisons order numbers numerically and
//! everything else by [`Value::sql_cmp`] (a negative zero equals zero).

use super::expr::{ArithOp, CmpOp, ColumnRef, Expr};
use super::like::LikePattern;
use segments::native::sql_cmp_f64;
use segments::types::{DataType, Value};
use std::cmp::Ordering;

/// An evaluation failure (a runtime `QueryExecutionError`, 200).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EvalError(pub String);

/// Where an expression's column and input references get their values.
pub trait RowSource {
    /// The value of a table column for the current row.
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError>;
    /// The value of intermediate-row column `index`.
    fn input(&self, index: usize) -> Result<Value, EvalError>;
}

/// A row with no columns (constant folding, table-less queries).
pub struct NoRow;

impl RowSource for NoRow {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        Err(EvalError(format!(
            "column '{}' read without a row",
            column.name
        )))
    }
    fn input(&self, index: usize) -> Result<Value, EvalError> {
        Err(EvalError(format!("input {index} read without a row")))
    }
}

/// An intermediate row given as a slice.
pub struct InputRow<'a>(pub &'a [Value]);

impl RowSource for InputRow<'_> {
    fn column(&self, column: &ColumnRef) -> Result<Value, EvalError> {
        Err(EvalError(format!(
            "column '{}' read from an intermediate row",
            column.name
        )))
    }
    fn input(&self, index: usize) -> Result<Value, EvalError> {
        self.0
            .get(index)
            .cloned()
            .ok_or_else(|| EvalError(format!("input {index} out of range")))
    }
}

/// SQL truth of a value: `None` for NULL.
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Boolean(b) => Some(*b),
        Value::String(s) => Some(s.eq_ignore_ascii_case("true")),
        other => other.as_f64().map(|f| f != 0.0),
    }
}

/// Compares two non-null values the way a SQL comparison does.
pub fn compare(a: &Value, b: &Value) -> Ordering {
    let numeric = |v: &Value| {
        !matches!(
            v,
            Value::String(_) | Value::Json(_) | Value::Map(_) | Value::Bytes(_) | Value::Array(_)
        )
    };
    match (a, b) {
        (Value::String(s), other) if numeric(other) => match s.trim().parse::<f64>() {
            Ok(f) => sql_cmp_f64(f, other.as_f64().unwrap_or(f64::NAN)),
            Err(_) => a.sql_cmp(b),
        },
        (other, Value::String(_)) if numeric(other) => compare(b, a).reverse(),
        _ => a.sql_cmp(b),
    }
}

/// Applies an arithmetic operator to two non-null numbers with Java `double` semantics.
pub fn arith(op: ArithOp, l: f64, r: f64) -> f64 {
    match op {
        ArithOp::Add => l + r,
        ArithOp::Sub => l - r,
        ArithOp::Mul => l * r,
        ArithOp::Div => l / r,
        ArithOp::Mod => l % r,
    }
}

/// Integer arithmetic typed INT or LONG over integer values, exactly (a LONG beyond 2^53
/// survives): overflow is an error, "integer overflow" / "long overflow" as Java's exact
/// arithmetic says it. `None` when a side is not an integer or the division has no integer
/// answer to give (by zero): the double path decides.
fn integral_arith(
    op: ArithOp,
    l: &Value,
    r: &Value,
    result: DataType,
) -> Option<Result<Value, EvalError>> {
    let int = |v: &Value| match v {
        Value::Int(x) => Some(i64::from(*x)),
        Value::Long(x) => Some(*x),
        _ => None,
    };
    let (a, b) = (int(l)?, int(r)?);
    if !matches!(result, DataType::Int | DataType::Long) {
        return None;
    }
    let exact = match op {
        ArithOp::Add => a.checked_add(b),
        ArithOp::Sub => a.checked_sub(b),
        ArithOp::Mul => a.checked_mul(b),
        ArithOp::Div if b == 0 => return None,
        ArithOp::Div => a.checked_div(b),
        ArithOp::Mod if b == 0 => return Some(Err(EvalError("division by zero".to_string()))),
        // Java's remainder: `MIN % -1` is 0.
        ArithOp::Mod => Some(a.wrapping_rem(b)),
    };
    Some(match (exact, result) {
        (Some(x), DataType::Int) => i32::try_from(x)
            .map(Value::Int)
            .map_err(|_| EvalError("integer overflow".to_string())),
        (Some(x), _) => Ok(Value::Long(x)),
        (None, DataType::Int) => Err(EvalError("integer overflow".to_string())),
        (None, _) => Err(EvalError("long overflow".to_string())),
    })
}

/// Calls scalar function `canonical` of the catalog on one row's argument values.
fn invoke(canonical: &str, args: &[Value]) -> Result<Value, EvalError> {
    let def = crate::functions::lookup(canonical)
        .ok_or_else(|| EvalError(format!("unknown function '{canonical}'")))?;
    def.eval(args).map_err(|e| EvalError(e.to_string()))
}

/// Evaluates `expr` for one row.
pub fn eval(expr: &Expr, row: &dyn RowSource) -> Result<Value, EvalError> {
    Ok(match expr {
        Expr::Column(c) => row.column(c)?,
        Expr::Input(i) => row.input(i.index)?,
        Expr::Literal { value, .. } => value.clone(),
        Expr::Call { name, args, .. } => {
            let values = args
                .iter()
                .map(|a| eval(a, row))
                .collect::<Result<Vec<_>, _>>()?;
            invoke(name, &values)?
        }
        Expr::Arith {
            op,
            left,
            right,
            return_type,
        } => {
            let l = eval(left, row)?;
            let r = eval(right, row)?;
            if l.is_null() || r.is_null() {
                return Ok(Value::Null);
            }
            if let Some(exact) = integral_arith(*op, &l, &r, return_type.data_type) {
                return exact;
            }
            let num = |v: &Value| {
                v.as_f64()
                    .ok_or_else(|| EvalError(format!("cannot use '{v}' in {}", op.name())))
            };
            let result = arith(*op, num(&l)?, num(&r)?);
            if return_type.data_type == DataType::BigDecimal {
                Value::Double(result)
                    .cast(DataType::BigDecimal)
                    .map_err(|e| EvalError(e.to_string()))?
            } else {
                Value::Double(result)
            }
        }
        Expr::Neg(e) => match eval(e, row)? {
            Value::Null => Value::Null,
            Value::Int(v) => Value::Int(
                v.checked_neg()
                    .ok_or_else(|| EvalError("integer overflow".to_string()))?,
            ),
            Value::Long(v) => Value::Long(
                v.checked_neg()
                    .ok_or_else(|| EvalError("long overflow".to_string()))?,
            ),
            Value::Float(v) => Value::Float(-v),
            Value::Double(v) => Value::Double(-v),
            Value::BigDecimal(s) => Value::BigDecimal(match s.strip_prefix('-') {
                Some(p) => p.to_string(),
                None => format!("-{s}"),
            }),
            other => Value::Double(
                -other
                    .as_f64()
                    .ok_or_else(|| EvalError(format!("cannot negate '{other}'")))?,
            ),
        },
        Expr::Compare { op, left, right } => {
            let l = eval(left, row)?;
            let r = eval(right, row)?;
            compare_op(*op, &l, &r)
        }
        Expr::And(parts) => {
            let mut saw_null = false;
            for p in parts {
                match truth(&eval(p, row)?) {
                    Some(false) => return Ok(Value::Boolean(false)),
                    None => saw_null = true,
                    Some(true) => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Boolean(true)
            }
        }
        Expr::Or(parts) => {
            let mut saw_null = false;
            for p in parts {
                match truth(&eval(p, row)?) {
                    Some(true) => return Ok(Value::Boolean(true)),
                    None => saw_null = true,
                    Some(false) => {}
                }
            }
            if saw_null {
                Value::Null
            } else {
                Value::Boolean(false)
            }
        }
        Expr::Not(e) => match truth(&eval(e, row)?) {
            Some(b) => Value::Boolean(!b),
            None => Value::Null,
        },
        Expr::Concat(l, r) => {
            let l = eval(l, row)?;
            let r = eval(r, row)?;
            if l.is_null() || r.is_null() {
                Value::Null
            } else {
                Value::String(format!("{l}{r}"))
            }
        }
        Expr::Case {
            branches,
            else_result,
            return_type,
        } => {
            let mut chosen = None;
            for (cond, value) in branches {
                if truth(&eval(cond, row)?) == Some(true) {
                    chosen = Some(eval(value, row)?);
                    break;
                }
            }
            let v = match chosen {
                Some(v) => v,
                None => eval(else_result, row)?,
            };
            coerce(v, return_type.data_type)?
        }
        Expr::Cast { expr, to } => {
            let v = eval(expr, row)?;
            v.cast(*to).map_err(|e| EvalError(e.to_string()))?
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let v = eval(expr, row)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            let mut found = false;
            for item in list {
                let item = eval(item, row)?;
                if !item.is_null() && compare(&v, &item) == Ordering::Equal {
                    found = true;
                    break;
                }
            }
            Value::Boolean(found != *negated)
        }
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            let v = eval(expr, row)?;
            let lo = eval(low, row)?;
            let hi = eval(high, row)?;
            if v.is_null() || lo.is_null() || hi.is_null() {
                return Ok(Value::Null);
            }
            let inside =
                compare(&v, &lo) != Ordering::Less && compare(&v, &hi) != Ordering::Greater;
            Value::Boolean(inside != *negated)
        }
        Expr::Like {
            expr,
            pattern,
            negated,
            escape,
        } => {
            let v = eval(expr, row)?;
            let p = eval(pattern, row)?;
            if v.is_null() || p.is_null() {
                return Ok(Value::Null);
            }
            let matched = LikePattern::new(&p.to_string(), *escape).matches(&v.to_string());
            Value::Boolean(matched != *negated)
        }
        Expr::IsNull { expr, negated } => Value::Boolean(eval(expr, row)?.is_null() != *negated),
        Expr::IsDistinctFrom {
            left,
            right,
            negated,
        } => {
            let l = eval(left, row)?;
            let r = eval(right, row)?;
            let distinct = match (l.is_null(), r.is_null()) {
                (true, true) => false,
                (true, false) | (false, true) => true,
                (false, false) => compare(&l, &r) != Ordering::Equal,
            };
            Value::Boolean(distinct != *negated)
        }
    })
}

/// `l op r` with NULL propagation.
pub fn compare_op(op: CmpOp, l: &Value, r: &Value) -> Value {
    if l.is_null() || r.is_null() {
        Value::Null
    } else {
        Value::Boolean(op.holds(compare(l, r)))
    }
}

/// Converts a value to the expression's declared type when they differ (CASE branches of
/// mixed numeric types); NULL stays NULL.
pub fn coerce(v: Value, to: DataType) -> Result<Value, EvalError> {
    match &v {
        Value::Null | Value::Array(_) => Ok(v),
        _ if v.data_type() == Some(to) => Ok(v),
        _ => v.cast(to).map_err(|e| EvalError(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::ColumnType;

    fn lit(v: Value) -> Box<Expr> {
        Box::new(Expr::literal(v))
    }

    #[test]
    fn calls_go_to_the_catalog() {
        assert_eq!(
            invoke("upper", &[Value::String("abc".into())]).unwrap(),
            Value::String("ABC".into())
        );
        assert!(invoke("nosuchfunction", &[]).is_err());
    }

    #[test]
    fn arithmetic_is_double_and_null_propagates() {
        let e = Expr::Arith {
            op: ArithOp::Add,
            left: lit(Value::Int(1)),
            right: lit(Value::Long(2)),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(eval(&e, &NoRow).unwrap(), Value::Double(3.0));
        let e = Expr::Arith {
            op: ArithOp::Div,
            left: lit(Value::Int(1)),
            right: lit(Value::Null),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(eval(&e, &NoRow).unwrap(), Value::Null);
        let e = Expr::Arith {
            op: ArithOp::Div,
            left: lit(Value::Int(1)),
            right: lit(Value::Int(0)),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(eval(&e, &NoRow).unwrap(), Value::Double(f64::INFINITY));
    }

    #[test]
    fn three_valued_logic() {
        let t = Expr::literal(Value::Boolean(true));
        let f = Expr::literal(Value::Boolean(false));
        let n = Expr::literal(Value::Null);
        assert_eq!(
            eval(&Expr::And(vec![t.clone(), n.clone()]), &NoRow).unwrap(),
            Value::Null
        );
        assert_eq!(
            eval(&Expr::And(vec![f.clone(), n.clone()]), &NoRow).unwrap(),
            Value::Boolean(false)
        );
        assert_eq!(
            eval(&Expr::Or(vec![t.clone(), n.clone()]), &NoRow).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            eval(&Expr::Not(Box::new(n.clone())), &NoRow).unwrap(),
            Value::Null
        );
        assert_eq!(
            eval(
                &Expr::IsNull {
                    expr: Box::new(n),
                    negated: false
                },
                &NoRow
            )
            .unwrap(),
            Value::Boolean(true)
        );
    }

    #[test]
    fn comparisons_case_in_between_like() {
        assert_eq!(
            compare(&Value::Int(2), &Value::Double(2.0)),
            Ordering::Equal
        );
        assert_eq!(
            compare(&Value::String("10".into()), &Value::Int(9)),
            Ordering::Greater
        );
        let case = Expr::Case {
            branches: vec![(
                Expr::literal(Value::Boolean(false)),
                Expr::literal(Value::Int(1)),
            )],
            else_result: lit(Value::Double(2.5)),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(eval(&case, &NoRow).unwrap(), Value::Double(2.5));
        let case = Expr::Case {
            branches: vec![(
                Expr::literal(Value::Boolean(true)),
                Expr::literal(Value::Int(1)),
            )],
            else_result: lit(Value::Double(2.5)),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(eval(&case, &NoRow).unwrap(), Value::Double(1.0));
        let inl = Expr::InList {
            expr: lit(Value::Int(3)),
            list: vec![Expr::literal(Value::Long(1)), Expr::literal(Value::Long(3))],
            negated: false,
        };
        assert_eq!(eval(&inl, &NoRow).unwrap(), Value::Boolean(true));
        let btw = Expr::Between {
            expr: lit(Value::Int(3)),
            low: lit(Value::Int(1)),
            high: lit(Value::Int(3)),
            negated: true,
        };
        assert_eq!(eval(&btw, &NoRow).unwrap(), Value::Boolean(false));
        let like = Expr::Like {
            expr: lit(Value::String("hello".into())),
            pattern: lit(Value::String("h%o".into())),
            negated: false,
            escape: None,
        };
        assert_eq!(eval(&like, &NoRow).unwrap(), Value::Boolean(true));
    }

    #[test]
    fn inputs_are_read_by_index() {
        let row = [Value::Long(4), Value::Double(2.0)];
        let e = Expr::Arith {
            op: ArithOp::Div,
            left: Box::new(Expr::Input(super::super::expr::InputRef {
                index: 0,
                name: "count(*)".into(),
                column_type: ColumnType::sv(DataType::Long),
            })),
            right: Box::new(Expr::Input(super::super::expr::InputRef {
                index: 1,
                name: "sum(x)".into(),
                column_type: ColumnType::sv(DataType::Double),
            })),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(eval(&e, &InputRow(&row)).unwrap(), Value::Double(2.0));
        assert!(
            eval(
                &Expr::Input(super::super::expr::InputRef {
                    index: 5,
                    name: "x".into(),
                    column_type: ColumnType::sv(DataType::Long),
                }),
                &InputRow(&row)
            )
            .is_err()
        );
    }
}
