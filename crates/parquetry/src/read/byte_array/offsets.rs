//! `Utf8` / `Binary` (i32 offsets) and `LargeUtf8` / `LargeBinary` (i64 offsets): every
//! value copied once into one data buffer per batch.

use std::mem::MaybeUninit;

use arrow_array::{ArrayRef, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBuffer};

use super::arrays::{offsets_array, Kind};
use super::utf8::{check_dict_utf8, check_utf8_offsets, Utf8Checked};
use super::{check_null_rows, check_room, no_dictionary, page_rows, Scratch};
use crate::encoding::rle::Run;
use crate::encoding::{ByteArraySink, OffsetSize, OffsetsSink, ShortValues};
use crate::error::{Error, Result};
use crate::read::values::{PageValues, Validity, ValueDecoder};

/// Decodes BYTE_ARRAY pages into offsets + data with `O` offsets, validating UTF-8 if the
/// output is a string type.
#[derive(Debug)]
pub(super) struct OffsetsDecoder<O: OffsetSize> {
    utf8: bool,
    /// The batch being built: `sink.offsets()` has one entry per row plus the leading 0.
    sink: OffsetsSink<O>,
    /// The proof that this batch's values were validated as UTF-8 (every string page's
    /// appended values are checked, gathered ones were when their dictionary was walked);
    /// taken by `finish`.
    proof: Option<Utf8Checked>,
    dict: Option<PageDict>,
    scratch: Scratch,
}

/// A dictionary page kept as it is, values still length-prefixed: gathered values are copied
/// straight from the page, so the dictionary itself is never copied. (Dictionaries of mostly
/// distinct values, common for ids and URLs, are as large as the data; copying them first
/// doubled the work and the memory of reading such a column.)
///
/// The values are found lazily, as the data pages' indexes reach them, rather than all when
/// the dictionary is read: a writer adds values to the dictionary in the order they first
/// appear, so the indexes of new values come as runs `walked, walked + 1, ...`, and such a
/// run is decoded like a PLAIN page, straight from the dictionary into the batch, walking and
/// copying the page in one pass (see [`PageDict::extend_frontier`]). Other indexes are
/// gathered from values walked a stretch at a time just before, while the stretch is still in
/// cache. A dictionary of tens of megabytes was otherwise read from memory twice, once to walk
/// it and once to gather from it. Values are checked (lengths, UTF-8) when they are walked:
/// a bad value is an error once a page's indexes reach it, and values past the last one any
/// page reaches are never checked, as no row holds them.
#[derive(Debug)]
struct PageDict {
    /// The dictionary page's values section.
    page: Buffer,
    /// The number of values the page header declares.
    n: usize,
    /// Whether values are checked as UTF-8.
    utf8: bool,
    /// Value `i < walked()` has its length prefix at `prefixes[i]` and ends at
    /// `prefixes[i + 1]`; the last entry is where the first value not yet walked starts.
    prefixes: Vec<u32>,
    /// The values in fixed-size slots, once all are walked, if they are few and short.
    short: Short,
    /// The proof of the first UTF-8 check of walked values (of strings): every walked value
    /// is checked before it counts as walked, so it covers every value a page can gather.
    proof: Option<Utf8Checked>,
}

/// Whether a dictionary's values are gathered from a [`ShortValues`] table.
#[derive(Debug)]
enum Short {
    /// Not known until every value is walked.
    Pending,
    /// Too many values, or a long one.
    No,
    Table(ShortValues),
}

/// Dictionaries of up to this many values get a [`ShortValues`] table (at most 1 MiB of
/// slots and lengths): its cost, one pass over the values, is small beside the pages of
/// indexes that gather from it, and it stays in cache.
const SHORT_MAX_VALUES: usize = 1 << 16;

impl PageDict {
    /// Takes a PLAIN dictionary page, none of its values walked yet.
    fn read(page: &PageValues, utf8: bool) -> Result<Self> {
        let data = page.data();
        let n = page.len();
        if data.len() > u32::MAX as usize {
            return Err(Error::corrupt(format!("dictionary page of {} bytes", data.len())));
        }
        // Every value takes at least its 4-byte length: the page bounds the count, whatever
        // its header says.
        let mut prefixes = Vec::with_capacity(n.min(data.len() / 4) + 1);
        prefixes.push(0);
        Ok(PageDict {
            page: page.buffer().clone(),
            n,
            utf8,
            prefixes,
            short: if n <= SHORT_MAX_VALUES { Short::Pending } else { Short::No },
            proof: None,
        })
    }

