//! [`Location`]: where a file a user names by URI lives — on this machine (`file:///path` or an
//! absolute path) or behind an `http://` URL — and reading it with a size bound.
//!
//! One reader for every place Tessera takes a URI: `/ingestFromURI`'s `sourceURIStr`, a URI or
//! metadata push's `DOWNLOAD_URI`, and servers fetching a metadata-pushed segment from the deep
//! store it names rather than from the controller.

use crate::http::on_rayon;
use std::path::PathBuf;

/// A parsed file URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A path on this machine.
    Local(PathBuf),
    /// An `http://` URL.
    Http(String),
}

impl Location {
    /// `file:///path`, `/path` or `http://…`; `None` for anything else.
    pub fn parse(uri: &str) -> Option<Location> {
        if let Some(path) = uri.strip_prefix("file://") {
            return path
                .starts_with('/')
                .then(|| Location::Local(PathBuf::from(path)));
        }
        if uri.starts_with('/') {
            return Some(Location::Local(PathBuf::from(uri)));
        }
        uri.starts_with("http://")
            .then(|| Location::Http(uri.to_string()))
    }

    /// The file's bytes, at most `limit` of them; otherwise why not.
    pub async fn read(&self, limit: u64) -> Result<Vec<u8>, String> {
        match self {
            Location::Http(url) => crate::http::client::get_bounded(url, limit).await,
            Location::Local(path) => {
                let path = path.clone();
                // One byte past the limit tells a file that is too large, however it changes.
                let bytes = on_rayon(move || -> std::io::Result<Vec<u8>> {
                    let mut bytes = Vec::new();
                    std::io::Read::read_to_end(
                        &mut std::io::Read::take(std::fs::File::open(&path)?, limit + 1),
                        &mut bytes,
                    )?;
                    Ok(bytes)
                })
                .await?
                .map_err(|e| e.to_string())?;
                if bytes.len() as u64 > limit {
                    return Err(format!("larger than the upload limit of {limit} bytes"));
                }
                Ok(bytes)
            }
        }
    }

    /// Whether the file can be found: a local file exists, an HTTP URL answers a HEAD with 2xx.
    pub async fn check(&self) -> Result<(), String> {
        match self {
            Location::Local(path) => match async_std::fs::metadata(path).await {
                Ok(m) if m.is_file() => Ok(()),
                Ok(_) => Err("not a file".into()),
                Err(e) => Err(e.to_string()),
            },
            Location::Http(url) => {
                let res = crate::http::client::http_client()
                    .head(url)
                    .await
                    .map_err(|e| e.to_string())?;
                if res.status().is_success() {
                    Ok(())
                } else {
                    Err(format!("HTTP {}", res.status() as u16))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_uris_users_write() {
        assert_eq!(
            Location::parse("file:///data/a.tar.gz"),
            Some(Location::Local("/data/a.tar.gz".into()))
        );
        assert_eq!(
            Location::parse("/data/a.csv"),
            Some(Location::Local("/data/a.csv".into()))
        );
        assert_eq!(
            Location::parse("http://h:9/a"),
            Some(Location::Http("http://h:9/a".into()))
        );
        for bad in ["s3://bucket/a", "file://relative/a", "data/a.csv", ""] {
            assert_eq!(Location::parse(bad), None, "{bad}");
        }
    }

    #[async_std::test]
    async fn reads_a_local_file_within_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        let loc = Location::Local(path);
        assert_eq!(loc.read(5).await.unwrap(), b"12345");
        assert!(loc.read(4).await.unwrap_err().contains("upload limit"));
        assert!(loc.check().await.is_ok());
        let missing = Location::Local(dir.path().join("nope"));
        assert!(missing.read(5).await.is_err());
        assert!(missing.check().await.is_err());
        assert!(
            Location::Local(dir.path().to_path_buf())
                .check()
                .await
                .is_err()
        );
    }
}
