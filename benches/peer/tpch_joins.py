"""TPC-H joins (Q3, Q5, Q10, Q12): Tessera's multi-stage engine through the broker over HTTP
against DuckDB and DataFusion, one thread each, alternating runs, answers checked equal.

Prepare once with `benches/peer/setup.sh [SF]` (all eight tables as CSV), then
    benches/.venv-peers/bin/python benches/peer/tpch_joins.py [--sf 1] [--runs 5]
It (1) builds the release `tessera` binary, (2) writes a Pinot schema and OFFLINE table config per
table (keys INT/LONG, money DOUBLE, dates STRING 'YYYY-MM-DD': Pinot has no DECIMAL or DATE
column) and builds one segment per table, (3) starts `tessera start` (all roles, free ports,
RAYON_NUM_THREADS=1), creates the tables and uploads the segments, (4) runs each query through
`POST /query/sql` with `useMultistageEngine=true`, interleaved with DuckDB (in-memory tables,
`SET threads=1`) and DataFusion (`target_partitions=1`, tables in memory), and prints median/min
ms and Tessera's ratio to the best peer, (5) runs single-table aggregations on Tessera's v1 and v2
engines alternately (v2 / v1 ratio), and prints Tessera's peak RSS (VmHWM). Stops the server it
started. `--servers N --segments K` runs the roles as a controller+broker process and N server
processes, each table of more than 10,000 rows split into K segments over them; with `--hold`
that is the cluster `check_joins.py` checks the distributed exchanges on.
"""
import argparse, json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

# column name -> Pinot type; the first column of each table is its key.
TABLES = {
    "region": [("r_regionkey", "INT"), ("r_name", "STRING"), ("r_comment", "STRING")],
    "nation": [("n_nationkey", "INT"), ("n_name", "STRING"), ("n_regionkey", "INT"), ("n_comment", "STRING")],
    "supplier": [("s_suppkey", "INT"), ("s_name", "STRING"), ("s_address", "STRING"), ("s_nationkey", "INT"),
                 ("s_phone", "STRING"), ("s_acctbal", "DOUBLE"), ("s_comment", "STRING")],
    "customer": [("c_custkey", "INT"), ("c_name", "STRING"), ("c_address", "STRING"), ("c_nationkey", "INT"),
                 ("c_phone", "STRING"), ("c_acctbal", "DOUBLE"), ("c_mktsegment", "STRING"), ("c_comment", "STRING")],
    "part": [("p_partkey", "INT"), ("p_name", "STRING"), ("p_mfgr", "STRING"), ("p_brand", "STRING"), ("p_type", "STRING"),
             ("p_size", "INT"), ("p_container", "STRING"), ("p_retailprice", "DOUBLE"), ("p_comment", "STRING")],
    "partsupp": [("ps_partkey", "INT"), ("ps_suppkey", "INT"), ("ps_availqty", "INT"), ("ps_supplycost", "DOUBLE"),
                 ("ps_comment", "STRING")],
    "orders": [("o_orderkey", "LONG"), ("o_custkey", "INT"), ("o_orderstatus", "STRING"), ("o_totalprice", "DOUBLE"),
               ("o_orderdate", "STRING"), ("o_orderpriority", "STRING"), ("o_clerk", "STRING"),
               ("o_shippriority", "INT"), ("o_comment", "STRING")],
    "lineitem": [("l_orderkey", "LONG"), ("l_partkey", "INT"), ("l_suppkey", "INT"), ("l_linenumber", "INT"),
                 ("l_quantity", "DOUBLE"), ("l_extendedprice", "DOUBLE"), ("l_discount", "DOUBLE"), ("l_tax", "DOUBLE"),
                 ("l_returnflag", "STRING"), ("l_linestatus", "STRING"), ("l_shipdate", "STRING"),
                 ("l_commitdate", "STRING"), ("l_receiptdate", "STRING"), ("l_shipinstruct", "STRING"),
                 ("l_shipmode", "STRING"), ("l_comment", "STRING")],
}
METRICS = {"DOUBLE"}
SORTED = {"orders": "o_orderkey", "lineitem": "l_orderkey", "customer": "c_custkey", "supplier": "s_suppkey",
          "part": "p_partkey", "nation": "n_nationkey", "region": "r_regionkey", "partsupp": "ps_partkey"}
