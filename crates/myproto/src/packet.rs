//! Packet framing: a 3-byte little-endian payload length and a 1-byte sequence id before each
//! payload; a payload of 16 MiB - 1 bytes or more travels as several packets, each full one
//! followed by the next, ending with a shorter (possibly empty) one.

use std::io::{self, Read, Write};

use crate::ProtoError;

/// The largest payload one packet carries; a packet this full says another follows.
pub const PACKET_CHUNK_MAX: usize = 0xFF_FFFF;

/// Reads whole (reassembled) payloads from a byte stream.
pub struct PacketReader<R> {
    source: R,
    /// The largest reassembled payload accepted (the server's max_allowed_packet).
    limit: usize,
}

impl<R: Read> PacketReader<R> {
    pub fn new(source: R, limit: usize) -> PacketReader<R> {
        PacketReader { source, limit }
    }

    pub fn get_ref(&self) -> &R {
        &self.source
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.source
    }

    /// The next payload and the sequence id of its last packet; Ok(None) when the peer closed
    /// cleanly between packets.
    pub fn read(&mut self) -> Result<Option<(u8, Vec<u8>)>, ProtoError> {
        let mut payload = Vec::new();
        let mut first = true;
        loop {
            let mut header = [0u8; 4];
            if !read_full(&mut self.source, &mut header, first)? {
                return Ok(None);
            }
            first = false;
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            let seq = header[3];
            if payload.len() + len > self.limit {
                return Err(ProtoError::TooLarge {
                    size: payload.len() + len,
                    limit: self.limit,
                });
            }
            let start = payload.len();
            payload.resize(start + len, 0);
            // `start` is the length before the resize, so the tail is always there.
            let tail = payload.get_mut(start..).unwrap_or_default();
            read_full(&mut self.source, tail, false)?;
            if len < PACKET_CHUNK_MAX {
                return Ok(Some((seq, payload)));
            }
        }
    }
}

/// The first whole payload in `buf` (its packets reassembled): the sequence id of its last
/// packet, the payload, and how many bytes of `buf` it took. Ok(None) while part of it has not
/// arrived. For event loops that read sockets themselves.
pub fn parse_payload(buf: &[u8], limit: usize) -> Result<Option<(u8, Vec<u8>, usize)>, ProtoError> {
    // Find the end of the packet chain first, so nothing is copied before it is whole.
    let mut at = 0;
    let mut total = 0usize;
    let seq = loop {
        let Some((len, seq, body)) = buf.get(at..).and_then(split_header) else {
            return Ok(None);
        };
        total += len;
        if total > limit {
            return Err(ProtoError::TooLarge { size: total, limit });
        }
        if body.len() < len {
            return Ok(None);
        }
        at += 4 + len;
        if len < PACKET_CHUNK_MAX {
            break seq;
        }
    };
    let mut payload = Vec::with_capacity(total);
    let mut rest = buf;
    // The loop above found every packet of the chain whole, so this one stops only at its last.
    while let Some((len, _, body)) = split_header(rest) {
        let Some((chunk, after)) = body.split_at_checked(len) else {
            break;
        };
        payload.extend_from_slice(chunk);
        rest = after;
        if len < PACKET_CHUNK_MAX {
            break;
        }
    }
    Ok(Some((seq, payload, at)))
}

/// The payload length and sequence id in the packet header at the front of `buf`, and the bytes
/// after it; None while the header is incomplete.
fn split_header(buf: &[u8]) -> Option<(usize, u8, &[u8])> {
    let ([l0, l1, l2, seq], body) = buf.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes([*l0, *l1, *l2, 0]) as usize, *seq, body))
}

/// Fills `buf`; false if the stream ended before its first byte and `eof_ok`.
fn read_full(source: &mut impl Read, buf: &mut [u8], eof_ok: bool) -> Result<bool, ProtoError> {
    let mut got = 0;
    while let Some(rest) = buf.get_mut(got..).filter(|rest| !rest.is_empty()) {
        match source.read(rest) {
            Ok(0) if got == 0 && eof_ok => return Ok(false),
            Ok(0) => {
                return Err(ProtoError::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "connection closed inside a packet",
                )))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(ProtoError::Io(e)),
        }
    }
    Ok(true)
}

/// Appends `payload` as packets, numbering them from `*seq` (which is left at the next number).
pub fn write_packet(out: &mut Vec<u8>, seq: &mut u8, payload: &[u8]) {
    let mut rest = payload;
    loop {
        let (chunk, after) = rest
            .split_at_checked(PACKET_CHUNK_MAX)
            .unwrap_or((rest, &[]));
        let n = chunk.len();
        out.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
        out.push(*seq);
        *seq = seq.wrapping_add(1);
        out.extend_from_slice(chunk);
        rest = after;
        if n < PACKET_CHUNK_MAX {
            return;
        }
    }
}

