//! What a fault test's clients did and saw, and the checks over it.
//!
//! * [`Segments`]: the segment writer's uploads, refreshes (an upload under a name already
//!   there: a new version with other rows) and deletes, each with when it was asked and when (and
//!   whether) it was acknowledged; [`Segments::check_answer`] says whether a query's per-segment
//!   counts could be right for some moment between its start and its end.
//! * [`Register`]: reads and writes of one value (a table config field), checked for
//!   linearizability by [`Register::check`] — a search over the states the register could be
//!   in, Knossos-style, for one client whose operations do not overlap except writes whose
//!   outcome is unknown (a timeout), which may take effect at any later moment, or never.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// How an operation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Acknowledged at this instant.
    Ok(Instant),
    /// Refused, or no answer: it may or may not have taken effect.
    Unknown,
}

/// One upload (or refresh) or delete of a segment.
#[derive(Clone, Debug)]
pub struct SegmentOp {
    pub segment: String,
    /// An upload or refresh: a version of the segment with `rows` rows.
    pub upload: bool,
    pub rows: u64,
    pub asked: Instant,
    pub outcome: Outcome,
}

/// The writer's history, in the order it was asked, with each segment's operations.
#[derive(Default)]
pub struct Segments {
    pub ops: Vec<SegmentOp>,
    by_segment: BTreeMap<String, Vec<usize>>,
}

impl Segments {
    /// Records one more operation.
    pub fn push(&mut self, op: SegmentOp) {
        let at = self.ops.len();
        self.by_segment
            .entry(op.segment.clone())
            .or_default()
            .push(at);
        self.ops.push(op);
    }

    /// `segment`'s operations, in the order they were asked.
    pub fn ops_of<'a>(&'a self, segment: &str) -> impl Iterator<Item = &'a SegmentOp> + 'a {
        let at = self.by_segment.get(segment).map_or(&[][..], Vec::as_slice);
        at.iter().map(|i| &self.ops[*i])
    }

    /// Whether `segment` may be in the table at some moment of `[start, end]`: its upload was
    /// asked before `end`, and no delete of it was acknowledged before `start`.
    pub fn may_be_present(&self, segment: &str, start: Instant, end: Instant) -> bool {
        let uploaded = self.ops_of(segment).any(|o| o.upload && o.asked < end);
        let deleted = self
            .ops_of(segment)
            .any(|o| !o.upload && matches!(o.outcome, Outcome::Ok(at) if at < start));
        uploaded && !deleted
    }

    /// Whether a delete of `segment` was asked before `end`.
    pub fn delete_asked(&self, segment: &str, end: Instant) -> bool {
        self.ops_of(segment).any(|o| !o.upload && o.asked < end)
    }

    /// Whether an answer of `counts` (segment → rows counted) to a query run over
    /// `[start, end]` can be right: every segment counted may be present then, with exactly its
    /// rows (never a part, never twice), and every segment in `established` (counted whole by an
    /// answer that ended before `start`) whose delete was not asked before `end` is counted.
    pub fn check_answer(
        &self,
        counts: &BTreeMap<String, u64>,
        start: Instant,
        end: Instant,
        established: &BTreeSet<String>,
    ) -> Result<(), String> {
        for (segment, n) in counts {
            if !self.may_be_present(segment, start, end) {
                return Err(format!(
                    "{segment} counted ({n} rows) but cannot be present"
                ));
            }
            // One whole version, written before the end: never a part, a sum, or a mix.
            let versions: Vec<u64> = self
                .ops_of(segment)
                .filter(|o| o.upload && o.asked < end)
                .map(|o| o.rows)
                .collect();
            if !versions.contains(n) {
                return Err(format!(
                    "{segment} counted {n} rows, its versions have {versions:?}"
                ));
            }
        }
        for segment in established {
            if !counts.contains_key(segment) && !self.delete_asked(segment, end) {
                return Err(format!("{segment} was answered before and is missing"));
            }
        }
        Ok(())
    }

    /// The segments whose upload was acknowledged and no delete of which was asked: every one
    /// must be in the table once the cluster healed.
    pub fn surely_present(&self) -> BTreeSet<String> {
        let mut present = BTreeSet::new();
        for o in &self.ops {
            if o.upload && matches!(o.outcome, Outcome::Ok(_)) {
                present.insert(o.segment.clone());
            }
        }
        present.retain(|s| !self.delete_asked(s, Instant::now()));
        present
    }

    /// The rows `segment` may hold once every write is done: its last acknowledged version's,
    /// or those of versions asked after it whose outcome is unknown.
    pub fn final_rows(&self, segment: &str) -> BTreeSet<u64> {
        let versions: Vec<&SegmentOp> = self.ops_of(segment).filter(|o| o.upload).collect();
        let last_acked = versions
            .iter()
            .rposition(|o| matches!(o.outcome, Outcome::Ok(_)))
            .unwrap_or(0);
        versions[last_acked..].iter().map(|o| o.rows).collect()
    }

    /// The segments whose delete was acknowledged: none may be in the table any more.
    pub fn surely_gone(&self) -> BTreeSet<String> {
        self.ops
            .iter()
            .filter(|o| !o.upload && matches!(o.outcome, Outcome::Ok(_)))
            .map(|o| o.segment.clone())
            .collect()
    }
}

