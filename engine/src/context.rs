//! [`QueryContext`]: what every operator of one query shares — the deadline, the execution
//! options and a cancellation flag — checked once per block so a long scan stops promptly.

use crate::error::EngineError;
use planner::plan::ExecutionOptions;
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
        }
    }

    /// This context with a trace collector installed.
    pub fn with_trace(mut self) -> QueryContext {
        self.trace = Some(crate::trace::TraceCollector::default());
        self
    }

    /// Errors if the query was cancelled or is past its deadline.
    pub fn check(&self) -> Result<(), EngineError> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Err(EngineError::Cancelled);
        }
        if Instant::now() >= self.deadline {
            return Err(EngineError::Timeout(self.options.timeout_ms));
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
}
