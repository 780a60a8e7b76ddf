//! Aggregates: COUNT, SUM, AVG, MIN, MAX, GROUP_CONCAT, JSON_ARRAYAGG and JSON_OBJECTAGG
//! (DISTINCT too) accumulated over a group's rows, and the key that makes values SQL treats as
//! equal group together.

use std::cmp::Ordering;

use base::text::value_text;
use base::types::Collation;
use base::value::Decimal;
use base::Value;

use crate::expr::{arithmetic, compare_in, dbl, dec_add, num, BinOp, Env, Expr, Num};
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// An aggregate function over the rows of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub kind: AggKind,
    /// None for COUNT(*).
    pub arg: Option<Expr>,
    /// Further arguments: GROUP_CONCAT concatenates them after `arg`, COUNT(DISTINCT a, b)
    /// counts distinct lists; a row where any is NULL is skipped.
    pub more: Vec<Expr>,
    pub distinct: bool,
    /// The collation MIN, MAX and DISTINCT compare the argument's strings under.
    pub collation: Collation,
    /// DISTINCT's collations for `more`, in order.
    pub more_collations: Vec<Collation>,
    /// GROUP_CONCAT's ORDER BY: each key, whether descending, its collation.
    pub order: Vec<(Expr, bool, Collation)>,
    /// GROUP_CONCAT's SEPARATOR (a comma unless given).
    pub separator: Vec<u8>,
    /// A window function's window (`expr/window.rs`): computed over the rows of its window
    /// after grouping, not over a group's rows.
    pub over: Option<Box<crate::expr::window::Over>>,
}

impl Aggregate {
    /// An aggregate of one argument (None: COUNT(*)).
    pub fn new(kind: AggKind, arg: Option<Expr>, distinct: bool, collation: Collation) -> Self {
        Aggregate {
            kind,
            arg,
            more: Vec::new(),
            distinct,
            collation,
            more_collations: Vec::new(),
            order: Vec::new(),
            separator: b",".to_vec(),
            over: None,
        }
    }

    /// Every expression the aggregate evaluates over a row.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.arg
            .iter()
            .chain(&self.more)
            .chain(self.order.iter().map(|(e, ..)| e))
            .chain(self.over.iter().flat_map(|o| o.exprs()))
    }

    pub fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.arg
            .iter_mut()
            .chain(&mut self.more)
            .chain(self.order.iter_mut().map(|(e, ..)| e))
            .chain(self.over.iter_mut().flat_map(|o| o.exprs_mut()))
    }

    /// A window function, computed over its window after grouping.
    pub fn is_window(&self) -> bool {
        self.over.is_some()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
    /// JSON_ARRAYAGG: GROUP_CONCAT of the values as JSON (NULL as null) in brackets.
    JsonArrayAgg,
    /// JSON_OBJECTAGG(key, value): GROUP_CONCAT of the members in braces; NULL keys skipped.
    JsonObjectAgg,
    /// A function that only exists as a window function (`expr/window.rs`).
    Window(crate::expr::window::WindowFn),
}

impl AggKind {
    /// Its value is one of its argument's values (MIN, MAX, LAG, FIRST_VALUE...): typed,
    /// collated and JSON as the argument is.
    pub fn is_argument_value(self) -> bool {
        use crate::expr::window::WindowFn as W;
        matches!(
            self,
            AggKind::Min
                | AggKind::Max
                | AggKind::Window(W::Lag | W::Lead | W::FirstValue | W::LastValue | W::NthValue)
        )
    }
}

/// The running state of one aggregate over a group.
#[derive(Debug, Clone)]
pub struct Accumulator {
    count: u64,
    sum: Option<Num>,
    best: Option<Value>,
    concat: Vec<Vec<u8>>,
    /// GROUP_CONCAT with ORDER BY: each value's order keys beside its text.
    ordered: Vec<(Vec<Value>, Vec<u8>)>,
    seen: Option<std::collections::HashSet<Vec<u8>>>,
    /// GROUP_CONCAT: the bytes of the values and separators so far, and the statement's row
    /// (from 1) whose value took them past group_concat_max_len.
    bytes: usize,
    cut_at: Option<u64>,
}

impl Accumulator {
    pub fn new(agg: &Aggregate) -> Accumulator {
        Accumulator {
            count: 0,
            sum: None,
            best: None,
            concat: Vec::new(),
            ordered: Vec::new(),
            seen: agg.distinct.then(Default::default),
            bytes: 0,
            cut_at: None,
        }
    }

    /// The row (from 1) whose value a GROUP_CONCAT cut at group_concat_max_len, for MariaDB's
    /// warning 1260.
    pub fn cut_at(&self) -> Option<u64> {
        self.cut_at
    }

