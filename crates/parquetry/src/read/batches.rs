//! Record batches of a file: the data flow of a read. The selected row groups are opened in
//! turn (their rows narrowed by the row selection and the filter into steps: reads, and
//! skips between them), each selected leaf column gets a reader, a plan of steps walks
//! through every reader, and the leaves are assembled into a batch, which the filter
//! narrows.
//!
//! How that work is spread over threads is a [`Schedule`] chosen once when the read starts
//! (see `schedule.rs` and `lanes.rs`): the data flow here knows nothing of threads, and the
//! output is the same for any number of them.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef};

use super::assemble::{assemble, LeafBatch};
use super::column::{ColumnPlan, ColumnReader};
use super::file::ParquetFile;
use super::leaf::{LeafReader, Replay};
use super::nested::{plan_fields, FieldPlan, Node};
use super::options::ReadOptions;
use super::selection::{self, Step};
use crate::error::{Error, Result};
use crate::page::ChunkSource;

mod lanes;
mod prefetch;
mod schedule;

use schedule::Schedule;

/// Record batches of a file, row group after row group: the data flow ([`Flow`]) driven by
/// a [`Schedule`].
pub(crate) struct RecordBatchIter<S: ChunkSource> {
    flow: Flow<S>,
    schedule: Schedule,
}

/// The data flow of a read, apart from its scheduling: the file, what is read of it, and
/// the row group to open next. It opens row groups and their column readers and assembles
/// leaves into batches; which decodes run where is the [`Schedule`]'s business.
struct Flow<S: ChunkSource> {
    file: ParquetFile<S>,
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
    /// A filter's state: batches are filtered by it and lose the columns it added.
    filter: Option<Box<crate::filter::Filtering>>,
    /// How many batches the caller asked for so far (see [`prefetch`](Self::prefetch)).
    asked: usize,
    /// The row groups (a position in `row_groups`) up to which chunks were named ahead
    /// (see [`ahead_window`](Self::ahead_window)).
    ahead: std::cell::Cell<usize>,
    /// Whether late materialization's last row group needed every page of the other
    /// columns, or a dataset's file before this one had one that did (see
    /// [`dense_pages`](Self::dense_pages)): the next row groups' other columns are then
    /// named with their first pass, a round trip sooner.
    dense: std::cell::Cell<bool>,
}

/// A row group just opened: what is left to read of it, and a reader per leaf column.
struct RowGroup {
    /// The row group's index in the file.
    index: usize,
    /// One per leaf column read, in the order of the read's column plans.
    readers: Vec<LeafReader>,
    /// The reads, and the skips between them.
    steps: VecDeque<Step>,
    /// Which columns are read from their chunks (rather than replayed from a filter's first
    /// pass): only those can have more readers (see [`Flow::open_readers`]).
    chunked: Vec<bool>,
    /// Whether the reads pass over rows (see [`ColumnReader::open`]).
    skips: bool,
}

impl<S: ChunkSource> RecordBatchIter<S> {
    /// The schema of the batches.
    pub(crate) fn schema(&self) -> SchemaRef {
        match &self.flow.filter {
            Some(f) => f.schema(),
            None => Arc::clone(&self.flow.schema),
        }
    }

    /// Names to the source what the read fetches first, before any batch is asked for (see
    /// `Flow::name_start`).
    pub(crate) fn name_ahead(&self) {
        self.flow.name_start();
    }

    /// Whether the read found a row group whose second pass needed every page of the other
    /// columns (see `Flow::dense_pages`).
    pub(crate) fn found_dense(&self) -> bool {
        self.flow.dense.get()
    }

    /// Takes the next row groups to be as dense in pages as a file read before found its own
    /// (a dataset's next file: same filter, same columns), and names ahead what the read
    /// then fetches first: the first row groups whole at their candidate rows, rather than
    /// their first passes alone, then the rest a round trip later. An object store only.
    pub(crate) fn assume_dense(&self) {
        if self.flow.filter.is_none() || self.flow.file.source.fetch_cost(&[]).is_none() {
            return;
        }
        self.flow.dense.set(true);
        // Named again from the open one: what is fetched already costs no request.
        self.flow.ahead.set(self.flow.next_row_group);
        self.flow.name_start();
    }

