//! The file reader: open a Parquet file, look at its metadata, read record batches.

use std::fs::File;
use std::io::{Read, Seek};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::Buffer;
use arrow_schema::{Field, Schema, SchemaRef};

use super::column::{ColumnPlan, ColumnReader};
use super::options::{ColumnSelector, ReadOptions};
use super::selection::{self, Step};
use crate::error::{Error, Result};
use crate::format::{self, FileMetaData};
use crate::page::{BytesSource, ChunkSource, FileSource, ReaderSource};
use crate::schema::{arrow_schema, SchemaDescriptor};

/// An open Parquet file: its metadata, schema and a source of its bytes.
///
/// ```no_run
/// use parquetry::read::{ParquetFile, ReadOptions};
/// let mut file = ParquetFile::open("data.parquet")?;
/// for batch in file.batches(ReadOptions::default().with_columns(["id", "name"]))? {
///     let batch = batch?;
///     println!("{} rows", batch.num_rows());
/// }
/// # Ok::<(), parquetry::Error>(())
/// ```
pub struct ParquetFile<S: ChunkSource> {
    source: S,
    metadata: Arc<FileMetaData>,
    schema: Arc<SchemaDescriptor>,
    arrow_schema: SchemaRef,
}

impl ParquetFile<FileSource> {
    /// Opens a file by path and decodes its footer. Pages are read with positional reads,
    /// so threads decoding different columns share the file without a lock.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let mut file = File::open(path)
            .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        let (metadata, _) = format::read_metadata(&mut file)?;
        Self::with_source(FileSource::new(file)?, metadata)
    }
}

impl ParquetFile<BytesSource> {
    /// Opens a file by path as a memory map: no `read` copy of the file, so reading
    /// uncompressed (and, to a lesser degree, compressed) files is faster than with
    /// [`ParquetFile::open`], and views over uncompressed pages copy nothing at all.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified while this `ParquetFile` or any array read
    /// from it is alive (see [`BytesSource::map`]): a truncation kills the process with
    /// `SIGBUS`, a modification can change already-validated bytes under the arrays. Use
    /// [`ParquetFile::open`] for files that another process may be writing.
    pub unsafe fn open_mapped(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let at = |e: Error| e.context(format_args!("{}", path.display()));
        let file = File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        // SAFETY: forwarded to the caller (this function's contract).
        let source = unsafe { BytesSource::map(&file) }.map_err(at)?;
        let metadata = format::read_metadata_from_bytes(source.bytes().as_slice())?;
        Self::with_source(source, metadata)
    }
}

impl<R: Read + Seek + Send> ParquetFile<ReaderSource<R>> {
    /// Reads a file from any `Read + Seek` (a `File`, a `Cursor`, ...).
    pub fn from_reader(mut reader: R) -> Result<Self> {
        let (metadata, _) = format::read_metadata(&mut reader)?;
        Self::with_source(ReaderSource::new(reader)?, metadata)
    }
}

impl ParquetFile<BytesSource> {
    /// Reads a file held in memory. Pages are sliced from these bytes without copying.
    pub fn from_bytes(bytes: impl Into<Buffer>) -> Result<Self> {
        let bytes: Buffer = bytes.into();
        let metadata = format::read_metadata_from_bytes(bytes.as_slice())?;
        Self::with_source(BytesSource::new(bytes), metadata)
    }
}

