//! Peak heap bytes: the global allocator (mimalloc) wrapped in a counter of live bytes and
//! their high-water mark.
//!
//! Peak RSS mixes in what the allocator keeps after a free (with `MIMALLOC_PURGE_DELAY=-1`
//! every earlier run's freed output stays resident), the code pages a first read faults in,
//! and, for memory maps, the file's page cache. The memory target is about what one
//! read allocates, so each run also records its peak of live heap bytes above what was live
//! when it started: exact, and the same for every Rust implementation in the bench.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// mimalloc with live-byte accounting.
pub struct Counting(pub mimalloc::MiMalloc);

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Relaxed);
}

// SAFETY: every call is forwarded unchanged to mimalloc, which upholds the GlobalAlloc
// contract; the counters only observe sizes and never touch the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { self.0.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Count the new block before the old one goes, as a copying realloc holds both.
            grew(new_size);
            shrank(layout.size());
        }
        p
    }
}

/// Bytes live on the heap now.
pub fn live() -> usize {
    LIVE.load(Relaxed)
}

/// Restarts the high-water mark from what is live now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Relaxed), Relaxed);
}

/// The most bytes live at once since the last [`reset_peak`].
pub fn peak() -> usize {
    PEAK.load(Relaxed)
}
