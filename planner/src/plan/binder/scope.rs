//! The columns a query can name: the table's schema plus Pinot's virtual columns
//! (`$docId`, `$segmentName`, `$hostName`). Names resolve exactly first, then
//! case-insensitively (Pinot brokers run case-insensitive by default).

use crate::plan::catalog::{Catalog, TableInfo};
use crate::plan::expr::ColumnRef;
use segments::types::ColumnType;
use segments::types::DataType;

/// Virtual columns every segment answers.
pub const VIRTUAL_COLUMNS: [(&str, DataType); 3] = [
    ("$docId", DataType::Int),
    ("$segmentName", DataType::String),
    ("$hostName", DataType::String),
];

/// Column resolution for one table (or none, for table-less queries).
pub struct Scope<'a> {
    pub table: Option<&'a TableInfo>,
    /// The catalog, where calls that name other tables are checked (`lookUp`'s dimension
    /// table); none where no table can be named.
    pub catalog: Option<&'a dyn Catalog>,
    /// The `FROM` alias, if any.
    pub alias: Option<String>,
}

impl Scope<'_> {
    /// Resolves a column name as written.
    pub fn resolve(&self, name: &str) -> Option<ColumnRef> {
        let table = self.table?;
        let fields = &table.schema.fields;
        let field = fields
            .iter()
            .find(|f| f.name == name)
            .or_else(|| fields.iter().find(|f| f.name.eq_ignore_ascii_case(name)));
        if let Some(f) = field {
            return Some(ColumnRef {
                name: f.name.clone(),
                column_type: f.column_type(),
            });
        }
        VIRTUAL_COLUMNS
            .iter()
            .find(|(v, _)| v.eq_ignore_ascii_case(name))
            .map(|(v, t)| ColumnRef {
                name: v.to_string(),
                column_type: ColumnType::sv(*t),
            })
    }

    /// Whether a `t.col` qualifier names this table (by name or alias).
    pub fn qualifier_matches(&self, qualifier: &str) -> bool {
        let by_alias = self
            .alias
            .as_deref()
            .is_some_and(|a| a.eq_ignore_ascii_case(qualifier));
        let by_name = self.table.is_some_and(|t| {
            t.name.eq_ignore_ascii_case(qualifier)
                || qualifier
                    .rsplit('.')
                    .next()
                    .is_some_and(|q| q.eq_ignore_ascii_case(&t.name))
        });
        by_alias || by_name
    }

    /// The physical columns for `SELECT *`: sorted by name (Pinot v1 orders them that way),
    /// virtual columns and every other `$`-column (the timestamp index's `$ts$DAY`) excluded,
    /// as Pinot's `SelectionOperatorUtils` skips names starting with `$`.
    pub fn star_columns(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .table
            .map(|t| {
                t.schema
                    .fields
                    .iter()
                    .filter(|f| !f.name.starts_with('$'))
                    .map(|f| f.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use segments::types::{FieldSpec, Schema};

    #[test]
    fn resolves_exact_then_case_insensitive_and_virtual() {
        let mut schema = Schema::default();
        schema
            .fields
            .push(FieldSpec::dimension("b", DataType::String));
        schema.fields.push(FieldSpec::metric("Runs", DataType::Int));
        schema
            .fields
            .push(FieldSpec::dimension("$ts$DAY", DataType::Long));
        let info = TableInfo::new("t", schema);
        let scope = Scope {
            table: Some(&info),
            catalog: None,
            alias: Some("x".into()),
        };
        assert_eq!(scope.resolve("runs").unwrap().name, "Runs");
        assert_eq!(
            scope.resolve("Runs").unwrap().column_type,
            ColumnType::sv(DataType::Int)
        );
        assert_eq!(scope.resolve("$docid").unwrap().name, "$docId");
        assert!(scope.resolve("nope").is_none());
        assert!(scope.qualifier_matches("T"));
        assert!(scope.qualifier_matches("x"));
        assert!(!scope.qualifier_matches("u"));
        assert_eq!(
            scope.star_columns(),
            vec!["Runs".to_string(), "b".to_string()]
        );
    }
}
