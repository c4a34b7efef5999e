//! Segment archives: a gzip'd tar of the segment directory (`<segmentName>/...`), as Pinot's
//! upload endpoint takes them. [`unpack`] extracts one safely (no absolute paths, no `..`, no
//! links, one top-level directory) and validates it by opening the segment; [`pack`] builds one.
//!
//! A metadata push sends only a segment's *metadata archive* — `<segmentName>/metadata.json` and
//! `<segmentName>/creation.meta` (the full archive's CRC and size, as Pinot's `creation.meta`
//! carries its CRC) — while the full archive stays at a deep-store URI: [`metadata_archive`]
//! derives one from a full archive, [`read_metadata_archive`] reads one without touching disk.

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use segments::ImmutableSegment;
use segments::metadata::SegmentMetadata;
use segments::statistics::Statistics;
use std::path::{Component, Path, PathBuf};

/// Why an archive was refused.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// Not a readable tar.gz (truncated, corrupt, wrong format).
    #[error("invalid segment archive: {0}")]
    Malformed(String),
    /// The unpacked directory is not a valid segment.
    #[error("invalid segment: {0}")]
    InvalidSegment(String),
    /// A local I/O failure while unpacking.
    #[error("i/o error on '{}': {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What the controller records of a segment, from its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentFacts {
    /// The segment's name from its metadata.
    pub segment_name: String,
    /// Rows in the segment.
    pub total_docs: u64,
    /// The raw table name the segment's metadata names.
    pub table_name: String,
    /// The time column and the segment's largest value of it (raw units), if any.
    pub time_column: Option<String>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    /// Rows and column figures the optimizer plans with.
    pub statistics: Statistics,
}

impl From<&SegmentMetadata> for SegmentFacts {
    fn from(m: &SegmentMetadata) -> SegmentFacts {
        SegmentFacts {
            segment_name: m.segment_name.clone(),
            total_docs: u64::from(m.total_docs),
            table_name: m.table_name.clone(),
            time_column: m.time_column.clone(),
            start_time: m.start_time,
            end_time: m.end_time,
            statistics: Statistics::of_segment(m),
        }
    }
}

/// A validated segment directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnpackedSegment {
    /// The segment directory (`<into>/<segmentName>`).
    pub dir: PathBuf,
    pub facts: SegmentFacts,
    /// The unpacked files' bytes (what a server holds of it).
    pub data_bytes: u64,
}

/// The full archive a metadata archive stands for: its CRC-32 and size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreationMeta {
    pub crc: u32,
    pub size_bytes: u64,
}

/// File name of [`CreationMeta`] in a metadata archive.
pub const CREATION_META_FILE: &str = "creation.meta";