    /// Adds the statement's row `row` (from 1) to the group; a GROUP_CONCAT keeps at most
    /// `max_len` bytes (group_concat_max_len).
    pub fn add(&mut self, agg: &Aggregate, env: &Env, row: u64, max_len: usize) -> Result<()> {
        if agg.is_window() || matches!(agg.kind, AggKind::Window(_)) {
            // Computed over its window (`exec/window.rs`), not over a group.
            return Ok(());
        }
        let v = match &agg.arg {
            None => {
                self.count += 1;
                return Ok(());
            }
            Some(e) => e.eval(env)?,
        };
        // JSON_ARRAYAGG keeps NULLs (as null), JSON_OBJECTAGG NULL values.
        if v.is_null() && agg.kind != AggKind::JsonArrayAgg {
            return Ok(());
        }
        let mut more = Vec::with_capacity(agg.more.len());
        for e in &agg.more {
            let m = e.eval(env)?;
            if m.is_null() && agg.kind != AggKind::JsonObjectAgg {
                return Ok(());
            }
            more.push(m);
        }
        if let Some(seen) = &mut self.seen {
            let key = if more.is_empty() {
                group_key(std::slice::from_ref(&v), &[agg.collation])
            } else {
                let all: Vec<Value> = std::iter::once(v.clone())
                    .chain(more.iter().cloned())
                    .collect();
                let collations: Vec<Collation> = std::iter::once(agg.collation)
                    .chain(agg.more_collations.iter().copied())
                    .collect();
                group_key(&all, &collations)
            };
            if !seen.insert(key) {
                return Ok(());
            }
        }
        self.count += 1;
        match agg.kind {
            AggKind::Count => {}
            AggKind::Window(_) => {}
            AggKind::Sum | AggKind::Avg => self.add_sum(&v)?,
            AggKind::Min | AggKind::Max => self.add_best(agg, v),
            AggKind::GroupConcat | AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => {
                if self.cut_at.is_some() && agg.order.is_empty() {
                    // Past the cut in the order values come, nothing more is shown.
                    return Ok(());
                }
                let text = match (agg.kind, &agg.arg, agg.more.first(), more.pop()) {
                    (AggKind::JsonArrayAgg, Some(e), ..) => {
                        crate::expr::funcs::json::element_text(e, v)
                    }
                    (AggKind::JsonObjectAgg, _, Some(e), Some(m)) => {
                        let mut member = crate::expr::funcs::json::key_text(&v);
                        member.push(b':');
                        member.extend(crate::expr::funcs::json::element_text(e, m));
                        member
                    }
                    (_, _, _, last) => {
                        let mut text = value_text(&v).unwrap_or_default();
                        for m in more.iter().chain(last.as_ref()) {
                            text.extend(value_text(m).unwrap_or_default());
                        }
                        text
                    }
                };
                if self.count > 1 {
                    self.bytes += agg.separator.len();
                }
                self.bytes += text.len();
                // MariaDB never cuts a JSON_OBJECTAGG.
                if self.bytes > max_len
                    && self.cut_at.is_none()
                    && agg.kind != AggKind::JsonObjectAgg
                {
                    self.cut_at = Some(row);
                }
                if self.bytes > crate::foundation::limits::GROUP_CONCAT_SORTED_BYTES_MAX {
                    // Only an ORDER BY keeps values past the cut: all are sorted first.
                    return Err(SqlError::unsupported(format!(
                        "GROUP_CONCAT ... ORDER BY over more than {} MiB of values in one group",
                        crate::foundation::limits::GROUP_CONCAT_SORTED_BYTES_MAX >> 20
                    )));
                }
                if agg.order.is_empty() {
                    self.concat.push(text);
                } else {
                    let keys = agg
                        .order
                        .iter()
                        .map(|(e, ..)| e.eval(env))
                        .collect::<Result<Vec<_>>>()?;
                    self.ordered.push((keys, text));
                }
            }
        }
        Ok(())
    }

    /// Whether [`Accumulator::remove`] can take a row back: COUNT, SUM and AVG without
    /// DISTINCT.
    pub fn removable(agg: &Aggregate) -> bool {
        matches!(agg.kind, AggKind::Count | AggKind::Sum | AggKind::Avg) && !agg.distinct
    }

