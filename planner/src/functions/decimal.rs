//! Exact BIG_DECIMAL arithmetic for the arithmetic functions: a decimal as an `i128` mantissa
//! and a scale, with Java `BigDecimal`'s result scales (`add`: the larger scale, `multiply`:
//! the sum, `remainder`: the larger scale, sign of the dividend). Operations report `None` when
//! a result leaves the `i128` range; callers then fall back to double arithmetic.

use segments::types::Value;

/// `mantissa × 10^-scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    mantissa: i128,
    scale: u32,
}

/// The largest scale kept (beyond it, multiplication results fall back to doubles).
const MAX_SCALE: u32 = 60;

impl Decimal {
    /// Parses plain or exponent decimal text (`-12.50`, `1.5e3`).
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        let t = text.trim();
        let (body, exponent) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
            None => (t, 0),
        };
        let (negative, digits) = match body.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, body.strip_prefix('+').unwrap_or(body)),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let all = format!("{int}{frac}");
        let all = all.trim_start_matches('0');
        if all.len() > 38 {
            return None;
        }
        let mut mantissa: i128 = if all.is_empty() { 0 } else { all.parse().ok()? };
        let mut scale = frac.len() as i64 - exponent as i64;
        if scale < 0 {
            mantissa = mantissa.checked_mul(10i128.checked_pow(u32::try_from(-scale).ok()?)?)?;
            scale = 0;
        }
        let scale = u32::try_from(scale).ok().filter(|s| *s <= MAX_SCALE)?;
        Some(Decimal {
            mantissa: if negative { -mantissa } else { mantissa },
            scale,
        })
    }

    /// The exact decimal of a numeric value (doubles by their shortest text, as
    /// `BigDecimal.valueOf`); `None` for non-finite or non-numeric values.
    pub(crate) fn from_value(v: &Value) -> Option<Decimal> {
        match v {
            Value::Float(f) if f.is_finite() => Decimal::parse(&f.to_string()),
            Value::Double(f) if f.is_finite() => Decimal::parse(&f.to_string()),
            Value::BigDecimal(s) | Value::String(s) | Value::Json(s) => Decimal::parse(s),
            other => other.as_i64().map(|i| Decimal {
                mantissa: i as i128,
                scale: 0,
            }),
        }
    }

    fn rescale(self, scale: u32) -> Option<Decimal> {
        let factor = 10i128.checked_pow(scale.checked_sub(self.scale)?)?;
        Some(Decimal {
            mantissa: self.mantissa.checked_mul(factor)?,
            scale,
        })
    }

    fn aligned(self, other: Decimal) -> Option<(i128, i128, u32)> {
        let scale = self.scale.max(other.scale);
        Some((
            self.rescale(scale)?.mantissa,
            other.rescale(scale)?.mantissa,
            scale,
        ))
    }

    pub(crate) fn add(self, other: Decimal) -> Option<Decimal> {
        let (a, b, scale) = self.aligned(other)?;
        Some(Decimal {
            mantissa: a.checked_add(b)?,
            scale,
        })
    }

    pub(crate) fn sub(self, other: Decimal) -> Option<Decimal> {
        let (a, b, scale) = self.aligned(other)?;
        Some(Decimal {
            mantissa: a.checked_sub(b)?,
            scale,
        })
    }

    pub(crate) fn mul(self, other: Decimal) -> Option<Decimal> {
        let scale = self.scale + other.scale;
        (scale <= MAX_SCALE).then_some(())?;
        Some(Decimal {
            mantissa: self.mantissa.checked_mul(other.mantissa)?,
            scale,
        })
    }

    /// Java's `BigDecimal.remainder`; `None` for a zero divisor too.
    pub(crate) fn rem(self, other: Decimal) -> Option<Decimal> {
        let (a, b, scale) = self.aligned(other)?;
        Some(Decimal {
            mantissa: a.checked_rem(b)?,
            scale,
        })
    }

    pub(crate) fn negate(self) -> Option<Decimal> {
        Some(Decimal {
            mantissa: self.mantissa.checked_neg()?,
            scale: self.scale,
        })
    }

    pub(crate) fn is_zero(self) -> bool {
        self.mantissa == 0
    }

    pub(crate) fn is_negative(self) -> bool {
        self.mantissa < 0
    }

    /// Plain text (`toPlainString`): `-0.050`, `12`, `3.0`.
    pub(crate) fn to_plain_string(self) -> String {
        let digits = self.mantissa.unsigned_abs().to_string();
        let sign = if self.mantissa < 0 { "-" } else { "" };
        let scale = self.scale as usize;
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        let padded = if digits.len() <= scale {
            format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
        } else {
            digits
        };
        let (int, frac) = padded.split_at(padded.len() - scale);
        format!("{sign}{int}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn parses_and_prints() {
        assert_eq!(d("-12.50").to_plain_string(), "-12.50");
        assert_eq!(d("1.5e3").to_plain_string(), "1500");
        assert_eq!(d("25e-3").to_plain_string(), "0.025");
        assert_eq!(d("0").to_plain_string(), "0");
        assert!(Decimal::parse("1e505").is_none());
        assert!(Decimal::parse("abc").is_none());
        assert!(Decimal::parse(".").is_none());
        assert!(Decimal::parse("1e2147483647").is_none());
    }

    #[test]
    fn arithmetic_uses_java_scales() {
        assert_eq!(d("1.5").add(d("2")).unwrap().to_plain_string(), "3.5");
        assert_eq!(d("1.5").mul(d("2")).unwrap().to_plain_string(), "3.0");
        assert_eq!(d("0.1").sub(d("0.25")).unwrap().to_plain_string(), "-0.15");
        assert_eq!(d("-7.5").rem(d("2")).unwrap().to_plain_string(), "-1.5");
        assert!(d("1").rem(d("0")).is_none());
        assert!(
            d("99999999999999999999999999999999999999")
                .mul(d("10"))
                .is_none()
        );
        assert_eq!(
            Decimal::from_value(&Value::Double(0.1))
                .unwrap()
                .to_plain_string(),
            "0.1"
        );
    }
}
