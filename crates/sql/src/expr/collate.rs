//! Collation derivation: which collation compares, sorts and groups the strings of an
//! expression, from its operands' collations and coercibility, by the rules MariaDB applies
//! (an explicit COLLATE beats a column, which beats a literal; at equal strength a binary string
//! beats text and a `_bin` collation beats a case-insensitive one; two different explicit
//! collations are an error), and the compiler's use of it: comparisons wrapped in
//! `Expr::Collated`, `e COLLATE name`, the collations ORDER BY and GROUP BY keys sort under.

use base::types::{Charset, Collation};
use base::Value;
use sqlparser::ast;

use crate::expr::aggregate::{AggKind, Aggregate};
use crate::expr::funcs::{Func, JsonFn, MiscFn, StrFn};
use crate::expr::{op_text, BinOp, CastTo, Compiler, Expr};
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// How strongly a value holds its collation; lower wins (MySQL's COERCIBILITY() numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Coercibility {
    /// `x COLLATE c`.
    Explicit = 0,
    /// Two different collations of one character set at equal strength, neither `_bin`
    /// (`CONCAT(unicode_ci_col, general_ci_col)`): the set's `_bin` collation, which a
    /// comparison refuses (1267).
    None = 1,
    /// A column, CAST(... AS CHAR), a function of columns.
    Implicit = 2,
    /// USER(), DATABASE(), @@variables.
    SysConst = 3,
    /// A string literal or parameter.
    Coercible = 4,
    /// A number or temporal value: no collation of its own.
    Numeric = 5,
    /// NULL.
    Ignorable = 6,
}

impl Coercibility {
    fn name(self) -> &'static str {
        match self {
            Coercibility::Explicit => "EXPLICIT",
            Coercibility::None => "NONE",
            Coercibility::Implicit => "IMPLICIT",
            Coercibility::SysConst => "SYSCONST",
            Coercibility::Coercible => "COERCIBLE",
            Coercibility::Numeric => "NUMERIC",
            Coercibility::Ignorable => "IGNORABLE",
        }
    }
}

/// An expression's collation and how strongly it holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    pub collation: Collation,
    pub coercibility: Coercibility,
}

impl Derived {
    const NUMERIC: Derived = Derived {
        collation: Collation::Utf8mb4GeneralCi,
        coercibility: Coercibility::Numeric,
    };

    fn new(collation: Collation, coercibility: Coercibility) -> Derived {
        Derived {
            collation,
            coercibility,
        }
    }

    /// Whether the value is a string (not a number, a temporal value or NULL).
    pub fn is_string(self) -> bool {
        self.coercibility < Coercibility::Numeric
    }
}

/// The collation two operands are compared (or combined) under, or MariaDB's 1267 when neither
/// gives way. `op` names the operation for the message.
pub fn combine(a: Derived, b: Derived, op: &str) -> Result<Derived> {
    if a.coercibility != b.coercibility {
        return Ok(if a.coercibility < b.coercibility {
            a
        } else {
            b
        });
    }
    if a.collation == b.collation || !a.is_string() {
        return Ok(a);
    }
    let (x, y) = (a.collation, b.collation);
    let winner = if a.coercibility == Coercibility::Explicit {
        None
    } else if x == Collation::Binary || y == Collation::Binary {
        Some(Collation::Binary)
    } else if x.charset() != y.charset() {
        // The wider character set holds every character the other can.
        let width = |c: Collation| match c.charset() {
            Charset::Utf8mb4 => 3,
            Charset::Utf8mb3 => 2,
            _ => 1,
        };
        Some(if width(x) > width(y) { x } else { y })
    } else if x.is_bin() {
        Some(x)
    } else if y.is_bin() {
        Some(y)
    } else {
        // Neither gives way: the character set's `_bin`, with no coercibility left.
        let bin = match x.charset() {
            Charset::Utf8mb4 => Collation::Utf8mb4Bin,
            Charset::Utf8mb3 => Collation::Utf8mb3Bin,
            Charset::Latin1 => Collation::Latin1TextBin,
            Charset::Binary => Collation::Binary,
        };
        return Ok(Derived::new(bin, Coercibility::None));
    };
    match winner {
        Some(c) => Ok(Derived::new(c, a.coercibility)),
        None => Err(SqlError::new(
            1267,
            "HY000",
            format!(
                "Illegal mix of collations ({},{}) and ({},{}) for operation '{op}'",
                x.name(),
                a.coercibility.name(),
                y.name(),
                b.coercibility.name()
            ),
        )),
    }
}

