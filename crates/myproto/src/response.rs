//! Server responses: OK, ERR and EOF packets, column definitions and text rows, and the column
//! type codes and flags of result-set metadata.

use crate::codec::{put_lenenc, put_lenenc_bytes};
use crate::handshake::cap;

/// Column type codes (enum_field_types).
pub mod types {
    pub const DECIMAL: u8 = 0x00;
    pub const TINY: u8 = 0x01;
    pub const SHORT: u8 = 0x02;
    pub const LONG: u8 = 0x03;
    pub const FLOAT: u8 = 0x04;
    pub const DOUBLE: u8 = 0x05;
    pub const NULL: u8 = 0x06;
    pub const TIMESTAMP: u8 = 0x07;
    pub const LONGLONG: u8 = 0x08;
    pub const INT24: u8 = 0x09;
    pub const DATE: u8 = 0x0A;
    pub const TIME: u8 = 0x0B;
    pub const DATETIME: u8 = 0x0C;
    pub const YEAR: u8 = 0x0D;
    pub const VARCHAR: u8 = 0x0F;
    pub const BIT: u8 = 0x10;
    pub const NEWDECIMAL: u8 = 0xF6;
    pub const LONG_BLOB: u8 = 0xFB;
    pub const BLOB: u8 = 0xFC;
    pub const VAR_STRING: u8 = 0xFD;
    pub const STRING: u8 = 0xFE;
    /// A spatial value: its SRID then WKB, binary.
    pub const GEOMETRY: u8 = 0xFF;
}

/// Column definition flags.
pub mod flags {
    pub const NOT_NULL: u16 = 1;
    pub const PRI_KEY: u16 = 2;
    pub const UNIQUE_KEY: u16 = 4;
    pub const MULTIPLE_KEY: u16 = 8;
    pub const BLOB: u16 = 16;
    pub const UNSIGNED: u16 = 32;
    pub const ZEROFILL: u16 = 64;
    pub const BINARY: u16 = 128;
    pub const ENUM: u16 = 256;
    pub const AUTO_INCREMENT: u16 = 512;
    pub const SET: u16 = 2048;
    pub const NO_DEFAULT_VALUE: u16 = 4096;
    pub const NUM: u16 = 32768;
}

/// Collation ids used in column definitions.
pub const BINARY_COLLATION_ID: u16 = 63;
pub const UTF8MB4_GENERAL_CI_ID: u16 = 45;

/// An OK packet (header 0x00, or 0xFE when it ends a result set under DEPRECATE_EOF).
pub fn ok(
    out: &mut Vec<u8>,
    header: u8,
    affected: u64,
    last_insert_id: u64,
    status: u16,
    warnings: u16,
    info: &str,
) {
    out.push(header);
    put_lenenc(out, affected);
    put_lenenc(out, last_insert_id);
    out.extend_from_slice(&status.to_le_bytes());
    out.extend_from_slice(&warnings.to_le_bytes());
    // Length-encoded, as MySQL and MariaDB servers send it and their clients read it.
    if !info.is_empty() {
        put_lenenc_bytes(out, info.as_bytes());
    }
}

/// An ERR packet: error number, SQLSTATE, message (cut to MySQL's 512 bytes on a char boundary).
pub fn err(out: &mut Vec<u8>, code: u16, sqlstate: &str, message: &str) {
    let mut end = message.len().min(512);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    // `end` is a char boundary within the message, so the cut is always there.
    let cut = message.get(..end).unwrap_or_default();
    err_bytes(out, code, sqlstate, cut.as_bytes());
}

/// An ERR packet whose message is already in the client's character set (at most 512 bytes).
pub fn err_bytes(out: &mut Vec<u8>, code: u16, sqlstate: &str, message: &[u8]) {
    out.push(0xFF);
    out.extend_from_slice(&code.to_le_bytes());
    out.push(b'#');
    let state = sqlstate.as_bytes();
    out.extend_from_slice(state.get(..5).unwrap_or(state));
    for _ in state.len()..5 {
        out.push(b'0');
    }
    out.extend_from_slice(message.get(..512).unwrap_or(message));
}

/// An EOF packet (only for clients without DEPRECATE_EOF).
pub fn eof(out: &mut Vec<u8>, status: u16, warnings: u16) {
    out.push(0xFE);
    out.extend_from_slice(&warnings.to_le_bytes());
    out.extend_from_slice(&status.to_le_bytes());
}

