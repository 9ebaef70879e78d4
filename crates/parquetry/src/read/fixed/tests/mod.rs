//! Hand-built pages from the Parquet spec through the fixed-width decoders: shared helpers,
//! PLAIN, nulls, dictionaries and DELTA_BINARY_PACKED here; the other encodings and the
//! conversions to each output type in the submodules.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{i256, Buffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};

use super::*;
use crate::encoding::{bit_pack, byte_stream_split, delta_byte_array, rle, TestRng};
use crate::error::ErrorKind;
use crate::format::{ConvertedType, Encoding, LogicalType, Repetition, TimeUnit as PUnit};
use crate::read::page_values::{PageScratch, PageValues, ValueKind};

mod conversions;
mod encodings;

pub(super) fn column(physical: PhysicalType, type_length: i32) -> ColumnDescriptor {
    ColumnDescriptor {
        path: vec!["a".into(), "b".into()],
        physical_type: physical,
        type_length,
        logical_type: None,
        converted_type: None,
        scale: 0,
        precision: 0,
        repetition: Repetition::OPTIONAL,
        max_def_level: 1,
        max_rep_level: 0,
        element: 1,
    }
}

pub(super) fn with_logical(mut c: ColumnDescriptor, l: LogicalType) -> ColumnDescriptor {
    c.logical_type = Some(l);
    c
}

/// A decoder together with the column's value kind, which opening a page needs.
pub(super) struct TestDecoder {
    inner: Box<dyn ValueDecoder>,
    kind: ValueKind,
}

impl TestDecoder {
    /// The decoder itself (the tests were written against `Box::as_mut`).
    pub(super) fn as_mut(&mut self) -> &mut TestDecoder {
        self
    }
}

impl std::ops::Deref for TestDecoder {
    type Target = dyn ValueDecoder;
    fn deref(&self) -> &Self::Target {
        self.inner.as_ref()
    }
}

impl std::ops::DerefMut for TestDecoder {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.inner.as_mut()
    }
}

pub(super) fn decoder(c: &ColumnDescriptor, dt: &DataType) -> TestDecoder {
    let kind = ValueKind { physical_type: c.physical_type, type_length: usize::try_from(c.type_length).unwrap_or(0) };
    TestDecoder { inner: fixed_decoder(c, dt).unwrap(), kind }
}

/// A validity bitmap (LSB first) for `rows`, starting at bit `offset`.
pub(super) fn bitmap(rows: &[bool], offset: usize) -> Vec<u8> {
    let mut bits = vec![0u8; (offset + rows.len()).div_ceil(8) + 1];
    for (i, &v) in rows.iter().enumerate() {
        if v {
            bits[(offset + i) / 8] |= 1 << ((offset + i) % 8);
        }
    }
    bits
}

/// Appends one page: `rows` = `None` means every value is valid.
pub(super) fn append(
    d: &mut TestDecoder,
    encoding: Encoding,
    data: &[u8],
    num_values: usize,
    rows: Option<&[bool]>,
) -> Result<()> {
    let buffer = Buffer::from_vec(data.to_vec());
    let mut page = PageValues::new(buffer, encoding, num_values, d.kind, &mut PageScratch::default())?;
    match rows {
        None => d.inner.read(&mut page, num_values, None),
        Some(rows) => {
            let bits = bitmap(rows, 3);
            let nulls = rows.iter().filter(|&&v| !v).count();
            let v = Validity { bits: &bits, offset: 3, len: rows.len(), null_count: nulls };
            d.inner.read(&mut page, num_values, Some(&v))
        }
    }
}

pub(super) fn set_dictionary(d: &mut TestDecoder, data: &[u8], num_values: usize) -> Result<()> {
    let page = PageValues::dictionary(Buffer::from_vec(data.to_vec()), Encoding::PLAIN, num_values)?;
    d.inner.set_dictionary(&page)
}

pub(super) fn finish(d: &mut TestDecoder, rows: Option<&[bool]>) -> ArrayRef {
    let nulls = rows.map(|r| NullBuffer::from(r.to_vec()));
    let a = d.finish(nulls).unwrap();
    assert_eq!(d.len(), 0, "finish resets the decoder");
    a
}

pub(super) fn le_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub(super) fn le_i64(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn i32_values(a: &ArrayRef) -> Vec<Option<i32>> {
    a.as_primitive::<Int32Type>().iter().collect()
}

#[test]
fn int32_plain_without_and_with_nulls() {
    let c = column(PhysicalType::INT32, 0);
    let mut d = decoder(&c, &DataType::Int32);
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[1, -2, 3]), 3, None).unwrap();
    assert_eq!(d.len(), 3);
    let a = finish(d.as_mut(), None);
    assert_eq!(i32_values(&a), [Some(1), Some(-2), Some(3)]);

    let rows = [true, false, true, false, false, true];
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[7, 8, 9]), 3, Some(&rows)).unwrap();
    let a = finish(d.as_mut(), Some(&rows));
    assert_eq!(i32_values(&a), [Some(7), None, Some(8), None, None, Some(9)]);
    // Null slots read as zero.
    assert_eq!(a.as_primitive::<Int32Type>().values().as_ref(), &[7, 0, 8, 0, 0, 9]);
}

