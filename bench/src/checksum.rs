//! The output checksum of bench/peers.py, reproduced exactly (see its module docstring), so
//! that a fast wrong answer cannot win: per column, over all rows of all batches in order,
//! with wrapping u64 arithmetic.
//!
//! Byte-array columns (Utf8/Binary, large, view, fixed-size, or a dictionary of them):
//! `null_count`, `values`, `bytes` (sum of lengths), `byte_sum` (every byte as 0..255),
//! `len_weighted_sum` (len_i × (i + 1), 0 for nulls). Fixed-width columns: `null_count`,
//! `values`, `bit_sum` (signed integers sign-extended, unsigned zero-extended, floats as
//! `f64::to_bits`, booleans 0/1, over non-null rows).

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrowPrimitiveType, RecordBatch};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use serde_json::{json, Map, Value};

/// The checksum of a whole read plus the figures derived from it.
pub struct FileSum {
    /// `{"rows": .., "columns": {name: {..}}}`, as peers.py writes it.
    pub checksum: Value,
    /// Rows over all batches.
    pub rows: u64,
    /// Value bytes (peers.py `value_bytes`): byte-array lengths plus fixed-width sizes.
    pub value_bytes: u64,
}

#[derive(Default)]
struct ByteSum {
    null_count: u64,
    values: u64,
    bytes: u64,
    byte_sum: u64,
    weighted: u64,
}

impl ByteSum {
    /// Adds one non-null value at 1-based row `row`.
    #[inline]
    fn push(&mut self, row: u64, v: &[u8]) {
        let len = v.len() as u64;
        self.values += 1;
        self.bytes = self.bytes.wrapping_add(len);
        self.byte_sum = self.byte_sum.wrapping_add(sum_bytes(v));
        self.weighted = self.weighted.wrapping_add(len.wrapping_mul(row));
    }

    fn to_json(&self) -> Value {
        json!({"kind": "byte_array", "null_count": self.null_count, "values": self.values,
               "bytes": self.bytes, "byte_sum": self.byte_sum, "len_weighted_sum": self.weighted})
    }
}

#[derive(Default)]
struct FixedSum {
    null_count: u64,
    values: u64,
    bit_sum: u64,
}

impl FixedSum {
    fn to_json(&self) -> Value {
        json!({"kind": "fixed", "null_count": self.null_count, "values": self.values,
               "bit_sum": self.bit_sum})
    }
}

enum ColumnSum {
    Bytes(ByteSum),
    Fixed(FixedSum, u64),
}

/// Sum of bytes as unsigned integers, in blocks a u32 cannot overflow (vectorizes).
fn sum_bytes(v: &[u8]) -> u64 {
    v.chunks(1 << 16).map(|c| u64::from(c.iter().map(|&b| u32::from(b)).sum::<u32>())).sum()
}

