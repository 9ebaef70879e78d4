//! A stored page made readable: its CRC checked, its body decompressed (into a recycled
//! buffer), and a data page split into its three sections, repetition levels, definition
//! levels and values, the same way for v1 and v2 pages.
//!
//! This is the one place that knows where a page's sections are: the column reader, merge and
//! the fuzz targets all open pages here, so they accept and refuse the same pages. Nothing
//! here decodes levels or values (that is the encoding kernels' job); the sections come out as
//! slices of the page's buffers, without copies.

use arrow_buffer::Buffer;

use super::stream::{Page, MAX_RECYCLED};
use crate::compress::{check_expansion, Codec, Decompressor};
use crate::error::{Error, Result};
use crate::format::{Encoding, PageHeader, PageType};

/// The number of bits needed to store levels up to `max_level`.
pub fn level_bit_width(max_level: i16) -> u8 {
    (16 - (max_level.max(0) as u16).leading_zeros()) as u8
}

/// The encoded levels of one kind in a data page.
#[derive(Debug, Clone, Copy)]
pub enum LevelData<'a> {
    /// RLE/bit-packed hybrid bytes (no length prefix).
    Rle(&'a [u8]),
    /// Deprecated MSB-first bit packing.
    BitPacked(&'a [u8]),
}

/// One level section of a data page, as a slice of the page's buffer.
#[derive(Debug, Clone)]
pub(crate) struct LevelSection {
    bytes: Buffer,
    bit_packed: bool,
}

impl LevelSection {
    fn empty() -> Self {
        LevelSection { bytes: Buffer::from_vec(Vec::<u8>::new()), bit_packed: false }
    }

    /// The section's encoded levels.
    pub fn data(&self) -> LevelData<'_> {
        match self.bit_packed {
            true => LevelData::BitPacked(self.bytes.as_slice()),
            false => LevelData::Rle(self.bytes.as_slice()),
        }
    }
}

/// A data page split into its sections.
pub(crate) struct DataPageSections {
    /// The page's position in the chunk.
    pub index: usize,
    /// How the values are encoded.
    pub encoding: Encoding,
    /// Levels in the page (for a flat column: its rows).
    pub num_values: usize,
    /// The v2 header's row and null counts (`None` for v1 pages).
    pub v2_counts: Option<(usize, usize)>,
    /// Repetition levels (empty when the column repeats nowhere).
    pub repetition: LevelSection,
    /// Definition levels (empty for a required column).
    pub definition: LevelSection,
    /// The level sections as stored, back to back (v1: with their length prefixes), for
    /// writers that copy them unchanged.
    pub levels_stored: Buffer,
    /// The values section, decompressed.
    pub values: Buffer,
    /// The buffer this page was decompressed into, to hand back with
    /// [`PageDecompressor::recycle`] once the page is done (`None` when stored uncompressed).
    pub decompressed: Option<Buffer>,
    /// The stored body, for the page stream's reuse.
    pub body: Buffer,
}

/// A page once opened.
pub(crate) enum DecodedPage {
    /// A dictionary page: its values (decompressed), their encoding and count.
    Dictionary { values: Buffer, encoding: Encoding, num_values: usize },
    /// A data page, v1 or v2.
    Data(DataPageSections),
    /// A page with nothing to decode (index pages, unknown types: skipped, as other readers
    /// do).
    Other,
}

/// Opens the pages of one column chunk: one per chunk, it keeps the codec's context and the
/// decompression buffer from page to page.
pub(crate) struct PageDecompressor {
    decompressor: Decompressor,
    codec: Codec,
    max_rep: i16,
    max_def: i16,
    verify_crc: bool,
    seen_dictionary: bool,
    /// A decompression buffer recovered from the last page, reused to avoid a fresh
    /// allocation (and the kernel's zero-filled pages) for every page.
    scratch: Vec<u8>,
}

impl PageDecompressor {
    /// Opens pages of a chunk in `codec` whose column has levels up to `max_rep` and
    /// `max_def`; `verify_crc` checks pages that carry a CRC.
    pub fn new(codec: Codec, max_rep: i16, max_def: i16, verify_crc: bool) -> Self {
        PageDecompressor {
            decompressor: Decompressor::new(),
            codec,
            max_rep,
            max_def,
            verify_crc,
            seen_dictionary: false,
            scratch: Vec::new(),
        }
    }

