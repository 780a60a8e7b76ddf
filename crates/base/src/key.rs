//! The order-preserving key encoding: a value of a key column becomes bytes whose byte order is the
//! column's order under its collation. Primary keys, unique keys, ordered-index entries and the
//! partition hash all use it, so equality, order and placement can never disagree.
//!
//! Every column's encoding is prefix-free (fixed width, or a terminated string), so a concatenation
//! of column encodings compares column by column.

use crate::collation;
use crate::types::{Collation, ColumnType};
use crate::value::Value;

/// Marks a NULL in a nullable key column; sorts before every value as in MySQL.
pub const NULL_TAG: u8 = 0x00;
/// Marks a present value in a nullable key column.
pub const VALUE_TAG: u8 = 0x01;

fn date_number(d: crate::value::Date) -> u32 {
    (u32::from(d.year) * 13 + u32::from(d.month)) * 32 + u32::from(d.day)
}

/// Appends the encoding of a non-NULL canonical value (as `Value::coerce` returns it) of type `ty`.
/// A value of another kind than the column's canonical one encodes as the column's zero.
pub fn encode_value(value: &Value, ty: ColumnType, collation: Collation, out: &mut Vec<u8>) {
    let width = ty.fixed_width().unwrap_or(0);
    match (ty, value) {
        (ColumnType::Float, v) => {
            let f = if let Value::Float(f) = v { *f } else { 0.0 };
            let f = if f == 0.0 { 0.0 } else { f };
            let bits = f.to_bits();
            let bits = if bits >> 31 == 1 {
                !bits
            } else {
                bits ^ (1 << 31)
            };
            out.extend_from_slice(&bits.to_be_bytes());
        }
        (ColumnType::Double, v) => {
            let f = if let Value::Double(f) = v { *f } else { 0.0 };
            let f = if f == 0.0 { 0.0 } else { f };
            let bits = f.to_bits();
            let bits = if bits >> 63 == 1 {
                !bits
            } else {
                bits ^ (1 << 63)
            };
            out.extend_from_slice(&bits.to_be_bytes());
        }
        (ColumnType::Decimal { .. }, v) => {
            let d = match v {
                Value::Decimal(d) => *d,
                _ => crate::value::Decimal::new_small(0, 0),
            };
            match (d.small(), width) {
                (Some(m), 16) => {
                    out.extend_from_slice(&((m as u128) ^ (1u128 << 127)).to_be_bytes());
                    return;
                }
                // Wider than a 16-byte key holds (a native client's range bound): the
                // smallest or largest key, so a bound past the column's range stays past it.
                (None, 16) => {
                    let edge = if d.is_negative() { 0x00 } else { 0xFF };
                    out.extend_from_slice(&[edge; 16]);
                    return;
                }
                _ => {}
            }
            let m = d.mantissa();
            // The mantissa's low `width` bytes (16 or 32: it fits them), big-endian, with the
            // sign bit flipped so that byte order is numeric order.
            let bytes = m.to_be_bytes();
            let start = out.len();
            out.extend_from_slice(&bytes[bytes.len() - width..]);
            out[start] ^= 0x80;
        }
        (t, v) if t.is_integer() => {
            let (lo, _) = t.integer_range().unwrap_or((0, 0));
            let n: i128 = match v {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                _ => 0,
            };
            // Shift into 0..2^bits so unsigned byte order is numeric order.
            let shifted = (n - lo) as u128;
            out.extend_from_slice(&shifted.to_be_bytes()[16 - width..]);
        }
        (t, v) if t.is_string() => {
            let bytes: &[u8] = if let Value::Bytes(b) = v { b } else { &[] };
            encode_string(bytes, collation, out);
        }
        (ColumnType::Date, v) => {
            let d = if let Value::Date(d) = v {
                *d
            } else {
                Default::default()
            };
            out.extend_from_slice(&date_number(d).to_be_bytes());
        }
        (ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }, v) => {
            let dt = if let Value::DateTime(dt) = v {
                *dt
            } else {
                Default::default()
            };
            let seconds = ((u64::from(date_number(dt.date)) * 24 + u64::from(dt.hour)) * 60
                + u64::from(dt.minute))
                * 60
                + u64::from(dt.second);
            out.extend_from_slice(&(seconds * 1_000_000 + u64::from(dt.microsecond)).to_be_bytes());
        }
        (ColumnType::Time { .. }, v) => {
            let m = if let Value::Time(t) = v {
                t.as_micros()
            } else {
                0
            };
            out.extend_from_slice(&((m as u64) ^ (1 << 63)).to_be_bytes());
        }
        (ColumnType::Bit { .. } | ColumnType::Enum | ColumnType::Set, v) => {
            let n = match v {
                Value::UInt(n) => *n,
                Value::Int(i) => u64::try_from(*i).unwrap_or(0),
                _ => 0,
            };
            out.extend_from_slice(&n.to_be_bytes());
        }
        (ColumnType::Year, v) => {
            let y = if let Value::Year(y) = v { *y } else { 0 };
            out.extend_from_slice(&y.to_be_bytes());
        }
        _ => {}
    }
}

