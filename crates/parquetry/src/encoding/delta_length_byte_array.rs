//! DELTA_LENGTH_BYTE_ARRAY (= 6): all value lengths as one DELTA_BINARY_PACKED stream, then
//! all value bytes back to back.
//!
//! The decoder reads every length up front in bulk and checks them once (none negative, their
//! sum within the page), so decoding a batch is one bulk call on the sink: for offsets, one
//! copy of the batch's bytes plus a prefix sum; for views, views into the page and no copy.
//! Skipping `n` values is a sum of `n` lengths.

use super::delta_binary_packed::DeltaBinaryPackedDecoder;
use super::ByteArraySink;
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
    pub fn with_buffer(
        page: &'a [u8],
        pos: usize,
        max_values: usize,
        mut lengths: Vec<u32>,
    ) -> Result<Self> {
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
        let (sum, or) =
            lengths.iter().fold((0u64, 0u32), |(s, o), &l| (s + u64::from(l), o | l));
        if or > i32::MAX as u32 {
            let (i, l) = lengths
                .iter()
                .enumerate()
                .find(|(_, &l)| l > i32::MAX as u32)
                .map_or((0, 0), |(i, &l)| (i, l as i32));
            return Err(Error::corrupt(format!(
                "DELTA_LENGTH_BYTE_ARRAY: value {i} has negative length {l}"
            )));
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

/// Encodes `values` as DELTA_LENGTH_BYTE_ARRAY, appending to `out`. For tests and the writer.
pub fn encode(values: &[&[u8]], out: &mut Vec<u8>) {
    let lengths: Vec<i64> = values.iter().map(|v| v.len() as i64).collect();
    super::delta_binary_packed::encode(&lengths, true, 128, 4, out);
    for v in values {
        out.extend_from_slice(v);
    }
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
        assert_eq!(s.offsets, [0, 5, 10, 16, 22]);
        assert_eq!(s.data, b"HelloWorldFoobarABCDEF");
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
        v.page_buffer_index = 3;
        assert_eq!(d.skip(1), 1);
        d.decode(10, &mut v).unwrap();
        assert_eq!(v.views[0], make_view(values[1], 3, (data_start + 5) as u32));
        assert_eq!(v.views[1], make_view(b"", 0, 0));
        assert_eq!(v.views[2], make_view(b"x", 0, 0));
        assert!(v.owned.is_empty());
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