/// Unpacks `archive` into the (empty) directory `into` and validates the segment in it.
pub fn unpack(archive: &[u8], into: &Path) -> Result<UnpackedSegment, ArchiveError> {
    let malformed = |e: std::io::Error| ArchiveError::Malformed(e.to_string());
    std::fs::create_dir_all(into).map_err(|source| ArchiveError::Io {
        path: into.to_path_buf(),
        source,
    })?;
    let mut tar = tar::Archive::new(GzDecoder::new(archive));
    let mut top: Option<String> = None;
    let mut data_bytes = 0u64;
    for entry in tar.entries().map_err(malformed)? {
        let mut entry = entry.map_err(malformed)?;
        let kind = entry.header().entry_type();
        data_bytes = data_bytes.saturating_add(entry.size());
        if !(kind.is_file() || kind.is_dir()) {
            return Err(ArchiveError::Malformed(format!(
                "unsupported entry type {kind:?}"
            )));
        }
        let path = entry.path().map_err(malformed)?.into_owned();
        let mut comps = path
            .components()
            .filter(|c| !matches!(c, Component::CurDir));
        let first = match comps.next() {
            Some(Component::Normal(s)) => s.to_string_lossy().into_owned(),
            _ => {
                return Err(ArchiveError::Malformed(format!(
                    "bad entry path '{}'",
                    path.display()
                )));
            }
        };
        if comps.any(|c| !matches!(c, Component::Normal(_))) {
            return Err(ArchiveError::Malformed(format!(
                "bad entry path '{}'",
                path.display()
            )));
        }
        match &top {
            None => top = Some(first),
            Some(t) if *t != first => {
                return Err(ArchiveError::Malformed(format!(
                    "more than one top-level entry ('{t}', '{first}')"
                )));
            }
            Some(_) => {}
        }
        if !entry.unpack_in(into).map_err(malformed)? {
            return Err(ArchiveError::Malformed(format!(
                "entry escapes the archive: '{}'",
                path.display()
            )));
        }
    }
    let top = top.ok_or_else(|| ArchiveError::Malformed("empty archive".into()))?;
    let dir = into.join(&top);
    if !dir.is_dir() {
        return Err(ArchiveError::Malformed(format!(
            "'{top}' is not a directory"
        )));
    }
    let seg = open(&dir)?;
    Ok(UnpackedSegment {
        facts: SegmentFacts::from(seg.metadata()),
        dir,
        data_bytes,
    })
}

/// The name of the segment in an archive: its top-level directory, read from the first entry
/// (the archive is checked whole when it is stored).
pub fn segment_name_of(archive: &[u8]) -> Result<String, ArchiveError> {
    let malformed = |e: std::io::Error| ArchiveError::Malformed(e.to_string());
    let mut tar = tar::Archive::new(GzDecoder::new(archive));
    let first = tar
        .entries()
        .map_err(malformed)?
        .next()
        .ok_or_else(|| ArchiveError::Malformed("empty archive".into()))?
        .map_err(malformed)?;
    let path = first.path().map_err(malformed)?.into_owned();
    path.components()
        .find_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .ok_or_else(|| ArchiveError::Malformed(format!("bad entry path '{}'", path.display())))
}

