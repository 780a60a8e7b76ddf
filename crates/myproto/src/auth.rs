//! Authentication plugins' bytes and stored forms: mysql_native_password's `*HEX` text,
//! caching_sha2_password's scramble check, its stored salted hash (MySQL's `$A$005$` SHA-256
//! crypt) and its AuthMoreData packets. Pure functions: no I/O, no clock, no randomness (the
//! caller supplies salts and scrambles).

use sha2::{Digest, Sha256};

pub const CACHING_SHA2_PASSWORD: &str = "caching_sha2_password";

/// The first byte of an AuthMoreData packet.
pub const MORE_DATA: u8 = 0x01;
/// caching_sha2_password's AuthMoreData payloads and the client's public-key request.
pub const FAST_AUTH_SUCCESS: u8 = 0x03;
pub const PERFORM_FULL_AUTHENTICATION: u8 = 0x04;
pub const REQUEST_PUBLIC_KEY: u8 = 0x02;

/// The bytes of a caching_sha2_password salt (MySQL's CRYPT_SALT_LENGTH).
pub const SHA2_SALT_BYTES: usize = 20;
/// SHA-256 crypt rounds MySQL uses (5,000), stored as thousands in the hash's header.
pub const SHA2_ROUNDS: u32 = 5_000;
/// The most rounds a stored hash may ask for (MySQL's maximum, 0xFFF thousands).
pub const SHA2_ROUNDS_MAX: u32 = 0xFFF * 1_000;
/// A cleartext password sent during full authentication, at most (bytes).
pub const CLEARTEXT_PASSWORD_BYTES_MAX: usize = 1_024;

/// An AuthMoreData packet carrying `data`.
pub fn more_data(data: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(1 + data.len());
    p.push(MORE_DATA);
    p.extend_from_slice(data);
    p
}

/// mysql_native_password's stored hash as MySQL prints it: `*` and 40 upper-case hex digits;
/// empty for no password.
pub fn native_hash_text(hash: &[u8]) -> String {
    if hash.is_empty() {
        return String::new();
    }
    let mut s = String::with_capacity(41);
    s.push('*');
    for b in hash {
        s.push_str(&format!("{b:02X}"));
    }
    s
}

/// Reads `*HEX` (41 characters) back into the 20-byte hash; empty text is no password.
pub fn parse_native_hash_text(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() {
        return Some(Vec::new());
    }
    let hex = text.strip_prefix('*')?;
    if hex.len() != 40 || !hex.is_ascii() {
        return None;
    }
    (0..20)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// SHA256(SHA256(password)): what the server keeps in its fast-authentication cache.
pub fn sha2_digest(password: &[u8]) -> [u8; 32] {
    Sha256::digest(Sha256::digest(password)).into()
}

/// The client's fast-path answer: SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) ‖ scramble); empty
/// for no password (what a client computes; for tests).
pub fn sha2_answer(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha256::digest(password);
    let stage2 = Sha256::digest(stage1);
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(scramble);
    let mask = h.finalize();
    stage1.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect()
}

/// Checks a fast-path answer against the cached `sha2_digest`: answer XOR SHA256(digest ‖
/// scramble) must be a value whose SHA256 is the digest.
pub fn sha2_matches(digest: &[u8; 32], scramble: &[u8], answer: &[u8]) -> bool {
    if answer.len() != 32 {
        return false;
    }
    let mut h = Sha256::new();
    h.update(digest);
    h.update(scramble);
    let mask = h.finalize();
    let stage1: Vec<u8> = answer.iter().zip(mask.iter()).map(|(a, b)| a ^ b).collect();
    let check = Sha256::digest(&stage1);
    check
        .iter()
        .zip(digest)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

/// The cleartext password of a full authentication: the packet without its trailing NUL.
pub fn cleartext_password(payload: &[u8]) -> Option<&[u8]> {
    if payload.len() > CLEARTEXT_PASSWORD_BYTES_MAX {
        return None;
    }
    Some(payload.strip_suffix(&[0]).unwrap_or(payload))
}

const CRYPT_ALPHABET: &[u8; 64] =
    b"./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Characters a generated salt is made of (the crypt alphabet: printable, never `$`).
pub fn salt_from_random(random: &[u8; SHA2_SALT_BYTES]) -> [u8; SHA2_SALT_BYTES] {
    random.map(|b| crypt_char(b.into()))
}

/// The crypt base-64 character of the low six bits of `v`.
#[allow(
    clippy::indexing_slicing,
    reason = "the index is masked to six bits, and the alphabet has 64 characters"
)]
fn crypt_char(v: u32) -> u8 {
    CRYPT_ALPHABET[(v & 0x3f) as usize]
}

