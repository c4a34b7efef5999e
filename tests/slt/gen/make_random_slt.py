"""Writes tests/slt/random.slt: seeded random queries over `orders`, each answered by DuckDB —
standard SQL semantics, which are Pinot's with enableNullHandling=true; without it (half the
queries) over a view holding Pinot's stored defaults for nulls — half of them on the
multi-stage engine; and tests/slt/v2_random.slt: multi-stage queries over `orders` and
`customers` (joins of every kind, windows, subqueries, set operations). The Rust differential tests compare Tessera with
itself (engines, layouts, a cluster); this file compares it with an engine that shares none of
its code: filters under three-valued logic, NOT, IN, LIKE, ranges and expressions, grouped
aggregates, selections with OFFSET/LIMIT. Run with the peer venv:
    benches/.venv-peers/bin/python tests/slt/gen/make_random_slt.py
"""
import os, random, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import duckdb
from make_slt import fmt

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
OUT = os.path.join(HERE, "..", "random.slt")
COUNT = 500
V2_COUNT = 300
V2_OUT = os.path.join(HERE, "..", "v2_random.slt")
SEED = 20261127
# Exploring: make_random_slt.py COUNT SEED OUT writes another sample elsewhere.
if len(sys.argv) > 3:
    COUNT, SEED, OUT = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    V2_COUNT, V2_OUT = COUNT, OUT.replace(".slt", "_v2.slt")

con = duckdb.connect()
# ship_ts stays epoch millis, as the Pinot queries compare it with numbers.
con.execute(f"""CREATE TABLE orders AS SELECT order_id::BIGINT order_id, customer, status, region, amount::DOUBLE amount,
  quantity::INT quantity, discount::DOUBLE discount, ship_ts::BIGINT ship_ts, priority::BOOLEAN priority,
  note, score::INT score
  FROM read_csv('{DATA}/orders/part-*.csv', header=true, all_varchar=true, nullstr='')""")


rng = random.Random(SEED)
pick = rng.choice


def atom():
    k = rng.randrange(22)
    if k >= 16:
        return atom_more(k - 16)
    if k == 0:
        return f"status = '{pick(['OPEN', 'SHIPPED', 'CANCELLED', 'RETURNED', 'LOST'])}'"
    if k == 1:
        return f"region <> '{pick(['east', 'west', 'north', 'south', 'central'])}'"
    if k == 2:
        items = ", ".join(f"'cust_{rng.randrange(32):02d}'" for _ in range(1 + rng.randrange(4)))
        return f"customer {pick(['', 'NOT '])}IN ({items})"
    if k == 3:
        return f"quantity {pick(['<', '<=', '>', '>=', '=', '<>'])} {rng.randrange(52)}"
    if k == 4:
        a = rng.randrange(50)
        return f"quantity BETWEEN {a} AND {a + rng.randrange(20)}"
    if k == 5:
        return f"amount {pick(['<', '>='])} {rng.randrange(1000)}.{rng.randrange(100):02d}"
    if k == 6:
        return f"order_id {pick(['<', '>=', '='])} {rng.randrange(310)}"
    if k == 7:
        return f"discount {pick(['=', '<', '>='])} 0.0{rng.randrange(6)}"
    if k == 8:
        return f"priority = {pick(['true', 'false'])}"
    if k == 9:
        return f"note LIKE '{pick(['b%', '%t%', 'gift', '%''s', '_ush'])}'"
    if k == 10:
        return f"score IS {pick(['', 'NOT '])}NULL"
    if k == 11:
        return f"score {pick(['<', '>=', '=', '<>'])} {rng.randrange(100)}"
    if k == 12:
        return f"note {pick(['=', '<>'])} '{pick(['rush', 'gift', 'fragile'])}'"
    if k == 13:
        return f"quantity + {rng.randrange(10)} > {rng.randrange(60)}"
    if k == 14:
        return f"score BETWEEN {rng.randrange(50)} AND {50 + rng.randrange(50)}"
    return f"ship_ts {pick(['<', '>='])} {1_680_000_000_000 + rng.randrange(60_000_000) * 1000}"


