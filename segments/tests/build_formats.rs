//! Building from Parquet, Avro and compressed CSV/JSON: the same rows written in each format
//! (by the formats' own writers) build segments whose every column equals the CSV build's, and
//! cells a column cannot take fail naming the file, the row and the column.

mod common;

use apache_avro::types::Value as Avro;
use common::read_column;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use segments::types::{DataType, Schema, Value};
use segments::{
    BuildConfig, ImmutableSegment, InputFormat, InputSource, SegmentError, build_segment,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tessera_segments as segments;

const SCHEMA: &str = r#"{
  "schemaName": "orders",
  "dimensionFieldSpecs": [
    {"name": "id", "dataType": "INT"},
    {"name": "name", "dataType": "STRING"},
    {"name": "day", "dataType": "STRING"},
    {"name": "tags", "dataType": "STRING", "singleValueField": false},
    {"name": "absent", "dataType": "LONG"}
  ],
  "metricFieldSpecs": [
    {"name": "price", "dataType": "DOUBLE"},
    {"name": "amount", "dataType": "BIG_DECIMAL"}
  ],
  "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:MILLISECONDS"}]
}"#;

/// The rows every format writes: id, name, price, ts, day (days since the epoch), amount
/// (unscaled, scale 2), tags.
type Row = (
    i32,
    Option<&'static str>,
    f64,
    i64,
    i32,
    i64,
    Vec<&'static str>,
);

fn rows() -> Vec<Row> {
    vec![
        (
            1,
            Some("a"),
            1.5,
            1_577_836_800_000,
            18_262,
            12_345,
            vec!["x", "y"],
        ),
        (2, None, 2.25, 1_577_923_200_123, 18_263, -5, vec![]),
        (3, Some("c"), -0.5, 0, 0, 7, vec!["z"]),
    ]
}

const CSV: &str = "id,name,price,ts,day,amount,tags\n\
                   1,a,1.5,1577836800000,2020-01-01,123.45,x;y\n\
                   2,,2.25,1577923200123,2020-01-02,-0.05,\n\
                   3,c,-0.5,0,1970-01-01,0.07,z\n";

fn schema() -> Schema {
    Schema::from_json(SCHEMA).unwrap()
}

fn build(dir: &Path, input: &Path, format: InputFormat) -> Result<PathBuf, SegmentError> {
    let schema = schema();
    let name = format!("{format:?}").to_lowercase();
    let table = serde_json::json!({"tableName": "orders", "tableType": "OFFLINE",
        "tableIndexConfig": {"nullHandlingEnabled": true}});
    let config = BuildConfig::from_table_config_json(&table, &schema, Some(&name)).unwrap();
    let mut last = 0;
    let summary = build_segment(
        &schema,
        &config,
        &InputSource {
            path: input.to_path_buf(),
            format,
            options: Default::default(),
        },
        &dir.join("out"),
        &mut |n| last = n,
    )?;
    assert_eq!(last, u64::from(summary.total_docs), "final progress call");
    Ok(summary.segment_dir)
}

/// Every column of a built segment, with its null docs.
fn columns(dir: &Path) -> Vec<(String, Vec<Value>, Vec<u32>)> {
    let seg = ImmutableSegment::open(dir).unwrap();
    schema()
        .fields
        .iter()
        .map(|f| {
            let col = seg.column(&f.name).unwrap();
            let nulls = col.nulls().map(|b| b.iter().collect()).unwrap_or_default();
            (f.name.clone(), read_column(col, seg.total_docs()), nulls)
        })
        .collect()
}

fn csv_build(dir: &Path) -> Vec<(String, Vec<Value>, Vec<u32>)> {
    let path = dir.join("orders.csv");
    std::fs::write(&path, CSV).unwrap();
    let built = build(&dir.join("csv"), &path, InputFormat::Csv).unwrap();
    columns(&built)
}

/// Writes a required (never null, not repeated) column chunk.
fn required<T: parquet::data_type::DataType>(
    col: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    values: Vec<T::T>,
) {
    col.typed::<T>().write_batch(&values, None, None).unwrap();
}

