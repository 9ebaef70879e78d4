//! Inputs found by the fuzz targets (`fuzz/`, see the README's "Fuzzing" section), minimized,
//! each with the check that failed on it. Small inputs are byte literals here; larger ones
//! are files under `tests/fuzz_regressions/`.

use parquetry::encoding::delta_byte_array::DeltaByteArrayDecoder;
use parquetry::encoding::OffsetsSink;

/// Decodes a DELTA_BYTE_ARRAY page in calls of `steps` values each into one sink.
fn delta_byte_array_in_steps(page: &[u8], count: usize, steps: &[usize]) -> Vec<Vec<u8>> {
    let mut d = DeltaByteArrayDecoder::new(page, 0, count).expect("valid page");
    let mut sink = OffsetsSink::<i64>::new();
    for &n in steps {
        let before = sink.len();
        let got = d.decode(n, &mut sink).expect("decode");
        assert_eq!(got, n.min(count - before), "decode({n}) after {before} values");
        assert_eq!(sink.len() - before, got, "decode({n}) reported {got} values");
    }
    (0..sink.len()).map(|i| sink.value(i).unwrap().to_vec()).collect()
}

/// kernels: `DeltaByteArrayDecoder::decode(0, ..)` used up the next value's suffix, so the
/// values after it were built from the wrong suffixes ("abyz" for "abx"), and at the page's
/// end a call reported a value it had not given.
#[test]
fn delta_byte_array_decode_of_no_values_takes_no_suffix() {
    // "abc", "abx", "ayz": prefix lengths [0, 2, 1], then suffixes "abc", "x", "yz".
    let page = [
        0x80, 0x01, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x04, 0x03, 0x06, 0x03, 0x02, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, b'a', b'b', b'c', b'x', b'y', b'z',
    ];
    let want: Vec<Vec<u8>> = vec![b"abc".to_vec(), b"abx".to_vec(), b"ayz".to_vec()];
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[3]), want);
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[1, 0, 1, 0, 1, 0]), want);
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[0, 2, 0, 0, 1]), want);

    // The fuzzer's minimized page (artifact minimized-from-3774b83e): three empty values.
    let page = [
        0x80, 0x01, 0x04, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x04, 0x03,
        0x00, 0x00, 0x00, 0x00, b'x', b'y', b'z',
    ];
    let empty = vec![Vec::new(); 3];
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[1, 0, 1, 0, 1, 0]), empty);
}