    /// Decompresses `input` into the recycled buffer, refusing claimed sizes no data of this
    /// codec could reach before anything is allocated.
    pub fn decompress(&mut self, input: &[u8], expected: usize) -> Result<Buffer> {
        check_expansion(self.codec, input.len(), expected)?;
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        self.decompressor.decompress(self.codec, input, expected, &mut out)?;
        Ok(Buffer::from_vec(out))
    }

    /// Gives a decompressed buffer back for the next page, if nothing else holds it.
    pub fn recycle(&mut self, buffer: Buffer) {
        if let Ok(v) = buffer.into_vec::<u8>() {
            if v.capacity() > self.scratch.capacity() && v.capacity() <= MAX_RECYCLED {
                self.scratch = v;
            }
        }
    }

    /// Checks a page's CRC (when asked to and the page has one).
    pub fn check_crc(&self, page: &Page) -> Result<()> {
        if !self.verify_crc {
            return Ok(());
        }
        if let Some(crc) = page.header.crc {
            let actual = crc32fast::hash(page.body.as_slice());
            if actual != crc as u32 {
                return Err(Error::corrupt(format!(
                    "page CRC checksum verification failed: the header says {:#010x}, the page bytes give {actual:#010x}",
                    crc as u32
                )));
            }
        }
        Ok(())
    }

    /// Checks, decompresses and splits a page.
    pub fn open(&mut self, page: Page) -> Result<DecodedPage> {
        self.check_crc(&page)?;
        let h = &page.header;
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
                let values = match self.codec {
                    Codec::Uncompressed => page.body.clone(),
                    _ => self.decompress(page.body.as_slice(), uncompressed_size(h))?,
                };
                Ok(DecodedPage::Dictionary { values, encoding, num_values })
            }
            PageType::DATA_PAGE | PageType::DATA_PAGE_V2 => self.split_data_page(page).map(DecodedPage::Data),
            _ => Ok(DecodedPage::Other),
        }
    }

    /// Decompresses a data page and splits it into its sections.
    pub fn split_data_page(&mut self, page: Page) -> Result<DataPageSections> {
        let h = &page.header;
        if let Some(d) = &h.data_page_header {
            let num_values = non_negative(d.num_values, "value count")?;
            let decompressed = match self.codec {
                Codec::Uncompressed => None,
                _ => Some(self.decompress(page.body.as_slice(), uncompressed_size(h))?),
            };
            let buffer = decompressed.clone().unwrap_or_else(|| page.body.clone());
            let data = buffer.as_slice();
            let mut rest = data;
            let mut section = |max: i16, encoding: Encoding, what: &str| -> Result<LevelSection> {
                if max == 0 {
                    return Ok(LevelSection::empty());
                }
                let (levels, after) = split_v1_levels(rest, encoding, max, num_values, what)?;
                let (bytes, bit_packed) = match levels {
                    LevelData::Rle(b) => (b, false),
                    LevelData::BitPacked(b) => (b, true),
                };
                let start = bytes.as_ptr() as usize - data.as_ptr() as usize;
                rest = after;
                Ok(LevelSection { bytes: buffer.slice_with_length(start, bytes.len()), bit_packed })
            };
            let repetition = section(self.max_rep, d.repetition_level_encoding, "repetition")?;
            let definition = section(self.max_def, d.definition_level_encoding, "definition")?;
            let levels_len = data.len() - rest.len();
            return Ok(DataPageSections {
                index: page.index,
                encoding: d.encoding,
                num_values,
                v2_counts: None,
                repetition,
                definition,
                levels_stored: buffer.slice_with_length(0, levels_len),
                values: buffer.slice(levels_len),
                decompressed,
                body: page.body,
            });
        }
        let Some(d) = &h.data_page_header_v2 else {
            let kind = if h.page_type == PageType::DATA_PAGE { "data page" } else { "data page v2" };
            return Err(Error::corrupt(format!("{kind} without its {kind} header")));
        };
        let num_values = non_negative(d.num_values, "value count")?;
        let num_rows = non_negative(d.num_rows, "row count")?;
        let num_nulls = non_negative(d.num_nulls, "null count")?;
        let rep_len = non_negative(d.repetition_levels_byte_length, "repetition levels length")?;
        let def_len = non_negative(d.definition_levels_byte_length, "definition levels length")?;
        let body = page.body.as_slice();
        let levels_len = rep_len.checked_add(def_len).filter(|&l| l <= body.len()).ok_or_else(|| {
            Error::corrupt(format!("levels of {rep_len} + {def_len} bytes do not fit in the {}-byte page", body.len()))
        })?;
        let level = |from: usize, len: usize, max: i16| match max {
            0 => LevelSection::empty(),
            _ => LevelSection { bytes: page.body.slice_with_length(from, len), bit_packed: false },
        };
        let repetition = level(0, rep_len, self.max_rep);
        let definition = level(rep_len, def_len, self.max_def);
        let compressed = d.is_compressed.unwrap_or(true) && self.codec != Codec::Uncompressed;
        let (values, decompressed) = if compressed {
            let expected = uncompressed_size(h).checked_sub(levels_len).ok_or_else(|| {
                Error::corrupt(format!(
                    "uncompressed page size {} is smaller than its {levels_len} bytes of levels",
                    uncompressed_size(h)
                ))
            })?;
            let values = self.decompress(&body[levels_len..], expected)?;
            (values.clone(), Some(values))
        } else {
            (page.body.slice(levels_len), None)
        };
        Ok(DataPageSections {
            index: page.index,
            encoding: d.encoding,
            num_values,
            v2_counts: Some((num_rows, num_nulls)),
            repetition,
            definition,
            levels_stored: page.body.slice_with_length(0, levels_len),
            values,
            decompressed,
            body: page.body,
        })
    }
}

