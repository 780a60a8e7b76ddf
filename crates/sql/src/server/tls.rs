//! TLS for the MySQL protocol (rustls with the ring provider): the socket a connection upgrades
//! after the client's SSLRequest (the server's configuration is `transport::tls::server_config`,
//! shared with HandlerSocket). It never reads or serves SQL.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use transport::Stream;

use rustls::{ServerConfig, ServerConnection, StreamOwned};

pub use transport::tls::{server_config, TlsSetting};

/// The client socket under TLS: the bytes already read past the SSLRequest (the start of the
/// client's TLS hello) first, then the socket.
pub(crate) struct Socket {
    pub pending: Vec<u8>,
    pub at: usize,
    pub stream: Stream,
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(rest) = self.pending.get(self.at..).filter(|r| !r.is_empty()) {
            let n = buf.len().min(rest.len());
            buf[..n].copy_from_slice(&rest[..n]);
            self.at += n;
            if self.at == self.pending.len() {
                self.pending = Vec::new();
                self.at = 0;
            }
            return Ok(n);
        }
        self.stream.read(buf)
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.stream.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

/// A connection's TLS stream, shared by its reading and writing halves (one thread uses both,
/// so the lock is never contended).
pub(crate) type Shared = Arc<Mutex<StreamOwned<ServerConnection, Socket>>>;

/// Upgrades the socket: runs the TLS handshake to its end over `socket`.
pub(crate) fn accept(config: &Arc<ServerConfig>, mut socket: Socket) -> std::io::Result<Shared> {
    let mut conn = ServerConnection::new(config.clone()).map_err(std::io::Error::other)?;
    while conn.is_handshaking() {
        conn.complete_io(&mut socket)?;
    }
    Ok(Arc::new(Mutex::new(StreamOwned::new(conn, socket))))
}

/// Reads through a shared TLS stream.
pub(crate) fn read(tls: &Shared, buf: &mut [u8]) -> std::io::Result<usize> {
    tls.lock()
        .map_err(|_| std::io::Error::other("TLS stream poisoned"))?
        .read(buf)
}

/// Writes through a shared TLS stream.
pub(crate) struct Writer<'a>(pub &'a Shared);

impl Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("TLS stream poisoned"))?
            .write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("TLS stream poisoned"))?
            .flush()
    }
}
