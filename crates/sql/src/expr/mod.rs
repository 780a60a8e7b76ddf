//! Compiled SQL expressions: sqlparser's AST resolved against a table's columns and the
//! statement's `?` parameters into a small tree, evaluated with MySQL's semantics (three-valued
//! logic, numeric and string comparison rules, integer overflow errors, DECIMAL division), and
//! typed statically for result-set metadata.

pub(crate) mod aggregate;
pub(crate) mod cast;
pub(crate) mod collate;
mod compile;
pub(crate) use compile::column_expr;
pub(crate) mod correlated;
mod eval;
pub(crate) mod funcs;
pub(crate) mod meta;
pub(crate) mod stored;
pub(crate) mod temporal;
pub(crate) mod typing;
pub(crate) mod window;

use std::cmp::Ordering;

use base::types::Collation;
use base::value::Decimal;
use base::{TableDef, Value};
use sqlparser::ast::{self, Expr as Ast};
use sqlparser::tokenizer::Location;

use crate::expr::aggregate::Aggregate;
pub use crate::expr::cast::CastTo;
use crate::expr::funcs::Func;
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// MySQL's div_precision_increment: digits a division adds to the dividend's scale.
const DIV_PRECISION_INCREMENT: u8 = 4;
/// The largest DECIMAL scale MySQL keeps.
pub(crate) const DECIMAL_SCALE_MAX: u8 = 30;
/// The decimals MariaDB keeps of a DECIMAL product or quotient (its DECIMAL_MAX_SCALE).
const RESULT_SCALE_MAX: u8 = 38;

/// An expression ready to evaluate.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Const(Value),
    /// A column of the input row, by position in it.
    Column(usize),
    /// Planning a join only: a column of the tables joined before the one being planned, by
    /// position in the joined row (a value fixed for each of those rows, so usable as a key).
    Outer(usize),
    /// A `?` parameter, by its order in the statement text.
    Param(usize),
    /// The value of aggregate `n` of the current group.
    Agg(usize),
    /// A system variable (`@@name`).
    Var(String),
    Session(SessionFn),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    /// An ENUM or SET column's value as its members' names (it is stored as their number),
    /// which it is wherever a string is read; comparisons with constants and arithmetic read
    /// the number under it.
    Members {
        value: Box<Expr>,
        members: std::sync::Arc<[String]>,
        set: bool,
    },
    Binary(BinOp, Box<Expr>, Box<Expr>),
    IsNull(Box<Expr>, bool),
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool),
    In(Box<Expr>, Vec<Expr>, bool),
    /// An IN list of integer constants (made by the planner of a long `In` once it has read
    /// its facts, `integer_in_lists`): an integer value is looked up by halves in the list's
    /// numbers, sorted; any other value is compared with the list as `In` compares.
    IntIn(Box<Expr>, Vec<Expr>, std::sync::Arc<[i128]>, bool),
    Like(Box<Expr>, Box<Expr>, bool),
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Call(Func, Vec<Expr>),
    /// CAST(e AS type), CONVERT(e, type).
    Cast(Box<Expr>, CastTo),
    /// `e COLLATE c`: the value of `e`, compared under `c` wherever it meets other strings.
    Collate(Box<Expr>, Collation),
    /// A comparison (or a function that compares strings) whose strings compare under a
    /// collation other than utf8mb4_general_ci, as derived from its operands (`expr/collate.rs`).
    Collated(Collation, Box<Expr>),
    /// Correlated subquery `n` of the running statement (`exec/subquery.rs`), given the values of
    /// `args` (the outer row's columns it names; for IN, first the value looked for): its
    /// result, run beforehand for the row and read from the session. `ty` is its result type.
    Correlated {
        n: usize,
        args: Vec<Expr>,
        ty: (u8, u32, u8),
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    And,
    Or,
    Xor,
    Eq,
    NullSafeEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
}

impl BinOp {
    /// =, <=>, <>, <, <=, >, >=.
    pub(crate) fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq
                | BinOp::NullSafeEq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
        )
    }
}

/// Two compared operands' values, an ENUM's or SET's read as its number when the other is a
/// number (a parameter's, which planning could not see), as MySQL compares them.
fn numbered_pair(l: &Expr, r: &Expr, env: &Env) -> Result<(Value, Value)> {
    use crate::expr::funcs::json::json_as_text;
    let (a, b) = (l.eval(env)?, r.eval(env)?);
    let a = match l {
        Expr::Members { value, .. } if is_number(&b) => value.eval(env)?,
        _ => json_as_text(l, a, &b, env)?,
    };
    let b = match r {
        Expr::Members { value, .. } if is_number(&a) => value.eval(env)?,
        _ => json_as_text(r, b, &a, env)?,
    };
    Ok((a, b))
}

