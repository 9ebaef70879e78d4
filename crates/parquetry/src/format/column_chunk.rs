//! `ColumnChunk` and `ColumnMetaData`: where one column's pages of one row group are, and what
//! they hold.

use std::sync::Arc;

use super::enums::{CompressionCodec, Encoding, PageType, PhysicalType};
use super::file_metadata::KeyValue;
use super::statistics::{GeospatialStatistics, SizeStatistics, Statistics};
use super::thrift::{check_required, required, ttype, ThriftReader, ThriftStruct, ThriftWriter};
use crate::error::Result;

/// How many pages of one type used one encoding in a column chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PageEncodingStats {
    /// The page type.
    pub page_type: PageType,
    /// The encoding of those pages.
    pub encoding: Encoding,
    /// How many such pages.
    pub count: i32,
}

impl ThriftStruct for PageEncodingStats {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut page_type, mut encoding, mut count) = (None, None, None);
        r.read_struct("PageEncodingStats", |r, id, ty| {
            match id {
                1 => page_type = Some(PageType(r.i32(ty)?)),
                2 => encoding = Some(Encoding(r.i32(ty)?)),
                3 => count = Some(r.i32(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(PageEncodingStats {
            page_type: required(page_type, "PageEncodingStats.page_type")?,
            encoding: required(encoding, "PageEncodingStats.encoding")?,
            count: required(count, "PageEncodingStats.count")?,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.page_type.0);
        w.i32(2, self.encoding.0);
        w.i32(3, self.count);
        w.struct_end();
    }
}

/// The metadata of one column chunk: type, codec, sizes, page offsets and statistics.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnMetaData {
    /// Physical type (must match the schema leaf).
    pub physical_type: PhysicalType,
    /// Every encoding used by the chunk's pages (data and levels). Shared (`Arc`) because
    /// most chunks of a file list the same encodings; see `ThriftReader::shared_list`.
    pub encodings: Arc<[Encoding]>,
    /// The leaf's path from the root, one name per level; shared with the schema's path when
    /// equal (see `ThriftReader::expect_string_list`).
    pub path_in_schema: Arc<[String]>,
    /// Compression codec of all pages.
    pub codec: CompressionCodec,
    /// Number of values, including nulls (and repeated entries).
    pub num_values: i64,
    /// Bytes of all pages uncompressed, headers included.
    pub total_uncompressed_size: i64,
    /// Bytes of all pages as stored, headers included.
    pub total_compressed_size: i64,
    /// Per-chunk key/value metadata.
    pub key_value_metadata: Option<Vec<KeyValue>>,
    /// File offset of the first data page.
    pub data_page_offset: i64,
    /// File offset of the index page (never written in practice).
    pub index_page_offset: Option<i64>,
    /// File offset of the dictionary page, if there is one.
    pub dictionary_page_offset: Option<i64>,
    /// Statistics of the whole chunk.
    pub statistics: Option<Statistics>,
    /// Page counts per page type and encoding.
    pub encoding_stats: Option<Arc<[PageEncodingStats]>>,
    /// File offset of the bloom filter.
    pub bloom_filter_offset: Option<i64>,
    /// Length of the bloom filter, header included.
    pub bloom_filter_length: Option<i32>,
    /// Unencoded sizes and level histograms.
    pub size_statistics: Option<SizeStatistics>,
    /// Geospatial bounding box and types.
    pub geospatial_statistics: Option<Box<GeospatialStatistics>>,
}

impl ThriftStruct for ColumnMetaData {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut m = ColumnMetaData::default();
        Self::read_into(&mut m, r)?;
        Ok(m)
    }

    fn read_into(m: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        let mut seen = 0u32;
        r.read_struct("ColumnMetaData", |r, id, ty| {
            match id {
                1 => m.physical_type = PhysicalType(r.i32(ty)?),
                2 => m.encodings = r.shared_list(ty, ttype::I32, |r| Ok(Encoding(r.i32(ttype::I32)?)))?,
                3 => m.path_in_schema = r.expect_string_list(ty)?,
                4 => m.codec = CompressionCodec(r.i32(ty)?),
                5 => m.num_values = r.i64(ty)?,
                6 => m.total_uncompressed_size = r.i64(ty)?,
                7 => m.total_compressed_size = r.i64(ty)?,
                8 => m.key_value_metadata = Some(r.struct_list(ty)?),
                9 => m.data_page_offset = r.i64(ty)?,
                10 => m.index_page_offset = Some(r.i64(ty)?),
                11 => m.dictionary_page_offset = Some(r.i64(ty)?),
                12 => r.struct_field_into(ty, &mut m.statistics)?,
                13 => m.encoding_stats = Some(r.shared_list(ty, ttype::STRUCT, PageEncodingStats::read)?),
                14 => m.bloom_filter_offset = Some(r.i64(ty)?),
                15 => m.bloom_filter_length = Some(r.i32(ty)?),
                16 => m.size_statistics = Some(r.read_struct_field(ty)?),
                17 => m.geospatial_statistics = Some(Box::new(r.read_struct_field(ty)?)),
                _ => return r.skip(ty),
            }
            seen |= 1 << id;
            Ok(())
        })?;
        check_required(
            seen,
            &[
                (1, "type"),
                (2, "encodings"),
                (3, "path_in_schema"),
                (4, "codec"),
                (5, "num_values"),
                (6, "total_uncompressed_size"),
                (7, "total_compressed_size"),
                (9, "data_page_offset"),
            ],
            "ColumnMetaData",
        )
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.physical_type.0);
        let encodings: Vec<i32> = self.encodings.iter().map(|e| e.0).collect();
        w.i32_list(2, &encodings);
        w.binary_list(3, &self.path_in_schema);
        w.i32(4, self.codec.0);
        w.i64(5, self.num_values);
        w.i64(6, self.total_uncompressed_size);
        w.i64(7, self.total_compressed_size);
        if let Some(kv) = &self.key_value_metadata {
            w.struct_list(8, kv);
        }
        w.i64(9, self.data_page_offset);
        w.opt_i64(10, self.index_page_offset);
        w.opt_i64(11, self.dictionary_page_offset);
        if let Some(s) = &self.statistics {
            w.struct_field(12, s);
        }
        if let Some(s) = &self.encoding_stats {
            w.struct_list(13, s);
        }
        w.opt_i64(14, self.bloom_filter_offset);
        w.opt_i32(15, self.bloom_filter_length);
        if let Some(s) = &self.size_statistics {
            w.struct_field(16, s);
        }
        if let Some(s) = &self.geospatial_statistics {
            w.struct_field(17, s.as_ref());
        }
        w.struct_end();
    }
}

/// How an encrypted column's metadata is protected (kept so such footers still decode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnCryptoMetaData {
    /// Encrypted with the footer key.
    FooterKey,
    /// Encrypted with a column key.
    ColumnKey {
        /// The column's path.
        path_in_schema: Vec<String>,
        /// Key retrieval metadata.
        key_metadata: Option<Vec<u8>>,
    },
}

