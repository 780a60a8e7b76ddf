//! Shared-memory connections between processes on one host (NDB's SHM transporter): two
//! single-producer, single-consumer byte rings in one memfd segment, eventfd wake-ups only when
//! the other side is about to sleep, set up over a Unix socket that passes the descriptors and
//! stays open so either side sees the other's death as a hang-up.
//!
//! A stream of bytes like TCP, so frames, buffers and event loops above it stay the same; what it
//! saves is the loopback TCP stack on every write and, when the reader is busy, the wake-up.
//!
//! The segment is shared with the peer, so everything read from it is checked: a ring position
//! that says more bytes are waiting than the ring holds is an error, never an out-of-bounds copy.

use std::fs::File;
use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::num::NonZeroUsize;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr as UnixAddr, UnixListener, UnixStream};
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::fcntl::{fcntl, FcntlArg, SealFlag};
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::eventfd::{EfdFlags, EventFd};
use nix::sys::memfd::{memfd_create, MFdFlags};
use nix::sys::mman::{mmap, munmap, MapFlags, ProtFlags};
use nix::sys::socket::{
    getsockopt, recv, recvmsg, sendmsg, sockopt, ControlMessage, ControlMessageOwned, MsgFlags,
};

/// Bytes of each direction's ring. Frames larger than a ring pass through it in pieces. Every
/// page of a ring is touched once bytes have gone round it, and a connection holds two.
pub const RING_BYTES: usize = 256 << 10;
/// The segment's first page: the header and both rings' positions and flags.
const CONTROL_BYTES: usize = 4096;
const MAGIC: u64 = u64::from_le_bytes(*b"CAIRNSHM");
const VERSION: u32 = 1;
/// Descriptors passed at connect: the segment and four eventfds.
const PASSED_FDS: usize = 5;

/// The prefix of an address that names a shared-memory listener instead of a TCP one:
/// `shm:NAME` is the Unix socket NAME in Linux's abstract namespace, `shm:/path` a socket file.
pub const ADDRESS_PREFIX: &str = "shm:";

/// Where each ring's control block sits in the control page. Each field has 128 bytes of its own
/// (a cache line and the one the hardware prefetches with it), so the writer's and the reader's
/// stores never share one.
const RING_CONTROL: [usize; 2] = [256, 1024];
const HEAD: usize = 0;
const TAIL: usize = 128;
const READER_WAITING: usize = 256;
const WRITER_WAITING: usize = 384;
const CLOSED: usize = 512;
/// Seals the segment carries before it is passed: neither side can shrink it under the other's
/// mapping (a fault on every access) or grow it.
const SEALS: SealFlag = SealFlag::F_SEAL_SHRINK
    .union(SealFlag::F_SEAL_GROW)
    .union(SealFlag::F_SEAL_SEAL);

fn unix_address(name: &str) -> io::Result<UnixAddr> {
    if name.starts_with('/') {
        UnixAddr::from_pathname(name)
    } else {
        UnixAddr::from_abstract_name(name.as_bytes())
    }
}

fn other(message: impl Into<String>) -> io::Error {
    io::Error::other(message.into())
}

fn errno(e: nix::errno::Errno) -> io::Error {
    io::Error::from(e)
}

/// The mapped segment; unmapped when the last handle goes.
struct Mapping {
    base: NonNull<u8>,
    len: usize,
    ring_bytes: usize,
}

// The mapping is plain memory shared through atomics and the ring protocol below.
unsafe impl Send for Mapping {}
unsafe impl Sync for Mapping {}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: base/len came from one successful mmap and nothing uses them after this.
        let _ = unsafe { munmap(self.base.cast(), self.len) };
    }
}

impl Mapping {
    fn map(fd: &OwnedFd, len: usize) -> io::Result<Mapping> {
        let size = NonZeroUsize::new(len).ok_or_else(|| other("empty segment"))?;
        // SAFETY: a fresh shared mapping of a memfd we hold; only atomics and the ring protocol
        // touch it.
        let base = unsafe {
            mmap(
                None,
                size,
                ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
                MapFlags::MAP_SHARED,
                fd,
                0,
            )
        }
        .map_err(errno)?;
        Ok(Mapping {
            base: base.cast(),
            len,
            ring_bytes: (len - CONTROL_BYTES) / 2,
        })
    }

