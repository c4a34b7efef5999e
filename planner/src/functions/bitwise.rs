//! Bitwise functions over whole numbers (Pinot's `scalar/bitwise/*ScalarFunction`), typed as
//! Pinot types them on the arguments' stored types (BOOLEAN counts as INT, TIMESTAMP as LONG);
//! other argument types are refused at bind time.
//!
//! * `bitAnd`, `bitOr`, `bitXor`: INT when both sides are INT, else LONG.
//! * `bitNot`: the argument's type.
//! * `bitShiftLeft`, `bitShiftRight` (arithmetic), `bitShiftRightUnsigned/bitShiftRightLogical`:
//!   the shifted value's type; the shift count is taken modulo the width (Java's `<<`, `>>`,
//!   `>>>`).
//! * `bitMask(n)`: LONG `1 << n`, 0 when `n` is outside 0..64.
//! * `bitExtract/extractBit(x, n)`: INT bit `n` of `x` (0 or 1), 0 when `n` is outside the
//!   value's width.

use super::coerce::int;
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{ColumnType, DataType, Value};

use Param::Number as N;

/// The bitwise functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "bitAnd",
        Arity::Exact(2),
        &[N],
        Returns::Infer(wider),
        bit_and,
    ),
    FunctionDef::new(
        "bitOr",
        Arity::Exact(2),
        &[N],
        Returns::Infer(wider),
        bit_or,
    ),
    FunctionDef::new(
        "bitXor",
        Arity::Exact(2),
        &[N],
        Returns::Infer(wider),
        bit_xor,
    ),
    FunctionDef::new(
        "bitNot",
        Arity::Exact(1),
        &[N],
        Returns::Infer(first),
        bit_not,
    ),
    FunctionDef::new(
        "bitShiftLeft",
        Arity::Exact(2),
        &[N],
        Returns::Infer(first),
        shift_left,
    ),
    FunctionDef::new(
        "bitShiftRight",
        Arity::Exact(2),
        &[N],
        Returns::Infer(first),
        shift_right,
    ),
    FunctionDef::new(
        "bitShiftRightUnsigned",
        Arity::Exact(2),
        &[N],
        Returns::Infer(first),
        shift_right_unsigned,
    )
    .with_aliases(&["bitShiftRightLogical"]),
    FunctionDef::new(
        "bitMask",
        Arity::Exact(1),
        &[N],
        Returns::Infer(mask_type),
        bit_mask,
    ),
    FunctionDef::new(
        "bitExtract",
        Arity::Exact(2),
        &[N],
        Returns::Infer(extract_type),
        bit_extract,
    )
    .with_aliases(&["extractBit"]),
];

/// INT or LONG: a whole-number type's stored width (an untyped NULL counts as INT), `None` for
/// other types.
fn width(t: Option<DataType>) -> Option<DataType> {
    match t {
        None | Some(DataType::Int | DataType::Boolean) => Some(DataType::Int),
        Some(DataType::Long | DataType::Timestamp) => Some(DataType::Long),
        Some(_) => None,
    }
}

/// The widths of all arguments, or the bind-time error for the first that is not whole.
fn widths(function: &'static str, args: &[ArgType]) -> Result<Vec<DataType>, FunctionError> {
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            width(a.data_type).ok_or(FunctionError::ArgumentType {
                function,
                position: i + 1,
                column_type: ColumnType {
                    data_type: a.data_type.unwrap_or(DataType::String),
                    single_value: a.single_value,
                    map_value: None,
                },
            })
        })
        .collect()
}

fn wider(args: &[ArgType]) -> Result<DataType, FunctionError> {
    let w = widths("bitAnd/bitOr/bitXor", args)?;
    Ok(if w.contains(&DataType::Long) {
        DataType::Long
    } else {
        DataType::Int
    })
}

fn first(args: &[ArgType]) -> Result<DataType, FunctionError> {
    Ok(widths("bitNot/bitShift", args)?[0])
}

fn mask_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    widths("bitMask", args).map(|_| DataType::Long)
}

fn extract_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    widths("bitExtract", args).map(|_| DataType::Int)
}

