//! Merging Parquet files without decoding values: [`merge`] writes the rows of many inputs
//! (same schema) as one file, copying big row groups whole and coalescing runs of small ones
//! page by page; [`merge_files`] does it into a path safely (temporary file + rename).
//!
//! Per output column chunk, pages are copied as they are; dictionary-encoded pages get their
//! indexes remapped into one unified dictionary (each input dictionary value hashed once);
//! past the dictionary page limit, later inputs' dictionary pages become PLAIN pages. Chunk
//! statistics, size statistics and column indexes are merged from the inputs' own; offset
//! indexes are rebuilt; bloom filters are kept for chunks copied whole and unioned for
//! coalesced ones (`bloom`). Memory stays about one output column chunk
//! (chunks are built one column at a time) and one open input file at a time.

mod bloom;
mod chunk;
mod copy;
mod dictionary;
mod inputs;
mod statistics;

pub use chunk::PageCounts;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::compress::{Codec, Compression, Compressor};
use crate::error::{Error, Result};
use crate::format::{thrift, ColumnChunk, ColumnIndex, ColumnMetaData, FileMetaData, OffsetIndex};
use crate::io::{ChunkParts, FileAssembler, FileSink};
use crate::page::{chunk_byte_range, has_parquet_816_bug, ChunkSource};
use crate::schema::SchemaDescriptor;
use crate::schema::SortOrder;
use chunk::ChunkMerger;
use inputs::{check_schema, plan, Group, Input};
use statistics::StatisticsMerger;

/// How to merge: row group targets, recompression, the dictionary limit and threads, set
/// with the `with_*` methods (the same style as [`crate::write::WriteOptions`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MergeOptions {
    pub(crate) row_group_rows: u64,
    pub(crate) row_group_bytes: u64,
    pub(crate) compression: Option<Compression>,
    pub(crate) dictionary_page_size_limit: usize,
    pub(crate) threads: usize,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            row_group_rows: 1 << 20,
            row_group_bytes: 128 << 20,
            compression: None,
            dictionary_page_size_limit: 1 << 20,
            threads: 1,
        }
    }
}

impl MergeOptions {
    /// Target rows per output row group (default 1,048,576).
    pub fn with_row_group_rows(mut self, rows: u64) -> Self {
        self.row_group_rows = rows;
        self
    }

    /// Target bytes (as stored) per output row group (default 128 MiB).
    pub fn with_row_group_bytes(mut self, bytes: u64) -> Self {
        self.row_group_bytes = bytes;
        self
    }

    /// Recompresses every page with this codec and level. Without it (the default) each
    /// input's pages keep their codec and are copied; pages of a coalesced chunk take the
    /// first input's.
    pub fn with_compression(mut self, compression: impl Into<Compression>) -> Self {
        self.compression = Some(compression.into());
        self
    }

    /// Largest unified dictionary page before falling back to PLAIN (default 1 MiB).
    pub fn with_dictionary_page_size_limit(mut self, bytes: usize) -> Self {
        self.dictionary_page_size_limit = bytes;
        self
    }

    /// With more than 1 (default 1), [`merge_files`] writes the output on a thread of its own
    /// while the inputs are read and their pages copied.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The target rows per output row group.
    pub fn row_group_rows(&self) -> u64 {
        self.row_group_rows
    }
}

/// What a merge did.
#[derive(Debug, Default, Clone)]
pub struct MergeSummary {
    /// Rows written.
    pub rows: u64,
    /// Input files.
    pub files: usize,
    /// Row groups read.
    pub row_groups_in: usize,
    /// Row groups written.
    pub row_groups_out: usize,
    /// Row groups copied whole.
    pub row_groups_copied: usize,
    /// Bytes of the output file.
    pub bytes_out: u64,
    /// What happened to the pages of coalesced row groups.
    pub pages: PageCounts,
}

