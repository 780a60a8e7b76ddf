//! A column of CREATE or ALTER TABLE: its type from sqlparser's (lengths, ENUM and SET members,
//! display widths), its DEFAULT and ON UPDATE, LOB sizes, and the type a CREATE TABLE ... SELECT
//! column takes to hold its values (`holding`).

use crate::expr::collate::CollationSpec;
use crate::expr::row_free_value;
use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use base::geometry::{GeometryColumn, GeometryKind};
use base::limits;
use base::schema::{ColumnDef, IndexKind};
use base::types::{Collation, ColumnType, LobSize};
use sqlparser::ast;

/// MariaDB's 1170 for a TEXT or BLOB column without a prefix length in a unique key: MariaDB
/// indexes a hash of it; Cairn refuses the key. (An ordinary key takes a prefix.)
pub(crate) fn lob_in_key(name: &str) -> SqlError {
    SqlError::new(
        1170,
        "42000",
        format!("BLOB/TEXT column '{name}' used in key specification without a key length"),
    )
}

/// The TEXT or BLOB size MariaDB makes of TEXT(n) or BLOB(n): the smallest that holds n
/// characters of `bytes_per_char` bytes; the plain size for 0.
pub(crate) fn lob_of_length(n: u64, bytes_per_char: u64) -> LobSize {
    if n == 0 {
        LobSize::Regular
    } else {
        lob_holding(n.saturating_mul(bytes_per_char))
    }
}

/// The smallest TEXT or BLOB size that holds `bytes`, LONG past them all.
pub(crate) fn lob_holding(bytes: u64) -> LobSize {
    LobSize::holding(bytes).unwrap_or(LobSize::Long)
}

/// The length of a `TEXT(n)` type (which sqlparser reads as a custom type): None when the type
/// is not one, Some(None) when its length is not a number.
pub(crate) fn text_length(name: &ast::ObjectName, modifiers: &[String]) -> Option<Option<u64>> {
    let text = name.0.len() == 1 && name.to_string().eq_ignore_ascii_case("TEXT");
    (text && modifiers.len() == 1).then(|| modifiers[0].parse().ok())
}

/// The fraction digits a value's microseconds need (`.120000` needs 2).
fn fraction_digits(micros: u32) -> u8 {
    let mut digits = 6;
    let mut rest = micros;
    while rest != 0 && rest.is_multiple_of(10) {
        rest /= 10;
        digits -= 1;
    }
    if rest == 0 {
        0
    } else {
        digits
    }
}

