//! Pushed joins (NDB's SPJ): which of a join's first steps the data node can read with its
//! first table in one request (`client::Scan::join`), each by an ordered index whose leading
//! columns the rows joined so far bind, column to column of the same integer type, with every
//! condition it must check decided there or checkable after.

use crate::expr::{BinOp, Expr};
use crate::plan::join::JoinStep;
use crate::plan::{Access, Source};
use client::LockMode;

/// A step of a pushed join: the ordered index its table is read by, and where the values of
/// its leading columns sit in the rows the data node answers (the first table's fetched
/// columns, then each earlier pushed step's).
#[derive(Debug, Clone)]
pub struct PushedChild {
    pub index: String,
    pub key: Vec<u16>,
    /// What of its ON the API node still checks when the data node's reads were exact (every
    /// pushed value converted exactly): the conjuncts neither its key's equality nor decided
    /// by a pushed filter.
    pub check: Option<Expr>,
    /// The column after the key's in the index (the primary key's first past an ordered
    /// index's own: `plan::access::extends`) and the bounds its pushed conditions put on it:
    /// each key reads only its rows within them (`client::JoinChild::within`). The pushed
    /// filter still checks them.
    pub within: Option<(u16, Option<Expr>, Option<Expr>)>,
}

/// The most joined rows a pushed join is expected to make (by the tables' statistics); a join
/// expected to make more is joined by the API node. TPC-H's larger joins (Q5, Q9, SF 0.1) ran
/// 1.8-2.1 times as long pushed on a 2-core machine, joins of up to a few thousand rows faster.
pub(crate) const PUSHED_ROWS_MAX: f64 = 10_000.0;

/// The index a declared primary key is ordered by (`client::Table::index`).
pub(crate) const PRIMARY: &str = "PRIMARY";

/// The steps, from the first, the data node can join to `first` (none when `first` cannot be
/// a pushed join's scan).
/// With them, what of `filter` (the WHERE over joined rows) the API node still checks when
/// the reads were exact.
pub(crate) fn pushable(
    first: &Source,
    first_offset: usize,
    steps: &[JoinStep],
    filter: Option<&Expr>,
) -> (Vec<PushedChild>, Option<Expr>) {
    let children = pushed_children(first, first_offset, steps);
    if children.is_empty() {
        return (children, None);
    }
    let decides = Decides::new(first, first_offset, &children, steps);
    let children: Vec<PushedChild> = children
        .into_iter()
        .zip(steps)
        .map(|(mut child, step)| {
            child.check = step.on.as_ref().and_then(|on| decides.residual(on));
            child
        })
        .collect();
    let rest = filter.and_then(|f| decides.residual(f));
    (children, rest)
}

/// Which conjuncts a pushed join's exact reads decide: each child's key equality, and the
/// conditions of one table whose pushed filter (or keys, for the first) decide its own.
struct Decides {
    /// (a child's key column, the column its value comes from), as joined-row positions.
    equal: Vec<(usize, usize)>,
    /// The joined-row positions of each table whose own conditions are decided.
    decided: Vec<std::ops::Range<usize>>,
}

impl Decides {
    fn new(
        first: &Source,
        first_offset: usize,
        children: &[PushedChild],
        steps: &[JoinStep],
    ) -> Decides {
        let width = |s: &Source| s.table.def().columns.len();
        let mut decided = Vec::new();
        if first.pushed_decides || first.decided_fetch.is_some() {
            decided.push(first_offset..first_offset + width(first));
        }
        let mut equal = Vec::new();
        // A LEFT JOIN's table decides nothing of the WHERE: its NULL-filled rows meet neither
        // its conditions nor its key's equality.
        for step in steps.iter().take(children.len()).filter(|s| !s.outer) {
            let src = &step.source;
            if src.filter.is_none() || src.pushed_decides {
                decided.push(step.offset..step.offset + width(src));
            }
            let (columns, keys) = step_key(step);
            for (c, k) in columns.iter().zip(keys) {
                if let Expr::Column(from) = k {
                    equal.push((step.offset + usize::from(*c), *from));
                }
            }
        }
        Decides { equal, decided }
    }

    /// `e` without the conjuncts these reads decide (None: all of them).
    fn residual(&self, e: &Expr) -> Option<Expr> {
        let mut parts = Vec::new();
        crate::plan::conjuncts(e, &mut parts);
        parts
            .into_iter()
            .filter(|p| !self.decides(p))
            .reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
    }

