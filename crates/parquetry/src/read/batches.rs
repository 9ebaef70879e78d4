//! Record batches of a file: the iterator that walks the selected row groups, opens a
//! column reader per selected column, and asks each for a batch of rows at a time (skipping
//! rows outside a row selection).
//!
//! With threads, a batch's columns are decoded at once; when every batch is a whole row
//! group, several row groups are decoded at once too, so that few columns of unequal cost
//! still keep every thread busy. The output is the same for any number of threads.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};

use super::assemble::{assemble, LeafBatch};
use super::column::{ColumnPlan, ColumnReader};
use super::nested::{plan_fields, FieldPlan, Node};
use super::file::ParquetFile;
use super::options::ReadOptions;
use super::selection::{self, Step};
use crate::error::{Error, Result};
use crate::page::ChunkSource;

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
    /// The leaf columns read, one reader each per row group.
    plans: Vec<ColumnPlan>,
    /// How each output field is assembled from the leaves.
    fields: Vec<FieldPlan>,
    row_groups: Vec<usize>,
    /// The file row number of each row group's first row.
    starts: Vec<u64>,
    next_row_group: usize,
    readers: Vec<ColumnReader>,
    /// What is left to do in the open row group: reads, and skips between them.
    steps: VecDeque<Step>,
    /// The threads that decode the columns of a batch at once (`threads` > 1 only).
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Whether every batch is a whole row group (the batch size is at least the largest
    /// row group's row count): then threads decode several row groups at once.
    whole_row_groups: bool,
    /// Batches decoded ahead, in order (several row groups decoded at once).
    ready: VecDeque<RecordBatch>,
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
        if let Some(b) = self.ready.pop_front() {
            return Ok(Some(b));
        }
        if self.steps.is_empty() && self.whole_row_groups && self.pool.is_some() {
            self.read_row_groups_at_once()?;
            return Ok(self.ready.pop_front());
        }
        if self.steps.is_empty() && !self.open_row_group()? {
            return Ok(None);
        }
        // Up to a batch of rows, from as many selected ranges as it takes (within the row
        // group), passing over the rows between them. With threads, small batches are decoded
        // several at once and handed out as slices (see `ahead`).
        let batch_size = self.options.batch_size;
        let ahead = self.ahead();
        let mut plan = Vec::new();
        let mut rows = 0;
        while rows < ahead {
            let Some(step) = self.steps.pop_front() else { break };
            if let Step::Read(n) = step {
                let k = n.min(ahead - rows);
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
        let columns: Vec<LeafBatch> = match &self.pool {
            // Small batches stay on this thread: handing a few microseconds of work per column
            // to the pool and back cost more than it saved (1,024-row batches ran at 0.56–0.89x
            // of one thread's speed on two threads).
            Some(pool) if self.readers.len() > 1 && rows >= MIN_PARALLEL_ROWS => {
                use rayon::prelude::*;
                pool.install(|| {
                    self.readers.par_iter_mut().map(|r| run_plan(r, source, &plan)).collect::<Result<_>>()
                })?
            }
            _ => self.readers.iter_mut().map(|r| run_plan(r, source, &plan)).collect::<Result<_>>()?,
        };
        let row_group = self.row_groups[self.next_row_group - 1];
        let batch = self.assemble(columns, rows, row_group)?;
        if rows <= batch_size {
            return Ok(Some(batch));
        }
        // Cut where one thread's batches end: every batch_size rows of the row group's reads.
        self.ready.extend((0..rows).step_by(batch_size).map(|at| batch.slice(at, batch_size.min(rows - at))));
        Ok(self.ready.pop_front())
    }

    /// How many rows the next decode covers: a batch, or with threads and batches too small
    /// to share out, as many whole batches as make [`DECODE_AHEAD_ROWS`]. Their columns are
    /// then decoded at once, and the batches handed out as slices of the result: the same
    /// rows in the same batches as one thread gives, two threads at work instead of one.
    fn ahead(&self) -> usize {
        let batch_size = self.options.batch_size;
        if self.pool.is_none() || self.readers.len() < 2 || batch_size >= MIN_PARALLEL_ROWS {
            return batch_size;
        }
        DECODE_AHEAD_ROWS.div_ceil(batch_size) * batch_size
    }

    /// Decodes as many whole row groups as there are threads, every column of each at once,
    /// into [`ready`](Self::ready): with few columns, one row group's columns alone leave
    /// threads idle while the slowest column finishes.
    fn read_row_groups_at_once(&mut self) -> Result<()> {
        let threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
        let mut groups: Vec<(Vec<ColumnReader>, Vec<Step>)> = Vec::new();
        let mut indexes = Vec::new();
        while groups.len() < threads.max(2) && self.open_row_group()? {
            groups.push((std::mem::take(&mut self.readers), self.steps.drain(..).collect()));
            indexes.push(self.row_groups[self.next_row_group - 1]);
        }
        let source = &self.file.source;
        let mut units: Vec<(&mut ColumnReader, &[Step])> = Vec::new();
        for (readers, plan) in &mut groups {
            units.extend(readers.iter_mut().map(|r| (r, plan.as_slice())));
        }
        let columns: Vec<LeafBatch> = match &self.pool {
            Some(pool) => {
                use rayon::prelude::*;
                pool.install(|| units.into_par_iter().map(|(r, plan)| run_plan(r, source, plan)).collect::<Result<_>>())?
            }
            None => units.into_iter().map(|(r, plan)| run_plan(r, source, plan)).collect::<Result<_>>()?,
        };
        let mut columns = columns.into_iter();
        for ((readers, plan), row_group) in groups.iter().zip(indexes) {
            let group: Vec<LeafBatch> = columns.by_ref().take(readers.len()).collect();
            let rows = plan.iter().map(|s| if let Step::Read(n) = s { *n } else { 0 }).sum();
            let batch = self.assemble(group, rows, row_group)?;
            self.ready.push_back(batch);
        }
        Ok(())
    }

    fn assemble(&self, leaves: Vec<LeafBatch>, rows: usize, row_group: usize) -> Result<RecordBatch> {
        let columns = self
            .fields
            .iter()
            .map(|f| match f.node {
                Node::Leaf { reader } => Ok(Arc::clone(&leaves[reader].array)),
                _ => assemble(&f.node, &leaves)
                    .map_err(|e| e.context(format_args!("row group {row_group}, column '{}'", f.field.name()))),
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(Arc::clone(&self.schema), columns, &options)
            .map_err(|e| Error::corrupt(format!("row group {row_group}: assembling a record batch: {e}")))
    }
}

/// The fewest rows in a batch whose columns are decoded on the pool rather than in turn on
/// the caller's thread.
const MIN_PARALLEL_ROWS: usize = 32 * 1024;

/// The rows decoded at once when batches are smaller than [`MIN_PARALLEL_ROWS`] and there are
/// threads (rounded up to whole batches).
const DECODE_AHEAD_ROWS: usize = 64 * 1024;

/// Walks a batch's plan through one column: skips, reads, then the array of the rows read
/// (and their levels).
fn run_plan<S: ChunkSource>(reader: &mut ColumnReader, source: &S, plan: &[Step]) -> Result<LeafBatch> {
    for step in plan {
        match *step {
            Step::Skip(n) => reader.skip(source, n)?,
            Step::Read(n) => reader.append(source, n)?,
        }
    }
    let levels = reader.take_levels();
    Ok(LeafBatch { array: reader.finish()?, levels })
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
                self.ready.clear();
                self.next_row_group = self.row_groups.len();
                Some(Err(e))
            }
        }
    }
}

