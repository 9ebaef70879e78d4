//! What a read ([`Flow`]) names to its source ahead of reading: on an object store,
//! the ranges a few requests fetch at once while earlier row groups decode (see
//! `store/source.rs`); elsewhere, nothing happens.

use std::collections::VecDeque;

use super::super::column::ColumnPlan;
use super::super::offset_index::page_locations;
use super::super::selection::{self, Step};
use super::Flow;
use crate::page::{chunk_byte_range, has_parquet_816_bug, ChunkSource};

/// How many bytes of whole row groups a read names ahead of the one it decodes (see
/// `ahead_window`): on an object store, a few requests of up to 16 MiB at once rather than a
/// request per row group, each waited for in turn.
const READ_AHEAD: u64 = 64 << 20;

/// The most bytes a row group's first pass fetches for its second (see
/// [`first_passes`](Flow::first_passes)): what a row group without a match costs
/// for nothing. A `SELECT *` of TPC-H `lineitem` at one page of `l_orderkey`'s rows is
/// 3.6 MiB, a row group of `orders`' other columns 3.7 MiB.
const BUNDLE_BYTES: u64 = 8 << 20;

impl<S: ChunkSource> Flow<S> {
    /// Names to the source what is read of the row group `rg_index` (`steps`): its column
    /// chunks, or with a row selection that passes over rows, only the pages holding the rows
    /// read (see [`selected_pages`](Self::selected_pages)); and, without a filter (which may
    /// prune it) and once the caller asked for a second batch, the next row group's chunks. A
    /// remote source fetches them now, few requests ahead of decoding, instead of one request
    /// per page. The next row group waits for a second batch so that a read stopped after
    /// the first (`cat --limit`) costs no request for it.
    pub(super) fn prefetch(&self, rg_index: usize, steps: &VecDeque<Step>) {
        let file = &self.file;
        let padding = has_parquet_816_bug(file.metadata.created_by.as_deref());
        let rows = file.metadata.row_groups[rg_index].num_rows.max(0) as usize;
        let read: usize = steps.iter().map(|s| if let Step::Read(n) = s { *n } else { 0 }).sum();
        let mut wanted = match read < rows {
            true => self.selected_pages(rg_index, steps, padding, None),
            false => self.chunk_ranges(rg_index, padding, None),
        };
        wanted.extend(self.next_chunks(padding));
        file.source.prefetch(&wanted);
    }

    /// Names to the source what the read fetches first, before any batch is asked for (see
    /// `ParquetRecordBatchReader::name_ahead`): its first row group's first pass and those
    /// after it with a filter; without one, the first row group's chunks (and, from a caller
    /// that reads everything, those after it). Nothing with a row selection, or once the
    /// read has begun.
    pub(super) fn name_start(&self) {
        if self.next_row_group > 0 || self.row_groups.is_empty() || self.file.source.fetch_cost(&[]).is_none() {
            return;
        }
        if self.filter.is_some() {
            self.name_first_pass(0);
            return;
        }
        if self.options.row_selection.is_some() {
            return;
        }
        let padding = has_parquet_816_bug(self.file.metadata.created_by.as_deref());
        let ranges = match self.asked >= 2 {
            true => self.next_chunks(padding),
            false => self.chunk_ranges(self.row_groups[0], padding, None),
        };
        self.file.source.prefetch(&ranges);
    }

    /// On the caller's second batch: the next row group's chunks, if the open one was
    /// opened before the caller asked for more (see [`prefetch`](Self::prefetch)).
    pub(super) fn prefetch_next(&self) {
        if self.next_row_group > 0 {
            let padding = has_parquet_816_bug(self.file.metadata.created_by.as_deref());
            self.file.source.prefetch(&self.next_chunks(padding));
        }
    }

