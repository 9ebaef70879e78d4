//! A filtered read: prune, then decode the candidate rows and keep the matching ones.
//!
//! [`prepare`] binds the predicate to the file, prunes row groups by their statistics and
//! pages by the page index, and rewrites the read's options: the surviving row groups, a
//! row selection of the candidate rows, and the predicate's columns added to the projection
//! if the caller did not ask for them. The reader then reads only those rows (passing over
//! pruned pages unread), and [`Filtering::apply`] evaluates the predicate on each decoded
//! batch, keeps the rows where it is true and drops the added columns.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, FieldRef, SchemaRef};

use super::bind::{arrow_domain, bind, tree, Bound, Node};
use super::evaluate::{find, ArrayPath, DictionaryTests};
use super::expr::Predicate;
use super::late::{Decoded, Late};
use super::literal::{Key, Test};
use super::masks::{self, MaskColumn, Masked};
use super::metrics::ScanMetrics;
use super::page_index::{self, candidate_rows, ChunkPages};
use super::ranges::{well_formed, RowRanges};
use super::select;
use super::statistics::{column_may_match, may_match, Stats};
use super::{bloom, decimals, dictionary, views};
use crate::error::{Error, Result};
use crate::format::{PhysicalType, RowGroup};
use crate::page::chunk_byte_range;
use crate::page::ChunkSource;
use crate::read::{ColumnSelector, ParquetFile, ReadOptions, Step};

/// The predicate of a read in progress: evaluates it on decoded batches.
#[derive(Debug)]
pub(crate) struct Filtering {
    predicate: Predicate,
    bound: Bound,
    /// The tree with literals converted for the batches' Arrow types, split between the
    /// columns read as masks and the rest (set by `attach`).
    arrow: Option<Masked>,
    /// The predicate's columns read as the result of their tests (see [`masks`]).
    masks: Vec<MaskColumn>,
    paths: Vec<ArrayPath>,
    /// The caller's schema: the first fields of the batches read.
    output: SchemaRef,
    metrics: ScanMetrics,
    late: Option<Late>,
    /// The predicate's columns read as dictionaries in its own reads (see
    /// [`dictionary_read_leaves`]).
    dictionary_leaves: Vec<usize>,
    /// Tests on dictionary values, kept across the batches of a chunk.
    tests: DictionaryTests,
    /// Row groups kept by their statistics whose dictionaries are tried when the read
    /// reaches them (see `deferrable`), in order.
    deferred: Vec<usize>,
    /// Row groups whose first pass of late materialization found a match.
    late_matched: usize,
}

