//! Prepared statements on the wire: the COM_STMT_PREPARE answer, COM_STMT_EXECUTE's parameter
//! block (null bitmap, types, binary values) decoded against the statement's parameter count,
//! and binary-protocol result rows.

use crate::codec::{put_lenenc_bytes, Decoder};
use crate::response::types;
use crate::ProtoError;

/// Parameters one statement may take (MySQL's limit).
pub const PARAMS_MAX: usize = 65_535;

/// A parameter value as the client sent it.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Null,
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    /// Strings, DECIMAL text, blobs: bytes as sent.
    Bytes(Vec<u8>),
    Date {
        year: u16,
        month: u8,
        day: u8,
    },
    DateTime {
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    },
    Time {
        negative: bool,
        days: u32,
        hours: u8,
        minutes: u8,
        seconds: u8,
        micros: u32,
    },
}

/// A decoded COM_STMT_EXECUTE (without its command byte).
#[derive(Debug, Clone, PartialEq)]
pub struct Execute {
    pub statement: u32,
    pub flags: u8,
    pub params: Vec<Param>,
}

/// The statement id a COM_STMT_EXECUTE, CLOSE, RESET or SEND_LONG_DATA names.
pub fn statement_id(body: &[u8]) -> Result<u32, ProtoError> {
    Decoder::new(body, "statement command").u32()
}

/// Decodes COM_STMT_EXECUTE's body for a statement of `param_count` parameters. `types` holds
/// the parameter types bound by an earlier execute (updated when the client sends new ones);
/// `long_data` the values given by COM_STMT_SEND_LONG_DATA, which take the place of theirs.
pub fn parse_execute(
    body: &[u8],
    param_count: usize,
    types: &mut Vec<(u8, bool)>,
    long_data: &[Option<Vec<u8>>],
) -> Result<Execute, ProtoError> {
    let mut d = Decoder::new(body, "COM_STMT_EXECUTE");
    let statement = d.u32()?;
    let flags = d.u8()?;
    let _iterations = d.u32()?;
    let mut params = Vec::with_capacity(param_count.min(PARAMS_MAX));
    if param_count == 0 {
        return Ok(Execute {
            statement,
            flags,
            params,
        });
    }
    let nulls = d.bytes(param_count.div_ceil(8))?;
    let bound = d.u8()?;
    if bound == 1 {
        types.clear();
        for _ in 0..param_count {
            let t = d.u8()?;
            let unsigned = d.u8()? & 0x80 != 0;
            types.push((t, unsigned));
        }
    } else if types.len() != param_count {
        return Err(ProtoError::Malformed(
            "COM_STMT_EXECUTE without parameter types for a statement never bound".into(),
        ));
    }
    // `types` holds `param_count` entries here, and `nulls` a bit for each.
    for (i, &(t, unsigned)) in types.iter().enumerate() {
        if let Some(Some(data)) = long_data.get(i) {
            params.push(Param::Bytes(data.clone()));
            continue;
        }
        if nulls.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0) {
            params.push(Param::Null);
            continue;
        }
        params.push(value(&mut d, t, unsigned)?);
    }
    Ok(Execute {
        statement,
        flags,
        params,
    })
}

