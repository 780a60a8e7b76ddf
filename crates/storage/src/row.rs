//! The row format: a null bitmap, the fixed-width columns, then the variable-width columns, each
//! a variable-size length and its bytes. One allocation per row, no per-column heap objects.
//!
//! Layout of a row of n columns:
//! `[null bitmap: ceil(nullable/8) bytes][fixed columns, declaration order][var columns: len + bytes]`
//!
//! A length takes one byte below 128, two below 16384 and three otherwise (7 bits per byte, high
//! bit set on all but the last, least significant group first), so short strings cost one byte
//! and the sysbench row fits a 192-byte allocation class. A MEDIUM/LONG TEXT or BLOB value kept
//! in parts (`base::lob`) is a four-byte length with bit 21 set ([`PARTS_FLAG`], above every
//! value's length) and the 16 bytes of its `PartsRef`.

use base::lob::PartsRef;
use base::types::ColumnType;
use base::value::{Date, DateTime, Decimal, Time, I256};
use base::{limits, Error, ErrorCode, TableDef, Value};

/// Set in a variable column's length when the column holds a reference to parts.
const PARTS_FLAG: usize = 1 << 21;

#[derive(Debug, Clone, Copy)]
enum Slot {
    Fixed { offset: usize, width: usize },
    Var { ordinal: usize },
}

/// Where each column of a table lives inside a row.
#[derive(Debug, Clone)]
pub struct RowLayout {
    types: Vec<ColumnType>,
    null_bits: Vec<Option<usize>>,
    slots: Vec<Slot>,
    var_start: usize,
}

impl RowLayout {
    pub fn new(table: &TableDef) -> RowLayout {
        let mut null_bits = Vec::with_capacity(table.columns.len());
        let mut nullable: usize = 0;
        for c in &table.columns {
            null_bits.push(c.nullable.then(|| {
                nullable += 1;
                nullable - 1
            }));
        }
        let bitmap_bytes = nullable.div_ceil(8);
        let mut offset = bitmap_bytes;
        let mut ordinal = 0;
        let slots = table
            .columns
            .iter()
            .map(|c| match c.ty.fixed_width() {
                Some(width) => {
                    let slot = Slot::Fixed { offset, width };
                    offset += width;
                    slot
                }
                None => {
                    ordinal += 1;
                    Slot::Var {
                        ordinal: ordinal - 1,
                    }
                }
            })
            .collect();
        RowLayout {
            types: table.columns.iter().map(|c| c.ty).collect(),
            null_bits,
            slots,
            var_start: offset,
        }
    }

    pub fn column_count(&self) -> usize {
        self.types.len()
    }

