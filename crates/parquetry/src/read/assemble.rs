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
use arrow_array::OffsetSizeTrait;
use arrow_array::{
    new_null_array, Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, MapArray, StructArray, UInt64Array,
};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};

use super::bits::{at_least, at_most, PackedBits};

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
        Node::Struct { fields, children, def } => {
            let arrays = children.iter().map(|c| build(c, leaves, slots)).collect::<Result<Vec<_>>>()?;
            let nulls = match *def > slots.def {
                true => struct_validity(first_levels(node, leaves), slots, *def),
                false => None,
            };
            let len = arrays.first().map_or(0, |a| a.len());
            if let Some(n) = &nulls {
                if n.len() != len {
                    return Err(disagree(n.len(), len));
                }
            }
            StructArray::try_new(fields.clone(), arrays, nulls)
                .map(|a| Arc::new(a) as ArrayRef)
                .map_err(|e| Error::corrupt(format!("assembling a struct: {e}")))
        }
        Node::List { field, kind, element, def, nullable, rep, elem_def } => {
            let levels = first_levels(element, leaves);
            let child = build(element, leaves, Slots { rep: *rep, def: *elem_def })?;
            let field = Arc::clone(field);
            let corrupt = |e: arrow_schema::ArrowError| Error::corrupt(format!("assembling a list: {e}"));
            let keep = |n: Option<NullBuffer>| n.filter(|_| *nullable);
            Ok(match kind {
                ListKind::List => {
                    let (offsets, nulls) = list_offsets::<i32>(levels, slots, *def, *rep, *elem_def)?;
                    Arc::new(ListArray::try_new(field, offsets, child, keep(nulls)).map_err(corrupt)?)
                }
                ListKind::Large => {
                    let (offsets, nulls) = list_offsets::<i64>(levels, slots, *def, *rep, *elem_def)?;
                    Arc::new(LargeListArray::try_new(field, offsets, child, keep(nulls)).map_err(corrupt)?)
                }
                ListKind::Map { sorted } => {
                    let (offsets, nulls) = list_offsets::<i32>(levels, slots, *def, *rep, *elem_def)?;
                    let entries =
                        child.as_struct_opt().ok_or_else(|| Error::corrupt("a map's entries are not a struct"))?;
                    Arc::new(MapArray::try_new(field, offsets, entries.clone(), keep(nulls), *sorted).map_err(corrupt)?)
                }
                ListKind::Fixed(n) => {
                    let (offsets, nulls) = list_offsets::<i64>(levels, slots, *def, *rep, *elem_def)?;
                    fixed_size_list(field, *n, &offsets, child, keep(nulls))?
                }
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

/// A level's definition and repetition, over two vectors either of which may be empty
/// (a column without that kind of level: all zeros).
fn level_pairs(levels: &BatchLevels) -> (std::borrow::Cow<'_, [i16]>, std::borrow::Cow<'_, [i16]>) {
    use std::borrow::Cow;
    let (def, rep) = (&levels.definition, &levels.repetition);
    let n = def.len().max(rep.len());
    fn filled(v: &[i16], n: usize) -> Cow<'_, [i16]> {
        if v.len() == n {
            Cow::Borrowed(v)
        } else {
            Cow::Owned(vec![0; n])
        }
    }
    (filled(def, n), filled(rep, n))
}

fn struct_validity(levels: &BatchLevels, slots: Slots, def: i16) -> Option<NullBuffer> {
    if levels.repetition.is_empty() {
        // Outside lists: every level starts a record, so only the definition level tells a
        // slot (no zeroed repetition levels made up to be tested).
        let d = &levels.definition;
        let mut bits = PackedBits::with_capacity(d.len());
        for dc in d.chunks(64) {
            bits.push_selected(at_least(dc, slots.def), at_least(dc, def));
        }
        return bits.into_nulls();
    }
    let (d, r) = level_pairs(levels);
    let mut bits = PackedBits::with_capacity(d.len());
    for (dc, rc) in d.chunks(64).zip(r.chunks(64)) {
        let slot = at_most(rc, slots.rep) & at_least(dc, slots.def);
        bits.push_selected(slot, at_least(dc, def));
    }
    bits.into_nulls()
}

/// A list's offsets (one per slot, plus the end) and validity.
fn list_offsets<O: OffsetSizeTrait>(
    levels: &BatchLevels,
    slots: Slots,
    def: i16,
    rep: i16,
    elem_def: i16,
) -> Result<(OffsetBuffer<O>, Option<NullBuffer>)> {
    let (d, r) = level_pairs(levels);
    if O::from_usize(d.len()).is_none() {
        return Err(Error::corrupt(format!(
            "a batch's list has {} levels, more than 32-bit offsets hold: read it as a large list or in smaller batches",
            d.len()
        )));
    }
    let mut offsets: Vec<O> = Vec::with_capacity(d.len() / 2 + 1);
    let mut bits = PackedBits::with_capacity(d.len() / 2 + 1);
    let tests = ListTests { slots, def, rep, elem_def };
    let count = list_slots(&d, &r, tests, &mut offsets, &mut bits);
    offsets.push(O::usize_as(count));
    // Offsets rise by construction (`count` never falls).
    Ok((OffsetBuffer::new(ScalarBuffer::from(offsets)), bits.into_nulls()))
}

/// What a level is to a list: a slot of its parent, a valid list, an element.
#[derive(Clone, Copy)]
struct ListTests {
    slots: Slots,
    def: i16,
    rep: i16,
    elem_def: i16,
}

/// Pushes each slot's offset (the elements before it) and validity; returns the elements.
fn list_slots<O: OffsetSizeTrait>(
    d: &[i16],
    r: &[i16],
    tests: ListTests,
    offsets: &mut Vec<O>,
    bits: &mut PackedBits,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the processor has AVX2 and POPCNT (just checked).
        return unsafe { list_slots_avx2(d, r, tests, offsets, bits) };
    }
    list_slots_loop(d, r, tests, offsets, bits)
}

/// [`list_slots_loop`] compiled for AVX2 (the level tests) and POPCNT (the offsets).
///
/// # Safety
///
/// The processor has AVX2 and POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn list_slots_avx2<O: OffsetSizeTrait>(
    d: &[i16],
    r: &[i16],
    tests: ListTests,
    offsets: &mut Vec<O>,
    bits: &mut PackedBits,
) -> usize {
    list_slots_loop(d, r, tests, offsets, bits)
}

