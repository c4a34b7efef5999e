//! The timestamp index (Pinot's `TimestampIndexUtils`): for a single-value column stored as
//! LONG (TIMESTAMP or LONG) whose `fieldConfigList` entry has `timestampConfig.granularities`,
//! the build adds one derived column per granularity, named `$<column>$<GRANULARITY>`
//! (`$ts$DAY`), holding `dateTrunc('<GRANULARITY>', column)` in UTC epoch milliseconds, with a
//! dictionary and a range index.
//!
//! Derived columns are computed here from the source value of each row (one place for both
//! input paths: [`read_input`] wraps the source column's sink, [`push_row`] serves typed rows),
//! so a reload that rebuilds a segment recomputes them from the current config. They are stored
//! as LONG — the type `dateTrunc` returns — so a query rewritten to read `$ts$DAY` instead of
//! computing `dateTrunc('DAY', ts)` answers exactly the same values (Pinot types them
//! TIMESTAMP). Like Pinot's other `$`-columns they are not part of `SELECT *`.
//!
//! Nulls carry over: a null source cell makes a null derived cell, whose stored default is the
//! truncated default of the source, so both read the same with and without null handling.

use crate::builder::collector::{
    ColumnCollector, Scalar, json_to_value, parse_text, scalar_of_value,
};
use crate::error::SegmentError;
use crate::input::{CellError, CellSink, InputSource};
pub use crate::types::table_config::TimestampGranularity;
use crate::types::time::{DateTime, MILLIS_PER_DAY, days_from_civil};
use crate::types::{DataType, DocId, FieldSpec, FieldType, Schema, StoredType, Value};

/// One derived column of a timestamp index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedColumn {
    /// The timestamp column it is computed from.
    pub source: String,
    pub granularity: TimestampGranularity,
    /// `$<source>$<GRANULARITY>`.
    pub name: String,
}

impl DerivedColumn {
    /// The derived column of `source` at `granularity`.
    pub fn new(source: &str, granularity: TimestampGranularity) -> DerivedColumn {
        DerivedColumn {
            source: source.to_string(),
            granularity,
            name: granularity.derived_column(source),
        }
    }

    /// The derived column's field spec: a LONG date-time column (format
    /// `1:MILLISECONDS:EPOCH`, granularity as Pinot's, e.g. `7:DAYS` for WEEK) that keeps
    /// nulls when the source does, with the truncated source default as its default.
    pub fn field_spec(&self, source: &FieldSpec) -> FieldSpec {
        let default = match source.default_null().as_i64() {
            Some(ms) => truncate(self.granularity, ms),
            None => 0,
        };
        FieldSpec {
            field_type: FieldType::DateTime,
            not_null: source.not_null,
            default_null_value: Some(default.into()),
            format: Some("1:MILLISECONDS:EPOCH".into()),
            granularity: Some(self.granularity.granularity_spec().into()),
            ..FieldSpec::dimension(&self.name, DataType::Long)
        }
    }

    /// The derived value of one source value: `dateTrunc` of its epoch millis, null for null.
    pub fn derive(&self, source: &Value) -> Value {
        match source.as_i64() {
            Some(ms) if !source.is_null() => Value::Long(truncate(self.granularity, ms)),
            _ => Value::Null,
        }
    }
}

/// Parses a derived column name `$<column>$<GRANULARITY>` (granularity case-sensitive, as
/// Pinot's `isValidColumnWithGranularity`) into its source column and granularity.
pub fn parse_derived_name(name: &str) -> Option<(&str, TimestampGranularity)> {
    let rest = name.strip_prefix('$')?;
    let (source, granularity) = rest.rsplit_once('$')?;
    let g = TimestampGranularity::parse(granularity).filter(|g| g.name() == granularity)?;
    (!source.is_empty()).then_some((source, g))
}

