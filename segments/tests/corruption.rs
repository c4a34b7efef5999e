//! Damaged segments must fail to open with a typed error naming the file — never panic:
//! truncation of every file, bit flips at every byte of the data file, flips in the JSON files,
//! wrong footer magic/version, wrong metadata version, missing files.

mod common;

use common::read_column;
use segments::format::{COLUMNS_FILE, FOOTER_LEN, INDEX_MAP_FILE, METADATA_FILE};
use segments::index::{Bloom, Inverted, Range, Sorted};
use segments::types::{DataType, FieldSpec, Schema, Value};
use segments::{BuildConfig, ImmutableSegment, SegmentError, build_segment_from_rows};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use tessera_segments as segments;

/// A small segment with every entry kind.
fn build(dir: &Path) -> PathBuf {
    let schema = Schema {
        schema_name: "t".into(),
        fields: vec![
            FieldSpec::dimension("k", DataType::Int),
            FieldSpec::dimension("s", DataType::String),
            FieldSpec {
                single_value_field: false,
                ..FieldSpec::dimension("m", DataType::Long)
            },
            FieldSpec::metric("p", DataType::Double),
            FieldSpec::dimension("c", DataType::String),
        ],
        ..Schema::default()
    };
    let mut cfg = BuildConfig::new("t", "seg");
    cfg.sorted_column = Some("k".into());
    cfg.inverted.extend(["s".to_string(), "m".to_string()]);
    cfg.range.extend(["k".to_string(), "p".to_string()]);
    cfg.no_dictionary.extend(["p".to_string(), "c".to_string()]);
    cfg.bloom.insert("s".into(), 0.05);
    let rows = (0..40i64).map(|i| {
        Ok(vec![
            Value::Int((i % 7) as i32),
            if i % 5 == 0 {
                Value::Null
            } else {
                Value::String(format!("v{}", i % 3))
            },
            Value::Array((0..i % 3).map(Value::Long).collect()),
            Value::Double(i as f64 / 4.0),
            Value::String(format!("comment {i}")),
        ])
    });
    build_segment_from_rows(&schema, &cfg, rows, dir)
        .unwrap()
        .segment_dir
}

/// Opens and, if that succeeds, reads everything (nothing may panic).
fn open_and_read(dir: &Path) -> Result<(), SegmentError> {
    let seg = ImmutableSegment::open(dir)?;
    for c in seg.columns() {
        read_column(c, seg.total_docs());
        if let Some(d) = c.dictionary() {
            for id in 0..d.len() {
                if let Some(i) = c.index::<Inverted>() {
                    i.doc_ids(id);
                }
                if let Some(s) = c.index::<Sorted>() {
                    s.doc_range(id);
                }
            }
            if let Some(r) = c.index::<Range>() {
                r.matching(0..d.len());
            }
        } else if let Some(r) = c.index::<Range>() {
            r.matching_values(Bound::Unbounded, Bound::Included(&Value::Int(3)));
        }
        if let Some(b) = c.index::<Bloom>() {
            b.might_contain(&Value::String("v1".into()));
        }
    }
    Ok(())
}

fn copy_segment(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for f in [METADATA_FILE, INDEX_MAP_FILE, COLUMNS_FILE] {
        std::fs::copy(src.join(f), dst.join(f)).unwrap();
    }
}

fn names_file(e: &SegmentError, file: &str) -> bool {
    e.to_string().contains(file)
}

#[test]
fn intact_segment_opens() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    open_and_read(&seg).unwrap();
}

#[test]
fn truncation_of_any_file_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    let work = dir.path().join("work");
    for file in [METADATA_FILE, INDEX_MAP_FILE, COLUMNS_FILE] {
        let bytes = std::fs::read(seg.join(file)).unwrap();
        let step = (bytes.len() / 97).max(1);
        let mut lens: Vec<usize> = (0..bytes.len()).step_by(step).collect();
        lens.extend([bytes.len() - 1, bytes.len().saturating_sub(FOOTER_LEN)]);
        for len in lens {
            copy_segment(&seg, &work);
            std::fs::write(work.join(file), &bytes[..len]).unwrap();
            let err =
                open_and_read(&work).expect_err(&format!("{file} truncated to {len} bytes opened"));
            assert!(names_file(&err, file), "{file} at {len}: {err}");
            assert!(
                matches!(err, SegmentError::Corrupt { .. }),
                "{file} at {len}: {err:?}"
            );
        }
    }
}

#[test]
fn every_flipped_byte_of_the_data_file_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    let work = dir.path().join("work");
    copy_segment(&seg, &work);
    let bytes = std::fs::read(seg.join(COLUMNS_FILE)).unwrap();
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            std::fs::write(work.join(COLUMNS_FILE), &b).unwrap();
            let err = open_and_read(&work).expect_err(&format!("flip {mask:#x} at {i} opened"));
            assert!(names_file(&err, COLUMNS_FILE), "flip at {i}: {err}");
        }
    }
}

#[test]
fn flips_in_json_files_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    let work = dir.path().join("work");
    for file in [METADATA_FILE, INDEX_MAP_FILE] {
        copy_segment(&seg, &work);
        let bytes = std::fs::read(seg.join(file)).unwrap();
        let mut errors = 0;
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= if b[i].is_ascii_digit() { 0x03 } else { 0x01 };
            std::fs::write(work.join(file), &b).unwrap();
            if open_and_read(&work).is_err() {
                errors += 1;
            }
        }
        std::fs::write(work.join(file), &bytes).unwrap();
        assert!(
            errors > bytes.len() / 2,
            "{file}: only {errors} of {} flips detected",
            bytes.len()
        );
    }
}

