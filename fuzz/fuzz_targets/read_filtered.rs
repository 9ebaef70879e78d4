//! Filtered reads: the input is a Parquet file, read once whole and once with a predicate on
//! one of its top-level columns pushed down (row-group statistics, dictionaries, bloom
//! filters, the page index, late materialization).
//!
//! The predicate is drawn from a hash of the input, its literal from the file's own values
//! (so seeds have matches), and the read options too. Mutations then reach the structures
//! pruning trusts: statistics with min > max or of the wrong width, page indexes whose
//! offsets pass the chunk, bloom bitsets cut short, dictionaries that lie. Errors are fine.
//! A bug is a panic, hang or huge allocation, an invalid array, a returned row the predicate
//! does not hold for (as [`BatchFilter`] evaluates it on the decoded rows), or a returned row
//! that is not, in order, among the whole read's matching rows. Fewer rows are allowed on a
//! mutated file: statistics that check out but lie prune rows by the format's own rules.

#![no_main]

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use libfuzzer_sys::fuzz_target;
use parquetry::filter::{col, not, BatchFilter, Literal, Predicate};
use parquetry::read::{ByteArrayType, ParquetFile, ParquetReaderBuilder, ReadOptions};

#[path = "rng.rs"]
mod rng;
use rng::Rng;

/// Rows read whole at most: past it the target stops. The oracle evaluates the predicate on
/// every row under the fuzzer's instrumentation (every byte comparison traced), which took
/// 26 s for a 140,000-row seed: a timeout of the harness, not of the read.
const MAX_ROWS: usize = 1 << 15;

