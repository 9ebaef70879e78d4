//! Closing a row group: each column chunk's pages placed in the file in column order, with
//! the chunk's metadata and page index kept for the footer.
//!
//! A slice of rows that closes the row group is written column by column on one thread, or
//! on the writer's threads with the caller's thread writing finished pages in column order
//! as they come; either way, a column without a dictionary in the making sends its pages to
//! the file as it encodes them instead of holding the whole chunk. Other slices are held as
//! input by the columns whose pages would be as big (see `held`), and encoded with the
//! closing slice; the other columns encode them into memory (on threads when there are
//! several), and their pages are placed when the row group ends.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::mpsc;
use std::sync::Mutex;

use arrow_array::{new_empty_array, ArrayRef, RecordBatch};

use super::ParquetWriter;
use crate::compress::{Codec, Compressor};
use crate::error::{Error, Result};
use crate::io::{ChunkParts, FileAssembler};
use crate::page::{PageBlocks, SpillFile};
use crate::write::column::{ChunkResult, ColumnChunkWriter};
use crate::write::schema::LeafColumn;

/// Rows a column without a dictionary in the making encodes before its pages go to the file.
const DRAIN_ROWS: usize = 16_384;

/// The file being written, and the pages spilled to a scratch file.
pub(super) struct Out<W> {
    pub(super) file: FileAssembler<W>,
    pub(super) spill: Option<SpillFile>,
    copy_buffer: Vec<u8>,
}

impl<W: Write> Out<W> {
    pub(super) fn new(sink: W) -> Result<Self> {
        Ok(Out { file: FileAssembler::new(sink)?, spill: None, copy_buffer: Vec::new() })
    }

    /// Writes `bytes` at the current offset.
    pub(super) fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.file.put(bytes)
    }

    /// Writes pages handed out by a chunk before it ended: its dictionary page (if not yet
    /// written) and the data pages so far.
    fn put_pages(&mut self, dictionary: &[u8], pages: &PageBlocks) -> Result<()> {
        self.put(dictionary)?;
        pages.blocks().iter().try_for_each(|block| self.put(block))
    }

    /// Writes the rest of a finished chunk of `leaf` (which starts at `chunk_start`: its first
    /// pages may be in the file already), adds it to the open row group, and returns its page
    /// blocks for reuse.
    fn put_chunk(
        &mut self,
        leaf: &LeafColumn,
        codec: Codec,
        chunk_start: u64,
        result: ChunkResult,
    ) -> Result<PageBlocks> {
        let pages = result.pages;
        self.put(&pages.dictionary)?;
        if let Some(spill) = self.spill.as_mut() {
            let ordinal = self.file.row_groups();
            for &segment in &pages.spilled {
                let buffer = &mut self.copy_buffer;
                let at = self.file.offset();
                self.file.put_with(segment.1, |sink| {
                    spill
                        .copy_to(segment, sink, buffer)
                        .map_err(|e| e.context(format!("writing row group {ordinal} at offset {at}")))
                })?;
            }
        }
        for block in pages.pages.blocks() {
            self.put(block)?;
        }
        self.file.add_chunk(ChunkParts {
            physical_type: leaf.physical_type,
            path: &leaf.path_in_schema,
            codec,
            start: chunk_start,
            dictionary_len: pages.dictionary_len,
            num_values: pages.num_values as i64,
            uncompressed_size: pages.uncompressed_size as i64,
            compressed_size: pages.compressed_size as i64,
            encodings: pages.encodings,
            encoding_stats: Some(pages.encoding_stats),
            locations: pages.locations,
            statistics: result.statistics,
            size_statistics: result.size_statistics,
            column_index: result.column_index,
            byte_array_bytes: result.page_byte_array_bytes,
            bloom_filter: result.bloom_filter,
        });
        Ok(pages.pages)
    }
}

