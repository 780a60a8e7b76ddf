//! The connection's character sets, MariaDB's character_set_client, _connection and _results:
//! the handshake's collation chooses them and SET NAMES, SET CHARACTER SET and the variables
//! change them. The client's text (statements, string parameters, names) is decoded from
//! character_set_client into the UTF-8 Cairn parses and stores; results (text values, column
//! and table names, error messages) are encoded into character_set_results. Cairn serves
//! utf8mb4, utf8mb3 (utf8), latin1 (MariaDB's, Windows-1252) and binary.

use std::borrow::Cow;

use base::collation::{latin1_byte, latin1_char};
use base::types::Charset;

use crate::error::SqlError;
use crate::exec::Result;

/// The binary character set's collation id, which result columns of bytes announce.
pub const BINARY_COLLATION_ID: u16 = 63;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charsets {
    /// What the client's text is in.
    pub client: Charset,
    /// What results are sent in; None sends them as stored (character_set_results = NULL).
    pub results: Option<Charset>,
    /// character_set_connection, and collation_connection's name.
    pub connection: Charset,
    pub collation: &'static str,
}

impl Default for Charsets {
    fn default() -> Charsets {
        Charsets::all(Charset::Utf8mb4, None)
    }
}

impl Charsets {
    /// One character set for all three (SET NAMES), with `collation` or the set's default.
    pub fn all(charset: Charset, collation: Option<&'static str>) -> Charsets {
        Charsets {
            client: charset,
            results: Some(charset),
            connection: charset,
            collation: collation.unwrap_or_else(|| default_collation(charset).0),
        }
    }

    /// The character sets a client's handshake asks for by collation id; an id Cairn does not
    /// know is utf8mb4.
    pub fn for_collation_id(id: u8) -> Charsets {
        let (charset, name) = match id {
            8 => (Charset::Latin1, "latin1_swedish_ci"),
            47 => (Charset::Latin1, "latin1_bin"),
            5 | 15 | 31 | 48 | 49 | 94 => (Charset::Latin1, "latin1_swedish_ci"),
            33 => (Charset::Utf8mb3, "utf8mb3_general_ci"),
            83 => (Charset::Utf8mb3, "utf8mb3_bin"),
            192 => (Charset::Utf8mb3, "utf8mb3_unicode_ci"),
            46 => (Charset::Utf8mb4, "utf8mb4_bin"),
            224 => (Charset::Utf8mb4, "utf8mb4_unicode_ci"),
            63 => (Charset::Binary, "binary"),
            _ => (Charset::Utf8mb4, "utf8mb4_general_ci"),
        };
        Charsets::all(charset, Some(name))
    }

    /// Whether the client's text needs no decoding (it is UTF-8 as Cairn reads it).
    pub fn client_is_utf8(&self) -> bool {
        self.client != Charset::Latin1
    }

    /// Whether results go out as stored.
    pub fn results_as_stored(&self) -> bool {
        matches!(
            self.results,
            None | Some(Charset::Utf8mb4) | Some(Charset::Binary)
        )
    }

    /// The client's text as the UTF-8 Cairn reads (bytes that are no UTF-8 replaced).
    pub fn decode<'a>(&self, bytes: &'a [u8]) -> Cow<'a, str> {
        if self.client == Charset::Latin1 && !bytes.is_ascii() {
            return Cow::Owned(bytes.iter().map(|b| latin1_char(*b)).collect());
        }
        String::from_utf8_lossy(bytes)
    }

    /// A string parameter's bytes as UTF-8 (unchanged unless the client writes latin1).
    pub fn decode_bytes(&self, bytes: Vec<u8>) -> Vec<u8> {
        if self.client == Charset::Latin1 && !bytes.is_ascii() {
            return self.decode(&bytes).into_owned().into_bytes();
        }
        bytes
    }

    /// Stored text in character_set_results: a character it lacks becomes `?`, as in MariaDB.
    pub fn encode<'a>(&self, text: &'a [u8]) -> Cow<'a, [u8]> {
        if self.results_as_stored() || text.is_ascii() {
            return Cow::Borrowed(text);
        }
        let Ok(s) = std::str::from_utf8(text) else {
            return Cow::Borrowed(text);
        };
        match self.results {
            Some(Charset::Latin1) => {
                Cow::Owned(s.chars().map(|c| latin1_byte(c).unwrap_or(b'?')).collect())
            }
            _ => Cow::Owned(
                s.chars()
                    .map(|c| if c.len_utf8() > 3 { '?' } else { c })
                    .collect::<String>()
                    .into_bytes(),
            ),
        }
    }

    /// The collation id a text result column announces (a column of bytes keeps 63).
    pub fn result_collation(&self, stored: u16) -> u16 {
        match self.results {
            _ if stored == BINARY_COLLATION_ID => stored,
            Some(Charset::Latin1) => 8,
            Some(Charset::Utf8mb3) => 33,
            _ => stored,
        }
    }
}

