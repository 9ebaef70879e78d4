//! One column chunk → Arrow arrays, batch by batch.
//!
//! A [`ColumnReader`] pulls pages from its [`PageStream`], checks CRCs, decompresses, splits
//! levels from values, turns definition levels into validity bits and hands the values to the
//! [`ValueDecoder`] of the output type. Decoders take whole values sections; batches are cut
//! here: a page that overshoots the batch is cut between two values ([`super::cut`]) and its
//! rest opens the next batch. Pages that cannot be cut (booleans) are decoded whole and the
//! extra rows are kept as a slice of the finished array, joined to the next batch.

use std::sync::Arc;

use arrow_array::{new_empty_array, Array, ArrayRef, NullArray};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer};
use arrow_schema::{DataType, Field, Schema};

use super::byte_array::byte_array_decoder;
use super::cut::{Cutter, Section};
use super::fixed::fixed_decoder;
use super::levels::{append_validity, split_v1_levels, LevelData};
use super::options::{ByteArrayType, ReadOptions};
use super::values::{PageValues, ValueDecoder, Validity};
use crate::compress::{Codec, Decompressor};
use crate::error::{Error, Result};
use crate::format::{ColumnMetaData, Encoding, FileMetaData, PageType, PhysicalType};
use crate::page::{has_parquet_816_bug, ChunkSource, Page, PageStream, MAX_RECYCLED};
use crate::schema::{ColumnDescriptor, SchemaDescriptor};

/// What to read for one selected top-level field: its leaf column and output type.
#[derive(Debug, Clone)]
pub struct ColumnPlan {
    /// The output field.
    pub field: Field,
    /// The leaf column index.
    pub leaf: usize,
}

impl ColumnPlan {
    /// Plans the read of top-level field `field_index`, applying the options' type override.
    pub fn new(
        schema: &SchemaDescriptor,
        arrow: &Schema,
        field_index: usize,
        options: &ReadOptions,
    ) -> Result<Self> {
        let field = arrow.field(field_index);
        let node = &schema.root.children[field_index];
        let Some(leaf) = node.leaf else {
            return Err(Error::unsupported(format!(
                "column '{}' is nested (a list, map or struct): nested columns are not supported yet",
                field.name()
            )));
        };
        if node.max_rep_level > 0 {
            return Err(Error::unsupported(format!(
                "column '{}' is a repeated field: nested columns are not supported yet",
                field.name()
            )));
        }
        let column = &schema.columns[leaf];
        let mut data_type = field.data_type().clone();
        if let (Some(t), PhysicalType::BYTE_ARRAY) = (options.byte_array_type, column.physical_type) {
            data_type = override_byte_array(&data_type, t);
        }
        Ok(ColumnPlan { field: field.clone().with_data_type(data_type), leaf })
    }
}

fn override_byte_array(current: &DataType, t: ByteArrayType) -> DataType {
    let text = matches!(
        current,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
    ) || matches!(current, DataType::Dictionary(_, v)
        if matches!(**v, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View));
    let binary = matches!(
        current,
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView
    ) || matches!(current, DataType::Dictionary(_, v)
        if matches!(**v, DataType::Binary | DataType::LargeBinary | DataType::BinaryView));
    if !text && !binary {
        return current.clone(); // decimals and other non-string BYTE_ARRAY types keep theirs
    }
    match (t, text) {
        (ByteArrayType::Regular, true) => DataType::Utf8,
        (ByteArrayType::Regular, false) => DataType::Binary,
        (ByteArrayType::Large, true) => DataType::LargeUtf8,
        (ByteArrayType::Large, false) => DataType::LargeBinary,
        (ByteArrayType::View, true) => DataType::Utf8View,
        (ByteArrayType::View, false) => DataType::BinaryView,
        (ByteArrayType::Dictionary, true) => {
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
        }
        (ByteArrayType::Dictionary, false) => {
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Binary))
        }
    }
}

