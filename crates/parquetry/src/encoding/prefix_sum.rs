//! The running sum behind DELTA_BINARY_PACKED values and DELTA_LENGTH_BYTE_ARRAY offsets, 32
//! values at a time.
//!
//! As a scalar loop every value waits for the one before it (about 0.6 ns a value here, the
//! largest part of decoding byte-array lengths). The SSE2 build sums each group of 4 values
//! inside one register (two shift-and-add steps) and carries only the group's last lane to the
//! next group: 0.25 ns a value in a micro-benchmark; decoding the lengths fell from 8.6% to
//! 5.6% of a strings_delta_length_none read.
//! SSE2 is part of every x86_64 CPU, so no run-time check is needed.

/// Writes `out[i] = last + (i + 1) * min + deltas[0] + … + deltas[i]`, wrapping at 32 bits,
/// and returns `out[31]`.
#[inline]
pub(crate) fn prefix_sum32(last: u32, min: u32, deltas: &[u32; 32], out: &mut [u32; 32]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: this build targets CPUs with SSE2 (the cfg above), so the CPU running it has
        // the feature `sse2` was compiled for.
        unsafe { sse2(last, min, deltas, out) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        scalar(last, min, deltas, out)
    }
}

/// The portable loop: the reference the SSE2 build is tested against.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn scalar(last: u32, min: u32, deltas: &[u32; 32], out: &mut [u32; 32]) -> u32 {
    let mut v = last;
    for (o, &d) in out.iter_mut().zip(deltas) {
        v = v.wrapping_add(min).wrapping_add(d);
        *o = v;
    }
    v
}

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn sse2(last: u32, min: u32, deltas: &[u32; 32], out: &mut [u32; 32]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_set1_epi32, _mm_shuffle_epi32, _mm_slli_si128,
        _mm_storeu_si128,
    };
    let src = deltas.as_ptr().cast::<__m128i>();
    let dst = out.as_mut_ptr().cast::<__m128i>();
    let min = _mm_set1_epi32(min as i32);
    let mut carry = _mm_set1_epi32(last as i32);
    for g in 0..8 {
        // SAFETY: group g is bytes 16g..16g + 16 of the 128-byte `deltas`; unaligned loads
        // need no alignment.
        let mut x = _mm_add_epi32(unsafe { _mm_loadu_si128(src.add(g)) }, min);
        x = _mm_add_epi32(x, _mm_slli_si128::<4>(x));
        x = _mm_add_epi32(x, _mm_slli_si128::<8>(x));
        x = _mm_add_epi32(x, carry);
        // SAFETY: bytes 16g..16g + 16 of the 128-byte `out`, which nothing else borrows.
        unsafe { _mm_storeu_si128(dst.add(g), x) };
        carry = _mm_shuffle_epi32::<0xff>(x);
    }
    _mm_cvtsi128_si32(carry) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRng;

    #[test]
    fn matches_the_scalar_loop_and_wraps() {
        let mut rng = TestRng::new(7);
        let edges = [0, 1, 0x7fff_ffff, 0x8000_0000, u32::MAX - 1, u32::MAX];
        for round in 0..2000 {
            let pick = |rng: &mut TestRng| match rng.below(3) {
                0 => edges[rng.below(edges.len() as u64) as usize],
                1 => rng.below(16) as u32,
                _ => rng.next_u64() as u32,
            };
            let deltas: [u32; 32] = std::array::from_fn(|_| pick(&mut rng));
            let (last, min) = (pick(&mut rng), pick(&mut rng));
            let mut want = [0u32; 32];
            let want_last = scalar(last, min, &deltas, &mut want);
            let mut got = [0u32; 32];
            let got_last = prefix_sum32(last, min, &deltas, &mut got);
            assert_eq!((got, got_last), (want, want_last), "round {round}");
            assert_eq!(got_last, got[31]);
        }
        // By hand: 1 + (2 + 0), then + (2 + 1), … and a wrap past u32::MAX.
        let deltas: [u32; 32] = std::array::from_fn(|i| i as u32);
        let mut out = [0u32; 32];
        prefix_sum32(1, 2, &deltas, &mut out);
        assert_eq!(out[..4], [3, 6, 10, 15]);
        assert_eq!(out[31], 1 + 2 * 32 + 31 * 32 / 2);
        prefix_sum32(u32::MAX, 1, &[0; 32], &mut out);
        assert_eq!(out[..3], [0, 1, 2]);
    }
}