fn value(d: &mut Decoder, t: u8, unsigned: bool) -> Result<Param, ProtoError> {
    let int = |v: i64, u: u64| {
        if unsigned {
            Param::UInt(u)
        } else {
            Param::Int(v)
        }
    };
    Ok(match t {
        types::NULL => Param::Null,
        types::TINY => {
            let b = d.u8()?;
            int(b as i8 as i64, b as u64)
        }
        types::SHORT | types::YEAR => {
            let v = d.u16()?;
            int(v as i16 as i64, v as u64)
        }
        types::LONG | types::INT24 => {
            let v = d.u32()?;
            int(v as i32 as i64, v as u64)
        }
        types::LONGLONG => {
            let v = d.u64()?;
            int(v as i64, v)
        }
        types::FLOAT => Param::Float(f32::from_bits(d.u32()?)),
        types::DOUBLE => Param::Double(f64::from_bits(d.u64()?)),
        types::DATE | types::DATETIME | types::TIMESTAMP => {
            let n = d.u8()?;
            let mut p = Param::DateTime {
                year: 0,
                month: 0,
                day: 0,
                hour: 0,
                minute: 0,
                second: 0,
                micros: 0,
            };
            if let Param::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                micros,
            } = &mut p
            {
                if n >= 4 {
                    *year = d.u16()?;
                    *month = d.u8()?;
                    *day = d.u8()?;
                }
                if n >= 7 {
                    *hour = d.u8()?;
                    *minute = d.u8()?;
                    *second = d.u8()?;
                }
                if n >= 11 {
                    *micros = d.u32()?;
                }
                if !matches!(n, 0 | 4 | 7 | 11) {
                    return Err(ProtoError::Malformed(format!("date of {n} bytes")));
                }
                if t == types::DATE {
                    return Ok(Param::Date {
                        year: *year,
                        month: *month,
                        day: *day,
                    });
                }
            }
            p
        }
        types::TIME => {
            let n = d.u8()?;
            let mut t = Param::Time {
                negative: false,
                days: 0,
                hours: 0,
                minutes: 0,
                seconds: 0,
                micros: 0,
            };
            if let Param::Time {
                negative,
                days,
                hours,
                minutes,
                seconds,
                micros,
            } = &mut t
            {
                if n >= 8 {
                    *negative = d.u8()? == 1;
                    *days = d.u32()?;
                    *hours = d.u8()?;
                    *minutes = d.u8()?;
                    *seconds = d.u8()?;
                }
                if n >= 12 {
                    *micros = d.u32()?;
                }
                if !matches!(n, 0 | 8 | 12) {
                    return Err(ProtoError::Malformed(format!("time of {n} bytes")));
                }
            }
            t
        }
        types::DECIMAL
        | types::NEWDECIMAL
        | types::VARCHAR
        | types::VAR_STRING
        | types::STRING
        | types::BLOB
        | 0xF5 // JSON
        | 0xF7 // ENUM
        | 0xF8 // SET
        | 0xF9 // TINY_BLOB
        | 0xFA // MEDIUM_BLOB
        | 0xFB // LONG_BLOB
        | 0x10 // BIT
        | types::GEOMETRY
        => Param::Bytes(d.lenenc_bytes()?.to_vec()),
        other => {
            return Err(ProtoError::Malformed(format!(
                "parameter of unknown type {other:#04x}"
            )))
        }
    })
}

/// COM_STMT_PREPARE's OK: statement id and the column and parameter counts. Parameter and column
/// definitions follow as their own packets.
pub fn prepare_ok(out: &mut Vec<u8>, statement: u32, columns: u16, params: u16, warnings: u16) {
    out.push(0x00);
    out.extend_from_slice(&statement.to_le_bytes());
    out.extend_from_slice(&columns.to_le_bytes());
    out.extend_from_slice(&params.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&warnings.to_le_bytes());
}

/// Writes one binary-protocol row: a header, a null bitmap (offset 2), then each non-NULL
/// value by its column type.
pub struct BinaryRow<'a> {
    out: &'a mut Vec<u8>,
    bitmap: usize,
    column: usize,
}

