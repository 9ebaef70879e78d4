//! Datasets: many Parquet files read as one table. A source is a file, a folder (read
//! recursively), a glob pattern or a list of them; hive `key=value` folders become columns;
//! the files' schemas are unified; a filter prunes whole files by their partition values
//! before they are opened, then row groups and pages inside each file as a single-file read
//! does.
//!
//! ```no_run
//! use parquetry::dataset::Dataset;
//! use parquetry::filter::{col, lit};
//! use parquetry::read::ReadOptions;
//! let dataset = Dataset::open(["sales/"])?;
//! let options = ReadOptions::default().with_columns(["amount", "year"]).with_filter(col("year").ge(lit(2024)));
//! for batch in dataset.reader(options)? {
//!     println!("{} rows", batch?.num_rows());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod compact;
#[cfg(feature = "object-store")]
pub mod compact_store;
mod hive;
mod listing;
mod remote;
mod scan;
mod schema;
mod source;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{FieldRef, Schema, SchemaRef};

pub use hive::NULL_VALUE as HIVE_NULL_VALUE;
pub use listing::DEFAULT_IGNORE_PREFIXES;
pub use remote::Storage;
pub use scan::DatasetReader;
pub use source::DatasetSource;

use crate::error::{Error, Result};
use crate::filter::Predicate;
use crate::format::FileMetaData;
use crate::read::{ParquetFile, ReadOptions};

/// How a dataset's folders name partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Partitioning {
    /// `key=value` folders (Hive's, Spark's and pyarrow's layout). The default, as in
    /// pyarrow's `ParquetDataset`.
    #[default]
    Hive,
    /// Folders are only folders: no partition columns.
    None,
    /// The folders below the folder given are the values of these keys, in order (pyarrow's
    /// `DirectoryPartitioning`): `2024/eu/part-0.parquet` with keys `year`, `region`. Folders
    /// past the last key are only folders; a key with no folder is null. A file given by
    /// itself has no partition values.
    Directory(Vec<String>),
}

/// One file of a dataset: its path, footer, Arrow schema and partition values.
#[derive(Debug, Clone)]
pub struct DatasetFile {
    path: PathBuf,
    size: u64,
    metadata: FileMetaData,
    schema: SchemaRef,
    partition: Vec<ArrayRef>,
    /// Columns this file holds with another type than the dataset's, each with the error a
    /// read of it gives (the dataset takes the first file's type; a read that prunes the file
    /// or leaves the column out never meets it).
    conflicts: Vec<(String, String)>,
    /// For an object: a source over the version whose footer was read.
    #[cfg_attr(not(feature = "object-store"), allow(dead_code))]
    remote: Option<remote::Remote>,
}

impl DatasetFile {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The file's footer, read once when the dataset was opened.
    pub fn metadata(&self) -> &FileMetaData {
        &self.metadata
    }

    /// The file's own Arrow schema (before unification).
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// The file's partition values, one single-row array per partition field of the
    /// dataset (null where its folders do not name the key).
    pub fn partition_values(&self) -> &[ArrayRef] {
        &self.partition
    }

    /// The file opened for reading, reusing the footer read when the dataset was opened.
    pub fn open(&self) -> Result<ParquetFile<DatasetSource>> {
        let at = |e: Error| e.context(format_args!("{}", self.path.display()));
        #[cfg(feature = "object-store")]
        if let Some(remote) = &self.remote {
            // A clone shares what the footer's read kept (the page indexes, if short).
            let source = DatasetSource::Object(remote.clone());
            return ParquetFile::with_source(source, self.metadata.clone()).map_err(at);
        }
        let file =
            std::fs::File::open(&self.path).map_err(|e| Error::io(format!("opening {}", self.path.display()), e))?;
        let source = crate::page::FileSource::new(file).map_err(at)?;
        if crate::page::ChunkSource::len(&source) != self.size {
            return Err(Error::invalid_argument(format!(
                "{}: the file changed size since the dataset was opened ({} bytes, now {})",
                self.path.display(),
                self.size,
                crate::page::ChunkSource::len(&source)
            )));
        }
        ParquetFile::with_source(DatasetSource::File(source), self.metadata.clone()).map_err(at)
    }
}

/// The files `sources` (files, folders walked recursively, globs) stand for, in read order:
/// what a dataset over them reads, without opening any.
pub fn list_files<S: AsRef<str>>(sources: &[S]) -> Result<Vec<PathBuf>> {
    let sources: Vec<String> = sources.iter().map(|s| s.as_ref().to_owned()).collect();
    let ignore: Vec<String> = DEFAULT_IGNORE_PREFIXES.iter().map(|p| p.to_string()).collect();
    Ok(listing::list(&sources, &Storage::default(), &ignore)?.into_iter().map(|l| l.path).collect())
}

