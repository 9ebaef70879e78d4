//! Dictionary tests: every index and page checked against a naive reference (a `Vec` of values
//! and a std `HashMap`), and pages read back with the PLAIN decoders.

use std::collections::HashMap;

use super::*;
use crate::encoding::plain::{decode_byte_array, decode_f64, decode_fixed_len, decode_i32};
use crate::encoding::{OffsetsSink, TestRng};

/// The naive dictionary: values in first-seen order and a map to their indexes.
#[derive(Default)]
struct Reference {
    values: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u32>,
}

impl Reference {
    fn intern(&mut self, v: &[u8]) -> u32 {
        if let Some(&i) = self.index.get(v) {
            return i;
        }
        let i = self.values.len() as u32;
        self.values.push(v.to_vec());
        self.index.insert(v.to_vec(), i);
        i
    }

    fn plain_page(&self) -> Vec<u8> {
        let mut page = Vec::new();
        for v in &self.values {
            page.extend_from_slice(&(v.len() as u32).to_le_bytes());
            page.extend_from_slice(v);
        }
        page
    }
}

/// Up to `max - 1` random bytes.
fn random_bytes(rng: &mut TestRng, max: u64) -> Vec<u8> {
    let n = rng.below(max) as usize;
    rng.bytes(n)
}

fn to_offsets(values: &[Vec<u8>]) -> (Vec<i32>, Vec<u8>) {
    let mut offsets = vec![0i32];
    let mut data = Vec::new();
    for v in values {
        data.extend_from_slice(v);
        offsets.push(data.len() as i32);
    }
    (offsets, data)
}

/// Interns `values` into `dict` in random-sized batches (some one at a time through
/// `intern`, some through `intern_offsets` with `i32` or `i64` offsets), checking each index
/// against the reference, then checks the page, its PLAIN decoding and every accessor.
fn check(dict: &mut ByteArrayDictionary, values: &[Vec<u8>], rng: &mut TestRng) {
    let mut reference = Reference::default();
    let want: Vec<u32> = values.iter().map(|v| reference.intern(v)).collect();
    let mut got = Vec::new();
    let mut at = 0;
    while at < values.len() {
        let n = (rng.below(3000) as usize + 1).min(values.len() - at);
        let batch = &values[at..at + n];
        match rng.below(3) {
            0 => got.extend(batch.iter().map(|v| dict.intern(v))),
            1 => {
                let (offsets, data) = to_offsets(batch);
                dict.intern_offsets(&offsets, &data, &mut got);
            }
            _ => {
                let (offsets, data) = to_offsets(batch);
                // A non-zero first offset, as in a sliced Arrow array.
                let lead = rng.below(5) as usize;
                let offsets: Vec<i64> = offsets.iter().map(|&o| (o as usize + lead) as i64).collect();
                let mut padded = rng.bytes(lead);
                padded.extend_from_slice(&data);
                dict.intern_offsets(&offsets, &padded, &mut got);
            }
        }
        at += n;
    }
    assert_eq!(got, want);
    assert_eq!(dict.len(), reference.values.len());
    assert_eq!(dict.is_empty(), reference.values.is_empty());
    assert_eq!(dict.page(), &reference.plain_page()[..]);
    assert_eq!(dict.page_len(), dict.page().len());
    assert_eq!(dict.value_bytes(), reference.values.iter().map(Vec::len).sum::<usize>());
    for (i, v) in reference.values.iter().enumerate() {
        assert_eq!(dict.value(i as u32), &v[..], "value {i}");
    }
    let mut sink = OffsetsSink::<i64>::new();
    let end = decode_byte_array(dict.page(), 0, dict.len(), &mut sink).unwrap();
    assert_eq!(end, dict.page_len());
    for (i, v) in reference.values.iter().enumerate() {
        assert_eq!(sink.value(i).unwrap(), &v[..]);
    }
}

#[test]
fn byte_arrays_match_the_reference() {
    let mut rng = TestRng::new(1);
    let mut dict = ByteArrayDictionary::new();
    // Empty values among others, and nothing but empty values.
    let values: Vec<Vec<u8>> = (0..500).map(|_| random_bytes(&mut rng, 3)).collect();
    check(&mut dict, &values, &mut rng);
    dict.clear();
    check(&mut dict, &vec![Vec::new(); 10], &mut rng);
    assert_eq!(dict.page(), &[0, 0, 0, 0]);
    // Duplicate-heavy: 20,000 values drawn from 37.
    let pool: Vec<Vec<u8>> = (0..37).map(|i| format!("category_{i:03}").into_bytes()).collect();
    let values: Vec<Vec<u8>> = (0..20_000).map(|_| pool[rng.below(37) as usize].clone()).collect();
    let mut dict = ByteArrayDictionary::new();
    check(&mut dict, &values, &mut rng);
    // All distinct, of every length up to 100.
    let values: Vec<Vec<u8>> = (0..5_000u32)
        .map(|i| {
            let mut v = random_bytes(&mut rng, 100);
            v.extend_from_slice(&i.to_le_bytes());
            v
        })
        .collect();
    let mut dict = ByteArrayDictionary::new();
    check(&mut dict, &values, &mut rng);
}

