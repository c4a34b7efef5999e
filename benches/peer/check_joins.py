"""Checks the multi-stage engine's answers against DuckDB's over the eight TPC-H tables: seeded
random joins (inner, outer with ON filters, three-way, composite and non-equi keys), windows over
large partitions, set operations, IN / NOT IN / EXISTS and scalar subqueries, top groups of a
join — the paths the 300-row `.slt` suites cannot reach: exchanges of many blocks, hash joins
of 10^5–10^6 rows, partitions that span blocks. Every query has a total ORDER BY.

Start a cluster holding the tables (`benches/peer/setup.sh 0.1` once), then:
    benches/.venv-peers/bin/python benches/peer/tpch_joins.py --sf 0.1 --hold &
    benches/.venv-peers/bin/python benches/peer/check_joins.py --broker URL --sf 0.1 [--count 200] [--seed 1]
Prints each query whose answer differs (or fails) and exits 1 if any did.
"""
import argparse, json, os, random, sys, time

import duckdb

from tpch_joins import ROOT, duckdb_tables, http, same

ap = argparse.ArgumentParser()
ap.add_argument("--broker", required=True)
ap.add_argument("--sf", default="0.1")
ap.add_argument("--count", type=int, default=200)
ap.add_argument("--seed", type=int, default=1)
args = ap.parse_args()

rng = random.Random(args.seed)
pick = rng.choice


def date():
    return f"'199{2 + rng.randrange(7)}-{1 + rng.randrange(12):02d}-{1 + rng.randrange(28):02d}'"


ATOMS = {
    "l": [lambda: f"l_shipmode = '{pick(['AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB', 'REG AIR'])}'",
          lambda: f"l_returnflag IN ('{pick('ANR')}', '{pick('ANR')}')",
          lambda: f"l_quantity BETWEEN {rng.randrange(40)} AND {10 + rng.randrange(40)}",
          lambda: f"l_discount {pick(['<', '>='])} 0.0{rng.randrange(10)}",
          lambda: f"l_shipdate {pick(['<', '>='])} {date()}",
          lambda: "l_commitdate < l_receiptdate",
          lambda: f"l_comment LIKE '%{pick(['special', 'furiously', 'quick', 'regular'])}%'"],
    "o": [lambda: f"o_orderdate {pick(['<', '>='])} {date()}",
          lambda: f"o_orderpriority = '{pick(['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])}'",
          lambda: f"o_orderstatus {pick(['=', '<>'])} '{pick('FOP')}'",
          lambda: f"o_totalprice > {rng.randrange(400_000)}",
          lambda: f"o_custkey % {2 + rng.randrange(5)} = 0"],
    "c": [lambda: f"c_mktsegment = '{pick(['BUILDING', 'AUTOMOBILE', 'MACHINERY', 'HOUSEHOLD', 'FURNITURE'])}'",
          lambda: f"c_acctbal > {rng.randrange(-999, 9999)}",
          lambda: f"c_nationkey {pick(['<', '>=', '='])} {rng.randrange(25)}"],
    "s": [lambda: f"s_acctbal > {rng.randrange(-999, 9999)}",
          lambda: f"s_nationkey {pick(['<', '>='])} {rng.randrange(25)}"],
}


def filt(t, depth=1):
    if depth == 0 or rng.randrange(2) == 0:
        return pick(ATOMS[t])()
    k = rng.randrange(4)
    if k == 0:
        return f"NOT ({filt(t, depth - 1)})"
    return f"({filt(t, depth - 1)} {'AND' if k < 3 else 'OR'} {filt(t, depth - 1)})"


L_AGGS = ["COUNT(*)", "SUM(l_extendedprice)", "AVG(l_quantity)", "MAX(l_discount)", "MIN(l_shipdate)",
          "COUNT(DISTINCT l_suppkey)"]
O_AGGS = ["COUNT(*)", "SUM(o_totalprice)", "MAX(o_orderdate)", "COUNT(DISTINCT o_custkey)", "MIN(o_totalprice)"]


def aggs(pool):
    return ", ".join(rng.sample(pool, 1 + rng.randrange(3)))