/// Appends the encoding of a string column value given as raw bytes in its character set.
pub fn encode_string(bytes: &[u8], collation: Collation, out: &mut Vec<u8>) {
    let start = out.len();
    collation::sort_key(bytes, collation, out);
    escape_tail(out, start);
}

/// Appends the encoding an index column cut to its first `chars` characters holds for a string:
/// the collation's sort key cut to [`Collation::prefix_key_bytes`] bytes. A cut sort key keeps
/// the order of whole ones (a >= b gives cut(a) >= cut(b)) and equal strings give equal cuts,
/// so a range over cut keys finds every row the whole values would, and more; the reader
/// checks the whole values.
pub fn encode_string_prefix(bytes: &[u8], collation: Collation, chars: u32, out: &mut Vec<u8>) {
    let start = out.len();
    collation::sort_key(bytes, collation, out);
    out.truncate(out.len().min(start + collation.prefix_key_bytes(chars)));
    escape_tail(out, start);
}

/// Escapes bytes written since `start` so the string is prefix-free: 0x00 becomes 0x00 0xFF and the
/// string ends with 0x00 0x01, which sorts below any continuation.
fn escape_tail(out: &mut Vec<u8>, start: usize) {
    if out[start..].contains(&0) {
        let raw = out.split_off(start);
        for b in raw {
            out.push(b);
            if b == 0 {
                out.push(0xFF);
            }
        }
    }
    out.extend_from_slice(&[0x00, 0x01]);
}

/// Appends a nullable key column: a tag byte, then the value's encoding when not NULL.
pub fn encode_nullable(value: &Value, ty: ColumnType, collation: Collation, out: &mut Vec<u8>) {
    if value.is_null() {
        out.push(NULL_TAG);
    } else {
        out.push(VALUE_TAG);
        encode_value(value, ty, collation, out);
    }
}

