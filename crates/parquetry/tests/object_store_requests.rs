//! What reads from an object store cost, counted by the source against moto's S3 server on
//! loopback (skipped without Python, moto and boto3): a filtered read fetches the pages that
//! hold its rows rather than whole chunks, the page indexes of many row groups come in few
//! requests, and a read stopped after its first batch fetches nothing of the next row group.
//! The file is written by pyarrow; the values read are checked against the formula that made
//! them, and the byte counts against pyarrow's metadata.
#![cfg(feature = "object-store")]

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use common::moto::{start_moto, Moto};
use parquetry::filter::col;
use parquetry::page::ChunkSource;
use parquetry::read::ReadOptions;
use parquetry::store::{open_url, StorageOptions};

const ROWS: i64 = 160_000;
const ROW_GROUPS: i64 = 8;

fn options(moto: &Moto) -> StorageOptions {
    StorageOptions::new()
        .with("aws_endpoint_url", &moto.endpoint)
        .with("aws_access_key_id", "test")
        .with("aws_secret_access_key", "test")
        .with("aws_region", "us-east-1")
}

/// The `u` of row `i`: every id once, in no order a page index could prune by.
fn unsorted(i: i64) -> i64 {
    i * 7919 % ROWS
}

fn payload(i: i64) -> String {
    format!("payload-{i:08}-{}", "x".repeat((i % 40) as usize))
}

/// Puts `s3://reqs/t.parquet` (written by pyarrow: 8 row groups of 20,000 rows, 8 KiB pages,
/// a page index; `id` sorted, `k = id % 1000`, `payload` as above, `u` a permutation of the
/// ids: [`unsorted`]) and prints, per row group,
/// the compressed size of each column chunk and where the first starts.
fn put_file(moto: &Moto) -> Vec<Vec<(i64, i64)>> {
    let script = format!(
        "import io, pyarrow as pa, pyarrow.parquet as pq\n\
         n = {ROWS}\n\
         t = pa.table({{'id': pa.array(range(n), pa.int64()), 'k': pa.array([i % 1000 for i in range(n)], pa.int64()),\n\
           'payload': [f'payload-{{i:08}}-' + 'x' * (i % 40) for i in range(n)],\n\
           'u': pa.array([i * 7919 % n for i in range(n)], pa.int64())}})\n\
         b = io.BytesIO()\n\
         pq.write_table(t, b, row_group_size=n // {ROW_GROUPS}, data_page_size=8192, write_page_index=True,\n\
           use_dictionary=False, compression='none')\n\
         s3.create_bucket(Bucket='reqs')\n\
         s3.put_object(Bucket='reqs', Key='t.parquet', Body=b.getvalue())\n\
         m = pq.ParquetFile(io.BytesIO(b.getvalue())).metadata\n\
         cc = lambda g, c: m.row_group(g).column(c)\n\
         for g in range(m.num_row_groups): print(' '.join(f'{{cc(g, c).data_page_offset}}:{{cc(g, c).total_compressed_size}}' for c in range(m.num_columns)))\n"
    );
    let out = moto.boto3(&script);
    out.lines()
        .map(|line| {
            line.split(' ')
                .map(|pair| {
                    let (a, b) = pair.split_once(':').unwrap();
                    (a.parse().unwrap(), b.parse().unwrap())
                })
                .collect()
        })
        .collect()
}

