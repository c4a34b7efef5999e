"""Tessera vs DuckDB and Polars on TPC-H lineitem, one thread each, alternating runs.

Prepare once with `benches/peer/setup.sh [SF]`, then run (`--build-only` stops after step 2;
`--seg-root DIR` builds the segment elsewhere than the shared data directory)
    benches/.venv-peers/bin/python benches/peer/compare.py [--sf 1] [--runs 7]
It (1) builds the release `tessera` binary, (2) builds two Tessera segments from lineitem.csv —
one with the default table config (the data alone, like the Parquet file) and the indexed one the
queries use (sorted l_orderkey; inverted l_shipmode/l_returnflag/l_linestatus; range
l_partkey/l_shipdate) — and times each against DuckDB's single-thread CSV load of the same file,
comparing the segment's bytes with the zstd Parquet file's, (3) runs the anchor queries (a)–(e) of the peer research
(reference peers.md §3) in Tessera (`tessera bench --stdin`, segments memory-mapped, warm),
DuckDB (in-memory table) and Polars (DataFrame), interleaving the engines run by run, and prints
median/min ms per engine and Tessera's ratio to the best peer. With `--http` it then (4) starts
`tessera start`, uploads the indexed segment and runs the same queries through the broker's
`POST /query/sql` over one kept-alive connection, Tessera's figure being its wall minus the wall of
`SELECT 1`, alternating with the peers again. With `--scaling` it also (5) runs (b) and (e) in two
`tessera bench` processes, one with `RAYON_NUM_THREADS=1` and one with the default thread count,
alternating run by run, and prints each query's one-thread / all-threads ratio (median of the
pairs' ratios; issue 21's goal: >= 1.7 on one segment) beside the machine's headroom at the time
(the same query in two one-thread processes side by side: 2 x alone / side by side).
"""
import argparse, json, os, shutil, statistics, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))

TESSERA_Q = {
    "a_count_eq": "SELECT COUNT(*) FROM lineitem WHERE l_shipmode = 'AIR'",
    "b_q1": "SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice), AVG(l_discount), COUNT(*) "
            "FROM lineitem WHERE l_shipdate <= '1998-09-02' GROUP BY l_returnflag, l_linestatus "
            "ORDER BY l_returnflag, l_linestatus",
    "c1_orderkey_range": "SELECT COUNT(*), SUM(l_extendedprice) FROM lineitem WHERE l_orderkey BETWEEN 3000000 AND 3010000",
    "c2_partkey_range": "SELECT COUNT(*), SUM(l_extendedprice) FROM lineitem WHERE l_partkey BETWEEN 100000 AND 100100",
    "d_topn": "SELECT l_orderkey, l_linenumber, l_extendedprice FROM lineitem ORDER BY l_extendedprice DESC LIMIT 10",
    "e_groupby_hi": "SELECT l_suppkey, SUM(l_extendedprice) AS s FROM lineitem GROUP BY l_suppkey ORDER BY s DESC LIMIT 5",
}
PEER_Q = dict(TESSERA_Q)
PEER_Q["b_q1"] = TESSERA_Q["b_q1"].replace("'1998-09-02'", "DATE '1998-09-02'")
# Issue 21's goals through the broker: ratio of (wall - SELECT 1) to the best peer, and the broker
# path's fixed cost (wall - SELECT 1 - in-process time) for the index-answered queries.
HTTP_GOALS = {"a_count_eq": 0.05, "b_q1": 0.3, "c1_orderkey_range": 0.3, "c2_partkey_range": 0.3, "d_topn": 0.7,
              "e_groupby_hi": 0.7}
FIXED_COST_GOAL_MS = 0.15
INDEX_ANSWERED = ("a_count_eq", "c1_orderkey_range", "c2_partkey_range")
GOALS = {"a_count_eq": 0.1, "b_q1": 0.5, "c1_orderkey_range": 0.5, "c2_partkey_range": 0.5, "d_topn": 1.0, "e_groupby_hi": 1.0}
SCALING_GOAL = 1.7
SCALING_Q = ("b_q1", "e_groupby_hi")
Q1_FLOOR_MS = 20.0  # peers.md §4: ~30 B/row x 6M rows at ~9 GB/s on this machine kind (sf=1)