/// Binds `predicate` to `file`, prunes, and returns the options that read the candidate
/// rows and the state that filters them.
pub(crate) fn prepare<S: ChunkSource>(
    file: &ParquetFile<S>,
    mut options: ReadOptions,
    predicate: &Predicate,
) -> Result<(ReadOptions, Filtering)> {
    let meta = file.metadata();
    let bound = bind(predicate, file.schema_descriptor(), meta.column_orders.as_deref())?;
    let mut metrics = ScanMetrics::default();
    let mut starts = Vec::with_capacity(meta.row_groups.len());
    let mut at = 0u64;
    for rg in &meta.row_groups {
        starts.push(at);
        at = at.saturating_add(rg.num_rows.max(0) as u64);
    }
    let row_groups = options.row_groups.clone().unwrap_or_else(|| (0..meta.row_groups.len()).collect());
    // Each pass prunes what it can and names to the source what the next one reads, for
    // every row group left at once: a remote source fetches those ranges merged and
    // concurrently, rather than a request per row group and column, one after the other.
    // Statistics (in the footer) first.
    let (mut kept, mut candidates, mut pruned_pages) = (Vec::new(), Vec::new(), false);
    let mut left: Vec<(usize, Option<Vec<Stats>>)> = Vec::with_capacity(row_groups.len());
    for &index in &row_groups {
        let Some(rg) = meta.row_groups.get(index) else {
            left.push((index, None)); // the reader reports it
            continue;
        };
        let rows = rg.num_rows.max(0) as u64;
        metrics.row_groups_total += 1;
        metrics.rows_total += rows;
        let stats = chunk_stats(&bound, rg);
        let mut by_stats =
            |i: usize, test: &Test, negated: bool| column_may_match(&bound.columns, i, test, negated, &stats[i]);
        if !may_match(&bound.parquet, false, &mut by_stats) {
            metrics.row_groups_pruned += 1;
            continue;
        }
        left.push((index, Some(stats)));
    }
    // A row group whose only structure to read is a small chunk whole is checked when the
    // read reaches it (see `deferrable`): its chunk then comes in the request that fetches the
    // row group's other columns, not in a request of its own up front.
    let deferred: Vec<usize> = left
        .iter()
        .filter(|(_, s)| s.is_some())
        .map(|&(index, _)| index)
        .filter(|&index| deferrable(&bound, &meta.row_groups[index]))
        .collect();
    let mut deferred = deferred;
    deferred.sort_unstable();
    deferred.dedup();
    let deferred = deferred;
    let survivors = || {
        left.iter()
            .filter(|(index, s)| s.is_some() && deferred.binary_search(index).is_err())
            .map(|&(index, _)| &meta.row_groups[index])
    };
    file.source().prefetch(&prune_structures(&bound, survivors()));
    // Dictionaries and bloom filters.
    let mut kept_left: Vec<usize> = Vec::with_capacity(left.len());
    for (index, stats) in left {
        let Some(stats) = stats else {
            kept_left.push(index);
            continue;
        };
        if deferred.binary_search(&index).is_ok() {
            kept_left.push(index);
            continue;
        }
        match rule_out(file, &bound, &meta.row_groups[index], &stats, &mut metrics) {
            Ruled::Kept => kept_left.push(index),
            Ruled::ByDictionary => metrics.row_groups_pruned_by_dictionary += 1,
            Ruled::ByBloom => metrics.row_groups_pruned_by_bloom_filter += 1,
        }
    }
    // The page indexes of the row groups kept.
    let present = || kept_left.iter().filter_map(|&index| meta.row_groups.get(index));
    file.source().prefetch(&page_index::ranges(&bound.columns, present()));
    for index in kept_left {
        kept.push(index);
        let Some(rg) = meta.row_groups.get(index) else { continue };
        let rows = rg.num_rows.max(0) as u64;
        let chunk = |i: usize| rg.columns.get(bound.columns[i].leaf);
        let pages: Vec<Option<ChunkPages>> = (0..bound.columns.len())
            .map(|i| {
                let c = chunk(i)?;
                page_index::read(file.source(), c, &bound.columns[i], rows, &mut metrics.index_bytes_read)
            })
            .collect();
        let rows_left = candidate_rows(&bound.parquet, false, &bound.columns, &|i| pages[i].as_ref(), rows);
        for p in pages.iter().flatten() {
            metrics.pages_total += p.pages.len();
            for ((r, _), bytes) in p.pages.iter().zip(&p.bytes) {
                if !rows_left.overlaps(r) {
                    metrics.pages_pruned += 1;
                    metrics.page_bytes_pruned += bytes;
                }
            }
        }
        pruned_pages |= rows_left.rows() < rows;
        let start = starts[index];
        candidates.extend(rows_left.0.into_iter().map(|r| r.start + start..r.end + start));
    }
    candidates.sort_by_key(|r| r.start);
    let candidates = RowRanges::from_sorted(candidates);
    metrics.rows_candidate = candidates.rows();
    match options.row_selection.take() {
        // A selection the reader will refuse is left for it to report.
        Some(user) if !well_formed(&user) => options.row_selection = Some(user),
        Some(user) => {
            let both = RowRanges(user).intersect(&candidates);
            metrics.rows_candidate = both.rows();
            options.row_selection = Some(both.0);
        }
        None if pruned_pages => options.row_selection = Some(candidates.0),
        None => {}
    }
    // The caller's columns, then those of the predicate's top-level fields not among them.
    let probe =
        ReadOptions { row_groups: Some(Vec::new()), row_selection: None, threads: 1, filter: None, ..options.clone() };
    let output = file.batches(probe)?.schema();
    if let Some(columns) = &mut options.columns {
        for c in &bound.columns {
            let top = &file.schema_descriptor().columns[c.leaf].path[0];
            if output.fields().iter().all(|f| f.name() != top) && !columns.contains(&ColumnSelector::Name(top.clone()))
            {
                columns.push(ColumnSelector::Name(top.clone()));
            }
        }
    }
    // String columns whose chunks left are all dictionary-encoded are read as dictionaries
    // where only the filter reads them: each test then runs once per dictionary value, not
    // once per row, and no string is copied out of the dictionary.
    let dictionary_leaves = dictionary_read_leaves(file, &bound, &kept);
    options.dictionary_leaves = dictionary_leaves
        .iter()
        .copied()
        .filter(|&leaf| output.fields().iter().all(|f| f.name() != &file.schema_descriptor().columns[leaf].path[0]))
        .collect();
    // Of those, the ones whose conjuncts test them alone are read as the conjuncts' result:
    // the reader looks it up from the dictionary indexes without building keys.
    let masks = masks::plan(&bound, &options.dictionary_leaves);
    options.dictionary_masks = masks::read_options(file, &masks);
    metrics.columns_read_as_dictionaries = options.dictionary_leaves.len();
    metrics.columns_read_as_masks = options.dictionary_masks.len();
    options.narrow_decimal_leaves = decimals::narrow_leaves(file.schema_descriptor(), &output, &bound);
    options.row_groups = Some(kept);
    let filtering = Filtering {
        predicate: predicate.clone(),
        bound,
        arrow: None,
        masks,
        paths: Vec::new(),
        output,
        metrics,
        late: None,
        dictionary_leaves,
        tests: DictionaryTests::default(),
        deferred,
        late_matched: 0,
    };
    Ok((options, filtering))
}