/// MariaDB's 1267 for a comparison whose operands leave no collation: it names the first two
/// of the strongest that disagree.
fn conflict(parts: &[Derived], op: &str) -> SqlError {
    let strings: Vec<&Derived> = parts.iter().filter(|p| p.is_string()).collect();
    let strongest = strings.iter().map(|p| p.coercibility).min();
    let a = strings
        .iter()
        .find(|p| Some(p.coercibility) == strongest)
        .copied();
    let b = strings
        .iter()
        .find(|p| Some(**p) != a && Some(p.collation) != a.map(|a| a.collation))
        .copied();
    let describe = |p: Option<&Derived>| {
        p.map_or_else(String::new, |p| {
            format!("{},{}", p.collation.name(), p.coercibility.name())
        })
    };
    SqlError::new(
        1267,
        "HY000",
        format!(
            "Illegal mix of collations ({}) and ({}) for operation '{op}'",
            describe(a),
            describe(b)
        ),
    )
}

/// Combines every operand's derivation, as [`combine`] does for two.
pub fn combine_all(all: impl IntoIterator<Item = Derived>, op: &str) -> Result<Derived> {
    let mut out = Derived::new(Collation::Utf8mb4GeneralCi, Coercibility::Ignorable);
    for d in all {
        out = combine(out, d, op)?;
    }
    Ok(out)
}

/// What derivation needs to know beyond the expression: the collation of each input column
/// (None for a column that is not a string) and the statement's aggregates.
pub struct Inputs<'a> {
    pub column: &'a dyn Fn(usize) -> Option<Collation>,
    pub aggregates: &'a [Aggregate],
}

/// The collation and coercibility of an expression's value.
pub fn derive(e: &Expr, inputs: &Inputs) -> Result<Derived> {
    use Coercibility as K;
    let all = |args: &[Expr], op: &str| -> Result<Derived> {
        let mut parts = Vec::with_capacity(args.len());
        for a in args {
            parts.push(derive(a, inputs)?);
        }
        combine_all(parts, op)
    };
    Ok(match e {
        Expr::Const(Value::Null) => Derived::new(Collation::Utf8mb4GeneralCi, K::Ignorable),
        Expr::Const(Value::Bytes(_)) | Expr::Param(_) => {
            Derived::new(Collation::Utf8mb4GeneralCi, K::Coercible)
        }
        Expr::Const(_) => Derived::NUMERIC,
        Expr::Column(p) | Expr::Outer(p) => match (inputs.column)(*p) {
            Some(c) => Derived::new(c, K::Implicit),
            None => Derived::NUMERIC,
        },
        Expr::Var(_) | Expr::Session(_) => Derived::new(Collation::Utf8mb4GeneralCi, K::SysConst),
        Expr::Collate(_, c) => Derived::new(*c, K::Explicit),
        Expr::Collated(_, inner) => derive(inner, inputs)?,
        Expr::Cast(_, CastTo::Char(_)) => Derived::new(Collation::Utf8mb4GeneralCi, K::Implicit),
        Expr::Cast(_, CastTo::Binary(_)) => Derived::new(Collation::Binary, K::Implicit),
        Expr::Cast(_, CastTo::Charset(c)) => Derived::new(*c, K::Implicit),
        Expr::Cast(_, CastTo::Latin1Bytes) => Derived::new(Collation::Binary, K::Implicit),
        Expr::Cast(inner, CastTo::Shown(_)) => derive(inner, inputs)?,
        Expr::Cast(_, CastTo::Introduced(c)) => Derived::new(*c, K::Coercible),
        Expr::Agg(i) => match inputs.aggregates.get(*i) {
            Some(Aggregate {
                kind,
                arg: Some(arg),
                ..
            }) if kind.is_argument_value() || *kind == AggKind::GroupConcat => derive(arg, inputs)?,
            Some(Aggregate {
                kind: AggKind::JsonArrayAgg | AggKind::JsonObjectAgg,
                ..
            }) => Derived::new(Collation::Utf8mb4GeneralCi, K::Coercible),
            _ => Derived::NUMERIC,
        },
        Expr::Case {
            whens, otherwise, ..
        } => {
            let mut parts = Vec::new();
            for (_, then) in whens {
                parts.push(derive(then, inputs)?);
            }
            if let Some(o) = otherwise {
                parts.push(derive(o, inputs)?);
            }
            combine_all(parts, "case")?
        }
        Expr::Call(f, args) => match f {
            Func::Concat | Func::ConcatWs => all(args, "concat")?,
            Func::Upper
            | Func::Lower
            | Func::Substring
            | Func::Left
            | Func::Right
            | Func::Trim
            | Func::Ltrim
            | Func::Rtrim
            | Func::Repeat
            | Func::Reverse
            | Func::NullIf
            | Func::Str(
                StrFn::Lpad
                | StrFn::Rpad
                | StrFn::SubstringIndex
                | StrFn::Insert
                | StrFn::RegexpReplace
                | StrFn::RegexpSubstr,
            ) => string_of(derive(&args[0], inputs)?),
            Func::Replace => all(args, "replace")?,
            Func::IfNull | Func::Coalesce | Func::Greatest | Func::Least => all(args, "coalesce")?,
            Func::If => all(&args[1..], "if")?,
            Func::Str(StrFn::Elt) => all(&args[1..], "elt")?,
            Func::Str(s) if s.binary_result() => Derived::new(Collation::Binary, K::Implicit),
            Func::Spatial(g) if g.binary_result() => Derived::new(Collation::Binary, K::Implicit),
            Func::Spatial(g) if g.text_result() => {
                Derived::new(Collation::Utf8mb4GeneralCi, K::Coercible)
            }
            Func::Json(JsonFn::AsJson | JsonFn::AsBool) => derive(&args[0], inputs)?,
            Func::Misc(MiscFn::Uuid | MiscFn::InetNtoa) => {
                Derived::new(Collation::Utf8mb4GeneralCi, K::Coercible)
            }
            // MariaDB: JSON_UNQUOTE is utf8mb4_bin; what is taken out of a document has the
            // document's collation.
            Func::Json(JsonFn::Unquote) => Derived::new(Collation::Utf8mb4Bin, K::Implicit),
            Func::Json(
                JsonFn::Extract
                | JsonFn::ExtractScalar
                | JsonFn::ExtractText
                | JsonFn::Scalar
                | JsonFn::Query
                | JsonFn::Search,
            ) => string_of(derive(&args[0], inputs)?),
            Func::Json(j) if j.returns_text() => {
                Derived::new(Collation::Utf8mb4GeneralCi, K::Coercible)
            }
            Func::Str(StrFn::Hex | StrFn::Space | StrFn::Quote | StrFn::Format)
            | Func::Str(StrFn::Md5 | StrFn::Sha1 | StrFn::Sha2 | StrFn::ToBase64) => {
                Derived::new(Collation::Utf8mb4GeneralCi, K::Coercible)
            }
            _ => Derived::NUMERIC,
        },
        _ => Derived::NUMERIC,
    })
}

