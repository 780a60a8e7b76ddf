//! A Cairn data node: worker threads that each own a set of partitions and serve a share of the
//! API connections, each connection with its transaction coordinator, and the acceptor that hands
//! new connections to workers.
//!
//! It is not: a place that parses SQL or any front-end protocol, or code that API nodes link (they
//! reach it only through the `client` crate over the transport). Partition rows are touched only by
//! their owning worker thread; everything else reaches them through the workers' queues.

pub mod catalog;
pub mod checkpoint;
pub mod cluster_host;
pub mod coordinator;
pub mod copy;
pub mod event_loop;
pub mod gcp;
pub mod gcp_rounds;
pub mod indoubt;
pub mod leveling;
pub mod messages;
pub mod prepare;
pub mod recovery;
pub mod replication;
pub mod steplink;
pub mod votes;
pub mod waits;
pub mod worker;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use base::schema::IndexDef;
use base::{limits, Error, ErrorCode, TableDef};
use tracing::{info, warn};
use wire::{Message, TableChange};

/// Fault injection for the redo logs' I/O (tests only: `DataNodeConfig::redo_faults`).
pub use storage::redo::Faults as RedoFaults;

use crate::catalog::Catalog;
use crate::event_loop::{EventLoop, WorkerHandle};
use crate::messages::ToWorker;
use crate::worker::Worker;

/// When a commit is on disk relative to its acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// In memory only; a restart loses everything.
    None,
    /// Every acknowledged commit is on disk first (group commit: one fsync covers every commit
    /// a worker gathered meanwhile).
    Commit,
    /// Commits are written at once and made durable every interval (NDB's global checkpoint); a
    /// crash loses at most the last interval.
    Interval(Duration),
}

impl std::fmt::Display for Durability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Durability::None => write!(f, "none (in memory only)"),
            Durability::Commit => write!(f, "commit (every acknowledged commit is on disk)"),
            Durability::Interval(d) => write!(f, "interval (on disk every {} ms)", d.as_millis()),
        }
    }
}

/// The worker threads a node runs for `DataNodeConfig::workers` (0: cores - 1, at least 1).
/// The first transaction number of a run: after every one recovered from disk, and after every
/// one an earlier run of this node may have used. Other nodes keep names made of them for a
/// while after the node dies (a two-phase commit's decision and its prepared parts are named by
/// coordinator and transaction number: `replication::decision_name`), so a node restarted
/// empty must not use them again: a part of a new transaction asked about would be answered
/// with an old one's outcome (found by the node-restart test, `group_failover.rs`). The clock
/// in nanoseconds since 1970 is past them unless a run averaged more than a billion
/// transactions a second, or the clock was set back past the last run.
fn first_transaction(recovered_max: u64) -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX >> 1));
    recovered_max.saturating_add(1).max(now)
}

pub fn resolve_workers(workers: usize) -> usize {
    match workers {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1)),
        n => n.min(limits::WORKERS_MAX),
    }
}

/// How long workers spin by default: 50 us on 4 or more cores; none on fewer, where a spinning
/// worker takes the core the front ends and clients need (measured with sysbench on 2 cores:
/// 52,777 point selects/s at 19.0 us of server CPU each without spinning, 45,621 at 24.1 with).
pub fn default_worker_spin() -> Duration {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores >= 4 {
        Duration::from_micros(50)
    } else {
        Duration::ZERO
    }
}

/// Settings of one data node.
#[derive(Debug, Clone)]
pub struct DataNodeConfig {
    pub node_id: u32,
    pub cluster_id: u32,
    /// Address to listen on for API connections, e.g. "127.0.0.1:2202" (port 0 picks one).
    pub listen: String,
    /// Also accept shared-memory connections from API nodes on this host, at `shm:NAME`
    /// (an abstract Unix socket name, or a socket file path starting with `/`).
    pub shm_listen: Option<String>,
    /// Worker threads; each owns partitions and serves connections. 0 means cores - 1, at least 1.
    pub workers: usize,
    /// How long a row-lock wait may take before the operation fails with a temporary error.
    pub lock_wait_timeout: Duration,
    /// How long a connection may hold part of a frame (a header whose body has not come, or
    /// part of a header) before it is closed: a stalled or hostile peer holds no connection
    /// and its buffer forever.
    pub frame_timeout: Duration,
    /// The most rows per second this node copies to a starting node of its group (node
    /// restart); 0: as fast as it can. A lower rate leaves more of the machine to the load,
    /// and the restart takes longer.
    pub copy_rows_per_s: u64,
    /// How long a transaction holding locks or changes may wait for its client's next request
    /// before it is rolled back (NDB's TransactionInactiveTimeout); zero never rolls back.
    pub transaction_inactive_timeout: Duration,
    /// Transactions open on the node at once (NDB's MaxNoOfConcurrentTransactions); a request
    /// that would open one more fails with the temporary `Overloaded`.
    pub transactions_max: usize,
    /// Operations one transaction may carry (every request's together); past it the transaction
    /// is rolled back with `LimitExceeded`.
    pub transaction_operations_max: usize,
    /// Messages one worker's queue may hold before new requests are refused with the temporary
    /// `Overloaded` (commits, aborts and the steps of requests already running still go).
    pub worker_queue_max: usize,
    /// The most the node's rows and indexes may hold, in bytes (NDB's DataMemory; estimated by
    /// `Partition::memory_bytes`): a write that would pass it fails with `TableFull`.
    pub data_memory: u64,
    /// How long a worker keeps polling after its last piece of work before it sleeps (NDB's spin
    /// time); zero sleeps at once, saving CPU at the cost of a wake-up per request.
    pub worker_spin: Duration,
    /// Directory for the catalog and the redo logs; None keeps everything in memory.
    pub data_dir: Option<PathBuf>,
    pub durability: Durability,
    /// Fault injection for the redo logs' I/O (tests only).
    pub redo_faults: Option<Arc<storage::redo::Faults>>,
    /// What TCP clients must prove before anything else: the cluster key, a certificate of the
    /// cluster's CA (then the connection is encrypted), or both. Shared memory skips it.
    pub guard: transport::auth::Guard,
    /// Size of each redo segment file.
    pub redo_segment_bytes: u64,
    /// A local checkpoint starts once this many redo bytes were written since the last began
    /// (0: only when asked, through [`DataNode::checkpoint`]).
    pub checkpoint_redo_bytes: u64,
    /// TCP connections the node serves at once; one more is closed as it is accepted.
    pub connections_max: usize,
    /// Fault injection (tests only): worker 0 panics once it has handled this many data
    /// messages, to show the node stops as a whole (fail-stop) instead of running on half-alive.
    pub fault_worker_panic_after: Option<u64>,
    /// The node's role in a cluster's node group (`replication`): it serves only as its
    /// group's primary and sends every commit to the group's backups first. None: a data node
    /// alone.
    pub role: Option<Arc<replication::Role>>,
    /// A system restart of an `interval` cluster: replay only the commits of cluster round
    /// `restore_round` and before (`gcp::Cut::rounds`), the newest round every node saved, so
    /// every node group comes back to the same point of the commit order. None: replay up to
    /// this node's own cut.
    pub restore_round: Option<u64>,
}

