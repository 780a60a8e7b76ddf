//! Column types, character sets and collations, with MySQL's names, ranges and storage widths.

use crate::error::{Error, ErrorCode, Result};
use crate::limits;

/// A character set for string columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Charset {
    Utf8mb4 = 1,
    Latin1 = 2,
    Binary = 3,
    /// UTF-8 limited to the Basic Multilingual Plane: at most 3 bytes a character (MySQL's utf8).
    Utf8mb3 = 4,
}

impl Charset {
    pub fn name(self) -> &'static str {
        match self {
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Latin1 => "latin1",
            Charset::Binary => "binary",
            Charset::Utf8mb3 => "utf8mb3",
        }
    }

    /// The most bytes one character takes.
    pub fn max_len(self) -> usize {
        match self {
            Charset::Utf8mb4 => 4,
            Charset::Utf8mb3 => 3,
            Charset::Latin1 | Charset::Binary => 1,
        }
    }
}

/// A collation: how strings compare, sort, match as keys and hash to partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Collation {
    /// Case- and accent-insensitive, trailing spaces ignored (MariaDB's default).
    Utf8mb4GeneralCi = 1,
    /// Code point order, trailing spaces ignored.
    Utf8mb4Bin = 2,
    /// latin1's default: case-insensitive, Swedish letter order, trailing spaces ignored.
    Latin1SwedishCi = 3,
    /// Byte order, trailing spaces ignored.
    Latin1Bin = 4,
    /// Byte order, every byte significant.
    Binary = 5,
    /// utf8mb4_general_ci's weights over utf8mb3's repertoire.
    Utf8mb3GeneralCi = 6,
    /// Code point order over utf8mb3's repertoire, trailing spaces ignored.
    Utf8mb3Bin = 7,
    /// latin1_swedish_ci over latin1's characters kept as UTF-8 text (the SQL front end's latin1
    /// columns: values travel as utf8mb4 and compare by their latin1 bytes' weights).
    Latin1TextSwedishCi = 8,
    /// latin1_bin over latin1's characters kept as UTF-8 text: latin1 byte order.
    Latin1TextBin = 9,
    /// The Unicode Collation Algorithm (4.0.0) at the primary level: case- and
    /// accent-insensitive, expansions (ß = ss), ignorable characters, trailing spaces ignored.
    Utf8mb4UnicodeCi = 10,
    /// utf8mb4_unicode_ci's weights over utf8mb3's repertoire.
    Utf8mb3UnicodeCi = 11,
    /// As utf8mb4_unicode_ci with UCA 5.2.0's weights (characters above U+FFFF weigh apart).
    Utf8mb4Unicode520Ci = 12,
    /// utf8mb4_unicode_520_ci's weights over utf8mb3's repertoire.
    Utf8mb3Unicode520Ci = 13,
}

/// Every collation, in tag order.
const ALL: [Collation; 13] = [
    Collation::Utf8mb4GeneralCi,
    Collation::Utf8mb4Bin,
    Collation::Latin1SwedishCi,
    Collation::Latin1Bin,
    Collation::Binary,
    Collation::Utf8mb3GeneralCi,
    Collation::Utf8mb3Bin,
    Collation::Latin1TextSwedishCi,
    Collation::Latin1TextBin,
    Collation::Utf8mb4UnicodeCi,
    Collation::Utf8mb3UnicodeCi,
    Collation::Utf8mb4Unicode520Ci,
    Collation::Utf8mb3Unicode520Ci,
];

impl Collation {
    pub fn charset(self) -> Charset {
        match self {
            Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb4Bin
            | Collation::Utf8mb4UnicodeCi
            | Collation::Utf8mb4Unicode520Ci => Charset::Utf8mb4,
            Collation::Utf8mb3GeneralCi
            | Collation::Utf8mb3Bin
            | Collation::Utf8mb3UnicodeCi
            | Collation::Utf8mb3Unicode520Ci => Charset::Utf8mb3,
            Collation::Latin1SwedishCi
            | Collation::Latin1Bin
            | Collation::Latin1TextSwedishCi
            | Collation::Latin1TextBin => Charset::Latin1,
            Collation::Binary => Charset::Binary,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Collation::Utf8mb4GeneralCi => "utf8mb4_general_ci",
            Collation::Utf8mb4Bin => "utf8mb4_bin",
            Collation::Latin1SwedishCi | Collation::Latin1TextSwedishCi => "latin1_swedish_ci",
            Collation::Latin1Bin | Collation::Latin1TextBin => "latin1_bin",
            Collation::Binary => "binary",
            Collation::Utf8mb3GeneralCi => "utf8mb3_general_ci",
            Collation::Utf8mb3Bin => "utf8mb3_bin",
            Collation::Utf8mb4UnicodeCi => "utf8mb4_unicode_ci",
            Collation::Utf8mb3UnicodeCi => "utf8mb3_unicode_ci",
            Collation::Utf8mb4Unicode520Ci => "utf8mb4_unicode_520_ci",
            Collation::Utf8mb3Unicode520Ci => "utf8mb3_unicode_520_ci",
        }
    }

