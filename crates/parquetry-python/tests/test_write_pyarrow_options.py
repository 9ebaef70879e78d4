"""write_table's pyarrow options that change the file's types and shape, checked against the
file pyarrow writes with the same options: the footer as pyarrow.parquet.read_metadata
describes it, and the values pyarrow reads back (the Rust twin is
crates/parquetry/tests/write_pyarrow_options.rs)."""

import datetime

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquetry


def describe(path):
    meta = pq.read_metadata(path)
    leaves = [(c.path, c.physical_type, str(c.logical_type), c.converted_type)
              for c in (meta.schema.column(i) for i in range(len(meta.schema)))]
    groups = [(meta.row_group(g).num_rows,
               [meta.row_group(g).column(i).is_stats_set for i in range(meta.num_columns)])
              for g in range(meta.num_row_groups)]
    return meta.format_version, str(meta.schema).split("\n", 1)[1], leaves, groups


def same_as_pyarrow(tmp_path, table, read=None, **options):
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "pyarrow.parquet"
    parquetry.write_table(table, ours, **options)
    pq.write_table(table, theirs, **options)
    assert describe(ours) == describe(theirs)
    got, want = pq.read_table(ours, **(read or {})), pq.read_table(theirs, **(read or {}))
    assert got.equals(want), (got, want)
    return got


def test_int96_timestamps(tmp_path):
    table = pa.table({
        "s": pa.array([0, -1, 1_262_304_000, None], pa.timestamp("s")),
        "ms": pa.array([1, -86_400_001, None, 5], pa.timestamp("ms")),
        "ns": pa.array([1, None, -1, 2**62], pa.timestamp("ns", "UTC")),
        "l": pa.array([[1, None], [], None, [-5]], pa.list_(pa.timestamp("us"))),
    })
    got = same_as_pyarrow(tmp_path, table, use_deprecated_int96_timestamps=True)
    assert got.schema.field("s").type == pa.timestamp("ns")  # as pyarrow reads INT96
    # coerce_timestamps does not apply to INT96 (pyarrow's meaning), nor does version's unit.
    same_as_pyarrow(tmp_path, table, use_deprecated_int96_timestamps=True, coerce_timestamps="ms")
    same_as_pyarrow(tmp_path, table, flavor="spark")


def test_int96_beyond_nanoseconds(tmp_path):
    far = [datetime.datetime(1000, 1, 1), datetime.datetime(3000, 1, 1, 0, 0, 1)]
    table = pa.table({"a": pa.array(far, pa.timestamp("s"))})
    got = same_as_pyarrow(tmp_path, table, read={"coerce_int96_timestamp_unit": "s"},
                          use_deprecated_int96_timestamps=True, version="1.0")
    assert got["a"].to_pylist() == far
    # parquetry's reader converts INT96 to the unit as pyarrow does, without passing through ns.
    ours = parquetry.read_table(tmp_path / "ours.parquet", coerce_int96_timestamp_unit="s")
    assert ours["a"].to_pylist() == far


def test_non_compliant_lists(tmp_path):
    table = pa.table({"a": [[1, None], None, []], "b": [[{"x": "1"}], [], None]})
    same_as_pyarrow(tmp_path, table, use_compliant_nested_type=False)
    assert pq.ParquetFile(tmp_path / "ours.parquet").schema.column(0).path == "a.list.item"


