//! DELTA_LENGTH_BYTE_ARRAY (= 6): all value lengths as one DELTA_BINARY_PACKED stream, then
//! all value bytes back to back.
//!
//! The decoder reads every length up front in bulk and checks them once (none negative, their
//! sum within the page), so decoding a batch is one bulk call on the sink: for offsets, one
//! copy of the batch's bytes plus a prefix sum; for views, views into the page and no copy.
//! Skipping `n` values is a sum of `n` lengths.
//!
//! The encoder takes Arrow offsets + data directly: the lengths are the offsets' differences
//! and the value bytes are one copy.

use super::delta_binary_packed::{DeltaBinaryPackedDecoder, DeltaBinaryPackedEncoder};
use super::{ByteArraySink, OffsetSize};
use crate::error::{Error, Result};

/// A DELTA_LENGTH_BYTE_ARRAY decoder over one page.
#[derive(Debug, Clone)]
pub struct DeltaLengthByteArrayDecoder<'a> {
    page: &'a [u8],
    lengths: Vec<u32>,
    /// The next value's index and the position of its bytes in `page`.
    index: usize,
    data_pos: usize,
    /// The position after the last value's bytes.
    end: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<'a> {
    /// Reads the lengths of the data starting at byte `pos` of `page` (the page's value
    /// buffer: positions handed to sinks are relative to it). The header may declare at most
    /// `max_values` values (the page's value count), which bounds memory use.
    pub fn new(page: &'a [u8], pos: usize, max_values: usize) -> Result<Self> {
        Self::with_buffer(page, pos, max_values, Vec::new())
    }

    /// Like [`new`](Self::new), reusing `lengths` (from [`into_buffer`](Self::into_buffer))
    /// to avoid an allocation per page.
    pub fn with_buffer(page: &'a [u8], pos: usize, max_values: usize, mut lengths: Vec<u32>) -> Result<Self> {
        let input = page.get(pos..).unwrap_or_default();
        let mut d = DeltaBinaryPackedDecoder::<u32>::new(input)?;
        if d.len() > max_values {
            return Err(Error::corrupt(format!(
                "DELTA_LENGTH_BYTE_ARRAY: header declares {} values, the page has at most {max_values}",
                d.len()
            )));
        }
        lengths.clear();
        let data_pos = pos + d.decode_all(&mut lengths)?;
        // One pass: the sum, and the OR of all lengths (a negative one sets the top bit).
        let (sum, or) = lengths.iter().fold((0u64, 0u32), |(s, o), &l| (s + u64::from(l), o | l));
        if or > i32::MAX as u32 {
            let (i, l) =
                lengths.iter().enumerate().find(|(_, &l)| l > i32::MAX as u32).map_or((0, 0), |(i, &l)| (i, l as i32));
            return Err(Error::corrupt(format!("DELTA_LENGTH_BYTE_ARRAY: value {i} has negative length {l}")));
        }
        let left = page.len() - data_pos;
        if sum > left as u64 {
            return Err(Error::corrupt(format!(
                "DELTA_LENGTH_BYTE_ARRAY: {} values need {sum} bytes, {left} left",
                lengths.len()
            )));
        }
        Ok(Self { page, lengths, index: 0, data_pos, end: data_pos + sum as usize })
    }

    /// The same decoder, at the same place, reading `page` instead (see
    /// [`RleDecoder::rebind`](crate::encoding::rle::RleDecoder::rebind)).
    pub fn rebind<'b>(self, page: &'b [u8]) -> DeltaLengthByteArrayDecoder<'b> {
        let DeltaLengthByteArrayDecoder { page: _, lengths, index, data_pos, end } = self;
        DeltaLengthByteArrayDecoder { page, lengths, index, data_pos, end }
    }

    /// The byte length of the next `n` values (fewer at the page's end): what decoding them
    /// adds to a destination.
    pub fn next_bytes(&self, n: usize) -> u64 {
        let end = self.lengths.len().min(self.index.saturating_add(n));
        self.lengths[self.index..end].iter().map(|&l| u64::from(l)).sum()
    }

    /// The lengths of the values not yet decoded, and where the first of them starts.
    pub fn remaining_lengths(&self) -> (&[u32], usize) {
        (&self.lengths[self.index..], self.data_pos)
    }

    /// The number of values in the page.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// True if the page has no values.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Values not yet decoded or skipped.
    pub fn remaining(&self) -> usize {
        self.lengths.len() - self.index
    }

    /// The position in the page after the last value's bytes (the end of the encoded data).
    pub fn end(&self) -> usize {
        self.end
    }

    /// The lengths of all values in the page.
    pub fn lengths(&self) -> &[u32] {
        &self.lengths
    }

    /// Gives back the lengths buffer for reuse.
    pub fn into_buffer(self) -> Vec<u32> {
        self.lengths
    }

    /// The next `k` (≤ remaining) lengths, their value bytes, and where those start.
    fn take(&mut self, k: usize) -> (&[u32], &'a [u8], usize) {
        let lens = self.lengths.get(self.index..self.index + k).unwrap_or_default();
        let bytes: usize = lens.iter().map(|&l| l as usize).sum();
        let start = self.data_pos;
        // In bounds: the lengths were checked against the page in `new`.
        let data = self.page.get(start..start + bytes).unwrap_or_default();
        self.index += k;
        self.data_pos += bytes;
        (lens, data, start)
    }

    /// Decodes up to `n` values into `sink`; returns how many (fewer only at the page end).
    pub fn decode<S: ByteArraySink>(&mut self, n: usize, sink: &mut S) -> Result<usize> {
        let k = n.min(self.remaining());
        let (lens, data, start) = self.take(k);
        sink.reserve(k, data.len());
        sink.extend_from_lengths(lens, data, start)?;
        Ok(k)
    }

    /// Skips up to `n` values; returns how many.
    pub fn skip(&mut self, n: usize) -> usize {
        let k = n.min(self.remaining());
        self.take(k);
        k
    }

    /// The next `k` (≤ remaining) lengths, the whole page, and where the first of their
    /// values starts in it: DELTA_BYTE_ARRAY's suffixes, for
    /// [`ByteArraySink::extend_prefixed`], which may read the page around them.
    pub(crate) fn take_in_page(&mut self, k: usize) -> (&[u32], &'a [u8], usize) {
        let page = self.page;
        let (lens, _, start) = self.take(k);
        (lens, page, start)
    }

    /// The next value (for DELTA_BYTE_ARRAY's first value of a call).
    pub(crate) fn next_value(&mut self) -> Option<&'a [u8]> {
        let l = *self.lengths.get(self.index)? as usize;
        let v = self.page.get(self.data_pos..self.data_pos + l)?;
        self.index += 1;
        self.data_pos += l;
        Some(v)
    }
}

