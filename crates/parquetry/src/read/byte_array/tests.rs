//! Tests of the byte-array value decoders over hand-built pages.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{Array, ArrayRef};
use arrow_buffer::{Buffer, NullBuffer};
use arrow_schema::DataType;

use super::*;
use crate::encoding::rle::encode_rle_hybrid;
use crate::encoding::{delta_byte_array, delta_length_byte_array, TestRng};
use crate::format::{Encoding, Repetition};
use crate::read::page_values::{PageScratch, PageValues, ValueKind};

/// A page's values section inside a buffer that starts with 3 unrelated bytes, so offsets
/// into the buffer are exercised.
pub(super) struct Page {
    buffer: Buffer,
    pub(super) encoding: Encoding,
    pub(super) n: usize,
}

impl Page {
    pub(super) fn new(encoding: Encoding, bytes: &[u8], n: usize) -> Self {
        let mut v = vec![0xEE; 3];
        v.extend_from_slice(bytes);
        Page { buffer: Buffer::from_vec(v), encoding, n }
    }

    /// The section opened as a data page: an error names what is wrong with it.
    pub(super) fn open(&self) -> Result<PageValues> {
        let kind = ValueKind { physical_type: PhysicalType::BYTE_ARRAY, type_length: 0 };
        PageValues::new(self.buffer.slice(3), self.encoding, self.n, kind, &mut PageScratch::default())
    }

    /// The section as a dictionary page.
    pub(super) fn dictionary(&self) -> Result<PageValues> {
        PageValues::dictionary(self.buffer.slice(3), self.encoding, self.n)
    }

    /// The section as a dictionary page, which must open.
    pub(super) fn values(&self) -> PageValues {
        self.dictionary().unwrap()
    }

    pub(super) fn bytes(&self) -> &[u8] {
        &self.buffer.as_slice()[3..]
    }
}

fn plain_bytes(values: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v);
    }
    out
}

/// `values` encoded as a data page in `encoding` (dictionary encodings take indexes).
pub(super) fn encode(encoding: Encoding, values: &[&[u8]]) -> Page {
    let mut out = Vec::new();
    match encoding {
        Encoding::PLAIN => out = plain_bytes(values),
        Encoding::DELTA_LENGTH_BYTE_ARRAY => delta_length_byte_array::encode(values, &mut out),
        Encoding::DELTA_BYTE_ARRAY => delta_byte_array::encode(values, &mut out),
        e => panic!("{e}"),
    }
    Page::new(encoding, &out, values.len())
}

/// A dictionary-encoded data page of `indexes` at `bit_width`.
pub(super) fn indexes(indexes: &[u32], bit_width: u8) -> Page {
    let mut out = vec![bit_width];
    encode_rle_hybrid(indexes, bit_width, &mut out);
    Page::new(Encoding::RLE_DICTIONARY, &out, indexes.len())
}

fn column(physical_type: PhysicalType) -> ColumnDescriptor {
    ColumnDescriptor {
        path: vec!["a".into(), "b".into()],
        physical_type,
        type_length: 0,
        logical_type: None,
        converted_type: None,
        scale: 0,
        precision: 0,
        repetition: Repetition::OPTIONAL,
        max_def_level: 1,
        max_rep_level: 0,
        element: 0,
    }
}

pub(super) fn decoder(output: &DataType) -> Box<dyn ValueDecoder> {
    byte_array_decoder(&column(PhysicalType::BYTE_ARRAY), output).unwrap()
}

/// An LSB-first bitmap of `rows` and its null count.
pub(super) fn bitmap(rows: &[bool]) -> (Vec<u8>, usize) {
    let mut bits = vec![0u8; rows.len().div_ceil(8)];
    for (i, _) in rows.iter().enumerate().filter(|(_, v)| **v) {
        bits[i / 8] |= 1 << (i % 8);
    }
    (bits, rows.iter().filter(|v| !**v).count())
}

