//! Validity bits packed as they are produced, and level tests turned into bit masks.
//!
//! Whether a level of a nested column yields a slot, a valid value or a list element is as
//! random as the data (list lengths, nulls): a branch per level is mispredicted half the
//! time. Levels are instead tested 64 at a time into masks ([`at_least`], [`at_most`]), and
//! only the set bits of a mask are walked.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer};

/// A growing LSB-first bitmap.
pub(crate) struct PackedBits {
    words: Vec<u64>,
    word: u64,
    len: usize,
}

impl PackedBits {
    /// An empty bitmap with room for `bits` bits.
    pub fn with_capacity(bits: usize) -> Self {
        PackedBits { words: Vec::with_capacity(bits / 64 + 1), word: 0, len: 0 }
    }

    /// Appends the low `n` bits of `bits` (`n` ≤ 64; higher bits of `bits` are 0).
    #[inline]
    pub fn push_bits(&mut self, bits: u64, n: u32) {
        let used = (self.len % 64) as u32;
        self.word |= bits << used;
        self.len += n as usize;
        if used + n >= 64 {
            self.words.push(self.word);
            // The bits that did not fit (none when `used` is 0: a shift by 64 is not allowed).
            self.word = if used == 0 { 0 } else { bits >> (64 - used) };
        }
    }

    /// Appends bit `j` of `valid` for each set bit `j` of `keep`, in order: a run of kept
    /// bits at a time.
    #[inline(always)]
    pub fn push_selected(&mut self, keep: u64, valid: u64) {
        if keep == u64::MAX {
            return self.push_bits(valid, 64);
        }
        let mut keep = keep;
        while keep != 0 {
            let start = keep.trailing_zeros();
            let run = (!(keep >> start)).trailing_zeros();
            let ones = if run == 64 { u64::MAX } else { (1u64 << run) - 1 };
            self.push_bits((valid >> start) & ones, run);
            keep &= !(ones << start);
        }
    }

    /// The number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The bitmap's bytes (a whole number of bytes; bits past `len` are 0).
    pub fn into_bytes(mut self) -> Vec<u8> {
        let mut bytes: Vec<u8> = Vec::with_capacity(self.words.len() * 8 + 8);
        for w in &self.words {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        let tail = (self.len % 64).div_ceil(8);
        bytes.extend_from_slice(&self.word.to_le_bytes()[..tail]);
        self.words.clear();
        bytes
    }

    /// The bits as a null buffer (1 = valid); `None` if no bit is 0.
    pub fn into_nulls(self) -> Option<NullBuffer> {
        let len = self.len;
        let bits = BooleanBuffer::new(Buffer::from_vec(self.into_bytes()), 0, len);
        Some(NullBuffer::new(bits)).filter(|n| n.null_count() > 0)
    }
}

/// Bit `j` is set where `levels[j] >= t`, for the first 64 levels (or fewer, at the end).
#[inline(always)]
pub(crate) fn at_least(levels: &[i16], t: i16) -> u64 {
    !compare(levels, t, false) & low_bits(levels.len())
}

/// Bit `j` is set where `levels[j] <= t`, for the first 64 levels (or fewer, at the end).
#[inline(always)]
pub(crate) fn at_most(levels: &[i16], t: i16) -> u64 {
    !compare(levels, t, true) & low_bits(levels.len())
}

fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// Bit `j` is set where `levels[j] > t` (`above`) or `levels[j] < t` (not `above`), for the
/// first 64 levels; bits past the end are unspecified. A whole block is 8 SSE2 compares
/// (every x86-64 processor has SSE2), 4 packs and 4 byte masks: the scalar loop does not
/// vectorize, and a whole list column's levels go through here three times.
#[inline(always)]
fn compare(levels: &[i16], t: i16, above: bool) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if levels.len() >= 64 {
        use std::arch::x86_64::{_mm_cmpgt_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_set1_epi16};
        let mut mask = 0u64;
        // SAFETY: SSE2 is part of every x86-64 processor; each `p` points at 16 levels (32
        // bytes) inside the slice, read by two unaligned 16-byte loads.
        unsafe {
            let ts = _mm_set1_epi16(t);
            for k in 0..4 {
                let p = levels[16 * k..16 * k + 16].as_ptr();
                let (a, b) = (_mm_loadu_si128(p.cast()), _mm_loadu_si128(p.add(8).cast()));
                let (a, b) = if above {
                    (_mm_cmpgt_epi16(a, ts), _mm_cmpgt_epi16(b, ts))
                } else {
                    (_mm_cmpgt_epi16(ts, a), _mm_cmpgt_epi16(ts, b))
                };
                // Each lane is 0 or -1, which the signed pack to bytes keeps.
                let bits = _mm_movemask_epi8(_mm_packs_epi16(a, b)) as u32 & 0xffff;
                mask |= u64::from(bits) << (16 * k);
            }
        }
        return mask;
    }
    let mut mask = 0u64;
    for (j, &l) in levels.iter().take(64).enumerate() {
        mask |= u64::from(if above { l > t } else { l < t }) << j;
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_exactly_the_selected_bits() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed
        };
        for words in [0usize, 1, 2, 5, 40] {
            let mut bits = PackedBits::with_capacity(0);
            let mut want = Vec::new();
            for w in 0..words {
                // Dense, sparse, full and empty selections, and a short last word.
                let keep = match w % 4 {
                    0 => next() | next(),
                    1 => next() & next() & next(),
                    2 => u64::MAX,
                    _ => 0,
                };
                let valid = next();
                bits.push_selected(keep, valid);
                want.extend((0..64).filter(|j| keep >> j & 1 == 1).map(|j| valid >> j & 1 == 1));
                let n = (next() % 65) as u32;
                let tail = if n == 64 { next() } else { next() & ((1u64 << n) - 1) };
                bits.push_bits(tail, n);
                want.extend((0..n).map(|j| tail >> j & 1 == 1));
            }
            assert_eq!(bits.len(), want.len());
            let bytes = bits.into_bytes();
            assert_eq!(bytes.len(), want.len().div_ceil(8));
            let got: Vec<bool> = (0..want.len()).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1).collect();
            assert_eq!(got, want, "{words} words");
        }
    }

    #[test]
    fn level_masks_test_each_level() {
        let def: Vec<i16> = (0..150).map(|i| (i * 7 % 5) as i16).collect();
        let rep: Vec<i16> = (0..150).map(|i| (i * 3 % 4) as i16).collect();
        for start in [0, 64, 128, 140] {
            let (d, r) = (&def[start..], &rep[start..]);
            let mask = at_least(d, 2) & at_most(r, 1);
            for j in 0..64 {
                let want = j < d.len() && d[j] >= 2 && r[j] <= 1;
                assert_eq!(mask >> j & 1 == 1, want, "start {start}, level {j}");
            }
        }
    }
}
