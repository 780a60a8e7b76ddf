//! The only layer that touches sockets: connection threads (handshake, authentication, the
//! command phase), the event loops that hold idle connections, and TLS.

pub(crate) mod conn;
pub(crate) mod reactor;
pub(crate) mod threads;
pub(crate) mod tls;
pub(crate) mod values;
