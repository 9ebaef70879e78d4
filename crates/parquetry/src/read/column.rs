//! One column chunk → Arrow arrays, batch by batch.
//!
//! A [`ColumnReader`] pulls pages from its [`PageStream`] and has its [`PageDecoder`] check,
//! decompress and open them (validity bits and [`PageValues`](super::page_values::PageValues)).
//! Each batch then takes as many of the open page's rows as it still needs and hands their
//! values to the [`ValueDecoder`] of the output type; a page that outlasts the batch stays
//! open, and the next batch resumes it where this one stopped (nothing is re-encoded or
//! copied to end a batch). Rows are skipped the same way, without producing values.

use std::sync::Arc;

use arrow_array::{new_empty_array, ArrayRef, NullArray};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer};
use arrow_schema::{DataType, Field};

use super::byte_array::{byte_array_decoder, mask_decoder};
use super::data_page::{Loaded, OpenPage, PageDecoder};
use super::fixed::fixed_decoder;
use super::offset_index::page_locations;
use super::options::ReadOptions;
use super::page_values::ValueKind;
use super::records::{BatchLevels, RecordLevels};
use super::values::{Validity, ValueDecoder};
use crate::compress::Codec;
use crate::error::{Error, Result};
use crate::format::{ColumnMetaData, Encoding, FileMetaData, PageLocation, PageType, PhysicalType};
use crate::page::data_page_rows;
use crate::page::{has_parquet_816_bug, ChunkSource, Next, Page, PageStream};
use crate::schema::{ColumnDescriptor, SchemaDescriptor};

/// What to read of one leaf column: its output type, and whether with its levels.
#[derive(Debug, Clone)]
pub struct ColumnPlan {
    /// The output field.
    pub field: Field,
    /// The leaf column index.
    pub leaf: usize,
    /// For a leaf read with its levels (inside a list, a map or a nullable struct): the
    /// definition level from which a level is a slot of the leaf's array.
    pub levels: Option<i16>,
}

/// Reads one column chunk.
pub struct ColumnReader {
    stream: PageStream,
    /// `None` once every row of the chunk has been returned: the decoder's dictionary and
    /// buffers are freed then, not when the whole row group is done.
    decoder: Option<Box<dyn ValueDecoder>>,
    /// Checks, decompresses and opens the chunk's pages.
    pages: PageDecoder,
    data_type: DataType,
    /// Validity bits of the rows handed to the decoder since its last `finish`.
    validity: Option<BooleanBufferBuilder>,
    /// The data page whose rows are being read, kept open across batches.
    page: Option<OpenPage>,
    /// The chunk's dictionary page, stored, until a data page needs it (see `load`).
    dictionary: Option<Page>,
    /// Where each data page starts and its first row (the chunk's OffsetIndex, read only
    /// for a row selection, and only if it is consistent): a skip then jumps over pages
    /// without reading even their headers.
    page_locations: Option<Vec<PageLocation>>,
    /// The chunk's rows, from the row group.
    chunk_rows: usize,
    /// Rows the chunk still owes, from the row group's row count.
    rows_left: usize,
    /// Value bytes and rows of the chunk not yet reserved for: each batch reserves its share
    /// once, and the last batch exactly what is left, so an exact hint is never outgrown.
    hint_bytes_left: usize,
    hint_rows_left: usize,
    /// Caps on what is reserved up front (see [`bounded_rows`]).
    max_reserve_rows: usize,
    max_reserve_bytes: usize,
    /// Where we are, for error messages.
    place: String,
    /// The file's column is read as INT32 and returned as a [`NullArray`].
    null_output: bool,
    /// For a column read with its levels: batches of whole records, and their levels.
    records: Option<RecordLevels>,
    /// The chunk's levels (its value count in the footer) and whether it repeats, to size
    /// a batch's level vectors once.
    chunk_levels: usize,
    repeated: bool,
}

