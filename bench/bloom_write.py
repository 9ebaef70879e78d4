#!/usr/bin/env python3
"""What bloom filters cost a write: parquetry and pyarrow write a file uncompressed on one
thread, with and without bloom filters on every column, alternating; prints the least CPU
time (time.process_time, which a loaded machine disturbs less than wall time) of 8 runs.

Usage: python3 bench/bloom_write.py [FILE (bench/data/strings_plain_none.parquet)]
(with parquetry installed from crates/parquetry-python).
"""

import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

import parquetry

ROUNDS = 8


def main():
    default = Path(__file__).resolve().parent / "data" / "strings_plain_none.parquet"
    path = sys.argv[1] if len(sys.argv) > 1 else str(default)
    table = pq.read_table(path)
    blooms = {name: {} for name in table.column_names}
    scratch = tempfile.TemporaryDirectory()
    out = str(Path(scratch.name) / "out.parquet")
    writers = {
        "parquetry": lambda d, b: parquetry.write_table(table, out, compression="none", use_dictionary=d,
                                                        threads=False, bloom_filter_options=b),
        "pyarrow": lambda d, b: pq.write_table(table, out, compression="none", use_dictionary=d,
                                               bloom_filter_options=b),
    }
    for name, write in writers.items():
        for dictionary in (False, True):
            times = {False: [], True: []}
            for _ in range(ROUNDS):
                for bloom in (False, True):
                    start = time.process_time()
                    write(dictionary, blooms if bloom else None)
                    times[bloom].append(time.process_time() - start)
            off, on = min(times[False]) * 1e3, min(times[True]) * 1e3
            print(f"{name}, dictionary={dictionary}: {off:.0f} ms without bloom filters, {on:.0f} ms with "
                  f"(+{on - off:.0f} ms)")


main()
