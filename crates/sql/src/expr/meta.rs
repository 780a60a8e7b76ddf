//! Result-set metadata: the column definitions MySQL sends for table columns and for computed
//! values (type code, display length, decimals, flags, collation).

use base::types::{Collation, ColumnType};
use base::TableDef;
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
    column
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

/// The collation a result column's strings compare under; None when it does not hold strings.
pub fn collation_of(column: &Column) -> Option<Collation> {
    let string = matches!(
        column.column_type,
        types::VARCHAR | types::VAR_STRING | types::STRING | types::BLOB | types::LONG_BLOB
    );
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
