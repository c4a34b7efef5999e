//! AST expressions to bound [`Expr`]s.
//!
//! Two modes:
//! * [`Mode::Row`] — per-document expressions (select list of a selection, `WHERE`, group
//!   keys, aggregate arguments): columns resolve against the table, aggregates are errors.
//! * [`Mode::PostAggregate`] — expressions over the aggregation result (select list, `HAVING`
//!   and `ORDER BY` of an aggregation or group-by query): a sub-expression equal to a group
//!   key becomes [`Expr::Input`] of that key, an aggregate call is registered (deduplicated)
//!   and becomes the input after the keys, and any other column is an error.
//!
//! Literal-only sub-expressions are folded to constants as they are bound.

use super::literal::{literal_value, parse_type_name};
use super::names::{aggregate_name, v1_name};
use super::scope::Scope;
use crate::plan::aggregate::{
    AggregateCall, AggregateFunction, build_function, canonical_name, parse_aggregate_name,
    takes_second_argument,
};
use crate::plan::error::PlanError;
use crate::plan::eval::{NoRow, coerce, eval};
use crate::plan::expr::{ArithOp, CmpOp, Expr, InputRef};
use crate::plan::scalar;
use crate::sql::ast::{self, BinaryOp, UnaryOp};
use segments::types::ColumnType;
use segments::types::{DataType, Value};

/// How column references and aggregates are treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Row,
    PostAggregate,
}

/// Binds expressions of one select block.
pub struct ExprBinder<'a> {
    pub scope: &'a Scope<'a>,
    /// Bound group-by keys (post-aggregate mode).
    pub keys: Vec<Expr>,
    /// Aggregates registered so far (post-aggregate mode).
    pub aggregates: Vec<AggregateCall>,
    /// `enableNullHandling` (it changes how `COUNT(col)` is named).
    pub null_handling: bool,
    /// `autoRewriteAggregationType`: `MIN`/`MAX` of text bind as `MINSTRING`/`MAXSTRING`.
    pub auto_rewrite_aggregation_type: bool,
    /// Binding for the multi-stage engine: `MIN`/`MAX` of a BOOLEAN are `BOOL_AND`/`BOOL_OR`
    /// (Calcite keeps the BOOLEAN type where v1 refuses).
    pub multi_stage: bool,
}

/// Whether an AST expression contains an aggregate call.
pub fn contains_aggregate(e: &ast::Expr) -> bool {
    e.any(&mut |n| {
        matches!(n, ast::Expr::Function { name, over: None, .. }
            if parse_aggregate_name(&canonical_name(name)).is_some())
    })
}

/// Numeric widening order for CASE/COALESCE-like unification.
fn numeric_rank(t: DataType) -> Option<u8> {
    match t {
        DataType::Int => Some(1),
        DataType::Long => Some(2),
        DataType::Float => Some(3),
        DataType::Double => Some(4),
        DataType::BigDecimal => Some(5),
        _ => None,
    }
}

/// The common type of several branch results (NULL literals ignored).
pub fn unify_types(types: &[ColumnType]) -> ColumnType {
    let mut out: Option<ColumnType> = None;
    for t in types {
        out = Some(match out {
            None => *t,
            Some(o) if o.data_type == t.data_type => o,
            Some(o) => match (numeric_rank(o.data_type), numeric_rank(t.data_type)) {
                (Some(a), Some(b)) => {
                    if b > a {
                        *t
                    } else {
                        o
                    }
                }
                _ => ColumnType::sv(DataType::String),
            },
        });
    }
    out.unwrap_or(ColumnType::sv(DataType::String))
}

/// Folds a literal-only expression to a constant; leaves it as is if evaluation fails (the
/// error then surfaces at run time, per row).
pub fn fold(e: Expr) -> Expr {
    if matches!(e, Expr::Literal { .. }) || !e.is_constant() {
        return e;
    }
    let t = e.column_type();
    match eval(&e, &NoRow).and_then(|v| coerce(v, t.data_type)) {
        Ok(value) => Expr::Literal {
            value,
            data_type: t.data_type,
        },
        Err(_) => e,
    }
}

