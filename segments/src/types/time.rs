//! Calendar arithmetic on epoch milliseconds (UTC), shared by TIMESTAMP parsing,
//! formatting and the engine's date/time functions.
//!
//! Dates use the proleptic Gregorian calendar (Howard Hinnant's civil-days algorithms),
//! so every `i64` millisecond value maps to exactly one civil date-time and back.

/// Milliseconds per day.
pub const MILLIS_PER_DAY: i64 = 86_400_000;

/// Days since 1970-01-01 for a civil date.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Milliseconds per unit of an `EPOCH` time format (`1:DAYS:EPOCH`, `EPOCH|MILLISECONDS|1`).
pub fn epoch_unit_millis(format: &str) -> Option<i64> {
    let parts: Vec<&str> = format.split([':', '|']).map(str::trim).collect();
    let (size, unit) = match parts.as_slice() {
        [size, unit, "EPOCH", ..] => (size.parse::<i64>().ok()?, *unit),
        ["EPOCH", unit] => (1, *unit),
        ["EPOCH", unit, size, ..] => (size.parse::<i64>().ok()?, *unit),
        _ => return None,
    };
    let unit_ms = match unit.to_ascii_uppercase().as_str() {
        "MILLISECONDS" => 1,
        "SECONDS" => 1_000,
        "MINUTES" => 60_000,
        "HOURS" => 3_600_000,
        "DAYS" => 86_400_000,
        _ => return None,
    };
    Some(size * unit_ms)
}

/// Civil date `(year, month 1..=12, day 1..=31)` of a day number since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// True for Gregorian leap years.
pub fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// Number of days in a month (`month` 1..=12; 0 for an invalid month).
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// A broken-down UTC date-time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub millis: u32,
}

impl DateTime {
    /// Breaks epoch milliseconds into UTC fields.
    pub fn from_millis(ms: i64) -> DateTime {
        let days = ms.div_euclid(MILLIS_PER_DAY);
        let rem = ms.rem_euclid(MILLIS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        DateTime {
            year,
            month,
            day,
            hour: (rem / 3_600_000) as u32,
            minute: (rem / 60_000 % 60) as u32,
            second: (rem / 1000 % 60) as u32,
            millis: (rem % 1000) as u32,
        }
    }

    /// Epoch milliseconds of these UTC fields.
    pub fn to_millis(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * MILLIS_PER_DAY
            + self.hour as i64 * 3_600_000
            + self.minute as i64 * 60_000
            + self.second as i64 * 1000
            + self.millis as i64
    }

    /// Epoch milliseconds of these UTC fields, or `None` when they do not fit in an `i64`
    /// (or a field is out of its calendar range).
    pub fn checked_to_millis(&self) -> Option<i64> {
        if !(1..=12).contains(&self.month)
            || self.day == 0
            || self.day > days_in_month(self.year, self.month)
            || self.hour > 23
            || self.minute > 59
            || self.second > 59
            || self.millis > 999
            || self.year.unsigned_abs() > 300_000_000
        {
            return None;
        }
        let millis = days_from_civil(self.year, self.month, self.day) as i128
            * MILLIS_PER_DAY as i128
            + self.hour as i128 * 3_600_000
            + self.minute as i128 * 60_000
            + self.second as i128 * 1000
            + self.millis as i128;
        i64::try_from(millis).ok()
    }

    /// ISO-8601 week date: `(week-based year, week 1..=53)`; weeks start on Monday and week 1
    /// holds the year's first Thursday.
    pub fn iso_week(&self) -> (i64, u32) {
        let days = days_from_civil(self.year, self.month, self.day);
        let thursday = days + 4 - self.day_of_week() as i64;
        let (year, _, _) = civil_from_days(thursday);
        let week = (thursday - days_from_civil(year, 1, 1)) / 7 + 1;
        (year, week as u32)
    }

    /// Day of week, ISO numbering: Monday = 1 … Sunday = 7.
    pub fn day_of_week(&self) -> u32 {
        let days = days_from_civil(self.year, self.month, self.day);
        ((days + 3).rem_euclid(7) + 1) as u32
    }

    /// Day of year, 1-based.
    pub fn day_of_year(&self) -> u32 {
        (days_from_civil(self.year, self.month, self.day) - days_from_civil(self.year, 1, 1) + 1)
            as u32
    }
}

/// Formats epoch millis the way Pinot serialises TIMESTAMP (`java.sql.Timestamp#toString`
/// in UTC): `2020-01-01 00:00:00.0`, fractional digits without trailing zeros, at least one.
pub fn format_timestamp(ms: i64) -> String {
    let t = DateTime::from_millis(ms);
    let mut frac = format!("{:03}", t.millis);
    while frac.len() > 1 && frac.ends_with('0') {
        frac.pop();
    }
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{}",
        t.year, t.month, t.day, t.hour, t.minute, t.second, frac
    )
}

