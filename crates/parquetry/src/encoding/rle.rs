//! The RLE / bit-packing hybrid (RLE = 3): definition and repetition levels, dictionary
//! indexes, and BOOLEAN values in RLE encoding; plus the deprecated BIT_PACKED (= 4) level
//! encoding, which packs most significant bit first.
//!
//! The data is a sequence of runs, each starting with a ULEB128 header: an even header
//! `len << 1` is an RLE run (one value, `ceil(bit_width / 8)` bytes little endian, repeated
//! `len` times); an odd header `groups << 1 | 1` is a bit-packed run of `groups * 8` values
//! (see [`bit_pack`](super::bit_pack)).
//!
//! [`RleDecoder`] streams values out of such data: [`decode`](RleDecoder::decode) appends
//! values, [`next_run`](RleDecoder::next_run) hands out whole runs (so a dictionary gather can
//! fill a repeated index as one run), [`skip`](RleDecoder::skip) discards values without
//! unpacking whole bit-packed groups, and [`decode_bits`](RleDecoder::decode_bits) appends
//! values of bit width 1 (definition levels of a flat optional column, RLE booleans) to a
//! bitmap a run at a time. [`next_piece`](RleDecoder::next_piece) (`rle_pieces.rs`) hands out
//! whole bit-packed groups as their bytes, for a consumer that reads values out of the bits.
//! [`RleEncoder`] writes such data.
//!
//! This is the crate's one parser of the hybrid: levels, dictionary indexes and booleans all
//! read through it.

use arrow_buffer::BooleanBufferBuilder;

use super::bit_pack::{read_uleb128, unpack32};
pub use super::rle_encoder::RleEncoder;
use crate::error::{Error, Result};

/// Values unpacked ahead from a bit-packed run (a multiple of 32).
const BUF_VALUES: usize = 256;

/// A type an RLE-decoded value can be stored as. Conversions truncate like `as`; callers
/// validate values (levels against the maximum, indexes against the dictionary size).
pub trait RleValue: Copy {
    /// Converts a decoded value.
    fn from_u32(v: u32) -> Self;
}

macro_rules! rle_value_as {
    ($($t:ty)*) => { $( impl RleValue for $t {
        #[inline]
        fn from_u32(v: u32) -> Self { v as $t }
    } )* };
}
rle_value_as!(u32 i32 u16 i16 u8 u64 i64 usize);

impl RleValue for bool {
    #[inline]
    fn from_u32(v: u32) -> Self {
        v != 0
    }
}

/// One piece of decoded data handed out by [`RleDecoder::next_run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run<'r> {
    /// `value` repeated `len` times.
    Repeated {
        /// The repeated value.
        value: u32,
        /// How many times (at least 1).
        len: usize,
    },
    /// Values from a bit-packed run (at most 256 at a time; at least 1).
    Packed(&'r [u32]),
}

impl Run<'_> {
    /// The number of values in this run.
    pub fn len(&self) -> usize {
        match self {
            Run::Repeated { len, .. } => *len,
            Run::Packed(v) => v.len(),
        }
    }

    /// True if the run has no values (never returned by the decoder).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A streaming decoder of RLE/bit-packed hybrid data (without the length prefix; see
/// [`split_length_prefixed`]).
#[derive(Clone)]
pub struct RleDecoder<'a> {
    data: &'a [u8],
    /// Next unread byte of `data`.
    pos: usize,
    bit_width: usize,
    /// Values left in the current RLE run, and its value.
    rle_left: usize,
    rle_value: u32,
    /// Values of the current bit-packed run not yet unpacked into `buf`, and where it ends.
    packed_left: usize,
    packed_end: usize,
    buf: Option<Box<[u32; BUF_VALUES]>>,
    buf_pos: usize,
    buf_len: usize,
}

impl<'a> RleDecoder<'a> {
    /// A decoder over `data` with values of `bit_width` bits (0..=32).
    ///
    /// With bit width 0 every value is 0 and the data may be empty: values never run out.
    pub fn new(data: &'a [u8], bit_width: u8) -> Result<Self> {
        if bit_width > 32 {
            return Err(Error::corrupt(format!("RLE/bit-packed: bit width {bit_width} is over 32")));
        }
        Ok(Self::at_start(data, bit_width as usize))
    }

