//! Nested Arrow arrays for the writer's tests: random types (lists of every kind, structs,
//! maps, at any depth, over many leaf types) and random arrays of them from a seed, with null
//! and empty lists at every level, null list rows whose offsets still span child values (which
//! a writer must skip), and sliced arrays; plus the leaf paths of a schema and a comparison
//! that ignores list element names (pyarrow names every list element `element`).
//!
//! Include with `#[path = "common/nested_data.rs"] mod nested_data;` beside
//! `#[path = "common/write_data.rs"] mod write_data;`.
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayData;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};

use super::write_data::Rng;

/// How random nested arrays look.
#[derive(Debug, Clone, Copy)]
pub struct NestedShape {
    /// Percent of null slots in nullable arrays, at every level.
    pub null_percent: u64,
    /// Most elements of a variable-size list or map (lengths are uniform in `0..=max_len`).
    pub max_len: u64,
    /// Distinct values of strings and dictionaries.
    pub distinct: u64,
}

impl Default for NestedShape {
    fn default() -> Self {
        NestedShape { null_percent: 20, max_len: 4, distinct: 30 }
    }
}

/// The leaf types random nested types are made of.
pub fn leaf_types() -> Vec<DataType> {
    vec![
        DataType::Int32,
        DataType::Int64,
        DataType::Int8,
        DataType::UInt16,
        DataType::UInt64,
        DataType::Float32,
        DataType::Float64,
        DataType::Float16,
        DataType::Boolean,
        DataType::Utf8,
        DataType::LargeUtf8,
        DataType::Binary,
        DataType::LargeBinary,
        DataType::Utf8View,
        DataType::BinaryView,
        DataType::FixedSizeBinary(5),
        DataType::Decimal128(9, 2),
        DataType::Decimal128(20, 3),
        DataType::Date32,
        DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        DataType::Time64(TimeUnit::Nanosecond),
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        DataType::Null,
    ]
}

fn pick<T: Clone>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize].clone()
}

/// A random type: a leaf, or a list, large list, fixed-size list, struct or map nested at most
/// `depth` levels over `leaves`.
pub fn random_type(rng: &mut Rng, depth: usize, leaves: &[DataType]) -> DataType {
    if depth == 0 || rng.chance(25) {
        return pick(rng, leaves);
    }
    let element = |rng: &mut Rng, name: &str| {
        let t = random_type(rng, depth - 1, leaves);
        let nullable = random_nullable(rng, &t);
        Arc::new(Field::new(name, t, nullable))
    };
    match rng.below(7) {
        0 | 1 => DataType::List(element(rng, "item")),
        2 => DataType::LargeList(element(rng, "element")),
        3 => DataType::FixedSizeList(element(rng, "item"), 1 + rng.below(3) as i32),
        4 | 5 => {
            let n = 1 + rng.below(3) as usize;
            let fields: Fields = (0..n)
                .map(|i| {
                    let t = random_type(rng, depth - 1, leaves);
                    let nullable = random_nullable(rng, &t);
                    Field::new(format!("f{i}"), t, nullable)
                })
                .collect();
            DataType::Struct(fields)
        }
        _ => {
            let key = pick(rng, &[DataType::Utf8, DataType::Int32]);
            let value = random_type(rng, depth - 1, leaves);
            let nullable = random_nullable(rng, &value);
            map_type(key, value, nullable)
        }
    }
}

/// Whether a random field of type `t` is nullable: 3 times in 4, and always for fixed-size
/// lists and dictionaries (and Null, which is all nulls), which pyarrow cannot read back when required under a null parent
/// (it fails on its own files with a required fixed-size list under a null struct, "Expected
/// all lists to be of size=N", and gives a required dictionary under a null parent a key that
/// arrow-rs refuses as out of bounds).
pub fn random_nullable(rng: &mut Rng, t: &DataType) -> bool {
    matches!(t, DataType::FixedSizeList(..) | DataType::Dictionary(..) | DataType::Null) || rng.chance(75)
}

/// A map type with arrow-rs's default names (`entries`, `keys`, `values`).
pub fn map_type(key: DataType, value: DataType, value_nullable: bool) -> DataType {
    let entries = Fields::from(vec![Field::new("keys", key, false), Field::new("values", value, value_nullable)]);
    DataType::Map(Arc::new(Field::new("entries", DataType::Struct(entries), false)), false)
}

