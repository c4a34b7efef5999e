//! `GET /segments/{t}/{segment}/metadata[?columns=*|a&columns=b]`: what a segment holds, read
//! from its archive (in the deep store or at its download URI) — Pinot's segment-level keys
//! (`segmentName`, `schemaName`, `crc`, `creationTimeMillis`, `creationTimeReadable`,
//! `timeColumn`, `startTime`/`endTime`, `totalDocs`, `custom`), the asked columns' metadata
//! (type, cardinality, min/max, sorted, dictionary, nulls, every index with its size; none without
//! `columns`, all with `columns=*`), `indexes` (column → index → `YES`) and the star-trees.

use super::ControllerState;
use super::archive_store::read_archive;
use super::responses::json;
use super::segments::find_segment;
use crate::common::archive;
use crate::http::body::path_param;
use crate::http::routes::Routes;
use crate::http::{ApiError, on_rayon};
use segments::metadata::ColumnMetadata;
use segments::startree::StarTreeInfo;
use segments::types::time::format_timestamp;
use serde::Serialize;
use std::collections::BTreeMap;
use tide::Request;

/// Mounts the endpoint.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Segment").get(
        "/segments/:table/:segment/metadata",
        "A segment's metadata (columns=* or columns=a for column details)",
        get,
    );
}

/// The answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentMetadataView {
    pub segment_name: String,
    pub schema_name: String,
    pub table_name_with_type: String,
    pub crc: String,
    pub creation_time_millis: i64,
    pub creation_time_readable: String,
    pub push_time_millis: i64,
    pub refresh_time_millis: Option<i64>,
    pub time_column: Option<String>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub total_docs: u32,
    pub size_in_bytes: u64,
    /// Pinot's `segment.download.url`: the archive's URI in the deep store, or where a
    /// metadata push left it.
    pub download_url: Option<String>,
    pub servers: Vec<String>,
    pub custom: BTreeMap<String, String>,
    pub columns: Vec<ColumnMetadata>,
    pub indexes: BTreeMap<String, BTreeMap<&'static str, &'static str>>,
    pub star_trees: Vec<StarTreeInfo>,
}

async fn get(req: Request<ControllerState>) -> tide::Result {
    let table = path_param(&req, "table")?;
    let segment = path_param(&req, "segment")?;
    // `columns` may repeat (`columns=a&columns=b`); `*` is every column.
    let asked: Vec<String> = req
        .url()
        .query_pairs()
        .filter(|(k, _)| k == "columns")
        .flat_map(|(_, v)| {
            v.split(',')
                .map(|c| c.trim().to_string())
                .collect::<Vec<_>>()
        })
        .filter(|c| !c.is_empty())
        .collect();
    let c = req.state();
    let (record, bytes) = read_archive(c, find_segment(c, &table, &segment)?).await?;
    let meta = on_rayon(move || archive::read_metadata(&bytes))
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let all = asked.iter().any(|c| c == "*");
    let columns: Vec<ColumnMetadata> = meta
        .columns
        .iter()
        .filter(|col| all || asked.contains(&col.name))
        .cloned()
        .collect();
    let indexes = columns
        .iter()
        .map(|col| {
            let kinds = col.indexes.iter().map(|i| (i.kind.name(), "YES")).collect();
            (col.name.clone(), kinds)
        })
        .collect();
    let download_url = super::archive_store::download_url(c, &record);
    json(&SegmentMetadataView {
        segment_name: meta.segment_name,
        schema_name: meta.table_name,
        table_name_with_type: record.table_name_with_type,
        crc: record.crc.to_string(),
        creation_time_millis: meta.creation_time_ms,
        creation_time_readable: format_timestamp(meta.creation_time_ms),
        push_time_millis: record.push_time_ms,
        refresh_time_millis: record.refresh_time_ms,
        time_column: meta.time_column,
        start_time: meta.start_time,
        end_time: meta.end_time,
        total_docs: meta.total_docs,
        size_in_bytes: record.size_bytes,
        download_url,
        servers: record.servers,
        custom: BTreeMap::new(),
        columns,
        indexes,
        star_trees: meta.star_trees,
    })
}
