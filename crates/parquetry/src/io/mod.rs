//! Where a file's bytes go: the file assembler that lays out pages, page indexes and the
//! footer (one for the writer and merge alike), the write-behind sink that writes them on a
//! thread of its own, and temporary files (written beside their destination, renamed into
//! place only once complete).

mod assembler;
mod temp;
mod write_behind;

pub(crate) use assembler::{ChunkParts, FileAssembler};
pub use temp::TempFile;
pub(crate) use write_behind::copy_file_bytes;
pub use write_behind::{FileSink, WriteBehind};
