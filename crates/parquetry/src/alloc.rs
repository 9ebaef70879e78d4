//! Reserving output buffers: fallibly, and backed by huge pages when large.
//!
//! Reading a file into Arrow writes hundreds of megabytes into fresh memory. On Linux every
//! first touch of a 4 KiB page is a fault that the kernel zeroes and maps; measured here, those
//! faults cost more time than decoding the values themselves (about 3 µs each on this kind of
//! virtual machine). Asking for transparent huge pages on large fresh buffers turns 512 of
//! those faults into one. The advice is only a hint: the contents and validity of the memory
//! never change, and on other systems or when refused nothing happens.

/// Buffers smaller than this stay on ordinary pages: the advice would cost more than it saves.
const MIN_ADVISED_BYTES: usize = 16 << 20;

/// Reserves room for `additional` more elements. A hint too large to allocate is dropped
/// (the vector then grows as values arrive) instead of aborting; a fresh large allocation is
/// advised to use huge pages.
pub fn reserve<T>(v: &mut Vec<T>, additional: usize) {
    let before = v.capacity();
    if v.try_reserve(additional).is_ok() && v.capacity() != before {
        advise_huge_pages(v);
    }
}

/// Like [`reserve`], but for exactly `additional` more elements (no amortized doubling): for
/// callers that computed how much they need. Returns false, leaving `v` as it was, if the
/// memory could not be had.
pub fn reserve_exact<T>(v: &mut Vec<T>, additional: usize) -> bool {
    let before = v.capacity();
    let ok = v.try_reserve_exact(additional).is_ok();
    if ok && v.capacity() != before {
        advise_huge_pages(v);
    }
    ok
}

#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(v: &Vec<T>) {
    const HUGE_PAGE: usize = 2 << 20;
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < MIN_ADVISED_BYTES {
        return;
    }
    // Only whole 2 MiB pages inside the allocation can be huge pages.
    let start = v.as_ptr() as usize;
    let first = start.next_multiple_of(HUGE_PAGE);
    let end = (start + bytes) & !(HUGE_PAGE - 1);
    if end <= first {
        return;
    }
    // SAFETY: [first, end) lies inside the vector's own allocation (start..start + bytes),
    // which is live for the duration of the call. MADV_HUGEPAGE only changes how the kernel
    // backs pages of that range when they are next touched; it never changes their contents,
    // frees them, or makes them inaccessible, so no Rust invariant depends on its outcome,
    // and its error result (e.g. huge pages disabled) is deliberately ignored.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_v: &Vec<T>) {}

#[cfg(test)]
mod tests {
    use super::reserve;

    #[test]
    fn reserve_small_large_and_impossible() {
        // Small: ordinary reservation, no advice.
        let mut small: Vec<u8> = Vec::new();
        reserve(&mut small, 100);
        assert!(small.capacity() >= 100);

        // Large, with existing contents that must survive and a misaligned start.
        let mut large: Vec<u8> = vec![7; 3];
        reserve(&mut large, 40 << 20);
        assert!(large.capacity() >= (40 << 20) + 3);
        assert_eq!(large, [7, 7, 7]);
        large.resize(40 << 20, 1);
        assert!(large[3..].iter().all(|&b| b == 1));

        // Exactly at the threshold with a wide element type.
        let mut wide: Vec<u128> = Vec::new();
        reserve(&mut wide, (16 << 20) / 16);
        wide.push(5);
        assert_eq!(wide[0], 5);

        // A hint no machine can satisfy is ignored instead of aborting.
        let mut huge: Vec<u64> = vec![1];
        reserve(&mut huge, usize::MAX / 4);
        assert_eq!(huge, [1]);
    }
}
