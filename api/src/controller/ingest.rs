//! `POST /ingestFromFile?tableNameWithType=&batchConfigMapStr=`: a CSV, JSON-lines, Parquet,
//! Avro or ORC file (CSV and JSON also gzip- or zstd-compressed) in a multipart body becomes one
//! segment (built with the segment builder, stored like an upload). `batchConfigMapStr` is JSON:
//! `inputFormat` (`csv` | `json` | `parquet` | `avro` | `orc`), the CSV reader's
//! `recordReader.prop.delimiter` / `.multiValueDelimiter` / `.header` / `.quoteCharacter` /
//! `.nullStringValue`, and
//! `segmentNameGenerator.configs.segment.name.postfix` (segment name `<table>_<postfix>`).
//!
//! `POST /ingestFromURI?tableNameWithType=&batchConfigMapStr=&sourceURIStr=` does the same with a
//! file the controller reads itself: `file:///path` (or a plain absolute path) on the
//! controller's machine, or `http://…`.
//!
//! `ingestionConfig.transformConfigs` are applied with the query engine's functions
//! ([`crate::common::transform`]).

use super::ControllerState;
use super::responses::{Status, json};
use super::segment_commit::{Scratch, scratch_dir, store_archive};
use super::segments::{single_part, upload_table};
use crate::common::archive;
use crate::common::clock::now_ms;
use crate::common::location::{LOCATION_FORMS, Location};
use crate::common::transform;
use crate::http::body::{query_param, read_bounded};
use crate::http::routes::Routes;
use crate::http::{ApiError, on_rayon};
use crate::metadata::table_name;
use segments::input::InputOptions;
use segments::input::complex::ComplexTypes;
use segments::{BuildConfig, InputFormat, InputSource, build_segment, build_segment_from_rows};
use serde_json::Value as Json;
use std::path::PathBuf;
use tide::Request;

/// Mounts the endpoint.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Ingestion")
        .post(
            "/ingestFromFile",
            "Builds a segment from an uploaded CSV, JSON, Parquet or Avro file",
            ingest_from_file,
        )
        .post(
            "/ingestFromURI",
            "Builds a segment from a file at sourceURIStr (file:// or http://)",
            ingest_from_uri,
        );
}

/// The file to ingest.
enum Input {
    /// Sent in the request.
    Body(Vec<u8>),
    /// On the controller's file system.
    Local(PathBuf),
}

/// The parsed `batchConfigMapStr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchConfig {
    /// `inputFormat` (csv when absent).
    pub input_format: InputFormat,
    /// Segment name postfix, if given.
    pub postfix: Option<String>,
    /// `recordReader.prop.*` (the CSV reader's configs).
    pub options: InputOptions,
}

/// Parses `batchConfigMapStr`.
pub fn parse_batch_config(text: Option<&str>) -> Result<BatchConfig, ApiError> {
    let json: Json = match text {
        None | Some("") => Json::Object(Default::default()),
        Some(t) => serde_json::from_str(t)
            .map_err(|e| ApiError::bad_request(format!("Invalid batchConfigMapStr: {e}")))?,
    };
    let name = json["inputFormat"].as_str().unwrap_or("csv");
    let input_format = InputFormat::parse(name).ok_or_else(|| {
        ApiError::bad_request(format!(
            "Unsupported inputFormat '{name}' (expected csv, json, parquet, avro or orc)"
        ))
    })?;
    let postfix = json["segmentNameGenerator.configs.segment.name.postfix"]
        .as_str()
        .map(str::to_string)
        .or_else(|| {
            json["segmentNameGenerator.configs.segment.name.postfix"]
                .as_i64()
                .map(|n| n.to_string())
        });
    // `recordReader.prop.<key>`: the CSV reader's configs.
    let mut options = InputOptions::default();
    for (key, value) in json.as_object().into_iter().flatten() {
        let Some(config) = key.strip_prefix("recordReader.prop.") else {
            continue;
        };
        let text = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        options
            .set_csv_config(config, &text)
            .map_err(|why| ApiError::bad_request(format!("Invalid {key}: {why}")))?;
    }
    Ok(BatchConfig {
        input_format,
        postfix,
        options,
    })
}

async fn ingest_from_file(mut req: Request<ControllerState>) -> tide::Result {
    let c = req.state().clone();
    let typed = upload_table(&c, &req, "tableNameWithType")?;
    let batch = parse_batch_config(query_param(&req, "batchConfigMapStr").as_deref())?;
    let content_type = req
        .content_type()
        .map(|m| m.to_string())
        .unwrap_or_default();
    let body = read_bounded(&mut req, c.config.max_upload_bytes).await?;
    let file = single_part(&content_type, body, "file ingestion")?;
    ingest(c, typed, batch, Input::Body(file)).await
}

