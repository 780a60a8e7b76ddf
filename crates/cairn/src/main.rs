//! The `cairn` binary: command-line parsing, logging set-up and wiring of the roles. Each
//! subcommand is one role: `start` (the embedded default cluster), `datanode`, `bench`, `admin`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

mod angel;
mod cluster_node;
mod exposure;
mod protocol_node;
mod sim;
mod start_cluster;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use datanode::{DataNode, DataNodeConfig};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's option setter (the allocator above links it).
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// mimalloc's `mi_option_arena_eager_commit` (its v3 option list's fifth).
const MI_OPTION_ARENA_EAGER_COMMIT: std::ffi::c_int = 4;

/// Has the allocator commit memory as it is used instead of whole arenas ahead: with eager commit
/// (mimalloc's default where the kernel overcommits), every thread that allocated kept about
/// 4 MiB resident, so each idle SQL connection (a thread) cost 4.4 MiB; without it, 0.6 MiB.
/// It must run before the first allocation makes the first arena, so it is a constructor the
/// loader runs before Rust's runtime starts (setting it in `main` changed nothing).
extern "C" fn commit_memory_as_used() {
    // SAFETY: sets a plain integer option before any thread exists.
    unsafe { mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0) };
}

#[used]
#[link_section = ".init_array"]
static COMMIT_MEMORY_AS_USED: extern "C" fn() = commit_memory_as_used;

#[derive(Parser)]
#[command(
    name = "cairn",
    version,
    about = "Cairn: a shared-nothing, in-memory, partitioned database"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The cluster key file (16 to 4096 bytes, e.g. `head -c 32 /dev/urandom > cluster.key`):
    /// a data node makes every TCP client prove it before anything else, and this process's
    /// clients prove it to data nodes. Needed to open the native protocol off loopback.
    #[arg(long, global = true, env = "CAIRN_CLUSTER_KEY_FILE")]
    cluster_key_file: Option<PathBuf>,
    /// A node's TLS directory (`ca.pem`, `node.pem`, `node.key`, made by `cairn admin certs`):
    /// every native TCP link is then TLS, and both ends must show a certificate the cluster's
    /// CA signed (a data node refuses any other client before its first frame). Opens the
    /// native protocol off loopback, as the cluster key does.
    #[arg(long, global = true, env = "CAIRN_CLUSTER_TLS")]
    cluster_tls: Option<PathBuf>,
}

/// The cluster key of this process, when --cluster-key-file names one.
static CLUSTER_KEY: std::sync::OnceLock<std::sync::Arc<transport::auth::ClusterKey>> =
    std::sync::OnceLock::new();

fn cluster_key() -> Option<std::sync::Arc<transport::auth::ClusterKey>> {
    CLUSTER_KEY.get().cloned()
}

/// The TLS identity of this process, when --cluster-tls names one.
static CLUSTER_TLS: std::sync::OnceLock<std::sync::Arc<transport::tls::ClusterTls>> =
    std::sync::OnceLock::new();
/// The directory it came from, handed to the nodes `cairn start` runs as processes.
static CLUSTER_TLS_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

fn cluster_tls_dir() -> Option<PathBuf> {
    CLUSTER_TLS_DIR.get().cloned()
}

/// What this process's cluster links prove and what its data node asks of TCP clients.
fn guard() -> transport::auth::Guard {
    transport::auth::Guard {
        key: cluster_key(),
        tls: CLUSTER_TLS.get().cloned(),
    }
}

/// The file the cluster key came from, handed to the nodes `cairn start` runs as processes.
static CLUSTER_KEY_FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

fn cluster_key_file() -> Option<PathBuf> {
    CLUSTER_KEY_FILE.get().cloned()
}

#[derive(Subcommand)]
enum Command {
    /// Starts a whole cluster on this machine with no configuration (the embedded default).
    Start(StartArgs),
    /// Runs one data node.
    Datanode(DataNodeArgs),
    /// Runs an API node: the HandlerSocket front end over a running data node.
    Api(ApiArgs),
    /// Benchmark programs.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Management client.
    #[command(subcommand)]
    Admin(AdminCommand),
    /// Runs the deterministic cluster simulator: whole clusters in one thread from a seed, with
    /// injected faults and checkers.
    Sim(sim::SimArgs),
    /// One node of the cluster protocols' real-process runtime (for the failover test).
    #[command(hide = true)]
    ProtocolNode(protocol_node::ProtocolNodeArgs),
    /// Runs the management node: holds the cluster configuration file and hands it to the nodes
    /// that start with --mgm, and is the arbitrator of membership.
    Mgmd(protocol_node::MgmdArgs),
}

#[derive(Args)]
struct StartArgs {
    /// Directory for the cluster's data.
    #[arg(long, default_value = "./cairn-data")]
    data_dir: PathBuf,
    /// First port of the block the cluster listens on; the data node takes base + 2.
    #[arg(long, default_value_t = 2200)]
    base_port: u16,
    /// Port of the data node's native protocol listener (default: base port + 2).
    #[arg(long)]
    datanode_port: Option<u16>,
    /// Address the listeners bind to. Off loopback, every listener must have its credentials
    /// set: HandlerSocket secrets, the SQL root password, and --cluster-tls or --cluster-key-file for the native
    /// protocol (or --insecure).
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    /// Listen off loopback even where no credentials guard a listener (a lab network only;
    /// every open listener is named in a warning).
    #[arg(long)]
    insecure: bool,
    /// Worker threads of the data node (0: cores - 1, at least 1).
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// Microseconds a worker polls for work before sleeping (0: sleep at once; default 50 on
    /// 4 or more cores, else 0: spinning on 2 cores takes the CPU other threads need).
    #[arg(long)]
    worker_spin_us: Option<u64>,
    /// How the HandlerSocket and SQL front ends reach the data node in this process: shm
    /// (shared-memory rings, NDB's SHM transporter) or tcp (loopback, as a remote API node does).
    #[arg(long, default_value = "shm", value_parser = ["shm", "tcp"])]
    api_transport: String,
    #[command(flatten)]
    durability: DurabilityArgs,
    #[command(flatten)]
    timeouts: TimeoutArgs,
    #[command(flatten)]
    hs: HsArgs,
    #[command(flatten)]
    sql: SqlArgs,
    /// Data nodes, each a process of its own beside a management node (1: one data node in
    /// this process). With more, their native ports follow the first (base port + 2, + 3...),
    /// the management node takes base port + 100, and their data goes in DIR/node1, node2...
    #[arg(long, default_value_t = 1)]
    data_nodes: u16,
    /// Copies of every row, one per data node of a node group (1 to 4); a commit is on every
    /// replica before it is acknowledged.
    #[arg(long, default_value_t = 1)]
    replicas: u16,
}

/// A data node's limits: memory, and time on what its clients leave hanging.
#[derive(Args, Clone)]
struct TimeoutArgs {
    /// The most the node's rows and indexes may hold (NDB's DataMemory), in bytes or with a
    /// K, M or G suffix; a write past it fails with "table is full". Default: half the
    /// machine's memory.
    #[arg(long, value_parser = parse_size)]
    data_memory: Option<u64>,
    /// Milliseconds a transaction holding locks or changes may wait for its client's next
    /// request before it is rolled back and its locks freed (NDB's TransactionInactiveTimeout;
    /// 0: never).
    #[arg(long, default_value_t = datanode::TRANSACTION_INACTIVE_TIMEOUT_DEFAULT.as_millis() as u64)]
    transaction_inactive_timeout_ms: u64,
    /// Transactions open on the data node at once (NDB's MaxNoOfConcurrentTransactions); one
    /// more is refused with a temporary error.
    #[arg(long, default_value_t = datanode::TRANSACTIONS_MAX_DEFAULT)]
    transactions_max: usize,
    /// Operations one transaction may carry; past it, it is rolled back.
    #[arg(long, default_value_t = datanode::TRANSACTION_OPERATIONS_MAX_DEFAULT)]
    transaction_operations_max: usize,
    /// Messages a worker's queue may hold before the data node refuses new requests with a
    /// temporary error (what is already running goes on).
    #[arg(long, default_value_t = datanode::WORKER_QUEUE_MAX_DEFAULT)]
    worker_queue_max: usize,
    /// Milliseconds a native connection may hold part of a frame before it is closed.
    #[arg(long, default_value_t = datanode::FRAME_TIMEOUT_DEFAULT.as_millis() as u64)]
    frame_timeout_ms: u64,
    /// The most rows per second a data node copies to a starting node of its group (node
    /// restart); 0: as fast as it can. Lower leaves more of the machine to the load while the
    /// restart runs, which then takes longer (docs/benchmarks.md).
    #[arg(long, default_value_t = 0)]
    copy_rows_per_s: u64,
}

