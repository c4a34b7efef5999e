"""JSON and text index benchmark: JSON_MATCH and TEXT_MATCH answered from their indexes, the same
questions without the indexes (jsonExtractScalar over each document, TEXT_MATCH analyzing each
value), and DuckDB (json_extract_string, regexp_matches), one thread each, alternating runs.

    benches/.venv-peers/bin/python benches/peer/json_text_index.py [--rows 1000000] [--runs 7]

It generates the rows (a JSON payload with a nested object and a three-element array, and a
text of 12 words drawn from 5,000 with a skew), builds (release) one segment with a JSON index on
`payload` and a text index on `body`, and one without, and checks that each query counts the same
rows in every engine before timing. It prints median/min ms per engine, the index's speed-up over
the scan, and Tessera-with-index against DuckDB.
"""
import argparse, json, os, random, shutil, statistics, subprocess, sys, tempfile, time

from startree import Bench  # the `tessera bench --stdin` driver, beside this script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COLORS = ["red", "green", "blue", "grey", "black", "white", "pink", "teal"]
WORDS = [f"w{i}" for i in range(5000)]

SCHEMA = {
    "schemaName": "docs",
    "dimensionFieldSpecs": [
        {"name": "id", "dataType": "LONG"},
        {"name": "payload", "dataType": "JSON"},
        {"name": "body", "dataType": "STRING"},
    ],
}


def config(indexed):
    c = {"tableName": "docs", "tableType": "OFFLINE", "segmentsConfig": {}, "tenants": {},
         "tableIndexConfig": {"noDictionaryColumns": ["payload", "body"]}, "metadata": {}}
    if indexed:
        c["fieldConfigList"] = [
            {"name": "payload", "encodingType": "RAW", "indexes": {"json": {}}},
            {"name": "body", "encodingType": "RAW", "indexes": {"text": {}}},
        ]
    return c


# name: (Tessera with the index, Tessera without it, DuckDB)
QUERIES = {
    "json: nested field =": (
        """SELECT COUNT(*) FROM docs WHERE JSON_MATCH(payload, '"$.user.group" = ''g7''')""",
        "SELECT COUNT(*) FROM docs WHERE JSON_EXTRACT_SCALAR(payload, '$.user.group', 'STRING', '') = 'g7'",
        "SELECT COUNT(*) FROM docs WHERE json_extract_string(payload, '$.user.group') = 'g7'",
    ),
    "json: array element =": (
        """SELECT COUNT(*) FROM docs WHERE JSON_MATCH(payload, '"$.items[*].color" = ''teal''')""",
        "SELECT COUNT(*) FROM docs WHERE arrayContainsString(JSON_EXTRACT_SCALAR(payload, '$.items[*].color', 'STRING_ARRAY', '[]'), 'teal')",
        "SELECT COUNT(*) FROM docs WHERE list_contains(json_extract_string(payload, '$.items[*].color'), 'teal')",
    ),
    "json: one element, two fields": (
        """SELECT COUNT(*) FROM docs WHERE JSON_MATCH(payload, '"$.items[*].color" = ''teal'' AND "$.items[*].n" > 90')""",
        None,
        "SELECT COUNT(DISTINCT id) FROM docs, unnest(CAST(json_extract(payload, '$.items') AS JSON[])) AS u(e) "
        "WHERE json_extract_string(e, '$.color') = 'teal' AND CAST(json_extract(e, '$.n') AS INT) > 90",
    ),
    "text: two words AND": (
        "SELECT COUNT(*) FROM docs WHERE TEXT_MATCH(body, 'w17 AND w99')",
        "SELECT COUNT(*) FROM docs WHERE TEXT_MATCH(body, 'w17 AND w99')",
        r"SELECT COUNT(*) FROM docs WHERE regexp_matches(body, '\bw17\b') AND regexp_matches(body, '\bw99\b')",
    ),
    "text: phrase": (
        """SELECT COUNT(*) FROM docs WHERE TEXT_MATCH(body, '"w3 w4"')""",
        """SELECT COUNT(*) FROM docs WHERE TEXT_MATCH(body, '"w3 w4"')""",
        r"SELECT COUNT(*) FROM docs WHERE regexp_matches(body, '\bw3 w4\b')",
    ),
    "text: prefix": (
        "SELECT COUNT(*) FROM docs WHERE TEXT_MATCH(body, 'w123*')",
        "SELECT COUNT(*) FROM docs WHERE TEXT_MATCH(body, 'w123*')",
        r"SELECT COUNT(*) FROM docs WHERE regexp_matches(body, '\bw123')",
    ),
}


