//! Pinot's period strings (`TimeUtils#convertPeriodToMillis`): a sequence of
//! `<number><unit>` parts with units `d`, `h`, `m`, `s`, `ms` in that order, e.g. `30d`,
//! `24h`, `1d12h`, `90s`. Used by tier `segmentAge`, `deletedSegmentsRetentionPeriod` and
//! stream flush-threshold times.

/// Parses a period string into milliseconds; `None` if it is not a valid period.
pub fn parse_period_millis(text: &str) -> Option<i64> {
    const UNITS: [(&str, i64); 5] = [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("ms", 1),
        ("m", 60_000),
        ("s", 1_000),
    ];
    // Canonical order of the units; `ms` is matched before `m` but must come last.
    const ORDER: [&str; 5] = ["d", "h", "m", "s", "ms"];
    let t = text.trim().to_ascii_lowercase();
    if t.is_empty() {
        return None;
    }
    let mut rest = t.as_str();
    let mut total: i64 = 0;
    let mut last_rank: Option<usize> = None;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let number: i64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let (unit, factor) = UNITS.into_iter().find(|(u, _)| rest.starts_with(u))?;
        rest = &rest[unit.len()..];
        let rank = ORDER.iter().position(|u| *u == unit)?;
        if last_rank.is_some_and(|r| r >= rank) {
            return None;
        }
        last_rank = Some(rank);
        total = total.checked_add(number.checked_mul(factor)?)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pinot_periods() {
        assert_eq!(parse_period_millis("30d"), Some(30 * 86_400_000));
        assert_eq!(parse_period_millis("24h"), Some(86_400_000));
        assert_eq!(
            parse_period_millis("1d12h"),
            Some(86_400_000 + 12 * 3_600_000)
        );
        assert_eq!(parse_period_millis("1m30s"), Some(90_000));
        assert_eq!(parse_period_millis("250ms"), Some(250));
        assert_eq!(parse_period_millis("3130D"), Some(3130 * 86_400_000));
    }

    #[test]
    fn rejects_malformed_periods() {
        for bad in [
            "", "d", "30", "30x", "1h1d", "1d1d", "-1d", "30 days", "1.5h",
        ] {
            assert_eq!(parse_period_millis(bad), None, "{bad}");
        }
    }
}
