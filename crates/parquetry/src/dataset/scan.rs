//! Reading a dataset: per file, the filter split three ways (on partition values: the file
//! is skipped unopened when they rule it out; on the file's own columns: pushed down to the
//! file's read, which prunes row groups and pages; the rest: evaluated on the assembled
//! batches), then each file's batches given the dataset's columns (cast, nulls for columns
//! the file lacks, partition values repeated).

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions, RecordBatchReader, UInt32Array};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Schema, SchemaRef};

use super::{Dataset, DatasetFile, DatasetSource};
use crate::error::{Error, Result};
use crate::filter::{BatchFilter, Predicate};
use crate::read::{ByteArrayType, ColumnSelector, ParquetReaderBuilder, ParquetRecordBatchReader, ReadOptions};

/// What a read of a dataset does, settled once for all its files.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The batches' schema.
    output: SchemaRef,
    /// Dataset fields assembled for each batch: the output's, then those only the filter
    /// reads; with their output types.
    needed: Vec<(usize, FieldRef)>,
    /// Conjuncts of the filter on partition columns alone, bound to them.
    on_partitions: Option<BatchFilter>,
    /// The other conjuncts; a file reads those on its own columns itself.
    rest: Vec<Predicate>,
    /// Options each file is read with (columns and filter set per file).
    base: ReadOptions,
    partition_start: usize,
}

impl Plan {
    pub(crate) fn new(dataset: &Dataset, options: &ReadOptions) -> Result<Plan> {
        if options.row_groups.is_some() || options.row_selection.is_some() {
            return Err(Error::invalid_argument(
                "row groups and row selections are per file: select them on one file of the dataset",
            ));
        }
        let schema = dataset.schema();
        let index = |name: &str| {
            schema.fields().iter().position(|f| f.name() == name).ok_or_else(|| {
                let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
                Error::invalid_argument(format!("no column '{name}' in the dataset (columns: {})", names.join(", ")))
            })
        };
        let selected: Vec<usize> = match &options.columns {
            None => (0..schema.fields().len()).collect(),
            Some(columns) => columns
                .iter()
                .map(|c| match c {
                    ColumnSelector::Name(name) => index(name.split('.').next().unwrap_or(name)),
                    ColumnSelector::Index(i) if *i < schema.fields().len() => Ok(*i),
                    ColumnSelector::Index(i) => Err(Error::invalid_argument(format!(
                        "column {i} of a dataset of {} columns",
                        schema.fields().len()
                    ))),
                })
                .collect::<Result<_>>()?,
        };
        let typed = |d: usize| -> FieldRef {
            let f = schema.field(d);
            match options.byte_array_type {
                Some(t) => Arc::new(Field::clone(f).with_data_type(byte_array_type(f.data_type(), t))),
                None => Arc::new(f.clone()),
            }
        };
        let output = Arc::new(Schema::new_with_metadata(
            selected.iter().map(|&d| typed(d)).collect::<Vec<_>>(),
            schema.metadata().clone(),
        ));
        let mut needed: Vec<(usize, FieldRef)> = selected.iter().map(|&d| (d, typed(d))).collect();
        let partition_start = schema.fields().len() - dataset.partition_fields.len();
        let (mut on_partitions, mut rest) = (Vec::new(), Vec::new());
        if let Some(filter) = &options.filter {
            for conjunct in conjuncts(filter) {
                let mut all_partition = true;
                for c in conjunct.columns() {
                    let d = index(c.split('.').next().unwrap_or(c))?;
                    all_partition &= d >= partition_start;
                    if !needed.iter().any(|(n, _)| *n == d) {
                        needed.push((d, typed(d)));
                    }
                }
                match all_partition {
                    true => on_partitions.push(conjunct.clone()),
                    false => rest.push(conjunct.clone()),
                }
            }
        }
        let partition_schema = Schema::new(dataset.partition_fields.clone());
        let on_partitions = match and_all(on_partitions) {
            Some(p) => Some(BatchFilter::new(&p, &partition_schema)?),
            None => None,
        };
        // Checks the rest binds to the dataset's columns now, not at the first file.
        let assembled = Schema::new(needed.iter().map(|(_, f)| Arc::clone(f)).collect::<Vec<_>>());
        if let Some(p) = and_all(rest.clone()) {
            BatchFilter::new(&p, &assembled)?;
        }
        let mut base = options.clone();
        base.columns = None;
        base.filter = None;
        Ok(Plan { output, needed, on_partitions, rest, base, partition_start })
    }

