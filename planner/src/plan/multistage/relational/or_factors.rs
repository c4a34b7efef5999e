//! Conjuncts common to every branch of an `OR`, pulled out of it: `(a AND b) OR (a AND c)` is
//! `a AND (b OR c)` (distributivity, which SQL's three-valued logic keeps). TPC-H Q19 writes its
//! join condition `p_partkey = l_partkey` inside each of three `OR` branches; pulled out, it is
//! the join's key, and the rest of the `OR` a condition on the joined pairs — left inside, the
//! `OR` reads both tables and the join has no key (a cross product of the two tables).

use super::conjuncts;
use crate::sql::ast::{self, BinaryOp};

/// The branches of nested `OR`s, in order.
fn disjuncts(e: ast::Expr) -> Vec<ast::Expr> {
    match e {
        ast::Expr::Binary {
            op: BinaryOp::Or,
            left,
            right,
        } => {
            let mut v = disjuncts(*left);
            v.extend(disjuncts(*right));
            v
        }
        other => vec![other],
    }
}

fn join(parts: Vec<ast::Expr>, op: BinaryOp) -> Option<ast::Expr> {
    parts.into_iter().reduce(|a, b| ast::Expr::binary(op, a, b))
}

/// `e` as conjuncts: those every branch of an `OR` shares (the first branch's order), then
/// the `OR` of what each branch has beyond them — dropped when a branch has nothing more (the
/// `OR` then holds wherever the shared conjuncts do). Anything but an `OR` sharing a conjunct
/// comes back alone.
pub(super) fn pull_common_factors(e: ast::Expr) -> Vec<ast::Expr> {
    if !matches!(
        e,
        ast::Expr::Binary {
            op: BinaryOp::Or,
            ..
        }
    ) {
        return vec![e];
    }
    let branches: Vec<Vec<ast::Expr>> = disjuncts(e.clone())
        .iter()
        .map(|b| conjuncts(b).into_iter().cloned().collect())
        .collect();
    let mut shared: Vec<ast::Expr> = Vec::new();
    for c in &branches[0] {
        if !shared.contains(c) && branches[1..].iter().all(|b| b.contains(c)) {
            shared.push(c.clone());
        }
    }
    if shared.is_empty() {
        return vec![e];
    }
    let rests: Vec<Vec<ast::Expr>> = branches
        .into_iter()
        .map(|b| b.into_iter().filter(|c| !shared.contains(c)).collect())
        .collect();
    if rests.iter().any(Vec::is_empty) {
        return shared;
    }
    let rest = rests
        .into_iter()
        .filter_map(|b| join(b, BinaryOp::And))
        .collect();
    shared.extend(join(rest, BinaryOp::Or));
    shared
}

