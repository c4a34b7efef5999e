//! Keys and values in ZooKeeper: reads, prefix listings (one `multi` read per directory level)
//! and commits — every commit one `multi` write in which each changed znode is written at the
//! version this commit read (a create fails if another writer created it first, a set or delete
//! if another writer changed it), so a commit either applies on the state it read or writes
//! nothing and fails with [`StoreError::Conflict`].

use super::layout::{self, Walk};
use super::{Inner, store_error};
use crate::metadata::{Op, StoreError};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use zookeeper_client as zk;

/// Reads per `multi` request (ZooKeeper bounds a request's size).
const READ_BATCH: usize = 256;

fn persistent() -> zk::CreateOptions<'static> {
    zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all())
}

/// Creates the cluster's top-level znodes (idempotent) and Helix's cluster config node.
pub async fn init(inner: Arc<Inner>) -> Result<(), StoreError> {
    let c = inner.client().await?;
    for dir in layout::TOP {
        match c
            .mkdir(&format!("{}/{dir}", inner.root), &persistent())
            .await
        {
            Ok(()) | Err(zk::Error::NodeExists) => {}
            Err(e) => return Err(store_error(e)),
        }
    }
    let cluster = format!("{}/CONFIGS/CLUSTER/{}", inner.root, inner.config.cluster);
    let record = serde_json::json!({
        "id": inner.config.cluster,
        "simpleFields": {"allowParticipantAutoJoin": "true"},
        "mapFields": {},
        "listFields": {},
    });
    match c
        .create(&cluster, record.to_string().as_bytes(), &persistent())
        .await
    {
        Ok(_) | Err(zk::Error::NodeExists) => Ok(()),
        Err(e) => Err(store_error(e)),
    }
}

/// The value at `path` (a key's znode), if it holds one.
pub async fn get(inner: Arc<Inner>, path: String) -> Result<Option<Vec<u8>>, StoreError> {
    let c = inner.client().await?;
    match c.get_data(&path).await {
        Ok((data, _)) if !data.is_empty() => Ok(Some(data)),
        Ok(_) | Err(zk::Error::NoNode) => Ok(None),
        Err(e) => Err(store_error(e)),
    }
}

/// Returns once this session's ZooKeeper server has applied every transaction committed
/// before the call. A read is served by whichever node the session is on, and a follower may
/// be behind the quorum — by milliseconds, or for as long as it takes to notice it was cut off
/// from the leader — so a read alone may miss a commit another controller already
/// acknowledged. `sync` does not close that gap (a leader cut off from the quorum may still
/// answer it: ZOOKEEPER-1675); an empty transaction does: a version check on the cluster's
/// root that always passes goes through the leader and a quorum like any write, and its answer
/// comes once this session's server applied it and all before it. Later reads of the session
/// see at least that state (a session never moves to a server behind what it saw).
pub async fn catch_up(inner: Arc<Inner>) -> Result<(), StoreError> {
    let c = inner.client().await?;
    let mut w = c.new_multi_writer();
    w.add_check_version(&inner.root, -1).map_err(store_error)?;
    match w.commit().await {
        Ok(_) => Ok(()),
        Err(zk::MultiWriteError::OperationFailed { source, .. })
        | Err(zk::MultiWriteError::RequestFailed { source }) => Err(store_error(source)),
    }
}

/// One znode as read: its data, version, child count and children's names.
#[derive(Clone, Debug)]
pub struct Node {
    pub data: Vec<u8>,
    pub version: i32,
    pub children: Vec<String>,
}

/// Reads `paths` (data, stat and children), batched; absent ones are left out.
pub async fn read_nodes(
    c: &zk::Client,
    paths: &[String],
) -> Result<BTreeMap<String, Node>, StoreError> {
    let mut out = BTreeMap::new();
    for chunk in paths.chunks(READ_BATCH) {
        let mut reader = c.new_multi_reader();
        for p in chunk {
            reader.add_get_data(p).map_err(store_error)?;
            reader.add_get_children(p).map_err(store_error)?;
        }
        let results = reader.commit().await.map_err(store_error)?;
        for (p, pair) in chunk.iter().zip(results.chunks(2)) {
            match pair {
                [
                    zk::MultiReadResult::Data { data, stat },
                    zk::MultiReadResult::Children { children },
                ] => {
                    out.insert(
                        p.clone(),
                        Node {
                            data: data.clone(),
                            version: stat.version,
                            children: children.clone(),
                        },
                    );
                }
                // Deleted between listing and reading, or never there.
                [
                    zk::MultiReadResult::Error {
                        err: zk::Error::NoNode,
                    },
                    _,
                ]
                | [
                    _,
                    zk::MultiReadResult::Error {
                        err: zk::Error::NoNode,
                    },
                ] => {}
                [zk::MultiReadResult::Error { err }, _]
                | [_, zk::MultiReadResult::Error { err }] => {
                    return Err(store_error(err.clone()));
                }
                _ => return Err(StoreError::Backend("unexpected multi-read answer".into())),
            }
        }
    }
    Ok(out)
}

