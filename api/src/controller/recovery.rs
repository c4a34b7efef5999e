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
    let own = c.temp_dir();
    let scratch_dirs: Vec<std::path::PathBuf> = match own.parent() {
        Some(all) if !c.store.is_shared() => std::fs::read_dir(all)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default(),
        _ => vec![own],
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
    let shared = c.store.is_shared();
    let settled = |written: std::time::SystemTime| {
        !shared
            || written
                .elapsed()
                .is_ok_and(|age| age > std::time::Duration::from_secs(3600))
    };
    let Ok(tables) = c.deep.tables() else {
        return swept;
    };
    for typed in tables {
        // A store that cannot be read keeps every file: only a known-unreferenced one goes.
        let Ok(records) = c.segments(&typed) else {
            continue;
        };
        let named: HashSet<String> = records.into_iter().map(|r| r.archive).collect();
        let Ok(files) = c.deep.files(&typed) else {
            continue;
        };
        for (name, written) in files {
            if !named.contains(&name) && settled(written) && c.deep.remove(&typed, &name).is_ok() {
                swept.orphan_archives += 1;
            }
        }
        if named.is_empty() && !shared {
            let _ = c.deep.remove_table(&typed);
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
