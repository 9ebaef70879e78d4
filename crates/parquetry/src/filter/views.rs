//! Filtered `Utf8View`/`BinaryView` columns, copied out of the pages they point into.
//!
//! A view array read from a file points into its decompressed pages, and filtering keeps
//! those pages whole however few of their values it keeps. A read that keeps 0.2% of a
//! string column's rows would then hold every page of the column until the caller drops the
//! batches: the memory of an unfiltered read, and the page faults of fresh pages for each
//! batch (`l_comment LIKE 'special%'` on TPC-H lineitem spent a third of its time clearing
//! new pages). Where the kept values use less than half of the bytes their array holds, they
//! are copied into buffers of their own (what DataFusion does to its filtered view batches),
//! and the pages go back to the allocator for the next batch.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::ByteViewType;
use arrow_array::{Array, ArrayRef, GenericByteViewArray, RecordBatch};
use arrow_schema::DataType;

use crate::error::{Error, Result};

/// Bytes of buffers below which a view array is left as it is: copying would not pay.
const SMALL: usize = 64 << 10;

/// `batch` with each top-level view column that holds more than twice the bytes its values
/// use copied into its own buffers.
pub(crate) fn compact(batch: RecordBatch) -> Result<RecordBatch> {
    let wasteful = |a: &ArrayRef| match a.data_type() {
        DataType::Utf8View => wastes(a.as_string_view()),
        DataType::BinaryView => wastes(a.as_binary_view()),
        _ => false,
    };
    if !batch.columns().iter().any(wasteful) {
        return Ok(batch);
    }
    let columns: Vec<ArrayRef> = batch
        .columns()
        .iter()
        .map(|a| match a.data_type() {
            DataType::Utf8View if wasteful(a) => Arc::new(a.as_string_view().gc()) as ArrayRef,
            DataType::BinaryView if wasteful(a) => Arc::new(a.as_binary_view().gc()) as ArrayRef,
            _ => Arc::clone(a),
        })
        .collect();
    RecordBatch::try_new(batch.schema(), columns)
        .map_err(|e| Error::invalid_argument(format!("filter: compacting the matching strings: {e}")))
}

/// Whether `a`'s buffers hold more than twice the bytes its values use (values of at most
/// 12 bytes live in their view and use none).
fn wastes<T: ByteViewType + ?Sized>(a: &GenericByteViewArray<T>) -> bool {
    let held: usize = a.data_buffers().iter().map(|b| b.len()).sum();
    if held < SMALL {
        return false;
    }
    let used: usize = a.views().iter().map(|&v| v as u32 as usize).filter(|&len| len > 12).sum();
    used < held / 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::StringViewArray;
    use arrow_schema::{Field, Schema};

    #[test]
    fn filtered_views_are_copied_out_of_their_pages() {
        let long: Vec<String> = (0..10_000).map(|i| format!("a value long enough to be out of line {i}")).collect();
        let all = StringViewArray::from_iter_values(long.iter());
        let kept = all.slice(5, 3);
        let schema = Arc::new(Schema::new(vec![Field::new("s", DataType::Utf8View, false)]));
        let batch = RecordBatch::try_new(schema, vec![Arc::new(kept)]).unwrap();
        let out = compact(batch).unwrap();
        let s = out.column(0).as_string_view();
        let held: usize = s.data_buffers().iter().map(|b| b.len()).sum();
        assert!(held < 1000, "{held} bytes held");
        let values: Vec<&str> = s.iter().map(|v| v.unwrap()).collect();
        assert_eq!(values, [&long[5], &long[6], &long[7]].map(String::as_str));
    }
}
