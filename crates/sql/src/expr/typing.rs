//! Result types: the MySQL type, display length and decimals of a column type or of any
//! compiled expression (`static_type`, which result-set metadata announces), and the type MySQL
//! aggregates over the branches of CASE, IF, IFNULL, COALESCE, GREATEST and LEAST
//! (`unify_branches`, which casts the branches to it when a SELECT is planned).

use base::types::ColumnType;
use base::Value;
use myproto::response::types;

use crate::expr::aggregate::{AggKind, Aggregate};
use crate::expr::funcs::Func;
use crate::expr::window::WindowFn as W;
use crate::expr::{BinOp, Compiler, Expr};

/// The system variables `SELECT @@name` announces as integer (BIGINT) columns: the numbers and
/// booleans of `session/variables.rs`'s list, which a test there keeps equal to this one (the
/// list itself reads the session, a layer above).
pub(crate) const INTEGER_VARIABLES: &[&str] = &[
    "autocommit",
    "cairn_aggregate_pushdown",
    "cairn_join_pushdown",
    "check_constraint_checks",
    "connect_timeout",
    "div_precision_increment",
    "error_count",
    "explicit_defaults_for_timestamp",
    "foreign_key_checks",
    "group_concat_max_len",
    "interactive_timeout",
    "lower_case_table_names",
    "max_allowed_packet",
    "max_connections",
    "max_error_count",
    "max_execution_time",
    "max_prepared_stmt_count",
    "max_recursive_iterations",
    "net_buffer_length",
    "net_read_timeout",
    "net_write_timeout",
    "performance_schema",
    "protocol_version",
    "query_cache_size",
    "query_cache_type",
    "sql_auto_is_null",
    "transaction_read_only",
    "tx_read_only",
    "wait_timeout",
    "warning_count",
];

/// Whether `SELECT @@name` is an integer column (`name` as written, with `@@` and any scope).
pub(crate) fn integer_variable(name: &str) -> bool {
    INTEGER_VARIABLES
        .binary_search(&crate::parse::variable_name(name).as_str())
        .is_ok()
}

