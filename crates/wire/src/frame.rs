//! The fixed 32-byte frame header and whole-frame encoding with its checksum.

use crate::codec::{DecodeError, DecodeResult, Reader};
use base::limits;

/// "CAIR" read as a little-endian u32.
pub const MAGIC: u32 = u32::from_le_bytes(*b"CAIR");
pub const PROTOCOL_VERSION: u16 = 23;
pub const HEADER_BYTES: usize = 32;

/// Frame flag: the last frame of a reply (a scan's frame without it leaves the scan open).
pub const FLAG_LAST: u32 = 1;

/// The header every frame starts with. Layout (little-endian):
/// magic u32 | version u16 | message type u16 | cluster id u32 | flags u32 | request id u64 |
/// body length u32 | checksum u32 (CRC-32C over header bytes 0..28 and the body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameHeader {
    pub message_type: u16,
    pub cluster_id: u32,
    pub flags: u32,
    pub request_id: u64,
    pub body_len: u32,
    pub checksum: u32,
}

impl FrameHeader {
    /// Decodes and checks magic, version and body length; the checksum is checked by
    /// [`FrameHeader::verify`] once the body is read.
    pub fn decode(bytes: &[u8; HEADER_BYTES]) -> DecodeResult<FrameHeader> {
        // The fields in their order; 32 bytes always hold them all.
        let mut r = Reader::new(bytes);
        let magic = r.u32()?;
        if magic != MAGIC {
            return Err(DecodeError::BadMagic(magic));
        }
        let version = r.u16()?;
        if version != PROTOCOL_VERSION {
            return Err(DecodeError::BadVersion(version));
        }
        let message_type = r.u16()?;
        let cluster_id = r.u32()?;
        let flags = r.u32()?;
        let request_id = r.u64()?;
        let body_len = r.u32()?;
        if body_len > limits::FRAME_BODY_BYTES_MAX {
            return Err(DecodeError::TooLong {
                what: "frame body",
                length: body_len as usize,
                limit: limits::FRAME_BODY_BYTES_MAX as usize,
            });
        }
        Ok(FrameHeader {
            message_type,
            cluster_id,
            flags,
            request_id,
            body_len,
            checksum: r.u32()?,
        })
    }

    /// Checks the checksum over the raw header and the body.
    pub fn verify(&self, header: &[u8; HEADER_BYTES], body: &[u8]) -> DecodeResult<()> {
        let actual = crc32c::crc32c_append(crc32c::crc32c(&header[..28]), body);
        if actual != self.checksum {
            return Err(DecodeError::Checksum {
                expected: self.checksum,
                actual,
            });
        }
        Ok(())
    }
}

/// Appends one whole frame to `out`: the header, then `body` as the closure writes it.
pub fn write_frame(
    out: &mut Vec<u8>,
    message_type: u16,
    cluster_id: u32,
    flags: u32,
    request_id: u64,
    body: impl FnOnce(&mut Vec<u8>),
) {
    let start = out.len();
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&PROTOCOL_VERSION.to_le_bytes());
    out.extend_from_slice(&message_type.to_le_bytes());
    out.extend_from_slice(&cluster_id.to_le_bytes());
    out.extend_from_slice(&flags.to_le_bytes());
    out.extend_from_slice(&request_id.to_le_bytes());
    out.extend_from_slice(&[0u8; 8]);
    body(out);
    let body_len = (out.len() - start - HEADER_BYTES) as u32;
    // The header was written from `start` above, so the split always finds it.
    let Some((header, body)) = out
        .get_mut(start..)
        .and_then(|frame| frame.split_first_chunk_mut::<HEADER_BYTES>())
    else {
        return;
    };
    header[24..28].copy_from_slice(&body_len.to_le_bytes());
    let crc = crc32c::crc32c_append(crc32c::crc32c(&header[..28]), body);
    header[28..].copy_from_slice(&crc.to_le_bytes());
}
