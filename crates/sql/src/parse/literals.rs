//! Statement text from the client's bytes: a string literal whose bytes are no UTF-8 (from a
//! UTF-8 client), or a latin1 client's `_binary` literal, becomes a hex literal before the text
//! is decoded into the UTF-8 the parser reads, so binary data sent over the text protocol (what
//! PyMySQL does with Python bytes) reaches its column byte for byte instead of as U+FFFD.
//!
//! It lexes only as far as it must to find literals: quoted strings (backslash escapes and
//! doubled quotes, as MariaDB reads them), backticked names and comments, whose quotes are not
//! literals. An executable comment's body (`/*!...*/`) is read as statement text.

use std::borrow::Cow;

use crate::foundation::charset::Charsets;

/// The introducer whose literal is bytes whatever the client's character set.
const BINARY_INTRODUCER: &[u8] = b"_binary";

/// The statement as text for the parser. With `no_backslash_escapes` (the session's sql_mode
/// holds NO_BACKSLASH_ESCAPES), a backslash in a string literal is an ordinary character: such
/// a literal is written again with its backslashes doubled, as the parser reads them.
pub fn statement_text<'a>(
    charsets: &Charsets,
    bytes: &'a [u8],
    no_backslash_escapes: bool,
) -> Cow<'a, str> {
    let utf8 = charsets.client_is_utf8();
    let plain = if utf8 {
        std::str::from_utf8(bytes).is_ok()
    } else {
        !contains_binary_introducer(bytes)
    };
    if plain && !(no_backslash_escapes && bytes.contains(&b'\\')) {
        // The common case: nothing to carry as bytes.
        return charsets.decode(bytes);
    }
    match rewrite(bytes, utf8, no_backslash_escapes) {
        Some(text) => Cow::Owned(charsets.decode_owned(text)),
        None => charsets.decode(bytes),
    }
}

fn contains_binary_introducer(bytes: &[u8]) -> bool {
    bytes
        .windows(BINARY_INTRODUCER.len())
        .any(|w| w.eq_ignore_ascii_case(BINARY_INTRODUCER))
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The text with the literals that must be bytes written as `X'..'`; None when none is.
fn rewrite(bytes: &[u8], utf8: bool, no_backslash_escapes: bool) -> Option<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    // How much of `bytes` is in `out` (or replaced there).
    let mut copied = 0;
    // Whether a `_binary` introducer comes right before the next token.
    let mut introducer = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\'' | b'"' => {
                // A run of adjacent literals ('a' 'b') is one string to the parser: it is bytes
                // as a whole, or not at all.
                let mut run: Vec<(usize, usize, Vec<u8>)> = Vec::new();
                let mut at = i;
                while let Some((end, content)) = string(bytes, at, no_backslash_escapes) {
                    run.push((at, end, content));
                    at = end;
                    while bytes.get(at).is_some_and(|c| c.is_ascii_whitespace()) {
                        at += 1;
                    }
                    if !matches!(bytes.get(at), Some(b'\'' | b'"')) {
                        break;
                    }
                }
                let Some(&(_, run_end, _)) = run.last() else {
                    // Unterminated: the parser reports it.
                    break;
                };
                let whole: Vec<u8> = run.iter().flat_map(|(_, _, c)| c.iter().copied()).collect();
                // A latin1 client's `_binary` literal would otherwise be decoded as text (é
                // becoming two bytes); a UTF-8 client's decodes to itself when it is UTF-8.
                let binary = introducer && !utf8;
                let bytes_only = binary
                    || (utf8
                        && (std::str::from_utf8(&whole).is_err()
                            || run.iter().any(|(_, _, c)| std::str::from_utf8(c).is_err())));
                if bytes_only {
                    // An introducer stays: `_binary X'..'` is a binary string, as the literal was.
                    out.extend_from_slice(&bytes[copied..i]);
                    if i > 0 && is_word_byte(bytes[i - 1]) {
                        out.push(b' ');
                    }
                    out.extend_from_slice(b"X'");
                    const HEX: &[u8; 16] = b"0123456789ABCDEF";
                    out.reserve(2 * whole.len() + 1);
                    for x in &whole {
                        out.extend_from_slice(&[
                            HEX[usize::from(x >> 4)],
                            HEX[usize::from(x & 15)],
                        ]);
                    }
                    out.push(b'\'');
                    copied = run_end;
                } else if no_backslash_escapes {
                    for (start, end, content) in &run {
                        if !content.contains(&b'\\') {
                            continue;
                        }
                        // Written again as the parser reads literals: backslashes doubled.
                        out.extend_from_slice(&bytes[copied..*start]);
                        let quote = bytes[*start];
                        out.push(quote);
                        for &x in content {
                            match x {
                                b'\\' => out.extend_from_slice(b"\\\\"),
                                x if x == quote => out.extend_from_slice(&[quote, quote]),
                                x => out.push(x),
                            }
                        }
                        out.push(quote);
                        copied = *end;
                    }
                }
                introducer = false;
                i = run_end;
            }
            b'`' => {
                introducer = false;
                i = quoted_name_end(bytes, i);
            }
            b'#' => i = line_end(bytes, i),
            b'-' if bytes.get(i + 1) == Some(&b'-')
                && bytes.get(i + 2).is_none_or(|c| *c <= b' ') =>
            {
                i = line_end(bytes, i)
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                introducer = false;
                let executable = match bytes.get(i + 2) {
                    Some(b'!') => Some(i + 3),
                    Some(b'M') if bytes.get(i + 3) == Some(&b'!') => Some(i + 4),
                    _ => None,
                };
                i = match executable {
                    Some(body) => body,
                    None => block_comment_end(bytes, i + 2),
                };
            }
            _ if is_word_byte(b) => {
                let start = i;
                while bytes.get(i).is_some_and(|c| is_word_byte(*c)) {
                    i += 1;
                }
                introducer = bytes[start..i].eq_ignore_ascii_case(BINARY_INTRODUCER);
            }
            _ if b.is_ascii_whitespace() => i += 1,
            _ => {
                introducer = false;
                i += 1;
            }
        }
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(out)
}

