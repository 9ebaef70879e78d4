//! PLAIN BYTE_ARRAY values into an [`OffsetsSink`], a page's run at a time.
//!
//! Pushing values one by one through the sink re-reads and re-stores the vectors' lengths and
//! checks capacity and the offset limit per value. Here those checks are made once for the
//! run (the offset limit) or folded into one compare per value (the room), the lengths live in
//! registers, and each value up to 64 bytes is copied as one fixed-size block that may run past
//! its end into room the next value overwrites.

use std::mem::MaybeUninit;

use super::{OffsetSize, OffsetsSink};

/// Values up to this long are copied as one block of this size (and up to twice it, as two).
const BLOCK: usize = 32;

/// [`BLOCK`], for a caller that leaves room for block copies past its last value.
pub(super) const VALUE_BLOCK: usize = BLOCK;

/// Appends the values described at [`ByteArraySink::extend_plain`](super::ByteArraySink::extend_plain).
pub(super) fn extend_plain<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    page: &[u8],
    pos: usize,
    n: usize,
) -> (usize, usize) {
    extend_with(sink, page, pos, n, true)
}

/// [`extend_plain`], with the AVX2 build of the loop used only if `avx2` allows it (tests
/// run both builds).
fn extend_with<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    page: &[u8],
    pos: usize,
    n: usize,
    avx2: bool,
) -> (usize, usize) {
    let left = page.len().saturating_sub(pos);
    // The run's value bytes are at most what is left of the page: one check of the offset
    // limit for all of them. Near the limit, values go one at a time with exact checks.
    if sink.check_len(left).is_err() {
        return (0, pos);
    }
    // Each value takes at least its 4-byte length.
    let spare = sink.spare(n.min(left / 4));
    let (offsets, base, cap) = (spare.offsets, spare.data, spare.cap);
    let start = Run { out: spare.len, p: pos, done: 0 };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx2;
    // SAFETY: `base + out .. base + cap` is the data vector's spare capacity, which `page`
    // (borrowed immutably) cannot overlap; the processor has AVX2 where that build is called.
    let run = unsafe {
        #[cfg(target_arch = "x86_64")]
        match avx2 && std::is_x86_feature_detected!("avx2") {
            true => copy_run_avx2(page, offsets, base, cap, start),
            false => copy_run(page, offsets, base, cap, start),
        }
        #[cfg(not(target_arch = "x86_64"))]
        copy_run(page, offsets, base, cap, start)
    };
    // SAFETY: the first `done` values were written whole into the spare room: their bytes up
    // to `out` (within the capacity, put_block/put_value checked) and their ends, each `out`
    // after its value, so rising from `spare.len` and at most the page left (checked to fit
    // `O` above).
    unsafe { sink.commit(run.done, run.out) };
    (run.done, run.p)
}

/// Where a run of copies stands: bytes written to the data vector, position in the page,
/// values done.
#[derive(Clone, Copy)]
struct Run {
    out: usize,
    p: usize,
    done: usize,
}

/// [`copy_run`] compiled for AVX2, where a 32-byte block is one register: strings_plain_none
/// 64.5 → 57.5 ms on top of the run loop itself (74 → 64.5 ms).
///
/// Never inlined, and given only slices and pointers: the loop then compiles the same
/// whatever shares its codegen unit. Inlined into a caller with the sink's growth code, its
/// register allocation changed with the codegen units (6 spills per value, +13% instructions
/// on strings_plain_none, at some settings and not others).
///
/// # Safety
///
/// The processor has AVX2, and as [`copy_run`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn copy_run_avx2<O: OffsetSize>(
    page: &[u8],
    offsets: &mut [MaybeUninit<O>],
    base: *mut u8,
    cap: usize,
    run: Run,
) -> Run {
    // SAFETY: as the caller guarantees.
    unsafe { copy_run(page, offsets, base, cap, run) }
}

