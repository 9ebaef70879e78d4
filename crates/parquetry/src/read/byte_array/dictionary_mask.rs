//! `Boolean` out of a BYTE_ARRAY column through a [`DictionaryMask`]: the mask runs once per
//! dictionary value, and each row's bit is looked up from its dictionary index as the index
//! runs come out of the page, without building keys.
//!
//! A filter reads the columns only its test needs this way (`count(*) WHERE l_shipmode =
//! 'AIR'`): building `Int32` keys, spreading them over null rows and looking them up again
//! took about a third of that query. Here an RLE run is one `append_n` of its value's bit,
//! and a bit-packed run is looked up from the decoder's small unpacking buffer, 64 indexes
//! to a word. Null rows get a false bit (the caller has the null buffer). A page that is not
//! dictionary-encoded (a writer's fallback) has its values decoded and masked one by one.

use std::sync::Arc;

use arrow_array::{ArrayRef, BooleanArray};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};

use super::arrays::{offsets_array, Kind};
use super::dict::Dict;
use super::utf8::check_utf8_offsets;
use super::{check_null_rows, check_room, no_dictionary, page_rows};
use crate::encoding::rle::Run;
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
    /// 0 or 1 per value.
    bytes: Vec<u8>,
    /// The same as bits (bit `i`: value `i`), when there are at most 64 values: a lookup is
    /// then a shift, with no load.
    word: Option<u64>,
}

impl Table {
    fn new(on: &[bool]) -> Table {
        let word = (on.len() <= 64).then(|| on.iter().enumerate().fold(0u64, |w, (i, &b)| w | (u64::from(b) << i)));
        Table { bytes: on.iter().map(|&b| u8::from(b)).collect(), word }
    }

    /// Appends the bits of a run of indexes (each below the dictionary's length, as the page
    /// checked) to `dst`.
    #[inline]
    fn append(&self, run: Run<'_>, dst: &mut BooleanBufferBuilder) {
        match run {
            Run::Repeated { value, len } => {
                dst.append_n(len, self.bytes.get(value as usize).is_some_and(|&b| b != 0));
            }
            Run::Packed(indexes) => match self.word {
                Some(word) => small_words(indexes, word, dst),
                None => {
                    for chunk in indexes.chunks(64) {
                        let mut w = 0u64;
                        for (j, &i) in chunk.iter().enumerate() {
                            w |= u64::from(self.bytes.get(i as usize).copied().unwrap_or(0) & 1) << j;
                        }
                        dst.append_word(w, chunk.len());
                    }
                }
            },
        }
    }
}

/// Appends bit `i` of `word` for each index `i` (below 64) of `indexes`, 64 to a word of
/// output with no branch per index: a shift each, which vectorizes (with AVX2, eight
/// variable shifts in one instruction and their bits gathered by one `movemask`, for
/// dictionaries of up to 32 values).
#[inline]
fn small_words(indexes: &[u32], word: u64, dst: &mut BooleanBufferBuilder) {
    #[cfg(target_arch = "x86_64")]
    if word >> 32 == 0 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2 (just checked).
        unsafe { small_words_avx2(indexes, word as u32, dst) };
        return;
    }
    for chunk in indexes.chunks(64) {
        let mut w = 0u64;
        for (j, &i) in chunk.iter().enumerate() {
            w |= ((word >> (i & 63)) & 1) << j;
        }
        dst.append_word(w, chunk.len());
    }
}

/// [`small_words`] with AVX2, for a mask of the first 32 values (an index of 32 or more,
/// which the page has ruled out, would shift everything out and give 0).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn small_words_avx2(indexes: &[u32], mask: u32, dst: &mut BooleanBufferBuilder) {
    use std::arch::x86_64::*;
    let masks = _mm256_set1_epi32(mask as i32);
    for chunk in indexes.chunks(64) {
        let mut w = 0u64;
        let mut eights = chunk.chunks_exact(8);
        for (g, eight) in (&mut eights).enumerate() {
            // SAFETY: `eight` is 8 `u32`s, the 32 bytes the unaligned load reads.
            let k = unsafe { _mm256_loadu_si256(eight.as_ptr().cast()) };
            let bits = _mm256_slli_epi32::<31>(_mm256_srlv_epi32(masks, k));
            w |= u64::from(_mm256_movemask_ps(_mm256_castsi256_ps(bits)) as u8) << (8 * g);
        }
        let done = chunk.len() - eights.remainder().len();
        for (j, &i) in eights.remainder().iter().enumerate() {
            w |= ((u64::from(mask) >> i.min(63)) & 1) << (done + j);
        }
        dst.append_word(w, chunk.len());
    }
}

impl MaskDecoder {
    /// Appends the bits of the page's next `n` values to `dst`, densely.
    fn append_dense(&mut self, page: &mut PageValues, n: usize, to_dense: bool) -> Result<()> {
        let dst = if to_dense { &mut self.dense } else { &mut self.bits };
        if page.holds_indexes() {
            let table = self.table.as_ref().ok_or_else(no_dictionary)?;
            return page.read_indexes(n, table.bytes.len(), |run| table.append(run, dst));
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
        for n in [2usize, 7, 32, 33, 64, 65, 1000, 70_000] {
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
