//! CHECK constraints' conditions in MariaDB's spelling, as it keeps and shows them: columns in
//! backticks, keywords and function names in lower case, no parentheses the operators' order
//! does not need, a negated comparison turned around (`not (a = 5)` is `` `a` <> 5 ``), strings
//! with backslash escapes. What this printer does not know is printed as sqlparser prints it.

use sqlparser::ast::{self, BinaryOperator as B, Expr, UnaryOperator};

use crate::catalog::definition::backticked;

/// How tightly an expression binds (MariaDB's order): a child binding less tightly than its
/// parent's operator needs parentheses.
fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::BinaryOp { op, .. } => match op {
            B::Or => 1,
            B::Xor => 2,
            B::And => 3,
            B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship => 5,
            B::BitwiseOr => 6,
            B::BitwiseAnd => 7,
            B::Plus | B::Minus => 9,
            B::Multiply | B::Divide | B::Modulo | B::MyIntegerDivide => 10,
            B::BitwiseXor => 11,
            _ => 5,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            ..
        } => 4,
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsFalse(_)
        | Expr::InList { .. }
        | Expr::Between { .. }
        | Expr::Like { .. } => 5,
        Expr::Nested(inner) => precedence(inner),
        _ => 20,
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => strip(inner),
        e => e,
    }
}

/// `e` as MariaDB spells it, parenthesized when it binds less tightly than `at_least`.
fn operand(e: &Expr, at_least: u8) -> String {
    let e = strip(e);
    let text = spell(e);
    if precedence(e) < at_least {
        format!("({text})")
    } else {
        text
    }
}

fn operator(op: &B) -> String {
    match op {
        B::And => "and".into(),
        B::Or => "or".into(),
        B::Xor => "xor".into(),
        B::NotEq => "<>".into(),
        B::MyIntegerDivide => "DIV".into(),
        B::Modulo => "MOD".into(),
        other => other.to_string(),
    }
}

/// The comparison that is true where `op` is false (for a NOT over it), if there is one.
fn negated(op: &B) -> Option<B> {
    Some(match op {
        B::Eq => B::NotEq,
        B::NotEq => B::Eq,
        B::Lt => B::GtEq,
        B::GtEq => B::Lt,
        B::Gt => B::LtEq,
        B::LtEq => B::Gt,
        _ => return None,
    })
}

fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn list(items: &[Expr]) -> String {
    items
        .iter()
        .map(|e| operand(e, 0))
        .collect::<Vec<_>>()
        .join(",")
}

/// A condition in MariaDB's spelling (see the module's note).
pub(crate) fn spell(e: &Expr) -> String {
    match e {
        Expr::Nested(inner) => spell(inner),
        Expr::Identifier(i) => backticked(&i.value),
        Expr::CompoundIdentifier(parts) => parts
            .last()
            .map_or_else(String::new, |i| backticked(&i.value)),
        Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => string(s),
            ast::Value::Boolean(b) => if *b { "1" } else { "0" }.into(),
            ast::Value::Null => "NULL".into(),
            other => other.to_string(),
        },
        Expr::BinaryOp { left, op, right } => {
            let p = precedence(e);
            // Left-associative: a right operand of the same level keeps its parentheses.
            format!(
                "{} {} {}",
                operand(left, p),
                operator(op),
                operand(right, p + 1)
            )
        }
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr,
        } => match strip(expr) {
            Expr::BinaryOp { left, op, right } if negated(op).is_some() => spell(&Expr::BinaryOp {
                left: left.clone(),
                op: negated(op).unwrap_or(B::NotEq),
                right: right.clone(),
            }),
            Expr::IsNull(inner) => spell(&Expr::IsNotNull(inner.clone())),
            Expr::IsNotNull(inner) => spell(&Expr::IsNull(inner.clone())),
            Expr::InList {
                expr,
                list,
                negated,
            } => spell(&Expr::InList {
                expr: expr.clone(),
                list: list.clone(),
                negated: !negated,
            }),
            inner => format!("!({})", spell(inner)),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => format!("-{}", operand(expr, 20)),
        Expr::IsNull(inner) => format!("{} is null", operand(inner, 6)),
        Expr::IsNotNull(inner) => format!("{} is not null", operand(inner, 6)),
        Expr::InList {
            expr,
            list: items,
            negated,
        } => format!(
            "{} {}in ({})",
            operand(expr, 6),
            if *negated { "not " } else { "" },
            list(items)
        ),
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => format!(
            "{} {}between {} and {}",
            operand(expr, 6),
            if *negated { "not " } else { "" },
            operand(low, 6),
            operand(high, 6)
        ),
        Expr::Like {
            negated,
            expr,
            pattern,
            ..
        } => {
            let text = format!("{} like {}", operand(expr, 6), operand(pattern, 6));
            if *negated {
                format!("!({text})")
            } else {
                text
            }
        }
        Expr::Function(f) => function(f).unwrap_or_else(|| e.to_string()),
        other => other.to_string(),
    }
}

/// A call with plain arguments: `name(a,b)` in lower case (LENGTH is MariaDB's octet_length).
fn function(f: &ast::Function) -> Option<String> {
    let ast::FunctionArguments::List(args) = &f.args else {
        return None;
    };
    if args.duplicate_treatment.is_some() || !args.clauses.is_empty() || f.over.is_some() {
        return None;
    }
    let mut out = Vec::with_capacity(args.args.len());
    for a in &args.args {
        match a {
            ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => out.push(operand(e, 0)),
            _ => return None,
        }
    }
    let name = f.name.to_string().to_ascii_lowercase();
    let name = match name.as_str() {
        "length" => "octet_length".to_string(),
        "character_length" => "char_length".to_string(),
        _ => name,
    };
    Some(format!("{name}({})", out.join(",")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(sql: &str) -> String {
        let e = sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .expect("an expression");
        spell(&e)
    }

    /// What MariaDB 10.11 shows in SHOW CREATE TABLE for each condition.
    #[test]
    fn conditions_are_spelled_as_mariadb_keeps_them() {
        for (given, shown) in [
            (
                "c = 1 OR (c > 2 AND c < 5)",
                "`c` = 1 or `c` > 2 and `c` < 5",
            ),
            ("a > 0", "`a` > 0"),
            ("b <> 'x'", "`b` <> 'x'"),
            ("a IN (1, 2, 3)", "`a` in (1,2,3)"),
            (
                "LENGTH(CONCAT('a', a)) > 1",
                "octet_length(concat('a',`a`)) > 1",
            ),
            (
                "a IS NULL OR a BETWEEN 0 AND 9",
                "`a` is null or `a` between 0 and 9",
            ),
            ("NOT (a = 5)", "`a` <> 5"),
            ("a + 1 > 2 * (a - 1)", "`a` + 1 > 2 * (`a` - 1)"),
            ("b LIKE 'x%'", "`b` like 'x%'"),
            ("b = 'it''s'", "`b` = 'it\\'s'"),
            ("((x > 1) AND (x < 5))", "`x` > 1 and `x` < 5"),
            ("(a OR b) AND c", "(`a` or `b`) and `c`"),
        ] {
            assert_eq!(text(given), shown, "{given}");
        }
    }
}
