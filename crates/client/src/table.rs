//! Table metadata as the client sees it, and the scan builder.

use std::sync::Arc;

use base::filter::Filter;
use base::schema::IndexKind;
use base::{Error, ErrorCode, TableDef, Value};
use wire::{Bound, ScanOrder, ScanRequest};

use crate::{ClientError, Result};

/// A table's schema with name lookups. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Table {
    def: Arc<TableDef>,
    /// What ANALYZE TABLE measured, when the definition was loaded (`Cluster::table`).
    stats: Option<Arc<crate::stats::TableStats>>,
    /// Its rows may hold values in parts (`base::lob::table_holds_parts`), known once: a write
    /// of a table without such columns never looks for long values.
    holds_parts: bool,
}

fn request_error(message: String) -> ClientError {
    ClientError::Failed(Error::new(ErrorCode::BadRequest, message))
}

impl Table {
    pub(crate) fn new(def: TableDef) -> Table {
        Table {
            holds_parts: base::lob::table_holds_parts(&def),
            def: Arc::new(def),
            stats: None,
        }
    }

    /// This handle carrying `stats` (as [`crate::Cluster::analyze`] measures them; planners'
    /// tests give their own).
    pub fn with_stats(&self, stats: Arc<crate::stats::TableStats>) -> Table {
        Table {
            def: self.def.clone(),
            stats: Some(stats),
            holds_parts: self.holds_parts,
        }
    }

    pub(crate) fn stats_arc(&self) -> Option<Arc<crate::stats::TableStats>> {
        self.stats.clone()
    }

    /// The table's statistics (rows, distinct values per key prefix) as last measured by
    /// [`crate::Cluster::analyze`], when they were measured under this table's id.
    pub fn stats(&self) -> Option<&crate::stats::TableStats> {
        self.stats.as_deref()
    }

    /// A table known only by its definition, which no data node holds: an API node's own
    /// virtual tables (SQL's information_schema), whose rows it makes itself. Requests built
    /// for it name table id `def.id`, which a data node answers as unknown.
    pub fn virtual_table(def: TableDef) -> Table {
        Table::new(def)
    }

    pub fn def(&self) -> &TableDef {
        &self.def
    }

    /// Whether its rows may hold values in parts (MEDIUM/LONG TEXT or BLOB columns): only
    /// their reads may answer references (`crate::has_parts`).
    pub fn holds_parts(&self) -> bool {
        self.holds_parts
    }

    /// The version of the definition this handle holds; requests carry it, and the data node
    /// refuses them with `SchemaChanged` once the table has changed since.
    pub fn version(&self) -> u32 {
        self.def.version
    }

    pub fn id(&self) -> u32 {
        self.def.id
    }

    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// A column's position by name.
    pub fn column(&self, name: &str) -> Result<u16> {
        self.def.column(name).map(|c| c as u16).ok_or_else(|| {
            request_error(format!("table '{}' has no column '{name}'", self.def.name))
        })
    }

    /// An ordered index's position by name (a declared primary key's is "PRIMARY").
    pub fn index(&self, name: &str) -> Result<u16> {
        self.def.index(name).map(|i| i as u16).ok_or_else(|| {
            ClientError::Failed(Error::new(
                ErrorCode::NoSuchIndex,
                format!("table '{}' has no index '{name}'", self.def.name),
            ))
        })
    }

    /// A unique index's position by name.
    pub fn unique_index(&self, name: &str) -> Result<u16> {
        let i = self.index(name)?;
        if self.def.indexes[i as usize].kind != IndexKind::Unique {
            return Err(request_error(format!("index '{name}' is not unique")));
        }
        Ok(i)
    }

    /// Named values as (column position, value) pairs.
    pub fn values(&self, named: &[(&str, Value)]) -> Result<Vec<(u16, Value)>> {
        named
            .iter()
            .map(|(n, v)| Ok((self.column(n)?, v.clone())))
            .collect()
    }

    /// Column positions by name.
    pub fn columns(&self, names: &[&str]) -> Result<Vec<u16>> {
        names.iter().map(|n| self.column(n)).collect()
    }
}

/// A scan: a full table scan, or an ordered-index scan with bounds; both with an optional filter
/// (run inside the data node), projection, row limit and order.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    index: Option<String>,
    lower: Option<Bound>,
    upper: Option<Bound>,
    filter: Option<Filter>,
    columns: Vec<String>,
    limit: u64,
    order: Option<ScanOrder>,
    batch_rows: u32,
    batch_bytes: u32,
    aggregate: Option<wire::Aggregation>,
    keys: Vec<Vec<Value>>,
    first_per_key: bool,
    join: Vec<JoinChild>,
}

