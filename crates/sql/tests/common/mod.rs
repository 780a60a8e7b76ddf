//! What the SQL front end's tests share: a data node and a SQL front end over it, both in this
//! process on ports the system picks.

pub mod raw;

use datanode::{DataNode, DataNodeConfig};
use sql::{SqlConfig, SqlServer};

/// A data node and a SQL front end over it; `max_packet` is max_allowed_packet.
pub fn start(max_packet: usize) -> (DataNode, SqlServer) {
    let node = DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        ..DataNodeConfig::default()
    })
    .unwrap();
    let server = SqlServer::start(SqlConfig {
        datanode: node.address().to_string(),
        listen: "127.0.0.1:0".into(),
        max_packet,
        ..SqlConfig::default()
    })
    .unwrap();
    (node, server)
}
