//! Writing: the input is a Parquet file; whatever of it reads without error is written again
//! with writer options chosen by a hash of the input (codec, dictionary and its limit, an
//! encoding, page version, tiny pages and row groups, statistics, page index, a memory bound
//! that spills, two threads), and the written file is read back.
//!
//! A write may refuse the data (an encoding that does not fit a column's type, say): errors
//! are fine. `SHOW_OPTIONS=1` prints the options drawn, to reproduce a finding outside. A write that succeeds must give a file that reads back to the same rows, and
//! every column whose type comes back the same to the same values. Panics, hangs, huge
//! allocations and a file that reads back differently are bugs.

#![no_main]

use arrow_array::{Array, RecordBatch};
use libfuzzer_sys::fuzz_target;
use parquetry::compress::Codec;
use parquetry::read::{ParquetFile, ParquetReaderBuilder, ReadOptions};
use parquetry::write::{DataPageVersion, ParquetWriter, StatisticsLevel, WriteOptions, WRITABLE_ENCODINGS};

#[path = "rng.rs"]
mod rng;
use rng::Rng;

/// Options for a file of `rows` rows: the tiniest pages and row groups only for small files,
/// which keeps a run within a second or so (3,000 one-row row groups take seconds under ASAN).
fn options(rng: &mut Rng, rows: usize) -> WriteOptions {
    let codecs = [Codec::Uncompressed, Codec::Snappy, Codec::Zstd, Codec::Gzip, Codec::Lz4Raw, Codec::Lz4];
    let mut o = WriteOptions::new().with_compression(codecs[rng.below(codecs.len() as u64) as usize]);
    o = o.with_dictionary(rng.chance(50));
    if rng.chance(30) {
        o = o.with_encoding(WRITABLE_ENCODINGS[rng.below(WRITABLE_ENCODINGS.len() as u64) as usize]);
    }
    o = o.with_dictionary_page_size_limit([16usize, 256, 4096, 1 << 20][rng.below(4) as usize]);
    if rng.chance(50) {
        o = o.with_data_page_version(DataPageVersion::V2);
    }
    o = o.with_data_page_size([1usize, 64, 1024, 1 << 20][rng.below(4) as usize]);
    o = o.with_data_page_row_limit([1usize, 7, 100, 20_000][rng.below(4) as usize].max(rows / 2000));
    o = o.with_row_group_rows([1usize, 10, 1000, 1 << 20][rng.below(4) as usize].max(rows / 200));
    o = o
        .with_statistics([StatisticsLevel::None, StatisticsLevel::Chunk, StatisticsLevel::Page][rng.below(3) as usize]);
    o = o.with_page_index(rng.chance(50));
    o = o.with_page_header_statistics(rng.chance(30));
    o = o.with_crc(rng.chance(30));
    if rng.chance(20) {
        o = o.with_max_buffered_bytes([0usize, 1024, 1 << 16][rng.below(3) as usize]);
    }
    // Drawn last, so the options drawn before keep their values.
    if rng.chance(30) {
        o = o.with_threads(2);
    }
    o
}

/// Every batch of `file`, or `None` when it does not read (or is too large to bother with).
fn read(file: &ParquetFile<parquetry::page::BytesSource>) -> Option<Vec<RecordBatch>> {
    let rows: i64 = file.metadata().row_groups.iter().map(|rg| rg.num_rows.max(0)).sum();
    if rows > 200_000 {
        return None;
    }
    let options = ReadOptions::default().with_batch_size(4096);
    ParquetReaderBuilder::new(file.clone()).with_options(options).build().ok()?.collect::<Result<_, _>>().ok()
}

fuzz_target!(|data: &[u8]| {
    let Ok(file) = ParquetFile::from_bytes(data.to_vec()) else { return };
    let Some(batches) = read(&file) else { return };
    let schema = file.arrow_schema().clone();
    let mut rng = Rng::new(data);
    let options = options(&mut rng, batches.iter().map(RecordBatch::num_rows).sum());
    if std::env::var_os("SHOW_OPTIONS").is_some() {
        eprintln!("{options:?}");
    }
    let Ok(mut writer) = ParquetWriter::try_new(Vec::new(), schema, options) else { return };
    if batches.iter().any(|b| writer.write(b).is_err()) {
        return;
    }
    let Ok((bytes, _)) = writer.into_inner() else { return };
    let back = match ParquetFile::from_bytes(bytes) {
        Ok(f) => f,
        Err(e) => panic!("the written file's footer does not read back: {e}"),
    };
    let options = ReadOptions::default().with_batch_size(4096);
    let reader = ParquetReaderBuilder::new(back.clone()).with_options(options).build();
    let again =
        match reader.and_then(|mut r| std::iter::from_fn(|| r.next_batch()).collect::<parquetry::Result<Vec<_>>>()) {
            Ok(b) => b,
            Err(e) => panic!("the written file does not read back: {e}"),
        };
    let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
    assert_eq!(rows(&again), rows(&batches), "the written file reads back another number of rows");
    let fields = file.arrow_schema().fields().len();
    assert_eq!(back.arrow_schema().fields().len(), fields, "the written file has other columns");
    for c in 0..fields {
        let concat = |b: &[RecordBatch]| {
            let arrays: Vec<&dyn Array> = b.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::concat::concat(&arrays).ok()
        };
        let (Some(want), Some(got)) = (concat(&batches), concat(&again)) else { continue };
        if want.data_type() == got.data_type() {
            assert!(want.to_data() == got.to_data(), "column {c} ({}) reads back other values", want.data_type());
        }
    }
});
