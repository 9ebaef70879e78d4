"""pyarrow's writer arguments checked as pyarrow checks them and turned into the options
dict of the native writer (``_parquetry.write_table`` / ``NativeWriter``), plus the table
transformations pyarrow makes before writing (timestamp units, ``version="1.0"`` types,
Spark names), so the file holds what pyarrow's would.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from ._errors import ArgumentTypeError, InvalidArgumentError, UnsupportedError

_CODECS = {"NONE", "UNCOMPRESSED", "SNAPPY", "GZIP", "BROTLI", "LZ4", "LZ4_RAW", "LZ4_HADOOP", "ZSTD"}
_ENCODINGS = {"PLAIN", "RLE", "BYTE_STREAM_SPLIT", "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY",
              "DELTA_BYTE_ARRAY"}


def _codec(name):
    if not isinstance(name, str):
        raise ArgumentTypeError(f"compression must be a codec name or a dict of them, not {type(name).__name__}")
    if name.upper() not in _CODECS:
        raise InvalidArgumentError("Unsupported compression: " + name)
    return name.lower()


def _encoding(name):
    if name in ("RLE_DICTIONARY", "PLAIN_DICTIONARY"):
        raise InvalidArgumentError(f"{name!r} is already used by default.")
    if name not in _ENCODINGS:
        raise InvalidArgumentError(f"Unsupported column encoding: {name!r}")
    return name


def _column_list(value, name):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise ArgumentTypeError(f"{name} must be a bool or a list of column names, not {type(value).__name__}")
    columns = list(value)
    if not all(isinstance(c, str) for c in columns):
        raise ArgumentTypeError(f"{name} must be a bool or a list of column names (str)")
    return columns


def native_options(*, compression="snappy", compression_level=None, use_dictionary=True,
                   write_statistics=True, use_byte_stream_split=False, column_encoding=None,
                   data_page_version="1.0", version="2.6", data_page_size=None, max_rows_per_page=None,
                   dictionary_pagesize_limit=None, write_batch_size=None, store_schema=True,
                   write_page_index=False, write_page_checksum=False, sorting_columns=None,
                   store_decimal_as_integer=False, use_deprecated_int96_timestamps=False,
                   use_compliant_nested_type=True, encryption_properties=None, bloom_filter_options=None,
                   use_content_defined_chunking=False, write_time_adjusted_to_utc=False,
                   key_value_metadata=None, threads=1, row_group_size=None):
    """The native writer's options dict for pyarrow's writer arguments; raises as pyarrow
    does on bad ones, and ``NotImplementedError`` (``UnsupportedError``) on an option that
    would change the file in a way parquetry cannot write yet."""
    if version not in ("1.0", "2.4", "2.6"):
        raise InvalidArgumentError(f"Unsupported Parquet format version: {version}")
    if encryption_properties is not None:
        raise UnsupportedError("encryption_properties: writing encrypted files is not supported yet")
    bloom_filters = _bloom_filters(bloom_filter_options)
    cdc = _content_defined_chunking(use_content_defined_chunking)
    if not isinstance(store_decimal_as_integer, bool):
        raise ArgumentTypeError("'store_decimal_as_integer' must be a boolean")
    o = {"threads": threads, "row_group_size": row_group_size, "bloom_filters": bloom_filters}
    if cdc is not None:
        o["content_defined_chunking"] = cdc
    o["time_adjusted_to_utc"] = bool(write_time_adjusted_to_utc)
    o["compliant_nested_types"] = bool(use_compliant_nested_type)
    o["int96_timestamps"] = bool(use_deprecated_int96_timestamps)
    # pyarrow writes format version 1 in the footer for version="1.0", 2 for the others.
    o["format_version"] = 1 if version == "1.0" else 2

    column_compression = {}
    if isinstance(compression, dict):
        o["compression"] = "snappy"
        for column, codec in compression.items():
            column_compression[str(column)] = [_codec(codec), None]
    elif compression is None:
        o["compression"] = "none"
    else:
        o["compression"] = _codec(compression)
    if isinstance(compression_level, dict):
        for column, level in compression_level.items():
            entry = column_compression.setdefault(str(column), [o["compression"], None])
            entry[1] = int(level)
    elif compression_level is not None:
        o["compression_level"] = int(compression_level)
        for entry in column_compression.values():
            entry[1] = int(compression_level)
    o["column_compression"] = {k: tuple(v) for k, v in column_compression.items()}

    if column_encoding is not None and not isinstance(column_encoding, (str, dict)):
        raise ArgumentTypeError("'column_encoding' should be a dictionary or a string")
    column_encoding = dict(column_encoding) if isinstance(column_encoding, dict) else column_encoding
    if isinstance(use_dictionary, bool):
        o["use_dictionary"] = use_dictionary
        if use_dictionary and column_encoding is not None:
            raise InvalidArgumentError("To use 'column_encoding' set 'use_dictionary' to False")
    elif use_dictionary is not None:
        o["use_dictionary"] = False
        columns = _column_list(use_dictionary, "use_dictionary")
        o["column_dictionary"] = {c: True for c in columns}
        for c in columns:
            if isinstance(column_encoding, dict) and column_encoding.get(c) is not None:
                raise InvalidArgumentError("To use 'column_encoding' set 'use_dictionary' to False")

    if isinstance(use_byte_stream_split, bool):
        if use_byte_stream_split:
            if column_encoding is not None:
                raise InvalidArgumentError("'use_byte_stream_split' cannot be passedtogether with 'column_encoding'")
            column_encoding = "BYTE_STREAM_SPLIT"
    elif use_byte_stream_split is not None:
        for column in _column_list(use_byte_stream_split, "use_byte_stream_split"):
            if column_encoding is None:
                column_encoding = {column: "BYTE_STREAM_SPLIT"}
            elif isinstance(column_encoding, dict) and column_encoding.get(column) is None:
                column_encoding[column] = "BYTE_STREAM_SPLIT"
            else:
                raise InvalidArgumentError("'use_byte_stream_split' cannot be passedtogether with 'column_encoding'")
    if isinstance(column_encoding, str):
        o["encoding_all"] = _encoding(column_encoding)
    elif column_encoding:
        o["column_encoding"] = {str(c): _encoding(e) for c, e in column_encoding.items()}

    if isinstance(write_statistics, bool):
        o["write_statistics"] = write_statistics
    elif write_statistics is not None:
        o["write_statistics"] = False
        o["column_statistics"] = {c: True for c in _column_list(write_statistics, "write_statistics")}

    if str(data_page_version) not in ("1.0", "2.0"):
        raise InvalidArgumentError(f"Unsupported Parquet data page version: {data_page_version}")
    o["data_page_version"] = str(data_page_version)
    for key, value in (("data_page_size", data_page_size), ("dictionary_pagesize_limit", dictionary_pagesize_limit),
                       ("write_batch_size", write_batch_size)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ArgumentTypeError(f"{key} must be an int, not {type(value).__name__}")
        if value is not None and key != "write_batch_size":
            o[key] = value
    _check_levels(o)
    if max_rows_per_page is not None:
        if not isinstance(max_rows_per_page, int) or max_rows_per_page < 1:
            raise InvalidArgumentError(f"max_rows_per_page must be a positive int, not {max_rows_per_page!r}")
        o["max_rows_per_page"] = max_rows_per_page
    o["store_schema"] = bool(store_schema)
    o["write_page_index"] = bool(write_page_index)
    o["write_page_checksum"] = bool(write_page_checksum)
    if sorting_columns is not None:
        o["sorting_columns"] = [_sorting_column(c) for c in sorting_columns]
    if key_value_metadata:
        o["key_value_metadata"] = [(str(k), str(v)) for k, v in key_value_metadata.items()]
    return o


def _content_defined_chunking(value):
    """pyarrow's ``use_content_defined_chunking`` as (min, max, norm level), or None."""
    if value is None or value is False:
        return None
    if value is True:
        return (256 * 1024, 1024 * 1024, 0)
    if not isinstance(value, dict):
        raise ArgumentTypeError("'use_content_defined_chunking' should be either boolean or a dictionary")
    keys = set(value)
    unknown = keys - {"min_chunk_size", "max_chunk_size", "norm_level"}
    missing = {"min_chunk_size", "max_chunk_size"} - keys
    if unknown:
        raise InvalidArgumentError(f"Unknown options in 'use_content_defined_chunking': {unknown}")
    if missing:
        raise InvalidArgumentError(f"Missing options in 'use_content_defined_chunking': {missing}")
    return (int(value["min_chunk_size"]), int(value["max_chunk_size"]), int(value.get("norm_level", 0)))