/// Appends `page` with `rows` (None: all valid) and returns the rows' validity.
pub(super) fn append(d: &mut dyn ValueDecoder, page: &Page, rows: Option<&[bool]>) -> Result<Vec<bool>> {
    let Some(rows) = rows else {
        d.read(&mut page.open()?, page.n, None)?;
        return Ok(vec![true; page.n]);
    };
    let (bits, null_count) = bitmap(rows);
    let v = Validity { bits: &bits, offset: 0, len: rows.len(), null_count };
    d.read(&mut page.open()?, page.n, Some(&v))?;
    Ok(rows.to_vec())
}

pub(super) fn finish(d: &mut dyn ValueDecoder, valid: &[bool]) -> ArrayRef {
    assert_eq!(d.len(), valid.len());
    let nulls = valid.iter().any(|v| !v).then(|| NullBuffer::from(valid.to_vec()));
    let a = d.finish(nulls).unwrap();
    // The full check of every invariant the unsafe constructors skipped.
    a.to_data().validate_full().unwrap();
    assert_eq!(d.len(), 0);
    a
}

/// The rows of a string, binary, view or dictionary array as bytes.
pub(super) fn rows(a: &dyn Array) -> Vec<Option<Vec<u8>>> {
    let bytes = |v: Option<&[u8]>| v.map(<[u8]>::to_vec);
    match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().iter().map(|v| bytes(v.map(str::as_bytes))).collect(),
        DataType::LargeUtf8 => a.as_string::<i64>().iter().map(|v| bytes(v.map(str::as_bytes))).collect(),
        DataType::Utf8View => a.as_string_view().iter().map(|v| bytes(v.map(str::as_bytes))).collect(),
        DataType::Binary => a.as_binary::<i32>().iter().map(bytes).collect(),
        DataType::LargeBinary => a.as_binary::<i64>().iter().map(bytes).collect(),
        DataType::BinaryView => a.as_binary_view().iter().map(bytes).collect(),
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let values = rows(d.values().as_ref());
            let keys = d.normalized_keys();
            (0..a.len()).map(|i| a.is_valid(i).then(|| values[keys[i]].clone().unwrap())).collect()
        }
        t => panic!("{t}"),
    }
}

fn expect(values: &[&[u8]], valid: &[bool]) -> Vec<Option<Vec<u8>>> {
    let mut it = values.iter();
    valid.iter().map(|&v| v.then(|| it.next().unwrap().to_vec())).collect()
}

pub(super) const OUTPUTS: [fn() -> DataType; 10] = [
    || DataType::Utf8,
    || DataType::LargeUtf8,
    || DataType::Binary,
    || DataType::LargeBinary,
    || DataType::Utf8View,
    || DataType::BinaryView,
    || DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
    || DataType::Dictionary(Box::new(DataType::UInt16), Box::new(DataType::LargeUtf8)),
    || DataType::Dictionary(Box::new(DataType::Int64), Box::new(DataType::Binary)),
    || DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::LargeBinary)),
];

pub(super) const VALUES: [&[u8]; 9] = [
    b"",
    b"short",
    "héllo wörld".as_bytes(),
    "日本語のテキスト、十二バイトより長い".as_bytes(),
    b"exactly12byt",
    b"thirteen byte",
    b"short",
    "é".as_bytes(),
    b"https://www.example7.com/path/to/resource/item/1234567",
];

pub(super) const DENSE: [Encoding; 3] =
    [Encoding::PLAIN, Encoding::DELTA_LENGTH_BYTE_ARRAY, Encoding::DELTA_BYTE_ARRAY];

#[test]
fn every_output_and_encoding_with_nulls() {
    let rows_a = [true, false, true, true, false, true, true, true, true, true, false, true];
    for output in OUTPUTS.map(|f| f()) {
        for enc in DENSE {
            let mut d = decoder(&output);
            d.reserve(30, 400);
            let mut valid = append(d.as_mut(), &encode(enc, &VALUES), Some(&rows_a)).unwrap();
            valid.extend(append(d.as_mut(), &encode(enc, &VALUES[2..5]), None).unwrap());
            // A page of nulls only.
            valid.extend(append(d.as_mut(), &encode(enc, &[]), Some(&[false, false])).unwrap());
            let a = finish(d.as_mut(), &valid);
            assert_eq!(a.data_type(), &output);
            let mut want = expect(&VALUES, &rows_a);
            want.extend(expect(&VALUES[2..5], &[true; 3]));
            want.extend([None, None]);
            assert_eq!(rows(a.as_ref()), want, "{output} {enc}");
        }
    }
}

