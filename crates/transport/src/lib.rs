//! Moves native-protocol frames between two processes: over TCP (no Nagle delay; every frame
//! ready for a peer goes out in one write), or over shared memory between processes on one host
//! (`shm`, addresses `shm:NAME`) behind the same types. Front ends' client streams (TCP, or a
//! Unix socket file for local clients) are the same `Stream`.
//!
//! It is the only crate that opens sockets. It checks frame headers and checksums, so a peer that
//! sends a bad frame gets a `TransportError` naming why, and only its connection is affected.

// Bytes from the network must never panic the process (issue 41): no unwrap, no expect, no
// unchecked slice index outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::{Duration, Instant};

use wire::{DecodeError, FrameHeader, Message};

pub mod auth;
pub mod buffer;
pub mod nonblocking;
pub mod shm;
pub mod tls;

use buffer::FrameBuffer;
use shm::ShmStream;

/// A connected stream of either kind.
pub enum Stream {
    Tcp(TcpStream),
    Shm(ShmStream),
    /// A local client over a Unix socket file (the SQL front end's `--sql-socket`).
    Unix(UnixStream),
    /// A cluster link under TLS (`--cluster-tls`).
    Tls(tls::TlsStream),
}

impl From<UnixStream> for Stream {
    fn from(s: UnixStream) -> Stream {
        Stream::Unix(s)
    }
}

impl From<TcpStream> for Stream {
    fn from(s: TcpStream) -> Stream {
        Stream::Tcp(s)
    }
}

impl From<ShmStream> for Stream {
    fn from(s: ShmStream) -> Stream {
        Stream::Shm(s)
    }
}

impl Stream {
    pub fn try_clone(&self) -> io::Result<Stream> {
        Ok(match self {
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
            Stream::Shm(s) => Stream::Shm(s.clone()),
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tls(s) => Stream::Tls(s.try_clone()?),
        })
    }

