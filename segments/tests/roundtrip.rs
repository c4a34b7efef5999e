//! Property test: random schemas, configs and rows → build → write → mmap → read == input, for
//! every data type and encoding (dictionary SV/MV, raw fixed/var), plus every index checked
//! against brute force (inverted, sorted, range, bloom, nulls).

mod common;

use common::read_column;
use proptest::prelude::*;
use segments::format::{COLUMNS_FILE, INDEX_MAP_FILE, METADATA_FILE};
use segments::forward::ForwardIndex;
use segments::index::{Bloom, Inverted, Range, Sorted};
use segments::types::{DataType, FieldSpec, Schema, Value};
use segments::{
    BuildConfig, ImmutableSegment, SegmentMetadata, build_segment_from_rows,
    build_segment_from_segments,
};
use std::cmp::Ordering;
use std::ops::Bound;
use tessera_segments as segments;

#[derive(Clone, Debug)]
struct ColSpec {
    data_type: DataType,
    single: bool,
    raw: bool,
    inverted: bool,
    range: bool,
    bloom: bool,
}

fn value_strategy(dt: DataType) -> BoxedStrategy<Value> {
    match dt {
        DataType::Int => prop_oneof![any::<i32>(), -5i32..5]
            .prop_map(Value::Int)
            .boxed(),
        DataType::Long => prop_oneof![any::<i64>(), -5i64..5]
            .prop_map(Value::Long)
            .boxed(),
        DataType::Float => prop_oneof![-1e6f32..1e6, Just(0.5f32), Just(-0.0f32)]
            .prop_map(Value::Float)
            .boxed(),
        DataType::Double => {
            prop_oneof![any::<f64>().prop_filter("nan", |f| !f.is_nan()), -3f64..3.0]
                .prop_map(Value::Double)
                .boxed()
        }
        DataType::BigDecimal => (-100_000i64..100_000)
            .prop_map(|v| {
                Value::parse(
                    DataType::BigDecimal,
                    &format!("{}.{:02}", v / 100, (v % 100).abs()),
                )
                .unwrap()
            })
            .boxed(),
        DataType::Boolean => any::<bool>().prop_map(Value::Boolean).boxed(),
        DataType::Timestamp => (0i64..4_000_000_000_000).prop_map(Value::Timestamp).boxed(),
        DataType::String => prop_oneof!["[a-c]{0,2}", ".{0,8}"]
            .prop_map(Value::String)
            .boxed(),
        DataType::Json => (0..20u8)
            .prop_map(|n| Value::Json(format!("{{\"a\":{n}}}")))
            .boxed(),
        DataType::Bytes => proptest::collection::vec(any::<u8>(), 0..5)
            .prop_map(Value::Bytes)
            .boxed(),
        DataType::Map => (0..20u8)
            .prop_map(|n| Value::Map(format!("{{\"a\":{n}}}")))
            .boxed(),
    }
}

fn col_strategy() -> impl Strategy<Value = ColSpec> {
    (
        proptest::sample::select(DataType::ALL.to_vec()),
        any::<[bool; 5]>(),
    )
        .prop_map(|(dt, [mv, raw, inv, rng, bloom])| {
            let single = !mv || matches!(dt, DataType::Json | DataType::Map);
            let raw = raw && single;
            ColSpec {
                data_type: dt,
                single,
                raw,
                inverted: inv && !raw,
                range: rng && (!raw || dt.is_fixed_width()),
                bloom,
            }
        })
}

fn cell_strategy(c: &ColSpec) -> BoxedStrategy<Value> {
    let v = value_strategy(c.data_type);
    if c.single {
        prop_oneof![1 => Just(Value::Null), 8 => v].boxed()
    } else {
        prop_oneof![1 => Just(Value::Null), 8 => proptest::collection::vec(v, 0..4).prop_map(Value::Array)].boxed()
    }
}

#[derive(Debug, Clone)]
struct Case {
    cols: Vec<ColSpec>,
    rows: Vec<Vec<Value>>,
    sorted: Option<usize>,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    proptest::collection::vec(col_strategy(), 1..6)
        .prop_flat_map(|cols| {
            let row = cols.iter().map(cell_strategy).collect::<Vec<_>>();
            let n = cols.len();
            (
                Just(cols),
                proptest::collection::vec(row, 0..150),
                proptest::option::of(0..n),
            )
        })
        .prop_map(|(cols, rows, sorted)| {
            let sorted = sorted.filter(|&i| cols[i].single);
            Case { cols, rows, sorted }
        })
}

/// The stored form of an input cell: nulls become the default (MV: `[default]`).
fn expected_cell(spec: &FieldSpec, v: &Value) -> Value {
    match v {
        Value::Null if spec.single_value_field => spec.default_null(),
        Value::Null => Value::Array(vec![spec.default_null()]),
        Value::Array(items) if items.is_empty() => Value::Array(vec![spec.default_null()]),
        other => other.clone(),
    }
}