/// Lengths converted per step of [`DeltaLengthByteArrayEncoder::put_offsets`]: enough to
/// amortise the call, small enough to stay in L1.
const LENGTHS_CHUNK: usize = 1024;

/// An incremental DELTA_LENGTH_BYTE_ARRAY encoder for one page at a time: the lengths go to a
/// [`DeltaBinaryPackedEncoder`], the value bytes to one buffer, and
/// [`finish_into`](Self::finish_into) writes the one after the other.
#[derive(Debug, Clone, Default)]
pub struct DeltaLengthByteArrayEncoder {
    lengths: DeltaBinaryPackedEncoder<i32>,
    data: Vec<u8>,
    /// Lengths of the values of one [`put_offsets`](Self::put_offsets) step.
    scratch: Vec<i32>,
}

impl DeltaLengthByteArrayEncoder {
    /// An empty encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one value.
    #[inline]
    pub fn put(&mut self, value: &[u8]) {
        self.lengths.put_value(value.len() as i32);
        self.data.extend_from_slice(value);
    }

    /// Appends the `offsets.len() - 1` values `data[offsets[i]..offsets[i + 1]]` of an Arrow
    /// offsets + data array: lengths from the offset differences, and the value bytes as one
    /// copy of `data[offsets[0]..offsets[n]]`.
    ///
    /// The offsets must be valid Arrow offsets (non-decreasing, within `data`); otherwise
    /// this panics or encodes garbage.
    pub fn put_offsets<O: OffsetSize>(&mut self, offsets: &[O], data: &[u8]) {
        let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else { return };
        let n = offsets.len() - 1;
        let mut i = 0;
        while i < n {
            let end = (i + LENGTHS_CHUNK).min(n);
            self.scratch.clear();
            let lengths = offsets[i..=end].windows(2);
            self.scratch.extend(lengths.map(|w| w[1].as_usize().wrapping_sub(w[0].as_usize()) as i32));
            self.lengths.put(&self.scratch);
            i = end;
        }
        self.data.extend_from_slice(&data[first.as_usize()..last.as_usize()]);
    }

    /// The number of values put since the last finish.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// True if no value was put since the last finish.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The value bytes put since the last finish.
    pub fn data_len(&self) -> usize {
        self.data.len()
    }

    /// An upper bound of the bytes [`finish_into`](Self::finish_into) would append now.
    pub fn encoded_len_estimate(&self) -> usize {
        self.lengths.encoded_len_estimate() + self.data.len()
    }

