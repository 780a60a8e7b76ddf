//! Every bound Cairn enforces, named in one place so decoders, validators and docs agree.

/// Largest frame body the native protocol accepts, in bytes.
pub const FRAME_BODY_BYTES_MAX: u32 = 16 * 1024 * 1024;
/// Operations in one execute request.
pub const BATCH_OPERATIONS_MAX: usize = 16_384;
/// Requests one connection may have in flight at once; more are refused with a temporary error.
pub const REQUESTS_IN_FLIGHT_MAX: usize = 4_096;
/// Tables (including hidden unique-index tables) in one cluster.
pub const TABLES_MAX: usize = 20_320;
/// Columns in one table.
pub const COLUMNS_MAX: usize = 512;
/// Columns in one key (primary, unique or ordered index).
pub const KEY_COLUMNS_MAX: usize = 32;
/// Indexes (unique plus ordered) on one table.
pub const INDEXES_MAX: usize = 64;
/// Foreign keys per table.
pub const FOREIGN_KEYS_MAX: usize = 64;
/// CHECK constraints per table.
pub const CHECKS_MAX: usize = 64;
/// Bytes in one CHECK constraint's condition text.
pub const CHECK_TEXT_BYTES_MAX: usize = 8_192;
/// Bytes a key (primary, unique or ordinary) declares, as MySQL and NDB count them: a string's
/// characters times its character set's longest character, other types their width.
pub const KEY_BYTES_MAX: usize = 3_072;
/// Bytes in an encoded primary or unique key on the wire (steps, replication, restart copy):
/// the longest a key of [`KEY_BYTES_MAX`] declared bytes encodes to (a collation's sort key
/// with its expansions, zero bytes escaped) fits. An ordered index's key (its columns, then
/// the primary key) takes twice this.
pub const ENCODED_KEY_BYTES_MAX: usize = 64 * 1024;
/// Bytes in one stored row: room for a few values of [`LOB_INLINE_BYTES_MAX`].
pub const ROW_BYTES_MAX: usize = 4 * 1024 * 1024;
/// Bytes in one MEDIUMTEXT, LONGTEXT, MEDIUMBLOB or LONGBLOB value. MySQL allows 16 MiB and
/// 4 GiB; Cairn holds a LONG one to 64 MiB (a MEDIUM one keeps MySQL's 16 MiB - 1). TINY- and
/// plain TEXT and BLOB keep MySQL's 255 and 65,535.
pub const LOB_BYTES_MAX: usize = 64 * 1024 * 1024;
/// The longest MEDIUM/LONG TEXT or BLOB value kept whole in its row; a longer one lives in
/// parts of [`LOB_PART_BYTES`] in the hidden parts table, and its row holds a reference
/// (`base::lob`, NDB's blob head and parts).
pub const LOB_INLINE_BYTES_MAX: usize = 1024 * 1024;
/// Bytes in one part of a value stored in parts (the last part holds the rest).
pub const LOB_PART_BYTES: usize = 256 * 1024;
/// Bytes in one value on the wire and in a row: above every column's maximum, so an oversized
/// value is refused as a bad value for its column rather than as a broken frame; the most a
/// row's three-byte length prefix holds.
pub const VALUE_BYTES_MAX: usize = (1 << 21) - 1;
/// Bytes in a VARCHAR or VARBINARY value (MySQL's row limit).
pub const VARCHAR_BYTES_MAX: usize = 65_535;
/// Characters in CHAR(n) and bytes in BINARY(n).
pub const CHAR_LENGTH_MAX: u32 = 255;
/// Bytes in a table, column or index name.
pub const NAME_BYTES_MAX: usize = 64;
/// Bytes of a table name on the wire: room for hidden unique-index tables, named
/// `<table>$unique$<index>`.
pub const WIRE_NAME_BYTES_MAX: usize = 256;
/// Bytes of a table comment: MariaDB's 2,048 characters of up to 4 bytes.
pub const TABLE_COMMENT_BYTES_MAX: usize = 8192;
/// Characters of a column comment (MariaDB's limit, 1629 past it).
pub const COLUMN_COMMENT_CHARS_MAX: usize = 1024;
/// Members of an ENUM (a SET holds at most 64).
pub const ENUM_MEMBERS_MAX: usize = 65_535;
/// Bytes of an ENUM's or SET's member: MariaDB's 255 characters of up to 4 bytes.
pub const ENUM_MEMBER_BYTES_MAX: usize = 1020;
/// Bytes of a column comment: its characters of up to 4 bytes.
pub const COLUMN_COMMENT_BYTES_MAX: usize = 4 * COLUMN_COMMENT_CHARS_MAX;
/// Bytes of the client name in a Hello.
pub const CLIENT_NAME_BYTES_MAX: usize = 256;
/// Bytes of an error message on the wire.
pub const ERROR_MESSAGE_BYTES_MAX: usize = 4_096;
/// Nodes in a filter program.
pub const FILTER_NODES_MAX: usize = 4_096;
/// Nesting depth of a filter program.
pub const FILTER_DEPTH_MAX: usize = 64;
/// Values in one IN list of a filter program.
pub const FILTER_IN_VALUES_MAX: usize = 65_536;
/// Partial aggregates one pushed-aggregation scan computes per group.
pub const AGGREGATE_FUNCTIONS_MAX: usize = 64;
/// Groups a data node folds a pushed-aggregation scan's rows into before it answers them (the
/// client merges groups answered in parts).
pub const AGGREGATE_GROUPS_MAX: usize = 65_536;

