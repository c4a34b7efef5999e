//! Spill files: pass 1 appends each column's encoded cells (provisional dict ids or raw values)
//! to its own spill; pass 2 reads one column back at a time. A spill stays in memory while the
//! process's [`SpillBudget`] has room and goes to its temp file (with what it held) once it has
//! none, so build memory stays bounded whatever the input size, while a build that fits —
//! sf1 lineitem's 16 columns spill 168 MB — neither writes its spill out nor reads it back
//! (that was two copies through the page cache of every spilled byte).
//!
//! Single-value dictionary columns spill their ids in chunks ([`IdChunks`]): a width byte (1, 2
//! or 4), a `u32` count, then the ids at that width, the narrowest that holds the chunk's
//! largest id. Most columns have few distinct values, so this halves what pass 1 writes and
//! pass 2 reads back (sf1 lineitem: 384 → 192 MB). A chunk of consecutive ids (a column that
//! keeps every value gives one new id per row) is width 0: the count and the first id only
//! (sf1 lineitem: 192 → 168 MB). Multi-value and raw columns spill plain little-endian words.

use crate::error::SegmentError;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Spill bytes all builds of the process keep in memory at once.
pub const SPILL_MEMORY_BYTES: usize = 1 << 30;
/// A spill in memory takes room from its budget in steps of at least this.
const RESERVE_STEP: usize = 4 << 20;

/// Room for spills in memory, shared by the spills that draw on it.
#[derive(Clone, Debug)]
pub struct SpillBudget(Arc<AtomicUsize>);

impl SpillBudget {
    /// A budget of `bytes`.
    pub fn new(bytes: usize) -> SpillBudget {
        SpillBudget(Arc::new(AtomicUsize::new(bytes)))
    }

    /// The process's budget ([`SPILL_MEMORY_BYTES`]), shared by every build.
    pub fn process() -> SpillBudget {
        static PROCESS: std::sync::OnceLock<SpillBudget> = std::sync::OnceLock::new();
        PROCESS
            .get_or_init(|| SpillBudget::new(SPILL_MEMORY_BYTES))
            .clone()
    }

