//! Test support shared by the HandlerSocket suites: an in-process data node, a front end over it
//! on ephemeral ports, and the reference table of the protocol notes.

#![allow(dead_code)]

use base::schema::{ColumnDef, IndexKind};
use base::types::ColumnType;
use client::TableDef;
use datanode::{DataNode, DataNodeConfig};
use hs::{HsConfig, HsServer};

/// A data node in memory with 2 workers on an ephemeral loopback port.
pub fn start_node() -> DataNode {
    DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        workers: 2,
        ..DataNodeConfig::default()
    })
    .unwrap()
}

/// A HandlerSocket front end over `node`, both listeners on ephemeral ports, with these secrets
/// (empty: none).
pub fn start_front(node: &DataNode, read_secret: &[u8], write_secret: &[u8]) -> HsServer {
    start_front_loops(node, read_secret, write_secret, 1)
}

/// `start_front` with `loops` event loops.
pub fn start_front_loops(
    node: &DataNode,
    read_secret: &[u8],
    write_secret: &[u8],
    loops: usize,
) -> HsServer {
    HsServer::start(HsConfig {
        datanode: node.address().to_string(),
        read_listen: "127.0.0.1:0".into(),
        write_listen: "127.0.0.1:0".into(),
        read_secret: read_secret.to_vec(),
        write_secret: write_secret.to_vec(),
        loops,
        ..HsConfig::default()
    })
    .unwrap()
}

/// `t1 (k VARCHAR(30) PRIMARY KEY, v VARCHAR(30) NULL, n INT NULL, KEY iv (v))`.
pub fn t1() -> TableDef {
    TableDef::new(
        "t1",
        vec![
            ColumnDef::new("k", ColumnType::VarChar { length: 30 }),
            ColumnDef::new("v", ColumnType::VarChar { length: 30 }).nullable(),
            ColumnDef::new("n", ColumnType::Int { unsigned: false }).nullable(),
        ],
        &["k"],
    )
    .unwrap()
    .with_index("iv", IndexKind::Ordered, &["v"])
    .unwrap()
}
