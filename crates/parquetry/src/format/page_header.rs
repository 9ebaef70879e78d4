//! `PageHeader` and its per-type headers: the Thrift struct in front of every page.

use super::enums::{Encoding, PageType};
use super::statistics::Statistics;
use super::thrift::{required, ThriftReader, ThriftStruct, ThriftWriter};
use crate::error::Result;

/// Header of a version 1 data page (levels and values compressed together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPageHeader {
    /// Number of values, nulls included.
    pub num_values: i32,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Encoding of the definition levels (RLE or BIT_PACKED).
    pub definition_level_encoding: Encoding,
    /// Encoding of the repetition levels (RLE or BIT_PACKED).
    pub repetition_level_encoding: Encoding,
    /// Statistics of this page.
    pub statistics: Option<Statistics>,
}

impl ThriftStruct for DataPageHeader {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut num_values, mut encoding, mut def, mut rep, mut statistics) = (None, None, None, None, None);
        r.read_struct("DataPageHeader", |r, id, ty| {
            match id {
                1 => num_values = Some(r.i32(ty)?),
                2 => encoding = Some(Encoding(r.i32(ty)?)),
                3 => def = Some(Encoding(r.i32(ty)?)),
                4 => rep = Some(Encoding(r.i32(ty)?)),
                5 => statistics = Some(r.read_struct_field(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(DataPageHeader {
            num_values: required(num_values, "DataPageHeader.num_values")?,
            encoding: required(encoding, "DataPageHeader.encoding")?,
            definition_level_encoding: required(def, "DataPageHeader.definition_level_encoding")?,
            repetition_level_encoding: required(rep, "DataPageHeader.repetition_level_encoding")?,
            statistics,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.num_values);
        w.i32(2, self.encoding.0);
        w.i32(3, self.definition_level_encoding.0);
        w.i32(4, self.repetition_level_encoding.0);
        if let Some(s) = &self.statistics {
            w.struct_field(5, s);
        }
        w.struct_end();
    }
}

/// Header of a version 2 data page: levels are stored uncompressed before the values, with
/// their byte lengths here, so they can be read without decompressing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPageHeaderV2 {
    /// Number of values, nulls included.
    pub num_values: i32,
    /// Number of nulls.
    pub num_nulls: i32,
    /// Number of rows (pages start at row boundaries).
    pub num_rows: i32,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Byte length of the RLE definition levels.
    pub definition_levels_byte_length: i32,
    /// Byte length of the RLE repetition levels.
    pub repetition_levels_byte_length: i32,
    /// Whether the values section is compressed; absent means true.
    pub is_compressed: Option<bool>,
    /// Statistics of this page.
    pub statistics: Option<Statistics>,
}

impl ThriftStruct for DataPageHeaderV2 {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut v = [None; 6];
        let (mut is_compressed, mut statistics) = (None, None);
        r.read_struct("DataPageHeaderV2", |r, id, ty| {
            match id {
                1..=6 => v[(id - 1) as usize] = Some(r.i32(ty)?),
                7 => is_compressed = Some(r.bool(ty)?),
                8 => statistics = Some(r.read_struct_field(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(DataPageHeaderV2 {
            num_values: required(v[0], "DataPageHeaderV2.num_values")?,
            num_nulls: required(v[1], "DataPageHeaderV2.num_nulls")?,
            num_rows: required(v[2], "DataPageHeaderV2.num_rows")?,
            encoding: Encoding(required(v[3], "DataPageHeaderV2.encoding")?),
            definition_levels_byte_length: required(v[4], "DataPageHeaderV2.definition_levels_byte_length")?,
            repetition_levels_byte_length: required(v[5], "DataPageHeaderV2.repetition_levels_byte_length")?,
            is_compressed,
            statistics,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.num_values);
        w.i32(2, self.num_nulls);
        w.i32(3, self.num_rows);
        w.i32(4, self.encoding.0);
        w.i32(5, self.definition_levels_byte_length);
        w.i32(6, self.repetition_levels_byte_length);
        w.opt_bool(7, self.is_compressed);
        if let Some(s) = &self.statistics {
            w.struct_field(8, s);
        }
        w.struct_end();
    }
}

/// Header of the dictionary page at the start of a column chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DictionaryPageHeader {
    /// Number of dictionary entries.
    pub num_values: i32,
    /// Encoding of the entries (PLAIN or PLAIN_DICTIONARY, which means PLAIN here).
    pub encoding: Encoding,
    /// Whether the entries are sorted.
    pub is_sorted: Option<bool>,
}

impl ThriftStruct for DictionaryPageHeader {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut num_values, mut encoding, mut is_sorted) = (None, None, None);
        r.read_struct("DictionaryPageHeader", |r, id, ty| {
            match id {
                1 => num_values = Some(r.i32(ty)?),
                2 => encoding = Some(Encoding(r.i32(ty)?)),
                3 => is_sorted = Some(r.bool(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(DictionaryPageHeader {
            num_values: required(num_values, "DictionaryPageHeader.num_values")?,
            encoding: required(encoding, "DictionaryPageHeader.encoding")?,
            is_sorted,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.num_values);
        w.i32(2, self.encoding.0);
        w.opt_bool(3, self.is_sorted);
        w.struct_end();
    }
}

/// Header of an index page: empty in the specification, and no known writer emits one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IndexPageHeader {}

impl ThriftStruct for IndexPageHeader {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        r.read_struct("IndexPageHeader", |r, _, ty| r.skip(ty))?;
        Ok(IndexPageHeader {})
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.struct_end();
    }
}

/// The header in front of every page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageHeader {
    /// Which of the per-type headers is set.
    pub page_type: PageType,
    /// Size of the page body after decompression (not counting this header).
    pub uncompressed_page_size: i32,
    /// Size of the page body as stored.
    pub compressed_page_size: i32,
    /// CRC-32 of the stored page body, if the writer computed one.
    pub crc: Option<i32>,
    /// Set for DATA_PAGE.
    pub data_page_header: Option<DataPageHeader>,
    /// Set for INDEX_PAGE.
    pub index_page_header: Option<IndexPageHeader>,
    /// Set for DICTIONARY_PAGE.
    pub dictionary_page_header: Option<DictionaryPageHeader>,
    /// Set for DATA_PAGE_V2.
    pub data_page_header_v2: Option<DataPageHeaderV2>,
}

impl PageHeader {
    /// A header of `page_type` with sizes 0 and no CRC or type-specific header yet: what a
    /// writer fills in, and a reader before the fields it decodes.
    pub fn new(page_type: PageType) -> Self {
        PageHeader {
            page_type,
            uncompressed_page_size: 0,
            compressed_page_size: 0,
            crc: None,
            data_page_header: None,
            index_page_header: None,
            dictionary_page_header: None,
            data_page_header_v2: None,
        }
    }
}

impl ThriftStruct for PageHeader {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut page_type, mut uncompressed, mut compressed) = (None, None, None);
        let mut h = PageHeader::new(PageType(0));
        r.read_struct("PageHeader", |r, id, ty| {
            match id {
                1 => page_type = Some(PageType(r.i32(ty)?)),
                2 => uncompressed = Some(r.i32(ty)?),
                3 => compressed = Some(r.i32(ty)?),
                4 => h.crc = Some(r.i32(ty)?),
                5 => h.data_page_header = Some(r.read_struct_field(ty)?),
                6 => h.index_page_header = Some(r.read_struct_field(ty)?),
                7 => h.dictionary_page_header = Some(r.read_struct_field(ty)?),
                8 => h.data_page_header_v2 = Some(r.read_struct_field(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        h.page_type = required(page_type, "PageHeader.type")?;
        h.uncompressed_page_size = required(uncompressed, "PageHeader.uncompressed_page_size")?;
        h.compressed_page_size = required(compressed, "PageHeader.compressed_page_size")?;
        Ok(h)
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.page_type.0);
        w.i32(2, self.uncompressed_page_size);
        w.i32(3, self.compressed_page_size);
        w.opt_i32(4, self.crc);
        if let Some(d) = &self.data_page_header {
            w.struct_field(5, d);
        }
        if let Some(i) = &self.index_page_header {
            w.struct_field(6, i);
        }
        if let Some(d) = &self.dictionary_page_header {
            w.struct_field(7, d);
        }
        if let Some(d) = &self.data_page_header_v2 {
            w.struct_field(8, d);
        }
        w.struct_end();
    }
}
