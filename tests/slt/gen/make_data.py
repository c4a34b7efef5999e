"""Generates the deterministic test tables for the .slt suite (checked in; rerun only to change them).

Writes tests/slt/data/<table>/{schema.json, indexed.json, plain.json, part-*.csv}: one CSV per segment.
`indexed.json` enables every index kind on the columns that suit it; `plain.json` enables none, so the
same .slt answers must come out of both (the harness runs every file against both).
"""
import csv, json, random, os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data")
rnd = random.Random(42)

def write_table(name, schema, indexed, plain, parts, header):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    json.dump(schema, open(os.path.join(d, "schema.json"), "w"), indent=2)
    json.dump(indexed, open(os.path.join(d, "indexed.json"), "w"), indent=2)
    json.dump(plain, open(os.path.join(d, "plain.json"), "w"), indent=2)
    for i, rows in enumerate(parts):
        with open(os.path.join(d, f"part-{i}.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)

def table_config(name, idx, time_column="ship_ts"):
    segments_config = {"replication": "1"}
    if time_column:
        segments_config["timeColumnName"] = time_column
    cfg = {"tableName": f"{name}_OFFLINE", "tableType": "OFFLINE",
           "segmentsConfig": segments_config,
           "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}}
    cfg["tableIndexConfig"].update(idx)
    return cfg

# orders: 3 segments of 100 rows, order_id sorted.
statuses = ["OPEN"] * 4 + ["SHIPPED"] * 3 + ["RETURNED", "CANCELLED"]
regions = ["east", "west", "north", "south", "central"]
header = ["order_id", "customer", "status", "region", "amount", "quantity", "discount", "ship_ts", "priority", "note", "score"]
rows = []
base_ms = 1672531200000  # 2023-01-01
for oid in range(1, 301):
    rows.append([
        oid,
        f"cust_{rnd.randrange(30):02d}",
        rnd.choice(statuses),
        rnd.choice(regions),
        round(rnd.uniform(1, 1000), 2),
        rnd.randrange(1, 51),
        rnd.randrange(0, 11) / 100,
        base_ms + rnd.randrange(0, 730) * 86400000 + rnd.randrange(0, 86400) * 1000,
        rnd.choice(["true", "false"]),
        "" if rnd.random() < 0.2 else rnd.choice(["rush", "gift", "fragile", "bulk it's"]),
        "" if rnd.random() < 0.15 else rnd.randrange(0, 100),
    ])
schema = {
    "schemaName": "orders",
    "enableColumnBasedNullHandling": True,
    "dimensionFieldSpecs": [
        {"name": "order_id", "dataType": "LONG"},
        {"name": "customer", "dataType": "STRING"},
        {"name": "status", "dataType": "STRING"},
        {"name": "region", "dataType": "STRING"},
        {"name": "priority", "dataType": "BOOLEAN"},
        {"name": "note", "dataType": "STRING"},
    ],
    "metricFieldSpecs": [
        {"name": "amount", "dataType": "DOUBLE"},
        {"name": "quantity", "dataType": "INT"},
        {"name": "discount", "dataType": "DOUBLE"},
        {"name": "score", "dataType": "INT"},
    ],
    "dateTimeFieldSpecs": [
        {"name": "ship_ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH", "granularity": "1:MILLISECONDS"},
    ],
}
indexed = table_config("orders", {
    "sortedColumn": ["order_id"],
    "invertedIndexColumns": ["status", "region", "customer"],
    "rangeIndexColumns": ["amount", "quantity", "ship_ts"],
    "bloomFilterColumns": ["customer"],
    "noDictionaryColumns": ["discount"],
    "nullHandlingEnabled": True,
})
# A timestamp index on ship_ts at every granularity (derived $ship_ts$DAY ... columns).
indexed["fieldConfigList"] = [{"name": "ship_ts", "encodingType": "DICTIONARY", "indexTypes": ["TIMESTAMP"],
    "timestampConfig": {"granularities": ["MILLISECOND", "SECOND", "MINUTE", "HOUR", "DAY", "WEEK", "MONTH", "QUARTER", "YEAR"]}}]
# Star-trees: one configured (a dimension on a timestamp-index column) and the default one.
indexed["tableIndexConfig"].update({"starTreeIndexConfigs": [{"dimensionsSplitOrder": ["region", "status", "priority", "$ship_ts$MONTH"], "skipStarNodeCreationForDimensions": ["priority"], "functionColumnPairs": ["COUNT__*", "SUM__quantity", "SUM__amount", "MIN__amount", "MAX__amount", "AVG__quantity", "AVG__amount", "MINMAXRANGE__amount", "DISTINCTCOUNTHLL__customer", "SUM__discount", "PERCENTILEEST__quantity"], "maxLeafRecords": 5}], "enableDefaultStarTree": True})
plain = table_config("orders", {"nullHandlingEnabled": True})
write_table("orders", schema, indexed, plain, [rows[0:100], rows[100:200], rows[200:300]], header)

# customers: the other side of the multi-stage (v2) joins. cust_00..cust_24 have orders, cust_25..29
# place orders but are missing here (LEFT JOIN misses), cust_90..92 have no orders (RIGHT JOIN misses).
# Two segments, so a two-server cluster holds one each.
tiers = ["gold", "silver", "bronze"]
countries = ["DE", "FR", "US", "JP"]
crows = []
for i in list(range(25)) + [90, 91, 92]:
    crows.append([
        f"cust_{i:02d}",
        f"name {i}",
        rnd.choice(tiers),
        rnd.choice(countries),
        round(rnd.uniform(100, 5000), 2),
        rnd.randrange(2010, 2024),
    ])
cheader = ["customer", "name", "tier", "country", "credit", "since_year"]
cschema = {
    "schemaName": "customers",
    "dimensionFieldSpecs": [
        {"name": "customer", "dataType": "STRING"},
        {"name": "name", "dataType": "STRING"},
        {"name": "tier", "dataType": "STRING"},
        {"name": "country", "dataType": "STRING"},
        {"name": "since_year", "dataType": "INT"},
    ],
    "metricFieldSpecs": [{"name": "credit", "dataType": "DOUBLE"}],
}
cindexed = table_config("customers", {"sortedColumn": ["customer"], "invertedIndexColumns": ["tier", "country"]}, None)
cplain = table_config("customers", {}, None)
write_table("customers", cschema, cindexed, cplain, [crows[0:14], crows[14:]], cheader)
print("wrote", OUT)
