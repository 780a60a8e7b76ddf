//! Moves native-protocol frames between two processes. TCP today (no Nagle delay; every frame ready
//! for a peer goes out in one write); shared memory later behind the same types.
//!
//! It is the only crate that opens sockets. It checks frame headers and checksums, so a peer that
//! sends a bad frame gets a `TransportError` naming why, and only its connection is affected.

use std::io::{self, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::Duration;

use wire::{DecodeError, FrameHeader, Message, HEADER_BYTES};

/// Why a connection can no longer be used.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("i/o: {0}")]
    Io(#[from] io::Error),
    #[error("bad frame: {0}")]
    Decode(#[from] DecodeError),
}

/// Bytes the reader buffers from the socket at once.
const READ_BUFFER_BYTES: usize = 256 * 1024;

/// Reads whole frames from one connection.
pub struct FrameReader {
    stream: BufReader<TcpStream>,
}

impl FrameReader {
    /// Reads the next frame and decodes its message. Ok(None) on a clean close between frames.
    pub fn read(&mut self) -> Result<Option<(FrameHeader, Message)>, TransportError> {
        let mut header_bytes = [0u8; HEADER_BYTES];
        match self.stream.read_exact(&mut header_bytes[..1]) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        self.stream.read_exact(&mut header_bytes[1..])?;
        let header = FrameHeader::decode(&header_bytes)?;
        // body_len was checked against FRAME_BODY_BYTES_MAX by decode.
        let mut body = vec![0u8; header.body_len as usize];
        self.stream.read_exact(&mut body)?;
        header.verify(&header_bytes, &body)?;
        let message = Message::decode(&header, &body)?;
        Ok(Some((header, message)))
    }
}

/// Writes frames to one connection; callers batch frames into one buffer and send it in one call.
pub struct FrameWriter {
    stream: TcpStream,
}

impl FrameWriter {
    /// Writes a buffer holding one or more whole frames.
    pub fn send(&mut self, frames: &[u8]) -> io::Result<()> {
        self.stream.write_all(frames)
    }

    /// Closes both directions, which also ends the peer's reader.
    pub fn shutdown(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    pub fn peer(&self) -> Option<SocketAddr> {
        self.stream.peer_addr().ok()
    }

    pub fn try_clone(&self) -> io::Result<FrameWriter> {
        Ok(FrameWriter {
            stream: self.stream.try_clone()?,
        })
    }
}

/// Splits a connected stream into a frame reader and writer, with TCP_NODELAY set.
pub fn split(stream: TcpStream) -> io::Result<(FrameReader, FrameWriter)> {
    stream.set_nodelay(true)?;
    let reader = FrameReader {
        stream: BufReader::with_capacity(READ_BUFFER_BYTES, stream.try_clone()?),
    };
    Ok((reader, FrameWriter { stream }))
}

/// Connects to a data node, retrying refused connections until `timeout` passes.
pub fn connect(address: &str, timeout: Duration) -> io::Result<(FrameReader, FrameWriter)> {
    let deadline = std::time::Instant::now() + timeout;
    let addrs: Vec<SocketAddr> = address.to_socket_addrs()?.collect();
    loop {
        let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {address}"));
        for a in &addrs {
            match TcpStream::connect_timeout(a, timeout.max(Duration::from_millis(10))) {
                Ok(s) => return split(s),
                Err(e) => last = e,
            }
        }
        if std::time::Instant::now() >= deadline {
            return Err(last);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
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
                            if stream.write_all(&buf[..n]).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
        }
    }

    /// Sends `size`-byte messages and waits for each echo, `count` times; returns the elapsed time.
    pub fn ping_pong(address: SocketAddr, size: usize, count: usize) -> io::Result<Duration> {
        let mut stream = TcpStream::connect(address)?;
        stream.set_nodelay(true)?;
        let msg = vec![7u8; size.max(1)];
        let mut back = vec![0u8; size.max(1)];
        let start = std::time::Instant::now();
        for _ in 0..count {
            stream.write_all(&msg)?;
            stream.read_exact(&mut back)?;
        }
        Ok(start.elapsed())
    }
}
