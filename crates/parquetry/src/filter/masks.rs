//! String columns only the filter reads, tested on their dictionaries and read as the
//! result: the reader hands out a `Boolean` per row, looked up from the dictionary index
//! runs (`read::byte_array::dictionary_mask`), rather than keys to look up here.
//!
//! It applies to a column whose every conjunct (the parts of the predicate's top-level AND)
//! tests that column alone: `s = 'x'`, `s IN (..) AND x > 5`, `(s = 'a' OR s IS NULL) AND
//! ..`, not `s = 'a' OR x > 5`. Those conjuncts are evaluated together on each dictionary
//! value, and once on a null (where SQL's answer may be true: `s IS NULL`); a row's
//! conjuncts are true where its value's result is, or where it is null and the null's is.
//! The rest of the predicate is evaluated on the batch as before, and the two are AND-ed.

use std::sync::{Arc, OnceLock};

use arrow_array::cast::AsArray;
use arrow_array::{new_null_array, Array, ArrayRef};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;

use super::bind::{Bound, Node};
use super::evaluate::{conjuncts, evaluate, DictionaryTests};
use crate::error::{Error, Result};
use crate::page::ChunkSource;
use crate::read::{DictionaryMask, MaskedLeaf, ParquetFile};

/// The conjuncts of one column, evaluated on the values of its dictionaries. The reader
/// holds it (as its [`DictionaryMask`]) from before the tree exists: the tree is set when
/// the read's types are known (`Filtering::attach`).
#[derive(Debug, Default)]
pub(crate) struct ColumnMask {
    /// The column's conjuncts AND-ed, with the number of bound columns.
    tree: OnceLock<(Node, usize)>,
}

impl ColumnMask {
    /// Evaluates the conjuncts on `values`, each bound column standing for it (they all
    /// are this column).
    fn run(&self, values: &ArrayRef) -> Result<BooleanBuffer> {
        let Some((node, columns)) = self.tree.get() else {
            return Err(Error::invalid_argument("filter: a dictionary mask used before the filter was attached"));
        };
        let arrays: Vec<(ArrayRef, Option<NullBuffer>)> = vec![(Arc::clone(values), None); *columns];
        evaluate(node, &arrays, values.len(), &mut DictionaryTests::default())
    }
}

impl DictionaryMask for ColumnMask {
    fn on_values(&self, values: &ArrayRef) -> Result<Vec<bool>> {
        Ok(self.run(values)?.iter().collect())
    }
}

/// A column read as its conjuncts' result (see the module's comment).
#[derive(Debug)]
pub(crate) struct MaskColumn {
    /// The bound column whose array in a batch is the mask.
    pub column: usize,
    /// Its leaf column.
    pub leaf: usize,
    /// What the reader evaluates.
    pub mask: Arc<ColumnMask>,
}

/// The bound columns (one per leaf) that can be read as masks, among those of `leaves`:
/// each conjunct that tests one of them tests nothing else.
pub(crate) fn plan(bound: &Bound, leaves: &[usize]) -> Vec<MaskColumn> {
    let mut parts = Vec::new();
    conjuncts(&bound.parquet, &mut parts);
    let mut out: Vec<MaskColumn> = Vec::new();
    for (column, c) in bound.columns.iter().enumerate() {
        if !leaves.contains(&c.leaf) || out.iter().any(|m| m.leaf == c.leaf) {
            continue;
        }
        let only_this = parts.iter().all(|p| {
            let mut leaves_of = Vec::new();
            columns_of(p, &mut leaves_of);
            let this = leaves_of.iter().any(|&i| bound.columns[i].leaf == c.leaf);
            !this || leaves_of.iter().all(|&i| bound.columns[i].leaf == c.leaf)
        });
        if only_this {
            out.push(MaskColumn { column, leaf: c.leaf, mask: Arc::default() });
        }
    }
    out
}

