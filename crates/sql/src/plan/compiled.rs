//! What a statement compiles to, as prepared statements and the plan cache hold it: a SELECT, a
//! set operation, a write's plan, a statement whose subqueries run first (`Deferred`), or one
//! run as it was parsed.

use sqlparser::ast::Statement;
use sqlparser::tokenizer::Location;

use crate::plan::write::InsertPlan;
use crate::plan::{DeletePlan, SelectPlan, UpdatePlan};

/// A statement planned once.
pub(crate) enum Compiled {
    Select(Box<SelectPlan>),
    /// UNION, INTERSECT, EXCEPT.
    Set(Box<crate::plan::setop::SetPlan>),
    /// A statement with subqueries: they run first, then it is planned with their results.
    Deferred(Box<Deferred>),
    Update(UpdatePlan),
    Delete(DeletePlan),
    /// A multi-table UPDATE or DELETE.
    Multi(Box<crate::plan::write::MultiPlan>),
    Insert(InsertPlan),
    /// DO e[, e ...] prepared: the SELECT of its expressions, run and its rows dropped.
    Do(Box<Compiled>),
    Other(Box<Statement>),
}

/// A statement kept to plan at each execution (see [`Compiled::Deferred`]).
#[derive(Debug, Clone)]
pub struct Deferred {
    pub(crate) statement: Statement,
    pub(crate) sql: String,
    pub(crate) placeholders: Vec<Location>,
}
