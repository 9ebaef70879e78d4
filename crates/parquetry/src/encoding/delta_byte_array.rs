//! DELTA_BYTE_ARRAY (= 7), "delta strings": each value is a prefix of the previous value plus
//! a suffix. The prefix lengths are one DELTA_BINARY_PACKED stream, the suffixes follow as
//! DELTA_LENGTH_BYTE_ARRAY. Used for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
//!
//! Values are rebuilt in the destination itself: the sink copies the prefix from the value it
//! received last ([`ByteArraySink::push_prefixed`]), so nothing is allocated per value. Only
//! between calls does the decoder keep a copy of the last value, because the caller may
//! push other values (nulls) in between.
//!
//! Prefix lengths are checked for the whole page up front (each at most the previous value's
//! length), which also gives the exact decoded size, [`value_bytes`](DeltaByteArrayDecoder::value_bytes).
//! That size can be far larger than the page (every value may repeat a long prefix), so a
//! reader should compare it with what the metadata leads it to expect before decoding.
//!
//! The encoder keeps the previous value only between calls; within an Arrow array each value
//! is compared with the one before it where it lies.

use super::delta_binary_packed::{DeltaBinaryPackedDecoder, DeltaBinaryPackedEncoder};
use super::delta_length_byte_array::{DeltaLengthByteArrayDecoder, DeltaLengthByteArrayEncoder};
use super::{ByteArraySink, OffsetSize};
use crate::error::{Error, Result};

/// The scratch vectors of a [`DeltaByteArrayDecoder`] (prefix lengths, suffix lengths, the
/// last value), kept between pages so that decoding a page allocates nothing once they have
/// grown to the page size.
#[derive(Debug, Clone, Default)]
pub struct DeltaByteArrayBuffers {
    prefixes: Vec<u32>,
    lengths: Vec<u32>,
    prev: Vec<u8>,
}

/// A DELTA_BYTE_ARRAY decoder over one page.
#[derive(Debug, Clone)]
pub struct DeltaByteArrayDecoder<'a> {
    prefixes: Vec<u32>,
    suffixes: DeltaLengthByteArrayDecoder<'a>,
    index: usize,
    /// The last value decoded or skipped, kept between calls.
    prev: Vec<u8>,
    value_bytes: u64,
}

/// The error for the first value whose prefix is longer than the value before it.
#[cold]
fn prefix_past_previous(prefixes: &[u32], lengths: &[u32]) -> Error {
    let mut prev_len = 0u64;
    for (i, (&p, &s)) in prefixes.iter().zip(lengths).enumerate() {
        if u64::from(p) > prev_len {
            return Error::corrupt(format!(
                "DELTA_BYTE_ARRAY: value {i} has prefix length {}, the previous value has {prev_len} bytes",
                p as i32
            ));
        }
        prev_len = u64::from(p) + u64::from(s);
    }
    Error::corrupt("DELTA_BYTE_ARRAY: a prefix is longer than the value before it")
}

impl<'a> DeltaByteArrayDecoder<'a> {
    /// Reads the prefix and suffix lengths of the data at byte `pos` of `page`; the page may
    /// hold at most `max_values` values (its value count), which bounds memory use.
    pub fn new(page: &'a [u8], pos: usize, max_values: usize) -> Result<Self> {
        Self::with_buffers(page, pos, max_values, DeltaByteArrayBuffers::default())
    }

