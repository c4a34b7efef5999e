//! `tessera admin`: moving a cluster's metadata between stores, so a one-machine cluster (the
//! embedded store) can grow onto ZooKeeper.
//!
//! * `export-metadata --data-dir DIR [--out FILE]` writes every key of the embedded store under
//!   `DIR/controller` as one JSON document (stdout without `--out`); the controller must be
//!   stopped (the store file is locked while it runs).
//! * `import-metadata --zk ADDR --cluster-name NAME --in FILE` writes them into ZooKeeper,
//!   refusing a cluster that already has schemas or tables (`--force` overwrites). Controllers
//!   then start with `--zk` and `--deep-store` pointing at the old `controller/deepstore`, which
//!   the segment records name their archives in.

use crate::metadata::zk::{ZkConfig, ZkStore};
use crate::metadata::{MetadataStore, Op, RedbStore, keys};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// `tessera admin` subcommands.
#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    /// Write the embedded store's metadata (schemas, table configs, segment records, instances)
    /// as JSON.
    ExportMetadata(ExportArgs),
    /// Load exported metadata into a ZooKeeper cluster.
    ImportMetadata(ImportArgs),
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The data dir of the stopped `tessera start` whose controller holds the metadata.
    #[arg(long, default_value = "tessera-data")]
    pub data_dir: PathBuf,
    /// File to write (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// ZooKeeper, `host:port[,host:port…][/chroot]`.
    #[arg(long, alias = "zk-address")]
    pub zk: String,
    /// The cluster's name in ZooKeeper.
    #[arg(long, default_value = "PinotCluster")]
    pub cluster_name: String,
    /// The exported file.
    #[arg(long = "in")]
    pub input: PathBuf,
    /// Import into a cluster that already has schemas or tables, overwriting same-named keys.
    #[arg(long)]
    pub force: bool,
}

/// The exported document.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
pub struct Export {
    /// `tessera-metadata`.
    pub format: String,
    /// Every key with its value (all values are UTF-8: JSON documents or decimal text).
    pub entries: BTreeMap<String, String>,
}

const FORMAT: &str = "tessera-metadata";
/// Keys per ZooKeeper transaction (a request is bounded in size).
const BATCH: usize = 200;

/// Runs an admin subcommand.
pub fn run(cmd: AdminCommand) -> Result<(), String> {
    match cmd {
        AdminCommand::ExportMetadata(a) => {
            let path = a.data_dir.join("controller").join("metadata.redb");
            if !path.is_file() {
                return Err(format!("no embedded metadata store at {}", path.display()));
            }
            let store = RedbStore::open(&path).map_err(|e| e.to_string())?;
            let doc = export(&store)?;
            store.close();
            let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
            match a.out {
                Some(out) => {
                    std::fs::write(&out, text)
                        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
                    eprintln!("exported {} keys to {}", doc.entries.len(), out.display());
                }
                None => println!("{text}"),
            }
            Ok(())
        }
        AdminCommand::ImportMetadata(a) => {
            let text = std::fs::read_to_string(&a.input)
                .map_err(|e| format!("cannot read {}: {e}", a.input.display()))?;
            let doc: Export = serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{} is not an exported metadata file: {e}",
                    a.input.display()
                )
            })?;
            let store = ZkStore::connect(ZkConfig::new(&a.zk, &a.cluster_name))
                .map_err(|e| e.to_string())?;
            let n = import(&store, &doc, a.force);
            store.close();
            let n = n?;
            eprintln!(
                "imported {n} keys into cluster '{}' at {}; start controllers with --zk and \
                 --deep-store <old data dir>/controller/deepstore",
                a.cluster_name, a.zk
            );
            Ok(())
        }
    }
}

/// Every key of `store`.
pub fn export(store: &dyn MetadataStore) -> Result<Export, String> {
    let mut entries = BTreeMap::new();
    for (k, v) in store.list("").map_err(|e| e.to_string())? {
        let v = String::from_utf8(v).map_err(|_| format!("the value of '{k}' is not UTF-8"))?;
        entries.insert(k, v);
    }
    Ok(Export {
        format: FORMAT.into(),
        entries,
    })
}

/// Writes `doc` into `store` (refusing one with schemas or tables unless `force`); the number
/// of keys written.
pub fn import(store: &dyn MetadataStore, doc: &Export, force: bool) -> Result<usize, String> {
    if doc.format != FORMAT {
        return Err(format!(
            "unknown format '{}' (expected {FORMAT})",
            doc.format
        ));
    }
    let occupied = !store
        .list(keys::SCHEMAS)
        .map_err(|e| e.to_string())?
        .is_empty()
        || !store
            .list(keys::TABLES)
            .map_err(|e| e.to_string())?
            .is_empty();
    if occupied && !force {
        return Err(
            "the target cluster already has schemas or tables (use --force to overwrite)".into(),
        );
    }
    // The version goes last: a controller that sees it sees everything before it.
    let (version, rest): (Vec<_>, Vec<_>) = doc
        .entries
        .iter()
        .partition(|(k, _)| k.as_str() == keys::VERSION);
    let ops: Vec<Op> = rest
        .into_iter()
        .chain(version)
        .map(|(k, v)| Op::Put(k.clone(), v.clone().into_bytes()))
        .collect();
    let total = ops.len();
    let mut ops = ops.into_iter().peekable();
    while ops.peek().is_some() {
        let batch: Vec<Op> = ops.by_ref().take(BATCH).collect();
        store.commit(batch).map_err(|e| e.to_string())?;
    }
    Ok(total)
}