#[test]
fn long_values_with_equal_prefixes() {
    // Values of one long prefix and a short random tail, so many share length and most of
    // their bytes; drawn from a small space, so they also repeat.
    let mut rng = TestRng::new(2);
    let prefix = rng.bytes(300);
    for cut in [0usize, 7, 15, 31, 64, 300] {
        let values: Vec<Vec<u8>> = (0..4_000)
            .map(|_| {
                let mut v = prefix[..cut].to_vec();
                v.extend((0..rng.below(3)).map(|_| b'a' + rng.below(3) as u8));
                v
            })
            .collect();
        let mut dict = ByteArrayDictionary::new();
        check(&mut dict, &values, &mut rng);
    }
}

#[test]
fn growth_across_many_resizes() {
    // 100,000 distinct values through every table size from empty, then all again.
    let mut rng = TestRng::new(3);
    let mut values: Vec<Vec<u8>> =
        (0..100_000u64).map(|i| format!("{:016x}-{i}", rng.next_u64()).into_bytes()).collect();
    let again = values.clone();
    values.extend(again);
    let mut dict = ByteArrayDictionary::new();
    check(&mut dict, &values, &mut rng);
    assert_eq!(dict.len(), 100_000);
    // Short values (keyed by their bytes, their hashes recomputed from their keys as the table
    // grows): 50,000 of 1 to 8 bytes, drawn twice as often, so later ones mostly repeat.
    let values: Vec<Vec<u8>> = (0..100_000)
        .map(|_| {
            let v = rng.below(50_000).to_le_bytes();
            v[..1 + rng.below(8) as usize].to_vec()
        })
        .collect();
    let mut dict = ByteArrayDictionary::new();
    check(&mut dict, &values, &mut rng);
}

#[test]
fn equal_hashes_fall_back_to_the_bytes() {
    // Every value given the same hash: each lookup walks a chain of stored hashes that all
    // match, so only the byte comparison (lengths 0 to 70, differing in one byte anywhere)
    // tells the values apart.
    let mut rng = TestRng::new(4);
    let mut dict = ByteArrayDictionary::new();
    let mut reference = Reference::default();
    for _ in 0..3 {
        for len in 0..=70usize {
            let base = rng.bytes(len);
            // Differences in the first and last byte and at the edges of the words compared.
            for at in [0, 3, 4, 7, 8, 15, 16, 31, 32, 33, len.saturating_sub(1)] {
                if at >= len.max(1) {
                    continue;
                }
                let mut v = base.clone();
                if let Some(b) = v.get_mut(at) {
                    *b ^= 1 << (at % 8);
                }
                for v in [&base, &v] {
                    assert_eq!(intern_with_hash::<true>(&mut dict, v, 42), reference.intern(v));
                }
            }
        }
    }
    assert_eq!(dict.page(), &reference.plain_page()[..]);
}

/// Interns `v` as if its hash were `hash`, to force collisions. Only a value longer than 8
/// bytes takes it: the table recomputes a short value's hash from its key when it grows, so a
/// short value keeps its own (and its key, its bytes, tells it apart whatever the hash).
fn intern_with_hash<const PREFIXED: bool>(dict: &mut ByteArrayDictionary, v: &[u8], hash: u64) -> u32 {
    let (own, key) = hash_and_key(v);
    match v.len() > 8 {
        true => dict.intern_hashed::<PREFIXED>(v, hash, hash),
        false => dict.intern_hashed::<PREFIXED>(v, own, key),
    }
}

