//! Where each metadata key lives in ZooKeeper: Pinot's (Helix's) cluster layout under
//! `/<cluster>`, so an operator who knows Pinot's tree finds schemas, table configs, segment
//! metadata, instances and live instances where they expect them.
//!
//! | key ([`crate::metadata::keys`]) | znode |
//! |---|---|
//! | `schemas/<name>` | `/<cluster>/PROPERTYSTORE/SCHEMAS/<name>` |
//! | `tables/<tableNameWithType>` | `/<cluster>/PROPERTYSTORE/CONFIGS/TABLE/<tableNameWithType>` |
//! | `segments/<tableNameWithType>/<segment>` | `/<cluster>/PROPERTYSTORE/SEGMENTS/<tableNameWithType>/<segment>` |
//! | `instances/<id>` | `/<cluster>/CONFIGS/PARTICIPANT/<id>` |
//! | `idealstates/<tableNameWithType>` | `/<cluster>/IDEALSTATES/<tableNameWithType>` |
//! | `externalview/<tableNameWithType>` | `/<cluster>/EXTERNALVIEW/<tableNameWithType>` |
//! | `lineage/<tableNameWithType>` | `/<cluster>/PROPERTYSTORE/SEGMENT_LINEAGE/<tableNameWithType>` |
//! | `minion_task_metadata/<table>/<type>` | `/<cluster>/PROPERTYSTORE/MINION_TASK_METADATA/<table>/<type>` |
//! | any other key, e.g. `version` | `/<cluster>/PROPERTYSTORE/TESSERA/<key>` |
//!
//! Besides keys: `LIVEINSTANCES/<id>` (ephemeral, one per live process role), `CONTROLLER/LEADER`
//! (the leading controller's id), the leader latch and the write lock under `CONTROLLER/`, and
//! `CONFIGS/CLUSTER/<cluster>`. A key's `/` separates znodes; a znode with empty data is a
//! directory, not a key, so stored values are never empty.

use crate::metadata::StoreError;

/// Key prefixes and the znode directory (below the cluster root) each maps to; the first match
/// wins and the last catches every other key.
const MAP: [(&str, &str); 9] = [
    ("schemas/", "PROPERTYSTORE/SCHEMAS/"),
    ("tables/", "PROPERTYSTORE/CONFIGS/TABLE/"),
    ("segments/", "PROPERTYSTORE/SEGMENTS/"),
    ("instances/", "CONFIGS/PARTICIPANT/"),
    ("idealstates/", "IDEALSTATES/"),
    ("externalview/", "EXTERNALVIEW/"),
    ("lineage/", "PROPERTYSTORE/SEGMENT_LINEAGE/"),
    (
        "minion_task_metadata/",
        "PROPERTYSTORE/MINION_TASK_METADATA/",
    ),
    ("", "PROPERTYSTORE/TESSERA/"),
];

/// Directories created when a cluster is first used (Helix's top level).
pub const TOP: &[&str] = &[
    "CONFIGS/CLUSTER",
    "CONFIGS/PARTICIPANT",
    "PROPERTYSTORE/SCHEMAS",
    "PROPERTYSTORE/CONFIGS/TABLE",
    "PROPERTYSTORE/SEGMENTS",
    "PROPERTYSTORE/TESSERA",
    "PROPERTYSTORE/SEGMENT_LINEAGE",
    "PROPERTYSTORE/MINION_TASK_METADATA",
    "IDEALSTATES",
    "EXTERNALVIEW",
    "LIVEINSTANCES",
    "INSTANCES",
    "CONTROLLER/LEADER_LATCH",
    "CONTROLLER/WRITE_LOCK",
];

/// The directory of live instances.
pub const LIVE: &str = "LIVEINSTANCES";
/// The node holding the leading controller's id.
pub const LEADER: &str = "CONTROLLER/LEADER";
/// The directory of the leader latch's ephemeral sequential nodes.
pub const LEADER_LATCH: &str = "CONTROLLER/LEADER_LATCH";
/// The directory of the cluster-wide write lock's ephemeral sequential nodes.
pub const WRITE_LOCK: &str = "CONTROLLER/WRITE_LOCK";

/// The znode of `key` under `root` (`/<cluster>`).
pub fn path(root: &str, key: &str) -> Result<String, StoreError> {
    if key.is_empty()
        || key
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(StoreError::Backend(format!(
            "'{key}' cannot be a ZooKeeper key (empty or relative component)"
        )));
    }
    let (kp, dir) = MAP
        .iter()
        .find(|(kp, _)| key.starts_with(kp))
        .copied()
        .unwrap_or(MAP[MAP.len() - 1]);
    Ok(format!("{root}/{dir}{}", &key[kp.len()..]))
}

