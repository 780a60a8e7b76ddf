//! information_schema's, ndbinfo's and SHOW's rows, made in the API node from the catalog, the
//! accounts and the session's state when a plan reads one of `catalog/infoschema.rs`'s virtual
//! tables; and the refusal of writes to them (error 1044).

use base::schema::ColumnDef;
use base::types::Collation;
use base::Value;
use client::{Scan, ScanOrder, Table};
use sqlparser::ast::{self, ObjectName, Statement};

use crate::catalog::definition::{self, ENGINE};
use crate::catalog::infoschema::*;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::ident;
use crate::plan::{virtual_of, Source};
use crate::session::Session;

/// Whether table `name`, as the session reads it, is in information_schema.
pub(crate) fn names_schema(session: &Session, name: &ObjectName) -> bool {
    match ident(name) {
        Ok((Some(db), _)) => is_schema(&db),
        Ok((None, _)) => session.database.as_deref().is_some_and(is_schema),
        Err(_) => false,
    }
}

/// Refuses a change to table `name` of information_schema.
pub(crate) fn refuse_in_schema(session: &Session, name: &ObjectName) -> Result<()> {
    if names_schema(session, name) {
        Err(read_only(&session.user))
    } else {
        Ok(())
    }
}

/// Refuses a statement that would write to or change information_schema.
pub(crate) fn refuse_writes(session: &Session, s: &Statement) -> Result<()> {
    let in_schema = |name: &ObjectName| names_schema(session, name);
    let from_tables = |from: &[ast::TableWithJoins]| {
        from.iter().any(|t| match &t.relation {
            ast::TableFactor::Table { name, .. } => in_schema(name),
            _ => false,
        })
    };
    let refused = match s {
        Statement::Insert(i) => match &i.table {
            ast::TableObject::TableName(n) => in_schema(n),
            _ => false,
        },
        Statement::Update(u) => from_tables(std::slice::from_ref(&u.table)),
        Statement::Delete(d) => match &d.from {
            ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => {
                from_tables(f)
            }
        },
        Statement::CreateTable(c) => in_schema(&c.name),
        Statement::CreateIndex(c) => in_schema(&c.table_name),
        Statement::AlterTable(a) => in_schema(&a.name),
        Statement::Truncate(t) => t.table_names.iter().any(|n| in_schema(&n.name)),
        Statement::Drop {
            object_type: ast::ObjectType::Database | ast::ObjectType::Schema,
            names,
            ..
        } => names
            .iter()
            .any(|n| ident(n).is_ok_and(|(_, d)| is_schema(&d))),
        Statement::CreateDatabase { db_name, .. } => {
            ident(db_name).is_ok_and(|(_, d)| is_schema(&d))
        }
        Statement::Drop {
            object_type: ast::ObjectType::Index,
            table: Some(table),
            ..
        } => in_schema(table),
        Statement::Drop { names, .. } => names.iter().any(in_schema),
        Statement::RenameTable(renames) => renames
            .iter()
            .any(|r| in_schema(&r.old_name) || in_schema(&r.new_name)),
        _ => false,
    };
    if refused {
        Err(read_only(&session.user))
    } else {
        Ok(())
    }
}

