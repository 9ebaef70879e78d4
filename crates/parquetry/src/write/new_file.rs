//! A new file at a path that appears there only once complete, for [`ParquetWriter::create`].

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::file::ParquetWriter;
use super::options::WriteOptions;
use crate::error::{Error, Result};
use crate::format::FileMetaData;
use crate::io::{FileSink, TempFile};

/// The sink of a [`ParquetWriter`] made by [`ParquetWriter::create`]: a temporary file beside
/// the destination (written behind the encoding when the writer has threads), synced and
/// renamed to the destination when the writer closes. Until then the destination is left as
/// it was, and a writer dropped or failed removes the temporary file: a reader never finds a
/// partial Parquet file at the path.
pub struct NewFile {
    sink: Option<FileSink>,
    temp: Option<TempFile>,
    dest: PathBuf,
}

impl NewFile {
    fn create(dest: &Path, threads: usize) -> Result<Self> {
        let temp = TempFile::beside(dest)?;
        let sink =
            FileSink::new(temp.file()?, threads).map_err(|e| Error::io("starting the file's writing thread", e))?;
        Ok(NewFile { sink: Some(sink), temp: Some(temp), dest: dest.to_path_buf() })
    }

    /// The destination path.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Whether the file is at its destination (the writer has closed).
    pub fn is_committed(&self) -> bool {
        self.temp.is_none()
    }

    /// Flushes and syncs the temporary file, then renames it to the destination.
    fn commit(&mut self) -> Result<()> {
        let (Some(sink), Some(temp)) = (self.sink.take(), self.temp.take()) else {
            return Err(Error::invalid_argument(format!("{} was already committed", self.dest.display())));
        };
        let file = sink.into_file().map_err(|e| Error::io("flushing the file", e))?;
        file.sync_all().map_err(|e| Error::io(format!("syncing {}", temp.path().display()), e))?;
        drop(file);
        temp.persist(&self.dest)
    }

    fn sink(&mut self) -> io::Result<&mut FileSink> {
        self.sink.as_mut().ok_or_else(|| io::Error::other("the file was already committed"))
    }
}

impl std::fmt::Debug for NewFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewFile").field("dest", &self.dest).field("committed", &self.is_committed()).finish()
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.sink()?.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.sink()?.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sink()?.flush()
    }
}

impl ParquetWriter<NewFile> {
    /// A writer of a new Parquet file at `path`, which appears there (replacing what was
    /// there) only when [`close`](ParquetWriter::close) has written the footer: the bytes go
    /// to a temporary file beside it, renamed into place at the end. On an error, or if the
    /// writer is dropped unclosed, `path` is left as it was.
    ///
    /// ```no_run
    /// # use std::sync::Arc;
    /// # use arrow_array::{ArrayRef, Int32Array, RecordBatch};
    /// use parquetry::write::{ParquetWriter, WriteOptions};
    /// # let batch = RecordBatch::try_from_iter([("a", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef)]).unwrap();
    /// let mut writer = ParquetWriter::create("out.parquet", batch.schema(), WriteOptions::default())?;
    /// writer.write(&batch)?;
    /// writer.close()?; // out.parquet exists from here on
    /// # Ok::<(), parquetry::Error>(())
    /// ```
    pub fn create(path: impl AsRef<Path>, schema: arrow_schema::SchemaRef, options: WriteOptions) -> Result<Self> {
        let file = NewFile::create(path.as_ref(), options.threads)?;
        Ok(ParquetWriter::try_new(file, schema, options)?.with_commit(NewFile::commit))
    }
}

/// Writes `batches` (all of `schema`) to a Parquet file at `path`, through
/// [`ParquetWriter::create`]: `path` never holds a partial file.
pub(super) fn write_batches<'b>(
    path: &Path,
    schema: arrow_schema::SchemaRef,
    batches: impl IntoIterator<Item = &'b arrow_array::RecordBatch>,
    options: WriteOptions,
) -> Result<FileMetaData> {
    let mut writer = ParquetWriter::create(path, schema, options)?;
    for batch in batches {
        writer.write(batch)?;
    }
    writer.close()
}