/// Whether a value is read as an INT (INT and BOOLEAN values), else as a LONG.
fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::Boolean(_))
}

fn binary(
    function: &'static str,
    args: &[Value],
    op: fn(i64, i64) -> i64,
) -> Result<Value, FunctionError> {
    let (a, b) = (int(function, &args[0])?, int(function, &args[1])?);
    Ok(if is_int(&args[0]) && is_int(&args[1]) {
        Value::Int(op(a, b) as i32)
    } else {
        Value::Long(op(a, b))
    })
}

fn bit_and(args: &[Value]) -> Result<Value, FunctionError> {
    binary("bitAnd", args, |a, b| a & b)
}

fn bit_or(args: &[Value]) -> Result<Value, FunctionError> {
    binary("bitOr", args, |a, b| a | b)
}

fn bit_xor(args: &[Value]) -> Result<Value, FunctionError> {
    binary("bitXor", args, |a, b| a ^ b)
}

fn bit_not(args: &[Value]) -> Result<Value, FunctionError> {
    let x = int("bitNot", &args[0])?;
    Ok(if is_int(&args[0]) {
        Value::Int(!(x as i32))
    } else {
        Value::Long(!x)
    })
}

#[derive(Clone, Copy)]
enum Shift {
    Left,
    Right,
    RightUnsigned,
}

/// Shifts by the count modulo the value's width (the count read as a Java `int`).
fn shift(function: &'static str, args: &[Value], kind: Shift) -> Result<Value, FunctionError> {
    let x = int(function, &args[0])?;
    let count = int(function, &args[1])? as i32 as u32;
    Ok(if is_int(&args[0]) {
        let x = x as i32;
        Value::Int(match kind {
            Shift::Left => x.wrapping_shl(count),
            Shift::Right => x.wrapping_shr(count),
            Shift::RightUnsigned => (x as u32).wrapping_shr(count) as i32,
        })
    } else {
        Value::Long(match kind {
            Shift::Left => x.wrapping_shl(count),
            Shift::Right => x.wrapping_shr(count),
            Shift::RightUnsigned => (x as u64).wrapping_shr(count) as i64,
        })
    })
}

fn shift_left(args: &[Value]) -> Result<Value, FunctionError> {
    shift("bitShiftLeft", args, Shift::Left)
}

fn shift_right(args: &[Value]) -> Result<Value, FunctionError> {
    shift("bitShiftRight", args, Shift::Right)
}

fn shift_right_unsigned(args: &[Value]) -> Result<Value, FunctionError> {
    shift("bitShiftRightUnsigned", args, Shift::RightUnsigned)
}

fn bit_mask(args: &[Value]) -> Result<Value, FunctionError> {
    let n = int("bitMask", &args[0])?;
    Ok(Value::Long(if (0..64).contains(&n) { 1 << n } else { 0 }))
}