    /// A decoder of no values, holding nothing: what a page's state keeps while its decoder
    /// is lent out.
    pub fn idle() -> RleDecoder<'static> {
        RleDecoder::at_start(&[], 0)
    }

    /// A decoder at the start of `data`, its width checked by the caller.
    fn at_start(data: &'a [u8], bit_width: usize) -> Self {
        RleDecoder {
            data,
            pos: 0,
            bit_width,
            rle_left: 0,
            rle_value: 0,
            packed_left: 0,
            packed_end: 0,
            buf: None,
            buf_pos: 0,
            buf_len: 0,
        }
    }

    /// The same decoder, at the same place, reading `data` instead: a page decoder that
    /// stops between batches keeps itself over an empty slice (`rebind(&[])`, which owns
    /// nothing) and is rebound to the page's bytes when the next batch resumes it. `data`
    /// must be the bytes it was created over; other bytes decode to garbage, never past
    /// their end.
    pub fn rebind<'b>(self, data: &'b [u8]) -> RleDecoder<'b> {
        let RleDecoder { data: _, pos, bit_width, rle_left, rle_value, packed_left, packed_end, buf, buf_pos, buf_len } =
            self;
        RleDecoder { data, pos, bit_width, rle_left, rle_value, packed_left, packed_end, buf, buf_pos, buf_len }
    }

    /// The bit width of the values.
    pub fn bit_width(&self) -> u8 {
        self.bit_width as u8
    }

    /// The number of input bytes read so far (runs are read lazily, when values are needed).
    pub fn bytes_read(&self) -> usize {
        self.pos
    }

    /// Appends up to `n` values to `dst`; returns how many (fewer than `n` only if the data
    /// ended).
    pub fn decode<T: RleValue>(&mut self, n: usize, dst: &mut Vec<T>) -> Result<usize> {
        // Reserve no more than the input can hold; RLE runs reserve exactly as they extend.
        let bytes_left = self.data.len().saturating_sub(self.pos);
        let bound = (self.buf_len - self.buf_pos)
            .saturating_add(self.rle_left)
            .saturating_add(self.packed_left)
            .saturating_add(bytes_left.saturating_mul(8));
        dst.reserve(n.min(bound));
        let mut done = 0;
        while done < n {
            match self.next_run(n - done)? {
                Some(Run::Repeated { value, len }) => {
                    dst.extend(std::iter::repeat_n(T::from_u32(value), len));
                    done += len;
                }
                Some(Run::Packed(values)) => {
                    dst.extend(values.iter().map(|&v| T::from_u32(v)));
                    done += values.len();
                }
                None => break,
            }
        }
        Ok(done)
    }

    /// Appends up to `n` values to `dst` as bits (1 for a value of 1); returns how many
    /// (fewer than `n` only if the data ended). The bit width must be 1.
    ///
    /// A repeated run is one `append_n`, and a bit-packed run of width 1 is already an
    /// LSB-first bitmap, so its whole bytes are appended as they are; only a run split inside
    /// a byte (a batch ending there) goes through the unpacking buffer.
    pub fn decode_bits(&mut self, n: usize, dst: &mut BooleanBufferBuilder) -> Result<usize> {
        self.bits::<false>(n, dst).map(|(done, _)| done)
    }

    /// [`decode_bits`](Self::decode_bits), also counting the 1 bits appended (the valid rows,
    /// for definition levels): a repeated run counts as one addition, a bit-packed run as a
    /// count over its bytes. Returns (bits appended, of them set).
    pub fn decode_bits_counted(&mut self, n: usize, dst: &mut BooleanBufferBuilder) -> Result<(usize, usize)> {
        self.bits::<true>(n, dst)
    }

    #[inline(always)]
    fn bits<const COUNT: bool>(&mut self, n: usize, dst: &mut BooleanBufferBuilder) -> Result<(usize, usize)> {
        if self.bit_width != 1 {
            return Err(not_bits(self.bit_width));
        }
        let (mut done, mut ones) = (0, 0);
        while done < n {
            let want = n - done;
            if self.buf_pos < self.buf_len {
                let k = (self.buf_len - self.buf_pos).min(want);
                let values = self.buf.as_deref().and_then(|b| b.get(self.buf_pos..self.buf_pos + k)).unwrap_or_default();
                for chunk in values.chunks(64) {
                    let word = chunk.iter().enumerate().fold(0u64, |w, (i, &b)| w | (u64::from(b & 1) << i));
                    dst.append_word(word, chunk.len());
                    if COUNT {
                        ones += word.count_ones() as usize;
                    }
                }
                self.buf_pos += k;
                done += k;
            } else if self.rle_left > 0 {
                let k = self.rle_left.min(want);
                dst.append_n(k, self.rle_value != 0);
                if COUNT && self.rle_value != 0 {
                    ones += k;
                }
                self.rle_left -= k;
                done += k;
            } else if self.packed_left > 0 {
                // Whole bytes of the run (or all that is left of it) are bits as they stand;
                // the run's rest starts on a byte (width 1: a group is one byte).
                let k = self.packed_left.min(want);
                let take = if k == self.packed_left { k } else { k / 8 * 8 };
                if take == 0 {
                    self.fill_buf_upto(want);
                    continue;
                }
                let bytes = self.data.get(self.pos..self.packed_end).unwrap_or_default();
                let take_bits = take.min(bytes.len() * 8);
                dst.append_packed_range(0..take_bits, bytes);
                if COUNT {
                    ones += count_ones(self.data, self.pos, take_bits);
                }
                self.packed_left -= take;
                self.pos = if self.packed_left == 0 { self.packed_end } else { self.pos + take / 8 };
                done += take;
            } else {
                // At a header: runs that fit are appended straight from it, without passing
                // through the decoder's state; only a run the batch ends inside is kept.
                let data = self.data;
                let mut runs = BitRuns { done, ones };
                let rest = runs.append::<COUNT>(data, &mut self.pos, n, dst)?;
                (done, ones) = (runs.done, runs.ones);
                match rest {
                    Some(Header::Repeated { len, value }) => {
                        self.rle_left = len;
                        self.rle_value = value;
                    }
                    Some(Header::Packed { values, end }) => {
                        self.packed_left = values;
                        self.packed_end = end;
                    }
                    None => {}
                }
                if self.pos >= data.len() && self.rle_left == 0 && self.packed_left == 0 {
                    break;
                }
            }
        }
        Ok((done, ones))
    }

    /// Appends exactly `n` values to `dst`, or fails naming how many the data held.
    pub fn decode_exact<T: RleValue>(&mut self, n: usize, dst: &mut Vec<T>) -> Result<()> {
        let got = self.decode(n, dst)?;
        if got < n {
            return Err(self.ran_out(n, got));
        }
        Ok(())
    }

    #[cold]
    fn ran_out(&self, n: usize, got: usize) -> Error {
        Error::corrupt(format!("RLE/bit-packed: needed {n} values, data ended after {got} ({} bytes)", self.data.len()))
    }

    /// The next run of at most `max` values (`max` > 0), or `None` when the data ended (or
    /// `max` is 0).
    ///
    /// A repeated run comes out as one [`Run::Repeated`] however long it is (capped at `max`),
    /// so dictionary decoding can fill it without a per-value lookup.
    #[inline]
    pub fn next_run(&mut self, max: usize) -> Result<Option<Run<'_>>> {
        if max == 0 {
            return Ok(None);
        }
        loop {
            if self.buf_pos < self.buf_len {
                let k = (self.buf_len - self.buf_pos).min(max);
                let start = self.buf_pos;
                self.buf_pos += k;
                return Ok(self.buf.as_deref().and_then(|b| b.get(start..start + k)).map(Run::Packed));
            }
            if self.rle_left > 0 {
                let len = self.rle_left.min(max);
                self.rle_left -= len;
                return Ok(Some(Run::Repeated { value: self.rle_value, len }));
            }
            if self.packed_left > 0 {
                self.fill_buf_upto(max);
                continue;
            }
            if !self.next_header()? {
                return Ok(None);
            }
        }
    }

    /// Discards up to `n` values; returns how many (fewer only if the data ended).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut done = 0;
        while done < n {
            let want = n - done;
            if self.buf_pos < self.buf_len {
                let k = (self.buf_len - self.buf_pos).min(want);
                self.buf_pos += k;
                done += k;
            } else if self.rle_left > 0 {
                let k = self.rle_left.min(want);
                self.rle_left -= k;
                done += k;
            } else if self.packed_left > 0 {
                // Whole groups of 8 values are skipped by moving over their bytes.
                let whole = self.packed_left.min(want) / 8 * 8;
                if whole == self.packed_left {
                    self.pos = self.packed_end;
                    self.packed_left = 0;
                    done += whole;
                } else if whole > 0 {
                    self.pos += whole / 8 * self.bit_width;
                    self.packed_left -= whole;
                    done += whole;
                } else {
                    self.fill_buf_upto(want);
                }
            } else if !self.next_header()? {
                break;
            }
        }
        Ok(done)
    }

    /// Unpacks the next values of the current bit-packed run into `buf`.
    fn fill_buf(&mut self) {
        self.fill_buf_upto(BUF_VALUES);
    }

    /// Unpacks the next group(s) of the current bit-packed run holding at least `want`
    /// values (at most [`BUF_VALUES`]) into `buf`: whole groups, or the run's end.
    fn fill_buf_upto(&mut self, want: usize) {
        // Values are unpacked 32 at a time, so as many are kept. A selective read that takes
        // one value between skips unpacks one such block, not the whole buffer's worth.
        let k = self.packed_left.min(want.div_ceil(32) * 32).min(BUF_VALUES);
        let w = self.bit_width;
        let run = self.data.get(..self.packed_end).unwrap_or_default();
        let mut p = self.pos;
        // Allocated at the first bit-packed run: a decoder that meets only RLE runs (most
        // definition levels) never needs it, and a decoder moved between batches (a page's
        // state, see `rebind`) moves a pointer, not a kilobyte. A fixed-size array, not a
        // vector: the unpacking loop below then compiles as it did inline (a `Vec` cost 60
        // more instructions a call).
        let buf = self.buf.get_or_insert_with(|| Box::new([0; BUF_VALUES]));
        for chunk in buf.chunks_exact_mut(32).take(k.div_ceil(32)) {
            if let Ok(c) = <&mut [u32; 32]>::try_from(chunk) {
                unpack32(run.get(p..).unwrap_or_default(), w, c);
            }
            p += 4 * w;
        }
        self.packed_left -= k;
        // k is a multiple of 8 unless it ends the run, so k * w / 8 is exact.
        self.pos = if self.packed_left == 0 { self.packed_end } else { self.pos + k / 8 * w };
        self.buf_pos = 0;
        self.buf_len = k;
    }

    /// Reads the next run header; false if the data has ended.
    #[inline]
    fn next_header(&mut self) -> Result<bool> {
        if self.pos >= self.data.len() {
            if self.bit_width == 0 {
                // Every value of width 0 is 0: some writers leave the data out entirely.
                self.rle_value = 0;
                self.rle_left = usize::MAX;
                return Ok(true);
            }
            return Ok(false);
        }
        match read_header(self.data, &mut self.pos, self.bit_width)? {
            Header::Repeated { len, value } => {
                self.rle_left = len;
                self.rle_value = value;
            }
            Header::Packed { values, end } => {
                self.packed_left = values;
                self.packed_end = end;
            }
        }
        Ok(true)
    }
}