/// Merges `inputs` into `output` through a temporary file beside it, renamed on success: on
/// any error nothing is left under `output`. `output` may not be one of the inputs.
pub fn merge_files(inputs: &[PathBuf], output: &Path, options: &MergeOptions) -> Result<MergeSummary> {
    if let Ok(out) = output.canonicalize() {
        if inputs.iter().any(|i| i.canonicalize().is_ok_and(|i| i == out)) {
            return Err(Error::invalid_argument(format!(
                "the output {} is also an input; write the merge somewhere else",
                output.display()
            )));
        }
    }
    let temp = crate::io::TempFile::beside(output)?;
    let mut sink = FileSink::new(temp.file()?, options.threads)
        .map_err(|e| Error::io("starting the output's writing thread", e))?;
    let summary = merge_into(inputs, &mut sink, options)?;
    sink.into_file().map_err(|e| Error::io(format!("flushing {}", temp.path().display()), e))?;
    temp.persist(output)?;
    Ok(summary)
}

/// Merges `inputs` (in this order) into one Parquet file written to `sink`.
pub fn merge<W: Write>(inputs: &[PathBuf], sink: W, options: &MergeOptions) -> Result<MergeSummary> {
    merge_into(inputs, &mut AnyWrite(sink), options)
}

/// Where a merge writes: bytes, and byte ranges of input files (whole row groups).
trait MergeSink: Write {
    /// Copies `len` bytes at `from` of `file` after the bytes written so far.
    fn copy_range(&mut self, file: File, from: u64, len: u64) -> std::io::Result<()>;
}

/// Any writer: ranges go through `io::copy`, which std turns into `copy_file_range` when the
/// writer is a file (or a `BufWriter` of one).
struct AnyWrite<W>(W);

impl<W: Write> Write for AnyWrite<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl<W: Write> MergeSink for AnyWrite<W> {
    fn copy_range(&mut self, mut file: File, from: u64, len: u64) -> std::io::Result<()> {
        crate::io::copy_file_bytes(&mut file, from, len, &mut self.0)
    }
}

/// A file sink copies ranges in the kernel too, on its writing thread when it has one.
impl MergeSink for FileSink {
    fn copy_range(&mut self, file: File, from: u64, len: u64) -> std::io::Result<()> {
        FileSink::copy_range(self, file, from, len)
    }
}

fn merge_into<W: MergeSink>(inputs: &[PathBuf], sink: &mut W, options: &MergeOptions) -> Result<MergeSummary> {
    if inputs.is_empty() {
        return Err(Error::invalid_argument("merge: no input files"));
    }
    let inputs = inputs.iter().map(|p| Input::open(p)).collect::<Result<Vec<_>>>()?;
    for other in &inputs[1..] {
        check_schema(&inputs[0], other)?;
    }
    let schema = SchemaDescriptor::from_metadata(&inputs[0].metadata)?;
    let copy_whole = options.compression.is_none();
    let groups = plan(&inputs, options.row_group_rows, options.row_group_bytes, copy_whole);
    let mut out = Output { file: FileAssembler::new(sink)? };
    let mut summary = MergeSummary {
        files: inputs.len(),
        row_groups_in: inputs.iter().map(|i| i.metadata.row_groups.len()).sum(),
        ..Default::default()
    };
    let mut compressor = Compressor::new();
    for group in &groups {
        let rows = match group {
            Group::Copy(i, g) => {
                summary.row_groups_copied += 1;
                copy_row_group(&inputs[*i], *g, &mut out)
                    .map_err(|e| e.context(format!("{}, row group {g}", inputs[*i].path.display())))?
            }
            Group::Coalesce(items) => {
                coalesce(&inputs, items, &schema, options, &mut out, &mut compressor, &mut summary)?
            }
        };
        summary.rows += rows;
    }
    let first = &inputs[0].metadata;
    let meta = FileMetaData {
        version: first.version,
        schema: first.schema.clone(),
        num_rows: 0,
        row_groups: Vec::new(),
        key_value_metadata: first.key_value_metadata.clone(),
        created_by: Some(format!("parquetry version {}", env!("CARGO_PKG_VERSION"))),
        column_orders: first.column_orders.clone(),
        encryption_algorithm: None,
        footer_signing_key_metadata: None,
    };
    let meta = out.file.finish(true, meta)?;
    summary.row_groups_out = meta.row_groups.len();
    summary.bytes_out = out.file.offset();
    Ok(summary)
}