/// The rows of a data page, from its header alone (`None` for other pages, or a negative
/// count, which opening the page reports).
pub(crate) fn data_page_rows(header: &PageHeader) -> Option<usize> {
    match header.page_type {
        PageType::DATA_PAGE => header.data_page_header.as_ref().and_then(|d| usize::try_from(d.num_values).ok()),
        PageType::DATA_PAGE_V2 => header.data_page_header_v2.as_ref().and_then(|d| usize::try_from(d.num_rows).ok()),
        _ => None,
    }
}

/// Splits the levels of kind `what` off the front of a v1 data page's (decompressed) bytes:
/// RLE levels carry a 4-byte length prefix; BIT_PACKED levels take exactly
/// `ceil(num_values * bit_width / 8)` bytes. Returns the levels and the rest of the page.
pub(crate) fn split_v1_levels<'a>(
    data: &'a [u8],
    encoding: Encoding,
    max_level: i16,
    num_values: usize,
    what: &str,
) -> Result<(LevelData<'a>, &'a [u8])> {
    match encoding {
        Encoding::RLE => {
            let Some((len, rest)) = data.split_first_chunk::<4>() else {
                return Err(Error::corrupt(format!(
                    "{what} levels: the length prefix needs 4 bytes, {} left",
                    data.len()
                )));
            };
            let len = u32::from_le_bytes(*len) as usize;
            match rest.split_at_checked(len) {
                Some((levels, rest)) => Ok((LevelData::Rle(levels), rest)),
                None => Err(Error::corrupt(format!(
                    "{what} levels: the length prefix says {len} bytes, {} left",
                    rest.len()
                ))),
            }
        }
        Encoding::BIT_PACKED => {
            let bits = num_values.saturating_mul(usize::from(level_bit_width(max_level)));
            let len = bits.div_ceil(8);
            if len > data.len() {
                return Err(Error::corrupt(format!(
                    "{what} levels: {num_values} BIT_PACKED levels need {len} bytes, the page has {}",
                    data.len()
                )));
            }
            let (levels, rest) = data.split_at(len);
            Ok((LevelData::BitPacked(levels), rest))
        }
        other => Err(Error::unsupported(format!("{what} levels encoded as {other}"))),
    }
}

fn uncompressed_size(h: &PageHeader) -> usize {
    h.uncompressed_page_size.max(0) as usize
}

fn non_negative(v: i32, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::corrupt(format!("negative {what} {v}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_split_checks_lengths() {
        // Length prefix 2, then two bytes of levels, then values.
        let page = [2, 0, 0, 0, 0x02, 0x01, 0xaa, 0xbb];
        let (levels, rest) = split_v1_levels(&page, Encoding::RLE, 1, 1, "definition").unwrap();
        assert!(matches!(levels, LevelData::Rle(l) if l == [0x02, 0x01]));
        assert_eq!(rest, [0xaa, 0xbb]);
        let bad = [9, 0, 0, 0, 0x02];
        assert!(split_v1_levels(&bad, Encoding::RLE, 1, 1, "definition").is_err());
        // BIT_PACKED: 10 levels of width 1 take 2 bytes.
        let (levels, rest) = split_v1_levels(&page, Encoding::BIT_PACKED, 1, 10, "definition").unwrap();
        assert!(matches!(levels, LevelData::BitPacked(l) if l.len() == 2));
        assert_eq!(rest.len(), 6);
    }
}
