//! How the compiler hands arguments to JSON functions: a truth value (TRUE, a comparison)
//! marked to go into a document as true or false, a JSON value (a JSON column's, a JSON
//! aggregate's, IFNULL of JSON ...) marked to go in as JSON, and JSON_EXTRACT read as a scalar
//! where a comparison or arithmetic takes it.

use base::types::Collation;
use base::Value;
use sqlparser::ast;

use super::JsonFn;
use crate::expr::aggregate::AggKind;
use crate::expr::funcs::{Func, StrFn};
use crate::expr::{BinOp, Compiler, Env, Expr};
use crate::foundation::error::SqlError;

type Ast = ast::Expr;

impl Compiler<'_> {
    /// A call of JSON function `j` named `name` over compiled arguments `compiled` (given as
    /// `args`): its count checked (1582), its value arguments marked.
    pub(crate) fn json_call(
        &self,
        j: JsonFn,
        name: &str,
        compiled: Vec<Expr>,
        args: &[&ast::FunctionArg],
    ) -> Result<Expr, SqlError> {
        j.check_count(name, compiled.len())?;
        let n = compiled.len();
        let compiled = compiled
            .into_iter()
            .zip(args)
            .enumerate()
            .map(|(i, (e, a))| {
                if j.takes_value_at(i, n) {
                    self.json_marked(e, a)
                } else {
                    e
                }
            })
            .collect();
        Ok(Expr::Call(Func::Json(j), compiled))
    }

    /// An argument whose value a JSON function puts into a document, marked when it is a truth
    /// value (`a` is TRUE or FALSE, or `e` a comparison) or a JSON column's, which go in as
    /// true/false and as JSON rather than as a number or string.
    pub(crate) fn json_marked(&self, e: Expr, a: &ast::FunctionArg) -> Expr {
        let literal = matches!(
            a,
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(Ast::Value(v)))
                if matches!(v.value, ast::Value::Boolean(_))
        );
        if literal || is_truth_value(&e) {
            Expr::Call(Func::Json(JsonFn::AsBool), vec![e])
        } else if self.is_json(&e) && !matches!(e, Expr::Call(Func::Json(_), _)) {
            Expr::Call(Func::Json(JsonFn::AsJson), vec![e])
        } else {
            e
        }
    }

    /// Whether `e`'s value is JSON text MariaDB types as JSON: a JSON column's, a JSON
    /// aggregate's, MIN or MAX of a JSON column, or IFNULL, COALESCE, IF, NULLIF or CASE
    /// giving one (or a JSON function's result).
    fn is_json(&self, e: &Expr) -> bool {
        match e {
            Expr::Call(Func::Json(f), _) => f.returns_json(),
            Expr::Agg(i) => self
                .aggregates
                .as_deref()
                .and_then(|list| list.get(*i))
                .is_some_and(|a| match a.kind {
                    AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => true,
                    kind if kind.is_argument_value() => {
                        a.arg.as_ref().is_some_and(|x| self.is_json(x))
                    }
                    _ => false,
                }),
            // JSON when every branch that is not NULL is.
            Expr::Call(Func::IfNull | Func::Coalesce, args) => self.all_json(args.iter()),
            Expr::Call(Func::NullIf, args) => self.is_json(&args[0]),
            Expr::Call(Func::If, args) => self.all_json(args[1..].iter()),
            Expr::Case {
                whens, otherwise, ..
            } => self.all_json(whens.iter().map(|(_, t)| t).chain(otherwise.as_deref())),
            other => self.is_json_column(other),
        }
    }

    /// Whether every branch but NULL ones is JSON, and one is.
    fn all_json<'e>(&self, branches: impl Iterator<Item = &'e Expr>) -> bool {
        let mut any = false;
        for b in branches {
            if matches!(b, Expr::Const(Value::Null)) {
                continue;
            }
            if !self.is_json(b) {
                return false;
            }
            any = true;
        }
        any
    }

    /// A JSON_EXTRACT compared with `other` as MariaDB compares it: as text when `other` is a
    /// string, else as a number (true and false are 1 and 0; a parameter's value decides as the
    /// statement runs, `numbered_pair`); anything else as it is.
    pub(crate) fn json_compared(&self, e: Expr, other: &Expr) -> Expr {
        match self.string_typed(other) && !json_extract_raw(other) {
            true => json_text_scalar(e),
            false => json_scalar(e),
        }
    }

    /// Whether `e` is plainly a string: a string constant, or a column of a string type.
    pub(crate) fn string_typed(&self, e: &Expr) -> bool {
        match e {
            Expr::Const(v) => matches!(v, Value::Bytes(_)),
            Expr::Collated(_, inner) => self.string_typed(inner),
            e if crate::expr::string_const(e).is_some() => true,
            Expr::Column(p) => self
                .column_def(*p)
                .is_some_and(|c| c.ty.is_string() && !c.json),
            _ => false,
        }
    }

    /// Whether `e` reads a column declared JSON.
    fn is_json_column(&self, e: &Expr) -> bool {
        let Expr::Column(p) = e else {
            return false;
        };
        self.column_def(*p).is_some_and(|c| c.json)
    }
}