impl Default for DataNodeConfig {
    fn default() -> Self {
        DataNodeConfig {
            node_id: 1,
            cluster_id: 0,
            listen: "127.0.0.1:2202".into(),
            shm_listen: None,
            workers: 0,
            lock_wait_timeout: Duration::from_millis(1200),
            frame_timeout: FRAME_TIMEOUT_DEFAULT,
            copy_rows_per_s: 0,
            transaction_inactive_timeout: TRANSACTION_INACTIVE_TIMEOUT_DEFAULT,
            data_memory: default_data_memory(),
            transactions_max: TRANSACTIONS_MAX_DEFAULT,
            transaction_operations_max: TRANSACTION_OPERATIONS_MAX_DEFAULT,
            worker_queue_max: WORKER_QUEUE_MAX_DEFAULT,
            worker_spin: default_worker_spin(),
            data_dir: None,
            durability: Durability::Commit,
            redo_faults: None,
            guard: transport::auth::Guard::default(),
            redo_segment_bytes: storage::redo::SEGMENT_BYTES_DEFAULT,
            checkpoint_redo_bytes: 256 << 20,
            connections_max: limits::CONNECTIONS_MAX,
            fault_worker_panic_after: None,
            role: None,
            restore_round: None,
        }
    }
}

/// How a column change goes on once the catalog took it.
pub enum ColumnChange {
    /// Names and defaults only: the workers take the new definition, no row moves.
    InPlace(Redefinition),
    /// Every worker copies its rows into the new layout.
    Copy(catalog::Conversion),
}

/// What the workers apply after a change to a table that moves no rows.
pub struct Redefinition {
    /// The new definitions, the base table's first.
    pub tables: Vec<Arc<TableDef>>,
    /// The position of the index dropped from the base table's old definition.
    pub dropped_index: Option<usize>,
    /// Hidden tables to drop (a dropped unique index's).
    pub drop: Vec<u32>,
}

/// State every worker and coordinator shares: the catalog and the ways to reach each worker.
pub struct Shared {
    pub node_id: u32,
    pub cluster_id: u32,
    pub catalog: RwLock<Catalog>,
    pub workers: Vec<WorkerHandle>,
    pub next_txn: AtomicU64,
    pub stopping: AtomicBool,
    connections: AtomicUsize,
    connections_max: usize,
    /// The node-wide commit sequence, continued across restarts.
    pub sequence: Arc<AtomicU64>,
    pub data_dir: Option<PathBuf>,
    /// Transactions open on the node now (every coordinator's), and their limits.
    pub open_transactions: AtomicUsize,
    pub transactions_max: usize,
    pub transaction_operations_max: usize,
    pub worker_queue_max: usize,
    /// The data memory limit and what each worker's partitions hold.
    pub data_memory: Arc<DataMemory>,
    /// `DataNodeConfig::transaction_inactive_timeout`.
    pub transaction_inactive_timeout: Duration,
    /// How long a connection may hold part of a frame (`DataNodeConfig::frame_timeout`).
    pub frame_timeout: Duration,
    /// `DataNodeConfig::copy_rows_per_s`.
    pub copy_rows_per_s: u64,
    pub durability: Durability,
    /// Redo bytes written by all workers since the start (what triggers checkpoints).
    pub redo_bytes: AtomicU64,
    /// Where checkpoints are asked for (None without a redo log).
    pub checkpoints: Mutex<Option<mpsc::Sender<checkpoint::Control>>>,
    /// Why the node stopped accepting work (a failed write or fsync), if it did.
    failure: Mutex<Option<String>>,
    /// The failure says to start the node again empty (`--initial`): a node restarted from its
    /// own files found they cannot be brought level with its group (`Shared::fail_initial`).
    needs_initial: AtomicBool,
    /// The node's role in its node group, when it runs in a cluster (`DataNodeConfig::role`).
    pub role: Option<Arc<replication::Role>>,
    /// Which partitions are this node's and which worker owns each.
    pub placement: Placement,
    /// The links to other node groups' primaries, for transactions that reach their
    /// partitions (a cluster of more than one node group).
    pub step_links: Option<steplink::StepLinks>,
    /// Prepared parts of other nodes' transactions (two-phase commit) this primary holds,
    /// locks kept, until their coordinator's group says how they ended.
    pub in_doubt: Mutex<HashMap<(u32, u64), coordinator::twophase::InDoubt>>,
    /// A schema change is being sent to the backups: another waits (a temporary error), so
    /// every replica registers them in the same order and gives tables the same ids.
    pub schema_change_busy: AtomicBool,
    /// A client asked the node to stop (`Message::Shutdown`): whether to be started again.
    stop_requested: Mutex<Option<bool>>,
    /// The global checkpoint's recorded cut (with a redo log; `gcp`).
    pub gcp: Option<gcp::Durable>,
    /// The cluster's global checkpoint rounds (`interval` durability in a cluster with a data
    /// directory): this node's participant's queue.
    pub rounds: Option<gcp_rounds::Rounds>,
}

