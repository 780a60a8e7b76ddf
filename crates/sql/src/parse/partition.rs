//! The `PARTITION BY KEY (cols) [PARTITIONS n]` clause of CREATE TABLE, which sqlparser does not
//! read: taken out of the statement text before parsing, and attached to the parsed statement.
//!
//! The clause is MySQL's `PARTITION BY [LINEAR] KEY [ALGORITHM={1|2}] (cols) [PARTITIONS n]`;
//! Cairn takes KEY (rows hash on the named primary-key columns, as NDB's default partitioning)
//! and refuses LINEAR KEY, HASH, RANGE, LIST, subpartitions and partition definitions by name.

use sqlparser::ast::{self, Expr, Ident, Statement};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::parse::dialect::Cairn;

/// A table's partitioning as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionBy {
    /// The key columns; empty means the primary key.
    pub columns: Vec<String>,
    /// `PARTITIONS n`, when given.
    pub partitions: Option<u32>,
}

/// PARTITION BY clauses, each with the index of its statement.
pub(crate) type Clauses = Vec<(usize, PartitionBy)>;

/// The PARTITION BY clauses of `sql`, and the text without them (None when there were none). A clause is blanked to spaces, so every other token keeps
/// its position for error messages and column names.
pub(crate) fn take(sql: &str) -> Result<(Option<String>, Clauses)> {
    if !crate::parse::mentions(sql, "partition") {
        return Ok((None, Vec::new()));
    }
    let Ok(tokens) = Tokenizer::new(&Cairn, sql).tokenize_with_location() else {
        // The parser reports the same error with its own words.
        return Ok((None, Vec::new()));
    };
    let mut clauses = Vec::new();
    let mut blanks = Vec::new();
    let mut statement = 0;
    let mut in_statement = false;
    let mut is_create_table = false;
    let mut depth = 0usize;
    let mut previous_words: [&str; 2] = ["", ""];
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i].token;
        match token {
            Token::Whitespace(_) => {
                i += 1;
                continue;
            }
            Token::SemiColon if depth == 0 => {
                if in_statement {
                    statement += 1;
                }
                in_statement = false;
                is_create_table = false;
                previous_words = ["", ""];
                i += 1;
                continue;
            }
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ => {}
        }
        let word = match token {
            Token::Word(w) if w.quote_style.is_none() => w.value.as_str(),
            _ => "",
        };
        if !in_statement {
            in_statement = true;
            is_create_table = word.eq_ignore_ascii_case("create");
        } else if is_create_table
            && depth == 0
            && previous_words[1].eq_ignore_ascii_case("partition")
            && word.eq_ignore_ascii_case("by")
        {
            let start = previous_token(&tokens, i);
            let (clause, end) = clause(&tokens, i + 1, sql)?;
            blanks.push((start, end));
            clauses.push((statement, clause));
            i = end;
            previous_words = ["", ""];
            continue;
        }
        previous_words = [previous_words[1], word];
        i += 1;
    }
    if blanks.is_empty() {
        return Ok((None, clauses));
    }
    let mut text = sql.to_string();
    for (start, end) in blanks {
        let from = offset_of(sql, &tokens, start);
        let to = if end < tokens.len() {
            offset_of(sql, &tokens, end)
        } else {
            sql.len()
        };
        let blank: String = sql[from..to]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        // Multi-byte characters become one space each: pad so later offsets keep their place.
        let blank = format!("{blank}{}", " ".repeat(to - from - blank.len()));
        text.replace_range(from..to, &blank);
    }
    Ok((Some(text), clauses))
}

/// Attaches each clause to its statement; a clause on a statement other than CREATE TABLE
/// (`CREATE INDEX ... PARTITION BY`, say) is a syntax error, as it is in MySQL.
pub(crate) fn attach(
    statements: &mut [Statement],
    clauses: Vec<(usize, PartitionBy)>,
) -> Result<()> {
    for (at, clause) in clauses {
        match statements.get_mut(at) {
            Some(Statement::CreateTable(c)) => c.partition_by = Some(Box::new(encode(&clause))),
            _ => return Err(SqlError::parse("near 'PARTITION BY'")),
        }
    }
    Ok(())
}