/// One operation on the register: a write of a value or a read that saw one.
#[derive(Clone, Debug)]
pub struct RegisterOp {
    pub write: bool,
    pub value: u64,
    pub asked: Instant,
    pub outcome: Outcome,
}

/// The register client's history (its operations in the order it asked them).
#[derive(Default)]
pub struct Register {
    pub initial: u64,
    pub ops: Vec<RegisterOp>,
}

impl Register {
    /// Whether the history is linearizable: there is one order of the operations, each taking
    /// effect at one instant between its asking and its acknowledgement (a write of unknown
    /// outcome: at any instant after its asking, or never), in which every read sees the
    /// latest write. Reads without an answer say nothing and are left out.
    pub fn check(&self) -> Result<(), String> {
        // The states the register may be in: its value, and which unknown writes took effect.
        // An unknown write no read saw may be taken never to have landed (always allowed, and
        // no read needs it), so only those some read saw are searched over (values are unique).
        let read: BTreeSet<u64> = self
            .ops
            .iter()
            .filter(|o| !o.write)
            .map(|o| o.value)
            .collect();
        let unknown: Vec<&RegisterOp> = self
            .ops
            .iter()
            .filter(|o| o.write && o.outcome == Outcome::Unknown && read.contains(&o.value))
            .collect();
        if unknown.len() > 24 {
            return Err(format!(
                "{} writes of unknown outcome: too many to check",
                unknown.len()
            ));
        }
        let mut states: BTreeSet<(u64, u32)> = BTreeSet::from([(self.initial, 0)]);
        // Lands any unknown writes asked before `now` that have not yet landed, in any order.
        let land = |states: &mut BTreeSet<(u64, u32)>, now: Instant| {
            let mut frontier: Vec<(u64, u32)> = states.iter().copied().collect();
            while let Some((_, landed)) = frontier.pop() {
                for (i, w) in unknown.iter().enumerate() {
                    let bit = 1u32 << i;
                    if landed & bit == 0 && w.asked <= now {
                        let next = (w.value, landed | bit);
                        if states.insert(next) {
                            frontier.push(next);
                        }
                    }
                }
            }
        };
        for (n, op) in self.ops.iter().enumerate() {
            let Outcome::Ok(done) = op.outcome else {
                continue;
            };
            land(&mut states, done);
            if op.write {
                states = states.iter().map(|(_, l)| (op.value, *l)).collect();
            } else {
                states.retain(|(v, _)| *v == op.value);
                if states.is_empty() {
                    return Err(format!(
                        "operation {n}: a read saw {} where no order of the writes puts it",
                        op.value
                    ));
                }
            }
        }
        Ok(())
    }
}
