//! `/tables` endpoints (`PinotTableRestletResource`, `PinotRealtimeTableResource`): create, list,
//! get, replace (also at the interface's singular `PUT /table/{t}`), delete, the table's schema,
//! and pause/resume of realtime consumption.

use super::catalog::encode;
use super::follow_up::required_follow_up;
use super::realtime::{self, PauseReason, pause_key};
use super::responses::{
    ByTableType, Catalog, ConfigSuccess, Entries, PauseStatus, Status, TableList, json,
};
use super::schemas::config_text;
use super::table_config::{self, Checked};
use super::tenants::validate_tenants;
use super::{Controller, ControllerState};
use crate::http::ApiError;
use crate::http::body::{path_param, query_param};
use crate::http::routes::Routes;
use crate::metadata::table_name::{self, TableType};
use crate::metadata::{Op, keys};
use crate::stream::StartFrom;
use segments::statistics::Statistics;
use serde_json::{Map, Value as Json};
use tide::Request;

/// Mounts the table endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Table")
        .get("/tables", "Lists table names", list)
        .post(
            "/tables",
            "Creates a table from a Pinot table config",
            create,
        )
        .get("/tables/:table", "Reads a table's configs by type", get)
        .put(
            "/tables/:table",
            "Replaces a table's config; answers the required follow-up",
            update,
        )
        .delete(
            "/tables/:table",
            "Deletes a table (type= for one type) and its segments",
            delete,
        )
        .put("/table/:table", "As PUT /tables/{table}", update)
        .get("/tables/:table/schema", "Reads a table's schema", schema)
        .post(
            "/tables/:table/pauseConsumption",
            "Pauses a real-time table's consumption",
            |r| pause_or_resume(r, true),
        )
        .post(
            "/tables/:table/resumeConsumption",
            "Resumes a real-time table's consumption (consumeFrom=smallest|largest)",
            |r| pause_or_resume(r, false),
        )
        .get(
            "/tables/:table/pauseStatus",
            "Whether a real-time table's consumption is paused",
            pause_status,
        );
    r.group("Internal").get(
        "/tessera/catalog",
        "Every table's schema and type, for brokers",
        catalog,
    );
}

fn type_param(req: &Request<ControllerState>) -> Result<Option<TableType>, ApiError> {
    table_name::type_param(query_param(req, "type").as_deref())
}

async fn list(req: Request<ControllerState>) -> tide::Result {
    let t = type_param(&req)?;
    let names = req.state().table_names()?;
    let mut tables: Vec<String> = match t {
        Some(t) => names
            .into_iter()
            .filter(|n| table_name::split(n).1 == Some(t))
            .collect(),
        None => names
            .iter()
            .map(|n| table_name::split(n).0.to_string())
            .collect(),
    };
    tables.sort();
    tables.dedup();
    json(&TableList { tables })
}

/// Parses a config and validates it against the stored schema of its raw table name.
fn check(c: &ControllerState, text: &str) -> Result<Checked, ApiError> {
    let checked = table_config::parse(text)?;
    validate_with_schema(c, &checked)?;
    Ok(checked)
}

fn validate_with_schema(c: &ControllerState, checked: &Checked) -> Result<(), ApiError> {
    let schema = c.schema(checked.raw_name())?.ok_or_else(|| {
        ApiError::bad_request(format!(
            "Failed to find schema for table: {}",
            checked.name_with_type()
        ))
    })?;
    crate::common::transform::check_functions(&checked.json()).map_err(ApiError::bad_request)?;
    table_config::validate(checked, &schema)?;
    // A real-time table must be one this cluster can consume: a config it accepted and then
    // silently never read would lose the user's rows.
    if let Ok(streams) = checked.config.stream_configs() {
        for s in &streams {
            crate::stream::check_consumable(s).map_err(|e| {
                ApiError::bad_request(format!(
                    "Invalid table config for table {}: {e}",
                    checked.name_with_type()
                ))
            })?;
        }
    }
    Ok(())
}

