//! [`TableProvider`]: where the engine finds a table's schema and segments — the local
//! segment directories of the CLI, a server's hosted segments, or a test's in-memory map.
//! Any provider is also a binder [`Catalog`] through [`ProviderCatalog`].

use planner::plan::{Catalog, TableInfo};
use segments::segment::ImmutableSegment;
use segments::statistics::Statistics;
use segments::types::Schema;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Tables the engine can query.
pub trait TableProvider: Send + Sync {
    /// Every raw table name.
    fn table_names(&self) -> Vec<String>;
    /// The schema of a table (exact raw name).
    fn schema(&self, table: &str) -> Option<Schema>;
    /// The segments of a table (exact raw name), in a stable order.
    fn segments(&self, table: &str) -> Vec<Arc<ImmutableSegment>>;
    /// The table (exact raw name) is a dimension table (`isDimTable`); none is unless the
    /// provider knows table configs.
    fn is_dim_table(&self, _table: &str) -> bool {
        false
    }
    /// What the table (exact raw name) holds, for the optimizer: by default its segments'
    /// figures together (none without segments).
    fn statistics(&self, table: &str) -> Option<Arc<Statistics>> {
        statistics(&self.segments(table))
    }
    /// How many servers host the table's segments (0: none, or not known); a provider in one
    /// process hosts them all on one.
    fn servers(&self, table: &str) -> usize {
        usize::from(!self.segments(table).is_empty())
    }
}

/// The binder's view of a provider.
pub struct ProviderCatalog<'a>(pub &'a dyn TableProvider);

impl Catalog for ProviderCatalog<'_> {
    fn table(&self, name: &str) -> Option<TableInfo> {
        self.0.schema(name).map(|schema| TableInfo {
            dim_table: self.0.is_dim_table(name),
            statistics: self.0.statistics(name),
            servers: self.0.servers(name),
            ..TableInfo::new(name, schema)
        })
    }

    fn table_names(&self) -> Vec<String> {
        self.0.table_names()
    }
}

/// The figures of a table's segments together (none without segments: nothing is known).
fn statistics(segments: &[Arc<ImmutableSegment>]) -> Option<Arc<Statistics>> {
    let mut all: Option<Statistics> = None;
    for s in segments {
        let one = Statistics::of_segment(s.metadata());
        match &mut all {
            Some(a) => a.merge(&one),
            None => all = Some(one),
        }
    }
    all.map(Arc::new)
}

/// Tables held in memory: name → (schema, segments), and which are dimension tables.
#[derive(Clone, Default)]
pub struct MemoryTables {
    tables: BTreeMap<String, (Schema, Vec<Arc<ImmutableSegment>>)>,
    dim_tables: std::collections::BTreeSet<String>,
}

impl MemoryTables {
    /// No tables.
    pub fn new() -> MemoryTables {
        MemoryTables::default()
    }

    /// Adds (or replaces) a table.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        schema: Schema,
        segments: Vec<Arc<ImmutableSegment>>,
    ) -> &mut MemoryTables {
        let name = name.into();
        self.dim_tables.remove(&name);
        self.tables.insert(name, (schema, segments));
        self
    }

    /// Marks a table as a dimension table (`isDimTable`).
    pub fn set_dim_table(&mut self, name: &str) -> &mut MemoryTables {
        self.dim_tables.insert(name.to_string());
        self
    }
}

impl TableProvider for MemoryTables {
    fn table_names(&self) -> Vec<String> {
        self.tables.keys().cloned().collect()
    }

    fn schema(&self, table: &str) -> Option<Schema> {
        self.tables.get(table).map(|(s, _)| s.clone())
    }

    fn segments(&self, table: &str) -> Vec<Arc<ImmutableSegment>> {
        self.tables
            .get(table)
            .map(|(_, s)| s.clone())
            .unwrap_or_default()
    }

    fn is_dim_table(&self, table: &str) -> bool {
        self.dim_tables.contains(table)
    }
}
