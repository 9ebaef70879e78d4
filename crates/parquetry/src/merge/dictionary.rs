//! The dictionaries of a merged column chunk: the unified dictionary the output's pages index
//! into, and each input's dictionary page, kept as stored and decompressed only when a page
//! needs its values.

use crate::compress::Codec;
use crate::encoding::dictionary::{Dictionary, DictionaryMap};
use crate::error::{Error, Result};
use crate::format::{PageHeader, PhysicalType};
use crate::schema::ColumnDescriptor;

/// The empty unified dictionary of the output chunk for `column`'s values (`None` for
/// BOOLEAN): the writer's [`Dictionary`], since merge re-encodes exactly as the writer does.
pub(super) fn unified(column: &ColumnDescriptor) -> Option<Dictionary> {
    let width = value_width(column).unwrap_or(0);
    Dictionary::new(column.physical_type, width)
}

/// The fixed byte width of a column's values (`None` for BYTE_ARRAY and BOOLEAN).
pub(super) fn value_width(column: &ColumnDescriptor) -> Option<usize> {
    match column.physical_type {
        PhysicalType::FIXED_LEN_BYTE_ARRAY => usize::try_from(column.type_length).ok().filter(|&w| w > 0),
        PhysicalType::BYTE_ARRAY | PhysicalType::BOOLEAN => None,
        p => p.fixed_width(),
    }
}

/// One input dictionary page: its stored bytes, and its values once they are needed.
pub(crate) struct InputDictionary {
    /// The page body as stored (compressed with `codec`), kept so that a data page using every
    /// value once, in order, becomes a PLAIN page of these very bytes (see
    /// [`ChunkMerger::page_from_dictionary`]).
    pub(super) stored: arrow_buffer::Buffer,
    pub(super) codec: Codec,
    pub(super) uncompressed_len: usize,
    pub(super) count: usize,
    /// The decompressed values, parsed when first needed.
    pub(super) values: Option<DictionaryValues>,
    /// Each value's index in the unified dictionary, when it was interned there.
    pub(super) remap: Option<DictionaryMap>,
}

impl InputDictionary {
    /// A dictionary page as stored; its values are parsed when first needed.
    pub(super) fn new(header: &PageHeader, stored: arrow_buffer::Buffer, codec: Codec) -> Self {
        InputDictionary {
            stored,
            codec,
            uncompressed_len: header.uncompressed_page_size.max(0) as usize,
            count: header.dictionary_page_header.as_ref().map_or(0, |h| h.num_values.max(0) as usize),
            values: None,
            remap: None,
        }
    }
}

/// A decompressed dictionary page and where each value lies in it.
pub(super) struct DictionaryValues {
    pub(super) bytes: Vec<u8>,
    pub(super) spans: Vec<(usize, usize)>,
}

impl DictionaryValues {
    /// Finds each of `count` values in a decompressed dictionary page.
    pub(super) fn parse(bytes: Vec<u8>, count: usize, column: &ColumnDescriptor) -> Result<Self> {
        let mut spans = Vec::with_capacity(count.min(bytes.len()));
        match value_width(column) {
            Some(w) => {
                if bytes.len() < count.saturating_mul(w) {
                    return Err(Error::corrupt(format!(
                        "dictionary page: {count} values of {w} bytes need {} bytes, it has {}",
                        count.saturating_mul(w),
                        bytes.len()
                    )));
                }
                spans.extend((0..count).map(|i| (i * w, w)));
            }
            None => {
                let mut pos = 0;
                for i in 0..count {
                    let len = bytes
                        .get(pos..pos + 4)
                        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                        .filter(|&len| pos + 4 + len <= bytes.len())
                        .ok_or_else(|| Error::corrupt(format!("dictionary page: value {i} runs past the page")))?;
                    spans.push((pos + 4, len));
                    pos += 4 + len;
                }
            }
        }
        Ok(DictionaryValues { bytes, spans })
    }

    /// The bytes of value `i`.
    pub(super) fn value(&self, i: usize) -> &[u8] {
        let (start, len) = self.spans[i];
        &self.bytes[start..start + len]
    }
}