/// Result column `def`, widened where a value of `values` would not fit it: the type a result
/// announces can be narrower than its rows (a `?`'s or an expression's can be a guess), and
/// CREATE TABLE ... SELECT must store every value as it is. Integers grow to BIGINT (or DECIMAL past both of its ranges), a DECIMAL takes the
/// digits its values have on either side of the point, DATE takes a DATETIME, a column of only
/// NULLs takes its values' type, strings their length, anything a string; a NULL makes it
/// nullable.
pub(crate) fn holding<'v>(
    def: ColumnDef,
    values: impl Iterator<Item = &'v base::Value>,
) -> ColumnDef {
    use base::Value as V;
    let values: Vec<&V> = values.collect();
    let mut def = def;
    // Fractional digits a DATETIME or TIME needs for its values.
    let fsp = |micros: u32| if micros == 0 { 0 } else { 6 };
    let text = |v: &V| match v {
        V::Bytes(b) => String::from_utf8_lossy(b).chars().count() as u32,
        other => other.to_string().chars().count() as u32,
    };
    // Digits before and after the point.
    let digits = |v: &V| -> (u32, u32) {
        let t = match v {
            V::Decimal(d) => d.to_string(),
            other => other.to_string(),
        };
        let mut parts = t.trim_start_matches('-').splitn(2, '.');
        let whole = parts.next().unwrap_or_default().len() as u32;
        let frac = parts.next().map_or(0, |f| f.len() as u32);
        (whole, frac)
    };
    let decimal = |whole: u32, scale: u32| {
        let scale = scale.min(u32::from(limits::DECIMAL_SCALE_MAX));
        ColumnType::Decimal {
            precision: (whole + scale).clamp(1, u32::from(limits::DECIMAL_PRECISION_MAX)) as u8,
            scale: scale as u8,
        }
    };
    // Twice: a type the later values change is then wide enough for the earlier ones too.
    for v in values.iter().chain(&values) {
        let v: &V = v;
        if v.is_null() {
            def.nullable = true;
            continue;
        }
        let ty = def.ty;
        def.ty = match (ty, v) {
            // A table's ENUM or SET passed through holds its members' names.
            (ColumnType::Enum | ColumnType::Set, _) => ty,
            // A column of only NULLs so far: its first value's type.
            (ColumnType::Binary { length: 0 }, _) if def.collation == Collation::Binary => {
                if matches!(v, V::Bytes(_)) {
                    def.collation = Collation::Utf8mb4GeneralCi;
                }
                match v {
                    V::Int(_) => ColumnType::BigInt { unsigned: false },
                    V::UInt(_) => ColumnType::BigInt { unsigned: true },
                    V::Float(_) | V::Double(_) => ColumnType::Double,
                    V::Decimal(_) => {
                        let (whole, frac) = digits(v);
                        decimal(whole, frac)
                    }
                    V::Date(_) => ColumnType::Date,
                    V::DateTime(d) => ColumnType::DateTime {
                        fsp: fsp(d.microsecond),
                    },
                    V::Time(t) => ColumnType::Time {
                        fsp: fsp(t.microseconds),
                    },
                    V::Year(_) => ColumnType::Year,
                    _ => ColumnType::VarChar { length: text(v) },
                }
            }
            (t, V::Int(_) | V::UInt(_)) if t.is_integer() => {
                let fits = v.clone().coerce(t, def.collation, &def.name).is_ok();
                match (fits, v, t) {
                    (true, ..) => t,
                    (false, V::Int(_), ColumnType::BigInt { unsigned: true }) => decimal(20, 0),
                    (false, V::UInt(u), ColumnType::BigInt { unsigned: false })
                        if *u > i64::MAX as u64 =>
                    {
                        decimal(20, 0)
                    }
                    (false, V::UInt(u), _) if *u > i64::MAX as u64 => {
                        ColumnType::BigInt { unsigned: true }
                    }
                    _ => ColumnType::BigInt { unsigned: false },
                }
            }
            (t, V::Decimal(_)) if t.is_integer() => {
                let (whole, frac) = digits(v);
                decimal(whole.max(20), frac)
            }
            (ColumnType::Decimal { precision, scale }, V::Decimal(_) | V::Int(_) | V::UInt(_)) => {
                let (whole, frac) = digits(v);
                let had = u32::from(precision.saturating_sub(scale));
                decimal(had.max(whole), u32::from(scale).max(frac))
            }
            (t, V::Float(_) | V::Double(_))
                if t.is_integer() || matches!(t, ColumnType::Decimal { .. }) =>
            {
                ColumnType::Double
            }
            (ColumnType::Float, V::Double(_)) => ColumnType::Double,
            (ColumnType::Date, V::DateTime(d)) => ColumnType::DateTime {
                fsp: fsp(d.microsecond),
            },
            (ColumnType::DateTime { fsp: had }, V::DateTime(d)) => ColumnType::DateTime {
                fsp: had.max(fraction_digits(d.microsecond)),
            },
            (ColumnType::VarChar { length }, _) => {
                let chars = text(v);
                if chars as usize > limits::VARCHAR_BYTES_MAX / 4 {
                    ColumnType::Text {
                        size: lob_holding(u64::from(chars) * 4),
                    }
                } else {
                    ColumnType::VarChar {
                        length: length.max(chars),
                    }
                }
            }
            (ColumnType::Char { length }, _) => {
                let chars = text(v);
                if chars > limits::CHAR_LENGTH_MAX {
                    ColumnType::VarChar { length: chars }
                } else {
                    ColumnType::Char {
                        length: length.max(chars),
                    }
                }
            }
            (ColumnType::VarBinary { length }, V::Bytes(b)) => {
                if b.len() > limits::VARCHAR_BYTES_MAX {
                    ColumnType::Blob {
                        size: lob_holding(b.len() as u64),
                    }
                } else {
                    ColumnType::VarBinary {
                        length: length.max(b.len() as u32),
                    }
                }
            }
            (ColumnType::Binary { length }, V::Bytes(b)) => {
                if b.len() > limits::CHAR_LENGTH_MAX as usize {
                    ColumnType::VarBinary {
                        length: b.len() as u32,
                    }
                } else {
                    ColumnType::Binary {
                        length: length.max(b.len() as u32),
                    }
                }
            }
            (ColumnType::Text { size }, V::Bytes(b)) if b.len() > size.stored_bytes() => {
                ColumnType::Text {
                    size: lob_holding(b.len() as u64),
                }
            }
            (ColumnType::Blob { size }, V::Bytes(b)) if b.len() > size.stored_bytes() => {
                ColumnType::Blob {
                    size: lob_holding(b.len() as u64),
                }
            }
            // A string among numbers or dates: the column is a string.
            (t, V::Bytes(_)) if !t.is_string() => {
                def.collation = Collation::Utf8mb4GeneralCi;
                ColumnType::VarChar { length: text(v) }
            }
            (t, _) => t,
        };
    }
    def
}