/// SHA-256 crypt (Drepper's algorithm, as glibc's `$5$` and MySQL's caching_sha2_password
/// use it) of `key` with `salt` over `rounds`, in crypt's base-64: 43 characters.
pub fn sha256_crypt(key: &[u8], salt: &[u8], rounds: u32) -> String {
    let b = {
        let mut h = Sha256::new();
        h.update(key);
        h.update(salt);
        h.update(key);
        h.finalize()
    };
    let mut a = Sha256::new();
    a.update(key);
    a.update(salt);
    let mut left = key.len();
    while left > 32 {
        a.update(b);
        left -= 32;
    }
    a.update(b.get(..left).unwrap_or_default()); // the loop left at most 32
    let mut n = key.len();
    while n > 0 {
        if n & 1 == 1 {
            a.update(b);
        } else {
            a.update(key);
        }
        n >>= 1;
    }
    let a: [u8; 32] = a.finalize().into();
    let dp = {
        let mut h = Sha256::new();
        for _ in 0..key.len() {
            h.update(key);
        }
        h.finalize()
    };
    let p: Vec<u8> = dp.iter().cycle().take(key.len()).copied().collect();
    let ds = {
        let mut h = Sha256::new();
        for _ in 0..16 + usize::from(a[0]) {
            h.update(salt);
        }
        h.finalize()
    };
    let s: Vec<u8> = ds.iter().cycle().take(salt.len()).copied().collect();
    let mut c = a;
    for i in 0..rounds {
        let mut h = Sha256::new();
        if i & 1 == 1 {
            h.update(&p);
        } else {
            h.update(c);
        }
        if i % 3 != 0 {
            h.update(&s);
        }
        if i % 7 != 0 {
            h.update(&p);
        }
        if i & 1 == 1 {
            h.update(c);
        } else {
            h.update(&p);
        }
        c = h.finalize().into();
    }
    let mut out = String::with_capacity(43);
    // Three bytes (the first most significant) as `n` characters, low six bits first.
    let mut put = |[x, y, z]: [u8; 3], n: usize| {
        let mut w = u32::from_be_bytes([0, x, y, z]);
        for _ in 0..n {
            out.push(char::from(crypt_char(w)));
            w >>= 6;
        }
    };
    // The digest's bytes in the order crypt takes them (glibc's b64_from_24bit calls).
    put([c[0], c[10], c[20]], 4);
    put([c[21], c[1], c[11]], 4);
    put([c[12], c[22], c[2]], 4);
    put([c[3], c[13], c[23]], 4);
    put([c[24], c[4], c[14]], 4);
    put([c[15], c[25], c[5]], 4);
    put([c[6], c[16], c[26]], 4);
    put([c[27], c[7], c[17]], 4);
    put([c[18], c[28], c[8]], 4);
    put([c[9], c[19], c[29]], 4);
    put([0, c[31], c[30]], 3);
    out
}

/// caching_sha2_password's stored form, as MySQL writes it: `$A$` + rounds in thousands as
/// three hex digits + `$` + the 20-byte salt + the 43-character SHA-256 crypt; empty for no
/// password.
pub fn sha2_stored(password: &[u8], salt: &[u8; SHA2_SALT_BYTES]) -> String {
    if password.is_empty() {
        return String::new();
    }
    let salt = String::from_utf8_lossy(salt);
    format!(
        "$A${:03X}${salt}{}",
        SHA2_ROUNDS / 1000,
        sha256_crypt(password, salt.as_bytes(), SHA2_ROUNDS)
    )
}

