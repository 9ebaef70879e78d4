"""Writing from pyarrow and polars data, and merging: read back by pyarrow, equal to the input."""

import datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import assert_tables_equal


def sample(n=10_000, seed=0):
    ids = [f"{(i * 7919 + seed) % 100_000:016x}-{i:08x}" for i in range(n)]
    return pa.table({
        "id": ids,
        "category": [f"category_{i % 100:03d}" for i in range(n)],
        "n": pa.array([i if i % 13 else None for i in range(n)], pa.int64()),
        "x": pa.array([i / 3 for i in range(n)], pa.float64()),
        "flag": [i % 3 == 0 for i in range(n)],
        "blob": pa.array([bytes([i % 256]) * (i % 17) for i in range(n)], pa.binary()),
        "day": pa.array([datetime.date(2024, 1, 1 + i % 28) for i in range(n)], pa.date32()),
    })


@pytest.mark.parametrize("options", [
    {},
    {"compression": "zstd", "compression_level": 3},
    {"compression": "none", "use_dictionary": False, "data_page_version": "2.0"},
    {"compression": {"id": "gzip", "x": "lz4"}, "use_dictionary": ["category"]},
    {"compression": "snappy", "use_dictionary": False, "column_encoding": {"id": "DELTA_BYTE_ARRAY", "n": "DELTA_BINARY_PACKED"}},
    {"use_dictionary": False, "column_encoding": "PLAIN", "write_statistics": False, "write_page_index": False},
    {"row_group_size": 999},
])
def test_write_table_from_pyarrow_reads_back_equal(tmp_path, options):
    table = sample()
    out = tmp_path / "t.parquet"
    parquetry.write_table(table, out, **options)
    assert_tables_equal(pq.read_table(out), table, str(options))
    if "row_group_size" in options:
        assert pq.ParquetFile(out).num_row_groups == 11


def test_write_options_reach_the_file(tmp_path):
    out = tmp_path / "t.parquet"
    parquetry.write_table(sample(), out, compression="zstd", use_dictionary=False,
                          column_encoding={"id": "DELTA_LENGTH_BYTE_ARRAY"}, write_statistics=False)
    col = pq.ParquetFile(out).metadata.row_group(0).column(0)
    assert col.compression == "ZSTD"
    assert "DELTA_LENGTH_BYTE_ARRAY" in col.encodings
    assert not col.is_stats_set


@pytest.mark.parametrize("write_statistics", [["id", "n"], ["x"], [], True, False])
def test_write_statistics_per_column_as_pyarrow(tmp_path, write_statistics):
    # The columns pyarrow gives statistics and a column index to, with the same values.
    table = sample(3000)
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    parquetry.write_table(table, ours, write_statistics=write_statistics, write_page_index=True)
    pq.write_table(table, theirs, write_statistics=write_statistics, write_page_index=True)
    got, want = pq.ParquetFile(ours).metadata.row_group(0), pq.ParquetFile(theirs).metadata.row_group(0)
    for i in range(table.num_columns):
        g, w = got.column(i), want.column(i)
        assert (g.is_stats_set, g.has_column_index) == (w.is_stats_set, w.has_column_index), g.path_in_schema
        if w.is_stats_set:
            assert (g.statistics.min, g.statistics.max, g.statistics.null_count) == (
                w.statistics.min, w.statistics.max, w.statistics.null_count), g.path_in_schema


def test_write_statistics_must_name_columns(tmp_path):
    with pytest.raises(parquetry.ArgumentTypeError, match="write_statistics"):
        parquetry.write_table(sample(10), tmp_path / "t.parquet", write_statistics="id")
    with pytest.raises(parquetry.InvalidArgumentError, match="nope"):
        parquetry.write_table(sample(10), tmp_path / "t.parquet", write_statistics=["nope"])


def test_write_from_reader_batch_and_file_object(tmp_path):
    table = sample(3000)
    batches = table.to_batches(max_chunksize=500)
    gen = pa.RecordBatchReader.from_batches(table.schema, iter(batches))
    parquetry.write_table(gen, tmp_path / "r.parquet")
    assert_tables_equal(pq.read_table(tmp_path / "r.parquet"), table, "reader")
    parquetry.write_table(batches[0], tmp_path / "b.parquet")
    assert_tables_equal(pq.read_table(tmp_path / "b.parquet"), pa.Table.from_batches([batches[0]]), "batch")
    with open(tmp_path / "f.parquet", "wb") as f:
        parquetry.write_table(table, f)
    assert_tables_equal(pq.read_table(tmp_path / "f.parquet"), table, "file object")


