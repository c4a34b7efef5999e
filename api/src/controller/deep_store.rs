//! The deep store: where the controller keeps every uploaded or committed segment archive, one
//! folder per table, and serves them to servers. [`DeepStore`] is the seam — archives go in
//! whole, come out as a local file, and go away by name — so an object store can stand behind
//! it; [`DirDeepStore`] is a directory, shared by all controllers of a cluster when they run on
//! several machines (`--deep-store`, a mount every one of them reaches).

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Segment archives by table and file name.
pub trait DeepStore: Send + Sync {
    /// Moves the local file `from` in as `file` of `table`, atomically: a reader finds all of it
    /// or nothing.
    fn put(&self, table: &str, file: &str, from: &Path) -> io::Result<()>;
    /// A local file holding the archive (in place, for a directory).
    fn local_path(&self, table: &str, file: &str) -> io::Result<PathBuf>;
    /// Removes one archive.
    fn remove(&self, table: &str, file: &str) -> io::Result<()>;
    /// Removes a table's archives.
    fn remove_table(&self, table: &str) -> io::Result<()>;
    /// The tables with archives.
    fn tables(&self) -> io::Result<Vec<String>>;
    /// A table's archives with when each was last written.
    fn files(&self, table: &str) -> io::Result<Vec<(String, SystemTime)>>;
    /// A local directory for controller `id`'s scratch work: on the store's filesystem when it
    /// has one, so [`DeepStore::put`] is a rename.
    fn scratch(&self, id: &str) -> PathBuf;
    /// Where it is, for messages.
    fn describe(&self) -> String;
    /// The URI of an archive (Pinot's `segment.download.url` for a segment in the deep store).
    fn uri(&self, table: &str, file: &str) -> String;
}

/// A deep store in a directory: `<root>/<table>/<file>`, scratch under `<root>/.tmp/<id>`.
#[derive(Debug, Clone)]
pub struct DirDeepStore {
    root: PathBuf,
}

impl DirDeepStore {
    /// A store rooted at `root` (folders are created as archives arrive).
    pub fn new(root: PathBuf) -> DirDeepStore {
        DirDeepStore { root }
    }

    fn dir(&self, table: &str) -> io::Result<PathBuf> {
        if table.is_empty() || table.starts_with('.') || table.contains(['/', '\\']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("'{table}' cannot name a deep-store folder"),
            ));
        }
        Ok(self.root.join(table))
    }

    fn path(&self, table: &str, file: &str) -> io::Result<PathBuf> {
        if file.is_empty() || file.starts_with('.') || file.contains(['/', '\\']) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("'{file}' cannot name a deep-store archive"),
            ));
        }
        Ok(self.dir(table)?.join(file))
    }
}

impl DeepStore for DirDeepStore {
    fn put(&self, table: &str, file: &str, from: &Path) -> io::Result<()> {
        std::fs::create_dir_all(self.dir(table)?)?;
        std::fs::rename(from, self.path(table, file)?)
    }

    fn local_path(&self, table: &str, file: &str) -> io::Result<PathBuf> {
        self.path(table, file)
    }

    fn remove(&self, table: &str, file: &str) -> io::Result<()> {
        std::fs::remove_file(self.path(table, file)?)
    }

    fn remove_table(&self, table: &str) -> io::Result<()> {
        match std::fs::remove_dir_all(self.dir(table)?) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    fn tables(&self) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        let entries = match std::fs::read_dir(&self.root) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
            other => other?,
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && e.path().is_dir() {
                out.push(name);
            }
        }
        out.sort();
        Ok(out)
    }

    fn files(&self, table: &str) -> io::Result<Vec<(String, SystemTime)>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(self.dir(table)?)?.flatten() {
            let written = e.metadata()?.modified()?;
            out.push((e.file_name().to_string_lossy().into_owned(), written));
        }
        out.sort();
        Ok(out)
    }

    fn scratch(&self, id: &str) -> PathBuf {
        self.root.join(".tmp").join(id)
    }

    fn describe(&self) -> String {
        self.root.display().to_string()
    }

    fn uri(&self, table: &str, file: &str) -> String {
        let root = std::path::absolute(&self.root).unwrap_or_else(|_| self.root.clone());
        format!("file://{}", root.join(table).join(file).display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_go_in_whole_and_out_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirDeepStore::new(dir.path().join("deep"));
        assert!(store.tables().unwrap().is_empty());
        let scratch = store.scratch("Controller_h_1");
        std::fs::create_dir_all(&scratch).unwrap();
        let file = scratch.join("a.tar.gz");
        std::fs::write(&file, b"archive").unwrap();
        store.put("t_OFFLINE", "s_0.1.tar.gz", &file).unwrap();
        assert!(!file.exists());
        let at = store.local_path("t_OFFLINE", "s_0.1.tar.gz").unwrap();
        assert_eq!(std::fs::read(at).unwrap(), b"archive");
        assert_eq!(store.tables().unwrap(), ["t_OFFLINE"]);
        assert_eq!(store.files("t_OFFLINE").unwrap().len(), 1);
        let uri = store.uri("t_OFFLINE", "s_0.1.tar.gz");
        assert!(uri.starts_with("file:///") && uri.ends_with("/deep/t_OFFLINE/s_0.1.tar.gz"));
        assert!(store.local_path("t_OFFLINE", "../x").is_err());
        assert!(store.local_path("..", "x").is_err());
        assert!(store.remove_table(".tmp").is_err());
        store.remove("t_OFFLINE", "s_0.1.tar.gz").unwrap();
        assert!(store.files("t_OFFLINE").unwrap().is_empty());
        store.remove_table("t_OFFLINE").unwrap();
        store.remove_table("t_OFFLINE").unwrap();
        assert!(store.tables().unwrap().is_empty());
    }
}