impl TimeoutArgs {
    fn apply(&self, config: &mut DataNodeConfig) {
        if let Some(bytes) = self.data_memory {
            config.data_memory = bytes;
        }
        config.transaction_inactive_timeout =
            Duration::from_millis(self.transaction_inactive_timeout_ms);
        config.frame_timeout = Duration::from_millis(self.frame_timeout_ms.max(1));
        config.transactions_max = self.transactions_max;
        config.transaction_operations_max = self.transaction_operations_max;
        config.worker_queue_max = self.worker_queue_max;
        config.copy_rows_per_s = self.copy_rows_per_s;
    }
}

/// A size in bytes: digits with an optional K, M or G (binary multiples), as NDB's config.ini
/// writes DataMemory.
fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let (digits, shift) = match text.char_indices().last() {
        Some((at, 'k' | 'K')) => (&text[..at], 10),
        Some((at, 'm' | 'M')) => (&text[..at], 20),
        Some((at, 'g' | 'G')) => (&text[..at], 30),
        _ => (text, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is no size (bytes, or a number with K, M or G)"))?;
    n.checked_mul(1 << shift)
        .filter(|b| *b >= 1 << 20)
        .ok_or_else(|| format!("{text:?}: a size from 1M to 16E is needed"))
}

#[derive(Args, Clone)]
struct HsArgs {
    /// Port of the HandlerSocket read listener (finds only; 0 picks a free port).
    #[arg(long, default_value_t = 9998)]
    hs_read_port: u16,
    /// Port of the HandlerSocket write listener (finds, modifies, inserts).
    #[arg(long, default_value_t = 9999)]
    hs_write_port: u16,
    /// Secret a read-port connection must send with `A` before anything else (empty: none).
    /// Prefer the environment variable: a flag's value shows in the process list.
    #[arg(
        long,
        default_value = "",
        env = "CAIRN_HS_READ_SECRET",
        hide_env_values = true
    )]
    hs_read_secret: String,
    /// Secret for the write port (or CAIRN_HS_WRITE_SECRET).
    #[arg(
        long,
        default_value = "",
        env = "CAIRN_HS_WRITE_SECRET",
        hide_env_values = true
    )]
    hs_write_secret: String,
    /// Seconds an idle HandlerSocket connection stays open.
    #[arg(long, default_value_t = 300)]
    hs_idle_timeout_s: u64,
    /// Event loops (threads) serving HandlerSocket connections, dealt to them in turn.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=hs::LOOPS_MAX as i64))]
    hs_loops: u16,
    /// Threads beside each HandlerSocket loop running the requests it does not batch (scans,
    /// modifies, inserts), so a slow one never holds up the loop's other connections.
    #[arg(long, default_value_t = hs::THREADS_DEFAULT as u16, value_parser = clap::value_parser!(u16).range(1..=hs::THREADS_MAX as i64))]
    hs_threads: u16,
    /// TLS on both HandlerSocket ports: every client must start with a TLS handshake (the
    /// plugin's clients do not speak it; a TLS tunnel or a client of your own does). The
    /// certificate is --hs-tls-cert's, else a self-signed one made at each start.
    #[arg(long)]
    hs_tls: bool,
    /// HandlerSocket's TLS certificate chain, a PEM file (with --hs-tls-key and --hs-tls).
    #[arg(long, requires_all = ["hs_tls_key", "hs_tls"])]
    hs_tls_cert: Option<std::path::PathBuf>,
    /// The private key of --hs-tls-cert, a PEM file.
    #[arg(long, requires = "hs_tls_cert")]
    hs_tls_key: Option<std::path::PathBuf>,
}

#[derive(Args, Clone)]
struct SqlArgs {
    /// Port of the SQL (MySQL protocol) listener (0 picks a free port).
    #[arg(long, default_value_t = 3306)]
    sql_port: u16,
    /// Also serve SQL on this Unix socket file, for clients on this host (mysql -S PATH); a
    /// socket file left by a stopped server is replaced. `cairn start` serves one at
    /// DATA_DIR/mysql.sock unless given another, or an empty path for none.
    #[arg(long, value_parser = socket_path)]
    sql_socket: Option<std::path::PathBuf>,
    /// root@localhost's SQL password, set when the accounts table is made at the first start
    /// (empty: none); later starts keep the accounts the cluster holds (ALTER USER changes it).
    /// Prefer the environment variable: a flag's value shows in the process list.
    #[arg(
        long,
        default_value = "",
        env = "CAIRN_SQL_ROOT_PASSWORD",
        hide_env_values = true
    )]
    sql_root_password: String,
    /// Event loops that serve idle SQL connections and their simple reads.
    #[arg(long, default_value_t = sql::REACTORS_DEFAULT)]
    sql_reactors: usize,
    /// The SQL server's TLS certificate chain, a PEM file (with --sql-tls-key); without both,
    /// a self-signed certificate is made at each start.
    #[arg(long, requires = "sql_tls_key")]
    sql_tls_cert: Option<std::path::PathBuf>,
    /// The private key of --sql-tls-cert, a PEM file.
    #[arg(long, requires = "sql_tls_cert")]
    sql_tls_key: Option<std::path::PathBuf>,
    /// Serve SQL without TLS (a client that asks for it is refused).
    #[arg(long, conflicts_with = "sql_tls_cert")]
    sql_no_tls: bool,
    /// SQL connections served at once (max_connections); one more is refused with 1040.
    #[arg(long, default_value_t = sql::CONNECTIONS_MAX)]
    sql_max_connections: u32,
}

impl SqlArgs {
    fn listener(&self, bind: &str) -> exposure::Listener {
        exposure::Listener {
            what: "SQL",
            bind: format!("{bind}:{}", self.sql_port),
            guarded: !self.sql_root_password.is_empty(),
            how: exposure::SQL_HOW,
        }
    }

    /// The SQL front end's settings for `cairn start`, whose socket file is in its data
    /// directory unless --sql-socket names another (or none).
    fn config_in(
        &self,
        bind: &str,
        datanode: String,
        data_dir: &std::path::Path,
    ) -> sql::SqlConfig {
        let mut config = self.config(bind, datanode);
        if self.sql_socket.is_none() {
            config.socket = default_socket(data_dir);
        }
        config
    }

    fn config(&self, bind: &str, datanode: String) -> sql::SqlConfig {
        sql::SqlConfig {
            datanode,
            listen: format!("{bind}:{}", self.sql_port),
            socket: self
                .sql_socket
                .clone()
                .filter(|p| !p.as_os_str().is_empty()),
            root_password: self.sql_root_password.clone(),
            reactors: self.sql_reactors.max(1),
            max_connections: self.sql_max_connections,
            tls: match (&self.sql_tls_cert, &self.sql_tls_key) {
                _ if self.sql_no_tls => sql::TlsSetting::Off,
                (Some(cert), Some(key)) => sql::TlsSetting::Files {
                    cert: cert.clone(),
                    key: key.clone(),
                },
                _ => sql::TlsSetting::SelfSigned,
            },
            ..sql::SqlConfig::default()
        }
    }
}

