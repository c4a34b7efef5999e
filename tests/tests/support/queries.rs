//! The differential tests' query generator (`engines_agree.rs`, `cluster_slt.rs`): seeded
//! random queries over the `.slt` suite's `orders` (and `customers`) tables whose answers are
//! fully determined — every `ORDER BY` ends in a unique key or covers every group key, so a
//! `LIMIT` keeps the same rows wherever the query runs — and, for multi-stage features, pairs of
//! a multi-stage query and the single-stage query that must answer the same rows.

#![allow(dead_code)] // each test file uses what it needs

use super::Rng;

pub const DIMS: &[&str] = &["customer", "status", "region", "priority", "note"];
/// Group keys that are expressions (used where the keys need not be plain columns).
pub const KEY_EXPRS: &[&str] = &[
    "quantity / 10",
    "UPPER(status)",
    "CASE WHEN amount > 500 THEN 'big' ELSE 'small' END",
    "DATETRUNC('DAY', ship_ts)",
    "DATETRUNC('MONTH', ship_ts)",
    "SUBSTR(customer, 5)",
    "quantity % 7",
];
pub const AGGS: &[&str] = &[
    "COUNT(*)",
    "SUM(quantity)",
    "SUM(amount)",
    "MIN(amount)",
    "MAX(amount)",
    "MIN(quantity)",
    "MAX(order_id)",
    "AVG(quantity)",
    "AVG(amount)",
    "SUM(discount)",
    "MAX(discount)",
    "COUNT(score)",
    "SUM(score)",
    "MIN(score)",
    "MAX(ship_ts)",
    "COUNT(DISTINCT region)",
    "DISTINCTCOUNT(customer)",
    "SUM(quantity) FILTER (WHERE status = 'OPEN')",
    "COUNT(*) FILTER (WHERE amount > 500)",
    "MIN(amount) FILTER (WHERE priority = true)",
    "SUM(quantity * 2)",
    "MAX(amount - discount)",
    "MINMAXRANGE(quantity)",
    "PERCENTILE(amount, 50)",
    "PERCENTILE(quantity, 90)",
    "DISTINCTCOUNTHLL(customer)",
    "BOOL_AND(priority)",
    "BOOL_OR(priority)",
    "MINSTRING(customer)",
    "MAXSTRING(note)",
    "SUM(CASE WHEN status = 'OPEN' THEN quantity ELSE 0 END)",
];
pub const SELECTED: &[&str] = &[
    "customer", "status", "region", "priority", "note", "amount", "quantity", "discount", "score",
    "ship_ts",
];

/// Expressions a selection reads.
pub const SELECT_EXPRS: &[&str] = &[
    "quantity * 2",
    "amount + discount",
    "quantity - score",
    "UPPER(note)",
    "CONCAT(region, status, '-')",
    "CASE WHEN score IS NULL THEN -1 ELSE score END",
    "COALESCE(score, 0)",
    "DATETRUNC('DAY', ship_ts)",
    "ROUND(amount, 1)",
    "FLOOR(amount)",
    "ABS(quantity - 25)",
    "LENGTH(customer)",
    "amount / quantity",
    "quantity % 3",
];