fn nulls(rng: &mut Rng, len: usize, nullable: bool, shape: &NestedShape) -> Option<NullBuffer> {
    if !nullable || shape.null_percent == 0 {
        return None;
    }
    let valid: Vec<bool> = (0..len).map(|_| !rng.chance(shape.null_percent)).collect();
    Some(NullBuffer::from(valid))
}

/// A random array of `t` with `len` slots (nulls only if `nullable`), sometimes a slice of a
/// longer one.
pub fn random_array(rng: &mut Rng, t: &DataType, len: usize, nullable: bool, shape: &NestedShape) -> ArrayRef {
    if rng.chance(20) {
        let (before, after) = (rng.below(5) as usize, rng.below(5) as usize);
        let a = array_of(rng, t, before + len + after, nullable, shape);
        return a.slice(before, len);
    }
    array_of(rng, t, len, nullable, shape)
}

/// Offsets of `len` lists, their validity, and the child length: null lists sometimes span
/// child values (which no reader shows and no writer may write).
fn list_offsets(rng: &mut Rng, len: usize, nullable: bool, shape: &NestedShape) -> (Vec<usize>, Option<NullBuffer>) {
    let validity = nulls(rng, len, nullable, shape);
    let mut offsets = Vec::with_capacity(len + 1);
    offsets.push(0);
    for i in 0..len {
        let null = validity.as_ref().is_some_and(|n| n.is_null(i));
        let n = if null && !rng.chance(30) { 0 } else { rng.below(shape.max_len + 1) as usize };
        offsets.push(offsets[i] + n);
    }
    (offsets, validity)
}

fn array_of(rng: &mut Rng, t: &DataType, len: usize, nullable: bool, shape: &NestedShape) -> ArrayRef {
    match t {
        DataType::List(f) | DataType::LargeList(f) => {
            let (offsets, validity) = list_offsets(rng, len, nullable, shape);
            let values = random_array(rng, f.data_type(), offsets[len], f.is_nullable(), shape);
            if matches!(t, DataType::List(_)) {
                let o = OffsetBuffer::new(ScalarBuffer::from(offsets.iter().map(|&o| o as i32).collect::<Vec<_>>()));
                Arc::new(ListArray::try_new(f.clone(), o, values, validity).unwrap())
            } else {
                let o = OffsetBuffer::new(ScalarBuffer::from(offsets.iter().map(|&o| o as i64).collect::<Vec<_>>()));
                Arc::new(LargeListArray::try_new(f.clone(), o, values, validity).unwrap())
            }
        }
        DataType::FixedSizeList(f, n) => {
            let validity = nulls(rng, len, nullable, shape);
            let values = random_array(rng, f.data_type(), len * *n as usize, f.is_nullable(), shape);
            Arc::new(FixedSizeListArray::try_new(f.clone(), *n, values, validity).unwrap())
        }
        DataType::Struct(fields) => {
            let validity = nulls(rng, len, nullable, shape);
            let children =
                fields.iter().map(|f| random_array(rng, f.data_type(), len, f.is_nullable(), shape)).collect();
            Arc::new(StructArray::try_new(fields.clone(), children, validity).unwrap())
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else { unreachable!() };
            let (offsets, validity) = list_offsets(rng, len, nullable, shape);
            let n = offsets[len];
            let keys: ArrayRef = match kv[0].data_type() {
                DataType::Int32 => Arc::new(Int32Array::from_iter_values((0..n).map(|_| rng.below(1000) as i32))),
                _ => Arc::new(StringArray::from_iter_values((0..n).map(|i| format!("k{i}{}", rng.string(3))))),
            };
            let values = random_array(rng, kv[1].data_type(), n, kv[1].is_nullable(), shape);
            let entries_array = StructArray::try_new(kv.clone(), vec![keys, values], None).unwrap();
            let o = OffsetBuffer::new(ScalarBuffer::from(offsets.iter().map(|&o| o as i32).collect::<Vec<_>>()));
            Arc::new(MapArray::try_new(entries.clone(), o, entries_array, validity, false).unwrap())
        }
        leaf => leaf_array(rng, leaf, len, nullable, shape),
    }
}