/// Builds packets in place: payloads are written after a reserved header, which `finish` fills
/// (and splits, for a payload of 16 MiB or more), so no payload is copied in the common case.
pub struct PacketWriter {
    buf: Vec<u8>,
    /// Where the current packet's header starts.
    start: usize,
    pub seq: u8,
}

impl Default for PacketWriter {
    fn default() -> Self {
        PacketWriter {
            buf: Vec::with_capacity(16 * 1024),
            start: 0,
            seq: 0,
        }
    }
}

impl PacketWriter {
    /// Begins a packet; write its payload into the returned buffer, then call `finish`.
    pub fn begin(&mut self) -> &mut Vec<u8> {
        self.start = self.buf.len();
        self.buf.extend_from_slice(&[0, 0, 0, 0]);
        &mut self.buf
    }

    /// Fills in the header of the packet `begin` started.
    pub fn finish(&mut self) {
        let len = self.buf.len() - self.start - 4;
        if len < PACKET_CHUNK_MAX {
            let [l0, l1, l2, _] = (len as u32).to_le_bytes();
            // `begin` reserved these four bytes.
            if let Some(header) = self.buf.get_mut(self.start..self.start + 4) {
                header.copy_from_slice(&[l0, l1, l2, self.seq]);
            }
            self.seq = self.seq.wrapping_add(1);
            return;
        }
        // Rare: re-frame a large payload as several packets.
        let payload = self.buf.split_off(self.start + 4);
        self.buf.truncate(self.start);
        write_packet(&mut self.buf, &mut self.seq, &payload);
    }

    /// One whole packet.
    pub fn packet(&mut self, payload: &[u8]) {
        self.begin().extend_from_slice(payload);
        self.finish();
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes built and not yet written.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Appends bytes already framed as packets (answers another writer built).
    pub fn raw(&mut self, packets: &[u8]) {
        self.buf.extend_from_slice(packets);
    }

    /// Writes everything built so far.
    pub fn flush_to(&mut self, sink: &mut impl Write) -> io::Result<()> {
        if !self.buf.is_empty() {
            sink.write_all(&self.buf)?;
            self.buf.clear();
        }
        sink.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payload sizes around the 16 MiB split.
    const SIZES: [usize; 6] = [
        0,
        1,
        300,
        PACKET_CHUNK_MAX - 1,
        PACKET_CHUNK_MAX,
        PACKET_CHUNK_MAX + 5,
    ];

    fn payload(size: usize) -> Vec<u8> {
        (0..size).map(|i| (i % 251) as u8).collect()
    }

    #[test]
    fn parse_payload_waits_for_whole_chains() {
        for size in SIZES {
            let payload = payload(size);
            let mut out = Vec::new();
            let mut seq = 3;
            write_packet(&mut out, &mut seq, &payload);
            out.extend_from_slice(&[1, 0, 0, 9, 0x0e]);
            let whole = out.len() - 5;
            for cut in [0, 3, 4, whole - 1] {
                if cut < whole {
                    assert!(parse_payload(&out[..cut], 1 << 26).unwrap().is_none());
                }
            }
            let (last, got, used) = parse_payload(&out, 1 << 26).unwrap().unwrap();
            assert_eq!((last, used), (seq.wrapping_sub(1), whole));
            assert!(got == payload);
            if size > 0 {
                assert!(matches!(
                    parse_payload(&out, size - 1),
                    Err(ProtoError::TooLarge { .. })
                ));
            }
        }
    }

    #[test]
    fn small_and_split_payloads_round_trip() {
        for size in SIZES {
            let payload = payload(size);
            let mut w = PacketWriter {
                seq: 3,
                ..Default::default()
            };
            w.packet(&payload);
            let mut bytes = Vec::new();
            w.flush_to(&mut bytes).unwrap();
            let chunks = size / PACKET_CHUNK_MAX + 1;
            assert_eq!(bytes.len(), size + 4 * chunks, "size {size}");
            assert_eq!(w.seq, 3 + chunks as u8);
            let mut r = PacketReader::new(bytes.as_slice(), 64 << 20);
            let (seq, got) = r.read().unwrap().unwrap();
            assert_eq!(seq, 2 + chunks as u8);
            assert_eq!(got, payload);
            assert!(r.read().unwrap().is_none());
        }
    }

    #[test]
    fn limits_and_truncation_are_errors() {
        let mut bytes = Vec::new();
        let mut seq = 0;
        write_packet(&mut bytes, &mut seq, &[7u8; 100]);
        let mut r = PacketReader::new(bytes.as_slice(), 99);
        assert!(matches!(
            r.read(),
            Err(ProtoError::TooLarge {
                size: 100,
                limit: 99
            })
        ));
        let mut r = PacketReader::new(&bytes[..50], 1000);
        assert!(matches!(r.read(), Err(ProtoError::Io(_))));
        let mut r = PacketReader::new(&bytes[..2], 1000);
        assert!(matches!(r.read(), Err(ProtoError::Io(_))));
    }
}
