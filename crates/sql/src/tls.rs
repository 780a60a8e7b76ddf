//! TLS for the MySQL protocol (rustls with the ring provider): the server's configuration, from
//! PEM files or a self-signed certificate made at start, and the socket a connection upgrades
//! after the client's SSLRequest. It never reads or serves SQL.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use transport::Stream;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

/// Where the server's certificate comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TlsSetting {
    /// No TLS: the handshake does not offer it, and a client that asks is refused (1045).
    Off,
    /// A self-signed certificate for `localhost` and 127.0.0.1, made at each start (clients
    /// that verify certificates must be told not to, as with MySQL's auto-generated ones).
    #[default]
    SelfSigned,
    /// A certificate chain and its private key, PEM files.
    Files { cert: PathBuf, key: PathBuf },
}

/// The server's TLS configuration for `setting`; None when TLS is off.
pub fn server_config(setting: &TlsSetting) -> std::io::Result<Option<Arc<ServerConfig>>> {
    let bad = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
    let (chain, key): (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) = match setting {
        TlsSetting::Off => return Ok(None),
        TlsSetting::SelfSigned => {
            let made = rcgen::generate_simple_self_signed(vec![
                "localhost".to_string(),
                "127.0.0.1".to_string(),
            ])
            .map_err(|e| bad(format!("making a self-signed certificate: {e}")))?;
            (
                vec![made.cert.der().clone()],
                PrivatePkcs8KeyDer::from(made.key_pair.serialize_der()).into(),
            )
        }
        TlsSetting::Files { cert, key } => {
            let chain = CertificateDer::pem_file_iter(cert)
                .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                .map_err(|e| bad(format!("reading the certificate {}: {e}", cert.display())))?;
            if chain.is_empty() {
                return Err(bad(format!("no certificate in {}", cert.display())));
            }
            let key = PrivateKeyDer::from_pem_file(key)
                .map_err(|e| bad(format!("reading the private key {}: {e}", key.display())))?;
            (chain, key)
        }
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| bad(format!("TLS versions: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            bad(format!(
                "the certificate and key do not make a TLS identity: {e}"
            ))
        })?;
    Ok(Some(Arc::new(config)))
}

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
