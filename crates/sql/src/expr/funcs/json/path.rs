//! JSON paths: their parsing (`$.a[1]`, wildcards, ranges, `last`, `**`), the values a path
//! selects in document order, the changes JSON_SET and its kin make at a path, and
//! JSON_SEARCH's walk.

use base::collation;
use base::types::Collation;

use super::doc::{escape, unescape, Json};

/// An array index in a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Index {
    From(u32),
    /// `last - n`.
    Last(u32),
}

impl Index {
    /// The position in an array of `len` items (None before the first).
    pub(super) fn at(self, len: usize) -> Option<usize> {
        match self {
            Index::From(i) => Some(i as usize),
            Index::Last(n) => (len as u64)
                .checked_sub(1 + u64::from(n))
                .map(|i| i as usize),
        }
    }
}

/// A step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Step {
    Key(String),
    AnyKey,
    Index(Index),
    AnyIndex,
    Range(Index, Index),
    /// `**`: any depth.
    Descend,
}

/// Why a path is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PathError {
    /// 4041.
    End,
    /// 4042, at a 1-based position.
    Syntax(usize),
}

pub(super) fn parse_path(text: &[u8]) -> std::result::Result<Vec<Step>, PathError> {
    let mut at = 0;
    let space = |at: &mut usize| {
        while text.get(*at).is_some_and(u8::is_ascii_whitespace) {
            *at += 1;
        }
    };
    let error = |at: usize| {
        if at >= text.len() {
            PathError::End
        } else {
            PathError::Syntax(at + 1)
        }
    };
    space(&mut at);
    if text.get(at) != Some(&b'$') {
        return Err(error(at));
    }
    at += 1;
    let mut steps = Vec::new();
    loop {
        space(&mut at);
        let Some(&b) = text.get(at) else {
            break;
        };
        match b {
            b'.' => {
                at += 1;
                space(&mut at);
                match text.get(at) {
                    None => return Err(PathError::End),
                    Some(b'*') => {
                        at += 1;
                        steps.push(Step::AnyKey);
                    }
                    Some(b'"') => {
                        let start = at + 1;
                        let mut end = start;
                        loop {
                            match text.get(end) {
                                None => return Err(PathError::End),
                                Some(b'"') => break,
                                Some(b'\\') => end += 2,
                                Some(_) => end += 1,
                            }
                        }
                        let body = String::from_utf8_lossy(&text[start..end.min(text.len())]);
                        steps.push(Step::Key(unescape(&body)));
                        at = end + 1;
                    }
                    Some(_) => {
                        let start = at;
                        while text.get(at).is_some_and(|c| {
                            !matches!(c, b'.' | b'[' | b'*') && !c.is_ascii_whitespace()
                        }) {
                            at += 1;
                        }
                        if at == start {
                            return Err(error(at));
                        }
                        steps.push(Step::Key(
                            String::from_utf8_lossy(&text[start..at]).into_owned(),
                        ));
                    }
                }
            }
            b'*' if text.get(at + 1) == Some(&b'*') => {
                at += 2;
                steps.push(Step::Descend);
            }
            b'[' => {
                at += 1;
                space(&mut at);
                if text.get(at) == Some(&b'*') {
                    at += 1;
                    space(&mut at);
                    if text.get(at) != Some(&b']') {
                        return Err(error(at));
                    }
                    at += 1;
                    steps.push(Step::AnyIndex);
                    continue;
                }
                let first = path_index(text, &mut at)?;
                space(&mut at);
                let step = if text[at..].starts_with(b"to") {
                    at += 2;
                    space(&mut at);
                    Step::Range(first, path_index(text, &mut at)?)
                } else {
                    Step::Index(first)
                };
                space(&mut at);
                if text.get(at) != Some(&b']') {
                    return Err(error(at));
                }
                at += 1;
                steps.push(step);
            }
            _ => return Err(PathError::Syntax(at + 1)),
        }
    }
    if steps.last() == Some(&Step::Descend) {
        return Err(PathError::End);
    }
    Ok(steps)
}

/// `n`, `last` or `last - n` inside brackets.
pub(super) fn path_index(text: &[u8], at: &mut usize) -> std::result::Result<Index, PathError> {
    let number = |at: &mut usize| -> std::result::Result<u32, PathError> {
        let start = *at;
        while text.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        if *at == start {
            return Err(if *at >= text.len() {
                PathError::End
            } else {
                PathError::Syntax(*at + 1)
            });
        }
        std::str::from_utf8(&text[start..*at])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or(PathError::Syntax(start + 1))
    };
    // MariaDB 10.9's negative index: -1 is the last item.
    if text.get(*at) == Some(&b'-') {
        *at += 1;
        let n = number(at)?;
        return match n.checked_sub(1) {
            Some(back) => Ok(Index::Last(back)),
            None => Err(PathError::Syntax(*at)),
        };
    }
    if text[*at..].starts_with(b"last") {
        *at += 4;
        while text.get(*at).is_some_and(u8::is_ascii_whitespace) {
            *at += 1;
        }
        if text.get(*at) == Some(&b'-') {
            *at += 1;
            while text.get(*at).is_some_and(u8::is_ascii_whitespace) {
                *at += 1;
            }
            return Ok(Index::Last(number(at)?));
        }
        return Ok(Index::Last(0));
    }
    Ok(Index::From(number(at)?))
}

