//! Table types and Pinot's table-name conventions (`TableType.java`, `TableNameBuilder.java`).
//!
//! A table has a raw name (`airlineStats`) and, per type, a typed name with a suffix
//! (`airlineStats_OFFLINE`, `airlineStats_REALTIME`). Configs may give either form; the
//! parsed config always holds the typed name.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Whether a table is fed by segment pushes or by a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableType {
    Offline,
    Realtime,
}

impl TableType {
    /// Both types, in the order Pinot lists them (OFFLINE first).
    pub const ALL: [TableType; 2] = [TableType::Offline, TableType::Realtime];

    /// `"OFFLINE"` or `"REALTIME"`.
    pub fn name(self) -> &'static str {
        match self {
            TableType::Offline => "OFFLINE",
            TableType::Realtime => "REALTIME",
        }
    }

    /// The typed-name suffix, `"_OFFLINE"` or `"_REALTIME"`.
    pub fn suffix(self) -> &'static str {
        match self {
            TableType::Offline => "_OFFLINE",
            TableType::Realtime => "_REALTIME",
        }
    }

    /// Parses a type name case-insensitively (`offline`, `REALTIME`); `None` otherwise.
    pub fn parse(name: &str) -> Option<TableType> {
        TableType::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The type named by a typed table name's suffix; `None` for a raw name.
    pub fn of_table_name(name: &str) -> Option<TableType> {
        TableType::ALL
            .into_iter()
            .find(|t| name.len() > t.suffix().len() && name.ends_with(t.suffix()))
    }

    /// The typed name for `name`: unchanged if it already ends with this type's suffix,
    /// else the suffix is appended (`TableNameBuilder#tableNameWithType`).
    pub fn table_name_with_type(self, name: &str) -> String {
        if name.ends_with(self.suffix()) {
            name.to_string()
        } else {
            format!("{name}{}", self.suffix())
        }
    }

    /// The other table type.
    pub fn other(self) -> TableType {
        match self {
            TableType::Offline => TableType::Realtime,
            TableType::Realtime => TableType::Offline,
        }
    }
}

/// The raw table name: a typed name with its `_OFFLINE`/`_REALTIME` suffix removed, any other
/// name unchanged (`TableNameBuilder#extractRawTableName`).
pub fn raw_table_name(name: &str) -> &str {
    TableType::of_table_name(name)
        .and_then(|t| name.strip_suffix(t.suffix()))
        .unwrap_or(name)
}

impl fmt::Display for TableType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for TableType {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for TableType {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        TableType::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "No enum constant org.apache.pinot.spi.config.table.TableType.{}",
                text.to_uppercase()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_suffixes() {
        assert_eq!(TableType::parse("offline"), Some(TableType::Offline));
        assert_eq!(TableType::parse(" Realtime "), Some(TableType::Realtime));
        assert_eq!(TableType::parse("hybrid"), None);
        assert_eq!(TableType::Offline.table_name_with_type("t"), "t_OFFLINE");
        assert_eq!(
            TableType::Offline.table_name_with_type("t_OFFLINE"),
            "t_OFFLINE"
        );
        // Pinot appends blindly when the other suffix is present; validation flags it.
        assert_eq!(
            TableType::Offline.table_name_with_type("t_REALTIME"),
            "t_REALTIME_OFFLINE"
        );
        assert_eq!(raw_table_name("t_REALTIME"), "t");
        assert_eq!(raw_table_name("t"), "t");
        assert_eq!(raw_table_name("_OFFLINE"), "_OFFLINE");
        assert_eq!(
            TableType::of_table_name("a_OFFLINE"),
            Some(TableType::Offline)
        );
        assert_eq!(TableType::Realtime.other(), TableType::Offline);
    }

    #[test]
    fn serde_is_case_insensitive_in_and_upper_out() {
        let t: TableType = serde_json::from_str("\"realtime\"").unwrap();
        assert_eq!(t, TableType::Realtime);
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"REALTIME\"");
        let err = serde_json::from_str::<TableType>("\"foo\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("TableType.FOO"), "{err}");
    }
}
