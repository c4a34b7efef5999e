"""Checks Tessera's answers against DuckDB's at scale: seeded random queries over TPC-H lineitem
(the peer script's segment: sorted l_orderkey, inverted l_shipmode/l_returnflag/l_linestatus,
range l_partkey/l_shipdate), on both engines, compared row by row with DuckDB over the same
Parquet file. The `.slt` suites check semantics on 300 rows; this checks the paths only
millions of rows take — parallel parts, dense and folded group-bys, top-k over 10k and 200k
groups, range-index buckets, sorted-column ranges, large dictionaries.

    benches/.venv-peers/bin/python benches/peer/check_answers.py --sf 1 [--count 300] [--seed 1]
        [--segments N] [--seg-root DIR] [--skip-build]

Builds the segment(s) lineitem_<i> under --seg-root unless --skip-build says they are there.
"""
import argparse, datetime, json, math, os, random, shutil, subprocess, sys, tempfile
import duckdb

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER = os.path.join(ROOT, "benches", "peer")

ap = argparse.ArgumentParser()
ap.add_argument("--sf", default="1")
ap.add_argument("--count", type=int, default=300)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--seg-root", default=None)
ap.add_argument("--skip-build", action="store_true")
ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "tessera"))
ap.add_argument("--segments", type=int, default=1,
                help="build the table as this many segments (row ranges of lineitem.csv), so segment "
                     "results are merged as a server merges them")
args = ap.parse_args()

data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
parquet = os.path.join(data, "lineitem_dbl.parquet")
seg_root = args.seg_root or tempfile.mkdtemp(prefix="check_seg")
os.makedirs(seg_root, exist_ok=True)
segments = [os.path.join(seg_root, f"lineitem_{i}") for i in range(args.segments)]


def build(inputs):
    """One segment per input file, named lineitem_<i> under seg_root."""
    for i, path in enumerate(inputs):
        out = tempfile.mkdtemp(prefix="check_build")
        subprocess.run([args.bin, "segment", "create", "--schema", os.path.join(PEER, "lineitem_schema.json"),
                        "--table-config", os.path.join(PEER, "lineitem_offline_table_config.json"),
                        "--input", path, "--out", out], check=True, stdout=subprocess.DEVNULL)
        built = os.path.join(out, os.listdir(out)[0])
        shutil.rmtree(segments[i], ignore_errors=True)
        os.rename(built, segments[i])
        shutil.rmtree(out)


