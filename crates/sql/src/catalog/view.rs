//! Views' definitions: kept in the internal table `cairn_sql_views` (cluster-wide and durable,
//! as the data nodes keep any table), one row per view keyed by database and lowercase name,
//! read by key when a statement names something that is no table.

use base::schema::ColumnDef;
use base::types::{ColumnType, LobSize};
use base::{ErrorCode, TableDef, Value};
use client::{Cluster, Scan};

use crate::catalog::definition::backticked;
use crate::foundation::error::{Result, SqlError};

/// The internal table of the views.
pub const VIEWS_TABLE: &str = "cairn_sql_views";
/// The longest view query kept (bytes).
pub const VIEW_TEXT_BYTES_MAX: usize = 1 << 20;
/// How deep views over views may nest (MariaDB stops recursion by its own limits).
pub const VIEW_DEPTH_MAX: usize = 16;

/// A view as CREATE VIEW defined it.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub db: String,
    pub name: String,
    /// `user@host` (MariaDB's DEFINER).
    pub definer: String,
    /// DEFINER or INVOKER.
    pub security: String,
    /// UNDEFINED, MERGE or TEMPTABLE.
    pub algorithm: String,
    /// NONE, CASCADED or LOCAL.
    pub check_option: String,
    /// The column names the view gives (empty: its query's).
    pub columns: Vec<String>,
    /// The query, as typed.
    pub query: String,
}

const COLUMNS: [&str; 10] = [
    "db_key",
    "name_key",
    "db",
    "name",
    "definer",
    "security",
    "algorithm",
    "check_option",
    "columns",
    "query",
];

fn definition() -> TableDef {
    let short = |n| ColumnDef::new(n, ColumnType::VarBinary { length: 256 });
    let mut columns: Vec<ColumnDef> = COLUMNS[..8].iter().map(|n| short(*n)).collect();
    for lob in &COLUMNS[8..] {
        columns.push(ColumnDef::new(
            lob,
            ColumnType::Blob {
                size: LobSize::Medium,
            },
        ));
    }
    match TableDef::new(VIEWS_TABLE, columns, &["db_key", "name_key"]) {
        Ok(def) => def,
        Err(e) => panic!("the views table's definition is invalid: {e}"),
    }
}

fn client(e: client::ClientError) -> SqlError {
    SqlError::from_client(&e)
}

fn key(db: &str, name: &str) -> Vec<Value> {
    vec![
        Value::Bytes(db.to_lowercase().into_bytes()),
        Value::Bytes(name.to_lowercase().into_bytes()),
    ]
}

/// The views table, made when it is missing.
fn table(cluster: &Cluster) -> Result<client::Table> {
    match cluster.table(VIEWS_TABLE) {
        Ok(t) => Ok(t),
        Err(e) if e.code() == ErrorCode::NoSuchTable => match cluster.create_table(definition()) {
            Ok(t) => Ok(t),
            Err(e) if e.code() == ErrorCode::TableExists => {
                cluster.table(VIEWS_TABLE).map_err(client)
            }
            Err(e) => Err(client(e)),
        },
        Err(e) => Err(client(e)),
    }
}

fn decode(row: &[Value]) -> Option<View> {
    let text = |i: usize| match row.get(i) {
        Some(Value::Bytes(b)) => String::from_utf8(b.clone()).ok(),
        _ => None,
    };
    let columns = text(8)?;
    Some(View {
        db: text(2)?,
        name: text(3)?,
        definer: text(4)?,
        security: text(5)?,
        algorithm: text(6)?,
        check_option: text(7)?,
        columns: if columns.is_empty() {
            Vec::new()
        } else {
            columns.split('\0').map(str::to_string).collect()
        },
        query: text(9)?,
    })
}

/// MariaDB's 1356 for view `view` whose query no longer plans: a table, column or function it
/// reads is gone (`e` the error planning it gave: 1146, 1054, 1305 or 1049; any other is
/// returned as it is).
pub fn invalid(e: SqlError, view: &View) -> SqlError {
    if !matches!(e.code, 1146 | 1054 | 1305 | 1049) {
        return e;
    }
    SqlError::new(
        1356,
        "HY000",
        format!(
            "View '{}.{}' references invalid table(s) or column(s) or function(s) or \
             definer/invoker of view lack rights to use them",
            view.db, view.name
        ),
    )
}

/// View `db.name`, if there is one.
pub fn find(cluster: &Cluster, db: &str, name: &str) -> Result<Option<View>> {
    let table = table(cluster)?;
    let mut txn = cluster.transaction();
    let op = txn.read(&table, key(db, name));
    txn.execute(client::ExecType::Commit).map_err(client)?;
    Ok(txn.row(op).and_then(decode))
}

