//! Writing a leaf under nested fields: the top-level column is shredded into levels and value
//! ranges (`shred`), then written in steps of whole records, so that every page starts at a
//! record (a repetition level of 0), as data page v2, the page index and row selection need:
//! a page's `num_rows` and the OffsetIndex's `first_row_index` count records.
//!
//! A step ends at the page's row limit (records) or when the values that fit in the page's
//! bytes are used up (the flat path's estimate, from the next value on); the levels count
//! towards the page size too, since a page of empty lists holds nothing else.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use super::ColumnChunkWriter;
use crate::compress::Compressor;
use crate::encoding::rle::RleEncoder;
use crate::error::Result;
use crate::write::shred::{shred, Shredded};

/// Where the next value is in the shredded value ranges.
#[derive(Debug, Default, Clone, Copy)]
struct Cursor {
    /// The range.
    range: usize,
    /// Values of it already written.
    taken: usize,
}

/// Records shredded at a time: bounds the level buffers a leaf keeps (4 bytes per entry) to
/// what this many records hold, whatever the batch size.
const WINDOW_RECORDS: usize = 16_384;

impl ColumnChunkWriter {
    /// Writes every record of `column`, the leaf's top-level column.
    pub(super) fn write_nested(&mut self, column: &ArrayRef, compressor: &mut Compressor) -> Result<()> {
        let mut shredded = std::mem::take(&mut self.shredded);
        shredded.new_column();
        let mut result = Ok(());
        let mut start = 0;
        while start < column.len() && result.is_ok() {
            let end = column.len().min(start + WINDOW_RECORDS);
            result = shred(&self.leaf, column, start..end, &mut shredded)
                .and_then(|()| self.write_shredded(&shredded, compressor));
            start = end;
        }
        self.shredded = shredded;
        result
    }

    fn levels_len(&self) -> usize {
        self.definition_levels.encoded_len_estimate() + self.repetition_levels.encoded_len_estimate()
    }

    fn write_shredded(&mut self, sh: &Shredded, compressor: &mut Compressor) -> Result<()> {
        let leaf = sh.leaf.clone();
        let dictionary_input = leaf.as_ref().is_some_and(|a| matches!(a.data_type(), DataType::Dictionary(..)));
        let mut cursor = Cursor::default();
        let (n, mut pos) = (sh.def.len(), 0);
        while pos < n {
            let records_left = (self.page_row_limit - self.page_rows.min(self.page_row_limit)).max(1);
            let bytes_left = self.page_size.saturating_sub(self.encoder.estimated_len() + self.levels_len());
            let values_fit = match (&leaf, sh.values.get(cursor.range)) {
                (Some(a), Some(&(first, _))) => {
                    let next = first + cursor.taken;
                    self.rows_fit(a.as_ref(), next, a.len() - next, bytes_left)
                }
                _ => usize::MAX,
            };
            let (end, records, values) = self.step(sh, pos, records_left, values_fit);
            // A leaf that is required all the way down has no definition levels to store.
            if self.leaf.max_def_level > 0 {
                put_levels(&mut self.definition_levels, &sh.def[pos..end]);
            }
            if !sh.rep.is_empty() {
                put_levels(&mut self.repetition_levels, &sh.rep[pos..end]);
            }
            if self.statistics.counts_levels() {
                let (def, rep) = self.statistics.histograms();
                histogram(&sh.def[pos..end], def);
                histogram(sh.rep.get(pos..end).unwrap_or_default(), rep);
            }
            if let Some(a) = &leaf {
                self.put_values(a, dictionary_input, &sh.values, &mut cursor, values)?;
            }
            self.page_rows += records;
            self.page_values += end - pos;
            self.page_nulls += end - pos - values;
            pos = end;
            let levels_len = self.levels_len();
            self.end_step(compressor, levels_len)?;
        }
        Ok(())
    }

    /// The next step from entry `pos`: whole records, at most `max_records` of them and (unless
    /// that leaves none) about `max_values` values (a record that crosses the budget inside a
    /// counted block is kept whole). Returns its end, records and values.
    fn step(&self, sh: &Shredded, pos: usize, max_records: usize, max_values: usize) -> (usize, usize, usize) {
        const BLOCK: usize = 256;
        let max_def = self.leaf.max_def_level as u16;
        let (def, rep) = (&sh.def, &sh.rep);
        let n = def.len();
        // Without lists every entry is a record.
        let is_start = |j: usize| rep.get(j).is_none_or(|&r| r == 0);
        // Records started in pos..i (the one open at i included), and values there.
        let (mut i, mut records, mut values) = (pos, 0, 0);
        // Whole blocks while they leave room: counts that vectorize, not a walk per record.
        while i + BLOCK <= n {
            let starts = if rep.is_empty() { BLOCK } else { count_equal(&rep[i..i + BLOCK], 0) };
            let v = count_equal(&def[i..i + BLOCK], max_def);
            if records + starts >= max_records || values + v > max_values {
                break;
            }
            (i, records, values) = (i + BLOCK, records + starts, values + v);
        }
        // The rest of the record open at i, then record by record.
        if i > pos {
            while i < n && !is_start(i) {
                values += usize::from(def[i] == max_def);
                i += 1;
            }
        }
        while i < n && records < max_records {
            let next = match rep.get(i + 1..) {
                Some(rest) => i + 1 + rest.iter().position(|&r| r == 0).unwrap_or(rest.len()),
                None => i + 1,
            };
            let v = def[i..next].iter().filter(|&&d| d == max_def).count();
            if records > 0 && values + v > max_values {
                break;
            }
            (i, records, values) = (next, records + 1, values + v);
        }
        (i, records, values)
    }

