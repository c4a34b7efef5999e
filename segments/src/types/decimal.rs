//! [`Decimal`]: the one exact decimal behind BIG_DECIMAL values, as Java's `BigDecimal` that
//! Pinot uses — unbounded precision (the `bigdecimal` crate's integer digits and scale), parsed
//! from plain or exponent text, with `BigDecimal`'s result scales (`add`/`subtract`: the larger
//! scale, `multiply`: the sum, `remainder`: the larger scale and the dividend's sign), its
//! `round(MathContext(precision, HALF_EVEN))` and `setScale(scale, HALF_EVEN)`, numeric
//! comparison (`1.50` = `1.5`) and `toPlainString` rendering.
//!
//! The stored value, the arithmetic functions and `SUMPRECISION` all use this type, so a decimal
//! is parsed, rescaled and compared one way everywhere.

use bigdecimal::{BigDecimal, RoundingMode, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::num::NonZeroU64;
use std::str::FromStr;

/// An exact decimal: digits × 10^-scale.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Decimal(BigDecimal);

/// Why a decimal cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    #[error("cannot parse '{0}' as a decimal")]
    Parse(String),
    #[error("decimal '{0}' is out of range (exponent beyond ±{MAX_EXPONENT})")]
    Range(String),
}

/// The largest exponent (positive or negative) a decimal may have: written out in plain text it
/// has at most this many zeros, so a hostile `1e2147483647` cannot exhaust memory.
pub const MAX_EXPONENT: i64 = 10_000;

impl Decimal {
    /// Parses plain or exponent text (`-12.50`, `1.5e3`, `2.5E-2`, `.5`), as `new
    /// BigDecimal(text)` does (surrounding whitespace is ignored).
    pub fn parse(text: &str) -> Result<Decimal, DecimalError> {
        let t = text.trim();
        let valid = t.bytes().any(|b| b.is_ascii_digit())
            && t.bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'));
        if !valid {
            return Err(DecimalError::Parse(text.to_string()));
        }
        let d = BigDecimal::from_str(t).map_err(|_| DecimalError::Parse(text.to_string()))?;
        Decimal::bounded(d).ok_or_else(|| DecimalError::Range(text.to_string()))
    }

    /// `None` past [`MAX_EXPONENT`] either way.
    fn bounded(d: BigDecimal) -> Option<Decimal> {
        let (_, scale) = d.as_bigint_and_exponent();
        let digits = d.digits() as i64;
        (scale.abs() <= MAX_EXPONENT && digits <= MAX_EXPONENT).then_some(Decimal(d))
    }

    /// An integer with scale 0.
    pub fn from_i64(v: i64) -> Decimal {
        Decimal(BigDecimal::from(v))
    }

    /// Exact sum (the larger scale).
    pub fn add(&self, other: &Decimal) -> Decimal {
        Decimal(&self.0 + &other.0)
    }

    /// Exact difference (the larger scale).
    pub fn sub(&self, other: &Decimal) -> Decimal {
        Decimal(&self.0 - &other.0)
    }

    /// Exact product (the sum of the scales); `None` past [`MAX_EXPONENT`].
    pub fn mul(&self, other: &Decimal) -> Option<Decimal> {
        Decimal::bounded(&self.0 * &other.0)
    }

    /// Java's `BigDecimal.remainder` (the dividend's sign, the larger scale); `None` for a zero
    /// divisor.
    pub fn rem(&self, other: &Decimal) -> Option<Decimal> {
        (!other.is_zero()).then(|| Decimal(&self.0 % &other.0))
    }

    /// The negation.
    pub fn neg(&self) -> Decimal {
        Decimal(-&self.0)
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    pub fn is_negative(&self) -> bool {
        self.0.sign() == bigdecimal::num_bigint::Sign::Minus
    }

    /// The nearest double.
    pub fn to_f64(&self) -> f64 {
        self.to_plain_string().parse().unwrap_or(f64::NAN)
    }

    /// `BigDecimal.round(new MathContext(precision, HALF_EVEN))`: at most `precision` significant
    /// digits (0 = unlimited); a value with fewer is returned unchanged.
    pub fn round_precision(&self, precision: u32) -> Decimal {
        match NonZeroU64::new(precision as u64) {
            Some(p) if self.0.digits() > p.get() => {
                Decimal(self.0.with_precision_round(p, RoundingMode::HalfEven))
            }
            _ => self.clone(),
        }
    }

    /// `BigDecimal.setScale(scale, HALF_EVEN)`.
    pub fn set_scale(&self, scale: i64) -> Decimal {
        Decimal(self.0.with_scale_round(scale, RoundingMode::HalfEven))
    }

    /// Java's `toPlainString`: no exponent, the scale's digits kept (`12.50`, `3.0`, `1000`).
    pub fn to_plain_string(&self) -> String {
        self.0.to_plain_string()
    }

    /// Numeric order (`1.50` equals `1.5`).
    pub fn compare(&self, other: &Decimal) -> Ordering {
        self.0.cmp(&other.0)
    }
}

/// Compares two decimal texts numerically (`None` when either is no decimal). Rounding to a
/// double is monotonic, so doubles that differ order their decimals; only texts whose doubles
/// are equal are parsed exactly.
pub fn compare_texts(a: &str, b: &str) -> Option<Ordering> {
    if let (Ok(x), Ok(y)) = (a.trim().parse::<f64>(), b.trim().parse::<f64>())
        && x.is_finite()
        && y.is_finite()
        && x != y
    {
        return x.partial_cmp(&y);
    }
    Some(Decimal::parse(a).ok()?.compare(&Decimal::parse(b).ok()?))
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_plain_string())
    }
}