/// A stored caching_sha2_password hash taken apart: (rounds, salt, crypt text); None when it
/// is not one.
pub fn parse_sha2_stored(stored: &str) -> Option<(u32, &str, &str)> {
    let rest = stored.strip_prefix("$A$")?;
    let thousands = u32::from_str_radix(rest.get(..3)?, 16).ok()?;
    let rest = rest.get(3..)?.strip_prefix('$')?;
    let salt = rest.get(..SHA2_SALT_BYTES)?;
    let hash = rest.get(SHA2_SALT_BYTES..)?;
    if thousands == 0 || hash.len() != 43 {
        return None;
    }
    Some((thousands * 1000, salt, hash))
}

/// Whether `password` is the one `stored` (a `sha2_stored` text, or empty) was made from.
pub fn sha2_stored_matches(stored: &str, password: &[u8]) -> bool {
    if stored.is_empty() {
        return password.is_empty();
    }
    let Some((rounds, salt, hash)) = parse_sha2_stored(stored) else {
        return false;
    };
    if rounds > SHA2_ROUNDS_MAX || password.is_empty() {
        return false;
    }
    let made = sha256_crypt(password, salt.as_bytes(), rounds);
    made.bytes()
        .zip(hash.bytes())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handshake::SCRAMBLE_BYTES;

    #[test]
    fn sha256_crypt_matches_glibc() {
        // Vectors made with glibc's crypt(3): `$5$rounds=N$salt$hash`.
        assert_eq!(
            sha256_crypt(b"Hello world!", b"saltstring", 5000),
            "5B8vYYiY.CVt1RlTTf8KbXBH3hsxY/GNooZaBBGWEc5"
        );
        assert_eq!(
            sha256_crypt(b"pw", b"abcdefghijklmnop", 1000),
            ".xdzFsvAcQZWCCNS9v/3W0mYnzyVPxn.vUXmXqFlo50"
        );
        assert_eq!(
            sha256_crypt(b"", b"ab", 1000),
            "Yd3BaIOVbovC2OGzlWXH53yhcyaWZscnPjMwuHC/2t3"
        );
    }

    #[test]
    fn stored_sha2_round_trips() {
        let salt = salt_from_random(&[200; SHA2_SALT_BYTES]);
        let stored = sha2_stored(b"secret", &salt);
        assert!(stored.starts_with("$A$005$"));
        assert_eq!(stored.len(), 7 + 20 + 43);
        assert!(sha2_stored_matches(&stored, b"secret"));
        assert!(!sha2_stored_matches(&stored, b"Secret"));
        assert!(!sha2_stored_matches(&stored, b""));
        assert!(sha2_stored_matches("", b""));
        assert!(!sha2_stored_matches("", b"x"));
        assert!(!sha2_stored_matches("$A$zzz$", b"x"));
        for n in 0..stored.len() {
            let _ = parse_sha2_stored(&stored[..n]);
        }
    }

    #[test]
    fn fast_path_checks() {
        let scramble = [9u8; SCRAMBLE_BYTES];
        let digest = sha2_digest(b"secret");
        assert!(sha2_matches(
            &digest,
            &scramble,
            &sha2_answer(b"secret", &scramble)
        ));
        assert!(!sha2_matches(
            &digest,
            &scramble,
            &sha2_answer(b"other", &scramble)
        ));
        assert!(!sha2_matches(&digest, &scramble, b"short"));
    }

    #[test]
    fn native_hash_text_round_trips() {
        let hash = crate::handshake::native_password_hash(b"pw");
        let text = native_hash_text(&hash);
        assert_eq!(text, "*D821809F681A40A6E379B50D0463EFAE20BDD122");
        assert_eq!(parse_native_hash_text(&text), Some(hash));
        assert_eq!(parse_native_hash_text(""), Some(Vec::new()));
        assert_eq!(parse_native_hash_text("*0123"), None);
        assert_eq!(parse_native_hash_text("plain"), None);
    }

    #[test]
    fn cleartext_is_bounded() {
        assert_eq!(cleartext_password(b"pw\0"), Some(&b"pw"[..]));
        assert_eq!(cleartext_password(b"pw"), Some(&b"pw"[..]));
        assert_eq!(cleartext_password(&[b'x'; 2000]), None);
    }
}
