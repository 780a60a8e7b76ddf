//! JSON functions: MariaDB 10.11's JSON_* functions and their arguments, results and warnings
//! (4037 to 4051, with NULL for a document or path they cannot read). Documents are in
//! `json/doc.rs`, paths in `json/path.rs`, the compiler's marking of arguments in
//! `json/args.rs`; JSON columns' checks call [`valid`].

mod args;
mod doc;
mod path;

use base::text::value_text;
use base::types::Collation;
use base::Value;
use myproto::response::types;

use crate::expr::{truthy, Env, Expr};
use crate::foundation::error::SqlError;
use crate::foundation::limits::STRING_RESULT_BYTES_MAX;
pub(crate) use args::{json_as_text, json_scalar, json_text_scalar};
pub use doc::valid;
use doc::{
    contains, depth, escape, merge_patch, merge_preserve, parse, print, printed, resolved,
    type_name, unescape, Json, ParseError, Style,
};
use path::{
    backslash_pattern, has_wildcard, locate_mut, matches, matches_in_order, parse_path, remove_at,
    search, select, write_at, PathError, Step, Write,
};

type Result<T> = std::result::Result<T, SqlError>;

/// The decimals MariaDB reports for a string result (NOT_FIXED_DEC).
const STRING_DECIMALS: u8 = 39;
/// The display length given to a JSON document result (a LONGTEXT's).
const JSON_RESULT_LENGTH: u32 = u32::MAX;
/// The display length given to a string taken out of a document (a VARCHAR(16383)'s).
const STRING_RESULT_LENGTH: u32 = 65_532;

/// JSON functions, and two markers the compiler wraps arguments in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFn {
    Valid,
    Extract,
    /// JSON_EXTRACT where a comparison or arithmetic reads it: a single scalar as its SQL
    /// value (a string unquoted, true/false as 1/0).
    ExtractScalar,
    /// JSON_EXTRACT compared with a string: a single scalar as text, a string unquoted and
    /// true, false and null as written (JSON_EXTRACT(j, '$.flag') = 'true').
    ExtractText,
    Unquote,
    Quote,
    Object,
    Array,
    Type,
    Length,
    Depth,
    Keys,
    Contains,
    ContainsPath,
    Exists,
    /// JSON_VALUE.
    Scalar,
    Query,
    Set,
    Insert,
    Replace,
    Remove,
    ArrayAppend,
    ArrayInsert,
    MergePatch,
    MergePreserve,
    Compact,
    Loose,
    Search,
    /// Marks an argument whose value is JSON text (a JSON column): embedded, not quoted.
    AsJson,
    /// Marks an argument whose value is a truth value (TRUE, a comparison): true or false.
    AsBool,
}

impl JsonFn {
    /// The function a name calls, with its least and most arguments.
    pub(crate) fn from_name(name: &str) -> Option<(JsonFn, usize, usize)> {
        use JsonFn::*;
        const MANY: usize = usize::MAX;
        Some(match name {
            "json_valid" => (Valid, 1, 1),
            "json_extract" => (Extract, 2, MANY),
            "json_unquote" => (Unquote, 1, 1),
            "json_quote" => (Quote, 1, 1),
            "json_object" => (Object, 0, MANY),
            "json_array" => (Array, 0, MANY),
            "json_type" => (Type, 1, 1),
            "json_length" => (Length, 1, 2),
            "json_depth" => (Depth, 1, 1),
            "json_keys" => (Keys, 1, 2),
            "json_contains" => (Contains, 2, 3),
            "json_contains_path" => (ContainsPath, 3, MANY),
            "json_exists" => (Exists, 2, 2),
            "json_value" => (Scalar, 2, 2),
            "json_query" => (Query, 2, 2),
            "json_set" => (Set, 3, MANY),
            "json_insert" => (Insert, 3, MANY),
            "json_replace" => (Replace, 3, MANY),
            "json_remove" => (Remove, 2, MANY),
            "json_array_append" => (ArrayAppend, 3, MANY),
            "json_array_insert" => (ArrayInsert, 3, MANY),
            "json_merge_patch" => (MergePatch, 2, MANY),
            "json_merge_preserve" | "json_merge" => (MergePreserve, 2, MANY),
            "json_compact" => (Compact, 1, 1),
            "json_loose" => (Loose, 1, 1),
            "json_search" => (Search, 3, MANY),
            _ => return None,
        })
    }

