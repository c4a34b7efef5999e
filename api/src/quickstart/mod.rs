//! The quickstart's sample table: a TPC-H-like `lineitem` (schema, table config with sorted,
//! inverted and range indexes, and a deterministic row generator), built into segments and
//! loaded into a running cluster through the controller's public API; with `--realtime`, also
//! a real-time `events` table fed through a Kafka-protocol broker ([`realtime`]).

pub mod lineitem;
pub mod realtime;

use crate::common::archive;
use segments::types::Schema;
use segments::{BuildConfig, build_segment_from_rows};
use serde_json::Value as Json;
use std::path::Path;

/// Why loading the sample failed.
#[derive(Debug, thiserror::Error)]
pub enum QuickstartError {
    #[error("cannot build the sample segment: {0}")]
    Build(String),
    #[error("controller call {call} failed: {reason}")]
    Controller { call: String, reason: String },
    #[error("the sample segments were not online after {0} s")]
    NotOnline(u64),
}

/// Builds `segments` segments of `rows_per_segment` rows each into `work_dir` and returns
/// their upload archives (name, tar.gz bytes).
pub fn build_archives(
    work_dir: &Path,
    segments: usize,
    rows_per_segment: usize,
) -> Result<Vec<(String, Vec<u8>)>, QuickstartError> {
    let build_err = |e: String| QuickstartError::Build(e);
    let schema = Schema::from_json(&lineitem::schema().to_string()).map_err(build_err)?;
    let mut out = Vec::new();
    for i in 0..segments {
        let name = format!("lineitem_{i}");
        let config =
            BuildConfig::from_table_config_json(&lineitem::table_config(), &schema, Some(&name))
                .map_err(|e| build_err(e.to_string()))?;
        let rows = lineitem::rows(i as u64, rows_per_segment).map(Ok);
        build_segment_from_rows(&schema, &config, rows, work_dir)
            .map_err(|e| build_err(e.to_string()))?;
        let bytes = archive::pack(&work_dir.join(&name)).map_err(|e| build_err(e.to_string()))?;
        out.push((name, bytes));
    }
    Ok(out)
}

async fn post(
    client: &surf::Client,
    url: &str,
    body: surf::Body,
    content_type: Option<&str>,
) -> Result<Json, QuickstartError> {
    let fail = |reason: String| QuickstartError::Controller {
        call: url.to_string(),
        reason,
    };
    let mut req = client.post(url).body(body);
    if let Some(ct) = content_type {
        req = req.content_type(ct);
    }
    let mut res = req.await.map_err(|e| fail(e.to_string()))?;
    let text = res.body_string().await.map_err(|e| fail(e.to_string()))?;
    if !res.status().is_success() {
        return Err(fail(format!("HTTP {}: {text}", res.status())));
    }
    serde_json::from_str(&text).map_err(|e| fail(e.to_string()))
}

/// Creates the `lineitem` schema and table on `controller` and uploads generated segments.
pub async fn load_sample(
    controller: &str,
    work_dir: &Path,
    segments: usize,
    rows_per_segment: usize,
) -> Result<(), QuickstartError> {
    let client = crate::http::http_client();
    let json_body = |v: Json| surf::Body::from_string(v.to_string());
    post(
        &client,
        &format!("{controller}/schemas"),
        json_body(lineitem::schema()),
        Some("application/json"),
    )
    .await?;
    post(
        &client,
        &format!("{controller}/tables"),
        json_body(lineitem::table_config()),
        Some("application/json"),
    )
    .await?;
    let dir = work_dir.to_path_buf();
    let archives = crate::http::on_rayon(move || build_archives(&dir, segments, rows_per_segment))
        .await
        .map_err(QuickstartError::Build)??;
    for (name, bytes) in archives {
        let (ct, body) =
            crate::http::multipart::encode_file(&name, &format!("{name}.tar.gz"), &bytes);
        post(
            &client,
            &format!("{controller}/segments?tableName=lineitem"),
            surf::Body::from_bytes(body),
            Some(&ct),
        )
        .await?;
    }
    wait_online(&client, controller, "lineitem_OFFLINE", segments).await
}

/// Waits until every one of `expected` segments of `typed` is loaded on some server, so the
/// first query a newcomer types sees all the sample rows.
async fn wait_online(
    client: &surf::Client,
    controller: &str,
    typed: &str,
    expected: usize,
) -> Result<(), QuickstartError> {
    const LIMIT_S: u64 = 120;
    let url = format!("{controller}/tessera/routing/{typed}");
    let started = std::time::Instant::now();
    loop {
        if let Ok(mut res) = client.get(&url).await
            && let Ok(r) = res
                .body_json::<crate::metadata::records::RoutingTable>()
                .await
            && r.segments
                .values()
                .filter(|hosts| !hosts.is_empty())
                .count()
                >= expected
        {
            return Ok(());
        }
        if started.elapsed().as_secs() >= LIMIT_S {
            return Err(QuickstartError::NotOnline(LIMIT_S));
        }
        async_std::task::sleep(std::time::Duration::from_millis(100)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_openable_segments_with_the_configured_indexes() {
        let dir = tempfile::tempdir().unwrap();
        let archives = build_archives(dir.path(), 2, 500).unwrap();
        assert_eq!(archives.len(), 2);
        let seg = archive::open(&dir.path().join("lineitem_1")).unwrap();
        assert_eq!(seg.total_docs(), 500);
        let shipmode = seg.column("l_shipmode").unwrap().metadata();
        assert!(shipmode.has_index(segments::index::IndexKind::Inverted));
        assert!(seg.column("l_orderkey").unwrap().metadata().sorted);
    }
}