/// One comparison, range, list or null test.
pub fn atom(rng: &mut Rng) -> String {
    let customer = |rng: &mut Rng| format!("'cust_{:02}'", rng.below(32));
    match rng.below(21) {
        0 => format!(
            "status = '{}'",
            rng.pick(&["OPEN", "SHIPPED", "CANCELLED", "RETURNED", "LOST"])
        ),
        1 => format!(
            "region <> '{}'",
            rng.pick(&["east", "west", "north", "south", "central"])
        ),
        2 => {
            let list: Vec<String> = (0..1 + rng.below(4)).map(|_| customer(rng)).collect();
            let not = if rng.below(3) == 0 { "NOT " } else { "" };
            format!("customer {not}IN ({})", list.join(", "))
        }
        3 => format!(
            "quantity {} {}",
            rng.pick(&["<", "<=", ">", ">=", "=", "<>"]),
            rng.below(52)
        ),
        4 => {
            let a = rng.below(50);
            format!("quantity BETWEEN {a} AND {}", a + rng.below(20))
        }
        5 => format!(
            "amount {} {}.{:02}",
            rng.pick(&["<", "<=", ">", ">="]),
            rng.below(1000),
            rng.below(100)
        ),
        6 => format!(
            "order_id {} {}",
            rng.pick(&["<", "<=", ">", ">=", "="]),
            rng.below(310)
        ),
        7 => {
            let a = rng.below(300);
            format!("order_id BETWEEN {a} AND {}", a + rng.below(120))
        }
        8 => format!(
            "discount {} 0.0{}",
            rng.pick(&["=", "<", ">="]),
            rng.below(6)
        ),
        9 => format!("priority = {}", rng.pick(&["true", "false"])),
        10 => format!(
            "note LIKE '{}'",
            rng.pick(&["b%", "%t%", "gift", "%''s", "_ush"])
        ),
        11 => format!(
            "score IS {}NULL",
            if rng.below(2) == 0 { "NOT " } else { "" }
        ),
        12 => format!("score {} {}", rng.pick(&["<", ">=", "="]), rng.below(100)),
        13 => format!(
            "ship_ts {} {}",
            rng.pick(&["<", ">="]),
            1_680_000_000_000u64 + rng.below(60_000_000) as u64 * 1000
        ),
        14 => format!(
            "status IN ('OPEN', '{}')",
            rng.pick(&["SHIPPED", "RETURNED"])
        ),
        15 => format!(
            "quantity IN ({}, {}, {})",
            rng.below(51),
            rng.below(51),
            rng.below(51)
        ),
        16 => format!("quantity + {} > {}", rng.below(10), rng.below(60)),
        17 => format!("amount * 2 < {}", rng.below(2000)),
        18 => format!("UPPER(region) = '{}'", rng.pick(&["EAST", "WEST", "NORTH"])),
        19 => format!("score BETWEEN {} AND {}", rng.below(50), 50 + rng.below(50)),
        _ => format!("customer = {}", customer(rng)),
    }
}

/// A filter of up to two levels of `AND`/`OR`/`NOT`.
pub fn filter(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.below(3) == 0 {
        return atom(rng);
    }
    match rng.below(5) {
        0 => format!("NOT ({})", filter(rng, depth - 1)),
        1 | 2 => format!(
            "({} AND {})",
            filter(rng, depth - 1),
            filter(rng, depth - 1)
        ),
        _ => format!("({} OR {})", filter(rng, depth - 1), filter(rng, depth - 1)),
    }
}

pub fn where_clause(rng: &mut Rng) -> String {
    if rng.below(5) == 0 {
        String::new()
    } else {
        format!(" WHERE {}", filter(rng, 2))
    }
}

