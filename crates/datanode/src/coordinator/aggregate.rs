//! Pushed aggregation (`ScanRequest::aggregate`): the coordinator running a scan folds the rows
//! its streams read (this node's workers and other node groups' alike) into groups, at most
//! `limits::AGGREGATE_GROUPS_MAX` at a time, and answers a row per group (its values, then a
//! partial value per function) in place of the rows. The client merges the partials of a
//! group answered in several parts, as it merges those of several data nodes.

use base::types::Collation;
use base::value::Decimal;
use base::{limits, Error, ErrorCode, TableDef, Value};
use hashbrown::HashMap;
use wire::{AggregateFn, Aggregation, ScanOrder};

/// One group's partial value of one function.
enum Partial {
    Count(u64),
    Sum(Option<i128>),
    Min(Option<i128>, Option<Value>),
    Max(Option<i128>, Option<Value>),
}

/// The groups a scan's rows fold into, between two answers.
pub(super) struct Aggregator {
    spec: Aggregation,
    /// For each group column: the collation its strings group under (None: not a string).
    collations: Vec<Option<Collation>>,
    index: HashMap<Vec<u8>, usize>,
    groups: Vec<(Vec<Value>, Vec<Partial>)>,
    key: Vec<u8>,
}

fn refused(what: String) -> Error {
    Error::new(ErrorCode::BadRequest, format!("pushed aggregation: {what}"))
}

/// An integer value as i128 (None: not an integer).
fn integer(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    }
}

impl Aggregator {
    /// The aggregator for `spec` over a scan of `table` projecting `projection`, limited to
    /// `limit` rows in `order`: refused unless every position is projected, each summed or
    /// compared column is an integer column, each group column an integer or string column
    /// (not a MEDIUM/LONG TEXT or BLOB one), and the scan has no limit and any order.
    pub(super) fn new(
        spec: Aggregation,
        table: &TableDef,
        projection: &[u16],
        limit: u64,
        order: ScanOrder,
    ) -> Result<Aggregator, Error> {
        if limit != 0 || order != ScanOrder::Any {
            return Err(refused("a scan with a limit or an order".into()));
        }
        let column = |p: u16| {
            projection
                .get(p as usize)
                .and_then(|c| table.columns.get(*c as usize))
                .ok_or_else(|| refused(format!("position {p} is not a projected column")))
        };
        for f in &spec.functions {
            if let (Some(p), false) = (f.column(), matches!(f, AggregateFn::Count(_))) {
                if !column(p)?.ty.is_integer() {
                    return Err(refused(format!("position {p} is not an integer column")));
                }
            } else if let Some(p) = f.column() {
                column(p)?;
            }
        }
        let mut collations = Vec::with_capacity(spec.group.len());
        for p in &spec.group {
            let c = column(*p)?;
            if base::lob::holds_parts(c.ty) {
                return Err(refused(format!(
                    "position {p} is a MEDIUM/LONG TEXT or BLOB column, whose values may be kept in parts"
                )));
            }
            collations.push(if c.ty.is_string() {
                Some(c.collation)
            } else if c.ty.is_integer() {
                None
            } else {
                return Err(refused(format!(
                    "position {p} is neither an integer nor a string column"
                )));
            });
        }
        Ok(Aggregator {
            spec,
            collations,
            index: HashMap::new(),
            groups: Vec::new(),
            key: Vec::new(),
        })
    }

    /// Whether it holds as many groups as it may: answer them before folding more rows.
    pub(super) fn full(&self) -> bool {
        self.groups.len() >= limits::AGGREGATE_GROUPS_MAX
    }

