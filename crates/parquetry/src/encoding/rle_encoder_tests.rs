//! Tests of [`RleEncoder`]: byte-exact examples, round trips through [`RleDecoder`], and
//! the different ways of putting the same values.

use super::*;
use crate::encoding::rle::RleDecoder;
use crate::encoding::TestRng;

fn decode(data: &[u8], w: u8, n: usize) -> Vec<u32> {
    let mut out = Vec::new();
    RleDecoder::new(data, w).unwrap().decode_exact(n, &mut out).unwrap();
    // Nothing but padding may follow.
    let mut more: Vec<u32> = Vec::new();
    let extra = RleDecoder::new(data, w).unwrap().decode(n + 8, &mut more).unwrap();
    assert!(w == 0 || extra < n + 8, "more than one group of padding");
    out
}

fn finish(e: &mut RleEncoder) -> Vec<u8> {
    let estimate = e.encoded_len_estimate();
    let mut out = Vec::new();
    e.finish_into(&mut out);
    assert!(out.len() <= estimate, "estimate {estimate} < {}", out.len());
    assert!(e.is_empty());
    out
}

/// Values with runs of random lengths (many around 8), fitting in `w` bits.
fn values(rng: &mut TestRng, w: u8, n: usize) -> Vec<u32> {
    let m = mask(w as usize);
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let x = (rng.next_u64() as u32) & m;
        let len = match rng.below(4) {
            0 => rng.below(40) as usize,
            1 => 6 + rng.below(20) as usize,
            _ => 1,
        };
        v.extend(std::iter::repeat_n(x, len.min(n - v.len())));
    }
    v
}

