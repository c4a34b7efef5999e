//! Publishing committed changes: after each request, whatever it committed is sent as one
//! [`Change`] to the roles of this process (awaited: a broker or server here sees a deleted
//! table gone before the HTTP answer returns) and pushed to every other online broker and
//! server (`POST /tessera/changed`, not awaited past a short bound; their heartbeat polling is
//! the fallback).

use super::{Controller, ControllerState};
use crate::metadata::changes::Change;
use crate::metadata::records::InstanceType;
use std::time::Duration;
use tide::{Middleware, Next, Request};

/// How long a push to another process may take before the answer goes out anyway.
const PUSH_TIMEOUT: Duration = Duration::from_millis(500);

/// Middleware publishing what a request committed.
pub struct PublishChanges;

#[tide::utils::async_trait]
impl Middleware<ControllerState> for PublishChanges {
    async fn handle(
        &self,
        req: Request<ControllerState>,
        next: Next<'_, ControllerState>,
    ) -> tide::Result {
        let c = req.state().clone();
        let res = next.run(req).await;
        publish(&c).await;
        Ok(res)
    }
}

/// Publishes the pending change, if any.
pub async fn publish(c: &Controller) {
    let Some(change) = c.changes.take() else {
        return;
    };
    log::debug!(
        "publishing metadata version {}: {:?}",
        change.version,
        change.tables
    );
    let local: Vec<_> = c.listeners.read().map(|l| l.clone()).unwrap_or_default();
    for (_, listener) in &local {
        listener.changed(&change).await;
    }
    let remote: Vec<String> = match c.instances() {
        Ok(list) => list
            .into_iter()
            .filter(|i| matches!(i.instance_type, InstanceType::Broker | InstanceType::Server))
            .filter(|i| !local.iter().any(|(id, _)| id == &i.instance_name))
            .filter(|i| c.is_online(&i.instance_name))
            .map(|i| i.base_url())
            .collect(),
        Err(_) => Vec::new(),
    };
    let pushes: Vec<_> = remote
        .into_iter()
        .map(|url| {
            let client = c.client.clone();
            let change = change.clone();
            async_std::task::spawn(async move { push(&client, &url, &change).await })
        })
        .collect();
    for p in pushes {
        let _ = async_std::future::timeout(PUSH_TIMEOUT, p).await;
    }
}

async fn push(client: &surf::Client, base_url: &str, change: &Change) {
    let Ok(body) = surf::Body::from_json(change) else {
        return;
    };
    let url = format!("{base_url}/tessera/changed");
    match client.post(&url).body(body).await {
        // Read the answer whole so the pooled connection is clean for the next request.
        Ok(mut res) => {
            let _ = res.body_bytes().await;
        }
        Err(e) => log::debug!("cannot push the change to {base_url}: {e}"),
    }
}

/// Registers a role of this process to be told of every change.
pub fn add_listener(
    c: &Controller,
    id: &str,
    listener: std::sync::Arc<dyn crate::metadata::changes::ChangeListener>,
) {
    if let Ok(mut l) = c.listeners.write() {
        l.push((id.to_string(), listener));
    }
}
