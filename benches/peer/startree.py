"""Star-tree and timestamp index benchmark on TPC-H lineitem: Tessera with the index, the same
query with the index off, and DuckDB, one thread each, alternating runs.

Prepare once with `benches/peer/setup.sh [SF]`, then run
    benches/.venv-peers/bin/python benches/peer/startree.py [--sf 1] [--runs 7] [--skip-build]
It builds (release) two segments from lineitem.csv: `plain` with the table config of compare.py
and `indexed` with lineitem_startree_table_config.json (a star-tree on l_returnflag,
l_linestatus, l_shipmode, l_shipdate with SUM/COUNT/AVG pairs, and a timestamp index with DAY,
WEEK and MONTH granularities on l_shipdate). Star-tree queries run on `indexed` with the tree,
on `indexed` with `SET useStarTree=false;`, and in DuckDB; the timestamp query runs on `indexed`
(DATETRUNC rewritten to the derived column) and on `plain` (DATETRUNC computed per row). It
prints median/min ms, the speed-ups, the ratios to DuckDB and the segments' sizes.

Use your own data: `tessera bench --segment DIR --query SQL --compare-options useStarTree=false`
prints the same with/without table for any segment.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

STAR = {
    "q1_all": "SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice), AVG(l_discount), COUNT(*) "
              "FROM lineitem GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
    "q1_shipdate": "SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice), AVG(l_discount), COUNT(*) "
                   "FROM lineitem WHERE l_shipdate <= '1998-09-02' GROUP BY l_returnflag, l_linestatus "
                   "ORDER BY l_returnflag, l_linestatus",
    "mode_by_flag": "SELECT l_shipmode, SUM(l_extendedprice), COUNT(*) FROM lineitem WHERE l_returnflag = 'R' "
                    "GROUP BY l_shipmode ORDER BY l_shipmode",
    "filtered_total": "SELECT SUM(l_quantity), AVG(l_extendedprice), COUNT(*) FROM lineitem "
                      "WHERE l_shipmode IN ('AIR', 'RAIL') AND l_linestatus = 'F'",
}
TS = {
    "month_trunc": "SELECT DATETRUNC('MONTH', l_shipdate), COUNT(*) FROM lineitem "
                   "WHERE l_shipdate >= '1995-01-01' AND l_shipdate < '1997-01-01' "
                   "GROUP BY DATETRUNC('MONTH', l_shipdate) ORDER BY DATETRUNC('MONTH', l_shipdate) LIMIT 100",
}


def duck_sql(q):
    return (q.replace("'1998-09-02'", "DATE '1998-09-02'").replace("'1995-01-01'", "DATE '1995-01-01'")
             .replace("'1997-01-01'", "DATE '1997-01-01'")
             .replace("DATETRUNC('MONTH', l_shipdate)", "date_trunc('month', l_shipdate)"))


def du(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def build(tessera, config, csv_path, out, env):
    shutil.rmtree(out, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run([tessera, "segment", "create", "--schema", os.path.join(HERE, "lineitem_schema.json"),
                    "--table-config", os.path.join(HERE, config), "--input", csv_path, "--out", out],
                   check=True, env=env)
    return time.perf_counter() - t


class Bench:
    """A `tessera bench --stdin` process over one segment."""

    def __init__(self, tessera, seg, env):
        self.proc = subprocess.Popen([tessera, "bench", "--stdin", "--segment", seg], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def run(self, q):
        self.proc.stdin.write(q + "\n"); self.proc.stdin.flush()
        r = json.loads(self.proc.stdout.readline())
        if r.get("error"):
            raise RuntimeError(f"{q}: {r['error']}")
        return r["ms"], r["rows"]

    def close(self):
        self.proc.stdin.close(); self.proc.wait()


def compare(title, queries, engines, runs, headline):
    print(f"\n## {title} (one thread, {runs} alternating runs after a warm-up; ms median / min)")
    names = list(engines)
    print("| query | " + " | ".join(names) + " | " + " | ".join(h for h, _, _ in headline) + " |")
    print("|---" * (1 + len(names) + len(headline)) + "|")
    for qn, q in queries.items():
        times = {e: [] for e in names}
        answers = {}
        for e in names:
            answers[e] = engines[e](q)[1]
        for _ in range(runs):
            for e in names:
                times[e].append(engines[e](q)[0])
        med = {e: statistics.median(v) for e, v in times.items()}
        mn = {e: min(v) for e, v in times.items()}
        cells = " | ".join(f"{med[e]:.2f} / {mn[e]:.2f}" for e in names)
        heads = " | ".join(f(med) for _, _, f in headline)
        print(f"| {qn} | {cells} | {heads} |", flush=True)
        print("<!-- " + "; ".join(f"{e}: {str(a)[:100]}" for e, a in answers.items()) + " -->")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skip-build", action="store_true", help="reuse existing segments")
    args = ap.parse_args()
    data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
    csv_path, pq_path = os.path.join(data, "lineitem.csv"), os.path.join(data, "lineitem_dbl.parquet")
    if not os.path.exists(csv_path):
        sys.exit(f"missing {csv_path}: run benches/peer/setup.sh {args.sf} first")
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT, check=True)
    tessera = os.path.join(ROOT, "target", "release", "tessera")
    plain_root, idx_root = os.path.join(data, "st_plain"), os.path.join(data, "st_indexed")
    plain, indexed = os.path.join(plain_root, "lineitem_0"), os.path.join(idx_root, "lineitem_0")
    if not args.skip_build or not (os.path.exists(plain) and os.path.exists(indexed)):
        p_s = build(tessera, "lineitem_offline_table_config.json", csv_path, plain_root, env)
        i_s = build(tessera, "lineitem_startree_table_config.json", csv_path, idx_root, env)
        print(f"\nbuild: plain {p_s:.1f} s, with star-tree + timestamp index {i_s:.1f} s ({i_s / p_s:.2f}x)")
    p_b, i_b = du(plain), du(indexed)
    print(f"segment size: plain {p_b / 1e6:.1f} MB, indexed {i_b / 1e6:.1f} MB "
          f"(+{(i_b - p_b) / 1e6:.1f} MB, {i_b / p_b:.3f}x)")

    import duckdb
    con = duckdb.connect()
    con.execute("SET threads=1")
    con.execute(f"CREATE TABLE lineitem AS SELECT * FROM '{pq_path}'")

    def timed(f):
        t = time.perf_counter(); res = f(); return (time.perf_counter() - t) * 1000, res

    b_idx, b_plain = Bench(tessera, indexed, env), Bench(tessera, plain, env)
    duck = lambda q: timed(lambda: con.execute(duck_sql(q)).fetchall())
    compare("Star-tree", STAR, {
        "star-tree": b_idx.run,
        "useStarTree=false": lambda q: b_idx.run("SET useStarTree=false; " + q),
        "DuckDB": duck,
    }, args.runs, [
        ("speed-up (goal >= 100x)", None, lambda m: f"{m['useStarTree=false'] / m['star-tree']:.0f}x"),
        ("star-tree / DuckDB (goal <= 0.02x)", None, lambda m: f"{m['star-tree'] / m['DuckDB']:.4f}x"),
    ])
    compare("Timestamp index", TS, {
        "timestamp index": b_idx.run,
        "no index": b_plain.run,
        "DuckDB": duck,
    }, args.runs, [
        ("speed-up (goal >= 5x)", None, lambda m: f"{m['no index'] / m['timestamp index']:.1f}x"),
        ("indexed / DuckDB", None, lambda m: f"{m['timestamp index'] / m['DuckDB']:.3f}x"),
    ])
    b_idx.close(); b_plain.close()


if __name__ == "__main__":
    main()
