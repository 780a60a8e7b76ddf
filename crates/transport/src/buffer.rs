//! The receive buffer shared by blocking and non-blocking connections: bytes in, whole checked
//! frames out, partial frames kept for the next read.

use std::io::{self, Read};

use wire::{FrameHeader, Message, HEADER_BYTES};

use crate::TransportError;

/// Bytes asked of the socket at once; a larger frame grows the buffer up to the frame limit.
pub const READ_BUFFER_BYTES: usize = 256 * 1024;

pub struct FrameBuffer {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Default for FrameBuffer {
    fn default() -> Self {
        FrameBuffer {
            buf: vec![0; READ_BUFFER_BYTES],
            start: 0,
            end: 0,
        }
    }
}

impl FrameBuffer {
    /// True when part of a frame is buffered.
    pub fn is_partial(&self) -> bool {
        self.start != self.end
    }

    /// Reads once from `source` into the free space; returns the bytes read (0: end of stream)
    /// and whether the read filled all the space it was offered.
    pub fn fill(&mut self, source: &mut impl Read) -> io::Result<(usize, bool)> {
        if self.end == self.buf.len() {
            self.compact();
        }
        let offered = self.buf.len() - self.end;
        let n = source.read(&mut self.buf[self.end..])?;
        self.end += n;
        Ok((n, n == offered))
    }

    /// Takes one whole frame off the buffer if it holds one; makes room for the rest otherwise.
    pub fn parse(&mut self) -> Result<Option<(FrameHeader, Message)>, TransportError> {
        let available = self.end - self.start;
        if available >= HEADER_BYTES {
            let mut header_bytes = [0u8; HEADER_BYTES];
            header_bytes.copy_from_slice(&self.buf[self.start..self.start + HEADER_BYTES]);
            // decode checks body_len against FRAME_BODY_BYTES_MAX before anything is allocated.
            let header = FrameHeader::decode(&header_bytes)?;
            let total = HEADER_BYTES + header.body_len as usize;
            if available >= total {
                let body = &self.buf[self.start + HEADER_BYTES..self.start + total];
                header.verify(&header_bytes, body)?;
                let message = Message::decode(&header, body)?;
                self.start += total;
                if self.start == self.end {
                    self.start = 0;
                    self.end = 0;
                }
                return Ok(Some((header, message)));
            }
            if self.buf.len() < total {
                self.buf.resize(total.max(READ_BUFFER_BYTES), 0);
            }
            if self.buf.len() - self.start < total {
                self.compact();
            }
        } else if self.buf.len() - self.start < HEADER_BYTES {
            self.compact();
        }
        Ok(None)
    }

    fn compact(&mut self) {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
    }
}
