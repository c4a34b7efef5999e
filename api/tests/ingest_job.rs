//! `tessera ingest --job-spec`: a Pinot job spec written as Pinot's docs write it (schema and
//! table config from the controller's URLs, `glob:` input patterns, a name generator, a push
//! spec) runs end to end against a running cluster; the tar, URI and metadata pushes all land
//! every row (a metadata push leaving the archives in the output directory); a bad spec fails
//! before anything is pushed.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{call, free_port, json_body};

fn ingest(spec: &Path, values: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.args(["ingest", "--job-spec", spec.to_str().unwrap()]);
    if !values.is_empty() {
        cmd.arg("--values").args(values);
    }
    cmd.output().unwrap()
}

async fn count(broker: &str) -> Value {
    let (_, b) = call(
        "POST",
        &format!("{broker}/query/sql"),
        json_body(json!({"sql": "SELECT COUNT(*), SUM(fare) FROM trips"})),
    )
    .await;
    b["resultTable"]["rows"][0].clone()
}

const SPEC: &str = r#"
executionFrameworkSpec:
  name: 'standalone'
  segmentGenerationJobRunnerClassName: 'org.apache.pinot.plugin.ingestion.batch.standalone.SegmentGenerationJobRunner'
jobType: ${jobType}
inputDirURI: '${input}'
includeFileNamePattern: 'glob:**/*.csv*'
excludeFileNamePattern: 'glob:**/skip*'
searchRecursively: true
outputDirURI: '${output}'
overwriteOutput: true
pinotFSSpecs:
  - scheme: file
    className: org.apache.pinot.spi.filesystem.LocalPinotFS
recordReaderSpec:
  dataFormat: 'csv'
  className: 'org.apache.pinot.plugin.inputformat.csv.CSVRecordReader'
  configs:
    delimiter: ','
tableSpec:
  tableName: 'trips'
  schemaURI: '${controller}/tables/trips/schema'
  tableConfigURI: '${controller}/tables/trips'
segmentNameGeneratorSpec:
  type: ${naming}
  configs:
    segment.name.prefix: 'trips_batch'
pinotClusterSpecs:
  - controllerURI: '${controller}'
pushJobSpec:
  pushParallelism: 2
  pushAttempts: 2
  pushRetryIntervalMillis: 100
segmentCreationJobParallelism: 2
"#;

