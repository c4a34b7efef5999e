"""Zone maps: time windows over an events table whose rows arrive roughly in time order (late by up
to a minute), its time column neither sorted nor indexed — Tessera's scans skipping the runs of
documents a window cannot match, against DuckDB (its row groups' min/max do the same) and, given
`--baseline BIN`, an older Tessera binary (before zone maps), one thread each, alternating runs.

    benches/.venv-peers/bin/python benches/peer/zone_maps.py [--rows 5000000] [--runs 7]
        [--baseline /path/to/old/tessera] [--http]

It generates the rows (ts: 30 days of milliseconds, each row up to 60 s late; user: one of 1,000;
amount), builds (release) one segment with `ts` dictionary-encoded and one with `ts` raw
(`noDictionaryColumns`), checks that every engine answers each query alike, then prints median/min
ms per engine, `numEntriesScannedInFilter` of each Tessera query, and Tessera / DuckDB. With
`--http` it then runs the same queries through the broker (`tessera start`, the dictionary segment
uploaded) over one kept-alive connection, alternating with DuckDB.
"""
import argparse, http.client, json, os, random, shutil, socket, statistics, subprocess, sys, tempfile, time

from startree import Bench  # the `tessera bench --stdin` driver, beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
DAY = 86_400_000
START = 1_767_225_600_000  # 2026-01-01T00:00:00Z
SPAN = 30 * DAY

SCHEMA = {
    "schemaName": "events",
    "dimensionFieldSpecs": [{"name": "user", "dataType": "STRING"}],
    "metricFieldSpecs": [{"name": "amount", "dataType": "LONG"}],
    "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                            "granularity": "1:MILLISECONDS"}],
}


def config(raw_ts):
    return {"tableName": "events", "tableType": "OFFLINE", "segmentsConfig": {"timeColumnName": "ts"},
            "tenants": {}, "metadata": {},
            "tableIndexConfig": {"noDictionaryColumns": ["ts"] if raw_ts else []}}


def window(day, hours):
    lo = START + day * DAY
    return lo, lo + hours * 3_600_000


H1 = window(12, 1)
D1 = window(20, 24)
LAST = (START + SPAN - 3 * DAY, START + SPAN + 60_000)
QUERIES = {
    "count, one hour": f"SELECT COUNT(*) FROM events WHERE ts >= {H1[0]} AND ts < {H1[1]}",
    "sum by user, one day": f"SELECT user, SUM(amount) AS s FROM events WHERE ts >= {D1[0]} AND ts < {D1[1]} "
                            "GROUP BY user ORDER BY s DESC, user LIMIT 5",
    "count and sum, last three days": f"SELECT COUNT(*), SUM(amount) FROM events WHERE ts > {LAST[0]}",
    "count, two windows": f"SELECT COUNT(*) FROM events WHERE ts BETWEEN {H1[0]} AND {H1[1]} "
                          f"OR ts BETWEEN {D1[0]} AND {D1[0] + 600_000}",
}


def rows(n, seed=11):
    rnd = random.Random(seed)
    step = SPAN / n
    for i in range(n):
        yield START + int(i * step) - rnd.randrange(60_000), f"u{rnd.randrange(1000)}", rnd.randrange(1, 500)


class Broker:
    """`tessera start` with the events schema, table and one uploaded segment."""

    def __init__(self, tessera, seg_root, seg_name, work, env):
        ports = []
        for _ in range(3):
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                ports.append(s.getsockname()[1])
        self.log = open(os.path.join(work, "tessera.log"), "w")
        self.proc = subprocess.Popen([tessera, "start", "--data-dir", os.path.join(work, "data"),
                                      "--controller-port", str(ports[0]), "--broker-port", str(ports[1]),
                                      "--server-port", str(ports[2]), "--no-log-stderr"],
                                     stdout=self.log, stderr=self.log, env=env)
        self.ctl = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=600)
        self.broker = http.client.HTTPConnection("127.0.0.1", ports[1], timeout=600)
        deadline = time.time() + 60
        while True:
            try:
                if self.call(self.ctl, "GET", "/health")[0] == 200:
                    break
            except OSError:
                self.ctl.close()
            if time.time() > deadline:
                sys.exit("tessera did not start")
            time.sleep(0.2)
        for path, body in [("/schemas", SCHEMA), ("/tables", config(False))]:
            s, b = self.call(self.ctl, "POST", path, json.dumps(body).encode())
            assert s == 200, (path, s, b)
        tar = os.path.join(work, "events.tar.gz")
        subprocess.run(["tar", "-czf", tar, "-C", seg_root, seg_name], check=True)
        out = subprocess.run(["curl", "-sS", "-F", f"file=@{tar}",
                              f"http://127.0.0.1:{ports[0]}/segments?tableName=events"],
                             check=True, capture_output=True, text=True).stdout
        assert "error" not in out.lower(), out
        self.broker.connect()
        self.broker.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        deadline = time.time() + 120
        while self.query("SELECT COUNT(*) FROM events")[1] in ([], [[0]]):
            if time.time() > deadline:
                sys.exit("events did not load")
            time.sleep(0.5)

    @staticmethod
    def call(conn, method, path, body=None):
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        text = r.read()
        return r.status, (json.loads(text) if text[:1] in (b"{", b"[") else text)

    def query(self, sql):
        t = time.perf_counter()
        s, b = self.call(self.broker, "POST", "/query/sql", json.dumps({"sql": sql}).encode())
        ms = (time.perf_counter() - t) * 1000
        if s != 200 or b.get("exceptions"):
            raise RuntimeError(f"{s}: {b}")
        return ms, b["resultTable"]["rows"], b.get("numEntriesScannedInFilter")

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def same(a, b):
    """Answers equal up to float formatting (DuckDB's HUGEINT sums, Tessera's doubles)."""
    norm = lambda rows: [[float(v) if isinstance(v, (int, float)) else v for v in r] for r in rows]
    return norm(a) == norm(b)