/// `dateTrunc('<granularity>', ms)` in UTC, exactly as the `dateTrunc` scalar function computes
/// it: fixed units floor (toward negative infinity), weeks start on Monday, quarters in
/// January, April, July and October; arithmetic saturates at the `i64` range.
pub fn truncate(granularity: TimestampGranularity, ms: i64) -> i64 {
    use TimestampGranularity as G;
    let floor = |size: i64| ms.div_euclid(size).saturating_mul(size);
    let fixed = match granularity {
        G::Millisecond => Some(1),
        G::Second => Some(1_000),
        G::Minute => Some(60_000),
        G::Hour => Some(3_600_000),
        G::Day => Some(MILLIS_PER_DAY),
        G::Week | G::Month | G::Quarter | G::Year => None,
    };
    if let Some(size) = fixed {
        return floor(size);
    }
    let day_start = floor(MILLIS_PER_DAY);
    let t = DateTime::from_millis(day_start);
    let first = |year, month| days_from_civil(year, month, 1).saturating_mul(MILLIS_PER_DAY);
    match granularity {
        G::Week => day_start.saturating_sub((t.day_of_week() as i64 - 1) * MILLIS_PER_DAY),
        G::Month => first(t.year, t.month),
        G::Quarter => first(t.year, (t.month - 1) / 3 * 3 + 1),
        _ => first(t.year, 1),
    }
}

/// Checks a timestamp index's source column as Pinot does: in the schema, stored as LONG,
/// single-value.
pub fn validate_source(schema: &Schema, column: &str) -> Result<(), SegmentError> {
    let f = schema.field(column).ok_or_else(|| {
        SegmentError::Config(format!(
            "column '{column}' of the timestamp index is not in the schema"
        ))
    })?;
    if f.data_type.stored() != StoredType::Long {
        return Err(SegmentError::Config(format!(
            "cannot create a timestamp index on column '{column}' of type {} (needs TIMESTAMP or LONG)",
            f.data_type.name()
        )));
    }
    if !f.single_value_field {
        return Err(SegmentError::Config(format!(
            "cannot create a timestamp index on multi-value column '{column}'"
        )));
    }
    Ok(())
}

/// `schema` plus the derived columns (appended in `derived` order).
pub fn extend_schema(schema: &Schema, derived: &[DerivedColumn]) -> Result<Schema, SegmentError> {
    let mut full = schema.clone();
    for d in derived {
        validate_source(schema, &d.source)?;
        if schema.field(&d.name).is_some() {
            return Err(SegmentError::Config(format!(
                "column '{}' of the timestamp index on '{}' is also declared in the schema",
                d.name, d.source
            )));
        }
        let source = schema.field(&d.source).ok_or_else(|| {
            SegmentError::Config(format!("column '{}' is not in the schema", d.source))
        })?;
        full.fields.push(d.field_spec(source));
    }
    Ok(full)
}

/// The epoch millis of a source cell the source collector accepted.
fn millis_of(scalar: Result<Scalar<'_>, String>) -> Option<i64> {
    match scalar {
        Ok(Scalar::I64(v)) => Some(v),
        Ok(Scalar::I32(v)) => Some(v.into()),
        _ => None,
    }
}

/// A source column's sink that also feeds its derived columns.
struct DerivingSink<'a> {
    source: &'a mut ColumnCollector,
    derived: Vec<(TimestampGranularity, &'a mut ColumnCollector)>,
}

impl DerivingSink<'_> {
    fn push(&mut self, doc: DocId, ms: Option<i64>) -> Result<(), SegmentError> {
        for (g, c) in &mut self.derived {
            push_derived(c, *g, doc, ms)?;
        }
        Ok(())
    }
}

/// Appends one derived cell: the truncated source millis, or null.
fn push_derived(
    c: &mut ColumnCollector,
    g: TimestampGranularity,
    doc: DocId,
    ms: Option<i64>,
) -> Result<(), SegmentError> {
    let r = match ms {
        Some(ms) => c.push_value(doc, &Value::Long(truncate(g, ms))),
        None => Ok(c.push_null(doc)?),
    };
    r.map_err(|e| {
        e.locate(|reason| {
            SegmentError::Schema(format!(
                "derived column '{}' rejected a value: {reason}",
                c.spec.name
            ))
        })
    })
}

