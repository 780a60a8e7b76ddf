//! The connection's character sets, MariaDB's character_set_client, _connection and _results:
//! the handshake's collation chooses them and SET NAMES, SET CHARACTER SET and the variables
//! change them. The client's text (statements, string parameters, names) is decoded from
//! character_set_client into the UTF-8 Cairn parses and stores; results (text values, column
//! and table names, error messages) are encoded into character_set_results. Cairn stores
//! utf8mb4, utf8mb3 (utf8), latin1 (MariaDB's, Windows-1252) and binary text, and converts
//! ascii and MariaDB's single-byte sets (cp1250, cp1251, cp1256, cp1257, latin2, latin7,
//! greek, hebrew, koi8r, koi8u, macroman, cp866) at the connection (encoding_rs's tables).

use std::borrow::Cow;

use base::collation::{latin1_byte, latin1_char};
use base::types::Charset;

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;

/// The binary character set's collation id, which result columns of bytes announce.
pub const BINARY_COLLATION_ID: u16 = 63;

/// A character set a connection may use: one Cairn stores text in, or a single-byte set it
/// only converts at the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Stored(Charset),
    Legacy(&'static Legacy),
}

/// A single-byte character set served at the connection: MariaDB's name, how its bytes read
/// (None: ascii, bytes past 0x7F are no characters), and its collations (name, id), the
/// default first.
#[derive(Debug, PartialEq, Eq)]
pub struct Legacy {
    pub name: &'static str,
    encoding: Option<&'static encoding_rs::Encoding>,
    collations: &'static [(&'static str, u16)],
}

/// MariaDB's single-byte character sets whose bytes encoding_rs reads as MariaDB does, with
/// MariaDB's collation names and ids.
static LEGACY: &[Legacy] = &[
    Legacy {
        name: "ascii",
        encoding: None,
        collations: &[("ascii_general_ci", 11), ("ascii_bin", 65)],
    },
    Legacy {
        name: "cp1250",
        encoding: Some(encoding_rs::WINDOWS_1250),
        collations: &[
            ("cp1250_general_ci", 26),
            ("cp1250_czech_cs", 34),
            ("cp1250_croatian_ci", 44),
            ("cp1250_bin", 66),
            ("cp1250_polish_ci", 99),
        ],
    },
    Legacy {
        name: "cp1251",
        encoding: Some(encoding_rs::WINDOWS_1251),
        collations: &[
            ("cp1251_general_ci", 51),
            ("cp1251_bulgarian_ci", 14),
            ("cp1251_ukrainian_ci", 23),
            ("cp1251_bin", 50),
            ("cp1251_general_cs", 52),
        ],
    },
    Legacy {
        name: "cp1256",
        encoding: Some(encoding_rs::WINDOWS_1256),
        collations: &[("cp1256_general_ci", 57), ("cp1256_bin", 67)],
    },
    Legacy {
        name: "cp1257",
        encoding: Some(encoding_rs::WINDOWS_1257),
        collations: &[
            ("cp1257_general_ci", 59),
            ("cp1257_lithuanian_ci", 29),
            ("cp1257_bin", 58),
        ],
    },
    Legacy {
        name: "latin2",
        encoding: Some(encoding_rs::ISO_8859_2),
        collations: &[
            ("latin2_general_ci", 9),
            ("latin2_czech_cs", 2),
            ("latin2_hungarian_ci", 21),
            ("latin2_croatian_ci", 27),
            ("latin2_bin", 77),
        ],
    },
    Legacy {
        name: "latin7",
        encoding: Some(encoding_rs::ISO_8859_13),
        collations: &[
            ("latin7_general_ci", 41),
            ("latin7_estonian_cs", 20),
            ("latin7_general_cs", 42),
            ("latin7_bin", 79),
        ],
    },
    Legacy {
        name: "greek",
        encoding: Some(encoding_rs::ISO_8859_7),
        collations: &[("greek_general_ci", 25), ("greek_bin", 70)],
    },
    Legacy {
        name: "hebrew",
        encoding: Some(encoding_rs::ISO_8859_8),
        collations: &[("hebrew_general_ci", 16), ("hebrew_bin", 71)],
    },
    Legacy {
        name: "koi8r",
        encoding: Some(encoding_rs::KOI8_R),
        collations: &[("koi8r_general_ci", 7), ("koi8r_bin", 74)],
    },
    Legacy {
        name: "koi8u",
        encoding: Some(encoding_rs::KOI8_U),
        collations: &[("koi8u_general_ci", 22), ("koi8u_bin", 75)],
    },
    Legacy {
        name: "macroman",
        encoding: Some(encoding_rs::MACINTOSH),
        collations: &[("macroman_general_ci", 39), ("macroman_bin", 53)],
    },
    Legacy {
        name: "cp866",
        encoding: Some(encoding_rs::IBM866),
        collations: &[("cp866_general_ci", 36), ("cp866_bin", 68)],
    },
];