/// The static result type of an expression: (MySQL type code, display length, decimals, flags).
pub fn static_type(
    e: &Expr,
    def: Option<&base::TableDef>,
    aggregates: &[Aggregate],
) -> (u8, u32, u8) {
    use Expr::*;
    match e {
        Cast(_inner, to) => {
            use crate::expr::CastTo as C;
            let fraction = |f: u8| if f > 0 { f as u32 + 1 } else { 0 };
            match *to {
                C::Signed | C::Unsigned => (types::LONGLONG, 21, 0),
                C::Char(n) | C::Binary(n) => {
                    (types::VAR_STRING, n.unwrap_or(255).saturating_mul(4), 31)
                }
                C::Date => (types::DATE, 10, 0),
                C::DateTime(f) => (types::DATETIME, 19 + fraction(f), f),
                C::Time(f) => (types::TIME, 10 + fraction(f), f),
                C::Decimal(p, s) => (types::NEWDECIMAL, p as u32 + 1 + u32::from(s > 0), s),
                C::Double => (types::DOUBLE, 22, 31),
                C::Charset(_) | C::Latin1Bytes => (types::VAR_STRING, 255 * 4, 31),
                C::Json => crate::expr::funcs::json::CAST_TYPE,
                C::Shown(f) => (types::VAR_STRING, (19 + fraction(f)) * 4, 31),
                C::Introduced(_) => match &**_inner {
                    Const(Value::Bytes(b)) => (types::VAR_STRING, b.len() as u32 * 4, 31),
                    _ => (types::VAR_STRING, 255 * 4, 31),
                },
            }
        }
        Const(v) => match v {
            Value::Int(i) => (types::LONGLONG, i.to_string().len() as u32, 0),
            Value::UInt(u) => (types::LONGLONG, u.to_string().len() as u32, 0),
            Value::Decimal(d) => (types::NEWDECIMAL, d.to_string().len() as u32, d.scale),
            Value::Double(_) | Value::Float(_) => (types::DOUBLE, 22, 31),
            Value::Null => (types::NULL, 0, 0),
            Value::Bytes(b) => (types::VAR_STRING, b.len() as u32 * 4, 31),
            Value::Date(_) => (types::DATE, 10, 0),
            Value::DateTime(_) => (types::DATETIME, 19, 0),
            Value::Time(_) => (types::TIME, 10, 0),
            Value::Year(_) => (types::YEAR, 4, 0),
            Value::Parts(r) => (types::VAR_STRING, r.len as u32, 63),
        },
        Column(p) => match def.map(|d| d.columns[*p].ty) {
            // A bare ENUM or SET column is its number (read as names it is `Members`).
            Some(ColumnType::Enum | ColumnType::Set) => (types::LONGLONG, 20, 0),
            // FLOAT(M,D) and DOUBLE(M,D) keep their D digits through arithmetic.
            Some(ty @ (ColumnType::Float | ColumnType::Double))
                if def.is_some_and(|d| d.columns[*p].scale.is_some()) =>
            {
                let c = &def.expect("checked").columns[*p];
                let (code, _, _) = column_type_code(ty);
                (code, u32::from(c.display_width), c.scale.unwrap_or(31))
            }
            Some(ty) => column_type_code(ty),
            None => (types::VAR_STRING, 255, 31),
        },
        Var(name) if integer_variable(name) => (types::LONGLONG, 21, 0),
        Param(_) | Var(_) | Outer(_) => (types::VAR_STRING, 1024, 31),
        Correlated { ty, .. } => *ty,
        Session(f) => match f {
            crate::expr::SessionFn::ConnectionId
            | crate::expr::SessionFn::LastInsertId
            | crate::expr::SessionFn::FoundRows
            | crate::expr::SessionFn::RowCount => (types::LONGLONG, 21, 0),
            _ => (types::VAR_STRING, 256, 31),
        },
        Agg(i) => match aggregates.get(*i) {
            Some(a) => match a.kind {
                AggKind::Count => (types::LONGLONG, 21, 0),
                AggKind::Sum | AggKind::Avg => {
                    let inner = a
                        .arg
                        .as_ref()
                        .map(|x| static_type(x, def, aggregates))
                        .unwrap_or((types::LONGLONG, 21, 0));
                    match inner.0 {
                        types::DOUBLE
                        | types::FLOAT
                        | types::VAR_STRING
                        | types::STRING
                        | types::BLOB => (types::DOUBLE, 23, 31),
                        _ => {
                            let scale = if a.kind == AggKind::Avg {
                                inner.2.min(30) + 4
                            } else {
                                inner.2
                            };
                            (types::NEWDECIMAL, 33 + scale as u32, scale)
                        }
                    }
                }
                AggKind::Window(W::PercentRank | W::CumeDist) => (types::DOUBLE, 23, 31),
                AggKind::Window(W::RowNumber | W::Rank | W::DenseRank | W::Ntile) => {
                    (types::LONGLONG, 21, 0)
                }
                AggKind::Min | AggKind::Max | AggKind::Window(_) => a
                    .arg
                    .as_ref()
                    .map(|x| static_type(x, def, aggregates))
                    .unwrap_or((types::NULL, 0, 0)),
                // As MariaDB types it at its default group_concat_max_len (more than 512
                // characters: a BLOB of 16 bytes per byte kept); a session's own setting does
                // not change the announced type.
                AggKind::GroupConcat | AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => (
                    types::BLOB,
                    (crate::foundation::limits::GROUP_CONCAT_MAX_LEN_DEFAULT * 16)
                        .min(u32::MAX as usize) as u32,
                    0,
                ),
            },
            None => (types::NULL, 0, 0),
        },
        Not(_) | IsNull(..) | Between(..) | In(..) | IntIn(..) | Like(..) => {
            (types::LONGLONG, 1, 0)
        }
        Neg(x) | Collate(x, _) | Collated(_, x) => static_type(x, def, aggregates),
        Members { members, .. } => {
            let longest = members.iter().map(|m| m.chars().count()).max().unwrap_or(0);
            (types::VAR_STRING, (longest as u32).saturating_mul(4), 31)
        }
        Binary(op, l, r) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
                let (a, b) = (
                    static_type(l, def, aggregates),
                    static_type(r, def, aggregates),
                );
                let is_int = |t: (u8, u32, u8)| {
                    matches!(
                        t.0,
                        types::TINY
                            | types::SHORT
                            | types::INT24
                            | types::LONG
                            | types::LONGLONG
                            | types::YEAR
                            | types::BIT
                    )
                };
                let is_exact = |t: (u8, u32, u8)| is_int(t) || t.0 == types::NEWDECIMAL;
                if !is_exact(a) || !is_exact(b) {
                    // A double keeps the larger declared precision of its operands (PI() has
                    // 6 decimals), division 4 more, as MariaDB; 31 means none declared.
                    let decimals = a.2.max(b.2);
                    let decimals = if *op == BinOp::Div {
                        decimals.saturating_add(4)
                    } else {
                        decimals
                    };
                    (types::DOUBLE, 23, decimals.min(31))
                } else if *op == BinOp::Div {
                    let scale = (a.2 + 4).min(30);
                    (types::NEWDECIMAL, a.1 + b.2 as u32 + 6, scale)
                } else if is_int(a) && is_int(b) {
                    (types::LONGLONG, 21, 0)
                } else {
                    let scale = if *op == BinOp::Mul {
                        a.2 + b.2
                    } else {
                        a.2.max(b.2)
                    };
                    (types::NEWDECIMAL, a.1.max(b.1) + 2, scale.min(30))
                }
            }
            BinOp::IntDiv => (types::LONGLONG, 21, 0),
            _ => (types::LONGLONG, 1, 0),
        },
        Case {
            whens, otherwise, ..
        } => aggregate_type(
            whens
                .iter()
                .map(|(_, t)| t)
                .chain(otherwise.as_deref())
                .map(|b| branch_type(b, def, aggregates)),
        ),
        Call(Func::Temporal(t), args) => {
            crate::expr::temporal::result_type(*t, args, &|a| static_type(a, def, aggregates))
        }
        Call(
            f @ (Func::Str(_) | Func::Math(_) | Func::Json(_) | Func::Misc(_) | Func::Spatial(_)),
            args,
        ) => crate::expr::funcs::result_type(*f, args, &|a| static_type(a, def, aggregates))
            .unwrap_or((types::VAR_STRING, 1024, 31)),
        Call(f, args) => match f {
            Func::Length | Func::CharLength | Func::Sign => (types::LONGLONG, 10, 0),
            Func::Mod => {
                let (a, b) = (
                    static_type(&args[0], def, aggregates),
                    static_type(&args[1], def, aggregates),
                );
                match (class_of(a), class_of(b)) {
                    (Class::Int, Class::Int) => (types::LONGLONG, a.1.max(b.1), 0),
                    (Class::Int | Class::Decimal(_), Class::Int | Class::Decimal(_)) => {
                        (types::NEWDECIMAL, a.1.max(b.1), a.2.max(b.2))
                    }
                    _ => (types::DOUBLE, 22, 31),
                }
            }
            Func::Abs | Func::Floor | Func::Ceiling | Func::Round => {
                let t = static_type(&args[0], def, aggregates);
                if class_of(t) == Class::String {
                    // A string argument is read as a number: a DOUBLE, as MariaDB.
                    return (types::DOUBLE, 22, 31);
                }
                match (f, t.0) {
                    (Func::Floor | Func::Ceiling, types::NEWDECIMAL) => {
                        // A whole number: BIGINT, or past 18 digits a DECIMAL without
                        // decimals (its value may pass BIGINT UNSIGNED), as MariaDB types it.
                        // Its digits: the length (p + 1, + 1 with a point) - 1 - s, that is
                        // p - s, one more when a fraction can carry into them.
                        let whole = t.1.saturating_sub(1 + u32::from(t.2));
                        if whole > 18 {
                            let max = u32::from(base::limits::DECIMAL_PRECISION_MAX);
                            (types::NEWDECIMAL, whole.min(max) + 1, 0)
                        } else {
                            (types::LONGLONG, whole + 1, 0)
                        }
                    }
                    (Func::Round, types::NEWDECIMAL) => {
                        // Digits not known before the row: the argument's scale, as MariaDB.
                        let digits = match args.get(1) {
                            Some(Const(Value::Int(d))) => (*d).clamp(0, 30) as u8,
                            Some(Const(_)) | None => 0,
                            Some(_) => t.2,
                        };
                        (types::NEWDECIMAL, t.1, digits)
                    }
                    _ => t,
                }
            }
            Func::IfNull | Func::Coalesce => {
                aggregate_type(args.iter().map(|a| branch_type(a, def, aggregates)))
            }
            Func::Greatest | Func::Least | Func::NullIf => args
                .iter()
                .map(|a| static_type(a, def, aggregates))
                .find(|t| t.0 != types::NULL)
                .unwrap_or((types::NULL, 0, 0)),
            Func::If => aggregate_type(args[1..].iter().map(|a| branch_type(a, def, aggregates))),
            _ => (types::VAR_STRING, 1024, 31),
        },
    }
}