impl ColumnReader {
    /// Prepares to read column `plan` of row group `row_group`; `skips`: whether the reads
    /// pass over rows (a row selection, or a filter's matches), when the chunk's OffsetIndex
    /// is read so that skips jump over pages without reading their headers.
    pub fn open<S: ChunkSource>(
        source: &S,
        metadata: &FileMetaData,
        schema: &SchemaDescriptor,
        row_group: usize,
        plan: &ColumnPlan,
        options: &ReadOptions,
        skips: bool,
    ) -> Result<Self> {
        let column = &schema.columns[plan.leaf];
        let place = format!("row group {row_group}, column '{}'", column.dotted_path());
        Self::open_inner(source, metadata, column, row_group, plan, options, skips, &place)
            .map_err(|e| e.context(&place))
    }

    #[allow(clippy::too_many_arguments)]
    fn open_inner<S: ChunkSource>(
        source: &S,
        metadata: &FileMetaData,
        column: &ColumnDescriptor,
        row_group: usize,
        plan: &ColumnPlan,
        options: &ReadOptions,
        skips: bool,
        place: &str,
    ) -> Result<Self> {
        let rg = &metadata.row_groups[row_group];
        let chunk = &rg.columns[plan.leaf];
        let Some(meta) = &chunk.meta_data else {
            return Err(Error::unsupported(
                "the column chunk has no plain metadata: encrypted files are not supported yet",
            ));
        };
        if chunk.file_path.is_some() {
            return Err(Error::unsupported("column data in another file (file_path) is not supported"));
        }
        let codec = Codec::from_thrift(meta.codec.0)?;
        // A Null column (INT32 annotated UNKNOWN, every value null) is read as INT32 levels
        // and handed out as a NullArray.
        let null_output = *plan.field.data_type() == DataType::Null;
        let data_type = if null_output { DataType::Int32 } else { plan.field.data_type().clone() };
        let masked = options.dictionary_masks.iter().find(|m| m.leaf == plan.leaf);
        let decoder = match (column.physical_type, masked) {
            (PhysicalType::BYTE_ARRAY, Some(m)) if data_type == DataType::Boolean => mask_decoder(m),
            (PhysicalType::BYTE_ARRAY, _) => byte_array_decoder(column, &data_type)?,
            _ => fixed_decoder(column, &data_type)?,
        };
        let rows = usize::try_from(rg.num_rows).unwrap_or(0);
        let padding = has_parquet_816_bug(metadata.created_by.as_deref());
        let stream = PageStream::new(meta, source.len(), padding)?;
        let (start, len) = stream.byte_range();
        source.will_need(start, len);
        let page_locations = match skips {
            true => page_locations(source, chunk, (start, len), rows),
            false => None,
        };
        let max_reserve_rows = bounded_rows(usize::MAX, meta);
        let kind = ValueKind {
            physical_type: column.physical_type,
            type_length: usize::try_from(column.type_length).unwrap_or(0),
        };
        let max_reserve_bytes = bounded_bytes(usize::MAX, meta);
        let mut pages = PageDecoder::new(
            codec,
            kind,
            (column.max_rep_level, column.max_def_level),
            options.verify_crc,
            max_reserve_rows,
        );
        if plan.levels.is_some() {
            pages = pages.keep_levels(usize::try_from(meta.num_values).unwrap_or(0));
        }
        Ok(ColumnReader {
            stream,
            decoder: Some(decoder),
            pages,
            data_type,
            validity: (column.max_def_level > 0).then(|| BooleanBufferBuilder::new(0)),
            page: None,
            dictionary: None,
            page_locations,
            chunk_rows: rows,
            rows_left: rows,
            hint_bytes_left: value_bytes_hint(meta),
            hint_rows_left: rows,
            max_reserve_rows,
            max_reserve_bytes,
            place: place.to_owned(),
            null_output,
            records: plan.levels.map(|slot| RecordLevels::new(column.max_def_level, slot)),
            chunk_levels: usize::try_from(meta.num_values).unwrap_or(0),
            repeated: column.max_rep_level > 0,
        })
    }

