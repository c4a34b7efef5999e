//! `dateTimeConvert(value, inputFormat, outputFormat, outputGranularity[, bucketTimeZone])` and
//! `dateTimeConvertWindowHop(value, inputFormat, outputFormat, outputGranularity, hopSize)`
//! with Pinot's DateTimeFieldSpec format syntax (`DateTimeFormatSpec`,
//! `DateTimeGranularitySpec`):
//!
//! * colon form `size:UNIT:EPOCH`, `1:MILLISECONDS:TIMESTAMP`,
//!   `1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd[ tz(zone)]`;
//! * pipe form `EPOCH|UNIT[|size]`, `TIMESTAMP`, `SIMPLE_DATE_FORMAT[|pattern[|zone]]`;
//! * granularity `size:UNIT` (`15:MINUTES`) or `UNIT[|size]` (`MINUTES|15`).
//!
//! The value is read in the input format, then bucketed: for epoch and timestamp outputs the
//! millis are truncated to a multiple of the granularity (`ms / g * g`, as Pinot); for a
//! date-format output the granularity's calendar field is floored in the output zone (`15:MINUTES`
//! floors the minute of hour to a multiple of 15). With a bucketing zone (5th argument: a region,
//! UTC or a fixed offset) epoch buckets are floored in that zone instead. The result is a LONG for epoch
//! and timestamp outputs, a STRING for date formats — so the output format must be a literal
//! when the call is typed.
//!
//! `dateTimeConvertWindowHop` gives, for each value, the starts of all windows of `hopSize` that
//! slide by `outputGranularity` and hold the value (latest first, truncated toward zero as
//! Pinot's `BaseDateTimeWindowHopTransformer`), as an array of LONGs (epoch and timestamp
//! outputs) or STRINGs (date formats); at most 10 000 windows per value.

use super::coerce::{int, millis, text};
use super::datetime::TimeUnit;
use super::datetime_format::Pattern;
use super::def::{ArgType, Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::zone::Zone;
use segments::types::time::{DateTime, parse_timestamp};
use segments::types::{ColumnType, DataType, Value};

const F: &str = "dateTimeConvert";

const HOP: &str = "dateTimeConvertWindowHop";

/// Most window starts one `dateTimeConvertWindowHop` value may produce.
const MAX_HOP_WINDOWS: usize = 10_000;

/// The `dateTimeConvert` and `dateTimeConvertWindowHop` functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        F,
        Arity::Range(4, 5),
        &[Param::Any, Param::Text],
        Returns::Infer(convert_type),
        date_time_convert,
    ),
    FunctionDef::new(
        HOP,
        Arity::Exact(5),
        &[Param::Any, Param::Text],
        Returns::InferColumn(hop_type),
        window_hop,
    ),
];

/// A parsed DateTimeFieldSpec format.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Format {
    /// `size:UNIT:EPOCH`: a count of `size × unit` since the epoch.
    Epoch { size: i64, unit: TimeUnit },
    /// `TIMESTAMP`: epoch millis (or timestamp text on input).
    Timestamp,
    /// `SIMPLE_DATE_FORMAT`: text in a pattern (ISO-8601 when none) and zone.
    Text {
        pattern: Option<Pattern>,
        zone: Zone,
    },
}

