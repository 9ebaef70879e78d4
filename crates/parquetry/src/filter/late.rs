//! Late materialization: in each row group, the predicate's columns are read first (at the
//! candidate rows pruning left), the predicate is evaluated on them, and the row group's
//! reads are narrowed to the matching rows. The other columns are then decoded only there:
//! pages without a match are passed over unread, and inside a page the rows between matches
//! are skipped in bulk. The predicate's flat columns are not decoded twice: the first pass
//! keeps their rows that the second pass reads ([`Narrowed::columns`]), and the second pass
//! hands those out.
//!
//! It pays when the predicate is selective and there are other columns to read. Where it
//! does not (most candidate rows match, or the output has no column the predicate does not
//! read), reading everything at the candidate rows and filtering the decoded batches costs
//! less, so it is switched off: up front when the predicate's columns are all the output's,
//! and after [`DENSE_LIMIT`] row groups in a row whose second pass would have decoded most
//! candidate rows anyway (matches that many, or closer together than the merge gap: see
//! [`MERGE_GAP`] and [`CHEAP_SKIP_GAP`]).

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, BooleanArray};
use arrow_buffer::BooleanBufferBuilder;
use arrow_schema::SchemaRef;

use super::dictionary::all_dictionary;
use super::evaluate::{find, ArrayPath, DictionaryTests};
use super::masks::Masked;
use super::ranges::RowRanges;
use crate::error::{Error, Result};
use crate::format::PhysicalType;
use crate::page::ChunkSource;
use crate::read::{ColumnSelector, ParquetFile, ReadOptions, Step};

/// Dense row groups in a row after which late materialization stops for the read.
const DENSE_LIMIT: usize = 2;

/// Rows between two matches below which the rows are read rather than skipped, where some
/// column the second pass decodes walks every row it skips: each skip and read is a step in
/// every column, and on the `strings` data (2M rows, 64 KiB pages) matches at 1-2% of rows
/// spread evenly made the second pass slower than reading every column whole (0.29 s against
/// 0.14 s); joining gaps under 256 or 1,024 rows brought it to the whole read's time, with the
/// same time for rare matches (0.07-0.09 s). PLAIN strings are such columns: a skip reads
/// every length it passes, so passing over a row costs about what reading it as a view does
/// (`category_eq`, `is_null`: 96 and 64 ms of CPU at this gap, 100 and 69 at gaps of 0-64).
const MERGE_GAP: u64 = 1024;

/// The gap where every column the second pass decodes skips rows without visiting them
/// (fixed-width values and dictionary indexes, flat): a skip of a dictionary-encoded or
/// PLAIN fixed-width column moves over whole bit-packed groups or bytes, and a step costs
/// about what decoding a few dozen rows does. Matches every ~100-340 rows on TPC-H lineitem
/// (`partkey_range`, `date_range_unsorted`): 101/98/101/100/103/115 and 80/81/80/80/88/80 ms
/// of CPU at gaps 0/8/16/32/64/128, against 104 and 92 at [`MERGE_GAP`].
const CHEAP_SKIP_GAP: u64 = 32;

/// A match fraction above which a row group counts as dense.
const DENSE_FRACTION: f64 = 0.5;

/// The state of late materialization in a read.
#[derive(Debug)]
pub(crate) struct Late {
    /// Each bound column's leaf, and its place below its top-level field.
    fields: Vec<(usize, String, Vec<String>)>,
    /// Dense row groups seen in a row.
    dense: usize,
    /// The first pass's options, besides columns and rows.
    options: ReadOptions,
    /// The leaf columns the second pass decodes (the output's, less the predicate's flat
    /// ones, which are handed over from the first pass).
    second: Vec<usize>,
}

/// Flat predicate columns decoded by a first pass, by leaf column, at the rows the second
/// pass reads.
pub(crate) type Decoded = Vec<(usize, ArrayRef)>;

/// What the first pass of a row group did.
pub(crate) struct Narrowed {
    /// The steps through the row group for the second pass.
    pub steps: VecDeque<Step>,
    /// Rows of the predicate's columns decoded.
    pub decoded: u64,
    /// The flat predicate columns (leaf, array) at the rows `steps` read, for the second
    /// pass to take rather than decode again.
    pub columns: Decoded,
}

