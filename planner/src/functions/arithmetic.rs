//! Arithmetic and math functions (Pinot's `ArithmeticFunctions`, the polymorphic
//! `scalar/arithmetic/*ScalarFunction`s, `TrigonometricFunctions` and `DateTimeFunctions.round`).
//!
//! * `plus/add`, `minus/sub`, `times/mult`: LONG for whole numbers (wrapping like Java's
//!   `long`), exact BIG_DECIMAL when either side is one, else DOUBLE.
//! * `divide/div`: always DOUBLE (`1/0` is `Infinity`, `0/0` is `NaN`, as Java doubles); the
//!   3-argument form returns its third argument when the divisor is 0.
//! * `mod`: polymorphic (INT % INT is INT …); a whole-number `mod` by 0 is an error (Java's
//!   `ArithmeticException`), a floating one `NaN`.
//! * `abs`, `negate`: keep the argument's numeric type; the smallest INT or LONG is an overflow
//!   error (Java's `Math.negateExact`, Pinot's "integer overflow" / "long overflow").
//! * Whole-number functions: `gcd`, `lcm`, `factorial` (0 to 20, else an error) give LONG;
//!   `bitCount` (of the value as a LONG), `widthBucket(x, lo, hi, n)` give INT; `byteswapInt`
//!   INT and `byteswapLong` LONG reverse the value's bytes.
//! * `rand()` is a uniform DOUBLE in [0, 1) per call (non-deterministic); `rand(seed)` is a
//!   fixed DOUBLE of the seed (Pinot's mix64 of `seed ^ 0x5DEECE66D`).
//! * `e/euler`, `pi`, `cbrt`, `exp2`, `exp10`, `log1p`, `sigmoid`, the trigonometric and
//!   hyperbolic functions (with `asinh`, `acosh`, `atanh` by their logarithmic formulas) and
//!   everything else return DOUBLE.
//! * `round(x, n)` is Pinot's *time* rounding, `(x / n) * n` on LONGs (`round(21, 2)` = 20);
//!   `round(x)` rounds half up to a whole DOUBLE like `roundDecimal(x)` (which keeps NaN and
//!   infinities). `roundDecimal(x, s)`
//!   and `truncate(x, s)` round the shortest decimal text of `x` (Java's `BigDecimal.valueOf`)
//!   to `s` fractional digits, half-up and toward zero respectively.

use super::coerce::{int, num, type_of};
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::typing::{additive_type, common_type, polymorphic_type, unary_polymorphic_type};
use segments::types::value::canonical_decimal;
use segments::types::{DataType, Value};
use std::cell::Cell;
use std::cmp::Ordering;
use std::hash::{BuildHasher, RandomState};

use Param::Number as N;

