//! [`RleEncoder`]: the write side of the RLE/bit-packing hybrid (see [`rle`](super::rle)).
//!
//! Values are collected in groups of 8, the unit of a bit-packed run. A group of 8 equal values
//! opens an RLE run, which then grows by counting (a run of a million values costs one
//! addition when given with [`put_run`](RleEncoder::put_run)); any other group is bit packed
//! into the open bit-packed run. Runs can only start at a group boundary, because a bit-packed
//! run holds whole groups and padding is allowed only at the very end of the data.
//!
//! Whether a run is written as an RLE run is decided when it ends: an RLE run costs a header
//! and the value, and it interrupts the bit-packed run around it (whose continuation needs a
//! header of its own). At bit width 1 a run of 8 or 16 values is smaller bit packed (1 or 2
//! bytes against 3), which matters for definition levels with scattered nulls, where about
//! half of all groups are all valid at 10% nulls. A run too short to pay for its header is
//! packed with its neighbours instead.

use super::bit_pack::{pack32, pack8, write_uleb128};

/// Groups in one bit-packed run: the most a one-byte header (`groups << 1 | 1`) can count, so
/// the header is written before its groups and patched as they come.
const MAX_GROUPS: usize = 63;

/// An incremental encoder of the RLE/bit-packing hybrid with a fixed bit width (0..=32), the
/// encoding of definition and repetition levels, dictionary indexes and RLE booleans.
///
/// Put values with [`put`](Self::put), [`put_run`](Self::put_run),
/// [`put_slice`](Self::put_slice) or (at bit width 1) [`put_bits`](Self::put_bits), in any
/// mix; [`finish_into`](Self::finish_into) appends the encoded page data and resets the
/// encoder for the next page, keeping its buffer. Values must fit in the bit width; bits above
/// it are dropped.
#[derive(Debug, Clone)]
pub struct RleEncoder {
    bit_width: u8,
    /// Runs of at least this many values are written as RLE runs (see the module doc).
    min_run: usize,
    /// Finished runs, then the open bit-packed run's groups.
    data: Vec<u8>,
    /// Where the open bit-packed run's header byte is in `data`, and how many groups it holds
    /// (0: no run is open).
    packed_header: usize,
    packed_groups: usize,
    /// The first `pending_len` (< 8) values of the group being collected.
    pending: [u32; 8],
    pending_len: usize,
    /// The open run of equal values, `run_len` (0, or at least 8) times `run_value`, which
    /// follows everything in `data`. While a run is open `pending` is empty.
    run_value: u32,
    run_len: usize,
    /// Values put since the last finish.
    len: usize,
}

impl RleEncoder {
    /// An encoder of values of `bit_width` bits.
    ///
    /// # Panics
    ///
    /// If `bit_width` is over 32.
    pub fn new(bit_width: u8) -> Self {
        assert!(bit_width <= 32, "RLE/bit-packed: bit width {bit_width} is over 32");
        let w = bit_width as usize;
        // The smallest number of whole groups whose packed bytes (w each) cost at least an RLE
        // run: a one-byte header, the value, and the header that reopens bit packing after it.
        let groups = if w == 0 { 1 } else { (2 + w.div_ceil(8)).div_ceil(w).max(1) };
        Self {
            bit_width,
            min_run: 8 * groups,
            data: Vec::new(),
            packed_header: 0,
            packed_groups: 0,
            pending: [0; 8],
            pending_len: 0,
            run_value: 0,
            run_len: 0,
            len: 0,
        }
    }

    /// The bit width of the values.
    pub fn bit_width(&self) -> u8 {
        self.bit_width
    }

    /// The number of values put since the last finish.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if no value was put since the last finish.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// An upper bound of the bytes [`finish_into`](Self::finish_into) would append now, for
    /// deciding when a page is full.
    pub fn encoded_len_estimate(&self) -> usize {
        let w = self.bit_width as usize;
        // An open run: its RLE header and value, or (if short) up to 2 packed groups; then at
        // most one more group, with a header.
        let run = if self.run_len > 0 { 15 } else { 0 };
        let group = if self.run_len > 0 || self.pending_len > 0 { 1 + w } else { 0 };
        self.data.len() + run + group
    }

    /// Appends one value.
    #[inline]
    pub fn put(&mut self, v: u32) {
        self.len += 1;
        self.put_one(v);
    }

    /// Appends `n` copies of `v`. Beyond completing the pending group, this takes constant
    /// time however large `n` is.
    pub fn put_run(&mut self, v: u32, n: usize) {
        self.len += n;
        self.put_repeated(v, n);
    }

