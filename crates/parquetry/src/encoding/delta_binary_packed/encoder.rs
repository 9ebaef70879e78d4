//! The DELTA_BINARY_PACKED encoder.
//!
//! Deltas are collected for one block; when the block is full it is encoded into an internal
//! buffer at once (the header's value count is known only when the page ends, so blocks cannot
//! go to the page directly). The last block is encoded by
//! [`finish_into`](DeltaBinaryPackedEncoder::finish_into) straight after the header and the
//! full blocks.

use crate::encoding::bit_pack::{pack32, pack32_u64, write_uleb128};

/// A type DELTA_BINARY_PACKED encodes: `i32` for INT32 (and byte-array lengths), `i64` for
/// INT64. Deltas wrap at the type's width, as the spec asks, so a miniblock of INT32 values
/// never needs more than 32 bits.
pub trait DeltaEncodeValue: Copy + Default + Ord {
    /// `self - prev`, wrapping.
    fn delta(self, prev: Self) -> Self;
    /// The value zigzag encoded (the header's first value, a block's min delta).
    fn zigzag(self) -> u64;
    /// The OR of `d - min` (wrapping, as unsigned) over `deltas`: its bit length is the bit
    /// width their miniblock needs.
    fn or_relative(deltas: &[Self], min: Self) -> u64;
    /// Packs `d - min` of up to 32 `deltas` with `width` bits each, zero padded to 32 values:
    /// appends `4 * width` bytes.
    fn pack_relative(deltas: &[Self], min: Self, width: usize, out: &mut Vec<u8>);
}

macro_rules! delta_encode_value {
    ($t:ty, $u:ty, $pack:ident) => {
        impl DeltaEncodeValue for $t {
            #[inline]
            fn delta(self, prev: Self) -> Self {
                self.wrapping_sub(prev)
            }
            #[inline]
            fn zigzag(self) -> u64 {
                ((self << 1) ^ (self >> (<$t>::BITS - 1))) as $u as u64
            }
            #[inline]
            fn or_relative(deltas: &[Self], min: Self) -> u64 {
                deltas.iter().fold(0, |acc, &d| acc | d.wrapping_sub(min) as $u) as u64
            }
            #[inline]
            fn pack_relative(deltas: &[Self], min: Self, width: usize, out: &mut Vec<u8>) {
                let mut rel: [$u; 32] = [0; 32];
                for (r, &d) in rel.iter_mut().zip(deltas) {
                    *r = d.wrapping_sub(min) as $u;
                }
                $pack(&rel, width, out);
            }
        }
    };
}

delta_encode_value!(i32, u32, pack32);
delta_encode_value!(i64, u64, pack32_u64);

/// An incremental DELTA_BINARY_PACKED encoder for one page at a time.
///
/// [`put`](Self::put) values as they come; [`finish_into`](Self::finish_into) appends the
/// header and all blocks and resets the encoder for the next page, keeping its buffers.
#[derive(Debug, Clone)]
pub struct DeltaBinaryPackedEncoder<T: DeltaEncodeValue> {
    block_size: usize,
    miniblocks: usize,
    /// Values put since the last finish.
    count: usize,
    first: T,
    prev: T,
    /// Deltas of the block being collected (fewer than `block_size`).
    deltas: Vec<T>,
    /// The full blocks, encoded.
    blocks: Vec<u8>,
}

impl<T: DeltaEncodeValue> Default for DeltaBinaryPackedEncoder<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: DeltaEncodeValue> DeltaBinaryPackedEncoder<T> {
    /// An encoder with blocks of 128 values in 4 miniblocks of 32, what arrow-rs and Arrow C++
    /// write.
    pub fn new() -> Self {
        Self::with_block_size(128, 4)
    }

    /// An encoder with blocks of `block_size` values in `miniblocks` miniblocks (for tests of
    /// readers against other writers' shapes).
    ///
    /// # Panics
    ///
    /// If `block_size` is not a positive multiple of 128, or the miniblocks do not split it
    /// into multiples of 32 values.
    pub fn with_block_size(block_size: usize, miniblocks: usize) -> Self {
        assert!(
            block_size > 0
                && block_size.is_multiple_of(128)
                && miniblocks > 0
                && block_size.is_multiple_of(miniblocks)
                && (block_size / miniblocks).is_multiple_of(32),
            "DELTA_BINARY_PACKED: {miniblocks} miniblocks do not split a block of {block_size} \
             values into multiples of 32"
        );
        Self {
            block_size,
            miniblocks,
            count: 0,
            first: T::default(),
            prev: T::default(),
            deltas: Vec::with_capacity(block_size),
            blocks: Vec::new(),
        }
    }

    /// The number of values put since the last finish.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True if no value was put since the last finish.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Appends one value.
    #[inline]
    pub fn put_value(&mut self, v: T) {
        if self.count == 0 {
            self.first = v;
        } else {
            self.deltas.push(v.delta(self.prev));
            if self.deltas.len() == self.block_size {
                self.end_block();
            }
        }
        self.prev = v;
        self.count += 1;
    }

