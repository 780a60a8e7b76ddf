//! Non-blocking connections for event loops (a data node's worker threads): read every frame that
//! has arrived without waiting, queue replies, and write as much as the socket takes; what it does
//! not take stays queued, so a slow peer never blocks the loop.

use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr};

use mio::net::TcpStream;
use mio::Interest;
pub use mio::{Registry, Token};
use wire::{FrameHeader, Message};

use crate::buffer::FrameBuffer;
use crate::TransportError;

/// Whether a connection is still usable after reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadState {
    Open,
    /// The peer closed its side between frames.
    Closed,
}

pub struct Connection {
    stream: TcpStream,
    input: FrameBuffer,
    output: Vec<u8>,
    written: usize,
    peer: String,
    writable_interest: bool,
}

impl Connection {
    /// Takes over an accepted stream: non-blocking, TCP_NODELAY.
    pub fn new(stream: std::net::TcpStream) -> io::Result<Connection> {
        stream.set_nodelay(true)?;
        stream.set_nonblocking(true)?;
        let peer = stream
            .peer_addr()
            .map(|a: SocketAddr| a.to_string())
            .unwrap_or_default();
        Ok(Connection {
            stream: TcpStream::from_std(stream),
            input: FrameBuffer::default(),
            output: Vec::with_capacity(64 * 1024),
            written: 0,
            peer,
            writable_interest: false,
        })
    }

    pub fn peer(&self) -> &str {
        &self.peer
    }

    pub fn register(&mut self, registry: &Registry, token: Token) -> io::Result<()> {
        registry.register(&mut self.stream, token, Interest::READABLE)
    }

    pub fn deregister(&mut self, registry: &Registry) {
        let _ = registry.deregister(&mut self.stream);
    }

    /// Hands every whole frame that has arrived to `each`, reading until the socket is drained.
    pub fn read_frames(
        &mut self,
        mut each: impl FnMut(FrameHeader, Message),
    ) -> Result<ReadState, TransportError> {
        loop {
            while let Some((h, m)) = self.input.parse()? {
                each(h, m);
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
                        each(h, m);
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
        let mut chunk = [0u8; 16 * 1024];
        loop {
            if into.len() >= limit {
                return Ok(ReadState::Open);
            }
            match std::io::Read::read(&mut self.stream, &mut chunk) {
                Ok(0) => return Ok(ReadState::Closed),
                // A short read drained the socket (as in `read_frames`): skip the read that
                // would only say WouldBlock.
                Ok(n) if n < chunk.len() && !peer_closed => {
                    into.extend_from_slice(&chunk[..n]);
                    return Ok(ReadState::Open);
                }
                Ok(n) => into.extend_from_slice(&chunk[..n]),
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
        while self.written < self.output.len() {
            match self.stream.write(&self.output[self.written..]) {
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
        let pending = self.written < self.output.len();
        if !pending {
            self.output.clear();
            self.written = 0;
        }
        if pending != self.writable_interest {
            let interest = if pending {
                Interest::READABLE | Interest::WRITABLE
            } else {
                Interest::READABLE
            };
            registry.reregister(&mut self.stream, token, interest)?;
            self.writable_interest = pending;
        }
        Ok(())
    }

    /// Bytes queued and not yet written.
    pub fn backlog(&self) -> usize {
        self.output.len() - self.written
    }

    pub fn shutdown(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }
}