    /// What is read for sure of the row groups after the open one, named ahead (see
    /// [`ahead_window`](Self::ahead_window)). Without a filter or a row selection, once the
    /// caller asked for a second batch, their chunks. With a filter, their first pass:
    /// pruning kept them, so the predicate's columns are read at their candidate rows (every
    /// column, with late materialization off), and are fetched while earlier row groups
    /// decode. With a row selection alone, nothing (a few of their pages may be read).
    fn next_chunks(&self, padding: bool) -> Vec<(u64, u64)> {
        let Some(filter) = &self.filter else {
            if self.asked < 2 || self.options.row_selection.is_some() {
                return Vec::new();
            }
            let bytes = |i: usize| self.chunk_ranges(self.row_groups[i], padding, None).iter().map(|r| r.1).sum();
            let (from, to) = self.ahead_window(bytes);
            return (from..to).flat_map(|i| self.chunk_ranges(self.row_groups[i], padding, None)).collect();
        };
        // Dense in pages, a row group's other columns come with its first pass (see
        // `first_passes`), whether late materialization stays on or not.
        let dense = self.dense.get();
        let fields = filter.first_pass_fields(&self.file.schema).filter(|_| !dense);
        let settled = filter.first_pass_settled() || dense;
        let bytes = |i: usize| match settled {
            true => self.chunk_ranges(self.row_groups[i], padding, fields.as_deref()).iter().map(|r| r.1).sum(),
            false => READ_AHEAD, // one row group ahead
        };
        let (from, to) = self.ahead_window(bytes);
        self.first_passes(from, to, padding)
    }

    /// Names to the source the first pass of the filtered row group at position `at` in
    /// `row_groups` (just opened) unless the read named it ahead already: before the
    /// dictionaries left for the read are tried on it (see `Filtering::rule_out_deferred`),
    /// so that their chunks come with the rest of the row group's first request.
    ///
    /// Once the first pass is settled, the row groups after it are named too (see
    /// [`next_chunks`](Self::next_chunks)): named only once this one's first pass had read
    /// its bytes, each window of row groups waited for a round trip of its own.
    pub(super) fn name_first_pass(&self, at: usize) {
        // A source without requests has nothing to gain from the page lookups.
        if self.file.source.fetch_cost(&[]).is_none() {
            return;
        }
        let padding = has_parquet_816_bug(self.file.metadata.created_by.as_deref());
        let mut ranges = Vec::new();
        if self.ahead.get() <= at {
            ranges = self.first_passes(at, at + 1, padding);
            self.ahead.set(at + 1);
        }
        // Only once what the first pass reads is settled: before, a row group named ahead
        // would be bundled with its other columns (see `first_passes`) before the one
        // opening tells whether matches are rare, and cost their bytes for nothing.
        if self.dense.get() || self.filter.as_ref().is_some_and(|f| f.first_pass_settled()) {
            ranges.extend(self.next_chunks(padding));
        }
        self.file.source.prefetch(&ranges);
    }

    /// What a filtered read reads first of the row groups at positions `from..to` in
    /// `row_groups`: pruning kept them, so the predicate's columns are read at their
    /// candidate rows (every column, with late materialization off). With late
    /// materialization on and matches expected (`Filtering::expects_matches`), the other
    /// columns' pages at the candidate rows come in the same requests where that saves a
    /// request and costs at most [`BUNDLE_BYTES`] (see [`worth_bundling`](Self::worth_bundling)):
    /// the second pass then finds its pages fetched instead of making a request of its own.
    fn first_passes(&self, from: usize, to: usize, padding: bool) -> Vec<(u64, u64)> {
        let Some(filter) = &self.filter else { return Vec::new() };
        let fields = filter.first_pass_fields(&self.file.schema);
        let fields = fields.as_deref();
        let reads: Vec<(usize, VecDeque<Step>, bool)> = (from..to.min(self.row_groups.len()))
            .filter_map(|i| {
                let index = self.row_groups[i];
                let rows = self.file.metadata.row_groups.get(index)?.num_rows.max(0) as usize;
                let steps = match &self.options.row_selection {
                    Some(ranges) => selection::steps(ranges, self.starts[index], rows),
                    None => VecDeque::from([Step::Read(rows)]),
                };
                let read: usize = steps.iter().map(|s| if let Step::Read(n) = s { *n } else { 0 }).sum();
                (read > 0).then_some((index, steps, read < rows))
            })
            .collect();
        // Only where the source makes requests: elsewhere bundling would cost the second
        // pass's page lookups for nothing. After a row group dense in pages, always: the
        // second pass is expected to read every page of the other columns, so they cost no
        // byte more fetched with the first pass, and a round trip less.
        let remote = self.file.source.fetch_cost(&[]).is_some();
        let dense = self.dense.get() && remote;
        let bundle = fields.is_some() && (dense || filter.expects_matches()) && remote;
        // The OffsetIndexes the partial reads place their pages by, all in one go.
        let indexed = if bundle { None } else { fields };
        let indexes: Vec<(u64, u64)> = reads
            .iter()
            .filter(|(_, _, partial)| *partial)
            .flat_map(|(index, _, _)| self.offset_indexes(*index, indexed))
            .collect();
        self.file.source.prefetch(&indexes);
        let pass = |index: usize, steps: &VecDeque<Step>, partial: bool, fields: Option<&[String]>| match partial {
            true => self.selected_pages(index, steps, padding, fields),
            false => self.chunk_ranges(index, padding, fields),
        };
        reads
            .iter()
            .flat_map(|(index, steps, partial)| {
                let first = pass(*index, steps, *partial, fields);
                if !bundle {
                    return first;
                }
                let all = pass(*index, steps, *partial, None);
                match dense || self.worth_bundling(&first, &all) {
                    true => all,
                    false => first,
                }
            })
            .collect()
    }

