//! Compiled SQL expressions: sqlparser's AST resolved against a table's columns and the
//! statement's `?` parameters into a small tree, evaluated with MySQL's semantics (three-valued
//! logic, numeric and string comparison rules, integer overflow errors, DECIMAL division), and
//! typed statically for result-set metadata.

pub(crate) mod aggregate;
pub(crate) mod cast;
pub(crate) mod collate;
pub(crate) mod correlated;
pub(crate) mod funcs;
pub(crate) mod meta;
pub(crate) mod stored;
pub(crate) mod temporal;
pub(crate) mod typing;

use std::cmp::Ordering;

use base::text::value_text;
use base::types::Collation;
use base::value::Decimal;
use base::{TableDef, Value};
use sqlparser::ast::{self, Expr as Ast};
use sqlparser::tokenizer::Location;

use crate::expr::aggregate::{AggKind, Aggregate};
pub use crate::expr::cast::CastTo;
use crate::expr::funcs::json::json_scalar;
use crate::expr::funcs::{Func, MathFn, StrFn};
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// MySQL's div_precision_increment: digits a division adds to the dividend's scale.
const DIV_PRECISION_INCREMENT: u8 = 4;
/// The largest DECIMAL scale MySQL keeps.
pub(crate) const DECIMAL_SCALE_MAX: u8 = 30;

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
    let (a, b) = (l.eval(env)?, r.eval(env)?);
    let numeric = |v: &Value| {
        matches!(
            v,
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_)
        )
    };
    let a = match l {
        Expr::Members { value, .. } if numeric(&b) => value.eval(env)?,
        _ => a,
    };
    let b = match r {
        Expr::Members { value, .. } if numeric(&a) => value.eval(env)?,
        _ => b,
    };
    Ok((a, b))
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
}

impl<'a> Compiler<'a> {
    /// The type of the input row's column `p`, when a scope's table has it.
    fn column_type(&self, p: usize) -> Option<base::types::ColumnType> {
        self.scopes.iter().find_map(|s| {
            p.checked_sub(s.offset)
                .and_then(|i| s.def.columns.get(i))
                .map(|c| c.ty)
        })
    }

    /// A string constant compared with a BIT column is the number its bytes make, big-endian,
    /// as MySQL compares them (`b = b'101'` is `b = 5`).
    fn bits_as_number(&self, column: &Expr, other: &mut Expr) {
        let Expr::Column(p) = column else { return };
        if !matches!(
            self.column_type(*p),
            Some(base::types::ColumnType::Bit { .. })
        ) {
            return;
        }
        if let Expr::Const(Value::Bytes(b)) = other {
            if b.len() <= 8 {
                let n = b.iter().fold(0u64, |n, byte| n << 8 | u64::from(*byte));
                *other = Expr::Const(Value::UInt(n));
            }
        }
    }