    /// Whether `file`'s partition values let any of its rows match.
    pub(crate) fn partition_matches(&self, file: &DatasetFile) -> Result<bool> {
        let Some(filter) = &self.on_partitions else { return Ok(true) };
        let fields: Vec<FieldRef> = (0..file.partition.len())
            .map(|i| Arc::new(Field::new(format!("{i}"), file.partition[i].data_type().clone(), true)))
            .collect();
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), file.partition.clone())
            .map_err(|e| Error::invalid_argument(format!("{}: partition values: {e}", file.path.display())))?;
        Ok(filter.evaluate(&batch)?.true_count() == 1)
    }

    /// How to read `file`: its reader (or, when none of its columns are needed, its row
    /// counts), and the filter left for the assembled batches.
    fn open(&self, file: &DatasetFile) -> Result<FileScan> {
        let schema = file.schema();
        let in_file = |d: usize| -> Option<usize> {
            (d < self.partition_start)
                .then(|| schema.index_of(self.needed.iter().find(|(n, _)| *n == d)?.1.name()).ok())?
        };
        let columns: Vec<usize> = self.needed.iter().filter_map(|(d, _)| in_file(*d)).collect();
        if let Some((_, message)) =
            file.conflicts.iter().find(|(name, _)| columns.iter().any(|&c| schema.field(c).name() == name))
        {
            return Err(Error::invalid_argument(message.clone()));
        }
        // A conjunct goes to the file when each of its columns is there with the dataset's
        // type: the file's statistics and pages then answer for it.
        let (mut pushed, mut post) = (Vec::new(), Vec::new());
        for conjunct in &self.rest {
            let local = conjunct.columns().iter().all(|c| {
                let top = c.split('.').next().unwrap_or(c);
                match (schema.field_with_name(top), self.needed.iter().find(|(_, f)| f.name() == top)) {
                    (Ok(f), Some((d, out))) => *d < self.partition_start && f.data_type() == out.data_type(),
                    _ => false,
                }
            });
            match local {
                true => pushed.push(conjunct.clone()),
                false => post.push(conjunct.clone()),
            }
        }
        let assembled = Arc::new(Schema::new(self.needed.iter().map(|(_, f)| Arc::clone(f)).collect::<Vec<_>>()));
        let post = match and_all(post) {
            Some(p) => Some(BatchFilter::new(&p, &assembled)?),
            None => None,
        };
        let at = |e: Error| e.context(format_args!("{}", file.path.display()));
        let body = if columns.is_empty() && pushed.is_empty() {
            let mut counts = VecDeque::new();
            for rg in &file.metadata.row_groups {
                let mut left = rg.num_rows.max(0) as usize;
                while left > 0 {
                    let n = left.min(self.base.batch_size.max(1));
                    counts.push_back(n);
                    left -= n;
                }
            }
            Body::Counts(counts)
        } else {
            let mut options = self.base.clone().with_columns(columns.iter().copied());
            options.filter = and_all(pushed);
            let reader = ParquetReaderBuilder::new(file.open()?).with_options(options).build().map_err(at)?;
            Body::Reader(Box::new(reader))
        };
        let names: Vec<String> = columns.iter().map(|&c| schema.field(c).name().clone()).collect();
        Ok(FileScan { body, names, post, assembled })
    }

    /// `batch` (the file's columns, named `names`) as the output's columns, with the
    /// partition values of `file`, filtered by `post`.
    fn assemble(&self, file: &DatasetFile, scan: &FileScan, batch: RecordBatch) -> Result<RecordBatch> {
        let rows = batch.num_rows();
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(self.needed.len());
        for (d, field) in &self.needed {
            let array = if *d >= self.partition_start {
                let one = &file.partition[*d - self.partition_start];
                let zeros = UInt32Array::from(vec![0u32; rows]);
                arrow_select::take::take(one.as_ref(), &zeros, None)
                    .map_err(|e| Error::invalid_argument(format!("repeating a partition value: {e}")))?
            } else {
                match scan.names.iter().position(|n| n == field.name()) {
                    Some(i) => batch.column(i).clone(),
                    None => new_null_array(field.data_type(), rows),
                }
            };
            let array = match array.data_type() == field.data_type() {
                true => array,
                false => arrow_cast::cast(&array, field.data_type()).map_err(|e| {
                    Error::invalid_argument(format!(
                        "{}: column '{}' of type {} cannot be read as {}: {e}",
                        file.path.display(),
                        field.name(),
                        array.data_type(),
                        field.data_type()
                    ))
                })?,
            };
            columns.push(array);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        let assembled = RecordBatch::try_new_with_options(Arc::clone(&scan.assembled), columns, &options)
            .map_err(|e| Error::invalid_argument(format!("{}: assembling a batch: {e}", file.path.display())))?;
        let filtered = match &scan.post {
            Some(filter) => filter.apply(&assembled)?,
            None => assembled,
        };
        let k = self.output.fields().len();
        let columns = filtered.columns()[..k].to_vec();
        let options = RecordBatchOptions::new().with_row_count(Some(filtered.num_rows()));
        RecordBatch::try_new_with_options(Arc::clone(&self.output), columns, &options)
            .map_err(|e| Error::invalid_argument(format!("{}: assembling a batch: {e}", file.path.display())))
    }
}