impl<'a> ExprBinder<'a> {
    /// A binder for a block reading `scope`.
    pub fn new(scope: &'a Scope<'a>) -> ExprBinder<'a> {
        ExprBinder {
            scope,
            keys: Vec::new(),
            aggregates: Vec::new(),
            null_handling: false,
            auto_rewrite_aggregation_type: false,
            multi_stage: false,
        }
    }

    /// Binds `e` in `mode`.
    pub fn bind(&mut self, e: &ast::Expr, mode: Mode) -> Result<Expr, PlanError> {
        if mode == Mode::PostAggregate {
            if !contains_aggregate(e) {
                let bound = self.bind(e, Mode::Row)?;
                if let Some(k) = self.keys.iter().position(|k| *k == bound) {
                    return Ok(self.key_input(k));
                }
                if bound.is_constant() {
                    return Ok(bound);
                }
                if let ast::Expr::Column { name, .. } = e {
                    // Calcite's words in the multi-stage engine, Pinot v1's otherwise.
                    return Err(if self.multi_stage {
                        PlanError::Validation(format!("Expression '{name}' is not being grouped"))
                    } else {
                        PlanError::Compilation(format!(
                            "'{name}' should be functionally dependent on the columns used in GROUP BY clause."
                        ))
                    });
                }
            } else if is_aggregate_call(e) {
                let call = self.bind_aggregate(e)?;
                let index = match self.aggregates.iter().position(|a| *a == call) {
                    Some(i) => i,
                    None => {
                        self.aggregates.push(call);
                        self.aggregates.len() - 1
                    }
                };
                let agg = &self.aggregates[index];
                return Ok(Expr::Input(InputRef {
                    index: self.keys.len() + index,
                    name: agg.name.clone(),
                    column_type: agg.result_column_type(),
                }));
            }
        }
        let bound = self.bind_node(e, mode)?;
        Ok(fold(bound))
    }

    fn key_input(&self, k: usize) -> Expr {
        let key = &self.keys[k];
        Expr::Input(InputRef {
            index: k,
            name: key.to_string(),
            column_type: ColumnType::sv(key.column_type().data_type),
        })
    }

    fn bind_box(&mut self, e: &ast::Expr, mode: Mode) -> Result<Box<Expr>, PlanError> {
        Ok(Box::new(self.bind(e, mode)?))
    }

    fn bind_node(&mut self, e: &ast::Expr, mode: Mode) -> Result<Expr, PlanError> {
        Ok(match e {
            ast::Expr::Column { table, name } => {
                let written = match table {
                    Some(t) => format!("{t}.{name}"),
                    None => name.clone(),
                };
                if table.is_some() {
                    return Err(PlanError::UnknownColumn(written));
                }
                match self.scope.resolve(name) {
                    Some(c) => Expr::Column(c),
                    None => return Err(PlanError::UnknownColumn(written)),
                }
            }
            ast::Expr::Literal(lit) => Expr::literal(literal_value(lit)?),
            ast::Expr::Star => {
                return Err(PlanError::Compilation(
                    "'*' is only allowed in COUNT(*)".into(),
                ));
            }
            ast::Expr::Unary { op, expr } => match op {
                UnaryOp::Plus => self.bind(expr, mode)?,
                UnaryOp::Neg => {
                    let inner = self.bind(expr, mode)?;
                    check_numeric(&inner, "negate")?;
                    Expr::Neg(Box::new(inner))
                }
                UnaryOp::Not => Expr::Not(self.bind_box(expr, mode)?),
            },
            ast::Expr::Binary { op, left, right } => {
                let l = self.bind(left, mode)?;
                let r = self.bind(right, mode)?;
                bind_binary(*op, l, r, self.multi_stage)?
            }
            ast::Expr::Function {
                name,
                args,
                distinct,
                filter,
                over,
            } => {
                if over.is_some() {
                    return Err(PlanError::MultiStageOnly("window function".into()));
                }
                let canonical = canonical_name(name);
                if parse_aggregate_name(&canonical).is_some() {
                    return Err(PlanError::Compilation(format!(
                        "aggregation function '{name}' is not allowed here"
                    )));
                }
                if *distinct || filter.is_some() {
                    return Err(PlanError::Compilation(format!(
                        "DISTINCT and FILTER are only allowed in aggregation functions, not in '{name}'"
                    )));
                }
                let bound: Vec<Expr> = args
                    .iter()
                    .map(|a| self.bind(a, mode))
                    .collect::<Result<_, _>>()?;
                self.bind_call(name, &canonical, bound)?
            }
            ast::Expr::Case {
                operand,
                branches,
                else_result,
            } => {
                let operand = match operand {
                    Some(o) => Some(self.bind(o, mode)?),
                    None => None,
                };
                let mut bound = Vec::with_capacity(branches.len());
                for (when, then) in branches {
                    let w = self.bind(when, mode)?;
                    let cond = match &operand {
                        Some(o) => Expr::Compare {
                            op: CmpOp::Eq,
                            left: Box::new(o.clone()),
                            right: Box::new(w),
                        },
                        None => w,
                    };
                    bound.push((cond, self.bind(then, mode)?));
                }
                let else_result = match else_result {
                    Some(e) => self.bind(e, mode)?,
                    None => Expr::literal(Value::Null),
                };
                let types: Vec<ColumnType> = bound
                    .iter()
                    .map(|(_, v)| v)
                    .chain(std::iter::once(&else_result))
                    .filter(|v| !matches!(v.as_literal(), Some(Value::Null)))
                    .map(Expr::column_type)
                    .collect();
                Expr::Case {
                    branches: bound,
                    else_result: Box::new(else_result),
                    return_type: unify_types(&types),
                }
            }
            ast::Expr::Cast { expr, data_type } => Expr::Cast {
                expr: self.bind_box(expr, mode)?,
                to: parse_type_name(data_type)?,
            },
            ast::Expr::InList {
                expr,
                list,
                negated,
            } => Expr::InList {
                expr: self.bind_box(expr, mode)?,
                list: list
                    .iter()
                    .map(|x| self.bind(x, mode))
                    .collect::<Result<_, _>>()?,
                negated: *negated,
            },
            ast::Expr::Between {
                expr,
                low,
                high,
                negated,
            } => Expr::Between {
                expr: self.bind_box(expr, mode)?,
                low: self.bind_box(low, mode)?,
                high: self.bind_box(high, mode)?,
                negated: *negated,
            },
            ast::Expr::Like {
                expr,
                pattern,
                negated,
                escape,
            } => Expr::Like {
                expr: self.bind_box(expr, mode)?,
                pattern: self.bind_box(pattern, mode)?,
                negated: *negated,
                escape: escape_char(escape.as_deref())?,
            },
            ast::Expr::IsNull { expr, negated } => Expr::IsNull {
                expr: self.bind_box(expr, mode)?,
                negated: *negated,
            },
            ast::Expr::IsDistinctFrom {
                left,
                right,
                negated,
            } => Expr::IsDistinctFrom {
                left: self.bind_box(left, mode)?,
                right: self.bind_box(right, mode)?,
                negated: *negated,
            },
            ast::Expr::Interval { .. } => {
                return Err(PlanError::planning(
                    "INTERVAL literals are not supported by the single-stage engine",
                ));
            }
            ast::Expr::InSubquery { .. }
            | ast::Expr::Exists { .. }
            | ast::Expr::ScalarSubquery(_) => {
                return Err(PlanError::MultiStageOnly("subquery".into()));
            }
        })
    }

    /// Resolves a scalar function through the catalog.
    fn bind_call(
        &mut self,
        written: &str,
        canonical: &str,
        args: Vec<Expr>,
    ) -> Result<Expr, PlanError> {
        if canonical == "lookup" {
            return super::lookup::bind_lookup(self.scope, args);
        }
        if canonical == crate::functions::map::ITEM {
            return super::map_item::bind_item(args);
        }
        match scalar::return_type(canonical, &args) {
            Some(Ok(return_type)) => Ok(Expr::Call {
                name: canonical.to_string(),
                args,
                return_type,
            }),
            Some(Err(message)) => Err(PlanError::Validation(message)),
            None => Err(PlanError::Validation(format!(
                "unsupported function '{written}'"
            ))),
        }
    }

    /// Binds an aggregate call (`SUM(x) FILTER (WHERE …)`).
    pub fn bind_aggregate(&mut self, e: &ast::Expr) -> Result<AggregateCall, PlanError> {
        let ast::Expr::Function {
            name,
            args,
            distinct,
            filter,
            ..
        } = e
        else {
            return Err(PlanError::planning("not an aggregation"));
        };
        let canonical = canonical_name(name);
        let Some((base, legacy, mv)) = parse_aggregate_name(&canonical) else {
            return Err(PlanError::planning(format!(
                "'{name}' is not an aggregation function"
            )));
        };
        // SUM(DISTINCT x) and AVG(DISTINCT x) are Pinot's DISTINCTSUM and DISTINCTAVG.
        let base = match (*distinct, base) {
            (false, base) => base,
            (true, "sum") => "distinctsum",
            (true, "avg") => "distinctavg",
            (true, _) => {
                return Err(PlanError::planning(format!(
                    "DISTINCT is only supported in COUNT(DISTINCT ...), SUM and AVG, not in '{name}'"
                )));
            }
        };
        if args.iter().any(contains_aggregate) {
            return Err(PlanError::Compilation(format!(
                "Aggregate expressions cannot be nested: '{}'",
                v1_name(e)
            )));
        }
        // The funnels' step conditions become one expression (see `plan::funnel`).
        let funnel_args;
        let args: &[ast::Expr] = if let Some(kind) = crate::plan::funnel::window_kind(base) {
            let mut type_of = |e: &ast::Expr| -> Result<DataType, PlanError> {
                Ok(self.bind(e, Mode::Row)?.column_type().data_type)
            };
            funnel_args = crate::plan::funnel::window_funnel_args(kind, args, &mut type_of)?;
            &funnel_args
        } else if base == "funnelcount" {
            funnel_args = crate::plan::funnel::funnel_count_args(args, v1_name)?;
            &funnel_args
        } else {
            args
        };
        let (arg, params): (Option<Expr>, Vec<Value>) = match args.split_first() {
            None => {
                return Err(PlanError::Validation(format!("'{name}' needs an argument")));
            }
            Some((ast::Expr::Star, rest)) => {
                if base != "count" {
                    return Err(PlanError::Validation(format!(
                        "'*' is not a valid argument of '{name}'"
                    )));
                }
                (None, self.constant_params(rest)?)
            }
            Some((first, rest)) => (
                Some(self.bind(first, Mode::Row)?),
                self.constant_params(if takes_second_argument(base) {
                    rest.get(1..).unwrap_or_default()
                } else {
                    rest
                })?,
            ),
        };
        let second = match (takes_second_argument(base), args.get(1)) {
            (false, _) => None,
            (true, Some(e)) => Some(self.bind(e, Mode::Row)?),
            (true, None) => {
                return Err(PlanError::Validation(format!(
                    "'{name}' needs two arguments"
                )));
            }
        };
        if let Some(e) = &second
            && matches!(
                base,
                "covarpop" | "covarsamp" | "firstwithtime" | "lastwithtime" | "exprmin" | "exprmax"
            )
            && !e.column_type().data_type.is_numeric()
        {
            return Err(PlanError::Validation(format!(
                "cannot compute {base} over '{e}' of type {}",
                e.column_type().data_type
            )));
        }
        let mut function = build_function(base, legacy, &params).map_err(PlanError::Validation)?;
        let mut multi_value = mv;
        if let Some(a) = &arg {
            let t = a.column_type();
            if self.multi_stage && t.data_type == DataType::Boolean {
                function = match function {
                    AggregateFunction::Min => AggregateFunction::BoolAnd,
                    AggregateFunction::Max => AggregateFunction::BoolOr,
                    f => f,
                };
            }
            if self.auto_rewrite_aggregation_type && t.data_type == DataType::String {
                function = match function {
                    AggregateFunction::Min => AggregateFunction::MinString,
                    AggregateFunction::Max => AggregateFunction::MaxString,
                    f => f,
                };
            }
            if !t.single_value && function != AggregateFunction::Count {
                multi_value = true;
            }
            if !t.single_value && function == AggregateFunction::Count && !mv {
                multi_value = false;
            }
            // Calcite's operand check of SUM and AVG, in the multi-stage engine.
            if self.multi_stage
                && matches!(function, AggregateFunction::Sum | AggregateFunction::Avg)
                && matches!(t.data_type, DataType::Boolean | DataType::Bytes)
            {
                let f = name.to_ascii_uppercase();
                let sql_type = if t.data_type == DataType::Boolean {
                    "BOOLEAN"
                } else {
                    "VARBINARY"
                };
                return Err(PlanError::Validation(format!(
                    "Cannot apply '{f}' to arguments of type '{f}(<{sql_type}>)'. Supported form(s): '{f}(<NUMERIC>)'"
                )));
            }
            if function.needs_numeric()
                && matches!(
                    t.data_type,
                    DataType::Bytes | DataType::Json | DataType::Boolean | DataType::String
                )
            {
                return Err(PlanError::Validation(format!(
                    "cannot compute {} on '{}' of type {}",
                    function.name(),
                    a,
                    t.data_type
                )));
            }
            let sketch_input_ok = match function {
                AggregateFunction::FrequentItems { longs: true, .. } => matches!(
                    t.data_type,
                    DataType::Int
                        | DataType::Long
                        | DataType::Timestamp
                        | DataType::Boolean
                        | DataType::Bytes
                ),
                AggregateFunction::PercentileKll { .. } => {
                    t.data_type.is_numeric() || t.data_type == DataType::Bytes
                }
                // Pinot's "INTEGER_TUPLE_SKETCH only supports SV BYTES column".
                AggregateFunction::IntegerTupleSketch { .. } => {
                    t.data_type == DataType::Bytes && t.single_value
                }
                // Pinot's id sets hold integers, floats, text and bytes.
                AggregateFunction::IdSet { .. } => t.data_type != DataType::BigDecimal,
                _ => true,
            };
            if !sketch_input_ok {
                return Err(PlanError::Validation(format!(
                    "cannot compute {} on '{}' of type {}",
                    function.name(),
                    a,
                    t.data_type
                )));
            }
            if matches!(
                function,
                AggregateFunction::BoolAnd | AggregateFunction::BoolOr
            ) && !matches!(
                t.data_type,
                DataType::Boolean | DataType::Int | DataType::Long
            ) {
                return Err(PlanError::Validation(format!(
                    "{} expects a BOOLEAN argument, got {}",
                    function.name(),
                    t.data_type
                )));
            }
        }
        let filter = match filter {
            Some(f) => Some(super::filter::bind_filter(self, f)?),
            None => None,
        };
        Ok(AggregateCall {
            arg,
            second,
            multi_value,
            name: aggregate_name(e, &function, self.null_handling),
            function,
            filter,
        })
    }

    fn constant_params(&mut self, rest: &[ast::Expr]) -> Result<Vec<Value>, PlanError> {
        rest.iter()
            .map(|p| {
                let b = self.bind(p, Mode::Row)?;
                b.as_literal().cloned().ok_or_else(|| {
                    PlanError::Validation(format!("expected a constant argument, got '{b}'"))
                })
            })
            .collect()
    }
}

