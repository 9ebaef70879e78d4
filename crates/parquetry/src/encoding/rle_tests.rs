//! Tests of [`RleDecoder`] and the one-call bit decoder: hand-derived runs, a bit-at-a-time
//! reference, batches across run and group boundaries, truncated and random input.

use super::*;
use crate::encoding::TestRng;

fn decode_all(data: &[u8], w: u8, n: usize) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    RleDecoder::new(data, w)?.decode_exact(n, &mut out)?;
    Ok(out)
}

/// The obvious reference decoder: bit at a time, run by run.
fn reference(data: &[u8], w: usize, n: usize) -> Vec<u32> {
    let mut out = Vec::new();
    let mut pos = 0;
    while out.len() < n {
        let h = read_uleb128(data, &mut pos, "test").unwrap();
        if h & 1 == 0 {
            let mut v = 0u32;
            for i in 0..w.div_ceil(8) {
                v |= (data[pos + i] as u32) << (8 * i);
            }
            pos += w.div_ceil(8);
            out.extend(std::iter::repeat_n(v, (h >> 1) as usize));
        } else {
            let count = (h >> 1) as usize * 8;
            for i in 0..count {
                let mut v = 0u32;
                for b in 0..w {
                    let bit = i * w + b;
                    v |= (((data[pos + bit / 8] >> (bit % 8)) & 1) as u32) << b;
                }
                out.push(v);
            }
            pos += count * w / 8;
        }
    }
    out.truncate(n);
    out
}

#[test]
fn hand_derived_runs() {
    // RLE run: header 10 << 1 = 0x14, value 1 in one byte.
    assert_eq!(decode_all(&[0x14, 0x01], 1, 10).unwrap(), vec![1; 10]);
    // Bit-packed run of one group (header 1 << 1 | 1 = 3) holding the spec's 0..=7 at width 3.
    assert_eq!(decode_all(&[0x03, 0x88, 0xC6, 0xFA], 3, 8).unwrap(), (0..8).collect::<Vec<_>>());
    // Width 9 stores the RLE value in two bytes: 300 = 0x012C; run of 200 = varint 0x90 0x03.
    assert_eq!(decode_all(&[0x90, 0x03, 0x2C, 0x01], 9, 200).unwrap(), vec![300; 200]);
    // Both kinds in sequence, read as runs.
    let data = [0x03, 0x88, 0xC6, 0xFA, 0x06, 0x05];
    let mut d = RleDecoder::new(&data, 3).unwrap();
    assert_eq!(d.next_run(5).unwrap(), Some(Run::Packed(&[0, 1, 2, 3, 4])));
    assert_eq!(d.next_run(100).unwrap(), Some(Run::Packed(&[5, 6, 7])));
    assert_eq!(d.next_run(100).unwrap(), Some(Run::Repeated { value: 5, len: 3 }));
    assert_eq!(d.next_run(100).unwrap(), None);
    assert_eq!(d.bytes_read(), data.len());
    // Width 0: no data at all still gives zeros.
    assert_eq!(decode_all(&[], 0, 5).unwrap(), vec![0; 5]);
}

#[test]
fn errors() {
    assert!(RleDecoder::new(&[], 33).is_err());
    assert!(decode_all(&[0x14], 1, 10).is_err()); // RLE value missing
    assert!(decode_all(&[0x03], 3, 8).is_err()); // bit-packed bytes missing
    assert!(decode_all(&[0x14, 0x01], 1, 11).is_err()); // too few values
    assert!(decode_all(&[0xff; 11], 1, 1).is_err()); // varint over 64 bits
                                                     // A truncated last group keeps the values whose bits are present.
    assert_eq!(decode_all(&[0x03, 0x88], 3, 2).unwrap(), vec![0, 1]);
    let msg = decode_all(&[0x14, 0x01], 1, 11).unwrap_err().to_string();
    assert!(msg.contains("needed 11 values"), "{msg}");
}

#[test]
fn length_prefix() {
    let data = [2, 0, 0, 0, 0x14, 0x01, 9];
    let (rle, rest) = split_length_prefixed(&data).unwrap();
    assert_eq!((rle, rest), (&[0x14, 0x01][..], &[9][..]));
    assert!(split_length_prefixed(&[3, 0, 0]).is_err());
    assert!(split_length_prefixed(&[3, 0, 0, 0, 1]).is_err());
}