    /// What a filtered read pruned and read so far (`None` without a filter).
    pub(crate) fn scan_metrics(&self) -> Option<&crate::filter::ScanMetrics> {
        self.flow.filter.as_ref().map(|f| f.metrics())
    }
}

impl<S: ChunkSource> Flow<S> {
    /// Opens the next row group of which a row is read: narrows its rows by the row
    /// selection and the filter, names its bytes to the source, and opens a reader per
    /// column (or replays what the filter's first pass decoded). `None` after the last.
    fn open_row_group(&mut self) -> Result<Option<RowGroup>> {
        while self.next_row_group < self.row_groups.len() {
            let rg_index = self.row_groups[self.next_row_group];
            self.next_row_group += 1;
            let rg = &self.file.metadata.row_groups[rg_index];
            if rg.num_rows < 0 {
                return Err(Error::corrupt(format!("row group {rg_index}: negative row count {}", rg.num_rows)));
            }
            let rows = rg.num_rows as usize;
            let steps = match &self.options.row_selection {
                Some(ranges) => selection::steps(ranges, self.starts[rg_index], rows),
                None if rows > 0 => VecDeque::from([Step::Read(rows)]),
                None => VecDeque::new(),
            };
            if self.filter.is_some() {
                self.name_first_pass(self.next_row_group - 1);
                let read: usize = steps.iter().map(|s| if let Step::Read(n) = s { *n } else { 0 }).sum();
                let file = &self.file;
                if self.filter.as_mut().is_some_and(|f| f.rule_out_deferred(file, rg_index, read as u64)) {
                    continue;
                }
            }
            // What late materialization narrows, kept to compare its pages (an object store only).
            let remote = self.filter.is_some() && self.file.source.fetch_cost(&[]).is_some();
            let candidates = remote.then(|| steps.clone());
            let (steps, decoded) = match self.filter.as_mut() {
                Some(f) => f.narrow(&self.file, rg_index, self.starts[rg_index], steps)?,
                None => (steps, Vec::new()),
            };
            if let Some(candidates) = &candidates {
                self.dense_pages(rg_index, candidates, &steps);
            }
            if steps.is_empty() {
                // No row of this row group is read: its columns are not even opened.
                continue;
            }
            self.prefetch(rg_index, &steps);
            // Flat columns late materialization decoded already, at the rows `steps` read, in
            // the type this read gives them, are handed out from there.
            let replayed: Vec<Option<ArrayRef>> = self
                .plans
                .iter()
                .map(|p| {
                    let found = decoded.iter().find(|(leaf, _)| *leaf == p.leaf).map(|(_, a)| a);
                    found.filter(|a| p.levels.is_none() && a.data_type() == p.field.data_type()).cloned()
                })
                .collect();
            let chunked: Vec<bool> = replayed.iter().map(Option::is_none).collect();
            // A filter's matches pass over rows too, without a row selection in the options.
            let skips = self.options.row_selection.is_some() || steps.iter().any(|s| matches!(s, Step::Skip(_)));
            let opened = self.open_readers(rg_index, &chunked, skips)?;
            let readers = opened
                .into_iter()
                .zip(replayed)
                .filter_map(|(reader, replay)| reader.or_else(|| replay.map(|a| LeafReader::Replay(Replay::new(a)))))
                .collect();
            return Ok(Some(RowGroup { index: rg_index, readers, steps, chunked, skips }));
        }
        Ok(None)
    }

    /// A reader for every column read in the row group `rg_index` for which `open` is true.
    /// `skips`: whether the reads pass over rows (see [`ColumnReader::open`]).
    fn open_readers(&self, rg_index: usize, open: &[bool], skips: bool) -> Result<Vec<Option<LeafReader>>> {
        let file = &self.file;
        let reader = |plan| {
            ColumnReader::open(file.source(), &file.metadata, &file.schema, rg_index, plan, &self.options, skips)
                .map(|r| LeafReader::Column(Box::new(r)))
        };
        self.plans.iter().zip(open).map(|(plan, &open)| open.then(|| reader(plan)).transpose()).collect()
    }