#[test]
fn spec_examples_and_hand_derived_bytes() {
    // Encodings.md, RLE: 0..=7 at width 3 is one bit-packed group, header 1 << 1 | 1.
    let mut e = RleEncoder::new(3);
    e.put_slice(&[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(finish(&mut e), [0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010]);
    // Ten 1s at width 1: 8 equal values are cheaper packed (1 byte) than as an RLE run
    // (header and value), so two groups, 0xFF and 0b11 padded (header 2 << 1 | 1 = 5).
    let mut e1 = RleEncoder::new(1);
    e1.put_run(1, 10);
    assert_eq!(finish(&mut e1), [0x05, 0xFF, 0x03]);
    // At width 3 they are an RLE run: header 10 << 1, value 1.
    e.put_run(1, 10);
    assert_eq!(finish(&mut e), [0x14, 0x01]);
    // 200 times 300 at width 9: header 200 << 1 = 400 = varint 0x90 0x03, value 2 bytes.
    let mut e = RleEncoder::new(9);
    e.put_run(300, 200);
    assert_eq!(finish(&mut e), [0x90, 0x03, 0x2C, 0x01]);
    // Width 3, 8 equal values are an RLE run (3 bytes packed, 2 as a run).
    let mut e = RleEncoder::new(3);
    e.put_slice(&[5; 8]);
    assert_eq!(finish(&mut e), [0x10, 0x05]);
    // One value: a group padded with zeros.
    e.put(6);
    assert_eq!(finish(&mut e), [0x03, 0x06, 0, 0]);
    // Nothing at all.
    assert_eq!(finish(&mut e), [0u8; 0]);
}

#[test]
fn long_runs_are_a_few_bytes() {
    for w in [1u8, 3, 8, 17, 32] {
        let v = mask(w as usize);
        let mut e = RleEncoder::new(w);
        e.put_run(v, 1_000_000);
        let run = finish(&mut e);
        assert!(run.len() <= 3 + 4, "width {w}: {} bytes", run.len());
        assert_eq!(decode(&run, w, 1_000_000), vec![v; 1_000_000]);
        e.put_slice(&vec![v; 1_000_000]);
        assert_eq!(finish(&mut e), run);
    }
    let mut e = RleEncoder::new(1);
    e.put_bits(&vec![0xFF; 125_001], 3, 1_000_000);
    assert!(finish(&mut e).len() <= 4);
    // After a pending value the run still becomes one RLE run.
    e.put(0);
    e.put_run(1, 1_000_000);
    assert!(finish(&mut e).len() <= 3 + 4);
}

#[test]
fn round_trips_every_width_and_length() {
    let mut rng = TestRng::new(51);
    let mut e = RleEncoder::new(0);
    for w in 0..=32u8 {
        for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 127, 128, 129, 505, 1000, 3000] {
            let vals = values(&mut rng, w, n);
            // One encoder per width, reused across pages.
            if e.bit_width() != w {
                e = RleEncoder::new(w);
            }
            e.put_slice(&vals);
            assert_eq!(e.len(), n);
            let data = finish(&mut e);
            assert_eq!(decode(&data, w, n), vals, "width {w} n {n}");
            // A fresh encoder writes the same bytes.
            let mut fresh = RleEncoder::new(w);
            fresh.put_slice(&vals);
            assert_eq!(finish(&mut fresh), data);
            // All different (where the width allows) and all equal to the maximum.
            let distinct: Vec<u32> = (0..n as u32).map(|i| i & mask(w as usize)).collect();
            e.put_slice(&distinct);
            assert_eq!(decode(&finish(&mut e), w, n), distinct);
            e.put_run(mask(w as usize), n);
            assert_eq!(decode(&finish(&mut e), w, n), vec![mask(w as usize); n]);
        }
    }
}

#[test]
fn put_put_run_and_put_slice_agree() {
    let mut rng = TestRng::new(52);
    for iter in 0..400 {
        let w = (iter % 33) as u8;
        let n = rng.below(1200) as usize;
        let vals = values(&mut rng, w, n);
        let mut one = RleEncoder::new(w);
        for &v in &vals {
            one.put(v);
        }
        let one = finish(&mut one);
        // The same values in random pieces, each given as a run, a slice or one by one.
        let mut mixed = RleEncoder::new(w);
        let mut i = 0;
        while i < n {
            let k = (1 + rng.below(30) as usize).min(n - i);
            let piece = &vals[i..i + k];
            match rng.below(3) {
                0 if is_uniform(piece) => mixed.put_run(piece[0], k),
                1 => mixed.put_slice(piece),
                _ => piece.iter().for_each(|&v| mixed.put(v)),
            }
            i += k;
        }
        assert_eq!(mixed.len(), n);
        assert_eq!(decode(&one, w, n), vals, "iter {iter}");
        // Runs are decided the same way whichever way values come: the same bytes.
        assert_eq!(finish(&mut mixed), one, "iter {iter}");
        let mut slice = RleEncoder::new(w);
        slice.put_slice(&vals);
        assert_eq!(finish(&mut slice), one, "iter {iter}");
    }
}

#[test]
fn put_bits_matches_put() {
    let mut rng = TestRng::new(53);
    for iter in 0..600 {
        // Bitmaps of long 0 and 1 stretches with scattered flips, and random ones.
        let bytes = rng.below(200) as usize + 2;
        let mut bitmap: Vec<u8> = Vec::with_capacity(bytes);
        while bitmap.len() < bytes {
            let b = match rng.below(5) {
                0 => rng.next_u64() as u8,
                1 => 0xFF ^ (1 << rng.below(8)),
                2 => 0,
                _ => 0xFF,
            };
            let len = 1 + rng.below(if iter % 2 == 0 { 20 } else { 3 }) as usize;
            bitmap.extend(std::iter::repeat_n(b, len.min(bytes - bitmap.len())));
        }
        let bit = |i: usize| u32::from((bitmap[i / 8] >> (i % 8)) & 1);
        let mut by_bits = RleEncoder::new(1);
        let mut by_put = RleEncoder::new(1);
        let mut want = Vec::new();
        // Several calls, at random offsets, with single values in between.
        for _ in 0..1 + rng.below(4) {
            let offset = rng.below(17) as usize;
            let len = rng.below((bytes * 8 - offset) as u64 + 1) as usize;
            by_bits.put_bits(&bitmap, offset, len);
            for i in offset..offset + len {
                by_put.put(bit(i));
                want.push(bit(i));
            }
            if rng.below(2) == 0 {
                let v = rng.below(2) as u32;
                by_bits.put(v);
                by_put.put(v);
                want.push(v);
            }
        }
        assert_eq!(by_bits.len(), want.len());
        let (bits, put) = (finish(&mut by_bits), finish(&mut by_put));
        assert_eq!(decode(&bits, 1, want.len()), want, "iter {iter}");
        assert_eq!(decode(&put, 1, want.len()), want, "iter {iter}");
    }
}

#[test]
fn scattered_nulls_stay_bit_packed() {
    // Every other byte all valid: runs of 8 are cheaper packed, so the levels are the
    // bitmap's bytes plus one header per 63.
    let bitmap: Vec<u8> = (0..630).map(|i| if i % 2 == 0 { 0xFF } else { 0xEF }).collect();
    let mut e = RleEncoder::new(1);
    e.put_bits(&bitmap, 0, 630 * 8);
    let data = finish(&mut e);
    assert_eq!(data.len(), 630 + 10);
    assert_eq!(&data[1..64], &bitmap[..63]);
    // Three all-valid bytes among mixed ones are an RLE run (header 24 << 1, value 1: the
    // same 3 bytes, and the decoder fills them as one run); two stay packed.
    for (valid, want_len) in [(3, 1 + 20 + 2 + 1 + 20), (2, 1 + 42)] {
        let mut bitmap = vec![0xEF; 20];
        bitmap.extend(std::iter::repeat_n(0xFF, valid));
        bitmap.extend([0xEF; 20]);
        for offset in [0, 8 * 7] {
            let len = bitmap.len() * 8 - offset;
            let mut e = RleEncoder::new(1);
            e.put_bits(&bitmap, offset, len);
            let data = finish(&mut e);
            let want_len = want_len - offset / 8;
            assert_eq!(data.len(), want_len, "{valid} valid bytes, offset {offset}");
            let bit = |i: usize| u32::from((bitmap[i / 8] >> (i % 8)) & 1);
            let want: Vec<u32> = (offset..bitmap.len() * 8).map(bit).collect();
            assert_eq!(decode(&data, 1, len), want);
        }
    }
    // Wide values: distinct values fill bit-packed runs of 63 groups, one header each.
    let mut e = RleEncoder::new(10);
    e.put_slice(&(0..1000).collect::<Vec<u32>>());
    let data = finish(&mut e);
    assert_eq!(data.len(), 2 + 125 * 10);
    assert_eq!((data[0], data[631]), ((63 << 1) | 1, (62 << 1) | 1));
}

#[test]
fn length_prefixed_and_high_bits_dropped() {
    let mut e = RleEncoder::new(2);
    e.put_slice(&[7, 1, 2, 3, 4, 5, 6, 0xFFFF_FFFC]);
    let mut out = vec![9];
    e.finish_length_prefixed_into(&mut out);
    // Masked to 3 1 2 3 0 1 2 0: 2 bits each, LSB first.
    assert_eq!(out, [9, 3, 0, 0, 0, 0x03, 0b1110_0111, 0b0010_0100]);
    assert_eq!(decode(&out[5..], 2, 8), [3, 1, 2, 3, 0, 1, 2, 0]);
}

#[test]
#[should_panic(expected = "past a bitmap")]
fn put_bits_past_the_bitmap_panics() {
    RleEncoder::new(1).put_bits(&[0xFF], 1, 8);
}
