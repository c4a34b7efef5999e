//! Bound, typed scalar expressions: what the binder makes of an AST [`crate::sql::Expr`].
//!
//! Every node knows its [`ColumnType`]. Columns are resolved against the schema, literals are
//! typed [`Value`]s, named functions are resolved through the scalar function catalog (by
//! canonical name), and operators keep their own variants so the engine can run them without
//! a catalog lookup. [`Expr::Input`] refers to a column of an intermediate row (group keys,
//! aggregate results, projected selection columns) and only appears in broker-side plans.
//!
//! `Display` renders Pinot's expression text as EXPLAIN shows it:
//! `times(invertedIndexCol1,'5')`, `case(less_than(a,'10'),'less','more')`.

use segments::types::ColumnType;
use segments::types::{DataType, Value};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A resolved table column.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ColumnRef {
    /// The column's name as the schema spells it.
    pub name: String,
    pub column_type: ColumnType,
}

/// A column of an intermediate row (server output as the broker sees it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InputRef {
    pub index: usize,
    /// The name the value will have in the result (used for display).
    pub name: String,
    pub column_type: ColumnType,
}

/// Arithmetic operators (Pinot v1: results are DOUBLE, or BIG_DECIMAL if an input is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
}

impl ArithOp {
    /// Pinot's transform function name.
    pub fn name(self) -> &'static str {
        match self {
            ArithOp::Add => "plus",
            ArithOp::Sub => "minus",
            ArithOp::Mul => "times",
            ArithOp::Div => "divide",
            ArithOp::Mod => "mod",
        }
    }
}

impl CmpOp {
    /// Pinot's transform function name.
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "equals",
            CmpOp::NotEq => "not_equals",
            CmpOp::Lt => "less_than",
            CmpOp::LtEq => "less_than_or_equal",
            CmpOp::Gt => "greater_than",
            CmpOp::GtEq => "greater_than_or_equal",
        }
    }

    /// The SQL symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtEq => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtEq => ">=",
        }
    }

    /// The operator with its operands swapped (`a < b` ⇔ `b > a`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::LtEq => CmpOp::GtEq,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::GtEq => CmpOp::LtEq,
            other => other,
        }
    }

    /// Whether an ordering satisfies the operator.
    pub fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Eq => ord == Equal,
            CmpOp::NotEq => ord != Equal,
            CmpOp::Lt => ord == Less,
            CmpOp::LtEq => ord != Greater,
            CmpOp::Gt => ord == Greater,
            CmpOp::GtEq => ord != Less,
        }
    }
}

/// A bound expression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A table column.
    Column(ColumnRef),
    /// A column of the intermediate row (broker side).
    Input(InputRef),
    /// A typed constant; `Value::Null` carries the type it will be read as.
    Literal { value: Value, data_type: DataType },
    /// A scalar function from the catalog, by canonical name (lower case, no `_`).
    Call {
        name: String,
        args: Vec<Expr>,
        return_type: ColumnType,
    },
    /// `left op right` on numbers.
    Arith {
        op: ArithOp,
        left: Box<Expr>,
        right: Box<Expr>,
        return_type: ColumnType,
    },
    /// `-x`.
    Neg(Box<Expr>),
    /// `left op right`, BOOLEAN.
    Compare {
        op: CmpOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// Conjunction (three-valued).
    And(Vec<Expr>),
    /// Disjunction (three-valued).
    Or(Vec<Expr>),
    /// Negation (three-valued).
    Not(Box<Expr>),
    /// `a || b`.
    Concat(Box<Expr>, Box<Expr>),
    /// `CASE WHEN c THEN v … ELSE e END` (a simple CASE is bound to this form).
    Case {
        branches: Vec<(Expr, Expr)>,
        else_result: Box<Expr>,
        return_type: ColumnType,
    },
    /// `CAST(expr AS type)`.
    Cast { expr: Box<Expr>, to: DataType },
    /// `expr [NOT] IN (list)`.
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    /// `expr [NOT] BETWEEN low AND high`.
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    /// `expr [NOT] LIKE pattern`.
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        escape: Option<char>,
    },
    /// `expr IS [NOT] NULL`.
    IsNull { expr: Box<Expr>, negated: bool },
    /// `left IS [NOT] DISTINCT FROM right`.
    IsDistinctFrom {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
}

impl Expr {
    /// A literal of the value's own type (`Null` reads as STRING).
    pub fn literal(value: Value) -> Expr {
        let data_type = value.data_type().unwrap_or(DataType::String);
        Expr::Literal { value, data_type }
    }

