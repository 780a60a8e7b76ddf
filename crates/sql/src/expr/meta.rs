//! Result-set metadata: the column definitions MySQL sends for table columns and for computed
//! values (type code, display length, decimals, flags, collation).

use base::types::{Collation, ColumnType};
use base::TableDef;
use base::Value;
use myproto::response::{flags, types, Column, BINARY_COLLATION_ID, UTF8MB4_GENERAL_CI_ID};

use crate::expr::aggregate::Aggregate;
use crate::expr::typing::{column_type_code, static_type};
use crate::expr::Expr;

/// The definition of table column `p` shown as `name` (`table` is how the query named it).
pub fn table_column(
    db: &str,
    table: &str,
    org_table: &str,
    def: &TableDef,
    p: usize,
    name: &str,
) -> Column {
    let c = &def.columns[p];
    let (column_type, length, decimals) = match c.geometry {
        Some(_) => (types::GEOMETRY, u32::MAX, 0),
        None => column_type_code(c.ty),
    };
    // An integer shows its declared display width, as MariaDB's metadata does; an unsigned
    // one without a sign's place.
    let unsigned = matches!(
        c.ty,
        ColumnType::TinyInt { unsigned: true }
            | ColumnType::SmallInt { unsigned: true }
            | ColumnType::MediumInt { unsigned: true }
            | ColumnType::Int { unsigned: true }
    );
    let length = match c.display_width {
        0 if unsigned => length - 1,
        0 => length,
        width => u32::from(width),
    };
    let mut f = 0;
    if c.zerofill {
        f |= flags::ZEROFILL;
    }
    // A YEAR is an unsigned, zero-filled number to MariaDB's clients.
    if c.ty == ColumnType::Year {
        f |= flags::UNSIGNED | flags::ZEROFILL;
    }
    // An ENUM or SET travels as a string of its names, its longest member's length.
    let members = matches!(c.ty, ColumnType::Enum | ColumnType::Set);
    let (length, decimals) = match c.scale {
        Some(d) if matches!(c.ty, ColumnType::Float | ColumnType::Double) => {
            (u32::from(c.display_width), d)
        }
        _ => (length, decimals),
    };
    let length = if members {
        f |= if c.ty == ColumnType::Enum {
            flags::ENUM
        } else {
            flags::SET
        };
        let longest = match c.ty {
            ColumnType::Set => c
                .members
                .iter()
                .map(|m| m.chars().count() + 1)
                .sum::<usize>()
                .saturating_sub(1),
            _ => c
                .members
                .iter()
                .map(|m| m.chars().count())
                .max()
                .unwrap_or(0),
        };
        (longest * c.collation.charset().max_len()) as u32
    } else {
        length
    };
    if !c.nullable {
        f |= flags::NOT_NULL;
    }
    if def.primary_key.contains(&(p as u16)) {
        f |= flags::PRI_KEY;
    } else if def
        .indexes
        .iter()
        .any(|i| i.columns.first() == Some(&(p as u16)))
    {
        f |= flags::MULTIPLE_KEY;
    }
    if c.auto_increment {
        f |= flags::AUTO_INCREMENT;
    }
    if matches!(
        c.ty,
        ColumnType::TinyInt { unsigned: true }
            | ColumnType::SmallInt { unsigned: true }
            | ColumnType::MediumInt { unsigned: true }
            | ColumnType::Int { unsigned: true }
            | ColumnType::BigInt { unsigned: true }
            | ColumnType::Bit { .. }
    ) {
        f |= flags::UNSIGNED;
    }
    let binary = c.collation == Collation::Binary;
    if c.ty.is_integer()
        || matches!(
            c.ty,
            ColumnType::Float | ColumnType::Double | ColumnType::Decimal { .. }
        )
    {
        f |= flags::NUM;
    }
    if binary {
        f |= flags::BINARY;
    }
    if c.ty.is_lob() {
        f |= flags::BLOB;
    }
    Column {
        schema: db.to_string(),
        table: table.to_string(),
        org_table: org_table.to_string(),
        name: name.to_string(),
        org_name: c.name.clone(),
        collation: if c.ty.is_string() || members {
            collation_id(c.collation)
        } else {
            BINARY_COLLATION_ID
        },
        length,
        column_type,
        flags: f,
        decimals,
    }
}

