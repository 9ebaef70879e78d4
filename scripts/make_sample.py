"""Write a small sample Parquet file with pyarrow, for the demo.

Strings (dictionary and plain), nullable integers, doubles, timestamps, a list column, two row
groups, page statistics and a page index: enough for `parquetry inspect` to show every part.
"""
import sys
from datetime import datetime, timedelta

import pyarrow as pa
import pyarrow.parquet as pq

out = sys.argv[1] if len(sys.argv) > 1 else "sample.parquet"
n = 10_000
start = datetime(2026, 1, 1)
table = pa.table(
    {
        "id": pa.array([f"{i:016x}-{i * 7919 % 99991:08x}" for i in range(n)]),
        "category": pa.array([f"category_{i % 100:03d}" for i in range(n)]),
        "price": pa.array([None if i % 10 == 0 else i * 0.25 for i in range(n)]),
        "quantity": pa.array([None if i % 7 == 0 else i % 50 for i in range(n)], pa.int32()),
        "ts": pa.array([start + timedelta(seconds=i) for i in range(n)], pa.timestamp("us")),
        "tags": pa.array([[f"t{i % 3}", f"t{i % 5}"] for i in range(n)]),
    }
)
pq.write_table(
    table,
    out,
    row_group_size=n // 2,
    compression="snappy",
    use_dictionary=["category"],
    write_page_index=True,
)
print(f"wrote {out}: {n} rows")
