//! Table schemas in the protocol's encoding (also the catalog file's): definitions, columns,
//! types, indexes, options and foreign keys, and the changes `AlterTable` makes.

use crate::codec::{DecodeError, DecodeResult, Reader, Writer};
use base::foreign_key::{CheckDef, ForeignKeyDef, ReferenceAction};
use base::schema::{ColumnDef, IndexDef, IndexKind, TableDef, TableOptions};
use base::types::{Collation, ColumnType, LobSize};
use base::{limits, Value};

/// A change to an existing table. Only `Columns` moves rows.
#[derive(Debug, Clone, PartialEq)]
pub enum TableChange {
    /// Drops the index with this name (a unique index's hidden table goes with it).
    DropIndex { name: String },
    /// Renames the table (to a name in any database).
    Rename { to: String },
    /// Replaces the table options (NDB_TABLE=... and the default collation) and the comment.
    Options {
        options: TableOptions,
        comment: String,
    },
    /// Replaces the column list (ALTER TABLE ADD/DROP COLUMN): the table's rows are copied into
    /// the new layout, each new column taken from an old one or filled with a value. Columns of
    /// the old list that no new column keeps are dropped (never a key column). `version` is the
    /// definition version the list was built from: the positions it keeps name that
    /// definition's columns, so another version answers `SchemaChanged`.
    Columns {
        version: u32,
        columns: Vec<NewColumn>,
    },
    /// Replaces the table's foreign keys and CHECK constraints (ADD/DROP FOREIGN KEY, ADD/DROP
    /// CONSTRAINT), built from definition `version` (another answers `SchemaChanged`).
    Constraints {
        version: u32,
        foreign_keys: Vec<ForeignKeyDef>,
        checks: Vec<CheckDef>,
    },
}

/// One column of a `TableChange::Columns` list.
#[derive(Debug, Clone, PartialEq)]
pub struct NewColumn {
    pub column: ColumnDef,
    pub source: ColumnSource,
}

impl NewColumn {
    /// Column `i` of `def`, kept as it is.
    #[allow(
        clippy::indexing_slicing,
        reason = "`i` is the caller's choice among `def`'s columns (tests build changes with it), \
                  never a decoded number; out of range is the caller's bug"
    )]
    pub fn kept(def: &TableDef, i: usize) -> NewColumn {
        NewColumn {
            column: def.columns[i].clone(),
            source: ColumnSource::Kept(i as u16),
        }
    }

    /// Every column of `def`, kept as it is: the list a change starts from.
    pub fn all_kept(def: &TableDef) -> Vec<NewColumn> {
        def.columns
            .iter()
            .enumerate()
            .map(|(i, column)| NewColumn {
                column: column.clone(),
                source: ColumnSource::Kept(i as u16),
            })
            .collect()
    }
}

/// Where a changed table's column takes its values from.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnSource {
    /// The old column at this position, value unchanged (same type).
    Kept(u16),
    /// Every existing row gets this value (an added column).
    Filled(Value),
}

fn put_type(out: &mut Vec<u8>, ty: ColumnType) {
    let (tag, a, b, length): (u8, u8, u8, u32) = match ty {
        ColumnType::TinyInt { unsigned } => (1, unsigned as u8, 0, 0),
        ColumnType::SmallInt { unsigned } => (2, unsigned as u8, 0, 0),
        ColumnType::MediumInt { unsigned } => (3, unsigned as u8, 0, 0),
        ColumnType::Int { unsigned } => (4, unsigned as u8, 0, 0),
        ColumnType::BigInt { unsigned } => (5, unsigned as u8, 0, 0),
        ColumnType::Float => (6, 0, 0, 0),
        ColumnType::Double => (7, 0, 0, 0),
        ColumnType::Decimal { precision, scale } => (8, precision, scale, 0),
        ColumnType::Char { length } => (9, 0, 0, length),
        ColumnType::VarChar { length } => (10, 0, 0, length),
        ColumnType::Binary { length } => (11, 0, 0, length),
        ColumnType::VarBinary { length } => (12, 0, 0, length),
        ColumnType::Text { size } => (13, lob_size_tag(size), 0, 0),
        ColumnType::Blob { size } => (14, lob_size_tag(size), 0, 0),
        ColumnType::Date => (15, 0, 0, 0),
        ColumnType::DateTime { fsp } => (16, fsp, 0, 0),
        ColumnType::Timestamp { fsp } => (17, fsp, 0, 0),
        ColumnType::Time { fsp } => (18, fsp, 0, 0),
        ColumnType::Year => (19, 0, 0, 0),
        ColumnType::Bit { width } => (20, width, 0, 0),
        ColumnType::Enum => (21, 0, 0, 0),
        ColumnType::Set => (22, 0, 0, 0),
    };
    out.extend_from_slice(&[tag, a, b]);
    out.put_u32(length);
}

