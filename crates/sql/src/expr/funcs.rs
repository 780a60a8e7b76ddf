//! Scalar functions: the names MySQL knows them by with their argument counts, and their
//! evaluation (string, numeric and NULL-handling functions) with MySQL's semantics. The further
//! string functions live in `funcs/strings.rs`, the further numeric ones in `funcs/math.rs`,
//! the date and time functions in `expr/temporal.rs`, the spatial ones in `funcs/spatial.rs`.

pub(crate) mod json;
mod math;
mod misc;
mod regexp;
pub(crate) mod spatial;
pub(crate) mod strings;

use std::cmp::Ordering;

use base::text::value_text;
use base::value::Decimal;
use base::Value;

use crate::expr::{
    arithmetic, compare_in, dbl, dec, int_value, num, out_of_range, truthy, BinOp, Env, Expr, Num,
    DECIMAL_SCALE_MAX,
};
use crate::foundation::error::SqlError;

pub(crate) use json::JsonFn;
pub(crate) use math::{system_rng, MathFn, Randoms, Rng};
pub(crate) use misc::MiscFn;
pub(crate) use spatial::SpatialFn;
pub(crate) use strings::StrFn;

type Result<T> = std::result::Result<T, SqlError>;

/// Scalar functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Concat,
    ConcatWs,
    Length,
    CharLength,
    Upper,
    Lower,
    Substring,
    Left,
    Right,
    Trim,
    Ltrim,
    Rtrim,
    Replace,
    Repeat,
    Reverse,
    Abs,
    Floor,
    Ceiling,
    Round,
    Sign,
    Mod,
    IfNull,
    Coalesce,
    If,
    NullIf,
    Greatest,
    Least,
    /// A further string function (`funcs/strings.rs`).
    Str(StrFn),
    /// A further numeric function (`funcs/math.rs`).
    Math(MathFn),
    /// A date and time function (`expr/temporal.rs`).
    Temporal(crate::expr::temporal::Temporal),
    /// A JSON function (`funcs/json.rs`).
    Json(JsonFn),
    /// UUID, UUID_SHORT, INET_ATON, INET_NTOA (`funcs/misc.rs`).
    Misc(MiscFn),
    /// A spatial function (`funcs/spatial.rs`).
    Spatial(SpatialFn),
}

impl Func {
    pub(crate) fn from_name(name: &str) -> Option<(Func, usize, usize)> {
        use Func::*;
        let (f, min, max) = match name {
            "concat" => (Concat, 1, usize::MAX),
            "concat_ws" => (ConcatWs, 2, usize::MAX),
            "length" | "octet_length" => (Length, 1, 1),
            "char_length" | "character_length" => (CharLength, 1, 1),
            "upper" | "ucase" => (Upper, 1, 1),
            "lower" | "lcase" => (Lower, 1, 1),
            "substring" | "substr" | "mid" => (Substring, 2, 3),
            "left" => (Left, 2, 2),
            "right" => (Right, 2, 2),
            "trim" => (Trim, 1, 1),
            "ltrim" => (Ltrim, 1, 1),
            "rtrim" => (Rtrim, 1, 1),
            "replace" => (Replace, 3, 3),
            "repeat" => (Repeat, 2, 2),
            "reverse" => (Reverse, 1, 1),
            "abs" => (Abs, 1, 1),
            "floor" => (Floor, 1, 1),
            "ceiling" | "ceil" => (Ceiling, 1, 1),
            "round" => (Round, 1, 2),
            "sign" => (Sign, 1, 1),
            "mod" => (Mod, 2, 2),
            "ifnull" => (IfNull, 2, 2),
            "coalesce" => (Coalesce, 1, usize::MAX),
            "if" => (If, 3, 3),
            "nullif" => (NullIf, 2, 2),
            "greatest" => (Greatest, 2, usize::MAX),
            "least" => (Least, 2, usize::MAX),
            _ => {
                if let Some((s, min, max)) = StrFn::from_name(name) {
                    (Str(s), min, max)
                } else if let Some((m, min, max)) = MathFn::from_name(name) {
                    (Math(m), min, max)
                } else if let Some((j, min, max)) = JsonFn::from_name(name) {
                    (Json(j), min, max)
                } else if let Some((m, min, max)) = MiscFn::from_name(name) {
                    (Misc(m), min, max)
                } else if let Some((g, min, max)) = SpatialFn::from_name(name) {
                    (Spatial(g), min, max)
                } else {
                    let (t, min, max) = crate::expr::temporal::Temporal::from_name(name)?;
                    (Temporal(t), min, max)
                }
            }
        };
        Some((f, min, max))
    }

