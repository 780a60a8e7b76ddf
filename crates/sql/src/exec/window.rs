//! Window functions computed in the API node over a SELECT's result rows, after grouping and
//! HAVING and before DISTINCT, ORDER BY and LIMIT: per window, the rows sorted by its
//! partition and order, ranks and other rows' values read by position, aggregates over each
//! row's frame (one running accumulator where every frame starts at the partition's first row
//! or ends at its last; COUNT, SUM and AVG over sliding frames take rows in at the end and
//! back at the start; MIN and MAX over sliding frames are recomputed per frame).

use std::cmp::Ordering;

use base::Value;

use crate::expr::aggregate::{order_values, Accumulator, AggKind, Aggregate};
use crate::expr::window::{frame_offset, numeric_range, Bound, Frame, Over, WindowFn as W};
use crate::expr::{arithmetic, BinOp, Context, Env};
use crate::foundation::error::{Result, SqlError};

/// A result row waiting for its window values: the row its items read (a group's first row)
/// and its aggregates' values, where each window function's value is written.
pub(crate) type Pending = (Vec<Value>, Vec<Value>);

/// Writes each window function of `aggregates` into `rows`; answers the order the rows come
/// out in when no ORDER BY sorts them: the first window's, as MariaDB gives them.
pub(crate) fn compute(
    ctx: &dyn Context,
    params: &[Value],
    aggregates: &[Aggregate],
    rows: &mut [Pending],
    max_len: usize,
) -> Result<Vec<usize>> {
    let mut first_order = None;
    for (at, agg) in aggregates.iter().enumerate() {
        let Some(over) = &agg.over else { continue };
        let sorted = {
            let w = Window {
                ctx,
                params,
                rows,
                agg,
                over,
                max_len,
            };
            let (sorted, values) = w.values()?;
            for (r, v) in values.into_iter().enumerate() {
                rows[r].1[at] = v;
            }
            sorted
        };
        first_order.get_or_insert(sorted);
    }
    Ok(first_order.unwrap_or_else(|| (0..rows.len()).collect()))
}

/// One window function over the rows.
struct Window<'a> {
    ctx: &'a dyn Context,
    params: &'a [Value],
    rows: &'a [Pending],
    agg: &'a Aggregate,
    over: &'a Over,
    max_len: usize,
}

/// The rows of one partition in window order: their row numbers, their ORDER BY values, and
/// where each row's peers (rows equal in ORDER BY) start and end.
struct Partition<'p> {
    rows: &'p [usize],
    keys: &'p [Vec<Value>],
    peer_start: Vec<usize>,
    peer_end: Vec<usize>,
}