def atom_more(k):
    """Ranges over dictionary text, regular expressions, IN lists of numbers, NOT LIKE,
    predicates over functions of a nullable column."""
    if k == 0:
        return f"customer {pick(['<', '>=', '<=', '>'])} 'cust_{rng.randrange(32):02d}'"
    if k == 1:
        a, b = sorted(rng.sample("ABCDEFGHIJKLMNOPQRSTUVWXYZ", 2))
        return f"status BETWEEN '{a}' AND '{b}'"
    if k == 2:
        return f"REGEXP_LIKE(note, '{pick(['^(b|g)', 'sh$', 'r.s', '^[a-f]'])}')"
    if k == 3:
        items = ", ".join(str(rng.randrange(52)) for _ in range(1 + rng.randrange(5)))
        return f"quantity {pick(['', 'NOT '])}IN ({items})"
    if k == 4:
        return f"note NOT LIKE '{pick(['%t%', 'r%', '%e'])}'"
    return f"ABS(score - 50) {pick(['<', '>='])} {rng.randrange(50)}"


def filt(depth):
    if depth == 0 or rng.randrange(3) == 0:
        return atom()
    k = rng.randrange(5)
    if k == 0:
        return f"NOT ({filt(depth - 1)})"
    op = "AND" if k < 3 else "OR"
    return f"({filt(depth - 1)} {op} {filt(depth - 1)})"


DIMS = ["customer", "status", "region", "priority", "note"]
AGGS = ["COUNT(*)", "COUNT(score)", "SUM(quantity)", "SUM(score)", "MIN(amount)", "MAX(amount)",
        "MIN(score)", "MAX(score)", "AVG(quantity)", "AVG(score)", "MAX(order_id)", "SUM(discount)"]
COLS = ["customer", "status", "region", "priority", "note", "amount", "quantity", "score"]


EXPRS = [("quantity * 2", None), ("amount + discount", None), ("quantity - score", None),
         ("UPPER(note)", None), ("LOWER(status)", None), ("LENGTH(customer)", None),
         ("CASE WHEN score IS NULL THEN -1 ELSE score END", None), ("COALESCE(score, 0)", None),
         ("ABS(quantity - 25)", None), ("CONCAT(region, status, '-')", "concat_ws('-', region, status)"),
         ("quantity % 7", None), ("amount / quantity", None), ("FLOOR(amount)", None),
         ("REVERSE(customer)", None), ("REPLACE(status, 'E', 'x')", None), ("SQRT(quantity)", None),
         ("POWER(quantity, 2)", None), ("EXP(discount)", None), ("LN(amount + 1)", None),
         ("MOD(quantity, 7)", "quantity % 7"), ("CEIL(amount)", None), ("SIGN(quantity - 25)", None),
         ("GREATEST(quantity, 20)", None), ("LEAST(amount, 500.0)", None),
         ("CASE WHEN quantity < 10 THEN 'few' WHEN quantity < 30 THEN 'some' ELSE 'many' END", None),
         ("LENGTH(note)", None), ("STARTSWITH(customer, 'cust_1')", "starts_with(customer, 'cust_1')"),
         ("YEAR(ship_ts)", "year(make_timestamp(ship_ts * 1000))"),
         ("MONTH(ship_ts)", "month(make_timestamp(ship_ts * 1000))"),
         ("HOUR(ship_ts)", "hour(make_timestamp(ship_ts * 1000))"),
         ("DAYOFWEEK(ship_ts)", "isodow(make_timestamp(ship_ts * 1000))"),
         ("toEpochDays(ship_ts)", "ship_ts // 86400000"),
         ("ToDateTime(ship_ts, 'yyyy-MM-dd HH')", "strftime(make_timestamp(ship_ts * 1000), '%Y-%m-%d %H')")]


