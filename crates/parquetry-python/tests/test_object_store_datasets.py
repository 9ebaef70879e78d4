"""Object storage, datasets on s3://: reads through a pyarrow filesystem, write_to_dataset and
its delete_matching, compaction (local and on a dask LocalCluster, interrupted and resumed),
and hive folders read through s3:// URLs and globs. moto's S3 server on loopback (the
fixtures of test_object_store.py); reference files are written by pyarrow and put with boto3,
parquetry's output is listed with boto3 and read with pyarrow."""

import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import assert_tables_equal, corpus_dir

pytest.importorskip("boto3")
pytest.importorskip("moto")

from test_object_store import BUCKET, CORPUS, moto, options, put, s3  # noqa: E402,F401  (fixtures)


def test_filesystem_argument_reads_through_pyarrow_filesystem(s3, options, moto):
    # A pyarrow filesystem (here S3 against moto): parquetry reads through what it opens.
    from pyarrow import fs

    path = corpus_dir() / CORPUS[0]
    put(s3, "fs/alltypes_plain.parquet", path)
    s3fs = fs.S3FileSystem(endpoint_override=moto, access_key="test", secret_key="test", scheme="http",
                           region="us-east-1")
    got = parquetry.read_table(f"{BUCKET}/fs/alltypes_plain.parquet", filesystem=s3fs)
    assert_tables_equal(got, pq.read_table(path))


def test_write_to_dataset_under_an_s3_url_pyarrow_reads(s3, options, moto):
    # A hive dataset written straight to S3 (storage_options, no filesystem object): pyarrow's
    # dataset reader over its own S3 filesystem finds the same rows and partitions.
    import pyarrow.dataset as ds
    from pyarrow import fs

    n = 3000
    table = pa.table({"k": [f"p{i % 3}" for i in range(n)], "x": pa.array(range(n), pa.int64()),
                      "s": [f"value-{i}" for i in range(n)]})
    seen = []
    parquetry.write_to_dataset(table, f"s3://{BUCKET}/to_dataset/", partition_cols=["k"], storage_options=options,
                               max_rows_per_file=700, file_visitor=lambda f: seen.append((f.path, f.size)))
    listed = {o["Key"]: o["Size"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="to_dataset/")["Contents"]}
    assert sorted(listed) == sorted(p[len(f"s3://{BUCKET}/"):] for p, _ in seen)
    assert [listed[p[len(f"s3://{BUCKET}/"):]] for p, _ in seen] == [size for _, size in seen], seen
    assert {k.split("/")[1] for k in listed} == {"k=p0", "k=p1", "k=p2"}
    s3fs = fs.S3FileSystem(endpoint_override=moto, access_key="test", secret_key="test", scheme="http",
                           region="us-east-1")
    got = ds.dataset(f"{BUCKET}/to_dataset", filesystem=s3fs, format="parquet", partitioning="hive").to_table()
    assert got.sort_by("x").select(["x", "s", "k"]).equals(table.select(["x", "s", "k"]))
    with pytest.raises(ValueError, match="not empty"):
        parquetry.write_to_dataset(table, f"s3://{BUCKET}/to_dataset", partition_cols=["k"], storage_options=options,
                                   existing_data_behavior="error")