/// The merged file being written.
struct Output<'w, W: MergeSink> {
    file: FileAssembler<&'w mut W>,
}

impl<W: MergeSink> Output<'_, W> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.put(bytes)
    }

    /// Copies `len` bytes at `from` of the file at `path` to the output, in the kernel where
    /// it can (`copy_file_range` between files on Linux: no pass through user space).
    fn copy_range(&mut self, path: &Path, from: u64, len: u64) -> Result<()> {
        let place = || format!("copying bytes {from}..{} of {}", from + len, path.display());
        let file = File::open(path).map_err(|e| Error::io(place(), e))?;
        self.file.put_with(len, |sink| sink.copy_range(file, from, len).map_err(|e| Error::io(place(), e)))
    }
}

fn read_index<T: thrift::ThriftStruct, S: ChunkSource>(source: &S, offset: Option<i64>, len: Option<i32>) -> Option<T> {
    let (offset, len) = (u64::try_from(offset?).ok()?, usize::try_from(len?).ok()?);
    let bytes = source.read_at(offset, len).ok()?;
    thrift::decode::<T>(bytes.as_slice()).ok().map(|(t, _)| t)
}

/// Folds one input chunk's statistics and page index (read from `source`) into `stats`.
fn add_input_statistics<S: ChunkSource>(
    stats: &mut StatisticsMerger,
    source: &S,
    chunk: &ColumnChunk,
    meta: &ColumnMetaData,
) {
    let column_index = read_index::<ColumnIndex, _>(source, chunk.column_index_offset, chunk.column_index_length);
    let offset_index = read_index::<OffsetIndex, _>(source, chunk.offset_index_offset, chunk.offset_index_length);
    let page_bytes = offset_index.and_then(|o| o.unencoded_byte_array_data_bytes);
    stats.add(meta.statistics.as_ref(), meta.size_statistics.as_ref(), column_index, page_bytes);
}

/// Copies one input row group's column chunks byte for byte, rebasing their offsets.
/// Returns its rows.
fn copy_row_group<W: MergeSink>(input: &Input, g: usize, out: &mut Output<'_, W>) -> Result<u64> {
    let rg = &input.metadata.row_groups[g];
    let source = input.source()?;
    let padding = has_parquet_816_bug(input.metadata.created_by.as_deref());
    for chunk in &rg.columns {
        let meta = chunk.meta_data.as_ref().ok_or_else(|| Error::unsupported("a column chunk without metadata"))?;
        let (from, len) = chunk_byte_range(meta, source.len(), padding)?;
        let start = out.file.offset();
        let delta = start as i64 - from as i64;
        out.copy_range(&input.path, from, len)?;
        let mut meta = meta.clone();
        meta.data_page_offset += delta;
        meta.dictionary_page_offset = meta.dictionary_page_offset.map(|o| o + delta);
        meta.index_page_offset = meta.index_page_offset.map(|o| o + delta);
        let column_index = read_index::<ColumnIndex, _>(&source, chunk.column_index_offset, chunk.column_index_length);
        let offset_index = read_index::<OffsetIndex, _>(&source, chunk.offset_index_offset, chunk.offset_index_length)
            .map(|mut o| {
                o.page_locations.iter_mut().for_each(|l| l.offset += delta);
                o
            });
        let copied = ColumnChunk { file_offset: start as i64, meta_data: Some(meta), ..Default::default() };
        out.file.add_copied_chunk(copied, (column_index, offset_index), bloom::copied(&source, chunk));
    }
    out.file.end_row_group(rg.num_rows, rg.sorting_columns.clone(), Some(rg.total_byte_size))?;
    Ok(rg.num_rows.max(0) as u64)
}