    fn u64_at(&self, offset: usize) -> &AtomicU64 {
        debug_assert!(offset + 8 <= CONTROL_BYTES && offset.is_multiple_of(8));
        // SAFETY: inside the control page, 8-aligned (the mapping is page-aligned).
        unsafe { &*(self.base.as_ptr().add(offset) as *const AtomicU64) }
    }

    fn u32_at(&self, offset: usize) -> &AtomicU32 {
        debug_assert!(offset + 4 <= CONTROL_BYTES && offset.is_multiple_of(4));
        // SAFETY: as u64_at.
        unsafe { &*(self.base.as_ptr().add(offset) as *const AtomicU32) }
    }

    fn data(&self, ring: usize) -> *mut u8 {
        // SAFETY: ring 0 and 1 data areas lie inside the mapping.
        unsafe {
            self.base
                .as_ptr()
                .add(CONTROL_BYTES + ring * self.ring_bytes)
        }
    }
}

/// One ring seen from one side.
struct Ring {
    control: usize,
    index: usize,
}

impl Ring {
    fn head<'a>(&self, m: &'a Mapping) -> &'a AtomicU64 {
        m.u64_at(self.control + HEAD)
    }
    fn tail<'a>(&self, m: &'a Mapping) -> &'a AtomicU64 {
        m.u64_at(self.control + TAIL)
    }
    fn reader_waiting<'a>(&self, m: &'a Mapping) -> &'a AtomicU32 {
        m.u32_at(self.control + READER_WAITING)
    }
    fn writer_waiting<'a>(&self, m: &'a Mapping) -> &'a AtomicU32 {
        m.u32_at(self.control + WRITER_WAITING)
    }
    fn closed<'a>(&self, m: &'a Mapping) -> &'a AtomicU32 {
        m.u32_at(self.control + CLOSED)
    }
}

struct Inner {
    map: Mapping,
    rx: Ring,
    tx: Ring,
    /// Ours to read: the peer signals it after writing into `rx` (while we wait for data).
    rx_ready: File,
    /// Ours to read: the peer signals it after freeing room in `tx` (while we wait for room).
    tx_ready: File,
    /// The peer's: signalled after we write into `tx`, and after we free room in `rx`.
    peer_rx_ready: File,
    peer_tx_ready: File,
    /// Open while both sides live; the peer's end closing is its death or its close.
    socket: UnixStream,
    /// Our positions: only we move them, so the copies in the segment are never trusted back.
    tx_head: AtomicU64,
    rx_tail: AtomicU64,
    /// One reader and one writer at a time: clones may be used from several threads, and each
    /// ring has one producer and one consumer.
    reading: Mutex<()>,
    writing: Mutex<()>,
    name: String,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.close();
    }
}

impl Inner {
    fn close(&self) {
        let m = &self.map;
        if self.tx.closed(m).swap(1, Ordering::AcqRel) == 0 {
            signal(&self.peer_rx_ready);
        }
        if self.rx.closed(m).swap(1, Ordering::AcqRel) == 0 {
            signal(&self.peer_tx_ready);
        }
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }

    /// Whether the peer's end of the socket is gone (it closed or died). Nothing is sent on the
    /// socket after the handshake, so a byte there is a broken peer, treated as gone (waiting
    /// would never end: the byte keeps the socket readable).
    fn peer_gone(&self) -> bool {
        let mut byte = [0u8; 1];
        match recv(
            self.socket.as_raw_fd(),
            &mut byte,
            MsgFlags::MSG_PEEK | MsgFlags::MSG_DONTWAIT,
        ) {
            Ok(_) => true,
            Err(e) => !matches!(e, nix::errno::Errno::EAGAIN | nix::errno::Errno::EINTR),
        }
    }

    fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let _one_reader = self.reading.lock().unwrap_or_else(|e| e.into_inner());
        let m = &self.map;
        let cap = m.ring_bytes as u64;
        let tail = self.rx_tail.load(Ordering::Relaxed);
        // Say we will wait before looking, so a write after the look signals us (the writer
        // stores its head, then reads this flag; we store the flag, then read its head).
        self.rx.reader_waiting(m).store(1, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        let mut head = self.rx.head(m).load(Ordering::Acquire);
        if head == tail && (self.rx.closed(m).load(Ordering::Acquire) != 0 || self.peer_gone()) {
            // Bytes written just before the close are read before the end of the stream.
            head = self.rx.head(m).load(Ordering::Acquire);
            if head == tail {
                return Ok(0);
            }
        }
        let available = head.wrapping_sub(tail);
        if available > cap {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: shared-memory ring says {available} bytes wait in {cap}",
                    self.name
                ),
            ));
        }
        if available == 0 {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let n = (available as usize).min(buf.len());
        let at = (tail % cap) as usize;
        let first = n.min(m.ring_bytes - at);
        let data = m.data(self.rx.index);
        // SAFETY: [at, at + first) and [0, n - first) lie inside the ring, and the writer does
        // not touch bytes between tail and head until we move tail.
        unsafe {
            std::ptr::copy_nonoverlapping(data.add(at), buf.as_mut_ptr(), first);
            std::ptr::copy_nonoverlapping(data, buf.as_mut_ptr().add(first), n - first);
        }
        let tail = tail + n as u64;
        self.rx_tail.store(tail, Ordering::Relaxed);
        self.rx.tail(m).store(tail, Ordering::Release);
        wake_if_waiting(self.rx.writer_waiting(m), &self.peer_tx_ready);
        Ok(n)
    }

    fn write(&self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let _one_writer = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let m = &self.map;
        let cap = m.ring_bytes as u64;
        if self.tx.closed(m).load(Ordering::Acquire) != 0 {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                format!("{}: closed", self.name),
            ));
        }
        let head = self.tx_head.load(Ordering::Relaxed);
        let mut armed = false;
        let space = loop {
            let tail = self.tx.tail(m).load(Ordering::Acquire);
            let used = head.wrapping_sub(tail);
            if used > cap {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{}: shared-memory ring says {used} bytes used of {cap}",
                        self.name
                    ),
                ));
            }
            let space = cap - used;
            if space > 0 {
                break space;
            }
            if armed {
                if self.peer_gone() {
                    return Err(io::Error::new(
                        io::ErrorKind::BrokenPipe,
                        format!("{}: peer gone", self.name),
                    ));
                }
                return Err(io::ErrorKind::WouldBlock.into());
            }
            self.tx.writer_waiting(m).store(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            armed = true;
        };
        let n = (space as usize).min(buf.len());
        let at = (head % cap) as usize;
        let first = n.min(m.ring_bytes - at);
        let data = m.data(self.tx.index);
        // SAFETY: the free part of the ring, which the reader does not touch until head moves.
        unsafe {
            std::ptr::copy_nonoverlapping(buf.as_ptr(), data.add(at), first);
            std::ptr::copy_nonoverlapping(buf.as_ptr().add(first), data, n - first);
        }
        let head = head + n as u64;
        self.tx_head.store(head, Ordering::Relaxed);
        self.tx.head(m).store(head, Ordering::Release);
        wake_if_waiting(self.tx.reader_waiting(m), &self.peer_rx_ready);
        Ok(n)
    }

    /// Sleeps until `fd` is signalled, the peer hangs up, or `deadline` passes; drains `fd`.
    fn wait(&self, fd: &File, deadline: Option<Instant>) -> io::Result<()> {
        let timeout = match deadline {
            None => PollTimeout::NONE,
            Some(d) => {
                let left = d.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(io::ErrorKind::TimedOut.into());
                }
                let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
                PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX)
            }
        };
        let mut fds = [
            PollFd::new(fd.as_fd(), PollFlags::POLLIN),
            PollFd::new(self.socket.as_fd(), PollFlags::POLLIN),
        ];
        match nix::poll::poll(&mut fds, timeout) {
            Ok(_) | Err(nix::errno::Errno::EINTR) => {}
            Err(e) => return Err(errno(e)),
        }
        let mut drain = [0u8; 8];
        let _ = (&*fd).read(&mut drain);
        Ok(())
    }
}