/// A column as its definition in CREATE TABLE or ALTER TABLE ADD COLUMN gives it, and the key
/// it declares inline: `Some(Ordered)` for PRIMARY KEY, `Some(Unique)` for UNIQUE.
pub(crate) fn column_from_ast(
    col: &ast::ColumnDef,
    table_collation: Collation,
) -> Result<(ColumnDef, Option<IndexKind>)> {
    if let Some(plain) = national(col)? {
        return column_from_ast(&plain, table_collation);
    }
    let mut ty = column_type(&col.name.value, &col.data_type)?;
    let members = members(&col.name.value, &col.data_type)?;
    let geometry = geometry_kind(&col.data_type);
    let textual = (ty.is_string()
        && !matches!(
            ty,
            ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. }
        ))
        || matches!(ty, ColumnType::Enum | ColumnType::Set);
    let mut spec = CollationSpec::default();
    for option in &col.options {
        match &option.option {
            ast::ColumnOption::CharacterSet(n) => spec.charset = Some(n.to_string()),
            ast::ColumnOption::Collation(n) => spec.collation = Some(n.to_string()),
            _ => {}
        }
    }
    let json = matches!(col.data_type, ast::DataType::JSON);
    let collation = if spec.is_empty() {
        // JSON is MariaDB's LONGTEXT in utf8mb4_bin.
        if json {
            Collation::Utf8mb4Bin
        } else {
            table_collation
        }
    } else if textual {
        spec.resolve()?
    } else {
        return Err(SqlError::parse(format!(
            "near 'CHARACTER SET' or 'COLLATE' on column '{}': only string columns have one",
            col.name.value
        )));
    };
    if let ast::DataType::Custom(name, modifiers) = &col.data_type {
        if let Some(Some(n)) = text_length(name, modifiers) {
            let size = lob_of_length(n, collation.charset().max_len() as u64);
            ty = ColumnType::Text { size };
        }
    }
    if textual && collation == Collation::Binary {
        // As MariaDB: CHAR/VARCHAR/TEXT in the binary character set are BINARY/VARBINARY/BLOB.
        ty = match ty {
            ColumnType::Char { length } => ColumnType::Binary { length },
            ColumnType::VarChar { length } => ColumnType::VarBinary { length },
            ColumnType::Text { size } => ColumnType::Blob { size },
            other => other,
        };
    }
    if let ColumnType::VarChar { length } = ty {
        let max = VARCHAR_MAX / collation.charset().max_len() as u64;
        if u64::from(length) > max {
            return Err(SqlError::new(
                1074,
                "42000",
                format!(
                    "Column length too big for column '{}' (max = {max}); use BLOB or TEXT instead",
                    col.name.value
                ),
            ));
        }
    }
    let mut def = ColumnDef::new(&col.name.value, ty);
    if textual && collation != Collation::Binary {
        def = def.collation(collation);
    }
    def.members = members;
    def.geometry = geometry.map(|kind| GeometryColumn { kind, srid: None });
    let mut nullable = true;
    let mut key = None;
    let mut default = None;
    let mut on_update = None;
    for option in &col.options {
        match &option.option {
            ast::ColumnOption::Generated {
                generation_expr: Some(e),
                generation_expr_mode,
                sequence_options: None,
                ..
            } => {
                let Some(expr) = crate::catalog::check::kept(e) else {
                    return Err(SqlError::unsupported(format!(
                        "the expression of the generated column `{}` in a form Cairn cannot \
                         keep as MariaDB spells it",
                        col.name.value
                    )));
                };
                def.generated = Some(base::schema::Generated {
                    expr,
                    stored: matches!(
                        generation_expr_mode,
                        Some(ast::GeneratedExpressionMode::Stored)
                    ),
                });
            }
            ast::ColumnOption::NotNull => nullable = false,
            ast::ColumnOption::Null => nullable = true,
            ast::ColumnOption::PrimaryKey(_) => {
                nullable = false;
                key = Some(IndexKind::Ordered);
            }
            ast::ColumnOption::Unique(_) => key = Some(IndexKind::Unique),
            ast::ColumnOption::Default(e) => default = Some(e.clone()),
            ast::ColumnOption::OnUpdate(e) => on_update = Some(e.clone()),
            ast::ColumnOption::DialectSpecific(tokens)
                if tokens
                    .iter()
                    .any(|t| t.to_string().eq_ignore_ascii_case("AUTO_INCREMENT")) =>
            {
                def = def.auto_increment();
            }
            // LONG VARCHAR and LONG VARBINARY (parse/dialect.rs): MEDIUMTEXT and MEDIUMBLOB.
            ast::ColumnOption::DialectSpecific(tokens) if matches!(tokens.as_slice(), [t] if ["LONG_TEXT", "LONG_BLOB"].contains(&t.to_string().as_str())) =>
            {
                let long = matches!(&col.data_type, ast::DataType::Custom(name, m)
                    if m.is_empty() && name.to_string().eq_ignore_ascii_case("LONG"));
                if !long {
                    return Err(SqlError::parse(format!(
                        "near '{}' in the type of '{}'",
                        tokens[0], col.name.value
                    )));
                }
                if tokens[0].to_string() == "LONG_BLOB" {
                    def.ty = ColumnType::Blob {
                        size: LobSize::Medium,
                    };
                    def.collation = Collation::Binary;
                }
            }
            ast::ColumnOption::DialectSpecific(tokens)
                if tokens
                    .iter()
                    .any(|t| t.to_string().eq_ignore_ascii_case("ZEROFILL")) =>
            {
                // ZEROFILL makes an integer unsigned, as MariaDB; other types keep none.
                def.ty = match def.ty {
                    ColumnType::TinyInt { .. } => ColumnType::TinyInt { unsigned: true },
                    ColumnType::SmallInt { .. } => ColumnType::SmallInt { unsigned: true },
                    ColumnType::MediumInt { .. } => ColumnType::MediumInt { unsigned: true },
                    ColumnType::Int { .. } => ColumnType::Int { unsigned: true },
                    ColumnType::BigInt { .. } => ColumnType::BigInt { unsigned: true },
                    _ => {
                        return Err(SqlError::unsupported(format!(
                            "ZEROFILL on the {} column '{}' (integers only)",
                            def.ty.sql_name(),
                            col.name.value
                        )))
                    }
                };
                def.zerofill = true;
            }
            // MariaDB's own form of a JSON column (SHOW CREATE TABLE, mysqldump).
            ast::ColumnOption::Check(c) if textual && is_json_check(&c.expr, &col.name.value) => {
                def.json = true;
            }
            ast::ColumnOption::Comment(text) => {
                if text.chars().count() > base::limits::COLUMN_COMMENT_CHARS_MAX {
                    return Err(SqlError::new(
                        1629,
                        "HY000",
                        format!(
                            "Comment for field '{}' is too long (max = {})",
                            col.name.value,
                            base::limits::COLUMN_COMMENT_CHARS_MAX
                        ),
                    ));
                }
                def.comment = text.clone();
            }
            // MySQL 8's SRID attribute of a spatial column (what `/*!80003 SRID 0 */` says).
            ast::ColumnOption::Srid(e) => {
                let srid = match (&mut def.geometry, e.as_ref()) {
                    (
                        Some(g),
                        ast::Expr::Value(ast::ValueWithSpan {
                            value: ast::Value::Number(n, _),
                            ..
                        }),
                    ) => n.parse::<u32>().ok().map(|n| (g, n)),
                    _ => None,
                };
                match srid {
                    Some((g, n)) => g.srid = Some(n),
                    None => {
                        return Err(SqlError::parse(format!(
                            "near 'SRID {e}' on column '{}': SRID takes a number, on a \
                             spatial column",
                            col.name.value
                        )))
                    }
                }
            }
            ast::ColumnOption::CharacterSet(_) | ast::ColumnOption::Collation(_) => {}
            // REFERENCES: a foreign key of the table (`commands/foreign.rs`); CHECK: a
            // constraint of the table (`commands/check.rs`).
            ast::ColumnOption::ForeignKey(_) | ast::ColumnOption::Check(_) => {}
            other => return Err(SqlError::unsupported(format!("column option {other}"))),
        }
    }
    def.json |= json;
    def.display_width = display_width(&col.data_type);
    // FLOAT(M,D) and DOUBLE(M,D) keep M and D (values are rounded to D digits).
    if let ast::DataType::Float(ast::ExactNumberInfo::PrecisionAndScale(m, d))
    | ast::DataType::Double(ast::ExactNumberInfo::PrecisionAndScale(m, d)) = &col.data_type
    {
        def.display_width = (*m).min(255) as u8;
        def.scale = Some((*d).clamp(0, 30) as u8);
    }
    if nullable {
        def = def.nullable();
    }
    if let Some(g) = &def.generated {
        if g.expr.len() > limits::CHECK_TEXT_BYTES_MAX {
            return Err(SqlError::unsupported(format!(
                "a generated column's expression longer than {} bytes",
                limits::CHECK_TEXT_BYTES_MAX
            )));
        }
        if key == Some(IndexKind::Ordered) {
            // MariaDB's grammar has no PRIMARY KEY after GENERATED ALWAYS AS.
            return Err(SqlError::parse(format!(
                "near 'PRIMARY KEY': the generated column `{}` cannot be the primary key",
                col.name.value
            )));
        }
    }
    // NOT NULL is MySQL's (drivers see Cairn as MySQL 8.0): the value computed must not be
    // NULL.
    if def.generated.is_some() && (default.is_some() || on_update.is_some() || def.auto_increment) {
        // MariaDB's grammar has none of them after GENERATED ALWAYS AS.
        return Err(SqlError::parse(format!(
            "near the generated column `{}`: DEFAULT, ON UPDATE and AUTO_INCREMENT do not go \
             with GENERATED ALWAYS AS",
            col.name.value
        )));
    }
    if let Some(e) = default {
        default_value(&def, &e, false)?.apply(&mut def);
    }
    if let Some(e) = on_update {
        def.on_update_now = on_update_now(&def, &e)?;
    }
    Ok((def, key))
}

