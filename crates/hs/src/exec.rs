//! Runs HandlerSocket requests on the cluster through the native client: open_index against the
//! table's schema, finds as keyed reads or index scans, filters with the plugin's semantics, the
//! modify ops and inserts, and the plugin's answers and error codes for each outcome.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering as AtomicOrdering};
use std::sync::Arc;

use base::schema::{ColumnDef, IndexKind, TableDef};
use base::types::Collation;
use base::{ErrorCode, Value};
use client::{ClientError, Cluster, ExecType, LockMode, OpResult, Scan, ScanOrder, Table};

use crate::protocol::{self, Field, FilterSpec, Find, FindOp, ModifyKind, INDEX_ID_MAX};
use base::text::{from_text, value_text};
use tracing::warn;

/// Which index an open_index chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexChoice {
    Primary,
    /// A unique index: its position among the table's indexes.
    Unique(u16),
    /// An ordered index, by name.
    Ordered(String),
}

/// An index a connection opened.
pub struct OpenIndex {
    pub table: Table,
    pub index: IndexChoice,
    pub key_columns: Vec<u16>,
    pub columns: Vec<u16>,
    pub filter_columns: Vec<u16>,
    /// The open_index request as the client sent it, to open it again after DDL.
    pub spec: OpenSpec,
    /// Set when the data node refused a request built from `table` (its definition changed, or
    /// the table went): the next request opens the index again from `spec`.
    pub stale: AtomicBool,
}

/// What an open_index named: the table, the index and the columns, as sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenSpec {
    pub id: u32,
    pub table: Vec<u8>,
    pub index: Vec<u8>,
    pub columns: Vec<Vec<u8>>,
    pub filter_columns: Vec<Vec<u8>>,
}

/// Index `open` opened again from what the client sent, when a request found its definition
/// out of date (DDL ran since), so the index sees the new schema; or the answer the open_index
/// would get now (the table or index is gone).
pub fn reopen(cluster: &Cluster, open: &OpenIndex) -> Result<OpenIndex, Vec<u8>> {
    let spec = &open.spec;
    cluster.forget_table(&String::from_utf8_lossy(&spec.table));
    open_index(
        cluster,
        spec.id,
        &spec.table,
        &spec.index,
        &spec.columns,
        &spec.filter_columns,
    )
}

/// A connection's open indexes, and whether it came in on the write port.
#[derive(Default)]
pub struct Indexes {
    /// Shared, so a batched read holds its index without copying it.
    pub open: HashMap<u32, Arc<OpenIndex>>,
    pub write_port: bool,
}

impl protocol::OpenIndexes for Indexes {
    fn shape(&self, id: u32) -> Option<(usize, usize)> {
        self.open
            .get(&id)
            .map(|o| (o.columns.len(), o.filter_columns.len()))
    }

    fn writable(&self) -> bool {
        self.write_port
    }
}

