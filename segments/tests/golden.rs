//! The checked-in golden segment (`testdata/golden_v3/segment/golden_0`, built from
//! `testdata/golden_v3/input.csv`) must keep opening with the same values — a format change that
//! breaks old segments fails here — and rebuilding it from the CSV must reproduce the data file
//! and index map byte for byte (metadata differs only in `creationTimeMs`).
//!
//! Byte identity relies on the pinned zstd (raw chunks) and roaring (bitmaps) versions; after an
//! intentional, compatible change of either, regenerate with
//! `TESSERA_REGEN_GOLDEN=1 cargo test -p tessera-segments --test golden` and review the diff.
//! A new format version gets a new `golden_v<N>` directory; old ones stay, and must be refused
//! with [`SegmentError::UnsupportedVersion`] (v1 stored every var-width dictionary plainly; v2
//! stored numeric dictionaries plainly and a sorted column's forward index beside its runs).

mod common;

use common::read_column;
use segments::format::{COLUMNS_FILE, INDEX_MAP_FILE, METADATA_FILE};
use segments::index::{Bloom, Inverted, Range, Sorted};
use segments::types::{Schema, Value};
use segments::{
    BuildConfig, ImmutableSegment, InputFormat, InputSource, SegmentError, build_segment,
};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use tessera_segments as segments;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/golden_v3")
}

fn build_into(out: &Path) -> PathBuf {
    let dir = golden_dir();
    let schema =
        Schema::from_json(&std::fs::read_to_string(dir.join("schema.json")).unwrap()).unwrap();
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("table_config.json")).unwrap())
            .unwrap();
    let config = BuildConfig::from_table_config_json(&table, &schema, None).unwrap();
    let input = InputSource {
        path: dir.join("input.csv"),
        format: InputFormat::Csv,
        options: Default::default(),
    };
    build_segment(&schema, &config, &input, out, &mut |_| {})
        .unwrap()
        .segment_dir
}

fn golden_segment() -> PathBuf {
    let seg_root = golden_dir().join("segment");
    static REGEN: std::sync::Once = std::sync::Once::new();
    if std::env::var_os("TESSERA_REGEN_GOLDEN").is_some() {
        REGEN.call_once(|| {
            let _ = std::fs::remove_dir_all(&seg_root);
            build_into(&seg_root);
        });
    }
    seg_root.join("golden_0")
}

fn st(s: &str) -> Value {
    Value::String(s.into())
}

#[test]
fn older_golden_segments_are_refused_with_a_version_error() {
    for v in [1, 2] {
        let old = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("testdata/golden_v{v}/segment/golden_0"));
        match ImmutableSegment::open(&old) {
            Err(SegmentError::UnsupportedVersion {
                found,
                expected: 3,
                file,
            }) if found == v => assert!(file.starts_with(&old), "{file:?}"),
            other => panic!("expected a version error for v{v}, got {other:?}"),
        }
    }
}

