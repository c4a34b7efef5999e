//! Joda-Time / `SimpleDateFormat` date-time patterns, as Pinot's `toDateTime`, `fromDateTime`
//! and `SIMPLE_DATE_FORMAT` time formats use them (`DateTimeFormat.forPattern(p).withZoneUTC()`).
//!
//! Supported letters: `G` era, `y`/`Y`/`u` year (`yy` two-digit, read as 1950–2049), `x` week
//! year, `M` month (`MMM` short and `MMMM` full English names), `w` ISO week, `d` day of month,
//! `D` day of year, `e` day-of-week number, `E` day-of-week name, `a` AM/PM, `H` hour 0–23,
//! `k` 1–24, `K` 0–11, `h` 1–12, `m` minute, `s` second, `S` fraction of second, `Z` offset
//! (`+0100`, `ZZ` `+01:00`), `z` zone name (UTC only). Text in `'quotes'` is literal (`''` is a
//! quote), other non-letters are literal. A numeric field followed directly by another numeric
//! field has a fixed width (`yyyyMMdd`); otherwise it reads up to its maximum number of digits.
//! Week-based fields (`x`, `w`, `e`, `E`) are printed but ignored or refused when parsing.

use super::zone::{Zone, format_offset, parse_offset};
use segments::types::time::{DateTime, civil_from_days, days_from_civil};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

#[derive(Clone, Debug, PartialEq)]
enum Field {
    Era,
    Year,
    YearOfEra,
    WeekYear,
    Month,
    Week,
    Day,
    DayOfYear,
    DayOfWeekNumber,
    DayOfWeekName,
    HalfDay,
    Hour,
    ClockHour,
    HalfDayHour,
    ClockHalfDayHour,
    Minute,
    Second,
    Fraction,
    Offset,
    ZoneName,
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Literal(String),
    Field(Field, usize),
}

/// A compiled date-time pattern.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pattern {
    tokens: Vec<Token>,
}

impl Field {
    fn of(letter: char) -> Option<Field> {
        Some(match letter {
            'G' => Field::Era,
            'y' | 'u' => Field::Year,
            'Y' => Field::YearOfEra,
            'x' => Field::WeekYear,
            'M' => Field::Month,
            'w' => Field::Week,
            'd' => Field::Day,
            'D' => Field::DayOfYear,
            'e' => Field::DayOfWeekNumber,
            'E' => Field::DayOfWeekName,
            'a' => Field::HalfDay,
            'H' => Field::Hour,
            'k' => Field::ClockHour,
            'K' => Field::HalfDayHour,
            'h' => Field::ClockHalfDayHour,
            'm' => Field::Minute,
            's' => Field::Second,
            'S' => Field::Fraction,
            'Z' => Field::Offset,
            'z' => Field::ZoneName,
            _ => return None,
        })
    }

    /// Whether the field is written as digits with `count` letters.
    fn numeric(&self, count: usize) -> bool {
        match self {
            Field::Month => count < 3,
            Field::Era
            | Field::DayOfWeekName
            | Field::HalfDay
            | Field::Offset
            | Field::ZoneName => false,
            _ => true,
        }
    }

    /// The most digits a lenient parse reads.
    fn max_digits(&self) -> usize {
        match self {
            Field::Year | Field::YearOfEra | Field::WeekYear | Field::Fraction => 9,
            Field::DayOfYear => 3,
            Field::DayOfWeekNumber => 1,
            _ => 2,
        }
    }
}

/// Fields collected while parsing.
#[derive(Default)]
struct Parsed {
    year: Option<i64>,
    two_digit_year: bool,
    bc: bool,
    month: Option<u32>,
    day: Option<u32>,
    day_of_year: Option<u32>,
    hour: Option<u32>,
    half_day_hour: Option<u32>,
    pm: Option<bool>,
    minute: u32,
    second: u32,
    millis: u32,
    offset: Option<i64>,
}

