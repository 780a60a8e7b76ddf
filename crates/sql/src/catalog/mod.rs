//! What the SQL front end knows of tables and accounts: how MariaDB spells a definition,
//! foreign keys' text and who references whom, privileges, users and grants, information_schema's
//! tables and the built-in plugins.

pub(crate) mod check;
pub(crate) mod definition;
pub(crate) mod foreign;
pub(crate) mod infoschema;
pub(crate) mod plugins;
pub(crate) mod privilege;
pub(crate) mod users;
pub(crate) mod view;
