//! Window functions as compiled: a call with OVER becomes an `Aggregate` with an `Over` (its
//! PARTITION BY, ORDER BY and frame), computed after grouping by `exec/window.rs`; named
//! windows (`WINDOW w AS (...)`, `OVER (w ...)`) and MariaDB's rules for where a window
//! function may stand and what its window must have.

use base::types::Collation;
use sqlparser::ast::{self, Expr as Ast};

use crate::expr::aggregate::{AggKind, Aggregate};
use crate::expr::{Compiler, Expr};
use crate::foundation::error::{Result, SqlError};
use WindowFn as W;

/// A window function's window: rows of the same partition, in an order, within a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Over {
    /// PARTITION BY's keys and the collation each compares strings in.
    pub partition: Vec<(Expr, Collation)>,
    /// ORDER BY's keys: each, whether descending, its collation.
    pub order: Vec<(Expr, bool, Collation)>,
    /// None: the default frame (with an ORDER BY, from the partition's first row to the
    /// current row's last peer; without, the whole partition).
    pub frame: Option<Frame>,
}

/// ROWS or RANGE BETWEEN start AND end.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// ROWS counts rows; RANGE measures by the ORDER BY key's value.
    pub rows: bool,
    pub start: Bound,
    pub end: Bound,
}

/// One end of a frame; an offset is a constant or a parameter, read when the statement runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    UnboundedPreceding,
    Preceding(Expr),
    CurrentRow,
    Following(Expr),
    UnboundedFollowing,
}

/// The window functions that are not aggregates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowFn {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    /// NTILE(n): the bucket of n the row falls in.
    Ntile,
    /// LAG(e[, offset]): `more` holds the offset.
    Lag,
    Lead,
    FirstValue,
    LastValue,
    /// NTH_VALUE(e, n): `more` holds n.
    NthValue,
}

impl Over {
    /// Every expression the window evaluates over a row or once.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        self.partition
            .iter()
            .map(|(e, _)| e)
            .chain(self.order.iter().map(|(e, ..)| e))
            .chain(
                self.frame
                    .iter()
                    .flat_map(|f| [&f.start, &f.end])
                    .filter_map(Bound::offset),
            )
    }

    pub fn exprs_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        self.partition
            .iter_mut()
            .map(|(e, _)| e)
            .chain(self.order.iter_mut().map(|(e, ..)| e))
            .chain(
                self.frame
                    .iter_mut()
                    .flat_map(|f| [&mut f.start, &mut f.end])
                    .filter_map(Bound::offset_mut),
            )
    }
}

impl Bound {
    fn offset(&self) -> Option<&Expr> {
        match self {
            Bound::Preceding(e) | Bound::Following(e) => Some(e),
            _ => None,
        }
    }

    fn offset_mut(&mut self) -> Option<&mut Expr> {
        match self {
            Bound::Preceding(e) | Bound::Following(e) => Some(e),
            _ => None,
        }
    }
}

/// ER_WRONG_PLACEMENT_OF_WINDOW_FUNCTION.
pub(crate) fn misplaced() -> SqlError {
    SqlError::new(
        4015,
        "HY000",
        "Window function is allowed only in SELECT list and ORDER BY clause",
    )
}

/// MariaDB's 4074: a window function among an aggregate's arguments (`SUM(RANK() OVER w)`).
pub(crate) fn in_group_function() -> SqlError {
    SqlError::new(
        4074,
        "HY000",
        "Window functions can not be used as arguments to group functions.",
    )
}

/// The window functions that rank or reach other rows: each needs an ORDER BY and takes no
/// frame, as MariaDB has it (ROW_NUMBER takes no frame either).
fn ranking(w: WindowFn) -> bool {
    matches!(
        w,
        W::Rank | W::DenseRank | W::PercentRank | W::CumeDist | W::Ntile | W::Lag | W::Lead
    )
}

/// The window functions that are not aggregates, by name, and how many arguments each takes.
fn window_only(name: &str) -> Option<(WindowFn, std::ops::RangeInclusive<usize>)> {
    Some(match name {
        "row_number" => (W::RowNumber, 0..=0),
        "rank" => (W::Rank, 0..=0),
        "dense_rank" => (W::DenseRank, 0..=0),
        "percent_rank" => (W::PercentRank, 0..=0),
        "cume_dist" => (W::CumeDist, 0..=0),
        "ntile" => (W::Ntile, 1..=1),
        // MariaDB's grammar has no default value for them.
        "lag" => (W::Lag, 1..=2),
        "lead" => (W::Lead, 1..=2),
        "first_value" => (W::FirstValue, 1..=1),
        "last_value" => (W::LastValue, 1..=1),
        "nth_value" => (W::NthValue, 2..=2),
        _ => return None,
    })
}

