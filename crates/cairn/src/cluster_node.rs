//! `cairn datanode --mgm ADDR --node-id K`: a data node of a cluster. It takes the cluster's
//! configuration from the management node, listens on the native address the configuration
//! gives it, runs the membership protocol (`datanode::cluster_host`: heartbeats, view agreement
//! with the arbitrator) on a thread of its own, and tells its data node every view it is in
//! (`datanode::replication::Role`). When the membership stops the node (it lost its place in
//! the cluster), the data node fails and the process exits (70), as any fail-stop does.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use cluster::config::ClusterConfig;
use cluster::{NodeId, Observation};
use datanode::cluster_host::{self, Ended, HostConfig};
use datanode::replication::Role;

/// The file in a data node's directory that says it was a member of a cluster, and of which
/// view last ("node K epoch E"): started again with --initial, the node rejoins the running
/// cluster (node restart) instead of starting one; when the whole cluster starts again, the
/// node of the newest view holds every acknowledged commit (a system restart starts from it).
pub const CLUSTER_MEMBER_FILE: &str = "cluster-member";

/// Writes the member file durably: node `node` was a member of view `epoch` (0: none yet).
pub fn record_member(file: &std::path::Path, node: u32, epoch: u64) -> Result<()> {
    use std::io::Write;
    let tmp = file.with_extension("tmp");
    let mut f =
        std::fs::File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    f.write_all(format!("node {node} epoch {epoch}\n").as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, file).with_context(|| format!("writing {}", file.display()))?;
    if let Some(dir) = file.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// The newest view a data node's directory says it was a member of (0: none, or no file).
pub fn member_epoch(dir: &std::path::Path) -> u64 {
    std::fs::read_to_string(dir.join(CLUSTER_MEMBER_FILE))
        .ok()
        .and_then(|t| {
            let mut words = t.split_whitespace();
            while let Some(w) = words.next() {
                if w == "epoch" {
                    return words.next()?.parse().ok();
                }
            }
            None
        })
        .unwrap_or(0)
}

/// What a data node joining a cluster learned from the management node.
pub struct Joined {
    pub role: Arc<Role>,
    /// Its native-protocol address.
    pub listen: String,
    pub workers: usize,
    host: HostConfig,
}

/// Asks the management node at `mgm` for the configuration and finds node `id` in it.
/// With `restarted`, the node comes back to a running cluster (node restart): it is in no view,
/// asks to be taken back, and copies every partition from its group's primary before it is a
/// member (`datanode::copy`).
pub fn join(
    mgm: &str,
    id: u32,
    workers: usize,
    fault_cut_file: Option<std::path::PathBuf>,
    restarted: bool,
    first_epoch: u64,
) -> Result<Joined> {
    let node = NodeId::try_from(id)
        .ok()
        .filter(|n| *n != cluster::ARBITRATOR);
    let Some(node) = node else {
        bail!("--node-id {id} is not a data node id (1..)");
    };
    let guard = crate::guard();
    let config = config_of(mgm, node, Duration::from_secs(10))?;
    // Never below what the management node hands out: above the votes it kept.
    let first_epoch = first_epoch.max(config.first_epoch);
    if !config.addresses.contains_key(&node) {
        bail!("node id {id} is not a data node of this cluster");
    }
    let Some(listen) = config.api_addresses.get(&node).cloned() else {
        bail!("data node {id} has no api address in the cluster's configuration (api = \"HOST:PORT\" in its [[datanode]] entry)");
    };
    let groups: Vec<Vec<u32>> = config
        .layout
        .groups()
        .iter()
        .map(|g| g.iter().map(|n| u32::from(*n)).collect())
        .collect();
    let api_addresses: BTreeMap<u32, String> = config
        .api_addresses
        .iter()
        .map(|(n, a)| (u32::from(*n), a.clone()))
        .collect();
    if let Some(missing) = groups
        .iter()
        .flatten()
        .find(|n| !api_addresses.contains_key(n))
    {
        bail!(
            "data node {missing} needs an api address in the configuration (every data node does)"
        );
    }
    let workers = datanode::resolve_workers(config.workers.map_or(workers, |w| w as usize));
    let role = Role::new(id, groups, api_addresses, guard.clone(), workers as u32);
    if restarted {
        role.begin_restart();
    } else {
        // The first view (1, or a system restart's `first_epoch`) is the configuration's:
        // every data node a member, open at once (as the membership starts it).
        role.install(
            first_epoch,
            config.layout.data_nodes().map(u32::from).collect(),
            BTreeSet::new(),
        );
        role.open(first_epoch);
    }
    let host = HostConfig {
        id: node,
        addresses: config.addresses,
        layout: config.layout,
        timing: config.timing,
        fault_cut_file,
        restarted,
        config_text: None,
        guard,
        redo_file: None,
        serving: Some(role.lease()),
        copied: Some(role.copied_flag()),
        votes_file: None,
        first_epoch,
    };
    Ok(Joined {
        role,
        listen,
        workers,
        host,
    })
}

/// Runs the node's membership on a thread: each view it installs and opens goes to the role;
/// when the protocol stops the node, `fail` is called with the reason.
pub fn run_membership(
    joined: &Joined,
    stop: Arc<AtomicBool>,
    fail: impl Fn(String) + Send + 'static,
    member_file: Option<std::path::PathBuf>,
) -> Result<()> {
    let (host, role) = (joined.host.clone(), joined.role.clone());
    let me = host.id;
    std::thread::Builder::new()
        .name("cluster-membership".into())
        .spawn(move || {
            let fail = Arc::new(fail);
            let fail_here = fail.clone();
            let ended = cluster_host::run(
                host,
                stop,
                || {},
                |o| match o {
                    Observation::Installed { node, view } if *node == me => {
                        let members: BTreeSet<u32> =
                            view.members.iter().map(|n| u32::from(*n)).collect();
                        let starting: BTreeSet<u32> =
                            view.starting.iter().map(|n| u32::from(*n)).collect();
                        tracing::info!(epoch = view.epoch, ?members, ?starting, "installed view");
                        if starting.contains(&u32::from(me)) {
                            println!(
                                "node restart: taken back as a starting node in view {}; copying from the primary",
                                view.epoch
                            );
                        } else if members.contains(&u32::from(me))
                            && !role.view().members.contains(&u32::from(me))
                            && role.view().epoch > 0
                        {
                            println!("node restart: a member again in view {}", view.epoch);
                        }
                        // Recorded before the view opens (before any commit in it): the
                        // node of the newest view holds every acknowledged commit.
                        if members.contains(&u32::from(me)) {
                            if let Some(file) = &member_file {
                                // Unrecorded, a later system restart could start from a
                                // node that lacks commits: the node stops (fail-stop).
                                // It never serves in the view it could not record.
                                if let Err(e) = record_member(file, u32::from(me), view.epoch) {
                                    fail_here(format!(
                                        "recording view {} in {}: {e:#}",
                                        view.epoch,
                                        file.display()
                                    ));
                                    return;
                                }
                            }
                        }
                        role.install(view.epoch, members, starting);
                    }
                    Observation::Opened { node, epoch } if *node == me => {
                        tracing::info!(epoch, "opened view");
                        role.open(*epoch);
                    }
                    _ => {}
                },
                |_| {},
            );
            match ended {
                Ok(Ended::Stopped) => {}
                Ok(Ended::Failed(why)) => fail(format!("left the cluster: {why}")),
                Err(e) => fail(format!("the cluster membership could not run: {e}")),
            }
        })
        .context("starting the membership thread")?;
    Ok(())
}

/// The cluster part of `cairn admin status`: its node groups, each data node's state in the
/// newest view the management node at `mgm` knows, and its role (the group's primary, as the
/// serving data node names it, serves every partition of the group; the other members are
/// backups; a starting node copies). False when no management node answers there (a data
/// node alone).
pub fn print_status(mgm: &str, primary: Option<u32>) -> Result<bool> {
    let guard = crate::guard();
    let ask = |status: bool, timeout: Duration| {
        cluster_host::ask_management_node(mgm, ADMIN_ID, status, &guard, timeout)
    };
    let Ok(text) = ask(false, Duration::from_millis(300)) else {
        return Ok(false);
    };
    let config = ClusterConfig::parse(&text)
        .map_err(|e| anyhow::anyhow!("the management node's configuration: {e}"))?;
    let (view, states) = states(mgm)?;
    let groups = config.layout.groups();
    // Each group's primary, as a member of the group names it (its status lists the primary
    // first); the connected node's answer for its own group.
    let primaries: Vec<Option<u32>> = groups
        .iter()
        .map(|group| {
            if let Some(p) = primary.filter(|p| group.iter().any(|n| u32::from(*n) == *p)) {
                return Some(p);
            }
            group_primary(&config, group, Duration::from_millis(300))
        })
        .collect();
    println!(
        "cluster: management node {mgm}, {} data nodes in {} node group(s) of {} replicas; {view}",
        config.layout.data_nodes().count(),
        groups.len(),
        groups.first().map_or(0, Vec::len)
    );
    for (g, group) in groups.iter().enumerate() {
        for node in group {
            let state = states.get(node).map_or("unknown", String::as_str);
            let role = match (primaries[g] == Some(u32::from(*node)), state) {
                (true, _) => ", primary of every partition of the group",
                (false, "member") => ", backup",
                (false, "starting") => ", copying its partitions from the primary",
                _ => "",
            };
            let api = config
                .api_addresses
                .get(node)
                .map_or("(no api address)", String::as_str);
            println!(
                "  node group {}: data node {node} {api} {state}{role}",
                g + 1
            );
        }
    }
    Ok(true)
}

/// The newest view the management node at `mgm` knows ("view N", or "view 1 (as configured)")
/// and each node's state in it ("member", "starting", "not in the view ...").
fn states(mgm: &str) -> Result<(String, BTreeMap<NodeId, String>)> {
    let status = cluster_host::ask_management_node(
        mgm,
        ADMIN_ID,
        true,
        &crate::guard(),
        Duration::from_secs(2),
    )
    .with_context(|| format!("asking the management node at {mgm} for the nodes' states"))?;
    let mut lines = status.lines();
    let view = lines.next().unwrap_or_default().to_string();
    let states = lines
        .filter_map(|l| {
            let mut words = l.splitn(4, ' ');
            let (_, id, _, state) = (words.next()?, words.next()?, words.next()?, words.next()?);
            Some((id.parse().ok()?, state.to_string()))
        })
        .collect();
    Ok((view, states))
}

/// The epoch of the view the management node at `mgm` knows, when it is `since` or newer and
/// has every data node a member (an older one, e.g. the last run's that it kept, says nothing
/// of this run).
pub fn all_members(mgm: &str, since: u64) -> Option<u64> {
    let (view, states) = states(mgm).ok()?;
    // A management node that knows no view yet (it started again) shows the configured one,
    // every node a member: that says nothing of the nodes either.
    let epoch = epoch_of(&view);
    let whole = !view.contains("as configured")
        && epoch >= since
        && states
            .iter()
            .all(|(n, s)| *n == cluster::ARBITRATOR || s == "member");
    whole.then_some(epoch)
}

/// The cluster's configuration, from the management node at `mgm`, asked as node `asker`.
fn config_of(mgm: &str, asker: NodeId, timeout: Duration) -> Result<ClusterConfig> {
    let text = cluster_host::ask_management_node(mgm, asker, false, &crate::guard(), timeout)
        .with_context(|| format!("asking the management node at {mgm} for the configuration"))?;
    ClusterConfig::parse(&text)
        .map_err(|e| anyhow::anyhow!("the management node's configuration: {e}"))
}

/// Every data node's native address in the configuration of the management node at `mgm`,
/// comma-separated (None: no management node answers there).
pub fn data_node_addresses(mgm: &str) -> Option<String> {
    let config = config_of(mgm, ADMIN_ID, Duration::from_millis(300)).ok()?;
    let all: Vec<String> = config.api_addresses.values().cloned().collect();
    (!all.is_empty()).then(|| all.join(","))
}

/// The epoch in a view line ("view N ...").
fn epoch_of(view: &str) -> u64 {
    view.split_whitespace()
        .nth(1)
        .and_then(|e| e.parse().ok())
        .unwrap_or(0)
}

/// Asks data node `node` to stop (`restart`: to be started again by what runs it; `initial`:
/// empty).
pub fn stop_node(mgm: &str, node: u32, restart: bool, initial: bool) -> Result<()> {
    let config = config_of(mgm, ADMIN_ID, Duration::from_secs(2))?;
    let id = NodeId::try_from(node).ok();
    let Some(api) = id.and_then(|id| config.api_addresses.get(&id)) else {
        bail!("data node {node} is not in the cluster's configuration");
    };
    let cluster = client::Cluster::connect_timeout(api, Duration::from_secs(5))
        .with_context(|| format!("connecting to data node {node} at {api}"))?;
    cluster
        .shutdown(restart, initial)
        .with_context(|| format!("asking data node {node} to stop"))
}

/// Restarts data node `only`, or every data node in turn (its group's primary last), each
/// once the cluster is whole, waiting until it is a member again (at most `timeout` each).
pub fn restart_nodes(mgm: &str, only: Option<u32>, initial: bool, timeout: Duration) -> Result<()> {
    let config = config_of(mgm, ADMIN_ID, Duration::from_secs(2))?;
    let primaries = primaries_of(&config);
    let mut order: Vec<u32> = match only {
        Some(node) => vec![node],
        None => config.layout.data_nodes().map(u32::from).collect(),
    };
    // Every group's primary last: each backup's restart leaves its primary serving
    // throughout, so each group changes primary once.
    order.sort_by_key(|n| (primaries.contains(n), *n));
    let total = order.len();
    for (i, node) in order.into_iter().enumerate() {
        let id = NodeId::try_from(node)
            .ok()
            .filter(|id| config.api_addresses.contains_key(id))
            .with_context(|| format!("data node {node} is not in the cluster's configuration"))?;
        let (view, before) = states(mgm)?;
        if let Some((n, state)) = before
            .iter()
            .find(|(n, s)| **n != cluster::ARBITRATOR && s.as_str() != "member")
        {
            bail!("data node {n} is {state}: a restart waits until every data node is a member (the cluster would lose a node group)");
        }
        let epoch = epoch_of(&view);
        let began = std::time::Instant::now();
        println!(
            "restarting data node {node} ({}/{total}) in view {epoch}",
            i + 1
        );
        stop_node(mgm, node, true, initial)?;
        let mut left = false;
        let mut said = String::new();
        loop {
            let (view, now) = states(mgm)?;
            let state = now.get(&id).cloned().unwrap_or_default();
            left |= state != "member";
            if state == "member" && (left || epoch_of(&view) >= epoch + 3) {
                break;
            }
            if state != said {
                println!("  data node {node}: {state} ({view})");
                said = state;
            }
            if began.elapsed() > timeout {
                bail!("data node {node} is not a member again after {timeout:?} (is something running it that starts it again, such as cairn start?)");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        println!(
            "data node {node} is a member again after {:.1} s",
            began.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Each node group's primary, as a member of the group names it (its status lists the primary
/// first); a group none of whose nodes answers has none here.
fn primaries_of(config: &ClusterConfig) -> Vec<u32> {
    config
        .layout
        .groups()
        .iter()
        .filter_map(|group| group_primary(config, group, Duration::from_millis(500)))
        .collect()
}

/// A node group's primary as the first of its nodes that answers names it (its status lists
/// the group's members, the primary first); None when none answers within `timeout` each.
fn group_primary(config: &ClusterConfig, group: &[NodeId], timeout: Duration) -> Option<u32> {
    group.iter().find_map(|node| {
        let api = config.api_addresses.get(node)?;
        let c = client::Cluster::connect_timeout(api, timeout).ok()?;
        c.status().ok()?.members.first().copied()
    })
}

/// `cairn admin replicas`: whether every replica of each node group holds the same rows (each
/// partition's row count and the sum of its rows' CRCs, `Message::Checksums`), asked again
/// while they differ for up to `settle` (commits under way reach the replicas a moment apart).
/// Prints one line per group; an error names the first partition that differs.
pub fn compare_replicas(mgm: &str, settle: Duration) -> Result<()> {
    let config = config_of(mgm, ADMIN_ID, Duration::from_secs(2))?;
    for (g, group) in config.layout.groups().iter().enumerate() {
        let deadline = std::time::Instant::now() + settle;
        loop {
            match replicas_differ(&config, g, group) {
                Ok(None) => break,
                Ok(Some(_)) | Err(_) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(100));
                }
                Ok(Some(why)) => bail!(
                    "node group {}: {why}, still after {}s",
                    g + 1,
                    settle.as_secs()
                ),
                Err(e) => return Err(e.context(format!("node group {}", g + 1))),
            }
        }
    }
    Ok(())
}

/// One look at group `g`'s replicas: None when they hold the same partitions and rows (printed),
/// else the first difference.
fn replicas_differ(config: &ClusterConfig, g: usize, group: &[NodeId]) -> Result<Option<String>> {
    type Sums = BTreeMap<(u32, u32), (u64, u64)>;
    let mut sums: Vec<(NodeId, Sums)> = Vec::new();
    for node in group {
        let api = config
            .api_addresses
            .get(node)
            .with_context(|| format!("data node {node} has no api address"))?;
        let partitions = client::Cluster::connect_timeout(api, Duration::from_secs(5))
            .and_then(|c| c.checksums())
            .with_context(|| format!("asking data node {node} at {api} for checksums"))?;
        let by_partition = partitions
            .into_iter()
            .map(|(table, partition, rows, sum)| ((table, partition), (rows, sum)))
            .collect();
        sums.push((*node, by_partition));
    }
    let Some(((first, theirs), others)) = sums.split_first() else {
        return Ok(None);
    };
    for (other, ours) in others {
        let keys: BTreeSet<&(u32, u32)> = theirs.keys().chain(ours.keys()).collect();
        for key in keys {
            let (a, b) = (theirs.get(key), ours.get(key));
            if a != b {
                let show = |node: &NodeId, v: Option<&(u64, u64)>| match v {
                    Some((rows, sum)) => {
                        format!("data node {node} {rows} rows (checksum {sum:#x})")
                    }
                    None => format!("data node {node} none of it"),
                };
                return Ok(Some(format!(
                    "table {} partition {}: {} against {}",
                    key.0,
                    key.1,
                    show(first, a),
                    show(other, b)
                )));
            }
        }
    }
    let rows: u64 = theirs.values().map(|v| v.0).sum();
    println!(
        "node group {}: data nodes {group:?} hold the same rows ({} partitions, {rows} rows in all)",
        g + 1,
        theirs.len()
    );
    Ok(None)
}

/// The id `cairn admin` says hello with to the management node (no node has it).
pub const ADMIN_ID: NodeId = 999;
