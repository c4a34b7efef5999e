//! [`Catalog`]: what the binder knows about tables — their names and schemas, their figures,
//! and over how many servers their segments are spread (not which: placement is the broker's).
//!
//! Lookup follows Pinot's broker: a name matches exactly, then case-insensitively; a
//! `_OFFLINE`/`_REALTIME` suffix and a `default.` database prefix are accepted.

use segments::statistics::Statistics;
use segments::types::Schema;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One table as the binder sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableInfo {
    /// The table's raw name (no type suffix), as the catalog spells it.
    pub name: String,
    /// Its schema.
    pub schema: Schema,
    /// Its table config says `isDimTable`: a dimension table, replicated to every server, the
    /// only kind a lookup join (`joinOptions(join_strategy='lookup')`) may read on its right.
    pub dim_table: bool,
    /// What the table holds (rows, per-column distinct counts and ranges), when known: the
    /// optimizer's estimates start here.
    pub statistics: Option<Arc<Statistics>>,
    /// How many servers host its segments: the workers a join over it runs on, which the
    /// optimizer's choice of exchanges weighs. 0 when none does or it is not known.
    pub servers: usize,
}

impl TableInfo {
    /// A (fact, not dimension) table.
    pub fn new(name: impl Into<String>, schema: Schema) -> TableInfo {
        TableInfo {
            name: name.into(),
            schema,
            dim_table: false,
            statistics: None,
            servers: 0,
        }
    }
}

/// Table metadata for binding.
pub trait Catalog {
    /// The table with exactly this raw name, if any.
    fn table(&self, name: &str) -> Option<TableInfo>;

    /// Every raw table name (used for the case-insensitive fallback).
    fn table_names(&self) -> Vec<String>;

    /// Resolves a name as written in `FROM`: exact, then without a type suffix or `default.`
    /// prefix, then case-insensitively.
    fn resolve_table(&self, written: &str) -> Option<TableInfo> {
        let mut candidates = vec![written.to_string()];
        let unprefixed = written
            .strip_prefix("default.")
            .or_else(|| written.strip_prefix("DEFAULT."))
            .unwrap_or(written);
        for suffix in ["_OFFLINE", "_REALTIME"] {
            if let Some(raw) = unprefixed.strip_suffix(suffix) {
                candidates.push(raw.to_string());
            }
        }
        candidates.push(unprefixed.to_string());
        for c in &candidates {
            if let Some(t) = self.table(c) {
                return Some(t);
            }
        }
        let names = self.table_names();
        for c in &candidates {
            if let Some(n) = names.iter().find(|n| n.eq_ignore_ascii_case(c)) {
                return self.table(n);
            }
        }
        None
    }
}

/// A catalog held in memory: table name → schema. Used by tests, the CLI and the
/// single-process broker.
#[derive(Debug, Clone, Default)]
pub struct MemoryCatalog {
    tables: BTreeMap<String, TableInfo>,
}

impl MemoryCatalog {
    /// An empty catalog.
    pub fn new() -> MemoryCatalog {
        MemoryCatalog::default()
    }

    /// Adds (or replaces) a table.
    pub fn add(&mut self, name: impl Into<String>, schema: Schema) -> &mut MemoryCatalog {
        let name = name.into();
        self.tables
            .insert(name.clone(), TableInfo::new(name, schema));
        self
    }

    /// Sets what a table holds (rows, column figures) for the optimizer's estimates.
    pub fn set_statistics(&mut self, name: &str, statistics: Statistics) -> &mut MemoryCatalog {
        if let Some(t) = self.tables.get_mut(name) {
            t.statistics = Some(Arc::new(statistics));
        }
        self
    }

    /// Records how many servers host a table's segments.
    pub fn set_servers(&mut self, name: &str, servers: usize) -> &mut MemoryCatalog {
        if let Some(t) = self.tables.get_mut(name) {
            t.servers = servers;
        }
        self
    }

    /// Adds (or replaces) a dimension table (`isDimTable`).
    pub fn add_dim(&mut self, name: impl Into<String>, schema: Schema) -> &mut MemoryCatalog {
        let name = name.into();
        let info = TableInfo {
            dim_table: true,
            ..TableInfo::new(name.clone(), schema)
        };
        self.tables.insert(name, info);
        self
    }
}

impl Catalog for MemoryCatalog {
    fn table(&self, name: &str) -> Option<TableInfo> {
        self.tables.get(name).cloned()
    }

    fn table_names(&self) -> Vec<String> {
        self.tables.keys().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_exact_suffixed_and_case_insensitive_names() {
        let mut c = MemoryCatalog::new();
        c.add("baseballStats", Schema::default());
        assert_eq!(
            c.resolve_table("baseballStats").unwrap().name,
            "baseballStats"
        );
        assert_eq!(
            c.resolve_table("baseballstats").unwrap().name,
            "baseballStats"
        );
        assert_eq!(
            c.resolve_table("baseballStats_OFFLINE").unwrap().name,
            "baseballStats"
        );
        assert_eq!(
            c.resolve_table("default.BASEBALLSTATS").unwrap().name,
            "baseballStats"
        );
        assert!(c.resolve_table("nope").is_none());
    }
}
