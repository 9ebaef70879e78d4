//! Arrow tables of every flat type the writer takes, with nulls, empty and non-ASCII strings,
//! long binaries and dictionaries, made from a seed: the inputs of the writer's tests.
#![allow(dead_code)]

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::*;
use arrow_buffer::i256;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn string(&mut self, max_len: usize) -> String {
        const PIECES: [&str; 8] = ["a", "b", "é", "€", "z", "0", "𝄞", " "];
        let n = self.below(max_len as u64 + 1) as usize;
        (0..n).map(|_| PIECES[self.below(8) as usize]).collect()
    }
    pub fn bytes(&mut self, min: usize, max: usize) -> Vec<u8> {
        let n = min + self.below((max - min) as u64 + 1) as usize;
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// How the generated columns look.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Percent of null rows in nullable columns (100 = all null).
    pub null_percent: u64,
    /// Distinct values of the low-cardinality string columns.
    pub distinct: u64,
    /// Largest binary value (long ones cross page limits).
    pub max_binary: usize,
}

impl Default for Shape {
    fn default() -> Self {
        Shape { null_percent: 15, distinct: 20, max_binary: 64 }
    }
}

fn opt<T>(rng: &mut Rng, shape: &Shape, v: T) -> Option<T> {
    (!rng.chance(shape.null_percent)).then_some(v)
}