#[test]
fn dictionary_pages_every_output() {
    let dict = encode(Encoding::PLAIN, &VALUES);
    // Indexes by hand, bit width 4: an RLE run of 9 × index 3 (header 9 << 1 = 18, value 3),
    // then one bit-packed group of 8 (header 1 << 1 | 1 = 3): 8 0 1 2 7 5 4 6, two per byte,
    // low nibble first.
    let idx: Vec<u32> = [vec![3; 9], vec![8, 0, 1, 2, 7, 5, 4, 6]].concat();
    let by_hand = [4, 18, 3, 3, 0x08, 0x21, 0x57, 0x64];
    let page = Page::new(Encoding::RLE_DICTIONARY, &by_hand, 17);
    assert_eq!(indexes(&idx, 4).bytes(), by_hand);
    let picked: Vec<&[u8]> = idx.iter().map(|&i| VALUES[i as usize]).collect();
    let mut dict_plain = Page::new(Encoding::PLAIN_DICTIONARY, dict.bytes(), VALUES.len());
    for output in OUTPUTS.map(|f| f()) {
        for dict_page in [&dict, &dict_plain] {
            let mut d = decoder(&output);
            d.set_dictionary(&dict_page.values()).unwrap();
            let mut rows_a = vec![true; 17];
            rows_a.extend([false, false]);
            rows_a.swap(0, 18);
            let valid = append(d.as_mut(), &page, Some(&rows_a)).unwrap();
            let a = finish(d.as_mut(), &valid);
            assert_eq!(rows(a.as_ref()), expect(&picked, &rows_a), "{output}");
        }
    }
    dict_plain.encoding = Encoding::DELTA_BYTE_ARRAY;
    let e = dict_plain.dictionary().err().unwrap();
    assert!(e.to_string().contains("dictionary page in encoding DELTA_BYTE_ARRAY"), "{e}");
}

#[test]
fn views_point_into_pages_and_dictionary() {
    let page = encode(Encoding::PLAIN, &VALUES);
    let mut d = decoder(&DataType::Utf8View);
    append(d.as_mut(), &page, None).unwrap();
    // A page of short values only is not kept.
    append(d.as_mut(), &encode(Encoding::DELTA_LENGTH_BYTE_ARRAY, &[b"a", b"bc"]), None).unwrap();
    let dlba = encode(Encoding::DELTA_LENGTH_BYTE_ARRAY, &VALUES);
    append(d.as_mut(), &dlba, None).unwrap();
    let a = finish(d.as_mut(), &[true; 20]);
    let a = a.as_string_view();
    assert_eq!(a.data_buffers().len(), 2);
    assert_eq!(a.data_buffers()[0].as_ptr(), page.bytes().as_ptr(), "no copy of PLAIN values");
    assert_eq!(a.data_buffers()[1].as_ptr(), dlba.bytes().as_ptr(), "no copy of DELTA_LENGTH");

    // Dictionary views point into the dictionary page, which each batch holds once, at
    // whatever index it gets in that batch.
    let dict = encode(Encoding::PLAIN, &VALUES);
    let mut d = decoder(&DataType::BinaryView);
    d.set_dictionary(&dict.values()).unwrap();
    append(d.as_mut(), &indexes(&[3, 8, 3], 4), None).unwrap();
    append(d.as_mut(), &indexes(&[5], 4), None).unwrap();
    let a = finish(d.as_mut(), &[true; 4]);
    assert_eq!(a.as_binary_view().data_buffers().len(), 1);
    assert_eq!(a.as_binary_view().data_buffers()[0].as_ptr(), dict.bytes().as_ptr());
    append(d.as_mut(), &page, None).unwrap();
    append(d.as_mut(), &indexes(&[8, 1], 4), None).unwrap();
    let a = finish(d.as_mut(), &[true; 11]);
    assert_eq!(a.as_binary_view().data_buffers().len(), 2);
    assert_eq!(rows(a.as_ref())[9..], [Some(VALUES[8].to_vec()), Some(b"short".to_vec())]);
}