/// Parses a timestamp literal: epoch millis (`1577836800000`), `yyyy-MM-dd`,
/// `yyyy-MM-dd HH:mm:ss[.fff]` or ISO-8601 `yyyy-MM-ddTHH:mm:ss[.fff][Z]`. `None` if unparsable.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let s = text.trim();
    if let Ok(ms) = s.parse::<i64>() {
        return Some(ms);
    }
    let b = s.as_bytes();
    let num = |from: usize, to: usize| -> Option<u32> {
        let part = s.get(from..to)?;
        if part.bytes().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            part.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = num(0, 4)? as i64;
    let month = num(5, 7)?;
    let day = num(8, 10)?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut t = DateTime {
        year,
        month,
        day,
        hour: 0,
        minute: 0,
        second: 0,
        millis: 0,
    };
    let rest = &s[10..];
    if !rest.is_empty() {
        let rest = rest.strip_prefix(' ').or_else(|| rest.strip_prefix('T'))?;
        let rest = rest.strip_suffix('Z').unwrap_or(rest);
        let (hms, frac) = match rest.split_once('.') {
            Some((a, f)) => (a, Some(f)),
            None => (rest, None),
        };
        let mut parts = hms.split(':');
        t.hour = parts.next()?.parse().ok()?;
        t.minute = parts.next().map(|p| p.parse().ok()).unwrap_or(Some(0))?;
        t.second = parts.next().map(|p| p.parse().ok()).unwrap_or(Some(0))?;
        if parts.next().is_some() || t.hour > 23 || t.minute > 59 || t.second > 60 {
            return None;
        }
        if let Some(f) = frac {
            if f.is_empty() || !f.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            t.millis = digits.parse().ok()?;
        }
    }
    Some(t.to_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-800_000i64, -1, 0, 1, 10_956, 18_262, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(2020, 1, 1), 18_262);
    }

    #[test]
    fn format_and_parse_match_pinot() {
        assert_eq!(format_timestamp(1_577_836_800_000), "2020-01-01 00:00:00.0");
        assert_eq!(
            format_timestamp(1_577_836_800_120),
            "2020-01-01 00:00:00.12"
        );
        assert_eq!(
            parse_timestamp("2020-01-01 00:00:00.0"),
            Some(1_577_836_800_000)
        );
        assert_eq!(
            parse_timestamp("2020-01-01T00:00:00.5Z"),
            Some(1_577_836_800_500)
        );
        assert_eq!(parse_timestamp("2020-01-01"), Some(1_577_836_800_000));
        assert_eq!(parse_timestamp("1577836800000"), Some(1_577_836_800_000));
        assert_eq!(parse_timestamp("2020-13-01"), None);
        assert_eq!(parse_timestamp("nope"), None);
        assert_eq!(format_timestamp(-1), "1969-12-31 23:59:59.999");
    }

    #[test]
    fn checked_millis_and_iso_weeks() {
        let t = DateTime::from_millis(1_577_836_800_000);
        assert_eq!(t.checked_to_millis(), Some(1_577_836_800_000));
        let bad = DateTime {
            day: 30,
            month: 2,
            ..t
        };
        assert_eq!(bad.checked_to_millis(), None);
        let huge = DateTime {
            year: 400_000_000,
            ..t
        };
        assert_eq!(huge.checked_to_millis(), None);
        // 2020-01-01 (Wednesday) is in ISO week 1 of 2020; 2021-01-01 (Friday) in week 53 of 2020.
        assert_eq!(t.iso_week(), (2020, 1));
        assert_eq!(
            DateTime::from_millis(1_609_459_200_000).iso_week(),
            (2020, 53)
        );
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
    }

    #[test]
    fn weekday() {
        // 2020-01-01 was a Wednesday.
        assert_eq!(DateTime::from_millis(1_577_836_800_000).day_of_week(), 3);
    }
}
