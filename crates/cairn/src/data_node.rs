//! `cairn datanode`: one data node, alone or joining a cluster through its management node
//! (`--mgm`), with its restarts: node restart from its own files or empty (`--initial`), system
//! restart, and the watch on its copy source.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use datanode::{DataNode, DataNodeConfig};

use crate::flags::{DurabilityArgs, TimeoutArgs};
use crate::{cluster_node, exposure, guard, stop_signal, wait_for_signal};
use crate::{EXIT_NEEDS_INITIAL, EXIT_NO_COPY_SOURCE, EXIT_RESTART, EXIT_RESTART_INITIAL};

#[derive(Args)]
pub struct DataNodeArgs {
    /// Address to listen on for API connections. Off loopback it needs --cluster-tls or --cluster-key-file (or
    /// --insecure).
    #[arg(long, default_value = "127.0.0.1:2202")]
    listen: String,
    /// Listen off loopback with no authentication (a lab network only).
    #[arg(long)]
    insecure: bool,
    #[arg(long, default_value_t = 1)]
    pub node_id: u32,
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
    pub mgm: Option<String>,
    /// With --mgm: run the data node in this process, without its angel. By default a process
    /// of its own (the angel, as NDB's) runs the node and starts it again when it fails after
    /// it was ready (exit code 70, or killed): it comes back empty and copies every partition
    /// from its node group's primary (node restart), at most 3 times in 60 s; a node stopped
    /// with `cairn admin restart` is started again too. `cairn start` runs its data nodes
    /// with this flag, and restarts them itself.
    #[arg(long)]
    pub no_angel: bool,
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
    /// Fault injection for tests (with --mgm): `NODE:MS`, this node's replication link to data
    /// node NODE waits MS milliseconds before each write, so that node takes its commits later
    /// than the others.
    #[arg(long, hide = true, value_parser = parse_slow_link)]
    fault_slow_link: Option<(u32, u64)>,
}

fn parse_slow_link(text: &str) -> Result<(u32, u64), String> {
    let (node, ms) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?}: NODE:MS expected"))?;
    let node = node.parse().map_err(|e| format!("{node:?}: {e}"))?;
    let ms = ms.parse().map_err(|e| format!("{ms:?}: {e}"))?;
    Ok((node, ms))
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

pub fn run_datanode(args: DataNodeArgs) -> Result<()> {
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
    if let (Some(joined), Some((node, ms))) = (&joined, args.fault_slow_link) {
        joined
            .role
            .slow_link_for_tests(node, std::time::Duration::from_millis(ms));
    }
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
