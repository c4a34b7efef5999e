//! The multi-value variants of the date/time functions (Pinot's `…MV` methods of
//! `DateTimeFunctions`): each applies its single-value function to every element of one
//! multi-value argument, with the other arguments as given, and returns the array of results.
//!
//! * `toEpochSeconds/Minutes/Hours/DaysMV(ms[])`, `…RoundedMV(ms[], n)`, `…BucketMV(ms[], n)`,
//!   `fromEpochSeconds/Minutes/Hours/DaysMV(x[])`, `…BucketMV(x[], n)`, `roundMV(t[], n)`,
//!   `toTimestampMV`, `fromTimestampMV`, `toIso8601MV`, `fromIso8601MV`, `agoMV(period[])`;
//! * `yearMV`, `yearOfWeekMV/yowMV`, `quarterMV`, `monthMV/monthOfYearMV`, `weekMV/weekOfYearMV`,
//!   `dayOfYearMV/doyMV`, `dayOfMonthMV/dayMV`, `dayOfWeekMV/dowMV`, `hourMV`, `minuteMV`,
//!   `secondMV`, `millisecondMV`, each `(ms[][, timeZone])`;
//! * `toDateTimeMV(ms[], pattern[, tz])`, `fromDateTimeMV(text[], pattern[, tz])`,
//!   `dateTruncMV(unit, t[], …)`, `timestampAddMV/dateAddMV(unit, n, ms[])`,
//!   `timestampDiffMV/dateDiffMV(unit, t1[], t2)`,
//!   `timestampDiffMVReverse/dateDiffMVReverse(unit, t1, t2[])`;
//! * `timezoneHourMV(zone[])` / `timezoneHourMV(zone, ms[])`, and `timezoneMinuteMV` alike.
//!
//! A NULL element gives a NULL element; a single value where the array belongs is an error.

use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use super::{arithmetic, datetime, datetime_convert};
use segments::types::{DataType, Value};
use std::sync::OnceLock;

use Param::{Any, Array as A, Number as N, Text as T};

/// The multi-value argument is the last one (its position depends on the overload).
const LAST: usize = usize::MAX;

const fn mv(
    name: &'static str,
    arity: Arity,
    params: &'static [Param],
    element: DataType,
    kernel: fn(&[Value]) -> Result<Value, FunctionError>,
) -> FunctionDef {
    FunctionDef::new(name, arity, params, Returns::FixedArray(element), kernel)
}

const ONE: Arity = Arity::Exact(1);
const TWO: Arity = Arity::Exact(2);
const FIELD: Arity = Arity::Range(1, 2);
const LONG: DataType = DataType::Long;
const INT: DataType = DataType::Int;

