//! Logging for every role: one setup on the `log` facade, runtime levels per logger, rotating
//! log files, and the file listing the `/loggers` endpoints serve.
//!
//! # One logger per process
//!
//! `log::set_logger` can be called once per process, and the all-in-one process runs the
//! controller, broker and server together. So [`init`] installs the process logger the first
//! time it is called and every later call (another role, another test) gets a clone of the
//! **same** [`LoggingHandle`]: same files, same levels, same instance id (the first caller's;
//! check [`LoggingHandle::instance_id`]). [`LoggingHandle::standalone`] builds a handle that is
//! *not* wired to the facade — records reach it only through its own [`log::Log`] impl — which
//! is what tests use to run several "instances" in one process, each with its own log dir.
//! [`init_for_tests`] installs the process logger once with a throw-away directory.
//!
//! # Output
//!
//! Each record passing its logger's level is written by a `fern` dispatch to stderr (optional)
//! and to `<dir>/<instance-id>.log`, rotated by size into `<instance-id>.log.1`, `.2`, … and
//! kept to `max_files` files (see [`rotating`]). A line reads
//!
//! ```text
//! 2026-11-22T10:15:30.123Z DEBUG [Broker_127.0.0.1_8099] tessera::broker::query - message
//! ```
//!
//! (UTC ISO-8601 time, level, instance id, logger name, message).
//!
//! # Levels
//!
//! Logger names and how Rust targets map onto them are described in [`levels`]. A level change
//! ([`LoggingHandle::set_level`]) applies at once to the logger and to its descendants that
//! have no level of their own. The installed handle keeps `log::max_level` at the most verbose
//! level in force, so `debug!`/`trace!` calls that no logger wants cost one comparison.

pub mod error;
pub mod files;
pub mod levels;
pub mod rotating;

pub use error::LoggingError;
pub use files::LogFile;
pub use levels::{ROOT, canonical_name, parse_level};
pub use log::LevelFilter;

use levels::LevelTable;
use log::{Log, Metadata, Record};
use rotating::RotatingFile;
use segments::types::time::DateTime;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::{SystemTime, UNIX_EPOCH};

/// Target of the records this module writes about itself.
const SELF_TARGET: &str = "tessera_api::logging";

/// How to set up logging for one instance (or one all-in-one process).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogConfig {
    /// Directory of the log files (conventionally `<data-dir>/logs`, see [`default_log_dir`]).
    pub dir: PathBuf,
    /// Instance id written on every line and used as the file name (`<instance-id>.log`).
    pub instance_id: String,
    /// Size at which the active file is rotated.
    pub max_file_bytes: u64,
    /// Files kept per instance, the active one included (at least 1).
    pub max_files: usize,
    /// Also write every line to stderr.
    pub stderr: bool,
    /// Level of the `root` logger.
    pub default_level: LevelFilter,
}

impl LogConfig {
    /// Defaults: 64 MiB files, 10 of them, stderr on, `INFO`.
    pub fn new(dir: impl Into<PathBuf>, instance_id: impl Into<String>) -> LogConfig {
        LogConfig {
            dir: dir.into(),
            instance_id: instance_id.into(),
            max_file_bytes: 64 << 20,
            max_files: 10,
            stderr: true,
            default_level: LevelFilter::Info,
        }
    }
}

/// The conventional log directory of a data directory: `<data-dir>/logs`.
pub fn default_log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// A shared handle on one logger: its levels, known names and files. Cheap to clone.
#[derive(Clone)]
pub struct LoggingHandle {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    instance_id: String,
    levels: RwLock<LevelTable>,
    /// The fern dispatch (stderr and/or the rotating file); records reach it already formatted.
    output: Box<dyn Log>,
    /// True for the handle installed as the process logger: it owns `log::max_level`.
    drives_facade: bool,
}

static GLOBAL: OnceLock<LoggingHandle> = OnceLock::new();
static INIT: Mutex<()> = Mutex::new(());

