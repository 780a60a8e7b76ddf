//! What the SQL front end's tests share: a data node and a SQL front end over it, both in this
//! process on ports the system picks.
#![allow(dead_code)]

pub mod raw;

use datanode::{DataNode, DataNodeConfig};
use sql::{SqlConfig, SqlServer};

/// A data node and a SQL front end over it; `max_packet` is max_allowed_packet.
pub fn start(max_packet: usize) -> (DataNode, SqlServer) {
    start_configured(SqlConfig {
        max_packet,
        ..SqlConfig::default()
    })
}

/// A data node and a SQL front end over it with `config` (listening on a free loopback port
/// unless `config.listen` says otherwise).
pub fn start_configured(mut config: SqlConfig) -> (DataNode, SqlServer) {
    let node = DataNode::start(DataNodeConfig {
        listen: "127.0.0.1:0".into(),
        ..DataNodeConfig::default()
    })
    .unwrap();
    config.datanode = node.address().to_string();
    if config.listen == SqlConfig::default().listen {
        config.listen = "127.0.0.1:0".into();
    }
    let server = SqlServer::start(config).unwrap();
    (node, server)
}

/// A data node and a SQL front end over it with table `d.t (id, v)` holding `rows`, and a
/// session outside database `d`.
pub fn start_with(rows: &str) -> (DataNode, SqlServer, u16, raw::Raw) {
    let (node, server) = start(16 << 20);
    let port = server.address().port();
    let mut setup = raw::Raw::login_to(port, None);
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
        &format!("INSERT INTO d.t VALUES {rows}"),
    ] {
        assert_eq!(setup.query(sql), raw::Answer::Ok, "{sql}");
    }
    (node, server, port, setup)
}

/// A xorshift generator: a random test's randomness, replayable from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.up_to(n as u64) as usize
    }

    /// [`Rng::below`] for 64-bit bounds.
    pub fn up_to(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}
