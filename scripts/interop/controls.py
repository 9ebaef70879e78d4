#!/usr/bin/env python3
"""Control files written by pyarrow, to tell a reader's limitation from a parquetry bug.

    controls.py SOURCE.parquet OUT_DIR

Reads SOURCE (a parquetry file of the interop table) with pyarrow and writes it again with
pyarrow under the settings where a reader failed on parquetry's files: LZ4_RAW in v1 and v2
pages (parquet-go), and the dictionary column with DELTA_BYTE_ARRAY / DELTA_LENGTH_BYTE_ARRAY
pages (pyarrow itself). The same readers then run over OUT_DIR.
"""

import os
import sys

import pyarrow.parquet as pq


def main():
    source, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    table = pq.read_table(source)
    common = dict(data_page_size=4096, row_group_size=2500, write_page_index=True, write_statistics=True)
    for version in ("1.0", "2.0"):
        v = "v1" if version == "1.0" else "v2"
        pq.write_table(table, os.path.join(out, f"pyarrow-plain-lz4_raw-{v}.parquet"), compression="lz4",
                       use_dictionary=False, data_page_version=version, **common)
    for encoding in ("DELTA_BYTE_ARRAY", "DELTA_LENGTH_BYTE_ARRAY"):
        pq.write_table(table.select(["dict_utf8"]), os.path.join(out, f"pyarrow-dict_utf8-{encoding.lower()}.parquet"),
                       compression="none", use_dictionary=False, column_encoding={"dict_utf8": encoding}, **common)


if __name__ == "__main__":
    main()