/// A random flat array of `t`.
pub fn leaf_array(rng: &mut Rng, t: &DataType, len: usize, nullable: bool, shape: &NestedShape) -> ArrayRef {
    let s = if nullable { shape.null_percent } else { 0 };
    macro_rules! prim {
        ($ty:ty, $f:expr) => {{
            let a: PrimitiveArray<$ty> = (0..len).map(|_| (!rng.chance(s)).then(|| $f(rng.next()))).collect();
            Arc::new(a.with_data_type(t.clone())) as ArrayRef
        }};
    }
    let d = shape.distinct.max(1);
    match t {
        DataType::Int32 => prim!(Int32Type, |v: u64| v as i32),
        DataType::Int64 => prim!(Int64Type, |v: u64| v as i64),
        DataType::Int8 => prim!(Int8Type, |v: u64| v as i8),
        DataType::UInt16 => prim!(UInt16Type, |v: u64| v as u16),
        DataType::UInt64 => prim!(UInt64Type, |v: u64| v),
        DataType::Float32 => prim!(Float32Type, |v: u64| (v % 10_000) as f32 / 7.0 - 700.0),
        DataType::Float64 => prim!(Float64Type, |v: u64| (v % 1_000_000) as f64 / 3.0 - 1000.0),
        DataType::Float16 => {
            type F16 = <Float16Type as ArrowPrimitiveType>::Native;
            prim!(Float16Type, |v: u64| F16::from_f32((v % 2000) as f32 / 8.0 - 100.0))
        }
        DataType::Date32 => prim!(Date32Type, |v: u64| (v % 40_000) as i32 - 10_000),
        DataType::Time64(_) => prim!(Time64NanosecondType, |v: u64| (v % 86_400_000_000_000) as i64),
        DataType::Timestamp(..) => prim!(TimestampMicrosecondType, |v: u64| (v >> 12) as i64 - (1 << 50)),
        DataType::Decimal128(p, _) => {
            let m = 10i128.pow(*p as u32);
            prim!(Decimal128Type, |v: u64| (v as i128 * 7919) % m)
        }
        DataType::Boolean => {
            Arc::new((0..len).map(|_| (!rng.chance(s)).then(|| rng.chance(50))).collect::<BooleanArray>())
        }
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            let v: Vec<Option<String>> =
                (0..len).map(|_| (!rng.chance(s)).then(|| format!("{}{}", rng.below(d), rng.string(6)))).collect();
            match t {
                DataType::Utf8 => Arc::new(StringArray::from(v)),
                DataType::LargeUtf8 => Arc::new(LargeStringArray::from(v)),
                _ => Arc::new(StringViewArray::from_iter(v)),
            }
        }
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            let v: Vec<Option<Vec<u8>>> = (0..len).map(|_| (!rng.chance(s)).then(|| rng.bytes(0, 20))).collect();
            let r: Vec<Option<&[u8]>> = v.iter().map(|b| b.as_deref()).collect();
            match t {
                DataType::Binary => Arc::new(BinaryArray::from(r)),
                DataType::LargeBinary => Arc::new(LargeBinaryArray::from(r)),
                _ => Arc::new(BinaryViewArray::from_iter(r)),
            }
        }
        DataType::FixedSizeBinary(w) => {
            let v: Vec<Option<Vec<u8>>> =
                (0..len).map(|_| (!rng.chance(s)).then(|| rng.bytes(*w as usize, *w as usize))).collect();
            Arc::new(FixedSizeBinaryArray::try_from_sparse_iter_with_size(v.into_iter(), *w).unwrap())
        }
        DataType::Dictionary(..) => {
            let values =
                StringArray::from_iter_values((0..d).map(|i| format!("value {i} {}", "x".repeat(i as usize % 7))));
            let keys: Int32Array = (0..len).map(|_| (!rng.chance(s)).then(|| rng.below(d) as i32)).collect();
            Arc::new(DictionaryArray::<Int32Type>::try_new(keys, Arc::new(values)).unwrap())
        }
        DataType::Null => Arc::new(NullArray::new(len)),
        other => panic!("no generator for {other}"),
    }
}

