//! Date/time functions (Pinot's `DateTimeFunctions` and the date transform functions), on epoch
//! milliseconds in UTC with the calendar of `segments::types::time`.
//!
//! * `toEpochSeconds/Minutes/Hours/Days(ms)` (+`Rounded(ms, n)`, +`Bucket(ms, n)`) and
//!   `fromEpochSeconds/…/Days(x)` (+`Bucket(x, n)`): Java `TimeUnit` conversions (division
//!   truncates toward zero, multiplication saturates).
//! * `year`, `yearOfWeek/yow`, `quarter`, `month/monthOfYear`, `week/weekOfYear` (ISO),
//!   `dayOfYear/doy`, `day/dayOfMonth`, `dayOfWeek/dow` (Monday = 1), `hour`, `minute`,
//!   `second`, `millisecond`, each `(ms[, timeZone])`, INT.
//! * `dateTrunc(unit, t[, inputTimeUnit[, timeZone[, outputTimeUnit]]])`: floors to
//!   `millisecond … year` (weeks start on Monday, quarters in January, April, July, October).
//! * `timestampAdd/dateAdd(unit, n, ms)` and `timestampDiff/dateDiff(unit, t1, t2)` with Joda's
//!   rules: adding months clamps the day to the month's end; a month or year difference counts
//!   only completed months or years.
//! * `toDateTime(ms, pattern[, tz])`, `fromDateTime(text, pattern[, tz[, default]])`
//!   (see `datetime_format`), `toIso8601`, `fromIso8601`, `toTimestamp`, `fromTimestamp`.
//! * `now()` and `ago('P1D')` (an ISO-8601 duration as Java's `Duration.parse`: days, hours,
//!   minutes, seconds) read the clock and are not deterministic.
//!
//! * `dateBin(width, t, origin)` (TIMESTAMP; width as `1h15m`, days `d` to seconds `s`),
//!   `extract(field, ms)` (`YEAR`, `QUARTER`, `MONTH`, `WEEK`, `DAY`, `DOY`, `DOW`, `HOUR`,
//!   `MINUTE`, `SECOND`), `timezoneHour(zone[, ms])`, `timezoneMinute(zone[, ms])` (INT),
//!   `timeConvert(t, inputUnit, outputUnit)` (LONG; Java `TimeUnit`s, or `WEEKS`, `MONTHS`,
//!   `YEARS` since the epoch) and `sleep(ms)` (waits at most a second, not deterministic).
//!
//! The multi-value variants (`hourMV`, …) are in `datetime_mv`. Time zones are UTC or fixed
//! offsets (see `zone`); other zones are errors.

use super::coerce::{int, millis, text};
use super::datetime_format::Pattern;
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::zone::Zone;
use segments::types::time::{
    DateTime, MILLIS_PER_DAY, days_from_civil, days_in_month, is_leap_year,
};
use segments::types::{DataType, Value};

use Param::{Number as N, Text as T};

const L: Returns = Returns::Fixed(DataType::Long);
const I: Returns = Returns::Fixed(DataType::Int);
const S: Returns = Returns::Fixed(DataType::String);

/// The date/time functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("toEpochSeconds", Arity::Exact(1), &[N], L, to_epoch_seconds),
    FunctionDef::new("toEpochMinutes", Arity::Exact(1), &[N], L, to_epoch_minutes),
    FunctionDef::new("toEpochHours", Arity::Exact(1), &[N], L, to_epoch_hours),
    FunctionDef::new("toEpochDays", Arity::Exact(1), &[N], L, to_epoch_days),
    FunctionDef::new(
        "toEpochSecondsRounded",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_seconds_rounded,
    ),
    FunctionDef::new(
        "toEpochMinutesRounded",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_minutes_rounded,
    ),
    FunctionDef::new(
        "toEpochHoursRounded",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_hours_rounded,
    ),
    FunctionDef::new(
        "toEpochDaysRounded",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_days_rounded,
    ),
    FunctionDef::new(
        "toEpochSecondsBucket",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_seconds_bucket,
    ),
    FunctionDef::new(
        "toEpochMinutesBucket",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_minutes_bucket,
    ),
    FunctionDef::new(
        "toEpochHoursBucket",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_hours_bucket,
    ),
    FunctionDef::new(
        "toEpochDaysBucket",
        Arity::Exact(2),
        &[N],
        L,
        to_epoch_days_bucket,
    ),
    FunctionDef::new(
        "fromEpochSeconds",
        Arity::Exact(1),
        &[N],
        L,
        from_epoch_seconds,
    ),
    FunctionDef::new(
        "fromEpochMinutes",
        Arity::Exact(1),
        &[N],
        L,
        from_epoch_minutes,
    ),
    FunctionDef::new("fromEpochHours", Arity::Exact(1), &[N], L, from_epoch_hours),
    FunctionDef::new("fromEpochDays", Arity::Exact(1), &[N], L, from_epoch_days),
    FunctionDef::new(
        "fromEpochSecondsBucket",
        Arity::Exact(2),
        &[N],
        L,
        from_epoch_seconds_bucket,
    ),
    FunctionDef::new(
        "fromEpochMinutesBucket",
        Arity::Exact(2),
        &[N],
        L,
        from_epoch_minutes_bucket,
    ),
    FunctionDef::new(
        "fromEpochHoursBucket",
        Arity::Exact(2),
        &[N],
        L,
        from_epoch_hours_bucket,
    ),
    FunctionDef::new(
        "fromEpochDaysBucket",
        Arity::Exact(2),
        &[N],
        L,
        from_epoch_days_bucket,
    ),
    FunctionDef::new(
        "toTimestamp",
        Arity::Exact(1),
        &[N],
        Returns::Fixed(DataType::Timestamp),
        to_timestamp,
    ),
    FunctionDef::new("fromTimestamp", Arity::Exact(1), &[N], L, from_timestamp),
    FunctionDef::new(
        "toDateTime",
        Arity::Range(2, 3),
        &[N, T, T],
        S,
        to_date_time,
    ),
    FunctionDef::new(
        "fromDateTime",
        Arity::Range(2, 4),
        &[T, T, T, N],
        L,
        from_date_time,
    ),
    FunctionDef::new("toIso8601", Arity::Exact(1), &[N], S, to_iso8601),
    FunctionDef::new("fromIso8601", Arity::Exact(1), &[T], L, from_iso8601),
    FunctionDef::new("now", Arity::Exact(0), &[], L, now).nondeterministic(),
    FunctionDef::new("ago", Arity::Exact(1), &[T], L, ago).nondeterministic(),
    FunctionDef::new("year", Arity::Range(1, 2), &[N, T], I, year),
    FunctionDef::new("yearOfWeek", Arity::Range(1, 2), &[N, T], I, year_of_week)
        .with_aliases(&["yow"]),
    FunctionDef::new("quarter", Arity::Range(1, 2), &[N, T], I, quarter),
    FunctionDef::new("month", Arity::Range(1, 2), &[N, T], I, month).with_aliases(&["monthOfYear"]),
    FunctionDef::new("week", Arity::Range(1, 2), &[N, T], I, week).with_aliases(&["weekOfYear"]),
    FunctionDef::new("dayOfYear", Arity::Range(1, 2), &[N, T], I, day_of_year)
        .with_aliases(&["doy"]),
    FunctionDef::new("day", Arity::Range(1, 2), &[N, T], I, day).with_aliases(&["dayOfMonth"]),
    FunctionDef::new("dayOfWeek", Arity::Range(1, 2), &[N, T], I, day_of_week)
        .with_aliases(&["dow"]),
    FunctionDef::new("hour", Arity::Range(1, 2), &[N, T], I, hour),
    FunctionDef::new("minute", Arity::Range(1, 2), &[N, T], I, minute),
    FunctionDef::new("second", Arity::Range(1, 2), &[N, T], I, second),
    FunctionDef::new("millisecond", Arity::Range(1, 2), &[N, T], I, millisecond),
    FunctionDef::new(
        "dateTrunc",
        Arity::Range(2, 5),
        &[T, N, T, T, T],
        L,
        date_trunc,
    ),
    FunctionDef::new(
        "timestampAdd",
        Arity::Exact(3),
        &[T, N, N],
        L,
        timestamp_add,
    )
    .with_aliases(&["dateAdd"]),
    FunctionDef::new(
        "timestampDiff",
        Arity::Exact(3),
        &[T, N, N],
        L,
        timestamp_diff,
    )
    .with_aliases(&["dateDiff"]),
    FunctionDef::new(
        "dateBin",
        Arity::Exact(3),
        &[T, N, N],
        Returns::Fixed(DataType::Timestamp),
        date_bin,
    ),
    FunctionDef::new("extract", Arity::Exact(2), &[T, N], I, extract),
    FunctionDef::new(
        "timezoneHour",
        Arity::Range(1, 2),
        &[T, N],
        I,
        timezone_hour,
    ),
    FunctionDef::new(
        "timezoneMinute",
        Arity::Range(1, 2),
        &[T, N],
        I,
        timezone_minute,
    ),
    FunctionDef::new(
        "timeConvert",
        Arity::Exact(3),
        &[N, T, T],
        Returns::Infer(time_convert_type),
        time_convert,
    ),
    FunctionDef::new("sleep", Arity::Exact(1), &[N], L, sleep).nondeterministic(),
];

