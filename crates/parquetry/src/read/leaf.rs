//! What a batch's leaf column is read from: its column chunk, or rows already decoded.
//!
//! Late materialization decodes the predicate's columns first, at every candidate row of a
//! row group. Their rows in the ranges the second pass reads are kept, and the second pass
//! takes them from there ([`Replay`]) instead of decompressing and decoding those columns a
//! second time (`l_partkey < 2000` on TPC-H lineitem read 113 MB where the columns hold 81 MB,
//! the predicate column twice).

use arrow_array::{Array, ArrayRef};

use super::column::ColumnReader;
use super::records::BatchLevels;
use crate::error::{Error, Result};
use crate::page::ChunkSource;

/// A leaf column's rows for the batches of a row group.
pub(crate) enum LeafReader {
    /// Decoded from the column chunk (boxed: a reader is two kilobytes of state).
    Column(Box<ColumnReader>),
    /// Handed out from rows decoded before.
    Replay(Replay),
}

impl LeafReader {
    /// Appends the next `rows` rows to the array being built.
    pub(crate) fn append<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        match self {
            LeafReader::Column(r) => r.append(source, rows),
            LeafReader::Replay(r) => r.append(rows),
        }
    }

    /// Room for the `rows` rows a batch's many short reads will append (see
    /// [`ColumnReader::reserve_rows`]; a replay appends nothing of its own).
    pub(crate) fn reserve_rows(&mut self, rows: usize) {
        if let LeafReader::Column(r) = self {
            r.reserve_rows(rows);
        }
    }

    /// Passes over the next `rows` rows (a replay holds only the rows read: nothing to do).
    pub(crate) fn skip<S: ChunkSource>(&mut self, source: &S, rows: usize) -> Result<()> {
        match self {
            LeafReader::Column(r) => r.skip(source, rows),
            LeafReader::Replay(_) => Ok(()),
        }
    }

    /// The levels of the rows appended since the last call (none for a replay: only flat
    /// columns, read without levels, are replayed).
    pub(crate) fn take_levels(&mut self) -> BatchLevels {
        match self {
            LeafReader::Column(r) => r.take_levels(),
            LeafReader::Replay(_) => BatchLevels::default(),
        }
    }

    /// The rows appended since the last call, as one array.
    pub(crate) fn finish(&mut self) -> Result<ArrayRef> {
        match self {
            LeafReader::Column(r) => r.finish(),
            LeafReader::Replay(r) => r.finish(),
        }
    }
}

/// Rows decoded before, handed out in order: exactly the rows the reads of the row group
/// take, so a read past them is an error, not a wrap. The array holds only the rows read, so
/// the reads between two `finish`es take one contiguous stretch of it: they are counted and
/// sliced once (a read at every scattered match would otherwise slice and concatenate per
/// match, 4% of `l_partkey < 2000`'s time).
pub(crate) struct Replay {
    array: ArrayRef,
    /// Rows handed out by the last `finish`.
    at: usize,
    /// Rows appended since the last `finish`.
    taken: usize,
}

impl Replay {
    /// Hands out `array`'s rows.
    pub(crate) fn new(array: ArrayRef) -> Replay {
        Replay { array, at: 0, taken: 0 }
    }

    fn append(&mut self, rows: usize) -> Result<()> {
        let left = self.array.len() - self.at - self.taken;
        if rows > left {
            return Err(Error::invalid_argument(format!("asked for {rows} rows, {left} decoded rows are left")));
        }
        self.taken += rows;
        Ok(())
    }

    fn finish(&mut self) -> Result<ArrayRef> {
        let out = self.array.slice(self.at, self.taken);
        self.at += std::mem::take(&mut self.taken);
        Ok(out)
    }
}