    /// The expression's result type.
    pub fn column_type(&self) -> ColumnType {
        match self {
            Expr::Column(c) => c.column_type,
            Expr::Input(i) => i.column_type,
            Expr::Literal { value, data_type } => ColumnType {
                data_type: *data_type,
                single_value: !matches!(value, Value::Array(_)),
                map_value: None,
            },
            Expr::Call { return_type, .. }
            | Expr::Arith { return_type, .. }
            | Expr::Case { return_type, .. } => *return_type,
            Expr::Neg(e) => {
                let t = e.column_type();
                match t.data_type {
                    DataType::Int
                    | DataType::Long
                    | DataType::Float
                    | DataType::Double
                    | DataType::BigDecimal => t,
                    _ => ColumnType::sv(DataType::Double),
                }
            }
            Expr::Compare { .. }
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::Not(_)
            | Expr::InList { .. }
            | Expr::Between { .. }
            | Expr::Like { .. }
            | Expr::IsNull { .. }
            | Expr::IsDistinctFrom { .. } => ColumnType::sv(DataType::Boolean),
            Expr::Concat(..) => ColumnType::sv(DataType::String),
            Expr::Cast { expr, to } => ColumnType {
                data_type: *to,
                single_value: expr.column_type().single_value,
                map_value: None,
            },
        }
    }

    /// The literal value if this is a constant.
    pub fn as_literal(&self) -> Option<&Value> {
        match self {
            Expr::Literal { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Whether the expression reads no column and no input (foldable).
    pub fn is_constant(&self) -> bool {
        let mut constant = true;
        self.visit(&mut |e| {
            if matches!(e, Expr::Column(_) | Expr::Input(_)) {
                constant = false;
            }
            // Functions whose value changes per call are never folded.
            if let Expr::Call { name, .. } = e
                && !crate::functions::lookup(name).is_some_and(|d| d.is_deterministic())
            {
                constant = false;
            }
        });
        constant
    }

    /// The direct children.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column(_) | Expr::Input(_) | Expr::Literal { .. } => vec![],
            Expr::Call { args, .. } => args.iter().collect(),
            Expr::Arith { left, right, .. }
            | Expr::Compare { left, right, .. }
            | Expr::IsDistinctFrom { left, right, .. } => vec![left, right],
            Expr::Concat(l, r) => vec![l, r],
            Expr::Neg(e)
            | Expr::Not(e)
            | Expr::Cast { expr: e, .. }
            | Expr::IsNull { expr: e, .. } => vec![e],
            Expr::And(v) | Expr::Or(v) => v.iter().collect(),
            Expr::Case {
                branches,
                else_result,
                ..
            } => branches
                .iter()
                .flat_map(|(c, v)| [c, v])
                .chain(std::iter::once(else_result.as_ref()))
                .collect(),
            Expr::InList { expr, list, .. } => {
                std::iter::once(expr.as_ref()).chain(list.iter()).collect()
            }
            Expr::Between {
                expr, low, high, ..
            } => vec![expr, low, high],
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
        }
    }

    /// The direct children, mutably (same order as [`Expr::children`]).
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Column(_) | Expr::Input(_) | Expr::Literal { .. } => vec![],
            Expr::Call { args, .. } => args.iter_mut().collect(),
            Expr::Arith { left, right, .. }
            | Expr::Compare { left, right, .. }
            | Expr::IsDistinctFrom { left, right, .. } => vec![left, right],
            Expr::Concat(l, r) => vec![l, r],
            Expr::Neg(x)
            | Expr::Not(x)
            | Expr::Cast { expr: x, .. }
            | Expr::IsNull { expr: x, .. } => {
                vec![x]
            }
            Expr::And(v) | Expr::Or(v) => v.iter_mut().collect(),
            Expr::Case {
                branches,
                else_result,
                ..
            } => branches
                .iter_mut()
                .flat_map(|(c, v)| [c, v])
                .chain(std::iter::once(else_result.as_mut()))
                .collect(),
            Expr::InList { expr, list, .. } => std::iter::once(expr.as_mut())
                .chain(list.iter_mut())
                .collect(),
            Expr::Between {
                expr, low, high, ..
            } => vec![expr, low, high],
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
        }
    }

    /// Applies `f` to every node, children before their parent.
    pub fn rewrite(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        for c in self.children_mut() {
            c.rewrite(f);
        }
        f(self);
    }

    /// Pre-order walk over the expression tree.
    pub fn visit(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.visit(f);
        }
    }

    /// The table columns the expression reads, in first-use order, without duplicates.
    pub fn columns(&self) -> Vec<ColumnRef> {
        let mut out: Vec<ColumnRef> = Vec::new();
        self.visit(&mut |e| {
            if let Expr::Column(c) = e
                && !out.iter().any(|o| o.name == c.name)
            {
                out.push(c.clone());
            }
        });
        out
    }

    /// Whether the expression reads any multi-value column.
    pub fn reads_multi_value(&self) -> bool {
        self.columns().iter().any(|c| !c.column_type.single_value)
    }
}

