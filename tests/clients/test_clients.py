#!/usr/bin/env python3
"""End-to-end tests of Tessera with the real Apache Pinot Python clients.

Starts `target/debug/tessera start` (controller, broker and server in one process) on free
ports of 127.0.0.1 in a temporary data directory, creates the `trips` schema and OFFLINE table,
loads generated CSV rows as two segments (one through `POST /ingestFromFile`, one built with
`tessera segment create` and uploaded as tar.gz to `POST /segments`), then drives the cluster with:

* pinotdb 9.2.2 DB-API (`POST /query/sql`): pyformat parameters, fetch methods, description
  types, query stats, GROUP BY, errors, query options, `execute_native`, `SELECT 1`;
* pinotdb's SQLAlchemy dialect: table and column reflection through the controller, `text()`
  and Core `select()` queries;
* pinot-connect 0.1.1 (`POST /query`, Pinot's multi-stage endpoint, and `/query/sql` through an
  httpx request hook).

Run through `tests/clients/run.sh`, which makes the venv with the pinned clients. The last line
printed is `N passed, M failed`; the exit code is non-zero when anything failed.

Environment: `TESSERA_BIN` overrides the binary path; `TESSERA_KEEP_DATA=1` keeps the temp dir.
"""

import asyncio
import atexit
import csv
import datetime
import io
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest

import requests

import pinotdb
import pinot_connect
from pinotdb.db import Type
from sqlalchemy import MetaData, Table, create_engine, func, inspect, select, text
from sqlalchemy import types as satypes

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TESSERA_BIN", os.path.join(REPO, "target", "debug", "tessera"))
HOST = "127.0.0.1"
TABLE = "trips"
START_TIMEOUT_S = 60
READY_TIMEOUT_S = 60

# --------------------------------------------------------------------------------------------
# Test data: deterministic rows and the expected answers computed in Python.
# --------------------------------------------------------------------------------------------

CITIES = ["Austin", "Boston", "Chicago", "Denver", "O'Fallon"]
TAGS = ["red", "green", "blue"]
BASE_TS = datetime.datetime(2024, 3, 1, 0, 0, 0)
EPOCH = datetime.datetime(1970, 1, 1)


