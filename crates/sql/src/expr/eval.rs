//! Evaluating a compiled expression (`Expr::eval`) over a row, the statement's parameters and
//! its aggregates' values, through the `Context` it is given; and walking an expression tree.

use super::*;
use crate::expr::cast::CastTo;
use crate::expr::funcs::json::{self, JsonFn};
use crate::expr::funcs::Func;
use crate::foundation::error::SqlError;
use base::text::value_text;
use base::types::Collation;
use base::Value;
use std::cmp::Ordering;

impl Expr {
    pub fn eval(&self, env: &Env) -> Result<Value> {
        Ok(match self {
            Expr::Const(v) => v.clone(),
            Expr::Column(p) => env.row.get(*p).cloned().unwrap_or(Value::Null),
            Expr::Cast(e, to) => {
                let v = e.eval(env)?;
                match to {
                    CastTo::Signed | CastTo::Unsigned => check_number(env, &v, "INTEGER")?,
                    CastTo::Decimal(..) => check_number(env, &v, "DECIMAL")?,
                    CastTo::Double => check_number(env, &v, "DOUBLE")?,
                    CastTo::Json => return crate::expr::funcs::json::cast(&v),
                    _ => {}
                }
                let v = match (&v, to) {
                    // A TIME as a date: on the statement's day, as MariaDB reads one.
                    (Value::Time(t), CastTo::Date | CastTo::DateTime(_)) => {
                        match crate::expr::temporal::time_on_today(env, *t) {
                            Some(dt) if matches!(to, CastTo::Date) => Value::Date(dt.date),
                            Some(dt) => Value::DateTime(dt),
                            None => Value::Null,
                        }
                    }
                    _ => v,
                };
                let text = matches!(to, CastTo::Date | CastTo::DateTime(_) | CastTo::Time(_))
                    .then(|| base::text::value_text(&v))
                    .flatten();
                let out = to.convert(v);
                if let (Some(text), true) = (text, out.is_null()) {
                    // A date, datetime or time CAST cannot read: MariaDB's warning 1292.
                    let kind = match to {
                        CastTo::Time(_) => "time",
                        _ => "datetime",
                    };
                    env.ctx.warn(
                        1292,
                        format!(
                            "Incorrect {kind} value: '{}'",
                            String::from_utf8_lossy(&text)
                        ),
                    );
                }
                out
            }
            Expr::Outer(_) => {
                return Err(SqlError::new(
                    1105,
                    "HY000",
                    "internal: a join key evaluated outside its join",
                ))
            }
            Expr::Param(i) => env.params.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Correlated { n, args, .. } => {
                let values = args
                    .iter()
                    .map(|a| a.eval(env))
                    .collect::<Result<Vec<_>>>()?;
                return env
                    .ctx
                    .correlated(*n, env.params, &values)
                    .unwrap_or_else(|| {
                        Err(SqlError::unsupported("a correlated subquery in this place"))
                    });
            }
            Expr::Agg(i) => env.aggs.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Var(name) => env.ctx.variable(name),
            Expr::Session(f) => env.ctx.session(*f),
            Expr::Not(e) => match truth_value(&e.eval(env)?) {
                None => Value::Null,
                Some(b) => bool_value(!b),
            },
            Expr::Neg(e) => negate(e.eval(env)?)?,
            Expr::Members {
                value,
                members,
                set,
            } => member_names(&value.eval(env)?, members, *set),
            Expr::IsNull(e, negated) => bool_value(e.eval(env)?.is_null() != *negated),
            Expr::Collate(e, _) => e.eval(env)?,
            Expr::Collated(c, e) => e.eval_under(env, *c)?,
            _ => self.eval_under(env, Collation::Utf8mb4GeneralCi)?,
        })
    }

