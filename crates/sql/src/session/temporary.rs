//! Temporary tables (CREATE TEMPORARY TABLE): each is a data-node table under a hidden internal
//! name that only its session maps its own name to, dropped when the session ends; the tables
//! an API node left when it died are dropped by a live one once its lease has run out.
//!
//! A temporary table shadows a table of the same name for its session alone, as in MariaDB:
//! every statement that names a table resolves it here first (`Session::table_name`), so
//! reads, writes, DDL, SHOW and DESCRIBE reach it. It is listed nowhere (SHOW TABLES,
//! information_schema), holds no foreign keys, and creating or dropping it commits nothing.
//!
//! An API node's temporary tables are named `cairn_tmp_<instance>_<session>_<n>`, its instance
//! a random number drawn at its start. Each API node keeps a lease row in
//! [`LEASES_TABLE`], renewed every [`LEASE_RENEW`]; at its start and at each renewal it drops the
//! temporary tables of instances whose lease is missing or ran out ([`LEASE`] after its last
//! renewal), which is what a crashed API node leaves behind.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use base::schema::ColumnDef;
use base::types::ColumnType;
use base::{ErrorCode, TableDef, Value};
use client::{Cluster, Scan};

use crate::foundation::error::{Result, SqlError};

/// The start of every temporary table's hidden name (an internal table: no front end opens one
/// by that name for a client).
pub const TEMPORARY_PREFIX: &str = base::schema::TEMPORARY_TABLE_PREFIX;
/// The API nodes' leases: instance, and until when (Unix milliseconds) it is taken as alive.
pub const LEASES_TABLE: &str = "cairn_api_leases";
/// How long an API node is taken as alive after renewing its lease.
pub const LEASE: Duration = Duration::from_secs(300);
/// How often an API node renews its lease (and sweeps tables of dead ones).
pub const LEASE_RENEW: Duration = Duration::from_secs(60);
/// Temporary tables one session may hold at once.
pub const TEMPORARY_TABLES_MAX: usize = 256;

/// A session's temporary table: the name the session gave it and the data node's name.
#[derive(Clone, Debug)]
pub(crate) struct Temporary {
    pub db: String,
    pub name: String,
    pub hidden: String,
}

/// A session's temporary tables by lowercase `db/name`.
#[derive(Default)]
pub(crate) struct Temporaries {
    tables: HashMap<String, Temporary>,
    /// The number in the next hidden name.
    next: u64,
}

fn key(db: &str, name: &str) -> String {
    format!("{}/{}", db.to_ascii_lowercase(), name.to_ascii_lowercase())
}

impl Temporaries {
    /// The session's temporary table `db.name`, if it has one.
    pub fn get(&self, db: &str, name: &str) -> Option<&Temporary> {
        self.tables.get(&key(db, name))
    }

    /// A hidden name for a new temporary table of session `session` of API node `instance`
    /// (not yet registered: [`Temporaries::add`] does once the table is made).
    pub fn fresh_name(&mut self, instance: u64, session: u32) -> Result<String> {
        if self.tables.len() >= TEMPORARY_TABLES_MAX {
            return Err(SqlError::unsupported(format!(
                "more than {TEMPORARY_TABLES_MAX} temporary tables in one session"
            )));
        }
        self.next += 1;
        Ok(format!(
            "{TEMPORARY_PREFIX}{instance:016x}_{session}_{}",
            self.next
        ))
    }

    pub fn add(&mut self, t: Temporary) {
        self.tables.insert(key(&t.db, &t.name), t);
    }

    pub fn remove(&mut self, db: &str, name: &str) -> Option<Temporary> {
        self.tables.remove(&key(db, name))
    }

    /// Renames the temporary table `db.name` (the caller checked the new name is free).
    pub fn rename(&mut self, db: &str, name: &str, to_db: String, to_name: String) {
        if let Some(mut t) = self.remove(db, name) {
            t.db = to_db;
            t.name = to_name;
            self.add(t);
        }
    }

    /// Every temporary table, taken out (the session ends or is reset).
    pub fn take_all(&mut self) -> Vec<Temporary> {
        self.tables.drain().map(|(_, t)| t).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }
}

/// Drops the data node's tables behind `tables` (a session's, when it ends); a failure is
/// logged, and the table is left to the next sweep.
pub(crate) fn drop_all(cluster: &Cluster, tables: Vec<Temporary>) {
    for t in tables {
        match cluster.drop_table(&t.hidden) {
            Ok(()) => {}
            Err(e) if e.code() == ErrorCode::NoSuchTable => {}
            Err(e) => tracing::warn!(
                "dropping temporary table {}.{} ({}): {e}; a later sweep drops it",
                t.db,
                t.name,
                t.hidden
            ),
        }
    }
}

/// The API node's instance number inside a temporary table's hidden name.
fn instance_of(hidden: &str) -> Option<u64> {
    let rest = hidden.strip_prefix(TEMPORARY_PREFIX)?;
    let (instance, _) = rest.split_once('_')?;
    u64::from_str_radix(instance, 16).ok()
}