def rows(n, seed=7):
    rnd = random.Random(seed)
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(WORDS))]
    for i in range(n):
        items = [{"color": rnd.choice(COLORS), "n": rnd.randrange(100)} for _ in range(3)]
        payload = {"user": {"id": i, "group": f"g{i % 100}"}, "items": items}
        body = " ".join(rnd.choices(WORDS, weights, k=12))
        yield {"id": i, "payload": json.dumps(payload, separators=(",", ":")), "body": body}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"], cwd=ROOT, check=True)
    tessera = os.path.join(ROOT, os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tessera")
    work = tempfile.mkdtemp(prefix="tessera-json-text-")
    try:
        data = os.path.join(work, "docs.json")
        with open(data, "w") as f:
            for r in rows(args.rows):
                f.write(json.dumps(r) + "\n")
        schema = os.path.join(work, "schema.json")
        json.dump(SCHEMA, open(schema, "w"))
        segs = {}
        for name, indexed in [("indexed", True), ("plain", False)]:
            cfg = os.path.join(work, f"{name}.json")
            json.dump(config(indexed), open(cfg, "w"))
            t = time.perf_counter()
            subprocess.run([tessera, "segment", "create", "--schema", schema, "--table-config", cfg,
                            "--input", data, "--out", os.path.join(work, name)], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            took = time.perf_counter() - t
            segs[name] = os.path.join(work, name, "docs_0")
            size = sum(os.path.getsize(os.path.join(d, x)) for d, _, fs in os.walk(segs[name]) for x in fs)
            print(f"build {name}: {took:.1f} s, {size / 1e6:.1f} MB")
        import duckdb
        con = duckdb.connect()
        con.execute("SET threads=1")
        con.execute(f"CREATE TABLE docs AS SELECT id, payload::JSON AS payload, body FROM read_json('{data}', "
                    "columns={'id': 'BIGINT', 'payload': 'VARCHAR', 'body': 'VARCHAR'})")
        idx, plain = Bench(tessera, segs["indexed"], env), Bench(tessera, segs["plain"], env)

        def timed(f):
            t = time.perf_counter(); r = f(); return (time.perf_counter() - t) * 1000, r

        print(f"\n## {args.rows} rows, one thread, {args.runs} alternating runs after a warm-up (ms median / min)")
        print("| query | index | no index | DuckDB | index speed-up | index / DuckDB |")
        print("|---|---|---|---|---|---|")
        for name, (q_idx, q_plain, q_duck) in QUERIES.items():
            engines = {"index": lambda q=q_idx: idx.run(q)}
            if q_plain:
                engines["no index"] = lambda q=q_plain: plain.run(q)
            engines["DuckDB"] = lambda q=q_duck: timed(lambda: con.execute(q).fetchall())
            counts = {}
            for e, run in engines.items():
                _, r = run()
                counts[e] = r[0][0] if isinstance(r, list) else r
            times = {e: [] for e in engines}
            for _ in range(args.runs):
                for e, run in engines.items():
                    times[e].append(run()[0])
            med = {e: statistics.median(v) for e, v in times.items()}
            cell = lambda e: f"{med[e]:.2f} / {min(times[e]):.2f}" if e in med else "—"
            speed = f"{med['no index'] / med['index']:.1f}x" if "no index" in med else "—"
            print(f"| {name} | {cell('index')} | {cell('no index')} | {cell('DuckDB')} | {speed} | "
                  f"{med['index'] / med['DuckDB']:.3f}x |", flush=True)
            print(f"<!-- counts: {counts} -->")
        idx.close(); plain.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
