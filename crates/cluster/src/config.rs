//! The cluster's configuration file (TOML, like NDB's config.ini): the management node, the data
//! nodes with their ids and addresses, replicas, partitions and timing. The management node reads
//! it and hands its text to every node that asks; each node parses it the same way.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::layout::{Layout, NodeId, ARBITRATOR};
use crate::Timing;

/// The largest configuration file accepted (it travels in one frame).
pub const CONFIG_BYTES_MAX: usize = 1 << 20;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    cluster: ClusterSection,
    mgmd: NodeEntry,
    run: Option<RunSection>,
    #[serde(default)]
    datanode: Vec<NodeEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClusterSection {
    replicas: u16,
    #[serde(default = "partitions_per_group_default")]
    partitions_per_group: u32,
    heartbeat_interval_ms: Option<u64>,
    suspect_after_ms: Option<u64>,
    lease_ms: Option<u64>,
    stop_after_ms: Option<u64>,
    /// Worker threads of every data node (the nodes of a group must run as many: a partition
    /// belongs to one worker); unset, each node takes its own `--workers`.
    workers: Option<u32>,
}

/// What the management node adds to the text it hands out (`ClusterConfig::with_first_epoch`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunSection {
    first_epoch: u64,
}

fn partitions_per_group_default() -> u32 {
    4
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeEntry {
    id: Option<NodeId>,
    address: String,
    /// A data node's native-protocol address (clients, and its group's primary, reach it there).
    api: Option<String>,
}

/// A checked configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterConfig {
    pub layout: Layout,
    pub timing: Timing,
    /// Every node's address, the management node (id 0) included.
    pub addresses: BTreeMap<NodeId, String>,
    /// The native-protocol address of every data node that has one.
    pub api_addresses: BTreeMap<NodeId, String>,
    /// Worker threads of every data node, when the file sets them.
    pub workers: Option<u32>,
    /// The lowest epoch a first view of this run may take (`[run] first_epoch`, which the
    /// management node adds: above every epoch it kept votes for); 1 when not given.
    pub first_epoch: u64,
}

impl ClusterConfig {
    /// Parses and checks a configuration file's text; the error names what is wrong.
    pub fn parse(text: &str) -> Result<ClusterConfig, String> {
        if text.len() > CONFIG_BYTES_MAX {
            return Err(format!(
                "the configuration is {} bytes; the limit is {CONFIG_BYTES_MAX}",
                text.len()
            ));
        }
        let file: File =
            toml::from_str(text).map_err(|e| format!("bad cluster configuration: {e}"))?;
        if file.mgmd.id.is_some_and(|id| id != ARBITRATOR) {
            return Err(format!("the management node's id is {ARBITRATOR}"));
        }
        let mut addresses = BTreeMap::from([(ARBITRATOR, file.mgmd.address.clone())]);
        let mut api_addresses = BTreeMap::new();
        if file.mgmd.api.is_some() {
            return Err("the management node has no api address (data nodes do)".into());
        }
        for (i, node) in file.datanode.iter().enumerate() {
            let id = node.id.unwrap_or(i as NodeId + 1);
            if id == ARBITRATOR {
                return Err(format!(
                    "data node ids start at 1 (data node {} has id 0)",
                    i + 1
                ));
            }
            if addresses.insert(id, node.address.clone()).is_some() {
                return Err(format!("node id {id} appears twice"));
            }
            if let Some(api) = &node.api {
                api_addresses.insert(id, api.clone());
            }
        }
        let data_nodes = file.datanode.len() as u16;
        let expected: BTreeSet<NodeId> = (1..=data_nodes).collect();
        let ids: BTreeSet<NodeId> = addresses
            .keys()
            .copied()
            .filter(|id| *id != ARBITRATOR)
            .collect();
        if ids != expected {
            return Err(format!(
                "data node ids must be 1..={data_nodes}, not {ids:?}"
            ));
        }
        let mut seen = BTreeSet::new();
        for (id, address) in addresses.iter().chain(&api_addresses) {
            if address.parse::<std::net::SocketAddr>().is_err() {
                return Err(format!(
                    "node {id}: address {address:?} is not HOST:PORT with an IP address"
                ));
            }
            if !seen.insert(address) {
                return Err(format!("address {address} is given to two nodes"));
            }
        }
        let c = &file.cluster;
        if c.workers
            .is_some_and(|w| w == 0 || w as usize > base::limits::WORKERS_MAX)
        {
            return Err(format!(
                "workers must be 1..={}, not {}",
                base::limits::WORKERS_MAX,
                c.workers.unwrap_or_default()
            ));
        }
        let layout = Layout::new(data_nodes, c.replicas, c.partitions_per_group)?;
        let mut timing = Timing::default();
        let ms = |v: Option<u64>, d: u64| v.map_or(d, |ms| ms * 1000);
        timing.heartbeat_interval = ms(c.heartbeat_interval_ms, timing.heartbeat_interval);
        timing.suspect_after = ms(c.suspect_after_ms, timing.suspect_after);
        timing.lease = ms(c.lease_ms, timing.lease);
        timing.stop_after = ms(c.stop_after_ms, timing.stop_after);
        if timing.heartbeat_interval == 0
            || timing.lease >= timing.suspect_after
            || timing.heartbeat_interval >= timing.lease
        {
            return Err(format!(
                "timing must keep heartbeat interval < lease < suspect after (now {} < {} < {} ms)",
                timing.heartbeat_interval / 1000,
                timing.lease / 1000,
                timing.suspect_after / 1000
            ));
        }
        Ok(ClusterConfig {
            layout,
            timing,
            addresses,
            api_addresses,
            workers: c.workers,
            first_epoch: file.run.map_or(1, |r| r.first_epoch.max(1)),
        })
    }

