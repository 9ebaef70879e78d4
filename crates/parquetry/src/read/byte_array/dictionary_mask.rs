//! `Boolean` out of a BYTE_ARRAY column through a [`DictionaryMask`]: the mask runs once per
//! dictionary value, and each row's bit is looked up from its dictionary index as the index
//! runs come out of the page, without building keys.
//!
//! A filter reads the columns only its test needs this way (`count(*) WHERE l_shipmode =
//! 'AIR'`): building `Int32` keys, spreading them over null rows and looking them up again
//! took about a third of that query. Here an RLE run is one `append_n` of its value's bit,
//! and a bit-packed run's groups of eight indexes of up to 4 bits are looked up straight
//! from their bytes (AVX2); wider ones from the decoder's small unpacking buffer, 64 indexes
//! to a word. An index past the dictionary is looked up as false, and the read is then an
//! error (the largest index is kept on the way, not checked in a pass of its own). Null rows get a false bit (the caller has the null buffer). A page that is not
//! dictionary-encoded (a writer's fallback) has its values decoded and masked one by one.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};

use super::arrays::{offsets_array, Kind};
use super::dict::Dict;
use super::utf8::check_utf8_offsets;
use super::{check_null_rows, check_room, no_dictionary, page_rows};
use crate::encoding::rle::Piece;
use crate::encoding::OffsetsSink;
use crate::error::{Error, Result};
use crate::read::options::{DictionaryMask, MaskedLeaf};
use crate::read::spread::spread_bits;
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// The decoder for a leaf read through `leaf`'s mask.
pub(crate) fn mask_decoder(leaf: &MaskedLeaf) -> Box<dyn ValueDecoder> {
    Box::new(MaskDecoder {
        utf8: leaf.utf8,
        mask: Arc::clone(&leaf.mask),
        table: None,
        bits: BooleanBufferBuilder::new(0),
        dense: BooleanBufferBuilder::new(0),
    })
}

/// Decodes the pages of one column chunk into the mask's bit per row.
struct MaskDecoder {
    utf8: bool,
    mask: Arc<dyn DictionaryMask>,
    /// The mask on the values of the current chunk's dictionary.
    table: Option<Table>,
    /// One bit per row appended since the last `finish`.
    bits: BooleanBufferBuilder,
    /// A page's bits for its non-null values, when it has nulls.
    dense: BooleanBufferBuilder,
}

/// The mask's result on each value of a dictionary.
struct Table {
    /// 0 or 1 per value, then a 0 that every index past the dictionary is looked up as
    /// (such an index is an error, found after the lookups from the largest index seen).
    bytes: Vec<u8>,
    /// The same as bits (bit `i`: value `i`), when there are fewer than 64 values: a lookup
    /// is then a shift (by at most 63, which is past them), with no load.
    word: Option<u64>,
    /// Whether the word fits 32 bits and the processor has AVX2: eight lookups are then one
    /// variable shift (a shift by 32 or more gives 0).
    avx2: bool,
    /// The results as eight 32-bit words, when there are at most 256 values and the
    /// processor has AVX2: eight lookups are then a word picked per lane and a shift.
    wide: Option<[u32; 8]>,
}

/// The widest dictionary indexes read straight out of their bit-packed groups with one
/// 32-bit load (a group of eight fits it); up to [`WIDE_GROUP_WIDTH`] each index takes its
/// two bytes from an 8-byte load, and wider ones are unpacked first.
const GROUP_WIDTH: usize = 4;

/// The widest dictionary indexes read straight out of their groups at all (a group then
/// fits 8 bytes, and a dictionary of up to 256 values the 8 words of [`Table::wide`]).
const WIDE_GROUP_WIDTH: usize = 8;

impl Table {
    fn new(on: &[bool]) -> Table {
        let word = (on.len() < 64).then(|| on.iter().enumerate().fold(0u64, |w, (i, &b)| w | (u64::from(b) << i)));
        let mut bytes: Vec<u8> = on.iter().map(|&b| u8::from(b)).collect();
        bytes.push(0);
        #[cfg(target_arch = "x86_64")]
        let avx2 = on.len() <= 32 && std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        #[cfg(target_arch = "x86_64")]
        let wide = (on.len() <= 256 && std::is_x86_feature_detected!("avx2")).then(|| {
            let mut words = [0u32; 8];
            for (i, &b) in on.iter().enumerate() {
                words[i / 32] |= u32::from(b) << (i % 32);
            }
            words
        });
        #[cfg(not(target_arch = "x86_64"))]
        let wide = None;
        Table { bytes, word, avx2, wide }
    }