    /// Appends the next `rows` rows to the array being built (see [`finish`](Self::finish)).
    pub fn append<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        self.append_inner(source, rows).map_err(|e| e.context(&self.place))
    }

    /// Room for `rows` more rows of a flat column before a batch that reads them in many
    /// short reads (matches scattered between skips): each read reserves only its own rows,
    /// so without this the values grow by doubling and are copied on the way.
    pub fn reserve_rows(&mut self, rows: usize) {
        if self.records.is_some() {
            return;
        }
        let rows = rows.min(self.max_reserve_rows);
        if let Some(d) = self.decoder.as_mut() {
            d.reserve(rows, 0);
        }
        if let Some(v) = self.validity.as_mut() {
            v.reserve(rows);
        }
    }

    /// Passes over the next `rows` rows without producing them: values inside a page are
    /// passed over by the encoding's own walk, and data pages that lie wholly inside the
    /// skip are not decompressed.
    pub fn skip<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        self.skip_inner(source, rows).map_err(|e| e.context(&self.place))
    }

    /// Hands over the levels of the rows appended since the last call (a column read with
    /// its levels; empty otherwise). Call before [`finish`](Self::finish).
    pub fn take_levels(&mut self) -> BatchLevels {
        self.records.as_mut().map(RecordLevels::take).unwrap_or_default()
    }

    /// Hands over the rows appended since the last call as one array.
    pub fn finish(&mut self) -> Result<ArrayRef> {
        let nulls = self.validity.as_mut().map(|v| NullBuffer::new(v.finish()));
        let array = match self.decoder.as_mut() {
            Some(d) => d.finish(nulls).map_err(|e| e.context(&self.place))?,
            None => new_empty_array(&self.data_type),
        };
        if self.rows_left == 0 {
            // The chunk is done: free its dictionary and buffers now.
            self.decoder = None;
        }
        if self.null_output {
            return Ok(Arc::new(NullArray::new(array.len())));
        }
        Ok(array)
    }

    fn append_inner<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        if rows > self.rows_left || self.decoder.is_none() {
            return Err(Error::invalid_argument(format!(
                "asked for {rows} rows, the column chunk has {} left",
                self.rows_left
            )));
        }
        // Size the buffers once for these rows, before their first page: a nested column's
        // rows hold the batch's share of the chunk's levels (one slot each at most).
        let (_, bytes) = self.take_hint(rows);
        // A batch short of the chunk's end gets an eighth more than its share: its values
        // hold more bytes than the average about half the time, and outgrowing the
        // reservation copies them. The last batch's share is exact.
        let bytes = if self.hint_rows_left > 0 { bytes + bytes / 8 } else { bytes };
        let slots = match self.records {
            Some(_) => self.levels_share(rows),
            None => rows,
        };
        let decoder = self.decoder.as_mut().ok_or_else(finished)?;
        decoder.reserve(slots.min(self.max_reserve_rows), bytes.min(self.max_reserve_bytes));
        if let Some(v) = self.validity.as_mut() {
            v.reserve(slots.min(self.max_reserve_rows));
        }
        if self.records.is_some() {
            self.append_records(source, rows)?;
            self.rows_left -= rows;
            return Ok(());
        }
        let mut have = 0;
        while have < rows {
            let Some(page) = self.open_page(source)? else {
                return Err(self.ended(have));
            };
            let k = (rows - have).min(page.rows - page.row);
            let index = page.index;
            self.read_rows(k).map_err(|e| e.context(format_args!("page {index}")))?;
            have += k;
            self.close_page_if_done();
        }
        self.rows_left -= rows;
        Ok(())
    }

    fn skip_inner<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        if rows > self.rows_left {
            return Err(Error::invalid_argument(format!(
                "asked to skip {rows} rows, the column chunk has {} left",
                self.rows_left
            )));
        }
        if self.records.as_ref().is_some() {
            self.skip_records(source, rows)?;
            self.rows_left -= rows;
            self.take_hint(rows);
            return Ok(());
        }
        let mut done = 0;
        while done < rows {
            if self.page.is_none() && self.jump(rows - done, &mut done)? {
                continue;
            }
            if self.page.is_none() {
                // A data page whose rows all lie inside the skip is passed over from its
                // header: its body is not read, let alone decompressed. (Flat columns only: a
                // page's value count is its row count there.)
                let left = rows - done;
                let wholly_skipped = |h: &crate::format::PageHeader| data_page_rows(h).is_some_and(|n| n <= left);
                let page = match self.stream.next_page_unless(source, wholly_skipped)? {
                    None => return Err(self.ended(done)),
                    Some(Next::Skipped(header)) => {
                        done += data_page_rows(&header).unwrap_or(0);
                        continue;
                    }
                    Some(Next::Page(page)) => page,
                };
                self.load(page)?;
                continue;
            }
            let Some(page) = self.open_page(source)? else {
                return Err(self.ended(done));
            };
            let k = (rows - done).min(page.rows - page.row);
            let index = page.index;
            self.skip_rows(k).map_err(|e| e.context(format_args!("page {index}")))?;
            done += k;
            self.close_page_if_done();
        }
        self.rows_left -= rows;
        // Skipped rows take their share of the reservation hint with them.
        self.take_hint(rows);
        Ok(())
    }

    /// The share of the chunk's levels (its footer value count) that `rows` rows hold.
    fn levels_share(&self, rows: usize) -> usize {
        (self.chunk_levels as u128 * rows as u128 / self.chunk_rows.max(1) as u128) as usize
    }

    /// Reads `rows` whole records, through as many pages as they take.
    fn append_records<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        // The batch's share of the chunk's levels, capped like every footer-sized reservation.
        // An eighth more than the share (a batch of records holds more levels than the
        // average about half the time, and outgrowing a reservation doubles it and copies);
        // the level vectors live only until the batch is assembled.
        let levels = self.levels_share(rows);
        if let Some(r) = self.records.as_mut() {
            r.reserve(levels.min(self.max_reserve_rows) + levels / 8 + 64, self.repeated);
        }
        let mut left = rows;
        loop {
            if self.open_page(source)?.is_none() {
                if left == 0 {
                    return Ok(());
                }
                return Err(self.ended(rows - left));
            }
            let (Some(page), Some(records), Some(decoder)) =
                (self.page.as_mut(), self.records.as_mut(), self.decoder.as_mut())
            else {
                return Err(finished());
            };
            let index = page.index;
            left = records
                .read(page, left, decoder.as_mut(), self.validity.as_mut())
                .map_err(|e| e.context(format_args!("page {index}")))?;
            if page.row < page.rows {
                return Ok(()); // stopped where the next record starts
            }
            self.close_page_if_done();
        }
    }

    /// Passes over `rows` whole records. Pages are opened to find where records end (a v1
    /// page's header counts levels, not records), unless the OffsetIndex says.
    fn skip_records<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        let mut left = rows;
        loop {
            // Between pages, a consistent OffsetIndex moves straight to the page holding the
            // target record: its pages start at records, which it counts.
            let mut done = rows - left;
            if self.page.is_none() && left > 0 && self.jump(left, &mut done)? {
                left = rows - done;
                continue;
            }
            if self.open_page(source)?.is_none() {
                if left == 0 {
                    return Ok(());
                }
                return Err(self.ended(rows - left));
            }
            let (Some(page), Some(records)) = (self.page.as_mut(), self.records.as_mut()) else {
                return Err(finished());
            };
            let index = page.index;
            left = records.skip(page, left).map_err(|e| e.context(format_args!("page {index}")))?;
            if page.row < page.rows {
                return Ok(());
            }
            self.close_page_if_done();
        }
    }

    /// With the chunk's page locations, moves the stream (at a page boundary) to the page
    /// holding the row `left` rows ahead, adding the rows passed over to `done`; false if it
    /// cannot (no locations, the stream before the first data page, nothing to pass over).
    fn jump(&mut self, left: usize, done: &mut usize) -> Result<bool> {
        let Some(locations) = &self.page_locations else { return Ok(false) };
        let here = self.chunk_rows - self.rows_left + *done;
        let target = here + left;
        let pos = self.stream.position();
        // Only from a page the index knows, at the row it says: past the dictionary page,
        // and a check that the index and the pages read so far agree.
        let Some(from) = locations.iter().position(|l| l.offset as u64 == pos) else { return Ok(false) };
        if locations[from].first_row_index as usize != here {
            return Ok(false);
        }
        let to = locations.partition_point(|l| l.first_row_index as usize <= target) - 1;
        if to <= from {
            return Ok(false);
        }
        let first = locations[to].first_row_index as usize;
        self.stream.seek(locations[to].offset as u64, to - from, (first - here) as i64)?;
        *done += first - here;
        Ok(true)
    }

    /// Takes the share of the chunk's rows and value bytes hint that `rows` rows have.
    fn take_hint(&mut self, rows: usize) -> (usize, usize) {
        let bytes = if rows >= self.hint_rows_left {
            self.hint_bytes_left
        } else {
            (self.hint_bytes_left as u128 * rows as u128 / self.hint_rows_left.max(1) as u128) as usize
        };
        self.hint_bytes_left -= bytes.min(self.hint_bytes_left);
        self.hint_rows_left = self.hint_rows_left.saturating_sub(rows);
        (rows, bytes)
    }

    /// Hands the open page's next `k` rows to the decoder.
    fn read_rows(&mut self, k: usize) -> Result<()> {
        let (Some(page), Some(decoder)) = (self.page.as_mut(), self.decoder.as_mut()) else {
            return Err(finished());
        };
        let Some(validity) = self.validity.as_mut() else {
            // A required column: every row has a value.
            page.row += k;
            return decoder.read(&mut page.values, k, None);
        };
        let start = validity.len();
        // Straight from the page's bitmap, not through a slice of it: a selective read takes
        // a row or two between skips, and a slice costs a reference count each time.
        let valid = match &page.validity {
            Some(bits) => {
                let at = bits.offset() + page.row;
                validity.append_packed_range(at..at + k, bits.values());
                bits.inner().count_set_bits_offset(at, k)
            }
            None => {
                validity.append_n(k, true);
                k
            }
        };
        page.row += k;
        let bits = Validity { bits: validity.as_slice(), offset: start, len: k, null_count: k - valid };
        let result = decoder.read(&mut page.values, valid, Some(&bits));
        if result.is_err() {
            validity.truncate(start);
        }
        result
    }

    /// Passes over the open page's next `k` rows.
    fn skip_rows(&mut self, k: usize) -> Result<()> {
        let Some(page) = self.page.as_mut() else { return Err(finished()) };
        let valid = match &page.validity {
            Some(bits) => bits.inner().count_set_bits_offset(bits.offset() + page.row, k),
            None => k,
        };
        page.row += k;
        page.values.skip(valid)
    }

    /// Closes the open page once all its rows were read, handing its buffers back.
    fn close_page_if_done(&mut self) {
        if self.page.as_ref().is_some_and(|p| p.row == p.rows) {
            if let Some(page) = self.page.take() {
                self.pages.close(page, &mut self.stream);
            }
        }
    }

    /// Loads a page: a dictionary goes to the decoder, a data page becomes the open page.
    /// The dictionary is decompressed and decoded only once a dictionary-encoded data page
    /// comes: a selective read whose pages are PLAIN (a writer's fallback once the dictionary
    /// grew too large) never pays for it (`SELECT *` with a 5-row filter on TPC-H lineitem
    /// spent half its time decompressing dictionaries). A `Dictionary` output takes it at
    /// once: it keeps the dictionary's values before any page's own.
    fn load(&mut self, page: Page) -> Result<()> {
        let keeps_dictionary = matches!(self.data_type, DataType::Dictionary(..));
        if page.header.page_type == PageType::DICTIONARY_PAGE && !keeps_dictionary {
            self.dictionary = Some(page);
            return Ok(());
        }
        if dictionary_encoded(&page.header) {
            if let Some(dictionary) = self.dictionary.take() {
                self.load_now(dictionary)?;
            }
        }
        self.load_now(page)
    }

    fn load_now(&mut self, page: Page) -> Result<()> {
        let index = page.index;
        let loaded = self.pages.load(page).map_err(|e| e.context(format_args!("page {index}")))?;
        match loaded {
            Loaded::Dictionary(values) => self
                .decoder
                .as_mut()
                .ok_or_else(finished)?
                .set_dictionary(&values)
                .map_err(|e| e.context(format_args!("page {index}"))),
            Loaded::Data(open) => {
                self.page = Some(open);
                Ok(())
            }
            Loaded::Other => Ok(()),
        }
    }

    /// The open data page, opening the next one (past dictionary and index pages) if there
    /// is none; `None` when the chunk has no more pages.
    fn open_page<S: ChunkSource>(&mut self, source: &S) -> Result<Option<&mut OpenPage>> {
        while self.page.as_ref().is_none_or(|p| p.row == p.rows) {
            self.close_page_if_done();
            let Some(page) = self.stream.next_page(source)? else { return Ok(None) };
            self.load(page)?;
        }
        Ok(self.page.as_mut())
    }
}