/// latin1's collations other than latin1_swedish_ci and latin1_bin, which a client may name:
/// served as latin1's text, under their own names.
const LATIN1_COLLATIONS: &[(&str, u16)] = &[
    ("latin1_german1_ci", 5),
    ("latin1_danish_ci", 15),
    ("latin1_german2_ci", 31),
    ("latin1_general_ci", 48),
    ("latin1_general_cs", 49),
    ("latin1_spanish_ci", 94),
];

impl Legacy {
    /// A character's byte in this set, if it has one.
    fn byte(&self, c: char) -> Option<u8> {
        let Some(encoding) = self.encoding else {
            return c.is_ascii().then_some(c as u8);
        };
        let mut buf = [0u8; 4];
        let (bytes, _, unmappable) = encoding.encode(c.encode_utf8(&mut buf));
        match bytes.as_ref() {
            [b] if !unmappable => Some(*b),
            _ => None,
        }
    }

    /// The text of this set's bytes (a byte ascii lacks read as `?`).
    fn text<'a>(&self, bytes: &'a [u8]) -> Cow<'a, str> {
        match self.encoding {
            None => Cow::Owned(
                bytes
                    .iter()
                    .map(|b| if b.is_ascii() { char::from(*b) } else { '?' })
                    .collect(),
            ),
            Some(e) => e.decode_without_bom_handling(bytes).0,
        }
    }
}