    /// Evaluates a node that compares strings, under collation `c`; any other node as `eval`.
    fn eval_under(&self, env: &Env, c: Collation) -> Result<Value> {
        Ok(match self {
            Expr::Binary(op, l, r) => self.binary(*op, l, r, env, c)?,
            Expr::Between(e, lo, hi, negated) => {
                let v = e.eval(env)?;
                let lo = lo.eval(env)?;
                let hi = hi.eval(env)?;
                let ge = compare_in(&v, &lo, c).map(|o| o != Ordering::Less);
                let le = compare_in(&v, &hi, c).map(|o| o != Ordering::Greater);
                let inside = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                match inside {
                    None => Value::Null,
                    Some(b) => bool_value(b != *negated),
                }
            }
            Expr::IntIn(e, list, numbers, negated) => {
                let v = e.eval(env)?;
                let n = match v {
                    Value::Null => return Ok(Value::Null),
                    Value::Int(i) => i128::from(i),
                    Value::UInt(u) => i128::from(u),
                    _ => {
                        return Expr::In(Box::new(Expr::Const(v)), list.clone(), *negated).eval(env)
                    }
                };
                bool_value(numbers.binary_search(&n).is_ok() != *negated)
            }
            Expr::In(e, list, negated) => {
                let v = e.eval(env)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                let mut unknown = false;
                let mut found = false;
                // A JSON_EXTRACT's value is read as text for a string it is compared with (once).
                let json = matches!(&**e, Expr::Call(Func::Json(JsonFn::ExtractScalar), _));
                let mut text = None;
                for x in list {
                    let x = x.eval(env)?;
                    let v = match &x {
                        Value::Bytes(_) if json => match &mut text {
                            Some(t) => &*t,
                            empty => empty.insert(json::json_as_text(e, v.clone(), &x, env)?),
                        },
                        _ => &v,
                    };
                    match compare_in(v, &x, c) {
                        Some(Ordering::Equal) => {
                            found = true;
                            break;
                        }
                        None => unknown = true,
                        _ => {}
                    }
                }
                if found {
                    bool_value(!*negated)
                } else if unknown {
                    Value::Null
                } else {
                    bool_value(*negated)
                }
            }
            Expr::Like(e, p, negated) => {
                let (Some(v), Some(p)) = (value_text(&e.eval(env)?), value_text(&p.eval(env)?))
                else {
                    return Ok(Value::Null);
                };
                bool_value(base::collation::like(&v, &p, c) != *negated)
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => self.case(operand.as_deref(), whens, otherwise.as_deref(), env, c)?,
            Expr::Call(f, args) => crate::expr::funcs::call(*f, args, env, c)?,
            Expr::Const(_)
            | Expr::Column(_)
            | Expr::Outer(_)
            | Expr::Param(_)
            | Expr::Agg(_)
            | Expr::Var(_)
            | Expr::Session(_)
            | Expr::Not(_)
            | Expr::Neg(_)
            | Expr::IsNull(..)
            | Expr::Cast(..)
            | Expr::Collate(..)
            | Expr::Collated(..)
            | Expr::Members { .. }
            | Expr::Correlated { .. } => self.eval(env)?,
        })
    }

    /// CASE: the first WHEN that holds (or equals the operand) gives its THEN, else ELSE.
    fn case(
        &self,
        operand: Option<&Expr>,
        whens: &[(Expr, Expr)],
        otherwise: Option<&Expr>,
        env: &Env,
        c: Collation,
    ) -> Result<Value> {
        let subject = match operand {
            Some(o) => Some(o.eval(env)?),
            None => None,
        };
        // A JSON_EXTRACT's text is compared as it is with a string WHEN, as a number (true is
        // 1) with a number, as MariaDB's CASE does: read so once more when needed.
        let json = match operand {
            Some(Expr::Call(Func::Json(JsonFn::Extract), args)) => Some(args),
            _ => None,
        };
        let mut scalar = None;
        for (when, then) in whens {
            let w = when.eval(env)?;
            let hit = match (&subject, json) {
                (Some(s), Some(args)) if is_number(&w) => {
                    let s = match &mut scalar {
                        Some(s) => &*s,
                        empty => empty.insert(json::call(JsonFn::ExtractScalar, args, env, c)?),
                    };
                    compare_in(s, &w, c) == Some(Ordering::Equal)
                }
                (Some(s), _) => compare_in(s, &w, c) == Some(Ordering::Equal),
                (None, _) => truthy(&w),
            };
            if hit {
                return then.eval(env);
            }
        }
        match otherwise {
            Some(e) => e.eval(env),
            None => Ok(Value::Null),
        }
    }

    fn binary(&self, op: BinOp, l: &Expr, r: &Expr, env: &Env, c: Collation) -> Result<Value> {
        match op {
            BinOp::And => {
                let a = truth_value(&l.eval(env)?);
                if a == Some(false) {
                    return Ok(bool_value(false));
                }
                let b = truth_value(&r.eval(env)?);
                Ok(match (a, b) {
                    (_, Some(false)) => bool_value(false),
                    (Some(true), Some(true)) => bool_value(true),
                    _ => Value::Null,
                })
            }
            BinOp::Or => {
                let a = truth_value(&l.eval(env)?);
                if a == Some(true) {
                    return Ok(bool_value(true));
                }
                let b = truth_value(&r.eval(env)?);
                Ok(match (a, b) {
                    (_, Some(true)) => bool_value(true),
                    (Some(false), Some(false)) => bool_value(false),
                    _ => Value::Null,
                })
            }
            BinOp::Xor => match (truth_value(&l.eval(env)?), truth_value(&r.eval(env)?)) {
                (Some(a), Some(b)) => Ok(bool_value(a != b)),
                _ => Ok(Value::Null),
            },
            BinOp::NullSafeEq => {
                let (a, b) = numbered_pair(l, r, env)?;
                Ok(bool_value(match (a.is_null(), b.is_null()) {
                    (true, true) => true,
                    (false, false) => compare_in(&a, &b, c) == Some(Ordering::Equal),
                    _ => false,
                }))
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (a, b) = numbered_pair(l, r, env)?;
                Ok(match compare_in(&a, &b, c) {
                    None => Value::Null,
                    Some(o) => bool_value(match op {
                        BinOp::Eq => o == Ordering::Equal,
                        BinOp::Ne => o != Ordering::Equal,
                        BinOp::Lt => o == Ordering::Less,
                        BinOp::Le => o != Ordering::Greater,
                        BinOp::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    }),
                })
            }
            _ => {
                let (a, b) = (l.eval(env)?, r.eval(env)?);
                check_number(env, &a, "DOUBLE")?;
                check_number(env, &b, "DOUBLE")?;
                if divides_by_zero(op, &a, &b) {
                    env.ctx.division_by_zero()?;
                }
                arithmetic(op, &a, &b)
            }
        }
    }

    /// Calls `f` on every column position the expression reads.
    pub fn columns(&self, f: &mut impl FnMut(usize)) {
        self.walk(&mut |e| {
            if let Expr::Column(p) = e {
                f(*p)
            }
        });
    }

    /// The expressions directly under this one.
    /// The number an ENUM or SET column stores, where this is one read as names (what
    /// arithmetic and ORDER BY read); any other expression as it is.
    pub(crate) fn numbered(self) -> Expr {
        match self {
            Expr::Members { value, .. } => *value,
            other => other,
        }
    }

    /// The column a plain column reference reads (an ENUM's or SET's read as names too).
    pub(crate) fn column_under_names(&self) -> Option<usize> {
        match self {
            Expr::Column(p) => Some(*p),
            Expr::Members { value, .. } => match **value {
                Expr::Column(p) => Some(p),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether a correlated subquery stands anywhere in it.
    pub(crate) fn holds_correlated(&self) -> bool {
        matches!(self, Expr::Correlated { .. })
            || self.children().into_iter().any(Expr::holds_correlated)
    }

    pub(crate) fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Not(e)
            | Expr::Neg(e)
            | Expr::IsNull(e, _)
            | Expr::Cast(e, _)
            | Expr::Collate(e, _)
            | Expr::Collated(_, e)
            | Expr::Members { value: e, .. } => vec![e],
            Expr::Binary(_, l, r) | Expr::Like(l, r, _) => vec![l, r],
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::In(e, list, _) | Expr::IntIn(e, list, ..) => {
                std::iter::once(&**e).chain(list).collect()
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => operand
                .iter()
                .map(|o| &**o)
                .chain(whens.iter().flat_map(|(w, t)| [w, t]))
                .chain(otherwise.iter().map(|o| &**o))
                .collect(),
            Expr::Call(_, args) | Expr::Correlated { args, .. } => args.iter().collect(),
            _ => Vec::new(),
        }
    }

    /// [`Expr::children`], to change them.
    pub(crate) fn children_mut(&mut self) -> Vec<&mut Expr> {
        match self {
            Expr::Not(e)
            | Expr::Neg(e)
            | Expr::IsNull(e, _)
            | Expr::Cast(e, _)
            | Expr::Collate(e, _)
            | Expr::Collated(_, e)
            | Expr::Members { value: e, .. } => vec![e],
            Expr::Binary(_, l, r) | Expr::Like(l, r, _) => vec![l, r],
            Expr::Between(a, b, c, _) => vec![a, b, c],
            Expr::In(e, list, _) | Expr::IntIn(e, list, ..) => {
                std::iter::once(&mut **e).chain(list).collect()
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => operand
                .iter_mut()
                .map(|o| &mut **o)
                .chain(whens.iter_mut().flat_map(|(w, t)| [w, t]))
                .chain(otherwise.iter_mut().map(|o| &mut **o))
                .collect(),
            Expr::Call(_, args) | Expr::Correlated { args, .. } => args.iter_mut().collect(),
            _ => Vec::new(),
        }
    }

    /// Visits this node and every node under it (planning only: it allocates).
    pub fn walk(&self, f: &mut impl FnMut(&Expr)) {
        f(self);
        for c in self.children() {
            c.walk(f);
        }
    }

    /// Replaces every node `f` gives a replacement for (not looking under it), top down.
    pub fn rewrite(&mut self, f: &impl Fn(&Expr) -> Option<Expr>) {
        if let Some(new) = f(self) {
            *self = new;
            return;
        }
        for c in self.children_mut() {
            c.rewrite(f);
        }
    }

    /// Rewrites column positions through `map` (table position → fetched-row position).
    pub fn remap(&mut self, map: &impl Fn(usize) -> usize) {
        if let Expr::Column(p) = self {
            *p = map(*p);
        }
        for c in self.children_mut() {
            c.remap(map);
        }
    }

    /// True when the value depends on no row (constants, parameters, session values).
    pub fn is_row_free(&self) -> bool {
        let mut free = true;
        self.walk(&mut |e| {
            // RAND and UUID give another value at each call, as if they read the row.
            if matches!(e, Expr::Column(_) | Expr::Agg(_) | Expr::Correlated { .. })
                || matches!(e, Expr::Call(f, _) if f.is_volatile())
            {
                free = false;
            }
        });
        free
    }

    /// True when a correlated subquery is part of the expression.
    pub fn has_correlated(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Correlated { .. }));
        found
    }
}
