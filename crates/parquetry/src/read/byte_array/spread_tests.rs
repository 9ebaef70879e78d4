//! A page's dense offsets moved to their rows in place by the reader's validity bits
//! (`OffsetsSink::spread_nulls` with `read/spread.rs`), against a spread made row by row.

use super::tests::bitmap;
use super::*;
use crate::encoding::ByteArraySink;
use crate::encoding::OffsetsSink;

/// A sink whose offsets are `offsets` (starting at 0), over as many zero bytes as the last.
fn sink_of<O: OffsetSize>(offsets: &[usize]) -> OffsetsSink<O> {
    let mut sink = OffsetsSink::new();
    for w in offsets.windows(2) {
        sink.push_owned(&vec![0; w[1] - w[0]]).unwrap();
    }
    sink
}

#[test]
fn spread_offsets_in_place() {
    // Offsets before the page end at 7; the page's dense values end at 9, 9, 12.
    let rows_a = [false, true, false, true, true, false];
    let (bits, null_count) = bitmap(&rows_a);
    let v = Validity { bits: &bits, offset: 0, len: 6, null_count };
    let mut sink = sink_of::<i32>(&[0, 7, 9, 9, 12]);
    sink.spread_nulls(1, &v).unwrap();
    assert_eq!(sink.offsets(), [0, 7, 7, 9, 9, 9, 12, 12]);
    // All valid: unchanged; all null: repeats.
    let v = Validity { bits: &[0xFF], offset: 0, len: 2, null_count: 0 };
    let mut sink = sink_of::<i64>(&[0, 3, 5]);
    sink.spread_nulls(0, &v).unwrap();
    assert_eq!(sink.offsets(), [0, 3, 5]);
    let v = Validity { bits: &[0], offset: 0, len: 3, null_count: 3 };
    sink.spread_nulls(2, &v).unwrap();
    assert_eq!(sink.offsets(), [0, 3, 5, 5, 5, 5]);
    // More valid rows than values: an error, the sink cut back to before the page.
    let v = Validity { bits: &[0b111], offset: 0, len: 3, null_count: 0 };
    let mut sink = sink_of::<i32>(&[0, 2, 4]);
    assert!(sink.spread_nulls(1, &v).is_err());
    assert_eq!((sink.offsets(), sink.data().len()), (&[0, 2][..], 2));
}

#[test]
fn spread_offsets_matches_a_row_by_row_spread() {
    // Blocks of 64 that are all valid, all null and mixed, at bit offsets that are not
    // multiples of 8, against the obvious row-by-row spread.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for (rows, offset) in [(1usize, 0usize), (63, 3), (64, 0), (65, 5), (200, 7), (1000, 1), (4096, 0)] {
        let valid: Vec<bool> = (0..offset + rows)
            .map(|i| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                match (i / 64) % 4 {
                    0 => true,
                    1 => false,
                    _ => seed >> 62 != 0,
                }
            })
            .collect();
        let (bits, _) = bitmap(&valid);
        let rows_valid = &valid[offset..];
        let null_count = rows_valid.iter().filter(|v| !**v).count();
        let dense = rows - null_count;
        let mut offsets = vec![0usize, 10];
        offsets.extend((1..=dense).map(|k| 10 + 3 * k));
        let mut sink = sink_of::<i32>(&offsets);
        let mut want = vec![0i32, 10];
        let mut end = 10;
        for &v in rows_valid {
            if v {
                end += 3;
            }
            want.push(end);
        }
        let v = Validity { bits: &bits, offset, len: rows, null_count };
        sink.spread_nulls(1, &v).unwrap();
        assert_eq!(sink.offsets(), want, "{rows} rows at bit {offset}");
    }
}
