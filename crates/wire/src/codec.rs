//! Little-endian primitives: a bounds-checked reader and the matching writer helpers.

use base::limits;
use base::value::{Date, DateTime, Decimal, Time, I256};
use base::Value;

/// Why a frame or body could not be decoded. Each names what was wrong; none is recoverable for the
/// connection that sent it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("truncated: needed {needed} bytes, {left} left")]
    Truncated { needed: usize, left: usize },
    #[error("{what} length {length} exceeds limit {limit}")]
    TooLong {
        what: &'static str,
        length: usize,
        limit: usize,
    },
    #[error("bad magic {0:#010x}")]
    BadMagic(u32),
    #[error("unsupported protocol version {0}")]
    BadVersion(u16),
    #[error("unknown message type {0}")]
    UnknownMessage(u16),
    #[error("bad {what} tag {tag}")]
    BadTag { what: &'static str, tag: u8 },
    #[error("checksum mismatch: header says {expected:#010x}, frame has {actual:#010x}")]
    Checksum { expected: u32, actual: u32 },
    #[error("{0} trailing bytes after message")]
    Trailing(usize),
    #[error("invalid utf-8 in {0}")]
    Utf8(&'static str),
    #[error("nesting deeper than {0}")]
    TooDeep(usize),
}

pub type DecodeResult<T> = Result<T, DecodeError>;

/// A DECIMAL as it may come over a link: at most 76 digits and 76 decimals (what Cairn's
/// arithmetic takes without overflowing a scale or a mantissa), else refused.
fn decimal(d: Decimal) -> DecodeResult<Decimal> {
    let limit = limits::DECIMAL_RESULT_DIGITS_MAX as usize;
    for (what, length) in [
        ("decimal scale", d.scale as usize),
        ("decimal digits", d.digits() as usize),
    ] {
        if length > limit {
            return Err(DecodeError::TooLong {
                what,
                length,
                limit,
            });
        }
    }
    Ok(d)
}

/// Reads primitives from a byte slice, checking every length.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// Fails unless every byte was consumed.
    pub fn finish(self) -> DecodeResult<()> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::Trailing(self.bytes.len()))
        }
    }

    pub fn take(&mut self, n: usize) -> DecodeResult<&'a [u8]> {
        if n > self.bytes.len() {
            return Err(DecodeError::Truncated {
                needed: n,
                left: self.bytes.len(),
            });
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> DecodeResult<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> DecodeResult<u8> {
        Ok(self.array::<1>()?[0])
    }
    /// A flag byte: 0 false, 1 true, anything else a bad tag named `what`.
    pub fn flag(&mut self, what: &'static str) -> DecodeResult<bool> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            tag => Err(DecodeError::BadTag { what, tag }),
        }
    }
    pub fn u16(&mut self) -> DecodeResult<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> DecodeResult<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> DecodeResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn i64(&mut self) -> DecodeResult<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    pub fn i128(&mut self) -> DecodeResult<i128> {
        Ok(i128::from_le_bytes(self.array()?))
    }

    /// A count, checked against `limit` and against the bytes left (each item takes at least
    /// `item_bytes_min`), so a forged count cannot make the caller allocate.
    pub fn count(
        &mut self,
        what: &'static str,
        limit: usize,
        item_bytes_min: usize,
    ) -> DecodeResult<usize> {
        let n = self.u32()? as usize;
        if n > limit {
            return Err(DecodeError::TooLong {
                what,
                length: n,
                limit,
            });
        }
        let needed = n.saturating_mul(item_bytes_min);
        if needed > self.bytes.len() {
            return Err(DecodeError::Truncated {
                needed,
                left: self.bytes.len(),
            });
        }
        Ok(n)
    }

    /// A u32-length-prefixed byte string of at most `limit` bytes.
    pub fn bytes(&mut self, what: &'static str, limit: usize) -> DecodeResult<&'a [u8]> {
        let n = self.u32()? as usize;
        if n > limit {
            return Err(DecodeError::TooLong {
                what,
                length: n,
                limit,
            });
        }
        self.take(n)
    }

    pub fn string(&mut self, what: &'static str, limit: usize) -> DecodeResult<String> {
        let b = self.bytes(what, limit)?;
        std::str::from_utf8(b)
            .map(str::to_owned)
            .map_err(|_| DecodeError::Utf8(what))
    }

    pub fn value(&mut self) -> DecodeResult<Value> {
        Ok(match self.u8()? {
            0 => Value::Null,
            1 => Value::Int(self.i64()?),
            2 => Value::UInt(self.u64()?),
            3 => Value::Float(f32::from_bits(self.u32()?)),
            4 => Value::Double(f64::from_bits(self.u64()?)),
            5 => {
                let mantissa = self.i128()?;
                Value::Decimal(decimal(Decimal::new_small(mantissa, self.u8()?))?)
            }
            6 => Value::Bytes(self.bytes("value", limits::VALUE_BYTES_MAX)?.to_vec()),
            7 => Value::Date(self.date()?),
            8 => {
                let date = self.date()?;
                let [hour, minute, second] = self.array()?;
                Value::DateTime(DateTime {
                    date,
                    hour,
                    minute,
                    second,
                    microsecond: self.u32()?,
                })
            }
            9 => {
                let negative = self.u8()? != 0;
                let hours = self.u16()?;
                let [minutes, seconds] = self.array()?;
                Value::Time(Time {
                    negative,
                    hours,
                    minutes,
                    seconds,
                    microseconds: self.u32()?,
                })
            }
            10 => Value::Year(self.u16()?),
            11 => {
                let id = self.u64()?;
                let len = self.u64()?;
                // A latin1 LONGTEXT's UTF-8 bytes may reach twice the limit.
                if len > 2 * limits::LOB_BYTES_MAX as u64 {
                    return Err(DecodeError::TooLong {
                        what: "value in parts",
                        length: len.min(u64::from(u32::MAX)) as usize,
                        limit: 2 * limits::LOB_BYTES_MAX,
                    });
                }
                Value::Parts(base::lob::PartsRef { id, len })
            }
            12 => {
                let mantissa = I256::from_le_bytes(self.array()?);
                Value::Decimal(decimal(Decimal::new(mantissa, self.u8()?))?)
            }
            tag => return Err(DecodeError::BadTag { what: "value", tag }),
        })
    }

    fn date(&mut self) -> DecodeResult<Date> {
        let year = self.u16()?;
        let [month, day] = self.array()?;
        Ok(Date { year, month, day })
    }

    pub fn values(&mut self, limit: usize) -> DecodeResult<Vec<Value>> {
        let n = self.count("value list", limit, 1)?;
        (0..n).map(|_| self.value()).collect()
    }

    pub fn u16s(&mut self, what: &'static str, limit: usize) -> DecodeResult<Vec<u16>> {
        let n = self.count(what, limit, 2)?;
        (0..n).map(|_| self.u16()).collect()
    }
}

