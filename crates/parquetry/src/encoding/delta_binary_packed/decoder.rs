//! The DELTA_BINARY_PACKED decoder.

use super::zigzag;
use crate::encoding::bit_pack::{read_uleb128, unpack32, unpack32_u64};
use crate::encoding::prefix_sum::prefix_sum32;
use crate::error::{Error, Result};

/// A type DELTA_BINARY_PACKED decodes to. The arithmetic wraps in the type's width, as the
/// spec asks.
pub trait DeltaValue: Copy + Default {
    /// The widest miniblock bit width allowed for the type.
    const MAX_WIDTH: usize;
    /// The unsigned type deltas are unpacked as.
    type Packed: Copy + Default;
    /// Unpacks 32 deltas of `width` bits (see [`unpack32`]).
    fn unpack32(input: &[u8], width: usize, out: &mut [Self::Packed; 32]);
    /// Unpacks 32 deltas of `MAX_WIDTH + 1` bits, keeping their low `MAX_WIDTH` bits: a
    /// writer computing deltas in wider arithmetic may need the extra bit (parquet-format
    /// PR #231), and since values wrap in the type's width the bit adds nothing.
    fn unpack32_wide(input: &[u8], out: &mut [Self::Packed; 32]);
    /// Truncates a 64-bit value (the header's first value, a block's min delta).
    fn from_u64(v: u64) -> Self;
    /// `self + min_delta + delta`, wrapping.
    fn step(self, min_delta: Self, delta: Self::Packed) -> Self;
    /// Appends the 32 values `deltas` rebuild after `self` to `dst` and returns the last: the
    /// hot loop of decoding, which 32-bit types override with [`prefix_sum32`].
    #[inline]
    fn extend32(self, min_delta: Self, deltas: &[Self::Packed; 32], dst: &mut Vec<Self>) -> Self {
        let mut last = self;
        dst.extend(deltas.iter().map(|&d| {
            last = last.step(min_delta, d);
            last
        }));
        last
    }
}

/// `i32` decodes INT32 data; `u32` the same data reinterpreted as unsigned (byte-array
/// lengths: a negative length shows as a value over `i32::MAX`). The bits are the same, so
/// both rebuild values with the one 32-bit [`prefix_sum32`].
macro_rules! delta_value_32 {
    ($($t:ty),*) => {$(
        #[allow(clippy::unnecessary_cast)] // `as u32` is a no-op for u32 only
        impl DeltaValue for $t {
            // Miniblocks may still be 33 bits wide (see `unpack32_wide`): a writer that takes
            // INT32 deltas in 64 bits (duckdb 2.0's V2 files) needs 33 bits for a wide-range
            // column. Writers should not, readers should cope (PARQUET-2435); duckdb reads
            // such files, pyarrow and arrow-rs refuse them.
            const MAX_WIDTH: usize = 32;
            type Packed = u32;
            #[inline]
            fn unpack32(input: &[u8], width: usize, out: &mut [u32; 32]) {
                unpack32(input, width, out)
            }
            fn unpack32_wide(input: &[u8], out: &mut [u32; 32]) {
                // The 33rd bit is worth 2^32, which the 32-bit wrapping sum drops anyway.
                let mut wide = [0u64; 32];
                unpack32_u64(input, 33, &mut wide);
                for (o, w) in out.iter_mut().zip(wide) {
                    *o = w as u32;
                }
            }
            #[inline]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            #[inline]
            fn step(self, min_delta: Self, delta: u32) -> Self {
                self.wrapping_add(min_delta).wrapping_add(delta as $t)
            }
            #[inline]
            fn extend32(self, min_delta: Self, deltas: &[u32; 32], dst: &mut Vec<Self>) -> Self {
                let mut out = [0u32; 32];
                let last = prefix_sum32(self as u32, min_delta as u32, deltas, &mut out);
                dst.extend(out.iter().map(|&v| v as $t));
                last as $t
            }
        }
    )*};
}

delta_value_32!(i32, u32);

