//! Table schemas: columns, the primary key, the partition key, unique and ordered indexes, and the
//! hidden tables that implement unique indexes. Validation here is the one gate every schema passes.

use crate::error::{Error, ErrorCode, Result};
use crate::foreign_key::{CheckDef, ForeignKeyDef};
use crate::key;
use crate::limits;
use crate::types::{Collation, ColumnType};
use crate::value::{DateTime, Value};

/// One column.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    pub name: String,
    pub ty: ColumnType,
    /// For string types; `Binary` for every other type.
    pub collation: Collation,
    pub nullable: bool,
    /// None: no default value (an insert must give a value unless the column is nullable or
    /// `default_now` is set).
    pub default: Option<Value>,
    /// `DEFAULT CURRENT_TIMESTAMP(fsp)` of a DATETIME or TIMESTAMP column: the default is the
    /// time the row is written, with `fsp` fraction digits (`default` is then None).
    pub default_now: Option<u8>,
    /// `ON UPDATE CURRENT_TIMESTAMP` of a DATETIME or TIMESTAMP column: an SQL update that
    /// changes the row without assigning this column sets it to the statement's time.
    pub on_update_now: bool,
    pub auto_increment: bool,
    /// The hidden 8-byte primary key of a table declared without one.
    pub hidden: bool,
    /// Declared JSON (MariaDB's alias for LONGTEXT utf8mb4_bin with a `json_valid` check):
    /// SQL stores only valid JSON text in it, and JSON functions embed its values as JSON.
    pub json: bool,
    /// An integer's display width as declared (`INT(5)`, BOOL's 1), 0 for the type's own; it
    /// changes what is shown (SHOW CREATE TABLE, result metadata, ZEROFILL's padding), never
    /// what is stored.
    pub display_width: u8,
    /// ZEROFILL (an unsigned integer): text results pad it with zeros to its display width.
    pub zerofill: bool,
    /// FLOAT(M,D) and DOUBLE(M,D)'s D (`display_width` holds M): values are rounded to D
    /// digits after the point and hold at most M digits in all.
    pub scale: Option<u8>,
    /// The column's COMMENT, as declared (empty: none).
    pub comment: String,
    /// An ENUM's or SET's members, in order.
    pub members: Vec<String>,
    /// A generated column's expression: its value is computed from the row's other columns by
    /// the SQL front end on every write, and stored like any other.
    pub generated: Option<Generated>,
    /// A DEFAULT written as an expression (`DEFAULT (3 + 5)`), as MariaDB shows it: its value,
    /// computed when the column was defined, is `default`.
    pub default_expr: Option<String>,
    /// A spatial column (GEOMETRY, POINT, ...): a LONGBLOB that takes only spatial values of
    /// its kind (`crate::geometry`), and of its SRID when it declares one.
    pub geometry: Option<crate::geometry::GeometryColumn>,
}

/// `GENERATED ALWAYS AS (expr) VIRTUAL | STORED`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The expression as MariaDB shows it (at most `limits::CHECK_TEXT_BYTES_MAX` bytes).
    pub expr: String,
    /// STORED (PERSISTENT); else VIRTUAL, which MariaDB computes on reading and Cairn stores
    /// all the same (it only changes what is shown).
    pub stored: bool,
}

impl ColumnDef {
    /// A NOT NULL column without default, with the type's default collation.
    pub fn new(name: &str, ty: ColumnType) -> ColumnDef {
        let collation = if matches!(
            ty,
            ColumnType::Binary { .. } | ColumnType::VarBinary { .. } | ColumnType::Blob { .. }
        ) || !ty.is_string()
        {
            Collation::Binary
        } else {
            Collation::Utf8mb4GeneralCi
        };
        ColumnDef {
            name: name.into(),
            ty,
            collation,
            nullable: false,
            default: None,
            default_now: None,
            on_update_now: false,
            auto_increment: false,
            hidden: false,
            json: false,
            display_width: 0,
            zerofill: false,
            scale: None,
            comment: String::new(),
            members: Vec::new(),
            generated: None,
            default_expr: None,
            geometry: None,
        }
    }

    pub fn nullable(mut self) -> ColumnDef {
        self.nullable = true;
        self
    }

    pub fn collation(mut self, collation: Collation) -> ColumnDef {
        self.collation = collation;
        self
    }

    pub fn default(mut self, value: Value) -> ColumnDef {
        self.default = Some(value);
        self
    }

    /// Declared JSON: see [`ColumnDef::json`].
    pub fn json(mut self) -> ColumnDef {
        self.json = true;
        self
    }

    /// `DEFAULT CURRENT_TIMESTAMP(fsp)`: see [`ColumnDef::default_now`].
    pub fn default_current_time(mut self, fsp: u8) -> ColumnDef {
        self.default = None;
        self.default_now = Some(fsp);
        self
    }

    /// `ON UPDATE CURRENT_TIMESTAMP`: see [`ColumnDef::on_update_now`].
    pub fn on_update_current_time(mut self) -> ColumnDef {
        self.on_update_now = true;
        self
    }

    /// True when an insert leaving the column out stores something other than NULL for want of
    /// a value: a default value or the current time.
    pub fn has_default(&self) -> bool {
        self.default_now.is_some() || self.default_value().is_some()
    }

    /// The value the column takes when left out, but for DEFAULT CURRENT_TIMESTAMP's time: its
    /// DEFAULT, or the value it takes without one.
    pub fn default_value(&self) -> Option<Value> {
        self.default.clone().or_else(|| self.implicit_default())
    }

    /// What a column declared without a DEFAULT takes when left out, other than NULL: an
    /// ENUM NOT NULL's first member, as in MySQL (not shown as a DEFAULT).
    pub fn implicit_default(&self) -> Option<Value> {
        (self.default.is_none()
            && self.default_now.is_none()
            && !self.nullable
            && self.ty == crate::types::ColumnType::Enum)
            .then_some(Value::UInt(1))
    }

    /// The value the column takes by default in a row written at `micros` (Unix microseconds,
    /// UTC): its default value, the time cut to its `default_now` digits (at most its own), or
    /// None.
    pub fn default_at(&self, micros: i64) -> Option<Value> {
        match self.default_now {
            Some(fsp) => Some(self.time_cut(micros, fsp)),
            None => self.default_value(),
        }
    }