/// A table with one column per supported flat type (`rows` rows, `batches` batches).
pub fn all_types(seed: u64, rows: usize, batches: usize, shape: Shape) -> (SchemaRef, Vec<RecordBatch>) {
    let mut rng = Rng::new(seed);
    let tz: Option<Arc<str>> = Some("+02:00".into());
    let fields = vec![
        Field::new("bool", DataType::Boolean, true),
        Field::new("i8", DataType::Int8, true),
        Field::new("i16", DataType::Int16, true),
        Field::new("i32", DataType::Int32, true),
        Field::new("i64", DataType::Int64, true),
        Field::new("i64_required", DataType::Int64, false),
        Field::new("u8", DataType::UInt8, true),
        Field::new("u16", DataType::UInt16, true),
        Field::new("u32", DataType::UInt32, true),
        Field::new("u64", DataType::UInt64, true),
        Field::new("f16", DataType::Float16, true),
        Field::new("f32", DataType::Float32, true),
        Field::new("f64", DataType::Float64, true),
        Field::new("date32", DataType::Date32, true),
        Field::new("date64", DataType::Date64, true),
        Field::new("time32_ms", DataType::Time32(TimeUnit::Millisecond), true),
        Field::new("time64_us", DataType::Time64(TimeUnit::Microsecond), true),
        Field::new("time64_ns", DataType::Time64(TimeUnit::Nanosecond), true),
        Field::new("ts_ms", DataType::Timestamp(TimeUnit::Millisecond, None), true),
        Field::new("ts_us_tz", DataType::Timestamp(TimeUnit::Microsecond, tz.clone()), true),
        Field::new("ts_ns", DataType::Timestamp(TimeUnit::Nanosecond, None), true),
        Field::new("duration_us", DataType::Duration(TimeUnit::Microsecond), true),
        Field::new("dec_7_2", DataType::Decimal128(7, 2), true),
        Field::new("dec_15_3", DataType::Decimal128(15, 3), true),
        Field::new("dec_30_5", DataType::Decimal128(30, 5), true),
        Field::new("dec256_50_10", DataType::Decimal256(50, 10), true),
        Field::new("utf8", DataType::Utf8, true),
        Field::new("utf8_required", DataType::Utf8, false),
        Field::new("large_utf8", DataType::LargeUtf8, true),
        Field::new("utf8_view", DataType::Utf8View, true),
        Field::new("binary", DataType::Binary, true),
        Field::new("large_binary", DataType::LargeBinary, true),
        Field::new("binary_view", DataType::BinaryView, true),
        Field::new("fixed5", DataType::FixedSizeBinary(5), true),
        Field::new("dict_utf8", DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)), true),
        Field::new("null", DataType::Null, true),
    ];
    let schema = Arc::new(Schema::new(fields));
    let mut out = Vec::new();
    let per = rows.div_ceil(batches.max(1));
    let mut left = rows;
    // One dictionary shared by every batch, as a reader hands them out.
    let categories: Vec<String> = (0..shape.distinct).map(|i| format!("category_{i:03}_{}", rng.string(3))).collect();
    let dict_values: ArrayRef = Arc::new(StringArray::from(categories.clone()));
    for _ in 0..batches.max(1) {
        let n = per.min(left);
        left -= n;
        let s = &shape;
        let r = &mut rng;
        macro_rules! prim {
            ($t:ty, $gen:expr) => {{
                let v: PrimitiveArray<$t> = (0..n)
                    .map(|_| {
                        let x = $gen(&mut *r);
                        opt(r, s, x)
                    })
                    .collect();
                Arc::new(v) as ArrayRef
            }};
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(
                (0..n)
                    .map(|_| {
                        let b = r.chance(50);
                        opt(r, s, b)
                    })
                    .collect::<BooleanArray>(),
            ),
            prim!(Int8Type, |r: &mut Rng| r.next() as i8),
            prim!(Int16Type, |r: &mut Rng| r.next() as i16),
            prim!(Int32Type, |r: &mut Rng| if r.chance(30) { r.below(10) as i32 } else { r.next() as i32 }),
            prim!(Int64Type, |r: &mut Rng| r.next() as i64),
            Arc::new((0..n).map(|_| r.next() as i64 >> 20).collect::<Int64Array>()),
            prim!(UInt8Type, |r: &mut Rng| r.next() as u8),
            prim!(UInt16Type, |r: &mut Rng| r.next() as u16),
            prim!(UInt32Type, |r: &mut Rng| r.next() as u32),
            prim!(UInt64Type, |r: &mut Rng| r.next()),
            f16_array(r, s, n),
            prim!(Float32Type, |r: &mut Rng| match r.below(20) {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                _ => (r.next() as i32) as f32 / 1000.0,
            }),
            prim!(Float64Type, |r: &mut Rng| match r.below(20) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                _ => (r.next() as i64) as f64 / 3.0,
            }),
            prim!(Date32Type, |r: &mut Rng| r.below(40000) as i32 - 10000),
            prim!(Date64Type, |r: &mut Rng| (r.below(40000) as i64 - 10000) * 86_400_000),
            prim!(Time32MillisecondType, |r: &mut Rng| r.below(86_400_000) as i32),
            prim!(Time64MicrosecondType, |r: &mut Rng| r.below(86_400_000_000) as i64),
            prim!(Time64NanosecondType, |r: &mut Rng| r.below(86_400_000_000_000) as i64),
            prim!(TimestampMillisecondType, |r: &mut Rng| r.below(4_000_000_000_000) as i64 - 1_000_000_000_000),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let x = r.below(4_000_000_000_000_000) as i64;
                        opt(r, s, x)
                    })
                    .collect::<TimestampMicrosecondArray>()
                    .with_timezone_opt(tz.clone()),
            ),
            prim!(TimestampNanosecondType, |r: &mut Rng| r.next() as i64 >> 2),
            prim!(DurationMicrosecondType, |r: &mut Rng| r.next() as i64 >> 8),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let x = (r.next() % 10_000_000) as i128 - 5_000_000;
                        opt(r, s, x)
                    })
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(7, 2)
                    .unwrap(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let x = (r.next() % 1_000_000_000_000_000) as i128 - 500_000_000_000_000;
                        opt(r, s, x)
                    })
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(15, 3)
                    .unwrap(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let x = ((r.next() as i128) << 30) - (r.next() as i128);
                        opt(r, s, x % 10i128.pow(30))
                    })
                    .collect::<Decimal128Array>()
                    .with_precision_and_scale(30, 5)
                    .unwrap(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let x = i256::from_i128(((r.next() >> 2) as i128) * ((r.next() >> 2) as i128))
                            .wrapping_mul(i256::from_i128(if r.chance(50) { -7 } else { 3 }));
                        opt(r, s, x)
                    })
                    .collect::<Decimal256Array>()
                    .with_precision_and_scale(50, 10)
                    .unwrap(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let v = r.string(12);
                        opt(r, s, v)
                    })
                    .collect::<StringArray>(),
            ),
            Arc::new((0..n).map(|_| Some(r.string(30))).collect::<StringArray>()),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let v = r.string(40);
                        opt(r, s, v)
                    })
                    .collect::<LargeStringArray>(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let v = r.string(20);
                        opt(r, s, v)
                    })
                    .collect::<StringViewArray>(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let v = r.bytes(0, s.max_binary);
                        opt(r, s, v)
                    })
                    .collect::<BinaryArray>(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let v = r.bytes(0, s.max_binary);
                        opt(r, s, v)
                    })
                    .collect::<LargeBinaryArray>(),
            ),
            Arc::new(
                (0..n)
                    .map(|_| {
                        let v = r.bytes(0, s.max_binary);
                        opt(r, s, v)
                    })
                    .collect::<BinaryViewArray>(),
            ),
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    (0..n).map(|_| {
                        let v = r.bytes(5, 5);
                        opt(r, s, v)
                    }),
                    5,
                )
                .unwrap(),
            ),
            Arc::new(
                DictionaryArray::<Int32Type>::try_new(
                    (0..n)
                        .map(|_| {
                            let k = r.below(shape.distinct.max(1)) as i32;
                            opt(r, s, k)
                        })
                        .collect(),
                    dict_values.clone(),
                )
                .unwrap(),
            ),
            Arc::new(NullArray::new(n)),
        ];
        out.push(RecordBatch::try_new(schema.clone(), columns).unwrap());
    }
    (schema, out)
}

