#!/usr/bin/env python3
"""Compares parquet-go's read of each interop file with pyarrow's, and prints the summary.

    compare.py DIR GO_JSONL

DIR holds the Parquet files and arrow-rs.tsv (written by the `interop` binary, which reads
every file back with arrow-rs against the data it wrote). GO_JSONL is the output of the Go
reader (scripts/interop/go): one JSON object per file with, per column, SHA-256 digests of
the values in a canonical physical form. This script reads each file with pyarrow (page
checksums verified), computes the same digests, and prints a Markdown table: file, arrow-rs,
pyarrow, parquet-go. Exit status 1 when any reader failed or disagreed.

The canonical form (see go/main.go): `validity` is one byte per value (1 present, 0 null);
`digest` covers the present values concatenated: BOOLEAN one byte, INT32/INT64/FLOAT/DOUBLE
little-endian (floats as bits), BYTE_ARRAY a 4-byte little-endian length and the bytes,
FIXED_LEN_BYTE_ARRAY the bytes (decimals big-endian two's complement, float16 little-endian).
"""

import hashlib
import json
import os
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


# Longest failure text printed per file and reader (arrow-rs lists every failing page).
MAX_DETAIL = 600


def physical_bytes(arr, physical, type_length):
    """The present values of `arr` (no nulls) in the canonical physical form."""
    t = arr.type
    n = len(arr)
    if n == 0:
        return b""
    if pa.types.is_date64(t):
        arr, t = pc.cast(arr, pa.date32()), pa.date32()
    if physical == "BOOLEAN":
        return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=np.uint8).tobytes()
    if physical in ("INT32", "INT64"):
        width = 4 if physical == "INT32" else 8
        if pa.types.is_decimal(t):
            words = np.frombuffer(arr.buffers()[1], dtype="<i8")
            step = t.byte_width // 8
            low = words[arr.offset * step:(arr.offset + n) * step:step]
            return low.astype("<i4" if width == 4 else "<i8").tobytes()
        target = pa.int32() if width == 4 else pa.int64()
        if t.bit_width == width * 8:
            ints = arr.view(target)
        else:
            ints = pc.cast(arr, target)
        return ints.to_numpy().astype("<i4" if width == 4 else "<i8").tobytes()
    if physical == "FLOAT":
        return arr.view(pa.uint32()).to_numpy().astype("<u4").tobytes()
    if physical == "DOUBLE":
        return arr.view(pa.uint64()).to_numpy().astype("<u8").tobytes()
    if physical == "FIXED_LEN_BYTE_ARRAY":
        if pa.types.is_float16(t):
            return arr.view(pa.uint16()).to_numpy().astype("<u2").tobytes()
        if pa.types.is_decimal(t):
            w = t.byte_width
            raw = np.frombuffer(arr.buffers()[1], dtype=np.uint8)[arr.offset * w:(arr.offset + n) * w]
            big = raw.reshape(n, w)[:, ::-1][:, w - type_length:]
            return np.ascontiguousarray(big).tobytes()
        return b"".join(arr.to_pylist())
    if physical == "BYTE_ARRAY":
        out = bytearray()
        for v in arr.to_pylist():
            b = v.encode("utf-8") if isinstance(v, str) else v
            out += len(b).to_bytes(4, "little")
            out += b
        return bytes(out)
    raise ValueError(f"no canonical form for {physical}")


def pyarrow_read(path):
    """pyarrow's read of the file, page checksums verified."""
    return pq.read_table(path, page_checksum_verification=True)


def pyarrow_read_without_arrow_schema(path):
    """pyarrow's read of a copy of the file whose footer key `ARROW:schema` is renamed (same
    length, so the footer stays valid): the columns come back in their Parquet-derived types.
    Used where pyarrow cannot read a column in its stored Arrow type (a dictionary column
    whose pages are DELTA_* encoded: "Not yet implemented: DecodeArrow of DictAccumulator")."""
    data = bytearray(open(path, "rb").read())
    footer_len = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - footer_len
    at = data.find(b"ARROW:schema", start)
    if at < 0:
        raise ValueError("no ARROW:schema key in the footer")
    data[at:at + 12] = b"ARROW:schemX"
    with tempfile.NamedTemporaryFile(suffix=".parquet") as f:
        f.write(data)
        f.flush()
        return pq.read_table(f.name, page_checksum_verification=True)


def pyarrow_digests(path, table):
    """Per column: name, values, nulls, validity digest, values digest, of pyarrow's read."""
    meta = pq.ParquetFile(path)
    out = []
    for i, name in enumerate(table.column_names):
        col = meta.schema.column(i)
        arr = table.column(i).combine_chunks()
        if pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_decode()
        if pa.types.is_string_view(arr.type):
            arr = arr.cast(pa.large_string())
        if pa.types.is_binary_view(arr.type):
            arr = arr.cast(pa.large_binary())
        valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        present = arr.filter(pa.array(valid))
        out.append({
            "name": name,
            "values": len(arr),
            "nulls": int(len(arr) - valid.sum()),
            "validity": hashlib.sha256(valid.astype(np.uint8).tobytes()).hexdigest(),
            "digest": hashlib.sha256(physical_bytes(present, col.physical_type, col.length or 0)).hexdigest(),
        })
    return table.num_rows, out