    /// The time `micros` (Unix microseconds, UTC) as this DATETIME or TIMESTAMP column holds
    /// it: cut to its fraction digits (ON UPDATE CURRENT_TIMESTAMP's value).
    pub fn time_at(&self, micros: i64) -> Value {
        self.time_cut(micros, 6)
    }

    /// The time `micros` with at most `fsp` fraction digits and at most the column's.
    fn time_cut(&self, micros: i64, fsp: u8) -> Value {
        let kept = self.ty.datetime_digits().unwrap_or(0);
        Value::DateTime(DateTime::from_unix_micros(micros, fsp.min(kept)).unwrap_or_default())
    }

    pub fn auto_increment(mut self) -> ColumnDef {
        self.auto_increment = true;
        self
    }

    /// The start of a value of this (string) column holding at most `chars` characters (bytes
    /// for binary strings and latin1 kept as bytes).
    pub fn prefix_of<'a>(&self, value: &'a [u8], chars: u32) -> &'a [u8] {
        let chars = chars as usize;
        if self.collation.counts_bytes() {
            return &value[..value.len().min(chars)];
        }
        match std::str::from_utf8(value) {
            Ok(s) => match s.char_indices().nth(chars) {
                Some((end, _)) => &value[..end],
                None => value,
            },
            Err(_) => &value[..value.len().min(chars)],
        }
    }

    /// The bytes this column declares in a key holding `prefix` characters of it (0: the whole
    /// value), as MySQL counts them: a string's characters times its character set's longest
    /// character, any other type its width.
    pub fn key_bytes(&self, prefix: u32) -> u64 {
        let chars = match prefix {
            0 => self.prefix_limit(),
            n => Some(u64::from(n)),
        };
        match chars {
            Some(n) => n.saturating_mul(self.collation.charset().max_len() as u64),
            None => self.ty.fixed_width().unwrap_or(8) as u64,
        }
    }

    /// The longest prefix an index may take of this column, in characters (bytes for binary
    /// strings), as MySQL counts it: its declared length (a TEXT's in bytes). None for a type
    /// that is no string.
    pub fn prefix_limit(&self) -> Option<u64> {
        match self.ty {
            ColumnType::Char { length } | ColumnType::Binary { length } => Some(u64::from(length)),
            ColumnType::VarChar { length } | ColumnType::VarBinary { length } => {
                Some(u64::from(length))
            }
            ColumnType::Text { size } | ColumnType::Blob { size } => Some(size.declared_bytes()),
            _ => None,
        }
    }

    /// True when `other` stores values exactly as this column does: the same type, collation,
    /// nullability, AUTO_INCREMENT and hidden flag (the name and default may differ).
    pub fn stores_as(&self, other: &ColumnDef) -> bool {
        (
            self.ty,
            self.collation,
            self.nullable,
            self.auto_increment,
            self.hidden,
        ) == (
            other.ty,
            other.collation,
            other.nullable,
            other.auto_increment,
            other.hidden,
        ) && self.members == other.members
            && self.geometry_kept(other)
    }

    /// Whether `new` takes every value this column may hold as far as spatial values go: it
    /// is no spatial column, or this one is, of a kind and SRID `new` takes.
    pub fn geometry_kept(&self, new: &ColumnDef) -> bool {
        match (self.geometry, new.geometry) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(g), Some(n)) => n.kind.holds(g.kind) && (n.srid.is_none() || n.srid == g.srid),
        }
    }

    /// True when `new` holds every value this column holds, unchanged, so a column change may
    /// copy the values across (compared and ordered alike: the same collation): the same type, a
    /// wider integer range, a DECIMAL with at least as many digits on each side of the point, a
    /// longer CHAR, VARCHAR or VARBINARY, a DATETIME, TIMESTAMP or TIME with more fraction
    /// digits, and NOT NULL to NULL. AUTO_INCREMENT and hidden must stay as they are.
    pub fn widens_to(&self, new: &ColumnDef) -> bool {
        self.widening_or_narrowing(new, true)
    }

    /// True when a column change may give this column definition `new` converting its values:
    /// another integer range or sign, other DECIMAL digits (rounded half away from zero, as
    /// MariaDB rounds), another length of CHAR, VARCHAR or VARBINARY, NULL or NOT NULL, with
    /// the same collation. A value the new definition cannot hold fails the change.
    pub fn converts_to(&self, new: &ColumnDef) -> bool {
        self.converts_in_family(new) || self.converts_by_text(new)
    }

    /// `converts_to` within the type family, where `Value::coerce` converts exactly.
    pub fn converts_in_family(&self, new: &ColumnDef) -> bool {
        self.widening_or_narrowing(new, false)
    }

    /// True when a column change may give this column definition `new` converting its values
    /// across types as MySQL does, through each value's text (`text::store`): any type to any
    /// other, or a string to another collation, except a binary string into text (its bytes
    /// need not be text) and latin1 stored as bytes (the native client's); the same flags.
    pub fn converts_by_text(&self, new: &ColumnDef) -> bool {
        use ColumnType as T;
        let binary = |c: &ColumnDef| c.ty.is_string() && c.collation == Collation::Binary;
        let latin1_bytes = |c: &ColumnDef| {
            c.ty.is_string()
                && matches!(
                    c.collation,
                    Collation::Latin1SwedishCi | Collation::Latin1Bin
                )
        };
        let bytes_into_text = binary(self) && new.ty.is_string() && !binary(new);
        !bytes_into_text
            && !latin1_bytes(self)
            && !latin1_bytes(new)
            && self.ty != T::Year
            && new.ty != T::Year
            // An ENUM's, SET's or BIT's text is not what it stores.
            && !matches!(self.ty, T::Enum | T::Set | T::Bit { .. })
            && !matches!(new.ty, T::Enum | T::Set | T::Bit { .. })
            && self.auto_increment == new.auto_increment
            && self.hidden == new.hidden
    }

    /// A value of this column as column `new` holds it after a column change: unchanged when
    /// it stores alike, `Value::coerce`'s exact conversion within the family, else MySQL's
    /// through the value's text under strict mode (`text::store_strict`). A value that does
    /// not convert so is an error.
    pub fn convert_value(&self, new: &ColumnDef, v: Value) -> Result<Value> {
        // A spatial column takes only spatial values: those of a column that held other
        // values, or another kind or SRID, are checked.
        let checked = self.geometry_kept(new);
        if v.is_null() || (self.ty == new.ty && self.collation == new.collation && checked) {
            return Ok(v);
        }
        if let (false, Value::Parts(r)) = (checked, &v) {
            return Err(Error::new(
                ErrorCode::BadValue,
                format!(
                    "a value of column '{}' of {} bytes, kept in parts, is not checked against \
                     the spatial kind it would take",
                    new.name, r.len
                ),
            ));
        }
        if let (false, Some(why)) = (checked, crate::text::geometry_refusal(new, &v)) {
            return Err(Error::new(
                ErrorCode::BadValue,
                format!(
                    "a value of column '{}' is no spatial value it takes ({why:?})",
                    new.name
                ),
            ));
        }
        if let Value::Parts(r) = &v {
            // Its bytes are not here: it keeps them only as another column that holds parts
            // with the same bytes (a TEXT or BLOB of another size, the same collation).
            if crate::lob::holds_parts(new.ty) && self.collation == new.collation {
                return v.coerce(new.ty, new.collation, &new.name);
            }
            return Err(Error::new(
                ErrorCode::BadValue,
                format!(
                    "a value of column '{}' of {} bytes, kept in parts, does not convert to {}",
                    new.name,
                    r.len,
                    new.ty.sql_name()
                ),
            ));
        }
        if self.converts_in_family(new) {
            return v.coerce(new.ty, new.collation, &new.name);
        }
        crate::text::store_strict(new, v).map_err(|why| {
            Error::new(
                ErrorCode::BadValue,
                format!(
                    "a value of column '{}' does not convert to {} ({why:?})",
                    new.name,
                    new.ty.sql_name()
                ),
            )
        })
    }

    /// `widens_to` (`widen_only`) or `converts_to`.
    fn widening_or_narrowing(&self, new: &ColumnDef, widen_only: bool) -> bool {
        use ColumnType as T;
        let types = match (self.ty, new.ty) {
            // An ENUM's or SET's stored numbers keep their names only while the members before
            // stay where they are: members may be added at the end.
            (T::Enum, T::Enum) | (T::Set, T::Set) => new.members.starts_with(&self.members),
            (a, b) if a == b => true,
            (
                T::Decimal {
                    precision: p1,
                    scale: s1,
                },
                T::Decimal {
                    precision: p2,
                    scale: s2,
                },
            ) => !widen_only || (s2 >= s1 && p2 - s2 >= p1 - s1),
            (T::Char { length: a }, T::Char { length: b })
            | (T::VarChar { length: a }, T::VarChar { length: b })
            | (T::VarBinary { length: a }, T::VarBinary { length: b }) => !widen_only || b >= a,
            (T::DateTime { fsp: a }, T::DateTime { fsp: b })
            | (T::Timestamp { fsp: a }, T::Timestamp { fsp: b })
            | (T::Time { fsp: a }, T::Time { fsp: b }) => b >= a,
            (a, b) => match (a.integer_range(), b.integer_range()) {
                (Some((lo, hi)), Some((new_lo, new_hi))) => {
                    !widen_only || (new_lo <= lo && new_hi >= hi)
                }
                _ => false,
            },
        };
        types
            && self.collation == new.collation
            && (new.nullable || !self.nullable || !widen_only)
            && self.auto_increment == new.auto_increment
            && self.hidden == new.hidden
    }
}