impl Wire {
    pub fn name(self) -> &'static str {
        match self {
            Wire::Stored(c) => c.name(),
            Wire::Legacy(l) => l.name,
        }
    }

    /// The most bytes one character takes.
    pub fn max_len(self) -> usize {
        match self {
            Wire::Stored(c) => c.max_len(),
            Wire::Legacy(_) => 1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charsets {
    /// What the client's text is in.
    pub client: Wire,
    /// What results are sent in; None sends them as stored (character_set_results = NULL).
    pub results: Option<Wire>,
    /// character_set_connection, and collation_connection's name.
    pub connection: Wire,
    pub collation: &'static str,
}

impl Default for Charsets {
    fn default() -> Charsets {
        Charsets::all(Wire::Stored(Charset::Utf8mb4), None)
    }
}

impl Charsets {
    /// One character set for all three (SET NAMES), with `collation` or the set's default.
    pub fn all(charset: Wire, collation: Option<&'static str>) -> Charsets {
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
        let stored = |c| Wire::Stored(c);
        let (charset, name) = match id {
            8 => (stored(Charset::Latin1), "latin1_swedish_ci"),
            47 => (stored(Charset::Latin1), "latin1_bin"),
            33 => (stored(Charset::Utf8mb3), "utf8mb3_general_ci"),
            83 => (stored(Charset::Utf8mb3), "utf8mb3_bin"),
            192 => (stored(Charset::Utf8mb3), "utf8mb3_unicode_ci"),
            46 => (stored(Charset::Utf8mb4), "utf8mb4_bin"),
            224 => (stored(Charset::Utf8mb4), "utf8mb4_unicode_ci"),
            63 => (stored(Charset::Binary), "binary"),
            id => match collation_by_id(u16::from(id)) {
                Some(found) => found,
                None => (stored(Charset::Utf8mb4), "utf8mb4_general_ci"),
            },
        };
        Charsets::all(charset, Some(name))
    }

    /// Whether the client's text needs no decoding (it is UTF-8 as Cairn reads it).
    pub fn client_is_utf8(&self) -> bool {
        matches!(
            self.client,
            Wire::Stored(Charset::Utf8mb4 | Charset::Utf8mb3 | Charset::Binary)
        )
    }

    /// Whether results go out as stored.
    pub fn results_as_stored(&self) -> bool {
        matches!(
            self.results,
            None | Some(Wire::Stored(Charset::Utf8mb4 | Charset::Binary))
        )
    }

    /// The client's text as the UTF-8 Cairn reads (bytes that are no UTF-8 replaced).
    pub fn decode<'a>(&self, bytes: &'a [u8]) -> Cow<'a, str> {
        if bytes.is_ascii() {
            // ASCII is UTF-8: checked by the fast validation, not the lossy walk.
            if let Ok(text) = std::str::from_utf8(bytes) {
                return Cow::Borrowed(text);
            }
        }
        match self.client {
            Wire::Stored(Charset::Latin1) => {
                Cow::Owned(bytes.iter().map(|b| latin1_char(*b)).collect())
            }
            Wire::Legacy(l) => l.text(bytes),
            Wire::Stored(_) => String::from_utf8_lossy(bytes),
        }
    }

    /// [`Charsets::decode`] of bytes it may keep: text already in UTF-8 (ASCII, or any from a
    /// UTF-8 client) is taken as it is, without a copy.
    pub fn decode_owned(&self, bytes: Vec<u8>) -> String {
        if bytes.is_ascii() || self.client_is_utf8() {
            match String::from_utf8(bytes) {
                Ok(text) => text,
                Err(e) => self.decode(e.as_bytes()).into_owned(),
            }
        } else {
            self.decode(&bytes).into_owned()
        }
    }

    /// A string parameter's bytes as UTF-8 (unchanged unless the client writes latin1).
    pub fn decode_bytes(&self, bytes: Vec<u8>) -> Vec<u8> {
        if !self.client_is_utf8() && !bytes.is_ascii() {
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
            Some(Wire::Stored(Charset::Latin1)) => {
                Cow::Owned(s.chars().map(|c| latin1_byte(c).unwrap_or(b'?')).collect())
            }
            Some(Wire::Legacy(l)) => {
                Cow::Owned(s.chars().map(|c| l.byte(c).unwrap_or(b'?')).collect())
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
            Some(Wire::Stored(Charset::Latin1)) => 8,
            Some(Wire::Stored(Charset::Utf8mb3)) => 33,
            Some(Wire::Legacy(l)) => l.collations[0].1,
            _ => stored,
        }
    }
}

/// A character set's default collation: its name and id.
pub fn default_collation(charset: Wire) -> (&'static str, u16) {
    match charset {
        Wire::Stored(Charset::Utf8mb4) => ("utf8mb4_general_ci", 45),
        Wire::Stored(Charset::Utf8mb3) => ("utf8mb3_general_ci", 33),
        Wire::Stored(Charset::Latin1) => ("latin1_swedish_ci", 8),
        Wire::Stored(Charset::Binary) => ("binary", 63),
        Wire::Legacy(l) => l.collations[0],
    }
}

/// A single-byte set's collation, or one of latin1's others, by its id.
fn collation_by_id(id: u16) -> Option<(Wire, &'static str)> {
    if let Some((name, _)) = LATIN1_COLLATIONS.iter().find(|(_, i)| *i == id) {
        return Some((Wire::Stored(Charset::Latin1), name));
    }
    LEGACY.iter().find_map(|l| {
        l.collations
            .iter()
            .find(|(_, i)| *i == id)
            .map(|(name, _)| (Wire::Legacy(l), *name))
    })
}

/// A single-byte set's collation, or one of latin1's others, by its name (any case).
fn collation_by_name(name: &str) -> Option<(Wire, &'static str)> {
    if let Some((found, _)) = LATIN1_COLLATIONS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
    {
        return Some((Wire::Stored(Charset::Latin1), found));
    }
    LEGACY.iter().find_map(|l| {
        l.collations
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(found, _)| (Wire::Legacy(l), *found))
    })
}

/// A character set named in SET NAMES or a character_set_* variable: 1115 for a name MariaDB
/// does not know, 1235 for one Cairn does not serve.
pub fn named(name: &str) -> Result<Wire> {
    let name = name.trim_matches(['\'', '"', '`']);
    let lower = name.to_ascii_lowercase();
    if let Some(l) = LEGACY.iter().find(|l| l.name == lower) {
        return Ok(Wire::Legacy(l));
    }
    match lower.as_str() {
        "utf8mb4" => Ok(Wire::Stored(Charset::Utf8mb4)),
        "utf8" | "utf8mb3" => Ok(Wire::Stored(Charset::Utf8mb3)),
        "latin1" => Ok(Wire::Stored(Charset::Latin1)),
        "binary" => Ok(Wire::Stored(Charset::Binary)),
        // Several bytes a character, where a trail byte may be a quote or a backslash: not
        // read as a statement's text.
        "ucs2" | "utf16" | "utf16le" | "utf32" | "big5" | "cp850" | "cp852" | "cp932" | "dec8"
        | "eucjpms" | "euckr" | "gb2312" | "gbk" | "geostd8" | "hp8" | "keybcs2" | "latin5"
        | "macce" | "sjis" | "swe7" | "tis620" | "ujis" | "armscii8" => {
            Err(SqlError::unsupported(format!(
                "the character set {name} for a connection (utf8mb4, utf8mb3, latin1, binary, ascii and MariaDB's single-byte sets cp1250, cp1251, cp1256, cp1257, latin2, latin7, greek, hebrew, koi8r, koi8u, macroman and cp866 are served)"
            )))
        }
        _ => Err(SqlError::new(
            1115,
            "42000",
            format!("Unknown character set: '{name}'"),
        )),
    }
}

