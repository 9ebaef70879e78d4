"""Reading: every file of parquet-testing that pyarrow reads (flat and nested) gives pyarrow's table."""

import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import assert_tables_equal, corpus_dir, readable

CORPUS = readable()


def test_the_corpus_has_every_readable_file():
    assert len(CORPUS) == 211


@pytest.mark.parametrize("rel", CORPUS)
@pytest.mark.parametrize("threads", [True, False])
def test_read_table_equals_pyarrow(rel, threads):
    path = corpus_dir() / rel
    want = pq.read_table(path)
    got = parquetry.read_table(path, threads=threads)
    assert isinstance(got, pa.Table)
    assert_tables_equal(got, want, rel)


@pytest.mark.parametrize("rel", CORPUS)
def test_memory_mapped_reads_equal_pyarrow(rel):
    path = corpus_dir() / rel
    want = pq.read_table(path, memory_map=True)
    got = parquetry.read_table(path, memory_map=True)
    assert_tables_equal(got, want, rel)
    assert_tables_equal(parquetry.ParquetFile(path, memory_map=True).read(), want, rel)


@pytest.mark.parametrize("rel", CORPUS)
def test_iter_batches_equal_pyarrow_batches(rel):
    path = corpus_dir() / rel
    want = pa.Table.from_batches(list(pq.ParquetFile(path).iter_batches(batch_size=7)), schema=pq.read_schema(path))
    with parquetry.ParquetFile(path) as f:
        batches = list(f.iter_batches(batch_size=7))
        assert all(isinstance(b, pa.RecordBatch) and b.num_rows <= 7 for b in batches)
        got = pa.Table.from_batches(batches, schema=f.schema_arrow)
    assert_tables_equal(got, want, rel)


def test_sources_path_bytes_memoryview_and_file_object(corpus):
    path = corpus / "data/alltypes_plain.parquet"
    want = pq.read_table(path)
    data = path.read_bytes()
    for source in [str(path), path, data, memoryview(data), bytearray(data), io.BytesIO(data), pa.py_buffer(data)]:
        assert_tables_equal(parquetry.read_table(source), want, type(source).__name__)
    with open(path, "rb") as f:
        assert_tables_equal(parquetry.read_table(f), want, "open file")


def test_columns_row_groups_and_read_row_group(corpus):
    path = corpus / "data/alltypes_tiny_pages_plain.parquet"
    want = pq.read_table(path, columns=["string_col", "id"])
    assert_tables_equal(parquetry.read_table(path, columns=["string_col", "id"]), want, "columns")
    assert_tables_equal(parquetry.read_table(path, columns=[9, 0]), want, "positions")
    mr = corpus / "data/byte_stream_split_extended.gzip.parquet"
    with parquetry.ParquetFile(mr) as f, pq.ParquetFile(mr) as p:
        assert f.num_row_groups == p.num_row_groups
        for i in range(f.num_row_groups):
            assert_tables_equal(f.read_row_group(i), p.read_row_group(i), f"row group {i}")
        assert_tables_equal(f.read(row_groups=[0]), p.read_row_groups([0]), "row_groups")


def test_stream_goes_to_pyarrow_and_polars_readers(corpus):
    path = corpus / "data/alltypes_plain.parquet"
    want = pq.read_table(path)
    f = parquetry.ParquetFile(path)
    reader = pa.RecordBatchReader.from_stream(f.iter_batches(batch_size=3))
    assert [b.num_rows for b in reader] == [3, 3, 2]
    assert_tables_equal(pa.table(f.iter_batches()), want, "pa.table(reader)")
    polars = pytest.importorskip("polars")
    df = polars.from_arrow(pa.table(f.iter_batches(columns=["id", "string_col"])))
    assert df["id"].to_list() == want["id"].to_pylist()


def test_a_reader_is_read_once(corpus):
    f = parquetry.ParquetFile(corpus / "data/alltypes_plain.parquet")
    r = f.iter_batches()
    assert r.read_all().num_rows == 8
    assert r.read_all().num_rows == 0  # exhausted, as a pyarrow reader
    r = f.iter_batches()
    assert pa.table(r).num_rows == 8  # the stream is handed over whole
    with pytest.raises(parquetry.ParquetError, match="already consumed"):
        pa.table(r)