/// Every znode below the walks' directories whose name matches, as `(path, key, node)`,
/// directory nodes included.
async fn walk_all(
    c: &zk::Client,
    walks: Vec<Walk>,
) -> Result<Vec<(String, String, Node)>, StoreError> {
    let mut out = Vec::new();
    let mut level: Vec<(String, String)> = Vec::new();
    for w in walks {
        let children = match c.list_children(&w.dir).await {
            Ok(ch) => ch,
            Err(zk::Error::NoNode) => continue,
            Err(e) => return Err(store_error(e)),
        };
        for child in children {
            if child.starts_with(&w.name_prefix) {
                level.push((
                    format!("{}/{child}", w.dir),
                    format!("{}{child}", w.key_prefix),
                ));
            }
        }
    }
    while !level.is_empty() {
        let paths: Vec<String> = level.iter().map(|(p, _)| p.clone()).collect();
        let mut nodes = read_nodes(c, &paths).await?;
        let mut next = Vec::new();
        for (path, key) in level {
            if let Some(node) = nodes.remove(&path) {
                for child in &node.children {
                    next.push((format!("{path}/{child}"), format!("{key}/{child}")));
                }
                out.push((path, key, node));
            }
        }
        level = next;
    }
    Ok(out)
}

/// All `(key, value)` pairs whose key starts with `prefix`, in key order.
pub async fn list(inner: Arc<Inner>, prefix: String) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
    let c = inner.client().await?;
    let mut out: Vec<(String, Vec<u8>)> = walk_all(&c, layout::walks(&inner.root, &prefix))
        .await?
        .into_iter()
        .filter(|(_, key, node)| !node.data.is_empty() && key.starts_with(&prefix))
        .map(|(_, key, node)| (key, node.data))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Applies `ops` in one `multi`: all or nothing, each write a compare-and-set at the version
