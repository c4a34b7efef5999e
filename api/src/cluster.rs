//! The composition root: starts any subset of controller, broker and server in one process
//! (all three by default, as `tessera start` and the tests run them), each on its own port
//! (0 picks a free one), and wires how they reach each other. Roles never import one another:
//! a role of this process is handed to the others as their transport client (the controller as
//! their [`ControllerClient`], the server as the broker's [`ServerClient`]), decided here, once;
//! every other role is reached over HTTP.

use crate::auth::{Role, internal_client};
use crate::broker::membership::broker_loop;
use crate::broker::{self, Broker, BrokerConfig};
use crate::controller::deep_store::DeepStoreUri;
use crate::controller::{self, Controller, ControllerConfig};
use crate::http::{bind, serve};
use crate::logging::{self, LogConfig, LoggingHandle, default_log_dir};
use crate::metadata::records::LiveAnnouncement;
use crate::metadata::records::{InstanceType, instance_id};
use crate::metadata::zk::{ZkConfig, ZkStore};
use crate::metadata::{MetadataStore, RedbStore};
use crate::minion::{self, Minion, MinionConfig};
use crate::server::sync::server_loop;
use crate::server::{self, Server, ServerConfig};
use crate::transport::{
    Announcing, Channels, ControllerClient, ControllerPool, HttpControllerClient, Mailboxes,
    Registration, ServerDirectory, query_port::PortRole,
};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Which roles to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    pub controller: bool,
    pub broker: bool,
    pub server: bool,
    pub minion: bool,
}

impl Roles {
    /// All four.
    pub const ALL: Roles = Roles {
        controller: true,
        broker: true,
        server: true,
        minion: true,
    };

    /// None.
    pub const NONE: Roles = Roles {
        controller: false,
        broker: false,
        server: false,
        minion: false,
    };

    /// Parses `controller,broker,server,minion` (any subset, any order).
    pub fn parse(text: &str) -> Result<Roles, StartError> {
        let mut r = Roles::NONE;
        for role in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match role.to_ascii_lowercase().as_str() {
                "controller" => r.controller = true,
                "broker" => r.broker = true,
                "server" => r.server = true,
                "minion" => r.minion = true,
                other => {
                    return Err(StartError::Config(format!(
                        "unknown role '{other}' (expected controller, broker, server or minion)"
                    )));
                }
            }
        }
        if r == Roles::NONE {
            return Err(StartError::Config("no role given".into()));
        }
        Ok(r)
    }
}

/// Everything `start` needs.
#[derive(Clone, Debug)]
pub struct StartOptions {
    pub roles: Roles,
    pub data_dir: PathBuf,
    pub host: String,
    pub controller_port: u16,
    pub broker_port: u16,
    pub server_port: u16,
    /// The minion's HTTP port (health, loggers); 0 (the default) picks a free one.
    pub minion_port: u16,
    /// The query port of a process running a broker or server ([`transport::query_port`]);
    /// 0: a free one.
    pub query_port: u16,
    /// Required when the controller is not among `roles`.
    pub controller_url: Option<String>,
    /// Overrides the server's (or the only role's) instance id.
    pub instance_id: Option<String>,
    /// Tags for new broker/server instances started here (default: Pinot's per role).
    pub tags: Option<Vec<String>>,
    pub heartbeat_interval: Duration,
    pub heartbeat_timeout: Duration,
    pub max_upload_bytes: u64,
    /// Queries a broker runs at once; more wait in a queue of `max_queued_queries`, then are
    /// refused (Pinot's 211).
    pub max_running_queries: usize,
    pub max_queued_queries: usize,
    /// Rows a broker answer holds at most (a larger `LIMIT` is lowered to it).
    pub query_response_limit: usize,
    /// Largest query request a broker reads, in bytes.
    pub max_query_bytes: u64,
    pub server_timeout: Duration,
    /// How often the controller runs each periodic task (retention, tier moves, …).
    pub periodic: crate::controller::periodic::Intervals,
    /// The logging to use; `None` installs the process logger under `<data dir>/logs`.
    pub logging: Option<LoggingHandle>,
    /// Whether the installed logger also writes to stderr.
    pub log_to_stderr: bool,
    /// Directory of the installed logger's files; `None` is `<data dir>/logs`.
    pub log_dir: Option<PathBuf>,
    /// Size at which the installed logger rotates its active file.
    pub log_max_file_bytes: u64,
    /// Files the installed logger keeps per instance, the active one included.
    pub log_max_files: usize,
    /// Level of the installed logger's `root`.
    pub log_level: log::LevelFilter,
    /// Access control (`--auth-config`); `None`: off, as Pinot's default.
    pub auth: Option<Arc<crate::auth::Auth>>,
    /// Keep the cluster's metadata in ZooKeeper (`--zk`, `--cluster-name`) instead of the
    /// embedded store: several controllers, and brokers and servers that find them there.
    pub zk: Option<ZkConfig>,
    /// The deep store (`--deep-store`: `s3://bucket/prefix`, `gs://…`, `az://…`,
    /// `file:///dir` or a directory); default `<data dir>/controller/deepstore`.
    pub deep_store: Option<String>,
    /// Clients of object storage (a deep store there, `s3://` URIs users give): by default
    /// configured from the process's `AWS_*`, `GOOGLE_*` and `AZURE_*` variables.
    pub cloud: Arc<crate::cloud::ObjectStores>,
    /// TLS on every port and in every call between roles (`--tls-cert-file`, …); `None`: plain.
    /// The process's setting: set once, the same for every cluster it starts.
    pub tls: Option<crate::tls::TlsFiles>,
}