/// Checksums all `batches` (which share `schema`).
pub fn file_checksum(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<FileSum, String> {
    let mut columns = Map::new();
    let mut rows = 0u64;
    let mut value_bytes = 0u64;
    for (c, field) in schema.fields().iter().enumerate() {
        let dt = field.data_type();
        let mut sum = if is_byte_array(value_type(dt)) {
            ColumnSum::Bytes(ByteSum::default())
        } else {
            let width = value_type(dt).primitive_width().map(|w| w as u64 * 8).unwrap_or(1);
            ColumnSum::Fixed(FixedSum::default(), width)
        };
        let mut row0 = 0u64;
        for batch in batches {
            let array = batch.column(c).as_ref();
            match &mut sum {
                ColumnSum::Bytes(s) => add_byte_array(s, array, row0)?,
                ColumnSum::Fixed(s, _) => add_fixed(s, array)?,
            }
            row0 += array.len() as u64;
        }
        rows = row0;
        let (json, bytes) = match &sum {
            ColumnSum::Bytes(s) => (s.to_json(), s.bytes),
            ColumnSum::Fixed(s, bits) => (s.to_json(), s.values * bits / 8),
        };
        value_bytes += bytes;
        columns.insert(field.name().clone(), json);
    }
    if schema.fields().is_empty() {
        rows = batches.iter().map(|b| b.num_rows() as u64).sum();
    }
    Ok(FileSum { checksum: json!({"rows": rows, "columns": columns}), rows, value_bytes })
}

fn value_type(dt: &DataType) -> &DataType {
    match dt {
        DataType::Dictionary(_, v) => v,
        other => other,
    }
}

fn is_byte_array(dt: &DataType) -> bool {
    use DataType::*;
    matches!(dt, Utf8 | LargeUtf8 | Utf8View | Binary | LargeBinary | BinaryView | FixedSizeBinary(_))
}

/// Calls `f(i, value)` for every non-null slot; returns the number of nulls.
fn for_each_value<'a>(
    array: &'a dyn Array,
    value: impl Fn(usize) -> &'a [u8],
    mut f: impl FnMut(usize, &'a [u8]),
) -> u64 {
    match array.logical_nulls() {
        None => (0..array.len()).for_each(|i| f(i, value(i))),
        Some(n) => (0..array.len()).filter(|&i| n.is_valid(i)).for_each(|i| f(i, value(i))),
    }
    array.logical_null_count() as u64
}

fn add_byte_array(s: &mut ByteSum, array: &dyn Array, row0: u64) -> Result<(), String> {
    use DataType::*;
    let nulls = match array.data_type() {
        Utf8 => add_offsets(s, array.as_string::<i32>().offsets(), array.as_string::<i32>().values(), array, row0),
        LargeUtf8 => add_offsets(s, array.as_string::<i64>().offsets(), array.as_string::<i64>().values(), array, row0),
        Binary => add_offsets(s, array.as_binary::<i32>().offsets(), array.as_binary::<i32>().values(), array, row0),
        LargeBinary => {
            add_offsets(s, array.as_binary::<i64>().offsets(), array.as_binary::<i64>().values(), array, row0)
        }
        Utf8View => {
            let a = array.as_string_view();
            for_each_value(array, |i| a.value(i).as_bytes(), |i, v| s.push(row0 + i as u64 + 1, v))
        }
        BinaryView => {
            let a = array.as_binary_view();
            for_each_value(array, |i| a.value(i), |i, v| s.push(row0 + i as u64 + 1, v))
        }
        FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            for_each_value(array, |i| a.value(i), |i, v| s.push(row0 + i as u64 + 1, v))
        }
        Dictionary(_, _) => add_dictionary(s, array, row0)?,
        other => return Err(format!("no byte-array checksum for Arrow type {other}")),
    };
    s.null_count += nulls;
    Ok(())
}

/// Offsets + data arrays: one vectorized byte sum over the data when there are no nulls.
fn add_offsets<O: arrow_array::OffsetSizeTrait>(
    s: &mut ByteSum,
    offsets: &[O],
    data: &[u8],
    array: &dyn Array,
    row0: u64,
) -> u64 {
    if array.null_count() == 0 {
        let (first, last) = (offsets[0].as_usize(), offsets[offsets.len() - 1].as_usize());
        s.byte_sum = s.byte_sum.wrapping_add(sum_bytes(&data[first..last]));
        s.bytes = s.bytes.wrapping_add((last - first) as u64);
        s.values += array.len() as u64;
        for (i, w) in offsets.windows(2).enumerate() {
            let len = (w[1].as_usize() - w[0].as_usize()) as u64;
            s.weighted = s.weighted.wrapping_add(len.wrapping_mul(row0 + i as u64 + 1));
        }
        return 0;
    }
    let value = |i: usize| &data[offsets[i].as_usize()..offsets[i + 1].as_usize()];
    for_each_value(array, value, |i, v| s.push(row0 + i as u64 + 1, v))
}

/// Keys of any integer type as i64, for dictionary lookups.
fn dictionary_keys(keys: &dyn Array) -> Result<Vec<i64>, String> {
    fn conv<T: ArrowPrimitiveType>(a: &dyn Array, f: impl Fn(T::Native) -> i64) -> Vec<i64> {
        a.as_primitive::<T>().values().iter().map(|&k| f(k)).collect()
    }
    Ok(match keys.data_type() {
        DataType::Int8 => conv::<Int8Type>(keys, i64::from),
        DataType::Int16 => conv::<Int16Type>(keys, i64::from),
        DataType::Int32 => conv::<Int32Type>(keys, i64::from),
        DataType::Int64 => conv::<Int64Type>(keys, |k| k),
        DataType::UInt8 => conv::<UInt8Type>(keys, i64::from),
        DataType::UInt16 => conv::<UInt16Type>(keys, i64::from),
        DataType::UInt32 => conv::<UInt32Type>(keys, i64::from),
        DataType::UInt64 => conv::<UInt64Type>(keys, |k| k as i64),
        other => return Err(format!("dictionary key type {other} is not an integer")),
    })
}

