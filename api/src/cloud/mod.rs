//! Object storage — S3 (and S3-compatible servers), Google Cloud Storage, Azure Blob — through
//! Apache Arrow's `object_store` crate: the deep store when `--deep-store` names a bucket
//! ([`crate::controller::deep_store::ObjectDeepStore`]), and every URI a user gives that names
//! an object (`s3://bucket/key` in a URI or metadata push, a segment's download URL that servers
//! read directly).
//!
//! [`ObjectUri`] is such a URI; [`ObjectStores`] makes one client per bucket from the options
//! the cloud SDKs read (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`,
//! `AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, `GOOGLE_*`, `AZURE_*`; [`ObjectStores::from_env`]) and
//! runs every call on this module's own tokio runtime, so callers on async-std tasks await it and
//! callers on blocking threads block on it. Archives stream in multipart uploads and streamed
//! downloads ([`PART_BYTES`] at a time): a whole archive is never held in memory here.

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, WriteMultipart};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// Bytes per part of a multipart upload, and per read of a file being uploaded.
pub const PART_BYTES: usize = 8 << 20;

/// Parts of one upload in flight at once.
const PARTS_IN_FLIGHT: usize = 2;

/// `scheme://bucket/key`: an object (or, with a key ending in `/` or empty, a prefix) in a
/// bucket of an object store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ObjectUri {
    /// `s3`, `gs` or `az` (aliases `s3a`, `gcs`, `abfs`, `abfss`, `azure` are read as these).
    pub scheme: String,
    pub bucket: String,
    /// The key, without a leading `/`.
    pub key: String,
}

/// Why an object-store call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CloudError {
    /// No such object (or, `why` says, no such bucket).
    #[error("{uri}: {why}")]
    NotFound { uri: String, why: String },
    #[error("{uri}: access denied: {why}")]
    Denied { uri: String, why: String },
    #[error("{uri}: {why}")]
    Failed { uri: String, why: String },
    #[error("{uri}: larger than the limit of {limit} bytes")]
    TooLarge { uri: String, limit: u64 },
}

impl CloudError {
    fn from_store(uri: &ObjectUri, e: object_store::Error) -> CloudError {
        let uri = uri.to_string();
        // S3's errors carry its XML body: say its code and message (`NoSuchBucket: …`).
        let text = e.to_string();
        let tag = |t: &str| {
            let open = format!("<{t}>");
            let from = text.find(&open)? + open.len();
            let len = text[from..].find(&format!("</{t}>"))?;
            Some(text[from..from + len].to_string())
        };
        let said = match (tag("Code"), tag("Message")) {
            (Some(code), Some(message)) => Some(format!("{code}: {message}")),
            _ => None,
        };
        match e {
            object_store::Error::NotFound { .. } => CloudError::NotFound {
                uri,
                why: said.unwrap_or_else(|| "no such object".into()),
            },
            object_store::Error::PermissionDenied { source, .. }
            | object_store::Error::Unauthenticated { source, .. } => CloudError::Denied {
                uri,
                why: said.unwrap_or_else(|| source.to_string()),
            },
            // Refused credentials also arrive as generic errors with the HTTP status.
            _ if text.contains("403 Forbidden") || text.contains("401 Unauthorized") => {
                CloudError::Denied {
                    uri,
                    why: said.unwrap_or(text),
                }
            }
            _ => CloudError::Failed {
                uri,
                why: said.unwrap_or(text),
            },
        }
    }

    fn io(uri: &ObjectUri, e: std::io::Error) -> CloudError {
        CloudError::Failed {
            uri: uri.to_string(),
            why: e.to_string(),
        }
    }
}

impl From<CloudError> for std::io::Error {
    fn from(e: CloudError) -> std::io::Error {
        let kind = match e {
            CloudError::NotFound { .. } => std::io::ErrorKind::NotFound,
            CloudError::Denied { .. } => std::io::ErrorKind::PermissionDenied,
            _ => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e.to_string())
    }
}

