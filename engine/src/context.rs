//! [`QueryContext`]: what every operator of one query shares — the deadline, the execution
//! options and a cancellation flag — checked once per block so a long scan stops promptly.
//!
//! A context may also carry an inline budget ([`QueryContext::inline`]): a caller that would
//! otherwise hand a query to rayon first runs it on its own thread, sequentially, and the
//! first check past the budget stops it ([`EngineError::OverBudget`]); the caller then drops
//! that attempt's answer and runs the query again on rayon with the budget lifted
//! ([`QueryContext::unbounded`]). A query answered from an index in microseconds so never pays
//! the hand-over to a pool thread and back (two wake-ups, and idle workers spinning after it).

use crate::error::EngineError;
use planner::plan::ExecutionOptions;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Per-query execution state shared by all segments (and threads) of a query.
#[derive(Debug)]
pub struct QueryContext {
    /// When the query started.
    pub start: Instant,
    /// When it must be finished (`start + timeoutMs`).
    pub deadline: Instant,
    pub options: ExecutionOptions,
    /// Set to stop the query (client gone, `DELETE /query/{id}`).
    pub cancelled: AtomicBool,
    /// Per-segment operator tracing (`"trace": true`); `None` costs nothing.
    pub trace: Option<crate::trace::TraceCollector>,
    /// The segments' docs taken at the query's start (an upsert table's consistency mode);
    /// `None`: each segment's current ones.
    pub docs: Option<Arc<crate::docs_view::DocsView>>,
    /// Inline attempts: when the attempt must stop (see the module docs).
    budget: Option<Instant>,
    /// Set by the check that found the budget spent.
    over_budget: AtomicBool,
}

impl QueryContext {
    /// A context whose deadline is `options.timeout_ms` from now.
    pub fn new(options: ExecutionOptions) -> QueryContext {
        let start = Instant::now();
        QueryContext {
            start,
            deadline: start + Duration::from_millis(options.timeout_ms),
            options,
            cancelled: AtomicBool::new(false),
            trace: None,
            docs: None,
            budget: None,
            over_budget: AtomicBool::new(false),
        }
    }

    /// This context as an inline attempt that stops at its first check `budget` after now.
    pub fn inline(mut self, budget: Duration) -> QueryContext {
        self.budget = Some(Instant::now() + budget);
        self
    }

    /// Whether this is an inline attempt: segments and doc ranges run one after another on
    /// the calling thread.
    pub fn is_inline(&self) -> bool {
        self.budget.is_some()
    }

    /// Whether an inline attempt ran out of its budget (its answer must be dropped).
    pub fn over_budget(&self) -> bool {
        self.over_budget.load(Ordering::Relaxed)
    }

    /// The context for running the query again after an inline attempt: the same start,
    /// deadline, options and cancellation, no budget, an empty trace.
    pub fn unbounded(mut self) -> QueryContext {
        self.budget = None;
        self.over_budget = AtomicBool::new(false);
        if self.trace.is_some() {
            self.trace = Some(crate::trace::TraceCollector::default());
        }
        self
    }

    /// This context with a trace collector installed.
    pub fn with_trace(mut self) -> QueryContext {
        self.trace = Some(crate::trace::TraceCollector::default());
        self
    }

    /// This context reading the segments' docs from `view`.
    pub fn with_docs(mut self, view: Option<Arc<crate::docs_view::DocsView>>) -> QueryContext {
        self.docs = view;
        self
    }

    /// The docs `segment` shows this query (`None`: all).
    pub fn queryable_docs(
        &self,
        segment: &segments::ImmutableSegment,
    ) -> Option<Arc<roaring::RoaringBitmap>> {
        match &self.docs {
            Some(view) => view.of(segment),
            None => segment.queryable_docs(),
        }
    }

    /// Errors if the query was cancelled or is past its deadline.
    pub fn check(&self) -> Result<(), EngineError> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(EngineError::Cancelled);
        }
        let now = Instant::now();
        if now >= self.deadline {
            return Err(EngineError::Timeout(self.options.timeout_ms));
        }
        if self.budget.is_some_and(|b| now >= b) {
            self.over_budget.store(true, Ordering::Relaxed);
            return Err(EngineError::OverBudget);
        }
        Ok(())
    }

    /// Requests cancellation.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether null handling is on (`enableNullHandling`).
    pub fn null_handling(&self) -> bool {
        self.options.enable_null_handling
    }

    /// Milliseconds since the query started.
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_and_cancellation() {
        let ctx = QueryContext::new(ExecutionOptions::default());
        assert!(ctx.check().is_ok());
        ctx.cancel();
        assert_eq!(ctx.check(), Err(EngineError::Cancelled));
        let expired = QueryContext::new(ExecutionOptions {
            timeout_ms: 0,
            ..ExecutionOptions::default()
        });
        assert_eq!(expired.check(), Err(EngineError::Timeout(0)));
    }

    #[test]
    fn an_inline_attempt_stops_at_its_budget_and_runs_again_without() {
        let roomy = QueryContext::new(ExecutionOptions::default()).inline(Duration::from_secs(60));
        assert!(roomy.is_inline());
        assert!(roomy.check().is_ok());
        assert!(!roomy.over_budget());
        let spent = QueryContext::new(ExecutionOptions::default()).inline(Duration::ZERO);
        assert_eq!(spent.check(), Err(EngineError::OverBudget));
        assert!(spent.over_budget());
        let (start, deadline) = (spent.start, spent.deadline);
        let again = spent.unbounded();
        assert!(!again.is_inline() && !again.over_budget());
        assert_eq!((again.start, again.deadline), (start, deadline));
        assert!(again.check().is_ok());
    }
}
