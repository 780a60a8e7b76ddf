//! Cairn's SQL dialect: sqlparser's MySQL dialect, plus the interval units it does not know
//! (`INTERVAL '1 2' DAY_HOUR`, `EXTRACT(YEAR_MONTH FROM d)`), which it reads as custom fields,
//! MySQL's multi-table `UPDATE t1, t2 SET ...`, the modifiers of UPDATE and DELETE
//! (LOW_PRIORITY, QUICK, IGNORE), `SET CHARACTER SET`, MySQL's precedence of `^`, `<<`
//! and `>>`, and ZEROFILL after a column's type.

use sqlparser::ast::{
    ColumnOption, DateTimeField, Expr, Ident, Interval, ObjectName, Set, SetAssignment,
    SqliteOnConflict, Statement, Update, UpdateTableFromKind,
};
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// MySQL's dialect with MySQL's compound interval units.
#[derive(Debug, Default, Clone, Copy)]
pub struct Cairn;

const MYSQL: MySqlDialect = MySqlDialect {};

/// `^`: above sqlparser's `*` (40), below its `::` (50).
const BIT_XOR_PRECEDENCE: u8 = 45;
/// `<<` and `>>`: below sqlparser's `+` (30), above its `&` (23).
const SHIFT_PRECEDENCE: u8 = 25;

impl Dialect for Cairn {
    /// The parser's dialect checks see MySQL.
    fn dialect(&self) -> std::any::TypeId {
        std::any::TypeId::of::<MySqlDialect>()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        if parser.parse_keyword(Keyword::INTERVAL) {
            return Some(parse_interval(parser));
        }
        None
    }

    fn allow_extract_custom(&self) -> bool {
        true
    }

    /// MySQL's order of the bit operators: `^` binds tighter than `*`, and `<<`, `>>` between
    /// `+` and `&` (sqlparser puts all three below `&`).
    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        match parser.peek_token().token {
            Token::Caret => Some(Ok(BIT_XOR_PRECEDENCE)),
            Token::ShiftLeft | Token::ShiftRight => Some(Ok(SHIFT_PRECEDENCE)),
            // `a MOD b`, MySQL's `%` spelled as a word.
            Token::Word(w) if w.keyword == Keyword::MOD => Some(Ok(
                self.prec_value(sqlparser::dialect::Precedence::MulDivModOp)
            )),
            _ => None,
        }
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        MYSQL.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        MYSQL.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        MYSQL.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        MYSQL.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        MYSQL.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        MYSQL.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        MYSQL.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        MYSQL.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        MYSQL.supports_bitwise_shift_operators()
    }
    fn supports_multiline_comment_hints(&self) -> bool {
        MYSQL.supports_multiline_comment_hints()
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if parser.parse_keyword(Keyword::MOD) {
            return Some(
                parser
                    .parse_subexpr(precedence)
                    .map(|right| Expr::BinaryOp {
                        left: Box::new(expr.clone()),
                        op: sqlparser::ast::BinaryOperator::Modulo,
                        right: Box::new(right),
                    }),
            );
        }
        MYSQL.parse_infix(parser, expr, precedence)
    }
    /// `ZEROFILL` (and a SIGNED or UNSIGNED after it) as a column option of its own, the
    /// word's token alone (commands/create.rs reads it).
    fn parse_column_option(
        &self,
        parser: &mut Parser,
    ) -> Result<Option<Result<Option<ColumnOption>, ParserError>>, ParserError> {
        let word = match &parser.peek_token().token {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
            _ => return Ok(None),
        };
        // The second word of MariaDB's LONG VARCHAR, LONG CHARACTER VARYING (MEDIUMTEXT),
        // LONG VARBINARY and LONG BYTE (MEDIUMBLOB), after sqlparser read LONG as a type.
        let varying = matches!(
            &parser.peek_nth_token(1).token,
            Token::Word(w) if w.keyword == Keyword::VARYING
        );
        let long_text = word == "VARCHAR" || (word == "CHARACTER" && varying);
        // The second word of NATIONAL CHAR[ACTER] (n) and NCHAR VARCHAR (n), after sqlparser
        // read NATIONAL or NCHAR as a type: CHAR or VARCHAR in utf8mb3 (commands/column_def.rs).
        let set_follows = matches!(
            &parser.peek_nth_token(1).token,
            Token::Word(w) if w.keyword == Keyword::SET
        );
        let national_char = word == "CHAR" || (word == "CHARACTER" && !varying && !set_follows);
        if long_text || national_char || word == "VARBINARY" || word == "BYTE" {
            parser.next_token();
            if word == "CHARACTER" && varying {
                parser.next_token();
            }
            if national_char && parser.parse_keyword(Keyword::VARYING) {
                // NATIONAL CHAR VARYING.
                return Ok(Some(national(parser, "NATIONAL_VARCHAR")));
            }
            if national_char {
                return Ok(Some(national(parser, "NATIONAL_CHAR")));
            }
            if long_text && parser.peek_token().token == Token::LParen {
                return Ok(Some(national(parser, "NATIONAL_VARCHAR")));
            }
            let marker = if long_text { "LONG_TEXT" } else { "LONG_BLOB" };
            return Ok(Some(Ok(Some(ColumnOption::DialectSpecific(vec![
                Token::make_word(marker, None),
            ])))));
        }
        if word != "ZEROFILL" {
            return Ok(None);
        }
        parser.next_token();
        let _ = parser.parse_keyword(Keyword::UNSIGNED) || parser.parse_keyword(Keyword::SIGNED);
        Ok(Some(Ok(Some(ColumnOption::DialectSpecific(vec![
            Token::make_word("ZEROFILL", None),
        ])))))
    }

    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        if parser.peek_keyword(Keyword::UPDATE) {
            return Some(parse_update(parser));
        }
        if parser.peek_keyword(Keyword::DELETE) {
            return Some(parse_delete(parser));
        }
        if parser.peek_keyword(Keyword::SET) {
            let word = |n: usize| match parser.peek_nth_token(n).token {
                Token::Word(w) => w.keyword,
                _ => Keyword::NoKeyword,
            };
            let taken = match (word(1), word(2)) {
                (Keyword::CHARACTER, Keyword::SET) => 3,
                (Keyword::CHARSET, _) => 2,
                _ => 0,
            };
            if taken > 0 {
                for _ in 0..taken {
                    parser.next_token();
                }
                return Some(parse_set_charset(parser));
            }
        }
        MYSQL.parse_statement(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        MYSQL.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        MYSQL.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        MYSQL.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        MYSQL.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        MYSQL.supports_user_host_grantee()
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        MYSQL.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        MYSQL.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        MYSQL.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        MYSQL.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        MYSQL.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        MYSQL.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        MYSQL.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        MYSQL.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        MYSQL.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        MYSQL.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        MYSQL.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        MYSQL.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        MYSQL.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        MYSQL.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        MYSQL.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        MYSQL.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        MYSQL.supports_left_associative_joins_without_parens()
    }
}