async fn ingest_from_uri(req: Request<ControllerState>) -> tide::Result {
    let c = req.state().clone();
    let typed = upload_table(&c, &req, "tableNameWithType")?;
    let batch = parse_batch_config(query_param(&req, "batchConfigMapStr").as_deref())?;
    let uri = query_param(&req, "sourceURIStr")
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ApiError::bad_request("Missing required parameter: sourceURIStr"))?;
    let input = match Location::parse(&uri) {
        Some(Location::Local(path)) => Input::Local(path),
        Some(remote @ (Location::Http(_) | Location::Object(_))) => {
            let bytes = remote
                .read(c.config.max_upload_bytes, &c.config.cloud)
                .await
                .map_err(|why| {
                    ApiError::bad_request(format!(
                        "Caught exception while ingesting file: cannot fetch '{uri}': {why}"
                    ))
                })?;
            Input::Body(bytes)
        }
        None => {
            return Err(ApiError::bad_request(format!(
                "Unsupported sourceURIStr '{uri}': use {LOCATION_FORMS}"
            ))
            .into());
        }
    };
    ingest(c, typed, batch, input).await
}

/// Builds the input into one segment of `typed` and stores it like an upload.
async fn ingest(
    c: ControllerState,
    typed: String,
    batch: BatchConfig,
    file: Input,
) -> tide::Result {
    let raw = table_name::split(&typed).0.to_string();
    let config = c
        .table_config(&typed)?
        .ok_or_else(|| ApiError::bad_request(format!("Failed to find table: {typed}")))?;
    let schema = c.schema(&raw)?.ok_or_else(|| {
        ApiError::bad_request(format!("Failed to find schema for table: {typed}"))
    })?;
    let segment_name = match &batch.postfix {
        Some(p) => format!("{raw}_{p}"),
        None => format!("{raw}_{}", now_ms()),
    };
    let format = batch.input_format;
    let mut options = batch.options.clone();
    options.complex = ComplexTypes::from_table_config(&config).map_err(ApiError::bad_request)?;
    let scratch = Scratch(scratch_dir(&c)?);
    let work = scratch.0.clone();
    let name = segment_name.clone();
    let archive_bytes = on_rayon(move || -> Result<Vec<u8>, ApiError> {
        let input = work.join(match format {
            InputFormat::Csv => "input.csv",
            InputFormat::Json => "input.json",
            InputFormat::Parquet => "input.parquet",
            InputFormat::Avro => "input.avro",
            InputFormat::Orc => "input.orc",
        });
        match &file {
            Input::Body(bytes) => std::fs::write(&input, bytes).map_err(|e| {
                ApiError::internal(format!("cannot write '{}': {e}", input.display()))
            })?,
            Input::Local(path) => {
                std::fs::copy(path, &input).map_err(|e| {
                    ApiError::bad_request(format!(
                        "Caught exception while ingesting file: cannot read '{}': {e}",
                        path.display()
                    ))
                })?;
            }
        }
        let build = BuildConfig::from_table_config_json(&config, &schema, Some(&name))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let out = work.join("built");
        let source = InputSource {
            path: input,
            format,
            options,
        };
        let failed = |e: String| {
            ApiError::bad_request(format!("Caught exception while ingesting file: {e}"))
        };
        let transforms = transform::transforms(&config);
        let filter = transform::filter_function(&config);
        if transforms.is_empty() && filter.is_none() {
            build_segment(&schema, &build, &source, &out, &mut |_| {})
                .map_err(|e| failed(e.to_string()))?;
        } else {
            let staging = work.join("staging");
            let rows = transform::transformed_rows(
                &schema,
                &transforms,
                filter.as_deref(),
                &source,
                &staging,
            )
            .map_err(failed)?;
            build_segment_from_rows(&schema, &build, rows.into_iter().map(Ok), &out)
                .map_err(|e| failed(e.to_string()))?;
        }
        archive::pack(&out.join(&name)).map_err(|e| ApiError::internal(e.to_string()))
    })
    .await
    .map_err(ApiError::internal)??;
    store_archive(&c, Some(&typed), None, archive_bytes).await?;
    let status =
        format!("Successfully ingested file into table: {typed} as segment: {segment_name}");
    json(&Status::new(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_config_parsing() {
        let b = parse_batch_config(Some(
            r#"{"inputFormat":"json","segmentNameGenerator.configs.segment.name.postfix":"7"}"#,
        ))
        .unwrap();
        assert_eq!(
            b,
            BatchConfig {
                input_format: InputFormat::Json,
                postfix: Some("7".into()),
                options: InputOptions::default(),
            }
        );
        assert_eq!(
            parse_batch_config(None).unwrap().input_format,
            InputFormat::Csv
        );
        assert_eq!(
            parse_batch_config(Some(r#"{"inputFormat":"PARQUET"}"#))
                .unwrap()
                .input_format,
            InputFormat::Parquet
        );
        assert_eq!(
            parse_batch_config(Some(r#"{"inputFormat":"orc"}"#))
                .unwrap()
                .input_format,
            InputFormat::Orc
        );
        assert!(parse_batch_config(Some(r#"{"inputFormat":"xlsx"}"#)).is_err());
        assert!(parse_batch_config(Some("{")).is_err());
        let csv = parse_batch_config(Some(
            r#"{"recordReader.prop.delimiter":"|","recordReader.prop.quoteCharacter":"'","recordReader.prop.nullStringValue":"NULL"}"#,
        ))
        .unwrap()
        .options;
        assert_eq!(
            (csv.delimiter, csv.quote, csv.null_string.as_deref()),
            (b'|', b'\'', Some("NULL"))
        );
        let bad = parse_batch_config(Some(r#"{"recordReader.prop.escapeCharacter":"\\"}"#));
        assert!(bad.is_err_and(|e| e.to_string().contains("escapeCharacter")));
    }
}