/// Writes a Parquet file of `message`'s schema and one row group, each leaf column filled by
/// `fill(its index, its writer)`.
fn write_row_group(
    path: &Path,
    message: &str,
    mut fill: impl FnMut(usize, &mut parquet::file::writer::SerializedColumnWriter<'_>),
) {
    let file = std::fs::File::create(path).unwrap();
    let props = Arc::new(WriterProperties::builder().build());
    let schema_type = Arc::new(parse_message_type(message).unwrap());
    let mut writer = SerializedFileWriter::new(file, schema_type, props).unwrap();
    let mut rg = writer.next_row_group().unwrap();
    let mut column = 0;
    while let Some(mut col) = rg.next_column().unwrap() {
        fill(column, &mut col);
        col.close().unwrap();
        column += 1;
    }
    rg.close().unwrap();
    writer.close().unwrap();
}

fn write_parquet(path: &Path, row_groups: &[&[Row]]) {
    let message = "message orders {
        required int32 id;
        optional binary name (STRING);
        required double price;
        required int64 ts (TIMESTAMP(MILLIS,true));
        required int32 day (DATE);
        required int64 amount (DECIMAL(10,2));
        optional group tags (LIST) { repeated group list { optional binary element (STRING); } }
    }";
    let schema = Arc::new(parse_message_type(message).unwrap());
    let file = std::fs::File::create(path).unwrap();
    let props = Arc::new(WriterProperties::builder().build());
    let mut writer = SerializedFileWriter::new(file, schema, props).unwrap();
    for group in row_groups {
        let mut rg = writer.next_row_group().unwrap();
        let mut column = 0;
        while let Some(mut col) = rg.next_column().unwrap() {
            match column {
                0 => required::<Int32Type>(&mut col, group.iter().map(|r| r.0).collect()),
                1 => {
                    let v: Vec<ByteArray> = group
                        .iter()
                        .filter_map(|r| r.1)
                        .map(ByteArray::from)
                        .collect();
                    let defs: Vec<i16> = group.iter().map(|r| i16::from(r.1.is_some())).collect();
                    col.typed::<ByteArrayType>()
                        .write_batch(&v, Some(&defs), None)
                        .unwrap();
                }
                2 => required::<DoubleType>(&mut col, group.iter().map(|r| r.2).collect()),
                3 => required::<Int64Type>(&mut col, group.iter().map(|r| r.3).collect()),
                4 => required::<Int32Type>(&mut col, group.iter().map(|r| r.4).collect()),
                5 => required::<Int64Type>(&mut col, group.iter().map(|r| r.5).collect()),
                _ => {
                    // tags: optional list (def 1 = empty list) of optional elements (def 3).
                    let (mut v, mut defs, mut reps) = (Vec::new(), Vec::new(), Vec::new());
                    for r in group.iter() {
                        if r.6.is_empty() {
                            defs.push(1);
                            reps.push(0);
                        }
                        for (i, t) in r.6.iter().enumerate() {
                            v.push(ByteArray::from(*t));
                            defs.push(3);
                            reps.push(i16::from(i > 0));
                        }
                    }
                    col.typed::<ByteArrayType>()
                        .write_batch(&v, Some(&defs), Some(&reps))
                        .unwrap();
                }
            }
            col.close().unwrap();
            column += 1;
        }
        rg.close().unwrap();
    }
    writer.close().unwrap();
}

#[test]
fn parquet_builds_what_csv_builds() {
    let dir = tempfile::tempdir().unwrap();
    let expected = csv_build(dir.path());
    let all = rows();
    let path = dir.path().join("orders.parquet");
    // Two row groups, so docs continue across them.
    write_parquet(&path, &[&all[..2], &all[2..]]);
    assert_eq!(InputFormat::from_path(&path), Some(InputFormat::Parquet));
    let built = build(&dir.path().join("pq"), &path, InputFormat::Parquet).unwrap();
    let got = columns(&built);
    assert_eq!(got, expected);
    // The values themselves, not only their agreement.
    let day = &got.iter().find(|c| c.0 == "day").unwrap().1;
    assert_eq!(day[0], Value::String("2020-01-01".into()));
    let amount = &got.iter().find(|c| c.0 == "amount").unwrap().1;
    assert_eq!(amount[1], Value::BigDecimal("-0.05".into()));
    let tags = got.iter().find(|c| c.0 == "tags").unwrap();
    assert_eq!(tags.2, vec![1], "the empty list is null");
    let absent = got.iter().find(|c| c.0 == "absent").unwrap();
    assert_eq!(absent.2, vec![0, 1, 2], "a column the file lacks is null");
    // One row group: its days (2020 and 1970) span two windows of coded date texts, so the
    // batch is formatted cell by cell instead; the two row groups above were coded, each in
    // its own window.
    let path = dir.path().join("one_group.parquet");
    write_parquet(&path, &[&all]);
    let built = build(&dir.path().join("pq1"), &path, InputFormat::Parquet).unwrap();
    assert_eq!(columns(&built), expected);
}

