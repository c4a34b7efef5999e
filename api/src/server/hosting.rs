//! The segments a server hosts, on disk and in memory.
//!
//! Layout under the server's segment dir: `<table>/<segment>/` (the unpacked segment) and
//! `<table>/<segment>.state` (`<crc> <reloadVersion> <incarnation>`, written after the directory is in place,
//! so a crash mid-swap leaves a segment that is simply re-downloaded). Installing a new copy
//! unpacks into a scratch dir beside it, validates it, and swaps directories by rename.

use crate::common::archive::{self, ArchiveError};
use segments::ImmutableSegment;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// A hosting failure.
#[derive(Debug, thiserror::Error)]
pub enum HostingError {
    /// Local file-system failure.
    #[error("i/o error on '{}': {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The downloaded archive is not a valid segment.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The opened segment could not be prepared for queries.
    #[error("cannot prepare the segment: {0}")]
    Prepare(String),
    /// The archive holds a different segment than assigned.
    #[error("archive for segment '{expected}' contains segment '{found}'")]
    WrongSegment { expected: String, found: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> HostingError + '_ {
    move |source| HostingError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One loaded segment.
#[derive(Clone)]
pub struct HostedSegment {
    pub dir: PathBuf,
    pub crc: u32,
    pub reload_version: u64,
    /// The segment record's incarnation this copy belongs to (0: unknown).
    pub incarnation: u64,
    pub total_docs: u64,
    /// The open, memory-mapped segment.
    pub segment: Arc<ImmutableSegment>,
}

impl HostedSegment {
    fn open(dir: PathBuf, copy: SegmentCopy) -> Result<HostedSegment, HostingError> {
        let segment = Arc::new(archive::open(&dir)?);
        Ok(HostedSegment {
            total_docs: u64::from(segment.total_docs()),
            dir,
            crc: copy.crc,
            reload_version: copy.reload_version,
            incarnation: copy.incarnation,
            segment,
        })
    }

    /// Which copy this is.
    pub fn copy(&self) -> SegmentCopy {
        SegmentCopy {
            crc: self.crc,
            reload_version: self.reload_version,
            incarnation: self.incarnation,
        }
    }

    /// Whether this copy may answer for the routed one: of the same incarnation when the
    /// broker names one (an older version while a refresh loads is fine), else the same CRC.
    pub fn answers_for(&self, crc: Option<u32>, incarnation: Option<u64>) -> bool {
        match incarnation.filter(|i| *i != 0) {
            Some(i) if self.incarnation != 0 => self.incarnation == i,
            _ => crc.is_none_or(|c| c == self.crc),
        }
    }
}

/// Which copy of a segment a server holds: its archive's CRC, its reload count and the segment
/// record's incarnation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentCopy {
    pub crc: u32,
    pub reload_version: u64,
    pub incarnation: u64,
}

impl SegmentCopy {
    /// The `.state` file's text.
    fn state(self) -> String {
        format!("{} {} {}", self.crc, self.reload_version, self.incarnation)
    }

