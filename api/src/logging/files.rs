//! The log directory as a set of downloadable files, and the path-traversal guard.
//!
//! The listing is every regular file under the log directory, found by a recursive walk, as a
//! sorted list of paths relative to the directory with `/` separators (Pinot's
//! `LocalLogFileServer`). Symbolic links are never listed or followed, and names that are not
//! UTF-8 are left out (they could not be asked for by name anyway).
//!
//! A file may be opened only if its relative path is *exactly* a member of the listing taken at
//! the time of the request, so `../x`, absolute paths, `sub/../../x` and anything that is not a
//! plain listed file are refused before the file system is touched. As a second fence the
//! resolved path must still lie inside the log directory when it is opened.

use super::error::LoggingError;
use std::fs::{self, File};
use std::io;
use std::path::Path;

/// A log file opened for download.
#[derive(Debug)]
pub struct LogFile {
    /// The open file.
    pub file: File,
    /// Its length when opened; serve exactly this many bytes (the active log keeps growing).
    pub len: u64,
    /// The last path segment, for `Content-Disposition`.
    pub file_name: String,
}

/// Lists the regular files under `dir`, sorted, relative, `/`-separated.
pub fn list(dir: &Path) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    walk(dir, "", &mut out)?;
    out.sort();
    Ok(out)
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let kind = entry.file_type()?;
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if kind.is_dir() {
            walk(&entry.path(), &rel, out)?;
        } else if kind.is_file() {
            out.push(rel);
        }
    }
    Ok(())
}

/// Opens `rel` under `dir` if it is a member of `listing` (a listing of `dir`).
///
/// Errors: not listed, or resolving outside `dir` → [`LoggingError::InvalidFilePath`];
/// listed but gone → [`LoggingError::FileGone`]; other I/O → [`LoggingError::Io`].
pub fn open_listed(dir: &Path, listing: &[String], rel: &str) -> Result<LogFile, LoggingError> {
    if listing
        .binary_search_by(|listed| listed.as_str().cmp(rel))
        .is_err()
    {
        return Err(LoggingError::InvalidFilePath(rel.to_string()));
    }
    let io_err = |source: io::Error, path: &Path| LoggingError::Io {
        action: "open log file",
        path: path.to_path_buf(),
        source,
    };
    let gone_or = |source: io::Error, path: &Path| {
        if source.kind() == io::ErrorKind::NotFound {
            LoggingError::FileGone(rel.to_string())
        } else {
            io_err(source, path)
        }
    };
    let root = dir.canonicalize().map_err(|e| io_err(e, dir))?;
    let joined = dir.join(rel);
    let resolved = joined.canonicalize().map_err(|e| gone_or(e, &joined))?;
    if !resolved.starts_with(&root) || resolved == root {
        return Err(LoggingError::InvalidFilePath(rel.to_string()));
    }
    let file = File::open(&resolved).map_err(|e| gone_or(e, &resolved))?;
    let meta = file.metadata().map_err(|e| io_err(e, &resolved))?;
    if !meta.is_file() {
        return Err(LoggingError::InvalidFilePath(rel.to_string()));
    }
    let file_name = rel.rsplit('/').next().unwrap_or(rel).to_string();
    Ok(LogFile {
        file,
        len: meta.len(),
        file_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn setup() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::write(dir.path().join("b.log"), b"b").expect("write");
        fs::create_dir_all(dir.path().join("sub/dir")).expect("mkdir");
        fs::write(dir.path().join("sub/dir/nested.log"), b"nested").expect("write");
        fs::write(dir.path().join("a.log"), b"a").expect("write");
        dir
    }

    #[test]
    fn lists_recursively_sorted_with_slashes() {
        let dir = setup();
        assert_eq!(
            list(dir.path()).expect("list"),
            ["a.log", "b.log", "sub/dir/nested.log"]
        );
    }

    #[test]
    fn opens_only_listed_files() {
        let dir = setup();
        let listing = list(dir.path()).expect("list");
        let mut file = open_listed(dir.path(), &listing, "sub/dir/nested.log").expect("open");
        let mut text = String::new();
        file.file.read_to_string(&mut text).expect("read");
        assert_eq!(
            (text.as_str(), file.len, file.file_name.as_str()),
            ("nested", 6, "nested.log")
        );
        for bad in [
            "../a.log",
            "/etc/passwd",
            "sub",
            "sub/dir/../../a.log",
            "./a.log",
            "",
        ] {
            assert!(
                matches!(open_listed(dir.path(), &listing, bad), Err(LoggingError::InvalidFilePath(p)) if p == bad),
                "{bad}"
            );
        }
    }

    #[test]
    fn listed_but_gone_is_file_gone() {
        let dir = setup();
        let listing = list(dir.path()).expect("list");
        fs::remove_file(dir.path().join("b.log")).expect("remove");
        assert!(matches!(
            open_listed(dir.path(), &listing, "b.log"),
            Err(LoggingError::FileGone(p)) if p == "b.log"
        ));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_not_listed_or_followed() {
        let outside = tempfile::tempdir().expect("tempdir");
        fs::write(outside.path().join("secret"), b"secret").expect("write");
        let dir = setup();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link.log"))
            .expect("symlink");
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linkdir")).expect("symlink");
        let listing = list(dir.path()).expect("list");
        assert_eq!(listing, ["a.log", "b.log", "sub/dir/nested.log"]);
        // Even if a stale listing named it, the resolved path is outside the directory.
        let stale = vec!["link.log".to_string()];
        assert!(matches!(
            open_listed(dir.path(), &stale, "link.log"),
            Err(LoggingError::InvalidFilePath(_))
        ));
    }
}