def compare_go(go, rows, columns):
    """Differences between parquet-go's result and pyarrow's digests (empty when equal)."""
    if go is None:
        return ["no parquet-go result"]
    if go.get("error"):
        return [f"parquet-go: {go['error']}"]
    diffs = []
    if go["rows"] != rows:
        diffs.append(f"rows {go['rows']} vs pyarrow {rows}")
    go_cols = {c["name"]: c for c in go.get("columns", [])}
    for c in columns:
        g = go_cols.get(c["name"])
        if g is None:
            diffs.append(f"{c['name']}: missing")
            continue
        if g.get("error"):
            diffs.append(f"{c['name']}: {g['error']}")
            continue
        what = [k for k in ("values", "nulls", "validity", "digest") if g[k] != c[k]]
        if what:
            diffs.append(f"{c['name']} ({g['physical']}): {', '.join(what)} differ"
                         f" (values {g['values']}/{c['values']}, nulls {g['nulls']}/{c['nulls']})")
        if g["offset_index_pages"] < 0:
            diffs.append(f"{c['name']}: parquet-go found no offset index")
        elif g["pages"] != g["offset_index_pages"]:
            diffs.append(f"{c['name']}: {g['pages']} pages read, offset index lists {g['offset_index_pages']}")
    return diffs


def read_one(directory, name, go_result):
    """pyarrow's read of one file and parquet-go's agreement with it."""
    path = os.path.join(directory, name)
    r = {"name": name, "columns": None}
    try:
        table = pyarrow_read(path)
        r["pyarrow"] = ["OK", ""]
    except Exception as e:  # noqa: BLE001 - every failure is a result to report
        r["pyarrow"] = ["FAIL", f"{type(e).__name__}: {e}"]
        try:
            table = pyarrow_read_without_arrow_schema(path)
            r["pyarrow"][1] += " (parquet-go compared with pyarrow's read without the stored Arrow schema)"
        except Exception as e2:  # noqa: BLE001
            table = None
            r["pyarrow"][1] += f"; without the stored Arrow schema: {type(e2).__name__}: {e2}"
    if table is None:
        r["parquet-go"] = ["n/a", "no pyarrow read to compare with"]
        if (go_result or {}).get("error"):
            r["parquet-go"] = ["FAIL", f"parquet-go: {go_result['error']}"]
        return r
    rows, r["columns"] = pyarrow_digests(path, table)
    diffs = compare_go(go_result, rows, r["columns"])
    r["parquet-go"] = ["OK", ""] if not diffs else ["FAIL", "; ".join(diffs)]
    return r


def check_sets(results):
    """Every file of one encoding set (the name before the first '-') holds the same table:
    pyarrow's digests must agree across its codecs and page versions. The files that differ
    from the majority of their set get a pyarrow failure."""
    sets = {}
    for r in results:
        if r["columns"] is not None:
            sets.setdefault(r["name"].split("-")[0], []).append(r)
    for members in sets.values():
        for i, _ in enumerate(members[0]["columns"]):
            votes = {}
            for r in members:
                c = r["columns"][i]
                votes.setdefault((c["validity"], c["digest"]), []).append(r)
            majority = max(votes.values(), key=len)
            for group in votes.values():
                if group is majority:
                    continue
                for r in group:
                    msg = f"{r['columns'][i]['name']}: values differ from the other files of the set"
                    status, detail = r["pyarrow"]
                    r["pyarrow"] = ["FAIL", f"{detail}; {msg}" if detail else msg]


def main():
    directory, go_jsonl = sys.argv[1], sys.argv[2]
    arrow_rs = {}
    tsv = os.path.join(directory, "arrow-rs.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            next(f)
            for line in f:
                name, status, detail = line.rstrip("\n").split("\t", 2)
                arrow_rs[name] = [status, detail]
    go = {}
    with open(go_jsonl) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                go[r["file"]] = r
    files = sorted(n for n in os.listdir(directory) if n.endswith(".parquet"))
    results = []
    for name in files:
        r = read_one(directory, name, go.get(name))
        r["arrow-rs"] = arrow_rs.get(name, ["n/a", ""]) if arrow_rs else ["n/a", ""]
        results.append(r)
    if arrow_rs:
        check_sets(results)
    readers = ("arrow-rs", "pyarrow", "parquet-go")
    counts = {reader: sum(r[reader][0] == "OK" for r in results) for reader in readers}
    failures = sum(any(r[reader][0] not in ("OK", "n/a") for reader in readers) or r["pyarrow"][0] != "OK"
                   for r in results)
    print("| file | arrow-rs | pyarrow | parquet-go |")
    print("| --- | --- | --- | --- |")
    for r in results:
        print(f"| {r['name']} | {r['arrow-rs'][0]} | {r['pyarrow'][0]} | {r['parquet-go'][0]} |")
    print()
    n = len(files)
    rs = f"arrow-rs {counts['arrow-rs']}/{n}, " if arrow_rs else ""
    print(f"{n} files; OK: {rs}pyarrow {counts['pyarrow']}/{n}, parquet-go {counts['parquet-go']}/{n}")
    details = []
    for r in results:
        for reader in readers:
            status, detail = r[reader]
            if status != "OK" and detail:
                if len(detail) > MAX_DETAIL:
                    detail = detail[:MAX_DETAIL] + f" ... ({len(detail) - MAX_DETAIL} more characters)"
                details.append(f"- `{r['name']}` {reader}: {detail}")
    if details:
        print()
        print("Failures:")
        print()
        print("\n".join(details))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