fn get_type(r: &mut Reader) -> DecodeResult<ColumnType> {
    let (tag, a, b, length) = (r.u8()?, r.u8()?, r.u8()?, r.u32()?);
    let unsigned = a != 0;
    Ok(match tag {
        1 => ColumnType::TinyInt { unsigned },
        2 => ColumnType::SmallInt { unsigned },
        3 => ColumnType::MediumInt { unsigned },
        4 => ColumnType::Int { unsigned },
        5 => ColumnType::BigInt { unsigned },
        6 => ColumnType::Float,
        7 => ColumnType::Double,
        8 => ColumnType::Decimal {
            precision: a,
            scale: b,
        },
        9 => ColumnType::Char { length },
        10 => ColumnType::VarChar { length },
        11 => ColumnType::Binary { length },
        12 => ColumnType::VarBinary { length },
        13 => ColumnType::Text { size: lob_size(a)? },
        14 => ColumnType::Blob { size: lob_size(a)? },
        15 => ColumnType::Date,
        16 => ColumnType::DateTime { fsp: a },
        17 => ColumnType::Timestamp { fsp: a },
        18 => ColumnType::Time { fsp: a },
        19 => ColumnType::Year,
        20 if (1..=64).contains(&a) => ColumnType::Bit { width: a },
        20 => {
            return Err(DecodeError::BadTag {
                what: "bit width",
                tag: a,
            })
        }
        21 => ColumnType::Enum,
        22 => ColumnType::Set,
        tag => {
            return Err(DecodeError::BadTag {
                what: "column type",
                tag,
            })
        }
    })
}

/// A TEXT or BLOB size's byte in a column type: 0 for the plain size, so catalogs written before
/// the sizes existed read as TEXT and BLOB.
fn lob_size_tag(size: LobSize) -> u8 {
    match size {
        LobSize::Regular => 0,
        LobSize::Tiny => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    }
}

fn lob_size(tag: u8) -> DecodeResult<LobSize> {
    Ok(match tag {
        0 => LobSize::Regular,
        1 => LobSize::Tiny,
        2 => LobSize::Medium,
        3 => LobSize::Long,
        tag => {
            return Err(DecodeError::BadTag {
                what: "TEXT or BLOB size",
                tag,
            })
        }
    })
}

/// Appends a table schema in the protocol's encoding (also the catalog file's).
pub fn put_table(out: &mut Vec<u8>, t: &TableDef) {
    out.put_u32(t.id);
    out.put_u32(t.version);
    out.put_bytes(t.name.as_bytes());
    out.put_u32(t.columns.len() as u32);
    for c in &t.columns {
        put_column(out, c);
    }
    out.put_u16s(&t.primary_key);
    out.put_u16s(&t.partition_key);
    out.put_u32(t.partition_count);
    out.put_u32(t.indexes.len() as u32);
    for i in &t.indexes {
        out.put_bytes(i.name.as_bytes());
        put_index_columns(out, i.kind, &i.columns, &i.prefixes);
        out.put_u32(i.index_table);
    }
    let constraints = !t.foreign_keys.is_empty() || !t.checks.is_empty();
    put_options(out, &t.options, constraints);
    out.put_u32(t.index_of.map_or(u32::MAX, |i| i));
    out.put_bytes(t.comment.as_bytes());
    if constraints {
        put_constraints(out, &t.foreign_keys, &t.checks);
    }
}

