//! Scans (`Scan`, `ScanPart`): the request with its bounds, filter and order, and its encoding.

use crate::codec::{DecodeError, DecodeResult, Reader, Writer};
use base::filter::{CmpOp, Filter};
use base::{limits, Value};

/// A bound of an ordered-index scan over a prefix of the index columns.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    pub values: Vec<Value>,
    pub inclusive: bool,
}

/// Result order of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ScanOrder {
    /// Whatever order partitions answer in (fastest).
    Any = 0,
    Ascending = 1,
    Descending = 2,
}

/// A table scan or an ordered-index scan with bounds, a filter, a projection and a row limit.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanRequest {
    pub table: u32,
    /// The version of the table's definition the scan was built against.
    pub version: u32,
    /// None: full table scan; Some(i): ordered index i of the table.
    pub index: Option<u16>,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
    pub filter: Filter,
    /// Columns to return; empty means all visible columns.
    pub projection: Vec<u16>,
    /// 0 means no limit.
    pub limit: u64,
    pub order: ScanOrder,
    /// The client's handle of a transaction whose changes the scan sees (as it sees committed
    /// rows for the rest); 0: none, committed rows only.
    pub transaction: u64,
    /// Rows and bytes the client takes per batch (0: the data node's default; either is held
    /// to its limit, `base::limits::SCAN_BATCH_ROWS_MAX` and `SCAN_BATCH_BYTES_MAX`). The node
    /// sends one `ScanRows` frame per batch and the next only when asked (`ScanNext`).
    pub batch_rows: u32,
    pub batch_bytes: u32,
    /// Set: the data node folds the matching rows into groups and answers one row per group
    /// (pushed aggregation), not the rows; `limit` and `order` must be 0 and `Any`.
    pub aggregate: Option<Aggregation>,
    /// Set (with an index, no bounds, order `Any` or `Ascending`): the scan reads the rows
    /// whose index prefix equals one of these keys (each one value per leading index column,
    /// the same count for all), in one request: NDB's batched key access, as a join probes an
    /// index with the values of many joined rows. At most `limits::SCAN_KEYS_MAX`.
    pub keys: Vec<Vec<Value>>,
    /// With `keys`: each partition answers at most one row per key (the first in index order
    /// that the filter keeps), as a semi-join asks only whether a key has a match.
    pub first_per_key: bool,
    /// A pushed join (NDB's SPJ): tables read inside the data node for each row this scan
    /// finds, by keys taken from that row's columns, and answered joined, each row holding the
    /// scan's projected columns, then each child's in order (NULLs for an outer child without
    /// a match). No aggregation with a join. At most `limits::JOIN_CHILDREN_MAX`.
    pub join: Vec<JoinChild>,
}

/// A table a pushed join reads for each joined row: the rows of `table` whose ordered index
/// `index` holds, in its leading columns, the values of the joined row's columns `key`.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinChild {
    pub table: u32,
    pub version: u32,
    pub index: u16,
    /// Positions in the joined row so far (the scan's projection, then the earlier children's),
    /// one per leading index column, whose values the index must hold.
    pub key: Vec<u16>,
    /// The child's own conditions, over its columns.
    pub filter: Filter,
    /// Columns answered; empty means all visible columns.
    pub projection: Vec<u16>,
    /// What a joined row with and without matches becomes.
    pub kind: JoinKind,
    /// Set: the child's rows are read once, through this range, and matched to the joined rows
    /// by the values of the index's leading columns the key binds (a hash join in the data
    /// node), not read by the joined rows' keys.
    pub read: Option<ChildRead>,
    /// Bounds on the index columns after the key's (values from the first column past the
    /// key's; into the primary key's past an ordered index's own, which end its entries): each
    /// key reads only its rows within them. Not with `read`.
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
}