fn leases_definition() -> TableDef {
    let columns = vec![
        ColumnDef::new("instance", ColumnType::BigInt { unsigned: true }),
        ColumnDef::new("alive_until", ColumnType::BigInt { unsigned: false }),
    ];
    match TableDef::new(LEASES_TABLE, columns, &["instance"]) {
        Ok(def) => def,
        Err(e) => panic!("the leases table's definition is invalid: {e}"),
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn client(e: client::ClientError) -> SqlError {
    SqlError::from_client(&e)
}

/// Writes (or renews) `instance`'s lease, making the leases table when it is missing.
pub fn renew(cluster: &Cluster, instance: u64) -> Result<()> {
    let table = match cluster.table(LEASES_TABLE) {
        Ok(t) => t,
        Err(e) if e.code() == ErrorCode::NoSuchTable => {
            match cluster.create_table(leases_definition()) {
                Ok(t) => t,
                Err(e) if e.code() == ErrorCode::TableExists => {
                    cluster.table(LEASES_TABLE).map_err(client)?
                }
                Err(e) => return Err(client(e)),
            }
        }
        Err(e) => return Err(client(e)),
    };
    let until = now_millis() + LEASE.as_millis() as i64;
    let mut txn = cluster.transaction();
    txn.write(
        &table,
        vec![Value::UInt(instance)],
        vec![(1, Value::Int(until))],
    );
    txn.commit().map_err(client)
}

/// Drops the temporary tables of API nodes whose lease is missing or ran out, and those
/// leases; returns how many tables went. `instance` (this node's) is always alive.
pub fn sweep(cluster: &Cluster, instance: u64) -> Result<usize> {
    let table = cluster.table(LEASES_TABLE).map_err(client)?;
    let rows = cluster
        .scan(&table, &Scan::table().columns(&["instance", "alive_until"]))
        .map_err(client)?;
    let now = now_millis();
    let mut alive = vec![instance];
    let mut expired = Vec::new();
    for row in rows {
        if let [Value::UInt(i), Value::Int(until)] = row.as_slice() {
            if *until > now {
                alive.push(*i);
            } else if *i != instance {
                expired.push(*i);
            }
        }
    }
    let mut dropped = 0;
    for name in cluster.list_tables().map_err(client)? {
        let Some(owner) = instance_of(&name) else {
            continue;
        };
        if alive.contains(&owner) {
            continue;
        }
        match cluster.drop_table(&name) {
            Ok(()) => dropped += 1,
            Err(e) if e.code() == ErrorCode::NoSuchTable => {}
            Err(e) => return Err(client(e)),
        }
    }
    if !expired.is_empty() {
        let mut txn = cluster.transaction();
        for i in expired {
            txn.delete(&table, vec![Value::UInt(i)]);
        }
        // Another node's sweep may have deleted them first.
        if let Err(e) = txn.commit() {
            if e.code() != ErrorCode::NotFound {
                return Err(client(e));
            }
        }
    }
    Ok(dropped)
}

/// The lease thread's work: renew and sweep every [`LEASE_RENEW`] until `stop` is closed.
pub fn keep_lease(cluster: impl Fn() -> Cluster, instance: u64, stop: Receiver<()>) {
    loop {
        let c = cluster();
        match renew(&c, instance).and_then(|()| sweep(&c, instance)) {
            Ok(0) => {}
            Ok(n) => tracing::info!("dropped {n} temporary tables left by stopped API nodes"),
            Err(e) => tracing::warn!("renewing this API node's lease: {e}"),
        }
        match stop.recv_timeout(LEASE_RENEW) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_names_carry_their_instance() {
        let mut t = Temporaries::default();
        let name = t.fresh_name(0xabc, 7).unwrap();
        assert_eq!(name, "cairn_tmp_0000000000000abc_7_1");
        assert!(name.len() <= base::limits::NAME_BYTES_MAX);
        assert_eq!(instance_of(&name), Some(0xabc));
        assert_eq!(instance_of("cairn_sql_users"), None);
        assert_eq!(instance_of("cairn_tmp_zz_1_1"), None);
        let longest = format!(
            "{TEMPORARY_PREFIX}{:016x}_{}_{}",
            u64::MAX,
            u32::MAX,
            u64::MAX
        );
        assert!(longest.len() <= base::limits::NAME_BYTES_MAX, "{longest}");
    }

    #[test]
    fn a_session_holds_a_bounded_number() {
        let mut t = Temporaries::default();
        for n in 0..TEMPORARY_TABLES_MAX {
            let hidden = t.fresh_name(1, 1).unwrap();
            t.add(Temporary {
                db: "d".into(),
                name: format!("t{n}"),
                hidden,
            });
        }
        assert!(t.fresh_name(1, 1).is_err());
        assert!(t.get("D", "T3").is_some());
        assert!(t.remove("d", "t3").is_some());
        assert!(t.fresh_name(1, 1).is_ok());
    }
}
