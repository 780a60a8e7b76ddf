//! Semi-joins read once: a correlated EXISTS or NOT EXISTS over one table, tied to its statement
//! by one equality between an integer column and an outer value, may run once without that
//! equality (`SELECT col FROM t WHERE the rest`), each outer value then answered by whether it
//! is among the values found. Chosen by the table's statistics when reading the table's
//! matching rows once costs less than probing it for every outer value (MariaDB's semi-join
//! materialization; `EXISTS (SELECT * FROM orders o WHERE o.cust = c.id AND o.day = 17)` over
//! thousands of customers reads the day's orders through KEY(day) instead). Or pushed: such an
//! EXISTS over a table the statement's one table reaches by an ordered index on that column,
//! whose own conditions its pushed filter decides, is read by the data node with the
//! statement's rows, which it keeps or drops (`semi_pushed`: NDB's pushed semi-join and
//! anti-join).

use base::Value;
use client::{ExecType, LockMode, Transaction};
use sqlparser::ast::{self, Expr as Ast, Statement};
use sqlparser::tokenizer::Location;
use std::collections::HashSet;
use std::sync::Arc;

use crate::exec::run::key_value;
use crate::exec::step::Stepping;
use crate::exec::subquery::{exact_key, Subqueries};
use crate::exec::{Executor, Outcome};
use crate::expr::correlated::Kind;
use crate::expr::Expr;
use crate::foundation::error::Result;
use crate::plan::compiled::Compiled;
use crate::plan::SelectPlan;

/// The query a correlated EXISTS runs once instead: `q` (its outer values already the
/// placeholders `outer`) without its one conjunct `column = outer` (either way round), asking
/// for that column. None when `q` is not one table's SELECT whose WHERE reads the outer value
/// only in that conjunct.
pub(crate) fn once_query(q: &ast::Query, outer: &Ast) -> Option<ast::Query> {
    let ast::SetExpr::Select(select) = q.body.as_ref() else {
        return None;
    };
    let [from] = select.from.as_slice() else {
        return None;
    };
    if !from.joins.is_empty() || !matches!(from.relation, ast::TableFactor::Table { .. }) {
        return None;
    }
    let mut parts = Vec::new();
    conjuncts(select.selection.as_ref()?, &mut parts);
    let mut column = None;
    let mut rest = Vec::new();
    for part in parts {
        let reads = reads(part, outer);
        match (part, reads) {
            (_, false) => rest.push(part.clone()),
            (
                Ast::BinaryOp {
                    left,
                    op: ast::BinaryOperator::Eq,
                    right,
                },
                true,
            ) if column.is_none() => {
                let (l, r) = (unnest(left), unnest(right));
                column = Some(match (l == outer, r == outer) {
                    (true, false) if is_column(r) => r.clone(),
                    (false, true) if is_column(l) => l.clone(),
                    _ => return None,
                });
            }
            _ => return None,
        }
    }
    let column = column?;
    let mut select = select.clone();
    select.projection = vec![ast::SelectItem::UnnamedExpr(column)];
    select.selection = rest.into_iter().reduce(|a, b| Ast::BinaryOp {
        left: Box::new(a),
        op: ast::BinaryOperator::And,
        right: Box::new(b),
    });
    let mut once = q.clone();
    once.body = Box::new(ast::SetExpr::Select(select));
    Some(once)
}

fn conjuncts<'a>(e: &'a Ast, out: &mut Vec<&'a Ast>) {
    match e {
        Ast::BinaryOp {
            left,
            op: ast::BinaryOperator::And,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        Ast::Nested(inner) => conjuncts(inner, out),
        other => out.push(other),
    }
}

fn unnest(mut e: &Ast) -> &Ast {
    while let Ast::Nested(inner) = e {
        e = inner;
    }
    e
}

fn is_column(e: &Ast) -> bool {
    matches!(e, Ast::Identifier(_) | Ast::CompoundIdentifier(_))
}