/// Appends a table's foreign keys and CHECK constraints (after its comment when its options
/// flag says so, and in `TableChange::Constraints`).
pub(super) fn put_constraints(out: &mut Vec<u8>, keys: &[ForeignKeyDef], checks: &[CheckDef]) {
    put_foreign_keys(out, keys);
    out.put_u32(checks.len() as u32);
    for c in checks {
        out.put_bytes(c.name.as_bytes());
        out.put_bytes(c.expr.as_bytes());
        out.put_u16(c.column.unwrap_or(u16::MAX));
    }
}

/// Reads what [`put_constraints`] wrote.
pub(super) fn get_constraints(r: &mut Reader) -> DecodeResult<(Vec<ForeignKeyDef>, Vec<CheckDef>)> {
    let keys = get_foreign_keys(r)?;
    let n = r.count("CHECK constraints", limits::CHECKS_MAX, 10)?;
    let mut checks = Vec::with_capacity(n);
    for _ in 0..n {
        checks.push(CheckDef {
            name: r.string("CHECK constraint name", limits::WIRE_NAME_BYTES_MAX)?,
            expr: r.string("CHECK constraint", limits::CHECK_TEXT_BYTES_MAX)?,
            column: match r.u16()? {
                u16::MAX => None,
                c => Some(c),
            },
        });
    }
    Ok((keys, checks))
}

/// Appends a list of foreign keys.
fn put_foreign_keys(out: &mut Vec<u8>, keys: &[ForeignKeyDef]) {
    out.put_u32(keys.len() as u32);
    for k in keys {
        out.put_bytes(k.name.as_bytes());
        out.put_u16s(&k.columns);
        out.put_bytes(k.parent.as_bytes());
        for c in &k.parent_columns {
            out.put_bytes(c.as_bytes());
        }
        out.put_u8(k.on_delete.to_u8() | u8::from(k.declared.0) << 3);
        out.put_u8(k.on_update.to_u8() | u8::from(k.declared.1) << 3);
    }
}

/// Reads a list written by [`put_foreign_keys`].
fn get_foreign_keys(r: &mut Reader) -> DecodeResult<Vec<ForeignKeyDef>> {
    let name_limit = limits::WIRE_NAME_BYTES_MAX;
    let n = r.count("foreign keys", limits::FOREIGN_KEYS_MAX, 8)?;
    let mut keys = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.string("foreign key name", name_limit)?;
        let columns = r.u16s("foreign key columns", limits::KEY_COLUMNS_MAX)?;
        let parent = r.string("referenced table", name_limit)?;
        let mut parent_columns = Vec::with_capacity(columns.len());
        for _ in 0..columns.len() {
            parent_columns.push(r.string("referenced column", name_limit)?);
        }
        let mut action = || -> DecodeResult<(ReferenceAction, bool)> {
            let tag = r.u8()?;
            let action = ReferenceAction::from_u8(tag & 7).ok_or(DecodeError::BadTag {
                what: "foreign key action",
                tag,
            })?;
            Ok((action, tag & 8 != 0))
        };
        let (on_delete, delete_declared) = action()?;
        let (on_update, update_declared) = action()?;
        keys.push(ForeignKeyDef {
            name,
            columns,
            parent,
            parent_columns,
            on_delete,
            on_update,
            declared: (delete_declared, update_declared),
        });
    }
    Ok(keys)
}