def du(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skip-build", action="store_true", help="reuse an existing segment")
    ap.add_argument("--build-only", action="store_true", help="stop after the build/size comparison")
    ap.add_argument("--seg-root", help="where to build the segment (default: <data>/segments)")
    ap.add_argument("--http", action="store_true",
                    help="also run the queries through a `tessera start` broker over HTTP (POST /query/sql on a "
                         "kept-alive connection), Tessera's time being the wall minus the wall of SELECT 1")
    ap.add_argument("--scaling", action="store_true",
                    help="also time (b) and (e) with one thread and with the default thread count, alternating")
    args = ap.parse_args()
    data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
    csv_path, pq_path = os.path.join(data, "lineitem.csv"), os.path.join(data, "lineitem_dbl.parquet")
    if not os.path.exists(csv_path):
        sys.exit(f"missing {csv_path}: run benches/peer/setup.sh {args.sf} first")
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT, check=True)
    # Cargo puts the binary under CARGO_TARGET_DIR when set (relative to ROOT, where it ran).
    tessera = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tessera")
    seg_root = args.seg_root or os.path.join(data, "segments")
    seg_dir = os.path.join(seg_root, "lineitem_0")
    import duckdb
    rows = None
    if not args.skip_build or not os.path.exists(seg_dir):
        # The build goal compares like with like: the data alone (default table config, as the
        # Parquet file holds no indexes), then the indexed segment the queries below use.
        plain_root = seg_root + "_plain"
        # Every timed reader (both builds, DuckDB) finds the CSV in the page cache.
        with open(csv_path, "rb") as f:
            while f.read(1 << 24):
                pass
        builds = []
        for label, cfg, root in [("default config", "lineitem_plain_table_config.json", plain_root),
                                 ("indexed", "lineitem_offline_table_config.json", seg_root)]:
            shutil.rmtree(root, ignore_errors=True)
            t = time.perf_counter()
            subprocess.run([tessera, "segment", "create", "--schema", os.path.join(HERE, "lineitem_schema.json"),
                            "--table-config", os.path.join(HERE, cfg),
                            "--input", csv_path, "--out", root], check=True, env=env)
            builds.append((label, time.perf_counter() - t, du(os.path.join(root, "lineitem_0"))))
        shutil.rmtree(plain_root, ignore_errors=True)
        con = duckdb.connect()
        con.execute("SET threads=1")
        t = time.perf_counter()
        con.execute(f"CREATE TABLE l AS SELECT * FROM read_csv('{csv_path}', header=true)")
        duck_s = time.perf_counter() - t
        rows = con.execute("SELECT COUNT(*) FROM l").fetchone()[0]
        con.close()
        pq_bytes = du(pq_path)
        print(f"\n## Segment build (one thread), {rows:,} rows; DuckDB CSV load {duck_s:.2f} s "
              f"({rows / duck_s:,.0f} rows/s), zstd Parquet {pq_bytes / 1e6:.1f} MB")
        print("| segment | build s | rows/s | rows/s vs DuckDB (goal >= 1) | MB | size vs Parquet (goal <= 1) |")
        print("|---|---|---|---|---|---|")
        for label, build_s, seg_bytes in builds:
            print(f"| {label} | {build_s:.2f} | {rows / build_s:,.0f} | {duck_s / build_s:.2f}x | "
                  f"{seg_bytes / 1e6:.1f} | {seg_bytes / pq_bytes:.2f}x |")
    if args.build_only:
        return

    proc, tessera_run = bench_process(tessera, seg_dir, env)
    con = duckdb.connect()
    con.execute("SET threads=1")
    con.execute(f"CREATE TABLE lineitem AS SELECT * FROM '{pq_path}'")
    os.environ["POLARS_MAX_THREADS"] = "1"
    import polars as pl
    ctx = pl.SQLContext(lineitem=pl.read_parquet(pq_path).rechunk())

    def timed(f):
        t = time.perf_counter(); res = f(); return (time.perf_counter() - t) * 1000, res

    engines = {
        "tessera": lambda name: tessera_run(TESSERA_Q[name]),
        "duckdb": lambda name: timed(lambda: con.execute(PEER_Q[name]).fetchall()),
        "polars": lambda name: timed(lambda: ctx.execute(PEER_Q[name], eager=True).rows()),
    }
    print(f"\n## Queries (one thread, {args.runs} alternating runs after a warm-up; ms median / min)")
    print("| query | Tessera | DuckDB | Polars | Tessera / best peer | goal |\n|---|---|---|---|---|---|")
    inproc = {}
    for name in TESSERA_Q:
        times = {e: [] for e in engines}
        results = {}
        for e, f in engines.items():
            results[e] = f(name)[1]  # warm-up
        for _ in range(args.runs):
            for e, f in engines.items():
                times[e].append(f(name)[0])
        med = {e: statistics.median(v) for e, v in times.items()}
        mn = {e: min(v) for e, v in times.items()}
        inproc[name] = med["tessera"]
        best = min(med["duckdb"], med["polars"])
        ratio = med["tessera"] / best
        ok = "ok" if ratio <= GOALS[name] else "MISSED"
        cells = " | ".join(f"{med[e]:.2f} / {mn[e]:.2f}" for e in engines)
        print(f"| {name} | {cells} | {ratio:.3f}x | <= {GOALS[name]}x {ok} |", flush=True)
        print(f"<!-- {name}: tessera {str(results['tessera'])[:120]} duckdb {str(results['duckdb'])[:120]} -->")
        if name == "b_q1":
            print(f"<!-- Q1 vs memory-bandwidth floor ~{Q1_FLOOR_MS} ms: {med['tessera'] / Q1_FLOOR_MS:.2f}x (goal <= 3x) -->")
    proc.stdin.close(); proc.wait()
    if args.scaling:
        scaling(tessera, seg_dir, max(args.runs, 15))
    if args.http:
        over_http(tessera, seg_root, args.runs, env, engines, inproc)