def test_delete_matching_under_an_s3_url_replaces_only_the_partitions_written(s3, options, moto):
    # A first write makes four partitions (k=c and k=c0: one name a prefix of the other); a
    # second, with delete_matching, writes k=a and k=c in several files each. boto3 lists what
    # is left: k=a and k=c hold only the second write's files (a stray object put there is
    # gone), k=b and k=c0 and the root's _SUCCESS are untouched. pyarrow reads the rows back.
    import pyarrow.dataset as ds
    from pyarrow import fs

    root = f"s3://{BUCKET}/replace"
    first = pa.table({"k": [["a", "b", "c", "c0"][i % 4] for i in range(400)], "x": pa.array(range(400), pa.int64())})
    parquetry.write_to_dataset(first, root, partition_cols=["k"], storage_options=options,
                               basename_template="first-{i}.parquet", max_rows_per_file=40)
    s3.put_object(Bucket=BUCKET, Key="replace/k=a/stray.bin", Body=b"stray")
    s3.put_object(Bucket=BUCKET, Key="replace/_SUCCESS", Body=b"")
    second = pa.table({"k": [["a", "c"][i % 2] for i in range(90)], "x": pa.array(range(1000, 1090), pa.int64())})
    parquetry.write_to_dataset(second, root + "/", partition_cols=["k"], storage_options=options,
                               basename_template="second-{i}.parquet", max_rows_per_file=20,
                               existing_data_behavior="delete_matching")
    listed = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="replace/")["Contents"])
    by_folder = {}
    for key in listed:
        folder, _, name = key[len("replace/"):].rpartition("/")
        by_folder.setdefault(folder, []).append(name)
    assert by_folder[""] == ["_SUCCESS"]
    assert by_folder["k=a"] == by_folder["k=c"] == [f"second-{i}.parquet" for i in range(3)]
    assert by_folder["k=b"] == by_folder["k=c0"] == [f"first-{i}.parquet" for i in range(3)]
    assert len(by_folder) == 5
    s3fs = fs.S3FileSystem(endpoint_override=moto, access_key="test", secret_key="test", scheme="http",
                           region="us-east-1")
    got = ds.dataset(f"{BUCKET}/replace", filesystem=s3fs, format="parquet", partitioning="hive").to_table()
    got = got.select(["x", "k"]).sort_by("x")
    kept = first.filter(pc.is_in(first.column("k"), pa.array(["b", "c0"])))
    want = pa.concat_tables([kept, second]).select(["x", "k"]).sort_by("x")
    assert got.column("x").equals(want.column("x"))
    assert got.column("k").to_pylist() == want.column("k").to_pylist()


def test_delete_matching_without_partitions_empties_the_root(s3, options):
    root = f"s3://{BUCKET}/flat"
    s3.put_object(Bucket=BUCKET, Key="flat/old/part.parquet", Body=b"old")
    s3.put_object(Bucket=BUCKET, Key="flat-sibling/keep.parquet", Body=b"keep")
    table = pa.table({"x": pa.array(range(10), pa.int64())})
    parquetry.write_to_dataset(table, root, storage_options=options, basename_template="new-{i}.parquet",
                               existing_data_behavior="delete_matching")
    keys = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="flat")["Contents"])
    assert keys == ["flat-sibling/keep.parquet", "flat/new-0.parquet"]
    body = s3.get_object(Bucket=BUCKET, Key="flat/new-0.parquet")["Body"].read()
    assert pq.read_table(pa.BufferReader(body)).equals(table)


def test_delete_matching_in_a_missing_bucket_is_file_not_found_naming_it(s3, options):
    table = pa.table({"k": [1], "x": [2]})
    with pytest.raises(FileNotFoundError) as e:
        parquetry.write_to_dataset(table, "s3://no-such-bucket/root", partition_cols=["k"], storage_options=options,
                                   existing_data_behavior="delete_matching")
    assert "s3://no-such-bucket/root/k=1/" in str(e.value) and "not found" in str(e.value)


def _keys(s3, prefix):
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", []))


def test_compact_under_an_s3_url_merges_each_partitions_objects(s3, options, moto, tmp_path):
    # Small files written by pyarrow (several per partition) and uploaded with boto3;
    # compacted in place on S3; boto3 lists what is left and pyarrow reads it back.
    from pyarrow import fs

    local = tmp_path / "small"
    n = 3000
    t = pa.table({"id": pa.array(range(n), pa.int64()), "s": [f"v{i % 37}" for i in range(n)],
                  "k": pa.array([i % 3 for i in range(n)], pa.int64())})
    for k in range(3):
        rows = t.filter(pc.equal(t.column("k"), k)).drop_columns(["k"])
        (local / f"k={k}").mkdir(parents=True)
        for j in range(4):
            pq.write_table(rows.slice(j * 250, 250), local / f"k={k}" / f"part-{j}.parquet", row_group_size=100)
    (local / "_SUCCESS").write_text("")
    for dirpath, _, names in os.walk(local):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), local)
            put(s3, f"compact/{rel}", os.path.join(dirpath, name))
    before = _keys(s3, "compact/")
    root = f"s3://{BUCKET}/compact/"
    plan = parquetry.compact(root, target_file_size=1 << 20, dry_run=True, storage_options=options)
    assert (plan["partitions"], plan["files_before"], plan["files_after"]) == (3, 12, 3)
    assert _keys(s3, "compact/") == before, "a dry run changes nothing"
    done = parquetry.compact(root, target_file_size=1 << 20, storage_options=options)
    assert (done["files_before"], done["files_after"]) == (12, 3)
    after = _keys(s3, "compact/")
    assert after[0] == "compact/_SUCCESS" and len(after) == 4
    s3fs = fs.S3FileSystem(endpoint_override=moto, access_key="test", secret_key="test", scheme="http",
                           region="us-east-1")
    for k in range(3):
        [key] = [a for a in after if a.startswith(f"compact/k={k}/")]
        assert key.rsplit("/", 1)[1].startswith("compacted-")
        body = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        # Rows in the inputs' name order: the local files read one by one.
        inputs = sorted((local / f"k={k}").iterdir())
        want = pa.concat_tables([pq.read_table(p) for p in inputs])
        assert pq.read_table(pa.BufferReader(body)).equals(want)
    import pyarrow.dataset as ds

    got = ds.dataset(f"{BUCKET}/compact", filesystem=s3fs, format="parquet", partitioning="hive").to_table()
    got = got.sort_by("id")
    assert got.select(["id", "s"]).equals(t.select(["id", "s"]))
    assert got.column("k").to_pylist() == t.column("k").to_pylist()  # hive infers int32
    # Nothing left to merge: a second run changes nothing.
    again = parquetry.compact(root, target_file_size=1 << 20, storage_options=options)
    assert again["merges"] == [] and _keys(s3, "compact/") == after