pub(super) fn put_column(out: &mut Vec<u8>, c: &ColumnDef) {
    out.put_bytes(c.name.as_bytes());
    put_type(out, c.ty);
    out.put_u8(c.collation as u8);
    out.put_u8(
        u8::from(c.nullable)
            | u8::from(c.auto_increment) << 1
            | u8::from(c.hidden) << 2
            | u8::from(c.default_now.is_some()) << 3
            | u8::from(c.on_update_now) << 4
            | u8::from(c.json) << 5
            | u8::from(shown(c)) << 6
            | u8::from(!c.comment.is_empty()) << 7,
    );
    match &c.default {
        None => out.put_u8(0),
        Some(v) => {
            out.put_u8(1);
            out.put_value(v);
        }
    }
    if let Some(fsp) = c.default_now {
        out.put_u8(fsp);
    }
    if shown(c) {
        out.put_u8(c.display_width);
        // Bit 0: ZEROFILL; bit 1: a FLOAT(M,D)'s D follows; bit 2: a generated column's
        // expression follows, bit 3: STORED; bit 4: a DEFAULT's expression text follows;
        // bit 5: a spatial column's kind follows, bit 6: its SRID after it.
        out.put_u8(
            u8::from(c.zerofill)
                | u8::from(c.scale.is_some()) << 1
                | u8::from(c.generated.is_some()) << 2
                | u8::from(c.generated.as_ref().is_some_and(|g| g.stored)) << 3
                | u8::from(c.default_expr.is_some()) << 4
                | u8::from(c.geometry.is_some()) << 5
                | u8::from(c.geometry.is_some_and(|g| g.srid.is_some())) << 6,
        );
        if let Some(d) = c.scale {
            out.put_u8(d);
        }
        if let Some(g) = &c.generated {
            out.put_bytes(g.expr.as_bytes());
        }
        if let Some(text) = &c.default_expr {
            out.put_bytes(text.as_bytes());
        }
        if let Some(g) = c.geometry {
            out.put_u8(g.kind as u8);
            if let Some(srid) = g.srid {
                out.put_u32(srid);
            }
        }
    }
    if !c.comment.is_empty() {
        out.put_bytes(c.comment.as_bytes());
    }
    // An ENUM's or SET's members (types older catalogs never hold).
    if matches!(c.ty, ColumnType::Enum | ColumnType::Set) {
        out.put_u32(c.members.len() as u32);
        for m in &c.members {
            out.put_bytes(m.as_bytes());
        }
    }
}

/// Whether a column has the byte of how it is shown (display width, ZEROFILL, FLOAT(M,D),
/// generated: what older catalogs never have).
fn shown(c: &ColumnDef) -> bool {
    c.display_width > 0
        || c.zerofill
        || c.scale.is_some()
        || c.generated.is_some()
        || c.default_expr.is_some()
        || c.geometry.is_some()
}

pub(super) fn get_collation(r: &mut Reader) -> DecodeResult<Collation> {
    let tag = r.u8()?;
    Collation::from_u8(tag).ok_or(DecodeError::BadTag {
        what: "collation",
        tag,
    })
}

