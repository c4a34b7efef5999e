//! [`ColumnType`]: the type of a value flowing through a plan — a [`DataType`] plus whether it
//! is multi-valued — and its name in a result's `dataSchema.columnDataTypes`
//! (`INT`, `STRING_ARRAY`, …, Pinot's `DataSchema.ColumnDataType`).

use super::DataType;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A plan value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ColumnType {
    pub data_type: DataType,
    /// False for multi-value columns and expressions producing arrays.
    pub single_value: bool,
    /// A MAP's value type (its keys are text): `MAP<STRING, INT>` is a MAP with `Some(Int)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map_value: Option<DataType>,
}

impl ColumnType {
    /// A single-value type.
    pub const fn sv(data_type: DataType) -> ColumnType {
        ColumnType {
            data_type,
            single_value: true,
            map_value: None,
        }
    }

    /// A multi-value type.
    pub const fn mv(data_type: DataType) -> ColumnType {
        ColumnType {
            data_type,
            single_value: false,
            map_value: None,
        }
    }

    /// A MAP from text keys to `value` values.
    pub const fn map(value: DataType) -> ColumnType {
        ColumnType {
            data_type: DataType::Map,
            single_value: true,
            map_value: Some(value),
        }
    }

    /// Pinot's result-schema name: `LONG`, `DOUBLE_ARRAY`, …
    pub fn pinot_name(&self) -> String {
        if self.single_value {
            self.data_type.name().to_string()
        } else {
            format!("{}_ARRAY", self.data_type.name())
        }
    }

    /// True for numeric single values usable in arithmetic.
    pub fn is_numeric(&self) -> bool {
        self.data_type.is_numeric()
    }
}

impl fmt::Display for ColumnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pinot_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinot_names() {
        assert_eq!(ColumnType::sv(DataType::Long).pinot_name(), "LONG");
        assert_eq!(
            ColumnType::mv(DataType::String).pinot_name(),
            "STRING_ARRAY"
        );
        assert_eq!(
            ColumnType::mv(DataType::BigDecimal).to_string(),
            "BIG_DECIMAL_ARRAY"
        );
    }
}