    /// Takes `bytes` of room, if there is that much.
    fn take(&self, bytes: usize) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                left.checked_sub(bytes)
            })
            .is_ok()
    }

    fn give_back(&self, bytes: usize) {
        self.0.fetch_add(bytes, Ordering::AcqRel);
    }

    /// Room left.
    pub fn left(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// Where a spill's bytes are.
enum Held {
    /// In memory, with `reserved` bytes of the budget taken for them (given back when the
    /// bytes are handed out or the spill is dropped).
    Memory { bytes: Vec<u8>, reserved: usize },
    /// In the file, being written.
    File(BufWriter<File>),
    /// In the file, complete.
    Written,
    /// Handed out by [`SpillWriter::read_and_remove`].
    Taken,
}

/// An append-only spill.
pub struct SpillWriter {
    path: PathBuf,
    held: Held,
    /// No more writes: [`SpillWriter::finish`] was called.
    finished: bool,
    budget: SpillBudget,
    len: u64,
}

impl SpillWriter {
    /// A spill drawing on the process's budget, going to the file at `path` (created, or
    /// truncated, only if it leaves memory).
    pub fn create(path: PathBuf) -> Result<SpillWriter, SegmentError> {
        Ok(SpillWriter::with_budget(path, SpillBudget::process()))
    }

    /// A spill drawing on `budget`.
    pub fn with_budget(path: PathBuf, budget: SpillBudget) -> SpillWriter {
        SpillWriter {
            path,
            held: Held::Memory {
                bytes: Vec::new(),
                reserved: 0,
            },
            finished: false,
            budget,
            len: 0,
        }
    }

    /// Whether the spill is in memory.
    pub fn in_memory(&self) -> bool {
        matches!(self.held, Held::Memory { .. })
    }

    /// Appends bytes.
    #[inline]
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), SegmentError> {
        if self.finished {
            return Err(SegmentError::io(
                &self.path,
                std::io::Error::other("spill already finished"),
            ));
        }
        self.len += bytes.len() as u64;
        if let Held::Memory {
            bytes: held,
            reserved,
        } = &mut self.held
        {
            let need = held.len() + bytes.len();
            if need <= *reserved {
                held.extend_from_slice(bytes);
                return Ok(());
            }
            // Room for this write and a step more (at least what is held, so the budget is
            // drawn on a logarithmic number of times and the buffer grows by doubling).
            let more = (need - *reserved).max(RESERVE_STEP).max(held.len());
            if self.budget.take(more) {
                *reserved += more;
                held.reserve_exact(*reserved - held.len());
                held.extend_from_slice(bytes);
                return Ok(());
            }
            self.to_file()?;
        }
        match &mut self.held {
            Held::File(w) => w
                .write_all(bytes)
                .map_err(|e| SegmentError::io(&self.path, e)),
            _ => unreachable!("a spill out of memory and not finished is being written"),
        }
    }

    /// Moves the spill out of memory into its file, giving its room back.
    fn to_file(&mut self) -> Result<(), SegmentError> {
        let held = match std::mem::replace(&mut self.held, Held::Taken) {
            Held::Memory { bytes, reserved } => {
                self.budget.give_back(reserved);
                bytes
            }
            other => {
                self.held = other;
                return Ok(());
            }
        };
        let f = File::create(&self.path).map_err(|e| SegmentError::io(&self.path, e))?;
        let mut w = BufWriter::with_capacity(256 * 1024, f);
        w.write_all(&held)
            .map_err(|e| SegmentError::io(&self.path, e))?;
        self.held = Held::File(w);
        Ok(())
    }

    /// Appends a little-endian `u32`.
    #[inline]
    pub fn write_u32(&mut self, v: u32) -> Result<(), SegmentError> {
        self.write(&v.to_le_bytes())
    }

    /// Ends writing (flushes and closes the file of a spill that left memory).
    pub fn finish(&mut self) -> Result<(), SegmentError> {
        self.finished = true;
        if let Held::File(_) = self.held
            && let Held::File(w) = std::mem::replace(&mut self.held, Held::Written)
        {
            w.into_inner()
                .map_err(|e| SegmentError::io(&self.path, e.into_error()))?;
        }
        Ok(())
    }

    /// The whole spill (finishing it), its file deleted and its room given back.
    pub fn read_and_remove(&mut self) -> Result<Vec<u8>, SegmentError> {
        self.finish()?;
        match std::mem::replace(&mut self.held, Held::Taken) {
            Held::Memory { bytes, reserved } => {
                self.budget.give_back(reserved);
                Ok(bytes)
            }
            Held::Taken => Err(SegmentError::io(
                &self.path,
                std::io::Error::other("spill already read"),
            )),
            _ => {
                let mut buf = Vec::with_capacity(self.len as usize);
                File::open(&self.path)
                    .and_then(|mut f| f.read_to_end(&mut buf))
                    .map_err(|e| SegmentError::io(&self.path, e))?;
                let _ = std::fs::remove_file(&self.path);
                Ok(buf)
            }
        }
    }

    /// A finished spill of `bytes` at the same place and on the same budget, for a column
    /// whose spill was read before its own pass 2: kept as it is if the budget has room,
    /// else written to the file.
    pub fn refilled(&self, bytes: Vec<u8>) -> Result<SpillWriter, SegmentError> {
        let mut spill = SpillWriter::with_budget(self.path.clone(), self.budget.clone());
        spill.len = bytes.len() as u64;
        spill.held = Held::Memory { reserved: 0, bytes };
        if spill.budget.take(spill.len as usize) {
            if let Held::Memory { reserved, .. } = &mut spill.held {
                *reserved = spill.len as usize;
            }
        } else {
            spill.to_file()?;
        }
        spill.finish()?;
        Ok(spill)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SpillWriter {
    fn drop(&mut self) {
        if let Held::Memory { reserved, .. } = self.held {
            self.budget.give_back(reserved);
        }
    }
}

/// Encodes chunks of single-value dict ids into a reused buffer.
#[derive(Default)]
pub struct IdChunks {
    bytes: Vec<u8>,
}

impl IdChunks {
    /// Appends one chunk of `ids` to `spill`.
    pub fn write(&mut self, ids: &[u32], spill: &mut SpillWriter) -> Result<(), SegmentError> {
        let b = &mut self.bytes;
        b.clear();
        if let Some(&first) = ids.first()
            && ids.len() > 1
            && ids.windows(2).all(|w| w[0].checked_add(1) == Some(w[1]))
        {
            b.push(0);
            b.extend_from_slice(&(ids.len() as u32).to_le_bytes());
            b.extend_from_slice(&first.to_le_bytes());
            return spill.write(b);
        }
        let max = ids.iter().copied().max().unwrap_or(0);
        let width: u8 = if max <= u8::MAX as u32 {
            1
        } else if max <= u16::MAX as u32 {
            2
        } else {
            4
        };
        b.push(width);
        b.extend_from_slice(&(ids.len() as u32).to_le_bytes());
        match width {
            1 => b.extend(ids.iter().map(|&id| id as u8)),
            2 => ids
                .iter()
                .for_each(|&id| b.extend_from_slice(&(id as u16).to_le_bytes())),
            _ => ids
                .iter()
                .for_each(|&id| b.extend_from_slice(&id.to_le_bytes())),
        }
        spill.write(b)
    }
}

/// Decodes spilled id chunks, mapping each id through `map`; `None` if the bytes are not whole
/// chunks or `map` refuses an id.
pub fn read_id_chunks(bytes: &[u8], map: impl Fn(u32) -> Option<u32>) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let [width, c0, c1, c2, c3, tail @ ..] = rest {
        let n = u32::from_le_bytes([*c0, *c1, *c2, *c3]) as usize;
        let width = *width as usize;
        if width == 0 {
            let (first, tail) = tail.split_first_chunk::<4>()?;
            let first = u32::from_le_bytes(*first);
            let last = first.checked_add(u32::try_from(n).ok()?.checked_sub(1)?)?;
            out.reserve(n);
            for id in first..=last {
                out.push(map(id)?);
            }
            rest = tail;
            continue;
        }
        if ![1, 2, 4].contains(&width) {
            return None;
        }
        let data = tail.get(..n * width)?;
        out.reserve(n);
        match width {
            1 => {
                for &id in data {
                    out.push(map(id as u32)?);
                }
            }
            2 => {
                for c in data.chunks_exact(2) {
                    out.push(map(u16::from_le_bytes([c[0], c[1]]) as u32)?);
                }
            }
            _ => {
                for id in u32s(data) {
                    out.push(map(id)?);
                }
            }
        }
        rest = &tail[n * width..];
    }
    rest.is_empty().then_some(out)
}

/// Reads little-endian `u32`s from spilled bytes.
pub fn u32s(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_spill_leaves_memory_when_its_budget_runs_out_and_reads_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let budget = SpillBudget::new(10 << 20);
        let data: Vec<u8> = (0..(12 << 20) as u32).map(|i| (i % 251) as u8).collect();
        let mut small = SpillWriter::with_budget(dir.path().join("small.bin"), budget.clone());
        small.write(&data[..1000]).unwrap();
        assert!(small.in_memory());
        assert!(budget.left() < 10 << 20);
        let mut big = SpillWriter::with_budget(dir.path().join("big.bin"), budget.clone());
        for chunk in data.chunks(100_000) {
            big.write(chunk).unwrap();
        }
        // 12 MB do not fit in what the small spill left: the big one went to its file with
        // what it held, and gave its room back.
        assert!(!big.in_memory());
        assert!(dir.path().join("big.bin").exists());
        assert_eq!(big.read_and_remove().unwrap(), data);
        assert!(!dir.path().join("big.bin").exists());
        assert_eq!(small.read_and_remove().unwrap(), &data[..1000]);
        assert!(
            !dir.path().join("small.bin").exists(),
            "an in-memory spill writes no file"
        );
        assert_eq!(budget.left(), 10 << 20, "all room is given back");
        // A spill dropped unread gives its room back too; a refilled one is in memory again.
        let mut dropped = SpillWriter::with_budget(dir.path().join("d.bin"), budget.clone());
        dropped.write(&data[..5000]).unwrap();
        let refilled = dropped.refilled(data[..5000].to_vec()).unwrap();
        drop(dropped);
        assert!(refilled.in_memory());
        assert_eq!(budget.left(), (10 << 20) - 5000);
        let mut refilled = refilled;
        assert!(
            refilled.write(b"x").is_err(),
            "a refilled spill is finished"
        );
        assert_eq!(refilled.read_and_remove().unwrap(), &data[..5000]);
        assert_eq!(budget.left(), 10 << 20);
    }

    proptest! {
        #[test]
        fn id_chunks_round_trip(
            chunks in proptest::collection::vec(prop_oneof![
                proptest::collection::vec(prop_oneof![0u32..256, 0u32..70_000, any::<u32>()], 0..50),
                // Consecutive ids, some ending at u32::MAX.
                (prop_oneof![any::<u32>(), Just(u32::MAX)], 1u32..60).prop_map(|(first, n)| (first.min(u32::MAX - n + 1)..=first.min(u32::MAX - n + 1) + (n - 1)).collect()),
            ], 0..20)
        ) {
            let dir = tempfile::tempdir().unwrap();
            // Without room in memory, as a build whose spill outgrew the budget.
            let mut spill = SpillWriter::with_budget(dir.path().join("s.bin"), SpillBudget::new(0));
            let mut enc = IdChunks::default();
            for c in &chunks {
                enc.write(c, &mut spill).unwrap();
            }
            let bytes = spill.read_and_remove().unwrap();
            let want: Vec<u32> = chunks.concat().iter().map(|&id| id ^ 1).collect();
            prop_assert_eq!(read_id_chunks(&bytes, |id| Some(id ^ 1)), Some(want));
            // An id the map refuses fails the whole read.
            if let Some(&first) = chunks.concat().first() {
                prop_assert_eq!(read_id_chunks(&bytes, |id| (id != first).then_some(id)), None);
            }
            // A cut chunk is refused.
            if let Some(len) = bytes.len().checked_sub(1) {
                prop_assert_eq!(read_id_chunks(&bytes[..len], Some), None);
            }
        }
    }
}
