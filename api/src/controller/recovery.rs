//! What a controller cleans up when it starts, before it serves: the leftovers of work a crash
//! (kill -9, power loss of the process) cut short. Every change is committed to the metadata store
//! last, after its files are in place, so a crash leaves at most files nobody refers to:
//!
//! * scratch directories of uploads and ingests (`<deep store>/.tmp/<controller id>/…`),
//!   removed whole;
//! * deep-store archives no segment record names (a segment moved into the deep store but never
//!   committed, the old archive of a refresh, a deleted table's directory), removed — when
//!   several controllers share the deep store, only those untouched for an hour (another
//!   controller may be between moving an archive in and committing its record).
//!
//! Nothing a committed record names is ever touched, so an acknowledged change survives.

use super::Controller;
use std::collections::HashSet;

/// What the sweep removed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Swept {
    pub scratch_dirs: usize,
    pub orphan_archives: usize,
}

/// Removes the leftovers described in the module docs.
pub fn sweep(c: &Controller) -> Swept {
    let mut swept = Swept::default();
    // Its own scratch; with the deep store to itself, every earlier controller's too (an
    // earlier run on another port had another id).
    let scratch_dirs: Vec<std::path::PathBuf> = if c.store.is_shared() {
        vec![c.temp_dir()]
    } else {
        std::fs::read_dir(c.config.deep_store.join(".tmp"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    for entries in scratch_dirs
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
    {
        for e in entries.flatten() {
            let p = e.path();
            let removed = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
            if removed.is_ok() {
                swept.scratch_dirs += 1;
            }
        }
    }
    let deep = c.config.deep_store.clone();
    let shared = c.store.is_shared();
    let settled = |f: &std::fs::DirEntry| {
        !shared
            || f.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(3600))
    };
    let Ok(tables) = std::fs::read_dir(&deep) else {
        return swept;
    };
    for table in tables.flatten() {
        let dir = table.path();
        if !dir.is_dir() || table.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let typed = table.file_name().to_string_lossy().into_owned();
        // A store that cannot be read keeps every file: only a known-unreferenced one goes.
        let Ok(records) = c.segments(&typed) else {
            continue;
        };
        let named: HashSet<String> = records.into_iter().map(|r| r.archive).collect();
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        for f in files.flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if !named.contains(&name) && settled(&f) && std::fs::remove_file(f.path()).is_ok() {
                swept.orphan_archives += 1;
            }
        }
        if named.is_empty() && !shared {
            let _ = std::fs::remove_dir(&dir);
        }
    }
    if swept != Swept::default() {
        log::info!(
            "removed {} scratch entries and {} unreferenced deep-store archives left by an earlier run",
            swept.scratch_dirs,
            swept.orphan_archives
        );
    }
    swept
}
