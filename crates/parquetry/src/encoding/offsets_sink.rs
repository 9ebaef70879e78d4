//! [`OffsetsSink`]: the [`ByteArraySink`] behind `Utf8`/`Binary` and their `Large` variants,
//! Arrow's offsets + data layout, into which every value is copied once.

use super::prefix_sum::prefix_sum32;
use super::{check_lengths, no_previous, prefix_too_long, suffix_past_page, ByteArraySink};
use crate::error::{Error, Result};

#[cfg(test)]
mod spare_tests;
mod spread;

/// Values up to this long are copied as one fixed-size block by [`OffsetsSink`].
const SHORT_COPY: usize = 32;

/// An Arrow offset type: `i32` for `Utf8`/`Binary`, `i64` for the `Large` variants.
pub trait OffsetSize: Copy + Default {
    /// The largest offset as a `usize`.
    const MAX: usize;
    /// Converts an offset already checked to be at most [`Self::MAX`].
    fn from_usize(v: usize) -> Self;
    /// The offset as a `usize`.
    fn as_usize(self) -> usize;
    /// Appends `base + lengths[0]`, `base + lengths[0] + lengths[1]`, …; the caller has
    /// checked that the total fits.
    #[inline]
    fn extend_running(offsets: &mut Vec<Self>, base: usize, lengths: &[u32]) {
        let mut running = base;
        offsets.extend(lengths.iter().map(|&l| {
            running += l as usize;
            Self::from_usize(running)
        }));
    }
}

impl OffsetSize for i32 {
    const MAX: usize = i32::MAX as usize;
    #[inline]
    fn from_usize(v: usize) -> Self {
        v as i32
    }
    #[inline]
    fn as_usize(self) -> usize {
        self as usize
    }
    /// 32 offsets at a time with [`prefix_sum32`]: as `u32`s the sums are exact, since the
    /// caller checked that the last one fits in an `i32`.
    #[inline]
    fn extend_running(offsets: &mut Vec<Self>, base: usize, lengths: &[u32]) {
        let mut last = base as u32;
        offsets.reserve(lengths.len());
        let mut chunks = lengths.chunks_exact(32);
        let mut out = [0u32; 32];
        for c in &mut chunks {
            if let Ok(c) = <&[u32; 32]>::try_from(c) {
                last = prefix_sum32(last, 0, c, &mut out);
                offsets.extend(out.iter().map(|&o| o as i32));
            }
        }
        offsets.extend(chunks.remainder().iter().map(|&l| {
            last = last.wrapping_add(l);
            last as i32
        }));
    }
}

impl OffsetSize for i64 {
    const MAX: usize = i64::MAX as usize;
    #[inline]
    fn from_usize(v: usize) -> Self {
        v as i64
    }
    #[inline]
    fn as_usize(self) -> usize {
        self as usize
    }
}

/// A [`ByteArraySink`] building Arrow's offsets + data layout: every value is copied once into
/// `data`, and `offsets` holds `len + 1` entries starting at 0.
///
/// # Invariant
///
/// `offsets` starts at 0, never decreases, ends at `data.len()`, and every offset is at most
/// `O::MAX`; so the offsets are a valid Arrow offset buffer over `data` (which
/// [`into_parts`](Self::into_parts) hands over for an unchecked array constructor). The fields
/// are private and every method keeps this; the run loops in `offsets_plain.rs`,
/// `offsets_short.rs` and `offsets_prefixed.rs` write spare capacity through
/// [`spare`](Self::spare) and [`commit`](Self::commit), whose `# Safety` says what they owe.
#[derive(Debug, Clone)]
pub struct OffsetsSink<O: OffsetSize> {
    /// `offsets[i]..offsets[i + 1]` is value `i` in `data`.
    offsets: Vec<O>,
    /// All value bytes back to back.
    data: Vec<u8>,
    /// How many values the sink is expected to hold in all (0: unknown), which sizes growth
    /// (see [`OffsetsSink::expect`]).
    expected: usize,
}

impl<O: OffsetSize> Default for OffsetsSink<O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<O: OffsetSize> OffsetsSink<O> {
    /// An empty sink (offsets `[0]`).
    pub fn new() -> Self {
        Self { offsets: vec![O::default()], data: Vec::new(), expected: 0 }
    }