    /// Each column's null bit, slot and type.
    fn columns(&self) -> impl Iterator<Item = (Option<usize>, Slot, ColumnType)> + '_ {
        let per_column = self.null_bits.iter().zip(&self.slots).zip(&self.types);
        per_column.map(|((bit, slot), ty)| (*bit, *slot, *ty))
    }

    /// Encodes one canonical value per column into a row.
    pub fn encode(&self, values: &[Value]) -> Result<Box<[u8]>, Error> {
        // Exact capacity: a row is one allocation of its own size, with no slack to shrink later.
        let var_bytes: usize = values
            .iter()
            .enumerate()
            .filter(|(c, _)| matches!(self.slots.get(*c), Some(Slot::Var { .. })))
            .map(|(_, v)| match v {
                Value::Bytes(b) => length_bytes(b.len()) + b.len(),
                Value::Parts(_) => 4 + PartsRef::ENCODED_BYTES,
                _ => 1,
            })
            .sum();
        let mut row = Vec::with_capacity(self.var_start + var_bytes);
        row.resize(self.var_start, 0);
        // The bitmap and the fixed slots are the `var_start` bytes just made.
        for (value, (null_bit, slot, ty)) in values.iter().zip(self.columns()) {
            if value.is_null() {
                if let Some(bit) = null_bit {
                    if let Some(byte) = row.get_mut(bit / 8) {
                        *byte |= 1 << (bit % 8);
                    }
                }
                if let Slot::Var { .. } = slot {
                    row.push(0);
                }
                continue;
            }
            match slot {
                Slot::Fixed { offset, width } => {
                    if let Some(place) = row.get_mut(offset..offset + width) {
                        write_fixed(place, ty, value);
                    }
                }
                Slot::Var { .. } => {
                    if let Value::Parts(r) = value {
                        if !base::lob::holds_parts(ty) {
                            return Err(Error::new(
                                ErrorCode::BadValue,
                                "a value stored in parts for a column that holds none",
                            ));
                        }
                        put_length(&mut row, PARTS_FLAG | PartsRef::ENCODED_BYTES);
                        row.extend_from_slice(&r.encode());
                        continue;
                    }
                    let bytes: &[u8] = if let Value::Bytes(b) = value { b } else { &[] };
                    if bytes.len() > limits::VALUE_BYTES_MAX {
                        return Err(Error::new(ErrorCode::BadValue, "value too long for a row"));
                    }
                    put_length(&mut row, bytes.len());
                    row.extend_from_slice(bytes);
                }
            }
        }
        if row.len() > limits::ROW_BYTES_MAX {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!("row of {} bytes above {}", row.len(), limits::ROW_BYTES_MAX),
            ));
        }
        Ok(row.into_boxed_slice())
    }

    /// Checks that a row image from outside (a checkpoint, the redo log) holds every column of
    /// this layout: its bitmap and fixed slots, then each variable column's length and bytes.
    /// The readers below rely on it for rows `encode` did not make.
    pub fn check(&self, row: &[u8]) -> Result<(), Error> {
        let bad = |what: String| {
            Err(Error::new(
                ErrorCode::Internal,
                format!("a stored row of {} bytes {what}", row.len()),
            ))
        };
        let Some(mut rest) = row.get(self.var_start..) else {
            return bad(format!(
                "is shorter than its null bitmap and fixed-width columns ({} bytes)",
                self.var_start
            ));
        };
        let vars = self
            .slots
            .iter()
            .zip(&self.types)
            .filter(|(s, _)| matches!(s, Slot::Var { .. }));
        for (ordinal, (_, ty)) in vars.enumerate() {
            let (len, used, parts) = get_length(rest);
            if parts && (len != PartsRef::ENCODED_BYTES || !base::lob::holds_parts(*ty)) {
                return bad(format!(
                    "holds a reference to parts in variable-width column {ordinal} of type {ty:?}"
                ));
            }
            let Some(after) = rest.get(used + len..) else {
                return bad(format!(
                    "ends inside its variable-width column {ordinal} (of {len} bytes)"
                ));
            };
            rest = after;
        }
        Ok(())
    }

    /// Whether column `c` of a row is NULL. The readers (this, `bytes`, `value`) take rows
    /// `encode` made or `check` passed; for a column the layout lacks, or a row too short for
    /// the column, they answer not NULL, no bytes and NULL rather than panic.
    pub fn is_null(&self, row: &[u8], c: usize) -> bool {
        match self.null_bits.get(c) {
            Some(Some(bit)) => row.get(bit / 8).is_some_and(|b| b & (1 << (bit % 8)) != 0),
            _ => false,
        }
    }

    /// The raw bytes of a variable-width column, or of a fixed one's slot.
    pub fn bytes<'r>(&self, row: &'r [u8], c: usize) -> &'r [u8] {
        match self.slots.get(c) {
            Some(Slot::Fixed { offset, width }) => row.get(*offset..offset + width),
            Some(Slot::Var { ordinal }) => {
                let mut rest = row.get(self.var_start..).unwrap_or_default();
                for _ in 0..*ordinal {
                    let (len, used, _) = get_length(rest);
                    rest = rest.get(used + len..).unwrap_or_default();
                }
                let (len, used, _) = get_length(rest);
                rest.get(used..used + len)
            }
            None => None,
        }
        .unwrap_or_default()
    }

    /// Whether variable-width column `c` of a row holds a reference to parts (its `bytes` are
    /// then the reference's, not the value's).
    pub fn is_parts(&self, row: &[u8], c: usize) -> bool {
        let Some(Slot::Var { ordinal }) = self.slots.get(c) else {
            return false;
        };
        let mut rest = row.get(self.var_start..).unwrap_or_default();
        for _ in 0..*ordinal {
            let (len, used, _) = get_length(rest);
            rest = rest.get(used + len..).unwrap_or_default();
        }
        get_length(rest).2
    }

    /// Decodes column `c` of a row.
    pub fn value(&self, row: &[u8], c: usize) -> Value {
        if self.is_null(row, c) {
            return Value::Null;
        }
        let bytes = self.bytes(row, c);
        match (self.slots.get(c), self.types.get(c)) {
            (Some(Slot::Var { .. }), _) if self.is_parts(row, c) => {
                PartsRef::decode(bytes).map_or(Value::Null, Value::Parts)
            }
            (Some(Slot::Var { .. }), _) => Value::Bytes(bytes.to_vec()),
            (Some(Slot::Fixed { width, .. }), Some(ty)) if bytes.len() == *width => {
                read_fixed(bytes, *ty)
            }
            _ => Value::Null,
        }
    }

    /// Decodes every column.
    pub fn values(&self, row: &[u8]) -> Vec<Value> {
        (0..self.types.len()).map(|c| self.value(row, c)).collect()
    }
}