/// A table a pushed join reads inside the data node for each row of its scan ([`Scan::join`]):
/// the rows of `table` whose ordered index holds, in its leading columns, the values at `key`
/// in the joined row so far (the scan's columns, then the earlier children's).
#[derive(Debug, Clone)]
pub struct JoinChild {
    table: Table,
    index: String,
    key: Vec<u16>,
    filter: Option<Filter>,
    columns: Vec<String>,
    kind: wire::JoinKind,
    /// Read once through this scan's index and bounds (see [`JoinChild::read_once`]).
    read: Option<Scan>,
    /// Bounds on the index columns after the key's (see [`JoinChild::within`]).
    lower: Option<Bound>,
    upper: Option<Bound>,
}

impl JoinChild {
    /// Rows of `table` whose index `index` (an ordered index; the primary key's is "PRIMARY")
    /// holds the joined row's values at positions `key` in its leading columns.
    pub fn new(table: &Table, index: &str, key: Vec<u16>) -> JoinChild {
        JoinChild {
            table: table.clone(),
            index: index.to_string(),
            key,
            filter: None,
            columns: Vec::new(),
            kind: wire::JoinKind::Inner,
            read: None,
            lower: None,
            upper: None,
        }
    }

    /// Each key reads only its rows whose index columns after the key's lie within these
    /// bounds (values from the first column past the key's, going on into the primary key's
    /// past an ordered index's own: `KEY (region)` with key `region` bounds the primary key).
    /// A bound's values, and whether it includes them; None: unbounded.
    pub fn within(
        mut self,
        lower: Option<(Vec<Value>, bool)>,
        upper: Option<(Vec<Value>, bool)>,
    ) -> JoinChild {
        let bound = |b: Option<(Vec<Value>, bool)>| {
            b.map(|(values, inclusive)| Bound { values, inclusive })
        };
        self.lower = bound(lower);
        self.upper = bound(upper);
        self
    }

    /// The child's own conditions, run as it is read.
    pub fn filter(mut self, filter: Filter) -> JoinChild {
        self.filter = Some(filter);
        self
    }

    /// Columns to return, by name; none means every visible column.
    pub fn columns(mut self, names: &[&str]) -> JoinChild {
        self.columns = names.iter().map(|n| n.to_string()).collect();
        self
    }

    /// A joined row without a match goes on with NULLs for this child (LEFT JOIN).
    pub fn outer(mut self) -> JoinChild {
        self.kind = wire::JoinKind::Outer;
        self
    }

    /// Reads the child's rows once, through `scan`'s index and bounds, with `scan`'s filter
    /// as the child's, and matches them to the joined rows by the values of the key's columns
    /// (a hash join in the data node, for a child whose own conditions find few rows). The
    /// rows are read when the first batch reaches the child and kept for the scan's later
    /// batches: a write of the scan's transaction made while it is open is not seen by them.
    pub fn read_once(mut self, scan: &Scan) -> JoinChild {
        self.filter = scan.filter.clone();
        self.read = Some(scan.clone());
        self
    }

    /// Keeps a joined row once if this child has a match, adding no columns (EXISTS).
    pub fn semi(mut self) -> JoinChild {
        self.kind = wire::JoinKind::Semi;
        self
    }

    /// Keeps a joined row once if this child has no match, adding no columns (NOT EXISTS).
    pub fn anti(mut self) -> JoinChild {
        self.kind = wire::JoinKind::Anti;
        self
    }

    fn request(&self) -> Result<wire::JoinChild> {
        let columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        Ok(wire::JoinChild {
            table: self.table.id(),
            version: self.table.version(),
            index: self.table.index(&self.index)?,
            key: self.key.clone(),
            filter: self.filter.clone().unwrap_or(Filter::True),
            projection: self.table.columns(&columns)?,
            kind: self.kind,
            read: match &self.read {
                None => None,
                Some(scan) => Some(wire::ChildRead {
                    index: scan
                        .index
                        .as_deref()
                        .map(|n| self.table.index(n))
                        .transpose()?,
                    lower: scan.lower.clone(),
                    upper: scan.upper.clone(),
                }),
            },
            lower: self.lower.clone(),
            upper: self.upper.clone(),
        })
    }
}

impl Scan {
    /// A full table scan over all partitions in parallel.
    pub fn table() -> Scan {
        Scan::default()
    }

    /// An ordered-index scan over the named index.
    pub fn index(name: &str) -> Scan {
        Scan {
            index: Some(name.into()),
            ..Scan::default()
        }
    }

