//! Tests of `statistics.rs`: bounds against the values' own order (bytes, floats, unsigned
//! integers, decimals), prefix keys and truncation.

use super::*;

#[test]
fn prefix_keys_are_the_first_bytes_zero_padded() {
    let mut rng = crate::encoding::TestRng::new(6);
    for n in 0..=12usize {
        for _ in 0..50 {
            let v = rng.bytes(n);
            let mut padded = [0u8; 8];
            padded[..n.min(8)].copy_from_slice(&v[..n.min(8)]);
            assert_eq!(prefix_key(&v), u64::from_be_bytes(padded), "{v:?}");
        }
    }
}

#[test]
fn byte_bounds_are_the_smallest_and_largest_values() {
    // Pages of values with long shared prefixes (as URLs), values outside the range so
    // far, prefixes of one another and ties, against the slices' own min and max.
    let mut rng = crate::encoding::TestRng::new(5);
    for round in 0..300 {
        let stem: Vec<u8> = b"https://www.example.com/path/"[..rng.below(30) as usize].to_vec();
        let n = 1 + rng.below(60) as usize;
        let values: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let mut v = if rng.below(8) == 0 { Vec::new() } else { stem.clone() };
                v.extend((0..rng.below(12)).map(|_| b'0' + rng.below(4) as u8));
                v
            })
            .collect();
        let mut b = Bounds::default();
        b.fold_bytes(SortOrder::Bytes, values.iter().map(Vec::as_slice));
        let (want_min, want_max) = (values.iter().min().unwrap(), values.iter().max().unwrap());
        assert!(b.is_set());
        assert_eq!(b.min, *want_min, "round {round}");
        assert_eq!(b.max, *want_max, "round {round}");
    }
}

#[test]
fn byte_comparison_is_lexicographic() {
    // Values sharing long prefixes, differing at every position (in word bodies and in
    // the byte-by-byte tail), and prefixes of one another, against the slices' own order.
    let mut rng = crate::encoding::TestRng::new(3);
    let mut values: Vec<Vec<u8>> = Vec::new();
    for len in 0..40usize {
        let base: Vec<u8> = (0..len).map(|_| b'a' + rng.below(3) as u8).collect();
        values.push(base.clone());
        for at in 0..len {
            let mut v = base.clone();
            v[at] = if rng.below(2) == 0 { 0 } else { 0xff };
            values.push(v);
        }
    }
    for a in &values {
        for b in &values {
            assert_eq!(cmp_bytes(a, b), a.cmp(b), "{a:?} {b:?}");
        }
    }
}

#[test]
fn truncation_keeps_bounds() {
    let mut b = Bounds::default();
    b.fold_bytes(SortOrder::Bytes, [&b"abcdef"[..], b"abcdzz\xff\xff"]);
    let (min, max) = truncated(&b, SortOrder::Bytes, false, Some(4)).unwrap();
    assert_eq!((min.bytes.as_slice(), min.exact), (&b"abcd"[..], false));
    assert_eq!((max.bytes.as_slice(), max.exact), (&b"abce"[..], false));
    // A maximum of 0xff bytes has no shorter upper bound: kept whole.
    let mut b = Bounds::default();
    b.fold_bytes(SortOrder::Bytes, [&b"\xff\xff\xff"[..]]);
    let (_, max) = truncated(&b, SortOrder::Bytes, false, Some(2)).unwrap();
    assert_eq!((max.bytes.as_slice(), max.exact), (&b"\xff\xff\xff"[..], true));
    // UTF-8: cut at a character start, increment a character.
    let mut b = Bounds::default();
    b.fold_bytes(SortOrder::Bytes, ["aé€x".as_bytes()]);
    let (min, max) = truncated(&b, SortOrder::Bytes, true, Some(4)).unwrap();
    assert_eq!(min.bytes, "aé".as_bytes());
    assert_eq!(max.bytes, "aê".as_bytes());
}

#[test]
fn floats_skip_nan_and_sign_zeros() {
    let mut b = Bounds::default();
    b.fold_f64(&[f64::NAN, 0.0, 1.5, -0.0]);
    assert_eq!(b.min(), (-0.0f64).to_le_bytes());
    assert_eq!(b.max(), 1.5f64.to_le_bytes());
    let mut b = Bounds::default();
    b.fold_f32(&[f32::NAN]);
    assert!(!b.is_set());
}

#[test]
fn unsigned_and_decimal_orders() {
    let mut b = Bounds::default();
    b.fold_i32(SortOrder::Unsigned, &[-1, 5]);
    assert_eq!(b.min(), 5i32.to_le_bytes());
    assert_eq!(b.max(), (-1i32).to_le_bytes());
    let mut b = Bounds::default();
    b.fold_bytes(SortOrder::SignedBytes, [&[0xff, 0x00][..], &[0x00, 0x01]]);
    assert_eq!(b.min(), [0xff, 0x00]);
    assert_eq!(b.max(), [0x00, 0x01]);
}
