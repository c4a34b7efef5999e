//! Pinot's table naming at the HTTP edge: raw names (`foo`), typed names (`foo_OFFLINE`,
//! `foo_REALTIME`) and the `?type=` narrowing most endpoints accept
//! (`TableNameBuilder`, `Constants#validateTableType`), over the shared
//! [`TableType`](segments::types::TableType).

use crate::http::ApiError;
pub use segments::types::TableType;

/// Both types, in Pinot's lookup order.
pub const ALL_TYPES: [TableType; 2] = [TableType::Offline, TableType::Realtime];

/// Case-insensitive `offline` / `realtime`; anything else is Pinot's 400.
pub fn parse_type(text: &str) -> Result<TableType, ApiError> {
    TableType::parse(text)
        .ok_or_else(|| ApiError::bad_request(format!("Illegal table type '{text}'")))
}

/// A `?type=`-style query parameter, if given (an empty value counts as absent).
pub fn type_param(param: Option<&str>) -> Result<Option<TableType>, ApiError> {
    match param {
        None | Some("") => Ok(None),
        Some(t) => parse_type(t).map(Some),
    }
}

/// Splits `foo_OFFLINE` into (`foo`, Some(Offline)); a raw name gives (`foo`, None).
pub fn split(name: &str) -> (&str, Option<TableType>) {
    match TableType::of_table_name(name) {
        Some(t) => {
            let raw = segments::types::raw_table_name(name);
            if raw.is_empty() {
                (name, None)
            } else {
                (raw, Some(t))
            }
        }
        None => (name, None),
    }
}

/// `<raw>_<TYPE>`.
pub fn with_type(raw: &str, t: TableType) -> String {
    t.table_name_with_type(raw)
}

/// The typed names a request addresses: the name's own suffix, else `?type=`, else both.
/// A suffix that contradicts `?type=` is Pinot's 403.
pub fn candidates(
    name: &str,
    type_param: Option<TableType>,
) -> Result<(String, Vec<TableType>), ApiError> {
    let (raw, suffix) = split(name);
    match (suffix, type_param) {
        (Some(s), Some(t)) if s != t => Err(ApiError::new(
            403,
            format!("Table name: {name} does not match table type: {}", t.name()),
        )),
        (Some(s), _) | (None, Some(s)) => Ok((raw.to_string(), vec![s])),
        (None, None) => Ok((raw.to_string(), ALL_TYPES.to_vec())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_builds_names() {
        assert_eq!(split("foo_OFFLINE"), ("foo", Some(TableType::Offline)));
        assert_eq!(split("foo_REALTIME"), ("foo", Some(TableType::Realtime)));
        assert_eq!(split("foo"), ("foo", None));
        assert_eq!(with_type("foo", TableType::Offline), "foo_OFFLINE");
        assert_eq!(parse_type("offline").unwrap(), TableType::Offline);
        assert_eq!(
            parse_type("x").unwrap_err().message,
            "Illegal table type 'x'"
        );
        assert_eq!(type_param(Some("")).unwrap(), None);
        assert_eq!(candidates("foo", None).unwrap().1.len(), 2);
        assert_eq!(
            candidates("foo_OFFLINE", Some(TableType::Realtime))
                .unwrap_err()
                .status,
            403
        );
        assert_eq!(
            candidates("foo", Some(TableType::Realtime)).unwrap(),
            ("foo".to_string(), vec![TableType::Realtime])
        );
    }
}
