//! Time zone ids the date/time functions accept: UTC under its usual names, fixed UTC offsets,
//! and the regions of the tz database (`America/Los_Angeles`, `Asia/Kolkata`, `CET`), whose
//! offset depends on the instant (daylight saving time) — as Java's `ZoneId` / Joda's
//! `DateTimeZone` read them.

use super::error::FunctionError;
use chrono::{LocalResult, Offset, TimeZone};

const MILLIS_PER_MINUTE: i64 = 60_000;
const MILLIS_PER_DAY: i64 = 86_400_000;

/// A time zone: a fixed offset from UTC (milliseconds), or a region of the tz database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Zone {
    Fixed(i64),
    Region(chrono_tz::Tz),
}

impl Zone {
    pub(crate) const UTC: Zone = Zone::Fixed(0);

    /// The zone of an id: `UTC`, `GMT`, `UT`, `Z`, `Etc/UTC`, …; `+05:30`, `-0800`, `+01`;
    /// `UTC+1`, `GMT-05:00`; `Etc/GMT+5` (POSIX sign: UTC-5); a tz region by its exact name.
    pub(crate) fn parse(zone: &str) -> Result<Zone, FunctionError> {
        if let Some(offset) = fixed_offset(zone) {
            return Ok(Zone::Fixed(offset));
        }
        zone.trim()
            .parse::<chrono_tz::Tz>()
            .map(Zone::Region)
            .map_err(|_| FunctionError::UnsupportedTimeZone {
                zone: zone.to_string(),
            })
    }

    /// The offset from UTC, in milliseconds, at the instant `utc_ms`.
    pub(crate) fn offset_at(self, utc_ms: i64) -> i64 {
        match self {
            Zone::Fixed(offset) => offset,
            Zone::Region(tz) => chrono::DateTime::from_timestamp_millis(utc_ms).map_or(0, |t| {
                i64::from(
                    tz.offset_from_utc_datetime(&t.naive_utc())
                        .fix()
                        .local_minus_utc(),
                ) * 1000
            }),
        }
    }

    /// The offset of the wall time `local_ms` (millis of a local date-time, as if UTC): where
    /// clocks went back and the time comes twice, the earlier instant's; where they went
    /// forward and it never comes, the offset before the gap, so it reads as the time that
    /// much later (Java's `ZonedDateTime.ofLocal`).
    pub(crate) fn offset_of_local(self, local_ms: i64) -> i64 {
        let Zone::Region(tz) = self else {
            return self.offset_at(local_ms);
        };
        let Some(local) = chrono::DateTime::from_timestamp_millis(local_ms) else {
            return 0;
        };
        let millis = |o: chrono_tz::TzOffset| i64::from(o.fix().local_minus_utc()) * 1000;
        match tz.offset_from_local_datetime(&local.naive_utc()) {
            LocalResult::Single(o) => millis(o),
            LocalResult::Ambiguous(a, b) => millis(a).max(millis(b)),
            LocalResult::None => self.offset_at(local_ms.saturating_sub(MILLIS_PER_DAY)),
        }
    }
}

/// The offset of a fixed-offset zone id (`None` for anything else).
fn fixed_offset(zone: &str) -> Option<i64> {
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
        return Some(0);
    }
    if let Some(rest) = id.strip_prefix("ETC/GMT") {
        // POSIX style: Etc/GMT+5 is five hours *behind* UTC.
        return parse_offset(rest).map(|o| -o);
    }
    let rest = ["UTC", "GMT", "UT"]
        .iter()
        .find_map(|p| id.strip_prefix(p))
        .unwrap_or(&id);
    parse_offset(rest)
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
        let fixed = |z: &str| match Zone::parse(z) {
            Ok(Zone::Fixed(o)) => Some(o),
            _ => None,
        };
        assert_eq!(fixed("UTC"), Some(0));
        assert_eq!(fixed("etc/utc"), Some(0));
        assert_eq!(fixed("+05:30"), Some(19_800_000));
        assert_eq!(fixed("-0800"), Some(-28_800_000));
        assert_eq!(fixed("GMT+1"), Some(3_600_000));
        assert_eq!(fixed("Etc/GMT+5"), Some(-18_000_000));
        assert!(Zone::parse("+19:00").is_err());
        assert!(Zone::parse("").is_err());
        assert!(Zone::parse("America/Nowhere").is_err());
        assert_eq!(format_offset(3_600_000, false), "+0100");
        assert_eq!(format_offset(-19_800_000, true), "-05:30");
    }

    #[test]
    fn regions_follow_daylight_saving_time() {
        let la = Zone::parse("America/Los_Angeles").unwrap();
        // 2021-12-10 (PST, -8) and 2021-07-01 (PDT, -7).
        assert_eq!(la.offset_at(1_639_137_263_000), -8 * 3_600_000);
        assert_eq!(la.offset_at(1_625_140_800_000), -7 * 3_600_000);
        assert_eq!(
            Zone::parse("Asia/Kolkata").unwrap().offset_at(0),
            19_800_000
        );
        // 2021-11-07 01:30 happens twice in Los Angeles: the earlier (PDT) instant.
        let twice = 1_636_248_600_000; // 2021-11-07T01:30 as if UTC
        assert_eq!(la.offset_of_local(twice), -7 * 3_600_000);
        // 2021-03-14 02:30 never happens: read with the offset before the gap (PST).
        let never = 1_615_689_000_000; // 2021-03-14T02:30 as if UTC
        assert_eq!(la.offset_of_local(never), -8 * 3_600_000);
    }
}
