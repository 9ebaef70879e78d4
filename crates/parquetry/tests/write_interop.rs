//! Files written by parquetry with every encoding set × codec × data page version, read by two
//! readers that share no code with parquetry or with each other: **duckdb** and **polars**.
//! Each column's values are compared (in tests/support/duckdb_polars_compare.py) with the
//! input, which the test writes as an Arrow IPC file and pyarrow reads.
//!
//! The comparison normalises only each reader's own type mapping (units of times, timestamps
//! and durations, dictionaries to values, string/binary offset widths and views, a reader's
//! wider or narrower type for a value it cannot hold as such). What a reader cannot read at
//! all is listed in [`EXCLUSIONS`] with the reader's error; an excluded column is still read
//! alone, and must either fail with that error or give the right values.

mod common;
#[path = "common/write_data.rs"]
mod write_data;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use parquetry::compress::Codec;
use parquetry::format::Encoding;
use parquetry::write::{DataPageVersion, WriteOptions};
use serde_json::json;
use write_data::{all_types, Shape};
use write_helpers::{per_type, run_python_json, write_ipc, write_parquet, TempDir};

/// Columns that a reader cannot read when their chunks meet every condition of `when`, the text
/// its error contains when reading one of them alone, and why.
struct Exclusion {
    reader: &'static str,
    columns: &'static [&'static str],
    /// Conditions on the chunks, from the file's bytes (`condition_holds` in
    /// duckdb_polars_compare.py): `encoding=NAME`, `codec=NAME`, `page_over=BYTES`,
    /// `v2_page_without_values`.
    when: &'static [&'static str],
    /// Alternatives: the reader's error contains one of them.
    error_contains: &'static [&'static str],
    reason: &'static str,
}

/// The FIXED_LEN_BYTE_ARRAY columns of the generated table.
const FIXED_COLUMNS: &[&str] = &["f16", "fixed5", "dec_30_5", "dec256_50_10"];

const EXCLUSIONS: &[Exclusion] = &[
    Exclusion {
        reader: "duckdb",
        columns: FIXED_COLUMNS,
        when: &["encoding=BYTE_STREAM_SPLIT"],
        error_contains: &["BYTE_STREAM_SPLIT encoding is only supported for FLOAT, DOUBLE, INT32 or INT64 data"],
        reason: "duckdb decodes BYTE_STREAM_SPLIT only for 4- and 8-byte types, not FIXED_LEN_BYTE_ARRAY \
                 (added to the spec in format 2.11)",
    },
    Exclusion {
        reader: "polars",
        columns: &["fixed5", "dec_30_5", "dec256_50_10"],
        when: &["encoding=BYTE_STREAM_SPLIT"],
        error_contains: &["\"ByteStreamSplit\"-encoded optional parquet pages not yet supported"],
        reason: "polars decodes BYTE_STREAM_SPLIT FIXED_LEN_BYTE_ARRAY only for FLOAT16",
    },
    Exclusion {
        reader: "polars",
        columns: FIXED_COLUMNS,
        when: &["encoding=DELTA_BYTE_ARRAY"],
        error_contains: &["\"DeltaByteArray\"-encoded optional parquet pages not yet supported"],
        reason: "polars decodes DELTA_BYTE_ARRAY only for BYTE_ARRAY, not FIXED_LEN_BYTE_ARRAY",
    },
    Exclusion {
        reader: "polars",
        columns: &["dec256_50_10"],
        when: &[],
        // The second when every value is null (a Rust panic inside polars' to_arrow).
        error_contains: &[
            "precision must be between 1 and 38, got 50",
            "assertion failed: *precision >= 1 && *precision <= 38",
        ],
        reason: "polars decimals hold at most 38 digits",
    },
];

const CODECS: &[(&str, Codec)] = &[
    ("none", Codec::Uncompressed),
    ("snappy", Codec::Snappy),
    ("gzip", Codec::Gzip),
    ("brotli", Codec::Brotli),
    ("lz4raw", Codec::Lz4Raw),
    ("zstd", Codec::Zstd),
    ("lz4hadoop", Codec::Lz4),
];