/// Resolves `P`: the table, the index (empty or `PRIMARY`, a 0-based number, or a name) and the
/// columns.
pub fn open_index(
    cluster: &Cluster,
    id: u32,
    table_name: &[u8],
    index: &[u8],
    columns: &[Vec<u8>],
    filter_columns: &[Vec<u8>],
) -> Result<OpenIndex, Vec<u8>> {
    if id > INDEX_ID_MAX {
        return Err(protocol::error(2, "stmtnum"));
    }
    let name = String::from_utf8_lossy(table_name);
    if base::schema::is_internal_table(&name) {
        // The SQL front end's accounts, hidden index tables: as if they did not exist.
        return Err(protocol::error(1, "open_table"));
    }
    let table = match cluster.table(&name) {
        Ok(t) => t,
        Err(_) => return Err(protocol::error(1, "open_table")),
    };
    let def = table.def().clone();
    let choice = if index.is_empty() || index == b"PRIMARY" {
        Some(IndexChoice::Primary)
    } else if index.first().is_some_and(u8::is_ascii_digit) {
        // MySQL's numbering: 0 is the primary key, then the other keys in MySQL's order
        // (unique ones first; the ordered index a SQL table has over its primary key is the
        // primary key's, not one more).
        match protocol::number(index) as usize {
            0 => Some(IndexChoice::Primary),
            n => def
                .secondary_keys_in_mysql_order()
                .get(n - 1)
                .and_then(|at| {
                    let i = def.indexes.get(*at)?;
                    Some(match i.kind {
                        IndexKind::Unique => IndexChoice::Unique(*at as u16),
                        IndexKind::Ordered => IndexChoice::Ordered(i.name.clone()),
                    })
                }),
        }
    } else {
        def.indexes
            .iter()
            .enumerate()
            .find(|(_, i)| i.name.as_bytes() == index)
            .map(|(n, i)| match i.kind {
                IndexKind::Unique => IndexChoice::Unique(n as u16),
                IndexKind::Ordered => IndexChoice::Ordered(i.name.clone()),
            })
    };
    let Some(choice) = choice else {
        return Err(protocol::error(2, "idxnum"));
    };
    let key_columns = match &choice {
        IndexChoice::Primary => def.primary_key.clone(),
        IndexChoice::Unique(n) => def
            .indexes
            .get(*n as usize)
            .map(|i| i.columns.clone())
            .unwrap_or_default(),
        IndexChoice::Ordered(name) => def
            .indexes
            .iter()
            .find(|i| &i.name == name)
            .map(|i| i.columns.clone())
            .unwrap_or_default(),
    };
    let resolve = |names: &[Vec<u8>]| -> Result<Vec<u16>, Vec<u8>> {
        names
            .iter()
            .map(|n| {
                def.columns
                    .iter()
                    .position(|c| !c.hidden && c.name.as_bytes() == n.as_slice())
                    .map(|p| p as u16)
                    .ok_or_else(|| protocol::error(2, "fld"))
            })
            .collect()
    };
    Ok(OpenIndex {
        columns: resolve(columns)?,
        filter_columns: resolve(filter_columns)?,
        table,
        index: choice,
        key_columns,
        spec: OpenSpec {
            id,
            table: table_name.to_vec(),
            index: index.to_vec(),
            columns: columns.to_vec(),
            filter_columns: filter_columns.to_vec(),
        },
        stale: AtomicBool::new(false),
    })
}

/// The answer to a data-node failure on `open`: code 1 and the MySQL handler error number
/// clients know (121 duplicate key, 135 table full, 146 lock wait timeout, 149 deadlock), else 1 and the text of Cairn's error
/// code. A table gone from the data node (dropped, maybe created again) or changed by DDL also
/// leaves the client's cache, and the open index is marked stale, so the next request opens it
/// again as the table is now.
pub fn failure(cluster: &Cluster, open: &OpenIndex, e: &ClientError) -> Vec<u8> {
    if matches!(e.code(), ErrorCode::NoSuchTable | ErrorCode::SchemaChanged) {
        cluster.forget_table(&open.table.def().name);
        open.stale.store(true, AtomicOrdering::Relaxed);
    }
    match e.code() {
        ErrorCode::DuplicateKey => protocol::error(1, "121"),
        ErrorCode::LockWaitTimeout => protocol::error(1, "146"),
        ErrorCode::Deadlock => protocol::error(1, "149"),
        // HA_ERR_RECORD_FILE_FULL, what the plugin answers when the engine is out of space.
        ErrorCode::TableFull => protocol::error(1, "135"),
        ErrorCode::NoSuchTable => protocol::error(1, "open_table"),
        other => protocol::error(1, &format!("{}", other as u16 + 1000)),
    }
}

/// The value the plugin's empty record holds for `col`: '' for strings, 0 for numbers, the
/// zero date or time for dates and times.
fn empty_value(col: &base::schema::ColumnDef) -> Option<Value> {
    if let Some(zero) = zero_temporal(col) {
        return Some(zero);
    }
    field_value(col, Some(b"")).ok().filter(|v| !v.is_null())
}

/// A date or time column's zero value (0000-00-00, 00:00:00, year 0000); None for other
/// types.
fn zero_temporal(col: &base::schema::ColumnDef) -> Option<Value> {
    use base::types::ColumnType as T;
    let text: &[u8] = match col.ty {
        T::Date => b"0000-00-00",
        T::DateTime { .. } | T::Timestamp { .. } => b"0000-00-00 00:00:00",
        T::Time { .. } => b"00:00:00",
        T::Year => return Some(Value::Year(0)),
        _ => return None,
    };
    from_text(col, Some(text)).ok()
}