/// The arithmetic and math functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "plus",
        Arity::Exact(2),
        &[N],
        Returns::Infer(additive),
        plus,
    )
    .with_aliases(&["add"]),
    FunctionDef::new(
        "minus",
        Arity::Exact(2),
        &[N],
        Returns::Infer(additive),
        minus,
    )
    .with_aliases(&["sub", "subtract"]),
    FunctionDef::new(
        "times",
        Arity::Exact(2),
        &[N],
        Returns::Infer(additive),
        times,
    )
    .with_aliases(&["mult", "multiply"]),
    FunctionDef::new(
        "divide",
        Arity::Range(2, 3),
        &[N],
        Returns::Fixed(DataType::Double),
        divide,
    )
    .with_aliases(&["div"]),
    FunctionDef::new(
        "mod",
        Arity::Exact(2),
        &[N],
        Returns::Infer(polymorphic),
        modulo,
    ),
    FunctionDef::new(
        "moduloOrZero",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Double),
        modulo_or_zero,
    ),
    FunctionDef::new(
        "positiveModulo",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Double),
        positive_modulo,
    ),
    FunctionDef::new(
        "intDiv",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Long),
        int_div,
    ),
    FunctionDef::new(
        "intDivOrZero",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Long),
        int_div_or_zero,
    ),
    FunctionDef::new(
        "abs",
        Arity::Exact(1),
        &[N],
        Returns::Infer(unary_polymorphic),
        abs,
    ),
    FunctionDef::new(
        "negate",
        Arity::Exact(1),
        &[N],
        Returns::Infer(unary_polymorphic),
        negate,
    ),
    FunctionDef::new(
        "ceil",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        ceil,
    )
    .with_aliases(&["ceiling"]),
    FunctionDef::new(
        "floor",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        floor,
    ),
    FunctionDef::new(
        "exp",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        exp,
    ),
    FunctionDef::new(
        "ln",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        ln,
    )
    .with_aliases(&["log"]),
    FunctionDef::new(
        "log2",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        log2,
    ),
    FunctionDef::new(
        "log10",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        log10,
    ),
    FunctionDef::new(
        "sqrt",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        sqrt,
    ),
    FunctionDef::new(
        "sign",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        sign,
    ),
    FunctionDef::new(
        "power",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Double),
        power,
    )
    .with_aliases(&["pow"]),
    FunctionDef::new(
        "round",
        Arity::Range(1, 2),
        &[N],
        Returns::Infer(round_type),
        round,
    ),
    FunctionDef::new(
        "roundDecimal",
        Arity::Range(1, 2),
        &[N],
        Returns::Fixed(DataType::Double),
        round_decimal,
    ),
    FunctionDef::new(
        "truncate",
        Arity::Range(1, 2),
        &[N],
        Returns::Fixed(DataType::Double),
        truncate,
    ),
    FunctionDef::new(
        "least",
        Arity::AtLeast(1),
        &[N],
        Returns::Infer(extreme_type),
        least,
    ),
    FunctionDef::new(
        "greatest",
        Arity::AtLeast(1),
        &[N],
        Returns::Infer(extreme_type),
        greatest,
    ),
    FunctionDef::new(
        "gcd",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Long),
        gcd,
    ),
    FunctionDef::new(
        "lcm",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Long),
        lcm,
    ),
    FunctionDef::new(
        "hypot",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Double),
        hypot,
    ),
    FunctionDef::new(
        "isNaN",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Int),
        is_nan,
    ),
    FunctionDef::new(
        "isFinite",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Int),
        is_finite,
    ),
    FunctionDef::new(
        "isInfinite",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Int),
        is_infinite,
    ),
    FunctionDef::new(
        "ifNotFinite",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Double),
        if_not_finite,
    ),
    FunctionDef::new(
        "sin",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        sin,
    ),
    FunctionDef::new(
        "cos",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        cos,
    ),
    FunctionDef::new(
        "tan",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        tan,
    ),
    FunctionDef::new(
        "cot",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        cot,
    ),
    FunctionDef::new(
        "asin",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        asin,
    ),
    FunctionDef::new(
        "acos",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        acos,
    ),
    FunctionDef::new(
        "atan",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        atan,
    ),
    FunctionDef::new(
        "atan2",
        Arity::Exact(2),
        &[N],
        Returns::Fixed(DataType::Double),
        atan2,
    ),
    FunctionDef::new(
        "sinh",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        sinh,
    ),
    FunctionDef::new(
        "cosh",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        cosh,
    ),
    FunctionDef::new(
        "tanh",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        tanh,
    ),
    FunctionDef::new(
        "pi",
        Arity::Exact(0),
        &[],
        Returns::Fixed(DataType::Double),
        pi,
    ),
    FunctionDef::new(
        "degrees",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        degrees,
    ),
    FunctionDef::new(
        "radians",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Double),
        radians,
    ),
    FunctionDef::new("cbrt", Arity::Exact(1), &[N], D, cbrt),
    FunctionDef::new("exp2", Arity::Exact(1), &[N], D, exp2),
    FunctionDef::new("exp10", Arity::Exact(1), &[N], D, exp10),
    FunctionDef::new("log1p", Arity::Exact(1), &[N], D, log1p),
    FunctionDef::new("sigmoid", Arity::Exact(1), &[N], D, sigmoid),
    FunctionDef::new("e", Arity::Exact(0), &[], D, euler).with_aliases(&["euler"]),
    FunctionDef::new("asinh", Arity::Exact(1), &[N], D, asinh),
    FunctionDef::new("acosh", Arity::Exact(1), &[N], D, acosh),
    FunctionDef::new("atanh", Arity::Exact(1), &[N], D, atanh),
    FunctionDef::new("bitCount", Arity::Exact(1), &[N], I, bit_count),
    FunctionDef::new("byteswapInt", Arity::Exact(1), &[N], I, byteswap_int),
    FunctionDef::new("byteswapLong", Arity::Exact(1), &[N], L, byteswap_long),
    FunctionDef::new("factorial", Arity::Exact(1), &[N], L, factorial),
    FunctionDef::new("widthBucket", Arity::Exact(4), &[N], I, width_bucket),
    FunctionDef::new("rand", Arity::Range(0, 1), &[N], D, rand).nondeterministic(),
    // Pinot's reduce of a split AVG (a sum and a count): NULL for no rows.
    FunctionDef::new("avgReduce", Arity::Exact(2), &[N], D, avg_reduce).handles_nulls(),
];

const D: Returns = Returns::Fixed(DataType::Double);
const I: Returns = Returns::Fixed(DataType::Int);
const L: Returns = Returns::Fixed(DataType::Long);

/// Declares `fn $name(args) -> DOUBLE` applying `$f` to the arguments read as doubles.
macro_rules! double_fn {
    ($($name:ident($($x:ident),+) = $body:expr;)*) => {$(
        fn $name(args: &[Value]) -> Result<Value, FunctionError> {
            let mut it = args.iter();
            $(let $x = match it.next() {
                Some(v) => num(stringify!($name), v)?,
                None => f64::NAN,
            };)+
            Ok(Value::Double($body))
        }
    )*};
}

double_fn! {
    ceil(x) = x.ceil();
    floor(x) = x.floor();
    exp(x) = x.exp();
    ln(x) = x.ln();
    log2(x) = x.ln() / std::f64::consts::LN_2;
    log10(x) = x.log10();
    sqrt(x) = x.sqrt();
    sign(x) = if x.is_nan() || x == 0.0 { x } else { x.signum() };
    power(x, y) = java_pow(x, y);
    hypot(x, y) = x.hypot(y);
    if_not_finite(x, d) = if x.is_finite() { x } else { d };
    positive_modulo(a, b) = { let r = a % b; if r >= 0.0 { r } else { r + b.abs() } };
    modulo_or_zero(a, b) = if b == 0.0 || (a == i64::MIN as f64 && b == -1.0) { 0.0 } else { a % b };
    sin(x) = x.sin();
    cos(x) = x.cos();
    tan(x) = x.tan();
    cot(x) = 1.0 / x.tan();
    asin(x) = x.asin();
    acos(x) = x.acos();
    atan(x) = x.atan();
    atan2(y, x) = y.atan2(x);
    sinh(x) = x.sinh();
    cosh(x) = x.cosh();
    tanh(x) = x.tanh();
    degrees(x) = x.to_degrees();
    radians(x) = x.to_radians();
    cbrt(x) = x.cbrt();
    exp2(x) = java_pow(2.0, x);
    exp10(x) = java_pow(10.0, x);
    log1p(x) = x.ln_1p();
    sigmoid(x) = 1.0 / (1.0 + (-x).exp());
    asinh(x) = if x >= 0.0 { (x + (x * x + 1.0).sqrt()).ln() } else { -(-x + (x * x + 1.0).sqrt()).ln() };
    acosh(x) = (x + (x * x - 1.0).sqrt()).ln();
    atanh(x) = 0.5 * ((1.0 + x) / (1.0 - x)).ln();
}

