//! One column chunk → Arrow arrays, batch by batch.

use arrow_array::ArrayRef;
use arrow_schema::{DataType, Field, Schema};

use super::options::ReadOptions;
use crate::error::{Error, Result};
use crate::format::FileMetaData;
use crate::page::ChunkSource;
use crate::schema::SchemaDescriptor;

/// What to read for one selected top-level field: its leaf column and output type.
#[derive(Debug, Clone)]
pub struct ColumnPlan {
    /// The output field.
    pub field: Field,
    /// The leaf column index.
    pub leaf: usize,
}

impl ColumnPlan {
    /// Plans the read of top-level field `field_index`.
    pub fn new(
        schema: &SchemaDescriptor,
        arrow: &Schema,
        field_index: usize,
        _options: &ReadOptions,
    ) -> Result<Self> {
        let node = &schema.root.children[field_index];
        let Some(leaf) = node.leaf else {
            return Err(Error::unsupported(format!(
                "column '{}' is nested (a list, map or struct): nested columns are not supported yet",
                arrow.field(field_index).name()
            )));
        };
        Ok(ColumnPlan { field: arrow.field(field_index).clone(), leaf })
    }

    /// The output type.
    pub fn data_type(&self) -> &DataType {
        self.field.data_type()
    }
}

/// Reads one column chunk.
pub struct ColumnReader {}

impl ColumnReader {
    /// Prepares to read column `plan` of row group `row_group`.
    pub fn open<S: ChunkSource>(
        _source: &mut S,
        _metadata: &FileMetaData,
        _schema: &SchemaDescriptor,
        _row_group: usize,
        _plan: &ColumnPlan,
        _batch_rows: usize,
        _options: &ReadOptions,
    ) -> Result<Self> {
        Err(Error::unsupported("reading values is not implemented yet"))
    }

    /// Reads the next `rows` rows.
    pub fn read<S: ChunkSource>(&mut self, _source: &mut S, _rows: usize) -> Result<ArrayRef> {
        Err(Error::unsupported("reading values is not implemented yet"))
    }
}