/// Writer helpers over `Vec<u8>`.
pub trait Writer {
    fn put_u8(&mut self, v: u8);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_u64(&mut self, v: u64);
    fn put_bytes(&mut self, v: &[u8]);
    fn put_value(&mut self, v: &Value);
    fn put_values(&mut self, v: &[Value]);
    fn put_u16s(&mut self, v: &[u16]);
}

impl Writer for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_bytes(&mut self, v: &[u8]) {
        self.put_u32(v.len() as u32);
        self.extend_from_slice(v);
    }
    fn put_value(&mut self, v: &Value) {
        match v {
            Value::Null => self.put_u8(0),
            Value::Int(i) => {
                self.put_u8(1);
                self.extend_from_slice(&i.to_le_bytes());
            }
            Value::UInt(u) => {
                self.put_u8(2);
                self.put_u64(*u);
            }
            Value::Float(f) => {
                self.put_u8(3);
                self.put_u32(f.to_bits());
            }
            Value::Double(f) => {
                self.put_u8(4);
                self.put_u64(f.to_bits());
            }
            // 16 bytes when the mantissa fits them (every DECIMAL of up to 38 digits), else 32.
            Value::Decimal(d) => {
                match d.small() {
                    Some(narrow) => {
                        self.put_u8(5);
                        self.extend_from_slice(&narrow.to_le_bytes());
                    }
                    None => {
                        self.put_u8(12);
                        self.extend_from_slice(&d.mantissa().to_le_bytes());
                    }
                }
                self.put_u8(d.scale);
            }
            Value::Bytes(b) => {
                self.put_u8(6);
                self.put_bytes(b);
            }
            Value::Date(d) => {
                self.put_u8(7);
                put_date(self, *d);
            }
            Value::DateTime(dt) => {
                self.put_u8(8);
                put_date(self, dt.date);
                self.extend_from_slice(&[dt.hour, dt.minute, dt.second]);
                self.put_u32(dt.microsecond);
            }
            Value::Time(t) => {
                self.put_u8(9);
                self.put_u8(u8::from(t.negative));
                self.put_u16(t.hours);
                self.extend_from_slice(&[t.minutes, t.seconds]);
                self.put_u32(t.microseconds);
            }
            Value::Year(y) => {
                self.put_u8(10);
                self.put_u16(*y);
            }
            Value::Parts(r) => {
                self.put_u8(11);
                self.put_u64(r.id);
                self.put_u64(r.len);
            }
        }
    }
    fn put_values(&mut self, v: &[Value]) {
        self.put_u32(v.len() as u32);
        for value in v {
            self.put_value(value);
        }
    }
    fn put_u16s(&mut self, v: &[u16]) {
        self.put_u32(v.len() as u32);
        for x in v {
            self.put_u16(*x);
        }
    }
}

fn put_date(out: &mut Vec<u8>, d: Date) {
    out.put_u16(d.year);
    out.extend_from_slice(&[d.month, d.day]);
}
