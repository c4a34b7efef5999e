//! Dimension tables as `lookUp` reads them ([`planner::functions::DimensionTables`]).
//!
//! * [`DimensionIndex`] — one dimension table's rows by primary key, built from its segments
//!   (a key in a later segment replaces an earlier one, as Pinot's dimension table manager
//!   loads them).
//! * [`SegmentDimensions`] — the lookups of a process over any source of segments
//!   ([`DimensionSegments`]: a server's hosted copies, a test's tables): each table's index is
//!   built on its first lookup and kept until the source's version moves (a segment installed,
//!   replaced or removed), so a query's rows cost a hash lookup each.

use crate::key::Key;
use planner::functions::DimensionTables;
use segments::segment::ImmutableSegment;
use segments::types::{DataType, Value};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// Where the segments of dimension tables come from.
pub trait DimensionSegments: Send + Sync {
    /// Moves whenever the segments of any table change.
    fn version(&self) -> u64;
    /// The segments of a table (raw name) held here; `None` when none are.
    fn dimension_segments(&self, table: &str) -> Option<Vec<Arc<ImmutableSegment>>>;
}

/// One dimension table's rows by primary key.
pub struct DimensionIndex {
    key_types: Vec<DataType>,
    columns: HashMap<String, usize>,
    rows: HashMap<Vec<Key>, Vec<Value>>,
}

impl DimensionIndex {
    /// Indexes `segments` by `key_columns`.
    pub fn build(
        segments: &[Arc<ImmutableSegment>],
        key_columns: &[&str],
    ) -> Result<DimensionIndex, String> {
        let Some(first) = segments.first() else {
            return Err("the dimension table has no segments".into());
        };
        let names: Vec<String> = first.columns().map(|c| c.name().to_string()).collect();
        let columns: HashMap<String, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect();
        let key_at = key_columns
            .iter()
            .map(|k| {
                columns.get(*k).copied().ok_or_else(|| {
                    format!("Primary key column doesn't exist in dimension table: {k}")
                })
            })
            .collect::<Result<Vec<usize>, String>>()?;
        let key_types = key_columns
            .iter()
            .filter_map(|k| first.column(k).map(|c| c.data_type()))
            .collect();
        let mut rows = HashMap::new();
        for segment in segments {
            let docs = segment.total_docs();
            let values: Vec<Vec<Value>> = names
                .iter()
                .map(|n| {
                    segment
                        .column(n)
                        .map_or_else(|| vec![Value::Null; docs as usize], |c| c.values(docs))
                })
                .collect();
            for doc in 0..docs as usize {
                let row: Vec<Value> = values.iter().map(|c| c[doc].clone()).collect();
                let key: Vec<Key> = key_at.iter().map(|&i| Key(row[i].clone())).collect();
                if key.iter().any(|k| k.0.is_null()) {
                    continue;
                }
                rows.insert(key, row);
            }
        }
        Ok(DimensionIndex {
            key_types,
            columns,
            rows,
        })
    }

    /// `column` of the row with primary key `key` (fact values, converted to the key columns'
    /// types); NULL when there is none.
    pub fn get(&self, column: &str, key: &[Value]) -> Result<Value, String> {
        let at = *self
            .columns
            .get(column)
            .ok_or_else(|| format!("Column does not exist in dimension table: {column}"))?;
        let mut k = Vec::with_capacity(key.len());
        for (v, t) in key.iter().zip(&self.key_types) {
            match v.cast(*t) {
                Ok(v) => k.push(Key(v)),
                // A value that is no key of this type matches no row.
                Err(_) => return Ok(Value::Null),
            }
        }
        Ok(self.rows.get(&k).map_or(Value::Null, |row| row[at].clone()))
    }

    /// The rows indexed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is indexed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// One table's index, the key columns it is by and the source version it was built at.
struct Built {
    version: u64,
    key_columns: Vec<String>,
    index: Arc<DimensionIndex>,
}

/// `lookUp`'s view of a source of segments, one index per table.
pub struct SegmentDimensions<S> {
    source: S,
    indexes: RwLock<HashMap<String, Built>>,
}

impl<S: DimensionSegments> SegmentDimensions<S> {
    pub fn new(source: S) -> SegmentDimensions<S> {
        SegmentDimensions {
            source,
            indexes: RwLock::new(HashMap::new()),
        }
    }

    /// The current index of `table` by `key_columns`; `None` when the source holds no segment
    /// of it. Called per row: a current index is found without allocating.
    fn index(
        &self,
        table: &str,
        key_columns: &[&str],
    ) -> Option<Result<Arc<DimensionIndex>, String>> {
        let version = self.source.version();
        if let Ok(indexes) = self.indexes.read()
            && let Some(built) = indexes.get(table)
            && built.version == version
            && built
                .key_columns
                .iter()
                .map(String::as_str)
                .eq(key_columns.iter().copied())
        {
            return Some(Ok(built.index.clone()));
        }
        let segments = self.source.dimension_segments(table)?;
        let index = match DimensionIndex::build(&segments, key_columns) {
            Ok(index) => Arc::new(index),
            Err(e) => return Some(Err(e)),
        };
        if let Ok(mut indexes) = self.indexes.write() {
            let built = Built {
                version,
                key_columns: key_columns.iter().map(|k| k.to_string()).collect(),
                index: index.clone(),
            };
            indexes.insert(table.to_string(), built);
        }
        Some(Ok(index))
    }
}

impl<S: DimensionSegments> DimensionTables for SegmentDimensions<S> {
    fn lookup(
        &self,
        table: &str,
        column: &str,
        key_columns: &[&str],
        key: &[Value],
    ) -> Option<Result<Value, String>> {
        Some(
            self.index(table, key_columns)?
                .and_then(|index| index.get(column, key)),
        )
    }
}

impl DimensionSegments for crate::provider::MemoryTables {
    fn version(&self) -> u64 {
        0
    }

    fn dimension_segments(&self, table: &str) -> Option<Vec<Arc<ImmutableSegment>>> {
        use crate::provider::TableProvider;
        let segments = self.segments(table);
        (self.is_dim_table(table) && !segments.is_empty()).then_some(segments)
    }
}
