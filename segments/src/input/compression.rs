//! Compressed text inputs: a CSV or JSON-lines file may be gzip- or zstd-compressed (`.csv.gz`,
//! `.json.zst`). The compression is recognised by the file's magic bytes, not its name, so a
//! renamed or uploaded file reads the same; the decoder streams, so memory stays one buffer.

use crate::error::SegmentError;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// How a file's bytes are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// The compression a file's first bytes announce.
    pub fn sniff(head: &[u8]) -> Compression {
        match head {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            _ => Compression::None,
        }
    }

    /// The compression a file name's last extension names (`gz`, `gzip`, `zst`, `zstd`).
    pub fn of_extension(ext: &str) -> Option<Compression> {
        match ext.to_ascii_lowercase().as_str() {
            "gz" | "gzip" => Some(Compression::Gzip),
            "zst" | "zstd" => Some(Compression::Zstd),
            _ => None,
        }
    }
}

/// `file`'s content, decompressed as its magic bytes say.
pub fn decoded(path: &Path, mut file: File) -> Result<Box<dyn Read + Send>, SegmentError> {
    let mut head = [0u8; 4];
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(SegmentError::io(path, e)),
        }
    }
    file.seek(SeekFrom::Start(0))
        .map_err(|e| SegmentError::io(path, e))?;
    Ok(match Compression::sniff(&head[..got]) {
        Compression::None => Box::new(file),
        Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(file)),
        Compression::Zstd => {
            Box::new(zstd::stream::read::Decoder::new(file).map_err(|e| SegmentError::io(path, e))?)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn round_trip(c: Compression, text: &[u8]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes = match c {
            Compression::None => text.to_vec(),
            Compression::Gzip => {
                let mut e =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                e.write_all(text).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::encode_all(text, 3).unwrap(),
        };
        assert_eq!(Compression::sniff(&bytes), c);
        std::fs::write(&path, bytes).unwrap();
        let mut out = Vec::new();
        decoded(&path, File::open(&path).unwrap())
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn every_compression_reads_back() {
        let text = b"a,b\n1,2\n".repeat(1000);
        for c in [Compression::None, Compression::Gzip, Compression::Zstd] {
            assert_eq!(round_trip(c, &text), text, "{c:?}");
        }
        assert_eq!(round_trip(Compression::None, b"x"), b"x");
        assert_eq!(round_trip(Compression::None, b""), b"");
    }

    #[test]
    fn extensions() {
        assert_eq!(Compression::of_extension("GZ"), Some(Compression::Gzip));
        assert_eq!(Compression::of_extension("zst"), Some(Compression::Zstd));
        assert_eq!(Compression::of_extension("csv"), None);
    }
}