/// The loop of [`extend_plain`]: copies PLAIN values from `run.p` in `page` to `base +
/// run.out`, one offset per value in `offsets`, until the offsets, the page or the room
/// (`cap`) run out or a value is cut short.
///
/// Values that block copies serve go through an inner loop with no call in it; a longer
/// value (or one too near the page's or the room's end) leaves it for one exact copy. With
/// the `memcpy` call inside the loop, the registers it clobbers were spilled and reloaded on
/// every value, short ones too.
///
/// # Safety
///
/// `base + run.out .. base + cap` is writable and does not overlap `page`.
#[inline(always)]
unsafe fn copy_run<O: OffsetSize>(
    page: &[u8],
    offsets: &mut [MaybeUninit<O>],
    base: *mut u8,
    cap: usize,
    run: Run,
) -> Run {
    let Run { mut out, mut p, mut done } = run;
    let n = offsets.len();
    while done < n {
        while done < n {
            let Some(len) = length_at(page, p) else { return Run { out, p, done } };
            // SAFETY: `base + out .. base + cap` is writable and apart from `page` (the caller).
            if !unsafe { put_block(page, p + 4, len, base.add(out), cap - out) } {
                break;
            }
            out += len;
            // The run's total was checked against the offset limit by the caller.
            offsets[done].write(O::from_usize(out));
            p += 4 + len;
            done += 1;
        }
        if done == n {
            break;
        }
        let Some(len) = length_at(page, p) else { break };
        // SAFETY: as above.
        if !unsafe { put_value(page, p + 4, len, base.add(out), cap - out) } {
            break;
        }
        out += len;
        offsets[done].write(O::from_usize(out));
        p += 4 + len;
        done += 1;
    }
    Run { out, p, done }
}

/// The 4-byte length prefix of the PLAIN value at `p`, if the page holds all of it.
#[inline(always)]
fn length_at(page: &[u8], p: usize) -> Option<usize> {
    let len = page.get(p..)?.first_chunk::<4>()?;
    Some(u32::from_le_bytes(*len) as usize)
}

/// Appends the values described at [`OffsetsSink::extend_gathered`].
pub(super) fn extend_gathered<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    page: &[u8],
    starts: &[u32],
    indexes: &[u32],
) -> usize {
    gather_with(sink, page, starts, indexes, true)
}

/// [`extend_gathered`], with the AVX2 build of the loop used only if `avx2` allows it.
fn gather_with<O: OffsetSize>(
    sink: &mut OffsetsSink<O>,
    page: &[u8],
    starts: &[u32],
    indexes: &[u32],
    avx2: bool,
) -> usize {
    // Every value goes inside the capacity, so offsets up to the capacity are all that need
    // to fit the offset type: one check for the run.
    if sink.check_len(sink.data_capacity() - sink.data().len()).is_err() {
        return 0;
    }
    let spare = sink.spare(indexes.len());
    let (offsets, base, cap) = (spare.offsets, spare.data, spare.cap);
    let start = Run { out: spare.len, p: 0, done: 0 };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = avx2;
    // SAFETY: as in `extend_with`.
    let run = unsafe {
        #[cfg(target_arch = "x86_64")]
        match avx2 && std::is_x86_feature_detected!("avx2") {
            true => gather_run_avx2(page, starts, indexes, offsets, base, cap, start),
            false => gather_run(page, starts, indexes, offsets, base, cap, start),
        }
        #[cfg(not(target_arch = "x86_64"))]
        gather_run(page, starts, indexes, offsets, base, cap, start)
    };
    // SAFETY: the first `done` values were written whole into the spare room: their bytes up
    // to `out` (within the capacity, put_block/put_value checked) and their ends, each `out`
    // after its value, so rising from `spare.len` and at most the capacity (checked to fit `O`
    // above).
    unsafe { sink.commit(run.done, run.out) };
    run.done
}

