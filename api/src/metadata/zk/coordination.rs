//! ZooKeeper's recipes for several processes sharing one cluster:
//!
//! * the **write lease** — Curator's lock (ephemeral sequential nodes under
//!   `CONTROLLER/WRITE_LOCK`; the lowest holds it), so one controller at a time runs a
//!   read-check-write sequence; the compare-and-set commit is the safety net under it;
//! * the **leader latch** — the same recipe under `CONTROLLER/LEADER_LATCH`: the holder leads
//!   (assignment, periodic tasks) while its session is connected, and `CONTROLLER/LEADER` names
//!   it; when its process dies, its session ends and the next in line leads;
//! * **live instances** — one ephemeral node per live role under `LIVEINSTANCES`, whose data is
//!   the role's own announcement, watched recursively by the controllers.

use super::{Inner, runtime, store_error};
use crate::metadata::{KeyWatch, LiveInstances, LiveWatch, StoreError};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use zookeeper_client as zk;

fn lock_options() -> zk::LockOptions<'static> {
    zk::LockOptions::new(zk::Acls::anyone_all())
}

/// The cluster-wide write lease; dropping it deletes its lock node.
pub struct ZkLease(Option<zk::OwnedLockClient>);

impl Drop for ZkLease {
    fn drop(&mut self) {
        // The lock client deletes its node on a task of the client's runtime.
        if let (Some(lock), Ok(rt)) = (self.0.take(), runtime()) {
            let _enter = rt.enter();
            drop(lock);
        }
    }
}

/// Waits for the write lease.
pub async fn lock_writes(inner: Arc<Inner>) -> Result<ZkLease, StoreError> {
    let c = inner.connected_client().await?;
    let dir = format!("{}/{}", inner.root, super::layout::WRITE_LOCK);
    let prefix = zk::LockPrefix::new_curator(&dir, "lock-").map_err(store_error)?;
    let lock = c
        .lock(prefix, b"", lock_options())
        .await
        .map_err(store_error)?;
    Ok(ZkLease(Some(lock.into_owned())))
}

/// Whether this process holds the leader latch on a connected session.
pub fn is_leader(inner: &Inner) -> bool {
    inner.leading.load(Ordering::SeqCst)
        && inner
            .client
            .lock()
            .ok()
            .and_then(|c| {
                c.as_ref()
                    .map(|c| c.state() == zk::SessionState::SyncConnected)
            })
            .unwrap_or(false)
}