impl StartOptions {
    /// Defaults: all roles, Pinot's ports, 127.0.0.1, 1 s heartbeats, 5 s timeout, 1 GiB uploads.
    pub fn new(data_dir: PathBuf) -> StartOptions {
        StartOptions {
            roles: Roles::ALL,
            data_dir,
            host: "127.0.0.1".into(),
            controller_port: 9000,
            broker_port: 8099,
            server_port: 8098,
            minion_port: 0,
            query_port: 0,
            controller_url: None,
            instance_id: None,
            tags: None,
            heartbeat_interval: Duration::from_secs(1),
            heartbeat_timeout: Duration::from_secs(5),
            max_upload_bytes: 1 << 30,
            max_running_queries: crate::broker::admission::DEFAULT_MAX_RUNNING,
            max_queued_queries: crate::broker::admission::DEFAULT_MAX_QUEUED,
            query_response_limit: crate::broker::DEFAULT_QUERY_RESPONSE_LIMIT,
            max_query_bytes: crate::broker::DEFAULT_MAX_QUERY_BYTES,
            server_timeout: Duration::from_secs(10),
            periodic: crate::controller::periodic::Intervals::default(),
            logging: None,
            log_to_stderr: true,
            log_dir: None,
            log_max_file_bytes: 64 << 20,
            log_max_files: 10,
            log_level: log::LevelFilter::Info,
            auth: None,
            zk: None,
            deep_store: None,
            cloud: Arc::new(crate::cloud::ObjectStores::from_env()),
            tls: None,
        }
    }

    /// All roles on free ports with fast heartbeats (tests).
    pub fn ephemeral(data_dir: PathBuf) -> StartOptions {
        StartOptions {
            controller_port: 0,
            broker_port: 0,
            server_port: 0,
            minion_port: 0,
            heartbeat_interval: Duration::from_millis(100),
            heartbeat_timeout: Duration::from_secs(2),
            periodic: crate::controller::periodic::Intervals {
                relocation: Duration::from_millis(200),
                ..Default::default()
            },
            log_to_stderr: false,
            ..StartOptions::new(data_dir)
        }
    }
}