impl ObjectUri {
    /// `s3://bucket/key` (also `s3a://`), `gs://` (`gcs://`), `az://` (`azure://`, `abfs://`,
    /// `abfss://`); `None` for anything else or without a bucket.
    pub fn parse(uri: &str) -> Option<ObjectUri> {
        let (scheme, rest) = uri.split_once("://")?;
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "s3" | "s3a" => "s3",
            "gs" | "gcs" => "gs",
            "az" | "azure" | "abfs" | "abfss" => "az",
            _ => return None,
        };
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() || key.split('/').any(|p| p == "." || p == "..") {
            return None;
        }
        Some(ObjectUri {
            scheme: scheme.to_string(),
            bucket: bucket.to_string(),
            key: key.to_string(),
        })
    }

    /// `self/name`: an object (or prefix) below this prefix.
    pub fn child(&self, name: &str) -> ObjectUri {
        let key = self.key.trim_end_matches('/');
        ObjectUri {
            key: if key.is_empty() {
                name.to_string()
            } else {
                format!("{key}/{name}")
            },
            ..self.clone()
        }
    }

    fn path(&self) -> ObjectPath {
        ObjectPath::from(self.key.trim_matches('/'))
    }

    /// The store this URI's bucket lives in, as a URL `object_store` parses.
    fn bucket_url(&self) -> String {
        format!("{}://{}", self.scheme, self.bucket)
    }
}

impl std::fmt::Display for ObjectUri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://{}/{}", self.scheme, self.bucket, self.key)
    }
}

/// One listed object: its name below the listed prefix, when it was written, its size.
#[derive(Clone, Debug)]
pub struct ObjectEntry {
    pub name: String,
    pub written: SystemTime,
    pub size: u64,
}

/// The runtime every object-store call runs on (reqwest needs tokio's reactor; the HTTP edge
/// runs on async-std).
fn runtime() -> Result<&'static tokio::runtime::Runtime, String> {
    static RUNTIME: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("tessera-cloud")
                .enable_all()
                .build()
                .ok()
        })
        .as_ref()
        .ok_or_else(|| "cannot start the object-store runtime".to_string())
}

/// Clients of object stores, one per bucket, made from one set of options.
pub struct ObjectStores {
    /// `object_store` configuration keys (`aws_endpoint`, `aws_allow_http`, …) and values.
    options: Vec<(String, String)>,
    clients: Mutex<HashMap<String, Arc<dyn ObjectStore>>>,
}

impl std::fmt::Debug for ObjectStores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Options hold secrets: only their names are shown.
        let keys: Vec<&str> = self.options.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ObjectStores")
            .field("options", &keys)
            .finish()
    }
}

/// `object_store` options from Pinot's S3 file-system configs (`region`, `endpoint`,
/// `accessKey`, `secretKey`, as `S3PinotFS` reads them under `pinot.<role>.storage.factory.s3.`
/// or in a job spec's `pinotFSSpecs`); other keys are not S3's and are skipped. A plain-HTTP
/// endpoint (a test server) is allowed.
pub fn s3_options<'a>(
    configs: impl IntoIterator<Item = (&'a str, String)>,
) -> Vec<(String, String)> {
    let mut options = Vec::new();
    for (key, value) in configs {
        let name = match key {
            "region" => "aws_region",
            "endpoint" => {
                if value.starts_with("http://") {
                    options.push(("aws_allow_http".to_string(), "true".to_string()));
                }
                "aws_endpoint"
            }
            "accessKey" => "aws_access_key_id",
            "secretKey" => "aws_secret_access_key",
            _ => continue,
        };
        options.push((name.to_string(), value));
    }
    options
}

/// What a Pinot properties file (a controller's or server's config) says about the deep store:
/// `controller.data.dir` (`s3://bucket/prefix` or a directory) and the S3 options of every
/// role's `pinot.<role>.storage.factory.s3.*` keys.
pub fn from_pinot_properties(
    props: &std::collections::BTreeMap<String, String>,
) -> (Option<String>, Vec<(String, String)>) {
    let data_dir = props.get("controller.data.dir").cloned();
    let mut configs = Vec::new();
    for role in ["controller", "server", "minion"] {
        let prefix = format!("pinot.{role}.storage.factory.s3.");
        for (k, v) in props {
            if let Some(key) = k.strip_prefix(&prefix) {
                configs.push((key, v.clone()));
            }
        }
    }
    (data_dir, s3_options(configs))
}