pub(super) fn get_column(r: &mut Reader) -> DecodeResult<ColumnDef> {
    let name = r.string("column name", limits::WIRE_NAME_BYTES_MAX)?;
    let ty = get_type(r)?;
    let tag = r.u8()?;
    let collation = Collation::from_u8(tag).ok_or(DecodeError::BadTag {
        what: "collation",
        tag,
    })?;
    let flags = r.u8()?;
    let default = match r.u8()? {
        0 => None,
        1 => Some(r.value()?),
        tag => {
            return Err(DecodeError::BadTag {
                what: "default",
                tag,
            })
        }
    };
    // Bit 3: a current-time default, its fraction digits after the default (older catalogs
    // never set it).
    let default_now = if flags & 8 != 0 { Some(r.u8()?) } else { None };
    // Bit 6: how the column is shown, a display width and ZEROFILL (older catalogs never set
    // it).
    let (display_width, zerofill, scale, generated, default_expr, geometry) = if flags & 64 != 0 {
        let width = r.u8()?;
        let shown = r.u8()?;
        if shown > 127 || shown & 12 == 8 || shown & 96 == 64 {
            return Err(DecodeError::BadTag {
                what: "column display flags",
                tag: shown,
            });
        }
        let scale = if shown & 2 != 0 { Some(r.u8()?) } else { None };
        let generated = if shown & 4 != 0 {
            Some(base::schema::Generated {
                expr: r.string("generated column", limits::CHECK_TEXT_BYTES_MAX)?,
                stored: shown & 8 != 0,
            })
        } else {
            None
        };
        let default_expr = if shown & 16 != 0 {
            Some(r.string("default expression", limits::CHECK_TEXT_BYTES_MAX)?)
        } else {
            None
        };
        let geometry = if shown & 32 != 0 {
            let tag = r.u8()?;
            let kind = base::geometry::GeometryKind::from_u8(tag).ok_or(DecodeError::BadTag {
                what: "geometry kind",
                tag,
            })?;
            let srid = if shown & 64 != 0 {
                Some(r.u32()?)
            } else {
                None
            };
            Some(base::geometry::GeometryColumn { kind, srid })
        } else {
            None
        };
        (
            width,
            shown & 1 != 0,
            scale,
            generated,
            default_expr,
            geometry,
        )
    } else {
        (0, false, None, None, None, None)
    };
    // Bit 7: a comment follows (older catalogs never set it).
    let comment = if flags & 128 != 0 {
        r.string("column comment", limits::COLUMN_COMMENT_BYTES_MAX)?
    } else {
        String::new()
    };
    let mut members = Vec::new();
    if matches!(ty, ColumnType::Enum | ColumnType::Set) {
        let count = r.u32()? as usize;
        if count > limits::ENUM_MEMBERS_MAX {
            return Err(DecodeError::BadTag {
                what: "member count",
                tag: 0,
            });
        }
        for _ in 0..count {
            members.push(r.string("member", limits::ENUM_MEMBER_BYTES_MAX)?);
        }
    }
    // A spatial column is a binary LONGBLOB and nothing else.
    let spatial_blob =
        ty == ColumnType::Blob {
            size: LobSize::Long,
        } && collation == Collation::Binary
            && flags & 32 == 0;
    if geometry.is_some() && !spatial_blob {
        return Err(DecodeError::BadTag {
            what: "spatial column type",
            tag: flags,
        });
    }
    Ok(ColumnDef {
        name,
        ty,
        collation,
        nullable: flags & 1 != 0,
        default,
        default_now,
        on_update_now: flags & 16 != 0,
        auto_increment: flags & 2 != 0,
        hidden: flags & 4 != 0,
        json: flags & 32 != 0,
        display_width,
        zerofill,
        scale,
        comment,
        members,
        generated,
        default_expr,
        geometry,
    })
}

/// An index's kind and columns: the kind's byte, with [`PREFIXES_FOLLOW`] when some column
/// has a prefix length (older catalogs have none), the columns, then a u32 prefix length per
/// column when flagged.
pub(super) fn put_index_columns(
    out: &mut Vec<u8>,
    kind: IndexKind,
    columns: &[u16],
    prefixes: &[u32],
) {
    let tag = match kind {
        IndexKind::Unique => 1,
        IndexKind::Ordered => 2,
    };
    let cut = prefixes.iter().any(|p| *p > 0);
    out.put_u8(if cut { tag | PREFIXES_FOLLOW } else { tag });
    out.put_u16s(columns);
    if cut {
        for i in 0..columns.len() {
            out.put_u32(prefixes.get(i).copied().unwrap_or(0));
        }
    }
}

/// Reads what [`put_index_columns`] writes.
pub(super) fn get_index_columns(r: &mut Reader) -> DecodeResult<(IndexKind, Vec<u16>, Vec<u32>)> {
    let (kind, cut) = get_index_kind(r)?;
    let columns = r.u16s("index columns", limits::KEY_COLUMNS_MAX)?;
    let prefixes = if cut {
        (0..columns.len())
            .map(|_| r.u32())
            .collect::<DecodeResult<_>>()?
    } else {
        Vec::new()
    };
    Ok((kind, columns, prefixes))
}