/// Why a key part cannot be made as a statement gives it (MySQL's 1089, 1391 and 1170).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPartError {
    /// A prefix of a column that is no string.
    NotString,
    /// A prefix longer than the column.
    TooLong,
    /// A prefix of 0.
    Zero,
    /// A TEXT or BLOB column without a prefix in a unique key.
    LobWhole,
    /// A prefix of a TEXT or BLOB column in a unique key past 65,535 bytes (MySQL's 4159),
    /// or past the longest VARCHAR its hidden table can hold.
    PartTooLong,
}

/// The prefix (0: the whole column) an index holds of `column` given `given` (None: none
/// given), by MySQL's rules: a prefix as long as a CHAR, VARCHAR, BINARY or VARBINARY column
/// is the whole column; one of a TEXT or BLOB column is at most the column's length in bytes
/// (counted as characters), and without one the column takes all an ordinary key holds; an
/// ordinary (not unique) key holds at most [`limits::KEY_BYTES_MAX`] bytes of a column, and a
/// longer part is cut to them (MySQL's note 1071: the second value is true then).
pub fn key_part(
    column: &ColumnDef,
    given: Option<u64>,
    unique: bool,
) -> std::result::Result<(u32, bool), KeyPartError> {
    let limit = column.prefix_limit();
    let lob = column.ty.is_lob();
    let per_char = column.collation.charset().max_len() as u64;
    let mut prefix = match (given, limit) {
        (Some(0), _) => return Err(KeyPartError::Zero),
        (Some(_), None) => return Err(KeyPartError::NotString),
        (Some(n), Some(_))
            if lob
                && unique
                && (n.saturating_mul(per_char) > KEY_PART_BYTES_MAX
                    || n > limits::VARCHAR_BYTES_MAX as u64) =>
        {
            return Err(KeyPartError::PartTooLong)
        }
        (Some(n), Some(max)) if lob => n.min(max),
        (Some(n), Some(max)) if n > max => return Err(KeyPartError::TooLong),
        (Some(n), Some(max)) if n == max => 0,
        (Some(n), Some(_)) => n,
        (None, Some(_)) if lob && unique => return Err(KeyPartError::LobWhole),
        (None, Some(max)) if lob => max,
        (None, _) => 0,
    };
    let mut cut = false;
    if let (Some(max), false) = (limit, unique) {
        let held = limits::KEY_BYTES_MAX as u64 / per_char;
        let chars = if prefix == 0 { max } else { prefix };
        if chars > held {
            prefix = held;
            cut = true;
        }
    }
    Ok((prefix as u32, cut))
}

/// An index's prefix lengths as `IndexDef::prefixes` keeps them: empty when no column is cut,
/// so two indexes over whole columns compare equal however they were made.
pub fn kept_prefixes(prefixes: Vec<u32>) -> Vec<u32> {
    if prefixes.iter().any(|p| *p > 0) {
        prefixes
    } else {
        Vec::new()
    }
}

/// The most bytes one key part may take (MySQL's 4159).
const KEY_PART_BYTES_MAX: u64 = 65_535;

/// What an index is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// Unique: a hidden table keyed by the index columns holding the base row's primary key, plus an
    /// ordered index on the same columns for range scans.
    Unique,
    /// Ordered (non-unique): per partition, kept in key order for range scans.
    Ordered,
}

