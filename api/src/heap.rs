//! How the process's heap hands memory back to the kernel.
//!
//! Segment builds and queries allocate large, short-lived buffers (sort keys, spilled ids,
//! forward indexes, a multi-stage query's column vectors) one after another. Memory returned to
//! the kernel as soon as it is freed must be faulted in and zeroed again by the next buffer: on
//! TPC-H sf1 that was a fifth of a multi-stage join. The `tessera` binary allocates with mimalloc
//! and has it keep freed memory for [`PURGE_DELAY_MS`] before returning it, so back-to-back
//! work reuses mapped pages and an idle process still shrinks. One second (mimalloc's own
//! default) was too short: a query's buffers are freed on one thread and the next query's
//! allocated on others, so freed ranges aged out before they were reused, and TPC-H Q5 in a loop
//! still spent 11 % of its time zeroing fresh huge pages (10 s: none; median 122 → 95 ms; peak
//! RSS of the four-query join benchmark 788 → 920 MiB). Where glibc's allocator serves
//! (a library user's process), large blocks stay in its heap and it trims only beyond
//! [`TRIM_BYTES`] of free space.
//!
//! Transparent huge pages are off for the process. mimalloc asks for them on its arenas, and
//! then every first touch of a 2 MiB range faults in and zeroes a whole huge page, under the
//! process's memory-map lock: on TPC-H sf1 through the broker that was a sixth of the CPU time
//! and the main reason two threads were barely faster than one (all 22 queries: one thread
//! 1789 -> 1631-1698 ms, two threads 1553-1647 -> 1232-1314 ms, CPU at two threads 2073 ->
//! 1720-1783 ms). Segment files are read through the page cache, which this does not change.

/// How long mimalloc keeps freed memory before returning it to the kernel.
const PURGE_DELAY_MS: std::ffi::c_long = 10_000;
/// mimalloc's `mi_option_purge_delay`: its position in `mi_option_e` of the bundled mimalloc
/// (the Rust bindings name only some options).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// glibc: blocks of at most this size come from the heap rather than their own `mmap`.
const MMAP_THRESHOLD_BYTES: i32 = 1 << 30;
/// glibc: free heap space beyond this is returned to the kernel.
const TRIM_BYTES: i32 = 512 << 20;

/// Applies the settings above (each allocator ignores the other's).
pub fn tune() {
    // SAFETY: `mi_option_set` only changes an allocator parameter; it is called once, at
    // start-up, before any thread other than main exists.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
    }
    #[cfg(target_os = "linux")]
    // SAFETY: `PR_SET_THP_DISABLE` only sets a flag of this process's memory map; it takes no
    // pointers.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator parameters; it is called once, before any
    // thread other than main exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_BYTES);
    }
}

/// Hands the calling thread's freed memory back: its empty pages to the process's arenas
/// (a thread about to end would otherwise leave them abandoned) and, with `purge`, every
/// arena's freed pages to the kernel now rather than after [`PURGE_DELAY_MS`]. For work that
/// frees large buffers and is not followed by more of the same soon: a merge thread at its
/// end, a real-time consumer whose stream went quiet. Under glibc's allocator it does
/// nothing.
pub fn release_freed(purge: bool) {
    // SAFETY: `mi_collect` only walks and frees the allocator's own structures; it is safe
    // from any thread at any time.
    unsafe {
        libmimalloc_sys::mi_collect(purge);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_purge_delay_option_is_the_one_named() {
        // mimalloc's purge delay defaults to 10 ms (v2) or 1 s (v3) (no option beside it does), or is ours once
        // `tune` ran in this process.
        // SAFETY: reading an allocator option.
        let value = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert!(
            value == 10 || value == 1_000 || value == PURGE_DELAY_MS,
            "{value}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn tuning_turns_transparent_huge_pages_off() {
        tune();
        // SAFETY: reading this process's flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