    pub fn new(scope: Option<Scope<'a>>, placeholders: &'a [Location]) -> Compiler<'a> {
        Compiler::with_scopes(scope.into_iter().collect(), placeholders)
    }

    pub fn with_scopes(scopes: Vec<Scope<'a>>, placeholders: &'a [Location]) -> Compiler<'a> {
        Compiler {
            scopes,
            inserted: None,
            placeholders,
            aggregates: None,
            place: "field list",
            coalesced: Vec::new(),
        }
    }

    fn column(&self, qualifier: &[&str], name: &str) -> Result<Expr> {
        let full = || {
            let mut parts: Vec<&str> = qualifier.to_vec();
            parts.push(name);
            parts.join(".")
        };
        if qualifier.is_empty() {
            if let Some((_, p)) = self
                .coalesced
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
            {
                return Ok(self.column_value(*p));
            }
        }
        let mut found = None;
        for (n, scope) in self.scopes.iter().enumerate() {
            if Some(n) == self.inserted {
                // Only VALUES() and the row alias name the inserted row.
                if qualifier.len() != 1 || !qualifier[0].eq_ignore_ascii_case(scope.name) {
                    continue;
                }
            }
            let matches_table = match qualifier {
                [] => true,
                [t] => t.eq_ignore_ascii_case(scope.name),
                [d, t] => {
                    t.eq_ignore_ascii_case(scope.name) && d.eq_ignore_ascii_case(scope.database)
                }
                _ => false,
            };
            match scope.def.column(name) {
                Some(p) if matches_table && !scope.def.columns[p].hidden => {
                    if found.is_some() {
                        return Err(SqlError::new(
                            1052,
                            "23000",
                            format!("Column '{}' in {} is ambiguous", full(), self.place),
                        ));
                    }
                    found = Some(scope.offset + p);
                }
                _ => {}
            }
        }
        let p = found.ok_or_else(|| SqlError::unknown_column(&full(), self.place))?;
        Ok(self.column_value(p))
    }

    /// Column `p` as an expression: an ENUM's or SET's as the names its number stands for.
    fn column_value(&self, p: usize) -> Expr {
        let def = self
            .scopes
            .iter()
            .find_map(|s| p.checked_sub(s.offset).and_then(|i| s.def.columns.get(i)));
        match def {
            Some(c)
                if matches!(
                    c.ty,
                    base::types::ColumnType::Enum | base::types::ColumnType::Set
                ) =>
            {
                Expr::Members {
                    value: Box::new(Expr::Column(p)),
                    members: c.members.clone().into(),
                    set: c.ty == base::types::ColumnType::Set,
                }
            }
            _ => Expr::Column(p),
        }
    }

    /// An ENUM or SET column compared with a constant compares their numbers: a name (or a
    /// SET's names) becomes its number, 0 when it is no member, for `=`, `<=>`, `<>` and IN;
    /// a number is compared as it is, for any comparison. Other comparisons read the names.
    fn members_as_number(column: &mut Expr, others: &mut [&mut Expr], equality: bool) {
        let Expr::Members {
            value,
            members,
            set,
        } = column
        else {
            return;
        };
        let numbers: Option<Vec<Value>> = others
            .iter()
            .map(|o| match &**o {
                Expr::Const(Value::Bytes(b)) if equality => {
                    let def = base::schema::ColumnDef {
                        members: members.to_vec(),
                        ..base::schema::ColumnDef::new(
                            "",
                            if *set {
                                base::types::ColumnType::Set
                            } else {
                                base::types::ColumnType::Enum
                            },
                        )
                        .collation(Collation::Utf8mb4GeneralCi)
                    };
                    Some(
                        base::text::member_value(&def, &Value::Bytes(b.clone()))
                            .unwrap_or(Value::UInt(0)),
                    )
                }
                Expr::Const(Value::UInt(n)) => Some(Value::UInt(*n)),
                // A negative number is no member's.
                Expr::Const(Value::Int(i)) => {
                    Some(Value::UInt(u64::try_from(*i).unwrap_or(u64::MAX)))
                }
                _ => None,
            })
            .collect();
        let Some(numbers) = numbers else { return };
        for (o, n) in others.iter_mut().zip(numbers) {
            **o = Expr::Const(n);
        }
        *column = std::mem::replace(&mut **value, Expr::Const(Value::Null));
    }

    fn param(&self, span: &sqlparser::tokenizer::Span) -> Result<Expr> {
        match self.placeholders.binary_search(&span.start) {
            Ok(i) => Ok(Expr::Param(i)),
            Err(_) => Err(SqlError::parse("a '?' the statement text does not hold")),
        }
    }

    pub fn compile(&mut self, e: &Ast) -> Result<Expr> {
        let compiled = self.compile_node(e)?;
        self.collated(compiled)
    }

    fn compile_node(&mut self, e: &Ast) -> Result<Expr> {
        use ast::BinaryOperator as B;
        if let Some(spelled) = row_values(e)? {
            return self.compile_node(&spelled);
        }
        Ok(match e {
            Ast::Collate { expr, collation } => self.collate(expr, collation)?,
            Ast::Value(v) => match &v.value {
                ast::Value::Placeholder(p) if p == "?" => self.param(&v.span)?,
                // A correlated subquery's outer value: the parameter it names.
                ast::Value::Placeholder(p) if crate::expr::outer_param_index(p).is_some() => {
                    Expr::Param(crate::expr::outer_param_index(p).unwrap_or_default())
                }
                _ => Expr::Const(literal(&v.value)?),
            },
            Ast::Nested(inner) => self.compile(inner)?,
            Ast::Identifier(i) if i.value.starts_with("@@") => Expr::Var(i.value.clone()),
            // A user variable: what the session SET it to, NULL when it never did.
            Ast::Identifier(i) if i.value.starts_with('@') && i.quote_style.is_none() => {
                Expr::Var(i.value.clone())
            }
            Ast::Identifier(i) if i.quote_style == Some('"') => {
                Expr::Const(Value::Bytes(i.value.clone().into_bytes()))
            }
            Ast::Identifier(i) => self.column(&[], &i.value)?,
            Ast::CompoundIdentifier(parts) => {
                let names: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
                match names.split_last() {
                    Some((last, rest)) if !rest.is_empty() && rest[0].starts_with("@@") => {
                        Expr::Var(format!("{}.{last}", rest.join(".")))
                    }
                    Some((last, rest)) => self.column(rest, last)?,
                    None => return Err(SqlError::parse("empty name")),
                }
            }
            Ast::IsNull(inner) => Expr::IsNull(Box::new(self.compile(inner)?), false),
            Ast::IsNotNull(inner) => Expr::IsNull(Box::new(self.compile(inner)?), true),
            Ast::IsTrue(inner) => truth(self.compile(inner)?, true, false),
            Ast::IsFalse(inner) => truth(self.compile(inner)?, false, false),
            Ast::IsNotTrue(inner) => truth(self.compile(inner)?, true, true),
            Ast::IsNotFalse(inner) => truth(self.compile(inner)?, false, true),
            Ast::UnaryOp { op, expr } => {
                let inner = self.compile(expr)?;
                match op {
                    ast::UnaryOperator::Not => Expr::Not(Box::new(inner)),
                    ast::UnaryOperator::Minus => match inner {
                        Expr::Const(v) => Expr::Const(negate(v)?),
                        other => Expr::Neg(Box::new(other)),
                    },
                    ast::UnaryOperator::Plus => inner,
                    ast::UnaryOperator::BitwiseNot => {
                        Expr::Call(Func::Math(MathFn::BitNot), vec![inner])
                    }
                    other => return Err(SqlError::unsupported(format!("the operator {other}"))),
                }
            }
            Ast::BinaryOp {
                left,
                op: op @ (B::Plus | B::Minus),
                right,
            } if matches!(**right, Ast::Interval(_))
                || (*op == B::Plus && matches!(**left, Ast::Interval(_))) =>
            {
                let (d, Ast::Interval(i)) = (match (&**left, &**right) {
                    (d, i @ Ast::Interval(_)) => (d, i),
                    (i, d) => (d, i),
                }) else {
                    return Err(SqlError::parse("an INTERVAL without a date"));
                };
                let d = self.compile(d)?;
                crate::expr::temporal::interval_call(self, d, i, *op == B::Minus)?
            }
            Ast::Extract { field, expr, .. } => {
                crate::expr::temporal::extract_call(field, self.compile(expr)?)?
            }
            Ast::TypedString(ts) => typed_literal(ts)?,
            Ast::BinaryOp { left, op, right } => {
                let op = match op {
                    B::And => BinOp::And,
                    B::Or => BinOp::Or,
                    B::Xor => BinOp::Xor,
                    B::Eq => BinOp::Eq,
                    B::Spaceship => BinOp::NullSafeEq,
                    B::NotEq => BinOp::Ne,
                    B::Lt => BinOp::Lt,
                    B::LtEq => BinOp::Le,
                    B::Gt => BinOp::Gt,
                    B::GtEq => BinOp::Ge,
                    B::Plus => BinOp::Add,
                    B::Minus => BinOp::Sub,
                    B::Multiply => BinOp::Mul,
                    B::Divide => BinOp::Div,
                    B::MyIntegerDivide | B::DuckIntegerDivide => BinOp::IntDiv,
                    B::Modulo => BinOp::Mod,
                    B::BitwiseAnd | B::BitwiseOr | B::BitwiseXor => {
                        let f = match op {
                            B::BitwiseAnd => MathFn::BitAnd,
                            B::BitwiseOr => MathFn::BitOr,
                            _ => MathFn::BitXor,
                        };
                        let args = vec![self.compile(left)?, self.compile(right)?];
                        return Ok(Expr::Call(Func::Math(f), args));
                    }
                    B::PGBitwiseShiftLeft | B::PGBitwiseShiftRight => {
                        let f = if *op == B::PGBitwiseShiftLeft {
                            MathFn::ShiftLeft
                        } else {
                            MathFn::ShiftRight
                        };
                        let args = vec![self.compile(left)?, self.compile(right)?];
                        return Ok(Expr::Call(Func::Math(f), args));
                    }
                    other => return Err(SqlError::unsupported(format!("the operator {other}"))),
                };
                let (mut l, mut r) = (self.compile(left)?, self.compile(right)?);
                if !matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
                    (l, r) = (json_scalar(l), json_scalar(r));
                }
                if op.is_comparison() {
                    self.bits_as_number(&l, &mut r);
                    self.bits_as_number(&r, &mut l);
                    let equality = matches!(op, BinOp::Eq | BinOp::NullSafeEq | BinOp::Ne);
                    Compiler::members_as_number(&mut l, &mut [&mut r], equality);
                    Compiler::members_as_number(&mut r, &mut [&mut l], equality);
                } else if !matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
                    // Arithmetic reads an ENUM's or SET's number.
                    (l, r) = (l.numbered(), r.numbered());
                }
                Expr::Binary(op, Box::new(l), Box::new(r))
            }
            Ast::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let e = json_scalar(self.compile(expr)?);
                let (mut low, mut high) = (self.compile(low)?, self.compile(high)?);
                self.bits_as_number(&e, &mut low);
                self.bits_as_number(&e, &mut high);
                Expr::Between(Box::new(e), Box::new(low), Box::new(high), *negated)
            }
            Ast::InList {
                expr,
                list,
                negated,
            } => {
                let e = json_scalar(self.compile(expr)?);
                let list = list
                    .iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<Vec<_>>>()?;
                let mut list: Vec<Expr> = list
                    .into_iter()
                    .map(|mut x| {
                        self.bits_as_number(&e, &mut x);
                        x
                    })
                    .collect();
                let mut e = e;
                Compiler::members_as_number(&mut e, &mut list.iter_mut().collect::<Vec<_>>(), true);
                Expr::In(Box::new(e), list, *negated)
            }
            Ast::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any: false,
            } => {
                let mut p = self.compile(pattern)?;
                if let Some(escape) = escape_char {
                    p = self.like_escape(p, escape)?;
                }
                Expr::Like(Box::new(self.compile(expr)?), Box::new(p), *negated)
            }
            Ast::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                let args = vec![self.compile(expr)?, self.compile(pattern)?];
                let matched = self.collated(Expr::Call(Func::Str(StrFn::Regexp), args))?;
                if *negated {
                    Expr::Not(Box::new(matched))
                } else {
                    matched
                }
            }
            Ast::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let operand = match operand {
                    Some(o) => Some(Box::new(self.compile(o)?)),
                    None => None,
                };
                let whens = conditions
                    .iter()
                    .map(|w| Ok((self.compile(&w.condition)?, self.compile(&w.result)?)))
                    .collect::<Result<_>>()?;
                let otherwise = match else_result {
                    Some(e) => Some(Box::new(self.compile(e)?)),
                    None => None,
                };
                Expr::Case {
                    operand,
                    whens,
                    otherwise,
                }
            }
            Ast::Function(f) => self.function(f)?,
            Ast::Position { expr, r#in } => Expr::Call(
                Func::Str(crate::expr::funcs::StrFn::Locate),
                vec![self.compile(expr)?, self.compile(r#in)?],
            ),
            Ast::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.compile(expr)?];
                args.push(match substring_from {
                    Some(f) => self.compile(f)?,
                    None => Expr::Const(Value::Int(1)),
                });
                if let Some(n) = substring_for {
                    args.push(self.compile(n)?);
                }
                Expr::Call(Func::Substring, args)
            }
            Ast::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters: None,
            } => {
                let f = match trim_where {
                    None | Some(ast::TrimWhereField::Both) => Func::Trim,
                    Some(ast::TrimWhereField::Leading) => Func::Ltrim,
                    Some(ast::TrimWhereField::Trailing) => Func::Rtrim,
                };
                let mut args = vec![self.compile(expr)?];
                if let Some(w) = trim_what {
                    args.push(self.compile(w)?);
                }
                Expr::Call(f, args)
            }
            Ast::Floor {
                expr,
                field: ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime),
            } => Expr::Call(Func::Floor, vec![self.compile(expr)?]),
            Ast::Ceil {
                expr,
                field: ast::CeilFloorKind::DateTimeField(ast::DateTimeField::NoDateTime),
            } => Expr::Call(Func::Ceiling, vec![self.compile(expr)?]),
            Ast::Cast {
                kind: ast::CastKind::Cast,
                expr,
                data_type,
                format: None,
            } => {
                let to = CastTo::of(data_type)?;
                let mut inner = self.compile(expr)?;
                if matches!(to, CastTo::Binary(_)) {
                    inner = self.latin1_bytes(inner)?;
                }
                Expr::Cast(Box::new(inner), to)
            }
            Ast::Convert {
                is_try: false,
                expr,
                data_type: Some(data_type),
                charset: None,
                target_before_value: false,
                styles,
            } if styles.is_empty() => {
                Expr::Cast(Box::new(self.compile(expr)?), CastTo::of(data_type)?)
            }
            Ast::Convert {
                is_try: false,
                expr,
                data_type: None,
                charset: Some(name),
                ..
            } => {
                // CONVERT(e USING charset): text is utf8mb4 already.
                let to = match charset_collation(&name.to_string())? {
                    Collation::Utf8mb4GeneralCi => CastTo::Char(None),
                    Collation::Binary => CastTo::Binary(None),
                    c => CastTo::Charset(c),
                };
                Expr::Cast(Box::new(self.compile(expr)?), to)
            }
            Ast::Prefixed { prefix, value } if prefix.value.starts_with('_') => {
                let c = charset_collation(&prefix.value[1..])?;
                Expr::Cast(Box::new(self.compile(value)?), CastTo::Introduced(c))
            }
            other => return Err(SqlError::unsupported(format!("the expression {other}"))),
        })
    }

    /// The pattern of `LIKE pattern ESCAPE escape` in the backslash form `Expr::Like` reads.
    /// The escape must be a constant of at most one character (1210 otherwise, as MariaDB);
    /// another character than a backslash needs a constant pattern.
    fn like_escape(&mut self, pattern: Expr, escape: &Ast) -> Result<Expr> {
        let bad = || SqlError::new(1210, "HY000", "Incorrect arguments to ESCAPE");
        let escape = match self.compile(escape)? {
            Expr::Const(v) => value_text(&v).ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        let escape = match std::str::from_utf8(&escape).map(|t| {
            let mut chars = t.chars();
            (chars.next(), chars.next())
        }) {
            Ok((Some(c), None)) => Some(c),
            Ok((None, _)) => None,
            _ => return Err(bad()),
        };
        if escape == Some('\\') {
            return Ok(pattern);
        }
        match pattern {
            Expr::Const(v) if v.is_null() => Ok(Expr::Const(v)),
            Expr::Const(v) => {
                let text =
                    String::from_utf8_lossy(&value_text(&v).unwrap_or_default()).into_owned();
                let out = crate::expr::funcs::strings::backslash_pattern(&text, escape);
                Ok(Expr::Const(Value::Bytes(out.into_bytes())))
            }
            // A pattern made per row: rewritten per row.
            pattern => {
                let escape = escape.map_or_else(String::new, |c| c.to_string());
                Ok(Expr::Call(
                    crate::expr::funcs::Func::Str(crate::expr::funcs::strings::StrFn::LikeEscape),
                    vec![pattern, Expr::Const(Value::Bytes(escape.into_bytes()))],
                ))
            }
        }
    }

    /// Whether `e` is a string in latin1.
    fn is_latin1(&self, e: &Expr) -> Result<bool> {
        let d = self.derive(e)?;
        Ok(d.is_string() && d.collation.charset() == base::types::Charset::Latin1)
    }

    /// `e` as latin1 bytes when it is a latin1 string, else itself.
    fn latin1_bytes(&self, e: Expr) -> Result<Expr> {
        Ok(if self.is_latin1(&e)? {
            Expr::Cast(Box::new(e), CastTo::Latin1Bytes)
        } else {
            e
        })
    }

    /// An aggregate call: its arguments (several for GROUP_CONCAT, and for COUNT with DISTINCT),
    /// and GROUP_CONCAT's ORDER BY and SEPARATOR.
    fn aggregate(
        &mut self,
        f: &ast::Function,
        kind: AggKind,
        args: &[&ast::FunctionArg],
        distinct: bool,
        clauses: &[ast::FunctionArgumentClause],
    ) -> Result<Aggregate> {
        let several = kind == AggKind::GroupConcat
            || kind == AggKind::JsonObjectAgg
            || (kind == AggKind::Count && distinct);
        if kind == AggKind::JsonObjectAgg && args.len() != 2 {
            // MariaDB's grammar has two arguments here.
            return Err(SqlError::parse(format!("near '{f}'")));
        }
        let mut exprs = Vec::with_capacity(args.len());
        for a in args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard)
                    if kind == AggKind::Count && !distinct && args.len() == 1 =>
                {
                    return Ok(Aggregate::new(
                        kind,
                        None,
                        false,
                        Collation::Utf8mb4GeneralCi,
                    ));
                }
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))
                    if args.len() == 1 || several =>
                {
                    let compiled = self.compile(e)?;
                    let value_at = usize::from(kind == AggKind::JsonObjectAgg);
                    exprs.push(
                        if matches!(kind, AggKind::JsonArrayAgg | AggKind::JsonObjectAgg)
                            && exprs.len() == value_at
                        {
                            self.json_marked(compiled, a)
                        } else {
                            compiled
                        },
                    )
                }
                _ if args.len() > 1 && !several => {
                    // MariaDB's grammar has one argument here.
                    return Err(SqlError::parse(format!("near '{}'", args[1])));
                }
                _ => return Err(SqlError::unsupported(format!("the function {f}"))),
            }
        }
        let mut exprs = exprs.into_iter();
        let Some(arg) = exprs.next() else {
            return Err(SqlError::unsupported(format!("the function {f}")));
        };
        let arg = if matches!(kind, AggKind::Sum | AggKind::Avg) {
            json_scalar(arg)
        } else {
            arg
        };
        let mut aggregate = Aggregate::new(kind, None, distinct, self.sort_collation(&arg)?);
        aggregate.arg = Some(arg);
        for e in exprs {
            aggregate.more_collations.push(self.sort_collation(&e)?);
            aggregate.more.push(e);
        }
        for clause in clauses {
            match clause {
                ast::FunctionArgumentClause::OrderBy(keys) => {
                    for o in keys {
                        let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
                        let e = self.compile(&o.expr)?;
                        let collation = self.sort_collation(&e)?;
                        aggregate.order.push((e, desc, collation));
                    }
                }
                ast::FunctionArgumentClause::Separator(v) if kind != AggKind::GroupConcat => {
                    // SEPARATOR belongs to GROUP_CONCAT's grammar alone.
                    return Err(SqlError::parse(format!("near 'SEPARATOR {v}'")));
                }
                ast::FunctionArgumentClause::Separator(v) => {
                    aggregate.separator = match literal(&v.value)? {
                        Value::Bytes(b) => b,
                        _ => return Err(SqlError::unsupported(format!("the function {f}"))),
                    };
                }
                _ => return Err(SqlError::unsupported(format!("the function {f}"))),
            }
        }
        match kind {
            // MariaDB gives DISTINCT values in their order.
            AggKind::JsonArrayAgg if distinct && aggregate.order.is_empty() => {
                if let Some(arg) = &aggregate.arg {
                    aggregate
                        .order
                        .push((arg.clone(), false, aggregate.collation));
                }
            }
            AggKind::JsonObjectAgg => aggregate.separator = b", ".to_vec(),
            _ => {}
        }
        Ok(aggregate)
    }

    fn function(&mut self, f: &ast::Function) -> Result<Expr> {
        let name = f.name.to_string().to_ascii_lowercase();
        let (args, distinct, clauses) = match &f.args {
            ast::FunctionArguments::None => (Vec::new(), false, &[][..]),
            ast::FunctionArguments::List(l) => {
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                );
                // ORDER BY and SEPARATOR belong to GROUP_CONCAT alone.
                if !l.clauses.is_empty() && name != "group_concat" && name != "json_arrayagg" {
                    return Err(SqlError::unsupported(format!("the function {f}")));
                }
                (l.args.iter().collect::<Vec<_>>(), distinct, &l.clauses[..])
            }
            ast::FunctionArguments::Subquery(_) => {
                return Err(SqlError::unsupported(format!("the function {f}")))
            }
        };
        if f.filter.is_some() || f.over.is_some() || !f.within_group.is_empty() {
            return Err(SqlError::unsupported(format!("the function {f}")));
        }
        if let Some(marker) = crate::expr::correlated::Marker::read(&name, &args) {
            let (n, ty, refs) = marker?;
            let args = refs
                .iter()
                .map(|a| self.compile(a))
                .collect::<Result<Vec<_>>>()?;
            return Ok(Expr::Correlated { n, args, ty });
        }
        if name == "values" {
            // ON DUPLICATE KEY UPDATE's VALUES(column): the value the INSERT gave it.
            let Some(n) = self.inserted else {
                return Err(SqlError::unsupported(
                    "VALUES() outside ON DUPLICATE KEY UPDATE",
                ));
            };
            let column = match args.as_slice() {
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(Ast::Identifier(i)))] => {
                    &i.value
                }
                _ => return Err(wrong_arguments("values")),
            };
            let scope = &self.scopes[n];
            return match scope.def.column(column) {
                Some(p) if !scope.def.columns[p].hidden => Ok(Expr::Column(scope.offset + p)),
                _ => Err(SqlError::unknown_column(column, self.place)),
            };
        }
        let agg = match name.as_str() {
            "count" => Some(AggKind::Count),
            "sum" => Some(AggKind::Sum),
            "avg" => Some(AggKind::Avg),
            "min" => Some(AggKind::Min),
            "max" => Some(AggKind::Max),
            "group_concat" => Some(AggKind::GroupConcat),
            "json_arrayagg" => Some(AggKind::JsonArrayAgg),
            "json_objectagg" => Some(AggKind::JsonObjectAgg),
            _ => None,
        };
        if let Some(kind) = agg {
            // Aggregates do not nest: their arguments compile without aggregates.
            let saved = self.aggregates.take();
            let compiled = self.aggregate(f, kind, &args, distinct, clauses);
            self.aggregates = saved;
            let aggregate = compiled?;
            let Some(list) = self.aggregates.as_mut() else {
                return Err(SqlError::new(
                    1111,
                    "HY000",
                    "Invalid use of group function",
                ));
            };
            list.push(aggregate);
            return Ok(Expr::Agg(list.len() - 1));
        }
        if distinct {
            return Err(SqlError::unsupported(format!("the function {f}")));
        }
        if let Some(call) = crate::expr::temporal::compile_call(self, &name, &args) {
            return call;
        }
        let mut compiled = Vec::with_capacity(args.len());
        for a in &args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    compiled.push(self.compile(e)?)
                }
                _ => return Err(SqlError::unsupported(format!("the function {f}"))),
            }
        }
        let session = match name.as_str() {
            "database" | "schema" => Some(SessionFn::Database),
            "version" => Some(SessionFn::Version),
            "connection_id" => Some(SessionFn::ConnectionId),
            "user" | "session_user" | "system_user" => Some(SessionFn::User),
            "current_user" => Some(SessionFn::CurrentUser),
            "last_insert_id" => Some(SessionFn::LastInsertId),
            "found_rows" => Some(SessionFn::FoundRows),
            "row_count" => Some(SessionFn::RowCount),
            _ => None,
        };
        if let Some(s) = session {
            if !compiled.is_empty() {
                return Err(wrong_arguments(&name));
            }
            return Ok(Expr::Session(s));
        }
        if let ("collation" | "coercibility" | "charset", [arg]) = (name.as_str(), &compiled[..]) {
            // Known when the statement is planned: the argument's derivation.
            let d = self.derive(arg)?;
            let (collation, charset) = if d.is_string() {
                (d.collation.name(), d.collation.charset().name())
            } else {
                ("binary", "binary")
            };
            let text = |t: &str| Expr::Const(Value::Bytes(t.as_bytes().to_vec()));
            return Ok(match name.as_str() {
                "collation" => text(collation),
                "charset" => text(charset),
                _ => Expr::Const(Value::Int(d.coercibility as i64)),
            });
        }
        match Func::from_name(&name) {
            Some((func, min, max)) => {
                if compiled.len() < min || compiled.len() > max {
                    return Err(crate::expr::temporal::wrong_count(&name));
                }
                if let Func::Temporal(t) = func {
                    crate::expr::temporal::check(t, &name, &compiled)?;
                }
                if let Func::Json(j) = func {
                    return self.json_call(j, &name, compiled, &args);
                }
                // A latin1 string is one byte a character in its own character set, and the
                // functions of bytes read those bytes.
                if func == Func::Length && self.is_latin1(&compiled[0])? {
                    return Ok(Expr::Call(Func::CharLength, compiled));
                }
                // UPPER and LOWER of latin1 change the letters latin1's case table pairs.
                if matches!(func, Func::Upper | Func::Lower) && self.is_latin1(&compiled[0])? {
                    let latin1 = Collation::Latin1TextSwedishCi;
                    return Ok(Expr::Collated(latin1, Box::new(Expr::Call(func, compiled))));
                }
                let mut compiled = compiled;
                if let Func::Str(
                    StrFn::Hex
                    | StrFn::Md5
                    | StrFn::Sha1
                    | StrFn::Sha2
                    | StrFn::Crc32
                    | StrFn::ToBase64,
                ) = func
                {
                    let first = std::mem::replace(&mut compiled[0], Expr::Const(Value::Null));
                    compiled[0] = self.latin1_bytes(first)?;
                }
                Ok(Expr::Call(func, compiled))
            }
            None => Err(SqlError::new(
                1305,
                "42000",
                format!("FUNCTION {} does not exist", f.name),
            )),
        }
    }
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

