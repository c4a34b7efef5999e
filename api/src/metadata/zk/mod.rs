//! [`ZkStore`]: the [`MetadataStore`] in ZooKeeper, for a cluster of many machines — several
//! controllers, and brokers and servers that announce themselves live. The keys live where Pinot
//! keeps them ([`layout`]); a commit is one ZooKeeper `multi` whose every write is a versioned
//! compare-and-set ([`data`]), so two controllers never lose each other's changes; the write
//! lease, the leader latch and the live instances are ZooKeeper's recipes ([`coordination`]).
//!
//! The client (`zookeeper-client`) runs on this module's own tokio runtime (one worker thread);
//! every call of the trait blocks its caller on it, as the embedded store blocks on its file.
//! A session ZooKeeper expires (the process was cut off longer than the session timeout) is
//! replaced by a new one on the next call, and this process's live instances are announced
//! again.

pub mod coordination;
pub mod data;
pub mod layout;

use super::{KeyWatch, LiveInstances, LiveWatch, MetadataStore, Op, StoreError, WriteLease};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use zookeeper_client as zk;

/// Where the cluster's metadata lives in ZooKeeper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZkConfig {
    /// `host:port[,host:port…][/chroot]`, as Pinot's `-zkAddress`.
    pub address: String,
    /// The cluster's name (Pinot's `-clusterName`): its root znode.
    pub cluster: String,
    /// After this long cut off, ZooKeeper ends the session and its live instances vanish.
    pub session_timeout: Duration,
    /// Longest a call waits for ZooKeeper before failing with [`StoreError::Unavailable`].
    pub call_timeout: Duration,
}

impl ZkConfig {
    /// A config with Pinot's defaults (30 s session) shortened for fast failover: 10 s.
    pub fn new(address: &str, cluster: &str) -> ZkConfig {
        ZkConfig {
            address: address.to_string(),
            cluster: cluster.to_string(),
            session_timeout: Duration::from_secs(10),
            call_timeout: Duration::from_secs(10),
        }
    }
}

fn runtime() -> Result<&'static tokio::runtime::Runtime, StoreError> {
    static RUNTIME: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("zookeeper-client")
                .enable_all()
                .build()
                .map_err(|e| log::error!("cannot start the ZooKeeper client's runtime: {e}"))
                .ok()
        })
        .as_ref()
        .ok_or_else(|| {
            StoreError::Unavailable("the ZooKeeper client's runtime did not start".into())
        })
}

/// Maps a client error: what a retry after ZooKeeper is back can fix is `Unavailable`, a
/// failed compare is `Conflict`.
fn store_error(e: zk::Error) -> StoreError {
    use zk::Error as E;
    match e {
        E::BadVersion | E::NodeExists | E::NoNode | E::NotEmpty => {
            StoreError::Conflict(e.to_string())
        }
        E::ConnectionLoss
        | E::SessionExpired
        | E::ClientClosed
        | E::NoHosts
        | E::Timeout
        | E::SessionMoved
        | E::Throttled
        | E::NotReadOnly
        // The client's own connection failures ("no response from connection in …", an I/O
        // error) reach the requests that were waiting on the connection as custom errors.
        | E::Custom(_) => StoreError::Unavailable(format!("ZooKeeper: {e}")),
        other => StoreError::Backend(format!("ZooKeeper: {other}")),
    }
}

/// The shared state behind a [`ZkStore`] (its background tasks hold it too).
pub struct Inner {
    config: ZkConfig,
    /// `/<cluster>`.
    root: String,
    client: Mutex<Option<zk::Client>>,
    /// Held while a new session is opened, so concurrent callers open one, not several (a
    /// session opened and dropped would take the live nodes it re-announced with it).
    reconnecting: tokio::sync::Mutex<()>,
    closed: AtomicBool,
    /// What this process announced live, re-announced on a new session.
    announced: Mutex<BTreeMap<String, Vec<u8>>>,
    /// Set while this process holds the leader latch.
    leading: AtomicBool,
    /// Turns true on close: background tasks drop their clients, so the session ends at once.
    closing: tokio::sync::watch::Sender<bool>,
}

/// The metadata store in ZooKeeper.
#[derive(Clone)]
pub struct ZkStore {
    inner: Arc<Inner>,
}

