"""parquetry's pyarrow.parquet surface checked against pyarrow itself: the metadata objects
of every corpus file, ParquetWriter's row groups and failures, filters, batch boundaries.
(pyarrow's own test suite runs in test_pyarrow_suite.py.)"""

import io
import math

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import corpus_dir, readable


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


@pytest.mark.parametrize("rel", readable())
def test_metadata_as_pyarrow(rel):
    # Every field the metadata classes give, for every corpus file pyarrow reads.
    path = corpus_dir() / rel
    try:
        want = pq.read_metadata(path)
    except Exception as e:  # pyarrow reads the data but not its metadata classes
        pytest.skip(f"pyarrow: {e}")
    got = parquetry.read_metadata(path)
    assert (got.num_rows, got.num_row_groups, got.num_columns, got.created_by) == (
        want.num_rows, want.num_row_groups, want.num_columns, want.created_by)
    assert got.metadata == want.metadata
    for i in range(want.num_columns):
        g, w = got.schema.column(i), want.schema.column(i)
        assert (g.name, g.path, g.max_definition_level, g.max_repetition_level, g.physical_type,
                g.length, g.precision, g.scale, g.converted_type, g.logical_type.type) == (
            w.name, w.path, w.max_definition_level, w.max_repetition_level, w.physical_type,
            w.length, w.precision, w.scale, w.converted_type, w.logical_type.type), (rel, i)
        assert str(g.logical_type) == str(w.logical_type), (rel, i)
    # The schema printed as pyarrow prints it (after its first line, the object's address).
    assert repr(got.schema).split("\n", 1)[1] == repr(want.schema).split("\n", 1)[1].rstrip()
    for r in range(want.num_row_groups):
        grg, wrg = got.row_group(r), want.row_group(r)
        assert (grg.num_rows, grg.num_columns, grg.total_byte_size) == (
            wrg.num_rows, wrg.num_columns, wrg.total_byte_size), (rel, r)
        assert [c.to_dict() for c in grg.sorting_columns] == [c.to_dict() for c in wrg.sorting_columns]
        for c in range(wrg.num_columns):
            g, w = grg.column(c), wrg.column(c)
            where = (rel, r, w.path_in_schema)
            assert (g.path_in_schema, g.physical_type, g.num_values, g.data_page_offset,
                    g.dictionary_page_offset, g.total_compressed_size, g.total_uncompressed_size,
                    g.has_dictionary_page, g.is_stats_set) == (
                w.path_in_schema, w.physical_type, w.num_values, w.data_page_offset,
                w.dictionary_page_offset, w.total_compressed_size, w.total_uncompressed_size,
                w.has_dictionary_page, w.is_stats_set), where
            assert set(g.encodings) == set(w.encodings), where
            assert g.is_geo_stats_set == w.is_geo_stats_set, where
            if w.is_geo_stats_set:
                assert g.geo_statistics.to_dict() == w.geo_statistics.to_dict(), where
            if w.is_stats_set:
                gs, ws = g.statistics, w.statistics
                assert (gs.null_count, gs.distinct_count, gs.num_values) == (
                    ws.null_count, ws.distinct_count, ws.num_values), where
                # pyarrow withholds some bounds parquetry gives (docs/python.md: a column
                # order it does not know, statistics without a null count); every bound
                # pyarrow gives, parquetry gives too, decoded alike.
                assert gs.has_min_max or not ws.has_min_max, where
                if ws.has_min_max and w.physical_type != "INT96":
                    try:
                        wmin, wmax = ws.min, ws.max
                    except Exception:  # pyarrow cannot decode this logical type's bounds
                        continue
                    assert _same(gs.min, wmin) and _same(gs.max, wmax), (where, gs.min, wmin, gs.max, wmax)


def test_writer_row_groups_per_call_and_key_values(tmp_path):
    # Each write_table/write_batch call makes its own row groups, as pyarrow's writer does.
    t = pa.table({"a": list(range(10)), "b": [str(i) for i in range(10)]})
    out = tmp_path / "w.parquet"
    with parquetry.ParquetWriter(out, t.schema) as w:
        w.write_table(t, row_group_size=4)
        w.write_batch(t.to_batches()[0])
        w.add_key_value_metadata({"k": "v"})
    m = pq.read_metadata(out)
    assert [m.row_group(i).num_rows for i in range(m.num_row_groups)] == [4, 4, 2, 10]
    assert m.metadata[b"k"] == b"v"
    assert pq.read_table(out).equals(pa.concat_tables([t, t]))