/// Reads one column chunk.
pub struct ColumnReader {
    stream: PageStream,
    /// `None` once every row of the chunk has been returned: the decoder's dictionary and
    /// buffers are freed then, not when the whole row group is done.
    decoder: Option<Box<dyn ValueDecoder>>,
    decompressor: Decompressor,
    codec: Codec,
    data_type: DataType,
    max_def: i16,
    /// Validity bits of the rows handed to the decoder since its last `finish`.
    validity: Option<BooleanBufferBuilder>,
    /// Rows of the last finished array not yet returned (only after a page that could not be
    /// split at the batch boundary; see [`Pending`]).
    carry: Option<ArrayRef>,
    /// The rest of a page that was split at the end of the last batch.
    pending: Option<Pending>,
    /// Cuts pages at a batch boundary.
    cutter: Cutter,
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
    verify_crc: bool,
    seen_dictionary: bool,
    /// A decompression buffer recovered from the last page, reused to avoid a fresh
    /// allocation (and the kernel's zero-filled pages) for every page.
    scratch: Vec<u8>,
    /// The file's column is read as INT32 and returned as a [`NullArray`].
    null_output: bool,
}

impl ColumnReader {
    /// Prepares to read column `plan` of row group `row_group`.
    pub fn open<S: ChunkSource>(
        source: &mut S,
        metadata: &FileMetaData,
        schema: &SchemaDescriptor,
        row_group: usize,
        plan: &ColumnPlan,
        options: &ReadOptions,
    ) -> Result<Self> {
        let column = &schema.columns[plan.leaf];
        let place = format!("row group {row_group}, column '{}'", column.dotted_path());
        Self::open_inner(source, metadata, column, row_group, plan, options, &place)
            .map_err(|e| e.context(&place))
    }

    #[allow(clippy::too_many_arguments)]
    fn open_inner<S: ChunkSource>(
        source: &mut S,
        metadata: &FileMetaData,
        column: &ColumnDescriptor,
        row_group: usize,
        plan: &ColumnPlan,
        options: &ReadOptions,
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
        let decoder = match column.physical_type {
            PhysicalType::BYTE_ARRAY => byte_array_decoder(column, &data_type)?,
            _ => fixed_decoder(column, &data_type)?,
        };
        let rows = usize::try_from(rg.num_rows).unwrap_or(0);
        let padding = has_parquet_816_bug(metadata.created_by.as_deref());
        let stream = PageStream::new(meta, source.len(), padding)?;
        let (start, len) = stream.byte_range();
        source.will_need(start, len);
        let max_reserve_rows = bounded_rows(usize::MAX, meta);
        let max_reserve_bytes = bounded_bytes(usize::MAX, meta);
        Ok(ColumnReader {
            stream,
            decoder: Some(decoder),
            decompressor: Decompressor::new(),
            codec,
            data_type,
            max_def: column.max_def_level,
            validity: (column.max_def_level > 0).then(|| BooleanBufferBuilder::new(0)),
            carry: None,
            pending: None,
            cutter: Cutter {
                physical_type: column.physical_type,
                type_length: usize::try_from(column.type_length).unwrap_or(0),
            },
            rows_left: rows,
            hint_bytes_left: value_bytes_hint(meta),
            hint_rows_left: rows,
            max_reserve_rows,
            max_reserve_bytes,
            place: place.to_owned(),
            verify_crc: options.verify_crc,
            seen_dictionary: false,
            scratch: Vec::new(),
            null_output,
        })
    }

    /// Reads the next `rows` rows as one array.
    pub fn read<S: ChunkSource>(&mut self, source: &mut S, rows: usize) -> Result<ArrayRef> {
        let array = self.read_inner(source, rows).map_err(|e| e.context(&self.place))?;
        if self.null_output {
            return Ok(Arc::new(NullArray::new(array.len())));
        }
        Ok(array)
    }

