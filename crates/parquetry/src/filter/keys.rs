//! A test on a dictionary-encoded column, run once per dictionary value, applied to each row
//! through its key: 64 rows to a word, without a branch per key.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_buffer::BooleanBuffer;
use arrow_schema::DataType;

use super::compare::bits_of_bytes;

/// Each slot of dictionary `d` looked up in `on_values`, the test's result on each value
/// (false for a key out of range; what a null slot gets does not matter).
pub(super) fn through_keys(d: &dyn arrow_array::AnyDictionaryArray, on_values: &[bool]) -> BooleanBuffer {
    let keys = d.keys();
    let lookup = |k: usize| on_values.get(k).copied().unwrap_or(false);
    macro_rules! keyed {
        ($t:ty) => {{
            let k = keys.as_primitive::<$t>().values();
            BooleanBuffer::collect_bool(k.len(), |i| lookup(k[i] as usize))
        }};
    }
    match keys.data_type() {
        // The reader's dictionaries have Int32 keys.
        DataType::Int32 => by_int32_keys(keys.as_primitive::<Int32Type>().values(), on_values),
        DataType::Int8 => keyed!(Int8Type),
        DataType::Int16 => keyed!(Int16Type),
        DataType::Int64 => keyed!(Int64Type),
        DataType::UInt8 => keyed!(UInt8Type),
        DataType::UInt16 => keyed!(UInt16Type),
        DataType::UInt32 => keyed!(UInt32Type),
        DataType::UInt64 => keyed!(UInt64Type),
        _ => {
            let keys = d.normalized_keys();
            BooleanBuffer::collect_bool(keys.len(), |i| lookup(keys[i]))
        }
    }
}

/// [`through_keys`] for Int32 keys, a word of 64 rows at a time with no branch per key: a
/// key out of range (negative ones wrap past every value) is false. Written out because
/// `collect_bool` with a bounds-checked closure took twice as long as decoding the keys
/// (`count(*) WHERE l_shipmode = 'AIR'` on TPC-H lineitem). Up to 32 dictionary values, the
/// results fit in a `u32` mask and each key is a shift, which vectorizes; the 0/1 bytes of
/// eight keys are then gathered into a byte of the word by one multiplication.
fn by_int32_keys(keys: &[i32], on_values: &[bool]) -> BooleanBuffer {
    let mut words: Vec<u64> = Vec::with_capacity(keys.len().div_ceil(64));
    if on_values.len() <= 32 {
        let mask = on_values.iter().enumerate().fold(0u32, |m, (i, &b)| m | ((b as u32) << i));
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (just checked).
            unsafe { small_dictionary_words_avx2(keys, mask, &mut words) };
            return BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, keys.len());
        }
        small_dictionary_words(keys, mask, on_values.len() as u32, &mut words);
    } else {
        let mut table: Vec<u8> = on_values.iter().map(|&b| b as u8).collect();
        let last = table.len();
        table.push(0);
        for chunk in keys.chunks(64) {
            let mut word = 0u64;
            for (j, &k) in chunk.iter().enumerate() {
                word |= (table[(k as u32 as usize).min(last)] as u64) << j;
            }
            words.push(word);
        }
    }
    BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, keys.len())
}

/// The small-dictionary case of [`by_int32_keys`] without AVX2 (`n` values, at most 32):
/// each key's bit as a 0/1 byte, 64 bytes packed into a word.
fn small_dictionary_words(keys: &[i32], mask: u32, n: u32, words: &mut Vec<u64>) {
    for chunk in keys.chunks(64) {
        let mut bytes = [0u8; 64];
        for (b, &k) in bytes.iter_mut().zip(chunk) {
            let k = k as u32;
            *b = (((mask >> (k & 31)) & 1) as u8) & ((k < n) as u8);
        }
        words.push(bits_of_bytes(&bytes));
    }
}

/// The small-dictionary case of [`by_int32_keys`] with AVX2: eight keys at a time, each a
/// variable shift of `mask` (one instruction for the eight; a shift by 32 or more, which is
/// what keys past the dictionary and negative keys are, gives 0), their bits gathered by
/// one `movemask`. `count(*) WHERE l_shipmode = 'AIR'` spent a third of its time in the
/// SSE2 loop.
///
/// `mask` has a bit set only below the dictionary's length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn small_dictionary_words_avx2(keys: &[i32], mask: u32, words: &mut Vec<u64>) {
    use std::arch::x86_64::*;
    let masks = _mm256_set1_epi32(mask as i32);
    for chunk in keys.chunks(64) {
        let mut word = 0u64;
        let mut eights = chunk.chunks_exact(8);
        for (i, eight) in (&mut eights).enumerate() {
            // SAFETY: `eight` is 8 `i32`s, the 32 bytes the unaligned load reads.
            let k = unsafe { _mm256_loadu_si256(eight.as_ptr().cast()) };
            let bits = _mm256_slli_epi32::<31>(_mm256_srlv_epi32(masks, k));
            word |= u64::from(_mm256_movemask_ps(_mm256_castsi256_ps(bits)) as u8) << (8 * i);
        }
        let done = chunk.len() - eights.remainder().len();
        for (j, &k) in eights.remainder().iter().enumerate() {
            word |= ((u64::from(mask) >> (k as u32).min(63)) & 1) << (done + j);
        }
        words.push(word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_keys_are_looked_up_in_small_and_large_dictionaries() {
        for n in [1usize, 7, 32, 33, 300] {
            let on: Vec<bool> = (0..n).map(|i| i % 3 == 1).collect();
            let keys: Vec<i32> = (0..1000 + n as i32 % 7).map(|i| ((i * 7919) % (n as i32 + 3)) - 1).collect();
            let got: Vec<bool> = by_int32_keys(&keys, &on).iter().collect();
            let want: Vec<bool> = keys.iter().map(|&k| k >= 0 && (k as usize) < n && on[k as usize]).collect();
            assert_eq!(got, want, "{n} values");
        }
    }

    /// Both small-dictionary paths, whichever the machine would take: the portable one is
    /// otherwise untested on an AVX2 machine.
    #[test]
    fn small_dictionary_paths_agree_with_a_lookup_per_key() {
        for n in [1u32, 5, 31, 32] {
            let on: Vec<bool> = (0..n).map(|i| i % 4 != 2).collect();
            let mask = on.iter().enumerate().fold(0u32, |m, (i, &b)| m | ((b as u32) << i));
            for len in [0usize, 1, 7, 8, 63, 64, 65, 200, 1000] {
                let keys: Vec<i32> = (0..len as i32).map(|i| (i * 7919) % (n as i32 + 40) - 20).collect();
                let want: Vec<bool> = keys.iter().map(|&k| k >= 0 && (k as u32) < n && on[k as usize]).collect();
                let mut words = Vec::new();
                small_dictionary_words(&keys, mask, n, &mut words);
                let got: Vec<bool> = BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, len).iter().collect();
                assert_eq!(got, want, "portable, {n} values, {len} keys");
                #[cfg(target_arch = "x86_64")]
                if std::is_x86_feature_detected!("avx2") {
                    let mut words = Vec::new();
                    // SAFETY: the processor has AVX2 (just checked).
                    unsafe { small_dictionary_words_avx2(&keys, mask, &mut words) };
                    let got: Vec<bool> =
                        BooleanBuffer::new(arrow_buffer::Buffer::from_vec(words), 0, len).iter().collect();
                    assert_eq!(got, want, "AVX2, {n} values, {len} keys");
                }
            }
        }
    }
}
