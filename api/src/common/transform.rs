//! `ingestionConfig.transformConfigs` for file ingestion, done with the query engine: the input
//! file is first built into a *staging* segment holding the input's own columns, then
//! `SELECT <transform or column>, … FROM staging` runs over it with the engine's server half,
//! and its typed rows (cast to the schema's types) become the table's segment. So transform
//! functions are exactly the query engine's functions (`fromEpochDays(d)`, `upper(s)`, …).
//!
//! Staging column types: a column the table schema declares (and does not derive) keeps its
//! type; an input-only column gets LONG if every value is an integer, DOUBLE if every value is
//! a number, else STRING.

use engine::server::execute_server;
use engine::server::result::IntermediateData;
use engine::{MemoryTables, QueryContext, TableProvider, plan_sql};
use planner::plan::QueryPlan;
use segments::types::table_config::expression_arguments;
use segments::types::{DataType, FieldSpec, Schema, Value};
use segments::{BuildConfig, ImmutableSegment, InputFormat, InputSource, build_segment};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

/// `columnName → transformFunction` of a table config.
pub fn transforms(config: &Json) -> BTreeMap<String, String> {
    config["ingestionConfig"]["transformConfigs"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            Some((
                t["columnName"].as_str()?.to_string(),
                t["transformFunction"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// `ingestionConfig.filterConfig.filterFunction` of a table config: rows for which it is true
/// are not ingested.
pub fn filter_function(config: &Json) -> Option<String> {
    config["ingestionConfig"]["filterConfig"]["filterFunction"]
        .as_str()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(str::to_string)
}

/// Refuses what the engine cannot evaluate as a transform or filter: Groovy scripts (which
/// Pinot's controller disables by default too).
pub fn check_functions(config: &Json) -> Result<(), String> {
    let groovy = |f: &str| f.trim_start().to_ascii_lowercase().starts_with("groovy(");
    if let Some(f) = filter_function(config).filter(|f| groovy(f)) {
        return Err(format!(
            "Groovy filter functions are disabled for table config: '{f}'; use a SQL expression (rows where it is true are dropped)"
        ));
    }
    if let Some((c, f)) = transforms(config).into_iter().find(|(_, f)| groovy(f)) {
        return Err(format!(
            "Groovy transform functions are disabled for table config: column '{c}': '{f}'; use the query engine's functions"
        ));
    }
    Ok(())
}

#[derive(Default, Clone, Copy)]
struct Seen {
    any: bool,
    all_int: bool,
    all_num: bool,
}

impl Seen {
    fn new() -> Seen {
        Seen {
            any: false,
            all_int: true,
            all_num: true,
        }
    }
    fn text(&mut self, s: &str) {
        let s = s.trim();
        if s.is_empty() {
            return;
        }
        self.any = true;
        self.all_int &= s.parse::<i64>().is_ok();
        self.all_num &= s.parse::<f64>().is_ok();
    }
    fn data_type(self) -> DataType {
        match (self.any, self.all_int, self.all_num) {
            (true, true, _) => DataType::Long,
            (true, false, true) => DataType::Double,
            _ => DataType::String,
        }
    }
}

/// Input column names (in file order), the inferred type of each and whether it is
/// single-value (a Parquet file says both; CSV and JSON cells are single values).
fn scan_input(input: &InputSource) -> Result<Vec<(String, DataType, bool)>, String> {
    let (path, format) = (input.path.as_path(), input.format);
    let mut order = Vec::new();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    match format {
        InputFormat::Csv => {
            let text = segments::input::open_text(path).map_err(|e| e.to_string())?;
            let given = input.options.header.as_deref();
            let mut reader = csv::ReaderBuilder::new()
                .delimiter(input.options.delimiter)
                .quote(input.options.quote)
                .has_headers(given.is_none())
                .from_reader(text);
            let headers: Vec<String> = match given {
                Some(h) => h
                    .split(char::from(input.options.delimiter))
                    .map(str::to_string)
                    .collect(),
                None => reader
                    .headers()
                    .map_err(|e| e.to_string())?
                    .iter()
                    .map(str::to_string)
                    .collect(),
            };
            for h in &headers {
                order.push(h.clone());
                seen.insert(h.clone(), Seen::new());
            }
            for record in reader.records() {
                let record = record.map_err(|e| e.to_string())?;
                for (h, cell) in headers.iter().zip(record.iter()) {
                    if let Some(s) = seen.get_mut(h)
                        && input.options.null_string.as_deref() != Some(cell)
                    {
                        s.text(cell);
                    }
                }
            }
        }
        InputFormat::Parquet if input.options.complex.is_none() => {
            return segments::input::parquet_columns(path).map_err(|e| e.to_string());
        }
        InputFormat::Avro if input.options.complex.is_none() => {
            return segments::input::avro_columns(path).map_err(|e| e.to_string());
        }
        InputFormat::Orc if input.options.complex.is_none() => {
            return segments::input::orc_columns(path).map_err(|e| e.to_string());
        }
        // Whole records (reshaped by the table's complexTypeConfig, if any).
        InputFormat::Json | InputFormat::Parquet | InputFormat::Avro | InputFormat::Orc => {
            for record in segments::input::records::records(input).map_err(|e| e.to_string())? {
                let (_, row) = record.map_err(|e| e.to_string())?;
                for (k, v) in row {
                    let s = seen.entry(k.clone()).or_insert_with(|| {
                        order.push(k.clone());
                        Seen::new()
                    });
                    match v {
                        Json::Null => {}
                        Json::Number(n) => s.text(&n.to_string()),
                        Json::String(t) => s.text(&t),
                        other => s.text(&other.to_string()),
                    }
                }
            }
        }
    }
    Ok(order
        .into_iter()
        .map(|c| {
            let t = seen.get(&c).copied().unwrap_or_default().data_type();
            (c, t, true)
        })
        .collect())
}

fn quote(column: &str) -> String {
    format!("\"{}\"", column.replace('"', "\"\""))
}

/// Reads `input`, applies `transforms`, drops the rows `filter` is true for, and returns rows
/// in `schema` field order. Blocking; run on rayon.
pub fn transformed_rows(
    schema: &Schema,
    transforms: &BTreeMap<String, String>,
    filter: Option<&str>,
    input: &InputSource,
    work_dir: &Path,
) -> Result<Vec<Vec<Value>>, String> {
    // Staged: the input columns the table keeps or a transform or the filter reads, nothing else.
    let needed: BTreeSet<String> = schema
        .fields
        .iter()
        .map(|f| f.name.clone())
        .chain(transforms.values().flat_map(|t| expression_arguments(t)))
        .chain(filter.into_iter().flat_map(expression_arguments))
        .collect();
    let mut columns = scan_input(input)?;
    columns.retain(|(name, _, _)| needed.contains(name));
    let input_names: BTreeSet<&str> = columns.iter().map(|(c, _, _)| c.as_str()).collect();
    let staging_fields: Vec<FieldSpec> = columns
        .iter()
        .map(|(name, inferred, single)| {
            let declared = schema
                .field(name)
                .filter(|_| !transforms.contains_key(name));
            let mut f = FieldSpec::dimension(name, declared.map_or(*inferred, |d| d.data_type));
            f.single_value_field = declared.map_or(*single, |d| d.single_value_field);
            f
        })
        .collect();
    let staging_schema = Schema {
        schema_name: "tessera_staging".into(),
        fields: staging_fields,
        ..Schema::default()
    };
    // The staging segment keeps every null; the final build decides which columns keep theirs.
    let staging_config = BuildConfig {
        null_handling: true,
        ..BuildConfig::new("tessera_staging", "staging")
    };
    build_segment(
        &staging_schema,
        &staging_config,
        input,
        work_dir,
        &mut |_| {},
    )
    .map_err(|e| format!("cannot read the input file: {e}"))?;
    let staging =
        Arc::new(ImmutableSegment::open(&work_dir.join("staging")).map_err(|e| e.to_string())?);

    // One SELECT expression per target column that the input or a transform provides.
    let exprs = schema
        .fields
        .iter()
        .map(|f| match transforms.get(&f.name) {
            Some(t) => Some(t.clone()),
            None if input_names.contains(f.name.as_str()) => Some(quote(&f.name)),
            None => None,
        })
        .collect();
    select_rows(schema, exprs, filter, staging_schema, staging)
}

/// The schema a segment was built with, from its metadata.
pub fn segment_schema(segment: &ImmutableSegment) -> Schema {
    let fields = segment
        .metadata()
        .columns
        .iter()
        .map(|c| FieldSpec {
            field_type: c.field_type,
            single_value_field: c.single_value,
            ..FieldSpec::dimension(&c.name, c.data_type)
        })
        .collect();
    Schema {
        schema_name: "tessera_source".into(),
        fields,
        ..Schema::default()
    }
}

/// The rows of `segment` in `schema` field order (a field the segment lacks is NULL), leaving
/// out those `filter` is true for: read straight from the columns when nothing needs the engine
/// ([`read_rows`]), else through it ([`select_rows`]: a filter, or a column whose type changed
/// since the segment was built). Blocking; run on rayon.
pub fn segment_rows(
    schema: &Schema,
    segment: Arc<ImmutableSegment>,
    filter: Option<&str>,
) -> Result<Vec<Vec<Value>>, String> {
    if filter.is_none()
        && let Some(rows) = read_rows(schema, &segment)
    {
        return Ok(rows);
    }
    let source_schema = segment_schema(&segment);
    let exprs = schema
        .fields
        .iter()
        .map(|f| source_schema.field(&f.name).map(|_| quote_column(&f.name)))
        .collect();
    select_rows(schema, exprs, filter, source_schema, segment)
}

/// Every row of `segment` in `schema` field order, read straight from its columns (no query
/// plan): a field the segment lacks is NULL. `None` when a column's type or arity differs from
/// the schema's (the engine's casts are needed: use [`select_rows`]).
pub fn read_rows(schema: &Schema, segment: &ImmutableSegment) -> Option<Vec<Vec<Value>>> {
    let docs = segment.total_docs();
    let mut columns = Vec::with_capacity(schema.fields.len());
    for f in &schema.fields {
        match segment.column(&f.name) {
            None => columns.push(None),
            Some(c)
                if c.data_type() == f.data_type && c.is_single_value() == f.single_value_field =>
            {
                columns.push(Some(c.values(docs).into_iter()))
            }
            Some(_) => return None,
        }
    }
    Some(
        (0..docs)
            .map(|_| {
                columns
                    .iter_mut()
                    .map(|c| c.as_mut().and_then(Iterator::next).unwrap_or(Value::Null))
                    .collect()
            })
            .collect(),
    )
}

/// Runs `SELECT exprs… FROM source LIMIT <all>` over one segment with the engine's server half
/// and returns rows in `schema` field order (`None` expressions give NULL; values are cast to
/// the field types), leaving out the rows `filter` is true for. Blocking; run on rayon.
pub fn select_rows(
    schema: &Schema,
    exprs: Vec<Option<String>>,
    filter: Option<&str>,
    source_schema: Schema,
    source: Arc<ImmutableSegment>,
) -> Result<Vec<Vec<Value>>, String> {
    let docs = source.total_docs();
    let mut listed = Vec::new();
    let slots: Vec<Option<usize>> = exprs
        .into_iter()
        .map(|e| {
            e.map(|e| {
                listed.push(e);
                listed.len() - 1
            })
        })
        .collect();
    if listed.is_empty() {
        return Err("the input has none of the table's columns".into());
    }
    // With null handling, a null input stays null through a transform (`upper(NULL)` is NULL,
    // not the upper-cased default value); the final build decides what a null becomes.
    // As Pinot's filter: a row is dropped only when the function is true (not when null); the
    // function is one more selected value, so the engine's projection decides it row by row.
    let dropped_slot = filter.map(|f| {
        listed.push(format!("CASE WHEN ({f}) THEN 1 ELSE 0 END"));
        listed.len() - 1
    });
    let sql = format!(
        "SET enableNullHandling = true; SELECT {} FROM tessera_source LIMIT {}",
        listed.join(", "),
        docs.max(1)
    );
    let mut tables = MemoryTables::new();
    tables.add("tessera_source", source_schema, vec![source]);
    let (plan, _) = plan_sql(&sql, None, &tables).map_err(|e| {
        format!(
            "invalid transform or filter function: {}",
            e.pinot_message()
        )
    })?;
    let QueryPlan::SingleStage(plan) = plan else {
        return Err("transform functions must reference input columns".into());
    };
    let ctx = QueryContext::new(plan.server.options.clone());
    let result = execute_server(&plan.server, &tables.segments("tessera_source"), &ctx);
    if let Some(e) = result.exceptions.first() {
        return Err(format!("transform failed: {}", e.message));
    }
    let IntermediateData::Rows(rows) = result.data else {
        return Err("transform query did not produce rows".into());
    };
    rows.into_iter()
        .filter(|row| {
            dropped_slot.is_none_or(|i| !matches!(row.get(i), Some(v) if v.as_f64() == Some(1.0)))
        })
        .map(|row| {
            schema
                .fields
                .iter()
                .zip(&slots)
                .map(|(f, slot)| match slot.and_then(|i| row.get(i).cloned()) {
                    None | Some(Value::Null) => Ok(Value::Null),
                    Some(v @ Value::Array(_)) => Ok(v),
                    Some(v) if v.data_type() == Some(f.data_type) => Ok(v),
                    Some(v) => v
                        .cast(f.data_type)
                        .map_err(|e| format!("column '{}': {e}", f.name)),
                })
                .collect()
        })
        .collect()
}

/// Quotes a column name for the SQL the transforms run as.
pub fn quote_column(column: &str) -> String {
    quote(column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_columns_with_engine_functions() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.csv");
        std::fs::write(&input, "name,days,score\nann,18262,1.5\nbob,18263,2\n").unwrap();
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"NAME","dataType":"STRING"},{"name":"name","dataType":"STRING"}],
               "metricFieldSpecs":[{"name":"score","dataType":"DOUBLE"}],
               "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"1:MILLISECONDS:TIMESTAMP","granularity":"1:DAYS"}]}"#,
        )
        .unwrap();
        let t = BTreeMap::from([
            ("NAME".to_string(), "upper(name)".to_string()),
            ("ts".to_string(), "fromEpochDays(days)".to_string()),
        ]);
        let work = dir.path().join("work");
        let rows = transformed_rows(
            &schema,
            &t,
            None,
            &InputSource {
                path: input,
                format: InputFormat::Csv,
                options: Default::default(),
            },
            &work,
        )
        .unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0][0], Value::String("ANN".into()));
        assert_eq!(rows[0][1], Value::String("ann".into()));
        assert_eq!(rows[1][2], Value::Double(2.0));
        assert_eq!(rows[0][3], Value::Timestamp(18262 * 86_400_000));
    }
}