fn is_null_cell(v: &Value) -> bool {
    matches!(v, Value::Null) || matches!(v, Value::Array(a) if a.is_empty())
}

/// Value equality that distinguishes -0.0 from 0.0 (they are distinct dictionary entries).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        (Value::Double(x), Value::Double(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        _ => a == b,
    }
}

fn cmp(a: &Value, b: &Value) -> Ordering {
    a.total_cmp(b)
}

/// The schema and build config a case describes.
fn schema_and_config(case: &Case) -> (Schema, BuildConfig) {
    let fields: Vec<FieldSpec> = case
        .cols
        .iter()
        .enumerate()
        .map(|(i, c)| match c.data_type {
            DataType::Map => FieldSpec::map(&format!("c{i}"), DataType::Int),
            _ => FieldSpec {
                single_value_field: c.single,
                ..FieldSpec::dimension(&format!("c{i}"), c.data_type)
            },
        })
        .collect();
    let schema = Schema {
        schema_name: "t".into(),
        fields,
        ..Schema::default()
    };
    let mut config = BuildConfig::new("t", "t_0");
    config.null_handling = true;
    for (i, c) in case.cols.iter().enumerate() {
        let name = format!("c{i}");
        if c.raw {
            config.no_dictionary.insert(name.clone());
        }
        if c.inverted {
            config.inverted.insert(name.clone());
        }
        if c.range {
            config.range.insert(name.clone());
        }
        if c.bloom {
            config.bloom.insert(name.clone(), 0.05);
        }
    }
    config.sorted_column = case.sorted.map(|i| format!("c{i}"));
    (schema, config)
}

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let (schema, config) = schema_and_config(case);
    let fields = schema.fields.clone();
    let dir = tempfile::tempdir().unwrap();
    let summary = build_segment_from_rows(
        &schema,
        &config,
        case.rows.iter().cloned().map(Ok),
        dir.path(),
    )
    .unwrap();
    prop_assert_eq!(summary.total_docs as usize, case.rows.len());
    let seg = ImmutableSegment::open(&summary.segment_dir).unwrap();
    prop_assert_eq!(seg.total_docs() as usize, case.rows.len());
    prop_assert_eq!(seg.columns().count(), fields.len());

    // Expected rows in segment order: stable sort by the declared sorted column.
    let mut rows: Vec<(Vec<Value>, Vec<bool>)> = case
        .rows
        .iter()
        .map(|r| {
            (
                r.iter()
                    .zip(&fields)
                    .map(|(v, f)| expected_cell(f, v))
                    .collect(),
                r.iter().map(is_null_cell).collect(),
            )
        })
        .collect();
    if let Some(s) = case.sorted {
        rows.sort_by(|a, b| cmp(&a.0[s], &b.0[s]));
    }
    let docs = seg.total_docs();
    for (i, (f, c)) in fields.iter().zip(&case.cols).enumerate() {
        let col = seg.column(&f.name).unwrap();
        let meta = col.metadata();
        let got = read_column(col, docs);
        for (d, g) in got.iter().enumerate() {
            prop_assert!(
                same(g, &rows[d].0[i]),
                "column {} doc {}: got {:?}, expected {:?}",
                f.name,
                d,
                g,
                rows[d].0[i]
            );
        }
        // Nulls.
        let null_docs: Vec<u32> = (0..docs).filter(|&d| rows[d as usize].1[i]).collect();
        prop_assert_eq!(
            col.nulls()
                .map(|n| n.iter().collect::<Vec<_>>())
                .unwrap_or_default(),
            null_docs.clone()
        );
        prop_assert_eq!(meta.has_nulls, !null_docs.is_empty());
        // Flattened distinct values, min and max.
        let mut flat: Vec<Value> = got
            .iter()
            .flat_map(|v| match v {
                Value::Array(a) => a.clone(),
                o => vec![o.clone()],
            })
            .collect();
        flat.sort_by(cmp);
        flat.dedup_by(|a, b| same(a, b));
        prop_assert_eq!(meta.cardinality as usize, flat.len());
        if let (Some(lo), Some(hi)) = (flat.first(), flat.last()) {
            prop_assert!(
                same(&meta.min_value, lo),
                "min {:?} vs {:?}",
                meta.min_value,
                lo
            );
            prop_assert!(
                same(&meta.max_value, hi),
                "max {:?} vs {:?}",
                meta.max_value,
                hi
            );
        }
        prop_assert_eq!(meta.has_dictionary, !c.raw);
        prop_assert_eq!(meta.single_value, c.single);
        if c.single {
            let sorted = got.windows(2).all(|w| cmp(&w[0], &w[1]).is_le());
            prop_assert_eq!(meta.sorted, sorted, "sorted flag of {}", f.name);
            if Some(i) == case.sorted {
                prop_assert!(sorted);
            }
        }
        match col.forward() {
            ForwardIndex::Dict(fwd) => {
                let dict = col.dictionary().unwrap();
                prop_assert_eq!(dict.len() as usize, flat.len());
                let mut ids = vec![0; docs as usize];
                fwd.read_range(0, &mut ids);
                for (d, &id) in ids.iter().enumerate() {
                    prop_assert_eq!(fwd.get(d as u32), id);
                }
                if let Some(s) = col.index::<Sorted>() {
                    prop_assert!(meta.sorted);
                    for id in 0..dict.len() {
                        let want: Vec<u32> = (0..docs).filter(|&d| ids[d as usize] == id).collect();
                        prop_assert_eq!(s.doc_range(id).collect::<Vec<_>>(), want);
                    }
                } else {
                    prop_assert!(!meta.sorted || docs == 0);
                }
                if let Some(inv) = col.index::<Inverted>() {
                    for id in 0..dict.len() {
                        let want: Vec<u32> = (0..docs).filter(|&d| ids[d as usize] == id).collect();
                        prop_assert_eq!(inv.doc_ids(id).iter().collect::<Vec<_>>(), want);
                    }
                }
            }
            ForwardIndex::DictMv(fwd) => {
                let dict = col.dictionary().unwrap();
                let mut ids = Vec::new();
                if let Some(inv) = col.index::<Inverted>() {
                    for id in 0..dict.len() {
                        let want: Vec<u32> = (0..docs)
                            .filter(|&d| {
                                fwd.read(d, &mut ids);
                                ids.contains(&id)
                            })
                            .collect();
                        prop_assert_eq!(inv.doc_ids(id).iter().collect::<Vec<_>>(), want);
                    }
                }
                prop_assert_eq!(
                    meta.max_num_multi_values as usize,
                    (0..docs)
                        .map(|d| fwd.num_values(d) as usize)
                        .max()
                        .unwrap_or(0)
                );
            }
            ForwardIndex::Raw(_) => {}
        }
        prop_assert_eq!(col.index::<Inverted>().is_some(), c.inverted);
        prop_assert_eq!(col.index::<Range>().is_some(), c.range);
        prop_assert_eq!(col.index::<Bloom>().is_some(), c.bloom);
        if let Some(b) = col.index::<Bloom>() {
            for v in &flat {
                prop_assert!(b.might_contain(v), "bloom false negative {:?}", v);
            }
        }
        if let Some(r) = col.index::<Range>() {
            // Bounds taken from the data (and one past the ends); a range compares as SQL does
            // (`-0.0` equals `0.0`).
            for (a, b) in flat.iter().zip(flat.iter().rev()).take(4) {
                let matches = |v: &Value| v.sql_cmp(a).is_ge() && v.sql_cmp(b).is_lt();
                let want: Vec<u32> = (0..docs)
                    .filter(|&d| match &got[d as usize] {
                        Value::Array(items) => items.iter().any(matches),
                        v => matches(v),
                    })
                    .collect();
                let m = match col.dictionary() {
                    Some(dict) => r.matching(dict.id_range(Bound::Included(a), Bound::Excluded(b))),
                    None => r.matching_values(Bound::Included(a), Bound::Excluded(b)),
                };
                // Partial matches (the buckets a range cuts through on single-value dictionary
                // columns) are confirmed doc by doc, as the engine does from the forward index.
                prop_assert!(m.exact.is_disjoint(&m.partial));
                let confirmed = m.partial.iter().filter(|&d| matches(&got[d as usize]));
                let mut found: Vec<u32> = m.exact.iter().chain(confirmed).collect();
                found.sort_unstable();
                prop_assert_eq!(found, want, "range [{:?}, {:?}) on {}", a, b, f.name);
            }
        }
    }
    Ok(())
}

