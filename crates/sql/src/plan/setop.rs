//! Set operations: UNION, INTERSECT and EXCEPT, each DISTINCT (the default) or ALL, over
//! SELECTs and parenthesized queries (each with its own ORDER BY and LIMIT), then ORDER BY and
//! LIMIT over the whole result. The precedence is MariaDB's: INTERSECT binds tighter than UNION
//! and EXCEPT, which bind left to right; sqlparser builds the tree that way, and the executor
//! evaluates it as it stands. Rows compare as DISTINCT compares them: strings under the
//! column's collation (combined over every SELECT: binary beats `_bin` beats
//! utf8mb4_general_ci), numbers by value, NULL equal to NULL.
//!
//! The result's column names are the first SELECT's, its types every SELECT's aggregated as
//! MariaDB aggregates them (`expr::meta::union_column`).

use base::types::Collation;
use base::Value;
use client::Table;
use myproto::response::Column;
use sqlparser::ast::{self, Expr as Ast, SetExpr};

use crate::expr::aggregate::group_key;
use crate::expr::{Compiler, Expr};
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::plan::{limits, select, PlanInput, SelectPlan, TableRef};

/// A set operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    Union,
    Intersect,
    Except,
}

/// A node of a set operation's tree.
#[derive(Debug, Clone)]
pub enum SetNode {
    Select(Box<SelectPlan>),
    /// A parenthesized set operation, with its own ORDER BY and LIMIT.
    Nested(Box<SetPlan>),
    Op {
        op: SetOp,
        /// DISTINCT (the default): the result holds each row once. ALL keeps duplicates
        /// (INTERSECT ALL and EXCEPT ALL count them).
        distinct: bool,
        left: Box<SetNode>,
        right: Box<SetNode>,
    },
}

/// A set operation, its ORDER BY and LIMIT over all the rows.
#[derive(Debug, Clone)]
pub struct SetPlan {
    pub tree: SetNode,
    /// (column, descending).
    pub order: Vec<(usize, bool)>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// The first SELECT's columns, each with the collation its strings compare under (every
    /// SELECT's combined).
    pub columns: Vec<Column>,
}

impl SetNode {
    /// The deepest chain of derived tables a SELECT under the node reads.
    pub(crate) fn derived_depth(&self) -> usize {
        let mut depth = 0;
        let mut at = self;
        loop {
            match at {
                SetNode::Select(p) => return depth.max(crate::plan::derived::select_depth(p)),
                SetNode::Nested(p) => return depth.max(p.tree.derived_depth()),
                SetNode::Op { left, right, .. } => {
                    depth = depth.max(right.derived_depth());
                    at = left;
                }
            }
        }
    }

    /// The collation of each column: every SELECT's combined, as MariaDB derives them for
    /// columns of equal standing.
    pub(crate) fn collations(&self) -> Vec<Collation> {
        use crate::expr::collate::{combine, Coercibility, Derived};
        let mut out: Vec<Option<Derived>> = Vec::new();
        let mut pending = vec![self];
        while let Some(node) = pending.pop() {
            // A SELECT's items as it derived them (a literal gives way to a column); a nested
            // set operation's columns as columns.
            let derived: Vec<Option<Derived>> = match node {
                SetNode::Select(p) => p
                    .derived
                    .iter()
                    .map(|d| d.is_string().then_some(*d))
                    .collect(),
                SetNode::Nested(p) => p
                    .columns
                    .iter()
                    .map(|c| {
                        crate::expr::meta::collation_of(c).map(|collation| Derived {
                            collation,
                            coercibility: Coercibility::Implicit,
                        })
                    })
                    .collect(),
                SetNode::Op { left, right, .. } => {
                    pending.push(left);
                    pending.push(right);
                    continue;
                }
            };
            if out.len() < derived.len() {
                out.resize(derived.len(), None);
            }
            for (slot, d) in out.iter_mut().zip(derived) {
                let Some(d) = d else {
                    continue;
                };
                *slot = Some(match *slot {
                    None => d,
                    Some(was) => combine(was, d, "UNION").unwrap_or(was),
                });
            }
        }
        out.into_iter()
            .map(|d| d.map_or(Collation::Utf8mb4GeneralCi, |d| d.collation))
            .collect()
    }

    /// The columns of every SELECT (or parenthesized set operation) under the node, left to
    /// right.
    fn selects(&self) -> Vec<&[Column]> {
        let mut out = Vec::new();
        let mut pending = vec![self];
        while let Some(node) = pending.pop() {
            match node {
                SetNode::Select(p) => out.push(p.columns.as_slice()),
                SetNode::Nested(p) => out.push(p.columns.as_slice()),
                SetNode::Op { left, right, .. } => {
                    pending.push(right);
                    pending.push(left);
                }
            }
        }
        out
    }