/// Java's `TimeUnit`, as named in `dateTrunc` and DateTimeFieldSpec formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TimeUnit {
    Nanoseconds,
    Microseconds,
    Milliseconds,
    Seconds,
    Minutes,
    Hours,
    Days,
}

impl TimeUnit {
    /// Parses `MILLISECONDS`, `days`, … (case-insensitive).
    pub(crate) fn parse(name: &str) -> Option<TimeUnit> {
        Some(match name.trim().to_ascii_uppercase().as_str() {
            "NANOSECONDS" => TimeUnit::Nanoseconds,
            "MICROSECONDS" => TimeUnit::Microseconds,
            "MILLISECONDS" => TimeUnit::Milliseconds,
            "SECONDS" => TimeUnit::Seconds,
            "MINUTES" => TimeUnit::Minutes,
            "HOURS" => TimeUnit::Hours,
            "DAYS" => TimeUnit::Days,
            _ => return None,
        })
    }

    /// Units per millisecond (finer units) or milliseconds per unit (coarser), and which.
    fn scale(self) -> (i64, bool) {
        match self {
            TimeUnit::Nanoseconds => (1_000_000, true),
            TimeUnit::Microseconds => (1_000, true),
            TimeUnit::Milliseconds => (1, false),
            TimeUnit::Seconds => (1_000, false),
            TimeUnit::Minutes => (60_000, false),
            TimeUnit::Hours => (3_600_000, false),
            TimeUnit::Days => (MILLIS_PER_DAY, false),
        }
    }

    /// Nanoseconds per unit.
    fn nanos(self) -> i64 {
        match self {
            TimeUnit::Nanoseconds => 1,
            TimeUnit::Microseconds => 1_000,
            TimeUnit::Milliseconds => 1_000_000,
            TimeUnit::Seconds => 1_000_000_000,
            TimeUnit::Minutes => 60_000_000_000,
            TimeUnit::Hours => 3_600_000_000_000,
            TimeUnit::Days => 86_400_000_000_000,
        }
    }

    /// `self.convert(value, from)`: Java's `TimeUnit.convert` (truncating toward zero,
    /// saturating).
    pub(crate) fn convert(self, value: i64, from: TimeUnit) -> i64 {
        let (from, to) = (from.nanos(), self.nanos());
        if from >= to {
            value.saturating_mul(from / to)
        } else {
            value / (to / from)
        }
    }

    /// `TimeUnit.toMillis(value)`.
    pub(crate) fn to_millis(self, value: i64) -> i64 {
        match self.scale() {
            (factor, true) => value / factor,
            (factor, false) => value.saturating_mul(factor),
        }
    }

    /// `TimeUnit.convert(millis, MILLISECONDS)`.
    pub(crate) fn convert_millis(self, millis: i64) -> i64 {
        match self.scale() {
            (factor, true) => millis.saturating_mul(factor),
            (factor, false) => millis / factor,
        }
    }
}

/// `dateTrunc` / `timestampAdd` / `timestampDiff` units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CalendarUnit {
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
}

impl CalendarUnit {
    fn parse(function: &'static str, name: &str) -> Result<CalendarUnit, FunctionError> {
        let lower = name.trim().to_ascii_lowercase();
        let singular = lower.strip_suffix('s').unwrap_or(&lower);
        Ok(match singular {
            "millisecond" => CalendarUnit::Millisecond,
            "second" => CalendarUnit::Second,
            "minute" => CalendarUnit::Minute,
            "hour" => CalendarUnit::Hour,
            "day" => CalendarUnit::Day,
            "week" => CalendarUnit::Week,
            "month" => CalendarUnit::Month,
            "quarter" => CalendarUnit::Quarter,
            "year" => CalendarUnit::Year,
            _ => {
                return Err(FunctionError::invalid(
                    function,
                    name,
                    "not a valid timestamp field",
                ));
            }
        })
    }

    /// Milliseconds of the fixed-length units.
    fn fixed_millis(self) -> Option<i64> {
        Some(match self {
            CalendarUnit::Millisecond => 1,
            CalendarUnit::Second => 1_000,
            CalendarUnit::Minute => 60_000,
            CalendarUnit::Hour => 3_600_000,
            CalendarUnit::Day => MILLIS_PER_DAY,
            CalendarUnit::Week => 7 * MILLIS_PER_DAY,
            CalendarUnit::Month | CalendarUnit::Quarter | CalendarUnit::Year => return None,
        })
    }
}

fn long(v: i64) -> Result<Value, FunctionError> {
    Ok(Value::Long(v))
}

/// Declares kernels `fn name(args) -> Result<Value, FunctionError>` from bodies over `args`.
macro_rules! kernels {
    ($($name:ident($args:ident) = $body:expr;)*) => {$(
        fn $name($args: &[Value]) -> Result<Value, FunctionError> {
            $body
        }
    )*};
}

fn divisor(function: &'static str, v: &Value) -> Result<i64, FunctionError> {
    match int(function, v)? {
        0 => Err(FunctionError::DivisionByZero { function }),
        n => Ok(n),
    }
}

fn to_epoch(f: &'static str, args: &[Value], unit: i64) -> Result<Value, FunctionError> {
    long(millis(f, &args[0])? / unit)
}

fn to_epoch_rounded(f: &'static str, args: &[Value], unit: i64) -> Result<Value, FunctionError> {
    let n = divisor(f, &args[1])?;
    long(
        (millis(f, &args[0])? / unit)
            .wrapping_div(n)
            .wrapping_mul(n),
    )
}

