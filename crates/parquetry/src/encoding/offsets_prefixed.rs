//! DELTA_BYTE_ARRAY's rebuild step into an [`OffsetsSink`], for a whole run of values.
//!
//! Each value is a prefix of the one before it plus a suffix from the page. Copying the prefix
//! back out of the output, as the obvious loop does, reads bytes that the previous iteration
//! stored a moment ago at other offsets and widths, so the processor cannot forward them from
//! its store buffer: every value waits for the previous one to reach the cache. Measured, that
//! stall was most of the decoder's time on short strings.
//!
//! Here the first [`WINDOW`] bytes of the previous value stay in a local array (registers).
//! The next value's head is a blend of those bytes (below the prefix length) and a block loaded
//! from the page positioned so that the suffix starts at the prefix length; it is stored with
//! one fixed-size write and becomes the next previous head. Only bytes past the window (long
//! prefixes) are copied from the output itself.

use super::{no_previous, prefix_too_long, suffix_past_page, ByteArraySink, OffsetSize, OffsetsSink};
use crate::error::{Error, Result};

/// How many leading bytes of the previous value are kept in registers.
const WINDOW: usize = 64;

/// WINDOW bytes of 0xFF, then WINDOW zeros: any WINDOW-byte slice of it is the byte mask that
/// keeps a prefix of a given length (a table lookup instead of a compare per byte).
const MASKS: [u8; 2 * WINDOW] = {
    let mut m = [0u8; 2 * WINDOW];
    let mut i = 0;
    while i < WINDOW {
        m[i] = 0xFF;
        i += 1;
    }
    m
};

/// Appends the run described at [`ByteArraySink::extend_prefixed`].
///
/// On error (a prefix longer than the value before it) the values before the bad one stay
/// appended and the sink is whole.
pub(super) fn extend_prefixed<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    prefixes: &[u32],
    suffix_lens: &[u32],
    page: &[u8],
    first: usize,
) -> Result<()> {
    extend_with(sink, prefixes, suffix_lens, page, first, true)
}

/// [`extend_prefixed`], with the AVX2 build of the loop used only if `avx2` allows it (tests
/// run both builds).
fn extend_with<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    prefixes: &[u32],
    suffix_lens: &[u32],
    page: &[u8],
    first: usize,
    avx2: bool,
) -> Result<()> {
    if prefixes.len() != suffix_lens.len() {
        return Err(Error::invalid_argument(format!(
            "DELTA_BYTE_ARRAY: {} prefix lengths for {} suffixes",
            prefixes.len(),
            suffix_lens.len()
        )));
    }
    let mut suffix_bytes = 0u64;
    let mut value_bytes = 0u64;
    for (&p, &len) in prefixes.iter().zip(suffix_lens) {
        suffix_bytes += u64::from(len);
        value_bytes += u64::from(p) + u64::from(len);
    }
    let Some(left) = page.len().checked_sub(first) else {
        return Err(Error::invalid_argument("DELTA_BYTE_ARRAY: the suffixes start past the page"));
    };
    if suffix_bytes > left as u64 {
        return Err(suffix_past_page(suffix_bytes as usize, left));
    }
    let value_bytes = usize::try_from(value_bytes).unwrap_or(usize::MAX);
    sink.check_len(value_bytes)?;
    // Exactly the run's bytes: a window's overrun past them would outgrow an exact
    // reservation at the end of a chunk. The loop stops where a window no longer fits, and
    // the last values go one at a time.
    sink.grow_data(prefixes.len(), value_bytes);
    #[cfg(target_arch = "x86_64")]
    let fast = if avx2 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (just checked); the run was checked against the
        // page above, as `rebuild` requires.
        unsafe { rebuild_avx2(sink, prefixes, suffix_lens, page, first) }
    } else {
        // SAFETY: as above.
        unsafe { rebuild(sink, prefixes, suffix_lens, page, first) }
    };
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the run was checked against the page above.
    let fast = unsafe { rebuild(sink, prefixes, suffix_lens, page, first) };
    let _ = avx2;
    let (done, mut pos) = fast?;
    // What the loop left (little room, or the memory could not be had), growing as needed.
    for (&p, &len) in prefixes[done..].iter().zip(&suffix_lens[done..]) {
        sink.push_prefixed_in(p as usize, page.get(pos..).unwrap_or_default(), len as usize)?;
        pos += len as usize;
    }
    Ok(())
}

