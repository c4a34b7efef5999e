//! The funnels' answers from their states ([`planner::plan::funnel`] says how calls become
//! states): Pinot's sliding-window funnels over a group's (time, step) events, and
//! `FUNNELCOUNT`'s per-step key sets.
//!
//! A window starts at a step-0 event and takes the following events while they are before
//! `start + window` (and, with a maximum step duration, no further than that after the event
//! before them). Windows start at each step-0 event in turn while events remain to be taken,
//! as Pinot's loop does: once the last event has entered a window, later starts inside that
//! window are not tried.

use crate::key::Key;
use planner::plan::funnel::{DurationStat, FunnelKind, WindowFunnel};
use segments::types::Value;
use std::collections::{HashSet, VecDeque};

/// One event: its time and the step it matched (−1: none, kept in `KEEP_ALL` mode).
pub type Event = (i64, i32);

/// An event with `FUNNELEVENTSFUNCTIONEVAL`'s extra fields, as text.
pub type FieldEvent = (i64, i32, Vec<String>);

/// The final value of a window funnel over a group's events.
pub fn finalize(f: &WindowFunnel, events: &[Event]) -> Value {
    let mut queue: Vec<Slot> = events.iter().map(|&(t, s)| (t, s, 0)).collect();
    queue.sort_unstable();
    let mut queue: VecDeque<Slot> = queue.into();
    match f.kind {
        FunnelKind::MaxStep => Value::Int(max_step(f, &mut queue)),
        FunnelKind::MatchStep => {
            let reached = max_step(f, &mut queue);
            Value::Array(
                (0..f.steps as i32)
                    .map(|s| Value::Int(i32::from(s < reached)))
                    .collect(),
            )
        }
        FunnelKind::CompleteCount => Value::Int(complete_count(f, &mut queue)),
        FunnelKind::StepDurationStats => Value::Array(
            duration_stats(f, &mut queue)
                .into_iter()
                .map(Value::Double)
                .collect(),
        ),
        // Events without fields: nothing to report but the number of matches.
        FunnelKind::EventsFunctionEval => {
            let events: Vec<FieldEvent> = events.iter().map(|&(t, s)| (t, s, Vec::new())).collect();
            finalize_fields(f, &events)
        }
    }
}

/// `FUNNELEVENTSFUNCTIONEVAL`: the number of completed funnels and, for each, the extra fields
/// of its steps' first events (each completion reports from its window's start, as Pinot
/// does); an empty array for no events.
pub fn finalize_fields(f: &WindowFunnel, events: &[FieldEvent]) -> Value {
    if events.is_empty() {
        return Value::Array(Vec::new());
    }
    let mut queue: Vec<Slot> = events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.0, e.1, i))
        .collect();
    queue.sort_unstable();
    let mut queue: VecDeque<Slot> = queue.into();
    let mut matches: Vec<Vec<String>> = Vec::new();
    completions(f, &mut queue, |window| {
        let mut next = 0;
        let mut out = Vec::new();
        for &(_, step, i) in window {
            if step == next {
                out.extend(events[i].2.iter().cloned());
                next += 1;
            }
        }
        matches.push(out);
    });
    let mut head = matches.len().to_string();
    for m in &matches {
        head.push_str(&format!(", {}", m.len()));
    }
    let mut out = vec![Value::String(head)];
    out.extend(matches.into_iter().flatten().map(Value::String));
    Value::Array(out)
}

/// An event in a window: its time, its step and where it came from (its extra fields).
type Slot = (i64, i32, usize);

/// Moves the next window into `window`: drops its front events up to a step-0 one (or takes
/// the queue's next step-0 event), then takes what follows while it fits.
fn fill_window(f: &WindowFunnel, queue: &mut VecDeque<Slot>, window: &mut VecDeque<Slot>) {
    while window.front().is_some_and(|e| e.1 != 0) {
        window.pop_front();
    }
    if window.is_empty() {
        while queue.front().is_some_and(|e| e.1 != 0) {
            queue.pop_front();
        }
        let Some(first) = queue.pop_front() else {
            return;
        };
        window.push_back(first);
    }
    let end = window[0].0.wrapping_add(f.window);
    while let Some(&next) = queue.front() {
        if next.0 >= end {
            break;
        }
        if f.max_step_duration > 0
            && window
                .back()
                .is_some_and(|last| next.0.wrapping_sub(last.0) > f.max_step_duration)
        {
            break;
        }
        window.push_back(next);
        queue.pop_front();
    }
}

/// The furthest step one window reaches, under the funnel's modes.
fn window_max_step(f: &WindowFunnel, window: &VecDeque<Slot>) -> i32 {
    let steps = f.steps as i32;
    let (mut reached, mut previous) = (0, -1);
    for &(at, step, _) in window {
        if f.modes.strict_deduplication && step == reached - 1 {
            return reached;
        }
        if f.modes.strict_order && step != reached {
            return reached;
        }
        if f.modes.strict_increase && previous == at {
            continue;
        }
        if reached == step {
            reached += 1;
            previous = at;
        }
        if reached == steps {
            break;
        }
    }
    reached
}

