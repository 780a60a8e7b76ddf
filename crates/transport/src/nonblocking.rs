//! Non-blocking connections for event loops (a data node's worker threads): read every frame that
//! has arrived without waiting, queue replies, and write as much as the socket takes; what it does
//! not take stays queued, so a slow peer never blocks the loop.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr};

use mio::net::{TcpStream, UnixStream};
use mio::unix::SourceFd;
use mio::Interest;
pub use mio::{Registry, Token};
use wire::{FrameHeader, Message};

use crate::buffer::FrameBuffer;
use crate::shm::ShmStream;
use crate::tls::TlsStream;
use crate::{Stream, TransportError};
use std::os::fd::AsRawFd;

/// The socket under a connection. A shared-memory stream has no writable events: every event
/// of its token may mean room was freed, so reading first writes what waits.
enum Io {
    Tcp(TcpStream),
    Shm(ShmStream),
    Unix(UnixStream),
    /// Plaintext is queued in `output` and sealed into the stream's own buffer as it is flushed.
    Tls(TlsStream),
}

impl Read for Io {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Io::Tcp(s) => s.read(buf),
            Io::Shm(s) => s.read(buf),
            Io::Unix(s) => s.read(buf),
            Io::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Io {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Io::Tcp(s) => s.write(buf),
            Io::Shm(s) => s.write(buf),
            Io::Unix(s) => s.write(buf),
            Io::Tls(s) => s.write_some(buf).map(|()| buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether a connection is still usable after reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadState {
    Open,
    /// The peer closed its side between frames.
    Closed,
    /// The reader asked to stop (`read_frames_while`): input may wait in the buffer and the
    /// socket, and no new readiness event will announce it, so read again when ready for more.
    Stopped,
}

/// The most output buffer an idle connection keeps for its next answers; one grown past it
/// for a large answer is freed once that is written.
pub const OUTPUT_RETAINED_BYTES: usize = 1 << 20;

pub struct Connection {
    stream: Io,
    input: FrameBuffer,
    output: Vec<u8>,
    written: usize,
    peer: String,
    writable_interest: bool,
}

impl Connection {
    /// Takes over an accepted or connected stream: non-blocking, TCP_NODELAY.
    pub fn new(stream: impl Into<Stream>) -> io::Result<Connection> {
        let (stream, peer) = match stream.into() {
            Stream::Tcp(stream) => {
                stream.set_nodelay(true)?;
                stream.set_nonblocking(true)?;
                let peer = stream
                    .peer_addr()
                    .map(|a: SocketAddr| a.to_string())
                    .unwrap_or_default();
                (Io::Tcp(TcpStream::from_std(stream)), peer)
            }
            Stream::Shm(mut stream) => {
                stream.set_nonblocking(true);
                let peer = stream.name().to_string();
                (Io::Shm(stream), peer)
            }
            Stream::Unix(stream) => {
                stream.set_nonblocking(true)?;
                (Io::Unix(UnixStream::from_std(stream)), "local".to_string())
            }
            Stream::Tls(stream) => {
                stream.socket().set_nodelay(true)?;
                stream.set_nonblocking(true)?;
                let peer = stream
                    .socket()
                    .peer_addr()
                    .map(|a: SocketAddr| a.to_string())
                    .unwrap_or_default();
                (Io::Tls(stream), peer)
            }
        };
        Ok(Connection {
            stream,
            input: FrameBuffer::default(),
            // Grows with the first answers; an idle connection holds none.
            output: Vec::new(),
            written: 0,
            peer,
            writable_interest: false,
        })
    }

    /// True while part of a frame is buffered, waiting for the rest.
    pub fn is_partial(&self) -> bool {
        self.input.is_partial()
    }

    pub fn peer(&self) -> &str {
        &self.peer
    }

    pub fn register(&mut self, registry: &Registry, token: Token) -> io::Result<()> {
        match &mut self.stream {
            Io::Tcp(s) => registry.register(s, token, Interest::READABLE),
            Io::Unix(s) => registry.register(s, token, Interest::READABLE),
            Io::Tls(s) => registry.register(
                &mut SourceFd(&s.socket().as_raw_fd()),
                token,
                Interest::READABLE,
            ),
            Io::Shm(s) => {
                let fds = s.poll_fds();
                for (i, fd) in fds.iter().enumerate() {
                    if let Err(e) = registry.register(&mut SourceFd(fd), token, Interest::READABLE)
                    {
                        // The peer holds the same eventfds, so closing ours would not take
                        // them out of the poll: undo what was registered.
                        for done in fds.iter().take(i) {
                            let _ = registry.deregister(&mut SourceFd(done));
                        }
                        return Err(e);
                    }
                }
                Ok(())
            }
        }
    }

    pub fn deregister(&mut self, registry: &Registry) {
        match &mut self.stream {
            Io::Tcp(s) => {
                let _ = registry.deregister(s);
            }
            Io::Unix(s) => {
                let _ = registry.deregister(s);
            }
            Io::Tls(s) => {
                let _ = registry.deregister(&mut SourceFd(&s.socket().as_raw_fd()));
            }
            Io::Shm(s) => {
                for fd in s.poll_fds() {
                    let _ = registry.deregister(&mut SourceFd(&fd));
                }
            }
        }
    }

    /// A shared-memory stream's output left over when its ring was full goes out on the next
    /// event (the peer freed room), before reading.
    fn write_pending(&mut self) -> io::Result<()> {
        if matches!(self.stream, Io::Shm(_)) && self.backlog() > 0 {
            self.write_some()?;
        }
        Ok(())
    }

    /// Writes as much of the queue as the stream takes; true when something is left.
    fn write_some(&mut self) -> io::Result<bool> {
        while let Some(rest) = self.output.get(self.written..).filter(|r| !r.is_empty()) {
            match self.stream.write(rest) {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "socket accepted no bytes",
                    ))
                }
                Ok(n) => self.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let pending = self.written < self.output.len()
            || match &self.stream {
                Io::Tls(s) => s.flush_pending()?,
                _ => false,
            };
        if self.written == self.output.len() {
            if self.output.capacity() > OUTPUT_RETAINED_BYTES {
                // Grown for one large answer (a scan's rows): give the memory back.
                self.output = Vec::new();
            } else {
                self.output.clear();
            }
            self.written = 0;
        }
        Ok(pending)
    }

    /// Joins an execute reply sent in several frames into one message (a client's connection).
    pub fn join_replies(&mut self) {
        self.input.join_replies();
    }

    /// Hands every whole frame that has arrived to `each`, reading until the socket is drained.
    pub fn read_frames(
        &mut self,
        mut each: impl FnMut(FrameHeader, Message),
    ) -> Result<ReadState, TransportError> {
        self.read_frames_while(|h, m| {
            each(h, m);
            true
        })
    }

    /// As `read_frames`, but stops (`ReadState::Stopped`) after a frame for which `each`
    /// answers false, leaving the rest of the input for a later call.
    pub fn read_frames_while(
        &mut self,
        mut each: impl FnMut(FrameHeader, Message) -> bool,
    ) -> Result<ReadState, TransportError> {
        // A failed write is reported after what already arrived is read, as TCP would.
        let written = self.write_pending();
        let state = self.read_frames_only(&mut each)?;
        written?;
        Ok(state)
    }

    fn read_frames_only(
        &mut self,
        each: &mut impl FnMut(FrameHeader, Message) -> bool,
    ) -> Result<ReadState, TransportError> {
        loop {
            while let Some((h, m)) = self.input.parse()? {
                if !each(h, m) {
                    return Ok(ReadState::Stopped);
                }
            }
            match self.input.fill(&mut self.stream) {
                Ok((0, _)) if !self.input.is_partial() => return Ok(ReadState::Closed),
                Ok((0, _)) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "peer closed inside a frame",
                    )
                    .into());
                }
                // A read that did not fill the buffer drained the socket: anything that arrives
                // later raises a new readiness event, so skip the read that would say WouldBlock.
                Ok((_, false)) => {
                    while let Some((h, m)) = self.input.parse()? {
                        if !each(h, m) {
                            return Ok(ReadState::Stopped);
                        }
                    }
                    return Ok(ReadState::Open);
                }
                Ok((_, true)) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(ReadState::Open),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Reads every byte that has arrived, appending it to `into` (for text protocols, which
    /// frame their own input); stops once `into` holds `limit` bytes.
    ///
    /// `peer_closed`: the readiness event carried the peer's FIN. Then a short read does not
    /// end the reading, which goes on to the end of input, so the close is seen now: no further
    /// event will report it.
    pub fn read_raw(
        &mut self,
        into: &mut Vec<u8>,
        limit: usize,
        peer_closed: bool,
    ) -> io::Result<ReadState> {
        let written = self.write_pending();
        let state = self.read_raw_only(into, limit, peer_closed)?;
        written?;
        Ok(state)
    }

    fn read_raw_only(
        &mut self,
        into: &mut Vec<u8>,
        limit: usize,
        peer_closed: bool,
    ) -> io::Result<ReadState> {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if into.len() >= limit {
                return Ok(ReadState::Open);
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Ok(ReadState::Closed),
                // A short read drained the socket (as in `read_frames`): skip the read that
                // would only say WouldBlock.
                // A read reports at most what it was given.
                Ok(n) if n < chunk.len() && !peer_closed => {
                    into.extend_from_slice(chunk.get(..n).unwrap_or_default());
                    return Ok(ReadState::Open);
                }
                Ok(n) => into.extend_from_slice(chunk.get(..n).unwrap_or_default()),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(ReadState::Open),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The queue of bytes (whole frames) waiting to be written.
    pub fn output(&mut self) -> &mut Vec<u8> {
        &mut self.output
    }

    /// Writes as much of the queue as the socket takes, in as few writes as it allows; asks for
    /// a writable event when something is left.
    pub fn flush(&mut self, registry: &Registry, token: Token) -> io::Result<()> {
        let pending = self.write_some()?;
        if pending != self.writable_interest {
            let interest = if pending {
                Interest::READABLE | Interest::WRITABLE
            } else {
                Interest::READABLE
            };
            match &mut self.stream {
                Io::Tcp(s) => registry.reregister(s, token, interest)?,
                Io::Unix(s) => registry.reregister(s, token, interest)?,
                Io::Tls(s) => {
                    registry.reregister(&mut SourceFd(&s.socket().as_raw_fd()), token, interest)?
                }
                Io::Shm(_) => return Ok(()),
            }
            self.writable_interest = pending;
        }
        Ok(())
    }

    /// Bytes queued and not yet written.
    pub fn backlog(&self) -> usize {
        let sealed = match &self.stream {
            Io::Tls(s) => s.pending(),
            _ => 0,
        };
        self.output.len() - self.written + sealed
    }

    pub fn shutdown(&self) {
        match &self.stream {
            Io::Tcp(s) => {
                let _ = s.shutdown(Shutdown::Both);
            }
            Io::Unix(s) => {
                let _ = s.shutdown(Shutdown::Both);
            }
            Io::Tls(s) => {
                let _ = s.socket().shutdown(Shutdown::Both);
            }
            Io::Shm(s) => s.shutdown(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// An event loop's connection under TLS: frames in, large answers out through a socket the
    /// peer leaves full for a while (sealed records wait, a writable event sends them), every
    /// byte arriving in order.
    #[test]
    fn a_tls_connection_in_an_event_loop_answers_through_a_full_socket() {
        let dir = std::env::temp_dir().join(format!("cairn-nb-tls-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let made = crate::tls::make_certificates(&dir, &["s".into(), "c".into()]).unwrap();
        let server = crate::tls::ClusterTls::load(&made[0]).unwrap();
        let client = crate::tls::ClusterTls::load(&made[1]).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        const FRAMES: usize = 40;
        const PAYLOAD: usize = 256 * 1024;
        let peer = std::thread::spawn(move || {
            let c = client
                .connect(std::net::TcpStream::connect(address).unwrap())
                .unwrap();
            let mut out = Vec::new();
            for i in 0..FRAMES {
                Message::Ping {
                    payload: vec![i as u8; PAYLOAD],
                }
                .write_frame(&mut out, 0, 0, i as u64);
            }
            c.write_all(&out).unwrap();
            // Leave the answers unread while the server's socket fills.
            std::thread::sleep(Duration::from_millis(300));
            let mut reader = crate::FrameReader::new(Stream::Tls(c));
            for i in 0..FRAMES {
                match reader.read().unwrap() {
                    Some((h, Message::Pong { payload })) => {
                        assert_eq!(h.request_id, i as u64);
                        assert!(payload.len() == PAYLOAD && payload.iter().all(|b| *b == i as u8));
                    }
                    other => panic!("answer {i}: {:?}", other.map(|(h, _)| h)),
                }
            }
        });
        let (sock, _) = listener.accept().unwrap();
        let mut conn = Connection::new(Stream::Tls(server.accept(sock).unwrap())).unwrap();
        let mut poll = mio::Poll::new().unwrap();
        let token = Token(7);
        conn.register(poll.registry(), token).unwrap();
        let mut events = mio::Events::with_capacity(8);
        let (mut answered, deadline) = (0, Instant::now() + Duration::from_secs(20));
        let mut most_pending = 0;
        // Bytes may have arrived before registration.
        let mut ready = true;
        while !(answered == FRAMES && conn.backlog() == 0) {
            assert!(Instant::now() < deadline, "answered {answered}");
            if !ready {
                poll.poll(&mut events, Some(Duration::from_millis(100)))
                    .unwrap();
            }
            ready = false;
            let mut answers = Vec::new();
            let state = conn
                .read_frames(|h, m| {
                    if let Message::Ping { payload } = m {
                        answers.push((h.request_id, payload));
                    }
                })
                .unwrap();
            assert_ne!(state, ReadState::Closed);
            for (id, payload) in answers {
                Message::Pong { payload }.write_frame(conn.output(), 0, 0, id);
                answered += 1;
            }
            conn.flush(poll.registry(), token).unwrap();
            most_pending = most_pending.max(conn.backlog());
        }
        peer.join().unwrap();
        assert!(
            most_pending > 0,
            "the socket never filled: the test did not test waiting"
        );
    }
}