impl Window<'_> {
    fn env<'e>(&'e self, r: usize) -> Env<'e> {
        Env {
            row: &self.rows[r].0,
            params: self.params,
            aggs: &self.rows[r].1,
            ctx: self.ctx,
        }
    }

    fn eval(&self, e: &crate::expr::Expr, r: usize) -> Result<Value> {
        e.eval(&self.env(r))
    }

    /// The rows in window order, and each row's value (by row number).
    fn values(&self) -> Result<(Vec<usize>, Vec<Value>)> {
        let n = self.rows.len();
        let mut partitions = Vec::with_capacity(n);
        let mut orders = Vec::with_capacity(n);
        for r in 0..n {
            let p = self
                .over
                .partition
                .iter()
                .map(|(e, _)| self.eval(e, r))
                .collect::<Result<Vec<_>>>()?;
            let o = self
                .over
                .order
                .iter()
                .map(|(e, ..)| self.eval(e, r))
                .collect::<Result<Vec<_>>>()?;
            partitions.push(p);
            orders.push(o);
        }
        let same_partition = |a: usize, b: usize| -> Ordering {
            for ((x, y), (_, c)) in partitions[a]
                .iter()
                .zip(&partitions[b])
                .zip(&self.over.partition)
            {
                let o = order_values(x, y, false, *c);
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        };
        let in_order = |a: &[Value], b: &[Value]| -> Ordering {
            crate::expr::aggregate::by_keys(a, b, &self.over.order)
        };
        let mut sorted: Vec<usize> = (0..n).collect();
        sorted
            .sort_by(|&a, &b| same_partition(a, b).then_with(|| in_order(&orders[a], &orders[b])));
        let mut values = vec![Value::Null; n];
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && same_partition(sorted[start], sorted[end]) == Ordering::Equal {
                end += 1;
            }
            let rows = &sorted[start..end];
            let keys: Vec<Vec<Value>> = rows.iter().map(|&r| orders[r].clone()).collect();
            let len = rows.len();
            let mut peer_start = vec![0; len];
            let mut peer_end = vec![len; len];
            for k in 1..len {
                peer_start[k] = if in_order(&keys[k - 1], &keys[k]) == Ordering::Equal {
                    peer_start[k - 1]
                } else {
                    k
                };
            }
            for k in (0..len.saturating_sub(1)).rev() {
                peer_end[k] = if peer_start[k + 1] == peer_start[k] {
                    peer_end[k + 1]
                } else {
                    k + 1
                };
            }
            let part = Partition {
                rows,
                keys: &keys,
                peer_start,
                peer_end,
            };
            for (k, v) in self.partition_values(&part)?.into_iter().enumerate() {
                values[rows[k]] = v;
            }
            start = end;
        }
        Ok((sorted, values))
    }

    /// The function's value for each row of a partition, in its order.
    fn partition_values(&self, part: &Partition) -> Result<Vec<Value>> {
        let len = part.rows.len();
        let int = |i: usize| Value::Int(i as i64);
        Ok(match self.agg.kind {
            AggKind::Window(W::RowNumber) => (1..=len).map(int).collect(),
            AggKind::Window(W::Rank) => part.peer_start.iter().map(|s| int(s + 1)).collect(),
            AggKind::Window(W::DenseRank) => {
                let mut rank = 0;
                (0..len)
                    .map(|k| {
                        if part.peer_start[k] == k {
                            rank += 1;
                        }
                        int(rank)
                    })
                    .collect()
            }
            AggKind::Window(W::PercentRank) => part
                .peer_start
                .iter()
                .map(|&s| match len {
                    1 => Value::Double(0.0),
                    _ => Value::Double(s as f64 / (len - 1) as f64),
                })
                .collect(),
            AggKind::Window(W::CumeDist) => part
                .peer_end
                .iter()
                .map(|&e| Value::Double(e as f64 / len as f64))
                .collect(),
            AggKind::Window(W::Ntile) => self.ntile(part)?,
            AggKind::Window(W::Lag | W::Lead) => self.shifted(part)?,
            AggKind::Window(W::FirstValue | W::LastValue | W::NthValue) => {
                self.framed_value(part)?
            }
            _ => self.framed_aggregate(part)?,
        })
    }

    /// NTILE(n): the rows dealt into n buckets in order, the first ones one row larger.
    fn ntile(&self, part: &Partition) -> Result<Vec<Value>> {
        let len = part.rows.len();
        let mut out = Vec::with_capacity(len);
        for (k, &r) in part.rows.iter().enumerate() {
            let arg = self.agg.arg.as_ref().map(|e| self.eval(e, r)).transpose()?;
            let buckets = match arg.as_ref().and_then(integer) {
                Some(b) if b > 0 => b as u64 as usize,
                _ => {
                    return Err(SqlError::new(
                        4024,
                        "HY000",
                        "Argument of NTILE must be greater than 0",
                    ))
                }
            };
            let (size, extra) = (len / buckets, len % buckets);
            let big = extra * (size + 1);
            let bucket = if k < big {
                k / (size + 1)
            } else {
                extra + (k - big) / size.max(1)
            };
            out.push(Value::Int(bucket as i64 + 1));
        }
        Ok(out)
    }

    /// LAG and LEAD: the argument's value `offset` rows before or after, else the default.
    fn shifted(&self, part: &Partition) -> Result<Vec<Value>> {
        let len = part.rows.len();
        let mut out = Vec::with_capacity(len);
        for (k, &r) in part.rows.iter().enumerate() {
            let offset = match self.agg.more.first() {
                None => 1,
                Some(e) => match integer(&self.eval(e, r)?) {
                    Some(o) => o,
                    None => {
                        out.push(Value::Null);
                        continue;
                    }
                },
            };
            let offset = if self.agg.kind == AggKind::Window(W::Lag) {
                offset.checked_neg()
            } else {
                Some(offset)
            };
            let target = offset
                .and_then(|o| i64::try_from(k).ok()?.checked_add(o))
                .filter(|t| (0..len as i64).contains(t));
            out.push(match (target, &self.agg.arg) {
                (Some(t), Some(arg)) => self.eval(arg, part.rows[t as usize])?,
                (None, _) => match self.agg.more.get(1) {
                    Some(default) => self.eval(default, r)?,
                    None => Value::Null,
                },
                (Some(_), None) => Value::Null,
            });
        }
        Ok(out)
    }

    /// FIRST_VALUE, LAST_VALUE, NTH_VALUE: the argument at a place of the row's frame.
    fn framed_value(&self, part: &Partition) -> Result<Vec<Value>> {
        let len = part.rows.len();
        let mut out = Vec::with_capacity(len);
        for (k, &r) in part.rows.iter().enumerate() {
            let (start, end) = self.frame(part, k)?;
            let at = match self.agg.kind {
                AggKind::Window(W::FirstValue) => Some(start),
                AggKind::Window(W::LastValue) => end.checked_sub(1),
                _ => {
                    let nth = match self.agg.more.first() {
                        Some(e) => integer(&self.eval(e, r)?),
                        None => None,
                    };
                    nth.filter(|n| *n >= 1)
                        .and_then(|n| start.checked_add(n as u64 as usize - 1))
                }
            };
            out.push(match (at, &self.agg.arg) {
                (Some(at), Some(arg)) if at >= start && at < end => {
                    self.eval(arg, part.rows[at])?
                }
                _ => Value::Null,
            });
        }
        Ok(out)
    }

    /// An aggregate over each row's frame: one running accumulator where every frame starts
    /// at the partition's first row (or ends at its last), else each frame's rows anew.
    fn framed_aggregate(&self, part: &Partition) -> Result<Vec<Value>> {
        let len = part.rows.len();
        let plain = Aggregate {
            over: None,
            ..self.agg.clone()
        };
        let mut frames = Vec::with_capacity(len);
        for k in 0..len {
            frames.push(self.frame(part, k)?);
        }
        let add = |acc: &mut Accumulator, at: usize| -> Result<()> {
            let r = part.rows[at];
            acc.add(&plain, &self.env(r), r as u64 + 1, self.max_len)
        };
        let mut out = vec![Value::Null; len];
        if frames.iter().all(|(s, _)| *s == 0) {
            let mut acc = Accumulator::new(&plain);
            let mut added = 0;
            for (k, &(_, end)) in frames.iter().enumerate() {
                while added < end {
                    add(&mut acc, added)?;
                    added += 1;
                }
                out[k] = acc.finish(&plain, self.max_len)?;
            }
        } else if frames.iter().all(|(_, e)| *e == len) {
            let mut acc = Accumulator::new(&plain);
            let mut lowest = len;
            for (k, &(start, _)) in frames.iter().enumerate().rev() {
                while lowest > start {
                    lowest -= 1;
                    add(&mut acc, lowest)?;
                }
                out[k] = acc.finish(&plain, self.max_len)?;
            }
        } else if Accumulator::removable(&plain) {
            // Both edges of the frames move forward: rows join at the end, leave at the start.
            let mut acc = Accumulator::new(&plain);
            let (mut low, mut high) = (0, 0);
            for (k, &(start, end)) in frames.iter().enumerate() {
                let end = end.max(start);
                if start >= high || start < low || end < high {
                    acc = Accumulator::new(&plain);
                    (low, high) = (start, start);
                }
                while high < end {
                    add(&mut acc, high)?;
                    high += 1;
                }
                while low < start {
                    let r = part.rows[low];
                    acc.remove(&plain, &self.env(r))?;
                    low += 1;
                }
                out[k] = acc.finish(&plain, self.max_len)?;
            }
        } else {
            // MIN and MAX over sliding frames: each frame's rows anew.
            for (k, &(start, end)) in frames.iter().enumerate() {
                let mut acc = Accumulator::new(&plain);
                for at in start..end {
                    add(&mut acc, at)?;
                }
                out[k] = acc.finish(&plain, self.max_len)?;
            }
        }
        Ok(out)
    }

    /// Row `k`'s frame in its partition: the positions [start, end) (empty when start >= end).
    fn frame(&self, part: &Partition, k: usize) -> Result<(usize, usize)> {
        let len = part.rows.len();
        let Some(frame) = &self.over.frame else {
            return Ok(match self.over.order.is_empty() {
                true => (0, len),
                false => (0, part.peer_end[k]),
            });
        };
        let start = self.bound(frame, &frame.start, part, k, true)?;
        let end = self.bound(frame, &frame.end, part, k, false)?;
        Ok((start.min(len), end.min(len)))
    }

    /// Where one end of row `k`'s frame falls: the first position in it (`start`) or the
    /// first past it.
    fn bound(
        &self,
        frame: &Frame,
        bound: &Bound,
        part: &Partition,
        k: usize,
        start: bool,
    ) -> Result<usize> {
        let len = part.rows.len();
        let offset = |e: &crate::expr::Expr| -> Result<Value> {
            let v = self.eval(e, part.rows[k])?;
            frame_offset(&v, frame.rows)?;
            Ok(v)
        };
        let rows_offset = |e: &crate::expr::Expr| -> Result<usize> {
            let v = offset(e)?;
            Ok(match v {
                Value::UInt(u) => usize::try_from(u).unwrap_or(usize::MAX),
                v => integer(&v).map_or(usize::MAX, |i| usize::try_from(i).unwrap_or(usize::MAX)),
            })
        };
        Ok(match (bound, frame.rows) {
            (Bound::UnboundedPreceding, _) => 0,
            (Bound::UnboundedFollowing, _) => len,
            (Bound::CurrentRow, true) => k + usize::from(!start),
            (Bound::CurrentRow, false) if start => part.peer_start[k],
            (Bound::CurrentRow, false) => part.peer_end[k],
            (Bound::Preceding(e), true) => {
                (k + usize::from(!start)).saturating_sub(rows_offset(e)?)
            }
            (Bound::Following(e), true) => {
                (k + usize::from(!start)).saturating_add(rows_offset(e)?)
            }
            (Bound::Preceding(e) | Bound::Following(e), false) => {
                let (_, desc, collation) = &self.over.order[0];
                let Some(x) = part.keys[k].first().filter(|x| !x.is_null()) else {
                    // A NULL key's range is its peers, the other NULLs.
                    return Ok(if start {
                        part.peer_start[k]
                    } else {
                        part.peer_end[k]
                    });
                };
                if !matches!(
                    x,
                    Value::Int(_)
                        | Value::UInt(_)
                        | Value::Decimal(_)
                        | Value::Double(_)
                        | Value::Float(_)
                ) {
                    return Err(numeric_range());
                }
                let m = offset(e)?;
                let toward_start = matches!(bound, Bound::Preceding(_));
                let op = if toward_start != *desc {
                    BinOp::Sub
                } else {
                    BinOp::Add
                };
                let limit = arithmetic(op, x, &m)?;
                let key = |at: usize| part.keys[at].first().unwrap_or(&Value::Null);
                let mut lo = 0;
                let mut hi = len;
                // The first position past the rows before the limit (start), or past the rows
                // up to it (end).
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    let o = order_values(key(mid), &limit, *desc, *collation);
                    let before = if start {
                        o == Ordering::Less
                    } else {
                        o != Ordering::Greater
                    };
                    if before {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                lo
            }
        })
    }
}

/// An integer value, as window offsets and bucket counts are read.
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Decimal(d) if d.scale == 0 => i64::try_from(d.mantissa()).ok(),
        Value::Double(f) if f.fract() == 0.0 => Some(*f as i64),
        _ => None,
    }
}