/// The multi-value date/time functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    mv("toEpochSecondsMV", ONE, &[A], LONG, to_epoch_seconds),
    mv("toEpochMinutesMV", ONE, &[A], LONG, to_epoch_minutes),
    mv("toEpochHoursMV", ONE, &[A], LONG, to_epoch_hours),
    mv("toEpochDaysMV", ONE, &[A], LONG, to_epoch_days),
    mv(
        "toEpochSecondsRoundedMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_seconds_rounded,
    ),
    mv(
        "toEpochMinutesRoundedMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_minutes_rounded,
    ),
    mv(
        "toEpochHoursRoundedMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_hours_rounded,
    ),
    mv(
        "toEpochDaysRoundedMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_days_rounded,
    ),
    mv(
        "toEpochSecondsBucketMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_seconds_bucket,
    ),
    mv(
        "toEpochMinutesBucketMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_minutes_bucket,
    ),
    mv(
        "toEpochHoursBucketMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_hours_bucket,
    ),
    mv(
        "toEpochDaysBucketMV",
        TWO,
        &[A, N],
        LONG,
        to_epoch_days_bucket,
    ),
    mv("fromEpochSecondsMV", ONE, &[A], LONG, from_epoch_seconds),
    mv("fromEpochMinutesMV", ONE, &[A], LONG, from_epoch_minutes),
    mv("fromEpochHoursMV", ONE, &[A], LONG, from_epoch_hours),
    mv("fromEpochDaysMV", ONE, &[A], LONG, from_epoch_days),
    mv(
        "fromEpochSecondsBucketMV",
        TWO,
        &[A, N],
        LONG,
        from_epoch_seconds_bucket,
    ),
    mv(
        "fromEpochMinutesBucketMV",
        TWO,
        &[A, N],
        LONG,
        from_epoch_minutes_bucket,
    ),
    mv(
        "fromEpochHoursBucketMV",
        TWO,
        &[A, N],
        LONG,
        from_epoch_hours_bucket,
    ),
    mv(
        "fromEpochDaysBucketMV",
        TWO,
        &[A, N],
        LONG,
        from_epoch_days_bucket,
    ),
    mv("roundMV", TWO, &[A, N], LONG, round),
    mv(
        "toTimestampMV",
        ONE,
        &[A],
        DataType::Timestamp,
        to_timestamp,
    ),
    mv("fromTimestampMV", ONE, &[A], LONG, from_timestamp),
    mv("toIso8601MV", ONE, &[A], DataType::String, to_iso8601),
    mv("fromIso8601MV", ONE, &[A], LONG, from_iso8601),
    mv("agoMV", ONE, &[A], LONG, ago).nondeterministic(),
    mv(
        "toDateTimeMV",
        Arity::Range(2, 3),
        &[A, T, T],
        DataType::String,
        to_date_time,
    ),
    mv(
        "fromDateTimeMV",
        Arity::Range(2, 3),
        &[A, T, T],
        LONG,
        from_date_time,
    ),
    mv("yearMV", FIELD, &[A, T], INT, year),
    mv("yearOfWeekMV", FIELD, &[A, T], INT, year_of_week).with_aliases(&["yowMV"]),
    mv("quarterMV", FIELD, &[A, T], INT, quarter),
    mv("monthMV", FIELD, &[A, T], INT, month).with_aliases(&["monthOfYearMV"]),
    mv("weekMV", FIELD, &[A, T], INT, week).with_aliases(&["weekOfYearMV"]),
    mv("dayOfYearMV", FIELD, &[A, T], INT, day_of_year).with_aliases(&["doyMV"]),
    mv("dayOfMonthMV", FIELD, &[A, T], INT, day_of_month).with_aliases(&["dayMV"]),
    mv("dayOfWeekMV", FIELD, &[A, T], INT, day_of_week).with_aliases(&["dowMV"]),
    mv("hourMV", FIELD, &[A, T], INT, hour),
    mv("minuteMV", FIELD, &[A, T], INT, minute),
    mv("secondMV", FIELD, &[A, T], INT, second),
    mv("millisecondMV", FIELD, &[A, T], INT, millisecond),
    mv("timezoneHourMV", FIELD, &[Any, A], INT, timezone_hour),
    mv("timezoneMinuteMV", FIELD, &[Any, A], INT, timezone_minute),
    mv(
        "dateTruncMV",
        Arity::Range(2, 5),
        &[T, A, T, T, T],
        LONG,
        date_trunc,
    ),
    mv(
        "timestampAddMV",
        Arity::Exact(3),
        &[T, N, A],
        LONG,
        timestamp_add,
    )
    .with_aliases(&["dateAddMV"]),
    mv(
        "timestampDiffMV",
        Arity::Exact(3),
        &[T, A, N],
        LONG,
        timestamp_diff,
    )
    .with_aliases(&["dateDiffMV"]),
    mv(
        "timestampDiffMVReverse",
        Arity::Exact(3),
        &[T, N, A],
        LONG,
        timestamp_diff_reverse,
    )
    .with_aliases(&["dateDiffMVReverse"]),
];

