//! `cairn start`: a whole cluster on this machine with no configuration. With one data node
//! (the default) it runs in this process with the HandlerSocket and SQL front ends; with more,
//! or more replicas, `start_cluster` runs each node as a process of its own.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use datanode::{DataNode, DataNodeConfig};

use crate::flags::{DurabilityArgs, HsArgs, SqlArgs, TimeoutArgs};
use crate::{exposure, guard, start_cluster, stop_signal, wait_for_signal, EXIT_RESTART};

#[derive(Args)]
pub struct StartArgs {
    /// Directory for the cluster's data.
    #[arg(long, default_value = "./cairn-data")]
    pub data_dir: PathBuf,
    /// First port of the block the cluster listens on; the data node takes base + 2.
    #[arg(long, default_value_t = 2200)]
    pub base_port: u16,
    /// Port of the data node's native protocol listener (default: base port + 2).
    #[arg(long)]
    datanode_port: Option<u16>,
    /// Address the listeners bind to. Off loopback, every listener must have its credentials
    /// set: HandlerSocket secrets, the SQL root password, and --cluster-tls or --cluster-key-file for the native
    /// protocol (or --insecure).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// Listen off loopback even where no credentials guard a listener (a lab network only;
    /// every open listener is named in a warning).
    #[arg(long)]
    insecure: bool,
    /// Worker threads of the data node (0: cores - 1, at least 1).
    #[arg(long, default_value_t = 0)]
    pub workers: usize,
    /// Microseconds a worker polls for work before sleeping (0: sleep at once; default 50 on
    /// 4 or more cores, else 0: spinning on 2 cores takes the CPU other threads need).
    #[arg(long)]
    pub worker_spin_us: Option<u64>,
    /// How the HandlerSocket and SQL front ends reach the data node in this process: shm
    /// (shared-memory rings, NDB's SHM transporter) or tcp (loopback, as a remote API node does).
    #[arg(long, default_value = "shm", value_parser = ["shm", "tcp"])]
    api_transport: String,
    #[command(flatten)]
    pub durability: DurabilityArgs,
    #[command(flatten)]
    pub timeouts: TimeoutArgs,
    #[command(flatten)]
    pub hs: HsArgs,
    #[command(flatten)]
    pub sql: SqlArgs,
    /// Data nodes, each a process of its own beside a management node (1: one data node in
    /// this process). With more, their native ports follow the first (base port + 2, + 3...),
    /// the management node takes base port + 100, and their data goes in DIR/node1, node2...
    #[arg(long, default_value_t = 1)]
    pub data_nodes: u16,
    /// Copies of every row, one per data node of a node group (1 to 4); a commit is on every
    /// replica before it is acknowledged.
    #[arg(long, default_value_t = 1)]
    pub replicas: u16,
}

pub fn start(args: StartArgs) -> Result<()> {
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
