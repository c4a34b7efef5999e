//! Java's text of numbers: `Double.toString` and `Float.toString` (JDK 19+: the shortest digits
//! that read back, plain for magnitudes in [10^-3, 10^7), else `d.dddE±n`) and
//! `BigDecimal.toString`. Pinot writes numbers this way wherever a number becomes text — a
//! `CAST` to STRING, a column name, a JSON value, a hashed value of a sketch — so every such
//! place in Tessera reads it from here.

/// Java's `Double.toString` (JDK 19+): `NaN`, `Infinity`, `-0.0`, plain `123.0` / `0.001` for
/// `10^-3 <= |v| < 10^7`, else `1.0E7` / `1.0E-4`. The digits are the shortest that read back
/// as `v`, the closest such (ties to an even last digit); where one digit would do, the
/// closest of one or two digits (`4.9E-324`, not `5.0E-324`).
pub fn java_double_text(v: f64) -> String {
    if let Some(special) = java_special(v.is_nan(), v.is_infinite(), v == 0.0, v.is_sign_negative())
    {
        return special.to_string();
    }
    let a = v.abs();
    java_text(
        v.is_sign_negative(),
        &format!("{a:e}"),
        |digits| format!("{a:.*e}", digits - 1),
        |t| t.parse::<f64>() == Ok(a),
    )
}

/// Java's `Float.toString` (JDK 19+): as [`java_double_text`] with the float's own shortest
/// digits (`0.1`, `1.4E-45`, `3.4028235E38`, `1.1754944E-38`).
pub fn java_float_text(v: f32) -> String {
    if let Some(special) = java_special(v.is_nan(), v.is_infinite(), v == 0.0, v.is_sign_negative())
    {
        return special.to_string();
    }
    let a = v.abs();
    java_text(
        v.is_sign_negative(),
        &format!("{a:e}"),
        |digits| format!("{a:.*e}", digits - 1),
        |t| t.parse::<f32>() == Ok(a),
    )
}

/// The text of NaN, the infinities and the zeros; `None` for other values.
fn java_special(nan: bool, infinite: bool, zero: bool, negative: bool) -> Option<&'static str> {
    Some(match (nan, infinite, zero, negative) {
        (true, ..) => "NaN",
        (_, true, _, false) => "Infinity",
        (_, true, _, true) => "-Infinity",
        (_, _, true, false) => "0.0",
        (_, _, true, true) => "-0.0",
        _ => return None,
    })
}

/// Lays out a positive value's digits as Java does. `shortest` is Rust's shortest round-trip
/// text (`{:e}`), which fixes the length `n` (at least 2, Java's rule for one-digit values);
/// `rounded(n)` is the value correctly rounded to `n` digits (ties to even), which Java prints
/// when it reads back as the value — it is then the closest `n`-digit decimal that does. When
/// it does not (the nearest lies just outside the rounding interval), the shortest text is
/// the closest that does.
fn java_text(
    negative: bool,
    shortest: &str,
    rounded: impl FnOnce(usize) -> String,
    reads_back: impl Fn(&str) -> bool,
) -> String {
    let (mut digits, mut exponent) = split_scientific(shortest);
    let candidate = rounded(digits.len().max(2));
    if reads_back(&candidate) {
        (digits, exponent) = split_scientific(&candidate);
    }
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if (-3..7).contains(&exponent) {
        if exponent >= 0 {
            let int_len = exponent as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&exponent.to_string());
    }
    out
}

/// `d.ddde±x` → (`dddd` without trailing zeros, `x`).
fn split_scientific(text: &str) -> (String, i32) {
    let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    if digits.is_empty() {
        digits.push('0');
    }
    (digits, exponent.parse().unwrap_or(0))
}

