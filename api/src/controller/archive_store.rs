//! Segment archives once committed: where servers fetch one ([`download_url`]), reading one back
//! — the deep store's copy, or a metadata push's archive at its URI; a read that races a refresh
//! follows the segment to its new archive ([`read_archive`]) —, fetching the archive a URI push
//! names ([`fetch_uri`]), and removing one ([`remove_archive`]).

use super::Controller;
use super::error::ControllerError;
use crate::common::location::{LOCATION_FORMS, Location};
use crate::metadata::records::SegmentRecord;

/// Where a segment's archive is fetched from (Pinot's `segment.download.url`): the URI a
/// metadata push named, else the archive's URI in the deep store (servers fetch it through any
/// live controller, which reads it there).
pub fn download_url(c: &Controller, r: &SegmentRecord) -> Option<String> {
    match (&r.download_uri, r.archive.is_empty()) {
        (Some(u), _) => Some(u.clone()),
        (None, false) => Some(c.deep.uri(&r.table_name_with_type, &r.archive)),
        (None, true) => None,
    }
}

/// The bytes at `uri` (`file:///path` on the controller's machine, `http://…` or an object
/// URI such as `s3://bucket/key`), at most `limit` of them.
pub(crate) async fn fetch_uri(
    c: &Controller,
    uri: &str,
    limit: u64,
) -> Result<Vec<u8>, ControllerError> {
    let failed = |why: String| {
        ControllerError::invalid(format!("Failed to fetch segment from '{uri}': {why}"))
    };
    Location::parse(uri)
        .ok_or_else(|| failed(format!("use {LOCATION_FORMS}")))?
        .read(limit, &c.config.cloud)
        .await
        .map_err(failed)
}

/// How many times a read follows a segment whose archive was replaced while it was being read.
const ARCHIVE_READ_ATTEMPTS: usize = 3;

/// The archive of the segment `record` names, with the record it belongs to: from the
/// controller's deep store, or from the URI a metadata push left it at. A refresh or reload that
/// commits between reading `record` and reading its file removes the file the record names; the
/// segment is then read again, as it is now, so the caller gets the new archive and its record
/// (never a 404 for a segment that exists).
pub async fn read_archive(
    c: &Controller,
    record: SegmentRecord,
) -> Result<(SegmentRecord, Vec<u8>), ControllerError> {
    follow_archive(
        c,
        record,
        |r| async move { read_named_archive(c, &r).await },
    )
    .await
}

/// The archive of the segment `record` names as a response body, with the record it belongs to
/// (see [`read_archive`]). A deep-store file is streamed, not read whole: once open, a refresh
/// that removes it does not cut the download short.
pub async fn archive_body(
    c: &Controller,
    record: SegmentRecord,
) -> Result<(SegmentRecord, tide::Body), ControllerError> {
    follow_archive(c, record, |r| async move {
        if r.download_uri.is_some() {
            return read_named_archive(c, &r).await.map(tide::Body::from_bytes);
        }
        let path = local_archive_path(c, &r)?;
        tide::Body::from_file(&path)
            .await
            .map_err(|e| missing_local_archive(c, &r, e))
    })
    .await
}

/// Runs `read` on `record`'s archive; when that fails and the segment's record now names another
/// archive, runs it again on the new record (at most [`ARCHIVE_READ_ATTEMPTS`] times in all).
async fn follow_archive<T, F, Fut>(
    c: &Controller,
    mut record: SegmentRecord,
    read: F,
) -> Result<(SegmentRecord, T), ControllerError>
where
    F: Fn(SegmentRecord) -> Fut,
    Fut: std::future::Future<Output = Result<T, ControllerError>>,
{
    let mut attempt = 1;
    loop {
        let failure = match read(record.clone()).await {
            Ok(value) => return Ok((record, value)),
            Err(e) => e,
        };
        let now = c.segment(&record.table_name_with_type, &record.segment_name)?;
        match now {
            Some(now)
                if attempt < ARCHIVE_READ_ATTEMPTS
                    && (now.archive != record.archive
                        || now.download_uri != record.download_uri) =>
            {
                record = now;
                attempt += 1;
            }
            _ => return Err(failure),
        }
    }
}

/// The archive `record` names, as named: a 404 when it is not there.
async fn read_named_archive(
    c: &Controller,
    record: &SegmentRecord,
) -> Result<Vec<u8>, ControllerError> {
    if let Some(uri) = &record.download_uri {
        let location = Location::parse(uri)
            .ok_or_else(|| ControllerError::internal(format!("unreadable download URI '{uri}'")))?;
        return location
            .read(u64::MAX / 2, &c.config.cloud)
            .await
            .map_err(|why| {
                ControllerError::missing(format!("Segment archive '{uri}' is missing: {why}"))
            });
    }
    async_std::fs::read(local_archive_path(c, record)?)
        .await
        .map_err(|e| missing_local_archive(c, record, e))
}