/// Bytes `put_length` uses for `len`.
fn length_bytes(len: usize) -> usize {
    match len {
        0..=0x7F => 1,
        0x80..=0x3FFF => 2,
        _ => 3,
    }
}

/// Appends a length of up to 21 bits (22 with [`PARTS_FLAG`]), 7 bits per byte, least
/// significant group first.
fn put_length(out: &mut Vec<u8>, len: usize) {
    let mut rest = len;
    while rest >= 0x80 {
        out.push((rest as u8 & 0x7F) | 0x80);
        rest >>= 7;
    }
    out.push(rest as u8);
}

/// Reads a length written by `put_length`; returns it (without [`PARTS_FLAG`]), the bytes it
/// took and whether the flag was set.
fn get_length(bytes: &[u8]) -> (usize, usize, bool) {
    let mut len = 0usize;
    let mut used = 4;
    for (i, b) in bytes.iter().take(4).enumerate() {
        len |= usize::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            used = i + 1;
            break;
        }
    }
    (len & (PARTS_FLAG - 1), used, len & PARTS_FLAG != 0)
}

fn date_bits(d: Date) -> u32 {
    u32::from(d.year) << 16 | u32::from(d.month) << 8 | u32::from(d.day)
}

fn bits_date(v: u32) -> Date {
    Date {
        year: (v >> 16) as u16,
        month: (v >> 8) as u8,
        day: v as u8,
    }
}

/// DATETIME as one number whose order is chronological: date, then time, then microseconds.
fn datetime_number(dt: DateTime) -> u64 {
    let date =
        (u64::from(dt.date.year) * 13 + u64::from(dt.date.month)) * 32 + u64::from(dt.date.day);
    (((date * 24 + u64::from(dt.hour)) * 60 + u64::from(dt.minute)) * 60 + u64::from(dt.second))
        * 1_000_000
        + u64::from(dt.microsecond)
}

fn number_datetime(mut n: u64) -> DateTime {
    let mut next = |radix: u64| {
        let part = n % radix;
        n /= radix;
        part
    };
    let microsecond = next(1_000_000) as u32;
    let second = next(60) as u8;
    let minute = next(60) as u8;
    let hour = next(24) as u8;
    let day = next(32) as u8;
    let month = next(13) as u8;
    let year = n as u16;
    DateTime {
        date: Date { year, month, day },
        hour,
        minute,
        second,
        microsecond,
    }
}