impl Late {
    /// Late materialization for a read whose batches have schema `read`, or `None` where it
    /// cannot pay (every column read is one the predicate reads).
    /// Its first pass reads the string columns `dictionary_leaves` as dictionaries.
    /// `leaf_paths`: every leaf column's path in the file.
    pub(crate) fn new(
        read: &SchemaRef,
        columns: &[(usize, Vec<String>)],
        leaf_paths: &[Vec<String>],
        options: &ReadOptions,
        dictionary_leaves: &[usize],
    ) -> Option<Late> {
        let mut tops: Vec<String> = Vec::new();
        for (_, path) in columns {
            if !tops.contains(&path[0]) {
                tops.push(path[0].clone());
            }
        }
        if read.fields().iter().all(|f| tops.contains(f.name())) {
            return None;
        }
        let fields = columns.iter().map(|(leaf, p)| (*leaf, p[0].clone(), p[1..].to_vec())).collect();
        let options = ReadOptions {
            columns: Some(tops.iter().map(|t| ColumnSelector::Name(t.clone())).collect()),
            row_groups: None,
            row_selection: None,
            filter: None,
            threads: 1,
            batch_size: 64 * 1024,
            dictionary_leaves: dictionary_leaves.to_vec(),
            ..options.clone()
        };
        let flat = |leaf: usize| columns.iter().any(|(l, p)| *l == leaf && p.len() == 1);
        let second = (0..leaf_paths.len())
            .filter(|&leaf| !flat(leaf) && read.fields().iter().any(|f| f.name() == &leaf_paths[leaf][0]))
            .collect();
        Some(Late { fields, dense: 0, options, second })
    }

    /// The gap below which matches in row group `index` are read as one range: small where
    /// every column the second pass decodes skips without visiting the rows it passes over
    /// (flat, and fixed-width or wholly dictionary-encoded, as the chunk's `encoding_stats`
    /// say), [`MERGE_GAP`] otherwise.
    fn merge_gap<S: ChunkSource>(&self, file: &ParquetFile<S>, index: usize) -> u64 {
        let schema = file.schema_descriptor();
        let Some(rg) = file.metadata().row_groups.get(index) else { return MERGE_GAP };
        let cheap = |leaf: usize| {
            let (Some(column), Some(meta)) =
                (schema.columns.get(leaf), rg.columns.get(leaf).and_then(|c| c.meta_data.as_ref()))
            else {
                return false;
            };
            column.max_rep_level == 0 && (column.physical_type != PhysicalType::BYTE_ARRAY || all_dictionary(meta))
        };
        match self.second.iter().all(|&leaf| cheap(leaf)) {
            true => CHEAP_SKIP_GAP,
            false => MERGE_GAP,
        }
    }

    /// Whether the read has seen enough row groups (`seen` of them) to have decided whether
    /// late materialization pays: it stops only after [`DENSE_LIMIT`] dense ones in a row.
    pub(crate) fn settled(&self, seen: usize) -> bool {
        !self.active() || seen >= DENSE_LIMIT
    }

    /// Whether the read still uses late materialization.
    pub(crate) fn active(&self) -> bool {
        self.dense < DENSE_LIMIT
    }