def make_rows(n=200, seed=7):
    """Rows as dicts with Python values (the CSV is written from these)."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        # sub-second parts check the TIMESTAMP text (`yyyy-MM-dd HH:mm:ss.SSS`, trailing zeros dropped)
        ts = BASE_TS + datetime.timedelta(hours=i, milliseconds=(i * 37) % 1000)
        rows.append({
            "city": CITIES[rnd.randrange(len(CITIES))],
            "vendor_id": rnd.randint(1, 3),
            "is_member": rnd.random() < 0.4,
            "passengers": rnd.randint(1, 6),
            "fare": round(rnd.uniform(3, 80), 2),
            # multiples of 0.25 are exact in FLOAT, so FLOAT results compare exactly
            "distance": rnd.randint(1, 120) * 0.25,
            "ts": ts,
            "ts_ms": (ts - EPOCH) // datetime.timedelta(milliseconds=1),
            # `year` is a reserved word (the SQLAlchemy dialect must quote it)
            "year": 2023 if i % 5 == 0 else 2024,
            # multi-value STRING: CSV cells are `;`-separated
            "tags": rnd.sample(TAGS, rnd.randint(1, len(TAGS))),
            "attrs": {"k": i % 7, "s": f"v{i % 3}"},
        })
    return rows


ROWS = make_rows()
N = len(ROWS)
SPLIT = 120  # rows [0, SPLIT): segment trips_0 (/ingestFromFile); the rest: trips_1 (segment create + upload)

SCHEMA = {
    "schemaName": TABLE,
    "dimensionFieldSpecs": [
        {"name": "city", "dataType": "STRING"},
        {"name": "vendor_id", "dataType": "INT"},
        {"name": "is_member", "dataType": "BOOLEAN"},
        {"name": "year", "dataType": "INT"},
        {"name": "tags", "dataType": "STRING", "singleValueField": False},
        {"name": "attrs", "dataType": "JSON"},
    ],
    "metricFieldSpecs": [
        {"name": "passengers", "dataType": "LONG"},
        {"name": "fare", "dataType": "DOUBLE"},
        {"name": "distance", "dataType": "FLOAT"},
    ],
    "dateTimeFieldSpecs": [
        {"name": "ts", "dataType": "TIMESTAMP", "format": "1:MILLISECONDS:EPOCH",
         "granularity": "1:MILLISECONDS"},
    ],
}

TABLE_CONFIG = {
    "tableName": TABLE,
    "tableType": "OFFLINE",
    "segmentsConfig": {"timeColumnName": "ts", "replication": "1", "schemaName": TABLE},
    "tenants": {},
    "tableIndexConfig": {"loadMode": "MMAP", "invertedIndexColumns": ["city"]},
    "metadata": {},
}

# the single-value scalar columns, in the order the selection tests ask for them
COLUMNS = ["city", "vendor_id", "is_member", "passengers", "fare", "distance", "ts"]
# every column in schema order (dimensions, metrics, date-time), as reflection reports them
ALL_COLUMNS = ["city", "vendor_id", "is_member", "year", "tags", "attrs", "passengers", "fare", "distance", "ts"]
CSV_COLUMNS = COLUMNS + ["year", "tags", "attrs"]


def csv_text(rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([r["city"], r["vendor_id"], "true" if r["is_member"] else "false",
                    r["passengers"], repr(r["fare"]), repr(r["distance"]), r["ts_ms"],
                    r["year"], ";".join(r["tags"]), json.dumps(r["attrs"], separators=(",", ":"))])
    return out.getvalue()


# A join on the multi-stage engine: each city with the number of its trips at the city's top fare.
JOIN_SQL = (f"SELECT a.city, COUNT(*) AS n FROM {TABLE} a JOIN "
            f"(SELECT city, MAX(fare) AS m FROM {TABLE} GROUP BY city) b "
            "ON a.city = b.city AND a.fare = b.m GROUP BY a.city ORDER BY a.city")


def expected_join(rows=ROWS):
    top = {c: v[2] for c, v in expected_by_city(rows).items()}
    counts = {}
    for r in rows:
        if r["fare"] == top[r["city"]]:
            counts[r["city"]] = counts.get(r["city"], 0) + 1
    return [(c, counts[c]) for c in sorted(counts)]


def expected_by_city(rows=ROWS):
    """city -> (count, sum(passengers), max(fare))."""
    out = {}
    for r in rows:
        c, p, m = out.get(r["city"], (0, 0, float("-inf")))
        out[r["city"]] = (c + 1, p + r["passengers"], max(m, r["fare"]))
    return out


# --------------------------------------------------------------------------------------------
# The cluster under test.
# --------------------------------------------------------------------------------------------

def free_ports(k):
    """k distinct free TCP ports on 127.0.0.1 (held open together so they differ)."""
    socks, ports = [], []
    try:
        for _ in range(k):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((HOST, 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def _die_with_parent():
    """Child pre-exec hook (Linux): SIGTERM the server if this test process dies, even by SIGKILL."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def make_certificates(directory):
    """A CA and a certificate for 127.0.0.1/localhost it signs, made with the openssl command:
    returns {"cert", "key", "ca"} paths and the certificate's SPKI hash (for Chromium's pin)."""
    def run(*args, stdin=None):
        done = subprocess.run(["openssl", *args], input=stdin, capture_output=True, check=True)
        return done.stdout
    path = lambda name: os.path.join(directory, name)
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2",
        "-subj", "/CN=Tessera test CA")
    run("req", *ec, "-keyout", path("key.pem"), "-out", path("leaf.csr"), "-subj", "/CN=127.0.0.1")
    with open(path("leaf.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", path("leaf.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
        "-CAcreateserial", "-out", path("cert.pem"), "-days", "2", "-extfile", path("leaf.ext"))
    public = run("x509", "-pubkey", "-noout", "-in", path("cert.pem"))
    der = run("pkey", "-pubin", "-outform", "der", stdin=public)
    import base64
    import hashlib
    spki = base64.b64encode(hashlib.sha256(der).digest()).decode()
    return {"cert": path("cert.pem"), "key": path("key.pem"), "ca": path("ca.pem")}, spki


class Cluster:
    """One `tessera start` subprocess; stopped by its own pid only."""

    def __init__(self, extra_args=(), auth=None, tls=None):
        self.extra_args = list(extra_args)
        self.auth = auth  # (user, password) for the setup calls when access control is on
        # With TLS ({"cert", "key", "ca"} files): every port speaks HTTPS, checked against the CA.
        self.tls = tls
        self.scheme = "https" if tls else "http"
        self.verify = tls["ca"] if tls else True
        if tls:
            self.extra_args += ["--tls-cert-file", tls["cert"], "--tls-key-file", tls["key"],
                                "--tls-ca-file", tls["ca"]]
        self.tmp = tempfile.mkdtemp(prefix="tessera-clients-")
        self.log_path = os.path.join(self.tmp, "tessera.log")
        self.proc = None
        self._log = None
        self._cleaned = False
        atexit.register(self.stop)

    def start(self, attempts=3):
        if not os.access(BINARY, os.X_OK):
            raise RuntimeError(f"tessera binary not found at {BINARY} (build it with `cargo build -p tessera-api`)")
        for attempt in range(attempts):
            try:
                return self._start_once()
            except RuntimeError:
                # another process may have taken a port between free_ports() and the bind
                if self.proc is None or self.proc.poll() is None or attempt + 1 == attempts \
                        or "in use" not in self.log_tail().lower():
                    raise
                self.proc = None

    def _start_once(self):
        self.controller_port, self.broker_port, self.server_port = free_ports(3)
        self.controller = f"{self.scheme}://{HOST}:{self.controller_port}"
        self.broker = f"{self.scheme}://{HOST}:{self.broker_port}"
        if self._log is not None:
            self._log.close()
        self._log = open(self.log_path, "wb")
        cmd = [BINARY, "start", "--roles", "controller,broker,server,minion",
               "--data-dir", os.path.join(self.tmp, "data"),
               "--controller-port", str(self.controller_port),
               "--broker-port", str(self.broker_port),
               "--server-port", str(self.server_port)] + self.extra_args
        self.proc = subprocess.Popen(cmd, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        deadline = time.monotonic() + START_TIMEOUT_S
        pending = {"controller": self.controller, "broker": self.broker}
        while pending:
            if self.proc.poll() is not None:
                raise RuntimeError(f"tessera exited with {self.proc.returncode} during start-up:\n{self.log_tail()}")
            for role, url in list(pending.items()):
                try:
                    if requests.get(f"{url}/health", timeout=2, verify=self.verify).status_code == 200:
                        del pending[role]
                except requests.RequestException:
                    pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{sorted(pending)} not healthy after {START_TIMEOUT_S}s:\n{self.log_tail()}")
            time.sleep(0.2)

    def stop(self, keep_log=False):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self._log is not None:
            self._log.close()
            self._log = None
        if not keep_log:
            self.cleanup()

    def cleanup(self):
        if self._cleaned:
            return
        self._cleaned = True
        if os.environ.get("TESSERA_KEEP_DATA") != "1":
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            print(f"kept cluster data and log in {self.tmp}")

    def log_tail(self, n=40):
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
            return "\n".join(lines[-n:])
        except OSError:
            return "(no log)"

    # -- setup through the controller ---------------------------------------------------------

    def post_json(self, path, obj):
        r = requests.post(f"{self.controller}{path}", data=json.dumps(obj),
                          headers={"Content-Type": "application/json"}, auth=self.auth, timeout=30,
                          verify=self.verify)
        if r.status_code != 200:
            raise RuntimeError(f"POST {path} -> {r.status_code}: {r.text}")
        return r.json()

    def ingest_segment(self, name_postfix, rows):
        """Loads rows as segment `trips_<postfix>` through POST /ingestFromFile (CSV part)."""
        data = csv_text(rows).encode()
        batch = json.dumps({"inputFormat": "csv",
                            "segmentNameGenerator.configs.segment.name.postfix": name_postfix})
        r = requests.post(f"{self.controller}/ingestFromFile",
                          params={"tableNameWithType": f"{TABLE}_OFFLINE", "batchConfigMapStr": batch},
                          files={"file": (f"{TABLE}_{name_postfix}.csv", data, "text/csv")}, auth=self.auth,
                          timeout=120, verify=self.verify)
        if r.status_code != 200:
            raise RuntimeError(f"POST /ingestFromFile -> {r.status_code}: {r.text}")

    def upload_segment(self, segment_name, rows):
        """Builds a segment with `tessera segment create` and uploads it as tar.gz to POST /segments."""
        data = csv_text(rows).encode()
        work = tempfile.mkdtemp(dir=self.tmp)
        paths = {}
        for name, content in [("schema.json", json.dumps(SCHEMA)), ("table.json", json.dumps(TABLE_CONFIG)),
                              ("input.csv", data.decode())]:
            paths[name] = os.path.join(work, name)
            with open(paths[name], "w") as f:
                f.write(content)
        out = os.path.join(work, "out")
        done = subprocess.run([BINARY, "segment", "create", "--schema", paths["schema.json"],
                               "--table-config", paths["table.json"], "--input", paths["input.csv"],
                               "--out", out, "--segment-name", segment_name],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"tessera segment create failed: {done.stderr}")
        seg_dir = os.path.join(out, segment_name)
        if not os.path.isdir(seg_dir):
            seg_dir = out
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w:gz") as tar:
            tar.add(seg_dir, arcname=segment_name)
        r = requests.post(f"{self.controller}/segments", params={"tableName": TABLE},
                          files={"file": (f"{segment_name}.tar.gz", archive.getvalue(), "application/gzip")},
                          timeout=120)
        if r.status_code != 200:
            raise RuntimeError(f"POST /segments -> {r.status_code}: {r.text}")

    def raw_query(self, sql, path="/query/sql", **params):
        r = requests.post(f"{self.broker}{path}", params=params or None, json={"sql": sql}, auth=self.auth,
                          timeout=30, verify=self.verify)
        return r.status_code, r.json()

    def start_with_first_segment(self):
        """Starts, creates the table and loads the rows of its first segment."""
        self.start()
        self.post_json("/schemas", SCHEMA)
        self.post_json("/tables", TABLE_CONFIG)
        self.ingest_segment("0", ROWS[:SPLIT])
        not_ready = self.wait_until_loaded_count(SPLIT)
        if not_ready is not None:
            raise RuntimeError(f"{TABLE} never loaded: {not_ready}")

    def wait_until_loaded(self):
        """Waits until COUNT(*) sees every row; returns the last response (for diagnostics)."""
        return self.wait_until_loaded_count(N)

    def wait_until_loaded_count(self, n):
        """Waits until COUNT(*) is `n`; returns None, or the last response (for diagnostics)."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.raw_query(f"SELECT COUNT(*) FROM {TABLE}")
                rows = last[1].get("resultTable", {}).get("rows")
                if rows == [[n]]:
                    return None
            except (requests.RequestException, ValueError) as e:
                last = repr(e)
            time.sleep(0.3)
        return last


CLUSTER = None
SETUP_ERROR = None
NOT_READY = None
LOG_TAIL = ""  # the server log's end, saved before the temp dir goes; printed when a test failed


def setUpModule():
    global CLUSTER, SETUP_ERROR, NOT_READY
    CLUSTER = Cluster()
    try:
        CLUSTER.start()
        CLUSTER.post_json("/schemas", SCHEMA)
        CLUSTER.post_json("/tables", TABLE_CONFIG)
        CLUSTER.ingest_segment("0", ROWS[:SPLIT])
        CLUSTER.upload_segment(f"{TABLE}_1", ROWS[SPLIT:])
        NOT_READY = CLUSTER.wait_until_loaded()
        if NOT_READY is not None:
            print(f"WARNING: {TABLE} never answered COUNT(*) = {N}; last response: {NOT_READY}", flush=True)
    except Exception as e:  # reported by every test (a setUpModule error would hide the count)
        SETUP_ERROR = f"{type(e).__name__}: {e}"
        print(f"SETUP FAILED: {SETUP_ERROR}", flush=True)


def tearDownModule():
    global LOG_TAIL
    if CLUSTER is not None:
        CLUSTER.stop(keep_log=True)
        LOG_TAIL = CLUSTER.log_tail(60)
        CLUSTER.cleanup()


class ClusterTest(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        if SETUP_ERROR:
            self.fail(f"cluster setup failed: {SETUP_ERROR}")


# --------------------------------------------------------------------------------------------
# 1. pinotdb DB-API against POST /query/sql
# --------------------------------------------------------------------------------------------

class PinotDbTests(ClusterTest):
    def setUp(self):
        super().setUp()
        self.conn = pinotdb.connect(host=HOST, port=CLUSTER.broker_port, path="/query/sql", scheme="http")
        self.cur = self.conn.cursor()

    def tearDown(self):
        if getattr(self, "conn", None) is not None:
            self.conn.close()

    def test_select_1_without_table(self):
        self.cur.execute("SELECT 1")
        self.assertEqual(self.cur.fetchall(), [[1]])
        self.assertEqual(self.cur.description[0][1], Type.NUMBER)

    def test_count_star_and_query_stats(self):
        self.cur.execute(f"SELECT COUNT(*) FROM {TABLE}")
        rows = self.cur.fetchall()
        self.assertEqual(rows, [[N]])
        self.assertIs(type(rows[0][0]), int)
        self.assertEqual(self.cur.description[0][1], Type.NUMBER)
        self.assertEqual(self.cur.schema[0]["type"], "LONG")
        stats = self.cur.query_stats
        self.assertEqual(stats.get("totalDocs"), N)
        self.assertEqual(stats.get("numDocsScanned"), N)
        self.assertGreaterEqual(stats.get("numServersQueried", 0), 1)
        self.assertEqual(stats.get("numServersQueried"), stats.get("numServersResponded"))
        self.assertEqual(stats.get("numSegmentsQueried"), 2)
        self.assertGreaterEqual(self.cur.timeUsedMs, 0)

    def test_pyformat_string_param_with_quote(self):
        city = "O'Fallon"
        self.cur.execute(
            f"SELECT COUNT(*), SUM(passengers) FROM {TABLE} WHERE city = %(c)s", {"c": city})
        cnt, passengers, _ = expected_by_city()[city]
        self.assertEqual(self.cur.fetchall(), [[cnt, float(passengers)]])

    def test_pyformat_numeric_bool_and_list_params(self):
        self.cur.execute(
            f"SELECT COUNT(*) FROM {TABLE} WHERE vendor_id = %(v)s AND is_member = %(m)s "
            f"AND city IN (%(cs)s)",
            {"v": 2, "m": True, "cs": ["Austin", "Boston"]})
        want = sum(1 for r in ROWS if r["vendor_id"] == 2 and r["is_member"] and r["city"] in ("Austin", "Boston"))
        self.assertEqual(self.cur.fetchall(), [[want]])

    def test_selection_values_and_description(self):
        lo, hi = ROWS[10]["ts_ms"], ROWS[14]["ts_ms"]
        self.cur.execute(
            f"SELECT {', '.join(COLUMNS)} FROM {TABLE} WHERE ts BETWEEN %(lo)s AND %(hi)s ORDER BY ts LIMIT 10",
            {"lo": lo, "hi": hi})
        want = [[r["city"], r["vendor_id"], r["is_member"], r["passengers"], r["fare"], r["distance"], r["ts"]]
                for r in ROWS[10:15]]
        self.assertEqual(self.cur.fetchall(), want)
        self.assertEqual([d[0] for d in self.cur.description], COLUMNS)
        self.assertEqual([d[1] for d in self.cur.description],
                         [Type.STRING, Type.NUMBER, Type.BOOLEAN, Type.NUMBER, Type.NUMBER, Type.NUMBER,
                          Type.TIMESTAMP])
        self.assertEqual([s["type"] for s in self.cur.schema],
                         ["STRING", "INT", "BOOLEAN", "LONG", "DOUBLE", "FLOAT", "TIMESTAMP"])

    def test_multi_value_and_json_columns(self):
        r = ROWS[42]
        self.cur.execute(f'SELECT tags, attrs, "year" FROM {TABLE} WHERE ts = %(t)s', {"t": r["ts_ms"]})
        self.assertEqual(self.cur.fetchall(), [[r["tags"], r["attrs"], r["year"]]])
        self.assertEqual([d[1] for d in self.cur.description], [Type.STRING, Type.JSON, Type.NUMBER])
        self.assertEqual([s["type"] for s in self.cur.schema], ["STRING_ARRAY", "JSON", "INT"])
        res = self.cur.execute_native(f"SELECT tags FROM {TABLE} WHERE ts = %(t)s", {"t": r["ts_ms"]})
        self.assertEqual((res.column_types, res.rows), (["STRING_ARRAY"], [[r["tags"]]]))
        self.assertEqual(res.metadata.completeness, "complete", res.metadata.unknown_reasons)
        # a multi-value predicate matches a row when any of its values matches
        self.cur.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE tags = %(tag)s", {"tag": "red"})
        self.assertEqual(self.cur.fetchall(), [[sum(1 for x in ROWS if "red" in x["tags"])]])

    def test_fetchone_fetchmany_and_iteration(self):
        self.cur.execute(f"SELECT ts FROM {TABLE} ORDER BY ts LIMIT 6")
        want = [[r["ts"]] for r in ROWS[:6]]
        self.assertEqual(self.cur.fetchone(), want[0])
        self.assertEqual(self.cur.fetchmany(2), want[1:3])
        self.assertEqual(list(self.cur), want[3:])
        self.assertIsNone(self.cur.fetchone())

    def test_group_by(self):
        self.cur.execute(
            f"SELECT city, COUNT(*) AS cnt, SUM(passengers) AS p, MAX(fare) AS mf FROM {TABLE} "
            f"GROUP BY city ORDER BY city LIMIT 100")
        exp = expected_by_city()
        want = [[c, exp[c][0], float(exp[c][1]), exp[c][2]] for c in sorted(exp)]
        got = self.cur.fetchall()
        self.assertEqual(got, want)
        self.assertEqual([d[0] for d in self.cur.description], ["city", "cnt", "p", "mf"])
        # Pinot's single-stage engine types COUNT as LONG and SUM/MAX as DOUBLE.
        self.assertEqual([s["type"] for s in self.cur.schema], ["STRING", "LONG", "DOUBLE", "DOUBLE"])
        self.assertIs(self.cur.query_stats.get("numGroupsLimitReached"), False)

    def test_group_by_order_by_aggregate_desc(self):
        self.cur.execute(
            f"SELECT vendor_id, COUNT(*) FROM {TABLE} GROUP BY vendor_id ORDER BY COUNT(*) DESC, vendor_id LIMIT 2")
        counts = {}
        for r in ROWS:
            counts[r["vendor_id"]] = counts.get(r["vendor_id"], 0) + 1
        want = sorted(([v, c] for v, c in counts.items()), key=lambda x: (-x[1], x[0]))[:2]
        self.assertEqual(self.cur.fetchall(), want)

    def test_double_and_float_aggregates(self):
        self.cur.execute(f"SELECT SUM(fare), MIN(distance), MAX(distance), AVG(passengers) FROM {TABLE}")
        [[s, mn, mx, avg]] = self.cur.fetchall()
        self.assertAlmostEqual(s, sum(r["fare"] for r in ROWS), places=6)
        self.assertEqual(mn, min(r["distance"] for r in ROWS))
        self.assertEqual(mx, max(r["distance"] for r in ROWS))
        self.assertAlmostEqual(avg, sum(r["passengers"] for r in ROWS) / N, places=9)

    def test_unknown_table_raises_database_error(self):
        with self.assertRaises(pinotdb.DatabaseError) as ctx:
            self.cur.execute("SELECT * FROM no_such_table")
        self.assertIn("'errorCode': 190", str(ctx.exception))

    def test_syntax_error_raises_database_error(self):
        with self.assertRaises(pinotdb.DatabaseError) as ctx:
            self.cur.execute(f"SELEC city FRM {TABLE}")
        self.assertIn("'errorCode': 150", str(ctx.exception))

    def test_unknown_column_raises_database_error(self):
        with self.assertRaises(pinotdb.DatabaseError) as ctx:
            self.cur.execute(f"SELECT no_such_column FROM {TABLE}")
        self.assertIn("'errorCode': 710", str(ctx.exception))

    def test_query_options_in_body_and_sql(self):
        self.cur.execute(f"SELECT COUNT(*) FROM {TABLE}", queryOptions="timeoutMs=20000")
        self.assertEqual(self.cur.fetchall(), [[N]])
        self.cur.execute(f"SELECT COUNT(*) FROM {TABLE} OPTION(timeoutMs=20000)")
        self.assertEqual(self.cur.fetchall(), [[N]])

    def test_preserve_types_connection(self):
        # preserve_types appends " OPTION(preserveType='true')" to every statement
        conn = pinotdb.connect(host=HOST, port=CLUSTER.broker_port, path="/query/sql", scheme="http",
                               preserve_types=True)
        try:
            cur = conn.cursor()
            cur.execute(f"SELECT city, COUNT(*) FROM {TABLE} WHERE city = %(c)s GROUP BY city", {"c": "Denver"})
            self.assertEqual(cur.fetchall(), [["Denver", expected_by_city()["Denver"][0]]])
        finally:
            conn.close()

    def test_execute_native_complete(self):
        if not hasattr(self.cur, "execute_native"):
            self.fail("pinotdb has no execute_native (expected in 9.x)")
        res = self.cur.execute_native(
            f"SELECT city, COUNT(*) FROM {TABLE} GROUP BY city ORDER BY city LIMIT 100")
        exp = expected_by_city()
        self.assertEqual(res.rows, [[c, exp[c][0]] for c in sorted(exp)])
        self.assertEqual(res.columns, ["city", "count(*)"])
        self.assertEqual(res.column_types, ["STRING", "LONG"])
        md = res.metadata
        self.assertEqual(md.completeness, "complete", md.unknown_reasons)
        self.assertEqual(md.execution_limit_flags.get("numGroupsLimitReached"), False)
        self.assertIs(md.partial_result, False)
        self.assertGreaterEqual(md.servers_queried, 1)
        self.assertEqual(md.servers_queried, md.servers_responded)
        self.assertIsNotNone(md.native_query_id)
        self.assertEqual(res.exceptions, [])

    def test_execute_native_error_is_partial_with_evidence(self):
        with self.assertRaises(pinotdb.DatabaseError) as ctx:
            self.cur.execute_native("SELECT * FROM no_such_table")
        native = getattr(ctx.exception, "native_result", None)
        self.assertIsNotNone(native, "expected a native_result on the error")
        self.assertEqual(native.metadata.completeness, "partial")
        self.assertEqual(native.exceptions[0]["errorCode"], 190)

    def test_async_connection(self):
        async def run():
            conn = pinotdb.connect_async(host=HOST, port=CLUSTER.broker_port, path="/query/sql", scheme="http")
            try:
                cur = await conn.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE is_member = %(m)s", {"m": False})
                return cur.fetchall()
            finally:
                await conn.close()
        self.assertEqual(asyncio.run(run()), [[sum(1 for r in ROWS if not r["is_member"])]])

    def test_empty_results_keep_their_schema(self):
        self.cur.execute(f"SELECT city, fare FROM {TABLE} WHERE city = %(c)s LIMIT 5", {"c": "nowhere"})
        self.assertEqual(self.cur.fetchall(), [])
        self.assertEqual([d[0] for d in self.cur.description], ["city", "fare"])
        self.cur.execute(f"SELECT city, COUNT(*) FROM {TABLE} WHERE city = %(c)s GROUP BY city", {"c": "nowhere"})
        self.assertEqual(self.cur.fetchall(), [])
        self.assertEqual([s["type"] for s in self.cur.schema], ["STRING", "LONG"])
        self.cur.execute(f"SELECT COUNT(*), SUM(passengers) FROM {TABLE} WHERE city = %(c)s", {"c": "nowhere"})
        self.assertEqual(self.cur.fetchall(), [[0, 0.0]])

    def test_execute_native_group_limit_is_partial(self):
        sql = f"SELECT city, COUNT(*) FROM {TABLE} GROUP BY city ORDER BY city LIMIT 100"
        with self.assertRaises(pinotdb.DatabaseError):
            self.cur.execute_native(sql, query_options="numGroupsLimit=2")
        res = self.cur.execute_native(sql, query_options="numGroupsLimit=2", allow_partial=True)
        self.assertEqual(res.metadata.completeness, "partial")
        self.assertIs(res.metadata.execution_limit_flags.get("numGroupsLimitReached"), True)
        self.assertIs(res.metadata.partial_result, True)
        self.assertLessEqual(len(res.rows), 2 * 2)  # at most the limit per segment

    def test_multistage_flag(self):
        # use_multistage_engine=True: pinotdb sends queryOptions useMultistageEngine=true
        conn = pinotdb.connect(host=HOST, port=CLUSTER.broker_port, path="/query/sql", scheme="http",
                               use_multistage_engine=True)
        try:
            cur = conn.cursor()
            cur.execute(f"SELECT COUNT(*) FROM {TABLE}")
            self.assertEqual(cur.fetchall(), [[N]])
            cur.execute(JOIN_SQL)
            self.assertEqual([tuple(r) for r in cur.fetchall()], expected_join())
        finally:
            conn.close()


# --------------------------------------------------------------------------------------------
# 2. SQLAlchemy dialect (broker for queries, controller for reflection)
# --------------------------------------------------------------------------------------------

class SqlAlchemyTests(ClusterTest):
    def setUp(self):
        super().setUp()
        self.engine = create_engine(
            f"pinot://{HOST}:{CLUSTER.broker_port}/query/sql?controller=http://{HOST}:{CLUSTER.controller_port}/")

    def tearDown(self):
        if getattr(self, "engine", None) is not None:
            self.engine.dispose()

    def test_table_names(self):
        insp = inspect(self.engine)
        self.assertIn(TABLE, insp.get_table_names())
        self.assertTrue(insp.has_table(TABLE))
        self.assertFalse(insp.has_table("no_such_table"))

    def test_columns_and_types(self):
        cols = inspect(self.engine).get_columns(TABLE)
        got = {c["name"]: type(c["type"]) if not isinstance(c["type"], type) else c["type"] for c in cols}
        self.assertEqual(got, {
            "city": satypes.String, "vendor_id": satypes.BigInteger, "is_member": satypes.Boolean,
            "year": satypes.BigInteger, "tags": satypes.String, "attrs": satypes.JSON,
            "passengers": satypes.BigInteger, "fare": satypes.Numeric, "distance": satypes.Float,
            "ts": satypes.TIMESTAMP,
        })
        self.assertEqual([c["name"] for c in cols], ALL_COLUMNS)

    def test_text_query_with_bind_param(self):
        with self.engine.connect() as c:
            rows = c.execute(text(f"SELECT city, COUNT(*) AS cnt FROM {TABLE} WHERE city = :c GROUP BY city"),
                             {"c": "Boston"}).fetchall()
        self.assertEqual([tuple(r) for r in rows], [("Boston", expected_by_city()["Boston"][0])])

    def test_core_select_on_reflected_table(self):
        t = Table(TABLE, MetaData(), autoload_with=self.engine)
        self.assertEqual([c.name for c in t.columns], ALL_COLUMNS)
        stmt = (select(t.c.city, func.count().label("cnt"), func.sum(t.c.passengers).label("p"))
                .where(t.c.vendor_id == 1).group_by(t.c.city).order_by(t.c.city).limit(100))
        with self.engine.connect() as c:
            rows = [tuple(r) for r in c.execute(stmt).fetchall()]
            total = c.execute(select(func.count()).select_from(t)).scalar()
        exp = expected_by_city([r for r in ROWS if r["vendor_id"] == 1])
        self.assertEqual(rows, [(city, exp[city][0], float(exp[city][1])) for city in sorted(exp)])
        self.assertEqual(total, N)

    def test_core_select_quotes_reserved_word_column(self):
        t = Table(TABLE, MetaData(), autoload_with=self.engine)
        stmt = select(t.c.year, func.count().label("cnt")).group_by(t.c.year).order_by(t.c.year).limit(10)
        self.assertIn('"year"', str(stmt.compile(self.engine)))
        with self.engine.connect() as c:
            rows = [tuple(r) for r in c.execute(stmt).fetchall()]
        years = {}
        for r in ROWS:
            years[r["year"]] = years.get(r["year"], 0) + 1
        self.assertEqual(rows, sorted(years.items()))


# --------------------------------------------------------------------------------------------
# 3. pinot-connect (POST /query = multi-stage; /query/sql through a request hook)
# --------------------------------------------------------------------------------------------

def _to_query_sql(request):
    """httpx request hook: pinot-connect hard-codes POST /query; send it to /query/sql instead."""
    if request.url.path == "/query":
        request.url = request.url.copy_with(path="/query/sql")


class PinotConnectTests(ClusterTest):
    def connect(self, **kw):
        return pinot_connect.connect(host=HOST, port=CLUSTER.broker_port, scheme="http", **kw)

    def connect_v1(self):
        return self.connect(client_options=pinot_connect.ClientOptions(event_hooks={"request": [_to_query_sql]}))

    def test_query_endpoint_multistage(self):
        # POST /query (Pinot's multi-stage endpoint): the same answer as the raw endpoint
        sql = f"SELECT city, COUNT(*) FROM {TABLE} GROUP BY city ORDER BY city LIMIT 100"
        status, raw = CLUSTER.raw_query(sql, path="/query", queryOptions="")
        self.assertEqual(status, 200, raw)
        self.assertFalse(raw.get("exceptions"), raw)
        with self.connect() as conn:
            cur = conn.cursor()
            cur.execute(sql)
            exp = expected_by_city()
            self.assertEqual(cur.fetchall(), [(c, exp[c][0]) for c in sorted(exp)])
            self.assertEqual([d.type_code for d in cur.description], [str, int])
            cur.execute(JOIN_SQL)
            self.assertEqual([tuple(r) for r in cur.fetchall()], expected_join())

    def test_query_endpoint_syntax_error(self):
        with self.connect() as conn:
            with self.assertRaises(pinot_connect.DatabaseError) as ctx:
                conn.cursor().execute("SELEC 1 FRM x")
        # 150 (SQL parsing) maps to ProgrammingError; an engine-unavailable code is still a clean DatabaseError
        self.assertIn("[Pinot Error", str(ctx.exception))

    def test_v1_values_types_and_statistics(self):
        lo, hi = ROWS[20]["ts_ms"], ROWS[23]["ts_ms"]
        with self.connect_v1() as conn:
            cur = conn.cursor()
            cur.execute(f"SELECT {', '.join(COLUMNS)} FROM {TABLE} WHERE ts BETWEEN %(lo)s AND %(hi)s "
                        f"AND city <> %(c)s ORDER BY ts LIMIT 10", {"lo": lo, "hi": hi, "c": "nowhere"})
            want = [(r["city"], r["vendor_id"], r["is_member"], r["passengers"], r["fare"], r["distance"], r["ts"])
                    for r in ROWS[20:24]]
            self.assertEqual(cur.fetchall(), want)
            self.assertEqual([d.name for d in cur.description], COLUMNS)
            self.assertEqual([d.type_code for d in cur.description],
                             [str, int, bool, int, float, float, datetime.datetime])
            self.assertEqual(cur.rowcount, 4)
            stats = cur.query_statistics
            self.assertEqual(stats["totalDocs"], N)
            self.assertGreaterEqual(stats["numServersQueried"], 1)

    def test_v1_url_query_options_and_params(self):
        opts = pinot_connect.QueryOptions(timeout_ms=20000)
        with self.connect_v1() as conn:
            cur = conn.cursor(query_options=opts)
            cur.execute(f"SELECT COUNT(*) FROM {TABLE} WHERE city IN %(cs)s", {"cs": ("Chicago", "O'Fallon")})
            exp = expected_by_city()
            self.assertEqual(cur.fetchall(), [(exp["Chicago"][0] + exp["O'Fallon"][0],)])

    def test_v1_errors_map_to_dbapi_classes(self):
        with self.connect_v1() as conn:
            cur = conn.cursor()
            with self.assertRaises(pinot_connect.ProgrammingError) as ctx:
                cur.execute("SELEC 1 FRM x")
            self.assertIn("[Pinot Error 150]", str(ctx.exception))
            with self.assertRaises(pinot_connect.ProgrammingError) as ctx:
                cur.execute("SELECT * FROM no_such_table")
            self.assertIn("[Pinot Error 190]", str(ctx.exception))

    def test_v1_multi_value_and_json_columns(self):
        r = ROWS[77]
        with self.connect_v1() as conn:
            cur = conn.cursor()
            cur.execute(f"SELECT tags, attrs FROM {TABLE} WHERE ts = %(t)s", {"t": r["ts_ms"]})
            [(tags, attrs)] = cur.fetchall()
            self.assertEqual(tags, r["tags"])
            self.assertEqual(json.loads(attrs), r["attrs"])  # pinot-connect leaves JSON as text

    def test_v1_select_1(self):
        with self.connect_v1() as conn:
            cur = conn.cursor()
            cur.execute("SELECT 1")
            self.assertEqual(cur.fetchall(), [(1,)])


# --------------------------------------------------------------------------------------------
# 4. Access control: pinotdb's username/password against a cluster started with --auth-config
# --------------------------------------------------------------------------------------------

AUTH_CONFIG = f"""
controller.admin.access.control.principals=admin,reader
controller.admin.access.control.principals.admin.password=verysecret
controller.admin.access.control.principals.reader.password=secret
controller.admin.access.control.principals.reader.permissions=READ
controller.admin.access.control.principals.reader.tables=other
"""


class FileFormatTests(ClusterTest):
    """The rows of `trips` written by the formats' own writers (pyarrow and DuckDB Parquet, pyarrow
    ORC, fastavro Avro, gzip and zstd CSV) load through `POST /ingestFromFile` and `tessera segment create` into
    tables that answer exactly what the CSV-loaded table answers, every column. (zstd files are
    covered by the Rust tests: Python has no zstd writer in its standard library.)"""

    SELECT = ("SELECT city, vendor_id, is_member, year, tags, attrs, passengers, fare, distance, ts "
              "FROM {t} ORDER BY ts LIMIT 1000")

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(dir=CLUSTER.tmp) if CLUSTER else None

    def table(self, name):
        """Creates table `name` with the `trips` schema and config; returns its name."""
        CLUSTER.post_json("/schemas", dict(SCHEMA, schemaName=name))
        CLUSTER.post_json("/tables", dict(TABLE_CONFIG, tableName=name,
                                          segmentsConfig=dict(TABLE_CONFIG["segmentsConfig"], schemaName=name)))
        return name

    def ingest(self, table, path, input_format):
        batch = json.dumps({"inputFormat": input_format,
                            "segmentNameGenerator.configs.segment.name.postfix": "0"})
        with open(path, "rb") as f:
            r = requests.post(f"{CLUSTER.controller}/ingestFromFile",
                              params={"tableNameWithType": f"{table}_OFFLINE", "batchConfigMapStr": batch},
                              files={"file": (os.path.basename(path), f.read(), "application/octet-stream")},
                              timeout=120)
        self.assertEqual(r.status_code, 200, r.text)

    def rows_of(self, table):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            status, body = CLUSTER.raw_query(self.SELECT.format(t=table))
            rows = body.get("resultTable", {}).get("rows", [])
            if (status == 200 and len(rows) == N) or time.monotonic() > deadline:
                self.assertEqual(status, 200, body)
                return rows
            time.sleep(0.3)

    def expected(self):
        if not hasattr(FileFormatTests, "_csv_rows"):
            t = self.table("files_csv")
            path = os.path.join(self.work, "trips.csv")
            with open(path, "w") as f:
                f.write(csv_text(ROWS))
            self.ingest(t, path, "csv")
            FileFormatTests._csv_rows = self.rows_of(t)
            self.assertEqual(len(FileFormatTests._csv_rows), N)
        return FileFormatTests._csv_rows

    def arrow_table(self):
        import pyarrow as pa
        return pa.table({
            "city": pa.array([r["city"] for r in ROWS], pa.string()),
            "vendor_id": pa.array([r["vendor_id"] for r in ROWS], pa.int32()),
            "is_member": pa.array([r["is_member"] for r in ROWS], pa.bool_()),
            "year": pa.array([r["year"] for r in ROWS], pa.int32()),
            "tags": pa.array([r["tags"] for r in ROWS], pa.list_(pa.string())),
            "attrs": pa.array([json.dumps(r["attrs"], separators=(",", ":")) for r in ROWS], pa.string()),
            "passengers": pa.array([r["passengers"] for r in ROWS], pa.int64()),
            "fare": pa.array([r["fare"] for r in ROWS], pa.float64()),
            "distance": pa.array([r["distance"] for r in ROWS], pa.float32()),
            "ts": pa.array([r["ts"] for r in ROWS], pa.timestamp("ms")),
        })

    def test_pyarrow_parquet(self):
        import pyarrow.parquet as pq
        path = os.path.join(self.work, "trips_pyarrow.parquet")
        # Small row groups and dictionary pages, as large pyarrow files have them.
        pq.write_table(self.arrow_table(), path, row_group_size=64, compression="snappy")
        self.ingest(self.table("files_pyarrow"), path, "parquet")
        self.assertEqual(self.rows_of("files_pyarrow"), self.expected())

    def test_duckdb_parquet_through_segment_create(self):
        import duckdb
        arrow = self.arrow_table()
        path = os.path.join(self.work, "trips_duckdb.parquet")
        con = duckdb.connect()
        con.register("arrow", arrow)
        # DuckDB writes TIMESTAMP in microseconds and zstd pages.
        con.execute(f"COPY (SELECT * REPLACE (ts::TIMESTAMP AS ts) FROM arrow) TO '{path}' "
                    "(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 100)")
        t = self.table("files_duckdb")
        paths = {}
        for name, content in [("schema.json", dict(SCHEMA, schemaName=t)),
                              ("table.json", dict(TABLE_CONFIG, tableName=t))]:
            paths[name] = os.path.join(self.work, f"{t}_{name}")
            with open(paths[name], "w") as f:
                json.dump(content, f)
        out = os.path.join(self.work, "duckdb_out")
        done = subprocess.run([BINARY, "segment", "create", "--schema", paths["schema.json"],
                               "--table-config", paths["table.json"], "--input", path, "--out", out,
                               "--segment-name", f"{t}_0"], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w:gz") as tar:
            tar.add(os.path.join(out, f"{t}_0"), arcname=f"{t}_0")
        r = requests.post(f"{CLUSTER.controller}/segments", params={"tableName": t},
                          files={"file": (f"{t}_0.tar.gz", archive.getvalue(), "application/gzip")}, timeout=120)
        self.assertEqual(r.status_code, 200, r.text)
        self.assertEqual(self.rows_of(t), self.expected())

    def test_fastavro_avro(self):
        import fastavro
        schema = fastavro.parse_schema({
            "type": "record", "name": "trips", "fields": [
                {"name": "city", "type": "string"},
                {"name": "vendor_id", "type": "int"},
                {"name": "is_member", "type": "boolean"},
                {"name": "year", "type": ["null", "int"]},
                {"name": "tags", "type": {"type": "array", "items": "string"}},
                {"name": "attrs", "type": {"type": "record", "name": "attrs", "fields": [
                    {"name": "k", "type": "long"}, {"name": "s", "type": "string"}]}},
                {"name": "passengers", "type": "long"},
                {"name": "fare", "type": "double"},
                {"name": "distance", "type": "float"},
                {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            ]})
        records = [dict(r, ts=r["ts"].replace(tzinfo=datetime.timezone.utc)) for r in ROWS]
        records = [{k: v for k, v in r.items() if k != "ts_ms"} for r in records]
        path = os.path.join(self.work, "trips.avro")
        with open(path, "wb") as f:
            fastavro.writer(f, schema, records, codec="deflate")
        self.ingest(self.table("files_avro"), path, "avro")
        self.assertEqual(self.rows_of("files_avro"), self.expected())

    def test_pyarrow_orc(self):
        import pyarrow.orc as orc
        path = os.path.join(self.work, "trips.orc")
        # Small stripes and zstd, as large ORC files have them.
        orc.write_table(self.arrow_table(), path, stripe_size=4096, compression="zstd")
        self.ingest(self.table("files_orc"), path, "orc")
        self.assertEqual(self.rows_of("files_orc"), self.expected())

    def test_compressed_csv(self):
        import gzip
        path = os.path.join(self.work, "trips.csv.gz")
        with gzip.open(path, "wt") as f:
            f.write(csv_text(ROWS))
        self.ingest(self.table("files_gz"), path, "csv")
        self.assertEqual(self.rows_of("files_gz"), self.expected())

    def test_ingest_from_uri(self):
        import pyarrow.parquet as pq
        path = os.path.join(self.work, "trips_uri.parquet")
        pq.write_table(self.arrow_table(), path)
        t = self.table("files_uri")
        batch = json.dumps({"inputFormat": "parquet"})
        post = lambda uri: requests.post(f"{CLUSTER.controller}/ingestFromURI",
                                         params={"tableNameWithType": f"{t}_OFFLINE", "batchConfigMapStr": batch,
                                                 "sourceURIStr": uri}, timeout=120)
        r = post(f"file://{self.work}/no_such.parquet")
        self.assertEqual(r.status_code, 400, r.text)
        self.assertIn("no_such.parquet", r.text)
        self.assertEqual(post("s3://bucket/trips.parquet").status_code, 400)
        self.assertEqual(requests.get(f"{CLUSTER.controller}/segments/{t}", timeout=30).json(), [{"OFFLINE": []}])
        r = post(f"file://{path}")
        self.assertEqual(r.status_code, 200, r.text)
        self.assertEqual(self.rows_of(t), self.expected())

    def test_nested_parquet_through_complex_type_config(self):
        """Pinot's complexTypeConfig: a struct flattens into `customer.name`, a list of structs
        unnests into one row per item, and a transform reads a flattened column."""
        import pyarrow as pa
        import pyarrow.parquet as pq
        orders = [
            {"id": 1, "customer": {"name": "ann", "city": "Oslo"}, "items": [{"sku": "a1", "qty": 2}, {"sku": "b2", "qty": 5}]},
            {"id": 2, "customer": {"name": "bob", "city": "Rome"}, "items": []},
            {"id": 3, "customer": None, "items": [{"sku": "c3", "qty": 1}]},
        ]
        item = pa.struct([("sku", pa.string()), ("qty", pa.int32())])
        arrow = pa.table({
            "id": pa.array([o["id"] for o in orders], pa.int32()),
            "customer": pa.array([o["customer"] for o in orders], pa.struct([("name", pa.string()), ("city", pa.string())])),
            "items": pa.array([o["items"] for o in orders], pa.list_(item)),
        })
        path = os.path.join(self.work, "orders_nested.parquet")
        pq.write_table(arrow, path)
        t = "files_nested"
        CLUSTER.post_json("/schemas", {"schemaName": t, "dimensionFieldSpecs": [
            {"name": "id", "dataType": "INT"},
            {"name": "customer.name", "dataType": "STRING"},
            {"name": "items.sku", "dataType": "STRING"},
            {"name": "sku_upper", "dataType": "STRING"}],
            "metricFieldSpecs": [{"name": "items.qty", "dataType": "INT"}]})
        CLUSTER.post_json("/tables", {"tableName": t, "tableType": "OFFLINE", "segmentsConfig": {"replication": "1"},
                                      "tenants": {}, "tableIndexConfig": {"nullHandlingEnabled": True},
                                      "ingestionConfig": {
                                          "complexTypeConfig": {"fieldsToUnnest": ["items"]},
                                          "transformConfigs": [{"columnName": "sku_upper",
                                                                "transformFunction": "upper(\"items.sku\")"}]}})
        self.ingest(t, path, "parquet")
        expected = []
        for o in orders:
            name = (o["customer"] or {}).get("name")
            for i in o["items"] or [None]:
                sku = i and i["sku"]
                expected.append([o["id"], name, sku, sku and sku.upper(), i and i["qty"]])
        sql = (f'SELECT id, "customer.name", "items.sku", sku_upper, "items.qty" FROM {t} '
               f'ORDER BY id, "items.sku" LIMIT 100')
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            status, body = CLUSTER.raw_query(sql, queryOptions="enableNullHandling=true")
            rows = body.get("resultTable", {}).get("rows", [])
            if len(rows) == len(expected) or time.monotonic() > deadline:
                break
            time.sleep(0.3)
        self.assertEqual(status, 200, body)
        self.assertEqual(rows, expected)
        # A complexTypeConfig Pinot would refuse is refused when the table is created.
        r = requests.post(f"{CLUSTER.controller}/tables", json={
            "tableName": "files_nested_bad", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
            "tableIndexConfig": {}, "ingestionConfig": {"complexTypeConfig": {"collectionNotUnnestedToJson": "SOME"}}},
            timeout=30)
        self.assertEqual(r.status_code, 400, r.text)

    def test_bad_file_is_refused_and_changes_nothing(self):
        t = self.table("files_bad")
        path = os.path.join(self.work, "not_parquet.parquet")
        with open(path, "w") as f:
            f.write(csv_text(ROWS))
        batch = json.dumps({"inputFormat": "parquet"})
        with open(path, "rb") as f:
            r = requests.post(f"{CLUSTER.controller}/ingestFromFile",
                              params={"tableNameWithType": f"{t}_OFFLINE", "batchConfigMapStr": batch},
                              files={"file": ("x.parquet", f.read(), "application/octet-stream")}, timeout=60)
        self.assertEqual(r.status_code, 400, r.text)
        self.assertIn("not a readable Parquet file", r.text)
        segs = requests.get(f"{CLUSTER.controller}/segments/{t}", timeout=30).json()
        self.assertEqual(segs, [{"OFFLINE": []}])


class AuthTests(unittest.TestCase):
    """Its own `tessera start --auth-config` cluster, with the rows of the first segment."""

    secured = None

    @classmethod
    def setUpClass(cls):
        fd, cls.config_path = tempfile.mkstemp(prefix="tessera-auth-", suffix=".properties")
        with os.fdopen(fd, "w") as f:
            f.write(AUTH_CONFIG)
        cls.secured = Cluster(["--auth-config", cls.config_path], auth=("admin", "verysecret"))
        cls.secured.start()
        cls.secured.post_json("/schemas", SCHEMA)
        cls.secured.post_json("/tables", TABLE_CONFIG)
        cls.secured.ingest_segment("0", ROWS[:SPLIT])
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            _, body = cls.secured.raw_query(f"SELECT COUNT(*) FROM {TABLE}")
            if body.get("resultTable", {}).get("rows") == [[SPLIT]]:
                break
            time.sleep(0.3)

    @classmethod
    def tearDownClass(cls):
        if cls.secured is not None:
            cls.secured.stop()
        os.unlink(cls.config_path)

    def connect(self, **auth):
        return pinotdb.connect(host=HOST, port=self.secured.broker_port, path="/query/sql", scheme="http", **auth)

    def test_pinotdb_with_username_and_password(self):
        conn = self.connect(username="admin", password="verysecret")
        cur = conn.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {TABLE}")
        self.assertEqual(cur.fetchall(), [[SPLIT]])
        conn.close()

    def refused(self, status, **auth):
        """The query fails in pinotdb (its message is its own) after Tessera's `status`."""
        conn = self.connect(**auth)
        cur = conn.cursor()
        with self.assertRaises(pinotdb.exceptions.DatabaseError):
            cur.execute(f"SELECT COUNT(*) FROM {TABLE}")
        self.assertEqual(cur.raw_query_response["status_code"], status, cur.raw_query_response)
        conn.close()
        return cur.raw_query_response["response"]

    def test_pinotdb_without_or_with_wrong_credentials_fails(self):
        self.assertEqual(self.refused(401), {"code": 401, "error": "HTTP 401 Unauthorized"})
        self.refused(401, username="admin", password="nope")

    def test_pinotdb_reader_of_another_table_is_denied(self):
        body = self.refused(403, username="reader", password="secret")
        self.assertEqual(body["error"], f"Permission denied.Reason: Authorization Failed for tables: [{TABLE}]")


class TlsTests(unittest.TestCase):
    """Its own `tessera start --tls-cert-file …` cluster, with the rows of the first segment:
    pinotdb over HTTPS, trusting the test CA; plain HTTP and clients without the CA refused."""

    secured = None

    @classmethod
    def setUpClass(cls):
        cls.certs_dir = tempfile.mkdtemp(prefix="tessera-tls-")
        files, _ = make_certificates(cls.certs_dir)
        cls.secured = Cluster(tls=files)
        cls.secured.start_with_first_segment()

    @classmethod
    def tearDownClass(cls):
        if cls.secured is not None:
            cls.secured.stop()
        shutil.rmtree(cls.certs_dir, ignore_errors=True)

    def test_pinotdb_over_https(self):
        import ssl
        trust = ssl.create_default_context(cafile=self.secured.verify)
        conn = pinotdb.connect(host=HOST, port=self.secured.broker_port, path="/query/sql", scheme="https",
                               verify_ssl=trust)
        cur = conn.cursor()
        cur.execute(f"SELECT COUNT(*) FROM {TABLE}")
        self.assertEqual(cur.fetchall(), [[SPLIT]])
        cur.execute(f"SELECT city, COUNT(*) FROM {TABLE} GROUP BY city ORDER BY city",
                    queryOptions="useMultistageEngine=true")
        self.assertEqual(sum(r[1] for r in cur.fetchall()), SPLIT)
        conn.close()

    def test_plain_http_and_untrusted_clients_are_refused(self):
        for port in [self.secured.controller_port, self.secured.broker_port, self.secured.server_port]:
            with self.assertRaises(requests.exceptions.ConnectionError):
                requests.get(f"http://{HOST}:{port}/health", timeout=10)
            with self.assertRaises(requests.exceptions.SSLError):
                requests.get(f"https://{HOST}:{port}/health", timeout=10)  # the system's roots only


# --------------------------------------------------------------------------------------------

def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped - len(result.expectedFailures)
    if result.testsRun == 0 or SETUP_ERROR:
        failed = max(failed, 1)
    if failed and LOG_TAIL:
        print(f"--- end of the tessera log ---\n{LOG_TAIL}\n---")
    sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
