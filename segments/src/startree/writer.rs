//! Writing a segment's star-trees: build the trees of the configured specs (and Pinot's default
//! tree when asked) over the segment just written, and store them in `startree.bin` with their
//! index-map entries and metadata.

use super::build::build_star_tree;
use super::{DEFAULT_DIMENSION_CARDINALITY_LIMIT, STAR_TREE_FILE, StarTreeInfo, StarTreeSpec};
use crate::error::SegmentError;
use crate::segment::ImmutableSegment;
use crate::types::table_config::{DEFAULT_MAX_LEAF_RECORDS, FunctionColumnPair, StarTreeFunction};
use crate::types::{DataType, FieldType};

/// Pinot's default star-tree for a segment (`StarTreeV2BuilderConfig.generateDefaultConfig`):
/// the dictionary-encoded single-value dimension columns with cardinality below 10,000 in
/// descending order of cardinality, then the time column if dictionary-encoded; pairs
/// `COUNT__*` plus `SUM__m` for each numeric single-value metric. `None` if no dimension
/// qualifies.
pub fn default_spec(segment: &ImmutableSegment) -> Option<StarTreeSpec> {
    let time = segment.metadata().time_column.as_deref();
    let mut dims: Vec<(u32, String)> = segment
        .columns()
        .map(|c| c.metadata())
        .filter(|c| {
            c.field_type == FieldType::Dimension
                && c.single_value
                && c.has_dictionary
                && c.cardinality < DEFAULT_DIMENSION_CARDINALITY_LIMIT
                && Some(c.name.as_str()) != time
                && !c.name.starts_with('$')
        })
        .map(|c| (c.cardinality, c.name.clone()))
        .collect();
    dims.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut dimensions: Vec<String> = dims.into_iter().map(|(_, n)| n).collect();
    if let Some(t) = time.and_then(|t| segment.column(t))
        && t.metadata().has_dictionary
        && t.metadata().single_value
    {
        dimensions.push(t.name().to_string());
    }
    if dimensions.is_empty() {
        return None;
    }
    let mut pairs = vec![FunctionColumnPair::new(StarTreeFunction::Count, "*")?];
    for c in segment.columns().map(|c| c.metadata()) {
        let numeric = matches!(
            c.data_type,
            DataType::Int | DataType::Long | DataType::Float | DataType::Double
        );
        if c.field_type == FieldType::Metric && c.single_value && numeric {
            pairs.push(FunctionColumnPair::new(StarTreeFunction::Sum, &c.name)?);
        }
    }
    Some(StarTreeSpec {
        dimensions,
        skip_star_node_creation: Vec::new(),
        function_column_pairs: pairs,
        max_leaf_records: DEFAULT_MAX_LEAF_RECORDS,
    })
}

/// Builds the trees of `specs` (then the default tree if `default` asks for one) over the
/// built segment in `dir` and stores them: `startree.bin`, index-map entries
/// `startree:<i>` and the metadata's `starTrees`. Called by the builder before the segment
/// directory is published.
pub fn write_star_trees(
    dir: &std::path::Path,
    specs: &[StarTreeSpec],
    default: bool,
) -> Result<(), SegmentError> {
    use crate::format::{DataFileWriter, INDEX_MAP_FILE, METADATA_FILE, write_text};
    use crate::index::IndexKind;
    let segment = ImmutableSegment::open(dir)?;
    let mut specs = specs.to_vec();
    if default
        && let Some(d) = default_spec(&segment)
        && !specs.contains(&d)
    {
        specs.push(d);
    }
    if specs.is_empty() {
        return Ok(());
    }
    let mut file = DataFileWriter::create(dir, STAR_TREE_FILE)?;
    let mut infos = Vec::with_capacity(specs.len());
    for (i, spec) in specs.into_iter().enumerate() {
        let tree = build_star_tree(&segment, &spec)?;
        let bytes = tree.encode();
        file.add(&format!("startree:{i}"), IndexKind::StarTree, &bytes)?;
        infos.push(StarTreeInfo {
            spec,
            total_records: tree.num_records(),
            num_nodes: tree.nodes.len() as u32,
            size_bytes: bytes.len() as u64,
        });
    }
    let (entries, _) = file.finish()?;
    let mut index_map = segment.index_map().clone();
    let mut metadata = segment.metadata().clone();
    drop(segment);
    index_map.entries.extend(entries);
    metadata.star_trees = infos;
    write_text(&dir.join(INDEX_MAP_FILE), &index_map.to_json())?;
    write_text(&dir.join(METADATA_FILE), &metadata.to_json())
}