/// One secondary index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    pub name: String,
    pub kind: IndexKind,
    /// Column positions in the base table.
    pub columns: Vec<u16>,
    /// Per column, how much of its values the index holds: the first n characters (bytes for a
    /// binary string), MySQL's `KEY (c(n))`; 0 the whole value. Empty when no column is cut.
    pub prefixes: Vec<u32>,
    /// The hidden index table's id for unique indexes (assigned by the catalog), else 0.
    pub index_table: u32,
}

impl IndexDef {
    /// An index over whole columns.
    pub fn new(name: &str, kind: IndexKind, columns: Vec<u16>) -> IndexDef {
        IndexDef {
            name: name.into(),
            kind,
            columns,
            prefixes: Vec::new(),
            index_table: 0,
        }
    }

    /// The prefix of the index's `i`-th column, None when the index holds whole values.
    pub fn prefix(&self, i: usize) -> Option<u32> {
        self.prefixes.get(i).copied().filter(|p| *p > 0)
    }

    /// Whether some column of the index holds only a prefix of its values: such an index
    /// finds rows by their prefixes, so a reader must check the whole values (a lookup by a
    /// unique one finds the row whose prefixes the key's are).
    pub fn has_prefix(&self) -> bool {
        self.prefixes.iter().any(|p| *p > 0)
    }

    /// The index's values for a row of its table (NULLs kept), each cut to its prefix: what a
    /// unique index's hidden table holds.
    pub fn key_values(&self, table: &TableDef, row: &[Value]) -> Vec<Value> {
        (0..self.columns.len())
            .map(|i| self.cut(table, i, row[self.columns[i] as usize].clone()))
            .collect()
    }

    /// A value of the index's `i`-th column cut to the column's prefix.
    pub fn cut(&self, table: &TableDef, i: usize, value: Value) -> Value {
        match (self.prefix(i), value) {
            (Some(n), Value::Bytes(mut b)) => {
                let column = &table.columns[self.columns[i] as usize];
                b.truncate(column.prefix_of(&b, n).len());
                Value::Bytes(b)
            }
            (_, v) => v,
        }
    }
}

/// Table options: those carried in NDB's `COMMENT="NDB_TABLE=..."` form, and the table's
/// default collation (its `DEFAULT CHARSET`/`COLLATE`; None is MariaDB's utf8mb4_general_ci).
/// The default only decides what new string columns get and what SHOW CREATE TABLE prints: each
/// column carries its own collation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TableOptions {
    pub read_backup: bool,
    pub fully_replicated: bool,
    pub nologging: bool,
    pub collation: Option<Collation>,
}

impl TableOptions {
    /// Whether a committed read of the table may be answered by any replica of its rows (NDB's
    /// READ_BACKUP; a FULLY_REPLICATED table is held whole by every data node of its group).
    pub fn reads_any_replica(&self) -> bool {
        self.read_backup || self.fully_replicated
    }
}

/// A table as the catalog holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    /// Assigned by the catalog; 0 in a create request.
    pub id: u32,
    /// The definition's version, assigned by the catalog: 1 when created, one more after each
    /// change (an index added or dropped, a rename, new options). Every request names the
    /// version it was built against, and the data node refuses it (`SchemaChanged`) when the
    /// table has changed since.
    pub version: u32,
    pub name: String,
    pub columns: Vec<ColumnDef>,
    pub primary_key: Vec<u16>,
    /// A subset of the primary key; rows hash on these columns.
    pub partition_key: Vec<u16>,
    /// 0 in a create request means "one per worker thread".
    pub partition_count: u32,
    pub indexes: Vec<IndexDef>,
    pub options: TableOptions,
    /// For a hidden unique-index table: the base table's id.
    pub index_of: Option<u32>,
    /// The table comment as given (SQL's `COMMENT='...'`); NDB_TABLE= options in it are also
    /// in `options`. At most `TABLE_COMMENT_BYTES_MAX` bytes.
    pub comment: String,
    /// The table's foreign keys (as a child), at most `FOREIGN_KEYS_MAX`.
    pub foreign_keys: Vec<ForeignKeyDef>,
    /// The table's CHECK constraints, at most `CHECKS_MAX`.
    pub checks: Vec<CheckDef>,
}

/// The name of the hidden column added to tables declared without a primary key.
pub const HIDDEN_PK_NAME: &str = "$pk";

impl TableDef {
    /// The bytes a key over `cols` (with `prefixes`, empty or one per column: 0 the whole
    /// value) declares, as MySQL counts them for its 3072-byte limit (`ColumnDef::key_bytes`
    /// summed). Keys past
    /// [`limits::KEY_BYTES_MAX`] are refused, which bounds their encoding on the wire
    /// ([`limits::ENCODED_KEY_BYTES_MAX`]).
    pub fn key_declared_bytes(&self, cols: &[u16], prefixes: &[u32]) -> u64 {
        self.key_parts(cols, prefixes)
            .map(|(col, prefix)| col.key_bytes(prefix))
            .fold(0u64, u64::saturating_add)
    }

