//! Each physical type to each output type it can produce.

use super::*;

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
    for dt in
        [DataType::Decimal32(7, 2), DataType::Decimal64(7, 2), DataType::Decimal128(7, 2), DataType::Decimal256(7, 2)]
    {
        let mut d = decoder(&c, &dt);
        append(d.as_mut(), Encoding::PLAIN, &data, 3, None).unwrap();
        let a = finish(d.as_mut(), None);
        assert_eq!(a.data_type(), &dt);
        let got: Vec<i128> = match dt {
            DataType::Decimal32(..) => a.as_primitive::<Decimal32Type>().values().iter().map(|&v| v.into()).collect(),
            DataType::Decimal64(..) => a.as_primitive::<Decimal64Type>().values().iter().map(|&v| v.into()).collect(),
            DataType::Decimal128(..) => a.as_primitive::<Decimal128Type>().values().to_vec(),
            _ => a.as_primitive::<Decimal256Type>().values().iter().map(|v| v.as_i128()).collect(),
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

    let time = |p, unit| with_logical(column(p, 0), LogicalType::Time { is_adjusted_to_utc: false, unit });
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
    append(d.as_mut(), Encoding::PLAIN, &[0x00, 0x3C, 0x00, 0xC0], 2, Some(&[true, false, true])).unwrap();
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