def test_writer_refuses_another_schema_and_leaves_nothing(tmp_path):
    t = pa.table({"a": [1, 2]})
    out = tmp_path / "w.parquet"
    w = parquetry.ParquetWriter(out, t.schema)
    with pytest.raises(ValueError, match="Table schema does not match schema used to create file") as e:
        w.write_table(pa.table({"a": ["x"]}))
    assert "a: string" in str(e.value) and "a: int64" in str(e.value)
    assert not out.exists()  # the file appears on close only
    with pytest.raises(Exception):
        parquetry.write_table(pa.table({"a": pa.array([1], pa.int64())}), out, compression="nope")
    assert not out.exists()


def test_write_options_as_pyarrow_reads_them(tmp_path):
    # Options that change the file: pyarrow sees what it would have written itself.
    t = pa.table({"a": pa.array([1, 2, 3], pa.int32()), "f": pa.array([1.5, 2.5, 3.5]),
                  "ts": pa.array([1000, 2000, 3000], pa.timestamp("ns"))})
    out = tmp_path / "o.parquet"
    parquetry.write_table(t, out, compression={"a": "zstd", "f": "gzip", "ts": "snappy"},
                          use_dictionary=False, column_encoding={"a": "DELTA_BINARY_PACKED"},
                          use_byte_stream_split=["f"], coerce_timestamps="us",
                          sorting_columns=[pq.SortingColumn(0)], write_page_checksum=True)
    m = pq.read_metadata(out).row_group(0)
    assert [m.column(i).compression for i in range(3)] == ["ZSTD", "GZIP", "SNAPPY"]
    assert "DELTA_BINARY_PACKED" in m.column(0).encodings
    assert "BYTE_STREAM_SPLIT" in m.column(1).encodings
    assert [c.to_dict() for c in m.sorting_columns] == [pq.SortingColumn(0).to_dict()]
    got = pq.read_table(out, page_checksum_verification=True)
    assert got.schema.field("ts").type == pa.timestamp("us")
    with pytest.raises(ValueError, match="would lose data"):
        parquetry.write_table(pa.table({"ts": pa.array([1], pa.timestamp("ns"))}), out, coerce_timestamps="us")


@pytest.mark.parametrize("filters", [
    [("a", ">", 3)],
    [[("a", "<", 2)], [("b", "in", {"x7", "x8"})]],
    (pc.field("a") > 6) | (pc.field("b") == "x1"),
])
def test_filters_as_pyarrow(tmp_path, filters):
    t = pa.table({"a": list(range(10)), "b": [f"x{i}" for i in range(10)]})
    out = tmp_path / "f.parquet"
    pq.write_table(t, out)
    want = pq.read_table(out, filters=filters, columns=["b"])
    assert parquetry.read_table(out, filters=filters, columns=["b"]).equals(want)


def test_iter_batches_boundaries_as_pyarrow(tmp_path):
    t = pa.table({"a": list(range(2500))})
    buf = io.BytesIO()
    pq.write_table(t, buf, row_group_size=1000)
    data = buf.getvalue()
    want = [b.num_rows for b in pq.ParquetFile(io.BytesIO(data)).iter_batches(batch_size=300)]
    got = list(parquetry.ParquetFile(data).iter_batches(batch_size=300))
    assert [b.num_rows for b in got] == want
    assert pa.Table.from_batches(got).equals(t)


