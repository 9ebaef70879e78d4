//! Footer decoding: the input is a file's tail (or a whole small file).
//!
//! Decodes it the three ways the library does (whole file in memory, a `Read + Seek`
//! stream, and the bare Thrift bytes the tail points at), then builds the schema and its
//! Arrow mapping from what decoded, and checks that encoding the metadata back decodes to the
//! same value. Errors are fine; panics, hangs and huge allocations are bugs.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use parquetry::format::{self, footer, FileMetaData};
use parquetry::schema::{arrow_schema, leaf_arrow_type, SchemaDescriptor};

fn check(meta: &FileMetaData) {
    if let Ok(schema) = SchemaDescriptor::from_metadata(meta) {
        let _ = arrow_schema(&schema, meta.key_value_metadata.as_deref());
        for c in &schema.columns {
            let _ = (c.dotted_path(), leaf_arrow_type(c));
        }
    }
    // Whatever decodes encodes back to bytes that decode to the same metadata.
    let bytes = format::encode_footer(meta);
    let again =
        format::read_metadata_from_bytes(&[&b"PAR1"[..], &bytes].concat()).expect("re-encoded footer does not decode");
    assert_eq!(&again, meta, "footer changed through encode + decode");
}

fuzz_target!(|data: &[u8]| {
    if let Ok(meta) = format::read_metadata_from_bytes(data) {
        check(&meta);
    }
    if let Ok((meta, len)) = format::read_metadata(&mut Cursor::new(data)) {
        assert_eq!(len, data.len() as u64);
        check(&meta);
    }
    // The tail of a larger file: the footer its last 8 bytes point at, without the leading
    // magic that `read_metadata_from_bytes` insists on.
    if let Some(tail) = data.last_chunk::<8>() {
        if let Ok(len) = footer::footer_length(tail, data.len() as u64) {
            let end = data.len() - 8;
            if let Ok(meta) = format::footer::decode_file_metadata(&data[end - len..end]) {
                check(&meta);
            }
        }
    }
    // And the whole input as bare Thrift.
    if let Ok(meta) = footer::decode_file_metadata(data) {
        check(&meta);
    }
});