/// 64 levels at a time: which are slots, which are valid lists, which are elements, as bit
/// masks; then each slot's offset is the elements before it in the block, a population count
/// of the element mask below the slot's bit.
#[inline(always)]
fn list_slots_loop<O: OffsetSizeTrait>(
    d: &[i16],
    r: &[i16],
    t: ListTests,
    offsets: &mut Vec<O>,
    bits: &mut PackedBits,
) -> usize {
    let mut count = 0usize;
    for (dc, rc) in d.chunks(64).zip(r.chunks(64)) {
        let slot = at_most(rc, t.slots.rep) & at_least(dc, t.slots.def);
        let valid = at_least(dc, t.def);
        let elem = at_most(rc, t.rep) & at_least(dc, t.elem_def);
        offsets.reserve(slot.count_ones() as usize);
        let mut m = slot;
        while m != 0 {
            let below = (m & m.wrapping_neg()) - 1;
            offsets.push(O::usize_as(count + (elem & below).count_ones() as usize));
            m &= m - 1;
        }
        bits.push_selected(slot, valid);
        count += elem.count_ones() as usize;
    }
    count
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
    Error::corrupt(format!("the columns of a struct disagree: its levels give {levels} entries, its children {values}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both builds of the offsets kernel give what a walk of one level at a time gives.
    #[test]
    fn list_slots_match_a_level_by_level_walk() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // A list inside a list: rep up to 2, def up to 4; the outer list's slots.
        let t = ListTests { slots: Slots { rep: 1, def: 1 }, def: 2, rep: 2, elem_def: 3 };
        for n in [0usize, 1, 63, 64, 65, 200, 1000] {
            let d: Vec<i16> = (0..n).map(|_| (next() % 5) as i16).collect();
            let r: Vec<i16> = (0..n).map(|i| if i == 0 { 0 } else { (next() % 3) as i16 }).collect();
            let (mut want_offsets, mut want_valid, mut count) = (Vec::new(), Vec::new(), 0i64);
            for (&d, &r) in d.iter().zip(&r) {
                if r <= t.slots.rep && d >= t.slots.def {
                    want_offsets.push(count);
                    want_valid.push(d >= t.def);
                }
                count += i64::from(r <= t.rep && d >= t.elem_def);
            }
            let check = |offsets: Vec<i64>, bits: PackedBits, total: usize| {
                assert_eq!(offsets, want_offsets, "{n} levels");
                assert_eq!(total as i64, count);
                let bytes = bits.into_bytes();
                let valid: Vec<bool> = (0..want_valid.len()).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1).collect();
                assert_eq!(valid, want_valid, "{n} levels");
            };
            let (mut offsets, mut bits) = (Vec::new(), PackedBits::with_capacity(0));
            let total = list_slots_loop::<i64>(&d, &r, t, &mut offsets, &mut bits);
            check(offsets, bits, total);
            let (mut offsets, mut bits) = (Vec::new(), PackedBits::with_capacity(0));
            let total = list_slots::<i64>(&d, &r, t, &mut offsets, &mut bits);
            check(offsets, bits, total);
        }
    }
}
