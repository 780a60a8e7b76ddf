//! DECIMAL's exact numbers: a 256-bit mantissa and a scale, parsed, printed, rescaled and
//! combined (sums, products and quotients exact through 512 bits) as MySQL computes them.

use std::cmp::Ordering;
use std::fmt;

pub use ethnum::{I256, U256};

/// A fixed-point number: `mantissa * 10^-scale`, the mantissa a 256-bit integer (every number
/// of up to 76 digits) kept as four 64-bit words, so that a `Value` stays 48 bytes (an `I256`
/// field would align it to 16 and make it 64).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decimal {
    /// The mantissa in two's complement, least significant word first.
    words: [u64; 4],
    pub scale: u8,
}

impl fmt::Debug for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decimal({self})")
    }
}

impl Decimal {
    /// `mantissa * 10^-scale`.
    #[inline]
    pub fn new(mantissa: impl Into<I256>, scale: u8) -> Decimal {
        let (hi, lo) = mantissa.into().into_words();
        let (hi, lo) = (hi as u128, lo as u128);
        Decimal {
            words: [lo as u64, (lo >> 64) as u64, hi as u64, (hi >> 64) as u64],
            scale,
        }
    }

    /// `mantissa * 10^-scale` for a mantissa of 128 bits (the common case, without the
    /// 256-bit conversion).
    #[inline]
    pub fn new_small(mantissa: i128, scale: u8) -> Decimal {
        let ext = if mantissa < 0 { u64::MAX } else { 0 };
        let m = mantissa as u128;
        Decimal {
            words: [m as u64, (m >> 64) as u64, ext, ext],
            scale,
        }
    }

    /// The mantissa when it fits 128 bits (every DECIMAL of up to 38 digits).
    #[inline]
    pub fn small(self) -> Option<i128> {
        let [a, b, c, d] = self.words;
        let ext = if (b as i64) < 0 { u64::MAX } else { 0 };
        (c == ext && d == ext).then_some((u128::from(b) << 64 | u128::from(a)) as i128)
    }

    #[inline]
    pub fn mantissa(self) -> I256 {
        let [a, b, c, d] = self.words.map(u128::from);
        I256::from_words((d << 64 | c) as i128, (b << 64 | a) as i128)
    }

    #[inline]
    pub fn is_negative(self) -> bool {
        (self.words[3] as i64) < 0
    }

    #[inline]
    pub fn is_zero(self) -> bool {
        self.words == [0; 4]
    }

    /// Parses `[-]digits[.digits]` exactly but for decimals past the 76th; None on bad syntax
    /// or past 76 digits.
    pub fn parse(text: &str) -> Option<Decimal> {
        let text = text.trim();
        let (negative, text) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        if !whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
        {
            return None;
        }
        // Past 76 decimals (more than any result holds) the rest rounds half away from zero,
        // so a scale stays at most 76 and two of them add up within a u8.
        let (fraction, rest) = fraction.split_at(fraction.len().min(SCALE_MAX));
        let ten = I256::from(10u8);
        let mut mantissa = I256::ZERO;
        for b in whole.bytes().chain(fraction.bytes()) {
            mantissa = mantissa
                .checked_mul(ten)?
                .checked_add(I256::from(b - b'0'))?;
        }
        if rest.as_bytes().first().is_some_and(|d| *d >= b'5') {
            mantissa = mantissa.checked_add(I256::ONE)?;
        }
        let scale = fraction.len() as u8;
        let d = Decimal::new(if negative { -mantissa } else { mantissa }, scale);
        // More digits than any DECIMAL result holds: no DECIMAL (SQL reads it as a double).
        (d.digits() <= crate::limits::DECIMAL_RESULT_DIGITS_MAX).then_some(d)
    }