/// The smallest byte string greater than every string that starts with `prefix`, or None when no
/// such string exists (the prefix is empty or all 0xFF).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last != 0xFF {
            out.push(last + 1);
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn enc(v: &Value, ty: ColumnType, coll: Collation) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(v, ty, coll, &mut out);
        out
    }

    /// The longest a key of `limits::KEY_BYTES_MAX` declared bytes can encode to fits
    /// `limits::ENCODED_KEY_BYTES_MAX` for every collation: the most encoded bytes any one
    /// character takes (a collation's longest expansion, zero bytes escaped) times the most
    /// characters the declared bytes hold, plus each of at most 32 columns' NULL tag and
    /// terminator.
    #[test]
    fn the_longest_declared_key_fits_the_wire_bound() {
        let chars: Vec<char> = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        for collation in (1..=u8::MAX).map_while(crate::types::Collation::from_u8) {
            let per_char = collation.charset().max_len();
            let mut worst = 0usize;
            let mut buf = [0u8; 4];
            for c in &chars {
                let text = c.encode_utf8(&mut buf).as_bytes();
                if text.len() > per_char {
                    continue;
                }
                let mut out = Vec::new();
                encode_string(text, collation, &mut out);
                worst = worst.max(out.len() - 2);
            }
            // Binary strings: every byte zero, escaped to two.
            worst = worst.max(2 * per_char);
            let chars_held = crate::limits::KEY_BYTES_MAX / per_char;
            let bound = chars_held * worst + 32 * 3;
            assert!(
                bound <= crate::limits::ENCODED_KEY_BYTES_MAX,
                "{collation:?}: {chars_held} characters of up to {worst} bytes make {bound}"
            );
        }
    }

    proptest! {
        #[test]
        fn decimal_order_is_byte_order_in_16_and_32_bytes(a in any::<i128>(), b in any::<i128>(), wide in any::<bool>()) {
            use crate::value::{Decimal, I256};
            let narrow = ColumnType::Decimal { precision: 38, scale: 2 };
            let (ka, kb) = (enc(&Value::Decimal(Decimal::new(a, 2)), narrow, Collation::Binary), enc(&Value::Decimal(Decimal::new(b, 2)), narrow, Collation::Binary));
            prop_assert_eq!(a.cmp(&b), ka.cmp(&kb));
            // The 16-byte form is the one tables made before DECIMAL(65) hold.
            prop_assert_eq!(ka, ((a as u128) ^ (1u128 << 127)).to_be_bytes().to_vec());
            // Past 38 digits: 32 bytes, order kept for mantissas far past i128.
            let scale = |x: i128| if wide { I256::from(x) * I256::from(i128::MAX) } else { I256::from(x) };
            let (x, y) = (scale(a), scale(b));
            let ty = ColumnType::Decimal { precision: 65, scale: 2 };
            let (kx, ky) = (enc(&Value::Decimal(Decimal::new(x, 2)), ty, Collation::Binary), enc(&Value::Decimal(Decimal::new(y, 2)), ty, Collation::Binary));
            prop_assert_eq!(kx.len(), 32);
            prop_assert_eq!(x.cmp(&y), kx.cmp(&ky));
            // A mantissa past 128 bits under a 16-byte key sorts past every one it holds.
            if wide && a != 0 && a.unsigned_abs() > 1 {
                let kw = enc(&Value::Decimal(Decimal::new(x, 2)), narrow, Collation::Binary);
                let expected = if a < 0 { std::cmp::Ordering::Less } else { std::cmp::Ordering::Greater };
                prop_assert_eq!(kw.cmp(&kb), if b == i128::MIN || b == i128::MAX { kw.cmp(&kb) } else { expected });
            }
        }

        #[test]
        fn signed_integer_order_is_byte_order(a in any::<i32>(), b in any::<i32>()) {
            let ty = ColumnType::Int { unsigned: false };
            let (ka, kb) = (enc(&Value::Int(a.into()), ty, Collation::Binary), enc(&Value::Int(b.into()), ty, Collation::Binary));
            prop_assert_eq!(a.cmp(&b), ka.cmp(&kb));
        }

        #[test]
        fn double_order_is_byte_order(a in -1e300f64..1e300, b in -1e300f64..1e300) {
            let (ka, kb) = (enc(&Value::Double(a), ColumnType::Double, Collation::Binary), enc(&Value::Double(b), ColumnType::Double, Collation::Binary));
            prop_assert_eq!(a.partial_cmp(&b).unwrap(), ka.cmp(&kb));
        }

        #[test]
        fn string_order_is_collation_order(a in "[a-cA-C \u{e0}\u{0}]{0,6}", b in "[a-cA-C \u{e0}\u{0}]{0,6}") {
            for coll in [Collation::Utf8mb4GeneralCi, Collation::Utf8mb4Bin, Collation::Binary] {
                let ty = ColumnType::VarChar { length: 10 };
                let (ka, kb) = (enc(&Value::from(a.as_str()), ty, coll), enc(&Value::from(b.as_str()), ty, coll));
                let expected = collation::compare(a.as_bytes(), b.as_bytes(), coll);
                // Characters below space break PAD SPACE order against the terminator; see docs.
                if !a.contains('\u{0}') && !b.contains('\u{0}') {
                    prop_assert_eq!(expected, ka.cmp(&kb), "{:?} {:?} {:?}", a, b, coll);
                } else {
                    prop_assert_eq!(expected == std::cmp::Ordering::Equal, ka == kb);
                }
            }
        }
    }

    #[test]
    fn successor_bounds_every_extension() {
        assert_eq!(prefix_successor(&[1, 2, 0xFF]), Some(vec![1, 3]));
        assert_eq!(prefix_successor(&[0xFF]), None);
    }
}
