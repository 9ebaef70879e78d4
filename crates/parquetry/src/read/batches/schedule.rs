//! How a read's decodes are spread over threads: a strategy chosen once when the read
//! starts, apart from the data flow ([`Flow`]) it drives.
//!
//! - [`Strategy::Serial`] (one thread): a batch at a time, its columns in turn.
//! - [`Strategy::RowGroups`] (threads, every batch a whole row group): as many row groups as
//!   there are threads, every column of each at once, so that few columns of unequal cost
//!   still keep every thread busy.
//! - [`Strategy::Batches`] (threads, batches smaller than a row group): the columns of a
//!   decode at once, a decode covering several small batches ("decoding ahead"); or, in a
//!   row group where one column outweighs the others, runs of rows of their own for each
//!   thread ("lanes", `lanes.rs`), chosen when the row group opens.
//!
//! Whatever the strategy, the batches hold the same rows in the same order as on one thread.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::RecordBatch;

use super::lanes::Lanes;
use super::{rows_read, run_plan, Flow, RowGroup};
use crate::error::Result;
use crate::page::ChunkSource;
use crate::read::assemble::LeafBatch;
use crate::read::leaf::LeafReader;
use crate::read::selection::Step;

/// The fewest rows in a batch whose columns are decoded on the pool rather than in turn on
/// the caller's thread.
const MIN_PARALLEL_ROWS: usize = 32 * 1024;

/// The rows decoded at once when batches are smaller than [`MIN_PARALLEL_ROWS`] and there are
/// threads (rounded up to whole batches).
const DECODE_AHEAD_ROWS: usize = 64 * 1024;

/// Which way the decodes of a read are spread over threads (see the module's documentation).
pub(super) enum Strategy {
    /// One thread: a batch at a time, its columns in turn.
    Serial,
    /// Threads and whole row groups: several row groups decoded at once.
    RowGroups(Arc<rayon::ThreadPool>),
    /// Threads and batches smaller than a row group: a decode's columns at once, or lanes.
    Batches(Arc<rayon::ThreadPool>),
}

/// The scheduling of a read: its [`Strategy`], the open row group's readers and what is left
/// to read of it, and the batches decoded ahead of the caller.
pub(super) struct Schedule {
    pub(super) strategy: Strategy,
    /// The open row group's index in the file (for errors).
    pub(super) row_group: usize,
    /// The open row group's readers (the first lane's, with lanes).
    pub(super) readers: Vec<LeafReader>,
    /// What is left to do in the open row group: reads, and skips between them.
    pub(super) steps: VecDeque<Step>,
    /// Batches decoded ahead, in order.
    pub(super) ready: VecDeque<RecordBatch>,
    /// The open row group's lanes after the first (none unless [`Strategy::Batches`] chose
    /// them for it).
    pub(super) lanes: Lanes,
}

impl Schedule {
    /// The schedule of a read on `threads` threads, whose batches are whole row groups or not.
    pub(super) fn choose(threads: usize, whole_row_groups: bool) -> Result<Self> {
        let strategy = match threads {
            0 | 1 => Strategy::Serial,
            n if whole_row_groups => Strategy::RowGroups(crate::threads::pool(n)?),
            n => Strategy::Batches(crate::threads::pool(n)?),
        };
        Ok(Schedule {
            strategy,
            row_group: 0,
            readers: Vec::new(),
            steps: VecDeque::new(),
            ready: VecDeque::new(),
            lanes: Lanes::default(),
        })
    }

    /// The next batch, before any filter: handed out from those decoded ahead, or decoded now
    /// (opening the next row group when the open one is done). `None` after the last.
    pub(super) fn next_batch<S: ChunkSource>(&mut self, flow: &mut Flow<S>) -> Result<Option<RecordBatch>> {
        if let Some(b) = self.ready.pop_front() {
            return Ok(Some(b));
        }
        let pool = match &self.strategy {
            Strategy::RowGroups(pool) => {
                let pool = Arc::clone(pool);
                self.read_row_groups_at_once(&pool, flow)?;
                return Ok(self.ready.pop_front());
            }
            Strategy::Batches(pool) => Some(Arc::clone(pool)),
            Strategy::Serial => None,
        };
        if self.steps.is_empty() && !self.open(flow, pool.as_deref())? {
            return Ok(None);
        }
        if let (false, Some(pool)) = (self.lanes.is_empty(), &pool) {
            self.read_lanes(pool, flow)?;
            return Ok(self.ready.pop_front());
        }
        // Up to a batch of rows, from as many selected ranges as it takes (within the row
        // group), passing over the rows between them. With threads, small batches are decoded
        // several at once and handed out as slices (see `ahead`).
        let batch_size = flow.batch_size();
        let ahead = match &pool {
            Some(_) if self.readers.len() >= 2 => piece_rows(batch_size),
            _ => batch_size,
        };
        let (plan, rows, _) = take_steps(&mut self.steps, ahead);
        // Each column walks the plan on its own: columns are independent, so with threads
        // they are decoded at once, and the output is the same as on one thread.
        let source = flow.file.source();
        let columns: Vec<LeafBatch> = match &pool {
            // Small batches stay on this thread: handing a few microseconds of work per column
            // to the pool and back cost more than it saved (1,024-row batches ran at 0.56–0.89x
            // of one thread's speed on two threads).
            Some(pool) if self.readers.len() > 1 && rows >= MIN_PARALLEL_ROWS => {
                use rayon::prelude::*;
                pool.install(|| self.readers.par_iter_mut().map(|r| run_plan(r, source, &plan)).collect::<Result<_>>())?
            }
            _ => self.readers.iter_mut().map(|r| run_plan(r, source, &plan)).collect::<Result<_>>()?,
        };
        let batch = flow.assemble(columns, rows, self.row_group)?;
        if rows <= batch_size {
            return Ok(Some(batch));
        }
        self.cut(&batch, batch_size);
        Ok(self.ready.pop_front())
    }