def test_binary_type_overrides(corpus):
    path = corpus / "data/alltypes_plain.parquet"
    for name, want in [("large_binary", pa.large_binary()), ("binary_view", pa.binary_view())]:
        t = parquetry.read_table(path, columns=["string_col"], binary_type=name)
        assert t.schema.field("string_col").type == want
        assert t["string_col"].to_pylist() == pq.read_table(path)["string_col"].to_pylist()
    t = parquetry.read_table(path, columns=["string_col"], binary_type="dictionary")
    assert pa.types.is_dictionary(t.schema.field("string_col").type)


def test_metadata_and_schema(corpus):
    # The metadata objects give what pyarrow's give for the same file.
    path = corpus / "data/alltypes_tiny_pages_plain.parquet"
    with parquetry.ParquetFile(path) as f:
        m, p = f.metadata, pq.ParquetFile(path).metadata
        assert (m.num_rows, m.num_row_groups, m.num_columns, m.created_by) == (
            p.num_rows, p.num_row_groups, p.num_columns, p.created_by)
        assert m.metadata == p.metadata
        for i in range(p.num_columns):
            c, w = m.row_group(0).column(i), p.row_group(0).column(i)
            assert (c.path_in_schema, c.physical_type, c.compression, c.total_compressed_size) == (
                w.path_in_schema, w.physical_type, w.compression, w.total_compressed_size)
            assert sorted(c.encodings) == sorted(w.encodings)
            assert c.statistics.to_dict() == w.statistics.to_dict(), c.path_in_schema
            s, ws = m.schema[i], p.schema[i]
            assert (s.name, s.path, s.max_definition_level, s.max_repetition_level, s.physical_type,
                    s.converted_type, s.logical_type.type) == (
                ws.name, ws.path, ws.max_definition_level, ws.max_repetition_level, ws.physical_type,
                ws.converted_type, ws.logical_type.type)
        assert m.to_dict()["row_groups"][0]["num_rows"] == p.to_dict()["row_groups"][0]["num_rows"]
        assert f.schema_arrow == pq.read_schema(path)


def test_metadata_keeps_the_dict_form(corpus):
    # parquetry 0.1's ParquetFile.metadata was a dict; its keys still answer, as pyarrow's values.
    path = corpus / "data/alltypes_plain.parquet"
    m, p = parquetry.ParquetFile(path).metadata, pq.ParquetFile(path).metadata
    assert (m["num_rows"], m["num_row_groups"], m["created_by"]) == (p.num_rows, p.num_row_groups, p.created_by)
    assert m["row_groups"][0]["columns"][0]["path_in_schema"] == p.row_group(0).column(0).path_in_schema
    assert isinstance(m["key_value_metadata"], dict)


def test_one_opened_file_read_from_several_threads_at_once(tmp_path):
    """A ParquetFile's reads share its open handle (positional reads, no shared cursor): reads
    of different columns and row groups from four threads at once each give pyarrow's rows."""
    from concurrent.futures import ThreadPoolExecutor

    n = 200_000
    table = pa.table({"id": pa.array(range(n), pa.int64()), "s": pa.array([f"v{i % 1000}" for i in range(n)]),
                      "x": pa.array([i * 0.25 for i in range(n)])})
    path = tmp_path / "shared.parquet"
    pq.write_table(table, path, row_group_size=20_000)
    pf = parquetry.ParquetFile(path)
    reads = [(["id"], None), (["s", "x"], [1, 3, 5]), (None, [9, 0]), (["x"], list(range(10)))] * 4
    want = [pq.ParquetFile(path).read_row_groups(g, columns=c) if g else pq.read_table(path, columns=c)
            for c, g in reads]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda r: pf.read_row_groups(r[1], columns=r[0], threads=False) if r[1]
                            else pf.read(columns=r[0], threads=False), reads))
    for (c, g), w, t in zip(reads, want, got):
        assert_tables_equal(t, w, f"columns {c}, row groups {g}")
