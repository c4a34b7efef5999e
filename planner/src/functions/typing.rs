//! Type rules shared by inference and evaluation: which type an arithmetic result, a
//! polymorphic result or a common supertype (`coalesce`, `least`, `CASE`) has.
//!
//! The rules take [`DataType`]s; kernels apply them to their argument values' own types so an
//! evaluated value has the type the binder inferred.

use segments::types::DataType;

/// INT, LONG and the types Pinot stores as them (BOOLEAN, TIMESTAMP).
pub(crate) fn is_integral(t: DataType) -> bool {
    matches!(
        t,
        DataType::Int | DataType::Long | DataType::Boolean | DataType::Timestamp
    )
}

/// `plus`, `minus`, `times` (Pinot's v1 arithmetic transforms): LONG when both sides are
/// whole numbers, BIG_DECIMAL when either is, else DOUBLE.
pub(crate) fn additive_type(a: DataType, b: DataType) -> DataType {
    if is_integral(a) && is_integral(b) {
        DataType::Long
    } else if a == DataType::BigDecimal || b == DataType::BigDecimal {
        DataType::BigDecimal
    } else {
        DataType::Double
    }
}

/// Pinot's polymorphic binary arithmetic (`mod`, `BaseBinaryArithmeticScalarFunction`): on the
/// stored types, the shared type when equal, LONG for two whole numbers, BIG_DECIMAL when
/// either is one, else the wider of the two (FLOAT < DOUBLE); non-numbers fall back to DOUBLE.
pub(crate) fn polymorphic_type(a: DataType, b: DataType) -> DataType {
    let (a, b) = (numeric_storage(a), numeric_storage(b));
    let (Some(a), Some(b)) = (a, b) else {
        return DataType::Double;
    };
    if a == b {
        a
    } else if is_integral(a) && is_integral(b) {
        DataType::Long
    } else if a == DataType::BigDecimal || b == DataType::BigDecimal {
        DataType::BigDecimal
    } else if a == DataType::Double || b == DataType::Double {
        DataType::Double
    } else {
        DataType::Float
    }
}

/// The type a unary polymorphic function (`abs`, `negate`) keeps: the stored numeric type,
/// DOUBLE for text.
pub(crate) fn unary_polymorphic_type(a: DataType) -> DataType {
    numeric_storage(a).unwrap_or(DataType::Double)
}

fn numeric_storage(t: DataType) -> Option<DataType> {
    match t {
        DataType::Boolean => Some(DataType::Int),
        DataType::Timestamp => Some(DataType::Long),
        DataType::Int
        | DataType::Long
        | DataType::Float
        | DataType::Double
        | DataType::BigDecimal => Some(t),
        DataType::String | DataType::Json | DataType::Bytes | DataType::Map => None,
    }
}

/// The type values of all the given types can be read as together (`coalesce`, `least`,
/// `greatest`, `CASE` branches), or `None` when they do not mix (a number with text):
/// equal types stay; whole numbers widen to LONG (INT with BOOLEAN stays INT); BIG_DECIMAL
/// wins over other numbers; any FLOAT or DOUBLE makes DOUBLE; STRING and JSON make STRING.
pub fn common_type(types: &[DataType]) -> Option<DataType> {
    let first = *types.first()?;
    if types.iter().all(|t| *t == first) {
        return Some(first);
    }
    let numeric = |t: &DataType| !matches!(t, DataType::String | DataType::Json | DataType::Bytes);
    if types.iter().all(numeric) {
        if types.contains(&DataType::BigDecimal) {
            Some(DataType::BigDecimal)
        } else if types
            .iter()
            .any(|t| matches!(t, DataType::Float | DataType::Double))
        {
            Some(DataType::Double)
        } else if types
            .iter()
            .all(|t| matches!(t, DataType::Int | DataType::Boolean))
        {
            Some(DataType::Int)
        } else {
            Some(DataType::Long)
        }
    } else if types
        .iter()
        .all(|t| matches!(t, DataType::String | DataType::Json))
    {
        Some(DataType::String)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DataType::*;

    #[test]
    fn arithmetic_types_follow_pinot() {
        assert_eq!(additive_type(Int, Int), Long);
        assert_eq!(additive_type(Int, Timestamp), Long);
        assert_eq!(additive_type(Int, Float), Double);
        assert_eq!(additive_type(BigDecimal, Double), BigDecimal);
        assert_eq!(additive_type(String, Int), Double);
        assert_eq!(polymorphic_type(Int, Int), Int);
        assert_eq!(polymorphic_type(Int, Long), Long);
        assert_eq!(polymorphic_type(Float, Float), Float);
        assert_eq!(polymorphic_type(Int, Float), Float);
        assert_eq!(polymorphic_type(Float, Double), Double);
        assert_eq!(polymorphic_type(Long, BigDecimal), BigDecimal);
        assert_eq!(polymorphic_type(String, Int), Double);
        assert_eq!(unary_polymorphic_type(Boolean), Int);
    }

    #[test]
    fn common_types() {
        assert_eq!(common_type(&[Int, Int]), Some(Int));
        assert_eq!(common_type(&[Int, Long]), Some(Long));
        assert_eq!(common_type(&[Int, Boolean]), Some(Int));
        assert_eq!(common_type(&[Int, Double]), Some(Double));
        assert_eq!(common_type(&[Float, Long]), Some(Double));
        assert_eq!(common_type(&[Double, BigDecimal]), Some(BigDecimal));
        assert_eq!(common_type(&[String, Json]), Some(String));
        assert_eq!(common_type(&[String, Int]), None);
        assert_eq!(common_type(&[]), None);
    }
}