/// The predicate's flat BYTE_ARRAY columns whose chunk is all dictionary-encoded in every
/// row group of `kept` (as their `encoding_stats` say): reading those as `Dictionary` costs
/// their keys only. A chunk that falls back to PLAIN would make each batch carry its own
/// values array, so a column with one such chunk is read as the caller would.
fn dictionary_read_leaves<S: ChunkSource>(file: &ParquetFile<S>, bound: &Bound, kept: &[usize]) -> Vec<usize> {
    let meta = file.metadata();
    let mut out: Vec<usize> = Vec::new();
    for c in &bound.columns {
        let flat = file.schema_descriptor().columns.get(c.leaf).is_some_and(|d| d.path.len() == 1);
        if c.physical != PhysicalType::BYTE_ARRAY || !flat || out.contains(&c.leaf) || kept.is_empty() {
            continue;
        }
        let all = kept.iter().all(|&rg| {
            let chunk = meta.row_groups.get(rg).and_then(|r| r.columns.get(c.leaf));
            chunk.and_then(|c| c.meta_data.as_ref()).is_some_and(dictionary::all_dictionary)
        });
        if all {
            out.push(c.leaf);
        }
    }
    out
}

/// The statistics of the predicate's columns in the row group `rg`.
fn chunk_stats(bound: &Bound, rg: &RowGroup) -> Vec<Stats> {
    let rows = rg.num_rows.max(0) as u64;
    let stats = |i: usize| {
        let chunk = rg.columns.get(bound.columns[i].leaf);
        let s = chunk.and_then(|c| c.meta_data.as_ref()).and_then(|m| m.statistics.as_ref());
        Stats::of_chunk(&bound.columns[i], s, rows)
    };
    (0..bound.columns.len()).map(stats).collect()
}

/// What ruled a row group out after its statistics did not.
enum Ruled {
    Kept,
    ByDictionary,
    ByBloom,
}