/// The obvious spread, row by row from the last: the reference for [`spread`].
fn spread_by_row<T: Copy + Default>(values: &mut Vec<T>, start: usize, validity: &Validity<'_>) {
    let dense = values.len() - start;
    values.resize(start + validity.len, T::default());
    let mut src = start + dense;
    for row in (0..validity.len).rev() {
        if validity.is_valid(row) {
            src -= 1;
            values[start + row] = values[src];
        } else {
            values[start + row] = T::default();
        }
    }
}

#[test]
fn spread_matches_the_reference_on_random_bitmaps() {
    let mut rng = TestRng::new(7);
    for round in 0..300 {
        let rows = rng.below(300) as usize;
        let density = rng.below(5); // 0: all null .. 4: all valid
        let valid: Vec<bool> = (0..rows)
            .map(|_| match density {
                0 => false,
                4 => true,
                d => rng.below(4) < d,
            })
            .collect();
        let offset = rng.below(70) as usize;
        let bits = bitmap(&valid, offset);
        let nulls = valid.iter().filter(|&&v| !v).count();
        let v = Validity { bits: &bits, offset, len: rows, null_count: nulls };
        let start = rng.below(5) as usize;
        let dense = rows - nulls;
        let mut ours: Vec<u64> = (0..start + dense).map(|i| i as u64 + 1).collect();
        let mut reference = ours.clone();
        ours.resize(start + rows, 0);
        spread(&mut ours[..], start, dense, &v).unwrap();
        spread_by_row(&mut reference, start, &v);
        assert_eq!(ours, reference, "round {round}");

        // The byte version, values 3 bytes wide.
        let mut bytes: Vec<u8> = (0..start + dense).flat_map(|i| [i as u8, (i >> 8) as u8, 0xAA]).collect();
        bytes.resize((start + rows) * 3, 0);
        spread(&mut ByteSlots { bytes: &mut bytes, width: 3 }, start, dense, &v).unwrap();
        let expect: Vec<u8> = reference
            .iter()
            .flat_map(|&x| if x == 0 { [0, 0, 0] } else { [(x - 1) as u8, ((x - 1) >> 8) as u8, 0xAA] })
            .collect();
        assert_eq!(bytes, expect, "round {round}");
    }
}

#[test]
fn spread_rejects_a_bitmap_that_disagrees() {
    let valid = [true, true, false];
    let bits = bitmap(&valid, 0);
    let v = Validity { bits: &bits, offset: 0, len: 3, null_count: 1 };
    // Two dense values but one valid bit, and one value but two valid bits.
    let one = bitmap(&[true, false, false], 0);
    let w = Validity { bits: &one, offset: 0, len: 3, null_count: 1 };
    let mut values = [1, 2, 0];
    assert!(spread(&mut values[..], 0, 2, &w).is_err());
    let mut values = [1, 0, 0];
    assert!(spread(&mut values[..], 0, 1, &v).is_err());
    // A page whose value count does not match its validity.
    let c = column(PhysicalType::INT32, 0);
    let mut d = decoder(&c, &DataType::Int32);
    let err = append(d.as_mut(), Encoding::PLAIN, &le_i32(&[1, 2, 3]), 3, Some(&valid)).unwrap_err();
    assert!(err.message().contains("3 rows with 1 nulls but 3 encoded values"), "{err}");
    assert_eq!(d.len(), 0);
}

/// Dictionary indexes from the spec's RLE / bit-packing hybrid, derived by hand: bit width 3,
/// an RLE run of 4 × index 2 (header 4 << 1 = 8, value byte 2), then one bit-packed group of
/// 8 values 0,1,2,3,4,0,1,2 (header 1 << 1 | 1 = 3). Packed LSB first at 3 bits each they are
/// 0 | 1<<3 | 2<<6 | 3<<9 | 4<<12 | 0<<15 | 1<<18 | 2<<21 = 0x444688: bytes 88 46 44.
const INDEXES: [u8; 7] = [3, 8, 2, 3, 0x88, 0x46, 0x44];

#[test]
fn dictionary_indexes_match_the_hand_derived_bytes() {
    let mut packed = Vec::new();
    bit_pack::pack([0u64, 1, 2, 3, 4, 0, 1, 2], 3, &mut packed);
    assert_eq!(packed, INDEXES[4..]);
}

