//! Query quotas (`quota.maxQueriesPerSecond`, Pinot's `HelixExternalViewBasedQueryQuotaManager`):
//! each broker admits its share of a table's rate — the controller divides the rate by the
//! online brokers of the table's tenant and sends the share with the table's routing
//! ([`RoutingTable::max_queries_per_second`](crate::metadata::records::RoutingTable)) — and
//! refuses a query beyond it with Pinot's 429 before any server is asked. The limiter is Guava's
//! `RateLimiter` (smooth bursty, one second of stored permits) asked without waiting
//! (`tryAcquire`): a query passes when its ticket time has come, and takes one permit from the
//! stored ones or from the future. Refusals are counted with the broker's query errors (code
//! 429 in `/metrics`).

use super::Broker;
use engine::BrokerResponse;
use planner::plan::QueryPlan;
use segments::types::ErrorCode;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Pinot's refusal of a query of `tables` beyond their quota, or `None` when every table it
/// reads admits it (a table whose routing cannot be had is left to the query to report).
pub async fn admit(
    broker: &Broker,
    plan: &QueryPlan,
    tables: &[&str],
    request_id: &str,
    sql: &str,
) -> Option<BrokerResponse> {
    for raw in tables {
        let Ok(halves) = super::table_parts::typed_tables(broker, raw, true).await else {
            continue;
        };
        let mut admitted = true;
        for (typed, routing) in &halves {
            let rate = routing.max_queries_per_second.map(|r| r.0);
            admitted &= broker.quotas.try_acquire(typed, rate);
        }
        if !admitted {
            let message = match plan {
                QueryPlan::MultiStage(_) => {
                    format!("Request {request_id}: {sql} exceeds query quota.")
                }
                _ => format!("Request {request_id}: {sql} exceeds query quota for table: {raw}"),
            };
            return Some(BrokerResponse::from_exception(
                ErrorCode::TooManyRequests,
                &message,
            ));
        }
    }
    None
}

/// One table's limiter.
#[derive(Debug)]
struct Limiter {
    rate: f64,
    stored: f64,
    next_free: Instant,
}

impl Limiter {
    fn new(rate: f64, now: Instant) -> Limiter {
        Limiter {
            rate,
            stored: 0.0,
            next_free: now,
        }
    }

    /// Takes a permit if one is free at `now`.
    fn try_acquire(&mut self, now: Instant) -> bool {
        if now < self.next_free {
            return false;
        }
        // Permits stored while idle, at most one second's worth.
        let idle = now.duration_since(self.next_free).as_secs_f64();
        self.stored = (self.stored + idle * self.rate).min(self.rate);
        self.next_free = now;
        let from_stored = self.stored.min(1.0);
        self.stored -= from_stored;
        let fresh = 1.0 - from_stored;
        self.next_free += std::time::Duration::from_secs_f64(fresh / self.rate);
        true
    }
}

/// The limiters of the tables with a query quota, by typed table name.
#[derive(Debug, Default)]
pub struct QueryQuotas {
    limiters: Mutex<HashMap<String, Limiter>>,
}

impl QueryQuotas {
    /// Whether a query of `typed` may run now, under the broker's share `rate` of the table's
    /// quota (`None`: no quota; the table's limiter is dropped). A changed rate starts afresh.
    pub fn try_acquire(&self, typed: &str, rate: Option<f64>) -> bool {
        let Ok(mut limiters) = self.limiters.lock() else {
            return true;
        };
        let Some(rate) = rate.filter(|r| r.is_finite() && *r > 0.0) else {
            limiters.remove(typed);
            return true;
        };
        let now = Instant::now();
        let limiter = limiters
            .entry(typed.to_string())
            .or_insert_with(|| Limiter::new(rate, now));
        if limiter.rate != rate {
            *limiter = Limiter::new(rate, now);
        }
        limiter.try_acquire(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn admits_the_rate_with_a_second_of_burst() {
        let start = Instant::now();
        let mut l = Limiter::new(10.0, start);
        // A fresh limiter admits one query, then one every 100 ms.
        assert!(l.try_acquire(start));
        assert!(!l.try_acquire(start + Duration::from_millis(50)));
        assert!(l.try_acquire(start + Duration::from_millis(100)));
        // Idle for 5 s: a second's worth (10) is stored, plus the query whose time has come.
        let later = start + Duration::from_secs(5);
        let admitted = (0..30).filter(|_| l.try_acquire(later)).count();
        assert_eq!(admitted, 11);
    }

    #[test]
    fn no_quota_no_limit_and_a_new_rate_starts_afresh() {
        let q = QueryQuotas::default();
        assert!((0..100).all(|_| q.try_acquire("t_OFFLINE", None)));
        assert!(q.try_acquire("t_OFFLINE", Some(1.0)));
        assert!(!q.try_acquire("t_OFFLINE", Some(1.0)));
        assert!(q.try_acquire("t_OFFLINE", Some(2.0)));
        assert!(q.try_acquire("t_OFFLINE", None));
    }
}
