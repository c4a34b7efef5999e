//! The deep store: where the controller keeps every uploaded or committed segment archive, one
//! folder per table. [`DeepStore`] is the seam — archives go in whole, come out as a local file,
//! and go away by name. [`DirDeepStore`] is a directory, shared by all controllers of a cluster
//! when they run on several machines (`--deep-store /dir` or `file:///dir`, a mount every one of
//! them reaches); servers fetch its archives through a controller. [`ObjectDeepStore`] is a
//! bucket prefix in object storage (`--deep-store s3://bucket/prefix`, `gs://…`, `az://…`): an
//! archive is uploaded in parts and exists only once complete, servers read it there directly
//! ([`DeepStore::direct_uri`]), and the controller keeps a local cache of what it reads back.
//! [`open`] makes the one a `--deep-store` URI names and checks that it can be reached.
//!
//! A deleted segment's archive is not removed at once: it moves to the deleted-segments area
//! (Pinot's `Deleted_Segments/<raw table>/`, [`DeepStore::retire`]), stamped with the time of its
//! deletion, and the retention manager purges it once the table's
//! `deletedSegmentsRetentionPeriod` has passed.

use crate::cloud::{ObjectStores, ObjectUri};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    /// Moves archive `file` of `table` into the deleted-segments area of its raw table
    /// ([`DELETED_SEGMENTS`]`/<raw>/<file>`), stamped with the time of the move.
    fn retire(&self, table: &str, file: &str) -> io::Result<()>;
    /// The raw tables with archives in the deleted-segments area.
    fn retired_tables(&self) -> io::Result<Vec<String>>;
    /// The archives of raw table `raw` in the deleted-segments area, with when each was retired.
    fn retired(&self, raw: &str) -> io::Result<Vec<(String, SystemTime)>>;
    /// Removes one archive from the deleted-segments area for good.
    fn purge(&self, raw: &str, file: &str) -> io::Result<()>;
    /// The URI servers read an archive from themselves, when they can (object storage); `None`:
    /// through a controller.
    fn direct_uri(&self, _table: &str, _file: &str) -> Option<String> {
        None
    }
}

/// The folder of the deleted-segments area, beside the tables' folders (never a typed table
/// name: those end in `_OFFLINE` or `_REALTIME`).
pub const DELETED_SEGMENTS: &str = "Deleted_Segments";

/// The raw table name of a typed one (`t_OFFLINE` → `t`).
fn raw_of(table: &str) -> &str {
    crate::metadata::table_name::split(table).0
}

/// Where `--deep-store` puts archives: a directory or an object-store prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeepStoreUri {
    Dir(PathBuf),
    Object(ObjectUri),
}

impl DeepStoreUri {
    /// `s3://bucket/prefix`, `gs://…`, `az://…`, `file:///dir` or a path.
    pub fn parse(text: &str) -> Result<DeepStoreUri, String> {
        if let Some(path) = text.strip_prefix("file://") {
            return if path.starts_with('/') {
                Ok(DeepStoreUri::Dir(PathBuf::from(path)))
            } else {
                Err(format!(
                    "'{text}': a file:// deep store needs an absolute path (file:///dir)"
                ))
            };
        }
        if text.contains("://") {
            return ObjectUri::parse(text).map(DeepStoreUri::Object).ok_or_else(|| {
                format!(
                    "'{text}': the deep store is s3://bucket/prefix, gs://…, az://…, file:///dir or a directory"
                )
            });
        }
        if text.is_empty() {
            return Err("the deep store URI is empty".into());
        }
        Ok(DeepStoreUri::Dir(PathBuf::from(text)))
    }
}