/// MySQL's UPDATE: `UPDATE [LOW_PRIORITY] [IGNORE] table_references SET assignments
/// [WHERE ...] [ORDER BY ...] [LIMIT n]`. The table references after the first (`UPDATE t1,
/// t2 SET ...`) are kept as `from: BeforeSet`, a place the MySQL form otherwise never fills;
/// IGNORE as `or: Ignore` (SQLite's `UPDATE OR IGNORE`, which means the same). LOW_PRIORITY
/// changes nothing here: Cairn has no table locks to wait for.
fn parse_update(parser: &mut Parser) -> Result<Statement, ParserError> {
    let update_token = parser.next_token();
    let _ = parser.parse_keyword(Keyword::LOW_PRIORITY);
    let ignore = parser.parse_keyword(Keyword::IGNORE);
    let mut tables = parser.parse_comma_separated(Parser::parse_table_and_joins)?;
    let table = tables.remove(0);
    let from = if tables.is_empty() {
        None
    } else {
        Some(UpdateTableFromKind::BeforeSet(tables))
    };
    parser.expect_keyword(Keyword::SET)?;
    let assignments = parser.parse_comma_separated(Parser::parse_assignment)?;
    let selection = if parser.parse_keyword(Keyword::WHERE) {
        Some(parser.parse_expr()?)
    } else {
        None
    };
    let order_by = if parser.parse_keywords(&[Keyword::ORDER, Keyword::BY]) {
        parser.parse_comma_separated(Parser::parse_order_by_expr)?
    } else {
        Vec::new()
    };
    let limit = if parser.parse_keyword(Keyword::LIMIT) {
        Some(parser.parse_expr()?)
    } else {
        None
    };
    Ok(Update {
        update_token: update_token.into(),
        optimizer_hints: Vec::new(),
        table,
        assignments,
        from,
        selection,
        returning: None,
        output: None,
        or: ignore.then_some(SqliteOnConflict::Ignore),
        order_by,
        limit,
    }
    .into())
}

