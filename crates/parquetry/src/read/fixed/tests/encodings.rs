//! BYTE_STREAM_SPLIT, booleans, DELTA_BYTE_ARRAY for FIXED_LEN_BYTE_ARRAY, and bad pages.

use super::*;

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
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, &data, 3, Some(&[true, false, true, true])).unwrap();
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
    append(d.as_mut(), Encoding::BYTE_STREAM_SPLIT, b"adbecf", 2, Some(&[false, true, true])).unwrap();
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
fn flba_delta_byte_array() {
    let mut page = Vec::new();
    delta_byte_array::encode(&[&b"abcd"[..], b"abce", b"xyzw", b"xyzw"], &mut page);
    let c = column(PhysicalType::FIXED_LEN_BYTE_ARRAY, 4);
    let mut d = decoder(&c, &DataType::FixedSizeBinary(4));
    // A value before this page must not serve as its prefix source.
    append(d.as_mut(), Encoding::PLAIN, b"zzzz", 1, None).unwrap();
    append(d.as_mut(), Encoding::DELTA_BYTE_ARRAY, &page, 4, Some(&[true, true, false, true, true])).unwrap();
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
