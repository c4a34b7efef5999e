//! Tessera's segments: what a segment is, on disk and in memory.
//!
//! * [`types`] — the shared vocabulary (data types, values, schema, table config, error codes).
//! * [`format`] — file names, footer, alignment, checksums, the index map.
//! * [`dictionary`], [`forward`], [`index`] — a column's encodings and indexes, each with its
//!   writer (`encode`) next to its reader.
//! * [`builder`] — rows in → per-column dictionaries, forward indexes and indexes → a segment
//!   directory, written atomically ([`build_config`] says what to build, [`input`] reads files).
//! * [`sketch`] — HyperLogLog, t-digest and quantile digest: the sketches star-trees
//!   pre-aggregate and the engine's aggregations merge.
//! * [`startree`] — star-tree indexes: pre-aggregated records and the tree over them,
//!   built after the columns and stored in `startree.bin`.
//! * [`segment`] — [`ImmutableSegment::open`](segment::ImmutableSegment::open): memory-mapped,
//!   verified, zero-copy readers; [`inspect`] renders one for humans and tools;
//!   [`consuming_part`] stamps one that is a part of a consuming segment.

pub mod types;

pub mod dictionary;
pub mod error;
pub mod format;
pub mod forward;
pub mod hash;
pub mod index;
pub mod metadata;
pub mod native;
pub mod sketch;

pub use error::SegmentError;

pub mod build_config;
pub mod builder;
pub mod consuming_part;
pub mod input;
pub mod inspect;
pub mod segment;
pub mod startree;
pub mod statistics;
pub mod timestamp_index;

pub use build_config::BuildConfig;
pub use builder::from_segments::build_segment_from_segments;
pub use builder::{
    BuildSummary, RowBuilder, build_segment, build_segment_from_rows, rename_segment,
};
pub use consuming_part::ConsumingPart;
pub use input::{InputFormat, InputSource};
pub use metadata::{ColumnMetadata, SegmentMetadata};
pub use segment::{ColumnReader, ImmutableSegment};