    /// MariaDB's 1582 for a count its pairs do not allow (JSON_OBJECT's key-value pairs, a
    /// path-value pair list).
    pub(crate) fn check_count(self, name: &str, n: usize) -> Result<()> {
        use JsonFn::*;
        let bad = match self {
            Object => !n.is_multiple_of(2),
            Set | Insert | Replace | ArrayAppend | ArrayInsert => n.is_multiple_of(2),
            _ => false,
        };
        if bad {
            return Err(crate::expr::wrong_arguments(name));
        }
        Ok(())
    }

    /// Whether argument `i` of `n` is a value the function puts into a document (so a JSON
    /// or truth value there is marked by the compiler).
    pub(crate) fn takes_value_at(self, i: usize, _n: usize) -> bool {
        use JsonFn::*;
        match self {
            Array => true,
            Object => i % 2 == 1,
            Set | Insert | Replace | ArrayAppend | ArrayInsert => i >= 2 && i.is_multiple_of(2),
            Contains => i < 2,
            MergePatch | MergePreserve | Extract | ExtractScalar | ExtractText | Length | Keys
            | Depth | Type | Valid | Unquote | ContainsPath | Exists | Scalar | Query | Remove
            | Compact | Loose | Search => i == 0 || matches!(self, MergePatch | MergePreserve),
            Quote | AsJson | AsBool => false,
        }
    }

    /// Whether the result is JSON text (embedded as JSON when another JSON function takes it).
    pub(crate) fn returns_json(self) -> bool {
        use JsonFn::*;
        matches!(
            self,
            Extract
                | Object
                | Array
                | Keys
                | Query
                | Set
                | Insert
                | Replace
                | Remove
                | ArrayAppend
                | ArrayInsert
                | MergePatch
                | MergePreserve
                | Compact
                | Loose
                | Search
                | AsJson
        )
    }

    /// Whether the result is a string (else an integer).
    pub(crate) fn returns_text(self) -> bool {
        use JsonFn::*;
        !matches!(
            self,
            Valid | Length | Depth | Contains | ContainsPath | Exists | AsBool
        )
    }

    fn name(self) -> &'static str {
        use JsonFn::*;
        match self {
            Valid => "json_valid",
            Extract | ExtractScalar | ExtractText => "json_extract",
            Unquote => "json_unquote",
            Quote => "json_quote",
            Object => "json_object",
            Array => "json_array",
            Type => "json_type",
            Length => "json_length",
            Depth => "json_depth",
            Keys => "json_keys",
            Contains => "json_contains",
            ContainsPath => "json_contains_path",
            Exists => "json_exists",
            Scalar => "json_value",
            Query => "json_query",
            Set => "json_set",
            Insert => "json_insert",
            Replace => "json_replace",
            Remove => "json_remove",
            ArrayAppend => "json_array_append",
            ArrayInsert => "json_array_insert",
            MergePatch => "json_merge_patch",
            MergePreserve => "json_merge_preserve",
            Compact => "json_compact",
            Loose => "json_loose",
            Search => "json_search",
            AsJson | AsBool => "json",
        }
    }
}

/// The result type MariaDB reports: (type code, display length, decimals).
/// CAST(... AS JSON)'s result type: JSON text, as a JSON column's values are announced.
pub(crate) const CAST_TYPE: (u8, u32, u8) = (types::LONG_BLOB, JSON_RESULT_LENGTH, STRING_DECIMALS);

/// CAST(v AS JSON), as MySQL 8 makes it: NULL stays NULL, text is read as JSON (else 3141)
/// and printed normalized: an object's keys once each (the last value of a repeated key) in
/// MySQL's order, shorter keys first, then by their bytes.
pub(crate) fn cast(v: &Value) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let t = text(v);
    let j = doc::parse(&t).map_err(|e| {
        let at = match e {
            doc::ParseError::End => t.len(),
            doc::ParseError::Syntax(p) | doc::ParseError::Depth(p) => p.saturating_sub(1),
        };
        SqlError::new(
            3141,
            "22032",
            format!("Invalid JSON text in argument 1 to function cast_as_json: \"Invalid value.\" at position {at}."),
        )
    })?;
    Ok(json_text(&normalized(j)))
}