    /// Lower bound on a prefix of the index columns.
    pub fn from(mut self, values: Vec<Value>, inclusive: bool) -> Scan {
        self.lower = Some(Bound { values, inclusive });
        self
    }

    /// Upper bound on a prefix of the index columns.
    pub fn to(mut self, values: Vec<Value>, inclusive: bool) -> Scan {
        self.upper = Some(Bound { values, inclusive });
        self
    }

    /// Rows whose index prefix equals one of `keys` (each one value per leading index column,
    /// the same count for all; at most `base::limits::SCAN_KEYS_MAX`), read in one scan: the
    /// batched key access of an index join. The scan's order must be `Any` or `Ascending`; its
    /// bounds, if any, are on the index columns after the keys' (each key reads its rows within
    /// them).
    pub fn keys(mut self, keys: Vec<Vec<Value>>) -> Scan {
        self.keys = keys;
        self
    }

    /// With [`Scan::keys`]: each partition answers at most one row per key, the first its
    /// filter keeps (a semi-join's probe, as EXISTS asks only whether a key has a match).
    pub fn first_per_key(mut self) -> Scan {
        self.first_per_key = true;
        self
    }

    /// Pushes a join into the data node: for each row the scan finds, `child`'s matching rows
    /// are read there and the scan answers the rows joined (see [`wire::ScanRequest::join`]).
    pub fn join(mut self, child: JoinChild) -> Scan {
        self.join.push(child);
        self
    }

    /// Rows whose index prefix equals `values`.
    pub fn equal(self, values: Vec<Value>) -> Scan {
        self.from(values.clone(), true).to(values, true)
    }

    pub fn filter(mut self, filter: Filter) -> Scan {
        self.filter = Some(filter);
        self
    }

    /// Columns to return, by name; none means every visible column.
    pub fn columns(mut self, names: &[&str]) -> Scan {
        self.columns = names.iter().map(|n| n.to_string()).collect();
        self
    }

    pub fn limit(mut self, rows: u64) -> Scan {
        self.limit = rows;
        self
    }

    pub fn order(mut self, order: ScanOrder) -> Scan {
        self.order = Some(order);
        self
    }

    /// The ordered index the scan reads, if it reads one.
    pub fn index_name(&self) -> Option<&str> {
        self.index.as_deref()
    }

    /// A full table scan made a scan of the whole of ordered index `name` (so it can return
    /// rows in the index's order); a scan already of an index is left as it is.
    pub fn through_index(mut self, name: &str) -> Scan {
        self.index.get_or_insert_with(|| name.to_string());
        self
    }

    /// Folds the matching rows into groups in the data node, answering a row per group (group
    /// values, then partial aggregates; see [`wire::Aggregation`]) that the caller merges.
    /// Columns are positions in [`Scan::columns`]; the scan must have no limit and any order.
    pub fn aggregate(mut self, aggregation: wire::Aggregation) -> Scan {
        self.aggregate = Some(aggregation);
        self
    }

    /// The most rows and (estimated) bytes of rows one batch brings (0: the data node's
    /// defaults; larger values are held to `base::limits::SCAN_BATCH_ROWS_MAX` and
    /// `SCAN_BATCH_BYTES_MAX`). A scan's rows come a batch at a time, the next asked for as the
    /// last arrives, so a cursor holds about two batches whatever the table's size.
    pub fn batch(mut self, rows: u32, bytes: u32) -> Scan {
        self.batch_rows = rows;
        self.batch_bytes = bytes;
        self
    }

    /// The wire request this scan makes of `table` (for callers that send it themselves,
    /// as `EventSession::prepare_scan`).
    pub fn request(&self, table: &Table) -> Result<ScanRequest> {
        if self.join.len() > base::limits::JOIN_CHILDREN_MAX {
            return Err(request_error(format!(
                "a pushed join reads at most {} tables after its scan's",
                base::limits::JOIN_CHILDREN_MAX
            )));
        }
        let index = self.index.as_deref().map(|n| table.index(n)).transpose()?;
        let columns: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        Ok(ScanRequest {
            table: table.id(),
            version: table.version(),
            index,
            lower: self.lower.clone(),
            upper: self.upper.clone(),
            filter: self.filter.clone().unwrap_or(Filter::True),
            projection: table.columns(&columns)?,
            limit: self.limit,
            order: self.order.unwrap_or(ScanOrder::Any),
            transaction: 0,
            batch_rows: self.batch_rows,
            batch_bytes: self.batch_bytes,
            aggregate: self.aggregate.clone(),
            keys: self.keys.clone(),
            first_per_key: self.first_per_key,
            join: self
                .join
                .iter()
                .map(JoinChild::request)
                .collect::<Result<_>>()?,
        })
    }
}
