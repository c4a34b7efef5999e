//! Valid-doc snapshots of upsert tables (`upsertConfig.enableSnapshot`): each stored segment's
//! queryable docs, written into its directory as Pinot writes them
//! (`validdocids.bitmap.snapshot`, a portable roaring bitmap) after every commit. A server that
//! restarts reads a segment's keys only from the docs its snapshot names, instead of every doc
//! ever written: a table updated many times over holds far fewer valid docs than rows.
//!
//! A snapshot may be older than the segment's validity (a row of a later segment replaced one of
//! its docs since): loading still places every doc it names by comparison value, so an
//! out-of-date snapshot costs a few extra docs read, never a wrong answer. One whose docs do
//! not fit the segment (another copy of it) is ignored.

use roaring::RoaringBitmap;
use segments::ImmutableSegment;
use std::path::PathBuf;

/// The snapshot file's name in a segment directory.
pub const SNAPSHOT_FILE: &str = "validdocids.bitmap.snapshot";

fn path(segment: &ImmutableSegment) -> PathBuf {
    segment.dir().join(SNAPSHOT_FILE)
}

/// Writes `valid` as `segment`'s snapshot (through a temporary file, so a crash leaves the old
/// snapshot or the new one).
pub fn write(segment: &ImmutableSegment, valid: &RoaringBitmap) -> std::io::Result<()> {
    let target = path(segment);
    let tmp = target.with_extension("tmp");
    let mut bytes = Vec::with_capacity(valid.serialized_size());
    valid.serialize_into(&mut bytes)?;
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, &target)
}

/// `segment`'s snapshot, if it has a readable one whose docs are its docs.
pub fn read(segment: &ImmutableSegment) -> Option<RoaringBitmap> {
    let bytes = std::fs::read(path(segment)).ok()?;
    let valid = RoaringBitmap::deserialize_from(bytes.as_slice()).ok()?;
    match valid.max() {
        Some(max) if max >= segment.total_docs() => None,
        _ => Some(valid),
    }
}