/// In an index's kind byte: a u32 prefix length per column follows the columns.
const PREFIXES_FOLLOW: u8 = 0x80;

/// The index kind, and whether prefix lengths follow.
fn get_index_kind(r: &mut Reader) -> DecodeResult<(IndexKind, bool)> {
    let byte = r.u8()?;
    let kind = match byte & !PREFIXES_FOLLOW {
        1 => IndexKind::Unique,
        2 => IndexKind::Ordered,
        _ => {
            return Err(DecodeError::BadTag {
                what: "index kind",
                tag: byte,
            })
        }
    };
    Ok((kind, byte & PREFIXES_FOLLOW != 0))
}

/// The options byte: bits 0-2 the flags, bits 3-6 the default collation (0: none), bit 7
/// that constraints (foreign keys, CHECKs) follow the table's comment (never set in a change).
pub(super) fn put_options(out: &mut Vec<u8>, options: &TableOptions, constraints: bool) {
    out.put_u8(
        u8::from(options.read_backup)
            | u8::from(options.fully_replicated) << 1
            | u8::from(options.nologging) << 2
            | options.collation.map_or(0, |c| c as u8) << 3
            | u8::from(constraints) << 7,
    );
}

/// Reads the options byte: the options and whether constraints follow.
pub(super) fn get_options(r: &mut Reader) -> DecodeResult<(TableOptions, bool)> {
    let flags = r.u8()?;
    let collation = match (flags >> 3) & 0xf {
        0 => None,
        tag => Some(Collation::from_u8(tag).ok_or(DecodeError::BadTag {
            what: "table collation",
            tag,
        })?),
    };
    let options = TableOptions {
        read_backup: flags & 1 != 0,
        fully_replicated: flags & 2 != 0,
        nologging: flags & 4 != 0,
        collation,
    };
    Ok((options, flags & 0x80 != 0))
}

/// Reads a table schema written by [`put_table`].
pub fn get_table(r: &mut Reader) -> DecodeResult<TableDef> {
    read_table(r, true)
}

/// Reads a table schema written before definitions had versions (catalog files of format 1
/// and 2): the definition is version 1.
pub fn get_table_unversioned(r: &mut Reader) -> DecodeResult<TableDef> {
    read_table(r, false)
}

fn read_table(r: &mut Reader, versioned: bool) -> DecodeResult<TableDef> {
    let name_limit = limits::WIRE_NAME_BYTES_MAX;
    let id = r.u32()?;
    let version = if versioned { r.u32()? } else { 1 };
    let name = r.string("table name", name_limit)?;
    let n = r.count("columns", limits::COLUMNS_MAX, 14)?;
    let mut columns = Vec::with_capacity(n);
    for _ in 0..n {
        columns.push(get_column(r)?);
    }
    let primary_key = r.u16s("primary key", limits::KEY_COLUMNS_MAX)?;
    let partition_key = r.u16s("partition key", limits::KEY_COLUMNS_MAX)?;
    let partition_count = r.u32()?;
    let ni = r.count("indexes", limits::INDEXES_MAX, 13)?;
    let mut indexes = Vec::with_capacity(ni);
    for _ in 0..ni {
        let iname = r.string("index name", name_limit)?;
        let (kind, columns, prefixes) = get_index_columns(r)?;
        indexes.push(IndexDef {
            name: iname,
            kind,
            columns,
            prefixes,
            index_table: r.u32()?,
        });
    }
    let (options, foreign) = get_options(r)?;
    let index_of = match r.u32()? {
        u32::MAX => None,
        v => Some(v),
    };
    let comment = if versioned {
        r.string("table comment", limits::TABLE_COMMENT_BYTES_MAX)?
    } else {
        String::new()
    };
    let (foreign_keys, checks) = if foreign {
        get_constraints(r)?
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(TableDef {
        id,
        version,
        name,
        columns,
        primary_key,
        partition_key,
        partition_count,
        indexes,
        options,
        index_of,
        comment,
        foreign_keys,
        checks,
    })
}
