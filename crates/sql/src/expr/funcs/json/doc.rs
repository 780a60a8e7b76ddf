//! JSON documents: the tree a JSON text parses into (numbers and strings kept as written),
//! MariaDB's reading of JSON text (its limits and error positions), its printing, and the
//! operations on whole documents (merging, containment, depth, type).

/// How deep arrays and objects may nest: opening the 32nd level is MariaDB's warning 4040.
const DEPTH_MAX: usize = 32;

/// A parsed JSON value. Numbers and strings keep their text as written (a string without its
/// quotes, escapes kept), so printing gives them back unchanged.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Array(Vec<Json>),
    /// Members in document order; a repeated key is kept (the first one is found).
    Object(Vec<(String, Json)>),
    /// JSON text embedded as given (a JSON column's value inside JSON_OBJECT), already valid.
    Verbatim(String),
}

/// Why a text is not JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// It ends inside a value (4037).
    End,
    /// An unexpected byte at this 1-based position (4038).
    Syntax(usize),
    /// The 32nd nested level opens at this 1-based position (4040).
    Depth(usize),
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while matches!(self.text.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn error(&self) -> ParseError {
        if self.at >= self.text.len() {
            ParseError::End
        } else {
            ParseError::Syntax(self.at + 1)
        }
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Json, ParseError> {
        self.skip_space();
        let Some(&b) = self.text.get(self.at) else {
            return Err(ParseError::End);
        };
        match b {
            b'{' | b'[' => {
                if depth + 1 >= DEPTH_MAX {
                    return Err(ParseError::Depth(self.at + 1));
                }
                self.at += 1;
                if b == b'[' {
                    self.array(depth + 1)
                } else {
                    self.object(depth + 1)
                }
            }
            b'"' => Ok(Json::Str(self.string()?)),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.error()),
        }
    }

    fn word(&mut self, word: &str, value: Json) -> std::result::Result<Json, ParseError> {
        for &expected in word.as_bytes() {
            if self.text.get(self.at) != Some(&expected) {
                return Err(self.error());
            }
            self.at += 1;
        }
        Ok(value)
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
            self.at += 1;
        }
        self.at - start
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]*)? ([eE] [+-]? [0-9]+)?` (MariaDB takes `1.`).
    fn number(&mut self) -> std::result::Result<Json, ParseError> {
        let start = self.at;
        if self.text[self.at] == b'-' {
            self.at += 1;
        }
        match self.text.get(self.at) {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error()),
        }
        if self.text.get(self.at) == Some(&b'.') {
            self.at += 1;
            self.digits();
        }
        if matches!(self.text.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.text.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.error());
            }
        }
        if self.text.get(self.at).is_some_and(u8::is_ascii_digit) {
            return Err(self.error());
        }
        Ok(Json::Number(
            String::from_utf8_lossy(&self.text[start..self.at]).into_owned(),
        ))
    }

    /// A string's body, escapes kept; the cursor is on its opening quote.
    fn string(&mut self) -> std::result::Result<String, ParseError> {
        self.at += 1;
        let start = self.at;
        loop {
            match self.text.get(self.at) {
                None => return Err(ParseError::End),
                Some(b'"') => break,
                Some(b'\\') => {
                    self.at += 1;
                    match self.text.get(self.at) {
                        None => return Err(ParseError::End),
                        Some(b'u') => {
                            for _ in 0..4 {
                                self.at += 1;
                                match self.text.get(self.at) {
                                    None => return Err(ParseError::End),
                                    Some(h) if h.is_ascii_hexdigit() => {}
                                    Some(_) => return Err(self.error()),
                                }
                            }
                            self.at += 1;
                        }
                        Some(_) => self.at += 1,
                    }
                }
                Some(c) if *c < 0x20 => return Err(self.error()),
                Some(_) => self.at += 1,
            }
        }
        let body = std::str::from_utf8(&self.text[start..self.at])
            .map_err(|e| ParseError::Syntax(start + e.valid_up_to() + 1))?
            .to_owned();
        self.at += 1;
        Ok(body)
    }

    fn array(&mut self, depth: usize) -> std::result::Result<Json, ParseError> {
        let mut items = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error()),
            }
        }
    }

    fn object(&mut self, depth: usize) -> std::result::Result<Json, ParseError> {
        let mut members = Vec::new();
        self.skip_space();
        if self.text.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_space();
            if self.text.get(self.at) != Some(&b'"') {
                return Err(self.error());
            }
            let key = self.string()?;
            self.skip_space();
            if self.text.get(self.at) != Some(&b':') {
                return Err(self.error());
            }
            self.at += 1;
            members.push((key, self.value(depth)?));
            self.skip_space();
            match self.text.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error()),
            }
        }
    }
}

/// Parses a whole JSON text (spaces around it allowed).
pub(crate) fn parse(text: &[u8]) -> std::result::Result<Json, ParseError> {
    let mut p = Parser { text, at: 0 };
    let value = p.value(0)?;
    p.skip_space();
    if p.at < text.len() {
        return Err(ParseError::Syntax(p.at + 1));
    }
    Ok(value)
}

/// Whether a text is JSON (JSON_VALID, and a JSON column's check).
pub fn valid(text: &[u8]) -> bool {
    parse(text).is_ok()
}

/// A string's body with its escapes read (`\uXXXX` with surrogate pairs; an unknown escape
/// stands for the character after the backslash, as MariaDB reads it).
pub(super) fn unescape(body: &str) -> String {
    if !body.contains('\\') {
        return body.to_owned();
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let unit = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                let code = if (0xD800..0xDC00).contains(&unit) {
                    let rest = chars.as_str();
                    match rest
                        .strip_prefix("\\u")
                        .and_then(|r| r.get(..4))
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                    {
                        Some(low @ 0xDC00..=0xDFFF) => {
                            chars = rest[6..].chars();
                            0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        _ => 0xFFFD,
                    }
                } else {
                    unit
                };
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Text as the body of a JSON string (JSON_QUOTE, values put into documents).
pub(super) fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
}

/// How a document is printed: MariaDB's usual form, or JSON_COMPACT's.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Spaced,
    Compact,
}

pub(super) fn print(j: &Json, style: Style, out: &mut String) {
    let (comma, colon) = match style {
        Style::Spaced => (", ", ": "),
        Style::Compact => (",", ":"),
    };
    match j {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::Str(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Json::Verbatim(t) => out.push_str(t),
        Json::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                print(item, style, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(comma);
                }
                out.push('"');
                out.push_str(key);
                out.push('"');
                out.push_str(colon);
                print(value, style, out);
            }
            out.push('}');
        }
    }
}

pub(super) fn printed(j: &Json) -> String {
    let mut out = String::new();
    print(j, Style::Spaced, &mut out);
    out
}

/// A verbatim text read as a tree (to be searched or changed); valid by construction.
pub(super) fn resolved(j: Json) -> Json {
    match j {
        Json::Verbatim(t) => parse(t.as_bytes()).unwrap_or(Json::Null),
        other => other,
    }
}

pub(super) fn merge_preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut left), Json::Object(right)) => {
            for (key, value) in right {
                match left.iter().position(|(k, _)| *k == key) {
                    Some(n) => {
                        let old = std::mem::replace(&mut left[n].1, Json::Null);
                        left[n].1 = merge_preserve(old, value);
                    }
                    None => left.push((key, value)),
                }
            }
            Json::Object(left)
        }
        (a, b) => {
            let mut items = match a {
                Json::Array(items) => items,
                other => vec![other],
            };
            match b {
                Json::Array(more) => items.extend(more),
                other => items.push(other),
            }
            Json::Array(items)
        }
    }
}

pub(super) fn merge_patch(target: Json, patch: Json) -> Json {
    let Json::Object(patch) = patch else {
        return patch;
    };
    let mut members = match target {
        Json::Object(members) => members,
        _ => Vec::new(),
    };
    for (key, value) in patch {
        let at = members.iter().position(|(k, _)| *k == key);
        match (value, at) {
            (Json::Null, Some(n)) => {
                members.remove(n);
            }
            (Json::Null, None) => {}
            (value, Some(n)) => {
                let old = std::mem::replace(&mut members[n].1, Json::Null);
                members[n].1 = merge_patch(old, value);
            }
            (value, None) => members.push((key, merge_patch(Json::Null, value))),
        }
    }
    Json::Object(members)
}

fn number_value(n: &str) -> f64 {
    n.parse().unwrap_or(0.0)
}

/// JSON_CONTAINS: whether `candidate` is contained in `target` (MySQL's rules: an array holds
/// a candidate array's every element, or a non-array inside one of its elements; an object
/// holds a candidate object's every key with a contained value; scalars are equal).
pub(super) fn contains(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Array(items), Json::Array(wanted)) => wanted
            .iter()
            .all(|w| items.iter().any(|item| contains(item, w))),
        (Json::Array(items), other) => items.iter().any(|item| contains(item, other)),
        (Json::Object(members), Json::Object(wanted)) => wanted.iter().all(|(k, w)| {
            members
                .iter()
                .find(|(key, _)| unescape(key) == unescape(k))
                .is_some_and(|(_, v)| contains(v, w))
        }),
        (Json::Object(_), _) | (_, Json::Object(_) | Json::Array(_)) => false,
        (Json::Number(a), Json::Number(b)) => number_value(a) == number_value(b),
        (Json::Str(a), Json::Str(b)) => unescape(a) == unescape(b),
        (a, b) => a == b,
    }
}

pub(super) fn depth(j: &Json) -> i64 {
    match j {
        Json::Array(items) if !items.is_empty() => 1 + items.iter().map(depth).max().unwrap_or(0),
        Json::Object(members) if !members.is_empty() => {
            1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0)
        }
        _ => 1,
    }
}

pub(super) fn type_name(j: &Json) -> &'static str {
    match j {
        Json::Null => "NULL",
        Json::Bool(_) => "BOOLEAN",
        Json::Number(n) if n.contains('.') => "DOUBLE",
        Json::Number(_) => "INTEGER",
        Json::Str(_) => "STRING",
        Json::Array(_) => "ARRAY",
        Json::Object(_) => "OBJECT",
        Json::Verbatim(_) => "OBJECT",
    }
}