/// Whether a text of several statements may change how the later ones are read: it names
/// sql_mode (NO_BACKSLASH_ESCAPES decides what a backslash in a literal is) or the client's
/// character set (`SET NAMES`, `SET CHARACTER SET`, `character_set_client`). Then the text is
/// run one statement at a time, each read under the mode and character set its turn finds, as
/// MariaDB reads it.
pub fn changes_reading(bytes: &[u8]) -> bool {
    const WORDS: [&[u8]; 3] = [b"sql_mode", b"names", b"character"];
    bytes.contains(&b';')
        && WORDS
            .iter()
            .any(|word| crate::parse::mentions_bytes(bytes, word))
}

/// The first statement of a text and the rest after its `;` (None when it is the only one):
/// quotes, backquotes and comments are skipped, a backslash escapes inside quotes unless
/// `no_backslash_escapes`.
pub fn first_statement(bytes: &[u8], no_backslash_escapes: bool) -> Option<(&[u8], &[u8])> {
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i = match b {
            // Unterminated: the text is one statement, and the parser reports it.
            b'\'' | b'"' => string(bytes, i, no_backslash_escapes)?.0,
            b'`' => quoted_name_end(bytes, i),
            b'#' => line_end(bytes, i),
            b'-' if bytes.get(i + 1) == Some(&b'-')
                && bytes.get(i + 2).is_none_or(|c| *c <= b' ') =>
            {
                line_end(bytes, i)
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => block_comment_end(bytes, i + 2),
            b';' => {
                let rest = &bytes[i + 1..];
                return (!rest.iter().all(|c| c.is_ascii_whitespace() || *c == b';'))
                    .then_some((&bytes[..i], rest));
            }
            _ => i + 1,
        };
    }
    None
}

/// The text with each quoted user variable name (`` @`a.b` ``, `@'a b'`, `@"x"`, which
/// PyMySQL's callproc writes) spelled as one word the parser reads as a user variable:
/// [`user_variable`] of the name. None when the text has none.
pub fn quoted_user_variables(sql: &str) -> Option<String> {
    let bytes = sql.as_bytes();
    if !bytes
        .windows(2)
        .any(|w| w[0] == b'@' && matches!(w[1], b'`' | b'\'' | b'"'))
    {
        return None;
    }
    let mut out = String::with_capacity(sql.len());
    let mut at = 0;
    let mut i = 0;
    let mut changed = false;
    while let Some(&b) = bytes.get(i) {
        i = match b {
            b'@' if matches!(bytes.get(i + 1), Some(b'`' | b'\'' | b'"'))
                && (i == 0 || bytes[i - 1] != b'@') =>
            {
                let quote = bytes[i + 1];
                let end = if quote == b'`' {
                    quoted_name_end(bytes, i + 1)
                } else {
                    string(bytes, i + 1, false)?.0
                };
                let inner = sql.get(i + 2..end.saturating_sub(1))?;
                let q = char::from(quote).to_string();
                let name = inner.replace(&format!("{q}{q}"), &q);
                out.push_str(&sql[at..i]);
                out.push('@');
                out.push_str(&user_variable(&name));
                at = end;
                changed = true;
                end
            }
            b'\'' | b'"' => string(bytes, i, false)?.0,
            b'`' => quoted_name_end(bytes, i),
            b'#' => line_end(bytes, i),
            b'-' if bytes.get(i + 1) == Some(&b'-') => line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => block_comment_end(bytes, i + 2),
            _ => i + 1,
        };
    }
    out.push_str(&sql[at..]);
    changed.then_some(out)
}

/// A user variable's name as one word: letters, digits, `_` and `$` as they are, any other
/// character as `$xx$` (its UTF-8 bytes in hex), so `` @`a.b` `` and `@a$2e$b` are one
/// variable whatever the quotes.
pub fn user_variable(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("${b:02x}$"));
            }
        }
    }
    out
}