impl HsArgs {
    fn listeners(&self, bind: &str) -> [exposure::Listener; 2] {
        [
            exposure::Listener {
                what: "HandlerSocket read port",
                bind: format!("{bind}:{}", self.hs_read_port),
                guarded: !self.hs_read_secret.is_empty(),
                how: exposure::HS_READ_HOW,
            },
            exposure::Listener {
                what: "HandlerSocket write port",
                bind: format!("{bind}:{}", self.hs_write_port),
                guarded: !self.hs_write_secret.is_empty(),
                how: exposure::HS_WRITE_HOW,
            },
        ]
    }

    fn config(&self, bind: &str, datanode: String) -> hs::HsConfig {
        hs::HsConfig {
            datanode,
            read_listen: format!("{bind}:{}", self.hs_read_port),
            write_listen: format!("{bind}:{}", self.hs_write_port),
            read_secret: self.hs_read_secret.clone().into_bytes(),
            write_secret: self.hs_write_secret.clone().into_bytes(),
            idle_timeout: Duration::from_secs(self.hs_idle_timeout_s.max(1)),
            loops: self.hs_loops.into(),
            threads: self.hs_threads.into(),
            tls: match (&self.hs_tls_cert, &self.hs_tls_key) {
                _ if !self.hs_tls => transport::tls::TlsSetting::Off,
                (Some(cert), Some(key)) => transport::tls::TlsSetting::Files {
                    cert: cert.clone(),
                    key: key.clone(),
                },
                _ => transport::tls::TlsSetting::SelfSigned,
            },
            ..hs::HsConfig::default()
        }
    }
}

#[derive(Args)]
struct ApiArgs {
    /// The data node to serve from.
    #[arg(long, default_value = "127.0.0.1:2202")]
    datanode: String,
    /// Address the listeners bind to. Off loopback, every listener must have its credentials
    /// set: HandlerSocket secrets, the SQL root password, and --cluster-tls or --cluster-key-file for the native
    /// protocol (or --insecure).
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    /// Listen off loopback even where no credentials guard a listener (a lab network only;
    /// every open listener is named in a warning).
    #[arg(long)]
    insecure: bool,
    #[command(flatten)]
    hs: HsArgs,
    #[command(flatten)]
    sql: SqlArgs,
}

#[derive(Args, Clone)]
struct DurabilityArgs {
    /// When commits reach the disk: commit (before each acknowledgement), interval (every
    /// --durability-interval-ms) or none (memory only).
    #[arg(long, default_value = "commit", value_parser = ["commit", "interval", "none"])]
    durability: String,
    /// Milliseconds between global checkpoints in interval mode (a crash loses about this much).
    #[arg(long, default_value_t = 2000)]
    durability_interval_ms: u64,
    /// Size of each redo segment file, in KiB (64 to 1048576).
    #[arg(long, default_value_t = 65536)]
    redo_segment_kib: u64,
    /// A local checkpoint starts after this many KiB of redo (0: never on its own).
    #[arg(long, default_value_t = 262144)]
    checkpoint_redo_kib: u64,
    /// Fault injection for tests: a worker panics after this many data messages.
    #[arg(long, hide = true)]
    fault_worker_panic_after: Option<u64>,
    /// Fault injection for tests: the redo logs keep every write in memory until its fsync, so
    /// a SIGKILL loses what a power cut would.
    #[arg(long, hide = true)]
    fault_power_cut: bool,
}

impl DurabilityArgs {
    fn mode(&self) -> datanode::Durability {
        match self.durability.as_str() {
            "none" => datanode::Durability::None,
            "interval" => datanode::Durability::Interval(Duration::from_millis(
                self.durability_interval_ms.max(1),
            )),
            _ => datanode::Durability::Commit,
        }
    }

    /// Applies the redo and checkpoint settings to a data node's configuration.
    fn apply(&self, config: &mut DataNodeConfig) {
        config.durability = self.mode();
        config.redo_segment_bytes = self.redo_segment_kib.saturating_mul(1024);
        config.checkpoint_redo_bytes = self.checkpoint_redo_kib.saturating_mul(1024);
        config.fault_worker_panic_after = self.fault_worker_panic_after;
        if self.fault_power_cut {
            config.redo_faults = Some(std::sync::Arc::new(datanode::RedoFaults::power_cut()));
        }
    }

    fn describe_checkpoints(&self) -> String {
        match (self.durability.as_str(), self.checkpoint_redo_kib) {
            ("none", _) => "none (no redo log)".into(),
            (_, 0) => "only when asked".into(),
            (_, kib) => format!("local, every {} MiB of redo", kib as f64 / 1024.0),
        }
    }
}

