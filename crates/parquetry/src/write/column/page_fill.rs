//! How many rows of an array fit in the rest of a page, from the values' PLAIN sizes: the
//! writer cuts pages at a byte limit without encoding a value twice.

use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_schema::DataType;

/// How many rows from `row` (at most `max_rows`) fit in `bytes` more PLAIN page bytes;
/// `width` is the byte width of a fixed-width value.
pub(super) fn rows_fit(array: &dyn Array, row: usize, max_rows: usize, bytes: usize, width: usize) -> usize {
    match array.data_type() {
        DataType::Utf8 => plain_rows_fit(&array.as_string::<i32>().value_offsets()[row..], max_rows, bytes),
        DataType::Binary => plain_rows_fit(&array.as_binary::<i32>().value_offsets()[row..], max_rows, bytes),
        DataType::LargeUtf8 => plain_rows_fit(&array.as_string::<i64>().value_offsets()[row..], max_rows, bytes),
        DataType::LargeBinary => plain_rows_fit(&array.as_binary::<i64>().value_offsets()[row..], max_rows, bytes),
        DataType::Utf8View | DataType::BinaryView => {
            let views = match array.data_type() {
                DataType::Utf8View => array.as_string_view().views(),
                _ => array.as_binary_view().views(),
            };
            let mut used = 0;
            views[row..row + max_rows]
                .iter()
                .take_while(|&&v| {
                    used += 4 + (v as u32) as usize;
                    used <= bytes
                })
                .count()
        }
        DataType::Boolean => max_rows.min(bytes.saturating_mul(8)),
        DataType::Dictionary(..) => max_rows.min(1024),
        _ => max_rows.min(bytes / width),
    }
}

/// The most rows `k <= max_rows` whose PLAIN size (bytes plus a 4-byte length each) fits in
/// `bytes`, by binary search over the offsets from the first row.
fn plain_rows_fit<O: Copy + Into<i64>>(offsets: &[O], max_rows: usize, bytes: usize) -> usize {
    let base: i64 = offsets[0].into();
    let fits = |k: usize| (offsets[k].into() - base) as usize + 4 * k <= bytes;
    let (mut lo, mut hi) = (0, max_rows);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
