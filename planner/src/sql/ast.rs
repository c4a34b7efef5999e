//! The SQL abstract syntax tree produced by [`super::parse_statement`].
//!
//! The tree is syntax only: names are kept as written (identifiers unquoted, case preserved),
//! `GROUP BY` ordinals and aliases are plain expressions, and nothing is resolved against a
//! schema — the binder in [`crate::plan`] does that. Every node derives serde so plans built from
//! it can cross the network.
//!
//! Changes to this file must stay additive: the binder is written against these shapes.

use serde::{Deserialize, Serialize};

/// One parsed request: the `SET k = v;` statements (and a trailing legacy `OPTION(...)`), an
/// optional `EXPLAIN PLAN FOR`, and exactly one query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    /// Options from `SET` statements then `OPTION(...)`, in source order, values as strings.
    pub set_options: Vec<(String, String)>,
    /// `EXPLAIN PLAN FOR <query>`.
    pub explain: bool,
    /// The one executable statement.
    pub query: Query,
}

/// A query expression: a `SELECT`, a set operation, a `WITH` block, or an ordered/limited
/// set-operation result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Query {
    /// A single `SELECT` block (its own `ORDER BY`/`LIMIT` live in [`Select`]).
    Select(Box<Select>),
    /// `left UNION|INTERSECT|EXCEPT [ALL] right`.
    SetOp {
        op: SetOperator,
        all: bool,
        left: Box<Query>,
        right: Box<Query>,
    },
    /// `WITH name AS (query), ... body`.
    With {
        ctes: Vec<(String, Query)>,
        body: Box<Query>,
    },
    /// `VALUES (e, …), (e, …)`: literal rows.
    Values(Vec<Vec<Expr>>),
    /// `ORDER BY`/`LIMIT`/`OFFSET` applied to a set-operation result (or a parenthesised query).
    Ordered {
        query: Box<Query>,
        order_by: Vec<OrderByExpr>,
        limit: Option<u64>,
        offset: Option<u64>,
    },
}

/// The set operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SetOperator {
    Union,
    Intersect,
    Except,
}

/// One `SELECT` block.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Select {
    /// `SELECT DISTINCT`.
    pub distinct: bool,
    /// The select list.
    pub projection: Vec<SelectItem>,
    /// `FROM` (absent for `SELECT 1`).
    pub from: Option<TableRef>,
    /// `WHERE`.
    pub selection: Option<Expr>,
    /// `GROUP BY` expressions, ordinals (`1`) and aliases as written.
    pub group_by: Vec<Expr>,
    /// `HAVING`.
    pub having: Option<Expr>,
    /// `ORDER BY`.
    pub order_by: Vec<OrderByExpr>,
    /// `LIMIT n`, `LIMIT m, n` (n), or `FETCH NEXT n ROWS ONLY`.
    pub limit: Option<u64>,
    /// `OFFSET m`, `LIMIT m, n` (m).
    pub offset: Option<u64>,
    /// `SELECT /*+ name(key='value', …), … */`: the block's query hints, as written.
    #[serde(default)]
    pub hints: Vec<Hint>,
}

/// One query hint: `joinOptions(join_strategy='lookup')` is `name` `joinOptions` with the
/// option `(join_strategy, lookup)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hint {
    pub name: String,
    pub options: Vec<(String, String)>,
}

/// One entry of a select list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SelectItem {
    /// `*`.
    Wildcard,
    /// `t.*` (the qualifier as written).
    QualifiedWildcard(String),
    /// `expr [AS alias]`.
    Expr { expr: Expr, alias: Option<String> },
}

/// One `ORDER BY` key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderByExpr {
    pub expr: Expr,
    /// `ASC` (the default) or `DESC`.
    pub asc: bool,
    /// `NULLS FIRST` (`Some(true)`), `NULLS LAST` (`Some(false)`), or unspecified.
    pub nulls_first: Option<bool>,
}

/// A `FROM` item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TableRef {
    /// A table, possibly qualified (`db.t`, kept joined with `.`), with an optional alias.
    Table { name: String, alias: Option<String> },
    /// `(query) [AS] alias [(column, …)]`.
    Subquery {
        query: Box<Query>,
        alias: Option<String>,
        /// Names for the query's columns, in order (empty: the query's own names).
        columns: Vec<String>,
        /// `LATERAL (query)`: the query may read columns of the `FROM` items before it.
        #[serde(default)]
        lateral: bool,
    },
    /// A join; comma joins are `Cross` joins without a condition.
    Join {
        left: Box<TableRef>,
        right: Box<TableRef>,
        kind: JoinKind,
        on: Option<Expr>,
        using: Vec<String>,
        /// `NATURAL … JOIN`: joined on every column name both sides have (as `USING` them).
        #[serde(default)]
        natural: bool,
        /// `MATCH_CONDITION(…)` of an `ASOF` join.
        #[serde(default)]
        match_condition: Option<Box<Expr>>,
    },
}

/// Join kinds. `Semi`/`Anti` never come from the grammar; the binder produces them from
/// `IN`/`EXISTS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JoinKind {
    Inner,
    Left,
    Right,
    Full,
    Cross,
    Semi,
    Anti,
    /// `ASOF JOIN … MATCH_CONDITION(…) ON …`: each left row with its closest right row.
    Asof,
    /// `LEFT ASOF JOIN`: as `Asof`, unmatched left rows kept.
    LeftAsof,
}