/// [`rebuild`] compiled for AVX2, where the window fits in two registers instead of four and
/// the blend needs half the instructions: about 84 → 71 ms on the benchmark's strings_delta_none
/// (the loop alone, without AVX2, took it from 86 to 84 ms).
///
/// # Safety
///
/// The processor has AVX2, and [`rebuild`]'s requirements hold.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rebuild_avx2<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    prefixes: &[u32],
    suffix_lens: &[u32],
    page: &[u8],
    first: usize,
) -> Result<(usize, usize)> {
    // SAFETY: the caller guarantees `rebuild`'s requirements.
    unsafe { rebuild(sink, prefixes, suffix_lens, page, first) }
}

/// The loop of [`extend_prefixed`]: appends values while a whole window fits in the data
/// vector's capacity; returns how many it appended and where the next suffix starts.
///
/// # Safety
///
/// `prefixes` and `suffix_lens` have the same length; the suffixes sum to at most
/// `page.len() - first`, and the run's values to at most `O::MAX - sink.data().len()`.
#[inline(always)]
unsafe fn rebuild<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    prefixes: &[u32],
    suffix_lens: &[u32],
    page: &[u8],
    first: usize,
) -> Result<(usize, usize)> {
    // The previous value: where it is in `data`, and its first WINDOW bytes (the bytes past its
    // length are never used: a prefix is at most that length).
    let (mut prev_start, mut prev_len, mut has_prev) = match sink.last_bounds() {
        Some((start, end)) => (start, end - start, true),
        None => (sink.data().len(), 0, false),
    };
    let mut prev = [0u8; WINDOW];
    let head = prev_len.min(WINDOW);
    prev[..head].copy_from_slice(&sink.data()[prev_start..prev_start + head]);

    let mut src = first;
    let spare = sink.spare(prefixes.len());
    let (cap, base, mut pos) = (spare.cap, spare.data, spare.len);
    let offsets = spare.offsets;
    let mut done = 0usize;
    let mut result = Ok(());
    for ((&p, &len), offset) in prefixes.iter().zip(suffix_lens).zip(offsets.iter_mut()) {
        let (p, len) = (p as usize, len as usize);
        if p > prev_len {
            result = Err(if has_prev { prefix_too_long(p, prev_len) } else { no_previous(p) });
            break;
        }
        // The window store below needs WINDOW bytes of room; the value itself fits whenever
        // that does or, for longer values, once `end <= room` (checked here too).
        let room = cap - pos;
        if room < WINDOW || room < p + len {
            break;
        }
        let mut next = prev;
        if p < WINDOW {
            // The page block that puts the suffix's first byte at position `p`; what lies
            // before it (earlier suffixes, the lengths) is overwritten by the prefix.
            let mut block = [0u8; WINDOW];
            match src.checked_sub(p).and_then(|at| page.get(at..at + WINDOW)) {
                Some(bytes) => block.copy_from_slice(bytes),
                None => fill_block(&mut block, page, src, p, len),
            }
            // 0xFF for the first `p` bytes, 0 after: a window of MASKS starting at WINDOW - p.
            let mask = &MASKS[WINDOW - p..2 * WINDOW - p];
            #[allow(clippy::needless_range_loop)] // indexes vectorize into whole-register ops
            for k in 0..WINDOW {
                next[k] = (prev[k] & mask[k]) | (block[k] & !mask[k]);
            }
        }
        // SAFETY: `pos + WINDOW <= cap` (checked above). The write is untyped: bytes past this
        // value's end are overwritten by the next value or lie past the final length.
        unsafe { base.add(pos).cast::<[u8; WINDOW]>().write_unaligned(next) };
        let end = p + len;
        if end > WINDOW {
            let mut at = WINDOW;
            if p > WINDOW {
                // SAFETY: `prev_start + p <= pos` (the previous value ends at `pos`), so the
                // source `prev_start + WINDOW .. prev_start + p` is initialized and lies before
                // the destination `pos + WINDOW .. pos + p`, within the room (checked above).
                unsafe {
                    std::ptr::copy_nonoverlapping(base.add(prev_start + WINDOW), base.add(pos + WINDOW), p - WINDOW)
                };
                at = p;
            }
            let skip = at - p;
            // SAFETY: the suffixes sum to at most `page.len() - first` (checked above), so
            // the suffix `src .. src + len` and its part from `skip` on are in `page`; the
            // destination `pos + at .. pos + end` lies within the room (checked above); `page` is borrowed
            // immutably while `data` is borrowed mutably, so the two do not overlap.
            unsafe { std::ptr::copy_nonoverlapping(page.as_ptr().add(src + skip), base.add(pos + at), len - skip) };
        }
        prev = next;
        prev_start = pos;
        prev_len = end;
        has_prev = true;
        pos += end;
        src += len;
        offset.write(O::from_usize(pos));
        done += 1;
    }
    // SAFETY: the first `done` values were written whole into the spare room: their bytes
    // up to `pos` (within the capacity, checked per value) and their ends, each `pos` after
    // its value, so rising from `spare.len`, and at most the run's total past the data
    // before it (checked by the caller to fit `O`).
    unsafe { sink.commit(done, pos) };
    result.map(|()| (done, src))
}

