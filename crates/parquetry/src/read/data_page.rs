//! A column chunk's stored pages turned into what a column reader reads: the page decode
//! layer.
//!
//! [`PageDecoder::load`] checks a page's CRC, decompresses it (into a recycled buffer), decodes
//! a data page's definition levels into one validity bit per row and opens its values section
//! ([`PageValues`]), which then stays open across batches as an [`OpenPage`]. A dictionary
//! page comes out whole, for the value decoder.

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer};

use super::levels::{append_validity, decode_levels, split_v1_levels, LevelData};
use super::page_values::{PageScratch, PageValues, ValueKind};
use crate::compress::{Codec, Decompressor};
use crate::error::{Error, Result};
use crate::format::{Encoding, PageType};
use crate::page::{Page, PageStream, MAX_RECYCLED};

/// What a loaded page is.
pub(crate) enum Loaded {
    /// The chunk's dictionary page: PLAIN values for the value decoder.
    Dictionary(PageValues),
    /// A data page, open for reading.
    Data(OpenPage),
    /// A page a reader has no use for (index pages, unknown types).
    Other,
}

/// A data page being read: its values, and the validity of its rows.
pub(crate) struct OpenPage {
    /// The page's position in the chunk, for error messages.
    pub index: usize,
    pub values: PageValues,
    /// One bit per row of the page (optional columns; `None`: every row valid). Not used
    /// when the page keeps its levels.
    pub validity: Option<BooleanBuffer>,
    /// The page's levels, for a column read with its levels (nested columns).
    pub levels: Option<PageLevels>,
    /// The page's rows (for a column read with levels: its levels) and the first not yet
    /// read or skipped.
    pub rows: usize,
    pub row: usize,
    /// The buffers behind `values`, handed back for reuse when the page is done: the
    /// decompressed page (if compressed) and the stored body.
    decompressed: Option<Buffer>,
    body: Buffer,
}

/// A data page's definition and repetition levels, one of each per level (a repetition
/// vector is empty when the column repeats nowhere).
pub(crate) struct PageLevels {
    pub definition: Vec<i16>,
    pub repetition: Vec<i16>,
}

/// Loads the pages of one column chunk, keeping the buffers and state pages share.
pub(crate) struct PageDecoder {
    decompressor: Decompressor,
    codec: Codec,
    kind: ValueKind,
    max_def: i16,
    max_rep: i16,
    /// Decode levels into [`PageLevels`] rather than validity bits (nested columns).
    keep_levels: bool,
    /// The most levels a page may have: the chunk's value count. Levels are two bytes each
    /// and RLE runs make billions of them from a few bytes, so a page header (or a level run)
    /// claiming more than its chunk holds is refused before anything is sized by it.
    max_levels: usize,
    verify_crc: bool,
    seen_dictionary: bool,
    /// A decompression buffer recovered from the last page, reused to avoid a fresh
    /// allocation (and the kernel's zero-filled pages) for every page.
    scratch: Vec<u8>,
    /// Vectors the DELTA byte-array encodings hand from page to page.
    page_scratch: PageScratch,
    /// The last closed page's level vectors, reused by the next page (fresh ones cost page
    /// faults on every page).
    spare_levels: Option<PageLevels>,
    /// A cap on the validity bits reserved up front (a page's row count comes from its
    /// header, which a broken file can inflate).
    max_reserve_rows: usize,
}

impl PageDecoder {
    /// A page decoder for a chunk in `codec` of values of `kind`, with definition levels up
    /// to `max_def`.
    pub fn new(codec: Codec, kind: ValueKind, max_def: i16, verify_crc: bool, max_reserve_rows: usize) -> Self {
        PageDecoder {
            decompressor: Decompressor::new(),
            codec,
            kind,
            max_def,
            max_rep: 0,
            keep_levels: false,
            max_levels: usize::MAX,
            verify_crc,
            seen_dictionary: false,
            scratch: Vec::new(),
            page_scratch: PageScratch::default(),
            spare_levels: None,
            max_reserve_rows,
        }
    }

    /// Keeps each data page's levels (repetition up to `max_rep`) instead of turning
    /// definition levels into validity bits: nested columns need them. A page may have at
    /// most `max_levels` (the chunk's value count in the footer).
    pub fn keep_levels(mut self, max_rep: i16, max_levels: usize) -> Self {
        self.keep_levels = true;
        self.max_rep = max_rep;
        self.max_levels = max_levels;
        self
    }

