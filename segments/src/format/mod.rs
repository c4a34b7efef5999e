//! The on-disk format: the one place that knows file names, the footer, alignment and checksums.
//!
//! A segment is a directory:
//!
//! ```text
//! <segment_name>/
//!   metadata.json     SegmentMetadata (format_version, per-column statistics)
//!   index_map.json    IndexMap: per (target, kind) -> file, offset, size, crc32
//!   columns.bin       every column's dictionary, forward index and indexes, each entry 8-byte aligned,
//!                     ending in the footer
//! ```
//!
//! Every data file ends in a 16-byte [footer](footer): `u32` format version, `u32` CRC-32 of all
//! bytes before the footer, 8 magic bytes. Index-map entries are keyed by a target string (a column
//! name today; `startree:<n>` or a derived timestamp column later) and a kind string, so new index
//! kinds and new data files can be added without breaking old readers or old segments. Readers
//! skip kinds they do not know.

pub mod bytes;
pub mod data_file;
pub mod deltas;
pub mod footer;
pub mod index_map;

pub use bytes::{ByteReader, Bytes, TypedSlice};
pub use data_file::DataFileWriter;
pub use footer::{FOOTER_LEN, FormatVersion, MAGIC};
pub use index_map::{IndexEntry, IndexMap};

/// The segment metadata file.
pub const METADATA_FILE: &str = "metadata.json";
/// The index map file.
pub const INDEX_MAP_FILE: &str = "index_map.json";
/// The data file holding every column's dictionary, forward index and indexes.
pub const COLUMNS_FILE: &str = "columns.bin";
/// Alignment of every entry in a data file, so fixed-width arrays are zero-copy slices.
pub const ALIGNMENT: usize = 8;

/// Writes a segment's text file (metadata, index map), naming the file on failure.
pub fn write_text(path: &std::path::Path, text: &str) -> Result<(), crate::SegmentError> {
    std::fs::write(path, text).map_err(|e| crate::SegmentError::io(path, e))
}