    fn parse(text: &str) -> Option<SegmentCopy> {
        let mut it = text.split_whitespace().map(|x| x.parse::<u64>().ok());
        let crc = u32::try_from(it.next()??).ok()?;
        let reload_version = it.next()??;
        Some(SegmentCopy {
            crc,
            reload_version,
            incarnation: it.next().flatten().unwrap_or(0),
        })
    }
}

type Tables = BTreeMap<String, BTreeMap<String, HostedSegment>>;

/// All hosted segments: table → segment → loaded copy.
pub struct Hosted {
    root: PathBuf,
    segments: Arc<RwLock<Tables>>,
    /// Moves with every change of `segments`.
    version: Arc<AtomicU64>,
}

/// A shared, read-only view of a server's hosted segments: what `lookUp` reads dimension
/// tables from ([`engine::dimension::SegmentDimensions`]).
#[derive(Clone)]
pub struct HostedView {
    segments: Arc<RwLock<Tables>>,
    version: Arc<AtomicU64>,
}

impl engine::dimension::DimensionSegments for HostedView {
    fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    fn dimension_segments(&self, table: &str) -> Option<Vec<Arc<ImmutableSegment>>> {
        let tables = self.segments.read().ok()?;
        let segments = tables.get(&format!("{table}_OFFLINE"))?;
        Some(segments.values().map(|h| h.segment.clone()).collect())
    }
}

static SCRATCH: AtomicU64 = AtomicU64::new(0);

/// The directory under the segment dir where consuming segments keep their chunks (never
/// reopened: a restart consumes them again from their start offsets).
pub const CONSUMING_DIR: &str = ".consuming";

impl Hosted {
    /// Opens the segment dir (creating it) and reloads every segment with a state file.
    pub fn open(root: &Path) -> Result<Hosted, HostingError> {
        std::fs::create_dir_all(root).map_err(io(root))?;
        let _ = std::fs::remove_dir_all(root.join(CONSUMING_DIR));
        let mut all: BTreeMap<String, BTreeMap<String, HostedSegment>> = BTreeMap::new();
        for table in std::fs::read_dir(root).map_err(io(root))? {
            let table = table.map_err(io(root))?.path();
            let hidden = table
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if !table.is_dir() || hidden {
                continue;
            }
            let table_name = table
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            for entry in std::fs::read_dir(&table).map_err(io(&table))? {
                let path = entry.map_err(io(&table))?.path();
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if name.starts_with(".incoming-") {
                    let _ = std::fs::remove_dir_all(&path);
                    continue;
                }
                let Some(seg) = name.strip_suffix(".state") else {
                    continue;
                };
                let dir = table.join(seg);
                let state = std::fs::read_to_string(&path).unwrap_or_default();
                let Some(copy) = SegmentCopy::parse(&state) else {
                    continue;
                };
                match HostedSegment::open(dir.clone(), copy) {
                    Ok(h) => {
                        all.entry(table_name.clone())
                            .or_default()
                            .insert(seg.to_string(), h);
                    }
                    Err(e) => {
                        log::warn!("dropping unreadable local segment '{}': {e}", dir.display())
                    }
                }
            }
        }
        Ok(Hosted {
            root: root.to_path_buf(),
            segments: Arc::new(RwLock::new(all)),
            version: Arc::new(AtomicU64::new(0)),
        })
    }

    /// A view of these segments that follows their changes.
    pub fn view(&self) -> HostedView {
        HostedView {
            segments: self.segments.clone(),
            version: self.version.clone(),
        }
    }

