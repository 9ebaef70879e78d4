//! Encoding kernels: decoders and encoders for every Parquet value encoding.
//!
//! Each module is one encoding from the Parquet spec (`Encodings.md`): pure functions and small
//! streaming decoders over byte slices that *append* into a destination the caller owns. They
//! know nothing about pages, columns or Arrow arrays; the `read` layer drives them.
//!
//! The encoders sit beside their decoders. Each is incremental, for one page at a time: values
//! are put as the writer converts them (Arrow offsets + data and bitmaps are taken as they
//! are), `encoded_len_estimate` tells when the page is full, and `finish_into` appends the
//! page's encoded values and resets the encoder, which keeps its buffers for the next page.
//! Values from the writer are trusted (Arrow arrays are valid): a caller bug panics rather than
//! being an [`Error`].
//!
//! Rules every kernel follows:
//! - Every length or count read from the data is checked against the bytes left before anything
//!   is allocated or copied, and every malformed input is an [`Error`](crate::error::Error), never
//!   a panic. Memory reserved up front is bounded by what the remaining input can hold.
//! - Destinations are reserved once and written by bulk copies; nothing is zero-filled and
//!   then overwritten, and nothing is allocated per value.
//!
//! Byte-array values (BYTE_ARRAY, and FIXED_LEN_BYTE_ARRAY through DELTA_BYTE_ARRAY) go to a
//! [`ByteArraySink`], so one decoder per encoding serves every Arrow output kind:
//! [`OffsetsSink`] builds `Utf8`/`Binary` (`i32` offsets) and `LargeUtf8`/`LargeBinary` (`i64`
//! offsets); [`ViewSink`] builds `Utf8View`/`BinaryView` views that point into the page buffer,
//! so PLAIN and DELTA_LENGTH_BYTE_ARRAY pages are read without copying any value bytes.

use crate::error::{Error, Result};

pub mod bit_pack;
pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod delta_length_byte_array;
pub mod dictionary;
mod offsets_plain;
mod offsets_prefixed;
mod offsets_short;
mod offsets_sink;
pub mod plain;
mod prefix_sum;
pub mod rle;
mod rle_encoder;
mod view_sink;

pub use offsets_short::ShortValues;
pub use offsets_sink::{OffsetSize, OffsetsSink};
pub use view_sink::{make_view, ViewSink};

/// Where byte-array decoders put their values.
///
/// Positions (`page_pos`) are byte offsets into the slice the decoder was given (the page's
/// value buffer); a view sink records them instead of copying. Implementations are
/// monomorphised into each decoder, so keep the methods small.
pub trait ByteArraySink {
    /// A hint that up to `values` more values with up to `bytes` value bytes are coming.
    fn reserve(&mut self, values: usize, bytes: usize);

    /// Appends a value that lies in the page at `page_pos` (`bytes` is that slice).
    fn push_slice_from_page(&mut self, page_pos: usize, bytes: &[u8]) -> Result<()>;

    /// Appends the PLAIN value whose 4-byte length prefix is at `len_pos` in `page` and whose
    /// `len` bytes follow it (the caller has checked they are inside `page`).
    ///
    /// The default copies the slice; sinks override it to use the bytes around the value:
    /// a view sink turns the prefix and the next 12 bytes into a view with one 16-byte load,
    /// an offsets sink copies short values as one fixed-size block instead of a `memcpy` call.
    #[inline]
    fn push_plain_value(&mut self, page: &[u8], len_pos: usize, len: usize) -> Result<()> {
        let start = len_pos + 4;
        match page.get(start..start + len) {
            Some(v) => self.push_slice_from_page(start, v),
            None => Err(Error::corrupt(format!("PLAIN value of {len} bytes at {start} is past the page"))),
        }
    }

    /// Appends as many as it cheaply can of the `n` PLAIN values that start at `pos` in `page`,
    /// stopping before the first that does not lie whole in the page or does not fit the
    /// reserved room; returns how many it appended and the position after them.
    ///
    /// The default appends none: the caller pushes values one at a time with
    /// [`push_plain_value`](Self::push_plain_value), which also reports bad values. An
    /// offsets sink overrides it with one loop over the page.
    #[inline]
    fn extend_plain(&mut self, page: &[u8], pos: usize, n: usize) -> (usize, usize) {
        let _ = (page, n);
        (0, pos)
    }

    /// Appends a value that does not exist contiguously in the page.
    fn push_owned(&mut self, bytes: &[u8]) -> Result<()>;

