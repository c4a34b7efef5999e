//! Pinot's funnel aggregations, as calls and parameters.
//!
//! * The **window funnels** — `FUNNELMAXSTEP`, `FUNNELMATCHSTEP`, `FUNNELCOMPLETECOUNT`,
//!   `FUNNELSTEPDURATIONSTATS` — are written `f(timestamp, windowSize, numSteps, step_0, …,
//!   step_n-1, [mode | 'KEY=value' …])`. Each row is at most one event: the lowest step whose
//!   condition it meets (or, in `KEEP_ALL` mode, a step −1 that matches nothing). The binder
//!   passes them on as `f(timestamp, <step index>, windowSize, numSteps, extras…)`: the step
//!   conditions become one `CASE` expression ([`window_funnel_args`]), so the engine aggregates
//!   (time, step) pairs like any two-argument aggregate. `FUNNELEVENTSFUNCTIONEVAL(…, numSteps,
//!   step…, numFields, field…, [mode…])` also reports fields of each completed funnel's events:
//!   the step index and the fields' text travel together as one length-prefixed text.
//! * **`FUNNELCOUNT(STEPS(…), CORRELATE_BY(…)[, SETTINGS(…)])`** counts, per step, the
//!   correlation keys that reached every step up to it, in no time order. The binder passes it
//!   on as `funnelcount(<key>, <bit mask of the steps the row meets>, numSteps)`
//!   ([`funnel_count_args`]). Every strategy Pinot's `SETTINGS` choose is answered exactly:
//!   Pinot's own strategies agree on every test it ships, and its default one hashes keys and
//!   may under-count.
//!
//! The engine's side — how events become answers — is `engine::aggregate::funnel`.

use crate::plan::error::PlanError;
use crate::sql::ast::{BinaryOp, Expr, Literal};
use segments::types::Value;
use serde::{Deserialize, Serialize};

/// Which window funnel, and so its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FunnelKind {
    /// The furthest step reached in a window; INT.
    MaxStep,
    /// 1 for each step up to the furthest reached, 0 after; INT array.
    MatchStep,
    /// How many times every step was completed; INT.
    CompleteCount,
    /// Statistics of the time between consecutive steps of completed funnels; DOUBLE array.
    StepDurationStats,
    /// The extra fields of each completed funnel's events, as text; STRING array.
    EventsFunctionEval,
}

/// The modes of a window funnel (any combination).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunnelModes {
    /// Stop at an event that repeats the step just matched.
    pub strict_deduplication: bool,
    /// Stop at any event that is not the next step.
    pub strict_order: bool,
    /// Skip events at the same time as the last step matched.
    pub strict_increase: bool,
    /// Rows that meet no step are events too (breaking a strict order).
    pub keep_all: bool,
}

/// One statistic of `FUNNELSTEPDURATIONSTATS`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum DurationStat {
    Count,
    Avg,
    Min,
    Max,
    Median,
    /// A quantile in `[0, 1]`.
    Percentile(f64),
}

/// A window funnel with its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowFunnel {
    pub kind: FunnelKind,
    /// A window spans `[start, start + window)` in the timestamp's unit.
    pub window: i64,
    pub steps: u32,
    pub modes: FunnelModes,
    /// Largest gap between consecutive events of a window (0: none).
    pub max_step_duration: i64,
    /// `FUNNELSTEPDURATIONSTATS`' statistics, in the order asked.
    pub durations: Vec<DurationStat>,
    /// `FUNNELEVENTSFUNCTIONEVAL`'s number of extra fields per event.
    pub extra_fields: u32,
}

impl WindowFunnel {
    /// A funnel of `kind` with no steps, modes or options yet.
    pub fn new(kind: FunnelKind) -> WindowFunnel {
        WindowFunnel {
            kind,
            window: 0,
            steps: 0,
            modes: FunnelModes::default(),
            max_step_duration: 0,
            durations: Vec::new(),
            extra_fields: 0,
        }
    }
}

impl FunnelKind {
    /// Pinot's camel-case name, as its messages spell it.
    pub fn pinot_name(self) -> &'static str {
        match self {
            FunnelKind::MaxStep => "funnelMaxStep",
            FunnelKind::MatchStep => "funnelMatchStep",
            FunnelKind::CompleteCount => "funnelCompleteCount",
            FunnelKind::StepDurationStats => "funnelStepDurationStats",
            FunnelKind::EventsFunctionEval => "funnelEventsFunctionEval",
        }
    }
}

