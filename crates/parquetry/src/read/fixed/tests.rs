//! Hand-built pages from the Parquet spec through the fixed-width decoders.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{i256, Buffer, NullBuffer};
use arrow_schema::{DataType, TimeUnit};

use super::*;
use crate::encoding::{bit_pack, byte_stream_split, delta_byte_array, rle, TestRng};
use crate::error::ErrorKind;
use crate::format::{ConvertedType, LogicalType, Repetition, TimeUnit as PUnit};
use crate::read::values::spread_nulls;

fn column(physical: PhysicalType, type_length: i32) -> ColumnDescriptor {
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

fn with_logical(mut c: ColumnDescriptor, l: LogicalType) -> ColumnDescriptor {
    c.logical_type = Some(l);
    c
}

fn decoder(c: &ColumnDescriptor, dt: &DataType) -> Box<dyn ValueDecoder> {
    fixed_decoder(c, dt).unwrap()
}

/// A validity bitmap (LSB first) for `rows`, starting at bit `offset`.
fn bitmap(rows: &[bool], offset: usize) -> Vec<u8> {
    let mut bits = vec![0u8; (offset + rows.len()).div_ceil(8) + 1];
    for (i, &v) in rows.iter().enumerate() {
        if v {
            bits[(offset + i) / 8] |= 1 << ((offset + i) % 8);
        }
    }
    bits
}

/// Appends one page: `rows` = `None` means every value is valid.
fn append(
    d: &mut dyn ValueDecoder,
    encoding: Encoding,
    data: &[u8],
    num_values: usize,
    rows: Option<&[bool]>,
) -> Result<()> {
    let buffer = Buffer::from_vec(data.to_vec());
    let page = PageValues { encoding, buffer: &buffer, offset: 0, data: buffer.as_slice(), num_values };
    match rows {
        None => d.append_page(&page, None),
        Some(rows) => {
            let bits = bitmap(rows, 3);
            let nulls = rows.iter().filter(|&&v| !v).count();
            let v = Validity { bits: &bits, offset: 3, len: rows.len(), null_count: nulls };
            d.append_page(&page, Some(&v))
        }
    }
}

fn set_dictionary(d: &mut dyn ValueDecoder, data: &[u8], num_values: usize) -> Result<()> {
    let buffer = Buffer::from_vec(data.to_vec());
    let page = PageValues {
        encoding: Encoding::PLAIN,
        buffer: &buffer,
        offset: 0,
        data: buffer.as_slice(),
        num_values,
    };
    d.set_dictionary(&page)
}

fn finish(d: &mut dyn ValueDecoder, rows: Option<&[bool]>) -> ArrayRef {
    let nulls = rows.map(|r| NullBuffer::from(r.to_vec()));
    let a = d.finish(nulls).unwrap();
    assert_eq!(d.len(), 0, "finish resets the decoder");
    a
}

fn le_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn le_i64(v: &[i64]) -> Vec<u8> {
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
        spread(&mut ours, start, dense, &v).unwrap();
        spread_nulls(&mut reference, start, &v);
        assert_eq!(ours, reference, "round {round}");

        // The byte version, values 3 bytes wide.
        let mut bytes: Vec<u8> =
            (0..start + dense).flat_map(|i| [i as u8, (i >> 8) as u8, 0xAA]).collect();
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
    let mut values = vec![1, 2, 0];
    assert!(spread(&mut values, 0, 2, &w).is_err());
    let mut values = vec![1, 0, 0];
    assert!(spread(&mut values, 0, 1, &v).is_err());
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
    assert!(err.message().contains("before any dictionary page"), "{err}");

    // Bit width 3, one bit-packed group: index 7 in the second slot (bits 3..6).
    set_dictionary(d.as_mut(), &le_i32(&[1, 2, 3, 4, 5]), 5).unwrap();
    let err = append(d.as_mut(), Encoding::RLE_DICTIONARY, &[3, 3, 7 << 3, 0, 0], 8, None)
        .unwrap_err();
    assert_eq!(err.message(), "dictionary index 7 is past the 5-entry dictionary");
    // An RLE run of index 5.
    let err = append(d.as_mut(), Encoding::RLE_DICTIONARY, &[3, 2, 5], 1, None).unwrap_err();
    assert_eq!(err.message(), "dictionary index 5 is past the 5-entry dictionary");
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
    assert_eq!(
        a.as_primitive::<Int32Type>().values().as_ref(),
        &[1, 2, 3, 4, 5, 7, 5, 0, 3, 1, 2, 3, 4, 0, 5]
    );

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

#[test]
fn byte_stream_split_float_double_int_and_flba() {
    // 1.0, 2.0, 3.0 as FLOAT are 0000803F 00000040 00004040 (little endian); stream j holds
    // byte j of each value.
    let data = [0, 0, 0, 0, 0, 0, 0x80, 0, 0x40, 0x3F, 0x40, 0x40];
    let c = column(PhysicalType::FLOAT, 0);
    let mut d = decoder(&c, &DataType::Float32);
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &data, 3, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Float32Type>().values().as_ref(), &[1.0, 2.0, 3.0]);
    // The same bytes as INT32.
    let c = column(PhysicalType::INT32, 0);
    let mut d = decoder(&c, &DataType::Int32);
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &data[..11], 3, None).unwrap_err();
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &data, 3, Some(&[true, false, true, true]))
        .unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(
        a.as_primitive::<Int32Type>().values().as_ref(),
        &[1.0f32.to_bits() as i32, 0, 2.0f32.to_bits() as i32, 3.0f32.to_bits() as i32]
    );

    let doubles = [1.5f64, -2.25, 1e300];
    let plain: Vec<u8> = doubles.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut split = Vec::new();
    byte_stream_split::encode(&plain, 8, &mut split);
    let c = column(PhysicalType::DOUBLE, 0);
    let mut d = decoder(&c, &DataType::Float64);
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &split, 3, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<Float64Type>().values().as_ref(), &doubles);

    // FIXED_LEN_BYTE_ARRAY(3): "abc", "def" split into streams "ad", "be", "cf".
    let c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 3);
    let mut d = decoder(&c, &DataType::FixedSizeBinary(3));
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, b"adbecf", 2, Some(&[false, true, true]))
        .unwrap();
    let a = finish(d.as_mut(), None);
    let got: Vec<Option<&[u8]>> = a.as_fixed_size_binary().iter().collect();
    assert_eq!(got, [Some(&b"\0\0\0"[..]), Some(b"abc"), Some(b"def")]);
}

