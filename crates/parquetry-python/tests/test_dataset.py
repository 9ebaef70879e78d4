"""Datasets from Python: ``read_table`` of folders, globs and lists, ``ParquetDataset`` and
``write_to_dataset``, checked against pyarrow reading and writing the same folders."""

import datetime
import os

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pa_pq
import pytest

import parquetry as pq


def _table(n=3000):
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "x": pa.array([(i * 37) % 1000 for i in range(n)], pa.int64()),
        "y": pa.array([None if i % 11 == 0 else f"y{i % 97:03d}" for i in range(n)]),
        "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 400) for i in range(n)]),
        "k": pa.array([None if i % 7 == 0 else i % 3 for i in range(n)], pa.int64()),
        "s": pa.array(["w w/x" if i % 5 == 0 else ("u" if i % 2 else "v") for i in range(n)]),
    })


@pytest.fixture(scope="module")
def hive(tmp_path_factory):
    root = tmp_path_factory.mktemp("hive") / "t"
    t = _table()
    pa_pq.write_to_dataset(t.slice(0, 1500), root, partition_cols=["k", "s"], basename_template="a-{i}.parquet")
    pa_pq.write_to_dataset(t.slice(1500), root, partition_cols=["k", "s"], basename_template="b-{i}.parquet")
    (root / "_SUCCESS").write_text("")
    return root


def _sorted(t):
    return t.sort_by("id")


def _plain(t):
    """``t`` with dictionary columns decoded (pyarrow's and ours differ in dictionaries only)."""
    cols = [c.cast(c.type.value_type) if pa.types.is_dictionary(c.type) else c for c in t.columns]
    return pa.table(cols, names=t.column_names)


FILTERS = [
    None,
    [("k", "=", 1)],
    [("k", "=", 1), ("x", "<", 100)],
    [[("s", "=", "w w/x")], [("x", ">", 990)]],
    [("s", "in", ["u", "w w/x"]), ("y", ">=", "y050")],
    [("k", "not in", [0, 2])],
    [("d", ">=", datetime.date(2020, 6, 1)), ("d", "<", datetime.date(2020, 7, 1))],
    [("x", "!=", 5)],
    (pc.field("k") == 2) & (pc.field("x") > 500),
]


@pytest.mark.parametrize("filters", FILTERS, ids=range(len(FILTERS)))
def test_read_table_of_a_hive_folder_is_pyarrows(hive, filters):
    want = pa_pq.read_table(hive, filters=filters)
    got = pq.read_table(hive, filters=filters)
    assert got.schema == want.schema
    assert _sorted(_plain(got)).equals(_sorted(_plain(want)))


def test_columns_and_threads(hive):
    want = pa_pq.read_table(hive, columns=["s", "id"], filters=[("k", "=", 0)])
    for threads in (False, True, 2):
        got = pq.read_table(hive, columns=["s", "id"], filters=[("k", "=", 0)], use_threads=threads)
        assert got.column_names == ["s", "id"]
        assert _sorted(_plain(got)).equals(_sorted(_plain(want)))


def test_partition_filters_prune_files_unopened(hive):
    d = pq.ParquetDataset(hive, filters=[("k", "=", 1)])
    assert d.files == pa_pq.ParquetDataset(hive).files
    kept = d._raw.prune(pq._filters.filters_to_condition([("k", "=", 1)]))
    paths = [d.files[i] for i in kept]
    assert paths and all("/k=1/" in p for p in paths)
    assert d.schema == pa_pq.ParquetDataset(hive).schema


def test_glob_and_list(hive):
    files = sorted(str(p) for p in hive.glob("k=*/s=u/*.parquet"))
    want = pa_pq.read_table(files)
    got = pq.read_table(files)
    assert got.schema == want.schema
    assert _plain(got).equals(_plain(want))
    got = pq.read_table(str(hive / "k=*" / "s=u" / "*.parquet"))
    want = ds.dataset(str(hive), partitioning="hive").to_table(filter=pc.field("s") == "u")
    assert _sorted(got.select(["id", "x", "y"])).equals(_sorted(want.select(["id", "x", "y"])))


def test_columns_missing_from_some_files_read_as_nulls(tmp_path):
    pa_pq.write_table(pa.table({"id": [0, 1], "a": ["p", None]}), tmp_path / "0.parquet")
    pa_pq.write_table(pa.table({"id": [2], "b": [2.5]}), tmp_path / "1.parquet")
    unified = pa.unify_schemas([pa_pq.read_schema(tmp_path / f"{i}.parquet") for i in range(2)])
    want = ds.dataset(tmp_path, schema=unified).to_table()
    assert pq.read_table(tmp_path).equals(want)
    # A given schema reads every file as it, casting.
    schema = pa.schema([("id", pa.int32()), ("b", pa.float64())])
    assert pq.read_table(tmp_path, schema=schema).equals(ds.dataset(tmp_path, schema=schema).to_table())


def test_write_to_dataset_reads_back_in_pyarrow(tmp_path):
    t = _table(2000)
    root = tmp_path / "w"
    pq.write_to_dataset(t, root, partition_cols=["k", "s"], max_rows_per_file=100, basename_template="p-{i}.parquet")
    names = sorted(os.listdir(root))
    assert names == ["k=0", "k=1", "k=2", "k=__HIVE_DEFAULT_PARTITION__"]
    assert sorted(os.listdir(root / "k=0")) == ["s=u", "s=v", "s=w%20w%2Fx"]
    back = pa_pq.read_table(root)
    got = _sorted(_plain(back))
    assert got.column("id").to_pylist() == t.column("id").to_pylist()
    for c in ("x", "y", "d", "s"):
        assert got.column(c).to_pylist() == t.column(c).to_pylist(), c
    assert got.column("k").to_pylist() == t.column("k").to_pylist()
    sizes = [pa_pq.read_metadata(p).num_rows for p in root.glob("*/*/*.parquet")]
    assert max(sizes) <= 100 and sum(sizes) == 2000
    # "error" refuses a folder that holds data; "delete_matching" replaces the partitions written.
    with pytest.raises(ValueError):
        pq.write_to_dataset(t, root, partition_cols=["k", "s"], existing_data_behavior="error")
    small = t.filter(pc.field("k") == 1)
    pq.write_to_dataset(small, root, partition_cols=["k", "s"], existing_data_behavior="delete_matching")
    back = pa_pq.read_table(root, filters=[("k", "=", 1)])
    assert back.num_rows == small.num_rows
    assert pa_pq.read_table(root).num_rows == 2000


def test_bad_sources(tmp_path):
    # A folder of no data files reads as pyarrow reads it: no rows, no columns; a glob that
    # matches nothing is an error naming it.
    (tmp_path / "empty" / "_temporary").mkdir(parents=True)
    got, want = pq.read_table(tmp_path / "empty"), pa_pq.read_table(tmp_path / "empty")
    assert (got.num_rows, got.num_columns) == (want.num_rows, want.num_columns) == (0, 0)
    with pytest.raises(ValueError, match="no Parquet files"):
        pq.read_table(str(tmp_path / "empty" / "*.parquet"))
    with pytest.raises(FileNotFoundError):
        pq.read_table([str(tmp_path / "nope.parquet")])
    pa_pq.write_table(pa.table({"x": [1]}), tmp_path / "a.parquet")
    pa_pq.write_table(pa.table({"x": ["1"]}), tmp_path / "b.parquet")
    with pytest.raises(ValueError, match="a.parquet.*b.parquet"):
        pq.read_table([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")])
