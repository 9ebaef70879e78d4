//! Record shredding: the repetition and definition levels of one leaf under nested Arrow
//! arrays (structs, lists, maps at any depth), and the leaf's non-null values as ranges of
//! its Arrow array.
//!
//! It works column-oriented, one node at a time over ranges of rows, never value by value
//! with allocations: a struct passes its valid runs of rows down to its child; a list passes
//! down the child range of each run of consecutive non-empty, valid lists in one call (a run's
//! lists are contiguous in the child array), then marks where each list starts. Every node
//! writes its elements' first entries at the repetition level of the nearest list above it,
//! and the list above lowers the first entry of each of its own lists to its parent's level:
//! each record's first entry ends at level 0. Entries under null or empty lists are never
//! visited, whatever their offsets say.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use super::schema::{LeafColumn, Nesting};
use crate::error::{Error, Result};

/// The levels and values of one leaf for a slice of records; the buffers are reused.
#[derive(Debug, Default)]
pub(crate) struct Shredded {
    /// One definition level per entry.
    pub def: Vec<u16>,
    /// One repetition level per entry (empty when the leaf has no list above it: then every
    /// entry is a record).
    pub rep: Vec<u16>,
    /// The leaf array's non-null values, as ranges of its indexes in entry order: one value
    /// per entry whose definition level is the maximum.
    pub values: Vec<(usize, usize)>,
    /// The leaf's Arrow array (the values of the innermost list or struct), once reached.
    pub leaf: Option<ArrayRef>,
    /// The leaf's nulls (logical, for dictionaries), computed on the first visit and kept
    /// while windows of one column are shredded: a dictionary's are computed over all of it.
    leaf_nulls: Option<Option<NullBuffer>>,
}

impl Shredded {
    /// Forgets the leaf of the last column: the next shred starts a new top-level column.
    pub fn new_column(&mut self) {
        self.leaf_nulls = None;
    }

    fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.values.clear();
        self.leaf = None;
    }
}

/// Computes the levels and values of `leaf` for rows (records) `rows` of `column`, its
/// top-level Arrow array, into `out`.
pub(crate) fn shred(
    leaf: &LeafColumn,
    column: &ArrayRef,
    rows: std::ops::Range<usize>,
    out: &mut Shredded,
) -> Result<()> {
    out.clear();
    let mut s = Shredder { leaf, out, with_rep: leaf.max_rep_level > 0 };
    s.visit(0, column, rows.start, rows.end, 0, 0)
}

/// Checks the structure of a nested top-level column (each child as long as its parent says,
/// offsets and buffers within their arrays) before it is sliced or shredded: Arrow's own
/// slicing panics on arrays built without its checks whose children are too short. One walk
/// of the array's nodes, nothing per value.
pub(crate) fn check_structure(name: &str, column: &ArrayRef) -> Result<()> {
    column
        .to_data()
        .validate()
        .map_err(|e| Error::invalid_argument(format!("column '{name}': the nested Arrow array is malformed: {e}")))
}

struct Shredder<'a> {
    leaf: &'a LeafColumn,
    out: &'a mut Shredded,
    with_rep: bool,
}