/// The static type of a branch for the aggregation of its function's type; None for a `?` or
/// a user variable, whose type is not known when the plan is made.
fn branch_type(
    b: &Expr,
    def: Option<&base::TableDef>,
    aggregates: &[Aggregate],
) -> Option<(u8, u32, u8)> {
    match b {
        Expr::Param(_) | Expr::Var(_) => None,
        _ => Some(static_type(b, def, aggregates)),
    }
}

/// The type of a CASE, IF, IFNULL or COALESCE over branches of these types (None: not known):
/// a string when one is a string, else the first that is not NULL ([`unify_branches`] has
/// made numeric branches alike), else a string when one is not known.
fn aggregate_type(branches: impl Iterator<Item = Option<(u8, u32, u8)>>) -> (u8, u32, u8) {
    let mut first = None;
    let mut string: Option<u32> = None;
    let mut unknown = false;
    for t in branches {
        let Some(t) = t else {
            unknown = true;
            continue;
        };
        if class_of(t) == Class::String {
            string = Some(string.unwrap_or(0).max(t.1));
        }
        if first.is_none() && t.0 != types::NULL {
            first = Some(t);
        }
    }
    match (string, first) {
        (Some(len), Some(f)) if class_of(f) != Class::String => {
            (types::VAR_STRING, len.max(f.1), 31)
        }
        (_, Some(f)) => f,
        (_, None) if unknown => (types::VAR_STRING, 1024, 31),
        (_, None) => (types::NULL, 0, 0),
    }
}

