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
    // One request to open (footer and page index), then one for the `id` page and the
    // `payload` pages at its rows together: late materialization's second pass finds its
    // page fetched (it was a request of its own, 3 in all). The pages lie within the
    // source's coalescing gap (1 MiB) of each other, so they come in one request with the
    // bytes between.
    assert_eq!(stats.requests(), 2, "requests for a point lookup, opening included");
    let fetched = stats.bytes() - opened;
    // From the `id` page to the `payload` page holding the row: less than the row group.
    let group: u64 = chunks[5].iter().map(|c| c.1 as u64).sum();
    assert!(fetched < group - chunks[5][3].1 as u64, "{fetched} bytes fetched for one row; the row group is {group}");

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
    // Row group 0's `payload` came with its `u` (matches were expected before any row
    // group was read); once a row group had none, the others' did not.
    let first_payload = chunks[0][2].1 as u64;
    assert!(
        fetched < u_chunks + first_payload + chunks[3][2].1 as u64 / 4,
        "{fetched} bytes; the u chunks are {u_chunks}"
    );
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

/// The mode of row `i` (dictionary-encoded, a few values): every value in every row group
/// but `RAIL` in row group 5, which still has `AIR` and `TRUCK`, so its statistics cannot
/// rule out `RAIL` and its dictionary can.
fn mode(i: i64) -> &'static str {
    const MODES: [&str; 5] = ["AIR", "MAIL", "RAIL", "SHIP", "TRUCK"];
    match (i / 20_000, MODES[(i % 5) as usize]) {
        (5, "RAIL") => "SHIP",
        (_, m) => m,
    }
}

/// A filter on a small dictionary-encoded column (`mode`, 8 row groups whose chunks lie
/// 2 MiB apart, as `l_shipmode` in TPC-H's `lineitem`): its dictionaries are tried as the
/// read reaches each row group, from the bytes the read fetches anyway, not in a request per
/// row group up front (that was 8 requests more here); and while late materialization
/// decides, a row group's first pass and its other columns come in one request.
#[test]
fn small_dictionaries_come_with_the_read() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    let out = moto.boto3(
        "import io, pyarrow as pa, pyarrow.parquet as pq\n\
         n = 160_000\n\
         modes = ['AIR', 'MAIL', 'RAIL', 'SHIP', 'TRUCK']\n\
         mode = [('SHIP' if i // 20000 == 5 and modes[i % 5] == 'RAIL' else modes[i % 5]) for i in range(n)]\n\
         t = pa.table({'id': pa.array(range(n), pa.int64()), 'mode': mode,\n\
           'payload': [f'payload-{i:08}-' + 'x' * (i % 160) for i in range(n)]})\n\
         b = io.BytesIO()\n\
         pq.write_table(t, b, row_group_size=20000, write_page_index=True, use_dictionary=['mode'],\n\
           compression='none')\n\
         s3.create_bucket(Bucket='dict')\n\
         s3.put_object(Bucket='dict', Key='t.parquet', Body=b.getvalue())\n\
         m = pq.ParquetFile(io.BytesIO(b.getvalue())).metadata\n\
         print(' '.join(str(m.row_group(g).column(1).data_page_offset) for g in range(m.num_row_groups)))\n",
    );
    let modes: Vec<u64> = out.split_whitespace().map(|v| v.parse().unwrap()).collect();
    // What the test is about: the `mode` chunks lie too far apart to come in one request.
    assert!(modes.windows(2).all(|w| w[1] - w[0] > 1 << 20), "{modes:?}");
    let file = open_url("s3://dict/t.parquet", &options(&moto)).unwrap();
    let stats = file.source().stats();
    let read = ReadOptions::default().with_columns(["id", "payload"]).with_filter(col("mode").eq("RAIL"));
    let mut batches = common::batches(&file, read).unwrap();
    let mut ids = Vec::new();
    for batch in batches.by_ref() {
        let batch = batch.unwrap();
        let (id, payload) = (batch.column(0).as_primitive::<Int64Type>(), batch.column(1).as_string::<i32>());
        for (i, p) in id.values().iter().zip(payload.iter()) {
            assert_eq!(p.unwrap(), format!("payload-{i:08}-{}", "x".repeat((i % 160) as usize)));
            ids.push(*i);
        }
    }
    let want: Vec<i64> = (0..ROWS).filter(|&i| mode(i) == "RAIL").collect();
    assert_eq!(ids, want);
    let m = batches.scan_metrics().unwrap().clone();
    assert_eq!((m.row_groups_pruned, m.row_groups_pruned_by_dictionary), (0, 1), "{m}");
    drop(batches);
    // Opening; row group 0 in one request; the seven others read ahead together, named
    // with their other columns once row group 0's second pass turned out to need every page
    // of `id` and `payload` (RAIL is every fifth row) rather than after row group 1 (4
    // requests then).
    assert_eq!(stats.requests(), 3, "requests, opening included");
}

