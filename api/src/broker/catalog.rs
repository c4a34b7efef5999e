//! The broker's view of the cluster's tables for planning: raw table name → schema, fetched
//! from the controller on every heartbeat and on demand when a query
//! names a table the broker has not seen yet. It is the engine's
//! [`TableProvider`](engine::TableProvider) at the broker, which plans but hosts no segments.

use super::Broker;
use engine::TableProvider;
use segments::ImmutableSegment;
use segments::types::Schema;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Table schemas known to the broker.
#[derive(Default)]
pub struct BrokerCatalog {
    tables: RwLock<BTreeMap<String, Schema>>,
}

impl BrokerCatalog {
    /// Replaces the known tables.
    pub fn replace(&self, tables: BTreeMap<String, Schema>) {
        if let Ok(mut t) = self.tables.write() {
            *t = tables;
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
        self.tables.read().ok()?.get(table).cloned()
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