    /// Appends the first `prefix_len` bytes of the last value this sink received (which was
    /// given by [`push_owned`](Self::push_owned) or this method) followed by `suffix`.
    ///
    /// This is DELTA_BYTE_ARRAY's step: the previous value is read back from the destination.
    fn push_prefixed(&mut self, prefix_len: usize, suffix: &[u8]) -> Result<()>;

    /// [`push_prefixed`](Self::push_prefixed) with the suffix given as the first `len` bytes
    /// of `tail`, the rest of the page: a sink may then copy a short suffix as one fixed-size
    /// block that runs past its end, instead of a `memcpy` call per value.
    #[inline]
    fn push_prefixed_in(&mut self, prefix_len: usize, tail: &[u8], len: usize) -> Result<()> {
        match tail.get(..len) {
            Some(suffix) => self.push_prefixed(prefix_len, suffix),
            None => Err(suffix_past_page(len, tail.len())),
        }
    }

    /// Appends a run of DELTA_BYTE_ARRAY values: value `i` is the first `prefixes[i]` bytes
    /// of the value before it (for the first, the last value this sink received) followed by
    /// `suffix_lens[i]` bytes of `page`; the suffixes lie back to back from `page[first..]`.
    ///
    /// The default pushes one value at a time; an offsets sink overrides it with a loop that
    /// checks the run's size once and keeps the previous value's head in registers.
    fn extend_prefixed(&mut self, prefixes: &[u32], suffix_lens: &[u32], page: &[u8], first: usize) -> Result<()> {
        let mut pos = first;
        for (&p, &len) in prefixes.iter().zip(suffix_lens) {
            self.push_prefixed_in(p as usize, page.get(pos..).unwrap_or_default(), len as usize)?;
            pos += len as usize;
        }
        Ok(())
    }

    /// Copies the last value received into `out` (cleared first); false if there is none.
    fn copy_last(&self, out: &mut Vec<u8>) -> bool;

    /// Appends values with the given `lengths` that lie back to back in `data`, which starts at
    /// `data_pos` in the page. The caller guarantees the lengths sum to `data.len()`.
    fn extend_from_lengths(&mut self, lengths: &[u32], data: &[u8], data_pos: usize) -> Result<()>;
}

/// Which of a page's rows hold its values: what a sink needs to spread the page's values,
/// decoded densely, over its rows in place (the reader's validity bitmap implements it, in
/// `read/spread.rs`, with the one spread every layout shares).
///
/// Both spreads are generic over what they move, with no bound beyond `Copy + Default`: they
/// can only move and copy the values they are given and write defaults. That is what lets a
/// [`ViewSink`] hand its views to code outside its module (a zero view is an empty value).
///
/// # Safety
///
/// When [`spread_ends`](Self::spread_ends) returns `Ok`, the ends it leaves never decrease:
/// an [`OffsetsSink`] relies on it to keep its invariant (checking it costs a pass over every
/// page with nulls, so only debug builds do).
pub unsafe trait SpreadRows {
    /// The page's rows.
    fn rows(&self) -> usize;

    /// Moves the dense values `values[start..]` (a page's non-null values, in order) to
    /// their rows: afterwards `values[start..]` has one entry per row, null rows holding
    /// `T::default()`. An error if the rows do not have as many valid rows as values (the
    /// values are then unspecified).
    fn spread_values<T: Copy + Default>(&self, values: &mut Vec<T>, start: usize) -> Result<()>;

    /// `ends` has one entry per row plus one: `ends[0]` is where the page's first value
    /// starts and `ends[1..=dense]` are the ends of its `dense` values. Afterwards `ends[1..]`
    /// has one end per row, a null row ending where the row before it ends. An error as for
    /// [`spread_values`](Self::spread_values).
    fn spread_ends<O: Copy + Default>(&self, ends: &mut [O], dense: usize) -> Result<()>;
}

/// Checks that `lengths` sum to `data.len()` (a cheap, vectorised pass).
#[inline]
pub(crate) fn check_lengths(lengths: &[u32], data: &[u8]) -> Result<()> {
    let sum: u64 = lengths.iter().map(|&l| u64::from(l)).sum();
    if sum != data.len() as u64 {
        return Err(Error::corrupt(format!(
            "byte array lengths sum to {sum} bytes but {} bytes were given",
            data.len()
        )));
    }
    Ok(())
}

#[cold]
pub(crate) fn suffix_past_page(len: usize, left: usize) -> Error {
    Error::corrupt(format!("DELTA_BYTE_ARRAY: a suffix of {len} bytes runs past the page ({left} bytes left)"))
}

#[cold]
pub(crate) fn no_previous(prefix_len: usize) -> Error {
    Error::corrupt(format!("DELTA_BYTE_ARRAY: prefix length {prefix_len} with no previous value"))
}