impl ZkStore {
    /// Connects, creating the cluster's top-level znodes if this is its first process.
    pub fn connect(config: ZkConfig) -> Result<ZkStore, StoreError> {
        if config.cluster.is_empty() || config.cluster.contains('/') {
            return Err(StoreError::Backend(format!(
                "invalid cluster name '{}'",
                config.cluster
            )));
        }
        let inner = Arc::new(Inner {
            root: format!("/{}", config.cluster),
            config,
            client: Mutex::new(None),
            reconnecting: tokio::sync::Mutex::new(()),
            closed: AtomicBool::new(false),
            announced: Mutex::default(),
            leading: AtomicBool::new(false),
            closing: tokio::sync::watch::Sender::new(false),
        });
        let store = ZkStore { inner };
        store.run(data::init(store.inner.clone()))?;
        Ok(store)
    }

    /// Runs `f` on the client's runtime, blocking the caller, bounded by the call timeout.
    fn run<T: Send + 'static>(
        &self,
        f: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.run_within(self.inner.config.call_timeout, f)
    }

    /// [`ZkStore::run`] bounded by `timeout`.
    fn run_within<T: Send + 'static>(
        &self,
        timeout: Duration,
        f: impl Future<Output = Result<T, StoreError>> + Send + 'static,
    ) -> Result<T, StoreError> {
        if self.inner.closed.load(Ordering::SeqCst) {
            return Err(StoreError::Closed);
        }
        let rt = runtime()?;
        // A caller already on the runtime (a watch's callback) would deadlock blocking on it.
        if tokio::runtime::Handle::try_current().is_ok() {
            return Err(StoreError::Backend(
                "a ZooKeeper call from the ZooKeeper client's own thread".into(),
            ));
        }
        rt.block_on(async move {
            match tokio::time::timeout(timeout, f).await {
                Ok(r) => r,
                Err(_) => Err(StoreError::Unavailable(format!(
                    "ZooKeeper did not answer within {timeout:?}"
                ))),
            }
        })
    }

    /// The controller that leads, as `/<cluster>/CONTROLLER/LEADER` names it (`None` before
    /// any has led).
    pub fn leader(&self) -> Result<Option<String>, StoreError> {
        let path = format!("{}/{}", self.inner.root, layout::LEADER);
        let Some(bytes) = self.run(data::get(self.inner.clone(), path))? else {
            return Ok(None);
        };
        let record: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| StoreError::Backend(format!("unreadable leader record: {e}")))?;
        Ok(record["simpleFields"]["LEADER"]
            .as_str()
            .map(str::to_string))
    }

    /// Starts campaigning for leadership as controller `id`: [`MetadataStore::is_leader`]
    /// answers whether this process leads, and `/<cluster>/CONTROLLER/LEADER` names the leader.
    pub fn campaign(&self, id: &str) -> Result<(), StoreError> {
        let rt = runtime()?;
        rt.spawn(coordination::campaign(self.inner.clone(), id.to_string()));
        Ok(())
    }
}

impl Inner {
    /// The live client, connecting a new session when there is none or it ended; a new
    /// session announces this process's live instances again.
    async fn client(self: &Arc<Self>) -> Result<zk::Client, StoreError> {
        if let Some(c) = self.usable()? {
            return Ok(c);
        }
        let _one = self.reconnecting.lock().await;
        // Another caller may have opened the new session meanwhile.
        if let Some(c) = self.usable()? {
            return Ok(c);
        }
        let c = zk::Client::connector()
            .with_session_timeout(self.config.session_timeout)
            .with_connection_timeout(self.config.call_timeout)
            .connect(&self.config.address)
            .await
            .map_err(|e| {
                StoreError::Unavailable(format!(
                    "cannot reach ZooKeeper at {}: {e}",
                    self.config.address
                ))
            })?;
        *self.client.lock().map_err(|_| poisoned())? = Some(c.clone());
        let again: Vec<(String, Vec<u8>)> = self
            .announced
            .lock()
            .map_err(|_| poisoned())?
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (id, bytes) in again {
            coordination::put_live(self, &c, &id, &bytes).await?;
        }
        Ok(c)
    }

    /// The live client, waiting while a cut-off session reconnects (the caller's timeout bounds
    /// the wait): for writes, which had rather land a second late than fail because this
    /// process's ZooKeeper node went away and its client is moving to another. Reads fail at
    /// once instead ([`Inner::client`]), so a broker's routing falls back without delay.
    async fn connected_client(self: &Arc<Self>) -> Result<zk::Client, StoreError> {
        loop {
            let why = match self.client().await {
                Err(StoreError::Unavailable(why)) => why,
                other => return other,
            };
            let current = self.client.lock().map_err(|_| poisoned())?.clone();
            let Some(c) = current.filter(|c| !c.state().is_terminated()) else {
                return Err(StoreError::Unavailable(why));
            };
            let mut state = c.state_watcher();
            if state.state() == zk::SessionState::Disconnected
                && self.until_closed(state.changed()).await.is_none()
            {
                return Err(StoreError::Closed);
            }
        }
    }