/// The key znode `path` holds, if it lies under a key directory.
pub fn key(root: &str, path: &str) -> Option<String> {
    let rel = path.strip_prefix(root)?.strip_prefix('/')?;
    MAP.iter()
        .find_map(|(kp, dir)| rel.strip_prefix(dir).map(|rest| format!("{kp}{rest}")))
}

/// One directory to walk for a prefix listing: the znode directory, the name prefix its
/// children must have, and the key their names append to.
#[derive(Debug, PartialEq, Eq)]
pub struct Walk {
    pub dir: String,
    pub name_prefix: String,
    pub key_prefix: String,
}

/// The directories holding every key that starts with `prefix`.
pub fn walks(root: &str, prefix: &str) -> Vec<Walk> {
    let mut out = Vec::new();
    for (i, (kp, dir)) in MAP.iter().enumerate() {
        let catch_all = i == MAP.len() - 1;
        let rest = if let Some(rest) = prefix.strip_prefix(kp) {
            rest
        } else if kp.starts_with(prefix) {
            ""
        } else {
            continue;
        };
        // Keys a more specific entry maps never live under the catch-all.
        if catch_all && MAP[..i].iter().any(|(k, _)| rest.starts_with(k)) {
            continue;
        }
        let (sub, name_prefix) = match rest.rfind('/') {
            Some(at) => (&rest[..=at], &rest[at + 1..]),
            None => ("", rest),
        };
        let dir = format!("{root}/{dir}{sub}");
        out.push(Walk {
            dir: dir.trim_end_matches('/').to_string(),
            name_prefix: name_prefix.to_string(),
            key_prefix: format!("{kp}{sub}"),
        });
    }
    out
}

/// Whether `path` is one of the mapping's own directories (never deleted with its keys).
pub fn is_root_dir(root: &str, path: &str) -> bool {
    MAP.iter()
        .any(|(_, dir)| format!("{root}/{}", dir.trim_end_matches('/')) == path)
}

/// The parent of a znode path (`/a/b` → `/a`; `/a` → `/`).
pub fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(at) => &path[..at],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_land_where_pinot_keeps_them() {
        let r = "/c";
        for (k, znode) in [
            ("schemas/s", "/c/PROPERTYSTORE/SCHEMAS/s"),
            (
                "tables/t_OFFLINE",
                "/c/PROPERTYSTORE/CONFIGS/TABLE/t_OFFLINE",
            ),
            (
                "segments/t_OFFLINE/s_0",
                "/c/PROPERTYSTORE/SEGMENTS/t_OFFLINE/s_0",
            ),
            ("instances/Server_h_1", "/c/CONFIGS/PARTICIPANT/Server_h_1"),
            ("idealstates/t_OFFLINE", "/c/IDEALSTATES/t_OFFLINE"),
            ("externalview/t_OFFLINE", "/c/EXTERNALVIEW/t_OFFLINE"),
            ("version", "/c/PROPERTYSTORE/TESSERA/version"),
        ] {
            assert_eq!(path(r, k).unwrap(), znode);
            assert_eq!(key(r, znode).as_deref(), Some(k), "{znode}");
        }
        assert_eq!(key(r, "/c/LIVEINSTANCES/x"), None);
        assert!(path(r, "a//b").is_err());
        assert!(path(r, "a/").is_err());
        assert!(path(r, "").is_err());
    }

    #[test]
    fn prefixes_walk_the_directories_that_can_hold_them() {
        let w = walks("/c", "segments/t_OFFLINE/");
        assert_eq!(
            w[0],
            Walk {
                dir: "/c/PROPERTYSTORE/SEGMENTS/t_OFFLINE".into(),
                name_prefix: "".into(),
                key_prefix: "segments/t_OFFLINE/".into(),
            }
        );
        // The catch-all directory cannot hold a `segments/` key.
        assert_eq!(w.len(), 1);
        let w = walks("/c", "se");
        let dirs: Vec<_> = w.iter().map(|w| w.dir.as_str()).collect();
        assert_eq!(
            dirs,
            ["/c/PROPERTYSTORE/SEGMENTS", "/c/PROPERTYSTORE/TESSERA"]
        );
        assert_eq!(w[1].name_prefix, "se");
        assert_eq!(walks("/c", "").len(), 9);
        assert!(is_root_dir("/c", "/c/PROPERTYSTORE/SEGMENTS"));
        assert!(!is_root_dir("/c", "/c/PROPERTYSTORE/SEGMENTS/t"));
        assert_eq!(parent("/c/a/b"), "/c/a");
        assert_eq!(parent("/c"), "/");
    }
}
