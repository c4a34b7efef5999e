//! The deep store in object storage, against a real S3 server (moto, on 127.0.0.1), and the same
//! suite once against a `file://` directory: uploads land in the store (and only there), a
//! refresh replaces the object, URI and metadata pushes read archives from the store's URIs,
//! the segment's download URL is the object's URI, a server whose disk is wiped fills itself
//! from the store directly (the controller never reads the archive back), and deleting the table
//! removes its objects. A missing bucket and refused credentials stop the start with a clear
//! error.

mod support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::s3::S3;
use support::{call, lineitem_segment, post_json, upload_segment};
use tessera_api::cloud::{ObjectStores, ObjectUri};
use tessera_api::cluster::{self, Cluster, StartOptions};
use tessera_api::quickstart::lineitem;

const TABLE: &str = "lineitem_OFFLINE";

/// Where the suite's archives live, and how the test reads it without Tessera.
enum Store<'a> {
    S3 { s3: &'a S3, bucket: &'a str },
    Dir(PathBuf),
}

impl Store<'_> {
    fn deep_store_uri(&self) -> String {
        match self {
            Store::S3 { bucket, .. } => format!("s3://{bucket}/pinot"),
            Store::Dir(d) => format!("file://{}", d.join("deep").display()),
        }
    }

    fn cloud(&self) -> ObjectStores {
        match self {
            Store::S3 { s3, .. } => ObjectStores::new(s3.options()),
            Store::Dir(_) => ObjectStores::new(Vec::new()),
        }
    }

    /// The archive names of the table in the deep store.
    async fn archives(&self) -> Vec<String> {
        match self {
            Store::S3 { s3, bucket } => s3
                .keys(bucket, &format!("pinot/{TABLE}/"))
                .await
                .into_iter()
                .map(|k| k.rsplit('/').next().unwrap_or_default().to_string())
                .collect(),
            Store::Dir(d) => match std::fs::read_dir(d.join("deep").join(TABLE)) {
                Ok(entries) => entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect(),
                Err(_) => Vec::new(),
            },
        }
    }

    /// Puts an archive outside the deep store's folders, as a pusher would, and returns its URI.
    fn put_outside(&self, cloud: &ObjectStores, name: &str, bytes: &[u8], work: &Path) -> String {
        let file = work.join(format!("{name}.tar.gz"));
        std::fs::write(&file, bytes).unwrap();
        match self {
            Store::S3 { bucket, .. } => {
                let uri =
                    ObjectUri::parse(&format!("s3://{bucket}/incoming/{name}.tar.gz")).unwrap();
                cloud.put_file(&uri, &file).unwrap();
                uri.to_string()
            }
            Store::Dir(_) => format!("file://{}", file.display()),
        }
    }
}

async fn start(data: &Path, store: &Store<'_>) -> Result<Cluster, String> {
    let mut opts = StartOptions::ephemeral(data.to_path_buf());
    opts.deep_store = Some(store.deep_store_uri());
    opts.cloud = Arc::new(store.cloud());
    opts.instance_id = Some("Server_deep".into());
    opts.logging = Some(tessera_api::logging::init_for_tests().unwrap());
    cluster::start(opts).await.map_err(|e| e.to_string())
}

/// Creates the `lineitem` schema and a table of it with `config`.
async fn create_lineitem(ctl: &str, config: Value) {
    let (s, b) = post_json(&format!("{ctl}/schemas"), lineitem::schema()).await;
    assert_eq!(s, 200, "{b}");
    let (s, b) = post_json(&format!("{ctl}/tables"), config).await;
    assert_eq!(s, 200, "{b}");
}

async fn count(broker: &str) -> Value {
    let (_, b) = post_json(
        &format!("{broker}/query/sql"),
        json!({"sql": "SELECT COUNT(*) FROM lineitem"}),
    )
    .await;
    b["resultTable"]["rows"][0][0].clone()
}

async fn wait_count(broker: &str, want: u64) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = count(broker).await;
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "count {got}, want {want}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
}

async fn push(ctl: &str, kind: &str, uri: &str, body: Vec<u8>) -> (u16, String) {
    let mut res = surf::post(format!("{ctl}/v2/segments?tableName=lineitem"))
        .header("UPLOAD_TYPE", kind)
        .header("DOWNLOAD_URI", uri)
        .body(surf::Body::from_bytes(body))
        .await
        .unwrap();
    (res.status() as u16, res.body_string().await.unwrap())
}