    /// The collation of that name; `utf8_` is MariaDB's other spelling of `utf8mb3_`.
    pub fn from_name(name: &str) -> Option<Collation> {
        let lower = name.to_ascii_lowercase();
        let name = match lower.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => lower,
        };
        ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn from_u8(tag: u8) -> Option<Collation> {
        ALL.into_iter().find(|c| *c as u8 == tag)
    }

    /// The collation whose weights this one compares by: utf8mb3's are utf8mb4's.
    pub fn weighs_as(self) -> Collation {
        match self {
            Collation::Utf8mb3GeneralCi => Collation::Utf8mb4GeneralCi,
            Collation::Utf8mb3Bin => Collation::Utf8mb4Bin,
            Collation::Utf8mb3UnicodeCi => Collation::Utf8mb4UnicodeCi,
            Collation::Utf8mb3Unicode520Ci => Collation::Utf8mb4Unicode520Ci,
            c => c,
        }
    }

    /// Whether it is a `_bin` collation of a character set (not `binary` itself).
    pub fn is_bin(self) -> bool {
        matches!(
            self,
            Collation::Utf8mb4Bin
                | Collation::Utf8mb3Bin
                | Collation::Latin1Bin
                | Collation::Latin1TextBin
        )
    }

    /// The form the SQL front end stores: latin1 as UTF-8 text ([`Collation::Latin1TextSwedishCi`]
    /// for latin1_swedish_ci), every other collation as itself.
    pub fn text_form(self) -> Collation {
        match self {
            Collation::Latin1SwedishCi => Collation::Latin1TextSwedishCi,
            Collation::Latin1Bin => Collation::Latin1TextBin,
            c => c,
        }
    }

    /// The bytes of sort key an index keeps for a string cut to `chars` characters: the most
    /// one character's weights take in the common case (a UCA expansion or a space run may
    /// take more; the cut then holds fewer characters, which only makes a range wider).
    pub fn prefix_key_bytes(self, chars: u32) -> usize {
        let per_char = match self.weighs_as() {
            Collation::Utf8mb4Bin => 4,
            Collation::Utf8mb4GeneralCi
            | Collation::Utf8mb4UnicodeCi
            | Collation::Utf8mb4Unicode520Ci => 2,
            _ => 1,
        };
        chars as usize * per_char
    }

    /// Whether its values are counted in bytes, one per character: `binary`, and latin1 kept
    /// as latin1 bytes (every other collation's strings are UTF-8).
    pub fn counts_bytes(self) -> bool {
        matches!(
            self,
            Collation::Binary | Collation::Latin1SwedishCi | Collation::Latin1Bin
        )
    }

    /// Whether its strings are UTF-8 text holding only latin1's characters.
    pub fn is_latin1_text(self) -> bool {
        matches!(
            self,
            Collation::Latin1TextSwedishCi | Collation::Latin1TextBin
        )
    }
}

/// A column's type. String lengths are in characters (CHAR, VARCHAR) or bytes (BINARY, VARBINARY).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    TinyInt {
        unsigned: bool,
    },
    SmallInt {
        unsigned: bool,
    },
    MediumInt {
        unsigned: bool,
    },
    Int {
        unsigned: bool,
    },
    BigInt {
        unsigned: bool,
    },
    Float,
    Double,
    Decimal {
        precision: u8,
        scale: u8,
    },
    Char {
        length: u32,
    },
    VarChar {
        length: u32,
    },
    Binary {
        length: u32,
    },
    VarBinary {
        length: u32,
    },
    Text {
        size: LobSize,
    },
    Blob {
        size: LobSize,
    },
    Date,
    DateTime {
        fsp: u8,
    },
    Timestamp {
        fsp: u8,
    },
    Time {
        fsp: u8,
    },
    Year,
    /// BIT(width), 1 to 64 bits: an unsigned number ([`Value::UInt`]), shown as its
    /// big-endian bytes.
    Bit {
        width: u8,
    },
    /// ENUM('a', 'b', ...): the member's number from 1 ([`Value::UInt`]; 0 is no member),
    /// the members in the column's `members`.
    Enum,
    /// SET('a', 'b', ...): a bit per member of the column's `members`, the first lowest.
    Set,
}

