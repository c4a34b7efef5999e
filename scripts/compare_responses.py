#!/usr/bin/env python3
"""Compares the broker responses of two `tessera` binaries, query by query.

Starts `tessera quickstart` from each binary on free ports (same generated sample data), sends
the same queries to both brokers, and compares the parsed JSON bodies with the fields that
differ by run removed (timeUsedMs, requestId, brokerId, brokerReduceTimeMs, traceInfo timings).
Exits 1 and prints the first differences when any query's answer differs.

    scripts/compare_responses.py OLD_BINARY NEW_BINARY
"""
import json
import subprocess
import sys
import tempfile
import time
import urllib.request

QUERIES = [
    "SELECT COUNT(*) FROM lineitem",
    "SELECT l_shipmode, COUNT(*) FROM lineitem GROUP BY l_shipmode ORDER BY 2 DESC",
    "SELECT l_returnflag, l_linestatus, SUM(l_quantity), AVG(l_extendedprice), MIN(l_discount), MAX(l_tax) FROM lineitem GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2",
    "SELECT l_orderkey, l_linenumber, l_quantity FROM lineitem WHERE l_orderkey = 4242 LIMIT 10",
    "SELECT l_orderkey, l_extendedprice FROM lineitem ORDER BY l_extendedprice DESC LIMIT 5",
    "SELECT DISTINCT l_shipmode FROM lineitem ORDER BY l_shipmode",
    "SELECT COUNT(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL') AND l_quantity BETWEEN 10 AND 20",
    "SELECT DISTINCTCOUNT(l_partkey), PERCENTILE(l_quantity, 90) FROM lineitem",
    "SELECT 1, 'a'",
    "EXPLAIN PLAN FOR SELECT COUNT(*) FROM lineitem WHERE l_shipmode = 'AIR'",
    "SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 3",
    "SELECT nosuchcolumn FROM lineitem",
    "SELECT COUNT(*) FROM nosuchtable",
    "SELEC broken",
    "SELECT a.l_orderkey FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey",
]
VOLATILE = {"timeUsedMs", "requestId", "brokerId", "brokerReduceTimeMs"}


def start(binary, work):
    out = open(f"{work}/out.txt", "w")
    proc = subprocess.Popen(
        [binary, "quickstart", "--data-dir", f"{work}/data", "--controller-port", "0",
         "--broker-port", "0", "--server-port", "0", "--no-log-stderr"],
        stdout=out, stderr=subprocess.STDOUT)
    for _ in range(600):
        text = open(f"{work}/out.txt").read()
        if "Loaded table" in text:
            broker = [l.split()[1] for l in text.splitlines() if l.startswith("broker ")][0]
            return proc, broker
        if proc.poll() is not None:
            sys.exit(f"{binary} quickstart exited:\n{text}")
        time.sleep(0.2)
    proc.kill()
    sys.exit(f"{binary} quickstart did not load its sample")


def ask(broker, sql, options=None):
    body = {"sql": sql}
    if options:
        body["queryOptions"] = options
    req = urllib.request.Request(f"{broker}/query/sql", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as res:
        return res.status, res.headers.get("X-Pinot-Error-Code"), json.loads(res.read())


def stable(body):
    return {k: v for k, v in body.items() if k not in VOLATILE}


def main():
    old_bin, new_bin = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        old, old_broker = start(old_bin, a)
        new, new_broker = start(new_bin, b)
        try:
            differ = 0
            for sql in QUERIES:
                for options in (None, "trace=false"):
                    x = ask(old_broker, sql, options)
                    y = ask(new_broker, sql, options)
                    if (x[0], x[1], stable(x[2])) != (y[0], y[1], stable(y[2])):
                        differ += 1
                        print(f"DIFFERS: {sql} ({options})\n  old: {x}\n  new: {y}")
            print(f"{len(QUERIES) * 2 - differ} equal, {differ} differ")
            sys.exit(1 if differ else 0)
        finally:
            for p in (old, new):
                p.terminate()
                p.wait()


if __name__ == "__main__":
    main()
