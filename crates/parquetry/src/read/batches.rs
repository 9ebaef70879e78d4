//! Record batches of a file: the iterator that walks the selected row groups, opens a
//! column reader per selected column, and asks each for a batch of rows at a time (skipping
//! rows outside a row selection).
//!
//! With threads, a batch's columns are decoded at once; when every batch is a whole row
//! group, several row groups are decoded at once too, so that few columns of unequal cost
//! still keep every thread busy. Smaller batches are decoded several at once, and when one
//! column outweighs the others, each thread reads runs of rows of its own ("lanes"). The
//! output is the same for any number of threads.

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
use crate::format::Encoding;
use crate::page::ChunkSource;

mod prefetch;

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
    readers: Vec<LeafReader>,
    /// What is left to do in the open row group: reads, and skips between them.
    steps: VecDeque<Step>,
    /// The threads that decode the columns of a batch at once (`threads` > 1 only).
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    /// Whether every batch is a whole row group (the batch size is at least the largest
    /// row group's row count): then threads decode several row groups at once.
    whole_row_groups: bool,
    /// Batches decoded ahead, in order (several row groups decoded at once).
    ready: VecDeque<RecordBatch>,
    /// With threads and batches smaller than the open row group: readers of its columns for
    /// each lane after the first (`readers`), which decode runs of its rows at once (see
    /// `read_lanes`); empty otherwise. `None` for a column the first lane reads alone.
    lanes: Vec<Vec<Option<LeafReader>>>,
    /// Rows of the open row group each lane (`readers` first) has walked through.
    lane_at: Vec<usize>,
    /// Rows of the open row group the steps handed out so far cover.
    taken: usize,
    /// How many decodes of [`piece_rows`](Self::piece_rows) a lane makes at a time.
    lane_pieces: usize,
    /// A filter's state: batches are filtered by it and lose the columns it added.
    filter: Option<Box<crate::filter::Filtering>>,
    /// How many batches the caller asked for so far (see [`prefetch`](Self::prefetch)).
    asked: usize,
    /// The row groups (a position in `row_groups`) up to which chunks were named ahead
    /// (see [`ahead_window`](Self::ahead_window)).
    ahead: std::cell::Cell<usize>,
}