/// The `&'static` logger given to `log::set_logger`; forwards to [`GLOBAL`].
struct Facade;

impl Log for Facade {
    fn enabled(&self, metadata: &Metadata) -> bool {
        GLOBAL.get().is_some_and(|handle| handle.enabled(metadata))
    }

    fn log(&self, record: &Record) {
        if let Some(handle) = GLOBAL.get() {
            handle.log(record);
        }
    }

    fn flush(&self) {
        if let Some(handle) = GLOBAL.get() {
            handle.flush();
        }
    }
}

static FACADE: Facade = Facade;

/// Installs the process logger from `config`, or — if this process already has one — returns
/// the existing handle unchanged (all roles of a process share one logger; the first call's
/// config wins).
pub fn init(config: LogConfig) -> Result<LoggingHandle, LoggingError> {
    let _guard = INIT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(handle) = GLOBAL.get() {
        return Ok(handle.clone());
    }
    let handle = LoggingHandle::build(config, true)?;
    log::set_logger(&FACADE).map_err(|_| LoggingError::ForeignLogger)?;
    let handle = GLOBAL.get_or_init(|| handle).clone();
    log::set_max_level(handle.read_levels().max_level());
    Ok(handle)
}

/// The process logger, if [`init`] has run.
pub fn global() -> Option<LoggingHandle> {
    GLOBAL.get().cloned()
}

/// For tests: installs the process logger once, writing to a fresh directory under the system
/// temp dir (`tessera-test-logs-<pid>`, instance id `test`, no stderr, root at `INFO`), and
/// returns it. If the process logger was already installed, returns that one.
pub fn init_for_tests() -> Result<LoggingHandle, LoggingError> {
    // Serialised so that two tests starting at once cannot both clear the directory: only
    // the first caller ever removes it, before the logger is installed.
    static FIRST: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _first = FIRST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(handle) = global() {
        return Ok(handle);
    }
    let dir = std::env::temp_dir().join(format!("tessera-test-logs-{}", std::process::id()));
    // A previous process with the same pid may have left files behind; so may every test
    // process that ended (the logger lives as long as its process): their directories go.
    let _ = std::fs::remove_dir_all(&dir);
    remove_ended_test_logs();
    init(LogConfig {
        stderr: false,
        ..LogConfig::new(dir, "test")
    })
}

