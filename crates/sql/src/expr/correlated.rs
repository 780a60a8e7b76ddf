//! The marker of a correlated subquery: the function call it stands as in its statement once
//! planned (`exec/subquery.rs` makes it), which the expression compiler reads back into
//! `Expr::Correlated`, and how the subquery's rows become its value (`Kind`).

use sqlparser::ast::{self, Expr as Ast};
use sqlparser::tokenizer::Span;

use crate::foundation::error::{Result, SqlError};

/// The function name standing for a correlated subquery in a rewritten statement (a NUL
/// starts it, which no identifier of a client's text holds).
pub(crate) const MARKER: &str = "\0correlated";

/// How a correlated subquery's rows become its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Scalar,
    Exists { negated: bool },
    In { negated: bool },
}

impl Kind {
    pub(crate) fn code(self) -> u8 {
        match self {
            Kind::Scalar => 0,
            Kind::Exists { negated } => 1 + negated as u8,
            Kind::In { negated } => 3 + negated as u8,
        }
    }

    pub(crate) fn from_code(c: u64) -> Option<Kind> {
        Some(match c {
            0 => Kind::Scalar,
            1 | 2 => Kind::Exists { negated: c == 2 },
            3 | 4 => Kind::In { negated: c == 4 },
            _ => return None,
        })
    }
}

/// The marker function [`Expr::Correlated`] is compiled from: `n`, the result type and the
/// argument expressions, read back by the expression compiler.
pub(crate) struct Marker;

impl Marker {
    pub(crate) fn make(n: usize, kind: Kind, ty: (u8, u32, u8), args: Vec<Ast>, at: Span) -> Ast {
        let number = |v: u64| {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(Ast::Value(ast::ValueWithSpan {
                value: ast::Value::Number(v.to_string(), false),
                span: Span::empty(),
            })))
        };
        let mut list = vec![
            number(kind.code() as u64),
            number(n as u64),
            number(ty.0 as u64),
            number(ty.1 as u64),
            number(ty.2 as u64),
        ];
        list.extend(
            args.into_iter()
                .map(|a| ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(a))),
        );
        Ast::Function(ast::Function {
            name: ast::ObjectName::from(vec![ast::Ident::with_span(at, MARKER)]),
            uses_odbc_syntax: false,
            parameters: ast::FunctionArguments::None,
            args: ast::FunctionArguments::List(ast::FunctionArgumentList {
                duplicate_treatment: None,
                args: list,
                clauses: Vec::new(),
            }),
            filter: None,
            null_treatment: None,
            over: None,
            within_group: Vec::new(),
        })
    }

    /// For a call of the marker function: the subquery's number, its result type and the
    /// argument expressions (an error for a malformed call).
    #[allow(clippy::type_complexity)]
    pub(crate) fn read<'a>(
        name: &str,
        args: &[&'a ast::FunctionArg],
    ) -> Option<Result<(usize, (u8, u32, u8), Vec<&'a Ast>)>> {
        if name != MARKER {
            return None;
        }
        let exprs: Option<Vec<&Ast>> = args
            .iter()
            .map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => Some(e),
                _ => None,
            })
            .collect();
        let number = |e: &Ast| match e {
            Ast::Value(ast::ValueWithSpan {
                value: ast::Value::Number(n, false),
                ..
            }) => n.parse::<u64>().ok(),
            _ => None,
        };
        let read = || {
            let exprs = exprs?;
            let head: Vec<u64> = exprs
                .iter()
                .take(5)
                .map(|e| number(e))
                .collect::<Option<_>>()?;
            let [kind, n, code, length, decimals] = head[..] else {
                return None;
            };
            Kind::from_code(kind)?;
            Some((
                usize::try_from(n).ok()?,
                (
                    u8::try_from(code).ok()?,
                    u32::try_from(length).ok()?,
                    u8::try_from(decimals).ok()?,
                ),
                exprs[5..].to_vec(),
            ))
        };
        Some(read().ok_or_else(|| SqlError::unsupported("the function this name stands for")))
    }
}