#[test]
fn wrong_magic_and_versions() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    let work = dir.path().join("work");
    let bytes = std::fs::read(seg.join(COLUMNS_FILE)).unwrap();
    let footer = bytes.len() - FOOTER_LEN;

    copy_segment(&seg, &work);
    let mut b = bytes.clone();
    b[footer..footer + 4].copy_from_slice(&7u32.to_le_bytes());
    std::fs::write(work.join(COLUMNS_FILE), &b).unwrap();
    let err = ImmutableSegment::open(&work).unwrap_err();
    assert!(
        matches!(&err, SegmentError::UnsupportedVersion { found: 7, expected: 3, file } if file.ends_with(COLUMNS_FILE)),
        "{err:?}"
    );

    let mut b = bytes.clone();
    b[bytes.len() - 1] = b'X';
    std::fs::write(work.join(COLUMNS_FILE), &b).unwrap();
    let err = ImmutableSegment::open(&work).unwrap_err();
    assert!(err.to_string().contains("bad magic"), "{err}");

    copy_segment(&seg, &work);
    let meta = std::fs::read_to_string(seg.join(METADATA_FILE)).unwrap();
    std::fs::write(
        work.join(METADATA_FILE),
        meta.replace("\"formatVersion\": 3", "\"formatVersion\": 4"),
    )
    .unwrap();
    let err = ImmutableSegment::open(&work).unwrap_err();
    assert!(
        matches!(&err, SegmentError::UnsupportedVersion { found: 4, file, .. } if file.ends_with(METADATA_FILE)),
        "{err:?}"
    );

    copy_segment(&seg, &work);
    let map = std::fs::read_to_string(seg.join(INDEX_MAP_FILE)).unwrap();
    std::fs::write(
        work.join(INDEX_MAP_FILE),
        map.replace("\"formatVersion\": 3", "\"formatVersion\": 9"),
    )
    .unwrap();
    let err = ImmutableSegment::open(&work).unwrap_err();
    assert!(
        matches!(&err, SegmentError::UnsupportedVersion { found: 9, .. }),
        "{err:?}"
    );

    // An unknown index kind is skipped (forward compatibility), an unknown data file is an error.
    copy_segment(&seg, &work);
    std::fs::write(
        work.join(INDEX_MAP_FILE),
        map.replace("\"inverted\"", "\"h3\""),
    )
    .unwrap();
    let s = ImmutableSegment::open(&work).unwrap();
    assert!(s.column("s").unwrap().index::<Inverted>().is_none());
    std::fs::write(
        work.join(INDEX_MAP_FILE),
        map.replacen("\"columns.bin\"", "\"../columns.bin\"", 1),
    )
    .unwrap();
    assert!(
        ImmutableSegment::open(&work)
            .unwrap_err()
            .to_string()
            .contains("invalid data file name")
    );
}

#[test]
fn missing_files_are_io_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    let work = dir.path().join("work");
    for file in [METADATA_FILE, INDEX_MAP_FILE, COLUMNS_FILE] {
        copy_segment(&seg, &work);
        std::fs::remove_file(work.join(file)).unwrap();
        let err = ImmutableSegment::open(&work).unwrap_err();
        assert!(
            matches!(err, SegmentError::Io { .. }) && names_file(&err, file),
            "{err}"
        );
    }
}

/// Rewrites the index-map and footer checksums after a flip, so the structural checks behind
/// the checksums are exercised too (a "valid" file with garbage inside).
fn refresh_checksums(dir: &Path, data: &mut [u8]) {
    use segments::format::{FormatVersion, IndexMap};
    let map_path = dir.join(INDEX_MAP_FILE);
    let mut map = IndexMap::parse(&map_path, &std::fs::read(&map_path).unwrap()).unwrap();
    let body = data.len() - FOOTER_LEN;
    for e in &mut map.entries {
        let (o, s) = (e.offset as usize, e.size as usize);
        e.crc32 = crc32fast::hash(&data[o..o + s]);
    }
    let crc = crc32fast::hash(&data[..body]);
    data[body..].copy_from_slice(&FormatVersion::CURRENT.footer(crc));
    std::fs::write(&map_path, map.to_json()).unwrap();
}

#[test]
fn structural_checks_behind_the_checksums_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let seg = build(dir.path());
    let work = dir.path().join("work");
    let bytes = std::fs::read(seg.join(COLUMNS_FILE)).unwrap();
    let mut rejected = 0;
    for i in 0..bytes.len() - FOOTER_LEN {
        for mask in [0x04u8, 0xff] {
            copy_segment(&seg, &work);
            let mut b = bytes.clone();
            b[i] ^= mask;
            refresh_checksums(&work, &mut b);
            std::fs::write(work.join(COLUMNS_FILE), &b).unwrap();
            let t = std::time::Instant::now();
            let r = open_and_read(&work);
            assert!(
                t.elapsed().as_secs() < 2,
                "flip {mask:#x} at {i} took {:?}",
                t.elapsed()
            );
            if let Err(e) = r {
                assert!(names_file(&e, COLUMNS_FILE), "flip at {i}: {e}");
                rejected += 1;
            }
        }
    }
    assert!(rejected > 0);
}