#[async_std::test]
async fn a_pinot_job_spec_builds_and_pushes() {
    let dir = tempfile::tempdir().unwrap();
    let ports: Vec<String> = (0..3).map(|_| free_port().to_string()).collect();
    let data = dir.path().join("data");
    let (_proc, urls) = support::start(&[
        "--data-dir",
        data.to_str().unwrap(),
        "--controller-port",
        &ports[0],
        "--broker-port",
        &ports[1],
        "--server-port",
        &ports[2],
        "--no-log-stderr",
    ]);
    let (ctl, broker) = (urls["controller"].clone(), urls["broker"].clone());
    let schema = json!({"schemaName": "trips",
        "dimensionFieldSpecs": [{"name": "city", "dataType": "STRING"}],
        "metricFieldSpecs": [{"name": "fare", "dataType": "DOUBLE"}],
        "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"}]});
    let (s, b) = call("POST", &format!("{ctl}/schemas"), json_body(schema)).await;
    assert_eq!(s, 200, "{b}");
    let table = json!({"tableName": "trips", "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
        "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}});
    let (s, b) = call("POST", &format!("{ctl}/tables"), json_body(table)).await;
    assert_eq!(s, 200, "{b}");

    // Three inputs (one gzip-compressed, one in a subdirectory) and one the exclude pattern drops.
    let input = dir.path().join("in");
    std::fs::create_dir_all(input.join("2024")).unwrap();
    let day = 1_704_067_200_000i64;
    let csv = |i: i64| {
        format!(
            "city,fare,ts\nAustin,{}.5,{}\nBoston,1,{}\n",
            i,
            day + i,
            day + i * 10
        )
    };
    std::fs::write(input.join("a.csv"), csv(1)).unwrap();
    std::fs::write(input.join("2024/b.csv"), csv(2)).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, csv(3).as_bytes()).unwrap();
    std::fs::write(input.join("c.csv.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(input.join("skip_me.csv"), csv(100)).unwrap();
    let spec = dir.path().join("job.yaml");
    std::fs::write(&spec, SPEC).unwrap();
    let output = dir.path().join("out");
    let values = |job: &str, naming: &str| -> Vec<String> {
        vec![
            format!("jobType={job}"),
            format!("input={}", input.display()),
            format!("output={}", output.display()),
            format!("controller={ctl}"),
            format!("naming={naming}"),
        ]
    };

    // Tar push, segments named by date.
    let v = values("SegmentCreationAndTarPush", "normalizedDate");
    let out = ingest(&spec, &v.iter().map(String::as_str).collect::<Vec<_>>());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("built 3 segment(s) (6 rows), pushed 3"),
        "{stdout}"
    );
    let mut archives: Vec<String> = std::fs::read_dir(&output)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    archives.sort();
    assert_eq!(
        archives,
        [
            "trips_batch_2024-01-01_2024-01-01_0.tar.gz",
            "trips_batch_2024-01-01_2024-01-01_1.tar.gz",
            "trips_batch_2024-01-01_2024-01-01_2.tar.gz"
        ]
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let expected = json!([6, 1.5 + 2.5 + 3.5 + 3.0]);
    while count(&broker).await != expected {
        assert!(Instant::now() < deadline, "{}", count(&broker).await);
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
    let (_, segs) = call("GET", &format!("{ctl}/segments/trips"), None).await;
    assert_eq!(
        segs[0]["OFFLINE"].as_array().map(Vec::len),
        Some(3),
        "{segs}"
    );

    // A URI push of the same archives refreshes them in place: the counts stay.
    let v = values("SegmentUriPush", "simple");
    let out = ingest(&spec, &v.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("built 0 segment(s) (0 rows), pushed 3"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(count(&broker).await, expected);

    // A metadata push of new segments (other names, another output directory): only their
    // metadata reaches the controller, which keeps no copy; servers fetch the archives from the
    // output directory, and the rows double.
    let meta_out = dir.path().join("meta_out");
    let mut v = values("SegmentCreationAndMetadataPush", "simple");
    v[2] = format!("output={}", meta_out.display());
    let out = ingest(&spec, &v.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doubled = json!([12, 2.0 * (1.5 + 2.5 + 3.5 + 3.0)]);
    let deadline = Instant::now() + Duration::from_secs(30);
    while count(&broker).await != doubled {
        assert!(Instant::now() < deadline, "{}", count(&broker).await);
        async_std::task::sleep(Duration::from_millis(100)).await;
    }
    let pushed: Vec<std::path::PathBuf> = std::fs::read_dir(&meta_out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(pushed.len(), 3);
    let first = pushed[0]
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let segment = first.trim_end_matches(".tar.gz");
    let stored = walk(&data)
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(segment)
        })
        .count();
    assert_eq!(stored, 0, "the controller holds no copy of {segment}");
    // The controller's download still serves it, from the deep-store URI.
    let res = surf::get(format!("{ctl}/segments/trips/{segment}"))
        .await
        .unwrap()
        .body_bytes()
        .await
        .unwrap();
    assert_eq!(res, std::fs::read(&pushed[0]).unwrap());

    // A metadata push naming an archive that is not there changes nothing.
    let metadata =
        tessera_api::common::archive::metadata_archive(&std::fs::read(&pushed[0]).unwrap())
            .unwrap();
    for (uri, why) in [
        (
            format!("file://{}/gone.tar.gz", dir.path().display()),
            "Failed to find segment",
        ),
        (
            "ftp://host/a.tar.gz".to_string(),
            "Unsupported DOWNLOAD_URI",
        ),
        (String::new(), "downloadURI"),
    ] {
        let mut res = surf::post(format!("{ctl}/v2/segments?tableName=trips"))
            .header("UPLOAD_TYPE", "METADATA")
            .header("DOWNLOAD_URI", uri.as_str())
            .body(surf::Body::from_bytes(metadata.clone()))
            .await
            .unwrap();
        assert_eq!(res.status() as u16, 400, "{uri}");
        assert!(res.body_string().await.unwrap().contains(why), "{uri}");
    }
    let (_, segs) = call("GET", &format!("{ctl}/segments/trips"), None).await;
    assert_eq!(
        segs[0]["OFFLINE"].as_array().map(Vec::len),
        Some(6),
        "{segs}"
    );
    assert_eq!(count(&broker).await, doubled);

    // Refused before anything happens: an unsupported CSV option, bad YAML.
    let tabbed = dir.path().join("tabbed.yaml");
    std::fs::write(
        &tabbed,
        SPEC.replace("delimiter: ','", "escapeCharacter: '\\'"),
    )
    .unwrap();
    let v = values("SegmentCreationAndTarPush", "simple");
    let out = ingest(&tabbed, &v.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("escapeCharacter"));
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "jobType: [").unwrap();
    let out = ingest(&broken, &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("YAML"));
    let (_, segs) = call("GET", &format!("{ctl}/segments/trips"), None).await;
    assert_eq!(
        segs[0]["OFFLINE"].as_array().map(Vec::len),
        Some(6),
        "{segs}"
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