    /// Appends the lengths and the value bytes to `out`, and resets the encoder for the next
    /// page, keeping its buffers.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        out.reserve(self.encoded_len_estimate());
        self.lengths.finish_into(out);
        out.extend_from_slice(&self.data);
        self.data.clear();
    }
}

/// Encodes `values` as DELTA_LENGTH_BYTE_ARRAY, appending to `out`: a one-call convenience
/// over [`DeltaLengthByteArrayEncoder`].
pub fn encode(values: &[&[u8]], out: &mut Vec<u8>) {
    let mut e = DeltaLengthByteArrayEncoder::new();
    values.iter().for_each(|v| e.put(v));
    e.finish_into(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{make_view, OffsetsSink, TestRng, ViewSink};

    #[test]
    fn spec_example_hello_world() {
        // Encodings.md: "Hello", "World", "Foobar", "ABCDEF" is DeltaEncoding(5, 5, 6, 6)
        // followed by "HelloWorldFoobarABCDEF". The lengths by hand: block 128 in 4 miniblocks,
        // 4 values, first 5 (zigzag 10); deltas 0 1 0, min 0; relative 0 1 0 at width 1 is
        // one byte 0b010 then 3 padding bytes of the 32-value miniblock.
        let mut page = vec![0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0b010, 0, 0, 0];
        page.extend_from_slice(b"HelloWorldFoobarABCDEF");
        let mut d = DeltaLengthByteArrayDecoder::new(&page, 0, 4).unwrap();
        assert_eq!(d.lengths(), [5, 5, 6, 6]);
        assert_eq!(d.end(), page.len());
        let mut s = OffsetsSink::<i32>::new();
        assert_eq!(d.decode(3, &mut s).unwrap(), 3);
        assert_eq!(d.decode(3, &mut s).unwrap(), 1);
        assert_eq!(s.offsets(), [0, 5, 10, 16, 22]);
        assert_eq!(s.data(), b"HelloWorldFoobarABCDEF");
        let mut own = Vec::new();
        encode(&[b"Hello", b"World", b"Foobar", b"ABCDEF"], &mut own);
        assert_eq!(own, page);
    }

    #[test]
    fn views_point_into_the_page() {
        let values: Vec<&[u8]> = vec![b"short", b"a value of over twelve bytes", b"", b"x"];
        let mut page = vec![0u8; 7];
        encode(&values, &mut page);
        let mut d = DeltaLengthByteArrayDecoder::new(&page, 7, 10).unwrap();
        let data_start = d.end() - 34;
        let mut v = ViewSink::new(0);
        v.set_page_buffer(3);
        assert_eq!(d.skip(1), 1);
        d.decode(10, &mut v).unwrap();
        assert_eq!(v.views()[0], make_view(values[1], 3, (data_start + 5) as u32));
        assert_eq!(v.views()[1], make_view(b"", 0, 0));
        assert_eq!(v.views()[2], make_view(b"x", 0, 0));
        assert!(v.owned().is_empty());
    }

    #[test]
    fn bad_lengths() {
        // Lengths 5, -1 (first 5, delta -6: min -6 zigzag 11, width 0).
        let page = [0x80, 0x01, 4, 2, 10, 11, 0, 0, 0, 0, b'a', b'b', b'c', b'd', b'e'];
        let e = DeltaLengthByteArrayDecoder::new(&page, 0, 2).unwrap_err().to_string();
        assert!(e.contains("value 1 has negative length -1"), "{e}");
        // Lengths 5, 5 with 5 bytes of data.
        let page = [0x80, 0x01, 4, 2, 10, 0, 0, 0, 0, 0, b'a', b'b', b'c', b'd', b'e'];
        let e = DeltaLengthByteArrayDecoder::new(&page, 0, 2).unwrap_err().to_string();
        assert!(e.contains("2 values need 10 bytes, 5 left"), "{e}");
        assert!(DeltaLengthByteArrayDecoder::new(&page, 0, 1).is_err()); // over max_values
        assert!(DeltaLengthByteArrayDecoder::new(&page, 99, 2).is_err());
    }

    #[test]
    fn round_trip_batches_and_reuse() {
        let mut rng = TestRng::new(21);
        let mut buffer = Vec::new();
        for _ in 0..100 {
            let n = rng.below(600) as usize;
            let owned: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = rng.below(40) as usize;
                    rng.bytes(len)
                })
                .collect();
            let values: Vec<&[u8]> = owned.iter().map(|v| v.as_slice()).collect();
            let mut page = Vec::new();
            encode(&values, &mut page);
            let mut d = DeltaLengthByteArrayDecoder::with_buffer(&page, 0, n, buffer).unwrap();
            let mut s = OffsetsSink::<i64>::new();
            let mut expect = Vec::new();
            while d.remaining() > 0 {
                let k = 1 + rng.below(70) as usize;
                let i = d.len() - d.remaining();
                if rng.below(4) == 0 {
                    assert_eq!(d.skip(k), k.min(n - i));
                } else {
                    let got = d.decode(k, &mut s).unwrap();
                    expect.extend_from_slice(&values[i..i + got]);
                }
            }
            assert_eq!(s.len(), expect.len());
            for (i, v) in expect.iter().enumerate() {
                assert_eq!(s.value(i), Some(*v));
            }
            buffer = d.into_buffer();
        }
    }

    /// Random values (empty, short, some long), as owned vectors and as Arrow offsets + data
    /// with `skip` values' worth of bytes before the first.
    fn random_values(rng: &mut TestRng, n: usize, skip: usize) -> (Vec<Vec<u8>>, Vec<i64>, Vec<u8>) {
        let owned: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let len = match rng.below(10) {
                    0 => 0,
                    1 => 200 + rng.below(5000) as usize,
                    _ => rng.below(30) as usize,
                };
                rng.bytes(len)
            })
            .collect();
        let mut data = rng.bytes(skip);
        let mut offsets = vec![skip as i64];
        for v in &owned {
            data.extend_from_slice(v);
            offsets.push(data.len() as i64);
        }
        data.extend(rng.bytes(3)); // bytes after the last value are not copied
        (owned, offsets, data)
    }

    #[test]
    fn encoder_put_and_put_offsets_agree() {
        let mut rng = TestRng::new(23);
        let mut by_offsets = DeltaLengthByteArrayEncoder::new();
        for n in [0usize, 1, 2, 127, 128, 129, 1023, 1024, 1025, 3000] {
            let skip = rng.below(3) as usize * 7;
            let (owned, offsets, data) = random_values(&mut rng, n, skip);
            let mut by_put = DeltaLengthByteArrayEncoder::new();
            owned.iter().for_each(|v| by_put.put(v));
            let want_bytes: usize = owned.iter().map(Vec::len).sum();
            assert_eq!((by_put.len(), by_put.data_len()), (n, want_bytes));
            let mut want = Vec::new();
            by_put.finish_into(&mut want);
            // Offsets of both widths, given in one call or in two pieces; the encoder is
            // reused across pages.
            let offsets32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            let cut = n / 3;
            by_offsets.put_offsets(&offsets32[..=cut], &data);
            by_offsets.put_offsets(&offsets32[cut..], &data);
            assert_eq!((by_offsets.len(), by_offsets.data_len()), (n, want_bytes));
            let estimate = by_offsets.encoded_len_estimate();
            let mut got = Vec::new();
            by_offsets.finish_into(&mut got);
            assert!(got.len() <= estimate);
            assert_eq!(got, want, "n {n}");
            by_offsets.put_offsets(&offsets, &data);
            got.clear();
            by_offsets.finish_into(&mut got);
            assert_eq!(got, want, "n {n}, i64 offsets");
            // And they decode to the values.
            let mut d = DeltaLengthByteArrayDecoder::new(&got, 0, n).unwrap();
            assert_eq!(d.end(), got.len());
            let mut s = OffsetsSink::<i64>::new();
            d.decode(n, &mut s).unwrap();
            assert!((0..n).all(|i| s.value(i) == Some(&owned[i][..])));
        }
        by_offsets.put_offsets::<i32>(&[], &[]);
        by_offsets.put_offsets::<i32>(&[5], b"abcdef");
        assert!(by_offsets.is_empty());
    }

    #[test]
    fn fuzz_never_panics() {
        let mut rng = TestRng::new(22);
        for iter in 0..3000 {
            let page = if iter % 2 == 0 {
                let mut d = vec![0x80, 0x01, 4, rng.below(20) as u8, rng.below(20) as u8];
                let len = rng.below(40) as usize;
                d.extend(rng.bytes(len));
                d
            } else {
                let owned: Vec<Vec<u8>> = (0..rng.below(50)).map(|i| vec![7; i as usize]).collect();
                let values: Vec<&[u8]> = owned.iter().map(|v| v.as_slice()).collect();
                let mut d = Vec::new();
                encode(&values, &mut d);
                d.truncate(rng.below(d.len() as u64 + 1) as usize);
                d
            };
            if let Ok(mut d) = DeltaLengthByteArrayDecoder::new(&page, 0, 100) {
                d.skip(rng.below(5) as usize);
                let _ = d.decode(1000, &mut OffsetsSink::<i32>::new());
                let _ = d.decode(1000, &mut ViewSink::new(0));
            }
        }
    }
}