impl CellSink for DerivingSink<'_> {
    fn text(&mut self, doc: DocId, text: &[u8]) -> Result<(), CellError> {
        self.source.text(doc, text)?;
        if !self.derived.is_empty() {
            let ms = millis_of(parse_text(self.source.data_type(), text));
            self.push(doc, ms)?;
        }
        Ok(())
    }

    fn json(&mut self, doc: DocId, v: &serde_json::Value) -> Result<(), CellError> {
        self.source.json(doc, v)?;
        if !self.derived.is_empty() {
            let dt = self.source.data_type();
            let ms = json_to_value(dt, v)
                .ok()
                .and_then(|value| millis_of(scalar_of_value(dt, &value)));
            self.push(doc, ms)?;
        }
        Ok(())
    }

    fn value(&mut self, doc: DocId, v: &Value) -> Result<(), CellError> {
        self.source.value(doc, v)?;
        if !self.derived.is_empty() {
            let ms = millis_of(scalar_of_value(self.source.data_type(), v));
            self.push(doc, ms)?;
        }
        Ok(())
    }

    fn null(&mut self, doc: DocId) -> Result<(), SegmentError> {
        self.source.null(doc)?;
        self.push(doc, None)
    }

    fn expect_rows(&mut self, rows: u64) {
        self.source.expect_rows(rows);
    }
}

/// Reads `input` into `cols` — one collector per field of `schema`, then one per derived
/// column — computing the derived columns from their sources. Without derived columns this is
/// plain [`crate::input::read_input`].
pub fn read_input(
    input: &InputSource,
    schema: &Schema,
    derived: &[DerivedColumn],
    cols: &mut [ColumnCollector],
    progress: &mut dyn FnMut(u64),
) -> Result<u32, SegmentError> {
    if derived.is_empty() {
        return crate::input::read_input(input, schema, cols, progress);
    }
    let (base, extra) = cols.split_at_mut(schema.fields.len());
    let mut buckets: Vec<Vec<(TimestampGranularity, &mut ColumnCollector)>> =
        (0..base.len()).map(|_| Vec::new()).collect();
    for (c, d) in extra.iter_mut().zip(derived) {
        let i = source_index(schema, d)?;
        buckets[i].push((d.granularity, c));
    }
    let mut sinks: Vec<DerivingSink<'_>> = base
        .iter_mut()
        .zip(buckets)
        .map(|(source, derived)| DerivingSink { source, derived })
        .collect();
    crate::input::read_input(input, schema, &mut sinks, progress)
}

fn source_index(schema: &Schema, d: &DerivedColumn) -> Result<usize, SegmentError> {
    schema
        .fields
        .iter()
        .position(|f| f.name == d.source)
        .ok_or_else(|| SegmentError::Config(format!("column '{}' is not in the schema", d.source)))
}

