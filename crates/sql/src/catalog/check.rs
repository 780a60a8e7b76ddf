//! CHECK constraints' conditions in MariaDB's spelling, as it keeps and shows them: columns in
//! backticks, keywords and function names in lower case, no parentheses the operators' order
//! does not need, a negated comparison turned around (`not (a = 5)` is `` `a` <> 5 ``, De
//! Morgan's laws over AND and OR), strings with backslash escapes. What this printer does not
//! know is printed as sqlparser prints it; `kept` refuses a text that would not read back as
//! the same condition.

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

/// `NOT expr` as MariaDB spells it: a comparison, IS [NOT] NULL, [NOT] IN, BETWEEN and LIKE
/// turned around, De Morgan's laws over AND and OR, else `not(...)`.
fn negation(expr: &Expr) -> String {
    match strip(expr) {
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
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => spell(&Expr::Between {
            expr: expr.clone(),
            negated: !negated,
            low: low.clone(),
            high: high.clone(),
        }),
        Expr::Like {
            negated: false,
            expr,
            pattern,
            escape_char,
            ..
        } => like(expr, pattern, escape_char.as_deref(), true),
        // De Morgan: MariaDB pushes the NOT into AND and OR.
        Expr::BinaryOp {
            left,
            op: op @ (B::And | B::Or),
            right,
        } => {
            let not = |e: &Expr| Expr::UnaryOp {
                op: UnaryOperator::Not,
                expr: Box::new(e.clone()),
            };
            spell(&Expr::BinaryOp {
                left: Box::new(Expr::Nested(Box::new(not(left)))),
                op: if *op == B::And { B::Or } else { B::And },
                right: Box::new(Expr::Nested(Box::new(not(right)))),
            })
        }
        inner => format!("not({})", spell(inner)),
    }
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
        // sqlparser reads XOR as binding tighter than a comparison (MariaDB: between AND and
        // OR): its operands keep their parentheses so the text reads back the same.
        Expr::BinaryOp {
            left,
            op: B::Xor,
            right,
        } => format!("{} xor {}", operand(left, 20), operand(right, 20)),
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
        } => negation(expr),
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
            escape_char,
            ..
        } => like(expr, pattern, escape_char.as_deref(), *negated),
        Expr::RLike {
            negated,
            expr,
            pattern,
            ..
        } => format!(
            "{} {}regexp {}",
            operand(expr, 6),
            if *negated { "not " } else { "" },
            operand(pattern, 6)
        ),
        Expr::Function(f) => function(f).unwrap_or_else(|| e.to_string()),
        other => other.to_string(),
    }
}

/// `expr [not] like pattern [escape 'c']` (MariaDB's NOT LIKE has two spaces before `not`).
fn like(expr: &Expr, pattern: &Expr, escape: Option<&Expr>, negated: bool) -> String {
    let mut text = format!(
        "{}{}like {}",
        operand(expr, 6),
        if negated { "  not " } else { " " },
        operand(pattern, 6)
    );
    if let Some(escape) = escape {
        text.push_str(&format!(" escape {}", operand(escape, 20)));
    }
    text
}

/// The text a condition is kept as: its spelling, when that reads back as the same condition
/// (spelled again, the same text); None when it would not (a construct the printer leaves to
/// sqlparser, whose text may read otherwise).
pub(crate) fn kept(e: &Expr) -> Option<String> {
    let text = spell(e);
    let again = sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
        .try_with_sql(&text)
        .and_then(|mut p| p.parse_expr())
        .ok()?;
    (spell(&again) == text).then_some(text)
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
            ("b NOT LIKE 'x%'", "`b`  not like 'x%'"),
            ("NOT (a > 0 AND a < 5)", "`a` <= 0 or `a` >= 5"),
            ("b LIKE 'A!_%' ESCAPE '!'", "`b` like 'A!_%' escape '!'"),
            (
                "b REGEXP '^[0-9]+\\\\.[0-9]+$'",
                "`b` regexp '^[0-9]+\\\\.[0-9]+$'",
            ),
            ("a NOT BETWEEN 1 AND 2", "`a` not between 1 and 2"),
            ("-a < 5", "-`a` < 5"),
        ] {
            assert_eq!(text(given), shown, "{given}");
        }
    }

    /// Every spelling above reads back as itself; XOR's operands keep their parentheses.
    #[test]
    fn kept_texts_read_back_as_the_same_condition() {
        for given in [
            "(a > 0) XOR (b > 0)",
            "b NOT LIKE 'x%'",
            "NOT (a > 0 AND b > 0)",
            "b REGEXP '^[0-9]+\\\\.[0-9]+$'",
            "c = 1 OR (c > 2 AND c < 5)",
        ] {
            let e = sqlparser::parser::Parser::new(&crate::parse::dialect::Cairn)
                .try_with_sql(given)
                .and_then(|mut p| p.parse_expr())
                .expect("an expression");
            assert!(kept(&e).is_some(), "{given}: {}", spell(&e));
        }
    }
}