#[cfg(test)]
mod read_rows_tests {
    use super::*;

    /// Reading columns straight answers what the engine's read answers, nulls, multi-values,
    /// timestamps, raw and dictionary columns included.
    #[test]
    fn read_rows_equals_the_engine_read() {
        let dir = tempfile::tempdir().unwrap();
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"s","dataType":"STRING"},
               {"name":"tags","dataType":"STRING","singleValueField":false},{"name":"n","dataType":"INT"}],
               "metricFieldSpecs":[{"name":"m","dataType":"DOUBLE"}],
               "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"1:MILLISECONDS:TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap();
        let config = serde_json::json!({"tableName": "t", "tableType": "OFFLINE",
            "segmentsConfig": {}, "tenants": {},
            "tableIndexConfig": {"noDictionaryColumns": ["m"]},
            "fieldConfigList": [], "metadata": {}});
        let mut build = BuildConfig::from_table_config_json(&config, &schema, Some("seg")).unwrap();
        build.null_handling = true;
        let rows: Vec<Vec<Value>> = (0..300)
            .map(|i| {
                vec![
                    if i % 7 == 0 {
                        Value::Null
                    } else {
                        Value::String(format!("s{}", i % 5))
                    },
                    Value::Array((0..i % 3).map(|k| Value::String(format!("t{k}"))).collect()),
                    if i % 11 == 0 {
                        Value::Null
                    } else {
                        Value::Int(i % 4)
                    },
                    Value::Double(i as f64 / 3.0),
                    Value::Timestamp(1_700_000_000_000 + i64::from(i)),
                ]
            })
            .collect();
        segments::build_segment_from_rows(&schema, &build, rows.into_iter().map(Ok), dir.path())
            .unwrap();
        let seg = Arc::new(ImmutableSegment::open(&dir.path().join("seg")).unwrap());
        let fast = read_rows(&schema, &seg).unwrap();
        let exprs = schema
            .fields
            .iter()
            .map(|f| Some(quote_column(&f.name)))
            .collect();
        let engine = select_rows(&schema, exprs, None, segment_schema(&seg), seg.clone()).unwrap();
        assert_eq!(fast.len(), 300);
        assert_eq!(fast, engine);
    }
}