    /// Appends `values`: runs are found by comparing groups of values, and other groups are
    /// packed 32 values at a time straight from the slice. Writes the same bytes as putting
    /// the values one at a time.
    pub fn put_slice(&mut self, values: &[u32]) {
        self.len += values.len();
        let mut rest = values;
        while !rest.is_empty() {
            if self.run_len > 0 {
                let k = run_length(rest, self.run_value);
                self.run_len += k;
                rest = rest.get(k..).unwrap_or_default();
                if rest.is_empty() {
                    break;
                }
                self.end_run();
            }
            if self.pending_len > 0 {
                let k = (8 - self.pending_len).min(rest.len());
                let (now, later) = rest.split_at(k);
                self.pending[self.pending_len..self.pending_len + k].copy_from_slice(now);
                self.pending_len += k;
                rest = later;
                if self.pending_len == 8 {
                    self.end_group();
                }
                continue;
            }
            // At a group boundary with nothing pending: whole groups come from `rest` itself.
            let literal = self.literal_groups(rest);
            if literal > 0 {
                let (groups, later) = rest.split_at(8 * literal);
                self.pack_groups(groups);
                rest = later;
            } else if let Some(group) = rest.first_chunk::<8>() {
                self.run_value = group[0];
                self.run_len = 8;
                rest = &rest[8..];
            } else {
                self.pending[..rest.len()].copy_from_slice(rest);
                self.pending_len = rest.len();
                break;
            }
        }
    }

    /// Appends `len` values of one bit each from the LSB-first `bitmap`, starting at bit
    /// `offset`: an Arrow validity bitmap becomes the definition levels of a flat optional
    /// column. All-ones and all-zeros stretches become RLE runs (found 64 bits at a time) if
    /// they are long enough to pay for one; the rest is copied as bit-packed bytes, shifted
    /// when `offset` is not a multiple of 8. Runs end at a byte of the bitmap, so the bytes
    /// may differ from [`put`](Self::put)'s, which ends them at the first differing value.
    ///
    /// # Panics
    ///
    /// If the bit width is not 1, or `bitmap` is shorter than `offset + len` bits.
    pub fn put_bits(&mut self, bitmap: &[u8], offset: usize, len: usize) {
        assert_eq!(self.bit_width, 1, "RLE/bit-packed: put_bits needs bit width 1");
        let end = offset.checked_add(len).filter(|e| e.div_ceil(8) <= bitmap.len());
        let Some(end) = end else {
            panic!("bits {offset}..+{len} are past a bitmap of {} bytes", bitmap.len());
        };
        self.len += len;
        let bit = |i: usize| u32::from((bitmap[i / 8] >> (i % 8)) & 1);
        let mut pos = offset;
        loop {
            while self.pending_len > 0 && pos < end {
                self.put_one(bit(pos));
                pos += 1;
            }
            let groups = (end - pos) / 8;
            if groups == 0 {
                break;
            }
            let bits = GroupBytes { bitmap, first: pos / 8, shift: pos % 8 };
            let b = bits.byte(0);
            let uniform = b == 0 || b == 0xFF;
            if self.run_len > 0 && !uniform {
                self.end_run();
                if self.pending_len > 0 {
                    continue; // a short run was packed and left values pending
                }
            }
            let literal = if self.run_len > 0 { 0 } else { bits.literal_len(groups, self.min_run / 8) };
            if literal > 0 {
                self.pack_bitmap(&bits, literal);
                pos += 8 * literal;
            } else {
                // A stretch of equal bits that extends the open run or is long enough for one.
                let e = bits.uniform_len(0, b, groups);
                self.put_repeated(u32::from(b & 1), 8 * e);
                pos += 8 * e;
            }
        }
        while pos < end {
            self.put_one(bit(pos));
            pos += 1;
        }
    }

    /// Appends the encoded data (without a length prefix) to `out`, and resets the encoder
    /// for the next page, keeping its buffer.
    pub fn finish_into(&mut self, out: &mut Vec<u8>) {
        self.flush();
        out.extend_from_slice(&self.data);
        self.reset();
    }