fn write_fixed(slot: &mut [u8], ty: ColumnType, value: &Value) {
    match (ty, value) {
        // An integer slot holds the value's low bytes (its width is at most 8).
        (_, Value::Int(v)) => copy_low(slot, &v.to_le_bytes()),
        (_, Value::UInt(v)) => copy_low(slot, &v.to_le_bytes()),
        (_, Value::Float(v)) => slot.copy_from_slice(&v.to_le_bytes()),
        (_, Value::Double(v)) => slot.copy_from_slice(&v.to_le_bytes()),
        // The mantissa's low bytes: 16 for a DECIMAL of up to 38 digits, 32 past (it fits).
        (_, Value::Decimal(d)) => match (d.small(), slot.len()) {
            (Some(m), 16) => slot.copy_from_slice(&m.to_le_bytes()),
            // 32 bytes: the whole two's complement, sign included.
            _ => copy_low(slot, &d.mantissa().to_le_bytes()),
        },
        (_, Value::Date(d)) => slot.copy_from_slice(&date_bits(*d).to_le_bytes()),
        (_, Value::DateTime(dt)) => slot.copy_from_slice(&datetime_number(*dt).to_le_bytes()),
        (_, Value::Time(t)) => slot.copy_from_slice(&t.as_micros().to_le_bytes()),
        (ColumnType::Year, Value::Year(y)) => {
            copy_low(slot, &[if *y == 0 { 0 } else { (*y - 1900) as u8 }])
        }
        _ => {}
    }
}

/// Copies the first bytes of `bytes` into `slot`, as many as both have.
fn copy_low(slot: &mut [u8], bytes: &[u8]) {
    for (s, b) in slot.iter_mut().zip(bytes) {
        *s = *b;
    }
}