/// A dictionary: each dictionary entry's (length, byte sum) once, then one lookup per row.
/// Out-of-range keys are an error (not clamped), so a wrong key cannot pass unnoticed.
fn add_dictionary(s: &mut ByteSum, array: &dyn Array, row0: u64) -> Result<u64, String> {
    let dict = array.as_any_dictionary();
    let values = dict.values();
    let mut per_entry: Vec<Option<(u64, u64)>> = vec![None; values.len()];
    add_byte_array_entries(values.as_ref(), &mut |i, v| {
        per_entry[i] = Some((v.len() as u64, sum_bytes(v)));
    })?;
    let keys = dictionary_keys(dict.keys())?;
    let nulls = array.logical_nulls();
    let mut null_count = 0;
    for (i, &k) in keys.iter().enumerate() {
        if nulls.as_ref().is_some_and(|n| n.is_null(i)) {
            null_count += 1;
            continue;
        }
        let entry = usize::try_from(k).ok().and_then(|k| per_entry.get(k).copied());
        let Some(Some((len, sum))) = entry else {
            return Err(format!(
                "dictionary key {k} at row {} is out of range ({} values)",
                row0 + i as u64,
                values.len()
            ));
        };
        s.values += 1;
        s.bytes = s.bytes.wrapping_add(len);
        s.byte_sum = s.byte_sum.wrapping_add(sum);
        s.weighted = s.weighted.wrapping_add(len.wrapping_mul(row0 + i as u64 + 1));
    }
    Ok(null_count)
}

/// Calls `f(i, value)` for every non-null entry of a (non-dictionary) byte array.
fn add_byte_array_entries(array: &dyn Array, f: &mut dyn FnMut(usize, &[u8])) -> Result<(), String> {
    use DataType::*;
    match array.data_type() {
        Utf8 => {
            let a = array.as_string::<i32>();
            for_each_value(array, |i| a.value(i).as_bytes(), f);
        }
        LargeUtf8 => {
            let a = array.as_string::<i64>();
            for_each_value(array, |i| a.value(i).as_bytes(), f);
        }
        Binary => {
            let a = array.as_binary::<i32>();
            for_each_value(array, |i| a.value(i), f);
        }
        LargeBinary => {
            let a = array.as_binary::<i64>();
            for_each_value(array, |i| a.value(i), f);
        }
        Utf8View => {
            let a = array.as_string_view();
            for_each_value(array, |i| a.value(i).as_bytes(), f);
        }
        BinaryView => {
            let a = array.as_binary_view();
            for_each_value(array, |i| a.value(i), f);
        }
        FixedSizeBinary(_) => {
            let a = array.as_fixed_size_binary();
            for_each_value(array, |i| a.value(i), f);
        }
        other => return Err(format!("no checksum for dictionary values of type {other}")),
    }
    Ok(())
}