@pytest.mark.parametrize("t", [pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns")])
def test_time_adjusted_to_utc(tmp_path, t):
    table = pa.table({"t": pa.array([0, 123, None, 86_399], t)})
    same_as_pyarrow(tmp_path, table, write_time_adjusted_to_utc=True)


def test_empty_tables_are_row_groups(tmp_path):
    table = pa.table({"a": pa.array([], pa.int64()), "s": pa.array([], pa.string())})
    same_as_pyarrow(tmp_path, table)
    with parquetry.ParquetWriter(tmp_path / "three.parquet", table.schema) as w:
        for _ in range(3):
            w.write_table(table)
    meta = pq.read_metadata(tmp_path / "three.parquet")
    assert meta.num_row_groups == 3 and meta.row_group(2).column(0).statistics is None


def test_version_1_0(tmp_path):
    same_as_pyarrow(tmp_path, pa.table({"a": pa.array([1, 2], pa.uint32()), "b": ["x", None]}), version="1.0")
    assert pq.read_metadata(tmp_path / "ours.parquet").format_version == "1.0"


def test_json_and_uuid_without_stored_schema(tmp_path):
    table = pa.table({
        "j": pa.array(['{"a": 1}', None], pa.json_(pa.string())),
        "lj": pa.array(['[1]', "null"], pa.json_(pa.large_string())),
        "u": pa.array([b"\x01" * 16, None], pa.uuid()),
    })
    same_as_pyarrow(tmp_path, table, store_schema=False)
    assert pq.read_schema(tmp_path / "ours.parquet").field("u").type == pa.uuid()
    assert parquetry.read_schema(tmp_path / "ours.parquet", arrow_extensions_enabled=False).field("u").type \
        == pa.binary(16)


def test_input_dictionary_past_the_page_limit_is_kept_whole(tmp_path):
    # A 4 MB Arrow dictionary, past the 1 MiB dictionary page limit, given in 10 batches: kept
    # as the chunk's dictionary (as Arrow C++ writes a dictionary array), so a reader that keeps
    # dictionaries gives the same one back (pyarrow's ARROW-3246 test).
    values = pa.array(["x" * 1000 + f"_{i}" for i in range(4000)])
    chunks = [pa.DictionaryArray.from_arrays(pa.array([(i * 37 + j * 11) % 4000 for j in range(100)], pa.int32()),
                                             values) for i in range(10)]
    table = pa.table([pa.chunked_array(chunks)], names=["f0"])
    parquetry.write_table(table, tmp_path / "ours.parquet")
    assert parquetry.read_table(tmp_path / "ours.parquet").equals(table)
    assert pq.read_table(tmp_path / "ours.parquet").equals(table)
    # A dictionary built from plain values still falls back at the limit (3 MB of values).
    dense = pa.table({"s": [f"{i:01000d}" for i in range(3000)]})
    parquetry.write_table(dense, tmp_path / "dense.parquet", compression="none")
    assert pq.read_table(tmp_path / "dense.parquet").equals(dense)
    chunk = pq.read_metadata(tmp_path / "dense.parquet").row_group(0).column(0)
    # The limit is checked every 1,024 values (as Arrow C++ does): 1 MiB plus at most one step.
    assert chunk.data_page_offset - chunk.dictionary_page_offset < 2**20 + 1024 * 1030


def _page_bodies(path):
    """The data page bodies of the first column chunk, found by the repository's own Thrift
    reader of page headers (tests/support/parquet_layout.py, no Parquet library)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "parquetry" / "tests" / "support"))
    import parquet_layout

    data = Path(path).read_bytes()
    chunk = parquet_layout.chunks(data)[0]["columns"][0]
    return [data[p["offset"] + p["header_len"]:p["offset"] + p["header_len"] + p["compressed"]]
            for p in parquet_layout.pages(data, chunk) if p["type"] == "DATA_PAGE"]


def test_content_defined_chunking(tmp_path):
    # Pages end where the values say: rows inserted near the start leave the later pages as
    # they were (byte for byte), which is what the option is for. pyarrow reads the values.
    values = [(i * 2_654_435_761) % 1_000_003 for i in range(100_000)]
    edited = values[:3_000] + list(range(-700, 0)) + values[3_000:]
    options = dict(use_dictionary=False, compression="none", write_statistics=False,
                   use_content_defined_chunking={"min_chunk_size": 16_384, "max_chunk_size": 65_536})
    for name, v in (("a", values), ("b", edited)):
        table = pa.table({"x": pa.array(v, pa.int64())})
        parquetry.write_table(table, tmp_path / f"{name}.parquet", **options)
        assert pq.read_table(tmp_path / f"{name}.parquet").equals(table)
    a, b = _page_bodies(tmp_path / "a.parquet"), _page_bodies(tmp_path / "b.parquet")
    assert len(a) > 12
    # Each page: 16 KiB to 64 KiB of values (8 bytes each), the last one aside.
    assert all(16_384 <= len(p) <= 65_536 + 8 for p in a[:-1]), [len(p) for p in a]
    assert len(set(a) & set(b)) >= len(a) - 3
    # Without it, the same edit shifts every page after it.
    plain = dict(options, use_content_defined_chunking=False, data_page_size=32_768)
    parquetry.write_table(pa.table({"x": pa.array(values, pa.int64())}), tmp_path / "c.parquet", **plain)
    parquetry.write_table(pa.table({"x": pa.array(edited, pa.int64())}), tmp_path / "d.parquet", **plain)
    assert len(set(_page_bodies(tmp_path / "c.parquet")) & set(_page_bodies(tmp_path / "d.parquet"))) <= 1


def test_content_defined_chunking_arguments(tmp_path):
    t = pa.table({"a": [1, 2]})
    with pytest.raises(ValueError, match="max_chunk_size must be greater than min_chunk_size"):
        parquetry.write_table(t, tmp_path / "x.parquet",
                              use_content_defined_chunking={"min_chunk_size": 10, "max_chunk_size": 5})
    with pytest.raises(ValueError, match="Missing options"):
        parquetry.write_table(t, tmp_path / "x.parquet", use_content_defined_chunking={"min_chunk_size": 10})
    nested = pa.table({"l": [[1], [2]]})
    with pytest.raises(NotImplementedError, match="nested"):
        parquetry.write_table(nested, tmp_path / "x.parquet", use_content_defined_chunking=True)
