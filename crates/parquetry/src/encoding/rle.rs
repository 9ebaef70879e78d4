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
//! bitmap a run at a time. [`RleEncoder`] writes such data.
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
    buf: [u32; BUF_VALUES],
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
        Ok(Self {
            data,
            pos: 0,
            bit_width: bit_width as usize,
            rle_left: 0,
            rle_value: 0,
            packed_left: 0,
            packed_end: 0,
            buf: [0; BUF_VALUES],
            buf_pos: 0,
            buf_len: 0,
        })
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
                let values = self.buf.get(self.buf_pos..self.buf_pos + k).unwrap_or_default();
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
                    self.fill_buf();
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
                return Ok(self.buf.get(start..start + k).map(Run::Packed));
            }
            if self.rle_left > 0 {
                let len = self.rle_left.min(max);
                self.rle_left -= len;
                return Ok(Some(Run::Repeated { value: self.rle_value, len }));
            }
            if self.packed_left > 0 {
                self.fill_buf();
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
                    self.fill_buf();
                }
            } else if !self.next_header()? {
                break;
            }
        }
        Ok(done)
    }

    /// Unpacks the next values of the current bit-packed run into `buf`.
    fn fill_buf(&mut self) {
        let k = self.packed_left.min(BUF_VALUES);
        let w = self.bit_width;
        let run = self.data.get(..self.packed_end).unwrap_or_default();
        let mut p = self.pos;
        for chunk in self.buf.chunks_exact_mut(32).take(k.div_ceil(32)) {
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

/// Appends the first `n` values of width-1 hybrid `data` to `dst` as bits, in one call:
/// [`RleDecoder::decode_bits_counted`] for data read whole (a page's definition levels), which
/// needs no decoder (nor its unpacking buffer) since no batch ends inside a run. Returns (bits
/// appended, of them set); fewer than `n` only if the data ended.
pub fn decode_bits_counted(data: &[u8], n: usize, dst: &mut BooleanBufferBuilder) -> Result<(usize, usize)> {
    let mut runs = BitRuns { done: 0, ones: 0 };
    let mut pos = 0;
    match runs.append::<true>(data, &mut pos, n, dst)? {
        Some(Header::Packed { values, end }) => {
            // The run holds more than is wanted: its first bits are the rest.
            let k = values.min(n - runs.done);
            let bytes = data.get(pos..end).unwrap_or_default();
            let k = k.min(bytes.len() * 8);
            dst.append_packed_range(0..k, bytes);
            runs.ones += count_ones(data, pos, k);
            runs.done += k;
        }
        Some(Header::Repeated { .. }) | None => {}
    }
    Ok((runs.done, runs.ones))
}

/// Width-1 runs appended so far, and the 1 bits among them (when counting).
struct BitRuns {
    done: usize,
    ones: usize,
}

impl BitRuns {
    /// Appends whole runs from the header at `*pos` while fewer than `n` bits are done and
    /// the data lasts. Returns the run the `n`th bit ends inside, if any: a repeated run
    /// with what is left of it after the bits appended, or a bit-packed run not yet appended
    /// (`*pos` at its first byte).
    #[inline(always)]
    fn append<const COUNT: bool>(
        &mut self,
        data: &[u8],
        pos: &mut usize,
        n: usize,
        dst: &mut BooleanBufferBuilder,
    ) -> Result<Option<Header>> {
        while self.done < n && *pos < data.len() {
            let want = n - self.done;
            match read_header(data, pos, 1)? {
                Header::Repeated { len, value } => {
                    let k = len.min(want);
                    dst.append_n(k, value != 0);
                    if COUNT && value != 0 {
                        self.ones += k;
                    }
                    self.done += k;
                    if k < len {
                        return Ok(Some(Header::Repeated { len: len - k, value }));
                    }
                }
                Header::Packed { values, end } => {
                    if values > want {
                        return Ok(Some(Header::Packed { values, end }));
                    }
                    let bytes = data.get(*pos..end).unwrap_or_default();
                    dst.append_packed_range(0..values, bytes);
                    if COUNT {
                        self.ones += count_ones(data, *pos, values);
                    }
                    *pos = end;
                    self.done += values;
                }
            }
        }
        Ok(None)
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

/// The 1 bits among the `n` bits (LSB first) from byte `pos` of `data`, a word at a time:
/// words are read past the run's end where the data goes on (and masked), so a short run costs
/// one load, not a copy.
#[inline]
fn count_ones(data: &[u8], pos: usize, n: usize) -> usize {
    let word_at = |p: usize| match data.get(p..).and_then(|s| s.first_chunk::<8>()) {
        Some(w) => u64::from_le_bytes(*w),
        None => {
            let mut buf = [0u8; 8];
            let tail = data.get(p..).unwrap_or_default();
            let t = tail.len().min(8);
            buf[..t].copy_from_slice(&tail[..t]);
            u64::from_le_bytes(buf)
        }
    };
    let (mut ones, mut p, mut left) = (0, pos, n);
    while left >= 64 {
        ones += word_at(p).count_ones() as usize;
        p += 8;
        left -= 64;
    }
    if left > 0 {
        ones += (word_at(p) & ((1u64 << left) - 1)).count_ones() as usize;
    }
    ones
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

/// Decodes `n` values of the deprecated BIT_PACKED encoding (levels packed most significant
/// bit first, no header), appending to `dst`. Returns the bytes used, `ceil(n * bit_width / 8)`.
pub fn decode_bit_packed_msb<T: RleValue>(data: &[u8], bit_width: u8, n: usize, dst: &mut Vec<T>) -> Result<usize> {
    let w = bit_width as usize;
    if w > 32 {
        return Err(Error::corrupt(format!("BIT_PACKED: bit width {w} is over 32")));
    }
    let bytes = match n.checked_mul(w) {
        Some(bits) if bits.div_ceil(8) <= data.len() => bits.div_ceil(8),
        _ => {
            return Err(Error::corrupt(format!(
                "BIT_PACKED: {n} values of {w} bits need more than the {} bytes left",
                data.len()
            )))
        }
    };
    if w == 0 {
        dst.extend(std::iter::repeat_n(T::from_u32(0), n));
        return Ok(0);
    }
    dst.reserve(n);
    dst.extend((0..n).map(|i| {
        let bit = i * w;
        let byte = bit / 8;
        // A big-endian 64-bit window starting at `byte`, zero past the end.
        let window = match data.get(byte..byte + 8) {
            Some(b) => u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => {
                let mut b = [0u8; 8];
                let tail = data.get(byte..).unwrap_or_default();
                b[..tail.len().min(8)].copy_from_slice(&tail[..tail.len().min(8)]);
                u64::from_be_bytes(b)
            }
        };
        T::from_u32(((window << (bit % 8)) >> (64 - w)) as u32)
    }));
    Ok(bytes)
}

/// Encodes `values` with the RLE/bit-packing hybrid at `bit_width` (0..=32) bits, appending to
/// `out` (no length prefix): a one-call convenience over [`RleEncoder`], which a writer keeps
/// per column to reuse its buffer.
pub fn encode_rle_hybrid(values: &[u32], bit_width: u8, out: &mut Vec<u8>) {
    let mut e = RleEncoder::new(bit_width);
    e.put_slice(values);
    e.finish_into(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::TestRng;

    fn decode_all(data: &[u8], w: u8, n: usize) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        RleDecoder::new(data, w)?.decode_exact(n, &mut out)?;
        Ok(out)
    }

    /// The obvious reference decoder: bit at a time, run by run.
    fn reference(data: &[u8], w: usize, n: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut pos = 0;
        while out.len() < n {
            let h = read_uleb128(data, &mut pos, "test").unwrap();
            if h & 1 == 0 {
                let mut v = 0u32;
                for i in 0..w.div_ceil(8) {
                    v |= (data[pos + i] as u32) << (8 * i);
                }
                pos += w.div_ceil(8);
                out.extend(std::iter::repeat_n(v, (h >> 1) as usize));
            } else {
                let count = (h >> 1) as usize * 8;
                for i in 0..count {
                    let mut v = 0u32;
                    for b in 0..w {
                        let bit = i * w + b;
                        v |= (((data[pos + bit / 8] >> (bit % 8)) & 1) as u32) << b;
                    }
                    out.push(v);
                }
                pos += count * w / 8;
            }
        }
        out.truncate(n);
        out
    }

    #[test]
    fn hand_derived_runs() {
        // RLE run: header 10 << 1 = 0x14, value 1 in one byte.
        assert_eq!(decode_all(&[0x14, 0x01], 1, 10).unwrap(), vec![1; 10]);
        // Bit-packed run of one group (header 1 << 1 | 1 = 3) holding the spec's 0..=7 at width 3.
        assert_eq!(decode_all(&[0x03, 0x88, 0xC6, 0xFA], 3, 8).unwrap(), (0..8).collect::<Vec<_>>());
        // Width 9 stores the RLE value in two bytes: 300 = 0x012C; run of 200 = varint 0x90 0x03.
        assert_eq!(decode_all(&[0x90, 0x03, 0x2C, 0x01], 9, 200).unwrap(), vec![300; 200]);
        // Both kinds in sequence, read as runs.
        let data = [0x03, 0x88, 0xC6, 0xFA, 0x06, 0x05];
        let mut d = RleDecoder::new(&data, 3).unwrap();
        assert_eq!(d.next_run(5).unwrap(), Some(Run::Packed(&[0, 1, 2, 3, 4])));
        assert_eq!(d.next_run(100).unwrap(), Some(Run::Packed(&[5, 6, 7])));
        assert_eq!(d.next_run(100).unwrap(), Some(Run::Repeated { value: 5, len: 3 }));
        assert_eq!(d.next_run(100).unwrap(), None);
        assert_eq!(d.bytes_read(), data.len());
        // Width 0: no data at all still gives zeros.
        assert_eq!(decode_all(&[], 0, 5).unwrap(), vec![0; 5]);
    }

    #[test]
    fn errors() {
        assert!(RleDecoder::new(&[], 33).is_err());
        assert!(decode_all(&[0x14], 1, 10).is_err()); // RLE value missing
        assert!(decode_all(&[0x03], 3, 8).is_err()); // bit-packed bytes missing
        assert!(decode_all(&[0x14, 0x01], 1, 11).is_err()); // too few values
        assert!(decode_all(&[0xff; 11], 1, 1).is_err()); // varint over 64 bits
                                                         // A truncated last group keeps the values whose bits are present.
        assert_eq!(decode_all(&[0x03, 0x88], 3, 2).unwrap(), vec![0, 1]);
        let msg = decode_all(&[0x14, 0x01], 1, 11).unwrap_err().to_string();
        assert!(msg.contains("needed 11 values"), "{msg}");
    }

    #[test]
    fn length_prefix() {
        let data = [2, 0, 0, 0, 0x14, 0x01, 9];
        let (rle, rest) = split_length_prefixed(&data).unwrap();
        assert_eq!((rle, rest), (&[0x14, 0x01][..], &[9][..]));
        assert!(split_length_prefixed(&[3, 0, 0]).is_err());
        assert!(split_length_prefixed(&[3, 0, 0, 0, 1]).is_err());
    }

    #[test]
    fn bit_packed_msb_spec_example() {
        // Encodings.md, BIT_PACKED: 0..=7 at width 3 is 00000101 00111001 01110111.
        let data = [0b0000_0101, 0b0011_1001, 0b0111_0111, 0xAA];
        let mut out: Vec<i16> = Vec::new();
        assert_eq!(decode_bit_packed_msb(&data, 3, 8, &mut out).unwrap(), 3);
        assert_eq!(out, (0..8).collect::<Vec<i16>>());
        // 30 values of 2 bits are 8 bytes (the spec's own count).
        let mut out: Vec<u8> = Vec::new();
        assert_eq!(decode_bit_packed_msb(&[0xE4; 8], 2, 30, &mut out).unwrap(), 8);
        assert_eq!(&out[..4], &[3, 2, 1, 0]);
        assert!(decode_bit_packed_msb(&[0; 7], 2, 30, &mut out).is_err());
        assert!(decode_bit_packed_msb(&[0; 7], 33, 1, &mut out).is_err());
        // Wide values against a bit-at-a-time reference.
        let mut rng = TestRng::new(5);
        for w in 0..=32usize {
            let data = rng.bytes((37 * w).div_ceil(8));
            let mut got: Vec<u32> = Vec::new();
            decode_bit_packed_msb(&data, w as u8, 37, &mut got).unwrap();
            let want: Vec<u32> = (0..37)
                .map(|i| {
                    (0..w).fold(0u32, |v, b| {
                        let bit = i * w + b;
                        (v << 1) | ((data[bit / 8] >> (7 - bit % 8)) & 1) as u32
                    })
                })
                .collect();
            assert_eq!(got, want, "width {w}");
        }
    }

    #[test]
    fn round_trip_decode_runs_and_skips() {
        let mut rng = TestRng::new(3);
        for iter in 0..300 {
            let w = (iter % 33) as u8;
            let max = if w == 0 { 0 } else { u32::MAX >> (32 - w) };
            let n = rng.below(2000) as usize;
            let mut values = Vec::with_capacity(n);
            while values.len() < n {
                let v = (rng.next_u64() as u32) & max;
                let len = if rng.below(3) == 0 { rng.below(50) as usize } else { 1 };
                values.extend(std::iter::repeat_n(v, len.min(n - values.len())));
            }
            let mut data = Vec::new();
            encode_rle_hybrid(&values, w, &mut data);
            assert_eq!(reference(&data, w as usize, n), values);
            assert_eq!(decode_all(&data, w, n).unwrap(), values);
            // Runs, skips and decodes of random sizes interleaved.
            let mut d = RleDecoder::new(&data, w).unwrap();
            let mut got: Vec<Option<u32>> = Vec::new();
            while got.len() < n {
                let k = 1 + rng.below(300) as usize;
                match rng.below(3) {
                    0 => {
                        let s = d.skip(k).unwrap();
                        got.extend(std::iter::repeat_n(None, s));
                    }
                    1 => match d.next_run(k).unwrap() {
                        Some(Run::Repeated { value, len }) => got.extend(std::iter::repeat_n(Some(value), len)),
                        Some(Run::Packed(v)) => got.extend(v.iter().map(|&x| Some(x))),
                        None => break,
                    },
                    _ => {
                        let mut out: Vec<u32> = Vec::new();
                        d.decode(k, &mut out).unwrap();
                        got.extend(out.into_iter().map(Some));
                    }
                }
            }
            for (i, g) in got.iter().take(n).enumerate() {
                if let Some(g) = g {
                    assert_eq!(*g, values[i], "width {w} value {i}");
                }
            }
        }
    }

    /// The bits `decode_bits` appended, as values.
    fn bits_of(b: &BooleanBufferBuilder) -> Vec<u32> {
        (0..b.len()).map(|i| u32::from(b.get_bit(i))).collect()
    }

    #[test]
    fn decode_bits_hand_derived() {
        // RLE run of 10 ones, a bit-packed group 0,1,0,1,1,0,0,1 (0b1001_1010), RLE run of 3
        // zeros.
        let data = [0x14, 0x01, 0x03, 0b1001_1010, 0x06, 0x00];
        let want = [vec![1; 10], vec![0, 1, 0, 1, 1, 0, 0, 1], vec![0; 3]].concat();
        let mut b = BooleanBufferBuilder::new(0);
        assert_eq!(RleDecoder::new(&data, 1).unwrap().decode_bits(21, &mut b).unwrap(), 21);
        assert_eq!(bits_of(&b), want);
        // Asking for more stops where the data ends.
        let mut b = BooleanBufferBuilder::new(0);
        assert_eq!(RleDecoder::new(&data, 1).unwrap().decode_bits(100, &mut b).unwrap(), 21);
        // The last group padded: 2 groups declared, 11 values wanted; the padding bits are
        // not values.
        let data = [0x05, 0xFF, 0b1111_1101];
        let mut b = BooleanBufferBuilder::new(0);
        assert_eq!(RleDecoder::new(&data, 1).unwrap().decode_bits(11, &mut b).unwrap(), 11);
        assert_eq!(bits_of(&b), [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]);
        // Only width 1 decodes to bits.
        assert!(RleDecoder::new(&data, 2).unwrap().decode_bits(1, &mut b).is_err());
        // An RLE value wider than the bit width is corrupt, for bits and values alike.
        let mut d = RleDecoder::new(&[0x14, 0x02], 1).unwrap();
        let msg = d.decode_bits(10, &mut b).unwrap_err().to_string();
        assert!(msg.contains("does not fit in 1 bits"), "{msg}");
        assert!(decode_all(&[0x14, 0x08], 3, 10).is_err());
        assert_eq!(decode_all(&[0x14, 0x07], 3, 10).unwrap(), vec![7; 10]);
    }

    /// Bits in batches of any size, across run, group and buffer boundaries, interleaved with
    /// skips and value decodes, against the bit-at-a-time reference.
    #[test]
    fn decode_bits_in_batches_matches_the_reference() {
        let mut rng = TestRng::new(9);
        for iter in 0..400 {
            let n = 1 + rng.below(3000) as usize;
            let mut values = Vec::with_capacity(n);
            while values.len() < n {
                let v = rng.below(2) as u32;
                let len = match rng.below(4) {
                    0 => rng.below(200) as usize,
                    1 => rng.below(9) as usize,
                    _ => 1,
                };
                values.extend(std::iter::repeat_n(v, len.min(n - values.len())));
            }
            let mut data = Vec::new();
            encode_rle_hybrid(&values, 1, &mut data);
            assert_eq!(reference(&data, 1, n), values);
            // The one-call form, for a prefix ending anywhere and for all of it.
            let cut = rng.below(n as u64 + 1) as usize;
            for m in [cut, n] {
                let mut b = BooleanBufferBuilder::new(0);
                b.append_n(m % 5, false);
                let (got, ones) = decode_bits_counted(&data, m, &mut b).unwrap();
                assert_eq!(got, m);
                assert_eq!(bits_of(&b)[m % 5..], values[..m], "iter {iter}, {m} bits");
                assert_eq!(ones, values[..m].iter().filter(|&&v| v == 1).count(), "iter {iter}, {m} bits");
            }
            let mut d = RleDecoder::new(&data, 1).unwrap();
            let mut at = 0;
            while at < n {
                let k = (1 + rng.below(if iter % 2 == 0 { 20 } else { 700 }) as usize).min(n - at);
                match rng.below(4) {
                    0 => assert_eq!(d.skip(k).unwrap(), k),
                    1 => {
                        let mut out: Vec<u32> = Vec::new();
                        d.decode_exact(k, &mut out).unwrap();
                        assert_eq!(out, values[at..at + k], "iter {iter} at {at}");
                    }
                    2 => {
                        let mut b = BooleanBufferBuilder::new(0);
                        let (got, ones) = d.decode_bits_counted(k, &mut b).unwrap();
                        assert_eq!(got, k);
                        assert_eq!(bits_of(&b), values[at..at + k], "iter {iter} at {at}");
                        assert_eq!(ones, values[at..at + k].iter().filter(|&&v| v == 1).count());
                    }
                    _ => {
                        // Into a builder that already holds bits not on a byte boundary.
                        let mut b = BooleanBufferBuilder::new(0);
                        b.append_n(at % 13, true);
                        assert_eq!(d.decode_bits(k, &mut b).unwrap(), k);
                        assert_eq!(bits_of(&b)[at % 13..], values[at..at + k], "iter {iter} at {at}");
                    }
                }
                at += k;
            }
            // Past the end only the padding of the last bit-packed group is left: zeros.
            let mut b = BooleanBufferBuilder::new(0);
            let pad = d.decode_bits(100, &mut b).unwrap();
            assert!(pad < 8 && bits_of(&b).iter().all(|&v| v == 0), "past the end: {pad}");
        }
    }

    /// Truncated or random bytes give a short count or an error, never a panic, and never
    /// more bits than asked.
    #[test]
    fn decode_bits_on_truncated_input() {
        let mut rng = TestRng::new(10);
        for iter in 0..2000 {
            let data = if iter % 2 == 0 {
                let len = rng.below(40) as usize;
                rng.bytes(len)
            } else {
                let values: Vec<u32> = (0..rng.below(500)).map(|_| rng.below(2) as u32).collect();
                let mut d = Vec::new();
                encode_rle_hybrid(&values, 1, &mut d);
                d.truncate(rng.below(d.len() as u64 + 1) as usize);
                d
            };
            let mut b = BooleanBufferBuilder::new(0);
            let k = rng.below(600) as usize;
            if let Ok((got, ones)) = decode_bits_counted(&data, k, &mut b) {
                assert!(got <= k && b.len() == got && ones <= got);
            }
            let mut d = RleDecoder::new(&data, 1).unwrap();
            let mut b = BooleanBufferBuilder::new(0);
            for _ in 0..6 {
                let k = rng.below(300) as usize;
                let before = b.len();
                match d.decode_bits(k, &mut b) {
                    Ok(got) => assert!(got <= k && b.len() == before + got),
                    Err(_) => break,
                }
            }
        }
    }

    #[test]
    fn fuzz_random_and_truncated_input_never_panics() {
        let mut rng = TestRng::new(4);
        for iter in 0..3000 {
            let w = rng.below(36) as u8;
            let data = if iter % 2 == 0 {
                let len = rng.below(64) as usize;
                rng.bytes(len)
            } else {
                let values: Vec<u32> = (0..rng.below(300)).map(|_| rng.below(5) as u32).collect();
                let mut d = Vec::new();
                encode_rle_hybrid(&values, w.min(32), &mut d);
                d.truncate(rng.below(d.len() as u64 + 1) as usize);
                d
            };
            let Ok(mut d) = RleDecoder::new(&data, w) else { continue };
            for _ in 0..8 {
                let k = rng.below(1000) as usize;
                let mut out: Vec<i16> = Vec::new();
                let r = match rng.below(3) {
                    0 => d.skip(k).map(|_| ()),
                    1 => d.next_run(k).map(|_| ()),
                    _ => d.decode(k, &mut out).map(|_| ()),
                };
                if r.is_err() {
                    break;
                }
            }
            let mut out: Vec<u8> = Vec::new();
            let _ = decode_bit_packed_msb(&data, w, rng.below(100) as usize, &mut out);
            let _ = split_length_prefixed(&data);
        }
    }
}