/// [`gather_run`] compiled for AVX2, never inlined for the reason given at
/// [`copy_run_avx2`].
///
/// # Safety
///
/// The processor has AVX2, and as [`gather_run`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn gather_run_avx2<O: OffsetSize>(
    page: &[u8],
    starts: &[u32],
    indexes: &[u32],
    offsets: &mut [MaybeUninit<O>],
    base: *mut u8,
    cap: usize,
    run: Run,
) -> Run {
    // SAFETY: as the caller guarantees.
    unsafe { gather_run(page, starts, indexes, offsets, base, cap, run) }
}

/// The loop of [`extend_gathered`]: copies the dictionary values `indexes` name (entry `i`
/// spans `starts[i] + 4 .. starts[i + 1]` of `page`) to `base + run.out`, short values in a
/// loop without calls as in [`copy_run`].
///
/// # Safety
///
/// As [`copy_run`].
#[inline(always)]
unsafe fn gather_run<O: OffsetSize>(
    page: &[u8],
    starts: &[u32],
    indexes: &[u32],
    offsets: &mut [MaybeUninit<O>],
    base: *mut u8,
    cap: usize,
    run: Run,
) -> Run {
    let Run { mut out, p, mut done } = run;
    let n = offsets.len().min(indexes.len());
    let entry = |i: u32| {
        let i = i as usize;
        let (&at, &end) = (starts.get(i)?, starts.get(i + 1)?);
        let start = at as usize + 4;
        Some((start, (end as usize).checked_sub(start)?))
    };
    while done < n {
        while done < n {
            let Some((start, len)) = entry(indexes[done]) else { return Run { out, p, done } };
            // SAFETY: `base + out .. base + cap` is writable and apart from `page` (the caller).
            if !unsafe { put_block(page, start, len, base.add(out), cap - out) } {
                break;
            }
            out += len;
            // `out <= cap`, checked against the offset limit by the caller.
            offsets[done].write(O::from_usize(out));
            done += 1;
        }
        if done == n {
            break;
        }
        let Some((start, len)) = entry(indexes[done]) else { break };
        // SAFETY: as above.
        if !unsafe { put_value(page, start, len, base.add(out), cap - out) } {
            break;
        }
        out += len;
        offsets[done].write(O::from_usize(out));
        done += 1;
    }
    Run { out, p, done }
}

/// Copies the value `page[start..start + len]` to `dst` if it lies in the page and fits in
/// `room` bytes; false (nothing written) otherwise. Values up to two blocks long are copied as
/// one or two fixed-size blocks when the page and the room have a whole block past them.
///
/// # Safety
///
/// `dst..dst + room` is writable and does not overlap `page`.
#[inline(always)]
pub(super) unsafe fn put_value(page: &[u8], start: usize, len: usize, dst: *mut u8, room: usize) -> bool {
    if start.checked_add(len).is_none_or(|end| end > page.len()) || len > room {
        return false;
    }
    let src = page.as_ptr().wrapping_add(start);
    if len <= BLOCK && start + BLOCK <= page.len() && room >= BLOCK {
        // SAFETY: `page[start..start + BLOCK]` is readable and `dst + BLOCK` within the room
        // (both checked). The bytes past the value are overwritten by the next value or lie
        // past the vector's final length.
        unsafe { copy_block::<BLOCK>(src, dst) };
    } else if len <= 2 * BLOCK && start + 2 * BLOCK <= page.len() && room >= 2 * BLOCK {
        // SAFETY: as above, for two blocks.
        unsafe { copy_block::<{ 2 * BLOCK }>(src, dst) };
    } else {
        // SAFETY: `page[start..start + len]` is readable and `len <= room` (both checked).
        unsafe { std::ptr::copy_nonoverlapping(src, dst, len) };
    }
    true
}