    /// Like [`finish_into`](Self::finish_into), with the 4-byte little-endian length before
    /// the data that data page v1 levels and RLE booleans have.
    pub fn finish_length_prefixed_into(&mut self, out: &mut Vec<u8>) {
        self.flush();
        out.reserve(4 + self.data.len());
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.data);
        self.reset();
    }

    /// Writes the open run and the pending values (the last group padded with zeros).
    fn flush(&mut self) {
        if self.run_len > 0 {
            self.end_run();
        }
        if self.pending_len > 0 {
            let mut group = [0u32; 8];
            group[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
            self.pack_groups(&group);
            self.pending_len = 0;
        }
    }

    fn reset(&mut self) {
        self.data.clear();
        self.packed_groups = 0;
        self.pending_len = 0;
        self.run_len = 0;
        self.len = 0;
    }

    #[inline]
    fn put_one(&mut self, v: u32) {
        if self.run_len > 0 {
            if v == self.run_value {
                self.run_len += 1;
                return;
            }
            self.end_run();
        }
        // end_run leaves fewer than 8 pending, so there is room.
        self.pending[self.pending_len] = v;
        self.pending_len += 1;
        if self.pending_len == 8 {
            self.end_group();
        }
    }

    fn put_repeated(&mut self, v: u32, mut n: usize) {
        if self.run_len > 0 {
            if v == self.run_value {
                self.run_len += n;
                return;
            }
            self.end_run();
        }
        // A run starts only at a group boundary: complete the pending group first.
        if self.pending_len > 0 {
            let k = (8 - self.pending_len).min(n);
            self.pending[self.pending_len..self.pending_len + k].fill(v);
            self.pending_len += k;
            n -= k;
            if self.pending_len < 8 {
                return;
            }
            self.end_group();
            if self.run_len > 0 {
                // The group was all `v`.
                self.run_len += n;
                return;
            }
        }
        if n >= 8 {
            self.run_value = v;
            self.run_len = n;
        } else {
            self.pending[..n].fill(v);
            self.pending_len = n;
        }
    }

    /// Handles a complete pending group: a run if its values are equal, else packed.
    fn end_group(&mut self) {
        let group = self.pending;
        self.pending_len = 0;
        if is_uniform(&group) {
            self.run_value = group[0];
            self.run_len = 8;
        } else {
            self.pack_groups(&group);
        }
    }

    /// Writes the open run: as an RLE run if it is long enough to pay for its header, else as
    /// packed groups continuing the open bit-packed run, its last `run_len % 8` values left
    /// pending.
    fn end_run(&mut self) {
        let (v, n) = (self.run_value, self.run_len);
        self.run_len = 0;
        if n >= self.min_run {
            self.packed_groups = 0; // the bit-packed run before it is complete
            write_uleb128((n as u64) << 1, &mut self.data);
            let w = self.bit_width as usize;
            let bytes = (v & mask(w)).to_le_bytes();
            self.data.extend_from_slice(&bytes[..w.div_ceil(8)]);
        } else {
            // min_run is at most 3 groups, so one call packs them.
            let same = [v; 32];
            self.pack_groups(&same[..n / 8 * 8]);
            self.pending[..n % 8].fill(v);
            self.pending_len = n % 8;
        }
    }

    /// Room for `want` more groups in the open bit-packed run (opening one if there is none or
    /// it is full); returns how many fit.
    #[inline]
    fn open_packed_run(&mut self, want: usize) -> usize {
        if self.packed_groups == 0 || self.packed_groups == MAX_GROUPS {
            self.packed_header = self.data.len();
            self.data.push(0); // patched by close_groups
            self.packed_groups = 0;
        }
        want.min(MAX_GROUPS - self.packed_groups)
    }

    /// Counts `k` more groups written into the open bit-packed run.
    #[inline]
    fn close_groups(&mut self, k: usize) {
        self.packed_groups += k;
        if let Some(h) = self.data.get_mut(self.packed_header) {
            *h = ((self.packed_groups << 1) | 1) as u8;
        }
    }

    /// Packs `values` (whole groups of 8) into bit-packed runs, 4 groups per [`pack32`] where
    /// the run has room for them.
    fn pack_groups(&mut self, mut values: &[u32]) {
        let w = self.bit_width as usize;
        while !values.is_empty() {
            let k = self.open_packed_run((values.len() / 8).min(4));
            let (now, rest) = values.split_at(8 * k);
            if let Ok(four) = <&[u32; 32]>::try_from(now) {
                pack32(four, w, &mut self.data);
            } else {
                for group in now.as_chunks::<8>().0 {
                    pack8(group, w, &mut self.data);
                }
            }
            self.close_groups(k);
            values = rest;
        }
    }

    /// How many whole groups at the start of `values` to pack: groups that are not all equal,
    /// and stretches of equal groups too short to pay for an RLE run. Stops before a stretch
    /// that is long enough, or that reaches the last whole group (the next call may make it
    /// long enough). Packing these directly writes what [`put`](Self::put) would.
    fn literal_groups(&self, values: &[u32]) -> usize {
        let min_groups = self.min_run / 8;
        let groups = values.as_chunks::<8>().0;
        let mut g = 0;
        while let Some(group) = groups.get(g) {
            if !is_uniform(group) {
                g += 1;
                continue;
            }
            let same = |x: &&[u32; 8]| is_uniform(*x) && x[0] == group[0];
            let e = g + 1 + groups[g + 1..].iter().take_while(same).count();
            if e - g >= min_groups || e == groups.len() {
                break;
            }
            g = e;
        }
        g
    }

    /// Copies `groups` group bytes of `bits` as bit-packed groups (at bit width 1 a group is
    /// one byte, LSB first, exactly as in the bitmap).
    fn pack_bitmap(&mut self, bits: &GroupBytes<'_>, groups: usize) {
        let mut g = 0;
        while g < groups {
            let k = self.open_packed_run(groups - g);
            let at = bits.first + g;
            if bits.shift == 0 {
                self.data.extend_from_slice(&bits.bitmap[at..at + k]);
            } else {
                // Group byte i spans bitmap bytes i and i + 1, both inside the bitmap.
                let (r, l) = (bits.shift, 8 - bits.shift);
                let src = &bits.bitmap[at..at + k + 1];
                self.data.extend(src.windows(2).map(|p| (p[0] >> r) | (p[1] << l)));
            }
            self.close_groups(k);
            g += k;
        }
    }
}