#[test]
fn dictionary_output_shares_values_and_falls_back() {
    let dict = encode(Encoding::PLAIN, &[b"a", b"b", b"c"]);
    let ty = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let mut d = decoder(&ty);
    d.set_dictionary(&dict.values()).unwrap();
    append(d.as_mut(), &indexes(&[2, 0], 2), None).unwrap();
    let first = finish(d.as_mut(), &[true; 2]);
    append(d.as_mut(), &indexes(&[1], 2), None).unwrap();
    let second = finish(d.as_mut(), &[true; 1]);
    let (v1, v2) = (first.as_dictionary::<Int32Type>(), second.as_dictionary::<Int32Type>());
    assert!(Arc::ptr_eq(v1.values(), v2.values()), "the dictionary array is shared");

    // Fallback mid-chunk: PLAIN values are appended after the dictionary's.
    append(d.as_mut(), &indexes(&[0], 2), None).unwrap();
    let valid = append(d.as_mut(), &encode(Encoding::PLAIN, &[b"x", b"y"]), Some(&[true, false, true]));
    let mut valid_all = vec![true];
    valid_all.extend(valid.unwrap());
    append(d.as_mut(), &encode(Encoding::DELTA_BYTE_ARRAY, &[b"zz"]), None).unwrap();
    valid_all.push(true);
    let third = finish(d.as_mut(), &valid_all);
    let v3 = third.as_dictionary::<Int32Type>();
    assert_eq!(v3.values().len(), 6);
    assert_eq!(v3.keys().iter().collect::<Vec<_>>(), [Some(0), Some(3), None, Some(4), Some(5)]);
    let want: Vec<Option<Vec<u8>>> =
        vec![Some(b"a".into()), Some(b"x".into()), None, Some(b"y".into()), Some(b"zz".into())];
    assert_eq!(rows(third.as_ref()), want);
    // The fallback values belonged to that batch only.
    append(d.as_mut(), &indexes(&[1], 2), None).unwrap();
    let fourth = finish(d.as_mut(), &[true]);
    assert!(Arc::ptr_eq(fourth.as_dictionary::<Int32Type>().values(), v1.values()));

    // A new chunk's dictionary while rows of the old one are pending.
    append(d.as_mut(), &indexes(&[2], 2), None).unwrap();
    d.set_dictionary(&encode(Encoding::PLAIN, &[b"p", b"q"]).values()).unwrap();
    append(d.as_mut(), &indexes(&[1, 0], 1), None).unwrap();
    let fifth = finish(d.as_mut(), &[true; 3]);
    let want: Vec<Option<Vec<u8>>> = vec![Some(b"c".into()), Some(b"q".into()), Some(b"p".into())];
    assert_eq!(rows(fifth.as_ref()), want);
    append(d.as_mut(), &indexes(&[1], 1), None).unwrap();
    let sixth = finish(d.as_mut(), &[true]);
    assert_eq!(sixth.as_dictionary::<Int32Type>().values().len(), 2);
    assert_eq!(rows(sixth.as_ref()), [Some(b"q".to_vec())]);
}

