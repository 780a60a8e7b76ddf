//! Pushed aggregation's plan: whether a grouped SELECT over one table may have the data node
//! fold its rows into groups (`client::Aggregation`), and where each aggregate's partial
//! values sit in the group rows answered, for the executor to merge (`exec/run.rs`).

use client::{AggregateFn, Aggregation, LockMode};

use crate::expr::aggregate::AggKind;
use crate::expr::Expr;
use crate::plan::{Access, OrderKey, SelectPlan};

/// What the data node folds for a plan, and how the answer reads back.
#[derive(Debug, Clone)]
pub struct PushedAggregate {
    /// Positions in the source's fetched columns.
    pub spec: Aggregation,
    /// The fetched position of each GROUP BY column, in the answer's first values.
    pub group: Vec<usize>,
    /// For each of the plan's aggregates, the answer positions of its partial count, sum and
    /// least or greatest value (after the group values).
    pub slots: Vec<Slots>,
}

/// Where one aggregate's partials sit in an answered group row.
#[derive(Debug, Clone, Copy, Default)]
pub struct Slots {
    pub count: Option<usize>,
    pub sum: Option<usize>,
    pub best: Option<usize>,
}

/// The pushed aggregation of `p`, if the data node can compute it: one table read by a scan
/// (not by key: a lookup reads a few rows) with committed reads, a WHERE the pushed filter
/// decides whole, GROUP BY plain integer or string columns (strings grouped in their column's
/// collation), COUNT of rows or of a column, SUM, AVG, MIN and MAX of plain integer columns
/// (no DISTINCT), and no column read outside an aggregate but the GROUP BY's.
pub fn pushed(p: &SelectPlan) -> Option<PushedAggregate> {
    let src = p.source.as_ref()?;
    if p.joined.is_some()
        || !p.grouped
        || p.rollup
        || src.made_in_api_node()
        || src.lock != LockMode::CommittedRead
        || !src.pushed_decides
        || matches!(src.access, Access::Lookup { .. })
        || p.aggregates.is_empty()
        || p.windowed()
    {
        return None;
    }
    let def = src.table.def();
    let column_at = |at: usize| {
        let c = *src.fetch.get(at)?;
        def.columns.get(c as usize)
    };
    let mut group = Vec::with_capacity(p.group_by.len());
    for (e, collation) in p.group_by.iter().zip(&p.group_collations) {
        let Expr::Column(at) = e else { return None };
        let c = column_at(*at)?;
        let fits = c.ty.is_integer()
            || (c.ty.is_string()
                && !c.json
                && !base::lob::holds_parts(c.ty)
                && c.collation == *collation);
        if !fits || group.contains(at) {
            return None;
        }
        group.push(*at);
    }
    // Outside the aggregates, only the GROUP BY's columns are read.
    let mut only_grouped = true;
    let mut check = |e: &Expr| e.columns(&mut |at| only_grouped &= group.contains(&at));
    p.items.iter().for_each(&mut check);
    p.having.iter().for_each(&mut check);
    for (k, ..) in &p.order {
        if let OrderKey::Expr(e) = k {
            check(e);
        }
    }
    if !only_grouped {
        return None;
    }
    let mut functions: Vec<AggregateFn> = Vec::new();
    let mut slot = |f: AggregateFn| {
        let at = match functions.iter().position(|g| *g == f) {
            Some(at) => at,
            None => {
                functions.push(f);
                functions.len() - 1
            }
        };
        Some(group.len() + at)
    };
    let mut slots = Vec::with_capacity(p.aggregates.len());
    for a in &p.aggregates {
        if a.distinct || !a.more.is_empty() || !a.order.is_empty() {
            return None;
        }
        let at = match &a.arg {
            None if a.kind == AggKind::Count => None,
            Some(Expr::Column(at)) => Some(u16::try_from(*at).ok()?),
            _ => return None,
        };
        let integer =
            at.is_some_and(|at| column_at(at as usize).is_some_and(|c| c.ty.is_integer()));
        slots.push(match (a.kind, at) {
            (AggKind::Count, at) => Slots {
                count: slot(AggregateFn::Count(at)),
                ..Slots::default()
            },
            (AggKind::Sum | AggKind::Avg, Some(at)) if integer => Slots {
                count: slot(AggregateFn::Count(Some(at))),
                sum: slot(AggregateFn::Sum(at)),
                best: None,
            },
            (AggKind::Min, Some(at)) if integer => Slots {
                best: slot(AggregateFn::Min(at)),
                ..Slots::default()
            },
            (AggKind::Max, Some(at)) if integer => Slots {
                best: slot(AggregateFn::Max(at)),
                ..Slots::default()
            },
            _ => return None,
        });
    }
    if functions.len() > base::limits::AGGREGATE_FUNCTIONS_MAX
        || group.len() > base::limits::KEY_COLUMNS_MAX
    {
        return None;
    }
    Some(PushedAggregate {
        spec: Aggregation {
            group: group.iter().map(|at| *at as u16).collect(),
            functions,
        },
        group,
        slots,
    })
}