def query(nulls):
    w = f" WHERE {filt(2)}"
    k = rng.randrange(6)
    if k == 0 and not nulls:
        # Over no rows an aggregate is NULL in SQL but a sentinel in Pinot without null handling.
        return f"SELECT COUNT(*), COUNT(score) FROM orders{w}", "rowsort"
    if k == 3:
        keys = ", ".join(rng.sample(DIMS, 1 + rng.randrange(2)))
        n = rng.randrange(6)
        aggs = ", ".join(rng.sample(AGGS, 1 + rng.randrange(2)))
        return (f"SELECT {keys}, {aggs} FROM orders{w} GROUP BY {keys} HAVING COUNT(*) > {n} "
                f"ORDER BY {keys} LIMIT 1000", "nosort")
    if k == 4:
        e, d = pick(EXPRS)
        sql = f"SELECT order_id, {e} FROM orders{w} ORDER BY order_id LIMIT {1 + rng.randrange(30)}"
        return sql, "nosort", sql.replace(e, d) if d else sql
    if k == 5 and rng.randrange(2):
        keys = ", ".join(rng.sample(DIMS, 1 + rng.randrange(2)))
        return f"SELECT DISTINCT {keys} FROM orders{w} ORDER BY {keys} LIMIT 1000", "nosort"
    if k == 5 and rng.randrange(2):
        unit = pick(["DAY", "MONTH", "YEAR"])
        sql = (f"SELECT DATETRUNC('{unit}', ship_ts), COUNT(*), COUNT(DISTINCT region) FROM orders{w} "
               f"GROUP BY DATETRUNC('{unit}', ship_ts) ORDER BY 1 LIMIT 1000")
        d = f"epoch_ms(date_trunc('{unit.lower()}', make_timestamp(ship_ts * 1000)))"
        return sql, "nosort", sql.replace(f"DATETRUNC('{unit}', ship_ts)", d)
    if k == 5:
        by = pick(["score", "note", "amount", "quantity"])
        return (f"SELECT order_id, {by} FROM orders{w} ORDER BY {by} {pick(['ASC', 'DESC'])}, order_id "
                f"LIMIT {1 + rng.randrange(30)}", "nosort")
    if k == 0:
        return f"SELECT {', '.join(rng.sample(AGGS, 1 + rng.randrange(3)))} FROM orders{w}", "rowsort"
    if k == 1:
        keys = ", ".join(rng.sample(DIMS, 1 + rng.randrange(2)))
        aggs = ", ".join(rng.sample(AGGS, 1 + rng.randrange(3)))
        return (f"SELECT {keys}, {aggs} FROM orders{w} GROUP BY {keys} ORDER BY {keys} LIMIT 1000",
                "nosort")
    cols = ", ".join(rng.sample(COLS, 1 + rng.randrange(3)))
    offset = f" OFFSET {rng.randrange(20)}" if rng.randrange(3) == 0 else ""
    return (f"SELECT order_id, {cols} FROM orders{w} ORDER BY order_id {pick(['ASC', 'DESC'])} "
            f"LIMIT {1 + rng.randrange(30)}{offset}", "nosort")


# Pinot without null handling reads a null's stored default (INT metric 0, STRING 'null'),
# but its IS [NOT] NULL filters still read the null vector.
con.execute("""CREATE VIEW orders_nn AS SELECT * REPLACE (coalesce(note, 'null') AS note,
  coalesce(score, 0) AS score), note IS NULL AS note_isnull, score IS NULL AS score_isnull FROM orders""")


def duck(sql, nulls):
    sql = sql.replace("REGEXP_LIKE(", "regexp_matches(")
    if nulls:
        return sql
    # Only a filter reads the null vector; an expression reads the stored default.
    head, _, where = sql.partition(" WHERE ")
    for c in ("score", "note"):
        where = where.replace(f"{c} IS NOT NULL", f"NOT {c}_isnull").replace(f"{c} IS NULL", f"{c}_isnull")
    return (head + " WHERE " + where if where else head).replace("FROM orders", "FROM orders_nn")


con.execute(f"""CREATE TABLE customers AS SELECT customer, name, tier, country, credit::DOUBLE credit, since_year::INT since_year
  FROM read_csv('{DATA}/customers/part-*.csv', header=true, all_varchar=true)""")