/// The window funnel of a canonical name.
pub fn window_kind(base: &str) -> Option<FunnelKind> {
    Some(match base {
        "funnelmaxstep" => FunnelKind::MaxStep,
        "funnelmatchstep" => FunnelKind::MatchStep,
        "funnelcompletecount" => FunnelKind::CompleteCount,
        "funnelstepdurationstats" => FunnelKind::StepDurationStats,
        "funneleventsfunctioneval" => FunnelKind::EventsFunctionEval,
        _ => return None,
    })
}

fn usage(name: &str) -> String {
    format!(
        "The function can be used as {name}(timestampExpression, windowSize, numberSteps, \
         stepExpression, [stepExpression, ..], [mode, [mode, ... ]])"
    )
}

/// A literal's integer, as Pinot reads a number or a string literal.
fn literal_long(e: &Expr) -> Option<i64> {
    match e {
        Expr::Literal(Literal::Long(n)) => Some(*n),
        Expr::Literal(Literal::Double(x)) if x.fract() == 0.0 => Some(*x as i64),
        Expr::Literal(Literal::String(s)) => s.trim().parse().ok(),
        Expr::Literal(Literal::Bool(b)) => Some(i64::from(*b)),
        _ => None,
    }
}

/// `f(ts, window, n, step_0 … step_n-1, extras…)` as `f(ts, CASE WHEN step_0 THEN 0 … ELSE -1
/// END, window, n, extras…)`; `FUNNELEVENTSFUNCTIONEVAL`'s extra fields join the step index in
/// one text, each rendered as Pinot renders its stored value (`type_of` tells a field's type:
/// a TIMESTAMP is its milliseconds).
pub fn window_funnel_args(
    kind: FunnelKind,
    args: &[Expr],
    type_of: &mut dyn FnMut(&Expr) -> Result<segments::types::DataType, PlanError>,
) -> Result<Vec<Expr>, PlanError> {
    let name = kind.pinot_name();
    let what = match kind {
        FunnelKind::EventsFunctionEval => "FUNNEL_EVENTS_FUNCTION_EVAL",
        _ => "FUNNEL_AGG_FUNC",
    };
    let too_few = |needed: usize| {
        PlanError::Validation(format!(
            "{what} expects >= {needed} arguments, got: {}. {}",
            args.len(),
            usage(name)
        ))
    };
    if args.len() <= 3 {
        return Err(too_few(4));
    }
    let steps = literal_long(&args[2])
        .filter(|n| *n > 0 && *n <= 64)
        .ok_or_else(|| {
            PlanError::Validation(format!(
                "{name} expects its number of steps as an integer literal from 1 to 64"
            ))
        })? as usize;
    if args.len() < 3 + steps {
        return Err(too_few(3 + steps));
    }
    let mut step_index = Expr::Case {
        operand: None,
        branches: args[3..3 + steps]
            .iter()
            .enumerate()
            .map(|(i, e)| (e.clone(), Expr::Literal(Literal::Long(i as i64))))
            .collect(),
        else_result: Some(Box::new(Expr::Literal(Literal::Long(-1)))),
    };
    let mut rest = &args[3 + steps..];
    let mut fields_count = None;
    if kind == FunnelKind::EventsFunctionEval {
        // The step and the extra fields travel as one text, each part prefixed by its length.
        let k = rest
            .first()
            .and_then(literal_long)
            .filter(|k| *k >= 0)
            .ok_or_else(|| {
                PlanError::Validation(format!(
                    "{name} expects its number of extra fields as an integer literal"
                ))
            })? as usize;
        if args.len() < 4 + steps + k {
            return Err(too_few(4 + steps + k));
        }
        let mut parts = vec![cast_text(&step_index)];
        for field in &rest[1..1 + k] {
            let stored = match type_of(field)? {
                segments::types::DataType::Timestamp => Expr::Cast {
                    expr: Box::new(field.clone()),
                    data_type: "BIGINT".into(),
                },
                _ => field.clone(),
            };
            parts.push(Expr::Function {
                name: "coalesce".into(),
                args: vec![
                    cast_text(&stored),
                    Expr::Literal(Literal::String("null".into())),
                ],
                distinct: false,
                filter: None,
                over: None,
            });
        }
        step_index = length_prefixed(&parts);
        fields_count = Some(rest[0].clone());
        rest = &rest[1 + k..];
    }
    let mut out = vec![
        args[0].clone(),
        step_index,
        args[1].clone(),
        args[2].clone(),
    ];
    out.extend(fields_count);
    out.extend(rest.iter().cloned());
    Ok(out)
}

fn cast_text(e: &Expr) -> Expr {
    Expr::Cast {
        expr: Box::new(e.clone()),
        data_type: "VARCHAR".into(),
    }
}