#[test]
fn int64_dictionary_pages_then_plain_mid_chunk() {
    let c = column(PhysicalType::INT64, 0);
    let mut d = decoder(&c, &DataType::Int64);
    set_dictionary(d.as_mut(), &le_i64(&[10, 20, 30, 40, 50]), 5).unwrap();
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &INDEXES, 12, None).unwrap();
    let rows: Vec<bool> = (0..14).map(|i| i != 0 && i != 9).collect();
    append(d.as_mut(), Encoding::PLAIN_DICTIONARY, &INDEXES, 12, Some(&rows)).unwrap();
    // The writer fell back to PLAIN.
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[-1, -2]), 2, None).unwrap();
    let a = finish(d.as_mut(), None);
    let got: Vec<i64> = a.as_primitive::<Int64Type>().values().to_vec();
    let page = [30, 30, 30, 30, 10, 20, 30, 40, 50, 10, 20, 30];
    let mut expect = page.to_vec();
    expect.push(0);
    expect.extend(&page[..8]);
    expect.push(0);
    expect.extend(&page[8..]);
    expect.extend([-1, -2]);
    assert_eq!(got, expect);
}

#[test]
fn dictionary_errors() {
    let c = column(PhysicalType::INT32, 0);
    let mut d = decoder(&c, &DataType::Int32);
    let err = append(d.as_mut(), Encoding::RLE_DICTIONARY, &INDEXES, 12, None).unwrap_err();
    assert!(err.message().contains("no dictionary page"), "{err}");

    // Bit width 3, one bit-packed group: index 7 in the second slot (bits 3..6).
    set_dictionary(d.as_mut(), &le_i32(&[1, 2, 3, 4, 5]), 5).unwrap();
    let err = append(d.as_mut(), Encoding::RLE_DICTIONARY, &[3, 3, 7 << 3, 0, 0], 8, None).unwrap_err();
    assert_eq!(err.message(), "dictionary index 7 of value 1 is past the end of the dictionary of 5 values");
    // An RLE run of index 5.
    let err = append(d.as_mut(), Encoding::RLE_DICTIONARY, &[3, 2, 5], 1, None).unwrap_err();
    assert_eq!(err.message(), "dictionary index 5 of value 0 is past the end of the dictionary of 5 values");
    // Too few indexes, no data at all, and a bit width over 32.
    assert!(append(d.as_mut(), Encoding::RLE_DICTIONARY, &[3, 2, 1], 3, None).is_err());
    assert!(append(d.as_mut(), Encoding::RLE_DICTIONARY, &[], 3, None).is_err());
    assert!(append(d.as_mut(), Encoding::RLE_DICTIONARY, &[33, 2, 1], 1, None).is_err());
    // A dictionary page shorter than its value count.
    assert!(set_dictionary(d.as_mut(), &le_i32(&[1, 2]), 3).is_err());
    // An all-null page needs no index data.
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &[], 0, Some(&[false, false])).unwrap();
    assert_eq!(d.len(), 2);
}

/// The two examples of DELTA_BINARY_PACKED in the spec (Encodings.md).
#[test]
fn delta_binary_packed_spec_examples() {
    // 1, 2, 3, 4, 5: block size 128, 4 miniblocks, 5 values, first value 1 (zigzag 2); one
    // block with min delta 1 (zigzag 2) and all bit widths 0.
    let example1 = [0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0];
    // 7, 5, 3, 1, 2, 3, 4, 5: deltas -2 -2 -2 1 1 1 1, min delta -2 (zigzag 3), relative
    // 0 0 0 3 3 3 3 at bit width 2; the first miniblock's 32 values take 8 bytes: bits 6..14
    // set give C0 3F.
    let example2 = [0x80, 0x01, 0x04, 0x08, 0x0E, 0x03, 2, 0, 0, 0, 0xC0, 0x3F, 0, 0, 0, 0, 0, 0];

    let c = column(PhysicalType::INT32, 0);
    let mut d = decoder(&c, &DataType::Int32);
    append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &example1, 5, None).unwrap();
    let rows = [true, true, false, true, true, true, true, true, false, true];
    append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &example2, 8, Some(&rows)).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Int32Type>().values().as_ref(), &[1, 2, 3, 4, 5, 7, 5, 0, 3, 1, 2, 3, 4, 0, 5]);

    let c = column(PhysicalType::INT64, 0);
    let mut d = decoder(&c, &DataType::Int64);
    append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &example2, 8, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Int64Type>().values().as_ref(), &[7, 5, 3, 1, 2, 3, 4, 5]);
    // More values asked than the header declares; a truncated header.
    assert!(append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &example1, 6, None).is_err());
    assert!(append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &example1[..3], 5, None).is_err());
    assert_eq!(d.len(), 0);
}