#[derive(Args)]
struct DataNodeArgs {
    /// Address to listen on for API connections. Off loopback it needs --cluster-tls or --cluster-key-file (or
    /// --insecure).
    #[arg(long, default_value = "127.0.0.1:2202")]
    listen: String,
    /// Listen off loopback with no authentication (a lab network only).
    #[arg(long)]
    insecure: bool,
    #[arg(long, default_value_t = 1)]
    node_id: u32,
    /// Worker threads (0: cores - 1, at least 1).
    #[arg(long, default_value_t = 0)]
    workers: usize,
    /// Row-lock wait timeout in milliseconds.
    #[arg(long, default_value_t = 1200)]
    lock_wait_timeout_ms: u64,
    #[command(flatten)]
    timeouts: TimeoutArgs,
    /// Microseconds a worker polls for work before sleeping (0: sleep at once; default 50 on
    /// 4 or more cores, else 0: spinning on 2 cores takes the CPU other threads need).
    #[arg(long)]
    worker_spin_us: Option<u64>,
    /// Directory for the catalog and redo logs (none: memory only).
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Also accept API nodes on this host over shared memory at this name (an abstract Unix
    /// socket name, or a socket file path starting with /); they connect to shm:NAME.
    #[arg(long)]
    shm_listen: Option<String>,
    #[command(flatten)]
    durability: DurabilityArgs,
    /// Start empty: delete the catalog, checkpoints and redo logs in --data-dir first. Needs --yes, because
    /// everything stored there is lost. With --mgm, a node that was a member of the cluster
    /// before (its --data-dir says so) comes back to it running (node restart): it copies every
    /// partition from its node group's primary while the cluster keeps committing, then serves
    /// as a backup. Without --initial such a node restarts from its own checkpoint and redo
    /// and the copy writes only the rows that differ (deleting those its primary no longer
    /// holds).
    #[arg(long, requires = "data_dir")]
    initial: bool,
    /// Confirms --initial.
    #[arg(long)]
    yes: bool,
    /// With --mgm, when the whole cluster starts again (a system restart): start from this
    /// node's own checkpoint and redo, as a member of the configuration's first view. Give it
    /// to the node whose data directory says it was a member of the newest view (its
    /// `cluster-member` file; `cairn start` chooses it); the others start with --initial and
    /// copy from it.
    #[arg(long, requires = "mgm", conflicts_with = "initial")]
    system_restart: bool,
    /// With --system-restart, in `interval` durability: replay only the commits of this
    /// global checkpoint round of the cluster and before (the newest round any node's `gcp`
    /// file records as complete), so every node group comes back to the same point of the
    /// commit order. `cairn start` works it out.
    #[arg(long, requires = "system_restart")]
    restore_round: Option<u64>,
    /// With --mgm, for a node of the cluster's first view (a new cluster, or --system-restart):
    /// that view's epoch (default 1). Every node of the first view takes the same one: above
    /// every epoch an earlier run of the cluster recorded (its `cluster-member` files) and
    /// every one the management node keeps votes for (`cairn mgmd --data-dir`), so those
    /// votes never answer this run's view changes. `cairn start` works it out.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    first_epoch: u64,
    /// Join the cluster whose management node is at HOST:PORT (`cairn mgmd`): the
    /// configuration it hands out gives this node's address (its `api`), its node group and
    /// the worker count; --node-id names the node. The node serves as its group's primary, or
    /// keeps a backup replica of the primary's rows.
    #[arg(long)]
    mgm: Option<String>,
    /// With --mgm: run the data node in this process, without its angel. By default a process
    /// of its own (the angel, as NDB's) runs the node and starts it again when it fails after
    /// it was ready (exit code 70, or killed): it comes back empty and copies every partition
    /// from its node group's primary (node restart), at most 3 times in 60 s; a node stopped
    /// with `cairn admin restart` is started again too. `cairn start` runs its data nodes
    /// with this flag, and restarts them itself.
    #[arg(long)]
    no_angel: bool,
    /// With --mgm, on a node restart: how long the node waits for another node of its group to
    /// serve, to copy from, before it refuses to delete its files; and, once copying, how long
    /// it goes on while none serves (its copy source died) before it stops (exit 78): the
    /// restart cannot finish then.
    #[arg(long, default_value_t = 30)]
    copy_source_wait_s: u64,
    /// Fault injection for tests (with --mgm): a file naming the nodes whose membership links
    /// to this node are cut.
    #[arg(long, hide = true)]
    fault_cut_file: Option<PathBuf>,
}

#[derive(Subcommand)]
enum BenchCommand {
    /// NDB's testReadPerf: every access path, us/row and rows/s, against a running cluster.
    Readperf(ReadperfArgs),
    /// Creates a sysbench-shaped table and loads it (for restart and memory measurements).
    Load {
        #[arg(long, default_value = "127.0.0.1:2202")]
        connect: String,
        #[arg(long, default_value = "sbtest1")]
        table: String,
        #[arg(long, default_value_t = 1_000_000)]
        rows: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Closed-loop writes in sysbench's oltp_insert / oltp_update_index shapes: ops/s, latency,
    /// server CPU per operation.
    Write(WriteArgs),
    /// Closed-loop key lookups over HandlerSocket or memcached: ops/s, latency, server CPU.
    Kv(KvArgs),
    /// A bare TCP echo server: the ping-pong baseline readperf runs in a process of its own.
    Echo {
        #[arg(long, default_value = "127.0.0.1:0")]
        listen: String,
    },
    /// A server that answers every HandlerSocket find or MySQL SELECT with one fixed row and does
    /// no other work: what the load generator and loopback alone cost, the most any server could
    /// serve here.
    Floor(FloorArgs),
}

#[derive(Args)]
struct FloorArgs {
    /// hs (HandlerSocket request lines) or mysql (the MySQL protocol; any login is accepted).
    #[arg(long, default_value = "mysql", value_parser = ["hs", "mysql"])]
    protocol: String,
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// Event loops serving the connections; 0 for a blocking thread per connection.
    #[arg(long, default_value_t = 1)]
    loops: usize,
}

#[derive(Args)]
struct ReadperfArgs {
    /// Data node address (default: the one `cairn start` runs).
    #[arg(long, default_value = "127.0.0.1:2202")]
    connect: String,
    /// Rows in the table.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Rows per transaction or scan.
    #[arg(long, default_value_t = 1000)]
    range: u64,
    #[arg(long, default_value_t = 3)]
    iterations: u64,
    /// Each path repeats its iterations until it has run at least this long (0: exactly
    /// `--iterations`), so fast paths are timed over enough work to measure.
    #[arg(long, default_value_t = 0)]
    min_ms: u64,
    /// Seed of the key generator (printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    /// Microseconds the client polls for each reply before sleeping; the ping-pong baseline
    /// waits the same way (0: sleep at once, as a plain blocking client).
    #[arg(long, default_value_t = 0)]
    client_spin_us: u64,
    /// The data node's process id, when it runs on this host: each path's server CPU per row
    /// is measured too (JSON: server_cpu_us_per_row).
    #[arg(long)]
    server_pid: Option<u32>,
}

#[derive(Args)]
struct KvArgs {
    /// hs (HandlerSocket find on PRIMARY) or memcached (get).
    #[arg(long, default_value = "hs", value_parser = ["hs", "memcached"])]
    protocol: String,
    /// Server address (a HandlerSocket read port, or memcached).
    #[arg(long, default_value = "127.0.0.1:9998")]
    connect: String,
    /// Keys are 1..=keys (the sysbench table's ids).
    #[arg(long, default_value_t = 1_000_000)]
    keys: u64,
    #[arg(long, default_value_t = 16)]
    connections: usize,
    /// Requests in flight per connection.
    #[arg(long, default_value_t = 1)]
    depth: usize,
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Server processes whose CPU time per operation is reported (repeat or comma-separate).
    #[arg(long = "server-pid", value_delimiter = ',')]
    server_pids: Vec<u32>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// HandlerSocket database, table and column.
    #[arg(long, default_value = "sbtest")]
    db: String,
    #[arg(long, default_value = "sbtest1")]
    table: String,
    #[arg(long, default_value = "c")]
    column: String,
    /// memcached key prefix.
    #[arg(long, default_value = "sbtest1:")]
    prefix: String,
    /// memcached: first store the c column of the rows `cairn bench load --seed` makes.
    #[arg(long)]
    load: bool,
    /// HandlerSocket over TLS (`cairn start --hs-tls`): the CA file that signed the server's
    /// certificate (`cairn admin certs`: DIR/ca.pem).
    #[arg(long)]
    tls_ca: Option<std::path::PathBuf>,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct WriteArgs {
    /// Data node address (default: the one `cairn start` runs).
    #[arg(long, default_value = "127.0.0.1:2202")]
    connect: String,
    #[arg(long, default_value = "sbtest1")]
    table: String,
    /// Table size: loaded (ids 1..=rows) when the table is missing or empty.
    #[arg(long, default_value_t = 1_000_000)]
    rows: u64,
    /// Client threads, each with its own connection.
    #[arg(long, alias = "connections", default_value_t = 16)]
    threads: usize,
    /// Seconds measured.
    #[arg(long, default_value_t = 15.0)]
    duration: f64,
    /// Seconds run before measuring.
    #[arg(long, default_value_t = 3.0)]
    warmup: f64,
    /// insert (sysbench oltp_insert) or update-index (oltp_update_index).
    #[arg(long, default_value = "insert", value_parser = ["insert", "update-index"])]
    workload: String,
    /// Server processes whose CPU time over the measured window is reported per operation
    /// (repeat, or separate with commas).
    #[arg(long = "server-pid", value_delimiter = ',')]
    server_pids: Vec<u32>,
    /// Seed of the row and key generator (printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Shows a data node's status: workers, tables, rows, resident memory; and, when a
    /// management node answers at --mgm, the cluster's node groups, each node's state and role.
    Status {
        #[arg(long, default_value = "127.0.0.1:2202")]
        connect: String,
        /// The cluster's management node (`cairn start --data-nodes` runs it at base port + 100).
        #[arg(long, default_value = "127.0.0.1:2300")]
        mgm: String,
    },
    /// Has a data node write a local checkpoint now and waits until it is published.
    Checkpoint {
        #[arg(long, default_value = "127.0.0.1:2202")]
        connect: String,
    },
    /// Makes the cluster's CA (DIR/ca.key and DIR/ca.pem, kept when they exist, so nodes can be
    /// added later) and, for each NAME, DIR/NAME holding ca.pem, node.pem and node.key, signed by
    /// the CA: start that node with `--cluster-tls DIR/NAME`. Keep ca.key off the nodes.
    Certs {
        /// Where the CA and the nodes' directories go.
        #[arg(long)]
        dir: PathBuf,
        /// The names to make certificates for (e.g. mgm node1 node2 api1).
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// Shows the nodes of a cluster run by `cairn mgmd` and their states in the newest view.
    Cluster {
        /// The management node's address.
        #[arg(long, default_value = "127.0.0.1:1186")]
        mgm: String,
    },
    /// Stops data node NODE of the cluster cleanly; `cairn start` does not start it again.
    Stop {
        node: u32,
        #[arg(long, default_value = "127.0.0.1:2300")]
        mgm: String,
    },
    /// Stops data node NODE so that what runs it (`cairn start`, or a service manager that
    /// restarts on exit code 75) starts it again: from its own files, which its group's
    /// primary brings level (node restart). Waits until it is a member again.
    Restart {
        node: u32,
        #[arg(long, default_value = "127.0.0.1:2300")]
        mgm: String,
        /// Start it again empty, copying every partition (it exits with code 79, which
        /// `cairn start` and the angel take as "start again with --initial").
        #[arg(long)]
        initial: bool,
        /// How long to wait for the node to be a member again.
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
    },
    /// Compares the replicas of every node group (each partition's rows and their checksum),
    /// asking again while they differ for up to --settle-s; fails naming the first difference.
    Replicas {
        #[arg(long, default_value = "127.0.0.1:2300")]
        mgm: String,
        /// How long replicas may differ (commits under way reach them a moment apart).
        #[arg(long, default_value_t = 10)]
        settle_s: u64,
    },
    /// Restarts every data node in turn (the groups' primaries last), each once the one before
    /// is a member again: the cluster serves throughout.
    RollingRestart {
        #[arg(long, default_value = "127.0.0.1:2300")]
        mgm: String,
        /// Start each node again empty, copying every partition (as `restart --initial`).
        #[arg(long)]
        initial: bool,
        /// How long to wait for each node to be a member again.
        #[arg(long, default_value_t = 300)]
        timeout_s: u64,
    },
}

fn init_logging() {
    let level = match std::env::var("CAIRN_LOG")
        .unwrap_or_default()
        .to_ascii_lowercase()
        .as_str()
    {
        "trace" => tracing::Level::TRACE,
        "debug" => tracing::Level::DEBUG,
        "warn" => tracing::Level::WARN,
        "error" => tracing::Level::ERROR,
        _ => tracing::Level::INFO,
    };
    tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_target(false)
        .init();
}

/// The exit code of a process whose node failed (fail-stop): a failed write or fsync, or a panic.
const EXIT_FAILED: i32 = 70;
/// A data node stopped on request to be started again (`cairn admin restart`): what runs it
/// (`cairn start`, a service manager) starts it again.
pub const EXIT_RESTART: i32 = 75;
/// A data node's restart cannot go on (EX_CONFIG): no other node of its group serves to copy
/// from. Starting it again does not mend that, so nothing that runs it does (the angel,
/// `cairn start`); the whole cluster must be started again (a system restart).
pub const EXIT_NO_COPY_SOURCE: i32 = 78;
/// A data node restarted from its own files cannot be brought level with its group from them
/// (they do not load, or its tables differ from its primary's): what runs it (the angel,
/// `cairn start`) starts it again with `--initial`, to copy every partition.
pub const EXIT_NEEDS_INITIAL: i32 = 76;
/// A data node stopped on request to be started again empty (`cairn admin restart --initial`):
/// as `EXIT_RESTART`, with `--initial`.
pub const EXIT_RESTART_INITIAL: i32 = 79;

fn main() -> Result<()> {
    let cli = Cli::parse();
    init_logging();
    fail_stop_on_panic();
    if let Some(path) = &cli.cluster_key_file {
        let load = || transport::auth::ClusterKey::load(path);
        let key = load().with_context(|| format!("reading the cluster key {}", path.display()))?;
        transport::auth::set_client_key(load()?);
        let _ = CLUSTER_KEY.set(std::sync::Arc::new(key));
        let _ = CLUSTER_KEY_FILE.set(path.clone());
    }
    if let Some(dir) = &cli.cluster_tls {
        let tls = transport::tls::ClusterTls::load(dir)
            .with_context(|| format!("reading the cluster TLS directory {}", dir.display()))?;
        let tls = std::sync::Arc::new(tls);
        transport::tls::set_client_tls(Some(tls.clone()));
        let _ = CLUSTER_TLS.set(tls);
        let _ = CLUSTER_TLS_DIR.set(dir.clone());
    }
    // Servers hold a descriptor per client and five per shared-memory connection.
    if let Err(e) = transport::raise_descriptor_limit() {
        tracing::warn!("could not raise the open-file limit: {e}");
    }
    if matches!(cli.command, Command::Admin(_)) {
        // A report piped into `head` ends quietly when the reader goes, as other tools do
        // (Rust ignores SIGPIPE, and printing to a closed pipe would panic). Servers keep
        // ignoring it: a peer that goes is an error on its socket, not the end of the process.
        // SAFETY: setting a signal's disposition to the default, before any thread starts.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match cli.command {
        Command::Start(args) => start(args),
        Command::Sim(args) => sim::run(args),
        Command::ProtocolNode(args) => protocol_node::run(args),
        Command::Mgmd(args) => protocol_node::run_mgmd(args),
        Command::Api(args) => run_api(args),
        Command::Datanode(args) if args.mgm.is_some() && !args.no_angel => {
            // The same command line again, for the node in a child process.
            let code = angel::run(args.node_id, std::env::args().skip(1).collect())?;
            std::process::exit(code)
        }
        Command::Datanode(args) => run_datanode(args),
        Command::Bench(BenchCommand::Readperf(args)) => readperf(args),
        Command::Bench(BenchCommand::Load {
            connect,
            table,
            rows,
            seed,
        }) => {
            let took = bench::load::load_sysbench(&connect, &table, rows, seed, true)
                .context("loading")?;
            println!(
                "loaded {rows} rows into {table} in {:.1} s ({:.0} rows/s)",
                took.as_secs_f64(),
                rows as f64 / took.as_secs_f64().max(1e-9)
            );
            Ok(())
        }
        Command::Bench(BenchCommand::Write(args)) => bench_write(args),
        Command::Bench(BenchCommand::Kv(args)) => bench_kv(args),
        Command::Bench(BenchCommand::Echo { listen }) => {
            let listener = std::net::TcpListener::bind(&listen)
                .with_context(|| format!("binding {listen}"))?;
            println!("echo listening on {}", listener.local_addr()?);
            transport::echo::serve(listener);
            Ok(())
        }
        Command::Bench(BenchCommand::Floor(args)) => {
            let opts = bench::floor::Options {
                protocol: if args.protocol == "hs" {
                    bench::floor::Protocol::HandlerSocket
                } else {
                    bench::floor::Protocol::Mysql
                },
                model: match args.loops {
                    0 => bench::floor::Model::ThreadPerConnection,
                    n => bench::floor::Model::Loops(n),
                },
                value: bench::floor::sysbench_c(),
            };
            bench::floor::run(&opts, &args.listen)
                .with_context(|| format!("serving on {}", args.listen))
        }
        Command::Admin(AdminCommand::Stop { node, mgm }) => {
            cluster_node::stop_node(&mgm, node, false, false)?;
            println!("data node {node} stops");
            Ok(())
        }
        Command::Admin(AdminCommand::Restart {
            node,
            mgm,
            initial,
            timeout_s,
        }) => {
            cluster_node::restart_nodes(&mgm, Some(node), initial, Duration::from_secs(timeout_s))
        }
        Command::Admin(AdminCommand::Replicas { mgm, settle_s }) => {
            cluster_node::compare_replicas(&mgm, Duration::from_secs(settle_s))
        }
        Command::Admin(AdminCommand::RollingRestart {
            mgm,
            initial,
            timeout_s,
        }) => cluster_node::restart_nodes(&mgm, None, initial, Duration::from_secs(timeout_s)),
        Command::Admin(AdminCommand::Status { connect, mgm }) => {
            let cluster = client::Cluster::connect(&connect);
            let s = cluster.as_ref().ok().map(|c| c.status()).transpose()?;
            // The serving data node names its group's primary (first of the members).
            let primary = s.as_ref().and_then(|s| s.members.first().copied());
            cluster_node::print_status(&mgm, primary)?;
            let cluster = cluster.with_context(|| format!("connecting to {connect}"))?;
            let Some(s) = s else {
                bail!("no status from {connect}");
            };
            println!(
                "node {}: {} workers, {} tables, {} rows, {} MiB resident",
                s.node_id,
                s.worker_count,
                s.table_count,
                s.row_count,
                s.resident_bytes >> 20
            );
            for c in &s.copies {
                let seconds = c.micros as f64 / 1e6;
                println!(
                    "copy to data node {} (node restart): {} rows, {}/{} partitions, {:.1} s, {:.0} rows/s{}",
                    c.node,
                    c.rows,
                    c.partitions_done,
                    c.partitions,
                    seconds,
                    c.rows as f64 / seconds.max(0.001),
                    if c.done { ", done" } else { ", running" }
                );
            }
            if s.held_parts > 0 {
                println!(
                    "holding {} prepared parts of two-phase commits from the group's previous primary: it serves no new transaction until their coordinators' groups say how they ended",
                    s.held_parts
                );
            }
            if s.in_doubt > 0 {
                println!(
                    "{} prepared parts wait for their coordinator's second phase",
                    s.in_doubt
                );
            }
            println!(
                "data memory: {} MiB used of {} MiB ({} MiB free)",
                s.data_memory_bytes >> 20,
                s.data_memory_limit >> 20,
                s.data_memory_limit.saturating_sub(s.data_memory_bytes) >> 20
            );
            let names = cluster.list_tables()?;
            let by_id: std::collections::BTreeMap<u32, &str> = names
                .iter()
                .filter_map(|n| cluster.table(n).ok().map(|t| (t.id(), n.as_str())))
                .collect();
            if !s.tables.is_empty() {
                println!(
                    "{:<40} {:>12} {:>12} {:>12}",
                    "table", "rows", "data KiB", "index KiB"
                );
            }
            for t in &s.tables {
                let name = by_id
                    .get(&t.id)
                    .map_or_else(|| format!("(table {})", t.id), |n| n.to_string());
                println!(
                    "{:<40} {:>12} {:>12} {:>12}",
                    name,
                    t.rows,
                    t.data_bytes >> 10,
                    t.index_bytes >> 10
                );
            }
            Ok(())
        }
        Command::Admin(AdminCommand::Certs { dir, names }) => {
            let made = transport::tls::make_certificates(&dir, &names)
                .with_context(|| format!("making certificates in {}", dir.display()))?;
            println!(
                "CA: {} (keep ca.key off the nodes)",
                dir.join("ca.pem").display()
            );
            for node in made {
                println!(
                    "{}: start it with --cluster-tls {}",
                    node.display(),
                    node.display()
                );
            }
            Ok(())
        }
        Command::Admin(AdminCommand::Cluster { mgm }) => {
            let status = datanode::cluster_host::ask_management_node(
                &mgm,
                cluster_node::ADMIN_ID,
                true,
                &guard(),
                Duration::from_secs(5),
            )
            .with_context(|| format!("asking the management node at {mgm}"))?;
            print!("{status}");
            Ok(())
        }
        Command::Admin(AdminCommand::Checkpoint { connect }) => {
            let cluster = client::Cluster::connect(&connect)
                .with_context(|| format!("connecting to {connect}"))?;
            let c = cluster.checkpoint().context("checkpoint")?;
            println!(
                "checkpoint {} ({}): {} entries, {} bytes, {:.2} s",
                c.id,
                if c.full { "full" } else { "partial" },
                c.entries,
                c.bytes,
                c.micros as f64 / 1e6
            );
            Ok(())
        }
    }
}

/// Makes a panic on any thread end the process with `EXIT_FAILED` once its message is printed: a
/// panic means a broken invariant, and a node that lost a worker or a front end's thread must
/// not run on half-alive (its peers and clients must see it dead, and it restarts from its files).
fn fail_stop_on_panic() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        report(info);
        eprintln!(
            "cairn: a thread panicked; the process stops (fail-stop), exit code {EXIT_FAILED}"
        );
        // No unwinding and no destructors: other threads may hold the state the panic found broken.
        // SAFETY: _exit ends the process at once; it is async-signal-safe and touches no Rust state.
        unsafe { libc::_exit(EXIT_FAILED) };
    }));
}

