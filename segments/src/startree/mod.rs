//! Star-tree indexes (Pinot's StarTreeV2): per tree, the segment's documents pre-aggregated
//! over a split order of dimensions, plus the tree that finds the records a query needs.
//!
//! * [`StarTreeSpec`] — what a tree is built over: dimensions (split order), dimensions without
//!   star nodes, `FUNCTION__column` pairs and the leaf size; resolved from the table config's
//!   `starTreeIndexConfigs` or derived by [`default_spec`] (`enableDefaultStarTree`).
//! * [`values`] — one pair's pre-aggregated values, a typed column per function.
//! * [`build`] — documents → unique dimension tuples → sorted records → tree with star nodes.
//! * [`tree`] — the stored tree: nodes, record dimensions and pair values, its byte encoding,
//!   and the traversal that answers a query's per-dimension filters and group-by dimensions.
//!
//! A tree is stored as one `star_tree` entry with target `startree:<n>` in `startree.bin`
//! (through the versioned index map); its spec and sizes are in the segment metadata.
//! Record dimension values are the segment's dictionary ids, [`STAR`] for "all values".

pub mod build;
pub mod tree;
pub mod values;

use crate::error::SegmentError;
use crate::segment::ImmutableSegment;
use crate::types::table_config::{
    DEFAULT_MAX_LEAF_RECORDS, FunctionColumnPair, StarTreeFunction, StarTreeIndexConfig,
};
use crate::types::{DataType, FieldType};
use serde::{Deserialize, Serialize};

pub use build::build_star_tree;
pub use tree::{RecordRange, StarTree, TreeQuery};

/// The dictionary id of a star (aggregated over all values) dimension in a record.
pub const STAR: u32 = u32::MAX;

/// The data file holding a segment's star-trees.
pub const STAR_TREE_FILE: &str = "startree.bin";

/// Pinot's cardinality bound for the dimensions of a default star-tree
/// (`StarTreeV2BuilderConfig.DIMENSION_CARDINALITY_THRESHOLD_FOR_DEFAULT_CONFIG`).
pub const DEFAULT_DIMENSION_CARDINALITY_LIMIT: u32 = 10_000;

/// The functions Tessera pre-aggregates.
pub const SUPPORTED_FUNCTIONS: &[StarTreeFunction] = &[
    StarTreeFunction::Count,
    StarTreeFunction::Sum,
    StarTreeFunction::Min,
    StarTreeFunction::Max,
    StarTreeFunction::Avg,
    StarTreeFunction::MinMaxRange,
    StarTreeFunction::DistinctCountHll,
    StarTreeFunction::PercentileEst,
    StarTreeFunction::PercentileTDigest,
];

/// What one star-tree is built over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StarTreeSpec {
    /// Split order.
    pub dimensions: Vec<String>,
    /// Dimensions that get no star node.
    pub skip_star_node_creation: Vec<String>,
    pub function_column_pairs: Vec<FunctionColumnPair>,
    pub max_leaf_records: u32,
}

impl StarTreeSpec {
    /// The spec of a table config's `starTreeIndexConfigs` element; errors name what Tessera
    /// cannot build.
    pub fn from_config(config: &StarTreeIndexConfig) -> Result<StarTreeSpec, SegmentError> {
        let pairs = config
            .function_column_pairs()
            .map_err(|e| SegmentError::Config(e.to_string()))?;
        if let Some(p) = pairs
            .iter()
            .find(|p| !SUPPORTED_FUNCTIONS.contains(&p.function))
        {
            return Err(SegmentError::Config(format!(
                "star-tree function {} of '{p}' is not supported; supported: {}",
                p.function,
                SUPPORTED_FUNCTIONS
                    .iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(StarTreeSpec {
            dimensions: config.dimensions_split_order.clone(),
            skip_star_node_creation: config.skipped_dimensions().to_vec(),
            function_column_pairs: pairs,
            max_leaf_records: config.effective_max_leaf_records(),
        })
    }

    /// The index of `pair` among the tree's pairs.
    pub fn pair_index(&self, function: StarTreeFunction, column: &str) -> Option<usize> {
        self.function_column_pairs
            .iter()
            .position(|p| p.function == function && (p.is_star() || p.column == column))
    }

    /// Every column the tree reads: dimensions, then pair columns.
    pub fn columns(&self) -> impl Iterator<Item = &str> {
        self.dimensions.iter().map(String::as_str).chain(
            self.function_column_pairs
                .iter()
                .filter(|p| !p.is_star())
                .map(|p| p.column.as_str()),
        )
    }
}

/// A built tree as the segment metadata describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StarTreeInfo {
    #[serde(flatten)]
    pub spec: StarTreeSpec,
    /// Pre-aggregated records (Pinot's `startree.v2.<i>.total.docs`).
    pub total_records: u32,
    pub num_nodes: u32,
    pub size_bytes: u64,
}

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
    use crate::format::{DataFileWriter, INDEX_MAP_FILE, METADATA_FILE};
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
    use crate::builder::write_file;
    write_file(&dir.join(INDEX_MAP_FILE), &index_map.to_json())?;
    write_file(&dir.join(METADATA_FILE), &metadata.to_json())
}