    fn read_inner<S: ChunkSource>(&mut self, source: &mut S, rows: usize) -> Result<ArrayRef> {
        let carried = self.carry.as_ref().map_or(0, |c| c.len());
        if carried >= rows {
            return Ok(self.take_carry(rows));
        }
        let Some(decoder) = self.decoder.as_mut() else {
            return Err(Error::invalid_argument(format!(
                "asked for {rows} rows after the column chunk's last row"
            )));
        };
        if decoder.is_empty() {
            // Size this batch's buffers once, before its first page.
            let want = rows - carried;
            let bytes = if want >= self.hint_rows_left {
                self.hint_bytes_left
            } else {
                (self.hint_bytes_left as u128 * want as u128 / self.hint_rows_left.max(1) as u128)
                    as usize
            };
            self.hint_bytes_left -= bytes.min(self.hint_bytes_left);
            self.hint_rows_left = self.hint_rows_left.saturating_sub(want);
            decoder.reserve(want.min(self.max_reserve_rows), bytes.min(self.max_reserve_bytes));
            if let Some(v) = self.validity.as_mut() {
                v.reserve(want.min(self.max_reserve_rows));
            }
        }
        loop {
            let have = carried + self.decoder.as_ref().map_or(0, |d| d.len());
            if have >= rows {
                break;
            }
            let room = rows - have;
            if let Some(p) = self.pending.take() {
                let levels = PageLevels::Decoded(p.validity);
                self.append_values(p.section, p.rows, levels, room)?;
                continue;
            }
            let Some(page) = self.stream.next_page(source)? else {
                return Err(Error::corrupt(format!(
                    "the column chunk ended after {have} of its rows"
                )));
            };
            let index = page.index;
            let body = page.body.clone();
            self.append_page(page, room).map_err(|e| e.context(format_args!("page {index}")))?;
            self.stream.recycle(body);
        }
        let nulls = self.validity.as_mut().map(|v| NullBuffer::new(v.finish()));
        let fresh = match self.decoder.as_mut() {
            Some(d) => d.finish(nulls)?,
            None => new_empty_array(&self.data_type),
        };
        let all = match self.carry.take() {
            Some(c) => concat(&c, &fresh)?,
            None => fresh,
        };
        self.carry = Some(all);
        let out = self.take_carry(rows);
        if self.rows_left == 0 {
            self.decoder = None;
        }
        Ok(out)
    }

    fn take_carry(&mut self, rows: usize) -> ArrayRef {
        let Some(c) = self.carry.take() else { return new_empty_array(&self.data_type) };
        self.rows_left = self.rows_left.saturating_sub(rows);
        if c.len() == rows {
            return c;
        }
        let out = c.slice(0, rows);
        self.carry = Some(c.slice(rows, c.len() - rows));
        out
    }

    fn decoder_mut(&mut self) -> Result<&mut Box<dyn ValueDecoder>> {
        self.decoder.as_mut().ok_or_else(finished)
    }

    fn decompress(&mut self, input: &[u8], expected: usize) -> Result<Buffer> {
        if self.codec == Codec::Uncompressed {
            // The caller passes a slice of the page body; copying it would waste the point
            // of uncompressed data, so callers handle this case before getting here.
            return Err(Error::corrupt("internal: decompress called for an uncompressed page"));
        }
        crate::compress::check_expansion(self.codec, input.len(), expected)?;
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        self.decompressor.decompress(self.codec, input, expected, &mut out)?;
        Ok(Buffer::from_vec(out))
    }

    /// Gives a page buffer back for reuse if no decoder kept a reference to it.
    fn recycle(&mut self, buffer: Buffer) {
        if let Ok(v) = buffer.into_vec::<u8>() {
            if v.capacity() > self.scratch.capacity() && v.capacity() <= MAX_RECYCLED {
                self.scratch = v;
            }
        }
    }

