//! The tokens the plan cache normalizes a statement by (`plan/cache.rs`): a scanner of the
//! common forms (words, plain literals, operators) that gives up on anything else, and
//! sqlparser's tokenizer, which reads every form and stands behind it.

use std::borrow::Cow;

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

/// The words normalizing tells apart; any other word is `Other`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kw {
    Select,
    Insert,
    Update,
    Delete,
    Where,
    Values,
    Value,
    Set,
    /// A word that ends a region of values at depth 0 (ORDER, GROUP, HAVING, LIMIT, FOR,
    /// LOCK, UNION, INTO, WINDOW, ON).
    Ends,
    /// A word after which a literal is a value (AND, OR, NOT, XOR, BETWEEN, IN, LIKE, WHEN,
    /// THEN, ELSE).
    Before,
    Other,
}

/// A token as normalizing sees it. Literals carry their byte span in the text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lex<'a> {
    Word(Kw),
    Number(Cow<'a, str>, (usize, usize)),
    /// A quoted string's characters.
    Str(Cow<'a, str>, (usize, usize)),
    Semi,
    Placeholder,
    LParen,
    RParen,
    /// An operator or comma after which a literal is a value.
    Operator,
    Other,
}

impl Kw {
    fn of_keyword(k: Keyword) -> Kw {
        match k {
            Keyword::SELECT => Kw::Select,
            Keyword::INSERT => Kw::Insert,
            Keyword::UPDATE => Kw::Update,
            Keyword::DELETE => Kw::Delete,
            Keyword::WHERE => Kw::Where,
            Keyword::VALUES => Kw::Values,
            Keyword::VALUE => Kw::Value,
            Keyword::SET => Kw::Set,
            Keyword::ORDER
            | Keyword::GROUP
            | Keyword::HAVING
            | Keyword::LIMIT
            | Keyword::FOR
            | Keyword::LOCK
            | Keyword::UNION
            | Keyword::INTO
            | Keyword::WINDOW
            | Keyword::ON => Kw::Ends,
            Keyword::AND
            | Keyword::OR
            | Keyword::NOT
            | Keyword::XOR
            | Keyword::BETWEEN
            | Keyword::IN
            | Keyword::LIKE
            | Keyword::WHEN
            | Keyword::THEN
            | Keyword::ELSE => Kw::Before,
            _ => Kw::Other,
        }
    }

    /// The same as sqlparser's keyword of an unquoted word, for the words above.
    fn of_word(w: &str) -> Kw {
        const WORDS: [(&str, Kw); 28] = [
            ("SELECT", Kw::Select),
            ("INSERT", Kw::Insert),
            ("UPDATE", Kw::Update),
            ("DELETE", Kw::Delete),
            ("WHERE", Kw::Where),
            ("VALUES", Kw::Values),
            ("VALUE", Kw::Value),
            ("SET", Kw::Set),
            ("ORDER", Kw::Ends),
            ("GROUP", Kw::Ends),
            ("HAVING", Kw::Ends),
            ("LIMIT", Kw::Ends),
            ("FOR", Kw::Ends),
            ("LOCK", Kw::Ends),
            ("UNION", Kw::Ends),
            ("INTO", Kw::Ends),
            ("WINDOW", Kw::Ends),
            ("ON", Kw::Ends),
            ("AND", Kw::Before),
            ("OR", Kw::Before),
            ("NOT", Kw::Before),
            ("XOR", Kw::Before),
            ("BETWEEN", Kw::Before),
            ("IN", Kw::Before),
            ("LIKE", Kw::Before),
            ("WHEN", Kw::Before),
            ("THEN", Kw::Before),
            ("ELSE", Kw::Before),
        ];
        if w.len() > 7 {
            return Kw::Other;
        }
        WORDS
            .iter()
            .find(|(word, _)| word.eq_ignore_ascii_case(w))
            .map_or(Kw::Other, |(_, kw)| *kw)
    }
}

/// The tokens of `sql` (whitespace left out) by sqlparser's tokenizer; None when it fails, or
/// a literal's place cannot be found.
pub(crate) fn tokenized(sql: &str) -> Option<Vec<Lex<'_>>> {
    let dialect = crate::parse::dialect::Cairn;
    let tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .ok()?;
    let span = |t: &sqlparser::tokenizer::TokenWithSpan| {
        let start = crate::parse::offset(sql, t.span.start)?;
        let end = crate::parse::offset(sql, t.span.end)?;
        Some((start, end))
    };
    let mut out = Vec::with_capacity(tokens.len());
    for t in &tokens {
        out.push(match &t.token {
            Token::Whitespace(_) => continue,
            Token::Word(w) => Lex::Word(match w.quote_style {
                Some(_) => Kw::Other,
                None => Kw::of_keyword(w.keyword),
            }),
            Token::Number(n, _) => Lex::Number(Cow::Owned(n.clone()), span(t)?),
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => {
                Lex::Str(Cow::Owned(s.clone()), span(t)?)
            }
            Token::SemiColon => Lex::Semi,
            Token::Placeholder(_) => Lex::Placeholder,
            Token::LParen => Lex::LParen,
            Token::RParen => Lex::RParen,
            Token::Eq
            | Token::DoubleEq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Spaceship
            | Token::Comma
            | Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::Mod => Lex::Operator,
            _ => Lex::Other,
        });
    }
    Some(out)
}

