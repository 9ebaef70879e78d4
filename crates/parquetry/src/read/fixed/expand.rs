//! [`spread`](super::spread) for 4- and 8-byte values with AVX-512's expanding load, which
//! places the next valid values of a group of 8 (or 16) rows at their rows and zeros at the
//! null rows, in one instruction.
//!
//! Random nulls leave almost no 64-row word all valid or all null, so the plain spread goes row
//! by row there, with a branch per row that a 10% null rate mispredicts often: 10% of reading
//! the benchmark's numeric file, whose two nullable columns have 10% nulls.

use super::{spread, Slots, Validity};
use crate::error::{Error, Result};

/// Values the expanding kernel may move as raw 4- or 8-byte lanes.
///
/// # Safety
///
/// `Self` is 4 or 8 bytes, aligned at least as `i32`/`i64` of its size, every bit pattern is a
/// valid value, and all-zero bits are `Self::default()` (the null rows' value).
pub(super) unsafe trait Lane: Copy + Default {}

// SAFETY: plain numbers of 4 and 8 bytes; zero is their default.
unsafe impl Lane for i32 {}
// SAFETY: as above.
unsafe impl Lane for f32 {}
// SAFETY: as above.
unsafe impl Lane for i64 {}
// SAFETY: as above.
unsafe impl Lane for f64 {}

/// Moves the page's `dense` values, at the start of `values` (one slot per row), to their rows,
/// null rows zero: [`spread`], with mixed words placed by AVX-512 where the processor has it.
pub(super) fn spread_lanes<T: Lane>(values: &mut [T], dense: usize, validity: &Validity<'_>) -> Result<()> {
    if values.len() < validity.len {
        return Err(Error::corrupt(format!("{} slots for a page of {} rows", values.len(), validity.len)));
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        return spread(&mut Avx512Lanes(values), 0, dense, validity);
    }
    spread(values, 0, dense, validity)
}

/// Values on a processor with AVX-512F: only built after checking that it has it.
#[cfg(target_arch = "x86_64")]
struct Avx512Lanes<'a, T>(&'a mut [T]);

#[cfg(target_arch = "x86_64")]
impl<T: Lane> Slots for Avx512Lanes<'_, T> {
    #[inline]
    fn move_block(&mut self, src: usize, dst: usize, n: usize) {
        self.0.move_block(src, dst, n);
    }
    #[inline]
    fn move_one(&mut self, src: usize, dst: usize) {
        self.0.move_one(src, dst);
    }
    #[inline]
    fn clear(&mut self, at: usize, n: usize, before: usize) {
        self.0.clear(at, n, before);
    }
    #[inline]
    fn move_mixed(&mut self, src: usize, dst: usize, word: u64, n: usize) {
        let count = word.count_ones() as usize;
        if n > 64 || src + count > self.0.len() || dst + n > self.0.len() {
            // Never the case from spread; the checked default then does what it can.
            return <[T] as Slots>::move_mixed(self.0, src, dst, word, n);
        }
        // SAFETY: an Avx512Lanes exists only where the processor has AVX-512F (spread_lanes),
        // and the values read and the rows written are in the slice (just checked).
        unsafe { move_mixed_avx512(self.0, src, dst, word, n) }
    }
}