/// Copies the value `page[start..start + len]` to `dst` as one or two fixed-size blocks if it
/// is at most two blocks long and the page and the room have a whole block past it; false
/// (nothing written) otherwise, including for a value outside the page, which
/// [`put_value`] then refuses.
///
/// # Safety
///
/// `dst..dst + room` is writable and does not overlap `page`.
#[inline(always)]
unsafe fn put_block(page: &[u8], start: usize, len: usize, dst: *mut u8, room: usize) -> bool {
    let src = page.as_ptr().wrapping_add(start);
    // `len` came from 4 bytes, so `start + 2 * BLOCK` does not overflow when `start` lies in
    // the page; a `start` past it fails the first test.
    if len <= BLOCK && start <= page.len() && page.len() - start >= BLOCK && room >= BLOCK {
        // SAFETY: `page[start..start + BLOCK]` is readable and `dst + BLOCK` within the room
        // (both checked); `len <= BLOCK`, so the value is inside. The bytes past the value are
        // overwritten by the next value or lie past the vector's final length.
        unsafe { copy_block::<BLOCK>(src, dst) };
        true
    } else if len <= 2 * BLOCK && start <= page.len() && page.len() - start >= 2 * BLOCK && room >= 2 * BLOCK {
        // SAFETY: as above, for two blocks.
        unsafe { copy_block::<{ 2 * BLOCK }>(src, dst) };
        true
    } else {
        false
    }
}