    /// Sends small writes at once (TCP_NODELAY); nothing to do for the other kinds.
    pub fn set_nodelay(&self) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_nodelay(true),
            Stream::Tls(s) => s.socket().set_nodelay(true),
            Stream::Shm(_) | Stream::Unix(_) => Ok(()),
        }
    }

    /// The name of the operating-system account on the other end of a Unix socket connection
    /// (its user id's name, from the kernel's SO_PEERCRED, which the peer cannot forge); None
    /// for other streams, or when the kernel or the user database cannot tell.
    pub fn peer_os_user(&self) -> Option<String> {
        match self {
            Stream::Unix(s) => {
                use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
                let credentials = getsockopt(s, PeerCredentials).ok()?;
                let uid = nix::unistd::Uid::from_raw(credentials.uid());
                nix::unistd::User::from_uid(uid).ok()?.map(|u| u.name)
            }
            Stream::Tcp(_) | Stream::Shm(_) | Stream::Tls(_) => None,
        }
    }

    /// The peer's address: None for a peer on this host over shared memory or a Unix socket.
    pub fn peer_addr(&self) -> Option<SocketAddr> {
        match self {
            Stream::Tcp(s) => s.peer_addr().ok(),
            Stream::Tls(s) => s.socket().peer_addr().ok(),
            Stream::Shm(_) | Stream::Unix(_) => None,
        }
    }

    /// How long a read waits (None: for ever) before it answers TimedOut or WouldBlock.
    pub fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_read_timeout(timeout),
            Stream::Tls(s) => s.socket().set_read_timeout(timeout),
            Stream::Unix(s) => s.set_read_timeout(timeout),
            Stream::Shm(s) => {
                s.set_read_timeout(timeout);
                Ok(())
            }
        }
    }

    /// How long a blocking write waits for the peer to take bytes (None: for ever) before it
    /// fails; nothing for a shared-memory stream, whose peers are this host's processes.
    pub fn set_write_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_write_timeout(timeout),
            Stream::Tls(s) => s.socket().set_write_timeout(timeout),
            Stream::Unix(s) => s.set_write_timeout(timeout),
            Stream::Shm(_) => Ok(()),
        }
    }

    pub fn set_nonblocking(&mut self, on: bool) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => s.set_nonblocking(on),
            Stream::Tls(s) => s.set_nonblocking(on),
            Stream::Unix(s) => s.set_nonblocking(on),
            Stream::Shm(s) => {
                s.set_nonblocking(on);
                Ok(())
            }
        }
    }

    /// Whether the peer closed its side (or the connection broke), looked at without reading
    /// or waiting: bytes it sent and nobody read yet mean it is still there. A shared-memory
    /// stream answers false (its peers are this host's processes, which its end notices).
    pub fn peer_closed(&self) -> bool {
        use nix::sys::socket::{recv, MsgFlags};
        use std::os::fd::AsRawFd;
        let fd = match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Tls(s) => s.socket().as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Shm(_) => return false,
        };
        let mut byte = [0u8; 1];
        match recv(fd, &mut byte, MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT) {
            Ok(0) => true,
            Ok(_) => false,
            Err(nix::errno::Errno::EAGAIN) | Err(nix::errno::Errno::EINTR) => false,
            Err(_) => true,
        }
    }

    /// Closes both directions, which also ends the peer's reader.
    pub fn shutdown(&self) {
        match self {
            Stream::Tcp(s) => {
                let _ = s.shutdown(Shutdown::Both);
            }
            Stream::Tls(s) => {
                let _ = s.socket().shutdown(Shutdown::Both);
            }
            Stream::Unix(s) => {
                let _ = s.shutdown(Shutdown::Both);
            }
            Stream::Shm(s) => s.shutdown(),
        }
    }

    /// The peer, as logs name it.
    pub fn peer(&self) -> String {
        match self {
            Stream::Tcp(s) => s.peer_addr().map(|a| a.to_string()).unwrap_or_default(),
            Stream::Tls(s) => s
                .socket()
                .peer_addr()
                .map(|a| format!("{a} (TLS)"))
                .unwrap_or_default(),
            Stream::Shm(s) => s.name().to_string(),
            Stream::Unix(_) => "local (unix socket)".to_string(),
        }
    }

    pub fn write_all(&self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Stream::Tcp(s) => write_all_waiting(s, s.write_timeout()?, bytes, |b| (&*s).write(b)),
            Stream::Shm(s) => (&*s).write_all(bytes),
            Stream::Unix(s) => write_all_waiting(s, s.write_timeout()?, bytes, |b| (&*s).write(b)),
            Stream::Tls(s) => s.write_all(bytes),
        }
    }
}