/// A collation named for a connection (SET NAMES ... COLLATE, collation_connection): its
/// character set and name as MariaDB spells it.
pub fn named_collation(name: &str) -> Result<(Wire, &'static str)> {
    let name = name.trim_matches(['\'', '"', '`']);
    if let Some(found) = collation_by_name(name) {
        return Ok(found);
    }
    let c = base::types::Collation::from_name(name)
        .map(base::types::Collation::text_form)
        .ok_or_else(|| SqlError::new(1273, "HY000", format!("Unknown collation: '{name}'")))?;
    Ok((Wire::Stored(c.charset()), c.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_clients_are_decoded_and_answered_in_latin1() {
        let c = Charsets::all(Wire::Stored(Charset::Latin1), None);
        assert_eq!(c.decode(b"SELECT '\xe9\x80'"), "SELECT 'é€'");
        assert_eq!(c.decode_bytes(vec![0xf1]), "ñ".as_bytes());
        assert_eq!(&*c.encode("é€ż".as_bytes()), b"\xe9\x80?");
        assert_eq!(c.result_collation(45), 8);
        assert_eq!(c.result_collation(63), 63);
        let u = Charsets::default();
        assert_eq!(u.decode("é".as_bytes()), "é");
        assert_eq!(&*u.encode("😀".as_bytes()), "😀".as_bytes());
        let m3 = Charsets::all(Wire::Stored(Charset::Utf8mb3), None);
        assert_eq!(&*m3.encode("a😀é".as_bytes()), "a?é".as_bytes());
        assert_eq!(
            Charsets::for_collation_id(8).client,
            Wire::Stored(Charset::Latin1)
        );
        assert_eq!(
            Charsets::for_collation_id(33).collation,
            "utf8mb3_general_ci"
        );
        assert_eq!(
            Charsets::for_collation_id(255).client,
            Wire::Stored(Charset::Utf8mb4)
        );
        assert!(named("foo").is_err_and(|e| e.code == 1115));
        assert!(named("ucs2").is_err_and(|e| e.code == 1235));
        assert_eq!(named("'utf8'").unwrap(), Wire::Stored(Charset::Utf8mb3));
    }

    #[test]
    fn single_byte_sets_are_read_and_answered_in_their_own_bytes() {
        let cp1257 = Charsets::for_collation_id(58);
        assert_eq!(
            (cp1257.client.name(), cp1257.collation),
            ("cp1257", "cp1257_bin")
        );
        // 0xE0 is 'ą' in Windows-1257, 0xC0 'Ą'.
        assert_eq!(cp1257.decode(b"SELECT '\xe0'"), "SELECT 'ą'");
        assert_eq!(&*cp1257.encode("ąĄé€ż".as_bytes()), b"\xe0\xc0\xe9\x80\xfd");
        assert_eq!(cp1257.result_collation(45), 59);
        let ascii = Charsets::all(named("ascii").unwrap(), None);
        assert_eq!(ascii.collation, "ascii_general_ci");
        assert_eq!(ascii.decode(b"a\xe9"), "a?");
        assert_eq!(&*ascii.encode("aé".as_bytes()), b"a?");
        let general = Charsets::for_collation_id(48);
        assert_eq!(
            (general.client, general.collation),
            (Wire::Stored(Charset::Latin1), "latin1_general_ci")
        );
        assert_eq!(named_collation("KOI8R_BIN").unwrap().1, "koi8r_bin");
        // As MariaDB 10.11's CONVERT(... USING cs) gives them.
        for (set, text, bytes) in [
            ("cp1251", "Ωж", &b"\x3f\xe6"[..]),
            ("koi8r", "жЖ", b"\xd6\xf6"),
            ("latin2", "ő", b"\xf5"),
        ] {
            let c = Charsets::all(named(set).unwrap(), None);
            assert_eq!(&*c.encode(text.as_bytes()), bytes, "{set}");
        }
        assert!(named("sjis").is_err_and(|e| e.code == 1235));
    }
}
