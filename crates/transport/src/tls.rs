//! TLS on the cluster's native links: every node and API node holds a certificate signed by the
//! cluster's own CA (`cairn admin certs` makes them), and both ends of a TCP connection prove
//! theirs (mutual TLS, rustls with the ring provider); a peer whose certificate another CA signed
//! is refused before any frame. Also the stream that carries frames once the handshake is done,
//! shared by a reading and a writing thread, or driven by an event loop without blocking.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::Instant;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
pub use rustls::ServerConfig;
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConnection};

use crate::auth::{ByDeadline, HANDSHAKE_TIMEOUT};

/// The name every node certificate carries and every client checks, whatever address it dialed:
/// what a certificate proves is that the cluster's CA signed it.
pub const CLUSTER_NAME: &str = "cairn-cluster";
/// The files a node's TLS directory holds.
pub const CA_FILE: &str = "ca.pem";
pub const CERT_FILE: &str = "node.pem";
pub const KEY_FILE: &str = "node.key";
/// The most bytes a PEM file given to a node may have.
pub const PEM_BYTES_MAX: u64 = 1 << 20;

/// A node's TLS identity in its cluster: the CA it trusts and its own certificate and key.
pub struct ClusterTls {
    server: Arc<ServerConfig>,
    client: Arc<ClientConfig>,
}

impl std::fmt::Debug for ClusterTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterTls(hidden)")
    }
}

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

fn read_pem(path: &Path) -> io::Result<Vec<u8>> {
    let len = std::fs::metadata(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?
        .len();
    if len > PEM_BYTES_MAX {
        return Err(invalid(format!(
            "{} has {len} bytes, more than a PEM file may ({PEM_BYTES_MAX})",
            path.display()
        )));
    }
    std::fs::read(path).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// The cryptography of cluster links: ring's, with AES-128-GCM first. Both ends are Cairn's,
/// so the server's order decides; AES-128 is TLS 1.3's mandatory suite and seals a row-heavy
/// scan's records with about a third less work than AES-256.
fn cluster_provider() -> rustls::crypto::CryptoProvider {
    use rustls::crypto::ring::cipher_suite::{
        TLS13_AES_128_GCM_SHA256, TLS13_AES_256_GCM_SHA384, TLS13_CHACHA20_POLY1305_SHA256,
    };
    rustls::crypto::CryptoProvider {
        cipher_suites: vec![
            TLS13_AES_128_GCM_SHA256,
            TLS13_AES_256_GCM_SHA384,
            TLS13_CHACHA20_POLY1305_SHA256,
        ],
        ..rustls::crypto::ring::default_provider()
    }
}

/// The CA certificates of a PEM text, as the roots a peer's certificate must chain to.
fn roots(pem: &[u8]) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(pem) {
        roots
            .add(ca.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    if roots.is_empty() {
        return Err("no CA certificate".into());
    }
    Ok(roots)
}

impl ClusterTls {
    /// Reads `ca.pem`, `node.pem` and `node.key` from a node's TLS directory.
    pub fn load(dir: &Path) -> io::Result<ClusterTls> {
        ClusterTls::from_pem(
            &read_pem(&dir.join(CA_FILE))?,
            &read_pem(&dir.join(CERT_FILE))?,
            &read_pem(&dir.join(KEY_FILE))?,
        )
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", dir.display())))
    }

    pub fn from_pem(ca: &[u8], cert: &[u8], key: &[u8]) -> io::Result<ClusterTls> {
        let roots = roots(ca).map_err(|e| invalid(format!("the CA certificate: {e}")))?;
        let chain = CertificateDer::pem_slice_iter(cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(format!("reading the node certificate: {e}")))?;
        if chain.is_empty() {
            return Err(invalid("no node certificate".into()));
        }
        let key = PrivateKeyDer::from_pem_slice(key)
            .map_err(|e| invalid(format!("reading the node key: {e}")))?;
        let roots = Arc::new(roots);
        let provider = Arc::new(cluster_provider());
        let verifier = WebPkiClientVerifier::builder_with_provider(roots.clone(), provider.clone())
            .build()
            .map_err(|e| invalid(format!("the CA certificate: {e}")))?;
        let mut server = ServerConfig::builder_with_provider(provider.clone())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| invalid(format!("TLS versions: {e}")))?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain.clone(), key.clone_key())
            .map_err(|e| invalid(format!("the node certificate and key: {e}")))?;
        // Links are long-lived: no tickets (they would arrive after the handshake, where an
        // event loop does not expect bytes it did not ask for).
        server.send_tls13_tickets = 0;
        server.ignore_client_order = true;
        let mut client = ClientConfig::builder_with_provider(provider)
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| invalid(format!("TLS versions: {e}")))?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, key)
            .map_err(|e| invalid(format!("the node certificate and key: {e}")))?;
        client.resumption = rustls::client::Resumption::disabled();
        Ok(ClusterTls {
            server: Arc::new(server),
            client: Arc::new(client),
        })
    }

    /// The accepting side: runs the handshake to its end (by `HANDSHAKE_TIMEOUT`); the peer
    /// must show a certificate the cluster's CA signed.
    pub fn accept(&self, sock: TcpStream) -> io::Result<TlsStream> {
        let conn = ServerConnection::new(self.server.clone()).map_err(io::Error::other)?;
        TlsStream::handshake(sock, conn.into())
    }

    /// The dialing side, as `accept`.
    pub fn connect(&self, sock: TcpStream) -> io::Result<TlsStream> {
        let name = ServerName::try_from(CLUSTER_NAME).map_err(io::Error::other)?;
        let conn = ClientConnection::new(self.client.clone(), name).map_err(io::Error::other)?;
        TlsStream::handshake(sock, conn.into())
    }
}