/// A column type checked before a statement runs (MariaDB's errors for its parameters): the
/// NATIONAL forms are checked with the column, once their second word is read.
pub(crate) fn type_check(column: &str, t: &ast::DataType) -> Result<()> {
    let national = match t {
        ast::DataType::Custom(name, _) => ["NATIONAL", "NCHAR"]
            .iter()
            .any(|w| name.to_string().eq_ignore_ascii_case(w)),
        ast::DataType::Nvarchar(_) => true,
        _ => false,
    };
    if !national {
        column_type(column, t)?;
    }
    Ok(())
}

/// NATIONAL CHAR[ACTER] [VARYING] (n), NATIONAL VARCHAR (n), NCHAR [VARCHAR] (n) and
/// NVARCHAR (n) as MariaDB reads them: CHAR or VARCHAR in utf8mb3 (unless a character set is
/// given); None for any other column. The second word is `parse/dialect.rs`'s marker option.
fn national(col: &ast::ColumnDef) -> Result<Option<ast::ColumnDef>> {
    let length = |n: u64| {
        Some(ast::CharacterLength::IntegerLength {
            length: n,
            unit: None,
        })
    };
    let marker = col.options.first().and_then(|o| match &o.option {
        ast::ColumnOption::DialectSpecific(tokens) => match tokens.as_slice() {
            [t, rest @ ..] if t.to_string().starts_with("NATIONAL_") => {
                let n = match rest {
                    [n] => n.to_string().parse::<u64>().ok(),
                    _ => None,
                };
                Some((t.to_string() == "NATIONAL_VARCHAR", n))
            }
            _ => None,
        },
        _ => None,
    });
    let named = |n: &ast::ObjectName, word: &str| n.to_string().eq_ignore_ascii_case(word);
    let (varying, n, skip) = match (&col.data_type, marker) {
        (ast::DataType::Custom(name, m), Some((varying, n)))
            if m.is_empty() && (named(name, "NATIONAL") || (named(name, "NCHAR") && varying)) =>
        {
            (varying, n, 1)
        }
        (ast::DataType::Custom(name, _), _) if named(name, "NATIONAL") => {
            return Err(SqlError::parse(format!(
                "near the type of '{}': NATIONAL needs CHAR or VARCHAR and a length",
                col.name.value
            )))
        }
        (ast::DataType::Custom(name, m), None) if named(name, "NCHAR") && m.len() <= 1 => {
            let n = match m.first() {
                Some(n) => Some(n.parse::<u64>().map_err(|_| {
                    SqlError::parse(format!("near '{n}' in the type of '{}'", col.name.value))
                })?),
                None => None,
            };
            (false, n, 0)
        }
        (ast::DataType::Nvarchar(Some(ast::CharacterLength::IntegerLength { length, .. })), _) => {
            (true, Some(*length), 0)
        }
        _ => return Ok(None),
    };
    let data_type = match (varying, n) {
        (true, Some(n)) => ast::DataType::Varchar(length(n)),
        (true, None) => {
            return Err(SqlError::parse(format!(
                "near the type of '{}': VARCHAR needs a length",
                col.name.value
            )))
        }
        (false, n) => ast::DataType::Char(length(n.unwrap_or(1))),
    };
    let mut plain = col.clone();
    plain.data_type = data_type;
    plain.options.drain(..skip);
    let charset = plain.options.iter().any(|o| {
        matches!(
            o.option,
            ast::ColumnOption::CharacterSet(_) | ast::ColumnOption::Collation(_)
        )
    });
    if !charset {
        plain.options.insert(
            0,
            ast::ColumnOptionDef {
                name: None,
                option: ast::ColumnOption::CharacterSet(ast::ObjectName::from(vec![
                    ast::Ident::new("utf8mb3"),
                ])),
            },
        );
    }
    Ok(Some(plain))
}