/// After moving our position: wakes the peer if it said it would wait for that (clearing its
/// flag, so one wake answers one wait). The fence orders our store before reading the flag, as
/// the peer stores its flag before reading our position.
fn wake_if_waiting(flag: &AtomicU32, peer: &File) {
    fence(Ordering::SeqCst);
    if flag.load(Ordering::Relaxed) != 0 && flag.swap(0, Ordering::AcqRel) != 0 {
        signal(peer);
    }
}

fn signal(fd: &File) {
    // An eventfd's counter only overflows after 2^64 - 2 signals; a failed signal is harmless
    // once the peer is gone, and the peer being alive means it succeeded.
    let _ = (&*fd).write(&1u64.to_ne_bytes());
}

/// One end of a shared-memory connection. Clones share it: one may read while another writes
/// (a blocking client's reader thread and writers). Dropping the last clone closes it.
#[derive(Clone)]
pub struct ShmStream {
    inner: Arc<Inner>,
    /// Blocking reads and writes wait (up to `timeout`) instead of answering WouldBlock.
    blocking: bool,
    timeout: Option<Duration>,
}

impl ShmStream {
    /// Connects to the listener `name` (without the `shm:` prefix), retrying refused
    /// connections until `timeout` passes. The stream is blocking.
    pub fn connect(name: &str, timeout: Duration) -> io::Result<ShmStream> {
        let address = unix_address(name)?;
        let deadline = Instant::now() + timeout;
        let socket = loop {
            match UnixStream::connect_addr(&address) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= deadline => {
                    return Err(io::Error::new(e.kind(), format!("shm:{name}: {e}")))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        let left = deadline.saturating_duration_since(Instant::now());
        socket.set_read_timeout(Some(left.max(Duration::from_millis(10))))?;
        let mut byte = [0u8; 1];
        let mut iov = [IoSliceMut::new(&mut byte)];
        let mut space = nix::cmsg_space!([RawFd; PASSED_FDS]);
        let message = recvmsg::<()>(
            socket.as_raw_fd(),
            &mut iov,
            Some(&mut space),
            MsgFlags::MSG_CMSG_CLOEXEC,
        )
        .map_err(errno)?;
        let mut fds: Vec<OwnedFd> = Vec::new();
        for c in message.cmsgs().map_err(errno)? {
            if let ControlMessageOwned::ScmRights(raw) = c {
                // SAFETY: the kernel just installed these descriptors for us; each is owned once.
                fds.extend(
                    raw.into_iter()
                        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }),
                );
            }
        }
        let passed = fds.len();
        let Ok([segment, rx_ready, tx_ready, peer_rx_ready, peer_tx_ready]) =
            <[OwnedFd; PASSED_FDS]>::try_from(fds)
        else {
            return Err(other(format!(
                "shm:{name}: the listener passed {passed} descriptors, not {PASSED_FDS}"
            )));
        };
        let seals = fcntl(&segment, FcntlArg::F_GET_SEALS).map_err(errno)?;
        if !SealFlag::from_bits_truncate(seals).contains(SEALS) {
            return Err(other(format!(
                "shm:{name}: the segment is not sealed against resizing"
            )));
        }
        let len = File::from(segment.try_clone()?).metadata()?.len() as usize;
        if len <= CONTROL_BYTES
            || !(len - CONTROL_BYTES).is_multiple_of(2)
            || len > CONTROL_BYTES + 2 * (64 << 20)
        {
            return Err(other(format!("shm:{name}: a segment of {len} bytes")));
        }
        let map = Mapping::map(&segment, len)?;
        if map.u64_at(0).load(Ordering::Acquire) != MAGIC
            || map.u32_at(8).load(Ordering::Acquire) != VERSION
            || map.u32_at(12).load(Ordering::Acquire) as usize != map.ring_bytes
        {
            return Err(other(format!(
                "shm:{name}: not a Cairn segment of version {VERSION}"
            )));
        }
        let (rx_ready, tx_ready, peer_rx_ready, peer_tx_ready) = (
            File::from(rx_ready),
            File::from(tx_ready),
            File::from(peer_rx_ready),
            File::from(peer_tx_ready),
        );
        socket.set_read_timeout(None)?;
        socket.set_nonblocking(true)?;
        Ok(ShmStream::new(Inner {
            map,
            // The listener writes ring 0 and reads ring 1.
            rx: Ring {
                control: RING_CONTROL[0],
                index: 0,
            },
            tx: Ring {
                control: RING_CONTROL[1],
                index: 1,
            },
            rx_ready,
            tx_ready,
            peer_rx_ready,
            peer_tx_ready,
            socket,
            tx_head: AtomicU64::new(0),
            rx_tail: AtomicU64::new(0),
            reading: Mutex::new(()),
            writing: Mutex::new(()),
            name: format!("shm:{name}"),
        }))
    }

