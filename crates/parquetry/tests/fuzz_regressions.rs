//! Inputs found by the fuzz targets (`fuzz/`, see the README's "Fuzzing" section), minimized,
//! each with the check that failed on it. Small inputs are byte literals here; larger ones
//! are files under `tests/fuzz_regressions/`.

use parquetry::encoding::delta_byte_array::DeltaByteArrayDecoder;
use parquetry::encoding::OffsetsSink;
use parquetry::format::ColumnMetaData;
use parquetry::page::{BytesSource, PageStream};

/// An input file under `tests/fuzz_regressions/`.
fn input(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

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
        0x80, 0x01, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x80, 0x01, 0x04, 0x03, 0x06, 0x03, 0x02, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        b'a', b'b', b'c', b'x', b'y', b'z',
    ];
    let want: Vec<Vec<u8>> = vec![b"abc".to_vec(), b"abx".to_vec(), b"ayz".to_vec()];
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[3]), want);
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[1, 0, 1, 0, 1, 0]), want);
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[0, 2, 0, 0, 1]), want);

    // The fuzzer's minimized page (artifact minimized-from-3774b83e): three empty values.
    let page = [
        0x80, 0x01, 0x04, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x01, 0x04, 0x03, 0x00, 0x00, 0x00, 0x00,
        b'x', b'y', b'z',
    ];
    let empty = vec![Vec::<u8>::new(); 3];
    assert_eq!(delta_byte_array_in_steps(&page, 3, &[1, 0, 1, 0, 1, 0]), empty);
}

/// Streams `chunk` as the pages of a column chunk that claims `num_values` values; returns how
/// many pages came out before the end or an error.
fn stream_pages(chunk: &[u8], num_values: i64) -> usize {
    let meta = ColumnMetaData {
        num_values,
        total_compressed_size: chunk.len() as i64,
        data_page_offset: 0,
        ..Default::default()
    };
    let source = BytesSource::new(chunk.to_vec());
    let mut stream = PageStream::new(&meta, chunk.len() as u64, false).expect("chunk in range");
    let mut pages = 0;
    while let Ok(Some(_)) = stream.next_page(&source) {
        pages += 1;
    }
    pages
}

/// page_header: a data page header with a negative value count, in a chunk whose footer
/// claims `i64::MAX` values, overflowed the count of values left (a panic with overflow
/// checks, as in debug builds). The count now counts as 0 for streaming, and the reader rejects
/// the page when it decodes it.
#[test]
fn page_stream_negative_num_values() {
    // DATA_PAGE, 4 bytes, num_values -1 (zigzag 1), then a 4-byte body; twice.
    let page = [
        0x15, 0x00, 0x15, 0x08, 0x15, 0x08, 0x2c, 0x15, 0x01, 0x15, 0x00, 0x15, 0x06, 0x15, 0x06, 0x00, 0x00, 1, 2, 3,
        4,
    ];
    let chunk = [&page[..], &page[..]].concat();
    assert_eq!(stream_pages(&chunk, i64::MAX), 2);
    assert_eq!(stream_pages(&chunk, 1), 2);
    // The fuzzer's minimized input (artifact minimized-from-f47e472e).
    stream_pages(&input("page_stream_negative_num_values.bin"), i64::MAX);
}