/// Installs the Ctrl-C and SIGTERM handler; done before `ready` is printed, so a signal sent as
/// soon as it is read stops the process cleanly instead of killing it.
fn stop_signal() -> Result<mpsc::Receiver<()>> {
    let (tx, rx) = mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .context("installing the signal handler")?;
    Ok(rx)
}

/// Blocks until Ctrl-C or SIGTERM; exits the process if the node fails (fail-stop), so it restarts
/// from its files.
/// Serves until a signal, or a client's request to stop (`Some(restart)`).
fn wait_for_signal(node: &DataNode, rx: mpsc::Receiver<()>) -> Result<Option<bool>> {
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(None),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Some(why) = node.failure() {
                    if node.needs_initial() {
                        eprintln!("data node failed: {why}; exiting (exit {EXIT_NEEDS_INITIAL}) to start again with --initial");
                        std::process::exit(EXIT_NEEDS_INITIAL);
                    }
                    eprintln!("data node failed: {why}; exiting for recovery");
                    std::process::exit(EXIT_FAILED);
                }
                if let Some(restart) = node.stop_requested() {
                    return Ok(Some(restart));
                }
            }
        }
    }
}

fn start(args: StartArgs) -> Result<()> {
    if args.data_nodes > 1 || args.replicas > 1 {
        return start_cluster::run(args);
    }
    let native = exposure::Listener {
        what: "native protocol (data node)",
        bind: args.bind.clone(),
        guarded: guard().is_set(),
        how: exposure::NATIVE_HOW,
    };
    let [hs_read, hs_write] = args.hs.listeners(&args.bind);
    exposure::check(
        &[native, hs_read, hs_write, args.sql.listener(&args.bind)],
        args.insecure,
    )?;
    std::fs::create_dir_all(&args.data_dir)
        .with_context(|| format!("creating data directory {}", args.data_dir.display()))?;
    let port = match args.datanode_port {
        Some(p) => p,
        None => args
            .base_port
            .checked_add(2)
            .context("--base-port too high")?,
    };
    // The front ends in this process reach the data node through a transport, as any API node
    // does; over shared memory unless asked for TCP.
    let shm_name =
        (args.api_transport == "shm").then(|| format!("cairn-{}-datanode", std::process::id()));
    let mut config = DataNodeConfig {
        guard: guard(),
        listen: format!("{}:{port}", args.bind),
        shm_listen: shm_name.clone(),
        workers: args.workers,
        worker_spin: args
            .worker_spin_us
            .map_or_else(datanode::default_worker_spin, Duration::from_micros),
        data_dir: Some(args.data_dir.clone()),
        ..DataNodeConfig::default()
    };
    args.durability.apply(&mut config);
    args.timeouts.apply(&mut config);
    let node = DataNode::start(config.clone())
        .with_context(|| format!("starting the data node on {}", config.listen))?;
    let address = node.address().to_string();
    // Ready means the listener answers a real request over the transport.
    let probe = client::Cluster::connect_timeout(&address, Duration::from_secs(10))
        .context("probing the data node")?;
    probe.ping(Vec::new()).context("probing the data node")?;
    drop(probe);
    println!(
        "cairn {}: data directory {}",
        env!("CARGO_PKG_VERSION"),
        args.data_dir.display()
    );
    println!(
        "data node (native protocol): {address} ({} worker threads)",
        node.worker_count()
    );
    let address = match &shm_name {
        Some(name) => {
            let shm = format!("{}{name}", transport::shm::ADDRESS_PREFIX);
            println!("front ends reach the data node over shared memory: {shm}");
            shm
        }
        None => address,
    };
    let hs = hs::HsServer::start(args.hs.config(&args.bind, address.clone())).context(
        "starting the HandlerSocket listeners (move them with --hs-read-port and --hs-write-port)",
    )?;
    println!(
        "handlersocket: read {} write {}",
        hs.read_address(),
        hs.write_address()
    );
    let sql = sql::SqlServer::start(args.sql.config_in(
        &args.bind,
        address.clone(),
        &args.data_dir,
    ))
    .context("starting the SQL listener (move it with --sql-port or --sql-socket)")?;
    println!("sql (mysql protocol): {}", sql.address());
    if let Some(path) = sql.socket() {
        println!("sql unix socket: {}", path.display());
    }
    println!("durability: {}", config.durability);
    println!("checkpoints: {}", args.durability.describe_checkpoints());
    println!(
        "data memory: {} MiB (--data-memory)",
        config.data_memory >> 20
    );
    let stop = stop_signal()?;
    println!("ready");
    let requested = wait_for_signal(&node, stop)?;
    println!("stopping");
    sql.stop();
    hs.stop();
    node.stop();
    println!("stopped");
    if requested == Some(true) {
        std::process::exit(EXIT_RESTART);
    }
    Ok(())
}

