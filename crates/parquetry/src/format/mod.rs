//! The Parquet format itself: the Thrift compact protocol, the metadata and page-header structs
//! of `parquet.thrift`, and the footer. Nothing here knows about Arrow.

pub mod bloom_filter;
pub mod column_chunk;
pub mod enums;
pub mod file_metadata;
pub mod footer;
pub mod page_header;
pub mod page_index;
pub mod schema_element;
pub mod stat_bytes;
pub mod statistics;
experimental_modules! {
    thrift;
}
mod thrift_writer;

pub use bloom_filter::{bloom_hash, SplitBlockBloomFilter};
pub use column_chunk::{ColumnChunk, ColumnCryptoMetaData, ColumnMetaData, PageEncodingStats};
pub use enums::{
    BoundaryOrder, CompressionCodec, ConvertedType, EdgeInterpolationAlgorithm, Encoding, PageType, PhysicalType,
    Repetition,
};
pub use file_metadata::{ColumnOrder, EncryptionAlgorithm, FileMetaData, KeyValue, RowGroup, SortingColumn};
pub use footer::{encode_footer, read_metadata, read_metadata_from_bytes};
pub use page_header::{DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, IndexPageHeader, PageHeader};
pub use page_index::{encode_page_indexes, BloomFilterHeader, ColumnIndex, OffsetIndex, PageLocation};
pub use schema_element::{LogicalType, SchemaElement, TimeUnit};
pub use stat_bytes::StatBytes;
pub use statistics::{BoundingBox, GeospatialStatistics, SizeStatistics, Statistics};
