//! Star-tree indexes (Pinot's StarTreeV2): per tree, the segment's documents pre-aggregated
//! over a split order of dimensions, plus the tree that finds the records a query needs.
//!
//! * [`StarTreeSpec`] — what a tree is built over: dimensions (split order), dimensions without
//!   star nodes, `FUNCTION__column` pairs and the leaf size; resolved from the table config's
//!   `starTreeIndexConfigs` or derived by [`default_spec`] (`enableDefaultStarTree`).
//! * [`values`] — one pair's pre-aggregated values, a typed column per function.
//! * [`build`] — documents → unique dimension tuples → sorted records → tree with star nodes.
//! * [`writer`] — the trees of a written segment built and stored; Pinot's default tree.
//! * [`tree`] — the stored tree: nodes, record dimensions and pair values, its byte encoding,
//!   and the traversal that answers a query's per-dimension filters and group-by dimensions.
//!
//! A tree is stored as one `star_tree` entry with target `startree:<n>` in `startree.bin`
//! (through the versioned index map); its spec and sizes are in the segment metadata.
//! Record dimension values are the segment's dictionary ids, [`STAR`] for "all values".

pub mod build;
pub mod tree;
pub mod values;
pub mod writer;

use crate::error::SegmentError;
use crate::types::table_config::{FunctionColumnPair, StarTreeFunction, StarTreeIndexConfig};
use serde::{Deserialize, Serialize};

pub use tree::{RecordRange, STAR, StarTree, TreeQuery};

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
