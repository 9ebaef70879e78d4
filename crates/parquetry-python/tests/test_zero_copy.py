"""Zero copy across the boundary.

The native helper ``_read_all_with_addresses`` reads a file like ``read`` does and also
reports the address of every non-empty values/offsets buffer of the arrays it holds, before
they are exported through the C stream. If pyarrow's table, built from that stream, has its
buffers at exactly those addresses, the data was handed over, not copied. (Comparing two
pyarrow reads with each other would prove nothing; this compares with the producer.)
"""

import pyarrow as pa

import parquetry
from conftest import corpus_dir


def buffer_addresses(table: pa.Table):
    out = set()

    def walk(arr):
        for b in arr.buffers():
            if b is not None and b.size > 0:
                out.add(b.address)

    for column in table.columns:
        for chunk in column.chunks:
            walk(chunk)
    return out


def test_pyarrow_holds_the_buffers_the_reader_produced():
    for rel in ["data/alltypes_plain.parquet", "data/delta_length_byte_array.parquet",
                "data/alltypes_tiny_pages_plain.parquet"]:
        f = parquetry.ParquetFile(corpus_dir() / rel)
        stream, rust = f._raw._read_all_with_addresses()
        table = pa.table(stream)
        assert rust, rel
        assert set(rust) <= buffer_addresses(table), rel