    fn new(inner: Inner) -> ShmStream {
        ShmStream {
            inner: Arc::new(inner),
            blocking: true,
            timeout: None,
        }
    }

    /// Whether reads and writes wait; event loops turn this off.
    pub fn set_nonblocking(&mut self, on: bool) {
        self.blocking = !on;
    }

    /// How long a blocking read waits (None: for ever); then it answers TimedOut.
    pub fn set_read_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Closes both directions now: the peer reads the end of the stream, its writes fail.
    pub fn shutdown(&self) {
        self.inner.close();
    }

    /// The descriptors an event loop waits on: data arrived, room freed, the peer hung up.
    /// Register all three under one token, readable; every event may mean either direction.
    pub fn poll_fds(&self) -> [RawFd; 3] {
        [
            self.inner.rx_ready.as_raw_fd(),
            self.inner.tx_ready.as_raw_fd(),
            self.inner.socket.as_raw_fd(),
        ]
    }
}

impl Read for ShmStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self).read(buf)
    }
}

impl Read for &ShmStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let deadline = self.timeout.map(|t| Instant::now() + t);
        loop {
            match self.inner.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && self.blocking => {
                    self.inner.wait(&self.inner.rx_ready, deadline)?
                }
                other => return other,
            }
        }
    }
}

impl Write for ShmStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self).write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Write for &ShmStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match self.inner.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && self.blocking => {
                    self.inner.wait(&self.inner.tx_ready, None)?
                }
                other => return other,
            }
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Accepts shared-memory connections: each gets a fresh segment and eventfds, passed over the
/// Unix socket the peer connected on.
pub struct ShmListener {
    listener: UnixListener,
    name: String,
}

