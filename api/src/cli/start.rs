//! `tessera start`: runs any subset of the controller, broker, server and minion roles (all four
//! by default) until killed.

use crate::cluster::{self, Roles, StartOptions};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// Options of `tessera start`.
#[derive(Args, Debug, Clone)]
pub struct StartArgs {
    /// Roles to run in this process: any of controller, broker, server, minion
    /// (comma-separated).
    #[arg(long, default_value = "controller,broker,server,minion")]
    pub roles: String,
    /// Directory for metadata, the deep store and hosted segments.
    #[arg(long, default_value = "tessera-data")]
    pub data_dir: PathBuf,
    /// Controller port (0 picks a free port).
    #[arg(long, default_value_t = 9000)]
    pub controller_port: u16,
    /// Broker port (0 picks a free port).
    #[arg(long, default_value_t = 8099)]
    pub broker_port: u16,
    /// Server port (0 picks a free port).
    #[arg(long, default_value_t = 8098)]
    pub server_port: u16,
    /// Minion port: its health and loggers (0, the default, picks a free port; Pinot's
    /// minions use 9514).
    #[arg(long, default_value_t = 0)]
    pub minion_port: u16,
    /// Port where a broker or server takes query traffic from other processes: a server's
    /// queries and multi-stage stages, blocks of multi-stage exchanges (a framed TCP protocol;
    /// 0 picks a free port, which a server announces when it registers).
    #[arg(long, default_value_t = 0)]
    pub query_port: u16,
    /// Controller to join when this process does not run the controller (with `--zk`, the one
    /// to try first; any live controller serves).
    #[arg(long)]
    pub controller_url: Option<String>,
    /// Keep the cluster's metadata in ZooKeeper, `host:port[,host:port…][/chroot]` (Pinot's
    /// `-zkAddress`): several controllers, brokers and servers find each other there. Without
    /// it, the controller keeps metadata in an embedded file under the data dir.
    #[arg(long, alias = "zk-address")]
    pub zk: Option<String>,
    /// The cluster's name in ZooKeeper (Pinot's `-clusterName`).
    #[arg(long, default_value = "PinotCluster", requires = "zk")]
    pub cluster_name: String,
    /// ZooKeeper session timeout in milliseconds: how long a process cut off from ZooKeeper
    /// stays live (and a leader keeps leading) before another takes over.
    #[arg(long, default_value_t = 10_000, requires = "zk")]
    pub zk_session_timeout_ms: u64,
    /// A Pinot config (properties) file: its `controller.data.dir` is the deep store and its
    /// `pinot.<role>.storage.factory.s3.{region,endpoint,accessKey,secretKey}` reach S3, as in
    /// Pinot's controller and server configs; `--deep-store` and the `AWS_*` variables win.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The deep store of segment archives: `s3://bucket/prefix`, `gs://bucket/prefix`,
    /// `az://container/prefix` (credentials, region and endpoint from the `AWS_*`, `GOOGLE_*`,
    /// `AZURE_*` variables the cloud SDKs read), or `file:///dir` / a directory every controller
    /// reaches (default `<data-dir>/controller/deepstore`).
    #[arg(long)]
    pub deep_store: Option<String>,
    /// Instance id of the server (or of the only role); default `<Role>_<host>_<port>`.
    #[arg(long)]
    pub instance_id: Option<String>,
    /// Tags for the broker/server instances started here, comma-separated (default
    /// `DefaultTenant_BROKER` on brokers, `DefaultTenant_OFFLINE,DefaultTenant_REALTIME` on
    /// servers). Applies when the instance first registers.
    #[arg(long)]
    pub tags: Option<String>,
    /// Address to listen on and to register under.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Heartbeat interval in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub heartbeat_ms: u64,
    /// Largest accepted segment upload, in bytes.
    #[arg(long, default_value_t = 1 << 30)]
    pub max_upload_bytes: u64,
    /// Queries the broker runs at once.
    #[arg(long, default_value_t = crate::broker::admission::DEFAULT_MAX_RUNNING)]
    pub max_running_queries: usize,
    /// Queries that wait for a slot before the broker refuses more (Pinot's error 211).
    #[arg(long, default_value_t = crate::broker::admission::DEFAULT_MAX_QUEUED)]
    pub max_queued_queries: usize,
    /// Rows a query answer holds at most (Pinot's `pinot.broker.query.response.limit`): a
    /// larger `LIMIT` is lowered to it.
    #[arg(long, default_value_t = crate::broker::DEFAULT_QUERY_RESPONSE_LIMIT)]
    pub query_response_limit: usize,
    /// Largest query request (body or `sql` parameter) a broker reads, in bytes; larger is 413.
    #[arg(long, default_value_t = crate::broker::DEFAULT_MAX_QUERY_BYTES)]
    pub max_query_bytes: u64,
    /// Bytes of large text dictionaries a server keeps decompressed once a query reads them
    /// whole (all segments together; 0 keeps none).
    #[arg(long, default_value_t = segments::dictionary::decoded::DEFAULT_BUDGET_BYTES)]
    pub decoded_dictionary_bytes: usize,
    /// Access control: Pinot's basic-auth principals (properties as Pinot spells them, or JSON
    /// user configs); off without it.
    #[arg(long)]
    pub auth_config: Option<PathBuf>,
    /// Serve HTTPS (and TLS on the query port) with this PEM certificate chain; every role
    /// of the cluster must be started with TLS.
    #[arg(long, requires = "tls_key_file")]
    pub tls_cert_file: Option<PathBuf>,
    /// The certificate's PEM private key.
    #[arg(long, requires = "tls_cert_file")]
    pub tls_key_file: Option<PathBuf>,
    /// The CA (PEM) that other roles' certificates are checked against (default: the
    /// platform's roots).
    #[arg(long, requires = "tls_cert_file")]
    pub tls_ca_file: Option<PathBuf>,
    #[command(flatten)]
    pub log: LogArgs,
}