/// Encodes `arrays` (a column's held slices, then the slice that closes its chunk) and ends
/// the chunk. While the column has no dictionary in the making, it goes `DRAIN_ROWS` at a
/// time and each step's pages go to `drained`; the page blocks come from, and go back to,
/// `blocks`.
fn encode_closing(
    column: &mut ColumnChunkWriter,
    arrays: &[ArrayRef],
    rows: u64,
    compressor: &mut Compressor,
    blocks: &Mutex<PageBlocks>,
    mut drained: impl FnMut(Vec<u8>, PageBlocks) -> Result<()>,
) -> Result<ChunkResult> {
    let lock = || blocks.lock().unwrap_or_else(|e| e.into_inner());
    for array in arrays {
        let mut at = 0;
        while at < array.len() {
            let step = if column.can_drain() { DRAIN_ROWS.min(array.len() - at) } else { array.len() - at };
            column.recycle(std::mem::take(&mut *lock()));
            column.write(&array.slice(at, step), compressor)?;
            at += step;
            // Drained before the spare blocks go back: with threads, the step's pages are
            // compressed and placed in blocks only now, and must find the spare ones here
            // (when they were taken back first, every step's pages went into fresh blocks:
            // 17% of a threaded snappy write was the kernel zeroing them).
            let drained_now = match column.can_drain() {
                true => Some(column.drain_blocks()?),
                false => None,
            };
            lock().recycle(column.take_spare_blocks());
            if let Some((dictionary, pages)) = drained_now {
                drained(dictionary, pages)?;
            }
        }
    }
    // The pages after the last drain go into spare blocks too: when the spares stayed with
    // `blocks`, each chunk took a fresh 4 MiB block for its last pages and the spares grew by
    // one a chunk (7,300 one-row row groups of 13 columns took 7 s, moving the spares).
    column.recycle(std::mem::take(&mut *lock()));
    let result = column.finish_chunk(rows, compressor);
    lock().recycle(column.take_spare_blocks());
    result
}

/// What a column's task tells the thread that writes the file.
enum Message {
    /// Pages (and the dictionary page, first time) to write before the rest of the chunk.
    Pages(usize, Vec<u8>, PageBlocks),
    /// The chunk's end (boxed: a chunk's metadata is far larger than a message of pages).
    Done(usize, Box<Result<ChunkResult>>),
}

impl<W: Write> ParquetWriter<W> {
    /// Runs `f` on every column on `pool`'s threads (the writer's), each task with a
    /// compressor of its own, and returns the results in column order (the first error if
    /// any fails).
    fn on_threads<T: Send>(
        &mut self,
        pool: &rayon::ThreadPool,
        f: impl Fn(usize, &mut ColumnChunkWriter, &mut Compressor) -> Result<T> + Sync,
    ) -> Result<Vec<T>> {
        use rayon::prelude::*;
        let compressors = &self.compressors;
        let columns = &mut self.columns;
        pool.install(|| {
            columns
                .par_iter_mut()
                .enumerate()
                .with_max_len(1)
                .map(|(i, column)| {
                    let mut compressor = compressors.take();
                    let result = f(i, column, &mut compressor);
                    compressors.give(compressor);
                    result
                })
                .collect::<Result<Vec<T>>>()
        })
    }

    /// Holds (see `held`) or encodes into memory (on the threads when there are several)
    /// every column's slice of `n` rows at `row`, spilling past the memory bound.
    pub(super) fn write_open_slice(&mut self, batch: &RecordBatch, row: usize, n: usize) -> Result<()> {
        let arrays: Vec<_> = self.columns.iter().map(|c| batch.column(c.leaf().field).slice(row, n)).collect();
        // Without a memory bound (which spills pages, not input), columns whose pages would be
        // as big as their input hold it until the row group closes (see `held`).
        let mut held = vec![false; arrays.len()];
        if self.options.max_buffered_bytes.is_none() {
            for (i, array) in arrays.iter().enumerate() {
                held[i] = self.held.hold(i, &self.columns[i], array)?;
            }
        }
        if let Some(pool) = self.pool.clone() {
            self.on_threads(&pool, |i, column, compressor| match held[i] {
                true => Ok(()),
                false => column.write(&arrays[i], compressor),
            })?;
            return self.spill_if_over();
        }
        for (i, array) in arrays.iter().enumerate() {
            if held[i] {
                continue;
            }
            self.columns[i].recycle(std::mem::take(&mut self.spare_blocks));
            self.columns[i].write(array, &mut self.compressor)?;
            self.spare_blocks.recycle(self.columns[i].take_spare_blocks());
            self.spill_if_over()?;
        }
        Ok(())
    }