# Pinot orders NULL as the largest value: last ascending, first descending.
con.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'")


def customer_filter():
    k = rng.randrange(4)
    if k == 0:
        return f"c.tier = '{pick(['gold', 'silver', 'bronze'])}'"
    if k == 1:
        return f"c.country IN ('{pick(['JP', 'DE'])}', '{pick(['US', 'FR'])}')"
    if k == 2:
        return f"c.credit > {rng.randrange(5000)}"
    return f"c.since_year >= {2010 + rng.randrange(15)}"


def qualify(sql):
    # The orders columns of a filter made for `orders` alone, named through `o`.
    for c in ["order_id", "customer", "status", "region", "amount", "quantity", "discount",
              "ship_ts", "priority", "note", "score"]:
        sql = re.sub(rf"(?<![\w.']){c}\b", f"o.{c}", sql)
    return sql


WINDOWS = ["ROW_NUMBER() OVER (PARTITION BY {p} ORDER BY {o}, order_id)",
           "RANK() OVER (PARTITION BY {p} ORDER BY {o})",
           "DENSE_RANK() OVER (PARTITION BY {p} ORDER BY {o})",
           "SUM(quantity) OVER (PARTITION BY {p})",
           "COUNT(*) OVER (PARTITION BY {p})",
           "MAX(amount) OVER (PARTITION BY {p})",
           "AVG(quantity) OVER (PARTITION BY {p})",
           "SUM(quantity) OVER (PARTITION BY {p} ORDER BY order_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
           "SUM(quantity) OVER (PARTITION BY {p} ORDER BY order_id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)",
           "MIN(amount) OVER (PARTITION BY {p} ORDER BY order_id)",
           "LAG(amount) OVER (PARTITION BY {p} ORDER BY order_id)",
           "LEAD(quantity, 2) OVER (PARTITION BY {p} ORDER BY order_id)",
           "FIRST_VALUE(amount) OVER (PARTITION BY {p} ORDER BY order_id)",
           "COUNT(score) OVER (PARTITION BY {p})",
           "SUM(amount) OVER (PARTITION BY {p} ORDER BY quantity)",
           "COUNT(*) OVER (PARTITION BY {p} ORDER BY quantity RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)",
           "NTILE(3) OVER (PARTITION BY {p} ORDER BY order_id)",
           "LAST_VALUE(quantity) OVER (PARTITION BY {p} ORDER BY order_id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
           "MAX(score) OVER (PARTITION BY {p} ORDER BY order_id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)",
           "ROW_NUMBER() OVER (ORDER BY {o} DESC, order_id)",
           "SUM(quantity) OVER ()"]


def v2_query():
    """A multi-stage query and its DuckDB form (None: the same text)."""
    w = filt(1)
    k = rng.randrange(16)
    if k >= 7:
        return v2_shape(k - 7, w)
    if k in (0, 1):
        join = pick(["JOIN", "LEFT JOIN"])
        okeys = rng.sample(["region", "status", "priority"], 1 + rng.randrange(2))
        ckeys = rng.sample(["tier", "country"], rng.randrange(2))
        keys = ", ".join([f"o.{x}" for x in okeys] + [f"c.{x}" for x in ckeys])
        aggs = ", ".join(rng.sample(["COUNT(*)", "SUM(o.quantity)", "MAX(o.amount)", "COUNT(c.credit)",
                                     "MIN(c.since_year)", "AVG(o.quantity)", "SUM(c.credit)"],
                                    1 + rng.randrange(3)))
        cond = f" AND {customer_filter()}" if join == "JOIN" and rng.randrange(2) else ""
        return (f"SELECT {keys}, {aggs} FROM orders o {join} customers c ON o.customer = c.customer "
                f"WHERE {qualify(w)}{cond} GROUP BY {keys} ORDER BY {keys} LIMIT 1000"), None, "nosort"
    if k == 2:
        return (f"SELECT o.order_id, o.customer, c.tier, c.credit FROM orders o LEFT JOIN customers c "
                f"ON o.customer = c.customer WHERE {qualify(w)} ORDER BY o.order_id LIMIT {1 + rng.randrange(40)}"), None, "nosort"
    if k in (3, 4):
        win = pick(WINDOWS).format(p=pick(["region", "status", "customer", "priority"]),
                                   o=pick(["amount", "quantity", "order_id"]))
        return (f"SELECT order_id, {win} FROM orders WHERE {w} ORDER BY order_id LIMIT {1 + rng.randrange(60)}"), None, "nosort"
    if k == 5:
        q = customer_filter().replace("c.", "")
        neg = pick(["", "NOT "])
        return (f"SELECT region, COUNT(*), SUM(quantity) FROM orders WHERE {w} AND customer {neg}IN "
                f"(SELECT customer FROM customers WHERE {q}) GROUP BY region ORDER BY region"), None, "nosort"
    op = pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
    col = pick(["region", "status", "customer"])
    return (f"SELECT {col} FROM orders WHERE {w} {op} SELECT {col} FROM orders WHERE {filt(1)}"), None, "rowsort"