#[test]
fn boolean_plain_and_rle() {
    let c = column(PhysicalType::BOOLEAN, 0);
    let mut d = decoder(&c, &DataType::Boolean);
    // PLAIN: true, false, true, true packed LSB first.
    append(d.as_mut(), Encoding::PLAIN, &[0b0000_1101], 4, None).unwrap();
    let rows = [false, true, true, false, true, true];
    append(d.as_mut(), Encoding::PLAIN, &[0b0000_1101], 4, Some(&rows)).unwrap();
    // RLE: 4-byte length 4, an RLE run of 10 × 1 (header 20, value 1), then one bit-packed
    // group (header 3) of 8 values 0x55 = 1,0,1,0,1,0,1,0.
    let rle = [4, 0, 0, 0, 20, 1, 3, 0x55];
    append(d.as_mut(), Encoding::RLE, &rle, 18, None).unwrap();
    let rows2: Vec<bool> = (0..20).map(|i| i != 3 && i != 17).collect();
    append(d.as_mut(), Encoding::RLE, &rle, 18, Some(&rows2)).unwrap();
    let mut valid = vec![true; 4];
    valid.extend(rows);
    valid.extend([true; 18]);
    valid.extend(&rows2);
    let a = finish(d.as_mut(), Some(&valid));
    let got: Vec<Option<bool>> = a.as_boolean().iter().collect();
    let (t, f) = (Some(true), Some(false));
    let rle_values = [t, t, t, t, t, t, t, t, t, t, t, f, t, f, t, f, t, f];
    let mut expect = vec![t, f, t, t, None, t, f, None, t, t];
    expect.extend(rle_values);
    let mut page = rle_values.to_vec();
    page.insert(3, None);
    page.insert(17, None);
    expect.extend(page);
    assert_eq!(got, expect);

    // Too short: PLAIN, the RLE length prefix, and the RLE runs.
    assert!(append(d.as_mut(), Encoding::PLAIN, &[0xFF], 9, None).is_err());
    assert!(append(d.as_mut(), Encoding::RLE, &[4, 0, 0], 1, None).is_err());
    assert!(append(d.as_mut(), Encoding::RLE, &rle, 19, None).is_err());
    assert!(append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &rle, 1, None).is_err());
    assert_eq!(d.len(), 0);
}