/// The tokens of `sql` when it holds only the common forms: ASCII words and backquoted names,
/// plain numbers, quoted strings without escapes, the usual operators and spaces. None for
/// anything else (comments, escapes, introducers, `@`, other operators, other than ASCII...):
/// `tokenized` reads those. Gives the same tokens as `tokenized` where it gives any (a test
/// compares them on generated statements).
pub(crate) fn scanned(sql: &str) -> Option<Vec<Lex<'_>>> {
    let b = sql.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 4);
    let mut at = 0;
    while at < b.len() {
        let c = b[at];
        let start = at;
        let lex = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                at += 1;
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                at = word_end(b, at);
                // An introducer or a national, hex or bit string (`_utf8'x'`, `N'x'`), a
                // variable-like name, other than ASCII.
                if matches!(b.get(at), Some(b'\'' | b'"' | b'$' | b'@' | 0x80..)) {
                    return None;
                }
                Lex::Word(Kw::of_word(&sql[start..at]))
            }
            b'`' => {
                let end = start + 1 + b[start + 1..].iter().position(|&x| x == b'`')?;
                let name = &b[start + 1..end];
                if name.is_empty() || b.get(end + 1) == Some(&b'`') || !name.is_ascii() {
                    return None;
                }
                at = end + 1;
                Lex::Word(Kw::Other)
            }
            b'0'..=b'9' => {
                at = number_end(b, at)?;
                Lex::Number(Cow::Borrowed(&sql[start..at]), (start, at))
            }
            b'\'' | b'"' => {
                let end = start + 1 + b[start + 1..].iter().position(|&x| x == c)?;
                let body = &b[start + 1..end];
                // A doubled quote or a backslash escapes; other than ASCII is left whole.
                if b.get(end + 1) == Some(&c) || body.contains(&b'\\') || !body.is_ascii() {
                    return None;
                }
                at = end + 1;
                Lex::Str(Cow::Borrowed(&sql[start + 1..end]), (start, at))
            }
            _ => {
                let (lex, len) = operator(b, at)?;
                at += len;
                lex
            }
        };
        out.push(lex);
    }
    Some(out)
}

/// Where the word starting at `at` ends.
fn word_end(b: &[u8], mut at: usize) -> usize {
    while b
        .get(at)
        .is_some_and(|x| x.is_ascii_alphanumeric() || *x == b'_')
    {
        at += 1;
    }
    at
}

/// Where the plain number starting at `at` (digits, maybe a point and more digits) ends;
/// None for other forms (exponents, hex, a name starting with digits, a trailing point).
fn number_end(b: &[u8], mut at: usize) -> Option<usize> {
    let digits = |at: usize| b[at..].iter().take_while(|x| x.is_ascii_digit()).count();
    at += digits(at);
    if b.get(at) == Some(&b'.') {
        let fraction = digits(at + 1);
        if fraction == 0 {
            return None;
        }
        at += 1 + fraction;
    }
    match b.get(at) {
        Some(x) if x.is_ascii_alphanumeric() || matches!(x, b'_' | b'$' | b'.' | b'@') => None,
        Some(x) if !x.is_ascii() => None,
        _ => Some(at),
    }
}

/// Characters that may go on an operator (`<=`, `->`, `||`, `@>`...) or start another token
/// the scanner does not read: an operator followed by one is left to the tokenizer.
const OPERATOR_CHARS: &[u8] = b"=<>!|&^~-+*/%@#:?$.\\";

