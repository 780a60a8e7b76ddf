//! `cairn start --data-nodes N --replicas R`: a cluster on this machine, each node a process of
//! its own: a management node (`cairn mgmd`) and N data nodes (`cairn datanode --mgm`), with the
//! front ends in this process over every data node's address. It writes the cluster's
//! configuration into the data directory, starts the nodes with their output in
//! `DIR/logs/`, prints every node and `ready` once each answers, starts a data node that exits
//! again (a node restart: it copies its partitions from its group's primary), at most
//! `angel::RESTARTS_MAX` times in `angel::RESTART_WINDOW`, as NDB's angel process does, and
//! stops them all on Ctrl-C or SIGTERM.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::StartArgs;

/// How long every node has to come up.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the data nodes of a system restart have to copy from the node that starts from
/// its disk.
const COPY_TIMEOUT: Duration = Duration::from_secs(600);
/// How long the nodes have to stop after SIGTERM before they are killed.
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// The ports of a cluster started from `base`: the first data node's native protocol keeps the
/// one-node default (base + 2), the others follow it; the management node and the membership
/// links sit 100 above.
struct Ports {
    base: u16,
}

impl Ports {
    fn api(&self, node: u16) -> Result<u16> {
        self.base
            .checked_add(1 + node)
            .context("--base-port too high for this many data nodes")
    }
    fn mgmd(&self) -> Result<u16> {
        self.base.checked_add(100).context("--base-port too high")
    }
    fn membership(&self, node: u16) -> Result<u16> {
        self.base
            .checked_add(100 + node)
            .context("--base-port too high for this many data nodes")
    }
}

struct Process {
    name: String,
    child: Child,
    exited: bool,
    /// How it was started (`cairn ARGS`, its log's name): a data node's, to start it again.
    args: Vec<String>,
    log: String,
    data_node: bool,
    /// Its restarts after failures, recent ones.
    restarts: crate::angel::Restarts,
}