def bench_process(tessera, seg_dir, env):
    """A `tessera bench --stdin` process over the segment, and a function running one query in it
    (its milliseconds and rows)."""
    proc = subprocess.Popen([tessera, "bench", "--stdin", "--segment", seg_dir], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env)

    def run(q):
        proc.stdin.write(q + "\n"); proc.stdin.flush()
        r = json.loads(proc.stdout.readline())
        if r.get("error"):
            raise RuntimeError(r["error"])
        return r["ms"], r["rows"]
    return proc, run


def scaling(tessera, seg_dir, runs):
    """(b) and (e) on one segment with one thread and with the default thread count: warm
    processes, alternating run by run, so both meet the machine in the same state. Each round
    also runs the query in two one-thread processes at once: what the cores give two copies of
    the work (2 x alone / side by side) is the machine's headroom for it at that moment, printed
    next to the ratio (a host that lends the VM's second core elsewhere lowers both)."""
    import threading
    one_env = dict(os.environ, RAYON_NUM_THREADS="1")
    all_env = {k: v for k, v in os.environ.items() if k != "RAYON_NUM_THREADS"}
    procs = {"one": bench_process(tessera, seg_dir, one_env), "all": bench_process(tessera, seg_dir, all_env),
             "twin": bench_process(tessera, seg_dir, one_env)}
    run_one, run_all, run_twin = (procs[k][1] for k in ("one", "all", "twin"))
    print(f"\n## Both cores: one thread vs the default thread count ({os.cpu_count()} CPUs), one segment, "
          f"{runs} alternating rounds (ms median)")
    print("| query | one thread | default threads | ratio (median of pairs) | pairs >= goal "
          "| headroom (2 x alone / side by side) | goal |")
    print("|---|---|---|---|---|---|---|")
    try:
        for name in SCALING_Q:
            sql = TESSERA_Q[name]
            times = {"one": [], "all": [], "side": []}
            for run in (run_one, run_all, run_twin):
                run(sql)  # warm-up
            for _ in range(runs):
                times["one"].append(run_one(sql)[0])
                times["all"].append(run_all(sql)[0])
                twin = []
                t = threading.Thread(target=lambda: twin.append(run_twin(sql)[0]))
                t.start()
                times["side"].append(run_one(sql)[0])
                t.join()
                times["side"].extend(twin)
            pairs = [a / b for a, b in zip(times["one"], times["all"])]
            ratio = statistics.median(pairs)
            headroom = 2 * statistics.median(times["one"]) / statistics.median(times["side"])
            ok = "ok" if ratio >= SCALING_GOAL else "MISSED"
            met = sum(p >= SCALING_GOAL for p in pairs)
            print(f"| {name} | {statistics.median(times['one']):.2f} | {statistics.median(times['all']):.2f} "
                  f"| {ratio:.2f}x | {met} of {runs} | {headroom:.2f}x | >= {SCALING_GOAL}x {ok} |", flush=True)
    finally:
        for proc, _ in procs.values():
            proc.stdin.close(); proc.wait()


