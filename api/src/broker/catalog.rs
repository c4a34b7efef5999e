//! The broker's view of the cluster's tables for planning: raw table name → schema, fetched
//! from the controller on every heartbeat and on demand when a query
//! names a table the broker has not seen yet. It is the engine's
//! [`TableProvider`](engine::TableProvider) at the broker, which plans but hosts no segments.

use super::Broker;
use engine::TableProvider;
use planner::plan::TableInfo;
use segments::ImmutableSegment;
use segments::types::Schema;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Tables known to the broker, by raw name.
#[derive(Default)]
pub struct BrokerCatalog {
    tables: RwLock<BTreeMap<String, TableInfo>>,
}

impl BrokerCatalog {
    /// Replaces the known tables.
    pub fn replace(&self, tables: Vec<TableInfo>) {
        if let Ok(mut t) = self.tables.write() {
            *t = tables.into_iter().map(|i| (i.name.clone(), i)).collect();
        }
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