    /// Takes back a row [`Accumulator::add`] added (a window frame's first row leaving it);
    /// only for what [`Accumulator::removable`] allows.
    pub fn remove(&mut self, agg: &Aggregate, env: &Env) -> Result<()> {
        let v = match &agg.arg {
            None => {
                self.count = self.count.saturating_sub(1);
                return Ok(());
            }
            Some(e) => e.eval(env)?,
        };
        if v.is_null() {
            return Ok(());
        }
        self.count = self.count.saturating_sub(1);
        if self.count == 0 {
            // No value left: SUM and AVG are NULL again.
            self.sum = None;
            return Ok(());
        }
        if matches!(agg.kind, AggKind::Sum | AggKind::Avg) {
            self.add_num(match num(&v) {
                Num::Int(i) => Num::Int(-i),
                Num::Dbl(f) => Num::Dbl(-f),
                Num::Dec(d) => Num::Dec(Decimal::new(-d.mantissa(), d.scale)),
            })?;
        }
        Ok(())
    }

    fn add_sum(&mut self, v: &Value) -> Result<()> {
        self.add_num(num(v))
    }

    fn add_num(&mut self, n: Num) -> Result<()> {
        self.sum = Some(match (self.sum, n) {
            (None, n) => n,
            (Some(Num::Int(a)), Num::Int(b)) => Num::Int(a + b),
            (Some(Num::Dbl(a)), b) | (Some(b), Num::Dbl(a)) => Num::Dbl(a + dbl(b)),
            // DECIMALs (the common sum of a DECIMAL column) without making values of them.
            (Some(Num::Dec(a)), Num::Dec(b)) => num(&dec_add(a, b, false)?),
            (Some(a), b) => match arithmetic(BinOp::Add, &num_value(a), &num_value(b))? {
                Value::Decimal(d) => Num::Dec(d),
                other => num(&other),
            },
        });
        Ok(())
    }

    fn add_best(&mut self, agg: &Aggregate, v: Value) {
        let replace = match &self.best {
            None => true,
            Some(b) => {
                let o = compare_in(&v, b, agg.collation);
                (agg.kind == AggKind::Min && o == Some(Ordering::Less))
                    || (agg.kind == AggKind::Max && o == Some(Ordering::Greater))
            }
        };
        if replace {
            self.best = Some(v);
        }
    }

    /// Adds a data node's partial values for the group (pushed aggregation): how many values
    /// (or rows) it counted, their sum, their least or greatest; NULL where it had none.
    pub fn merge(
        &mut self,
        agg: &Aggregate,
        count: Option<&Value>,
        sum: Option<&Value>,
        best: Option<&Value>,
    ) -> Result<()> {
        if let Some(Value::UInt(n)) = count {
            self.count += n;
        }
        if let Some(v) = sum.filter(|v| !v.is_null()) {
            self.add_sum(v)?;
        }
        if let Some(v) = best.filter(|v| !v.is_null()) {
            self.add_best(agg, v.clone());
        }
        Ok(())
    }

    /// The group's value; a GROUP_CONCAT cut at `max_len` bytes (group_concat_max_len).
    pub fn finish(&self, agg: &Aggregate, max_len: usize) -> Result<Value> {
        if agg.is_window() {
            // Filled in once the windows are computed.
            return Ok(Value::Null);
        }
        Ok(match agg.kind {
            AggKind::Window(_) => Value::Null,
            AggKind::Count => Value::Int(self.count as i64),
            AggKind::Sum => match self.sum {
                None => Value::Null,
                Some(Num::Int(i)) => Value::Decimal(Decimal::new(i, 0)),
                Some(n) => num_value(n),
            },
            AggKind::Avg => match self.sum {
                None => Value::Null,
                Some(n) => arithmetic(BinOp::Div, &num_value(n), &Value::Int(self.count as i64))?,
            },
            AggKind::Min | AggKind::Max => self.best.clone().unwrap_or(Value::Null),
            AggKind::GroupConcat | AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => {
                if self.count == 0 {
                    Value::Null
                } else {
                    let mut joined = if agg.order.is_empty() {
                        self.concat.join(&agg.separator[..])
                    } else {
                        let mut ordered: Vec<&(Vec<Value>, Vec<u8>)> =
                            self.ordered.iter().collect();
                        ordered.sort_by(|(a, _), (b, _)| {
                            crate::expr::aggregate::by_keys(a, b, &agg.order)
                        });
                        let texts: Vec<&[u8]> = ordered.iter().map(|(_, t)| &t[..]).collect();
                        texts.join(&agg.separator[..])
                    };
                    if joined.len() > max_len && agg.kind != AggKind::JsonObjectAgg {
                        // Cut at a character's start, as MariaDB does (it keeps whole characters).
                        let mut end = max_len;
                        while end > 0 && (joined[end] & 0xC0) == 0x80 {
                            end -= 1;
                        }
                        joined.truncate(end);
                    }
                    let brackets = match agg.kind {
                        AggKind::JsonArrayAgg => Some((b'[', b']')),
                        AggKind::JsonObjectAgg => Some((b'{', b'}')),
                        _ => None,
                    };
                    if let Some((open, close)) = brackets {
                        joined.insert(0, open);
                        joined.push(close);
                    }
                    Value::Bytes(joined)
                }
            }
        })
    }
}

