//! Forward indexes: doc id → value (or dictionary id).
//!
//! * [`DictIds`] — single-value dict ids: a [`BitPackedForward`] (the default encoding), or the
//!   doc runs of a sorted column.
//! * [`MvForward`] — multi-value dict ids: per-doc offsets plus one packed id stream.
//! * [`RawForward`] — no-dictionary single-value columns: zstd-compressed chunks of values.
//!
//! Multi-value columns are always dictionary-encoded (a `noDictionaryColumns` entry for a
//! multi-value column is ignored), so there is no raw multi-value variant.

pub mod bitpacked;
pub mod dict_ids;
pub mod mv;
pub mod raw;
#[cfg(target_arch = "x86_64")]
mod unpack_avx2;

pub use bitpacked::BitPackedForward;
pub use dict_ids::DictIds;
pub use mv::MvForward;
pub use raw::{RawCursor, RawForward};

/// A column's forward index.
#[derive(Clone, Debug)]
pub enum ForwardIndex {
    /// Single-value, dictionary-encoded.
    Dict(DictIds),
    /// Multi-value, dictionary-encoded.
    DictMv(MvForward),
    /// Single-value, raw values.
    Raw(RawForward),
}

impl ForwardIndex {
    /// Number of docs.
    pub fn len(&self) -> u32 {
        match self {
            ForwardIndex::Dict(f) => f.len(),
            ForwardIndex::DictMv(f) => f.len(),
            ForwardIndex::Raw(f) => f.len(),
        }
    }

    /// Whether there are no docs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
