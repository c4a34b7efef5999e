"""Real-time ingestion: rows from a Kafka topic to queryable, against building the same rows
from a file, and query latency on a consuming segment against the same rows committed.

Prepare once with `benches/peer/setup.sh [SF]` (lineitem CSV, the venv with kafka-python) and
`scripts/get-tansu.sh` (the Kafka-protocol broker), then run
    benches/.venv-peers/bin/python benches/peer/realtime_ingest.py [--rows 500000] [--runs 7]
It (1) builds the release `tessera` binary (or takes `TESSERA_BIN`), (2) takes the first N lineitem rows as JSON messages
and produces them to a one-partition topic of a fresh tansu broker, (3) starts `tessera start`
(one process, all roles, RAYON_NUM_THREADS=1), creates a REALTIME lineitem table (the indexed
config of compare.py) consuming from the smallest offset with a flush threshold above N, and
times creation → `count(*) = N` through the broker: the ingestion rate (one partition, one
consumer thread); (4) times `tessera segment create` on the same rows as a JSON-lines file
(same schema and table config, one thread) and uploads that segment to an OFFLINE copy
`lineitem_file`; (5) runs the anchor queries through the broker over one kept-alive connection
on the consuming segment, each run alternated with the same query on the copy (medians of
`--runs` pairs after a warm-up), pauses the table (the consuming segment is built and committed)
and does the same on the committed segment, checks the answers are the same, and prints the
consuming/copy and committed/copy ratios; (6) prints the server's resident growth while consuming per
row against the committed segment's bytes per row, and (7) ingests the same rows from a topic of
`--partitions` partitions (one consumer thread each) and prints its rate against one partition.
For each ingestion it prints the CPU the server (by thread name) and the Kafka broker spent, and
for one partition the CPU of the next 3 s, caught up (the quiet stream's merge of every chunk).
"""
import argparse, csv, http.client, json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from compare import TESSERA_Q  # noqa: E402  (the anchor queries, shared with compare.py)

# compare.py's anchor queries but c1 (the sorted column's range: chunks of a consuming segment
# keep arrival order, and the benchmark's rows are the table's first N, all in one range).
QUERIES = {q: sql for q, sql in TESSERA_Q.items() if q != "c1_orderkey_range"}
INT_COLS = {"l_orderkey", "l_partkey", "l_suppkey", "l_linenumber"}
DBL_COLS = {"l_quantity", "l_extendedprice", "l_discount", "l_tax"}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def rows_of(csv_path, n):
    with open(csv_path, newline="") as f:
        r = csv.DictReader(f)
        for i, row in enumerate(r):
            if i == n:
                break
            out = {}
            for k, v in row.items():
                if k is None:
                    continue
                out[k] = int(v) if k in INT_COLS else float(v) if k in DBL_COLS else v
            yield out


def request(conn, method, path, body=None, ctype="application/json"):
    headers = {"Content-Type": ctype} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    res = conn.getresponse()
    data = res.read()
    return res.status, (json.loads(data) if data[:1] in (b"{", b"[") else data.decode())


def query(conn, sql):
    status, body = request(conn, "POST", "/query/sql", json.dumps({"sql": sql}))
    if status != 200 or body.get("exceptions"):
        raise SystemExit(f"query failed: {sql}: {body}")
    return body


def count(conn, table="lineitem"):
    return query(conn, f"SELECT COUNT(*) FROM {table}")["resultTable"]["rows"][0][0]