/// One file being read.
struct FileScan {
    body: Body,
    names: Vec<String>,
    post: Option<BatchFilter>,
    assembled: SchemaRef,
}

enum Body {
    Reader(Box<ParquetRecordBatchReader<DatasetSource>>),
    /// Rows per batch, for a file none of whose columns are read.
    Counts(VecDeque<usize>),
}

impl FileScan {
    /// Has the file's first row groups fetched now (see
    /// [`ParquetRecordBatchReader::name_ahead`]).
    fn name_ahead(&self) {
        if let Body::Reader(r) = &self.body {
            r.name_ahead();
        }
    }

    /// Whether the file's read found a row group dense in pages (see
    /// [`ParquetRecordBatchReader::assume_dense`]).
    fn found_dense(&self) -> bool {
        matches!(&self.body, Body::Reader(r) if r.found_dense())
    }

    /// Has the file's read take its row groups to be dense in pages, and fetch them so.
    fn assume_dense(&self) {
        if let Body::Reader(r) = &self.body {
            r.assume_dense();
        }
    }

    fn next_raw(&mut self) -> Option<Result<RecordBatch>> {
        match &mut self.body {
            Body::Reader(r) => r.next_batch(),
            Body::Counts(c) => c.pop_front().map(|n| {
                let options = RecordBatchOptions::new().with_row_count(Some(n));
                RecordBatch::try_new_with_options(Arc::new(Schema::empty()), vec![], &options)
                    .map_err(|e| Error::invalid_argument(e.to_string()))
            }),
        }
    }
}

/// The sizes of the files opened ahead of the current one (see
/// [`DatasetReader::upcoming`]), at least one: each names its first row groups (all of them,
/// when found dense) to its object store at once, so what they hold is about what is
/// fetched ahead.
const UPCOMING_BYTES: u64 = 64 << 20;

/// The most files opened ahead of the current one: a folder of many small files would
/// otherwise have hundreds open (their readers and requests) within [`UPCOMING_BYTES`].
const UPCOMING_FILES: usize = 8;

