//! `/schemas` endpoints (`PinotSchemaRestletResource`): list, get, add (with Pinot's
//! `override=true` default), replace, delete. Stored in Pinot's canonical JSON form.

use super::ControllerState;
use super::catalog::encode;
use super::follow_up::FollowUp;
use super::responses::{ConfigSuccess, Status, json};
use crate::http::body::{path_param, query_param, read_bounded};
use crate::http::routes::Routes;
use crate::http::{ApiError, multipart};
use crate::metadata::table_name;
use crate::metadata::{Op, keys};
use segments::types::Schema;
use tide::Request;

const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Mounts the schema endpoints.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Schema")
        .get("/schemas", "Lists schema names", list)
        .post("/schemas", "Adds a schema (override=true replaces)", add)
        .get("/schemas/:name", "Reads a schema", get)
        .put(
            "/schemas/:name",
            "Replaces a schema (reload=true reloads its tables)",
            replace,
        )
        .delete("/schemas/:name", "Deletes a schema no table uses", delete);
}

/// The config text of a request: the body, or the single part of a multipart form.
pub async fn config_text(req: &mut Request<ControllerState>) -> Result<String, ApiError> {
    let content_type = req
        .content_type()
        .map(|m| m.to_string())
        .unwrap_or_default();
    let body = read_bounded(req, MAX_CONFIG_BYTES).await?;
    let bytes = match multipart::boundary(&content_type) {
        Some(b) => {
            let mut parts = multipart::parse(&body, &b)?;
            if parts.len() != 1 {
                return Err(ApiError::bad_request("Invalid multi-part form for schema"));
            }
            parts.remove(0).data
        }
        None => body,
    };
    String::from_utf8(bytes).map_err(|_| ApiError::bad_request("request body is not valid UTF-8"))
}

fn parse_schema(text: &str) -> Result<Schema, ApiError> {
    let schema = Schema::from_json(text)
        .map_err(|e| ApiError::bad_request(format!("Invalid schema config json string: {e}")))?;
    if schema.schema_name.trim().is_empty() {
        return Err(ApiError::bad_request(
            "Invalid schema. Reason: 'schemaName' should not be null or empty",
        ));
    }
    schema.validate().map_err(|e| {
        ApiError::bad_request(format!(
            "Invalid schema: {}. Reason: {e}",
            schema.schema_name
        ))
    })?;
    Ok(schema)
}

/// Checks that `new` keeps every column of `old` with the same type and cardinality.
fn backward_compatible(old: &Schema, new: &Schema) -> Result<(), String> {
    for f in &old.fields {
        match new.field(&f.name) {
            None => return Err(format!("column '{}' was removed", f.name)),
            Some(n)
                if n.data_type != f.data_type || n.single_value_field != f.single_value_field =>
            {
                return Err(format!(
                    "column '{}' changed its data type or cardinality",
                    f.name
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn success(schema: &Schema, follow_up: Option<FollowUp>) -> tide::Result {
    json(&ConfigSuccess {
        unrecognized_properties: &schema.unrecognized,
        status: format!("{} successfully added", schema.schema_name),
        required_follow_up: follow_up.map(|f| f.as_str()),
    })
}

async fn list(req: Request<ControllerState>) -> tide::Result {
    json(&req.state().schema_names()?)
}

async fn get(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "name")?;
    match req.state().schema_json(&name)? {
        Some(j) => json(&j),
        None => Err(ApiError::not_found("Schema not found").into()),
    }
}

/// Stores `schema` (replacing `existing` if any) and returns the follow-up it needs.
fn store(
    c: &ControllerState,
    schema: &Schema,
    existing: Option<Schema>,
    force: bool,
) -> Result<FollowUp, ApiError> {
    let name = &schema.schema_name;
    let mut follow_up = FollowUp::None;
    if let Some(old) = existing {
        if !force {
            backward_compatible(&old, schema).map_err(|e| {
                ApiError::bad_request(format!("Backward incompatible schema {name}. Reason: {e}"))
            })?;
        }
        let in_use = !c.existing_tables(name, None)?.is_empty();
        if in_use && old != *schema {
            follow_up = FollowUp::Reload;
        }
    }
    c.commit(vec![Op::Put(keys::schema(name), encode(&schema.to_json()))])?;
    Ok(follow_up)
}

async fn add(mut req: Request<ControllerState>) -> tide::Result {
    let override_existing =
        query_param(&req, "override").is_none_or(|v| !v.eq_ignore_ascii_case("false"));
    let force = query_param(&req, "force").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let text = config_text(&mut req).await?;
    let schema = parse_schema(&text)?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let existing = c.schema(&schema.schema_name)?;
    if existing.is_some() && !override_existing {
        return Err(
            ApiError::conflict(format!("Schema: {} already exists", schema.schema_name)).into(),
        );
    }
    store(c, &schema, existing, force)?;
    success(&schema, None)
}

async fn replace(mut req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "name")?;
    let force = query_param(&req, "force").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let text = config_text(&mut req).await?;
    let schema = parse_schema(&text)?;
    if schema.schema_name != name {
        return Err(ApiError::bad_request(format!(
            "Schema name mismatch for uploaded schema, tried to add schema with name {} as {name}",
            schema.schema_name
        ))
        .into());
    }
    let c = req.state();
    let _guard = c.lock_writes().await?;
    let existing = c
        .schema(&name)?
        .ok_or_else(|| ApiError::not_found(format!("Failed to find schema {name}")))?;
    let follow_up = store(c, &schema, Some(existing), force)?;
    success(&schema, Some(follow_up))
}

async fn delete(req: Request<ControllerState>) -> tide::Result {
    let name = path_param(&req, "name")?;
    let c = req.state();
    let _guard = c.lock_writes().await?;
    if c.schema_json(&name)?.is_none() {
        return Err(ApiError::not_found(format!("Schema {name} not found")).into());
    }
    for t in table_name::ALL_TYPES {
        let typed = table_name::with_type(&name, t);
        if c.table_config(&typed)?.is_some() {
            return Err(ApiError::conflict(format!(
                "Cannot delete schema {name}, as it is associated with table {typed}"
            ))
            .into());
        }
    }
    c.commit(vec![Op::Delete(keys::schema(&name))])?;
    json(&Status::new(format!("Schema {name} deleted")))
}