#[test]
fn fallback_for_plain_outputs_and_batches_keep_the_dictionary() {
    for output in OUTPUTS.map(|f| f()) {
        let mut d = decoder(&output);
        d.set_dictionary(&encode(Encoding::PLAIN, &VALUES).values()).unwrap();
        append(d.as_mut(), &indexes(&[8, 8, 3], 4), None).unwrap();
        append(d.as_mut(), &encode(Encoding::DELTA_LENGTH_BYTE_ARRAY, &VALUES[..2]), None).unwrap();
        let a = finish(d.as_mut(), &[true; 5]);
        let want = expect(&[VALUES[8], VALUES[8], VALUES[3], VALUES[0], VALUES[1]], &[true; 5]);
        assert_eq!(rows(a.as_ref()), want, "{output}");
        append(d.as_mut(), &indexes(&[2], 4), None).unwrap();
        let a = finish(d.as_mut(), &[true]);
        assert_eq!(rows(a.as_ref()), [Some(VALUES[2].to_vec())], "{output}");
    }
}

#[test]
fn invalid_utf8_is_an_error_naming_the_value() {
    let utf8 = [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View];
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let long_bad = [vec![b'x'; 200], vec![0xFF]].concat();
    // (values, index of the first invalid value)
    let cases: [(Vec<&[u8]>, usize); 5] = [
        (vec![b"ok", b"\xFF", b"ok"], 1),
        // "a\xC3" + "\xA9b" concatenate to the valid "aéb": only the boundary check sees it.
        (vec![b"ok", b"a\xC3", b"\xA9b"], 1),
        (vec![&[b'y'; 130], &long_bad, b"fine"], 1),
        (vec![b"fine", &[b'y'; 300], b"\xC3"], 2),
        (vec!["日本".as_bytes(), &"日本".as_bytes()[..4]], 1),
    ];
    for output in utf8.iter().chain([&dict]) {
        for enc in DENSE {
            for (values, bad) in &cases {
                let mut d = decoder(output);
                append(d.as_mut(), &encode(Encoding::PLAIN, &[b"before"]), None).unwrap();
                let e = append(d.as_mut(), &encode(enc, values), None).unwrap_err();
                assert!(
                    e.to_string().contains(&format!("value {bad} of the page is not valid UTF-8")),
                    "{output} {enc}: {e}"
                );
                // The decoder is left as it was and goes on.
                append(d.as_mut(), &encode(enc, &[b"after"]), None).unwrap();
                let a = finish(d.as_mut(), &[true; 2]);
                assert_eq!(rows(a.as_ref()), [Some(b"before".to_vec()), Some(b"after".to_vec())]);
                // Binary takes the same bytes.
                let mut d = decoder(&DataType::BinaryView);
                append(d.as_mut(), &encode(enc, values), None).unwrap();
            }
        }
        // Invalid dictionary values fail once: at the dictionary page for views and
        // dictionaries, when a page's indexes reach them for offsets.
        let e = dictionary_error(output, &[b"a", b"b\xC3", b"\xA9"]);
        assert!(e.to_string().contains("dictionary page: value 1 of the page"), "{e}");
        // The same past a long value, whose length prefix is not ASCII.
        let long = [b'y'; 200];
        let e = dictionary_error(output, &[b"a", &long, b"\xC3"]);
        assert!(e.to_string().contains("dictionary page: value 2 of the page"), "{e}");
        let ok: [&[u8]; 3] = [b"a", &long, "é".as_bytes()];
        let mut d = decoder(output);
        d.set_dictionary(&encode(Encoding::PLAIN, &ok).values()).unwrap();
        append(d.as_mut(), &indexes(&[0, 1, 2], 2), None).unwrap();
        // Dictionaries of several 64 KiB stretches (checked one after another): a bad value
        // in a later stretch (of short values only) or an earlier one (with long values), is
        // named by its index in the page.
        let short = "ab€".as_bytes();
        let many: Vec<&[u8]> = (0..40_000).map(|i| if i < 1000 && i % 7 == 0 { &long[..] } else { short }).collect();
        decoder(output).set_dictionary(&encode(Encoding::PLAIN, &many).values()).unwrap();
        for bad in [0, 1, 700, 20_000, 39_999] {
            let mut values = many.clone();
            let bad_value = [values[bad], b"\xC3"].concat();
            values[bad] = &bad_value;
            let e = dictionary_error(output, &values);
            assert!(e.to_string().contains(&format!("dictionary page: value {bad} of the page")), "{e}");
        }
    }
}