/// Prefixes of the environment variables the cloud SDKs (and `object_store`) read.
const ENV_PREFIXES: [&str; 4] = ["AWS_", "GOOGLE_", "AZURE_", "OBJECT_STORE_"];

impl ObjectStores {
    /// Clients configured by `options` (`object_store`'s configuration keys, any case).
    pub fn new(options: Vec<(String, String)>) -> ObjectStores {
        ObjectStores {
            options: options
                .into_iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v))
                .collect(),
            clients: Mutex::default(),
        }
    }

    /// Clients configured by this process's `AWS_*`, `GOOGLE_*` and `AZURE_*` variables.
    pub fn from_env() -> ObjectStores {
        ObjectStores::new(
            std::env::vars()
                .filter(|(k, _)| ENV_PREFIXES.iter().any(|p| k.starts_with(p)))
                .collect(),
        )
    }

    /// Adds options (later ones win), e.g. Pinot's `storage.factory.s3.*` properties mapped to
    /// `object_store` keys.
    pub fn with_options(mut self, options: Vec<(String, String)>) -> ObjectStores {
        for (k, v) in options {
            let k = k.to_ascii_lowercase();
            self.options.retain(|(o, _)| *o != k);
            self.options.push((k, v));
        }
        self
    }

    /// The options, as `object_store` configuration keys (lower case) and values.
    pub fn options(&self) -> &[(String, String)] {
        &self.options
    }

    fn client(&self, uri: &ObjectUri) -> Result<Arc<dyn ObjectStore>, CloudError> {
        let bucket = uri.bucket_url();
        let mut clients = self.clients.lock().map_err(|_| CloudError::Failed {
            uri: uri.to_string(),
            why: "client cache poisoned".into(),
        })?;
        if let Some(c) = clients.get(&bucket) {
            return Ok(c.clone());
        }
        let client = build_client(&uri.scheme, &bucket, &self.options)
            .map_err(|e| CloudError::from_store(uri, e))?;
        clients.insert(bucket, client.clone());
        Ok(client)
    }

    /// The object-store runtime, or why there is none (for `uri`'s error).
    fn runtime_for(uri: &ObjectUri) -> Result<&'static tokio::runtime::Runtime, CloudError> {
        runtime().map_err(|why| CloudError::Failed {
            uri: uri.to_string(),
            why,
        })
    }

    /// The result of a spawned call (a panic in it becomes an error).
    fn joined<T>(
        uri: &ObjectUri,
        r: Result<Result<T, CloudError>, tokio::task::JoinError>,
    ) -> Result<T, CloudError> {
        r.map_err(|e| CloudError::Failed {
            uri: uri.to_string(),
            why: e.to_string(),
        })?
    }

    /// Runs `work` on the object-store runtime and waits for it (a blocking call: never from a
    /// task of that runtime).
    fn block<T: Send + 'static>(
        &self,
        uri: &ObjectUri,
        work: impl std::future::Future<Output = Result<T, CloudError>> + Send + 'static,
    ) -> Result<T, CloudError> {
        let rt = Self::runtime_for(uri)?;
        Self::joined(uri, rt.block_on(rt.spawn(work)))
    }

    /// Runs `work` on the object-store runtime; the future resolves on any executor.
    async fn run<T: Send + 'static>(
        &self,
        uri: &ObjectUri,
        work: impl std::future::Future<Output = Result<T, CloudError>> + Send + 'static,
    ) -> Result<T, CloudError> {
        Self::joined(uri, Self::runtime_for(uri)?.spawn(work).await)
    }

    /// Uploads the file `from` as `uri` in parts; the object exists only once every part is
    /// in (a failure or a kill before that leaves nothing readable). Returns the bytes sent.
    pub fn put_file(&self, uri: &ObjectUri, from: &Path) -> Result<u64, CloudError> {
        let client = self.client(uri)?;
        let (u, from) = (uri.clone(), from.to_path_buf());
        self.block(uri, async move {
            let mut file = std::fs::File::open(&from).map_err(|e| CloudError::io(&u, e))?;
            let upload = client
                .put_multipart(&u.path())
                .await
                .map_err(|e| CloudError::from_store(&u, e))?;
            let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_BYTES);
            let mut buf = vec![0u8; PART_BYTES];
            let mut sent = 0u64;
            loop {
                let n = match file.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) => {
                        let _ = writer.abort().await;
                        return Err(CloudError::io(&u, e));
                    }
                };
                if let Err(e) = writer.wait_for_capacity(PARTS_IN_FLIGHT).await {
                    return Err(CloudError::from_store(&u, e));
                }
                writer.write(&buf[..n]);
                sent += n as u64;
            }
            writer
                .finish()
                .await
                .map_err(|e| CloudError::from_store(&u, e))?;
            Ok(sent)
        })
    }

    /// Downloads `uri` into the file `to` (written beside it, then renamed into place: a reader
    /// of `to` finds all of it or nothing); at most `limit` bytes. Returns the bytes read.
    pub fn get_to_file(&self, uri: &ObjectUri, to: &Path, limit: u64) -> Result<u64, CloudError> {
        let client = self.client(uri)?;
        let (u, to) = (uri.clone(), to.to_path_buf());
        self.block(uri, async move {
            use futures_util::StreamExt;
            let partial = partial_path(&to);
            let result = async {
                let mut stream = client
                    .get(&u.path())
                    .await
                    .map_err(|e| CloudError::from_store(&u, e))?
                    .into_stream();
                let mut file =
                    std::fs::File::create(&partial).map_err(|e| CloudError::io(&u, e))?;
                let mut got = 0u64;
                while let Some(chunk) = stream.next().await {
                    let chunk = chunk.map_err(|e| CloudError::from_store(&u, e))?;
                    got += chunk.len() as u64;
                    if got > limit {
                        return Err(CloudError::TooLarge {
                            uri: u.to_string(),
                            limit,
                        });
                    }
                    file.write_all(&chunk).map_err(|e| CloudError::io(&u, e))?;
                }
                file.sync_all().map_err(|e| CloudError::io(&u, e))?;
                std::fs::rename(&partial, &to).map_err(|e| CloudError::io(&u, e))?;
                Ok(got)
            }
            .await;
            if result.is_err() {
                let _ = std::fs::remove_file(&partial);
            }
            result
        })
    }

    /// The object's bytes, at most `limit` of them (for callers that need them in memory).
    pub async fn read(&self, uri: &ObjectUri, limit: u64) -> Result<Vec<u8>, CloudError> {
        let client = self.client(uri)?;
        let u = uri.clone();
        self.run(uri, async move {
            use futures_util::StreamExt;
            let mut stream = client
                .get(&u.path())
                .await
                .map_err(|e| CloudError::from_store(&u, e))?
                .into_stream();
            let mut out = Vec::new();
            while let Some(chunk) = stream.next().await {
                let chunk = chunk.map_err(|e| CloudError::from_store(&u, e))?;
                if (out.len() + chunk.len()) as u64 > limit {
                    return Err(CloudError::TooLarge {
                        uri: u.to_string(),
                        limit,
                    });
                }
                out.extend_from_slice(&chunk);
            }
            Ok(out)
        })
        .await
    }

    /// The object's size; `NotFound` when there is none.
    pub async fn size(&self, uri: &ObjectUri) -> Result<u64, CloudError> {
        let client = self.client(uri)?;
        let u = uri.clone();
        self.run(uri, async move {
            client
                .head(&u.path())
                .await
                .map(|m| m.size)
                .map_err(|e| CloudError::from_store(&u, e))
        })
        .await
    }

    /// Copies the object `from` to `to` in the same bucket (within the store, no bytes pass
    /// through here); the copy is written now, so its listing time is the copy's.
    pub fn copy(&self, from: &ObjectUri, to: &ObjectUri) -> Result<(), CloudError> {
        let client = self.client(from)?;
        let (f, t) = (from.clone(), to.clone());
        self.block(from, async move {
            client
                .copy(&f.path(), &t.path())
                .await
                .map_err(|e| CloudError::from_store(&f, e))
        })
    }

    /// Removes the object (one that is not there is not an error).
    pub fn delete(&self, uri: &ObjectUri) -> Result<(), CloudError> {
        let client = self.client(uri)?;
        let u = uri.clone();
        self.block(uri, async move {
            match client.delete(&u.path()).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(CloudError::from_store(&u, e)),
            }
        })
    }

    /// The objects directly below the prefix `uri` (not in its sub-prefixes).
    pub fn list(&self, uri: &ObjectUri) -> Result<Vec<ObjectEntry>, CloudError> {
        let (_, objects) = self.list_level(uri)?;
        Ok(objects)
    }

    /// Every object below the prefix `uri`, in its sub-prefixes too, named by its key relative
    /// to the prefix (`2024/a.csv`), in key order.
    pub fn list_all(&self, uri: &ObjectUri) -> Result<Vec<ObjectEntry>, CloudError> {
        let client = self.client(uri)?;
        let u = uri.clone();
        self.block(uri, async move {
            use futures_util::StreamExt;
            let prefix = u.path();
            let mut stream = client.list((!u.key.trim_matches('/').is_empty()).then_some(&prefix));
            let mut out = Vec::new();
            while let Some(meta) = stream.next().await {
                let meta = meta.map_err(|e| CloudError::from_store(&u, e))?;
                let Some(rest) = meta.location.prefix_match(&prefix) else {
                    continue;
                };
                let name = rest
                    .map(|p| p.as_ref().to_string())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push(ObjectEntry {
                    name,
                    written: SystemTime::from(meta.last_modified),
                    size: meta.size,
                });
            }
            out.sort_by(|a, b| a.name.cmp(&b.name));
            Ok(out)
        })
    }

    /// The names of the sub-prefixes ("folders") directly below the prefix `uri`.
    pub fn folders(&self, uri: &ObjectUri) -> Result<Vec<String>, CloudError> {
        Ok(self.list_level(uri)?.0)
    }

    fn list_level(&self, uri: &ObjectUri) -> Result<(Vec<String>, Vec<ObjectEntry>), CloudError> {
        let client = self.client(uri)?;
        let u = uri.clone();
        self.block(uri, async move {
            let prefix = u.path();
            let prefix = (!u.key.trim_matches('/').is_empty()).then_some(&prefix);
            let listed = client
                .list_with_delimiter(prefix)
                .await
                .map_err(|e| CloudError::from_store(&u, e))?;
            let folders = listed
                .common_prefixes
                .iter()
                .filter_map(|p| p.filename().map(str::to_string))
                .collect();
            let objects = listed
                .objects
                .into_iter()
                .filter_map(|m| {
                    Some(ObjectEntry {
                        name: m.location.filename()?.to_string(),
                        written: SystemTime::from(m.last_modified),
                        size: m.size,
                    })
                })
                .collect();
            Ok((folders, objects))
        })
    }

    /// Whether the bucket of `uri` can be listed with these options: a missing bucket or bad
    /// credentials are found here, at start, not on the first upload.
    pub fn check(&self, uri: &ObjectUri) -> Result<(), CloudError> {
        self.list_level(uri).map(|_| ())
    }
}