/// A date or time written as packed digits, as MySQL's Field::store reads them: YYYYMMDD,
/// YYYYMMDDHHMMSS, or HHMMSS for a TIME; None for other text.
fn packed_temporal(col: &base::schema::ColumnDef, text: &[u8]) -> Option<Value> {
    use base::types::ColumnType as T;
    if !text.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let d = std::str::from_utf8(text).ok()?;
    let shown = match (col.ty, d.len()) {
        (T::Time { .. }, 6) => format!("{}:{}:{}", &d[..2], &d[2..4], &d[4..]),
        (T::Date | T::DateTime { .. } | T::Timestamp { .. }, 8) => {
            format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..])
        }
        (T::Date | T::DateTime { .. } | T::Timestamp { .. }, 14) => format!(
            "{}-{}-{} {}:{}:{}",
            &d[..4],
            &d[4..6],
            &d[6..8],
            &d[8..10],
            &d[10..12],
            &d[12..]
        ),
        _ => return None,
    };
    from_text(col, Some(shown.as_bytes())).ok()
}

/// A field as column `col` stores it (`text::from_text`). A latin1 column of a table made
/// through SQL keeps its text as UTF-8, so the client's latin1 bytes are read as latin1's
/// characters first: MariaDB's plugin reads and writes a latin1 column's bytes. A spatial
/// column's value that is none is stored empty, as the plugin stores it.
fn field_value(col: &base::schema::ColumnDef, v: Option<&[u8]>) -> Result<Value, String> {
    let read = match v {
        Some(b) if col.collation.is_latin1_text() && !b.is_ascii() => {
            let text: String = b.iter().map(|x| base::collation::latin1_char(*x)).collect();
            from_text(col, Some(text.as_bytes()))
        }
        v => from_text(col, v),
    };
    match (read, v) {
        // A date or time the column cannot read: packed digits as MySQL reads them, anything
        // else ('0', '', a bad date) the zero value, as the plugin's Field::store leaves it.
        (Err(e), Some(text)) => match packed_temporal(col, text).or_else(|| zero_temporal(col)) {
            Some(v) => Ok(v),
            None => Err(e),
        },
        // A spatial column keeps only a spatial value of its kind; anything else is stored
        // empty, as the plugin's Field_geom::store leaves it.
        (Ok(v), _) if base::text::geometry_refusal(col, &v).is_some() => {
            Ok(Value::Bytes(Vec::new()))
        }
        (read, _) => read,
    }
}

/// A value's text as the client reads it: a latin1 column's characters as latin1's bytes.
fn field_text(col: &base::schema::ColumnDef, v: &Value) -> Option<Vec<u8>> {
    // An ENUM's or SET's number as its names, as the plugin answers it.
    if let Some(names) = base::text::member_text(col, v) {
        return Some(names);
    }
    let text = value_text(v)?;
    if col.collation.is_latin1_text() && !text.is_ascii() {
        if let Ok(s) = std::str::from_utf8(&text) {
            return Some(
                s.chars()
                    .map(|c| base::collation::latin1_byte(c).unwrap_or(b'?'))
                    .collect(),
            );
        }
    }
    Some(text)
}

/// The answer when the table's definition and what a request needs of it, or the rows the data
/// node sent, do not fit (a column number past the definition, a row without a column): Cairn's
/// Protocol error, numbered as `failure` numbers errors, with what was wrong logged.
fn unfit(def: &TableDef, what: String) -> Vec<u8> {
    warn!("handlersocket: table '{}': {what}", def.name);
    protocol::error(1, &format!("{}", ErrorCode::Protocol as u16 + 1000))
}

/// Column `c` of the table's definition.
fn column(def: &TableDef, c: u16) -> Result<&ColumnDef, Vec<u8>> {
    def.columns.get(usize::from(c)).ok_or_else(|| {
        let n = def.columns.len();
        unfit(def, format!("no column {c} among its {n} columns"))
    })
}

