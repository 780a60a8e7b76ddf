//! The SQL front end's configuration, as `cairn start` and `cairn api` set it.

use std::path::PathBuf;

use transport::tls::TlsSetting;

use crate::foundation::limits::CONNECTIONS_MAX;

#[derive(Debug, Clone)]
pub struct SqlConfig {
    /// The data node to serve from.
    pub datanode: String,
    /// Listening address, e.g. "127.0.0.1:3306".
    pub listen: String,
    /// Also listen on this Unix socket file, for clients on this host (`mysql -S`, PyMySQL's
    /// `unix_socket`, sysbench's `--mysql-socket`).
    pub socket: Option<PathBuf>,
    /// root@localhost's password at the first start, when the accounts table is made (empty:
    /// none); later starts keep the accounts the catalog holds.
    pub root_password: String,
    /// The largest packet accepted (MySQL's max_allowed_packet).
    pub max_packet: usize,
    /// Event loops that serve idle connections and simple reads (at least one).
    pub reactors: usize,
    /// TLS: off, a self-signed certificate made at start (the default), or PEM files.
    pub tls: TlsSetting,
    /// Connections served at once (MySQL's max_connections); one more is refused with 1040.
    pub max_connections: u32,
}

impl Default for SqlConfig {
    fn default() -> Self {
        SqlConfig {
            datanode: "127.0.0.1:2202".into(),
            listen: "127.0.0.1:3306".into(),
            socket: None,
            root_password: String::new(),
            max_packet: 64 << 20,
            reactors: REACTORS_DEFAULT,
            tls: TlsSetting::default(),
            max_connections: CONNECTIONS_MAX,
        }
    }
}

/// Reactor loops by default. One: a second loop on 2 cores measured slower (sysbench point
/// selects 38,371/s against 51,828/s with one) and no faster for oltp_read_only.
pub const REACTORS_DEFAULT: usize = 1;