/// Whether `v` is a number (not a string, date or time).
pub(crate) fn is_number(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_)
    )
}

/// An ENUM's or SET's stored number as the names it stands for (NULL stays NULL).
pub(crate) fn member_names(v: &Value, members: &[String], set: bool) -> Value {
    let Value::UInt(n) = v else {
        return v.clone();
    };
    if !set {
        let name = n
            .checked_sub(1)
            .and_then(|i| members.get(i as usize))
            .map_or("", |m| m.as_str());
        return Value::Bytes(name.as_bytes().to_vec());
    }
    let names: Vec<&str> = members
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && n >> i & 1 == 1)
        .map(|(_, m)| m.as_str())
        .collect();
    Value::Bytes(names.join(",").into_bytes())
}

/// The longest SLEEP (a year).
pub(crate) const SLEEP_SECONDS_MAX: f64 = 365.0 * 24.0 * 3600.0;

/// Values that come from the session, not the row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionFn {
    Database,
    Version,
    ConnectionId,
    /// USER(): the name the client gave and the host it connects from.
    User,
    /// CURRENT_USER(): the account the session authenticated as.
    CurrentUser,
    LastInsertId,
    FoundRows,
    RowCount,
}

/// What evaluation reads besides the row: parameters, aggregates, session state.
pub struct Env<'a> {
    pub row: &'a [Value],
    pub params: &'a [Value],
    pub aggs: &'a [Value],
    pub ctx: &'a dyn Context,
}

/// The session as expressions see it.
pub trait Context {
    fn variable(&self, name: &str) -> Value;
    fn session(&self, f: SessionFn) -> Value;
    /// When the running statement started (Unix microseconds): NOW()'s value.
    fn statement_micros(&self) -> i64 {
        crate::expr::temporal::wall_clock_micros()
    }
    /// The result of correlated subquery `n` for these argument values (and the parameters
    /// of the level it stands at), if it was run.
    fn correlated(&self, _n: usize, _params: &[Value], _args: &[Value]) -> Option<Result<Value>> {
        None
    }
    /// A division (`/`, DIV, `%`, MOD) by zero, whose value is NULL: an error when the value
    /// is being stored (strict mode's ERROR_FOR_DIVISION_BY_ZERO), else warning 1365.
    fn division_by_zero(&self) -> Result<()> {
        Ok(())
    }
    /// A warning for the running statement (SHOW WARNINGS); a context without a session drops it.
    fn warn(&self, _code: u16, _message: String) {}
    /// SLEEP: waits `seconds` on the session's thread; an error when the statement must stop
    /// first (KILL, or the client went away).
    fn sleep(&self, seconds: f64) -> Result<()> {
        std::thread::sleep(std::time::Duration::from_secs_f64(
            seconds.min(SLEEP_SECONDS_MAX),
        ));
        Ok(())
    }
    /// Whether the running statement must stop (KILL, or the client went away): looked at by
    /// statements that wait (GET_LOCK), a tenth of a second at a time.
    fn interrupted(&self) -> Result<()> {
        Ok(())
    }
    /// Who holds named locks taken here (the session's id); None: no session, and the lock
    /// functions are NULL.
    fn lock_owner(&self) -> Option<u32> {
        None
    }
    /// RAND's next value: from the session's generator (None), or from the generator of the
    /// RAND(n) call at a place in the plan, seeded with n at its first call in the statement.
    /// A context without a session draws from a new generator each time.
    fn random(&self, seed: Option<(usize, u32)>) -> f64 {
        match seed {
            Some((_, n)) => crate::expr::funcs::Rng::seeded(n).next(),
            None => crate::expr::funcs::system_rng().next(),
        }
    }
    /// A string read as a number (`kind`: DOUBLE, DECIMAL, INTEGER) that is not one whole, as
    /// [`number_rest`] tells: MariaDB's 1292, a note when only spaces follow the number, else a
    /// warning, or strict mode's error when the value is being stored.
    fn truncated(&self, _kind: &str, _text: &[u8], _spaces_only: bool) -> Result<()> {
        Ok(())
    }
}