/// Where partitions live from this node's side: how many node groups the cluster has, which
/// one is this node's, and its worker count (`base::placement`). A node outside a cluster is
/// the one group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    pub groups: u32,
    pub group: u32,
    pub workers: u32,
}

impl Placement {
    pub fn new(role: Option<&replication::Role>, workers: usize) -> Placement {
        Placement {
            groups: role.map_or(1, |r| r.groups.len().max(1) as u32),
            group: role.map_or(0, |r| r.group_index as u32),
            workers: workers.max(1) as u32,
        }
    }

    /// The worker that owns partition `p` here (on every node of its group).
    pub fn worker_of(&self, p: u32) -> usize {
        base::placement::worker_of(p, self.groups, self.workers) as usize
    }

    /// The node group (index) that holds partition `p`.
    pub fn group_of(&self, p: u32) -> u32 {
        base::placement::group_of(p, self.groups)
    }

    /// Whether this node's group holds partition `p`.
    pub fn is_local(&self, p: u32) -> bool {
        self.group_of(p) == self.group
    }

    /// A new table's partitions when it names none: one per worker of every node group.
    pub fn default_partitions(&self) -> u32 {
        self.groups * self.workers
    }

    /// The partitions of a table of `count` partitions that `worker` owns here.
    pub fn partitions_of(&self, count: u32, worker: usize) -> Vec<u32> {
        (0..count)
            .filter(|p| self.is_local(*p) && self.worker_of(*p) == worker)
            .collect()
    }
}

impl Shared {
    pub fn worker_count(&self) -> usize {
        self.workers.len()
    }