/// The case's rows cut at `cuts` into parts, each built as a consuming segment's chunk (arrival
/// order, plain dictionaries), then merged with the case's config: the same files as one build
/// of all the rows (but the creation time).
fn run_merge_case(case: &Case, cuts: &[usize]) -> Result<(), TestCaseError> {
    let (schema, config) = schema_and_config(case);
    let dir = tempfile::tempdir().unwrap();
    let one = build_segment_from_rows(
        &schema,
        &config,
        case.rows.iter().cloned().map(Ok),
        &dir.path().join("one"),
    )
    .unwrap();
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(case.rows.len())).collect();
    cuts.push(0);
    cuts.push(case.rows.len());
    cuts.sort_unstable();
    let mut parts = Vec::new();
    for (i, w) in cuts.windows(2).enumerate() {
        let part_config = BuildConfig {
            segment_name: format!("p{i}"),
            sorted_column: None,
            plain_dictionaries: true,
            ..config.clone()
        };
        let built = build_segment_from_rows(
            &schema,
            &part_config,
            case.rows[w[0]..w[1]].iter().cloned().map(Ok),
            &dir.path().join("parts"),
        )
        .unwrap();
        parts.push(ImmutableSegment::open(&built.segment_dir).unwrap());
    }
    let parts: Vec<&ImmutableSegment> = parts.iter().collect();
    let merged =
        build_segment_from_segments(&schema, &config, &parts, &dir.path().join("merged")).unwrap();
    prop_assert_eq!(merged.total_docs, one.total_docs);
    for file in [COLUMNS_FILE, INDEX_MAP_FILE] {
        let a = std::fs::read(one.segment_dir.join(file)).unwrap();
        let b = std::fs::read(merged.segment_dir.join(file)).unwrap();
        prop_assert!(a == b, "{} differs", file);
    }
    let meta = |d: &std::path::Path| {
        let p = d.join(METADATA_FILE);
        let mut m = SegmentMetadata::parse(&p, &std::fs::read(&p).unwrap()).unwrap();
        m.creation_time_ms = 0;
        m.to_json()
    };
    prop_assert_eq!(meta(&one.segment_dir), meta(&merged.segment_dir));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn build_open_read_equals_input(case in case_strategy()) {
        run_case(&case)?;
    }

    #[test]
    fn parts_merged_equal_one_build(
        case in case_strategy(),
        cuts in proptest::collection::vec(0usize..150, 0..4),
    ) {
        run_merge_case(&case, &cuts)?;
    }
}