/// How `text` reads as a number of `kind` (an INTEGER has no point nor exponent): None when it
/// is one whole (spaces before it allowed), Some(true) when only spaces follow the number,
/// Some(false) when anything else does or there is no number.
pub(crate) fn number_rest(text: &[u8], integer: bool) -> Option<bool> {
    let digits = |at: usize| text[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut at = text.iter().take_while(|b| b.is_ascii_whitespace()).count();
    if matches!(text.get(at), Some(b'+' | b'-')) {
        at += 1;
    }
    let whole = digits(at);
    at += whole;
    let mut fraction = 0;
    if !integer && text.get(at) == Some(&b'.') {
        fraction = digits(at + 1);
        at += 1 + fraction;
    }
    if whole + fraction == 0 {
        return Some(false);
    }
    if !integer && matches!(text.get(at), Some(b'e' | b'E')) {
        let mut e = at + 1;
        if matches!(text.get(e), Some(b'+' | b'-')) {
            e += 1;
        }
        match digits(e) {
            0 => return Some(false),
            n => at = e + n,
        }
    }
    match &text[at..] {
        [] => None,
        rest => Some(rest.iter().all(|b| *b == b' ')),
    }
}

/// Raises [`Context::truncated`] for `v` when it is a string that is not one whole number.
fn check_number(env: &Env, v: &Value, kind: &str) -> Result<()> {
    if let Value::Bytes(text) = v {
        if let Some(spaces_only) = number_rest(text, kind == "INTEGER") {
            env.ctx.truncated(kind, text, spaces_only)?;
        }
    }
    Ok(())
}

/// Whether `e` divides (`/`, DIV, `%`, MOD) anywhere.
pub(crate) fn divides(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        found |= matches!(x, Expr::Binary(BinOp::Div | BinOp::IntDiv | BinOp::Mod, ..))
    });
    found
}

/// Whether `l op r` divides by zero (its value is NULL).
pub(crate) fn divides_by_zero(op: BinOp, l: &Value, r: &Value) -> bool {
    matches!(op, BinOp::Div | BinOp::IntDiv | BinOp::Mod)
        && !l.is_null()
        && !r.is_null()
        && dbl(num(r)) == 0.0
}

/// A table a statement reads, as expressions name it.
pub struct Scope<'a> {
    pub def: &'a TableDef,
    /// The name columns may be qualified with (the alias, or the table's name).
    pub name: &'a str,
    pub database: &'a str,
    /// Where its columns start in the input row (0 but for the later tables of a join).
    pub offset: usize,
}

/// A select item an ORDER BY expression may name by its alias (`Compiler::item_aliases`).
pub struct ItemAlias {
    pub alias: String,
    pub expr: Expr,
    /// It holds an aggregate (1247 where named) or a window function (4074 inside an
    /// aggregate's arguments).
    pub aggregate: bool,
    pub window: bool,
}

impl ItemAlias {
    /// The aliased select items (`items`: names and aliases; `exprs`: compiled) as `c`, with
    /// its aggregates, compiled them.
    pub(crate) fn of(
        items: &[(String, Option<String>)],
        exprs: &[Expr],
        c: &Compiler,
    ) -> Vec<Self> {
        let aggregates = c.aggregates.as_deref().unwrap_or(&[]);
        let holds = |e: &Expr, window: bool| {
            let mut found = false;
            e.walk(&mut |x| {
                if let Expr::Agg(i) = x {
                    found |= aggregates.get(*i).is_some_and(|a| a.is_window() == window);
                }
            });
            found
        };
        items
            .iter()
            .zip(exprs)
            .filter_map(|((_, a), e)| {
                Some(ItemAlias {
                    alias: a.clone()?,
                    expr: e.clone(),
                    aggregate: holds(e, false),
                    window: holds(e, true),
                })
            })
            .collect()
    }
}

/// Resolves AST expressions: columns against the scope, `?` by position in the statement text,
/// aggregates (when allowed) into `aggregates`.
pub struct Compiler<'a> {
    /// The tables columns resolve against (several for a join).
    pub scopes: Vec<Scope<'a>>,
    /// INSERT ... ON DUPLICATE KEY UPDATE: the scope `VALUES(column)` reads (the row the
    /// INSERT would have added).
    pub inserted: Option<usize>,
    /// Where each `?` of the statement starts, in text order.
    pub placeholders: &'a [Location],
    /// Some: aggregate calls are allowed and collected here.
    pub aggregates: Option<Vec<Aggregate>>,
    /// Where column names are being resolved, for ER_BAD_FIELD_ERROR ("field list", ...).
    pub place: &'static str,
    /// Unqualified names of a join's USING columns, each with the one position it names.
    pub coalesced: Vec<(String, usize)>,
    /// Some: window functions are allowed (the select list, ORDER BY), with the SELECT's
    /// named windows.
    pub windows: Option<Vec<(String, ast::NamedWindowExpr)>>,
    /// An aggregate's arguments are being compiled (a window function there is refused).
    pub group_arguments: bool,
    /// The select items' aliases and compiled expressions, which an unqualified name no table
    /// column answers to names inside an ORDER BY expression (`ORDER BY CONCAT(alias, 'x')`;
    /// a table's column of that name comes first, as in MariaDB).
    pub item_aliases: Vec<ItemAlias>,
}

