//! Bounds on a statement text's shape, checked on its tokens before it is parsed: how many set
//! operators it holds and how deep its expressions nest. sqlparser reads a chain of set
//! operators or of binary operators (`1+1+...`, `a OR b OR ...`) in a loop but builds a tree as
//! deep as the chain, which it and the planner then clone, show, walk and drop recursively on
//! the connection thread's stack; a text long enough would overflow it and abort the process.

use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer};

use crate::foundation::error::Result;
use crate::foundation::error::SqlError;
use crate::foundation::limits::SET_OPERATIONS_MAX;

/// The deepest expression nesting a statement may have: operators chained in one operand list
/// plus the nesting of the parenthesized operands inside it. Generous for written SQL (an IN
/// list or a VALUES list is wide, not deep), and well inside `CONNECTION_STACK_BYTES` in a debug
/// build.
pub const EXPRESSION_DEPTH_MAX: usize = 500;

/// Refuses a text holding more than [`SET_OPERATIONS_MAX`] set operators, or whose expressions
/// nest deeper than [`EXPRESSION_DEPTH_MAX`] (1235, naming the limit). A text that does not
/// tokenize passes: the parser names what is wrong with it. The tokens, when it read them, as
/// the parser reads them (with their places), so a long text is tokenized once.
pub(crate) fn check(sql: &str) -> Result<Option<Vec<TokenWithSpan>>> {
    // Cheap tests first: a short text cannot nest deeply, and set operators are named words.
    // (A long text is tokenized whatever words it holds, and its set operators counted there.)
    let deep = sql.len() >= EXPRESSION_DEPTH_MAX;
    let sets = || {
        ["union", "intersect", "except"]
            .iter()
            .any(|w| crate::parse::mentions(sql, w))
    };
    if !deep && !sets() {
        return Ok(None);
    }
    let Ok(tokens) = Tokenizer::new(&crate::parse::dialect::Cairn, sql).tokenize_with_location()
    else {
        return Ok(None);
    };
    let operations = tokens
        .iter()
        .map(|t| &t.token)
        .filter(|t| {
            matches!(t, Token::Word(w)
                if matches!(w.keyword, Keyword::UNION | Keyword::INTERSECT | Keyword::EXCEPT))
        })
        .count();
    if operations > SET_OPERATIONS_MAX {
        return Err(SqlError::unsupported(format!(
            "more than {SET_OPERATIONS_MAX} UNION, INTERSECT or EXCEPT operators in one query"
        )));
    }
    if deep && expression_depth(tokens.iter().map(|t| &t.token)) > EXPRESSION_DEPTH_MAX {
        return Err(SqlError::unsupported(format!(
            "expressions nested more than {EXPRESSION_DEPTH_MAX} operators deep"
        )));
    }
    Ok(Some(tokens))
}

/// One parenthesis level while scanning. An operand (a stretch between commas) is a chain of
/// pieces joined by logical operators (AND, OR, XOR, `||`), each a chain of other operators and
/// parenthesized groups: its tree is about as deep as its logical operators plus its deepest
/// piece, which is its other operators plus its deepest group.
#[derive(Default, Clone, Copy)]
struct Level {
    /// Logical operators in the current operand.
    logical: usize,
    /// Other operators in the current piece.
    operators: usize,
    /// The deepest parenthesized group in the current piece.
    inner: usize,
    /// The deepest piece finished in the current operand.
    piece: usize,
    /// The deepest operand finished at this level.
    deepest: usize,
}

impl Level {
    fn depth(&self) -> usize {
        let piece = self.piece.max(self.operators + self.inner);
        self.deepest.max(self.logical + piece)
    }
}

