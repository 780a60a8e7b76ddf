//! `cairn protocol-node` (hidden): one node of a cluster that runs the cluster protocol machines
//! (`crates/cluster`) on real processes, clock and TCP, over the protocol's integer key-value
//! model. It is the real runtime the simulator's runs are compared with, and what the
//! real-process failover test kills; the data node process does not run these machines yet.
//!
//! It prints one line per observation on stdout (`applied`, `installed`, `opened`, `violation`,
//! `saved`, `durable`; first `redo` and its file with `--redo-file`), and on SIGTERM a `final`
//! line and a `row` line per row it holds, for the test's checkers. Without `--redo-file` it
//! keeps no redo log and its fsyncs are done at once.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use cluster::config::ClusterConfig;
use cluster::{Layout, NodeId, Observation, Timing};
use datanode::cluster_host::{self, Ended, HostConfig};

#[derive(Args)]
pub struct ProtocolNodeArgs {
    /// This node's id (0: the arbitrator).
    #[arg(long)]
    id: NodeId,
    /// Every node's address: `0=HOST:PORT,1=HOST:PORT,...` (0 is the arbitrator); or --mgm.
    #[arg(long, required_unless_present = "mgm")]
    nodes: Option<String>,
    /// The management node to take the cluster's configuration from.
    #[arg(long, conflicts_with = "nodes")]
    mgm: Option<String>,
    #[arg(long, default_value_t = 2)]
    replicas: u16,
    #[arg(long, default_value_t = 4)]
    partitions_per_group: u32,
    /// Fault injection for tests: a file naming the nodes whose links to this node are cut.
    #[arg(long)]
    fault_cut_file: Option<std::path::PathBuf>,
    /// Write the node's redo log (its commits, copies and saved global checkpoints) to this
    /// file, made anew, and fsync it at every global checkpoint.
    #[arg(long)]
    redo_file: Option<std::path::PathBuf>,
    /// Restart a node of a running cluster: it joins as starting and copies its partitions.
    #[arg(long)]
    join: bool,
}

#[derive(Args)]
pub struct MgmdArgs {
    /// The cluster's configuration file (TOML: see docs/cluster-protocol.md).
    #[arg(long)]
    config: std::path::PathBuf,
    /// Listen off loopback with no cluster key (a lab network only).
    #[arg(long)]
    insecure: bool,
    /// Where the management node keeps its votes as the arbitrator (`arbitrator-votes`), so it
    /// can be started again at any time and keeps every promise it made. Without it they live
    /// in memory only, and a management node started again in the middle of a view change
    /// could vote twice in one epoch: start it again only while the data nodes' view is stable.
    #[arg(long)]
    data_dir: Option<std::path::PathBuf>,
}

/// `cairn mgmd`: reads and checks the configuration, then serves it and arbitrates.
pub fn run_mgmd(args: MgmdArgs) -> Result<()> {
    let text = read_config(&args.config)?;
    let config = ClusterConfig::parse(&text).map_err(anyhow::Error::msg)?;
    // The votes kept from earlier runs: every node of a first view is handed an epoch above
    // them with the configuration (`[run] first_epoch`), so they never answer a new run.
    let voted = match &args.data_dir {
        Some(dir) => datanode::votes::max_epoch(
            &datanode::votes::load(&datanode::votes::path_in(dir)).map_err(anyhow::Error::msg)?,
        ),
        None => 0,
    };
    let text = if voted > 0 {
        config.with_first_epoch(&text, voted.saturating_add(2))
    } else {
        text
    };
    let address = config.addresses[&cluster::ARBITRATOR].clone();
    let listener = crate::exposure::Listener {
        what: "management node",
        bind: address.clone(),
        guarded: crate::guard().is_set(),
        how: "set --cluster-key-file (without it anyone who reaches it can read the configuration and vote on the cluster's membership)",
    };
    crate::exposure::check(&[listener], args.insecure)?;
    let host = HostConfig {
        id: cluster::ARBITRATOR,
        addresses: config.addresses,
        layout: config.layout,
        timing: config.timing,
        fault_cut_file: None,
        restarted: false,
        config_text: Some(Arc::new(text)),
        guard: crate::guard(),
        redo_file: None,
        serving: None,
        copied: None,
        votes_file: args.data_dir.as_deref().map(datanode::votes::path_in),
        first_epoch: 1,
    };
    if let Some(dir) = &args.data_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed))
            .context("installing the SIGTERM handler")?;
    }
    let ended = cluster_host::run(
        host,
        stop,
        || println!("mgmd on {address} ready"),
        |_| {},
        |_| {},
    )
    .with_context(|| format!("running the management node on {address}"))?;
    if let Ended::Failed(why) = ended {
        bail!("the management node stopped: {why}");
    }
    println!("mgmd stopped");
    Ok(())
}