/// A string function's result keeps its string argument's collation; a number argument gives
/// the connection's.
fn string_of(d: Derived) -> Derived {
    if d.is_string() {
        d
    } else {
        Derived::new(Collation::Utf8mb4GeneralCi, Coercibility::Coercible)
    }
}

/// The collation of a column type's values, None when they are not strings.
pub fn of_column(column: &base::schema::ColumnDef) -> Option<Collation> {
    column.ty.is_string().then_some(column.collation)
}

/// Collation derivation as the compiler applies it to what it compiles.
impl Compiler<'_> {
    /// The collation of the strings of input column `p` (None when it is not a string).
    pub fn column_collation(&self, p: usize) -> Option<Collation> {
        self.scopes.iter().find_map(|s| {
            let i = p.checked_sub(s.offset)?;
            s.def.columns.get(i).and_then(of_column)
        })
    }

    /// The collation and coercibility of a compiled expression's value.
    pub fn derive(&self, e: &Expr) -> Result<Derived> {
        let column = |p: usize| self.column_collation(p);
        let inputs = Inputs {
            column: &column,
            aggregates: self.aggregates.as_deref().unwrap_or(&[]),
        };
        derive(e, &inputs)
    }

    /// The collation an expression's strings sort and group by (utf8mb4_general_ci unless
    /// derived otherwise).
    pub fn sort_collation(&self, e: &Expr) -> Result<Collation> {
        let d = self.derive(e)?;
        Ok(if d.is_string() {
            d.collation
        } else {
            Collation::Utf8mb4GeneralCi
        })
    }

    /// Wraps a node that compares strings in [`Expr::Collated`] when its operands derive a
    /// collation other than utf8mb4_general_ci; fails with 1267 when they conflict.
    pub(crate) fn collated(&self, e: Expr) -> Result<Expr> {
        let (operands, op): (Vec<&Expr>, &str) = match &e {
            Expr::Binary(
                op @ (BinOp::Eq
                | BinOp::NullSafeEq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge),
                l,
                r,
            ) => (vec![l, r], op_text(*op)),
            Expr::Between(a, b, c, _) => (vec![a, b, c], "between"),
            Expr::In(a, list, _) => (std::iter::once(&**a).chain(list).collect(), "in"),
            Expr::Like(a, b, _) => (vec![a, b], "like"),
            Expr::Case {
                operand: Some(o),
                whens,
                ..
            } => (
                std::iter::once(&**o)
                    .chain(whens.iter().map(|(w, _)| w))
                    .collect(),
                "case",
            ),
            Expr::Call(f, args) if f.compares_strings() => (args.iter().collect(), "function"),
            _ => return Ok(e),
        };
        let mut parts = Vec::with_capacity(operands.len());
        for o in &operands {
            parts.push(self.derive(o)?);
        }
        let d = combine_all(parts.iter().copied(), op)?;
        if d.coercibility == Coercibility::None {
            return Err(conflict(&parts, op));
        }
        // A literal gives way to a utf8mb3 or latin1 operand only when that character set can
        // hold its characters.
        if matches!(d.collation.charset(), Charset::Utf8mb3 | Charset::Latin1) {
            let charset = d.collation.charset();
            let wide = |o: &&Expr| match o {
                Expr::Const(Value::Bytes(b)) => {
                    !base::collation::fits(&String::from_utf8_lossy(b), charset)
                }
                _ => false,
            };
            if operands.iter().any(wide) {
                return Err(SqlError::new(
                    1267,
                    "HY000",
                    format!(
                        "Illegal mix of collations ({},{}) and (utf8mb4_general_ci,COERCIBLE) \
                         for operation '{op}'",
                        d.collation.name(),
                        d.coercibility.name()
                    ),
                ));
            }
        }
        Ok(
            if !d.is_string() || d.collation == Collation::Utf8mb4GeneralCi {
                e
            } else {
                Expr::Collated(d.collation, Box::new(e))
            },
        )
    }

    /// `e COLLATE name`: 1273 for a name MariaDB does not know, 1253 when the collation is
    /// not one of the value's character set.
    pub(crate) fn collate(&mut self, e: &ast::Expr, name: &ast::ObjectName) -> Result<Expr> {
        let inner = self.compile(e)?;
        let name = name.to_string();
        let name = name.trim_matches(|c| c == '\'' || c == '"' || c == '`');
        let collation = match Collation::from_name(name) {
            Some(c) => c.text_form(),
            None => {
                return Err(crate::expr::collate::CollationSpec {
                    charset: None,
                    collation: Some(name.to_string()),
                }
                .resolve()
                .err()
                .unwrap_or_else(|| SqlError::unsupported(format!("COLLATE {name}"))))
            }
        };
        let d = self.derive(&inner)?;
        let charset = if d.is_string() {
            d.collation.charset()
        } else {
            base::types::Charset::Utf8mb4
        };
        if charset != collation.charset() {
            return Err(SqlError::new(
                1253,
                "42000",
                format!(
                    "COLLATION '{}' is not valid for CHARACTER SET '{}'",
                    collation.name(),
                    charset.name()
                ),
            ));
        }
        Ok(Expr::Collate(Box::new(inner), collation))
    }
}