impl Pattern {
    /// Compiles a pattern; the error is the reason it is invalid.
    pub(crate) fn compile(pattern: &str) -> Result<Pattern, String> {
        let mut tokens = Vec::new();
        let mut chars = pattern.chars().peekable();
        let mut literal = String::new();
        while let Some(c) = chars.next() {
            if c == '\'' {
                if chars.peek() == Some(&'\'') {
                    chars.next();
                    literal.push('\'');
                    continue;
                }
                loop {
                    match chars.next() {
                        Some('\'') if chars.peek() == Some(&'\'') => {
                            chars.next();
                            literal.push('\'');
                        }
                        Some('\'') => break,
                        Some(other) => literal.push(other),
                        None => return Err("unterminated quote".into()),
                    }
                }
            } else if c.is_ascii_alphabetic() {
                let field = Field::of(c).ok_or_else(|| format!("illegal pattern letter '{c}'"))?;
                let mut count = 1;
                while chars.peek() == Some(&c) {
                    chars.next();
                    count += 1;
                }
                if !literal.is_empty() {
                    tokens.push(Token::Literal(std::mem::take(&mut literal)));
                }
                tokens.push(Token::Field(field, count.min(64)));
            } else {
                literal.push(c);
            }
        }
        if !literal.is_empty() {
            tokens.push(Token::Literal(literal));
        }
        Ok(Pattern { tokens })
    }

    /// Formats epoch millis in `zone` (at its offset for that instant).
    pub(crate) fn format(&self, millis: i64, zone: Zone) -> String {
        let offset = zone.offset_at(millis);
        let t = DateTime::from_millis(millis.saturating_add(offset));
        let mut out = String::new();
        for token in &self.tokens {
            match token {
                Token::Literal(text) => out.push_str(text),
                Token::Field(field, n) => format_field(&mut out, field, *n, &t, offset),
            }
        }
        out
    }

    /// Parses text into epoch millis; the time is `zone`'s unless the text has an offset (`Z`).
    pub(crate) fn parse(&self, text: &str, zone: Zone) -> Result<i64, String> {
        let mut parsed = Parsed::default();
        let mut rest = text;
        for (i, token) in self.tokens.iter().enumerate() {
            match token {
                Token::Literal(lit) => {
                    rest = strip_prefix_ignore_case(rest, lit)
                        .ok_or_else(|| format!("expected '{lit}' at '{}'", clip(rest)))?;
                }
                Token::Field(field, n) => {
                    let fixed = field.numeric(*n)
                        && matches!(self.tokens.get(i + 1), Some(Token::Field(next, m)) if next.numeric(*m));
                    rest = parse_field(rest, field, *n, fixed, &mut parsed)?;
                }
            }
        }
        if !rest.is_empty() {
            return Err(format!("unparsed text '{}'", clip(rest)));
        }
        parsed.to_millis(zone)
    }
}

fn clip(text: &str) -> String {
    text.chars().take(20).collect()
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let mut rest = text.chars();
    for p in prefix.chars() {
        let c = rest.next()?;
        if !c.eq_ignore_ascii_case(&p) && c != p {
            return None;
        }
    }
    Some(rest.as_str())
}

fn pad(out: &mut String, value: i64, width: usize) {
    if value < 0 {
        out.push('-');
    }
    let digits = value.unsigned_abs().to_string();
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(&digits);
}

fn format_field(out: &mut String, field: &Field, n: usize, t: &DateTime, offset: i64) {
    let hour = t.hour as i64;
    match field {
        Field::Era => out.push_str(if t.year > 0 { "AD" } else { "BC" }),
        Field::Year | Field::YearOfEra | Field::WeekYear => {
            let year = match field {
                Field::WeekYear => t.iso_week().0,
                Field::YearOfEra if t.year <= 0 => 1 - t.year,
                _ => t.year,
            };
            if n == 2 {
                pad(out, year.rem_euclid(100), 2);
            } else {
                pad(out, year, n);
            }
        }
        Field::Month if n >= 4 => out.push_str(MONTHS[(t.month as usize).saturating_sub(1) % 12]),
        Field::Month if n == 3 => {
            out.push_str(&MONTHS[(t.month as usize).saturating_sub(1) % 12][..3])
        }
        Field::Month => pad(out, t.month as i64, n),
        Field::Week => pad(out, t.iso_week().1 as i64, n),
        Field::Day => pad(out, t.day as i64, n),
        Field::DayOfYear => pad(out, t.day_of_year() as i64, n),
        Field::DayOfWeekNumber => pad(out, t.day_of_week() as i64, n),
        Field::DayOfWeekName => {
            let name = WEEKDAYS[(t.day_of_week() as usize).saturating_sub(1) % 7];
            out.push_str(if n >= 4 { name } else { &name[..3] });
        }
        Field::HalfDay => out.push_str(if hour < 12 { "AM" } else { "PM" }),
        Field::Hour => pad(out, hour, n),
        Field::ClockHour => pad(out, if hour == 0 { 24 } else { hour }, n),
        Field::HalfDayHour => pad(out, hour % 12, n),
        Field::ClockHalfDayHour => pad(out, if hour % 12 == 0 { 12 } else { hour % 12 }, n),
        Field::Minute => pad(out, t.minute as i64, n),
        Field::Second => pad(out, t.second as i64, n),
        Field::Fraction => {
            let millis = format!("{:03}", t.millis);
            if n <= 3 {
                out.push_str(&millis[..n]);
            } else {
                out.push_str(&millis);
                out.extend(std::iter::repeat_n('0', n - 3));
            }
        }
        Field::Offset if n >= 3 && offset == 0 => out.push_str("UTC"),
        Field::Offset => out.push_str(&format_offset(offset, n >= 2)),
        Field::ZoneName if offset == 0 => out.push_str("UTC"),
        Field::ZoneName => out.push_str(&format_offset(offset, true)),
    }
}

