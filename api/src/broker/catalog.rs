//! The broker's view of the cluster's tables for planning: raw table name → schema, fetched
//! from the controller on every heartbeat and on demand when a query
//! names a table the broker has not seen yet. It is the engine's
//! [`TableProvider`](engine::TableProvider) at the broker, which plans but hosts no segments.

use super::Broker;
use engine::TableProvider;
use planner::plan::TableInfo;
use segments::ImmutableSegment;
use segments::statistics::Statistics;
use segments::types::Schema;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// Tables known to the broker, by raw name.
#[derive(Default)]
pub struct BrokerCatalog {
    tables: RwLock<BTreeMap<String, TableInfo>>,
    /// Counts the replacements that changed something (plans made against an older
    /// generation are stale).
    generation: AtomicU64,
}

impl BrokerCatalog {
    /// Replaces the known tables.
    pub fn replace(&self, tables: Vec<TableInfo>) {
        let tables: BTreeMap<String, TableInfo> =
            tables.into_iter().map(|i| (i.name.clone(), i)).collect();
        if let Ok(mut t) = self.tables.write()
            && *t != tables
        {
            *t = tables;
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// The catalog's generation: a plan made while it was `g` is valid while it still is.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}

impl TableProvider for BrokerCatalog {
    fn table_names(&self) -> Vec<String> {
        self.tables
            .read()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    }
    fn schema(&self, table: &str) -> Option<Schema> {
        Some(self.tables.read().ok()?.get(table)?.schema.clone())
    }
    fn is_dim_table(&self, table: &str) -> bool {
        self.tables
            .read()
            .is_ok_and(|t| t.get(table).is_some_and(|i| i.dim_table))
    }
    fn segments(&self, _table: &str) -> Vec<Arc<ImmutableSegment>> {
        Vec::new()
    }
    fn statistics(&self, table: &str) -> Option<Arc<Statistics>> {
        self.tables.read().ok()?.get(table)?.statistics.clone()
    }
    fn servers(&self, table: &str) -> usize {
        self.tables
            .read()
            .ok()
            .and_then(|t| Some(t.get(table)?.servers))
            .unwrap_or(0)
    }
}

/// Fetches the catalog from the controller into `broker.catalog`.
pub async fn refresh(broker: &Broker) -> Result<(), String> {
    let tables = broker
        .controller
        .catalog()
        .await
        .map_err(|e| e.to_string())?;
    broker.catalog.replace(tables);
    Ok(())
}