/// Starts the cluster, serves until a signal, and stops it.
pub fn run(args: StartArgs) -> Result<()> {
    let (data_nodes, replicas) = (args.data_nodes, args.replicas);
    cluster::Layout::new(data_nodes, replicas, 1).map_err(anyhow::Error::msg)?;
    let groups = data_nodes / replicas;
    if args.bind != "127.0.0.1" {
        bail!("a cluster started by cairn start listens on 127.0.0.1 only (nodes on other hosts start with cairn datanode --mgm)");
    }
    let dir = &args.data_dir;
    std::fs::create_dir_all(dir.join("logs"))
        .with_context(|| format!("creating {}", dir.display()))?;
    // A system restart: the data directory holds a cluster's tables from an earlier run. The
    // node that was a member of the newest view holds every acknowledged commit (commit
    // durability: each replica synced it before the client heard); it starts from its disk,
    // and the others copy from it (node restart).
    let holds_tables = |node: u16| {
        dir.join(format!("node{node}"))
            .join(datanode::catalog::CATALOG_FILE)
            .exists()
    };
    // Per node group, the node of the newest view: each group's rows are its own.
    let sources: Vec<u16> = (0..groups)
        .filter_map(|g| {
            (g * replicas + 1..=(g + 1) * replicas)
                .filter(|n| holds_tables(*n))
                .max_by_key(|n| {
                    (
                        crate::cluster_node::member_epoch(&dir.join(format!("node{n}"))),
                        std::cmp::Reverse(*n),
                    )
                })
        })
        .collect();
    if !sources.is_empty() && sources.len() != usize::from(groups) {
        bail!(
            "{} holds tables for {} of its {groups} node groups: a node group's data is lost (its data directories hold no catalog), so it cannot start again as a whole",
            dir.display(),
            sources.len()
        );
    }
    // In `interval` durability every node group comes back to one global checkpoint round of
    // the cluster, from a node that saved it.
    let (sources, restore_round) = if !sources.is_empty()
        && args.durability.durability == "interval"
    {
        match restore_point(dir, groups, replicas)? {
            Some((round, chosen)) => (chosen, Some(round)),
            None => {
                println!("system restart: no global checkpoint round of the cluster completed in the last run; each node group restarts from its own node's cut");
                (sources, None)
            }
        }
    } else {
        (sources, None)
    };
    let ports = Ports {
        base: args.base_port,
    };
    let mgm = format!("127.0.0.1:{}", ports.mgmd()?);
    let mut config = format!(
        "# Written by cairn start --data-nodes {data_nodes} --replicas {replicas}.\n[cluster]\nreplicas = {replicas}\nworkers = {}\n\n[mgmd]\naddress = \"{mgm}\"\n",
        datanode::resolve_workers(args.workers)
    );
    let mut apis = Vec::new();
    for node in 1..=data_nodes {
        let api = format!("127.0.0.1:{}", ports.api(node)?);
        config.push_str(&format!(
            "\n[[datanode]]\naddress = \"127.0.0.1:{}\"\napi = \"{api}\"\n",
            ports.membership(node)?
        ));
        apis.push(api);
    }
    let config_path = dir.join("cluster.toml");
    if !sources.is_empty() {
        let before = std::fs::read_to_string(&config_path).unwrap_or_default();
        if before != config {
            bail!(
                "{} holds a cluster started with other settings (see {}): start it with the same --data-nodes, --replicas, --workers and --base-port, or use another --data-dir",
                dir.display(),
                config_path.display()
            );
        }
    }
    std::fs::write(&config_path, &config)
        .with_context(|| format!("writing {}", config_path.display()))?;
    for node in &sources {
        match restore_round {
            Some(round) => println!(
                "system restart: data node {node} saved global checkpoint round {round}, the newest every node saved; it starts from its own disk at that round, and the others of its group copy from it"
            ),
            None => println!(
                "system restart: data node {node} was a member of the newest view of its node group; it starts from its own disk, and the others of its group copy from it"
            ),
        }
    }

    let mut processes = Vec::new();
    let started = start_nodes(
        &args,
        dir,
        &config_path,
        &mgm,
        (data_nodes, replicas),
        (&sources, restore_round),
        &mut processes,
    );
    if let Err(e) = started {
        stop(&mut processes);
        return Err(e);
    }
    let addresses = apis.join(",");
    let hs = hs::HsServer::start(args.hs.config(&args.bind, addresses.clone()));
    let hs = match hs {
        Ok(hs) => hs,
        Err(e) => {
            stop(&mut processes);
            return Err(e).context("starting the HandlerSocket listeners (move them with --hs-read-port and --hs-write-port)");
        }
    };
    let sql = match sql::SqlServer::start(args.sql.config_in(
        &args.bind,
        addresses.clone(),
        &args.data_dir,
    )) {
        Ok(sql) => sql,
        Err(e) => {
            hs.stop();
            stop(&mut processes);
            return Err(e)
                .context("starting the SQL listener (move it with --sql-port or --sql-socket)");
        }
    };
    println!(
        "cairn {}: a cluster of {data_nodes} data nodes in {groups} node group(s) of {replicas} replicas, data directory {}",
        env!("CARGO_PKG_VERSION"),
        dir.display()
    );
    println!(
        "management node: {mgm} (configuration {}), pid {}",
        config_path.display(),
        processes[0].child.id()
    );
    for (i, api) in apis.iter().enumerate() {
        println!(
            "data node {} (native protocol): {api}, node group {}, pid {}",
            i + 1,
            i / usize::from(replicas) + 1,
            processes[i + 1].child.id()
        );
    }
    println!(
        "handlersocket: read {} write {}",
        hs.read_address(),
        hs.write_address()
    );
    println!("sql (mysql protocol): {}", sql.address());
    if let Some(path) = sql.socket() {
        println!("sql unix socket: {}", path.display());
    }
    println!("durability: {} (on every replica)", args.durability.mode());
    println!("logs: {}", dir.join("logs").display());
    let signal = crate::stop_signal()?;
    println!("ready");
    loop {
        match signal.recv_timeout(Duration::from_millis(200)) {
            Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        for p in processes.iter_mut().filter(|p| !p.exited) {
            if let Ok(Some(status)) = p.child.try_wait() {
                p.exited = true;
                restart(p, dir, &status);
            }
        }
    }
    println!("stopping");
    sql.stop();
    hs.stop();
    stop(&mut processes);
    println!("stopped");
    Ok(())
}

/// A node exited: a data node is started again (node restart) as `angel::Restarts` decides;
/// so is the management node, which keeps its votes as the arbitrator on disk and takes its
/// part in the membership again as it was.
fn restart(p: &mut Process, dir: &Path, status: &std::process::ExitStatus) {
    use crate::angel::{Verdict, RESTARTS_MAX, RESTART_WINDOW};
    if !p.data_node {
        if status.success() || !matches!(p.restarts.on_exit(status), Verdict::Restart { .. }) {
            println!(
                "{} exited ({status}); not started again, the cluster goes on without it",
                p.name
            );
            return;
        }
        match spawn(&p.name, dir, &p.log, &p.args) {
            Ok(mut started) => {
                started.restarts = std::mem::take(&mut p.restarts);
                println!(
                    "{} exited ({status}); restarted, pid {}, with the votes it kept",
                    p.name,
                    started.child.id()
                );
                *p = started;
            }
            Err(e) => println!(
                "{} exited ({status}) and could not be started again: {e:#}; the cluster goes on without it",
                p.name
            ),
        }
        return;
    }
    let initial = match p.restarts.on_exit(status) {
        // Stopped on request (`cairn admin stop`, or SIGTERM): it stays stopped.
        Verdict::Stopped => {
            println!(
                "{} stopped ({status}); not started again, the cluster goes on without it",
                p.name
            );
            return;
        }
        Verdict::NoCopySource => {
            println!(
                "{} exited ({status}): its node restart cannot finish while no other node of its group serves, so it is not started again. Stop the cluster and start it again (a system restart); see {}",
                p.name,
                dir.join("logs").join(format!("{}.log", p.log)).display()
            );
            return;
        }
        Verdict::GiveUp => {
            println!(
                "{} exited ({status}), its {} restart in {} s: it is not started again; the cluster goes on without it (see {})",
                p.name,
                RESTARTS_MAX + 1,
                RESTART_WINDOW.as_secs(),
                dir.join("logs").join(format!("{}.log", p.log)).display()
            );
            return;
        }
        Verdict::Restart { initial, .. } => initial,
    };
    // A node restart: from its own files, which its group's primary brings level, or empty
    // when they could not be used.
    let args = crate::angel::restart_args(&p.args, initial);
    match spawn(&p.name, dir, &p.log, &args) {
        Ok(mut started) => {
            started.restarts = std::mem::take(&mut p.restarts);
            println!(
                "{} exited ({status}); restarted {}, pid {}: its node group's primary brings it level, then it serves as a backup",
                p.name,
                if initial {
                    "empty (--initial)"
                } else {
                    "from its own files"
                },
                started.child.id()
            );
            *p = started;
        }
        Err(e) => println!(
            "{} exited ({status}) and could not be started again: {e:#}; the cluster goes on without it",
            p.name
        ),
    }
}

/// In `interval` durability: the global checkpoint round a system restart restores (the
/// newest any node's `gcp` file records as complete: every node saved it before any recorded
/// that), and per node group the node that starts from its disk at that round: one that saved
/// it, of the newest view among those. None when no round completed.
fn restore_point(dir: &Path, groups: u16, replicas: u16) -> Result<Option<(u64, Vec<u16>)>> {
    let node_dir = |n: u16| dir.join(format!("node{n}"));
    let mut cuts = BTreeMap::new();
    for n in 1..=groups * replicas {
        if let Some(cut) = datanode::gcp::Cut::load(&node_dir(n)).map_err(anyhow::Error::msg)? {
            cuts.insert(n, cut);
        }
    }
    let round = cuts.values().map(|c| c.complete).max().unwrap_or(0);
    if round == 0 {
        return Ok(None);
    }
    let mut chosen = Vec::new();
    for g in 0..groups {
        let source = (g * replicas + 1..=(g + 1) * replicas)
            .filter(|n| {
                node_dir(*n).join(datanode::catalog::CATALOG_FILE).exists()
                    && cuts.get(n).is_some_and(|c| c.round_cut(round).is_some())
            })
            .max_by_key(|n| {
                (
                    crate::cluster_node::member_epoch(&node_dir(*n)),
                    std::cmp::Reverse(*n),
                )
            });
        match source {
            Some(n) => chosen.push(n),
            None => bail!(
                "no data node of node group {} saved global checkpoint round {round}, the newest the cluster completed: the group cannot come back to it (its nodes' gcp files: {})",
                g + 1,
                (g * replicas + 1..=(g + 1) * replicas)
                    .map(|n| format!("node {n}: {:?}", cuts.get(&n).map(|c| &c.rounds)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    Ok(Some((round, chosen)))
}

/// Starts the management node and the data nodes, and waits until each answers and every
/// node group serves. In a system restart (`sources`: each group's node of the newest view),
/// those start first from their disks and the others after they serve, from their own files
/// too, brought level by their group's source (node restart).
fn start_nodes(
    args: &StartArgs,
    dir: &Path,
    config_path: &Path,
    mgm: &str,
    (data_nodes, replicas): (u16, u16),
    (sources, restore_round): (&[u16], Option<u64>),
    processes: &mut Vec<Process>,
) -> Result<()> {
    // The first view's epoch: above every epoch the management node kept votes for (read
    // here first, so a damaged votes file is named at once) and every epoch a node of an
    // earlier run recorded. The management node saves each vote before answering and keeps
    // the highest epoch's, so a first proposal (the first view's epoch + 1) above them all
    // meets none of them.
    let recorded = (1..=data_nodes)
        .map(|n| crate::cluster_node::member_epoch(&dir.join(format!("node{n}"))))
        .max()
        .unwrap_or(0);
    let voted = datanode::votes::max_epoch(
        &datanode::votes::load(&datanode::votes::path_in(&dir.join("mgmd")))
            .map_err(anyhow::Error::msg)?,
    );
    // (A new cluster, with nothing recorded or voted, begins at view 1.)
    let first_epoch = match recorded.max(voted) {
        0 => 1,
        newest => newest
            .checked_add(2)
            .context("the epochs recorded in the data directory are out of range")?,
    };
    let config = config_path.to_string_lossy().into_owned();
    // Its votes as the arbitrator are kept in its own directory: it may be started again at
    // any time (`restart`).
    let votes = dir.join("mgmd").to_string_lossy().into_owned();
    processes.push(spawn(
        "management node",
        dir,
        "mgmd",
        &[
            "mgmd".into(),
            "--config".into(),
            config,
            "--data-dir".into(),
            votes,
        ],
    )?);
    let deadline = Instant::now() + START_TIMEOUT;
    wait_until(deadline, "the management node", || {
        datanode::cluster_host::ask_management_node(
            mgm,
            cluster::ARBITRATOR,
            true,
            &crate::guard(),
            Duration::from_millis(500),
        )
        .is_ok()
    })?;
    let ports = Ports {
        base: args.base_port,
    };
    let mut apis = Vec::new();
    for node in 1..=data_nodes {
        apis.push(format!("127.0.0.1:{}", ports.api(node)?));
    }

    // Data nodes in id order, the system restart's sources first.
    let mut order: Vec<u16> = (1..=data_nodes).collect();
    order.sort_by_key(|n| !sources.contains(n));
    let mut waited = false;
    for node in order {
        if !sources.is_empty() && !sources.contains(&node) && !waited {
            // Every source serves before the others copy from them.
            for source in sources {
                let api = &apis[usize::from(*source) - 1];
                wait_until(
                    deadline,
                    &format!("data node {source} (from its disk)"),
                    || client::Cluster::connect_serving(api, Duration::from_millis(500)).is_ok(),
                )?;
            }
            waited = true;
        }
        let node_dir = dir.join(format!("node{node}"));
        let mut command: Vec<String> = vec![
            "datanode".into(),
            "--mgm".into(),
            mgm.into(),
            "--node-id".into(),
            node.to_string(),
            "--data-dir".into(),
            node_dir.to_string_lossy().into_owned(),
            // This process restarts its data nodes itself.
            "--no-angel".into(),
        ];
        // The others restart from their own files too (a node restart), and their group's
        // source brings them level: only rows that differ are written.
        if sources.contains(&node) {
            command.push("--system-restart".into());
            if let Some(round) = restore_round {
                command.extend(["--restore-round".into(), round.to_string()]);
            }
        }
        if sources.is_empty() || sources.contains(&node) {
            // A member of the first view.
            command.extend(["--first-epoch".into(), first_epoch.to_string()]);
        }
        command.extend(node_flags(args));
        processes.push(spawn(
            &format!("data node {node}"),
            dir,
            &format!("datanode-{node}"),
            &command,
        )?);
    }
    // Printed and looked up by node id.
    processes[1..].sort_by_key(|p| (p.name.len(), p.name.clone()));
    if !sources.is_empty() {
        // Ready once every data node copied from its group's source and is a member: the
        // cluster serves with every replica again.
        println!("system restart: the other data nodes copy from data nodes {sources:?}");
        let mut epoch = 0;
        wait_until(
            Instant::now() + COPY_TIMEOUT,
            "every data node as a member",
            || {
                crate::cluster_node::all_members(mgm, first_epoch)
                    .map(|e| epoch = e)
                    .is_some()
            },
        )?;
        // And in that view: a node takes it in a moment after the management node agreed it,
        // and refuses requests (a temporary error) until it opened it (below: serving).
        for (i, api) in apis.iter().enumerate() {
            wait_until(
                deadline,
                &format!("data node {} in view {epoch}", i + 1),
                || {
                    client::Cluster::connect_timeout(api, Duration::from_millis(500))
                        .and_then(|c| c.status())
                        .is_ok_and(|s| s.view_epoch >= epoch)
                },
            )?;
        }
    }
    for (i, api) in apis.iter().enumerate() {
        wait_until(deadline, &format!("data node {}", i + 1), || {
            client::Cluster::connect_timeout(api, Duration::from_millis(500)).is_ok()
        })?;
    }
    // Ready means every node group serves: its primary answers as one.
    for (g, group) in apis.chunks(usize::from(replicas.max(1))).enumerate() {
        wait_until(
            deadline,
            &format!("a serving data node of node group {}", g + 1),
            || {
                client::Cluster::connect_serving(&group.join(","), Duration::from_millis(500))
                    .and_then(|c| c.ping(Vec::new()))
                    .is_ok()
            },
        )?;
    }
    for p in processes.iter_mut() {
        if let Ok(Some(status)) = p.child.try_wait() {
            bail!("{} exited at start ({status}); see its log", p.name);
        }
    }
    Ok(())
}

/// The flags of `cairn start` a data node takes too.
fn node_flags(args: &StartArgs) -> Vec<String> {
    let d = &args.durability;
    let t = &args.timeouts;
    let mut flags = vec![
        format!("--durability={}", d.durability),
        format!("--durability-interval-ms={}", d.durability_interval_ms),
        format!("--redo-segment-kib={}", d.redo_segment_kib),
        format!("--checkpoint-redo-kib={}", d.checkpoint_redo_kib),
        format!(
            "--transaction-inactive-timeout-ms={}",
            t.transaction_inactive_timeout_ms
        ),
        format!("--transactions-max={}", t.transactions_max),
        format!(
            "--transaction-operations-max={}",
            t.transaction_operations_max
        ),
        format!("--worker-queue-max={}", t.worker_queue_max),
        format!("--frame-timeout-ms={}", t.frame_timeout_ms),
        format!("--copy-rows-per-s={}", t.copy_rows_per_s),
    ];
    if d.fault_power_cut {
        flags.push("--fault-power-cut".into());
    }
    // The nodes share this machine's memory: by default each takes its share of what one
    // node alone would.
    let bytes = t.data_memory.unwrap_or(
        datanode::DataNodeConfig::default().data_memory / u64::from(args.data_nodes.max(1)),
    );
    flags.push(format!("--data-memory={bytes}"));
    if let Some(us) = args.worker_spin_us {
        flags.push(format!("--worker-spin-us={us}"));
    }
    flags
}

/// Starts `cairn ARGS` with its output appended to `DIR/logs/LOG.log`; it gets SIGTERM if this
/// process dies first, so no node outlives the command that started it.
fn spawn(name: &str, dir: &Path, log: &str, args: &[String]) -> Result<Process> {
    let path: PathBuf = dir.join("logs").join(format!("{log}.log"));
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    let err = out.try_clone()?;
    let exe = std::env::current_exe().context("finding the cairn binary")?;
    let mut command = Command::new(exe);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    if let Some(key) = crate::cluster_key_file() {
        command.env("CAIRN_CLUSTER_KEY_FILE", key);
    }
    if let Some(dir) = crate::cluster_tls_dir() {
        command.env("CAIRN_CLUSTER_TLS", dir);
    }
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command
        .spawn()
        .with_context(|| format!("starting the {name}"))?;
    Ok(Process {
        name: name.to_string(),
        child,
        exited: false,
        args: args.to_vec(),
        log: log.to_string(),
        data_node: args.first().is_some_and(|a| a == "datanode"),
        restarts: Default::default(),
    })
}

fn wait_until(deadline: Instant, what: &str, mut ready: impl FnMut() -> bool) -> Result<()> {
    let began = Instant::now();
    loop {
        if ready() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            bail!("{what} did not come up within {:?}", began.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM to every node still running, then SIGKILL to any that has not exited in time.
fn stop(processes: &mut [Process]) {
    for p in processes.iter_mut().rev() {
        if matches!(p.child.try_wait(), Ok(None)) {
            // SAFETY: kill(2) on a child's pid this process still holds (not yet reaped).
            unsafe {
                libc::kill(p.child.id() as libc::pid_t, libc::SIGTERM);
            }
        }
    }
    let deadline = Instant::now() + STOP_TIMEOUT;
    for p in processes.iter_mut() {
        loop {
            match p.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
}
