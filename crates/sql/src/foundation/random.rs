//! Random bytes for the SQL front end: the operating system's, for salts and scrambles, and,
//! where chance is all that matters (RAND's seeds, UUID's node), ones mixed from the clock
//! when the system gives none.

use crate::foundation::error::SqlError;

/// Random bytes from the operating system (salts, login scrambles); an error when it has none to
/// give, so no salt or scramble is ever made of constant bytes (authentication fails closed).
pub(crate) fn random<const N: usize>() -> Result<[u8; N], SqlError> {
    let mut raw = [0u8; N];
    getrandom::getrandom(&mut raw).map_err(|e| {
        SqlError::new(
            1105,
            "HY000",
            format!("the operating system gave no random bytes: {e}"),
        )
    })?;
    Ok(raw)
}

/// Random bytes where chance is all that matters (RAND's seeds, UUID's node): the operating
/// system's, else ones mixed from the clock and the process id.
pub(crate) fn random_or_clock<const N: usize>() -> [u8; N] {
    random().unwrap_or_else(|_| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut x = nanos ^ (u64::from(std::process::id()) << 32);
        std::array::from_fn(|_| {
            // splitmix64's step: spreads the clock's few changing bits over every byte.
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u8
        })
    })
}
