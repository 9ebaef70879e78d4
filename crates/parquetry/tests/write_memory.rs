//! A bound on the writer's memory holds: with `max_buffered_bytes`, a row group many times
//! larger than the bound is written with a peak of live heap near the bound (pages spill to a
//! scratch file), not near the row group's size; and thousands of tiny row groups take no
//! more than one does. The heap is counted by this test binary's own allocator (the tests
//! take turns); the files are read back by pyarrow, which must see every row.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use parquetry::compress::Codec;
use parquetry::write::{ParquetWriter, WriteOptions};
use read_compare::{diff_tables, pyarrow_tables, Table};
use write_helpers::TempDir;

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call goes to the system allocator unchanged; the counters only see sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Relaxed);
        grew(new_size);
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const MIB: usize = 1 << 20;

/// The tests take turns: the counters are the process's.
static SERIAL: Mutex<()> = Mutex::new(());

/// 64 MiB of strings and integers in batches of 50,000 rows: one row group when written.
fn batches() -> Vec<RecordBatch> {
    (0..8)
        .map(|b| {
            let rows = 50_000;
            let text: StringArray = (0..rows)
                .map(|i| {
                    let n = (b * rows + i) as u64;
                    let len = 40 + (n * 2_654_435_761 % 200) as usize;
                    Some(format!("{n:016x}").repeat(len / 16 + 1)[..len].to_owned())
                })
                .collect();
            let numbers = Int64Array::from_iter_values((0..rows as i64).map(|i| i.wrapping_mul(0x1E37_79B9_7F4A_7C15)));
            let columns: Vec<ArrayRef> = vec![Arc::new(text), Arc::new(numbers)];
            RecordBatch::try_from_iter(["text", "number"].into_iter().zip(columns)).unwrap()
        })
        .collect()
}

#[test]
fn a_row_group_larger_than_the_bound_is_written_within_it() {
    if common::pyarrow_missing() {
        return;
    }
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let input = batches();
    let input_bytes: usize = input.iter().map(|b| b.get_array_memory_size()).sum();
    let dir = TempDir::new("write-memory");
    for (name, codec, limit) in [("none", Codec::Uncompressed, 8 * MIB), ("snappy", Codec::Snappy, 16 * MIB)] {
        let path = dir.0.join(format!("{name}.parquet"));
        let options = WriteOptions::default()
            .with_compression(codec)
            .with_dictionary(false)
            .with_row_group_rows(1 << 30)
            .with_row_group_bytes(usize::MAX)
            .with_max_buffered_bytes(limit);
        let file = std::fs::File::create(&path).unwrap();
        let start = LIVE.load(Relaxed);
        PEAK.store(start, Relaxed);
        let mut writer = ParquetWriter::try_new(file, input[0].schema(), options).unwrap();
        for b in &input {
            writer.write(b).unwrap();
        }
        writer.close().unwrap();
        let peak = PEAK.load(Relaxed) - start;
        // The bound, plus the writer's working buffers: a page block (4 MiB), each column's
        // open page and its compressed copy, the spill file's copy buffer.
        let allowed = limit + 12 * MIB;
        assert!(
            peak <= allowed,
            "{name}: peak heap {} MiB above the start, bound {} MiB (+12 MiB working buffers); input {} MiB",
            peak / MIB,
            limit / MIB,
            input_bytes / MIB
        );
        // The bound is far below what the row group holds, so only spilling keeps within it.
        assert!(input_bytes > 2 * allowed, "the data must be larger than the bound: {input_bytes}");
        let tables = pyarrow_tables("write-memory", std::slice::from_ref(&path));
        let got = tables[&path].as_ref().expect("pyarrow reads the file");
        let want = Table::from_batches(&input[0].schema(), &input).unwrap();
        assert!(diff_tables(&want, got).is_empty(), "{name}: pyarrow reads other values");
    }
}

#[test]
fn thousands_of_tiny_row_groups_take_no_more_memory_than_one() {
    if common::pyarrow_missing() {
        return;
    }
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // One row per row group, compressed and without a dictionary: each chunk's pages are
    // drained to the file as it is written (the path whose last pages once took a fresh
    // 4 MiB block a chunk, kept as a spare ever after).
    let rows = 3_000;
    let text: StringArray = (0..rows).map(|i| Some(format!("value-{i}"))).collect();
    let numbers = Int64Array::from_iter_values(0..rows as i64);
    let columns: Vec<ArrayRef> = vec![Arc::new(text.clone()), Arc::new(numbers), Arc::new(text)];
    let batch = RecordBatch::try_from_iter(["a", "b", "c"].into_iter().zip(columns)).unwrap();
    let dir = TempDir::new("write-memory-tiny");
    for threads in [1, 2] {
        let path = dir.0.join(format!("tiny-{threads}.parquet"));
        let options = WriteOptions::default()
            .with_compression(Codec::Snappy)
            .with_dictionary(false)
            .with_row_group_rows(1)
            .with_threads(threads);
        let file = std::fs::File::create(&path).unwrap();
        let start = LIVE.load(Relaxed);
        PEAK.store(start, Relaxed);
        let mut writer = ParquetWriter::try_new(file, batch.schema(), options).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let peak = PEAK.load(Relaxed) - start;
        // A few 4 MiB page blocks per column and the footer's metadata of 9,000 chunks.
        assert!(peak <= 48 * MIB, "{threads} thread(s): peak heap {} MiB for 3,000 one-row row groups", peak / MIB);
        let tables = pyarrow_tables("write-memory-tiny", std::slice::from_ref(&path));
        let got = tables[&path].as_ref().expect("pyarrow reads the file");
        let want = Table::from_batches(&batch.schema(), std::slice::from_ref(&batch)).unwrap();
        assert!(diff_tables(&want, got).is_empty(), "{threads} thread(s): pyarrow reads other values");
    }
}