/// A JSON value as MySQL's JSON type keeps it (see [`cast`]).
fn normalized(j: Json) -> Json {
    match j {
        Json::Array(items) => Json::Array(items.into_iter().map(normalized).collect()),
        Json::Object(members) => {
            let mut kept: Vec<(String, Json)> = Vec::with_capacity(members.len());
            for (k, v) in members {
                let v = normalized(v);
                match kept.iter_mut().find(|(x, _)| *x == k) {
                    Some(slot) => slot.1 = v,
                    None => kept.push((k, v)),
                }
            }
            kept.sort_by(|(a, _), (b, _)| (a.len(), a.as_bytes()).cmp(&(b.len(), b.as_bytes())));
            Json::Object(kept)
        }
        other => other,
    }
}

pub(crate) fn result_type(f: JsonFn) -> (u8, u32, u8) {
    use JsonFn::*;
    match f {
        Valid | Contains | ContainsPath | Exists | AsBool => (types::LONG, 1, 0),
        Length | Depth => (types::LONG, 10, 0),
        Type => (types::VAR_STRING, 48, STRING_DECIMALS),
        Quote | Unquote | Scalar => (types::VAR_STRING, STRING_RESULT_LENGTH, STRING_DECIMALS),
        _ => (types::LONG_BLOB, JSON_RESULT_LENGTH, STRING_DECIMALS),
    }
}

fn text(v: &Value) -> Vec<u8> {
    value_text(v).unwrap_or_default()
}

fn json_text(j: &Json) -> Value {
    let s = printed(j);
    if s.len() > STRING_RESULT_BYTES_MAX {
        Value::Null
    } else {
        Value::Bytes(s.into_bytes())
    }
}

/// An SQL value as a JSON value: NULL as null, numbers as written, a marked truth value as
/// true or false, marked JSON text as itself, anything else as a string.
fn to_json(e: &Expr, v: Value) -> Json {
    if v.is_null() {
        return Json::Null;
    }
    match e {
        Expr::Call(crate::expr::funcs::Func::Json(JsonFn::AsBool), _) => Json::Bool(truthy(&v)),
        // A JSON column's text goes in as written; another function's result as MariaDB
        // prints it.
        Expr::Call(crate::expr::funcs::Func::Json(JsonFn::AsJson), _) => {
            Json::Verbatim(String::from_utf8_lossy(&text(&v)).into_owned())
        }
        Expr::Call(crate::expr::funcs::Func::Json(f), _) if f.returns_json() => {
            let t = text(&v);
            // Deeper than a document may be read: kept as made.
            parse(&t).unwrap_or_else(|_| Json::Verbatim(String::from_utf8_lossy(&t).into_owned()))
        }
        _ => match v {
            Value::Int(_)
            | Value::UInt(_)
            | Value::Decimal(_)
            | Value::Double(_)
            | Value::Float(_) => Json::Number(String::from_utf8_lossy(&text(&v)).into_owned()),
            other => {
                let mut body = String::new();
                escape(&String::from_utf8_lossy(&text(&other)), &mut body);
                Json::Str(body)
            }
        },
    }
}

/// A value as JSON_ARRAYAGG and JSON_OBJECTAGG put it in their result (the argument `e`
/// marked as JSON functions' arguments are).
pub(crate) fn element_text(e: &Expr, v: Value) -> Vec<u8> {
    let mut out = String::new();
    print(&to_json(e, v), Style::Spaced, &mut out);
    out.into_bytes()
}

/// A value as a JSON_OBJECTAGG key: a quoted JSON string.
pub(crate) fn key_text(v: &Value) -> Vec<u8> {
    let mut out = String::from("\"");
    escape(&String::from_utf8_lossy(&text(v)), &mut out);
    out.push('"');
    out.into_bytes()
}

/// Reads the evaluation of function `f`'s arguments and warns as MariaDB does.
struct Call<'a, 'e> {
    f: JsonFn,
    args: &'a [Expr],
    env: &'a Env<'e>,
}

impl Call<'_, '_> {
    fn value(&self, i: usize) -> Result<Value> {
        self.args[i].eval(self.env)
    }

    /// Argument `i` as a document: None when NULL or not JSON (warned).
    fn doc(&self, i: usize) -> Result<Option<Json>> {
        let v = self.value(i)?;
        if v.is_null() {
            return Ok(None);
        }
        Ok(self.read(&text(&v), i))
    }