def query():
    k = rng.randrange(20)
    if k >= 12:
        return more(k - 12)
    if k == 0:  # lineitem ⋈ orders, grouped
        keys = ", ".join(rng.sample(["o_orderpriority", "l_shipmode", "o_orderstatus", "l_returnflag"],
                                    1 + rng.randrange(2)))
        return (f"SELECT {keys}, {aggs(L_AGGS + ['MAX(o_totalprice)', 'COUNT(DISTINCT o_custkey)'])} "
                f"FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE {filt('l')} AND {filt('o')} "
                f"GROUP BY {keys} ORDER BY {keys}")
    if k == 1:  # three-way join through nation
        return (f"SELECT n_name, {aggs(O_AGGS)} FROM customer JOIN orders ON c_custkey = o_custkey "
                f"JOIN nation ON c_nationkey = n_nationkey WHERE {filt('c')} AND {filt('o')} "
                f"GROUP BY n_name ORDER BY n_name")
    if k == 2:  # outer join whose ON filters one side: the other side's rows stay
        join = pick(["LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        return (f"SELECT c_mktsegment, COUNT(*), COUNT(o_orderkey), SUM(o_totalprice), COUNT(DISTINCT c_custkey) "
                f"FROM customer {join} orders ON c_custkey = o_custkey AND {filt('o')} "
                f"GROUP BY c_mktsegment ORDER BY c_mktsegment")
    if k == 3:  # customers without (or with) an order in a window: NOT IN / IN over 10^5 keys
        neg = pick(["", "NOT "])
        return (f"SELECT c_mktsegment, COUNT(*), SUM(c_acctbal) FROM customer WHERE {filt('c')} AND c_custkey "
                f"{neg}IN (SELECT o_custkey FROM orders WHERE {filt('o')}) GROUP BY c_mktsegment ORDER BY c_mktsegment")
    if k == 4:  # EXISTS, correlated (TPC-H Q4's shape)
        neg = pick(["", "NOT "])
        return (f"SELECT o_orderpriority, COUNT(*) FROM orders WHERE {filt('o')} AND {neg}EXISTS (SELECT 1 FROM "
                f"lineitem WHERE l_orderkey = o_orderkey AND {filt('l')}) GROUP BY o_orderpriority "
                f"ORDER BY o_orderpriority")
    if k == 5:  # scalar subquery
        return (f"SELECT COUNT(*), SUM(l_quantity) FROM lineitem WHERE {filt('l')} AND l_extendedprice > "
                f"(SELECT AVG(l_extendedprice) FROM lineitem WHERE {filt('l')})")
    if k == 6:  # ranking within each customer's orders (partitions of ~10 rows over 10^5 rows)
        fn = pick(["RANK()", "DENSE_RANK()", "ROW_NUMBER()"])
        n = 1 + rng.randrange(3)
        return (f"SELECT o_custkey, o_orderkey, o_totalprice, r FROM (SELECT o_custkey, o_orderkey, o_totalprice, "
                f"{fn} OVER (PARTITION BY o_custkey ORDER BY o_totalprice DESC, o_orderkey) AS r FROM orders "
                f"WHERE {filt('o')}) t WHERE r <= {n} ORDER BY o_custkey, o_orderkey LIMIT {1 + rng.randrange(200)}")
    if k == 7:  # running and sliding aggregates within orders' lines, and over a large partition
        win = pick(["SUM(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber)",
                    "AVG(l_extendedprice) OVER (PARTITION BY l_orderkey)",
                    "LAG(l_shipdate) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber)",
                    "COUNT(*) OVER (PARTITION BY l_shipmode)",
                    "MAX(l_extendedprice) OVER (PARTITION BY l_returnflag, l_linestatus)",
                    "SUM(l_quantity) OVER (PARTITION BY l_shipmode ORDER BY l_orderkey, l_linenumber "
                    "ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)"])
        lo = rng.randrange(600_000)
        return (f"SELECT l_orderkey, l_linenumber, {win} FROM lineitem WHERE {filt('l')} "
                f"ORDER BY l_orderkey, l_linenumber LIMIT {1 + rng.randrange(100)} OFFSET {lo % 5000}")
    if k == 8:  # set operations over keys, counted
        op = pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
        return (f"SELECT COUNT(*), MIN(k), MAX(k) FROM (SELECT o_custkey AS k FROM orders WHERE {filt('o')} {op} "
                f"SELECT c_custkey AS k FROM customer WHERE {filt('c')}) t")
    if k == 9:  # composite key join, top groups of the join
        return (f"SELECT ps_suppkey, COUNT(*), SUM(l_quantity * ps_supplycost) AS v FROM lineitem JOIN partsupp "
                f"ON l_partkey = ps_partkey AND l_suppkey = ps_suppkey WHERE {filt('l')} GROUP BY ps_suppkey "
                f"ORDER BY v DESC, ps_suppkey LIMIT {1 + rng.randrange(20)}")
    if k == 10:  # non-equi condition in ON; selection ordered past the join
        return (f"SELECT l_orderkey, l_linenumber, o_orderdate, l_shipdate FROM lineitem JOIN orders "
                f"ON l_orderkey = o_orderkey AND l_shipdate {pick(['<', '>'])} o_orderdate WHERE {filt('o')} "
                f"ORDER BY o_orderdate DESC, l_orderkey, l_linenumber LIMIT {1 + rng.randrange(50)} "
                f"OFFSET {rng.randrange(100)}")
    # lineitem ⋈ supplier ⋈ nation, top customers' nations by revenue
    return (f"SELECT n_name, s_nationkey, SUM(l_extendedprice * (1 - l_discount)) AS rev, COUNT(*) FROM lineitem "
            f"JOIN supplier ON l_suppkey = s_suppkey JOIN nation ON s_nationkey = n_nationkey "
            f"WHERE {filt('l')} AND {filt('s')} GROUP BY n_name, s_nationkey ORDER BY rev DESC, n_name "
            f"LIMIT {1 + rng.randrange(25)}")


def more(k):
    """Shapes over joined rows: windows, HAVING, DISTINCT, anti joins written as LEFT JOIN … IS
    NULL, CASE keys, UNION ALL of joins, subqueries holding joins, aggregates of aggregates."""
    if k == 0:
        fn = pick(["SUM(l_extendedprice) OVER (PARTITION BY o_custkey)",
                   "RANK() OVER (PARTITION BY o_orderpriority ORDER BY o_totalprice DESC, l_orderkey, l_linenumber)",
                   "LAG(l_quantity) OVER (PARTITION BY o_orderkey ORDER BY l_linenumber)",
                   "COUNT(*) OVER (PARTITION BY l_shipmode, o_orderstatus)"])
        return (f"SELECT l_orderkey, l_linenumber, {fn} FROM lineitem JOIN orders ON l_orderkey = o_orderkey "
                f"WHERE {filt('l')} AND {filt('o')} ORDER BY l_orderkey, l_linenumber LIMIT {1 + rng.randrange(80)}")
    if k == 1:
        return (f"SELECT o_custkey, COUNT(*), SUM(l_quantity) FROM orders JOIN lineitem ON o_orderkey = l_orderkey "
                f"WHERE {filt('o')} GROUP BY o_custkey HAVING COUNT(*) > {10 + rng.randrange(40)} "
                f"ORDER BY SUM(l_quantity) DESC, o_custkey LIMIT {1 + rng.randrange(30)}")
    if k == 2:
        return (f"SELECT DISTINCT c_mktsegment, o_orderpriority FROM customer JOIN orders ON c_custkey = o_custkey "
                f"WHERE {filt('c')} AND {filt('o')} ORDER BY c_mktsegment, o_orderpriority")
    if k == 3:
        return (f"SELECT c_nationkey, COUNT(*) FROM customer LEFT JOIN orders ON c_custkey = o_custkey AND "
                f"{filt('o')} WHERE o_orderkey IS NULL GROUP BY c_nationkey ORDER BY c_nationkey")
    if k == 4:
        cut = rng.randrange(50_000, 400_000)
        return (f"SELECT CASE WHEN o_totalprice > {cut} THEN 'high' ELSE 'low' END AS band, l_returnflag, COUNT(*), "
                f"AVG(l_discount) FROM orders JOIN lineitem ON o_orderkey = l_orderkey WHERE {filt('l')} "
                f"GROUP BY CASE WHEN o_totalprice > {cut} THEN 'high' ELSE 'low' END, l_returnflag "
                f"ORDER BY band, l_returnflag")
    if k == 5:
        return (f"SELECT k, COUNT(*), SUM(v) FROM (SELECT o_orderstatus AS k, l_quantity AS v FROM orders JOIN lineitem "
                f"ON o_orderkey = l_orderkey WHERE {filt('o')} UNION ALL SELECT c_mktsegment AS k, c_acctbal AS v FROM "
                f"customer WHERE {filt('c')}) t GROUP BY k ORDER BY k")
    if k == 6:
        return (f"SELECT s_nationkey, COUNT(*) FROM supplier WHERE {filt('s')} AND s_suppkey IN (SELECT l_suppkey FROM "
                f"lineitem JOIN orders ON l_orderkey = o_orderkey WHERE {filt('l')} AND {filt('o')}) "
                f"GROUP BY s_nationkey ORDER BY s_nationkey")
    # Aggregates of aggregates: orders per customer, then customers per order count.
    return (f"SELECT n, COUNT(*) AS customers, MAX(total) FROM (SELECT o_custkey, COUNT(*) AS n, SUM(o_totalprice) "
            f"AS total FROM orders WHERE {filt('o')} GROUP BY o_custkey) t GROUP BY n ORDER BY n")


data = os.path.join(ROOT, "benches", "data", f"sf{args.sf}")
con = duckdb.connect()
duckdb_tables(con, data)
con.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")

failures, started = 0, time.time()
for i in range(args.count):
    q = query()
    want = [list(r) for r in con.execute(q).fetchall()]
    # MIN/MAX of a STRING column need Pinot's rewrite to MINSTRING/MAXSTRING, as in Pinot; at
    # sf 1 joins and windows hold more than Pinot's default of 2^20 rows.
    options = ("useMultistageEngine=true;enableNullHandling=true;autoRewriteAggregationType=true;timeoutMs=600000;"
               "maxRowsInJoin=100000000;maxRowsInWindow=100000000")
    status, body = http("POST", f"{args.broker}/query/sql", json.dumps({"sql": q, "queryOptions": options}).encode())
    if status != 200 or not isinstance(body, dict) or body.get("exceptions"):
        failures += 1
        print(f"FAILED: {q}\n  {str(body if status != 200 else body.get('exceptions'))[:400]}", flush=True)
        continue
    got = body["resultTable"]["rows"]
    if not same(got, want):
        failures += 1
        print(f"DIFFERS: {q}\n  tessera: {str(got)[:400]}\n  duckdb:  {str(want)[:400]}", flush=True)
print(f"{args.count} queries (seed {args.seed}, sf {args.sf}) in {time.time() - started:.0f} s: {failures} differ")
sys.exit(1 if failures else 0)
