//! [`DataFileWriter`]: appends 8-byte-aligned entries to a data file, recording each in the
//! index map with its CRC-32, and closes the file with the footer.

use super::ALIGNMENT;
use super::footer::FormatVersion;
use super::index_map::IndexEntry;
use crate::error::SegmentError;
use crate::index::IndexKind;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Writes one data file sequentially.
pub struct DataFileWriter {
    path: PathBuf,
    name: String,
    out: BufWriter<File>,
    offset: u64,
    crc: crc32fast::Hasher,
    entries: Vec<IndexEntry>,
}

impl DataFileWriter {
    /// Creates `dir/name`.
    pub fn create(dir: &Path, name: &str) -> Result<DataFileWriter, SegmentError> {
        let path = dir.join(name);
        let file = File::create(&path).map_err(|e| SegmentError::io(&path, e))?;
        Ok(DataFileWriter {
            path,
            name: name.to_string(),
            out: BufWriter::with_capacity(1 << 20, file),
            offset: 0,
            crc: crc32fast::Hasher::new(),
            entries: Vec::new(),
        })
    }

    fn write_raw(&mut self, bytes: &[u8]) -> Result<(), SegmentError> {
        self.out
            .write_all(bytes)
            .map_err(|e| SegmentError::io(&self.path, e))?;
        self.crc.update(bytes);
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Appends `bytes` as the entry (`target`, `kind`), aligned to [`ALIGNMENT`].
    pub fn add(&mut self, target: &str, kind: IndexKind, bytes: &[u8]) -> Result<(), SegmentError> {
        let pad = (ALIGNMENT - (self.offset as usize) % ALIGNMENT) % ALIGNMENT;
        self.write_raw(&[0u8; ALIGNMENT][..pad])?;
        let offset = self.offset;
        self.write_raw(bytes)?;
        self.entries.push(IndexEntry {
            target: target.to_string(),
            kind: kind.name().to_string(),
            file: self.name.clone(),
            offset,
            size: bytes.len() as u64,
            crc32: crc32fast::hash(bytes),
        });
        Ok(())
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.offset
    }

    /// Whether nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.offset == 0
    }

    /// Writes the footer, flushes and syncs; returns the entries and the file's total size.
    pub fn finish(mut self) -> Result<(Vec<IndexEntry>, u64), SegmentError> {
        let footer = FormatVersion::CURRENT.footer(self.crc.clone().finalize());
        self.out
            .write_all(&footer)
            .map_err(|e| SegmentError::io(&self.path, e))?;
        let file = self
            .out
            .into_inner()
            .map_err(|e| SegmentError::io(&self.path, e.into_error()))?;
        file.sync_all()
            .map_err(|e| SegmentError::io(&self.path, e))?;
        Ok((self.entries, self.offset + footer.len() as u64))
    }
}