impl<'f, S: ChunkSource> RecordBatchIter<'f, S> {
    pub(super) fn new(file: FileRef<'f, S>, mut options: ReadOptions) -> Result<Self> {
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
        let (fields, leaf_selected) = file.select_fields(options.columns.as_deref())?;
        let mut plans = Vec::new();
        let selected = |leaf: usize| leaf_selected.as_ref().is_none_or(|s| s[leaf]);
        let fields = plan_fields(&file.schema, &file.arrow_schema, &fields, &selected, &options, &mut plans)?;
        let schema = Arc::new(Schema::new_with_metadata(
            fields.iter().map(|p| p.field.clone()).collect::<Vec<Field>>(),
            file.arrow_schema.metadata().clone(),
        ));
        if let Some(ranges) = &options.row_selection {
            let rows = file.metadata.row_groups.iter().map(|rg| rg.num_rows.max(0) as u64).sum();
            selection::check(ranges, rows)?;
        }
        let pool = match options.threads {
            0 | 1 => None,
            n => Some(crate::threads::pool(n)?),
        };
        let largest = row_groups.iter().map(|&i| file.metadata.row_groups[i].num_rows.max(0) as usize).max();
        let whole_row_groups = options.batch_size >= largest.unwrap_or(0);
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
            fields,
            row_groups,
            starts,
            next_row_group: 0,
            readers: Vec::new(),
            steps: VecDeque::new(),
            pool,
            whole_row_groups,
            ready: VecDeque::new(),
        })
    }
}
