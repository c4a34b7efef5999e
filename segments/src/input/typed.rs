//! Conversions the typed inputs (Parquet, Avro) share, as Pinot's readers make them: exact
//! decimals from unscaled integers, `DATE` day numbers, UUID bytes.

use crate::types::{DataType, Value};

/// A big-endian two's-complement integer of at most 16 bytes.
pub fn unscaled(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

/// `unscaled × 10^-scale` as exact decimal text (`-12.340` for -12340, scale 3).
pub fn decimal(unscaled: i128, scale: i32) -> String {
    decimal_text(&unscaled.to_string(), scale)
}

/// [`decimal`] of an unscaled integer given as its decimal text (`-12340`), for integers wider
/// than 128 bits.
pub fn decimal_text(unscaled: &str, scale: i32) -> String {
    let (sign, digits) = match unscaled.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", unscaled),
    };
    if scale <= 0 {
        let zeros = "0".repeat(scale.unsigned_abs() as usize);
        return if digits.bytes().all(|b| b == b'0') {
            "0".into()
        } else {
            format!("{sign}{digits}{zeros}")
        };
    }
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

/// A DATE (days since the epoch) as the column wants it: `yyyy-MM-dd` text for a STRING
/// column, epoch millis for a TIMESTAMP, the day number otherwise.
pub fn date_value(days: i64, dt: DataType) -> Value {
    match dt {
        DataType::String | DataType::Json => Value::String(civil(days)),
        DataType::Timestamp => Value::Timestamp(days * 86_400_000),
        _ => Value::Long(days),
    }
}

/// `yyyy-MM-dd` of a day number (days since 1970-01-01, proleptic Gregorian).
fn civil(days: i64) -> String {
    match civil_text(days) {
        Some(b) => String::from_utf8_lossy(&b).into_owned(),
        None => {
            let (year, month, day) = civil_parts(days);
            format!("{year:04}-{month:02}-{day:02}")
        }
    }
}

/// `yyyy-MM-dd` of a day number as bytes, without allocating (years 0 to 9999).
pub fn civil_text(days: i64) -> Option<[u8; 10]> {
    let (year, month, day) = civil_parts(days);
    if !(0..=9999).contains(&year) {
        return None;
    }
    let digit = |v: i64| b'0' + v as u8;
    Some([
        digit(year / 1000),
        digit(year / 100 % 10),
        digit(year / 10 % 10),
        digit(year % 10),
        b'-',
        digit(month / 10),
        digit(month % 10),
        b'-',
        digit(day / 10),
        digit(day % 10),
    ])
}

/// Year, month and day of a day number.
fn civil_parts(days: i64) -> (i64, i64, i64) {
    let (year, month, day) = crate::types::time::civil_from_days(days);
    (year, i64::from(month), i64::from(day))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(decimal(-12340, 3), "-12.340");
        assert_eq!(decimal(5, 2), "0.05");
        assert_eq!(decimal(-5, 2), "-0.05");
        assert_eq!(decimal(7, 0), "7");
        assert_eq!(decimal(7, -2), "700");
        assert_eq!(decimal(0, -2), "0");
        assert_eq!(
            decimal_text("-123456789012345678901234567890123456789012", 40),
            "-12.3456789012345678901234567890123456789012"
        );
        assert_eq!(unscaled(&[0xff, 0x85]), Some(-123));
        assert_eq!(unscaled(&[0x00, 0x7b]), Some(123));
        assert_eq!(unscaled(&[0; 17]), None);
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil(0), "1970-01-01");
        assert_eq!(civil(19_723), "2024-01-01");
        assert_eq!(civil(-1), "1969-12-31");
        assert_eq!(civil(11_016), "2000-02-29");
        assert_eq!(civil(2_932_896), "9999-12-31");
        assert_eq!(civil(2_932_897), "10000-01-01");
        assert_eq!(civil_text(2_932_897), None);
    }

    #[test]
    fn uuids_are_canonical() {
        let b: Vec<u8> = (0..16).collect();
        assert_eq!(
            crate::types::value::uuid_text(&b),
            "00010203-0405-0607-0809-0a0b0c0d0e0f"
        );
    }
}