/// Opens the deep store `uri` names, with `local` for scratch work and cached archives: a
/// directory is created; a bucket must answer a listing with `stores`' options (a missing
/// bucket or refused credentials fail here, at start).
pub fn open(
    uri: &DeepStoreUri,
    local: &Path,
    stores: &Arc<ObjectStores>,
) -> Result<Arc<dyn DeepStore>, String> {
    match uri {
        DeepStoreUri::Dir(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create the deep store '{}': {e}", dir.display()))?;
            Ok(Arc::new(DirDeepStore::new(dir.clone())))
        }
        DeepStoreUri::Object(root) => {
            stores
                .check(root)
                .map_err(|e| format!("cannot reach the deep store {root}: {e}"))?;
            Ok(Arc::new(ObjectDeepStore {
                root: root.clone(),
                stores: stores.clone(),
                local: local.to_path_buf(),
            }))
        }
    }
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
        check_name(table, "folder")?;
        Ok(self.root.join(table))
    }

    fn path(&self, table: &str, file: &str) -> io::Result<PathBuf> {
        check_name(file, "archive")?;
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
            if !name.starts_with('.') && name != DELETED_SEGMENTS && e.path().is_dir() {
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

    fn retire(&self, table: &str, file: &str) -> io::Result<()> {
        let from = self.path(table, file)?;
        let dir = self.root.join(DELETED_SEGMENTS).join(raw_of(table));
        std::fs::create_dir_all(&dir)?;
        let to = dir.join(file);
        std::fs::rename(&from, &to)?;
        // A rename keeps the upload's time; the area counts from the deletion.
        std::fs::File::options()
            .write(true)
            .open(&to)?
            .set_modified(SystemTime::now())
    }

    fn retired_tables(&self) -> io::Result<Vec<String>> {
        let mut out = Vec::new();
        match std::fs::read_dir(self.root.join(DELETED_SEGMENTS)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(entries) => {
                for e in entries.flatten() {
                    if e.path().is_dir() {
                        out.push(e.file_name().to_string_lossy().into_owned());
                    }
                }
            }
        }
        out.sort();
        Ok(out)
    }

    fn retired(&self, raw: &str) -> io::Result<Vec<(String, SystemTime)>> {
        check_name(raw, "folder")?;
        let mut out = Vec::new();
        match std::fs::read_dir(self.root.join(DELETED_SEGMENTS).join(raw)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
            Ok(entries) => {
                for e in entries.flatten() {
                    let retired = e.metadata()?.modified()?;
                    out.push((e.file_name().to_string_lossy().into_owned(), retired));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    fn purge(&self, raw: &str, file: &str) -> io::Result<()> {
        check_name(raw, "folder")?;
        check_name(file, "archive")?;
        let dir = self.root.join(DELETED_SEGMENTS).join(raw);
        std::fs::remove_file(dir.join(file))?;
        // The last one out removes its table's folder.
        let _ = std::fs::remove_dir(&dir);
        Ok(())
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

/// Refuses names that could leave their folder (`..`, `/`) or hide (`.tmp`).
fn check_name(name: &str, what: &str) -> io::Result<()> {
    if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{name}' cannot name a deep-store {what}"),
        ));
    }
    Ok(())
}

/// A deep store under a prefix of a bucket: `<prefix>/<table>/<file>`. Archives read back are
/// cached under `<local>/cache/<table>/<file>` (names are never reused: a refresh writes a new
/// file), scratch work under `<local>/.tmp/<id>`.
#[derive(Debug)]
pub struct ObjectDeepStore {
    root: ObjectUri,
    stores: Arc<ObjectStores>,
    local: PathBuf,
}

impl ObjectDeepStore {
    fn object(&self, table: &str, file: &str) -> io::Result<ObjectUri> {
        check_name(table, "folder")?;
        check_name(file, "archive")?;
        Ok(self.root.child(table).child(file))
    }

    fn cached(&self, table: &str, file: &str) -> PathBuf {
        self.local.join("cache").join(table).join(file)
    }
}

impl DeepStore for ObjectDeepStore {
    fn put(&self, table: &str, file: &str, from: &Path) -> io::Result<()> {
        let uri = self.object(table, file)?;
        self.stores.put_file(&uri, from)?;
        let _ = std::fs::remove_file(from);
        Ok(())
    }

    fn local_path(&self, table: &str, file: &str) -> io::Result<PathBuf> {
        let uri = self.object(table, file)?;
        let at = self.cached(table, file);
        if !at.is_file() {
            if let Some(dir) = at.parent() {
                std::fs::create_dir_all(dir)?;
            }
            self.stores.get_to_file(&uri, &at, u64::MAX)?;
        }
        Ok(at)
    }

    fn remove(&self, table: &str, file: &str) -> io::Result<()> {
        let uri = self.object(table, file)?;
        self.stores.delete(&uri)?;
        let _ = std::fs::remove_file(self.cached(table, file));
        Ok(())
    }

    fn remove_table(&self, table: &str) -> io::Result<()> {
        check_name(table, "folder")?;
        let folder = self.root.child(table);
        for entry in self.stores.list(&folder)? {
            self.stores.delete(&folder.child(&entry.name))?;
        }
        match std::fs::remove_dir_all(self.local.join("cache").join(table)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    fn tables(&self) -> io::Result<Vec<String>> {
        let mut out: Vec<String> = self
            .stores
            .folders(&self.root)?
            .into_iter()
            .filter(|n| !n.starts_with('.') && n != DELETED_SEGMENTS)
            .collect();
        out.sort();
        Ok(out)
    }

    fn files(&self, table: &str) -> io::Result<Vec<(String, SystemTime)>> {
        check_name(table, "folder")?;
        let mut out: Vec<(String, SystemTime)> = self
            .stores
            .list(&self.root.child(table))?
            .into_iter()
            .map(|e| (e.name, e.written))
            .collect();
        out.sort();
        Ok(out)
    }

    fn retire(&self, table: &str, file: &str) -> io::Result<()> {
        let from = self.object(table, file)?;
        let to = self
            .root
            .child(DELETED_SEGMENTS)
            .child(raw_of(table))
            .child(file);
        // A copy is written now: its listing time is the deletion's.
        self.stores.copy(&from, &to)?;
        self.remove(table, file)
    }

    fn retired_tables(&self) -> io::Result<Vec<String>> {
        let mut out = self.stores.folders(&self.root.child(DELETED_SEGMENTS))?;
        out.sort();
        Ok(out)
    }

    fn retired(&self, raw: &str) -> io::Result<Vec<(String, SystemTime)>> {
        check_name(raw, "folder")?;
        let folder = self.root.child(DELETED_SEGMENTS).child(raw);
        let mut out: Vec<(String, SystemTime)> = self
            .stores
            .list(&folder)?
            .into_iter()
            .map(|e| (e.name, e.written))
            .collect();
        out.sort();
        Ok(out)
    }

    fn purge(&self, raw: &str, file: &str) -> io::Result<()> {
        check_name(raw, "folder")?;
        check_name(file, "archive")?;
        let uri = self.root.child(DELETED_SEGMENTS).child(raw).child(file);
        Ok(self.stores.delete(&uri)?)
    }

    fn scratch(&self, id: &str) -> PathBuf {
        self.local.join(".tmp").join(id)
    }

    fn describe(&self) -> String {
        self.root.to_string()
    }

    fn uri(&self, table: &str, file: &str) -> String {
        self.root.child(table).child(file).to_string()
    }

    fn direct_uri(&self, table: &str, file: &str) -> Option<String> {
        Some(self.uri(table, file))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_store_uris() {
        assert_eq!(
            DeepStoreUri::parse("file:///data/deep"),
            Ok(DeepStoreUri::Dir("/data/deep".into()))
        );
        assert_eq!(
            DeepStoreUri::parse("rel/dir"),
            Ok(DeepStoreUri::Dir("rel/dir".into()))
        );
        assert_eq!(
            DeepStoreUri::parse("s3://b/p"),
            Ok(DeepStoreUri::Object(ObjectUri::parse("s3://b/p").unwrap()))
        );
        for bad in ["", "file://rel", "ftp://h/x", "s3://"] {
            assert!(DeepStoreUri::parse(bad).is_err(), "{bad}");
        }
    }

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

    #[test]
    fn a_retired_archive_waits_in_the_deleted_area_stamped_with_its_deletion() {
        let dir = tempfile::tempdir().unwrap();
        let store = DirDeepStore::new(dir.path().join("deep"));
        let file = dir.path().join("a.tar.gz");
        std::fs::write(&file, b"archive").unwrap();
        store.put("t_REALTIME", "s.1.tar.gz", &file).unwrap();
        // Written long ago: the area counts from the deletion, not from the upload.
        let old = SystemTime::now() - std::time::Duration::from_secs(30 * 86_400);
        std::fs::File::options()
            .write(true)
            .open(store.local_path("t_REALTIME", "s.1.tar.gz").unwrap())
            .unwrap()
            .set_modified(old)
            .unwrap();
        let before = SystemTime::now() - std::time::Duration::from_secs(1);
        store.retire("t_REALTIME", "s.1.tar.gz").unwrap();
        assert!(store.files("t_REALTIME").unwrap().is_empty());
        // The area is not a table: the start-up sweep never mistakes it for one.
        assert_eq!(store.tables().unwrap(), ["t_REALTIME"]);
        assert_eq!(store.retired_tables().unwrap(), ["t"]);
        let retired = store.retired("t").unwrap();
        assert_eq!(retired.len(), 1);
        assert_eq!(retired[0].0, "s.1.tar.gz");
        assert!(retired[0].1 >= before, "{:?}", retired[0].1);
        assert!(store.purge("t", "../x").is_err());
        store.purge("t", "s.1.tar.gz").unwrap();
        assert!(store.retired("t").unwrap().is_empty());
        assert!(store.retired_tables().unwrap().is_empty());
    }
}
