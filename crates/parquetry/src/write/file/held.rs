//! The open row group's input held instead of its pages, for columns whose pages would be
//! no smaller than their input: flat, uncompressed, without a dictionary in the making.
//!
//! Batches smaller than a row group used to be encoded at once into page blocks that waited
//! for the row group to close, then copied into the file: a row group of such pages is
//! 100 MB of fresh memory for the `strings` data (a quarter of the write went to the kernel
//! zeroing it) and a second pass over it, cold. Holding the Arrow slices (references to the
//! caller's buffers, no copy) instead, the row group is encoded when it closes, one column
//! after another, each column's pages going to the file as they come in blocks that stay in
//! cache, as whole-row-group batches always were. A compressed or dictionary-encoded column
//! is still encoded as it arrives: its pages are much smaller than its input.
//!
//! The checks that could refuse a held slice's rows (nulls in a column that allows none,
//! values too long for a BYTE_ARRAY) are made when it is held, so a batch is still refused
//! by the `write` call that passes it, with the rows before it intact.

use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

use crate::compress::Codec;
use crate::error::{Error, Result};
use crate::write::arrow_input::check_value_lengths;
use crate::write::column::ColumnChunkWriter;
use crate::write::schema::Conversion;

/// Each column's held slices of the open row group, in order.
pub(super) struct Held {
    arrays: Vec<Vec<ArrayRef>>,
    bytes: usize,
}

impl Held {
    /// Nothing held, for `columns` columns.
    pub(super) fn new(columns: usize) -> Self {
        Held { arrays: vec![Vec::new(); columns], bytes: 0 }
    }

    /// Holds `array`, a slice of column `i`, if that column's pages are held as input;
    /// false if it must be encoded now. Fails on rows the column cannot take.
    pub(super) fn hold(&mut self, i: usize, column: &ColumnChunkWriter, array: &ArrayRef) -> Result<bool> {
        if !holds_input(column, array.data_type()) {
            return Ok(false);
        }
        let leaf = column.leaf();
        if leaf.max_def_level == 0 && array.null_count() > 0 {
            return Err(Error::invalid_argument(format!(
                "column '{}' is not nullable but the batch has nulls in it",
                leaf.path
            )));
        }
        check_value_lengths(leaf, array.as_ref(), 0, array.len())?;
        self.bytes += array.to_data().get_slice_memory_size().unwrap_or(0);
        self.arrays[i].push(array.clone());
        Ok(true)
    }

    /// Bytes of input held (the slices' share of their buffers).
    pub(super) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Whether any slice is held.
    pub(super) fn is_empty(&self) -> bool {
        self.arrays.iter().all(Vec::is_empty)
    }

    /// Takes every column's held slices, leaving none.
    pub(super) fn take(&mut self) -> Vec<Vec<ArrayRef>> {
        self.bytes = 0;
        self.arrays.iter_mut().map(std::mem::take).collect()
    }
}

/// Whether `column`'s input of type `data_type` is held rather than encoded as it arrives:
/// its pages would be about as big as the input (uncompressed, no dictionary in the making),
/// and every check encoding would make can be made up front (a flat column of a type whose
/// values go into pages unconverted, or merely widened).
fn holds_input(column: &ColumnChunkWriter, data_type: &DataType) -> bool {
    use DataType as D;
    let leaf = column.leaf();
    let plain_type = matches!(
        data_type,
        D::Utf8
            | D::LargeUtf8
            | D::Binary
            | D::LargeBinary
            | D::Utf8View
            | D::BinaryView
            | D::FixedSizeBinary(_)
            | D::Boolean
            | D::Int8
            | D::Int16
            | D::Int32
            | D::Int64
            | D::UInt8
            | D::UInt16
            | D::UInt32
            | D::UInt64
            | D::Float32
            | D::Float64
            | D::Date32
            | D::Time32(_)
            | D::Time64(_)
            | D::Timestamp(..)
    );
    plain_type
        && leaf.nesting.is_empty()
        && matches!(leaf.conversion, Conversion::Same | Conversion::Widen)
        && column.codec() == Codec::Uncompressed
        && column.can_drain()
}
