//! Null spreading: a page's non-null values, decoded densely, moved to their rows given the
//! page's validity bits. Every value decoder with nulls ends a page here.
//!
//! One routine, [`spread`], serves every layout whose rows are slots (a value per row in a
//! vector): numbers, Arrow views and dictionary keys ([`spread_nulls`]), fixed-width byte
//! values ([`ByteSlots`]), and the byte-array sinks' views and offsets (through the
//! [`SpreadRows`] impl; a null row of offsets is an empty slot ending where the row before it
//! ends). It goes backwards in place a 64-row word of the bitmap at a time; a layout only says
//! how to move and clear its slots ([`Slots`]), and may place mixed words faster (AVX-512 in
//! `fixed/expand.rs`).
//!
//! Booleans are the one layout apart ([`spread_bits`]): their rows are bits, which cannot be
//! moved in place a slot at a time, so they are copied from a dense scratch bitmap a run of
//! valid rows at a time.

use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_buffer::BooleanBufferBuilder;

use super::values::Validity;
use crate::encoding::SpreadRows;
use crate::error::{Error, Result};

/// Storage that [`spread`] can move values in, addressed in values (slots).
pub(crate) trait Slots {
    /// Moves `n` values from `src` to `dst` (`src <= dst`; the ranges may overlap).
    fn move_block(&mut self, src: usize, dst: usize, n: usize);
    /// Moves one value from `src` to `dst`.
    fn move_one(&mut self, src: usize, dst: usize);
    /// Makes the `n` slots from `at` null rows: the default for values (null slots read as
    /// zero, as pyarrow's do); for offsets, empty after the `before` values that precede them
    /// (`before <= at`, so that value is not yet overwritten).
    fn clear(&mut self, at: usize, n: usize, before: usize);
    /// Places the `n` rows from `dst` whose validity bits are `word`: the valid rows take, in
    /// order, the values from `src` on, the null rows the default. `src <= dst`, so going from
    /// the last row down never overwrites a value before it is moved.
    fn move_mixed(&mut self, src: usize, dst: usize, word: u64, n: usize) {
        let mut from = src + word.count_ones() as usize;
        for j in (0..n).rev() {
            if word >> j & 1 == 1 {
                from -= 1;
                self.move_one(from, dst + j);
            } else {
                self.clear(dst + j, 1, from);
            }
        }
    }
}

impl<T: Copy + Default> Slots for [T] {
    #[inline]
    fn move_block(&mut self, src: usize, dst: usize, n: usize) {
        self.copy_within(src..src + n, dst);
    }
    #[inline]
    fn move_one(&mut self, src: usize, dst: usize) {
        if let Some(&v) = self.get(src) {
            if let Some(d) = self.get_mut(dst) {
                *d = v;
            }
        }
    }
    #[inline]
    fn clear(&mut self, at: usize, n: usize, _before: usize) {
        if let Some(s) = self.get_mut(at..at + n) {
            s.fill(T::default());
        }
    }
}

/// Raw bytes of values `width` bytes wide (FIXED_LEN_BYTE_ARRAY).
pub(crate) struct ByteSlots<'a> {
    /// The values, back to back.
    pub(crate) bytes: &'a mut Vec<u8>,
    /// Bytes per value.
    pub(crate) width: usize,
}

impl Slots for ByteSlots<'_> {
    #[inline]
    fn move_block(&mut self, src: usize, dst: usize, n: usize) {
        let w = self.width;
        self.bytes.copy_within(src * w..(src + n) * w, dst * w);
    }
    #[inline]
    fn move_one(&mut self, src: usize, dst: usize) {
        self.move_block(src, dst, 1);
    }
    #[inline]
    fn clear(&mut self, at: usize, n: usize, _before: usize) {
        let w = self.width;
        if let Some(s) = self.bytes.get_mut(at * w..(at + n) * w) {
            s.fill(0);
        }
    }
}

/// A page's offsets from where its first value starts: slot `k` is `ends[k + 1]`, the end of
/// value `k`, and `ends[0]` is the page's start (the end of "value -1").
struct OffsetSlots<'a, O> {
    ends: &'a mut [O],
}

impl<O: Copy> Slots for OffsetSlots<'_, O> {
    #[inline]
    fn move_block(&mut self, src: usize, dst: usize, n: usize) {
        self.ends.copy_within(src + 1..src + 1 + n, dst + 1);
    }
    #[inline]
    fn move_one(&mut self, src: usize, dst: usize) {
        self.move_block(src, dst, 1);
    }
    #[inline]
    fn clear(&mut self, at: usize, n: usize, before: usize) {
        // A null row ends where the last value before it ends: ends[before].
        if let Some(&end) = self.ends.get(before) {
            if let Some(s) = self.ends.get_mut(at + 1..at + 1 + n) {
                s.fill(end);
            }
        }
    }
}