/// A scalar expression.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A column reference, `name` or `table.name`.
    Column { table: Option<String>, name: String },
    /// A constant.
    Literal(Literal),
    /// `-x`, `+x`, `NOT x`.
    Unary { op: UnaryOp, expr: Box<Expr> },
    /// `left op right`.
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// A function call as written (`name` keeps its case), with `DISTINCT`, `FILTER (WHERE ..)`
    /// and `OVER (..)` if given. Special forms become functions too: `EXTRACT(YEAR FROM x)` is
    /// `EXTRACT('YEAR', x)`, `SUBSTRING(x FROM a FOR b)` is `SUBSTRING(x, a, b)`,
    /// `POSITION(a IN b)` is `POSITION(a, b)`, `TRIM([BOTH|LEADING|TRAILING] [c] FROM x)` is
    /// `TRIM('BOTH', c, x)`.
    Function {
        name: String,
        args: Vec<Expr>,
        distinct: bool,
        filter: Option<Box<Expr>>,
        over: Option<WindowSpec>,
    },
    /// The `*` argument of `count(*)`.
    Star,
    /// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`.
    Case {
        operand: Option<Box<Expr>>,
        branches: Vec<(Expr, Expr)>,
        else_result: Option<Box<Expr>>,
    },
    /// `CAST(expr AS type)`; `data_type` is the type name upper-cased with any parameters,
    /// e.g. `BIGINT`, `VARCHAR`, `DECIMAL(15,2)`.
    Cast { expr: Box<Expr>, data_type: String },
    /// `expr [NOT] IN (list)`.
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    /// `expr [NOT] IN (query)`.
    InSubquery {
        expr: Box<Expr>,
        query: Box<Query>,
        negated: bool,
    },
    /// `[NOT] EXISTS (query)`.
    Exists { query: Box<Query>, negated: bool },
    /// `(query)` used as a value.
    ScalarSubquery(Box<Query>),
    /// `expr [NOT] BETWEEN low AND high`.
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    /// `expr [NOT] LIKE pattern [ESCAPE escape]`.
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
        escape: Option<String>,
    },
    /// `expr IS [NOT] NULL`.
    IsNull { expr: Box<Expr>, negated: bool },
    /// `left IS [NOT] DISTINCT FROM right`; `x IS [NOT] TRUE|FALSE` is written this way too
    /// (`x IS TRUE` = `x IS NOT DISTINCT FROM TRUE`).
    IsDistinctFrom {
        left: Box<Expr>,
        right: Box<Expr>,
        negated: bool,
    },
    /// `INTERVAL 'value' unit`, e.g. `INTERVAL '90' DAY` (unit upper-cased).
    Interval { value: String, unit: String },
}

/// A constant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Literal {
    Null,
    Bool(bool),
    /// An integer that fits `i64`.
    Long(i64),
    /// A number with a fraction or exponent.
    Double(f64),
    /// An integer too large for `i64`, kept as its text.
    Decimal(String),
    /// `'text'` with `''` unescaped.
    String(String),
    /// `DATE 'yyyy-mm-dd'`, `TIMESTAMP '...'`, `TIME '...'`: the text as written.
    Typed {
        kind: TypedLiteral,
        value: String,
    },
}

/// Type tags of typed string literals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TypedLiteral {
    Date,
    Time,
    Timestamp,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
    /// `||`.
    Concat,
}

impl BinaryOp {
    /// The operator with its operands swapped (`5 < a` is `a > 5`).
    pub fn flipped(self) -> BinaryOp {
        match self {
            BinaryOp::Lt => BinaryOp::Gt,
            BinaryOp::LtEq => BinaryOp::GtEq,
            BinaryOp::Gt => BinaryOp::Lt,
            BinaryOp::GtEq => BinaryOp::LtEq,
            other => other,
        }
    }
}

/// `OVER (PARTITION BY .. ORDER BY .. frame)`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WindowSpec {
    pub partition_by: Vec<Expr>,
    pub order_by: Vec<OrderByExpr>,
    pub frame: Option<WindowFrame>,
    /// `IGNORE NULLS` written after the call (`FIRST_VALUE`, `LAST_VALUE`, `LAG`, `LEAD`);
    /// `RESPECT NULLS`, the default, is false.
    #[serde(default)]
    pub ignore_nulls: bool,
}

/// `ROWS|RANGE BETWEEN start AND end`; a frame with only a start has `end = CurrentRow`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WindowFrame {
    pub units: FrameUnits,
    pub start: FrameBound,
    pub end: FrameBound,
    /// `EXCLUDE …` (default `NO OTHERS`).
    #[serde(default)]
    pub exclude: FrameExclude,
}

/// Rows a frame leaves out of itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FrameExclude {
    #[default]
    NoOthers,
    /// The current row.
    CurrentRow,
    /// The current row and its peers.
    Group,
    /// The current row's peers, not the row itself.
    Ties,
}

/// Frame units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FrameUnits {
    Rows,
    Range,
}

/// One end of a window frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FrameBound {
    UnboundedPreceding,
    Preceding(u64),
    CurrentRow,
    Following(u64),
    UnboundedFollowing,
}

impl Expr {
    /// A column reference without a qualifier.
    pub fn column(name: impl Into<String>) -> Expr {
        Expr::Column {
            table: None,
            name: name.into(),
        }
    }

    /// A plain function call (no `DISTINCT`, `FILTER` or `OVER`).
    pub fn function(name: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Function {
            name: name.into(),
            args,
            distinct: false,
            filter: None,
            over: None,
        }
    }

    /// `left op right`.
    pub fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        Expr::Binary {
            op,
            left: Box::new(left),
            right: Box::new(right),
        }
    }
}
