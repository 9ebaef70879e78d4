//! Output sizing: the footer's hint is honoured exactly when it is exact, and outgrown by
//! projection, not doubling, when it is short.

use arrow_array::cast::AsArray;
use arrow_schema::DataType;

use super::tests::{append, decoder, encode, finish, indexes, DENSE, VALUES};
use crate::format::Encoding;

#[test]
fn exact_reserve_is_never_exceeded() {
    let total: usize = VALUES.iter().map(|v| v.len()).sum();
    let dict = encode(Encoding::PLAIN, &VALUES);
    let idx: Vec<u32> = (0..9).rev().collect();
    for output in [DataType::Utf8, DataType::LargeBinary] {
        let mut d = decoder(&output);
        d.set_dictionary(&dict.values()).unwrap();
        // Four pages of the same values (PLAIN, DELTA_LENGTH, DELTA, dictionary) and nulls.
        d.reserve(4 * 9 + 3, 4 * total);
        let mut valid = Vec::new();
        for enc in DENSE {
            valid.extend(append(d.as_mut(), &encode(enc, &VALUES), None).unwrap());
        }
        let rows_a = [[true; 5].as_slice(), &[false; 3], &[true; 4]].concat();
        valid.extend(append(d.as_mut(), &indexes(&idx, 4), Some(&rows_a)).unwrap());
        let a = finish(d.as_mut(), &valid);
        let (data_capacity, data_len) = match output {
            DataType::Utf8 => (a.as_string::<i32>().values().capacity(), a.as_string::<i32>().values().len()),
            _ => (a.as_binary::<i64>().values().capacity(), a.as_binary::<i64>().values().len()),
        };
        assert_eq!(data_len, 4 * total);
        assert_eq!(data_capacity, 4 * total, "{output}: the data buffer grew");
    }
}

#[test]
fn an_underestimated_hint_grows_by_projection_not_doubling() {
    // The footer's estimate says 10 bytes for 1,000 rows; ten pages of 100 ten-byte values
    // follow. Doubling would end with 16,000 bytes of capacity for 10,000 of data.
    let value = [b'v'; 10];
    let page: Vec<&[u8]> = vec![&value; 100];
    for enc in DENSE.into_iter().chain([Encoding::RLE_DICTIONARY]) {
        let mut d = decoder(&DataType::Utf8);
        d.set_dictionary(&encode(Encoding::PLAIN, &[&value]).values()).unwrap();
        d.reserve(1000, 10);
        let mut valid = Vec::new();
        for _ in 0..10 {
            let p = match enc {
                Encoding::RLE_DICTIONARY => indexes(&[0; 100], 1),
                _ => encode(enc, &page),
            };
            valid.extend(append(d.as_mut(), &p, None).unwrap());
        }
        let a = finish(d.as_mut(), &valid);
        let values = a.as_string::<i32>().values();
        assert_eq!(values.len(), 10_000);
        assert!(values.capacity() <= 12_000, "{enc}: capacity {}", values.capacity());
    }
}