    /// Appends `values`.
    pub fn put(&mut self, values: &[T]) {
        let Some((&head, tail)) = values.split_first() else { return };
        let mut rest = values;
        if self.count == 0 {
            self.first = head;
            self.prev = head;
            rest = tail;
        }
        self.count += values.len();
        while let Some(&next) = rest.first() {
            let k = (self.block_size - self.deltas.len()).min(rest.len());
            let (now, later) = rest.split_at(k);
            // The first delta is against the last value put; the rest are within `now`, a
            // loop without a carried dependency.
            self.deltas.push(next.delta(self.prev));
            self.deltas.extend(now.windows(2).map(|w| w[1].delta(w[0])));
            self.prev = now[k - 1];
            if self.deltas.len() == self.block_size {
                self.end_block();
            }
            rest = later;
        }
    }

    /// An upper bound of the bytes [`finish_into`](Self::finish_into) would append now.
    pub fn encoded_len_estimate(&self) -> usize {
        // Four ULEB128 header fields of at most 10 bytes each.
        let mut len = 40 + self.blocks.len();
        if !self.deltas.is_empty() {
            let min = self.deltas.iter().copied().min().unwrap_or_default();
            let per_mb = self.block_size / self.miniblocks;
            let bits: usize = self.deltas.chunks(per_mb).map(|mb| bit_length(T::or_relative(mb, min)) * per_mb).sum();
            len += 10 + self.miniblocks + bits / 8;
        }
        len
    }

    /// Appends the header and all blocks to `out`, and resets the encoder for the next page.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.reserve(self.encoded_len_estimate());
        write_uleb128(self.block_size as u64, out);
        write_uleb128(self.miniblocks as u64, out);
        write_uleb128(self.count as u64, out);
        let first = if self.count == 0 { T::default() } else { self.first };
        write_uleb128(first.zigzag(), out);
        out.extend_from_slice(&self.blocks);
        if !self.deltas.is_empty() {
            encode_block(&self.deltas, self.block_size / self.miniblocks, self.miniblocks, out);
        }
        self.count = 0;
        self.deltas.clear();
        self.blocks.clear();
    }

    fn end_block(&mut self) {
        let per_mb = self.block_size / self.miniblocks;
        encode_block(&self.deltas, per_mb, self.miniblocks, &mut self.blocks);
        self.deltas.clear();
    }
}

/// The number of bits `v` needs.
#[inline]
fn bit_length(v: u64) -> usize {
    (u64::BITS - v.leading_zeros()) as usize
}