impl ColumnReader {
    /// The error of a chunk whose pages ran out `done` rows into the current read or skip:
    /// it counts over the whole chunk (a batch's own count says little), and names the last
    /// page, where the rows ran out.
    fn ended(&self, done: usize) -> Error {
        let read = self.chunk_rows - self.rows_left + done;
        let last = match self.stream.pages_passed() {
            0 => String::new(),
            n => format!(", after its last page, page {}", n - 1),
        };
        Error::corrupt(format!("the column chunk ended after {read} of its {} rows{last}", self.chunk_rows))
    }
}

/// Whether a data page's values are dictionary indexes.
fn dictionary_encoded(header: &crate::format::PageHeader) -> bool {
    let encoding = match (&header.data_page_header, &header.data_page_header_v2) {
        (Some(h), _) => h.encoding,
        (None, Some(h)) => h.encoding,
        (None, None) => return false,
    };
    matches!(encoding, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY)
}

fn finished() -> Error {
    Error::invalid_argument("the column chunk was already read to its end")
}

/// The bytes of values the chunk holds, for sizing buffers once: exact from SizeStatistics
/// when present, else estimated from the uncompressed size.
fn value_bytes_hint(meta: &ColumnMetaData) -> usize {
    if let Some(b) = meta.size_statistics.as_ref().and_then(|s| s.unencoded_byte_array_data_bytes) {
        return usize::try_from(b).unwrap_or(0);
    }
    usize::try_from(meta.total_uncompressed_size).unwrap_or(0)
}

/// Row and byte counts come from the footer, which a broken or hostile file can inflate: cap
/// what is reserved up front by what the chunk's real bytes could plausibly expand to; buffers
/// still grow past it if the data really is that large.
fn bounded_rows(rows: usize, meta: &ColumnMetaData) -> usize {
    let stored = usize::try_from(meta.total_compressed_size).unwrap_or(0);
    rows.min(stored.saturating_mul(64).saturating_add(4096))
}

fn bounded_bytes(bytes: usize, meta: &ColumnMetaData) -> usize {
    let stored = usize::try_from(meta.total_compressed_size).unwrap_or(0);
    bytes.min(stored.saturating_mul(256).saturating_add(1 << 20))
}