impl StartArgs {
    /// The cluster options these arguments describe.
    pub fn options(&self) -> Result<StartOptions, String> {
        let mut o = StartOptions::new(self.data_dir.clone());
        o.roles = Roles::parse(&self.roles).map_err(|e| e.to_string())?;
        o.host = self.host.clone();
        o.controller_port = self.controller_port;
        o.broker_port = self.broker_port;
        o.server_port = self.server_port;
        o.minion_port = self.minion_port;
        o.query_port = self.query_port;
        o.controller_url = self.controller_url.clone();
        o.zk = self.zk.as_ref().map(|address| {
            let mut z = crate::metadata::zk::ZkConfig::new(address, &self.cluster_name);
            z.session_timeout = Duration::from_millis(self.zk_session_timeout_ms.max(1000));
            // A call waits for ZooKeeper no longer than a session survives without it.
            z.call_timeout = z.session_timeout;
            z
        });
        o.deep_store = self.deep_store.clone();
        if let Some(path) = &self.config {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read the config file '{}': {e}", path.display()))?;
            let props = crate::common::properties::parse(&text);
            o.periodic = o.periodic.clone().with_properties(&props)?;
            let (data_dir, s3) = crate::cloud::from_pinot_properties(&props);
            if o.deep_store.is_none() {
                o.deep_store = data_dir;
            }
            // The SDK variables win over the file: options from the file first, then the
            // environment's again.
            let env = crate::cloud::ObjectStores::from_env();
            o.cloud = std::sync::Arc::new(
                crate::cloud::ObjectStores::new(s3).with_options(env.options().to_vec()),
            );
        }
        o.tls = match (&self.tls_cert_file, &self.tls_key_file) {
            (Some(cert), Some(key)) => Some(crate::tls::TlsFiles {
                cert: cert.clone(),
                key: key.clone(),
                ca: self.tls_ca_file.clone(),
            }),
            _ => None,
        };
        o.instance_id = self.instance_id.clone();
        o.tags = self
            .tags
            .as_deref()
            .map(crate::controller::tenants::parse_tags)
            .filter(|t| !t.is_empty());
        o.heartbeat_interval = Duration::from_millis(self.heartbeat_ms.max(10));
        o.heartbeat_timeout = o.heartbeat_interval * 5;
        o.max_upload_bytes = self.max_upload_bytes;
        o.max_running_queries = self.max_running_queries;
        o.max_queued_queries = self.max_queued_queries;
        o.query_response_limit = self.query_response_limit.max(1);
        o.max_query_bytes = self.max_query_bytes.max(1);
        if let Some(path) = &self.auth_config {
            o.auth = Some(std::sync::Arc::new(crate::auth::Auth::from_file(path)?));
        }
        self.log.apply(&mut o)?;
        Ok(o)
    }
}

/// Logging options shared by `tessera start` and `tessera quickstart`.
#[derive(Args, Debug, Clone)]
pub struct LogArgs {
    /// Directory of this process's rotating log files (default `<data-dir>/logs`).
    #[arg(long)]
    pub log_dir: Option<PathBuf>,
    /// Size in bytes at which the active log file is rotated.
    #[arg(long, default_value_t = 64 << 20)]
    pub log_max_file_bytes: u64,
    /// Log files kept per instance, the active one included.
    #[arg(long, default_value_t = 10)]
    pub log_max_files: usize,
    /// Level of the `root` logger at start (OFF, ERROR, WARN, INFO, DEBUG, TRACE); change it at
    /// runtime with `PUT /loggers/root?level=`.
    #[arg(long, default_value = "INFO")]
    pub log_level: String,
    /// Do not copy log lines to stderr (files only).
    #[arg(long)]
    pub no_log_stderr: bool,
}

impl LogArgs {
    /// Writes these options into `o`; a zero size/count or an unknown level is an error.
    pub fn apply(&self, o: &mut StartOptions) -> Result<(), String> {
        if self.log_max_file_bytes == 0 || self.log_max_files == 0 {
            return Err("--log-max-file-bytes and --log-max-files must be at least 1".into());
        }
        o.log_dir = self.log_dir.clone();
        o.log_max_file_bytes = self.log_max_file_bytes;
        o.log_max_files = self.log_max_files;
        o.log_level = crate::logging::levels::parse_level(&self.log_level)
            .ok_or_else(|| format!("unknown log level '{}'", self.log_level))?;
        o.log_to_stderr = !self.no_log_stderr;
        Ok(())
    }
}

/// Prints where each role listens (one `role url` line each, flushed, so scripts and tests can
/// read bound ports when started with port 0).
pub fn print_urls(c: &cluster::Cluster) {
    use std::io::Write;
    let mut out = std::io::stdout();
    for (role, url) in [
        ("controller", &c.controller_url),
        ("broker", &c.broker_url),
        ("server", &c.server_url),
        ("minion", &c.minion_url),
    ] {
        if let Some(u) = url {
            let _ = writeln!(out, "{role} {u}");
        }
    }
    let _ = out.flush();
}

/// Runs `tessera start`.
pub fn run(args: StartArgs) -> Result<(), String> {
    let opts = args.options()?;
    segments::dictionary::decoded::set_budget(args.decoded_dictionary_bytes);
    async_std::task::block_on(async move {
        let c = cluster::start(opts).await.map_err(|e| e.to_string())?;
        print_urls(&c);
        c.wait().await;
        Ok(())
    })
}
