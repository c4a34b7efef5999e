//! A broker's membership: register with the controller, heartbeat every interval
//! (re-registering if the controller forgot us) and refresh the table catalog each time; and
//! react at once to a published metadata change: drop the changed tables' cached routing and
//! refresh the catalog.

use super::{Broker, BrokerState};
use crate::common::BoxFuture;
use crate::common::clock::sleep_unless_stopped;
use crate::metadata::changes::{Change, ChangeListener};
use crate::metadata::table_name::{ALL_TYPES, with_type};
use crate::transport::Registration;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Heartbeats for a broker (refreshing its table catalog each time) until `stop`.
pub async fn broker_loop(
    registration: Registration,
    broker: BrokerState,
    interval: Duration,
    stop: Arc<AtomicBool>,
) {
    let id = broker.config.instance_id.clone();
    let mut registered = false;
    while !stop.load(Ordering::Relaxed) {
        if !registered {
            registered = broker
                .controller
                .register(&registration)
                .await
                .map_err(|e| log::warn!("{id}: registration failed: {e}"))
                .is_ok();
        }
        if registered {
            match broker.controller.heartbeat(&id, None).await {
                Ok(None) => registered = false,
                Ok(Some(_)) => {
                    if let Err(e) = super::catalog::refresh(&broker).await {
                        log::warn!("{id}: cannot refresh the table catalog: {e}");
                    }
                }
                Err(e) => log::warn!("{id}: heartbeat failed: {e}"),
            }
        }
        sleep_unless_stopped(&stop, interval).await;
    }
}

impl ChangeListener for Broker {
    fn changed<'a>(&'a self, change: &'a Change) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if change.all {
                self.routing.clear();
            }
            for table in &change.tables {
                for t in ALL_TYPES {
                    super::routing_cache::refetch(self, &with_type(table, t)).await;
                }
            }
            if (change.all || !change.tables.is_empty())
                && let Err(e) = super::catalog::refresh(self).await
            {
                log::warn!(
                    "{}: cannot refresh the table catalog: {e}",
                    self.config.instance_id
                );
            }
        })
    }
}
