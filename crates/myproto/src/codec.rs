//! The protocol's basic encodings: fixed little-endian integers, length-encoded integers and
//! strings, NUL-terminated strings; `Decoder` reads them from a payload, checking every length.

use crate::ProtoError;

/// Appends a length-encoded integer.
pub fn put_lenenc(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=250 => out.push(v as u8),
        251..=0xFFFF => {
            out.push(0xFC);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..=0xFF_FFFF => {
            out.push(0xFD);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

/// Appends a length-encoded string.
pub fn put_lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends a NUL-terminated string.
pub fn put_nul(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(b);
    out.push(0);
}

/// Reads a payload front to back; every read is bounds-checked and fails with `Malformed`.
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Decoder<'a> {
    /// `what` names the packet in error messages.
    pub fn new(buf: &'a [u8], what: &'static str) -> Decoder<'a> {
        Decoder { buf, pos: 0, what }
    }

    fn short(&self) -> ProtoError {
        ProtoError::Malformed(format!("{} ends early at byte {}", self.what, self.pos))
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ProtoError> {
        let Some(b) = self.buf.get(self.pos..).and_then(|rest| rest.get(..n)) else {
            return Err(self.short());
        };
        self.pos += n;
        Ok(b)
    }

    /// The next `N` bytes, as an array.
    fn array<const N: usize>(&mut self) -> Result<[u8; N], ProtoError> {
        let b = self.bytes(N)?;
        <[u8; N]>::try_from(b).map_err(|_| self.short())
    }

    pub fn u8(&mut self) -> Result<u8, ProtoError> {
        let [b] = self.array()?;
        Ok(b)
    }

    pub fn u16(&mut self) -> Result<u16, ProtoError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    pub fn u24(&mut self) -> Result<u32, ProtoError> {
        let [a, b, c] = self.array()?;
        Ok(u32::from_le_bytes([a, b, c, 0]))
    }

    pub fn u32(&mut self) -> Result<u32, ProtoError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> Result<u64, ProtoError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A length-encoded integer; None for the NULL marker 0xFB.
    pub fn lenenc(&mut self) -> Result<Option<u64>, ProtoError> {
        Ok(match self.u8()? {
            0xFB => None,
            0xFC => Some(self.u16()? as u64),
            0xFD => Some(self.u24()? as u64),
            0xFE => Some(self.u64()?),
            0xFF => {
                return Err(ProtoError::Malformed(format!(
                    "{}: 0xFF is not a length at byte {}",
                    self.what,
                    self.pos - 1
                )))
            }
            b => Some(b as u64),
        })
    }

    /// A length-encoded string (its length checked against what remains).
    pub fn lenenc_bytes(&mut self) -> Result<&'a [u8], ProtoError> {
        let n = self.lenenc()?.ok_or_else(|| {
            ProtoError::Malformed(format!("{}: NULL where a string was due", self.what))
        })?;
        if n > self.remaining() as u64 {
            return Err(self.short());
        }
        self.bytes(n as usize)
    }

    /// A NUL-terminated string (without its NUL).
    pub fn nul(&mut self) -> Result<&'a [u8], ProtoError> {
        let end = self
            .buf
            .get(self.pos..)
            .and_then(|rest| rest.iter().position(|b| *b == 0))
            .ok_or_else(|| self.short())?;
        let s = self.bytes(end)?;
        self.pos += 1; // the NUL
        Ok(s)
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        // `pos` never passes the end: every read above checks its length first.
        let b = self.buf.get(self.pos..).unwrap_or_default();
        self.pos = self.buf.len();
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lenenc_round_trips(v in any::<u64>(), s in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut out = Vec::new();
            put_lenenc(&mut out, v);
            put_lenenc_bytes(&mut out, &s);
            put_nul(&mut out, b"x");
            let mut d = Decoder::new(&out, "test");
            prop_assert_eq!(d.lenenc().unwrap(), Some(v));
            prop_assert_eq!(d.lenenc_bytes().unwrap(), s.as_slice());
            prop_assert_eq!(d.nul().unwrap(), b"x");
            prop_assert!(d.is_empty());
        }

        #[test]
        fn decoding_any_bytes_never_panics(b in proptest::collection::vec(any::<u8>(), 0..64)) {
            let mut d = Decoder::new(&b, "fuzz");
            while !d.is_empty() {
                if d.lenenc_bytes().is_err() && d.nul().is_err() {
                    break;
                }
            }
        }
    }
}