impl<S: ChunkSource> ParquetFile<S> {
    /// Builds a reader from a source and its already decoded footer.
    pub fn with_source(source: S, metadata: FileMetaData) -> Result<Self> {
        if metadata.encryption_algorithm.is_some() {
            return Err(Error::unsupported(
                "the file's columns are encrypted: encrypted files are not supported yet",
            ));
        }
        let schema = SchemaDescriptor::from_metadata(&metadata)?;
        let arrow = arrow_schema(&schema, metadata.key_value_metadata.as_deref())?;
        Ok(ParquetFile {
            source,
            metadata: Arc::new(metadata),
            schema: Arc::new(schema),
            arrow_schema: Arc::new(arrow),
        })
    }

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.metadata
    }

    /// The Parquet schema tree and leaf columns.
    pub fn schema_descriptor(&self) -> &SchemaDescriptor {
        &self.schema
    }

    /// The Arrow schema of the whole file (before any projection or type override).
    pub fn arrow_schema(&self) -> SchemaRef {
        Arc::clone(&self.arrow_schema)
    }

    /// Number of row groups.
    pub fn num_row_groups(&self) -> usize {
        self.metadata.row_groups.len()
    }

    /// Reads one whole row group, all columns, as one record batch.
    pub fn read_row_group(&mut self, index: usize) -> Result<RecordBatch> {
        let options = ReadOptions::default().with_row_groups([index]).with_batch_size(usize::MAX);
        let mut batches = self.read_all(&options)?;
        match batches.len() {
            0 => Ok(RecordBatch::new_empty(self.arrow_schema())),
            _ => Ok(batches.swap_remove(0)),
        }
    }

    /// Reads everything `options` selects into a vector of batches.
    pub fn read_all(&mut self, options: &ReadOptions) -> Result<Vec<RecordBatch>> {
        self.batches(options.clone())?.collect()
    }

    /// An iterator over record batches of the selected columns and row groups.
    pub fn batches(&self, options: ReadOptions) -> Result<RecordBatchIter<'_, S>> {
        RecordBatchIter::new(FileRef::Borrowed(self), options)
    }

    /// Like [`batches`](Self::batches), owning the file: an iterator that can be sent to
    /// another thread or kept without a borrow (see [`ParquetRecordBatchReader`](super::ParquetRecordBatchReader)).
    pub fn into_batches(self, options: ReadOptions) -> Result<RecordBatchIter<'static, S>>
    where
        S: 'static,
    {
        RecordBatchIter::new(FileRef::Owned(self), options)
    }
}

impl<'f, S: ChunkSource> RecordBatchIter<'f, S> {
    fn new(file: FileRef<'f, S>, mut options: ReadOptions) -> Result<Self> {
        // The field is public: a zero would make every batch empty and the iterator endless.
        options.batch_size = options.batch_size.max(1);
        let row_groups = match &options.row_groups {
            Some(rg) => {
                for &i in rg {
                    if i >= file.metadata.row_groups.len() {
                        return Err(Error::invalid_argument(format!(
                            "row group {i} does not exist (the file has {})",
                            file.metadata.row_groups.len()
                        )));
                    }
                }
                rg.clone()
            }
            None => (0..file.metadata.row_groups.len()).collect(),
        };
        let fields = file.select_fields(options.columns.as_deref())?;
        let mut plans = Vec::with_capacity(fields.len());
        for &f in &fields {
            plans.push(ColumnPlan::new(&file.schema, &file.arrow_schema, f, &options)?);
        }
        let schema = Arc::new(Schema::new_with_metadata(
            plans.iter().map(|p| p.field.clone()).collect::<Vec<Field>>(),
            file.arrow_schema.metadata().clone(),
        ));
        if let Some(ranges) = &options.row_selection {
            let rows = file.metadata.row_groups.iter().map(|rg| rg.num_rows.max(0) as u64).sum();
            selection::check(ranges, rows)?;
        }
        let pool = match options.threads {
            0 | 1 => None,
            n => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("parquetry-read-{i}"))
                    .build()
                    .map_err(|e| Error::io("starting the decoding threads", std::io::Error::other(e)))?,
            ),
        };
        // Where each row group starts in the file's row numbers, for the row selection.
        let mut starts = Vec::with_capacity(file.metadata.row_groups.len());
        let mut at = 0u64;
        for rg in &file.metadata.row_groups {
            starts.push(at);
            at = at.saturating_add(rg.num_rows.max(0) as u64);
        }
        Ok(RecordBatchIter {
            file,
            options,
            schema,
            plans,
            row_groups,
            starts,
            next_row_group: 0,
            readers: Vec::new(),
            steps: VecDeque::new(),
            pool,
        })
    }

}

impl<S: ChunkSource> ParquetFile<S> {
    fn select_fields(&self, columns: Option<&[ColumnSelector]>) -> Result<Vec<usize>> {
        let fields = self.arrow_schema.fields();
        let Some(columns) = columns else { return Ok((0..fields.len()).collect()) };
        columns
            .iter()
            .map(|c| match c {
                ColumnSelector::Index(i) if *i < fields.len() => Ok(*i),
                ColumnSelector::Index(i) => Err(Error::invalid_argument(format!(
                    "column index {i} does not exist (the file has {} top-level columns)",
                    fields.len()
                ))),
                ColumnSelector::Name(n) => fields.iter().position(|f| f.name() == n).ok_or_else(|| {
                    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
                    Error::invalid_argument(format!(
                        "no column named '{n}' (columns: {})",
                        names.join(", ")
                    ))
                }),
            })
            .collect()
    }
}