fn add_fixed(s: &mut FixedSum, array: &dyn Array) -> Result<(), String> {
    use DataType::*;
    fn prim<T: ArrowPrimitiveType>(s: &mut FixedSum, a: &dyn Array, bits: impl Fn(T::Native) -> u64) {
        let a = a.as_primitive::<T>();
        let values = a.values();
        let sum = match a.nulls() {
            None => values.iter().fold(0u64, |acc, &v| acc.wrapping_add(bits(v))),
            Some(n) => n.valid_indices().fold(0u64, |acc, i| acc.wrapping_add(bits(values[i]))),
        };
        s.bit_sum = s.bit_sum.wrapping_add(sum);
    }
    match array.data_type() {
        Boolean => {
            let a = array.as_boolean();
            let ones = match a.nulls() {
                None => a.true_count(),
                Some(n) => n.valid_indices().filter(|&i| a.value(i)).count(),
            };
            s.bit_sum = s.bit_sum.wrapping_add(ones as u64);
        }
        Int8 => prim::<Int8Type>(s, array, |v| v as i64 as u64),
        Int16 => prim::<Int16Type>(s, array, |v| v as i64 as u64),
        Int32 => prim::<Int32Type>(s, array, |v| v as i64 as u64),
        Int64 => prim::<Int64Type>(s, array, |v| v as u64),
        UInt8 => prim::<UInt8Type>(s, array, u64::from),
        UInt16 => prim::<UInt16Type>(s, array, u64::from),
        UInt32 => prim::<UInt32Type>(s, array, u64::from),
        UInt64 => prim::<UInt64Type>(s, array, |v| v),
        Float16 => prim::<Float16Type>(s, array, |v| v.to_f64().to_bits()),
        Float32 => prim::<Float32Type>(s, array, |v| f64::from(v).to_bits()),
        Float64 => prim::<Float64Type>(s, array, f64::to_bits),
        Date32 => prim::<Date32Type>(s, array, |v| v as i64 as u64),
        Date64 => prim::<Date64Type>(s, array, |v| v as u64),
        Time32(TimeUnit::Second) => prim::<Time32SecondType>(s, array, |v| v as i64 as u64),
        Time32(TimeUnit::Millisecond) => prim::<Time32MillisecondType>(s, array, |v| v as i64 as u64),
        Time64(TimeUnit::Microsecond) => prim::<Time64MicrosecondType>(s, array, |v| v as u64),
        Time64(TimeUnit::Nanosecond) => prim::<Time64NanosecondType>(s, array, |v| v as u64),
        Timestamp(TimeUnit::Second, _) => prim::<TimestampSecondType>(s, array, |v| v as u64),
        Timestamp(TimeUnit::Millisecond, _) => prim::<TimestampMillisecondType>(s, array, |v| v as u64),
        Timestamp(TimeUnit::Microsecond, _) => prim::<TimestampMicrosecondType>(s, array, |v| v as u64),
        Timestamp(TimeUnit::Nanosecond, _) => prim::<TimestampNanosecondType>(s, array, |v| v as u64),
        Duration(TimeUnit::Second) => prim::<DurationSecondType>(s, array, |v| v as u64),
        Duration(TimeUnit::Millisecond) => prim::<DurationMillisecondType>(s, array, |v| v as u64),
        Duration(TimeUnit::Microsecond) => prim::<DurationMicrosecondType>(s, array, |v| v as u64),
        Duration(TimeUnit::Nanosecond) => prim::<DurationNanosecondType>(s, array, |v| v as u64),
        other => return Err(format!("no checksum defined for Arrow type {other}")),
    }
    let nulls = array.null_count() as u64;
    s.null_count += nulls;
    s.values += array.len() as u64 - nulls;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{
        ArrayRef, DictionaryArray, Float64Array, Int32Array, LargeStringArray, StringArray, StringViewArray,
    };
    use arrow_schema::{Field, Schema};

    use super::*;

    fn sum_of(columns: Vec<ArrayRef>) -> Value {
        let fields: Vec<Field> =
            columns.iter().enumerate().map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true)).collect();
        let schema = Arc::new(Schema::new(fields));
        let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
        // Two batches: the row index must continue across them.
        file_checksum(&schema, &[batch.slice(0, 1), batch.slice(1, batch.num_rows() - 1)]).unwrap().checksum
    }

    #[test]
    fn byte_arrays_match_the_definition_in_every_layout() {
        let values = [Some("ab"), None, Some("c")];
        let expected = json!({"rows": 3, "columns": {"c0": {"kind": "byte_array", "null_count": 1,
            "values": 2, "bytes": 3, "byte_sum": 97 + 98 + 99, "len_weighted_sum": 2 * 1 + 1 * 3}}});
        let dict: DictionaryArray<Int32Type> = values.iter().copied().collect();
        let layouts: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(values.to_vec())),
            Arc::new(LargeStringArray::from(values.to_vec())),
            Arc::new(StringViewArray::from(values.to_vec())),
            Arc::new(dict),
        ];
        for array in layouts {
            let t = array.data_type().clone();
            assert_eq!(sum_of(vec![array]), expected, "{t}");
        }
    }

    #[test]
    fn fixed_width_bit_patterns() {
        let ints: ArrayRef = Arc::new(Int32Array::from(vec![Some(-1), None, Some(2)]));
        let floats: ArrayRef = Arc::new(Float64Array::from(vec![Some(1.5), Some(-0.0), None]));
        let got = sum_of(vec![ints, floats]);
        assert_eq!(got["columns"]["c0"], json!({"kind": "fixed", "null_count": 1, "values": 2, "bit_sum": 1}));
        let bits = 1.5f64.to_bits().wrapping_add((-0.0f64).to_bits());
        assert_eq!(got["columns"]["c1"], json!({"kind": "fixed", "null_count": 1, "values": 2, "bit_sum": bits}));
    }
}
