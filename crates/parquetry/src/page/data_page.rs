//! A data page as the writer hands it over (levels and values already encoded) and its header
//! before sizes and CRC are known: what [`PageWriter`](super::PageWriter) takes in, apart
//! from how it stores pages.

use crate::compress::Codec;
use crate::format::{DataPageHeader, DataPageHeaderV2, Encoding, PageHeader, PageType, Statistics};

/// The data page format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataPageVersion {
    /// `DATA_PAGE`: levels and values compressed together (every reader knows it).
    V1,
    /// `DATA_PAGE_V2`: levels stored uncompressed before the compressed values.
    V2,
}

/// One data page to write: levels already RLE/bit-packed (without a length prefix), values
/// already encoded.
#[derive(Debug)]
pub struct DataPage<'a> {
    /// Number of level entries (rows for flat columns), nulls included.
    pub num_values: usize,
    /// Number of null entries.
    pub num_nulls: usize,
    /// Number of rows the page holds.
    pub num_rows: usize,
    /// Encoding of `values`.
    pub encoding: Encoding,
    /// Repetition levels; empty when the column has none.
    pub repetition_levels: &'a [u8],
    /// Definition levels; empty when the column has none.
    pub definition_levels: &'a [u8],
    /// Whether the column has definition levels (a level section is written even when empty).
    pub has_definition_levels: bool,
    /// Whether the column has repetition levels.
    pub has_repetition_levels: bool,
    /// The encoded values. An uncompressed page's values of [`OWN_VALUES_FROM`] bytes or more
    /// are taken as they are, leaving another buffer here, rather than copied.
    pub values: &'a mut Vec<u8>,
    /// Statistics for the page header, if wanted.
    pub statistics: Option<Statistics>,
}

/// The size from which an uncompressed page's values are taken into the chunk's blocks rather
/// than copied there (below it, a copy into the current block costs less than a block).
pub const OWN_VALUES_FROM: usize = 64 << 10;

/// A data page's header, its sizes and CRC not yet set.
pub(super) fn data_page_header(
    page: &DataPage<'_>,
    version: DataPageVersion,
    codec: Codec,
    num_values: i32,
) -> PageHeader {
    let mut header = PageHeader::new(PageType::DATA_PAGE);
    match version {
        DataPageVersion::V1 => {
            header.data_page_header = Some(DataPageHeader {
                num_values,
                encoding: page.encoding,
                definition_level_encoding: Encoding::RLE,
                repetition_level_encoding: Encoding::RLE,
                statistics: page.statistics.clone(),
            })
        }
        DataPageVersion::V2 => {
            header.page_type = PageType::DATA_PAGE_V2;
            header.data_page_header_v2 = Some(DataPageHeaderV2 {
                num_values,
                num_nulls: page.num_nulls as i32,
                num_rows: page.num_rows as i32,
                encoding: page.encoding,
                definition_levels_byte_length: page.definition_levels.len() as i32,
                repetition_levels_byte_length: page.repetition_levels.len() as i32,
                is_compressed: Some(codec != Codec::Uncompressed),
                statistics: page.statistics.clone(),
            })
        }
    }
    header
}