    /// Ends the open row group (if it has rows), writing its column chunks.
    pub(super) fn flush_row_group(&mut self) -> Result<()> {
        if self.open_rows == 0 {
            return Ok(());
        }
        self.write_row_group()
    }

    /// Writes the open row group's chunks, even when it has no rows (a row group of none,
    /// as pyarrow writes for an empty table).
    pub(super) fn write_row_group(&mut self) -> Result<()> {
        if !self.held.is_empty() {
            // Held input is encoded as a closing slice is: column by column, into the file.
            let empty = self.columns.iter().map(|c| new_empty_array(self.schema.field(c.leaf().field).data_type()));
            return self.close_row_group_with(empty.collect(), 0);
        }
        let ordinal = self.out.file.row_groups();
        let rows = self.open_rows;
        let results: Vec<ChunkResult> = if let Some(pool) = self.pool.clone() {
            self.on_threads(&pool, |_, column, compressor| column.finish_chunk(rows, compressor))
        } else {
            let compressor = &mut self.compressor;
            self.columns.iter_mut().map(|column| column.finish_chunk(rows, compressor)).collect()
        }
        .map_err(|e| e.context(format!("row group {}", ordinal)))?;
        for (i, result) in results.into_iter().enumerate() {
            let column = &mut self.columns[i];
            let start = self.out.file.offset();
            let blocks = self.out.put_chunk(column.leaf(), column.codec(), start, result)?;
            // One thread hands the blocks on to whichever column writes next; threads write
            // columns at once, so each keeps its own.
            if self.pool.is_some() {
                column.recycle(blocks);
            } else {
                self.spare_blocks.recycle(blocks);
                self.spare_blocks.recycle(column.take_spare_blocks());
            }
        }
        self.end_row_group()
    }

    /// Writes the slice of `n` rows at `row` that closes the open row group: one column after
    /// another on one thread, so only one column's pages are held at a time and the next
    /// column writes into the same (already faulted-in) blocks; or on the threads.
    pub(super) fn write_closing_slice(&mut self, batch: &RecordBatch, row: usize, n: usize) -> Result<()> {
        let arrays = self.columns.iter().map(|c| batch.column(c.leaf().field).slice(row, n)).collect();
        self.close_row_group_with(arrays, n)
    }

    /// Ends the open row group with `last` (each column's last slice, of `n` rows), encoding
    /// each column's held slices before it.
    fn close_row_group_with(&mut self, last: Vec<ArrayRef>, n: usize) -> Result<()> {
        let mut arrays = self.held.take();
        arrays.iter_mut().zip(last).for_each(|(held, last)| held.push(last));
        if let (Some(pool), None) = (self.pool.clone(), self.options.max_buffered_bytes) {
            return self.write_closing_slice_on_threads(&pool, arrays, n);
        }
        let ordinal = self.out.file.row_groups();
        let rows = self.open_rows + n as u64;
        let blocks = Mutex::new(std::mem::take(&mut self.spare_blocks));
        for (i, arrays) in arrays.iter().enumerate() {
            let chunk_start = self.out.file.offset();
            let (column, out) = (&mut self.columns[i], &mut self.out);
            let result = encode_closing(column, arrays, rows, &mut self.compressor, &blocks, |dictionary, pages| {
                out.put_pages(&dictionary, &pages)?;
                blocks.lock().unwrap_or_else(|e| e.into_inner()).recycle(pages);
                Ok(())
            });
            let result = result.map_err(|e| e.context(format!("row group {}", ordinal)))?;
            let used = self.out.put_chunk(column.leaf(), column.codec(), chunk_start, result)?;
            blocks.lock().unwrap_or_else(|e| e.into_inner()).recycle(used);
            self.spill_if_over()?;
        }
        self.spare_blocks = blocks.into_inner().unwrap_or_else(|e| e.into_inner());
        self.open_rows = rows;
        self.end_row_group()
    }