    /// Takes a prepared part held here (None: not held, or resolved already).
    pub fn take_in_doubt(&self, part: (u32, u64)) -> Option<coordinator::twophase::InDoubt> {
        self.in_doubt
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&part)
    }

    /// The partitions of `table` that `worker` owns (`Placement::partitions_of`).
    pub fn partitions_of(&self, table: &TableDef, worker: usize) -> Vec<u32> {
        self.placement.partitions_of(table.partition_count, worker)
    }

    /// Registers a table in the catalog; returns it and its hidden index tables. The coordinator
    /// then has every worker create its partitions before it answers.
    pub fn register_table(&self, def: TableDef) -> Result<Vec<Arc<TableDef>>, Error> {
        let mut catalog = self.catalog_mut()?;
        let created = catalog.create(def, self.placement.default_partitions())?;
        self.save_catalog(&catalog)?;
        info!(table = %created[0].name, id = created[0].id, partitions = created[0].partition_count, "created table");
        Ok(created)
    }

    /// Table ids up to `last` are taken (a backup following its primary's catalog).
    pub fn raise_table_ids(&self, last: u32) -> Result<(), Error> {
        let mut catalog = self.catalog_mut()?;
        catalog.raise_last_id(last);
        self.save_catalog(&catalog)
    }

    /// Removes a table and its hidden index tables from the catalog; returns their ids.
    pub fn unregister_table(&self, name: &str) -> Result<Vec<u32>, Error> {
        let mut catalog = self.catalog_mut()?;
        let ids = catalog.drop_table(name)?;
        self.save_catalog(&catalog)?;
        info!(table = %name, "dropped table");
        Ok(ids)
    }

    /// Adds an ordered index to a table in the catalog; the workers build it next.
    pub fn register_index(
        &self,
        table: &str,
        version: u32,
        index: IndexDef,
    ) -> Result<Arc<TableDef>, Error> {
        let mut catalog = self.catalog_mut()?;
        let name = index.name.clone();
        let def = catalog.add_index(table, version, index)?;
        self.save_catalog(&catalog)?;
        info!(table = %table, index = %name, "added index");
        Ok(def)
    }

    /// Starts building a unique index over a table's rows: the catalog checks it and reserves
    /// its hidden table's id, saved before any worker writes an entry under that id.
    pub fn begin_unique(
        &self,
        table: &str,
        version: u32,
        index: IndexDef,
    ) -> Result<catalog::UniqueBuild, Error> {
        let mut catalog = self.catalog_mut()?;
        let name = index.name.clone();
        let build = catalog.begin_unique(table, version, index)?;
        if let Err(e) = self.save_catalog(&catalog) {
            catalog.abort_unique(&build);
            return Err(e);
        }
        info!(table = %table, index = %name, hidden = build.hidden.id, "building unique index");
        Ok(build)
    }

    /// Ends a unique-index build every worker filled: the catalog names the index.
    pub fn finish_unique(&self, build: &catalog::UniqueBuild) -> Result<(), Error> {
        let mut catalog = self.catalog_mut()?;
        catalog.finish_unique(build);
        self.save_catalog(&catalog)?;
        info!(table = %build.to.name, index = %build.hidden.name, "added unique index");
        Ok(())
    }

    pub fn abort_unique(&self, build: &catalog::UniqueBuild) {
        if let Ok(mut catalog) = self.catalog.write() {
            catalog.abort_unique(build);
        }
    }

    /// Applies a change that moves no rows to a table in the catalog. Returns what the workers
    /// apply next: the new definitions (the base table's first), the position of the index
    /// dropped from the base table's old definition, and the hidden tables to drop.
    pub fn alter_table(&self, table: &str, change: &TableChange) -> Result<Redefinition, Error> {
        let mut catalog = self.catalog_mut()?;
        let redefinition = match change {
            TableChange::DropIndex { name } => {
                let (def, position, hidden) = catalog.drop_index(table, name)?;
                info!(table = %table, index = %name, "dropped index");
                Redefinition {
                    tables: vec![def],
                    dropped_index: Some(position),
                    drop: hidden.into_iter().collect(),
                }
            }
            TableChange::Rename { to } => {
                let tables = catalog.rename_table(table, to)?;
                info!(table = %table, to = %to, "renamed table");
                Redefinition {
                    tables,
                    dropped_index: None,
                    drop: Vec::new(),
                }
            }
            TableChange::Columns { .. } => {
                return Err(Error::new(
                    ErrorCode::BadRequest,
                    "a column change copies rows: begin_columns runs it",
                ))
            }
            TableChange::Options { options, comment } => {
                let def = catalog.set_options(table, *options, comment)?;
                info!(table = %table, "changed table options");
                Redefinition {
                    tables: vec![def],
                    dropped_index: None,
                    drop: Vec::new(),
                }
            }
            TableChange::Constraints {
                version,
                foreign_keys,
                checks,
            } => {
                let def = catalog.set_constraints(table, *version, foreign_keys, checks)?;
                info!(table = %table, foreign_keys = foreign_keys.len(), checks = checks.len(), "changed constraints");
                Redefinition {
                    tables: vec![def],
                    dropped_index: None,
                    drop: Vec::new(),
                }
            }
        };
        self.save_catalog(&catalog)?;
        Ok(redefinition)
    }

    /// Starts a column change. One of names and defaults only is applied to the catalog at
    /// once (`Catalog::columns_in_place`) and the workers redefine the table; any other has the
    /// catalog check it and reserve the new table's id, saved before any worker copies a row
    /// under that id.
    pub fn begin_columns(
        &self,
        table: &str,
        version: u32,
        columns: &[wire::NewColumn],
    ) -> Result<ColumnChange, Error> {
        let mut catalog = self.catalog_mut()?;
        if let Some(def) = catalog.columns_in_place(table, version, columns)? {
            self.save_catalog(&catalog)?;
            info!(table = %table, version = def.version, "changed column names or defaults in place");
            return Ok(ColumnChange::InPlace(Redefinition {
                tables: vec![def],
                dropped_index: None,
                drop: Vec::new(),
            }));
        }
        let conversion = catalog.begin_columns(table, version, columns)?;
        if let Err(e) = self.save_catalog(&catalog) {
            catalog.abort_columns(&conversion);
            return Err(e);
        }
        info!(table = %table, from = conversion.from.id, to = conversion.to.id, "changing columns");
        Ok(ColumnChange::Copy(conversion))
    }

    /// Ends a column change every worker copied: the new definition takes the table's name.
    /// Returns the hidden unique-index tables' new definitions.
    pub fn finish_columns(
        &self,
        conversion: &catalog::Conversion,
    ) -> Result<Vec<Arc<TableDef>>, Error> {
        let mut catalog = self.catalog_mut()?;
        let hidden = catalog.finish_columns(conversion);
        self.save_catalog(&catalog)?;
        info!(table = %conversion.to.name, id = conversion.to.id, "changed columns");
        Ok(hidden)
    }

    pub fn abort_columns(&self, conversion: &catalog::Conversion) {
        if let Ok(mut catalog) = self.catalog.write() {
            catalog.abort_columns(conversion);
        }
    }

    /// The catalog, to change.
    fn catalog_mut(&self) -> Result<std::sync::RwLockWriteGuard<'_, Catalog>, Error> {
        self.catalog
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "catalog poisoned"))
    }

    pub fn register_database(
        &self,
        name: &str,
        collation: base::types::Collation,
    ) -> Result<(), Error> {
        let mut catalog = self.catalog_mut()?;
        catalog.create_database(name, collation)?;
        self.save_catalog(&catalog)?;
        info!(database = %name, "created database");
        Ok(())
    }

    /// Sets a database's default collation (ALTER DATABASE) and saves the catalog.
    pub fn alter_database(
        &self,
        name: &str,
        collation: base::types::Collation,
    ) -> Result<(), Error> {
        let mut catalog = self.catalog_mut()?;
        catalog.alter_database(name, collation)?;
        self.save_catalog(&catalog)?;
        info!(database = %name, collation = collation.name(), "altered database");
        Ok(())
    }

    /// Removes a database and its tables from the catalog; returns the ids of the tables.
    pub fn unregister_database(&self, name: &str) -> Result<Vec<u32>, Error> {
        let mut catalog = self.catalog_mut()?;
        let ids = catalog.drop_database(name)?;
        self.save_catalog(&catalog)?;
        info!(database = %name, tables = ids.len(), "dropped database");
        Ok(ids)
    }

    pub fn table_info(&self, name: &str) -> Option<Message> {
        let catalog = self.catalog.read().ok()?;
        let entry = catalog.by_name(name).filter(|t| t.def.index_of.is_none())?;
        Some(Message::TableInfo {
            table: (*entry.def).clone(),
            index_tables: entry
                .unique_tables
                .iter()
                .flatten()
                .map(|t| (**t).clone())
                .collect(),
        })
    }

    /// Records a failure that makes the node stop (fail-stop): it answers nothing more that
    /// could need the disk, and the binary exits so the node restarts from its files.
    pub fn fail(&self, why: String) {
        if let Ok(mut f) = self.failure.lock() {
            if f.is_none() {
                tracing::error!("data node failed and stops: {why}");
                *f = Some(why);
            }
        }
    }

    pub fn failure(&self) -> Option<String> {
        self.failure.lock().ok().and_then(|f| f.clone())
    }

    /// Stops the node (as `fail`), saying that it must start again empty and copy every
    /// partition (`--initial`): what its own files hold cannot be brought level with its group.
    pub fn fail_initial(&self, why: String) {
        self.needs_initial.store(true, Ordering::Release);
        self.fail(why);
    }

    /// Whether the failure asks for a start with `--initial` (`fail_initial`).
    pub fn needs_initial(&self) -> bool {
        self.needs_initial.load(Ordering::Acquire)
    }

    /// A client asked the node to stop (`restart`: to be started again by what runs it; with
    /// `initial`, empty: `needs_initial`).
    pub fn request_stop(&self, restart: bool, initial: bool) {
        tracing::info!(restart, initial, "asked to stop");
        if initial {
            self.needs_initial.store(true, Ordering::Release);
        }
        *self
            .stop_requested
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(restart);
    }

    pub fn stop_requested(&self) -> Option<bool> {
        *self
            .stop_requested
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// A restarted node's empty catalog becomes the copy its primary sent (saved at once);
    /// the caller creates the partitions.
    pub fn replace_catalog(&self, copied: Catalog) -> Result<(), Error> {
        let mut catalog = self.catalog_mut()?;
        if catalog.table_count() > 0 {
            return Err(Error::new(
                ErrorCode::Internal,
                "a restarted node took a catalog while it held tables of its own",
            ));
        }
        self.save_catalog(&copied)?;
        *catalog = copied;
        Ok(())
    }

    fn save_catalog(&self, catalog: &Catalog) -> Result<(), Error> {
        let Some(dir) = &self.data_dir else {
            return Ok(());
        };
        catalog.save(dir).map_err(|e| {
            let why = format!("writing the catalog in {}: {e}", dir.display());
            self.fail(why.clone());
            // Not `ShuttingDown` (a request not run): the change was made in memory.
            Error::new(ErrorCode::Internal, why)
        })
    }

    pub(crate) fn connection_closed(&self) {
        self.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Takes back what the logs held of two-phase commits (`recovery::TwoPhase`): the decisions
/// recorded are answered as committed (and logged again), and each prepared part not ended is
/// held again (so the node serves once the in-doubt resolver settled it, `Role::serving`) and
/// logged again, so this run's log keeps it past its checkpoints. A node restarted from its own files (node
/// restart) logs its prepared parts as dropped instead.
fn restore_two_phase(shared: &Arc<Shared>, two_phase: recovery::TwoPhase) {
    let Some(role) = &shared.role else {
        return;
    };
    let nowhere = messages::ReplyTo {
        worker: 0,
        connection: usize::MAX,
    };
    let restarting = role.restart() != replication::Restart::No;
    for name in two_phase.decided {
        role.commit_ended(name, true);
        // Logged again, so a checkpoint of this run keeps it as long as one of the last run
        // did: another group may still hold its part after a second stop.
        shared.workers[0].send(messages::ToWorker::LogDecision {
            name,
            tag: 0,
            reply_to: nowhere,
        });
    }
    for (part, rows) in two_phase.held {
        let name = replication::decision_name(part.0, part.1);
        let mut per_worker: Vec<Vec<wire::RowChange>> =
            (0..shared.worker_count()).map(|_| Vec::new()).collect();
        for row in &rows {
            per_worker[shared.placement.worker_of(row.partition)].push(row.clone());
        }
        for (w, changes) in per_worker.into_iter().enumerate() {
            if !changes.is_empty() {
                shared.workers[w].send(messages::ToWorker::LogPrepared {
                    name,
                    changes,
                    tag: 0,
                    reply_to: nowhere,
                });
            }
        }
        if restarting {
            // A node restarted from its own files: the part may have ended while it was down
            // (and its rows changed since), and its group's primary sends every part still in
            // doubt with the copy. Ended here, so no later restart takes it back either.
            for worker in &shared.workers {
                worker.send(messages::ToWorker::LogDropped { name });
            }
            tracing::info!(
                coordinator = part.0,
                transaction = part.1,
                "a prepared part found in the log is dropped: the copy from the primary brings those still in doubt"
            );
            continue;
        }
        tracing::info!(
            coordinator = part.0,
            transaction = part.1,
            rows = rows.len(),
            "holding a prepared part found in the log"
        );
        role.hold(part, rows);
    }
}

/// A running data node.
pub struct DataNode {
    shared: Arc<Shared>,
    address: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
    shm_acceptor: Option<(String, JoinHandle<()>)>,
    workers: Vec<JoinHandle<()>>,
    checkpointer: Option<checkpoint::Checkpointer>,
}

impl DataNode {
    /// Starts the workers and the listener; returns once the listener accepts connections.
    pub fn start(config: DataNodeConfig) -> std::io::Result<DataNode> {
        let worker_count = resolve_workers(config.workers);
        let placement = Placement::new(config.role.as_deref(), worker_count);
        let segment_bytes = config.redo_segment_bytes;
        if !(storage::redo::SEGMENT_BYTES_MIN..=storage::redo::SEGMENT_BYTES_MAX)
            .contains(&segment_bytes)
        {
            return Err(std::io::Error::other(format!(
                "a redo segment must be {} to {} bytes, not {segment_bytes}",
                storage::redo::SEGMENT_BYTES_MIN,
                storage::redo::SEGMENT_BYTES_MAX
            )));
        }
        let mut recovered = match &config.data_dir {
            Some(dir) => recovery::recover(dir, placement, config.restore_round)
                .map_err(|e| std::io::Error::other(e.to_string()))?,
            None => recovery::empty(worker_count),
        };
        let sequence = Arc::new(AtomicU64::new(recovered.sequence_max + 1));
        let gcp = match (&config.data_dir, config.durability) {
            (Some(dir), Durability::Commit | Durability::Interval(_)) => Some(
                gcp::Durable::open(
                    dir,
                    matches!(config.durability, Durability::Interval(_)),
                    recovered.cut.take(),
                    recovered.sequence_max + 1,
                    recovered.dropped,
                )
                .map_err(std::io::Error::other)?,
            ),
            _ => None,
        };
        let (rounds, round_jobs) = match (&gcp, config.durability, &config.role) {
            (Some(_), Durability::Interval(_), Some(_)) => {
                let (rounds, jobs) = gcp_rounds::Rounds::new();
                (Some(rounds), Some(jobs))
            }
            _ => (None, None),
        };
        let manifest = recovered.manifest.take();
        let two_phase = std::mem::take(&mut recovered.two_phase);
        let mut log_ends = std::mem::take(&mut recovered.logs);
        let mut handles = Vec::with_capacity(worker_count);
        let mut loops = Vec::with_capacity(worker_count);
        for _ in 0..worker_count {
            let poll = mio::Poll::new()?;
            let (tx, rx) = mpsc::channel();
            handles.push(WorkerHandle::new(tx, &poll)?);
            loops.push((poll, rx));
        }
        let data_memory = Arc::new(DataMemory::new(config.data_memory, worker_count));
        let shared = Arc::new(Shared {
            data_memory: data_memory.clone(),
            open_transactions: AtomicUsize::new(0),
            transactions_max: config.transactions_max.max(1),
            transaction_operations_max: config.transaction_operations_max.max(1),
            worker_queue_max: config.worker_queue_max.max(1),
            node_id: config.node_id,
            cluster_id: config.cluster_id,
            catalog: RwLock::new(recovered.catalog),
            workers: handles,
            next_txn: AtomicU64::new(first_transaction(recovered.transaction_max)),
            stopping: AtomicBool::new(false),
            connections: AtomicUsize::new(0),
            connections_max: config.connections_max.max(1),
            sequence: sequence.clone(),
            data_dir: config.data_dir.clone(),
            durability: config.durability,
            frame_timeout: config.frame_timeout,
            copy_rows_per_s: config.copy_rows_per_s,
            transaction_inactive_timeout: config.transaction_inactive_timeout,
            redo_bytes: AtomicU64::new(0),
            checkpoints: Mutex::new(None),
            failure: Mutex::new(None),
            needs_initial: AtomicBool::new(false),
            role: config.role.clone(),
            placement,
            step_links: config
                .role
                .clone()
                .filter(|r| r.groups.len() > 1)
                .map(steplink::StepLinks::new),
            in_doubt: Mutex::new(HashMap::new()),
            schema_change_busy: AtomicBool::new(false),
            stop_requested: Mutex::new(None),
            gcp,
            rounds,
        });
        if shared.step_links.is_some() {
            indoubt::spawn(Arc::downgrade(&shared));
        }
        if shared.role.as_ref().is_some_and(|r| r.group.len() >= 3) {
            leveling::spawn(Arc::downgrade(&shared));
        }
        if let Some(role) = &shared.role {
            // A primary copies its partitions to a starting node of its group (node restart).
            let weak = Arc::downgrade(&shared);
            role.set_copier(Box::new(move |node, epoch| {
                copy::spawn(weak.clone(), node, epoch)
            }));
        }
        let mut workers = Vec::with_capacity(worker_count);
        let waits = Arc::new(waits::WaitGraph::default());
        for (w, ((poll, rx), partitions)) in loops.into_iter().zip(recovered.partitions).enumerate()
        {
            let logging = match (&config.data_dir, config.durability) {
                (Some(dir), Durability::Commit | Durability::Interval(_)) => {
                    let end = log_ends.get_mut(w).map(std::mem::take).unwrap_or_default();
                    let log = storage::redo::RedoLog::open(
                        storage::redo::LogConfig {
                            dir: dir.clone(),
                            worker: w as u32,
                            segment_bytes,
                            faults: config.redo_faults.clone(),
                        },
                        end.end,
                        end.live,
                        end.free,
                    )
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                    Some(worker::Logging { log })
                }
                _ => None,
            };
            let worker = Worker::new(
                config.lock_wait_timeout,
                (waits.clone(), w),
                config.cluster_id,
                partitions,
                logging,
                data_memory.clone(),
            );
            let mut event_loop =
                EventLoop::new(w, shared.clone(), worker, poll, rx, config.worker_spin);
            if w == 0 {
                event_loop.fault_panic_after = config.fault_worker_panic_after;
            }
            let failing = shared.clone();
            workers.push(
                std::thread::Builder::new()
                    .name(format!("worker-{w}"))
                    .spawn(move || {
                        // A worker that panicked broke an invariant: the node must not run on
                        // without it (its partitions unserved, commits waiting on it forever).
                        // The `cairn` binary's panic hook exits first; this marks the node failed
                        // where a program embeds it.
                        let run = std::panic::AssertUnwindSafe(move || event_loop.run());
                        if std::panic::catch_unwind(run).is_err() {
                            failing.fail(format!("worker {w} panicked"));
                        }
                    })?,
            );
        }
        restore_two_phase(&shared, two_phase);
        let listener = transport::listen(&config.listen)?;
        let address = listener.local_addr()?;
        let acceptor = {
            let shared = shared.clone();
            match config.guard.clone() {
                guard if !guard.is_set() => std::thread::Builder::new()
                    .name("acceptor".into())
                    .spawn(move || {
                        accept_loop(
                            || listener.accept().map(|(s, _)| transport::Stream::Tcp(s)),
                            shared,
                        )
                    })?,
                guard => std::thread::Builder::new()
                    .name("acceptor".into())
                    .spawn(move || accept_guarded(listener, guard, shared))?,
            }
        };
        let shm_acceptor = match &config.shm_listen {
            None => None,
            Some(name) => {
                let listener = transport::shm::ShmListener::bind(name)
                    .map_err(|e| std::io::Error::new(e.kind(), format!("shm:{name}: {e}")))?;
                let shared = shared.clone();
                info!(address = %format!("shm:{name}"), "data node listening");
                Some((
                    name.clone(),
                    std::thread::Builder::new()
                        .name("shm-acceptor".into())
                        .spawn(move || accept_loop(|| listener.accept().map(Into::into), shared))?,
                ))
            }
        };
        let checkpointer = match (&config.data_dir, config.durability) {
            (Some(dir), Durability::Commit | Durability::Interval(_)) => {
                Some(checkpoint::Checkpointer::spawn(
                    shared.clone(),
                    dir.clone(),
                    checkpoint::CheckpointPolicy {
                        redo_bytes: match config.checkpoint_redo_bytes {
                            0 => u64::MAX,
                            n => n,
                        },
                    },
                    manifest,
                )?)
            }
            _ => None,
        };
        if let (Some(c), Ok(mut slot)) = (&checkpointer, shared.checkpoints.lock()) {
            *slot = Some(c.control());
        }
        if let (Some(_), Durability::Interval(every)) = (&shared.gcp, config.durability) {
            gcp::spawn(Arc::downgrade(&shared), every)?;
            if let Some(jobs) = round_jobs {
                gcp_rounds::spawn(Arc::downgrade(&shared), jobs, every)?;
            }
        }
        info!(%address, workers = worker_count, "data node listening");
        Ok(DataNode {
            shared,
            address,
            acceptor: Some(acceptor),
            shm_acceptor,
            workers,
            checkpointer,
        })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    pub fn worker_count(&self) -> usize {
        self.shared.workers.len()
    }

    /// Why the node failed (a failed write or fsync of its files), if it did; it then serves
    /// nothing more and must be restarted.
    pub fn failure(&self) -> Option<String> {
        self.shared.failure()
    }

    /// Whether the node failed asking to start again with `--initial` (`Shared::fail_initial`).
    pub fn needs_initial(&self) -> bool {
        self.shared.needs_initial()
    }

    /// Whether a client asked the node to stop, and to be started again (`Message::Shutdown`).
    pub fn stop_requested(&self) -> Option<bool> {
        self.shared.stop_requested()
    }

    /// What another thread (the cluster membership's) calls to fail the node (fail-stop).
    pub fn fail_handle(&self) -> impl Fn(String) + Send + Sync + 'static {
        let shared = self.shared.clone();
        move |why| shared.fail(why)
    }

    /// Writes a local checkpoint now and waits for it (normally they start on their own, after
    /// `checkpoint_redo_bytes` of redo). Fails without a data directory or a redo log.
    pub fn checkpoint(&self) -> Result<checkpoint::Report, String> {
        match &self.checkpointer {
            Some(c) => c.checkpoint(),
            None => Err("this data node keeps no redo log, so it takes no checkpoints".into()),
        }
    }

    /// Stops accepting, closes every connection, stops the workers and waits for the threads.
    pub fn stop(mut self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        if let Ok(mut slot) = self.shared.checkpoints.lock() {
            *slot = None;
        }
        if let Some(c) = self.checkpointer.take() {
            c.stop();
        }
        // Wake the acceptors blocked in accept().
        let _ = TcpStream::connect_timeout(&self.address, Duration::from_secs(1));
        if let Some(a) = self.acceptor.take() {
            let _ = a.join();
        }
        if let Some((name, a)) = self.shm_acceptor.take() {
            let _ = transport::shm::ShmStream::connect(&name, Duration::from_secs(1));
            let _ = a.join();
        }
        for w in &self.shared.workers {
            w.send(ToWorker::Stop);
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        // Every worker fsynced its log as it stopped: what they committed is all on disk.
        if let (Some(durable), None) = (&self.shared.gcp, self.shared.failure()) {
            if let Err(why) = durable.raise(self.shared.sequence.load(Ordering::SeqCst)) {
                warn!("{why}");
            }
        }
        info!("data node stopped");
    }
}

/// Handshakes (cluster key, TLS) in progress at once; past it, a new connection is closed.
pub const HANDSHAKES_MAX: usize = 64;

/// Accepts TCP connections that must prove the cluster key or a certificate of the cluster's
/// CA: each handshake runs on a thread of its own (a client that stalls holds up no one), and
/// connections that pass are dealt to the workers as any other.
fn accept_guarded(
    listener: std::net::TcpListener,
    guard: transport::auth::Guard,
    shared: Arc<Shared>,
) {
    let (passed, proven) = mpsc::sync_channel::<transport::Stream>(HANDSHAKES_MAX);
    let dealer = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("dealer".into())
            .spawn(move || {
                accept_loop(
                    || {
                        proven
                            .recv()
                            .map_err(|_| std::io::Error::other("acceptor stopped"))
                    },
                    shared,
                )
            })
    };
    let pending = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(Mutex::new(transport::auth::FailedLogins::default()));
    loop {
        let accepted = listener.accept();
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                warn!("accept failed: {e}");
                std::thread::sleep(ACCEPT_BACKOFF);
                continue;
            }
        };
        if pending.load(Ordering::Relaxed) >= HANDSHAKES_MAX {
            warn!("refusing {peer}: {HANDSHAKES_MAX} handshakes in progress");
            continue;
        }
        // Counted as a failure from now until the handshake passes.
        let allowed = failures
            .lock()
            .map(|mut f| f.begin(peer.ip(), KEY_SCOPE, std::time::Instant::now()))
            .unwrap_or(true);
        if !allowed {
            // Closed at once: the address failed the handshake too often lately.
            continue;
        }
        pending.fetch_add(1, Ordering::Relaxed);
        let (passed, guard, in_progress, failures) = (
            passed.clone(),
            guard.clone(),
            pending.clone(),
            failures.clone(),
        );
        let spawned = std::thread::Builder::new()
            .name("handshake".into())
            .spawn(move || {
                let result = guard.server(stream);
                if let (Ok(_), Ok(mut f)) = (&result, failures.lock()) {
                    f.passed(peer.ip(), KEY_SCOPE);
                }
                match result {
                    Ok(stream) => {
                        let _ = passed.send(stream);
                    }
                    Err(e) => warn!("refusing {peer}: {e}"),
                }
                in_progress.fetch_sub(1, Ordering::Relaxed);
            });
        if spawned.is_err() {
            pending.fetch_sub(1, Ordering::Relaxed);
        }
    }
    drop(passed);
    if let Ok(dealer) = dealer {
        let _ = dealer.join();
    }
}

