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
//! a random number drawn at its start and `n` counted for the whole node. Each API node keeps a
//! lease row in [`LEASES_TABLE`], renewed every [`LEASE_RENEW`] by its `sql-lease` thread, which
//! also drops the tables of ended sessions (off the event loops) and sweeps: the temporary tables
//! of instances whose lease is missing or ran out ([`LEASE`] after its last renewal: what a
//! crashed API node leaves behind), and its own that no session holds (a drop that failed).
//! Leases are read after the tables are listed, so a node that starts meanwhile is seen alive;
//! a lease is deleted only a day after it ran out. The nodes' clocks may differ by less than
//! `LEASE - LEASE_RENEW`.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Mutex;
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
/// How long after running out a lease row is deleted.
pub const LEASE_FORGET: Duration = Duration::from_secs(86_400);
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
    /// One more at each change (a table made, dropped or renamed): plans made under another
    /// count may name another table (`Session::plan_epoch`).
    changes: u64,
}

/// What the lease thread is asked to do.
pub(crate) enum Work {
    /// Drop these hidden tables (a session ended).
    Drop(Vec<String>),
    Stop,
}

/// An API node's temporary tables: its instance, the number of the next hidden name, the
/// hidden names sessions hold, and the lease thread's mailbox.
pub(crate) struct NodeTemporaries {
    pub instance: u64,
    next: AtomicU64,
    live: Mutex<HashSet<String>>,
    work: Mutex<Option<Sender<Work>>>,
}

impl NodeTemporaries {
    pub fn new(instance: u64) -> NodeTemporaries {
        NodeTemporaries {
            instance,
            next: AtomicU64::new(1),
            live: Mutex::new(HashSet::new()),
            work: Mutex::new(None),
        }
    }

    /// A hidden name for a new temporary table of session `session`.
    pub fn fresh_name(&self, session: u32) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{TEMPORARY_PREFIX}{:016x}_{session}_{n}", self.instance)
    }

    /// Marks `hidden` as a session's (the sweep leaves it), before the table is made:
    /// [`NodeTemporaries::release`] when it is gone or was never made.
    pub fn hold(&self, hidden: &str) {
        self.live().insert(hidden.to_string());
    }

    pub fn release(&self, hidden: &str) {
        self.live().remove(hidden);
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn holds(&self, hidden: &str) -> bool {
        self.live().contains(hidden)
    }

    pub fn set_worker(&self, work: Option<Sender<Work>>) {
        *self.work.lock().unwrap_or_else(|e| e.into_inner()) = work;
    }

    /// Drops an ended session's tables: on the lease thread when there is one (a session may
    /// end on an event loop, which must not wait for the data node), else here.
    pub fn discard(&self, cluster: impl FnOnce() -> Cluster, tables: Vec<Temporary>) {
        let names: Vec<String> = tables.into_iter().map(|t| t.hidden).collect();
        let sent = match self.work.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some(work) => work.send(Work::Drop(names.clone())).is_ok(),
            None => false,
        };
        if !sent {
            self.drop_tables(&cluster(), names);
        }
    }

    /// Drops hidden tables now and lets their names go; a failure is logged, and the sweep
    /// drops the table later.
    pub fn drop_tables(&self, cluster: &Cluster, names: Vec<String>) {
        for name in names {
            match cluster.drop_table(&name) {
                Ok(()) => {}
                Err(e) if e.code() == ErrorCode::NoSuchTable => {}
                Err(e) => {
                    tracing::warn!("dropping temporary table {name}: {e}; a later sweep drops it")
                }
            }
            self.release(&name);
        }
    }
}

fn key(db: &str, name: &str) -> String {
    format!("{}/{}", db.to_ascii_lowercase(), name.to_ascii_lowercase())
}

impl Temporaries {
    /// The session's temporary table `db.name`, if it has one.
    pub fn get(&self, db: &str, name: &str) -> Option<&Temporary> {
        self.tables.get(&key(db, name))
    }

    /// Refuses a table past [`TEMPORARY_TABLES_MAX`].
    pub fn check_room(&self) -> Result<()> {
        if self.tables.len() >= TEMPORARY_TABLES_MAX {
            return Err(SqlError::unsupported(format!(
                "more than {TEMPORARY_TABLES_MAX} temporary tables in one session"
            )));
        }
        Ok(())
    }