    fn read(&self, t: &[u8], i: usize) -> Option<Json> {
        match parse(t) {
            Ok(j) => Some(j),
            Err(e) => {
                let (n, f) = (i + 1, self.f.name());
                let (code, message) = match e {
                    ParseError::End => (
                        4037,
                        format!("Unexpected end of JSON text in argument {n} to function '{f}'"),
                    ),
                    ParseError::Syntax(p) => (
                        4038,
                        format!(
                            "Syntax error in JSON text in argument {n} to function '{f}' at position {p}"
                        ),
                    ),
                    ParseError::Depth(p) => (
                        4040,
                        format!(
                            "Limit of 32 on JSON nested structures depth is reached in argument {n} to function '{f}' at position {p}"
                        ),
                    ),
                };
                self.env.ctx.warn(code, message);
                None
            }
        }
    }

    /// Argument `i` as a path: None when NULL or not a path (warned), or when it has
    /// wildcards and `wildcards` is false (warned).
    fn path(&self, i: usize, wildcards: bool) -> Result<Option<Vec<Step>>> {
        let v = self.value(i)?;
        if v.is_null() {
            return Ok(None);
        }
        let (n, f) = (i + 1, self.f.name());
        match parse_path(&text(&v)) {
            Ok(steps) if !wildcards && has_wildcard(&steps) => {
                self.env.ctx.warn(
                    4044,
                    format!(
                        "Wildcards or range in JSON path not allowed in argument {n} to function '{f}'"
                    ),
                );
                Ok(None)
            }
            Ok(steps) => Ok(Some(steps)),
            Err(PathError::End) => {
                self.env.ctx.warn(
                    4041,
                    format!("Unexpected end of JSON path in argument {n} to function '{f}'"),
                );
                Ok(None)
            }
            Err(PathError::Syntax(p)) => {
                self.env.ctx.warn(
                    4042,
                    format!(
                        "Syntax error in JSON path in argument {n} to function '{f}' at position {p}"
                    ),
                );
                Ok(None)
            }
        }
    }

    /// Argument `i` as a value to put into a document.
    fn json_value(&self, i: usize) -> Result<Option<Json>> {
        let v = self.value(i)?;
        let e = &self.args[i];
        if !v.is_null() {
            if let Expr::Call(crate::expr::funcs::Func::Json(f), _) = e {
                if f.returns_json() {
                    return Ok(self.read(&text(&v), i).map(resolved));
                }
            }
        }
        Ok(Some(to_json(e, v)))
    }

    /// 'one' or 'all' (JSON_CONTAINS_PATH, JSON_SEARCH): None when NULL or neither (warned).
    fn mode(&self, i: usize) -> Result<Option<bool>> {
        let v = self.value(i)?;
        if v.is_null() {
            return Ok(None);
        }
        let t = text(&v);
        if t.eq_ignore_ascii_case(b"one") {
            return Ok(Some(false));
        }
        if t.eq_ignore_ascii_case(b"all") {
            return Ok(Some(true));
        }
        let (n, f) = (i + 1, self.f.name());
        self.env.ctx.warn(
            4046,
            format!("Argument {n} to function '{f}' must be \"one\" or \"all\"."),
        );
        Ok(None)
    }
}

