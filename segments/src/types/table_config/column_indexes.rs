//! [`ColumnIndexes`]: everything a table config asks for one column, resolved across Pinot's
//! three ways of saying it — the legacy `tableIndexConfig` lists, `fieldConfigList` entries'
//! `encodingType`/`indexTypes`/`timestampConfig`, and their newer `indexes` objects.
//!
//! The segment builder asks this instead of reading the config's many lists itself.

use super::config::TableConfig;
use super::field_config::{
    CompressionCodec, EncodingType, FieldConfig, IndexType, TimestampGranularity,
};
use super::indexing::BloomFilterConfig;

/// The resolved index set of one column.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnIndexes {
    /// Dictionary-encoded (the default) or raw.
    pub dictionary: bool,
    pub sorted: bool,
    pub inverted: bool,
    pub range: bool,
    pub bloom_filter: Option<BloomFilterConfig>,
    pub json: bool,
    pub text: bool,
    pub fst: bool,
    pub h3: bool,
    pub vector: bool,
    /// Granularities of the timestamp index (empty: none).
    pub timestamp: Vec<TimestampGranularity>,
    pub on_heap_dictionary: bool,
    pub var_length_dictionary: bool,
    /// The forward index's codec, when configured.
    pub compression_codec: Option<CompressionCodec>,
}

impl TableConfig {
    /// Whether `column` gets a dictionary: not listed as no-dictionary, not RAW-encoded in
    /// its field config, and not `indexes.dictionary.disabled`.
    pub fn has_dictionary(&self, column: &str) -> bool {
        match self.field_config(column) {
            Some(f) if f.encoding_type == Some(EncodingType::Dictionary) => f.has_dictionary(),
            Some(f) => f.has_dictionary() && !self.table_index_config.is_no_dictionary(column),
            None => !self.table_index_config.is_no_dictionary(column),
        }
    }

    /// The indexes configured for `column`, from every place Pinot accepts them.
    pub fn column_indexes(&self, column: &str) -> ColumnIndexes {
        let ic = &self.table_index_config;
        let field = self.field_config(column);
        let typed = |t: IndexType| field.is_some_and(|f| f.index_types.contains(&t));
        let object = |id: &str| field.is_some_and(|f| f.index_enabled(id));
        let bloom_from_field = field
            .and_then(|f| f.index_object("bloom").filter(|_| f.index_enabled("bloom")))
            .map(|o| serde_json::from_value::<BloomFilterConfig>(o.clone()).unwrap_or_default());
        ColumnIndexes {
            dictionary: self.has_dictionary(column),
            sorted: ic.sorted_column() == Some(column) || typed(IndexType::Sorted),
            inverted: ic.is_inverted(column) || typed(IndexType::Inverted) || object("inverted"),
            range: ic.is_range(column) || typed(IndexType::Range) || object("range"),
            bloom_filter: ic.bloom_filter(column).or(bloom_from_field),
            json: ic.is_json(column) || typed(IndexType::Json) || object("json"),
            text: typed(IndexType::Text) || object("text"),
            fst: typed(IndexType::Fst) || typed(IndexType::Ifst) || object("fst") || object("ifst"),
            h3: ic.is_h3(column) || typed(IndexType::H3) || object("h3"),
            vector: ic.is_vector(column) || typed(IndexType::Vector) || object("vector"),
            timestamp: field
                .map(FieldConfig::timestamp_granularities)
                .unwrap_or_default()
                .to_vec(),
            on_heap_dictionary: ic.is_on_heap_dictionary(column),
            var_length_dictionary: ic.is_var_length_dictionary(column),
            compression_codec: field.and_then(|f| f.compression_codec),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::table_type::TableType;
    use super::*;
    use serde_json::json;

    #[test]
    fn resolves_all_three_forms() {
        let c = TableConfig::from_value(json!({
            "tableName": "t", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
            "tableIndexConfig": {"invertedIndexColumns": ["a"], "noDictionaryColumns": ["raw"],
                                 "sortedColumn": ["s"], "bloomFilterConfigs": {"a": {"fpp": 0.01}}},
            "fieldConfigList": [
                {"name": "ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
                 "timestampConfig": {"granularities": ["DAY"]}},
                {"name": "txt", "encodingType": "RAW", "indexTypes": ["TEXT"], "compressionCodec": "LZ4"},
                {"name": "b", "encodingType": "DICTIONARY",
                 "indexes": {"inverted": {"enabled": "true"}, "range": {}, "bloom": {"fpp": 0.2}}}
            ]
        }))
        .unwrap();
        let a = c.column_indexes("a");
        assert!(a.dictionary && a.inverted && !a.range);
        assert_eq!(a.bloom_filter.unwrap().effective_fpp(), 0.01);
        assert!(!c.column_indexes("raw").dictionary);
        assert!(c.column_indexes("s").sorted);
        assert_eq!(
            c.column_indexes("ts").timestamp,
            vec![TimestampGranularity::Day]
        );
        let txt = c.column_indexes("txt");
        assert!(!txt.dictionary && txt.text);
        assert_eq!(txt.compression_codec, Some(CompressionCodec::Lz4));
        let b = c.column_indexes("b");
        assert!(b.inverted && b.range);
        assert_eq!(b.bloom_filter.unwrap().effective_fpp(), 0.2);
        let plain = c.column_indexes("other");
        assert!(plain.dictionary && !plain.inverted && plain.bloom_filter.is_none());
        assert_eq!(
            TableConfig::new("t", TableType::Offline).column_indexes("x"),
            plain
        );
    }
}