/// Encodes a block of `deltas` (at most `miniblocks * per_mb`): the min delta, the miniblocks'
/// bit widths, and the miniblocks. Per the spec, miniblocks past the last delta get width 0
/// and no bytes, and the last used one is padded to its full size.
fn encode_block<T: DeltaEncodeValue>(deltas: &[T], per_mb: usize, miniblocks: usize, out: &mut Vec<u8>) {
    let min = deltas.iter().copied().min().unwrap_or_default();
    write_uleb128(min.zigzag(), out);
    let widths_at = out.len();
    let used = deltas.len().div_ceil(per_mb);
    out.extend(deltas.chunks(per_mb).map(|mb| bit_length(T::or_relative(mb, min)) as u8));
    out.extend(std::iter::repeat_n(0, miniblocks - used));
    for (i, mb) in deltas.chunks(per_mb).enumerate() {
        let width = out.get(widths_at + i).copied().unwrap_or(0) as usize;
        // Padding groups past the last delta pack as zeros.
        for g in 0..per_mb / 32 {
            let group = mb.get(32 * g..).unwrap_or_default();
            T::pack_relative(&group[..group.len().min(32)], min, width, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{DeltaBinaryPackedDecoder, DeltaValue};
    use super::*;
    use crate::encoding::TestRng;

    fn encode<T: DeltaEncodeValue>(values: &[T]) -> Vec<u8> {
        let mut e = DeltaBinaryPackedEncoder::new();
        e.put(values);
        let estimate = e.encoded_len_estimate();
        let mut out = Vec::new();
        e.finish_into(&mut out);
        assert!(out.len() <= estimate, "estimate {estimate} < {}", out.len());
        out
    }

    #[test]
    fn spec_examples() {
        // Encodings.md example 1 (1, 2, 3, 4, 5) in a 128-value block: 5 values, first
        // zigzag(1) = 2; block: min delta zigzag(1) = 2, all deltas equal so every width is 0
        // and there are no miniblock bytes.
        assert_eq!(encode(&[1i32, 2, 3, 4, 5]), [0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0]);
        // Example 2 (7, 5, 3, 1, 2, 3, 4, 5): deltas -2 -2 -2 1 1 1 1, min -2 (zigzag 3),
        // relative 0 0 0 3 3 3 3 on 2 bits, padded to a 32-value miniblock (8 bytes); the
        // three unused miniblocks have width 0 and no bytes.
        let mut want = vec![0x80, 0x01, 4, 8, 14, 3, 2, 0, 0, 0];
        want.extend([0b1100_0000, 0b0011_1111, 0, 0, 0, 0, 0, 0]);
        assert_eq!(encode(&[7i64, 5, 3, 1, 2, 3, 4, 5]), want);
        // One value is only a header; none is a header with a zero first value.
        assert_eq!(encode(&[-1i32]), [0x80, 0x01, 4, 1, 1]);
        assert_eq!(encode::<i64>(&[]), [0x80, 0x01, 4, 0, 0]);
    }

    #[test]
    fn int32_deltas_wrap_at_32_bits() {
        // MIN, MAX, MIN: deltas -1 and +1 wrapped, so 1 bit (INT64 arithmetic would need 33).
        let data = encode(&[i32::MIN, i32::MAX, i32::MIN]);
        // First zigzag(MIN) = 2^32 - 1 (5 varint bytes); min delta -1 (zigzag 1); relative
        // 0 2 on 2 bits.
        let mut want = vec![0x80, 0x01, 4, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 1, 2, 0, 0, 0];
        want.extend([0b1000, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(data, want);
        // The full spread of deltas needs all 32 bits, never more. The widths follow the
        // 5-byte header and the min delta, zigzag(MIN): 5 varint bytes for INT32, 10 for INT64.
        let data = encode(&[0i32, i32::MAX, i32::MIN, 0]);
        assert_eq!(data[10..14], [32, 0, 0, 0]);
        let data = encode(&[0i64, i64::MAX, i64::MIN, 0]);
        assert_eq!(data[15..19], [64, 0, 0, 0]);
    }

    fn check<T: DeltaEncodeValue + DeltaValue + std::fmt::Debug>(
        values: &[T],
        rng: &mut TestRng,
        shape: (usize, usize),
        e: &mut DeltaBinaryPackedEncoder<T>,
    ) {
        // Put in random pieces, some one value at a time.
        let mut i = 0;
        while i < values.len() {
            let k = (1 + rng.below(300) as usize).min(values.len() - i);
            if rng.below(4) == 0 {
                values[i..i + k].iter().for_each(|&v| e.put_value(v));
            } else {
                e.put(&values[i..i + k]);
            }
            i += k;
        }
        assert_eq!(e.len(), values.len());
        let estimate = e.encoded_len_estimate();
        let mut data = vec![0xAA];
        e.finish_into(&mut data);
        assert!(data.len() - 1 <= estimate);
        let mut whole = DeltaBinaryPackedEncoder::with_block_size(shape.0, shape.1);
        whole.put(values);
        let mut again = vec![0xAA];
        whole.finish_into(&mut again);
        assert_eq!(data, again, "pieces and one call write the same bytes");
        let mut d = DeltaBinaryPackedDecoder::<T>::new(&data[1..]).unwrap();
        let mut got = Vec::new();
        assert_eq!(d.decode_all(&mut got).unwrap(), data.len() - 1);
        assert_eq!(got, values);
    }

    #[test]
    fn round_trips_at_block_boundaries() {
        let mut rng = TestRng::new(61);
        for (iter, shape) in [(128, 4), (128, 1), (256, 8), (1024, 32)].into_iter().enumerate() {
            let mut e32 = DeltaBinaryPackedEncoder::<i32>::with_block_size(shape.0, shape.1);
            let mut e64 = DeltaBinaryPackedEncoder::<i64>::with_block_size(shape.0, shape.1);
            for n in [0usize, 1, 2, 31, 32, 33, 64, 127, 128, 129, 130, 255, 256, 257, 1000, 1025] {
                for pattern in 0..6 {
                    let v: Vec<i64> = match pattern {
                        0 => (0..n).map(|_| rng.next_u64() as i64).collect(),
                        1 => (0..n).map(|i| if i % 2 == 0 { i64::MIN } else { i64::MAX }).collect(),
                        2 => vec![-7; n],
                        3 => (0..n as i64).map(|i| i * 1000 + iter as i64).collect(),
                        4 => (0..n).map(|i| [i64::MIN, 0, i64::MAX][i % 3]).collect(),
                        _ => {
                            let mut x = rng.next_u64() as i64;
                            let mut step = || {
                                x = x.wrapping_add(rng.below(100) as i64 - 50);
                                x
                            };
                            (0..n).map(|_| step()).collect()
                        }
                    };
                    check(&v, &mut rng, shape, &mut e64);
                    let v32: Vec<i32> = v.iter().map(|&x| x as i32).collect();
                    check(&v32, &mut rng, shape, &mut e32);
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "do not split")]
    fn bad_block_shape_panics() {
        DeltaBinaryPackedEncoder::<i32>::with_block_size(128, 8);
    }
}