def test_write_from_polars_reads_back_equal(tmp_path):
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"s": [f"v{i}" for i in range(5000)], "i": list(range(5000)), "f": [i * 0.5 for i in range(5000)]})
    out = tmp_path / "p.parquet"
    parquetry.write_table(df, out)
    # The input as polars streams it (strings as string_view), which is what was written.
    assert_tables_equal(pq.read_table(out), pa.table(df), "polars")
    assert pl.read_parquet(out).equals(df)
    # And back: parquetry's stream into polars.
    assert pl.from_arrow(parquetry.read_table(out)).equals(df)


def test_a_failed_write_leaves_no_file(tmp_path):
    out = tmp_path / "t.parquet"
    with pytest.raises(parquetry.InvalidArgumentError):
        parquetry.write_table(sample(10), out, compression="nope")
    with pytest.raises(parquetry.ParquetError):
        parquetry.write_table(sample(10), out, column_encoding={"flag": "DELTA_BYTE_ARRAY"}, use_dictionary=False)
    assert list(tmp_path.iterdir()) == []


def test_merge_equals_the_concatenation(tmp_path):
    parts = [sample(2000, seed=s) for s in range(4)]
    paths = []
    for i, t in enumerate(parts):
        paths.append(tmp_path / f"in{i}.parquet")
        parquetry.write_table(t, paths[-1], row_group_size=700)
    out = tmp_path / "merged.parquet"
    summary = parquetry.merge(paths, out, row_group_rows=5000)
    assert summary["rows"] == 8000 and summary["files"] == 4
    assert_tables_equal(pq.read_table(out), pa.concat_tables(parts), "merge")
    assert_tables_equal(parquetry.read_table(out), pa.concat_tables(parts), "merge via parquetry")
    summary = parquetry.merge([str(p) for p in paths], tmp_path / "z.parquet", compression="zstd")
    assert pq.ParquetFile(tmp_path / "z.parquet").metadata.row_group(0).column(0).compression == "ZSTD"


def nested_sample(n=3000):
    return pa.table({
        "tags": pa.array([None if i % 11 == 0 else [f"t{(i * j) % 50}" for j in range(i % 5)] for i in range(n)]),
        "rec": pa.array([None if i % 7 == 0 else {"a": i, "b": None if i % 3 == 0 else f"b{i}"} for i in range(n)]),
        "m": pa.array([None if i % 5 == 0 else [(f"k{j}", j * i) for j in range(i % 3)] for i in range(n)],
                      pa.map_(pa.string(), pa.int64())),
        "deep": pa.array([[[i, None], []] if i % 2 else None for i in range(n)], pa.list_(pa.list_(pa.int32()))),
    })


@pytest.mark.parametrize("options", [{}, {"use_dictionary": False, "data_page_version": "2.0", "compression": "zstd"}])
def test_nested_tables_write_and_read_back(tmp_path, options):
    table = nested_sample()
    out = tmp_path / "nested.parquet"
    parquetry.write_table(table, out, **options)
    # Values as Python objects: the element and entry field names are the writer's choice.
    assert pq.read_table(out).to_pylist() == table.to_pylist()
    assert parquetry.read_table(out).to_pylist() == table.to_pylist()
    with parquetry.ParquetFile(out) as f:
        got = pa.Table.from_batches(list(f.iter_batches(batch_size=7)), schema=f.schema_arrow)
    assert got.to_pylist() == table.to_pylist()


def test_nested_polars_data_writes(tmp_path):
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"l": [[1, 2], [], None, [3]], "s": [{"a": 1, "b": "x"}, None, {"a": 3, "b": None}, {"a": 4, "b": "y"}]})
    out = tmp_path / "p.parquet"
    parquetry.write_table(df, out)
    assert pl.read_parquet(out).to_dicts() == df.to_dicts()