fn is_aggregate_call(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Function { name, over: None, .. } if parse_aggregate_name(&canonical_name(name)).is_some())
}

fn escape_char(escape: Option<&str>) -> Result<Option<char>, PlanError> {
    match escape {
        None => Ok(None),
        Some(s) => {
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Ok(Some(c)),
                _ => Err(PlanError::Validation(format!("invalid LIKE escape '{s}'"))),
            }
        }
    }
}

fn check_numeric(e: &Expr, what: &str) -> Result<(), PlanError> {
    let t = e.column_type();
    if !t.single_value {
        return Err(PlanError::Validation(format!(
            "{what} does not accept multi-value argument '{e}'"
        )));
    }
    if matches!(t.data_type, DataType::Bytes | DataType::Json) {
        return Err(PlanError::Validation(format!(
            "{what} does not accept '{e}' of type {}",
            t.data_type
        )));
    }
    Ok(())
}

/// Types a binary operator. Arithmetic is DOUBLE (BIG_DECIMAL with a decimal side), as
/// Pinot's single-stage transforms; in the multi-stage engine (`integral`) `+`, `-`, `*` and `%`
/// of integers stay integers, as Calcite types them (INT, or LONG with a LONG side), computed
/// exactly with overflow an error (`%` by zero too).
fn bind_binary(op: BinaryOp, l: Expr, r: Expr, integral: bool) -> Result<Expr, PlanError> {
    let arith = |aop: ArithOp, l: Expr, r: Expr| -> Result<Expr, PlanError> {
        check_numeric(&l, aop.name())?;
        check_numeric(&r, aop.name())?;
        let (lt, rt) = (l.column_type().data_type, r.column_type().data_type);
        let is_int = |t: DataType| matches!(t, DataType::Int | DataType::Long);
        let return_type = if lt == DataType::BigDecimal || rt == DataType::BigDecimal {
            DataType::BigDecimal
        } else if integral
            && is_int(lt)
            && is_int(rt)
            && matches!(
                aop,
                ArithOp::Add | ArithOp::Sub | ArithOp::Mul | ArithOp::Mod
            )
        {
            if lt == DataType::Long || rt == DataType::Long {
                DataType::Long
            } else {
                DataType::Int
            }
        } else {
            DataType::Double
        };
        Ok(Expr::Arith {
            op: aop,
            left: Box::new(l),
            right: Box::new(r),
            return_type: ColumnType::sv(return_type),
        })
    };
    let cmp = |cop: CmpOp, l: Expr, r: Expr| Expr::Compare {
        op: cop,
        left: Box::new(l),
        right: Box::new(r),
    };
    Ok(match op {
        BinaryOp::Add => arith(ArithOp::Add, l, r)?,
        BinaryOp::Sub => arith(ArithOp::Sub, l, r)?,
        BinaryOp::Mul => arith(ArithOp::Mul, l, r)?,
        BinaryOp::Div => arith(ArithOp::Div, l, r)?,
        BinaryOp::Mod => arith(ArithOp::Mod, l, r)?,
        BinaryOp::Eq => cmp(CmpOp::Eq, l, r),
        BinaryOp::NotEq => cmp(CmpOp::NotEq, l, r),
        BinaryOp::Lt => cmp(CmpOp::Lt, l, r),
        BinaryOp::LtEq => cmp(CmpOp::LtEq, l, r),
        BinaryOp::Gt => cmp(CmpOp::Gt, l, r),
        BinaryOp::GtEq => cmp(CmpOp::GtEq, l, r),
        BinaryOp::And => match (l, r) {
            (Expr::And(mut a), Expr::And(b)) => {
                a.extend(b);
                Expr::And(a)
            }
            (Expr::And(mut a), b) => {
                a.push(b);
                Expr::And(a)
            }
            (a, b) => Expr::And(vec![a, b]),
        },
        BinaryOp::Or => match (l, r) {
            (Expr::Or(mut a), b) => {
                a.push(b);
                Expr::Or(a)
            }
            (a, b) => Expr::Or(vec![a, b]),
        },
        BinaryOp::Concat => Expr::Concat(Box::new(l), Box::new(r)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::catalog::TableInfo;
    use crate::sql::ast::Literal;
    use segments::types::{FieldSpec, Schema};

    fn info() -> TableInfo {
        let mut schema = Schema::default();
        schema
            .fields
            .push(FieldSpec::dimension("team", DataType::String));
        schema.fields.push(FieldSpec::metric("runs", DataType::Int));
        schema.fields.push(FieldSpec {
            single_value_field: false,
            ..FieldSpec::dimension("tags", DataType::String)
        });
        TableInfo::new("t", schema)
    }

    fn lit(v: i64) -> ast::Expr {
        ast::Expr::Literal(Literal::Long(v))
    }

    #[test]
    fn binds_and_folds_row_expressions() {
        let info = info();
        let scope = Scope {
            table: Some(&info),
            catalog: None,
            alias: None,
        };
        let mut b = ExprBinder::new(&scope);
        let e = ast::Expr::binary(
            BinaryOp::Add,
            ast::Expr::column("runs"),
            ast::Expr::binary(BinaryOp::Mul, lit(2), lit(3)),
        );
        let bound = b.bind(&e, Mode::Row).unwrap();
        assert_eq!(bound.column_type(), ColumnType::sv(DataType::Double));
        match &bound {
            Expr::Arith { right, .. } => assert_eq!(right.as_literal(), Some(&Value::Double(6.0))),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            b.bind(&ast::Expr::column("nope"), Mode::Row).unwrap_err(),
            PlanError::UnknownColumn("nope".into())
        );
        assert!(matches!(
            b.bind(
                &ast::Expr::function("sum", vec![ast::Expr::column("runs")]),
                Mode::Row
            ),
            Err(PlanError::Compilation(_))
        ));
    }

    #[test]
    fn post_aggregate_mode_maps_keys_and_aggregates() {
        let info = info();
        let scope = Scope {
            table: Some(&info),
            catalog: None,
            alias: None,
        };
        let mut b = ExprBinder::new(&scope);
        b.keys = vec![b.bind(&ast::Expr::column("team"), Mode::Row).unwrap()];
        let sum = ast::Expr::function("SUM", vec![ast::Expr::column("runs")]);
        let e = ast::Expr::binary(
            BinaryOp::Div,
            sum.clone(),
            ast::Expr::function("count", vec![ast::Expr::Star]),
        );
        let bound = b.bind(&e, Mode::PostAggregate).unwrap();
        assert_eq!(b.aggregates.len(), 2);
        assert_eq!(b.aggregates[1].arg, None);
        match &bound {
            Expr::Arith { left, right, .. } => {
                assert!(matches!(
                    left.as_ref(),
                    Expr::Input(InputRef { index: 1, .. })
                ));
                assert!(matches!(
                    right.as_ref(),
                    Expr::Input(InputRef { index: 2, .. })
                ));
            }
            other => panic!("unexpected {other:?}"),
        }
        // The same aggregate again is deduplicated; the key maps to input 0.
        b.bind(&sum, Mode::PostAggregate).unwrap();
        assert_eq!(b.aggregates.len(), 2);
        assert!(matches!(
            b.bind(&ast::Expr::column("team"), Mode::PostAggregate)
                .unwrap(),
            Expr::Input(InputRef { index: 0, .. })
        ));
        assert!(matches!(
            b.bind(&ast::Expr::column("runs"), Mode::PostAggregate),
            Err(PlanError::Compilation(_))
        ));
    }

    #[test]
    fn aggregates_take_parameters_and_mv_arguments() {
        let info = info();
        let scope = Scope {
            table: Some(&info),
            catalog: None,
            alias: None,
        };
        let mut b = ExprBinder::new(&scope);
        let p = b
            .bind_aggregate(&ast::Expr::function(
                "percentile",
                vec![ast::Expr::column("runs"), lit(90)],
            ))
            .unwrap();
        assert_eq!(
            p.function,
            AggregateFunction::Percentile { percentile: 90.0 }
        );
        let d = b
            .bind_aggregate(&ast::Expr::function(
                "distinctCount",
                vec![ast::Expr::column("tags")],
            ))
            .unwrap();
        assert!(d.multi_value);
        let c = b
            .bind_aggregate(&ast::Expr::function(
                "count",
                vec![ast::Expr::column("tags")],
            ))
            .unwrap();
        assert!(!c.multi_value);
        let cm = b
            .bind_aggregate(&ast::Expr::function(
                "countMV",
                vec![ast::Expr::column("tags")],
            ))
            .unwrap();
        assert!(cm.multi_value);
        assert!(
            b.bind_aggregate(&ast::Expr::function("sum", vec![ast::Expr::Star]))
                .is_err()
        );
        assert!(
            b.bind_aggregate(&ast::Expr::function(
                "percentile",
                vec![ast::Expr::column("runs"), ast::Expr::column("runs")]
            ))
            .is_err()
        );
    }

    #[test]
    fn case_types_unify() {
        assert_eq!(
            unify_types(&[
                ColumnType::sv(DataType::Int),
                ColumnType::sv(DataType::Double)
            ]),
            ColumnType::sv(DataType::Double)
        );
        assert_eq!(
            unify_types(&[
                ColumnType::sv(DataType::Int),
                ColumnType::sv(DataType::String)
            ]),
            ColumnType::sv(DataType::String)
        );
    }
}