/// DATE '...', TIME '...', TIMESTAMP '...': the literal as a value of its type (ER 1525 when
/// the text is not one).
fn typed_literal(ts: &ast::TypedString) -> Result<Expr> {
    use base::types::ColumnType as T;
    let text = match &ts.value.value {
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => s.clone(),
        other => return Err(SqlError::unsupported(format!("the literal {other}"))),
    };
    let (ty, name) = match &ts.data_type {
        ast::DataType::Date => (T::Date, "DATE"),
        ast::DataType::Time(..) => (T::Time { fsp: 6 }, "TIME"),
        ast::DataType::Timestamp(..) | ast::DataType::Datetime(_) => {
            (T::DateTime { fsp: 6 }, "DATETIME")
        }
        other => return Err(SqlError::unsupported(format!("a {other} literal"))),
    };
    base::text::from_text(&base::schema::ColumnDef::new("", ty), Some(text.as_bytes()))
        .map(Expr::Const)
        .map_err(|_| SqlError::new(1525, "HY000", format!("Incorrect {name} value: '{text}'")))
}

pub(crate) fn wrong_arguments(name: &str) -> SqlError {
    SqlError::new(
        1582,
        "42000",
        format!(
            "Incorrect parameter count in the call to native function '{}'",
            name.to_ascii_uppercase()
        ),
    )
}

/// `x IS [NOT] TRUE/FALSE` as an expression that is never NULL.
fn truth(e: Expr, want: bool, negated: bool) -> Expr {
    let is = if want {
        Expr::Call(
            Func::IfNull,
            vec![
                Expr::Not(Box::new(Expr::Not(Box::new(e)))),
                Expr::Const(Value::Int(0)),
            ],
        )
    } else {
        Expr::Call(
            Func::IfNull,
            vec![Expr::Not(Box::new(e)), Expr::Const(Value::Int(0))],
        )
    };
    if negated {
        Expr::Not(Box::new(is))
    } else {
        is
    }
}

/// The bytes hex digits stand for, an odd count read as if led by a 0; None when another
/// character is among them.
fn hex_bytes(digits: &[u8]) -> Option<Vec<u8>> {
    // Each byte's value as a hex digit, 0x10 and above for any other byte: one lookup a digit
    // and one test at the end (literals run to megabytes).
    const NIBBLE: [u8; 256] = {
        let mut t = [0xFF; 256];
        let mut i = 0;
        while i < 10 {
            t[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            t[b'a' as usize + i] = 10 + i as u8;
            t[b'A' as usize + i] = 10 + i as u8;
            i += 1;
        }
        t
    };
    let (first, rest) = digits.split_at(digits.len() % 2);
    let mut out = Vec::with_capacity(digits.len().div_ceil(2));
    let mut bad = 0u8;
    if let [d] = first {
        let n = NIBBLE[usize::from(*d)];
        bad |= n;
        out.push(n);
    }
    out.extend(rest.chunks_exact(2).map(|pair| {
        let (hi, lo) = (NIBBLE[usize::from(pair[0])], NIBBLE[usize::from(pair[1])]);
        bad |= hi | lo;
        hi << 4 | lo
    }));
    (bad < 0x10).then_some(out)
}

/// A SQL literal's value.
pub fn literal(v: &ast::Value) -> Result<Value> {
    Ok(match v {
        ast::Value::Number(n, _) => number(n)?,
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
            Value::Bytes(s.clone().into_bytes())
        }
        // An odd count of digits reads as if led by a 0 (`0x414` is 0x0414, as MariaDB reads
        // it); anything but hex digits is a syntax error.
        ast::Value::HexStringLiteral(h) => Value::Bytes(
            hex_bytes(h.as_bytes()).ok_or_else(|| SqlError::parse(format!("near 'X'{h}''")))?,
        ),
        ast::Value::SingleQuotedByteStringLiteral(bits) => bit_literal(bits)?,
        ast::Value::Boolean(b) => Value::Int(*b as i64),
        ast::Value::Null => Value::Null,
        other => return Err(SqlError::unsupported(format!("the literal {other}"))),
    })
}