    /// The columns of the first SELECT under the node.
    fn columns(&self) -> &[Column] {
        let mut at = self;
        loop {
            match at {
                SetNode::Select(p) => return &p.columns,
                SetNode::Nested(p) => return &p.columns,
                SetNode::Op { left, .. } => at = left,
            }
        }
    }
}

/// Plans a query whose body is a set operation or a parenthesized query.
pub(crate) fn plan(
    input: &PlanInput,
    q: &ast::Query,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<SetPlan> {
    if q.fetch.is_some() || !q.locks.is_empty() {
        return Err(SqlError::unsupported("FETCH or locks on a set operation"));
    }
    let scoped = crate::plan::derived::scope(input, q.with.as_ref(), resolve)?;
    let input = scoped.as_ref().unwrap_or(input);
    let tree = node(input, &q.body, resolve)?;
    let collations = tree.collations();
    let mut columns = tree.columns().to_vec();
    let selects = tree.selects();
    for (i, column) in columns.iter_mut().enumerate() {
        let each: Vec<&Column> = selects.iter().filter_map(|s| s.get(i)).collect();
        *column = crate::expr::meta::union_columns(&each);
    }
    for (column, c) in columns.iter_mut().zip(&collations) {
        if crate::expr::meta::collation_of(column).is_some() {
            column.collation = crate::expr::meta::collation_id(*c);
        }
    }
    let mut order = Vec::new();
    if let Some(o) = &q.order_by {
        let ast::OrderByKind::Expressions(exprs) = &o.kind else {
            return Err(SqlError::unsupported(format!("{o}")));
        };
        for e in exprs {
            let desc = matches!(e.options.sort, Some(ast::OrderBySort::Desc));
            let named = match &e.expr {
                Ast::Identifier(i) => columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(&i.value)),
                Ast::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                    let n: usize = v.value.to_string().parse().unwrap_or(0);
                    (1..=columns.len()).contains(&n).then(|| n - 1)
                }
                _ => None,
            };
            let Some(column) = named else {
                return Err(SqlError::new(
                    1054,
                    "42S22",
                    format!("Unknown column '{}' in 'order clause'", e.expr),
                ));
            };
            order.push((column, desc));
        }
    }
    let mut c = Compiler::new(None, input.placeholders);
    let (limit, offset) = limits(&mut c, &q.limit_clause)?;
    Ok(SetPlan {
        tree,
        order,
        limit,
        offset,
        columns,
    })
}

/// The operators down a node's left side, outermost first, and the operand at its bottom. A
/// chain of operators of one precedence is a left-deep tree as deep as the chain is long:
/// planning and running walk it with this loop, so the stack grows only with parentheses and
/// precedence changes (which the parser bounds), not with the chain.
#[allow(clippy::type_complexity)]
fn left_spine(
    body: &SetExpr,
) -> (
    Vec<(&ast::SetOperator, &ast::SetQuantifier, &SetExpr)>,
    &SetExpr,
) {
    let mut operators = Vec::new();
    let mut at = body;
    while let SetExpr::SetOperation {
        op,
        set_quantifier,
        left,
        right,
    } = at
    {
        operators.push((op, set_quantifier, right.as_ref()));
        at = left;
    }
    (operators, at)
}