INVERTED = {"customer": ["c_mktsegment"], "lineitem": ["l_shipmode"], "region": ["r_name"]}
RANGE = {"orders": ["o_orderdate"], "lineitem": ["l_shipdate", "l_receiptdate"]}

# Standard substitution parameters; dates as strings (the same text in every engine).
QUERIES = {
    "q3": """SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate < '1995-03-15' AND l_shipdate > '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority
ORDER BY revenue DESC, o_orderdate, l_orderkey LIMIT 10""",
    "q5": """SELECT n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= '1994-01-01' AND o_orderdate < '1995-01-01'
GROUP BY n_name ORDER BY revenue DESC""",
    "q10": """SELECT c_custkey, c_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name,
  c_address, c_phone, c_comment
FROM customer, orders, lineitem, nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= '1993-10-01'
  AND o_orderdate < '1994-01-01' AND l_returnflag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
ORDER BY revenue DESC, c_custkey LIMIT 20""",
    "q12": """SELECT l_shipmode,
  SUM(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
  SUM(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
FROM orders, lineitem
WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate
  AND l_shipdate < l_commitdate AND l_receiptdate >= '1994-01-01' AND l_receiptdate < '1995-01-01'
GROUP BY l_shipmode ORDER BY l_shipmode""",
}

# Single-table aggregations, run by Tessera's single-stage (v1) and multi-stage (v2) engines: the
# multi-stage leaf is a v1 server plan, so v2 should cost within 1.2x of v1.
SINGLE_TABLE = {
    "count_filter": "SELECT COUNT(*) FROM lineitem WHERE l_shipmode = 'AIR'",
    "q1_groupby": """SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice), COUNT(*) FROM lineitem
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus""",
    "q6_sum_range": """SELECT SUM(l_extendedprice * l_discount) FROM lineitem WHERE l_shipdate >= '1994-01-01'
  AND l_shipdate < '1995-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""",
    "top_groups": "SELECT l_suppkey, SUM(l_extendedprice) AS s FROM lineitem GROUP BY l_suppkey ORDER BY s DESC, l_suppkey LIMIT 10",
    "q4_like": """SELECT o_orderpriority, COUNT(*) FROM orders WHERE o_orderdate >= '1993-07-01' AND o_orderdate < '1993-10-01'
GROUP BY o_orderpriority ORDER BY o_orderpriority""",
}


def http(method, url, body=None, content_type="application/json"):
    req = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            text = r.read()
            try:
                return r.status, json.loads(text or b"null")
            except ValueError:
                return r.status, text.decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def schema(name):
    dims = [{"name": c, "dataType": t} for c, t in TABLES[name] if t not in METRICS]
    mets = [{"name": c, "dataType": t} for c, t in TABLES[name] if t in METRICS]
    return {"schemaName": name, "dimensionFieldSpecs": dims, "metricFieldSpecs": mets}


def table_config(name):
    idx = {"loadMode": "MMAP", "sortedColumn": [SORTED[name]], "invertedIndexColumns": INVERTED.get(name, []),
           "rangeIndexColumns": RANGE.get(name, [])}
    return {"tableName": name, "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
            "tenants": {}, "tableIndexConfig": idx}


def rss_peak_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def duckdb_tables(con, data):
    """Loads the eight tables' CSV files of `data` into DuckDB `con`, typed as TABLES says."""
    types = {"INT": "INTEGER", "LONG": "BIGINT", "DOUBLE": "DOUBLE", "STRING": "VARCHAR"}
    for t, cols in TABLES.items():
        spec = ", ".join(f"'{c}': '{types[ty]}'" for c, ty in cols)
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_csv('{data}/{t}.csv', header=true, columns={{{spec}}})")


def same(a, b):
    if len(a) != len(b):
        return False
    for ra, rb in zip(a, b):
        if len(ra) != len(rb):
            return False
        for x, y in zip(ra, rb):
            if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
                if abs(float(x) - float(y)) > 1e-6 * max(1.0, abs(float(x)), abs(float(y))):
                    return False
            elif str(x) != str(y):
                return False
    return True


def wait_healthy(urls, deadline):
    """Returns once every URL's /health answers 200; exits when `deadline` passes first."""
    for url in urls:
        while True:
            try:
                if http("GET", f"{url}/health")[0] == 200:
                    break
            except OSError:
                pass
            if time.time() > deadline:
                sys.exit(f"{url} did not start")
            time.sleep(0.2)