/// Why roles could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("invalid options: {0}")]
    Config(String),
    #[error("cannot listen on {host}:{port}: {source}")]
    Bind {
        host: String,
        port: u16,
        source: std::io::Error,
    },
    #[error("cannot prepare '{}': {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] crate::metadata::StoreError),
    #[error("cannot open server segments: {0}")]
    Hosting(#[from] crate::server::hosting::HostingError),
    #[error("cannot set up logging: {0}")]
    Logging(#[from] crate::logging::LoggingError),
}

/// Running roles. Dropping without [`Cluster::stop`] leaves them running until the process ends.
pub struct Cluster {
    pub controller_url: Option<String>,
    pub broker_url: Option<String>,
    pub server_url: Option<String>,
    pub server_id: Option<String>,
    pub minion_url: Option<String>,
    /// The query port, when this process runs a broker or server.
    pub query_port: Option<u16>,
    store: Option<Arc<dyn MetadataStore>>,
    http_tasks: Vec<async_std::task::JoinHandle<std::io::Result<()>>>,
    loops: Vec<async_std::task::JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    /// Dropped on stop: the query port and its connections end.
    query_port_open: Option<async_std::channel::Sender<()>>,
}

fn listen(host: &str, port: u16) -> Result<(std::net::TcpListener, u16), StartError> {
    let l = bind(host, port).map_err(|source| StartError::Bind {
        host: host.to_string(),
        port,
        source,
    })?;
    let bound = l
        .local_addr()
        .map_err(|source| StartError::Bind {
            host: host.to_string(),
            port,
            source,
        })?
        .port();
    Ok((l, bound))
}

/// Starts the roles in `opts`.
pub async fn start(opts: StartOptions) -> Result<Cluster, StartError> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut cluster = Cluster {
        controller_url: None,
        broker_url: None,
        server_url: None,
        server_id: None,
        minion_url: None,
        query_port: None,
        store: None,
        http_tasks: Vec::new(),
        loops: Vec::new(),
        stop: stop.clone(),
        query_port_open: None,
    };
    let mkdir = |p: PathBuf| {
        std::fs::create_dir_all(&p)
            .map_err(|source| StartError::Io {
                path: p.clone(),
                source,
            })
            .map(|_| p)
    };
    if let Some(files) = &opts.tls {
        let tls = crate::tls::Tls::load(files).map_err(StartError::Config)?;
        crate::tls::install(tls).map_err(StartError::Config)?;
    }
    let host = opts.host.clone();
    let only_role_id = |t: InstanceType, port: u16| {
        opts.instance_id
            .clone()
            .unwrap_or_else(|| instance_id(t, &host, port))
    };

    if !opts.roles.controller && opts.controller_url.is_none() && opts.zk.is_none() {
        return Err(StartError::Config(
            "--controller-url (or --zk) is required without the controller role".into(),
        ));
    }
    // One ZooKeeper session for every role of this process.
    let zk: Option<ZkStore> = opts.zk.clone().map(ZkStore::connect).transpose()?;
    // Bind every port first: instance ids (and the log file name) need the bound ports.
    let controller_l = opts
        .roles
        .controller
        .then(|| listen(&host, opts.controller_port))
        .transpose()?;
    let server_l = opts
        .roles
        .server
        .then(|| listen(&host, opts.server_port))
        .transpose()?;
    let query_l = (opts.roles.server || opts.roles.broker)
        .then(|| listen(&host, opts.query_port))
        .transpose()?;
    let broker_l = opts
        .roles
        .broker
        .then(|| listen(&host, opts.broker_port))
        .transpose()?;
    let minion_l = opts
        .roles
        .minion
        .then(|| listen(&host, opts.minion_port))
        .transpose()?;
    let controller_id = controller_l
        .as_ref()
        .map(|(_, p)| instance_id(InstanceType::Controller, &host, *p));
    let server_id = server_l
        .as_ref()
        .map(|(_, p)| only_role_id(InstanceType::Server, *p));
    let broker_id = broker_l.as_ref().map(|(_, p)| {
        if opts.roles.server {
            instance_id(InstanceType::Broker, &host, *p)
        } else {
            only_role_id(InstanceType::Broker, *p)
        }
    });
    let minion_id = minion_l.as_ref().map(|(_, p)| {
        if opts.roles.server || opts.roles.broker || opts.roles.controller {
            instance_id(InstanceType::Minion, &host, *p)
        } else {
            only_role_id(InstanceType::Minion, *p)
        }
    });
    let primary = controller_id
        .clone()
        .or(server_id.clone())
        .or(broker_id.clone())
        .or(minion_id.clone())
        .unwrap_or_default();
    let logging = match &opts.logging {
        Some(h) => h.clone(),
        None => {
            let dir = (opts.log_dir.clone()).unwrap_or_else(|| default_log_dir(&opts.data_dir));
            logging::init(LogConfig {
                stderr: opts.log_to_stderr,
                max_file_bytes: opts.log_max_file_bytes,
                max_files: opts.log_max_files.max(1),
                default_level: opts.log_level,
                ..LogConfig::new(dir, primary)
            })?
        }
    };

    let mut local_controller: Option<Arc<Controller>> = None;
    if let (Some((listener, port)), Some(id)) = (controller_l, controller_id) {
        let dir = mkdir(opts.data_dir.join("controller"))?;
        let store: Arc<dyn MetadataStore> = match &zk {
            Some(zk) => Arc::new(zk.clone()),
            None => Arc::new(RedbStore::open(&dir.join("metadata.redb"))?),
        };
        let deep_uri = match &opts.deep_store {
            Some(text) => DeepStoreUri::parse(text).map_err(StartError::Config)?,
            None => DeepStoreUri::Dir(dir.join("deepstore")),
        };
        let deep = controller::deep_store::open(&deep_uri, &dir, &opts.cloud)
            .map_err(StartError::Config)?;
        let config = ControllerConfig {
            data_dir: dir,
            instance_id: id.clone(),
            heartbeat_timeout: opts.heartbeat_timeout,
            max_upload_bytes: opts.max_upload_bytes,
            auth: opts.auth.clone(),
            cloud: opts.cloud.clone(),
        };
        let c = Arc::new(Controller::new(
            config,
            store.clone(),
            logging.clone(),
            deep,
        ));
        if let Some(zk) = &zk {
            // Who is live, and what each server holds, comes from ZooKeeper's live instances.
            let weak = Arc::downgrade(&c);
            zk.watch_live(Arc::new(move |live| {
                if let Some(c) = weak.upgrade() {
                    c.apply_live(&live);
                }
            }));
            let me = LiveAnnouncement {
                url: crate::tls::url(&host, port),
                instance_type: Some(InstanceType::Controller),
                report: None,
            };
            zk.announce(&id, &serde_json::to_vec(&me).unwrap_or_default())?;
            zk.campaign(&id)?;
        }
        // What a crash of an earlier run left half-done goes before anything is served.
        controller::recovery::sweep(&c);
        {
            // Other controllers may be starting against the same store.
            let _guard = c
                .lock_writes()
                .await
                .map_err(|e| StartError::Config(e.message))?;
            let r = Registration {
                host: host.clone(),
                port,
                instance_type: InstanceType::Controller,
                instance_name: Some(id),
                tags: None,
                query_port: None,
            };
            controller::instances::register_instance(&c, &r)
                .map_err(|e| StartError::Config(e.message))?;
        }
        local_controller = Some(c.clone());
        for task in controller::periodic::PeriodicTask::ALL {
            cluster
                .loops
                .push(async_std::task::spawn(controller::periodic::run_loop(
                    c.clone(),
                    task,
                    opts.periodic.of(task),
                    stop.clone(),
                )));
        }
        if zk.is_some() {
            cluster
                .loops
                .push(async_std::task::spawn(controller::helix_views::views_loop(
                    c.clone(),
                    Duration::from_secs(1),
                    stop.clone(),
                )));
        }
        let app = protect(controller::app(c), &opts.auth, Role::Controller);
        cluster.http_tasks.push(serve(app, listener));
        cluster.controller_url = Some(crate::tls::url(&host, port));
    }
    let controller_client: Arc<dyn ControllerClient> = match (&local_controller, &zk) {
        (Some(c), _) => c.clone(),
        (None, Some(zk)) => Arc::new(ControllerPool::new(
            Arc::new(zk.clone()),
            opts.controller_url.clone(),
            internal_client(opts.auth.as_deref()),
        )),
        (None, None) => match &opts.controller_url {
            Some(u) => Arc::new(HttpControllerClient::new(
                u,
                internal_client(opts.auth.as_deref()),
            )),
            None => {
                return Err(StartError::Config(
                    "--controller-url is required without the controller role".into(),
                ));
            }
        },
    };
    // With ZooKeeper, brokers and servers keep themselves in its live instances.
    let controller_client: Arc<dyn ControllerClient> = match &zk {
        Some(zk) => Arc::new(Announcing::new(controller_client, Arc::new(zk.clone()))),
        None => controller_client,
    };
    // One channel per query port this process calls, whatever calls it.
    let channels = Arc::new(Channels::new(
        (opts.auth.as_deref())
            .and_then(crate::auth::Auth::internal_header)
            .map(str::to_string),
    ));
    let servers = Arc::new(ServerDirectory::new(
        internal_client(opts.auth.as_deref()),
        channels.clone(),
    ));
    let mailboxes = Arc::new(Mailboxes::new(
        internal_client(opts.auth.as_deref()),
        channels,
    ));
    let mut local_server: Option<Arc<dyn crate::transport::ServerClient>> = None;

    if let (Some((listener, port)), Some(id)) = (server_l, server_id) {
        let segment_dir = mkdir(opts.data_dir.join("server").join(&id))?;
        let config = ServerConfig {
            instance_id: id.clone(),
            host: host.clone(),
            port,
            segment_dir,
            heartbeat_interval: opts.heartbeat_interval,
            tags: opts.tags.clone(),
            query_port: query_l.as_ref().map(|(_, p)| *p),
            cloud: opts.cloud.clone(),
        };
        let s = Arc::new(Server::new(
            config,
            controller_client.clone(),
            mailboxes.clone(),
            logging.clone(),
        )?);
        let local: Arc<dyn crate::transport::ServerClient> =
            Arc::new(server::LocalServer(s.clone()));
        servers.add_local(&id, local.clone());
        local_server = Some(local);
        if let Some(zk) = &zk {
            // Every commit, by any controller, reaches this server through a watch too.
            crate::metadata::changes::follow(zk, Arc::new(server::sync::SyncOnChange(s.clone())));
        }
        mailboxes.add_local(&id);
        if let Some(c) = &local_controller {
            controller::changes::add_listener(
                c,
                &id,
                Arc::new(server::sync::SyncOnChange(s.clone())),
            );
        }
        if let Some(c) = &local_controller {
            register_locally(c, &s.config.registration()).await?;
        }
        cluster.http_tasks.push(serve(
            protect(server::app(s.clone()), &opts.auth, Role::Server),
            listener,
        ));
        cluster
            .loops
            .push(async_std::task::spawn(server_loop(s, stop.clone())));
        cluster.server_url = Some(crate::tls::url(&host, port));
        cluster.server_id = Some(id);
    }

    if let (Some((listener, port)), Some(id)) = (broker_l, broker_id) {
        let b = Arc::new(Broker::new(
            BrokerConfig {
                instance_id: id.clone(),
                url: crate::tls::url(&host, port),
                query_address: query_l.as_ref().map(|(_, q)| format!("{host}:{q}")),
                server_timeout: opts.server_timeout,
                routing_ttl: opts.heartbeat_interval,
                max_running_queries: opts.max_running_queries,
                max_queued_queries: opts.max_queued_queries,
                query_response_limit: opts.query_response_limit,
                max_query_bytes: opts.max_query_bytes,
            },
            controller_client.clone(),
            servers.clone(),
            mailboxes.clone(),
            logging.clone(),
        ));
        mailboxes.add_local(&id);
        if let Some(zk) = &zk {
            crate::metadata::changes::follow(zk, b.clone());
        }
        let registration = Registration {
            host: host.clone(),
            port,
            instance_type: InstanceType::Broker,
            instance_name: Some(id.clone()),
            tags: opts.tags.clone(),
            query_port: query_l.as_ref().map(|(_, q)| *q),
        };
        if let Some(c) = &local_controller {
            register_locally(c, &registration).await?;
            controller::changes::add_listener(c, &id, b.clone());
        }
        cluster.loops.push(async_std::task::spawn(broker_loop(
            registration,
            b.clone(),
            opts.heartbeat_interval,
            stop.clone(),
        )));
        let app = protect(broker::app(b), &opts.auth, Role::Broker);
        cluster.http_tasks.push(serve(app, listener));
        cluster.broker_url = Some(crate::tls::url(&host, port));
    }
    if let Some((listener, port)) = query_l {
        // One port for the roles of this process: a server's queries and stages, and blocks
        // for any stage worker here (they share the process's mailboxes).
        let (open, stopped) = async_std::channel::bounded(1);
        cluster.query_port_open = Some(open);
        let role = if local_server.is_some() {
            Role::Server
        } else {
            Role::Broker
        };
        let port_role = PortRole {
            server: local_server,
            mailboxes: mailboxes.clone(),
            auth: opts.auth.clone(),
            role,
        };
        cluster
            .http_tasks
            .push(async_std::task::spawn(crate::transport::query_port::serve(
                port_role, listener, stopped,
            )));
        cluster.query_port = Some(port);
    }
    if let (Some((listener, port)), Some(id)) = (minion_l, minion_id) {
        let work_dir = mkdir(opts.data_dir.join("minion").join(&id))?;
        let m = Arc::new(Minion::new(
            MinionConfig {
                instance_id: id.clone(),
                work_dir,
                heartbeat_interval: opts.heartbeat_interval,
                poll_interval: opts.heartbeat_interval.max(Duration::from_millis(100)),
            },
            controller_client.clone(),
            logging.clone(),
        ));
        let registration = Registration {
            host: host.clone(),
            port,
            instance_type: InstanceType::Minion,
            instance_name: Some(id.clone()),
            tags: None,
            query_port: None,
        };
        if let Some(c) = &local_controller {
            register_locally(c, &registration).await?;
        }
        cluster
            .loops
            .push(async_std::task::spawn(minion::heartbeat_loop(
                m.clone(),
                registration,
                stop.clone(),
            )));
        cluster.loops.push(async_std::task::spawn(minion::work_loop(
            m.clone(),
            stop.clone(),
        )));
        let app = protect(minion::app(m), &opts.auth, Role::Server);
        cluster.http_tasks.push(serve(app, listener));
        cluster.minion_url = Some(crate::tls::url(&host, port));
    }
    cluster.store = match (zk, local_controller) {
        (Some(zk), _) => Some(Arc::new(zk)),
        (None, Some(c)) => Some(c.store.clone()),
        (None, None) => None,
    };
    log::info!(
        "started: controller {:?}, broker {:?}, server {:?} (query port {:?})",
        cluster.controller_url,
        cluster.broker_url,
        cluster.server_url,
        cluster.query_port
    );
    Ok(cluster)
}