    /// Whether the result is a binary string (sent with the binary collation, as MariaDB).
    pub(crate) fn binary_result(self) -> bool {
        matches!(self, Func::Str(s) if s.binary_result())
            || matches!(self, Func::Spatial(g) if g.binary_result())
    }

    /// Whether the function compares strings (so compares them under its arguments' collation).
    pub(crate) fn compares_strings(self) -> bool {
        matches!(
            self,
            Func::NullIf
                | Func::Greatest
                | Func::Least
                | Func::Str(
                    StrFn::Strcmp
                        | StrFn::Field
                        | StrFn::Instr
                        | StrFn::Locate
                        | StrFn::FindInSet
                        | StrFn::Regexp
                        | StrFn::RegexpReplace
                        | StrFn::RegexpSubstr
                        | StrFn::RegexpInstr
                )
        )
    }

    /// Whether the result is an unsigned integer (MariaDB flags the column UNSIGNED).
    pub(crate) fn unsigned_result(self) -> bool {
        matches!(
            self,
            Func::Str(StrFn::Crc32)
                | Func::Math(
                    MathFn::BitAnd
                        | MathFn::BitOr
                        | MathFn::BitXor
                        | MathFn::ShiftLeft
                        | MathFn::ShiftRight
                        | MathFn::BitNot
                )
        ) || matches!(self, Func::Misc(m) if m.unsigned_result())
    }

    /// Whether a call may wait (SLEEP, GET_LOCK): the statement runs on the connection's own
    /// thread, never in the event loop.
    pub(crate) fn waits(self) -> bool {
        matches!(self, Func::Misc(m) if m.waits())
    }

    /// Whether each call gives another value (RAND): never worked out ahead of the rows.
    pub(crate) fn is_volatile(self) -> bool {
        matches!(self, Func::Math(MathFn::Rand)) || matches!(self, Func::Misc(m) if m.is_volatile())
    }
}

/// The result type of a further string or numeric function: (type code, display length,
/// decimals); None for the others, which `typing::static_type` types itself.
pub(crate) fn result_type(
    f: Func,
    args: &[Expr],
    arg_type: &dyn Fn(&Expr) -> (u8, u32, u8),
) -> Option<(u8, u32, u8)> {
    match f {
        Func::Str(s) => Some(strings::result_type(s, args, arg_type)),
        Func::Math(m) => Some(math::result_type(m, args, arg_type)),
        Func::Json(j) => Some(json::result_type(j)),
        Func::Misc(m) => Some(misc::result_type(m)),
        Func::Spatial(g) => Some(spatial::result_type(g)),
        _ => None,
    }
}

/// A whole number from a DECIMAL: BIGINT (UNSIGNED above its range) when it fits, else a
/// DECIMAL without decimals, as MySQL answers FLOOR of a DECIMAL(65).
fn whole_value(n: base::value::I256) -> Value {
    match (i64::try_from(n), u64::try_from(n)) {
        (Ok(i), _) => Value::Int(i),
        (_, Ok(u)) => Value::UInt(u),
        _ => Value::Decimal(Decimal::new(n, 0)),
    }
}

/// Text of a value for string functions (NULL stays None).
fn text(v: &Value) -> Option<Vec<u8>> {
    value_text(v)
}