/// The error of reading a dictionary page of `values`, then a data page of all its indexes
/// in order (offsets outputs check values only when indexes reach them).
fn dictionary_error(output: &DataType, values: &[&[u8]]) -> crate::error::Error {
    let mut d = decoder(output);
    if let Err(e) = d.set_dictionary(&encode(Encoding::PLAIN, values).values()) {
        return e;
    }
    let all: Vec<u32> = (0..values.len() as u32).collect();
    append(d.as_mut(), &indexes(&all, 16), None).unwrap_err()
}

#[test]
fn index_past_dictionary_and_missing_dictionary() {
    for output in OUTPUTS.map(|f| f()).into_iter().chain([DataType::Decimal128(10, 2)]) {
        let mut d = decoder(&output);
        let e = append(d.as_mut(), &indexes(&[0], 1), None).unwrap_err();
        assert!(e.to_string().contains("no dictionary page"), "{e}");
        d.set_dictionary(&encode(Encoding::PLAIN, &[b"\x01", b"\x02", b"\x03"]).values()).unwrap();
        let e = append(d.as_mut(), &indexes(&[0, 1, 2, 1, 3, 0], 2), None).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("dictionary index 3 of value 4 is past the end of the dictionary of 3 values"),
            "{output}: {msg}"
        );
        let e = append(d.as_mut(), &indexes(&[3; 10], 2), None).unwrap_err();
        assert!(e.to_string().contains("index 3 of value 0"), "{e}");
        // Fewer indexes than values, no bit width, and a bit width over 32.
        let mut short = indexes(&[0; 8], 1);
        short.n = 20;
        assert!(append(d.as_mut(), &short, None).unwrap_err().to_string().contains("end after 8"));
        assert!(append(d.as_mut(), &Page::new(Encoding::RLE_DICTIONARY, &[], 1), None).is_err());
        assert!(append(d.as_mut(), &Page::new(Encoding::RLE_DICTIONARY, &[33, 2, 0], 1), None).is_err());
        assert_eq!(d.len(), 0);
    }
}

#[test]
fn truncated_and_malformed_pages_are_errors() {
    let mut rng = TestRng::new(5);
    let outputs: Vec<DataType> =
        OUTPUTS.map(|f| f()).into_iter().chain([DataType::Decimal128(38, 0), DataType::Decimal256(76, 0)]).collect();
    for output in &outputs {
        for enc in DENSE {
            let full = encode(enc, &VALUES[..6]);
            for cut in 0..full.bytes().len() {
                let page = Page::new(enc, &full.bytes()[..cut], 6);
                let mut d = decoder(output);
                // Some cuts still decode (DELTA pages end with value bytes that may be empty),
                // but never panic, and never produce a wrong count.
                if append(d.as_mut(), &page, None).is_ok() {
                    assert_eq!(d.len(), 6);
                }
            }
            // Random bytes.
            for _ in 0..200 {
                let len = rng.below(40) as usize;
                let page = Page::new(enc, &rng.bytes(len), rng.below(8) as usize);
                let mut d = decoder(output);
                let _ = append(d.as_mut(), &page, None);
            }
            // More values claimed than the page holds.
            let mut page = encode(enc, &VALUES[..2]);
            page.n = 3;
            assert!(append(decoder(output).as_mut(), &page, None).is_err(), "{output} {enc}");
        }
        // Validity that does not match the value count.
        let e = append(decoder(output).as_mut(), &encode(Encoding::PLAIN, &[b"a"]), Some(&[false]));
        assert!(e.unwrap_err().to_string().contains("1 encoded values"));
        // Unknown encodings are named.
        let page = Page::new(Encoding(42), &[], 1);
        let e = append(decoder(output).as_mut(), &page, None).unwrap_err();
        assert_eq!(e.kind(), crate::error::ErrorKind::Unsupported);
        assert!(e.to_string().contains("UNKNOWN(42)"), "{e}");
    }
}

