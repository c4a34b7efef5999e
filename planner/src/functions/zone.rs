//! Time zone ids the date/time functions accept: UTC under its usual names and fixed UTC
//! offsets. Named regional zones (`America/Los_Angeles`, `CET`) need the tz database, which
//! Tessera does not ship; they are errors rather than silently wrong answers.

use super::error::FunctionError;

const MILLIS_PER_MINUTE: i64 = 60_000;

/// The offset from UTC, in milliseconds, of a zone id: `UTC`, `GMT`, `UT`, `Z`, `Etc/UTC`, …;
/// `+05:30`, `-0800`, `+01`; `UTC+1`, `GMT-05:00`; `Etc/GMT+5` (POSIX sign: UTC-5).
pub(crate) fn offset_millis(zone: &str) -> Result<i64, FunctionError> {
    let unsupported = || FunctionError::UnsupportedTimeZone {
        zone: zone.to_string(),
    };
    let id = zone.trim().to_ascii_uppercase();
    const UTC_NAMES: &[&str] = &[
        "UTC",
        "GMT",
        "UT",
        "Z",
        "ZULU",
        "UCT",
        "UNIVERSAL",
        "GREENWICH",
        "GMT0",
        "ETC/UTC",
        "ETC/GMT",
        "ETC/UCT",
        "ETC/UNIVERSAL",
        "ETC/ZULU",
        "ETC/GREENWICH",
        "ETC/GMT0",
        "ETC/GMT+0",
        "ETC/GMT-0",
    ];
    if UTC_NAMES.contains(&id.as_str()) {
        return Ok(0);
    }
    if let Some(rest) = id.strip_prefix("ETC/GMT") {
        // POSIX style: Etc/GMT+5 is five hours *behind* UTC.
        return parse_offset(rest).map(|o| -o).ok_or_else(unsupported);
    }
    let rest = ["UTC", "GMT", "UT"]
        .iter()
        .find_map(|p| id.strip_prefix(p))
        .unwrap_or(&id);
    parse_offset(rest).ok_or_else(unsupported)
}

/// `[+-]hh[[:]mm]` (hours up to 18) to milliseconds.
pub(crate) fn parse_offset(text: &str) -> Option<i64> {
    let (sign, body) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    if !body.is_ascii() {
        return None;
    }
    let (hours, minutes) = match body.split_once(':') {
        Some((h, m)) => (h, m),
        None if body.len() > 2 => body.split_at(body.len() - 2),
        None => (body, "00"),
    };
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(hours) || !digits(minutes) {
        return None;
    }
    let (h, m): (i64, i64) = (hours.parse().ok()?, minutes.parse().ok()?);
    if h > 18 || m > 59 || (h == 18 && m > 0) {
        return None;
    }
    Some(sign * (h * 60 + m) * MILLIS_PER_MINUTE)
}

/// Java-style offset text: `+0100` (or `+01:00` with `colon`).
pub(crate) fn format_offset(offset: i64, colon: bool) -> String {
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.unsigned_abs() / MILLIS_PER_MINUTE as u64;
    let (h, m) = (minutes / 60, minutes % 60);
    if colon {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}{m:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones() {
        assert_eq!(offset_millis("UTC").unwrap(), 0);
        assert_eq!(offset_millis("etc/utc").unwrap(), 0);
        assert_eq!(offset_millis("+05:30").unwrap(), 19_800_000);
        assert_eq!(offset_millis("-0800").unwrap(), -28_800_000);
        assert_eq!(offset_millis("GMT+1").unwrap(), 3_600_000);
        assert_eq!(offset_millis("Etc/GMT+5").unwrap(), -18_000_000);
        assert!(offset_millis("America/Los_Angeles").is_err());
        assert!(offset_millis("+19:00").is_err());
        assert!(offset_millis("").is_err());
        assert_eq!(format_offset(3_600_000, false), "+0100");
        assert_eq!(format_offset(-19_800_000, true), "-05:30");
    }
}
