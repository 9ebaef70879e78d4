//! `spread_offsets`: a page's dense offsets moved to their rows in place, against a spread
//! made row by row.

use super::tests::bitmap;
use super::*;

#[test]
fn spread_offsets_in_place() {
    // Offsets before the page end at 7; the page's dense values end at 9, 9, 12.
    let rows_a = [false, true, false, true, true, false];
    let (bits, null_count) = bitmap(&rows_a);
    let v = Validity { bits: &bits, offset: 0, len: 6, null_count };
    let mut offsets = vec![0i32, 7, 9, 9, 12];
    spread_offsets(&mut offsets, 1, &v).unwrap();
    assert_eq!(offsets, [0, 7, 7, 9, 9, 9, 12, 12]);
    // All valid: unchanged; all null: repeats.
    let v = Validity { bits: &[0xFF], offset: 0, len: 2, null_count: 0 };
    let mut offsets = vec![0i64, 3, 5];
    spread_offsets(&mut offsets, 0, &v).unwrap();
    assert_eq!(offsets, [0, 3, 5]);
    let v = Validity { bits: &[0], offset: 0, len: 3, null_count: 3 };
    spread_offsets(&mut offsets, 2, &v).unwrap();
    assert_eq!(offsets, [0, 3, 5, 5, 5, 5]);
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
        if null_count == 0 {
            continue;
        }
        let dense = rows - null_count;
        let mut offsets: Vec<i32> = vec![0, 10];
        offsets.extend((1..=dense as i32).map(|k| 10 + 3 * k));
        let mut want = vec![0i32, 10];
        let mut end = 10;
        for &v in rows_valid {
            if v {
                end += 3;
            }
            want.push(end);
        }
        let v = Validity { bits: &bits, offset, len: rows, null_count };
        spread_offsets(&mut offsets, 1, &v).unwrap();
        assert_eq!(offsets, want, "{rows} rows at bit {offset}");
    }
}