/// Where `cairn start` serves SQL on a Unix socket: `mysql.sock` in its data directory, as an
/// absolute path (what `@@socket` shows), unless that path is too long for a socket address
/// (108 bytes on Linux), where none is served and a line says so.
/// The value of --sql-socket: a path, or empty for no socket (clap's own path parser refuses
/// an empty value).
fn socket_path(value: &str) -> Result<std::path::PathBuf, std::convert::Infallible> {
    Ok(std::path::PathBuf::from(value))
}

fn default_socket(data_dir: &std::path::Path) -> Option<std::path::PathBuf> {
    const SOCKET_PATH_MAX: usize = 107;
    let dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let path = dir.join("mysql.sock");
    if path.as_os_str().len() > SOCKET_PATH_MAX {
        println!(
            "no sql unix socket: {} is longer than a socket path may be (--sql-socket PATH names another)",
            path.display()
        );
        return None;
    }
    Some(path)
}

fn run_api(args: ApiArgs) -> Result<()> {
    let [hs_read, hs_write] = args.hs.listeners(&args.bind);
    exposure::check(
        &[hs_read, hs_write, args.sql.listener(&args.bind)],
        args.insecure,
    )?;
    let hs = hs::HsServer::start(args.hs.config(&args.bind, args.datanode.clone()))
        .with_context(|| format!("starting the HandlerSocket front end for {}", args.datanode))?;
    println!(
        "handlersocket: read {} write {} (data node {})",
        hs.read_address(),
        hs.write_address(),
        args.datanode
    );
    let sql = sql::SqlServer::start(args.sql.config(&args.bind, args.datanode.clone()))
        .with_context(|| format!("starting the SQL front end for {}", args.datanode))?;
    println!("sql (mysql protocol): {}", sql.address());
    if let Some(path) = sql.socket() {
        println!("sql unix socket: {}", path.display());
    }
    let stop = stop_signal()?;
    println!("ready");
    let _ = stop.recv();
    sql.stop();
    hs.stop();
    println!("stopped");
    Ok(())
}

