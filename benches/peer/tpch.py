"""The 22 TPC-H queries: Tessera's multi-stage engine through the broker over HTTP against DuckDB
and chDB (ClickHouse in-process), one thread each, same run, answers checked equal to DuckDB's.

Prepare once with `benches/peer/setup.sh [SF]`, then
    benches/.venv-peers/bin/python benches/peer/tpch.py [--sf 1] [--runs 3] [--queries 1,2,3]
        [--threads] [--servers N]
It starts a cluster with `tpch_joins.py --hold` (RAYON_NUM_THREADS=1 on one core; `TESSERA_BIN`
picks the binary, else the release build), loads DuckDB and chDB with the same eight tables typed as
Tessera's schemas (keys INT/LONG, money DOUBLE, dates STRING 'YYYY-MM-DD'), and runs each query
`--runs` times per engine, interleaved (Tessera, DuckDB, chDB, Tessera, …). It prints each
engine's median in ms, Tessera's ratio to the faster peer, the geometric mean of those ratios
and the totals. With `--threads` it then starts a second cluster with the default threads (all
cores) and prints the total of the 22 at one thread against all cores, run alternately query by
query (each cluster idle while the other runs, which on this 2-vCPU machine costs the two-thread
cluster wake-ups of its idle vCPU; `tpch_ab.py` alternates by whole rounds, with more of them),
and beside it DuckDB's own one thread against all cores, what a second core gives here.
`--servers N` runs N server processes with each large table split into N segments.
"""
import argparse, json, math, os, shutil, signal, statistics, subprocess, sys, time

import duckdb

from check_tpch import queries
from tpch_joins import HERE, ROOT, TABLES, duckdb_tables, http, same

OPTIONS = ("useMultistageEngine=true;timeoutMs=600000;maxRowsInJoin=100000000;maxRowsInWindow=100000000;"
           "numGroupsLimit=100000000")


def start_cluster(sf, threads, servers):
    """Starts `tpch_joins.py --hold`; returns (process, broker URL). A one-thread cluster runs on
    one core (`taskset -c 0`): a query's pool has one thread, but its stage workers are threads of
    their own, and two stages computing at once would otherwise use a second core that DuckDB and
    chDB, one thread each, do not get."""
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    else:
        env["RAYON_NUM_THREADS"] = str(os.cpu_count() or 1)
    cmd = [sys.executable, os.path.join(HERE, "tpch_joins.py"), "--sf", sf, "--hold"]
    if threads == 1 and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(min(os.sched_getaffinity(0)))] + cmd
    if servers:
        cmd += ["--servers", str(servers), "--segments", str(servers)]
    p = subprocess.Popen(cmd, cwd=HERE, env=env, stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        if line.startswith("controller "):
            return p, line.split()[3]
    sys.exit("the cluster did not start")


def stop_cluster(p):
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=60)


def chdb_session(data):
    from chdb import session
    s = session.Session()
    types = {"INT": "Int32", "LONG": "Int64", "DOUBLE": "Float64", "STRING": "String"}
    for t, cols in TABLES.items():
        spec = ", ".join(f"{c} {types[ty]}" for c, ty in cols)
        s.query(f"CREATE TABLE {t} ({spec}) ENGINE = Memory")
        s.query(f"INSERT INTO {t} SELECT * FROM file('{data}/{t}.csv', 'CSVWithNames', '{spec}')")
    return s


CHDB_SETTINGS = " SETTINGS max_threads = 1, join_use_nulls = 1, allow_experimental_correlated_subqueries = 1"


def chdb_rows(s, sql):
    out = s.query(sql + CHDB_SETTINGS, "JSONCompact")
    return json.loads(out.bytes())["data"]


def tessera_rows(broker, sql):
    status, body = http("POST", f"{broker}/query/sql", json.dumps({"sql": sql, "queryOptions": OPTIONS}).encode())
    if status != 200 or not isinstance(body, dict) or body.get("exceptions"):
        raise RuntimeError(str(body)[:400])
    return body["resultTable"]["rows"]