    /// Opens the next row group of the flow, and with a pool, the lanes it is read in (see
    /// `lanes.rs`). False after the last.
    fn open<S: ChunkSource>(&mut self, flow: &mut Flow<S>, pool: Option<&rayon::ThreadPool>) -> Result<bool> {
        let Some(RowGroup { index, readers, steps, chunked, skips }) = flow.open_row_group()? else {
            return Ok(false);
        };
        self.lanes.clear();
        if let Some(pool) = pool {
            let read = rows_read(&steps);
            self.lanes.open(flow, pool.current_num_threads(), index, read, &chunked, skips)?;
        }
        self.row_group = index;
        self.readers = readers;
        self.steps = steps;
        Ok(true)
    }

    /// Ends the read after an error: the readers' state is no longer trustworthy, so nothing
    /// decoded ahead is handed out and nothing more is read of the open row group.
    pub(super) fn stop(&mut self) {
        self.steps.clear();
        self.ready.clear();
        self.lanes.clear();
    }

    /// Hands out `batch` as batches of `batch_size` rows, cut where one thread's end: every
    /// batch size rows of the row group's reads (a decode covers whole batches).
    pub(super) fn cut(&mut self, batch: &RecordBatch, batch_size: usize) {
        let rows = batch.num_rows();
        self.ready.extend((0..rows).step_by(batch_size).map(|at| batch.slice(at, batch_size.min(rows - at))));
    }

    /// Decodes as many whole row groups as there are threads, every column of each at once,
    /// into [`ready`](Self::ready): with few columns, one row group's columns alone leave
    /// threads idle while the slowest column finishes.
    fn read_row_groups_at_once<S: ChunkSource>(&mut self, pool: &rayon::ThreadPool, flow: &mut Flow<S>) -> Result<()> {
        let threads = pool.current_num_threads();
        let mut groups: Vec<(Vec<LeafReader>, Vec<Step>, usize)> = Vec::new();
        while groups.len() < threads.max(2) {
            let Some(rg) = flow.open_row_group()? else { break };
            groups.push((rg.readers, rg.steps.into(), rg.index));
        }
        let source = flow.file.source();
        let mut units: Vec<(&mut LeafReader, &[Step])> = Vec::new();
        for (readers, plan, _) in &mut groups {
            units.extend(readers.iter_mut().map(|r| (r, plan.as_slice())));
        }
        let columns: Vec<LeafBatch> = {
            use rayon::prelude::*;
            pool.install(|| units.into_par_iter().map(|(r, plan)| run_plan(r, source, plan)).collect::<Result<_>>())?
        };
        let mut columns = columns.into_iter();
        for (readers, plan, row_group) in &groups {
            let group: Vec<LeafBatch> = columns.by_ref().take(readers.len()).collect();
            let batch = flow.assemble(group, rows_read(plan), *row_group)?;
            self.ready.push_back(batch);
        }
        Ok(())
    }
}

/// Whole batches of at least [`DECODE_AHEAD_ROWS`] rows, or one batch if it is
/// [`MIN_PARALLEL_ROWS`] or more: what a decode on the threads covers. Their columns are
/// then decoded at once, and the batches handed out as slices of the result: the same rows
/// in the same batches as one thread gives, two threads at work instead of one.
pub(super) fn piece_rows(batch_size: usize) -> usize {
    match batch_size >= MIN_PARALLEL_ROWS {
        true => batch_size,
        false => DECODE_AHEAD_ROWS.div_ceil(batch_size) * batch_size,
    }
}

/// Takes from `steps` the steps that read up to `rows` rows (splitting a read), with the
/// skips before them: the plan, the rows it reads and the rows it walks through.
pub(super) fn take_steps(steps: &mut VecDeque<Step>, rows: usize) -> (Vec<Step>, usize, usize) {
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