def table(title, engines, runs):
    names = list(engines)
    print(f"\n## {title} ({runs} alternating runs after a warm-up; ms median / min)")
    print("| query | " + " | ".join(names) + f" | {names[0]} / DuckDB |")
    print("|---" * (len(names) + 2) + "|")
    for qn, q in QUERIES.items():
        answers = {e: engines[e](q)[1] for e in names}
        for e in names:
            if not same(answers[e], answers["DuckDB"]):
                sys.exit(f"{qn}: {e} answered {answers[e]}, DuckDB {answers['DuckDB']}")
        times = {e: [] for e in names}
        for _ in range(runs):
            for e in names:
                times[e].append(engines[e](q)[0])
        med = {e: statistics.median(v) for e, v in times.items()}
        cells = " | ".join(f"{med[e]:.2f} / {min(times[e]):.2f}" for e in names)
        print(f"| {qn} | {cells} | {med[names[0]] / med['DuckDB']:.3f}x |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--baseline", help="an older tessera binary to time beside this one")
    ap.add_argument("--http", action="store_true", help="also through the broker over HTTP")
    args = ap.parse_args()
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    tessera = os.environ.get("TESSERA_BIN")
    if not tessera:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT,
                       check=True)
        tessera = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tessera")
    work = tempfile.mkdtemp(prefix="tessera-zone-maps-")
    try:
        data = os.path.join(work, "events.csv")
        with open(data, "w") as f:
            f.write("ts,user,amount\n")
            for r in rows(args.rows):
                f.write(f"{r[0]},{r[1]},{r[2]}\n")
        schema = os.path.join(work, "schema.json")
        json.dump(SCHEMA, open(schema, "w"))
        segs = {}
        for name, raw in [("dictionary", False), ("raw", True)]:
            cfg = os.path.join(work, f"{name}.json")
            json.dump(config(raw), open(cfg, "w"))
            subprocess.run([tessera, "segment", "create", "--schema", schema, "--table-config", cfg,
                            "--input", data, "--out", os.path.join(work, name)], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            segs[name] = os.path.join(work, name, "events_0")
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads=1")
        con.execute(f"CREATE TABLE events AS SELECT * FROM read_csv('{data}', header=true, "
                    "columns={'ts': 'BIGINT', 'user': 'VARCHAR', 'amount': 'BIGINT'})")

        def timed(f):
            t = time.perf_counter(); r = f(); return (time.perf_counter() - t) * 1000, r

        duck = lambda q: timed(lambda: [list(r) for r in con.execute(q).fetchall()])
        procs = []
        engines = {}
        for name in ("dictionary", "raw"):
            b = Bench(tessera, segs[name], env); procs.append(b)
            engines[f"Tessera ts {name}"] = b.run
            if args.baseline:
                old = Bench(args.baseline, segs[name], env); procs.append(old)
                engines[f"baseline ts {name}"] = old.run
        engines["DuckDB"] = duck
        print(f"{args.rows} rows over 30 days, each up to 60 s late; one thread per engine")
        table("In process (`tessera bench`, DuckDB in memory)", engines, args.runs)
        for p in procs:
            p.close()
        if args.http:
            broker = Broker(tessera, os.path.join(work, "dictionary"), "events_0", work, env)
            try:
                print("\nentries scanned in filter (of %d):" % args.rows)
                for qn, q in QUERIES.items():
                    print(f"  {qn}: {broker.query(q)[2]}")
                table("Through the broker over HTTP (ts dictionary-encoded)",
                      {"Tessera HTTP": lambda q: broker.query(q)[:2], "DuckDB": duck}, args.runs)
            finally:
                broker.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