/// What the reader is given for `masks` in `file`: each leaf with its mask, and whether its
/// values are strings (validated as UTF-8 as in any read of them).
pub(crate) fn read_options<S: ChunkSource>(file: &ParquetFile<S>, masks: &[MaskColumn]) -> Vec<MaskedLeaf> {
    let schema = file.arrow_schema();
    let text = |t: &DataType| matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View);
    masks
        .iter()
        .map(|m| {
            let top = &file.schema_descriptor().columns[m.leaf].path[0];
            let utf8 = schema.field_with_name(top).is_ok_and(|f| match f.data_type() {
                DataType::Dictionary(_, v) => text(v),
                t => text(t),
            });
            MaskedLeaf { leaf: m.leaf, utf8, mask: Arc::clone(&m.mask) as Arc<dyn DictionaryMask> }
        })
        .collect()
}

/// The bound columns `node` tests.
fn columns_of(node: &Node, out: &mut Vec<usize>) {
    match node {
        Node::Leaf(i, _) => out.push(*i),
        Node::And(a, b) | Node::Or(a, b) => {
            columns_of(a, out);
            columns_of(b, out);
        }
        Node::Not(p) => columns_of(p, out),
    }
}

/// A predicate split into its masked columns and the rest, ready to evaluate on batches.
#[derive(Debug)]
pub(crate) struct Masked {
    /// The conjuncts not on a masked column (`None`: there are none).
    rest: Option<Node>,
    masks: Vec<(usize, bool)>,
}

/// Splits `tree` (the predicate with literals for the batches' types, of `columns` bound
/// columns) between `masks` (whose trees it sets) and the rest.
pub(crate) fn split(tree: &Node, columns: usize, masks: &[MaskColumn], bound: &Bound) -> Result<Masked> {
    let mut parts = Vec::new();
    conjuncts(tree, &mut parts);
    let leaf_of = |p: &Node| {
        let mut cs = Vec::new();
        columns_of(p, &mut cs);
        cs.first().map(|&i| bound.columns[i].leaf)
    };
    let and = |nodes: Vec<&Node>| nodes.into_iter().cloned().reduce(|a, b| Node::And(Box::new(a), Box::new(b)));
    let mut out = Masked { rest: None, masks: Vec::new() };
    let mut rest: Vec<&Node> = Vec::new();
    let mut mine: Vec<Vec<&Node>> = vec![Vec::new(); masks.len()];
    for p in parts {
        match masks.iter().position(|m| leaf_of(p) == Some(m.leaf)) {
            Some(at) => mine[at].push(p),
            None => rest.push(p),
        }
    }
    out.rest = and(rest);
    for (m, nodes) in masks.iter().zip(mine) {
        let Some(node) = and(nodes) else { continue };
        // A second attach (the same Filtering is attached once) would find the tree set.
        let _ = m.mask.tree.set((node, columns));
        let null = new_null_array(&DataType::Binary, 1);
        let on_null = m.mask.run(&null)?.value(0);
        out.masks.push((m.column, on_null));
    }
    Ok(out)
}

impl Masked {
    /// The predicate without masks.
    pub(crate) fn plain(tree: Node) -> Masked {
        Masked { rest: Some(tree), masks: Vec::new() }
    }

    /// The rows of `len` where the predicate is true (see [`evaluate`]), the masked
    /// columns' arrays being their masks.
    pub(crate) fn evaluate(
        &self,
        arrays: &[(ArrayRef, Option<NullBuffer>)],
        len: usize,
        tests: &mut DictionaryTests,
    ) -> Result<BooleanBuffer> {
        let mut out = match &self.rest {
            Some(node) => Some(evaluate(node, arrays, len, tests)?),
            None => None,
        };
        for &(column, on_null) in &self.masks {
            let (array, _) = &arrays[column];
            let Some(b) = array.as_boolean_opt().filter(|b| b.len() == len) else {
                return Err(Error::invalid_argument(format!(
                    "filter: the mask of column {column} is a {} of {} rows, not a Boolean of {len}",
                    array.data_type(),
                    array.len()
                )));
            };
            // Flat columns only: there is no struct above whose nulls would count.
            let t = match (b.nulls(), on_null) {
                (None, _) => b.values().clone(),
                (Some(n), false) => b.values() & n.inner(),
                (Some(n), true) => b.values() | &!n.inner(),
            };
            out = Some(match out {
                Some(o) => &o & &t,
                None => t,
            });
        }
        Ok(out.unwrap_or_else(|| BooleanBuffer::new_set(len)))
    }
}