/// The class of a static type, for [`unify_branches`].
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Null,
    Int,
    Decimal(u8),
    Double,
    String,
    Date,
    DateTime(u8),
    Time,
    Other,
}

fn class_of(t: (u8, u32, u8)) -> Class {
    match t.0 {
        types::NULL => Class::Null,
        types::TINY | types::SHORT | types::INT24 | types::LONG | types::LONGLONG | types::BIT => {
            Class::Int
        }
        types::NEWDECIMAL => Class::Decimal(t.2),
        types::DOUBLE | types::FLOAT => Class::Double,
        types::VAR_STRING | types::STRING | types::BLOB => Class::String,
        types::DATE => Class::Date,
        types::DATETIME | types::TIMESTAMP => Class::DateTime(t.2.min(6)),
        types::TIME => Class::Time,
        _ => Class::Other,
    }
}

/// The value branches of a CASE, IF, IFNULL, COALESCE, GREATEST or LEAST, whose result type
/// MySQL aggregates over them, and whether they are compared (GREATEST, LEAST); None for other
/// nodes.
fn branches_mut(e: &mut Expr) -> Option<(Vec<&mut Expr>, bool)> {
    match e {
        Expr::Case {
            whens, otherwise, ..
        } => Some((
            whens
                .iter_mut()
                .map(|(_, t)| t)
                .chain(otherwise.iter_mut().map(|o| &mut **o))
                .collect(),
            false,
        )),
        Expr::Call(
            f @ (Func::If | Func::IfNull | Func::Coalesce | Func::Greatest | Func::Least),
            args,
        ) => {
            let skip = usize::from(*f == Func::If);
            let compared = matches!(f, Func::Greatest | Func::Least);
            Some((args.iter_mut().skip(skip).collect(), compared))
        }
        _ => None,
    }
}