/// Java's `BigDecimal.toString()` of decimal text (plain `12.50`, or with an exponent): plain
/// while the scale is not negative and the adjusted exponent is at least -6, else scientific
/// (`1E-7`, `1.50E+5`). `None` when the text is no decimal.
pub fn java_big_decimal_text(text: &str) -> Option<String> {
    let t = text.trim();
    let (negative, t) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exponent) = match t.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty()
        || !int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let all: String = format!("{int_part}{frac_part}");
    let trimmed = all.trim_start_matches('0');
    let coefficient = if trimmed.is_empty() { "0" } else { trimmed };
    let scale = frac_part.len() as i64 - exponent;
    let adjusted = -scale + (coefficient.len() as i64 - 1);
    let mut out = String::with_capacity(coefficient.len() + 8);
    if negative && coefficient != "0" {
        out.push('-');
    }
    if scale == 0 {
        out.push_str(coefficient);
    } else if scale > 0 && adjusted >= -6 {
        let scale = scale as usize;
        if coefficient.len() > scale {
            let point = coefficient.len() - scale;
            out.push_str(&coefficient[..point]);
            out.push('.');
            out.push_str(&coefficient[point..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', scale - coefficient.len()));
            out.push_str(coefficient);
        }
    } else {
        out.push_str(&coefficient[..1]);
        if coefficient.len() > 1 {
            out.push('.');
            out.push_str(&coefficient[1..]);
        }
        if adjusted != 0 {
            out.push('E');
            if adjusted > 0 {
                out.push('+');
            }
            out.push_str(&adjusted.to_string());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64: a small deterministic generator for the random round trips.
    struct SplitMix(u64);

    impl SplitMix {
        fn new(seed: u64) -> SplitMix {
            SplitMix(seed)
        }

        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    #[test]
    fn java_double_text_follows_jdk19() {
        for (v, text) in [
            (1.0e7, "1.0E7"),
            (1.0e-4, "1.0E-4"),
            (0.001, "0.001"),
            (9.99e-4, "9.99E-4"),
            (1.5, "1.5"),
            (-1.5, "-1.5"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::from_bits(1), "4.9E-324"),
            (f64::from_bits(2), "9.9E-324"),
            (f64::from_bits(3), "1.5E-323"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (9_999_999.0, "9999999.0"),
            (9_999_999.999_999_998, "9999999.999999998"),
            (100.0, "100.0"),
            (1_234_567.0, "1234567.0"),
            (12_345_678.0, "1.2345678E7"),
            (0.1 + 0.2, "0.30000000000000004"),
            (2.0e23, "2.0E23"),
            (1.0e23, "1.0E23"),
            (9_007_199_254_740_993.0, "9.007199254740992E15"),
            (9.223_372_036_854_776e18, "9.223372036854776E18"),
            (-123.456e-10, "-1.23456E-8"),
            (0.01, "0.01"),
            (1e21, "1.0E21"),
        ] {
            assert_eq!(java_double_text(v), text, "{v:e}");
        }
    }

    #[test]
    // Exact binary values written out (ties between shortest texts), and 3.14159 as text.
    #[allow(clippy::excessive_precision, clippy::approx_constant)]
    fn java_float_text_follows_jdk19() {
        for (v, text) in [
            (0.1f32, "0.1"),
            (1.5, "1.5"),
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (f32::NAN, "NaN"),
            (f32::NEG_INFINITY, "-Infinity"),
            (f32::from_bits(1), "1.4E-45"),
            (f32::from_bits(2), "2.8E-45"),
            (f32::MAX, "3.4028235E38"),
            (f32::MIN_POSITIVE, "1.1754944E-38"),
            (3_571_517.25, "3571517.2"),
            (3_571_517.75, "3571517.8"),
            (1.0e10, "1.0E10"),
            (1.0e7, "1.0E7"),
            (9_999_999.0, "9999999.0"),
            (0.001, "0.001"),
            (1.0e-4, "1.0E-4"),
            (0.3, "0.3"),
            (16_777_216.0, "1.6777216E7"),
            (3.14159, "3.14159"),
        ] {
            assert_eq!(java_float_text(v), text, "{v:e}");
        }
    }

    /// Rust's shortest digits are the closest shortest, as Java's and Ryu's (here through
    /// `serde_json`) are; Java differs only where one digit would do.
    #[test]
    fn shortest_digits_agree_with_ryu() {
        fn normalize(text: &str) -> (String, i32) {
            let (mantissa, exponent) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
            let mut exponent: i32 = exponent.parse().unwrap();
            let mantissa = mantissa.trim_start_matches('-');
            let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            let mut digits = format!("{int_part}{frac}");
            exponent += int_part.len() as i32 - 1;
            while digits.len() > 1 && digits.starts_with('0') {
                digits.remove(0);
                exponent -= 1;
            }
            while digits.len() > 1 && digits.ends_with('0') {
                digits.pop();
            }
            (digits, exponent)
        }
        let mut rng = SplitMix::new(11);
        for i in 0..200_000u64 {
            let bits = rng.next();
            let d = f64::from_bits(if i % 4 == 0 { bits >> 12 } else { bits });
            if d.is_finite() && d != 0.0 {
                let ryu = normalize(&serde_json::to_string(&d).unwrap());
                let ours = normalize(&java_double_text(d));
                if ryu.0.len() > 1 {
                    assert_eq!(ours, ryu, "{d:e}");
                } else {
                    assert!(ours.0.len() <= 2, "{d:e}");
                }
                assert_eq!(java_double_text(d).parse::<f64>().unwrap(), d);
            }
            let f = f32::from_bits(bits as u32 >> ((i % 2) as u32 * 9));
            if f.is_finite() && f != 0.0 {
                let ryu = normalize(&serde_json::to_string(&f).unwrap());
                let ours = normalize(&java_float_text(f));
                if ryu.0.len() > 1 {
                    assert_eq!(ours, ryu, "{f:e}");
                } else {
                    assert!(ours.0.len() <= 2, "{f:e}");
                }
                assert_eq!(java_float_text(f).parse::<f32>().unwrap(), f);
            }
        }
    }

    #[test]
    fn java_big_decimal_text_follows_to_string() {
        for (plain, text) in [
            ("7.50", "7.50"),
            ("123", "123"),
            ("-0.5", "-0.5"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1E-7"),
            ("0.00000010", "1.0E-7"),
            ("-0.00000012345", "-1.2345E-7"),
            ("0.00", "0.00"),
            ("0.00000000", "0E-8"),
            ("-0.00", "0.00"),
            ("1.5E+3", "1.5E+3"),
            ("1E+3", "1E+3"),
            ("15e2", "1.5E+3"),
            ("1.50e2", "150"),
            ("12345678901234567890.12", "12345678901234567890.12"),
            (".5", "0.5"),
        ] {
            assert_eq!(
                java_big_decimal_text(plain).as_deref(),
                Some(text),
                "{plain}"
            );
        }
        for bad in ["", "-", "abc", "1.2.3", "1e", "."] {
            assert_eq!(java_big_decimal_text(bad), None, "{bad}");
        }
    }
}