def over_http(tessera, seg_root, runs, env, engines, inproc):
    """The anchor queries through the broker over HTTP, alternating with the peers as above."""
    import http.client, socket, tempfile
    work = tempfile.mkdtemp(prefix="tessera-compare-http-")
    ports = []
    for _ in range(3):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            ports.append(sock.getsockname()[1])
    log = open(os.path.join(work, "tessera.log"), "w")
    proc = subprocess.Popen([tessera, "start", "--data-dir", os.path.join(work, "data"),
                             "--controller-port", str(ports[0]), "--broker-port", str(ports[1]),
                             "--server-port", str(ports[2]), "--no-log-stderr"], stdout=log, stderr=log, env=env)
    try:
        ctl = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=600)
        broker = http.client.HTTPConnection("127.0.0.1", ports[1], timeout=600)

        def call(conn, method, path, body=None, ctype="application/json"):
            conn.request(method, path, body=body, headers={"Content-Type": ctype})
            r = conn.getresponse()
            text = r.read()
            return r.status, (json.loads(text) if text[:1] in (b"{", b"[") else text)

        deadline = time.time() + 60
        while True:
            try:
                if call(ctl, "GET", "/health")[0] == 200:
                    break
            except OSError:
                ctl.close()
            if time.time() > deadline:
                sys.exit("tessera did not start")
            time.sleep(0.2)
        broker.connect()
        broker.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for path, f in [("/schemas", "lineitem_schema.json"), ("/tables", "lineitem_offline_table_config.json")]:
            with open(os.path.join(HERE, f), "rb") as fh:
                s, b = call(ctl, "POST", path, fh.read())
            assert s == 200, (path, s, b)
        tar = os.path.join(work, "lineitem_0.tar.gz")
        subprocess.run(["tar", "-czf", tar, "-C", seg_root, "lineitem_0"], check=True)
        out = subprocess.run(["curl", "-sS", "-F", f"file=@{tar}", f"http://127.0.0.1:{ports[0]}/segments?tableName=lineitem"],
                             check=True, capture_output=True, text=True).stdout
        assert "error" not in out.lower(), out

        def query(sql):
            t = time.perf_counter()
            s, b = call(broker, "POST", "/query/sql", json.dumps({"sql": sql}).encode())
            ms = (time.perf_counter() - t) * 1000
            if s != 200 or b.get("exceptions"):
                raise RuntimeError(f"{s}: {b}")
            return ms, b["resultTable"]["rows"]

        deadline = time.time() + 120
        while True:
            try:
                if query("SELECT COUNT(*) FROM lineitem")[1][0][0] > 0:
                    break
            except RuntimeError:
                pass
            if time.time() > deadline:
                sys.exit("lineitem did not load")
            time.sleep(0.5)
        for _ in range(20):
            query("SELECT 1")
        warm_one = statistics.median(query("SELECT 1")[0] for _ in range(200))
        print(f"\n## Queries through the broker over HTTP (one thread, {runs} alternating runs)")
        print(f"Each Tessera call follows the peers' runs of the same query, as a user's sporadic query meets "
              f"idle threads; so does `SELECT 1` (the HTTP round trip measured the same way), measured in its "
              f"own rounds and subtracted. Back to back, SELECT 1 takes {warm_one:.3f} ms. Fixed cost = wall − "
              f"SELECT 1 − in-process time (goal <= {FIXED_COST_GOAL_MS} ms for index-answered queries).")
        print("| query | Tessera wall | SELECT 1 | Tessera − SELECT 1 | fixed cost | DuckDB | Polars "
              "| (Tessera − SELECT 1) / best peer | goal |")
        print("|---|---|---|---|---|---|---|---|---|")
        peers = {"duckdb": engines["duckdb"], "polars": engines["polars"]}
        for name in TESSERA_Q:
            times = {e: [] for e in ["tessera_http", "select_1", *peers]}
            query(TESSERA_Q[name])  # warm-up
            for f in peers.values():
                f(name)
            for _ in range(runs):
                for probe, sql in (("tessera_http", TESSERA_Q[name]), ("select_1", "SELECT 1")):
                    times[probe].append(query(sql)[0])
                    for e, f in peers.items():
                        ms = f(name)[0]
                        if probe == "tessera_http":
                            times[e].append(ms)
            med = {e: statistics.median(v) for e, v in times.items()}
            net = max(med["tessera_http"] - med["select_1"], 0.0)
            fixed = net - inproc.get(name, 0.0)
            best = min(med["duckdb"], med["polars"])
            ratio = net / best
            ok = "ok" if ratio <= HTTP_GOALS[name] else "MISSED"
            fixed_cell = f"{fixed:.2f}" + ((" ok" if fixed <= FIXED_COST_GOAL_MS else " MISSED")
                                           if name in INDEX_ANSWERED else "")
            print(f"| {name} | {med['tessera_http']:.2f} | {med['select_1']:.2f} | {net:.2f} | {fixed_cell} "
                  f"| {med['duckdb']:.2f} | {med['polars']:.2f} | {ratio:.3f}x | <= {HTTP_GOALS[name]}x {ok} |",
                  flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