/// Every table SQL sees, as (database, table, definition), in name order.
pub(crate) fn catalog(session: &Session) -> Result<Vec<(String, String, Table)>> {
    let cluster = &session.shared.cluster();
    let client = |e: client::ClientError| SqlError::from_client(&e);
    let mut out = Vec::new();
    for full in cluster.list_tables().map_err(client)? {
        let Some((db, name)) = full.split_once('/') else {
            continue;
        };
        if !session.sees_table(db, name) {
            continue;
        }
        match cluster.table(&full) {
            Ok(t) => out.push((db.to_string(), name.to_string(), t)),
            // Dropped meanwhile.
            Err(e) if e.code() == base::ErrorCode::NoSuchTable => {}
            Err(e) => return Err(client(e)),
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    Ok(out)
}

/// The next AUTO_INCREMENT value of a table with such a column: one above the largest value
/// stored (read from the end of an index that starts with the column when there is one).
pub(crate) fn next_auto_increment(session: &Session, table: &Table) -> Result<Option<u64>> {
    let def = table.def();
    let Some(column) = def.auto_increment_column() else {
        return Ok(None);
    };
    let name = def.columns[column].name.as_str();
    let index = def
        .indexes
        .iter()
        .find(|i| i.columns.first() == Some(&(column as u16)));
    let scan = match index {
        Some(i) => Scan::index(&i.name).order(ScanOrder::Descending).limit(1),
        None => Scan::table(),
    };
    let rows = session
        .reading()
        .scan(table, &scan.columns(&[name]))
        .map_err(|e| SqlError::from_client(&e))?;
    let largest = rows
        .iter()
        .filter_map(|r| match r.first() {
            Some(Value::UInt(u)) => Some(*u),
            Some(Value::Int(i)) => Some((*i).max(0) as u64),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    Ok(Some(largest.saturating_add(1)))
}

/// The rows of the virtual table `src` reads, as fetched rows (its `fetch` columns); the
/// caller applies the WHERE.
pub(crate) fn rows(session: &Session, src: &Source) -> Result<Vec<Vec<Value>>> {
    let Some(v) = virtual_of(src) else {
        return Ok(Vec::new());
    };
    let def = src.table.def();
    let wants = |column: &str| {
        def.column(column)
            .is_some_and(|p| src.fetch.contains(&(p as u16)))
    };
    let full = match v {
        Virtual::Schemata => schemata(session)?,
        Virtual::Tables => tables_rows(session, wants("AUTO_INCREMENT"))?,
        Virtual::Columns => columns_rows(session)?,
        Virtual::Statistics => statistics(session)?,
        Virtual::KeyColumnUsage => key_column_usage(session)?,
        Virtual::Collations => collations(),
        Virtual::CharacterSets => character_sets(),
        Virtual::UserPrivileges | Virtual::SchemaPrivileges | Virtual::TablePrivileges => {
            privilege_rows(session, v)?
        }
        Virtual::ReferentialConstraints => referential_constraints(session)?,
        Virtual::Triggers => Vec::new(),
        Virtual::Views => views_rows(session)?,
        Virtual::TableConstraints => table_constraints(session)?,
        Virtual::CheckConstraints => check_constraints(session)?,
        Virtual::Engines => engines(),
        Virtual::SessionVariables => pairs(crate::session::variables::shown(session, false)),
        Virtual::GlobalVariables => pairs(crate::session::variables::shown(session, true)),
        Virtual::SessionStatus => pairs(crate::session::activity::status(session, false)),
        Virtual::GlobalStatus => pairs(crate::session::activity::status(session, true)),
        Virtual::Routines => session.routine_rows()?,
        Virtual::Parameters => session.parameter_rows()?,
        Virtual::NdbinfoNodes => ndbinfo_nodes(session)?,
        Virtual::NdbinfoMemoryusage => ndbinfo_memoryusage(session)?,
        Virtual::NdbinfoTableFragments => ndbinfo_table_fragments(session)?,
        Virtual::MysqlUser => mysql_user(session)?,
    };
    Ok(full
        .into_iter()
        .enumerate()
        .map(|(n, mut row)| {
            // The hidden key, last.
            row.push(count(n as u64 + 1));
            src.fetch
                .iter()
                .map(|c| row.get(*c as usize).cloned().unwrap_or(Value::Null))
                .collect()
        })
        .collect())
}

/// The rows of USER_PRIVILEGES, SCHEMA_PRIVILEGES or TABLE_PRIVILEGES: one per privilege an
/// account holds at that level (USER_PRIVILEGES shows USAGE for none), of every account when
/// the session may read every account's (it holds SELECT globally, as MariaDB's SELECT on
/// `mysql`), else of its own.
pub(crate) fn privilege_rows(session: &Session, v: Virtual) -> Result<Vec<Vec<Value>>> {
    use crate::catalog::privilege::{self, GRANT_OPTION};
    let cluster = session.shared.cluster();
    let everyone = session.privileges & privilege::SELECT != 0;
    let mine =
        |user: &str, host: &str| everyone || (user == session.user && host == session.account_host);
    let grantee = |user: &str, host: &str| text(format!("'{user}'@'{host}'"));
    let grantable = |p: u64| text(if p & GRANT_OPTION != 0 { "YES" } else { "NO" });
    let names = |p: u64| {
        privilege::NAMES
            .iter()
            .filter(move |(_, bit)| p & bit != 0)
            .map(|(name, _)| *name)
    };
    let mut rows = Vec::new();
    if v == Virtual::UserPrivileges {
        for a in crate::catalog::users::load(&cluster)? {
            if !mine(&a.user, &a.host) {
                continue;
            }
            let mut held: Vec<&str> = names(a.privileges).collect();
            if held.is_empty() {
                held.push("USAGE");
            }
            for name in held {
                rows.push(vec![
                    grantee(&a.user, &a.host),
                    text("def"),
                    text(name),
                    grantable(a.privileges),
                ]);
            }
        }
        return Ok(rows);
    }
    for g in crate::catalog::users::all_grants(&cluster)? {
        if !mine(&g.user, &g.host) || g.table.is_empty() != (v == Virtual::SchemaPrivileges) {
            continue;
        }
        for name in names(g.privileges) {
            let mut row = vec![grantee(&g.user, &g.host), text("def"), text(&g.database)];
            if v == Virtual::TablePrivileges {
                row.push(text(&g.table));
            }
            row.push(text(name));
            row.push(grantable(g.privileges));
            rows.push(row);
        }
    }
    Ok(rows)
}

pub(crate) fn schemata(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut names: Vec<(String, Option<Collation>)> = session
        .shared
        .cluster()
        .database_collations()
        .map_err(|e| SqlError::from_client(&e))?
        .into_iter()
        .filter(|(n, _)| session.sees_database(n))
        .map(|(n, c)| (n, Some(c)))
        .collect();
    names.insert(0, (NAME.to_string(), None));
    Ok(names
        .into_iter()
        .map(|(n, c)| {
            let (charset, collation) = match c {
                None => ("utf8mb3", "utf8mb3_general_ci"),
                Some(c) => (c.charset().name(), c.name()),
            };
            vec![
                text("def"),
                text(n),
                text(charset),
                text(collation),
                Value::Null,
                text(""),
            ]
        })
        .collect())
}

/// Every table information_schema describes: its own, then the catalog's.
pub(crate) fn described(session: &Session) -> Result<Vec<(String, String, Table)>> {
    let mut all: Vec<(String, String, Table)> = tables()
        .iter()
        .filter(|(v, _)| v.public())
        .map(|(v, t)| (NAME.to_string(), v.name().to_string(), t.clone()))
        .collect();
    all.extend(catalog(session)?);
    Ok(all)
}

pub(crate) fn tables_rows(session: &Session, auto_increment: bool) -> Result<Vec<Vec<Value>>> {
    // What the data node holds per table (its memory estimate), and its free data memory.
    let status = session
        .reading()
        .status()
        .map_err(|e| SqlError::from_client(&e))?;
    let free = status
        .data_memory_limit
        .saturating_sub(status.data_memory_bytes);
    let mut rows = Vec::new();
    for (db, name, table) in described(session)? {
        let system = is_schema(&db);
        let counter = if auto_increment && !system {
            next_auto_increment(session, &table)?
        } else {
            None
        };
        let collation = if system {
            "utf8mb3_general_ci"
        } else {
            definition::table_collation(table.def()).name()
        };
        rows.push(vec![
            text("def"),
            text(db),
            text(name),
            text(if system { "SYSTEM VIEW" } else { "BASE TABLE" }),
            text(if system { "MEMORY" } else { ENGINE }),
            count(10),
            text(if system { "Fixed" } else { "Dynamic" }),
        ]);
        // Sizes from the data node's memory estimate (a table not on it yet holds nothing);
        // Cairn keeps no times.
        let memory = status.tables.iter().find(|t| t.id == table.def().id);
        let row = rows.last_mut().expect("pushed");
        if system {
            row.extend(std::iter::repeat_n(Value::Null, 6));
        } else {
            let (n, data, index) =
                memory.map_or((0, 0, 0), |m| (m.rows, m.data_bytes, m.index_bytes));
            row.extend([
                count(n),
                count(data.checked_div(n).unwrap_or(0)),
                count(data),
                count(status.data_memory_limit),
                count(index),
                count(free),
            ]);
        }
        row.extend([
            counter.map(count).unwrap_or(Value::Null),
            Value::Null,
            Value::Null,
            Value::Null,
            text(collation),
            Value::Null,
            text(""),
            text(&table.def().comment),
            Value::Null,
            text(if system { "Y" } else { "N" }),
        ]);
    }
    for view in seen_views(session)? {
        // As MariaDB shows a view: its type and comment, nothing stored.
        let mut row = vec![text("def"), text(&view.db), text(&view.name), text("VIEW")];
        row.extend(std::iter::repeat_n(Value::Null, 16));
        row.extend([text("VIEW"), Value::Null, Value::Null]);
        rows.push(row);
    }
    Ok(rows)
}

/// The views the session may see.
fn seen_views(session: &Session) -> Result<Vec<crate::catalog::view::View>> {
    let mut views = crate::catalog::view::all(&session.shared.cluster())?;
    views.retain(|v| session.sees_table(&v.db, &v.name));
    Ok(views)
}

/// information_schema.VIEWS: every view the session may see. None is updatable in Cairn.
fn views_rows(session: &Session) -> Result<Vec<Vec<Value>>> {
    let (charset, collation) = (session.charsets.client.name(), session.charsets.collation);
    Ok(seen_views(session)?
        .iter()
        .map(|v| {
            vec![
                text("def"),
                text(&v.db),
                text(&v.name),
                text(&v.query),
                text(&v.check_option),
                text("NO"),
                text(&v.definer),
                text(&v.security),
                text(charset),
                text(collation),
                text(&v.algorithm),
            ]
        })
        .collect())
}

pub(crate) fn columns_rows(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    let mut all: Vec<(String, String, Table)> = described(session)?;
    // A view's columns as its query's plan types them (none for a view that does not plan).
    for view in seen_views(session)? {
        if let Some(def) = session.view_definition_planned(&view) {
            all.push((
                view.db.clone(),
                view.name.clone(),
                Table::virtual_table(def),
            ));
        }
    }
    for (db, name, table) in all {
        let def = table.def();
        for (n, (p, c)) in def
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.hidden)
            .enumerate()
        {
            rows.push(vec![
                text("def"),
                text(db.clone()),
                text(name.clone()),
                text(c.name.clone()),
                count(n as u64 + 1),
                definition::default_text(c).map(text).unwrap_or(Value::Null),
                text(if c.nullable { "YES" } else { "NO" }),
            ]);
            let row = rows.last_mut().expect("pushed");
            row.extend(type_values(c));
            row.extend([
                text(definition::column_key(def, p)),
                text(definition::extra_text(c)),
                text("select,insert,update,references"),
                text(&c.comment),
                text(if c.generated.is_some() {
                    "ALWAYS"
                } else {
                    "NEVER"
                }),
                c.generated
                    .as_ref()
                    .map_or(Value::Null, |g| text(g.expr.clone())),
            ]);
        }
    }
    Ok(rows)
}

/// Calls `each` for every column of every key: (database, table, key, column position in
/// the key from 1, table column).
pub(crate) fn key_columns(
    session: &Session,
    each: &mut dyn FnMut(&str, &str, &definition::Key, usize, &ColumnDef),
) -> Result<()> {
    for (db, name, table) in catalog(session)? {
        let def = table.def();
        for key in definition::keys(def) {
            for (seq, c) in key.columns.iter().enumerate() {
                each(&db, &name, &key, seq + 1, &def.columns[*c as usize]);
            }
        }
    }
    Ok(())
}

pub(crate) fn statistics(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for (db, name, table) in catalog(session)? {
        let def = table.def();
        for key in definition::keys(def) {
            for (at, c) in key.columns.iter().enumerate() {
                let c = &def.columns[*c as usize];
                // The distinct values of the key's first columns up to this one, as ANALYZE
                // TABLE last measured them (NULL for a table never analyzed).
                let cardinality = table
                    .stats()
                    .and_then(|s| s.distinct(key.name, at + 1))
                    .map_or(Value::Null, count);
                statistics_row(&mut rows, &db, &name, &key, at + 1, c, cardinality);
            }
        }
    }
    Ok(rows)
}

/// One row of STATISTICS: column `c`, the `seq`-th of `key`.
fn statistics_row(
    rows: &mut Vec<Vec<Value>>,
    db: &str,
    name: &str,
    key: &definition::Key,
    seq: usize,
    c: &ColumnDef,
    cardinality: Value,
) {
    rows.push(vec![
        text("def"),
        text(db),
        text(name),
        Value::Int(!key.unique as i64),
        text(db),
        text(key.name),
        count(seq as u64),
        text(c.name.clone()),
        text("A"),
        cardinality,
        key.prefix(seq - 1)
            .map_or(Value::Null, |n| count(u64::from(n))),
        Value::Null,
        text(if c.nullable { "YES" } else { "" }),
        text("BTREE"),
        text(""),
        text(""),
        text("NO"),
    ]);
}

/// TABLE_CONSTRAINTS: a row per primary or unique key, and per JSON column's check.
pub(crate) fn table_constraints(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    key_columns(session, &mut |db, name, key, seq, _| {
        if key.unique && seq == 1 {
            let kind = if key.name == crate::catalog::definition::PRIMARY {
                "PRIMARY KEY"
            } else {
                "UNIQUE"
            };
            rows.push(vec![
                text("def"),
                text(db),
                text(key.name),
                text(db),
                text(name),
                text(kind),
            ]);
        }
    })?;
    for (db, name, column) in json_columns(session)? {
        rows.push(vec![
            text("def"),
            text(db.clone()),
            text(column.clone()),
            text(db),
            text(name),
            text("CHECK"),
        ]);
    }
    for (db, name, _, fk) in foreign_keys(session)? {
        rows.push(vec![
            text("def"),
            text(db.clone()),
            text(fk.name),
            text(db),
            text(name),
            text("FOREIGN KEY"),
        ]);
    }
    for (db, name, table) in catalog(session)? {
        for check in &table.def().checks {
            rows.push(vec![
                text("def"),
                text(db.clone()),
                text(check.name.clone()),
                text(db.clone()),
                text(name.clone()),
                text("CHECK"),
            ]);
        }
    }
    Ok(rows)
}

/// Each JSON column's database, table and name.
pub(crate) fn json_columns(session: &Session) -> Result<Vec<(String, String, String)>> {
    let mut columns = Vec::new();
    for (db, name, table) in catalog(session)? {
        for c in table.def().columns.iter().filter(|c| c.json) {
            columns.push((db.clone(), name.clone(), c.name.clone()));
        }
    }
    Ok(columns)
}

/// CHECK_CONSTRAINTS: a JSON column's check, named after the column, as MariaDB.
pub(crate) fn check_constraints(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows: Vec<Vec<Value>> = json_columns(session)?
        .into_iter()
        .map(|(db, name, column)| {
            let clause = format!(
                "json_valid({})",
                crate::catalog::definition::backticked(&column)
            );
            vec![
                text("def"),
                text(db),
                text(name),
                text(column),
                text("Column"),
                text(clause),
            ]
        })
        .collect();
    for (db, name, table) in catalog(session)? {
        for check in &table.def().checks {
            rows.push(vec![
                text("def"),
                text(db.clone()),
                text(name.clone()),
                text(check.name.clone()),
                text(if check.column.is_some() {
                    "Column"
                } else {
                    "Table"
                }),
                text(check.expr.clone()),
            ]);
        }
    }
    Ok(rows)
}

/// mysql.user's rows, one per account, for a session with the global SELECT privilege (as
/// reading MariaDB's needs SELECT on it); 1142 for any other.
pub(crate) fn mysql_user(session: &Session) -> Result<Vec<Vec<Value>>> {
    if session.privileges & crate::catalog::privilege::SELECT == 0 {
        return Err(SqlError::new(
            1142,
            "42000",
            format!(
                "SELECT command denied to user '{}'@'{}' for table `mysql`.`user`",
                session.user, session.account_host
            ),
        ));
    }
    let cluster = session.shared.cluster();
    let yes_no = |held: bool| text(if held { "Y" } else { "N" });
    Ok(crate::catalog::users::load(&cluster)?
        .into_iter()
        .map(|a| {
            // The native plugin's hash is also the old Password column.
            let native = a.plugin == crate::catalog::users::Plugin::Native;
            let mut row = vec![
                text(&a.host),
                text(&a.user),
                text(if native { a.auth.as_str() } else { "" }),
            ];
            row.extend(
                MYSQL_USER_PRIVILEGES
                    .iter()
                    .map(|(_, bit)| yes_no(a.privileges & bit != 0)),
            );
            row.extend([
                text(""),
                text(""),
                text(""),
                text(""),
                count(0),
                count(0),
                count(0),
                Value::Int(0),
                text(a.plugin.name()),
                text(&a.auth),
                text("N"),
                text("N"),
                text(""),
                Value::Decimal(base::value::Decimal::new(0, 6)),
            ]);
            row
        })
        .collect())
}

/// One row per data node the front end was given (each asked for its status; one that does
/// not answer in time is left out): its data memory in use and its limit.
pub(crate) fn ndbinfo_memoryusage(session: &Session) -> Result<Vec<Vec<Value>>> {
    let addresses: Vec<&str> = session.shared.config.datanode.split(',').collect();
    let statuses = if addresses.len() == 1 {
        vec![session
            .shared
            .cluster()
            .status()
            .map_err(|e| SqlError::from_client(&e))?]
    } else {
        addresses
            .iter()
            .filter_map(|a| client::Cluster::connect_timeout(a.trim(), NODE_STATUS_TIMEOUT).ok())
            .filter_map(|c| c.status().ok())
            .collect()
    };
    let mut statuses = statuses;
    statuses.sort_by_key(|s| s.node_id);
    Ok(statuses
        .into_iter()
        .map(|s| {
            vec![
                count(u64::from(s.node_id)),
                text("Data memory"),
                count(s.data_memory_bytes),
                count(s.data_memory_bytes.div_ceil(NDB_PAGE_BYTES)),
                count(s.data_memory_limit),
                count(s.data_memory_limit / NDB_PAGE_BYTES),
            ]
        })
        .collect())
}

/// One row per data node of every node group the front end reaches (a data node alone:
/// itself, started, the primary of its partitions). Each group is described by a member the
/// front end was given that answers (its status names its group and the group's members, the
/// primary first); node groups are numbered in the order of their nodes' ids.
/// One status per node group the front end reaches, in group order (the answering node lists
/// its group's primary first among the members); one with no group for a data node alone.
fn group_statuses(session: &Session) -> Result<Vec<client::NodeStatus>> {
    let s = session
        .shared
        .cluster()
        .status()
        .map_err(|e| SqlError::from_client(&e))?;
    if s.group.is_empty() {
        return Ok(vec![s]);
    }
    let mut statuses = vec![s];
    for address in session.shared.config.datanode.split(',') {
        let known = |n: u32| statuses.iter().any(|s| s.group.contains(&n));
        if let Some(status) = client::Cluster::connect_timeout(address.trim(), NODE_STATUS_TIMEOUT)
            .ok()
            .and_then(|c| c.status().ok())
        {
            if !known(status.node_id) {
                statuses.push(status);
            }
        }
    }
    statuses.sort_by_key(|s| s.group.first().copied());
    Ok(statuses)
}

pub(crate) fn ndbinfo_nodes(session: &Session) -> Result<Vec<Vec<Value>>> {
    let statuses = group_statuses(session)?;
    if let [s] = &statuses[..] {
        if s.group.is_empty() {
            return Ok(vec![vec![
                count(u64::from(s.node_id)),
                count(1),
                text("STARTED"),
                text("primary"),
                count(0),
            ]]);
        }
    }
    let mut rows = Vec::new();
    for (g, s) in statuses.iter().enumerate() {
        // The answering node lists the group's primary first.
        let primary = s.members.first().copied();
        for n in &s.group {
            let member = s.members.contains(n);
            rows.push(vec![
                count(u64::from(*n)),
                count(g as u64 + 1),
                text(if member { "STARTED" } else { "NOT IN VIEW" }),
                text(match (member, primary == Some(*n)) {
                    (true, true) => "primary",
                    (true, false) => "backup",
                    _ => "",
                }),
                count(s.view_epoch),
            ]);
        }
    }
    rows.sort_by_key(|r| match r[0] {
        Value::UInt(n) => n,
        Value::Int(n) => n as u64,
        _ => 0,
    });
    Ok(rows)
}

/// ndbinfo.table_fragments: one row per partition of every table SQL sees, as its node group
/// holds it now (reported by its primary: `node_id`); 0 where there is no such replica.
pub(crate) fn ndbinfo_table_fragments(session: &Session) -> Result<Vec<Vec<Value>>> {
    let statuses = group_statuses(session)?;
    let groups = statuses.len() as u32;
    let mut rows = Vec::new();
    for (_, _, t) in catalog(session)? {
        let def = t.def();
        for p in 0..def.partition_count {
            let g = base::placement::group_of(p, groups);
            let Some(s) = statuses.get(g as usize) else {
                continue;
            };
            // A data node alone: it is the one replica.
            let (group, members) = if s.group.is_empty() {
                (vec![s.node_id], vec![s.node_id])
            } else {
                (s.group.clone(), s.members.clone())
            };
            let replica = |k: usize| count(u64::from(members.get(k).copied().unwrap_or(0)));
            let alive = members.len() as u64;
            rows.push(vec![
                replica(0),
                count(u64::from(def.id)),
                count(u64::from(p)),
                count(u64::from(p)),
                count(u64::from(p / groups.max(1))),
                count(u64::from(base::placement::worker_of(
                    p,
                    groups,
                    s.worker_count.max(1),
                ))),
                count(group.len() as u64),
                replica(0),
                count(u64::from(group.first().copied().unwrap_or(0))),
                replica(1),
                replica(2),
                replica(3),
                count(alive),
                count((group.len() as u64).saturating_sub(alive)),
                count(alive),
            ]);
        }
    }
    Ok(rows)
}

pub(crate) fn key_column_usage(session: &Session) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    key_columns(session, &mut |db, name, key, seq, c| {
        if key.unique {
            rows.push(vec![
                text("def"),
                text(db),
                text(key.name),
                text("def"),
                text(db),
                text(name),
                text(c.name.clone()),
                Value::Int(seq as i64),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::Null,
            ]);
        }
    })?;
    for (db, name, table, fk) in foreign_keys(session)? {
        let (parent_db, parent) = crate::catalog::foreign::split_name(&fk.parent);
        for (seq, (c, p)) in fk.columns.iter().zip(&fk.parent_columns).enumerate() {
            rows.push(vec![
                text("def"),
                text(db.clone()),
                text(fk.name.clone()),
                text("def"),
                text(db.clone()),
                text(name.clone()),
                text(table.def().columns[*c as usize].name.clone()),
                Value::Int(seq as i64 + 1),
                Value::Int(seq as i64 + 1),
                text(parent_db),
                text(parent),
                text(p.clone()),
            ]);
        }
    }
    Ok(rows)
}

/// Every foreign key of every table: database, table name, table, key.
fn foreign_keys(
    session: &Session,
) -> Result<Vec<(String, String, Table, base::foreign_key::ForeignKeyDef)>> {
    let mut keys = Vec::new();
    for (db, name, table) in catalog(session)? {
        for fk in &table.def().foreign_keys {
            keys.push((db.clone(), name.clone(), table.clone(), fk.clone()));
        }
    }
    Ok(keys)
}

/// REFERENTIAL_CONSTRAINTS: a row per foreign key, naming the parent's key it references
/// (the first whose columns the referenced ones lead; none when the parent is missing).
fn referential_constraints(session: &Session) -> Result<Vec<Vec<Value>>> {
    let cluster = session.shared.cluster();
    let mut rows = Vec::new();
    for (db, name, _, fk) in foreign_keys(session)? {
        let (parent_db, parent) = crate::catalog::foreign::split_name(&fk.parent);
        let key = cluster.table(&fk.parent).ok().and_then(|p| {
            let def = p.def();
            let positions = fk.parent_positions(def)?;
            def.indexes
                .iter()
                .find(|i| i.columns.starts_with(&positions))
                .map(|i| i.name.clone())
        });
        rows.push(vec![
            text("def"),
            text(db.clone()),
            text(fk.name.clone()),
            text("def"),
            text(parent_db),
            key.map_or(Value::Null, text),
            text("NONE"),
            text(fk.on_update.sql_name()),
            text(fk.on_delete.sql_name()),
            text(name),
            text(parent),
        ]);
    }
    Ok(rows)
}

pub(crate) fn pairs(list: Vec<(String, String)>) -> Vec<Vec<Value>> {
    list.into_iter()
        .map(|(name, value)| vec![text(name), text(value)])
        .collect()
}
