"""Bad input: an exception of the right class with a message naming the cause; never a crash."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import parquetry
from conftest import bad_data, corpus_dir


def test_classes_have_the_builtin_bases():
    assert issubclass(parquetry.CorruptFileError, ValueError)
    assert issubclass(parquetry.UnsupportedError, NotImplementedError)
    assert issubclass(parquetry.ParquetIOError, OSError)
    assert issubclass(parquetry.InvalidArgumentError, ValueError)
    assert issubclass(parquetry.ArgumentTypeError, TypeError)
    for c in [parquetry.CorruptFileError, parquetry.UnsupportedError, parquetry.ParquetIOError]:
        assert issubclass(c, parquetry.ParquetError)


def test_missing_path(tmp_path):
    with pytest.raises(parquetry.ParquetIOError, match="no-such.parquet"):
        parquetry.read_table(tmp_path / "no-such.parquet")
    # What a pyarrow user catches, and parquetry's own class.
    with pytest.raises(FileNotFoundError):
        parquetry.ParquetFile(str(tmp_path / "no-such.parquet"))
    with pytest.raises(IsADirectoryError):
        parquetry.ParquetFile(tmp_path)
    with pytest.raises(OSError, match="is a directory"):  # pyarrow's: an OSError
        pq.ParquetFile(tmp_path)


@pytest.mark.parametrize("rel", bad_data())
def test_corrupt_files_raise_cleanly(rel):
    path = corpus_dir() / rel
    try:
        with parquetry.ParquetFile(path) as f:
            f.read()
            list(f.iter_batches(batch_size=3))
    except parquetry.ParquetError as e:
        assert str(e)
    # Some bad_data files are bad only for some readers; reading them is fine too.


def test_not_parquet_and_truncated():
    with pytest.raises(parquetry.CorruptFileError):
        parquetry.read_table(b"not a parquet file at all")
    data = (corpus_dir() / "data/alltypes_plain.parquet").read_bytes()
    with pytest.raises(parquetry.CorruptFileError):
        parquetry.read_table(data[: len(data) // 2])


def test_unknown_column_and_row_group():
    path = corpus_dir() / "data/alltypes_plain.parquet"
    with pytest.raises(parquetry.InvalidArgumentError, match="nope"):
        parquetry.read_table(path, columns=["nope"])
    with pytest.raises(parquetry.InvalidArgumentError):
        parquetry.read_table(path, row_groups=[5])
    with pytest.raises(parquetry.InvalidArgumentError, match="binary_type"):
        parquetry.read_table(path, binary_type="utf32")
    with pytest.raises(parquetry.ArgumentTypeError):
        parquetry.read_table(path, columns="id")


def test_not_arrow_data_and_bad_options(tmp_path):
    with pytest.raises(parquetry.ArgumentTypeError, match="Arrow data"):
        parquetry.write_table({"a": [1]}, tmp_path / "x.parquet")
    with pytest.raises(parquetry.ArgumentTypeError):
        parquetry.read_table(12345)
    t = pa.table({"a": [1, 2]})
    with pytest.raises(parquetry.InvalidArgumentError, match="Unsupported compression: lzma"):
        parquetry.write_table(t, tmp_path / "x.parquet", compression="lzma")
    with pytest.raises(parquetry.InvalidArgumentError, match="data page version"):
        parquetry.write_table(t, tmp_path / "x.parquet", data_page_version="3.0")
    with pytest.raises(parquetry.InvalidArgumentError, match="Unsupported column encoding: 'ZIGZAG'"):
        parquetry.write_table(t, tmp_path / "x.parquet", column_encoding={"a": "ZIGZAG"}, use_dictionary=False)
    with pytest.raises(parquetry.InvalidArgumentError, match="set 'use_dictionary' to False"):
        parquetry.write_table(t, tmp_path / "x.parquet", column_encoding={"a": "PLAIN"})
    with pytest.raises(parquetry.ParquetIOError):
        parquetry.merge([tmp_path / "missing.parquet"], tmp_path / "m.parquet")


def test_closed_file():
    f = parquetry.ParquetFile(corpus_dir() / "data/alltypes_plain.parquet")
    f.close()
    with pytest.raises(parquetry.InvalidArgumentError, match="closed"):
        f.read()


def test_errors_pyarrow_users_match_on(tmp_path):
    # The class and the words pyarrow's own tests match, with the place still named.
    t = pa.table({"f": [1.5, 2.5], "flag": [True, False]})
    with pytest.raises(OSError, match="column 'flag': BYTE_STREAM_SPLIT only supports") as e:
        parquetry.write_table(t, tmp_path / "x.parquet", use_dictionary=False, use_byte_stream_split=True)
    assert isinstance(e.value, parquetry.InvalidArgumentError)  # and a ValueError
    assert not (tmp_path / "x.parquet").exists()
    with pytest.raises(OSError, match="DELTA_BINARY_PACKED encoder only supports INT32 and INT64, not DOUBLE"):
        parquetry.write_table(t, tmp_path / "x.parquet", use_dictionary=False,
                              column_encoding={"f": "DELTA_BINARY_PACKED"})
    (tmp_path / "small.parquet").write_bytes(b"ffff")
    with pytest.raises(pa.ArrowInvalid, match="size is 4 bytes"):
        parquetry.read_table(tmp_path / "small.parquet")
    # A page whose bytes no longer give its CRC: pyarrow's file, one value byte changed.
    pq.write_table(pa.table({"a": [1, 2, 3, 4]}), tmp_path / "crc.parquet", write_page_checksum=True,
                   use_dictionary=False, compression="none")
    data = bytearray((tmp_path / "crc.parquet").read_bytes())
    at = data.index((3).to_bytes(8, "little"))
    data[at] = 5
    (tmp_path / "crc.parquet").write_bytes(bytes(data))
    with pytest.raises(OSError, match="CRC checksum verification"):
        parquetry.read_table(tmp_path / "crc.parquet", page_checksum_verification=True)