fn to_epoch_bucket(f: &'static str, args: &[Value], unit: i64) -> Result<Value, FunctionError> {
    let n = divisor(f, &args[1])?;
    long((millis(f, &args[0])? / unit).wrapping_div(n))
}

fn from_epoch(f: &'static str, args: &[Value], unit: i64) -> Result<Value, FunctionError> {
    let bucket = match args.get(1) {
        Some(b) => int(f, b)?,
        None => 1,
    };
    long(int(f, &args[0])?.wrapping_mul(bucket).saturating_mul(unit))
}

const SECOND: i64 = 1_000;
const MINUTE: i64 = 60_000;
const HOUR: i64 = 3_600_000;

kernels! {
    to_epoch_seconds(a) = to_epoch("toEpochSeconds", a, SECOND);
    to_epoch_minutes(a) = to_epoch("toEpochMinutes", a, MINUTE);
    to_epoch_hours(a) = to_epoch("toEpochHours", a, HOUR);
    to_epoch_days(a) = to_epoch("toEpochDays", a, MILLIS_PER_DAY);
    to_epoch_seconds_rounded(a) = to_epoch_rounded("toEpochSecondsRounded", a, SECOND);
    to_epoch_minutes_rounded(a) = to_epoch_rounded("toEpochMinutesRounded", a, MINUTE);
    to_epoch_hours_rounded(a) = to_epoch_rounded("toEpochHoursRounded", a, HOUR);
    to_epoch_days_rounded(a) = to_epoch_rounded("toEpochDaysRounded", a, MILLIS_PER_DAY);
    to_epoch_seconds_bucket(a) = to_epoch_bucket("toEpochSecondsBucket", a, SECOND);
    to_epoch_minutes_bucket(a) = to_epoch_bucket("toEpochMinutesBucket", a, MINUTE);
    to_epoch_hours_bucket(a) = to_epoch_bucket("toEpochHoursBucket", a, HOUR);
    to_epoch_days_bucket(a) = to_epoch_bucket("toEpochDaysBucket", a, MILLIS_PER_DAY);
    from_epoch_seconds(a) = from_epoch("fromEpochSeconds", a, SECOND);
    from_epoch_minutes(a) = from_epoch("fromEpochMinutes", a, MINUTE);
    from_epoch_hours(a) = from_epoch("fromEpochHours", a, HOUR);
    from_epoch_days(a) = from_epoch("fromEpochDays", a, MILLIS_PER_DAY);
    from_epoch_seconds_bucket(a) = from_epoch("fromEpochSecondsBucket", a, SECOND);
    from_epoch_minutes_bucket(a) = from_epoch("fromEpochMinutesBucket", a, MINUTE);
    from_epoch_hours_bucket(a) = from_epoch("fromEpochHoursBucket", a, HOUR);
    from_epoch_days_bucket(a) = from_epoch("fromEpochDaysBucket", a, MILLIS_PER_DAY);
    to_timestamp(a) = Ok(Value::Timestamp(millis("toTimestamp", &a[0])?));
    from_timestamp(a) = long(millis("fromTimestamp", &a[0])?);
    year(a) = field("year", a, |t| t.year);
    year_of_week(a) = field("yearOfWeek", a, |t| t.iso_week().0);
    quarter(a) = field("quarter", a, |t| (t.month as i64 - 1) / 3 + 1);
    month(a) = field("month", a, |t| t.month as i64);
    week(a) = field("week", a, |t| t.iso_week().1 as i64);
    day_of_year(a) = field("dayOfYear", a, |t| t.day_of_year() as i64);
    day(a) = field("day", a, |t| t.day as i64);
    day_of_week(a) = field("dayOfWeek", a, |t| t.day_of_week() as i64);
    hour(a) = field("hour", a, |t| t.hour as i64);
    minute(a) = field("minute", a, |t| t.minute as i64);
    second(a) = field("second", a, |t| t.second as i64);
    millisecond(a) = field("millisecond", a, |t| t.millis as i64);
}

/// A calendar field of `ms` in the zone of the optional second argument.
fn field(
    f: &'static str,
    args: &[Value],
    get: fn(&DateTime) -> i64,
) -> Result<Value, FunctionError> {
    let ms = millis(f, &args[0])?;
    let offset = zone_arg(args.get(1))?.offset_at(ms);
    let value = get(&DateTime::from_millis(ms.saturating_add(offset)));
    Ok(Value::Int(i32::try_from(value).unwrap_or(if value < 0 {
        i32::MIN
    } else {
        i32::MAX
    })))
}

fn pattern(f: &'static str, v: &Value) -> Result<Pattern, FunctionError> {
    let p = text(v);
    Pattern::compile(&p).map_err(|reason| FunctionError::invalid(f, p, reason))
}

fn to_date_time(args: &[Value]) -> Result<Value, FunctionError> {
    let ms = millis("toDateTime", &args[0])?;
    let p = pattern("toDateTime", &args[1])?;
    Ok(Value::String(p.format(ms, zone_arg(args.get(2))?)))
}

fn from_date_time(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "fromDateTime";
    let input = text(&args[0]);
    let p = pattern(F, &args[1])?;
    match (p.parse(input.trim(), zone_arg(args.get(2))?), args.get(3)) {
        (Ok(ms), _) => long(ms),
        (Err(_), Some(default)) => long(int(F, default)?),
        (Err(reason), None) => Err(FunctionError::invalid(F, input, reason)),
    }
}

/// `Instant.toString()`: the fraction of a second only when there is one.
fn to_iso8601(args: &[Value]) -> Result<Value, FunctionError> {
    let ms = millis("toIso8601", &args[0])?;
    let p = Pattern::compile(if ms.rem_euclid(SECOND) == 0 {
        "yyyy-MM-dd'T'HH:mm:ss'Z'"
    } else {
        "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
    })
    .map_err(|r| FunctionError::invalid("toIso8601", "", r))?;
    Ok(Value::String(p.format(ms, Zone::UTC)))
}

fn from_iso8601(args: &[Value]) -> Result<Value, FunctionError> {
    long(millis("fromIso8601", &args[0])?)
}

fn clock_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn now(_: &[Value]) -> Result<Value, FunctionError> {
    long(clock_millis())
}

fn ago(args: &[Value]) -> Result<Value, FunctionError> {
    let period = text(&args[0]);
    let d = parse_duration(&period).ok_or_else(|| {
        FunctionError::invalid(
            "ago",
            &period,
            "not an ISO-8601 duration such as 'P1D' or 'PT1H'",
        )
    })?;
    clock_millis()
        .checked_sub(d)
        .map(Value::Long)
        .ok_or_else(|| FunctionError::Overflow {
            function: "ago",
            value: period.to_string(),
        })
}