fn config_response(
    unrecognized: &Map<String, Json>,
    status: String,
    follow_up: Option<&str>,
) -> tide::Result {
    json(&ConfigSuccess {
        unrecognized_properties: unrecognized,
        status,
        required_follow_up: follow_up,
    })
}

async fn create(mut req: Request<ControllerState>) -> tide::Result {
    let text = config_text(&mut req).await?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let checked = table_config::parse(&text)?;
    let typed = checked.name_with_type().to_string();
    if c.table_config(&typed)?.is_some() {
        return Err(ApiError::conflict(format!(
            "Table config for {typed} already exists. If this is unexpected, try deleting the table to remove all metadata associated with it before attempting to recreate."
        ))
        .into());
    }
    validate_with_schema(c, &checked)?;
    validate_tenants(c, &checked.config)?;
    c.commit(vec![Op::Put(keys::table(&typed), encode(&checked.json()))])?;
    if table_name::split(&typed).1 == Some(TableType::Realtime) {
        // Consuming segments as soon as the stream answers, without holding up the answer
        // (the periodic validation retries a stream that cannot be reached yet).
        let (c, typed) = (c.clone(), typed.clone());
        async_std::task::spawn(async move {
            if let Err(e) = realtime::ensure_consuming(&c, &typed, None).await {
                log::warn!("cannot start consuming {typed} yet: {}", e.message);
            }
            super::changes::publish(&c).await;
        });
    }
    config_response(
        &checked.unrecognized,
        format!("Table {typed} successfully added"),
        None,
    )
}

async fn get(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let t = type_param(&req)?;
    let c = req.state();
    let mut out = ByTableType::default();
    for (ty, typed) in c.existing_tables(&name, t)? {
        if let Some(cfg) = c.table_config(&typed)? {
            out.set(ty, cfg);
        }
    }
    if out.is_empty() {
        let shown = match t {
            Some(t) => table_name::with_type(table_name::split(&name).0, t),
            None => name,
        };
        return Err(ApiError::not_found(format!("Table {shown} does not exist")).into());
    }
    json(&out)
}

async fn update(mut req: Request<ControllerState>) -> tide::Result {
    let path_name = path_param(&req, "table")?;
    let text = config_text(&mut req).await?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let wrap = |e: ApiError| {
        ApiError::bad_request(format!(
            "Invalid table config: {path_name} with error: {}",
            e.message
        ))
    };
    let parsed = table_config::parse(&text).map_err(wrap)?;
    let typed = parsed.name_with_type().to_string();
    let (path_raw, path_type) = table_name::split(&path_name);
    let path_typed = table_name::with_type(path_raw, path_type.unwrap_or(parsed.config.table_type));
    if path_typed != typed {
        return Err(ApiError::bad_request(format!(
            "Request table {path_typed} does not match table name in the body {typed}"
        ))
        .into());
    }
    let old = c
        .table_config(&typed)?
        .ok_or_else(|| ApiError::not_found(format!("Table {typed} does not exist")))?;
    let checked = check(c, &text).map_err(|e| if e.status == 400 { wrap(e) } else { e })?;
    let new = checked.json();
    let follow_up = required_follow_up(&old, &new, false);
    c.commit(vec![Op::Put(keys::table(&typed), encode(&new))])?;
    config_response(
        &checked.unrecognized,
        format!("Table config updated for {path_name}"),
        Some(follow_up.as_str()),
    )
}

