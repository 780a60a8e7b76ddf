//! What the SQL front end knows of tables and accounts: how MariaDB spells a definition,
//! privileges, users and grants, information_schema's tables and the built-in plugins.

pub(crate) mod definition;
pub(crate) mod infoschema;
pub(crate) mod plugins;
pub(crate) mod privilege;
pub(crate) mod users;