/// An ENUM's or SET's members as declared (trailing spaces dropped, as MariaDB does), checked
/// with MariaDB's errors: 1291 for a member named twice, 1097 for too many, 1367 for a SET
/// member holding a comma; empty for any other type.
pub(crate) fn members(column: &str, t: &ast::DataType) -> Result<Vec<String>> {
    let (names, set): (Vec<String>, bool) = match t {
        ast::DataType::Enum(members, _) => (
            members
                .iter()
                .map(|m| match m {
                    ast::EnumMember::Name(n) | ast::EnumMember::NamedValue(n, _) => n.clone(),
                })
                .collect(),
            false,
        ),
        ast::DataType::Set(members) => (members.clone(), true),
        _ => return Ok(Vec::new()),
    };
    let kind = if set { "SET" } else { "ENUM" };
    let max = if set {
        64
    } else {
        base::limits::ENUM_MEMBERS_MAX
    };
    if names.len() > max {
        return Err(SqlError::new(
            1097,
            "HY000",
            format!("Too many strings for column {column} and {kind}"),
        ));
    }
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let n = n.trim_end_matches(' ').to_string();
        if set && n.contains(',') {
            return Err(SqlError::new(
                1367,
                "22007",
                format!("Illegal set '{n}' value found during parsing"),
            ));
        }
        if n.chars().count() > 255 {
            return Err(SqlError::unsupported(format!(
                "an {kind} member longer than 255 characters"
            )));
        }
        if out.iter().any(|m| m.to_lowercase() == n.to_lowercase()) {
            return Err(SqlError::new(
                1291,
                "HY000",
                format!("Column '{column}' has duplicated value '{n}' in {kind}"),
            ));
        }
        out.push(n);
    }
    Ok(out)
}

/// An integer type's display width as declared (BOOL's is 1), 0 when none is (or for another
/// type).
pub(crate) fn display_width(t: &ast::DataType) -> u8 {
    match t {
        ast::DataType::Bool | ast::DataType::Boolean => 1,
        t => integer_width(t).flatten().map_or(0, |w| w.min(255) as u8),
    }
}

/// An integer type's declared display width (`Some(None)` when it has none); None for any
/// other type.
pub(crate) fn integer_width(t: &ast::DataType) -> Option<Option<u64>> {
    use ast::DataType as D;
    match t {
        D::TinyInt(w)
        | D::TinyIntUnsigned(w)
        | D::SmallInt(w)
        | D::SmallIntUnsigned(w)
        | D::MediumInt(w)
        | D::MediumIntUnsigned(w)
        | D::Int(w)
        | D::Integer(w)
        | D::IntUnsigned(w)
        | D::IntegerUnsigned(w)
        | D::BigInt(w)
        | D::BigIntUnsigned(w) => Some(*w),
        _ => None,
    }
}

/// Whether a column's CHECK is `json_valid(column)`, the check of a JSON column.
pub(crate) fn is_json_check(e: &ast::Expr, column: &str) -> bool {
    match e {
        ast::Expr::Nested(inner) => is_json_check(inner, column),
        ast::Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("json_valid") => {
            match &f.args {
                ast::FunctionArguments::List(list) => matches!(
                    list.args.as_slice(),
                    [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(i)))]
                        if i.value.eq_ignore_ascii_case(column)
                ),
                _ => false,
            }
        }
        _ => false,
    }
}

/// What a DEFAULT clause gives a column: a value, or the time each row is written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ColumnDefault {
    /// A value, and the expression it was written as (None for a literal).
    Value(base::Value, Option<String>),
    /// CURRENT_TIMESTAMP, with this many fraction digits.
    Now(u8),
}

impl ColumnDefault {
    pub(crate) fn apply(self, column: &mut ColumnDef) {
        match self {
            ColumnDefault::Value(v, text) => {
                column.default = Some(v);
                column.default_now = None;
                column.default_expr = text;
            }
            ColumnDefault::Now(fsp) => {
                column.default = None;
                column.default_now = Some(fsp);
                column.default_expr = None;
            }
        }
    }
}

