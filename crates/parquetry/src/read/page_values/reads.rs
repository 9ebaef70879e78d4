//! The reads of a page's values, one per output layout: fixed-width values into a vector
//! ([`PageValues::read_values`]), booleans into a bitmap ([`PageValues::read_bits`]), byte
//! arrays into a sink ([`PageValues::read_byte_arrays`]); dictionary keys are
//! [`PageValues::read_indexes`]. Each read matches the page's own `State`, so a value decoder
//! never asks which encoding a page is in: a new encoding adds its arms here and in `open`.

use arrow_buffer::BooleanBufferBuilder;

use super::{check_got, PageValues, State};
use crate::encoding::byte_stream_split;
use crate::encoding::plain::decode_byte_array;
use crate::encoding::rle::{RleDecoder, Run};
use crate::encoding::ByteArraySink;
use crate::error::{Error, Result};

/// The most bytes one read of a DELTA_BYTE_ARRAY page may expand to (4 GiB): no real page
/// comes near (pages are about a megabyte), so more is taken as malformed.
const MAX_PAGE_EXPANSION: u64 = 1 << 32;

/// A vector of fixed-width values that [`PageValues::read_values`] appends to, and what each
/// encoding needs of it: PLAIN and BYTE_STREAM_SPLIT values come as little-endian bytes,
/// dictionary indexes as runs to look up, DELTA_BINARY_PACKED as integers.
pub trait FixedValues {
    /// Appends `n` values from their PLAIN bytes (`n` times the width).
    fn extend_plain(&mut self, bytes: &[u8], n: usize) -> Result<()>;

    /// The number of dictionary values, once the chunk's dictionary page was read.
    fn dictionary_len(&self) -> Option<usize>;

    /// Appends the dictionary values a run of indexes selects, each below
    /// [`dictionary_len`](Self::dictionary_len) (checked by the page).
    fn extend_from_dictionary(&mut self, run: Run<'_>);

    /// The vector of an INT32 column, which DELTA_BINARY_PACKED decodes into.
    fn as_i32(&mut self) -> Option<&mut Vec<i32>> {
        None
    }

    /// The vector of an INT64 column, which DELTA_BINARY_PACKED decodes into.
    fn as_i64(&mut self) -> Option<&mut Vec<i64>> {
        None
    }

    /// The bytes of a FIXED_LEN_BYTE_ARRAY column and its width: BYTE_STREAM_SPLIT decodes
    /// straight into them, DELTA_BYTE_ARRAY rebuilds values there.
    fn as_fixed_bytes(&mut self) -> Option<(&mut Vec<u8>, usize)> {
        None
    }
}

/// Where the byte arrays of a [`PageValues::read_byte_arrays`] lie in the page, for an output
/// that keeps them there (views) and validates them in place.
#[derive(Debug)]
pub enum ReadBytes<'a> {
    /// Each value after its 4-byte length (PLAIN).
    Prefixed(&'a [u8]),
    /// The values back to back, with their lengths (DELTA_LENGTH_BYTE_ARRAY).
    Packed {
        /// One length per value read.
        lengths: &'a [u32],
        /// The values' bytes.
        bytes: &'a [u8],
    },
    /// Not in the page: rebuilt into the sink (DELTA_BYTE_ARRAY).
    Rebuilt,
}

impl PageValues {
    /// Appends the next `n` values of a fixed-width column to `dst`, whatever the page's
    /// encoding: PLAIN, dictionary indexes, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT, and
    /// DELTA_BYTE_ARRAY for FIXED_LEN_BYTE_ARRAY.
    pub fn read_values<V: FixedValues>(&mut self, n: usize, dst: &mut V) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        match self.state {
            State::PlainFixed { .. } => {
                let bytes = self.read_fixed(n)?;
                dst.extend_plain(bytes, n)
            }
            State::Indexes { .. } => {
                let len = dst.dictionary_len().ok_or_else(no_dictionary)?;
                self.read_indexes(n, len, |run| dst.extend_from_dictionary(run))
            }
            State::Split { width, ref mut scratch } => {
                let data = self.buffer.as_slice();
                match dst.as_fixed_bytes() {
                    Some((bytes, _)) => byte_stream_split::decode(data, width, self.done, n, bytes)?,
                    None => {
                        scratch.clear();
                        byte_stream_split::decode(data, width, self.done, n, scratch)?;
                        dst.extend_plain(scratch, n)?;
                    }
                }
                self.take(n)
            }
            State::DeltaInt32(_) => match dst.as_i32() {
                Some(v) => self.read_delta_i32(n, v),
                None => Err(self.wrong("INT32 deltas")),
            },
            State::DeltaInt64(_) => match dst.as_i64() {
                Some(v) => self.read_delta_i64(n, v),
                None => Err(self.wrong("INT64 deltas")),
            },
            State::DeltaByteArray(ref d) => {
                let got = d.next_bytes(n);
                let Some((bytes, width)) = dst.as_fixed_bytes() else {
                    return Err(self.wrong("fixed-width values"));
                };
                // Every value must be `width` bytes: checking the total first bounds the
                // output by what the page declares, before anything is rebuilt.
                let expected = (n as u64).saturating_mul(width as u64);
                if got != expected {
                    return Err(Error::corrupt(format!(
                        "DELTA_BYTE_ARRAY: {n} values of {got} bytes in all, but \
                         FIXED_LEN_BYTE_ARRAY({width}) values were expected"
                    )));
                }
                let start = bytes.len();
                self.read_byte_arrays(n, &mut FixedWidthSink { bytes, width, start }, |_| Ok(())).map(drop)
            }
            State::Empty
            | State::PlainBytes { .. }
            | State::PlainBits
            | State::RleBits { .. }
            | State::DeltaLength(_) => Err(self.wrong("fixed-width values")),
        }
    }

