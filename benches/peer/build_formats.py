"""Segment builds from Parquet against builds from CSV, and against DuckDB loading the same files.

Prepare once with `benches/peer/setup.sh [SF]` (lineitem as CSV and as Parquet with Pinot-like
types), then
    benches/.venv-peers/bin/python benches/peer/build_formats.py [--sf 1] [--runs 3]
It builds the release `tessera` binary (and writes the Parquet file's rows as ORC once, for
Tessera's ORC build; DuckDB reads no ORC), then alternates (one thread each, RAYON_NUM_THREADS=1 /
`SET threads=1`): `tessera segment create` from lineitem.csv and from lineitem_dbl.parquet (the
same schema and table config: sorted, inverted and range indexes), and DuckDB's
`CREATE TABLE AS SELECT * FROM read_csv(...)` / `read_parquet(...)`. It prints median seconds and
rows/s for each, the Parquet/CSV rate ratio of each engine, Tessera's Parquet rate against
DuckDB's, and the segment's size against the Parquet file's.

A segment's dictionary column needs its distinct values sorted and every row's rank among them;
DuckDB's `CREATE TABLE AS` needs neither. So that the two loads are also set against the same
work, each DuckDB run then times, on its loaded table and one thread, the sorted distinct values
of `l_comment` and their dense ranks per row (one of the segment's 16 dictionaries), and Tessera
builds a segment of that one column from the Parquet file (reading it included).
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

# One dictionary column's work, done by DuckDB on its loaded table: the sorted distinct values,
# and every row's dense rank among them (the column's dictionary ids).
SAME_WORK = {
    "sorted distinct l_comment": "CREATE TABLE d AS SELECT DISTINCT l_comment FROM t ORDER BY l_comment",
    "dense_rank of l_comment": "CREATE TABLE r AS SELECT dense_rank() OVER (ORDER BY l_comment) FROM t",
}
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def dir_size(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
    inputs = {"csv": os.path.join(data, "lineitem.csv"), "parquet": os.path.join(data, "lineitem_dbl.parquet")}
    for p in inputs.values():
        if not os.path.exists(p):
            sys.exit(f"missing {p}: run benches/peer/setup.sh {args.sf} first")
    # The same rows as ORC (pyarrow's writer, zstd), for Tessera alone: DuckDB reads no ORC.
    orc_path = os.path.join(data, "lineitem_dbl.orc")
    if not os.path.exists(orc_path):
        import pyarrow.orc, pyarrow.parquet
        pyarrow.orc.write_table(pyarrow.parquet.read_table(inputs["parquet"]), orc_path, compression="zstd")
    inputs["orc"] = orc_path
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT, check=True)
    tessera = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tessera")
    schema = os.path.join(HERE, "lineitem_schema.json")
    config = os.path.join(HERE, "lineitem_offline_table_config.json")
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    import duckdb

    work = tempfile.mkdtemp(prefix="tessera-build-formats-")
    one_schema, one_config = os.path.join(work, "one_schema.json"), os.path.join(work, "one_config.json")
    with open(one_schema, "w") as f:
        json.dump({"schemaName": "lineitem", "dimensionFieldSpecs": [{"name": "l_comment", "dataType": "STRING"}]}, f)
    with open(one_config, "w") as f:
        json.dump({"tableName": "lineitem_OFFLINE", "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
                   "tenants": {}, "tableIndexConfig": {"loadMode": "MMAP"}}, f)
    times = {(e, f): [] for e in ("tessera", "duckdb") for f in [*inputs, *SAME_WORK, "l_comment alone"]}
    rows = sizes = None
    try:
        for run in range(args.runs):
            for fmt, path in inputs.items():
                out = os.path.join(work, f"{fmt}{run}")
                t0 = time.perf_counter()
                done = subprocess.run([tessera, "segment", "create", "--schema", schema, "--table-config", config,
                                       "--input", path, "--out", out], env=env, capture_output=True, text=True)
                times[("tessera", fmt)].append(time.perf_counter() - t0)
                if done.returncode != 0:
                    sys.exit(f"tessera segment create {fmt} failed: {done.stderr}")
                rows = int(re.search(r"(\d+) rows", done.stdout + done.stderr).group(1))
                if fmt == "parquet":
                    sizes = (dir_size(out), os.path.getsize(path))
                shutil.rmtree(out)
                if fmt == "orc":
                    continue
                if fmt == "parquet":
                    out = os.path.join(work, f"one{run}")
                    t0 = time.perf_counter()
                    subprocess.run([tessera, "segment", "create", "--schema", one_schema, "--table-config", one_config,
                                    "--input", path, "--out", out], env=env, capture_output=True, check=True)
                    times[("tessera", "l_comment alone")].append(time.perf_counter() - t0)
                    shutil.rmtree(out)

                con = duckdb.connect()
                con.execute("SET threads=1")
                reader = "read_csv" if fmt == "csv" else "read_parquet"
                extra = ", header=true" if fmt == "csv" else ""
                t0 = time.perf_counter()
                con.execute(f"CREATE TABLE t AS SELECT * FROM {reader}('{path}'{extra})")
                times[("duckdb", fmt)].append(time.perf_counter() - t0)
                if fmt == "parquet":
                    for name, sql in SAME_WORK.items():
                        t0 = time.perf_counter()
                        con.execute(sql)
                        times[("duckdb", name)].append(time.perf_counter() - t0)
                con.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items() if v}
    print(f"\n## lineitem sf={args.sf} ({rows:,} rows) loaded from CSV and Parquet, one thread, "
          f"median of {args.runs} alternating runs")
    print("| engine | from CSV | from Parquet | Parquet / CSV rate |\n|---|---|---|---|")
    for e, label in (("tessera", "Tessera segment build"), ("duckdb", "DuckDB CREATE TABLE AS")):
        c, p = med[(e, "csv")], med[(e, "parquet")]
        print(f"| {label} | {c:.2f} s ({rows / c / 1e6:.2f} M rows/s) | {p:.2f} s ({rows / p / 1e6:.2f} M rows/s) "
              f"| {c / p:.2f}x |")
    o = med[("tessera", "orc")]
    print(f"| Tessera segment build from ORC | | {o:.2f} s ({rows / o / 1e6:.2f} M rows/s) "
          f"| {med[('tessera', 'csv')] / o:.2f}x (ORC / CSV) |")
    print(f"\nTessera's Parquet build rate against DuckDB's read_parquet: "
          f"{med[('duckdb', 'parquet')] / med[('tessera', 'parquet')]:.2f}x")
    load = med[("duckdb", "parquet")]
    print("\nDuckDB, one thread, on its loaded table: one dictionary column's work")
    for name in SAME_WORK:
        m = med[("duckdb", name)]
        print(f"- {name}: {m:.2f} s ({m / load:.2f}x its read_parquet load; "
              f"{m / med[('tessera', 'parquet')]:.2f}x Tessera's whole Parquet build)")
    one = med[("tessera", "l_comment alone")]
    print(f"- Tessera, a segment of l_comment alone from the Parquet file (read, dictionary, forward index): "
          f"{one:.2f} s ({one / load:.2f}x DuckDB's whole load)")
    print(f"Segment size {sizes[0] / 2**20:.1f} MiB against the Parquet file's {sizes[1] / 2**20:.1f} MiB "
          f"({sizes[0] / sizes[1]:.2f}x)")


if __name__ == "__main__":
    main()
