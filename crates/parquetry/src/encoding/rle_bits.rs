//! Width-1 hybrid data (a flat optional column's definition levels, RLE booleans) appended
//! to a bitmap a whole run at a time, counting the 1 bits (the non-null values) as it goes.

use arrow_buffer::BooleanBufferBuilder;

use super::{read_header, Header};
use crate::error::Result;

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
pub(super) struct BitRuns {
    pub(super) done: usize,
    pub(super) ones: usize,
}

impl BitRuns {
    /// Appends whole runs from the header at `*pos` while fewer than `n` bits are done and
    /// the data lasts. Returns the run the `n`th bit ends inside, if any: a repeated run
    /// with what is left of it after the bits appended, or a bit-packed run not yet appended
    /// (`*pos` at its first byte).
    #[inline(always)]
    pub(super) fn append<const COUNT: bool>(
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

/// The 1 bits among the `n` bits (LSB first) from byte `pos` of `data`, a word at a time:
/// words are read past the run's end where the data goes on (and masked), so a short run costs
/// one load, not a copy.
#[inline]
pub(super) fn count_ones(data: &[u8], pos: usize, n: usize) -> usize {
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