    /// Appends the next `n` BOOLEAN values to `dst`: PLAIN bits, RLE, or indexes into
    /// `dictionary` (some writers dictionary-encode booleans too).
    pub fn read_bits(&mut self, n: usize, dictionary: Option<&[bool]>, dst: &mut BooleanBufferBuilder) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        let data = self.buffer.as_slice();
        match std::mem::replace(&mut self.state, State::Empty) {
            State::PlainBits => {
                self.state = State::PlainBits;
                let start = self.done;
                if data.len().saturating_mul(8) < start + n {
                    return Err(Error::corrupt(format!(
                        "PLAIN BOOLEAN: {} values need {} bytes, the page has {}",
                        self.len,
                        self.len.div_ceil(8),
                        data.len()
                    )));
                }
                dst.append_packed_range(start..start + n, data);
            }
            State::RleBits { decoder, start, end } => {
                let mut d = decoder.rebind(&data[start..end]);
                let result = rle_bits(&mut d, n, dst);
                self.state = State::RleBits { decoder: d.rebind(&[]), start, end };
                result?;
            }
            s @ State::Indexes { .. } => {
                self.state = s;
                let dict = dictionary.ok_or_else(no_dictionary)?;
                let entry = |i: u32| dict.get(i as usize).copied().unwrap_or_default();
                // The indexes are checked against the dictionary, so `entry` never misses.
                return self.read_indexes(n, dict.len(), |run| match run {
                    Run::Repeated { value, len } => dst.append_n(len, entry(value)),
                    Run::Packed(indexes) => indexes.iter().for_each(|&i| dst.append(entry(i))),
                });
            }
            other => {
                self.state = other;
                return Err(self.wrong("booleans"));
            }
        }
        self.take(n)
    }

    /// Appends the next `n` BYTE_ARRAY values (PLAIN, DELTA_LENGTH_BYTE_ARRAY or
    /// DELTA_BYTE_ARRAY; the last also for FIXED_LEN_BYTE_ARRAY) to `sink`, with positions
    /// relative to [`buffer`](Self::buffer), and says where they lay in the section.
    ///
    /// `room` is asked first whether the bytes they add fit the output: with a bound found
    /// without a walk over lengths, and only if it refuses that, with the exact count. A
    /// DELTA_BYTE_ARRAY read that would expand past 4 GiB is an error whatever `room` says:
    /// shared prefixes can make a small page expand enormously, so this is checked before the
    /// sink reserves the expanded size.
    pub fn read_byte_arrays<S: ByteArraySink>(
        &mut self,
        n: usize,
        sink: &mut S,
        room: impl Fn(u64) -> Result<()>,
    ) -> Result<ReadBytes<'_>> {
        if n == 0 {
            return Ok(ReadBytes::Prefixed(&[]));
        }
        if n > self.remaining() {
            return self.take(n).map(|()| ReadBytes::Rebuilt);
        }
        let bound = match &self.state {
            State::PlainBytes { pos } => self.buffer.len().saturating_sub(*pos) as u64,
            State::DeltaLength(d) => (d.end() - d.remaining_lengths().1) as u64,
            State::DeltaByteArray(d) => {
                let bytes = d.next_bytes(n);
                if bytes > MAX_PAGE_EXPANSION {
                    return Err(Error::corrupt(format!(
                        "DELTA_BYTE_ARRAY page of {} bytes expands to {bytes} bytes of values",
                        self.buffer.len(),
                    )));
                }
                bytes
            }
            _ => return Err(self.wrong("byte arrays")),
        };
        if room(bound).is_err() {
            room(self.next_value_bytes(n))?;
        }
        let data = self.buffer.as_slice();
        let (state, read) = match std::mem::replace(&mut self.state, State::Empty) {
            State::PlainBytes { pos } => match decode_byte_array(data, pos, n, sink) {
                Ok(end) => (State::PlainBytes { pos: end }, Ok(Span::Prefixed(pos, end))),
                Err(e) => (State::PlainBytes { pos }, Err(e)),
            },
            State::DeltaLength(d) => {
                let mut r = d.rebind(data);
                let (first, start) = (r.len() - r.remaining(), r.remaining_lengths().1);
                let result = r.decode(n, sink).and_then(|got| check_got(got, n));
                let end = r.remaining_lengths().1;
                (State::DeltaLength(r.rebind(&[])), result.map(|()| Span::Packed(first, start, end)))
            }
            State::DeltaByteArray(d) => {
                let mut r = d.rebind(data);
                let result = r.decode(n, sink).and_then(|got| check_got(got, n));
                (State::DeltaByteArray(r.rebind(&[])), result.map(|()| Span::Rebuilt))
            }
            other => {
                self.state = other;
                return Err(self.wrong("byte arrays"));
            }
        };
        self.state = state;
        let read = read?;
        self.done += n;
        let data = self.buffer.as_slice();
        Ok(match (read, &self.state) {
            (Span::Prefixed(start, end), _) => ReadBytes::Prefixed(&data[start..end]),
            (Span::Packed(first, start, end), State::DeltaLength(d)) => {
                ReadBytes::Packed { lengths: d.lengths().get(first..first + n).unwrap_or_default(), bytes: &data[start..end] }
            }
            _ => ReadBytes::Rebuilt,
        })
    }
}