    /// The number of dictionary values.
    fn len(&self) -> usize {
        self.bytes.len() - 1
    }

    /// The widest indexes [`append`](Self::append) takes as bit-packed groups.
    fn group_width(&self) -> usize {
        match (self.wide.is_some(), self.avx2) {
            (true, _) => WIDE_GROUP_WIDTH,
            (false, true) => GROUP_WIDTH,
            (false, false) => 0,
        }
    }

    /// The bit of index `i`: false past the dictionary.
    #[inline]
    fn bit(&self, i: u32) -> bool {
        self.bytes[(i as usize).min(self.bytes.len() - 1)] != 0
    }

    /// Appends the bits of a piece of indexes to `dst`; raises `max` to its largest index.
    #[inline]
    fn append(&self, piece: Piece<'_>, width: usize, dst: &mut BooleanBufferBuilder, max: &mut u32) {
        match piece {
            Piece::Repeated { value, len } => {
                *max = (*max).max(value);
                dst.append_n(len, self.bit(value));
            }
            Piece::Unpacked(indexes) => {
                // At most 256 indexes: their bits gathered on the stack, appended at once.
                let mut out = [0u8; 32];
                for (chunk, bytes) in indexes.chunks(64).zip(out.chunks_exact_mut(8)) {
                    let (word, top) = self.word_of(chunk);
                    *max = (*max).max(top);
                    bytes.copy_from_slice(&word.to_le_bytes());
                }
                dst.append_packed_range(0..indexes.len(), &out);
            }
            Piece::Groups(bytes) => {
                #[cfg(target_arch = "x86_64")]
                if let (true, Some(word), true) = (self.avx2, self.word, width <= GROUP_WIDTH) {
                    // SAFETY: `avx2` is set only where the processor has AVX2; the word
                    // fits 32 bits then.
                    let top = unsafe { groups_avx2(bytes, width, word as u32, dst) };
                    *max = (*max).max(top);
                    return;
                }
                #[cfg(target_arch = "x86_64")]
                if let Some(wide) = &self.wide {
                    // SAFETY: `wide` is set only where the processor has AVX2; groups are
                    // asked for up to WIDE_GROUP_WIDTH (see `group_width`).
                    let top = unsafe { groups_wide_avx2(bytes, width, wide, dst) };
                    *max = (*max).max(top);
                    return;
                }
                // Not reached: groups are asked for only with AVX2.
                let _ = (bytes, width);
                *max = u32::MAX;
            }
        }
    }

    /// The bits of up to 64 indexes as a word, and the largest index.
    #[inline]
    fn word_of(&self, indexes: &[u32]) -> (u64, u32) {
        #[cfg(target_arch = "x86_64")]
        if let (true, Some(word)) = (self.avx2, self.word) {
            // SAFETY: `avx2` is set only where the processor has AVX2 and the word fits
            // 32 bits.
            return unsafe { word_avx2(indexes, word as u32) };
        }
        let (mut w, mut top) = (0u64, 0u32);
        match self.word {
            Some(word) => {
                for (j, &i) in indexes.iter().enumerate() {
                    w |= ((word >> i.min(63)) & 1) << j;
                    top = top.max(i);
                }
            }
            None => {
                for (j, &i) in indexes.iter().enumerate() {
                    w |= u64::from(self.bit(i)) << j;
                    top = top.max(i);
                }
            }
        }
        (w, top)
    }
}