    fn append_page(&mut self, page: Page, room: usize) -> Result<()> {
        if self.verify_crc {
            if let Some(crc) = page.header.crc {
                let actual = crc32fast::hash(page.body.as_slice());
                if actual != crc as u32 {
                    return Err(Error::corrupt(format!(
                        "page CRC mismatch: the header says {:#010x}, the page bytes give {actual:#010x}",
                        crc as u32
                    )));
                }
            }
        }
        let h = &page.header;
        let expected = h.uncompressed_page_size as usize;
        match h.page_type {
            PageType::DICTIONARY_PAGE => {
                let Some(d) = &h.dictionary_page_header else {
                    return Err(Error::corrupt("dictionary page without a dictionary page header"));
                };
                if self.seen_dictionary {
                    return Err(Error::corrupt("a second dictionary page in one column chunk"));
                }
                self.seen_dictionary = true;
                let num_values = non_negative(d.num_values, "dictionary value count")?;
                let (encoding, body) = (d.encoding, page.body.clone());
                let buffer = match self.codec {
                    Codec::Uncompressed => body,
                    _ => self.decompress(body.as_slice(), expected)?,
                };
                let values = PageValues {
                    encoding,
                    buffer: &buffer,
                    offset: 0,
                    data: buffer.as_slice(),
                    num_values,
                };
                self.decoder_mut()?.set_dictionary(&values)?;
                Ok(())
            }
            PageType::DATA_PAGE => {
                let Some(d) = &h.data_page_header else {
                    return Err(Error::corrupt("data page without a data page header"));
                };
                let num_values = non_negative(d.num_values, "value count")?;
                let (encoding, def_encoding) = (d.encoding, d.definition_level_encoding);
                let buffer = match self.codec {
                    Codec::Uncompressed => page.body.clone(),
                    _ => self.decompress(page.body.as_slice(), expected)?,
                };
                let data = buffer.as_slice();
                let (levels, values) = if self.max_def > 0 {
                    let (l, rest) =
                        split_v1_levels(data, def_encoding, self.max_def, num_values, "definition")?;
                    (PageLevels::Encoded(l), rest)
                } else {
                    (PageLevels::None, data)
                };
                let offset = data.len() - values.len();
                let len = buffer.len() - offset;
                let section = Section { buffer: buffer.clone(), offset, len, encoding };
                self.append_values(section, num_values, levels, room)?;
                self.recycle(buffer);
                Ok(())
            }
            PageType::DATA_PAGE_V2 => {
                let Some(d) = &h.data_page_header_v2 else {
                    return Err(Error::corrupt("data page v2 without a data page v2 header"));
                };
                let num_values = non_negative(d.num_values, "value count")?;
                let rep_len = non_negative(d.repetition_levels_byte_length, "repetition levels length")?;
                let def_len = non_negative(d.definition_levels_byte_length, "definition levels length")?;
                let body = page.body.as_slice();
                let levels_len = rep_len.checked_add(def_len).filter(|&l| l <= body.len()).ok_or_else(|| {
                    Error::corrupt(format!(
                        "levels of {rep_len} + {def_len} bytes do not fit in the {}-byte page",
                        body.len()
                    ))
                })?;
                let compressed = d.is_compressed.unwrap_or(true) && self.codec != Codec::Uncompressed;
                let encoding = d.encoding;
                let values_buffer = if compressed {
                    let expected = expected.checked_sub(levels_len).ok_or_else(|| {
                        Error::corrupt(format!(
                            "uncompressed page size {expected} is smaller than its {levels_len} bytes of levels"
                        ))
                    })?;
                    self.decompress(&body[levels_len..], expected)?
                } else {
                    page.body.slice(levels_len)
                };
                let levels = match self.max_def {
                    0 => PageLevels::None,
                    _ => PageLevels::Encoded(LevelData::Rle(&body[rep_len..levels_len])),
                };
                let len = values_buffer.len();
                let section = Section { buffer: values_buffer.clone(), offset: 0, len, encoding };
                self.append_values(section, num_values, levels, room)?;
                self.recycle(values_buffer);
                Ok(())
            }
            // Index pages carry nothing a reader needs; unknown page types are skipped as
            // other readers do.
            _ => Ok(()),
        }
    }