/// `app` behind the access control of `role`, when it is on.
fn protect<S: Clone + Send + Sync + 'static>(
    mut app: tide::Server<S>,
    auth: &Option<Arc<crate::auth::Auth>>,
    role: Role,
) -> tide::Server<S> {
    if let Some(auth) = auth {
        let style = match role {
            Role::Server => crate::http::ErrorStyle::MessageStatus,
            Role::Controller | Role::Broker => crate::http::ErrorStyle::CodeError,
        };
        app.with(crate::auth::guard::Guard {
            auth: auth.clone(),
            role,
            style,
        });
    }
    app
}

/// Registers a role with the in-process controller before `start` returns, so tables can be
/// created on its tenant at once (the heartbeat loop re-registers, keeping the tags).
async fn register_locally(c: &Arc<Controller>, r: &Registration) -> Result<(), StartError> {
    let _guard = c
        .lock_writes()
        .await
        .map_err(|e| StartError::Config(e.message))?;
    controller::instances::register_instance(c, r).map_err(|e| StartError::Config(e.message))?;
    if r.instance_type == InstanceType::Server {
        controller::placement::fill_under_replicated(c)
            .map_err(|e| StartError::Config(e.message))?;
    }
    Ok(())
}

impl Cluster {
    /// Stops every role: background loops end, listeners close, the metadata store is released
    /// (so the same data dir can be opened again at once).
    pub async fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        drop(self.query_port_open);
        for l in self.loops {
            l.await;
        }
        for t in self.http_tasks {
            t.cancel().await;
        }
        if let Some(store) = self.store {
            store.close();
        }
    }

    /// Runs until the process is killed.
    pub async fn wait(self) {
        for t in self.http_tasks {
            if let Err(e) = t.await {
                log::error!("listener failed: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_roles() {
        assert_eq!(
            Roles::parse("controller,broker,server,minion").unwrap(),
            Roles::ALL
        );
        assert_eq!(
            Roles::parse("Server").unwrap(),
            Roles {
                server: true,
                ..Roles::NONE
            }
        );
        assert_eq!(
            Roles::parse("minion").unwrap(),
            Roles {
                minion: true,
                ..Roles::NONE
            }
        );
        assert!(Roles::parse("janitor").is_err());
        assert!(Roles::parse("").is_err());
    }
}
