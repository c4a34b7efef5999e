"""Freshness of a real-time table: how long after a message is produced it answers queries.

Prepare as for realtime_ingest.py (`scripts/get-tansu.sh`, the venv with kafka-python), then run
    benches/.venv-peers/bin/python benches/peer/realtime_freshness.py [--rate 20000] [--seconds 10]
(`TESSERA_BIN` names a built binary instead of building the release one).
It starts tansu and `tessera start` (one process, all roles), creates a REALTIME table consuming
a one-partition topic, waits until a first message answers (the consumer runs), then produces
messages `{"id": i, "kind": ..., "ts": ...}` at `--rate` a
second (paced in 10 ms steps, each message's send time recorded) while a second thread asks the
broker `SELECT max(id)` over one kept-alive connection as fast as it answers. A message is fresh
when an answer started after it was sent shows its id; its freshness is the end of that answer
minus its send time. Prints the rate reached and the p50/p99/max freshness (an upper bound: it
includes the query's own latency and the polling interval).
"""
import argparse, http.client, json, os, subprocess, sys, tempfile, threading, time, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from realtime_ingest import free_port, request, query  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rate", type=int, default=20_000)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    from kafka import KafkaProducer

    tansu = os.path.join(ROOT, "target", "tansu", "tansu")
    if not os.path.exists(tansu):
        sys.exit("missing tansu: run scripts/get-tansu.sh first")
    bin_path = os.environ.get("TESSERA_BIN")
    if not bin_path:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT,
                       check=True)
        bin_path = os.path.join(ROOT, "target", "release", "tessera")
    work = tempfile.mkdtemp(prefix="tessera-fresh-")
    procs = []
    try:
        kport = free_port()
        url = f"tcp://127.0.0.1:{kport}"
        procs.append(subprocess.Popen([tansu, "broker", "--listener-url", url, "--advertised-listener-url", url,
                                       "--storage-engine", "memory://tansu/"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.3)
        subprocess.run([tansu, "topic", "create", "fresh", "--partitions", "1", "--broker", url], check=True,
                       stdout=subprocess.DEVNULL)
        ports = [free_port() for _ in range(3)]
        procs.append(subprocess.Popen([bin_path, "start", "--data-dir", os.path.join(work, "data"),
                                       "--controller-port", str(ports[0]), "--broker-port", str(ports[1]),
                                       "--server-port", str(ports[2]), "--no-log-stderr"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
        for _ in range(3):
            procs[-1].stdout.readline()
        ctl = http.client.HTTPConnection("127.0.0.1", ports[0], timeout=60)
        request(ctl, "POST", "/schemas", json.dumps({
            "schemaName": "fresh",
            "dimensionFieldSpecs": [{"name": "kind", "dataType": "STRING"}],
            "metricFieldSpecs": [{"name": "id", "dataType": "LONG"}],
            "dateTimeFieldSpecs": [{"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
                                    "granularity": "1:MILLISECONDS"}]}))
        status, body = request(ctl, "POST", "/tables", json.dumps({
            "tableName": "fresh", "tableType": "REALTIME",
            "segmentsConfig": {"timeColumnName": "ts", "replication": "1"}, "tenants": {},
            "tableIndexConfig": {"invertedIndexColumns": ["kind"]}, "metadata": {},
            "ingestionConfig": {"streamIngestionConfig": {"streamConfigMaps": [{
                "streamType": "kafka", "stream.kafka.topic.name": "fresh",
                "stream.kafka.broker.list": f"127.0.0.1:{kport}",
                "stream.kafka.consumer.prop.auto.offset.reset": "smallest",
                "stream.kafka.decoder.class.name": "org.apache.pinot.plugin.inputformat.json.JSONMessageDecoder",
                "realtime.segment.flush.threshold.rows": "1000000",
                "realtime.segment.flush.threshold.time": "6h"}]}}}))
        if status != 200:
            sys.exit(f"table creation failed: {body}")
        producer = KafkaProducer(bootstrap_servers=f"127.0.0.1:{kport}", linger_ms=1, api_version=(2, 5, 0))
        total = int(args.rate * args.seconds)
        payloads = [json.dumps({"id": i, "kind": "abc"[i % 3], "ts": 1_700_000_000_000 + i}).encode()
                    for i in range(total)]
        sent = [0.0] * total
        answers = []  # (answer started, answer ended, max id seen)
        done = threading.Event()

        def poll():
            broker = http.client.HTTPConnection("127.0.0.1", ports[1], timeout=60)
            while not done.is_set():
                t0 = time.perf_counter()
                rows = query(broker, "SELECT max(id) FROM fresh")["resultTable"]["rows"]
                t1 = time.perf_counter()
                try:
                    top = float(rows[0][0])  # an empty table answers -Infinity (maybe as text)
                except (IndexError, TypeError, ValueError):
                    top = -1.0
                answers.append((t0, t1, int(top) if -1e300 < top < 1e300 else -1))

        poller = threading.Thread(target=poll)
        poller.start()
        # Message 0 first: timing starts once the consumer is running (not counted).
        producer.send("fresh", payloads[0], partition=0)
        producer.flush()
        while not answers or answers[-1][2] < 0:
            time.sleep(0.01)
        start = time.perf_counter()
        step = max(1, args.rate // 100)  # messages per 10 ms
        for i in range(1, total, step):
            due = start + i / args.rate
            now = time.perf_counter()
            if due > now:
                time.sleep(due - now)
            for j in range(i, min(i + step, total)):
                producer.send("fresh", payloads[j], partition=0)
                sent[j] = time.perf_counter()
            producer.flush()
        produce_s = time.perf_counter() - start
        deadline = time.perf_counter() + 30
        while (not answers or answers[-1][2] < total - 1) and time.perf_counter() < deadline:
            time.sleep(0.05)
        done.set()
        poller.join()
        # Each message's freshness: the first answer begun after it was sent that shows it.
        fresh, a = [], 0
        for i in range(1, total):
            while a < len(answers) and (answers[a][0] < sent[i] or answers[a][2] < i):
                a += 1
            if a == len(answers):
                break
            fresh.append((answers[a][1] - sent[i]) * 1000)
        if len(fresh) < total - 1:
            print(f"only {len(fresh)} of {total - 1} messages became queryable within 30 s")
        if not fresh:
            sys.exit("no message became queryable")
        fresh.sort()
        q = lambda p: fresh[min(len(fresh) - 1, int(p * len(fresh)))]
        print(f"produced {total} messages at {total / produce_s:,.0f}/s (asked {args.rate:,}/s); "
              f"{len(answers)} queries answered")
        print(f"freshness (send -> first answer showing it): p50 {q(0.5):.1f} ms, p99 {q(0.99):.1f} ms, "
              f"max {fresh[-1]:.1f} ms")
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
