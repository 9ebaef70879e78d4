//! Merging: the input is a Parquet file, merged with itself (two inputs, so that its row
//! groups are coalesced and its dictionaries unified) into a sink that drops the bytes.
//!
//! The dictionary limit is chosen by a hash of the input, often tiny, so that pages fall back
//! to PLAIN and are made from the input's dictionary pages (SNAPPY blocks spliced without
//! decompressing: `compress/snappy_splice.rs`). Panics, hangs and huge allocations are bugs;
//! errors are fine.

#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use parquetry::merge::{merge, MergeOptions};

fuzz_target!(|data: &[u8]| {
    // FNV-1a of the input picks the options.
    let h = data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let path = PathBuf::from(format!("/dev/shm/parquetry-fuzz-merge-{}.parquet", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let options = MergeOptions::default()
        .with_row_group_rows(if h & 1 == 0 { 1 << 20 } else { 1 + (h >> 8) % 5000 })
        .with_dictionary_page_size_limit([0usize, 16, 1 << 10, 1 << 20][((h >> 1) & 3) as usize]);
    let _ = merge(&[path.clone(), path.clone()], std::io::sink(), &options);
    let _ = std::fs::remove_file(&path);
});