/// A dataset under a prefix keeps the page indexes its footers' requests brought (when
/// short): a point lookup over two objects then costs one request after opening, for the
/// pages of the row (was two: the page index fetched again first).
#[test]
fn a_dataset_keeps_its_page_indexes() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    moto.boto3(
        "import io, pyarrow as pa, pyarrow.parquet as pq\n\
         s3.create_bucket(Bucket='dset')\n\
         for f in range(2):\n\
         \x20   ids = range(f * 40000, (f + 1) * 40000)\n\
         \x20   t = pa.table({'id': pa.array(ids, pa.int64()), 'payload': [f'payload-{i:08}-' + 'x' * (i % 40) for i in ids]})\n\
         \x20   b = io.BytesIO()\n\
         \x20   pq.write_table(t, b, row_group_size=20000, data_page_size=8192, write_page_index=True,\n\
         \x20     use_dictionary=False, compression='none')\n\
         \x20   s3.put_object(Bucket='dset', Key=f'set/part-{f}.parquet', Body=b.getvalue())\n",
    );
    let dataset = parquetry::dataset::DatasetBuilder::new(["s3://dset/set/"])
        .with_storage_options(options(&moto))
        .build()
        .unwrap();
    let stats = dataset.request_stats();
    let opened = stats.requests();
    let target = 52_345i64;
    let read = ReadOptions::default().with_columns(["id", "payload"]).with_filter(col("id").eq(target));
    let batches = dataset.read_all(read).unwrap();
    let rows: Vec<(i64, String)> = batches
        .iter()
        .flat_map(|b| {
            let (id, p) = (b.column(0).as_primitive::<Int64Type>(), b.column(1).as_string::<i32>());
            (0..b.num_rows()).map(move |i| (id.value(i), p.value(i).to_owned()))
        })
        .collect();
    assert_eq!(rows, vec![(target, payload(target))]);
    assert_eq!(stats.requests() - opened, 1, "requests after opening the dataset");
}

/// `(sum of the bytes, sum of i * byte mod 2^61)` over `bytes`: the same sums Python prints
/// for the bytes boto3 got, so the two are compared without a hash crate.
fn sums(bytes: &[u8]) -> (u64, u64) {
    const M: u128 = (1 << 61) - 1;
    let plain = bytes.iter().map(|&b| b as u64).sum();
    let weighted = bytes.iter().enumerate().fold(0u128, |acc, (i, &b)| (acc + i as u128 * b as u128) % M);
    (plain, weighted as u64)
}

#[test]
fn a_read_across_a_responses_pieces_is_a_slice_of_one_buffer() {
    if common::pyarrow_missing() {
        return;
    }
    let Some(moto) = start_moto() else { return };
    // A column chunk of 6 MB of random bytes (written by pyarrow, uncompressed): a response
    // the HTTP client hands over in pieces of a few hundred KiB at most. Python prints where
    // the chunk lies and the sums of its bytes in the file it put, to compare with.
    let out = moto.boto3(
        "import io, numpy as np, pyarrow as pa, pyarrow.parquet as pq\n\
         rng = np.random.default_rng(41)\n\
         t = pa.table({'b': pa.array([rng.bytes(6000) for _ in range(1000)], pa.binary())})\n\
         buf = io.BytesIO()\n\
         pq.write_table(t, buf, compression='none', use_dictionary=False)\n\
         data = buf.getvalue()\n\
         s3.create_bucket(Bucket='pieces')\n\
         s3.put_object(Bucket='pieces', Key='blob.parquet', Body=data)\n\
         c = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)\n\
         start = c.data_page_offset\n\
         got = np.frombuffer(data[start:start + c.total_compressed_size], np.uint8).astype(np.uint64)\n\
         m = (1 << 61) - 1\n\
         w = sum(int(x) for x in (np.arange(got.size, dtype=np.uint64) * got) % m) % m\n\
         print(start, c.total_compressed_size, int(got.sum()), w)\n",
    );
    let v: Vec<u64> = out.split_whitespace().map(|v| v.parse().unwrap()).collect();
    let (start, len, expected) = (v[0], v[1] as usize, (v[2], v[3]));
    assert!(len > 6_000_000, "{len}");
    let file = open_url("s3://pieces/blob.parquet", &options(&moto)).unwrap();
    let source = file.source();
    // Named ahead as a read names its row groups: one request, its bytes kept as they come.
    source.prefetch(&[(start, len as u64)]);
    let all = source.read_at(start, len).unwrap();
    assert_eq!(sums(all.as_slice()), expected);
    // The chunk's last bytes came with the footer's 512 KiB: the request stopped short of
    // them, and a read reaching into them is put together from both. The first 5 MB came
    // in the one request.
    let whole = source.read_at(start, 5_000_000).unwrap();
    assert_eq!(whole.as_slice(), &all.as_slice()[..5_000_000]);
    // Reads across many pieces: each a slice of the one buffer the response was gathered
    // in (where it lies in memory says so: a copy cannot lie inside `whole`, which is alive),
    // not a copy made on the reading thread.
    for (at, n) in [(0u64, 1_000_000usize), (1_500_000, 2_000_000), (3_999_999, 1_000_001)] {
        let part = source.read_at(start + at, n).unwrap();
        assert_eq!(part.as_slice(), &whole.as_slice()[at as usize..][..n]);
        assert_eq!(part.as_ptr(), whole.as_ptr().wrapping_add(at as usize), "bytes {at}..{}", at + n as u64);
    }
    assert_eq!(source.stats().requests(), 2, "the footer's request and the chunk's");
}