/// `write_all` on a socket that another handle may have made non-blocking (a reader polling
/// for a reply: O_NONBLOCK belongs to the socket, shared by every descriptor of it): on
/// WouldBlock it waits for room, within the socket's write timeout, instead of failing.
fn write_all_waiting(
    fd: &impl std::os::fd::AsFd,
    timeout: Option<Duration>,
    mut bytes: &[u8],
    mut write: impl FnMut(&[u8]) -> io::Result<usize>,
) -> io::Result<()> {
    let deadline = timeout.map(|t| Instant::now() + t);
    while !bytes.is_empty() {
        match write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            // A write reports at most what it was given.
            Ok(n) => bytes = bytes.get(n..).unwrap_or_default(),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => wait_writable(fd, deadline)?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Waits (a short while at most) for room to write on a socket, or fails with TimedOut once
/// `deadline` (the socket's write timeout from the write's start) has passed.
fn wait_writable(fd: &impl std::os::fd::AsFd, deadline: Option<Instant>) -> io::Result<()> {
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Err(io::Error::new(
            io::ErrorKind::TimedOut,
            "the peer took no bytes within the write timeout",
        ));
    }
    let mut fds = [nix::poll::PollFd::new(
        fd.as_fd(),
        nix::poll::PollFlags::POLLOUT,
    )];
    match nix::poll::poll(&mut fds, nix::poll::PollTimeout::from(100u16)) {
        Ok(_) | Err(nix::errno::Errno::EINTR) => Ok(()),
        Err(e) => Err(io::Error::from(e)),
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Shm(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Shm(s) => (&*s).write(buf),
            Stream::Unix(s) => s.write(buf),
            Stream::Tls(s) => s.write_all(buf).map(|()| buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A Unix socket file listened on (for clients on this host). Binding replaces a file a server
/// that is gone left there; it refuses a socket another server still answers on, and any other
/// file at that path. The file is made connectable by every local user (as mysqld's), and
/// [`UnixSocketFile::close`] removes it only while it is still this socket's.
pub struct UnixSocketFile {
    listener: UnixListener,
    path: std::path::PathBuf,
    /// The file's device and inode once bound.
    file: (u64, u64),
}

impl UnixSocketFile {
    pub fn bind(path: &Path) -> io::Result<UnixSocketFile> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_socket() => match UnixStream::connect(path) {
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    // Nobody listens: a stopped server's file.
                    std::fs::remove_file(path)?;
                }
                Err(e) => {
                    return Err(io::Error::new(
                        e.kind(),
                        format!("{}: a socket that cannot be checked: {e}", path.display()),
                    ))
                }
                Ok(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        format!("{}: another server listens on this socket", path.display()),
                    ))
                }
            },
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{}: a file that is not a socket is in the way",
                        path.display()
                    ),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let listener = UnixListener::bind(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777))?;
        let m = std::fs::symlink_metadata(path)?;
        Ok(UnixSocketFile {
            listener,
            path: path.to_path_buf(),
            file: (m.dev(), m.ino()),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits for the next client; an error once [`UnixSocketFile::close`] ran.
    pub fn accept(&self) -> io::Result<Stream> {
        self.listener.accept().map(|(s, _)| Stream::Unix(s))
    }

    /// Stops accepting (a thread waiting in `accept` returns at once, whatever became of the
    /// file) and removes the file if it is still this socket's.
    pub fn close(&self) {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let _ =
            nix::sys::socket::shutdown(self.listener.as_raw_fd(), nix::sys::socket::Shutdown::Both);
        if std::fs::symlink_metadata(&self.path).is_ok_and(|m| (m.dev(), m.ino()) == self.file) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Why a connection can no longer be used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("i/o: {0}")]
    Io(#[from] io::Error),
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
}

/// What waiting for a frame with a deadline produced.
#[derive(Debug)]
// A decoded message moves once, from the reader to its consumer; boxing would add an allocation
// per frame for nothing.
#[allow(clippy::large_enum_variant)]
pub enum ReadOutcome {
    Frame(FrameHeader, Message),
    /// The deadline passed first; a partly received frame stays buffered for the next call.
    TimedOut,
    /// The peer closed the connection between frames.
    Closed,
}

/// Reads whole frames from one blocking connection, keeping partial frames across calls so a
/// read may time out and resume.
pub struct FrameReader {
    stream: Stream,
    input: FrameBuffer,
    timeout: Option<Duration>,
    spin: Duration,
    nonblocking: bool,
}

impl FrameReader {
    pub fn new(stream: impl Into<Stream>) -> FrameReader {
        FrameReader {
            stream: stream.into(),
            input: FrameBuffer::default(),
            timeout: None,
            spin: Duration::ZERO,
            nonblocking: false,
        }
    }

    /// Joins an execute reply sent in several frames into one message (a client's reader).
    pub fn join_replies(&mut self) {
        self.input.join_replies();
    }

    /// Reads the next frame and decodes its message. Ok(None) on a clean close between frames.
    pub fn read(&mut self) -> Result<Option<(FrameHeader, Message)>, TransportError> {
        match self.read_until(None)? {
            ReadOutcome::Frame(h, m) => Ok(Some((h, m))),
            ReadOutcome::Closed | ReadOutcome::TimedOut => Ok(None),
        }
    }

    /// Polls the socket for `spin` before sleeping when a reply is awaited (NDB's spinning
    /// transporter): sleeping and being woken costs more than a short round trip on many machines.
    /// Zero (the default) sleeps at once.
    pub fn set_spin(&mut self, spin: Duration) {
        self.spin = spin;
    }

    /// Reads the next frame, giving up at `deadline` (None: wait as long as it takes).
    pub fn read_until(&mut self, deadline: Option<Instant>) -> Result<ReadOutcome, TransportError> {
        loop {
            if let Some((h, m)) = self.input.parse()? {
                return Ok(ReadOutcome::Frame(h, m));
            }
            // Poll without blocking for the spin, and once when the deadline has passed, so a
            // caller asking what has already arrived gets what the socket holds.
            let now = Instant::now();
            if !self.spin.is_zero() || deadline.is_some_and(|d| d <= now) {
                self.set_nonblocking(true)?;
                let mut until = now + self.spin;
                if let Some(d) = deadline {
                    until = until.min(d);
                }
                let mut got = false;
                while !got {
                    match self.fill_once()? {
                        Fill::Data => got = true,
                        Fill::Closed => return Ok(ReadOutcome::Closed),
                        Fill::Nothing if Instant::now() < until => std::hint::spin_loop(),
                        Fill::Nothing => break,
                    }
                }
                if got {
                    continue;
                }
            }
            // A poll above that found data left the stream non-blocking: the wait below must
            // block (or it spins on WouldBlock until the deadline).
            self.set_nonblocking(false)?;
            let timeout = match deadline {
                None => None,
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(ReadOutcome::TimedOut);
                    }
                    Some(left.max(Duration::from_micros(100)))
                }
            };
            if timeout != self.timeout {
                self.stream.set_read_timeout(timeout)?;
                self.timeout = timeout;
            }
            if self.fill_once()? == Fill::Closed {
                return Ok(ReadOutcome::Closed);
            }
        }
    }

    fn set_nonblocking(&mut self, on: bool) -> io::Result<()> {
        if self.nonblocking != on {
            self.stream.set_nonblocking(on)?;
            self.nonblocking = on;
        }
        Ok(())
    }

    /// One read into the buffer.
    fn fill_once(&mut self) -> Result<Fill, TransportError> {
        match self.input.fill(&mut self.stream) {
            Ok((0, _)) if !self.input.is_partial() => Ok(Fill::Closed),
            Ok((0, _)) => {
                Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed inside a frame").into())
            }
            Ok(_) => Ok(Fill::Data),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(Fill::Nothing)
            }
            Err(e) => Err(e.into()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fill {
    Data,
    Nothing,
    Closed,
}

/// Writes frames to one connection; callers batch frames into one buffer and send it in one call.
pub struct FrameWriter {
    stream: Stream,
}

impl FrameWriter {
    /// Writes a buffer holding one or more whole frames.
    pub fn send(&mut self, frames: &[u8]) -> io::Result<()> {
        self.stream.write_all(frames)
    }

    /// Closes both directions, which also ends the peer's reader.
    pub fn shutdown(&self) {
        self.stream.shutdown();
    }

    /// The peer, as logs name it.
    pub fn peer(&self) -> String {
        self.stream.peer()
    }

    pub fn try_clone(&self) -> io::Result<FrameWriter> {
        Ok(FrameWriter {
            stream: self.stream.try_clone()?,
        })
    }
}

/// Splits a connected stream (from `connect_any`, TCP_NODELAY set) into a frame reader and
/// writer.
pub fn split(stream: impl Into<Stream>) -> io::Result<(FrameReader, FrameWriter)> {
    let stream = stream.into();
    let reader = FrameReader::new(stream.try_clone()?);
    Ok((reader, FrameWriter { stream }))
}

/// Connects to a data node at `address` (`host:port`, or `shm:NAME` for shared memory),
/// retrying refused connections until `timeout` passes.
pub fn connect(address: &str, timeout: Duration) -> io::Result<(FrameReader, FrameWriter)> {
    split(connect_any(address, timeout)?)
}

/// Connects as `connect`, but tries once: a refused connection fails at once, and a TCP
/// handshake may take `timeout` (for a client that has other nodes to try).
pub fn connect_once(address: &str, timeout: Duration) -> io::Result<(FrameReader, FrameWriter)> {
    split(connect_any_once(address, timeout)?)
}

/// Connects a stream as `connect_any`, trying once (see `connect_once`).
pub fn connect_any_once(address: &str, timeout: Duration) -> io::Result<Stream> {
    connect_kind(address, timeout, true)
}

/// Connects a stream of the kind `address` names (`shm:NAME`, else TCP `host:port`), retrying
/// refused connections until `timeout` passes; blocking, with TCP_NODELAY.
pub fn connect_any(address: &str, timeout: Duration) -> io::Result<Stream> {
    connect_kind(address, timeout, false)
}

fn connect_kind(address: &str, timeout: Duration, once: bool) -> io::Result<Stream> {
    match address.strip_prefix(shm::ADDRESS_PREFIX) {
        Some(name) => Ok(Stream::Shm(ShmStream::connect(name, timeout)?)),
        None => {
            let mut s = if once {
                connect_stream_once(address, timeout)?
            } else {
                connect_stream(address, timeout)?
            };
            s.set_nodelay(true)?;
            if let Some(key) = auth::client_key() {
                auth::client_handshake(&mut s, key)?;
            }
            match tls::client_tls() {
                Some(tls) => Ok(Stream::Tls(tls.connect(s)?)),
                None => Ok(Stream::Tcp(s)),
            }
        }
    }
}

/// Connects a stream, retrying refused connections until `timeout` passes (for event loops,
/// which hand it to `nonblocking::Connection::new`).
pub fn connect_stream(address: &str, timeout: Duration) -> io::Result<TcpStream> {
    let deadline = std::time::Instant::now() + timeout;
    let addrs: Vec<SocketAddr> = address.to_socket_addrs()?.collect();
    loop {
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {address}"));
        for a in &addrs {
            match TcpStream::connect_timeout(a, timeout.max(Duration::from_millis(10))) {
                Ok(s) => return Ok(s),
                Err(e) => last = e,
            }
        }
        if std::time::Instant::now() >= deadline {
            return Err(last);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One attempt per address `address` resolves to, each allowed `timeout`.
fn connect_stream_once(address: &str, timeout: Duration) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {address}"));
    for a in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, timeout.max(Duration::from_millis(10))) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Whether `ip` is this host: a loopback address, or one of this host's own addresses (the
/// route to it leaves from it; finding that sends nothing).
pub fn is_this_host(ip: std::net::IpAddr) -> bool {
    if ip.is_loopback() {
        return true;
    }
    let any: SocketAddr = if ip.is_ipv4() {
        (std::net::Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    std::net::UdpSocket::bind(any)
        .and_then(|u| {
            u.connect((ip, 9))?;
            u.local_addr()
        })
        .is_ok_and(|local| local.ip() == ip)
}

/// The host `address` (`host:port`, or `shm:NAME`) names, as its first address's IP (shared
/// memory: this host's loopback); None when it does not resolve. Replicas on one host share its
/// processors, so a client spreads reads over replicas only when they are on several hosts.
pub fn host_of(address: &str) -> Option<std::net::IpAddr> {
    if address.starts_with(shm::ADDRESS_PREFIX) {
        return Some(std::net::Ipv4Addr::LOCALHOST.into());
    }
    address.to_socket_addrs().ok()?.next().map(|a| a.ip())
}

/// Raises this process's soft limit on open descriptors to its hard limit (a shared-memory
/// connection holds five on each side, a TCP one one); returns the limit now in force.
pub fn raise_descriptor_limit() -> io::Result<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).map_err(io::Error::from)?;
    if soft < hard {
        setrlimit(Resource::RLIMIT_NOFILE, hard, hard).map_err(io::Error::from)?;
    }
    Ok(hard)
}

/// Opens a listening socket.
pub fn listen(address: &str) -> io::Result<TcpListener> {
    TcpListener::bind(address)
}

/// A plain TCP echo of fixed-size messages, the baseline `cairn bench readperf` compares against:
/// the cost of one round trip with no database work.
pub mod echo {
    use super::*;

    /// Serves echo on `listener` until a connection closes; one thread per connection.
    pub fn serve(listener: TcpListener) {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let _ = stream.set_nodelay(true);
                let mut stream = stream;
                let mut buf = vec![0u8; 64 * 1024];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => {
                            if stream.write_all(buf.get(..n).unwrap_or_default()).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    }

    /// A client connection to an echo server that times round trips of one message size.
    pub struct PingPong {
        stream: TcpStream,
        message: Vec<u8>,
        echo: Vec<u8>,
        spin: Duration,
    }

    impl PingPong {
        pub fn connect(address: SocketAddr, size: usize) -> io::Result<PingPong> {
            let stream = TcpStream::connect(address)?;
            stream.set_nodelay(true)?;
            Ok(PingPong {
                stream,
                message: vec![7u8; size.max(1)],
                echo: vec![0u8; size.max(1)],
                spin: Duration::ZERO,
            })
        }

        /// Waits for each echo the way `FrameReader::set_spin` makes the client library wait:
        /// polling for `spin`, then sleeping.
        pub fn set_spin(&mut self, spin: Duration) {
            self.spin = spin;
        }

        /// Sends the message and waits for its echo, `count` times; returns the elapsed time.
        pub fn run(&mut self, count: usize) -> io::Result<Duration> {
            let start = Instant::now();
            for _ in 0..count {
                self.stream.write_all(&self.message)?;
                let mut got = 0;
                if !self.spin.is_zero() {
                    self.stream.set_nonblocking(true)?;
                    let until = Instant::now() + self.spin;
                    while got < self.echo.len() && Instant::now() < until {
                        // A read reports at most what it was given, so `got` stays in range.
                        let rest = self.echo.get_mut(got..).unwrap_or_default();
                        match self.stream.read(rest) {
                            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                            Ok(n) => got += n,
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                                std::hint::spin_loop()
                            }
                            Err(e) => return Err(e),
                        }
                    }
                    self.stream.set_nonblocking(false)?;
                }
                let rest = self.echo.get_mut(got..).unwrap_or_default();
                self.stream.read_exact(rest)?;
            }
            Ok(start.elapsed())
        }
    }
}

#[cfg(test)]
mod write_tests {
    use super::*;

    /// A writer's `write_all` goes through while another handle of the socket has made it
    /// non-blocking (as a reader polling for a reply does) and the peer reads slowly.
    #[test]
    fn write_all_waits_for_room_on_a_socket_another_handle_made_non_blocking() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            std::thread::sleep(Duration::from_millis(200));
            let mut all = Vec::new();
            s.read_to_end(&mut all).unwrap();
            all.len()
        });
        let writer = Stream::Tcp(TcpStream::connect(address).unwrap());
        let mut reader = writer.try_clone().unwrap();
        reader.set_nonblocking(true).unwrap();
        let big = vec![7u8; 16 << 20];
        writer.write_all(&big).unwrap();
        writer.shutdown();
        assert_eq!(peer.join().unwrap(), big.len());
    }
}