#[test]
fn bit_packed_msb_spec_example() {
    // Encodings.md, BIT_PACKED: 0..=7 at width 3 is 00000101 00111001 01110111.
    let data = [0b0000_0101, 0b0011_1001, 0b0111_0111, 0xAA];
    let mut out: Vec<i16> = Vec::new();
    assert_eq!(decode_bit_packed_msb(&data, 3, 8, &mut out).unwrap(), 3);
    assert_eq!(out, (0..8).collect::<Vec<i16>>());
    // 30 values of 2 bits are 8 bytes (the spec's own count).
    let mut out: Vec<u8> = Vec::new();
    assert_eq!(decode_bit_packed_msb(&[0xE4; 8], 2, 30, &mut out).unwrap(), 8);
    assert_eq!(&out[..4], &[3, 2, 1, 0]);
    assert!(decode_bit_packed_msb(&[0; 7], 2, 30, &mut out).is_err());
    assert!(decode_bit_packed_msb(&[0; 7], 33, 1, &mut out).is_err());
    // Wide values against a bit-at-a-time reference.
    let mut rng = TestRng::new(5);
    for w in 0..=32usize {
        let data = rng.bytes((37 * w).div_ceil(8));
        let mut got: Vec<u32> = Vec::new();
        decode_bit_packed_msb(&data, w as u8, 37, &mut got).unwrap();
        let want: Vec<u32> = (0..37)
            .map(|i| {
                (0..w).fold(0u32, |v, b| {
                    let bit = i * w + b;
                    (v << 1) | ((data[bit / 8] >> (7 - bit % 8)) & 1) as u32
                })
            })
            .collect();
        assert_eq!(got, want, "width {w}");
    }
}

#[test]
fn round_trip_decode_runs_and_skips() {
    let mut rng = TestRng::new(3);
    for iter in 0..300 {
        let w = (iter % 33) as u8;
        let max = if w == 0 { 0 } else { u32::MAX >> (32 - w) };
        let n = rng.below(2000) as usize;
        let mut values = Vec::with_capacity(n);
        while values.len() < n {
            let v = (rng.next_u64() as u32) & max;
            let len = if rng.below(3) == 0 { rng.below(50) as usize } else { 1 };
            values.extend(std::iter::repeat_n(v, len.min(n - values.len())));
        }
        let mut data = Vec::new();
        encode_rle_hybrid(&values, w, &mut data);
        assert_eq!(reference(&data, w as usize, n), values);
        assert_eq!(decode_all(&data, w, n).unwrap(), values);
        // Runs, skips and decodes of random sizes interleaved.
        let mut d = RleDecoder::new(&data, w).unwrap();
        let mut got: Vec<Option<u32>> = Vec::new();
        while got.len() < n {
            let k = 1 + rng.below(300) as usize;
            match rng.below(3) {
                0 => {
                    let s = d.skip(k).unwrap();
                    got.extend(std::iter::repeat_n(None, s));
                }
                1 => match d.next_run(k).unwrap() {
                    Some(Run::Repeated { value, len }) => got.extend(std::iter::repeat_n(Some(value), len)),
                    Some(Run::Packed(v)) => got.extend(v.iter().map(|&x| Some(x))),
                    None => break,
                },
                _ => {
                    let mut out: Vec<u32> = Vec::new();
                    d.decode(k, &mut out).unwrap();
                    got.extend(out.into_iter().map(Some));
                }
            }
        }
        for (i, g) in got.iter().take(n).enumerate() {
            if let Some(g) = g {
                assert_eq!(*g, values[i], "width {w} value {i}");
            }
        }
    }
}