    /// Folds one projected row into its group.
    pub(super) fn fold(&mut self, row: &[Value]) -> Result<(), Error> {
        let short = || Error::new(ErrorCode::Internal, "pushed aggregation: a short row");
        self.key.clear();
        for (p, collation) in self.spec.group.iter().zip(&self.collations) {
            match (row.get(*p as usize).ok_or_else(short)?, collation) {
                (Value::Null, _) => self.key.push(0),
                (Value::Bytes(b), Some(c)) => {
                    self.key.push(1);
                    let at = self.key.len();
                    base::collation::sort_key(b, *c, &mut self.key);
                    let len = (self.key.len() - at) as u32;
                    self.key.extend_from_slice(&len.to_le_bytes());
                }
                (v, _) => {
                    let i = integer(v).ok_or_else(|| {
                        Error::new(ErrorCode::Internal, "pushed aggregation: a group value")
                    })?;
                    self.key.push(2);
                    self.key.extend_from_slice(&i.to_le_bytes());
                }
            }
        }
        // No group columns: one group, found without a lookup. (Comparing the empty key costs
        // more than the rest of the fold: glibc's AVX-512 memcmp takes a masked load at an empty
        // Vec's dangling address, a microcode assist of ~75 ns per row on this machine.)
        let known = if self.spec.group.is_empty() {
            (!self.groups.is_empty()).then_some(0)
        } else {
            self.index.get(self.key.as_slice()).copied()
        };
        let g = match known {
            Some(g) => g,
            None => {
                let values = self
                    .spec
                    .group
                    .iter()
                    .map(|p| row.get(*p as usize).cloned().unwrap_or(Value::Null))
                    .collect();
                let partials = self
                    .spec
                    .functions
                    .iter()
                    .map(|f| match f {
                        AggregateFn::Count(_) => Partial::Count(0),
                        AggregateFn::Sum(_) => Partial::Sum(None),
                        AggregateFn::Min(_) => Partial::Min(None, None),
                        AggregateFn::Max(_) => Partial::Max(None, None),
                    })
                    .collect();
                self.index.insert(self.key.clone(), self.groups.len());
                self.groups.push((values, partials));
                self.groups.len() - 1
            }
        };
        let Some((_, partials)) = self.groups.get_mut(g) else {
            return Err(Error::new(
                ErrorCode::Internal,
                "pushed aggregation: a group",
            ));
        };
        for (f, partial) in self.spec.functions.iter().zip(partials.iter_mut()) {
            let v = match f.column() {
                Some(p) => row.get(p as usize).ok_or_else(short)?,
                None => &Value::Null,
            };
            match (partial, f.column()) {
                (Partial::Count(n), None) => *n += 1,
                (Partial::Count(n), Some(_)) => *n += u64::from(!v.is_null()),
                (Partial::Sum(s), _) => {
                    if let Some(i) = integer(v) {
                        *s = Some(s.unwrap_or(0).saturating_add(i));
                    }
                }
                (Partial::Min(best, value), _) => {
                    if let Some(i) = integer(v) {
                        if best.is_none_or(|b| i < b) {
                            *best = Some(i);
                            *value = Some(v.clone());
                        }
                    }
                }
                (Partial::Max(best, value), _) => {
                    if let Some(i) = integer(v) {
                        if best.is_none_or(|b| i > b) {
                            *best = Some(i);
                            *value = Some(v.clone());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The groups folded so far as answer rows (group values, then partials), emptied.
    pub(super) fn take(&mut self) -> Vec<Vec<Value>> {
        self.index.clear();
        std::mem::take(&mut self.groups)
            .into_iter()
            .map(|(mut values, partials)| {
                values.extend(partials.into_iter().map(|p| match p {
                    Partial::Count(n) => Value::UInt(n),
                    Partial::Sum(None) => Value::Null,
                    Partial::Sum(Some(s)) => Value::Decimal(Decimal::new(s, 0)),
                    Partial::Min(_, v) | Partial::Max(_, v) => v.unwrap_or(Value::Null),
                }));
                values
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base::types::ColumnType;
    use base::ColumnDef;

    fn table() -> TableDef {
        let columns = vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("name", ColumnType::VarChar { length: 10 }),
            ColumnDef::new("n", ColumnType::BigInt { unsigned: false }),
        ];
        TableDef::new("t", columns, &["id"]).expect("a valid definition")
    }

    #[test]
    fn rows_fold_into_groups_under_the_column_collation() {
        let spec = Aggregation {
            group: vec![0],
            functions: vec![
                AggregateFn::Count(None),
                AggregateFn::Count(Some(1)),
                AggregateFn::Sum(1),
                AggregateFn::Min(1),
                AggregateFn::Max(1),
            ],
        };
        // Projection: name, n.
        let mut a = Aggregator::new(spec, &table(), &[1, 2], 0, ScanOrder::Any).expect("valid");
        let bytes = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        for (name, n) in [
            ("a", Value::Int(5)),
            ("A", Value::Int(-2)),
            ("b", Value::Null),
        ] {
            a.fold(&[bytes(name), n]).expect("folds");
        }
        let rows = a.take();
        assert_eq!(rows.len(), 2, "{rows:?}");
        let dec = |m: i128| Value::Decimal(Decimal::new(m, 0));
        assert_eq!(
            rows[0],
            [
                bytes("a"),
                Value::UInt(2),
                Value::UInt(2),
                dec(3),
                Value::Int(-2),
                Value::Int(5)
            ]
        );
        assert_eq!(
            rows[1],
            [
                bytes("b"),
                Value::UInt(1),
                Value::UInt(0),
                Value::Null,
                Value::Null,
                Value::Null
            ]
        );
        assert!(a.take().is_empty());
    }

    #[test]
    fn what_it_cannot_fold_is_refused() {
        let sum_of_string = Aggregation {
            group: vec![],
            functions: vec![AggregateFn::Sum(0)],
        };
        assert!(Aggregator::new(sum_of_string, &table(), &[1], 0, ScanOrder::Any).is_err());
        let out_of_range = Aggregation {
            group: vec![3],
            functions: vec![],
        };
        assert!(Aggregator::new(out_of_range, &table(), &[0], 0, ScanOrder::Any).is_err());
        let limited = Aggregation {
            group: vec![],
            functions: vec![AggregateFn::Count(None)],
        };
        assert!(Aggregator::new(limited, &table(), &[0], 5, ScanOrder::Any).is_err());
    }
}