/// Column `c`'s value in `row`.
fn cell<'a>(def: &TableDef, row: &'a [Value], c: u16) -> Result<&'a Value, Vec<u8>> {
    row.get(usize::from(c)).ok_or_else(|| {
        let n = row.len();
        unfit(def, format!("a row of {n} values has no column {c}"))
    })
}

/// Column `c`'s value in `row` and the collation it compares by, for sorting and filtering.
/// `check_rows` refused rows without it first; were it missing, it would compare as NULL in
/// binary order rather than panic.
fn compared<'a>(def: &TableDef, row: &'a [Value], c: u16) -> (&'a Value, Collation) {
    static NULL: Value = Value::Null;
    let collation = def
        .columns
        .get(usize::from(c))
        .map_or(Collation::Binary, |col| col.collation);
    (row.get(usize::from(c)).unwrap_or(&NULL), collation)
}

/// Refuses rows without a column the open index uses (the data node's answer does not fit the
/// table's definition) before anything looks a column up in them.
fn check_rows(open: &OpenIndex, rows: &[Vec<Value>]) -> Result<(), ClientError> {
    let def = open.table.def();
    let used = open
        .key_columns
        .iter()
        .chain(&def.primary_key)
        .chain(&open.columns)
        .chain(&open.filter_columns);
    let needed = used.max().map_or(0, |c| usize::from(*c) + 1);
    let Some(short) = rows.iter().find(|r| r.len() < needed) else {
        return Ok(());
    };
    let message = format!(
        "table '{}': the data node sent a row of {} values where {needed} were due",
        def.name,
        short.len()
    );
    warn!("handlersocket: {message}");
    Err(ClientError::Failed(base::Error::new(
        ErrorCode::Protocol,
        message,
    )))
}

/// Converts the key values of a find to the index's column types.
fn key_values(open: &OpenIndex, key: &[Field]) -> Result<Vec<Value>, Vec<u8>> {
    if key.len() > open.key_columns.len() {
        return Err(protocol::error(2, "kpnum"));
    }
    let def = open.table.def();
    key.iter()
        .zip(&open.key_columns)
        .map(|(v, c)| {
            field_value(column(def, *c)?, v.as_deref()).map_err(|_| protocol::error(2, "kpnum"))
        })
        .collect()
}

/// A find that is one keyed read (PRIMARY or a unique index, `=` on the whole key, no NULL in
/// it, no IN, filter, offset or modify): these are batched across connections.
pub fn simple_read(open: &OpenIndex, find: &Find) -> Option<Vec<Value>> {
    if find.op != FindOp::Eq
        || find.in_list.is_some()
        || !find.filters.is_empty()
        || find.modify.is_some()
        || find.offset != 0
        || matches!(open.index, IndexChoice::Ordered(_))
        || find.key.len() != open.key_columns.len()
        || find.key.iter().any(|k| k.is_none())
    {
        return None;
    }
    key_values(open, &find.key).ok()
}

/// Compares with the plugin's rules: NULL equals NULL and sorts before every value.
fn hs_compare(a: &Value, b: &Value, collation: base::types::Collation) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => a.compare(b, collation).unwrap_or(Ordering::Equal),
    }
}