impl ThriftStruct for ColumnCryptoMetaData {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut value = None;
        r.read_struct("ColumnCryptoMetaData", |r, id, ty| {
            match id {
                1 => {
                    r.skip(ty)?;
                    value = Some(ColumnCryptoMetaData::FooterKey);
                }
                2 => {
                    let (mut path, mut key) = (None, None);
                    r.expect_struct(ty)?;
                    r.read_struct("EncryptionWithColumnKey", |r, id, ty| {
                        match id {
                            1 => path = Some(r.string_list(ty)?),
                            2 => key = Some(r.bytes(ty)?),
                            _ => r.skip(ty)?,
                        }
                        Ok(())
                    })?;
                    value = Some(ColumnCryptoMetaData::ColumnKey {
                        path_in_schema: required(path, "EncryptionWithColumnKey.path_in_schema")?,
                        key_metadata: key,
                    });
                }
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        required(value, "ColumnCryptoMetaData member")
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        match self {
            ColumnCryptoMetaData::FooterKey => w.empty_struct(1),
            ColumnCryptoMetaData::ColumnKey { path_in_schema, key_metadata } => {
                w.struct_begin_field(2);
                w.binary_list(1, path_in_schema);
                w.opt_binary(2, key_metadata.as_deref());
                w.struct_end();
            }
        }
        w.struct_end();
    }
}

/// One column of one row group: where its metadata and page indexes are.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnChunk {
    /// Another file holding the data (summary `_metadata` files only).
    pub file_path: Option<String>,
    /// Deprecated offset of the column metadata; usually 0.
    pub file_offset: i64,
    /// The chunk's metadata (absent only in encrypted files).
    pub meta_data: Option<ColumnMetaData>,
    /// File offset of the chunk's OffsetIndex.
    pub offset_index_offset: Option<i64>,
    /// Length of the chunk's OffsetIndex.
    pub offset_index_length: Option<i32>,
    /// File offset of the chunk's ColumnIndex.
    pub column_index_offset: Option<i64>,
    /// Length of the chunk's ColumnIndex.
    pub column_index_length: Option<i32>,
    /// Encryption of this column, if any.
    pub crypto_metadata: Option<Box<ColumnCryptoMetaData>>,
    /// The encrypted ColumnMetaData, if any.
    pub encrypted_column_metadata: Option<Vec<u8>>,
}

impl ThriftStruct for ColumnChunk {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut c = ColumnChunk::default();
        Self::read_into(&mut c, r)?;
        Ok(c)
    }

    fn read_into(c: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        r.read_struct("ColumnChunk", |r, id, ty| {
            match id {
                1 => c.file_path = Some(r.string(ty)?),
                2 => c.file_offset = r.i64(ty)?,
                3 => r.struct_field_into(ty, &mut c.meta_data)?,
                4 => c.offset_index_offset = Some(r.i64(ty)?),
                5 => c.offset_index_length = Some(r.i32(ty)?),
                6 => c.column_index_offset = Some(r.i64(ty)?),
                7 => c.column_index_length = Some(r.i32(ty)?),
                8 => c.crypto_metadata = Some(Box::new(r.read_struct_field(ty)?)),
                9 => c.encrypted_column_metadata = Some(r.bytes(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        if let Some(p) = &self.file_path {
            w.binary(1, p.as_bytes());
        }
        w.i64(2, self.file_offset);
        if let Some(m) = &self.meta_data {
            w.struct_field(3, m);
        }
        w.opt_i64(4, self.offset_index_offset);
        w.opt_i32(5, self.offset_index_length);
        w.opt_i64(6, self.column_index_offset);
        w.opt_i32(7, self.column_index_length);
        if let Some(c) = &self.crypto_metadata {
            w.struct_field(8, c.as_ref());
        }
        w.opt_binary(9, self.encrypted_column_metadata.as_deref());
        w.struct_end();
    }
}
