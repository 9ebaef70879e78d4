"""``ParquetDataset``, ``read_table`` and ``write_to_dataset`` in the forms pyarrow's own
``test_dataset`` uses them (partitioning objects and lists, filesystems, file objects,
ignore_prefixes, empty folders, pickling...), each result checked against pyarrow's for the
same call on the same files."""

import os
import pickle

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pa_pq
import pytest

import parquetry as pq


def _sorted(t, by="id"):
    return t.sort_by(by)


def _same(got, want, by="id"):
    """Same schema and rows (in ``by`` order)."""
    assert got.schema == want.schema, f"{got.schema}\n!=\n{want.schema}"
    assert _sorted(got, by).equals(_sorted(want, by))


@pytest.fixture
def layout(tmp_path):
    """``2024/eu``, ``2024/us``, ``2025/eu`` folders (directory partitioning) of two files."""
    root = tmp_path / "dirs"
    n = 0
    for year, region in [("2024", "eu"), ("2024", "us"), ("2025", "eu")]:
        folder = root / year / region
        folder.mkdir(parents=True)
        for f in range(2):
            pa_pq.write_table(pa.table({"id": list(range(n, n + 3)), "x": [1.5, 2.5, None]}), folder / f"{f}.parquet")
            n += 3
    return root


@pytest.mark.parametrize("partitioning", [
    ["year", "region"],
    ds.partitioning(field_names=["year", "region"]),
    ds.partitioning(pa.schema([("year", pa.int16()), ("region", pa.string())])),
])
def test_directory_partitioning_reads_as_pyarrow(layout, partitioning):
    _same(pq.read_table(layout, partitioning=partitioning), pa_pq.read_table(layout, partitioning=partitioning))
    got = pq.ParquetDataset(layout, partitioning=partitioning, filters=[("region", "=", "eu")]).read()
    want = pa_pq.ParquetDataset(layout, partitioning=partitioning, filters=[("region", "=", "eu")]).read()
    _same(got, want)


def test_typed_hive_partitioning_reads_as_pyarrow(tmp_path):
    pa_pq.write_to_dataset(pa.table({"id": range(6), "k": [1, 2, 3] * 2}), tmp_path, partition_cols=["k"])
    for partitioning in [ds.partitioning(pa.schema([("k", pa.int64())]), flavor="hive"),
                         ds.partitioning(flavor="hive"), "hive", None]:
        _same(pq.read_table(tmp_path, partitioning=partitioning), pa_pq.read_table(tmp_path, partitioning=partitioning))


def test_options_pyarrow_takes_change_nothing(layout):
    want = pa_pq.ParquetDataset(layout, memory_map=True, buffer_size=1024, pre_buffer=False).read()
    got = pq.ParquetDataset(layout, memory_map=True, buffer_size=1024, pre_buffer=False).read()
    _same(got, want)
    for module in (pa_pq, pq):
        with pytest.raises(ValueError):
            module.ParquetDataset(layout, buffer_size=-64)


def test_custom_ignore_prefixes_and_an_empty_folder(tmp_path):
    table = pa.table({"id": range(6), "_part": ["a"] * 3 + ["b"] * 3})
    pa_pq.write_to_dataset(table, tmp_path / "d", partition_cols=["_part"])
    pa_pq.write_to_dataset(table, tmp_path / "d" / "_private_copy", partition_cols=["_part"])
    _same(pq.read_table(tmp_path / "d", ignore_prefixes=["_private"]),
          pa_pq.read_table(tmp_path / "d", ignore_prefixes=["_private"]))
    # By default '_part=...' folders are not data either: nothing to read, on both sides.
    got, want = pq.read_table(tmp_path / "d"), pa_pq.read_table(tmp_path / "d")
    assert (got.num_rows, got.num_columns) == (want.num_rows, want.num_columns) == (0, 0)
    (tmp_path / "empty" / "_temporary").mkdir(parents=True)
    got, want = pq.ParquetDataset(tmp_path / "empty").read(), pa_pq.ParquetDataset(tmp_path / "empty").read()
    assert (got.num_rows, got.num_columns) == (want.num_rows, want.num_columns) == (0, 0)


def test_a_file_pruned_by_its_partition_is_not_checked_against_the_schema(tmp_path):
    (tmp_path / "A=0").mkdir()
    (tmp_path / "A=1").mkdir()
    pa_pq.write_table(pa.table({"B": [1, 2, 3]}), tmp_path / "A=0" / "data.parquet")
    pa_pq.write_table(pa.table({"B": ["a", "b", "c"]}), tmp_path / "A=1" / "data.parquet")
    got = pq.read_table(tmp_path, filters=[[("A", "==", 0)]])
    want = pa_pq.read_table(tmp_path, filters=[[("A", "==", 0)]])
    _same(got, want, by="B")
    for module in (pa_pq, pq):  # both read the first file's type, and the other file cannot be cast to it
        with pytest.raises((ValueError, pa.ArrowInvalid)):
            module.read_table(tmp_path)
    with pytest.raises(ValueError, match="No match for FieldRef.Name"):
        pq.ParquetDataset(tmp_path, filters=[("nope", "<", 3)]).read()


def test_one_file_has_no_partitions_and_a_file_object_reads_the_same(tmp_path):
    path = tmp_path / "p=a" / "data.parquet"
    path.parent.mkdir()
    pa_pq.write_table(pa.table({"id": [1, 2, 3]}), path)
    _same(pq.ParquetDataset(path).read(), pa_pq.ParquetDataset(path).read())
    assert pq.ParquetDataset(path).schema == pa_pq.ParquetDataset(path).schema
    with open(path, "rb") as f:
        got = pq.ParquetDataset(f).read()
    _same(got, pa_pq.ParquetDataset(path).read())
    # A list of files keeps the hive folders above them, as pyarrow's does.
    _same(pq.ParquetDataset([str(path)]).read(), pa_pq.ParquetDataset([str(path)]).read())


