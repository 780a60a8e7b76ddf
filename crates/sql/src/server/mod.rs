//! The only layer that touches sockets: connection threads (handshake, authentication, the
//! command phase), the event loops that hold idle connections, and TLS.

pub(crate) mod conn;
pub(crate) mod reactor;
pub(crate) mod threads;
pub(crate) mod tls;
pub(crate) mod values;

use std::sync::{Arc, Mutex};

use crate::session::shared::Shared;

/// What every connection of the server shares: its sessions' `Shared`, and what only this layer
/// touches.
pub(crate) struct Server {
    pub shared: Arc<Shared>,
    /// The event loop idle connections are parked in.
    pub reactor: reactor::Reactor,
    /// The TLS configuration connections upgrade with; None when TLS is off.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// Failed logins per client address off this host: a password guesser is turned away for
    /// longer and longer (loopback and the socket file are never blocked).
    pub failed_logins: Mutex<transport::auth::FailedLogins>,
    /// The threads connections' logins and commands run on.
    pub threads: threads::Threads,
}