/// Whether `e` holds the placeholder `outer`.
fn reads(e: &Ast, outer: &Ast) -> bool {
    ast::visit_expressions(e, |x| {
        if x == outer {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// The plan of [`once_query`] kept when it reads one table, with statistics, for one integer
/// column of it: the table column it answers.
pub(crate) fn usable(plan: &SelectPlan) -> Option<u16> {
    let src = plan.source.as_ref()?;
    let (None, Some(_), [Expr::Column(at)], false) = (
        &plan.joined,
        src.estimate,
        plan.items.as_slice(),
        plan.grouped || plan.windowed(),
    ) else {
        return None;
    };
    let c = *src.fetch.get(*at)?;
    // Its conditions run over every outer value's rows at once: one that can divide by zero
    // would warn (or fail) for rows the subquery never reads per value.
    if src
        .filter
        .as_ref()
        .is_some_and(crate::exec::diagnostics::divides)
    {
        return None;
    }
    let integer = src.table.def().columns.get(c as usize)?.ty.is_integer();
    (integer && !src.made_in_api_node() && src.lock == LockMode::CommittedRead).then_some(c)
}

/// Whether reading once (estimate `once`) beats probing for `values` outer values, each
/// reading `probe` (the correlated plan's estimate per value set; a semi-join stops at a
/// match, so at most one row of it is sent).
/// (Costs as the join order's, `plan::join`.)
fn once_is_cheaper(
    once: crate::plan::estimate::Estimate,
    probe: crate::plan::estimate::Estimate,
    values: usize,
) -> bool {
    use crate::plan::join::{KEY_READ, SCAN_ROW, SHIP_ROW};
    let once_cost = once.read * SCAN_ROW + once.kept * SHIP_ROW;
    let probe_cost =
        values as f64 * (KEY_READ + probe.read * SCAN_ROW + probe.kept.min(1.0) * SHIP_ROW);
    once_cost < probe_cost
}

type Wanted = Vec<(usize, Vec<u8>, Vec<Value>)>;

pub(crate) trait SemiJoining: Subqueries {
    /// [`once_query`]'s plan and the column it answers, when [`usable`] (None when it has a
    /// subquery of its own or does not plan).
    fn once_plan(
        &self,
        q: ast::Query,
        sql: &str,
        placeholders: &[Location],
    ) -> Option<(Arc<SelectPlan>, u16)> {
        let statement = Statement::Query(Box::new(q));
        if crate::exec::subquery::has_subquery(&statement) {
            return None;
        }
        let Ok(Compiled::Select(plan)) = self.compile(statement, sql, placeholders) else {
            return None;
        };
        let column = usable(&plan)?;
        Some((Arc::new(*plan), column))
    }

    /// Answers the wanted value sets of correlated EXISTS subqueries that read once more
    /// cheaply (their results kept, they leave `wanted`).
    fn semi_joins_once(
        &mut self,
        txn: &mut Transaction,
        wanted: &mut Wanted,
        params: &[Value],
    ) -> Result<()> {
        let mut subqueries: Vec<usize> = wanted.iter().map(|w| w.0).collect();
        subqueries.sort_unstable();
        subqueries.dedup();
        for n in subqueries {
            let c = &self.correlated[n];
            let (Some((once, column)), Kind::Exists { negated }, true) =
                (c.once.clone(), c.kind, c.semi())
            else {
                continue;
            };
            let values = wanted.iter().filter(|w| w.0 == n).count();
            let probe = c.plan.source.as_ref().and_then(|s| s.estimate);
            let once_estimate = once.source.as_ref().and_then(|s| s.estimate);
            let (Some(probe), Some(e)) = (probe, once_estimate) else {
                continue;
            };
            if values < 2 || !once_is_cheaper(e, probe, values) {
                continue;
            }
            let Some(column) = once
                .source
                .as_ref()
                .and_then(|s| s.table.def().columns.get(column as usize).cloned())
            else {
                continue;
            };
            let found = self.values_once(txn, n, &once, params)?;
            let mut answered = HashSet::new();
            for (i, (m, key, args)) in wanted.iter().enumerate() {
                if *m != n {
                    continue;
                }
                let is = match args.first().cloned().map(|v| key_value(&column, v)) {
                    Some(Ok(Some(v))) => found.contains(&exact_key(&[v])),
                    Some(Ok(None)) => false,
                    // Not exactly a value of the column: run as the subquery runs.
                    _ => continue,
                };
                let value = Value::Int((is != negated) as i64);
                self.correlated[n].results.insert(key.clone(), Ok(value));
                answered.insert(i);
            }
            let mut i = 0;
            wanted.retain(|_| {
                i += 1;
                !answered.contains(&(i - 1))
            });
        }
        Ok(())
    }

    /// The exact keys of the values subquery `n`'s once-query `once` answers.
    fn values_once(
        &mut self,
        txn: &mut Transaction,
        n: usize,
        once: &SelectPlan,
        params: &[Value],
    ) -> Result<HashSet<Vec<u8>>> {
        // The statement's own parameters; it reads no outer value.
        let (_, all) = self.arguments(n, Vec::new(), params);
        let rows = self.source_rows(txn, ExecType::NoCommit, once, &all)?;
        // The subquery's rows leave FOUND_ROWS() as the statement's.
        let found_rows = self.last_found_rows;
        let outcome = self.select_rows(once, &all, rows);
        self.last_found_rows = found_rows;
        let Outcome::Rows { rows, .. } = outcome? else {
            return Err(crate::foundation::error::SqlError::new(
                1105,
                "HY000",
                "internal: a subquery without rows",
            ));
        };
        Ok(rows
            .into_iter()
            .filter_map(|mut r| r.pop().filter(|v| !v.is_null()))
            .map(|v| exact_key(&[v]))
            .collect())
    }
}

/// A correlated EXISTS the data node can answer with the rows it is asked about: the pushed
/// join's child it makes, and the conjunct of the statement's WHERE it decides.
struct PushedSemi {
    child: client::JoinChild,
    conjunct: Expr,
}

impl<S: Subqueries> SemiJoining for S {}

/// The rows of a single table `src` whose WHERE holds correlated EXISTS or NOT EXISTS
/// subqueries the data node can run as semi-joins or anti-joins of its scan (see the module's
/// doc), read in one request, then checked against the rest of the WHERE. None when none can
/// be pushed (or `cairn_join_pushdown` is OFF, or the data node refuses): the subqueries run
/// as they do.
pub(crate) fn semi_pushed<S: Subqueries>(
    s: &mut S,
    txn: &mut Transaction,
    src: &crate::plan::Source,
    params: &[Value],
) -> Result<Option<Vec<Vec<Value>>>> {
    let Some(filter) = src.filter.as_ref().filter(|f| f.has_correlated()) else {
        return Ok(None);
    };
    if !s.pushdown_joins() || src.lock != LockMode::CommittedRead || src.made_in_api_node() {
        return Ok(None);
    }
    // A division in the WHERE warns or fails for the rows it is checked over: all of them,
    // not only those the data node kept.
    if crate::exec::diagnostics::divides(filter) {
        return Ok(None);
    }
    // Many rows would each be probed in sequence by the data node's worker.
    if src
        .estimate
        .is_none_or(|e| e.kept > crate::plan::pushed::PUSHED_ROWS_MAX)
    {
        return Ok(None);
    }
    let mut parts = Vec::new();
    crate::plan::conjuncts(filter, &mut parts);
    let mut pushed = Vec::new();
    for part in &parts {
        if let Some(semi) = pushed_semi(s, src, part, params)? {
            pushed.push(semi);
        }
    }
    if pushed.is_empty() {
        return Ok(None);
    }
    let request = s.key_request(src, params)?;
    let mut scan = match crate::exec::join::pushed_root(request, src) {
        None => return Ok(None),
        Some(None) => return Ok(Some(Vec::new())),
        Some(Some(scan)) => scan,
    };
    let decided: Vec<&Expr> = pushed.iter().map(|p| &p.conjunct).collect();
    for semi in &pushed {
        scan = scan.join(semi.child.clone());
    }
    let Some(rows) = crate::exec::join::read_pushed(txn, src, &scan)? else {
        return Ok(None);
    };
    // The rest of the WHERE, checked as the source's.
    let mut rest = src.clone();
    rest.filter = parts
        .iter()
        .filter(|p| !decided.contains(p))
        .cloned()
        .reduce(|a, b| Expr::Binary(crate::expr::BinOp::And, Box::new(a), Box::new(b)));
    s.matching_in(txn, &rest, params, rows).map(Some)
}

/// `part` as a pushed semi-join or anti-join of `src`'s scan: a correlated EXISTS (NOT EXISTS)
/// that reads once ([`once_query`]) over a table with an ordered index on the column its one
/// outer value is compared with, that value one of `src`'s fetched integer columns of that
/// column's type, and the once-query's conditions all decided by its pushed filter.
fn pushed_semi<S: Subqueries>(
    s: &mut S,
    src: &crate::plan::Source,
    part: &Expr,
    params: &[Value],
) -> Result<Option<PushedSemi>> {
    let Expr::Correlated { n, args, .. } = part else {
        return Ok(None);
    };
    let c = &s.correlated[*n];
    let (Some((once, column)), Kind::Exists { negated }, true, [Expr::Column(at)]) =
        (c.once.clone(), c.kind, c.semi(), args.as_slice())
    else {
        return Ok(None);
    };
    let probe = c.plan.source.as_ref().and_then(|s| s.estimate);
    let Some(inner) = once.source.as_ref() else {
        return Ok(None);
    };
    if !inner.pushed_decides && inner.filter.is_some()
        || inner.made_in_api_node()
        || inner.lock != LockMode::CommittedRead
    {
        return Ok(None);
    }
    let def = inner.table.def();
    let outer_column = src
        .fetch
        .get(*at)
        .and_then(|c| src.table.def().columns.get(usize::from(*c)));
    let (Some(from), Some(to)) = (outer_column, def.columns.get(usize::from(column))) else {
        return Ok(None);
    };
    if !(from.ty.is_integer() && from.ty == to.ty) {
        return Ok(None);
    }
    // An ordered index led by the column, the primary key's first.
    let mut indexes: Vec<&base::IndexDef> = def
        .indexes
        .iter()
        .filter(|i| i.columns.first() == Some(&column) && i.prefix(0).is_none())
        .collect();
    indexes.sort_by_key(|i| i.name != crate::plan::pushed::PRIMARY);
    let Some(index) = indexes.first() else {
        return Ok(None);
    };
    let (_, all) = s.arguments(*n, Vec::new(), params);
    let (filter, exact) = s.pushed_filter(inner, &all)?;
    if !exact {
        return Ok(None);
    }
    let Ok(key) = u16::try_from(*at) else {
        return Ok(None);
    };
    let mut child = client::JoinChild::new(&inner.table, &index.name, vec![key]);
    // Reading the table's matching rows once beats probing it for every row (by the
    // statistics, as `semi_joins_once` decides): the data node reads them once and matches
    // them by value. Only when that read decides the once-query's WHERE.
    let rows = src.estimate.map_or(0.0, |e| e.kept);
    let once_cheaper = match (inner.estimate, probe) {
        (Some(e), Some(p)) => once_is_cheaper(e, p, rows.ceil() as usize),
        _ => false,
    };
    if once_cheaper {
        match s.key_request(inner, &all)? {
            crate::exec::run::Fetch::Scan(scan, true) => child = child.read_once(&scan),
            _ => return Ok(None),
        }
    } else if let Some(f) = filter {
        child = child.filter(f);
    }
    child = if negated { child.anti() } else { child.semi() };
    Ok(Some(PushedSemi {
        child,
        conjunct: part.clone(),
    }))
}
