//! The expression compiler: sqlparser's expression tree to `Expr`, names bound to the columns of
//! the scopes in FROM (`Compiler`), functions to the library's calls, literals to values.

use super::*;
use crate::expr::aggregate::{AggKind, Aggregate};
use crate::expr::cast::CastTo;
use crate::expr::funcs::json::{json_scalar, json_text_scalar};
use crate::expr::funcs::{self, Func, MathFn, StrFn};
use crate::foundation::error::SqlError;
use base::text::value_text;
use base::types::Collation;
use base::Value;
use sqlparser::ast::{self, Expr as Ast};
use sqlparser::tokenizer::Location;

impl<'a> Compiler<'a> {
    /// The definition of the input row's column `p`, when a scope's table has it.
    pub(crate) fn column_def(&self, p: usize) -> Option<&base::schema::ColumnDef> {
        self.scopes
            .iter()
            .find_map(|s| p.checked_sub(s.offset).and_then(|i| s.def.columns.get(i)))
    }

    /// The type of the input row's column `p`, when a scope's table has it.
    fn column_type(&self, p: usize) -> Option<base::types::ColumnType> {
        self.column_def(p).map(|c| c.ty)
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
        let number = string_const(other)
            .filter(|b| b.len() <= 8)
            .map(|b| b.iter().fold(0u64, |n, byte| n << 8 | u64::from(*byte)));
        if let Some(n) = number {
            *other = Expr::Const(Value::UInt(n));
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
            windows: None,
            group_arguments: false,
            item_aliases: Vec::new(),
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
        if found.is_none() && qualifier.is_empty() {
            if let Some(item) = self
                .item_aliases
                .iter()
                .find(|i| i.alias.eq_ignore_ascii_case(name))
            {
                if item.aggregate {
                    return Err(SqlError::new(
                        1247,
                        "42S22",
                        format!("Reference '{name}' not supported (reference to group function)"),
                    ));
                }
                if item.window && self.group_arguments {
                    return Err(crate::expr::window::in_group_function());
                }
                return Ok(item.expr.clone());
            }
        }
        let p = found.ok_or_else(|| SqlError::unknown_column(&full(), self.place))?;
        Ok(self.column_value(p))
    }

    /// Column `p` as an expression: an ENUM's or SET's as the names its number stands for.
    fn column_value(&self, p: usize) -> Expr {
        match self.column_def(p) {
            Some(c) => column_expr(c, p),
            None => Expr::Column(p),
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
                o if equality && string_const(o).is_some() => {
                    let b = string_const(o).unwrap_or_default();
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
                        base::text::member_value(&def, &Value::Bytes(b.to_vec()))
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
                // A hexadecimal literal is a binary string, as `_binary` makes one.
                ast::Value::HexStringLiteral(_) => Expr::Cast(
                    Box::new(Expr::Const(literal(&v.value)?)),
                    CastTo::Introduced(Collation::Binary),
                ),
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
                if op.is_comparison() {
                    l = self.json_compared(l, &r);
                    r = self.json_compared(r, &l);
                } else if !matches!(op, BinOp::And | BinOp::Or | BinOp::Xor) {
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
                let list = list
                    .iter()
                    .map(|x| self.compile(x))
                    .collect::<Result<Vec<_>>>()?;
                let e = self.compile(expr)?;
                let e = match list.iter().all(|x| self.string_typed(x)) {
                    true => json_text_scalar(e),
                    false => json_scalar(e),
                };
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
                self.binary_units(Func::Substring, args)?
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
            e => string_const(&e).ok_or_else(bad)?.to_vec(),
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

    /// A call of SUBSTRING, LEFT, RIGHT, CHAR_LENGTH, REVERSE, UPPER or LOWER, of bytes when
    /// its string is binary: a binary string's characters are its bytes, which need be no
    /// UTF-8, and it has no letters to change.
    fn binary_units(&self, func: Func, args: Vec<Expr>) -> Result<Expr> {
        let d = self.derive(&args[0])?;
        let call = Expr::Call(func, args);
        Ok(if d.is_string() && d.collation == Collation::Binary {
            Expr::Collated(Collation::Binary, Box::new(call))
        } else {
            call
        })
    }

    /// MariaDB's 4079 when a spatial function's first argument is of a type it does not take:
    /// a number (or date) where text or a spatial value goes, and text, too, where a spatial
    /// value or WKB goes. Known here for constants and columns; other expressions go through
    /// (their value decides).
    fn spatial_argument(&self, g: funcs::SpatialFn, arg: &Expr) -> Result<()> {
        use base::types::ColumnType as T;
        let takes_text = matches!(g, funcs::SpatialFn::FromText | funcs::SpatialFn::Point);
        let type_name = match arg {
            Expr::Const(Value::Int(i)) if i32::try_from(*i).is_ok() => "int".to_string(),
            Expr::Const(Value::Int(_) | Value::UInt(_)) => "bigint".to_string(),
            Expr::Const(Value::Decimal(_)) => "decimal".to_string(),
            Expr::Const(Value::Double(_)) => "double".to_string(),
            // A text literal (a binary one is `_binary` or hex: a cast, which goes through).
            Expr::Const(Value::Bytes(_)) if !takes_text => "varchar".to_string(),
            Expr::Column(p) => match self.column_def(*p) {
                Some(c)
                    if c.geometry.is_some()
                        || (c.collation == Collation::Binary && c.ty.is_string()) =>
                {
                    return Ok(())
                }
                Some(c) if c.ty.is_string() && takes_text => return Ok(()),
                Some(c) => match c.ty {
                    T::Text { size } => {
                        ["tiny", "", "medium", "long"][size as usize].to_string() + "blob"
                    }
                    T::Char { .. } => "char".to_string(),
                    T::VarChar { .. } => "varchar".to_string(),
                    ty => ty.data_type(),
                },
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        match g.spatial_operation() {
            Some(op) => Err(funcs::spatial::illegal_type(&type_name, op)),
            None => Ok(()),
        }
    }

    /// Whether `e` is plainly a spatial value: a spatial column, or a function making one.
    fn is_spatial(&self, e: &Expr) -> bool {
        match e {
            Expr::Column(p) => self.column_def(*p).is_some_and(|c| c.geometry.is_some()),
            Expr::Call(Func::Spatial(g), _) => g.makes_geometry(),
            _ => false,
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
    pub(crate) fn aggregate(
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
        if f.filter.is_some() || !f.within_group.is_empty() {
            return Err(SqlError::unsupported(format!("the function {f}")));
        }
        if f.over.is_some() {
            return self.window_call(f, &name, &args, distinct, clauses);
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
                // `VALUES(t.c)`, `VALUES(db.t.c)`: qualified with a table of the statement.
                [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(Ast::CompoundIdentifier(
                    parts,
                )))] if (2..=3).contains(&parts.len()) => {
                    let table = &parts[parts.len() - 2].value;
                    let known = self
                        .scopes
                        .iter()
                        .any(|s| s.name.eq_ignore_ascii_case(table));
                    let column = &parts[parts.len() - 1].value;
                    if !known {
                        return Err(SqlError::unknown_column(
                            &format!("{table}.{column}"),
                            self.place,
                        ));
                    }
                    column
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
            let in_arguments = std::mem::replace(&mut self.group_arguments, true);
            let compiled = self.aggregate(f, kind, &args, distinct, clauses);
            self.group_arguments = in_arguments;
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
                if let Func::Spatial(g) = func {
                    self.spatial_argument(g, &compiled[0])?;
                    // ST_GeomFromWKB of a spatial value is that value, as in MariaDB.
                    if g == funcs::SpatialFn::FromWkb && self.is_spatial(&compiled[0]) {
                        let mut compiled = compiled;
                        return Ok(compiled.swap_remove(0));
                    }
                }
                // A latin1 string is one byte a character in its own character set, and the
                // functions of bytes read those bytes.
                if func == Func::Length && self.is_latin1(&compiled[0])? {
                    return Ok(Expr::Call(Func::CharLength, compiled));
                }
                if matches!(
                    func,
                    Func::Substring
                        | Func::Left
                        | Func::Right
                        | Func::CharLength
                        | Func::Reverse
                        | Func::Upper
                        | Func::Lower
                ) && !self.is_latin1(&compiled[0])?
                {
                    return self.binary_units(func, compiled);
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

/// Column `c`, at position `p` of the rows read, as an expression: an ENUM's or SET's as the
/// names its number stands for (as every reference to it reads, `*` too).
pub(crate) fn column_expr(c: &base::schema::ColumnDef, p: usize) -> Expr {
    match c.ty {
        base::types::ColumnType::Enum | base::types::ColumnType::Set => Expr::Members {
            value: Box::new(Expr::Column(p)),
            members: c.members.clone().into(),
            set: c.ty == base::types::ColumnType::Set,
        },
        _ => Expr::Column(p),
    }
}