/// The page block for a value near either end of the page, where a whole window cannot be
/// read: the suffix's bytes that exist (at most the window's rest), zeros elsewhere.
#[cold]
fn fill_block(block: &mut [u8; WINDOW], page: &[u8], src: usize, p: usize, len: usize) {
    let n = len.min(WINDOW - p);
    block[p..p + n].copy_from_slice(&page[src..src + n]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRng;

    /// A page holding `suffixes` back to back after `lead` bytes, followed by `trail` bytes.
    fn page_of(suffixes: &[Vec<u8>], lead: usize, trail: usize) -> Vec<u8> {
        let mut page = vec![0xEE; lead];
        suffixes.iter().for_each(|s| page.extend_from_slice(s));
        page.extend(std::iter::repeat_n(0xDD, trail));
        page
    }

    /// Runs at the window's edges, through both builds of the loop, against values rebuilt by
    /// hand: prefixes of 0, WINDOW - 1, WINDOW, WINDOW + 1 and longer; suffixes that end inside
    /// and past the window; suffixes at the very start and end of the page (the block cannot be
    /// read whole there); exactly the run's room, never outgrown; both offset widths.
    #[test]
    fn runs_match_values_rebuilt_by_hand() {
        let mut rng = TestRng::new(11);
        for round in 0..300 {
            let n = 1 + rng.below(60) as usize;
            let seed_len = rng.below(150) as usize;
            let seed: Vec<u8> = rng.bytes(seed_len);
            let mut values = vec![seed.clone()];
            let (mut prefixes, mut suffixes) = (Vec::new(), Vec::new());
            for i in 0..n {
                let prev = values.last().unwrap();
                let p = match (round + i) % 6 {
                    0 => 0,
                    1 => prev.len(),
                    2 => prev.len().min(WINDOW - 1),
                    3 => prev.len().min(WINDOW),
                    4 => prev.len().min(WINDOW + 1),
                    _ => rng.below(prev.len() as u64 + 1) as usize,
                };
                let len = match (round * 7 + i) % 5 {
                    0 => 0,
                    1 => WINDOW - p.min(WINDOW),
                    2 => 1 + rng.below(3 * WINDOW as u64) as usize,
                    _ => rng.below(20) as usize,
                };
                let suffix = rng.bytes(len);
                let mut v = prev[..p].to_vec();
                v.extend_from_slice(&suffix);
                values.push(v);
                prefixes.push(p as u32);
                suffixes.push(suffix);
            }
            let lens: Vec<u32> = suffixes.iter().map(|s| s.len() as u32).collect();
            let lead = [0, 3, WINDOW, 200][round % 4];
            let trail = [0, 1, WINDOW][round % 3];
            let page = page_of(&suffixes, lead, trail);
            for avx2 in [false, true] {
                let mut sink = OffsetsSink::<i32>::new();
                sink.push_owned(&seed).unwrap();
                let need: usize = values[1..].iter().map(Vec::len).sum();
                if round % 2 == 0 {
                    // Exactly the run's bytes: the loop stops where a window no longer fits,
                    // one-by-one pushes finish, and the capacity is never outgrown.
                    sink.reserve_data_exact(need);
                }
                let capacity = sink.data_capacity();
                extend_with(&mut sink, &prefixes, &lens, &page, lead, avx2).unwrap();
                if round % 2 == 0 {
                    assert_eq!(sink.data_capacity(), capacity, "round {round}: exact room outgrown");
                }
                let mut large = OffsetsSink::<i64>::new();
                large.push_owned(&seed).unwrap();
                extend_with(&mut large, &prefixes, &lens, &page, lead, avx2).unwrap();
                assert_eq!(sink.len(), values.len());
                for (i, want) in values.iter().enumerate() {
                    assert_eq!(sink.value(i).unwrap(), &want[..], "round {round} value {i} avx2 {avx2}");
                    assert_eq!(large.value(i).unwrap(), &want[..], "round {round} value {i} avx2 {avx2}");
                }
            }
        }
    }

    #[test]
    fn a_bad_prefix_keeps_the_values_before_it() {
        let page = b"abcdefgh".to_vec();
        for avx2 in [false, true] {
            // No previous value: the first prefix must be 0.
            let mut sink = OffsetsSink::<i32>::new();
            let e = extend_with(&mut sink, &[1], &[1], &page, 0, avx2).unwrap_err().to_string();
            assert!(e.contains("no previous value"), "{e}");
            assert_eq!(sink.len(), 0);
            // "ab", "abc", then a prefix of 4 after a 3-byte value.
            let e = extend_with(&mut sink, &[0, 2, 4], &[2, 1, 1], &page, 0, avx2).unwrap_err();
            assert!(e.to_string().contains("prefix length 4 is longer than the previous value (3 bytes)"), "{e}");
            assert_eq!(sink.offsets(), [0, 2, 5]);
            assert_eq!(sink.data(), b"ababc");
        }
    }

    #[test]
    fn runs_that_do_not_fit_the_page_are_refused() {
        let mut sink = OffsetsSink::<i32>::new();
        let e = extend_prefixed(&mut sink, &[0, 0], &[4, 5], b"12345678", 0).unwrap_err();
        assert!(e.to_string().contains("runs past the page"), "{e}");
        assert!(extend_prefixed(&mut sink, &[0], &[0], b"12", 3).is_err());
        assert!(extend_prefixed(&mut sink, &[0], &[], b"12", 0).is_err());
        assert_eq!((sink.len(), sink.data().len()), (0, 0));
        // A run whose values overflow i32 offsets, without allocating them.
        sink.push_owned(&[7; 100]).unwrap();
        let prefixes = vec![100u32; 30_000_000];
        let lens = vec![0u32; 30_000_000];
        let e = extend_prefixed(&mut sink, &prefixes, &lens, b"", 0).unwrap_err();
        assert!(e.to_string().contains("overflows offsets"), "{e}");
        assert_eq!(sink.len(), 1);
    }
}