    /// Rescales to `scale` digits, rounding half away from zero as MySQL does; None on overflow.
    #[inline]
    pub fn rescale(self, scale: u8) -> Option<Decimal> {
        if let (Some(m), true) = (self.small(), scale >= self.scale) {
            // 128 bits: 10^38 is the largest power of ten they hold.
            let up = 10i128.checked_pow(u32::from(scale - self.scale));
            if let Some(m) = up.and_then(|p| m.checked_mul(p)) {
                return Some(Decimal::new_small(m, scale));
            }
        }
        let mut m = self.mantissa();
        if scale >= self.scale {
            m = m.checked_mul(pow10(u32::from(scale - self.scale))?)?;
        } else {
            // Past 76 dropped digits every digit goes, rounding to zero.
            let Some(div) = pow10(u32::from(self.scale - scale)) else {
                return Some(Decimal::new(0, scale));
            };
            let q = m / div;
            let r = m % div;
            m = if r.unsigned_abs() * 2 >= div.unsigned_abs() {
                q + m.signum()
            } else {
                q
            };
        }
        Some(Decimal::new(m, scale))
    }

    /// `self + other` (`other` negated when `subtract`), at the larger scale; None past 256
    /// bits.
    #[inline]
    pub fn add(self, other: Decimal, subtract: bool) -> Option<Decimal> {
        let scale = self.scale.max(other.scale);
        let (a, b) = (self.rescale(scale)?, other.rescale(scale)?);
        if let (Some(x), Some(y)) = (a.small(), b.small()) {
            let sum = if subtract {
                x.checked_sub(y)
            } else {
                x.checked_add(y)
            };
            if let Some(sum) = sum {
                return Some(Decimal::new_small(sum, scale));
            }
        }
        let (x, y) = (a.mantissa(), b.mantissa());
        let sum = if subtract {
            x.checked_sub(y)
        } else {
            x.checked_add(y)
        };
        Some(Decimal::new(sum?, scale))
    }

    /// Cut to `scale` decimals (toward zero), when it has more.
    pub fn truncate(self, scale: u8) -> Decimal {
        match pow10(u32::from(self.scale.saturating_sub(scale))) {
            Some(div) if self.scale > scale => Decimal::new(self.mantissa() / div, scale),
            Some(_) => self,
            None => Decimal::new(0, scale),
        }
    }

    /// The largest integer at most the number (`ceiling`: the smallest at least it).
    pub fn floor(self, ceiling: bool) -> I256 {
        let whole = self.truncate(0).mantissa();
        let fraction = self.truncate(0).rescale(self.scale) != Some(self);
        match (fraction, ceiling, self.is_negative()) {
            (true, false, true) => whole - 1,
            (true, true, false) => whole + 1,
            _ => whole,
        }
    }