#[test]
fn boolean_dictionary() {
    let c = column(PhysicalType::BOOLEAN, 0);
    let mut d = decoder(&c, &DataType::Boolean);
    set_dictionary(d.as_mut(), &[0b10], 2).unwrap();
    // Bit width 1: RLE run of 3 × index 1, then a bit-packed group 0,1,0,0,0,0,0,0.
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &[1, 6, 1, 3, 0b10], 5, None).unwrap();
    let a = finish(d.as_mut(), None);
    let got: Vec<bool> = a.as_boolean().iter().map(Option::unwrap).collect();
    assert_eq!(got, [true, true, true, false, true]);
}

#[test]
fn int96_timestamps() {
    let int96 = |day: u32, nanos: u64| {
        let mut b = nanos.to_le_bytes().to_vec();
        b.extend(day.to_le_bytes());
        b
    };
    let mut data = int96(2_440_588, 0); // 1970-01-01 00:00
    data.extend(int96(2_440_589, 1_500_000_001)); // 1970-01-02 00:00:01.500000001
    data.extend(int96(2_440_587, 0)); // 1969-12-31
    let c = column(PhysicalType::INT96, 0);
    let day_ns = 86_400_000_000_000i64;
    for (unit, expect) in [
        (TimeUnit::Nanosecond, [0, day_ns + 1_500_000_001, -day_ns]),
        (TimeUnit::Microsecond, [0, 86_400_000_000 + 1_500_000, -86_400_000_000]),
        (TimeUnit::Millisecond, [0, 86_400_000 + 1_500, -86_400_000]),
        (TimeUnit::Second, [0, 86_401, -86_400]),
    ] {
        let dt = DataType::Timestamp(unit, Some(Arc::from("UTC")));
        let mut d = decoder(&c, &dt);
        append(d.as_mut(), Encoding::PLAIN, &data, 3, None).unwrap();
        let a = finish(d.as_mut(), None);
        assert_eq!(a.data_type(), &dt);
        let got: Vec<i64> = match unit {
            TimeUnit::Nanosecond => a.as_primitive::<TimestampNanosecondType>().values().to_vec(),
            TimeUnit::Microsecond => a.as_primitive::<TimestampMicrosecondType>().values().to_vec(),
            TimeUnit::Millisecond => a.as_primitive::<TimestampMillisecondType>().values().to_vec(),
            TimeUnit::Second => a.as_primitive::<TimestampSecondType>().values().to_vec(),
        };
        assert_eq!(got, expect, "{unit:?}");
    }
    // Dictionary-encoded INT96, and a truncated value.
    let dt = DataType::Timestamp(TimeUnit::Nanosecond, None);
    let mut d = decoder(&c, &dt);
    assert!(append(d.as_mut(), Encoding::PLAIN, &data[..35], 3, None).is_err());
    set_dictionary(d.as_mut(), &data, 3).unwrap();
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &[2, 4, 2], 2, Some(&[true, false, true])).unwrap();
    let a = finish(d.as_mut(), Some(&[true, false, true]));
    let got: Vec<Option<i64>> = a.as_primitive::<TimestampNanosecondType>().iter().collect();
    assert_eq!(got, [Some(-day_ns), None, Some(-day_ns)]);
}

