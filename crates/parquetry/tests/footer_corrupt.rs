//! Corrupted footers and files never panic, hang or over-allocate: they give an `Error`.

mod common;

use parquetry::format::{self, thrift, FileMetaData};
use parquetry::schema::{arrow_schema, SchemaDescriptor};
use parquetry::ErrorKind;

/// Everything a reader does with a footer before touching data, on arbitrary bytes.
fn decode_all(footer: &[u8]) -> parquetry::Result<()> {
    let meta = format::footer::decode_file_metadata(footer)?;
    let desc = SchemaDescriptor::from_metadata(&meta)?;
    arrow_schema(&desc, meta.key_value_metadata.as_deref())?;
    Ok(())
}

fn footer_of(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(common::corpus_dir().join(name)).expect("read corpus file");
    let n = bytes.len();
    let len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
    bytes[n - 8 - len..n - 8].to_vec()
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SAMPLES: [&str; 4] = [
    "data/alltypes_plain.parquet",
    "data/nested_lists.snappy.parquet",
    "data/byte_array_decimal.parquet",
    "data/datapage_v2.snappy.parquet",
];

#[test]
fn truncated_at_every_byte_is_an_error() {
    for name in SAMPLES {
        let footer = footer_of(name);
        decode_all(&footer).unwrap_or_else(|e| panic!("{name}: intact footer fails: {e}"));
        for cut in 0..footer.len() {
            let err = decode_all(&footer[..cut]).expect_err("a truncated footer must not decode");
            assert_eq!(err.kind(), ErrorKind::Corrupt, "{name} cut at {cut}: {err}");
        }
    }
}

#[test]
fn random_byte_flips_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for name in SAMPLES {
        let footer = footer_of(name);
        for _ in 0..3000 {
            let mut bad = footer.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(bad.len());
                bad[i] = match rng.below(3) {
                    0 => bad[i] ^ (1 << rng.below(8)),
                    1 => rng.next() as u8,
                    _ => 0xff,
                };
            }
            // Ok or Err are both fine; a panic fails the test.
            let _ = decode_all(&bad);
        }
    }
}

#[test]
fn truncated_and_mangled_files_give_errors() {
    let file = std::fs::read(common::corpus_dir().join("data/alltypes_plain.parquet")).unwrap();
    for cut in 0..file.len() {
        if let Err(e) = format::read_metadata_from_bytes(&file[..cut]) {
            assert!(!e.to_string().is_empty());
        }
    }
    let mut not_parquet = file.clone();
    not_parquet.truncate(file.len() - 4);
    not_parquet.extend_from_slice(b"ABCD");
    let err = format::read_metadata_from_bytes(&not_parquet).unwrap_err();
    assert!(err.to_string().contains("not a Parquet file"), "{err}");

    // A footer length pointing before the start of the file.
    let mut long = file.clone();
    let n = long.len();
    long[n - 8..n - 4].copy_from_slice(&(n as u32).to_le_bytes());
    let err = format::read_metadata_from_bytes(&long).unwrap_err();
    assert!(err.to_string().contains("past the start of the file"), "{err}");

    // The same through the Read + Seek path.
    let err = format::read_metadata(&mut std::io::Cursor::new(long)).unwrap_err();
    assert!(err.to_string().contains("past the start of the file"), "{err}");
}

#[test]
fn hostile_thrift_is_refused_quickly() {
    // FileMetaData field 2 (schema): a list claiming 2^31 struct elements in 8 bytes.
    let huge_list = [0x15, 0x02, 0x19, 0xfc, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00];
    let err = thrift::decode::<FileMetaData>(&huge_list).unwrap_err();
    assert!(err.to_string().contains("cannot fit"), "{err}");

    // An unknown field holding structs nested 100,000 deep: refused by the depth bound.
    let mut deep = vec![0x15, 0x02];
    deep.extend(std::iter::repeat_n(0x1c, 100_000)); // field delta 1, type struct
    let err = thrift::decode::<FileMetaData>(&deep).unwrap_err();
    assert!(err.to_string().contains("nested deeper"), "{err}");

    // A binary claiming 2^62 bytes.
    let huge_binary = [0x15, 0x02, 0x58, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40];
    let err = thrift::decode::<FileMetaData>(&huge_binary).unwrap_err();
    assert!(err.to_string().contains("runs past the end"), "{err}");

    // An invalid type code.
    let err = thrift::decode::<FileMetaData>(&[0x1d, 0x00]).unwrap_err();
    assert!(err.to_string().contains("invalid type"), "{err}");

    // A varint that never ends.
    let err = thrift::decode::<FileMetaData>(&[0x15, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
        .unwrap_err();
    assert!(err.to_string().contains("varint"), "{err}");
}

#[test]
fn bad_data_files_decode_or_error_cleanly() {
    let dir = common::corpus_dir().join("bad_data");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "parquet") {
            let bytes = std::fs::read(&path).unwrap();
            if let Ok(meta) = format::read_metadata_from_bytes(&bytes) {
                let _ = SchemaDescriptor::from_metadata(&meta)
                    .and_then(|d| arrow_schema(&d, meta.key_value_metadata.as_deref()));
            }
            seen += 1;
        }
    }
    assert!(seen >= 5, "only {seen} bad_data files");
}