/// The definition of a computed value named `name`.
pub fn computed(name: &str, e: &Expr, def: Option<&TableDef>, aggregates: &[Aggregate]) -> Column {
    let (column_type, length, decimals) = static_type(e, def, aggregates);
    let mut column = Column::computed(name, column_type, length, decimals);
    if let Expr::Call(f, _) = e {
        if f.binary_result() {
            column.collation = BINARY_COLLATION_ID;
            column.flags |= flags::BINARY;
        }
        // A 4-byte result above i32's range (CRC32) reads right in the binary protocol only
        // when flagged unsigned.
        if f.unsigned_result() {
            column.flags |= flags::UNSIGNED;
        }
    }
    let integer = matches!(
        column_type,
        types::TINY | types::SHORT | types::INT24 | types::LONG | types::LONGLONG
    );
    if integer && unsigned_value(e, def) {
        column.flags |= flags::UNSIGNED;
    }
    column
}

/// Whether an integer expression's values are unsigned as MySQL types them, so the column is
/// flagged so: an integer literal past BIGINT's range, CAST(... AS UNSIGNED), an unsigned
/// column, and +, - and * with such an operand (their results stay unsigned or fail with 1690,
/// never negative: under the flag a negative value would read as a huge one in the binary
/// protocol). DIV and MOD are not flagged (their results can be negative).
fn unsigned_value(e: &Expr, def: Option<&TableDef>) -> bool {
    use crate::expr::{BinOp, CastTo};
    match e {
        Expr::Const(Value::UInt(_)) => true,
        Expr::Cast(_, CastTo::Unsigned) => true,
        Expr::Column(p) => def
            .and_then(|d| d.columns.get(*p))
            .is_some_and(|c| c.ty.integer_range().is_some_and(|r| r.0 >= 0)),
        Expr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => {
            unsigned_value(a, def) || unsigned_value(b, def)
        }
        _ => false,
    }
}

/// MySQL's number for a collation, as result-set metadata carries it.
pub fn collation_id(c: Collation) -> u16 {
    match c {
        Collation::Utf8mb4GeneralCi => UTF8MB4_GENERAL_CI_ID,
        Collation::Utf8mb4Bin => 46,
        Collation::Latin1SwedishCi | Collation::Latin1TextSwedishCi => 8,
        Collation::Latin1Bin | Collation::Latin1TextBin => 47,
        Collation::Utf8mb3GeneralCi => 33,
        Collation::Utf8mb3Bin => 83,
        Collation::Utf8mb4UnicodeCi => 224,
        Collation::Utf8mb3UnicodeCi => 192,
        Collation::Utf8mb4Unicode520Ci => 246,
        Collation::Utf8mb3Unicode520Ci => 214,
        Collation::Binary => BINARY_COLLATION_ID,
    }
}

/// Whether result columns of type code `t` hold strings (text or bytes).
pub(crate) fn holds_strings(t: u8) -> bool {
    matches!(
        t,
        types::VARCHAR | types::VAR_STRING | types::STRING | types::BLOB | types::LONG_BLOB
    )
}

/// The collation a result column's strings compare under; None when it does not hold strings.
pub fn collation_of(column: &Column) -> Option<Collation> {
    let string = holds_strings(column.column_type);
    let collation = (1..=u8::MAX)
        .map_while(Collation::from_u8)
        .find(|c| collation_id(*c) == column.collation)
        .map_or(Collation::Utf8mb4GeneralCi, Collation::text_form);
    string.then_some(collation)
}

/// [`collation_of`] for every column, utf8mb4_general_ci standing for the ones without strings.
pub fn collations(columns: &[Column]) -> Vec<Collation> {
    columns
        .iter()
        .map(|c| collation_of(c).unwrap_or(Collation::Utf8mb4GeneralCi))
        .collect()
}

/// The kind of values a result column holds, for [`union_columns`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    /// An integer type, by width (TINY 1 ... LONGLONG 5).
    Int(u8),
    Decimal,
    Double,
    Temporal,
    String,
    Geometry,
    Other,
}