impl Format {
    /// Parses a format string; the error is the reason it is invalid.
    pub(crate) fn parse(format: &str) -> Result<Format, String> {
        let format = format.trim();
        if format.starts_with(|c: char| c.is_ascii_digit()) {
            let tokens: Vec<&str> = format.splitn(4, ':').collect();
            if tokens.len() < 3 {
                return Err("must be of format 'size:timeUnit:timeFormat(:patternWithTz)'".into());
            }
            match tokens[2] {
                "EPOCH" => Ok(Format::Epoch {
                    size: parse_size(tokens[0])?,
                    unit: parse_unit(tokens[1])?,
                }),
                "TIMESTAMP" => Ok(Format::Timestamp),
                "SIMPLE_DATE_FORMAT" => date_format(tokens.get(3).copied(), None),
                other => Err(format!("invalid time format '{other}'")),
            }
        } else {
            let tokens: Vec<&str> = format.splitn(3, '|').collect();
            match tokens[0] {
                "EPOCH" => Ok(Format::Epoch {
                    size: tokens.get(2).map_or(Ok(1), |s| parse_size(s))?,
                    unit: parse_unit(
                        tokens
                            .get(1)
                            .ok_or("must be of format 'EPOCH|timeUnit(|size)'")?,
                    )?,
                }),
                "TIMESTAMP" => Ok(Format::Timestamp),
                "SIMPLE_DATE_FORMAT" => date_format(tokens.get(1).copied(), tokens.get(2).copied()),
                other => Err(format!("invalid time format '{other}'")),
            }
        }
    }

    /// Reads a value in this format as epoch millis.
    fn to_millis(&self, value: &Value) -> Result<i64, FunctionError> {
        match self {
            Format::Epoch { size, unit } => Ok(unit.to_millis(int(F, value)?.wrapping_mul(*size))),
            Format::Timestamp => millis(F, value),
            Format::Text { pattern, zone } => {
                let input = text(value);
                match pattern {
                    Some(p) => p
                        .parse(input.trim(), *zone)
                        .map_err(|reason| FunctionError::invalid(F, &input, reason)),
                    None => parse_timestamp(&input).ok_or_else(|| {
                        FunctionError::invalid(F, &input, "not an ISO-8601 date-time")
                    }),
                }
            }
        }
    }

    /// Writes epoch millis in this format: a count of units for epochs (truncated), the millis
    /// for timestamps, text for date formats (ISO-8601 when there is no pattern).
    fn print(&self, function: &'static str, ms: i64) -> Result<Value, FunctionError> {
        Ok(match self {
            Format::Epoch { size, unit } => Value::Long(unit.convert_millis(ms) / size),
            Format::Timestamp => Value::Long(ms),
            Format::Text { pattern, zone } => Value::String(match pattern {
                Some(p) => p.format(ms, *zone),
                None => Pattern::compile("yyyy-MM-dd'T'HH:mm:ssZZ")
                    .map_err(|reason| FunctionError::invalid(function, "", reason))?
                    .format(ms, *zone)
                    .replace("+00:00", "Z"),
            }),
        })
    }

    fn result_type(&self) -> DataType {
        match self {
            Format::Text { .. } => DataType::String,
            _ => DataType::Long,
        }
    }
}

fn parse_size(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i32>() {
        Ok(size) if size > 0 => Ok(size as i64),
        _ => Err(format!("invalid size '{text}', must be a positive integer")),
    }
}

fn parse_unit(text: &str) -> Result<TimeUnit, String> {
    TimeUnit::parse(text).ok_or_else(|| format!("invalid time unit '{text}'"))
}

/// A `SIMPLE_DATE_FORMAT` pattern, with its zone from the pipe form or a trailing `tz(zone)`.
fn date_format(pattern: Option<&str>, zone: Option<&str>) -> Result<Format, String> {
    let (pattern, zone) = match pattern.map(str::trim) {
        Some(p) if p.ends_with(')') && p.contains("tz(") => {
            let at = p.rfind("tz(").unwrap_or(0);
            (Some(p[..at].trim_end()), Some(&p[at + 3..p.len() - 1]))
        }
        other => (other, zone),
    };
    let zone = match zone {
        Some(z) => Zone::parse(z).map_err(|e| e.to_string())?,
        None => Zone::UTC,
    };
    let pattern = match pattern.filter(|p| !p.is_empty()) {
        Some(p) => Some(Pattern::compile(p)?),
        None => None,
    };
    Ok(Format::Text { pattern, zone })
}

