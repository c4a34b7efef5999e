//! The process's budget for blocked dictionaries kept decoded whole.
//!
//! A large text dictionary (free-text comments) is stored in zstd blocks
//! ([`super::blocks::ValueBlocks`]): a query that tests every value — `o_comment NOT LIKE
//! '%special%requests%'` over 1.5M distinct comments — decompresses every block, and on TPC-H
//! sf1 that was two thirds of such a filter's time. A dictionary read whole is
//! kept decoded instead, as ClickHouse's uncompressed cache keeps decompressed blocks: once as
//! many of its blocks have been decoded as it has (a whole scan, or lookups adding up to one),
//! its blocks are decoded once more and kept, if the bytes fit in what is left of this budget
//! (first come, first kept: nothing is evicted while its segment is loaded). The bytes
//! are given back when the dictionary goes (its segment unloaded or replaced). Dictionaries
//! that do not fit stay compressed and decode as before.
//!
//! The budget is [`DEFAULT_BUDGET_BYTES`] unless set ([`set_budget`]; the server's
//! `--decoded-dictionary-bytes`, 0 keeps none).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Decoded bytes the process keeps by default (all dictionaries together).
pub const DEFAULT_BUDGET_BYTES: usize = 512 << 20;

static BUDGET: AtomicUsize = AtomicUsize::new(DEFAULT_BUDGET_BYTES);
static USED: AtomicUsize = AtomicUsize::new(0);

/// Sets how many decoded bytes the process keeps; dictionaries already kept stay.
pub fn set_budget(bytes: usize) {
    BUDGET.store(bytes, Ordering::Relaxed);
}

/// Decoded bytes kept now.
pub fn used() -> usize {
    USED.load(Ordering::Relaxed)
}

/// Bytes of the budget held by one decoded dictionary, given back when dropped.
#[derive(Debug)]
pub struct Reservation(usize);

impl Reservation {
    /// Holds `bytes` of the budget, when they fit in what is left of it.
    pub fn try_new(bytes: usize) -> Option<Reservation> {
        let budget = BUDGET.load(Ordering::Relaxed);
        USED.fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
            used.checked_add(bytes).filter(|&total| total <= budget)
        })
        .ok()
        .map(|_| Reservation(bytes))
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        USED.fetch_sub(self.0, Ordering::AcqRel);
    }
}
