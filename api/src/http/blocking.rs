//! [`on_rayon`]: run CPU-bound work (query execution, segment builds, untar + validation) on the
//! process's rayon pool and await its result, so async executor threads never block on it.
//! [`catching`] is its panic net for work bounded enough to run where it is called.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `work` here; a panic in it comes back as `Err(message)` instead of unwinding into the
/// caller.
pub fn catching<T>(work: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "worker panicked".to_string())
    })
}

/// Runs `work` on the global rayon pool and awaits its result. A panic in `work` comes back as
/// `Err(message)` instead of unwinding into the caller.
pub async fn on_rayon<T, F>(work: F) -> Result<T, String>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = async_std::channel::bounded(1);
    rayon::spawn(move || {
        let _ = tx.try_send(catching(work));
    });
    rx.recv()
        .await
        .map_err(|_| "worker dropped its result".to_string())?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[async_std::test]
    async fn returns_values_and_catches_panics() {
        assert_eq!(on_rayon(|| 6 * 7).await, Ok(42));
        let err = on_rayon(|| -> u32 { panic!("bad segment") })
            .await
            .unwrap_err();
        assert_eq!(err, "bad segment");
        assert_eq!(catching(|| 7), Ok(7));
        assert_eq!(
            catching(|| -> u32 { panic!("at {}", 3) }),
            Err("at 3".to_string())
        );
    }
}