/// The four sizes of MySQL's TEXT and BLOB types (TINY-, plain, MEDIUM-, LONG-), named by the
/// largest value each may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LobSize {
    Tiny,
    Regular,
    Medium,
    Long,
}

impl LobSize {
    pub const ALL: [LobSize; 4] = [
        LobSize::Tiny,
        LobSize::Regular,
        LobSize::Medium,
        LobSize::Long,
    ];

    /// MySQL's largest value of this size in bytes (the range of its length prefix), as
    /// metadata and information_schema report it.
    pub fn declared_bytes(self) -> u64 {
        match self {
            LobSize::Tiny => 255,
            LobSize::Regular => 65_535,
            LobSize::Medium => 16_777_215,
            LobSize::Long => 4_294_967_295,
        }
    }

    /// The most bytes Cairn stores in one value of this size: MySQL's, held to
    /// [`limits::LOB_BYTES_MAX`] (a longer value than `LOB_INLINE_BYTES_MAX` lives in parts,
    /// `crate::lob`, and is joined whole in the API node's memory).
    pub fn stored_bytes(self) -> usize {
        self.declared_bytes().min(limits::LOB_BYTES_MAX as u64) as usize
    }

    /// The smallest size that holds `bytes` (MySQL's TEXT(n) and BLOB(n)), None above LONG's.
    pub fn holding(bytes: u64) -> Option<LobSize> {
        LobSize::ALL
            .into_iter()
            .find(|s| bytes <= s.declared_bytes())
    }

    /// The size's prefix in the type's name: "tiny", "", "medium", "long".
    pub fn prefix(self) -> &'static str {
        match self {
            LobSize::Tiny => "tiny",
            LobSize::Regular => "",
            LobSize::Medium => "medium",
            LobSize::Long => "long",
        }
    }
}

impl ColumnType {
    /// TEXT: 65,535 bytes.
    pub const TEXT: ColumnType = ColumnType::Text {
        size: LobSize::Regular,
    };
    /// BLOB: 65,535 bytes.
    pub const BLOB: ColumnType = ColumnType::Blob {
        size: LobSize::Regular,
    };

    /// True for the TEXT and BLOB types of every size.
    pub fn is_lob(self) -> bool {
        matches!(self, ColumnType::Text { .. } | ColumnType::Blob { .. })
    }

    /// Checks the type's own parameters against MySQL's and Cairn's limits.
    pub fn validate(self) -> Result<()> {
        let bad = |m: String| Err(Error::new(ErrorCode::BadSchema, m));
        match self {
            ColumnType::Decimal { precision, scale } => {
                if precision == 0 || precision > limits::DECIMAL_PRECISION_MAX {
                    return bad(format!(
                        "DECIMAL precision {precision} outside 1..={}",
                        limits::DECIMAL_PRECISION_MAX
                    ));
                }
                if scale > precision || scale > limits::DECIMAL_SCALE_MAX {
                    return bad(format!("DECIMAL({precision},{scale}): scale too large"));
                }
            }
            ColumnType::Char { length } | ColumnType::Binary { length }
                if length > limits::CHAR_LENGTH_MAX =>
            {
                return bad(format!("length {length} above {}", limits::CHAR_LENGTH_MAX));
            }
            ColumnType::VarChar { length } | ColumnType::VarBinary { length }
                if length as usize > limits::VARCHAR_BYTES_MAX =>
            {
                return bad(format!(
                    "length {length} above {}",
                    limits::VARCHAR_BYTES_MAX
                ));
            }
            ColumnType::DateTime { fsp }
            | ColumnType::Timestamp { fsp }
            | ColumnType::Time { fsp }
                if fsp > 6 =>
            {
                return bad(format!("fractional seconds precision {fsp} above 6"));
            }
            _ => {}
        }
        Ok(())
    }

    /// True for types that carry a character set and collation.
    pub fn is_string(self) -> bool {
        matches!(
            self,
            ColumnType::Char { .. }
                | ColumnType::VarChar { .. }
                | ColumnType::Binary { .. }
                | ColumnType::VarBinary { .. }
                | ColumnType::Text { .. }
                | ColumnType::Blob { .. }
        )
    }