/// Reads a (signed, for years) number of at most `max` digits, exactly `max` when `fixed`.
fn take_number(text: &str, max: usize, fixed: bool, signed: bool) -> Option<(i64, &str)> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) if signed => (true, rest),
        _ => (
            false,
            text.strip_prefix('+').filter(|_| signed).unwrap_or(text),
        ),
    };
    let len = body
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    if len == 0 || (fixed && len != max) {
        return None;
    }
    let value: i64 = body[..len].parse().ok()?;
    Some((if negative { -value } else { value }, &body[len..]))
}

fn parse_field<'a>(
    text: &'a str,
    field: &Field,
    n: usize,
    fixed: bool,
    p: &mut Parsed,
) -> Result<&'a str, String> {
    let bad = || format!("cannot parse '{}'", clip(text));
    let number = |max: usize, signed: bool| {
        take_number(text, if fixed { n } else { max }, fixed, signed).ok_or_else(bad)
    };
    let small = |v: i64| u32::try_from(v).map_err(|_| bad());
    match field {
        Field::Era => {
            for (name, bc) in [("AD", false), ("BC", true)] {
                if let Some(rest) = strip_prefix_ignore_case(text, name) {
                    p.bc = bc;
                    return Ok(rest);
                }
            }
            Err(bad())
        }
        Field::Year | Field::YearOfEra => {
            if n == 2 && !fixed {
                let (v, rest) = take_number(text, 2, true, false).ok_or_else(bad)?;
                p.year = Some(v);
                p.two_digit_year = true;
                return Ok(rest);
            }
            let (v, rest) = number(field.max_digits(), *field == Field::Year)?;
            p.year = Some(v);
            p.two_digit_year = n == 2;
            Ok(rest)
        }
        Field::Month if !field.numeric(n) => {
            for (i, name) in MONTHS.iter().enumerate() {
                for candidate in [*name, &name[..3]] {
                    if let Some(rest) = strip_prefix_ignore_case(text, candidate) {
                        p.month = Some(i as u32 + 1);
                        return Ok(rest);
                    }
                }
            }
            Err(bad())
        }
        Field::Month => number(2, false)
            .and_then(|(v, rest)| Ok((small(v)?, rest)))
            .map(|(v, rest)| {
                p.month = Some(v);
                rest
            }),
        Field::Day => number(2, false)
            .and_then(|(v, rest)| Ok((small(v)?, rest)))
            .map(|(v, rest)| {
                p.day = Some(v);
                rest
            }),
        Field::DayOfYear => number(3, false)
            .and_then(|(v, rest)| Ok((small(v)?, rest)))
            .map(|(v, rest)| {
                p.day_of_year = Some(v);
                rest
            }),
        Field::DayOfWeekNumber => number(1, false).map(|(_, rest)| rest),
        Field::DayOfWeekName => {
            for name in WEEKDAYS {
                for candidate in [name, &name[..3]] {
                    if let Some(rest) = strip_prefix_ignore_case(text, candidate) {
                        return Ok(rest);
                    }
                }
            }
            Err(bad())
        }
        Field::WeekYear | Field::Week => Err("week-based fields cannot be parsed".into()),
        Field::HalfDay => {
            for (name, pm) in [("AM", false), ("PM", true)] {
                if let Some(rest) = strip_prefix_ignore_case(text, name) {
                    p.pm = Some(pm);
                    return Ok(rest);
                }
            }
            Err(bad())
        }
        Field::Hour | Field::ClockHour => {
            let (v, rest) = number(2, false)?;
            let v = small(v)?;
            p.hour = Some(if *field == Field::ClockHour && v == 24 {
                0
            } else {
                v
            });
            Ok(rest)
        }
        Field::HalfDayHour | Field::ClockHalfDayHour => {
            let (v, rest) = number(2, false)?;
            let v = small(v)?;
            if v > 12 {
                return Err(bad());
            }
            p.half_day_hour = Some(v % 12);
            Ok(rest)
        }
        Field::Minute => number(2, false)
            .and_then(|(v, rest)| Ok((small(v)?, rest)))
            .map(|(v, rest)| {
                p.minute = v;
                rest
            }),
        Field::Second => number(2, false)
            .and_then(|(v, rest)| Ok((small(v)?, rest)))
            .map(|(v, rest)| {
                p.second = v;
                rest
            }),
        Field::Fraction => {
            let digits_len = if fixed { n } else { 9 };
            let len = text
                .bytes()
                .take(digits_len)
                .take_while(u8::is_ascii_digit)
                .count();
            if len == 0 || (fixed && len != n) {
                return Err(bad());
            }
            let digits: String = text[..len].chars().chain("00".chars()).take(3).collect();
            p.millis = digits.parse().map_err(|_| bad())?;
            Ok(&text[len..])
        }
        Field::Offset | Field::ZoneName => {
            if let Some(rest) = strip_prefix_ignore_case(text, "UTC")
                .or_else(|| strip_prefix_ignore_case(text, "GMT"))
            {
                p.offset = Some(0);
                return Ok(rest);
            }
            if let Some(rest) = text.strip_prefix('Z') {
                p.offset = Some(0);
                return Ok(rest);
            }
            let len = text
                .char_indices()
                .take_while(|(i, c)| {
                    (*i == 0 && (*c == '+' || *c == '-'))
                        || (*i > 0 && (c.is_ascii_digit() || *c == ':'))
                })
                .count();
            let offset = parse_offset(&text[..len]).ok_or_else(bad)?;
            p.offset = Some(offset);
            Ok(&text[len..])
        }
    }
}