/// Java's `Duration.parse` (`[-]P[nD][T[nH][nM][n[.f]S]]`, signed parts) to milliseconds.
pub(crate) fn parse_duration(text: &str) -> Option<i64> {
    let upper = text.trim().to_ascii_uppercase();
    let (negate, rest) = match upper.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, upper.strip_prefix('+').unwrap_or(&upper)),
    };
    let rest = rest.strip_prefix('P')?;
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    let mut total: i64 = 0;
    let mut parts = 0;
    let mut add = |amount: i64| -> Option<()> {
        total = total.checked_add(amount)?;
        parts += 1;
        Some(())
    };
    if !date.is_empty() {
        let days = date.strip_suffix('D')?.parse::<i64>().ok()?;
        add(days.checked_mul(MILLIS_PER_DAY)?)?;
    }
    if let Some(time) = time {
        if time.is_empty() {
            return None;
        }
        let mut rest = time;
        for (suffix, unit) in [('H', HOUR), ('M', MINUTE)] {
            if let Some(i) = rest.find(suffix) {
                add(rest[..i].parse::<i64>().ok()?.checked_mul(unit)?)?;
                rest = &rest[i + 1..];
            }
        }
        if let Some(seconds) = rest.strip_suffix('S') {
            let (whole, frac) = seconds.split_once(['.', ',']).unwrap_or((seconds, ""));
            if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let negative = whole.starts_with('-');
            let mut ms = whole.parse::<i64>().ok()?.checked_mul(SECOND)?;
            let frac_ms: i64 = format!("{frac:0<3}")[..3].parse().ok()?;
            ms = if negative {
                ms.checked_sub(frac_ms)?
            } else {
                ms.checked_add(frac_ms)?
            };
            add(ms)?;
        } else if !rest.is_empty() {
            return None;
        }
    }
    (parts > 0).then_some(if negate { total.checked_neg()? } else { total })
}

/// Joda's `PeriodFormatterBuilder` with `[n]d[n]h[n]m[n]s` (each part optional, in that order,
/// suffixes in any case, values within INT) to whole seconds in milliseconds, as Pinot's
/// `TimeUtils.convertPeriodToMillis`.
fn parse_period(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    let mut at = 0;
    let mut seconds: i64 = 0;
    for (suffix, unit) in [(b'd', 86_400), (b'h', 3_600), (b'm', 60), (b's', 1)] {
        let sign = usize::from(matches!(bytes.get(at), Some(b'-' | b'+')));
        let digits = bytes[(at + sign).min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let end = at + sign + digits;
        if digits == 0
            || !bytes
                .get(end)
                .is_some_and(|b| b.eq_ignore_ascii_case(&suffix))
        {
            continue;
        }
        let value: i32 = text.get(at..end)?.parse().ok()?;
        seconds = seconds.checked_add(i64::from(value).checked_mul(unit)?)?;
        at = end + 1;
    }
    (at == bytes.len() && at > 0).then_some(seconds.checked_mul(SECOND)?)
}

/// `dateBin(width, t, origin)`: the start of `t`'s bin of `width` counted from `origin` (the
/// bin count truncates toward zero, so times before the origin round up toward it, as Pinot).
fn date_bin(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "dateBin";
    let spec = text(&args[0]);
    let width = parse_period(&spec).filter(|w| *w != 0).ok_or_else(|| {
        FunctionError::invalid(
            F,
            &spec,
            "not a non-zero period such as '15m' or '1h30m' (days d, hours h, minutes m, seconds s)",
        )
    })?;
    let (source, origin) = (millis(F, &args[1])?, millis(F, &args[2])?);
    source
        .checked_sub(origin)
        .and_then(|offset| (offset / width).checked_mul(width))
        .and_then(|d| origin.checked_add(d))
        .map(Value::Timestamp)
        .ok_or_else(|| FunctionError::Overflow {
            function: F,
            value: format!("{source} from {origin}"),
        })
}

/// `extract(field, ms)`: Pinot's `DateTimeUtils.extract` on UTC, fields named exactly as its
/// `ExtractFieldType` (the parser upper-cases `EXTRACT(year FROM t)`).
fn extract(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "extract";
    let name = text(&args[0]);
    let get: fn(&DateTime) -> i64 = match name.as_ref() {
        "YEAR" => |t| t.year,
        "QUARTER" => |t| (t.month as i64 - 1) / 3 + 1,
        "MONTH" => |t| t.month as i64,
        "WEEK" => |t| t.iso_week().1 as i64,
        "DAY" => |t| t.day as i64,
        "DOY" => |t| t.day_of_year() as i64,
        "DOW" => |t| t.day_of_week() as i64,
        "HOUR" => |t| t.hour as i64,
        "MINUTE" => |t| t.minute as i64,
        "SECOND" => |t| t.second as i64,
        _ => {
            return Err(FunctionError::invalid(
                F,
                name,
                "not one of YEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, HOUR, MINUTE, SECOND",
            ));
        }
    };
    field(F, &args[1..], get)
}

/// The zone's offset at the optional instant (the epoch without one, as Pinot's).
fn zone_offset(f: &'static str, args: &[Value]) -> Result<i64, FunctionError> {
    let at = match args.get(1) {
        Some(ms) => millis(f, ms)?,
        None => 0,
    };
    Ok(Zone::parse(&text(&args[0]))?.offset_at(at))
}

/// The zone of an optional zone argument (UTC without one).
fn zone_arg(zone: Option<&Value>) -> Result<Zone, FunctionError> {
    zone.map_or(Ok(Zone::UTC), |z| Zone::parse(&text(z)))
}

/// `timezoneHour(zone[, ms])`: the whole hours of the zone's offset (`-9` for `-09:30`).
fn timezone_hour(args: &[Value]) -> Result<Value, FunctionError> {
    let offset = zone_offset("timezoneHour", args)?;
    Ok(Value::Int((offset / HOUR) as i32))
}

/// `timezoneMinute(zone[, ms])`: the minutes of the offset past its hours (`-30` for `-09:30`).
fn timezone_minute(args: &[Value]) -> Result<Value, FunctionError> {
    let offset = zone_offset("timezoneMinute", args)?;
    Ok(Value::Int((offset / MINUTE % 60) as i32))
}

/// `timeConvert` output units: Java's `TimeUnit`s and Pinot's calendar units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConvertUnit {
    Fixed(TimeUnit),
    Weeks,
    Months,
    Years,
}

impl ConvertUnit {
    fn parse(name: &str) -> Option<ConvertUnit> {
        Some(match name.trim().to_ascii_uppercase().as_str() {
            "WEEKS" => ConvertUnit::Weeks,
            "MONTHS" => ConvertUnit::Months,
            "YEARS" => ConvertUnit::Years,
            other => ConvertUnit::Fixed(TimeUnit::parse(other)?),
        })
    }
}

fn convert_units(
    input: &str,
    output: &str,
) -> Result<(TimeUnit, ConvertUnit), (String, &'static str)> {
    let from = TimeUnit::parse(input).ok_or((input.to_string(), "not a time unit"))?;
    let to = ConvertUnit::parse(output).ok_or((
        output.to_string(),
        "not a time unit (NANOSECONDS … DAYS, WEEKS, MONTHS, YEARS)",
    ))?;
    Ok((from, to))
}

/// Checks literal units while binding; the result is a LONG.
fn time_convert_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    const F: &str = "timeConvert";
    let input = args[1].literal_text();
    let output = args[2].literal_text();
    if let Some(input) = &input
        && TimeUnit::parse(input).is_none()
    {
        return Err(FunctionError::invalid_literal(F, input, "not a time unit"));
    }
    if let Some(output) = &output
        && ConvertUnit::parse(output).is_none()
    {
        return Err(FunctionError::invalid_literal(
            F,
            output,
            "not a time unit (NANOSECONDS … DAYS, WEEKS, MONTHS, YEARS)",
        ));
    }
    Ok(DataType::Long)
}