async fn check_deep_store(store: Store<'_>) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    let cloud = store.cloud();
    let c = start(&data, &store).await.unwrap();
    let (ctl, broker) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
    );
    create_lineitem(&ctl, lineitem::table_config()).await;

    // An upload lands in the store; its download URL is the object's URI.
    let first = lineitem_segment(&work, "lineitem_0", 1000);
    let (s, b) = upload_segment(&ctl, "lineitem", "lineitem_0", &first).await;
    assert_eq!(s, 200, "{b}");
    wait_count(&broker, 1000).await;
    let archives = store.archives().await;
    assert_eq!(archives.len(), 1, "{archives:?}");
    let (_, zk) = call("GET", &format!("{ctl}/segments/{TABLE}/zkmetadata"), None).await;
    let url = zk["lineitem_0"]["segment.download.url"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        url.starts_with(&store.deep_store_uri()) && url.ends_with(&archives[0]),
        "{url} {archives:?}"
    );

    // A refresh replaces the object.
    let refreshed = lineitem_segment(&work.join("r"), "lineitem_0", 2000);
    let (s, b) = upload_segment(&ctl, "lineitem", "lineitem_0", &refreshed).await;
    assert_eq!(s, 200, "{b}");
    wait_count(&broker, 2000).await;
    let now = store.archives().await;
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now, archives);

    // URI push and metadata push read archives from the store's URIs.
    let pushed = lineitem_segment(&work, "lineitem_1", 500);
    let uri = store.put_outside(&cloud, "lineitem_1", &pushed, &work);
    let (s, b) = push(&ctl, "URI", &uri, Vec::new()).await;
    assert_eq!(s, 200, "{b}");
    wait_count(&broker, 2500).await;
    let meta_pushed = lineitem_segment(&work, "lineitem_2", 300);
    let uri = store.put_outside(&cloud, "lineitem_2", &meta_pushed, &work);
    let metadata = tessera_api::common::archive::metadata_archive(&meta_pushed).unwrap();
    let (s, b) = push(&ctl, "METADATA", &uri, metadata.clone()).await;
    assert_eq!(s, 200, "{b}");
    wait_count(&broker, 2800).await;
    // A push naming an object that is not there changes nothing.
    let gone = uri.replace("lineitem_2", "gone");
    let (s, b) = push(&ctl, "METADATA", &gone, metadata).await;
    assert_eq!(s, 400, "{b}");
    assert!(b.contains("Failed to find segment"), "{b}");
    c.stop().await;

    // A server whose disk is wiped fills itself again from the store. With object storage the
    // server reads the objects itself: the controller never downloads them.
    std::fs::remove_dir_all(data.join("server")).unwrap();
    let c = start(&data, &store).await.unwrap();
    let (ctl, broker) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
    );
    wait_count(&broker, 2800).await;
    let controller_cache = data.join("controller").join("cache");
    if matches!(store, Store::S3 { .. }) {
        assert!(
            !controller_cache.exists()
                || std::fs::read_dir(&controller_cache)
                    .unwrap()
                    .next()
                    .is_none(),
            "the controller read archives back"
        );
    }

    // Deleting the table removes its objects.
    let (s, b) = call(
        "DELETE",
        &format!("{ctl}/tables/lineitem?type=offline"),
        None,
    )
    .await;
    assert_eq!(s, 200, "{b}");
    assert!(
        store.archives().await.is_empty(),
        "{:?}",
        store.archives().await
    );
    c.stop().await;
}

#[async_std::test]
async fn the_deep_store_in_s3() {
    let Some(s3) = S3::start(false) else { return };
    s3.create_bucket("deep").await;
    check_deep_store(Store::S3 {
        s3: &s3,
        bucket: "deep",
    })
    .await;
}

#[async_std::test]
async fn the_deep_store_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    check_deep_store(Store::Dir(dir.path().to_path_buf())).await;
}

#[async_std::test]
async fn a_missing_bucket_or_refused_keys_stop_the_start() {
    let Some(s3) = S3::start(false) else { return };
    let dir = tempfile::tempdir().unwrap();
    let e = start(
        &dir.path().join("a"),
        &Store::S3 {
            s3: &s3,
            bucket: "nosuch",
        },
    )
    .await
    .err()
    .expect("a missing bucket is refused");
    assert!(
        e.contains("cannot reach the deep store s3://nosuch/pinot"),
        "{e}"
    );
    let Some(guarded) = S3::start(true) else {
        return;
    };
    let e = start(
        &dir.path().join("b"),
        &Store::S3 {
            s3: &guarded,
            bucket: "deep",
        },
    )
    .await
    .err()
    .expect("refused credentials are refused");
    assert!(
        e.contains("cannot reach the deep store") && e.contains("denied"),
        "{e}"
    );
}