/// Tries the row group `rg` (which its statistics `stats` kept) against the dictionaries and
/// bloom filters of the predicate's columns, each read only for a test it can decide and
/// once per column; counts the bytes read in `metrics`.
fn rule_out<S: ChunkSource>(
    file: &ParquetFile<S>,
    bound: &Bound,
    rg: &RowGroup,
    stats: &[Stats],
    metrics: &mut ScanMetrics,
) -> Ruled {
    let mut bloom_bytes = 0u64;
    let chunk = |i: usize| rg.columns.get(bound.columns[i].leaf);
    let by_stats = |i: usize, test: &Test, negated: bool| column_may_match(&bound.columns, i, test, negated, &stats[i]);
    // Dictionaries, loaded only for the tests they can decide, once per column.
    let mut dictionaries: Vec<Option<Option<Vec<Key>>>> = vec![None; bound.columns.len()];
    let mut by_dictionary = |i: usize, test: &Test, negated: bool| {
        if !by_stats(i, test, negated) {
            return false;
        }
        if !dictionary::worth_it(test, negated) {
            return true;
        }
        let values = dictionaries[i].get_or_insert_with(|| {
            let c = chunk(i)?;
            dictionary::values(file.source(), c, &bound.columns[i], &mut metrics.dictionary_bytes_read)
        });
        values.as_ref().is_none_or(|v| dictionary::any_matches(v, test, negated))
    };
    if !may_match(&bound.parquet, false, &mut by_dictionary) {
        return Ruled::ByDictionary;
    }
    // Bloom filters, for equality on columns without a dictionary that decides.
    let mut blooms: Vec<Option<Option<bloom::Sbbf>>> = vec![None; bound.columns.len()];
    let mut by_bloom = |i: usize, test: &Test, negated: bool| {
        if !by_dictionary(i, test, negated) {
            return false;
        }
        if !bloom::worth_it(test, negated) {
            return true;
        }
        let filter = blooms[i].get_or_insert_with(|| bloom::read(file.source(), chunk(i)?, &mut bloom_bytes));
        filter.as_ref().is_none_or(|f| f.any_may_match(&bound.columns[i], test))
    };
    let pruned = !may_match(&bound.parquet, false, &mut by_bloom);
    metrics.bloom_filter_bytes_read += bloom_bytes;
    match pruned {
        true => Ruled::ByBloom,
        false => Ruled::Kept,
    }
}

/// The size of a column chunk below which pruning by its dictionary fetches the whole chunk
/// rather than its dictionary page: about what a request to an object store costs in bytes.
const SMALL_CHUNK: u64 = 1 << 20;

/// The byte ranges of the dictionary pages and bloom filters that pruning may read in the
/// row groups `rgs` (see [`structures`]).
fn prune_structures<'a>(bound: &Bound, rgs: impl Iterator<Item = &'a RowGroup>) -> Vec<(u64, u64)> {
    rgs.flat_map(|rg| structures(bound, rg)).map(|(range, _)| range).collect()
}

/// Whether pruning the row group `rg` by dictionaries waits until the read reaches it: the
/// structures it reads are all small chunks read whole (a dictionary of a chunk under
/// [`SMALL_CHUNK`]), which the read takes anyway if the row group is kept. Checked up front,
/// each costs a request of its own on an object store (the `l_shipmode` of TPC-H's
/// `lineitem`, 43 KiB a row group: a request per row group before the read, which then makes
/// its own); checked on the way, it comes in the read's request for the row group's other
/// columns, and only those bytes are lost when the dictionary rules the row group out.
fn deferrable(bound: &Bound, rg: &RowGroup) -> bool {
    let read = structures(bound, rg);
    !read.is_empty() && read.iter().all(|(_, whole)| *whole)
}

/// The byte ranges of the dictionary pages and bloom filters that pruning may read in the
/// row group `rg`: those of the predicate's columns with a test they can decide (where the
/// footer says exactly where they lie); each with whether it is a small chunk whole.
fn structures(bound: &Bound, rg: &RowGroup) -> Vec<((u64, u64), bool)> {
    let (mut dictionaries, mut blooms) = (vec![false; bound.columns.len()], vec![false; bound.columns.len()]);
    each_leaf(&bound.parquet, false, &mut |i, test, negated| {
        dictionaries[i] |= dictionary::worth_it(test, negated);
        blooms[i] |= bloom::worth_it(test, negated);
    });
    let mut out = Vec::new();
    for (i, c) in bound.columns.iter().enumerate() {
        let Some(meta) = rg.columns.get(c.leaf).and_then(|chunk| chunk.meta_data.as_ref()) else { continue };
        if dictionaries[i] {
            // A small chunk whole: if the row group is kept its pages are read next, and
            // for the bytes a request costs; a large one, its dictionary page alone.
            match chunk_byte_range(meta, u64::MAX, false) {
                Ok(whole) if whole.1 <= SMALL_CHUNK && dictionary::page_range(meta).is_some() => {
                    out.push((whole, true))
                }
                _ => out.extend(dictionary::page_range(meta).map(|(at, len)| ((at, len as u64), false))),
            }
        }
        if let (true, Some(at), Some(len)) = (blooms[i], meta.bloom_filter_offset, meta.bloom_filter_length) {
            out.extend(u64::try_from(at).ok().zip(u64::try_from(len).ok()).map(|r| (r, false)));
        }
    }
    out
}