/// A list's offsets into its child, whatever the list kind.
enum Offsets<'a> {
    Small(&'a [i32]),
    Large(&'a [i64]),
    Fixed(usize),
}

/// A list's child: an array, or a map's entries (a struct, not held as an `ArrayRef`).
#[derive(Clone, Copy)]
enum Child<'a> {
    Array(&'a ArrayRef),
    Entries(&'a StructArray),
}

impl Shredder<'_> {
    /// Appends `n` entries of levels `def` and `rep`.
    #[inline]
    fn push(&mut self, def: i16, rep: i16, n: usize) {
        if n == 1 {
            // Most calls: one null or empty list, or a list's single value.
            self.out.def.push(def as u16);
            if self.with_rep {
                self.out.rep.push(rep as u16);
            }
            return;
        }
        let len = self.out.def.len();
        self.out.def.resize(len + n, def as u16);
        if self.with_rep {
            self.out.rep.resize(len + n, rep as u16);
        }
    }

    fn error(&self, what: String) -> Error {
        Error::invalid_argument(format!("column '{}': {what}", self.leaf.path))
    }

    fn not_nullable(&self, depth: usize) -> Error {
        let kind = match self.leaf.nesting.get(depth) {
            None => "leaf value",
            Some(Nesting::Struct { .. }) => "struct",
            Some(Nesting::List { .. }) => "list (or map)",
        };
        let what = match depth {
            0 => format!("the top-level {kind}"),
            d => format!("the {kind} at nesting depth {d}"),
        };
        self.error(format!(
            "{what} is not nullable but holds a null where its parents are valid (map keys are \
             never nullable)"
        ))
    }

    /// Rows `start..end` of `array`, the node at `depth` of the leaf's nesting; `def` is the
    /// definition level of an entry where this node is null and `rep` the repetition level of
    /// each row's first entry.
    fn visit(&mut self, depth: usize, array: &ArrayRef, start: usize, end: usize, def: i16, rep: i16) -> Result<()> {
        self.check_len(array.as_ref(), end)?;
        match self.leaf.nesting.get(depth).copied() {
            None => self.visit_leaf(depth, array, start, end, def, rep),
            Some(Nesting::Struct { nullable, child }) => {
                let s = array.as_struct_opt().ok_or_else(|| self.mismatch(array.data_type()))?;
                self.visit_struct(depth, s, nullable, child, start, end, def, rep)
            }
            Some(Nesting::List { nullable }) => {
                let (offsets, child, child_len) = match array.data_type() {
                    DataType::List(_) => {
                        let l = array.as_list::<i32>();
                        (Offsets::Small(l.value_offsets()), Child::Array(l.values()), l.values().len())
                    }
                    DataType::LargeList(_) => {
                        let l = array.as_list::<i64>();
                        (Offsets::Large(l.value_offsets()), Child::Array(l.values()), l.values().len())
                    }
                    DataType::FixedSizeList(_, n) => {
                        let l = array.as_fixed_size_list();
                        let n = usize::try_from(*n).map_err(|_| self.error(format!("a list size of {n}")))?;
                        (Offsets::Fixed(n), Child::Array(l.values()), l.values().len())
                    }
                    DataType::Map(..) => {
                        let m = array.as_map();
                        (Offsets::Small(m.value_offsets()), Child::Entries(m.entries()), m.entries().len())
                    }
                    other => return Err(self.mismatch(other)),
                };
                let list = List { offsets, child, child_len, nulls: array.logical_nulls(), nullable };
                self.visit_list(depth, &list, start, end, def, rep)
            }
        }
    }

    /// Refuses an array (built without Arrow's checks) shorter than its parent says, or with
    /// a validity bitmap shorter than itself, before anything indexes into it.
    fn check_len(&self, array: &dyn Array, end: usize) -> Result<()> {
        let short_nulls = array.nulls().is_some_and(|n| n.len() < array.len());
        if array.len() < end || short_nulls {
            return Err(self.error(format!(
                "an array of {} slots{} is read up to slot {end} (a child shorter than its parent)",
                array.len(),
                if short_nulls { " with a shorter validity bitmap" } else { "" }
            )));
        }
        Ok(())
    }

    fn mismatch(&self, t: &DataType) -> Error {
        self.error(format!("the array's type {t} is not the schema's"))
    }

    #[allow(clippy::too_many_arguments)]
    fn visit_struct(
        &mut self,
        depth: usize,
        s: &StructArray,
        nullable: bool,
        child: usize,
        start: usize,
        end: usize,
        def: i16,
        rep: i16,
    ) -> Result<()> {
        self.check_len(s, end)?;
        let column = s.columns().get(child).ok_or_else(|| self.mismatch(s.data_type()))?;
        let inner = def + i16::from(nullable);
        match s.nulls().filter(|n| n.null_count() > 0) {
            None => self.visit(depth + 1, column, start, end, inner, rep),
            Some(nulls) => {
                let mut pos = start;
                for (a, b) in BitSliceIterator::new(nulls.validity(), nulls.offset() + start, end - start) {
                    let (a, b) = (start + a, start + b);
                    self.null_entries(depth, nullable, def, rep, a - pos)?;
                    self.visit(depth + 1, column, a, b, inner, rep)?;
                    pos = b;
                }
                self.null_entries(depth, nullable, def, rep, end - pos)
            }
        }
    }

    /// `n` null entries of the node at `depth` (an error if it is not nullable).
    fn null_entries(&mut self, depth: usize, nullable: bool, def: i16, rep: i16, n: usize) -> Result<()> {
        if n > 0 {
            if !nullable {
                return Err(self.not_nullable(depth));
            }
            self.push(def, rep, n);
        }
        Ok(())
    }

    fn visit_list(
        &mut self,
        depth: usize,
        list: &List<'_>,
        start: usize,
        end: usize,
        def: i16,
        rep: i16,
    ) -> Result<()> {
        // One loop per offset kind: the rows' loop then reads its offsets without a match per
        // row.
        match list.offsets {
            Offsets::Small(o) => self.list_rows(depth, list, start, end, def, rep, starts(o)),
            Offsets::Large(o) => self.list_rows(depth, list, start, end, def, rep, starts(o)),
            Offsets::Fixed(n) => self.list_rows(depth, list, start, end, def, rep, |k| k.checked_mul(n)),
        }
    }

    /// [`visit_list`](Self::visit_list) with `offset(k)`, where list `k` starts in the child.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn list_rows(
        &mut self,
        depth: usize,
        list: &List<'_>,
        start: usize,
        end: usize,
        def: i16,
        rep: i16,
        offset: impl Fn(usize) -> Option<usize> + Copy,
    ) -> Result<()> {
        let present = def + i16::from(list.nullable);
        let nulls = list.nulls.as_ref().filter(|n| n.null_count() > 0);
        let bad_offsets = |s: &Self, k: usize| {
            s.error(format!(
                "the list offsets of row {k} (of this slice) are negative, decreasing or past the \
                 {} child values",
                list.child_len
            ))
        };
        // The open run of valid, non-empty lists: its first row.
        let mut run: Option<usize> = None;
        let mut from = offset(start).ok_or_else(|| bad_offsets(self, start))?;
        for k in start..end {
            let to = offset(k + 1).ok_or_else(|| bad_offsets(self, k))?;
            let valid = nulls.is_none_or(|n| n.is_valid(k));
            if valid && to > from {
                run.get_or_insert(k);
                from = to;
                continue;
            }
            if let Some(first) = run.take() {
                self.list_run(depth, list, first, k, present, rep, offset)?;
            }
            if !valid {
                self.null_entries(depth, list.nullable, def, rep, 1)?;
            } else if to < from {
                return Err(bad_offsets(self, k));
            } else {
                self.push(present, rep, 1);
            }
            from = to;
        }
        if let Some(first) = run {
            self.list_run(depth, list, first, end, present, rep, offset)?;
        }
        Ok(())
    }

    /// Lists `first..end`, all valid and non-empty (so their child ranges are contiguous and
    /// increasing): their elements in one visit, then each list's first entry lowered to `rep`.
    #[allow(clippy::too_many_arguments)]
    fn list_run(
        &mut self,
        depth: usize,
        list: &List<'_>,
        first: usize,
        end: usize,
        present: i16,
        rep: i16,
        offset: impl Fn(usize) -> Option<usize>,
    ) -> Result<()> {
        let a = offset(first).unwrap_or(0);
        let b = offset(end).unwrap_or(usize::MAX);
        if b > list.child_len {
            return Err(self.error(format!(
                "the list offsets of rows {first}..{end} (of this slice) reach {b}, past the {} \
                 child values",
                list.child_len
            )));
        }
        let at = self.out.rep.len();
        let inner = rep + 1;
        match list.child {
            Child::Array(c) => self.visit(depth + 1, c, a, b, present + 1, inner)?,
            Child::Entries(s) => {
                let Some(Nesting::Struct { nullable, child }) = self.leaf.nesting.get(depth + 1).copied() else {
                    return Err(self.mismatch(s.data_type()));
                };
                self.visit_struct(depth + 1, s, nullable, child, a, b, present + 1, inner)?;
            }
        }
        // Without a list below, each element is one entry (structs and the leaf).
        let flat_below = !self.leaf.nesting[depth + 1..].iter().any(|n| matches!(n, Nesting::List { .. }));
        let reps = &mut self.out.rep[at..];
        if flat_below {
            for k in first..end {
                let e = offset(k).unwrap_or(a) - a;
                reps[e] = rep as u16;
            }
        } else {
            // Elements start at the entries of level `inner`; deeper entries repeat within one.
            let (mut element, mut k) = (0, first);
            let mut target = 0;
            for r in reps.iter_mut() {
                if *r <= inner as u16 {
                    if element == target {
                        *r = rep as u16;
                        k += 1;
                        target = if k < end { offset(k).unwrap_or(a) - a } else { usize::MAX };
                    }
                    element += 1;
                }
            }
        }
        Ok(())
    }

    fn visit_leaf(
        &mut self,
        depth: usize,
        array: &ArrayRef,
        start: usize,
        end: usize,
        def: i16,
        rep: i16,
    ) -> Result<()> {
        if self.out.leaf_nulls.is_none() {
            let nulls = match array.data_type() {
                DataType::Dictionary(..) | DataType::Null => array.logical_nulls(),
                _ => array.nulls().cloned(),
            };
            self.out.leaf_nulls = Some(nulls.filter(|n| n.null_count() > 0));
        }
        if self.out.leaf.is_none() {
            self.out.leaf = Some(array.clone());
        }
        let max = self.leaf.max_def_level;
        let nullable = max > def;
        // Taken and put back, not cloned: this runs once per run of lists.
        let cached = self.out.leaf_nulls.take();
        let result = match cached.as_ref().and_then(Option::as_ref) {
            None => {
                self.push(max, rep, end - start);
                self.push_values(start, end);
                Ok(())
            }
            Some(nulls) => {
                // 64 values at a time from the validity bitmap (a list's runs of values are a
                // few dozen long, for which an iterator over runs of bits cost more to set up
                // than to run): a definition level per value, and the valid runs as ranges.
                let (bytes, offset) = (nulls.validity(), nulls.offset());
                let mut pos = start;
                let mut result = Ok(());
                while pos < end {
                    let n = (end - pos).min(64);
                    let all = u64::MAX >> (64 - n);
                    let word = bits_at(bytes, offset + pos, n);
                    if word == all {
                        self.push(max, rep, n);
                        self.push_values(pos, pos + n);
                    } else if !nullable {
                        result = Err(self.not_nullable(depth));
                        break;
                    } else {
                        let (valid, null) = (max as u16, def as u16);
                        let len = self.out.def.len();
                        self.out.def.extend((0..n).map(|j| if word >> j & 1 == 1 { valid } else { null }));
                        if self.with_rep {
                            self.out.rep.resize(len + n, rep as u16);
                        }
                        let mut m = word;
                        while m != 0 {
                            let a = m.trailing_zeros() as usize;
                            let run = (!(m >> a)).trailing_zeros() as usize;
                            self.push_values(pos + a, pos + a + run);
                            m &= !((u64::MAX >> (64 - run)) << a);
                        }
                    }
                    pos += n;
                }
                result
            }
        };
        self.out.leaf_nulls = cached;
        result
    }

    fn push_values(&mut self, a: usize, b: usize) {
        match self.out.values.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ if a < b => self.out.values.push((a, b)),
            _ => {}
        }
    }
}