/// Half floats from random bit patterns (NaN payloads excluded: every reader keeps the bits,
/// but NaN never equals itself in a comparison of values).
fn f16_array(r: &mut Rng, s: &Shape, n: usize) -> ArrayRef {
    type F16 = <Float16Type as ArrowPrimitiveType>::Native;
    let values: Float16Array = (0..n)
        .map(|_| {
            let mut b = r.next() as u16;
            if b & 0x7c00 == 0x7c00 {
                b &= !0x4000;
            }
            opt(r, s, F16::from_bits(b))
        })
        .collect();
    Arc::new(values)
}

/// `table` as Parquet readers give it back: pyarrow (and so parquetry) read a Date64 column as
/// Date32, since Parquet stores days.
pub fn as_read_back(columns: &[ArrayRef]) -> Vec<ArrayRef> {
    columns
        .iter()
        .map(|c| match c.data_type() {
            DataType::Date64 => {
                let d: Date32Array = c
                    .as_any()
                    .downcast_ref::<Date64Array>()
                    .unwrap()
                    .iter()
                    .map(|v| v.map(|ms| (ms / 86_400_000) as i32))
                    .collect();
                Arc::new(d) as ArrayRef
            }
            _ => c.clone(),
        })
        .collect()
}

/// The seeds of a property test's run: 0..40, or `PARQUETRY_PROPERTY_SEEDS=FIRST..END` (to
/// search longer).
pub fn property_seeds() -> std::ops::Range<u64> {
    match std::env::var("PARQUETRY_PROPERTY_SEEDS") {
        Ok(v) => {
            let (a, b) = v.split_once("..").expect("PARQUETRY_PROPERTY_SEEDS=FIRST..END");
            a.parse().unwrap()..b.parse().unwrap()
        }
        Err(_) => 0..40,
    }
}

/// One of `items`, uniformly.
pub fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

/// A number in `lo..=hi`, spread evenly over the powers of two between them.
pub fn log_uniform(rng: &mut Rng, lo: usize, hi: usize) -> usize {
    let (a, b) = ((lo.max(1) as f64).log2(), (hi as f64).log2());
    let x = a + (b - a) * (rng.below(1_000_001) as f64 / 1_000_000.0);
    (x.exp2() as usize).clamp(lo, hi)
}