/// A JSON_EXTRACT compared or computed with: its value as MariaDB reads it there, a string
/// unquoted and true/false as 1/0 (JSON_EXTRACT(j, '$.name') = 'Alice').
pub(crate) fn json_scalar(e: Expr) -> Expr {
    match e {
        Expr::Call(Func::Json(JsonFn::Extract), args) => {
            Expr::Call(Func::Json(JsonFn::ExtractScalar), args)
        }
        other => other,
    }
}

/// Whether `e` is a JSON_EXTRACT as written (a comparison's other side, `json_compared`).
fn json_extract_raw(e: &Expr) -> bool {
    matches!(e, Expr::Call(Func::Json(JsonFn::Extract), _))
}

/// A JSON_EXTRACT's value `v` compared with `other`: read again as text when `other` is a
/// string (a value of a parameter, known only as the statement runs), as MariaDB compares them:
/// `JSON_EXTRACT(j, '$.flag') = 'true'` holds for a JSON true. Anything else is `v`.
pub(crate) fn json_as_text(
    e: &Expr,
    v: Value,
    other: &Value,
    env: &Env,
) -> crate::foundation::error::Result<Value> {
    match e {
        Expr::Call(Func::Json(JsonFn::ExtractScalar), args)
            if matches!(other, Value::Bytes(_)) && !matches!(v, Value::Bytes(_)) =>
        {
            super::call(JsonFn::ExtractText, args, env, Collation::Binary)
        }
        _ => Ok(v),
    }
}

/// A JSON_EXTRACT compared with a string: as MariaDB compares it there, as text (a string
/// unquoted, true and false as written), so `JSON_EXTRACT(j, '$.flag') = 'true'` holds.
pub(crate) fn json_text_scalar(e: Expr) -> Expr {
    match e {
        Expr::Call(Func::Json(JsonFn::Extract), args) => {
            Expr::Call(Func::Json(JsonFn::ExtractText), args)
        }
        other => other,
    }
}

/// Whether `e` is a truth value as MariaDB types one (a comparison, a logical operator, IS
/// NULL, IN, BETWEEN, LIKE): JSON functions make it true or false.
fn is_truth_value(e: &Expr) -> bool {
    match e {
        Expr::Binary(op, ..) => {
            op.is_comparison() || matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
        }
        Expr::Collated(_, inner) => is_truth_value(inner),
        Expr::Call(Func::Str(StrFn::Regexp), _) => true,
        Expr::Not(_) | Expr::IsNull(..) | Expr::Between(..) | Expr::In(..) | Expr::Like(..) => true,
        _ => false,
    }
}