/// The entries of a small tar.gz, as (path, bytes), each at most `limit` bytes (the archive is
/// read in memory; nothing is written).
fn small_entries(
    archive: &[u8],
    mut keep: impl FnMut(&Path) -> bool,
    limit: u64,
) -> Result<Vec<(PathBuf, Vec<u8>)>, ArchiveError> {
    let malformed = |e: std::io::Error| ArchiveError::Malformed(e.to_string());
    let mut tar = tar::Archive::new(GzDecoder::new(archive));
    let mut out = Vec::new();
    for entry in tar.entries().map_err(malformed)? {
        let mut entry = entry.map_err(malformed)?;
        let path = entry.path().map_err(malformed)?.into_owned();
        if !entry.header().entry_type().is_file() || !keep(&path) {
            continue;
        }
        if entry.size() > limit {
            return Err(ArchiveError::Malformed(format!(
                "'{}' is larger than {limit} bytes",
                path.display()
            )));
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(malformed)?;
        out.push((path, bytes));
    }
    Ok(out)
}

/// Largest metadata file a metadata archive may hold.
const METADATA_LIMIT: u64 = 64 << 20;

fn is_file_named(path: &Path, name: &str) -> bool {
    path.file_name().is_some_and(|n| n == name)
        && path
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .count()
            == 2
}

/// The metadata (`<segment>/metadata.json`) of the full archive `archive`, with its bytes.
fn metadata_entry(archive: &[u8]) -> Result<(SegmentMetadata, Vec<u8>), ArchiveError> {
    let mut found = small_entries(
        archive,
        |p| is_file_named(p, segments::format::METADATA_FILE),
        METADATA_LIMIT,
    )?;
    let (path, metadata) = match found.len() {
        1 => found.remove(0),
        0 => {
            return Err(ArchiveError::InvalidSegment(format!(
                "no <segment>/{} in the archive",
                segments::format::METADATA_FILE
            )));
        }
        _ => {
            return Err(ArchiveError::Malformed(
                "more than one segment in the archive".into(),
            ));
        }
    };
    let meta = SegmentMetadata::parse(&path, &metadata)
        .map_err(|e| ArchiveError::InvalidSegment(e.to_string()))?;
    Ok((meta, metadata))
}

/// The segment metadata inside the full archive `archive`, read without unpacking it to disk.
pub fn read_metadata(archive: &[u8]) -> Result<SegmentMetadata, ArchiveError> {
    metadata_entry(archive).map(|(m, _)| m)
}

/// The metadata archive of the full archive `archive` (see the module docs).
pub fn metadata_archive(archive: &[u8]) -> Result<Vec<u8>, ArchiveError> {
    let (meta, metadata) = metadata_entry(archive)?;
    let creation = CreationMeta {
        crc: crc32fast::hash(archive),
        size_bytes: archive.len() as u64,
    };
    let io = |e: std::io::Error| ArchiveError::Malformed(e.to_string());
    let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    for (name, bytes) in [
        (segments::format::METADATA_FILE, metadata),
        (
            CREATION_META_FILE,
            serde_json::to_vec(&creation).unwrap_or_default(),
        ),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(
                &mut header,
                format!("{}/{name}", meta.segment_name),
                bytes.as_slice(),
            )
            .map_err(io)?;
    }
    builder.into_inner().map_err(io)?.finish().map_err(io)
}

/// Reads a metadata archive: the segment's facts and the full archive's [`CreationMeta`].
pub fn read_metadata_archive(bytes: &[u8]) -> Result<(SegmentFacts, CreationMeta), ArchiveError> {
    let entries = small_entries(
        bytes,
        |p| {
            is_file_named(p, segments::format::METADATA_FILE)
                || is_file_named(p, CREATION_META_FILE)
        },
        METADATA_LIMIT,
    )?;
    let mut metadata = None;
    let mut creation = None;
    for (path, bytes) in entries {
        if path.file_name().is_some_and(|n| n == CREATION_META_FILE) {
            let c: CreationMeta = serde_json::from_slice(&bytes).map_err(|e| {
                ArchiveError::InvalidSegment(format!("invalid {CREATION_META_FILE}: {e}"))
            })?;
            creation = Some(c);
        } else {
            let m = SegmentMetadata::parse(&path, &bytes)
                .map_err(|e| ArchiveError::InvalidSegment(e.to_string()))?;
            metadata = Some(m);
        }
    }
    let metadata = metadata.ok_or_else(|| {
        ArchiveError::InvalidSegment(format!(
            "no <segment>/{} in the metadata archive",
            segments::format::METADATA_FILE
        ))
    })?;
    let creation = creation.ok_or_else(|| {
        ArchiveError::InvalidSegment(format!(
            "no <segment>/{CREATION_META_FILE} in the metadata archive"
        ))
    })?;
    Ok((SegmentFacts::from(&metadata), creation))
}

/// Opens the segment in `dir` (memory-mapped, every file's footer and checksum verified).
pub fn open(dir: &Path) -> Result<ImmutableSegment, ArchiveError> {
    ImmutableSegment::open(dir).map_err(|e| ArchiveError::InvalidSegment(e.to_string()))
}

/// Checks that `dir` holds a readable segment; returns its name and row count.
pub fn validate(dir: &Path) -> Result<(String, u64), ArchiveError> {
    let seg = open(dir)?;
    Ok((seg.name().to_string(), u64::from(seg.total_docs())))
}

/// Packs segment directory `dir` as `<dir name>/...` into a tar.gz.
pub fn pack(dir: &Path) -> Result<Vec<u8>, ArchiveError> {
    let io = |e: std::io::Error| ArchiveError::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let name = dir
        .file_name()
        .ok_or_else(|| ArchiveError::Malformed(format!("'{}' has no name", dir.display())))?;
    let mut builder = tar::Builder::new(GzEncoder::new(Vec::new(), Compression::fast()));
    builder.follow_symlinks(false);
    builder.append_dir_all(name, dir).map_err(io)?;
    builder.into_inner().map_err(io)?.finish().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_segment(root: &Path, name: &str) -> PathBuf {
        crate::common::archive::tests_support::build(root, name, 3)
    }

    #[test]
    fn pack_then_unpack_round_trips() {
        let src = tempfile::tempdir().unwrap();
        let bytes = pack(&fake_segment(src.path(), "s0")).unwrap();
        let dst = tempfile::tempdir().unwrap();
        let seg = unpack(&bytes, dst.path()).unwrap();
        assert_eq!(seg.facts.segment_name, "s0");
        assert_eq!(seg.facts.total_docs, 3);
        assert_eq!(validate(&seg.dir).unwrap(), ("s0".to_string(), 3));
    }

    #[test]
    fn metadata_archive_carries_the_facts_and_the_full_archives_crc() {
        let src = tempfile::tempdir().unwrap();
        let full = pack(&fake_segment(src.path(), "s0")).unwrap();
        let meta = metadata_archive(&full).unwrap();
        assert!(meta.len() < full.len());
        let (facts, creation) = read_metadata_archive(&meta).unwrap();
        assert_eq!(facts.segment_name, "s0");
        assert_eq!(facts.total_docs, 3);
        assert_eq!(facts.table_name, "t");
        assert_eq!(creation.crc, crc32fast::hash(&full));
        assert_eq!(creation.size_bytes, full.len() as u64);
        // A full archive is not a metadata archive (no creation.meta); garbage is refused.
        assert!(matches!(
            read_metadata_archive(&full),
            Err(ArchiveError::InvalidSegment(_))
        ));
        assert!(read_metadata_archive(b"junk").is_err());
        assert!(metadata_archive(b"junk").is_err());
    }

    #[test]
    fn refuses_truncated_and_corrupt_archives() {
        let src = tempfile::tempdir().unwrap();
        let bytes = pack(&fake_segment(src.path(), "s0")).unwrap();
        for bad in [
            &bytes[..bytes.len() / 2],
            &b"not a tar.gz at all"[..],
            &[][..],
        ] {
            let dst = tempfile::tempdir().unwrap();
            assert!(unpack(bad, dst.path()).is_err());
        }
        std::fs::write(src.path().join("s0/metadata.json"), "{oops").unwrap();
        assert!(matches!(
            validate(&src.path().join("s0")),
            Err(ArchiveError::InvalidSegment(_))
        ));
        let bytes = pack(&src.path().join("s0")).unwrap();
        let dst = tempfile::tempdir().unwrap();
        assert!(matches!(
            unpack(&bytes, dst.path()),
            Err(ArchiveError::InvalidSegment(_))
        ));
    }
}

/// Small real segments for unit tests.
#[cfg(test)]
pub(crate) mod tests_support {
    use segments::types::{DataType, FieldSpec, Schema, Value};
    use segments::{BuildConfig, build_segment_from_rows};
    use std::path::{Path, PathBuf};

    /// Builds `<root>/<name>/` with `docs` rows of (`id` INT, `city` STRING).
    pub fn build(root: &Path, name: &str, docs: i32) -> PathBuf {
        let schema = Schema {
            schema_name: "t".into(),
            fields: vec![
                FieldSpec::dimension("id", DataType::Int),
                FieldSpec::dimension("city", DataType::String),
            ],
            ..Schema::default()
        };
        let rows = (0..docs).map(|i| Ok(vec![Value::Int(i), Value::String(format!("c{}", i % 3))]));
        build_segment_from_rows(&schema, &BuildConfig::new("t", name), rows, root).unwrap();
        root.join(name)
    }
}
