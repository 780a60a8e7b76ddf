//! A table's access path from what the WHERE says of its columns (`Facts`): a key lookup
//! (primary or unique), an ordered-index range (extended into the primary key where every
//! index column is equal), or a full scan.

use base::schema::IndexKind;

use super::{Access, Facts, Table};

/// Chooses the access path: a full key lookup beats a range, which beats a full scan; among
/// ranges, the one reading the fewest rows by the table's statistics, or without them the
/// longest equal prefix, wins.
pub(super) fn choose_access(table: &Table, facts: &Facts) -> Access {
    let def = table.def();
    if !def.has_hidden_pk() {
        if let Some(keys) = facts.keys(&def.primary_key) {
            return Access::Lookup { unique: None, keys };
        }
    }
    for (i, index) in def.indexes.iter().enumerate() {
        // An index holding column prefixes is only ever scanned: its rows are checked whole.
        if index.kind == IndexKind::Unique && !index.has_prefix() {
            // A unique lookup cannot find rows whose key holds NULL; equality never matches
            // NULL, so that loses nothing.
            if let Some(keys) = facts.keys(&index.columns) {
                return Access::Lookup {
                    unique: Some((i as u16, index.name.clone())),
                    keys,
                };
            }
        }
    }
    let mut best: Option<(f64, Access)> = None;
    for index in &def.indexes {
        let mut equal = Vec::new();
        for c in &index.columns {
            match facts.equal(*c) {
                Some(e) => equal.push(e.clone()),
                None => break,
            }
        }
        let mut columns = index.columns.clone();
        let bounded = |c: Option<u16>| {
            c.is_some_and(|c| {
                facts
                    .lower
                    .iter()
                    .chain(&facts.upper)
                    .any(|(x, _)| *x == c as usize)
            })
        };
        // Not where an equal value reads an outer row (a join's probe or a correlated
        // subquery's, which read by the index's keys alone).
        let outer = equal.iter().any(crate::plan::join::reads_outer);
        if equal.len() == columns.len()
            && !outer
            && extends(def, index)
            && bounded(def.primary_key.first().copied())
        {
            // Every column equal and a range on the primary key's first: an ordered index's
            // entries end with the primary key, so the range reads only its slice (an extended
            // key, as InnoDB's).
            columns.extend(&def.primary_key);
        }
        let next = columns.get(equal.len()).map(|c| *c as usize);
        let lower = next.and_then(|c| facts.lower.iter().find(|(x, _)| *x == c));
        let upper = next.and_then(|c| facts.upper.iter().find(|(x, _)| *x == c));
        let score = equal.len() * 2 + lower.is_some() as usize + upper.is_some() as usize;
        if score == 0 {
            continue;
        }
        let access = Access::Range {
            index: index.name.clone(),
            columns,
            equal,
            lower: lower.map(|(_, e)| e.clone()),
            upper: upper.map(|(_, e)| e.clone()),
        };
        // Fewer rows read is better; without statistics, a higher score.
        let rank = match crate::plan::estimate::estimate(table, &access, facts) {
            Some(e) => -e.read,
            None => score as f64,
        };
        if best.as_ref().is_some_and(|(r, _)| *r >= rank) {
            continue;
        }
        best = Some((rank, access));
    }
    best.map(|(_, a)| a).unwrap_or(Access::Full)
}

/// Whether a range may go on from `index`'s columns into the primary key's, which end each of
/// its entries: an ordered index holding no column prefix and not the primary key's first
/// column, of a table with a primary key of its own.
pub(crate) fn extends(def: &base::TableDef, index: &base::schema::IndexDef) -> bool {
    index.kind == IndexKind::Ordered
        && !index.has_prefix()
        && !def.has_hidden_pk()
        && def
            .primary_key
            .first()
            .is_some_and(|c| !index.columns.contains(c))
}