/// `FUNNELMAXSTEP`: the furthest step any window reaches.
fn max_step(f: &WindowFunnel, queue: &mut VecDeque<Slot>) -> i32 {
    let mut window = VecDeque::new();
    let mut best = 0;
    while !queue.is_empty() {
        fill_window(f, queue, &mut window);
        if window.is_empty() {
            break;
        }
        best = best.max(window_max_step(f, &window));
        if best == f.steps as i32 {
            break;
        }
        window.pop_front();
    }
    best
}

/// `FUNNELCOMPLETECOUNT`: funnels completed.
fn complete_count(f: &WindowFunnel, queue: &mut VecDeque<Slot>) -> i32 {
    let mut completed = 0;
    completions(f, queue, |_| completed += 1);
    completed
}

/// Calls `completed` with the window at each completion of the funnel, several per window
/// possible: after one, the window continues from the completing event (events before it
/// leave when the window moves on).
fn completions(
    f: &WindowFunnel,
    queue: &mut VecDeque<Slot>,
    mut completed: impl FnMut(&VecDeque<Slot>),
) {
    let steps = f.steps as i32;
    let mut window = VecDeque::new();
    while !queue.is_empty() {
        fill_window(f, queue, &mut window);
        let Some(first) = window.front() else {
            break;
        };
        let mut start = first.0;
        let (mut reached, mut previous) = (0, -1);
        for &(at, step, _) in &window {
            if f.modes.strict_deduplication && step == reached - 1 {
                reached = 0;
            }
            if f.modes.strict_order && step != reached {
                reached = 0;
            }
            if f.modes.strict_increase && previous == at {
                continue;
            }
            previous = at;
            if reached == step {
                reached += 1;
            }
            if reached == steps {
                completed(&window);
                reached = 0;
                start = at;
            }
        }
        window.pop_front();
        while window.front().is_some_and(|e| e.0 < start) {
            window.pop_front();
        }
    }
}

/// `FUNNELSTEPDURATIONSTATS`: for each step, each statistic asked of the time to the next step
/// over the windows that complete the funnel (the first event of each step, in time order);
/// `COUNT` is 1 for the steps any window reached. Empty when nothing completed and `COUNT` is
/// not asked.
fn duration_stats(f: &WindowFunnel, queue: &mut VecDeque<Slot>) -> Vec<f64> {
    let n = f.steps as usize;
    if queue.is_empty() || n == 0 {
        return Vec::new();
    }
    let mut reached_flags = vec![false; n];
    let mut durations: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut completed_any = false;
    let mut window = VecDeque::new();
    while !queue.is_empty() {
        fill_window(f, queue, &mut window);
        if window.is_empty() {
            break;
        }
        let reached = window_max_step(f, &window) as usize;
        if reached == n {
            completed_any = true;
            let mut times: Vec<i64> = Vec::new();
            for &(at, step, _) in &window {
                if step >= 0 && times.len() <= step as usize {
                    times.push(at);
                }
            }
            for i in 0..times.len().saturating_sub(1) {
                reached_flags[i] = true;
                durations[i].push(times[i + 1].wrapping_sub(times[i]) as f64);
            }
            reached_flags[n - 1] = true;
        } else {
            reached_flags[..reached].iter_mut().for_each(|r| *r = true);
        }
        window.pop_front();
    }
    let counted = f.durations.contains(&DurationStat::Count);
    if !counted && !completed_any {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(n * f.durations.len());
    for (step, values) in durations.iter_mut().enumerate() {
        values.sort_by(f64::total_cmp);
        for stat in &f.durations {
            let value = match stat {
                DurationStat::Count => f64::from(u8::from(reached_flags[step])),
                _ if !completed_any || step == n - 1 || values.is_empty() => 0.0,
                DurationStat::Avg => values.iter().sum::<f64>() / values.len() as f64,
                DurationStat::Min => quantile(values, 0.0),
                DurationStat::Max => quantile(values, 1.0),
                DurationStat::Median => quantile(values, 0.5),
                DurationStat::Percentile(q) => quantile(values, *q),
            };
            out.push(value);
        }
    }
    out
}

/// The exact quantile of sorted values, as a q-digest without error answers it: the first
/// value whose rank passes `q · n`.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    (0..n)
        .find(|&i| (i + 1) as f64 > q * n as f64)
        .map_or(sorted[n - 1], |i| sorted[i])
}