/// A `size:UNIT` or `UNIT[|size]` granularity as its size and unit.
fn parse_granularity(text: &str) -> Result<(i64, TimeUnit), String> {
    let t = text.trim();
    if t.starts_with(|c: char| c.is_ascii_digit()) {
        let (size, unit) = t.split_once(':').ok_or_else(|| {
            format!("invalid granularity '{text}', must be of format 'timeUnit(|size)' or 'size:timeUnit'")
        })?;
        Ok((parse_size(size)?, parse_unit(unit)?))
    } else {
        let (unit, size) = t.split_once('|').map_or((t, None), |(u, s)| (u, Some(s)));
        Ok((size.map_or(Ok(1), parse_size)?, parse_unit(unit)?))
    }
}

fn convert_type(args: &[ArgType]) -> Result<DataType, FunctionError> {
    for (i, what) in [(1, "format"), (2, "format"), (3, "granularity")] {
        if let Some(literal) = args[i].literal_text() {
            let checked = if what == "format" {
                Format::parse(&literal).map(|_| ())
            } else {
                parse_granularity(&literal).map(|_| ())
            };
            checked.map_err(|reason| FunctionError::invalid_literal(F, &literal, reason))?;
        }
    }
    let Some(output) = args[2].literal_text() else {
        return Err(FunctionError::NeedsLiteral {
            function: F,
            position: 3,
        });
    };
    Format::parse(&output)
        .map(|f| f.result_type())
        .map_err(|reason| FunctionError::invalid_literal(F, output, reason))
}

/// Floors the calendar field of `unit` to a multiple of `size` (`DateTimeConvert`'s
/// date-format bucketing), in the zone `offset` from UTC.
fn floor_field(ms: i64, size: i64, unit: TimeUnit, zone: Zone) -> i64 {
    let mut t = DateTime::from_millis(ms.saturating_add(zone.offset_at(ms)));
    let size = size.clamp(1, u32::MAX as i64) as u32;
    match unit {
        TimeUnit::Milliseconds => t.millis = t.millis / size * size,
        TimeUnit::Seconds => (t.second, t.millis) = (t.second / size * size, 0),
        TimeUnit::Minutes => (t.minute, t.second, t.millis) = (t.minute / size * size, 0, 0),
        TimeUnit::Hours => (t.hour, t.minute, t.second, t.millis) = (t.hour / size * size, 0, 0, 0),
        TimeUnit::Days => {
            t.day = (t.day - 1) / size * size + 1;
            (t.hour, t.minute, t.second, t.millis) = (0, 0, 0, 0);
        }
        TimeUnit::Nanoseconds | TimeUnit::Microseconds => {}
    }
    t.checked_to_millis().map_or(ms, |local| {
        local.saturating_sub(zone.offset_of_local(local))
    })
}

fn date_time_convert(args: &[Value]) -> Result<Value, FunctionError> {
    let literal = |i: usize, parse: fn(&str) -> Result<Format, String>| {
        let t = text(&args[i]);
        parse(&t).map_err(|reason| FunctionError::invalid(F, &t, reason))
    };
    let input = literal(1, Format::parse)?;
    let output = literal(2, Format::parse)?;
    let granularity = text(&args[3]);
    let (size, unit) = parse_granularity(&granularity)
        .map_err(|reason| FunctionError::invalid(F, &granularity, reason))?;
    let bucket_zone = match args.get(4) {
        Some(zone) => Some(Zone::parse(&text(zone))?),
        None => None,
    };
    let ms = input.to_millis(&args[0])?;
    if let Format::Text { zone, .. } = &output {
        return output.print(F, floor_field(ms, size, unit, *zone));
    }
    let step = unit.to_millis(size).max(1);
    let rounded = match bucket_zone {
        Some(zone) => {
            let local = ms
                .saturating_add(zone.offset_at(ms))
                .div_euclid(step)
                .saturating_mul(step);
            local.saturating_sub(zone.offset_of_local(local))
        }
        None => ms / step * step,
    };
    output.print(F, rounded)
}