fn bytes_value(b: Vec<u8>) -> Value {
    Value::Bytes(b)
}

fn chars(b: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(b).chars().collect()
}

/// An integer argument as MySQL's val_int reads it: numbers rounded, text by its leading
/// integer (' 2.7' is 2, as my_strtoll10), clamped to BIGINT (NaN reads as 0).
fn int_arg(v: &Value) -> i64 {
    if let Value::Bytes(b) = v {
        return leading_integer(b);
    }
    match num(v) {
        Num::Int(i) => i.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
        other => dbl(other).round() as i64,
    }
}

/// The integer text starts with, after spaces and a sign; 0 when it has none, clamped to
/// BIGINT.
fn leading_integer(b: &[u8]) -> i64 {
    let text = b.trim_ascii_start();
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, text),
    };
    let mut n: i128 = 0;
    for d in digits.iter().take_while(|d| d.is_ascii_digit()) {
        // Past BIGINT's range the value only clamps, so stop growing it there.
        n = (n * 10 + i128::from(d - b'0')).min(i128::from(u64::MAX));
    }
    let n = if negative { -n } else { n };
    n.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// An argument that is a constant, as an integer (None for other expressions and NULL): what
/// result types depend on, such as the length of LPAD or the digits of TRUNCATE.
pub(crate) fn constant_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(Value::Null) => None,
        Expr::Const(v) => Some(int_arg(v)),
        _ => None,
    }
}

/// The part SUBSTRING, LEFT or RIGHT (`f`, arguments `v`) keeps of a string of `n` units
/// (characters, or bytes of a binary string), as a range of units.
fn cut_range(f: Func, v: &[Value], n: usize) -> (usize, usize) {
    let len = n as i64;
    let (start, count) = match f {
        Func::Left => (0, int_arg(&v[1])),
        Func::Right => {
            let k = int_arg(&v[1]).clamp(0, len);
            (len - k, k)
        }
        _ => {
            let pos = int_arg(&v[1]);
            let start = match pos {
                0 => return (0, 0),
                p if p > 0 => p - 1,
                p => len + p,
            };
            (start, if v.len() > 2 { int_arg(&v[2]) } else { len })
        }
    };
    if start < 0 || start >= len || count <= 0 {
        return (0, 0);
    }
    (
        start as usize,
        start.saturating_add(count).min(len) as usize,
    )
}