/// One text of several text expressions, each prefixed by its length and a colon (so that no
/// two lists of values make the same text): `5:alice4:home`.
fn length_prefixed(parts: &[Expr]) -> Expr {
    let concat = |a: Expr, b: Expr| Expr::Binary {
        op: BinaryOp::Concat,
        left: Box::new(a),
        right: Box::new(b),
    };
    parts
        .iter()
        .map(|p| {
            let length = Expr::Function {
                name: "length".into(),
                args: vec![p.clone()],
                distinct: false,
                filter: None,
                over: None,
            };
            concat(
                concat(
                    cast_text(&length),
                    Expr::Literal(Literal::String(":".into())),
                ),
                p.clone(),
            )
        })
        .reduce(concat)
        .unwrap_or(Expr::Literal(Literal::String(String::new())))
}

/// Splits a [`length_prefixed`] text back into its parts (`None` if it is not one).
pub fn split_length_prefixed(mut text: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    while !text.is_empty() {
        let (length, rest) = text.split_once(':')?;
        let length: usize = length.parse().ok()?;
        let end = rest
            .char_indices()
            .nth(length)
            .map_or(rest.len(), |(i, _)| i);
        if rest[..end].chars().count() != length {
            return None;
        }
        parts.push(rest[..end].to_string());
        text = &rest[end..];
    }
    Some(parts)
}

/// Builds a window funnel from its literal parameters (`window, numSteps, extras…`).
pub fn window_funnel(kind: FunnelKind, params: &[Value]) -> Result<WindowFunnel, String> {
    let mut f = WindowFunnel::new(kind);
    let long = |v: &Value| match v {
        Value::String(s) => s.trim().parse::<i64>().ok(),
        other => other
            .as_f64()
            .filter(|x| x.fract() == 0.0)
            .map(|x| x as i64),
    };
    f.window = params
        .first()
        .and_then(long)
        .ok_or_else(|| format!("Invalid long value: {:?}", params.first()))?;
    if f.window <= 0 {
        return Err("Window size must be > 0".into());
    }
    f.steps = params.get(1).and_then(long).unwrap_or(0) as u32;
    let mut extras = params.iter().skip(2);
    if kind == FunnelKind::EventsFunctionEval {
        f.extra_fields = extras.next().and_then(long).unwrap_or(0) as u32;
    }
    let mut durations_given = false;
    for extra in extras {
        let Value::String(text) = extra else {
            return Err(format!(
                "Unrecognized extra argument for funnel function: {extra}"
            ));
        };
        let text = text.to_uppercase();
        let parts: Vec<&str> = text.split('=').collect();
        if let [key, value] = parts[..] {
            match key {
                "MAXSTEPDURATION" => {
                    f.max_step_duration = value
                        .parse()
                        .map_err(|_| format!("For input string: \"{value}\""))?;
                    if f.max_step_duration <= 0 {
                        return Err("MaxStepDuration must be > 0".into());
                    }
                }
                "MODE" => {
                    for mode in value.split(',') {
                        f.modes.set(mode.trim())?;
                    }
                }
                "DURATIONFUNCTIONS" if kind == FunnelKind::StepDurationStats => {
                    durations_given = true;
                    for d in value.split(',') {
                        f.durations.push(duration_stat(d.trim())?);
                    }
                }
                _ if kind == FunnelKind::EventsFunctionEval => {
                    return Err(format!("Unrecognized arguments: {text}"));
                }
                // Pinot keeps other keys and ignores them.
                _ => {}
            }
            continue;
        }
        f.modes
            .set(&text)
            .map_err(|_| format!("Unrecognized extra argument for funnel function: {text}"))?;
    }
    if kind == FunnelKind::StepDurationStats && (!durations_given || f.durations.is_empty()) {
        return Err(
            "Duration functions must be provided for FunnelStepDurationStatsAggregationFunction"
                .into(),
        );
    }
    Ok(f)
}

impl FunnelModes {
    fn set(&mut self, mode: &str) -> Result<(), String> {
        match mode {
            "STRICT_DEDUPLICATION" => self.strict_deduplication = true,
            "STRICT_ORDER" => self.strict_order = true,
            "STRICT_INCREASE" => self.strict_increase = true,
            "KEEP_ALL" => self.keep_all = true,
            other => {
                return Err(format!(
                    "No enum constant org.apache.pinot.core.query.aggregation.function.funnel.\
                     window.FunnelBaseAggregationFunction.Mode.{other}"
                ));
            }
        }
        Ok(())
    }
}