def test_dask_compact_under_an_s3_url_runs_a_task_per_partition(s3, options, moto, tmp_path):
    # parquetry.dask.compact on a LocalCluster of two worker processes: the plan is made
    # here, each partition's merge runs on a worker (fetch, upload whole, delete the inputs);
    # boto3 lists what is left, pyarrow reads the merged objects.
    distributed = pytest.importorskip("dask.distributed")
    import parquetry.dask

    local = tmp_path / "small"
    n = 2400
    t = pa.table({"id": pa.array(range(n), pa.int64()), "s": [f"w{i % 29}" for i in range(n)],
                  "k": pa.array([i % 3 for i in range(n)], pa.int64())})
    for k in range(3):
        rows = t.filter(pc.equal(t.column("k"), k)).drop_columns(["k"])
        (local / f"k={k}").mkdir(parents=True)
        for j in range(4):
            pq.write_table(rows.slice(j * 200, 200), local / f"k={k}" / f"part-{j}.parquet", row_group_size=64)
            put(s3, f"dask/k={k}/part-{j}.parquet", local / f"k={k}" / f"part-{j}.parquet")
    root = f"s3://{BUCKET}/dask/"
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        with distributed.get_task_stream(client) as stream:
            plan = parquetry.dask.compact(root, target_file_size=1 << 20, client=client, storage_options=options)
        # One task per partition, run by the workers (the scheduler's record of them).
        tasks = [d for d in stream.data if "compact_objects" in str(d["key"])]
    finally:
        client.close()
        cluster.close()
    assert (plan["partitions"], plan["files_before"], plan["files_after"]) == (3, 12, 3)
    assert len(tasks) == 3 and all(d["worker"] for d in tasks), tasks
    after = _keys(s3, "dask/")
    assert len(after) == 3 and all(a.rsplit("/", 1)[1].startswith("compacted-") for a in after), after
    for k in range(3):
        [key] = [a for a in after if a.startswith(f"dask/k={k}/")]
        body = s3.get_object(Bucket=BUCKET, Key=key)["Body"].read()
        want = pa.concat_tables([pq.read_table(local / f"k={k}" / f"part-{j}.parquet") for j in range(4)])
        assert pq.read_table(pa.BufferReader(body)).equals(want)


def test_compact_under_an_s3_url_finishes_an_interrupted_merge(s3, options, tmp_path):
    # What a crash leaves, made by hand with boto3: (1) a journal whose output was uploaded
    # but whose inputs were not all deleted; (2) a journal whose output never appeared.
    a, b = pa.table({"x": [1, 2]}), pa.table({"x": [3]})
    for name, table in [("a", a), ("b", b), ("ab", pa.concat_tables([a, b]))]:
        pq.write_table(table, tmp_path / f"{name}.parquet")
    base = f"s3://{BUCKET}/crash"
    put(s3, "crash/p=1/a.parquet", tmp_path / "a.parquet")
    put(s3, "crash/p=1/b.parquet", tmp_path / "b.parquet")
    put(s3, "crash/p=1/ab.parquet", tmp_path / "ab.parquet")
    journal = f'{{"output": "{base}/p=1/ab.parquet", "inputs": ["{base}/p=1/a.parquet", "{base}/p=1/b.parquet"]}}'
    s3.put_object(Bucket=BUCKET, Key="crash/p=1/_compaction-ab.json", Body=journal.encode())
    put(s3, "crash/p=2/c.parquet", tmp_path / "a.parquet")
    journal = f'{{"output": "{base}/p=2/never.parquet", "inputs": ["{base}/p=2/c.parquet"]}}'
    s3.put_object(Bucket=BUCKET, Key="crash/p=2/_compaction-never.json", Body=journal.encode())
    done = parquetry.compact(base, target_file_size=1 << 20, storage_options=options)
    assert done["recovered"] == 2 and done["merges"] == []
    assert _keys(s3, "crash/") == ["crash/p=1/ab.parquet", "crash/p=2/c.parquet"]