#[test]
fn golden_segment_opens_with_expected_values() {
    let seg = ImmutableSegment::open(&golden_segment()).expect("golden segment must open");
    let m = seg.metadata();
    assert_eq!(
        (
            m.segment_name.as_str(),
            m.table_name.as_str(),
            m.total_docs,
            m.format_version
        ),
        ("golden_0", "golden", 12, 3)
    );
    assert_eq!(m.time_column.as_deref(), Some("ts"));
    assert_eq!(
        (m.start_time, m.end_time),
        (Some(1_704_067_199_000), Some(1_709_251_200_000))
    );
    let col = |n: &str| read_column(seg.column(n).unwrap(), 12);

    // Rows are sorted by city; a null city is stored as "null", which sorts last.
    assert_eq!(
        col("city"),
        [
            "Berlin", "Berlin", "Berlin", "Lima", "Lima", "Oslo", "Oslo", "Paris", "Paris",
            "Paris", "Quito", "null"
        ]
        .map(st)
    );
    assert_eq!(
        col("id"),
        [2, 6, 11, 7, 12, 3, 8, 1, 4, 9, 10, 5].map(Value::Int)
    );
    let at = |name: &str, id: i32| {
        let ids = col("id");
        let doc = ids.iter().position(|v| *v == Value::Int(id)).unwrap();
        col(name)[doc].clone()
    };
    assert_eq!(
        at("tags", 4),
        Value::Array(vec![st("green"), st("red"), st("blue")])
    );
    assert_eq!(
        at("tags", 7),
        Value::Array(vec![st("yellow"), st("yellow")])
    );
    assert_eq!(at("tags", 3), Value::Array(vec![st("null")]));
    assert_eq!(at("qty", 3), Value::Long(0));
    assert_eq!(at("qty", 11), Value::Long(-5));
    assert_eq!(at("price", 6), Value::Double(1000.0));
    assert!(matches!(at("price", 8), Value::Double(d) if d == 0.0 && d.is_sign_negative()));
    assert_eq!(at("weight", 4), Value::Float(0.0));
    assert_eq!(at("weight", 6), Value::Float(0.125));
    assert_eq!(at("amount", 4), Value::BigDecimal("17.000".into()));
    assert_eq!(at("amount", 7), Value::BigDecimal("1.23456789".into()));
    assert_eq!(at("note", 9), st("multi\nline"));
    assert_eq!(at("note", 3), st("quoted, with comma"));
    assert_eq!(at("note", 2), st("null"));
    assert_eq!(at("code", 4), Value::Bytes(vec![0, 1]));
    assert_eq!(at("active", 5), Value::Boolean(false));
    assert_eq!(at("ts", 4), Value::Timestamp(1_704_067_200_000));
    assert_eq!(at("ts", 5), Value::Timestamp(1_709_251_199_999));

    // Nulls, indexes and statistics.
    let doc_of = |id: i32| col("id").iter().position(|v| *v == Value::Int(id)).unwrap() as u32;
    let nulls = |n: &str| {
        seg.column(n)
            .unwrap()
            .nulls()
            .map(|b| b.iter().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    assert_eq!(nulls("city"), vec![doc_of(5)]);
    assert_eq!(nulls("active"), vec![doc_of(5)]);
    let mut w = vec![doc_of(4)];
    w.sort();
    assert_eq!(nulls("weight"), w);
    assert!(nulls("id").is_empty());

    let city = seg.column("city").unwrap();
    assert!(city.metadata().sorted);
    let paris = city.dictionary().unwrap().index_of(&st("Paris")).unwrap();
    assert_eq!(city.index::<Sorted>().unwrap().doc_range(paris), 7..10);
    let active = seg.column("active").unwrap();
    let t = active
        .dictionary()
        .unwrap()
        .index_of(&Value::Boolean(true))
        .unwrap();
    let mut want: Vec<u32> = [1, 3, 6, 7, 9, 11].iter().map(|&i| doc_of(i)).collect();
    want.sort();
    assert_eq!(
        active
            .index::<Inverted>()
            .unwrap()
            .doc_ids(t)
            .iter()
            .collect::<Vec<_>>(),
        want
    );
    let qty = seg.column("qty").unwrap();
    let ids = qty
        .dictionary()
        .unwrap()
        .id_range(Bound::Excluded(&Value::Long(50)), Bound::Unbounded);
    let want: roaring::RoaringBitmap = [6, 7, 8, 9, 10].iter().map(|&i| doc_of(i)).collect();
    // The 12 docs fit one bucket, which the range cuts through: all are partial matches, to be
    // confirmed from the forward index.
    let m = qty.index::<Range>().unwrap().matching(ids);
    assert!(m.exact.is_empty());
    assert_eq!(m.partial.len(), 12);
    assert!(want.is_subset(&m.partial));
    let price = seg.column("price").unwrap();
    assert!(!price.metadata().has_dictionary);
    let m = price
        .index::<Range>()
        .unwrap()
        .matching_values(Bound::Included(&Value::Int(99)), Bound::Unbounded);
    let mut want: Vec<u32> = [3, 6, 10].iter().map(|&i| doc_of(i)).collect();
    want.sort();
    assert_eq!(m.exact.iter().collect::<Vec<_>>(), want);
    assert!(
        seg.column("id")
            .unwrap()
            .index::<Bloom>()
            .unwrap()
            .might_contain(&Value::Int(7))
    );
    assert!(
        seg.column("amount")
            .unwrap()
            .index::<Bloom>()
            .unwrap()
            .might_contain(&Value::Double(9.99))
    );
    let tags = seg.column("tags").unwrap().metadata();
    assert_eq!(
        (
            tags.cardinality,
            tags.max_num_multi_values,
            tags.total_number_of_entries
        ),
        (5, 3, 17)
    );
    assert_eq!(seg.column("note").unwrap().metadata().cardinality, 12);
    assert_eq!(
        seg.column("amount").unwrap().metadata().min_value,
        Value::BigDecimal("-3.50".into())
    );
}

#[test]
fn rebuilding_from_csv_is_byte_identical() {
    let golden = golden_segment();
    let dir = tempfile::tempdir().unwrap();
    let rebuilt = build_into(dir.path());
    for f in [COLUMNS_FILE, INDEX_MAP_FILE] {
        let a = std::fs::read(golden.join(f)).unwrap();
        let b = std::fs::read(rebuilt.join(f)).unwrap();
        assert!(
            a == b,
            "{f} differs from the golden copy ({} vs {} bytes)",
            a.len(),
            b.len()
        );
    }
    let meta = |p: &Path| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(p.join(METADATA_FILE)).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("creationTimeMs");
        v
    };
    assert_eq!(meta(&golden), meta(&rebuilt));
}