    /// Like [`new`](Self::new), reusing the scratch vectors of a previous page's decoder
    /// (from [`into_buffers`](Self::into_buffers)), so a column reader allocates them once
    /// per column rather than once per page.
    pub fn with_buffers(page: &'a [u8], pos: usize, max_values: usize, buffers: DeltaByteArrayBuffers) -> Result<Self> {
        let DeltaByteArrayBuffers { mut prefixes, lengths, mut prev } = buffers;
        prefixes.clear();
        prev.clear();
        let input = page.get(pos..).unwrap_or_default();
        let mut d = DeltaBinaryPackedDecoder::<u32>::new(input)?;
        if d.len() > max_values {
            return Err(Error::corrupt(format!(
                "DELTA_BYTE_ARRAY: header declares {} prefix lengths, the page has at most {max_values} values",
                d.len()
            )));
        }
        let suffix_pos = pos + d.decode_all(&mut prefixes)?;
        let suffixes = DeltaLengthByteArrayDecoder::with_buffer(page, suffix_pos, max_values, lengths)?;
        if suffixes.len() != prefixes.len() {
            return Err(Error::corrupt(format!(
                "DELTA_BYTE_ARRAY: {} prefix lengths but {} suffixes",
                prefixes.len(),
                suffixes.len()
            )));
        }
        // Each prefix is at most the previous value's length (0 for the first value). Checked
        // for every value with no branch, so that the loop vectorizes; the culprit is looked
        // for only on failure. `p - prev_p > prev_s` only where `p > prev_p`, so nothing
        // wraps: plain u32 compares, which SSE2 has (a saturating add it has not, and left
        // the loop scalar).
        let lengths = suffixes.lengths();
        let n = prefixes.len().min(lengths.len());
        let next = prefixes.get(1..n).unwrap_or_default();
        let mut bad = u32::from(prefixes.first().is_some_and(|&p| p != 0));
        for ((&p, &prev_p), &prev_s) in next.iter().zip(&prefixes[..n]).zip(&lengths[..n]) {
            bad |= u32::from(p > prev_p) & u32::from(p.wrapping_sub(prev_p) > prev_s);
        }
        if bad != 0 {
            return Err(prefix_past_previous(&prefixes, lengths));
        }
        let total = prefixes.iter().chain(lengths).map(|&l| u64::from(l)).sum::<u64>();
        Ok(Self { prefixes, suffixes, index: 0, prev, value_bytes: total })
    }

    /// Gives back the scratch vectors for reuse by the next page's decoder.
    pub fn into_buffers(self) -> DeltaByteArrayBuffers {
        DeltaByteArrayBuffers { prefixes: self.prefixes, lengths: self.suffixes.into_buffer(), prev: self.prev }
    }

    /// The same decoder, at the same place, reading `page` instead (see
    /// [`RleDecoder::rebind`](crate::encoding::rle::RleDecoder::rebind)).
    pub fn rebind<'b>(self, page: &'b [u8]) -> DeltaByteArrayDecoder<'b> {
        let DeltaByteArrayDecoder { prefixes, suffixes, index, prev, value_bytes } = self;
        DeltaByteArrayDecoder { prefixes, suffixes: suffixes.rebind(page), index, prev, value_bytes }
    }

    /// The bytes the next `n` values (fewer at the page's end) take once rebuilt.
    pub fn next_bytes(&self, n: usize) -> u64 {
        let end = self.prefixes.len().min(self.index.saturating_add(n));
        let suffixes = self.suffixes.lengths().get(self.index..end).unwrap_or_default();
        self.prefixes[self.index..end].iter().chain(suffixes).map(|&l| u64::from(l)).sum()
    }

    /// The number of values in the page.
    pub fn len(&self) -> usize {
        self.prefixes.len()
    }

    /// True if the page has no values.
    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty()
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.prefixes.len() - self.index
    }

    /// The total bytes of all values in the page once rebuilt.
    pub fn value_bytes(&self) -> u64 {
        self.value_bytes
    }

    /// The position in the page after the encoded data.
    pub fn end(&self) -> usize {
        self.suffixes.end()
    }

    /// Decodes up to `n` values into `sink`; returns how many (fewer only at the page end).
    pub fn decode<S: ByteArraySink>(&mut self, n: usize, sink: &mut S) -> Result<usize> {
        let k = n.min(self.remaining());
        let prefixes = self.prefixes.get(self.index..self.index + k).unwrap_or_default();
        let suffix_lens = self.suffixes.lengths().get(self.index..self.index + k);
        let bytes = prefixes.iter().zip(suffix_lens.unwrap_or_default()).map(|(&p, &s)| p as usize + s as usize).sum();
        sink.reserve(k, bytes);
        let mut prefixes = prefixes.iter();
        // The first value builds on the value kept from the previous call. Its suffix is
        // taken only if there is a first value: a call for no values must not use one up.
        if let Some(&p) = prefixes.next() {
            let Some(suffix) = self.suffixes.next_value() else {
                return Err(Error::corrupt("DELTA_BYTE_ARRAY: fewer suffixes than prefix lengths"));
            };
            if p == 0 {
                sink.push_owned(suffix)?;
            } else {
                self.prev.truncate(p as usize);
                self.prev.extend_from_slice(suffix);
                sink.push_owned(&self.prev)?;
            }
        }
        // The rest build on the sink's last value.
        let rest = prefixes.as_slice();
        let (lens, page, first) = self.suffixes.take_in_page(rest.len());
        sink.extend_prefixed(rest, lens, page, first)?;
        if k > 0 && !sink.copy_last(&mut self.prev) {
            return Err(Error::invalid_argument("DELTA_BYTE_ARRAY: the sink lost the last value"));
        }
        self.index += k;
        Ok(k)
    }

    /// Skips up to `n` values; returns how many. Skipped values are still rebuilt (in one
    /// scratch buffer), since the next value may share their prefix.
    pub fn skip(&mut self, n: usize) -> usize {
        let k = n.min(self.remaining());
        for &p in self.prefixes.get(self.index..self.index + k).unwrap_or_default() {
            self.prev.truncate(p as usize);
            self.prev.extend_from_slice(self.suffixes.next_value().unwrap_or_default());
        }
        self.index += k;
        k
    }
}