pub(crate) fn call(f: Func, args: &[Expr], env: &Env, c: base::types::Collation) -> Result<Value> {
    use Func::*;
    // Functions that do not evaluate every argument, and those evaluated elsewhere.
    match f {
        Temporal(t) => return crate::expr::temporal::call(t, args, env),
        Str(s) => return strings::call(s, args, env, c),
        Math(m) => return math::call(m, args, env),
        Json(j) => return json::call(j, args, env, c),
        Misc(m) => return misc::call(m, args, env),
        Spatial(g) => return spatial::call(g, args, env),
        IfNull => {
            let a = args[0].eval(env)?;
            return if a.is_null() {
                args[1].eval(env)
            } else {
                Ok(a)
            };
        }
        Coalesce => {
            for a in args {
                let v = a.eval(env)?;
                if !v.is_null() {
                    return Ok(v);
                }
            }
            return Ok(Value::Null);
        }
        If => {
            return if truthy(&args[0].eval(env)?) {
                args[1].eval(env)
            } else {
                args[2].eval(env)
            }
        }
        _ => {}
    }
    let values: Vec<Value> = args.iter().map(|a| a.eval(env)).collect::<Result<_>>()?;
    let v = &values;
    if f != ConcatWs && f != Greatest && f != Least && f != NullIf && v.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    Ok(match f {
        Concat => bytes_value(v.iter().flat_map(|x| text(x).unwrap_or_default()).collect()),
        ConcatWs => {
            let Some(sep) = text(&v[0]) else {
                return Ok(Value::Null);
            };
            let parts: Vec<Vec<u8>> = v[1..].iter().filter_map(text).collect();
            bytes_value(parts.join(&sep[..]))
        }
        Length => Value::Int(text(&v[0]).map_or(0, |t| t.len()) as i64),
        // A binary string's characters are its bytes, whatever they are.
        CharLength if c == base::types::Collation::Binary => {
            Value::Int(text(&v[0]).map_or(0, |t| t.len()) as i64)
        }
        CharLength => Value::Int(chars(&text(&v[0]).unwrap_or_default()).len() as i64),
        Substring | Left | Right if c == base::types::Collation::Binary => {
            let t = text(&v[0]).unwrap_or_default();
            let (from, to) = cut_range(f, v, t.len());
            bytes_value(t[from..to].to_vec())
        }
        // A binary string has no letters: its bytes as they are, reversed by byte.
        Upper | Lower if c == base::types::Collation::Binary => {
            bytes_value(text(&v[0]).unwrap_or_default())
        }
        Reverse if c == base::types::Collation::Binary => {
            let mut t = text(&v[0]).unwrap_or_default();
            t.reverse();
            bytes_value(t)
        }
        Upper | Lower if c.is_latin1_text() => bytes_value(
            String::from_utf8_lossy(&text(&v[0]).unwrap_or_default())
                .chars()
                .map(|ch| latin1_case(ch, f == Upper))
                .collect::<String>()
                .into_bytes(),
        ),
        Upper | Lower => bytes_value(
            String::from_utf8_lossy(&text(&v[0]).unwrap_or_default())
                .chars()
                .map(|ch| unicode_case(ch, f == Upper))
                .collect::<String>()
                .into_bytes(),
        ),
        Substring | Left | Right => {
            let s = chars(&text(&v[0]).unwrap_or_default());
            let (from, to) = cut_range(f, v, s.len());
            bytes_value(s[from..to].iter().collect::<String>().into_bytes())
        }
        Trim | Ltrim | Rtrim => {
            // TRIM([BOTH|LEADING|TRAILING] [remove FROM] s): whole repeats of `remove` (a space
            // unless given) come off, compared byte for byte as in MariaDB.
            let t = text(&v[0]).unwrap_or_default();
            let remove = v.get(1).and_then(text).unwrap_or_else(|| b" ".to_vec());
            let (mut a, mut b) = (0, t.len());
            if !remove.is_empty() {
                if f != Rtrim {
                    while t[a..b].starts_with(&remove) {
                        a += remove.len();
                    }
                }
                if f != Ltrim {
                    while t[a..b].ends_with(&remove) {
                        b -= remove.len();
                    }
                }
            }
            bytes_value(t[a..b].to_vec())
        }
        Replace => {
            let s = String::from_utf8_lossy(&text(&v[0]).unwrap_or_default()).into_owned();
            let from = String::from_utf8_lossy(&text(&v[1]).unwrap_or_default()).into_owned();
            let to = String::from_utf8_lossy(&text(&v[2]).unwrap_or_default()).into_owned();
            if from.is_empty() {
                bytes_value(s.into_bytes())
            } else {
                bytes_value(s.replace(&from, &to).into_bytes())
            }
        }
        Repeat => {
            let t = text(&v[0]).unwrap_or_default();
            let n = int_arg(&v[1]).max(0) as usize;
            if t.len().saturating_mul(n) > crate::foundation::limits::STRING_RESULT_BYTES_MAX {
                return Ok(Value::Null);
            }
            bytes_value(t.repeat(n))
        }
        Reverse => bytes_value(
            chars(&text(&v[0]).unwrap_or_default())
                .into_iter()
                .rev()
                .collect::<String>()
                .into_bytes(),
        ),
        Abs => match num(&v[0]) {
            Num::Int(i) if matches!(v[0], Value::Int(_)) && i == i64::MIN as i128 => {
                return Err(out_of_range(&format!("abs({i})")))
            }
            Num::Int(i) => int_value(i.abs(), || format!("abs({i})"))?,
            Num::Dec(d) => Value::Decimal(Decimal::new(d.mantissa().abs(), d.scale)),
            Num::Dbl(x) => Value::Double(x.abs()),
        },
        Floor | Ceiling => match num(&v[0]) {
            Num::Int(i) => int_value(i, String::new)?,
            Num::Dec(d) => whole_value(d.floor(f == Ceiling)),
            Num::Dbl(x) => Value::Double(if f == Floor { x.floor() } else { x.ceil() }),
        },
        Round => {
            let digits = if v.len() > 1 { int_arg(&v[1]) } else { 0 };
            match num(&v[0]) {
                Num::Int(i) if digits >= 0 => int_value(i, String::new)?,
                Num::Int(i) => {
                    // Round half away from zero to 10^-digits.
                    let p = 10i128
                        .checked_pow(digits.saturating_neg().min(38) as u32)
                        .unwrap_or(i128::MAX);
                    let q = i / p;
                    let r = i % p;
                    let q = if r.abs() * 2 >= p { q + i.signum() } else { q };
                    int_value(q.saturating_mul(p), || format!("round({i},{digits})"))?
                }
                Num::Dbl(x) => {
                    // MySQL rounds doubles half to even (rint).
                    let p = 10f64.powi(digits.clamp(-30, 30) as i32);
                    Value::Double((x * p).round_ties_even() / p)
                }
                Num::Dec(d) if digits < 0 => {
                    // Round half away from zero to 10^-digits: the number over 10^-digits
                    // rounded to a whole (Decimal::rescale's rounding), times 10^-digits; past
                    // every digit, zero.
                    let shift = digits.saturating_neg();
                    let unit = u32::try_from(shift).ok().and_then(base::value::pow10);
                    let over = u8::try_from(i64::from(d.scale) + shift).ok();
                    match (unit, over) {
                        (Some(unit), Some(over)) => {
                            let q = Decimal::new(d.mantissa(), over).rescale(0);
                            match q.and_then(|q| q.mantissa().checked_mul(unit)) {
                                Some(n) => whole_value(n),
                                None => return Err(out_of_range(&d.to_string())),
                            }
                        }
                        _ => Value::Int(0),
                    }
                }
                n => {
                    let d = dec(n);
                    let scale = digits.clamp(0, DECIMAL_SCALE_MAX as i64) as u8;
                    match d.rescale(scale) {
                        Some(r) => Value::Decimal(r),
                        None => Value::Decimal(d),
                    }
                }
            }
        }
        Sign => Value::Int(match dbl(num(&v[0])) {
            x if x > 0.0 => 1,
            x if x < 0.0 => -1,
            _ => 0,
        }),
        Mod => {
            if crate::expr::divides_by_zero(BinOp::Mod, &v[0], &v[1]) {
                env.ctx.division_by_zero()?;
            }
            arithmetic(BinOp::Mod, &v[0], &v[1])?
        }
        NullIf => {
            if compare_in(&v[0], &v[1], c) == Some(Ordering::Equal) {
                Value::Null
            } else {
                v[0].clone()
            }
        }
        Greatest | Least => {
            if v.iter().any(Value::is_null) {
                return Ok(Value::Null);
            }
            let mut best = v[0].clone();
            for x in &v[1..] {
                let o = compare_in(x, &best, c);
                if (f == Greatest && o == Some(Ordering::Greater))
                    || (f == Least && o == Some(Ordering::Less))
                {
                    best = x.clone();
                }
            }
            best
        }
        IfNull | Coalesce | If | Str(_) | Math(_) | Temporal(_) | Json(_) | Misc(_)
        | Spatial(_) => {
            unreachable!("handled above")
        }
    })
}