fn write_avro(path: &Path) {
    let schema = apache_avro::Schema::parse_str(
        r#"{"type": "record", "name": "orders", "fields": [
            {"name": "id", "type": "int"},
            {"name": "name", "type": ["null", "string"]},
            {"name": "price", "type": "double"},
            {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
            {"name": "tags", "type": {"type": "array", "items": "string"}}
        ]}"#,
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer =
        apache_avro::Writer::with_codec(&schema, file, apache_avro::Codec::Snappy).unwrap();
    for r in rows() {
        let unscaled = r.5.to_be_bytes();
        let record = Avro::Record(vec![
            ("id".into(), Avro::Int(r.0)),
            (
                "name".into(),
                match r.1 {
                    Some(n) => Avro::Union(1, Box::new(Avro::String(n.into()))),
                    None => Avro::Union(0, Box::new(Avro::Null)),
                },
            ),
            ("price".into(), Avro::Double(r.2)),
            ("ts".into(), Avro::TimestampMillis(r.3)),
            ("day".into(), Avro::Date(r.4)),
            (
                "amount".into(),
                Avro::Decimal(apache_avro::Decimal::from(unscaled.as_slice())),
            ),
            (
                "tags".into(),
                Avro::Array(r.6.iter().map(|t| Avro::String((*t).into())).collect()),
            ),
        ]);
        writer.append_value(record).unwrap();
    }
    writer.flush().unwrap();
}

#[test]
fn avro_builds_what_csv_builds() {
    let dir = tempfile::tempdir().unwrap();
    let expected = csv_build(dir.path());
    let path = dir.path().join("orders.avro");
    write_avro(&path);
    assert_eq!(InputFormat::from_path(&path), Some(InputFormat::Avro));
    let built = build(&dir.path().join("avro"), &path, InputFormat::Avro).unwrap();
    assert_eq!(columns(&built), expected);
}