/// An incremental DELTA_BYTE_ARRAY encoder for one page at a time: each value's prefix shared
/// with the value before it goes to a [`DeltaBinaryPackedEncoder`] as a length, the rest to a
/// [`DeltaLengthByteArrayEncoder`].
#[derive(Debug, Clone, Default)]
pub struct DeltaByteArrayEncoder {
    prefixes: DeltaBinaryPackedEncoder<i32>,
    suffixes: DeltaLengthByteArrayEncoder,
    /// The last value put: the first value of a call shares its prefix with it.
    prev: Vec<u8>,
}

impl DeltaByteArrayEncoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one value.
    #[inline]
    pub fn put(&mut self, value: &[u8]) {
        let p = common_prefix(&self.prev, value);
        let suffix = &value[p..];
        self.prefixes.put_value(p as i32);
        self.suffixes.put(suffix);
        // Only the suffix is copied: the prefix is already there.
        self.prev.truncate(p);
        self.prev.extend_from_slice(suffix);
    }

    /// Appends the `offsets.len() - 1` values `data[offsets[i]..offsets[i + 1]]` of an Arrow
    /// offsets + data array. Each value is compared with the one before it in `data` itself;
    /// only the call's last value is copied, for the next call.
    ///
    /// The offsets must be valid Arrow offsets (non-decreasing, within `data`); otherwise
    /// this panics or encodes garbage.
    pub fn put_offsets<O: OffsetSize>(&mut self, offsets: &[O], data: &[u8]) {
        let Some(&[before_last, last]) = offsets.last_chunk::<2>() else { return };
        let mut prev: &[u8] = &self.prev;
        for w in offsets.windows(2) {
            let value = &data[w[0].as_usize()..w[1].as_usize()];
            let p = common_prefix(prev, value);
            self.prefixes.put_value(p as i32);
            self.suffixes.put(&value[p..]);
            prev = value;
        }
        self.prev.clear();
        self.prev.extend_from_slice(&data[before_last.as_usize()..last.as_usize()]);
    }

    /// The number of values put since the last finish.
    pub fn len(&self) -> usize {
        self.prefixes.len()
    }

    /// True if no value was put since the last finish.
    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty()
    }

    /// An upper bound of the bytes [`finish_into`](Self::finish_into) would append now.
    pub fn encoded_len_estimate(&self) -> usize {
        self.prefixes.encoded_len_estimate() + self.suffixes.encoded_len_estimate()
    }

    /// Appends the prefix lengths and the suffixes to `out`, and resets the encoder for the
    /// next page (whose first value shares nothing with this page's last), keeping its
    /// buffers.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.reserve(self.encoded_len_estimate());
        self.prefixes.finish_into(out);
        self.suffixes.finish_into(out);
        self.prev.clear();
    }
}

/// The length of the longest common prefix of `a` and `b`, compared 8 bytes at a time.
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let x = x.try_into().map_or(0, u64::from_le_bytes);
        let y = y.try_into().map_or(0, u64::from_le_bytes);
        if x != y {
            // Little endian: the first differing byte holds the lowest differing bit.
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..].iter().zip(&b[i..]).take_while(|(x, y)| x == y).count()
}