/// A comparison of row values spelled with single values, as MySQL compares rows: `(a, b) =
/// (x, y)` is `a = x AND b = y` (so NULL where no pair is unequal and one is unknown), `<>`
/// its negation, `<`, `<=`, `>`, `>=` in order of the first pair that differs, and `(a, b) IN
/// ((x, y), ...)` one equality per row, ORed. None when `e` is no such comparison; 1241 for
/// rows of different sizes or a row where one value belongs.
fn row_values(e: &Ast) -> Result<Option<Ast>> {
    use ast::BinaryOperator as B;
    let size = |n: usize| {
        SqlError::new(
            1241,
            "21000",
            format!("Operand should contain {n} column(s)"),
        )
    };
    let both = |l: &Ast, op: B, r: &Ast| Ast::BinaryOp {
        left: Box::new(l.clone()),
        op,
        right: Box::new(r.clone()),
    };
    let nested = |e: Ast| Ast::Nested(Box::new(e));
    let all = |parts: Vec<Ast>, op: B| {
        parts
            .into_iter()
            .reduce(|a, b| nested(both(&a, op.clone(), &b)))
    };
    let equal = |l: &[Ast], r: &[Ast]| -> Result<Ast> {
        if l.len() != r.len() {
            return Err(size(l.len()));
        }
        let pairs = l.iter().zip(r).map(|(a, b)| both(a, B::Eq, b)).collect();
        all(pairs, B::And).ok_or_else(|| size(l.len()))
    };
    let row = |e: &Ast| match e {
        Ast::Tuple(items) => Some(items.clone()),
        Ast::Nested(inner) => match &**inner {
            Ast::Tuple(items) => Some(items.clone()),
            _ => None,
        },
        _ => None,
    };
    match e {
        Ast::BinaryOp { left, op, right } => {
            let (Some(l), Some(r)) = (row(left), row(right)) else {
                if row(left).is_some() || row(right).is_some() {
                    let n = row(left).or_else(|| row(right)).map_or(1, |r| r.len());
                    return Err(size(n));
                }
                return Ok(None);
            };
            if l.len() != r.len() {
                return Err(size(l.len()));
            }
            let not = |e: Ast| Ast::UnaryOp {
                op: ast::UnaryOperator::Not,
                expr: Box::new(nested(e)),
            };
            Ok(Some(match op {
                B::Eq => nested(equal(&l, &r)?),
                B::NotEq => not(equal(&l, &r)?),
                B::Lt | B::LtEq | B::Gt | B::GtEq => {
                    // The first pair that differs decides; all equal, `<=` and `>=` hold.
                    let strict = match op {
                        B::Lt | B::LtEq => B::Lt,
                        _ => B::Gt,
                    };
                    let mut alternatives = Vec::new();
                    for i in 0..l.len() {
                        let mut parts: Vec<Ast> =
                            (0..i).map(|j| both(&l[j], B::Eq, &r[j])).collect();
                        parts.push(both(&l[i], strict.clone(), &r[i]));
                        alternatives.push(all(parts, B::And).ok_or_else(|| size(l.len()))?);
                    }
                    if matches!(op, B::LtEq | B::GtEq) {
                        alternatives.push(equal(&l, &r)?);
                    }
                    nested(all(alternatives, B::Or).ok_or_else(|| size(l.len()))?)
                }
                _ => return Err(size(1)),
            }))
        }
        Ast::InList {
            expr,
            list,
            negated,
        } => {
            let Some(l) = row(expr) else {
                return Ok(None);
            };
            let mut alternatives = Vec::with_capacity(list.len());
            for item in list {
                let r = row(item).ok_or_else(|| size(l.len()))?;
                alternatives.push(nested(equal(&l, &r)?));
            }
            let any = nested(all(alternatives, B::Or).ok_or_else(|| size(l.len()))?);
            Ok(Some(if *negated {
                Ast::UnaryOp {
                    op: ast::UnaryOperator::Not,
                    expr: Box::new(any),
                }
            } else {
                any
            }))
        }
        // A row where one value belongs.
        Ast::Tuple(_) => Err(size(1)),
        _ => Ok(None),
    }
}

/// `b'0101'`: the bits as bytes, big-endian, as few as hold them (`b''` is no bytes), as
/// MySQL reads a bit literal where a string is wanted.
fn bit_literal(bits: &str) -> Result<Value> {
    if !bits.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(SqlError::parse(format!("bad bit literal b'{bits}'")));
    }
    let digits = bits.as_bytes();
    let mut bytes = Vec::with_capacity(digits.len().div_ceil(8));
    let first = digits.len() % 8;
    let mut chunks: Vec<&[u8]> = Vec::new();
    if first > 0 {
        chunks.push(&digits[..first]);
    }
    chunks.extend(digits[first..].chunks(8));
    for chunk in chunks {
        bytes.push(chunk.iter().fold(0u8, |n, d| n << 1 | (d - b'0')));
    }
    Ok(Value::Bytes(bytes))
}

/// A numeric literal: integer, DECIMAL when it has a point, DOUBLE with an exponent.
pub(crate) fn number(n: &str) -> Result<Value> {
    if let Ok(i) = n.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(u) = n.parse::<u64>() {
        return Ok(Value::UInt(u));
    }
    if !n.contains(['e', 'E']) {
        if let Some(d) = Decimal::parse(n) {
            return Ok(Value::Decimal(d));
        }
    }
    n.parse()
        .map(Value::Double)
        .map_err(|_| SqlError::parse(format!("bad number {n}")))
}

