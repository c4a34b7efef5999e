//! One traversal of the SQL expression tree ([`Expr`]), as DataFusion's `TreeNode`: the direct
//! sub-expressions ([`Expr::children`], [`Expr::children_mut`]), a pre-order walk ([`Expr::walk`],
//! [`Expr::walk_mut`]) and a search ([`Expr::any`]). Every rewrite and every "does this hold a …"
//! question of the binder and the multi-stage planner goes through them, so they agree on what
//! an expression contains: the arguments and `FILTER (WHERE …)` of a call, and the `PARTITION BY`
//! and `ORDER BY` of its window (`OVER (…)`); not the body of a subquery (its own block, with its
//! own scope), only the tested expression of `x IN (subquery)`. A block's own expression slots
//! are [`Select::exprs_mut`].

use super::ast::{Expr, Select, SelectItem};

impl Select {
    /// Every expression slot of the block, in the order they are written: the select list
    /// (not `*`), WHERE, GROUP BY, HAVING, ORDER BY.
    pub fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        let Select {
            projection,
            selection,
            group_by,
            having,
            order_by,
            ..
        } = self;
        list_exprs_mut(projection)
            .chain(selection.iter_mut())
            .chain(group_by.iter_mut())
            .chain(having.iter_mut())
            .chain(order_by.iter_mut().map(|o| &mut o.expr))
    }
}

/// The expressions of a select list (not `*`), borrowed apart from the block's other slots.
pub fn list_exprs_mut(projection: &mut [SelectItem]) -> impl Iterator<Item = &mut Expr> {
    projection.iter_mut().filter_map(|item| match item {
        SelectItem::Expr { expr, .. } => Some(expr),
        _ => None,
    })
}

impl Expr {
    /// The direct sub-expressions, in the order they are written.
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Column { .. } | Expr::Literal(_) | Expr::Star | Expr::Interval { .. } => vec![],
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } | Expr::IsNull { expr, .. } => {
                vec![expr]
            }
            Expr::Binary { left, right, .. } | Expr::IsDistinctFrom { left, right, .. } => {
                vec![left, right]
            }
            Expr::Function {
                args, filter, over, ..
            } => args
                .iter()
                .chain(filter.as_deref())
                .chain(over.iter().flat_map(|w| {
                    w.partition_by
                        .iter()
                        .chain(w.order_by.iter().map(|o| &o.expr))
                }))
                .collect(),
            Expr::Case {
                operand,
                branches,
                else_result,
            } => operand
                .as_deref()
                .into_iter()
                .chain(branches.iter().flat_map(|(a, b)| [a, b]))
                .chain(else_result.as_deref())
                .collect(),
            Expr::InList { expr, list, .. } => {
                std::iter::once(expr.as_ref()).chain(list.iter()).collect()
            }
            Expr::InSubquery { expr, .. } => vec![expr],
            Expr::Exists { .. } | Expr::ScalarSubquery(_) => vec![],
            Expr::Between {
                expr, low, high, ..
            } => vec![expr, low, high],
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
        }
    }

    /// The direct sub-expressions, mutably (the same ones as [`Expr::children`]).
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Column { .. } | Expr::Literal(_) | Expr::Star | Expr::Interval { .. } => vec![],
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } | Expr::IsNull { expr, .. } => {
                vec![expr]
            }
            Expr::Binary { left, right, .. } | Expr::IsDistinctFrom { left, right, .. } => {
                vec![left, right]
            }
            Expr::Function {
                args, filter, over, ..
            } => args
                .iter_mut()
                .chain(filter.as_deref_mut())
                .chain(over.iter_mut().flat_map(|w| {
                    w.partition_by
                        .iter_mut()
                        .chain(w.order_by.iter_mut().map(|o| &mut o.expr))
                }))
                .collect(),
            Expr::Case {
                operand,
                branches,
                else_result,
            } => operand
                .as_deref_mut()
                .into_iter()
                .chain(branches.iter_mut().flat_map(|(a, b)| [a, b]))
                .chain(else_result.as_deref_mut())
                .collect(),
            Expr::InList { expr, list, .. } => std::iter::once(expr.as_mut())
                .chain(list.iter_mut())
                .collect(),
            Expr::InSubquery { expr, .. } => vec![expr],
            Expr::Exists { .. } | Expr::ScalarSubquery(_) => vec![],
            Expr::Between {
                expr, low, high, ..
            } => vec![expr, low, high],
            Expr::Like { expr, pattern, .. } => vec![expr, pattern],
        }
    }

    /// `f` on this node, then on each descendant, parents before children.
    pub fn walk<'e>(&'e self, f: &mut dyn FnMut(&'e Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// `f` on this node, then on each descendant of the result, parents before children (a
    /// node `f` replaces is walked as replaced).
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        f(self);
        for c in self.children_mut() {
            c.walk_mut(f);
        }
    }

    /// Whether this node or a descendant satisfies `pred` (stops at the first that does).
    pub fn any(&self, pred: &mut dyn FnMut(&Expr) -> bool) -> bool {
        pred(self) || self.children().into_iter().any(|c| c.any(pred))
    }
}

#[cfg(test)]
mod tests {
    use crate::sql::parse_expr;

    /// Calls, filters, CASE, IN lists and window specs are all inside; a subquery's body is not.
    #[test]
    fn every_walk_sees_the_same_nodes() {
        let e = parse_expr(
            "CASE WHEN a IN (1, b) THEN SUM(c) FILTER (WHERE d > 0) \
             ELSE RANK() OVER (PARTITION BY e ORDER BY f + 1) END",
        )
        .unwrap();
        let mut seen = Vec::new();
        e.walk(&mut |n| {
            if let crate::sql::Expr::Column { name, .. } = n {
                seen.push(name.clone());
            }
        });
        assert_eq!(seen, ["a", "b", "c", "d", "e", "f"]);
        let mut again = e.clone();
        let mut seen_mut = Vec::new();
        again.walk_mut(&mut |n| {
            if let crate::sql::Expr::Column { name, .. } = n {
                seen_mut.push(name.clone());
                *name = name.to_uppercase();
            }
        });
        assert_eq!(seen_mut, seen);
        assert!(
            again.any(&mut |n| matches!(n, crate::sql::Expr::Column { name, .. } if name == "F"))
        );
        assert!(!e.any(&mut |n| matches!(n, crate::sql::Expr::Column { name, .. } if name == "g")));
        let sub = parse_expr("x IN (SELECT y FROM t WHERE z = 1)").unwrap();
        let mut names = Vec::new();
        sub.walk(&mut |n| {
            if let crate::sql::Expr::Column { name, .. } = n {
                names.push(name.clone());
            }
        });
        assert_eq!(names, ["x"]);
    }
}