/// Up to 64 bits (`n` ≤ 64) of `bits` starting at bit `pos`, LSB first; bits past the end of
/// `bits` read as zero.
#[inline]
fn load_bits(bits: &[u8], pos: usize, n: usize) -> u64 {
    let mut buf = [0u8; 16];
    let src = bits.get(pos / 8..).unwrap_or_default();
    let take = src.len().min(9);
    buf[..take].copy_from_slice(&src[..take]);
    let word = (u128::from_le_bytes(buf) >> (pos % 8)) as u64;
    if n >= 64 {
        word
    } else {
        word & ((1u64 << n) - 1)
    }
}

/// Moves the `dense` values at `start..start + dense` of `slots` (already extended to
/// `start + validity.len` values) to their row positions: afterwards value `start + i` is
/// row `i` of the page, and null rows are cleared ([`Slots::clear`]).
///
/// Works backwards in place a 64-row word at a time: an all-valid word is one block move, an
/// all-null word one fill, and only mixed words go row by row. Stops as soon as every earlier
/// row is valid and already in place. A bitmap whose valid rows do not number `dense` is an
/// error (after which the values are unspecified), never an out-of-bounds access.
pub(crate) fn spread<S: Slots + ?Sized>(
    slots: &mut S,
    start: usize,
    dense: usize,
    validity: &Validity<'_>,
) -> Result<()> {
    let mut left = dense; // values not yet moved, at start..start + left
    let mut end = validity.len; // rows not yet placed, 0..end
    while end > left {
        let n = end.min(64);
        let first = end - n;
        let word = load_bits(validity.bits, validity.offset + first, n);
        let valid = word.count_ones() as usize;
        let Some(src) = left.checked_sub(valid) else {
            break;
        };
        if valid == n {
            slots.move_block(start + src, start + first, n);
        } else if valid == 0 {
            slots.clear(start + first, n, start + left);
        } else {
            slots.move_mixed(start + src, start + first, word, n);
        }
        left = src;
        end = first;
    }
    if left != end {
        return Err(Error::corrupt(format!(
            "the validity bitmap of {} rows does not have {dense} valid rows",
            validity.len
        )));
    }
    Ok(())
}

/// [`spread`] for the `values.len() - start` dense values at the end of `values` (the page's
/// non-null values, in order): after the call `values[start..]` has one entry per row of
/// `validity`, null rows holding `T::default()`.
pub fn spread_nulls<T: Copy + Default>(values: &mut Vec<T>, start: usize, validity: &Validity<'_>) -> Result<()> {
    if validity.null_count == 0 {
        return Ok(());
    }
    let dense = values.len() - start;
    values.resize(start + validity.len, T::default());
    spread(&mut values[..], start, dense, validity)
}

/// The reader's validity bits as the rows a sink spreads its values over ([`spread`] for
/// both: views through [`spread_nulls`], offsets as [`OffsetSlots`], where a null row is an
/// empty slot ending where the row before it ends).
//
// SAFETY: `spread_ends` leaves the ends in order when it returns Ok. `spread` places rows from
// the last down, a word at a time, while `left` dense ends are unmoved at `1..=left`: a word's
// valid rows take the last of them in order (`move_block`, or `move_mixed` counting down from
// the last), its null rows the end of the last one left before them, `ends[left]` (`clear`),
// and `left` only falls. So every row gets the end of the last valid row at or before it (the
// page's start, `ends[0]`, if none), which never decreases; it returns Ok only when every row
// was placed (`left == end`). Tested against a row-by-row spread (read/byte_array/
// spread_tests.rs), and debug builds check every spread's ends.
unsafe impl SpreadRows for Validity<'_> {
    fn rows(&self) -> usize {
        self.len
    }

    fn spread_values<T: Copy + Default>(&self, values: &mut Vec<T>, start: usize) -> Result<()> {
        spread_nulls(values, start, self)
    }

    fn spread_ends<O: Copy + Default>(&self, ends: &mut [O], dense: usize) -> Result<()> {
        spread(&mut OffsetSlots { ends }, 0, dense, self)
    }
}

/// The spread for bits: appends one bit per row of `validity` to `dst`, the valid rows taking
/// the `dense.len()` bits of `dense` in order, the null rows false. Copies a run of valid
/// rows at a time.
pub(crate) fn spread_bits(
    dense: &BooleanBufferBuilder,
    validity: &Validity<'_>,
    dst: &mut BooleanBufferBuilder,
) -> Result<()> {
    let n = dense.len();
    let bits = dense.as_slice();
    dst.reserve(validity.len);
    let mut row = 0;
    let mut src = 0;
    for (s, e) in BitSliceIterator::new(validity.bits, validity.offset, validity.len) {
        let k = e - s;
        if src + k > n || e > validity.len {
            break; // the bitmap has more valid rows than values: reported below
        }
        dst.append_n(s - row, false);
        dst.append_packed_range(src..src + k, bits);
        src += k;
        row = e;
    }
    if src != n {
        return Err(Error::corrupt(format!(
            "the validity bitmap of {} rows does not have {n} valid rows",
            validity.len
        )));
    }
    dst.append_n(validity.len - row, false);
    Ok(())
}