    /// The [`ShortValues`] table, built the first time it is asked for once every value has
    /// been walked (and so checked), if the values are short enough.
    fn short_values(&mut self) -> Option<&ShortValues> {
        if matches!(self.short, Short::Pending) && self.walked() == self.n {
            self.short = match ShortValues::build(self.page.as_slice(), &self.prefixes) {
                Some(table) => Short::Table(table),
                None => Short::No,
            };
        }
        match &self.short {
            Short::Table(table) => Some(table),
            _ => None,
        }
    }

    /// The number of values, as the header declares: what indexes are checked against.
    fn len(&self) -> usize {
        self.n
    }

    /// How many values, from the first, have been walked and checked.
    fn walked(&self) -> usize {
        self.prefixes.len() - 1
    }

    /// Length of value `i` (< walked()).
    #[inline]
    fn value_len(&self, i: usize) -> usize {
        (self.prefixes[i + 1] - self.prefixes[i] - 4) as usize
    }

    /// Walks and checks the values up to and including `i` (< len()), a stretch of about
    /// [`DICT_CHECK_BYTES`] at a time: each stretch's UTF-8 is checked right after its lengths
    /// were walked, while it is still in cache (the page is fresh from the decompressor and
    /// often larger than the cache).
    fn walk_past(&mut self, i: usize) -> Result<()> {
        let data = self.page.as_slice();
        while self.walked() <= i && self.walked() < self.n {
            let from = (self.walked(), self.prefixes[self.walked()] as usize);
            let spare = self.prefixes.spare_capacity_mut();
            let (to, p, lengths_or) = walk_lengths(data, from, self.n, from.1 + DICT_CHECK_BYTES, spare)?;
            if self.utf8 {
                self.proof = Some(check_dict_utf8(data, from, (to, p), lengths_or)?);
            }
            // SAFETY: walk_lengths wrote the first `to - from.0` elements of the spare
            // capacity. They count only now that they passed the check, so a decoder that
            // goes on after the error does not gather unchecked values.
            unsafe { self.prefixes.set_len(self.prefixes.len() + (to - from.0)) };
        }
        if self.walked() <= i {
            return Err(Error::corrupt(format!("dictionary index {i} of {} values", self.n)));
        }
        Ok(())
    }

    /// Appends the next `run` values not yet walked to `sink` by the PLAIN kernel, straight
    /// from the page, and records where each ends; returns how many it appended. That is
    /// fewer when the sink's room or the offset type runs out or a value does not lie in the
    /// page: the caller walks those values the checked way.
    fn extend_frontier<O: OffsetSize>(&mut self, sink: &mut OffsetsSink<O>, run: usize) -> Result<usize> {
        let data = self.page.as_slice();
        let w = self.walked();
        let p = self.prefixes[w] as usize;
        let first = sink.len();
        let (done, end) = sink.extend_plain(data, p, run.min(self.n - w));
        let offsets = &sink.offsets()[first..];
        if self.utf8 {
            match check_utf8_offsets(sink.data(), offsets) {
                Ok(proof) => self.proof = Some(proof),
                Err(_) => {
                    // Again over the page, so that the error names the value's index in it.
                    let _ = check_dict_utf8(data, (w, p), (w + done, end), u32::MAX)?;
                    return Err(Error::corrupt("dictionary page: values are not valid UTF-8"));
                }
            }
        }
        // Value `w + t` ends `t + 1` length prefixes and the bytes of values `w..=w + t` past
        // `p`: below `data.len()`, so in u32 (checked in `read`).
        let base = offsets[0].as_usize();
        let ends = offsets[1..].iter().enumerate().map(|(t, o)| (p + 4 * (t + 1) + o.as_usize() - base) as u32);
        self.prefixes.extend(ends);
        Ok(done)
    }
}