    fn decides(&self, part: &Expr) -> bool {
        if let Expr::Binary(BinOp::Eq, l, r) = part {
            if let (Expr::Column(a), Expr::Column(b)) = (l.as_ref(), r.as_ref()) {
                if self
                    .equal
                    .iter()
                    .any(|&(x, y)| (x, y) == (*a, *b) || (x, y) == (*b, *a))
                {
                    return true;
                }
            }
        }
        if part.has_correlated() {
            return false;
        }
        let mut columns = Vec::new();
        part.walk(&mut |e| {
            if let Expr::Column(p) = e {
                columns.push(*p);
            }
        });
        let Some(first) = columns.first() else {
            return false;
        };
        self.decided
            .iter()
            .any(|range| range.contains(first) && columns.iter().all(|c| range.contains(c)))
    }
}

/// A pushable step's key: the index columns it binds and the expressions giving their values.
fn step_key(step: &JoinStep) -> (Vec<u16>, Vec<&Expr>) {
    match (&step.lookup, &step.probe) {
        (Some((None, keys)), _) if keys.len() == 1 => (
            step.source.table.def().primary_key.clone(),
            keys[0].iter().collect(),
        ),
        (None, Some(probe)) => (vec![probe.column], vec![&probe.key]),
        _ => (Vec::new(), Vec::new()),
    }
}

/// The bounds `src`'s pushed conditions put on the column of index `index` after its first
/// `width` (see `PushedChild::within`); None when they put none.
fn bounds_after(
    src: &Source,
    index: &str,
    width: usize,
) -> Option<(u16, Option<Expr>, Option<Expr>)> {
    use base::filter::CmpOp;
    let def = src.table.def();
    let ix = def.indexes.iter().find(|i| i.name == index)?;
    let next = match ix.columns.get(width) {
        Some(c) => ix.prefix(width).is_none().then_some(*c)?,
        None if crate::plan::access::extends(def, ix) => *def.primary_key.first()?,
        None => return None,
    };
    let (mut lower, mut upper) = (None, None);
    for p in &src.pushed {
        match p {
            crate::plan::Pushed::Cmp(c, op, e) if *c == next => match op {
                CmpOp::Lt | CmpOp::Le => upper = upper.or_else(|| Some(e.clone())),
                CmpOp::Gt | CmpOp::Ge => lower = lower.or_else(|| Some(e.clone())),
                CmpOp::Eq => {
                    lower = lower.or_else(|| Some(e.clone()));
                    upper = upper.or_else(|| Some(e.clone()));
                }
                CmpOp::Ne => {}
            },
            crate::plan::Pushed::Between(c, lo, hi) if *c == next => {
                lower = lower.or_else(|| Some(lo.clone()));
                upper = upper.or_else(|| Some(hi.clone()));
            }
            _ => {}
        }
    }
    // A division would warn a second time where the pushed filter's value warns already.
    let divides = |e: &Option<Expr>| e.as_ref().is_some_and(crate::expr::divides);
    if divides(&lower) || divides(&upper) {
        return None;
    }
    (lower.is_some() || upper.is_some()).then_some((next, lower, upper))
}