    fn decompress(&mut self, input: &[u8], expected: usize) -> Result<Buffer> {
        crate::compress::check_expansion(self.codec, input.len(), expected)?;
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        self.decompressor.decompress(self.codec, input, expected, &mut out)?;
        Ok(Buffer::from_vec(out))
    }

    /// Hands a finished page's buffers back for reuse: its vectors to the next page, its
    /// decompressed bytes to the next decompression and its stored body to the stream.
    pub fn close(&mut self, page: OpenPage, stream: &mut PageStream) {
        page.values.recycle(&mut self.page_scratch);
        if let Some(levels) = page.levels {
            self.spare_levels = Some(levels);
        }
        if let Some(d) = page.decompressed {
            self.recycle(d);
        }
        stream.recycle(page.body);
    }

    /// Gives a page buffer back for reuse if no decoder kept a reference to it.
    fn recycle(&mut self, buffer: Buffer) {
        if let Ok(v) = buffer.into_vec::<u8>() {
            if v.capacity() > self.scratch.capacity() && v.capacity() <= MAX_RECYCLED {
                self.scratch = v;
            }
        }
    }

    /// Checks, decompresses and opens a page.
    pub fn load(&mut self, page: Page) -> Result<Loaded> {
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
        let expected = h.uncompressed_page_size.max(0) as usize;
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
                let encoding = d.encoding;
                let buffer = match self.codec {
                    Codec::Uncompressed => page.body.clone(),
                    _ => self.decompress(page.body.as_slice(), expected)?,
                };
                Ok(Loaded::Dictionary(PageValues::dictionary(buffer, encoding, num_values)))
            }
            PageType::DATA_PAGE => {
                let Some(d) = &h.data_page_header else {
                    return Err(Error::corrupt("data page without a data page header"));
                };
                let rows = non_negative(d.num_values, "value count")?;
                let (encoding, def_encoding) = (d.encoding, d.definition_level_encoding);
                let rep_encoding = d.repetition_level_encoding;
                let decompressed = match self.codec {
                    Codec::Uncompressed => None,
                    _ => Some(self.decompress(page.body.as_slice(), expected)?),
                };
                let buffer = decompressed.as_ref().unwrap_or(&page.body);
                let data = buffer.as_slice();
                if self.keep_levels {
                    let mut levels = self.new_levels(rows)?;
                    let mut rest = data;
                    if self.max_rep > 0 {
                        let (l, r) = split_v1_levels(rest, rep_encoding, self.max_rep, rows, "repetition")?;
                        decode_levels(l, self.max_rep, rows, &mut levels.repetition, "repetition")?;
                        rest = r;
                    }
                    if self.max_def > 0 {
                        let (l, r) = split_v1_levels(rest, def_encoding, self.max_def, rows, "definition")?;
                        decode_levels(l, self.max_def, rows, &mut levels.definition, "definition")?;
                        rest = r;
                    }
                    let section = buffer.slice(data.len() - rest.len());
                    let parts = PageParts { section, encoding, rows, validity: None, decompressed, body: page.body };
                    return self.open_levels_page(page.index, parts, levels).map(Loaded::Data);
                }
                let (validity, values_at) = if self.max_def > 0 {
                    let (l, rest) = split_v1_levels(data, def_encoding, self.max_def, rows, "definition")?;
                    (Some(self.decode_validity(l, rows)?), data.len() - rest.len())
                } else {
                    (None, 0)
                };
                let section = buffer.slice(values_at);
                let parts = PageParts { section, encoding, rows, validity, decompressed, body: page.body };
                self.open_data_page(page.index, parts).map(Loaded::Data)
            }
            PageType::DATA_PAGE_V2 => {
                let Some(d) = &h.data_page_header_v2 else {
                    return Err(Error::corrupt("data page v2 without a data page v2 header"));
                };
                let rows = non_negative(d.num_values, "value count")?;
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
                let mut levels = None;
                let validity = if self.keep_levels {
                    let mut l = self.new_levels(rows)?;
                    if self.max_rep > 0 {
                        decode_levels(LevelData::Rle(&body[..rep_len]), self.max_rep, rows, &mut l.repetition, "repetition")?;
                    }
                    if self.max_def > 0 {
                        let def = LevelData::Rle(&body[rep_len..levels_len]);
                        decode_levels(def, self.max_def, rows, &mut l.definition, "definition")?;
                    }
                    levels = Some(l);
                    None
                } else {
                    match self.max_def {
                        0 => None,
                        _ => Some(self.decode_validity(LevelData::Rle(&body[rep_len..levels_len]), rows)?),
                    }
                };
                let (section, decompressed) = if compressed {
                    let expected = expected.checked_sub(levels_len).ok_or_else(|| {
                        Error::corrupt(format!(
                            "uncompressed page size {expected} is smaller than its {levels_len} bytes of levels"
                        ))
                    })?;
                    let values = self.decompress(&body[levels_len..], expected)?;
                    (values.clone(), Some(values))
                } else {
                    (page.body.slice(levels_len), None)
                };
                let parts = PageParts { section, encoding, rows, validity, decompressed, body: page.body };
                match levels {
                    Some(l) => self.open_levels_page(page.index, parts, l).map(Loaded::Data),
                    None => self.open_data_page(page.index, parts).map(Loaded::Data),
                }
            }
            // Index pages carry nothing a reader needs; unknown page types are skipped as
            // other readers do.
            _ => Ok(Loaded::Other),
        }
    }

    /// Decodes a page's definition levels into one validity bit per row.
    fn decode_validity(&self, levels: LevelData<'_>, rows: usize) -> Result<BooleanBuffer> {
        let mut bits = BooleanBufferBuilder::new(rows.min(self.max_reserve_rows));
        append_validity(levels, self.max_def, rows, &mut bits)?;
        Ok(bits.finish())
    }

    fn open_data_page(&mut self, index: usize, parts: PageParts) -> Result<OpenPage> {
        let PageParts { section, encoding, rows, validity, decompressed, body } = parts;
        let values = validity.as_ref().map_or(rows, BooleanBuffer::count_set_bits);
        let values = PageValues::new(section, encoding, values, self.kind, &mut self.page_scratch)?;
        Ok(OpenPage { index, values, validity, levels: None, rows, row: 0, decompressed, body })
    }

    /// Empty level vectors with room for a page's levels, bounded against inflated headers.
    fn new_levels(&mut self, rows: usize) -> Result<PageLevels> {
        if rows > self.max_levels {
            return Err(Error::corrupt(format!(
                "the page has {rows} values, more than the {} of its column chunk",
                self.max_levels
            )));
        }
        let n = rows.min(self.max_reserve_rows);
        let mut levels = self.spare_levels.take().unwrap_or(PageLevels { definition: Vec::new(), repetition: Vec::new() });
        levels.definition.clear();
        levels.repetition.clear();
        levels.definition.reserve(if self.max_def > 0 { n } else { 0 });
        levels.repetition.reserve(if self.max_rep > 0 { n } else { 0 });
        Ok(levels)
    }

    /// Opens a page read with its levels: its values are the levels at the maximum
    /// definition level. A level-less column (required all the way) has a value per level.
    fn open_levels_page(&mut self, index: usize, parts: PageParts, levels: PageLevels) -> Result<OpenPage> {
        let PageParts { section, encoding, rows, decompressed, body, .. } = parts;
        let values = if self.max_def > 0 {
            // Levels were checked against the maximum when decoded: at it = at least it,
            // 64 levels a compare (a count of equal `i16`s did not vectorize).
            levels
                .definition
                .chunks(64)
                .map(|c| super::bits::at_least(c, self.max_def).count_ones() as usize)
                .sum()
        } else {
            rows
        };
        let values = PageValues::new(section, encoding, values, self.kind, &mut self.page_scratch)?;
        Ok(OpenPage { index, values, validity: None, levels: Some(levels), rows, row: 0, decompressed, body })
    }
}

/// The rows of a data page, from its header alone (`None` for other pages, or a negative
/// count, which opening the page reports).
pub(crate) fn data_page_rows(header: &crate::format::PageHeader) -> Option<usize> {
    match header.page_type {
        PageType::DATA_PAGE => header.data_page_header.as_ref().and_then(|d| usize::try_from(d.num_values).ok()),
        PageType::DATA_PAGE_V2 => header.data_page_header_v2.as_ref().and_then(|d| usize::try_from(d.num_rows).ok()),
        _ => None,
    }
}

/// A data page's parts once its levels are decoded and its values decompressed.
struct PageParts {
    section: Buffer,
    encoding: Encoding,
    rows: usize,
    validity: Option<BooleanBuffer>,
    decompressed: Option<Buffer>,
    body: Buffer,
}

fn non_negative(v: i32, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::corrupt(format!("negative {what} {v}")))
}