impl Parsed {
    fn to_millis(&self, zone: Zone) -> Result<i64, String> {
        let mut year = self.year.unwrap_or(1970);
        if self.two_digit_year {
            year = if year < 50 { 2000 + year } else { 1900 + year };
        }
        if self.bc {
            year = 1 - year;
        }
        let hour = match (self.half_day_hour, self.hour) {
            (Some(h), _) => h + if self.pm == Some(true) { 12 } else { 0 },
            (None, Some(h)) => h,
            (None, None) => 0,
        };
        let (month, day) = match self.day_of_year {
            Some(doy) => {
                if year.unsigned_abs() > 300_000_000 || doy == 0 || doy > 366 {
                    return Err(format!("day of year {doy} out of range"));
                }
                let days = days_from_civil(year, 1, 1) + doy as i64 - 1;
                let (y, m, d) = civil_from_days(days);
                if y != year {
                    return Err(format!("day of year {doy} out of range"));
                }
                (m, d)
            }
            None => (self.month.unwrap_or(1), self.day.unwrap_or(1)),
        };
        let t = DateTime {
            year,
            month,
            day,
            hour,
            minute: self.minute,
            second: self.second,
            millis: self.millis,
        };
        let local = t.checked_to_millis().ok_or_else(|| {
            format!(
                "invalid date-time {year}-{month}-{day} {hour}:{}:{}",
                self.minute, self.second
            )
        })?;
        local
            .checked_sub(self.offset.unwrap_or_else(|| zone.offset_of_local(local)))
            .ok_or_else(|| "date-time out of range".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(pattern: &str, millis: i64) -> String {
        Pattern::compile(pattern)
            .unwrap()
            .format(millis, Zone::Fixed(0))
    }

    fn parse(pattern: &str, text: &str) -> Result<i64, String> {
        Pattern::compile(pattern)
            .unwrap()
            .parse(text, Zone::Fixed(0))
    }

    #[test]
    fn formats_like_joda() {
        // Pinot docs (ToDateTime).
        assert_eq!(fmt("yyyy-MM-dd", 1_639_137_263_000), "2021-12-10");
        assert_eq!(
            fmt("yyyy-MM-dd hh:mm:ss a", 1_639_137_263_000),
            "2021-12-10 11:54:23 AM"
        );
        let cet = Pattern::compile("yyyy-MM-dd HH:mm:ss Z").unwrap();
        assert_eq!(
            cet.format(1_639_137_263_000, Zone::Fixed(3_600_000)),
            "2021-12-10 12:54:23 +0100"
        );
        assert_eq!(
            fmt("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", 1_500),
            "1970-01-01T00:00:01.500Z"
        );
        assert_eq!(
            fmt("yyMMdd HH:mm:ss.S", 1_639_137_263_789),
            "211210 11:54:23.7"
        );
        assert_eq!(
            fmt("EEE, d MMM yyyy", 1_639_137_263_000),
            "Fri, 10 Dec 2021"
        );
        assert_eq!(fmt("EEEE MMMM D", 1_639_137_263_000), "Friday December 344");
        assert_eq!(fmt("'It''s' h 'o''clock'", 0), "It's 12 o'clock");
        assert_eq!(fmt("yyyy-MM-dd", -1), "1969-12-31");
        assert_eq!(fmt("ZZ", 0), "+00:00");
        assert!(Pattern::compile("yyyy-qq").is_err());
        assert!(Pattern::compile("'open").is_err());
    }

    #[test]
    fn parses_like_joda() {
        // Pinot docs (FromDateTime).
        assert_eq!(parse("yyyy-MM-dd", "2019-08-07"), Ok(1_565_136_000_000));
        assert_eq!(parse("YYYY-MM-dd", "2019-08-07"), Ok(1_565_136_000_000));
        assert_eq!(
            parse("yyyy-MM-dd hh:mm:ss a", "2019-08-07 3:12:13 PM"),
            Ok(1_565_190_733_000)
        );
        assert_eq!(
            parse("yyyy-MM-dd'T'HH:mm:ss", "2019-08-07T15:12:13"),
            Ok(1_565_190_733_000)
        );
        assert_eq!(
            parse("yyyy-MM-dd'T'HH:mm:ssZ", "2019-08-07T07:12:13-0800"),
            Ok(1_565_190_733_000)
        );
        assert_eq!(parse("yyyyMMdd", "20170701"), Ok(1_498_867_200_000));
        assert_eq!(
            parse("yyyy-MM-dd HH:mm:ss.SSS", "1970-01-01 00:00:01.5"),
            Ok(1_500)
        );
        assert_eq!(parse("dd MMM yyyy", "10 dec 2021"), Ok(1_639_094_400_000));
        assert_eq!(parse("yy-MM-dd", "21-12-10"), Ok(1_639_094_400_000));
        assert_eq!(parse("yyyy-D", "2021-344"), Ok(1_639_094_400_000));
        assert!(parse("yyyy-MM-dd", "2019-02-30").is_err());
        assert!(parse("yyyy-MM-dd", "2019-08-07 extra").is_err());
        assert!(parse("yyyy-MM-dd", "2019/08/07").is_err());
        assert!(parse("HH", "99").is_err());
        assert!(parse("yyyy", "").is_err());
    }

    #[test]
    fn round_trips() {
        let p = Pattern::compile("yyyy-MM-dd HH:mm:ss.SSS").unwrap();
        for millis in [
            0,
            1,
            -1,
            1_639_137_263_789,
            -62_135_596_800_000,
            253_402_300_799_999,
        ] {
            assert_eq!(
                p.parse(&p.format(millis, Zone::Fixed(0)), Zone::Fixed(0)),
                Ok(millis),
                "{millis}"
            );
            assert_eq!(
                p.parse(
                    &p.format(millis, Zone::Fixed(19_800_000)),
                    Zone::Fixed(19_800_000)
                ),
                Ok(millis),
                "{millis}"
            );
        }
    }
}