#[test]
fn offsets_overflow_suggests_large() {
    assert!(check_room::<i32>(i32::MAX as usize - 6, 6).is_ok());
    let e = check_room::<i32>(i32::MAX as usize - 5, 6).unwrap_err();
    assert!(e.to_string().contains("ByteArrayType::Large"), "{e}");
    assert!(check_room::<i64>(i32::MAX as usize, 1 << 40).is_ok());
    assert!(check_room::<i32>(usize::MAX, u64::MAX).is_err());
}

#[test]
fn factory_rejects_what_it_cannot_read() {
    let col = column(PhysicalType::BYTE_ARRAY);
    for t in [
        DataType::Int32,
        DataType::Dictionary(Box::new(DataType::Utf8), Box::new(DataType::Utf8)),
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Int32)),
    ] {
        let e = byte_array_decoder(&col, &t).err().unwrap();
        assert_eq!(e.kind(), crate::error::ErrorKind::Unsupported);
        assert!(e.to_string().contains("column 'a.b': cannot read BYTE_ARRAY values as Arrow"), "{e}");
    }
    let e = byte_array_decoder(&column(PhysicalType::INT32), &DataType::Utf8).err().unwrap();
    assert!(e.to_string().contains("cannot read INT32 values"), "{e}");
}

#[test]
fn narrow_keys_refuse_big_dictionaries() {
    let owned: Vec<Vec<u8>> = (0..200u32).map(|i| i.to_le_bytes().to_vec()).collect();
    let values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let ty = DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Binary));
    let mut d = decoder(&ty);
    d.set_dictionary(&encode(Encoding::PLAIN, &values).values()).unwrap();
    let e = append(d.as_mut(), &indexes(&[1], 8), None).unwrap_err();
    assert!(e.to_string().contains("200 values does not fit Int8 keys"), "{e}");
    // Without a dictionary, PLAIN values become the dictionary: 200 of them overflow too.
    let mut d = decoder(&ty);
    assert!(append(d.as_mut(), &encode(Encoding::PLAIN, &values), None).is_err());
    append(d.as_mut(), &encode(Encoding::PLAIN, &values[..128]), None).unwrap();
    let a = finish(d.as_mut(), &[true; 128]);
    assert_eq!(rows(a.as_ref())[127], Some(values[127].to_vec()));
}

#[test]
fn random_pages_match_across_outputs() {
    let mut rng = TestRng::new(99);
    for _ in 0..40 {
        let n = rng.below(300) as usize;
        let owned: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let len = [0, 3, 12, 13, 40][rng.below(5) as usize];
                (0..len).map(|_| b"ab\xC3\xA9"[rng.below(2) as usize]).collect()
            })
            .collect();
        let values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let rows_a: Vec<bool> = (0..n + rng.below(50) as usize).map(|_| rng.below(3) > 0).collect();
        let k = rows_a.iter().filter(|v| **v).count().min(n);
        let mut valid_rows: Vec<bool> = Vec::new();
        let mut taken = 0;
        for &r in &rows_a {
            if r && taken == k {
                valid_rows.push(false);
            } else {
                taken += usize::from(r);
                valid_rows.push(r);
            }
        }
        let dict_idx: Vec<u32> = (0..k).map(|i| i as u32).collect();
        for output in OUTPUTS.map(|f| f()) {
            if matches!(&output, DataType::Dictionary(k, _) if **k == DataType::Int8) {
                continue;
            }
            for enc in DENSE.into_iter().chain([Encoding::RLE_DICTIONARY]) {
                let mut d = decoder(&output);
                let page = if enc == Encoding::RLE_DICTIONARY {
                    d.set_dictionary(&encode(Encoding::PLAIN, &values[..k]).values()).unwrap();
                    indexes(&dict_idx, 9)
                } else {
                    encode(enc, &values[..k])
                };
                let valid = append(d.as_mut(), &page, Some(&valid_rows)).unwrap();
                let a = finish(d.as_mut(), &valid);
                assert_eq!(rows(a.as_ref()), expect(&values[..k], &valid_rows), "{output} {enc}");
            }
        }
    }
}