/// The value at `row` of `array` as a literal, for the types a predicate compares.
fn literal(array: &ArrayRef, row: usize) -> Option<Literal> {
    if array.is_null(row) {
        return None;
    }
    let a = array.as_ref();
    Some(match a.data_type() {
        DataType::Boolean => Literal::Bool(a.as_boolean().value(row)),
        DataType::Int8 => Literal::Int(a.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Literal::Int(a.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Literal::Int(a.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Literal::Int(a.as_primitive::<Int64Type>().value(row)),
        DataType::UInt8 => Literal::Int(a.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => Literal::Int(a.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => Literal::Int(a.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => Literal::UInt(a.as_primitive::<UInt64Type>().value(row)),
        DataType::Float32 => Literal::Float(a.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Literal::Float(a.as_primitive::<Float64Type>().value(row)),
        DataType::Date32 => Literal::Date(a.as_primitive::<Date32Type>().value(row)),
        DataType::Timestamp(unit, _) => {
            let value = match unit {
                TimeUnit::Second => a.as_primitive::<TimestampSecondType>().value(row),
                TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().value(row),
                TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().value(row),
                TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().value(row),
            };
            Literal::Timestamp { value, unit: *unit }
        }
        DataType::Decimal32(_, s) => decimal(a.as_primitive::<Decimal32Type>().value(row).into(), *s)?,
        DataType::Decimal64(_, s) => decimal(a.as_primitive::<Decimal64Type>().value(row).into(), *s)?,
        DataType::Decimal128(_, s) => decimal(a.as_primitive::<Decimal128Type>().value(row), *s)?,
        DataType::Utf8 => Literal::Str(a.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Literal::Str(a.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Literal::Str(a.as_string_view().value(row).to_owned()),
        DataType::Binary => Literal::Binary(a.as_binary::<i32>().value(row).to_vec()),
        DataType::LargeBinary => Literal::Binary(a.as_binary::<i64>().value(row).to_vec()),
        DataType::BinaryView => Literal::Binary(a.as_binary_view().value(row).to_vec()),
        DataType::FixedSizeBinary(_) => Literal::Binary(a.as_fixed_size_binary().value(row).to_vec()),
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let key = *d.normalized_keys().get(row)?;
            return literal(d.values(), key);
        }
        _ => return None,
    })
}

fn decimal(unscaled: i128, scale: i8) -> Option<Literal> {
    Some(Literal::Decimal { unscaled, scale: u8::try_from(scale).ok()? })
}

/// A char boundary at or below `at` in `s`.
fn floor_boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A test on column `name` whose literal is `value` (another value of the column `other`).
fn leaf(rng: &mut Rng, name: &str, value: Literal, other: Option<Literal>) -> Predicate {
    let c = col(name);
    match (rng.below(10), &value) {
        (0, _) => c.eq(value),
        (1, _) => c.ne(value),
        (2, _) => c.lt(value),
        (3, _) => c.le(value),
        (4, _) => c.gt(value),
        (5, _) => c.ge(value),
        (6, _) => c.is_in([Some(value), other].into_iter().flatten()),
        (7, _) => c.is_null(),
        (8, Literal::Str(s)) => {
            let cut = floor_boundary(s, rng.below(s.len() as u64 + 1) as usize);
            c.starts_with(&s[..cut])
        }
        (9, Literal::Str(s)) => {
            let from = floor_boundary(s, rng.below(s.len() as u64 + 1) as usize);
            let to = floor_boundary(s, from + rng.below((s.len() - from) as u64 + 1) as usize).max(from);
            c.contains(&s[from..to])
        }
        _ => c.is_not_null(),
    }
}

/// Up to two literals from column `i` of the whole read: one at a random row, and one at
/// another random row.
fn literals(rng: &mut Rng, batches: &[RecordBatch], i: usize, rows: usize) -> (Option<Literal>, Option<Literal>) {
    let at = |rng: &mut Rng| {
        let mut row = rng.below(rows as u64) as usize;
        for b in batches {
            if row < b.num_rows() {
                return literal(b.column(i), row);
            }
            row -= b.num_rows();
        }
        None
    };
    (at(rng), at(rng))
}

/// The number of rows of `batch` for which `filter` is true.
fn matching(filter: &BatchFilter, batch: &RecordBatch) -> Option<usize> {
    let mask = filter.evaluate(batch).ok()?;
    Some((0..mask.len()).filter(|&r| mask.is_valid(r) && mask.value(r)).count())
}

fuzz_target!(|data: &[u8]| {
    let Ok(file) = ParquetFile::from_bytes(data.to_vec()) else { return };
    let mut rng = Rng::new(data);
    let byte_arrays = match rng.below(4) {
        0 => ByteArrayType::Regular,
        1 => ByteArrayType::View,
        2 => ByteArrayType::Dictionary,
        _ => ByteArrayType::Large,
    };
    let base = ReadOptions::default().with_byte_array_type(byte_arrays);

    // The whole read: the oracle's rows, and where the literals come from.
    let Ok(whole) = ParquetReaderBuilder::new(file.clone()).with_options(base.clone()).build() else { return };
    let mut batches = Vec::new();
    let mut rows = 0usize;
    for batch in whole {
        let Ok(batch) = batch else { return };
        rows += batch.num_rows();
        if rows > MAX_ROWS {
            return;
        }
        batches.push(batch);
    }
    let schema = file.arrow_schema().clone();
    let fields = schema.fields().len();
    if fields == 0 || rows == 0 {
        return;
    }

    // One or two leaf tests on top-level columns, joined by AND or OR, maybe negated.
    let mut predicate: Option<Predicate> = None;
    let mut used = Vec::new();
    for _ in 0..1 + rng.below(2) {
        let i = rng.below(fields as u64) as usize;
        let (Some(value), other) = literals(&mut rng, &batches, i, rows) else { continue };
        let test = leaf(&mut rng, schema.field(i).name(), value, other);
        used.push(i);
        predicate = Some(match predicate {
            None => test,
            Some(p) if rng.chance(50) => p.and(test),
            Some(p) => p.or(test),
        });
    }
    let Some(mut predicate) = predicate else { return };
    if rng.chance(15) {
        predicate = not(predicate);
    }
    let Ok(filter) = BatchFilter::new(&predicate, &schema) else { return };

    // The filtered read: some columns, with the predicate's or without them (then a
    // dictionary column only the filter tests is read as its tests' result), small batches
    // or not, one or two threads.
    let with_tested = rng.chance(60);
    let mut columns: Vec<usize> = if with_tested { used.clone() } else { Vec::new() };
    for i in 0..fields {
        if !columns.contains(&i) && (!used.contains(&i) || with_tested) && rng.chance(50) {
            columns.push(i);
        }
    }
    columns.sort_unstable();
    let batch_size = [7, 100, 1024, 8192, 65536][rng.below(5) as usize];
    let mut options = base.with_columns(columns.clone()).with_batch_size(batch_size).with_filter(predicate.clone());
    if rng.chance(25) {
        options = options.with_threads(2);
    }
    let Ok(filtered) = ParquetReaderBuilder::new(file).with_options(options).build() else { return };
    let out_schema = arrow_array::RecordBatchReader::schema(&filtered);
    let check = match BatchFilter::new(&predicate, &out_schema) {
        Ok(check) => Some(check),
        Err(_) if !with_tested => None,
        Err(_) => panic!("the filtered read's schema {out_schema:?} lacks a column of {predicate}"),
    };
    let mut got = Vec::new();
    for batch in filtered {
        let Ok(batch) = batch else { return };
        assert!(batch.num_rows() <= batch_size, "batch of {} rows, asked for {batch_size}", batch.num_rows());
        for (i, column) in batch.columns().iter().enumerate() {
            if let Err(e) = column.to_data().validate_full() {
                panic!("column {i} ({}) is not a valid array: {e}", out_schema.field(i).name());
            }
        }
        if let Some(check) = &check {
            let Some(held) = matching(check, &batch) else { return };
            assert_eq!(held, batch.num_rows(), "{predicate}: a returned row does not match");
        }
        got.push(batch);
    }

    // The rows returned are, in order, among the whole read's matching rows (all of them on
    // a file whose statistics do not lie), compared on the columns read that hold no floats
    // (NaN equals nothing, not even itself).
    let mut expected = Vec::new();
    for b in &batches {
        let Ok(kept) = filter.apply(b) else { return };
        let Ok(kept) = kept.project(&columns) else { return };
        expected.push(kept);
    }
    let compared: Vec<usize> =
        (0..columns.len()).filter(|&c| !has_floats(out_schema.field(c).data_type())).collect();
    let mut at = (0usize, 0usize);
    let mut returned = 0usize;
    for batch in &got {
        for row in 0..batch.num_rows() {
            returned += 1;
            loop {
                let Some(e) = expected.get(at.0) else {
                    panic!("{predicate}: returned row {returned} is not among the whole read's matching rows, in order");
                };
                if at.1 >= e.num_rows() {
                    at = (at.0 + 1, 0);
                    continue;
                }
                let same = compared.iter().all(|&c| batch.column(c).slice(row, 1).to_data() == e.column(c).slice(at.1, 1).to_data());
                at.1 += 1;
                if same {
                    break;
                }
            }
        }
    }
});

/// Whether values of type `t` may hold floats (compared by IEEE rules, NaN unequal to itself).
fn has_floats(t: &DataType) -> bool {
    match t {
        DataType::Float16 | DataType::Float32 | DataType::Float64 => true,
        DataType::Dictionary(_, v) => has_floats(v),
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) | DataType::Map(f, _) => {
            has_floats(f.data_type())
        }
        DataType::ListView(f) | DataType::LargeListView(f) => has_floats(f.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| has_floats(f.data_type())),
        DataType::Union(fields, _) => fields.iter().any(|(_, f)| has_floats(f.data_type())),
        DataType::RunEndEncoded(_, v) => has_floats(v.data_type()),
        _ => false,
    }
}