/// A selective read's pattern: a skip of a few to a few hundred values (ending anywhere in a
/// bit-packed group), then one to three values read, over and over; the decoder lent out
/// between steps as a page's state does (rebound to nothing, an idle decoder in its place).
/// Every value read must be the bit-at-a-time reference's.
#[test]
fn short_reads_between_skips_match_the_reference() {
    let mut rng = TestRng::new(30);
    for iter in 0..200 {
        let w = 1 + (iter % 32) as u8;
        let max = u32::MAX >> (32 - w);
        let n = 500 + rng.below(3000) as usize;
        // Mostly bit-packed (random values), with some repeats for RLE runs.
        let mut values = Vec::with_capacity(n);
        while values.len() < n {
            let v = (rng.next_u64() as u32) & max;
            let len = if rng.below(8) == 0 { 8 + rng.below(40) as usize } else { 1 };
            values.extend(std::iter::repeat_n(v, len.min(n - values.len())));
        }
        let mut data = Vec::new();
        encode_rle_hybrid(&values, w, &mut data);
        let want = reference(&data, w as usize, n);
        let mut kept = RleDecoder::new(&data, w).unwrap().rebind(&[]);
        let mut at = 0;
        loop {
            let skip = match rng.below(3) {
                0 => rng.below(8) as usize,
                1 => rng.below(40) as usize,
                _ => rng.below(400) as usize,
            };
            let read = 1 + rng.below(3) as usize;
            if at + skip + read > n {
                break;
            }
            let mut d = std::mem::replace(&mut kept, RleDecoder::idle()).rebind(&data);
            assert_eq!(d.skip(skip).unwrap(), skip);
            at += skip;
            let mut got = Vec::new();
            while got.len() < read {
                match d.next_run(read - got.len()).unwrap() {
                    Some(Run::Repeated { value, len }) => got.extend(std::iter::repeat_n(value, len)),
                    Some(Run::Packed(v)) => got.extend_from_slice(v),
                    None => panic!("width {w}: values ended at {at}"),
                }
            }
            assert_eq!(got, want[at..at + read], "width {w}, values {at}..{}", at + read);
            at += read;
            kept = d.rebind(&[]);
        }
    }
}

/// The bits `decode_bits` appended, as values.
fn bits_of(b: &BooleanBufferBuilder) -> Vec<u32> {
    (0..b.len()).map(|i| u32::from(b.get_bit(i))).collect()
}

#[test]
fn decode_bits_hand_derived() {
    // RLE run of 10 ones, a bit-packed group 0,1,0,1,1,0,0,1 (0b1001_1010), RLE run of 3
    // zeros.
    let data = [0x14, 0x01, 0x03, 0b1001_1010, 0x06, 0x00];
    let want = [vec![1; 10], vec![0, 1, 0, 1, 1, 0, 0, 1], vec![0; 3]].concat();
    let mut b = BooleanBufferBuilder::new(0);
    assert_eq!(RleDecoder::new(&data, 1).unwrap().decode_bits(21, &mut b).unwrap(), 21);
    assert_eq!(bits_of(&b), want);
    // Asking for more stops where the data ends.
    let mut b = BooleanBufferBuilder::new(0);
    assert_eq!(RleDecoder::new(&data, 1).unwrap().decode_bits(100, &mut b).unwrap(), 21);
    // The last group padded: 2 groups declared, 11 values wanted; the padding bits are
    // not values.
    let data = [0x05, 0xFF, 0b1111_1101];
    let mut b = BooleanBufferBuilder::new(0);
    assert_eq!(RleDecoder::new(&data, 1).unwrap().decode_bits(11, &mut b).unwrap(), 11);
    assert_eq!(bits_of(&b), [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]);
    // Only width 1 decodes to bits.
    assert!(RleDecoder::new(&data, 2).unwrap().decode_bits(1, &mut b).is_err());
    // An RLE value wider than the bit width is corrupt, for bits and values alike.
    let mut d = RleDecoder::new(&[0x14, 0x02], 1).unwrap();
    let msg = d.decode_bits(10, &mut b).unwrap_err().to_string();
    assert!(msg.contains("does not fit in 1 bits"), "{msg}");
    assert!(decode_all(&[0x14, 0x08], 3, 10).is_err());
    assert_eq!(decode_all(&[0x14, 0x07], 3, 10).unwrap(), vec![7; 10]);
}