/// How long an acceptor waits after a failed accept before it tries again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// What a failed cluster key handshake is counted against besides the address.
const KEY_SCOPE: &str = "cluster key";

/// [`DataNodeConfig::frame_timeout`] by default: long enough for a 16 MiB frame over a slow link.
pub const FRAME_TIMEOUT_DEFAULT: Duration = Duration::from_secs(30);

/// [`DataNodeConfig::transactions_max`] by default: every SQL connection's transaction and
/// thousands of asynchronous ones besides.
pub const TRANSACTIONS_MAX_DEFAULT: usize = 16_384;

/// [`DataNodeConfig::worker_queue_max`] by default: far more than the transactions a worker
/// serves at once, so only a worker that has fallen behind by seconds refuses.
pub const WORKER_QUEUE_MAX_DEFAULT: usize = 65_536;

/// [`DataNodeConfig::transaction_operations_max`] by default: a million rows changed in one
/// transaction, each holding a lock and an image until it ends.
pub const TRANSACTION_OPERATIONS_MAX_DEFAULT: usize = 1_000_000;

/// A node's data memory: its limit and, per worker, what its partitions hold (each worker
/// publishes its own; a write checks the sum).
pub struct DataMemory {
    pub limit: u64,
    used: Vec<AtomicU64>,
}