def _bloom_filters(options):
    """pyarrow's ``bloom_filter_options`` (``{column: {"ndv": int, "fpp": float}}``, or
    ``{column: bool}``) as ``{column: (ndv or None, fpp or None)}``, checked as pyarrow
    checks them (same exception types and messages)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ArgumentTypeError("'bloom_filter_options' must be a dictionary")
    out = {}
    for column, opts in options.items():
        ndv = fpp = None
        if isinstance(opts, dict):
            if "ndv" in opts:
                ndv = opts["ndv"]
                if not isinstance(ndv, int):
                    raise ArgumentTypeError(f"'bloom_filter_options:ndv' for column '{column}' must be an int")
                if ndv <= 0:
                    raise InvalidArgumentError(
                        f"'bloom_filter_options:ndv' for column '{column}' must be greater than zero, got {ndv}")
            if "fpp" in opts:
                fpp = opts["fpp"]
                if not isinstance(fpp, float):
                    raise ArgumentTypeError(f"'bloom_filter_options:fpp' for column '{column}' must be a float")
                if not 0.0 < fpp < 1.0:
                    raise InvalidArgumentError(
                        f"'bloom_filter_options:fpp' for column '{column}' must be in (0.0, 1.0), got {fpp}")
        elif isinstance(opts, bool):
            if not opts:
                continue
        else:
            raise ArgumentTypeError(f"'bloom_filter_options:{column}' must be a boolean or a dictionary")
        out[str(column)] = (ndv, fpp)
    return out


# The levels each codec takes (as Arrow C++ checks them); codecs without levels take none.
_LEVELS = {"gzip": (-1, 9), "brotli": (0, 11), "zstd": (-(1 << 17), 22), "lz4": (-(1 << 30), 12),
           "lz4_raw": (-(1 << 30), 12), "lz4_hadoop": (-(1 << 30), 12)}


def _check_levels(o):
    """Refuses a level its codec does not take (pyarrow raises too)."""
    pairs = [(o["compression"], o.get("compression_level"))]
    pairs += [tuple(v) for v in o["column_compression"].values()]
    for codec, level in pairs:
        if level is None:
            continue
        if codec not in _LEVELS:
            raise InvalidArgumentError(f"Codec '{codec}' doesn't support setting a compression level.")
        lo, hi = _LEVELS[codec]
        if not lo <= level <= hi:
            raise InvalidArgumentError(f"compression_level {level} is out of range for {codec} ({lo} to {hi})")


def _sorting_column(c):
    # parquetry's SortingColumn or pyarrow's: anything with their three attributes.
    if not all(hasattr(c, a) for a in ("column_index", "descending", "nulls_first")):
        raise ArgumentTypeError(f"sorting_columns must be SortingColumn objects, not {type(c).__name__}")
    return (int(c.column_index), bool(c.descending), bool(c.nulls_first))


_SPARK_BAD = re.compile(r"[ ,;{}()\n\t=]")


def _sanitized_name(name):
    return _SPARK_BAD.sub("_", name)


class TableTransform:
    """What pyarrow does to a table before writing it, decided once from the schema and the
    options: timestamp units (``coerce_timestamps``; nanoseconds to microseconds before
    format 2.6; neither with INT96 timestamps, which the core writer stores from any unit),
    ``version="1.0"`` integer types, Spark-safe names (``flavor="spark"``). List element names
    (``use_compliant_nested_type``) are the core writer's option, not a change of the table."""

    def __init__(self, schema: pa.Schema, *, version="2.6", coerce_timestamps=None,
                 allow_truncated_timestamps=False, flavor=None, use_deprecated_int96_timestamps=None,
                 use_compliant_nested_type=True, store_decimal_as_integer=False):
        if flavor is not None and flavor != "spark":
            raise InvalidArgumentError(f"Unsupported flavor: {flavor}")
        if coerce_timestamps not in (None, "ms", "us"):
            raise InvalidArgumentError(f"Invalid value for coerce_timestamps: {coerce_timestamps}")
        if use_deprecated_int96_timestamps is None:
            use_deprecated_int96_timestamps = flavor == "spark"
        self.safe = not allow_truncated_timestamps
        self.int96 = bool(use_deprecated_int96_timestamps)
        # store_decimal_as_integer: parquetry always stores decimals of precision <= 18 as
        # INT32/INT64 (pyarrow's True); False, pyarrow's default, would store them as
        # FIXED_LEN_BYTE_ARRAY. The values read back are the same (docs/python.md).
        self.unit = coerce_timestamps
        self.ns_to_us = version in ("1.0", "2.4") and coerce_timestamps is None
        self.v1 = version == "1.0"
        self.spark = flavor == "spark"
        self.schema = self._schema(schema)

    def _type(self, t):
        if pa.types.is_timestamp(t):
            if self.int96:
                # As pyarrow: INT96 stores nanoseconds from any unit; coerce_timestamps and
                # the version's unit limits do not apply.
                return t
            if self.unit and t.unit != self.unit:
                return pa.timestamp(self.unit, t.tz)
            if self.ns_to_us and t.unit == "ns":
                return pa.timestamp("us", t.tz)
            return t
        if self.v1 and pa.types.is_uint32(t):
            return pa.int64()
        if pa.types.is_struct(t):
            return pa.struct([f.with_type(self._type(f.type)) for f in t])
        if pa.types.is_list(t):
            return pa.list_(t.value_field.with_type(self._type(t.value_type)))
        if pa.types.is_large_list(t):
            return pa.large_list(t.value_field.with_type(self._type(t.value_type)))
        return t

    def _schema(self, schema):
        fields = []
        for f in schema:
            f = f.with_type(self._type(f.type))
            if self.spark:
                f = f.with_name(_sanitized_name(f.name))
            fields.append(f)
        return pa.schema(fields, metadata=schema.metadata)

    def applies(self, schema: pa.Schema) -> bool:
        """Whether tables of ``schema`` change."""
        return not self._schema(schema).equals(schema, check_metadata=True)

    def table(self, table):
        """``table`` as pyarrow would write it (a cast that loses data raises, unless
        ``allow_truncated_timestamps``)."""
        target = self._schema(table.schema)
        if target.equals(table.schema, check_metadata=True):
            return table
        columns = [col if col.type == f.type else pc.cast(col, f.type, safe=self.safe)
                   for col, f in zip(table.columns, target)]
        cls = pa.Table if isinstance(table, pa.Table) else pa.RecordBatch
        return cls.from_arrays(columns, schema=target)


def _any_type(t, pred):
    if pred(t):
        return True
    if pa.types.is_struct(t):
        return any(_any_type(f.type, pred) for f in t)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _any_type(t.value_type, pred)
    if pa.types.is_map(t):
        return _any_type(t.key_type, pred) or _any_type(t.item_type, pred)
    if pa.types.is_dictionary(t):
        return _any_type(t.value_type, pred)
    return False
