//! Nested arrays from leaf arrays and their levels (the reverse of record shredding).
//!
//! Every leaf below a node sees the same records, so any of them tells the node's shape;
//! the first is used. A level is a *slot* of a node when it does not repeat a list inside the
//! node's innermost list (repetition ≤ that list's level) and that list has an element there
//! (definition ≥ its element level); outside lists every level that starts a record is one.
//! A struct is valid at a slot whose definition level reaches its own; a list is valid where
//! its level is reached, and its elements are the slots of its element level that follow.
//! Lengths that disagree between leaves (a corrupt file) fail in the arrays' own checks.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    new_null_array, Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, MapArray, StructArray, UInt64Array,
};
use arrow_buffer::{BooleanBufferBuilder, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::nested::{ListKind, Node};
use super::records::BatchLevels;
use crate::error::{Error, Result};

/// One leaf column's batch: its array (a value per slot) and, if read with levels, its
/// levels.
pub(crate) struct LeafBatch {
    pub array: ArrayRef,
    pub levels: BatchLevels,
}

/// Assembles the array of `node` from the batches of its leaves.
pub(crate) fn assemble(node: &Node, leaves: &[LeafBatch]) -> Result<ArrayRef> {
    build(node, leaves, Slots { rep: 0, def: 0 })
}

/// Which levels are slots of a node: repetition at most `rep`, definition at least `def`.
#[derive(Clone, Copy)]
struct Slots {
    rep: i16,
    def: i16,
}

fn build(node: &Node, leaves: &[LeafBatch], slots: Slots) -> Result<ArrayRef> {
    match node {
        Node::Leaf { reader } => Ok(Arc::clone(&leaves[*reader].array)),
        Node::Struct { fields, children, def, nullable } => {
            let arrays = children.iter().map(|c| build(c, leaves, slots)).collect::<Result<Vec<_>>>()?;
            let nulls = match nullable {
                true => Some(struct_validity(first_levels(node, leaves), slots, *def)),
                false => None,
            };
            let len = arrays.first().map_or(0, |a| a.len());
            if let Some(n) = &nulls {
                if n.len() != len {
                    return Err(disagree(n.len(), len));
                }
            }
            StructArray::try_new(fields.clone(), arrays, nulls.filter(|n| n.null_count() > 0))
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| Error::corrupt(format!("assembling a struct: {e}")))
        }
        Node::List { field, kind, element, def, nullable, rep, elem_def } => {
            let levels = first_levels(element, leaves);
            let (offsets, mut validity) = list_offsets(levels, slots, *def, *rep, *elem_def);
            let nulls = (*nullable).then(|| NullBuffer::new(validity.finish())).filter(|n| n.null_count() > 0);
            let child = build(element, leaves, Slots { rep: *rep, def: *elem_def })?;
            let field = Arc::clone(field);
            let corrupt = |e: arrow_schema::ArrowError| Error::corrupt(format!("assembling a list: {e}"));
            Ok(match kind {
                ListKind::List => {
                    let offsets = narrow_offsets(&offsets)?;
                    Arc::new(ListArray::try_new(field, offsets, child, nulls).map_err(corrupt)?)
                }
                ListKind::Large => {
                    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                    Arc::new(LargeListArray::try_new(field, offsets, child, nulls).map_err(corrupt)?)
                }
                ListKind::Map { sorted } => {
                    let offsets = narrow_offsets(&offsets)?;
                    let entries = child.as_struct_opt().ok_or_else(|| Error::corrupt("a map's entries are not a struct"))?;
                    Arc::new(MapArray::try_new(field, offsets, entries.clone(), nulls, *sorted).map_err(corrupt)?)
                }
                ListKind::Fixed(n) => fixed_size_list(field, *n, &offsets, child, nulls)?,
            })
        }
    }
}

/// The levels of the first leaf under `node`.
fn first_levels<'a>(node: &Node, leaves: &'a [LeafBatch]) -> &'a BatchLevels {
    let mut n = node;
    loop {
        match n {
            Node::Leaf { reader } => return &leaves[*reader].levels,
            Node::Struct { children, .. } => n = &children[0],
            Node::List { element, .. } => n = element,
        }
    }
}