/// Calls `f` with each leaf of `node`: its column, test, and whether it is negated.
fn each_leaf(node: &Node, negated: bool, f: &mut dyn FnMut(usize, &Test, bool)) {
    match node {
        Node::And(a, b) | Node::Or(a, b) => {
            each_leaf(a, negated, f);
            each_leaf(b, negated, f);
        }
        Node::Not(p) => each_leaf(p, !negated, f),
        Node::Leaf(i, test) => f(*i, test, negated),
    }
}

impl Filtering {
    /// Finds the predicate's columns in the schema of the batches read (`read`) and converts
    /// its literals for their Arrow types.
    pub(crate) fn attach(
        mut self,
        read: &SchemaRef,
        leaf_paths: &[Vec<String>],
        options: &ReadOptions,
    ) -> Result<Filtering> {
        let k = self.output.fields().len();
        let same = |a: &FieldRef, b: &FieldRef| {
            a == b
                || (a.name() == b.name()
                    && a.is_nullable() == b.is_nullable()
                    && decimals::widens(a.data_type(), b.data_type()))
        };
        if read.fields().len() < k || read.fields().iter().zip(self.output.fields()).any(|(a, b)| !same(a, b)) {
            return Err(Error::unsupported(format!(
                "filter: the predicate's columns ({}) are inside a field of which only part is selected; \
                 select the whole field or the predicate's column too",
                self.predicate.columns().join(", ")
            )));
        }
        let mut types = Vec::new();
        for c in &self.bound.columns {
            let parts = &leaf_paths[c.leaf];
            let missing = || Error::invalid_argument(format!("filter: column '{}' is not in the batches read", c.path));
            let column = read.fields().iter().position(|f| f.name() == &parts[0]).ok_or_else(missing)?;
            let mut t = read.field(column).data_type().clone();
            for name in &parts[1..] {
                let DataType::Struct(fields) = &t else { return Err(missing()) };
                t = fields.iter().find(|f| f.name() == name).ok_or_else(missing)?.data_type().clone();
            }
            // A column read as a mask is tested on its dictionary's values, bytes.
            if self.masks.iter().any(|m| m.leaf == c.leaf) {
                t = DataType::Binary;
            }
            let domain = arrow_domain(&t).ok_or_else(|| {
                Error::unsupported(format!(
                    "filter: column '{}' is read as {t}, which a filter cannot test yet",
                    c.path
                ))
            })?;
            types.push(domain);
            self.paths.push(ArrayPath { column, fields: parts[1..].to_vec() });
        }
        let paths: Vec<&str> = self.bound.columns.iter().map(|c| c.path.as_str()).collect();
        let full = tree(&self.predicate, &paths, &|i| Ok(types[i]))?;
        self.arrow = Some(match self.masks.is_empty() {
            true => Masked::plain(full),
            false => masks::split(&full, self.bound.columns.len(), &self.masks, &self.bound)?,
        });
        let columns: Vec<(usize, Vec<String>)> =
            self.bound.columns.iter().map(|c| (c.leaf, leaf_paths[c.leaf].clone())).collect();
        self.late = Late::new(read, &columns, leaf_paths, options, &self.dictionary_leaves);
        Ok(self)
    }

    /// With late materialization, reads the predicate's columns of row group `index` (first
    /// row `start`) at the rows `steps` read and returns the steps that read only the
    /// matching rows, with the flat predicate columns decoded at those rows (leaf, array);
    /// otherwise `steps` as they are.
    pub(crate) fn narrow<S: ChunkSource>(
        &mut self,
        file: &ParquetFile<S>,
        index: usize,
        start: u64,
        steps: VecDeque<Step>,
    ) -> Result<(VecDeque<Step>, Decoded)> {
        let (Some(late), Some(tree)) = (self.late.as_mut(), self.arrow.as_ref()) else {
            return Ok((steps, Vec::new()));
        };
        if !late.active() || steps.is_empty() {
            return Ok((steps, Vec::new()));
        }
        let narrowed = late.narrow(file, tree, index, start, &steps)?;
        self.metrics.late_row_groups += 1;
        self.late_matched += usize::from(!narrowed.steps.is_empty());
        self.metrics.predicate_rows_decoded += narrowed.decoded;
        Ok((narrowed.steps, narrowed.columns))
    }

