//! Views of an open segment for `tessera segment inspect`: one JSON object
//! ([`inspect_json`]) or a human-readable table ([`inspect_table`]).

use crate::segment::ImmutableSegment;
use serde_json::{Map, Value as Json, json};

/// `{segmentName, tableName, totalDocs, columns: {NAME: {dataType, singleValue, cardinality,
/// minValue, maxValue, sorted, hasDictionary, indexes: [..], sizeBytes}}, starTrees: [{dimensions,
/// skipStarNodeCreation, functionColumnPairs, maxLeafRecords, totalRecords, numNodes,
/// sizeBytes}]}`.
pub fn inspect_json(seg: &ImmutableSegment) -> Json {
    let m = seg.metadata();
    let mut columns = Map::new();
    for c in &m.columns {
        columns.insert(
            c.name.clone(),
            json!({
                "dataType": c.data_type.name(),
                "singleValue": c.single_value,
                "cardinality": c.cardinality,
                "minValue": c.min_value.to_json(),
                "maxValue": c.max_value.to_json(),
                "sorted": c.sorted,
                "hasDictionary": c.has_dictionary,
                "indexes": c.indexes.iter().map(|i| i.kind.name()).collect::<Vec<_>>(),
                "sizeBytes": c.size_bytes(),
            }),
        );
    }
    json!({
        "segmentName": m.segment_name,
        "tableName": m.table_name,
        "totalDocs": m.total_docs,
        "columns": columns,
        "starTrees": m.star_trees,
    })
}

fn clip(s: String, max: usize) -> String {
    if s.chars().count() <= max {
        s
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// A human-readable summary: a header line and one row per column.
pub fn inspect_table(seg: &ImmutableSegment) -> String {
    let m = seg.metadata();
    let mut rows = vec![
        [
            "column", "type", "sv", "card", "min", "max", "sorted", "dict", "indexes", "bytes",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in &m.columns {
        rows.push(vec![
            c.name.clone(),
            c.data_type.name().to_string(),
            if c.single_value { "SV" } else { "MV" }.to_string(),
            c.cardinality.to_string(),
            clip(c.min_value.to_string(), 24),
            clip(c.max_value.to_string(), 24),
            c.sorted.to_string(),
            c.has_dictionary.to_string(),
            c.indexes
                .iter()
                .map(|i| i.kind.name())
                .collect::<Vec<_>>()
                .join(","),
            c.size_bytes().to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = format!(
        "segment {} (table {}): {} docs, {} columns, format v{}\n",
        m.segment_name,
        m.table_name,
        m.total_docs,
        m.columns.len(),
        m.format_version
    );
    if let (Some(t), Some(s), Some(e)) = (&m.time_column, m.start_time, m.end_time) {
        out.push_str(&format!("time column {t}: {s} .. {e}\n"));
    }
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    for (i, t) in m.star_trees.iter().enumerate() {
        out.push_str(&format!(
            "star-tree {i}: dimensions {} | pairs {} | maxLeafRecords {} | {} records, {} nodes, {} bytes\n",
            t.spec.dimensions.join(","),
            t.spec
                .function_column_pairs
                .iter()
                .map(|p| p.to_string())
                .collect::<Vec<_>>()
                .join(","),
            t.spec.max_leaf_records,
            t.total_records,
            t.num_nodes,
            t.size_bytes
        ));
    }
    out
}