/// The named windows of a SELECT's WINDOW clause, checked: no name twice.
pub(crate) fn named_windows(select: &ast::Select) -> Result<Vec<(String, ast::NamedWindowExpr)>> {
    let mut named: Vec<(String, ast::NamedWindowExpr)> = Vec::new();
    for ast::NamedWindowDefinition(name, expr) in &select.named_window {
        if named
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(&name.value))
        {
            return Err(SqlError::new(
                4010,
                "HY000",
                format!(
                    "Multiple window specifications with the same name '{}'",
                    name.value
                ),
            ));
        }
        named.push((name.value.clone(), expr.clone()));
    }
    Ok(named)
}

fn undefined(name: &str) -> SqlError {
    SqlError::new(
        4009,
        "HY000",
        format!("Window specification with name '{name}' is not defined"),
    )
}

/// The window `over` names or writes, with what it borrows from a named window filled in.
fn resolve(
    over: &ast::WindowType,
    named: &[(String, ast::NamedWindowExpr)],
) -> Result<ast::WindowSpec> {
    match over {
        // `OVER w`: the named window as it is.
        ast::WindowType::NamedWindow(name) => named_spec(name, named),
        ast::WindowType::WindowSpec(spec) => written(spec, named),
    }
}

/// `spec` as written, or over the named window it refers to (among `named`).
fn written(
    spec: &ast::WindowSpec,
    named: &[(String, ast::NamedWindowExpr)],
) -> Result<ast::WindowSpec> {
    match &spec.window_name {
        None => Ok(spec.clone()),
        Some(base) => merge(base, named_spec(base, named)?, spec),
    }
}

/// The named window `name` among `named`; one written over another sees only those defined
/// before it (a cycle is then a window not defined, as MariaDB finds it).
fn named_spec(
    name: &ast::Ident,
    named: &[(String, ast::NamedWindowExpr)],
) -> Result<ast::WindowSpec> {
    let Some(at) = named
        .iter()
        .position(|(n, _)| n.eq_ignore_ascii_case(&name.value))
    else {
        return Err(undefined(&name.value));
    };
    let earlier = &named[..at];
    match &named[at].1 {
        ast::NamedWindowExpr::NamedWindow(other) => named_spec(other, earlier),
        ast::NamedWindowExpr::WindowSpec(spec) => written(spec, earlier),
    }
}

/// `spec` written over the named window `name` (`base`), with MariaDB's rules: it adds no
/// partition (4011), no order to one that has an order (4012), and the window it refers to
/// has no frame (4013).
fn merge(
    name: &ast::Ident,
    mut base: ast::WindowSpec,
    spec: &ast::WindowSpec,
) -> Result<ast::WindowSpec> {
    let refused = |code: u16, what: &str| {
        Err(SqlError::new(
            code,
            "HY000",
            what.replace("{}", &name.value),
        ))
    };
    if !spec.partition_by.is_empty() {
        return refused(
            4011,
            "Window specification referencing another one '{}' cannot contain partition list",
        );
    }
    if !spec.order_by.is_empty() && !base.order_by.is_empty() {
        return refused(
            4012,
            "Referenced window specification '{}' already contains order list",
        );
    }
    if base.window_frame.is_some() {
        return refused(
            4013,
            "Referenced window specification '{}' cannot contain window frame",
        );
    }
    if !spec.order_by.is_empty() {
        base.order_by = spec.order_by.clone();
    }
    base.window_frame = spec.window_frame.clone();
    base.window_name = None;
    Ok(base)
}