/// Where a front end's TLS certificate comes from (SQL's, HandlerSocket's): clients are not
/// asked for one.
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
pub fn server_config(setting: &TlsSetting) -> io::Result<Option<Arc<ServerConfig>>> {
    let bad = |what: String| io::Error::new(io::ErrorKind::InvalidInput, what);
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

/// A client of a front end's TLS (HandlerSocket's, with a certificate from `cairn admin certs`):
/// the server must show a certificate the CA in `ca_file` signed for `cairn-cluster`; the
/// client shows none. Runs the handshake to its end.
pub fn connect_checked(sock: TcpStream, ca_file: &Path) -> io::Result<TlsStream> {
    let roots =
        roots(&read_pem(ca_file)?).map_err(|e| invalid(format!("{}: {e}", ca_file.display())))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| invalid(format!("TLS versions: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(CLUSTER_NAME).map_err(io::Error::other)?;
    let conn = ClientConnection::new(Arc::new(config), name).map_err(io::Error::other)?;
    TlsStream::handshake(sock, conn.into())
}

/// A front end's side of a connection whose handshake runs later, as an event loop reads it
/// (`nonblocking::Connection`): nothing is waited for here.
pub fn accept_later(sock: TcpStream, config: Arc<ServerConfig>) -> io::Result<TlsStream> {
    let mut conn: rustls::Connection = ServerConnection::new(config)
        .map_err(io::Error::other)?
        .into();
    conn.set_buffer_limit(None);
    Ok(TlsStream::wrap(sock, conn))
}

static CLIENT_TLS: RwLock<Option<Arc<ClusterTls>>> = RwLock::new(None);

/// Sets (or, with None, clears) the identity this process's clients show when they connect to
/// data nodes over TCP; connections made before keep theirs.
pub fn set_client_tls(tls: Option<Arc<ClusterTls>>) {
    *CLIENT_TLS.write().unwrap_or_else(|e| e.into_inner()) = tls;
}

pub fn client_tls() -> Option<Arc<ClusterTls>> {
    CLIENT_TLS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The TLS connection's state, and ciphertext read from the socket not yet handed to it.
struct State {
    conn: rustls::Connection,
    raw: Vec<u8>,
    at: usize,
}

struct Shared {
    /// Taken before `state` by whoever writes: records leave in the order they were sealed.
    /// Holds ciphertext sealed and not yet taken by the socket (a non-blocking one was full).
    out: Mutex<Vec<u8>>,
    state: Mutex<State>,
    nonblocking: AtomicBool,
}

/// A TCP connection under TLS. Clones share the session: one thread may read while another
/// writes (the reader holds no lock while it waits for the socket).
pub struct TlsStream {
    sock: TcpStream,
    shared: Arc<Shared>,
    /// Where this handle's blocking reads land before the session takes them (made at the
    /// first read, kept: large reads, no zeroing per read).
    scratch: Vec<u8>,
}

fn lock<T>(m: &Mutex<T>) -> io::Result<MutexGuard<'_, T>> {
    m.lock()
        .map_err(|_| io::Error::other("TLS stream poisoned"))
}

/// The most bytes one blocking socket read takes (several TLS records).
const CHUNK: usize = 64 * 1024;
/// The most bytes one non-blocking read takes (a whole TLS record and more).
const SMALL_CHUNK: usize = 17 * 1024;

fn refused(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, format!("TLS: {e}"))
}

impl TlsStream {
    fn handshake(sock: TcpStream, mut conn: rustls::Connection) -> io::Result<TlsStream> {
        conn.set_buffer_limit(None);
        let mut io = ByDeadline {
            sock: &sock,
            deadline: Instant::now() + HANDSHAKE_TIMEOUT,
            what: "the TLS handshake",
        };
        while conn.is_handshaking() {
            match conn.complete_io(&mut io) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::InvalidData => return Err(refused(e)),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    return Err(refused("the peer closed the connection in the handshake (does it hold a certificate of this cluster?)"))
                }
                Err(e) => return Err(e),
            }
        }
        // The last flight (a client's certificate and Finished) must reach the peer now.
        while conn.wants_write() {
            conn.write_tls(&mut io)?;
        }
        sock.set_read_timeout(None)?;
        sock.set_write_timeout(None)?;
        Ok(TlsStream::wrap(sock, conn))
    }

    fn wrap(sock: TcpStream, conn: rustls::Connection) -> TlsStream {
        TlsStream {
            sock,
            scratch: Vec::new(),
            shared: Arc::new(Shared {
                out: Mutex::new(Vec::new()),
                state: Mutex::new(State {
                    conn,
                    raw: Vec::new(),
                    at: 0,
                }),
                nonblocking: AtomicBool::new(false),
            }),
        }
    }

    pub fn try_clone(&self) -> io::Result<TlsStream> {
        Ok(TlsStream {
            sock: self.sock.try_clone()?,
            shared: self.shared.clone(),
            scratch: Vec::new(),
        })
    }

    pub fn socket(&self) -> &TcpStream {
        &self.sock
    }

    pub fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        self.sock.set_nonblocking(on)?;
        self.shared.nonblocking.store(on, Ordering::Relaxed);
        Ok(())
    }

    /// Reads plaintext. Blocking, it returns once something arrived; non-blocking, it reads
    /// until `buf` is full or the socket has nothing more (a short read means the socket was
    /// drained, as with plain TCP, which edge-triggered event loops rely on). 0: the peer closed.
    pub fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let nonblocking = self.shared.nonblocking.load(Ordering::Relaxed);
        let mut filled = 0;
        // The last socket read took less than it was offered: nothing more waits there.
        let mut drained = false;
        loop {
            // Each pass delivers at most what is left of `buf`, so `filled` stays in range.
            let answer = self.take_plaintext(buf.get_mut(filled..).unwrap_or_default())?;
            filled += answer.delivered;
            if answer.reply {
                // A message of the protocol itself to answer (after the handshake, rare).
                self.push_sealed(|_| Ok(()))?;
            }
            if answer.closed || filled == buf.len() || (filled > 0 && (!nonblocking || drained)) {
                return Ok(filled);
            }
            // An event loop's connections read into the stack (an idle one holds no buffer); a
            // blocking handle keeps a large buffer of its own.
            let mut small = [0u8; SMALL_CHUNK];
            let into: &mut [u8] = if nonblocking {
                &mut small
            } else {
                if self.scratch.is_empty() {
                    self.scratch = vec![0u8; CHUNK];
                }
                &mut self.scratch
            };
            match (&self.sock).read(into) {
                Ok(0) => return Ok(filled),
                Ok(n) => {
                    drained = n < into.len();
                    let got = into.get(..n).unwrap_or_default();
                    lock(&self.shared.state)?.raw.extend_from_slice(got);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && filled > 0 => return Ok(filled),
                Err(e) => return Err(e),
            }
        }
    }

    /// Hands over decrypted bytes, decrypting what was read from the socket as needed.
    fn take_plaintext(&self, buf: &mut [u8]) -> io::Result<Taken> {
        let mut state = lock(&self.shared.state)?;
        let State { conn, raw, at } = &mut *state;
        let mut taken = Taken::default();
        loop {
            // What was delivered is less than `buf` here: the loop returns once it is full.
            match conn
                .reader()
                .read(buf.get_mut(taken.delivered..).unwrap_or_default())
            {
                Ok(0) => {
                    taken.closed = true;
                    return Ok(taken);
                }
                Ok(n) => {
                    taken.delivered += n;
                    if taken.delivered == buf.len() {
                        return Ok(taken);
                    }
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            if *at == raw.len() {
                return Ok(taken);
            }
            // `at` is less than the length here (checked above).
            *at += conn.read_tls(&mut raw.get(*at..).unwrap_or_default())?;
            if *at == raw.len() {
                // Nothing is kept between reads: an idle connection holds no ciphertext buffer.
                *raw = Vec::new();
                *at = 0;
            }
            if let Err(e) = conn.process_new_packets() {
                // The connection is given up; the alert rustls queued is not sent (writing here,
                // under the session's lock, could wait on a peer that does not read).
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("TLS: {e}"),
                ));
            }
            taken.reply |= conn.wants_write();
        }
    }

    /// Seals `plain` and writes every record before it returns, waiting for the socket if it
    /// is full (also when another handle made it non-blocking, as a reader polling does), as
    /// `write_all` does on a plain socket.
    pub fn write_all(&self, plain: &[u8]) -> io::Result<()> {
        // A socket write timeout (SO_SNDTIMEO) holds for the whole, as on a plain socket.
        let deadline = self.sock.write_timeout()?.map(|t| Instant::now() + t);
        self.push_sealed(|conn| conn.writer().write_all(plain))?;
        while self.pending() > 0 {
            crate::wait_writable(&self.sock, deadline)?;
            self.push_sealed(|_| Ok(()))?;
        }
        Ok(())
    }

    /// An event loop's write: seals `plain` and writes what the socket takes; the rest waits
    /// (`pending`) for `flush_pending`.
    pub fn write_some(&self, plain: &[u8]) -> io::Result<()> {
        self.push_sealed(|conn| conn.writer().write_all(plain))
    }

    /// Writes sealed records the socket did not take before; true while some are left.
    pub fn flush_pending(&self) -> io::Result<bool> {
        self.push_sealed(|_| Ok(()))?;
        Ok(!lock(&self.shared.out)?.is_empty())
    }

    /// The cipher suite the handshake agreed on.
    pub fn cipher_suite(&self) -> Option<rustls::CipherSuite> {
        let state = self.shared.state.lock().ok()?;
        Some(state.conn.negotiated_cipher_suite()?.suite())
    }

    /// Sealed bytes waiting for the socket.
    pub fn pending(&self) -> usize {
        self.shared.out.lock().map(|o| o.len()).unwrap_or(0)
    }

    fn push_sealed(
        &self,
        seal: impl FnOnce(&mut rustls::Connection) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut out = lock(&self.shared.out)?;
        {
            let mut state = lock(&self.shared.state)?;
            seal(&mut state.conn)?;
            if out.is_empty() && self.shared.nonblocking.load(Ordering::Relaxed) {
                // An event loop's write: the session's records go to the socket as they are (no
                // copy through `out`) while it takes them. Nobody waits here holding the
                // session. What it does not take moves to `out` below, in order.
                while state.conn.wants_write() {
                    match state.conn.write_tls(&mut &self.sock) {
                        Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                        Ok(_) => {}
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => return Err(e),
                    }
                }
            }
            while state.conn.wants_write() {
                state.conn.write_tls(&mut *out)?;
            }
        }
        let mut written = 0;
        let result = loop {
            let Some(rest) = out.get(written..).filter(|r| !r.is_empty()) else {
                break Ok(());
            };
            match (&self.sock).write(rest) {
                Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        out.drain(..written);
        if out.capacity() > crate::nonblocking::OUTPUT_RETAINED_BYTES && out.is_empty() {
            *out = Vec::new();
        }
        result
    }
}

#[derive(Default)]
struct Taken {
    delivered: usize,
    closed: bool,
    reply: bool,
}

/// Makes a cluster CA (`ca.key`, `ca.pem` in `dir`, kept when they exist already) and, for each
/// name, a directory `dir/NAME` with what a node started with `--cluster-tls dir/NAME` needs:
/// `ca.pem`, and `node.pem` and `node.key` signed by the CA. Returns the directories made.
pub fn make_certificates(dir: &Path, names: &[String]) -> io::Result<Vec<std::path::PathBuf>> {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
    let failed = |what: &str, e: rcgen::Error| io::Error::other(format!("{what}: {e}"));
    std::fs::create_dir_all(dir)?;
    let ca_key_path = dir.join("ca.key");
    let ca_key = if ca_key_path.exists() {
        let pem = String::from_utf8(read_pem(&ca_key_path)?)
            .map_err(|_| invalid(format!("{} is not PEM text", ca_key_path.display())))?;
        KeyPair::from_pem(&pem).map_err(|e| failed("reading the CA key", e))?
    } else {
        let key = KeyPair::generate().map_err(|e| failed("making the CA key", e))?;
        write_private(&ca_key_path, key.serialize_pem().as_bytes())?;
        key
    };
    // The CA's certificate is made again from its key each time: the same name and key, so
    // certificates signed before and after verify against either.
    let mut ca_params = CertificateParams::new(Vec::<String>::new())
        .map_err(|e| failed("the CA certificate", e))?;
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "cairn cluster CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params
        .self_signed(&ca_key)
        .map_err(|e| failed("signing the CA certificate", e))?;
    let ca_pem = ca_cert.pem();
    if !dir.join(CA_FILE).exists() {
        std::fs::write(dir.join(CA_FILE), &ca_pem)?;
    }
    let mut made = Vec::new();
    for name in names {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
            || name.starts_with('.')
        {
            return Err(invalid(format!(
                "a node's name is letters, digits, '-', '_' and '.', not {name:?}"
            )));
        }
        let key = KeyPair::generate().map_err(|e| failed("making a node key", e))?;
        let mut params = CertificateParams::new(vec![CLUSTER_NAME.to_string(), name.clone()])
            .map_err(|e| failed("a node certificate", e))?;
        params.distinguished_name.push(DnType::CommonName, name);
        let cert = params
            .signed_by(&key, &ca_cert, &ca_key)
            .map_err(|e| failed("signing a node certificate", e))?;
        let node_dir = dir.join(name);
        std::fs::create_dir_all(&node_dir)?;
        std::fs::write(node_dir.join(CA_FILE), &ca_pem)?;
        std::fs::write(node_dir.join(CERT_FILE), cert.pem())?;
        write_private(&node_dir.join(KEY_FILE), key.serialize_pem().as_bytes())?;
        made.push(node_dir);
    }
    Ok(made)
}

/// Writes a file only its owner may read.
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cairn-tls-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn identities(tag: &str, names: &[&str]) -> Vec<ClusterTls> {
        let dir = temp_dir(tag);
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let made = make_certificates(&dir, &names).unwrap();
        let loaded = made.iter().map(|d| ClusterTls::load(d).unwrap()).collect();
        let _ = std::fs::remove_dir_all(&dir);
        loaded
    }

    fn pair(
        server: ClusterTls,
        client: ClusterTls,
    ) -> (io::Result<TlsStream>, io::Result<TlsStream>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let accepting = std::thread::spawn(move || {
            let (s, _) = listener.accept().unwrap();
            let accepted = server.accept(s);
            if let Ok(a) = &accepted {
                // A client the server refused learns it at its first read.
                a.write_all(b"welcome").unwrap();
            }
            accepted
        });
        let dialed = client.connect(TcpStream::connect(address).unwrap());
        let dialed = dialed.and_then(|mut c| {
            let mut word = [0u8; 7];
            let mut got = 0;
            while got < word.len() {
                match c.read(&mut word[got..])? {
                    0 => return Err(io::ErrorKind::UnexpectedEof.into()),
                    n => got += n,
                }
            }
            assert_eq!(&word, b"welcome");
            Ok(c)
        });
        (accepting.join().unwrap(), dialed)
    }

    #[test]
    fn nodes_of_one_ca_talk_and_a_node_of_another_ca_is_refused_on_both_sides() {
        let mut ours = identities("ours", &["node-1", "node-2"]);
        let theirs = identities("theirs", &["node-9"]).pop().unwrap();
        let two = ours.pop().unwrap();
        let one = ours.pop().unwrap();
        let (s, c) = pair(one, two);
        let (s, mut c) = (s.unwrap(), c.unwrap());
        // Cluster links seal with AES-128-GCM (the cheaper of the AES suites).
        let suite = Some(rustls::CipherSuite::TLS13_AES_128_GCM_SHA256);
        assert_eq!((s.cipher_suite(), c.cipher_suite()), (suite, suite));
        // Both directions, from a reader thread and a writer thread at once, with large frames.
        let mut reader = s.try_clone().unwrap();
        let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let expect = big.clone();
        let reading = std::thread::spawn(move || {
            let mut got = vec![0u8; expect.len()];
            let mut n = 0;
            while n < got.len() {
                n += reader.read(&mut got[n..]).unwrap();
            }
            assert!(got == expect);
        });
        c.write_all(&big).unwrap();
        s.write_all(&big[..1000]).unwrap();
        let mut back = vec![0u8; 1000];
        let mut n = 0;
        while n < back.len() {
            n += c.read(&mut back[n..]).unwrap();
        }
        assert!(back[..] == big[..1000]);
        reading.join().unwrap();

        let mut ours = identities("ours2", &["node-1", "node-2"]);
        let one = ours.pop().unwrap();
        let (s, c) = pair(one, theirs);
        assert!(s.is_err() && c.is_err(), "{:?} {:?}", s.err(), c.err());
        let theirs = identities("theirs2", &["node-9"]).pop().unwrap();
        let (s, c) = pair(theirs, ours.pop().unwrap());
        assert!(s.is_err() && c.is_err(), "{:?} {:?}", s.err(), c.err());

        // A client that trusts our CA (so it accepts the server) but shows a certificate
        // another CA signed: the server's own check refuses it.
        let (ours, theirs) = (temp_dir("ours3"), temp_dir("theirs3"));
        let ours_made = make_certificates(&ours, &["node-1".to_string()]).unwrap();
        let theirs_made = make_certificates(&theirs, &["node-9".to_string()]).unwrap();
        let read = |d: &std::path::Path, f: &str| std::fs::read(d.join(f)).unwrap();
        let impostor = ClusterTls::from_pem(
            &read(&ours_made[0], CA_FILE),
            &read(&theirs_made[0], CERT_FILE),
            &read(&theirs_made[0], KEY_FILE),
        )
        .unwrap();
        let (s, c) = pair(ClusterTls::load(&ours_made[0]).unwrap(), impostor);
        assert!(s.is_err() && c.is_err(), "{:?} {:?}", s.err(), c.err());
        let _ = (
            std::fs::remove_dir_all(&ours),
            std::fs::remove_dir_all(&theirs),
        );
    }

    #[test]
    fn a_ca_made_again_from_its_key_still_signs_for_the_cluster() {
        let dir = temp_dir("again");
        let first = make_certificates(&dir, &["a".to_string()]).unwrap();
        let second = make_certificates(&dir, &["b".to_string()]).unwrap();
        let (a, b) = (
            ClusterTls::load(&first[0]).unwrap(),
            ClusterTls::load(&second[0]).unwrap(),
        );
        let (s, c) = pair(a, b);
        assert!(s.is_ok() && c.is_ok(), "{:?} {:?}", s.err(), c.err());
        assert!(make_certificates(&dir, &["../x".to_string()]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Random bytes and damaged handshakes never pass the accepting side, and never panic.
    #[test]
    fn random_bytes_never_pass_the_handshake() {
        let seed = 0x7151_u64;
        println!("seed {seed}");
        let server = Arc::new(identities("random", &["n"]).pop().unwrap());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..200 {
            let len = (next() % 600) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if round % 2 == 0 && bytes.len() > 5 {
                // A handshake record's header, then garbage.
                bytes[..5].copy_from_slice(&[0x16, 0x03, 0x01, (len >> 8) as u8, len as u8]);
            }
            let mut c = TcpStream::connect(address).unwrap();
            let (s, _) = listener.accept().unwrap();
            let _ = c.write_all(&bytes);
            let _ = c.shutdown(std::net::Shutdown::Write);
            assert!(server.accept(s).is_err(), "seed {seed} round {round}");
        }
    }
}
