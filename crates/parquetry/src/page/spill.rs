//! Spilled pages: a row group's column chunks must each be contiguous in the file, so a writer
//! holds every encoded page of the open row group. Past a memory bound, finished pages move to
//! a scratch file as they are (compressed, headers included) and are copied into place when
//! the row group closes: the same page copy that merging does.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use crate::error::{Error, Result};
use crate::io::TempFile;

/// A stretch of a spill file: `(offset, length)`.
pub type Segment = (u64, u64);

/// A scratch file that pages are appended to and copied back from; removed when dropped.
#[derive(Debug)]
pub struct SpillFile {
    file: File,
    len: u64,
    _temp: TempFile,
}

impl SpillFile {
    /// A new, empty spill file in the system's temporary directory.
    pub fn new() -> Result<Self> {
        let temp = TempFile::scratch()?;
        let file = temp.open_read_write()?;
        Ok(SpillFile { file, len: 0, _temp: temp })
    }

    /// Appends `bytes` and says where they went.
    pub fn append(&mut self, bytes: &[u8]) -> Result<Segment> {
        self.file.seek(SeekFrom::Start(self.len)).map_err(|e| Error::io("seeking the spill file", e))?;
        self.file.write_all(bytes).map_err(|e| Error::io("writing the spill file", e))?;
        let segment = (self.len, bytes.len() as u64);
        self.len += bytes.len() as u64;
        Ok(segment)
    }

    /// Copies `segment` to `out` through `buffer`.
    pub fn copy_to<W: Write>(&mut self, segment: Segment, out: &mut W, buffer: &mut Vec<u8>) -> Result<()> {
        let (offset, mut left) = segment;
        self.file.seek(SeekFrom::Start(offset)).map_err(|e| Error::io("seeking the spill file", e))?;
        buffer.resize(1 << 20, 0);
        while left > 0 {
            let n = left.min(buffer.len() as u64) as usize;
            self.file.read_exact(&mut buffer[..n]).map_err(|e| Error::io("reading the spill file", e))?;
            out.write_all(&buffer[..n]).map_err(|e| Error::io("copying spilled pages", e))?;
            left -= n as u64;
        }
        Ok(())
    }

    /// Forgets every segment (the row group they belonged to is written), keeping the file.
    pub fn reset(&mut self) -> Result<()> {
        self.file.set_len(0).map_err(|e| Error::io("truncating the spill file", e))?;
        self.len = 0;
        Ok(())
    }
}