    /// The current client if its session is connected; `None` if there is none or its
    /// session ended (open a new one); an error while it is cut off but may recover.
    fn usable(&self) -> Result<Option<zk::Client>, StoreError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(StoreError::Closed);
        }
        let current = self.client.lock().map_err(|_| poisoned())?.clone();
        let Some(c) = current else {
            return Ok(None);
        };
        match c.state() {
            zk::SessionState::SyncConnected | zk::SessionState::ConnectedReadOnly => Ok(Some(c)),
            // Cut off but the session may live on: fail now rather than at the call timeout
            // (a broker falls back on its last routing at once); the client reconnects in
            // the background.
            s if !s.is_terminated() => Err(StoreError::Unavailable(format!(
                "ZooKeeper at {} is not reachable; reconnecting",
                self.config.address
            ))),
            _ => {
                log::warn!(
                    "ZooKeeper session {} ended; opening a new one",
                    c.session_id()
                );
                Ok(None)
            }
        }
    }

    /// Runs `f` until it ends or the store closes (`None`).
    async fn until_closed<T>(&self, f: impl Future<Output = T>) -> Option<T> {
        let mut closing = self.closing.subscribe();
        let closed = async move {
            let _ = closing.wait_for(|c| *c).await;
            None
        };
        futures_lite::future::or(async { Some(f.await) }, closed).await
    }
}

fn poisoned() -> StoreError {
    StoreError::Backend("lock poisoned".into())
}

impl MetadataStore for ZkStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let path = layout::path(&self.inner.root, key)?;
        self.run(data::get(self.inner.clone(), path))
    }

    fn list(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.run(data::list(self.inner.clone(), prefix.to_string()))
    }

    fn commit(&self, ops: Vec<Op>) -> Result<(), StoreError> {
        let sent = Arc::new(AtomicBool::new(false));
        match self.run(data::commit(self.inner.clone(), ops, sent.clone())) {
            // Sent, then cut off or timed out: ZooKeeper may have applied it.
            Err(StoreError::Unavailable(why)) if sent.load(Ordering::SeqCst) => {
                Err(StoreError::Indeterminate(why))
            }
            other => other,
        }
    }

    fn catch_up(&self) -> Result<(), StoreError> {
        self.run(data::catch_up(self.inner.clone()))
    }

    fn close(&self) {
        if self.inner.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.inner.leading.store(false, Ordering::SeqCst);
        self.inner.closing.send_replace(true);
        let client = self.inner.client.lock().ok().and_then(|mut c| c.take());
        // Dropping the last client closes the session: its ephemeral nodes go at once.
        if let (Some(c), Ok(rt)) = (client, runtime()) {
            let _enter = rt.enter();
            drop(c);
        }
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn lock_writes(&self) -> Result<Option<WriteLease>, StoreError> {
        // A lease a killed controller held goes when its session expires: wait out a session
        // timeout on top of the call timeout before giving up.
        let wait = self.inner.config.session_timeout + self.inner.config.call_timeout;
        let lease = self.run_within(wait, coordination::lock_writes(self.inner.clone()))?;
        Ok(Some(Box::new(lease)))
    }

    fn is_leader(&self) -> bool {
        coordination::is_leader(&self.inner)
    }

    fn announce(&self, id: &str, bytes: &[u8]) -> Result<bool, StoreError> {
        let inner = self.inner.clone();
        let (id, bytes) = (id.to_string(), bytes.to_vec());
        self.run(async move { coordination::announce(&inner, &id, &bytes).await })?;
        Ok(true)
    }

    fn live_instances(&self) -> Result<Option<LiveInstances>, StoreError> {
        let inner = self.inner.clone();
        self.run(async move {
            let c = inner.client().await?;
            coordination::read_live(&inner, &c).await
        })
        .map(Some)
    }

    fn watch_key(&self, key: &str, watch: KeyWatch) -> bool {
        match (layout::path(&self.inner.root, key), runtime()) {
            (Ok(path), Ok(rt)) => {
                rt.spawn(coordination::watch_key(self.inner.clone(), path, watch));
                true
            }
            _ => false,
        }
    }

    fn watch_live(&self, watch: LiveWatch) -> bool {
        match runtime() {
            Ok(rt) => {
                rt.spawn(coordination::watch_live(self.inner.clone(), watch));
                true
            }
            Err(_) => false,
        }
    }
}