    fn changed(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Table → names of loaded segments.
    pub fn loaded(&self) -> BTreeMap<String, Vec<String>> {
        self.segments
            .read()
            .map(|m| {
                m.iter()
                    .map(|(t, s)| (t.clone(), s.keys().cloned().collect()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The loaded segments of one table.
    pub fn segments_of(&self, table: &str) -> BTreeMap<String, HostedSegment> {
        self.segments
            .read()
            .ok()
            .and_then(|m| m.get(table).cloned())
            .unwrap_or_default()
    }

    /// The loaded copy of one segment.
    pub fn get(&self, table: &str, segment: &str) -> Option<HostedSegment> {
        self.segments.read().ok()?.get(table)?.get(segment).cloned()
    }

    /// Installs (or replaces) `segment` of `table` from an archive; blocking, call on rayon.
    pub fn install(
        &self,
        table: &str,
        segment: &str,
        archive_bytes: &[u8],
        copy: SegmentCopy,
    ) -> Result<(), HostingError> {
        self.install_with(table, segment, archive_bytes, copy, &|_| Ok(()))
    }

    /// [`Hosted::install`], with `prepare` run on the opened segment before queries can reach
    /// it (an upsert table sets which of its docs they see).
    pub fn install_with(
        &self,
        table: &str,
        segment: &str,
        archive_bytes: &[u8],
        copy: SegmentCopy,
        prepare: &dyn Fn(&Arc<ImmutableSegment>) -> Result<(), String>,
    ) -> Result<(), HostingError> {
        let table_dir = self.root.join(table);
        std::fs::create_dir_all(&table_dir).map_err(io(&table_dir))?;
        let scratch = table_dir.join(format!(
            ".incoming-{}",
            SCRATCH.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let unpacked = archive::unpack(archive_bytes, &scratch)?;
            if unpacked.facts.segment_name != segment {
                return Err(HostingError::WrongSegment {
                    expected: segment.to_string(),
                    found: unpacked.facts.segment_name,
                });
            }
            let dir = table_dir.join(segment);
            let state = table_dir.join(format!("{segment}.state"));
            let _ = std::fs::remove_file(&state);
            let old = table_dir.join(format!(
                ".incoming-old-{}",
                SCRATCH.fetch_add(1, Ordering::Relaxed)
            ));
            if dir.exists() {
                std::fs::rename(&dir, &old).map_err(io(&dir))?;
            }
            std::fs::rename(&unpacked.dir, &dir).map_err(io(&dir))?;
            std::fs::write(&state, copy.state()).map_err(io(&state))?;
            let _ = std::fs::remove_dir_all(&old);
            let hosted = HostedSegment::open(dir, copy)?;
            prepare(&hosted.segment).map_err(HostingError::Prepare)?;
            if let Ok(mut m) = self.segments.write() {
                m.entry(table.to_string())
                    .or_default()
                    .insert(segment.to_string(), hosted);
            }
            self.changed();
            Ok(())
        })();
        let _ = std::fs::remove_dir_all(&scratch);
        result
    }

    /// Reopens a hosted segment (after `POST /segments/{t}/reload`).
    pub fn reload(
        &self,
        table: &str,
        segment: &str,
        reload_version: u64,
    ) -> Result<(), HostingError> {
        let Some(h) = self.get(table, segment) else {
            return Ok(());
        };
        let copy = SegmentCopy {
            reload_version,
            ..h.copy()
        };
        let reopened = HostedSegment::open(h.dir.clone(), copy)?;
        let state = self.root.join(table).join(format!("{segment}.state"));
        std::fs::write(&state, copy.state()).map_err(io(&state))?;
        if let Ok(mut m) = self.segments.write()
            && let Some(s) = m.get_mut(table).and_then(|t| t.get_mut(segment))
        {
            *s = reopened;
        }
        self.changed();
        Ok(())
    }

    /// Drops a segment and deletes its files.
    pub fn remove(&self, table: &str, segment: &str) {
        if let Ok(mut m) = self.segments.write()
            && let Some(t) = m.get_mut(table)
        {
            t.remove(segment);
            if t.is_empty() {
                m.remove(table);
            }
        }
        self.changed();
        let table_dir = self.root.join(table);
        let _ = std::fs::remove_file(table_dir.join(format!("{segment}.state")));
        let _ = std::fs::remove_dir_all(table_dir.join(segment));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(crc: u32) -> SegmentCopy {
        SegmentCopy {
            crc,
            reload_version: 0,
            incarnation: 7,
        }
    }

    #[test]
    fn copies_answer_for_their_incarnation_else_their_crc() {
        let state = copy(5).state();
        assert_eq!(SegmentCopy::parse(&state), Some(copy(5)));
        // A state file from before incarnations: unknown.
        assert_eq!(SegmentCopy::parse("5 2").map(|c| c.incarnation), Some(0));
        assert_eq!(SegmentCopy::parse("x 2"), None);
    }

    fn archive_of(name: &str, docs: i32) -> Vec<u8> {
        let src = tempfile::tempdir().unwrap();
        archive::pack(&archive::tests_support::build(src.path(), name, docs)).unwrap()
    }

    #[test]
    fn install_replace_remove_and_reopen() {
        let root = tempfile::tempdir().unwrap();
        let hosted = Hosted::open(root.path()).unwrap();
        hosted
            .install("t_OFFLINE", "s0", &archive_of("s0", 3), copy(1))
            .unwrap();
        hosted
            .install("t_OFFLINE", "s1", &archive_of("s1", 4), copy(2))
            .unwrap();
        assert!(matches!(
            hosted.install("t_OFFLINE", "s2", &archive_of("other", 1), copy(3)),
            Err(HostingError::WrongSegment { .. })
        ));
        assert!(hosted.install("t_OFFLINE", "s2", b"junk", copy(3)).is_err());
        hosted
            .install("t_OFFLINE", "s0", &archive_of("s0", 30), copy(9))
            .unwrap();
        assert_eq!(hosted.get("t_OFFLINE", "s0").unwrap().total_docs, 30);
        hosted.reload("t_OFFLINE", "s1", 5).unwrap();
        hosted.remove("t_OFFLINE", "s1");
        let again = Hosted::open(root.path()).unwrap();
        assert_eq!(
            again.loaded(),
            BTreeMap::from([("t_OFFLINE".to_string(), vec!["s0".to_string()])])
        );
        assert_eq!(again.get("t_OFFLINE", "s0").unwrap().crc, 9);
    }
}