/// The native addresses of the other data nodes of `me`'s node group.
fn group_peers(joined: &cluster_node::Joined, me: u32) -> Vec<String> {
    let role = &joined.role;
    role.group
        .iter()
        .filter(|n| **n != me)
        .filter_map(|n| role.api_addresses.get(n).cloned())
        .collect()
}

/// Whether another data node of `me`'s node group serves now (its primary in an open view, so
/// a node restart can copy from it); an error naming what to do when none does within `wait`
/// (`--copy-source-wait-s`).
fn copy_source_serves(joined: &cluster_node::Joined, me: u32, wait: Duration) -> Result<()> {
    let others = group_peers(joined, me);
    if !others.is_empty() && client::Cluster::connect_serving(&others.join(","), wait).is_ok() {
        return Ok(());
    }
    bail!(
        "data node {me} would delete its tables to copy them back from its node group (--initial), but no other node of the group serves now: its files may hold the group's only copy, so they are kept. Start the whole cluster again (cairn start runs a system restart from the node of the newest view), or this node with --system-restart if it was a member of the newest view"
    )
}

/// A restarted node copies from its group: until it has copied every partition, a thread looks
/// every second for copied rows arriving or another node of its group that serves. When none has for `wait` (its copy source
/// died too), the restart cannot finish: the node, which holds no complete copy and serves
/// nothing, says so and exits with `EXIT_NO_COPY_SOURCE`, rather than wait for good.
fn watch_copy_source(joined: &cluster_node::Joined, me: u32, wait: Duration) {
    let role = joined.role.clone();
    let others = group_peers(joined, me);
    if others.is_empty() {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("copy-source".into())
        .spawn(move || {
            let mut served = std::time::Instant::now();
            let mut batches = role.copy_batches();
            while role.restart() != datanode::replication::Restart::No {
                std::thread::sleep(Duration::from_secs(1));
                // Rows still arriving, or a node of the group that answers, say the source
                // lives (a source busy copying may be slow to take a new connection).
                let copied = std::mem::replace(&mut batches, role.copy_batches()) != batches;
                if copied
                    || client::Cluster::connect_serving(&others.join(","), Duration::from_secs(1))
                        .is_ok()
                {
                    served = std::time::Instant::now();
                } else if served.elapsed() >= wait
                    && role.restart() != datanode::replication::Restart::No
                {
                    tracing::error!(
                        seconds = wait.as_secs(),
                        "node restart cannot finish: no other node of the group serves"
                    );
                    println!(
                        "data node {me}: the node restart cannot finish: no other node of its node group ({}) has served for {} s, so there is nothing left to copy from. This node holds no complete copy and serves nothing; it stops (exit {EXIT_NO_COPY_SOURCE}) and is not started again. Start the whole cluster again (cairn start runs a system restart from the node of the newest view)",
                        others.join(", "),
                        wait.as_secs()
                    );
                    std::process::exit(EXIT_NO_COPY_SOURCE);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("could not watch the copy source: {e}");
    }
}

fn run_datanode(args: DataNodeArgs) -> Result<()> {
    let member_file = args
        .data_dir
        .as_ref()
        .map(|dir| dir.join(cluster_node::CLUSTER_MEMBER_FILE));
    // A node that was a member before (its data directory says so) comes back by a node
    // restart: from its own checkpoint and redo, brought level by its primary's copy, or with
    // --initial empty, copying every partition. A system restart starts as the first view.
    let restarted = args.mgm.is_some()
        && !args.system_restart
        && member_file.as_ref().is_some_and(|f| f.exists());
    let joined = match &args.mgm {
        Some(mgm) => Some(cluster_node::join(
            mgm,
            args.node_id,
            args.workers,
            args.fault_cut_file.clone(),
            restarted,
            args.first_epoch,
        )?),
        None => None,
    };
    let listen = joined
        .as_ref()
        .map_or_else(|| args.listen.clone(), |j| j.listen.clone());
    let native = exposure::Listener {
        what: "native protocol",
        bind: listen.clone(),
        guarded: guard().is_set(),
        how: exposure::NATIVE_HOW,
    };
    exposure::check(&[native], args.insecure)?;
    if restarted && args.initial {
        // Its files may hold its group's only copy: they are deleted only when another node of
        // the group serves, to copy from.
        if let Some(joined) = &joined {
            let wait = Duration::from_secs(args.copy_source_wait_s);
            if let Err(e) = copy_source_serves(joined, args.node_id, wait) {
                eprintln!("Error: {e:#}");
                std::process::exit(EXIT_NO_COPY_SOURCE);
            }
        }
    }
    if args.initial {
        let dir = args
            .data_dir
            .as_ref()
            .context("--initial needs --data-dir")?;
        if !args.yes {
            bail!(
                "--initial deletes every table and row stored in {}; add --yes to confirm",
                dir.display()
            );
        }
        let removed =
            datanode::recovery::wipe(dir).with_context(|| format!("wiping {}", dir.display()))?;
        println!(
            "initial start: removed {removed} files from {}",
            dir.display()
        );
    }
    if let (Some(_), Some(dir)) = (&joined, &args.data_dir) {
        if dir.join(datanode::catalog::CATALOG_FILE).exists() && !args.system_restart && !restarted
        {
            bail!(
                "{} holds tables from an earlier run, but not as a member of this cluster (it has no {} file): start it with --initial --yes to delete them and copy every partition from its group's primary, or give it another data directory",
                dir.display(),
                cluster_node::CLUSTER_MEMBER_FILE
            );
        }
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        // A node of the first view is a member of view 1 from its start; a restarted one is
        // a member of none until it has copied its partitions.
        if let Some(file) = &member_file {
            let epoch = if restarted { 0 } else { args.first_epoch };
            cluster_node::record_member(file, args.node_id, epoch)?;
        }
    }
    if args.system_restart {
        println!(
            "system restart: data node {} starts from its own checkpoint and redo",
            args.node_id
        );
    }
    if restarted && args.initial {
        println!(
            "node restart: data node {} asks the cluster to take it back; it serves once it has copied every partition from its node group's primary",
            args.node_id
        );
    } else if restarted {
        println!(
            "node restart: data node {} starts from its own checkpoint and redo, then asks the cluster to take it back; it serves once its primary's copy brought every partition level (only rows that differ are written)",
            args.node_id
        );
    }
    let mut config = DataNodeConfig {
        guard: guard(),
        listen,
        node_id: args.node_id,
        workers: joined.as_ref().map_or(args.workers, |j| j.workers),
        role: joined.as_ref().map(|j| j.role.clone()),
        lock_wait_timeout: Duration::from_millis(args.lock_wait_timeout_ms),
        worker_spin: args
            .worker_spin_us
            .map_or_else(datanode::default_worker_spin, Duration::from_micros),
        data_dir: args.data_dir.clone(),
        shm_listen: args.shm_listen.clone(),
        restore_round: args.restore_round,
        ..DataNodeConfig::default()
    };
    args.durability.apply(&mut config);
    args.timeouts.apply(&mut config);
    let node = match DataNode::start(config.clone()) {
        Ok(node) => node,
        // Its files did not load (recovery's errors; not a port in use, say): start empty.
        Err(e) if restarted && !args.initial && e.kind() == std::io::ErrorKind::Other => {
            eprintln!(
                "Error: data node {} could not restart from its own files in {}: {e}; it exits (exit {EXIT_NEEDS_INITIAL}) to start again with --initial and copy every partition from its group",
                args.node_id,
                args.data_dir.as_deref().unwrap_or(Path::new("")).display()
            );
            std::process::exit(EXIT_NEEDS_INITIAL);
        }
        Err(e) => {
            return Err(e).with_context(|| format!("starting the data node on {}", config.listen))
        }
    };
    println!(
        "data node {} listening on {} ({} worker threads)",
        args.node_id,
        node.address(),
        node.worker_count()
    );
    if let Some(name) = &args.shm_listen {
        println!("shared memory: {}{name}", transport::shm::ADDRESS_PREFIX);
    }
    if let Some(joined) = &joined {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        cluster_node::run_membership(joined, stop, node.fail_handle(), member_file.clone())?;
        if restarted {
            watch_copy_source(
                joined,
                args.node_id,
                Duration::from_secs(args.copy_source_wait_s),
            );
        }
        println!(
            "member of node group {:?} (cluster at {})",
            joined.role.group,
            args.mgm.as_deref().unwrap_or_default()
        );
    }
    println!(
        "data memory: {} MiB (--data-memory)",
        config.data_memory >> 20
    );
    let stop = stop_signal()?;
    println!("ready");
    let requested = wait_for_signal(&node, stop)?;
    let initial = node.needs_initial();
    node.stop();
    match requested {
        Some(true) if initial => {
            println!(
                "stopped on request, to be started again empty (exit {EXIT_RESTART_INITIAL}: with --initial)"
            );
            std::process::exit(EXIT_RESTART_INITIAL);
        }
        Some(true) => {
            println!("stopped on request, to be started again (exit {EXIT_RESTART})");
            std::process::exit(EXIT_RESTART);
        }
        Some(false) => println!("stopped on request"),
        None => {}
    }
    Ok(())
}

fn readperf(args: ReadperfArgs) -> Result<()> {
    if args.rows == 0 || args.range == 0 || args.iterations == 0 {
        bail!("--rows, --range and --iterations must be positive");
    }
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    if !args.json {
        eprintln!("readperf against {} (seed {seed})", args.connect);
    }
    let opts = bench::readperf::Options {
        connect: args.connect,
        rows: args.rows,
        range: args.range,
        iterations: args.iterations,
        min_time: Duration::from_millis(args.min_ms),
        seed,
        progress: !args.json,
        client_spin: Duration::from_micros(args.client_spin_us),
        echo_program: std::env::current_exe().ok(),
        server_pid: args.server_pid,
    };
    let report = bench::readperf::run(&opts).context("running readperf")?;
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.table());
    }
    Ok(())
}

fn bench_kv(args: KvArgs) -> Result<()> {
    let protocol = if args.protocol == "memcached" {
        bench::kv::Protocol::Memcached
    } else {
        bench::kv::Protocol::HandlerSocket
    };
    if args.load {
        if protocol != bench::kv::Protocol::Memcached {
            bail!("--load is for memcached; load Cairn with cairn bench load");
        }
        bench::kv::load_memcached(&args.connect, &args.prefix, args.keys, args.seed)
            .map_err(anyhow::Error::msg)
            .context("loading memcached")?;
        eprintln!("stored {} keys in memcached at {}", args.keys, args.connect);
    }
    let report = bench::kv::run(&bench::kv::Options {
        protocol,
        address: args.connect.clone(),
        keys: args.keys,
        connections: args.connections,
        depth: args.depth,
        duration: Duration::from_secs_f64(args.duration.max(0.1)),
        warmup: Duration::from_secs_f64(args.warmup.max(0.0)),
        server_pids: args.server_pids,
        seed: args.seed,
        db: args.db,
        table: args.table,
        column: args.column,
        prefix: args.prefix,
        tls_ca: args.tls_ca,
    })
    .map_err(anyhow::Error::msg)
    .context("kv benchmark")?;
    if args.json {
        println!("{}", report.json());
    } else {
        println!(
            "{} {} connections x {} in flight: {:.0} ops/s, p50 {:.0} us, p99 {:.0} us, {} errors, {} misses, server CPU {} us/op",
            args.protocol,
            args.connections,
            args.depth,
            report.ops_per_sec,
            report.p50_us,
            report.p99_us,
            report.errors,
            report.misses,
            report
                .server_cpu_us_per_op
                .map_or("-".to_string(), |v| format!("{v:.1}"))
        );
    }
    Ok(())
}

fn bench_write(args: WriteArgs) -> Result<()> {
    let seconds = |name: &str, v: f64| -> Result<Duration> {
        Duration::try_from_secs_f64(v).with_context(|| format!("--{name} {v} is not a duration"))
    };
    let workload = bench::write::Workload::parse(&args.workload)
        .with_context(|| format!("unknown workload {}", args.workload))?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    if !args.json {
        eprintln!(
            "write {} against {} (seed {seed})",
            workload.name(),
            args.connect
        );
    }
    let opts = bench::write::Options {
        connect: args.connect,
        table: args.table,
        rows: args.rows,
        threads: args.threads,
        duration: seconds("duration", args.duration)?,
        warmup: seconds("warmup", args.warmup)?,
        workload,
        seed,
        server_pids: args.server_pids,
        progress: !args.json,
    };
    let report = bench::write::run(&opts).context("running the write benchmark")?;
    if args.json {
        println!("{}", report.json());
    } else {
        print!("{}", report.table());
    }
    Ok(())
}
