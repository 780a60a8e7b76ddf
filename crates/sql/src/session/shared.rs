//! What the sessions of one SQL front end share (`Shared`), and the shared data node connection
//! it keeps connected.

use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;

use client::Cluster;
use tracing::{info, warn};

use crate::catalog::foreign::Referencing;
use crate::foundation::config::SqlConfig;
use crate::foundation::error::{Result, SqlError};

/// What every session of the front end shares: the configuration, the connection for metadata,
/// DDL and logins, the password cache, status counters, the grants epoch and which foreign
/// keys reference each table. What only the
/// server layer touches (the reactor, TLS, login throttling, threads) is `server::Server`'s.
pub(crate) struct Shared {
    /// The connection DDL, logins and account statements use (see `cluster`).
    pub(crate) cluster: std::sync::Mutex<Cluster>,
    /// Held by the caller connecting the shared connection again (`cluster`); when its last
    /// try failed.
    pub(crate) connecting: std::sync::Mutex<Option<std::time::Instant>>,
    pub config: SqlConfig,
    /// caching_sha2_password's fast-path digests, filled after full authentications.
    pub sha2_cache: crate::catalog::users::Sha2Cache,
    pub connections: AtomicU32,
    /// The id the next session takes (one more than the connections made so far).
    pub next_id: AtomicU32,
    /// Status counters and the registry of live sessions.
    pub activity: crate::session::activity::ServerActivity,
    /// One more at each account statement this API node runs (GRANT, REVOKE, DROP USER, ...):
    /// a session that read its grants under another value reads them again before its next
    /// statement, and plans it again.
    pub grants_epoch: std::sync::atomic::AtomicU64,
    /// One more after each statement of this API node that created, changed or dropped a table
    /// other than a temporary one: a session that planned under another value plans again
    /// (`Session::refresh_catalog`).
    pub tables_epoch: std::sync::atomic::AtomicU64,
    /// Which foreign keys reference each table, as derived under the shared connection's
    /// catalog epoch (`referencing`); None until first asked, and after a reconnection.
    pub(crate) referencing: std::sync::Mutex<Option<Arc<Referencing>>>,
    /// This API node's temporary tables: its instance number, the hidden names sessions hold,
    /// the lease thread's mailbox (`session/temporary.rs`).
    pub(crate) temporary: crate::session::temporary::NodeTemporaries,
}

/// How long the shared connection waits for a node group to serve again after a failover.
pub const FAILOVER_RECONNECT: Duration = Duration::from_secs(3);
/// After a failed try to connect the shared connection again, how long callers get the lost
/// connection without a new try.
pub const RECONNECT_BACKOFF: Duration = Duration::from_secs(1);

impl Shared {
    /// Marks every session's cached plans as made before a table changed.
    pub(crate) fn tables_changed(&self) {
        self.tables_epoch
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// Which foreign keys reference each table: kept while the shared connection's catalog
    /// epoch stays (no DDL through it, no definition refused as changed), else derived again
    /// from every table's definition.
    pub(crate) fn referencing(&self) -> Result<Arc<Referencing>> {
        let cluster = self.cluster();
        let epoch = cluster.catalog_epoch();
        if let Some(kept) = self
            .referencing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .filter(|r| r.epoch == epoch)
        {
            return Ok(kept.clone());
        }
        let names = cluster
            .list_tables()
            .map_err(|e| SqlError::from_client(&e))?;
        let mut tables = Vec::with_capacity(names.len());
        for name in names {
            match cluster.table(&name) {
                Ok(t) if t.def().index_of.is_none() => tables.push(t),
                Ok(_) => {}
                Err(e) if e.code() == base::ErrorCode::NoSuchTable => {}
                Err(e) => return Err(SqlError::from_client(&e)),
            }
        }
        let built = Arc::new(Referencing::new(epoch, tables));
        *self.referencing.lock().unwrap_or_else(|e| e.into_inner()) = Some(built.clone());
        Ok(built)
    }

    /// The shared data node connection, connected again first if a call found it lost. With
    /// one data node the wait is short (the call that found it lost failed, the next one
    /// works); with several (a node group failing over) it waits up to `FAILOVER_RECONNECT`
    /// for one to serve, so logins and catalog reads go on after a failover. One caller
    /// connects at a time and the others wait for it; after a failed try, callers get the lost
    /// connection at once for `RECONNECT_BACKOFF`, so no queue of waits forms while the
    /// cluster is down.
    pub fn cluster(&self) -> Cluster {
        let current = self
            .cluster
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if !current.is_closed() {
            return current;
        }
        let mut failed_at = self.connecting.lock().unwrap_or_else(|e| e.into_inner());
        let current = self
            .cluster
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if !current.is_closed() || failed_at.is_some_and(|t| t.elapsed() < RECONNECT_BACKOFF) {
            return current;
        }
        let wait = if self.config.datanode.contains(',') {
            FAILOVER_RECONNECT
        } else {
            client::RECONNECT_TIMEOUT
        };
        match Cluster::connect_timeout(&self.config.datanode, wait) {
            Ok(fresh) => {
                info!(
                    "sql: connected to the data node {} again",
                    self.config.datanode
                );
                *self.cluster.lock().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
                *self.referencing.lock().unwrap_or_else(|e| e.into_inner()) = None;
                *failed_at = None;
                fresh
            }
            Err(e) => {
                warn!("sql: data node {} unreachable: {e}", self.config.datanode);
                *failed_at = Some(std::time::Instant::now());
                current
            }
        }
    }
}
