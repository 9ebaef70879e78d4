//! Pages read in pieces give the values the whole page gives, for every encoding.

use arrow_buffer::{BooleanBufferBuilder, Buffer};

use super::*;
use crate::encoding::byte_stream_split;
use crate::encoding::rle::encode_rle_hybrid;
use crate::encoding::{delta_byte_array, delta_length_byte_array, OffsetsSink};

fn open(bytes: Vec<u8>, encoding: Encoding, len: usize, t: PhysicalType) -> PageValues {
    let kind = ValueKind { physical_type: t, type_length: 0 };
    PageValues::new(Buffer::from_vec(bytes), encoding, len, kind, &mut PageScratch::default()).unwrap()
}

/// Reads `values` in pieces of `step` (skipping every third piece) and returns what was read,
/// with `None` for skipped values.
fn byte_arrays_in_steps(page: &mut PageValues, n: usize, step: usize) -> Vec<Option<Vec<u8>>> {
    let mut out = Vec::new();
    let mut piece = 0;
    while page.remaining() > 0 {
        let k = step.min(page.remaining());
        if piece % 3 == 2 {
            page.skip(k).unwrap();
            out.extend(std::iter::repeat_n(None, k));
        } else {
            let mut sink = OffsetsSink::<i32>::new();
            page.read_byte_arrays(k, &mut sink, |_| Ok(())).unwrap();
            for w in sink.offsets().windows(2) {
                out.push(Some(sink.data()[w[0] as usize..w[1] as usize].to_vec()));
            }
        }
        piece += 1;
    }
    assert_eq!(out.len(), n);
    out
}

fn sample_strings() -> Vec<Vec<u8>> {
    (0..300).map(|i: u32| format!("prefix/{}/{}", i / 7, "x".repeat((i % 13) as usize)).into_bytes()).collect()
}

#[test]
fn byte_array_pages_resume_where_they_stopped() {
    let values = sample_strings();
    let refs: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
    let mut plain = Vec::new();
    for v in &refs {
        plain.extend_from_slice(&(v.len() as u32).to_le_bytes());
        plain.extend_from_slice(v);
    }
    let mut dl = Vec::new();
    delta_length_byte_array::encode(&refs, &mut dl);
    let mut db = Vec::new();
    delta_byte_array::encode(&refs, &mut db);
    for (bytes, enc) in
        [(plain, Encoding::PLAIN), (dl, Encoding::DELTA_LENGTH_BYTE_ARRAY), (db, Encoding::DELTA_BYTE_ARRAY)]
    {
        for step in [1, 7, 64, 299, 300] {
            let mut page = open(bytes.clone(), enc, values.len(), PhysicalType::BYTE_ARRAY);
            let got = byte_arrays_in_steps(&mut page, values.len(), step);
            for (i, g) in got.iter().enumerate() {
                if let Some(g) = g {
                    assert_eq!(g, &values[i], "{enc} step {step} value {i}");
                }
            }
            // Reading past the end is an error, not a panic.
            assert!(page.read_byte_arrays(1, &mut OffsetsSink::<i32>::new(), |_| Ok(())).is_err());
        }
    }
}

#[test]
fn dictionary_indexes_resume_mid_run() {
    // Runs of repeats and bit-packed stretches, so that pieces end inside both.
    let indexes: Vec<u32> = (0..1000u32).map(|i| if i % 200 < 90 { 3 } else { (i * 7) % 11 }).collect();
    let mut bytes = vec![4u8];
    encode_rle_hybrid(&indexes, 4, &mut bytes);
    for step in [1, 5, 8, 33, 1000] {
        let mut page = open(bytes.clone(), Encoding::RLE_DICTIONARY, indexes.len(), PhysicalType::INT32);
        let mut got = Vec::new();
        let mut piece = 0;
        while page.remaining() > 0 {
            let k = step.min(page.remaining());
            if piece % 3 == 2 {
                page.skip(k).unwrap();
                got.extend(std::iter::repeat_n(u32::MAX, k));
            } else {
                page.read_indexes(k, 11, |run| match run {
                    Run::Repeated { value, len } => got.extend(std::iter::repeat_n(value, len)),
                    Run::Packed(v) => got.extend_from_slice(v),
                })
                .unwrap();
            }
            piece += 1;
        }
        for (i, (&g, &want)) in got.iter().zip(&indexes).enumerate() {
            assert!(g == u32::MAX || g == want, "step {step} index {i}");
        }
    }
    // An index past the dictionary is an error.
    let mut page = open(bytes, Encoding::RLE_DICTIONARY, indexes.len(), PhysicalType::INT32);
    assert!(page.read_indexes(1000, 4, |_| {}).is_err());
}

