//! An opened Parquet file: its footer, schema and a source of its bytes. Reading goes
//! through [`ParquetReaderBuilder`](super::ParquetReaderBuilder).

use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;
use std::sync::Arc;

use arrow_buffer::Buffer;
use arrow_schema::SchemaRef;

use super::batches::RecordBatchIter;
use super::options::{ColumnSelector, ReadOptions};
use crate::error::{Error, Result};
use crate::format::{self, FileMetaData};
use crate::page::{BytesSource, ChunkSource, FileSource, ReaderSource};
use crate::schema::{arrow_schema, SchemaDescriptor};

/// An open Parquet file: its metadata, schema and a source of its bytes. It is read through
/// a [`ParquetReaderBuilder`](super::ParquetReaderBuilder), which takes it whole; a clone is
/// cheap (the source and the decoded footer are shared, not copied), so a file opened once
/// can be read several times, at once or in turn, without decoding its footer again.
///
/// ```no_run
/// use parquetry::read::{ParquetFile, ParquetReaderBuilder, ReadOptions};
/// let file = ParquetFile::open("data.parquet")?;
/// println!("{} row groups", file.num_row_groups());
/// let options = ReadOptions::default().with_columns(["id", "name"]);
/// for batch in ParquetReaderBuilder::new(file.clone()).with_options(options).build()? {
///     let batch = batch?;
///     println!("{} rows", batch.num_rows());
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ParquetFile<S: ChunkSource> {
    /// Shared by the clones: a reader owns its file, and reading a file twice must not
    /// open it twice.
    pub(super) source: Arc<S>,
    pub(super) metadata: Arc<FileMetaData>,
    pub(super) schema: Arc<SchemaDescriptor>,
    pub(super) arrow_schema: SchemaRef,
}

impl ParquetFile<FileSource> {
    /// Opens a file by path and decodes its footer. Pages are read with positional reads,
    /// so threads decoding different columns share the file without a lock.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let mut file = File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
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
            return Err(Error::unsupported("the file's columns are encrypted: encrypted files are not supported yet"));
        }
        let schema = SchemaDescriptor::from_metadata(&metadata)?;
        let arrow = arrow_schema(&schema, metadata.key_value_metadata.as_deref())?;
        Ok(ParquetFile {
            source: Arc::new(source),
            metadata: Arc::new(metadata),
            schema: Arc::new(schema),
            arrow_schema: Arc::new(arrow),
        })
    }

    /// The source of the file's bytes.
    pub fn source(&self) -> &S {
        &self.source
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

    /// Record batches of the selected columns and row groups, for the crate's own reads of
    /// a file it holds by reference (a filter's first pass); users read through the builder.
    pub(crate) fn batches(&self, options: ReadOptions) -> Result<RecordBatchIter<S>> {
        RecordBatchIter::new(self.clone(), options)
    }
}

impl<S: ChunkSource> Clone for ParquetFile<S> {
    /// Another handle on the same file: the source, footer and schemas are shared.
    fn clone(&self) -> Self {
        ParquetFile {
            source: Arc::clone(&self.source),
            metadata: Arc::clone(&self.metadata),
            schema: Arc::clone(&self.schema),
            arrow_schema: Arc::clone(&self.arrow_schema),
        }
    }
}

impl<S: ChunkSource> ParquetFile<S> {
    /// The top-level fields a read selects, in order, and (when a selector names a path
    /// inside a field, like `rec.b` or `tags.list.element`) which leaf columns are read:
    /// a path keeps the leaves below it and their parents.
    pub(super) fn select_fields(&self, columns: Option<&[ColumnSelector]>) -> Result<(Vec<usize>, Option<Vec<bool>>)> {
        let fields = self.arrow_schema.fields();
        let Some(columns) = columns else { return Ok(((0..fields.len()).collect(), None)) };
        let mut order: Vec<usize> = Vec::new();
        let mut leaves = vec![false; self.schema.columns.len()];
        let mut by_path = false;
        for c in columns {
            let field = match c {
                ColumnSelector::Index(i) if *i < fields.len() => *i,
                ColumnSelector::Index(i) => {
                    return Err(Error::invalid_argument(format!(
                        "column index {i} does not exist (the file has {} top-level columns)",
                        fields.len()
                    )))
                }
                ColumnSelector::Name(n) => match fields.iter().position(|f| f.name() == n) {
                    Some(i) => i,
                    None => {
                        let i = self.select_path(n, &mut leaves)?;
                        by_path = true;
                        if !order.contains(&i) {
                            order.push(i);
                        }
                        continue;
                    }
                },
            };
            mark_leaves(&self.schema.root.children[field], &mut leaves);
            if !by_path || !order.contains(&field) {
                order.push(field);
            }
        }
        Ok((order, by_path.then_some(leaves)))
    }

    /// Marks the leaves at or below the dotted Parquet path `path` and returns the top-level
    /// field it is in.
    fn select_path(&self, path: &str, leaves: &mut [bool]) -> Result<usize> {
        let parts: Vec<&str> = path.split('.').collect();
        let mut found = None;
        for (i, c) in self.schema.columns.iter().enumerate() {
            if c.path.len() >= parts.len() && c.path.iter().zip(&parts).all(|(a, b)| a == b) {
                leaves[i] = true;
                found = Some(&c.path[0]);
            }
        }
        let Some(top) = found else {
            if parts.len() == 1 {
                let names: Vec<&str> = self.arrow_schema.fields().iter().map(|f| f.name().as_str()).collect();
                return Err(Error::invalid_argument(format!(
                    "no column named '{path}' (columns: {})",
                    names.join(", ")
                )));
            }
            let names: Vec<String> = self.schema.columns.iter().map(|c| c.dotted_path()).collect();
            return Err(Error::invalid_argument(format!(
                "no column or column path '{path}' (leaf columns: {})",
                names.join(", ")
            )));
        };
        let fields = self.arrow_schema.fields();
        fields
            .iter()
            .position(|f| f.name() == top)
            .ok_or_else(|| Error::invalid_argument(format!("column path '{path}': no top-level field '{top}'")))
    }
}

/// Marks every leaf at or below `node`.
fn mark_leaves(node: &crate::schema::SchemaNode, leaves: &mut [bool]) {
    match node.leaf {
        Some(i) => leaves[i] = true,
        None => node.children.iter().for_each(|c| mark_leaves(c, leaves)),
    }
}