/// read here, so a concurrent writer's change makes this commit fail instead of being lost.
/// `sent` is set once the `multi` leaves: after that, a lost answer does not mean nothing was
/// written ([`StoreError::Indeterminate`]).
pub async fn commit(
    inner: Arc<Inner>,
    ops: Vec<Op>,
    sent: Arc<AtomicBool>,
) -> Result<(), StoreError> {
    let c = inner.connected_client().await?;
    let root = inner.root.clone();
    // The final value of every key the ops touch (None: removed), and the znodes under removed
    // prefixes (directories too) to remove when nothing kept lives below them.
    let mut finals: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    let mut swept: BTreeSet<String> = BTreeSet::new();
    // Every znode read so far, at the version the writes will be checked against.
    let mut nodes: BTreeMap<String, Node> = BTreeMap::new();
    // Prefix directories whose own value stays (`x` survives removing `x/`), and the znodes a
    // prefix removed as keys: a key removed by one prefix of the commit goes even when another
    // prefix marked its znode as a directory only.
    let mut dirs_only: BTreeSet<String> = BTreeSet::new();
    let mut swept_keys: BTreeSet<String> = BTreeSet::new();
    let mut expects: Vec<(String, Option<Vec<u8>>)> = Vec::new();
    for op in ops {
        match op {
            Op::Put(k, v) => {
                if v.is_empty() {
                    return Err(StoreError::Backend(format!(
                        "empty value for '{k}' (ZooKeeper keeps values non-empty)"
                    )));
                }
                finals.insert(layout::path(&root, &k)?, Some(v));
            }
            Op::Delete(k) => {
                finals.insert(layout::path(&root, &k)?, None);
            }
            Op::DeletePrefix(p) => {
                for (path, key, node) in walk_all(&c, layout::walks(&root, &p)).await? {
                    if key.starts_with(&p) {
                        swept.insert(path.clone());
                        swept_keys.insert(path.clone());
                        nodes.insert(path, node);
                    }
                }
                for (path, v) in finals.iter_mut() {
                    if let Some(key) = layout::key(&root, path)
                        && key.starts_with(&p)
                    {
                        *v = None;
                    }
                }
                // The prefix's own directory goes too when emptied, unless it is itself a key
                // (`x` survives removing the prefix `x/`).
                if let Some(dir) = p.strip_suffix('/')
                    && let Ok(path) = layout::path(&root, dir)
                    && !layout::is_root_dir(&root, &path)
                {
                    swept.insert(path.clone());
                    dirs_only.insert(path);
                }
            }
            Op::Expect(k, want) => {
                let path = layout::path(&root, &k)?;
                // Compared against what this commit already wrote, else the store.
                if let Some(v) = finals.get(&path) {
                    if *v != want {
                        return Err(StoreError::Conflict(format!("'{k}' changed")));
                    }
                } else {
                    expects.push((path, want));
                }
            }
        }
    }
    // Everything kept has its ancestors kept.
    let mut keep: BTreeSet<String> = BTreeSet::new();
    for (path, v) in &finals {
        if v.is_some() {
            let mut p = layout::parent(path);
            while p.len() > root.len() {
                keep.insert(p.to_string());
                p = layout::parent(p);
            }
        }
    }
    // The rest of the znodes the writes touch (the swept ones were read by their walk).
    let to_read: BTreeSet<String> = finals
        .keys()
        .chain(&swept)
        .chain(&keep)
        .chain(expects.iter().map(|(p, _)| p))
        .filter(|p| !nodes.contains_key(*p))
        .cloned()
        .collect();
    nodes.extend(read_nodes(&c, &to_read.into_iter().collect::<Vec<_>>()).await?);

    let mut w = c.new_multi_writer();
    let mut created: BTreeSet<String> = BTreeSet::new();
    for (path, want) in &expects {
        let have = nodes.get(path).filter(|n| !n.data.is_empty());
        match (have, want, nodes.get(path)) {
            (Some(n), Some(v), _) if n.data == *v => {
                w.add_check_version(path, n.version).map_err(store_error)?
            }
            // An empty directory node: no value, and none may appear meanwhile.
            (None, None, Some(n)) => w.add_check_version(path, n.version).map_err(store_error)?,
            // Absent: creating and deleting it in the same multi fails if it appears meanwhile.
            (None, None, None) => {
                create_with_parents(&mut w, &nodes, &mut created, &root, path, b"?")?;
                w.add_delete(path, None).map_err(store_error)?;
                created.remove(path);
            }
            _ => return Err(StoreError::Conflict(format!("'{path}' changed"))),
        }
    }
    // Writes and creates, parents before children.
    for (path, v) in &finals {
        let Some(v) = v else { continue };
        match nodes.get(path) {
            Some(n) => w
                .add_set_data(path, v, Some(n.version))
                .map_err(store_error)?,
            None => create_with_parents(&mut w, &nodes, &mut created, &root, path, v)?,
        }
    }
    // Removals, children before parents: a node goes when every child it has goes too,
    // else only its value does.
    let mut gone: BTreeSet<String> = finals
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| p.clone())
        .chain(swept.iter().cloned())
        .filter(|p| {
            !keep.contains(p)
                && !matches!(finals.get(p), Some(Some(_)))
                && nodes.get(p).is_some_and(|n| {
                    !dirs_only.contains(p)
                        || swept_keys.contains(p)
                        || n.data.is_empty()
                        || finals.get(p) == Some(&None)
                })
        })
        .collect();
    let mut by_depth: Vec<String> = gone.iter().cloned().collect();
    by_depth.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count()));
    for path in by_depth {
        let node = &nodes[&path];
        let all_children_go = node
            .children
            .iter()
            .all(|ch| gone.contains(&format!("{path}/{ch}")));
        if all_children_go {
            w.add_delete(&path, Some(node.version))
                .map_err(store_error)?;
        } else {
            gone.remove(&path);
            if !node.data.is_empty() {
                w.add_set_data(&path, &[], Some(node.version))
                    .map_err(store_error)?;
            }
        }
    }
    // Values removed from kept directories: keys deleted, or removed by a prefix, whose znode
    // stays because a key below it is written.
    let emptied: BTreeSet<&String> = finals
        .iter()
        .filter(|(_, v)| v.is_none())
        .map(|(p, _)| p)
        .chain(swept_keys.iter().filter(|p| !finals.contains_key(*p)))
        .filter(|p| keep.contains(*p))
        .collect();
    for path in emptied {
        if let Some(n) = nodes.get(path).filter(|n| !n.data.is_empty()) {
            w.add_set_data(path, &[], Some(n.version))
                .map_err(store_error)?;
        }
    }
    // From here on a lost answer leaves the outcome open: the `multi` may have been applied.
    sent.store(true, Ordering::SeqCst);
    match w.commit().await {
        Ok(_) => Ok(()),
        Err(zk::MultiWriteError::OperationFailed { index, source }) => match store_error(source) {
            StoreError::Conflict(m) => Err(StoreError::Conflict(format!(
                "operation {index} of the commit: {m}"
            ))),
            other => Err(other),
        },
        Err(zk::MultiWriteError::RequestFailed { source }) => Err(store_error(source)),
    }
}

/// Adds the create of `path` with `data`, after those of its missing ancestors.
fn create_with_parents(
    w: &mut zk::MultiWriter<'_>,
    nodes: &BTreeMap<String, Node>,
    created: &mut BTreeSet<String>,
    root: &str,
    path: &str,
    data: &[u8],
) -> Result<(), StoreError> {
    create_missing_parents(w, nodes, created, root, path)?;
    w.add_create(path, data, &persistent())
        .map_err(store_error)?;
    created.insert(path.to_string());
    Ok(())
}

/// Adds creates of `path`'s missing ancestors below the cluster's key directories, top-down.
fn create_missing_parents(
    w: &mut zk::MultiWriter<'_>,
    nodes: &BTreeMap<String, Node>,
    created: &mut BTreeSet<String>,
    root: &str,
    path: &str,
) -> Result<(), StoreError> {
    let mut missing = Vec::new();
    let mut p = layout::parent(path);
    while p.len() > root.len() && !layout::is_root_dir(root, p) {
        if nodes.contains_key(p) || created.contains(p) {
            break;
        }
        missing.push(p.to_string());
        p = layout::parent(p);
    }
    for m in missing.into_iter().rev() {
        w.add_create(&m, &[], &persistent()).map_err(store_error)?;
        created.insert(m);
    }
    Ok(())
}
