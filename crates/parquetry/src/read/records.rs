//! Reading a column with its levels, a whole record at a time.
//!
//! A nested column (inside a list, a map or a nullable struct) is read with its definition
//! and repetition levels: the nested assembly turns them into list offsets and struct
//! validity. A batch of `n` rows is `n` records, and a record is a level with repetition 0
//! and every level after it with repetition above 0, which may run on into the next page.
//! The values of the leaf fill its *slots*: the levels at or above the definition level
//! where the leaf's innermost list has an element (every level outside lists); a slot is
//! valid when its level is the column's maximum.

use arrow_buffer::BooleanBufferBuilder;

use super::bits::{at_least, PackedBits};
use super::data_page::OpenPage;
use super::values::{Validity, ValueDecoder};
use crate::error::{Error, Result};

/// The levels of the rows read since the last batch, and what a level means for the leaf.
pub(crate) struct RecordLevels {
    max_def: i16,
    /// The definition level from which a level is a slot of the leaf's array.
    slot_def: i16,
    /// Whether the chunk's first level was seen (it must start a record).
    started: bool,
    /// The batch's levels (empty for a kind the column does not have).
    definition: Vec<i16>,
    repetition: Vec<i16>,
}

/// The levels of one batch of one column, for the nested assembly.
#[derive(Debug, Default)]
pub(crate) struct BatchLevels {
    /// One definition level per level (empty: every level is at the maximum, 0).
    pub definition: Vec<i16>,
    /// One repetition level per level (empty: every level starts a record).
    pub repetition: Vec<i16>,
}

impl RecordLevels {
    /// Levels of a column with definition levels up to `max_def`, whose array has a slot at
    /// each level at or above `slot_def`.
    pub fn new(max_def: i16, slot_def: i16) -> Self {
        RecordLevels { max_def, slot_def, started: false, definition: Vec::new(), repetition: Vec::new() }
    }

    /// Makes room for `levels` more levels in the batch (each kind the column has).
    pub fn reserve(&mut self, levels: usize, has_repetition: bool) {
        if self.max_def > 0 {
            self.definition.reserve(levels);
        }
        if has_repetition {
            self.repetition.reserve(levels);
        }
    }

    /// Hands over the levels read since the last call.
    pub fn take(&mut self) -> BatchLevels {
        BatchLevels {
            definition: std::mem::take(&mut self.definition),
            repetition: std::mem::take(&mut self.repetition),
        }
    }

    /// Reads the open page's levels until `records` more records have started and the next
    /// level starts another one (or the page ends), handing the values of their slots to
    /// `decoder`; returns how many records are still to start. A record that the page ends
    /// in the middle of goes on in the next page.
    pub fn read(
        &mut self,
        page: &mut OpenPage,
        records: usize,
        decoder: &mut dyn ValueDecoder,
        validity: Option<&mut BooleanBufferBuilder>,
    ) -> Result<usize> {
        let (end, left) = self.scan(page, records)?;
        let Some(levels) = page.levels.as_ref() else { return Err(no_levels()) };
        let from = page.row;
        let (def_len, rep_len) = (self.definition.len(), self.repetition.len());
        if !levels.definition.is_empty() {
            self.definition.extend_from_slice(&levels.definition[from..end]);
        }
        if !levels.repetition.is_empty() {
            self.repetition.extend_from_slice(&levels.repetition[from..end]);
        }
        let result = match validity {
            None => decoder.read(&mut page.values, end - from, None),
            Some(validity) => {
                let start = validity.len();
                let values = self.append_slots(&levels.definition[from..end], end - from, validity);
                let slots = validity.len() - start;
                let bits =
                    Validity { bits: validity.as_slice(), offset: start, len: slots, null_count: slots - values };
                let result = decoder.read(&mut page.values, values, Some(&bits));
                if result.is_err() {
                    validity.truncate(start);
                }
                result
            }
        };
        if result.is_err() {
            self.definition.truncate(def_len);
            self.repetition.truncate(rep_len);
        }
        page.row = end;
        result.map(|()| left)
    }

    /// [`read`](Self::read) without producing anything.
    pub fn skip(&mut self, page: &mut OpenPage, records: usize) -> Result<usize> {
        let (end, left) = self.scan(page, records)?;
        let Some(levels) = page.levels.as_ref() else { return Err(no_levels()) };
        let values = match levels.definition.get(page.row..end) {
            Some(def) if self.max_def > 0 => def.iter().filter(|&&d| d == self.max_def).count(),
            _ => end - page.row,
        };
        page.row = end;
        page.values.skip(values)?;
        Ok(left)
    }

    /// Where the levels of the next `records` records end in the open page, and how many
    /// records are still to start after it.
    fn scan(&mut self, page: &OpenPage, mut records: usize) -> Result<(usize, usize)> {
        let Some(levels) = page.levels.as_ref() else { return Err(no_levels()) };
        let (from, to) = (page.row, page.rows);
        if levels.repetition.is_empty() {
            let k = records.min(to - from);
            return Ok((from + k, records - k));
        }
        let rep = levels.repetition.get(from..to).ok_or_else(no_levels)?;
        if !self.started && !rep.is_empty() {
            if rep[0] != 0 {
                return Err(Error::corrupt(format!(
                    "the column chunk's first repetition level is {}, not 0: a record must start there",
                    rep[0]
                )));
            }
            self.started = true;
        }
        // Whole blocks whose record starts are all wanted are counted, not walked: the count
        // vectorizes, a walk would branch on every level.
        let mut at = 0;
        for block in rep.chunks_exact(256) {
            let starts = block.iter().filter(|&&r| r == 0).count();
            if starts > records {
                break;
            }
            records -= starts;
            at += 256;
        }
        let mut end = rep.len();
        for (i, &r) in rep[at..].iter().enumerate() {
            if r == 0 {
                if records == 0 {
                    end = at + i;
                    break;
                }
                records -= 1;
            }
        }
        Ok((from + end, records))
    }

    /// Appends a validity bit for each slot among `levels` (all `n` levels are slots when the
    /// column has no definition levels) and returns the number of valid ones.
    fn append_slots(&self, levels: &[i16], n: usize, validity: &mut BooleanBufferBuilder) -> usize {
        if self.max_def == 0 || levels.is_empty() {
            validity.append_n(n, true);
            return n;
        }
        let (max, slot) = (self.max_def, self.slot_def);
        let mut bits = PackedBits::with_capacity(levels.len());
        let mut valid = 0;
        for chunk in levels.chunks(64) {
            // Levels were checked against the maximum when decoded: at it = at least it.
            let present = at_least(chunk, max);
            bits.push_selected(at_least(chunk, slot), present);
            valid += present.count_ones() as usize;
        }
        let n = bits.len();
        validity.append_packed_range(0..n, &bits.into_bytes());
        valid
    }
}

fn no_levels() -> Error {
    Error::corrupt("a data page of a nested column was opened without its levels")
}
