//! Pages: finding a column chunk's bytes in the file and splitting them into pages (header +
//! body). Decompression and decoding happen in later layers; here a page is still raw bytes.

mod chunk;
mod source;
mod blocks;
mod data_page;
mod deferred;
mod spill;
mod stream;
mod writer;

pub use chunk::{chunk_byte_range, has_parquet_816_bug};
pub use source::{BytesSource, ChunkSource, FileSource, ReaderSource};
pub use blocks::PageBlocks;
pub use deferred::CompressorPool;
pub use spill::{Segment, SpillFile};
pub use stream::{Next, Page, PageStream, MAX_RECYCLED};
pub use data_page::{DataPage, DataPageVersion};
pub use writer::{FinishedChunk, PageWriter};