/// For a call of CURRENT_TIMESTAMP, NOW, LOCALTIME or LOCALTIMESTAMP (in parentheses or not),
/// the fraction digits it gives: `Some(None)` without an argument. None for anything else.
pub(crate) fn current_time_call(e: &ast::Expr) -> Option<Option<u64>> {
    match e {
        ast::Expr::Nested(inner) => current_time_call(inner),
        ast::Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            if !matches!(
                name.as_str(),
                "current_timestamp" | "now" | "localtime" | "localtimestamp"
            ) {
                return None;
            }
            match &f.args {
                ast::FunctionArguments::None => Some(None),
                ast::FunctionArguments::List(list) if list.args.is_empty() => Some(None),
                args => crate::commands::ddl::prefix_length(args).map(Some),
            }
        }
        _ => None,
    }
}

/// Checks `ON UPDATE e` for `column` (true: it takes the update's time), with MariaDB's errors:
/// 1064 for anything but a call of CURRENT_TIMESTAMP (or a synonym), 1294 for a column that is
/// no DATETIME or TIMESTAMP or a call asking for fewer fraction digits than the column keeps.
pub(crate) fn on_update_now(column: &ColumnDef, e: &ast::Expr) -> Result<bool> {
    let call = match e {
        ast::Expr::Nested(_) => None,
        e => current_time_call(e),
    };
    let Some(digits) = call else {
        return Err(SqlError::parse(format!("near '{e}'")));
    };
    let invalid = || {
        SqlError::new(
            1294,
            "HY000",
            format!("Invalid ON UPDATE clause for '{}' column", column.name),
        )
    };
    let fsp = column.ty.datetime_digits().ok_or_else(invalid)?;
    match digits {
        Some(n) if n < u64::from(fsp) => Err(invalid()),
        _ => Ok(true),
    }
}

/// The value a DEFAULT `e` gives `column`, or MariaDB's 1067 for one the column cannot have:
/// any on an AUTO_INCREMENT column, NULL on a NOT NULL one, and a value strict mode would not
/// store as it is (a string longer than the column, even by trailing spaces; a number out of
/// range or not a number; a date that is none). Rounding a number to the column's scale is
/// no change, as in MariaDB. CURRENT_TIMESTAMP (or NOW, LOCALTIME, LOCALTIMESTAMP) of a
/// DATETIME or TIMESTAMP column is the time each row is written; any other default calling a
/// function is refused with 1235 (MariaDB computes it for each row).
///
/// `set_default` is ALTER COLUMN ... SET DEFAULT, where MariaDB keeps the digits a
/// CURRENT_TIMESTAMP call gives (none: 0); a column definition takes the column's digits when
/// the call gives none, 0 or more.
pub(crate) fn default_value(
    column: &ColumnDef,
    e: &ast::Expr,
    set_default: bool,
) -> Result<ColumnDefault> {
    let invalid = || {
        SqlError::new(
            1067,
            "42000",
            format!("Invalid default value for '{}'", column.name),
        )
    };
    if column.auto_increment {
        return Err(invalid());
    }
    if let (Some(digits), Some(fsp)) = (current_time_call(e), column.ty.datetime_digits()) {
        let digits = match digits {
            Some(n) if set_default => n.min(6) as u8,
            None if set_default => 0,
            Some(n) if n > 0 => n.min(u64::from(fsp)) as u8,
            _ => fsp,
        };
        return Ok(ColumnDefault::Now(digits));
    }
    let calls = ast::visit_expressions(e, |x| match x {
        ast::Expr::Function(_) => std::ops::ControlFlow::Break(()),
        _ => std::ops::ControlFlow::Continue(()),
    });
    if calls.is_break() {
        // MariaDB computes such a default for each row it fills; Cairn keeps a default as one
        // value or the current time of a DATETIME or TIMESTAMP column.
        return Err(SqlError::unsupported(format!(
            "DEFAULT {e} for column '{}' (a default computed for each row, other than \
             CURRENT_TIMESTAMP of a DATETIME or TIMESTAMP column)",
            column.name
        )));
    }
    let v = row_free_value(e)?;
    if column.auto_increment || (v.is_null() && !column.nullable) {
        return Err(invalid());
    }
    let given = base::text::value_text(&v).unwrap_or_default();
    let longer = match column.ty {
        ColumnType::Char { length } | ColumnType::VarChar { length } => {
            String::from_utf8_lossy(&given).chars().count() > length as usize
        }
        ColumnType::Binary { length } | ColumnType::VarBinary { length } => {
            given.len() > length as usize
        }
        _ => false,
    };
    if longer {
        return Err(invalid());
    }
    let v = crate::expr::temporal::number_as_temporal(column.ty, v);
    let v = base::text::store_strict(column, v).map_err(|_| invalid())?;
    Ok(ColumnDefault::Value(v, expression_text(e)))
}