    /// Records whether the second pass of the row group `rg_index` (its reads `narrowed` by
    /// late materialization from the candidate rows `candidates`) needs every page of the
    /// columns the first pass did not read that the candidates need. Matches spread that
    /// evenly are rarely confined to one row group, so the next ones' other columns are then
    /// named with their first pass (see [`first_passes`](Self::first_passes)) rather than a
    /// round trip after it, and ahead as once the first pass is settled. Only on a source
    /// that makes requests, and only while late materialization is on (off, every column is
    /// read at the candidate rows anyway).
    pub(super) fn dense_pages(&self, rg_index: usize, candidates: &VecDeque<Step>, narrowed: &VecDeque<Step>) {
        let Some(filter) = &self.filter else { return };
        if self.file.source.fetch_cost(&[]).is_none() {
            return;
        }
        let Some(first) = filter.first_pass_fields(&self.file.schema) else { return };
        let mut others: Vec<String> = Vec::new();
        for p in &self.plans {
            let top = &self.file.schema.columns[p.leaf].path[0];
            if !first.contains(top) && !others.contains(top) {
                others.push(top.clone());
            }
        }
        if others.is_empty() {
            return;
        }
        let padding = has_parquet_816_bug(self.file.metadata.created_by.as_deref());
        let bytes =
            |steps| -> u64 { self.selected_pages(rg_index, steps, padding, Some(&others)).iter().map(|r| r.1).sum() };
        self.dense.set(!narrowed.is_empty() && bytes(narrowed) >= bytes(candidates));
    }

    /// Whether fetching `all` (a row group's first pass and the other columns at its
    /// candidate rows) together costs the source fewer requests than `first` and then the
    /// rest apart, and at most [`BUNDLE_BYTES`] more than `first` alone.
    fn worth_bundling(&self, first: &[(u64, u64)], all: &[(u64, u64)]) -> bool {
        let source = &self.file.source;
        let named: std::collections::HashSet<&(u64, u64)> = first.iter().collect();
        let rest: Vec<(u64, u64)> = all.iter().filter(|r| !named.contains(r)).copied().collect();
        let cost = |ranges: &[(u64, u64)]| source.fetch_cost(ranges);
        let (Some((first_requests, first_bytes)), Some((rest_requests, _)), Some((requests, bytes))) =
            (cost(first), cost(&rest), cost(all))
        else {
            return false;
        };
        requests < first_requests + rest_requests && bytes.saturating_sub(first_bytes) <= BUNDLE_BYTES
    }

    /// The row groups to name ahead, as positions `from..to` in `row_groups`: those after
    /// the ones named so far, up to [`READ_AHEAD`] bytes (by `bytes`) past the open one,
    /// once less than half of that is named (none otherwise); at least one. Named together,
    /// adjacent chunks of consecutive row groups merge into few requests (up to the source's
    /// longest request each), fetched at once while the first are decoded.
    fn ahead_window(&self, bytes: impl Fn(usize) -> u64) -> (usize, usize) {
        let from = self.next_row_group.max(self.ahead.get());
        let named: u64 = (self.next_row_group..from).map(&bytes).sum();
        if named >= READ_AHEAD / 2 {
            return (from, from);
        }
        let (mut total, mut to) = (named, from);
        while to < self.row_groups.len() && (to == from || total + bytes(to) <= READ_AHEAD) {
            total += bytes(to);
            to += 1;
        }
        self.ahead.set(to);
        (from, to)
    }