/// Calls `f(definition level)` for each slot of `levels` under `slots`, in order, and for
/// every level with `is_slot` false too when `all` is set (lists count their elements there).
fn for_each_level(levels: &BatchLevels, mut f: impl FnMut(i16, i16)) {
    let (def, rep) = (&levels.definition, &levels.repetition);
    match (def.is_empty(), rep.is_empty()) {
        (false, false) => def.iter().zip(rep).for_each(|(&d, &r)| f(d, r)),
        (false, true) => def.iter().for_each(|&d| f(d, 0)),
        (true, false) => rep.iter().for_each(|&r| f(0, r)),
        (true, true) => {}
    }
}

fn struct_validity(levels: &BatchLevels, slots: Slots, def: i16) -> NullBuffer {
    let mut bits = BooleanBufferBuilder::new(levels.definition.len());
    for_each_level(levels, |d, r| {
        if r <= slots.rep && d >= slots.def {
            bits.append(d >= def);
        }
    });
    NullBuffer::new(bits.finish())
}

/// A list's offsets (one per slot, plus the end) and validity bits.
fn list_offsets(levels: &BatchLevels, slots: Slots, def: i16, rep: i16, elem_def: i16) -> (Vec<i64>, BooleanBufferBuilder) {
    let n = levels.definition.len().max(levels.repetition.len());
    let mut offsets = Vec::with_capacity(n / 2 + 1);
    let mut validity = BooleanBufferBuilder::new(n / 2 + 1);
    let mut count = 0i64;
    for_each_level(levels, |d, r| {
        if r <= slots.rep && d >= slots.def {
            offsets.push(count);
            validity.append(d >= def);
        }
        if r <= rep && d >= elem_def {
            count += 1;
        }
    });
    offsets.push(count);
    (offsets, validity)
}

fn narrow_offsets(offsets: &[i64]) -> Result<OffsetBuffer<i32>> {
    let last = offsets.last().copied().unwrap_or(0);
    if last > i64::from(i32::MAX) {
        return Err(Error::corrupt(format!(
            "a batch's list has {last} elements, more than 32-bit offsets hold: read it as a large list or in smaller batches"
        )));
    }
    let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
    Ok(OffsetBuffer::new(ScalarBuffer::from(narrow)))
}

/// A fixed-size list from list offsets: Parquet stores it as a plain list, where a null list
/// has no elements; Arrow's layout gives every list, null or not, `size` child slots.
fn fixed_size_list(
    field: arrow_schema::FieldRef,
    size: i32,
    offsets: &[i64],
    child: ArrayRef,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let n = usize::try_from(size).map_err(|_| Error::corrupt(format!("fixed-size list of negative size {size}")))?;
    let mut exact = true;
    for (i, w) in offsets.windows(2).enumerate() {
        let len = (w[1] - w[0]) as usize;
        let valid = nulls.as_ref().is_none_or(|v| v.is_valid(i));
        if len != n {
            if valid || len != 0 {
                return Err(Error::corrupt(format!(
                    "a fixed-size list of {n} has an entry of {len} elements at row {i}"
                )));
            }
            exact = false;
        }
    }
    let child = if exact {
        child
    } else {
        // Null lists stored empty get `size` null child slots.
        let mut indices: Vec<Option<u64>> = Vec::with_capacity((offsets.len() - 1) * n);
        for w in offsets.windows(2) {
            if w[1] == w[0] {
                indices.extend(std::iter::repeat_n(None, n));
            } else {
                indices.extend((w[0]..w[1]).map(|i| Some(i as u64)));
            }
        }
        if child.is_empty() && n > 0 {
            new_null_array(child.data_type(), indices.len())
        } else {
            arrow_select::take::take(&child, &UInt64Array::from(indices), None)
                .map_err(|e| Error::corrupt(format!("assembling a fixed-size list: {e}")))?
        }
    };
    FixedSizeListArray::try_new(field, size, child, nulls)
        .map(|a| Arc::new(a) as ArrayRef)
        .map_err(|e| Error::corrupt(format!("assembling a fixed-size list: {e}")))
}

fn disagree(levels: usize, values: usize) -> Error {
    Error::corrupt(format!(
        "the columns of a struct disagree: its levels give {levels} entries, its children {values}"
    ))
}