    /// `text` (this configuration's file) with `[run] first_epoch` set to `epoch` when it is
    /// above what the file gives: what the management node hands out, so every node of a
    /// first view starts above the votes it kept from earlier runs, even started by hand.
    pub fn with_first_epoch(&self, text: &str, epoch: u64) -> String {
        if epoch <= self.first_epoch {
            return text.to_string();
        }
        let mut kept: Vec<&str> = Vec::new();
        let mut in_run = false;
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with('[') {
                in_run = trimmed == "[run]";
            }
            if !in_run {
                kept.push(line);
            }
        }
        format!(
            "{}\n\n[run]\n# Set by the management node: above every epoch it kept votes for.\nfirst_epoch = {epoch}\n",
            kept.join("\n")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[cluster]
replicas = 2

[mgmd]
address = "127.0.0.1:1186"

[[datanode]]
address = "127.0.0.1:2301"
api = "127.0.0.1:2401"
[[datanode]]
address = "127.0.0.1:2302"
"#;

    #[test]
    fn a_good_file_gives_the_layout_and_addresses() {
        let c = ClusterConfig::parse(GOOD).unwrap();
        assert_eq!(c.layout, Layout::new(2, 2, 4).unwrap());
        assert_eq!(c.addresses[&0], "127.0.0.1:1186");
        assert_eq!(c.addresses[&2], "127.0.0.1:2302");
        assert_eq!(c.timing, Timing::default());
        assert_eq!(
            c.api_addresses,
            BTreeMap::from([(1, "127.0.0.1:2401".to_string())])
        );
        assert_eq!(c.workers, None);
        assert_eq!(c.first_epoch, 1);
        let handed = c.with_first_epoch(GOOD, 9);
        assert_eq!(ClusterConfig::parse(&handed).unwrap().first_epoch, 9);
        let again = ClusterConfig::parse(&handed)
            .unwrap()
            .with_first_epoch(&handed, 12);
        assert_eq!(ClusterConfig::parse(&again).unwrap().first_epoch, 12);
        assert_eq!(c.with_first_epoch(GOOD, 1), GOOD);
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            (
                GOOD.replace("replicas = 2", "replicas = 3"),
                "multiple of replicas",
            ),
            (GOOD.replace("2302", "2301"), "given to two nodes"),
            (GOOD.replace("2401", "2301"), "given to two nodes"),
            (
                GOOD.replace("replicas = 2", "replicas = 2\nworkers = 0"),
                "workers must be",
            ),
            (
                GOOD.replace("replicas = 2", "replicas = 2\nspeed = 1"),
                "unknown field",
            ),
            (GOOD.replace("127.0.0.1:2302", "localhost"), "not HOST:PORT"),
            (
                GOOD.replace("replicas = 2", "replicas = 2\nlease_ms = 900"),
                "lease < suspect after",
            ),
            (
                format!("{GOOD}[[datanode]]\nid = 7\naddress = \"127.0.0.1:2399\"\n"),
                "must be 1..=3",
            ),
            (
                "[cluster]\nreplicas = 2\n".to_string(),
                "missing field `mgmd`",
            ),
        ];
        for (text, expected) in cases {
            let error = ClusterConfig::parse(&text).unwrap_err();
            assert!(
                error.contains(expected),
                "{error:?} should say {expected:?}"
            );
        }
    }
}