/// The steps, from the first, the data node can join to `first`.
fn pushed_children(first: &Source, first_offset: usize, steps: &[JoinStep]) -> Vec<PushedChild> {
    if !readable(first) || first.filter.as_ref().is_some_and(Expr::has_correlated) {
        return Vec::new();
    }
    // The joined rows expected, by the statistics (or the keys of a lookup): a pushed join
    // pays off when round trips weigh more than the rows, which the data node's one worker per
    // core then joins in sequence, where the API node's thread would join beside it.
    let mut rows = match (&first.access, first.estimate) {
        (Access::Lookup { unique: None, .. }, _) if !primary_ordered(first) => return Vec::new(),
        (
            Access::Lookup {
                unique: Some(_), ..
            },
            _,
        ) => return Vec::new(),
        (_, Some(e)) => e.kept,
        (Access::Lookup { keys, .. }, None) => keys.len() as f64,
        (_, None) => return Vec::new(),
    };
    if rows > PUSHED_ROWS_MAX {
        return Vec::new();
    }
    // The members read so far: (offset in the joined row, the source), for finding a joined
    // row's column in the answered rows.
    let mut members: Vec<(usize, &Source)> = vec![(first_offset, first)];
    let mut pushed = Vec::new();
    for step in steps {
        let src = &step.source;
        if step.group_start
            || step.group_end.is_some()
            || !readable(src)
            || step.on.as_ref().is_some_and(Expr::has_correlated)
        {
            break;
        }
        let def = src.table.def();
        let (columns, keys) = step_key(step);
        let index = match (&step.lookup, &step.probe) {
            (Some(_), _) if !columns.is_empty() && primary_ordered(src) => PRIMARY.to_string(),
            (None, Some(probe)) => probe.index.clone(),
            _ => break,
        };
        let mut key = Vec::with_capacity(keys.len());
        for (e, c) in keys.iter().zip(&columns) {
            let Expr::Column(p) = e else { break };
            let Some(at) = answered_at(&members, *p) else {
                break;
            };
            let (Some(from), Some(to)) = (column_at(&members, *p), def.columns.get(*c as usize))
            else {
                break;
            };
            // Column to column of one integer type, as NDB pushes: the key compares exactly.
            if !(from.ty.is_integer() && from.ty == to.ty) {
                break;
            }
            key.push(at);
        }
        if key.len() != columns.len() {
            break;
        }
        if step.outer && !decided_in_node(step, &columns, &keys) {
            break;
        }
        rows *= step.estimate.map_or(1.0, |e| e.kept);
        if rows > PUSHED_ROWS_MAX {
            break;
        }
        members.push((step.offset, src));
        let within = bounds_after(src, &index, columns.len());
        pushed.push(PushedChild {
            index,
            key,
            check: None,
            within,
        });
    }
    pushed
}

/// Whether `src`'s primary key has an ordered index (`PRIMARY`), which a pushed join reads
/// by keys.
pub(crate) fn primary_ordered(src: &Source) -> bool {
    let def = src.table.def();
    def.index(PRIMARY)
        .is_some_and(|i| def.indexes[i].columns == def.primary_key)
}

/// Whether a data node reads `src` (a table, not a derived table or information_schema) with
/// committed reads.
fn readable(src: &Source) -> bool {
    !src.made_in_api_node() && src.lock == LockMode::CommittedRead
}

/// Where joined-row position `p` sits in the answered rows.
fn answered_at(members: &[(usize, &Source)], p: usize) -> Option<u16> {
    let mut base = 0;
    for (offset, src) in members {
        let width = src.table.def().columns.len();
        if (*offset..offset + width).contains(&p) {
            let c = (p - offset) as u16;
            let at = src.fetch.iter().position(|f| *f == c)?;
            return u16::try_from(base + at).ok();
        }
        base += src.fetch.len();
    }
    None
}

/// The column joined-row position `p` holds.
fn column_at<'a>(members: &[(usize, &'a Source)], p: usize) -> Option<&'a base::schema::ColumnDef> {
    members.iter().find_map(|(offset, src)| {
        let columns = &src.table.def().columns;
        p.checked_sub(*offset).and_then(|c| columns.get(c))
    })
}

/// For a LEFT JOIN's step: whether the data node decides its ON whole, so the rows it answers
/// (a match, or NULLs) need nothing more: its own conditions all pushed and decided by the
/// pushed filter, and every other conjunct the key's equality itself.
fn decided_in_node(step: &JoinStep, columns: &[u16], keys: &[&Expr]) -> bool {
    let src = &step.source;
    if src.filter.is_some() && !src.pushed_decides {
        return false;
    }
    let Some(on) = &step.on else { return true };
    let width = src.table.def().columns.len();
    let own = |p: usize| (step.offset..step.offset + width).contains(&p);
    let mut parts = Vec::new();
    crate::plan::conjuncts(on, &mut parts);
    parts.iter().all(|part| {
        let mut reads_own = false;
        let mut reads_other = false;
        part.walk(&mut |e| {
            if let Expr::Column(p) = e {
                if own(*p) {
                    reads_own = true;
                } else {
                    reads_other = true;
                }
            }
        });
        if !reads_other {
            // Its own condition, which the pushed filter decided; one reading no column (a
            // parameter, a variable) is in no table's filter, so only the API node checks it.
            return reads_own;
        }
        let Expr::Binary(BinOp::Eq, l, r) = part else {
            return false;
        };
        let (Expr::Column(a), Expr::Column(b)) = (l.as_ref(), r.as_ref()) else {
            return false;
        };
        columns.iter().zip(keys).any(|(c, k)| {
            let mine = step.offset + *c as usize;
            let Expr::Column(theirs) = k else {
                return false;
            };
            (*a == mine && b == theirs) || (*b == mine && a == theirs)
        })
    })
}