/// Pinot's rendering of a literal inside expression text: `'value'`.
pub fn quote_literal(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        other => format!("'{}'", other.to_string().replace('\'', "''")),
    }
}

fn write_call(f: &mut fmt::Formatter<'_>, name: &str, args: &[&Expr]) -> fmt::Result {
    write!(f, "{name}(")?;
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{a}")?;
    }
    f.write_str(")")
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Column(c) => f.write_str(&c.name),
            Expr::Input(i) => f.write_str(&i.name),
            Expr::Literal { value, .. } => f.write_str(&quote_literal(value)),
            Expr::Call { name, args, .. } => write_call(f, name, &args.iter().collect::<Vec<_>>()),
            Expr::Arith {
                op, left, right, ..
            } => write_call(f, op.name(), &[left, right]),
            Expr::Neg(e) => write_call(f, "negate", &[e]),
            Expr::Compare { op, left, right } => write_call(f, op.name(), &[left, right]),
            Expr::And(v) => write_call(f, "and", &v.iter().collect::<Vec<_>>()),
            Expr::Or(v) => write_call(f, "or", &v.iter().collect::<Vec<_>>()),
            Expr::Not(e) => write_call(f, "not", &[e]),
            Expr::Concat(l, r) => write_call(f, "concat", &[l, r]),
            Expr::Case {
                branches,
                else_result,
                ..
            } => {
                let mut args: Vec<&Expr> = Vec::new();
                for (c, v) in branches {
                    args.push(c);
                    args.push(v);
                }
                args.push(else_result);
                write_call(f, "case", &args)
            }
            Expr::Cast { expr, to } => write!(f, "cast({expr},'{}')", to.name()),
            Expr::InList {
                expr,
                list,
                negated,
            } => {
                let mut args: Vec<&Expr> = vec![expr];
                args.extend(list.iter());
                write_call(f, if *negated { "not_in" } else { "in" }, &args)
            }
            Expr::Between {
                expr,
                low,
                high,
                negated,
            } => {
                if *negated {
                    f.write_str("not(")?;
                }
                write_call(f, "between", &[expr, low, high])?;
                if *negated {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Expr::Like {
                expr,
                pattern,
                negated,
                ..
            } => {
                if *negated {
                    f.write_str("not(")?;
                }
                write_call(f, "like", &[expr, pattern])?;
                if *negated {
                    f.write_str(")")?;
                }
                Ok(())
            }
            Expr::IsNull { expr, negated } => {
                write_call(f, if *negated { "is_not_null" } else { "is_null" }, &[expr])
            }
            Expr::IsDistinctFrom {
                left,
                right,
                negated,
            } => write_call(
                f,
                if *negated {
                    "is_not_distinct_from"
                } else {
                    "is_distinct_from"
                },
                &[left, right],
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_of_non_deterministic_functions_are_not_constant() {
        let call = |name: &str| Expr::Call {
            name: name.into(),
            args: vec![],
            return_type: ColumnType::sv(DataType::Long),
        };
        assert!(call("pi").is_constant());
        assert!(!call("now").is_constant());
    }

    fn col(name: &str, t: DataType) -> Expr {
        Expr::Column(ColumnRef {
            name: name.into(),
            column_type: ColumnType::sv(t),
        })
    }

    #[test]
    fn displays_like_pinot() {
        let e = Expr::Arith {
            op: ArithOp::Mul,
            left: Box::new(col("a", DataType::Int)),
            right: Box::new(Expr::literal(Value::Int(5))),
            return_type: ColumnType::sv(DataType::Double),
        };
        assert_eq!(e.to_string(), "times(a,'5')");
        let c = Expr::Case {
            branches: vec![(
                Expr::Compare {
                    op: CmpOp::Lt,
                    left: Box::new(col("a", DataType::Int)),
                    right: Box::new(Expr::literal(Value::Int(10))),
                },
                Expr::literal(Value::String("less".into())),
            )],
            else_result: Box::new(Expr::literal(Value::String("more".into()))),
            return_type: ColumnType::sv(DataType::String),
        };
        assert_eq!(c.to_string(), "case(less_than(a,'10'),'less','more')");
    }

    #[test]
    fn types_columns_and_constness() {
        let e = Expr::Compare {
            op: CmpOp::Eq,
            left: Box::new(col("a", DataType::Int)),
            right: Box::new(col("b", DataType::Long)),
        };
        assert_eq!(e.column_type(), ColumnType::sv(DataType::Boolean));
        assert_eq!(e.columns().len(), 2);
        assert!(!e.is_constant());
        assert!(Expr::Neg(Box::new(Expr::literal(Value::Int(1)))).is_constant());
        assert_eq!(CmpOp::Lt.flip(), CmpOp::Gt);
        assert!(CmpOp::GtEq.holds(std::cmp::Ordering::Equal));
    }
}
