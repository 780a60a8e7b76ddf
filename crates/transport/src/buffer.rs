//! The receive buffer shared by blocking and non-blocking connections: bytes in, whole checked
//! frames out, partial frames kept for the next read, and an execute reply sent in several frames
//! (`Message::write_reply`) joined into one.

use std::collections::HashMap;
use std::io::{self, Read};

use wire::frame::FLAG_LAST;
use wire::{ExecuteOutcome, OpResult};
use wire::{FrameHeader, Message, HEADER_BYTES};

use crate::TransportError;

/// Bytes asked of the socket at once once a connection is busy; a larger frame grows the buffer
/// up to the frame limit, and it shrinks back to this once that frame is taken.
pub const READ_BUFFER_BYTES: usize = 256 * 1024;

/// The buffer's size at its first read: an idle connection costs this, not
/// [`READ_BUFFER_BYTES`]. It doubles while reads fill it, up to `READ_BUFFER_BYTES`.
pub const READ_BUFFER_BYTES_MIN: usize = 4 * 1024;

/// Empty at first: the buffer grows at the first read (`READ_BUFFER_BYTES_MIN`).
#[derive(Default)]
pub struct FrameBuffer {
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The results of execute replies whose last frame has not arrived, by request, and their
    /// bytes; None on a connection that receives requests, not replies (then such a frame passes
    /// on as it is, for its receiver to refuse).
    joining: Option<HashMap<u64, Vec<OpResult>>>,
    joined_bytes: usize,
    /// The last read filled all the space it was offered (more was probably waiting).
    filled_last: bool,
}

/// The most bytes of results a connection keeps of execute replies not yet whole
/// ([`FrameBuffer::join_replies`]); more is a broken stream.
pub const JOINED_BYTES_MAX: usize = 1 << 30;