    /// True for the integer types.
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            ColumnType::TinyInt { .. }
                | ColumnType::SmallInt { .. }
                | ColumnType::MediumInt { .. }
                | ColumnType::Int { .. }
                | ColumnType::BigInt { .. }
        )
    }

    /// The fraction digits of a DATETIME or TIMESTAMP (the types that take the current time);
    /// None for other types.
    pub fn datetime_digits(self) -> Option<u8> {
        match self {
            ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => Some(fsp),
            _ => None,
        }
    }

    /// Bytes a value of this type takes in the fixed part of a row, or None for variable-size types.
    pub fn fixed_width(self) -> Option<usize> {
        Some(match self {
            ColumnType::TinyInt { .. } | ColumnType::Year => 1,
            ColumnType::SmallInt { .. } | ColumnType::Enum => 2,
            ColumnType::MediumInt { .. } => 3,
            ColumnType::Int { .. } | ColumnType::Float | ColumnType::Date => 4,
            ColumnType::BigInt { .. }
            | ColumnType::Bit { .. }
            | ColumnType::Set
            | ColumnType::Double
            | ColumnType::DateTime { .. }
            | ColumnType::Timestamp { .. }
            | ColumnType::Time { .. } => 8,
            ColumnType::Decimal { precision, .. } => {
                if precision > limits::DECIMAL_NARROW_PRECISION_MAX {
                    32
                } else {
                    16
                }
            }
            _ => return None,
        })
    }

    /// The inclusive integer range of an integer type, as i128 so unsigned BIGINT fits.
    pub fn integer_range(self) -> Option<(i128, i128)> {
        let (bits, unsigned) = match self {
            ColumnType::TinyInt { unsigned } => (8, unsigned),
            ColumnType::SmallInt { unsigned } => (16, unsigned),
            ColumnType::MediumInt { unsigned } => (24, unsigned),
            ColumnType::Int { unsigned } => (32, unsigned),
            ColumnType::BigInt { unsigned } => (64, unsigned),
            _ => return None,
        };
        Some(if unsigned {
            (0, (1i128 << bits) - 1)
        } else {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        })
    }

    /// The type's name alone, without lengths or attributes (`int`, `varchar`): what
    /// information_schema's DATA_TYPE and MariaDB's error 4079 call it.
    pub fn data_type(self) -> String {
        let full = self.sql_name();
        full.split(['(', ' '])
            .next()
            .unwrap_or_default()
            .to_string()
    }

    /// MySQL's spelling of the type, as SHOW CREATE TABLE prints it.
    pub fn sql_name(self) -> String {
        let int = |name: &str, unsigned: bool| {
            if unsigned {
                format!("{name} unsigned")
            } else {
                name.to_string()
            }
        };
        let fsp = |name: &str, fsp: u8| {
            if fsp == 0 {
                name.to_string()
            } else {
                format!("{name}({fsp})")
            }
        };
        match self {
            ColumnType::TinyInt { unsigned } => int("tinyint", unsigned),
            ColumnType::SmallInt { unsigned } => int("smallint", unsigned),
            ColumnType::MediumInt { unsigned } => int("mediumint", unsigned),
            ColumnType::Int { unsigned } => int("int", unsigned),
            ColumnType::BigInt { unsigned } => int("bigint", unsigned),
            ColumnType::Float => "float".into(),
            ColumnType::Double => "double".into(),
            ColumnType::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
            ColumnType::Char { length } => format!("char({length})"),
            ColumnType::VarChar { length } => format!("varchar({length})"),
            ColumnType::Binary { length } => format!("binary({length})"),
            ColumnType::VarBinary { length } => format!("varbinary({length})"),
            ColumnType::Text { size } => format!("{}text", size.prefix()),
            ColumnType::Blob { size } => format!("{}blob", size.prefix()),
            ColumnType::Date => "date".into(),
            ColumnType::DateTime { fsp: f } => fsp("datetime", f),
            ColumnType::Timestamp { fsp: f } => fsp("timestamp", f),
            ColumnType::Time { fsp: f } => fsp("time", f),
            ColumnType::Year => "year".into(),
            ColumnType::Bit { width } => format!("bit({width})"),
            ColumnType::Enum => "enum".into(),
            ColumnType::Set => "set".into(),
        }
    }
}
