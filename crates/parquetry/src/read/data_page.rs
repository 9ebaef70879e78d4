//! A column chunk's pages turned into what a column reader reads.
//!
//! The page layer ([`PageDecompressor`]) checks a page's CRC, decompresses it and splits it
//! into levels and values; [`PageDecoder::load`] then decodes a data page's definition levels
//! into one validity bit per row (or level vectors, for nested columns) and opens its values
//! section ([`PageValues`]), which stays open across batches as an [`OpenPage`]. A dictionary
//! page comes out whole, for the value decoder.

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer};

use super::levels::{append_validity, decode_levels};
use super::page_values::{PageScratch, PageValues, ValueKind};
use crate::compress::Codec;
use crate::error::{Error, Result};
use crate::page::{DataPageSections, DecodedPage, LevelData, Page, PageDecompressor, PageStream};

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
    pages: PageDecompressor,
    kind: ValueKind,
    max_def: i16,
    max_rep: i16,
    /// Decode levels into [`PageLevels`] rather than validity bits (nested columns).
    keep_levels: bool,
    /// The most levels a page may have: the chunk's value count. Levels are two bytes each
    /// and RLE runs make billions of them from a few bytes, so a page header (or a level run)
    /// claiming more than its chunk holds is refused before anything is sized by it.
    max_levels: usize,
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
    /// A page decoder for a chunk in `codec` of values of `kind`, with repetition and
    /// definition levels up to `max_rep` and `max_def`.
    pub fn new(
        codec: Codec,
        kind: ValueKind,
        (max_rep, max_def): (i16, i16),
        verify_crc: bool,
        max_reserve_rows: usize,
    ) -> Self {
        PageDecoder {
            pages: PageDecompressor::new(codec, max_rep, max_def, verify_crc),
            kind,
            max_def,
            max_rep,
            keep_levels: false,
            max_levels: usize::MAX,
            page_scratch: PageScratch::default(),
            spare_levels: None,
            max_reserve_rows,
        }
    }

    /// Keeps each data page's levels instead of turning definition levels into validity
    /// bits: nested columns need them. A page may have at most `max_levels` (the chunk's
    /// value count in the footer).
    pub fn keep_levels(mut self, max_levels: usize) -> Self {
        self.keep_levels = true;
        self.max_levels = max_levels;
        self
    }

    /// Hands a finished page's buffers back for reuse: its vectors to the next page, its
    /// decompressed bytes to the next decompression and its stored body to the stream.
    pub fn close(&mut self, page: OpenPage, stream: &mut PageStream) {
        page.values.recycle(&mut self.page_scratch);
        if let Some(levels) = page.levels {
            self.spare_levels = Some(levels);
        }
        if let Some(d) = page.decompressed {
            self.pages.recycle(d);
        }
        stream.recycle(page.body);
    }

    /// Checks, decompresses and opens a page.
    pub fn load(&mut self, page: Page) -> Result<Loaded> {
        let sections = match self.pages.open(page)? {
            DecodedPage::Dictionary { values, encoding, num_values } => {
                return Ok(Loaded::Dictionary(PageValues::dictionary(values, encoding, num_values)?))
            }
            DecodedPage::Other => return Ok(Loaded::Other),
            DecodedPage::Data(sections) => sections,
        };
        let rows = sections.num_values;
        if self.keep_levels {
            let mut levels = self.new_levels(rows)?;
            if self.max_rep > 0 {
                decode_levels(sections.repetition.data(), self.max_rep, rows, &mut levels.repetition, "repetition")?;
            }
            if self.max_def > 0 {
                decode_levels(sections.definition.data(), self.max_def, rows, &mut levels.definition, "definition")?;
            }
            return self.open_levels_page(sections, levels).map(Loaded::Data);
        }
        let validity = match self.max_def {
            0 => None,
            _ => Some(self.decode_validity(sections.definition.data(), rows)?),
        };
        self.open_data_page(sections, validity).map(Loaded::Data)
    }

    /// Decodes a page's definition levels into one validity bit per row.
    fn decode_validity(&self, levels: LevelData<'_>, rows: usize) -> Result<BooleanBuffer> {
        let mut bits = BooleanBufferBuilder::new(rows.min(self.max_reserve_rows));
        append_validity(levels, self.max_def, rows, &mut bits)?;
        Ok(bits.finish())
    }

    fn open_data_page(&mut self, sections: DataPageSections, validity: Option<BooleanBuffer>) -> Result<OpenPage> {
        let DataPageSections { index, values: section, encoding, num_values: rows, decompressed, body, .. } = sections;
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
        let mut levels =
            self.spare_levels.take().unwrap_or(PageLevels { definition: Vec::new(), repetition: Vec::new() });
        levels.definition.clear();
        levels.repetition.clear();
        levels.definition.reserve(if self.max_def > 0 { n } else { 0 });
        levels.repetition.reserve(if self.max_rep > 0 { n } else { 0 });
        Ok(levels)
    }

    /// Opens a page read with its levels: its values are the levels at the maximum
    /// definition level. A level-less column (required all the way) has a value per level.
    fn open_levels_page(&mut self, sections: DataPageSections, levels: PageLevels) -> Result<OpenPage> {
        let DataPageSections { index, values: section, encoding, num_values: rows, decompressed, body, .. } = sections;
        let values = if self.max_def > 0 {
            // Levels were checked against the maximum when decoded: at it = at least it,
            // 64 levels a compare (a count of equal `i16`s did not vectorize).
            levels.definition.chunks(64).map(|c| super::bits::at_least(c, self.max_def).count_ones() as usize).sum()
        } else {
            rows
        };
        let values = PageValues::new(section, encoding, values, self.kind, &mut self.page_scratch)?;
        Ok(OpenPage { index, values, validity: None, levels: Some(levels), rows, row: 0, decompressed, body })
    }
}