/// A SQL literal's value.
pub fn literal(v: &ast::Value) -> Result<Value> {
    Ok(match v {
        ast::Value::Number(n, _) => number(n)?,
        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
            Value::Bytes(s.clone().into_bytes())
        }
        ast::Value::HexStringLiteral(h) => Value::Bytes(
            (0..h.len() / 2)
                .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16))
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| SqlError::parse(format!("bad hex literal X'{h}'")))?,
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
        Value::Decimal(d) => Value::Decimal(Decimal {
            mantissa: -d.mantissa,
            scale: d.scale,
        }),
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
        Value::Decimal(d) => Some(d.mantissa != 0),
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
        Num::Int(i) => Decimal {
            mantissa: i,
            scale: 0,
        },
        Num::Dec(d) => d,
        Num::Dbl(f) => Decimal::parse(&format!("{f:.6}")).unwrap_or(Decimal {
            mantissa: 0,
            scale: 0,
        }),
    }
}

pub(crate) fn dbl(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Dec(d) => d.mantissa as f64 / 10f64.powi(d.scale as i32),
        Num::Dbl(f) => f,
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

fn dec_value(d: Decimal) -> Result<Value> {
    if d.mantissa.unsigned_abs() >= 10u128.pow(38) {
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
            if dbl(b) == 0.0 {
                return Ok(Value::Null);
            }
            if let (Num::Dbl(_), _) | (_, Num::Dbl(_)) = (a, b) {
                return Ok(Value::Double(dbl(a) / dbl(b)));
            }
            let (x, y) = (dec(a), dec(b));
            let scale = (x.scale + DIV_PRECISION_INCREMENT).min(DECIMAL_SCALE_MAX);
            // x / y at `scale` digits: x.m * 10^(scale - x.scale + y.scale) / y.m, rounded.
            let shift = u32::from(scale) + u32::from(y.scale) - u32::from(x.scale);
            let num = 10i128
                .checked_pow(shift)
                .and_then(|p| x.mantissa.checked_mul(p))
                .ok_or_else(|| SqlError::new(1690, "22003", "DECIMAL value is out of range"))?;
            let q = num / y.mantissa;
            let rem = num % y.mantissa;
            let q = if rem.abs() * 2 >= y.mantissa.abs() {
                q + (num.signum() * y.mantissa.signum())
            } else {
                q
            };
            dec_value(Decimal { mantissa: q, scale })
        }
        (_, _, BinOp::IntDiv) => {
            if dbl(b) == 0.0 {
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
            if dbl(b) == 0.0 {
                return Ok(Value::Null);
            }
            match (a, b) {
                (Num::Int(x), Num::Int(y)) => int_value(x % y, what),
                (Num::Dbl(_), _) | (_, Num::Dbl(_)) => Ok(Value::Double(dbl(a) % dbl(b))),
                _ => {
                    let (x, y) = (dec(a), dec(b));
                    let s = x.scale.max(y.scale);
                    let (x, y) = (rescaled(x, s)?, rescaled(y, s)?);
                    dec_value(Decimal {
                        mantissa: x.mantissa % y.mantissa,
                        scale: s,
                    })
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
                BinOp::Mul => dec_value(Decimal {
                    mantissa: x.mantissa.checked_mul(y.mantissa).ok_or_else(overflow)?,
                    scale: x.scale + y.scale,
                }),
                _ => {
                    let s = x.scale.max(y.scale);
                    let (x, y) = (rescaled(x, s)?, rescaled(y, s)?);
                    let m = if op == BinOp::Add {
                        x.mantissa.checked_add(y.mantissa)
                    } else {
                        x.mantissa.checked_sub(y.mantissa)
                    };
                    dec_value(Decimal {
                        mantissa: m.ok_or_else(overflow)?,
                        scale: s,
                    })
                }
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
                let s = x.scale.max(y.scale);
                Some(x.rescale(s)?.mantissa.cmp(&y.rescale(s)?.mantissa))
            }
        },
    }
}

impl Expr {
    pub fn eval(&self, env: &Env) -> Result<Value> {
        Ok(match self {
            Expr::Const(v) => v.clone(),
            Expr::Column(p) => env.row.get(*p).cloned().unwrap_or(Value::Null),
            Expr::Cast(e, to) => {
                let v = e.eval(env)?;
                match to {
                    CastTo::Signed | CastTo::Unsigned => check_number(env, &v, "INTEGER")?,
                    CastTo::Decimal(..) => check_number(env, &v, "DECIMAL")?,
                    CastTo::Double => check_number(env, &v, "DOUBLE")?,
                    CastTo::Json => return crate::expr::funcs::json::cast(&v),
                    _ => {}
                }
                let text = matches!(to, CastTo::Date | CastTo::DateTime(_) | CastTo::Time(_))
                    .then(|| base::text::value_text(&v))
                    .flatten();
                let out = to.convert(v);
                if let (Some(text), true) = (text, out.is_null()) {
                    // A date, datetime or time CAST cannot read: MariaDB's warning 1292.
                    let kind = match to {
                        CastTo::Time(_) => "time",
                        _ => "datetime",
                    };
                    env.ctx.warn(
                        1292,
                        format!(
                            "Incorrect {kind} value: '{}'",
                            String::from_utf8_lossy(&text)
                        ),
                    );
                }
                out
            }
            Expr::Outer(_) => {
                return Err(SqlError::new(
                    1105,
                    "HY000",
                    "internal: a join key evaluated outside its join",
                ))
            }
            Expr::Param(i) => env.params.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Correlated { n, args, .. } => {
                let values = args
                    .iter()
                    .map(|a| a.eval(env))
                    .collect::<Result<Vec<_>>>()?;
                return env
                    .ctx
                    .correlated(*n, env.params, &values)
                    .unwrap_or_else(|| {
                        Err(SqlError::unsupported("a correlated subquery in this place"))
                    });
            }
            Expr::Agg(i) => env.aggs.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Var(name) => env.ctx.variable(name),
            Expr::Session(f) => env.ctx.session(*f),
            Expr::Not(e) => match truth_value(&e.eval(env)?) {
                None => Value::Null,
                Some(b) => bool_value(!b),
            },
            Expr::Neg(e) => negate(e.eval(env)?)?,
            Expr::Members {
                value,
                members,
                set,
            } => member_names(&value.eval(env)?, members, *set),
            Expr::IsNull(e, negated) => bool_value(e.eval(env)?.is_null() != *negated),
            Expr::Collate(e, _) => e.eval(env)?,
            Expr::Collated(c, e) => e.eval_under(env, *c)?,
            _ => self.eval_under(env, Collation::Utf8mb4GeneralCi)?,
        })
    }

    /// Evaluates a node that compares strings, under collation `c`; any other node as `eval`.
    fn eval_under(&self, env: &Env, c: Collation) -> Result<Value> {
        Ok(match self {
            Expr::Binary(op, l, r) => self.binary(*op, l, r, env, c)?,
            Expr::Between(e, lo, hi, negated) => {
                let v = e.eval(env)?;
                let lo = lo.eval(env)?;
                let hi = hi.eval(env)?;
                let ge = compare_in(&v, &lo, c).map(|o| o != Ordering::Less);
                let le = compare_in(&v, &hi, c).map(|o| o != Ordering::Greater);
                let inside = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                match inside {
                    None => Value::Null,
                    Some(b) => bool_value(b != *negated),
                }
            }
            Expr::In(e, list, negated) => {
                let v = e.eval(env)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let mut unknown = false;
                let mut found = false;
                for x in list {
                    match compare_in(&v, &x.eval(env)?, c) {
                        Some(Ordering::Equal) => {
                            found = true;
                            break;
                        }
                        None => unknown = true,
                        _ => {}
                    }
                }
                if found {
                    bool_value(!*negated)
                } else if unknown {
                    Value::Null
                } else {
                    bool_value(*negated)
                }
            }
            Expr::Like(e, p, negated) => {
                let (Some(v), Some(p)) = (value_text(&e.eval(env)?), value_text(&p.eval(env)?))
                else {
                    return Ok(Value::Null);
                };
                bool_value(base::collation::like(&v, &p, c) != *negated)
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => {
                let subject = match operand {
                    Some(o) => Some(o.eval(env)?),
                    None => None,
                };
                for (when, then) in whens {
                    let w = when.eval(env)?;
                    let hit = match &subject {
                        Some(s) => compare_in(s, &w, c) == Some(Ordering::Equal),
                        None => truthy(&w),
                    };
                    if hit {
                        return then.eval(env);
                    }
                }
                match otherwise {
                    Some(e) => e.eval(env)?,
                    None => Value::Null,
                }
            }
            Expr::Call(f, args) => crate::expr::funcs::call(*f, args, env, c)?,
            Expr::Const(_)
            | Expr::Column(_)
            | Expr::Outer(_)
            | Expr::Param(_)
            | Expr::Agg(_)
            | Expr::Var(_)
            | Expr::Session(_)
            | Expr::Not(_)
            | Expr::Neg(_)
            | Expr::IsNull(..)
            | Expr::Cast(..)
            | Expr::Collate(..)
            | Expr::Collated(..)
            | Expr::Members { .. }
            | Expr::Correlated { .. } => self.eval(env)?,
        })
    }

    fn binary(&self, op: BinOp, l: &Expr, r: &Expr, env: &Env, c: Collation) -> Result<Value> {
        match op {
            BinOp::And => {
                let a = truth_value(&l.eval(env)?);
                if a == Some(false) {
                    return Ok(bool_value(false));
                }
                let b = truth_value(&r.eval(env)?);
                Ok(match (a, b) {
                    (_, Some(false)) => bool_value(false),
                    (Some(true), Some(true)) => bool_value(true),
                    _ => Value::Null,
                })
            }
            BinOp::Or => {
                let a = truth_value(&l.eval(env)?);
                if a == Some(true) {
                    return Ok(bool_value(true));
                }
                let b = truth_value(&r.eval(env)?);
                Ok(match (a, b) {
                    (_, Some(true)) => bool_value(true),
                    (Some(false), Some(false)) => bool_value(false),
                    _ => Value::Null,
                })
            }
            BinOp::Xor => match (truth_value(&l.eval(env)?), truth_value(&r.eval(env)?)) {
                (Some(a), Some(b)) => Ok(bool_value(a != b)),
                _ => Ok(Value::Null),
            },
            BinOp::NullSafeEq => {
                let (a, b) = numbered_pair(l, r, env)?;
                Ok(bool_value(match (a.is_null(), b.is_null()) {
                    (true, true) => true,
                    (false, false) => compare_in(&a, &b, c) == Some(Ordering::Equal),
                    _ => false,
                }))
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (a, b) = numbered_pair(l, r, env)?;
                Ok(match compare_in(&a, &b, c) {
                    None => Value::Null,
                    Some(o) => bool_value(match op {
                        BinOp::Eq => o == Ordering::Equal,
                        BinOp::Ne => o != Ordering::Equal,
                        BinOp::Lt => o == Ordering::Less,
                        BinOp::Le => o != Ordering::Greater,
                        BinOp::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    }),
                })
            }
            _ => {
                let (a, b) = (l.eval(env)?, r.eval(env)?);
                check_number(env, &a, "DOUBLE")?;
                check_number(env, &b, "DOUBLE")?;
                if divides_by_zero(op, &a, &b) {
                    env.ctx.division_by_zero()?;
                }
                arithmetic(op, &a, &b)
            }
        }
    }

    /// Calls `f` on every column position the expression reads.
    pub fn columns(&self, f: &mut impl FnMut(usize)) {
        self.walk(&mut |e| {
            if let Expr::Column(p) = e {
                f(*p)
            }
        });
    }

    /// The expressions directly under this one.
    /// The number an ENUM or SET column stores, where this is one read as names (what
    /// arithmetic and ORDER BY read); any other expression as it is.
    pub(crate) fn numbered(self) -> Expr {
        match self {
            Expr::Members { value, .. } => *value,
            other => other,
        }
    }

    /// The column a plain column reference reads (an ENUM's or SET's read as names too).
    pub(crate) fn column_under_names(&self) -> Option<usize> {
        match self {
            Expr::Column(p) => Some(*p),
            Expr::Members { value, .. } => match **value {
                Expr::Column(p) => Some(p),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether a correlated subquery stands anywhere in it.
    pub(crate) fn holds_correlated(&self) -> bool {
        matches!(self, Expr::Correlated { .. })
            || self.children().into_iter().any(Expr::holds_correlated)
    }

    pub(crate) fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Not(e)
            | Expr::Neg(e)
            | Expr::IsNull(e, _)
            | Expr::Cast(e, _)
            | Expr::Collate(e, _)
            | Expr::Collated(_, e)
            | Expr::Members { value: e, .. } => vec![e],
            Expr::Binary(_, l, r) | Expr::Like(l, r, _) => vec![l, r],
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::In(e, list, _) => std::iter::once(&**e).chain(list).collect(),
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => operand
                .iter()
                .map(|o| &**o)
                .chain(whens.iter().flat_map(|(w, t)| [w, t]))
                .chain(otherwise.iter().map(|o| &**o))
                .collect(),
            Expr::Call(_, args) | Expr::Correlated { args, .. } => args.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// [`Expr::children`], to change them.
    pub(crate) fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Not(e)
            | Expr::Neg(e)
            | Expr::IsNull(e, _)
            | Expr::Cast(e, _)
            | Expr::Collate(e, _)
            | Expr::Collated(_, e)
            | Expr::Members { value: e, .. } => vec![e],
            Expr::Binary(_, l, r) | Expr::Like(l, r, _) => vec![l, r],
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::In(e, list, _) => std::iter::once(&mut **e).chain(list).collect(),
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => operand
                .iter_mut()
                .map(|o| &mut **o)
                .chain(whens.iter_mut().flat_map(|(w, t)| [w, t]))
                .chain(otherwise.iter_mut().map(|o| &mut **o))
                .collect(),
            Expr::Call(_, args) | Expr::Correlated { args, .. } => args.iter_mut().collect(),
            _ => Vec::new(),
        }
    }

    /// Visits this node and every node under it (planning only: it allocates).
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// Replaces every node `f` gives a replacement for (not looking under it), top down.
    pub fn rewrite(&mut self, f: &impl Fn(&Expr) -> Option<Expr>) {
        if let Some(new) = f(self) {
            *self = new;
            return;
        }
        for c in self.children_mut() {
            c.rewrite(f);
        }
    }

    /// Rewrites column positions through `map` (table position → fetched-row position).
    pub fn remap(&mut self, map: &impl Fn(usize) -> usize) {
        if let Expr::Column(p) = self {
            *p = map(*p);
        }
        for c in self.children_mut() {
            c.remap(map);
        }
    }

    /// True when the value depends on no row (constants, parameters, session values).
    pub fn is_row_free(&self) -> bool {
        let mut free = true;
        self.walk(&mut |e| {
            // RAND and UUID give another value at each call, as if they read the row.
            if matches!(e, Expr::Column(_) | Expr::Agg(_) | Expr::Correlated { .. })
                || matches!(e, Expr::Call(f, _) if f.is_volatile())
            {
                free = false;
            }
        });
        free
    }

    /// True when a correlated subquery is part of the expression.
    pub fn has_correlated(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Correlated { .. }));
        found
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