/// Java's `Math.pow` differs from IEEE `powf` only for `1^NaN` and `(-1)^±Infinity` (NaN).
fn java_pow(x: f64, y: f64) -> f64 {
    if y.is_nan() || (x.abs() == 1.0 && y.is_infinite()) {
        f64::NAN
    } else {
        x.powf(y)
    }
}

fn additive(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(match (args[0].data_type, args[1].data_type) {
        (Some(a), Some(b)) => additive_type(a, b),
        (Some(t), None) | (None, Some(t)) => additive_type(t, t),
        (None, None) => DataType::Double,
    })
}

fn polymorphic(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(match (args[0].data_type, args[1].data_type) {
        (Some(a), Some(b)) => polymorphic_type(a, b),
        (Some(t), None) | (None, Some(t)) => polymorphic_type(t, t),
        (None, None) => DataType::Double,
    })
}

fn unary_polymorphic(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(args[0]
        .data_type
        .map_or(DataType::Double, unary_polymorphic_type))
}

fn round_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(if args.len() == 2 {
        DataType::Long
    } else {
        DataType::Double
    })
}

fn extreme_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    let types: Vec<DataType> = args.iter().filter_map(|a| a.data_type).collect();
    if types.is_empty() {
        return Ok(DataType::Double);
    }
    common_type(&types).ok_or_else(|| FunctionError::IncompatibleTypes {
        function: "least/greatest",
        types: types
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "plus",
            Op::Sub => "minus",
            Op::Mul => "times",
        }
    }
}

fn plus(args: &[Value]) -> Result<Value, FunctionError> {
    additive_op(Op::Add, &args[0], &args[1])
}

fn minus(args: &[Value]) -> Result<Value, FunctionError> {
    additive_op(Op::Sub, &args[0], &args[1])
}

fn times(args: &[Value]) -> Result<Value, FunctionError> {
    additive_op(Op::Mul, &args[0], &args[1])
}

fn additive_op(op: Op, a: &Value, b: &Value) -> Result<Value, FunctionError> {
    let f = op.name();
    match additive_type(type_of(a), type_of(b)) {
        DataType::Long => {
            let (x, y) = (int(f, a)?, int(f, b)?);
            Ok(Value::Long(match op {
                Op::Add => x.wrapping_add(y),
                Op::Sub => x.wrapping_sub(y),
                Op::Mul => x.wrapping_mul(y),
            }))
        }
        DataType::BigDecimal => {
            let exact = a
                .to_decimal()
                .zip(b.to_decimal())
                .and_then(|(x, y)| match op {
                    Op::Add => Some(x.add(&y)),
                    Op::Sub => Some(x.sub(&y)),
                    Op::Mul => x.mul(&y),
                });
            match exact {
                Some(d) => Ok(Value::BigDecimal(d.to_plain_string())),
                None => decimal_from_f64(f, double_op(op, num(f, a)?, num(f, b)?)),
            }
        }
        _ => Ok(Value::Double(double_op(op, num(f, a)?, num(f, b)?))),
    }
}

fn double_op(op: Op, x: f64, y: f64) -> f64 {
    match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
    }
}

/// A BIG_DECIMAL from a double result (an operand that is no exact decimal, or a product past
/// the decimal's exponent range).
fn decimal_from_f64(function: &'static str, x: f64) -> Result<Value, FunctionError> {
    if x.is_finite() {
        Ok(Value::BigDecimal(canonical_decimal(&format!("{x}"))))
    } else {
        Err(FunctionError::Overflow {
            function,
            value: x.to_string(),
        })
    }
}

fn avg_reduce(args: &[Value]) -> Result<Value, FunctionError> {
    let (sum, count) = (&args[0], &args[1]);
    if sum.is_null() || count.is_null() || int("avgReduce", count)? == 0 {
        return Ok(Value::Null);
    }
    Ok(Value::Double(
        num("avgReduce", sum)? / int("avgReduce", count)? as f64,
    ))
}

fn divide(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (num("divide", &args[0])?, num("divide", &args[1])?);
    if let Some(default) = args.get(2)
        && b == 0.0
    {
        return Ok(Value::Double(num("divide", default)?));
    }
    Ok(Value::Double(a / b))
}

