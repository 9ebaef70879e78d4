//! Values at the set bits of a bitmap (the rows a filter keeps), by AVX-512: `vpcompress`
//! copies the selected of eight or sixteen values with one instruction, and for 64-bit
//! integers widened to 128 the arithmetic shift gives each value's high word. Without
//! AVX-512 each function returns `None` and the caller takes its portable way (arrow's
//! filter).
//!
//! Widening a whole column this way (a `Decimal128` read from INT64) was tried and measured
//! no faster than the scalar loop: it is bound by the stores into freshly faulted pages.

use arrow_buffer::BooleanBuffer;

/// `v`'s values at `keep`'s set bits, in order; `None` unless `v` is as long as `keep` and
/// the processor has AVX-512.
pub(crate) fn compressed<T: Lane>(v: &[T], keep: &BooleanBuffer) -> Option<Vec<T>> {
    #[cfg(target_arch = "x86_64")]
    return run(v, keep, T::KERNEL);
    #[allow(unreachable_code)]
    None
}

/// `v`'s values at `keep`'s set bits, widened to i128 (`None` as [`compressed`]).
pub(crate) fn widened(v: &[i64], keep: &BooleanBuffer) -> Option<Vec<i128>> {
    #[cfg(target_arch = "x86_64")]
    return run(v, keep, avx512::widen64);
    #[allow(unreachable_code)]
    None
}

/// `kernel` (one of [`avx512`]'s) on `v` and `keep`, if it may run here.
#[cfg(target_arch = "x86_64")]
fn run<T, U>(v: &[T], keep: &BooleanBuffer, kernel: unsafe fn(&[T], &BooleanBuffer, &mut Vec<U>)) -> Option<Vec<U>> {
    if v.len() != keep.len() || !has_avx512() {
        return None;
    }
    let mut out = Vec::new();
    // SAFETY: the kernels need AVX-512F, which the processor has, and `v` as long as `keep`.
    unsafe { kernel(v, keep, &mut out) };
    Some(out)
}

/// Whether this module's kernels run here.
pub(crate) fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx512f");
    #[allow(unreachable_code)]
    false
}

/// A value type the compress kernels copy: 32 or 64 bits.
pub(crate) trait Lane: Copy {
    /// The kernel for values of this width.
    #[cfg(target_arch = "x86_64")]
    const KERNEL: unsafe fn(&[Self], &BooleanBuffer, &mut Vec<Self>);
}

impl Lane for u32 {
    #[cfg(target_arch = "x86_64")]
    const KERNEL: unsafe fn(&[u32], &BooleanBuffer, &mut Vec<u32>) = avx512::compress32;
}

impl Lane for u64 {
    #[cfg(target_arch = "x86_64")]
    const KERNEL: unsafe fn(&[u64], &BooleanBuffer, &mut Vec<u64>) = avx512::compress64;
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    //! Each kernel reserves `count + slack` values (the set bits of `keep`, plus what one
    //! full vector store may write past the last value), stores whole vectors at the write
    //! position, which moves on by the popcount of the mask, and sets the length to `count`
    //! at the end. The write position is the popcount of the bits before: it never passes
    //! `count`, so a store at it stays within the reservation.

    use std::arch::x86_64::*;

    use arrow_buffer::BooleanBuffer;

    /// The loop every kernel is: `out` reserved for the set bits of `keep` plus `$lanes`
    /// values of slack; for each group of `$lanes` rows of a full 64-bit word of `keep`, `$m`
    /// (its bits, as `$mask`) and `$from` (a pointer to its `$lanes` values in `$v`) given to
    /// `$vector`, which stores whole vectors at `$to` (the write position, `$lanes` values
    /// writable); the rows past the last full word one at a time through `$conv`.
    macro_rules! select_loop {
        ($v:ident, $keep:ident, $out:ident, $lanes:literal, $mask:ty, $conv:expr, |$m:ident, $from:ident, $to:ident| $vector:block) => {{
            let count = $keep.count_set_bits();
            *$out = Vec::with_capacity(count + $lanes);
            let dst = $out.as_mut_ptr();
            let chunks = $keep.bit_chunks();
            let mut k = 0usize;
            for (w, word) in chunks.iter().enumerate() {
                for q in 0..64 / $lanes {
                    let $m = (word >> ($lanes * q)) as $mask;
                    // SAFETY: `64 * w + 64 <= 64 * chunks.chunk_len() <= v.len()` (a full word
                    // of `keep`, which is as long as `v`), so the group's `$lanes` values are
                    // in `v`; `k <= count` (the module's note), so `$lanes` values from `k`
                    // are within the `count + $lanes` reserved.
                    let ($from, $to) = unsafe { ($v.as_ptr().add(64 * w + $lanes * q), dst.add(k)) };
                    $vector
                    k += $m.count_ones() as usize;
                }
            }
            let base = 64 * chunks.chunk_len();
            let mut word = chunks.remainder_bits();
            while word != 0 {
                // SAFETY: as above; one value at `k < count`.
                unsafe { dst.add(k).write($conv($v[base + word.trailing_zeros() as usize])) };
                k += 1;
                word &= word - 1;
            }
            debug_assert_eq!(k, count);
            // SAFETY: `out[..count]` was written: every set bit of `keep` wrote its value at
            // its rank, and `count <= capacity`.
            unsafe { $out.set_len(count) };
        }};
    }

    /// 32-bit values, sixteen to a vector.
    #[target_feature(enable = "avx512f")]
    pub(super) fn compress32(v: &[u32], keep: &BooleanBuffer, out: &mut Vec<u32>) {
        select_loop!(v, keep, out, 16, u16, |x| x, |m, from, to| {
            // SAFETY: `from` has 16 values to read, `to` room for 16 (`select_loop`).
            unsafe { _mm512_storeu_si512(to.cast(), _mm512_maskz_compress_epi32(m, _mm512_loadu_si512(from.cast()))) };
        })
    }

    /// 64-bit values, eight to a vector.
    #[target_feature(enable = "avx512f")]
    pub(super) fn compress64(v: &[u64], keep: &BooleanBuffer, out: &mut Vec<u64>) {
        select_loop!(v, keep, out, 8, u8, |x| x, |m, from, to| {
            // SAFETY: `from` has 8 values to read, `to` room for 8 (`select_loop`).
            unsafe { _mm512_storeu_si512(to.cast(), _mm512_maskz_compress_epi64(m, _mm512_loadu_si512(from.cast()))) };
        })
    }

    /// 64-bit values widened to 128 bits (sign-extended), eight to a vector: the compressed
    /// values and their sign words interleaved into two vectors of four i128 each.
    #[target_feature(enable = "avx512f")]
    pub(super) fn widen64(v: &[i64], keep: &BooleanBuffer, out: &mut Vec<i128>) {
        let low = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
        let high = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
        select_loop!(v, keep, out, 8, u8, i128::from, |m, from, to| {
            // SAFETY: `from` has 8 values to read, `to` room for 8 i128: two vectors.
            unsafe {
                let x = _mm512_maskz_compress_epi64(m, _mm512_loadu_si512(from.cast()));
                let sign = _mm512_srai_epi64::<63>(x);
                let to = to.cast::<__m512i>();
                _mm512_storeu_si512(to, _mm512_permutex2var_epi64(x, low, sign));
                _mm512_storeu_si512(to.add(1), _mm512_permutex2var_epi64(x, high, sign));
            }
        })
    }
}

#[cfg(test)]
#[path = "compress_tests.rs"]
mod tests;