#[test]
fn compressed_csv_and_json_build_what_plain_files_build() {
    let dir = tempfile::tempdir().unwrap();
    let expected = csv_build(dir.path());
    let gz = dir.path().join("orders.csv.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(CSV.as_bytes()).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    assert_eq!(InputFormat::from_path(&gz), Some(InputFormat::Csv));
    let built = build(&dir.path().join("gz"), &gz, InputFormat::Csv).unwrap();
    assert_eq!(columns(&built), expected);

    let json = "{\"id\":1,\"name\":\"a\",\"price\":1.5,\"ts\":1577836800000,\"day\":\"2020-01-01\",\"amount\":\"123.45\",\"tags\":[\"x\",\"y\"]}\n\
                {\"id\":2,\"price\":2.25,\"ts\":1577923200123,\"day\":\"2020-01-02\",\"amount\":\"-0.05\",\"tags\":[]}\n\
                {\"id\":3,\"name\":\"c\",\"price\":-0.5,\"ts\":0,\"day\":\"1970-01-01\",\"amount\":\"0.07\",\"tags\":[\"z\"]}\n";
    let zst = dir.path().join("orders.json.zst");
    std::fs::write(&zst, zstd::encode_all(json.as_bytes(), 3).unwrap()).unwrap();
    assert_eq!(InputFormat::from_path(&zst), Some(InputFormat::Json));
    let built = build(&dir.path().join("zst"), &zst, InputFormat::Json).unwrap();
    assert_eq!(columns(&built), expected);
}

#[test]
fn pipe_and_tab_delimited_csv_build_what_commas_build() {
    let dir = tempfile::tempdir().unwrap();
    let expected = csv_build(dir.path());
    for (d, name) in [(b'|', "orders.tbl"), (b'\t', "orders.tsv")] {
        let path = dir.path().join(name);
        std::fs::write(&path, CSV.replace(',', &char::from(d).to_string())).unwrap();
        let schema = schema();
        let table = serde_json::json!({"tableName": "orders", "tableType": "OFFLINE",
            "tableIndexConfig": {"nullHandlingEnabled": true}});
        let config = BuildConfig::from_table_config_json(&table, &schema, Some("csv")).unwrap();
        let out = dir.path().join(format!("d{d}"));
        let source = InputSource {
            path,
            format: InputFormat::Csv,
            options: segments::input::InputOptions {
                delimiter: d,
                ..Default::default()
            },
        };
        let built = build_segment(&schema, &config, &source, &out, &mut |_| {}).unwrap();
        assert_eq!(columns(&built.segment_dir), expected, "delimiter {d}");
    }
    // A `|` file without a header row, its multi-value cells split on `,` (Pinot's `header` and
    // `multiValueDelimiter` configs).
    let path = dir.path().join("headless.tbl");
    let body = CSV.split_once('\n').unwrap().1;
    std::fs::write(&path, body.replace(',', "|").replace(';', ",")).unwrap();
    let schema = schema();
    let table = serde_json::json!({"tableName": "orders", "tableType": "OFFLINE",
        "tableIndexConfig": {"nullHandlingEnabled": true}});
    let config = BuildConfig::from_table_config_json(&table, &schema, Some("csv")).unwrap();
    let source = InputSource {
        path,
        format: InputFormat::Csv,
        options: segments::input::InputOptions {
            delimiter: b'|',
            multi_value_delimiter: b',',
            header: Some("id|name|price|ts|day|amount|tags".into()),
            ..Default::default()
        },
    };
    let out = dir.path().join("headless");
    let built = build_segment(&schema, &config, &source, &out, &mut |_| {}).unwrap();
    assert_eq!(columns(&built.segment_dir), expected);
    assert_eq!(
        segments::input::InputOptions::parse_delimiter("\\t"),
        Some(b'\t')
    );
    assert_eq!(
        segments::input::InputOptions::parse_delimiter("|"),
        Some(b'|')
    );
    assert_eq!(segments::input::InputOptions::parse_delimiter("\""), None);
    assert_eq!(segments::input::InputOptions::parse_delimiter("ab"), None);

    // Pinot's quoteCharacter and nullStringValue: `'`-quoted fields holding the delimiter, and
    // `NULL` cells, read as the plain file's values and nulls.
    let path = dir.path().join("quoted.csv");
    let quoted = "id,name,price,ts,day,amount,tags\n\
                  1,'a',1.5,1577836800000,2020-01-01,123.45,'x;y'\n\
                  2,NULL,2.25,1577923200123,2020-01-02,-0.05,NULL\n\
                  3,'c',-0.5,0,1970-01-01,0.07,z\n";
    std::fs::write(&path, quoted).unwrap();
    let mut options = segments::input::InputOptions::default();
    assert_eq!(options.set_csv_config("quoteCharacter", "'"), Ok(true));
    assert_eq!(options.set_csv_config("nullStringValue", "NULL"), Ok(true));
    assert_eq!(options.set_csv_config("fileFormat", "default"), Ok(false));
    assert!(
        options
            .clone()
            .set_csv_config("escapeCharacter", "\\")
            .is_err()
    );
    assert!(
        options
            .clone()
            .set_csv_config("quoteCharacter", "''")
            .is_err()
    );
    assert!(
        options.clone().set_csv_config("delimiter", "'").is_err(),
        "quote = delimiter"
    );
    let source = InputSource {
        path,
        format: InputFormat::Csv,
        options,
    };
    let out = dir.path().join("quoted");
    let built = build_segment(&schema, &config, &source, &out, &mut |_| {}).unwrap();
    assert_eq!(columns(&built.segment_dir), expected);
}

#[test]
fn parquet_groups_fill_json_columns_with_their_json_text() {
    let dir = tempfile::tempdir().unwrap();
    let message = "message m {
        required int32 id;
        optional group attrs { required int32 k; optional binary s (STRING); }
        optional group tags (LIST) { repeated group list { optional binary element (STRING); } }
    }";
    let path = dir.path().join("nested.parquet");
    write_row_group(&path, message, |column, col| {
        match column {
            0 => required::<Int32Type>(col, vec![1, 2, 3]),
            // attrs.k: present in rows 0 and 2 (row 1's attrs is null).
            1 => {
                col.typed::<Int32Type>()
                    .write_batch(&[7, 9], Some(&[1, 0, 1]), None)
                    .unwrap();
            }
            // attrs.s: "a" in row 0, null in row 2.
            2 => {
                col.typed::<ByteArrayType>()
                    .write_batch(&[ByteArray::from("a")], Some(&[2, 0, 1]), None)
                    .unwrap();
            }
            // tags: ["x", "y"], [], ["z"].
            _ => {
                let v: Vec<ByteArray> = ["x", "y", "z"].into_iter().map(ByteArray::from).collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&[3, 3, 1, 3]), Some(&[0, 1, 0, 0]))
                    .unwrap();
            }
        }
    });
    let schema = Schema::from_json(
        r#"{"schemaName": "m", "dimensionFieldSpecs": [
            {"name": "id", "dataType": "INT"},
            {"name": "attrs", "dataType": "JSON"},
            {"name": "tags", "dataType": "JSON"}]}"#,
    )
    .unwrap();
    let table = serde_json::json!({"tableName": "m", "tableType": "OFFLINE",
        "tableIndexConfig": {"nullHandlingEnabled": true}});
    let config = BuildConfig::from_table_config_json(&table, &schema, Some("m_0")).unwrap();
    // Ingestion transforms stage a group as its JSON text.
    assert_eq!(
        segments::input::parquet_columns(&path).unwrap(),
        vec![
            ("id".to_string(), DataType::Long, true),
            ("attrs".to_string(), DataType::String, true),
            ("tags".to_string(), DataType::String, false),
        ]
    );
    let source = InputSource {
        path,
        format: InputFormat::Parquet,
        options: Default::default(),
    };
    let built = build_segment(
        &schema,
        &config,
        &source,
        &dir.path().join("o"),
        &mut |_| {},
    )
    .unwrap();
    let seg = ImmutableSegment::open(&built.segment_dir).unwrap();
    let attrs = read_column(seg.column("attrs").unwrap(), 3);
    assert_eq!(attrs[0], Value::Json(r#"{"k":7,"s":"a"}"#.into()));
    assert_eq!(attrs[2], Value::Json(r#"{"k":9,"s":null}"#.into()));
    let nulls: Vec<u32> = seg
        .column("attrs")
        .unwrap()
        .nulls()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(nulls, vec![1]);
    let tags = read_column(seg.column("tags").unwrap(), 3);
    assert_eq!(tags[0], Value::Json(r#"["x","y"]"#.into()));
    assert_eq!(tags[2], Value::Json(r#"["z"]"#.into()));
}

#[test]
fn bad_parquet_cells_and_files_name_row_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // A list into a single-value column.
    let schema = Schema::from_json(
        r#"{"schemaName": "orders", "dimensionFieldSpecs": [{"name": "tags", "dataType": "STRING"}]}"#,
    )
    .unwrap();
    let path = dir.path().join("orders.parquet");
    write_parquet(&path, &[&rows()]);
    let config = BuildConfig::new("orders", "bad");
    let source = InputSource {
        path: path.clone(),
        format: InputFormat::Parquet,
        options: Default::default(),
    };
    let e = build_segment(
        &schema,
        &config,
        &source,
        &dir.path().join("o"),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("orders.parquet") && e.contains("column 'tags'"),
        "{e}"
    );
    // A name that does not read as an INT: the row group, the row and the column.
    let schema = Schema::from_json(
        r#"{"schemaName": "orders", "dimensionFieldSpecs": [{"name": "name", "dataType": "INT"}]}"#,
    )
    .unwrap();
    let e = build_segment(
        &schema,
        &config,
        &source,
        &dir.path().join("o"),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(
        matches!(&e, SegmentError::InputRecord { row_group: 0, row: 1, column, .. } if column == "name"),
        "{e}"
    );
    // Not Parquet at all.
    let junk = dir.path().join("junk.parquet");
    std::fs::write(&junk, b"id,name\n1,a\n").unwrap();
    let e = build_segment(
        &schema,
        &config,
        &InputSource {
            path: junk,
            format: InputFormat::Parquet,
            options: Default::default(),
        },
        &dir.path().join("o"),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("junk.parquet") && e.contains("not a readable Parquet file"),
        "{e}"
    );
    assert!(!dir.path().join("o/bad").exists(), "no partial segment");
}

/// The nested orders every format writes for `complexTypeConfig`: id, customer {name, city},
/// items [{sku, qty}].
type Order = (i32, (&'static str, &'static str), Vec<(&'static str, i32)>);

fn orders() -> Vec<Order> {
    vec![
        (1, ("a", "X"), vec![("s1", 2), ("s2", 3)]),
        (2, ("b", "Y"), vec![]),
        (3, ("c", "Z"), vec![("s3", 1)]),
    ]
}

fn write_nested_parquet(path: &Path) {
    let message = "message m {
        required int32 id;
        optional group customer { optional binary name (STRING); optional binary city (STRING); }
        optional group items (LIST) {
          repeated group list { optional group element { optional binary sku (STRING); optional int32 qty; } }
        }
    }";
    let orders = orders();
    // Items: definition 4 for an element, 1 for an empty list; repetition 1 after the first.
    let (mut defs, mut reps) = (Vec::new(), Vec::new());
    for o in &orders {
        if o.2.is_empty() {
            defs.push(1);
            reps.push(0);
        }
        for i in 0..o.2.len() {
            defs.push(4);
            reps.push(i16::from(i > 0));
        }
    }
    write_row_group(path, message, |column, col| {
        let text = |f: fn(&Order) -> &'static str| -> Vec<ByteArray> {
            orders.iter().map(|o| ByteArray::from(f(o))).collect()
        };
        match column {
            0 => required::<Int32Type>(col, orders.iter().map(|o| o.0).collect()),
            1 | 2 => {
                let v = if column == 1 {
                    text(|o| o.1.0)
                } else {
                    text(|o| o.1.1)
                };
                col.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&[2, 2, 2]), None)
                    .unwrap();
            }
            3 => {
                let v: Vec<ByteArray> = orders
                    .iter()
                    .flat_map(|o| o.2.iter().map(|i| ByteArray::from(i.0)))
                    .collect();
                col.typed::<ByteArrayType>()
                    .write_batch(&v, Some(&defs), Some(&reps))
                    .unwrap();
            }
            _ => {
                let v: Vec<i32> = orders
                    .iter()
                    .flat_map(|o| o.2.iter().map(|i| i.1))
                    .collect();
                col.typed::<Int32Type>()
                    .write_batch(&v, Some(&defs), Some(&reps))
                    .unwrap();
            }
        }
    });
}

fn write_nested_avro(path: &Path) {
    let schema = apache_avro::Schema::parse_str(
        r#"{"type": "record", "name": "orders", "fields": [
            {"name": "id", "type": "int"},
            {"name": "customer", "type": {"type": "record", "name": "customer", "fields": [
                {"name": "name", "type": "string"}, {"name": "city", "type": "string"}]}},
            {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "item",
                "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}}
        ]}"#,
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = apache_avro::Writer::new(&schema, file).unwrap();
    for (id, (name, city), items) in orders() {
        let record = Avro::Record(vec![
            ("id".into(), Avro::Int(id)),
            (
                "customer".into(),
                Avro::Record(vec![
                    ("name".into(), Avro::String(name.into())),
                    ("city".into(), Avro::String(city.into())),
                ]),
            ),
            (
                "items".into(),
                Avro::Array(
                    items
                        .iter()
                        .map(|(sku, qty)| {
                            Avro::Record(vec![
                                ("sku".into(), Avro::String((*sku).into())),
                                ("qty".into(), Avro::Int(*qty)),
                            ])
                        })
                        .collect(),
                ),
            ),
        ]);
        writer.append_value(record).unwrap();
    }
    writer.flush().unwrap();
}

#[test]
fn complex_type_config_flattens_and_unnests_json_avro_and_parquet() {
    let dir = tempfile::tempdir().unwrap();
    let json: String = orders()
        .iter()
        .map(|(id, (name, city), items)| {
            let items: Vec<_> = items
                .iter()
                .map(|(s, q)| serde_json::json!({"sku": s, "qty": q}))
                .collect();
            format!(
                "{}\n",
                serde_json::json!({"id": id, "customer": {"name": name, "city": city}, "items": items})
            )
        })
        .collect();
    let inputs = [
        (dir.path().join("orders.json"), InputFormat::Json),
        (dir.path().join("orders.avro"), InputFormat::Avro),
        (dir.path().join("orders.parquet"), InputFormat::Parquet),
    ];
    std::fs::write(&inputs[0].0, json).unwrap();
    write_nested_avro(&inputs[1].0);
    write_nested_parquet(&inputs[2].0);

    let schema = Schema::from_json(
        r#"{"schemaName": "orders", "dimensionFieldSpecs": [
            {"name": "id", "dataType": "INT"},
            {"name": "customer.name", "dataType": "STRING"},
            {"name": "customer.city", "dataType": "STRING"},
            {"name": "items.sku", "dataType": "STRING"},
            {"name": "items.qty", "dataType": "INT"}]}"#,
    )
    .unwrap();
    let table = serde_json::json!({"tableName": "orders", "tableType": "OFFLINE",
        "tableIndexConfig": {"nullHandlingEnabled": true},
        "ingestionConfig": {"complexTypeConfig": {"fieldsToUnnest": ["items"]}}});
    let config = BuildConfig::from_table_config_json(&table, &schema, Some("o_0")).unwrap();
    let complex = segments::input::complex::ComplexTypes::from_table_config(&table).unwrap();
    assert!(complex.is_some());
    let s = |t: &str| Value::String(t.into());
    let expected = vec![
        vec![Value::Int(1), s("a"), s("X"), s("s1"), Value::Int(2)],
        vec![Value::Int(1), s("a"), s("X"), s("s2"), Value::Int(3)],
        vec![Value::Int(2), s("b"), s("Y"), Value::Null, Value::Null],
        vec![Value::Int(3), s("c"), s("Z"), s("s3"), Value::Int(1)],
    ];
    for (path, format) in inputs {
        let source = InputSource {
            path: path.clone(),
            format,
            options: segments::input::InputOptions {
                complex: complex.clone(),
                ..Default::default()
            },
        };
        let out = dir.path().join(format!("{format:?}"));
        let built = build_segment(&schema, &config, &source, &out, &mut |_| {}).unwrap();
        let seg = ImmutableSegment::open(&built.segment_dir).unwrap();
        assert_eq!(seg.total_docs(), 4, "{format:?}");
        let mut rows = vec![Vec::new(); 4];
        for f in &schema.fields {
            let col = seg.column(&f.name).unwrap();
            let nulls: Vec<u32> = col.nulls().map(|b| b.iter().collect()).unwrap_or_default();
            for (doc, v) in read_column(col, 4).into_iter().enumerate() {
                let v = if nulls.contains(&(doc as u32)) {
                    Value::Null
                } else {
                    v
                };
                rows[doc].push(v);
            }
        }
        assert_eq!(rows, expected, "{format:?}");
    }
}

/// The rows as an ORC file (orc-rust's writer: it writes no decimals nor lists, so `amount` and
/// `tags` are left out and read as null).
fn write_orc(path: &Path) {
    use arrow::array::{
        Date32Array, Float64Array, Int32Array, RecordBatch, StringArray, TimestampMillisecondArray,
    };
    use arrow::datatypes::{DataType as Arrow, Field, Schema as ArrowSchema, TimeUnit};
    let rows = rows();
    let schema = Arc::new(ArrowSchema::new(vec![
        Field::new("id", Arrow::Int32, false),
        Field::new("name", Arrow::Utf8, true),
        Field::new("price", Arrow::Float64, false),
        Field::new("ts", Arrow::Timestamp(TimeUnit::Millisecond, None), false),
        Field::new("day", Arrow::Date32, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int32Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1))),
            Arc::new(Float64Array::from_iter_values(rows.iter().map(|r| r.2))),
            Arc::new(TimestampMillisecondArray::from_iter_values(
                rows.iter().map(|r| r.3),
            )),
            Arc::new(Date32Array::from_iter_values(rows.iter().map(|r| r.4))),
        ],
    )
    .unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = orc_rust::ArrowWriterBuilder::new(file, schema)
        .try_build()
        .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
}

#[test]
fn orc_builds_what_csv_builds() {
    let dir = tempfile::tempdir().unwrap();
    let expected = csv_build(dir.path());
    let path = dir.path().join("orders.orc");
    write_orc(&path);
    assert_eq!(InputFormat::from_path(&path), Some(InputFormat::Orc));
    let built = build(&dir.path().join("orc"), &path, InputFormat::Orc).unwrap();
    let got = columns(&built);
    for (g, e) in got.iter().zip(&expected) {
        if g.0 == "amount" || g.0 == "tags" {
            assert_eq!(g.2, vec![0, 1, 2], "{} is not in the file: null", g.0);
        } else {
            assert_eq!(g, e, "{}", g.0);
        }
    }
    // Staging types for ingestion transforms.
    let staged = segments::input::orc_columns(&path).unwrap();
    assert_eq!(
        staged,
        vec![
            ("id".to_string(), DataType::Long, true),
            ("name".to_string(), DataType::String, true),
            ("price".to_string(), DataType::Double, true),
            ("ts".to_string(), DataType::Timestamp, true),
            ("day".to_string(), DataType::Long, true),
        ]
    );
    // Not an ORC file: an error naming it.
    let bad = dir.path().join("bad.orc");
    std::fs::write(&bad, CSV).unwrap();
    let err = build(&dir.path().join("bad"), &bad, InputFormat::Orc).unwrap_err();
    assert!(err.to_string().contains("not a readable ORC file"), "{err}");
}

/// A Parquet MAP fills a MAP column: its entries become the JSON object, typed as the schema's
/// `value` child declares.
#[test]
fn parquet_maps_fill_map_columns() {
    let dir = tempfile::tempdir().unwrap();
    let message = "message m {
        required int32 id;
        optional group m (MAP) {
            repeated group key_value { required binary key (STRING); optional int32 value; }
        }
    }";
    let path = dir.path().join("maps.parquet");
    // Rows: {"a": 1, "b": 2}, NULL, {"c": 3}.
    write_row_group(&path, message, |column, col| match column {
        0 => required::<Int32Type>(col, vec![1, 2, 3]),
        1 => {
            let keys: Vec<ByteArray> = ["a", "b", "c"].into_iter().map(ByteArray::from).collect();
            col.typed::<ByteArrayType>()
                .write_batch(&keys, Some(&[2, 2, 0, 2]), Some(&[0, 1, 0, 0]))
                .unwrap();
        }
        _ => {
            col.typed::<Int32Type>()
                .write_batch(&[1, 2, 3], Some(&[3, 3, 0, 3]), Some(&[0, 1, 0, 0]))
                .unwrap();
        }
    });
    let schema = Schema::from_json(
        r#"{"schemaName": "m", "dimensionFieldSpecs": [{"name": "id", "dataType": "INT"}],
            "complexFieldSpecs": [{"name": "m", "dataType": "MAP", "fieldType": "COMPLEX",
              "childFieldSpecs": {"key": {"name": "key", "dataType": "STRING"},
                                  "value": {"name": "value", "dataType": "DOUBLE"}}}]}"#,
    )
    .unwrap();
    schema.validate().unwrap();
    let table = serde_json::json!({"tableName": "m", "tableType": "OFFLINE"});
    let config = BuildConfig::from_table_config_json(&table, &schema, Some("m_0")).unwrap();
    let source = InputSource {
        path,
        format: InputFormat::Parquet,
        options: Default::default(),
    };
    let built = build_segment(
        &schema,
        &config,
        &source,
        &dir.path().join("o"),
        &mut |_| {},
    )
    .unwrap();
    let seg = ImmutableSegment::open(&built.segment_dir).unwrap();
    let maps = read_column(seg.column("m").unwrap(), 3);
    assert_eq!(
        maps,
        vec![
            Value::Map(r#"{"a":1.0,"b":2.0}"#.into()),
            Value::Map("{}".into()),
            Value::Map(r#"{"c":3.0}"#.into()),
        ]
    );
}