/// A run header and what it declares, checked against the data.
enum Header {
    /// `value` repeated `len` times (`len` may be 0).
    Repeated { len: usize, value: u32 },
    /// `values` bit-packed values from the position after the header to `end` (the declared
    /// groups, cut to the bytes present: some writers end the data inside the last group).
    Packed { values: usize, end: usize },
}

/// Reads the run header at `*pos` (< `data.len()`) and, for an RLE run, its value; leaves
/// `*pos` at the run's first bit-packed byte or after the RLE value. The hybrid's one header
/// parser.
#[inline(always)]
fn read_header(data: &[u8], pos: &mut usize, w: usize) -> Result<Header> {
    let header = match data.get(*pos) {
        Some(&b) if b < 0x80 => {
            *pos += 1;
            u64::from(b)
        }
        _ => read_uleb128(data, pos, "RLE/bit-packed run header")?,
    };
    let left = data.len() - *pos;
    if header & 1 == 1 {
        let groups = header >> 1;
        let declared = usize::try_from(groups.saturating_mul(8)).unwrap_or(usize::MAX);
        let values = (left * 8).checked_div(w).map_or(declared, |fit| declared.min(fit));
        if values == 0 && declared > 0 {
            return Err(packed_past_end(declared, *pos, w, left));
        }
        Ok(Header::Packed { values, end: *pos + (values * w).div_ceil(8) })
    } else {
        let len = usize::try_from(header >> 1).unwrap_or(usize::MAX);
        let width_bytes = w.div_ceil(8);
        let Some(bytes) = data.get(*pos..*pos + width_bytes) else {
            return Err(Error::corrupt(format!(
                "RLE/bit-packed: RLE run value needs {width_bytes} bytes, {left} left"
            )));
        };
        let mut le = [0u8; 4];
        le[..width_bytes].copy_from_slice(bytes);
        *pos += width_bytes;
        let value = u32::from_le_bytes(le);
        if w < 32 && value >> w != 0 {
            return Err(too_wide(value, w));
        }
        Ok(Header::Repeated { len, value })
    }
}

