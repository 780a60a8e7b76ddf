//! The fixed 32-byte frame header and whole-frame encoding with its checksum.

use crate::codec::{DecodeError, DecodeResult};
use base::limits;

/// "CAIR" read as a little-endian u32.
pub const MAGIC: u32 = u32::from_le_bytes(*b"CAIR");
pub const PROTOCOL_VERSION: u16 = 14;
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
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let magic = u32_at(0);
        if magic != MAGIC {
            return Err(DecodeError::BadMagic(magic));
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != PROTOCOL_VERSION {
            return Err(DecodeError::BadVersion(version));
        }
        let body_len = u32_at(24);
        if body_len > limits::FRAME_BODY_BYTES_MAX {
            return Err(DecodeError::TooLong {
                what: "frame body",
                length: body_len as usize,
                limit: limits::FRAME_BODY_BYTES_MAX as usize,
            });
        }
        let mut request = [0u8; 8];
        request.copy_from_slice(&bytes[16..24]);
        Ok(FrameHeader {
            message_type: u16::from_le_bytes([bytes[6], bytes[7]]),
            cluster_id: u32_at(8),
            flags: u32_at(12),
            request_id: u64::from_le_bytes(request),
            body_len,
            checksum: u32_at(28),
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
    out[start + 24..start + 28].copy_from_slice(&body_len.to_le_bytes());
    let crc = crc32c::crc32c_append(
        crc32c::crc32c(&out[start..start + 28]),
        &out[start + HEADER_BYTES..],
    );
    out[start + 28..start + 32].copy_from_slice(&crc.to_le_bytes());
}
