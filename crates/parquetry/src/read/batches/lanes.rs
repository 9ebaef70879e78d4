//! Lanes: with threads and batches smaller than a row group, each thread reads runs of rows
//! of its own, when one column outweighs the others and sharing out whole columns would
//! leave a thread idle. Part of [`Strategy::Batches`](super::schedule::Strategy::Batches).

use super::schedule::{piece_rows, take_steps, Schedule};
use super::{run_plan, Flow};
use crate::error::{Error, Result};
use crate::format::Encoding;
use crate::page::ChunkSource;
use crate::read::assemble::LeafBatch;
use crate::read::leaf::LeafReader;
use crate::read::selection::Step;

/// The most decodes a lane makes in a run (see `read_lanes`): the pages at a run's ends
/// are decoded in part by two lanes, so a run of four holds that to about a page in
/// fourteen of `url`; longer runs would hold more batches in memory for little gain.
const MAX_LANE_PIECES: usize = 4;

/// The lanes of the open row group after the first (whose readers are the schedule's own):
/// empty unless the row group is read in lanes.
#[derive(Default)]
pub(super) struct Lanes {
    /// Readers of the open row group's columns for each lane after the first, which decode
    /// runs of its rows at once (see `read_lanes`). `None` for a column the first lane reads
    /// alone.
    readers: Vec<Vec<Option<LeafReader>>>,
    /// Rows of the open row group each lane (the first too) has walked through.
    at: Vec<usize>,
    /// Rows of the open row group the steps handed out so far cover.
    taken: usize,
    /// How many decodes of [`piece_rows`] a lane makes at a time.
    pieces: usize,
}

/// A lane's share of the rows decoded at once: the rows to pass over first (the other
/// lanes' runs), then its decodes' plans and the rows each reads.
struct Run {
    skip: usize,
    pieces: Vec<(Vec<Step>, usize)>,
}

impl Lanes {
    /// Whether the open row group is read in one lane.
    pub(super) fn is_empty(&self) -> bool {
        self.readers.is_empty()
    }

    /// Drops the lanes (a new row group opens, or the read ends).
    pub(super) fn clear(&mut self) {
        self.readers.clear();
    }

    /// Opens the lanes of the row group `rg_index` just opened, of which `read` rows are
    /// read on `threads` threads: a reader per lane after the first for each column the lanes
    /// share out (only those read from their chunks, `chunked`: a replayed column hands its
    /// rows out in order, so the first lane reads it whole).
    pub(super) fn open<S: ChunkSource>(
        &mut self,
        flow: &Flow<S>,
        threads: usize,
        rg_index: usize,
        read: usize,
        chunked: &[bool],
        skips: bool,
    ) -> Result<()> {
        let laned: Vec<bool> = laned_columns(flow, rg_index).iter().zip(chunked).map(|(&l, &o)| l && o).collect();
        let lanes = if laned.contains(&true) { self.count(threads, read, flow.batch_size()) } else { 1 };
        for _ in 1..lanes {
            let readers = flow.open_readers(rg_index, &laned, skips)?;
            self.readers.push(readers);
        }
        self.at = vec![0; lanes];
        self.taken = 0;
        Ok(())
    }

    /// How many lanes read a row group of which `read` rows are read, and sets how many
    /// decodes each makes at a time: one lane when the threads would not each get a decode's
    /// worth of rows.
    fn count(&mut self, threads: usize, read: usize, batch_size: usize) -> usize {
        if threads < 2 {
            return 1;
        }
        let pieces = read / piece_rows(batch_size);
        if pieces < threads {
            return 1;
        }
        self.pieces = pieces.div_ceil(threads).clamp(1, MAX_LANE_PIECES);
        threads
    }
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
fn laned_columns<S: ChunkSource>(flow: &Flow<S>, rg_index: usize) -> Vec<bool> {
    let columns = &flow.file.metadata.row_groups[rg_index].columns;
    let meta = |leaf: usize| columns.get(leaf).and_then(|c| c.meta_data.as_ref());
    let bytes = |leaf: usize| meta(leaf).map_or(0, |m| m.total_uncompressed_size.max(0) as u64);
    let total: u64 = flow.plans.iter().map(|p| bytes(p.leaf)).sum();
    let dictionary = |e: &Encoding| matches!(*e, Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY);
    let laned = |leaf: usize| {
        meta(leaf).is_some_and(|m| m.dictionary_page_offset.is_none() && !m.encodings.iter().any(dictionary))
    };
    let laned: Vec<bool> = flow.plans.iter().map(|plan| laned(plan.leaf)).collect();
    let large = flow.plans.iter().zip(&laned).any(|(p, &l)| l && bytes(p.leaf) * 2 >= total.max(1));
    match large {
        true => laned,
        false => vec![false; laned.len()],
    }
}

impl Schedule {
    /// Decodes the next run of rows of the open row group in every lane at once (all their
    /// columns on the pool) into `ready`, [`piece_rows`] rows per decode. Lane `i` takes the
    /// `i`-th run and skips the runs of the other lanes, as a row selection would: pages
    /// wholly inside them are passed over unread, so every thread decodes its own pages of a
    /// column, where sharing out columns alone leaves threads idle while the largest one is
    /// decoded (the `strings` dataset's `url` is 60% of its bytes). A column with a
    /// dictionary is read by the first lane alone, every run in turn.
    pub(super) fn read_lanes<S: ChunkSource>(&mut self, pool: &rayon::ThreadPool, flow: &Flow<S>) -> Result<()> {
        let batch_size = flow.batch_size();
        let piece = piece_rows(batch_size);
        let lanes = &mut self.lanes;
        let mut runs: Vec<Run> = Vec::new();
        for at in lanes.at.iter_mut() {
            if self.steps.is_empty() {
                break;
            }
            let (start, mut walked) = (lanes.taken, 0);
            let mut pieces = Vec::new();
            while pieces.len() < lanes.pieces && !self.steps.is_empty() {
                let (plan, rows, w) = take_steps(&mut self.steps, piece);
                pieces.push((plan, rows));
                walked += w;
            }
            runs.push(Run { skip: start - *at, pieces });
            lanes.taken = start + walked;
            *at = lanes.taken;
        }
        let source = flow.file.source();
        // (column, lane, reader, runs, whether the reader passes over the other lanes' rows)
        let mut tasks: Vec<(usize, usize, &mut LeafReader, &[Run], bool)> = Vec::new();
        for (c, reader) in self.readers.iter_mut().enumerate() {
            match lanes.readers.first().is_some_and(|lane| lane[c].is_some()) {
                true => tasks.push((c, 0, reader, &runs[..1], true)),
                false => tasks.push((c, 0, reader, &runs[..], false)),
            }
        }
        for (l, lane) in lanes.readers.iter_mut().enumerate().take(runs.len().saturating_sub(1)) {
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
        let mut columns: Vec<Vec<LeafBatch>> = (0..flow.plans.len()).map(|_| Vec::new()).collect();
        for (c, _, leaves) in decoded {
            columns[c].extend(leaves);
        }
        let mut columns: Vec<_> = columns.into_iter().map(Vec::into_iter).collect();
        for (_, rows) in runs.iter().flat_map(|r| &r.pieces) {
            let leaves = columns.iter_mut().map(|c| c.next().ok_or_else(|| Error::corrupt("a lane lost a decode")));
            let batch = flow.assemble(leaves.collect::<Result<_>>()?, *rows, self.row_group)?;
            self.cut(&batch, batch_size);
        }
        Ok(())
    }
}