/// Walks the length prefixes of a dictionary page's values from value `from.0` at byte
/// `from.1`, up to value `n` or past byte `stop`, writing where each value ends to `out` in
/// turn; returns the value and the byte it stopped at, and the OR of the lengths.
/// Its own function, with no call in its loop, so that the position stays in a register:
/// each step waits on the length the step before it loaded, straight from memory when the
/// page is larger than the cache.
#[inline(never)]
fn walk_lengths(
    data: &[u8],
    from: (usize, usize),
    n: usize,
    stop: usize,
    out: &mut [MaybeUninit<u32>],
) -> Result<(usize, usize, u32)> {
    let (mut i, mut p) = from;
    let mut lengths_or = 0u32;
    let mut slots = out.iter_mut();
    while i < n && p < stop {
        let (Some(len), Some(slot)) = (data.get(p..).and_then(|s| s.first_chunk::<4>()), slots.next()) else {
            return Err(Error::corrupt(format!(
                "dictionary page: value {i} of {n} needs a length at byte {p} of {}",
                data.len()
            )));
        };
        let len = u32::from_le_bytes(*len);
        lengths_or |= len;
        // In u64, which cannot overflow (`p` and `len` are below 2^32), rather than a
        // saturating add: one operation less on the chain from one length to the next.
        let end = p as u64 + 4 + u64::from(len);
        if end > data.len() as u64 {
            return Err(Error::corrupt(format!(
                "dictionary page: value {i} of {n} runs to byte {end} of {}",
                data.len()
            )));
        }
        p = end as usize;
        slot.write(p as u32);
        i += 1;
    }
    Ok((i, p, lengths_or))
}

/// How many bytes of a dictionary page [`PageDict::read`] walks before it checks them: well
/// inside L2, large enough that the validator runs at full speed.
const DICT_CHECK_BYTES: usize = 64 << 10;

impl<O: OffsetSize + OffsetSizeTrait> OffsetsDecoder<O> {
    /// A decoder for a string (`utf8`) or binary output.
    pub(super) fn new(utf8: bool) -> Self {
        Self { utf8, sink: OffsetsSink::new(), proof: None, dict: None, scratch: Scratch::default() }
    }

    /// Appends the page's next `n` values densely (no null slots yet).
    fn append_values(&mut self, page: &mut PageValues, n: usize, start: usize) -> Result<()> {
        if page.holds_indexes() {
            // The dictionary was validated once when it was read: gathered values need not be.
            return self.gather(page, n);
        }
        let have = self.sink.data().len();
        page.read_byte_arrays(n, &mut self.sink, |add| check_room::<O>(have, add))?;
        if self.utf8 {
            self.proof = Some(check_utf8_offsets(self.sink.data(), &self.sink.offsets()[start..])?);
        }
        Ok(())
    }

    /// Copies the dictionary values a page's indexes select. Runs of indexes of values not yet
    /// walked, in order, are decoded straight from the dictionary page; the others are
    /// gathered after walking the dictionary past them (see [`PageDict`]).
    fn gather(&mut self, page: &mut PageValues, n: usize) -> Result<()> {
        let dict = self.dict.as_mut().ok_or_else(no_dictionary)?;
        let indexes = &mut self.scratch.indexes;
        indexes.clear();
        page.read_indexes(n, dict.len(), |run| match run {
            Run::Repeated { value, len } => indexes.extend(std::iter::repeat_n(value, len)),
            Run::Packed(ix) => indexes.extend_from_slice(ix),
        })?;
        let mut k = 0;
        if let Some(table) = dict.short_values() {
            // Every index is below dict.len() (checked by read_indexes), which the table holds.
            k = table.gather(&mut self.sink, indexes);
        }
        while k < indexes.len() {
            let walked = dict.walked();
            // A bounded scan: when the room runs out part way, the rest of a long run is
            // scanned again, and must not be a whole page each time.
            let run = frontier_run(&indexes[k..indexes.len().min(k + MAX_FRONTIER_SCAN)], walked);
            if run >= MIN_FRONTIER_RUN {
                let done = dict.extend_frontier(&mut self.sink, run)?;
                k += done;
                if done == run {
                    continue;
                }
            }
            // In bounds: read_indexes checked every index against dict.len().
            dict.walk_past(indexes[k] as usize)?;
            let walked = dict.walked();
            let m = k + 1 + first_unwalked(&indexes[k + 1..], walked);
            gather_walked(&mut self.sink, dict, &indexes[k..m])?;
            k = m;
        }
        if dict.utf8 && !indexes.is_empty() {
            // Every gathered value was walked, so checked: the dictionary holds that proof.
            self.proof = self.proof.or(dict.proof);
        }
        Ok(())
    }
}

/// Runs of indexes of new dictionary values shorter than this are walked and gathered: the
/// PLAIN kernel's set-up costs more than it saves on a few values.
const MIN_FRONTIER_RUN: usize = 16;

/// At most this many indexes are scanned for one run of new values.
const MAX_FRONTIER_SCAN: usize = 1 << 16;