def test_read_dictionary_gives_one_dictionary_chunk_per_file(tmp_path):
    for i in range(2):
        pa_pq.write_table(pa.table({"f0": [f"v{i}{j % 3}" for j in range(20)]}), tmp_path / f"{i}.parquet")
    got = pq.ParquetDataset(tmp_path, read_dictionary=["f0"]).read()
    want = pa_pq.ParquetDataset(tmp_path, read_dictionary=["f0"]).read()
    assert got.schema == want.schema
    assert [c.to_pylist() for c in got[0].chunks] == [c.to_pylist() for c in want[0].chunks]
    assert [c.dictionary.to_pylist() for c in got[0].chunks] == [c.dictionary.to_pylist() for c in want[0].chunks]


def test_a_table_of_no_columns_keeps_its_row_count(tmp_path):
    table = pa.table({"a": [1, 2, 3]}).drop_columns(["a"])
    pq.write_table(table, tmp_path / "none.parquet")
    assert pa_pq.read_metadata(tmp_path / "none.parquet").num_rows == table.num_rows == 3


def test_local_filesystems_and_uris(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    pa_pq.write_table(pa.table({"id": [1, 2, 3]}), tmp_path / "data.parquet")
    subtree = pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem())
    for fs, path in [(subtree, "."), (fsspec.filesystem("file"), str(tmp_path)), (pafs.LocalFileSystem(), str(tmp_path)),
                     ("file://" + str(tmp_path.parent), tmp_path.name)]:
        got = pq.ParquetDataset(path, filesystem=fs)
        want = pa_pq.ParquetDataset(path, filesystem=fs)
        _same(got.read(), want.read())
        assert got.files == want.files
        assert [f.path for f in got.fragments] == [f.path for f in want.fragments]


def test_a_filesystem_that_is_not_local_is_read_and_written_through(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    fs = pafs.PyFileSystem(pafs.FSSpecHandler(memory))
    table = pa.table({"id": range(10), "k": ["a", "b"] * 5})
    root = "/parquetry-forms"
    try:
        pq.write_to_dataset(table, root, partition_cols=["k"], filesystem=memory, basename_template="p-{i}.parquet")
        got = pq.ParquetDataset(root, filesystem=fs)
        want = pa_pq.ParquetDataset(root, filesystem=fs)
        _same(got.read(), want.read())
        assert sorted(got.files) == sorted(want.files)
        _same(pq.read_table(root, filesystem=memory, filters=[("k", "=", "b")]),
              pa_pq.read_table(root, filesystem=memory, filters=[("k", "=", "b")]))
    finally:
        memory.rm(root, recursive=True)


def test_pickled_dataset_is_equal_and_reads_the_same(tmp_path):
    pa_pq.write_table(pa.table({"id": range(5)}), tmp_path / "a.parquet")
    dataset = pq.ParquetDataset(tmp_path, filters=[("id", ">", 1)])
    back = pickle.loads(pickle.dumps(dataset))
    assert back == dataset
    _same(back.read(), pa_pq.ParquetDataset(tmp_path, filters=[("id", ">", 1)]).read())


def _written(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def test_write_to_dataset_layouts_are_pyarrows(tmp_path):
    import pandas as pd

    df = pd.DataFrame({"cat": pd.Categorical(["a", "b", "a"], categories=["a", "b", "c"]), "col": [1, 2, 3]})
    table = pa.table(df)
    calls = [
        dict(partition_cols=["cat"]),
        dict(partitioning=["cat"]),
        dict(partitioning=["cat"], partitioning_flavor="hive"),
        dict(partitioning=ds.partitioning(pa.schema([("cat", pa.string())]))),
    ]
    for n, kwargs in enumerate(calls):
        ours, theirs = tmp_path / f"ours{n}", tmp_path / f"theirs{n}"
        pq.write_to_dataset(table, ours, basename_template="part-{i}.parquet", **kwargs)
        pa_pq.write_to_dataset(table, theirs, basename_template="part-{i}.parquet", **kwargs)
        assert _written(ours) == _written(theirs), kwargs
    # Every column a partition column: files of no columns.
    ones = pa.table({"a": [1, 2, 3]})
    pq.write_to_dataset(ones, tmp_path / "o", partitioning=["a"], basename_template="part-{i}.parquet")
    pa_pq.write_to_dataset(ones, tmp_path / "t", partitioning=["a"], basename_template="part-{i}.parquet")
    assert _written(tmp_path / "o") == _written(tmp_path / "t")
    got = pa_pq.read_table(tmp_path / "o" / "1" / "part-0.parquet")
    want = pa_pq.read_table(tmp_path / "t" / "1" / "part-0.parquet")
    assert (got.num_rows, got.num_columns) == (want.num_rows, want.num_columns)


def test_int96_unit_on_one_file_is_pyarrows_and_on_a_dataset_refused(tmp_path):
    import datetime

    table = pa.table({"t": pa.array([datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31)], pa.timestamp("us"))})
    pa_pq.write_table(table, tmp_path / "old.parquet", use_deprecated_int96_timestamps=True)
    got = pq.read_table(tmp_path / "old.parquet", coerce_int96_timestamp_unit="ms")
    assert got.equals(pa_pq.read_table(tmp_path / "old.parquet", coerce_int96_timestamp_unit="ms"))
    # Not silently read at the wrong unit: refused until datasets take it.
    with pytest.raises(NotImplementedError, match="coerce_int96_timestamp_unit"):
        pq.read_table(tmp_path, coerce_int96_timestamp_unit="ms")