/// Distinct picks from `items`, one to `most`.
pub fn some<'a>(rng: &mut Rng, items: &[&'a str], most: usize) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for _ in 0..1 + rng.below(most) {
        let x = *rng.pick(items);
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// A query whose answer is fully determined, and whether its rows come in a fixed order.
pub fn query(rng: &mut Rng) -> (String, bool) {
    let w = where_clause(rng);
    match rng.below(7) {
        0 => (
            format!("SELECT {} FROM orders{w}", some(rng, AGGS, 4).join(", ")),
            false,
        ),
        1 | 2 => {
            let keys = if rng.below(3) == 0 {
                format!("{}, {}", rng.pick(KEY_EXPRS), rng.pick(DIMS))
            } else {
                some(rng, DIMS, 2).join(", ")
            };
            let aggs = some(rng, AGGS, 3).join(", ");
            let having = if rng.below(3) == 0 {
                format!(" HAVING COUNT(*) > {}", rng.below(6))
            } else {
                String::new()
            };
            (
                format!(
                    "SELECT {keys}, {aggs} FROM orders{w} GROUP BY {keys}{having} ORDER BY {keys} LIMIT {}",
                    1 + rng.below(400)
                ),
                true,
            )
        }
        3 => {
            let mut cols = some(rng, SELECTED, 3);
            if rng.below(2) == 0 {
                cols.push(*rng.pick(SELECT_EXPRS));
            }
            let cols = cols.join(", ");
            let offset = if rng.below(3) == 0 {
                format!(" OFFSET {}", rng.below(40))
            } else {
                String::new()
            };
            (
                format!(
                    "SELECT order_id, {cols} FROM orders{w} ORDER BY order_id {} LIMIT {}{offset}",
                    rng.pick(&["ASC", "DESC"]),
                    1 + rng.below(60)
                ),
                true,
            )
        }
        6 => {
            // Top groups by an aggregate, ties broken by the keys.
            let keys = some(rng, DIMS, 2).join(", ");
            // Exact aggregates only: sums of doubles added in another order could break ties apart.
            let by = rng.pick(&["COUNT(*)", "SUM(quantity)", "MAX(amount)", "MIN(discount)"]);
            let having = if rng.below(3) == 0 {
                format!(" HAVING SUM(quantity) > {}", rng.below(300))
            } else {
                String::new()
            };
            (
                format!(
                    "SELECT {keys}, {by} FROM orders{w} GROUP BY {keys}{having} ORDER BY {by} {}, {keys} LIMIT {}",
                    rng.pick(&["ASC", "DESC"]),
                    1 + rng.below(15)
                ),
                true,
            )
        }
        4 => {
            let by = rng.pick(&[
                "amount", "quantity", "discount", "ship_ts", "customer", "score", "note",
            ]);
            (
                format!(
                    "SELECT order_id, {by} FROM orders{w} ORDER BY {by} {}, order_id LIMIT {}",
                    rng.pick(&["ASC", "DESC"]),
                    1 + rng.below(25)
                ),
                true,
            )
        }
        _ => {
            let keys = some(rng, DIMS, 2).join(", ");
            (
                format!("SELECT DISTINCT {keys} FROM orders{w} ORDER BY {keys} LIMIT 1000"),
                true,
            )
        }
    }
}

/// A filter on the `customers` table.
pub fn customer_filter(rng: &mut Rng) -> String {
    match rng.below(5) {
        0 => format!("tier = '{}'", rng.pick(&["gold", "silver", "bronze"])),
        1 => format!(
            "country IN ('{}', '{}')",
            rng.pick(&["JP", "DE"]),
            rng.pick(&["US", "FR"])
        ),
        2 => format!("credit > {}", rng.below(5000)),
        3 => format!("since_year >= {}", 2010 + rng.below(15)),
        _ => format!(
            "(tier <> '{}' AND credit < {})",
            rng.pick(&["gold", "silver"]),
            1000 + rng.below(4000)
        ),
    }
}

/// `sql` with the `orders` column `customer` named through the alias `o` (in a join with
/// `customers`, which has a column of that name too; literals are `'cust_…'`).
pub fn qualified(sql: &str) -> String {
    sql.replace("customer", "o.customer")
}

/// A query written with a multi-stage feature (a join, a subquery, a derived table, a CTE, a
/// set operation, a window) and the single-stage query that must answer the same rows, and
/// whether they come in a fixed order. `customers` is the list of customers a
/// [`customer_filter`] keeps, for the single-stage form of a semi-join.
pub fn multistage_pair(
    rng: &mut Rng,
    null_handling: bool,
    customers: &dyn Fn(&str) -> String,
) -> (String, String, bool) {
    let p = filter(rng, 1);
    let keys = some(rng, DIMS, 2).join(", ");
    let aggs = some(rng, &AGGS[..15], 3).join(", ");
    match rng.below(7) {
        6 => {
            // Filtered aggregates over joined rows.
            let q = customer_filter(rng);
            // Without null handling a FILTER computed over joined rows reads the stored default
            // of a null (as every expression above a join does), where v1 reads the null
            // vector: null tests are left out of those.
            let mut condition = filter(rng, 1);
            while !null_handling && condition.contains("NULL") {
                condition = filter(rng, 1);
            }
            let filtered = format!(
                "{} FILTER (WHERE {condition})",
                rng.pick(&["COUNT(*)", "SUM(quantity)", "MIN(amount)", "MAX(score)"]),
            );
            let (k, a, w) = (
                qualified(&keys),
                qualified(&format!("{aggs}, {filtered}")),
                qualified(&p),
            );
            (
                format!(
                    "SELECT {k}, {a} FROM orders o JOIN customers c ON o.customer = c.customer WHERE {w} AND c.{q} GROUP BY {k} ORDER BY {k} LIMIT 1000"
                )
                .replace("c.(", "(c.")
                .replace(" AND credit", " AND c.credit"),
                format!(
                    "SELECT {keys}, {aggs}, {filtered} FROM orders WHERE {p} AND customer IN ({}) GROUP BY {keys} ORDER BY {keys} LIMIT 1000",
                    customers(&q)
                ),
                true,
            )
        }
        0 => {
            let q = customer_filter(rng);
            (
                format!(
                    "SELECT {keys}, {aggs} FROM orders WHERE {p} AND customer IN (SELECT customer FROM customers WHERE {q}) GROUP BY {keys} ORDER BY {keys} LIMIT 1000"
                ),
                format!(
                    "SELECT {keys}, {aggs} FROM orders WHERE {p} AND customer IN ({}) GROUP BY {keys} ORDER BY {keys} LIMIT 1000",
                    customers(&q)
                ),
                true,
            )
        }
        1 => {
            let q = customer_filter(rng);
            let (k, a, w) = (qualified(&keys), qualified(&aggs), qualified(&p));
            (
                format!(
                    "SELECT {k}, {a} FROM orders o JOIN customers c ON o.customer = c.customer WHERE {w} AND c.{q} GROUP BY {k} ORDER BY {k} LIMIT 1000"
                )
                .replace("c.(", "(c.")
                .replace(" AND credit", " AND c.credit"),
                format!(
                    "SELECT {keys}, {aggs} FROM orders WHERE {p} AND customer IN ({}) GROUP BY {keys} ORDER BY {keys} LIMIT 1000",
                    customers(&q)
                ),
                true,
            )
        }
        2 => {
            let n = rng.below(8);
            (
                format!(
                    "SELECT * FROM (SELECT {keys}, COUNT(*) AS n, SUM(quantity) AS s FROM orders WHERE {p} GROUP BY {keys}) t WHERE n > {n} ORDER BY {keys} LIMIT 1000"
                ),
                format!(
                    "SELECT {keys}, COUNT(*), SUM(quantity) FROM orders WHERE {p} GROUP BY {keys} HAVING COUNT(*) > {n} ORDER BY {keys} LIMIT 1000"
                ),
                true,
            )
        }
        3 => (
            format!(
                "WITH t AS (SELECT * FROM orders WHERE {p}) SELECT {keys}, {aggs} FROM t GROUP BY {keys} ORDER BY {keys} LIMIT 1000"
            ),
            format!(
                "SELECT {keys}, {aggs} FROM orders WHERE {p} GROUP BY {keys} ORDER BY {keys} LIMIT 1000"
            ),
            true,
        ),
        4 => {
            let p2 = filter(rng, 1);
            (
                format!(
                    "SELECT {keys} FROM orders WHERE {p} UNION SELECT {keys} FROM orders WHERE {p2}"
                ),
                format!("SELECT DISTINCT {keys} FROM orders WHERE ({p}) OR ({p2}) LIMIT 1000"),
                false,
            )
        }
        _ => {
            let key = *rng.pick(DIMS);
            let agg = *rng.pick(&["COUNT(*)", "SUM(quantity)", "MIN(amount)", "MAX(order_id)"]);
            (
                format!(
                    "SELECT DISTINCT {key}, {agg} OVER (PARTITION BY {key}) FROM orders WHERE {p}"
                ),
                format!("SELECT {key}, {agg} FROM orders WHERE {p} GROUP BY {key} LIMIT 1000"),
                false,
            )
        }
    }
}