/// The encoding sets: the dictionary with fallback to PLAIN mid-chunk, PLAIN only, and the
/// non-dictionary encodings per physical type.
fn encoding_sets(schema: &arrow_schema::Schema) -> Vec<(&'static str, WriteOptions)> {
    use Encoding as E;
    let base = WriteOptions::default().with_dictionary_page_size_limit(2000);
    vec![
        ("dict", base.clone()),
        ("plain", base.clone().with_dictionary(false)),
        (
            "delta",
            per_type(
                base.clone(),
                schema,
                E::DELTA_BINARY_PACKED,
                E::DELTA_LENGTH_BYTE_ARRAY,
                E::BYTE_STREAM_SPLIT,
                E::DELTA_BYTE_ARRAY,
            ),
        ),
        (
            "deltaba",
            per_type(
                base.clone(),
                schema,
                E::DELTA_BINARY_PACKED,
                E::DELTA_BYTE_ARRAY,
                E::BYTE_STREAM_SPLIT,
                E::BYTE_STREAM_SPLIT,
            ),
        ),
        ("bss", per_type(base, schema, E::BYTE_STREAM_SPLIT, E::PLAIN, E::BYTE_STREAM_SPLIT, E::BYTE_STREAM_SPLIT)),
    ]
}

fn exclusions_json() -> serde_json::Value {
    EXCLUSIONS
        .iter()
        .map(|e| {
            json!({"reader": e.reader, "columns": e.columns, "when": e.when, "error_contains": e.error_contains, "reason": e.reason})
        })
        .collect()
}

/// Writes the files of one input table with the option sets `keep` accepts (encoding set,
/// codec name), each with v1 and v2 pages; adds the request entries to `files`.
fn write_files(
    dir: &TempDir,
    tag: &str,
    (shape, rows, batches): (Shape, usize, usize),
    keep: impl Fn(&str, &str) -> bool,
    files: &mut Vec<serde_json::Value>,
) {
    let (schema, input) = all_types(11, rows, batches, shape);
    let expected = dir.join(&format!("{tag}.arrow"));
    write_ipc(&expected, &schema, &input);
    for (set, options) in encoding_sets(&schema) {
        for &(codec_name, codec) in CODECS {
            if !keep(set, codec_name) {
                continue;
            }
            for (version_name, version) in [("v1", DataPageVersion::V1), ("v2", DataPageVersion::V2)] {
                let options = options
                    .clone()
                    .with_compression(codec)
                    .with_data_page_version(version)
                    .with_data_page_size(2000)
                    .with_row_group_rows(rows.div_ceil(2).max(1));
                let path = dir.join(&format!("{tag}-{set}-{codec_name}-{version_name}.parquet"));
                write_parquet(&path, &schema, &input, options);
                files.push(json!({"parquet": path, "expected": expected}));
            }
        }
    }
}

#[test]
fn duckdb_and_polars_read_every_encoding_codec_and_page_version() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("write-interop");
    let mut files = Vec::new();
    // Every flat type with 15% nulls, 2 row groups, ~2 KB pages and a dictionary that falls
    // back to the set's encoding mid-chunk: the whole matrix.
    write_files(&dir, "types", (Shape::default(), 1000, 3), |_, _| true, &mut files);
    // All values null (and one-value dictionaries): every encoding set, two codecs.
    let nulls = Shape { null_percent: 100, distinct: 1, max_binary: 10 };
    write_files(&dir, "nulls", (nulls, 300, 2), |_, c| c == "none" || c == "zstd", &mut files);
    // Binaries up to 50 KB, each larger than a page.
    let blobs = Shape { null_percent: 5, distinct: 300, max_binary: 50_000 };
    write_files(&dir, "blobs", (blobs, 120, 2), |s, c| s != "bss" && (c == "snappy" || c == "lz4hadoop"), &mut files);
    // No rows at all.
    write_files(&dir, "empty", (Shape::default(), 0, 1), |s, c| s == "dict" && c == "none", &mut files);
    let request = json!({"files": files, "exclusions": exclusions_json()});
    let answer = run_python_json("duckdb_polars_compare.py", &request);
    let mismatches = answer["mismatches"].as_array().expect("mismatches");
    for note in answer["notes"].as_array().into_iter().flatten() {
        eprintln!("note: {}", note.as_str().unwrap_or_default());
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.iter().map(|m| m.as_str().unwrap_or_default()).collect::<Vec<_>>().join("\n")
    );
}
