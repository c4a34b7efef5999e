#!/usr/bin/env bash
# Prepares the peer comparison: a Python venv with the peer engines and the TPC-H generator,
# all eight TPC-H tables as CSV (tpch_joins.py), and lineitem at the requested scale factor as CSV (for Tessera and DuckDB's CSV load)
# and Parquet with Pinot-like types (DOUBLE metrics, BIGINT keys, DATE dates) for the peers.
# Usage: benches/peer/setup.sh [SCALE_FACTOR]   (default 1; data goes to benches/data/sf<SF>/)
set -euo pipefail
cd "$(dirname "$0")/.."
SF="${1:-1}"
VENV=.venv-peers
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    "$VENV/bin/pip" install --quiet duckdb==2.0.0 polars==2.1.0 pyarrow tpchgen-cli==4.0.0 datafusion==55.0.0
fi
# chDB (ClickHouse in-process), a peer of the TPC-H benchmark (tpch.py).
if ! "$VENV/bin/python" -c "import chdb" 2>/dev/null; then
    "$VENV/bin/pip" install --quiet chdb==4.4.0
fi
# A Kafka producer for the real-time ingestion benchmark (realtime_ingest.py).
if ! "$VENV/bin/python" -c "import kafka" 2>/dev/null; then
    "$VENV/bin/pip" install --quiet kafka-python==2.0.2
fi
OUT="data/sf$SF"
mkdir -p "$OUT"
if [ ! -f "$OUT/lineitem.csv" ]; then
    "$VENV/bin/tpchgen-cli" csv -s "$SF" --tables=lineitem --output-dir "$OUT"
    # tpchgen-cli writes lineitem.csv (or lineitem/ with parts in newer versions): normalise.
    if [ -d "$OUT/lineitem" ]; then cat "$OUT"/lineitem/*.csv > "$OUT/lineitem.csv.tmp" && rm -r "$OUT/lineitem" && mv "$OUT/lineitem.csv.tmp" "$OUT/lineitem.csv"; fi
fi
# The other seven tables, for the join benchmark (tpch_joins.py).
for t in region nation supplier customer part partsupp orders; do
    if [ ! -f "$OUT/$t.csv" ]; then
        "$VENV/bin/tpchgen-cli" csv -s "$SF" --tables="$t" --output-dir "$OUT"
        if [ -d "$OUT/$t" ]; then cat "$OUT/$t"/*.csv > "$OUT/$t.csv.tmp" && rm -r "$OUT/$t" && mv "$OUT/$t.csv.tmp" "$OUT/$t.csv"; fi
    fi
done
if [ ! -f "$OUT/lineitem_dbl.parquet" ]; then
    "$VENV/bin/python" - "$OUT" <<'PY'
import sys, duckdb
out = sys.argv[1]
duckdb.sql(f"""COPY (SELECT l_orderkey::BIGINT l_orderkey, l_partkey::BIGINT l_partkey, l_suppkey::BIGINT l_suppkey,
 l_linenumber::INT l_linenumber, l_quantity::DOUBLE l_quantity, l_extendedprice::DOUBLE l_extendedprice,
 l_discount::DOUBLE l_discount, l_tax::DOUBLE l_tax, l_returnflag, l_linestatus, l_shipdate::DATE l_shipdate,
 l_commitdate::DATE l_commitdate, l_receiptdate::DATE l_receiptdate, l_shipinstruct, l_shipmode, l_comment
 FROM read_csv('{out}/lineitem.csv', header=true)) TO '{out}/lineitem_dbl.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)""")
PY
fi
echo "peer venv: benches/$VENV; data: benches/$OUT"