/// Encodes `values` as DELTA_BYTE_ARRAY, appending to `out`: a one-call convenience over
/// [`DeltaByteArrayEncoder`].
pub fn encode(values: &[&[u8]], out: &mut Vec<u8>) {
    let mut e = DeltaByteArrayEncoder::new();
    values.iter().for_each(|v| e.put(v));
    e.finish_into(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{OffsetsSink, TestRng, ViewSink};

    fn view_values(s: &ViewSink) -> Vec<Vec<u8>> {
        (0..s.len())
            .map(|i| {
                let mut t = s.clone();
                t.truncate(i + 1);
                let mut out = Vec::new();
                assert!(t.copy_last(&mut out));
                out
            })
            .collect()
    }

    #[test]
    fn spec_example_axis_axle() {
        // Encodings.md: "axis", "axle", "babble", "babyhood" is DeltaEncoding(0, 2, 0, 3),
        // DeltaEncoding(4, 2, 6, 5), "axislebabbleyhood". By hand:
        // prefixes: first 0; deltas 2 -2 3, min -2 (zigzag 3); relative 4 0 5 at width 3:
        // bits 100 000 101 -> 0b0100_0100 0b0000_0001 then 10 padding bytes (32 * 3 / 8 = 12).
        let mut page = vec![0x80, 0x01, 4, 4, 0, 3, 3, 0, 0, 0, 0b0100_0100, 0b0000_0001];
        page.extend([0; 10]);
        // Suffix lengths: first 4 (zigzag 8); deltas -2 4 -1, min -2 (zigzag 3); relative
        // 0 6 1 at width 3: 6 sets bits 4 and 5, 1 sets bit 6 -> 0b0111_0000 0b0000_0000.
        page.extend([0x80, 0x01, 4, 4, 8, 3, 3, 0, 0, 0, 0b0111_0000, 0]);
        page.extend([0; 10]);
        page.extend_from_slice(b"axislebabbleyhood");
        let mut own = Vec::new();
        encode(&[b"axis", b"axle", b"babble", b"babyhood"], &mut own);
        assert_eq!(own, page);

        let mut d = DeltaByteArrayDecoder::new(&page, 0, 4).unwrap();
        assert_eq!(d.value_bytes(), 22);
        assert_eq!(d.end(), page.len());
        let mut s = OffsetsSink::<i32>::new();
        d.decode(10, &mut s).unwrap();
        assert_eq!(s.data(), b"axisaxlebabblebabyhood");
        assert_eq!(s.offsets(), [0, 4, 8, 14, 22]);
    }

    #[test]
    fn batches_skips_and_nulls_between_calls() {
        let values: Vec<&[u8]> = vec![
            b"axis",
            b"axle",
            b"babble",
            b"babyhood",
            b"babyhood and a long tail",
            b"babyhood and a long tale",
            b"b",
            b"",
            b"zz",
        ];
        let mut page = Vec::new();
        encode(&values, &mut page);
        // Offsets sink with an unrelated value (a null) pushed between calls.
        let mut d = DeltaByteArrayDecoder::new(&page, 0, 9).unwrap();
        let mut s = OffsetsSink::<i64>::new();
        assert_eq!(d.decode(2, &mut s).unwrap(), 2);
        s.push_owned(b"").unwrap();
        assert_eq!(d.skip(3), 3);
        assert_eq!(d.decode(100, &mut s).unwrap(), 4);
        let got: Vec<&[u8]> = (0..s.len()).filter_map(|i| s.value(i)).collect();
        let want: Vec<&[u8]> = vec![b"axis", b"axle", b"", b"babyhood and a long tale", b"b", b"", b"zz"];
        assert_eq!(got, want);
        // View sink, one value at a time.
        let mut d = DeltaByteArrayDecoder::new(&page, 0, 9).unwrap();
        let mut v = ViewSink::new(2);
        while d.decode(1, &mut v).unwrap() > 0 {}
        assert_eq!(view_values(&v), values);
    }

    #[test]
    fn scratch_buffers_are_reused_across_pages() {
        let pages: [&[&[u8]]; 3] = [&[b"axis", b"axle", b"babble"], &[b"zebra", b"zebu"], &[b"a long value", b"a lo"]];
        let mut buffers = DeltaByteArrayBuffers::default();
        for values in pages {
            let mut page = Vec::new();
            encode(values, &mut page);
            let mut d = DeltaByteArrayDecoder::with_buffers(&page, 0, values.len(), buffers).unwrap();
            let mut s = OffsetsSink::<i32>::new();
            d.decode(10, &mut s).unwrap();
            let got: Vec<&[u8]> = (0..s.len()).filter_map(|i| s.value(i)).collect();
            assert_eq!(got, values);
            buffers = d.into_buffers();
            assert!(buffers.prefixes.capacity() >= values.len());
        }
    }

    #[test]
    fn bad_prefixes() {
        // First value with prefix 1: prefixes [1] (zigzag 2), suffixes [1] "a".
        let page = [0x80, 0x01, 4, 1, 2, 0x80, 0x01, 4, 1, 2, b'a'];
        let e = DeltaByteArrayDecoder::new(&page, 0, 1).unwrap_err().to_string();
        assert!(e.contains("value 0 has prefix length 1, the previous value has 0 bytes"), "{e}");
        // Counts differ: prefixes [0, 0] vs suffixes [1].
        let page = [0x80, 0x01, 4, 2, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 4, 1, 2, b'a'];
        assert!(DeltaByteArrayDecoder::new(&page, 0, 2).is_err());
        assert!(DeltaByteArrayDecoder::new(&page, 0, 1).is_err());
        // A later value, first, inside or last in the vectorized check's blocks; one past the
        // previous length, and the largest u32 (which must not wrap). The previous length
        // itself is fine.
        let page_of = |prefixes: &[i32]| {
            let mut page = Vec::new();
            let mut e = DeltaBinaryPackedEncoder::<i32>::new();
            e.put(prefixes);
            e.finish_into(&mut page);
            crate::encoding::delta_length_byte_array::encode(&vec![&b"ab"[..]; prefixes.len()], &mut page);
            page
        };
        for (bad, n, p) in [(1, 2, 3), (3, 5, 3), (40, 100, 3), (99, 100, 3), (50, 100, -1)] {
            let mut prefixes = vec![0i32; n];
            prefixes[bad] = 2;
            DeltaByteArrayDecoder::new(&page_of(&prefixes), 0, n).unwrap();
            prefixes[bad] = p;
            let e = DeltaByteArrayDecoder::new(&page_of(&prefixes), 0, n).unwrap_err().to_string();
            let want = format!("value {bad} has prefix length {p}, the previous value has 2 bytes");
            assert!(e.contains(&want), "{e}");
        }
    }

    #[test]
    fn common_prefix_matches_naive() {
        let mut rng = TestRng::new(33);
        for _ in 0..2000 {
            let len = rng.below(40) as usize;
            let a = rng.bytes(len);
            let mut b = a.clone();
            b.truncate(rng.below(a.len() as u64 + 1) as usize);
            let extra = rng.below(20) as usize;
            b.extend(rng.bytes(extra).iter().map(|x| x % 2));
            let naive = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            assert_eq!(common_prefix(&a, &b), naive);
            assert_eq!(common_prefix(&b, &a), naive);
        }
    }

    #[test]
    fn encoder_put_and_put_offsets_agree_and_pages_start_fresh() {
        let mut rng = TestRng::new(34);
        let mut by_offsets = DeltaByteArrayEncoder::new();
        for n in [0usize, 1, 2, 9, 127, 128, 129, 700] {
            // Sorted-ish keys with long shared prefixes, some empty, some long.
            let mut owned: Vec<Vec<u8>> = Vec::new();
            for i in 0..n {
                let mut v = owned.last().cloned().unwrap_or_default();
                v.truncate(rng.below(v.len() as u64 + 1) as usize);
                let extra = if i % 50 == 7 { 300 } else { rng.below(12) as usize };
                v.extend((0..extra).map(|_| b'a' + rng.below(3) as u8));
                owned.push(v);
            }
            let mut data = b"xyz".to_vec();
            let mut offsets = vec![3i32];
            for v in &owned {
                data.extend_from_slice(v);
                offsets.push(data.len() as i32);
            }
            let mut by_put = DeltaByteArrayEncoder::new();
            owned.iter().for_each(|v| by_put.put(v));
            assert_eq!(by_put.len(), n);
            let mut want = Vec::new();
            by_put.finish_into(&mut want);
            // Two calls (the second's first value builds on the first call's last).
            let cut = n / 2;
            by_offsets.put_offsets(&offsets[..=cut], &data);
            let offsets64: Vec<i64> = offsets.iter().map(|&o| i64::from(o)).collect();
            by_offsets.put_offsets(&offsets64[cut..], &data);
            let estimate = by_offsets.encoded_len_estimate();
            let mut got = Vec::new();
            by_offsets.finish_into(&mut got);
            assert!(got.len() <= estimate);
            assert_eq!(got, want, "n {n}");
            let mut d = DeltaByteArrayDecoder::new(&got, 0, n).unwrap();
            assert_eq!(d.end(), got.len());
            let mut s = OffsetsSink::<i32>::new();
            d.decode(n, &mut s).unwrap();
            assert!((0..n).all(|i| s.value(i) == Some(&owned[i][..])));
        }
        // After a finish the next page's first value has prefix 0, whatever came before.
        let mut e = DeltaByteArrayEncoder::new();
        e.put(b"same");
        e.finish_into(&mut Vec::new());
        e.put(b"same");
        let mut page = Vec::new();
        e.finish_into(&mut page);
        let mut fresh = Vec::new();
        encode(&[b"same"], &mut fresh);
        assert_eq!(page, fresh);
    }

    #[test]
    fn random_round_trip() {
        let mut rng = TestRng::new(31);
        for _ in 0..100 {
            let n = rng.below(300) as usize;
            let mut owned: Vec<Vec<u8>> = Vec::new();
            for _ in 0..n {
                let mut v = owned.last().cloned().unwrap_or_default();
                v.truncate(rng.below(v.len() as u64 + 1) as usize);
                let extra = rng.below(20) as usize;
                v.extend((0..extra).map(|_| b'a' + rng.below(3) as u8));
                owned.push(v);
            }
            let values: Vec<&[u8]> = owned.iter().map(|v| v.as_slice()).collect();
            let mut page = Vec::new();
            encode(&values, &mut page);
            let mut d = DeltaByteArrayDecoder::new(&page, 0, n).unwrap();
            let mut s = OffsetsSink::<i32>::new();
            let mut v = ViewSink::new(0);
            let mut want = Vec::new();
            while d.remaining() > 0 {
                let k = 1 + rng.below(40) as usize;
                let i = n - d.remaining();
                if rng.below(4) == 0 {
                    d.skip(k);
                } else {
                    let mut d2 = d.clone();
                    let got = d.decode(k, &mut s).unwrap();
                    d2.decode(k, &mut v).unwrap();
                    want.extend_from_slice(&values[i..i + got]);
                }
            }
            let got: Vec<&[u8]> = (0..s.len()).filter_map(|i| s.value(i)).collect();
            assert_eq!(got, want);
            assert_eq!(view_values(&v), want);
        }
    }

    #[test]
    fn fuzz_never_panics() {
        let mut rng = TestRng::new(32);
        for iter in 0..3000 {
            let page = if iter % 2 == 0 {
                let mut d = vec![0x80, 0x01, 4, rng.below(6) as u8, 0];
                let len = rng.below(30) as usize;
                d.extend(rng.bytes(len));
                d.extend([0x80, 0x01, 4, rng.below(6) as u8, rng.below(9) as u8]);
                let len = rng.below(30) as usize;
                d.extend(rng.bytes(len));
                d
            } else {
                let owned: Vec<Vec<u8>> = (0..rng.below(40)).map(|i| vec![b'q'; i as usize % 7]).collect();
                let values: Vec<&[u8]> = owned.iter().map(|v| v.as_slice()).collect();
                let mut d = Vec::new();
                encode(&values, &mut d);
                d.truncate(rng.below(d.len() as u64 + 1) as usize);
                d
            };
            if let Ok(mut d) = DeltaByteArrayDecoder::new(&page, 0, 50) {
                d.skip(rng.below(3) as usize);
                let _ = d.clone().decode(1000, &mut OffsetsSink::<i32>::new());
                let _ = d.decode(1000, &mut ViewSink::new(0));
            }
        }
    }
}