def outer_join():
    """Orders and customers under an outer join whose ON holds a filter of one side (it must keep
    the other side's rows), grouped by a key of the side that is kept."""
    join = pick(["LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
    on = pick([f" AND {qualify(filt(1))}", f" AND {customer_filter()}", ""])
    if join == "RIGHT JOIN":
        keys = pick(["c.customer, c.tier", "c.country", "c.tier"])
    elif join == "LEFT JOIN":
        keys = pick(["o.region", "o.status, o.priority", "o.customer"])
    else:
        keys = pick(["o.region, c.tier", "c.country, o.status", "o.customer, c.customer"])
    aggs = ", ".join(rng.sample(["COUNT(*)", "COUNT(o.order_id)", "SUM(o.quantity)", "COUNT(c.customer)",
                                 "MAX(c.credit)", "MIN(o.amount)", "COUNT(DISTINCT o.region)"],
                                1 + rng.randrange(3)))
    return (f"SELECT {keys}, {aggs} FROM orders o {join} customers c ON o.customer = c.customer{on} "
            f"GROUP BY {keys} ORDER BY {keys} LIMIT 1000")


def v2_shape(k, w):
    """Multi-stage shapes beyond one join key and one window: outer joins with ON filters, joins
    of aggregated derived tables and CTEs, self joins with a non-equi condition, scalar and
    aggregated IN subqueries, EXISTS, windows over groups, set operations under ORDER BY/LIMIT."""
    if k == 0:
        return outer_join(), None, "nosort"
    if k == 1:
        agg = pick(["AVG(amount)", "MAX(quantity) - 10", "MIN(amount) * 3"])
        col = "amount" if "amount" in agg else "quantity"
        return (f"SELECT order_id, {col} FROM orders WHERE {col} > (SELECT {agg} FROM orders WHERE {w}) "
                f"ORDER BY order_id LIMIT {1 + rng.randrange(40)}"), None, "nosort"
    if k == 2:
        n = rng.randrange(12)
        return (f"WITH t AS (SELECT customer, COUNT(*) AS n, SUM(amount) AS s FROM orders WHERE {w} "
                f"GROUP BY customer) SELECT t.customer, t.n, t.s, c.tier FROM t "
                f"{pick(['JOIN', 'LEFT JOIN'])} customers c ON t.customer = c.customer WHERE t.n > {n} "
                f"ORDER BY t.customer"), None, "nosort"
    if k == 3:
        cmp = pick(["<", "<=", "<>"])
        on2 = pick(["", " AND a.region = b.region"])
        return (f"SELECT a.order_id, b.order_id FROM orders a JOIN orders b ON a.customer = b.customer"
                f"{on2} AND a.order_id {cmp} b.order_id WHERE {qualify(w).replace('o.', 'a.')} "
                f"AND b.quantity > {rng.randrange(50)} ORDER BY 1, 2 LIMIT {1 + rng.randrange(60)}"), None, "nosort"
    if k == 4:
        n = rng.randrange(15)
        neg = pick(["", "NOT "])
        return (f"SELECT status, COUNT(*), MAX(amount) FROM orders WHERE {w} AND customer {neg}IN "
                f"(SELECT customer FROM orders GROUP BY customer HAVING COUNT(*) > {n}) "
                f"GROUP BY status ORDER BY status"), None, "nosort"
    if k == 5:
        neg = pick(["", "NOT "])
        return (f"SELECT c.customer, c.tier FROM customers c WHERE {neg}EXISTS (SELECT 1 FROM orders o "
                f"WHERE o.customer = c.customer AND {qualify(w)}) ORDER BY c.customer"), None, "nosort"
    if k == 6:
        key = pick(["region", "status", "customer"])
        agg = pick(["SUM(quantity)", "COUNT(*)", "MAX(amount)"])
        fn = pick(["RANK()", "DENSE_RANK()", "ROW_NUMBER()"])
        tie = f", {key}" if fn == "ROW_NUMBER()" else ""
        return (f"SELECT {key}, {agg}, {fn} OVER (ORDER BY {agg} DESC{tie}) FROM orders WHERE {w} "
                f"GROUP BY {key} ORDER BY {key}"), None, "nosort"
    if k == 7:
        a = pick(["region", "status", "customer"])
        return (f"SELECT x.{a}, x.n, y.m FROM (SELECT {a}, COUNT(*) AS n FROM orders WHERE {w} GROUP BY {a}) x "
                f"{pick(['JOIN', 'LEFT JOIN', 'FULL JOIN'])} (SELECT {a}, SUM(quantity) AS m FROM orders "
                f"WHERE {filt(1)} GROUP BY {a}) y ON x.{a} = y.{a} ORDER BY x.{a}, x.n, y.m"), None, "nosort"
    op = pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT"])
    col = pick(["region", "status", "customer"])
    order = pick(["ASC", "DESC"])
    return (f"SELECT {col} FROM (SELECT {col} FROM orders WHERE {w} {op} SELECT {col} FROM orders "
            f"WHERE {filt(1)}) u ORDER BY {col} {order} LIMIT {1 + rng.randrange(10)}"), None, "nosort"


def write_v2(count, out):
    blocks = ["# generated by gen/make_random_slt.py from DuckDB answers; do not edit by hand\n"]
    for _ in range(count):
        sql, duck_sql, sort = v2_query()
        rows = con.execute((duck_sql or sql).replace("REGEXP_LIKE(", "regexp_matches(")).fetchall()
        rendered = [[fmt(v) for v in r] for r in rows]
        if sort == "rowsort":
            rendered.sort()
        ncols = len(con.description)
        pinot = "SET enableNullHandling=true; SET useMultistageEngine=true; " + sql
        lines = [f"query {'T' * ncols} {sort}", pinot, "----"] + [" ".join(r) for r in rendered]
        blocks.append("\n".join(lines) + "\n")
    with open(out, "w") as f:
        f.write("\n".join(blocks))
    print(f"wrote {out} {count}")


blocks = ["# generated by gen/make_random_slt.py from DuckDB answers; do not edit by hand\n"]
for i in range(COUNT):
    nulls = i % 4 < 2
    q = query(nulls)
    sql, sort = q[0], q[1]
    rows = con.execute(duck(q[2] if len(q) > 2 else sql, nulls)).fetchall()
    prefix = ("SET enableNullHandling=true; " if nulls else "") + (
        "SET useMultistageEngine=true; " if i % 2 else "")
    rendered = [[fmt(v) for v in r] for r in rows]
    if sort == "rowsort":
        rendered.sort()
    ncols = len(con.description)
    out = [f"query {'T' * ncols} {sort}", prefix + sql, "----"] + [" ".join(r) for r in rendered]
    blocks.append("\n".join(out) + "\n")
with open(OUT, "w") as f:
    f.write("\n".join(blocks))
print(f"wrote random {COUNT}")
write_v2(V2_COUNT, V2_OUT)