/// The partitioning attached to a CREATE TABLE by [`attach`].
pub(crate) fn of(c: &ast::CreateTable) -> Option<PartitionBy> {
    let Expr::Tuple(parts) = c.partition_by.as_deref()? else {
        return None;
    };
    let [Expr::Tuple(columns), count] = parts.as_slice() else {
        return None;
    };
    let columns = columns
        .iter()
        .filter_map(|c| match c {
            Expr::Identifier(i) => Some(i.value.clone()),
            _ => None,
        })
        .collect();
    let partitions = match count {
        Expr::Value(v) => match &v.value {
            ast::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    };
    Some(PartitionBy {
        columns,
        partitions,
    })
}

/// The clause as an expression the AST can carry: `((col, ...), n | NULL)`.
fn encode(clause: &PartitionBy) -> Expr {
    let columns = clause
        .columns
        .iter()
        .map(|c| Expr::Identifier(Ident::with_quote('`', c)))
        .collect();
    let count = match clause.partitions {
        Some(n) => ast::Value::Number(n.to_string(), false),
        None => ast::Value::Null,
    };
    Expr::Tuple(vec![Expr::Tuple(columns), Expr::value(count)])
}

/// Reads the clause after `PARTITION BY`, starting at token `i`; returns it and the index of the
/// first token after it (the statement's `;` or the end).
fn clause(tokens: &[TokenWithSpan], i: usize, sql: &str) -> Result<(PartitionBy, usize)> {
    let mut r = Reader { tokens, at: i, sql };
    let kind = r.word();
    match kind.to_ascii_uppercase().as_str() {
        "KEY" => {}
        "LINEAR" => {
            return Err(SqlError::unsupported("PARTITION BY LINEAR KEY"));
        }
        "HASH" | "RANGE" | "LIST" | "SYSTEM_TIME" => {
            return Err(SqlError::unsupported(format!(
                "PARTITION BY {}: Cairn partitions by KEY only",
                kind.to_ascii_uppercase()
            )));
        }
        _ => return Err(r.syntax_error()),
    }
    r.next();
    if r.word().eq_ignore_ascii_case("algorithm") {
        r.next();
        r.expect(&Token::Eq)?;
        match r.token() {
            Some(Token::Number(n, _)) if n == "1" || n == "2" => r.next(),
            _ => return Err(r.syntax_error()),
        }
    }
    r.expect(&Token::LParen)?;
    let mut columns = Vec::new();
    if r.token() != Some(&Token::RParen) {
        loop {
            match r.token() {
                Some(Token::Word(w)) => columns.push(w.value.clone()),
                _ => return Err(r.syntax_error()),
            }
            r.next();
            match r.token() {
                Some(Token::Comma) => r.next(),
                _ => break,
            }
        }
    }
    r.expect(&Token::RParen)?;
    let mut partitions = None;
    if r.word().eq_ignore_ascii_case("partitions") {
        r.next();
        match r.token() {
            Some(Token::Number(n, _)) if n.bytes().all(|b| b.is_ascii_digit()) => {
                // Above u32 is above every limit: report it as too many.
                partitions = Some(n.parse().unwrap_or(u32::MAX));
                r.next();
            }
            _ => return Err(r.syntax_error()),
        }
    }
    let next = r.word().to_ascii_uppercase();
    if next == "SUBPARTITION" {
        return Err(SqlError::unsupported("SUBPARTITION BY"));
    }
    if r.token() == Some(&Token::LParen) {
        return Err(SqlError::unsupported(
            "partition definitions (PARTITION p ...): Cairn names no partitions",
        ));
    }
    match r.token() {
        None | Some(Token::SemiColon) | Some(Token::EOF) => {}
        _ => return Err(r.syntax_error()),
    }
    Ok((
        PartitionBy {
            columns,
            partitions,
        },
        r.at,
    ))
}

/// A cursor over the clause's tokens that skips whitespace and comments.
struct Reader<'a> {
    tokens: &'a [TokenWithSpan],
    at: usize,
    sql: &'a str,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while matches!(
            self.tokens.get(self.at).map(|t| &t.token),
            Some(Token::Whitespace(_))
        ) {
            self.at += 1;
        }
    }

    fn token(&mut self) -> Option<&Token> {
        self.skip_space();
        self.tokens
            .get(self.at)
            .map(|t| &t.token)
            .filter(|t| **t != Token::EOF)
    }

    fn word(&mut self) -> String {
        match self.token() {
            Some(Token::Word(w)) if w.quote_style.is_none() => w.value.clone(),
            _ => String::new(),
        }
    }

    fn next(&mut self) {
        self.skip_space();
        self.at += 1;
    }

    fn expect(&mut self, t: &Token) -> Result<()> {
        if self.token() == Some(t) {
            self.next();
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    /// MySQL's 1064, quoting the text from the offending token.
    fn syntax_error(&mut self) -> SqlError {
        self.skip_space();
        let near = if self.at < self.tokens.len() {
            let from = offset_of(self.sql, self.tokens, self.at);
            let rest = &self.sql[from..];
            rest.char_indices()
                .nth(80)
                .map_or(rest, |(i, _)| &rest[..i])
        } else {
            ""
        };
        SqlError::parse(format!("near '{near}' in PARTITION BY"))
    }
}

/// The index of the last non-whitespace token before `i` (`PARTITION` of `PARTITION BY`).
fn previous_token(tokens: &[TokenWithSpan], i: usize) -> usize {
    (0..i)
        .rev()
        .find(|&j| !matches!(tokens[j].token, Token::Whitespace(_)))
        .unwrap_or(i)
}

/// The byte offset where token `i` starts.
fn offset_of(sql: &str, tokens: &[TokenWithSpan], i: usize) -> usize {
    crate::parse::offset(sql, tokens[i].span.start).unwrap_or(sql.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(sql: &str) -> (String, Clauses) {
        let (text, clauses) = take(sql).unwrap();
        (text.unwrap_or_else(|| sql.to_string()), clauses)
    }

    #[test]
    fn clause_is_blanked_and_read() {
        let sql =
            "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b)) PARTITION BY KEY (b) PARTITIONS 4";
        let (text, clauses) = taken(sql);
        assert_eq!(text.len(), sql.len());
        assert_eq!(
            text.trim_end(),
            "CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))"
        );
        assert_eq!(
            clauses,
            vec![(
                0,
                PartitionBy {
                    columns: vec!["b".into()],
                    partitions: Some(4)
                }
            )]
        );
    }

    #[test]
    fn statement_index_counts_non_empty_statements() {
        let sql = "SELECT 1;; CREATE TABLE t (a INT PRIMARY KEY) partition by key algorithm=2 () ; SELECT 2";
        let (text, clauses) = taken(sql);
        assert!(text.contains("PRIMARY KEY)") && text.ends_with("; SELECT 2"));
        assert_eq!(clauses.len(), 1);
        assert_eq!(clauses[0].0, 1);
        assert!(clauses[0].1.columns.is_empty());
        assert_eq!(clauses[0].1.partitions, None);
    }

    #[test]
    fn other_text_is_untouched() {
        // A column named partition, a string, and a window's PARTITION BY inside parentheses.
        for sql in [
            "SELECT `partition` FROM t",
            "SELECT 'partition by key(a)'",
            "SELECT ROW_NUMBER() OVER (PARTITION BY a) FROM t",
            "INSERT INTO t VALUES ('PARTITION BY')",
        ] {
            let (text, clauses) = take(sql).unwrap();
            assert!(text.is_none() && clauses.is_empty(), "{sql}");
        }
    }

    #[test]
    fn refusals_and_syntax_errors() {
        let code = |sql: &str| take(sql).unwrap_err().code;
        let base = "CREATE TABLE t (a INT PRIMARY KEY) PARTITION BY ";
        assert_eq!(code(&format!("{base}HASH(a)")), 1235);
        assert_eq!(code(&format!("{base}LINEAR KEY(a)")), 1235);
        assert_eq!(
            code(&format!(
                "{base}RANGE (a) (PARTITION p0 VALUES LESS THAN (5))"
            )),
            1235
        );
        assert_eq!(
            code(&format!(
                "{base}KEY(a) PARTITIONS 2 (PARTITION p0, PARTITION p1)"
            )),
            1235
        );
        assert_eq!(code(&format!("{base}KEY(a) SUBPARTITION BY KEY(a)")), 1235);
        assert_eq!(code(&format!("{base}KEY a")), 1064);
        assert_eq!(code(&format!("{base}KEY(a) PARTITIONS -1")), 1064);
        assert_eq!(code(&format!("{base}KEY(a) PARTITIONS 2 garbage")), 1064);
        assert_eq!(code(&format!("{base}KEY(a) ALGORITHM=3")), 1064);
        assert_eq!(code(&format!("{base}KEY ALGORITHM=3 (a)")), 1064);
        assert_eq!(code(&format!("{base}KEY(a,")), 1064);
        assert_eq!(code(base), 1064);
    }

    #[test]
    fn huge_partition_count_saturates() {
        let (_, clauses) =
            taken("CREATE TABLE t (a INT PRIMARY KEY) PARTITION BY KEY(a) PARTITIONS 99999999999");
        assert_eq!(clauses[0].1.partitions, Some(u32::MAX));
    }

    #[test]
    fn attached_clause_reads_back() {
        let (text, clauses) =
            taken("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b)) PARTITION BY KEY (a, `b`) PARTITIONS 3");
        let mut statements = sqlparser::parser::Parser::parse_sql(&Cairn, &text).unwrap();
        attach(&mut statements, clauses).unwrap();
        let Statement::CreateTable(c) = &statements[0] else {
            panic!("not a CREATE TABLE");
        };
        assert_eq!(
            of(c),
            Some(PartitionBy {
                columns: vec!["a".into(), "b".into()],
                partitions: Some(3)
            })
        );
    }
}