pub(crate) fn call(f: JsonFn, args: &[Expr], env: &Env, c: Collation) -> Result<Value> {
    use JsonFn::*;
    let call = Call { f, args, env };
    let string = |s: String| Value::Bytes(s.into_bytes());
    macro_rules! doc {
        ($i:expr) => {
            match call.doc($i)? {
                Some(d) => d,
                None => return Ok(Value::Null),
            }
        };
    }
    macro_rules! path {
        ($i:expr, $wild:expr) => {
            match call.path($i, $wild)? {
                Some(p) => p,
                None => return Ok(Value::Null),
            }
        };
    }
    Ok(match f {
        AsJson | AsBool => call.value(0)?,
        Valid => {
            let v = call.value(0)?;
            if v.is_null() {
                Value::Null
            } else {
                Value::Int(i64::from(valid(&text(&v))))
            }
        }
        Quote => match call.value(0)? {
            Value::Bytes(b) => {
                let mut out = String::from("\"");
                escape(&String::from_utf8_lossy(&b), &mut out);
                out.push('"');
                string(out)
            }
            _ => Value::Null,
        },
        Unquote => {
            let v = call.value(0)?;
            if v.is_null() {
                return Ok(Value::Null);
            }
            let t = text(&v);
            match parse(&t) {
                Ok(Json::Str(s)) => string(unescape(&s)),
                _ => Value::Bytes(t),
            }
        }
        Object => {
            let mut members = Vec::with_capacity(args.len() / 2);
            for pair in (0..args.len()).step_by(2) {
                let mut key = String::new();
                escape(
                    &String::from_utf8_lossy(&text(&call.value(pair)?)),
                    &mut key,
                );
                let value = to_json(&args[pair + 1], call.value(pair + 1)?);
                members.push((key, value));
            }
            json_text(&Json::Object(members))
        }
        Array => {
            let mut items = Vec::with_capacity(args.len());
            for (i, e) in args.iter().enumerate() {
                items.push(to_json(e, call.value(i)?));
            }
            json_text(&Json::Array(items))
        }
        Type => string(type_name(&doc!(0)).to_owned()),
        Depth => Value::Int(depth(&doc!(0))),
        Compact => {
            let mut out = String::new();
            print(&doc!(0), Style::Compact, &mut out);
            string(out)
        }
        Loose => json_text(&doc!(0)),
        Extract | ExtractScalar | ExtractText => {
            let d = doc!(0);
            let mut paths = Vec::with_capacity(args.len() - 1);
            let mut wrap = args.len() > 2;
            for i in 1..args.len() {
                let steps = path!(i, true);
                wrap |= has_wildcard(&steps);
                paths.push(steps);
            }
            let found = matches_in_order(&d, &paths);
            match found.as_slice() {
                [] => Value::Null,
                [Json::Str(s)] if !wrap && f != Extract => string(unescape(s)),
                [Json::Bool(b)] if !wrap && f == ExtractScalar => Value::Int(i64::from(*b)),
                [one] if !wrap => json_text(one),
                _ => json_text(&Json::Array(found.into_iter().cloned().collect())),
            }
        }
        Length | Keys => {
            let d = doc!(0);
            let target = if args.len() > 1 {
                let steps = path!(1, false);
                match matches(&d, &steps).first() {
                    Some(t) => (*t).clone(),
                    None => return Ok(Value::Null),
                }
            } else {
                d
            };
            match (f, &target) {
                (Length, Json::Array(items)) => Value::Int(items.len() as i64),
                (Length, Json::Object(members)) => Value::Int(members.len() as i64),
                (Length, _) => Value::Int(1),
                (_, Json::Object(members)) => {
                    let mut keys: Vec<Json> = Vec::with_capacity(members.len());
                    for (k, _) in members {
                        let key = Json::Str(k.clone());
                        if !keys.contains(&key) {
                            keys.push(key);
                        }
                    }
                    json_text(&Json::Array(keys))
                }
                _ => Value::Null,
            }
        }
        Contains => {
            let d = doc!(0);
            let Some(candidate) = call.doc(1)? else {
                return Ok(Value::Null);
            };
            let target = if args.len() > 2 {
                let steps = path!(2, false);
                match matches(&d, &steps).first() {
                    Some(t) => (*t).clone(),
                    None => return Ok(Value::Int(0)),
                }
            } else {
                d
            };
            Value::Int(i64::from(contains(&target, &candidate)))
        }
        ContainsPath => {
            let d = doc!(0);
            let Some(all) = call.mode(1)? else {
                return Ok(Value::Null);
            };
            let mut any = false;
            let mut every = true;
            for i in 2..args.len() {
                let steps = path!(i, true);
                let hit = !matches(&d, &steps).is_empty();
                any |= hit;
                every &= hit;
            }
            Value::Int(i64::from(if all { every } else { any }))
        }
        Exists => {
            let d = doc!(0);
            let steps = path!(1, true);
            Value::Int(i64::from(!matches(&d, &steps).is_empty()))
        }
        Scalar | Query => {
            let d = doc!(0);
            let steps = path!(1, true);
            let found = matches(&d, &steps);
            match (f, found.first()) {
                (Scalar, Some(_)) if has_wildcard(&steps) => Value::Null,
                (Scalar, Some(Json::Str(s))) => string(unescape(s)),
                (Scalar, Some(Json::Number(n))) => string(n.clone()),
                (Scalar, Some(Json::Bool(b))) => string(if *b { "1" } else { "0" }.to_owned()),
                (Query, Some(j @ (Json::Array(_) | Json::Object(_)))) => json_text(j),
                _ => Value::Null,
            }
        }
        Set | Insert | Replace | ArrayAppend | ArrayInsert => {
            let mut d = doc!(0);
            for pair in (1..args.len()).step_by(2) {
                let steps = path!(pair, false);
                let Some(value) = call.json_value(pair + 1)? else {
                    return Ok(Value::Null);
                };
                match f {
                    Set => write_at(&mut d, &steps, value, Write::Set),
                    Insert => write_at(&mut d, &steps, value, Write::Insert),
                    Replace => write_at(&mut d, &steps, value, Write::Replace),
                    ArrayAppend => {
                        // A path to nothing makes the whole result NULL, as MariaDB.
                        match locate_mut(&mut d, &steps) {
                            Some(Json::Array(items)) => items.push(value),
                            Some(other) => {
                                let old = std::mem::replace(other, Json::Null);
                                *other = Json::Array(vec![old, value]);
                            }
                            None => return Ok(Value::Null),
                        }
                    }
                    _ => {
                        let Some((Step::Index(i), parents)) = steps.split_last() else {
                            return Ok(Value::Null);
                        };
                        if let Some(Json::Array(items)) = locate_mut(&mut d, parents) {
                            // `last` is past the last item here, as MariaDB reads it.
                            let n = match i {
                                path::Index::Last(back) => {
                                    items.len().saturating_sub(*back as usize)
                                }
                                path::Index::From(n) => (*n as usize).min(items.len()),
                            };
                            items.insert(n, value);
                        }
                    }
                }
            }
            json_text(&d)
        }
        Remove => {
            let mut d = doc!(0);
            for i in 1..args.len() {
                let steps = path!(i, false);
                if steps.is_empty() {
                    let (n, name) = (i + 1, f.name());
                    env.ctx.warn(
                        4051,
                        format!(
                            "Path expression '$' is not allowed in argument {n} to function '{name}'."
                        ),
                    );
                    return Ok(Value::Null);
                }
                remove_at(&mut d, &steps);
            }
            json_text(&d)
        }
        MergePatch | MergePreserve => {
            let mut merged = doc!(0);
            for i in 1..args.len() {
                let next = doc!(i);
                merged = if f == MergePatch {
                    merge_patch(merged, next)
                } else {
                    merge_preserve(merged, next)
                };
            }
            json_text(&merged)
        }
        Search => {
            let d = doc!(0);
            let Some(all) = call.mode(1)? else {
                return Ok(Value::Null);
            };
            let needle = call.value(2)?;
            if needle.is_null() {
                return Ok(Value::Null);
            }
            let escape_char = match args.get(3).map(|a| a.eval(env)).transpose()? {
                Some(v) if !v.is_null() => String::from_utf8_lossy(&text(&v))
                    .chars()
                    .next()
                    .unwrap_or('\\'),
                _ => '\\',
            };
            let pattern = backslash_pattern(&text(&needle), escape_char);
            let mut found = Vec::new();
            if args.len() > 4 {
                for i in 4..args.len() {
                    let steps = path!(i, true);
                    select(&d, &steps, &mut Vec::new(), &mut |j, places| {
                        search(j, &pattern, c, &mut places.to_vec(), &mut found)
                    });
                }
            } else {
                search(&d, &pattern, c, &mut Vec::new(), &mut found);
            }
            let quoted = |p: &String| {
                let mut body = String::new();
                escape(p, &mut body);
                Json::Str(body)
            };
            match found.as_slice() {
                [] => Value::Null,
                [one, ..] if !all || found.len() == 1 => json_text(&quoted(one)),
                _ => json_text(&Json::Array(found.iter().map(quoted).collect())),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(t: &str) -> String {
        printed(&parse(t.as_bytes()).unwrap())
    }

    #[test]
    fn cast_as_json_keeps_the_last_of_a_repeated_key_and_sorts_keys_as_mysql() {
        let cast_text = |t: &str| cast(&Value::Bytes(t.as_bytes().to_vec()));
        assert_eq!(
            cast_text(r#"{"b": 1, "aa": [1,2], "b": 3, "c":{"z":null,"y":true}}"#).unwrap(),
            Value::Bytes(br#"{"b": 3, "c": {"y": true, "z": null}, "aa": [1, 2]}"#.to_vec())
        );
        assert_eq!(cast(&Value::Null).unwrap(), Value::Null);
        assert_eq!(cast_text("{bad").unwrap_err().code, 3141);
    }

    #[test]
    fn parses_what_mariadb_takes_and_reports_where_it_stops() {
        assert_eq!(
            canonical(r#" {"a" :[1,2.50,-0.0,1e5] , "b":{}} "#),
            r#"{"a": [1, 2.50, -0.0, 1e5], "b": {}}"#
        );
        assert_eq!(canonical("[1.]"), "[1.]");
        assert_eq!(canonical(r#""x\u0041\q""#), r#""x\u0041\q""#);
        assert_eq!(parse(b"{a:1}"), Err(ParseError::Syntax(2)));
        assert_eq!(parse(b"[1,2] x"), Err(ParseError::Syntax(7)));
        assert_eq!(parse(b"{\"a\":1, x}"), Err(ParseError::Syntax(9)));
        assert_eq!(parse(b"[1,"), Err(ParseError::End));
        assert_eq!(parse(b""), Err(ParseError::End));
        assert!(parse(b"[01]").is_err());
        assert!(parse(b"[tru]").is_err());
        assert!(parse(b"\"a\tb\"").is_err());
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(valid(nested(31).as_bytes()));
        assert_eq!(parse(nested(32).as_bytes()), Err(ParseError::Depth(32)));
    }

    #[test]
    fn paths_select_in_document_order() {
        let d = parse(br#"{"a":{"a":1},"b":[1,2,3],"c d":true}"#).unwrap();
        let texts = |p: &str| -> Vec<String> {
            matches(&d, &parse_path(p.as_bytes()).unwrap())
                .into_iter()
                .map(printed)
                .collect()
        };
        assert_eq!(texts("$**.a"), ["{\"a\": 1}", "1"]);
        assert_eq!(texts("$.b[last]"), ["3"]);
        assert_eq!(texts("$.b[last-1]"), ["2"]);
        assert_eq!(texts("$.b[0 to 1]"), ["1", "2"]);
        assert_eq!(texts("$.b[2 to 1]"), Vec::<String>::new());
        assert_eq!(texts("$.\"c d\""), ["true"]);
        assert_eq!(texts("$.a[0]"), ["{\"a\": 1}"]);
        assert_eq!(texts("$.a[*]"), Vec::<String>::new());
        assert_eq!(parse_path(b"$[a]"), Err(PathError::Syntax(3)));
        assert_eq!(parse_path(b"$."), Err(PathError::End));
        assert_eq!(parse_path(b"a"), Err(PathError::Syntax(1)));
    }

    #[test]
    fn writes_merges_and_containment() {
        let mut d = parse(br#"{"a":[1,2]}"#).unwrap();
        let p = |t: &str| parse_path(t.as_bytes()).unwrap();
        write_at(&mut d, &p("$.a[0]"), Json::Number("9".into()), Write::Set);
        write_at(&mut d, &p("$.a[5]"), Json::Number("8".into()), Write::Set);
        write_at(&mut d, &p("$.b"), Json::Null, Write::Insert);
        write_at(&mut d, &p("$.c.d"), Json::Null, Write::Set);
        assert_eq!(printed(&d), r#"{"a": [9, 2, 8], "b": null}"#);
        let mut one = Json::Number("1".into());
        write_at(&mut one, &p("$[1]"), Json::Number("2".into()), Write::Set);
        assert_eq!(printed(&one), "[1, 2]");
        remove_at(&mut d, &p("$.a[0]"));
        assert_eq!(printed(&d), r#"{"a": [2, 8], "b": null}"#);
        let j = |t: &str| parse(t.as_bytes()).unwrap();
        assert_eq!(
            printed(&merge_preserve(j(r#"{"a":1}"#), j(r#"{"a":2}"#))),
            r#"{"a": [1, 2]}"#
        );
        assert_eq!(
            printed(&merge_patch(j(r#"{"a":1}"#), j(r#"{"b":2,"a":null}"#))),
            r#"{"b": 2}"#
        );
        assert!(contains(&j("[1,[2,3]]"), &j("[2]")));
        assert!(!contains(&j("[1,2]"), &j("[1,3]")));
        assert!(contains(&j("1"), &j("1.0")));
        assert!(!contains(&j(r#"{"a":1}"#), &j("1")));
        assert_eq!(unescape(r"\u00e9\ud83d\ude00\n"), "é😀\n");
        let mut quoted = String::new();
        escape("a\"\\\n\u{1f}/", &mut quoted);
        assert_eq!(quoted, r#"a\"\\\n\u001F/"#);
        assert_eq!(backslash_pattern(b"a|_c\\", '|'), b"a\\_c\\\\".to_vec());
    }
}