/// Plans one node: `body` is a part of the query whose WITH is already in scope, and whose
/// ORDER BY and LIMIT belong to the whole.
fn node(
    input: &PlanInput,
    body: &SetExpr,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<SetNode> {
    let (operators, first) = left_spine(body);
    let mut tree = operand(input, first, resolve)?;
    for (op, quantifier, right) in operators.into_iter().rev() {
        let distinct = match quantifier {
            ast::SetQuantifier::None | ast::SetQuantifier::Distinct => true,
            ast::SetQuantifier::All => false,
            // BY NAME is not in MariaDB's grammar.
            other => return Err(SqlError::parse(format!("near '{op} {other}'"))),
        };
        let op = match op {
            ast::SetOperator::Union => SetOp::Union,
            ast::SetOperator::Intersect => SetOp::Intersect,
            ast::SetOperator::Except => SetOp::Except,
            // MINUS is EXCEPT only in MariaDB's Oracle mode.
            ast::SetOperator::Minus => return Err(SqlError::parse("near 'MINUS'")),
        };
        let right = node(input, right, resolve)?;
        if tree.columns().len() != right.columns().len() {
            return Err(SqlError::new(
                1222,
                "21000",
                "The used SELECT statements have a different number of columns",
            ));
        }
        tree = SetNode::Op {
            op,
            distinct,
            left: Box::new(tree),
            right: Box::new(right),
        };
    }
    Ok(tree)
}

/// Plans an operand: a parenthesized query, or a bare SELECT (planned alone: the whole's WITH
/// is in scope already, and its ORDER BY and LIMIT are the whole's).
fn operand(
    input: &PlanInput,
    e: &SetExpr,
    resolve: &dyn Fn(&ast::ObjectName) -> Result<(Table, TableRef)>,
) -> Result<SetNode> {
    Ok(match e {
        SetExpr::Query(inner) => match inner.body.as_ref() {
            SetExpr::Select(_) => SetNode::Select(Box::new(select(input, inner, resolve)?)),
            _ => SetNode::Nested(Box::new(plan(input, inner, resolve)?)),
        },
        other => {
            let one = ast::Query {
                with: None,
                body: Box::new(other.clone()),
                order_by: None,
                limit_clause: None,
                fetch: None,
                locks: Vec::new(),
                for_clause: None,
                settings: None,
                format_clause: None,
                pipe_operators: Vec::new(),
            };
            SetNode::Select(Box::new(select(input, &one, resolve)?))
        }
    })
}

/// Combines two nodes' rows by a set operator.
pub(crate) fn combine(
    op: SetOp,
    distinct: bool,
    mut left: Vec<Vec<Value>>,
    right: Vec<Vec<Value>>,
    collations: &[Collation],
) -> Vec<Vec<Value>> {
    let dedup = |rows: &mut Vec<Vec<Value>>| {
        let mut seen = hashbrown::HashSet::new();
        rows.retain(|r| seen.insert(group_key(r, collations)));
    };
    if op == SetOp::Union {
        left.extend(right);
        if distinct {
            dedup(&mut left);
        }
        return left;
    }
    // How many times each row occurs on the right.
    let mut counts: hashbrown::HashMap<Vec<u8>, usize> = hashbrown::HashMap::new();
    for r in &right {
        *counts.entry(group_key(r, collations)).or_default() += 1;
    }
    if distinct {
        dedup(&mut left);
    }
    left.retain(|r| {
        let count = counts.get_mut(&group_key(r, collations));
        match (op, distinct, count) {
            (SetOp::Intersect, true, found) => found.is_some(),
            (SetOp::Except, true, found) => found.is_none(),
            // ALL: each row on the right matches one on the left.
            (SetOp::Intersect, false, Some(n)) if *n > 0 => {
                *n -= 1;
                true
            }
            (SetOp::Intersect, false, _) => false,
            (SetOp::Except, false, Some(n)) if *n > 0 => {
                *n -= 1;
                false
            }
            (SetOp::Except, false, _) => true,
            (SetOp::Union, ..) => true,
        }
    });
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(values: &[i64]) -> Vec<Vec<Value>> {
        values.iter().map(|v| vec![Value::Int(*v)]).collect()
    }

    fn sorted(mut r: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
        r.sort_by_key(|r| match r.first() {
            Some(Value::Int(i)) => *i,
            _ => i64::MIN,
        });
        r
    }

    #[test]
    fn distinct_and_all_operators() {
        let (l, r) = (rows(&[1, 1, 1, 2, 3]), rows(&[1, 1, 3, 4]));
        let cases: [(SetOp, bool, &[i64]); 6] = [
            (SetOp::Union, true, &[1, 2, 3, 4]),
            (SetOp::Union, false, &[1, 1, 1, 1, 1, 2, 3, 3, 4]),
            (SetOp::Intersect, true, &[1, 3]),
            (SetOp::Intersect, false, &[1, 1, 3]),
            (SetOp::Except, true, &[2]),
            (SetOp::Except, false, &[1, 2]),
        ];
        for (op, distinct, want) in cases {
            assert_eq!(
                sorted(combine(op, distinct, l.clone(), r.clone(), &[])),
                rows(want),
                "{op:?} distinct={distinct}"
            );
        }
    }

    #[test]
    fn rows_compare_as_distinct_does() {
        let text = |s: &str| vec![Value::Bytes(s.as_bytes().to_vec())];
        // Strings under utf8mb4_general_ci; NULL equals NULL; numbers by value.
        assert!(combine(SetOp::Except, true, vec![text("a")], vec![text("A")], &[]).is_empty());
        let bin = [Collation::Utf8mb4Bin];
        assert_eq!(
            combine(SetOp::Except, true, vec![text("a")], vec![text("A")], &bin).len(),
            1
        );
        assert_eq!(
            combine(
                SetOp::Intersect,
                true,
                vec![vec![Value::Null]],
                vec![vec![Value::Null]],
                &[]
            ),
            vec![vec![Value::Null]]
        );
        assert_eq!(
            combine(
                SetOp::Intersect,
                true,
                vec![vec![Value::UInt(5)]],
                vec![vec![Value::Int(5)]],
                &[]
            )
            .len(),
            1
        );
    }
}
