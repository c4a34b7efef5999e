//! Spill files: pass 1 appends each column's encoded cells (provisional dict ids or raw values)
//! to its own temp file; pass 2 reads one column back at a time. This keeps build memory to the
//! dictionaries plus one column, whatever the input size.
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

/// An append-only spill file.
pub struct SpillWriter {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    len: u64,
}

impl SpillWriter {
    /// Creates (truncates) the file at `path`.
    pub fn create(path: PathBuf) -> Result<SpillWriter, SegmentError> {
        let f = File::create(&path).map_err(|e| SegmentError::io(&path, e))?;
        Ok(SpillWriter {
            path,
            out: Some(BufWriter::with_capacity(256 * 1024, f)),
            len: 0,
        })
    }

    /// Appends bytes.
    #[inline]
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), SegmentError> {
        self.len += bytes.len() as u64;
        match &mut self.out {
            Some(w) => w
                .write_all(bytes)
                .map_err(|e| SegmentError::io(&self.path, e)),
            None => Err(SegmentError::io(
                &self.path,
                std::io::Error::other("spill file already finished"),
            )),
        }
    }

    /// Appends a little-endian `u32`.
    #[inline]
    pub fn write_u32(&mut self, v: u32) -> Result<(), SegmentError> {
        self.write(&v.to_le_bytes())
    }

    /// Flushes and closes the file.
    pub fn finish(&mut self) -> Result<(), SegmentError> {
        if let Some(w) = self.out.take() {
            w.into_inner()
                .map_err(|e| SegmentError::io(&self.path, e.into_error()))?;
        }
        Ok(())
    }

    /// Reads the whole (finished) file back and deletes it.
    pub fn read_and_remove(&mut self) -> Result<Vec<u8>, SegmentError> {
        self.finish()?;
        let mut buf = Vec::with_capacity(self.len as usize);
        File::open(&self.path)
            .and_then(|mut f| f.read_to_end(&mut buf))
            .map_err(|e| SegmentError::io(&self.path, e))?;
        let _ = std::fs::remove_file(&self.path);
        Ok(buf)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
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
            let mut spill = SpillWriter::create(dir.path().join("s.bin")).unwrap();
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