/// The rows of a pushed join's child read once: an ordered index's range (or the whole table).
#[derive(Debug, Clone, PartialEq)]
pub struct ChildRead {
    /// None: the whole table.
    pub index: Option<u16>,
    pub lower: Option<Bound>,
    pub upper: Option<Bound>,
}

/// How a pushed join's child joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum JoinKind {
    /// A row for each match; a joined row without one is dropped.
    Inner = 0,
    /// A row for each match; a joined row without one goes on with NULLs for the child (LEFT
    /// JOIN).
    Outer = 1,
    /// The joined row once if the child has a match, adding no columns (EXISTS: a semi-join).
    Semi = 2,
    /// The joined row once if the child has no match, adding no columns (NOT EXISTS: an
    /// anti-join; a key holding NULL has none).
    Anti = 3,
}

/// A scan's rows folded into groups by the data node. Each answered row holds a group's values
/// of the `group` columns, then one partial value per function; the partials of several rows
/// of one group (from several data nodes, or a group answered in parts) add up.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregation {
    /// The columns rows group by, as positions in the scan's projection (none: one group,
    /// answered only if some row matched).
    pub group: Vec<u16>,
    pub functions: Vec<AggregateFn>,
}

/// A partial aggregate over a group's rows; columns are positions in the scan's projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggregateFn {
    /// The rows (None), or a column's non-NULL values: an unsigned integer.
    Count(Option<u16>),
    /// The sum of an integer column's non-NULL values, exact, as a DECIMAL of scale 0 (NULL
    /// over none).
    Sum(u16),
    /// The least and greatest of an integer column's non-NULL values (NULL over none).
    Min(u16),
    Max(u16),
}

impl AggregateFn {
    /// The projected column it reads, if any.
    pub fn column(self) -> Option<u16> {
        match self {
            AggregateFn::Count(c) => c,
            AggregateFn::Sum(c) | AggregateFn::Min(c) | AggregateFn::Max(c) => Some(c),
        }
    }
}

fn put_aggregation(out: &mut Vec<u8>, a: &Option<Aggregation>) {
    let Some(a) = a else {
        out.put_u8(0);
        return;
    };
    out.put_u8(1);
    out.put_u16s(&a.group);
    out.put_u32(a.functions.len() as u32);
    for f in &a.functions {
        let (tag, column) = match *f {
            AggregateFn::Count(None) => (0, 0),
            AggregateFn::Count(Some(c)) => (1, c),
            AggregateFn::Sum(c) => (2, c),
            AggregateFn::Min(c) => (3, c),
            AggregateFn::Max(c) => (4, c),
        };
        out.put_u8(tag);
        out.put_u16(column);
    }
}

fn get_aggregation(r: &mut Reader) -> DecodeResult<Option<Aggregation>> {
    match r.u8()? {
        0 => return Ok(None),
        1 => {}
        tag => {
            return Err(DecodeError::BadTag {
                what: "aggregation",
                tag,
            })
        }
    }
    let group = r.u16s("aggregation groups", limits::KEY_COLUMNS_MAX)?;
    let n = r.count("aggregate functions", limits::AGGREGATE_FUNCTIONS_MAX, 3)?;
    let mut functions = Vec::with_capacity(n);
    for _ in 0..n {
        let tag = r.u8()?;
        let c = r.u16()?;
        functions.push(match tag {
            0 => AggregateFn::Count(None),
            1 => AggregateFn::Count(Some(c)),
            2 => AggregateFn::Sum(c),
            3 => AggregateFn::Min(c),
            4 => AggregateFn::Max(c),
            tag => {
                return Err(DecodeError::BadTag {
                    what: "aggregate function",
                    tag,
                })
            }
        });
    }
    Ok(Some(Aggregation { group, functions }))
}