/// Where the controller's deep store keeps `record`'s archive.
fn local_archive_path(
    c: &Controller,
    record: &SegmentRecord,
) -> Result<std::path::PathBuf, ControllerError> {
    c.deep
        .local_path(&record.table_name_with_type, &record.archive)
        .map_err(|e| ControllerError::missing(format!("Segment archive is missing: {e}")))
}

fn missing_local_archive(
    c: &Controller,
    record: &SegmentRecord,
    e: std::io::Error,
) -> ControllerError {
    let path = local_archive_path(c, record)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| record.archive.clone());
    ControllerError::missing(format!("Segment archive '{path}' is missing: {e}"))
}

pub fn remove_archive(c: &Controller, table: &str, file: &str) {
    if file.is_empty() {
        // A metadata-pushed segment: its archive is the pusher's, in its deep store.
        return;
    }
    if let Err(e) = c.deep.remove(table, file) {
        log::warn!(
            "cannot remove old archive '{file}' of {table} from the deep store at {}: {e}",
            c.deep.describe()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::ControllerConfig;
    use crate::controller::catalog::encode;
    use crate::metadata::redb_store::RedbStore;
    use crate::metadata::{Op, keys};
    use std::sync::Arc;
    use std::time::Duration;

    const TABLE: &str = "t_OFFLINE";

    fn controller(dir: &std::path::Path) -> Controller {
        let config = ControllerConfig {
            data_dir: dir.to_path_buf(),
            instance_id: "Controller_test".into(),
            heartbeat_timeout: Duration::from_secs(10),
            max_upload_bytes: 1 << 20,
            auth: None,
            cloud: Arc::new(crate::cloud::ObjectStores::new(Vec::new())),
        };
        let store = Arc::new(RedbStore::open(&dir.join("metadata.redb")).unwrap());
        let deep = Arc::new(super::super::deep_store::DirDeepStore::new(
            dir.join("deepstore"),
        ));
        Controller::new(
            config,
            store,
            crate::logging::init_for_tests().unwrap(),
            deep,
        )
    }

    /// Stores `bytes` as the archive `file` of segment `s` and records it, removing the archive
    /// the segment had before — what a refresh's commit does.
    fn commit(c: &Controller, file: &str, bytes: &[u8]) -> SegmentRecord {
        let staged = c.config.data_dir.join("staged");
        std::fs::write(&staged, bytes).unwrap();
        c.deep.put(TABLE, file, &staged).unwrap();
        let old = c.segment(TABLE, "s").unwrap();
        let record = SegmentRecord {
            statistics: None,
            segment_name: "s".into(),
            table_name_with_type: TABLE.into(),
            crc: crc32fast::hash(bytes),
            size_bytes: bytes.len() as u64,
            data_bytes: 0,
            total_docs: 1,
            push_time_ms: 0,
            refresh_time_ms: None,
            archive: file.into(),
            download_uri: None,
            servers: vec![],
            reload_version: 0,
            start_time_ms: None,
            end_time_ms: None,
            custom: Default::default(),
            tier_tag: None,
            incarnation: 1,
            stream: None,
        };
        c.commit(vec![Op::Put(keys::segment(TABLE, "s"), encode(&record))])
            .unwrap();
        if let Some(old) = old {
            remove_archive(c, TABLE, &old.archive);
        }
        record
    }

    #[test]
    fn a_record_read_before_a_refresh_reads_the_refreshed_archive() {
        let dir = tempfile::tempdir().unwrap();
        let c = controller(dir.path());
        let first = commit(&c, "s.1.tar.gz", b"first");
        assert_eq!(
            async_std::task::block_on(read_archive(&c, first.clone())).unwrap(),
            (first.clone(), b"first".to_vec())
        );
        // A refresh commits between the caller's read of the record and its read of the file.
        let second = commit(&c, "s.2.tar.gz", b"second");
        let (record, bytes) = async_std::task::block_on(read_archive(&c, first.clone())).unwrap();
        assert_eq!((record, bytes), (second.clone(), b"second".to_vec()));
        // An archive missing while the record still names it is missing (a 404), not a loop.
        std::fs::remove_file(c.deep.local_path(TABLE, "s.2.tar.gz").unwrap()).unwrap();
        let e = async_std::task::block_on(read_archive(&c, first)).unwrap_err();
        assert!(matches!(e, ControllerError::Missing(_)), "{e:?}");
        assert!(e.message().contains("s.2.tar.gz"), "{e}");
        // A deleted segment: the stale record's archive is gone and so is the segment.
        c.commit(vec![Op::Delete(keys::segment(TABLE, "s"))])
            .unwrap();
        let e = async_std::task::block_on(read_archive(&c, second)).unwrap_err();
        assert!(matches!(e, ControllerError::Missing(_)), "{e:?}");
    }
}