pub(crate) fn negate(v: Value) -> Result<Value> {
    Ok(match v {
        Value::Null => Value::Null,
        Value::Int(i) => match i.checked_neg() {
            Some(n) => Value::Int(n),
            None => return Err(out_of_range(&format!("-({i})"))),
        },
        Value::UInt(u) if u <= i64::MAX as u64 + 1 => Value::Int((u as i128).wrapping_neg() as i64),
        Value::UInt(u) => return Err(out_of_range(&format!("-({u})"))),
        Value::Decimal(d) => Value::Decimal(Decimal::new(-d.mantissa(), d.scale)),
        Value::Double(d) => Value::Double(-d),
        Value::Float(f) => Value::Double(-(f as f64)),
        other => Value::Double(-as_double(&other)),
    })
}

pub(crate) fn out_of_range(what: &str) -> SqlError {
    SqlError::new(
        1690,
        "22003",
        format!("BIGINT value is out of range in '{what}'"),
    )
}

/// SQL truth: NULL is unknown (None).
pub fn truth_value(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Decimal(d) => Some(!d.is_zero()),
        other => Some(as_double(other) != 0.0),
    }
}

pub fn truthy(v: &Value) -> bool {
    truth_value(v) == Some(true)
}

fn bool_value(b: bool) -> Value {
    Value::Int(b as i64)
}

/// A value as a double, strings by their leading number (as MySQL, which warns).
pub fn as_double(v: &Value) -> f64 {
    base::text::number_value(v)
}

/// A number for arithmetic, in the most exact kind that holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Num {
    Int(i128),
    Dec(Decimal),
    Dbl(f64),
}

pub(crate) fn num(v: &Value) -> Num {
    match v {
        Value::Int(i) => Num::Int(*i as i128),
        Value::UInt(u) => Num::Int(*u as i128),
        Value::Decimal(d) => Num::Dec(*d),
        Value::Year(y) => Num::Int(*y as i128),
        other => Num::Dbl(as_double(other)),
    }
}

pub(crate) fn dec(n: Num) -> Decimal {
    match n {
        Num::Int(i) => Decimal::new_small(i, 0),
        Num::Dec(d) => d,
        Num::Dbl(f) => Decimal::parse(&format!("{f:.6}")).unwrap_or(Decimal::new(0, 0)),
    }
}

pub(crate) fn dbl(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Dec(d) => d.to_f64(),
        Num::Dbl(f) => f,
    }
}

/// Whether a number is zero (a DECIMAL without making a double of it).
fn is_zero(n: Num) -> bool {
    match n {
        Num::Int(i) => i == 0,
        Num::Dec(d) => d.is_zero(),
        Num::Dbl(f) => f == 0.0,
    }
}

/// An integer result: BIGINT, or BIGINT UNSIGNED above its range, else out of range.
pub(crate) fn int_value(i: i128, what: impl FnOnce() -> String) -> Result<Value> {
    if let Ok(v) = i64::try_from(i) {
        Ok(Value::Int(v))
    } else if let Ok(v) = u64::try_from(i) {
        Ok(Value::UInt(v))
    } else {
        Err(out_of_range(&what()))
    }
}

/// A DECIMAL result, or 1690 past the digits an expression may yield.
#[inline]
fn dec_value(d: Decimal) -> Result<Value> {
    // 128 bits hold at most 39 digits.
    match d.small() {
        Some(_) => Ok(Value::Decimal(d)),
        None => wide_dec_value(d),
    }
}

/// `x + y` (`x - y` when `subtract`) as a DECIMAL result: 1690 past what it may hold.
pub(crate) fn dec_add(x: Decimal, y: Decimal, subtract: bool) -> Result<Value> {
    match x.add(y, subtract) {
        Some(sum) => dec_value(sum),
        None => Err(SqlError::new(
            1690,
            "22003",
            "DECIMAL value is out of range",
        )),
    }
}

#[cold]
fn wide_dec_value(d: Decimal) -> Result<Value> {
    if d.digits() > base::limits::DECIMAL_RESULT_DIGITS_MAX {
        return Err(SqlError::new(
            1690,
            "22003",
            "DECIMAL value is out of range",
        ));
    }
    Ok(Value::Decimal(d))
}