pub(super) fn has_wildcard(steps: &[Step]) -> bool {
    steps.iter().any(|s| {
        matches!(
            s,
            Step::AnyKey | Step::AnyIndex | Step::Range(..) | Step::Descend
        )
    })
}

/// A step of a concrete location, for JSON_SEARCH's answers.
#[derive(Debug, Clone)]
pub(super) enum Place {
    /// A member: its place among the object's members, and its key.
    Key(usize, String),
    Index(usize),
}

impl Place {
    /// Where it stands among its siblings.
    pub(super) fn position(&self) -> usize {
        match self {
            Place::Key(n, _) | Place::Index(n) => *n,
        }
    }
}

pub(super) fn place_text(places: &[Place]) -> String {
    let mut out = String::from("$");
    for p in places {
        match p {
            Place::Key(_, k) => {
                out.push('.');
                out.push_str(k);
            }
            Place::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// Calls `found` for every value `steps` reach from `node` (document order), with where it is.
pub(super) fn select<'a>(
    node: &'a Json,
    steps: &[Step],
    places: &mut Vec<Place>,
    found: &mut dyn FnMut(&'a Json, &[Place]),
) {
    let Some((step, rest)) = steps.split_first() else {
        found(node, places);
        return;
    };
    match (step, node) {
        (Step::Key(k), Json::Object(members)) => {
            if let Some((n, (key, value))) = members
                .iter()
                .enumerate()
                .find(|(_, (key, _))| key_is(key, k))
            {
                places.push(Place::Key(n, key.clone()));
                select(value, rest, places, found);
                places.pop();
            }
        }
        (Step::AnyKey, Json::Object(members)) => {
            for (n, (key, value)) in members.iter().enumerate() {
                places.push(Place::Key(n, key.clone()));
                select(value, rest, places, found);
                places.pop();
            }
        }
        (Step::Index(i), Json::Array(items)) => {
            if let Some(item) = i.at(items.len()).and_then(|i| items.get(i)) {
                places.push(Place::Index(i.at(items.len()).unwrap_or(0)));
                select(item, rest, places, found);
                places.pop();
            }
        }
        // An index of a value that is not an array: the value itself at 0, as MariaDB.
        (Step::Index(i), _) if i.at(1) == Some(0) => select(node, rest, places, found),
        (Step::AnyIndex, Json::Array(items)) => {
            for (n, item) in items.iter().enumerate() {
                places.push(Place::Index(n));
                select(item, rest, places, found);
                places.pop();
            }
        }
        (Step::Range(from, to), Json::Array(items)) => {
            let (Some(from), Some(to)) = (from.at(items.len()), to.at(items.len())) else {
                return;
            };
            for (n, item) in items.iter().enumerate().take(to + 1).skip(from) {
                places.push(Place::Index(n));
                select(item, rest, places, found);
                places.pop();
            }
        }
        (Step::Descend, Json::Array(_) | Json::Object(_)) => {
            select(node, rest, places, found);
            match node {
                Json::Array(items) => {
                    for (n, item) in items.iter().enumerate() {
                        places.push(Place::Index(n));
                        select(item, steps, places, found);
                        places.pop();
                    }
                }
                Json::Object(members) => {
                    for (n, (key, value)) in members.iter().enumerate() {
                        places.push(Place::Key(n, key.clone()));
                        select(value, steps, places, found);
                        places.pop();
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// The values several paths reach, in document order (a value two paths reach comes twice),
/// as MariaDB's JSON_EXTRACT gives them.
pub(super) fn matches_in_order<'a>(node: &'a Json, paths: &[Vec<Step>]) -> Vec<&'a Json> {
    let mut found: Vec<(Vec<usize>, &'a Json)> = Vec::new();
    for steps in paths {
        select(node, steps, &mut Vec::new(), &mut |j, places| {
            found.push((places.iter().map(Place::position).collect(), j))
        });
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found.into_iter().map(|(_, j)| j).collect()
}

pub(super) fn matches<'a>(node: &'a Json, steps: &[Step]) -> Vec<&'a Json> {
    let mut out = Vec::new();
    select(node, steps, &mut Vec::new(), &mut |j, _| out.push(j));
    out
}

pub(super) fn key_is(raw: &str, key: &str) -> bool {
    if raw.contains('\\') {
        unescape(raw) == key
    } else {
        raw == key
    }
}

/// The value a path without wildcards names, MariaDB's index-0 rule included.
pub(super) fn locate_mut<'a>(node: &'a mut Json, steps: &[Step]) -> Option<&'a mut Json> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(node);
    };
    let next = match (step, node) {
        (Step::Key(k), Json::Object(members)) => {
            &mut members.iter_mut().find(|(key, _)| key_is(key, k))?.1
        }
        (Step::Index(i), Json::Array(items)) => {
            let n = i.at(items.len())?;
            items.get_mut(n)?
        }
        (Step::Index(i), other) if i.at(1) == Some(0) => other,
        _ => return None,
    };
    locate_mut(next, rest)
}

/// JSON_SET, JSON_INSERT and JSON_REPLACE: what they may do at a path.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Write {
    Set,
    Insert,
    Replace,
}

pub(super) fn write_at(doc: &mut Json, steps: &[Step], value: Json, how: Write) {
    let Some((last, parents)) = steps.split_last() else {
        if how != Write::Insert {
            *doc = value;
        }
        return;
    };
    let Some(parent) = locate_mut(doc, parents) else {
        return;
    };
    match (last, parent) {
        (Step::Key(k), Json::Object(members)) => {
            match members.iter_mut().find(|(key, _)| key_is(key, k)) {
                Some(member) if how != Write::Insert => member.1 = value,
                Some(_) => {}
                None if how != Write::Replace => {
                    let mut key = String::new();
                    escape(k, &mut key);
                    members.push((key, value));
                }
                None => {}
            }
        }
        (Step::Index(i), Json::Array(items)) => match i.at(items.len()) {
            Some(n) if n < items.len() && how != Write::Insert => items[n] = value,
            Some(n) if n < items.len() => {}
            Some(_) if how != Write::Replace => items.push(value),
            _ => {}
        },
        (Step::Index(i), parent) => match i.at(1) {
            Some(0) if how != Write::Insert => *parent = value,
            Some(n) if n > 0 && how != Write::Replace => {
                let old = std::mem::replace(parent, Json::Null);
                *parent = Json::Array(vec![old, value]);
            }
            _ => {}
        },
        _ => {}
    }
}

pub(super) fn remove_at(doc: &mut Json, steps: &[Step]) {
    let Some((last, parents)) = steps.split_last() else {
        return;
    };
    let Some(parent) = locate_mut(doc, parents) else {
        return;
    };
    match (last, parent) {
        (Step::Key(k), Json::Object(members)) => {
            if let Some(n) = members.iter().position(|(key, _)| key_is(key, k)) {
                members.remove(n);
            }
        }
        (Step::Index(i), Json::Array(items)) => {
            if let Some(n) = i.at(items.len()).filter(|n| *n < items.len()) {
                items.remove(n);
            }
        }
        _ => {}
    }
}

/// JSON_SEARCH: calls `found` with where every string (and number, as text) matching
/// `pattern` under `c` is.
pub(super) fn search(
    node: &Json,
    pattern: &[u8],
    c: Collation,
    places: &mut Vec<Place>,
    found: &mut Vec<String>,
) {
    match node {
        Json::Str(s) if collation::like(unescape(s).as_bytes(), pattern, c) => {
            found.push(place_text(places));
        }
        Json::Number(n) if collation::like(n.as_bytes(), pattern, c) => {
            found.push(place_text(places));
        }
        Json::Array(items) => {
            for (n, item) in items.iter().enumerate() {
                places.push(Place::Index(n));
                search(item, pattern, c, places, found);
                places.pop();
            }
        }
        Json::Object(members) => {
            for (n, (key, value)) in members.iter().enumerate() {
                places.push(Place::Key(n, key.clone()));
                search(value, pattern, c, places, found);
                places.pop();
            }
        }
        _ => {}
    }
}

/// A LIKE pattern with escape character `escape` in the backslash form `collation::like`
/// reads.
pub(super) fn backslash_pattern(pattern: &[u8], escape: char) -> Vec<u8> {
    if escape == '\\' {
        return pattern.to_vec();
    }
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut chars = String::from_utf8_lossy(pattern).into_owned();
    chars.push('\0');
    let mut it = chars.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\0' && it.peek().is_none() {
            break;
        }
        if c == escape {
            out.push('\\');
            if let Some(next) = it.next().filter(|n| !(*n == '\0' && it.peek().is_none())) {
                out.push(next);
            }
        } else if c == '\\' {
            out.push_str("\\\\");
        } else {
            out.push(c);
        }
    }
    out.into_bytes()
}