/// Checks the literal formats and granularities of `dateTimeConvertWindowHop`; the result is an
/// array of LONGs for epoch and timestamp outputs, of STRINGs for date formats.
fn hop_type(args: &[ArgType]) -> Result<ColumnType, FunctionError> {
    for (i, arg) in args.iter().enumerate().take(5).skip(1) {
        if let Some(literal) = arg.literal_text() {
            let checked = if i <= 2 {
                Format::parse(&literal).map(|_| ())
            } else {
                parse_granularity(&literal).map(|_| ())
            };
            checked.map_err(|reason| FunctionError::invalid_literal(HOP, &literal, reason))?;
        }
    }
    let Some(output) = args[2].literal_text() else {
        return Err(FunctionError::NeedsLiteral {
            function: HOP,
            position: 3,
        });
    };
    Format::parse(&output)
        .map(|f| ColumnType::mv(f.result_type()))
        .map_err(|reason| FunctionError::invalid_literal(HOP, output, reason))
}

/// The starts of the hopping windows holding `ms`: buckets of `granularity` millis, from the
/// one holding `ms` back while they start after `ms - hop` (Pinot's
/// `BaseDateTimeWindowHopTransformer.hopWindows`, truncating toward zero).
fn hop_windows(ms: i64, granularity: i64, hop: i64) -> Result<Vec<i64>, FunctionError> {
    let end = ms.saturating_sub(hop);
    let mut starts = Vec::new();
    let mut start = ms / granularity * granularity;
    while start > end {
        if starts.len() == MAX_HOP_WINDOWS {
            return Err(FunctionError::invalid(
                HOP,
                format!("{hop} ms / {granularity} ms"),
                format!("more than {MAX_HOP_WINDOWS} windows per value"),
            ));
        }
        starts.push(start);
        match start.checked_sub(granularity) {
            Some(next) => start = next,
            None => break,
        }
    }
    Ok(starts)
}