fn kind(c: &Column) -> Kind {
    match c.column_type {
        types::NULL => Kind::Null,
        types::TINY => Kind::Int(1),
        types::SHORT | types::YEAR => Kind::Int(2),
        types::INT24 => Kind::Int(3),
        types::LONG => Kind::Int(4),
        types::LONGLONG => Kind::Int(5),
        types::DECIMAL | types::NEWDECIMAL => Kind::Decimal,
        types::FLOAT | types::DOUBLE => Kind::Double,
        types::DATE | types::DATETIME | types::TIMESTAMP | types::TIME => Kind::Temporal,
        t if holds_strings(t) => Kind::String,
        types::GEOMETRY => Kind::Geometry,
        _ => Kind::Other,
    }
}

fn unsigned(c: &Column) -> bool {
    c.flags & flags::UNSIGNED != 0
}

/// Flags that describe a table column's own type or keys, which an aggregated column of another
/// type does not keep.
const OWN_FLAGS: u16 = flags::ZEROFILL
    | flags::ENUM
    | flags::SET
    | flags::PRI_KEY
    | flags::UNIQUE_KEY
    | flags::MULTIPLE_KEY
    | flags::AUTO_INCREMENT
    | flags::NO_DEFAULT_VALUE;

/// A set operation's column over the columns its SELECTs give (`selects`, first to last, at
/// least one), typed as MariaDB aggregates a UNION's: NULL gives way to any type; integers
/// of one signedness widen, a signed one with an unsigned one makes a DECIMAL; integers with
/// decimals are a DECIMAL with the most integer digits and the largest scale; any number with
/// a float or double, a DOUBLE; two temporal types (DATE with DATETIME or TIME), a DATETIME;
/// strings, or values of kinds that do not mix, a string as long as the longest (a BLOB's type
/// when one is long, LONGBLOB with a spatial value). The name and table stay the first's.
pub fn union_columns(selects: &[&Column]) -> Column {
    let Some((first, rest)) = selects.split_first() else {
        return Column::computed("", types::NULL, 0, 0);
    };
    let mut out = (*first).clone();
    for b in rest {
        out = union_column(&out, b);
    }
    let typed: Vec<&Column> = selects
        .iter()
        .copied()
        .filter(|c| kind(c) != Kind::Null)
        .collect();
    if typed.len() < 2 {
        return out;
    }
    match kind(&out) {
        Kind::Decimal => {
            let max = u32::from(base::limits::DECIMAL_PRECISION_MAX);
            let digits = typed.iter().map(|c| integer_digits(c)).max().unwrap_or(1);
            let scale = typed
                .iter()
                .map(|c| u32::from(c.decimals))
                .max()
                .unwrap_or(0);
            // Past the most digits a DECIMAL holds, the fraction stays and the value is
            // clamped to the type's largest when cast (MariaDB's DECIMAL(65,1) of 65 nines
            // UNION 1.5).
            out.decimals = scale as u8;
            out.length = (digits + scale).clamp(1, max) + 2;
        }
        Kind::Temporal if typed.iter().any(|c| c.column_type != out.column_type) => {
            let fsp = typed.iter().map(|c| c.decimals.min(6)).max().unwrap_or(0);
            out.column_type = types::DATETIME;
            out.decimals = fsp;
            out.length = 19 + u32::from(fsp) + u32::from(fsp > 0);
        }
        Kind::String if out.column_type == types::VAR_STRING => {
            // As many characters as the longest shows (a number's or date's length is in
            // characters, a text column's in bytes, four to a character).
            let text = |c: &Column| c.collation != BINARY_COLLATION_ID;
            let chars = |c: &Column| match kind(c) {
                Kind::String if text(c) => c.length / 4,
                _ => c.length,
            };
            let per = if text(&out) { 4 } else { 1 };
            let longest = typed.iter().map(|c| chars(c)).max().unwrap_or(0);
            out.length = longest.saturating_mul(per);
        }
        _ => {}
    }
    out
}

