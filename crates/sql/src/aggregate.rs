//! Aggregates: COUNT, SUM, AVG, MIN, MAX and GROUP_CONCAT (DISTINCT too) accumulated over a
//! group's rows, and the key that makes values SQL treats as equal group together.

use std::cmp::Ordering;

use base::text::value_text;
use base::types::Collation;
use base::value::Decimal;
use base::Value;

use crate::error::SqlError;
use crate::expr::{arithmetic, compare_in, dbl, num, BinOp, Env, Expr, Num};

type Result<T> = std::result::Result<T, SqlError>;

/// An aggregate function over the rows of a group.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub kind: AggKind,
    /// None for COUNT(*).
    pub arg: Option<Expr>,
    pub distinct: bool,
    /// The collation MIN, MAX and DISTINCT compare the argument's strings under.
    pub collation: Collation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    Count,
    Sum,
    Avg,
    Min,
    Max,
    GroupConcat,
}

/// The running state of one aggregate over a group.
#[derive(Debug, Clone)]
pub struct Accumulator {
    count: u64,
    sum: Option<Num>,
    best: Option<Value>,
    concat: Vec<Vec<u8>>,
    seen: Option<std::collections::HashSet<Vec<u8>>>,
}

impl Accumulator {
    pub fn new(agg: &Aggregate) -> Accumulator {
        Accumulator {
            count: 0,
            sum: None,
            best: None,
            concat: Vec::new(),
            seen: agg.distinct.then(Default::default),
        }
    }

    pub fn add(&mut self, agg: &Aggregate, env: &Env) -> Result<()> {
        let v = match &agg.arg {
            None => {
                self.count += 1;
                return Ok(());
            }
            Some(e) => e.eval(env)?,
        };
        if v.is_null() {
            return Ok(());
        }
        if let Some(seen) = &mut self.seen {
            if !seen.insert(group_key(std::slice::from_ref(&v), &[agg.collation])) {
                return Ok(());
            }
        }
        self.count += 1;
        match agg.kind {
            AggKind::Count => {}
            AggKind::Sum | AggKind::Avg => {
                let n = num(&v);
                self.sum = Some(match (self.sum, n) {
                    (None, n) => n,
                    (Some(Num::Int(a)), Num::Int(b)) => Num::Int(a + b),
                    (Some(Num::Dbl(a)), b) | (Some(b), Num::Dbl(a)) => Num::Dbl(a + dbl(b)),
                    (Some(a), b) => match arithmetic(BinOp::Add, &num_value(a), &num_value(b))? {
                        Value::Decimal(d) => Num::Dec(d),
                        other => num(&other),
                    },
                });
            }
            AggKind::Min | AggKind::Max => {
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
            AggKind::GroupConcat => {
                if self.concat.len() < crate::GROUP_CONCAT_VALUES_MAX {
                    self.concat.push(value_text(&v).unwrap_or_default());
                }
            }
        }
        Ok(())
    }

    pub fn finish(&self, agg: &Aggregate) -> Result<Value> {
        Ok(match agg.kind {
            AggKind::Count => Value::Int(self.count as i64),
            AggKind::Sum => match self.sum {
                None => Value::Null,
                Some(Num::Int(i)) => Value::Decimal(Decimal {
                    mantissa: i,
                    scale: 0,
                }),
                Some(n) => num_value(n),
            },
            AggKind::Avg => match self.sum {
                None => Value::Null,
                Some(n) => arithmetic(BinOp::Div, &num_value(n), &Value::Int(self.count as i64))?,
            },
            AggKind::Min | AggKind::Max => self.best.clone().unwrap_or(Value::Null),
            AggKind::GroupConcat => {
                if self.count == 0 {
                    Value::Null
                } else {
                    let mut joined = self.concat.join(&b","[..]);
                    joined.truncate(crate::GROUP_CONCAT_BYTES_MAX);
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
            .unwrap_or(Value::Decimal(Decimal {
                mantissa: i,
                scale: 0,
            })),
        Num::Dec(d) => Value::Decimal(d),
        Num::Dbl(f) => Value::Double(f),
    }
}

/// A byte key equal for values SQL treats as equal (GROUP BY, DISTINCT): strings by their sort
/// key under the value's collation in `collations` (utf8mb4_general_ci past its end), numbers
/// by value, NULLs equal to each other.
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
            other => match num(other) {
                Num::Int(i) => {
                    out.push(2);
                    out.extend_from_slice(&i.to_le_bytes());
                }
                Num::Dec(d) if d.scale == 0 || d.mantissa % 10i128.pow(d.scale as u32) == 0 => {
                    out.push(2);
                    out.extend_from_slice(&(d.mantissa / 10i128.pow(d.scale as u32)).to_le_bytes());
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