    /// The byte ranges of the OffsetIndexes of the columns read (under `fields`) in the row
    /// group `rg_index`.
    fn offset_indexes(&self, rg_index: usize, fields: Option<&[String]>) -> Vec<(u64, u64)> {
        let Some(rg) = self.file.metadata.row_groups.get(rg_index) else { return Vec::new() };
        self.plans(fields)
            .filter_map(|p| rg.columns.get(p.leaf))
            .filter_map(|c| {
                Some((u64::try_from(c.offset_index_offset?).ok()?, u64::try_from(c.offset_index_length?).ok()?))
            })
            .collect()
    }

    /// The columns read, or those of them under the top-level `fields`.
    fn plans<'a>(&'a self, fields: Option<&'a [String]>) -> impl Iterator<Item = &'a ColumnPlan> + 'a {
        self.plans.iter().filter(move |p| fields.is_none_or(|f| f.contains(&self.file.schema.columns[p.leaf].path[0])))
    }

    /// The byte ranges of the column chunks read in the row group `rg_index`.
    fn chunk_ranges(&self, rg_index: usize, padding: bool, fields: Option<&[String]>) -> Vec<(u64, u64)> {
        let file = &self.file;
        let Some(rg) = file.metadata.row_groups.get(rg_index) else { return Vec::new() };
        self.plans(fields)
            .filter_map(|p| {
                let meta = rg.columns.get(p.leaf)?.meta_data.as_ref()?;
                chunk_byte_range(meta, file.source.len(), padding).ok()
            })
            .collect()
    }

    /// The byte ranges of the pages of the row group `rg_index` that hold rows `steps` read:
    /// for each column with a consistent OffsetIndex, its dictionary page and the data pages
    /// overlapping the reads (the reader seeks past the others); for the others, the whole
    /// chunk. The columns' OffsetIndexes are named to the source first: writers keep them
    /// together, so they come in one request (or none, when they lie in the footer's tail).
    fn selected_pages(
        &self,
        rg_index: usize,
        steps: &VecDeque<Step>,
        padding: bool,
        fields: Option<&[String]>,
    ) -> Vec<(u64, u64)> {
        let file = &self.file;
        let Some(rg) = file.metadata.row_groups.get(rg_index) else { return Vec::new() };
        let rows = rg.num_rows.max(0) as usize;
        let mut reads = Vec::new();
        let mut at = 0usize;
        for s in steps {
            match *s {
                Step::Skip(n) => at = at.saturating_add(n),
                Step::Read(n) => {
                    reads.push(at..at.saturating_add(n));
                    at = at.saturating_add(n);
                }
            }
        }
        let chunks: Vec<_> = self.plans(fields).filter_map(|p| rg.columns.get(p.leaf)).collect();
        file.source.prefetch(&self.offset_indexes(rg_index, fields));
        let mut out = Vec::new();
        for chunk in chunks {
            let Some(meta) = chunk.meta_data.as_ref() else { continue };
            let Ok((start, len)) = chunk_byte_range(meta, file.source.len(), padding) else { continue };
            let Some(locations) = page_locations(file.source(), chunk, (start, len), rows) else {
                out.push((start, len));
                continue;
            };
            if let Some(first) = locations.first().filter(|l| l.offset as u64 > start) {
                out.push((start, first.offset as u64 - start)); // the dictionary page
            }
            // Pages and reads both rise: one walk over each.
            let mut r = 0;
            for (i, page) in locations.iter().enumerate() {
                let first = page.first_row_index as usize;
                let end = locations.get(i + 1).map_or(rows, |l| l.first_row_index as usize);
                while r < reads.len() && reads[r].end <= first {
                    r += 1;
                }
                if r < reads.len() && reads[r].start < end {
                    out.push((page.offset as u64, page.compressed_page_size.max(0) as u64));
                }
            }
        }
        out
    }
}
