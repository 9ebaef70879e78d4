//! A predicate evaluated on record batches that come from no single file: the batches of a
//! dataset, whose partition columns and columns missing from some files exist only once the
//! files' batches are assembled, so no file's statistics or pages can answer for them.

use arrow_array::{BooleanArray, RecordBatch};
use arrow_schema::{DataType, Schema};

use super::bind::{arrow_domain, check_depth, tree, Node};
use super::evaluate::{evaluate, find, ArrayPath, DictionaryTests};
use super::expr::Predicate;
use super::select::select;
use crate::error::{Error, Result};

/// A predicate bound to an Arrow schema: its columns found by name (dotted paths into
/// structs) and its literals converted for their types.
#[derive(Debug, Clone)]
pub struct BatchFilter {
    tree: Node,
    paths: Vec<ArrayPath>,
}

impl BatchFilter {
    /// Binds `predicate` to `schema`; a column that is not there, or whose type a filter
    /// cannot test, is an error naming it.
    pub fn new(predicate: &Predicate, schema: &Schema) -> Result<BatchFilter> {
        check_depth(predicate)?;
        let columns = predicate.columns();
        let mut paths = Vec::with_capacity(columns.len());
        let mut domains = Vec::with_capacity(columns.len());
        for path in &columns {
            let parts: Vec<&str> = path.split('.').collect();
            let names = || schema.fields().iter().map(|f| f.name().as_str()).collect::<Vec<_>>().join(", ");
            let missing = || Error::invalid_argument(format!("filter: no column '{path}' (columns: {})", names()));
            let column = schema.fields().iter().position(|f| f.name() == parts[0]).ok_or_else(missing)?;
            let mut t = schema.field(column).data_type().clone();
            for name in &parts[1..] {
                let DataType::Struct(fields) = &t else { return Err(missing()) };
                t = fields.iter().find(|f| f.name() == name).ok_or_else(missing)?.data_type().clone();
            }
            let domain = arrow_domain(&t).ok_or_else(|| {
                Error::unsupported(format!("filter: column '{path}' is of type {t}, which a filter cannot test yet"))
            })?;
            domains.push(domain);
            paths.push(ArrayPath { column, fields: parts[1..].iter().map(|s| s.to_string()).collect() });
        }
        let tree = tree(predicate, &columns, &|i| Ok(domains[i]))?;
        Ok(BatchFilter { tree, paths })
    }

    /// Where the predicate is true on each row of `batch` (null and false rows are false).
    pub fn evaluate(&self, batch: &RecordBatch) -> Result<BooleanArray> {
        let arrays = self.paths.iter().map(|p| find(batch.columns(), p)).collect::<Result<Vec<_>>>()?;
        Ok(BooleanArray::new(evaluate(&self.tree, &arrays, batch.num_rows(), &mut DictionaryTests::default())?, None))
    }

    /// The rows of `batch` where the predicate is true.
    pub fn apply(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let keep = self.evaluate(batch)?;
        if keep.true_count() == batch.num_rows() {
            return Ok(batch.clone());
        }
        select(batch, keep.values(), &batch.schema())
    }
}