impl DataMemory {
    pub fn new(limit: u64, workers: usize) -> DataMemory {
        DataMemory {
            limit,
            used: (0..workers).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// What every worker's partitions hold, as last published.
    pub fn used(&self) -> u64 {
        self.used.iter().map(|u| u.load(Ordering::Relaxed)).sum()
    }

    /// What every worker but `worker` holds.
    pub fn used_by_others(&self, worker: usize) -> u64 {
        self.used
            .iter()
            .enumerate()
            .filter(|(w, _)| *w != worker)
            .map(|(_, u)| u.load(Ordering::Relaxed))
            .sum()
    }

    pub fn publish(&self, worker: usize, bytes: u64) {
        if let Some(u) = self.used.get(worker) {
            u.store(bytes, Ordering::Relaxed);
        }
    }
}

/// [`DataNodeConfig::data_memory`] by default: half the machine's memory (the rest is the
/// process's overhead, redo and checkpoint buffers, the front ends, and the system's), at least
/// 64 MiB; 4 GiB where the machine's size cannot be read.
pub fn default_data_memory() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map(|kib| kib * 1024);
    total.map_or(4 << 30, |bytes| (bytes / 2).max(64 << 20))
}

/// [`DataNodeConfig::transaction_inactive_timeout`] by default: far above any pause an
/// application makes inside a transaction on purpose, short enough that a client that went away
/// holding locks does not stall others for long (NDB's own default is effectively never).
pub const TRANSACTION_INACTIVE_TIMEOUT_DEFAULT: Duration = Duration::from_secs(60);

/// Accepts API connections and deals them to the workers in turn.
fn accept_loop(
    mut accept: impl FnMut() -> std::io::Result<transport::Stream>,
    shared: Arc<Shared>,
) {
    let mut next = 0usize;
    loop {
        let stream = accept();
        if shared.stopping.load(Ordering::SeqCst) {
            return;
        }
        let stream = match stream {
            Ok(s) => s,
            Err(e) => {
                warn!("accept failed: {e}");
                // Out of descriptors or memory (EMFILE, ENFILE, ENOMEM, ENOBUFS): the waiting
                // connection stays queued and the next accept would fail the same way at once;
                // give the node time to free some.
                if matches!(e.raw_os_error(), Some(24 | 23 | 12 | 105)) {
                    std::thread::sleep(ACCEPT_BACKOFF);
                }
                continue;
            }
        };
        if shared.connections.load(Ordering::Relaxed) >= shared.connections_max {
            warn!(
                "refusing connection: {} connections open",
                shared.connections_max
            );
            continue;
        }
        shared.connections.fetch_add(1, Ordering::Relaxed);
        let worker = next % shared.workers.len();
        next = next.wrapping_add(1);
        if !shared.workers[worker].send(ToWorker::Connection(stream)) {
            shared.connection_closed();
        }
    }
}