/// The most index prefixes one scan reads by (`wire::ScanRequest::keys`, NDB's batched key
/// access: a join's index probe sends a batch of joined rows' values in one scan).
pub const SCAN_KEYS_MAX: usize = 16_384;
/// The most tables a pushed join reads after its scan's (`wire::ScanRequest::join`).
pub const JOIN_CHILDREN_MAX: usize = 8;
/// The most bytes of rows a pushed join holds in the data node for one batch of its scan's
/// rows (the joined rows and a child's rows read): past it the scan fails with `Overloaded`,
/// and the API node joins it itself.
pub const JOIN_HELD_BYTES_MAX: usize = 64 * 1024 * 1024;
/// Partitions of one table.
pub const PARTITIONS_MAX: u32 = 1_024;
/// Buckets of the placement map: hash -> bucket -> partition.
pub const BUCKET_COUNT: u32 = 3_840;
/// Worker threads in one data node.
pub const WORKERS_MAX: usize = 64;
/// Decimal precision: digits a DECIMAL column holds, as in MySQL and NDB.
pub const DECIMAL_PRECISION_MAX: u8 = 65;
/// A DECIMAL of at most this many digits takes 16 bytes (128 bits) in a row and a key; a wider
/// one 32. Tables made before DECIMAL(65) keep their 16-byte layout.
pub const DECIMAL_NARROW_PRECISION_MAX: u8 = 38;
/// Digits of a DECIMAL an expression may yield (what 256 bits hold whole); only a column
/// limits a value to its precision.
pub const DECIMAL_RESULT_DIGITS_MAX: u32 = 76;
/// Decimal scale.
pub const DECIMAL_SCALE_MAX: u8 = 30;
/// Rows one scan may return to the client in one frame (one batch).
pub const SCAN_BATCH_ROWS_MAX: usize = 4_096;
/// Bytes of rows a scan's batch gathers before it is cut (a batch passes it by one row at most).
pub const SCAN_BATCH_BYTES_MAX: usize = 1024 * 1024;
/// A batch's bytes when the client names none: small enough that a worker's part of a scan
/// and the batch on its way hold little, large enough that a round trip carries many rows.
pub const SCAN_BATCH_BYTES_DEFAULT: usize = 256 * 1024;
/// Scans one connection may hold open at once (NDB's MaxNoOfConcurrentScans is per node):
/// each holds at most a batch per worker between the client's requests.
pub const SCANS_OPEN_PER_CONNECTION_MAX: usize = 256;
/// Connections a data node accepts from API nodes.
pub const CONNECTIONS_MAX: usize = 1_024;