/// Every view, in (database, name) order.
pub fn all(cluster: &Cluster) -> Result<Vec<View>> {
    let table = table(cluster)?;
    let rows = cluster.scan(&table, &Scan::table()).map_err(client)?;
    let mut views: Vec<View> = rows.iter().filter_map(|r| decode(r)).collect();
    views.sort_by(|a, b| (&a.db, &a.name).cmp(&(&b.db, &b.name)));
    Ok(views)
}

/// Stores `view`: a new one (DuplicateKey when one has its name) or, with `replace`, in place
/// of the one of its name.
pub fn store(cluster: &Cluster, view: &View, replace: bool) -> Result<()> {
    if view.query.len() > VIEW_TEXT_BYTES_MAX {
        return Err(SqlError::unsupported(format!(
            "a view query of more than {VIEW_TEXT_BYTES_MAX} bytes"
        )));
    }
    let table = table(cluster)?;
    let bytes = |s: &str| Value::Bytes(s.as_bytes().to_vec());
    let mut values: Vec<(u16, Value)> = key(&view.db, &view.name)
        .into_iter()
        .enumerate()
        .map(|(i, v)| (i as u16, v))
        .collect();
    for (i, v) in [
        &view.db,
        &view.name,
        &view.definer,
        &view.security,
        &view.algorithm,
        &view.check_option,
        &view.columns.join("\0"),
        &view.query,
    ]
    .into_iter()
    .enumerate()
    {
        values.push((i as u16 + 2, bytes(v)));
    }
    let mut txn = cluster.transaction();
    if replace {
        let row: Vec<(u16, Value)> = values.split_off(2);
        txn.write(&table, key(&view.db, &view.name), row);
    } else {
        txn.insert(&table, values);
    }
    txn.commit().map_err(client)
}

/// Deletes view `db.name`; false when there was none.
pub fn delete(cluster: &Cluster, db: &str, name: &str) -> Result<bool> {
    if find(cluster, db, name)?.is_none() {
        return Ok(false);
    }
    let table = table(cluster)?;
    let mut txn = cluster.transaction();
    txn.delete(&table, key(db, name));
    match txn.commit() {
        Ok(()) => Ok(true),
        Err(e) if e.code() == ErrorCode::NotFound => Ok(false),
        Err(e) => Err(client(e)),
    }
}

/// Deletes every view of database `db` (DROP DATABASE); returns how many went.
pub fn delete_database(cluster: &Cluster, db: &str) -> Result<u64> {
    let mut n = 0;
    for view in all(cluster)?
        .into_iter()
        .filter(|v| v.db.eq_ignore_ascii_case(db))
    {
        n += u64::from(delete(cluster, &view.db, &view.name)?);
    }
    Ok(n)
}

/// The CREATE VIEW text SHOW CREATE VIEW gives.
pub fn create_text(view: &View) -> String {
    let (user, host) = view
        .definer
        .rsplit_once('@')
        .unwrap_or((&view.definer, "%"));
    let columns = if view.columns.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = view.columns.iter().map(|c| backticked(c)).collect();
        format!("({}) ", quoted.join(","))
    };
    let check = match view.check_option.as_str() {
        "NONE" => String::new(),
        o => format!(" WITH {o} CHECK OPTION"),
    };
    format!(
        "CREATE ALGORITHM={} DEFINER={}@{} SQL SECURITY {} VIEW {} {columns}AS {}{check}",
        view.algorithm,
        backticked(user),
        backticked(host),
        view.security,
        backticked(&view.name),
        view.query
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_text_reads_as_mariadb_writes_it() {
        let v = View {
            db: "d".into(),
            name: "v".into(),
            definer: "root@localhost".into(),
            security: "DEFINER".into(),
            algorithm: "UNDEFINED".into(),
            check_option: "CASCADED".into(),
            columns: vec!["a".into(), "b".into()],
            query: "SELECT id, x FROM t".into(),
        };
        assert_eq!(
            create_text(&v),
            "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` (`a`,`b`) AS SELECT id, x FROM t WITH CASCADED CHECK OPTION"
        );
    }

    #[test]
    fn rows_decode_to_the_view_they_keep() {
        let row: Vec<Value> = [
            "d",
            "v",
            "D",
            "V",
            "u@h",
            "INVOKER",
            "MERGE",
            "NONE",
            "a\0b",
            "SELECT 1, 2",
        ]
        .iter()
        .map(|s| Value::Bytes(s.as_bytes().to_vec()))
        .collect();
        let v = decode(&row).unwrap();
        assert_eq!(v.columns, vec!["a", "b"]);
        assert_eq!(v.name, "V");
        assert_eq!(decode(&row[..5]), None);
    }
}
