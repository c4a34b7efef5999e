//! Wall-clock time.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Sleeps `total`, waking every 50 ms to return early once `stop` is set.
pub async fn sleep_unless_stopped(
    stop: &std::sync::atomic::AtomicBool,
    total: std::time::Duration,
) {
    let step = std::time::Duration::from_millis(50).min(total);
    let mut waited = std::time::Duration::ZERO;
    while waited < total && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        async_std::task::sleep(step).await;
        waited += step;
    }
}