/// An upper bound of the depth of the expression trees `tokens` parse into (see [`Level`];
/// unary operators count too).
pub(crate) fn expression_depth<'t>(tokens: impl IntoIterator<Item = &'t Token>) -> usize {
    let mut levels = vec![Level::default()];
    let mut deepest = 0;
    for token in tokens {
        let top = levels.len() - 1;
        match token {
            Token::LParen => levels.push(Level::default()),
            Token::RParen if top > 0 => {
                let closed = levels.pop().map_or(0, |l| l.depth()) + 1;
                let parent = &mut levels[top - 1];
                parent.inner = parent.inner.max(closed);
            }
            Token::Comma => {
                let level = &mut levels[top];
                *level = Level {
                    deepest: level.depth(),
                    ..Level::default()
                };
            }
            Token::SemiColon => {
                deepest = deepest.max(levels.iter().map(Level::depth).max().unwrap_or(0));
                levels = vec![Level::default()];
            }
            t if is_logical(t) => {
                let level = &mut levels[top];
                level.piece = level.piece.max(level.operators + level.inner);
                level.operators = 0;
                level.inner = 0;
                level.logical += 1;
            }
            t if is_operator(t) => levels[top].operators += 1,
            _ => {}
        }
    }
    let open: usize = levels.iter().map(Level::depth).sum();
    deepest.max(open)
}

fn is_logical(token: &Token) -> bool {
    match token {
        Token::Word(w) => matches!(w.keyword, Keyword::AND | Keyword::OR | Keyword::XOR),
        Token::StringConcat => true,
        _ => false,
    }
}

fn is_operator(token: &Token) -> bool {
    match token {
        Token::Plus
        | Token::Minus
        | Token::Mul
        | Token::Div
        | Token::Mod
        | Token::Eq
        | Token::DoubleEq
        | Token::Neq
        | Token::Lt
        | Token::Gt
        | Token::LtEq
        | Token::GtEq
        | Token::Spaceship
        | Token::Ampersand
        | Token::Pipe
        | Token::Caret
        | Token::ShiftLeft
        | Token::ShiftRight
        | Token::ExclamationMark
        | Token::Tilde => true,
        Token::Word(w) => matches!(
            w.keyword,
            Keyword::NOT
                | Keyword::DIV
                | Keyword::MOD
                | Keyword::LIKE
                | Keyword::REGEXP
                | Keyword::RLIKE
                | Keyword::BETWEEN
                | Keyword::IS
                | Keyword::IN
                | Keyword::CASE
        ),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth(sql: &str) -> usize {
        expression_depth(
            &Tokenizer::new(&crate::parse::dialect::Cairn, sql)
                .tokenize()
                .unwrap(),
        )
    }

    #[test]
    fn chains_are_deep_and_lists_are_wide() {
        assert_eq!(depth("SELECT 1"), 0);
        assert_eq!(depth("SELECT 1+2+3"), 2);
        assert_eq!(depth("SELECT a FROM t WHERE a = 1 OR a = 2"), 2);
        let ors: Vec<String> = (0..450).map(|i| format!("a = {i}")).collect();
        assert_eq!(
            depth(&format!("SELECT a FROM t WHERE {}", ors.join(" OR "))),
            450
        );
        assert_eq!(depth("SELECT (1+(2*3))-4"), 5);
        let list: Vec<String> = (0..5000).map(|i| format!("({i}, -{i})")).collect();
        assert!(depth(&format!("INSERT INTO t VALUES {}", list.join(","))) <= 3);
        let ins: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
        assert!(depth(&format!("SELECT * FROM t WHERE id IN ({})", ins.join(","))) <= 3);
        let chain = vec!["1"; 3000].join("+");
        assert!(depth(&format!("SELECT {chain}; SELECT 1")) >= 2999);
        assert!(check(&format!("SELECT {chain}")).is_err());
        let ok = vec!["1"; 450].join("+");
        assert!(check(&format!("SELECT {ok}")).is_ok());
        let nested = format!("SELECT {}1{}", "(".repeat(2000), ")".repeat(2000));
        assert!(check(&nested).is_err());
    }
}