/// The dataset's batches, file after file: an Arrow [`RecordBatchReader`].
pub struct DatasetReader {
    dataset: Dataset,
    plan: Plan,
    next_file: usize,
    current: Option<(usize, FileScan)>,
    /// The files after the current one, opened when the current one is an object (up to
    /// [`UPCOMING_BYTES`] and [`UPCOMING_FILES`] of them): their first row groups are
    /// fetched while the current one is read, not after a round trip once it ends. An error
    /// is given when its turn comes. Each with whether it was told a file before was dense
    /// in pages (see [`FileScan::assume_dense`]): its row groups then come whole at once.
    upcoming: VecDeque<Result<(usize, FileScan, bool)>>,
    /// Whether the files opened are told that those before were dense in pages: the last
    /// file read found so in its first batch.
    dense: bool,
    /// Whether the current file's first batch was read (and `dense` set from it).
    checked: bool,
}

impl DatasetReader {
    pub(crate) fn new(dataset: Dataset, options: ReadOptions) -> Result<DatasetReader> {
        let plan = Plan::new(&dataset, &options)?;
        let upcoming = VecDeque::new();
        Ok(DatasetReader { dataset, plan, next_file: 0, current: None, upcoming, dense: false, checked: false })
    }

    /// Opens the next file whose partition values let a row match; `None` after the last.
    fn open_next(&mut self) -> Result<Option<(usize, FileScan)>> {
        while let Some(file) = self.dataset.files.get(self.next_file) {
            let f = self.next_file;
            self.next_file += 1;
            if self.plan.partition_matches(file)? {
                return Ok(Some((f, self.plan.open(file)?)));
            }
        }
        Ok(None)
    }

    /// Opens files after the current one up to [`UPCOMING_BYTES`] and [`UPCOMING_FILES`]
    /// (at least one), each naming its first row groups to its object store (see
    /// [`FileScan::name_ahead`]), or all of them when a file before was dense in pages.
    fn open_upcoming(&mut self) {
        let size = |files: &[DatasetFile], u: &Result<(usize, FileScan, bool)>| {
            u.as_ref().map_or(0, |(f, _, _)| files[*f].size)
        };
        let mut bytes: u64 = self.upcoming.iter().map(|u| size(&self.dataset.files, u)).sum();
        while self.upcoming.is_empty() || (bytes < UPCOMING_BYTES && self.upcoming.len() < UPCOMING_FILES) {
            if self.upcoming.back().is_some_and(|u| u.is_err()) {
                return;
            }
            let next = match self.open_next() {
                Ok(Some((f, scan))) => {
                    match self.dense {
                        true => scan.assume_dense(),
                        false => scan.name_ahead(),
                    }
                    Ok((f, scan, self.dense))
                }
                Ok(None) => return,
                Err(e) => Err(e),
            };
            bytes += size(&self.dataset.files, &next);
            self.upcoming.push_back(next);
        }
    }

    /// The next batch with parquetry's own error type (the `Iterator` gives `ArrowError`s).
    pub fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if let Some((f, scan)) = &mut self.current {
                let file = &self.dataset.files[*f];
                let batch = scan.next_raw();
                if !self.checked {
                    // Its first row group is read: whether it was dense tells the files
                    // opened ahead how to fetch theirs.
                    self.checked = true;
                    self.dense = scan.found_dense();
                    for (_, next, told) in self.upcoming.iter_mut().flatten() {
                        if self.dense && !*told {
                            next.assume_dense();
                            *told = true;
                        }
                    }
                }
                match batch {
                    Some(Ok(batch)) => match self.plan.assemble(file, scan, batch) {
                        Ok(b) if b.num_rows() == 0 => continue,
                        other => return Some(other),
                    },
                    Some(Err(e)) => {
                        self.current = None;
                        self.next_file = self.dataset.files.len();
                        return Some(Err(e.context(format_args!("{}", file.path.display()))));
                    }
                    None => self.current = None,
                }
            }
            let next = match self.upcoming.pop_front() {
                Some(next) => next.map(|(f, scan, _)| Some((f, scan))),
                None => self.open_next(),
            };
            match next {
                Ok(Some((f, scan))) => {
                    self.current = Some((f, scan));
                    self.checked = false;
                    if self.dataset.files[f].remote.is_some() {
                        self.open_upcoming();
                    }
                }
                Ok(None) => return None,
                Err(e) => {
                    self.upcoming.clear();
                    self.next_file = self.dataset.files.len();
                    return Some(Err(e));
                }
            }
        }
    }
}

