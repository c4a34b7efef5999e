//! Where an `IN` subquery of a block with joins is planned: as a semi (anti) join on the one
//! input of the block's inner joins its tested value reads, before that input is joined, when
//! the subquery is uncorrelated. TPC-H Q18's
//! `o_orderkey IN (SELECT l_orderkey … HAVING SUM(l_quantity) > 300)` keeps 57 of 1.5 M orders;
//! planned above `customer ⋈ orders ⋈ lineitem` it tested six million joined rows, planned on
//! `orders` it leaves 57 order keys for the joins (and their key filters) to start from. The block's `WHERE` is a conjunction over the inner joins' rows, so
//! testing a conjunct on the one input it reads drops exactly the rows it would drop above.
//!
//!
//! Only uncorrelated ones: such a subquery is a set of values computed once wherever it is
//! tested, so testing it early only saves work. A correlated `EXISTS` is a join with the
//! subquery's tables whose cost grows with the rows it meets; above the inner joins it meets
//! the fewest (Q21's two `EXISTS` over lineitem, pushed onto `l1`, took 11 s instead of 0.3 s).
//! Whether a subquery reads the outer inputs is read off its text, conservatively: every column
//! it names anywhere (nested subqueries included) with a qualifier that is no table of its own
//! and that an outer input has, and every unqualified name that its own `FROM` does not offer
//! and an outer input has. Anything unsure (a `FROM` whose names cannot be listed, a name two
//! outer inputs have) keeps the conjunct where it was, above the joins.

use super::joins::{Input, inputs_read};
use super::query_walk::{self, QueryVisitor};
use super::{Planner, resolve};
use crate::sql::ast::{self, Query};
use std::collections::BTreeSet;

/// Column references and table names of a query, at every depth.
#[derive(Default)]
struct Refs {
    columns: Vec<(Option<String>, String)>,
    /// Aliases and names of the tables its `FROM`s name (lower-case).
    tables: BTreeSet<String>,
}

impl QueryVisitor for Refs {
    fn column(&mut self, table: Option<&str>, name: &str) {
        self.columns
            .push((table.map(str::to_string), name.to_string()));
    }

    fn relation(&mut self, name: &str) {
        self.tables.insert(name.to_ascii_lowercase());
    }
}

impl Planner<'_> {
    /// The input of `inputs` that the `[NOT] IN` conjunct `c` tests, if it tests one input's
    /// columns against an uncorrelated subquery.
    pub(super) fn semi_join_input(&self, c: &ast::Expr, inputs: &[Input<'_>]) -> Option<usize> {
        let ast::Expr::InSubquery { expr, query, .. } = c else {
            return None;
        };
        let tested = inputs_read(expr, inputs)?;
        let Query::Select(select) = &**query else {
            return None;
        };
        let offered = self.offered_names(select.from.as_ref()?)?;
        let mut refs = Refs::default();
        query_walk::query(&mut refs, query);
        for (table, name) in &refs.columns {
            let own = match table {
                Some(t) => refs.tables.contains(&t.to_ascii_lowercase()),
                None => offered.iter().any(|n| n.eq_ignore_ascii_case(name)),
            };
            if own {
                continue;
            }
            // An outer column (or a name that may be one): correlated.
            if inputs
                .iter()
                .any(|i| !matches!(resolve(i.cols(), table.as_deref(), name), Ok(None)))
            {
                return None;
            }
        }
        let mut it = tested.into_iter();
        match (it.next(), it.next()) {
            (Some(i), None) => Some(i),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_plans::joins;
    use crate::plan::multistage::rel::JoinKind;

    /// The leaves under the plan's semi (or anti) join.
    fn semi_leaves(sql: &str) -> usize {
        let all = joins(sql);
        let semi = all
            .iter()
            .find(|j| matches!(j.kind, JoinKind::Semi | JoinKind::Anti | JoinKind::NotIn))
            .expect("a semi join");
        semi.leaf_filters.len()
    }

    #[test]
    fn a_subquery_reading_one_input_filters_it_before_the_joins() {
        // f's IN and f's EXISTS: on f's leaf and the subquery's, under the join with g.
        assert_eq!(
            semi_leaves(
                "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND f.s IN (SELECT s FROM g WHERE d > 1)"
            ),
            2
        );
        assert_eq!(
            semi_leaves(
                "SELECT COUNT(*) FROM f JOIN g ON f.k = g.k WHERE f.s NOT IN (SELECT x.s FROM g x WHERE x.d > 1)"
            ),
            2
        );
    }

    #[test]
    fn a_correlated_subquery_stays_above_the_joins() {
        assert_eq!(
            semi_leaves(
                "SELECT COUNT(*) FROM f JOIN g ON f.k = g.k WHERE NOT EXISTS (SELECT 1 FROM g x WHERE x.k = f.k)"
            ),
            3
        );
        // `g.s` inside names the outer g: `FROM g x` hides the name.
        assert_eq!(
            semi_leaves(
                "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND EXISTS (SELECT 1 FROM g x WHERE x.k = f.k AND x.s = g.s)"
            ),
            3
        );
        assert_eq!(
            semi_leaves(
                "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND f.s IN (SELECT s FROM g x WHERE x.d = g.d)"
            ),
            3
        );
        assert_eq!(
            semi_leaves(
                "SELECT COUNT(*) FROM f, g WHERE f.k = g.k AND f.s IN (SELECT s FROM g x WHERE x.d = f.d)"
            ),
            3
        );
    }
}