/// [`Slots::move_mixed`] a group of 8 (or 16) rows at a time, from the last group: one
/// expanding load places the group's valid values and zeros its null rows.
///
/// # Safety
///
/// The processor has AVX-512F; `src + popcount(word) <= values.len()`, `dst + n <=
/// values.len()` and `n <= 64`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn move_mixed_avx512<T: Lane>(values: &mut [T], src: usize, dst: usize, word: u64, n: usize) {
    use std::arch::x86_64::{
        _mm512_mask_storeu_epi32, _mm512_mask_storeu_epi64, _mm512_maskz_expandloadu_epi32,
        _mm512_maskz_expandloadu_epi64,
    };
    // Rows per group: one 64-byte register of lanes.
    let group = 64 / size_of::<T>();
    let base = values.as_mut_ptr();
    let mut from = src + word.count_ones() as usize;
    let mut g = n.div_ceil(group);
    while g > 0 {
        g -= 1;
        let at = g * group;
        let lanes = (n - at).min(group);
        let bits = (word >> at) & (u64::MAX >> (64 - group));
        from -= bits.count_ones() as usize;
        // SAFETY: the load reads the popcount(bits) values at `from..`, inside `src..src +
        // popcount(word)`; the store writes lanes `dst + at .. dst + at + lanes`, inside `dst..dst
        // + n`: both in the slice (the caller's contract). The lanes are `T` values (`Lane`: 4 or
        // 8 bytes, any bits valid); unaligned accesses are allowed.
        unsafe {
            let (src_ptr, dst_ptr) = (base.add(from), base.add(dst + at));
            let store = (1u32 << lanes).wrapping_sub(1);
            if size_of::<T>() == 8 {
                let v = _mm512_maskz_expandloadu_epi64(bits as u8, src_ptr.cast());
                _mm512_mask_storeu_epi64(dst_ptr.cast(), store as u8, v);
            } else {
                let v = _mm512_maskz_expandloadu_epi32(bits as u16, src_ptr.cast());
                _mm512_mask_storeu_epi32(dst_ptr.cast(), store as u16, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRng;

    fn bitmap(valid: &[bool], offset: usize) -> Vec<u8> {
        let mut bits = vec![0u8; (offset + valid.len()).div_ceil(8) + 1];
        for (i, &v) in valid.iter().enumerate() {
            if v {
                bits[(offset + i) / 8] |= 1 << ((offset + i) % 8);
            }
        }
        bits
    }

    /// Every row placed as a plain loop places it, for both lane widths: words all valid, all
    /// null and mixed at every density, pages not a multiple of 64 or of a group, bitmaps at
    /// any bit offset.
    #[test]
    fn lanes_match_a_row_by_row_spread() {
        let mut rng = TestRng::new(11);
        for round in 0..400 {
            let rows = rng.below(400) as usize;
            let density = rng.below(6);
            let valid: Vec<bool> = (0..rows)
                .map(|i| match density {
                    0 => false,
                    5 => true,
                    4 => (i / 64) % 2 == 0 || rng.below(2) == 0,
                    d => rng.below(4) < d,
                })
                .collect();
            let offset = rng.below(70) as usize;
            let bits = bitmap(&valid, offset);
            let nulls = valid.iter().filter(|&&v| !v).count();
            let v = Validity { bits: &bits, offset, len: rows, null_count: nulls };
            let dense = rows - nulls;
            let mut k = 0;
            let expect: Vec<i64> = valid
                .iter()
                .map(|&ok| {
                    k += ok as i64;
                    if ok {
                        -k
                    } else {
                        0
                    }
                })
                .collect();

            let mut wide: Vec<i64> = (1..=dense as i64).map(|x| -x).collect();
            wide.resize(rows, 7);
            spread_lanes(&mut wide, dense, &v).unwrap();
            assert_eq!(wide, expect, "round {round}, i64");

            let mut narrow: Vec<f32> = (1..=dense).map(|x| -(x as f32)).collect();
            narrow.resize(rows, 7.0);
            spread_lanes(&mut narrow, dense, &v).unwrap();
            let expect32: Vec<f32> = expect.iter().map(|&x| x as f32).collect();
            assert_eq!(narrow, expect32, "round {round}, f32");
        }
    }

    /// More or fewer valid rows than values, and a slice shorter than the rows: errors, with
    /// nothing read or written out of bounds.
    #[test]
    fn a_bitmap_that_disagrees_is_an_error() {
        let valid: Vec<bool> = (0..200).map(|i| i % 3 != 0).collect();
        let bits = bitmap(&valid, 0);
        let v = Validity { bits: &bits, offset: 0, len: 200, null_count: 67 };
        for dense in [0, 1, 132, 134] {
            let mut values = vec![1i64; 200];
            assert!(spread_lanes(&mut values, dense, &v).is_err(), "{dense}");
            let mut values = vec![1i32; 200];
            assert!(spread_lanes(&mut values, dense, &v).is_err(), "{dense}");
        }
        let mut short = vec![1i64; 150];
        assert!(spread_lanes(&mut short, 133, &v).is_err());
        let mut fine = vec![1i64; 200];
        spread_lanes(&mut fine, 133, &v).unwrap();
    }
}