/// Gives the branches of CASE, IF, IFNULL, COALESCE, GREATEST and LEAST the type MySQL
/// aggregates for them, so values show and sort as MariaDB's do: integers with decimals become
/// DECIMAL at the largest scale (`IF(c, 2, 3.50)` gives 2.00); with a double, DOUBLE; DATE
/// with DATETIME, DATETIME. A string among numbers makes the numbers strings (of the first
/// string's collation), but for GREATEST and LEAST, which compare them as numbers (DOUBLE), or
/// as the date among them when there is one.
pub fn unify_branches(e: &mut Expr, def: Option<&base::TableDef>, c: &Compiler) {
    use crate::expr::CastTo;
    for child in e.children_mut() {
        unify_branches(child, def, c);
    }
    let aggregates = c.aggregates.as_deref().unwrap_or(&[]);
    show_temporal_arguments(e, def, aggregates);
    let Some((branches, compared)) = branches_mut(e) else {
        return;
    };
    let classes: Vec<Class> = branches
        .iter()
        .map(|b| branch_type(b, def, aggregates).map_or(Class::Null, class_of))
        .collect();
    let (mut scale, mut double, mut string, mut number) = (None::<u8>, false, false, false);
    let (mut date, mut datetime, mut time) = (false, None::<u8>, false);
    for class in &classes {
        match *class {
            Class::Null => {}
            Class::Int => number = true,
            Class::Decimal(s) => {
                number = true;
                scale = Some(scale.map_or(s, |m| m.max(s)));
            }
            Class::Double => {
                number = true;
                double = true;
            }
            Class::String => string = true,
            Class::Date => date = true,
            Class::DateTime(f) => datetime = Some(datetime.map_or(f, |m| m.max(f))),
            Class::Time => time = true,
            Class::Other => return,
        }
    }
    let temporal = date || datetime.is_some();
    if (temporal || time) && (string || number) && !compared {
        // The result is a string: dates and times in it show their fraction digits, numbers
        // become text of the first string's collation (utf8mb4_general_ci without one).
        let first = branches
            .iter()
            .zip(&classes)
            .find(|(_, class)| **class == Class::String)
            .map(|(b, _)| c.sort_collation(b));
        let numbers_to = match first {
            None => CastTo::Char(None),
            Some(Ok(collation)) => CastTo::Charset(collation),
            Some(Err(_)) => return,
        };
        for (b, class) in branches.into_iter().zip(classes) {
            match class {
                Class::Date | Class::DateTime(_) | Class::Time => show_as_text(b, def, aggregates),
                Class::Int | Class::Decimal(_) | Class::Double => {
                    let inner = std::mem::replace(b, Expr::Const(Value::Null));
                    *b = Expr::Cast(Box::new(inner), numbers_to);
                }
                _ => {}
            }
        }
        return;
    }
    if time {
        return;
    }
    let target = if temporal {
        if number {
            return;
        }
        match datetime {
            Some(f) => CastTo::DateTime(f),
            None => CastTo::Date,
        }
    } else if string {
        if !number {
            return;
        }
        if compared {
            CastTo::Double
        } else {
            let first = branches
                .iter()
                .zip(&classes)
                .find(|(_, class)| **class == Class::String)
                .map(|(b, _)| c.sort_collation(b));
            match first {
                Some(Ok(collation)) => CastTo::Charset(collation),
                _ => return,
            }
        }
    } else if double {
        CastTo::Double
    } else if let Some(s) = scale {
        // As many digits as an expression may yield, so a branch of 65 whole digits keeps
        // them beside another's decimals (MariaDB keeps them too).
        CastTo::Decimal(base::limits::DECIMAL_RESULT_DIGITS_MAX as u8, s.min(30))
    } else {
        return;
    };
    for (b, class) in branches.into_iter().zip(classes) {
        let wrap = match (class, target) {
            (Class::Null, _) => false,
            (Class::Decimal(s), CastTo::Decimal(_, t)) => s < t,
            (Class::Double, CastTo::Double) => false,
            (Class::Int | Class::Decimal(_) | Class::Double, _) => true,
            (Class::String, CastTo::Double | CastTo::Date | CastTo::DateTime(_)) => true,
            (Class::Date, CastTo::DateTime(_)) => true,
            _ => false,
        };
        if wrap {
            let inner = std::mem::replace(b, Expr::Const(Value::Null));
            *b = Expr::Cast(Box::new(inner), target);
        }
    }
}