/// What the `OR` `e` implies for one input: in each branch the conjuncts `own` accepts (those
/// reading that input alone), the branches' `OR`ed — TPC-H Q7's `(n1.n_name = 'FRANCE' AND
/// n2.n_name = 'GERMANY') OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')` implies
/// `n1.n_name = 'FRANCE' OR n1.n_name = 'GERMANY'`, which filters `n1` in its leaf while the
/// whole `OR` still decides the joined rows. `None` when some branch has no such conjunct (the
/// input is then unconstrained) or `e` is no `OR`. Where `e` is TRUE one branch is, and so its
/// conjuncts: the implied condition is TRUE there too, and adding it keeps every row.
pub(super) fn implied_for(e: &ast::Expr, own: impl Fn(&ast::Expr) -> bool) -> Option<ast::Expr> {
    if !matches!(
        e,
        ast::Expr::Binary {
            op: BinaryOp::Or,
            ..
        }
    ) {
        return None;
    }
    let mut parts = Vec::new();
    for branch in disjuncts(e.clone()) {
        let mine: Vec<ast::Expr> = conjuncts(&branch)
            .into_iter()
            .filter(|c| own(c))
            .cloned()
            .collect();
        parts.push(join(mine, BinaryOp::And)?);
    }
    join(parts, BinaryOp::Or)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse_expr;

    fn pulled(sql: &str) -> Vec<ast::Expr> {
        pull_common_factors(parse_expr(sql).unwrap())
    }

    fn exprs(sqls: &[&str]) -> Vec<ast::Expr> {
        sqls.iter().map(|s| parse_expr(s).unwrap()).collect()
    }

    #[test]
    fn a_conjunct_of_every_branch_comes_out() {
        assert_eq!(
            pulled(
                "(p.k = l.k AND p.b = 1 AND l.q < 5) OR (l.q > 9 AND p.k = l.k) OR (p.k = l.k AND p.b = 3)"
            ),
            exprs(&["p.k = l.k", "(p.b = 1 AND l.q < 5) OR l.q > 9 OR p.b = 3"])
        );
        // Two shared, in the first branch's order.
        assert_eq!(
            pulled("(a = 1 AND b = 2 AND c = 3) OR (b = 2 AND a = 1 AND d = 4)"),
            exprs(&["a = 1", "b = 2", "c = 3 OR d = 4"])
        );
    }

    #[test]
    fn a_branch_of_shared_conjuncts_only_leaves_them() {
        // a OR (a AND c) is a.
        assert_eq!(pulled("a = 1 OR (a = 1 AND c = 3)"), exprs(&["a = 1"]));
        assert_eq!(pulled("a = 1 OR a = 1"), exprs(&["a = 1"]));
    }

    /// The key columns of every join of the multi-stage plan of `sql` over tables `f` and `g`.
    fn join_keys(sql: &str) -> Vec<(Vec<usize>, Vec<usize>)> {
        super::super::test_plans::joins(sql)
            .into_iter()
            .map(|j| (j.left_keys, j.right_keys))
            .collect()
    }

    #[test]
    fn a_join_key_in_every_branch_is_the_joins_key() {
        // TPC-H Q19's shape, in WHERE and in ON: a keyed join, not a cross product.
        let keyed = vec![(vec![0], vec![0])];
        assert_eq!(
            join_keys(
                "SELECT COUNT(*) FROM f, g WHERE (f.k = g.k AND f.s = 'a' AND g.d < 1) \
                 OR (f.k = g.k AND g.s = 'b') OR (g.d > 9 AND f.k = g.k)"
            ),
            keyed
        );
        assert_eq!(
            join_keys(
                "SELECT COUNT(*) FROM f JOIN g ON (f.k = g.k AND f.s = 'a') OR (f.k = g.k AND g.s = 'b')"
            ),
            keyed
        );
        // A branch without it: no key.
        assert_eq!(
            join_keys("SELECT COUNT(*) FROM f, g WHERE (f.k = g.k AND f.s = 'a') OR g.s = 'b'"),
            vec![(vec![], vec![])]
        );
    }

    #[test]
    fn an_or_over_two_tables_implies_one_for_each() {
        let q7 = parse_expr(
            "(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')",
        )
        .unwrap();
        let of = |t: &'static str| {
            move |e: &ast::Expr| {
                let mut cols = Vec::new();
                super::super::joins::columns(e, &mut cols);
                cols.iter().all(|(q, _)| q.as_deref() == Some(t))
            }
        };
        assert_eq!(
            implied_for(&q7, of("n1")),
            Some(parse_expr("n1.n_name = 'FRANCE' OR n1.n_name = 'GERMANY'").unwrap())
        );
        // A branch that says nothing of the table: nothing implied.
        let loose =
            parse_expr("(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR n2.n_name = 'X'")
                .unwrap();
        assert_eq!(implied_for(&loose, of("n1")), None);
        assert_eq!(
            implied_for(&parse_expr("n1.n_name = 'A'").unwrap(), of("n1")),
            None
        );
    }

    #[test]
    fn anything_else_is_left_as_it_is() {
        for sql in [
            "a = 1 OR b = 2",
            "(a = 1 AND b = 2) OR (a = 2 AND b = 1)",
            "a = 1 AND b = 2",
            "NOT (a = 1 OR a = 1)",
        ] {
            assert_eq!(pulled(sql), exprs(&[sql]), "{sql}");
        }
    }
}
