//! [`Decimal`]: exact decimal arithmetic for `SUMPRECISION` — an `i128` unscaled value and a
//! scale (up to 38 significant digits), with Java `BigDecimal`'s `round(precision, HALF_EVEN)`
//! and `setScale(scale, HALF_EVEN)` and its `toPlainString` rendering.

use serde::{Deserialize, Serialize};

/// `unscaled × 10^-scale`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decimal {
    pub unscaled: i128,
    pub scale: u32,
}

/// Why a decimal operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecimalError {
    #[error("cannot parse '{0}' as a decimal")]
    Parse(String),
    #[error("decimal overflow")]
    Overflow,
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

impl Decimal {
    /// Parses plain or exponent notation (`12.50`, `-3`, `1e3`, `2.5E-2`).
    pub fn parse(text: &str) -> Result<Decimal, DecimalError> {
        let err = || DecimalError::Parse(text.to_string());
        let t = text.trim();
        let (mantissa, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i32>().map_err(|_| err())?),
            None => (t, 0),
        };
        let (neg, digits) = match mantissa.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return Err(err());
        }
        let mut unscaled: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            unscaled = unscaled
                .checked_mul(10)
                .and_then(|u| u.checked_add((b - b'0') as i128))
                .ok_or(DecimalError::Overflow)?;
        }
        let mut scale = frac.len() as i64 - exp as i64;
        if scale < 0 {
            unscaled = unscaled
                .checked_mul(pow10((-scale) as u32).ok_or(DecimalError::Overflow)?)
                .ok_or(DecimalError::Overflow)?;
            scale = 0;
        }
        let scale = u32::try_from(scale).map_err(|_| DecimalError::Overflow)?;
        Ok(Decimal {
            unscaled: if neg { -unscaled } else { unscaled },
            scale,
        })
    }

    /// A decimal from a double's Java text (`new BigDecimal(Double.toString(v))`: `3.0`).
    pub fn from_f64(v: f64) -> Result<Decimal, DecimalError> {
        if !v.is_finite() {
            return Err(DecimalError::Parse(v.to_string()));
        }
        Decimal::parse(&segments::types::value::java_float(v))
    }

    fn rescale(self, scale: u32) -> Result<Decimal, DecimalError> {
        if scale < self.scale {
            return Ok(self);
        }
        let f = pow10(scale - self.scale).ok_or(DecimalError::Overflow)?;
        Ok(Decimal {
            unscaled: self.unscaled.checked_mul(f).ok_or(DecimalError::Overflow)?,
            scale,
        })
    }

    /// Exact sum.
    pub fn checked_add(self, other: Decimal) -> Result<Decimal, DecimalError> {
        let scale = self.scale.max(other.scale);
        let a = self.rescale(scale)?;
        let b = other.rescale(scale)?;
        Ok(Decimal {
            unscaled: a
                .unscaled
                .checked_add(b.unscaled)
                .ok_or(DecimalError::Overflow)?,
            scale,
        })
    }

    /// Divides the unscaled value by `10^drop`, rounding half to even.
    fn drop_digits(self, drop: u32) -> Decimal {
        if drop == 0 {
            return self;
        }
        let Some(f) = pow10(drop) else {
            return Decimal {
                unscaled: 0,
                scale: 0,
            };
        };
        let q = self.unscaled / f;
        let r = self.unscaled % f;
        let half = f / 2;
        let r_abs = r.abs();
        let round_away = r_abs > half || (r_abs == half && q % 2 != 0);
        let q = if round_away {
            q + self.unscaled.signum()
        } else {
            q
        };
        Decimal {
            unscaled: q,
            scale: self.scale.saturating_sub(drop),
        }
    }

    /// Number of significant digits.
    fn precision(self) -> u32 {
        let mut n = self.unscaled.unsigned_abs();
        let mut d = 1;
        while n >= 10 {
            n /= 10;
            d += 1;
        }
        d
    }

    /// `BigDecimal.round(new MathContext(precision, HALF_EVEN))` (precision 0 = unlimited).
    pub fn round_precision(self, precision: u32) -> Decimal {
        let p = self.precision();
        if precision == 0 || p <= precision {
            return self;
        }
        let drop = p - precision;
        if drop <= self.scale {
            self.drop_digits(drop)
        } else {
            // Rounding reaches left of the decimal point: keep the magnitude with trailing zeros.
            let rounded = Decimal {
                unscaled: self.unscaled,
                scale: 0,
            }
            .drop_digits(drop);
            let unscaled = rounded
                .unscaled
                .saturating_mul(pow10(drop - self.scale).unwrap_or(1));
            Decimal { unscaled, scale: 0 }
        }
    }

    /// `BigDecimal.setScale(scale, HALF_EVEN)`.
    pub fn set_scale(self, scale: u32) -> Result<Decimal, DecimalError> {
        if scale >= self.scale {
            self.rescale(scale)
        } else {
            Ok(self.drop_digits(self.scale - scale))
        }
    }

    /// `toPlainString`.
    pub fn to_plain_string(self) -> String {
        let neg = self.unscaled < 0;
        let digits = self.unscaled.unsigned_abs().to_string();
        let s = self.scale as usize;
        let body = if s == 0 {
            digits
        } else if digits.len() > s {
            format!(
                "{}.{}",
                &digits[..digits.len() - s],
                &digits[digits.len() - s..]
            )
        } else {
            format!("0.{}{}", "0".repeat(s - digits.len()), digits)
        };
        if neg { format!("-{body}") } else { body }
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
    fn parses_adds_and_prints() {
        assert_eq!(d("12.50").to_plain_string(), "12.50");
        assert_eq!(d("-0.05").to_plain_string(), "-0.05");
        assert_eq!(d("1e3").to_plain_string(), "1000");
        assert_eq!(d("2.5E-2").to_plain_string(), "0.025");
        assert_eq!(
            d("0.1").checked_add(d("0.2")).unwrap().to_plain_string(),
            "0.3"
        );
        assert_eq!(
            d("1").checked_add(d("-1.25")).unwrap().to_plain_string(),
            "-0.25"
        );
        assert!(Decimal::parse("abc").is_err());
        assert!(Decimal::parse("1.2.3").is_err());
        assert_eq!(Decimal::from_f64(0.1).unwrap().to_plain_string(), "0.1");
        assert_eq!(Decimal::from_f64(3.0).unwrap().to_plain_string(), "3.0");
    }

    #[test]
    fn rounds_half_even() {
        assert_eq!(d("123.455").round_precision(5).to_plain_string(), "123.46");
        assert_eq!(d("123.445").round_precision(5).to_plain_string(), "123.44");
        assert_eq!(d("-2.5").round_precision(1).to_plain_string(), "-2");
        assert_eq!(d("12345").round_precision(2).to_plain_string(), "12000");
        assert_eq!(d("1.005").set_scale(2).unwrap().to_plain_string(), "1.00");
        assert_eq!(d("1.5").set_scale(3).unwrap().to_plain_string(), "1.500");
    }

    proptest! {
        #[test]
        fn integer_sums_are_exact(a in -1_000_000_000i64..1_000_000_000, b in -1_000_000_000i64..1_000_000_000) {
            let s = Decimal::parse(&a.to_string()).unwrap().checked_add(Decimal::parse(&b.to_string()).unwrap()).unwrap();
            prop_assert_eq!(s.to_plain_string(), (a + b).to_string());
        }
    }
}
