"""The settings and targets of bench/python_bench.py, shared with its report."""

PARTS = ["read", "write", "merge"]
DEFAULT_FILES = ([f"strings_{layout}_{codec}" for layout in ("plain", "dict", "delta_length", "delta")
                  for codec in ("none", "snappy", "zstd")] + ["blobs_zstd", "numeric_snappy"])
READ_IMPLS = ["parquetry", "parquetry_1t", "pyarrow", "pyarrow_1t", "polars"]
WRITE_IMPLS = ["parquetry", "parquetry_1t", "pyarrow", "polars"]
MERGE_IMPLS = ["parquetry", "pyarrow", "polars"]

ROW_GROUP_ROWS = 1_048_576
DATA_PAGE_SIZE = 1 << 20
DATA_PAGE_ROWS = 20_000
DICT_PAGE_LIMIT = 1 << 20
ZSTD_LEVEL = 1

READ_TARGET_PYARROW = 1.5
READ_TARGET_POLARS = 1.0
WRITE_TARGET_PYARROW = 2.0
MERGE_TARGETS = {"a": 5.0, "b": 20.0}
