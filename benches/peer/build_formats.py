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
"""
import argparse, os, re, shutil, statistics, subprocess, sys, tempfile, time

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
    times = {(e, f): [] for e in ("tessera", "duckdb") for f in inputs}
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

                con = duckdb.connect()
                con.execute("SET threads=1")
                reader = "read_csv" if fmt == "csv" else "read_parquet"
                extra = ", header=true" if fmt == "csv" else ""
                t0 = time.perf_counter()
                con.execute(f"CREATE TABLE t AS SELECT * FROM {reader}('{path}'{extra})")
                times[("duckdb", fmt)].append(time.perf_counter() - t0)
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
    print(f"Segment size {sizes[0] / 2**20:.1f} MiB against the Parquet file's {sizes[1] / 2**20:.1f} MiB "
          f"({sizes[0] / sizes[1]:.2f}x)")


if __name__ == "__main__":
    main()