    /// The closing slice on the threads: each column is a task, and this thread writes what
    /// the tasks hand over in column order, the front column's pages as they come and a later
    /// column's once every column before it has ended. Each column's page blocks come from,
    /// and go back to, spares of its own: from one list for all, the first column to start
    /// took every spare, the others took fresh blocks, and the list grew by them at every
    /// row group (3,000 one-row row groups of 3 columns held 1 GB of blocks).
    fn write_closing_slice_on_threads(
        &mut self,
        pool: &rayon::ThreadPool,
        arrays: Vec<Vec<ArrayRef>>,
        n: usize,
    ) -> Result<()> {
        let ordinal = self.out.file.row_groups();
        let rows = self.open_rows + n as u64;
        let chunks: Vec<(LeafColumn, Codec)> = self.columns.iter().map(|c| (c.leaf().clone(), c.codec())).collect();
        let compressors = &self.compressors;
        let pools: Vec<Mutex<PageBlocks>> =
            self.columns.iter_mut().map(|c| Mutex::new(c.take_spare_blocks())).collect();
        let (columns, out) = (&mut self.columns, &mut self.out);
        let (to_writer, messages) = mpsc::channel::<Message>();
        let result = pool.in_place_scope(|scope| {
            for (i, column) in columns.iter_mut().enumerate() {
                let (to_writer, array, blocks) = (to_writer.clone(), &arrays[i], &pools[i]);
                scope.spawn(move |_| {
                    let mut compressor = compressors.take();
                    let result = encode_closing(column, array, rows, &mut compressor, blocks, |dictionary, pages| {
                        // The writing side stops listening only after an error of its own.
                        let _ = to_writer.send(Message::Pages(i, dictionary, pages));
                        Ok(())
                    });
                    compressors.give(compressor);
                    let _ = to_writer.send(Message::Done(i, Box::new(result)));
                });
            }
            drop(to_writer);
            let mut queued: Vec<VecDeque<Message>> = (0..chunks.len()).map(|_| VecDeque::new()).collect();
            let mut starts: Vec<Option<u64>> = vec![None; chunks.len()];
            let mut front = 0;
            let mut failure: Option<Error> = None;
            for message in messages {
                match &message {
                    Message::Pages(i, ..) | Message::Done(i, _) => queued[*i].push_back(message),
                }
                while front < chunks.len() && failure.is_none() {
                    let Some(message) = queued[front].pop_front() else { break };
                    let start = *starts[front].get_or_insert(out.file.offset());
                    let step = match message {
                        Message::Pages(_, dictionary, pages) => out.put_pages(&dictionary, &pages).map(|()| {
                            pools[front].lock().unwrap_or_else(|e| e.into_inner()).recycle(pages);
                        }),
                        Message::Done(_, result) => (*result)
                            .and_then(|r| out.put_chunk(&chunks[front].0, chunks[front].1, start, r))
                            .map(|used| {
                                pools[front].lock().unwrap_or_else(|e| e.into_inner()).recycle(used);
                                front += 1;
                            }),
                    };
                    // Keep receiving after a failure so that every task can end.
                    failure = step.err();
                }
            }
            failure.map_or(Ok(()), |e| Err(e.context(format!("row group {}", ordinal))))
        });
        for (column, blocks) in self.columns.iter_mut().zip(pools) {
            column.recycle(blocks.into_inner().unwrap_or_else(|e| e.into_inner()));
        }
        result?;
        self.open_rows = rows;
        self.end_row_group()
    }

    fn end_row_group(&mut self) -> Result<()> {
        let rows = self.open_rows;
        self.out.file.end_row_group(rows as i64, self.options.sorting_columns.clone(), None)?;
        self.open_rows = 0;
        if let Some(file) = self.out.spill.as_mut() {
            file.reset()?;
        }
        Ok(())
    }
}