pub(crate) fn put_scan_request(out: &mut Vec<u8>, s: &ScanRequest) {
    out.put_u32(s.table);
    out.put_u32(s.version);
    out.put_u16(s.index.map_or(u16::MAX, |i| i));
    put_bound(out, &s.lower);
    put_bound(out, &s.upper);
    put_filter(out, &s.filter);
    out.put_u16s(&s.projection);
    out.put_u64(s.limit);
    out.put_u8(s.order as u8);
    out.put_u64(s.transaction);
    out.put_u32(s.batch_rows);
    out.put_u32(s.batch_bytes);
    put_aggregation(out, &s.aggregate);
    out.put_u32(s.keys.len() as u32);
    for k in &s.keys {
        out.put_values(k);
    }
    out.put_u8(s.first_per_key as u8);
    out.put_u32(s.join.len() as u32);
    for c in &s.join {
        out.put_u32(c.table);
        out.put_u32(c.version);
        out.put_u16(c.index);
        out.put_u16s(&c.key);
        put_filter(out, &c.filter);
        out.put_u16s(&c.projection);
        out.put_u8(c.kind as u8);
        match &c.read {
            None => out.put_u8(0),
            Some(read) => {
                out.put_u8(1);
                out.put_u16(read.index.map_or(u16::MAX, |i| i));
                put_bound(out, &read.lower);
                put_bound(out, &read.upper);
            }
        }
        put_bound(out, &c.lower);
        put_bound(out, &c.upper);
    }
}

fn get_join(r: &mut Reader) -> DecodeResult<Vec<JoinChild>> {
    let n = r.count("join children", limits::JOIN_CHILDREN_MAX, 15)?;
    let mut children = Vec::with_capacity(n);
    for _ in 0..n {
        children.push(JoinChild {
            table: r.u32()?,
            version: r.u32()?,
            index: r.u16()?,
            key: r.u16s("join key", limits::KEY_COLUMNS_MAX)?,
            filter: get_filter(r, 0)?,
            projection: r.u16s("projection", limits::COLUMNS_MAX)?,
            kind: match r.u8()? {
                0 => JoinKind::Inner,
                1 => JoinKind::Outer,
                2 => JoinKind::Semi,
                3 => JoinKind::Anti,
                tag => {
                    return Err(DecodeError::BadTag {
                        what: "join kind",
                        tag,
                    })
                }
            },
            read: match r.u8()? {
                0 => None,
                1 => Some(ChildRead {
                    index: match r.u16()? {
                        u16::MAX => None,
                        i => Some(i),
                    },
                    lower: get_bound(r)?,
                    upper: get_bound(r)?,
                }),
                tag => {
                    return Err(DecodeError::BadTag {
                        what: "child read",
                        tag,
                    })
                }
            },
            lower: get_bound(r)?,
            upper: get_bound(r)?,
        });
    }
    Ok(children)
}

pub(crate) fn get_scan_request(r: &mut Reader) -> DecodeResult<ScanRequest> {
    let table = r.u32()?;
    let version = r.u32()?;
    let index = match r.u16()? {
        u16::MAX => None,
        i => Some(i),
    };
    let lower = get_bound(r)?;
    let upper = get_bound(r)?;
    let filter = get_filter(r, 0)?;
    let projection = r.u16s("projection", limits::COLUMNS_MAX)?;
    let limit = r.u64()?;
    let order = match r.u8()? {
        0 => ScanOrder::Any,
        1 => ScanOrder::Ascending,
        2 => ScanOrder::Descending,
        tag => {
            return Err(DecodeError::BadTag {
                what: "scan order",
                tag,
            })
        }
    };
    Ok(ScanRequest {
        table,
        version,
        index,
        lower,
        upper,
        filter,
        projection,
        limit,
        order,
        transaction: r.u64()?,
        batch_rows: r.u32()?,
        batch_bytes: r.u32()?,
        aggregate: get_aggregation(r)?,
        keys: {
            let n = r.count("scan keys", limits::SCAN_KEYS_MAX, 2)?;
            let mut keys = Vec::with_capacity(n);
            for _ in 0..n {
                keys.push(r.values(limits::KEY_COLUMNS_MAX)?);
            }
            keys
        },
        first_per_key: r.flag("first per key")?,
        join: get_join(r)?,
    })
}