/// How long a call keeps retrying a store that does not answer (object_store's default is three
/// minutes; a start-up check or an upload should fail sooner and say why).
const RETRY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// A client of the bucket `url` (`s3://bucket`, …) with `options` (keys the store's builder
/// does not know are skipped: an S3 key means nothing to GCS).
fn build_client(
    scheme: &str,
    url: &str,
    options: &[(String, String)],
) -> Result<Arc<dyn ObjectStore>, object_store::Error> {
    let retry = object_store::RetryConfig {
        retry_timeout: RETRY_TIMEOUT,
        max_retries: 3,
        ..Default::default()
    };
    macro_rules! build {
        ($builder:ty) => {{
            let builder = options.iter().fold(
                <$builder>::new().with_url(url).with_retry(retry),
                |b, (k, v)| match k.parse() {
                    Ok(key) => b.with_config(key, v.clone()),
                    Err(_) => b,
                },
            );
            Arc::new(builder.build()?) as Arc<dyn ObjectStore>
        }};
    }
    Ok(match scheme {
        "s3" => build!(object_store::aws::AmazonS3Builder),
        "gs" => build!(object_store::gcp::GoogleCloudStorageBuilder),
        _ => build!(object_store::azure::MicrosoftAzureBuilder),
    })
}

/// `<to>.partial`, where a download is written before it is renamed into place.
fn partial_path(to: &Path) -> PathBuf {
    let mut name = to.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    to.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_object_uris() {
        let u = ObjectUri::parse("s3://bucket/a/b.tar.gz").unwrap();
        assert_eq!(
            (u.scheme.as_str(), u.bucket.as_str(), u.key.as_str()),
            ("s3", "bucket", "a/b.tar.gz")
        );
        assert_eq!(u.to_string(), "s3://bucket/a/b.tar.gz");
        assert_eq!(ObjectUri::parse("S3A://b").unwrap().to_string(), "s3://b/");
        assert_eq!(ObjectUri::parse("gcs://b/x").unwrap().scheme, "gs");
        assert_eq!(ObjectUri::parse("abfss://c/x").unwrap().scheme, "az");
        let root = ObjectUri::parse("s3://b/deep/").unwrap();
        assert_eq!(root.child("t").child("f").to_string(), "s3://b/deep/t/f");
        assert_eq!(
            ObjectUri::parse("s3://b").unwrap().child("t").to_string(),
            "s3://b/t"
        );
        for bad in [
            "s3://",
            "s3:///k",
            "http://h/x",
            "file:///x",
            "s3://b/../x",
            "b/k",
        ] {
            assert_eq!(ObjectUri::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn options_come_from_the_sdk_variables_and_keep_secrets_out_of_debug() {
        let s = ObjectStores::new(vec![("AWS_SECRET_ACCESS_KEY".into(), "hush".into())])
            .with_options(vec![("aws_region".into(), "eu".into())]);
        let shown = format!("{s:?}");
        assert!(shown.contains("aws_secret_access_key") && !shown.contains("hush"));
        assert_eq!(s.options.len(), 2);
    }

    #[test]
    fn pinot_properties_name_the_deep_store_and_its_s3_access() {
        let props = crate::common::properties::parse(
            "controller.data.dir=s3://bucket/pinot\n\
             pinot.controller.storage.factory.class.s3=org.apache.pinot.plugin.filesystem.S3PinotFS\n\
             pinot.controller.storage.factory.s3.region=eu-west-1\n\
             pinot.server.storage.factory.s3.endpoint=http://127.0.0.1:9000\n\
             pinot.controller.storage.factory.s3.accessKey=k\n\
             pinot.controller.storage.factory.s3.secretKey=s\n\
             pinot.controller.segment.fetcher.protocols=file,http,s3\n",
        );
        let (dir, mut options) = from_pinot_properties(&props);
        assert_eq!(dir.as_deref(), Some("s3://bucket/pinot"));
        options.sort();
        let keys: Vec<&str> = options.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "aws_access_key_id",
                "aws_allow_http",
                "aws_endpoint",
                "aws_region",
                "aws_secret_access_key"
            ]
        );
    }

    #[test]
    fn a_partial_download_sits_beside_its_file() {
        assert_eq!(
            partial_path(Path::new("/c/t/s.tar.gz")),
            PathBuf::from("/c/t/s.tar.gz.partial")
        );
    }
}