    /// The rows per batch.
    fn batch_size(&self) -> usize {
        self.options.batch_size
    }

    /// The batch of `rows` rows of the row group `row_group` made of the leaves' arrays.
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

/// Walks a batch's plan through one column: skips, reads, then the array of the rows read
/// (and their levels).
fn run_plan<S: ChunkSource>(reader: &mut LeafReader, source: &S, plan: &[Step]) -> Result<LeafBatch> {
    if plan.len() > 2 {
        reader.reserve_rows(rows_read(plan));
    }
    for step in plan {
        match *step {
            Step::Skip(n) => reader.skip(source, n)?,
            Step::Read(n) => reader.append(source, n)?,
        }
    }
    let levels = reader.take_levels();
    Ok(LeafBatch { array: reader.finish()?, levels })
}

/// The rows the steps read (the skips aside).
fn rows_read<'a>(steps: impl IntoIterator<Item = &'a Step>) -> usize {
    steps.into_iter().map(|s| if let Step::Read(n) = s { *n } else { 0 }).sum()
}

impl<S: ChunkSource> Iterator for RecordBatchIter<S> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let flow = &mut self.flow;
        // A filter drops batches without a match and reads on.
        flow.asked = flow.asked.saturating_add(1);
        if flow.asked == 2 {
            flow.prefetch_next();
        }
        let next = loop {
            let next = self.schedule.next_batch(flow);
            let Some(f) = flow.filter.as_mut() else { break next };
            match next {
                Ok(Some(b)) => match f.apply(b) {
                    Ok(None) => continue,
                    other => break other,
                },
                other => break other,
            }
        };
        match next {
            Ok(Some(b)) => Some(Ok(b)),
            Ok(None) => None,
            Err(e) => {
                // An error ends the iteration: the readers' state is no longer trustworthy.
                self.schedule.stop();
                flow.next_row_group = flow.row_groups.len();
                Some(Err(e))
            }
        }
    }
}

impl<S: ChunkSource> RecordBatchIter<S> {
    /// Plans a read of `file`: checks the options against it, plans the columns and fields,
    /// prepares the filter, and chooses the schedule.
    pub(super) fn new(file: ParquetFile<S>, mut options: ReadOptions) -> Result<Self> {
        // A zero would make every batch empty and the iterator endless (the setter clamps it too).
        options.batch_size = options.batch_size.max(1);
        let filter = match options.filter.take() {
            Some(p) => {
                let (o, f) = crate::filter::prepare(&file, options, &p)?;
                options = o;
                Some(f)
            }
            None => None,
        };
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
        let largest = row_groups.iter().map(|&i| file.metadata.row_groups[i].num_rows.max(0) as usize).max();
        let whole_row_groups = options.batch_size >= largest.unwrap_or(0);
        let schedule = Schedule::choose(options.threads, whole_row_groups)?;
        // Where each row group starts in the file's row numbers, for the row selection.
        let mut starts = Vec::with_capacity(file.metadata.row_groups.len());
        let mut at = 0u64;
        for rg in &file.metadata.row_groups {
            starts.push(at);
            at = at.saturating_add(rg.num_rows.max(0) as u64);
        }
        let paths: Vec<Vec<String>> = file.schema.columns.iter().map(|c| c.path.clone()).collect();
        let filter = filter.map(|f| f.attach(&schema, &paths, &options)).transpose()?.map(Box::new);
        let options_reads_all = options.reads_all;
        let flow = Flow {
            file,
            options,
            schema,
            plans,
            fields,
            row_groups,
            starts,
            next_row_group: 0,
            filter,
            // A caller that reads everything counts as having asked for a second batch.
            asked: usize::from(options_reads_all),
            ahead: std::cell::Cell::new(0),
            dense: std::cell::Cell::new(false),
        };
        Ok(RecordBatchIter { flow, schedule })
    }
}
