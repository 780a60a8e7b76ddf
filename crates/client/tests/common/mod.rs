//! Test support: an in-process data node on an ephemeral loopback port, reached over TCP.

#![allow(dead_code)]

pub mod joins;

use std::time::Duration;

use client::Cluster;
use datanode::{DataNode, DataNodeConfig, Durability};

pub struct TestNode {
    pub node: Option<DataNode>,
    pub address: String,
}

impl TestNode {
    pub fn start(workers: usize, lock_wait: Duration) -> TestNode {
        let config = DataNodeConfig {
            listen: "127.0.0.1:0".into(),
            workers,
            lock_wait_timeout: lock_wait,
            ..DataNodeConfig::default()
        };
        let node = DataNode::start(config).expect("data node starts");
        let address = node.address().to_string();
        TestNode {
            node: Some(node),
            address,
        }
    }

    /// A node with `config`, listening on an ephemeral loopback port.
    pub fn with(config: DataNodeConfig) -> TestNode {
        let node = DataNode::start(DataNodeConfig {
            listen: "127.0.0.1:0".into(),
            ..config
        })
        .expect("data node starts");
        let address = node.address().to_string();
        TestNode {
            node: Some(node),
            address,
        }
    }

    pub fn connect(&self) -> Cluster {
        Cluster::connect(&self.address).expect("client connects")
    }
}

impl Drop for TestNode {
    fn drop(&mut self) {
        if let Some(n) = self.node.take() {
            n.stop();
        }
    }
}

/// A data node on an ephemeral loopback port keeping its files in `dir`, fsyncing every commit.
pub fn start_durable(dir: &std::path::Path, workers: usize) -> DataNode {
    DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        workers,
        lock_wait_timeout: Duration::from_millis(500),
        data_dir: Some(dir.to_path_buf()),
        durability: Durability::Commit,
        ..DataNodeConfig::default()
    })
    .expect("data node starts")
}

/// A small deterministic generator for randomized tests; the seed is printed by the caller.
pub struct Rng(pub u64);

impl Rng {
    pub fn from_env_or_time(name: &str) -> Rng {
        let seed = std::env::var("CAIRN_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        eprintln!("{name}: seed {seed} (rerun with CAIRN_TEST_SEED={seed})");
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
