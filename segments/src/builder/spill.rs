//! Spill files: pass 1 appends each column's encoded cells (provisional dict ids or raw values)
//! to its own temp file; pass 2 reads one column back at a time. This keeps build memory to the
//! dictionaries plus one column, whatever the input size.

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

/// Reads little-endian `u32`s from spilled bytes.
pub fn u32s(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}