/// A DEFAULT that is an expression, as MariaDB shows it (`(3 + 5)`); None for a literal (a
/// number, a negative one, a string, NULL), which shows as its value.
fn expression_text(e: &ast::Expr) -> Option<String> {
    let mut inner = e;
    while let ast::Expr::Nested(x) = inner {
        inner = x;
    }
    let literal = match inner {
        ast::Expr::Value(_) | ast::Expr::TypedString(_) => true,
        ast::Expr::UnaryOp { op, expr } => {
            matches!(op, ast::UnaryOperator::Minus | ast::UnaryOperator::Plus)
                && matches!(&**expr, ast::Expr::Value(_))
        }
        ast::Expr::Prefixed { value, .. } => matches!(&**value, ast::Expr::Value(_)),
        _ => false,
    };
    let text = format!("({})", crate::catalog::check::spell(inner));
    (!literal && text.len() <= limits::CHECK_TEXT_BYTES_MAX).then_some(text)
}

/// MariaDB's longest VARCHAR or VARBINARY, in bytes: a row's 65,535 less the length prefix and
/// the null flags. A VARCHAR of a character set of several bytes a character holds this many
/// bytes' worth of its widest characters.
pub(crate) const VARCHAR_MAX: u64 = 65_532;

/// The spatial kind a type names (GEOMETRY, POINT, LINESTRING, POLYGON, MULTIPOINT,
/// MULTILINESTRING, MULTIPOLYGON, GEOMETRYCOLLECTION), None for any other type.
pub(crate) fn geometry_kind(t: &ast::DataType) -> Option<GeometryKind> {
    match t {
        ast::DataType::Custom(name, modifiers) if modifiers.is_empty() => {
            GeometryKind::from_name(&name.to_string())
        }
        _ => None,
    }
}