fn duration_stat(name: &str) -> Result<DurationStat, String> {
    Ok(match name {
        "COUNT" => DurationStat::Count,
        "AVG" => DurationStat::Avg,
        "MIN" => DurationStat::Min,
        "MAX" => DurationStat::Max,
        "MEDIAN" => DurationStat::Median,
        other => {
            let Some(digits) = other.strip_prefix("PERCENTILE") else {
                return Err(format!("Unsupported duration function: {other}"));
            };
            let p: f64 = digits.parse().map_err(|_| {
                format!(
                    "Invalid percentile function name: {other}, must be PERCENTILE followed by \
                     a double value between 0 and 100"
                )
            })?;
            let q = p / 100.0;
            if !(0.0..=1.0).contains(&q) {
                return Err(format!("Invalid percentile value: {q}"));
            }
            DurationStat::Percentile(q)
        }
    })
}

/// `FUNNELCOUNT(STEPS(…), CORRELATE_BY(…)[, SETTINGS(…)])` as `funnelcount(<key>, <step bit
/// mask>, numSteps)`. Several correlation columns make one text key, each value prefixed by
/// its length (so no two tuples share a key). `written` spells an argument for a message.
pub fn funnel_count_args(
    args: &[Expr],
    written: fn(&Expr) -> String,
) -> Result<Vec<Expr>, PlanError> {
    let invalid = |m: String| PlanError::Validation(m);
    let mut steps: Option<&[Expr]> = None;
    let mut keys: Option<&[Expr]> = None;
    let mut settings: Option<&[Expr]> = None;
    let mut bad = Vec::new();
    for a in args {
        match a {
            Expr::Function { name, args, .. } => {
                let slot = match crate::functions::canonical_name(name).as_str() {
                    "steps" => &mut steps,
                    "correlateby" => &mut keys,
                    "settings" => &mut settings,
                    _ => {
                        bad.push(written(a));
                        continue;
                    }
                };
                slot.get_or_insert(args);
            }
            other => bad.push(written(other)),
        }
    }
    if !bad.is_empty() {
        return Err(invalid(format!(
            "Invalid FUNNELCOUNT options: {}",
            bad.join(", ")
        )));
    }
    let keys = keys.ok_or_else(|| invalid("FUNNELCOUNT requires correlateby".into()))?;
    if keys.is_empty() {
        return Err(invalid(
            "FUNNELCOUNT: correlateby requires an argument.".into(),
        ));
    }
    let steps = steps.ok_or_else(|| invalid("FUNNELCOUNT requires steps".into()))?;
    if steps.is_empty() {
        return Err(invalid("FUNNELCOUNT: steps requires an argument.".into()));
    }
    if steps.len() > 63 {
        return Err(invalid("FUNNELCOUNT takes at most 63 steps".into()));
    }
    for s in settings.unwrap_or_default() {
        let Expr::Literal(Literal::String(text)) = s else {
            return Err(invalid(
                "FUNNELCOUNT: settings parameters must be literals".into(),
            ));
        };
        let setting: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let name = setting.split('=').next().unwrap_or_default().to_lowercase();
        if ![
            "set",
            "bitmap",
            "partitioned",
            "sorted",
            "theta_sketch",
            "nominalentries",
        ]
        .contains(&name.as_str())
        {
            return Err(invalid(format!("Invalid FUNNELCOUNT SETTINGS: {text}")));
        }
    }
    let key = match keys {
        [one] => one.clone(),
        many => length_prefixed(&many.iter().map(cast_text).collect::<Vec<_>>()),
    };
    let mask = steps
        .iter()
        .enumerate()
        .map(|(i, s)| Expr::Case {
            operand: None,
            branches: vec![(s.clone(), Expr::Literal(Literal::Long(1 << i)))],
            else_result: Some(Box::new(Expr::Literal(Literal::Long(0)))),
        })
        .reduce(|a, b| Expr::Binary {
            op: BinaryOp::Add,
            left: Box::new(a),
            right: Box::new(b),
        })
        .unwrap_or(Expr::Literal(Literal::Long(0)));
    Ok(vec![
        key,
        mask,
        Expr::Literal(Literal::Long(steps.len() as i64)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_prefixed_texts_split_back_whatever_they_hold() {
        assert_eq!(
            split_length_prefixed("1:02:a:6:héllo😀"),
            Some(vec!["0".into(), "a:".into(), "héllo😀".into()])
        );
        assert_eq!(split_length_prefixed(""), Some(vec![]));
        assert_eq!(split_length_prefixed("0:"), Some(vec![String::new()]));
        assert_eq!(split_length_prefixed("3:ab"), None);
        assert_eq!(split_length_prefixed("x:ab"), None);
    }
}