/// Builds one output row group from several small input row groups, one column at a time.
fn coalesce<W: MergeSink>(
    inputs: &[Input],
    items: &[(usize, usize)],
    schema: &SchemaDescriptor,
    options: &MergeOptions,
    out: &mut Output<'_, W>,
    compressor: &mut Compressor,
    summary: &mut MergeSummary,
) -> Result<u64> {
    let rows: i64 = items.iter().map(|&(i, g)| inputs[i].metadata.row_groups[g].num_rows).sum();
    let mut recycled = crate::page::PageBlocks::default();
    for (c, column) in schema.columns.iter().enumerate() {
        let first_meta = inputs[items[0].0].metadata.row_groups[items[0].1].columns[c].meta_data.as_ref();
        let (codec, level) = match options.compression {
            Some(c) => (c.codec(), c.level()),
            None => (Codec::from_thrift(first_meta.map_or(0, |m| m.codec.0))?, None),
        };
        if let Some(pages) = copy_column(inputs, items, c, column, codec, options, out)? {
            summary.pages.copied += pages;
            continue;
        }
        let buffer = std::mem::take(&mut recycled);
        let mut merger = ChunkMerger::new(column, codec, level, options.dictionary_page_size_limit, buffer);
        let mut stats = StatisticsMerger::new(SortOrder::of_column(column));
        let mut blooms = bloom::BloomUnion::default();
        let place = |i: usize, g: usize| {
            format!("{}, row group {g}, column '{}'", inputs[i].path.display(), column.dotted_path())
        };
        // First the inputs' dictionaries up to the limit, so that the unified dictionary page
        // is complete before any data page; then every page, streamed to the output input by
        // input (the chunk is never held whole).
        let mut planned = Vec::new();
        for &(i, g) in items {
            if merger.dictionary_full() {
                break;
            }
            let input = &inputs[i];
            let meta = input.metadata.row_groups[g].columns[c]
                .meta_data
                .as_ref()
                .ok_or_else(|| Error::unsupported("a column chunk without metadata"))?;
            let d = merger
                .plan_dictionary(&input.source()?, meta, input.metadata.created_by.as_deref())
                .map_err(|e| e.context(place(i, g)))?;
            planned.push(d);
        }
        merger.write_dictionary(compressor)?;
        let chunk_start = out.file.offset();
        for (k, &(i, g)) in items.iter().enumerate() {
            let input = &inputs[i];
            let chunk = &input.metadata.row_groups[g].columns[c];
            let meta = chunk.meta_data.as_ref().ok_or_else(|| Error::unsupported("a column chunk without metadata"))?;
            let source = input.source()?;
            let d = planned.get_mut(k).and_then(Option::take);
            merger
                .add_chunk(&source, meta, input.metadata.created_by.as_deref(), compressor, d)
                .map_err(|e| e.context(place(i, g)))?;
            add_input_statistics(&mut stats, &source, chunk, meta);
            blooms.add(&source, chunk);
            merger.drain(|bytes| out.put(bytes))?;
        }
        let rebuilt = blooms.rebuild(merger.unified());
        let (pages, counts) = merger.finish()?;
        let bloom_filter = blooms.finish(rebuilt, &pages.encoding_stats);
        summary.pages.copied += counts.copied;
        summary.pages.remapped += counts.remapped;
        summary.pages.reencoded += counts.reencoded;
        summary.pages.from_dictionary += counts.from_dictionary;
        let (statistics, size_statistics, column_index, byte_array_bytes) = stats.finish(pages.locations.len());
        out.file.add_chunk(ChunkParts {
            physical_type: column.physical_type,
            path: &column.path,
            codec,
            start: chunk_start,
            dictionary_len: pages.dictionary_len,
            num_values: pages.num_values as i64,
            uncompressed_size: pages.uncompressed_size as i64,
            compressed_size: pages.compressed_size as i64,
            encodings: pages.encodings,
            encoding_stats: Some(pages.encoding_stats),
            locations: pages.locations,
            statistics,
            size_statistics,
            column_index,
            byte_array_bytes,
            bloom_filter,
        });
        recycled = pages.pages;
    }
    out.file.end_row_group(rows, None, None)?;
    Ok(rows.max(0) as u64)
}