fn modulo(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "mod";
    let (a, b) = (&args[0], &args[1]);
    let zero = || FunctionError::DivisionByZero { function: F };
    Ok(match polymorphic_type(type_of(a), type_of(b)) {
        DataType::Int => {
            let (x, y) = (int(F, a)? as i32, int(F, b)? as i32);
            Value::Int(
                x.checked_rem(y)
                    .or_else(|| (y != 0).then_some(0))
                    .ok_or_else(zero)?,
            )
        }
        DataType::Long => {
            let (x, y) = (int(F, a)?, int(F, b)?);
            Value::Long(
                x.checked_rem(y)
                    .or_else(|| (y != 0).then_some(0))
                    .ok_or_else(zero)?,
            )
        }
        DataType::Float => Value::Float(num(F, a)? as f32 % num(F, b)? as f32),
        DataType::BigDecimal => {
            let (x, y) = (a.to_decimal(), b.to_decimal());
            if let Some((x, y)) = x.zip(y) {
                if y.is_zero() {
                    return Err(zero());
                }
                match x.rem(&y) {
                    Some(d) => Value::BigDecimal(d.to_plain_string()),
                    None => decimal_from_f64(F, num(F, a)? % num(F, b)?)?,
                }
            } else {
                decimal_from_f64(F, num(F, a)? % num(F, b)?)?
            }
        }
        _ => Value::Double(num(F, a)? % num(F, b)?),
    })
}

fn int_div(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (num("intDiv", &args[0])?, num("intDiv", &args[1])?);
    Ok(Value::Long((a / b).floor() as i64))
}

fn int_div_or_zero(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (
        num("intDivOrZero", &args[0])?,
        num("intDivOrZero", &args[1])?,
    );
    if b == 0.0 || (a == i64::MIN as f64 && b == -1.0) {
        Ok(Value::Long(0))
    } else {
        Ok(Value::Long((a / b).floor() as i64))
    }
}

fn abs(args: &[Value]) -> Result<Value, FunctionError> {
    unary_polymorphic_op("abs", &args[0], true)
}

fn negate(args: &[Value]) -> Result<Value, FunctionError> {
    unary_polymorphic_op("negate", &args[0], false)
}

/// `abs` (when `abs`) or `negate` in the argument's numeric type; the smallest INT or LONG
/// has no opposite (an overflow error, as Java's `Math.negateExact`).
fn unary_polymorphic_op(f: &'static str, v: &Value, abs: bool) -> Result<Value, FunctionError> {
    Ok(match unary_polymorphic_type(type_of(v)) {
        DataType::Int => {
            let x = int(f, v)? as i32;
            let result = if abs {
                x.checked_abs()
            } else {
                x.checked_neg()
            };
            Value::Int(result.ok_or_else(|| FunctionError::Overflow {
                function: f,
                value: "integer overflow".into(),
            })?)
        }
        DataType::Long => {
            let x = int(f, v)?;
            let result = if abs {
                x.checked_abs()
            } else {
                x.checked_neg()
            };
            Value::Long(result.ok_or_else(|| FunctionError::Overflow {
                function: f,
                value: "long overflow".into(),
            })?)
        }
        DataType::Float => {
            let x = num(f, v)? as f32;
            Value::Float(if abs { x.abs() } else { -x })
        }
        DataType::BigDecimal => match v.to_decimal() {
            Some(d) => {
                let flip = !abs || d.is_negative();
                Value::BigDecimal(if flip { d.neg() } else { d }.to_plain_string())
            }
            None => {
                let x = num(f, v)?;
                decimal_from_f64(f, if abs { x.abs() } else { -x })?
            }
        },
        _ => {
            let x = num(f, v)?;
            Value::Double(if abs { x.abs() } else { -x })
        }
    })
}

/// `round(x, n)`: Pinot's `DateTimeFunctions.round`, `(x / n) * n` on LONGs; `round(x)`:
/// `Math.round(x)` as a DOUBLE.
fn round(args: &[Value]) -> Result<Value, FunctionError> {
    match args.get(1) {
        Some(n) => {
            let (x, n) = (int("round", &args[0])?, int("round", n)?);
            if n == 0 {
                return Err(FunctionError::DivisionByZero { function: "round" });
            }
            Ok(Value::Long(x.wrapping_div(n).wrapping_mul(n)))
        }
        None => Ok(Value::Double(java_round(num("round", &args[0])?))),
    }
}

/// Java's `Math.round(double)` (half up, saturating, NaN → 0) as a double.
fn java_round(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        ((x + 0.5).floor() as i64) as f64
    }
}

fn round_decimal(args: &[Value]) -> Result<Value, FunctionError> {
    let x = num("roundDecimal", &args[0])?;
    Ok(Value::Double(match args.get(1) {
        Some(scale) => round_to_scale(x, int("roundDecimal", scale)?, true),
        None if !x.is_finite() => x,
        None => java_round(x),
    }))
}

fn truncate(args: &[Value]) -> Result<Value, FunctionError> {
    let x = num("truncate", &args[0])?;
    Ok(Value::Double(match args.get(1) {
        Some(scale) => round_to_scale(x, int("truncate", scale)?, false),
        None => {
            if x.is_nan() || x == 0.0 {
                x
            } else {
                x.signum() * x.abs().floor()
            }
        }
    }))
}

