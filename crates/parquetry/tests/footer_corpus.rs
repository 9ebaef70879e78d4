//! Every footer of the parquet-testing corpus decodes to what MANIFEST.tsv (made by an
//! independent decoder and checked against pyarrow) says, and survives encode → decode.

mod common;

use std::collections::BTreeSet;

use parquetry::format::{self, thrift, FileMetaData};
use parquetry::ErrorKind;

fn decode(row: &common::ManifestRow) -> parquetry::Result<FileMetaData> {
    let bytes = std::fs::read(common::corpus_dir().join(&row.path)).expect("read corpus file");
    format::read_metadata_from_bytes(&bytes)
}

#[test]
fn every_corpus_footer_matches_the_manifest() {
    let rows = common::manifest();
    assert!(rows.len() > 200, "manifest has {} rows", rows.len());
    let mut checked = 0;
    for row in &rows {
        let Some(num_rows) = row.num_rows else {
            // Encrypted footer: the manifest has no facts, we must give the clear error.
            let err = decode(row).expect_err(&row.path);
            assert_eq!(err.kind(), ErrorKind::Unsupported, "{}: {err}", row.path);
            assert!(err.to_string().contains("encrypted files are not supported yet"), "{err}");
            continue;
        };
        let meta = decode(row).unwrap_or_else(|e| panic!("{}: {e}", row.path));
        assert_eq!(meta.num_rows, num_rows, "{}", row.path);
        assert_eq!(Some(meta.row_groups.len()), row.num_row_groups, "{}", row.path);

        let mut types = BTreeSet::new();
        for e in &meta.schema {
            if let Some(t) = e.physical_type {
                types.insert(t.to_string());
            }
        }
        let (mut encodings, mut codecs) = (BTreeSet::new(), BTreeSet::new());
        for rg in &meta.row_groups {
            for c in &rg.columns {
                if let Some(m) = &c.meta_data {
                    types.insert(m.physical_type.to_string());
                    codecs.insert(m.codec.to_string());
                    encodings.extend(m.encodings.iter().map(|e| e.to_string()));
                }
            }
        }
        let sorted = |s: BTreeSet<String>| s.into_iter().collect::<Vec<_>>();
        assert_eq!(sorted(types), row.physical_types, "{}: physical types", row.path);
        assert_eq!(sorted(encodings), row.encodings, "{}: encodings", row.path);
        assert_eq!(sorted(codecs), row.codecs, "{}: codecs", row.path);
        assert_eq!(meta.created_by.clone().unwrap_or_default(), row.created_by, "{}", row.path);
        checked += 1;
    }
    assert!(checked > 200, "only {checked} footers checked");
}

#[test]
fn every_corpus_footer_round_trips() {
    for row in common::manifest() {
        let Ok(meta) = decode(&row) else { continue };
        let encoded = format::encode_footer(&meta);
        let thrift_len = encoded.len() - 8;
        let (again, used) = thrift::decode::<FileMetaData>(&encoded[..thrift_len])
            .unwrap_or_else(|e| panic!("{}: re-decoding our own footer: {e}", row.path));
        assert_eq!(used, thrift_len, "{}", row.path);
        assert_eq!(again, meta, "{}: decode → encode → decode changed the footer", row.path);
    }
}