/// Where list `k` starts in its child, from Arrow offsets (`None` if negative or past them).
fn starts<T: Copy>(offsets: &[T]) -> impl Fn(usize) -> Option<usize> + Copy + '_
where
    usize: TryFrom<T>,
{
    move |k| offsets.get(k).and_then(|&v| usize::try_from(v).ok())
}

/// Bits `start..start + n` (`n` from 1 to 64) of the LSB-first `bitmap`, as the low bits of a
/// word (bits past the bitmap read as 0).
#[inline]
fn bits_at(bitmap: &[u8], start: usize, n: usize) -> u64 {
    let (first, shift) = (start / 8, start % 8);
    let wide = match bitmap.get(first..first + 16) {
        Some(b) => b.try_into().map_or(0, u128::from_le_bytes),
        None => bitmap
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take(16)
            .enumerate()
            .fold(0u128, |w, (k, &b)| w | u128::from(b) << (8 * k)),
    };
    ((wide >> shift) as u64) & (u64::MAX >> (64 - n))
}

/// One list node being visited.
struct List<'a> {
    offsets: Offsets<'a>,
    child: Child<'a>,
    child_len: usize,
    nulls: Option<NullBuffer>,
    nullable: bool,
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder, StringBuilder};
    use arrow_array::{Int32Array, ListArray, StructArray};
    use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
    use arrow_schema::{Field, Fields, Schema};

    use super::*;
    use crate::write::schema::parquet_schema;

    /// A leaf's path, definition levels, repetition levels and value ranges.
    type Leaf = (String, Vec<u16>, Vec<u16>, Vec<(usize, usize)>);

    /// Shreds `column` for each of its leaves.
    fn levels(column: ArrayRef, nullable: bool) -> Vec<Leaf> {
        let schema = Schema::new(vec![Field::new("c", column.data_type().clone(), nullable)]);
        let (_, leaves) = parquet_schema(&schema, &crate::write::WriteOptions::default()).unwrap();
        leaves
            .iter()
            .map(|leaf| {
                let mut out = Shredded::default();
                shred(leaf, &column, 0..column.len(), &mut out).unwrap();
                (leaf.path.clone(), out.def, out.rep, out.values)
            })
            .collect()
    }

    #[test]
    fn a_list_with_null_elements_empty_and_null_lists() {
        let mut b = ListBuilder::new(Int32Builder::new());
        b.append_value([Some(1), None, Some(2)]);
        b.append_value([]);
        b.append_null();
        b.append_value([Some(3)]);
        let got = levels(Arc::new(b.finish()), true);
        // Null list 0, empty list 1, null element 2, value 3 (pyarrow's histograms agree).
        assert_eq!(
            got,
            vec![("c.list.element".into(), vec![3, 2, 3, 1, 0, 3], vec![0, 1, 1, 0, 0, 0], vec![(0, 1), (2, 4)])]
        );
    }

    #[test]
    fn lists_of_lists_lower_each_lists_first_entry() {
        let mut b = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
        // [[1, 2], []], null, [[], [3]], [null]
        b.values().values().append_value(1);
        b.values().values().append_value(2);
        b.values().append(true);
        b.values().append(true);
        b.append(true);
        b.append(false);
        b.values().append(true);
        b.values().values().append_value(3);
        b.values().append(true);
        b.append(true);
        b.values().append(false);
        b.append(true);
        let got = levels(Arc::new(b.finish()), true);
        let def = vec![5, 5, 3, 0, 3, 5, 2];
        let rep = vec![0, 2, 1, 0, 0, 1, 0];
        assert_eq!(got, vec![("c.list.element.list.element".into(), def, rep, vec![(0, 3)])]);
    }

    #[test]
    fn a_struct_gives_its_nulls_to_every_child() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), Some(7), None]));
        let fields = Fields::from(vec![Field::new("a", DataType::Int32, true)]);
        let s = StructArray::try_new(fields, vec![a], Some(NullBuffer::from(vec![true, false, true]))).unwrap();
        let got = levels(Arc::new(s), true);
        assert_eq!(got, vec![("c.a".into(), vec![2, 0, 1], vec![], vec![(0, 1)])]);
    }

    #[test]
    fn null_lists_spanning_values_and_slices_skip_those_values() {
        let values = Arc::new(Int32Array::from(vec![1, 2, 3, 4, 5]));
        let offsets = OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 4, 5]));
        let f = Arc::new(Field::new("item", DataType::Int32, true));
        let l = ListArray::try_new(f, offsets, values, Some(NullBuffer::from(vec![true, false, true]))).unwrap();
        let got = levels(Arc::new(l.slice(1, 2)), true);
        assert_eq!(got, vec![("c.list.element".into(), vec![0, 3], vec![0, 0], vec![(4, 5)])]);
    }

    #[test]
    fn maps_have_required_keys_and_optional_values() {
        let mut b = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
        b.keys().append_value("a");
        b.values().append_value(1);
        b.keys().append_value("b");
        b.values().append_null();
        b.append(true).unwrap();
        b.append(false).unwrap();
        b.append(true).unwrap();
        let got = levels(Arc::new(b.finish()), true);
        assert_eq!(
            got,
            vec![
                ("c.key_value.key".into(), vec![2, 2, 0, 1], vec![0, 1, 0, 0], vec![(0, 2)]),
                ("c.key_value.value".into(), vec![3, 2, 0, 1], vec![0, 1, 0, 0], vec![(0, 1)]),
            ]
        );
    }
}
