//! Page headers: the input is the bytes of a column chunk (page headers and bodies).
//!
//! Decodes the input as one Thrift `PageHeader` (and as the page index and bloom filter
//! headers, which share the Thrift reader), checks that each re-encodes to bytes that decode
//! to the same value, then walks it as a column chunk with [`PageStream`], as the reader does.

#![no_main]

use libfuzzer_sys::fuzz_target;
use parquetry::format::thrift::{self, ThriftStruct};
use parquetry::format::{BloomFilterHeader, ColumnIndex, ColumnMetaData, OffsetIndex, PageHeader};
use parquetry::page::{BytesSource, PageStream};

fn roundtrip<T: ThriftStruct + PartialEq + std::fmt::Debug>(data: &[u8]) {
    if let Ok((value, used)) = thrift::decode::<T>(data) {
        assert!(used <= data.len());
        let mut bytes = Vec::new();
        thrift::encode(&value, &mut bytes);
        let (again, again_used) = thrift::decode::<T>(&bytes).expect("re-encoded value does not decode");
        assert_eq!(again, value, "value changed through encode + decode");
        assert_eq!(again_used, bytes.len());
    }
}

fuzz_target!(|data: &[u8]| {
    roundtrip::<PageHeader>(data);
    roundtrip::<ColumnIndex>(data);
    roundtrip::<OffsetIndex>(data);
    roundtrip::<BloomFilterHeader>(data);

    // The input as a whole column chunk of a file that is nothing else.
    let meta = ColumnMetaData {
        num_values: i64::MAX,
        total_compressed_size: data.len() as i64,
        data_page_offset: 0,
        ..Default::default()
    };
    let source = BytesSource::new(data.to_vec());
    let Ok(mut stream) = PageStream::new(&meta, data.len() as u64, false) else { return };
    let mut pages = 0usize;
    while let Ok(Some(page)) = stream.next_page(&source) {
        assert!(page.body.len() == page.header.compressed_page_size as usize);
        pages += 1;
        // Every page takes at least one byte of header.
        assert!(pages <= data.len(), "more pages than bytes");
        stream.recycle(page.body);
    }
});