#[cold]
fn packed_past_end(declared: usize, pos: usize, w: usize, left: usize) -> Error {
    Error::corrupt(format!(
        "RLE/bit-packed: bit-packed run of {declared} values at byte {pos} needs {} bytes, {left} left",
        (declared as u128 * w as u128).div_ceil(8)
    ))
}

#[cold]
fn too_wide(value: u32, w: usize) -> Error {
    Error::corrupt(format!("RLE/bit-packed: RLE run value {value} does not fit in {w} bits"))
}

#[cold]
fn not_bits(w: usize) -> Error {
    Error::corrupt(format!("RLE/bit-packed: decoding bits from data of bit width {w}"))
}

/// Splits the length-prefixed form (a 4-byte little-endian length, then that many bytes of
/// RLE/bit-packed data), used by v1 page levels and RLE booleans, into (data, rest).
pub fn split_length_prefixed(data: &[u8]) -> Result<(&[u8], &[u8])> {
    let Some((len, rest)) = data.split_first_chunk::<4>() else {
        return Err(Error::corrupt(format!("RLE/bit-packed: length prefix needs 4 bytes, {} left", data.len())));
    };
    let len = u32::from_le_bytes(*len) as usize;
    match rest.split_at_checked(len) {
        Some(parts) => Ok(parts),
        None => Err(Error::corrupt(format!("RLE/bit-packed: length prefix says {len} bytes, {} left", rest.len()))),
    }
}

/// Encodes `values` with the RLE/bit-packing hybrid at `bit_width` (0..=32) bits, appending to
/// `out` (no length prefix): a one-call convenience over [`RleEncoder`], which a writer keeps
/// per column to reuse its buffer.
pub fn encode_rle_hybrid(values: &[u32], bit_width: u8, out: &mut Vec<u8>) {
    let mut e = RleEncoder::new(bit_width);
    e.put_slice(values);
    e.finish_into(out);
}

#[path = "rle_bits.rs"]
mod bits;
use bits::{count_ones, BitRuns};
pub use bits::decode_bits_counted;

#[path = "rle_pieces.rs"]
mod pieces;
pub use pieces::Piece;

#[path = "rle_bit_packed_msb.rs"]
mod bit_packed_msb;
pub use bit_packed_msb::decode_bit_packed_msb;

#[cfg(test)]
#[path = "rle_tests.rs"]
mod tests;