async fn delete(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let t = type_param(&req)?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let tables = c.existing_tables(&name, t)?;
    if tables.is_empty() {
        let shown_type = t
            .or(table_name::split(&name).1)
            .map(|t| t.name())
            .unwrap_or("null");
        return Err(ApiError::not_found(format!(
            "Table '{name}' with type {shown_type} does not exist"
        ))
        .into());
    }
    // The segments' archives go to the deleted-segments area, as Pinot's (`retention=0d`:
    // removed at once).
    let mut gone = Vec::new();
    for (_, typed) in &tables {
        let keep =
            super::deleted_segments::keep_for(c, typed, query_param(&req, "retention").as_deref())?;
        gone.push((typed.clone(), keep, c.segments(typed)?));
    }
    let mut ops = Vec::new();
    for (_, typed) in &tables {
        ops.push(Op::Delete(keys::table(typed)));
        ops.push(Op::DeletePrefix(keys::segments_of(typed)));
        ops.push(Op::Delete(pause_key(typed)));
        ops.push(Op::Delete(keys::lineage(typed)));
        ops.push(Op::DeletePrefix(keys::task_metadata_of(typed)));
    }
    c.commit(ops)?;
    for (typed, keep, segments) in &gone {
        for s in segments {
            super::deleted_segments::retire_archive(c, typed, &s.archive, *keep);
        }
    }
    for (_, typed) in &tables {
        if let Err(e) = c.deep.remove_table(typed) {
            log::warn!(
                "cannot remove {typed}'s archives from the deep store at {}: {e}",
                c.deep.describe()
            );
        }
    }
    let names: Vec<&str> = tables.iter().map(|(_, n)| n.as_str()).collect();
    json(&Status::new(format!(
        "Tables: [{}] deleted",
        names.join(", ")
    )))
}

async fn schema(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let raw = table_name::split(&name).0.to_string();
    let c = req.state();
    if c.existing_tables(&name, None)?.is_empty() {
        return Err(ApiError::not_found(format!("Table '{name}' not found.")).into());
    }
    match c.schema_json(&raw)? {
        Some(j) => json(&j),
        None => Err(ApiError::not_found(format!("Failed to find schema for table: {raw}")).into()),
    }
}

fn realtime_table(c: &ControllerState, name: &str) -> Result<String, ApiError> {
    let typed = table_name::with_type(table_name::split(name).0, TableType::Realtime);
    if c.table_config(&typed)?.is_none() {
        return Err(ApiError::not_found(format!("Table {typed} not found!")));
    }
    Ok(typed)
}

fn pause_details(paused: bool, comment: Option<String>) -> PauseStatus {
    pause_details_for(paused.then_some(PauseReason::Administrative), comment)
}

fn pause_details_for(reason: Option<PauseReason>, comment: Option<String>) -> PauseStatus {
    let paused = reason.is_some();
    let default = if paused {
        "Pause flag is set. Consuming segments are being committed. Use /pauseStatus endpoint in a few moments to check if all consuming segments have been committed."
    } else {
        "Pause flag is cleared. Consuming segments are being created. Use /pauseStatus endpoint in a few moments to double check."
    };
    PauseStatus {
        pause_flag: paused,
        consuming_segments: Vec::new(),
        reason_code: reason.unwrap_or(PauseReason::Administrative).code(),
        comment: Some(comment.unwrap_or_else(|| default.to_string())),
        timestamp: crate::common::clock::now_ms().to_string(),
    }
}

async fn pause_or_resume(req: Request<ControllerState>, pause: bool) -> tide::Result {
    let name = path_param(&req, "table")?;
    let c = req.state();
    let typed = realtime_table(c, &name)?;
    if !pause
        && let Some(from) = query_param(&req, "consumeFrom")
        && !matches!(from.as_str(), "lastConsumed" | "smallest" | "largest")
    {
        return Err(ApiError::bad_request(format!(
            "consumeFrom param '{from}' is not valid, valid values: lastConsumed, smallest, largest"
        ))
        .into());
    }
    {
        let _guard = c.lock_writes().await?;
        c.commit(vec![if pause {
            Op::Put(
                pause_key(&typed),
                PauseReason::Administrative.code().as_bytes().to_vec(),
            )
        } else {
            Op::Delete(pause_key(&typed))
        }])?;
    }
    // Paused: the servers commit what they consumed (the published change tells them) and no
    // new consuming segment starts. Resumed: each partition goes on from its last committed
    // offset, or from where `consumeFrom` says.
    let consuming = if pause {
        consuming_segments(c, &typed)?
    } else {
        let from = query_param(&req, "consumeFrom").and_then(|f| StartFrom::parse(&f));
        if let Err(e) = realtime::ensure_consuming(c, &typed, from).await {
            log::warn!("cannot resume consuming {typed} yet: {}", e.message);
        }
        Vec::new()
    };
    json(&PauseStatus {
        consuming_segments: consuming,
        ..pause_details(pause, query_param(&req, "comment"))
    })
}

