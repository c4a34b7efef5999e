//! A size-based rotating log file: `<stem>`, `<stem>.1`, … `<stem>.<max_files-1>`.
//!
//! Lines are written whole: when the next line would take the active file past
//! `max_bytes` (and the file is not empty), the set is shifted (`<stem>.i` → `<stem>.i+1`, the
//! oldest dropped, `<stem>` → `<stem>.1`) and a fresh `<stem>` is started. A single line longer
//! than `max_bytes` still goes out whole, into a file of its own. The set never holds more than
//! `max_files` files (the active one included).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The active file of a rotating set and the rules for shifting it.
#[derive(Debug)]
pub struct RotatingFile {
    dir: PathBuf,
    stem: String,
    max_bytes: u64,
    max_files: usize,
    file: File,
    len: u64,
}

impl RotatingFile {
    /// Opens (appending) or creates `<dir>/<stem>`, creating `dir` if needed.
    /// `max_files` is clamped to at least 1 and `max_bytes` to at least 1.
    pub fn open(
        dir: &Path,
        stem: &str,
        max_bytes: u64,
        max_files: usize,
    ) -> io::Result<RotatingFile> {
        fs::create_dir_all(dir)?;
        let path = dir.join(stem);
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        let len = file.metadata()?.len();
        Ok(RotatingFile {
            dir: dir.to_path_buf(),
            stem: stem.to_string(),
            max_bytes: max_bytes.max(1),
            max_files: max_files.max(1),
            file,
            len,
        })
    }

    /// Path of the `index`-th file of the set (0 = the active file).
    pub fn path(&self, index: usize) -> PathBuf {
        if index == 0 {
            self.dir.join(&self.stem)
        } else {
            self.dir.join(format!("{}.{index}", self.stem))
        }
    }

    /// Appends one whole line (the caller includes the newline), rotating first if needed.
    pub fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        if self.len > 0 && self.len + line.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        self.file.write_all(line)?;
        self.len += line.len() as u64;
        Ok(())
    }

    /// Shifts the set by one and starts an empty active file.
    fn rotate(&mut self) -> io::Result<()> {
        self.file.flush()?;
        for index in (1..self.max_files).rev() {
            let from = self.path(index - 1);
            match fs::rename(&from, self.path(index)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        self.file = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .open(self.path(0))?;
        self.len = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> String {
        fs::read_to_string(path).unwrap_or_default()
    }

    #[test]
    fn rotates_by_size_and_keeps_the_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut file = RotatingFile::open(dir.path(), "i.log", 20, 3).expect("open");
        for n in 0..10 {
            file.write_line(format!("line-{n:02}\n").as_bytes())
                .expect("write");
        }
        // 8-byte lines, 20-byte files: two lines per file, newest in i.log.
        assert_eq!(read(&dir.path().join("i.log")), "line-08\nline-09\n");
        assert_eq!(read(&dir.path().join("i.log.1")), "line-06\nline-07\n");
        assert_eq!(read(&dir.path().join("i.log.2")), "line-04\nline-05\n");
        assert!(!dir.path().join("i.log.3").exists());
        let count = fs::read_dir(dir.path()).expect("read_dir").count();
        assert_eq!(count, 3);
    }

    #[test]
    fn never_splits_a_line_and_appends_on_reopen() {
        let dir = tempfile::tempdir().expect("tempdir");
        {
            let mut file = RotatingFile::open(dir.path(), "i.log", 10, 2).expect("open");
            file.write_line(b"abc\n").expect("write");
        }
        let mut file = RotatingFile::open(dir.path(), "i.log", 10, 2).expect("reopen");
        file.write_line(b"a-line-longer-than-max\n").expect("write");
        file.write_line(b"x\n").expect("write");
        assert_eq!(
            read(&dir.path().join("i.log.1")),
            "a-line-longer-than-max\n"
        );
        assert_eq!(read(&dir.path().join("i.log")), "x\n");
    }

    #[test]
    fn a_single_file_set_truncates() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut file = RotatingFile::open(dir.path(), "i.log", 8, 1).expect("open");
        file.write_line(b"first\n").expect("write");
        file.write_line(b"second\n").expect("write");
        assert_eq!(read(&dir.path().join("i.log")), "second\n");
        assert_eq!(fs::read_dir(dir.path()).expect("read_dir").count(), 1);
    }
}
