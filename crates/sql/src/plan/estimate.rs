//! Row estimates from table statistics (`client::TableStats`, measured by ANALYZE TABLE): the
//! rows an access path reads and the rows a table's conditions keep of them, for EXPLAIN's
//! `rows` and `filtered`, for choosing between indexes and for the join order. A table never
//! analyzed has no estimate, and planning keeps its rules.

use client::{Table, TableStats};

use crate::expr::{BinOp, Expr};
use crate::plan::{Access, Facts};

/// The share of rows an equality keeps when no statistics count its column's values.
pub(crate) const EQUAL: f64 = 0.1;
/// The share a one-sided range (`<`, `>=`) keeps.
pub(crate) const RANGE: f64 = 1.0 / 3.0;
/// The share a two-sided range (BETWEEN, or both bounds) keeps.
pub(crate) const BETWEEN: f64 = 1.0 / 9.0;
/// The share a two-sided range over a primary or unique key reads.
pub(crate) const KEY_BETWEEN: f64 = 0.005;
/// The share a LIKE keeps.
pub(crate) const LIKE: f64 = 0.1;
/// The share any other condition (a function, a comparison of two columns) keeps.
pub(crate) const OTHER: f64 = 0.5;

/// A table's rows as read by an access path and as kept by its conditions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// The rows the access path reads (for a join step: per joined row).
    pub read: f64,
    /// The rows every condition of the table keeps of them.
    pub kept: f64,
}

/// The distinct values of column `c`, when a measured key starts with it.
fn distinct_of(stats: &TableStats, table: &Table, c: u16) -> Option<f64> {
    let def = table.def();
    let mut keys: Vec<(&str, &[u16])> = Vec::new();
    if !def.has_hidden_pk() {
        keys.push(("PRIMARY", &def.primary_key));
    }
    keys.extend(
        def.indexes
            .iter()
            .map(|i| (i.name.as_str(), &i.columns[..])),
    );
    keys.iter()
        .filter(|(_, cols)| cols.first() == Some(&c))
        .find_map(|(name, _)| stats.distinct(name, 1))
        .map(|d| d.max(1) as f64)
}

/// The share of rows `c = value` keeps.
fn equal_share(stats: &TableStats, table: &Table, c: u16) -> f64 {
    distinct_of(stats, table, c).map_or(EQUAL, |d| 1.0 / d)
}

/// The estimate of reading `table` by `access` under `facts` (the conditions on it), None when
/// the table was never analyzed.
pub(super) fn estimate(table: &Table, access: &Access, facts: &Facts) -> Option<Estimate> {
    let stats = table.stats()?;
    let rows = stats.rows as f64;
    // The columns whose conditions the access path applies.
    let mut used_equal: Vec<u16> = Vec::new();
    let mut used_range: Option<u16> = None;
    let read = match access {
        Access::Lookup { unique, keys } => {
            used_equal.extend(crate::plan::key_columns(
                table.def(),
                unique.as_ref().map(|u| u.0),
            ));
            (keys.len() as f64).min(rows)
        }
        Access::Range {
            index,
            columns,
            equal,
            lower,
            upper,
        } => {
            used_equal.extend(&columns[..equal.len()]);
            let mut read = if equal.is_empty() {
                rows
            } else {
                stats
                    .rows_per_value(index, equal.len())
                    .unwrap_or(rows * EQUAL.powi(equal.len() as i32))
            };
            if lower.is_some() || upper.is_some() {
                used_range = columns.get(equal.len()).copied();
                // Values unknown when planning (`?`): a range between two key values reads a
                // narrow slice of a primary or unique key (ids, as applications page through
                // them), a wider one of any other index (dates, amounts).
                let def = table.def();
                let own = def.indexes.iter().find(|i| i.name == *index);
                // A range on the primary key past an index's columns (an extended key) is one
                // on a unique key within their values.
                let unique = index == "PRIMARY"
                    || own.is_some_and(|i| {
                        i.kind == base::schema::IndexKind::Unique || equal.len() >= i.columns.len()
                    });
                read *= match (lower.is_some() && upper.is_some(), unique) {
                    (true, true) => KEY_BETWEEN,
                    (true, false) => BETWEEN,
                    (false, _) => RANGE,
                };
            }
            read
        }
        Access::Full => rows,
    };
    let mut share = 1.0;
    for (c, _) in &facts.equal {
        if !used_equal.contains(&(*c as u16)) {
            share *= equal_share(stats, table, *c as u16);
        }
    }
    for (c, list) in &facts.in_list {
        if !used_equal.contains(&(*c as u16)) {
            share *= (list.len() as f64 * equal_share(stats, table, *c as u16)).min(1.0);
        }
    }
    let mut ranged: Vec<usize> = Vec::new();
    for (c, _) in facts.lower.iter().chain(&facts.upper) {
        if used_range == Some(*c as u16) || ranged.contains(c) {
            continue;
        }
        ranged.push(*c);
        let both =
            facts.lower.iter().any(|(x, _)| x == c) && facts.upper.iter().any(|(x, _)| x == c);
        share *= if both { BETWEEN } else { RANGE };
    }
    for other in &facts.others {
        share *= share_of(other, stats, table);
    }
    Some(Estimate {
        read,
        kept: read * share,
    })
}

/// The share of rows condition `e` (over the table's columns) keeps: AND multiplies, OR adds
/// (at most all), comparisons of a column as the facts count them, anything else [`OTHER`].
fn share_of(e: &Expr, stats: &TableStats, table: &Table) -> f64 {
    let column = |x: &Expr| match x {
        Expr::Column(c) => u16::try_from(*c).ok(),
        _ => None,
    };
    match e {
        Expr::Binary(BinOp::And, l, r) => share_of(l, stats, table) * share_of(r, stats, table),
        Expr::Binary(BinOp::Or, l, r) => {
            (share_of(l, stats, table) + share_of(r, stats, table)).min(1.0)
        }
        Expr::Collated(_, inner) => share_of(inner, stats, table),
        Expr::Binary(op, l, r) => match (column(l).or(column(r)), op) {
            (Some(c), BinOp::Eq) => equal_share(stats, table, c),
            (Some(_), BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) => RANGE,
            (Some(c), BinOp::Ne) => 1.0 - equal_share(stats, table, c),
            _ => OTHER,
        },
        Expr::Between(x, _, _, false) if column(x).is_some() => BETWEEN,
        Expr::In(x, list, false) => match column(x) {
            Some(c) => (list.len() as f64 * equal_share(stats, table, c)).min(1.0),
            None => OTHER,
        },
        Expr::Like(_, _, false) => LIKE,
        Expr::Not(inner) => 1.0 - share_of(inner, stats, table).min(1.0),
        _ => OTHER,
    }
}