impl ShmListener {
    /// Listens on `name` (without the `shm:` prefix): an abstract socket name, or a socket file
    /// path starting with `/` (a stale file there is replaced).
    pub fn bind(name: &str) -> io::Result<ShmListener> {
        if name.is_empty() || name.len() > 100 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("shm:{name}: a name of 1 to 100 bytes"),
            ));
        }
        if name.starts_with('/') {
            use std::os::unix::fs::FileTypeExt;
            if let Ok(meta) = std::fs::symlink_metadata(name) {
                // Only a socket nobody listens on any more (left by a process that died) is
                // replaced; anything else at the path is an error, not deleted.
                let stale = meta.file_type().is_socket()
                    && UnixStream::connect(name)
                        .is_err_and(|e| e.kind() == io::ErrorKind::ConnectionRefused);
                if !stale {
                    return Err(io::Error::new(
                        io::ErrorKind::AddrInUse,
                        format!("shm:{name}: the path is taken"),
                    ));
                }
                std::fs::remove_file(name)?;
            }
        }
        let listener = UnixListener::bind_addr(&unix_address(name)?)?;
        Ok(ShmListener {
            listener,
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Waits for the next connection and sets it up; the stream is blocking. Only processes of
    /// this process's user may connect: the other side shares memory and wake-ups with this
    /// one, so it is trusted as far as that user is.
    pub fn accept(&self) -> io::Result<ShmStream> {
        let (socket, _) = self.listener.accept()?;
        let peer = getsockopt(&socket, sockopt::PeerCredentials).map_err(errno)?;
        let ours = nix::unistd::Uid::effective().as_raw();
        if peer.uid() != ours {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "shm:{}: refused a process of uid {} (this one runs as {ours})",
                    self.name,
                    peer.uid()
                ),
            ));
        }
        self.set_up(socket)
    }

    fn set_up(&self, socket: UnixStream) -> io::Result<ShmStream> {
        let len = CONTROL_BYTES + 2 * RING_BYTES;
        let segment = memfd_create(
            c"cairn-shm",
            MFdFlags::MFD_CLOEXEC | MFdFlags::MFD_ALLOW_SEALING,
        )
        .map_err(errno)?;
        File::from(segment.try_clone()?).set_len(len as u64)?;
        fcntl(&segment, FcntlArg::F_ADD_SEALS(SEALS)).map_err(errno)?;
        let map = Mapping::map(&segment, len)?;
        map.u32_at(8).store(VERSION, Ordering::Relaxed);
        map.u32_at(12).store(RING_BYTES as u32, Ordering::Relaxed);
        map.u64_at(0).store(MAGIC, Ordering::Release);
        let event = || -> io::Result<OwnedFd> {
            Ok(
                EventFd::from_value_and_flags(0, EfdFlags::EFD_CLOEXEC | EfdFlags::EFD_NONBLOCK)
                    .map_err(errno)?
                    .into(),
            )
        };
        let (our_rx, our_tx, their_rx, their_tx) = (event()?, event()?, event()?, event()?);
        let passed = [
            segment.as_raw_fd(),
            their_rx.as_raw_fd(),
            their_tx.as_raw_fd(),
            our_rx.as_raw_fd(),
            our_tx.as_raw_fd(),
        ];
        sendmsg::<()>(
            socket.as_raw_fd(),
            &[IoSlice::new(&[1])],
            &[ControlMessage::ScmRights(&passed)],
            MsgFlags::MSG_NOSIGNAL,
            None,
        )
        .map_err(errno)?;
        socket.set_nonblocking(true)?;
        Ok(ShmStream::new(Inner {
            map,
            rx: Ring {
                control: RING_CONTROL[1],
                index: 1,
            },
            tx: Ring {
                control: RING_CONTROL[0],
                index: 0,
            },
            rx_ready: File::from(our_rx),
            tx_ready: File::from(our_tx),
            peer_rx_ready: File::from(their_rx),
            peer_tx_ready: File::from(their_tx),
            socket,
            tx_head: AtomicU64::new(0),
            rx_tail: AtomicU64::new(0),
            reading: Mutex::new(()),
            writing: Mutex::new(()),
            name: format!("shm:{}", self.name),
        }))
    }
}