impl DeltaValue for i64 {
    const MAX_WIDTH: usize = 64;
    type Packed = u64;
    #[inline]
    fn unpack32(input: &[u8], width: usize, out: &mut [u64; 32]) {
        unpack32_u64(input, width, out)
    }
    fn unpack32_wide(input: &[u8], out: &mut [u64; 32]) {
        for (i, o) in out.iter_mut().enumerate() {
            let bit = i * 65;
            let mut word = [0u8; 16];
            let bytes = input.get(bit / 8..).unwrap_or_default();
            let n = bytes.len().min(16);
            word[..n].copy_from_slice(&bytes[..n]);
            *o = (u128::from_le_bytes(word) >> (bit % 8)) as u64;
        }
    }
    #[inline]
    fn from_u64(v: u64) -> Self {
        v as i64
    }
    #[inline]
    fn step(self, min_delta: Self, delta: u64) -> Self {
        self.wrapping_add(min_delta).wrapping_add(delta as i64)
    }
}

/// A streaming DELTA_BINARY_PACKED decoder.
#[derive(Clone)]
pub struct DeltaBinaryPackedDecoder<'a, T: DeltaValue> {
    data: &'a [u8],
    /// Next unread byte.
    pos: usize,
    miniblocks_per_block: usize,
    values_per_miniblock: usize,
    total: usize,
    /// Values not yet handed out.
    remaining: usize,
    /// The last value handed out (or the first value, before it is handed out).
    last: T,
    first_pending: bool,
    min_delta: T,
    /// Where the current block's bit widths are, and the next miniblock's index.
    widths_pos: usize,
    miniblock: usize,
    /// Deltas of the current miniblock not yet unpacked, and where the next 32 are.
    miniblock_left: usize,
    miniblock_pos: usize,
    width: usize,
    buf: [T::Packed; 32],
    buf_pos: usize,
}

