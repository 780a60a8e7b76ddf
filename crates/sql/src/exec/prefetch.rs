//! Correlated subqueries read for many outer rows at once: a subquery reading one table by
//! keys computed from the outer values has every value set's keys read in one batch, and one
//! reading an ordered index by equalities on its leading integer columns has every value set's
//! prefix read by batched key access, the rows then shared out by their prefix; each value set
//! still checks its rows against the whole WHERE (`Executor::matching`).

use std::collections::HashMap;
use std::sync::Arc;

use base::Value;
use client::{ExecType, LockMode, Transaction};

use crate::exec::join::Joining;
use crate::exec::run::{key_value, Fetch};
use crate::exec::subquery::{exact_key, Subqueries};
use crate::exec::{Exec, Executor};
use crate::expr::Expr;
use crate::foundation::error::Result;
use crate::plan::{Access, Pushed, Source};

/// The rows each wanted value set's subquery run will read, when read ahead.
type Prefetched = Vec<Option<Vec<Vec<Value>>>>;

pub(crate) trait Prefetching: Exec {
    /// For a correlated subquery reading one table by keys: the rows for each of the `wanted`
    /// argument values, read in one batch (as a join reads its inner table) instead of one
    /// round trip each. None for the values of other subqueries, which read on their own.
    #[allow(clippy::type_complexity)]
    fn prefetch(
        &mut self,
        txn: &mut Transaction,
        wanted: &[(usize, Vec<u8>, Vec<Value>)],
        params: &[Value],
    ) -> Result<Prefetched> {
        let mut out = vec![None; wanted.len()];
        let mut subqueries: Vec<usize> = wanted.iter().map(|w| w.0).collect();
        subqueries.sort_unstable();
        subqueries.dedup();
        'subquery: for n in subqueries {
            if self.correlated[n].nested {
                // Its rows need its own subqueries run for them: read as a SELECT reads.
                continue;
            }
            let plan = Arc::clone(&self.correlated[n].plan);
            let Some(src) = plan.source.as_ref().filter(|s| {
                plan.joined.is_none() && s.derived.is_none() && crate::plan::virtual_of(s).is_none()
            }) else {
                continue;
            };
            if matches!(src.access, Access::Range { .. }) {
                self.prefetch_by_index(txn, n, src, wanted, params, &mut out)?;
                continue;
            }
            // The index read (None: the primary key), the keys, and each value set's share.
            let mut index: Option<Option<u16>> = None;
            let mut keys = Vec::new();
            let mut shares = Vec::new();
            for (i, w) in wanted.iter().enumerate().filter(|(_, w)| w.0 == n) {
                let (_, all) = self.arguments(n, w.2.clone(), params);
                let start = keys.len();
                match self.fetch_request(src, &all)? {
                    Fetch::Nothing => {}
                    Fetch::Keys {
                        unique, keys: k, ..
                    } if index.is_none_or(|i| i == unique) => {
                        index = Some(unique);
                        keys.extend(k);
                    }
                    _ => continue 'subquery,
                }
                shares.push((i, start, keys.len()));
            }
            if shares.len() < 2 {
                continue;
            }
            let unique = index.flatten();
            let mut found =
                self.read_each(txn, ExecType::NoCommit, unique, &keys, src, &src.fetch)?;
            for (i, start, end) in shares {
                out[i] = Some(
                    found[start..end]
                        .iter_mut()
                        .filter_map(Option::take)
                        .collect(),
                );
            }
        }
        Ok(out)
    }

    /// [`Self::prefetch`] for subquery `n` reading `src` by an ordered index: when the range
    /// is equalities on leading integer columns (no bounds after them) and the read takes no
    /// locks, the rows of every wanted value set's prefix in one batched key access, with the
    /// pushed conditions that read no outer value, shared out by prefix into `out`.
    fn prefetch_by_index(
        &mut self,
        txn: &mut Transaction,
        n: usize,
        src: &Source,
        wanted: &[(usize, Vec<u8>, Vec<Value>)],
        params: &[Value],
        out: &mut Prefetched,
    ) -> Result<()> {
        let Access::Range {
            index,
            columns,
            equal,
            lower,
            upper,
        } = &src.access
        else {
            return Ok(());
        };
        let def = src.table.def();
        // Bounds past the index's own columns (an extended key, on the primary key) are pushed
        // conditions too: reading each key's whole prefix loses nothing. Other bounds are not
        // read by keys.
        let own = def
            .indexes
            .iter()
            .find(|i| i.name == *index)
            .map_or(0, |i| i.columns.len());
        if (lower.is_some() || upper.is_some()) && equal.len() < own {
            return Ok(());
        }
        let prefix = &columns[..equal.len()];
        let places: Option<Vec<usize>> = prefix
            .iter()
            .map(|c| {
                let integer = def.columns.get(*c as usize)?.ty.is_integer();
                src.fetch.iter().position(|f| f == c).filter(|_| integer)
            })
            .collect();
        let mine: Vec<usize> = (0..wanted.len()).filter(|i| wanted[*i].0 == n).collect();
        let (Some(places), false, true) = (places, equal.is_empty(), mine.len() > 1) else {
            return Ok(());
        };
        if src.lock != LockMode::CommittedRead {
            return Ok(());
        }
        // Each value set's prefix (None: a NULL in it, which no row matches), and its values.
        let mut prefixes: Vec<(usize, Option<Vec<Value>>, Vec<Value>)> =
            Vec::with_capacity(mine.len());
        let mut first_params = None;
        for i in mine {
            let (_, all) = self.arguments(n, wanted[i].2.clone(), params);
            let mut key = Some(Vec::with_capacity(equal.len()));
            for (e, c) in equal.iter().zip(prefix) {
                match key_value(&def.columns[*c as usize], self.free(e, &all)?) {
                    Ok(Some(v)) => key.iter_mut().for_each(|k| k.push(v.clone())),
                    Ok(None) => key = None,
                    // Not exactly a value of the column: read as the subquery reads.
                    Err(()) => return Ok(()),
                }
            }
            first_params.get_or_insert_with(|| all.clone());
            prefixes.push((i, key, all));
        }
        let mut keys: Vec<Vec<Value>> = prefixes.iter().filter_map(|(_, k, _)| k.clone()).collect();
        distinct(&mut keys);
        if keys.len() > crate::plan::join::probe_values_max(&src.table) {
            return Ok(());
        }
        // The pushed conditions every value set shares: those reading none of its values.
        let own_params = self.correlated[n].params;
        let mut shared = src.clone();
        shared.pushed.retain(|p| !reads_params_from(p, own_params));
        let (filter, _) = self.pushed_filter(&shared, first_params.as_deref().unwrap_or(&[]))?;
        // An EXISTS whose every condition the data node's filter and the keys decide needs
        // only a key's first row.
        let first = self.correlated[n].semi() && decided_by_keys(src, prefix, own_params);
        let by_prefix = |found: Vec<Vec<Value>>| {
            let mut by: HashMap<Vec<u8>, Vec<Vec<Value>>> = HashMap::new();
            for row in found {
                let key: Vec<Value> = places.iter().map(|p| row[*p].clone()).collect();
                by.entry(exact_key(&key)).or_default().push(row);
            }
            by
        };
        let found = self.scan_by_keys(txn, src, index, &keys, filter.clone(), first)?;
        let mut found = by_prefix(found);
        if first {
            // A key whose first rows the whole WHERE refuses (a value the data node compares
            // otherwise than SQL) is read again whole.
            let mut again: Vec<Vec<Value>> = Vec::new();
            for (_, key, all) in &prefixes {
                let Some(k) = key else { continue };
                let rows = found.get(&exact_key(k)).cloned().unwrap_or_default();
                if !rows.is_empty() && self.matching(src, all, rows)?.is_empty() {
                    again.push(k.clone());
                }
            }
            distinct(&mut again);
            if !again.is_empty() {
                let whole = self.scan_by_keys(txn, src, index, &again, filter, false)?;
                for k in &again {
                    found.remove(&exact_key(k));
                }
                found.extend(by_prefix(whole));
            }
        }
        for (i, key, _) in prefixes {
            out[i] = Some(match key {
                Some(k) => found.get(&exact_key(&k)).cloned().unwrap_or_default(),
                None => Vec::new(),
            });
        }
        Ok(())
    }
}