/// The Parquet leaf paths of a schema and their Arrow leaf types, as the writer names them
/// (`<list>.list.element`, `<map>.key_value.key` / `.value`, `<struct>.<child>`).
pub fn leaf_paths(schema: &Schema) -> Vec<(String, DataType)> {
    fn walk(path: String, t: &DataType, out: &mut Vec<(String, DataType)>) {
        match t {
            DataType::Struct(fs) => fs.iter().for_each(|f| walk(format!("{path}.{}", f.name()), f.data_type(), out)),
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                walk(format!("{path}.list.element"), f.data_type(), out)
            }
            DataType::Map(e, _) => {
                let DataType::Struct(kv) = e.data_type() else { unreachable!() };
                walk(format!("{path}.key_value.key"), kv[0].data_type(), out);
                walk(format!("{path}.key_value.value"), kv[1].data_type(), out);
            }
            t => out.push((path, t.clone())),
        }
    }
    let mut out = Vec::new();
    schema.fields().iter().for_each(|f| walk(f.name().clone(), f.data_type(), &mut out));
    out
}

/// Whether two types are the same but for the names of list elements (and map fields).
pub fn same_but_names(a: &DataType, b: &DataType) -> bool {
    use DataType as D;
    let fields =
        |x: &Field, y: &Field| x.is_nullable() == y.is_nullable() && same_but_names(x.data_type(), y.data_type());
    match (a, b) {
        (D::List(x), D::List(y)) | (D::LargeList(x), D::LargeList(y)) => fields(x, y),
        (D::FixedSizeList(x, n), D::FixedSizeList(y, m)) => n == m && fields(x, y),
        // pyarrow names map entries `key` and `value` (arrow-rs `keys` and `values`).
        (D::Map(x, s), D::Map(y, t)) => match (x.data_type(), y.data_type()) {
            (D::Struct(a), D::Struct(b)) => {
                s == t && a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| fields(x, y))
            }
            _ => false,
        },
        (D::Struct(x), D::Struct(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(x, y)| x.name() == y.name() && fields(x, y))
        }
        _ => a == b,
    }
}

/// `data` with the type `t` (the same but for names), children retyped alike.
pub fn retype(data: ArrayData, t: &DataType) -> ArrayData {
    use DataType as D;
    let child_types: Vec<DataType> = match t {
        D::List(f) | D::LargeList(f) | D::FixedSizeList(f, _) | D::Map(f, _) => vec![f.data_type().clone()],
        D::Struct(fs) => fs.iter().map(|f| f.data_type().clone()).collect(),
        _ => return data,
    };
    let children: Vec<ArrayData> =
        data.child_data().iter().zip(&child_types).map(|(c, ct)| retype(c.clone(), ct)).collect();
    data.into_builder().data_type(t.clone()).child_data(children).build().unwrap()
}

/// `got` named like `want` when only names differ (pyarrow's `element` for arrow-rs's `item`).
pub fn named_like(want: &ArrayRef, got: &ArrayRef) -> ArrayRef {
    if want.data_type() != got.data_type() && same_but_names(want.data_type(), got.data_type()) {
        make_array(retype(got.to_data(), want.data_type()))
    } else {
        got.clone()
    }
}

/// Sets each leaf's non-dictionary encoding by its Arrow type (see `write_helpers::per_type`,
/// which does it for top-level fields): `ints`, `bytes` (BYTE_ARRAY), `floats`, `fixed`
/// (FIXED_LEN_BYTE_ARRAY). Booleans and Arrow dictionaries keep the default.
pub fn per_leaf(
    mut o: parquetry::write::WriteOptions,
    schema: &Schema,
    ints: parquetry::format::Encoding,
    bytes: parquetry::format::Encoding,
    floats: parquetry::format::Encoding,
    fixed: parquetry::format::Encoding,
) -> parquetry::write::WriteOptions {
    use DataType as D;
    for (path, t) in leaf_paths(schema) {
        let e = match t {
            D::Dictionary(..) | D::Boolean | D::Null => continue,
            D::Float32 | D::Float64 => floats,
            D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView => bytes,
            D::FixedSizeBinary(_) | D::Float16 => fixed,
            D::Decimal128(p, _) if p > 18 => fixed,
            _ => ints,
        };
        o = o.with_column_encoding(&path, e);
    }
    o
}

/// Every difference between `want` and `got` (read by another library), list element names
/// aside.
pub fn diff_named_like(want: &super::read_compare::Table, got: &super::read_compare::Table) -> Vec<String> {
    let mut got = got.clone();
    if got.names == want.names {
        got.columns = want.columns.iter().zip(&got.columns).map(|(w, g)| named_like(w, g)).collect();
    }
    super::read_compare::diff_tables(want, &got)
}