fn read_fixed(bytes: &[u8], ty: ColumnType) -> Value {
    let mut word = [0u8; 16];
    copy_low(&mut word, bytes);
    let u = u64::from_le_bytes(word[..8].try_into().unwrap_or_default());
    match ty {
        ColumnType::TinyInt { unsigned }
        | ColumnType::SmallInt { unsigned }
        | ColumnType::MediumInt { unsigned }
        | ColumnType::Int { unsigned }
        | ColumnType::BigInt { unsigned } => {
            if unsigned {
                Value::UInt(u)
            } else {
                let shift = 64 - 8 * bytes.len() as u32;
                Value::Int(((u << shift) as i64) >> shift)
            }
        }
        ColumnType::Float => Value::Float(f32::from_bits(u as u32)),
        ColumnType::Double => Value::Double(f64::from_bits(u)),
        ColumnType::Decimal { scale, .. } if bytes.len() == 16 => {
            Value::Decimal(Decimal::new_small(i128::from_le_bytes(word), scale))
        }
        ColumnType::Decimal { scale, .. } => {
            // Sign-extended from the slot's 32 bytes.
            let fill = if bytes.last().is_some_and(|b| *b >= 0x80) {
                0xff
            } else {
                0
            };
            let mut wide = [fill; 32];
            copy_low(&mut wide, bytes);
            Value::Decimal(Decimal::new(I256::from_le_bytes(wide), scale))
        }
        ColumnType::Date => Value::Date(bits_date(u as u32)),
        ColumnType::DateTime { .. } | ColumnType::Timestamp { .. } => {
            Value::DateTime(number_datetime(u))
        }
        ColumnType::Time { .. } => Value::Time(Time::from_micros(u as i64)),
        ColumnType::Bit { .. } | ColumnType::Enum | ColumnType::Set => Value::UInt(u),
        ColumnType::Year => Value::Year(match word[0] {
            0 => 0,
            y => 1900 + u16::from(y),
        }),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_round_trip_at_every_size_boundary() {
        for len in [0usize, 1, 127, 128, 129, 16_383, 16_384, 65_535, 1 << 20] {
            let mut out = Vec::new();
            put_length(&mut out, len);
            assert_eq!(out.len(), length_bytes(len), "{len}");
            out.push(0xEE);
            assert_eq!(get_length(&out), (len, length_bytes(len), false), "{len}");
        }
    }

    #[test]
    fn references_to_parts_round_trip_and_are_checked() {
        use base::lob::PartsRef;
        use base::schema::ColumnDef;
        use base::types::LobSize;
        let long = ColumnType::Blob {
            size: LobSize::Long,
        };
        let columns = vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("b", long),
            ColumnDef::new("v", ColumnType::VarBinary { length: 10 }),
        ];
        let table = TableDef::new("t", columns, &["id"]).unwrap();
        let layout = RowLayout::new(&table);
        let r = PartsRef {
            id: 7,
            len: 5 << 20,
        };
        let values = vec![
            Value::Int(1),
            Value::Parts(r),
            Value::Bytes(b"after".to_vec()),
        ];
        let row = layout.encode(&values).unwrap();
        layout.check(&row).unwrap();
        assert_eq!(layout.values(&row), values);
        assert!(layout.is_parts(&row, 1));
        assert!(!layout.is_parts(&row, 2));
        // A reference in a column that holds none is refused, written or read back.
        let wrong = vec![Value::Int(1), Value::Bytes(vec![1]), Value::Parts(r)];
        assert!(layout.encode(&wrong).is_err());
        let mut as_long = table.clone();
        as_long.columns[2].ty = long;
        let forged = RowLayout::new(&as_long).encode(&wrong).unwrap();
        assert!(layout.check(&forged).is_err());
    }

    #[test]
    fn decimals_take_16_bytes_to_38_digits_and_32_past() {
        use base::schema::ColumnDef;
        use base::value::{Decimal, I256};
        let dec = |precision| ColumnType::Decimal {
            precision,
            scale: 4,
        };
        let columns = vec![
            ColumnDef::new("id", ColumnType::Int { unsigned: false }),
            ColumnDef::new("n", dec(38)),
            ColumnDef::new("w", dec(65)),
        ];
        let table = TableDef::new("t", columns, &["id"]).unwrap();
        let layout = RowLayout::new(&table);
        let narrow = Decimal::new(-(10i128.pow(38) - 1), 4);
        let wide = Decimal::new(-(I256::from(10).pow(65) - 1), 4);
        for (n, w) in [(narrow, wide), (Decimal::new(5, 4), Decimal::new(-5, 4))] {
            let values = vec![Value::Int(1), Value::Decimal(n), Value::Decimal(w)];
            let row = layout.encode(&values).unwrap();
            layout.check(&row).unwrap();
            assert_eq!(layout.values(&row), values);
        }
        // A DECIMAL(38) row is what tables made before DECIMAL(65) hold: 16 bytes.
        let one = |c: ColumnDef| {
            let t = TableDef::new("t", vec![c], &["n"]).unwrap();
            RowLayout::new(&t)
                .encode(&[Value::Decimal(narrow)])
                .unwrap()
        };
        let (r38, r65) = (
            one(ColumnDef::new("n", dec(38))),
            one(ColumnDef::new("n", dec(65))),
        );
        assert_eq!(r65.len() - r38.len(), 16);
    }

    #[test]
    fn a_stored_row_cut_short_is_refused_and_never_panics_a_reader() {
        use base::schema::ColumnDef;
        let table = TableDef::new(
            "t",
            vec![
                ColumnDef::new("id", ColumnType::Int { unsigned: false }),
                ColumnDef::new("a", ColumnType::VarBinary { length: 300 }).nullable(),
                ColumnDef::new("b", ColumnType::VarBinary { length: 300 }),
            ],
            &["id"],
        )
        .unwrap();
        let layout = RowLayout::new(&table);
        let values = [Value::Int(7), Value::Null, Value::Bytes(vec![b'x'; 200])];
        let row = layout.encode(&values).unwrap();
        layout.check(&row).unwrap();
        assert_eq!(layout.values(&row), values);
        for cut in 0..row.len() {
            let short = &row[..cut];
            assert!(layout.check(short).is_err(), "cut at {cut}");
            // Column 3 is past the layout.
            for c in 0..4 {
                layout.value(short, c);
                layout.bytes(short, c);
            }
        }
    }
}