def test_summary_metadata_file_as_pyarrow_reads_it(tmp_path):
    # A _metadata file built from write_table's collected metadata, read by pyarrow.
    t = pa.table({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    collected = []
    for name in ("f0.parquet", "f1.parquet"):
        meta = []
        parquetry.write_table(t, tmp_path / name, metadata_collector=meta)
        meta[0].set_file_path(name)
        collected.append(meta[0])
    parquetry.write_metadata(t.schema, tmp_path / "_metadata", metadata_collector=collected)
    m = pq.read_metadata(tmp_path / "_metadata")
    assert (m.num_rows, m.num_row_groups) == (6, 2)
    assert [m.row_group(i).column(0).file_path for i in range(2)] == ["f0.parquet", "f1.parquet"]
    other = parquetry.read_metadata(tmp_path / "f0.parquet")
    with pytest.raises(RuntimeError, match="This schema has 2 columns, other has 1"):
        other.append_row_groups(parquetry.read_metadata(_one_column(tmp_path)))


def _one_column(tmp_path):
    path = tmp_path / "one.parquet"
    pq.write_table(pa.table({"a": [1]}), path)
    return path


@pytest.mark.parametrize("unit", ["ms", "us"])
def test_int96_unit_as_pyarrow_within_the_nanosecond_range(unit):
    # The core reads INT96 as nanoseconds and the unit is applied after: equal to pyarrow
    # for the instants nanoseconds can hold (docs/python.md says so for the others).
    path = corpus_dir() / "data/int96_from_spark.parquet"
    want = pq.read_table(path, coerce_int96_timestamp_unit=unit)
    got = parquetry.read_table(path, coerce_int96_timestamp_unit=unit)
    assert got.schema == want.schema
    lo, hi = pa.scalar(-(2**63) + 1, pa.timestamp("ns")).cast(pa.timestamp(unit), safe=False), pa.scalar(
        2**63 - 1, pa.timestamp("ns")).cast(pa.timestamp(unit), safe=False)
    inside = pc.and_(pc.greater_equal(want["a"], lo), pc.less_equal(want["a"], hi))
    assert pc.sum(pc.cast(inside, pa.int64())).as_py() > 0
    assert got.filter(inside).equals(want.filter(inside))


def test_read_options_as_pyarrow(tmp_path):
    # read_dictionary, list_type and binary_type where no stored Arrow schema decides.
    t = pa.table({"s": ["a", "b", "a"], "l": [[1], [2, 3], []], "b": [b"x", b"y", b"z"]})
    path = tmp_path / "r.parquet"
    pq.write_table(t, path, store_schema=False)
    for kwargs in [{"read_dictionary": ["s", "b"]}, {"list_type": pa.LargeListType},
                   {"binary_type": pa.binary_view()}, {"columns": ["s", "s"]}]:
        want = pq.read_table(path, **kwargs)
        got = parquetry.read_table(path, **kwargs)
        assert got.schema == want.schema, kwargs
        assert got.equals(want), kwargs


def test_nested_columns_as_pyarrow(tmp_path):
    # read_table(columns=["s.x"]) gives the child as a column; ParquetFile.read keeps the struct.
    t = pa.table({"s": pa.array([{"x": 1, "y": "a"}, None]), "z": [3, 4]})
    path = tmp_path / "n.parquet"
    pq.write_table(t, path)
    for cols in (["s.x"], ["z", "s.y"], ["s", "z"]):
        assert parquetry.read_table(path, columns=cols).equals(pq.read_table(path, columns=cols)), cols
        assert parquetry.ParquetFile(path).read(columns=cols).equals(pq.ParquetFile(path).read(columns=cols)), cols


def test_enum_column_reads_as_binary_as_in_pyarrow(tmp_path):
    # parquet-java writes Java enums as BYTE_ARRAY with the ENUM logical and converted types;
    # pyarrow reads them as binary. The file: pyarrow's, with the two type bytes of its
    # footer changed from STRING/UTF8 to ENUM (pyarrow writes no ENUM itself).
    import struct
    path = tmp_path / "enum.parquet"
    pq.write_table(pa.table({"e": ["x", "y", None]}), path, store_schema=False, write_statistics=False)
    data = path.read_bytes()
    string = b"\x01e\x25\x00\x4c\x1c\x00\x00"  # name "e", converted_type UTF8, logicalType STRING
    assert data.count(string) == 1 and struct.unpack("<I", data[-8:-4])[0] > 0
    path.write_bytes(data.replace(string, b"\x01e\x25\x08\x4c\x4c\x00\x00"))  # ENUM, ENUM
    assert pq.read_metadata(path).schema.column(0).logical_type.type == "ENUM"
    want = pq.read_table(path)
    assert want.schema.field("e").type == pa.binary()
    assert parquetry.read_table(path).equals(want)
    assert parquetry.ParquetFile(path).schema_arrow == pq.ParquetFile(path).schema_arrow
    assert pa.Table.from_batches(list(parquetry.ParquetFile(path).iter_batches())).equals(want)


def test_duckdb_file_as_pyarrow_reads_it(tmp_path):
    # Another writer's INTERVAL (converted type only), JSON, UUID and string columns: the
    # same table and schema description as pyarrow's.
    duckdb = pytest.importorskip("duckdb")
    path = tmp_path / "d.parquet"
    duckdb.sql(
        "COPY (SELECT INTERVAL 1 DAY + INTERVAL 3 MONTH AS iv, 'a'::VARCHAR AS s, "
        "'{\"a\":1}'::JSON AS j, '4ac7a9e9-607c-4c8a-84f3-843f0191e3fd'::UUID AS u, "
        "DATE '2024-01-02' AS d, 1.5::DECIMAL(9,2) AS dec) "
        f"TO '{path}' (FORMAT PARQUET)"
    )
    assert parquetry.read_table(path).equals(pq.read_table(path))
    got, want = parquetry.read_metadata(path), pq.read_metadata(path)
    for i in range(want.num_columns):
        g, w = got.schema.column(i), want.schema.column(i)
        assert (g.converted_type, g.logical_type.type, str(g.logical_type)) == (
            w.converted_type, w.logical_type.type, str(w.logical_type)), w.name
        gs, ws = got.row_group(0).column(i).statistics, want.row_group(0).column(i).statistics
        if ws is not None and ws.has_min_max:
            assert (gs.min, gs.max) == (ws.min, ws.max), w.name