#[test]
fn decimals_from_flba_and_integers() {
    // FIXED_LEN_BYTE_ARRAY(3) big-endian: FF FF 85 = -123, 00 30 39 = 12345, 80 00 00 = -2^23.
    let data = [0xFF, 0xFF, 0x85, 0x00, 0x30, 0x39, 0x80, 0x00, 0x00];
    let expect = [-123i128, 12345, -(1 << 23)];
    let mut c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 3);
    c.logical_type = Some(LogicalType::Decimal { scale: 2, precision: 7 });
    for dt in [
        DataType::Decimal32(7, 2),
        DataType::Decimal64(7, 2),
        DataType::Decimal128(7, 2),
        DataType::Decimal256(7, 2),
    ] {
        let mut d = decoder(&c, &dt);
        append(d.as_mut(), Encoding::PLAIN, &data, 3, None).unwrap();
        let a = finish(d.as_mut(), None);
        assert_eq!(a.data_type(), &dt);
        let got: Vec<i128> = match dt {
            DataType::Decimal32(..) => {
                a.as_primitive::<Decimal32Type>().values().iter().map(|&v| v.into()).collect()
            }
            DataType::Decimal64(..) => {
                a.as_primitive::<Decimal64Type>().values().iter().map(|&v| v.into()).collect()
            }
            DataType::Decimal128(..) => a.as_primitive::<Decimal128Type>().values().to_vec(),
            _ => a
                .as_primitive::<Decimal256Type>()
                .values()
                .iter()
                .map(|v| v.as_i128())
                .collect(),
        };
        assert_eq!(got, expect, "{dt}");
    }
    // Widths of 16 and more: 17 bytes of sign extension plus the value.
    assert_eq!(convert::be_to_i128(&[0xFF; 17]), -1);
    assert_eq!(convert::be_to_i128(&[0x80; 16]), i128::from_be_bytes([0x80; 16]));
    assert_eq!(convert::be_to_i256(&[0xFE]), i256::from_i128(-2));
    assert_eq!(convert::be_to_i256(&[0x7F; 32]), i256::from_be_bytes([0x7F; 32]));

    // INT32 and INT64 decimals, dictionary encoded.
    let c = with_logical(column(PhysicalType::INT32, 0), LogicalType::Decimal { scale: 1, precision: 5 });
    let mut d = decoder(&c, &DataType::Decimal128(5, 1));
    set_dictionary(d.as_mut(), &le_i32(&[-5, 7]), 2).unwrap();
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &[1, 3, 0b01], 2, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Decimal128Type>().values().as_ref(), &[7, -5]);
    let c = column(PhysicalType::INT64, 0);
    let mut d = decoder(&c, &DataType::Decimal256(20, 0));
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[i64::MIN]), 1, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Decimal256Type>().value(0), i256::from_i128(i64::MIN.into()));
}

#[test]
fn integer_reinterpretations() {
    let c = column(PhysicalType::INT32, 0);
    let data = le_i32(&[-1, 300, i32::MIN]);
    let run = |c: &ColumnDescriptor, dt: DataType, data: &[u8]| {
        let mut d = decoder(c, &dt);
        let width = if c.physical_type == PhysicalType::INT64 { 8 } else { 4 };
        append(d.as_mut(), Encoding::PLAIN, data, data.len() / width, None).unwrap();
        let a = finish(d.as_mut(), None);
        assert_eq!(a.data_type(), &dt);
        a
    };
    let a = run(&c, DataType::UInt32, &data);
    assert_eq!(a.as_primitive::<UInt32Type>().values().as_ref(), &[4_294_967_295, 300, 1 << 31]);
    let a = run(&c, DataType::Int8, &data);
    assert_eq!(a.as_primitive::<Int8Type>().values().as_ref(), &[-1, 44, 0]);
    let a = run(&c, DataType::UInt8, &data);
    assert_eq!(a.as_primitive::<UInt8Type>().values().as_ref(), &[255, 44, 0]);
    let a = run(&c, DataType::Int16, &data);
    assert_eq!(a.as_primitive::<Int16Type>().values().as_ref(), &[-1, 300, 0]);
    let a = run(&c, DataType::Int64, &data);
    assert_eq!(a.as_primitive::<Int64Type>().values().as_ref(), &[-1, 300, i32::MIN as i64]);
    // An unsigned column widens without sign extension.
    let mut u = c.clone();
    u.converted_type = Some(ConvertedType::UINT_32);
    let a = run(&u, DataType::UInt64, &data);
    assert_eq!(a.as_primitive::<UInt64Type>().values().as_ref(), &[4_294_967_295, 300, 1 << 31]);
    let a = run(&column(PhysicalType::INT64, 0), DataType::UInt64, &le_i64(&[-1]));
    assert_eq!(a.as_primitive::<UInt64Type>().values().as_ref(), &[u64::MAX]);
}