/// `dateTimeConvertWindowHop(value, inputFormat, outputFormat, outputGranularity, hopSize)`:
/// the starts, in the output format, of every window of `hopSize` sliding by
/// `outputGranularity` that holds the value, latest first.
fn window_hop(args: &[Value]) -> Result<Value, FunctionError> {
    let format = |i: usize| {
        let t = text(&args[i]);
        Format::parse(&t).map_err(|reason| FunctionError::invalid(HOP, &t, reason))
    };
    let granularity = |i: usize| {
        let t = text(&args[i]);
        parse_granularity(&t)
            .map(|(size, unit)| unit.to_millis(size))
            .map_err(|reason| FunctionError::invalid(HOP, &t, reason))
    };
    let (input, output) = (format(1)?, format(2)?);
    let (step, hop) = (granularity(3)?, granularity(4)?);
    if step <= 0 {
        return Err(FunctionError::invalid(
            HOP,
            text(&args[3]),
            "granularity must be at least a millisecond",
        ));
    }
    let ms = match input.to_millis(&args[0]) {
        Ok(ms) => ms,
        Err(FunctionError::InvalidArgument { value, reason, .. }) => {
            return Err(FunctionError::InvalidArgument {
                function: HOP,
                value,
                reason,
            });
        }
        Err(e) => return Err(e),
    };
    hop_windows(ms, step, hop)?
        .into_iter()
        .map(|start| output.print(HOP, start))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn convert(args: &[Value]) -> Value {
        lookup("DATETIMECONVERT").unwrap().eval(args).unwrap()
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    /// 2018-01-01T11:00:02Z, the Pinot docs' example row.
    const T: i64 = 1_514_804_402_000;

    #[test]
    fn converts_like_the_pinot_docs() {
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:DAYS:EPOCH"),
                s("1:DAYS")
            ]),
            Value::Long(17_532)
        );
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MILLISECONDS:EPOCH"),
                s("15:MINUTES")
            ]),
            Value::Long(1_514_804_400_000)
        );
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd"),
                s("1:DAYS")
            ]),
            s("2018-01-01")
        );
        // Pacific/Kiritimati is UTC+14, by its offset and by its name.
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MILLISECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm tz(+14:00)"),
                s("1:MILLISECONDS")
            ]),
            s("2018-01-02 01:00")
        );
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MILLISECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm tz(+14:00)"),
                s("1:DAYS")
            ]),
            s("2018-01-02 00:00")
        );
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MILLISECONDS:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm tz(Pacific/Kiritimati)"),
                s("1:MILLISECONDS")
            ]),
            s("2018-01-02 01:00")
        );
    }

    #[test]
    fn converts_like_the_conformance_suite() {
        // 1970-01-01 01:02:03.456 and 2022-01-02 03:45:00 (UTC), to 30-minute buckets in minutes.
        let minutes = |ms: i64, zone: Option<&str>| {
            let mut args = vec![
                Value::Timestamp(ms),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MINUTES:EPOCH"),
                s("30:MINUTES"),
            ];
            args.extend(zone.map(s));
            convert(&args)
        };
        assert_eq!(minutes(3_723_456, None), Value::Long(60));
        assert_eq!(minutes(1_641_095_100_000, None), Value::Long(27_351_570));
        assert_eq!(
            minutes(1_641_095_100_000, Some("UTC")),
            Value::Long(27_351_570)
        );
    }

    #[test]
    fn formats_in_all_spellings() {
        let day = 1_498_867_200_000; // 2017-07-01
        assert_eq!(
            convert(&[
                s("20170701"),
                s("1:DAYS:SIMPLE_DATE_FORMAT:yyyyMMdd"),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MILLISECONDS")
            ]),
            Value::Long(day)
        );
        assert_eq!(
            convert(&[
                s("20170701"),
                s("SIMPLE_DATE_FORMAT|yyyyMMdd"),
                s("EPOCH|HOURS"),
                s("1:HOURS")
            ]),
            Value::Long(416_352)
        );
        assert_eq!(
            convert(&[
                Value::Long(4_996_224),
                s("5:MINUTES:EPOCH"),
                s("EPOCH|MILLISECONDS|1"),
                s("1:MILLISECONDS")
            ]),
            Value::Long(day)
        );
        assert_eq!(
            convert(&[
                s("2017-07-01 00:00:00"),
                s("1:MILLISECONDS:TIMESTAMP"),
                s("TIMESTAMP"),
                s("1:HOURS")
            ]),
            Value::Long(day)
        );
        assert_eq!(
            convert(&[
                Value::Long(day),
                s("EPOCH|MILLISECONDS"),
                s("SIMPLE_DATE_FORMAT"),
                s("1:SECONDS")
            ]),
            s("2017-07-01T00:00:00Z")
        );
        assert_eq!(
            convert(&[
                Value::Long(day + 3_600_000),
                s("EPOCH|MILLISECONDS"),
                s("SIMPLE_DATE_FORMAT|yyyy-MM-dd HH|+05:00"),
                s("1:HOURS")
            ]),
            s("2017-07-01 06")
        );
    }

    #[test]
    fn types_need_literal_formats() {
        let f = lookup("dateTimeConvert").unwrap();
        let (input, sdf, epoch, gran, bad) = (
            s("1:MILLISECONDS:EPOCH"),
            s("1:DAYS:SIMPLE_DATE_FORMAT:yyyy-MM-dd"),
            s("1:DAYS:EPOCH"),
            s("1:DAYS"),
            s("1:FORTNIGHTS:EPOCH"),
        );
        let col = ArgType::of(DataType::Long);
        assert_eq!(
            f.resolve(&[
                col,
                ArgType::literal(&input),
                ArgType::literal(&sdf),
                ArgType::literal(&gran)
            ])
            .unwrap(),
            DataType::String
        );
        assert_eq!(
            f.resolve(&[
                col,
                ArgType::literal(&input),
                ArgType::literal(&epoch),
                ArgType::literal(&gran)
            ])
            .unwrap(),
            DataType::Long
        );
        let needs = f
            .resolve(&[
                col,
                ArgType::literal(&input),
                ArgType::of(DataType::String),
                ArgType::literal(&gran),
            ])
            .unwrap_err();
        assert!(matches!(
            needs,
            FunctionError::NeedsLiteral { position: 3, .. }
        ));
        let invalid = f
            .resolve(&[
                col,
                ArgType::literal(&bad),
                ArgType::literal(&epoch),
                ArgType::literal(&gran),
            ])
            .unwrap_err();
        assert_eq!(invalid.code(), segments::types::ErrorCode::QueryValidation);
        assert!(
            f.eval(&[
                Value::Long(1),
                input.clone(),
                s("1:DAYS:WHAT"),
                gran.clone()
            ])
            .is_err()
        );
        assert!(
            f.eval(&[Value::Long(1), input.clone(), epoch.clone(), s("0:DAYS")])
                .is_err()
        );
        assert!(f.eval(&[s("x"), input, epoch, gran]).is_err());
    }

    #[test]
    fn window_hops_match_pinot() {
        let hop = |args: &[Value]| lookup("dateTimeConvertWindowHop").unwrap().eval(args);
        let longs = |v: &[i64]| Value::Array(v.iter().copied().map(Value::Long).collect());
        let strings = |v: &[&str]| Value::Array(v.iter().map(|t| s(t)).collect());
        let t = Value::Long(1_696_587_946_000); // 2023-10-06 10:25:46 UTC
        let epoch = |out: &str, granularity: &str, window: &str| {
            hop(&[
                t.clone(),
                s("EPOCH|MILLISECONDS"),
                s(out),
                s(granularity),
                s(window),
            ])
            .unwrap()
        };
        // DateTimeConverterHopWindowTest.
        assert_eq!(
            epoch("EPOCH|MILLISECONDS", "MINUTES|15", "HOURS"),
            longs(&[
                1_696_587_300_000,
                1_696_586_400_000,
                1_696_585_500_000,
                1_696_584_600_000
            ])
        );
        assert_eq!(
            epoch("EPOCH|HOURS", "MINUTES|15", "HOURS"),
            longs(&[471_274, 471_274, 471_273, 471_273])
        );
        assert_eq!(
            epoch("EPOCH|MINUTES|15", "MINUTES|15", "HOURS"),
            longs(&[1_885_097, 1_885_096, 1_885_095, 1_885_094])
        );
        assert_eq!(
            epoch("EPOCH|MILLISECONDS", "MINUTES|60", "MINUTES|15"),
            longs(&[])
        );
        assert_eq!(
            epoch("EPOCH|MILLISECONDS", "MINUTES|15", "MINUTES|55"),
            longs(&[1_696_587_300_000, 1_696_586_400_000, 1_696_585_500_000])
        );
        assert_eq!(
            epoch(
                "SIMPLE_DATE_FORMAT|yyyy-MM-dd-HH:mm|GMT",
                "MINUTES|15",
                "HOURS|1"
            ),
            strings(&[
                "2023-10-06-10:15",
                "2023-10-06-10:00",
                "2023-10-06-09:45",
                "2023-10-06-09:30"
            ])
        );
        assert_eq!(
            hop(&[
                Value::Long(235_637),
                s("EPOCH|HOURS|2"),
                s("SIMPLE_DATE_FORMAT|yyyy-MM-dd-HH:mm|GMT"),
                s("MINUTES|15"),
                s("HOURS|1")
            ])
            .unwrap(),
            strings(&[
                "2023-10-06-10:00",
                "2023-10-06-09:45",
                "2023-10-06-09:30",
                "2023-10-06-09:15"
            ])
        );
        assert_eq!(
            hop(&[
                s("2023-10-06 10:25:46"),
                s("SIMPLE_DATE_FORMAT|yyyy-MM-dd HH:mm:ss|GMT"),
                s("EPOCH|MILLISECONDS|1"),
                s("MINUTES|15"),
                s("MINUTES|60")
            ])
            .unwrap(),
            longs(&[
                1_696_587_300_000,
                1_696_586_400_000,
                1_696_585_500_000,
                1_696_584_600_000
            ])
        );
        // DateTimeConversionWindowHopTransformFunctionTest: colon forms.
        assert_eq!(
            hop(&[
                t.clone(),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MINUTES:EPOCH"),
                s("1:MINUTES"),
                s("2:MINUTES")
            ])
            .unwrap(),
            longs(&[28_276_465, 28_276_464])
        );
        assert_eq!(
            hop(&[
                t.clone(),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MINUTES:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm tz(GMT)"),
                s("1:MINUTES"),
                s("2:MINUTES")
            ])
            .unwrap(),
            strings(&["2023-10-06 10:25", "2023-10-06 10:24"])
        );
        let null = [
            Value::Null,
            s("1:MILLISECONDS:EPOCH"),
            s("1:MINUTES:EPOCH"),
            s("1:MINUTES"),
            s("2:MINUTES"),
        ];
        assert_eq!(hop(&null).unwrap(), Value::Null);
        // A value may not fan out into millions of windows.
        assert!(
            hop(&[
                t.clone(),
                s("EPOCH|MILLISECONDS"),
                s("EPOCH|MILLISECONDS"),
                s("MILLISECONDS|1"),
                s("DAYS")
            ])
            .is_err()
        );
        assert!(
            hop(&[
                t.clone(),
                s("EPOCH|MILLISECONDS"),
                s("EPOCH|MILLISECONDS"),
                s("MINUTES:1"),
                s("HOURS")
            ])
            .is_err()
        );
        assert!(
            hop(&[
                s("x"),
                s("EPOCH|MILLISECONDS"),
                s("EPOCH|MILLISECONDS"),
                s("MINUTES"),
                s("HOURS")
            ])
            .is_err()
        );
    }

    #[test]
    fn window_hop_types_come_from_the_output_format() {
        let f = lookup("date_time_convert_window_hop").unwrap();
        let (input, epoch, sdf, minute, two, bad) = (
            s("1:MILLISECONDS:EPOCH"),
            s("1:MINUTES:EPOCH"),
            s("1:MINUTES:SIMPLE_DATE_FORMAT:yyyy-MM-dd HH:mm"),
            s("1:MINUTES"),
            s("2:MINUTES"),
            s("1:MINUTE"),
        );
        let col = ArgType::of(DataType::Long);
        let lit = ArgType::literal;
        assert_eq!(
            f.resolve_column(&[col, lit(&input), lit(&epoch), lit(&minute), lit(&two)])
                .unwrap(),
            ColumnType::mv(DataType::Long)
        );
        assert_eq!(
            f.resolve_column(&[col, lit(&input), lit(&sdf), lit(&minute), lit(&two)])
                .unwrap(),
            ColumnType::mv(DataType::String)
        );
        let invalid = f
            .resolve_column(&[col, lit(&input), lit(&epoch), lit(&bad), lit(&two)])
            .unwrap_err();
        assert_eq!(invalid.code(), segments::types::ErrorCode::QueryValidation);
        assert!(
            f.resolve_column(&[
                col,
                lit(&input),
                ArgType::of(DataType::String),
                lit(&minute),
                lit(&two)
            ])
            .is_err()
        );
        // dateTimeConvert takes the pipe-form granularity too.
        assert_eq!(
            convert(&[
                Value::Long(T),
                s("1:MILLISECONDS:EPOCH"),
                s("1:MILLISECONDS:EPOCH"),
                s("MINUTES|15")
            ]),
            Value::Long(1_514_804_400_000)
        );
    }
}