impl<S: Exec> Prefetching for S {}

/// `keys` sorted by their exact bytes, each once (the bytes made once per key).
fn distinct(keys: &mut Vec<Vec<Value>>) {
    let mut keyed: Vec<(Vec<u8>, Vec<Value>)> =
        keys.drain(..).map(|k| (exact_key(&k), k)).collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    keyed.dedup_by(|a, b| a.0 == b.0);
    keys.extend(keyed.into_iter().map(|(_, k)| k));
}

/// Whether every condition of `src`'s WHERE is pushed to the data node and those reading the
/// subquery's outer values (parameters from `own_params` on) are equalities on the `prefix`
/// columns its keys fix: then a row the keys and the pushed filter find satisfies the WHERE.
fn decided_by_keys(src: &Source, prefix: &[u16], own_params: usize) -> bool {
    let mut parts = Vec::new();
    if let Some(f) = &src.filter {
        crate::plan::conjuncts(f, &mut parts);
    }
    parts.len() == src.pushed.len()
        && src.pushed.iter().all(|p| match p {
            Pushed::Cmp(c, client::CmpOp::Eq, _) if prefix.contains(c) => true,
            other => !reads_params_from(other, own_params),
        })
}

/// Whether a pushed condition reads a `?` parameter at `from` or after (an outer value of the
/// correlated subquery it belongs to).
fn reads_params_from(p: &Pushed, from: usize) -> bool {
    let reads = |e: &Expr| {
        let mut found = false;
        e.walk(&mut |x| found |= matches!(x, Expr::Param(i) if *i >= from));
        found
    };
    match p {
        Pushed::Cmp(_, _, e) | Pushed::Like(_, e) => reads(e),
        Pushed::Between(_, lo, hi) => reads(lo) || reads(hi),
        Pushed::In(_, list) => list.iter().any(reads),
        Pushed::IsNull(..) => false,
        Pushed::Prefixes {
            start,
            length,
            values,
            ..
        } => reads(start) || reads(length) || values.iter().any(reads),
        Pushed::Any(branches) => branches
            .iter()
            .flatten()
            .any(|p| reads_params_from(p, from)),
    }
}