pub(crate) fn arithmetic(op: BinOp, l: &Value, r: &Value) -> Result<Value> {
    if l.is_null() || r.is_null() {
        return Ok(Value::Null);
    }
    let (a, b) = (num(l), num(r));
    let what = || format!("{l} {} {r}", op_text(op));
    match (a, b, op) {
        (_, _, BinOp::Div) => {
            if is_zero(b) {
                return Ok(Value::Null);
            }
            if let (Num::Dbl(_), _) | (_, Num::Dbl(_)) = (a, b) {
                return Ok(Value::Double(dbl(a) / dbl(b)));
            }
            let (x, y) = (dec(a), dec(b));
            let scale = (x.scale + DIV_PRECISION_INCREMENT).min(RESULT_SCALE_MAX);
            let q = x
                .div(y, scale)
                .ok_or_else(|| SqlError::new(1690, "22003", "DECIMAL value is out of range"))?;
            dec_value(q)
        }
        (_, _, BinOp::IntDiv) => {
            if is_zero(b) {
                return Ok(Value::Null);
            }
            match (a, b) {
                (Num::Int(x), Num::Int(y)) => int_value(x / y, what),
                _ => {
                    let q = (dbl(a) / dbl(b)).trunc();
                    int_value(q as i128, what)
                }
            }
        }
        (_, _, BinOp::Mod) => {
            if is_zero(b) {
                return Ok(Value::Null);
            }
            match (a, b) {
                (Num::Int(x), Num::Int(y)) => int_value(x % y, what),
                (Num::Dbl(_), _) | (_, Num::Dbl(_)) => Ok(Value::Double(dbl(a) % dbl(b))),
                _ => {
                    let (x, y) = (dec(a), dec(b));
                    let s = x.scale.max(y.scale);
                    let (x, y) = (rescaled(x, s)?, rescaled(y, s)?);
                    dec_value(Decimal::new(x.mantissa() % y.mantissa(), s))
                }
            }
        }
        (Num::Int(x), Num::Int(y), _) => {
            let v = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                _ => x.checked_mul(y).ok_or_else(|| out_of_range(&what()))?,
            };
            // Signed arithmetic overflows BIGINT unless an operand is unsigned.
            let unsigned = matches!(l, Value::UInt(_)) || matches!(r, Value::UInt(_));
            if !unsigned && i64::try_from(v).is_err() {
                return Err(out_of_range(&what()));
            }
            if unsigned && v < 0 {
                return Err(SqlError::new(
                    1690,
                    "22003",
                    format!("BIGINT UNSIGNED value is out of range in '{}'", what()),
                ));
            }
            if unsigned {
                // Stays unsigned, so an operation on it checks its sign in turn (MySQL's).
                return u64::try_from(v)
                    .map(Value::UInt)
                    .map_err(|_| out_of_range(&what()));
            }
            int_value(v, what)
        }
        (Num::Dbl(_), _, _) | (_, Num::Dbl(_), _) => {
            let (x, y) = (dbl(a), dbl(b));
            Ok(Value::Double(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                _ => x * y,
            }))
        }
        _ => {
            let (x, y) = (dec(a), dec(b));
            let overflow = || SqlError::new(1690, "22003", "DECIMAL value is out of range");
            match op {
                BinOp::Mul => dec_value(x.mul(y, RESULT_SCALE_MAX).ok_or_else(overflow)?),
                _ => dec_add(x, y, op == BinOp::Sub),
            }
        }
    }
}

fn rescaled(d: Decimal, scale: u8) -> Result<Decimal> {
    d.rescale(scale)
        .ok_or_else(|| SqlError::new(1690, "22003", "DECIMAL value is out of range"))
}

pub(crate) fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::IntDiv => "DIV",
        BinOp::Mod => "%",
        BinOp::Eq => "=",
        BinOp::NullSafeEq => "<=>",
        BinOp::Ne => "<>",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        _ => "?",
    }
}

fn is_text(v: &Value) -> bool {
    matches!(v, Value::Bytes(_))
}

fn is_temporal(v: &Value) -> bool {
    matches!(v, Value::Date(_) | Value::DateTime(_) | Value::Time(_))
}

/// A temporal value of the kind of `like` read from text, if the text is one.
fn temporal_from_text(like: &Value, text: &[u8]) -> Option<Value> {
    let s = std::str::from_utf8(text).ok()?.trim();
    match like {
        Value::Date(_) | Value::DateTime(_) => {
            if let Some(dt) = base::value::DateTime::parse(s) {
                return Some(if matches!(like, Value::Date(_)) && s.len() <= 10 {
                    Value::Date(base::value::Date::parse(s)?)
                } else {
                    Value::DateTime(dt)
                });
            }
            base::value::Date::parse(s).map(|d| match like {
                Value::DateTime(_) => Value::DateTime(base::value::DateTime {
                    date: d,
                    hour: 0,
                    minute: 0,
                    second: 0,
                    microsecond: 0,
                }),
                _ => Value::Date(d),
            })
        }
        Value::Time(_) => base::value::Time::parse(s).map(Value::Time),
        _ => None,
    }
}

/// MySQL's comparison of two values (None when either is NULL), strings under
/// utf8mb4_general_ci.
pub fn compare(l: &Value, r: &Value) -> Option<Ordering> {
    compare_in(l, r, Collation::Utf8mb4GeneralCi)
}