    /// A key's columns with their prefixes (0: the whole value).
    fn key_parts<'a>(
        &'a self,
        cols: &'a [u16],
        prefixes: &'a [u32],
    ) -> impl Iterator<Item = (&'a ColumnDef, u32)> + 'a {
        cols.iter()
            .enumerate()
            .filter_map(|(i, c)| Some((self.columns.get(*c as usize)?, prefixes.get(i))))
            .map(|(col, prefix)| (col, prefix.copied().unwrap_or(0)))
    }

    /// Refuses a key (the primary key or an index) of more than [`limits::KEY_BYTES_MAX`]
    /// declared bytes ([`TableDef::key_declared_bytes`]) unless `old`, the definition this one
    /// replaces, has the very same key (same columns by name and type, same prefixes): tables
    /// made before the limit keep working (renamed, altered elsewhere, truncated) and are never
    /// made unreadable, while no new key can pass it.
    pub fn check_key_sizes(&self, old: Option<&TableDef>) -> Result<()> {
        let identity = |def: &TableDef,
                        cols: &[u16],
                        prefixes: &[u32]|
         -> Vec<(String, ColumnType, Collation, u32)> {
            def.key_parts(cols, prefixes)
                .map(|(c, p)| (c.name.to_lowercase(), c.ty, c.collation, p))
                .collect()
        };
        let keys = |def: &TableDef| -> Vec<(String, Vec<u16>, Vec<u32>)> {
            std::iter::once((
                "primary key".to_string(),
                def.primary_key.clone(),
                Vec::new(),
            ))
            .chain(def.indexes.iter().map(|i| {
                (
                    format!("key '{}'", i.name),
                    i.columns.clone(),
                    i.prefixes.clone(),
                )
            }))
            .collect()
        };
        let kept: Vec<_> = old
            .map(|o| keys(o).iter().map(|(_, c, p)| identity(o, c, p)).collect())
            .unwrap_or_default();
        for (what, cols, prefixes) in keys(self) {
            let bytes = self.key_declared_bytes(&cols, &prefixes);
            if bytes > limits::KEY_BYTES_MAX as u64
                && !kept.contains(&identity(self, &cols, &prefixes))
            {
                return Err(Error::new(
                    ErrorCode::BadSchema,
                    format!(
                        "{what} is {bytes} bytes long; a key holds at most {} bytes",
                        limits::KEY_BYTES_MAX
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A create request; `primary_key` empty adds the hidden 8-byte key.
    pub fn new(name: &str, columns: Vec<ColumnDef>, primary_key: &[&str]) -> Result<TableDef> {
        let mut table = TableDef {
            id: 0,
            version: 0,
            name: name.into(),
            columns,
            primary_key: Vec::new(),
            partition_key: Vec::new(),
            partition_count: 0,
            indexes: Vec::new(),
            options: TableOptions::default(),
            index_of: None,
            comment: String::new(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        };
        if primary_key.is_empty() {
            let mut hidden = ColumnDef::new(HIDDEN_PK_NAME, ColumnType::BigInt { unsigned: true });
            hidden.hidden = true;
            table.columns.push(hidden);
            table.primary_key = vec![(table.columns.len() - 1) as u16];
        } else {
            table.primary_key = table.column_positions(primary_key)?;
        }
        table.partition_key = table.primary_key.clone();
        Ok(table)
    }

    /// Adds a unique or ordered index over named columns.
    pub fn with_index(mut self, name: &str, kind: IndexKind, columns: &[&str]) -> Result<TableDef> {
        let columns = self.column_positions(columns)?;
        self.indexes.push(IndexDef::new(name, kind, columns));
        Ok(self)
    }

    /// Cuts the columns of the index added last to prefixes (one per column, 0 the whole
    /// column): `KEY (c(n))`.
    pub fn with_prefixes(mut self, prefixes: &[u32]) -> TableDef {
        if let Some(index) = self.indexes.last_mut() {
            index.prefixes = kept_prefixes(prefixes.to_vec());
        }
        self
    }

    /// Narrows the partition key to named primary-key columns (PARTITION BY KEY).
    pub fn with_partition_key(mut self, columns: &[&str]) -> Result<TableDef> {
        self.partition_key = self.column_positions(columns)?;
        Ok(self)
    }

    pub fn column_positions(&self, names: &[&str]) -> Result<Vec<u16>> {
        names
            .iter()
            .map(|n| {
                self.column(n).map(|p| p as u16).ok_or_else(|| {
                    Error::new(
                        ErrorCode::BadSchema,
                        format!("unknown column '{n}' in table '{}'", self.name),
                    )
                })
            })
            .collect()
    }

    /// The position of a column by name (case-insensitive, as MySQL column names).
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.indexes
            .iter()
            .position(|i| i.name.eq_ignore_ascii_case(name))
    }

    /// The positions in `indexes` of the table's keys after its primary key, in MySQL's order:
    /// unique keys over NOT NULL columns, the other unique keys (whole-column ones before those
    /// holding prefixes, in each of the two), then the rest, each group in the order declared.
    /// The ordered index named PRIMARY (a declared primary key's own) is the primary key, not
    /// one of these. SHOW's key order and HandlerSocket's key numbers follow it.
    pub fn secondary_keys_in_mysql_order(&self) -> Vec<usize> {
        let mut keys: Vec<(u8, usize)> = self
            .indexes
            .iter()
            .enumerate()
            .filter(|(_, index)| !index.name.eq_ignore_ascii_case("PRIMARY"))
            .map(|(at, index)| {
                let unique = index.kind == IndexKind::Unique;
                let nullable = index
                    .columns
                    .iter()
                    .any(|c| self.columns.get(*c as usize).is_some_and(|c| c.nullable));
                let group = match (unique, nullable, index.has_prefix()) {
                    (true, false, false) => 1,
                    (true, false, true) => 2,
                    (true, true, false) => 3,
                    (true, true, true) => 4,
                    _ => 5,
                };
                (group, at)
            })
            .collect();
        // A stable sort keeps the declared order within each group.
        keys.sort_by_key(|(group, _)| *group);
        keys.into_iter().map(|(_, at)| at).collect()
    }

    pub fn has_hidden_pk(&self) -> bool {
        self.primary_key.len() == 1 && self.columns[self.primary_key[0] as usize].hidden
    }

    /// True when column `c` is in the primary key, the partition key or a unique index: its
    /// encoded values place rows and fill the hidden unique tables.
    pub fn column_in_key(&self, c: u16) -> bool {
        self.primary_key.contains(&c)
            || self.partition_key.contains(&c)
            || self
                .indexes
                .iter()
                .any(|i| i.kind == IndexKind::Unique && i.columns.contains(&c))
    }

    /// True when column `c` is in a key (`column_in_key`) or in any index, ordered ones too:
    /// its values are encoded into index keys, so they are kept whole in their row.
    pub fn column_indexed(&self, c: u16) -> bool {
        self.column_in_key(c) || self.indexes.iter().any(|i| i.columns.contains(&c))
    }

    /// True when a column change may give column `c` the definition `new` and copy its values
    /// across: the same type and attributes (the name and default may differ), or, outside
    /// every key, a widening (`ColumnDef::widens_to`).
    pub fn keeps_values(&self, c: u16, new: &ColumnDef) -> bool {
        let was = &self.columns[c as usize];
        (was.stores_as(new) || (!self.column_in_key(c) && was.widens_to(new)))
            && was.geometry_kept(new)
    }

    /// True when a column change may give column `c` the definition `new`, converting its
    /// values when it does not keep them (`keeps_values`): outside every key,
    /// `ColumnDef::converts_to`. A value that does not fit fails the change.
    pub fn converts_values(&self, c: u16, new: &ColumnDef) -> bool {
        self.keeps_values(c, new)
            || (!self.column_in_key(c) && self.columns[c as usize].converts_to(new))
    }

    pub fn auto_increment_column(&self) -> Option<usize> {
        self.columns.iter().position(|c| c.auto_increment)
    }

    /// Checks names, limits and key rules; makes primary-key columns NOT NULL as MySQL does.
    pub fn validate(&mut self) -> Result<()> {
        let bad = |m: String| Err(Error::new(ErrorCode::BadSchema, m));
        check_table_name(&self.name)?;
        if self.comment.len() > limits::TABLE_COMMENT_BYTES_MAX {
            return bad(format!(
                "a table comment has at most {} bytes",
                limits::TABLE_COMMENT_BYTES_MAX
            ));
        }
        if self.columns.is_empty() || self.columns.len() > limits::COLUMNS_MAX {
            return bad(format!("a table has 1..={} columns", limits::COLUMNS_MAX));
        }
        for (i, c) in self.columns.iter().enumerate() {
            if !c.hidden {
                check_column_name(&c.name)?;
            }
            c.ty.validate()?;
            let members_max = match c.ty {
                ColumnType::Enum => limits::ENUM_MEMBERS_MAX,
                ColumnType::Set => 64,
                _ => 0,
            };
            if c.members.len() > members_max
                || (members_max > 0 && c.members.is_empty())
                || c.members
                    .iter()
                    .any(|m| m.len() > limits::ENUM_MEMBER_BYTES_MAX)
            {
                return bad(format!(
                    "column '{}' of type {} may have 1..={members_max} members of at most {} bytes",
                    c.name,
                    c.ty.sql_name(),
                    limits::ENUM_MEMBER_BYTES_MAX
                ));
            }
            if self.columns[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&c.name))
            {
                return bad(format!("duplicate column name '{}'", c.name));
            }
            if c.ty.is_string() {
                let binary_type = matches!(
                    c.ty,
                    ColumnType::Binary { .. }
                        | ColumnType::VarBinary { .. }
                        | ColumnType::Blob { .. }
                );
                if binary_type != (c.collation == Collation::Binary) {
                    return bad(format!(
                        "collation {} does not suit column '{}'",
                        c.collation.name(),
                        c.name
                    ));
                }
            }
            if c.auto_increment && !c.ty.is_integer() {
                return bad(format!(
                    "AUTO_INCREMENT column '{}' must be an integer",
                    c.name
                ));
            }
            if (c.default_now.is_some() || c.on_update_now) && c.ty.datetime_digits().is_none() {
                return bad(format!(
                    "column '{}' takes the current time but is no DATETIME or TIMESTAMP",
                    c.name
                ));
            }
            if c.default_now.is_some_and(|fsp| fsp > 6)
                || (c.default_now.is_some() && c.default.is_some())
            {
                return bad(format!(
                    "column '{}' has a bad current-time default",
                    c.name
                ));
            }
        }
        if self.columns.iter().filter(|c| c.auto_increment).count() > 1 {
            return bad("only one AUTO_INCREMENT column per table".into());
        }
        let n = self.columns.len();
        let check_key = |cols: &[u16], prefixes: &[u32], what: &str| -> Result<()> {
            if cols.is_empty() || cols.len() > limits::KEY_COLUMNS_MAX {
                return bad(format!(
                    "{what} has 1..={} columns",
                    limits::KEY_COLUMNS_MAX
                ));
            }
            if !prefixes.is_empty() && prefixes.len() != cols.len() {
                return bad(format!("{what} has a prefix length for some columns only"));
            }
            for (i, c) in cols.iter().enumerate() {
                let Some(col) = self.columns.get(*c as usize) else {
                    return bad(format!("{what} names column {c} of {n}"));
                };
                let prefix = prefixes.get(i).copied().unwrap_or(0);
                if prefix > 0 && col.prefix_limit().is_none_or(|max| u64::from(prefix) > max) {
                    return bad(format!(
                        "{what} cannot take a prefix of {prefix} of column '{}'",
                        col.name
                    ));
                }
                if col.ty.is_lob() && prefix == 0 {
                    return bad(format!(
                        "{what} needs a prefix length for TEXT/BLOB column '{}'",
                        col.name
                    ));
                }
                if cols[..i].contains(c) {
                    return bad(format!("{what} repeats column '{}'", col.name));
                }
            }
            Ok(())
        };
        check_key(&self.primary_key, &[], "primary key")?;
        check_key(&self.partition_key, &[], "partition key")?;
        if !self
            .partition_key
            .iter()
            .all(|c| self.primary_key.contains(c))
        {
            return bad("partition key columns must be part of the primary key".into());
        }
        if self.indexes.len() > limits::INDEXES_MAX {
            return bad(format!("at most {} indexes per table", limits::INDEXES_MAX));
        }
        for (i, index) in self.indexes.iter().enumerate() {
            check_name(&index.name, "index")?;
            check_key(
                &index.columns,
                &index.prefixes,
                &format!("index '{}'", index.name),
            )?;
            if self.indexes[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&index.name))
            {
                return bad(format!("duplicate index name '{}'", index.name));
            }
        }
        if self.foreign_keys.len() > limits::FOREIGN_KEYS_MAX {
            return bad(format!(
                "at most {} foreign keys per table",
                limits::FOREIGN_KEYS_MAX
            ));
        }
        for (i, fk) in self.foreign_keys.iter().enumerate() {
            fk.validate(self.columns.len())?;
            if self.foreign_keys[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&fk.name))
            {
                return bad(format!("duplicate foreign key name '{}'", fk.name));
            }
        }
        if self.checks.len() > limits::CHECKS_MAX {
            return bad(format!(
                "at most {} CHECK constraints per table",
                limits::CHECKS_MAX
            ));
        }
        for (i, check) in self.checks.iter().enumerate() {
            check.validate(self.columns.len())?;
            if self.checks[..i]
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(&check.name))
            {
                return bad(format!("duplicate CHECK constraint name '{}'", check.name));
            }
        }
        if self.partition_count > limits::PARTITIONS_MAX {
            return bad(format!("at most {} partitions", limits::PARTITIONS_MAX));
        }
        if let Some(ai) = self.auto_increment_column() {
            let keyed = self.primary_key.first() == Some(&(ai as u16))
                || self
                    .indexes
                    .iter()
                    .any(|i| i.columns.first() == Some(&(ai as u16)));
            if !keyed {
                return bad("an AUTO_INCREMENT column must be the first column of a key".into());
            }
        }
        for pk in &self.primary_key {
            self.columns[*pk as usize].nullable = false;
        }
        Ok(())
    }

    /// The hidden table implementing unique index `index`: keyed and partitioned by the index
    /// columns, holding the base row's primary key.
    pub fn unique_index_table(&self, index: &IndexDef) -> TableDef {
        let mut columns: Vec<ColumnDef> = index
            .columns
            .iter()
            .map(|c| self.columns[*c as usize].clone())
            .collect();
        for (i, c) in columns.iter_mut().enumerate() {
            c.auto_increment = false;
            c.default = None;
            c.default_now = None;
            c.on_update_now = false;
            c.nullable = false;
            if let Some(length) = index.prefix(i) {
                // The hidden table holds the prefixes: unique among themselves, as MySQL's
                // unique prefix index.
                c.ty = if c.collation == Collation::Binary {
                    ColumnType::VarBinary { length }
                } else {
                    ColumnType::VarChar { length }
                };
            }
        }
        let key_len = columns.len() as u16;
        for pk in &self.primary_key {
            let mut c = self.columns[*pk as usize].clone();
            c.name = format!("$base${}", c.name);
            c.auto_increment = false;
            c.hidden = false;
            c.default = None;
            c.default_now = None;
            c.on_update_now = false;
            columns.push(c);
        }
        TableDef {
            id: 0,
            version: 1,
            name: format!("{}$unique${}", self.name, index.name),
            columns,
            primary_key: (0..key_len).collect(),
            partition_key: (0..key_len).collect(),
            partition_count: self.partition_count,
            indexes: Vec::new(),
            options: self.options,
            index_of: Some(self.id),
            comment: String::new(),
            foreign_keys: Vec::new(),
            checks: Vec::new(),
        }
    }

    /// Appends the key encoding of `values` (one per column of `columns`, canonical form).
    pub fn encode_key(&self, columns: &[u16], values: &[Value], out: &mut Vec<u8>) {
        for (c, v) in columns.iter().zip(values) {
            let col = &self.columns[*c as usize];
            key::encode_value(v, col.ty, col.collation, out);
        }
    }
}

/// A table name is `table` or `database/table` (how SQL's databases are kept); each part is
/// checked as a name.
fn check_table_name(name: &str) -> Result<()> {
    match name.split_once('/') {
        Some((database, table)) => {
            check_name(database, "database")?;
            check_name(table, "table")
        }
        None => check_name(name, "table"),
    }
}

/// The start of the names of tables the front ends keep for themselves (the SQL front end's
/// accounts, `cairn_sql_users`). No front end opens one on a client's behalf.
pub const INTERNAL_TABLE_PREFIX: &str = "cairn_";

/// The start of the hidden names of the SQL front end's temporary tables (internal tables).
pub const TEMPORARY_TABLE_PREFIX: &str = "cairn_tmp_";

/// Whether `name` is a table the front ends keep for themselves, or a hidden table (a unique
/// index's): neither is a client's to open by name.
pub fn is_internal_table(name: &str) -> bool {
    name.starts_with(INTERNAL_TABLE_PREFIX) || name.contains('$')
}

/// Checks a database name (1..=64 bytes, no '$' or '/').
pub fn check_database_name(name: &str) -> Result<()> {
    check_name(name, "database")
}

fn check_name(name: &str, what: &str) -> Result<()> {
    if name.contains('/') {
        return Err(Error::new(
            ErrorCode::BadSchema,
            format!("{what} name '{name}' must not contain '/'"),
        ));
    }
    check_column_name(name).map_err(|_| {
        Error::new(
            ErrorCode::BadSchema,
            format!(
                "{what} name '{name}' must be 1..={} bytes without '$'",
                limits::NAME_BYTES_MAX
            ),
        )
    })
}

/// Checks a column name (1..=64 bytes, no '$'; a '/' is a column's to have, as in MariaDB:
/// only database and table names are joined with it).
fn check_column_name(name: &str) -> Result<()> {
    let what = "column";
    if name.is_empty() || name.len() > limits::NAME_BYTES_MAX || name.contains('$') {
        return Err(Error::new(
            ErrorCode::BadSchema,
            format!(
                "{what} name '{name}' must be 1..={} bytes without '$'",
                limits::NAME_BYTES_MAX
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_widens_only_to_types_holding_every_value() {
        use ColumnType as T;
        let col = |ty| ColumnDef::new("c", ty);
        let widens = |a: T, b: T| col(a).widens_to(&col(b));
        assert!(widens(
            T::Int { unsigned: false },
            T::BigInt { unsigned: false }
        ));
        assert!(widens(
            T::SmallInt { unsigned: true },
            T::Int { unsigned: false }
        ));
        assert!(!widens(
            T::Int { unsigned: true },
            T::Int { unsigned: false }
        ));
        assert!(!widens(
            T::BigInt { unsigned: false },
            T::Int { unsigned: false }
        ));
        assert!(widens(
            T::Decimal {
                precision: 5,
                scale: 2
            },
            T::Decimal {
                precision: 8,
                scale: 3
            }
        ));
        assert!(!widens(
            T::Decimal {
                precision: 5,
                scale: 2
            },
            T::Decimal {
                precision: 6,
                scale: 4
            }
        ));
        assert!(widens(
            T::VarChar { length: 10 },
            T::VarChar { length: 300 }
        ));
        assert!(!widens(T::VarChar { length: 10 }, T::VarChar { length: 9 }));
        assert!(!widens(T::Char { length: 4 }, T::VarChar { length: 8 }));
        assert!(!widens(T::Binary { length: 4 }, T::Binary { length: 8 }));
        assert!(!widens(T::Float, T::Double));
        assert!(widens(T::DateTime { fsp: 0 }, T::DateTime { fsp: 3 }));
        assert!(!widens(T::DateTime { fsp: 3 }, T::Timestamp { fsp: 3 }));
        assert!(!widens(
            T::Int { unsigned: false },
            T::VarChar { length: 20 }
        ));
        let text = col(T::VarChar { length: 4 });
        assert!(!text.widens_to(&col(T::VarChar { length: 8 }).collation(Collation::Utf8mb4Bin)));
        assert!(
            col(T::Int { unsigned: false }).widens_to(&col(T::Int { unsigned: false }).nullable())
        );
        assert!(!col(T::Int { unsigned: false })
            .nullable()
            .widens_to(&col(T::Int { unsigned: false })));
        assert!(!col(T::Int { unsigned: false })
            .auto_increment()
            .widens_to(&col(T::BigInt { unsigned: false })));
    }

    #[test]
    fn a_column_converts_within_its_type_family() {
        use ColumnType as T;
        let col = |ty| ColumnDef::new("c", ty);
        let converts = |a: T, b: T| col(a).converts_to(&col(b));
        assert!(converts(
            T::BigInt { unsigned: false },
            T::TinyInt { unsigned: true }
        ));
        assert!(converts(
            T::Decimal {
                precision: 8,
                scale: 3
            },
            T::Decimal {
                precision: 2,
                scale: 2
            }
        ));
        assert!(converts(
            T::VarChar { length: 20 },
            T::VarChar { length: 2 }
        ));
        assert!(converts(
            T::VarBinary { length: 20 },
            T::VarBinary { length: 2 }
        ));
        assert!(col(T::Int { unsigned: false })
            .nullable()
            .converts_to(&col(T::Int { unsigned: false })));
        // Another family, collation or fraction precision converts through the value's text.
        let in_family = |a: T, b: T| col(a).converts_in_family(&col(b));
        for (a, b) in [
            (T::VarChar { length: 20 }, T::Int { unsigned: false }),
            (T::VarChar { length: 3 }, T::Char { length: 3 }),
            (T::DateTime { fsp: 3 }, T::DateTime { fsp: 0 }),
            (T::Date, T::VarChar { length: 10 }),
            (T::Float, T::Double),
        ] {
            assert!(!in_family(a, b) && converts(a, b), "{a:?} to {b:?}");
        }
        assert!(col(T::VarChar { length: 4 })
            .converts_to(&col(T::VarChar { length: 2 }).collation(Collation::Utf8mb4Bin)));
        // Bytes do not become text, nor does latin1 kept as bytes take part.
        let bytes = col(T::VarBinary { length: 4 }).collation(Collation::Binary);
        assert!(!bytes.converts_to(&col(T::VarChar { length: 4 })));
        assert!(col(T::VarChar { length: 4 }).converts_to(&bytes));
        assert!(!col(T::VarChar { length: 4 })
            .converts_to(&col(T::VarChar { length: 4 }).collation(Collation::Latin1SwedishCi)));
        // The values: exact within the family, MySQL's text conversion across.
        let int = col(T::Int { unsigned: false });
        let text = col(T::VarChar { length: 5 });
        assert_eq!(
            text.convert_value(&int, Value::from("42")).unwrap(),
            Value::Int(42)
        );
        assert_eq!(
            int.convert_value(&text, Value::Int(-7)).unwrap(),
            Value::from("-7")
        );
        assert_eq!(
            col(T::Double)
                .convert_value(&int, Value::Double(2.5))
                .unwrap(),
            Value::Int(2)
        );
        assert!(col(T::BigInt { unsigned: false })
            .convert_value(&col(T::TinyInt { unsigned: false }), Value::Int(300))
            .is_err());
        let latin1 = col(T::VarChar { length: 5 }).collation(Collation::Latin1TextSwedishCi);
        assert!(text.convert_value(&latin1, Value::from("é")).is_ok());
        assert!(text.convert_value(&latin1, Value::from("Ā")).is_err());
        // Strict mode's refusals: text that is no number, a string too long for a CHAR.
        assert!(text.convert_value(&int, Value::from("abc")).is_err());
        assert!(text.convert_value(&int, Value::from("12abc")).is_err());
        assert!(int
            .convert_value(&col(T::Char { length: 2 }), Value::Int(12345))
            .is_err());
        // A key column keeps its type.
        let t = TableDef::new(
            "t",
            vec![
                ColumnDef::new("k", T::Int { unsigned: false }),
                ColumnDef::new("v", T::Int { unsigned: false }).nullable(),
            ],
            &["k"],
        )
        .unwrap();
        assert!(!t.converts_values(0, &ColumnDef::new("k", T::SmallInt { unsigned: false })));
        assert!(t.converts_values(1, &ColumnDef::new("v", T::SmallInt { unsigned: false })));
    }

    #[test]
    fn hidden_primary_key_and_validation() {
        let mut t = TableDef::new(
            "t",
            vec![ColumnDef::new("a", ColumnType::Int { unsigned: false })],
            &[],
        )
        .unwrap();
        t.validate().unwrap();
        assert!(t.has_hidden_pk());
        let mut bad =
            TableDef::new("t", vec![ColumnDef::new("a", ColumnType::TEXT)], &["a"]).unwrap();
        assert_eq!(bad.validate().unwrap_err().code, ErrorCode::BadSchema);
    }

    #[test]
    fn keys_past_3072_declared_bytes_are_refused_unless_kept_from_before() {
        let text = |n| ColumnDef::new("k", ColumnType::VarChar { length: n });
        let id = || ColumnDef::new("id", ColumnType::Int { unsigned: false });
        let fits = TableDef::new("t", vec![text(768)], &["k"]).unwrap();
        assert_eq!(fits.key_declared_bytes(&fits.primary_key, &[]), 3072);
        fits.check_key_sizes(None).unwrap();
        let long = TableDef::new("t", vec![text(769)], &["k"]).unwrap();
        let e = long.check_key_sizes(None).unwrap_err();
        assert!(
            e.message.contains("primary key is 3076 bytes"),
            "{}",
            e.message
        );
        // A table made before the limit keeps its key through changes that leave it as it is,
        // but no change may make one.
        long.check_key_sizes(Some(&long)).unwrap();
        long.check_key_sizes(Some(&fits)).unwrap_err();
        let unique = TableDef::new("u", vec![id(), text(1000)], &["id"])
            .unwrap()
            .with_index("k", IndexKind::Unique, &["k"])
            .unwrap();
        assert!(unique.check_key_sizes(None).is_err());
        let cut = unique.clone().with_prefixes(&[768]);
        cut.check_key_sizes(None).unwrap();
        let binary = TableDef::new(
            "b",
            vec![ColumnDef::new("k", ColumnType::VarBinary { length: 3072 })
                .collation(Collation::Binary)],
            &["k"],
        )
        .unwrap();
        binary.check_key_sizes(None).unwrap();
    }
}
