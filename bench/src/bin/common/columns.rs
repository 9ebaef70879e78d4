//! Whole columns from batches, shared by the bench crate's checking binaries (`interop`,
//! `merge_check`).

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::Schema;

/// Each of `schema`'s columns over all of `batches` as one array (empty arrays without
/// batches), so that whole files can be compared column by column.
pub fn concat_columns(schema: &Schema, batches: &[RecordBatch]) -> Vec<ArrayRef> {
    (0..schema.fields().len())
        .map(|c| {
            let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(c).as_ref()).collect();
            if parts.is_empty() {
                arrow_array::new_empty_array(schema.field(c).data_type())
            } else {
                arrow_select::concat::concat(&parts).expect("batches share a schema")
            }
        })
        .collect()
}