#[test]
fn reads_fetch_what_they_need() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    let chunks = put_file(&moto);
    assert_eq!(chunks.len(), ROW_GROUPS as usize);
    let options = options(&moto);
    let url = "s3://reqs/t.parquet";
    let per_group = ROWS / ROW_GROUPS;

    // A point lookup on the sorted id: statistics keep one row group, its page index one
    // page of `id`; then only the `payload` page holding the row is fetched, not the chunk.
    let target = 5 * per_group + 12_345;
    let file = open_url(url, &options).unwrap();
    let stats = file.source().stats();
    let opened = stats.bytes();
    let read = ReadOptions::default().with_columns(["id", "payload"]).with_filter(col("id").eq(target));
    let batches = common::read_all(&file, &read).unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1);
    assert_eq!(
        batches.iter().find(|b| b.num_rows() == 1).unwrap().column(0).as_primitive::<Int64Type>().value(0),
        target
    );
    let got = batches.iter().find(|b| b.num_rows() == 1).unwrap().column(1).as_string::<i32>().value(0).to_owned();
    assert_eq!(got, payload(target));
    // One request to open (footer and page index), then the `id` page, then the `payload`
    // page (late materialization: the second pass knows its row only after the first).
    assert_eq!(stats.requests(), 3, "requests for a point lookup, opening included");
    let payload_chunk = chunks[5][2].1 as u64;
    let fetched = stats.bytes() - opened;
    // Pages of 8 KiB, the indexes of one row group, a few pages at most: far below the
    // payload chunk (~600 KiB) that a whole-chunk fetch would take.
    assert!(fetched < payload_chunk / 4, "{fetched} bytes fetched for one row; the payload chunk is {payload_chunk}");

    // A point lookup on the unsorted `u`: nothing is pruned, the first pass reads `u`
    // whole, finds one row, and the reader seeks to the `payload` page holding it (its
    // OffsetIndex, without a row selection in the options) rather than walking the headers
    // of the pages before it, a request each.
    let row = 3 * per_group + 4_321;
    let file = open_url(url, &options).unwrap();
    let stats = file.source().stats();
    let (opened, opened_requests) = (stats.bytes(), stats.requests());
    let read = ReadOptions::default().with_columns(["payload"]).with_filter(col("u").eq(unsorted(row)));
    let batches = common::read_all(&file, &read).unwrap();
    let got: Vec<String> =
        batches.iter().flat_map(|b| b.column(0).as_string::<i32>().iter().map(|v| v.unwrap().to_owned())).collect();
    assert_eq!(got, vec![payload(row)]);
    let u_chunks: u64 = chunks.iter().map(|g| g[3].1 as u64).sum();
    let fetched = stats.bytes() - opened;
    assert!(fetched < u_chunks + chunks[3][2].1 as u64 / 4, "{fetched} bytes; the u chunks are {u_chunks}");
    let requests = stats.requests() - opened_requests;
    // The page indexes (one request), a `u` chunk per row group, the `payload` page; with
    // the headers walked instead, a request per page before the row.
    assert!(requests <= 2 + ROW_GROUPS as u64, "{requests} requests after opening");

    // An unselective filter on the unsorted `k`: every row group's page index is read, in
    // few requests (not two per row group), then each row group's `k` pages.
    let file = open_url(url, &options).unwrap();
    let stats = file.source().stats();
    let opened = stats.requests();
    let batches =
        common::read_all(&file, &ReadOptions::default().with_columns(["k"]).with_filter(col("k").eq(7i64))).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), (ROWS / 1000) as usize);
    let requests = stats.requests() - opened;
    assert!(requests <= 3 + ROW_GROUPS as u64, "{requests} requests after opening; {ROW_GROUPS} row groups");

    // A read stopped after its first batch: the next row group was never asked for.
    let file = open_url(url, &options).unwrap();
    let mut batches = common::batches(&file, ReadOptions::default().with_batch_size(10)).unwrap();
    assert_eq!(batches.next().unwrap().unwrap().num_rows(), 10);
    drop(batches);
    let first = chunks[1][0].0 as u64;
    let len: i64 = chunks[1].iter().map(|c| c.1).sum();
    assert!(!file.source().in_memory(first, 1), "row group 1 was fetched for a 10-row read");
    assert!(file.source().stats().bytes() < opened_size(&chunks) + len as u64);
}

/// A file of 200 row groups whose footer (48 KiB) and page index (another 34 KiB) lie in
/// the last 512 KiB: opening reads both in one request, and a point lookup then costs one
/// request for its page (with a 64 KiB first read, the page index cost one more).
#[test]
fn the_page_index_comes_with_the_footer() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    let out = moto.boto3(
        "import io, pyarrow as pa, pyarrow.parquet as pq\n\
         n = 400_000\n\
         t = pa.table({'id': pa.array(range(n), pa.int64()), 'k': pa.array([i % 1000 for i in range(n)], pa.int64())})\n\
         b = io.BytesIO()\n\
         pq.write_table(t, b, row_group_size=2000, data_page_size=1024, write_page_index=True, use_dictionary=False,\n\
           compression='none')\n\
         s3.create_bucket(Bucket='tail')\n\
         s3.put_object(Bucket='tail', Key='t.parquet', Body=b.getvalue())\n\
         m = pq.ParquetFile(io.BytesIO(b.getvalue())).metadata\n\
         end = max(m.row_group(g).column(c).data_page_offset + m.row_group(g).column(c).total_compressed_size\n\
           for g in range(m.num_row_groups) for c in range(m.num_columns))\n\
         print(m.serialized_size, len(b.getvalue()) - end)\n",
    );
    let sizes: Vec<u64> = out.split_whitespace().map(|v| v.parse().unwrap()).collect();
    let (footer, after_data) = (sizes[0], sizes[1]);
    // What the test is about: the footer fits 64 KiB, the footer and page index do not.
    assert!(footer < 64 << 10 && after_data > 64 << 10 && after_data < 512 << 10, "{sizes:?}");
    let file = open_url("s3://tail/t.parquet", &options(&moto)).unwrap();
    let stats = file.source().stats();
    assert_eq!(stats.requests(), 1);
    let target = 123_457i64;
    let read = ReadOptions::default().with_columns(["id"]).with_filter(col("id").eq(target));
    let batches = common::read_all(&file, &read).unwrap();
    let got: Vec<i64> =
        batches.iter().flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec()).collect();
    assert_eq!(got, vec![target]);
    assert_eq!(stats.requests(), 2, "requests for a point lookup, opening included");
}

/// An upper bound for the bytes of opening and reading row group 0: the footer's tail read
/// and row group 0's chunks.
fn opened_size(chunks: &[Vec<(i64, i64)>]) -> u64 {
    parquetry::store::TAIL_READ + chunks[0].iter().map(|c| c.1 as u64).sum::<u64>()
}