/// One character's case as MariaDB maps it: the simple one-to-one mapping, so ß, ŉ and ﬁ keep
/// their case (their upper case is two characters) and Σ lowers to σ wherever it stands; İ
/// lowers to i.
pub(crate) fn unicode_case(ch: char, upper: bool) -> char {
    if upper {
        let mut u = ch.to_uppercase();
        match (u.next(), u.next()) {
            (Some(one), None) => one,
            _ => ch,
        }
    } else {
        ch.to_lowercase().next().unwrap_or(ch)
    }
}

/// Character `c` in upper (or lower) case by latin1's case table: ASCII letters and the
/// accented letters U+00C0..=U+00DE and U+00E0..=U+00FE pair up (not × and ÷); ß, ÿ and the
/// letters of 0x80..=0x9F (Š, Œ, Ž, Ÿ) keep their case.
fn latin1_case(c: char, upper: bool) -> char {
    let code = c as u32;
    let shifted = match (upper, code) {
        (_, 0..=0x7F) => {
            return if upper {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        }
        (true, 0xE0..=0xFE) if code != 0xF7 => code - 0x20,
        (false, 0xC0..=0xDE) if code != 0xD7 => code + 0x20,
        _ => code,
    };
    char::from_u32(shifted).unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::NoSession;

    /// Every string and numeric function over every combination of odd arguments: an error
    /// is an answer, a panic is a defect. Result types are asked for too.
    #[test]
    fn odd_arguments_never_panic() {
        let names = [
            "lpad",
            "rpad",
            "instr",
            "locate",
            "hex",
            "unhex",
            "ascii",
            "ord",
            "space",
            "field",
            "elt",
            "find_in_set",
            "substring_index",
            "strcmp",
            "insert",
            "bit_length",
            "quote",
            "format",
            "md5",
            "sha1",
            "sha2",
            "crc32",
            "to_base64",
            "from_base64",
            "pow",
            "sqrt",
            "exp",
            "ln",
            "log",
            "log2",
            "log10",
            "pi",
            "truncate",
            "degrees",
            "radians",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "atan2",
            "cot",
            "conv",
            "bin",
            "oct",
        ];
        let odd = [
            Value::Null,
            Value::Int(0),
            Value::Int(-1),
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::UInt(u64::MAX),
            Value::Double(f64::NAN),
            Value::Double(f64::INFINITY),
            Value::Double(-1e308),
            Value::Decimal(Decimal::new(-(10i128.pow(37)), 30)),
            Value::Bytes(Vec::new()),
            Value::Bytes("é,a".as_bytes().to_vec()),
            Value::Bytes(vec![0xFF, 0xC3, b',']),
            Value::Bytes(b"-99999999999999999999999".to_vec()),
        ];
        let env = Env {
            row: &[],
            params: &[],
            aggs: &[],
            ctx: &NoSession,
        };
        for name in names {
            let (f, min, max) = Func::from_name(name).expect("a known function");
            for arity in min..=max.min(4) {
                let combinations = odd.len().pow(arity as u32);
                for mut n in 0..combinations {
                    let args: Vec<Expr> = (0..arity)
                        .map(|_| {
                            let v = odd[n % odd.len()].clone();
                            n /= odd.len();
                            Expr::Const(v)
                        })
                        .collect();
                    let _ = call(f, &args, &env, base::types::Collation::Utf8mb4Bin);
                    let _ = result_type(f, &args, &|_| (0xFB, u32::MAX, 39));
                }
            }
        }
    }

    #[test]
    fn integer_arguments_read_text_by_its_leading_integer() {
        let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        assert_eq!(int_arg(&text("2.7")), 2);
        assert_eq!(int_arg(&text(" -3x")), -3);
        assert_eq!(int_arg(&text("1e3")), 1);
        assert_eq!(int_arg(&text("")), 0);
        assert_eq!(int_arg(&text("99999999999999999999999")), i64::MAX);
        assert_eq!(int_arg(&text("-99999999999999999999999")), i64::MIN);
        assert_eq!(int_arg(&Value::Double(2.5)), 3);
        assert_eq!(int_arg(&Value::Double(f64::NAN)), 0);
        assert_eq!(int_arg(&Value::UInt(u64::MAX)), i64::MAX);
    }
}