/// Campaigns for leadership as `id` until the store closes: waits in the latch, leads while
/// the session lasts, and queues again on a new session.
pub async fn campaign(inner: Arc<Inner>, id: String) {
    let dir = format!("{}/{}", inner.root, super::layout::LEADER_LATCH);
    let leader = format!("{}/{}", inner.root, super::layout::LEADER);
    while !inner.closed.load(Ordering::SeqCst) {
        let c = match inner.client().await {
            Ok(c) => c,
            Err(StoreError::Closed) => return,
            Err(e) => {
                log::warn!("leader election: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let Ok(prefix) = zk::LockPrefix::new_curator(&dir, "latch-") else {
            return;
        };
        let lock = match inner
            .until_closed(c.lock(prefix, id.as_bytes(), lock_options()))
            .await
        {
            None => return,
            Some(Ok(lock)) => lock,
            Some(Err(e)) => {
                log::warn!("leader election: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let record = serde_json::json!({"id": "LEADER", "simpleFields": {"LEADER": id}});
        let bytes = record.to_string().into_bytes();
        let named = match c.set_data(&leader, &bytes, None).await {
            Err(zk::Error::NoNode) => c
                .create(
                    &leader,
                    &bytes,
                    &zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all()),
                )
                .await
                .map(|_| ()),
            other => other.map(|_| ()),
        };
        if let Err(e) = named {
            log::warn!("cannot name the leader in {leader}: {e}");
        }
        inner.leading.store(true, Ordering::SeqCst);
        log::info!("{id} leads the cluster");
        let mut state = c.state_watcher();
        loop {
            match inner.until_closed(state.changed()).await {
                Some(s) if !s.is_terminated() => {}
                _ => break,
            }
        }
        inner.leading.store(false, Ordering::SeqCst);
        log::warn!("{id} no longer leads the cluster (its ZooKeeper session ended)");
        drop(lock);
    }
}

/// Creates or updates the ephemeral live node of `id` on session `c`. A node left by an earlier
/// life of the same instance (killed before its session expired) is replaced.
pub async fn put_live(
    inner: &Inner,
    c: &zk::Client,
    id: &str,
    bytes: &[u8],
) -> Result<(), StoreError> {
    let path = format!("{}/{}/{id}", inner.root, super::layout::LIVE);
    let ephemeral = zk::CreateMode::Ephemeral.with_acls(zk::Acls::anyone_all());
    for _ in 0..3 {
        match c.check_stat(&path).await.map_err(store_error)? {
            Some(stat) if stat.ephemeral_owner == c.session_id().0 => {
                return c
                    .set_data(&path, bytes, None)
                    .await
                    .map(|_| ())
                    .map_err(store_error);
            }
            Some(stat) => match c.delete(&path, Some(stat.version)).await {
                Ok(()) | Err(zk::Error::NoNode) | Err(zk::Error::BadVersion) => continue,
                Err(e) => return Err(store_error(e)),
            },
            None => match c.create(&path, bytes, &ephemeral).await {
                Ok(_) => return Ok(()),
                Err(zk::Error::NodeExists) => continue,
                Err(e) => return Err(store_error(e)),
            },
        }
    }
    Err(StoreError::Conflict(format!(
        "live node {path} keeps changing"
    )))
}

/// Announces `id` live with `bytes` (a no-op when the same was announced on this session).
pub async fn announce(inner: &Arc<Inner>, id: &str, bytes: &[u8]) -> Result<(), StoreError> {
    let unchanged = inner
        .announced
        .lock()
        .map_err(|_| super::poisoned())?
        .get(id)
        .is_some_and(|b| b == bytes);
    let c = inner.connected_client().await?;
    if unchanged {
        return Ok(());
    }
    put_live(inner, &c, id, bytes).await?;
    inner
        .announced
        .lock()
        .map_err(|_| super::poisoned())?
        .insert(id.to_string(), bytes.to_vec());
    Ok(())
}

/// The live instances and their announcements.
pub async fn read_live(inner: &Inner, c: &zk::Client) -> Result<LiveInstances, StoreError> {
    let dir = format!("{}/{}", inner.root, super::layout::LIVE);
    let children = c.list_children(&dir).await.map_err(store_error)?;
    let paths: Vec<String> = children.iter().map(|ch| format!("{dir}/{ch}")).collect();
    let nodes = super::data::read_nodes(c, &paths).await?;
    Ok(children
        .into_iter()
        .zip(paths)
        .filter_map(|(id, p)| nodes.get(&p).map(|n| (id, n.data.clone())))
        .collect())
}

/// Calls `watch` with the live instances now and after every change, until the store closes
/// (re-watching on a new session).
pub async fn watch_live(inner: Arc<Inner>, watch: LiveWatch) {
    let dir = format!("{}/{}", inner.root, super::layout::LIVE);
    follow_node(&inner, &dir, Follow::Live(watch)).await
}

/// Calls `watch` with the value at `path` now and after every change to it, until the store
/// closes (re-watching on a new session).
pub async fn watch_key(inner: Arc<Inner>, path: String, watch: KeyWatch) {
    follow_node(&inner, &path, Follow::Key(watch)).await
}

/// What a watched znode is read as, and who is told.
enum Follow {
    /// The live instances under the directory (a recursive watch).
    Live(LiveWatch),
    /// The node's own value.
    Key(KeyWatch),
}

impl Follow {
    fn mode(&self) -> zk::AddWatchMode {
        match self {
            Follow::Live(_) => zk::AddWatchMode::PersistentRecursive,
            Follow::Key(_) => zk::AddWatchMode::Persistent,
        }
    }

    /// Reads `path` and tells the watcher.
    async fn read(&self, inner: &Inner, c: &zk::Client, path: &str) -> Result<(), StoreError> {
        match self {
            Follow::Live(watch) => read_live(inner, c).await.map(|live| watch(live)),
            Follow::Key(watch) => {
                let value = match c.get_data(path).await {
                    Ok((data, _)) => (!data.is_empty()).then_some(data),
                    Err(zk::Error::NoNode) => None,
                    Err(e) => return Err(store_error(e)),
                };
                watch(value);
                Ok(())
            }
        }
    }
}

/// Reads `path` now and after every event of a watch on it, until the store closes.
///
/// The watch is set again, and the node read again, whenever the connection comes back: a
/// session that ended is replaced, and on a reconnection within the same session the client
/// (zookeeper-client 0.11) re-registers only one-shot watches with the new ZooKeeper server,
/// not persistent ones, so the old watch would never fire again — and events of the gap are
/// lost in any case (ZOOKEEPER-4698). A read that fails is tried again, on a fresh watch, a
/// second later: a watcher never keeps a view it failed to refresh.
async fn follow_node(inner: &Arc<Inner>, path: &str, follow: Follow) {
    let mut pause = false;
    while !inner.closed.load(Ordering::SeqCst) {
        if pause
            && inner
                .until_closed(tokio::time::sleep(Duration::from_secs(1)))
                .await
                .is_none()
        {
            return;
        }
        pause = true;
        let c = match inner.client().await {
            Ok(c) => c,
            Err(StoreError::Closed) => return,
            Err(e) => {
                log::debug!("watching {path}: {e}");
                continue;
            }
        };
        let mut watcher = match c.watch(path, follow.mode()).await {
            Ok(w) => w,
            Err(e) => {
                log::warn!("watching {path}: {e}");
                continue;
            }
        };
        if let Err(e) = follow.read(inner, &c, path).await {
            log::warn!("reading {path}: {e}");
            continue;
        }
        loop {
            let Some(event) = inner.until_closed(watcher.changed()).await else {
                return;
            };
            if event.event_type == zk::EventType::Session {
                let state = event.session_state;
                if state.is_terminated() || state == zk::SessionState::SyncConnected {
                    // A new session, or the same one on a new connection: watch anew.
                    pause = state.is_terminated();
                    break;
                }
                continue;
            }
            if let Err(e) = follow.read(inner, &c, path).await {
                log::warn!("reading {path}: {e}");
                break;
            }
        }
    }
}