/// MySQL's DELETE with its modifiers, `DELETE [LOW_PRIORITY] [QUICK] [IGNORE] ...`, which
/// change nothing in Cairn (no table locks to wait for, no index pages to merge, and no error a
/// DELETE could ignore: there are no foreign keys); the rest is sqlparser's.
fn parse_delete(parser: &mut Parser) -> Result<Statement, ParserError> {
    let delete_token = parser.next_token();
    let _ = parser.parse_keyword(Keyword::LOW_PRIORITY);
    if matches!(&parser.peek_token().token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("QUICK"))
    {
        parser.next_token();
    }
    let _ = parser.parse_keyword(Keyword::IGNORE);
    parser.parse_delete(delete_token)
}

/// `SET {CHARACTER SET | CHARSET} {name | DEFAULT}`, which sqlparser does not read: the client's
/// and the results' character set become `name`, the connection's the database's, as in
/// MariaDB; read as the three variable assignments it makes.
fn parse_set_charset(parser: &mut Parser) -> Result<Statement, ParserError> {
    let value = if parser.parse_keyword(Keyword::DEFAULT) {
        Expr::Identifier(Ident::new("DEFAULT"))
    } else {
        parser.parse_expr()?
    };
    let assign = |name: &str, value: Expr| SetAssignment {
        scope: None,
        name: ObjectName::from(vec![Ident::new(name)]),
        value,
    };
    Ok(Statement::Set(Set::MultipleAssignments {
        assignments: vec![
            assign("character_set_client", value.clone()),
            assign("character_set_results", value),
            assign(
                "character_set_connection",
                Expr::Identifier(Ident::new("@@character_set_database")),
            ),
        ],
    }))
}

/// `INTERVAL expr unit`, the unit any word (a compound one becomes a custom field).
fn parse_interval(parser: &mut Parser) -> Result<Expr, ParserError> {
    let value = parser.parse_expr()?;
    let token = parser.next_token();
    let Token::Word(word) = &token.token else {
        return parser.expected("an interval unit", token);
    };
    let name = word.value.to_ascii_uppercase();
    let field = match name.as_str() {
        "YEAR" => DateTimeField::Year,
        "QUARTER" => DateTimeField::Quarter,
        "MONTH" => DateTimeField::Month,
        "WEEK" => DateTimeField::Week(None),
        "DAY" => DateTimeField::Day,
        "HOUR" => DateTimeField::Hour,
        "MINUTE" => DateTimeField::Minute,
        "SECOND" => DateTimeField::Second,
        "MICROSECOND" => DateTimeField::Microsecond,
        _ => DateTimeField::Custom(Ident::new(name)),
    };
    Ok(Expr::Interval(Interval {
        value: Box::new(value),
        leading_field: Some(field),
        leading_precision: None,
        last_field: None,
        fractional_seconds_precision: None,
    }))
}

/// A NATIONAL type's second word read: `marker` and the length in parentheses, if any.
fn national(parser: &mut Parser, marker: &str) -> Result<Option<ColumnOption>, ParserError> {
    let mut tokens = vec![Token::make_word(marker, None)];
    if parser.consume_token(&Token::LParen) {
        tokens.push(Token::Number(
            parser.parse_literal_uint()?.to_string(),
            false,
        ));
        parser.expect_token(&Token::RParen)?;
    }
    Ok(Some(ColumnOption::DialectSpecific(tokens)))
}

/// `sql` with every unquoted TOP written as the name `` `top` ``, for a text sqlparser could
/// not read: it takes TOP for SQL Server's `SELECT TOP n` in every dialect, where MariaDB has
/// no such word (`SELECT top.id FROM top`). None when the text has none.
pub(crate) fn top_as_name(sql: &str) -> Option<String> {
    if !sql.to_ascii_lowercase().contains("top") {
        return None;
    }
    let tokens = sqlparser::tokenizer::Tokenizer::new(&Cairn, sql)
        .tokenize_with_location()
        .ok()?;
    let lines = crate::parse::Lines::new(sql);
    let mut out = String::with_capacity(sql.len() + 8);
    let mut done = 0;
    for t in &tokens {
        let Token::Word(w) = &t.token else { continue };
        if w.quote_style.is_some() || w.keyword != Keyword::TOP {
            continue;
        }
        let at = lines.offset(sql, t.span.start)?;
        let end = at.checked_add(w.value.len()).filter(|e| *e <= sql.len())?;
        out.push_str(sql.get(done..at)?);
        out.push('`');
        out.push_str(sql.get(at..end)?);
        out.push('`');
        done = end;
    }
    if done == 0 {
        return None;
    }
    out.push_str(sql.get(done..)?);
    Some(out)
}