/// Writes column `c` of a coalesced row group as the inputs' chunks back to back, when that is
/// what page-by-page merging would write: no input chunk has a dictionary, the codec stays and
/// the column is flat (rows are value counts). Returns the pages copied, or `None` when it
/// cannot.
fn copy_column<W: MergeSink>(
    inputs: &[Input],
    items: &[(usize, usize)],
    c: usize,
    column: &crate::schema::ColumnDescriptor,
    codec: Codec,
    options: &MergeOptions,
    out: &mut Output<'_, W>,
) -> Result<Option<u64>> {
    use crate::format::Encoding;
    let metas: Vec<&ColumnMetaData> =
        items.iter().filter_map(|&(i, g)| inputs[i].metadata.row_groups[g].columns[c].meta_data.as_ref()).collect();
    let dictionary = |m: &ColumnMetaData| {
        m.dictionary_page_offset.is_some()
            || m.encodings.iter().any(|&e| e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY)
    };
    let copyable = options.compression.is_none()
        && column.max_rep_level == 0
        && metas.len() == items.len()
        && metas.iter().all(|m| !dictionary(m) && m.codec.0 == codec.to_thrift());
    if !copyable {
        return Ok(None);
    }
    let chunk_start = out.file.offset();
    let mut stats = StatisticsMerger::new(SortOrder::of_column(column));
    let mut blooms = bloom::BloomUnion::default();
    let mut locations = Vec::new();
    let (mut uncompressed, mut num_values, mut rows) = (0u64, 0i64, 0u64);
    let mut encodings: Vec<Encoding> = Vec::new();
    let mut encoding_stats: Option<Vec<crate::format::PageEncodingStats>> = Some(Vec::new());
    for (&(i, g), meta) in items.iter().zip(&metas) {
        let input = &inputs[i];
        let chunk = &input.metadata.row_groups[g].columns[c];
        let place = || format!("{}, row group {g}, column '{}'", input.path.display(), column.dotted_path());
        let source = input.source()?;
        let padding = has_parquet_816_bug(input.metadata.created_by.as_deref());
        let (from, len) = chunk_byte_range(meta, source.len(), padding).map_err(|e| e.context(place()))?;
        let walked = copy::walk_pages(&source, from, len).map_err(|e| e.context(place()))?;
        let base = out.file.offset() - chunk_start;
        locations.extend(walked.locations.into_iter().map(|mut l| {
            l.offset += base as i64;
            l.first_row_index += rows as i64;
            l
        }));
        out.copy_range(&input.path, from, len).map_err(|e| e.context(place()))?;
        rows += walked.rows;
        uncompressed += walked.uncompressed;
        num_values += meta.num_values;
        meta.encodings.iter().for_each(|e| {
            if !encodings.contains(e) {
                encodings.push(*e)
            }
        });
        encoding_stats = encoding_stats.zip(meta.encoding_stats.as_ref()).map(|(mut acc, s)| {
            for st in s.iter() {
                match acc.iter_mut().find(|a| a.page_type == st.page_type && a.encoding == st.encoding) {
                    Some(a) => a.count += st.count,
                    None => acc.push(st.clone()),
                }
            }
            acc
        });
        add_input_statistics(&mut stats, &source, chunk, meta);
        blooms.add(&source, chunk);
    }
    let (statistics, size_statistics, column_index, byte_array_bytes) = stats.finish(locations.len());
    let pages = locations.len() as u64;
    out.file.add_chunk(ChunkParts {
        physical_type: column.physical_type,
        path: &column.path,
        codec,
        start: chunk_start,
        dictionary_len: 0,
        num_values,
        uncompressed_size: uncompressed as i64,
        compressed_size: (out.file.offset() - chunk_start) as i64,
        encodings,
        encoding_stats,
        locations,
        statistics,
        size_statistics,
        column_index,
        byte_array_bytes,
        bloom_filter: blooms.finish(None, &[]),
    });
    Ok(Some(pages))
}