/// `BigDecimal.valueOf(x).setScale(scale, HALF_UP | DOWN).doubleValue()`: rounds the shortest
/// decimal digits of `x` at `scale` fractional digits.
fn round_to_scale(x: f64, scale: i64, half_up: bool) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    // Shortest round-trip digits in scientific form: "d.ddddde<exp>".
    let sci = format!("{:e}", x.abs());
    let Some((mantissa, exponent)) = sci.split_once('e') else {
        return x;
    };
    let Ok(exponent) = exponent.parse::<i64>() else {
        return x;
    };
    let digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    // Digits kept: those before the rounding position.
    let keep = exponent.saturating_add(1).saturating_add(scale);
    if keep >= digits.len() as i64 {
        return x;
    }
    let mut kept: u128 = 0;
    for d in digits.iter().take(keep.max(0) as usize) {
        kept = kept * 10 + *d as u128;
    }
    let first_dropped = if keep < 0 { 0 } else { digits[keep as usize] };
    if half_up && first_dropped >= 5 {
        kept += 1;
    }
    if kept == 0 {
        return 0.0;
    }
    let magnitude: f64 = format!("{kept}e{}", scale.saturating_neg())
        .parse()
        .unwrap_or(f64::INFINITY);
    if x < 0.0 { -magnitude } else { magnitude }
}

fn least(args: &[Value]) -> Result<Value, FunctionError> {
    extreme("least", args, Ordering::Less)
}

fn greatest(args: &[Value]) -> Result<Value, FunctionError> {
    extreme("greatest", args, Ordering::Greater)
}

/// The least (`want` = Less) or greatest argument, read as the arguments' common type.
fn extreme(f: &'static str, args: &[Value], want: Ordering) -> Result<Value, FunctionError> {
    let types: Vec<DataType> = args.iter().map(type_of).collect();
    let common = common_type(&types).unwrap_or(DataType::Double);
    let mut best: Option<Value> = None;
    for v in args {
        let v = v
            .cast(common)
            .map_err(|e| FunctionError::invalid(f, v, e.to_string()))?;
        if matches!(v, Value::Double(x) if x.is_nan()) || matches!(v, Value::Float(x) if x.is_nan())
        {
            return Ok(v);
        }
        best = match best {
            Some(b) if b.total_cmp(&v) != want.reverse() => Some(b),
            _ => Some(v),
        };
    }
    Ok(best.unwrap_or(Value::Null))
}

fn gcd(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (int("gcd", &args[0])?, int("gcd", &args[1])?);
    Ok(Value::Long(java_gcd(a, b)))
}

/// `a == 0 ? |b| : gcd(b % a, a)` with Java's wrapping `abs`.
fn java_gcd(mut a: i64, mut b: i64) -> i64 {
    while a != 0 {
        let r = b.wrapping_rem(a);
        b = a;
        a = r;
    }
    b.wrapping_abs()
}

fn lcm(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, b) = (int("lcm", &args[0])?, int("lcm", &args[1])?);
    if a == 0 || b == 0 {
        return Ok(Value::Long(0));
    }
    let g = java_gcd(a, b);
    if g == 0 {
        return Err(FunctionError::DivisionByZero { function: "lcm" });
    }
    Ok(Value::Long(
        a.wrapping_abs()
            .wrapping_div(g)
            .wrapping_mul(b.wrapping_abs()),
    ))
}

fn pi(_: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Double(std::f64::consts::PI))
}

fn is_nan(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Int(num("isNaN", &args[0])?.is_nan() as i32))
}

fn is_finite(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Int(num("isFinite", &args[0])?.is_finite() as i32))
}

fn is_infinite(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Int(num("isInfinite", &args[0])?.is_infinite() as i32))
}

fn euler(_: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Double(std::f64::consts::E))
}

/// Set bits of the value as a LONG (an INT is sign-extended: `bitCount(-1)` is 64).
fn bit_count(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Int(int("bitCount", &args[0])?.count_ones() as i32))
}

/// `Integer.reverseBytes` of the value's low 32 bits.
fn byteswap_int(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Int(
        (int("byteswapInt", &args[0])? as i32).swap_bytes(),
    ))
}

fn byteswap_long(args: &[Value]) -> Result<Value, FunctionError> {
    Ok(Value::Long(int("byteswapLong", &args[0])?.swap_bytes()))
}

fn factorial(args: &[Value]) -> Result<Value, FunctionError> {
    let n = int("factorial", &args[0])?;
    if !(0..=20).contains(&n) {
        return Err(FunctionError::invalid(
            "factorial",
            n,
            "factorial argument must be between 0 and 20",
        ));
    }
    Ok(Value::Long((1..=n).product()))
}

/// `widthBucket(x, lo, hi, n)`: the 1-based bucket of `x` among `n` equal buckets over
/// `[lo, hi)`, 0 below `lo`, `n + 1` from `hi` on.
fn width_bucket(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "widthBucket";
    let (x, lo, hi) = (num(F, &args[0])?, num(F, &args[1])?, num(F, &args[2])?);
    let buckets = int(F, &args[3])? as i32;
    if x.is_nan() || lo.is_nan() || hi.is_nan() {
        return Err(FunctionError::invalid(
            F,
            "NaN",
            "widthBucket does not accept NaN values",
        ));
    }
    if lo.is_infinite() || hi.is_infinite() {
        return Err(FunctionError::invalid(
            F,
            lo,
            "widthBucket bounds must be finite",
        ));
    }
    if lo >= hi {
        return Err(FunctionError::invalid(
            F,
            lo,
            format!("lo must be less than hi ({hi})"),
        ));
    }
    if buckets <= 0 {
        return Err(FunctionError::invalid(
            F,
            buckets,
            "numBuckets must be positive",
        ));
    }
    Ok(Value::Int(if x < lo {
        0
    } else if x >= hi {
        buckets.wrapping_add(1)
    } else {
        (((x - lo) / (hi - lo) * f64::from(buckets)) as i32).wrapping_add(1)
    }))
}

