//! The files to write: every encoding set × codec × data page version, CRCs on in half.

use arrow_schema::{DataType, Schema};
use parquetry::compress::Codec;
use parquetry::format::Encoding;
use parquetry::write::{DataPageVersion, WriteOptions};

use crate::data::Shape;

/// Which encodings the columns get. Each column whose physical type takes the set's encoding
/// gets it; the others are PLAIN (booleans: RLE in v2 pages, as the writer's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingSet {
    /// PLAIN everywhere, dictionary off.
    Plain,
    /// RLE_DICTIONARY everywhere (1 MiB dictionary page limit: no fallback here).
    Dictionary,
    /// RLE_DICTIONARY with a 1 KiB dictionary page limit: chunks start with dictionary pages
    /// and fall back to PLAIN pages.
    DictionaryFallback,
    /// DELTA_BINARY_PACKED for INT32/INT64 columns.
    DeltaBinaryPacked,
    /// DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY columns.
    DeltaLengthByteArray,
    /// DELTA_BYTE_ARRAY for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY columns.
    DeltaByteArray,
    /// BYTE_STREAM_SPLIT for FLOAT/DOUBLE columns.
    ByteStreamSplit,
    /// BYTE_STREAM_SPLIT for INT32/INT64/FIXED_LEN_BYTE_ARRAY columns (format 2.11).
    ByteStreamSplitExtended,
}

pub const SETS: [EncodingSet; 8] = [
    EncodingSet::Plain,
    EncodingSet::Dictionary,
    EncodingSet::DictionaryFallback,
    EncodingSet::DeltaBinaryPacked,
    EncodingSet::DeltaLengthByteArray,
    EncodingSet::DeltaByteArray,
    EncodingSet::ByteStreamSplit,
    EncodingSet::ByteStreamSplitExtended,
];

pub const CODECS: [Codec; 7] =
    [Codec::Uncompressed, Codec::Snappy, Codec::Gzip, Codec::Brotli, Codec::Lz4, Codec::Lz4Raw, Codec::Zstd];

/// The Parquet physical type class of a column, from its Arrow type (as parquetry maps it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Physical {
    Null,
    Boolean,
    /// INT32 or INT64.
    Int,
    /// FLOAT or DOUBLE.
    Float,
    ByteArray,
    FixedLen,
}

pub fn physical(t: &DataType) -> Physical {
    use DataType as D;
    match t {
        D::Null => Physical::Null,
        D::Boolean => Physical::Boolean,
        D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => Physical::Int,
        D::Date32 | D::Date64 | D::Time32(_) | D::Time64(_) | D::Timestamp(..) | D::Duration(_) => Physical::Int,
        D::Decimal128(p, _) | D::Decimal256(p, _) if *p <= 18 => Physical::Int,
        D::Decimal128(..) | D::Decimal256(..) | D::Float16 | D::FixedSizeBinary(_) => Physical::FixedLen,
        D::Float32 | D::Float64 => Physical::Float,
        D::Dictionary(_, v) => physical(v),
        _ => Physical::ByteArray,
    }
}

/// One file of the matrix.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub set: EncodingSet,
    pub codec: Codec,
    pub version: DataPageVersion,
    pub crc: bool,
}

pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (s, &set) in SETS.iter().enumerate() {
        for (c, &codec) in CODECS.iter().enumerate() {
            for (v, version) in [DataPageVersion::V1, DataPageVersion::V2].into_iter().enumerate() {
                out.push(Case { set, codec, version, crc: (s + c + v) % 2 == 1 });
            }
        }
    }
    out
}

impl Case {
    pub fn set_name(&self) -> &'static str {
        match self.set {
            EncodingSet::Plain => "plain",
            EncodingSet::Dictionary => "dictionary",
            EncodingSet::DictionaryFallback => "dictionary_fallback",
            EncodingSet::DeltaBinaryPacked => "delta_binary_packed",
            EncodingSet::DeltaLengthByteArray => "delta_length_byte_array",
            EncodingSet::DeltaByteArray => "delta_byte_array",
            EncodingSet::ByteStreamSplit => "byte_stream_split",
            EncodingSet::ByteStreamSplitExtended => "byte_stream_split_ext",
        }
    }

    pub fn codec_name(&self) -> &'static str {
        match self.codec {
            Codec::Uncompressed => "uncompressed",
            Codec::Snappy => "snappy",
            Codec::Gzip => "gzip",
            Codec::Brotli => "brotli",
            Codec::Lz4 => "lz4",
            Codec::Lz4Raw => "lz4_raw",
            Codec::Zstd => "zstd",
            Codec::Lzo => "lzo",
        }
    }

    /// `SET-CODEC-vN[-crc].parquet`.
    pub fn file_name(&self) -> String {
        let v = match self.version {
            DataPageVersion::V1 => "v1",
            DataPageVersion::V2 => "v2",
        };
        format!("{}-{}-{}{}.parquet", self.set_name(), self.codec_name(), v, if self.crc { "-crc" } else { "" })
    }

    /// The table's shape: long binaries (past the 64-byte statistics truncation and across
    /// 4 KiB pages) in the PLAIN and fallback files.
    pub fn shape(&self) -> Shape {
        let long = matches!(self.set, EncodingSet::Plain | EncodingSet::DictionaryFallback);
        Shape { max_binary: if long { 300 } else { 64 }, ..Shape::default() }
    }

    /// Byte-array statistics are truncated to this many bytes (the writer's default).
    pub fn truncate_length(&self) -> Option<usize> {
        Some(parquetry::write::DEFAULT_STATISTICS_TRUNCATE_LENGTH)
    }

    /// The writer options: 2,500-row row groups, 4 KiB / 1,000-row pages, the case's codec,
    /// page version, CRCs and encodings.
    pub fn options(&self, schema: &Schema) -> Result<WriteOptions, String> {
        let mut o = WriteOptions::new()
            .with_compression(self.codec)
            .with_data_page_version(self.version)
            .with_crc(self.crc)
            .with_row_group_rows(2_500)
            .with_data_page_size(4_096)
            .with_data_page_row_limit(1_000);
        let per_column = |o: WriteOptions, wants: &[Physical], encoding: Encoding| {
            schema
                .fields()
                .iter()
                .filter(|f| wants.contains(&physical(f.data_type())))
                .fold(o.with_dictionary(false), |o, f| o.with_column_encoding(f.name(), encoding))
        };
        o = match self.set {
            EncodingSet::Plain => o.with_dictionary(false),
            EncodingSet::Dictionary => o.with_dictionary(true),
            EncodingSet::DictionaryFallback => o.with_dictionary(true).with_dictionary_page_size_limit(1_024),
            EncodingSet::DeltaBinaryPacked => per_column(o, &[Physical::Int], Encoding::DELTA_BINARY_PACKED),
            EncodingSet::DeltaLengthByteArray => {
                per_column(o, &[Physical::ByteArray], Encoding::DELTA_LENGTH_BYTE_ARRAY)
            }
            EncodingSet::DeltaByteArray => {
                per_column(o, &[Physical::ByteArray, Physical::FixedLen], Encoding::DELTA_BYTE_ARRAY)
            }
            EncodingSet::ByteStreamSplit => per_column(o, &[Physical::Float], Encoding::BYTE_STREAM_SPLIT),
            EncodingSet::ByteStreamSplitExtended => {
                per_column(o, &[Physical::Int, Physical::FixedLen], Encoding::BYTE_STREAM_SPLIT)
            }
        };
        Ok(o)
    }
}