/// Applies the single-value function `single` to each element of the multi-value argument at
/// `position` ([`LAST`]: the last argument), keeping the other arguments.
fn each_element(
    function: &'static str,
    single: (&'static str, Option<&'static FunctionDef>),
    position: usize,
    args: &[Value],
) -> Result<Value, FunctionError> {
    let position = if position == LAST {
        args.len().saturating_sub(1)
    } else {
        position
    };
    let Some(def) = single.1 else {
        return Err(FunctionError::invalid(
            function,
            single.0,
            "no such function",
        ));
    };
    let items = match args.get(position) {
        Some(Value::Array(items)) => items,
        other => {
            return Err(FunctionError::invalid(
                function,
                other.unwrap_or(&Value::Null),
                "not a multi-value",
            ));
        }
    };
    let mut call = args.to_vec();
    items
        .iter()
        .map(|item| {
            call[position] = item.clone();
            def.eval(&call).map_err(|e| renamed(e, function))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

/// An element's error, told in the name of the multi-value function.
fn renamed(mut error: FunctionError, name: &'static str) -> FunctionError {
    if let FunctionError::InvalidArgument { function, .. }
    | FunctionError::DivisionByZero { function }
    | FunctionError::Overflow { function, .. } = &mut error
    {
        *function = name;
    }
    error
}

/// The single-value function an `…MV` function applies (the date/time tables, and
/// `arithmetic`'s `round`).
fn single_value(name: &str) -> Option<&'static FunctionDef> {
    datetime::FUNCTIONS
        .iter()
        .chain(datetime_convert::FUNCTIONS)
        .chain(arithmetic::FUNCTIONS)
        .find(|d| d.name() == name || d.aliases().contains(&name))
}

/// Declares kernels `fn kernel(args)` applying a single-value function element-wise.
macro_rules! element_wise {
    ($($kernel:ident: $name:literal => $single:literal at $position:expr;)*) => {$(
        fn $kernel(args: &[Value]) -> Result<Value, FunctionError> {
            static SINGLE: OnceLock<Option<&'static FunctionDef>> = OnceLock::new();
            let single = *SINGLE.get_or_init(|| single_value($single));
            each_element($name, ($single, single), $position, args)
        }
    )*};
}

element_wise! {
    to_epoch_seconds: "toEpochSecondsMV" => "toEpochSeconds" at 0;
    to_epoch_minutes: "toEpochMinutesMV" => "toEpochMinutes" at 0;
    to_epoch_hours: "toEpochHoursMV" => "toEpochHours" at 0;
    to_epoch_days: "toEpochDaysMV" => "toEpochDays" at 0;
    to_epoch_seconds_rounded: "toEpochSecondsRoundedMV" => "toEpochSecondsRounded" at 0;
    to_epoch_minutes_rounded: "toEpochMinutesRoundedMV" => "toEpochMinutesRounded" at 0;
    to_epoch_hours_rounded: "toEpochHoursRoundedMV" => "toEpochHoursRounded" at 0;
    to_epoch_days_rounded: "toEpochDaysRoundedMV" => "toEpochDaysRounded" at 0;
    to_epoch_seconds_bucket: "toEpochSecondsBucketMV" => "toEpochSecondsBucket" at 0;
    to_epoch_minutes_bucket: "toEpochMinutesBucketMV" => "toEpochMinutesBucket" at 0;
    to_epoch_hours_bucket: "toEpochHoursBucketMV" => "toEpochHoursBucket" at 0;
    to_epoch_days_bucket: "toEpochDaysBucketMV" => "toEpochDaysBucket" at 0;
    from_epoch_seconds: "fromEpochSecondsMV" => "fromEpochSeconds" at 0;
    from_epoch_minutes: "fromEpochMinutesMV" => "fromEpochMinutes" at 0;
    from_epoch_hours: "fromEpochHoursMV" => "fromEpochHours" at 0;
    from_epoch_days: "fromEpochDaysMV" => "fromEpochDays" at 0;
    from_epoch_seconds_bucket: "fromEpochSecondsBucketMV" => "fromEpochSecondsBucket" at 0;
    from_epoch_minutes_bucket: "fromEpochMinutesBucketMV" => "fromEpochMinutesBucket" at 0;
    from_epoch_hours_bucket: "fromEpochHoursBucketMV" => "fromEpochHoursBucket" at 0;
    from_epoch_days_bucket: "fromEpochDaysBucketMV" => "fromEpochDaysBucket" at 0;
    round: "roundMV" => "round" at 0;
    to_timestamp: "toTimestampMV" => "toTimestamp" at 0;
    from_timestamp: "fromTimestampMV" => "fromTimestamp" at 0;
    to_iso8601: "toIso8601MV" => "toIso8601" at 0;
    from_iso8601: "fromIso8601MV" => "fromIso8601" at 0;
    ago: "agoMV" => "ago" at 0;
    to_date_time: "toDateTimeMV" => "toDateTime" at 0;
    from_date_time: "fromDateTimeMV" => "fromDateTime" at 0;
    year: "yearMV" => "year" at 0;
    year_of_week: "yearOfWeekMV" => "yearOfWeek" at 0;
    quarter: "quarterMV" => "quarter" at 0;
    month: "monthMV" => "month" at 0;
    week: "weekMV" => "week" at 0;
    day_of_year: "dayOfYearMV" => "dayOfYear" at 0;
    day_of_month: "dayOfMonthMV" => "dayOfMonth" at 0;
    day_of_week: "dayOfWeekMV" => "dayOfWeek" at 0;
    hour: "hourMV" => "hour" at 0;
    minute: "minuteMV" => "minute" at 0;
    second: "secondMV" => "second" at 0;
    millisecond: "millisecondMV" => "millisecond" at 0;
    timezone_hour: "timezoneHourMV" => "timezoneHour" at LAST;
    timezone_minute: "timezoneMinuteMV" => "timezoneMinute" at LAST;
    date_trunc: "dateTruncMV" => "dateTrunc" at 1;
    timestamp_add: "timestampAddMV" => "timestampAdd" at 2;
    timestamp_diff: "timestampDiffMV" => "timestampDiff" at 1;
    timestamp_diff_reverse: "timestampDiffMVReverse" => "timestampDiff" at 2;
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_mv_function_finds_its_single_value_function() {
        for name in [
            "ago",
            "dateTrunc",
            "dayOfMonth",
            "dayOfWeek",
            "dayOfYear",
            "fromDateTime",
            "fromEpochDays",
            "fromEpochDaysBucket",
            "fromEpochHours",
            "fromEpochHoursBucket",
            "fromEpochMinutes",
            "fromEpochMinutesBucket",
            "fromEpochSeconds",
            "fromEpochSecondsBucket",
            "fromIso8601",
            "fromTimestamp",
            "hour",
            "millisecond",
            "minute",
            "month",
            "quarter",
            "round",
            "second",
            "timestampAdd",
            "timestampDiff",
            "timezoneHour",
            "timezoneMinute",
            "toDateTime",
            "toEpochDays",
            "toEpochDaysBucket",
            "toEpochDaysRounded",
            "toEpochHours",
            "toEpochHoursBucket",
            "toEpochHoursRounded",
            "toEpochMinutes",
            "toEpochMinutesBucket",
            "toEpochMinutesRounded",
            "toEpochSeconds",
            "toEpochSecondsBucket",
            "toEpochSecondsRounded",
            "toIso8601",
            "toTimestamp",
            "week",
            "year",
            "yearOfWeek",
        ] {
            assert!(super::single_value(name).is_some(), "{name}");
        }
    }

    use super::super::{ArgType, lookup};
    use super::*;
    use segments::types::ColumnType;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    fn longs(values: &[i64]) -> Value {
        Value::Array(values.iter().copied().map(Value::Long).collect())
    }

    fn ints(values: &[i32]) -> Value {
        Value::Array(values.iter().copied().map(Value::Int).collect())
    }

    /// 2021-12-14T11:23:01.746Z and 2020-05-23T22:23:13.123Z.
    const T1: i64 = 1_639_480_981_746;
    const T2: i64 = 1_590_272_593_123;

    #[test]
    fn epoch_conversions_apply_to_each_element() {
        assert_eq!(
            call("toEpochSecondsMV", &[longs(&[1_613_472_303_000, -1])]).unwrap(),
            longs(&[1_613_472_303, 0])
        );
        assert_eq!(
            call(
                "to_epoch_minutes_rounded_mv",
                &[longs(&[1_613_472_303_000]), Value::Int(10)]
            )
            .unwrap(),
            longs(&[26_891_200])
        );
        assert_eq!(
            call("fromEpochDaysMV", &[ints(&[18_674, 0])]).unwrap(),
            longs(&[1_613_433_600_000, 0])
        );
        assert_eq!(
            call(
                "roundMV",
                &[longs(&[1_578_685_189_000]), Value::Long(900_000)]
            )
            .unwrap(),
            longs(&[1_578_684_600_000])
        );
        assert_eq!(
            call("toTimestampMV", &[longs(&[5])]).unwrap(),
            Value::Array(vec![Value::Timestamp(5)])
        );
        assert_eq!(
            call("toIso8601MV", &[longs(&[1_500, 0])]).unwrap(),
            Value::Array(vec![
                s("1970-01-01T00:00:01.500Z"),
                s("1970-01-01T00:00:00Z")
            ])
        );
        assert_eq!(
            call(
                "fromIso8601MV",
                &[Value::Array(vec![s("2023-10-01T00:00:00Z")])]
            )
            .unwrap(),
            longs(&[1_696_118_400_000])
        );
        assert_eq!(call("toEpochDaysMV", &[longs(&[])]).unwrap(), longs(&[]));
    }

    #[test]
    fn fields_and_aliases() {
        let both = longs(&[T1, T2]);
        for (name, expected) in [
            ("yearMV", [2021, 2020]),
            ("yowMV", [2021, 2020]),
            ("quarterMV", [4, 2]),
            ("monthOfYearMV", [12, 5]),
            ("weekOfYearMV", [50, 21]),
            ("doyMV", [348, 144]),
            ("dayMV", [14, 23]),
            ("dayOfMonthMV", [14, 23]),
            ("dowMV", [2, 6]),
            ("hourMV", [11, 22]),
            ("minuteMV", [23, 23]),
            ("secondMV", [1, 13]),
            ("millisecondMV", [746, 123]),
        ] {
            assert_eq!(
                call(name, std::slice::from_ref(&both)).unwrap(),
                ints(&expected),
                "{name}"
            );
        }
        assert_eq!(
            call("hourMV", &[both.clone(), s("+05:30")]).unwrap(),
            ints(&[16, 3])
        );
        assert!(call("hourMV", &[both, s("Mars/Olympus")]).is_err());
    }

    #[test]
    fn argument_positions_follow_pinot() {
        assert_eq!(
            call("dateTruncMV", &[s("day"), longs(&[T1, T2])]).unwrap(),
            longs(&[1_639_440_000_000, 1_590_192_000_000])
        );
        assert_eq!(
            call(
                "date_trunc_mv",
                &[
                    s("week"),
                    longs(&[T1]),
                    s("MILLISECONDS"),
                    s("UTC"),
                    s("SECONDS")
                ]
            )
            .unwrap(),
            longs(&[1_639_353_600])
        );
        assert_eq!(
            call("dateAddMV", &[s("day"), Value::Int(10), longs(&[0, 1])]).unwrap(),
            longs(&[864_000_000, 864_000_001])
        );
        assert_eq!(
            call(
                "dateDiffMV",
                &[s("day"), longs(&[0, 864_000_000]), Value::Long(864_000_000)]
            )
            .unwrap(),
            longs(&[10, 0])
        );
        assert_eq!(
            call(
                "timestampDiffMVReverse",
                &[s("day"), Value::Long(0), longs(&[864_000_000, -86_400_000])]
            )
            .unwrap(),
            longs(&[10, -1])
        );
        assert_eq!(
            call(
                "toDateTimeMV",
                &[longs(&[1_639_137_263_000]), s("yyyy-MM-dd")]
            )
            .unwrap(),
            Value::Array(vec![s("2021-12-10")])
        );
        assert_eq!(
            call(
                "fromDateTimeMV",
                &[
                    Value::Array(vec![s("2019-08-07 05:30")]),
                    s("yyyy-MM-dd HH:mm"),
                    s("+05:30")
                ]
            )
            .unwrap(),
            longs(&[1_565_136_000_000])
        );
        assert_eq!(
            call(
                "timezoneHourMV",
                &[Value::Array(vec![s("UTC"), s("-09:30")])]
            )
            .unwrap(),
            ints(&[0, -9])
        );
        assert_eq!(
            call("timezoneMinuteMV", &[s("-09:30"), longs(&[0, T1])]).unwrap(),
            ints(&[-30, -30])
        );
        let Value::Array(ago) = call("agoMV", &[Value::Array(vec![s("P1D")])]).unwrap() else {
            panic!("agoMV is an array")
        };
        assert_eq!(ago.len(), 1);
        assert!(!lookup("agoMV").unwrap().is_deterministic());
    }

    #[test]
    fn nulls_errors_and_types() {
        assert_eq!(call("hourMV", &[Value::Null]).unwrap(), Value::Null);
        assert_eq!(
            call(
                "hourMV",
                &[Value::Array(vec![Value::Long(T1), Value::Null])]
            )
            .unwrap(),
            Value::Array(vec![Value::Int(11), Value::Null])
        );
        assert_eq!(
            call("toEpochDaysBucketMV", &[longs(&[1]), Value::Null]).unwrap(),
            Value::Null
        );
        let single = call("hourMV", &[Value::Long(T1)]).unwrap_err();
        assert!(single.to_string().contains("hourMV"), "{single}");
        let zero = call("toEpochDaysBucketMV", &[longs(&[1]), Value::Int(0)]).unwrap_err();
        assert_eq!(
            zero,
            FunctionError::DivisionByZero {
                function: "toEpochDaysBucketMV"
            }
        );
        let bad = call("fromIso8601MV", &[Value::Array(vec![s("nope")])]).unwrap_err();
        assert!(bad.to_string().contains("fromIso8601MV"), "{bad}");
        let hour = lookup("hourMV").unwrap();
        assert_eq!(
            hour.resolve_column(&[ArgType::mv(DataType::Long)]).unwrap(),
            ColumnType::mv(DataType::Int)
        );
        assert!(hour.resolve(&[ArgType::of(DataType::Long)]).is_err());
        assert_eq!(
            lookup("toIso8601MV")
                .unwrap()
                .resolve_column(&[ArgType::mv(DataType::Long)])
                .unwrap(),
            ColumnType::mv(DataType::String)
        );
    }

    #[test]
    fn every_multi_value_function_wraps_a_catalog_function() {
        for def in FUNCTIONS {
            let args = vec![Value::Array(vec![]); 5];
            let n = (1..=5).find(|n| def.arity().accepts(*n)).unwrap();
            let result = def.eval(&args[..n]);
            // Only a missing single-value function reports "no such function".
            if let Err(e) = result {
                assert!(
                    !e.to_string().contains("no such function"),
                    "{}",
                    def.name()
                );
            }
        }
    }
}