def split_csv(path, parts, work):
    """`path` as up to `parts` CSV files of consecutive rows, each with the header (the file
    itself when one part, or when it has at most 10,000 rows)."""
    with open(path) as f:
        header = f.readline()
        lines = f.readlines()
    if parts <= 1 or len(lines) <= 10_000:
        return [path]
    step = -(-len(lines) // parts)
    out = []
    for i in range(parts):
        part = os.path.join(work, f"{os.path.basename(path)}.{i}.csv")
        with open(part, "w") as f:
            f.write(header)
            f.writelines(lines[i * step:(i + 1) * step])
        out.append(part)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queries", default=",".join(QUERIES))
    ap.add_argument("--hold", action="store_true", help="load the tables, print the URLs and keep serving until interrupted")
    ap.add_argument("--servers", type=int, default=0,
                    help="run a controller+broker process and this many server processes instead of one process")
    ap.add_argument("--segments", type=int, default=1,
                    help="split each table of more than 10,000 rows into this many segments (row ranges)")
    args = ap.parse_args()
    data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
    for t in TABLES:
        if not os.path.exists(os.path.join(data, f"{t}.csv")):
            sys.exit(f"missing {data}/{t}.csv: run benches/peer/setup.sh {args.sf} first")
    env = dict(os.environ, RAYON_NUM_THREADS=os.environ.get("RAYON_NUM_THREADS", "1"))
    tessera = os.environ.get("TESSERA_BIN")
    if not tessera:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT, check=True)
        tessera = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tessera")
    work = tempfile.mkdtemp(prefix="tessera-tpch-")
    seg_root = os.path.join(data, "tpch_segments" if args.segments == 1 else f"tpch_segments_{args.segments}")
    segments, rows = {}, {}
    for t in TABLES:
        with open(os.path.join(data, f"{t}.csv")) as f:
            rows[t] = sum(1 for _ in f) - 1
        sp, cp = os.path.join(work, f"{t}_schema.json"), os.path.join(work, f"{t}_config.json")
        json.dump(schema(t), open(sp, "w"))
        json.dump(table_config(t), open(cp, "w"))
        inputs = split_csv(os.path.join(data, f"{t}.csv"), args.segments, work)
        segments[t] = [f"{t}_{i}" for i in range(len(inputs))]
        for name, path in zip(segments[t], inputs):
            if not os.path.exists(os.path.join(seg_root, name)):
                t0 = time.perf_counter()
                subprocess.run([tessera, "segment", "create", "--schema", sp, "--table-config", cp, "--input", path,
                                "--out", seg_root, "--segment-name", name], check=True, env=env)
                print(f"built {name} in {time.perf_counter() - t0:.1f} s", flush=True)

    ports = []
    for _ in range(3 + args.servers):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
    ctl, broker = f"http://127.0.0.1:{ports[0]}", f"http://127.0.0.1:{ports[1]}"
    log = open(os.path.join(work, "tessera.log"), "w")
    common = [tessera, "start", "--no-log-stderr"]
    if args.servers == 0:
        procs = [subprocess.Popen(common + ["--data-dir", os.path.join(work, "data"), "--controller-port", str(ports[0]),
                                           "--broker-port", str(ports[1]), "--server-port", str(ports[2])],
                                  stdout=log, stderr=log, env=env)]
    else:
        procs = [subprocess.Popen(common + ["--roles", "controller,broker", "--data-dir", os.path.join(work, "cb"),
                                           "--controller-port", str(ports[0]), "--broker-port", str(ports[1])],
                                  stdout=log, stderr=log, env=env)]
    proc = procs[0]
    try:
        deadline = time.time() + 60
        wait_healthy([ctl, broker], deadline)
        for i in range(args.servers):
            port = ports[3 + i]
            procs.append(subprocess.Popen(common + ["--roles", "server", "--data-dir", os.path.join(work, f"s{i}"),
                                                    "--server-port", str(port), "--controller-url", ctl],
                                          stdout=log, stderr=log, env=env))
            wait_healthy([f"http://127.0.0.1:{port}"], deadline)
        for t in TABLES:
            s, b = http("POST", f"{ctl}/schemas", json.dumps(schema(t)).encode())
            assert s == 200, (t, s, b)
            s, b = http("POST", f"{ctl}/tables", json.dumps(table_config(t)).encode())
            assert s == 200, (t, s, b)
            for name in segments[t]:
                tar = os.path.join(work, f"{name}.tar.gz")
                subprocess.run(["tar", "-czf", tar, "-C", seg_root, name], check=True)
                out = subprocess.run(["curl", "-sS", "-F", f"file=@{tar}", f"{ctl}/segments?tableName={t}"],
                                     check=True, capture_output=True, text=True).stdout
                assert "error" not in out.lower(), out

        def tessera_query(sql, multistage=True):
            options = f"useMultistageEngine={'true' if multistage else 'false'};timeoutMs=600000"
            s, b = http("POST", f"{broker}/query/sql", json.dumps({"sql": sql, "queryOptions": options}).encode())
            if s != 200 or b.get("exceptions"):
                raise RuntimeError(f"{s}: {b if s != 200 else b['exceptions']}")
            return b["resultTable"]["rows"]

        deadline = time.time() + 120
        while True:
            try:
                if all(tessera_query(f"SELECT COUNT(*) FROM {t}", False)[0][0] == rows[t] for t in TABLES):
                    break
            except RuntimeError:
                pass
            if time.time() > deadline:
                sys.exit("tables did not load")
            time.sleep(0.5)

        if args.hold:
            # A plain `kill` of this script also stops the server (via the finally below).
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
            print(f"controller {ctl} broker {broker} pid {proc.pid}; Ctrl-C stops", flush=True)
            try:
                proc.wait()
            except KeyboardInterrupt:
                pass
            return
        import duckdb, datafusion
        con = duckdb.connect()
        con.execute("SET threads=1")
        ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
        duckdb_tables(con, data)
        for t in TABLES:
            ctx.register_record_batches(t, [con.sql(f"SELECT * FROM {t}").to_arrow_table().to_batches()])

        def timed(f):
            t0 = time.perf_counter(); r = f(); return (time.perf_counter() - t0) * 1000, r

        engines = {
            "tessera": lambda q: timed(lambda: tessera_query(q)),
            "duckdb": lambda q: timed(lambda: [list(r) for r in con.execute(q).fetchall()]),
            "datafusion": lambda q: timed(lambda: [list(r.values()) for r in ctx.sql(q).to_pylist()]),
        }
        print(f"\n## TPC-H sf={args.sf} joins (one thread each, {args.runs} alternating runs after a warm-up; ms median / min)")
        print("| query | Tessera v2 | DuckDB | DataFusion | Tessera / best peer | answers |\n|---|---|---|---|---|---|")
        for name in args.queries.split(","):
            q = QUERIES[name]
            results, times = {}, {e: [] for e in engines}
            try:
                for e, f in engines.items():
                    results[e] = f(q)[1]
                for _ in range(args.runs):
                    for e, f in engines.items():
                        times[e].append(f(q)[0])
            except RuntimeError as err:
                print(f"| {name} | FAILED: {str(err)[:300]} | | | | |", flush=True)
                continue
            med = {e: statistics.median(v) for e, v in times.items()}
            mn = {e: min(v) for e, v in times.items()}
            best = min(med["duckdb"], med["datafusion"])
            ok = same(results["tessera"], results["duckdb"]) and same(results["duckdb"], results["datafusion"])
            cells = " | ".join(f"{med[e]:.1f} / {mn[e]:.1f}" for e in engines)
            print(f"| {name} | {cells} | {med['tessera'] / best:.2f}x | {'equal' if ok else 'DIFFER'} |", flush=True)
            if not ok:
                for e in engines:
                    print(f"<!-- {name} {e}: {str(results[e])[:300]} -->")
        print(f"\n## Single-table aggregations, v2 against v1 through the same broker ({args.runs} alternating runs; ms median)")
        print("| query | v1 | v2 | v2 / v1 | answers |\n|---|---|---|---|---|")
        for name, q in SINGLE_TABLE.items():
            answers = {m: tessera_query(q, m) for m in (False, True)}
            times = {False: [], True: []}
            for _ in range(args.runs):
                for m in (False, True):
                    times[m].append(timed(lambda: tessera_query(q, m))[0])
            v1, v2 = statistics.median(times[False]), statistics.median(times[True])
            ok = same(answers[False], answers[True])
            print(f"| {name} | {v1:.2f} | {v2:.2f} | {v2 / v1:.2f}x | {'equal' if ok else 'DIFFER'} |", flush=True)
        print(f"\nTessera peak RSS (VmHWM, all roles in one process): {rss_peak_kb(proc.pid) / 1024:.0f} MiB")
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
