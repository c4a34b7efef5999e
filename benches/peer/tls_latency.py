"""A query's latency through the broker over HTTPS against plain HTTP, in the same run.

Starts two `tessera start` processes (all roles, debug or release binary from TESSERA_BIN) with
the `trips` rows of the client tests: one plain, one with `--tls-cert-file` (certificates made
by openssl). Each is queried over one keep-alive session (Python requests, as a client holds its
connection), in alternating rounds, and the medians and their ratio are printed.

    tests/clients/.venv/bin/python benches/peer/tls_latency.py [--rounds 5] [--queries 200]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "clients"))
import requests  # noqa: E402
import test_clients as tc  # noqa: E402

SQL = f"SELECT city, COUNT(*), SUM(fare) FROM {tc.TABLE} GROUP BY city ORDER BY city"


def load(cluster):
    cluster.start()
    cluster.post_json("/schemas", tc.SCHEMA)
    cluster.post_json("/tables", tc.TABLE_CONFIG)
    cluster.ingest_segment("0", tc.ROWS[:tc.SPLIT])
    cluster.ingest_segment("1", tc.ROWS[tc.SPLIT:])
    if cluster.wait_until_loaded() is not None:
        raise RuntimeError("the table never loaded")


def timed(session, cluster, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        r = session.post(f"{cluster.broker}/query/sql", json={"sql": SQL}, verify=cluster.verify, timeout=30)
        r.raise_for_status()
        out.append(time.perf_counter() - t)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    certs = tempfile.mkdtemp(prefix="tessera-tls-bench-")
    files, _ = tc.make_certificates(certs)
    plain, secure = tc.Cluster(), tc.Cluster(tls=files)
    try:
        load(plain)
        load(secure)
        sessions = {"http": requests.Session(), "https": requests.Session()}
        times = {"http": [], "https": []}
        for name, c in (("http", plain), ("https", secure)):
            timed(sessions[name], c, 20)  # warm-up: connection, caches
        for _ in range(args.rounds):
            for name, c in (("http", plain), ("https", secure)):
                times[name] += timed(sessions[name], c, args.queries)
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        p99 = {k: sorted(v)[int(len(v) * 0.99) - 1] * 1000 for k, v in times.items()}
        for k in ("http", "https"):
            print(f"{k:5}: median {med[k]:.3f} ms, p99 {p99[k]:.3f} ms over {len(times[k])} queries")
        print(f"https / http median: {med['https'] / med['http']:.3f}")
    finally:
        plain.stop()
        secure.stop()


if __name__ == "__main__":
    main()