/// Fixed-width values kept as their PLAIN bytes.
struct PlainBytes(Vec<u8>);

impl FixedValues for PlainBytes {
    fn extend_plain(&mut self, bytes: &[u8], _n: usize) -> Result<()> {
        self.0.extend_from_slice(bytes);
        Ok(())
    }

    fn dictionary_len(&self) -> Option<usize> {
        None
    }

    fn extend_from_dictionary(&mut self, _run: Run<'_>) {}
}

#[test]
fn numeric_pages_resume_where_they_stopped() {
    let values: Vec<i64> = (0..777).map(|i| i * i - 5000).collect();
    let mut dbp = Vec::new();
    let mut enc = crate::encoding::delta_binary_packed::DeltaBinaryPackedEncoder::<i64>::new();
    enc.put(&values);
    enc.finish_into(&mut dbp);
    let plain: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut split = Vec::new();
    byte_stream_split::encode(&plain, 8, &mut split);
    for step in [1, 31, 128, 777] {
        let mut got: Vec<i64> = Vec::new();
        let mut page = open(dbp.clone(), Encoding::DELTA_BINARY_PACKED, values.len(), PhysicalType::INT64);
        let mut piece = 0;
        while page.remaining() > 0 {
            let k = step.min(page.remaining());
            if piece % 3 == 2 {
                page.skip(k).unwrap();
                got.extend(&values[got.len()..got.len() + k]);
            } else {
                page.read_delta_i64(k, &mut got).unwrap();
            }
            piece += 1;
        }
        assert_eq!(got, values, "DELTA_BINARY_PACKED step {step}");

        for (bytes, enc) in [(plain.clone(), Encoding::PLAIN), (split.clone(), Encoding::BYTE_STREAM_SPLIT)] {
            let mut page = open(bytes, enc, values.len(), PhysicalType::INT64);
            let mut got = PlainBytes(Vec::new());
            let mut piece = 0;
            while page.remaining() > 0 {
                let k = step.min(page.remaining());
                if piece % 3 == 2 {
                    page.skip(k).unwrap();
                    got.0.extend_from_slice(&plain[got.0.len()..got.0.len() + 8 * k]);
                } else {
                    page.read_values(k, &mut got).unwrap();
                }
                piece += 1;
            }
            assert_eq!(got.0, plain, "{enc} step {step}");
        }
    }
}

#[test]
fn boolean_pages_resume_where_they_stopped() {
    let values: Vec<bool> = (0..500).map(|i| i % 3 == 0 || (100..180).contains(&i)).collect();
    let mut plain = vec![0u8; values.len().div_ceil(8)];
    for (i, &b) in values.iter().enumerate() {
        plain[i / 8] |= u8::from(b) << (i % 8);
    }
    let ints: Vec<u32> = values.iter().map(|&b| u32::from(b)).collect();
    let mut rle_body = Vec::new();
    encode_rle_hybrid(&ints, 1, &mut rle_body);
    let mut rle = (rle_body.len() as u32).to_le_bytes().to_vec();
    rle.extend_from_slice(&rle_body);
    for (bytes, enc) in [(plain, Encoding::PLAIN), (rle, Encoding::RLE)] {
        for step in [1, 9, 64, 500] {
            let mut page = open(bytes.clone(), enc, values.len(), PhysicalType::BOOLEAN);
            let mut got = BooleanBufferBuilder::new(0);
            while page.remaining() > 0 {
                let k = step.min(page.remaining());
                page.read_bits(k, None, &mut got).unwrap();
            }
            let got = got.finish();
            assert_eq!(got.iter().collect::<Vec<_>>(), values, "{enc} step {step}");
        }
    }
}

#[test]
fn encodings_a_type_cannot_have_are_refused_when_the_page_opens() {
    let kind = ValueKind { physical_type: PhysicalType::FLOAT, type_length: 0 };
    let page = PageValues::new(
        Buffer::from_vec(vec![0u8; 8]),
        Encoding::DELTA_BINARY_PACKED,
        2,
        kind,
        &mut PageScratch::default(),
    );
    assert!(page.is_err());
    // An all-null page opens whatever its encoding says.
    let page = PageValues::new(
        Buffer::from_vec(Vec::<u8>::new()),
        Encoding::DELTA_BINARY_PACKED,
        0,
        kind,
        &mut PageScratch::default(),
    );
    assert!(page.is_ok());
}