/// The end of a result set or of its metadata, in the form the client asked for.
pub fn end_of(out: &mut Vec<u8>, capabilities: u32, status: u16, warnings: u16) {
    if capabilities & cap::DEPRECATE_EOF != 0 {
        ok(out, 0xFE, 0, 0, status, warnings, "");
    } else {
        eof(out, status, warnings);
    }
}

/// How a column definition's names are written for a connection in another character set.
pub type NameEncoder<'a> = &'a dyn Fn(&str) -> Vec<u8>;

/// One column of a result set's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub schema: String,
    pub table: String,
    pub org_table: String,
    pub name: String,
    pub org_name: String,
    pub collation: u16,
    /// Display length in bytes (characters x max bytes per character for strings).
    pub length: u32,
    pub column_type: u8,
    pub flags: u16,
    pub decimals: u8,
}

impl Column {
    /// A computed column (no table), of the given type.
    pub fn computed(name: &str, column_type: u8, length: u32, decimals: u8) -> Column {
        let string = matches!(
            column_type,
            types::VARCHAR | types::VAR_STRING | types::STRING | types::BLOB | types::LONG_BLOB
        );
        Column {
            schema: String::new(),
            table: String::new(),
            org_table: String::new(),
            name: name.to_string(),
            org_name: String::new(),
            collation: if string {
                UTF8MB4_GENERAL_CI_ID
            } else {
                BINARY_COLLATION_ID
            },
            length,
            column_type,
            flags: if string {
                0
            } else if column_type == types::GEOMETRY {
                flags::BINARY
            } else {
                flags::BINARY | flags::NUM
            },
            decimals,
        }
    }

    /// Appends its ColumnDefinition41 payload. Results are sent in utf8mb4 whatever the column
    /// stores, as a server with `character_set_results=utf8mb4` sends them: a text column
    /// announces utf8mb4_general_ci (45), flagged BINARY when its own collation is a `_bin` one
    /// (utf8mb4_bin 46, latin1_bin 47, utf8mb3_bin 83); binary strings and numbers announce 63.
    pub fn encode(&self, out: &mut Vec<u8>) {
        self.encode_in(out, UTF8MB4_GENERAL_CI_ID, None);
    }

    /// The definition as a connection whose results are in another character set sees it:
    /// a text column announces `text_collation`, and each name is written as `name` encodes it
    /// (as it is without).
    pub fn encode_in(&self, out: &mut Vec<u8>, text_collation: u16, name: Option<NameEncoder<'_>>) {
        let put_name = |out: &mut Vec<u8>, s: &str| match name {
            Some(f) => put_lenenc_bytes(out, &f(s)),
            None => put_lenenc_bytes(out, s.as_bytes()),
        };
        let (collation, flags) = match self.collation {
            BINARY_COLLATION_ID => (BINARY_COLLATION_ID, self.flags),
            46 | 47 | 83 => (text_collation, self.flags | flags::BINARY),
            _ => (text_collation, self.flags),
        };
        put_lenenc_bytes(out, b"def");
        put_name(out, &self.schema);
        put_name(out, &self.table);
        put_name(out, &self.org_table);
        put_name(out, &self.name);
        put_name(out, &self.org_name);
        out.push(0x0C);
        out.extend_from_slice(&collation.to_le_bytes());
        out.extend_from_slice(&self.length.to_le_bytes());
        out.push(self.column_type);
        out.extend_from_slice(&flags.to_le_bytes());
        out.push(self.decimals);
        out.extend_from_slice(&[0, 0]);
    }
}

/// Appends one text-protocol row: each value a length-encoded string, NULL as 0xFB.
pub fn text_row<'a>(out: &mut Vec<u8>, values: impl IntoIterator<Item = Option<&'a [u8]>>) {
    for v in values {
        match v {
            Some(b) => put_lenenc_bytes(out, b),
            None => out.push(0xFB),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn err_packet_layout() {
        let mut out = Vec::new();
        err(&mut out, 1146, "42S02", "Table 'test.t' doesn't exist");
        assert_eq!(&out[..9], b"\xff\x7a\x04#42S02");
        assert_eq!(&out[9..], b"Table 'test.t' doesn't exist");
    }

    #[test]
    fn ok_packet_layout() {
        let mut out = Vec::new();
        ok(&mut out, 0, 2, 300, 2, 1, "");
        assert_eq!(out, vec![0, 2, 0xFC, 0x2C, 0x01, 2, 0, 1, 0]);
    }
}