def rss_bytes(pid, kind="VmRSS"):
    """Resident bytes of `pid`: all (VmRSS), or the anonymous (RssAnon) or file-mapped (RssFile) part."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(kind + ":"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_ticks():
    """The whole machine's (busy, all) CPU ticks since boot (/proc/stat; idle and iowait are not busy)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def thread_ticks(pid):
    """CPU ticks (user + system) of each thread name of `pid`, and of the whole process under "all"."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])
        # Numbered workers (`rayon-3`, `tokio-runtime-w`) count as one name.
        key = name.rstrip("0123456789-")
        out[key] = out.get(key, 0) + ticks
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    fields = text[text.rindex(")") + 2:].split()
    out["all"] = int(fields[11]) + int(fields[12])
    return out


def ticks_spent(before, after):
    """Core-seconds per thread name between two `thread_ticks` readings (exited threads: what was seen)."""
    hz = os.sysconf("SC_CLK_TCK")
    return {k: (after.get(k, 0) - before.get(k, 0)) / hz for k in set(before) | set(after)}


def cpu_split(server, kafka):
    """The server's core-seconds by thread name, and the Kafka broker's."""
    threads = sorted(((v, k) for k, v in server.items() if k != "all" and v >= 0.01), reverse=True)
    return (f"server {server['all']:.2f} core-s (of threads still running: "
            + ", ".join(f"{k} {v:.2f}" for v, k in threads) + f"), Kafka broker {kafka['all']:.2f} core-s")


def busy_cores(before, after):
    """Cores busy on average between two `cpu_ticks()` readings."""
    busy, total = after[0] - before[0], after[1] - before[1]
    return (os.cpu_count() or 1) * busy / max(total, 1)


def dir_bytes(root, prefix):
    """Bytes of the files under directories of `root` whose name starts with `prefix`."""
    total = 0
    for d, subdirs, files in os.walk(root):
        if any(part.startswith(prefix) for part in d.split(os.sep)):
            total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return total


def timed(conn, sql, runs):
    query(conn, sql)  # warm
    walls = []
    for _ in range(runs):
        t = time.perf_counter()
        query(conn, sql)
        walls.append((time.perf_counter() - t) * 1000)
    return statistics.median(walls), min(walls)


def alternated(conn, sql, other, runs):
    """`sql` and `other` timed in turn (A B A B) after a warm-up of each: (median, min) of each."""
    query(conn, sql)
    query(conn, other)
    walls = ([], [])
    for _ in range(runs):
        for i, q in enumerate((sql, other)):
            t = time.perf_counter()
            query(conn, q)
            walls[i].append((time.perf_counter() - t) * 1000)
    return tuple((statistics.median(w), min(w)) for w in walls)


def on_copy(sql):
    """`sql` on the OFFLINE copy of the rows (table `lineitem_file`)."""
    return sql.replace("FROM lineitem", "FROM lineitem_file")


def same(a, b):
    """Equal answers, floats within 1e-9 relative (partial sums merge in another order)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--rows", type=int, default=500_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--partitions", type=int, default=4,
                    help="also ingest the rows from a topic of this many partitions (1: skip)")
    args = ap.parse_args()
    from kafka import KafkaProducer  # benches/.venv-peers (setup.sh)

    data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
    csv_path = os.path.join(data, "lineitem.csv")
    tansu = os.path.join(ROOT, "target", "tansu", "tansu")
    for p, how in ((csv_path, f"benches/peer/setup.sh {args.sf}"), (tansu, "scripts/get-tansu.sh")):
        if not os.path.exists(p):
            sys.exit(f"missing {p}: run {how} first")
    bin_path = os.environ.get("TESSERA_BIN")
    if not bin_path:
        print("building the release binary ...", flush=True)
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT,
                       check=True)
        bin_path = os.path.join(ROOT, "target", "release", "tessera")
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    work = tempfile.mkdtemp(prefix="tessera-rt-bench-")
    procs = []
    try:
        rows = list(rows_of(csv_path, args.rows))
        n = len(rows)
        kport = free_port()
        url = f"tcp://127.0.0.1:{kport}"
        procs.append(subprocess.Popen([tansu, "broker", "--listener-url", url, "--advertised-listener-url", url,
                                       "--storage-engine", "memory://tansu/"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.3)
        subprocess.run([tansu, "topic", "create", "lineitem", "--partitions", "1", "--broker", url], check=True,
                       stdout=subprocess.DEVNULL)
        producer = KafkaProducer(bootstrap_servers=f"127.0.0.1:{kport}", linger_ms=1000, batch_size=1 << 20,
                                 api_version=(2, 5, 0))
        t = time.perf_counter()
        for r in rows:
            producer.send("lineitem", json.dumps(r).encode(), partition=0)
        producer.flush()
        print(f"produced {n} rows in {time.perf_counter() - t:.1f} s", flush=True)

        # (4) the same rows from a file, built by `tessera segment create` (for the OFFLINE table
        # `lineitem_file`, which (5) queries as the committed copy of the rows).
        jsonl = os.path.join(work, "lineitem.json")
        with open(jsonl, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        offline_cfg = os.path.join(HERE, "lineitem_offline_table_config.json")
        schema = os.path.join(HERE, "lineitem_schema.json")
        with open(offline_cfg) as f:
            copy_cfg = json.load(f)
        copy_cfg["tableName"] = "lineitem_file"
        with open(schema) as f:
            copy_schema = json.load(f)
        copy_schema["schemaName"] = "lineitem_file"
        copy_cfg_path, copy_schema_path = os.path.join(work, "copy_table.json"), os.path.join(work, "copy_schema.json")
        for path, doc in ((copy_cfg_path, copy_cfg), (copy_schema_path, copy_schema)):
            with open(path, "w") as f:
                json.dump(doc, f)
        seg_out = os.path.join(work, "seg")
        t = time.perf_counter()
        subprocess.run([bin_path, "segment", "create", "--schema", copy_schema_path, "--table-config", copy_cfg_path,
                        "--input", jsonl, "--out", seg_out], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        file_s = time.perf_counter() - t

        # (3) the topic into a REALTIME table.
        ports = [free_port() for _ in range(3)]
        procs.append(subprocess.Popen([bin_path, "start", "--data-dir", os.path.join(work, "data"),
                                       "--controller-port", str(ports[0]), "--broker-port", str(ports[1]),
                                       "--server-port", str(ports[2]), "--no-log-stderr"],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
        for _ in range(3):
            procs[-1].stdout.readline()
        ctl = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=600)
        broker = http.client.HTTPConnection("127.0.0.1", ports[1], timeout=600)
        with open(schema) as f:
            request(ctl, "POST", "/schemas", f.read())
        with open(offline_cfg) as f:
            cfg = json.load(f)
        cfg["tableName"], cfg["tableType"] = "lineitem", "REALTIME"
        cfg["ingestionConfig"] = {"streamIngestionConfig": {"streamConfigMaps": [{
            "streamType": "kafka", "stream.kafka.topic.name": "lineitem",
            "stream.kafka.broker.list": f"127.0.0.1:{kport}",
            "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
            "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder",
            "realtime.segment.flush.threshold.rows": str(n + 1),
            "realtime.segment.flush.threshold.time": "6h"}]}}
        server_pid = procs[-1].pid
        rss_before = rss_bytes(server_pid)
        anon_before, file_before = rss_bytes(server_pid, "RssAnon"), rss_bytes(server_pid, "RssFile")
        t, ticks = time.perf_counter(), cpu_ticks()
        server_ticks, kafka_ticks = thread_ticks(server_pid), thread_ticks(procs[0].pid)
        status, body = request(ctl, "POST", "/tables", json.dumps(cfg))
        if status != 200:
            sys.exit(f"table creation failed: {body}")
        while count(broker) < n:
            time.sleep(0.05)
        stream_s = time.perf_counter() - t
        one_busy = busy_cores(ticks, cpu_ticks())
        server_spent = ticks_spent(server_ticks, thread_ticks(server_pid))
        kafka_spent = ticks_spent(kafka_ticks, thread_ticks(procs[0].pid))
        rss_peak = rss_bytes(server_pid) - rss_before
        idle_ticks = (thread_ticks(server_pid), thread_ticks(procs[0].pid))
        time.sleep(3)  # freed build memory goes back to the kernel (mimalloc's purge delay is 1 s)
        idle_split = cpu_split(ticks_spent(idle_ticks[0], thread_ticks(server_pid)),
                               ticks_spent(idle_ticks[1], thread_ticks(procs[0].pid)))
        rss_consuming = rss_bytes(server_pid) - rss_before
        anon = rss_bytes(server_pid, "RssAnon") - anon_before
        mapped = rss_bytes(server_pid, "RssFile") - file_before
        # The allocator keeps freed memory 10 s (api/src/heap.rs) and returns it on later
        # calls: the least resident growth over the next 30 s of one query a second, once the
        # builds' freed buffers went back.
        settled = rss_consuming
        for _ in range(30):
            time.sleep(1)
            count(broker)
            settled = min(settled, rss_bytes(server_pid) - rss_before)
        print(f"\ningestion of {n} rows (one partition, one thread):")
        print(f"  topic -> queryable      {stream_s:7.2f} s  {n / stream_s:10,.0f} rows/s")
        print(f"  segment create (file)   {file_s:7.2f} s  {n / file_s:10,.0f} rows/s")
        print(f"  ratio stream/file rate  {(n / stream_s) / (n / file_s):.2f}x")
        print("  CPU: " + cpu_split(server_spent, kafka_spent))
        print("  CPU over the next 3 s, caught up: " + idle_split)

        # (5) queries on the consuming segment, alternated with the same on the file's segment in
        # an OFFLINE table; then the same after the commit.
        request(ctl, "POST", "/schemas", json.dumps(copy_schema))
        request(ctl, "POST", "/tables", json.dumps(copy_cfg))
        (seg_name,) = os.listdir(seg_out)
        tar = os.path.join(work, "copy.tar.gz")
        subprocess.run(["tar", "-czf", tar, "-C", seg_out, seg_name], check=True)
        subprocess.run(["curl", "-sS", "-o", "/dev/null", "-F", f"file=@{tar}",
                        f"http://127.0.0.1:{ports[0]}/segments?tableName=lineitem_file"], check=True)
        while count(broker, "lineitem_file") < n:
            time.sleep(0.1)
        select1 = timed(broker, "SELECT 1", args.runs)[0]
        consuming = {q: alternated(broker, sql, on_copy(sql), args.runs) for q, sql in QUERIES.items()}
        answers = {q: query(broker, sql)["resultTable"]["rows"] for q, sql in QUERIES.items()}
        copy_differ = [q for q, sql in QUERIES.items()
                       if not same(answers[q], query(broker, on_copy(sql))["resultTable"]["rows"])]
        request(ctl, "POST", "/tables/lineitem/pauseConsumption")
        t = time.perf_counter()
        while True:
            _, status = request(ctl, "GET", "/tables/lineitem/pauseStatus")
            if not status["consumingSegments"]:
                break
            time.sleep(0.1)
        commit_s = time.perf_counter() - t
        assert count(broker) == n
        seg_bytes = dir_bytes(os.path.join(work, "data"), "lineitem__0__0__")
        committed = {q: alternated(broker, sql, on_copy(sql), args.runs) for q, sql in QUERIES.items()}
        differ = [q for q, sql in QUERIES.items() if not same(answers[q], query(broker, sql)["resultTable"]["rows"])]
        print(f"\nanswers on the consuming and the committed segment: "
              + ("identical" if not differ else f"DIFFER for {differ}")
              + "; on the file's copy: " + ("identical" if not copy_differ else f"DIFFER for {copy_differ}"))
        _, segs = request(ctl, "GET", "/segments/lineitem/zkmetadata")
        print(f"\ncommit on pause: {commit_s:.2f} s; segments: "
              + ", ".join(f"{k} ({v['segment.realtime.status']}, {v['segment.total.docs']} rows)" for k, v in segs.items()))
        print(f"\nmemory: resident growth while consuming {rss_consuming / n:,.0f} B/row "
              f"(at the last row {rss_peak / n:,.0f}); "
              f"committed segment {seg_bytes / n:,.0f} B/row; ratio {rss_consuming / max(seg_bytes, 1):.2f}x"
              f"\n  of the growth: heap {anon / n:,.0f} B/row, mapped segment files {mapped / n:,.0f} B/row"
              f"\n  once freed build memory was returned (least over 30 s): {settled / n:,.0f} B/row; "
              f"ratio {settled / max(seg_bytes, 1):.2f}x")
        print(f"\nquery latency through the broker (median/min ms of {args.runs}, SELECT 1 = {select1:.2f} ms), "
              f"each alternated with the same query on the file's segment (OFFLINE copy):")
        print(f"  {'query':20} {'consuming':>16} {'copy':>16} {'ratio':>7}   {'committed':>16} {'copy':>16} {'ratio':>7}")
        for q in QUERIES:
            ((cm, cn), (fm, fn)), ((dm, dn), (gm, gn)) = consuming[q], committed[q]
            print(f"  {q:20} {cm:8.2f}/{cn:7.2f} {fm:8.2f}/{fn:7.2f} {cm / fm:6.2f}x   "
                  f"{dm:8.2f}/{dn:7.2f} {gm:8.2f}/{gn:7.2f} {dm / gm:6.2f}x")

        # (6) the same rows from a topic of several partitions, one consumer thread each.
        if args.partitions > 1:
            p = args.partitions
            subprocess.run([tansu, "topic", "create", "lineitem_p", "--partitions", str(p), "--broker", url],
                           check=True, stdout=subprocess.DEVNULL)
            for i, r in enumerate(rows):
                producer.send("lineitem_p", json.dumps(r).encode(), partition=i % p)
            producer.flush()
            # Fresh connections: the controller closes ones idle through the production above.
            ctl = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=600)
            broker = http.client.HTTPConnection("127.0.0.1", ports[1], timeout=600)
            with open(schema) as f:
                s = json.load(f)
            s["schemaName"] = "lineitem_p"
            request(ctl, "POST", "/schemas", json.dumps(s))
            cfg["tableName"] = "lineitem_p"
            cfg["ingestionConfig"]["streamIngestionConfig"]["streamConfigMaps"][0]["stream.kafka.topic.name"] = "lineitem_p"
            t, ticks = time.perf_counter(), cpu_ticks()
            server_ticks, kafka_ticks = thread_ticks(server_pid), thread_ticks(procs[0].pid)
            status, body = request(ctl, "POST", "/tables", json.dumps(cfg))
            if status != 200:
                sys.exit(f"table creation failed: {body}")
            while count(broker, "lineitem_p") < n:
                time.sleep(0.05)
            multi_s = time.perf_counter() - t
            multi_busy = busy_cores(ticks, cpu_ticks())
            multi_split = cpu_split(ticks_spent(server_ticks, thread_ticks(server_pid)),
                                    ticks_spent(kafka_ticks, thread_ticks(procs[0].pid)))
            cores = os.cpu_count() or 1
            print(f"\ningestion from {p} partitions ({cores} cores): {multi_s:.2f} s, "
                  f"{n / multi_s:,.0f} rows/s, {stream_s / multi_s:.2f}x one partition")
            print(f"  CPU: {multi_split}")
            # The whole machine's busy cores (server, broker, this script's polling): one
            # partition already overlaps decoding with the Kafka client and the broker, so no
            # number of partitions can beat it by more than the cores it left idle.
            print(f"  busy cores, whole machine: one partition {one_busy:.2f}, {p} partitions {multi_busy:.2f}; "
                  f"at most {cores / max(one_busy, 1e-9):.2f}x one partition on {cores} cores at this work per row")
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