/// On the wire (a partial `SUMPRECISION` between server and broker) a decimal is its plain text.
impl serde::Serialize for Decimal {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_plain_string())
    }
}

impl<'de> serde::Deserialize<'de> for Decimal {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let text = String::deserialize(d)?;
        Decimal::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn parses_and_prints_as_java() {
        for (text, plain) in [
            ("12.50", "12.50"),
            ("-0.05", "-0.05"),
            ("1e3", "1000"),
            ("2.5E-2", "0.025"),
            ("1.5e3", "1500"),
            ("25e-3", "0.025"),
            ("0", "0"),
            (" +7 ", "7"),
            ("007.50", "7.50"),
            (".5", "0.5"),
        ] {
            assert_eq!(d(text).to_plain_string(), plain, "{text}");
        }
        for bad in ["abc", "1.2.3", ".", "", "1e", "--1", "1e2147483647", "NaN"] {
            assert!(Decimal::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arithmetic_uses_java_scales() {
        assert_eq!(d("1.5").add(&d("2")).to_plain_string(), "3.5");
        assert_eq!(d("0.1").add(&d("0.2")).to_plain_string(), "0.3");
        assert_eq!(d("1").add(&d("-1.25")).to_plain_string(), "-0.25");
        assert_eq!(d("1.5").mul(&d("2")).unwrap().to_plain_string(), "3.0");
        assert_eq!(d("0.1").sub(&d("0.25")).to_plain_string(), "-0.15");
        assert_eq!(d("-7.5").rem(&d("2")).unwrap().to_plain_string(), "-1.5");
        assert!(d("1").rem(&d("0")).is_none());
        assert_eq!(d("-2.50").neg().to_plain_string(), "2.50");
        // No bound on digits but the exponent's: 39 nines times ten, and far past i128.
        let big = d("99999999999999999999999999999999999999");
        assert_eq!(
            big.mul(&d("10")).unwrap().to_plain_string(),
            "999999999999999999999999999999999999990"
        );
        let sum = (0..1000).fold(Decimal::default(), |acc, _| acc.add(&big));
        assert_eq!(
            sum.to_plain_string(),
            "99999999999999999999999999999999999999000"
        );
    }

    #[test]
    fn rounds_half_even_and_compares_numerically() {
        assert_eq!(d("123.455").round_precision(5).to_plain_string(), "123.46");
        assert_eq!(d("123.445").round_precision(5).to_plain_string(), "123.44");
        assert_eq!(d("-2.5").round_precision(1).to_plain_string(), "-2");
        assert_eq!(d("12345").round_precision(2).to_plain_string(), "12000");
        assert_eq!(d("1.5").round_precision(10).to_plain_string(), "1.5");
        assert_eq!(d("1.005").set_scale(2).to_plain_string(), "1.00");
        assert_eq!(d("1.5").set_scale(3).to_plain_string(), "1.500");
        assert_eq!(d("1.50").compare(&d("1.5")), Ordering::Equal);
        assert_eq!(d("10").compare(&d("9.5")), Ordering::Greater);
        // Beyond a double's 17 digits, order still holds.
        assert_eq!(
            d("12345678901234567890.1").compare(&d("12345678901234567890.2")),
            Ordering::Less
        );
    }

    proptest! {
        #[test]
        fn integer_sums_are_exact(a in any::<i64>(), b in any::<i64>()) {
            let s = Decimal::from_i64(a).add(&Decimal::from_i64(b));
            prop_assert_eq!(s.to_plain_string(), (a as i128 + b as i128).to_string());
        }

        #[test]
        fn text_round_trips(unscaled in any::<i64>(), scale in 0u32..30) {
            let text = Decimal(BigDecimal::new(unscaled.into(), scale as i64)).to_plain_string();
            prop_assert_eq!(d(&text).to_plain_string(), text);
        }
    }
}
