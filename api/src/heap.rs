//! How the process's heap hands memory back to the kernel.
//!
//! Segment builds and queries allocate large, short-lived buffers (sort keys, spilled ids,
//! forward indexes) one after another. glibc's defaults serve each one from a fresh `mmap`
//! (or trim the heap as soon as it is freed), so the next buffer's every page is faulted in
//! and zeroed by the kernel again: on a TPC-H sf1 build that was about 400K page faults and
//! a tenth of the run. Keeping large blocks in the heap and trimming only beyond
//! [`TRIM_BYTES`] of free space lets the next buffer reuse pages already mapped.

/// Blocks of at most this size come from the heap rather than their own `mmap`.
const MMAP_THRESHOLD_BYTES: i32 = 1 << 30;
/// Free heap space beyond this is returned to the kernel.
const TRIM_BYTES: i32 = 512 << 20;

/// Applies the settings above; a no-op on platforms whose allocator is not glibc's.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only changes allocator parameters; it is called once, before any
    // thread other than main exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_BYTES);
    }
}