fn read_config(path: &std::path::Path) -> Result<String> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if meta.len() > cluster::config::CONFIG_BYTES_MAX as u64 {
        bail!(
            "{} is {} bytes; a configuration may have {}",
            path.display(),
            meta.len(),
            cluster::config::CONFIG_BYTES_MAX
        );
    }
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

pub fn run(args: ProtocolNodeArgs) -> Result<()> {
    if let Some(mgm) = &args.mgm {
        let text = cluster_host::ask_management_node(
            mgm,
            args.id,
            false,
            &crate::guard(),
            std::time::Duration::from_secs(10),
        )
        .with_context(|| format!("asking the management node at {mgm} for the configuration"))?;
        let config = ClusterConfig::parse(&text)
            .map_err(|e| anyhow::anyhow!("the management node's configuration: {e}"))?;
        if !config.addresses.contains_key(&args.id) || args.id == cluster::ARBITRATOR {
            bail!("node id {} is not a data node of this cluster", args.id);
        }
        return run_host(&args, config.addresses, config.layout, config.timing);
    }
    let mut addresses = BTreeMap::new();
    for part in args
        .nodes
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .filter(|p| !p.is_empty())
    {
        let (id, address) = part
            .split_once('=')
            .context("--nodes takes ID=HOST:PORT items")?;
        addresses.insert(
            id.trim().parse::<NodeId>().context("a node id")?,
            address.trim().to_string(),
        );
    }
    let data_nodes = addresses
        .keys()
        .filter(|id| **id != cluster::ARBITRATOR)
        .count() as u16;
    let layout = Layout::new(data_nodes, args.replicas, args.partitions_per_group)
        .map_err(anyhow::Error::msg)?;
    if !layout.data_nodes().all(|n| addresses.contains_key(&n)) {
        bail!("data nodes must be numbered 1..={data_nodes}");
    }
    run_host(&args, addresses, layout, Timing::default())
}

fn run_host(
    args: &ProtocolNodeArgs,
    addresses: BTreeMap<NodeId, String>,
    layout: Layout,
    timing: Timing,
) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::Relaxed))
            .context("installing the SIGTERM handler")?;
    }
    let config = HostConfig {
        id: args.id,
        addresses,
        layout,
        timing,
        fault_cut_file: args.fault_cut_file.clone(),
        restarted: args.join,
        config_text: None,
        guard: crate::guard(),
        redo_file: args.redo_file.clone(),
        serving: None,
        copied: None,
        votes_file: None,
        first_epoch: 1,
    };
    let id = args.id;
    if let Some(path) = &args.redo_file {
        println!("redo {}", path.display());
    }
    let mut stdout = std::io::stdout().lock();
    let ended = cluster_host::run(
        config,
        stop,
        || println!("node {id} ready"),
        |o| {
            let line = match o {
                Observation::Applied { node, applied: a } => format!(
                    "applied {node} {} {} {} {} {} {} {}",
                    a.partition, a.key, a.txn.coordinator, a.txn.seq, a.value, a.version, a.gci
                ),
                Observation::Installed { node, view } => {
                    format!(
                        "installed {node} {} {} {}",
                        view.epoch,
                        join(&view.members),
                        join(&view.starting)
                    )
                }
                Observation::Opened { node, epoch } => format!("opened {node} {epoch}"),
                Observation::Violation { node, what } => format!("violation {node} {what}"),
                Observation::Saved {
                    node,
                    gci,
                    partitions,
                } => {
                    let partitions: Vec<String> =
                        partitions.iter().map(|p| p.to_string()).collect();
                    let partitions = if partitions.is_empty() {
                        "-".to_string()
                    } else {
                        partitions.join(",")
                    };
                    format!("saved {node} {gci} {partitions}")
                }
                Observation::Durable { gci } => format!("durable {gci}"),
            };
            let _ = writeln!(stdout, "{line}");
        },
        |node| {
            if let Some(n) = node {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(
                    out,
                    "final {id} {} {} {} {} {} {}",
                    n.view().epoch,
                    join(&n.view().members),
                    join(&n.view().starting),
                    n.is_starting(),
                    n.is_ready(),
                    n.participant().prepared_count()
                );
                for (partition, rows) in n.participant().rows() {
                    for (key, v) in rows {
                        let _ = writeln!(out, "row {partition} {key} {} {}", v.value, v.version);
                    }
                }
                let _ = out.flush();
            }
        },
    )?;
    match ended {
        Ended::Stopped => Ok(()),
        Ended::Failed(reason) => {
            println!("stopped {id} {reason}");
            std::process::exit(crate::EXIT_FAILED);
        }
    }
}

/// A set of node ids as `1,2,3`, or `-` when empty.
fn join(members: &std::collections::BTreeSet<NodeId>) -> String {
    if members.is_empty() {
        return "-".into();
    }
    members
        .iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}