/// Whether `source` names a dataset rather than one file: a folder, or a glob pattern that
/// is not the name of an existing file.
pub fn is_dataset_source(source: &str) -> bool {
    let path = Path::new(source);
    path.is_dir() || (!path.exists() && source.contains(['*', '?', '[']))
}

/// Many Parquet files read as one table (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct Dataset {
    files: Arc<[DatasetFile]>,
    schema: SchemaRef,
    partition_fields: Vec<FieldRef>,
    storage: Storage,
}

impl Dataset {
    /// Opens the dataset at `sources` (files, folders, globs) with hive partitioning and the
    /// files' schemas unified; see [`DatasetBuilder`] for the choices.
    pub fn open<S: Into<String>>(sources: impl IntoIterator<Item = S>) -> Result<Dataset> {
        DatasetBuilder::new(sources).build()
    }

    /// The files, in path order (the order their rows are read in).
    pub fn files(&self) -> &[DatasetFile] {
        &self.files
    }

    /// The dataset's schema: the files' columns, then the partition columns.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// The partition columns (the last fields of [`schema`](Self::schema)).
    pub fn partition_fields(&self) -> &[FieldRef] {
        &self.partition_fields
    }

    /// Requests made to the object store and bytes they brought, for every file of the
    /// dataset (footers and reads; listing requests are not counted).
    #[cfg(feature = "object-store")]
    pub fn request_stats(&self) -> Arc<crate::store::RequestStats> {
        Arc::clone(&self.storage.stats)
    }

    /// Total rows, from the footers.
    pub fn num_rows(&self) -> u64 {
        self.files.iter().map(|f| f.metadata.num_rows.max(0) as u64).sum()
    }

    /// The files that can hold rows matching `predicate`, judged by their partition values
    /// alone (the files are not opened): what a scheduler hands out as tasks.
    pub fn prune(&self, predicate: &Predicate) -> Result<Vec<usize>> {
        let plan = scan::Plan::new(self, &ReadOptions::default().with_filter(predicate.clone()))?;
        let mut keep = Vec::new();
        for (i, file) in self.files.iter().enumerate() {
            if plan.partition_matches(file)? {
                keep.push(i);
            }
        }
        Ok(keep)
    }