    /// Whether the row group `index`, whose dictionaries pruning left for the read (see
    /// `deferrable`), is ruled out by them now; `rows` of it were candidates. Row groups
    /// checked up front are not checked again.
    pub(crate) fn rule_out_deferred<S: ChunkSource>(&mut self, file: &ParquetFile<S>, index: usize, rows: u64) -> bool {
        let Ok(at) = self.deferred.binary_search(&index) else { return false };
        self.deferred.remove(at);
        let Some(rg) = file.metadata().row_groups.get(index) else { return false };
        let stats = chunk_stats(&self.bound, rg);
        let pruned = match rule_out(file, &self.bound, rg, &stats, &mut self.metrics) {
            Ruled::Kept => return false,
            Ruled::ByDictionary => &mut self.metrics.row_groups_pruned_by_dictionary,
            Ruled::ByBloom => &mut self.metrics.row_groups_pruned_by_bloom_filter,
        };
        *pruned += 1;
        self.metrics.rows_candidate = self.metrics.rows_candidate.saturating_sub(rows);
        true
    }

    /// Whether a row group's first pass is better fetched together with the other columns
    /// at its candidate rows, what its second pass reads if the row group has matches:
    /// while at least half of the row groups read so far had one (and before any was read).
    /// A row group without a match then costs the other columns' bytes for nothing, and
    /// one with matches a request less.
    pub(crate) fn expects_matches(&self) -> bool {
        2 * self.late_matched >= self.metrics.late_row_groups
    }

    /// The schema of the filtered batches (the caller's columns).
    pub(crate) fn schema(&self) -> SchemaRef {
        Arc::clone(&self.output)
    }

    /// The top-level fields the next row group's first read takes for sure: with late
    /// materialization on, the predicate's (read at every candidate row); `None` when it is
    /// off, and every column is read at the candidate rows.
    pub(crate) fn first_pass_fields(&self, schema: &crate::schema::SchemaDescriptor) -> Option<Vec<String>> {
        self.late.as_ref().filter(|l| l.active())?;
        let mut tops: Vec<String> = self.bound.columns.iter().map(|c| schema.columns[c.leaf].path[0].clone()).collect();
        tops.dedup();
        Some(tops)
    }

    /// Whether what the first pass reads is settled: late materialization off, or on past the
    /// row groups that decide whether it stays on. Until then a read names one row group
    /// ahead: if it switches off, the columns it named apart would cost a request apart.
    pub(crate) fn first_pass_settled(&self) -> bool {
        self.late.as_ref().is_none_or(|l| l.settled(self.metrics.late_row_groups))
    }

    /// What was pruned and read so far.
    pub(crate) fn metrics(&self) -> &ScanMetrics {
        &self.metrics
    }

    /// The rows of `batch` where the predicate is true, with the caller's columns only;
    /// `None` if no row matched.
    pub(crate) fn apply(&mut self, batch: RecordBatch) -> Result<Option<RecordBatch>> {
        let Some(tree) = &self.arrow else { return Err(Error::invalid_argument("filter: not attached to a read")) };
        let rows = batch.num_rows();
        let arrays = self.paths.iter().map(|p| find(batch.columns(), p)).collect::<Result<Vec<_>>>()?;
        let keep = tree.evaluate(&arrays, rows, &mut self.tests)?;
        let matched = keep.count_set_bits();
        self.metrics.rows_decoded += rows as u64;
        self.metrics.rows_selected += matched as u64;
        if matched == 0 {
            return Ok(None);
        }
        let k = self.output.fields().len();
        let batch = match batch.num_columns() > k {
            true => batch
                .project(&(0..k).collect::<Vec<_>>())
                .map_err(|e| Error::invalid_argument(format!("filter: {e}")))?,
            false => batch,
        };
        let batch = match matched == rows {
            true => batch,
            false => select::select(&batch, &keep, &self.output)?,
        };
        views::compact(decimals::widen(batch, &self.output)?).map(Some)
    }
}