impl<'a, T: DeltaValue> DeltaBinaryPackedDecoder<'a, T> {
    /// Reads the header at the start of `data`.
    pub fn new(data: &'a [u8]) -> Result<Self> {
        let mut pos = 0;
        let what = "DELTA_BINARY_PACKED header";
        let block_size = read_uleb128(data, &mut pos, what)?;
        let miniblocks = read_uleb128(data, &mut pos, what)?;
        let total = read_uleb128(data, &mut pos, what)?;
        let first = zigzag(read_uleb128(data, &mut pos, what)?);
        if block_size == 0 || block_size % 128 != 0 || block_size > u32::MAX as u64 {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED: block size {block_size} is not a positive multiple of 128"
            )));
        }
        if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0 {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED: {miniblocks} miniblocks do not split a block of \
                 {block_size} values into multiples of 32"
            )));
        }
        let total = usize::try_from(total)
            .map_err(|_| Error::corrupt(format!("DELTA_BINARY_PACKED: value count {total} is too large")))?;
        Ok(Self {
            data,
            pos,
            miniblocks_per_block: miniblocks as usize,
            values_per_miniblock: (block_size / miniblocks) as usize,
            total,
            remaining: total,
            last: T::from_u64(first),
            first_pending: total > 0,
            min_delta: T::default(),
            widths_pos: 0,
            miniblock: miniblocks as usize, // no block read yet
            miniblock_left: 0,
            miniblock_pos: 0,
            width: 0,
            buf: [T::Packed::default(); 32],
            buf_pos: 32,
        })
    }

    /// The same decoder, at the same place, reading `data` instead (see
    /// [`RleDecoder::rebind`](crate::encoding::rle::RleDecoder::rebind)).
    pub fn rebind<'b>(self, data: &'b [u8]) -> DeltaBinaryPackedDecoder<'b, T> {
        DeltaBinaryPackedDecoder {
            data,
            pos: self.pos,
            miniblocks_per_block: self.miniblocks_per_block,
            values_per_miniblock: self.values_per_miniblock,
            total: self.total,
            remaining: self.remaining,
            last: self.last,
            first_pending: self.first_pending,
            min_delta: self.min_delta,
            widths_pos: self.widths_pos,
            miniblock: self.miniblock,
            miniblock_left: self.miniblock_left,
            miniblock_pos: self.miniblock_pos,
            width: self.width,
            buf: self.buf,
            buf_pos: self.buf_pos,
        }
    }

    /// The value count the header declares.
    pub fn len(&self) -> usize {
        self.total
    }

    /// True if the header declares no values.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Bytes of `data` read so far. Once every value has been read this is where the
    /// encoded data ends.
    pub fn bytes_read(&self) -> usize {
        self.pos
    }

    /// Appends up to `n` values to `dst`; returns how many (fewer only when all values are read).
    pub fn decode(&mut self, n: usize, dst: &mut Vec<T>) -> Result<usize> {
        let n = n.min(self.remaining);
        // Bound the reservation by what the input can hold (a 32-delta group of width 0
        // takes no bytes, so allow for those through normal growth).
        let bytes_left = self.data.len() - self.pos;
        dst.reserve(n.min(bytes_left.saturating_mul(8).saturating_add(33 + self.buffered())));
        self.run::<true>(n, dst)
    }

    /// Decodes every remaining value into `dst` and returns the end of the encoded data.
    pub fn decode_all(&mut self, dst: &mut Vec<T>) -> Result<usize> {
        self.decode(self.remaining, dst)?;
        Ok(self.pos)
    }

    /// Discards up to `n` values (their deltas are still summed); returns how many.
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        self.run::<false>(n.min(self.remaining), &mut Vec::new())
    }

    /// Skips every remaining value and returns the end of the encoded data.
    pub fn skip_all(&mut self) -> Result<usize> {
        self.skip(self.remaining)?;
        Ok(self.pos)
    }

    fn buffered(&self) -> usize {
        32 - self.buf_pos
    }

    /// Produces `n` (≤ remaining) values, appending them to `dst` if `KEEP`.
    #[inline]
    fn run<const KEEP: bool>(&mut self, n: usize, dst: &mut Vec<T>) -> Result<usize> {
        let mut done = 0;
        if n > 0 && self.first_pending {
            self.first_pending = false;
            if KEEP {
                dst.push(self.last);
            }
            self.remaining -= 1;
            done += 1;
        }
        while done < n {
            if self.buf_pos == 32 {
                self.refill()?;
                if KEEP && n - done >= 32 {
                    self.last = T::extend32(self.last, self.min_delta, &self.buf, dst);
                    self.buf_pos = 32;
                    self.remaining -= 32;
                    done += 32;
                    continue;
                }
            }
            let k = (32 - self.buf_pos).min(n - done);
            let min_delta = self.min_delta;
            let mut last = self.last;
            let deltas = self.buf.get(self.buf_pos..self.buf_pos + k).unwrap_or_default();
            if KEEP {
                dst.extend(deltas.iter().map(|&d| {
                    last = last.step(min_delta, d);
                    last
                }));
            } else {
                for &d in deltas {
                    last = last.step(min_delta, d);
                }
            }
            self.last = last;
            self.buf_pos += k;
            self.remaining -= k;
            done += k;
        }
        Ok(done)
    }

    /// Unpacks the next 32 deltas, reading the next miniblock or block header as needed.
    fn refill(&mut self) -> Result<()> {
        if self.miniblock_left == 0 {
            self.next_miniblock()?;
        }
        let input = self.data.get(self.miniblock_pos..).unwrap_or_default();
        if self.width > T::MAX_WIDTH {
            T::unpack32_wide(input, &mut self.buf);
        } else {
            T::unpack32(input, self.width, &mut self.buf);
        }
        self.miniblock_pos += 4 * self.width;
        self.miniblock_left -= 32;
        self.buf_pos = 0;
        Ok(())
    }

    fn next_miniblock(&mut self) -> Result<()> {
        if self.miniblock == self.miniblocks_per_block {
            let what = "DELTA_BINARY_PACKED block header";
            self.min_delta = T::from_u64(zigzag(read_uleb128(self.data, &mut self.pos, what)?));
            let left = self.data.len() - self.pos;
            if self.miniblocks_per_block > left {
                return Err(Error::corrupt(format!(
                    "DELTA_BINARY_PACKED: block needs {} bit widths, {left} bytes left",
                    self.miniblocks_per_block
                )));
            }
            self.widths_pos = self.pos;
            self.pos += self.miniblocks_per_block;
            self.miniblock = 0;
        }
        let width = self.data.get(self.widths_pos + self.miniblock).copied().unwrap_or(0) as usize;
        // One bit over the type's width is legal (see `unpack32_wide`); more is not.
        if width > T::MAX_WIDTH + 1 {
            return Err(Error::corrupt(format!(
                "DELTA_BINARY_PACKED: miniblock bit width {width} is over {}",
                T::MAX_WIDTH + 1
            )));
        }
        // The whole miniblock is present even when only part of it holds values.
        let bytes = self.values_per_miniblock / 8 * width;
        let left = self.data.len() - self.pos;
        if bytes > left {
            return Err(Error::corrupt(format!("DELTA_BINARY_PACKED: miniblock needs {bytes} bytes, {left} left")));
        }
        self.width = width;
        self.miniblock_pos = self.pos;
        self.pos += bytes;
        self.miniblock += 1;
        self.miniblock_left = self.values_per_miniblock;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::delta_binary_packed::{DeltaBinaryPackedEncoder, DeltaEncodeValue};
    use crate::encoding::TestRng;

    fn encode<T: DeltaEncodeValue>(values: &[T], block_size: usize, miniblocks: usize) -> Vec<u8> {
        let mut e = DeltaBinaryPackedEncoder::with_block_size(block_size, miniblocks);
        e.put(values);
        let mut out = Vec::new();
        e.finish_into(&mut out);
        out
    }

    fn decode_i64(data: &[u8]) -> Result<(Vec<i64>, usize)> {
        let mut out = Vec::new();
        let end = DeltaBinaryPackedDecoder::<i64>::new(data)?.decode_all(&mut out)?;
        Ok((out, end))
    }

    #[test]
    fn spec_examples_with_128_value_blocks() {
        // Encodings.md example 1 (1, 2, 3, 4, 5) with a valid block size: 128 values in 4
        // miniblocks, 5 values, first value zigzag(1) = 2; block: min delta zigzag(1) = 2,
        // widths 0 0 0 0, no miniblock bytes.
        let data = [0x80, 0x01, 4, 5, 2, 2, 0, 0, 0, 0];
        assert_eq!(decode_i64(&data).unwrap(), (vec![1, 2, 3, 4, 5], 10));
        // Example 2 (7, 5, 3, 1, 2, 3, 4, 5): deltas -2 -2 -2 1 1 1 1, min -2 (zigzag 3),
        // relative 0 0 0 3 3 3 3 on 2 bits in a 32-value miniblock (8 bytes); the unused
        // miniblocks' widths are arbitrary (0xFF here), and have no bytes.
        let mut data = vec![0x80, 0x01, 4, 8, 14, 3, 2, 0xFF, 0xFF, 0xFF];
        data.extend([0b1100_0000, 0b0011_1111, 0, 0, 0, 0, 0, 0]);
        data.push(0xAB); // whatever follows the encoded data
        let mut out = Vec::new();
        let mut d = DeltaBinaryPackedDecoder::<i32>::new(&data).unwrap();
        assert_eq!(d.len(), 8);
        assert_eq!(d.decode_all(&mut out).unwrap(), data.len() - 1);
        assert_eq!(out, [7, 5, 3, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn single_value_and_empty() {
        // Only a header: block 128, 4 miniblocks, 1 value, first value -1 (zigzag 1).
        assert_eq!(decode_i64(&[0x80, 0x01, 4, 1, 1]).unwrap(), (vec![-1], 5));
        assert_eq!(decode_i64(&[0x80, 0x01, 4, 0, 0]).unwrap(), (vec![], 5));
    }

    #[test]
    fn header_and_block_errors() {
        let bad = [
            &[0x81, 0x01, 4, 5, 2][..], // block size 129
            &[0x80, 0x01, 3, 5, 2],     // 128 / 3
            &[0x80, 0x01, 8, 5, 2],     // 16 values per miniblock
            &[0x80, 0x01, 0, 5, 2],     // zero miniblocks
            &[0x80, 0x01, 4, 5],        // truncated header
        ];
        for b in bad {
            assert!(DeltaBinaryPackedDecoder::<i64>::new(b).is_err(), "{b:?}");
        }
        // Widths missing, miniblock bytes missing, width 34 for INT32.
        assert!(decode_i64(&[0x80, 0x01, 4, 5, 2, 2, 0]).is_err());
        let e = decode_i64(&[0x80, 0x01, 4, 5, 2, 2, 3, 0, 0, 0, 1, 2]).unwrap_err();
        assert!(e.to_string().contains("miniblock needs 12 bytes, 2 left"), "{e}");
        let mut data = vec![0x80, 0x01, 4, 5, 2, 2, 34, 0, 0, 0];
        data.resize(data.len() + 4 * 34, 0);
        let mut d = DeltaBinaryPackedDecoder::<i32>::new(&data).unwrap();
        let e = d.decode_all(&mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("miniblock bit width 34 is over 33"), "{e}");
        let mut out = Vec::new();
        // A huge count with a few bytes errors without a huge allocation.
        let mut data = vec![0x80, 0x01, 1];
        crate::encoding::bit_pack::write_uleb128(1 << 31, &mut data);
        data.extend([0, 0, 0]);
        let mut d = DeltaBinaryPackedDecoder::<i64>::new(&data).unwrap();
        assert!(d.decode_all(&mut out).is_err());
        assert!(out.capacity() < 1 << 20);
    }

    #[test]
    fn int32_deltas_taken_in_64_bits_need_33_bits() {
        // duckdb 2.0 (PARQUET_VERSION V2) takes INT32 deltas in 64 bits: a column spanning the
        // int32 range gets 33-bit miniblocks and min deltas outside i32. The INT64 encoder
        // writes such a stream from the same values; the INT32 decoder must rebuild them.
        let mut rng = TestRng::new(5);
        let mut values: Vec<i32> = (0..1000).map(|_| rng.next_u64() as i32).collect();
        values[..4].copy_from_slice(&[i32::MIN, i32::MAX, i32::MIN, i32::MAX]);
        let data = encode(&values.iter().map(|&v| i64::from(v)).collect::<Vec<_>>(), 128, 4);
        let mut pos = 0;
        for _ in 0..5 {
            read_uleb128(&data, &mut pos, "header, min delta").unwrap();
        }
        assert_eq!(data[pos..pos + 4], [33, 33, 33, 33]);
        let mut got = Vec::new();
        let mut d = DeltaBinaryPackedDecoder::<i32>::new(&data).unwrap();
        assert_eq!(d.decode_all(&mut got).unwrap(), data.len());
        assert_eq!(got, values);
        // In uneven steps with skips, as batches read it.
        let mut d = DeltaBinaryPackedDecoder::<i32>::new(&data).unwrap();
        let mut got = Vec::new();
        while d.remaining() > 0 {
            if got.len() % 3 == 0 {
                let s = d.skip(5).unwrap();
                got.extend_from_slice(&values[got.len()..got.len() + s]);
            } else {
                d.decode(7, &mut got).unwrap();
            }
        }
        assert_eq!(got, values);
    }

    #[test]
    fn round_trips_wrapping_extremes() {
        let mut rng = TestRng::new(11);
        for iter in 0..200 {
            let n = rng.below(1500) as usize;
            let scale = [1u64, 100, 1 << 20, u64::MAX][iter % 4];
            let values: Vec<i64> = match iter % 5 {
                0 => (0..n).map(|_| rng.next_u64() as i64).collect(),
                1 => (0..n).map(|i| if i % 2 == 0 { i64::MIN } else { i64::MAX }).collect(),
                _ => {
                    let mut v = rng.next_u64() as i64;
                    (0..n)
                        .map(|_| {
                            v = v.wrapping_add((rng.below(scale.max(2)) as i64) - 50);
                            v
                        })
                        .collect()
                }
            };
            let (bs, mbs) = [(128, 4), (128, 1), (256, 8), (1024, 32)][iter % 4];
            let mut data = encode(&values, bs, mbs);
            let end = data.len();
            data.extend([1, 2, 3]);
            assert_eq!(decode_i64(&data).unwrap(), (values.clone(), end), "iter {iter}");
            // INT32: the same data truncated to 32 bits decodes with wrapping.
            let v32: Vec<i32> = values.iter().map(|&v| v as i32).collect();
            let data32 = encode(&v32, bs, mbs);
            let mut d = DeltaBinaryPackedDecoder::<i32>::new(&data32).unwrap();
            let mut got = Vec::new();
            let mut skipped = 0;
            while d.remaining() > 0 {
                let k = 1 + rng.below(100) as usize;
                if rng.below(3) == 0 {
                    let s = d.skip(k).unwrap();
                    got.extend_from_slice(&v32[got.len()..got.len() + s]);
                    skipped += s;
                } else {
                    d.decode(k, &mut got).unwrap();
                }
            }
            let _ = skipped;
            assert_eq!(d.bytes_read(), data32.len());
            assert_eq!(got, v32);
            let mut d = DeltaBinaryPackedDecoder::<i32>::new(&data32).unwrap();
            assert_eq!(d.skip_all().unwrap(), data32.len());
        }
    }

    #[test]
    fn fuzz_never_panics() {
        let mut rng = TestRng::new(12);
        for iter in 0..3000 {
            let data = if iter % 2 == 0 {
                let mut d = vec![0x80, 0x01, 1 << rng.below(3), rng.below(200) as u8, 7];
                let len = rng.below(60) as usize;
                d.extend(rng.bytes(len));
                d
            } else {
                let values: Vec<i64> = (0..rng.below(400)).map(|_| rng.below(1000) as i64).collect();
                let mut d = encode(&values, 128, 4);
                d.truncate(rng.below(d.len() as u64 + 1) as usize);
                d
            };
            if let Ok(mut d) = DeltaBinaryPackedDecoder::<i32>::new(&data) {
                let _ = d.skip(rng.below(50) as usize);
                let _ = d.decode_all(&mut Vec::new());
            }
            if let Ok(mut d) = DeltaBinaryPackedDecoder::<i64>::new(&data) {
                let _ = d.decode_all(&mut Vec::new());
            }
        }
    }

    /// Packs `values` of `width` bits LSB first, padded to a whole miniblock of 32.
    fn pack_wide(values: &[u128], width: usize) -> Vec<u8> {
        let mut out = vec![0u8; 4 * width];
        for (i, &v) in values.iter().enumerate() {
            for b in 0..width {
                if v >> b & 1 == 1 {
                    let bit = i * width + b;
                    out[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        out
    }

    /// A page of `first` then values rebuilt from `deltas` over `min_delta`, in one miniblock
    /// of `width` bits (block of 128 values in 4 miniblocks).
    fn wide_page(first: i64, min_delta: i64, deltas: &[u128], width: u8) -> Vec<u8> {
        let mut data = vec![0x80, 0x01, 4];
        crate::encoding::bit_pack::write_uleb128(deltas.len() as u64 + 1, &mut data);
        crate::encoding::bit_pack::write_uleb128(((first << 1) ^ (first >> 63)) as u64, &mut data);
        crate::encoding::bit_pack::write_uleb128(((min_delta << 1) ^ (min_delta >> 63)) as u64, &mut data);
        data.extend([width, 0, 0, 0]);
        data.extend(pack_wide(deltas, width as usize));
        data
    }

    #[test]
    fn miniblocks_one_bit_wider_than_the_type_decode_with_wrapping() {
        // INT32 [MIN, MAX, MIN, 7] as a writer in 64-bit arithmetic encodes them: deltas
        // +(2^32 - 1), -(2^32 - 1), 2^31 + 7; min delta -(2^32 - 1); so the deltas over the
        // minimum reach 2^33 - 2, which takes 33 bits.
        let values = [i32::MIN, i32::MAX, i32::MIN, 7];
        let wide: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
        let deltas: Vec<i64> = wide.windows(2).map(|w| w[1] - w[0]).collect();
        let min = *deltas.iter().min().unwrap();
        let packed: Vec<u128> = deltas.iter().map(|&d| (d - min) as u128).collect();
        assert!(packed.iter().any(|&d| d >= 1 << 32), "the case needs 33 bits");
        let page = wide_page(wide[0], min, &packed, 33);
        let mut got = Vec::new();
        DeltaBinaryPackedDecoder::<i32>::new(&page).unwrap().decode_all(&mut got).unwrap();
        assert_eq!(got, values);

        // INT64 [MIN, MAX, MIN, 7] with 65-bit deltas, computed in 128-bit arithmetic.
        let values = [i64::MIN, i64::MAX, i64::MIN, 7];
        let wide: Vec<i128> = values.iter().map(|&v| i128::from(v)).collect();
        let deltas: Vec<i128> = wide.windows(2).map(|w| w[1] - w[0]).collect();
        let min = *deltas.iter().min().unwrap();
        let packed: Vec<u128> = deltas.iter().map(|&d| (d - min) as u128).collect();
        assert!(packed.iter().any(|&d| d >= 1 << 64), "the case needs 65 bits");
        // The min delta is stored truncated to 64 bits (wrapping, as the spec's arithmetic).
        let page = wide_page(values[0], min as i64, &packed, 65);
        let mut got = Vec::new();
        DeltaBinaryPackedDecoder::<i64>::new(&page).unwrap().decode_all(&mut got).unwrap();
        assert_eq!(got, values);
    }
}