    /// A dataset of only the files at `indexes` (in that order), with the same schema.
    pub fn select_files(&self, indexes: &[usize]) -> Result<Dataset> {
        let files = indexes
            .iter()
            .map(|&i| {
                self.files.get(i).cloned().ok_or_else(|| {
                    Error::invalid_argument(format!("file {i} of a dataset of {} files", self.files.len()))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Dataset {
            files: files.into(),
            schema: self.schema(),
            partition_fields: self.partition_fields.clone(),
            storage: self.storage.clone(),
        })
    }

    /// Record batches of every file in order, as `options` selects them: `columns` by name
    /// among the dataset's (partition columns too), `filter`, `batch_size`, `threads` (per
    /// file), `byte_array_type`, `verify_crc`. Row groups and row selections are per file and
    /// refused here.
    pub fn reader(&self, options: ReadOptions) -> Result<DatasetReader> {
        DatasetReader::new(self.clone(), options)
    }

    /// Every batch `options` selects, reading up to `options.threads` files at once (each on
    /// one thread), in file order.
    pub fn read_all(&self, options: ReadOptions) -> Result<Vec<RecordBatch>> {
        scan::read_all(self, options)
    }
}

/// The choices of [`Dataset::open`]: partitioning, partition types, a schema to read every
/// file as, threads for reading footers.
#[derive(Debug, Clone)]
pub struct DatasetBuilder {
    sources: Vec<String>,
    partitioning: Partitioning,
    partition_fields: Option<Vec<FieldRef>>,
    schema: Option<SchemaRef>,
    threads: usize,
    storage: Storage,
    ignore_prefixes: Vec<String>,
}

impl DatasetBuilder {
    /// A dataset of `sources`: files, folders (walked recursively, skipping names that start
    /// with `_` or `.`) and glob patterns (`*`, `?`, `[ab]`, `**`).
    pub fn new<S: Into<String>>(sources: impl IntoIterator<Item = S>) -> Self {
        DatasetBuilder {
            sources: sources.into_iter().map(Into::into).collect(),
            partitioning: Partitioning::Hive,
            partition_fields: None,
            schema: None,
            threads: 1,
            storage: Storage::default(),
            ignore_prefixes: DEFAULT_IGNORE_PREFIXES.iter().map(|p| p.to_string()).collect(),
        }
    }

    /// Skips files and folders below a folder given whose names start with one of
    /// `prefixes`, instead of `_` and `.` (pyarrow's `ignore_prefixes`). Files given by name
    /// are never skipped.
    pub fn with_ignore_prefixes<S: Into<String>>(mut self, prefixes: impl IntoIterator<Item = S>) -> Self {
        self.ignore_prefixes = prefixes.into_iter().map(Into::into).collect();
        self
    }

    /// How to reach the object store of URL sources (`s3://bucket/dir/`, globs on URLs):
    /// endpoint, region, keys..., over the environment's settings.
    #[cfg(feature = "object-store")]
    pub fn with_storage_options(mut self, options: crate::store::StorageOptions) -> Self {
        self.storage.options = options;
        self
    }

    /// How folders name partitions (default: hive).
    pub fn with_partitioning(mut self, partitioning: Partitioning) -> Self {
        self.partitioning = partitioning;
        self
    }

    /// The types of partition keys (by name); keys not named are inferred.
    pub fn with_partition_fields(mut self, fields: impl IntoIterator<Item = FieldRef>) -> Self {
        self.partition_fields = Some(fields.into_iter().collect());
        self
    }

    /// Reads every file as this schema: its columns in its order, a file's column cast to
    /// the schema's type, a column a file lacks as nulls, file columns not in it left out.
    /// Partition keys it names take its types (and come last, after the file columns).
    /// Without it the files' schemas are unified: every column of every file, in the order
    /// first seen, with the type of the first file that has it; reading a column from a file
    /// that holds it with another type is an error naming both files (as pyarrow takes the
    /// first file's schema, a read that prunes such a file, or leaves the column out, works).
    pub fn with_schema(mut self, schema: SchemaRef) -> Self {
        self.schema = Some(schema);
        self
    }

    /// Reads up to `threads` footers at once when opening.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Lists the files, reads their footers, and settles the schema.
    pub fn build(self) -> Result<Dataset> {
        if self.sources.is_empty() {
            return Err(Error::invalid_argument("a dataset needs at least one file, folder or glob"));
        }
        let listed = listing::list(&self.sources, &self.storage, &self.ignore_prefixes)?;
        let footers = schema::read_footers(&listed, self.threads, &self.storage)?;
        // Directory partitioning names its keys up front: each is a column, found or not.
        let mut keys: Vec<String> = match &self.partitioning {
            Partitioning::Directory(names) => names.clone(),
            _ => Vec::new(),
        };
        let mut segments = Vec::with_capacity(listed.len());
        for file in &listed {
            let found = match &self.partitioning {
                Partitioning::Hive => hive::segments(file)?,
                Partitioning::None => Vec::new(),
                Partitioning::Directory(keys) => hive::directory_segments(file, keys)?,
            };
            for (k, _) in &found {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
            segments.push(found);
        }
        let rows: Vec<Vec<Option<String>>> = segments
            .iter()
            .map(|s| keys.iter().map(|k| s.iter().find(|(key, _)| key == k).and_then(|(_, v)| v.clone())).collect())
            .collect();
        let given: Option<Vec<FieldRef>> = match (&self.partition_fields, &self.schema) {
            (Some(p), _) => Some(p.clone()),
            (None, Some(s)) => Some(s.fields().iter().cloned().collect()),
            (None, None) => None,
        };
        let partition_fields = hive::fields(&keys, &rows, given.as_deref());
        let (file_fields, mut conflicts) = schema::file_fields(&listed, &footers, &keys, self.schema.as_deref())?;
        let mut fields = file_fields;
        fields.extend(partition_fields.iter().cloned());
        let schema = match &self.schema {
            // The given schema's order for the file columns; partition columns always come
            // last (the reader finds them by position).
            Some(given) => Arc::new(Schema::new_with_metadata(fields, given.metadata().clone())),
            None => Arc::new(Schema::new_with_metadata(
                fields,
                footers.first().map(|(_, s, _)| s.metadata().clone()).unwrap_or_default(),
            )),
        };
        let mut files = Vec::with_capacity(listed.len());
        for (i, ((listed, (metadata, file_schema, remote)), row)) in
            listed.into_iter().zip(footers).zip(rows).enumerate()
        {
            let partition = hive::values(&listed.path, &partition_fields, &row)?;
            let conflicts = std::mem::take(&mut conflicts[i]);
            files.push(DatasetFile {
                path: listed.path,
                size: listed.size,
                metadata,
                schema: file_schema,
                partition,
                conflicts,
                remote,
            });
        }
        Ok(Dataset { files: files.into(), schema, partition_fields, storage: self.storage })
    }
}