/// Copies `N` bytes as one fixed-size move (vector registers, no `memcpy` call).
///
/// # Safety
///
/// `src..src + N` is readable, `dst..dst + N` is writable, and the two do not overlap.
#[inline(always)]
unsafe fn copy_block<const N: usize>(src: *const u8, dst: *mut u8) {
    // SAFETY: guaranteed by the caller; unaligned reads and writes of byte arrays.
    unsafe { dst.cast::<[u8; N]>().write_unaligned(src.cast::<[u8; N]>().read_unaligned()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::plain::decode_byte_array;
    use crate::encoding::{ByteArraySink, TestRng};

    fn plain_page(values: &[Vec<u8>], lead: usize) -> Vec<u8> {
        let mut page = vec![0xEE; lead];
        for v in values {
            page.extend_from_slice(&(v.len() as u32).to_le_bytes());
            page.extend_from_slice(v);
        }
        page
    }

    /// Lengths at the block edges (0, 31-33, 63-65, long), values ending at the very end of
    /// the page (no whole block to read), reserved room of exactly the values or of nothing
    /// (the loop stops, one-by-one pushes finish), both builds, both offset widths.
    #[test]
    fn runs_match_the_values_at_block_edges() {
        let mut rng = TestRng::new(5);
        let lens = [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK - 1, 2 * BLOCK, 2 * BLOCK + 1, 300];
        for round in 0..200 {
            let n = rng.below(40) as usize;
            let values: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = lens[rng.below(lens.len() as u64) as usize];
                    rng.bytes(len)
                })
                .collect();
            let lead = round % 3;
            let page = plain_page(&values, lead);
            let bytes: usize = values.iter().map(Vec::len).sum();
            for avx2 in [false, true] {
                let mut sink = OffsetsSink::<i32>::new();
                sink.push_owned(b"first").unwrap();
                match round % 3 {
                    0 => sink.reserve_data_exact(bytes),
                    1 => sink.shrink_data_to_fit(),
                    _ => sink.reserve_data_exact(bytes + 100),
                }
                let (done, end) = extend_with(&mut sink, &page, lead, n, avx2);
                if round % 3 != 1 {
                    assert_eq!((done, end), (n, page.len()), "round {round}: room was reserved");
                }
                assert!(sink.data().len() <= sink.data_capacity());
                // What the run left, one at a time (as `decode_byte_array` does).
                let mut p = end;
                for _ in done..n {
                    let len = u32::from_le_bytes(page[p..p + 4].try_into().unwrap()) as usize;
                    sink.push_plain_value(&page, p, len).unwrap();
                    p += 4 + len;
                }
                assert_eq!(sink.len(), n + 1);
                assert_eq!(sink.value(0).unwrap(), b"first");
                for (i, v) in values.iter().enumerate() {
                    assert_eq!(sink.value(i + 1).unwrap(), &v[..], "round {round} value {i} avx2 {avx2}");
                }
                let mut large = OffsetsSink::<i64>::new();
                assert_eq!(decode_byte_array(&page, lead, n, &mut large).unwrap(), page.len());
                let got: Vec<&[u8]> = (0..n).filter_map(|i| large.value(i)).collect();
                assert_eq!(got, values.iter().map(Vec::as_slice).collect::<Vec<_>>());
            }
        }
    }

    /// A run stops before a value that runs past the page or a length cut short, having
    /// appended the values before it; the caller then reports the bad value.
    #[test]
    fn a_run_stops_before_a_bad_value() {
        let values = vec![b"abc".to_vec(), vec![7; 40], b"z".to_vec()];
        let page = plain_page(&values, 0);
        for avx2 in [false, true] {
            for cut in [page.len() - 1, page.len() - 3, 50, 47, 2] {
                let mut sink = OffsetsSink::<i32>::with_capacity(4, 100);
                let (done, end) = extend_with(&mut sink, &page[..cut], 0, 3, avx2);
                let whole = [7, 51, page.len()].iter().take_while(|&&e| e <= cut).count();
                assert_eq!(done, whole, "cut {cut}");
                assert_eq!(end, [0, 7, 51, 56][whole]);
                assert_eq!(sink.len(), whole);
                let mut sink = OffsetsSink::<i32>::new();
                let e = decode_byte_array(&page[..cut], 0, 3, &mut sink).unwrap_err().to_string();
                assert!(e.contains(&format!("value {whole} of 3")), "{e}");
            }
        }
    }

    /// Dictionary values at the block edges, gathered by random indexes (repeats included)
    /// into exactly reserved room or none, both builds, both offset widths; a run stops at an
    /// index past the dictionary or a value whose bounds lie outside the page.
    #[test]
    fn gathers_match_the_dictionary_and_stop_at_bad_entries() {
        let mut rng = TestRng::new(9);
        let lens = [0, 3, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 2 * BLOCK + 1, 500];
        for round in 0..100 {
            let dict: Vec<Vec<u8>> = (0..1 + rng.below(12))
                .map(|_| {
                    let len = lens[rng.below(lens.len() as u64) as usize];
                    rng.bytes(len)
                })
                .collect();
            let page = plain_page(&dict, 0);
            let mut starts = vec![0u32];
            for v in &dict {
                starts.push(starts.last().unwrap() + 4 + v.len() as u32);
            }
            let indexes: Vec<u32> = (0..rng.below(50)).map(|_| rng.below(dict.len() as u64) as u32).collect();
            let bytes: usize = indexes.iter().map(|&i| dict[i as usize].len()).sum();
            for avx2 in [false, true] {
                let mut sink = OffsetsSink::<i32>::new();
                if round % 2 == 0 {
                    sink.reserve_data_exact(bytes);
                }
                let done = gather_with(&mut sink, &page, &starts, &indexes, avx2);
                if round % 2 == 0 {
                    assert_eq!(done, indexes.len());
                }
                for &i in &indexes[done..] {
                    sink.push_owned(&dict[i as usize]).unwrap();
                }
                let mut large = OffsetsSink::<i64>::with_capacity(0, bytes);
                assert_eq!(gather_with(&mut large, &page, &starts, &indexes, avx2), indexes.len());
                for (k, &i) in indexes.iter().enumerate() {
                    assert_eq!(sink.value(k).unwrap(), &dict[i as usize][..], "round {round} value {k}");
                    assert_eq!(large.value(k).unwrap(), &dict[i as usize][..], "round {round} value {k}");
                }
            }
        }
        let page = plain_page(&[b"ab".to_vec(), b"cde".to_vec()], 0);
        let mut sink = OffsetsSink::<i32>::with_capacity(8, 100);
        assert_eq!(gather_with(&mut sink, &page, &[0, 6, 13], &[1, 0, 2, 0], true), 2);
        assert_eq!(gather_with(&mut sink, &page, &[0, 6, 99], &[0, 1], false), 1);
        assert_eq!(gather_with(&mut sink, &page, &[0, 3], &[0], false), 0);
        assert_eq!(sink.data(), b"cdeabab");
    }
}