impl<'a> BinaryRow<'a> {
    pub fn begin(out: &'a mut Vec<u8>, columns: usize) -> BinaryRow<'a> {
        out.push(0x00);
        let bitmap = out.len();
        out.resize(bitmap + (columns + 2).div_ceil(8), 0);
        BinaryRow {
            out,
            bitmap,
            column: 0,
        }
    }

    pub fn null(&mut self) {
        let bit = self.column + 2;
        // `begin` sized the bitmap for every column.
        if let Some(byte) = self.out.get_mut(self.bitmap + bit / 8) {
            *byte |= 1 << (bit % 8);
        }
        self.column += 1;
    }

    pub fn int(&mut self, column_type: u8, v: i64) {
        match column_type {
            types::TINY => self.out.push(v as u8),
            types::SHORT | types::YEAR => self.out.extend_from_slice(&(v as u16).to_le_bytes()),
            types::LONG | types::INT24 => self.out.extend_from_slice(&(v as u32).to_le_bytes()),
            _ => self.out.extend_from_slice(&v.to_le_bytes()),
        }
        self.column += 1;
    }

    pub fn float(&mut self, v: f32) {
        self.out.extend_from_slice(&v.to_bits().to_le_bytes());
        self.column += 1;
    }

    pub fn double(&mut self, v: f64) {
        self.out.extend_from_slice(&v.to_bits().to_le_bytes());
        self.column += 1;
    }

    pub fn bytes(&mut self, b: &[u8]) {
        put_lenenc_bytes(self.out, b);
        self.column += 1;
    }

    /// DATE, DATETIME, TIMESTAMP in their shortest form.
    #[allow(clippy::too_many_arguments)]
    pub fn datetime(
        &mut self,
        year: u16,
        month: u8,
        day: u8,
        hour: u8,
        minute: u8,
        second: u8,
        micros: u32,
    ) {
        let n = if micros != 0 {
            11
        } else if hour != 0 || minute != 0 || second != 0 {
            7
        } else if year != 0 || month != 0 || day != 0 {
            4
        } else {
            0
        };
        self.out.push(n);
        if n == 0 {
            self.column += 1;
            return;
        }
        self.out.extend_from_slice(&year.to_le_bytes());
        self.out.push(month);
        self.out.push(day);
        if n >= 7 {
            self.out.extend_from_slice(&[hour, minute, second]);
        }
        if n == 11 {
            self.out.extend_from_slice(&micros.to_le_bytes());
        }
        self.column += 1;
    }

    pub fn time(
        &mut self,
        negative: bool,
        days: u32,
        hours: u8,
        minutes: u8,
        seconds: u8,
        micros: u32,
    ) {
        if days == 0 && hours == 0 && minutes == 0 && seconds == 0 && micros == 0 {
            self.out.push(0);
        } else {
            self.out.push(if micros != 0 { 12 } else { 8 });
            self.out.push(negative as u8);
            self.out.extend_from_slice(&days.to_le_bytes());
            self.out.extend_from_slice(&[hours, minutes, seconds]);
            if micros != 0 {
                self.out.extend_from_slice(&micros.to_le_bytes());
            }
        }
        self.column += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn execute_with_types_then_without() {
        let mut body = vec![7, 0, 0, 0, 0, 1, 0, 0, 0];
        body.push(0b10); // second parameter NULL
        body.push(1);
        body.extend_from_slice(&[types::LONGLONG, 0, types::VAR_STRING, 0]);
        body.extend_from_slice(&42i64.to_le_bytes());
        let mut t = Vec::new();
        let e = parse_execute(&body, 2, &mut t, &[]).unwrap();
        assert_eq!(e.statement, 7);
        assert_eq!(e.params, vec![Param::Int(42), Param::Null]);
        // Rebinding omitted: the remembered types apply.
        let mut again = vec![7, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0];
        again.extend_from_slice(&(-1i64).to_le_bytes());
        again.extend_from_slice(&[3, b'a', b'b', b'c']);
        let e = parse_execute(&again, 2, &mut t, &[]).unwrap();
        assert_eq!(
            e.params,
            vec![Param::Int(-1), Param::Bytes(b"abc".to_vec())]
        );
        // Never bound: refused.
        assert!(parse_execute(&again, 2, &mut Vec::new(), &[]).is_err());
    }

    #[test]
    fn rows_mark_nulls_from_bit_two() {
        let mut out = Vec::new();
        let mut row = BinaryRow::begin(&mut out, 3);
        row.int(types::LONG, 5);
        row.null();
        row.bytes(b"x");
        assert_eq!(out, vec![0, 0b1000, 5, 0, 0, 0, 1, b'x']);
    }

    proptest! {
        #[test]
        fn random_execute_bodies_never_panic(
            body in proptest::collection::vec(any::<u8>(), 0..128),
            n in 0usize..20,
        ) {
            let _ = parse_execute(&body, n, &mut Vec::new(), &[]);
        }
    }
}