    pub fn changes(&self) -> u64 {
        self.changes
    }

    pub fn add(&mut self, t: Temporary) {
        self.changes += 1;
        self.tables.insert(key(&t.db, &t.name), t);
    }

    pub fn remove(&mut self, db: &str, name: &str) -> Option<Temporary> {
        self.changes += 1;
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
        self.changes += 1;
        self.tables.drain().map(|(_, t)| t).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
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

/// Drops the temporary tables of API nodes whose lease is missing or ran out, and this node's
/// own that no session holds; deletes leases a day past their end. Returns how many tables
/// went.
pub(crate) fn sweep(cluster: &Cluster, node: &NodeTemporaries) -> Result<usize> {
    // Listed before the leases are read: a table made after its node's lease was read
    // would otherwise look abandoned.
    let names = cluster.list_tables().map_err(client)?;
    let table = cluster.table(LEASES_TABLE).map_err(client)?;
    let rows = cluster
        .scan(&table, &Scan::table().columns(&["instance", "alive_until"]))
        .map_err(client)?;
    let now = now_millis();
    let mut alive = Vec::new();
    let mut forgotten = Vec::new();
    for row in rows {
        if let [Value::UInt(i), Value::Int(until)] = row.as_slice() {
            if *until > now {
                alive.push(*i);
            } else if now - until > LEASE_FORGET.as_millis() as i64 && *i != node.instance {
                forgotten.push(*i);
            }
        }
    }
    let mut dropped = 0;
    for name in names {
        let Some(owner) = instance_of(&name) else {
            continue;
        };
        let abandoned = if owner == node.instance {
            !node.holds(&name)
        } else {
            !alive.contains(&owner)
        };
        if !abandoned {
            continue;
        }
        match cluster.drop_table(&name) {
            Ok(()) => dropped += 1,
            Err(e) if e.code() == ErrorCode::NoSuchTable => {}
            Err(e) => return Err(client(e)),
        }
    }
    if !forgotten.is_empty() {
        let mut txn = cluster.transaction();
        for i in forgotten {
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

/// The lease thread's work until told to stop (or its mailbox closes): renew the lease and
/// sweep every [`LEASE_RENEW`], and drop ended sessions' tables as they come.
pub(crate) fn keep_lease(
    cluster: impl Fn() -> Cluster,
    node: &NodeTemporaries,
    work: Receiver<Work>,
) {
    let mut next = std::time::Instant::now();
    loop {
        let now = std::time::Instant::now();
        if now >= next {
            let c = cluster();
            match renew(&c, node.instance) {
                Ok(()) => match sweep(&c, node) {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("dropped {n} abandoned temporary tables"),
                    Err(e) => tracing::warn!("sweeping temporary tables: {e}"),
                },
                Err(e) => tracing::warn!("renewing this API node's lease: {e}"),
            }
            next = std::time::Instant::now() + LEASE_RENEW;
            continue;
        }
        match work.recv_timeout(next - now) {
            Ok(Work::Drop(names)) => node.drop_tables(&cluster(), names),
            Err(RecvTimeoutError::Timeout) => {}
            Ok(Work::Stop) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_names_carry_their_instance() {
        let node = NodeTemporaries::new(0xabc);
        let name = node.fresh_name(7);
        assert_eq!(name, "cairn_tmp_0000000000000abc_7_1");
        assert!(!node.holds(&name));
        node.hold(&name);
        assert!(node.holds(&name));
        assert_eq!(node.fresh_name(7), "cairn_tmp_0000000000000abc_7_2");
        node.release(&name);
        assert!(!node.holds(&name));
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
            t.check_room().unwrap();
            t.add(Temporary {
                db: "d".into(),
                name: format!("t{n}"),
                hidden: format!("h{n}"),
            });
        }
        assert!(t.check_room().is_err());
        assert!(t.get("D", "T3").is_some());
        let before = t.changes();
        assert!(t.remove("d", "t3").is_some());
        assert!(t.changes() > before);
        assert!(t.check_room().is_ok());
    }
}
