#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets in fuzz/corpus/<target>/ (gitignored) from the
# parquet-testing files at ../shared/parquet-testing beside the repository (or
# $PARQUET_TESTING_DIR), plus a few hand-made pages. Safe to rerun: it only adds files, so a
# corpus grown by fuzzing keeps what it found.
#
#   read_file    every data/*.parquet and bad_data/*.parquet, whole
#   footer       the last 64 KiB of each of those files
#   page_header  the first 2 KiB of each file's first column chunk, and two hand-made headers
#   kernels      hand-made pages for every kernel (layout: fuzz_targets/kernels.rs)
#   merge        the read_file seeds, and small dictionary-encoded files of (nearly) unique
#                keys written by pyarrow (SNAPPY, v1 and v2 pages), if python3 has pyarrow
#   write_roundtrip  every data/*.parquet, and merge's pyarrow files
#   read_filtered  the read_file seeds, and small pyarrow files with statistics, a page index
#                and bloom filters over several row groups and pages (what pruning trusts)
#   snappy       small Snappy streams made by Arrow C++ (pyarrow.Codec: text, numbers, runs,
#                random bytes; layout: fuzz_targets/snappy.rs), and the same data plain
set -euo pipefail
fuzz="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$fuzz")"
testing="${PARQUET_TESTING_DIR:-$root/../shared/parquet-testing}"
if [ ! -d "$testing/data" ]; then
    echo "seed.sh: no parquet-testing corpus at $testing (set PARQUET_TESTING_DIR)" >&2
    exit 1
fi
corpus="$fuzz/corpus"
mkdir -p "$corpus"/{read_file,footer,page_header,kernels,merge,write_roundtrip,read_filtered,snappy}