#[test]
fn every_short_value_is_its_own() {
    // Values of up to 8 bytes are found by a key made of their bytes: every value of 0 to 4
    // bytes over a 3-letter alphabet with a zero byte, and 5 to 8 bytes differing in any one
    // byte, each interned twice, get the reference's indexes.
    let mut dict = ByteArrayDictionary::new();
    let mut reference = Reference::default();
    let alphabet = [0u8, b'a', b'b', b'c'];
    let mut values: Vec<Vec<u8>> = vec![Vec::new()];
    for len in 1..=4 {
        let mut v = vec![0u8; len];
        for code in 0..4usize.pow(len as u32) {
            (0..len).for_each(|k| v[k] = alphabet[code / 4usize.pow(k as u32) % 4]);
            values.push(v.clone());
        }
    }
    for len in 5..=8 {
        let base: Vec<u8> = (0..len as u8).map(|b| b'k' + b).collect();
        values.push(base.clone());
        for at in 0..len {
            let mut v = base.clone();
            v[at] = 0;
            values.push(v);
        }
    }
    for _ in 0..2 {
        for v in &values {
            assert_eq!(dict.intern(v), reference.intern(v), "{v:?}");
        }
    }
    assert_eq!(dict.page(), &reference.plain_page()[..]);
}

#[test]
fn equal_hashes_of_fixed_width_values() {
    let mut rng = TestRng::new(10);
    let mut dict = ByteArrayDictionary::new_fixed(12);
    let mut reference = Reference::default();
    let pool: Vec<Vec<u8>> = (0..200).map(|_| rng.bytes(12)).collect();
    for _ in 0..1000 {
        let v = &pool[rng.below(200) as usize];
        // Three hashes in all, each always given to the same values.
        assert_eq!(intern_with_hash::<false>(&mut dict, v, u64::from(v[0] % 3)), reference.intern(v));
    }
    assert_eq!(dict.page(), &reference.values.concat()[..]);
}

#[test]
fn same_bytes_at_every_length_and_position() {
    let mut rng = TestRng::new(5);
    for n in 0..=80usize {
        let a = rng.bytes(n);
        assert!(same_bytes(&a, &a.clone()));
        for at in 0..n {
            let mut b = a.clone();
            b[at] ^= 0x80;
            assert!(!same_bytes(&a, &b), "length {n}, byte {at}");
        }
    }
}

#[test]
fn clear_then_reuse() {
    let mut rng = TestRng::new(6);
    let mut dict = ByteArrayDictionary::new();
    let values: Vec<Vec<u8>> = (0..3_000).map(|_| random_bytes(&mut rng, 20)).collect();
    check(&mut dict, &values, &mut rng);
    dict.clear();
    assert!(dict.is_empty());
    assert_eq!((dict.len(), dict.page_len(), dict.value_bytes()), (0, 0, 0));
    // Indexes start again at 0, old values are new again.
    assert_eq!(dict.intern(&values[5]), 0);
    dict.clear();
    let other: Vec<Vec<u8>> = (0..3_000).map(|_| random_bytes(&mut rng, 20)).collect();
    check(&mut dict, &other, &mut rng);
}

#[test]
fn fixed_width_byte_values() {
    let mut rng = TestRng::new(7);
    for width in [1usize, 12, 16, 33] {
        let pool: Vec<Vec<u8>> = (0..50).map(|_| rng.bytes(width)).collect();
        let values: Vec<Vec<u8>> = (0..2_000).map(|_| pool[rng.below(50) as usize].clone()).collect();
        let mut reference = Reference::default();
        let want: Vec<u32> = values.iter().map(|v| reference.intern(v)).collect();
        let mut dict = ByteArrayDictionary::new_fixed(width);
        let mut got = Vec::new();
        let (offsets, data) = to_offsets(&values[..700]);
        dict.intern_offsets(&offsets, &data, &mut got);
        got.extend(values[700..900].iter().map(|v| dict.intern(v)));
        dict.intern_fixed(&values[900..].concat(), &mut got);
        assert_eq!(got, want, "width {width}");
        assert_eq!(dict.page(), &reference.values.concat()[..]);
        assert_eq!(dict.value_bytes(), dict.page_len());
        for (i, v) in reference.values.iter().enumerate() {
            assert_eq!(dict.value(i as u32), &v[..]);
        }
        let mut decoded = Vec::new();
        decode_fixed_len(dict.page(), width, dict.len(), &mut decoded).unwrap();
        assert_eq!(decoded, reference.values.concat());
    }
    // Width 0 (one possible value) and one at a time.
    let mut dict = ByteArrayDictionary::new_fixed(0);
    assert_eq!((dict.intern(b""), dict.intern(b"")), (0, 0));
    dict.intern_fixed(&[], &mut Vec::new());
    assert_eq!((dict.len(), dict.page_len()), (1, 0));
}

#[test]
#[should_panic(expected = "a 3-byte value in a dictionary of 4-byte values")]
fn fixed_width_byte_values_of_another_width_panic() {
    ByteArrayDictionary::new_fixed(4).intern(b"abc");
}