const JOB: &str = r#"
executionFrameworkSpec:
  name: 'standalone'
jobType: ${jobType}
inputDirURI: 's3://lake/raw/'
includeFileNamePattern: 'glob:**/*.csv'
excludeFileNamePattern: 'glob:**/skip*'
searchRecursively: true
outputDirURI: 's3://lake/segments/'
overwriteOutput: true
pinotFSSpecs:
  - scheme: s3
    className: org.apache.pinot.plugin.filesystem.S3PinotFS
    configs:
      region: 'us-east-1'
      endpoint: '${endpoint}'
      accessKey: 'tessera'
      secretKey: 'tessera-secret'
recordReaderSpec:
  dataFormat: 'csv'
tableSpec:
  tableName: 'trips'
  schemaURI: '${controller}/tables/trips/schema'
  tableConfigURI: '${controller}/tables/trips'
pinotClusterSpecs:
  - controllerURI: '${controller}'
"#;

/// Pinot's batch path against object storage: a job spec whose input and output directories are
/// `s3://` prefixes (reached through its `pinotFSSpecs` configs) builds a segment per input
/// object, writes the archives to the output prefix and metadata-pushes them, so servers read
/// them from there; a push-only job lists the output prefix and pushes what it finds.
#[async_std::test]
async fn a_job_spec_reads_and_writes_object_storage() {
    let Some(s3) = S3::start(false) else { return };
    s3.create_bucket("deep").await;
    s3.create_bucket("lake").await;
    let dir = tempfile::tempdir().unwrap();
    let cloud = ObjectStores::new(s3.options());
    let csv = |i: i64| {
        format!(
            "city,fare,ts\nAustin,{i}.5,{}\nBoston,1,{}\n",
            1_704_067_200_000i64 + i,
            1_704_067_200_000i64 + 10 * i
        )
    };
    for (i, key) in [
        (1, "raw/a.csv"),
        (2, "raw/2024/b.csv"),
        (3, "raw/c.csv"),
        (100, "raw/skip_me.csv"),
    ] {
        let file = dir.path().join(format!("in{i}.csv"));
        std::fs::write(&file, csv(i)).unwrap();
        cloud
            .put_file(
                &ObjectUri::parse(&format!("s3://lake/{key}")).unwrap(),
                &file,
            )
            .unwrap();
    }
    let store = Store::S3 {
        s3: &s3,
        bucket: "deep",
    };
    let c = start(&dir.path().join("data"), &store).await.unwrap();
    let (ctl, broker) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
    );
    let schema = json!({"schemaName": "trips",
        "dimensionFieldSpecs": [{"name": "city", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "fare", "dataType": "DOUBLE"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]});
    assert_eq!(post_json(&format!("{ctl}/schemas"), schema).await.0, 200);
    let table = json!({"tableName": "trips", "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}});
    assert_eq!(post_json(&format!("{ctl}/tables"), table).await.0, 200);

    let run = |job: &str| {
        let values = vec![
            ("jobType".to_string(), job.to_string()),
            ("endpoint".to_string(), s3.endpoint.clone()),
            ("controller".to_string(), ctl.clone()),
        ];
        async_std::task::spawn_blocking(move || {
            let spec = tessera_api::ingest_job::JobSpec::parse(JOB, &values).unwrap();
            tessera_api::ingest_job::run(&spec, &|_| {}).map_err(|e| e.to_string())
        })
    };
    let summary = run("SegmentCreationAndMetadataPush").await.unwrap();
    assert_eq!(summary.built.len(), 3);
    let rows = |b: &Value| b["resultTable"]["rows"][0].clone();
    let sql = json!({"sql": "SELECT COUNT(*), SUM(fare) FROM trips"});
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, b) = post_json(&format!("{broker}/query/sql"), sql.clone()).await;
        if rows(&b) == json!([6, 10.5]) {
            break;
        }
        assert!(Instant::now() < deadline, "{b}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
    let outputs = s3.keys("lake", "segments/").await;
    assert_eq!(outputs.len(), 3, "{outputs:?}");
    let (_, zk) = call(
        "GET",
        &format!("{ctl}/segments/trips_OFFLINE/zkmetadata"),
        None,
    )
    .await;
    for (_, fields) in zk.as_object().expect("zk metadata") {
        let url = fields["segment.download.url"].as_str().unwrap_or_default();
        assert!(url.starts_with("s3://lake/segments/"), "{url}");
    }
    // The push-only job finds the same three archives in the output prefix.
    let summary = run("SegmentTarPush").await.unwrap();
    assert_eq!(summary.pushed.len(), 3);
    let (_, b) = post_json(&format!("{broker}/query/sql"), sql).await;
    assert_eq!(rows(&b), json!([6, 10.5]), "{b}");
    c.stop().await;
}

/// Figures, not a check (`cargo test --release -p tessera-api --test deep_store -- --ignored
/// --nocapture`): a 150 MB archive-sized file uploaded to and downloaded from the S3 test server
/// through `ObjectStores` (multipart up, streamed down), against a plain file copy, same run.
#[test]
#[ignore]
fn figures_s3_throughput_against_a_file_copy() {
    let Some(s3) = S3::start(false) else { return };
    async_std::task::block_on(s3.create_bucket("figures"));
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("segment.tar.gz");
    let mut bytes = vec![0u8; 150 << 20];
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for chunk in bytes.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        chunk.copy_from_slice(&x.to_le_bytes()[..chunk.len()]);
    }
    std::fs::write(&src, &bytes).unwrap();
    let cloud = ObjectStores::new(s3.options());
    let mb = bytes.len() as f64 / (1 << 20) as f64;
    for round in 0..3 {
        let uri = ObjectUri::parse(&format!("s3://figures/r{round}.tar.gz")).unwrap();
        let t = Instant::now();
        cloud.put_file(&uri, &src).unwrap();
        let up = t.elapsed().as_secs_f64();
        let back = dir.path().join(format!("back{round}"));
        let t = Instant::now();
        cloud.get_to_file(&uri, &back, u64::MAX).unwrap();
        let down = t.elapsed().as_secs_f64();
        let copy = dir.path().join(format!("copy{round}"));
        let t = Instant::now();
        std::fs::copy(&src, &copy).unwrap();
        let copied = t.elapsed().as_secs_f64();
        assert_eq!(std::fs::metadata(&back).unwrap().len(), bytes.len() as u64);
        println!(
            "round {round}: S3 upload {:.0} MB/s, S3 download {:.0} MB/s, file copy {:.0} MB/s",
            mb / up,
            mb / down,
            mb / copied
        );
        let _ = std::fs::remove_file(back);
        let _ = std::fs::remove_file(copy);
    }
}

/// The config users already have: `tessera start --config` with a Pinot controller properties
/// file whose `controller.data.dir` is a bucket and whose `pinot.controller.storage.factory.s3.*`
/// keys reach it (no `AWS_*` variables).
#[async_std::test]
async fn pinot_properties_configure_the_deep_store() {
    let Some(s3) = S3::start(false) else { return };
    s3.create_bucket("props").await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("controller.conf");
    std::fs::write(
        &config,
        format!(
            "controller.data.dir=s3://props/pinot\n\
             pinot.controller.storage.factory.class.s3=org.apache.pinot.plugin.filesystem.S3PinotFS\n\
             pinot.controller.storage.factory.s3.region=us-east-1\n\
             pinot.controller.storage.factory.s3.endpoint={}\n\
             pinot.controller.storage.factory.s3.accessKey=tessera\n\
             pinot.controller.storage.factory.s3.secretKey=tessera-secret\n\
             pinot.controller.segment.fetcher.protocols=file,http,s3\n",
            s3.endpoint
        ),
    )
    .unwrap();
    let data = dir.path().join("data");
    let (_proc, urls) = support::start(&[
        "--data-dir",
        data.to_str().unwrap(),
        "--controller-port",
        "0",
        "--broker-port",
        "0",
        "--server-port",
        "0",
        "--no-log-stderr",
        "--config",
        config.to_str().unwrap(),
    ]);
    let (ctl, broker) = (urls["controller"].clone(), urls["broker"].clone());
    create_lineitem(&ctl, lineitem::table_config()).await;
    let archive = lineitem_segment(&dir.path().join("work"), "lineitem_0", 400);
    let (s, b) = upload_segment(&ctl, "lineitem", "lineitem_0", &archive).await;
    assert_eq!(s, 200, "{b}");
    wait_count(&broker, 400).await;
    let keys = s3.keys("props", &format!("pinot/{TABLE}/")).await;
    assert_eq!(keys.len(), 1, "{keys:?}");
}

/// A write the store refuses is never acknowledged: with the bucket gone after the start, an
/// upload answers an error naming the store, and no segment is recorded.
#[async_std::test]
async fn a_refused_write_is_not_acknowledged() {
    let Some(s3) = S3::start(false) else { return };
    s3.create_bucket("brief").await;
    let dir = tempfile::tempdir().unwrap();
    let c = start(
        &dir.path().join("data"),
        &Store::S3 {
            s3: &s3,
            bucket: "brief",
        },
    )
    .await
    .unwrap();
    let ctl = c.controller_url.clone().unwrap();
    create_lineitem(&ctl, lineitem::table_config()).await;
    let (status, body) = call("DELETE", &format!("{}/brief", s3.endpoint), None).await;
    assert_eq!(status, 204, "{body}");
    let archive = lineitem_segment(&dir.path().join("work"), "lineitem_0", 100);
    let (s, b) = upload_segment(&ctl, "lineitem", "lineitem_0", &archive).await;
    assert_eq!(s, 500, "{b}");
    let text = b.to_string();
    assert!(
        text.contains("cannot store segment lineitem_0 in the deep store s3://brief/pinot")
            && text.contains("NoSuchBucket"),
        "{text}"
    );
    let (_, segs) = call("GET", &format!("{ctl}/segments/lineitem"), None).await;
    assert_eq!(segs, json!([{"OFFLINE": []}]), "{segs}");
    c.stop().await;
}

/// A server added under load fills itself from the bucket: the table asks for two replicas but
/// the cluster starts with one server; while queries run, a second server joins, is given every
/// segment, and reads them from S3 itself (the controller reads none back). Every query
/// meanwhile answers every row.
#[async_std::test]
async fn a_new_server_fills_itself_from_the_bucket_under_load() {
    let Some(s3) = S3::start(false) else { return };
    s3.create_bucket("grow").await;
    let dir = tempfile::tempdir().unwrap();
    let store = Store::S3 {
        s3: &s3,
        bucket: "grow",
    };
    let data = dir.path().join("a");
    let c = start(&data, &store).await.unwrap();
    let (ctl, broker) = (
        c.controller_url.clone().unwrap(),
        c.broker_url.clone().unwrap(),
    );
    let mut config = lineitem::table_config();
    config["segmentsConfig"]["replication"] = json!("2");
    create_lineitem(&ctl, config).await;
    for (i, docs) in [(0, 500u64), (1, 300), (2, 200)] {
        let name = format!("lineitem_{i}");
        let archive = lineitem_segment(&dir.path().join("work"), &name, docs);
        let (s, b) = upload_segment(&ctl, "lineitem", &name, &archive).await;
        assert_eq!(s, 200, "{b}");
    }
    wait_count(&broker, 1000).await;

    // Queries run all along; each must see every row.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load = {
        let (broker, stop) = (broker.clone(), stop.clone());
        async_std::task::spawn(async move {
            let mut answered = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let got = count(&broker).await;
                assert_eq!(got, 1000, "a query under load saw {got}");
                answered += 1;
            }
            answered
        })
    };
    let mut opts = StartOptions::ephemeral(dir.path().join("b"));
    opts.roles = tessera_api::cluster::Roles::parse("server").unwrap();
    opts.controller_url = Some(ctl.clone());
    opts.cloud = Arc::new(store.cloud());
    opts.logging = Some(tessera_api::logging::init_for_tests().unwrap());
    let added = cluster::start(opts).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, view) = call("GET", &format!("{ctl}/tables/lineitem/externalview"), None).await;
        let placed = view["OFFLINE"].as_object().map_or(0, |segs| {
            segs.values()
                .filter(|servers| servers.as_object().map_or(0, |s| s.len()) == 2)
                .count()
        });
        if placed == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "not filled: {view}");
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let answered = load.await;
    assert!(answered > 0);
    let cache = data.join("controller").join("cache");
    assert!(
        !cache.exists() || std::fs::read_dir(&cache).unwrap().next().is_none(),
        "the controller read archives back"
    );
    added.stop().await;
    c.stop().await;
}