/// Bits in batches of any size, across run, group and buffer boundaries, interleaved with
/// skips and value decodes, against the bit-at-a-time reference.
#[test]
fn decode_bits_in_batches_matches_the_reference() {
    let mut rng = TestRng::new(9);
    for iter in 0..400 {
        let n = 1 + rng.below(3000) as usize;
        let mut values = Vec::with_capacity(n);
        while values.len() < n {
            let v = rng.below(2) as u32;
            let len = match rng.below(4) {
                0 => rng.below(200) as usize,
                1 => rng.below(9) as usize,
                _ => 1,
            };
            values.extend(std::iter::repeat_n(v, len.min(n - values.len())));
        }
        let mut data = Vec::new();
        encode_rle_hybrid(&values, 1, &mut data);
        assert_eq!(reference(&data, 1, n), values);
        // The one-call form, for a prefix ending anywhere and for all of it.
        let cut = rng.below(n as u64 + 1) as usize;
        for m in [cut, n] {
            let mut b = BooleanBufferBuilder::new(0);
            b.append_n(m % 5, false);
            let (got, ones) = decode_bits_counted(&data, m, &mut b).unwrap();
            assert_eq!(got, m);
            assert_eq!(bits_of(&b)[m % 5..], values[..m], "iter {iter}, {m} bits");
            assert_eq!(ones, values[..m].iter().filter(|&&v| v == 1).count(), "iter {iter}, {m} bits");
        }
        let mut d = RleDecoder::new(&data, 1).unwrap();
        let mut at = 0;
        while at < n {
            let k = (1 + rng.below(if iter % 2 == 0 { 20 } else { 700 }) as usize).min(n - at);
            match rng.below(4) {
                0 => assert_eq!(d.skip(k).unwrap(), k),
                1 => {
                    let mut out: Vec<u32> = Vec::new();
                    d.decode_exact(k, &mut out).unwrap();
                    assert_eq!(out, values[at..at + k], "iter {iter} at {at}");
                }
                2 => {
                    let mut b = BooleanBufferBuilder::new(0);
                    let (got, ones) = d.decode_bits_counted(k, &mut b).unwrap();
                    assert_eq!(got, k);
                    assert_eq!(bits_of(&b), values[at..at + k], "iter {iter} at {at}");
                    assert_eq!(ones, values[at..at + k].iter().filter(|&&v| v == 1).count());
                }
                _ => {
                    // Into a builder that already holds bits not on a byte boundary.
                    let mut b = BooleanBufferBuilder::new(0);
                    b.append_n(at % 13, true);
                    assert_eq!(d.decode_bits(k, &mut b).unwrap(), k);
                    assert_eq!(bits_of(&b)[at % 13..], values[at..at + k], "iter {iter} at {at}");
                }
            }
            at += k;
        }
        // Past the end only the padding of the last bit-packed group is left: zeros.
        let mut b = BooleanBufferBuilder::new(0);
        let pad = d.decode_bits(100, &mut b).unwrap();
        assert!(pad < 8 && bits_of(&b).iter().all(|&v| v == 0), "past the end: {pad}");
    }
}

/// Truncated or random bytes give a short count or an error, never a panic, and never
/// more bits than asked.
#[test]
fn decode_bits_on_truncated_input() {
    let mut rng = TestRng::new(10);
    for iter in 0..2000 {
        let data = if iter % 2 == 0 {
            let len = rng.below(40) as usize;
            rng.bytes(len)
        } else {
            let values: Vec<u32> = (0..rng.below(500)).map(|_| rng.below(2) as u32).collect();
            let mut d = Vec::new();
            encode_rle_hybrid(&values, 1, &mut d);
            d.truncate(rng.below(d.len() as u64 + 1) as usize);
            d
        };
        let mut b = BooleanBufferBuilder::new(0);
        let k = rng.below(600) as usize;
        if let Ok((got, ones)) = decode_bits_counted(&data, k, &mut b) {
            assert!(got <= k && b.len() == got && ones <= got);
        }
        let mut d = RleDecoder::new(&data, 1).unwrap();
        let mut b = BooleanBufferBuilder::new(0);
        for _ in 0..6 {
            let k = rng.below(300) as usize;
            let before = b.len();
            match d.decode_bits(k, &mut b) {
                Ok(got) => assert!(got <= k && b.len() == before + got),
                Err(_) => break,
            }
        }
    }
}

#[test]
fn fuzz_random_and_truncated_input_never_panics() {
    let mut rng = TestRng::new(4);
    for iter in 0..3000 {
        let w = rng.below(36) as u8;
        let data = if iter % 2 == 0 {
            let len = rng.below(64) as usize;
            rng.bytes(len)
        } else {
            let values: Vec<u32> = (0..rng.below(300)).map(|_| rng.below(5) as u32).collect();
            let mut d = Vec::new();
            encode_rle_hybrid(&values, w.min(32), &mut d);
            d.truncate(rng.below(d.len() as u64 + 1) as usize);
            d
        };
        let Ok(mut d) = RleDecoder::new(&data, w) else { continue };
        for _ in 0..8 {
            let k = rng.below(1000) as usize;
            let mut out: Vec<i16> = Vec::new();
            let r = match rng.below(3) {
                0 => d.skip(k).map(|_| ()),
                1 => d.next_run(k).map(|_| ()),
                _ => d.decode(k, &mut out).map(|_| ()),
            };
            if r.is_err() {
                break;
            }
        }
        let mut out: Vec<u8> = Vec::new();
        let _ = decode_bit_packed_msb(&data, w, rng.below(100) as usize, &mut out);
        let _ = split_length_prefixed(&data);
    }
}
