//! Statements that are not queries: data definition (CREATE/ALTER/DROP of databases, tables and
//! columns), accounts and grants, SHOW, table maintenance, LOAD DATA and stored procedures.

pub(crate) mod account;
pub(crate) mod check;
pub(crate) mod column_def;
pub(crate) mod columns;
pub(crate) mod create;
pub(crate) mod ddl;
pub(crate) mod foreign;
pub(crate) mod load;
pub(crate) mod maintenance;
pub(crate) mod routine_text;
pub(crate) mod routines;
pub(crate) mod show;
pub(crate) mod view;