/// `timeConvert(t, inputUnit, outputUnit)` (`TimeConversionTransformFunction`): Java's
/// `TimeUnit.convert`, or whole weeks, months or years since the epoch (Joda's differences,
/// which must fit an INT).
fn time_convert(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "timeConvert";
    let value = int(F, &args[0])?;
    let (from, to) = convert_units(&text(&args[1]), &text(&args[2]))
        .map_err(|(unit, reason)| FunctionError::invalid(F, unit, reason))?;
    let ms = TimeUnit::Milliseconds.convert(value, from);
    let calendar = match to {
        ConvertUnit::Fixed(unit) => return long(unit.convert(value, from)),
        ConvertUnit::Weeks => ms / (7 * MILLIS_PER_DAY),
        ConvertUnit::Months => month_difference(ms, 0),
        ConvertUnit::Years => year_difference(ms, 0),
    };
    i32::try_from(calendar)
        .map(|v| Value::Long(v.into()))
        .map_err(|_| FunctionError::Overflow {
            function: F,
            value: value.to_string(),
        })
}

/// Longest `sleep`, so a query cannot stall a worker for long.
const MAX_SLEEP_MILLIS: i64 = 1_000;

/// `sleep(ms)`: waits `ms` milliseconds (at most [`MAX_SLEEP_MILLIS`]) and returns `ms`.
fn sleep(args: &[Value]) -> Result<Value, FunctionError> {
    let ms = int("sleep", &args[0])?;
    if ms > 0 {
        std::thread::sleep(std::time::Duration::from_millis(
            ms.min(MAX_SLEEP_MILLIS) as u64
        ));
    }
    long(ms)
}

/// Floors local epoch millis to the start of a calendar unit.
fn floor_local(local: i64, unit: CalendarUnit) -> i64 {
    let floor = |size: i64| local.div_euclid(size).saturating_mul(size);
    if let Some(size) = unit.fixed_millis().filter(|_| unit != CalendarUnit::Week) {
        return floor(size);
    }
    let day_start = floor(MILLIS_PER_DAY);
    let t = DateTime::from_millis(day_start);
    let days = |y, m, d| days_from_civil(y, m, d).saturating_mul(MILLIS_PER_DAY);
    match unit {
        CalendarUnit::Week => {
            day_start.saturating_sub((t.day_of_week() as i64 - 1) * MILLIS_PER_DAY)
        }
        CalendarUnit::Month => days(t.year, t.month, 1),
        CalendarUnit::Quarter => days(t.year, (t.month - 1) / 3 * 3 + 1, 1),
        _ => days(t.year, 1, 1),
    }
}

fn date_trunc(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "dateTrunc";
    let unit = CalendarUnit::parse(F, &text(&args[0]))?;
    let time_unit = |i: usize| -> Result<TimeUnit, FunctionError> {
        match args.get(i) {
            Some(v) => {
                let name = text(v);
                TimeUnit::parse(&name)
                    .ok_or_else(|| FunctionError::invalid(F, name, "not a time unit"))
            }
            None => Ok(TimeUnit::Milliseconds),
        }
    };
    let input_unit = time_unit(2)?;
    let output_unit = if args.len() == 5 {
        time_unit(4)?
    } else {
        input_unit
    };
    let zone = zone_arg(args.get(3))?;
    let ms = input_unit.to_millis(int(F, &args[1])?);
    let local = ms.saturating_add(zone.offset_at(ms));
    let floored = floor_local(local, unit);
    let truncated = floored.saturating_sub(zone.offset_of_local(floored));
    long(output_unit.convert_millis(truncated))
}

/// Adds months keeping the time of day and clamping the day to the new month's length.
fn add_months(ms: i64, months: i64) -> Option<i64> {
    let t = DateTime::from_millis(ms);
    let total = (t.year.checked_mul(12)?)
        .checked_add(t.month as i64 - 1)?
        .checked_add(months)?;
    let (year, month) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
    let day = t.day.min(days_in_month(year, month));
    DateTime {
        year,
        month,
        day,
        ..t
    }
    .checked_to_millis()
}

fn timestamp_add(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "timestampAdd";
    let unit = CalendarUnit::parse(F, &text(&args[0]))?;
    let n = int(F, &args[1])?;
    let ms = millis(F, &args[2])?;
    let result = match unit {
        CalendarUnit::Month => n.checked_mul(1).and_then(|m| add_months(ms, m)),
        CalendarUnit::Quarter => n.checked_mul(3).and_then(|m| add_months(ms, m)),
        CalendarUnit::Year => n.checked_mul(12).and_then(|m| add_months(ms, m)),
        fixed => fixed
            .fixed_millis()
            .and_then(|size| n.checked_mul(size))
            .and_then(|d| ms.checked_add(d)),
    };
    result
        .map(Value::Long)
        .ok_or_else(|| FunctionError::Overflow {
            function: F,
            value: format!("{ms} + {n} {unit:?}"),
        })
}

fn start_of_month(t: &DateTime) -> i64 {
    days_from_civil(t.year, t.month, 1).saturating_mul(MILLIS_PER_DAY)
}

/// Joda's `BasicMonthOfYearDateTimeField.getDifferenceAsLong`: completed months.
pub(crate) fn month_difference(minuend: i64, subtrahend: i64) -> i64 {
    if minuend < subtrahend {
        return -month_difference(subtrahend, minuend);
    }
    let (m, s) = (
        DateTime::from_millis(minuend),
        DateTime::from_millis(subtrahend),
    );
    let mut difference = (m.year - s.year) * 12 + m.month as i64 - s.month as i64;
    let minuend_rem = minuend.saturating_sub(start_of_month(&m));
    let mut subtrahend_rem = subtrahend.saturating_sub(start_of_month(&s));
    if m.day == days_in_month(m.year, m.month) && s.day > m.day {
        subtrahend_rem -= (s.day - m.day) as i64 * MILLIS_PER_DAY;
    }
    if minuend_rem < subtrahend_rem {
        difference -= 1;
    }
    difference
}

/// Joda's `BasicYearDateTimeField.getDifferenceAsLong`: completed years, Feb 29 balanced.
pub(crate) fn year_difference(minuend: i64, subtrahend: i64) -> i64 {
    if minuend < subtrahend {
        return -year_difference(subtrahend, minuend);
    }
    let (m, s) = (
        DateTime::from_millis(minuend),
        DateTime::from_millis(subtrahend),
    );
    let year_start = |y: i64| days_from_civil(y, 1, 1).saturating_mul(MILLIS_PER_DAY);
    let mut minuend_rem = minuend.saturating_sub(year_start(m.year));
    let mut subtrahend_rem = subtrahend.saturating_sub(year_start(s.year));
    const FEB_29: i64 = (31 + 29 - 1) * MILLIS_PER_DAY;
    if subtrahend_rem >= FEB_29 && is_leap_year(s.year) {
        if !is_leap_year(m.year) {
            subtrahend_rem -= MILLIS_PER_DAY;
        }
    } else if minuend_rem >= FEB_29 && is_leap_year(m.year) && !is_leap_year(s.year) {
        minuend_rem -= MILLIS_PER_DAY;
    }
    let mut difference = m.year - s.year;
    if minuend_rem < subtrahend_rem {
        difference -= 1;
    }
    difference
}