def timed(f):
    t0 = time.perf_counter()
    r = f()
    return (time.perf_counter() - t0) * 1000, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", default="")
    ap.add_argument("--threads", action="store_true", help="also compare one thread with all cores")
    ap.add_argument("--servers", type=int, default=0)
    args = ap.parse_args()
    all_q = queries(float(args.sf))
    wanted = [int(q) for q in args.queries.split(",") if q] or sorted(all_q)
    data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")

    con = duckdb.connect()
    con.execute("SET threads=1")
    duckdb_tables(con, data)
    ch = chdb_session(data)

    cluster, broker = start_cluster(args.sf, 1, args.servers)
    ratios, totals, failures = [], {"tessera": 0.0, "duckdb": 0.0, "chdb": 0.0}, 0
    try:
        print(f"{'query':>5} {'tessera':>9} {'duckdb':>9} {'chdb':>9} {'ratio':>7}", flush=True)
        for n in wanted:
            sql = all_q[n]
            engines = {
                "tessera": lambda: tessera_rows(broker, sql),
                "duckdb": lambda: [list(r) for r in con.execute(sql).fetchall()],
                "chdb": lambda: chdb_rows(ch, sql),
            }
            times = {e: [] for e in engines}
            answers = {}
            for _ in range(args.runs):
                for e, f in engines.items():
                    try:
                        ms, rows = timed(f)
                    except Exception as ex:  # a peer that cannot run the query is left out
                        answers[e] = ex
                        continue
                    times[e].append(ms)
                    answers[e] = rows
            med = {e: statistics.median(t) if t else math.nan for e, t in times.items()}
            ok = not isinstance(answers.get("tessera"), Exception) and same(answers["tessera"], answers["duckdb"])
            peer_ok = [e for e in ("duckdb", "chdb")
                       if not isinstance(answers.get(e), Exception) and same(answers[e], answers["duckdb"])]
            best = min(med[e] for e in peer_ok)
            ratio = med["tessera"] / best
            if ok:
                ratios.append(ratio)
                for e in totals:
                    totals[e] += med[e] if e in peer_ok or e == "tessera" else 0.0
            else:
                failures += 1
            note = "" if ok else f"  DIFFERS/FAILS: {str(answers.get('tessera'))[:200]}"
            if "chdb" not in peer_ok:
                note += "  (chdb left out: " + str(answers.get("chdb"))[:80].replace("\n", " ") + ")"
            print(f"Q{n:<4} {med['tessera']:9.1f} {med['duckdb']:9.1f} {med['chdb']:9.1f} {ratio:7.2f}{note}",
                  flush=True)
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else math.nan
        print(f"{len(wanted)} queries, {failures} differ or fail; geometric mean Tessera / best peer {geo:.2f}, "
              f"worst {max(ratios, default=math.nan):.2f}; totals ms: " +
              ", ".join(f"{e} {t:.0f}" for e, t in totals.items()), flush=True)
        if args.threads:
            many, many_broker = start_cluster(args.sf, 0, args.servers)
            # DuckDB on all cores beside its one-thread connection: how much a second core gives
            # an engine that scales well, on this machine, in the same run.
            duck_all = duckdb.connect()
            duck_all.execute(f"SET threads={os.cpu_count() or 1}")
            duckdb_tables(duck_all, data)
            try:
                one_t, all_t, duck_one_t, duck_all_t = 0.0, 0.0, 0.0, 0.0
                for n in wanted:
                    a, b, c, d = [], [], [], []
                    for _ in range(args.runs):
                        a.append(timed(lambda: tessera_rows(broker, all_q[n]))[0])
                        b.append(timed(lambda: tessera_rows(many_broker, all_q[n]))[0])
                        c.append(timed(lambda: con.execute(all_q[n]).fetchall())[0])
                        d.append(timed(lambda: duck_all.execute(all_q[n]).fetchall())[0])
                    one_t += statistics.median(a)
                    all_t += statistics.median(b)
                    duck_one_t += statistics.median(c)
                    duck_all_t += statistics.median(d)
                    print(f"Q{n:<4} one thread {statistics.median(a):9.1f} all cores {statistics.median(b):9.1f}"
                          f"   duckdb {statistics.median(c):9.1f} {statistics.median(d):9.1f}", flush=True)
                print(f"total one thread {one_t:.0f} ms, all {os.cpu_count()} cores {all_t:.0f} ms: "
                      f"{one_t / all_t:.2f}x; duckdb {duck_one_t:.0f} ms, {duck_all_t:.0f} ms: "
                      f"{duck_one_t / duck_all_t:.2f}x", flush=True)
            finally:
                stop_cluster(many)
    finally:
        stop_cluster(cluster)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