/// Appends to `dst` the byte of results `lookup` gives each whole group of eight `w`-bit
/// indexes in `bytes`, the group's bytes given as a little-endian `u64` (its first 8 bytes,
/// zero past the data's end): the one walk both AVX2 lookups share.
#[inline(always)]
fn each_group(bytes: &[u8], w: usize, dst: &mut BooleanBufferBuilder, mut lookup: impl FnMut(u64) -> u8) {
    let mut out = [0u8; 512];
    for chunk in bytes.chunks(out.len() * w) {
        let groups = chunk.len() / w;
        let mut g = 0;
        // Whole 8-byte loads while they stay inside the chunk; the last groups from a copy.
        while g < groups {
            let at = g * w;
            let Some(b) = chunk.get(at..at + 8) else { break };
            out[g] = lookup(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]));
            g += 1;
        }
        while g < groups {
            let mut b = [0u8; 8];
            let tail = chunk.get(g * w..).unwrap_or_default();
            let t = tail.len().min(8);
            b[..t].copy_from_slice(&tail[..t]);
            out[g] = lookup(u64::from_le_bytes(b));
            g += 1;
        }
        dst.append_packed_range(0..groups * 8, &out[..groups]);
    }
}

/// Appends the bits of whole bit-packed groups of indexes of `width` bits (1 to
/// [`WIDE_GROUP_WIDTH`]) to `dst` for a dictionary of up to 256 values (`words`, 32 results
/// each), read straight out of `bytes`: a group's 8 bytes are loaded once, each lane takes
/// the two bytes its index lies in (one byte shuffle), shifts and masks it; the lookup picks
/// each lane's word of results by the index's top bits (one permute) and shifts by its low
/// five. Returns the largest index.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn groups_wide_avx2(bytes: &[u8], width: usize, words: &[u32; 8], dst: &mut BooleanBufferBuilder) -> u32 {
    use std::arch::x86_64::*;
    let w = width.clamp(1, WIDE_GROUP_WIDTH);
    // Lane j's index starts at bit j * w: in byte j * w / 8, at bit j * w % 8, and ends
    // within the next byte (w <= 8). Lanes 4-7 are in the upper 128 bits, which the byte
    // shuffle reads from the upper copy of the group.
    let mut control = [-128i8; 32];
    let mut shift = [0i32; 8];
    for j in 0..8 {
        let first = (j * w / 8) as i8;
        control[4 * j] = first;
        control[4 * j + 1] = first + 1;
        shift[j] = (j * w % 8) as i32;
    }
    // SAFETY: both arrays are 32 bytes, what the unaligned loads read.
    let control = unsafe { _mm256_loadu_si256(control.as_ptr().cast()) };
    let shifts = unsafe { _mm256_loadu_si256(shift.as_ptr().cast()) };
    let low = _mm256_set1_epi32((1i32 << w) - 1);
    let five = _mm256_set1_epi32(31);
    // SAFETY: `words` is 32 bytes, what the unaligned load reads.
    let table = unsafe { _mm256_loadu_si256(words.as_ptr().cast()) };
    let mut top = _mm256_setzero_si256();
    macro_rules! group {
        ($v:expr) => {{
            let g = _mm256_broadcastsi128_si256(_mm_cvtsi64_si128($v as i64));
            let k = _mm256_and_si256(_mm256_srlv_epi32(_mm256_shuffle_epi8(g, control), shifts), low);
            top = _mm256_max_epu32(top, k);
            let word = _mm256_permutevar8x32_epi32(table, _mm256_srli_epi32::<5>(k));
            let bits = _mm256_slli_epi32::<31>(_mm256_srlv_epi32(word, _mm256_and_si256(k, five)));
            _mm256_movemask_ps(_mm256_castsi256_ps(bits)) as u8
        }};
    }
    each_group(bytes, w, dst, |v| group!(v));
    let mut tops = [0u32; 8];
    // SAFETY: `tops` is 32 bytes, what the unaligned store writes.
    unsafe { _mm256_storeu_si256(tops.as_mut_ptr().cast(), top) };
    tops.into_iter().max().unwrap_or(0)
}