/// The file a [`RecordBatchIter`] reads: borrowed, or owned by an owning reader.
pub(crate) enum FileRef<'f, S: ChunkSource> {
    Borrowed(&'f ParquetFile<S>),
    Owned(ParquetFile<S>),
}

impl<S: ChunkSource> std::ops::Deref for FileRef<'_, S> {
    type Target = ParquetFile<S>;
    fn deref(&self) -> &ParquetFile<S> {
        match self {
            FileRef::Borrowed(f) => f,
            FileRef::Owned(f) => f,
        }
    }
}

/// Record batches of a file, row group after row group.
pub struct RecordBatchIter<'f, S: ChunkSource> {
    file: FileRef<'f, S>,
    options: ReadOptions,
    schema: SchemaRef,
    plans: Vec<ColumnPlan>,
    row_groups: Vec<usize>,
    /// The file row number of each row group's first row.
    starts: Vec<u64>,
    next_row_group: usize,
    readers: Vec<ColumnReader>,
    /// What is left to do in the open row group: reads, and skips between them.
    steps: VecDeque<Step>,
    /// The threads that decode the columns of a batch at once (`threads` > 1 only).
    pool: Option<rayon::ThreadPool>,
}

impl<S: ChunkSource> RecordBatchIter<'_, S> {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    fn open_row_group(&mut self) -> Result<bool> {
        while self.next_row_group < self.row_groups.len() {
            let rg_index = self.row_groups[self.next_row_group];
            self.next_row_group += 1;
            let rg = &self.file.metadata.row_groups[rg_index];
            if rg.num_rows < 0 {
                return Err(Error::corrupt(format!(
                    "row group {rg_index}: negative row count {}",
                    rg.num_rows
                )));
            }
            let rows = rg.num_rows as usize;
            let steps = match &self.options.row_selection {
                Some(ranges) => selection::steps(ranges, self.starts[rg_index], rows),
                None if rows > 0 => VecDeque::from([Step::Read(rows)]),
                None => VecDeque::new(),
            };
            if steps.is_empty() {
                // No row of this row group is read: its columns are not even opened.
                continue;
            }
            self.readers.clear();
            for plan in &self.plans {
                let reader = ColumnReader::open(
                    &self.file.source,
                    &self.file.metadata,
                    &self.file.schema,
                    rg_index,
                    plan,
                    &self.options,
                )?;
                self.readers.push(reader);
            }
            self.steps = steps;
            return Ok(true);
        }
        Ok(false)
    }

    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.steps.is_empty() && !self.open_row_group()? {
            return Ok(None);
        }
        // Up to a batch of rows, from as many selected ranges as it takes (within the row
        // group), passing over the rows between them.
        let mut plan = Vec::new();
        let mut rows = 0;
        while rows < self.options.batch_size {
            let Some(step) = self.steps.pop_front() else { break };
            if let Step::Read(n) = step {
                let k = n.min(self.options.batch_size - rows);
                rows += k;
                if k < n {
                    self.steps.push_front(Step::Read(n - k));
                }
                plan.push(Step::Read(k));
            } else {
                plan.push(step);
            }
        }
        // Each column walks the plan on its own: columns are independent, so with threads
        // they are decoded at once, and the output is the same as on one thread.
        let source = &self.file.source;
        let run = |reader: &mut ColumnReader| -> Result<ArrayRef> {
            for step in &plan {
                match *step {
                    Step::Skip(n) => reader.skip(source, n)?,
                    Step::Read(n) => reader.append(source, n)?,
                }
            }
            reader.finish()
        };
        let columns: Vec<ArrayRef> = match &self.pool {
            Some(pool) if self.readers.len() > 1 => {
                use rayon::prelude::*;
                pool.install(|| self.readers.par_iter_mut().map(run).collect::<Result<_>>())?
            }
            _ => self.readers.iter_mut().map(run).collect::<Result<_>>()?,
        };
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
            .map(Some)
            .map_err(|e| Error::corrupt(format!("assembling a record batch: {e}")))
    }
}

impl<S: ChunkSource> Iterator for RecordBatchIter<'_, S> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_batch() {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                // An error ends the iteration: the readers' state is no longer trustworthy.
                self.steps.clear();
                self.next_row_group = self.row_groups.len();
                Some(Err(e))
            }
        }
    }
}
