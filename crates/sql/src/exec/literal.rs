//! A subquery's results put back into its statement as SQL: each value as a literal of the
//! same value and type (a binary string as a hex literal), and terms joined into balanced
//! AND/OR trees.

use base::Value;
use sqlparser::ast::{self, Expr as Ast};
use sqlparser::tokenizer::Span;

/// A value as a literal of the same value (its span: the subquery it replaces, so a select
/// item keeps the name its text gives it); a `binary` column's string as a hex literal, a
/// binary string as it was.
pub(crate) fn literal(v: Value, binary: bool, span: Span) -> Ast {
    let text = |v: &Value| {
        String::from_utf8_lossy(&base::text::value_text(v).unwrap_or_default()).into_owned()
    };
    // Dates and times stay of their type (a client reads a DATETIME, not a string); not yet
    // with a fraction of a second, which such a literal would not show.
    let typed = match &v {
        Value::Date(_) => Some(ast::DataType::Date),
        Value::Time(_) => Some(ast::DataType::Time(None, ast::TimezoneInfo::None)),
        Value::DateTime(_) => Some(ast::DataType::Datetime(None)),
        _ => None,
    };
    if let Some(data_type) = typed {
        let shown = text(&v);
        let fraction = shown.contains('.');
        let value = ast::ValueWithSpan {
            value: ast::Value::SingleQuotedString(shown),
            span,
        };
        return if fraction {
            Ast::Value(value)
        } else {
            Ast::TypedString(ast::TypedString {
                data_type,
                value,
                uses_odbc_syntax: false,
            })
        };
    }
    let value = match &v {
        Value::Null => ast::Value::Null,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            ast::Value::Number(text(&v), false)
        }
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) if !binary => ast::Value::SingleQuotedString(s.to_string()),
            _ => ast::Value::HexStringLiteral(b.iter().map(|x| format!("{x:02X}")).collect()),
        },
        other => ast::Value::SingleQuotedString(text(other)),
    };
    Ast::Value(ast::ValueWithSpan { value, span })
}

/// `terms` joined by `op` as a balanced tree (its depth grows with the log of their count, so
/// a subquery's many rows do not nest expressions past the planner's depth), or None if empty.
pub(crate) fn balanced(mut terms: Vec<Ast>, op: &ast::BinaryOperator) -> Option<Ast> {
    while terms.len() > 1 {
        let mut next = Vec::with_capacity(terms.len().div_ceil(2));
        let mut it = terms.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => Ast::BinaryOp {
                    left: Box::new(a),
                    op: op.clone(),
                    right: Box::new(b),
                },
                None => a,
            });
        }
        terms = next;
    }
    terms.pop()
}

/// TRUE or FALSE, where `span` is.
pub(crate) fn boolean(b: bool, span: Span) -> Ast {
    Ast::Value(ast::ValueWithSpan {
        value: ast::Value::Boolean(b),
        span,
    })
}