impl Drop for ShmListener {
    fn drop(&mut self) {
        if self.name.starts_with('/') {
            let _ = std::fs::remove_file(&self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str) -> (ShmStream, ShmStream) {
        let listener = ShmListener::bind(name).unwrap();
        let name = name.to_string();
        let client = std::thread::spawn(move || ShmStream::connect(&name, Duration::from_secs(5)));
        let server = listener.accept().unwrap();
        (server, client.join().unwrap().unwrap())
    }

    fn unique(tag: &str) -> String {
        format!("cairn-test-{}-{tag}", std::process::id())
    }

    #[test]
    fn bytes_cross_both_ways_in_order_through_wrap_arounds() {
        let (server, client) = pair(&unique("order"));
        let total = 3 * RING_BYTES + 12345;
        let writer = {
            let mut client = client.clone();
            std::thread::spawn(move || {
                let mut sent = 0usize;
                let mut chunk = vec![0u8; 100_003];
                while sent < total {
                    let n = chunk.len().min(total - sent);
                    for (i, b) in chunk[..n].iter_mut().enumerate() {
                        *b = ((sent + i) % 251) as u8;
                    }
                    client.write_all(&chunk[..n]).unwrap();
                    sent += n;
                }
            })
        };
        let mut server = server;
        let mut got = 0usize;
        let mut buf = vec![0u8; 65_536];
        while got < total {
            let n = server.read(&mut buf).unwrap();
            assert!(n > 0);
            for (i, b) in buf[..n].iter().enumerate() {
                assert_eq!(*b, ((got + i) % 251) as u8, "byte {}", got + i);
            }
            got += n;
        }
        writer.join().unwrap();
        server.write_all(b"back").unwrap();
        let mut back = [0u8; 4];
        let mut client = client;
        client.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"back");
    }

    #[test]
    fn a_closed_or_dropped_peer_reads_as_end_of_stream() {
        let (server, client) = pair(&unique("close"));
        let mut client = client;
        (&server).write_all(b"last").unwrap();
        drop(server);
        let mut all = Vec::new();
        client.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"last");
        assert_eq!(
            client.write(b"x").unwrap_err().kind(),
            io::ErrorKind::BrokenPipe
        );
    }

    #[test]
    fn nonblocking_reads_say_would_block_and_a_full_ring_refuses_more() {
        let (server, client) = pair(&unique("full"));
        let mut server = server;
        server.set_nonblocking(true);
        let mut buf = [0u8; 16];
        assert_eq!(
            server.read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        let big = vec![9u8; RING_BYTES + 10];
        let written = server.write(&big).unwrap();
        assert_eq!(written, RING_BYTES);
        assert_eq!(
            server.write(&big).unwrap_err().kind(),
            io::ErrorKind::WouldBlock
        );
        drop(client);
        assert_eq!(server.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn a_byte_on_the_socket_ends_the_stream_instead_of_a_busy_wait() {
        let (server, client) = pair(&unique("byte"));
        (&server.inner.socket).write_all(&[1]).unwrap();
        let mut client = client;
        client.set_read_timeout(Some(Duration::from_secs(10)));
        let mut buf = [0u8; 4];
        assert_eq!(client.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn a_socket_file_listener_replaces_only_a_dead_socket() {
        let path = std::env::temp_dir().join(unique("file.sock"));
        let path = path.to_str().unwrap().to_string();
        std::fs::write(&path, b"not a socket").unwrap();
        assert_eq!(
            ShmListener::bind(&path).err().unwrap().kind(),
            io::ErrorKind::AddrInUse
        );
        std::fs::remove_file(&path).unwrap();
        let live = ShmListener::bind(&path).unwrap();
        assert!(
            ShmListener::bind(&path).is_err(),
            "a live listener's path was taken over"
        );
        drop(live);
        assert!(
            std::fs::symlink_metadata(&path).is_err(),
            "the socket file stays after drop"
        );
        // A socket left by a listener that is gone (here: bound and forgotten) is replaced.
        let stale = UnixListener::bind(&path).unwrap();
        drop(stale);
        let again = ShmListener::bind(&path).unwrap();
        drop(again);
    }

    #[test]
    fn a_blocking_read_times_out() {
        let (server, _client) = pair(&unique("timeout"));
        let mut server = server;
        server.set_read_timeout(Some(Duration::from_millis(20)));
        let mut buf = [0u8; 4];
        assert_eq!(
            server.read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::TimedOut
        );
    }

    #[test]
    fn a_corrupt_position_is_an_error_not_a_wild_copy() {
        let (server, client) = pair(&unique("corrupt"));
        let mut server = server;
        server.set_nonblocking(true);
        // The peer (here, us) claims more bytes than the ring holds.
        let ring = &server.inner.rx;
        ring.head(&server.inner.map)
            .store(u64::MAX / 2, Ordering::Release);
        let mut buf = [0u8; 16];
        assert_eq!(
            server.read(&mut buf).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        drop(client);
    }
}