/// What a read of byte arrays covered, before it is lent out as a [`ReadBytes`].
enum Span {
    /// Section bytes `.0..1`.
    Prefixed(usize, usize),
    /// Lengths from `.0`, section bytes `.1..2`.
    Packed(usize, usize, usize),
    Rebuilt,
}

/// The error for dictionary indexes without a dictionary to look them up in.
#[cold]
pub(crate) fn no_dictionary() -> Error {
    Error::corrupt("a dictionary-encoded data page, but the column chunk has no dictionary page")
}

/// Appends `n` RLE booleans to `dst`.
fn rle_bits(d: &mut RleDecoder<'_>, n: usize, dst: &mut BooleanBufferBuilder) -> Result<()> {
    let done = d.decode_bits(n, dst)?;
    if done < n {
        return Err(Error::corrupt(format!("RLE BOOLEAN: needed {n} values, the data ended after {done}")));
    }
    Ok(())
}

/// A [`ByteArraySink`] that appends values of exactly `width` bytes back to back, for
/// DELTA_BYTE_ARRAY pages of FIXED_LEN_BYTE_ARRAY columns.
struct FixedWidthSink<'a> {
    bytes: &'a mut Vec<u8>,
    width: usize,
    /// Where this page's values start in `bytes`: earlier values are not this page's to
    /// prefix from.
    start: usize,
}

impl FixedWidthSink<'_> {
    #[cold]
    fn wrong_length(&self, len: usize) -> Error {
        Error::corrupt(format!(
            "DELTA_BYTE_ARRAY: a value of {len} bytes in a FIXED_LEN_BYTE_ARRAY({}) column",
            self.width
        ))
    }

    /// Where the last value of this page starts, if there is one.
    fn last_start(&self) -> Option<usize> {
        self.bytes.len().checked_sub(self.width).filter(|&s| s >= self.start)
    }
}

impl ByteArraySink for FixedWidthSink<'_> {
    fn reserve(&mut self, _values: usize, bytes: usize) {
        self.bytes.reserve(bytes);
    }

    fn push_slice_from_page(&mut self, _page_pos: usize, bytes: &[u8]) -> Result<()> {
        self.push_owned(bytes)
    }

    fn push_owned(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.len() != self.width {
            return Err(self.wrong_length(bytes.len()));
        }
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn push_prefixed(&mut self, prefix_len: usize, suffix: &[u8]) -> Result<()> {
        if prefix_len.saturating_add(suffix.len()) != self.width {
            return Err(self.wrong_length(prefix_len.saturating_add(suffix.len())));
        }
        let Some(last) = self.last_start() else {
            return Err(Error::corrupt(format!("DELTA_BYTE_ARRAY: prefix length {prefix_len} with no previous value")));
        };
        self.bytes.extend_from_within(last..last + prefix_len);
        self.bytes.extend_from_slice(suffix);
        Ok(())
    }

    fn copy_last(&self, out: &mut Vec<u8>) -> bool {
        out.clear();
        match self.last_start().and_then(|s| self.bytes.get(s..)) {
            Some(v) => {
                out.extend_from_slice(v);
                true
            }
            None => false,
        }
    }

    fn extend_from_lengths(&mut self, lengths: &[u32], data: &[u8], _data_pos: usize) -> Result<()> {
        if let Some(&bad) = lengths.iter().find(|&&l| l as usize != self.width) {
            return Err(self.wrong_length(bad as usize));
        }
        if lengths.len().checked_mul(self.width) != Some(data.len()) {
            return Err(Error::corrupt(format!(
                "{} values of {} bytes but {} bytes were given",
                lengths.len(),
                self.width,
                data.len()
            )));
        }
        self.bytes.extend_from_slice(data);
        Ok(())
    }
}