fn bit_extract(args: &[Value]) -> Result<Value, FunctionError> {
    let (x, n) = (int("bitExtract", &args[0])?, int("bitExtract", &args[1])?);
    let bits = if is_int(&args[0]) { 32 } else { 64 };
    let x = if is_int(&args[0]) {
        i64::from(x as i32 as u32)
    } else {
        x
    };
    Ok(Value::Int(if (0..bits).contains(&n) {
        ((x as u64 >> n) & 1) as i32
    } else {
        0
    }))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    fn resolve(name: &str, types: &[DataType]) -> Result<DataType, FunctionError> {
        lookup(name).unwrap().return_type(types)
    }

    #[test]
    fn and_or_xor_keep_int_or_widen_to_long() {
        assert_eq!(
            call("bitAnd", &[Value::Int(12), Value::Int(10)]),
            Value::Int(8)
        );
        assert_eq!(
            call("bit_or", &[Value::Int(12), Value::Int(10)]),
            Value::Int(14)
        );
        assert_eq!(
            call("bitXor", &[Value::Int(12), Value::Int(10)]),
            Value::Int(6)
        );
        assert_eq!(
            call("bitAnd", &[Value::Long(-1), Value::Int(5)]),
            Value::Long(5)
        );
        assert_eq!(
            call("bitOr", &[Value::Long(1 << 40), Value::Int(1)]),
            Value::Long((1 << 40) + 1)
        );
        assert_eq!(call("bitAnd", &[Value::Null, Value::Int(1)]), Value::Null);
        assert_eq!(
            resolve("bitAnd", &[DataType::Int, DataType::Int]).unwrap(),
            DataType::Int
        );
        assert_eq!(
            resolve("bitXor", &[DataType::Int, DataType::Long]).unwrap(),
            DataType::Long
        );
        assert_eq!(
            resolve("bitOr", &[DataType::Timestamp, DataType::Boolean]).unwrap(),
            DataType::Long
        );
        assert!(resolve("bitAnd", &[DataType::Double, DataType::Int]).is_err());
        assert!(resolve("bitNot", &[DataType::String]).is_err());
    }

    #[test]
    fn not_and_shifts_keep_the_value_type() {
        assert_eq!(call("bitNot", &[Value::Int(0)]), Value::Int(-1));
        assert_eq!(call("bitNot", &[Value::Long(5)]), Value::Long(-6));
        assert_eq!(
            call("bitShiftLeft", &[Value::Int(1), Value::Int(31)]),
            Value::Int(i32::MIN)
        );
        // Java masks the count: 1 << 33 on an int is 1 << 1.
        assert_eq!(
            call("bitShiftLeft", &[Value::Int(1), Value::Int(33)]),
            Value::Int(2)
        );
        assert_eq!(
            call("bitShiftLeft", &[Value::Long(1), Value::Int(33)]),
            Value::Long(1 << 33)
        );
        assert_eq!(
            call("bitShiftRight", &[Value::Int(-8), Value::Int(1)]),
            Value::Int(-4)
        );
        assert_eq!(
            call("bitShiftRightUnsigned", &[Value::Int(-8), Value::Int(28)]),
            Value::Int(15)
        );
        assert_eq!(
            call("bitShiftRightLogical", &[Value::Long(-1), Value::Int(60)]),
            Value::Long(15)
        );
        assert_eq!(
            resolve("bitShiftLeft", &[DataType::Long, DataType::Int]).unwrap(),
            DataType::Long
        );
        assert_eq!(
            resolve("bitShiftLeft", &[DataType::Int, DataType::Long]).unwrap(),
            DataType::Int
        );
        assert!(resolve("bitShiftRight", &[DataType::Int, DataType::Float]).is_err());
    }

    #[test]
    fn mask_and_extract() {
        assert_eq!(call("bitMask", &[Value::Int(3)]), Value::Long(8));
        assert_eq!(call("bitMask", &[Value::Int(63)]), Value::Long(i64::MIN));
        assert_eq!(call("bitMask", &[Value::Int(64)]), Value::Long(0));
        assert_eq!(call("bitMask", &[Value::Long(-1)]), Value::Long(0));
        assert_eq!(
            resolve("bitMask", &[DataType::Int]).unwrap(),
            DataType::Long
        );
        assert_eq!(
            call("bitExtract", &[Value::Int(5), Value::Int(2)]),
            Value::Int(1)
        );
        assert_eq!(
            call("extractBit", &[Value::Int(5), Value::Int(1)]),
            Value::Int(0)
        );
        assert_eq!(
            call("bitExtract", &[Value::Int(-1), Value::Int(31)]),
            Value::Int(1)
        );
        assert_eq!(
            call("bitExtract", &[Value::Int(-1), Value::Int(32)]),
            Value::Int(0)
        );
        assert_eq!(
            call("bitExtract", &[Value::Long(-1), Value::Int(63)]),
            Value::Int(1)
        );
        assert_eq!(
            call("bitExtract", &[Value::Long(1), Value::Int(-1)]),
            Value::Int(0)
        );
        assert_eq!(
            resolve("bitExtract", &[DataType::Long, DataType::Long]).unwrap(),
            DataType::Int
        );
        assert!(
            lookup("bitAnd")
                .unwrap()
                .eval(&[Value::String("x".into()), Value::Int(1)])
                .is_err()
        );
    }
}