/// [`Table::word_of`] with AVX2, for a mask of up to 32 values: eight lookups are one
/// variable shift of the mask (an index of 32 or more shifts everything out: 0), their bits
/// gathered by one `movemask`; the largest index is kept by one unsigned max.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn word_avx2(indexes: &[u32], mask: u32) -> (u64, u32) {
    use std::arch::x86_64::*;
    let masks = _mm256_set1_epi32(mask as i32);
    let mut top = _mm256_setzero_si256();
    let mut w = 0u64;
    let mut eights = indexes.chunks_exact(8);
    for (g, eight) in (&mut eights).enumerate() {
        // SAFETY: `eight` is 8 `u32`s, the 32 bytes the unaligned load reads.
        let k = unsafe { _mm256_loadu_si256(eight.as_ptr().cast()) };
        top = _mm256_max_epu32(top, k);
        let bits = _mm256_slli_epi32::<31>(_mm256_srlv_epi32(masks, k));
        w |= u64::from(_mm256_movemask_ps(_mm256_castsi256_ps(bits)) as u8) << (8 * g);
    }
    let mut tops = [0u32; 8];
    // SAFETY: `tops` is 32 bytes, what the unaligned store writes.
    unsafe { _mm256_storeu_si256(tops.as_mut_ptr().cast(), top) };
    let mut top = tops.into_iter().max().unwrap_or(0);
    let done = indexes.len() - eights.remainder().len();
    for (j, &i) in eights.remainder().iter().enumerate() {
        w |= ((u64::from(mask) >> i.min(63)) & 1) << (done + j);
        top = top.max(i);
    }
    (w, top)
}

/// Appends the bits of whole bit-packed groups of indexes of `width` bits (1 to
/// [`GROUP_WIDTH`]) to `dst`, read straight out of `bytes`: a group of eight indexes is one
/// 32-bit load, spread to eight lanes and shifted apart (no index is written anywhere), then
/// looked up as in [`word_avx2`]. Returns the largest index.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn groups_avx2(bytes: &[u8], width: usize, mask: u32, dst: &mut BooleanBufferBuilder) -> u32 {
    use std::arch::x86_64::*;
    let w = width.clamp(1, GROUP_WIDTH);
    let shifts = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(w as i32));
    let low = _mm256_set1_epi32((1i32 << w) - 1);
    let masks = _mm256_set1_epi32(mask as i32);
    let mut top = _mm256_setzero_si256();
    // One group: eight indexes shifted apart from one 32-bit word, looked up as a byte.
    macro_rules! group {
        ($v:expr) => {{
            let k = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32($v as i32), shifts), low);
            top = _mm256_max_epu32(top, k);
            let bits = _mm256_slli_epi32::<31>(_mm256_srlv_epi32(masks, k));
            _mm256_movemask_ps(_mm256_castsi256_ps(bits)) as u8
        }};
    }
    each_group(bytes, w, dst, |v| group!(v as u32));
    let mut tops = [0u32; 8];
    // SAFETY: `tops` is 32 bytes, what the unaligned store writes.
    unsafe { _mm256_storeu_si256(tops.as_mut_ptr().cast(), top) };
    tops.into_iter().max().unwrap_or(0)
}

impl MaskDecoder {
    /// Appends the bits of the page's next `n` values to `dst`, densely.
    fn append_dense(&mut self, page: &mut PageValues, n: usize, to_dense: bool) -> Result<()> {
        let dst = if to_dense { &mut self.dense } else { &mut self.bits };
        if page.holds_indexes() {
            let table = self.table.as_ref().ok_or_else(no_dictionary)?;
            let width = page.index_bit_width();
            let mut max = 0u32;
            page.read_index_pieces(n, table.group_width(), |piece| table.append(piece, width, dst, &mut max))?;
            if max as usize >= table.len() && n > 0 {
                return Err(Error::corrupt(format!(
                    "dictionary index {max} is past the end of the dictionary of {} values",
                    table.len()
                )));
            }
            return Ok(());
        }
        // A fallback page: its values are masked as they come, one array per read.
        let mut values = OffsetsSink::<i32>::new();
        page.read_byte_arrays(n, &mut values, |add| check_room::<i32>(0, add))?;
        if self.utf8 {
            // Tested as bytes (the proof is not needed), but a string column's bad bytes are
            // still an error, as in every other read of it.
            let _proof = check_utf8_offsets(values.data(), values.offsets())?;
        }
        let array = offsets_array(values, None, Kind::Binary)?;
        let on = self.mask.on_values(&array)?;
        check_results(on.len(), n)?;
        dst.append_slice(&on);
        Ok(())
    }
}