fn put_bound(out: &mut Vec<u8>, b: &Option<Bound>) {
    match b {
        None => out.put_u8(0),
        Some(b) => {
            out.put_u8(if b.inclusive { 1 } else { 2 });
            out.put_values(&b.values);
        }
    }
}

fn get_bound(r: &mut Reader) -> DecodeResult<Option<Bound>> {
    Ok(match r.u8()? {
        0 => None,
        tag @ (1 | 2) => Some(Bound {
            inclusive: tag == 1,
            values: r.values(limits::KEY_COLUMNS_MAX)?,
        }),
        tag => return Err(DecodeError::BadTag { what: "bound", tag }),
    })
}

fn put_filter(out: &mut Vec<u8>, f: &Filter) {
    match f {
        Filter::True => out.put_u8(0),
        Filter::Cmp { column, op, value } => {
            out.put_u8(1);
            out.put_u16(*column);
            out.put_u8(*op as u8);
            out.put_value(value);
        }
        Filter::IsNull { column } => {
            out.put_u8(2);
            out.put_u16(*column);
        }
        Filter::IsNotNull { column } => {
            out.put_u8(3);
            out.put_u16(*column);
        }
        Filter::Like { column, pattern } => {
            out.put_u8(4);
            out.put_u16(*column);
            out.put_bytes(pattern);
        }
        Filter::In { column, values } | Filter::InSorted { column, values } => {
            out.put_u8(5);
            out.put_u16(*column);
            out.put_values(values);
        }
        Filter::Between { column, low, high } => {
            out.put_u8(6);
            out.put_u16(*column);
            out.put_value(low);
            out.put_value(high);
        }
        Filter::And(list) | Filter::Or(list) => {
            out.put_u8(if matches!(f, Filter::And(_)) { 7 } else { 8 });
            out.put_u32(list.len() as u32);
            for x in list {
                put_filter(out, x);
            }
        }
        Filter::Not(inner) => {
            out.put_u8(9);
            put_filter(out, inner);
        }
    }
}

fn get_filter(r: &mut Reader, depth: usize) -> DecodeResult<Filter> {
    if depth > limits::FILTER_DEPTH_MAX {
        return Err(DecodeError::TooDeep(limits::FILTER_DEPTH_MAX));
    }
    Ok(match r.u8()? {
        0 => Filter::True,
        1 => {
            let column = r.u16()?;
            let tag = r.u8()?;
            let op = CmpOp::from_u8(tag).ok_or(DecodeError::BadTag {
                what: "comparison",
                tag,
            })?;
            Filter::Cmp {
                column,
                op,
                value: r.value()?,
            }
        }
        2 => Filter::IsNull { column: r.u16()? },
        3 => Filter::IsNotNull { column: r.u16()? },
        4 => Filter::Like {
            column: r.u16()?,
            pattern: r.bytes("LIKE pattern", limits::VARCHAR_BYTES_MAX)?.to_vec(),
        },
        5 => Filter::In {
            column: r.u16()?,
            values: r.values(limits::FILTER_IN_VALUES_MAX)?,
        },
        6 => Filter::Between {
            column: r.u16()?,
            low: r.value()?,
            high: r.value()?,
        },
        tag @ (7 | 8) => {
            let n = r.count("filter list", limits::FILTER_NODES_MAX, 1)?;
            let list = (0..n)
                .map(|_| get_filter(r, depth + 1))
                .collect::<DecodeResult<Vec<_>>>()?;
            if tag == 7 {
                Filter::And(list)
            } else {
                Filter::Or(list)
            }
        }
        9 => Filter::Not(Box::new(get_filter(r, depth + 1)?)),
        tag => {
            return Err(DecodeError::BadTag {
                what: "filter",
                tag,
            })
        }
    })
}