    /// An empty sink with room for `values` values and `bytes` value bytes.
    pub fn with_capacity(values: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(values.saturating_add(1));
        offsets.push(O::default());
        Self { offsets, data: Vec::with_capacity(bytes), expected: 0 }
    }

    /// Says the sink will hold about `values` values in all. When a reservation outgrows
    /// `data`, it then grows to what the values so far project for all of them instead of
    /// doubling: a column whose size the footer underestimates (DELTA_BYTE_ARRAY shares
    /// prefixes, dictionaries repeat values) is then reallocated once or twice, not log(n)
    /// times, and each reallocation's fresh pages are not zeroed for nothing.
    pub fn expect(&mut self, values: usize) {
        self.expected = values;
    }

    /// Makes room for `bytes` more value bytes that `values` more values will take.
    pub(super) fn grow_data(&mut self, values: usize, bytes: usize) {
        let len = self.data.len();
        if self.data.capacity() - len >= bytes {
            return;
        }
        let need = len.saturating_add(bytes);
        let count = self.len().saturating_add(values).max(1);
        let mut target = need;
        if self.expected > count {
            // The average value so far, times every value expected, plus an eighth for the
            // average's error. Capped at 8x what is really there, so a footer that inflates the
            // row count cannot make one small page reserve far beyond the file's real data.
            let projected = need as u128 * self.expected as u128 / count as u128;
            let projected = projected + projected / 8;
            target = projected.min(need as u128 * 8).min(usize::MAX as u128) as usize;
        }
        if !crate::alloc::reserve_exact(&mut self.data, target.max(need) - len) {
            self.data.reserve(bytes);
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True if there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i`, if it exists.
    pub fn value(&self, i: usize) -> Option<&[u8]> {
        let start = self.offsets.get(i)?.as_usize();
        let end = self.offsets.get(i + 1)?.as_usize();
        self.data.get(start..end)
    }

    /// Appends the `len`-byte value at `page[start..]` by copying `N` bytes and dropping the
    /// rest; `None` (nothing done) if the page or the capacity has fewer than `N` bytes left.
    #[inline]
    fn push_in_block<const N: usize>(&mut self, page: &[u8], start: usize, len: usize) -> Option<Result<()>> {
        let block = page.get(start..start.checked_add(N)?)?;
        let old = self.data.len();
        if self.data.capacity() - old < N {
            return None;
        }
        Some(self.check_len(len).map(|end| {
            self.data.extend_from_slice(block);
            self.data.truncate(old + len);
            self.offsets.push(O::from_usize(end));
        }))
    }

    /// Appends, for each of `indexes`, value `i` of a PLAIN dictionary page: the bytes
    /// `page[starts[i] + 4 .. starts[i + 1]]`, where `starts` holds each value's length-prefix
    /// position and then the end of the last value. Values are copied in one loop, as
    /// fixed-size blocks where they are short. Stops before the first index past `starts`, or
    /// value outside `page` or beyond the reserved room; returns how many were appended.
    pub fn extend_gathered(&mut self, page: &[u8], starts: &[u32], indexes: &[u32]) -> usize {
        super::offsets_plain::extend_gathered(self, page, starts, indexes)
    }

    /// The byte range of the last value in `data`, if there is one.
    #[inline]
    pub(super) fn last_bounds(&self) -> Option<(usize, usize)> {
        let n = self.offsets.len();
        let start = self.offsets.get(n.checked_sub(2)?)?.as_usize();
        let end = self.offsets.get(n - 1)?.as_usize();
        (start <= end && end <= self.data.len()).then_some((start, end))
    }

    /// `data.len() + extra` if that fits the offset type: the offset a value of `extra` bytes
    /// appended now would end at.
    #[inline]
    pub(super) fn check_len(&self, extra: usize) -> Result<usize> {
        match self.data.len().checked_add(extra) {
            Some(end) if end <= O::MAX => Ok(end),
            _ => Err(offset_overflow::<O>(self.data.len(), extra)),
        }
    }

    /// The offsets: `len() + 1` of them, from 0 up to `data().len()`, never decreasing.
    pub fn offsets(&self) -> &[O] {
        &self.offsets
    }

    /// All value bytes back to back.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The room for value bytes, used or not: run loops copy into it without growing it.
    pub fn data_capacity(&self) -> usize {
        self.data.capacity()
    }

    /// Room for exactly `bytes` more value bytes (no doubling), for callers that know the
    /// size; a failed allocation leaves the room as it was.
    pub fn reserve_data_exact(&mut self, bytes: usize) {
        crate::alloc::reserve_exact(&mut self.data, bytes);
    }

    /// Gives back the data vector's unused room (tests use it to run out of room exactly).
    #[cfg(test)]
    pub(crate) fn shrink_data_to_fit(&mut self) {
        self.data.shrink_to_fit();
    }

    /// Room for `values` more values and `bytes` more value bytes, where a failed allocation
    /// leaves the room as it was (the reader's batch sizing is a hint, not a need).
    pub fn try_reserve(&mut self, values: usize, bytes: usize) {
        crate::alloc::reserve(&mut self.offsets, values);
        crate::alloc::reserve(&mut self.data, bytes);
    }

    /// Drops the values from value `values` on (nothing if there are no more): a reader
    /// undoing a page that failed half way.
    pub fn truncate(&mut self, values: usize) {
        if values < self.len() {
            self.offsets.truncate(values + 1);
            let end = self.offsets[values].as_usize();
            self.data.truncate(end);
        }
    }

    /// Drops every value, keeping the memory.
    pub fn clear(&mut self) {
        self.truncate(0);
    }

    /// An empty sink that reuses `offsets`' memory (its contents are dropped), with room for
    /// exactly `bytes` value bytes.
    pub fn recycle(mut offsets: Vec<O>, bytes: usize) -> Self {
        offsets.clear();
        offsets.push(O::default());
        Self { offsets, data: Vec::with_capacity(bytes), expected: 0 }
    }

    /// The offsets and the data, handed over whole: they hold the invariant (see the type),
    /// which is what lets the reader build Arrow arrays over them without checking again.
    pub fn into_parts(self) -> (Vec<O>, Vec<u8>) {
        debug_assert!(self.holds_from(0), "OffsetsSink invariant broken");
        (self.offsets, self.data)
    }

    /// Appends the values that `offsets` delimit in `data` (value `i` is
    /// `data[offsets[i]..offsets[i + 1]]`; `offsets[0]` need not be 0): one copy of the bytes
    /// and a pass over the offsets that checks them, since they come from outside the sink.
    pub fn extend_from_parts<P: OffsetSize>(&mut self, offsets: &[P], data: &[u8]) -> Result<()> {
        let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else { return Ok(()) };
        let (first, last) = (first.as_usize(), last.as_usize());
        let ordered = offsets.windows(2).all(|w| w[0].as_usize() <= w[1].as_usize());
        let Some(bytes) = data.get(first..last).filter(|_| ordered) else {
            return Err(Error::invalid_argument(format!(
                "offsets from {first} to {last} are not ordered values inside {} bytes",
                data.len()
            )));
        };
        let base = self.data.len();
        self.check_len(bytes.len())?;
        // Each is at least `first` (ordered) and the last fits `O` (checked just above).
        self.offsets.extend(offsets[1..].iter().map(|o| O::from_usize(base + (o.as_usize() - first))));
        self.data.extend_from_slice(bytes);
        Ok(())
    }

    /// The room a run loop writes values into directly: spare capacity for `values` more
    /// offsets (reserved here) and the data vector's spare capacity (as reserved before; not
    /// grown here). Nothing written there counts until [`commit`](Self::commit).
    #[inline(always)]
    pub(super) fn spare(&mut self, values: usize) -> Spare<'_, O> {
        self.offsets.reserve(values);
        let offsets = self.offsets.spare_capacity_mut();
        // Never fewer after the reserve; the `min` spares the slice a panic branch.
        let values = values.min(offsets.len());
        let offsets = &mut offsets[..values];
        let cap = self.data.capacity();
        let data = self.data.as_mut_ptr();
        let len = self.data.len();
        Spare { offsets, data, len, cap }
    }

    /// Counts the values a run loop wrote into the room [`spare`](Self::spare) gave: the
    /// first `values` offsets there, and the value bytes up to `data_len`.
    ///
    /// # Safety
    ///
    /// Since the last call to `spare` (for at least `values` values), with no other call on
    /// the sink between: the first `values` slots of its `offsets` and the data bytes from its
    /// `len` up to `data_len` were written; the written offsets do not decrease, the first is
    /// at least `len`, the last is `data_len` (`data_len` is `len` when `values` is 0), and
    /// none is above `O::MAX`. Debug builds check all but the writing.
    #[inline(always)]
    pub(super) unsafe fn commit(&mut self, values: usize, data_len: usize) {
        // Checked in debug builds only: in release, keeping the capacities live across the
        // run loop cost registers, and spills, in the loop (strings_plain_none 5% slower).
        debug_assert!(values <= self.offsets.capacity() - self.offsets.len(), "commit past the spare offsets");
        debug_assert!(data_len <= self.data.capacity(), "commit past the data capacity");
        let first = self.offsets.len() - 1;
        // SAFETY: the caller wrote the first `values` spare offsets and the data bytes up to
        // `data_len`, all within the room `spare` gave (this function's contract).
        unsafe {
            self.data.set_len(data_len);
            self.offsets.set_len(self.offsets.len() + values);
        }
        debug_assert!(self.holds_from(first), "run loop broke the OffsetsSink invariant");
    }

    /// Whether the invariant holds for the offsets from `first` on (with the start at 0).
    fn holds_from(&self, first: usize) -> bool {
        let tail = self.offsets.get(first..).unwrap_or_default();
        self.offsets.first().is_some_and(|o| o.as_usize() == 0)
            && tail.windows(2).all(|w| w[0].as_usize() <= w[1].as_usize())
            && tail.last().is_some_and(|o| o.as_usize() == self.data.len() && o.as_usize() <= O::MAX)
    }
}

/// The spare room of an [`OffsetsSink`] that a run loop writes values into before it
/// [`commit`](OffsetsSink::commit)s them (see there for what it must write).
pub(super) struct Spare<'a, O> {
    /// One slot per value asked for: their ends, in order after the sink's last offset.
    pub offsets: &'a mut [std::mem::MaybeUninit<O>],
    /// The start of the data vector's memory: bytes below `len` hold the values so far (a
    /// run may read them back, as DELTA_BYTE_ARRAY's prefixes do), bytes `len..cap` are free.
    pub data: *mut u8,
    /// The value bytes so far: where the next value starts.
    pub len: usize,
    /// The data vector's capacity.
    pub cap: usize,
}

#[cold]
fn offset_overflow<O: OffsetSize>(have: usize, extra: usize) -> Error {
    Error::corrupt(format!(
        "byte array data of {have} + {extra} bytes overflows offsets limited to {}; \
         read this column as a large or view type",
        O::MAX
    ))
}

impl<O: OffsetSize> ByteArraySink for OffsetsSink<O> {
    fn reserve(&mut self, values: usize, bytes: usize) {
        self.offsets.reserve(values);
        self.grow_data(values, bytes);
    }

    #[inline]
    fn push_slice_from_page(&mut self, _page_pos: usize, bytes: &[u8]) -> Result<()> {
        self.push_owned(bytes)
    }

    #[inline]
    fn push_owned(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.check_len(bytes.len())?;
        self.data.extend_from_slice(bytes);
        self.offsets.push(O::from_usize(end));
        Ok(())
    }

    fn extend_plain(&mut self, page: &[u8], pos: usize, n: usize) -> (usize, usize) {
        super::offsets_plain::extend_plain(self, page, pos, n)
    }

    #[inline]
    fn push_plain_value(&mut self, page: &[u8], len_pos: usize, len: usize) -> Result<()> {
        let start = len_pos + 4;
        // Short values (most strings) are copied as one fixed-size block, which compiles to
        // vector moves instead of a call to memcpy, and the bytes past the value are then
        // dropped; this needs a block of readable page and of free capacity.
        let pushed = if len <= SHORT_COPY {
            self.push_in_block::<SHORT_COPY>(page, start, len)
        } else if len <= 2 * SHORT_COPY {
            self.push_in_block::<{ 2 * SHORT_COPY }>(page, start, len)
        } else {
            None
        };
        if let Some(result) = pushed {
            return result;
        }
        match page.get(start..start + len) {
            Some(v) => self.push_owned(v),
            None => Err(Error::corrupt(format!("PLAIN value of {len} bytes at {start} is past the page"))),
        }
    }

    #[inline]
    fn push_prefixed(&mut self, prefix_len: usize, suffix: &[u8]) -> Result<()> {
        self.push_prefixed_in(prefix_len, suffix, suffix.len())
    }

    #[inline]
    fn push_prefixed_in(&mut self, prefix_len: usize, tail: &[u8], len: usize) -> Result<()> {
        // With no prefix the previous value need not exist (a page's first value).
        let (start, end) = match self.last_bounds() {
            Some(bounds) => bounds,
            None if prefix_len == 0 => (0, 0),
            None => return Err(no_previous(prefix_len)),
        };
        if prefix_len > end - start {
            return Err(prefix_too_long(prefix_len, end - start));
        }
        if len > tail.len() {
            return Err(suffix_past_page(len, tail.len()));
        }
        // One value at a time is the cold path: runs go through `extend_prefixed`.
        let total = self.check_len(prefix_len + len)?;
        self.data.extend_from_within(start..start + prefix_len);
        self.data.extend_from_slice(&tail[..len]);
        self.offsets.push(O::from_usize(total));
        Ok(())
    }

    fn extend_prefixed(&mut self, prefixes: &[u32], suffix_lens: &[u32], page: &[u8], first: usize) -> Result<()> {
        super::offsets_prefixed::extend_prefixed(self, prefixes, suffix_lens, page, first)
    }

    fn copy_last(&self, out: &mut Vec<u8>) -> bool {
        out.clear();
        match self.len().checked_sub(1).and_then(|i| self.value(i)) {
            Some(v) => {
                out.extend_from_slice(v);
                true
            }
            None => false,
        }
    }

    fn extend_from_lengths(&mut self, lengths: &[u32], data: &[u8], _data_pos: usize) -> Result<()> {
        check_lengths(lengths, data)?;
        // One check for the whole batch: every intermediate offset is below the final one.
        self.check_len(data.len())?;
        O::extend_running(&mut self.offsets, self.data.len(), lengths);
        self.data.extend_from_slice(data);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRng;

    #[test]
    fn growth_follows_the_expected_count() {
        // 1,000 values of 10 bytes expected, room for 10 reserved: the first outgrowing page
        // reserves for the projected 10,000 bytes (plus an eighth), capped at 8x the bytes
        // seen, then one more step; doubling would take five reallocations.
        let mut sink = OffsetsSink::<i32>::new();
        sink.expect(1000);
        sink.data.reserve_exact(10);
        let mut capacities = vec![sink.data.capacity()];
        for _ in 0..10 {
            sink.reserve(100, 1000);
            for _ in 0..100 {
                sink.push_owned(b"0123456789").unwrap();
            }
            if capacities.last() != Some(&sink.data.capacity()) {
                capacities.push(sink.data.capacity());
            }
        }
        assert_eq!(capacities, [10, 8000, 11250]);
        // Past the expected count, growth is exact.
        sink.reserve(1, 5000);
        assert_eq!(sink.data.capacity(), 15000);
    }

    #[test]
    fn offsets_sink_basics_and_overflow() {
        let mut s = OffsetsSink::<i32>::new();
        s.push_owned(b"hello").unwrap();
        s.push_prefixed(3, b"icopter").unwrap();
        s.extend_from_lengths(&[1, 0, 2], b"xyz", 100).unwrap();
        assert_eq!(s.offsets, vec![0, 5, 15, 16, 16, 18]);
        assert_eq!(s.data, b"hellohelicopterxyz");
        assert!(s.push_prefixed(3, b"").is_err()); // last value "yz" is 2 bytes
        assert!(s.extend_from_lengths(&[5], b"abc", 0).is_err());
        let mut out = Vec::new();
        assert!(s.copy_last(&mut out));
        // Simulated overflow: a sink whose data is already near the i32 limit.
        let mut s = OffsetsSink::<i32>::new();
        assert!(s.check_len(i32::MAX as usize).is_ok());
        assert!(s.check_len(i32::MAX as usize + 1).is_err());
        s.data.push(1);
        assert!(s.check_len(i32::MAX as usize).is_err());
        assert!(OffsetsSink::<i64>::new().check_len(i32::MAX as usize + 1).is_ok());
    }

    /// `push_prefixed_in` at the edges of 32-byte blocks: prefixes and suffixes of 0 and
    /// exactly one block, a previous value shorter than a block, a tail of exactly one block,
    /// and room for exactly two blocks or one byte less.
    #[test]
    fn prefixed_pushes_match_the_values_at_their_edges() {
        let mut rng = TestRng::new(7);
        for room in [0usize, 2 * SHORT_COPY - 1, 2 * SHORT_COPY, 4096] {
            let mut sink = OffsetsSink::<i32>::new();
            let mut want: Vec<Vec<u8>> = vec![b"seed".to_vec()];
            sink.push_owned(b"seed").unwrap();
            for step in 0..400 {
                let prev = want.last().unwrap().clone();
                let prefix_len = match step % 5 {
                    0 => 0,
                    1 => prev.len(),
                    2 => prev.len().min(SHORT_COPY),
                    _ => rng.below(prev.len() as u64 + 1) as usize,
                };
                let len = match step % 7 {
                    0 => 0,
                    1 => SHORT_COPY,
                    2 => SHORT_COPY + 1,
                    3 => 1,
                    _ => rng.below(40) as usize,
                };
                // The suffix, then either exactly enough bytes for a block or none at all.
                let after = if step % 3 == 0 { SHORT_COPY.saturating_sub(len) } else { 0 };
                let tail = rng.bytes(len + after);
                sink.data.reserve_exact(room.min(prefix_len + len + room));
                sink.push_prefixed_in(prefix_len, &tail, len).unwrap();
                let mut v = prev[..prefix_len].to_vec();
                v.extend_from_slice(&tail[..len]);
                want.push(v);
            }
            for (i, w) in want.iter().enumerate() {
                assert_eq!(sink.value(i).unwrap(), &w[..], "room {room} value {i}");
            }
        }
        let mut sink = OffsetsSink::<i32>::new();
        sink.push_owned(b"abc").unwrap();
        assert!(sink.push_prefixed_in(4, &[0; 64], 1).is_err());
        assert!(sink.push_prefixed_in(1, &[0; 8], 9).is_err());
        assert!(OffsetsSink::<i32>::new().push_prefixed_in(1, &[0; 64], 1).is_err());
        let mut first = OffsetsSink::<i32>::new();
        first.push_prefixed_in(0, b"xyz", 2).unwrap();
        assert_eq!((first.offsets.as_slice(), first.data.as_slice()), (&[0, 2][..], &b"xy"[..]));
    }

    #[test]
    fn running_offsets_in_blocks_match_a_plain_sum() {
        // Counts around the 32-value blocks, a base that is not 0, and totals up to i32::MAX.
        let mut rng = TestRng::new(11);
        for n in [0, 1, 31, 32, 33, 64, 95, 200] {
            for big in [false, true] {
                let lengths: Vec<u32> =
                    (0..n).map(|_| if big { rng.below(1 << 23) as u32 } else { rng.below(40) as u32 }).collect();
                let base = if big { i32::MAX as usize - (n << 23) } else { 1000 };
                let mut want = vec![7i64];
                let mut sum = base as i64;
                want.extend(lengths.iter().map(|&l| {
                    sum += i64::from(l);
                    sum
                }));
                let mut wide = vec![7i64];
                i64::extend_running(&mut wide, base, &lengths);
                assert_eq!(wide, want, "{n} {big}");
                let mut narrow = vec![7i32];
                i32::extend_running(&mut narrow, base, &lengths);
                assert!(narrow.iter().map(|&o| i64::from(o)).eq(want.iter().copied()), "{n} {big}");
            }
        }
    }
}
