//! Every bound and default of the SQL front end that is not a session setting's: sizes, counts
//! and times, each with why it is what it is.

use std::time::Duration;

/// How long the connection phase may take (MySQL's connect_timeout).
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a connection may sit idle between commands (MySQL's wait_timeout).
pub(crate) const WAIT_TIMEOUT: Duration = Duration::from_secs(28_800);

/// How long a client may take to send the rest of a command (MySQL's net_read_timeout).
pub(crate) const NET_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a write to the client may block (MariaDB's net_write_timeout default).
pub(crate) const NET_WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest string a function builds (REPEAT); longer gives NULL, as max_allowed_packet.
pub const STRING_RESULT_BYTES_MAX: usize = 16 << 20;

/// The bytes of a GROUP_CONCAT's result unless the session sets group_concat_max_len
/// (MariaDB's default); a session may set from 4 to `STRING_RESULT_BYTES_MAX`.
pub const GROUP_CONCAT_MAX_LEN_DEFAULT: usize = 1 << 20;

/// The bytes of values and separators a GROUP_CONCAT with ORDER BY keeps in one group to sort
/// them (past group_concat_max_len too: the cut falls after sorting); more fails the
/// statement (1235) rather than show a wrong result.
pub const GROUP_CONCAT_SORTED_BYTES_MAX: usize = 64 << 20;

/// The version string the handshake announces: MySQL 8.0's protocol, Cairn's own version.
pub const SERVER_VERSION: &str = concat!("8.0.36-Cairn-", env!("CARGO_PKG_VERSION"));

/// The stack of a connection's thread. Parsing, planning, running and dropping a statement
/// walk its tree recursively, so the stack bounds how deep a statement may be; the limits on
/// set operators (`plan::setop::SET_OPERATIONS_MAX`) and derived tables (`plan::derived::DERIVED_DEPTH_MAX`)
/// stay well inside it (Linux commits only the pages a thread touches).
pub const CONNECTION_STACK_BYTES: usize = 16 << 20;

/// Connections served at once by default (`SqlConfig::max_connections`); more are refused
/// with ER_CON_COUNT_ERROR. An idle connection holds no thread, only its buffers and session.
pub const CONNECTIONS_MAX: u32 = 1_024;

/// The most set operators (UNION, INTERSECT, EXCEPT) one query text holds. Each adds a level
/// to the parsed statement's tree, which sqlparser clones, shows and drops recursively on the
/// connection thread's stack (`CONNECTION_STACK_BYTES`; a debug build's clone takes about 16
/// KiB a level): counted in the text before it is parsed (`guard::check`), since even
/// dropping a longer chain could overflow the stack. Planning and running walk a chain in a
/// loop.
pub const SET_OPERATIONS_MAX: usize = 500;