    /// Writes the next `count` values of the ranges, from `cursor` on.
    fn put_values(
        &mut self,
        leaf: &ArrayRef,
        dictionary_input: bool,
        ranges: &[(usize, usize)],
        cursor: &mut Cursor,
        count: usize,
    ) -> Result<()> {
        if !dictionary_input && self.bounds_from_dictionary() {
            // Strings into the dictionary, whose page bounds come from the dictionary: each
            // range straight to the interner, without the per-range dispatch on the array's
            // type (a list's ranges end at every null element, a few values each).
            let (encoder, mut bytes) = (&mut self.encoder, 0u64);
            let mut put = |offsets: &[_], data: &[u8]| {
                walk_ranges(ranges, cursor, count, |a, b| {
                    encoder.put_offsets(&offsets[a..=b], data);
                    bytes += (offsets[b] - offsets[a]) as u64;
                    Ok(())
                })
            };
            let done = match leaf.data_type() {
                DataType::Utf8 => {
                    let a = leaf.as_string::<i32>();
                    Some(put(a.value_offsets(), a.value_data()))
                }
                DataType::Binary => {
                    let a = leaf.as_binary::<i32>();
                    Some(put(a.value_offsets(), a.value_data()))
                }
                _ => None,
            };
            if let Some(result) = done {
                self.statistics.add_byte_array_bytes(bytes);
                return result;
            }
        }
        walk_ranges(ranges, cursor, count, |a, b| self.put_range(leaf.as_ref(), dictionary_input, a, b))
    }
}

/// Calls `put(a, b)` for the next `count` values of `ranges` from `cursor` on, a sub-range at a
/// time, and moves the cursor past them.
fn walk_ranges(
    ranges: &[(usize, usize)],
    cursor: &mut Cursor,
    mut count: usize,
    mut put: impl FnMut(usize, usize) -> Result<()>,
) -> Result<()> {
    while count > 0 {
        let (a, b) = ranges[cursor.range];
        let from = a + cursor.taken;
        let k = (b - from).min(count);
        put(from, from + k)?;
        count -= k;
        cursor.taken += k;
        if from + k == b {
            *cursor = Cursor { range: cursor.range + 1, taken: 0 };
        }
    }
    Ok(())
}

/// Adds `levels` to `histogram` (one count per level). Up to 4 levels, one counting pass per
/// level above 0 (level 0 is the rest), each a compare and a 16-bit sum that vectorize; a
/// shift by the level into a 16-bit lane of a word (the previous way) does not without AVX2,
/// and was 5 instructions a level. Above 4, one increment per level.
fn histogram(levels: &[u16], histogram: &mut [i64]) {
    if histogram.len() <= 4 {
        let mut rest = levels.len() as i64;
        for (level, count) in histogram.iter_mut().enumerate().skip(1) {
            let n = count_equal(levels, level as u16) as i64;
            *count += n;
            rest -= n;
        }
        if let Some(zero) = histogram.first_mut() {
            *zero += rest;
        }
    } else {
        levels.iter().for_each(|&l| histogram[l as usize] += 1);
    }
}

/// How many of `levels` are `value`: 16-bit counts over stretches short enough not to
/// overflow them, which the compiler turns into vector compares and subtractions.
#[inline]
fn count_equal(levels: &[u16], value: u16) -> usize {
    levels
        .chunks(u16::MAX as usize)
        .map(|chunk| {
            let n = chunk.iter().fold(0u16, |n, &l| n.wrapping_add(u16::from(l == value)));
            usize::from(n)
        })
        .sum()
}

/// Puts levels into an RLE encoder, widened a block at a time (the encoder takes `u32`).
/// Levels of one bit (the repetition levels of a list, the definition levels of a list of
/// required values) go as a bitmap, 8 to a byte: the encoder then finds runs 64 levels at a
/// time and copies the rest as bit-packed bytes.
fn put_levels(encoder: &mut RleEncoder, levels: &[u16]) {
    if encoder.bit_width() == 1 {
        let mut bitmap = [0u8; 512];
        for chunk in levels.chunks(8 * bitmap.len()) {
            let bytes = chunk.len().div_ceil(8);
            for (byte, group) in bitmap.iter_mut().zip(chunk.chunks(8)) {
                *byte = group.iter().enumerate().fold(0, |b, (j, &l)| b | ((l & 1) as u8) << j);
            }
            encoder.put_bits(&bitmap[..bytes], 0, chunk.len());
        }
        return;
    }
    let mut block = [0u32; 256];
    for chunk in levels.chunks(256) {
        block.iter_mut().zip(chunk).for_each(|(w, &l)| *w = u32::from(l));
        encoder.put_slice(&block[..chunk.len()]);
    }
}
