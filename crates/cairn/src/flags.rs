//! The flag groups the serving roles share (`cairn start`, `datanode`, `api`): a data node's
//! limits and timeouts, its durability, and the HandlerSocket and SQL front ends' listeners
//! and settings.

use std::time::Duration;

use clap::Args;
use datanode::DataNodeConfig;

use crate::exposure;

/// A data node's limits: memory, and time on what its clients leave hanging.
#[derive(Args, Clone)]
pub struct TimeoutArgs {
    /// The most the node's rows and indexes may hold (NDB's DataMemory), in bytes or with a
    /// K, M or G suffix; a write past it fails with "table is full". Default: half the
    /// machine's memory.
    #[arg(long, value_parser = parse_size)]
    pub data_memory: Option<u64>,
    /// Milliseconds a transaction holding locks or changes may wait for its client's next
    /// request before it is rolled back and its locks freed (NDB's TransactionInactiveTimeout;
    /// 0: never).
    #[arg(long, default_value_t = datanode::TRANSACTION_INACTIVE_TIMEOUT_DEFAULT.as_millis() as u64)]
    pub transaction_inactive_timeout_ms: u64,
    /// Transactions open on the data node at once (NDB's MaxNoOfConcurrentTransactions); one
    /// more is refused with a temporary error.
    #[arg(long, default_value_t = datanode::TRANSACTIONS_MAX_DEFAULT)]
    pub transactions_max: usize,
    /// Operations one transaction may carry; past it, it is rolled back.
    #[arg(long, default_value_t = datanode::TRANSACTION_OPERATIONS_MAX_DEFAULT)]
    pub transaction_operations_max: usize,
    /// Messages a worker's queue may hold before the data node refuses new requests with a
    /// temporary error (what is already running goes on).
    #[arg(long, default_value_t = datanode::WORKER_QUEUE_MAX_DEFAULT)]
    pub worker_queue_max: usize,
    /// Milliseconds a native connection may hold part of a frame before it is closed.
    #[arg(long, default_value_t = datanode::FRAME_TIMEOUT_DEFAULT.as_millis() as u64)]
    pub frame_timeout_ms: u64,
    /// The most rows per second a data node copies to a starting node of its group (node
    /// restart); 0: as fast as it can. Lower leaves more of the machine to the load while the
    /// restart runs, which then takes longer (docs/benchmarks.md).
    #[arg(long, default_value_t = 0)]
    pub copy_rows_per_s: u64,
}

impl TimeoutArgs {
    pub fn apply(&self, config: &mut DataNodeConfig) {
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
pub struct HsArgs {
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
pub struct SqlArgs {
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
    pub fn listener(&self, bind: &str) -> exposure::Listener {
        exposure::Listener {
            what: "SQL",
            bind: format!("{bind}:{}", self.sql_port),
            guarded: !self.sql_root_password.is_empty(),
            how: exposure::SQL_HOW,
        }
    }

    /// The SQL front end's settings for `cairn start`, whose socket file is in its data
    /// directory unless --sql-socket names another (or none).
    pub fn config_in(
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

    pub fn config(&self, bind: &str, datanode: String) -> sql::SqlConfig {
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
    pub fn listeners(&self, bind: &str) -> [exposure::Listener; 2] {
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

    pub fn config(&self, bind: &str, datanode: String) -> hs::HsConfig {
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

#[derive(Args, Clone)]
pub struct DurabilityArgs {
    /// When commits reach the disk: commit (before each acknowledgement), interval (every
    /// --durability-interval-ms) or none (memory only).
    #[arg(long, default_value = "commit", value_parser = ["commit", "interval", "none"])]
    pub durability: String,
    /// Milliseconds between global checkpoints in interval mode (a crash loses about this much).
    #[arg(long, default_value_t = 2000)]
    pub durability_interval_ms: u64,
    /// Size of each redo segment file, in KiB (64 to 1048576).
    #[arg(long, default_value_t = 65536)]
    pub redo_segment_kib: u64,
    /// A local checkpoint starts after this many KiB of redo (0: never on its own).
    #[arg(long, default_value_t = 262144)]
    pub checkpoint_redo_kib: u64,
    /// Fault injection for tests: a worker panics after this many data messages.
    #[arg(long, hide = true)]
    fault_worker_panic_after: Option<u64>,
    /// Fault injection for tests: the redo logs keep every write in memory until its fsync, so
    /// a SIGKILL loses what a power cut would.
    #[arg(long, hide = true)]
    pub fault_power_cut: bool,
}

impl DurabilityArgs {
    pub fn mode(&self) -> datanode::Durability {
        match self.durability.as_str() {
            "none" => datanode::Durability::None,
            "interval" => datanode::Durability::Interval(Duration::from_millis(
                self.durability_interval_ms.max(1),
            )),
            _ => datanode::Durability::Commit,
        }
    }

    /// Applies the redo and checkpoint settings to a data node's configuration.
    pub fn apply(&self, config: &mut DataNodeConfig) {
        config.durability = self.mode();
        config.redo_segment_bytes = self.redo_segment_kib.saturating_mul(1024);
        config.checkpoint_redo_bytes = self.checkpoint_redo_kib.saturating_mul(1024);
        config.fault_worker_panic_after = self.fault_worker_panic_after;
        if self.fault_power_cut {
            config.redo_faults = Some(std::sync::Arc::new(datanode::RedoFaults::power_cut()));
        }
    }

    pub fn describe_checkpoints(&self) -> String {
        match (self.durability.as_str(), self.checkpoint_redo_kib) {
            ("none", _) => "none (no redo log)".into(),
            (_, 0) => "only when asked".into(),
            (_, kib) => format!("local, every {} MiB of redo", kib as f64 / 1024.0),
        }
    }
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