#[test]
fn larger_segment_all_kinds() {
    // Enough rows to span several raw chunks and bitmap containers.
    let n = 70_000i64;
    let fields = vec![
        FieldSpec::dimension("id", DataType::Long),
        FieldSpec::dimension("k", DataType::Int),
        FieldSpec::metric("price", DataType::Double),
        FieldSpec::dimension("s", DataType::String),
        FieldSpec {
            single_value_field: false,
            ..FieldSpec::dimension("tags", DataType::String)
        },
    ];
    let schema = Schema {
        schema_name: "t".into(),
        fields,
        ..Schema::default()
    };
    let mut config = BuildConfig::new("t", "big");
    config
        .no_dictionary
        .extend(["price".to_string(), "s".to_string()]);
    config.inverted.insert("k".into());
    config.range.extend(["k".to_string(), "price".to_string()]);
    config.sorted_column = Some("k".into());
    let rows = (0..n).map(|i| {
        Ok(vec![
            Value::Long(i),
            Value::Int(((i * 7919) % 1000) as i32),
            Value::Double(i as f64 * 0.25),
            Value::String(format!("s{}", i % 5000)),
            Value::Array(
                (0..(i % 3))
                    .map(|t| Value::String(format!("t{t}")))
                    .collect(),
            ),
        ])
    });
    let dir = tempfile::tempdir().unwrap();
    let s = build_segment_from_rows(&schema, &config, rows, dir.path()).unwrap();
    let seg = ImmutableSegment::open(&s.segment_dir).unwrap();
    let k = seg.column("k").unwrap();
    assert!(k.metadata().sorted);
    let ks = read_column(k, n as u32);
    assert!(ks.windows(2).all(|w| w[0].total_cmp(&w[1]).is_le()));
    let ids = read_column(seg.column("id").unwrap(), n as u32);
    let prices = read_column(seg.column("price").unwrap(), n as u32);
    for d in 0..n as usize {
        let i = ids[d].as_i64().unwrap();
        assert_eq!(ks[d], Value::Int(((i * 7919) % 1000) as i32));
        assert_eq!(prices[d], Value::Double(i as f64 * 0.25));
    }
    let r = seg.column("price").unwrap().index::<Range>().unwrap();
    let m = r.matching_values(
        Bound::Included(&Value::Int(100)),
        Bound::Excluded(&Value::Double(200.5)),
    );
    assert_eq!(
        m.exact.len(),
        (0..n)
            .filter(|&i| {
                let p = i as f64 * 0.25;
                (100.0..200.5).contains(&p)
            })
            .count() as u64
    );
    match seg.column("price").unwrap().forward() {
        ForwardIndex::Raw(f) => {
            let mut out = vec![0.0; n as usize];
            f.cursor().read_f64_range(0, &mut out);
            assert_eq!(
                out.iter().sum::<f64>(),
                (0..n).map(|i| i as f64 * 0.25).sum::<f64>()
            );
        }
        _ => panic!("price should be raw"),
    }
    assert_eq!(
        seg.column("tags").unwrap().metadata().max_num_multi_values,
        2
    );
    assert_eq!(seg.column("s").unwrap().metadata().cardinality, 5000);
}