/// Wraps the date-and-time arguments the string functions read as text (CONCAT, LENGTH, UPPER,
/// SUBSTRING's string, CAST AS CHAR, ...) so they show their type's fraction digits, as in
/// MariaDB: `CONCAT(c)` of a DATETIME(2) column is `2000-01-01 00:00:00.00`.
fn show_temporal_arguments(e: &mut Expr, def: Option<&base::TableDef>, aggregates: &[Aggregate]) {
    use crate::expr::CastTo;
    let args: Vec<&mut Expr> = match e {
        Expr::Call(
            Func::Concat
            | Func::ConcatWs
            | Func::Length
            | Func::CharLength
            | Func::Upper
            | Func::Lower
            | Func::Reverse
            | Func::Trim
            | Func::Ltrim
            | Func::Rtrim,
            args,
        ) => args.iter_mut().collect(),
        Expr::Call(
            Func::Substring | Func::Left | Func::Right | Func::Replace | Func::Repeat,
            args,
        ) => args.iter_mut().take(1).collect(),
        Expr::Cast(inner, CastTo::Char(_) | CastTo::Charset(_)) => vec![&mut **inner],
        // The values JSON functions put into documents (a date or time as a JSON string).
        Expr::Call(Func::Json(f), args) => {
            let n = args.len();
            let f = *f;
            args.iter_mut()
                .enumerate()
                .filter(|(i, _)| f.takes_value_at(*i, n))
                .map(|(_, a)| a)
                .collect()
        }
        _ => return,
    };
    for a in args {
        show_as_text(a, def, aggregates);
    }
}

/// `e` as text with its fraction digits when its type is DATETIME, TIMESTAMP or TIME.
fn show_as_text(e: &mut Expr, def: Option<&base::TableDef>, aggregates: &[Aggregate]) {
    let (code, _, decimals) = static_type(e, def, aggregates);
    if matches!(code, types::DATETIME | types::TIMESTAMP | types::TIME) && decimals <= 6 {
        let inner = std::mem::replace(e, Expr::Const(Value::Null));
        *e = Expr::Cast(Box::new(inner), crate::expr::CastTo::Shown(decimals));
    }
}

/// The most digits a DECIMAL made by [`unify_branches`] holds (a column's most).
pub(crate) const DECIMAL_DIGITS_MAX: u8 = base::limits::DECIMAL_PRECISION_MAX;

/// MySQL's type code, display length and decimals for a column type.
pub fn column_type_code(ty: ColumnType) -> (u8, u32, u8) {
    match ty {
        ColumnType::TinyInt { .. } => (types::TINY, 4, 0),
        ColumnType::SmallInt { .. } => (types::SHORT, 6, 0),
        ColumnType::MediumInt { .. } => (types::INT24, 9, 0),
        ColumnType::Int { .. } => (types::LONG, 11, 0),
        ColumnType::BigInt { .. } => (types::LONGLONG, 20, 0),
        ColumnType::Float => (types::FLOAT, 12, 31),
        ColumnType::Double => (types::DOUBLE, 22, 31),
        // The digits, a sign, and a point when there is a fraction, as MariaDB counts them.
        ColumnType::Decimal { precision, scale } => (
            types::NEWDECIMAL,
            precision as u32 + 1 + u32::from(scale > 0),
            scale,
        ),
        ColumnType::Char { length } => (types::STRING, length * 4, 0),
        ColumnType::Binary { length } => (types::STRING, length, 0),
        ColumnType::VarChar { length } => (types::VAR_STRING, length * 4, 0),
        ColumnType::VarBinary { length } => (types::VAR_STRING, length, 0),
        ColumnType::Text { size } => (
            types::BLOB,
            (size.declared_bytes() * 4).min(u32::MAX.into()) as u32,
            0,
        ),
        ColumnType::Blob { size } => (types::BLOB, size.declared_bytes() as u32, 0),
        ColumnType::Date => (types::DATE, 10, 0),
        ColumnType::DateTime { fsp } => (types::DATETIME, 19 + fsp as u32 + (fsp > 0) as u32, fsp),
        ColumnType::Timestamp { fsp } => {
            (types::TIMESTAMP, 19 + fsp as u32 + (fsp > 0) as u32, fsp)
        }
        ColumnType::Time { fsp } => (types::TIME, 10 + fsp as u32 + (fsp > 0) as u32, fsp),
        ColumnType::Year => (types::YEAR, 4, 0),
        ColumnType::Bit { width } => (types::BIT, u32::from(width), 0),
        // MySQL's ENUM and SET travel as strings (their flags say which); the length is their
        // longest member's, which expr/meta.rs sets.
        ColumnType::Enum | ColumnType::Set => (types::STRING, 0, 0),
    }
}
