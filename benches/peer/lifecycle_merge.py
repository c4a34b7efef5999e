"""MergeRollupTask through a running Tessera, against a plain segment build of the same rows, and
query latency on many small segments against the merged ones — all in one run, one process.

Starts `tessera start` (all roles incl. the minion; TESSERA_BIN, a release build for figures),
loads `--segments` small segments (CSV through `POST /ingestFromFile`, rows three days old), and
measures, through HTTP as a user meets it:
  * queries on the small segments (median of `--queries` per shape);
  * the merge: `POST /tasks/schedule?taskType=MergeRollupTask` until the task is COMPLETED
    (download, read, merge, build, upload, load, swap) → rows/s;
  * queries again on the merged segments;
  * a plain build of the same rows: one `POST /ingestFromFile` of all of them into a second
    table (parse, build, store, load) → rows/s.
Medians and ratios are printed (this machine is noisy: compare ratios, not seconds).

    tests/clients/.venv/bin/python benches/peer/lifecycle_merge.py [--segments 200] [--rows 5000]
"""
import argparse
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "clients"))
import requests  # noqa: E402
import test_clients as tc  # noqa: E402

DAY_MS = 86_400_000
CITIES = ["Austin", "Boston", "Chicago", "Denver", "Erie", "Fargo", "Gary", "Houston"]


def schema(name):
    return {"schemaName": name,
            "dimensionFieldSpecs": [{"name": "city", "dataType": "STRING"},
                                    {"name": "vendor", "dataType": "INT"}],
            "metricFieldSpecs": [{"name": "fare", "dataType": "DOUBLE"}, {"name": "id", "dataType": "LONG"}],
            "dateTimeFieldSpecs": [{"name": "ts", "dataType": "LONG", "format": "1:MILLISECONDS:EPOCH",
                                    "granularity": "1:MILLISECONDS"}]}


def table(name, task=None):
    t = {"tableName": name, "tableType": "OFFLINE",
         "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
         "tenants": {}, "tableIndexConfig": {"invertedIndexColumns": ["city"]}, "metadata": {}}
    if task:
        t["task"] = {"taskTypeConfigsMap": {"MergeRollupTask": task}}
    return t


def csv_rows(first, n, day):
    rnd = random.Random(first)
    lines = ["city,vendor,fare,id,ts"]
    for i in range(first, first + n):
        lines.append(f"{CITIES[rnd.randrange(len(CITIES))]},{rnd.randrange(50)},{rnd.randrange(10000) / 100},"
                     f"{i},{day + i % DAY_MS}")
    return "\n".join(lines) + "\n"


def ingest(cluster, name, csv, postfix):
    batch = json.dumps({"inputFormat": "csv", "segmentNameGenerator.configs.segment.name.postfix": postfix})
    r = requests.post(f"{cluster.controller}/ingestFromFile",
                      params={"tableNameWithType": f"{name}_OFFLINE", "batchConfigMapStr": batch},
                      files={"file": (f"{name}.csv", csv.encode(), "text/csv")}, timeout=600)
    r.raise_for_status()


def query(session, cluster, sql):
    r = session.post(f"{cluster.broker}/query/sql", json={"sql": sql}, timeout=60)
    r.raise_for_status()
    body = r.json()
    if body.get("exceptions"):
        raise RuntimeError(body["exceptions"])
    return body


def wait_count(session, cluster, name, n, timeout=600):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if query(session, cluster, f"SELECT COUNT(*) FROM {name}")["resultTable"]["rows"] == [[n]]:
                return
        except (RuntimeError, requests.RequestException):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{name} never held {n} rows")


def latencies(session, cluster, name, n):
    shapes = {
        "count": f"SELECT COUNT(*) FROM {name}",
        "filter": f"SELECT COUNT(*), SUM(fare) FROM {name} WHERE city = 'Boston'",
        "group by": f"SELECT city, COUNT(*), SUM(fare) FROM {name} GROUP BY city ORDER BY city",
    }
    out = {}
    for shape, sql in shapes.items():
        for _ in range(5):
            query(session, cluster, sql)
        times = []
        for _ in range(n):
            t = time.perf_counter()
            query(session, cluster, sql)
            times.append(time.perf_counter() - t)
        out[shape] = statistics.median(times)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=200)
    ap.add_argument("--rows", type=int, default=5000, help="rows per small segment")
    ap.add_argument("--queries", type=int, default=100)
    args = ap.parse_args()
    total = args.segments * args.rows
    day = (int(time.time() * 1000) - 3 * DAY_MS) // DAY_MS * DAY_MS
    c = tc.Cluster()
    session = requests.Session()
    try:
        c.start()
        c.post_json("/schemas", schema("small"))
        c.post_json("/tables", table("small", {"1day.bucketTimePeriod": "1d", "1day.bufferTimePeriod": "1d",
                                                "1day.maxNumRecordsPerSegment": str(total),
                                                "1day.maxNumRecordsPerTask": str(total * 2)}))
        for s in range(args.segments):
            ingest(c, "small", csv_rows(s * args.rows, args.rows, day), str(s))
        wait_count(session, c, "small", total)
        before = latencies(session, c, "small", args.queries)

        t = time.perf_counter()
        r = requests.post(f"{c.controller}/tasks/schedule", params={"taskType": "MergeRollupTask",
                                                                     "tableName": "small_OFFLINE"}, timeout=60)
        r.raise_for_status()
        task = r.json()["MergeRollupTask"]
        while requests.get(f"{c.controller}/tasks/task/{task}/state", timeout=30).json() != "COMPLETED":
            time.sleep(0.05)
        merge_s = time.perf_counter() - t
        sub = requests.get(f"{c.controller}/tasks/task/{task}/debug", timeout=30).json()["subtasks"][0]
        run_s = (sub["finishedMs"] - sub["startedMs"]) / 1000
        segs = requests.get(f"{c.controller}/segments/small", timeout=30).json()[0]["OFFLINE"]
        wait_count(session, c, "small", total)
        after = latencies(session, c, "small", args.queries)

        c.post_json("/schemas", schema("plain"))
        c.post_json("/tables", table("plain"))
        everything = csv_rows(0, total, day)
        t = time.perf_counter()
        ingest(c, "plain", everything, "all")
        wait_count(session, c, "plain", total)
        build_s = time.perf_counter() - t

        print(f"{args.segments} segments x {args.rows} rows = {total} rows; merged into {len(segs)} segment(s)")
        print(f"merge task:  {merge_s:.2f} s  = {total / merge_s:,.0f} rows/s  (scheduled to completed; the "
              f"subtask from its minion's claim to the swap: {run_s:.2f} s = {total / run_s:,.0f} rows/s)")
        print(f"plain build: {build_s:.2f} s  = {total / build_s:,.0f} rows/s  (merge/build time ratio "
              f"{merge_s / build_s:.2f})")
        for shape in before:
            print(f"query {shape:9s}: {before[shape] * 1000:7.2f} ms on {args.segments} small, "
                  f"{after[shape] * 1000:7.2f} ms merged  (small/merged {before[shape] / after[shape]:.2f})")
    finally:
        c.stop()


if __name__ == "__main__":
    main()