/// Checks that a mask gave one result per value.
fn check_results(got: usize, values: usize) -> Result<()> {
    match got == values {
        true => Ok(()),
        false => Err(Error::invalid_argument(format!("a dictionary mask gave {got} results for {values} values"))),
    }
}

impl ValueDecoder for MaskDecoder {
    fn reserve(&mut self, rows: usize, _value_bytes: usize) {
        // A bit per row: even an absurd hint costs an eighth of what it says.
        self.bits.reserve(rows.min(1 << 31));
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        let dict = Dict::read(page, self.utf8)?;
        let values: ArrayRef = dict.values_array::<i32>(false)?;
        let on = self.mask.on_values(&values)?;
        check_results(on.len(), dict.len())?;
        self.table = Some(Table::new(&on));
        Ok(())
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        page_rows(values, validity)?;
        let start = self.bits.len();
        let result = match validity.filter(|v| v.null_count > 0) {
            None => self.append_dense(page, values, false),
            Some(v) => {
                self.dense.truncate(0); // keeps its allocation for the next page
                self.append_dense(page, values, true).and_then(|()| spread_bits(&self.dense, v, &mut self.bits))
            }
        };
        if result.is_err() {
            self.bits.truncate(start);
        }
        result
    }

    fn len(&self) -> usize {
        self.bits.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        check_null_rows(nulls.as_ref(), self.bits.len())?;
        Ok(Arc::new(BooleanArray::new(self.bits.finish(), nulls)))
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use arrow_buffer::Buffer;

    use super::*;
    use crate::encoding::rle::encode_rle_hybrid;
    use crate::format::{Encoding, PhysicalType};
    use crate::read::page_values::{PageScratch, ValueKind};

    /// True for values whose last byte is odd.
    #[derive(Debug)]
    struct Odd;

    impl DictionaryMask for Odd {
        fn on_values(&self, values: &ArrayRef) -> Result<Vec<bool>> {
            let b = values.as_binary::<i32>();
            Ok((0..b.len()).map(|i| b.value(i).last().is_some_and(|x| x % 2 == 1)).collect())
        }
    }

    fn page(bytes: Vec<u8>, encoding: Encoding, len: usize) -> PageValues {
        let kind = ValueKind { physical_type: PhysicalType::BYTE_ARRAY, type_length: 0 };
        PageValues::new(Buffer::from_vec(bytes), encoding, len, kind, &mut PageScratch::default()).unwrap()
    }

    fn dictionary(n: usize) -> PageValues {
        let mut plain = Vec::new();
        for i in 0..n {
            let v = format!("v{i}");
            plain.extend_from_slice(&(v.len() as u32).to_le_bytes());
            plain.extend_from_slice(v.as_bytes());
        }
        PageValues::dictionary(Buffer::from_vec(plain), Encoding::PLAIN, n).unwrap()
    }

    fn indexes(keys: &[u32], width: u8) -> PageValues {
        let mut data = vec![width];
        encode_rle_hybrid(keys, width, &mut data);
        page(data, Encoding::RLE_DICTIONARY, keys.len())
    }

    fn decoder() -> Box<dyn ValueDecoder> {
        mask_decoder(&MaskedLeaf { leaf: 0, utf8: true, mask: Arc::new(Odd) })
    }

    #[test]
    fn index_runs_give_each_rows_bit_in_pieces_and_around_nulls() {
        for n in [2usize, 7, 16, 17, 32, 33, 64, 65, 200, 256, 257, 1000, 70_000] {
            let width = (usize::BITS - (n - 1).leading_zeros()) as u8;
            // Repeated runs, bit-packed stretches and runs cut by the reads.
            let keys: Vec<u32> = (0..5000u32)
                .map(|i| {
                    if (i / 300) % 2 == 0 {
                        (i / 37) % n as u32
                    } else {
                        (i.wrapping_mul(2_654_435_761) >> 7) % n as u32
                    }
                })
                .collect();
            let odd = |k: u32| format!("v{k}").as_bytes().last().unwrap() % 2 == 1;
            for step in [1usize, 7, 64, 100, 5000] {
                let mut d = decoder();
                d.set_dictionary(&dictionary(n)).unwrap();
                let mut p = indexes(&keys, width);
                let mut at = 0;
                while at < keys.len() {
                    let k = step.min(keys.len() - at);
                    d.read(&mut p, k, None).unwrap();
                    at += k;
                }
                let got = d.finish(None).unwrap();
                let got: Vec<bool> = got.as_boolean().values().iter().collect();
                let want: Vec<bool> = keys.iter().map(|&k| odd(k)).collect();
                assert_eq!(got, want, "{n} values, reads of {step}");
            }
            // Every third row null: the values fill the valid rows, null rows are false.
            let rows = 300;
            let valid: Vec<bool> = (0..rows).map(|i| i % 3 != 0).collect();
            let mut bits = BooleanBufferBuilder::new(rows);
            bits.append_slice(&valid);
            let values = valid.iter().filter(|&&v| v).count();
            let v = Validity { bits: bits.as_slice(), offset: 0, len: rows, null_count: rows - values };
            let mut d = decoder();
            d.set_dictionary(&dictionary(n)).unwrap();
            let mut p = indexes(&keys[..values], width);
            d.read(&mut p, values, Some(&v)).unwrap();
            let got: Vec<bool> = d.finish(None).unwrap().as_boolean().values().iter().collect();
            let mut dense = keys[..values].iter();
            let want: Vec<bool> = valid.iter().map(|&ok| ok && odd(*dense.next().unwrap())).collect();
            assert_eq!(got, want, "{n} values with nulls");
        }
    }

    #[test]
    fn indexes_past_the_dictionary_are_an_error() {
        // 5 values in 3 bits: 5, 6 and 7 fit the width but not the dictionary, in a
        // repeated run and in a bit-packed one.
        for keys in [vec![1u32; 40].into_iter().chain([6; 40]).collect::<Vec<_>>(), (0..64).map(|i| i % 8).collect()] {
            let mut d = decoder();
            d.set_dictionary(&dictionary(5)).unwrap();
            let e = d.read(&mut indexes(&keys, 3), keys.len(), None).unwrap_err();
            assert!(e.to_string().contains("past the end of the dictionary"), "{e}");
            assert_eq!(d.len(), 0, "a failed read leaves no rows");
        }
        // 40 values in 6 bits (the wider groups' lookup) and 300 in 9 (unpacked first).
        for (n, width) in [(40usize, 6u8), (300, 9)] {
            let keys: Vec<u32> = (0..64).map(|i| i * 7 % (1 << width)).collect();
            let mut d = decoder();
            d.set_dictionary(&dictionary(n)).unwrap();
            let e = d.read(&mut indexes(&keys, width), keys.len(), None).unwrap_err();
            assert!(e.to_string().contains("past the end of the dictionary"), "{e}");
        }
        // A data page without a dictionary page.
        let e = decoder().read(&mut indexes(&[0, 1], 1), 2, None).unwrap_err();
        assert!(e.to_string().contains("no dictionary page"), "{e}");
    }

    #[test]
    fn a_page_that_is_not_dictionary_encoded_is_masked_value_by_value() {
        let mut d = decoder();
        d.set_dictionary(&dictionary(3)).unwrap();
        d.read(&mut indexes(&[0, 1, 2], 2), 3, None).unwrap();
        let mut plain = Vec::new();
        for v in ["a1", "b2", "c3"] {
            plain.extend_from_slice(&2u32.to_le_bytes());
            plain.extend_from_slice(v.as_bytes());
        }
        d.read(&mut page(plain, Encoding::PLAIN, 3), 3, None).unwrap();
        let got: Vec<bool> = d.finish(None).unwrap().as_boolean().values().iter().collect();
        assert_eq!(got, [false, true, false, true, false, true]);
        // Bad UTF-8 in a string column is an error, as in any read of it.
        let mut bad = 1u32.to_le_bytes().to_vec();
        bad.push(0xff);
        assert!(decoder().read(&mut page(bad, Encoding::PLAIN, 1), 1, None).is_err());
    }
}
