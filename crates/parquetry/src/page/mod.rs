//! Pages: finding a column chunk's bytes in the file and splitting them into pages (header +
//! body), opening a page (CRC, decompression, the split into repetition levels, definition
//! levels and values: [`PageDecompressor`]), and the reverse for writing ([`PageWriter`]).
//! Decoding levels and values happens in later layers.

mod blocks;
mod chunk;
mod data_page;
mod decoded;
mod deferred;
mod source;
mod spill;
mod stream;
mod writer;

pub use blocks::PageBlocks;
pub use chunk::{chunk_byte_range, has_parquet_816_bug};
pub use data_page::{DataPage, DataPageVersion};
pub(crate) use decoded::{data_page_rows, DataPageSections, DecodedPage, PageDecompressor};
pub use decoded::{level_bit_width, LevelData};
pub use deferred::CompressorPool;
pub use source::{BytesSource, ChunkSource, FileSource, ReaderSource};
pub use spill::{Segment, SpillFile};
pub use stream::{Next, Page, PageStream, MAX_RECYCLED};
pub use writer::{FinishedChunk, PageWriter};