impl<S: ChunkSource> RecordBatchIter<'_, S> {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        match &self.filter {
            Some(f) => f.schema(),
            None => Arc::clone(&self.schema),
        }
    }

    /// What a filtered read pruned and read so far (`None` without a filter).
    pub fn scan_metrics(&self) -> Option<&crate::filter::ScanMetrics> {
        self.filter.as_ref().map(|f| f.metrics())
    }

    fn open_row_group(&mut self) -> Result<bool> {
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
            let (steps, decoded) = match self.filter.as_mut() {
                Some(f) => f.narrow(&self.file, rg_index, self.starts[rg_index], steps)?,
                None => (steps, Vec::new()),
            };
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
            let open: Vec<bool> = replayed.iter().map(Option::is_none).collect();
            // A filter's matches pass over rows too, without a row selection in the options.
            let skips = self.options.row_selection.is_some() || steps.iter().any(|s| matches!(s, Step::Skip(_)));
            let opened = self.open_readers(rg_index, &open, skips)?;
            self.readers = opened
                .into_iter()
                .zip(replayed)
                .filter_map(|(reader, replay)| reader.or_else(|| replay.map(|a| LeafReader::Replay(Replay::new(a)))))
                .collect();
            self.lanes.clear();
            let read: usize = steps.iter().map(|s| if let Step::Read(n) = s { *n } else { 0 }).sum();
            // A replayed column hands its rows out in order: the first lane reads it whole.
            let laned: Vec<bool> = self.laned_columns(rg_index).iter().zip(&open).map(|(&l, &o)| l && o).collect();
            let lanes = if laned.contains(&true) { self.lane_count(read) } else { 1 };
            for _ in 1..lanes {
                let readers = self.open_readers(rg_index, &laned, skips)?;
                self.lanes.push(readers);
            }
            self.lane_at = vec![0; lanes];
            self.taken = 0;
            self.steps = steps;
            return Ok(true);
        }
        Ok(false)
    }

    /// A reader for every column read in the row group `rg_index` for which `open` is true.
    /// `skips`: whether the reads pass over rows (see [`ColumnReader::open`]).
    fn open_readers(&self, rg_index: usize, open: &[bool], skips: bool) -> Result<Vec<Option<LeafReader>>> {
        let file = &self.file;
        let reader = |plan| {
            ColumnReader::open(&file.source, &file.metadata, &file.schema, rg_index, plan, &self.options, skips)
                .map(|r| LeafReader::Column(Box::new(r)))
        };
        self.plans.iter().zip(open).map(|(plan, &open)| open.then(|| reader(plan)).transpose()).collect()
    }

    /// Which columns of the row group `rg_index` lanes share out (see `read_lanes`): none
    /// unless one column holds at least half of the bytes read, the case where sharing out
    /// whole columns leaves a thread idle (columns of about equal size keep every thread busy
    /// without lanes, and lanes cost the pages at their runs' ends twice: numeric_snappy's
    /// five columns took 25 ms on 2 threads without lanes, 28 ms with). Never a column with a
    /// dictionary: indexes are mostly met in the order the dictionary lists their values
    /// (writers build it so), and a reader that starts at the first row appends each new
    /// value from the page as it comes; one that starts later must walk the dictionary up to
    /// its first index and gather every value, which cost more than the second thread saved
    /// (strings_dict_none on 2 threads: 61 ms without lanes, 83 ms with).
    fn laned_columns(&self, rg_index: usize) -> Vec<bool> {
        let columns = &self.file.metadata.row_groups[rg_index].columns;
        let meta = |leaf: usize| columns.get(leaf).and_then(|c| c.meta_data.as_ref());
        let bytes = |leaf: usize| meta(leaf).map_or(0, |m| m.total_uncompressed_size.max(0) as u64);
        let total: u64 = self.plans.iter().map(|p| bytes(p.leaf)).sum();
        let dictionary = |e: &Encoding| matches!(*e, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY);
        let laned = |leaf: usize| {
            meta(leaf).is_some_and(|m| m.dictionary_page_offset.is_none() && !m.encodings.iter().any(dictionary))
        };
        let laned: Vec<bool> = self.plans.iter().map(|plan| laned(plan.leaf)).collect();
        let large = self.plans.iter().zip(&laned).any(|(p, &l)| l && bytes(p.leaf) * 2 >= total.max(1));
        match large {
            true => laned,
            false => vec![false; laned.len()],
        }
    }

    /// How many lanes read a row group of which `read` rows are read, and sets how many
    /// decodes each makes at a time: one lane without threads, with whole row groups, or
    /// when the threads would not each get a decode's worth of rows.
    fn lane_count(&mut self, read: usize) -> usize {
        let threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
        if threads < 2 || self.whole_row_groups {
            return 1;
        }
        let pieces = read / self.piece_rows();
        if pieces < threads {
            return 1;
        }
        self.lane_pieces = pieces.div_ceil(threads).clamp(1, MAX_LANE_PIECES);
        threads
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
        if let (false, Some(pool)) = (self.lanes.is_empty(), self.pool.clone()) {
            self.read_lanes(&pool)?;
            return Ok(self.ready.pop_front());
        }
        // Up to a batch of rows, from as many selected ranges as it takes (within the row
        // group), passing over the rows between them. With threads, small batches are decoded
        // several at once and handed out as slices (see `ahead`).
        let batch_size = self.options.batch_size;
        let ahead = self.ahead();
        let (plan, rows, _) = take_steps(&mut self.steps, ahead);
        // Each column walks the plan on its own: columns are independent, so with threads
        // they are decoded at once, and the output is the same as on one thread.
        let source = &self.file.source;
        let columns: Vec<LeafBatch> = match &self.pool {
            // Small batches stay on this thread: handing a few microseconds of work per column
            // to the pool and back cost more than it saved (1,024-row batches ran at 0.56–0.89x
            // of one thread's speed on two threads).
            Some(pool) if self.readers.len() > 1 && rows >= MIN_PARALLEL_ROWS => {
                use rayon::prelude::*;
                pool.install(|| self.readers.par_iter_mut().map(|r| run_plan(r, source, &plan)).collect::<Result<_>>())?
            }
            _ => self.readers.iter_mut().map(|r| run_plan(r, source, &plan)).collect::<Result<_>>()?,
        };
        let row_group = self.row_groups[self.next_row_group - 1];
        let batch = self.assemble(columns, rows, row_group)?;
        if rows <= batch_size {
            return Ok(Some(batch));
        }
        self.cut(&batch);
        Ok(self.ready.pop_front())
    }

    /// Hands out `batch` as batches of the batch size, cut where one thread's end: every
    /// batch size rows of the row group's reads (a decode covers whole batches).
    fn cut(&mut self, batch: &RecordBatch) {
        let (rows, batch_size) = (batch.num_rows(), self.options.batch_size);
        self.ready.extend((0..rows).step_by(batch_size).map(|at| batch.slice(at, batch_size.min(rows - at))));
    }

    /// Decodes the next run of rows of the open row group in every lane at once (all their
    /// columns on the pool) into [`ready`](Self::ready), [`piece_rows`](Self::piece_rows)
    /// rows per decode. Lane `i` takes the `i`-th run and skips the runs of the other lanes,
    /// as a row selection would: pages wholly inside them are passed over unread, so every
    /// thread decodes its own pages of a column, where sharing out columns alone leaves
    /// threads idle while the largest one is decoded (the `strings` dataset's `url` is 60% of
    /// its bytes). A column with a dictionary is read by the first lane alone, every run in
    /// turn.
    fn read_lanes(&mut self, pool: &rayon::ThreadPool) -> Result<()> {
        let piece = self.piece_rows();
        let mut runs: Vec<Run> = Vec::new();
        for at in self.lane_at.iter_mut() {
            if self.steps.is_empty() {
                break;
            }
            let (start, mut walked) = (self.taken, 0);
            let mut pieces = Vec::new();
            while pieces.len() < self.lane_pieces && !self.steps.is_empty() {
                let (plan, rows, w) = take_steps(&mut self.steps, piece);
                pieces.push((plan, rows));
                walked += w;
            }
            runs.push(Run { skip: start - *at, pieces });
            self.taken = start + walked;
            *at = self.taken;
        }
        let source = &self.file.source;
        // (column, lane, reader, runs, whether the reader passes over the other lanes' rows)
        let mut tasks: Vec<(usize, usize, &mut LeafReader, &[Run], bool)> = Vec::new();
        for (c, reader) in self.readers.iter_mut().enumerate() {
            match self.lanes.first().is_some_and(|lane| lane[c].is_some()) {
                true => tasks.push((c, 0, reader, &runs[..1], true)),
                false => tasks.push((c, 0, reader, &runs[..], false)),
            }
        }
        for (l, lane) in self.lanes.iter_mut().enumerate().take(runs.len().saturating_sub(1)) {
            let extra = lane.iter_mut().enumerate().filter_map(|(c, r)| r.as_mut().map(|r| (c, r)));
            tasks.extend(extra.map(|(c, r)| (c, l + 1, r, &runs[l + 1..l + 2], true)));
        }
        let mut decoded: Vec<(usize, usize, Vec<LeafBatch>)> = {
            use rayon::prelude::*;
            let run = |(c, l, r, runs, laned): (usize, usize, &mut LeafReader, &[Run], bool)| -> Result<_> {
                let mut leaves = Vec::new();
                for run in runs {
                    if laned && run.skip > 0 {
                        r.skip(source, run.skip)?;
                    }
                    for (plan, _) in &run.pieces {
                        leaves.push(run_plan(r, source, plan)?);
                    }
                }
                Ok((c, l, leaves))
            };
            pool.install(|| tasks.into_par_iter().map(run).collect::<Result<_>>())?
        };
        // Each column's decodes in row order: lane by lane, and a lane's in turn.
        decoded.sort_by_key(|&(c, l, _)| (c, l));
        let mut columns: Vec<Vec<LeafBatch>> = (0..self.plans.len()).map(|_| Vec::new()).collect();
        for (c, _, leaves) in decoded {
            columns[c].extend(leaves);
        }
        let mut columns: Vec<_> = columns.into_iter().map(Vec::into_iter).collect();
        let row_group = self.row_groups[self.next_row_group - 1];
        for (_, rows) in runs.iter().flat_map(|r| &r.pieces) {
            let leaves = columns.iter_mut().map(|c| c.next().ok_or_else(|| Error::corrupt("a lane lost a decode")));
            let batch = self.assemble(leaves.collect::<Result<_>>()?, *rows, row_group)?;
            self.cut(&batch);
        }
        Ok(())
    }

    /// How many rows the next decode covers: a batch, or with threads and batches too small
    /// to share out, as many whole batches as make [`DECODE_AHEAD_ROWS`]. Their columns are
    /// then decoded at once, and the batches handed out as slices of the result: the same
    /// rows in the same batches as one thread gives, two threads at work instead of one.
    fn ahead(&self) -> usize {
        let batch_size = self.options.batch_size;
        if self.pool.is_none() || self.readers.len() < 2 {
            return batch_size;
        }
        self.piece_rows()
    }

    /// Whole batches of at least [`DECODE_AHEAD_ROWS`] rows, or one batch if it is
    /// [`MIN_PARALLEL_ROWS`] or more: what a decode on the threads covers.
    fn piece_rows(&self) -> usize {
        let batch_size = self.options.batch_size;
        match batch_size >= MIN_PARALLEL_ROWS {
            true => batch_size,
            false => DECODE_AHEAD_ROWS.div_ceil(batch_size) * batch_size,
        }
    }

    /// Decodes as many whole row groups as there are threads, every column of each at once,
    /// into [`ready`](Self::ready): with few columns, one row group's columns alone leave
    /// threads idle while the slowest column finishes.
    fn read_row_groups_at_once(&mut self) -> Result<()> {
        let threads = self.pool.as_ref().map_or(1, |p| p.current_num_threads());
        let mut groups: Vec<(Vec<LeafReader>, Vec<Step>)> = Vec::new();
        let mut indexes = Vec::new();
        while groups.len() < threads.max(2) && self.open_row_group()? {
            groups.push((std::mem::take(&mut self.readers), self.steps.drain(..).collect()));
            indexes.push(self.row_groups[self.next_row_group - 1]);
        }
        let source = &self.file.source;
        let mut units: Vec<(&mut LeafReader, &[Step])> = Vec::new();
        for (readers, plan) in &mut groups {
            units.extend(readers.iter_mut().map(|r| (r, plan.as_slice())));
        }
        let columns: Vec<LeafBatch> = match &self.pool {
            Some(pool) => {
                use rayon::prelude::*;
                pool.install(|| {
                    units.into_par_iter().map(|(r, plan)| run_plan(r, source, plan)).collect::<Result<_>>()
                })?
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

/// The most decodes a lane makes in a run (see `read_lanes`): the pages at a run's ends
/// are decoded in part by two lanes, so a run of four holds that to about a page in
/// fourteen of `url`; longer runs would hold more batches in memory for little gain.
const MAX_LANE_PIECES: usize = 4;

/// A lane's share of the rows decoded at once: the rows to pass over first (the other
/// lanes' runs), then its decodes' plans and the rows each reads.
struct Run {
    skip: usize,
    pieces: Vec<(Vec<Step>, usize)>,
}

/// Takes from `steps` the steps that read up to `rows` rows (splitting a read), with the
/// skips before them: the plan, the rows it reads and the rows it walks through.
fn take_steps(steps: &mut VecDeque<Step>, rows: usize) -> (Vec<Step>, usize, usize) {
    let (mut plan, mut read, mut walked) = (Vec::new(), 0, 0);
    while read < rows {
        let Some(step) = steps.pop_front() else { break };
        match step {
            Step::Read(n) => {
                let k = n.min(rows - read);
                if k < n {
                    steps.push_front(Step::Read(n - k));
                }
                plan.push(Step::Read(k));
                (read, walked) = (read + k, walked + k);
            }
            Step::Skip(n) => {
                plan.push(step);
                walked += n;
            }
        }
    }
    (plan, read, walked)
}

/// Walks a batch's plan through one column: skips, reads, then the array of the rows read
/// (and their levels).
fn run_plan<S: ChunkSource>(reader: &mut LeafReader, source: &S, plan: &[Step]) -> Result<LeafBatch> {
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
        // A filter drops batches without a match and reads on.
        self.asked = self.asked.saturating_add(1);
        if self.asked == 2 {
            self.prefetch_next();
        }
        let next = loop {
            let next = self.next_batch();
            let Some(f) = self.filter.as_mut() else { break next };
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
                self.steps.clear();
                self.ready.clear();
                self.lanes.clear();
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
        let paths: Vec<Vec<String>> = file.schema.columns.iter().map(|c| c.path.clone()).collect();
        let filter = filter.map(|f| f.attach(&schema, &paths, &options)).transpose()?.map(Box::new);
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
            lanes: Vec::new(),
            lane_at: Vec::new(),
            taken: 0,
            lane_pieces: 1,
            filter,
            asked: 0,
            ahead: std::cell::Cell::new(0),
        })
    }
}
