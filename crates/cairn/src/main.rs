//! The `cairn` binary: command-line parsing, logging set-up and wiring of the roles. Each
//! subcommand is one role: `start` (the embedded default cluster), `datanode`, `bench`, `admin`.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

mod angel;
mod api;
mod benchmarks;
mod cluster_node;
mod data_node;
mod exposure;
mod flags;
mod protocol_node;
mod sim;
mod start;
mod start_cluster;

use anyhow::{bail, Context, Result};
use api::{run_api, ApiArgs};
use benchmarks::{bench_kv, bench_write, readperf, BenchCommand};
use clap::{Parser, Subcommand};
use data_node::{run_datanode, DataNodeArgs};
use datanode::DataNode;
use start::{start, StartArgs};

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

#[derive(Subcommand)]
enum AdminCommand {
    /// Shows a data node's status: workers, tables, rows, resident memory; and, when a
    /// management node answers at --mgm, the cluster's node groups, each node's state and role.
    Status {
        /// The data node(s) to ask (default: those of the cluster the management node at
        /// --mgm runs, else `cairn start`'s one data node, 127.0.0.1:2202).
        #[arg(long)]
        connect: Option<String>,
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
            let connect = connect
                .or_else(|| cluster_node::data_node_addresses(&mgm))
                .unwrap_or_else(|| "127.0.0.1:2202".into());
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