/// The operator at `at` and its length; None for one this scanner does not read.
fn operator(b: &[u8], at: usize) -> Option<(Lex<'static>, usize)> {
    // A comparison may be followed by a sign (`a=-1`).
    let alone = |len: usize| {
        b.get(at + len).is_none_or(|x| {
            !OPERATOR_CHARS.contains(x)
                || (matches!(x, b'-' | b'+') && matches!(b[at], b'=' | b'<' | b'>' | b'!'))
        })
    };
    let next = b.get(at + 1).copied();
    let (lex, len) = match (b[at], next) {
        (b'(', _) => return Some((Lex::LParen, 1)),
        (b')', _) => return Some((Lex::RParen, 1)),
        (b',', _) => return Some((Lex::Operator, 1)),
        (b';', _) => return Some((Lex::Semi, 1)),
        // `?1`, `?name`: other placeholders.
        (b'?', x) if !x.is_some_and(|x| x.is_ascii_alphanumeric() || x == b'_') => {
            (Lex::Placeholder, 1)
        }
        // A qualified name's point, right after the name (a point before digits is a
        // number's).
        (b'.', Some(x))
            if (x.is_ascii_alphabetic() || x == b'`')
                && at
                    .checked_sub(1)
                    .is_some_and(|p| b[p].is_ascii_alphanumeric() || b[p] == b'`') =>
        {
            return Some((Lex::Other, 1))
        }
        (b'<', Some(b'=')) if b.get(at + 2) == Some(&b'>') => (Lex::Operator, 3),
        (b'<' | b'>' | b'!', Some(b'=')) | (b'<', Some(b'>')) => (Lex::Operator, 2),
        (b'=' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/' | b'%', _) => (Lex::Operator, 1),
        _ => return None,
    };
    alone(len).then_some((lex, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forms both read, and forms only sqlparser's tokenizer reads.
    const PARTS: &[&str] = &[
        "SELECT",
        "select",
        "FROM",
        "WHERE",
        "where",
        "AND",
        "or",
        "Not",
        "XOR",
        "BETWEEN",
        "IN",
        "LIKE",
        "ESCAPE",
        "WHEN",
        "THEN",
        "ELSE",
        "CASE",
        "END",
        "INSERT",
        "INTO",
        "VALUES",
        "value",
        "UPDATE",
        "SET",
        "DELETE",
        "ORDER",
        "BY",
        "GROUP",
        "HAVING",
        "LIMIT",
        "FOR",
        "LOCK",
        "UNION",
        "WINDOW",
        "ON",
        "JOIN",
        "AS",
        "DATE",
        "NULL",
        "t",
        "t1",
        "a_b",
        "_x",
        "id",
        "`t`",
        "`a b`",
        "``",
        "`x``y`",
        "t.id",
        "t.`c`",
        "1",
        "42",
        "007",
        "1.5",
        "0.25",
        "1.",
        ".5",
        "1e5",
        "1.5E-3",
        "0x1F",
        "1abc",
        "'a'",
        "''",
        "'it''s'",
        "'a\\'b'",
        "'%x_'",
        "'é'",
        "\"q\"",
        "\"\"",
        "N'x'",
        "X'0A'",
        "b'01'",
        "_utf8mb4'x'",
        "=",
        "==",
        "!=",
        "<>",
        "<",
        ">",
        "<=",
        ">=",
        "<=>",
        "<<",
        ">>",
        "+",
        "-",
        "--",
        "*",
        "/",
        "%",
        "(",
        ")",
        ",",
        ";",
        "?",
        "?1",
        "@a",
        "@@x",
        "$1",
        ":=",
        "->",
        "->>",
        "#",
        "/* c */",
        "-- c\n",
        "|",
        "||",
        "&",
        "^",
        "~",
        "!",
        ".",
        "\\",
        "é",
        "\u{b}",
    ];
    /// What goes between two parts (often nothing: `a=-1`, `t.id`).
    const GLUE: &[&str] = &[" ", " ", " ", "", "\n", "\t", "  ", "\r\n"];

    /// xorshift64*: the parts a generated statement is made of.
    struct Parts(u64);

    impl Parts {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }

        fn statement(&mut self) -> String {
            let mut sql = String::new();
            for _ in 0..1 + self.below(14) {
                sql.push_str(PARTS[self.below(PARTS.len())]);
                sql.push_str(GLUE[self.below(GLUE.len())]);
            }
            sql
        }
    }

    /// Wherever the scanner gives tokens, they are the tokenizer's (random statements of the
    /// parts above; the seed printed, CAIRN_TEST_SEED repeats it).
    #[test]
    fn the_scanner_agrees_with_the_tokenizer() {
        let seed: u64 = std::env::var("CAIRN_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            });
        println!("the_scanner_agrees_with_the_tokenizer: seed {seed} (CAIRN_TEST_SEED)");
        let mut parts = Parts(seed | 1);
        let (mut scanned_some, total) = (0, 20_000);
        for _ in 0..total {
            let sql = parts.statement();
            if let Some(fast) = scanned(&sql) {
                scanned_some += 1;
                assert_eq!(Some(fast), tokenized(&sql), "seed {seed}: {sql:?}");
            }
        }
        // Most generated statements hold some form only the tokenizer reads; enough do not.
        assert!(
            scanned_some * 10 > total,
            "{scanned_some} of {total} scanned"
        );
    }

    #[test]
    fn common_statements_are_scanned() {
        for sql in [
            "SELECT o.id, c.score FROM orders o JOIN customer c ON c.id = o.cust WHERE o.id BETWEEN 1000 AND 1099",
            "SELECT * FROM `t` WHERE `id` = 5 AND name LIKE 'a%' ORDER BY 1 LIMIT 3",
            "INSERT INTO t (a, b) VALUES (1, 'x'), (-2, \"y\")",
            "UPDATE t SET k = k + 1, c = 'x' WHERE id IN (3, 4);",
            "DELETE FROM t WHERE a <=> 1.5 OR b <> 2 OR c != 3 OR d >= 4",
        ] {
            let fast = scanned(sql).unwrap_or_else(|| panic!("not scanned: {sql}"));
            assert_eq!(Some(fast), tokenized(sql), "{sql}");
        }
    }
}