/// Pinot's `mix64` (MurmurHash3's finaliser).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    z ^ (z >> 33)
}

/// The top 53 bits of a 64-bit value as a DOUBLE in [0, 1).
fn unit_double(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// `rand()`: a per-thread SplitMix64 sequence from a random start; `rand(seed)`: Pinot's
/// deterministic value of the seed.
fn rand(args: &[Value]) -> Result<Value, FunctionError> {
    thread_local! {
        static STATE: Cell<u64> = Cell::new(RandomState::new().hash_one(std::thread::current().id()));
    }
    let bits = match args.first() {
        Some(seed) => mix64(int("rand", seed)? as u64 ^ 0x5_DEEC_E66D),
        None => STATE.with(|state| {
            let next = state.get().wrapping_add(0x9e37_79b9_7f4a_7c15);
            state.set(next);
            mix64(next)
        }),
    };
    Ok(Value::Double(unit_double(bits)))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    fn d(x: f64) -> Value {
        Value::Double(x)
    }

    #[test]
    fn additive_types_and_values() {
        assert_eq!(
            call("plus", &[Value::Int(2), Value::Int(3)]),
            Value::Long(5)
        );
        assert_eq!(
            call("add", &[Value::Long(i64::MAX), Value::Int(1)]),
            Value::Long(i64::MIN)
        );
        assert_eq!(call("sub", &[Value::Int(2), d(0.5)]), d(1.5));
        assert_eq!(call("mult", &[Value::Float(1.5), Value::Int(2)]), d(3.0));
        assert_eq!(
            call("times", &[Value::BigDecimal("1.5".into()), Value::Int(2)]),
            Value::BigDecimal("3.0".into())
        );
        assert_eq!(
            call("plus", &[Value::BigDecimal("0.1".into()), d(0.2)]),
            Value::BigDecimal("0.3".into())
        );
        assert_eq!(
            call("plus", &[Value::String("1.5".into()), Value::Int(1)]),
            d(2.5)
        );
        assert!(
            lookup("plus")
                .unwrap()
                .eval(&[Value::String("x".into()), Value::Int(1)])
                .is_err()
        );
        assert_eq!(call("plus", &[Value::Null, Value::Int(1)]), Value::Null);
        let f = lookup("plus").unwrap();
        assert_eq!(
            f.return_type(&[DataType::Int, DataType::Long]).unwrap(),
            DataType::Long
        );
        assert_eq!(
            f.return_type(&[DataType::Float, DataType::Long]).unwrap(),
            DataType::Double
        );
        assert!(f.return_type(&[DataType::Bytes, DataType::Long]).is_err());
        assert!(f.return_type(&[DataType::Int]).is_err());
    }

    #[test]
    fn avg_reduce_divides_a_sum_by_its_count_and_is_null_for_none() {
        assert_eq!(call("avgReduce", &[d(7.0), Value::Long(2)]), d(3.5));
        assert_eq!(call("avg_reduce", &[d(7.0), Value::Long(0)]), Value::Null);
        assert_eq!(
            call("avgReduce", &[Value::Null, Value::Long(2)]),
            Value::Null
        );
        assert_eq!(call("avgReduce", &[d(1.0), Value::Null]), Value::Null);
    }

    #[test]
    fn division_follows_java_doubles() {
        assert_eq!(call("divide", &[Value::Int(1), Value::Int(2)]), d(0.5));
        assert_eq!(
            call("div", &[Value::Int(1), Value::Int(0)]),
            d(f64::INFINITY)
        );
        assert!(
            matches!(call("div", &[Value::Int(0), Value::Int(0)]), Value::Double(x) if x.is_nan())
        );
        assert_eq!(
            call("div", &[Value::Int(1), Value::Int(0), Value::Int(-1)]),
            d(-1.0)
        );
        assert_eq!(
            call("div", &[Value::Int(1), Value::Int(4), Value::Int(-1)]),
            d(0.25)
        );
        assert_eq!(
            call("intDiv", &[Value::Int(-7), Value::Int(2)]),
            Value::Long(-4)
        );
        assert_eq!(
            call("intDivOrZero", &[Value::Int(7), Value::Int(0)]),
            Value::Long(0)
        );
    }

    #[test]
    fn modulo_is_polymorphic() {
        assert_eq!(call("mod", &[Value::Int(7), Value::Int(3)]), Value::Int(1));
        assert_eq!(
            call("mod", &[Value::Int(-7), Value::Long(3)]),
            Value::Long(-1)
        );
        assert_eq!(
            call("mod", &[Value::Int(i32::MIN), Value::Int(-1)]),
            Value::Int(0)
        );
        assert_eq!(call("mod", &[d(7.5), Value::Int(2)]), d(1.5));
        assert!(matches!(call("mod", &[d(7.5), Value::Int(0)]), Value::Double(x) if x.is_nan()));
        let err = lookup("mod")
            .unwrap()
            .eval(&[Value::Int(7), Value::Int(0)])
            .unwrap_err();
        assert_eq!(err, FunctionError::DivisionByZero { function: "mod" });
        assert_eq!(
            call("mod", &[Value::BigDecimal("7.5".into()), Value::Int(2)]),
            Value::BigDecimal("1.5".into())
        );
        assert!(
            lookup("mod")
                .unwrap()
                .eval(&[Value::BigDecimal("7.5".into()), Value::Int(0)])
                .is_err()
        );
        assert_eq!(
            call("positiveModulo", &[Value::Int(-7), Value::Int(3)]),
            d(2.0)
        );
        assert_eq!(
            call("moduloOrZero", &[Value::Int(-7), Value::Int(0)]),
            d(0.0)
        );
    }

    #[test]
    fn unary_math() {
        assert_eq!(call("abs", &[Value::Int(-3)]), Value::Int(3));
        assert!(matches!(
            lookup("abs").unwrap().eval(&[Value::Int(i32::MIN)]),
            Err(FunctionError::Overflow { .. })
        ));
        assert!(
            lookup("negate")
                .unwrap()
                .eval(&[Value::Long(i64::MIN)])
                .is_err()
        );
        assert_eq!(
            call("negate", &[Value::Int(i32::MAX)]),
            Value::Int(-i32::MAX)
        );
        assert_eq!(call("abs", &[d(-2.5)]), d(2.5));
        assert_eq!(
            call("abs", &[Value::BigDecimal("-2.50".into())]),
            Value::BigDecimal("2.50".into())
        );
        assert_eq!(call("negate", &[Value::Long(4)]), Value::Long(-4));
        assert_eq!(call("ceil", &[d(1.2)]), d(2.0));
        assert_eq!(call("ceiling", &[d(-1.2)]), d(-1.0));
        assert_eq!(call("floor", &[d(-1.2)]), d(-2.0));
        assert_eq!(call("exp", &[Value::Int(0)]), d(1.0));
        assert_eq!(call("ln", &[Value::Int(1)]), d(0.0));
        assert_eq!(call("log", &[d(std::f64::consts::E)]), d(1.0));
        assert_eq!(call("log2", &[Value::Int(8)]), d(3.0));
        assert_eq!(call("log10", &[Value::Int(1000)]), d(3.0));
        assert_eq!(call("sqrt", &[Value::Int(16)]), d(4.0));
        assert!(matches!(call("sqrt", &[Value::Int(-1)]), Value::Double(x) if x.is_nan()));
        assert_eq!(call("sign", &[d(-3.0)]), d(-1.0));
        assert_eq!(call("sign", &[d(0.0)]), d(0.0));
        assert_eq!(call("power", &[Value::Int(2), Value::Int(10)]), d(1024.0));
        assert_eq!(call("pow", &[Value::Int(3), Value::Int(2)]), d(9.0));
        assert!(matches!(call("pow", &[d(1.0), d(f64::INFINITY)]), Value::Double(x) if x.is_nan()));
        assert_eq!(call("hypot", &[Value::Int(3), Value::Int(4)]), d(5.0));
        assert_eq!(call("isNaN", &[d(f64::NAN)]), Value::Int(1));
        assert_eq!(call("isFinite", &[d(f64::INFINITY)]), Value::Int(0));
        assert_eq!(call("ifNotFinite", &[d(f64::INFINITY), d(7.0)]), d(7.0));
        assert_eq!(call("degrees", &[d(std::f64::consts::PI)]), d(180.0));
        assert_eq!(call("PI", &[]), d(std::f64::consts::PI));
        assert_eq!(
            call("gcd", &[Value::Int(12), Value::Int(18)]),
            Value::Long(6)
        );
        assert_eq!(
            call("lcm", &[Value::Int(4), Value::Int(6)]),
            Value::Long(12)
        );
    }

    #[test]
    fn rounding_follows_pinot() {
        // Pinot's round(x, n) is time rounding (the conformance suite: ROUND(longCol, 2)).
        for (x, r) in [(14, 14), (21, 20), (41, 40), (46, 46)] {
            assert_eq!(
                call("round", &[Value::Long(x), Value::Int(2)]),
                Value::Long(r)
            );
        }
        assert!(
            lookup("round")
                .unwrap()
                .eval(&[Value::Long(1), Value::Int(0)])
                .is_err()
        );
        assert_eq!(
            lookup("round")
                .unwrap()
                .return_type(&[DataType::Long, DataType::Int])
                .unwrap(),
            DataType::Long
        );
        assert_eq!(call("round", &[d(2.5)]), d(3.0));
        assert_eq!(call("round", &[d(-2.5)]), d(-2.0));
        assert_eq!(call("roundDecimal", &[d(2.675), Value::Int(2)]), d(2.68));
        assert_eq!(call("roundDecimal", &[d(-2.675), Value::Int(2)]), d(-2.68));
        assert_eq!(
            call("roundDecimal", &[d(1234.5), Value::Int(-2)]),
            d(1200.0)
        );
        assert_eq!(call("roundDecimal", &[d(0.0004), Value::Int(2)]), d(0.0));
        assert_eq!(call("roundDecimal", &[d(0.005), Value::Int(2)]), d(0.01));
        assert_eq!(call("roundDecimal", &[d(9.999), Value::Int(2)]), d(10.0));
        assert_eq!(call("roundDecimal", &[d(1.5)]), d(2.0));
        assert_eq!(call("truncate", &[d(2.679), Value::Int(2)]), d(2.67));
        assert_eq!(call("truncate", &[d(-2.679), Value::Int(1)]), d(-2.6));
        assert_eq!(call("truncate", &[d(-2.7)]), d(-2.0));
        assert_eq!(call("truncate", &[d(1e300), Value::Int(2)]), d(1e300));
    }

    #[test]
    fn least_and_greatest() {
        assert_eq!(
            call("least", &[Value::Int(3), Value::Int(1), Value::Int(2)]),
            Value::Int(1)
        );
        assert_eq!(call("greatest", &[Value::Int(3), d(4.5)]), d(4.5));
        assert_eq!(
            call("greatest", &[Value::Int(3), Value::Long(2)]),
            Value::Long(3)
        );
        assert_eq!(
            call(
                "least",
                &[Value::String("b".into()), Value::String("a".into())]
            ),
            Value::String("a".into())
        );
        assert_eq!(call("least", &[Value::Int(3), Value::Null]), Value::Null);
        let f = lookup("greatest").unwrap();
        assert_eq!(
            f.return_type(&[DataType::Int, DataType::Double]).unwrap(),
            DataType::Double
        );
        assert!(f.return_type(&[DataType::Int, DataType::String]).is_err());
    }

    #[test]
    fn more_math_functions() {
        // ArithmeticFunctionsTest values.
        assert_eq!(call("cbrt", &[Value::Int(27)]), d(3.0));
        assert_eq!(call("exp2", &[Value::Int(10)]), d(1024.0));
        assert_eq!(call("exp10", &[Value::Int(3)]), d(1000.0));
        assert_eq!(call("log1p", &[Value::Int(0)]), d(0.0));
        assert_eq!(call("sigmoid", &[Value::Int(0)]), d(0.5));
        assert_eq!(call("e", &[]), d(std::f64::consts::E));
        assert_eq!(call("EULER", &[]), d(std::f64::consts::E));
        assert_eq!(call("asinh", &[d(0.0)]), d(0.0));
        assert_eq!(call("asinh", &[d(-1e300)]), d(f64::NEG_INFINITY));
        assert_eq!(call("acosh", &[d(1.0)]), d(0.0));
        assert!(matches!(call("acosh", &[d(0.5)]), Value::Double(x) if x.is_nan()));
        assert_eq!(call("atanh", &[d(0.0)]), d(0.0));
        assert_eq!(call("atanh", &[d(1.0)]), d(f64::INFINITY));
        for (x, want) in [(1.0, 0.881_373_587), (-1.0, -0.881_373_587)] {
            let Value::Double(got) = call("asinh", &[d(x)]) else {
                panic!("asinh")
            };
            assert!((got - want).abs() < 1e-9, "asinh({x}) = {got}");
        }
        assert_eq!(call("bitCount", &[Value::Int(7)]), Value::Int(3));
        assert_eq!(call("bitCount", &[Value::Int(-1)]), Value::Int(64));
        assert_eq!(
            call("byteswapInt", &[Value::Int(1)]),
            Value::Int(16_777_216)
        );
        assert_eq!(
            call("byteswapLong", &[Value::Long(1)]),
            Value::Long(72_057_594_037_927_936)
        );
        assert_eq!(call("factorial", &[Value::Int(0)]), Value::Long(1));
        assert_eq!(call("factorial", &[Value::Int(5)]), Value::Long(120));
        assert_eq!(
            call("factorial", &[Value::Int(20)]),
            Value::Long(2_432_902_008_176_640_000)
        );
        assert!(
            lookup("factorial")
                .unwrap()
                .eval(&[Value::Int(21)])
                .is_err()
        );
        assert!(
            lookup("factorial")
                .unwrap()
                .eval(&[Value::Int(-1)])
                .is_err()
        );
        assert_eq!(call("roundDecimal", &[d(f64::INFINITY)]), d(f64::INFINITY));
        assert!(matches!(call("roundDecimal", &[d(f64::NAN)]), Value::Double(x) if x.is_nan()));
    }

    #[test]
    fn width_bucket_and_rand() {
        let bucket = |x: f64, lo: f64, hi: f64, n: i32| {
            lookup("width_bucket")
                .unwrap()
                .eval(&[d(x), d(lo), d(hi), Value::Int(n)])
        };
        assert_eq!(bucket(5.35, 0.024, 10.06, 5).unwrap(), Value::Int(3));
        assert_eq!(bucket(-1.0, 0.0, 10.0, 5).unwrap(), Value::Int(0));
        assert_eq!(bucket(10.0, 0.0, 10.0, 5).unwrap(), Value::Int(6));
        assert_eq!(bucket(0.0, 0.0, 10.0, 5).unwrap(), Value::Int(1));
        assert!(bucket(f64::NAN, 0.0, 10.0, 5).is_err());
        assert!(bucket(1.0, 10.0, 0.0, 5).is_err());
        assert!(bucket(1.0, 0.0, f64::INFINITY, 5).is_err());
        assert!(bucket(1.0, 0.0, 10.0, 0).is_err());
        let rand = lookup("rand").unwrap();
        assert!(!rand.is_deterministic());
        for _ in 0..100 {
            assert!(matches!(rand.eval(&[]).unwrap(), Value::Double(x) if (0.0..1.0).contains(&x)));
        }
        assert_ne!(rand.eval(&[]).unwrap(), rand.eval(&[]).unwrap());
        let seeded = rand.eval(&[Value::Long(42)]).unwrap();
        assert_eq!(seeded, rand.eval(&[Value::Long(42)]).unwrap());
        assert_ne!(seeded, rand.eval(&[Value::Long(43)]).unwrap());
        assert!(matches!(seeded, Value::Double(x) if (0.0..1.0).contains(&x)));
        assert_eq!(rand.eval(&[Value::Null]).unwrap(), Value::Null);
    }
}