/// How many of `indexes`, from the first, are `walked, walked + 1, ...`. Compared a block
/// at a time without a branch per index, which vectorizes: the scan runs over every index of
/// a column of distinct values.
fn frontier_run(indexes: &[u32], walked: usize) -> usize {
    let mut n = 0;
    if let Ok(w) = u32::try_from(walked) {
        for block in indexes.chunks_exact(SCAN_BLOCK) {
            let next = w.wrapping_add(n as u32);
            if !block.iter().zip(0..).fold(true, |all, (&i, t)| all & (i == next.wrapping_add(t))) {
                break;
            }
            n += SCAN_BLOCK;
        }
    }
    n + indexes[n..].iter().zip(walked + n..).take_while(|&(&i, w)| i as usize == w).count()
}

/// The position of the first of `indexes` that is `walked` or more (the length if none is),
/// a block at a time as in [`frontier_run`].
fn first_unwalked(indexes: &[u32], walked: usize) -> usize {
    let limit = u32::try_from(walked).unwrap_or(u32::MAX);
    let mut n = 0;
    for block in indexes.chunks_exact(SCAN_BLOCK) {
        if block.iter().fold(false, |any, &i| any | (i >= limit)) {
            break;
        }
        n += SCAN_BLOCK;
    }
    n + indexes[n..].iter().position(|&i| i as usize >= walked).unwrap_or(indexes.len() - n)
}

/// Indexes compared at once by [`frontier_run`] and [`first_unwalked`].
const SCAN_BLOCK: usize = 16;

/// Copies the walked dictionary values `indexes` select: one copy per value into the room
/// the batch already has (sized from the chunk's metadata, so usually all of it). Only the
/// values that did not fit have their total size summed, for one reservation, which saves a
/// pass over the dictionary's lengths in the common case.
fn gather_walked<O: OffsetSize>(sink: &mut OffsetsSink<O>, dict: &PageDict, indexes: &[u32]) -> Result<()> {
    let src = dict.page.as_slice();
    let done = sink.extend_gathered(src, &dict.prefixes, indexes);
    let rest = &indexes[done..];
    if rest.is_empty() {
        return Ok(());
    }
    // In bounds: every index is below dict.walked().
    let bytes = rest.iter().map(|&i| dict.value_len(i as usize) as u64).sum::<u64>();
    check_room::<O>(sink.data().len(), bytes)?;
    // Exactly the bytes left while the hint holds: no slack, so an exact hint is never
    // outgrown (the last few values then take the plain copy instead of the block copy);
    // past it, growth by projection.
    sink.reserve(rest.len(), bytes as usize);
    let done = sink.extend_gathered(src, &dict.prefixes, rest);
    for &i in &rest[done..] {
        let i = i as usize;
        sink.push_plain_value(src, dict.prefixes[i] as usize, dict.value_len(i))?;
    }
    Ok(())
}

impl<O: OffsetSize + OffsetSizeTrait> ValueDecoder for OffsetsDecoder<O> {
    fn reserve(&mut self, rows: usize, value_bytes: usize) {
        self.sink.try_reserve(rows, value_bytes);
        self.sink.expect(self.sink.len() + rows);
    }

    fn set_dictionary(&mut self, page: &PageValues) -> Result<()> {
        self.dict = Some(PageDict::read(page, self.utf8)?);
        Ok(())
    }

    fn read(&mut self, page: &mut PageValues, values: usize, validity: Option<&Validity<'_>>) -> Result<()> {
        page_rows(values, validity)?;
        let start = self.sink.len();
        let spread = match self.append_values(page, values, start) {
            Ok(()) => match validity {
                // No nulls: nothing to spread (a sink left alone keeps its invariant).
                Some(v) if v.null_count > 0 => self.sink.spread_nulls(start, v),
                _ => Ok(()),
            },
            Err(e) => Err(e),
        };
        if spread.is_err() {
            // Leave the batch as it was before the page, so the decoder stays consistent.
            self.sink.truncate(start);
        }
        spread
    }

    fn len(&self) -> usize {
        self.sink.len()
    }

    fn finish(&mut self, nulls: Option<NullBuffer>) -> Result<ArrayRef> {
        let len = self.sink.len();
        check_null_rows(nulls.as_ref(), len)?;
        let kind = if self.utf8 {
            // Without a proof (no value checked) the array is built by the checked constructor.
            Kind::Utf8(self.proof.take())
        } else {
            Kind::Binary
        };
        offsets_array(std::mem::take(&mut self.sink), nulls, kind)
    }
}
