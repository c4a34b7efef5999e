//! The data-file footer: `u32` format version, `u32` CRC-32 of the body, 8 magic bytes.
//!
//! Checked in this order on open: length, magic (a foreign or truncated file), version (a file
//! from another format generation gets [`SegmentError::UnsupportedVersion`]), checksum.

use crate::error::SegmentError;
use std::path::Path;

/// Magic bytes closing every Tessera data file.
pub const MAGIC: [u8; 8] = *b"TSRSEG\x00\x01";
/// Footer length in bytes.
pub const FOOTER_LEN: usize = 16;

/// A segment format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FormatVersion(pub u32);

impl FormatVersion {
    /// The version this build writes and reads. History: 1 — first format; 2 — var-width
    /// dictionaries carry an encoding header and large ones are zstd-compressed blocks; sorted
    /// indexes store one start doc per dict id; 3 — numeric dictionaries and sorted-index starts
    /// may be delta-packed, and a sorted column keeps no bit-packed forward index.
    pub const CURRENT: FormatVersion = FormatVersion(3);

    /// The footer for a body with checksum `crc`.
    pub fn footer(self, crc: u32) -> [u8; FOOTER_LEN] {
        let mut f = [0u8; FOOTER_LEN];
        f[..4].copy_from_slice(&self.0.to_le_bytes());
        f[4..8].copy_from_slice(&crc.to_le_bytes());
        f[8..].copy_from_slice(&MAGIC);
        f
    }

    /// Verifies the footer of a whole file's bytes and returns the body length.
    pub fn check_file(file: &Path, bytes: &[u8]) -> Result<usize, SegmentError> {
        if bytes.len() < FOOTER_LEN {
            return Err(SegmentError::corrupt(
                file,
                format!(
                    "file is {} bytes, shorter than the {FOOTER_LEN}-byte footer",
                    bytes.len()
                ),
            ));
        }
        let body = bytes.len() - FOOTER_LEN;
        let footer = &bytes[body..];
        if footer[8..] != MAGIC {
            return Err(SegmentError::corrupt(
                file,
                "bad magic bytes in footer (truncated or not a tessera data file)",
            ));
        }
        let version = u32::from_le_bytes([footer[0], footer[1], footer[2], footer[3]]);
        if version != Self::CURRENT.0 {
            return Err(SegmentError::UnsupportedVersion {
                file: file.to_path_buf(),
                found: version,
                expected: Self::CURRENT.0,
            });
        }
        let stored = u32::from_le_bytes([footer[4], footer[5], footer[6], footer[7]]);
        let actual = crc32fast::hash(&bytes[..body]);
        if stored != actual {
            return Err(SegmentError::corrupt(
                file,
                format!("checksum mismatch: footer says {stored:#010x}, content is {actual:#010x}"),
            ));
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file_with(body: &[u8], version: FormatVersion) -> Vec<u8> {
        let mut v = body.to_vec();
        v.extend_from_slice(&version.footer(crc32fast::hash(body)));
        v
    }

    #[test]
    fn accepts_good_and_rejects_bad_footers() {
        let p = Path::new("x.bin");
        let good = file_with(b"hello", FormatVersion::CURRENT);
        assert_eq!(FormatVersion::check_file(p, &good).unwrap(), 5);

        let err = FormatVersion::check_file(p, &good[..good.len() - 1]).unwrap_err();
        assert!(err.to_string().contains("bad magic"), "{err}");
        let err = FormatVersion::check_file(p, &good[..3]).unwrap_err();
        assert!(err.to_string().contains("shorter"), "{err}");

        let v1 = file_with(b"hello", FormatVersion(1));
        assert!(matches!(
            FormatVersion::check_file(p, &v1),
            Err(SegmentError::UnsupportedVersion {
                found: 1,
                expected: 3,
                ..
            })
        ));

        let mut flipped = good.clone();
        flipped[1] ^= 0x10;
        let err = FormatVersion::check_file(p, &flipped).unwrap_err();
        assert!(err.to_string().contains("checksum mismatch"), "{err}");
        assert!(err.to_string().contains("x.bin"), "{err}");
    }
}