/// Cairn's column type for the SQL type `t`, its parameters checked against Cairn's limits with
/// MariaDB's errors, naming `column`: 1425/1426/1427 for a decimal's or float's scale and
/// precision, 1074 for a string too long, 1439 for a width no 32-bit count holds, 1063 for
/// FLOAT(p > 53).
pub(crate) fn column_type(column: &str, t: &ast::DataType) -> Result<ColumnType> {
    use ast::DataType as D;
    let too_long = |max: u64| {
        SqlError::new(
            1074,
            "42000",
            format!("Column length too big for column '{column}' (max = {max}); use BLOB or TEXT instead"),
        )
    };
    let length = |l: Option<u64>, default: u64, max: u64| -> Result<u32> {
        match l.unwrap_or(default) {
            n if n > u64::from(u32::MAX) => Err(SqlError::new(
                1439,
                "42000",
                format!(
                    "Display width out of range for '{column}' (max = {})",
                    u32::MAX
                ),
            )),
            n if n > max => Err(too_long(max)),
            n => Ok(n as u32),
        }
    };
    let char_length = |l: &Option<ast::CharacterLength>| match l {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => Some(*length),
        _ => None,
    };
    let scale_error = |max: u64| {
        SqlError::new(
            1425,
            "42000",
            format!("Too big scale specified for '{column}'. Maximum is {max}"),
        )
    };
    let precision_error = |max: u64| {
        SqlError::new(
            1426,
            "42000",
            format!("Too big precision specified for '{column}'. Maximum is {max}"),
        )
    };
    let order_error = || {
        SqlError::new(
            1427,
            "42000",
            format!(
                "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{column}')"
            ),
        )
    };
    // FLOAT(M,D) and DOUBLE(M,D): MariaDB's limits, then the value is kept as a float.
    let float_digits = |info: &ast::ExactNumberInfo| -> Result<()> {
        if let ast::ExactNumberInfo::PrecisionAndScale(m, d) = info {
            let d = u64::try_from(*d).unwrap_or(u64::MAX);
            if d > 30 {
                return Err(scale_error(30));
            }
            if *m > 255 {
                return Err(SqlError::new(
                    1439,
                    "42000",
                    format!("Display width out of range for '{column}' (max = 255)"),
                ));
            }
            if d > *m {
                return Err(order_error());
            }
        }
        Ok(())
    };
    let fsp = |p: &Option<u64>| -> Result<u8> {
        match p.unwrap_or(0) {
            p if p > 6 => Err(precision_error(6)),
            p => Ok(p as u8),
        }
    };
    // An integer's display width: at most 255, as MariaDB.
    let width = |w: &Option<u64>| match w {
        Some(w) if *w > 255 => Err(SqlError::new(
            1439,
            "42000",
            format!("Display width out of range for '{column}' (max = 255)"),
        )),
        _ => Ok(()),
    };
    if let Some(w) = integer_width(t) {
        width(&w)?;
    }
    // DOUBLE takes (M,D) or nothing; DOUBLE(M) is a syntax error in MariaDB.
    if let D::Double(ast::ExactNumberInfo::Precision(_)) = t {
        return Err(SqlError::parse(format!(
            "near ')': DOUBLE of '{column}' takes (M,D) or no digits"
        )));
    }
    Ok(match t {
        // MariaDB's BOOL and BOOLEAN are TINYINT(1).
        D::TinyInt(_) | D::Bool | D::Boolean => ColumnType::TinyInt { unsigned: false },
        D::TinyIntUnsigned(_) => ColumnType::TinyInt { unsigned: true },
        D::SmallInt(_) => ColumnType::SmallInt { unsigned: false },
        D::SmallIntUnsigned(_) => ColumnType::SmallInt { unsigned: true },
        D::MediumInt(_) => ColumnType::MediumInt { unsigned: false },
        D::MediumIntUnsigned(_) => ColumnType::MediumInt { unsigned: true },
        D::Int(_) | D::Integer(_) => ColumnType::Int { unsigned: false },
        D::IntUnsigned(_) | D::IntegerUnsigned(_) => ColumnType::Int { unsigned: true },
        D::BigInt(_) => ColumnType::BigInt { unsigned: false },
        D::BigIntUnsigned(_) => ColumnType::BigInt { unsigned: true },
        // FLOAT(p): single precision up to 24 bits, double up to 53, as MariaDB.
        D::Float(ast::ExactNumberInfo::Precision(p)) => match p {
            0..=24 => ColumnType::Float,
            25..=53 => ColumnType::Double,
            _ => {
                return Err(SqlError::new(
                    1063,
                    "42000",
                    format!("Incorrect column specifier for column '{column}'"),
                ))
            }
        },
        D::Float(info) => {
            float_digits(info)?;
            ColumnType::Float
        }
        D::Real => ColumnType::Float,
        D::Double(info) => {
            float_digits(info)?;
            ColumnType::Double
        }
        D::DoublePrecision => ColumnType::Double,
        D::Decimal(info) | D::Numeric(info) => {
            let (precision, scale) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => {
                    (*p, u64::try_from(*s).unwrap_or(u64::MAX))
                }
            };
            // MariaDB's order: the scale, then the precision, then the one against the other.
            if scale > u64::from(limits::DECIMAL_SCALE_MAX) {
                return Err(scale_error(limits::DECIMAL_SCALE_MAX.into()));
            }
            if precision > u64::from(limits::DECIMAL_PRECISION_MAX) {
                return Err(precision_error(limits::DECIMAL_PRECISION_MAX.into()));
            }
            if scale > precision {
                return Err(order_error());
            }
            // DECIMAL(0) is MariaDB's default precision.
            let precision = if precision == 0 { 10 } else { precision };
            ColumnType::Decimal {
                precision: precision as u8,
                scale: scale as u8,
            }
        }
        D::Char(l) | D::Character(l) => ColumnType::Char {
            length: length(char_length(l), 1, limits::CHAR_LENGTH_MAX.into())?,
        },
        D::Varchar(l) | D::CharacterVarying(l) => ColumnType::VarChar {
            length: length(char_length(l), 255, VARCHAR_MAX)?,
        },
        D::Binary(l) => ColumnType::Binary {
            length: length(*l, 1, limits::CHAR_LENGTH_MAX.into())?,
        },
        D::Varbinary(l) => ColumnType::VarBinary {
            length: length(
                match l {
                    Some(ast::BinaryLength::IntegerLength { length }) => Some(*length),
                    _ => None,
                },
                255,
                VARCHAR_MAX,
            )?,
        },
        D::Text => ColumnType::TEXT,
        D::TinyText => ColumnType::Text {
            size: LobSize::Tiny,
        },
        // MariaDB's LONG (and LONG VARCHAR) is MEDIUMTEXT.
        D::MediumText => ColumnType::Text {
            size: LobSize::Medium,
        },
        D::Custom(name, modifiers)
            if modifiers.is_empty() && name.to_string().eq_ignore_ascii_case("LONG") =>
        {
            ColumnType::Text {
                size: LobSize::Medium,
            }
        }
        D::LongText | D::JSON => ColumnType::Text {
            size: LobSize::Long,
        },
        // TEXT(n): sized for n characters of one byte here; `column_from_ast` sizes it again for
        // the column's character set.
        D::Custom(name, modifiers) if text_length(name, modifiers).is_some() => {
            let n = text_length(name, modifiers).flatten().ok_or_else(|| {
                SqlError::parse(format!("near '{}' in the type of '{column}'", modifiers[0]))
            })?;
            ColumnType::Text {
                size: lob_of_length(u64::from(length(Some(n), 0, u64::MAX)?), 1),
            }
        }
        D::Blob(n) => ColumnType::Blob {
            size: lob_of_length(u64::from(length(*n, 0, u64::MAX)?), 1),
        },
        D::TinyBlob => ColumnType::Blob {
            size: LobSize::Tiny,
        },
        D::MediumBlob => ColumnType::Blob {
            size: LobSize::Medium,
        },
        D::LongBlob => ColumnType::Blob {
            size: LobSize::Long,
        },
        // YEAR and YEAR(4); MariaDB's two-digit YEAR(2) is not kept.
        D::Custom(name, modifiers)
            if name.to_string().eq_ignore_ascii_case("YEAR")
                && (modifiers.is_empty() || modifiers == &["4".to_string()]) =>
        {
            ColumnType::Year
        }
        // BIT and BIT(n): 1 to 64 bits (BIT(0) is BIT(1), as MariaDB makes it).
        D::Bit(n) => match n.unwrap_or(1) {
            n if n > 64 => {
                return Err(SqlError::new(
                    1439,
                    "42000",
                    format!("Display width out of range for '{column}' (max = 64)"),
                ))
            }
            n => ColumnType::Bit {
                width: n.max(1) as u8,
            },
        },
        // A spatial type is a LONGBLOB taking only spatial values (`geometry_kind`).
        D::Custom(..) if geometry_kind(t).is_some() => ColumnType::Blob {
            size: LobSize::Long,
        },
        D::Enum(..) => ColumnType::Enum,
        D::Set(_) => ColumnType::Set,
        D::Date => ColumnType::Date,
        D::Datetime(p) => ColumnType::DateTime { fsp: fsp(p)? },
        D::Timestamp(p, _) => ColumnType::Timestamp { fsp: fsp(p)? },
        D::Time(p, _) => ColumnType::Time { fsp: fsp(p)? },
        other => return Err(SqlError::unsupported(format!("the type {other}"))),
    })
}
