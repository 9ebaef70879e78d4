//! The kernels against arrow's filter (an independent implementation), on bitmaps of every
//! density, full and empty words, offsets, and lengths that are not a multiple of 64. On a
//! processor without AVX-512 every column goes through arrow's filter, and only the last
//! test has something to check.

use super::*;
use arrow_array::{Date32Array, Decimal64Array, Float32Array, Float64Array, Int64Array, StringArray};
use arrow_schema::{Field, Schema};

fn masks(n: usize) -> Vec<BooleanBuffer> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ n as u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = vec![BooleanBuffer::new_set(n), BooleanBuffer::new_unset(n)];
    for permille in [1u64, 100, 500, 900, 999] {
        out.push(BooleanBuffer::collect_bool(n, |_| next() % 1000 < permille));
    }
    // Runs of 64 and more set and unset, crossing words.
    out.push(BooleanBuffer::collect_bool(n, |i| (i / 100) % 2 == 0));
    // A bitmap that starts inside a byte.
    if n > 0 {
        let wider = BooleanBuffer::collect_bool(n + 3, |i| i % 3 != 0);
        out.push(wider.slice(3, n));
    }
    out
}

fn arrow_filter(a: &ArrayRef, keep: &BooleanBuffer) -> ArrayRef {
    arrow_select::filter::filter(a, &BooleanArray::new(keep.clone(), None)).expect("arrow's filter")
}

#[test]
fn kernels_select_what_arrows_filter_selects() {
    for n in [0usize, 1, 15, 16, 63, 64, 65, 127, 1000, 8192, 8195] {
        let ints: Vec<i64> = (0..n as i64).map(|i| i.wrapping_mul(0x5851_f42d_4c95_7f2d)).collect();
        let arrays: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(ints.clone())),
            Arc::new(Date32Array::from(ints.iter().map(|&i| i as i32).collect::<Vec<_>>())),
            Arc::new(Float32Array::from(ints.iter().map(|&i| i as f32).collect::<Vec<_>>())),
            Arc::new(Float64Array::from(ints.iter().map(|&i| i as f64).collect::<Vec<_>>())),
            // An array that starts inside its buffer.
            Arc::new(Int64Array::from([vec![7, 8, 9], ints.clone()].concat()).slice(3, n)),
        ];
        for keep in masks(n) {
            for a in &arrays {
                let want = arrow_filter(a, &keep);
                let Some(got) = own(a, &keep, a.data_type()) else {
                    assert!(!has_avx512(), "left to arrow with AVX-512");
                    continue;
                };
                assert_eq!(got.as_ref(), want.as_ref(), "{} of {n}, {} set", a.data_type(), keep.count_set_bits());
            }
        }
    }
}

#[test]
fn decimals_are_widened_as_they_are_selected() {
    for n in [0usize, 5, 64, 100, 8195] {
        let v: Vec<i64> = (0..n as i64).map(|i| if i % 2 == 0 { -i * 1_000_003 } else { i64::MAX - i }).collect();
        let a: ArrayRef = Arc::new(Decimal64Array::from(v.clone()).with_precision_and_scale(18, 2).expect("valid"));
        let to = DataType::Decimal128(18, 2);
        for keep in masks(n) {
            let want = arrow_cast::cast(&arrow_filter(&a, &keep), &to).expect("cast");
            let Some(got) = own(&a, &keep, &to) else {
                assert!(!has_avx512(), "left to arrow with AVX-512");
                continue;
            };
            assert_eq!(got.as_ref(), want.as_ref(), "{n}, {} set", keep.count_set_bits());
        }
    }
}

#[test]
fn other_columns_go_through_arrows_filter_in_the_same_batch() {
    let n = 300;
    let ints = Int64Array::from((0..n as i64).collect::<Vec<_>>());
    let with_nulls = Int64Array::from((0..n as i64).map(|i| (i % 7 != 0).then_some(i)).collect::<Vec<_>>());
    let strings = StringArray::from((0..n).map(|i| format!("s{i}")).collect::<Vec<_>>());
    let dec = Decimal64Array::from((0..n as i64).collect::<Vec<_>>()).with_precision_and_scale(10, 1).expect("valid");
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Utf8, false),
        Field::new("d", DataType::Decimal64(10, 1), false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(ints), Arc::new(with_nulls), Arc::new(strings), Arc::new(dec)],
    )
    .expect("batch");
    let output = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, false),
        Field::new("b", DataType::Int64, true),
        Field::new("c", DataType::Utf8, false),
        Field::new("d", DataType::Decimal128(10, 1), false),
    ]));
    // Arrow's way is taken without AVX-512; test it here whatever the processor.
    for kernels in [false, has_avx512()] {
        for keep in masks(n) {
            let got = select_with(&batch, &keep, &output, kernels).expect("selected");
            let want = arrow_select::filter::filter_record_batch(&batch, &BooleanArray::new(keep.clone(), None))
                .expect("filter");
            for c in 0..3 {
                assert_eq!(got.column(c).as_ref(), want.column(c).as_ref());
                assert_eq!(got.schema().field(c), schema.field(c));
            }
            // Widened here by the kernels; left to the caller (as arrow's filter leaves it) without.
            let d = match kernels {
                true => arrow_cast::cast(want.column(3), &DataType::Decimal128(10, 1)).expect("cast"),
                false => Arc::clone(want.column(3)),
            };
            assert_eq!(got.column(3).as_ref(), d.as_ref());
            assert_eq!(got.schema().field(3), &schema.field(3).clone().with_data_type(d.data_type().clone()));
            // What the reader hands out after the caller's widening is the same either way.
            let widened = super::super::decimals::widen(got, &output).expect("widened");
            assert_eq!(widened.schema(), output);
            let want_d = arrow_cast::cast(want.column(3), &DataType::Decimal128(10, 1)).expect("cast");
            assert_eq!(widened.column(3).as_ref(), want_d.as_ref());
        }
    }
}

#[test]
fn a_batch_without_columns_keeps_its_matching_row_count() {
    let schema = Arc::new(Schema::empty());
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(1000));
    let batch = RecordBatch::try_new_with_options(schema.clone(), vec![], &options).expect("batch");
    for keep in masks(1000) {
        let got = select(&batch, &keep, &schema).expect("selected");
        assert_eq!((got.num_columns(), got.num_rows()), (0, keep.count_set_bits()));
    }
}