if not args.skip_build:
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "tessera-api", "--bin", "tessera"],
                   cwd=ROOT, check=True)
    if args.segments == 1:
        build([parquet])
    else:
        # Row ranges of the CSV file, each with the header.
        csv_path = os.path.join(data, "lineitem.csv")
        parts_dir = tempfile.mkdtemp(prefix="check_parts")
        with open(csv_path) as f:
            header = f.readline()
            lines = f.readlines()
        step = -(-len(lines) // args.segments)
        parts = []
        for i in range(args.segments):
            part = os.path.join(parts_dir, f"part-{i}.csv")
            with open(part, "w") as out:
                out.write(header)
                out.writelines(lines[i * step:(i + 1) * step])
            parts.append(part)
        del lines
        build(parts)
        shutil.rmtree(parts_dir)

con = duckdb.connect()
# As the segment holds them: l_shipdate epoch millis, the other dates as text.
con.execute(f"""CREATE TABLE lineitem AS SELECT * REPLACE (epoch_ms(l_shipdate::TIMESTAMP) AS l_shipdate,
  l_commitdate::VARCHAR AS l_commitdate, l_receiptdate::VARCHAR AS l_receiptdate) FROM '{parquet}'""")
con.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")

rng = random.Random(args.seed)
pick = rng.choice
DAY = 86_400_000
EPOCH_1992 = 694_224_000_000


def atom():
    k = rng.randrange(12)
    if k == 0:
        return f"l_shipmode = '{pick(['AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB', 'REG AIR'])}'"
    if k == 1:
        return f"l_returnflag IN ('{pick('ANR')}', '{pick('ANR')}')"
    if k == 2:
        return f"l_linestatus <> '{pick('OF')}'"
    if k == 3:
        a = rng.randrange(50)
        return f"l_quantity BETWEEN {a} AND {a + rng.randrange(15)}"
    if k == 4:
        return f"l_discount {pick(['<', '>=', '='])} 0.0{rng.randrange(10)}"
    if k == 5:
        a = rng.randrange(200_000)
        return f"l_partkey BETWEEN {a} AND {a + rng.choice([10, 1000, 50_000])}"
    if k == 6:
        a = rng.randrange(6_000_000)
        if rng.randrange(2):
            return f"l_orderkey BETWEEN {a} AND {a + rng.randrange(500_000)}"
        return f"l_orderkey {pick(['<', '>='])} {a}"
    if k == 7:
        a = EPOCH_1992 + rng.randrange(2500) * DAY
        return f"l_shipdate {pick(['<', '>='])} {a}"
    if k == 8:
        return f"l_comment LIKE '%{pick(['special', 'furiously', 'quick', 'regular dep'])}%'"
    if k == 9:
        return f"l_extendedprice > {rng.randrange(100_000)}"
    if k == 10:
        return f"l_suppkey = {1 + rng.randrange(10_000)}"
    return f"l_commitdate < '199{2 + rng.randrange(7)}-0{1 + rng.randrange(9)}-15'"


def filt(depth):
    if depth == 0 or rng.randrange(3) == 0:
        return atom()
    k = rng.randrange(5)
    if k == 0:
        return f"NOT ({filt(depth - 1)})"
    return f"({filt(depth - 1)} {'AND' if k < 3 else 'OR'} {filt(depth - 1)})"


AGGS = ["COUNT(*)", "SUM(l_extendedprice)", "SUM(l_quantity)", "AVG(l_discount)", "MIN(l_extendedprice)",
        "MAX(l_shipdate)", "MAX(l_partkey)", "COUNT(DISTINCT l_shipmode)"]


def query():
    w = "" if rng.randrange(5) == 0 else f" WHERE {filt(2)}"
    k = rng.randrange(5)
    aggs = ", ".join(rng.sample(AGGS, 1 + rng.randrange(3)))
    if k == 0:
        return f"SELECT {aggs} FROM lineitem{w}", False
    if k == 1:
        keys = ", ".join(rng.sample(["l_returnflag", "l_linestatus", "l_shipmode", "l_shipinstruct"],
                                    1 + rng.randrange(2)))
        return f"SELECT {keys}, {aggs} FROM lineitem{w} GROUP BY {keys} ORDER BY {keys} LIMIT 1000", True
    if k == 2:
        key = pick(["l_suppkey", "l_partkey", "l_orderkey"])
        by = pick(["COUNT(*)", "SUM(l_quantity)", "MAX(l_extendedprice)"])
        return (f"SELECT {key}, {by} FROM lineitem{w} GROUP BY {key} ORDER BY {by} {pick(['DESC', 'ASC'])}, "
                f"{key} LIMIT {1 + rng.randrange(20)}"), True
    if k == 3:
        by = pick(["l_extendedprice", "l_quantity", "l_shipdate", "l_partkey"])
        return (f"SELECT l_orderkey, l_linenumber, {by} FROM lineitem{w} ORDER BY {by} {pick(['DESC', 'ASC'])}, "
                f"l_orderkey, l_linenumber LIMIT {1 + rng.randrange(20)}"), True
    return (f"SELECT l_orderkey, l_linenumber, l_shipmode FROM lineitem{w} ORDER BY l_orderkey, l_linenumber "
            f"LIMIT {1 + rng.randrange(30)} OFFSET {rng.randrange(50)}"), True


def same(a, b):
    # Tessera writes a TIMESTAMP as Pinot does ('1998-12-01 00:00:00.0'); DuckDB's is epoch millis.
    if isinstance(a, str) and isinstance(b, int) and len(a) >= 19 and a[4] == "-" and a[10] == " ":
        a = int(datetime.datetime.strptime(a[:19], "%Y-%m-%d %H:%M:%S")
                .replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return a == b or math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9)
    return str(a) == str(b)


def rows_equal(x, y, ordered):
    if not ordered:
        x, y = sorted(x, key=str), sorted(y, key=str)
    return len(x) == len(y) and all(len(r) == len(s) and all(same(a, b) for a, b in zip(r, s))
                                    for r, s in zip(x, y))


queries = [query() for _ in range(args.count)]
expected = [[list(r) for r in con.execute(q).fetchall()] for q, _ in queries]
failures = 0
# Group-bys over l_orderkey (1.5M keys) and l_partkey (200k) pass Pinot's default limit of
# 100,000 groups, which stops adding groups (and says so): lifted so the answers are exact. Null
# handling on: an aggregate over no rows is then NULL, as in SQL, not Pinot's default sentinel
# (SUM 0, MIN Infinity); the data hold no nulls, so nothing else changes.
for engine, options in [("v1", ""), ("v2", "useMultistageEngine=true")]:
    cmd = [args.bin, "bench", *[a for seg in segments for a in ("--segment", seg)], "--stdin", "--query-options",
           ";".join(o for o in ["numGroupsLimit=10000000;enableNullHandling=true", options] if o)]
    out = subprocess.run(cmd, input="\n".join(q for q, _ in queries) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    for (q, ordered), want, line in zip(queries, expected, out):
        got = json.loads(line)
        if got.get("error") or not rows_equal(got["rows"], want, ordered):
            failures += 1
            print(f"{engine} DIFFERS: {q}\n  tessera: {str(got.get('error') or got['rows'])[:400]}\n"
                  f"  duckdb:  {str(want)[:400]}")
    print(f"{engine}: {len(out)} answers for {len(queries)} queries")
print(f"{len(queries)} queries x 2 engines (seed {args.seed}): {failures} differ")
sys.exit(1 if failures else 0)
