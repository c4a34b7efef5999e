//! A deterministic TPC-H-like `lineitem` generator (no downloads): same seed, same rows.
//! Value ranges follow the TPC-H spec (quantity 1–50, discount 0.00–0.10, tax 0.00–0.08,
//! ship dates 1992-01-02 … 1998-12-01, the seven ship modes); order keys ascend so the
//! table's sorted column is naturally sorted.

use segments::types::Value;
use serde_json::{Value as Json, json};

/// SplitMix64: small, fast, good enough for sample data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const SHIP_MODES: [&str; 7] = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"];
const DAY_MS: i64 = 86_400_000;
/// 1992-01-02T00:00:00Z.
const FIRST_SHIP_MS: i64 = 694_310_400_000;
/// Days from 1992-01-02 to 1998-12-01.
const SHIP_DAYS: u64 = 2525;
/// 1995-06-17: TPC-H's line-status cut-over.
const CUTOVER_MS: i64 = 803_347_200_000;

/// The schema (`schemaName` = `lineitem`).
pub fn schema() -> Json {
    json!({
        "schemaName": "lineitem",
        "dimensionFieldSpecs": [
            {"name": "l_orderkey", "dataType": "LONG"},
            {"name": "l_linenumber", "dataType": "INT"},
            {"name": "l_returnflag", "dataType": "STRING"},
            {"name": "l_linestatus", "dataType": "STRING"},
            {"name": "l_shipmode", "dataType": "STRING"}
        ],
        "metricFieldSpecs": [
            {"name": "l_quantity", "dataType": "DOUBLE"},
            {"name": "l_extendedprice", "dataType": "DOUBLE"},
            {"name": "l_discount", "dataType": "DOUBLE"},
            {"name": "l_tax", "dataType": "DOUBLE"}
        ],
        "dateTimeFieldSpecs": [
            {"name": "l_shipdate", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:TIMESTAMP", "granularity": "1:DAYS"}
        ]
    })
}

/// The table config: sorted on `l_orderkey`, inverted on flags and ship mode, range on
/// quantity and ship date.
pub fn table_config() -> Json {
    json!({
        "tableName": "lineitem",
        "tableType": "OFFLINE",
        "segmentsConfig": {"timeColumnName": "l_shipdate", "replication": "1", "segmentPushType": "APPEND"},
        "tenants": {"broker": "DefaultTenant", "server": "DefaultTenant"},
        "tableIndexConfig": {
            "loadMode": "MMAP",
            "sortedColumn": ["l_orderkey"],
            "invertedIndexColumns": ["l_returnflag", "l_linestatus", "l_shipmode"],
            "rangeIndexColumns": ["l_quantity", "l_shipdate"]
        },
        "metadata": {"customConfigs": {}}
    })
}

/// `count` rows of segment `part` in schema field order (dimensions, metrics, date-time).
pub fn rows(part: u64, count: usize) -> impl Iterator<Item = Vec<Value>> {
    let mut rng = Rng(0x7E55_E7A0 ^ part.wrapping_mul(0x1_0000_0001));
    let mut order = part * 10_000_000 + 1;
    let mut line = 0i32;
    (0..count).map(move |_| {
        if line == 0 || rng.below(4) == 0 {
            order += 1 + rng.below(3);
            line = 0;
        }
        line += 1;
        let quantity = (1 + rng.below(50)) as f64;
        let price = 900.0 + rng.below(100_000) as f64 / 100.0;
        let ship = FIRST_SHIP_MS + rng.below(SHIP_DAYS) as i64 * DAY_MS;
        let (flag, status) = if ship > CUTOVER_MS {
            ("N", "O")
        } else {
            (["A", "R"][rng.below(2) as usize], "F")
        };
        vec![
            Value::Long(order as i64),
            Value::Int(line),
            Value::String(flag.into()),
            Value::String(status.into()),
            Value::String(SHIP_MODES[rng.below(7) as usize].into()),
            Value::Double(quantity),
            Value::Double((quantity * price * 100.0).round() / 100.0),
            Value::Double(rng.below(11) as f64 / 100.0),
            Value::Double(rng.below(9) as f64 / 100.0),
            Value::Timestamp(ship),
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_sorted_and_in_range() {
        let a: Vec<_> = rows(3, 1000).collect();
        let b: Vec<_> = rows(3, 1000).collect();
        assert_eq!(a, b);
        assert_ne!(a, rows(4, 1000).collect::<Vec<_>>());
        let keys: Vec<i64> = a
            .iter()
            .map(|r| if let Value::Long(k) = r[0] { k } else { 0 })
            .collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        for r in &a {
            assert_eq!(r.len(), 10);
            let Value::Double(q) = r[5] else {
                panic!("quantity")
            };
            assert!((1.0..=50.0).contains(&q));
            let Value::Double(d) = r[7] else {
                panic!("discount")
            };
            assert!((0.0..=0.10).contains(&d));
            let Value::String(mode) = &r[4] else {
                panic!("mode")
            };
            assert!(SHIP_MODES.contains(&mode.as_str()));
        }
    }
}