fn num_value(n: Num) -> Value {
    match n {
        Num::Int(i) => i64::try_from(i)
            .map(Value::Int)
            .unwrap_or(Value::Decimal(Decimal::new(i, 0))),
        Num::Dec(d) => Value::Decimal(d),
        Num::Dbl(f) => Value::Double(f),
    }
}

/// A byte key equal for values SQL treats as equal (GROUP BY, DISTINCT): strings by their sort
/// key under the value's collation in `collations` (utf8mb4_general_ci past its end), numbers
/// by value, NULLs equal to each other.
/// A date and time in a group key, exactly: its digits packed as YYYYMMDDhhmmssffffff (zero
/// months and days kept; a date is its midnight).
fn push_datetime(out: &mut Vec<u8>, dt: base::value::DateTime) {
    let date = (i128::from(dt.date.year) * 100 + i128::from(dt.date.month)) * 100
        + i128::from(dt.date.day);
    let time = i128::from(dt.hour) * 10_000 + i128::from(dt.minute) * 100 + i128::from(dt.second);
    out.push(4);
    out.extend_from_slice(
        &((date * 1_000_000 + time) * 1_000_000 + i128::from(dt.microsecond)).to_le_bytes(),
    );
}

pub fn group_key(values: &[Value], collations: &[Collation]) -> Vec<u8> {
    let size: usize = values
        .iter()
        .map(|v| match v {
            Value::Bytes(b) => 5 + 2 * b.len(),
            _ => 17,
        })
        .sum();
    let mut out = Vec::with_capacity(size);
    for (i, v) in values.iter().enumerate() {
        match v {
            Value::Null => out.push(0),
            Value::Bytes(b) => {
                out.push(1);
                // The key's length goes before it, filled in once it is written.
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                let c = collations
                    .get(i)
                    .copied()
                    .unwrap_or(Collation::Utf8mb4GeneralCi);
                base::collation::sort_key(b, c, &mut out);
                let len = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&len.to_le_bytes());
            }
            // Exactly (a double would merge times microseconds apart).
            Value::Date(d) => push_datetime(
                &mut out,
                base::value::DateTime {
                    date: *d,
                    ..Default::default()
                },
            ),
            Value::DateTime(dt) => push_datetime(&mut out, *dt),
            Value::Time(t) => {
                out.push(5);
                out.extend_from_slice(&t.as_micros().to_le_bytes());
            }
            other => match num(other) {
                Num::Int(i) => {
                    out.push(2);
                    out.extend_from_slice(&i.to_le_bytes());
                }
                Num::Dec(d) if d.truncate(0).rescale(d.scale) == Some(d) => {
                    // A whole number: as the integer it equals, or past i128 as itself.
                    let whole = d.truncate(0).mantissa();
                    match i128::try_from(whole) {
                        Ok(i) => {
                            out.push(2);
                            out.extend_from_slice(&i.to_le_bytes());
                        }
                        Err(_) => {
                            out.push(6);
                            out.extend_from_slice(&whole.to_le_bytes());
                        }
                    }
                }
                n => {
                    out.push(3);
                    out.extend_from_slice(&dbl(n).to_bits().to_le_bytes());
                }
            },
        }
    }
    out
}

/// ORDER BY's order of two rows' sort keys: NULL first, each key ascending or descending (the
/// keys' descriptions `order` are ORDER BY's, or GROUP_CONCAT's).
pub(crate) fn by_keys<K>(a: &[Value], b: &[Value], order: &[(K, bool, Collation)]) -> Ordering {
    for ((x, y), (_, desc, c)) in a.iter().zip(b).zip(order) {
        let o = order_values(x, y, *desc, *c);
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

pub(crate) fn count_value(v: Value) -> Result<u64> {
    match v {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        Value::Bytes(b) => String::from_utf8_lossy(&b)
            .trim()
            .parse()
            .map_err(|_| SqlError::new(1210, "HY000", "Incorrect arguments to LIMIT")),
        _ => Err(SqlError::new(1210, "HY000", "Incorrect arguments to LIMIT")),
    }
}

/// ORDER BY's order of two values: NULLs first, strings under `c`, descending reversed.
pub(crate) fn order_values(x: &Value, y: &Value, desc: bool, c: Collation) -> Ordering {
    let o = match (x.is_null(), y.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => compare_in(x, y, c).unwrap_or(Ordering::Equal),
    };
    if desc {
        o.reverse()
    } else {
        o
    }
}