#[cold]
pub(crate) fn prefix_too_long(prefix_len: usize, prev: usize) -> Error {
    Error::corrupt(format!(
        "DELTA_BYTE_ARRAY: prefix length {prefix_len} is longer than the previous value ({prev} bytes)"
    ))
}

/// A tiny deterministic random generator for tests (xorshift64*).
#[cfg(test)]
pub(crate) struct TestRng(u64);

#[cfg(test)]
impl TestRng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A value in `0..n` (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Rows given as booleans, for the sinks' tests: an obvious row-by-row spread, independent of
/// the reader's (`read/spread.rs`); with `scramble`, a spread of ends that reports success and
/// leaves them out of order (for the debug builds' check only).
#[cfg(test)]
pub(crate) struct TestRows {
    pub(crate) valid: Vec<bool>,
    pub(crate) scramble: bool,
}

#[cfg(test)]
impl TestRows {
    pub(crate) fn new(valid: &[bool]) -> Self {
        Self { valid: valid.to_vec(), scramble: false }
    }
}

// SAFETY: the ends are placed in row order, each the last dense end at or before its row, so
// they never decrease; `scramble` breaks that on purpose, in a test run in debug builds only,
// where the sink's debug check stops it before the ends are used.
#[cfg(test)]
unsafe impl SpreadRows for TestRows {
    fn rows(&self) -> usize {
        self.valid.len()
    }
    fn spread_values<T: Copy + Default>(&self, values: &mut Vec<T>, start: usize) -> Result<()> {
        let dense: Vec<T> = values.drain(start..).collect();
        if self.valid.iter().filter(|v| **v).count() != dense.len() {
            return Err(Error::corrupt("the valid rows do not match the values"));
        }
        let mut it = dense.into_iter();
        values.extend(self.valid.iter().map(|&v| if v { it.next().unwrap_or_default() } else { T::default() }));
        Ok(())
    }
    fn spread_ends<O: Copy + Default>(&self, ends: &mut [O], dense: usize) -> Result<()> {
        if self.valid.iter().filter(|v| **v).count() != dense {
            return Err(Error::corrupt("the valid rows do not match the values"));
        }
        let dense_ends = ends[1..=dense].to_vec();
        let (mut last, mut it) = (ends[0], dense_ends.into_iter());
        for (row, &v) in self.valid.iter().enumerate() {
            if v {
                last = it.next().unwrap_or(last);
            }
            ends[row + 1] = last;
        }
        if self.scramble && ends.len() > 3 {
            // The page's first and last ends stay; two between them change places.
            let last = ends.len() - 2;
            ends.swap(1, last);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_layout_matches_arrow() {
        // Inline: len 3, "abc", zero padded.
        let v = make_view(b"abc", 7, 9).to_le_bytes();
        assert_eq!(&v[..8], &[3, 0, 0, 0, b'a', b'b', b'c', 0]);
        assert_eq!(&v[8..], &[0; 8]);
        // Exactly 12 bytes is still inline.
        let v = make_view(b"0123456789ab", 7, 9).to_le_bytes();
        assert_eq!(&v[..4], &[12, 0, 0, 0]);
        assert_eq!(&v[4..], b"0123456789ab");
        // 13 bytes: prefix, buffer index, offset.
        let v = make_view(b"0123456789abc", 7, 9).to_le_bytes();
        assert_eq!(v, [13, 0, 0, 0, b'0', b'1', b'2', b'3', 7, 0, 0, 0, 9, 0, 0, 0]);
    }

    #[test]
    fn view_sink_prefixed_values() {
        let mut s = ViewSink::new(5);
        assert!(s.push_prefixed(1, b"x").is_err());
        s.push_owned(b"short").unwrap();
        s.push_prefixed(5, b" and now long").unwrap(); // inline prefix, owned value
        s.push_prefixed(9, b"").unwrap(); // "short and" from owned, inline result
        s.push_prefixed(3, b"").unwrap(); // inline from inline
        s.push_prefixed(0, b"a value longer than twelve").unwrap();
        s.push_prefixed(20, b"!").unwrap(); // owned from owned
        s.push_prefixed(9, b"").unwrap(); // inline from owned
        let mut out = Vec::new();
        let mut got = Vec::new();
        for i in 0..s.len() {
            let mut t = s.clone();
            t.truncate(i + 1);
            assert!(t.copy_last(&mut out));
            got.push(String::from_utf8(out.clone()).unwrap());
        }
        assert_eq!(
            got,
            [
                "short",
                "short and now long",
                "short and",
                "sho",
                "a value longer than twelve",
                "a value longer than !",
                "a value l"
            ]
        );
        assert!(s.push_prefixed(10, b"").is_err());
    }
}