/// The digits left of the point a number column's values can have: a table column's by its
/// type (a sign's place not counted), a computed one's by its length (a literal's digits).
fn integer_digits(c: &Column) -> u32 {
    let table = !c.org_table.is_empty();
    let sign = u32::from(!unsigned(c));
    let fraction = u32::from(c.decimals) + u32::from(c.decimals > 0);
    match kind(c) {
        Kind::Int(width) if table => {
            let widest = [3, 5, 8, 10, 19][usize::from(width - 1)];
            match c.column_type {
                types::YEAR => 4,
                types::LONGLONG if unsigned(c) => 20,
                _ => widest,
            }
        }
        Kind::Int(_) => c.length.max(1),
        Kind::Decimal if table => c.length.saturating_sub(sign + fraction).max(1),
        Kind::Decimal => c.length.saturating_sub(fraction).max(1),
        _ => 1,
    }
}

/// Two columns' aggregated type, flags and collation (lengths are [`union_columns`]'s).
fn union_column(a: &Column, b: &Column) -> Column {
    let mut out = a.clone();
    let (ka, kb) = (kind(a), kind(b));
    out.length = a.length.max(b.length);
    out.decimals = a.decimals.max(b.decimals);
    match (ka, kb) {
        (_, Kind::Null) => {
            out.length = a.length;
            out.decimals = a.decimals;
        }
        (Kind::Null, _) => {
            out.column_type = b.column_type;
            out.flags = b.flags;
            out.collation = b.collation;
            out.length = b.length;
            out.decimals = b.decimals;
        }
        _ if a.column_type == b.column_type && unsigned(a) == unsigned(b) => {
            if a.flags & OWN_FLAGS != b.flags & OWN_FLAGS {
                out.flags &= !OWN_FLAGS;
            }
        }
        (Kind::Int(x), Kind::Int(y)) if unsigned(a) == unsigned(b) => {
            out.column_type = [
                types::TINY,
                types::SHORT,
                types::INT24,
                types::LONG,
                types::LONGLONG,
            ][usize::from(x.max(y) - 1)];
            out.flags &= !OWN_FLAGS;
        }
        (Kind::Int(_) | Kind::Decimal, Kind::Int(_) | Kind::Decimal) => {
            out.column_type = types::NEWDECIMAL;
            out.flags &= !(OWN_FLAGS | flags::UNSIGNED);
        }
        (
            Kind::Int(_) | Kind::Decimal | Kind::Double,
            Kind::Int(_) | Kind::Decimal | Kind::Double,
        ) => {
            out.column_type = types::DOUBLE;
            out.flags &= !(OWN_FLAGS | flags::UNSIGNED);
        }
        (Kind::Temporal, Kind::Temporal) => {
            out.column_type = types::DATETIME;
            out.flags &= !OWN_FLAGS;
        }
        (Kind::Geometry, _) | (_, Kind::Geometry) => {
            out.column_type = types::BLOB;
            out.length = u32::MAX;
            out.collation = BINARY_COLLATION_ID;
            out.flags = (out.flags & flags::NOT_NULL) | flags::BLOB | flags::BINARY;
        }
        _ => string_column(&mut out, a, b),
    }
    if a.flags & b.flags & flags::NOT_NULL == 0 {
        out.flags &= !flags::NOT_NULL;
    }
    out
}

/// `out` (a copy of `a`) made the string column `a` and `b` aggregate to.
fn string_column(out: &mut Column, a: &Column, b: &Column) {
    let (ka, kb) = (kind(a), kind(b));
    let long = |c: &Column| matches!(c.column_type, types::BLOB | types::LONG_BLOB);
    if long(b) && !long(a) {
        out.column_type = b.column_type;
        out.collation = b.collation;
        out.flags = b.flags;
    } else if !long(a) {
        out.column_type = types::VAR_STRING;
        if ka != Kind::String {
            out.collation = b.collation;
        }
    }
    if ka != Kind::String && kb != Kind::String {
        out.collation = UTF8MB4_GENERAL_CI_ID;
    }
    out.flags &= !(OWN_FLAGS | flags::UNSIGNED | flags::NUM | flags::BINARY);
    if out.collation == BINARY_COLLATION_ID {
        out.flags |= flags::BINARY;
    }
}