    /// Compares the numbers exactly, whatever their scales (bringing both to the larger scale
    /// may pass 256 bits: 60 whole digits against 30 decimals).
    pub fn cmp_exact(self, other: Decimal) -> Ordering {
        let scale = self.scale.max(other.scale);
        if let (Some(a), Some(b)) = (self.rescale(scale), other.rescale(scale)) {
            return match (a.small(), b.small()) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => a.mantissa().cmp(&b.mantissa()),
            };
        }
        let (a, b) = (self.truncate(0).mantissa(), other.truncate(0).mantissa());
        a.cmp(&b).then_with(|| {
            // Equal whole parts: the fractions (less than one each) fit at the larger scale.
            let fraction = |d: Decimal| {
                let whole = Decimal::new(d.truncate(0).mantissa(), 0);
                let whole = whole.rescale(d.scale).map_or(I256::ZERO, |w| w.mantissa());
                Decimal::new(d.mantissa() - whole, d.scale).rescale(scale)
            };
            match (fraction(self), fraction(other)) {
                (Some(x), Some(y)) => x.mantissa().cmp(&y.mantissa()),
                _ => Ordering::Equal,
            }
        })
    }

    /// `self * other` with at most `max_scale` decimals (more are cut toward zero, as MariaDB
    /// cuts a product's); the product is exact in 512 bits before the cut. None when the
    /// result passes 256 bits.
    #[inline]
    pub fn mul(self, other: Decimal, max_scale: u8) -> Option<Decimal> {
        let scale = u32::from(self.scale) + u32::from(other.scale);
        let max = u32::from(max_scale);
        if let (Some(a), Some(b), true) = (self.small(), other.small(), scale <= max) {
            if let Some(p) = a.checked_mul(b) {
                return Some(Decimal::new_small(p, scale as u8));
            }
        }
        let (a, b) = (self.mantissa(), other.mantissa());
        if scale <= max {
            return Some(Decimal::new(a.checked_mul(b)?, scale as u8));
        }
        // Cut in two steps past 10^76 (cutting toward zero twice is cutting once).
        let cut = scale - max;
        let first = pow10(cut.min(76))?.unsigned_abs();
        let (q, _) = mul_div(a.unsigned_abs(), b.unsigned_abs(), first)?;
        let q = match cut.checked_sub(76).filter(|n| *n > 0) {
            Some(n) => pow10(n).map_or(U256::ZERO, |p| q / p.unsigned_abs()),
            None => q,
        };
        let q = I256::try_from(q).ok()?;
        let negative = a.is_negative() != b.is_negative();
        Some(Decimal::new(if negative { -q } else { q }, max_scale))
    }

    /// `self / divisor` at `scale` decimals, rounded half away from zero as MySQL does; the
    /// dividend is exact in 512 bits. None for a zero divisor or a quotient past 256 bits.
    pub fn div(self, divisor: Decimal, scale: u8) -> Option<Decimal> {
        if divisor.is_zero() {
            return None;
        }
        // self / divisor at `scale`: self.m * 10^(scale - self.scale + divisor.scale) / divisor.m.
        let shift = i32::from(scale) + i32::from(divisor.scale) - i32::from(self.scale);
        let (num, den) = (
            self.mantissa().unsigned_abs(),
            divisor.mantissa().unsigned_abs(),
        );
        let (q, r, den) = if shift >= 0 {
            let (q, r) = mul_div(num, pow10(shift.unsigned_abs())?.unsigned_abs(), den)?;
            (q, r, den)
        } else {
            // A divisor past 256 bits once shifted leaves a quotient of zero.
            match pow10(shift.unsigned_abs()).and_then(|p| den.checked_mul(p.unsigned_abs())) {
                Some(den) => (num / den, num % den, den),
                None => return Some(Decimal::new(0, scale)),
            }
        };
        // Half away from zero: r >= den - r, so 2r cannot overflow.
        let q = if r >= den - r {
            q.checked_add(U256::ONE)?
        } else {
            q
        };
        let q = I256::try_from(q).ok()?;
        let negative = self.is_negative() != divisor.is_negative();
        Some(Decimal::new(if negative { -q } else { q }, scale))
    }

    /// The mantissa's digits (0 for zero).
    #[inline]
    pub fn digits(self) -> u32 {
        if let Some(m) = self.small() {
            let n = m.unsigned_abs();
            return if n == 0 { 0 } else { n.ilog10() + 1 };
        }
        match self.mantissa().checked_abs() {
            // How many powers of ten are at most the number.
            Some(n) => powers_of_ten().partition_point(|p| *p <= n) as u32,
            None => 77, // I256::MIN
        }
    }

    /// The nearest double.
    #[inline]
    pub fn to_f64(self) -> f64 {
        let m = self.mantissa();
        // A mantissa and power of ten doubles hold exactly: one correctly rounded division.
        if self.scale <= 22 && m.unsigned_abs() < U256::from(1u64 << 53) {
            return m.as_f64() / 10f64.powi(i32::from(self.scale));
        }
        self.to_string().parse().unwrap_or(0.0)
    }
}

/// The most decimals a parsed DECIMAL keeps (what 256 bits hold of a fraction).
const SCALE_MAX: usize = crate::limits::DECIMAL_RESULT_DIGITS_MAX as usize;

/// 10^n as a 256-bit integer; None past 10^76.
pub fn pow10(n: u32) -> Option<I256> {
    powers_of_ten().get(n as usize).copied()
}

/// `a * b / d` toward zero and its remainder, through the exact 512-bit product; None for a
/// zero `d` or a quotient past 256 bits.
fn mul_div(a: U256, b: U256, d: U256) -> Option<(U256, U256)> {
    if d == U256::ZERO {
        return None;
    }
    let (hi, lo) = widening_mul(a, b);
    if hi == U256::ZERO {
        return Some((lo / d, lo % d));
    }
    if hi >= d {
        return None; // the quotient is at least 2^256
    }
    // Long division a bit at a time: the remainder stays below d.
    let (mut q, mut r) = (U256::ZERO, hi);
    for bit in (0..256).rev() {
        let carry = r >> 255u32 != U256::ZERO;
        r = (r << 1u32) | ((lo >> bit) & U256::ONE);
        q <<= 1u32;
        if carry || r >= d {
            r = r.wrapping_sub(d);
            q |= U256::ONE;
        }
    }
    Some((q, r))
}