/// `timestampDiff(unit, t1, t2)`: the number of whole units from `t1` to `t2`.
fn timestamp_diff(args: &[Value]) -> Result<Value, FunctionError> {
    const F: &str = "timestampDiff";
    let unit = CalendarUnit::parse(F, &text(&args[0]))?;
    let (t1, t2) = (millis(F, &args[1])?, millis(F, &args[2])?);
    long(match unit {
        CalendarUnit::Month => month_difference(t2, t1),
        CalendarUnit::Quarter => month_difference(t2, t1) / 3,
        CalendarUnit::Year => year_difference(t2, t1),
        fixed => {
            let size = fixed.fixed_millis().unwrap_or(1);
            t2.checked_sub(t1).ok_or_else(|| FunctionError::Overflow {
                function: F,
                value: format!("{t2} - {t1}"),
            })? / size
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Value {
        lookup(name).unwrap().eval(args).unwrap()
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    /// 2021-12-14T11:23:01.746Z (a Tuesday), the Pinot docs' dateTrunc example.
    const T: i64 = 1_639_480_981_746;

    #[test]
    fn epoch_conversions() {
        assert_eq!(
            call("toEpochSeconds", &[Value::Long(1_613_472_303_000)]),
            Value::Long(1_613_472_303)
        );
        assert_eq!(
            call("toEpochMinutes", &[Value::Long(1_613_472_303_000)]),
            Value::Long(26_891_205)
        );
        assert_eq!(
            call("toEpochHours", &[Value::Long(1_613_472_303_000)]),
            Value::Long(448_186)
        );
        assert_eq!(
            call("toEpochDays", &[Value::Long(1_613_472_303_000)]),
            Value::Long(18_674)
        );
        assert_eq!(call("toEpochSeconds", &[Value::Long(-1)]), Value::Long(0));
        assert_eq!(
            call(
                "toEpochMinutesRounded",
                &[Value::Long(1_613_472_303_000), Value::Int(10)]
            ),
            Value::Long(26_891_200)
        );
        assert_eq!(
            call(
                "toEpochMinutesBucket",
                &[Value::Long(1_613_472_303_000), Value::Int(10)]
            ),
            Value::Long(2_689_120)
        );
        assert!(
            lookup("toEpochDaysBucket")
                .unwrap()
                .eval(&[Value::Long(1), Value::Int(0)])
                .is_err()
        );
        assert_eq!(
            call("fromEpochDays", &[Value::Int(18_674)]),
            Value::Long(1_613_433_600_000)
        );
        assert_eq!(
            call("fromEpochSeconds", &[Value::Long(1_613_472_303)]),
            Value::Long(1_613_472_303_000)
        );
        assert_eq!(
            call(
                "fromEpochMinutesBucket",
                &[Value::Long(2_689_120), Value::Int(10)]
            ),
            Value::Long(1_613_472_000_000)
        );
        assert_eq!(
            call("fromEpochDays", &[Value::Long(i64::MAX)]),
            Value::Long(i64::MAX)
        );
        assert_eq!(
            call("toEpochSeconds", &[Value::Timestamp(5_000)]),
            Value::Long(5)
        );
        assert_eq!(call("toTimestamp", &[Value::Long(5)]), Value::Timestamp(5));
        assert_eq!(
            call("fromTimestamp", &[Value::Timestamp(5)]),
            Value::Long(5)
        );
    }

    #[test]
    fn fields() {
        assert_eq!(call("year", &[Value::Long(T)]), Value::Int(2021));
        assert_eq!(call("quarter", &[Value::Long(T)]), Value::Int(4));
        assert_eq!(call("monthOfYear", &[Value::Long(T)]), Value::Int(12));
        assert_eq!(call("weekOfYear", &[Value::Long(T)]), Value::Int(50));
        assert_eq!(call("doy", &[Value::Long(T)]), Value::Int(348));
        assert_eq!(call("dayOfMonth", &[Value::Long(T)]), Value::Int(14));
        assert_eq!(call("dow", &[Value::Long(T)]), Value::Int(2));
        assert_eq!(call("hour", &[Value::Long(T)]), Value::Int(11));
        assert_eq!(call("minute", &[Value::Long(T)]), Value::Int(23));
        assert_eq!(call("second", &[Value::Long(T)]), Value::Int(1));
        assert_eq!(call("millisecond", &[Value::Long(T)]), Value::Int(746));
        assert_eq!(call("hour", &[Value::Long(T), s("+05:30")]), Value::Int(16));
        assert_eq!(
            call("yow", &[Value::Long(1_609_459_200_000)]),
            Value::Int(2020)
        );
        // 2021-12-14 11:23 UTC is 06:23 in New York (EST) and 16:53 in Kolkata.
        assert_eq!(
            call("hour", &[Value::Long(T), s("America/New_York")]),
            Value::Int(6)
        );
        assert_eq!(
            call("minute", &[Value::Long(T), s("Asia/Kolkata")]),
            Value::Int(53)
        );
    }

    #[test]
    fn date_trunc_matches_pinot_docs() {
        let trunc = |args: &[Value]| call("dateTrunc", args);
        assert_eq!(
            trunc(&[s("week"), Value::Long(T)]),
            Value::Long(1_639_353_600_000)
        );
        assert_eq!(
            trunc(&[s("week"), Value::Long(T), s("MILLISECONDS")]),
            Value::Long(1_639_353_600_000)
        );
        assert_eq!(
            trunc(&[
                s("week"),
                Value::Long(T),
                s("MILLISECONDS"),
                s("UTC"),
                s("SECONDS")
            ]),
            Value::Long(1_639_353_600)
        );
        // CET in December is UTC+1.
        assert_eq!(
            trunc(&[
                s("week"),
                Value::Long(T),
                s("MILLISECONDS"),
                s("+01:00"),
                s("SECONDS")
            ]),
            Value::Long(1_639_350_000)
        );
        // Conformance suite: dateTrunc('DAY', timestampCol).
        assert_eq!(
            trunc(&[s("DAY"), Value::Timestamp(915_818_746_000)]),
            Value::Long(915_753_600_000)
        );
        assert_eq!(
            trunc(&[s("DAY"), Value::Timestamp(-1_000)]),
            Value::Long(-86_400_000)
        );
        assert_eq!(trunc(&[s("millisecond"), Value::Long(T)]), Value::Long(T));
        assert_eq!(
            trunc(&[s("second"), Value::Long(T)]),
            Value::Long(1_639_480_981_000)
        );
        assert_eq!(
            trunc(&[s("minute"), Value::Long(T)]),
            Value::Long(1_639_480_980_000)
        );
        assert_eq!(
            trunc(&[s("hour"), Value::Long(T)]),
            Value::Long(1_639_479_600_000)
        );
        assert_eq!(
            trunc(&[s("month"), Value::Long(T)]),
            Value::Long(1_638_316_800_000)
        );
        assert_eq!(
            trunc(&[s("quarter"), Value::Long(T)]),
            Value::Long(1_633_046_400_000)
        );
        assert_eq!(
            trunc(&[s("year"), Value::Long(T)]),
            Value::Long(1_609_459_200_000)
        );
        assert_eq!(
            trunc(&[s("day"), Value::Long(1_639_480_981), s("SECONDS")]),
            Value::Long(1_639_440_000)
        );
        assert!(
            lookup("dateTrunc")
                .unwrap()
                .eval(&[s("fortnight"), Value::Long(T)])
                .is_err()
        );
        assert!(
            lookup("dateTrunc")
                .unwrap()
                .eval(&[s("day"), Value::Long(T), s("EONS")])
                .is_err()
        );
    }

    #[test]
    fn timestamp_arithmetic() {
        let add = |unit: &str, n: i64, ms: i64| {
            call("timestampAdd", &[s(unit), Value::Long(n), Value::Long(ms)])
        };
        let jan31 = 1_612_051_200_000; // 2021-01-31
        assert_eq!(add("day", 10, 0), Value::Long(864_000_000));
        assert_eq!(add("month", 1, jan31), Value::Long(1_614_470_400_000)); // 2021-02-28
        assert_eq!(add("quarter", 1, jan31), Value::Long(1_619_740_800_000)); // 2021-04-30
        assert_eq!(
            add("year", -1, 1_582_934_400_000),
            Value::Long(1_551_312_000_000)
        ); // 2020-02-29 → 2019-02-28
        assert_eq!(add("week", 1, 0), Value::Long(604_800_000));
        assert!(
            lookup("dateAdd")
                .unwrap()
                .eval(&[s("day"), Value::Long(i64::MAX), Value::Long(0)])
                .is_err()
        );
        let diff = |unit: &str, a: i64, b: i64| {
            call("dateDiff", &[s(unit), Value::Long(a), Value::Long(b)])
        };
        assert_eq!(diff("day", 0, 864_000_000), Value::Long(10));
        assert_eq!(diff("day", 864_000_000, 0), Value::Long(-10));
        assert_eq!(diff("hour", 0, 5_399_999), Value::Long(1));
        assert_eq!(diff("month", jan31, 1_614_470_400_000), Value::Long(1)); // Jan 31 → Feb 28
        // Jan 30 → Feb 28: adding a month to Jan 30 clamps to Feb 28, so a month has passed.
        assert_eq!(
            diff("month", 1_611_964_800_000, 1_614_470_400_000),
            Value::Long(1)
        );
        assert_eq!(
            diff("month", 1_611_878_400_000, 1_614_384_000_000),
            Value::Long(0)
        ); // Jan 29 → Feb 27
        assert_eq!(diff("month", 1_614_470_400_000, jan31), Value::Long(-1));
        assert_eq!(diff("quarter", 0, 1_639_480_981_746), Value::Long(207));
        // 2020-02-29 plus a year is 2021-02-28 (Joda balances Feb 29), so a year has passed then.
        assert_eq!(
            diff("year", 1_582_934_400_000, 1_614_470_400_000),
            Value::Long(1)
        );
        assert_eq!(
            diff("year", 1_582_934_400_000, 1_614_384_000_000),
            Value::Long(0)
        ); // → 2021-02-27
        assert_eq!(
            diff("year", 1_614_470_400_000, 1_582_934_400_000),
            Value::Long(-1)
        );
        assert_eq!(diff("year", 0, T), Value::Long(51));
    }

    #[test]
    fn patterns_and_clock() {
        assert_eq!(
            call(
                "toDateTime",
                &[Value::Long(1_639_137_263_000), s("yyyy-MM-dd")]
            ),
            s("2021-12-10")
        );
        assert_eq!(
            call(
                "toDateTime",
                &[
                    Value::Long(1_639_137_263_000),
                    s("yyyy-MM-dd HH:mm:ss Z"),
                    s("+01:00")
                ]
            ),
            s("2021-12-10 12:54:23 +0100")
        );
        // Named zones at the instant's offset: CET in winter, CEST in summer.
        assert_eq!(
            call(
                "toDateTime",
                &[Value::Long(0), s("yyyy-MM-dd HH:mm Z"), s("CET")]
            ),
            s("1970-01-01 01:00 +0100")
        );
        assert_eq!(
            call(
                "toDateTime",
                &[
                    Value::Long(1_625_140_800_000),
                    s("HH:mm"),
                    s("Europe/Berlin")
                ]
            ),
            s("14:00")
        );
        assert_eq!(
            call(
                "fromDateTime",
                &[
                    s("2021-07-01 14:00"),
                    s("yyyy-MM-dd HH:mm"),
                    s("Europe/Berlin")
                ]
            ),
            Value::Long(1_625_140_800_000)
        );
        assert_eq!(
            call(
                "dateTrunc",
                &[
                    s("DAY"),
                    Value::Long(1_625_140_800_000),
                    s("MILLISECONDS"),
                    s("America/Los_Angeles")
                ]
            ),
            Value::Long(1_625_122_800_000)
        );
        assert_eq!(
            call("fromDateTime", &[s("2019-08-07"), s("yyyy-MM-dd")]),
            Value::Long(1_565_136_000_000)
        );
        assert_eq!(
            call(
                "fromDateTime",
                &[s("2019-08-07 05:30"), s("yyyy-MM-dd HH:mm"), s("+05:30")]
            ),
            Value::Long(1_565_136_000_000)
        );
        assert_eq!(
            call(
                "fromDateTime",
                &[s("garbage"), s("yyyy-MM-dd"), s("UTC"), Value::Long(-1)]
            ),
            Value::Long(-1)
        );
        assert!(
            lookup("fromDateTime")
                .unwrap()
                .eval(&[s("garbage"), s("yyyy-MM-dd")])
                .is_err()
        );
        assert_eq!(
            call("toIso8601", &[Value::Long(1_500)]),
            s("1970-01-01T00:00:01.500Z")
        );
        assert_eq!(
            call("fromIso8601", &[s("1970-01-01T00:00:01.500Z")]),
            Value::Long(1_500)
        );
        let Value::Long(now) = call("now", &[]) else {
            panic!("now is a LONG")
        };
        let Value::Long(ago) = call("ago", &[s("P1D")]) else {
            panic!("ago is a LONG")
        };
        assert!((now - MILLIS_PER_DAY - ago).abs() < 60_000);
        assert!(lookup("ago").unwrap().eval(&[s("1 day")]).is_err());
    }

    #[test]
    fn date_bin_matches_pinot_tests() {
        // Pinot's DateTimeFunctionsTest.testDateBin, origin 2024-01-01 00:00:00.
        let origin = Value::Timestamp(1_704_067_200_000);
        let feb10 = 1_707_523_200_000; // 2024-02-10
        let bin = |width: &str, source: i64| {
            call(
                "dateBin",
                &[s(width), Value::Timestamp(source), origin.clone()],
            )
        };
        let at = |day: i64, h: i64, m: i64, sec: i64| {
            Value::Timestamp(day + ((h * 60 + m) * 60 + sec) * 1_000)
        };
        let (t1, t2) = (feb10 + 84_595_000, feb10 + 82_855_000); // 23:29:55, 23:00:55
        assert_eq!(bin("2s", t1), at(feb10, 23, 29, 54));
        assert_eq!(bin("10s", t1), at(feb10, 23, 29, 50));
        assert_eq!(bin("10m", t1), at(feb10, 23, 20, 0));
        assert_eq!(bin("15m", t1), at(feb10, 23, 15, 0));
        assert_eq!(bin("30m", t2), at(feb10, 23, 0, 0));
        assert_eq!(bin("1h15m", t2), at(feb10, 22, 30, 0));
        assert_eq!(bin("2h", t2), at(feb10, 22, 0, 0));
        assert_eq!(bin("24h", t2), at(feb10, 0, 0, 0));
        assert_eq!(bin("1D", t2), at(feb10, 0, 0, 0));
        let feb9 = feb10 - MILLIS_PER_DAY;
        assert_eq!(
            bin("2d", feb9 + 82_855_000),
            at(feb9 - MILLIS_PER_DAY, 0, 0, 0)
        );
        assert_eq!(
            bin("10d10m", feb9 + 82_855_000),
            at(1_704_067_200_000 + 30 * MILLIS_PER_DAY, 0, 30, 0)
        );
        // Before the origin the bin count truncates toward zero, as in Pinot.
        assert_eq!(
            bin("1h", 1_704_067_200_000 - 1_000),
            Value::Timestamp(1_704_067_200_000)
        );
        let f = lookup("dateBin").unwrap();
        for bad in ["", "0s", "15", "1m1h", "5x", "1h 2m"] {
            assert!(
                f.eval(&[s(bad), Value::Long(0), Value::Long(0)]).is_err(),
                "{bad}"
            );
        }
        assert_eq!(
            f.eval(&[s("1h"), Value::Null, Value::Long(0)]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn extract_and_zone_offsets() {
        // Sat May 23 2020 22:23:13.123 UTC.
        let t = Value::Long(1_590_272_593_123);
        for (field, expected) in [
            ("YEAR", 2020),
            ("QUARTER", 2),
            ("MONTH", 5),
            ("WEEK", 21),
            ("DAY", 23),
            ("DOY", 144),
            ("DOW", 6),
            ("HOUR", 22),
            ("MINUTE", 23),
            ("SECOND", 13),
        ] {
            assert_eq!(
                call("extract", &[s(field), t.clone()]),
                Value::Int(expected)
            );
        }
        let extract = lookup("EXTRACT").unwrap();
        assert!(extract.eval(&[s("year"), t.clone()]).is_err());
        assert!(extract.eval(&[s("MILLISECOND"), t.clone()]).is_err());
        assert_eq!(
            extract.eval(&[s("YEAR"), Value::Null]).unwrap(),
            Value::Null
        );

        for (zone, hour, minute) in [
            ("UTC", 0, 0),
            ("+08:00", 8, 0),
            ("-09:30", -9, -30),
            ("Etc/GMT+12", -12, 0),
            ("Etc/GMT+1", -1, 0),
        ] {
            assert_eq!(
                call("timezone_hour", &[s(zone)]),
                Value::Int(hour),
                "{zone}"
            );
            assert_eq!(
                call("timezoneMinute", &[s(zone)]),
                Value::Int(minute),
                "{zone}"
            );
        }
        assert_eq!(
            call(
                "timezoneHour",
                &[s("-05:00"), Value::Long(1_641_046_981_000)]
            ),
            Value::Int(-5)
        );
        assert_eq!(call("timezoneHour", &[Value::Null]), Value::Null);
        // Regions follow daylight saving time: Toronto is -5 in January, -4 in July.
        assert_eq!(
            call("timezoneHour", &[s("America/Toronto")]),
            Value::Int(-5)
        );
        assert_eq!(
            call(
                "timezoneHour",
                &[s("America/Toronto"), Value::Long(1_625_140_800_000)]
            ),
            Value::Int(-4)
        );
        assert!(
            lookup("timezoneHour")
                .unwrap()
                .eval(&[s("America/Nowhere")])
                .is_err()
        );
    }

    #[test]
    fn time_convert_matches_java_and_joda() {
        let convert = |v: i64, from: &str, to: &str| {
            lookup("timeConvert")
                .unwrap()
                .eval(&[Value::Long(v), s(from), s(to)])
        };
        assert_eq!(
            convert(T, "MILLISECONDS", "dAyS").unwrap(),
            Value::Long(18_975)
        );
        assert_eq!(
            convert(T, "milliseconds", "SECONDS").unwrap(),
            Value::Long(1_639_480_981)
        );
        assert_eq!(
            convert(5, "MICROSECONDS", "NANOSECONDS").unwrap(),
            Value::Long(5_000)
        );
        assert_eq!(
            convert(1_999, "MICROSECONDS", "MILLISECONDS").unwrap(),
            Value::Long(1)
        );
        assert_eq!(
            convert(-1_999, "MICROSECONDS", "MILLISECONDS").unwrap(),
            Value::Long(-1)
        );
        assert_eq!(
            convert(i64::MAX, "DAYS", "NANOSECONDS").unwrap(),
            Value::Long(i64::MAX)
        );
        assert_eq!(
            convert(T, "MILLISECONDS", "wEeKs").unwrap(),
            Value::Long(2_710)
        );
        assert_eq!(
            convert(T, "MILLISECONDS", "mOnThS").unwrap(),
            Value::Long(623)
        );
        assert_eq!(
            convert(T, "MILLISECONDS", "yEaRs").unwrap(),
            Value::Long(51)
        );
        assert_eq!(convert(18_975, "DAYS", "YEARS").unwrap(), Value::Long(51));
        assert_eq!(
            convert(-1, "MILLISECONDS", "WEEKS").unwrap(),
            Value::Long(0)
        );
        assert!(convert(i64::MAX, "MILLISECONDS", "WEEKS").is_err());
        assert!(convert(1, "FORTNIGHTS", "DAYS").is_err());
        assert!(convert(1, "DAYS", "EONS").is_err());
        let f = lookup("time_convert").unwrap();
        let (ms, eons) = (s("MILLISECONDS"), s("EONS"));
        let col = ArgType::of(DataType::Long);
        assert_eq!(
            f.resolve(&[col, ArgType::literal(&ms), ArgType::literal(&ms)])
                .unwrap(),
            DataType::Long
        );
        let invalid = f
            .resolve(&[col, ArgType::literal(&ms), ArgType::literal(&eons)])
            .unwrap_err();
        assert_eq!(invalid.code(), segments::types::ErrorCode::QueryValidation);
    }

    #[test]
    fn sleep_waits_boundedly() {
        let f = lookup("sleep").unwrap();
        assert!(!f.is_deterministic());
        let start = std::time::Instant::now();
        assert_eq!(f.eval(&[Value::Int(20)]).unwrap(), Value::Long(20));
        assert!(start.elapsed() >= std::time::Duration::from_millis(20));
        assert_eq!(f.eval(&[Value::Long(-5)]).unwrap(), Value::Long(-5));
        assert!(f.eval(&[s("soon")]).is_err());
        assert_eq!(
            call("toIso8601", &[Value::Long(0)]),
            s("1970-01-01T00:00:00Z")
        );
    }

    #[test]
    fn durations_follow_java() {
        assert_eq!(parse_duration("PT20.345S"), Some(20_345));
        assert_eq!(parse_duration("PT15M"), Some(900_000));
        assert_eq!(parse_duration("PT10H"), Some(36_000_000));
        assert_eq!(parse_duration("P2D"), Some(172_800_000));
        assert_eq!(parse_duration("P2DT3H4M"), Some(183_840_000));
        assert_eq!(parse_duration("PT-6H3M"), Some(-21_420_000));
        assert_eq!(parse_duration("-PT6H3M"), Some(-21_780_000));
        assert_eq!(parse_duration("-PT-6H+3M"), Some(21_420_000));
        assert_eq!(parse_duration("PT-0.5S"), Some(-500));
        assert_eq!(parse_duration("P"), None);
        assert_eq!(parse_duration("PT"), None);
        assert_eq!(parse_duration("P1W"), None);
        assert_eq!(parse_duration("P1M"), None);
        assert_eq!(parse_duration("P99999999999999D"), None);
    }
}