/// The reference for fixed values: first-seen order by bit pattern.
fn reference_bits(values: &[u64]) -> (Vec<u32>, Vec<u64>) {
    let mut seen = HashMap::new();
    let mut order = Vec::new();
    let indexes = values
        .iter()
        .map(|&v| {
            *seen.entry(v).or_insert_with(|| {
                order.push(v);
                order.len() as u32 - 1
            })
        })
        .collect();
    (indexes, order)
}

#[test]
fn doubles_by_bit_pattern() {
    let specials = [
        0.0f64.to_bits(),
        (-0.0f64).to_bits(),
        f64::NAN.to_bits(),
        f64::NAN.to_bits() | 1, // another payload
        (-f64::NAN).to_bits(),
        f64::INFINITY.to_bits(),
        f64::NEG_INFINITY.to_bits(),
        i64::MIN as u64,
        i64::MAX as u64,
        1.0f64.to_bits(),
        2.0f64.to_bits(),
        3.0f64.to_bits(),
    ];
    let mut rng = TestRng::new(8);
    let values: Vec<u64> = (0..10_000)
        .map(|_| match rng.below(3) {
            0 => specials[rng.below(specials.len() as u64) as usize],
            1 => (rng.below(1000) as f64).to_bits(), // low mantissa bits all zero
            _ => rng.next_u64(),
        })
        .collect();
    let (want, order) = reference_bits(&values);
    let mut dict = FixedDictionary::new(8);
    let mut got = Vec::new();
    dict.intern_u64s(&values[..6000], &mut got);
    got.extend(values[6000..].iter().map(|&v| dict.intern(v)));
    assert_eq!(got, want);
    assert_eq!(dict.len(), order.len());
    let page: Vec<u8> = order.iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(dict.page(), &page[..]);
    for (i, &v) in order.iter().enumerate() {
        assert_eq!(dict.value_bits(i as u32), v);
    }
    let mut decoded = Vec::new();
    decode_f64(dict.page(), dict.len(), &mut decoded).unwrap();
    assert!(decoded.iter().map(|d| d.to_bits()).eq(order.iter().copied()));
    // -0.0 and +0.0 were interned as two values, like the NaN payloads.
    let zeros = order.iter().filter(|&&v| f64::from_bits(v) == 0.0).count();
    assert_eq!(zeros, 2);
}

#[test]
fn ints_and_floats_of_four_bytes() {
    let mut rng = TestRng::new(9);
    let specials =
        [0u32, (-0.0f32).to_bits(), f32::NAN.to_bits(), f32::NAN.to_bits() | 2, i32::MIN as u32, i32::MAX as u32];
    let values: Vec<u32> = (0..10_000)
        .map(|_| match rng.below(3) {
            0 => specials[rng.below(specials.len() as u64) as usize],
            1 => rng.below(300) as u32,
            _ => rng.next_u64() as u32,
        })
        .collect();
    let wide: Vec<u64> = values.iter().map(|&v| u64::from(v)).collect();
    let (want, order) = reference_bits(&wide);
    let mut dict = FixedDictionary::new(4);
    let mut got = Vec::new();
    dict.intern_u32s(&values[..5000], &mut got);
    // One at a time, with the upper half set as a sign extension would: only the low 32 bits
    // count.
    got.extend(values[5000..].iter().map(|&v| dict.intern(v as i32 as i64 as u64)));
    assert_eq!(got, want);
    let page: Vec<u8> = order.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect();
    assert_eq!(dict.page(), &page[..]);
    let mut decoded = Vec::new();
    decode_i32(dict.page(), dict.len(), &mut decoded).unwrap();
    assert!(decoded.iter().map(|&d| u64::from(d as u32)).eq(order.iter().copied()));
    let min = dict.intern(u64::from(i32::MIN as u32));
    assert_eq!(dict.value_bits(min), u64::from(i32::MIN as u32));
    dict.clear();
    assert!(dict.is_empty() && dict.page().is_empty());
    assert_eq!(dict.intern(7), 0);
}

#[test]
fn fixed_dictionary_growth() {
    let mut dict = FixedDictionary::new(8);
    let values: Vec<u64> = (0..100_000u64).map(|i| (i as f64).to_bits()).collect();
    let mut got = Vec::new();
    dict.intern_u64s(&values, &mut got);
    dict.intern_u64s(&values, &mut got);
    assert!(got[..100_000].iter().copied().eq(0..100_000));
    assert_eq!(got[..100_000], got[100_000..]);
}

#[test]
#[should_panic(expected = "holds 4 or 8-byte values")]
fn fixed_dictionary_of_another_width_panics() {
    FixedDictionary::new(2);
}