/// The quoted string starting at `start`: where it ends (after its closing quote) and its bytes
/// with escapes resolved as MariaDB resolves them; None when it does not end.
fn string(bytes: &[u8], start: usize, no_backslash_escapes: bool) -> Option<(usize, Vec<u8>)> {
    let quote = bytes[start];
    let mut content = Vec::new();
    let mut i = start + 1;
    loop {
        let b = *bytes.get(i)?;
        if b == b'\\' && !no_backslash_escapes {
            let next = *bytes.get(i + 1)?;
            match next {
                b'0' => content.push(0),
                b'b' => content.push(8),
                b'n' => content.push(b'\n'),
                b'r' => content.push(b'\r'),
                b't' => content.push(b'\t'),
                b'Z' => content.push(0x1A),
                // Kept with their backslash, for LIKE patterns.
                b'%' | b'_' => content.extend_from_slice(&[b'\\', next]),
                other => content.push(other),
            }
            i += 2;
        } else if b == quote {
            if bytes.get(i + 1) == Some(&quote) {
                content.push(quote);
                i += 2;
            } else {
                return Some((i + 1, content));
            }
        } else {
            content.push(b);
            i += 1;
        }
    }
}

/// After a backticked name starting at `start` (a doubled backtick is part of it).
fn quoted_name_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        if b == b'`' {
            if bytes.get(i + 1) == Some(&b'`') {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

fn line_end(bytes: &[u8], start: usize) -> usize {
    bytes[start..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |p| start + p + 1)
}

fn block_comment_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len(), |p| from + p + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> String {
        statement_text(&Charsets::default(), bytes, false).into_owned()
    }

    #[test]
    fn literals_that_are_no_utf8_become_hex_and_the_rest_is_untouched() {
        assert_eq!(text(b"SELECT 'a\xffb'"), "SELECT X'61FF62'");
        assert_eq!(
            text(b"INSERT INTO t VALUES (1, '\x80\\0\\\\\\'x''y\\%')"),
            "INSERT INTO t VALUES (1, X'80005C277827795C25')"
        );
        assert_eq!(text("SELECT 'é', `a'b`".as_bytes()), "SELECT 'é', `a'b`");
        assert_eq!(text(b"SELECT \"\xfe\""), "SELECT X'FE'");
        // Quotes inside comments and names are not literals.
        assert_eq!(
            text(b"SELECT 1 # it's\n, '\xff' -- don't\n/* 'x */"),
            "SELECT 1 # it's\n, X'FF' -- don't\n/* 'x */"
        );
        // An executable comment's body is statement text.
        assert_eq!(
            text(b"/*!40101 SELECT '\xff' */"),
            "/*!40101 SELECT X'FF' */"
        );
        // An unterminated literal is left to the parser.
        assert_eq!(text(b"SELECT '\xff"), "SELECT '\u{fffd}");
    }

    #[test]
    fn adjacent_literals_are_bytes_together() {
        assert_eq!(text(b"SELECT 'a' '\xff'"), "SELECT X'61FF'");
        assert_eq!(
            text(b"SELECT 'a'\n  \"b\xfe\", 'c'"),
            "SELECT X'6162FE', 'c'"
        );
        // A character split over two literals is whole again.
        assert_eq!(text(b"SELECT '\xc3' '\xa9'"), "SELECT X'C3A9'");
        assert_eq!(text("SELECT 'a' 'é'".as_bytes()), "SELECT 'a' 'é'");
    }

    #[test]
    fn without_backslash_escapes_a_backslash_is_a_character() {
        let text = |b: &[u8]| statement_text(&Charsets::default(), b, true).into_owned();
        assert_eq!(text(b"SELECT 'a\\b', 'it''s'"), "SELECT 'a\\\\b', 'it''s'");
        assert_eq!(text(b"SELECT 'x\\'"), "SELECT 'x\\\\'");
        assert_eq!(text(b"SELECT 'plain'"), "SELECT 'plain'");
        assert_eq!(text(b"SELECT '\\\xff'"), "SELECT X'5CFF'");
    }

    #[test]
    fn binary_introduced_literals_are_bytes_in_every_character_set() {
        // UTF-8 decodes to itself: the text stays as the client wrote it (it names columns).
        assert_eq!(text(b"SELECT _binary'abc'"), "SELECT _binary'abc'");
        assert_eq!(
            text(b"SELECT _BINARY  '\xff', _binary2'\xfe'"),
            "SELECT _BINARY  X'FF', _binary2 X'FE'"
        );
        assert_eq!(text(b"SELECT `_binary`"), "SELECT `_binary`");
        let latin1 = Charsets::all(
            crate::foundation::charset::Wire::Stored(base::types::Charset::Latin1),
            None,
        );
        assert_eq!(
            statement_text(&latin1, b"SELECT _binary'\xe9', '\xe9', _binary 'a'", false),
            "SELECT _binary X'E9', 'é', _binary X'61'"
        );
    }
}