def test_a_journal_naming_objects_outside_the_dataset_deletes_nothing(s3, options, tmp_path):
    pq.write_table(pa.table({"x": [1]}), tmp_path / "a.parquet")
    put(s3, "elsewhere/keep.parquet", tmp_path / "a.parquet")
    put(s3, "journaled/p=1/out.parquet", tmp_path / "a.parquet")
    journal = (f'{{"output": "s3://{BUCKET}/journaled/p=1/out.parquet", '
               f'"inputs": ["s3://{BUCKET}/elsewhere/keep.parquet"]}}')
    s3.put_object(Bucket=BUCKET, Key="journaled/p=1/_compaction-out.json", Body=journal.encode())
    with pytest.raises(Exception, match="outside"):
        parquetry.compact(f"s3://{BUCKET}/journaled", storage_options=options)
    assert _keys(s3, "elsewhere/") == ["elsewhere/keep.parquet"]


def test_compact_in_a_missing_bucket_is_file_not_found_naming_it(s3, options):
    with pytest.raises(FileNotFoundError) as e:
        parquetry.compact("s3://no-such-bucket/root/", storage_options=options)
    assert "s3://no-such-bucket/root/" in str(e.value)


def test_hive_datasets_on_s3_read_as_pyarrow_reads_them_locally(s3, options, tmp_path):
    """A hive folder written by pyarrow, uploaded with boto3 (hidden and _ names too), read
    through s3:// as a folder and as a glob, with partition pruning counted in requests."""
    root = tmp_path / "hive"
    n = 4000
    t = pa.table({"id": pa.array(range(n), pa.int64()), "x": pa.array([i % 100 for i in range(n)], pa.int64()),
                  "k": pa.array([i % 4 for i in range(n)], pa.int64())})
    pq.write_to_dataset(t, root, partition_cols=["k"], basename_template="p-{i}.parquet")
    (root / "_SUCCESS").write_text("")
    for dirpath, _, names in os.walk(root):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            put(s3, f"hive/{rel}", os.path.join(dirpath, name))
    want = pq.read_table(root)
    got = parquetry.read_table(f"s3://{BUCKET}/hive/", storage_options=options)
    assert got.schema == want.schema
    plain = lambda tb: pa.table([c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c  # noqa: E731
                                 for c in tb.columns], names=tb.column_names).sort_by("id")
    assert plain(got).equals(plain(want))
    # Pruned by partition: only k=1's file is read (its footer was read when listing).
    d = parquetry.ParquetDataset(f"s3://{BUCKET}/hive/", filters=[("k", "=", 1), ("x", "<", 10)],
                                 storage_options=options)
    footers, _ = d.request_stats()
    assert footers == 4, "one request per file's footer"
    got = d.read(columns=["id", "x"])
    requests, _ = d.request_stats()
    # k=1's one row group: at most its dictionary page (the filter is tested on it first)
    # and its chunks, coalesced; no request for the other files.
    assert requests - footers <= 2, "k=1's one row group, in at most two requests"
    want = pq.read_table(root, columns=["id", "x"], filters=[("k", "=", 1), ("x", "<", 10)])
    assert got.sort_by("id").equals(want.sort_by("id"))
    # A glob over URLs.
    got = parquetry.read_table(f"s3://{BUCKET}/hive/k=[02]/*.parquet", storage_options=options)
    assert sorted(got.column("id").to_pylist()) == [i for i in range(n) if i % 4 in (0, 2)]
    with pytest.raises(ValueError, match="no Parquet files"):
        parquetry.read_table(f"s3://{BUCKET}/nothing-here/", storage_options=options)