impl crate::exec::Session {
    /// SET of character_set_client, _results, _connection or collation_connection (false for
    /// any other variable). DEFAULT and NULL results as MariaDB: utf8mb4, and as stored.
    pub(crate) fn set_charset_variable(&mut self, name: &str, v: &base::Value) -> Result<bool> {
        let text = match v {
            base::Value::Null => None,
            v => Some(
                String::from_utf8_lossy(&base::text::value_text(v).unwrap_or_default())
                    .into_owned(),
            ),
        };
        let default = text
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case("default"));
        let charset = |t: &Option<String>| -> Result<Charset> {
            match t.as_deref() {
                Some(t) if !default => named(t),
                _ => Ok(Charset::Utf8mb4),
            }
        };
        match name {
            "character_set_client" => self.charsets.client = charset(&text)?,
            "character_set_results" => {
                self.charsets.results = match text {
                    None => None,
                    t => Some(charset(&t)?),
                }
            }
            "character_set_connection" => {
                let c = charset(&text)?;
                self.charsets.connection = c;
                self.charsets.collation = default_collation(c).0;
            }
            "collation_connection" => {
                let (c, name) = match text.as_deref() {
                    Some(t) if !default => named_collation(t)?,
                    _ => (Charset::Utf8mb4, default_collation(Charset::Utf8mb4).0),
                };
                self.charsets.connection = c;
                self.charsets.collation = name;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A character set's default collation: its name and id.
pub fn default_collation(charset: Charset) -> (&'static str, u16) {
    match charset {
        Charset::Utf8mb4 => ("utf8mb4_general_ci", 45),
        Charset::Utf8mb3 => ("utf8mb3_general_ci", 33),
        Charset::Latin1 => ("latin1_swedish_ci", 8),
        Charset::Binary => ("binary", 63),
    }
}

/// A character set named in SET NAMES or a character_set_* variable: 1115 for a name MariaDB
/// does not know, 1235 for one Cairn does not serve.
pub fn named(name: &str) -> Result<Charset> {
    let name = name.trim_matches(['\'', '"', '`']);
    match name.to_ascii_lowercase().as_str() {
        "utf8mb4" => Ok(Charset::Utf8mb4),
        "utf8" | "utf8mb3" => Ok(Charset::Utf8mb3),
        "latin1" => Ok(Charset::Latin1),
        "binary" => Ok(Charset::Binary),
        "ascii" | "ucs2" | "utf16" | "utf16le" | "utf32" | "big5" | "cp1250" | "cp1251"
        | "cp1256" | "cp1257" | "cp850" | "cp852" | "cp866" | "cp932" | "dec8" | "eucjpms"
        | "euckr" | "gb2312" | "gbk" | "geostd8" | "greek" | "hebrew" | "hp8" | "keybcs2"
        | "koi8r" | "koi8u" | "latin2" | "latin5" | "latin7" | "macce" | "macroman" | "sjis"
        | "swe7" | "tis620" | "ujis" | "armscii8" => Err(SqlError::unsupported(format!(
            "the character set {name} for a connection (utf8mb4, utf8mb3, latin1 and binary are served)"
        ))),
        _ => Err(SqlError::new(
            1115,
            "42000",
            format!("Unknown character set: '{name}'"),
        )),
    }
}

/// A collation named for a connection (SET NAMES ... COLLATE, collation_connection): its
/// character set and name as MariaDB spells it.
pub fn named_collation(name: &str) -> Result<(Charset, &'static str)> {
    let name = name.trim_matches(['\'', '"', '`']);
    let c = base::types::Collation::from_name(name)
        .map(base::types::Collation::text_form)
        .ok_or_else(|| SqlError::new(1273, "HY000", format!("Unknown collation: '{name}'")))?;
    Ok((c.charset(), c.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_clients_are_decoded_and_answered_in_latin1() {
        let c = Charsets::all(Charset::Latin1, None);
        assert_eq!(c.decode(b"SELECT '\xe9\x80'"), "SELECT 'é€'");
        assert_eq!(c.decode_bytes(vec![0xf1]), "ñ".as_bytes());
        assert_eq!(&*c.encode("é€ż".as_bytes()), b"\xe9\x80?");
        assert_eq!(c.result_collation(45), 8);
        assert_eq!(c.result_collation(63), 63);
        let u = Charsets::default();
        assert_eq!(u.decode("é".as_bytes()), "é");
        assert_eq!(&*u.encode("😀".as_bytes()), "😀".as_bytes());
        let m3 = Charsets::all(Charset::Utf8mb3, None);
        assert_eq!(&*m3.encode("a😀é".as_bytes()), "a?é".as_bytes());
        assert_eq!(Charsets::for_collation_id(8).client, Charset::Latin1);
        assert_eq!(
            Charsets::for_collation_id(33).collation,
            "utf8mb3_general_ci"
        );
        assert_eq!(Charsets::for_collation_id(255).client, Charset::Utf8mb4);
        assert!(named("foo").is_err_and(|e| e.code == 1115));
        assert!(named("ucs2").is_err_and(|e| e.code == 1235));
        assert_eq!(named("'utf8'").unwrap(), Charset::Utf8mb3);
    }
}