/// Removes the test log directories of processes that are no longer running (Linux: a pid
/// without `/proc/<pid>`; elsewhere nothing is removed).
fn remove_ended_test_logs() {
    if !std::path::Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("tessera-test-logs-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// UTC ISO-8601 with milliseconds: `2026-11-22T10:15:30.123Z`.
fn iso_now() -> String {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let t = DateTime::from_millis(millis);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year, t.month, t.day, t.hour, t.minute, t.second, t.millis
    )
}

/// File-name-safe form of an instance id (`/`, `\`, spaces, … become `_`; never `.`/`..`).
fn file_stem(instance_id: &str) -> String {
    let safe: String = instance_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() || safe.chars().all(|c| c == '.') {
        format!("instance{}.log", "_".repeat(safe.len()))
    } else {
        format!("{safe}.log")
    }
}

impl LoggingHandle {
    /// A handle that is **not** installed as the process logger: records reach it only through
    /// its [`log::Log`] impl, and it never touches `log::max_level`. For tests and for running
    /// several independent instances in one process.
    pub fn standalone(config: LogConfig) -> Result<LoggingHandle, LoggingError> {
        LoggingHandle::build(config, false)
    }

    fn build(config: LogConfig, drives_facade: bool) -> Result<LoggingHandle, LoggingError> {
        let stem = file_stem(&config.instance_id);
        let file = RotatingFile::open(&config.dir, &stem, config.max_file_bytes, config.max_files)
            .map_err(|source| LoggingError::Io {
                action: "open log file in",
                path: config.dir.clone(),
                source,
            })?;
        let file = Mutex::new(file);
        let mut dispatch = fern::Dispatch::new().chain(fern::Output::call(move |record| {
            let line = format!("{}\n", record.args());
            let mut file = file.lock().unwrap_or_else(PoisonError::into_inner);
            // A logger has nowhere to report its own write failures; drop the line.
            let _ = file.write_line(line.as_bytes());
        }));
        if config.stderr {
            dispatch = dispatch.chain(std::io::stderr());
        }
        let (_, output) = dispatch.into_log();
        Ok(LoggingHandle {
            inner: Arc::new(Inner {
                dir: config.dir,
                instance_id: config.instance_id,
                levels: RwLock::new(LevelTable::new(config.default_level)),
                output,
                drives_facade,
            }),
        })
    }

    fn read_levels(&self) -> std::sync::RwLockReadGuard<'_, LevelTable> {
        self.inner
            .levels
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write_levels(&self) -> std::sync::RwLockWriteGuard<'_, LevelTable> {
        self.inner
            .levels
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Known logger names: `root` first, then the others sorted.
    pub fn logger_names(&self) -> Vec<String> {
        self.read_levels().names()
    }

    /// The level in force for a known logger (its own or inherited); `None` if unknown.
    pub fn level(&self, name: &str) -> Option<LevelFilter> {
        let name = canonical_name(name)?;
        let table = self.read_levels();
        table.is_known(&name).then(|| table.effective(&name))
    }

    /// Gives a logger its own level (`root`: the default) at once, for it and its descendants
    /// without their own level. The name must be known or an ancestor/descendant of a known
    /// logger (it then becomes known). Returns the canonical name.
    pub fn set_level(&self, name: &str, level: LevelFilter) -> Result<String, LoggingError> {
        let canonical =
            canonical_name(name).ok_or_else(|| LoggingError::UnknownLogger(name.to_string()))?;
        let max = {
            let mut table = self.write_levels();
            if !table.set(&canonical, level) {
                return Err(LoggingError::UnknownLogger(name.to_string()));
            }
            table.max_level()
        };
        if self.inner.drives_facade {
            log::set_max_level(max);
        }
        self.log(
            &Record::builder()
                .level(log::Level::Info)
                .target(SELF_TARGET)
                .args(format_args!("logger {canonical} set to {level}"))
                .build(),
        );
        Ok(canonical)
    }

    /// The log directory.
    pub fn log_dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The instance id on every line (and in the file name).
    pub fn instance_id(&self) -> &str {
        &self.inner.instance_id
    }

    /// Every regular file under the log directory: sorted, relative, `/`-separated.
    pub fn list_files(&self) -> Result<Vec<String>, LoggingError> {
        files::list(&self.inner.dir).map_err(|source| LoggingError::Io {
            action: "list log directory",
            path: self.inner.dir.clone(),
            source,
        })
    }

    /// Opens a file for download; only a path exactly in [`Self::list_files`] is served.
    pub fn open_file(&self, rel_path: &str) -> Result<LogFile, LoggingError> {
        let listing = self.list_files()?;
        files::open_listed(&self.inner.dir, &listing, rel_path)
    }

    /// The logger name a record's target is presented under.
    fn name_of(target: &str) -> Option<String> {
        canonical_name(target)
    }
}

impl Log for LoggingHandle {
    fn enabled(&self, metadata: &Metadata) -> bool {
        let table = self.read_levels();
        let level = match LoggingHandle::name_of(metadata.target()) {
            Some(name) => table.effective(&name),
            None => table.effective(ROOT),
        };
        metadata.level() <= level
    }

    fn log(&self, record: &Record) {
        let name = LoggingHandle::name_of(record.target());
        let level = {
            let table = self.read_levels();
            match &name {
                Some(name) if !table.is_known(name) => {
                    drop(table);
                    let mut table = self.write_levels();
                    table.note_seen(name);
                    table.effective(name)
                }
                Some(name) => table.effective(name),
                None => table.effective(ROOT),
            }
        };
        if record.level() > level {
            return;
        }
        let shown = name.as_deref().unwrap_or(record.target());
        self.inner.output.log(
            &Record::builder()
                .level(record.level())
                .target(record.target())
                .module_path(record.module_path())
                .file(record.file())
                .line(record.line())
                .args(format_args!(
                    "{} {:<5} [{}] {} - {}",
                    iso_now(),
                    record.level(),
                    self.inner.instance_id,
                    shown,
                    record.args()
                ))
                .build(),
        );
    }

    fn flush(&self) {
        self.inner.output.flush();
    }
}

impl std::fmt::Debug for LoggingHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoggingHandle")
            .field("dir", &self.inner.dir)
            .field("instance_id", &self.inner.instance_id)
            .field("installed", &self.inner.drives_facade)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle(dir: &Path) -> LoggingHandle {
        LoggingHandle::standalone(LogConfig {
            stderr: false,
            ..LogConfig::new(dir, "Broker_host_8099")
        })
        .expect("standalone handle")
    }

    fn emit(handle: &LoggingHandle, level: log::Level, target: &str, text: &str) {
        handle.log(
            &Record::builder()
                .level(level)
                .target(target)
                .args(format_args!("{text}"))
                .build(),
        );
    }

    #[test]
    fn lines_carry_time_level_instance_and_name() {
        let dir = tempfile::tempdir().expect("tempdir");
        let h = handle(dir.path());
        emit(&h, log::Level::Warn, "tessera_api::broker::query", "hello");
        let text = std::fs::read_to_string(dir.path().join("Broker_host_8099.log")).expect("read");
        let line = text.lines().next().expect("one line");
        let (time, rest) = line.split_once(' ').expect("time");
        assert_eq!(time.len(), "2026-11-22T10:15:30.123Z".len(), "{line}");
        assert!(time.ends_with('Z') && time.as_bytes()[10] == b'T', "{line}");
        assert_eq!(
            rest,
            "WARN  [Broker_host_8099] tessera::broker::query - hello"
        );
    }

    #[test]
    fn levels_change_at_runtime_and_seen_loggers_are_known() {
        let dir = tempfile::tempdir().expect("tempdir");
        let h = handle(dir.path());
        emit(&h, log::Level::Debug, "tessera_api::broker::query", "one");
        assert!(
            h.logger_names()
                .contains(&"tessera::broker::query".to_string())
        );
        assert_eq!(h.level("tessera.broker.query"), Some(LevelFilter::Info));
        assert_eq!(h.level("nope"), None);
        assert_eq!(
            h.set_level("tessera.broker", LevelFilter::Debug)
                .expect("set"),
            "tessera::broker"
        );
        emit(&h, log::Level::Debug, "tessera_api::broker::query", "two");
        emit(&h, log::Level::Debug, "tessera_api::server", "three");
        h.set_level("tessera::broker", LevelFilter::Info)
            .expect("set");
        emit(&h, log::Level::Debug, "tessera_api::broker::query", "four");
        let text = std::fs::read_to_string(dir.path().join("Broker_host_8099.log")).expect("read");
        let messages: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("tessera::broker::query - "))
            .filter_map(|l| l.rsplit(" - ").next())
            .collect();
        assert_eq!(messages, ["two"]);
        assert!(!text.contains("three"));
        assert!(
            matches!(h.set_level("foo", LevelFilter::Debug), Err(LoggingError::UnknownLogger(n)) if n == "foo")
        );
    }

    #[test]
    fn instance_ids_become_safe_file_names() {
        assert_eq!(
            file_stem("Server_127.0.0.1_8098"),
            "Server_127.0.0.1_8098.log"
        );
        assert_eq!(file_stem("../../etc/x"), ".._.._etc_x.log");
        assert_eq!(file_stem(".."), "instance__.log");
        assert_eq!(file_stem(""), "instance.log");
    }
}