/// A `CHARACTER SET` and `COLLATE` pair as written (either may be missing).
#[derive(Default)]
pub(crate) struct CollationSpec {
    pub charset: Option<String>,
    pub collation: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(c: Collation, k: Coercibility) -> Derived {
        Derived::new(c, k)
    }

    #[test]
    fn the_stronger_side_wins_and_explicit_conflicts_are_errors() {
        use Coercibility as K;
        use Collation as C;
        let bin = d(C::Utf8mb4Bin, K::Implicit);
        let ci = d(C::Utf8mb4GeneralCi, K::Implicit);
        let literal = d(C::Utf8mb4GeneralCi, K::Coercible);
        assert_eq!(combine(ci, bin, "=").unwrap().collation, C::Utf8mb4Bin);
        assert_eq!(combine(literal, bin, "=").unwrap(), bin);
        let binary = d(C::Binary, K::Implicit);
        assert_eq!(combine(bin, binary, "=").unwrap().collation, C::Binary);
        let latin = d(C::Latin1Bin, K::Implicit);
        assert_eq!(combine(latin, ci, "=").unwrap(), ci);
        let explicit = d(C::Utf8mb4GeneralCi, K::Explicit);
        assert_eq!(combine(bin, explicit, "=").unwrap(), explicit);
        let err = combine(d(C::Utf8mb4Bin, K::Explicit), explicit, "=").unwrap_err();
        assert_eq!(err.code, 1267);
        assert!(
            err.message.contains("(utf8mb4_bin,EXPLICIT)"),
            "{}",
            err.message
        );
        assert_eq!(combine(Derived::NUMERIC, bin, "=").unwrap(), bin);
        // Two case-insensitive collations of one set: neither gives way.
        let unicode = d(C::Utf8mb4UnicodeCi, K::Implicit);
        assert_eq!(
            combine(unicode, ci, "concat").unwrap(),
            d(C::Utf8mb4Bin, K::None)
        );
        assert_eq!(combine(unicode, bin, "=").unwrap(), bin);
        let err = conflict(&[unicode, ci], "=");
        assert_eq!(err.code, 1267);
        assert!(
            err.message
                .contains("(utf8mb4_unicode_ci,IMPLICIT) and (utf8mb4_general_ci,IMPLICIT)"),
            "{}",
            err.message
        );
    }
}