async fn pause_status(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "table")?;
    let c = req.state();
    let typed = realtime_table(c, &name)?;
    let reason = realtime::pause_reason(c, &typed)?;
    json(&PauseStatus {
        comment: None,
        consuming_segments: consuming_segments(c, &typed)?,
        ..pause_details_for(reason, None)
    })
}

/// The table's segments still consuming.
fn consuming_segments(c: &Controller, typed: &str) -> Result<Vec<String>, ApiError> {
    Ok(c.segments(typed)?
        .into_iter()
        .filter(|s| s.is_consuming())
        .map(|s| s.segment_name)
        .collect())
}

/// `GET /tessera/catalog`: every table's raw name with its schema (what brokers plan with).
async fn catalog(req: Request<ControllerState>) -> tide::Result {
    let entries = catalog_entries(req.state())?;
    let dim_tables = entries
        .iter()
        .filter(|e| e.dim_table)
        .map(|e| e.name.clone())
        .collect();
    let statistics = entries
        .iter()
        .filter_map(|e| Some((e.name.clone(), e.statistics.clone()?)))
        .collect();
    let servers = entries
        .iter()
        .filter(|e| e.servers > 0)
        .map(|e| (e.name.clone(), e.servers))
        .collect();
    json(&Catalog {
        tables: Entries(entries.into_iter().map(|e| (e.name, e.schema)).collect()),
        dim_tables,
        statistics,
        servers,
    })
}

/// One table of the catalog brokers plan with.
pub struct CatalogEntry {
    /// Raw name.
    pub name: String,
    /// Its schema's JSON.
    pub schema: Json,
    /// Its OFFLINE config says `isDimTable` (Pinot's dimension tables are offline only).
    pub dim_table: bool,
    /// Its segments' figures together, if any segment has them.
    pub statistics: Option<Statistics>,
    /// How many servers its segments (both types) are assigned to.
    pub servers: usize,
}

/// The figures of a table's segments (both types of a hybrid table) together, and how many
/// servers they are assigned to, read in one pass over its segment records. A consuming
/// segment has no figures yet: it counts as many rows as the table's committed segments hold on
/// average (its columns' figures are those of the committed ones).
fn table_figures(c: &Controller, raw: &str) -> Result<(Option<Statistics>, usize), ApiError> {
    let mut all = Statistics::default();
    let mut consuming = 0u64;
    let mut committed = 0u64;
    let mut servers = std::collections::BTreeSet::new();
    for typed in [format!("{raw}_OFFLINE"), format!("{raw}_REALTIME")] {
        for s in c.segments(&typed)? {
            match &s.statistics {
                Some(stats) => {
                    all.merge(stats);
                    committed += 1;
                }
                None if s.is_consuming() => consuming += 1,
                None => {}
            }
            servers.extend(s.servers);
        }
    }
    if committed == 0 {
        return Ok((None, servers.len()));
    }
    all.rows += all.rows / committed * consuming;
    Ok((Some(all), servers.len()))
}

/// Every table with a schema, by raw name.
pub fn catalog_entries(c: &Controller) -> Result<Vec<CatalogEntry>, ApiError> {
    let mut tables: Vec<CatalogEntry> = Vec::new();
    for typed in c.table_names()? {
        let raw = table_name::split(&typed).0.to_string();
        if tables.iter().any(|t| t.name == raw) {
            continue;
        }
        if let Some(schema) = c.schema_json(&raw)? {
            let dim_table = c
                .table_config(&format!("{raw}_OFFLINE"))?
                .is_some_and(|config| config["isDimTable"].as_bool() == Some(true));
            let (statistics, servers) = table_figures(c, &raw)?;
            tables.push(CatalogEntry {
                name: raw,
                schema,
                dim_table,
                statistics,
                servers,
            });
        }
    }
    Ok(tables)
}