    /// Appends a page's rows to the batch: all of them, or, when the page holds more than
    /// `room` rows and its values can be cut there, the first `room` rows, keeping the rest as
    /// [`Pending`] for the next batch (so a batch that ends inside a page copies nothing twice).
    fn append_values(
        &mut self,
        section: Section,
        rows: usize,
        levels: PageLevels<'_>,
        room: usize,
    ) -> Result<()> {
        let encoding = section.encoding;
        let whole = rows <= room || !self.cutter.can_cut(encoding);
        let Some(validity) = self.validity.as_mut() else {
            // A required column: every row has a value.
            if whole {
                return self.append_section(&section, rows, None);
            }
            let (first, rest) = self.cutter.cut(&section, rows, room)?;
            self.append_section(&first, room, None)?;
            let validity = BooleanBuffer::new_set(rows - room);
            self.pending = Some(Pending { section: rest, rows: rows - room, validity });
            return Ok(());
        };
        let start = validity.len();
        // Fast path: the whole page fits, or cannot be cut; levels go straight into the
        // batch's validity bits.
        let all = match levels {
            PageLevels::Encoded(l) if whole => {
                let valid = append_validity(l, self.max_def, rows, validity)?;
                return self.append_section(&section, valid, Some((start, rows)));
            }
            PageLevels::Decoded(b) if whole => {
                validity.append_buffer(&b);
                return self.append_section(&section, b.count_set_bits(), Some((start, rows)));
            }
            PageLevels::None => {
                validity.append_n(rows, true);
                return self.append_section(&section, rows, Some((start, rows)));
            }
            PageLevels::Encoded(l) => {
                let mut all = BooleanBufferBuilder::new(rows);
                append_validity(l, self.max_def, rows, &mut all)?;
                all.finish()
            }
            PageLevels::Decoded(b) => b,
        };
        let head = all.slice(0, room);
        let tail = all.slice(room, rows - room);
        let head_valid = head.count_set_bits();
        let values = head_valid + tail.count_set_bits();
        let (first, rest) = if head_valid < values {
            self.cutter.cut(&section, values, head_valid)?
        } else {
            // Every value is in the first part; the rest of the page is nulls.
            let empty = Buffer::from_vec(Vec::<u8>::new());
            let rest = Section { buffer: empty, offset: 0, len: 0, encoding: Encoding::PLAIN };
            (section, rest)
        };
        validity.append_buffer(&head);
        self.append_section(&first, head_valid, Some((start, room)))?;
        self.pending = Some(Pending { section: rest, rows: rows - room, validity: tail });
        Ok(())
    }

    /// Hands one values section of `values` values to the decoder; `rows` gives the start
    /// and count of its rows' bits in the batch's validity, if the column is optional.
    fn append_section(
        &mut self,
        section: &Section,
        values: usize,
        rows: Option<(usize, usize)>,
    ) -> Result<()> {
        let page = PageValues {
            encoding: section.encoding,
            buffer: &section.buffer,
            offset: section.offset,
            data: section.data(),
            num_values: values,
        };
        let decoder = self.decoder.as_mut().ok_or_else(finished)?;
        match (rows, self.validity.as_ref()) {
            (Some((start, len)), Some(validity)) => {
                let bits = Validity {
                    bits: validity.as_slice(),
                    offset: start,
                    len,
                    null_count: len - values,
                };
                decoder.append_page(&page, Some(&bits))
            }
            _ => decoder.append_page(&page, None),
        }
    }
}

/// The definition levels of a page, as stored or already decoded (for the rest of a page cut
/// at a batch boundary).
enum PageLevels<'a> {
    /// A required column: no levels.
    None,
    /// Levels as stored in the page.
    Encoded(LevelData<'a>),
    /// One validity bit per row.
    Decoded(BooleanBuffer),
}

/// The rest of a page cut at a batch boundary (see [`super::cut`]): its values section and
/// the validity of its rows.
struct Pending {
    section: Section,
    rows: usize,
    validity: BooleanBuffer,
}

fn finished() -> Error {
    Error::invalid_argument("the column chunk was already read to its end")
}

fn non_negative(v: i32, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::corrupt(format!("negative {what} {v}")))
}

fn concat(a: &ArrayRef, b: &ArrayRef) -> Result<ArrayRef> {
    arrow_select::concat::concat(&[a.as_ref(), b.as_ref()])
        .map_err(|e| Error::corrupt(format!("joining pages across a batch boundary: {e}")))
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