#[test]
fn dates_times_and_timestamp_units() {
    let date = with_logical(column(PhysicalType::INT32, 0), LogicalType::Date);
    let mut d = decoder(&date, &DataType::Date64);
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[1, -1]), 2, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Date64Type>().values().as_ref(), &[86_400_000, -86_400_000]);
    let mut d = decoder(&date, &DataType::Date32);
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[1, -1]), 2, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<Date32Type>().values().as_ref(), &[1, -1]);

    let time = |p, unit| {
        with_logical(column(p, 0), LogicalType::Time { is_adjusted_to_utc: false, unit })
    };
    let mut d = decoder(&time(PhysicalType::INT32, PUnit::Millis), &DataType::Time64(TimeUnit::Microsecond));
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[1_500]), 1, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.as_primitive::<Time64MicrosecondType>().value(0), 1_500_000);
    let mut d = decoder(&time(PhysicalType::INT32, PUnit::Millis), &DataType::Time32(TimeUnit::Second));
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[61_999]), 1, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<Time32SecondType>().value(0), 61);
    let mut d = decoder(&time(PhysicalType::INT64, PUnit::Nanos), &DataType::Time64(TimeUnit::Nanosecond));
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[5]), 1, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<Time64NanosecondType>().value(0), 5);

    // TIMESTAMP(MILLIS) read as seconds (an ARROW:schema hint) and as microseconds, with the
    // time zone carried over; the legacy TIMESTAMP_MICROS read as nanoseconds.
    let ts = with_logical(
        column(PhysicalType::INT64, 0),
        LogicalType::Timestamp { is_adjusted_to_utc: true, unit: PUnit::Millis },
    );
    let tz = Some(Arc::from("+01:00"));
    let mut d = decoder(&ts, &DataType::Timestamp(TimeUnit::Second, tz.clone()));
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[5_000, -5_000]), 2, None).unwrap();
    let a = finish(d.as_mut(), None);
    assert_eq!(a.data_type(), &DataType::Timestamp(TimeUnit::Second, tz.clone()));
    assert_eq!(a.as_primitive::<TimestampSecondType>().values().as_ref(), &[5, -5]);
    let mut d = decoder(&ts, &DataType::Timestamp(TimeUnit::Microsecond, None));
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[5]), 1, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<TimestampMicrosecondType>().value(0), 5_000);
    let mut legacy = column(PhysicalType::INT64, 0);
    legacy.converted_type = Some(ConvertedType::TIMESTAMP_MICROS);
    let mut d = decoder(&legacy, &DataType::Timestamp(TimeUnit::Nanosecond, None));
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[7]), 1, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<TimestampNanosecondType>().value(0), 7_000);
    // Durations carry no stored unit: the values are taken as they are.
    let mut d = decoder(&column(PhysicalType::INT64, 0), &DataType::Duration(TimeUnit::Millisecond));
    append(d.as_mut(), Encoding::PLAIN, &le_i64(&[9]), 1, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<DurationMillisecondType>().value(0), 9);
}

#[test]
fn float16_uuid_and_interval_from_flba() {
    let c = with_logical(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 2), LogicalType::Float16);
    let mut d = decoder(&c, &DataType::Float16);
    // 1.0 is 0x3C00, -2.0 is 0xC000 (little endian).
    append(d.as_mut(), Encoding::PLAIN, &[0x00, 0x3C, 0x00, 0xC0], 2, Some(&[true, false, true]))
        .unwrap();
    let a = finish(d.as_mut(), Some(&[true, false, true]));
    let a = a.as_primitive::<Float16Type>();
    assert_eq!((a.value(0).to_f32(), a.is_null(1), a.value(2).to_f32()), (1.0, true, -2.0));

    let c = with_logical(column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 16), LogicalType::Uuid);
    let mut d = decoder(&c, &DataType::FixedSizeBinary(16));
    let uuids: Vec<u8> = (0..32).collect();
    set_dictionary(d.as_mut(), &uuids, 2).unwrap();
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &[1, 3, 0b0110], 4, None).unwrap();
    let a = finish(d.as_mut(), None);
    let a = a.as_fixed_size_binary();
    assert_eq!((a.len(), a.value_length()), (4, 16));
    assert_eq!([a.value(0)[0], a.value(1)[0], a.value(2)[0], a.value(3)[0]], [0, 16, 16, 0]);
    // Bit width 2: indexes 0 and 3, past the 2-entry dictionary.
    assert!(append(d.as_mut(), Encoding::RLE_DICTIONARY, &[2, 3, 0b1100], 2, None).is_err());

    let mut c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 12);
    c.converted_type = Some(ConvertedType::INTERVAL);
    let mut d = decoder(&c, &DataType::FixedSizeBinary(12));
    append(d.as_mut(), Encoding::PLAIN, &[7; 24], 2, None).unwrap();
    assert_eq!(finish(d.as_mut(), None).as_fixed_size_binary().value(1), &[7; 12]);
}