/// The 512-bit product of `a` and `b` as (high, low) halves.
fn widening_mul(a: U256, b: U256) -> (U256, U256) {
    let (a1, a0) = a.into_words();
    let (b1, b0) = b.into_words();
    let (p00, p01) = (
        U256::from(a0) * U256::from(b0),
        U256::from(a0) * U256::from(b1),
    );
    let (p10, p11) = (
        U256::from(a1) * U256::from(b0),
        U256::from(a1) * U256::from(b1),
    );
    // a·b = p11·2^256 + (p01 + p10)·2^128 + p00.
    let (mid, mid_carry) = p01.overflowing_add(p10);
    let (lo, lo_carry) = p00.overflowing_add(mid << 128u32);
    let mut hi = p11 + (mid >> 128u32) + U256::from(u8::from(lo_carry));
    if mid_carry {
        hi += U256::ONE << 128u32;
    }
    (hi, lo)
}

/// `n` clamped to i128's range (a number past it is as far from any integer column's range).
pub fn saturating_i128(n: I256) -> i128 {
    i128::try_from(n).unwrap_or(if n.is_negative() {
        i128::MIN
    } else {
        i128::MAX
    })
}

/// 10^0 ..= 10^76, every power of ten 256 bits hold.
fn powers_of_ten() -> &'static [I256; 77] {
    static POWERS: std::sync::OnceLock<[I256; 77]> = std::sync::OnceLock::new();
    POWERS.get_or_init(|| {
        let mut p = [I256::ONE; 77];
        for n in 1..p.len() {
            p[n] = p[n - 1] * 10;
        }
        p
    })
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.mantissa().unsigned_abs().to_string();
        let scale = usize::from(self.scale);
        let sign = if self.is_negative() { "-" } else { "" };
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (w, frac) = padded.split_at(padded.len() - scale);
        write!(f, "{sign}{w}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quotient_that_fits_is_found_past_i128_on_the_way() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        // 5.02797279921331664759 / 0.71828182845904523537 at 24 decimals: the dividend
        // needs 45 digits before the division.
        let q = d("5.02797279921331664759").div(d("0.71828182845904523537"), 24);
        assert_eq!(q.unwrap().to_string(), "7.000000000000000000000000");
        let big = d("30000000000000000000000000000000000000");
        let q = big
            .div(d("10000000000000000000000000000000000000"), 4)
            .unwrap();
        assert_eq!(q.to_string(), "3.0000");
        // Half away from zero, both signs; a scale below the operands' shifts the divisor.
        assert_eq!(d("2").div(d("3"), 4).unwrap().to_string(), "0.6667");
        assert_eq!(d("-2").div(d("3"), 4).unwrap().to_string(), "-0.6667");
        assert_eq!(d("1").div(d("-8"), 2).unwrap().to_string(), "-0.13");
        assert_eq!(d("0.000125").div(d("1"), 4).unwrap().to_string(), "0.0001");
        // Zero divisor, or a dividend past 256 bits: none.
        assert_eq!(d("1").div(d("0.00"), 4), None);
        let widest = d(&"9".repeat(65));
        assert_eq!(widest.div(d("0.000000000000000000000000000001"), 4), None);
        assert_eq!(
            big.div(d("0.0000001"), 4).unwrap().to_string(),
            format!("3{}.0000", "0".repeat(44))
        );
    }

    #[test]
    fn wide_products_and_quotients_are_exact_through_512_bits() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        // DECIMAL(65,30) operands: the product has 60 decimals before the cut to 38.
        let a = d(&format!("300000000.{}", "0".repeat(30)));
        let p = a.mul(a, 38).unwrap();
        assert_eq!(
            p.to_string(),
            format!("90000000000000000.{}", "0".repeat(38))
        );
        let x = d("1234567890123456789.123456789012345678901234567891");
        let y = d("-98765432109876543.987654321098765432109876543210");
        assert_eq!(
            x.mul(y, 38).unwrap().to_string(),
            "-121932631137021796196006697669120558.86816034031051181200127326623761057765"
        );
        assert_eq!(
            x.div(y, 34).unwrap().to_string(),
            "-12.4999998860937499042519540074708748"
        );
        assert_eq!(
            y.div(x, 34).unwrap().to_string(),
            "-0.0800000007290000072558000660546906"
        );
        let big = d(&format!("10000000000000.{}", "0".repeat(30)));
        assert_eq!(
            big.div(d(&format!("1.{}", "0".repeat(30))), 34)
                .unwrap()
                .to_string(),
            format!("10000000000000.{}", "0".repeat(34))
        );
        // A product past 256 bits once cut: none.
        let widest = d(&"9".repeat(65));
        assert_eq!(widest.mul(widest, 38), None);
        // The bit-by-bit division against u128 arithmetic where both apply.
        for (a, b, c) in [(u128::MAX, u128::MAX, 3u128), (1 << 127, 12345, 1 << 100)] {
            let (q, r) = mul_div(U256::from(a), U256::from(b), U256::from(c)).unwrap();
            let full = U256::from(a) * U256::from(b);
            assert_eq!((q, r), (full / U256::from(c), full % U256::from(c)));
        }
        let (q, r) = mul_div(U256::MAX, U256::MAX, U256::MAX).unwrap();
        assert_eq!((q, r), (U256::MAX, U256::ZERO));
        assert_eq!(mul_div(U256::MAX, U256::from(2u8), U256::ONE), None);
    }

    #[test]
    fn long_fractions_round_to_76_decimals_and_products_cut_past_10_pow_76() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        // 78 decimals: the rest past the 76th rounds half away from zero.
        let tiny = d(&format!("0.{}1", "0".repeat(77)));
        assert_eq!((tiny.scale, tiny.is_zero()), (76, true));
        let half = d(&format!("-0.{}5", "0".repeat(76)));
        assert_eq!(half.to_string(), format!("-0.{}1", "0".repeat(75)));
        assert_eq!(d("0.5").cmp_exact(tiny), Ordering::Greater);
        assert_eq!(tiny.floor(true), I256::ZERO);
        // Two scale-76 operands: a product of scale 152 cut to 38 decimals in two steps.
        let a = d(&format!("0.{}", "5".repeat(76)));
        let p = a.mul(a, 38).unwrap();
        assert_eq!(p.to_string(), "0.30864197530864197530864197530864197530");
        let small = d(&format!("0.{}1", "0".repeat(58)));
        assert_eq!(small.mul(small, 38).unwrap(), Decimal::new(0, 38));
    }

    #[test]
    fn wide_decimals_floor_and_compare_exactly() {
        let d = |s: &str| Decimal::parse(s).unwrap();
        assert_eq!(d("-2.5").floor(false), I256::from(-3));
        assert_eq!(d("-2.5").floor(true), I256::from(-2));
        assert_eq!(d("2.000").floor(true), I256::from(2));
        // 76 decimals, the most a DECIMAL keeps: the whole part is zero.
        let tiny = d(&format!("0.{}1", "0".repeat(75)));
        assert_eq!(tiny.floor(false), I256::ZERO);
        assert_eq!(tiny.floor(true), I256::ONE);
        assert_eq!(tiny.rescale(2), Some(Decimal::new(0, 2)));
        // 60 whole digits against 30 decimals: no common scale in 256 bits.
        let whole = d(&"9".repeat(60));
        let one = d(&format!("1.{}", "0".repeat(30)));
        assert_eq!(whole.cmp_exact(one), Ordering::Greater);
        assert_eq!(one.cmp_exact(whole), Ordering::Less);
        let near = d(&format!("{}.{}", "9".repeat(40), "0".repeat(29) + "1"));
        assert_eq!(d(&"9".repeat(40)).cmp_exact(near), Ordering::Less);
        assert_eq!(near.cmp_exact(near), Ordering::Equal);
    }
}
