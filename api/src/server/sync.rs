//! Cluster membership for brokers and servers: register with the controller, heartbeat every
//! interval (re-registering if the controller forgot us), and — for servers — apply the
//! assignment each heartbeat returns: download new or refreshed segments, reopen reloaded ones,
//! drop unassigned ones. A failed heartbeat changes nothing locally.

use super::ServerState;
use crate::broker::BrokerState;
use crate::controller::records::{AssignedSegment, InstanceType};
use crate::http::on_rayon;
use serde_json::{Value as Json, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Who an instance is, for registration.
#[derive(Clone, Debug)]
pub struct Member {
    pub instance_id: String,
    pub host: String,
    pub port: u16,
    pub instance_type: InstanceType,
    pub controller_url: String,
    /// Tags to register with (used only when the controller does not know us yet).
    pub tags: Option<Vec<String>>,
}

impl Member {
    async fn register(&self, client: &surf::Client) -> Result<(), String> {
        let body = json!({
            "host": self.host, "port": self.port,
            "type": self.instance_type, "instanceName": self.instance_id,
            "tags": self.tags,
        });
        let res = client
            .post(format!("{}/instances", self.controller_url))
            .body(surf::Body::from_json(&body).map_err(|e| e.to_string())?)
            .await
            .map_err(|e| e.to_string())?;
        if !res.status().is_success() {
            return Err(format!("registration answered HTTP {}", res.status()));
        }
        Ok(())
    }

    /// One heartbeat; `Ok(None)` when the controller does not know us (register again).
    async fn heartbeat(&self, client: &surf::Client, body: Json) -> Result<Option<Json>, String> {
        let mut res = client
            .post(format!(
                "{}/instances/{}/heartbeat",
                self.controller_url, self.instance_id
            ))
            .body(surf::Body::from_json(&body).map_err(|e| e.to_string())?)
            .await
            .map_err(|e| e.to_string())?;
        if res.status() == 404 {
            return Ok(None);
        }
        if !res.status().is_success() {
            return Err(format!("heartbeat answered HTTP {}", res.status()));
        }
        res.body_json().await.map(Some).map_err(|e| e.to_string())
    }
}

async fn sleep_unless_stopped(stop: &AtomicBool, total: Duration) {
    let step = Duration::from_millis(50).min(total);
    let mut waited = Duration::ZERO;
    while waited < total && !stop.load(Ordering::Relaxed) {
        async_std::task::sleep(step).await;
        waited += step;
    }
}

/// Heartbeats for a broker (refreshing its table catalog each time) until `stop`.
pub async fn broker_loop(
    member: Member,
    broker: BrokerState,
    interval: Duration,
    stop: Arc<AtomicBool>,
) {
    let client = broker.client.clone();
    let mut registered = false;
    while !stop.load(Ordering::Relaxed) {
        if !registered {
            registered = member
                .register(&client)
                .await
                .map_err(|e| log::warn!("{}: {e}", member.instance_id))
                .is_ok();
        }
        if registered {
            match member.heartbeat(&client, json!({})).await {
                Ok(None) => registered = false,
                Ok(Some(_)) => {
                    if let Err(e) = crate::broker::catalog::refresh(&broker).await {
                        log::warn!(
                            "{}: cannot refresh the table catalog: {e}",
                            member.instance_id
                        );
                    }
                }
                Err(e) => log::warn!("{}: {e}", member.instance_id),
            }
        }
        sleep_unless_stopped(&stop, interval).await;
    }
}

/// Heartbeats for a server and applies its assignment, until `stop`.
pub async fn server_loop(server: ServerState, stop: Arc<AtomicBool>) {
    let c = &server.config;
    let member = Member {
        instance_id: c.instance_id.clone(),
        host: c.host.clone(),
        port: c.port,
        instance_type: InstanceType::Server,
        controller_url: c.controller_url.clone(),
        tags: c.tags.clone(),
    };
    let mut registered = false;
    while !stop.load(Ordering::Relaxed) {
        if !registered {
            registered = member
                .register(&server.client)
                .await
                .map_err(|e| log::warn!("{}: {e}", member.instance_id))
                .is_ok();
        }
        if registered {
            let body = json!({ "loadedSegments": server.hosted.loaded() });
            match member.heartbeat(&server.client, body).await {
                Ok(None) => registered = false,
                Ok(Some(answer)) => {
                    match serde_json::from_value::<Vec<AssignedSegment>>(answer["segments"].clone())
                    {
                        Ok(assigned) => {
                            if apply(&server, &assigned).await {
                                // Report the new state at once instead of one interval later.
                                continue;
                            }
                        }
                        Err(e) => log::warn!("{}: bad heartbeat answer: {e}", member.instance_id),
                    }
                }
                Err(e) => log::warn!("{}: {e}", member.instance_id),
            }
        }
        sleep_unless_stopped(&stop, c.heartbeat_interval).await;
    }
}

/// Brings the hosted set in line with `assigned`; returns whether anything changed.
pub async fn apply(server: &ServerState, assigned: &[AssignedSegment]) -> bool {
    let mut changed = false;
    let wanted: BTreeSet<(String, String)> = assigned
        .iter()
        .map(|a| (a.table_name_with_type.clone(), a.segment_name.clone()))
        .collect();
    for a in assigned {
        let (table, seg) = (a.table_name_with_type.clone(), a.segment_name.clone());
        match server.hosted.get(&table, &seg) {
            Some(h) if h.crc == a.crc => {
                if h.reload_version != a.reload_version {
                    let s = server.clone();
                    let v = a.reload_version;
                    let (t2, s2) = (table.clone(), seg.clone());
                    match on_rayon(move || s.hosted.reload(&t2, &s2, v)).await {
                        Ok(Ok(())) => changed = true,
                        Ok(Err(e)) => log::warn!("cannot reload {table}/{seg}: {e}"),
                        Err(e) => log::warn!("cannot reload {table}/{seg}: {e}"),
                    }
                }
            }
            _ => match download(server, a).await {
                Ok(()) => changed = true,
                Err(e) => log::warn!("cannot load {table}/{seg}: {e}"),
            },
        }
    }
    for (table, segs) in server.hosted.loaded() {
        for seg in segs {
            if !wanted.contains(&(table.clone(), seg.clone())) {
                server.hosted.remove(&table, &seg);
                changed = true;
            }
        }
    }
    changed
}

async fn download(server: &ServerState, a: &AssignedSegment) -> Result<(), String> {
    let url = format!(
        "{}/segments/{}/{}",
        server.config.controller_url, a.table_name_with_type, a.segment_name
    );
    let mut res = server.client.get(&url).await.map_err(|e| e.to_string())?;
    if !res.status().is_success() {
        return Err(format!("download answered HTTP {}", res.status()));
    }
    let bytes = res.body_bytes().await.map_err(|e| e.to_string())?;
    let s = server.clone();
    let a = a.clone();
    on_rayon(move || {
        s.hosted.install(
            &a.table_name_with_type,
            &a.segment_name,
            &bytes,
            a.crc,
            a.reload_version,
        )
    })
    .await?
    .map_err(|e| e.to_string())
}