/// MySQL's comparison of two values, strings under collation `c`.
/// The shortest IN list [`integer_in_lists`] makes an [`Expr::IntIn`] of.
const INT_IN_MIN: usize = 16;

/// `e` with each long IN list of integer constants (no NULL) made an [`Expr::IntIn`], which
/// looks integers up by halves: for a filter once the planner has read its facts.
pub(crate) fn integer_in_lists(mut e: Expr) -> Expr {
    e.rewrite(&|x| match x {
        Expr::In(v, list, negated) if list.len() >= INT_IN_MIN => {
            let numbers: Option<Vec<i128>> = list
                .iter()
                .map(|c| match c {
                    Expr::Const(Value::Int(i)) => Some(i128::from(*i)),
                    Expr::Const(Value::UInt(u)) => Some(i128::from(*u)),
                    _ => None,
                })
                .collect();
            let mut numbers = numbers?;
            numbers.sort_unstable();
            numbers.dedup();
            let v = integer_in_lists((**v).clone());
            Some(Expr::IntIn(
                Box::new(v),
                list.clone(),
                numbers.into(),
                *negated,
            ))
        }
        _ => None,
    });
    e
}

pub fn compare_in(l: &Value, r: &Value, c: Collation) -> Option<Ordering> {
    if l.is_null() || r.is_null() {
        return None;
    }
    match (l, r) {
        (Value::Bytes(a), Value::Bytes(b)) => Some(base::collation::compare(a, b, c)),
        (a, Value::Bytes(t)) if is_temporal(a) => match temporal_from_text(a, t) {
            Some(b) => compare_same(a, &b),
            None => as_double(a).partial_cmp(&as_double(r)),
        },
        (Value::Bytes(t), b) if is_temporal(b) => match temporal_from_text(b, t) {
            Some(a) => compare_same(&a, b),
            None => as_double(l).partial_cmp(&as_double(b)),
        },
        _ if is_text(l) || is_text(r) => as_double(l).partial_cmp(&as_double(r)),
        _ => compare_same(l, r),
    }
}

fn compare_same(l: &Value, r: &Value) -> Option<Ordering> {
    match (l, r) {
        (Value::Date(a), Value::DateTime(_)) => compare_same(
            &Value::DateTime(base::value::DateTime {
                date: *a,
                hour: 0,
                minute: 0,
                second: 0,
                microsecond: 0,
            }),
            r,
        ),
        (Value::DateTime(_), Value::Date(_)) => compare_same(r, l).map(Ordering::reverse),
        _ => match (num(l), num(r)) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (Num::Dbl(_), _) | (_, Num::Dbl(_)) => l
                .compare(r, Collation::Binary)
                .or_else(|| as_double(l).partial_cmp(&as_double(r))),
            (a, b) => {
                let (x, y) = (dec(a), dec(b));
                Some(x.cmp_exact(y))
            }
        },
    }
}

/// The default collation of character set `name` (CONVERT ... USING, `_charset'text'`), or
/// MariaDB's error for a set Cairn lacks.
fn charset_collation(name: &str) -> Result<Collation> {
    crate::expr::collate::CollationSpec {
        charset: Some(name.to_string()),
        collation: None,
    }
    .resolve()
}

/// The parameter an outer value's placeholder reads.
pub(crate) fn outer_param_index(name: &str) -> Option<usize> {
    name.strip_prefix(OUTER_PARAM)?.parse().ok()
}

/// The name of a placeholder standing for an outer value in a correlated subquery: this, then
/// the index of the parameter it reads (a NUL starts it, which no client's text holds). Its
/// span is empty, so the spans of the expressions holding it stay those of the text.
pub(crate) const OUTER_PARAM: &str = "\0param";

/// A context with no session: every variable and session value is NULL.
pub(crate) struct NoSession;

/// The value of an expression that reads no row, parameter or session (a DEFAULT).
/// A string constant as written: a plain literal, or one with a character set introducer
/// (which a hex literal is, as `_binary`); None for any other expression.
pub(crate) fn string_const(e: &Expr) -> Option<&[u8]> {
    match e {
        Expr::Const(Value::Bytes(b)) => Some(b),
        Expr::Cast(inner, cast::CastTo::Introduced(_)) => match inner.as_ref() {
            Expr::Const(Value::Bytes(b)) => Some(b),
            _ => None,
        },
        _ => None,
    }
}

pub(crate) fn row_free_value(e: &ast::Expr) -> Result<Value> {
    let mut c = Compiler::new(None, &[]);
    let compiled = c.compile(e)?;
    compiled.eval(&Env {
        row: &[],
        params: &[],
        aggs: &[],
        ctx: &NoSession,
    })
}