def test_bloom_filter_options_write_filters_duckdb_probes(tmp_path):
    """bloom_filter_options as pyarrow takes it, on write_table and ParquetWriter: the
    filters are where pyarrow's metadata says, duckdb finds every value and rules out absent
    ones, and a column not named gets none."""
    duckdb = pytest.importorskip("duckdb")
    table = sample()
    out = tmp_path / "t.parquet"
    parquetry.write_table(table, out, row_group_size=2500,
                          bloom_filter_options={"id": {"ndv": 2500, "fpp": 0.01}, "n": True, "category": {}})
    with parquetry.ParquetWriter(tmp_path / "w.parquet", table.schema,
                                 bloom_filter_options={"id": {"fpp": 0.05}, "x": False}) as w:
        w.write_table(table)
    for path, columns in [(out, {"id", "n", "category"}), (tmp_path / "w.parquet", {"id"})]:
        assert_tables_equal(pq.read_table(path), table, str(path))
        meta = pq.read_metadata(path)
        for g in range(meta.num_row_groups):
            for c in range(meta.num_columns):
                col = meta.row_group(g).column(c)
                assert (col.bloom_filter_offset is not None) == (col.path_in_schema in columns), (path, g, c)
                assert (col.bloom_filter_length is not None) == (col.path_in_schema in columns), (path, g, c)

    def excludes(column, value):
        rows = duckdb.execute("SELECT bloom_filter_excludes FROM parquet_bloom_probe(?, ?, ?)",
                              [str(out), column, value]).fetchall()
        return [r[0] for r in rows]

    ids = table.column("id").to_pylist()
    for i in range(0, 10_000, 97):
        assert not excludes("id", ids[i])[i // 2500], i
    absent = [excludes("id", f"absent-{i}") for i in range(100)]
    assert sum(map(sum, absent)) >= 0.9 * 100 * 4
    assert not any(excludes("category", "category_007"))
    assert sum(sum(excludes("category", f"category_{k}")) for k in range(100, 150)) >= 0.8 * 50 * 4


def test_bloom_filter_options_refused_as_pyarrow_refuses_them(tmp_path):
    table = sample(100)
    cases = [
        (True, TypeError, "'bloom_filter_options' must be a dictionary"),
        ({"id": {"ndv": "100"}}, TypeError, "'bloom_filter_options:ndv' for column 'id' must be an int"),
        ({"id": {"fpp": "0.05"}}, TypeError, "'bloom_filter_options:fpp' for column 'id' must be a float"),
        ({"id": {"ndv": -10}}, ValueError, "must be greater than zero, got -10"),
        ({"id": {"fpp": 2.0}}, ValueError, r"must be in \(0.0, 1.0\), got 2.0"),
        ({"id": 3}, TypeError, "'bloom_filter_options:id' must be a boolean or a dictionary"),
    ]
    for options, error, message in cases:
        with pytest.raises(error, match=message):
            parquetry.write_table(table, tmp_path / "x.parquet", bloom_filter_options=options)
        with pytest.raises(error, match=message):
            pq.write_table(table, tmp_path / "y.parquet", bloom_filter_options=options)


def _bloom_filters(path):
    """Every chunk's bloom filter as stored (header and bitset), per pyarrow's metadata."""
    meta = pq.read_metadata(path)
    data = open(path, "rb").read()
    out = {}
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(g).column(c)
            if col.bloom_filter_offset is not None:
                start = col.bloom_filter_offset
                out[(g, col.path_in_schema)] = data[start:start + col.bloom_filter_length]
    return out


def test_bloom_filters_are_byte_for_byte_pyarrows(tmp_path):
    """Given the same values, ndv and fpp, parquetry's filters are Arrow C++'s to the bit:
    the same hash of the same PLAIN bytes, the same sizing and the same folding, whether
    parquetry hashed each value (no dictionary, or after fallback) or each dictionary value
    once. (Without `ndv`, sizes may differ: Arrow C++ plans for the row group row limit.)"""
    n = 30_000
    table = pa.table({
        "id": [f"{i * 7919 % 100_000:016x}-{i:08x}" for i in range(n)],
        "category": [f"category_{i % 100:03d}" for i in range(n)],
        "n32": pa.array([i * 3 if i % 7 else None for i in range(n)], pa.int32()),
        "n64": pa.array([i * 1_000_003 for i in range(n)], pa.int64()),
        "fixed": pa.array([i.to_bytes(4, "big") for i in range(n)], pa.binary(4)),
        "tags": [[f"t{i % 50}", f"u{i}"] for i in range(n)],
    })
    options = {
        "id": {"ndv": 10_000, "fpp": 0.01},
        "category": {"ndv": 10_000},
        "n32": {"ndv": 10_000, "fpp": 0.1},
        "n64": {"ndv": 20_000},
        "fixed": {"ndv": 10_000},
        "tags.list.element": {"ndv": 20_000},
    }
    for dictionary in (True, False):
        ours, theirs = tmp_path / f"ours_{dictionary}.parquet", tmp_path / f"theirs_{dictionary}.parquet"
        kwargs = dict(row_group_size=10_000, use_dictionary=dictionary, bloom_filter_options=options)
        parquetry.write_table(table, ours, **kwargs)
        pq.write_table(table, theirs, **kwargs)
        a, b = _bloom_filters(ours), _bloom_filters(theirs)
        assert sorted(a) == sorted(b) and len(a) == 3 * len(options), (sorted(a), sorted(b))
        different = [k for k in a if a[k] != b[k]]
        assert not different, (dictionary, different, [(len(a[k]), len(b[k])) for k in different])
