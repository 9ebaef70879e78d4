//! Pieces of RLE/bit-packed hybrid data for a consumer that reads values straight out of
//! their bits: [`RleDecoder::next_piece`] hands out repeated runs as they are and whole groups
//! of bit-packed runs as their bytes, so nothing is unpacked (a filter's mask looks dictionary
//! indexes up from the groups' bits). The same decoder and header parser as every other read
//! of the hybrid (`rle.rs`), only the way values leave it differs.

use super::RleDecoder;
use crate::error::Result;

/// One piece of decoded data handed out by [`RleDecoder::next_piece`]: a [`Run`], or whole
/// groups of a bit-packed run as they lie in the data, for a consumer that reads the values
/// straight out of the bits (and so writes no value anywhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'r> {
    /// `value` repeated `len` times.
    Repeated {
        /// The repeated value.
        value: u32,
        /// How many times (at least 1).
        len: usize,
    },
    /// Values already unpacked (what is left of a group a read stopped inside).
    Unpacked(&'r [u32]),
    /// `bytes.len() / bit_width` whole groups of 8 values (at least one), `bit_width` bytes
    /// each, packed least significant bit first.
    Groups(&'r [u8]),
}

impl RleDecoder<'_> {
    /// The next piece of at most `max` values (`max` > 0), or `None` when the data ended (or
    /// `max` is 0): as [`next_run`](Self::next_run), but where the bit width is at most
    /// `group_width`, whole groups of a bit-packed run come out as their bytes
    /// ([`Piece::Groups`]), not unpacked; only a group that `max` or the run's end cuts is
    /// unpacked (the rest of it comes out next as [`Piece::Unpacked`]).
    #[inline]
    pub fn next_piece(&mut self, max: usize, group_width: usize) -> Result<Option<Piece<'_>>> {
        if max == 0 {
            return Ok(None);
        }
        loop {
            if self.buf_pos < self.buf_len {
                let k = (self.buf_len - self.buf_pos).min(max);
                let start = self.buf_pos;
                self.buf_pos += k;
                return Ok(self.buf.as_deref().and_then(|b| b.get(start..start + k)).map(Piece::Unpacked));
            }
            if self.rle_left > 0 {
                let len = self.rle_left.min(max);
                self.rle_left -= len;
                return Ok(Some(Piece::Repeated { value: self.rle_value, len }));
            }
            if self.packed_left > 0 {
                let groups = self.packed_left.min(max) / 8;
                let w = self.bit_width;
                // The run's declared values fit its bytes (see `read_header`), so whole
                // groups are there; a width of 0 has no bytes to hand out.
                let bytes = self.data.get(self.pos..self.pos + groups * w).unwrap_or_default();
                if w > group_width {
                    self.fill_buf();
                    continue;
                }
                if groups == 0 || w == 0 || bytes.len() != groups * w {
                    self.fill_buf_upto(max.min(self.packed_left));
                    continue;
                }
                self.packed_left -= groups * 8;
                self.pos = if self.packed_left == 0 { self.packed_end } else { self.pos + groups * w };
                return Ok(Some(Piece::Groups(bytes)));
            }
            if !self.next_header()? {
                return Ok(None);
            }
        }
    }

}