fn key_compare(open: &OpenIndex, row: &[Value], key: &[Value]) -> Ordering {
    let def = open.table.def();
    for (c, k) in open.key_columns.iter().zip(key) {
        let (v, collation) = compared(def, row, *c);
        match hs_compare(v, k, collation) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    Ordering::Equal
}

/// Rows (every column) in index order matching `op` on the key prefix, in the direction the op
/// reads (descending for `<` and `<=`), at most `want` of them.
fn index_rows(
    cluster: &Cluster,
    open: &OpenIndex,
    op: FindOp,
    key: &[Value],
    want: u64,
) -> Result<Vec<Vec<Value>>, ClientError> {
    let full_key = key.len() == open.key_columns.len() && key.iter().all(|k| !k.is_null());
    match (&open.index, op) {
        (IndexChoice::Primary, FindOp::Eq) if full_key => {
            let mut txn = cluster.transaction();
            let r = txn.read(&open.table, key.to_vec());
            txn.execute(ExecType::Commit)?;
            let rows = txn.row(r).map(|r| vec![r.to_vec()]).unwrap_or_default();
            check_rows(open, &rows)?;
            return Ok(rows);
        }
        (IndexChoice::Unique(n), FindOp::Eq) if full_key => {
            let mut txn = cluster.transaction();
            let r = txn.read_unique(
                &open.table,
                *n,
                key.to_vec(),
                LockMode::CommittedRead,
                vec![],
            );
            txn.execute(ExecType::Commit)?;
            let rows = txn.row(r).map(|r| vec![r.to_vec()]).unwrap_or_default();
            check_rows(open, &rows)?;
            return Ok(rows);
        }
        (IndexChoice::Ordered(name), _) => {
            let mut scan = Scan::index(name);
            scan = match op {
                FindOp::Eq => scan.equal(key.to_vec()).order(ScanOrder::Ascending),
                FindOp::Ge => scan.from(key.to_vec(), true).order(ScanOrder::Ascending),
                FindOp::Gt => scan.from(key.to_vec(), false).order(ScanOrder::Ascending),
                FindOp::Le => scan.to(key.to_vec(), true).order(ScanOrder::Descending),
                FindOp::Lt => scan.to(key.to_vec(), false).order(ScanOrder::Descending),
            };
            if want != u64::MAX {
                scan = scan.limit(want);
            }
            let rows = cluster.scan(&open.table, &scan)?;
            check_rows(open, &rows)?;
            return Ok(rows);
        }
        _ => {}
    }
    // PRIMARY and unique indexes are hashed: read the table a batch at a time and keep the
    // first `want` rows in the key's order here (never more than twice that, and a batch).
    let matches = |r: &Vec<Value>| {
        let c = key_compare(open, r, key);
        match op {
            FindOp::Eq => c == Ordering::Equal,
            FindOp::Ge => c != Ordering::Less,
            FindOp::Gt => c == Ordering::Greater,
            FindOp::Le => c != Ordering::Greater,
            FindOp::Lt => c == Ordering::Less,
        }
    };
    let def = open.table.def();
    let pk = def.primary_key.clone();
    let descending = matches!(op, FindOp::Lt | FindOp::Le);
    let order = |a: &Vec<Value>, b: &Vec<Value>| {
        for c in open.key_columns.iter().chain(&pk) {
            let ((x, collation), (y, _)) = (compared(def, a, *c), compared(def, b, *c));
            match hs_compare(x, y, collation) {
                Ordering::Equal => continue,
                other if descending => return other.reverse(),
                other => return other,
            }
        }
        Ordering::Equal
    };
    let want = want.min(usize::MAX as u64) as usize;
    let mut rows: Vec<Vec<Value>> = Vec::new();
    let mut cursor = cluster.scan_cursor(&open.table, &Scan::table())?;
    while let Some(batch) = cursor.next_batch()? {
        check_rows(open, &batch)?;
        rows.extend(batch.into_iter().filter(matches));
        if rows.len() > want.saturating_mul(2) {
            rows.sort_by(order);
            rows.truncate(want);
        }
    }
    rows.sort_by(order);
    rows.truncate(want);
    Ok(rows)
}

enum Verdict {
    Keep,
    Skip,
    Stop,
}

/// `filters` hold each filter's column number in the table.
fn filter_verdict(
    open: &OpenIndex,
    filters: &[(FilterSpec, u16, Value)],
    row: &[Value],
) -> Verdict {
    let def = open.table.def();
    for (f, c, value) in filters {
        let (v, collation) = compared(def, row, *c);
        let ord = hs_compare(v, value, collation);
        let holds = match f.op.as_slice() {
            b"=" => ord == Ordering::Equal,
            b"!=" => ord != Ordering::Equal,
            b"<" => ord == Ordering::Less,
            b"<=" => ord != Ordering::Greater,
            b">" => ord == Ordering::Greater,
            b">=" => ord != Ordering::Less,
            _ => false,
        };
        if !holds {
            return if f.stop { Verdict::Stop } else { Verdict::Skip };
        }
    }
    Verdict::Keep
}

/// The rows a find selects (every column), after IN, filters, offset and limit.
fn select(cluster: &Cluster, open: &OpenIndex, find: &Find) -> Result<Vec<Vec<Value>>, Vec<u8>> {
    let key = key_values(open, &find.key)?;
    let def = open.table.def();
    let mut filters = Vec::with_capacity(find.filters.len());
    for f in &find.filters {
        // Parsing checked the filter's column against this index (the plugin's answer else).
        let Some(&c) = open.filter_columns.get(f.column) else {
            return Err(protocol::error(2, "filterfld"));
        };
        let col = column(def, c)?;
        if col.ty.is_lob() && f.value.is_some() {
            return Err(protocol::error(2, "filterblob"));
        }
        let value = field_value(col, f.value.as_deref()).unwrap_or(Value::Null);
        filters.push((f.clone(), c, value));
    }
    let (limit, offset) = (find.limit as u64, find.offset as u64);
    let mut out = Vec::new();
    let mut skipped = 0u64;
    // Returns false once the scan must end.
    let mut take = |row: Vec<Value>, out: &mut Vec<Vec<Value>>| -> bool {
        match filter_verdict(open, &filters, &row) {
            Verdict::Stop => return false,
            Verdict::Skip => return true,
            Verdict::Keep => {}
        }
        if skipped < offset {
            skipped += 1;
            return true;
        }
        out.push(row);
        (out.len() as u64) < limit
    };
    match &find.in_list {
        // One search per IN value; an IN column past the key is ignored, but the searches are
        // still made (the plugin's behavior: the same row once per value).
        Some((icol, values)) => {
            for v in values {
                let mut k = key.clone();
                // `key_values` checked the key is no longer than the index's.
                if let (Some(at), Some(c)) = (k.get_mut(*icol), open.key_columns.get(*icol)) {
                    *at = field_value(column(def, *c)?, Some(v)).unwrap_or(Value::Null);
                }
                let found = index_rows(cluster, open, find.op, &k, 1)
                    .map_err(|e| failure(cluster, open, &e))?;
                match found.into_iter().next() {
                    Some(row) => {
                        if !take(row, &mut out) {
                            break;
                        }
                    }
                    None if find.op == FindOp::Eq => continue,
                    None => break,
                }
            }
        }
        _ => {
            // Without filters the data node can stop after offset + limit rows.
            let want = if filters.is_empty() {
                offset.saturating_add(limit)
            } else {
                u64::MAX
            };
            let rows = index_rows(cluster, open, find.op, &key, want)
                .map_err(|e| failure(cluster, open, &e))?;
            for row in rows {
                if !take(row, &mut out) {
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// Rows as the client reads them: each value's text, None for NULL.
type TextRows = Vec<Vec<Option<Vec<u8>>>>;

/// The result-set answer for rows (every column) projected to the open index's columns.
pub fn answer_rows(open: &OpenIndex, rows: &[Vec<Value>]) -> Vec<u8> {
    let def = open.table.def();
    let projected: Result<TextRows, Vec<u8>> = rows
        .iter()
        .map(|r| {
            open.columns
                .iter()
                .map(|c| Ok(field_text(column(def, *c)?, cell(def, r, *c)?)))
                .collect()
        })
        .collect();
    match projected {
        Ok(projected) => protocol::rows(open.columns.len(), &projected),
        Err(answer) => answer,
    }
}

/// The answer to a projected row of a batched keyed read (or none found).
pub fn answer_projected(open: &OpenIndex, row: Option<&[Value]>) -> Vec<u8> {
    let def = open.table.def();
    let rows: Result<TextRows, Vec<u8>> = row
        .into_iter()
        .map(|r| {
            // A row shorter than the open index's columns would answer fewer fields than
            // the count announced: refused, like any row that does not fit the table.
            if r.len() < open.columns.len() {
                let (n, m) = (r.len(), open.columns.len());
                return Err(unfit(def, format!("a row of {n} values for {m} columns")));
            }
            r.iter()
                .zip(&open.columns)
                .map(|(v, c)| Ok(field_text(column(def, *c)?, v)))
                .collect()
        })
        .collect();
    match rows {
        Ok(rows) => protocol::rows(open.columns.len(), &rows),
        Err(answer) => answer,
    }
}

/// Runs a find (and its modify) that is not a plain keyed read.
pub fn find(cluster: &Cluster, open: &OpenIndex, find: &Find) -> Vec<u8> {
    find_answer(cluster, open, find).unwrap_or_else(|answer| answer)
}

/// [`find`]'s answer; an error answer is `Err`, so that `?` ends the find there.
fn find_answer(cluster: &Cluster, open: &OpenIndex, find: &Find) -> Result<Vec<u8>, Vec<u8>> {
    let rows = select(cluster, open, find)?;
    let Some(modify) = &find.modify else {
        return Ok(answer_rows(open, &rows));
    };
    let def = open.table.def();
    let pk_of = |row: &[Value]| -> Result<Vec<Value>, Vec<u8>> {
        def.primary_key
            .iter()
            .map(|c| cell(def, row, *c).cloned())
            .collect()
    };
    let mut txn = cluster.transaction();
    let mut changed = 0u64;
    for row in &rows {
        match modify.kind {
            ModifyKind::Delete => {
                txn.delete(&open.table, pk_of(row)?);
            }
            ModifyKind::Update => {
                let mut values = Vec::with_capacity(open.columns.len());
                for (c, v) in open.columns.iter().zip(&modify.values) {
                    match field_value(column(def, *c)?, v.as_deref()) {
                        Ok(value) => values.push((*c, value)),
                        Err(_) => return Err(protocol::error(1, "1292")),
                    }
                }
                txn.update(&open.table, pk_of(row)?, values);
            }
            ModifyKind::Increment | ModifyKind::Decrement => {
                let sign = if modify.kind == ModifyKind::Decrement {
                    -1
                } else {
                    1
                };
                let mut amounts = Vec::new();
                // Columns of other types: the value read as a number (C's atoll of its
                // text), the sum stored back as the column stores it.
                let mut rewritten = Vec::new();
                let mut crosses_zero = false;
                for (c, v) in open.columns.iter().zip(&modify.values) {
                    let Some(v) = v else { continue };
                    let amount = sign as i128 * atoll(v) as i128;
                    let col = column(def, *c)?;
                    let old_n = match cell(def, row, *c)? {
                        Value::Int(n) => *n as i128,
                        Value::UInt(n) => *n as i128,
                        Value::Null => continue,
                        // Adding nothing leaves a text column's text as it is.
                        _ if amount == 0 => continue,
                        other => {
                            let old = atoll(&field_text(col, other).unwrap_or_default()) as i128;
                            let new = old + amount;
                            if sign < 0 && old > 0 && new < 0 {
                                crosses_zero = true;
                            }
                            match field_value(col, Some(new.to_string().as_bytes())) {
                                Ok(value) => rewritten.push((*c, value)),
                                Err(_) => return Err(protocol::error(1, "1292")),
                            }
                            continue;
                        }
                    };
                    let new = old_n + amount;
                    if sign < 0 && old_n > 0 && new < 0 {
                        crosses_zero = true;
                    }
                    // The column stores the sum clamped to its range, as MySQL's Field::store.
                    let stored = match from_text(col, Some(new.to_string().as_bytes())) {
                        Ok(Value::Int(n)) => n as i128,
                        Ok(Value::UInt(n)) => n as i128,
                        _ => old_n,
                    };
                    amounts.push((*c, (stored - old_n) as i64));
                }
                if crosses_zero {
                    continue;
                }
                if !amounts.is_empty() {
                    txn.increment(&open.table, pk_of(row)?, amounts);
                }
                if !rewritten.is_empty() {
                    txn.update(&open.table, pk_of(row)?, rewritten);
                }
            }
        }
        changed += 1;
    }
    if let Err(e) = txn.execute(ExecType::Commit) {
        return Err(failure(cluster, open, &e));
    }
    Ok(if modify.returning {
        answer_rows(open, &rows)
    } else {
        protocol::ok_number(changed)
    })
}

/// C's atoll: optional spaces and sign, then digits; anything else ends it.
fn atoll(v: &[u8]) -> i64 {
    let s = std::str::from_utf8(v).unwrap_or("").trim_start();
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mut n: i64 = 0;
    for d in digits.bytes().take_while(|b| b.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add((d - b'0') as i64);
    }
    if neg {
        -n
    } else {
        n
    }
}

/// Inserts a row: the values go to the open index's first columns; the answer carries the
/// AUTO_INCREMENT id when the table has one.
pub fn insert(cluster: &Cluster, open: &OpenIndex, values: &[Field]) -> Vec<u8> {
    let def = open.table.def();
    let auto = def.auto_increment_column();
    let mut row = Vec::new();
    let mut explicit_auto = false;
    // Every open_index column is stored; one without a value gets the empty string (as the
    // plugin does), not the column's default.
    let empty: Field = Some(Vec::new());
    let given = values.iter().chain(std::iter::repeat(&empty));
    for (c, v) in open.columns.iter().zip(given) {
        let col = match column(def, *c) {
            Ok(col) => col,
            Err(answer) => return answer,
        };
        let value = match field_value(col, v.as_deref()) {
            // NULL into a NOT NULL column stores the type's empty value, as the plugin's
            // Field::store does (0, ''), where it has one.
            Ok(Value::Null) if !col.nullable => empty_value(col).unwrap_or(Value::Null),
            Ok(v) => v,
            Err(_) => return protocol::error(1, "1292"),
        };
        if Some(*c as usize) == auto {
            let zero = matches!(value, Value::Null | Value::Int(0) | Value::UInt(0));
            if zero {
                continue;
            }
            explicit_auto = true;
        }
        row.push((*c, value));
    }
    // A column the open_index does not name gets what the plugin's empty record holds: its
    // DEFAULT, else the type's empty value (a zero date for a date) even where the column is
    // nullable (the plugin clears the record's NULL bits).
    for (c, col) in def.columns.iter().enumerate() {
        let named = open.columns.iter().any(|o| *o as usize == c);
        if named || col.default.is_some() || col.default_now.is_some() || col.auto_increment {
            continue;
        }
        if col.hidden {
            continue;
        }
        if let Some(v) = empty_value(col) {
            row.push((c as u16, v));
        }
    }
    let mut txn = cluster.transaction();
    let op = txn.insert(&open.table, row);
    if let Err(e) = txn.execute(ExecType::Commit) {
        return failure(cluster, open, &e);
    }
    match (auto, txn.result(op)) {
        (None, _) => protocol::ok(),
        (Some(_), _) if explicit_auto => protocol::ok_number(0),
        (Some(_), Some(OpResult::Done { assigned: Some(id) })) => protocol::ok_number(*id),
        (Some(_), _) => protocol::ok_number(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row shorter than the open index's columns answers an error, never a result that
    /// announces more fields than it carries.
    #[test]
    fn a_short_row_answers_an_error() {
        use base::types::ColumnType;
        let columns = ["id", "a", "b"]
            .iter()
            .map(|n| base::ColumnDef::new(n, ColumnType::Int { unsigned: false }))
            .collect();
        let def = TableDef::new("t", columns, &["id"]).expect("a valid definition");
        let open = OpenIndex {
            table: Table::virtual_table(def),
            index: IndexChoice::Primary,
            key_columns: vec![0],
            columns: vec![0, 1, 2],
            filter_columns: Vec::new(),
            spec: OpenSpec {
                id: 1,
                table: b"t".to_vec(),
                index: b"PRIMARY".to_vec(),
                columns: Vec::new(),
                filter_columns: Vec::new(),
            },
            stale: AtomicBool::new(false),
        };
        let whole = [Value::Int(1), Value::Int(2), Value::Int(3)];
        assert_eq!(answer_projected(&open, Some(&whole)), b"0\t3\t1\t2\t3\n");
        let short = answer_projected(&open, Some(&whole[..2]));
        assert!(
            short.starts_with(b"1\t1\t"),
            "{}",
            String::from_utf8_lossy(&short)
        );
    }

    #[test]
    fn atoll_reads_like_c() {
        assert_eq!(atoll(b"12"), 12);
        assert_eq!(atoll(b" -3x"), -3);
        assert_eq!(atoll(b"x"), 0);
        assert_eq!(atoll(b""), 0);
    }
}