impl FrameBuffer {
    /// Joins an execute reply the data node sent in several frames into one message (the
    /// client's side of a connection; see `Message::write_reply`).
    pub fn join_replies(&mut self) {
        self.joining.get_or_insert_with(HashMap::new);
    }

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
        // The last read filled all it was offered, or less than half is free: a busy
        // connection, whose reads deserve a larger buffer.
        let busy = self.filled_last || (self.buf.len() - self.end) * 2 < self.buf.len() + 1;
        if busy && self.buf.len() < READ_BUFFER_BYTES {
            let grown = (self.buf.len() * 2).clamp(READ_BUFFER_BYTES_MIN, READ_BUFFER_BYTES);
            self.buf.resize(grown, 0);
        }
        // `end` never passes the buffer's length.
        let free = self.buf.get_mut(self.end..).unwrap_or_default();
        let offered = free.len();
        let n = source.read(free)?;
        self.end += n;
        self.filled_last = n == offered;
        Ok((n, n == offered))
    }

    /// Takes one whole message off the buffer if it holds one (an execute reply in several
    /// frames once its last has arrived); makes room for the rest otherwise.
    pub fn parse(&mut self) -> Result<Option<(FrameHeader, Message)>, TransportError> {
        loop {
            let Some((header, message)) = self.parse_frame()? else {
                return Ok(None);
            };
            if let Some(whole) = self.join(header, message)? {
                return Ok(Some(whole));
            }
        }
    }

    /// Keeps the results of an execute reply's frame that is not its last; gives them, before its
    /// own, to the last. Everything else passes as it is.
    fn join(
        &mut self,
        header: FrameHeader,
        message: Message,
    ) -> Result<Option<(FrameHeader, Message)>, TransportError> {
        let Some(joining) = self.joining.as_mut() else {
            return Ok(Some((header, message)));
        };
        let last = header.flags & FLAG_LAST != 0;
        match message {
            Message::ExecuteReply(ExecuteOutcome::Ok(results)) if !last => {
                self.joined_bytes += results.iter().map(wire::result_bytes).sum::<usize>();
                let kept = joining.entry(header.request_id).or_default();
                kept.extend(results);
                let too_long = |what, length, limit| {
                    Err(TransportError::Decode(wire::DecodeError::TooLong {
                        what,
                        length,
                        limit,
                    }))
                };
                if kept.len() > base::limits::BATCH_OPERATIONS_MAX {
                    return too_long(
                        "execute reply",
                        kept.len(),
                        base::limits::BATCH_OPERATIONS_MAX,
                    );
                }
                if self.joined_bytes > JOINED_BYTES_MAX {
                    return too_long("execute replies", self.joined_bytes, JOINED_BYTES_MAX);
                }
                Ok(None)
            }
            message if last && !joining.is_empty() => {
                let Some(mut kept) = joining.remove(&header.request_id) else {
                    return Ok(Some((header, message)));
                };
                self.joined_bytes -= kept.iter().map(wire::result_bytes).sum::<usize>();
                Ok(Some(match message {
                    Message::ExecuteReply(ExecuteOutcome::Ok(results)) => {
                        kept.extend(results);
                        (header, Message::ExecuteReply(ExecuteOutcome::Ok(kept)))
                    }
                    // A reply that ends in a failure drops what came before it.
                    other => (header, other),
                }))
            }
            other => Ok(Some((header, other))),
        }
    }

    /// Takes one whole frame off the buffer if it holds one; makes room for the rest otherwise.
    fn parse_frame(&mut self) -> Result<Option<(FrameHeader, Message)>, TransportError> {
        // `start..end` is always inside the buffer.
        let held = self.buf.get(self.start..self.end).unwrap_or_default();
        if let Some((header_bytes, after)) = held.split_first_chunk::<HEADER_BYTES>() {
            // decode checks body_len against FRAME_BODY_BYTES_MAX before anything is allocated.
            let header = FrameHeader::decode(header_bytes)?;
            let total = HEADER_BYTES + header.body_len as usize;
            if let Some(body) = after.get(..header.body_len as usize) {
                header.verify(header_bytes, body)?;
                let message = Message::decode(&header, body)?;
                self.start += total;
                if self.start == self.end {
                    self.start = 0;
                    self.end = 0;
                    if self.buf.len() > READ_BUFFER_BYTES {
                        // Grown for one large frame: give the memory back.
                        self.buf = vec![0; READ_BUFFER_BYTES];
                    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use base::{Error, ErrorCode, Value};

    fn row(n: usize) -> OpResult {
        OpResult::Row(vec![Value::Int(n as i64), Value::Bytes(vec![7; 1 << 20])])
    }

    fn parse_all(bytes: &[u8]) -> Vec<(FrameHeader, Message)> {
        let mut buffer = FrameBuffer::default();
        buffer.join_replies();
        let mut source = bytes;
        let mut out = Vec::new();
        loop {
            while let Some(m) = buffer.parse().unwrap() {
                out.push(m);
            }
            if buffer.fill(&mut source).unwrap().0 == 0 {
                return out;
            }
        }
    }

    #[test]
    fn a_reply_in_several_frames_is_joined_around_other_replies() {
        let many: Vec<OpResult> = (0..20).map(row).collect();
        let mut bytes = Vec::new();
        Message::ExecuteReply(ExecuteOutcome::Ok(many.clone())).write_reply(&mut bytes, 1, 7);
        let frames = {
            let mut count = 0;
            let mut at = 0;
            while at < bytes.len() {
                let header = FrameHeader::decode(bytes[at..at + HEADER_BYTES].try_into().unwrap());
                at += HEADER_BYTES + header.unwrap().body_len as usize;
                count += 1;
            }
            count
        };
        assert!(frames >= 3, "20 MiB of rows in {frames} frames");
        // Another request's reply arrives between the first frame and the rest.
        let first = HEADER_BYTES
            + FrameHeader::decode(bytes[..HEADER_BYTES].try_into().unwrap())
                .unwrap()
                .body_len as usize;
        let mut stream = bytes[..first].to_vec();
        Message::ExecuteReply(ExecuteOutcome::Ok(vec![OpResult::NotFound])).write_reply(
            &mut stream,
            1,
            8,
        );
        stream.extend_from_slice(&bytes[first..]);
        let got = parse_all(&stream);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0.request_id, 8);
        assert_eq!(got[1].0.request_id, 7);
        assert_eq!(got[1].1, Message::ExecuteReply(ExecuteOutcome::Ok(many)));
    }

    #[test]
    fn parts_of_a_reply_that_ends_in_a_failure_are_dropped() {
        let mut stream = Vec::new();
        Message::ExecuteReply(ExecuteOutcome::Ok(vec![row(1)])).write_frame(&mut stream, 1, 0, 7);
        let failure = Message::Failure(Error::new(ErrorCode::Internal, "gone"));
        failure.write_reply(&mut stream, 1, 7);
        Message::ExecuteReply(ExecuteOutcome::Ok(vec![OpResult::NotFound])).write_reply(
            &mut stream,
            1,
            7,
        );
        let got = parse_all(&stream);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, failure);
        assert_eq!(
            got[1].1,
            Message::ExecuteReply(ExecuteOutcome::Ok(vec![OpResult::NotFound]))
        );
    }

    #[test]
    fn a_receiver_of_requests_joins_nothing() {
        let mut stream = Vec::new();
        let part = Message::ExecuteReply(ExecuteOutcome::Ok(vec![OpResult::NotFound]));
        part.write_frame(&mut stream, 1, 0, 7);
        let mut buffer = FrameBuffer::default();
        let mut source = &stream[..];
        buffer.fill(&mut source).unwrap();
        let (header, message) = buffer.parse().unwrap().expect("the frame as it is");
        assert_eq!((header.request_id, message), (7, part));
    }

    #[test]
    fn endless_parts_are_refused() {
        let mut stream = Vec::new();
        let results = vec![OpResult::NotFound; 4096];
        for _ in 0..5 {
            Message::ExecuteReply(ExecuteOutcome::Ok(results.clone())).write_frame(
                &mut stream,
                1,
                0,
                7,
            );
        }
        let mut buffer = FrameBuffer::default();
        buffer.join_replies();
        let mut source = &stream[..];
        let refused = loop {
            match buffer.parse() {
                Err(e) => break e,
                Ok(Some(m)) => panic!("nothing is whole: {m:?}"),
                Ok(None) => assert!(buffer.fill(&mut source).unwrap().0 > 0, "never refused"),
            }
        };
        assert!(refused.to_string().contains("execute reply"), "{refused}");
    }
}