#[test]
fn flba_delta_byte_array() {
    let mut page = Vec::new();
    delta_byte_array::encode(&[&b"abcd"[..], b"abce", b"xyzw", b"xyzw"], &mut page);
    let c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 4);
    let mut d = decoder(&c, &DataType::FixedSizeBinary(4));
    // A value before this page must not serve as its prefix source.
    append(d.as_mut(), Encoding::PLAIN, b"zzzz", 1, None).unwrap();
    append(d.as_mut(), Encoding::DELTA_BYTE_ARRAY, &page, 4, Some(&[true, true, false, true, true]))
        .unwrap();
    let a = finish(d.as_mut(), None);
    let got: Vec<&[u8]> = a.as_fixed_size_binary().iter().map(Option::unwrap).collect();
    assert_eq!(got, [&b"zzzz"[..], b"abcd", b"abce", b"\0\0\0\0", b"xyzw", b"xyzw"]);

    // A value of the wrong width is an error, as is a page declaring fewer values.
    let mut bad = Vec::new();
    delta_byte_array::encode(&[&b"abcd"[..], b"abc"], &mut bad);
    let err = append(d.as_mut(), Encoding::DELTA_BYTE_ARRAY, &bad, 2, None).unwrap_err();
    assert!(err.message().contains("FIXED_LEN_BYTE_ARRAY(4)"), "{err}");
    assert!(append(d.as_mut(), Encoding::DELTA_BYTE_ARRAY, &page, 5, None).is_err());
    assert_eq!(d.len(), 0);
}

#[test]
fn truncated_pages_are_errors() {
    let c = column(PhysicalType::INT32, 0);
    let mut d = decoder(&c, &DataType::Int32);
    let err = append(d.as_mut(), Encoding::PLAIN, &[1, 2, 3], 1, None).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Corrupt);
    assert!(err.message().contains("1 values of 4 bytes"), "{err}");
    let c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 5);
    let mut d = decoder(&c, &DataType::FixedSizeBinary(5));
    assert!(append(d.as_mut(), Encoding::PLAIN, &[0; 9], 2, None).is_err());
    assert!(set_dictionary(d.as_mut(), &[0; 9], 2).is_err());
    assert!(append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &[0; 9], 2, None).is_err());
    assert_eq!(d.len(), 0);
}