    /// Reads the predicate's columns of row group `index` (whose first row is `start` in the
    /// file) at the rows `steps` read, and returns the steps that read only the rows where
    /// `tree` is true.
    pub(crate) fn narrow<S: ChunkSource>(
        &mut self,
        file: &ParquetFile<S>,
        tree: &Masked,
        index: usize,
        start: u64,
        steps: &VecDeque<Step>,
    ) -> Result<Narrowed> {
        let mut candidates: Vec<Range<u64>> = Vec::new();
        let mut at = start;
        for s in steps {
            match *s {
                Step::Skip(n) => at += n as u64,
                Step::Read(n) => {
                    candidates.push(at..at + n as u64);
                    at += n as u64;
                }
            }
        }
        let total: u64 = candidates.iter().map(|r| r.end - r.start).sum();
        let options = ReadOptions {
            row_groups: Some(vec![index]),
            row_selection: Some(candidates.clone()),
            ..self.options.clone()
        };
        let mut matched: Vec<Range<u64>> = Vec::new();
        // Batch rows are the candidate rows in order: `seen` of them came before this batch,
        // and the candidate ranges before `range` hold `base` rows.
        let (mut range, mut base, mut seen) = (0usize, 0u64, 0u64);
        let len = |r: &Range<u64>| r.end - r.start;
        // A row group's first pass reads each chunk's dictionary once, in its own read.
        let mut tests = DictionaryTests::default();
        // The flat columns' arrays, batch after batch, kept for the second pass.
        let mut flat: Vec<(usize, Vec<ArrayRef>)> = Vec::new();
        for (leaf, _, fields) in &self.fields {
            if fields.is_empty() && flat.iter().all(|(l, _)| l != leaf) {
                flat.push((*leaf, Vec::new()));
            }
        }
        for batch in file.batches(options)? {
            let batch = batch?;
            let schema = batch.schema();
            let paths = self
                .fields
                .iter()
                .map(|(_, top, fields)| ArrayPath {
                    column: schema.fields().iter().position(|f| f.name() == top).unwrap_or(usize::MAX),
                    fields: fields.clone(),
                })
                .collect::<Vec<_>>();
            let arrays = paths.iter().map(|p| find(batch.columns(), p)).collect::<Result<Vec<_>>>()?;
            for (leaf, kept) in flat.iter_mut() {
                if let Some(at) = self.fields.iter().position(|(l, _, _)| l == leaf) {
                    kept.push(Arc::clone(&arrays[at].0));
                }
            }
            let keep = tree.evaluate(&arrays, batch.num_rows(), &mut tests)?;
            for i in keep.set_indices() {
                let k = seen + i as u64;
                while range < candidates.len() && k >= base + len(&candidates[range]) {
                    base += len(&candidates[range]);
                    range += 1;
                }
                let Some(r) = candidates.get(range) else {
                    return Err(Error::corrupt(format!("row group {index}: more rows read than selected")));
                };
                let row = r.start + (k - base);
                match matched.last_mut() {
                    Some(m) if m.end == row => m.end += 1,
                    _ => matched.push(row..row + 1),
                }
            }
            seen += batch.num_rows() as u64;
        }
        let matched = RowRanges::from_sorted(matched);
        // Matches closer than the gap are read as one range (the rows between them are
        // filtered out after decoding).
        let gap = self.merge_gap(file, index);
        let joined = RowRanges::from_sorted(matched.0.into_iter().map(|r| r.start..r.end + gap));
        let joined = RowRanges(joined.0.into_iter().map(|r| r.start..r.end - gap).collect());
        // Never past the candidates: rows outside them are outside the caller's selection.
        let matched = joined.intersect(&RowRanges::from_sorted(candidates.iter().cloned()));
        // Dense: the second pass would decode most of the candidate rows anyway (matches
        // that many, or that close together), so the first pass is a cost without a return.
        let dense = total > 0 && matched.rows() as f64 > DENSE_FRACTION * total as f64;
        self.dense = if dense { self.dense + 1 } else { 0 };
        let mut out = VecDeque::new();
        let mut at = start;
        for r in &matched.0 {
            if r.start > at {
                out.push_back(Step::Skip((r.start - at) as usize));
            }
            out.push_back(Step::Read((r.end - r.start) as usize));
            at = r.end;
        }
        let columns = match out.is_empty() {
            true => Vec::new(),
            false => kept_rows(&candidates, &matched, seen as usize, flat)?,
        };
        Ok(Narrowed { steps: out, decoded: total, columns })
    }
}

/// The first pass's arrays of each flat column (`flat`: leaf, arrays batch after batch,
/// `rows` rows at the `candidates` in order) at the rows of `read`, the second pass's ranges
/// (within the candidates). Empty if the arrays do not hold the candidates' rows.
fn kept_rows(
    candidates: &[Range<u64>],
    read: &RowRanges,
    rows: usize,
    flat: Vec<(usize, Vec<ArrayRef>)>,
) -> Result<Decoded> {
    // Whether each candidate row, in order, is one the second pass reads.
    let mut keep = BooleanBufferBuilder::new(rows);
    let mut next = read.0.iter().peekable();
    for c in candidates {
        let mut at = c.start;
        while at < c.end {
            while next.peek().is_some_and(|r| r.end <= at) {
                next.next();
            }
            let (end, kept) = match next.peek() {
                Some(r) if r.start <= at => (r.end.min(c.end), true),
                Some(r) => (r.start.min(c.end), false),
                None => (c.end, false),
            };
            keep.append_n((end - at) as usize, kept);
            at = end;
        }
    }
    let keep = keep.finish();
    let wanted = read.rows() as usize;
    let mut out = Vec::with_capacity(flat.len());
    for (leaf, arrays) in flat {
        if keep.len() != rows || arrays.iter().map(|a| a.len()).sum::<usize>() != rows {
            return Ok(Vec::new());
        }
        let mut parts: Vec<ArrayRef> = Vec::with_capacity(arrays.len());
        let mut at = 0;
        for a in arrays {
            let mask = BooleanArray::new(keep.slice(at, a.len()), None);
            at += a.len();
            parts.push(match mask.true_count() {
                0 => continue,
                n if n == a.len() => a,
                _ => arrow_select::filter::filter(&a, &mask)
                    .map_err(|e| Error::invalid_argument(format!("filter: keeping decoded rows: {e}")))?,
            });
        }
        let array = match parts.as_slice() {
            [one] => Arc::clone(one),
            _ => {
                let parts: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                arrow_select::concat::concat(&parts)
                    .map_err(|e| Error::invalid_argument(format!("filter: joining decoded rows: {e}")))?
            }
        };
        if array.len() != wanted {
            return Ok(Vec::new());
        }
        out.push((leaf, array));
    }
    Ok(out)
}