impl Compiler<'_> {
    /// A function call with OVER, where window functions are allowed (`self.windows`): the
    /// window aggregate it compiles to, kept in `self.aggregates`.
    pub(crate) fn window_call(
        &mut self,
        f: &ast::Function,
        name: &str,
        args: &[&ast::FunctionArg],
        distinct: bool,
        clauses: &[ast::FunctionArgumentClause],
    ) -> Result<Expr> {
        let Some(over) = &f.over else {
            return Err(SqlError::unsupported(format!("the function {f}")));
        };
        if self.group_arguments {
            return Err(in_group_function());
        }
        let Some(named) = self.windows.take() else {
            return Err(misplaced());
        };
        let compiled = self.window_aggregate(f, name, args, distinct, clauses, over, &named);
        self.windows = Some(named);
        let aggregate = compiled?;
        let Some(list) = self.aggregates.as_mut() else {
            return Err(misplaced());
        };
        list.push(aggregate);
        Ok(Expr::Agg(list.len() - 1))
    }

    #[allow(clippy::too_many_arguments)]
    fn window_aggregate(
        &mut self,
        f: &ast::Function,
        name: &str,
        args: &[&ast::FunctionArg],
        distinct: bool,
        clauses: &[ast::FunctionArgumentClause],
        over: &ast::WindowType,
        named: &[(String, ast::NamedWindowExpr)],
    ) -> Result<Aggregate> {
        let spec = resolve(over, named)?;
        let mut aggregate = match window_only(name) {
            Some((kind, count)) => {
                if distinct || !clauses.is_empty() {
                    return Err(SqlError::parse(format!("near '{f}'")));
                }
                if !count.contains(&args.len()) {
                    // MariaDB's grammar has each one's arguments.
                    return Err(SqlError::parse(format!("near '{f}'")));
                }
                let mut exprs = Vec::with_capacity(args.len());
                for a in args {
                    match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                            exprs.push(self.compile(e)?)
                        }
                        _ => return Err(SqlError::parse(format!("near '{f}'"))),
                    }
                }
                let mut exprs = exprs.into_iter();
                let arg = exprs.next();
                let collation = match &arg {
                    Some(e) => self.sort_collation(e)?,
                    None => Collation::Utf8mb4GeneralCi,
                };
                let mut aggregate = Aggregate::new(AggKind::Window(kind), arg, false, collation);
                aggregate.more = exprs.collect();
                aggregate
            }
            None => {
                let kind = match name {
                    "count" => AggKind::Count,
                    "sum" => AggKind::Sum,
                    "avg" => AggKind::Avg,
                    "min" => AggKind::Min,
                    "max" => AggKind::Max,
                    "group_concat" => {
                        return Err(SqlError::unsupported(
                            "GROUP_CONCAT() aggregate as window function",
                        ))
                    }
                    "json_arrayagg" | "json_objectagg" => {
                        return Err(SqlError::unsupported(format!(
                            "{}() aggregate as window function",
                            name.to_ascii_uppercase()
                        )))
                    }
                    _ => return Err(SqlError::parse(format!("near '{f}'"))),
                };
                if distinct {
                    return Err(SqlError::unsupported(format!(
                        "{}(DISTINCT) aggregate as window function",
                        name.to_ascii_uppercase()
                    )));
                }
                self.aggregate(f, kind, args, false, clauses)?
            }
        };
        if let AggKind::Window(w) = aggregate.kind {
            if ranking(w) && spec.order_by.is_empty() {
                return Err(SqlError::new(
                    4018,
                    "HY000",
                    format!("No order list in window specification for '{name}'"),
                ));
            }
            if (ranking(w) || w == W::RowNumber) && spec.window_frame.is_some() {
                return Err(SqlError::new(
                    4017,
                    "HY000",
                    format!("Window frame is not allowed with '{name}'"),
                ));
            }
        }
        aggregate.over = Some(Box::new(self.over(&spec)?));
        Ok(aggregate)
    }

    /// A window's specification compiled.
    fn over(&mut self, spec: &ast::WindowSpec) -> Result<Over> {
        let mut partition = Vec::with_capacity(spec.partition_by.len());
        for e in &spec.partition_by {
            partition.push(self.window_key(e)?);
        }
        let mut order = Vec::with_capacity(spec.order_by.len());
        for o in &spec.order_by {
            let desc = matches!(o.options.sort, Some(ast::OrderBySort::Desc));
            let (e, collation) = self.window_key(&o.expr)?;
            order.push((e, desc, collation));
        }
        let frame = match &spec.window_frame {
            None => None,
            Some(frame) => {
                let rows = match frame.units {
                    ast::WindowFrameUnits::Rows => true,
                    ast::WindowFrameUnits::Range => false,
                    ast::WindowFrameUnits::Groups => {
                        return Err(SqlError::parse(format!(
                            "near 'GROUPS {}'",
                            frame.start_bound
                        )))
                    }
                };
                let start = self.bound(&frame.start_bound)?;
                let end = match &frame.end_bound {
                    Some(b) => self.bound(b)?,
                    None => Bound::CurrentRow,
                };
                let unacceptable = matches!(
                    (&start, &end),
                    (Bound::UnboundedFollowing, _)
                        | (_, Bound::UnboundedPreceding)
                        | (Bound::CurrentRow, Bound::Preceding(_))
                        | (Bound::Following(_), Bound::CurrentRow)
                );
                if unacceptable {
                    return Err(SqlError::new(
                        4014,
                        "HY000",
                        "Unacceptable combination of window frame bound specifications",
                    ));
                }
                for b in [&start, &end] {
                    if let Bound::Preceding(Expr::Const(v)) | Bound::Following(Expr::Const(v)) = b {
                        frame_offset(v, rows)?;
                    }
                }
                let offset = matches!(start, Bound::Preceding(_) | Bound::Following(_))
                    || matches!(end, Bound::Preceding(_) | Bound::Following(_));
                if !rows && offset && order.len() != 1 {
                    return Err(SqlError::new(
                        4019,
                        "HY000",
                        "RANGE-type frame requires ORDER BY clause with single sort key",
                    ));
                }
                Some(Frame { rows, start, end })
            }
        };
        Ok(Over {
            partition,
            order,
            frame,
        })
    }

    /// A PARTITION BY or ORDER BY key and the collation it sorts in: an ENUM or SET by its
    /// number, as ORDER BY sorts them.
    fn window_key(&mut self, e: &Ast) -> Result<(Expr, Collation)> {
        let e = self.compile(e)?;
        if matches!(e, Expr::Members { .. }) {
            return Ok((e.numbered(), Collation::Binary));
        }
        let collation = self.sort_collation(&e)?;
        Ok((e, collation))
    }

    fn bound(&mut self, b: &ast::WindowFrameBound) -> Result<Bound> {
        let offset = |c: &mut Self, e: &Ast| -> Result<Expr> {
            match c.compile(e)? {
                // MariaDB's grammar has no sign here.
                Expr::Const(base::Value::Int(i)) if i < 0 => {
                    Err(SqlError::parse(format!("near '{e}'")))
                }
                Expr::Const(base::Value::Decimal(d)) if d.is_negative() => {
                    Err(SqlError::parse(format!("near '{e}'")))
                }
                e @ (Expr::Const(_) | Expr::Param(_)) => Ok(e),
                _ => Err(SqlError::parse(format!("near '{e}'"))),
            }
        };
        Ok(match b {
            ast::WindowFrameBound::CurrentRow => Bound::CurrentRow,
            ast::WindowFrameBound::Preceding(None) => Bound::UnboundedPreceding,
            ast::WindowFrameBound::Following(None) => Bound::UnboundedFollowing,
            ast::WindowFrameBound::Preceding(Some(e)) => Bound::Preceding(offset(self, e)?),
            ast::WindowFrameBound::Following(Some(e)) => Bound::Following(offset(self, e)?),
        })
    }
}

/// A frame bound's offset checked as MariaDB does: a non-negative integer for ROWS, a
/// non-negative number for RANGE.
pub(crate) fn frame_offset(v: &base::Value, rows: bool) -> Result<()> {
    use base::Value as V;
    let fits = match v {
        V::Int(i) => *i >= 0,
        V::UInt(_) => true,
        V::Decimal(d) => !d.is_negative() && (!rows || d.scale == 0),
        V::Double(f) => *f >= 0.0 && (!rows || f.fract() == 0.0),
        V::Float(f) => *f >= 0.0 && (!rows || f.fract() == 0.0),
        _ => false,
    };
    match (fits, rows) {
        (true, _) => Ok(()),
        (false, true) => Err(SqlError::new(
            4020,
            "HY000",
            "Integer is required for ROWS-type frame",
        )),
        (false, false) => Err(numeric_range()),
    }
}

/// ER_WRONG_TYPE_FOR_RANGE_FRAME.
pub(crate) fn numeric_range() -> SqlError {
    SqlError::new(
        4021,
        "HY000",
        "Numeric datatype is required for RANGE-type frame",
    )
}