#[test]
fn unsupported_types_and_encodings() {
    let c = column(PhysicalType::INT32, 0);
    let err = fixed_decoder(&c, &DataType::Utf8).err().unwrap();
    assert_eq!(err.kind(), ErrorKind::Unsupported);
    assert_eq!(err.message(), "column 'a.b': cannot read Parquet INT32 as Arrow Utf8");
    let ts = with_logical(c, LogicalType::Timestamp { is_adjusted_to_utc: true, unit: PUnit::Millis });
    let err = fixed_decoder(&ts, &DataType::Float64).err().unwrap();
    assert!(err.message().contains("INT32 (Timestamp"), "{err}");
    let f = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 4);
    let err = fixed_decoder(&f, &DataType::FixedSizeBinary(3)).err().unwrap();
    assert!(err.message().contains("FIXED_LEN_BYTE_ARRAY(4) as Arrow FixedSizeBinary(3)"), "{err}");
    assert!(fixed_decoder(&f, &DataType::Float16).is_err());
    assert!(fixed_decoder(&column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 0), &DataType::FixedSizeBinary(0)).is_err());
    assert!(fixed_decoder(&column(PhysicalType::BYTE_ARRAY, 0), &DataType::Binary).is_err());
    // Not valid Arrow types.
    assert!(fixed_decoder(&column(PhysicalType::INT64, 0), &DataType::Time32(TimeUnit::Microsecond)).is_err());
    assert!(fixed_decoder(&column(PhysicalType::INT32, 0), &DataType::Time64(TimeUnit::Second)).is_err());

    let mut d = decoder(&column(PhysicalType::FLOAT, 0), &DataType::Float32);
    let err = append(d.as_mut(), Encoding::DELTA_BINARY_PACKED, &[0; 4], 1, None).unwrap_err();
    assert_eq!(err.message(), "encoding DELTA_BINARY_PACKED is not supported for FLOAT values");
    let err = append(d.as_mut(), Encoding(42), &[0; 4], 1, None).unwrap_err();
    assert!(err.message().contains("UNKNOWN(42)"), "{err}");
    let mut d = decoder(&column(PhysicalType::INT96, 0), &DataType::Timestamp(TimeUnit::Second, None));
    assert!(append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &[0; 12], 1, None).is_err());
}

/// Random bytes as every encoding of every type: errors or values, never a panic.
#[test]
fn random_pages_never_panic() {
    let mut rng = TestRng::new(42);
    let kinds = [
        (column(PhysicalType::BOOLEAN, 0), DataType::Boolean),
        (column(PhysicalType::INT32, 0), DataType::Int8),
        (column(PhysicalType::INT64, 0), DataType::Int64),
        (column(PhysicalType::INT96, 0), DataType::Timestamp(TimeUnit::Millisecond, None)),
        (column(PhysicalType::FLOAT, 0), DataType::Float32),
        (column(PhysicalType::DOUBLE, 0), DataType::Float64),
        (column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 3), DataType::Decimal128(5, 0)),
    ];
    let encodings = [0, 2, 3, 5, 7, 8, 9].map(Encoding);
    for (c, dt) in &kinds {
        let mut d = decoder(c, dt);
        for _ in 0..400 {
            let len = rng.below(40) as usize;
            let data = rng.bytes(len);
            if rng.below(4) == 0 {
                let _ = set_dictionary(d.as_mut(), &data, rng.below(6) as usize);
            }
            let encoding = encodings[rng.below(encodings.len() as u64) as usize];
            let rows: Vec<bool> = (0..rng.below(80)).map(|_| rng.below(3) != 0).collect();
            let before = d.len();
            let result = if rng.below(2) == 0 {
                append(d.as_mut(), encoding, &data, rows.iter().filter(|&&v| v).count(), Some(&rows))
            } else {
                append(d.as_mut(), encoding, &data, rows.len(), None)
            };
            match result {
                Ok(()) => assert_eq!(d.len(), before + rows.len()),
                Err(_) => assert_eq!(d.len(), before),
            }
        }
        let len = d.len();
        assert_eq!(finish(d.as_mut(), None).len(), len);
    }
    // An RLE encoder round trip through the dictionary path, for good measure.
    let indexes: Vec<u32> = (0..1000).map(|_| rng.below(5) as u32).collect();
    let mut page = vec![3];
    rle::encode_rle_hybrid(&indexes, 3, &mut page);
    let mut d = decoder(&column(PhysicalType::INT32, 0), &DataType::Int32);
    set_dictionary(d.as_mut(), &le_i32(&[0, 10, 20, 30, 40]), 5).unwrap();
    append(d.as_mut(), Encoding::RLE_DICTIONARY, &page, 1000, None).unwrap();
    let expect: Vec<i32> = indexes.iter().map(|&i| i as i32 * 10).collect();
    assert_eq!(finish(d.as_mut(), None).as_primitive::<Int32Type>().values().as_ref(), &expect);
}

#[test]
fn finish_checks_the_null_buffer_length() {
    let mut d = decoder(&column(PhysicalType::INT32, 0), &DataType::Int32);
    append(d.as_mut(), Encoding::PLAIN, &le_i32(&[1, 2]), 2, None).unwrap();
    assert!(d.finish(Some(NullBuffer::new_null(3))).is_err());
}
