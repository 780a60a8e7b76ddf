//! The MySQL client/server protocol (v10, 4.1+), server side, as pure encode/decode: packet
//! framing with reassembly under a size limit (`packet`), the basic encodings (`codec`), the
//! connection phase and mysql_native_password (`handshake`), and responses: OK, ERR, EOF,
//! column definitions, text rows (`response`); prepared statements' parameters and binary rows
//! (`binary`); caching_sha2_password and stored password forms (`auth`). It opens no sockets
//! and runs no SQL.

// Bytes from the network must never panic the process (issue 41): no unwrap, no expect, no
// unchecked slice index outside tests.
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)
)]

pub mod auth;
pub mod binary;
pub mod codec;
pub mod handshake;
pub mod packet;
pub mod response;

/// Command bytes (the first byte of each command-phase packet).
pub mod command {
    pub const QUIT: u8 = 0x01;
    pub const INIT_DB: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const FIELD_LIST: u8 = 0x04;
    pub const STATISTICS: u8 = 0x09;
    pub const PING: u8 = 0x0E;
    pub const STMT_PREPARE: u8 = 0x16;
    pub const STMT_EXECUTE: u8 = 0x17;
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const STMT_CLOSE: u8 = 0x19;
    pub const STMT_RESET: u8 = 0x1A;
    pub const SET_OPTION: u8 = 0x1B;
    pub const RESET_CONNECTION: u8 = 0x1F;
}

/// What decoding the protocol can fail with; each closes only the offending connection.
#[derive(Debug, thiserror::Error)]
pub enum ProtoError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("packet of {size} bytes exceeds max_allowed_packet ({limit})")]
    TooLarge { size: usize, limit: usize },
    #[error("malformed packet: {0}")]
    Malformed(String),
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The client asked for TLS before its handshake response.
    #[error("the client asked for TLS")]
    SslRequested,
}