/// The mask of `w`-bit values.
#[inline]
fn mask(w: usize) -> u32 {
    if w == 0 {
        0
    } else {
        u32::MAX >> (32 - w)
    }
}

/// True if all values of `group` are equal (one OR over the whole group, which vectorizes).
#[inline]
fn is_uniform(group: &[u32]) -> bool {
    let first = group.first().copied().unwrap_or(0);
    group.iter().fold(0, |acc, &x| acc | (x ^ first)) == 0
}

/// How many values at the start of `values` equal `v`, compared 16 at a time.
#[inline]
fn run_length(values: &[u32], v: u32) -> usize {
    let whole = values.chunks_exact(16).take_while(|c| c.iter().fold(0, |a, &x| a | (x ^ v)) == 0);
    let n = 16 * whole.count();
    n + values[n..].iter().take_while(|&&x| x == v).count()
}

/// Groups of 8 bits of a bitmap, starting at bit `shift` of byte `first`. Group `g` as a byte
/// (its bits LSB first) is exactly its bit-packed form at width 1.
struct GroupBytes<'a> {
    bitmap: &'a [u8],
    first: usize,
    shift: usize,
}

impl GroupBytes<'_> {
    /// Group `g`. The caller knows its bits are inside the bitmap; with a shift they span two
    /// bytes, both then inside it.
    #[inline]
    fn byte(&self, g: usize) -> u8 {
        let i = self.first + g;
        match self.shift {
            0 => self.bitmap[i],
            r => (self.bitmap[i] >> r) | (self.bitmap[i + 1] << (8 - r)),
        }
    }

    /// Groups `g .. g + 8` as one word (the caller knows they are inside the bitmap).
    #[inline]
    fn word(&self, g: usize) -> u64 {
        let i = self.first + g;
        let lo = self.bitmap[i..i + 8].try_into().map_or(0, u64::from_le_bytes);
        match self.shift {
            0 => lo,
            r => (lo >> r) | (u64::from(self.bitmap[i + 8]) << (64 - r)),
        }
    }

    /// How many groups from `g` on (before `groups`) equal `b`, which group `g` does: 8 at a
    /// time, then one at a time.
    fn uniform_len(&self, g: usize, b: u8, groups: usize) -> usize {
        let word = u64::from_ne_bytes([b; 8]);
        let mut e = g + 1;
        while e + 8 <= groups && self.word(e) == word {
            e += 8;
        }
        while e < groups && self.byte(e) == b {
            e += 1;
        }
        e - g
    }

    /// [`RleEncoder::literal_groups`] over the first `groups` groups: mixed groups and stretches
    /// of equal groups shorter than `min_groups`, up to a stretch that is long enough or
    /// reaches the last group.
    fn literal_len(&self, groups: usize, min_groups: usize) -> usize {
        let mut g = 0;
        if min_groups == 3 {
            // Bit width 1: look for 3 equal all-0 or all-1 bytes in a row 8 bytes at a time,
            // stepping by 6 so that every start is seen with the 2 bytes after it. Byte by
            // byte the branch on each byte mispredicts on scattered nulls (3x slower).
            while g + 8 <= groups {
                let x = self.word(g);
                let (zeros, ones) = (zero_bytes(x), zero_bytes(!x));
                let three = (zeros & (zeros >> 8) & (zeros >> 16)) | (ones & (ones >> 8) & (ones >> 16));
                let three = three & 0x0000_8080_8080_8080;
                if three != 0 {
                    return g + (three.trailing_zeros() / 8) as usize;
                }
                g += 6;
            }
        }
        while g < groups {
            let b = self.byte(g);
            if b != 0 && b != 0xFF {
                g += 1;
                continue;
            }
            let e = g + self.uniform_len(g, b, groups);
            if e - g >= min_groups || e == groups {
                break;
            }
            g = e;
        }
        g
    }
}

/// The top bit of each byte of `x` that is 0 (exact: no carry crosses a byte).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    !(((x & LOW7) + LOW7) | x | LOW7)
}

#[cfg(test)]
#[path = "rle_encoder_tests.rs"]
mod tests;