impl Iterator for DatasetReader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map(|r| r.map_err(ArrowError::from))
    }
}

impl RecordBatchReader for DatasetReader {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.plan.output)
    }
}

/// Every batch of `dataset`, files read on `options.threads` threads (one file a thread),
/// in file order.
pub(crate) fn read_all(dataset: &Dataset, options: ReadOptions) -> Result<Vec<RecordBatch>> {
    let threads = options.threads.max(1);
    if threads == 1 || dataset.files.len() < 2 {
        return DatasetReader::new(dataset.clone(), options)?.collect_batches();
    }
    let plan = Plan::new(dataset, &options.clone().with_threads(1))?;
    let one = |file: &DatasetFile| -> Result<Vec<RecordBatch>> {
        if !plan.partition_matches(file)? {
            return Ok(Vec::new());
        }
        let mut scan = plan.open(file)?;
        let mut out = Vec::new();
        while let Some(batch) = scan.next_raw() {
            let batch = batch.map_err(|e| e.context(format_args!("{}", file.path.display())))?;
            let batch = plan.assemble(file, &scan, batch)?;
            if batch.num_rows() > 0 {
                out.push(batch);
            }
        }
        Ok(out)
    };
    let pool = crate::threads::pool(threads)?;
    let per_file: Vec<Vec<RecordBatch>> = pool.install(|| {
        use rayon::prelude::*;
        dataset.files.par_iter().map(one).collect::<Result<Vec<_>>>()
    })?;
    Ok(per_file.into_iter().flatten().collect())
}

impl DatasetReader {
    fn collect_batches(mut self) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        while let Some(b) = self.next_batch() {
            out.push(b?);
        }
        Ok(out)
    }
}

/// The top-level `and`s of a predicate, flattened.
fn conjuncts(p: &Predicate) -> Vec<&Predicate> {
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(p) = stack.pop() {
        match p {
            Predicate::And(a, b) => stack.extend([&**b, &**a]),
            other => out.push(other),
        }
    }
    out
}

fn and_all(mut ps: Vec<Predicate>) -> Option<Predicate> {
    let first = if ps.is_empty() { return None } else { ps.remove(0) };
    Some(ps.into_iter().fold(first, |acc, p| acc.and(p)))
}

/// `t` with its strings and binaries as `choice` makes them.
fn byte_array_type(t: &DataType, choice: ByteArrayType) -> DataType {
    use DataType::*;
    let string = matches!(t, Utf8 | LargeUtf8 | Utf8View)
        || matches!(t, Dictionary(_, v) if matches!(**v, Utf8 | LargeUtf8 | Utf8View));
    let binary = matches!(t, Binary | LargeBinary | BinaryView)
        || matches!(t, Dictionary(_, v) if matches!(**v, Binary | LargeBinary | BinaryView));
    if !string && !binary {
        return t.clone();
    }
    match (choice, string) {
        (ByteArrayType::Regular, true) => Utf8,
        (ByteArrayType::Regular, false) => Binary,
        (ByteArrayType::Large, true) => LargeUtf8,
        (ByteArrayType::Large, false) => LargeBinary,
        (ByteArrayType::View, true) => Utf8View,
        (ByteArrayType::View, false) => BinaryView,
        (ByteArrayType::Dictionary, true) => Dictionary(Box::new(Int32), Box::new(Utf8)),
        (ByteArrayType::Dictionary, false) => Dictionary(Box::new(Int32), Box::new(Binary)),
    }
}