/// `FUNNELCOUNT`: for step k, the keys that met steps 0 through k.
pub fn funnel_counts(per_step: &[crate::key::KeySet]) -> Value {
    let mut out = Vec::with_capacity(per_step.len());
    let mut through: Option<HashSet<&Key>> = None;
    for keys in per_step {
        let next: HashSet<&Key> = match through {
            None => keys.iter().collect(),
            Some(prev) => prev.into_iter().filter(|k| keys.contains(*k)).collect(),
        };
        out.push(Value::Long(next.len() as i64));
        through = Some(next);
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::funnel::FunnelModes;

    fn funnel(kind: FunnelKind, steps: u32, window: i64, modes: FunnelModes) -> WindowFunnel {
        WindowFunnel {
            window,
            steps,
            modes,
            ..WindowFunnel::new(kind)
        }
    }

    /// Pinot's `WindowFunnelTest` users: (time, url step) rows, steps search → cart →
    /// checkout → confirmation (0..3).
    fn users() -> [Vec<Event>; 4] {
        [
            vec![(1000, 0), (1010, 1), (1020, 2), (1025, 1), (1030, 3)],
            vec![(2010, 2), (2010, 1), (2000, 0)],
            vec![(1000, 0), (1010, 1), (1015, 1), (1020, 2), (11030, 3)],
            vec![(2020, 2), (12010, 1), (12050, 0)],
        ]
    }

    #[test]
    fn max_steps_match_pinots_tests_in_every_mode() {
        let modes = |d, o, i| FunnelModes {
            strict_deduplication: d,
            strict_order: o,
            strict_increase: i,
            keep_all: false,
        };
        for (mode, expected) in [
            (modes(false, false, false), [4, 3, 3, 1]),
            (modes(false, true, false), [3, 3, 2, 1]),
            (modes(true, false, false), [4, 3, 2, 1]),
            (modes(false, false, true), [4, 2, 3, 1]),
        ] {
            let f = funnel(FunnelKind::MaxStep, 4, 1000, mode);
            let got: Vec<Value> = users().iter().map(|u| finalize(&f, u)).collect();
            let want: Vec<Value> = expected.iter().map(|x| Value::Int(*x)).collect();
            assert_eq!(got, want, "{mode:?}");
        }
        let f = funnel(FunnelKind::CompleteCount, 4, 1000, FunnelModes::default());
        let got: Vec<Value> = users().iter().map(|u| finalize(&f, u)).collect();
        assert_eq!(got, [1, 0, 0, 0].map(Value::Int));
    }

    #[test]
    fn duration_stats_match_pinots_test() {
        let mut f = funnel(
            FunnelKind::StepDurationStats,
            4,
            1000,
            FunnelModes::default(),
        );
        f.durations = vec![
            DurationStat::Count,
            DurationStat::Avg,
            DurationStat::Min,
            DurationStat::Median,
            DurationStat::Percentile(0.95),
            DurationStat::Max,
        ];
        let d = |v: &[f64]| Value::Array(v.iter().map(|x| Value::Double(*x)).collect());
        let u = users();
        let ten = [1.0, 10.0, 10.0, 10.0, 10.0, 10.0];
        let mut first = [ten, ten, ten].concat();
        first.extend([1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(finalize(&f, &u[0]), d(&first));
        let mut partial = vec![0.0; 24];
        partial[0] = 1.0;
        partial[6] = 1.0;
        partial[12] = 1.0;
        assert_eq!(finalize(&f, &u[1]), d(&partial));
        let mut start_only = vec![0.0; 24];
        start_only[0] = 1.0;
        assert_eq!(finalize(&f, &u[3]), d(&start_only));
        // Without COUNT, a group that completed nothing has no statistics.
        f.durations.remove(0);
        assert_eq!(finalize(&f, &u[1]), d(&[]));
    }

    #[test]
    fn windows_end_before_start_plus_size_and_steps_may_not_gap_too_long() {
        let f = funnel(FunnelKind::MaxStep, 2, 10, FunnelModes::default());
        assert_eq!(finalize(&f, &[(0, 0), (10, 1)]), Value::Int(1));
        assert_eq!(finalize(&f, &[(0, 0), (9, 1)]), Value::Int(2));
        let mut g = f.clone();
        g.max_step_duration = 5;
        assert_eq!(finalize(&g, &[(0, 0), (6, 1)]), Value::Int(1));
        assert_eq!(finalize(&g, &[(0, 0), (5, 1)]), Value::Int(2));
        // Pinot stops once every event has been taken: the start at 10 is never tried.
        let dedup = FunnelModes {
            strict_deduplication: true,
            ..FunnelModes::default()
        };
        let d = funnel(FunnelKind::MaxStep, 2, 1000, dedup);
        assert_eq!(finalize(&d, &[(0, 0), (10, 0), (12, 1)]), Value::Int(1));
        assert_eq!(
            finalize(&d, &[(0, 0), (10, 0), (12, 1), (5000, 1)]),
            Value::Int(2)
        );
        let m = funnel(FunnelKind::MatchStep, 3, 10, FunnelModes::default());
        assert_eq!(
            finalize(&m, &[(0, 0), (1, 1)]),
            Value::Array(vec![Value::Int(1), Value::Int(1), Value::Int(0)])
        );
        assert_eq!(finalize(&m, &[]), Value::Array(vec![Value::Int(0); 3]));
    }

    #[test]
    fn funnel_counts_intersect_step_by_step() {
        let set = |keys: &[i32]| keys.iter().map(|k| Key(Value::Int(*k))).collect();
        let steps: Vec<crate::key::KeySet> =
            vec![set(&[1, 2, 3, 4]), set(&[2, 3, 9]), set(&[3, 9])];
        assert_eq!(
            funnel_counts(&steps),
            Value::Array(vec![Value::Long(4), Value::Long(2), Value::Long(1)])
        );
    }
}