n=0
for f in "$testing"/data/*.parquet "$testing"/bad_data/*.parquet; do
    name="$(basename "$(dirname "$f")")-$(basename "$f")"
    cp "$f" "$corpus/read_file/$name"
    tail -c 65536 "$f" > "$corpus/footer/$name"
    # A file's first column chunk starts right after the 4-byte magic.
    dd if="$f" of="$corpus/page_header/$name" iflag=skip_bytes,count_bytes skip=4 count=2048 status=none
    n=$((n + 1))
done

# Writes the bytes given as hex (spaces ignored) to kernels/ or page_header/.
hex() {
    local dir="$1" name="$2"
    shift 2
    echo "$*" | tr -d ' ' | xxd -r -p > "$corpus/$dir/$name"
}

# kernels: [kernel, param, count (u16 LE), step count, steps...] then the page.
# RLE/bit-packed hybrid, width 3: a run of 8 fives, then 2 bit-packed groups.
hex kernels rle        "00 03 1400 03 05 83 07  10 05  05 88c6fa 88c6fa"
# The same with its 4-byte length prefix (v1 levels).
hex kernels rle_prefix "01 03 1400 02 04 81  09000000 10 05 05 88c6fa 88c6fa"
# Deprecated BIT_PACKED (MSB first), width 3, 16 values.
hex kernels bit_packed "02 03 1000 00  053977 053977"
# PLAIN BYTE_ARRAY: "abc", "", "hello, world!" (long enough for a non-inline view).
hex kernels plain_ba   "03 02 0300 02 01 82  03000000 616263 00000000 0d000000 68656c6c6f2c20776f726c6421"
# PLAIN fixed width 4 (and INT32/INT64/.../BOOLEAN over the same bytes).
hex kernels plain_fixed "04 04 0400 01 05  000102030405060708090a0b0c0d0e0f"
# DELTA_BINARY_PACKED 7, 8, 9, 10, 12 (block 128, 4 miniblocks), as i32, i64 and u32.
dbp="8001 04 05 0e  02 01000000 08000000"
hex kernels dbp_i32    "05 00 0500 02 02 81  $dbp"
hex kernels dbp_i64    "06 00 1000 02 01 82  $dbp"
hex kernels dbp_u32    "07 00 0500 00  $dbp"
# DELTA_LENGTH_BYTE_ARRAY "abc", "", "hello".
hex kernels dlba       "08 02 0300 02 01 81  8001 04 03 06  05 04000000 80000000000000000000000000000000  616263 68656c6c6f"
# DELTA_BYTE_ARRAY "abc", "abx", "ayz", into i32 offsets and into views.
dba="8001 04 03 00  01 02000000 0300000000000000  8001 04 03 06  03 02000000 0c00000000000000  61626378797a"
hex kernels dba        "09 00 0300 02 01 01  $dba"
hex kernels dba_view   "09 02 0300 02 81 01  $dba"
# BYTE_STREAM_SPLIT, width 4, 4 values.
hex kernels bss        "0a 04 0000 02 01 81  000102030405060708090a0b0c0d0e0f"
# PLAIN dictionary gather: starts [0, 7, 11], indexes [0, 1, 1, 0], page "abc", "".
hex kernels gather     "0b 03 0400 00  00000000 07000000 0b000000  00000000 01000000 01000000 00000000  03000000 616263 00000000"

# page_header: a v1 DATA_PAGE (3 values, RLE levels) with a 10-byte body, and a
# DICTIONARY_PAGE of 2 PLAIN values with a 4-byte body (Thrift compact protocol).
hex page_header data_page "15 00 15 14 15 14 2c 15 06 15 00 15 06 15 06 00 00  00000000000000000000"
hex page_header dict_page "15 04 15 08 15 08 4c 15 04 15 00 00 00  01020304"

# read_file: a row group long enough for reads on threads to share it out in lanes (one
# column holding most bytes, small pages, a dictionary column beside it), small on disk.
python3 - "$corpus/read_file" <<'PY' || echo "seed.sh: no pyarrow: no lanes seed" >&2
import sys
import pyarrow as pa, pyarrow.parquet as pq
n = 140_000
t = pa.table({
    "url": [None if i % 13 == 0 else f"u{i % 97}/{i % 5}" for i in range(n)],
    "c": pa.array([i % 4 for i in range(n)], pa.int8()),
})
pq.write_table(t, f"{sys.argv[1]}/lanes.parquet", row_group_size=n, data_page_size=4096,
               use_dictionary=["c"], compression="snappy")
PY

cp "$corpus"/read_file/* "$corpus/merge/"
python3 - "$corpus/merge" <<'PY' || echo "seed.sh: no pyarrow: merge seeds are the read_file ones" >&2
import sys
import pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
keys = [f"key-{i * 7919 % 1000:04}" for i in range(300)]
near = [f"k{i % 290}" for i in range(300)]
t = pa.table({"id": keys, "near": near, "n": pa.array(range(300), pa.int64())})
for v in ("1.0", "2.0"):
    pq.write_table(t, f"{out}/unique-snappy-v{v[0]}.parquet", data_page_version=v, row_group_size=100)
PY

cp "$testing"/data/*.parquet "$corpus/write_roundtrip/"
cp "$corpus"/merge/unique-*.parquet "$corpus/write_roundtrip/" 2>/dev/null || true

cp "$corpus"/read_file/* "$corpus/read_filtered/"
python3 - "$corpus/read_filtered" <<'PY' || echo "seed.sh: no pyarrow: read_filtered seeds are the read_file ones" >&2
import sys, datetime
import pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
n = 600
t = pa.table({
    "id": [f"id-{i * 7919 % 1000:04}" for i in range(n)],
    "mode": [None if i % 11 == 0 else ["AIR", "MAIL", "SHIP", "RAIL"][i % 4] for i in range(n)],
    "k": pa.array([i // 3 for i in range(n)], pa.int64()),
    "x": pa.array([None if i % 7 == 0 else (i % 50) / 4 for i in range(n)], pa.float64()),
    "d": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 90) for i in range(n)]),
    "p": pa.array([i % 1000 for i in range(n)], pa.decimal128(9, 2)),
})
blooms = {"id": {"ndv": 200, "fpp": 0.05}, "k": True, "mode": {"ndv": 8}}
for v in ("1.0", "2.0"):
    pq.write_table(t, f"{out}/pruned-v{v[0]}.parquet", data_page_version=v, row_group_size=200,
                   max_rows_per_page=50, write_page_index=True, bloom_filter_options=blooms,
                   use_dictionary=["mode", "d"], compression="snappy" if v == "1.0" else "none")
PY

python3 - "$corpus/snappy" <<'PY' || echo "seed.sh: no pyarrow: no snappy seeds" >&2
import sys, random
import pyarrow as pa
out = sys.argv[1]
rng = random.Random(1)
data = {
    "text": b"".join(b"https://www.example%d.com/item/%d;" % (i % 7, i % 100) for i in range(120)),
    "hex": b"".join(b"%026x" % rng.getrandbits(104) for _ in range(100)),
    "numbers": b"".join((1000 + i // 3).to_bytes(8, "little") for i in range(400)),
    "runs": b"\0" * 500 + b"ab" * 200 + b"abcdefghijklmnopq" * 30,
    "random": bytes(rng.getrandbits(8) for _ in range(300)),
}
codec = pa.Codec("snappy")
for name, plain in data.items():
    with open(f"{out}/{name}-stream", "wb") as f:
        f.write(b"\2" + codec.compress(plain, asbytes=True))
    with open(f"{out}/{name}-plain", "wb") as f:
        f.write(b"\1" + plain)
PY

echo "seeded from $n files: $(for t in read_file footer page_header kernels merge write_roundtrip read_filtered snappy; do
    printf '%s %s, ' "$t" "$(ls "$corpus/$t" | wc -l)"; done)"