/// Pushes the derived cells of one typed row (`row` in `schema` order, already accepted by
/// the source collectors) into `extra`, the derived columns' collectors in `derived` order.
pub fn push_row(
    schema: &Schema,
    derived: &[DerivedColumn],
    extra: &mut [ColumnCollector],
    doc: DocId,
    row: &[Value],
) -> Result<(), SegmentError> {
    for (c, d) in extra.iter_mut().zip(derived) {
        let i = source_index(schema, d)?;
        let dt = schema.fields[i].data_type;
        let ms = match row.get(i) {
            None | Some(Value::Null) => None,
            Some(v) => millis_of(scalar_of_value(dt, v)),
        };
        push_derived(c, d.granularity, doc, ms)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use TimestampGranularity as G;

    /// Epoch millis of a UTC date-time.
    fn at(y: i64, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32) -> i64 {
        DateTime {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            millis: ms,
        }
        .to_millis()
    }

    #[test]
    fn truncates_every_granularity() {
        // 2021-12-14T11:23:01.746Z, a Tuesday.
        let t = at(2021, 12, 14, 11, 23, 1, 746);
        let cases = [
            (G::Millisecond, t),
            (G::Second, at(2021, 12, 14, 11, 23, 1, 0)),
            (G::Minute, at(2021, 12, 14, 11, 23, 0, 0)),
            (G::Hour, at(2021, 12, 14, 11, 0, 0, 0)),
            (G::Day, at(2021, 12, 14, 0, 0, 0, 0)),
            (G::Week, at(2021, 12, 13, 0, 0, 0, 0)),
            (G::Month, at(2021, 12, 1, 0, 0, 0, 0)),
            (G::Quarter, at(2021, 10, 1, 0, 0, 0, 0)),
            (G::Year, at(2021, 1, 1, 0, 0, 0, 0)),
        ];
        for (g, want) in cases {
            assert_eq!(truncate(g, t), want, "{g:?}");
        }
    }

    #[test]
    fn truncates_before_1970_and_on_boundaries() {
        // 1969-12-31T23:59:59.999Z is a Wednesday: floors go down, not toward zero.
        assert_eq!(truncate(G::Second, -1), -1_000);
        assert_eq!(truncate(G::Day, -1), -MILLIS_PER_DAY);
        assert_eq!(truncate(G::Week, -1), at(1969, 12, 29, 0, 0, 0, 0));
        assert_eq!(truncate(G::Month, -1), at(1969, 12, 1, 0, 0, 0, 0));
        assert_eq!(truncate(G::Quarter, -1), at(1969, 10, 1, 0, 0, 0, 0));
        assert_eq!(truncate(G::Year, -1), at(1969, 1, 1, 0, 0, 0, 0));
        // Exactly on a boundary stays; one millisecond before falls to the previous unit.
        let q = at(2024, 4, 1, 0, 0, 0, 0);
        assert_eq!(truncate(G::Quarter, q), q);
        assert_eq!(truncate(G::Quarter, q - 1), at(2024, 1, 1, 0, 0, 0, 0));
        assert_eq!(
            truncate(G::Month, at(2024, 2, 29, 23, 59, 59, 999)),
            at(2024, 2, 1, 0, 0, 0, 0)
        );
        assert_eq!(
            truncate(G::Year, at(2024, 12, 31, 23, 59, 59, 999)),
            at(2024, 1, 1, 0, 0, 0, 0)
        );
        // Week of 2021-01-01 (a Friday) starts in the previous year.
        assert_eq!(
            truncate(G::Week, at(2021, 1, 1, 5, 0, 0, 0)),
            at(2020, 12, 28, 0, 0, 0, 0)
        );
        // A Monday is its own week start; Sunday belongs to the week before.
        assert_eq!(
            truncate(G::Week, at(2024, 1, 1, 0, 0, 0, 1)),
            at(2024, 1, 1, 0, 0, 0, 0)
        );
        assert_eq!(
            truncate(G::Week, at(2024, 1, 7, 23, 0, 0, 0)),
            at(2024, 1, 1, 0, 0, 0, 0)
        );
        assert_eq!(
            truncate(G::Year, at(1900, 3, 1, 0, 0, 0, 0)),
            at(1900, 1, 1, 0, 0, 0, 0)
        );
        // Extremes saturate instead of overflowing.
        for g in [G::Day, G::Week, G::Month, G::Quarter, G::Year] {
            assert_eq!(truncate(g, i64::MIN), i64::MIN, "{g:?}");
            assert!(
                i64::MAX - truncate(g, i64::MAX) < 366 * MILLIS_PER_DAY,
                "{g:?}"
            );
        }
    }

    #[test]
    fn names_and_specs() {
        let d = DerivedColumn::new("ts", G::Week);
        assert_eq!(d.name, "$ts$WEEK");
        assert_eq!(parse_derived_name("$ts$WEEK"), Some(("ts", G::Week)));
        assert_eq!(parse_derived_name("$a$b$DAY"), Some(("a$b", G::Day)));
        assert_eq!(parse_derived_name("$ts$week"), None);
        assert_eq!(parse_derived_name("$ts$DECADE"), None);
        assert_eq!(parse_derived_name("ts$DAY"), None);
        assert_eq!(parse_derived_name("$$DAY"), None);
        let mut source = FieldSpec::dimension("ts", DataType::Timestamp);
        source.not_null = true;
        let spec = d.field_spec(&source);
        assert_eq!(spec.data_type, DataType::Long);
        assert_eq!(spec.granularity.as_deref(), Some("7:DAYS"));
        assert!(spec.not_null);
        // TIMESTAMP's default null is epoch 0, a Thursday: its week starts on Monday 1969-12-29.
        assert_eq!(
            spec.default_null(),
            Value::Long(at(1969, 12, 29, 0, 0, 0, 0))
        );
        assert_eq!(
            d.derive(&Value::Timestamp(-1)),
            Value::Long(at(1969, 12, 29, 0, 0, 0, 0))
        );
        assert_eq!(d.derive(&Value::Null), Value::Null);
    }

    #[test]
    fn sources_must_be_single_value_longs() {
        let schema = Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[
                {"name":"s","dataType":"STRING"},{"name":"l","dataType":"LONG","singleValueField":false}],
              "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap();
        assert!(validate_source(&schema, "ts").is_ok());
        let err = |c: &str| validate_source(&schema, c).unwrap_err().to_string();
        assert!(err("s").contains("of type STRING"), "{}", err("s"));
        assert!(err("l").contains("multi-value column 'l'"));
        assert!(err("nope").contains("'nope'"));
        let full = extend_schema(&schema, &[DerivedColumn::new("ts", G::Day)]).unwrap();
        assert_eq!(full.fields.last().map(|f| f.name.as_str()), Some("$ts$DAY"));
        let mut clash = schema.clone();
        clash
            .fields
            .push(FieldSpec::dimension("$ts$DAY", DataType::Long));
        assert!(extend_schema(&clash, &[DerivedColumn::new("ts", G::Day)]).is_err());
    }

    /// The value of `column` at every doc of an opened segment.
    fn column_values(seg: &crate::segment::ImmutableSegment, column: &str) -> Vec<Value> {
        let c = seg.column(column).expect("column");
        let dict = c.dictionary().expect("dictionary");
        let crate::forward::ForwardIndex::Dict(f) = c.forward() else {
            panic!("'{column}' is not dictionary-encoded")
        };
        (0..seg.total_docs())
            .map(|d| dict.value(f.get(d)))
            .collect()
    }

    fn check_segment(dir: &std::path::Path, source: &[Option<i64>]) {
        use crate::index::IndexKind;
        let seg = crate::segment::ImmutableSegment::open(dir).unwrap();
        let names: Vec<&str> = seg.columns().map(|c| c.name()).collect();
        assert_eq!(names, ["id", "ts", "$ts$DAY", "$ts$WEEK", "$ts$MONTH"]);
        let ts = column_values(&seg, "ts");
        let ts_nulls = seg
            .column("ts")
            .unwrap()
            .nulls()
            .cloned()
            .unwrap_or_default();
        assert_eq!(
            ts_nulls.len() as usize,
            source.iter().filter(|v| v.is_none()).count()
        );
        for g in [G::Day, G::Week, G::Month] {
            let d = DerivedColumn::new("ts", g);
            let c = seg.column(&d.name).unwrap();
            assert_eq!(c.data_type(), DataType::Long);
            assert!(c.metadata().has_index(IndexKind::Range), "{}", d.name);
            assert_eq!(
                c.nulls().cloned().unwrap_or_default(),
                ts_nulls,
                "{}",
                d.name
            );
            let got = column_values(&seg, &d.name);
            for (doc, (v, t)) in got.iter().zip(&ts).enumerate() {
                let ms = t.as_i64().unwrap();
                assert_eq!(*v, Value::Long(truncate(g, ms)), "{} doc {doc}", d.name);
            }
        }
    }

    fn table_config() -> serde_json::Value {
        serde_json::json!({"tableName": "t", "tableIndexConfig": {"nullHandlingEnabled": true},
            "fieldConfigList": [{"name": "ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
                "timestampConfig": {"granularities": ["MONTH", "DAY", "WEEK", "DAY"]}}]})
    }

    fn build_schema() -> Schema {
        Schema::from_json(
            r#"{"schemaName":"t","dimensionFieldSpecs":[{"name":"id","dataType":"INT"}],
              "dateTimeFieldSpecs":[{"name":"ts","dataType":"TIMESTAMP","format":"TIMESTAMP","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap()
    }

    const SOURCE: [Option<i64>; 6] = [
        Some(1_639_480_981_746),
        Some(-1),
        None,
        Some(0),
        Some(1_711_929_599_999),
        Some(-2_208_988_800_001),
    ];

    #[test]
    fn builds_derived_columns_from_rows() {
        let schema = build_schema();
        let config =
            crate::BuildConfig::from_table_config_json(&table_config(), &schema, Some("s"))
                .unwrap();
        assert_eq!(
            config.range,
            ["$ts$DAY", "$ts$MONTH", "$ts$WEEK"]
                .map(String::from)
                .into()
        );
        let rows = SOURCE.iter().enumerate().map(|(i, v)| {
            Ok(vec![
                Value::Int(i as i32),
                v.map_or(Value::Null, Value::Timestamp),
            ])
        });
        let dir = tempfile::tempdir().unwrap();
        crate::build_segment_from_rows(&schema, &config, rows, dir.path()).unwrap();
        check_segment(&dir.path().join("s"), &SOURCE);
    }

    #[test]
    fn builds_derived_columns_from_csv_and_json() {
        let schema = build_schema();
        let config =
            crate::BuildConfig::from_table_config_json(&table_config(), &schema, Some("s"))
                .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let text = |v: &Option<i64>, quote: bool| match (v, quote) {
            (None, false) => String::new(),
            (None, true) => "null".into(),
            // Text timestamps parse like the source column does.
            (Some(0), _) => "\"1970-01-01 00:00:00\"".into(),
            (Some(ms), _) => ms.to_string(),
        };
        let csv: String = std::iter::once("id,ts\n".to_string())
            .chain(
                SOURCE
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("{i},{}\n", text(v, false))),
            )
            .collect();
        let json: String = SOURCE
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{{\"id\": {i}, \"ts\": {}}}\n", text(v, true)))
            .collect();
        for (format, body, name) in [
            (crate::InputFormat::Csv, csv, "c"),
            (crate::InputFormat::Json, json, "j"),
        ] {
            let path = dir.path().join(format!("{name}.in"));
            std::fs::write(&path, body).unwrap();
            let config = crate::BuildConfig {
                segment_name: name.into(),
                ..config.clone()
            };
            let input = crate::InputSource {
                path,
                format,
                options: Default::default(),
            };
            crate::build_segment(&schema, &config, &input, dir.path(), &mut |_| {}).unwrap();
            check_segment(&dir.path().join(name), &SOURCE);
        }
    }

    #[test]
    fn config_errors_name_the_column() {
        let schema = build_schema();
        let err = |cfg: serde_json::Value| {
            crate::BuildConfig::from_table_config_json(&cfg, &schema, None)
                .unwrap_err()
                .to_string()
        };
        let bad = serde_json::json!({"tableName": "t", "fieldConfigList": [
            {"name": "id", "timestampConfig": {"granularities": ["DAY"]}}]});
        assert!(err(bad).contains("column 'id' of type INT"));
        let bad = serde_json::json!({"tableName": "t", "fieldConfigList": [
            {"name": "ts", "timestampConfig": {"granularities": ["DECADE"]}}]});
        assert!(err(bad).contains("granularity 'DECADE' of column 'ts'"));
    }
}
