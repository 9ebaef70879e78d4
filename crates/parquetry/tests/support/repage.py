"""Cut a Parquet file's v1 data pages again, every few levels wherever that falls, so that
records begin in one page and end one or many pages later.

Data page v1 allows this (only v2 pages must begin a record), older writers did it, and
readers must join the parts of a record; but the writers installed here (pyarrow, duckdb,
polars) all end pages at record boundaries. This is a writer of that layout, independent of
parquetry: it decodes each column chunk's data pages (levels: RLE/bit-packed hybrid; values:
PLAIN, or dictionary indices), cuts the levels into pages of a cycle of sizes (1 to 200
levels), encodes them again (levels as RLE/bit-packed hybrid runs, or in the deprecated
BIT_PACKED encoding, values as they were) and
rewrites the footer's offsets and sizes (thrift_compact's typed reader and writer; the page
index, bloom filters and page encoding stats, which no longer fit, are dropped). Dictionary
pages are copied as they are.

`repage(src, dst, form)` needs a file of data page v1 pages, one value encoding per column
chunk; it writes v1 pages with RLE or BIT_PACKED levels, or v2 pages (which the format says
must begin a record: Arrow C++ once wrote them split, and readers join them).
"""
import struct

import pyarrow as pa

import parquet_layout
import thrift_compact as tc

# The levels of each new page, in turn.
PAGE_LEVELS = [3, 1, 40, 7, 200, 2, 13, 90, 5, 31]
PLAIN, PLAIN_DICTIONARY, RLE, BIT_PACKED, RLE_DICTIONARY = 0, 2, 3, 4, 8
FIXED_WIDTH = {1: 4, 2: 8, 3: 12, 4: 4, 5: 8}  # INT32, INT64, INT96, FLOAT, DOUBLE


def decode_hybrid(buf, width, n):
    """`n` values of the RLE/bit-packed hybrid encoding."""
    out, pos, mask = [], 0, (1 << width) - 1
    while len(out) < n:
        header, pos = tc.read_varint(buf, pos)
        if header & 1:
            groups = header >> 1
            bits = int.from_bytes(buf[pos:pos + groups * width], "little")
            out.extend((bits >> (k * width)) & mask for k in range(groups * 8))
            pos += groups * width
        else:
            size = (width + 7) // 8
            out.extend([int.from_bytes(buf[pos:pos + size], "little")] * (header >> 1))
            pos += size
    return out[:n]


def encode_hybrid(values, width):
    """The RLE/bit-packed hybrid encoding of `values`: runs of 8 or more equal values as RLE
    runs, the rest as bit-packed groups of 8 (the last one padded with zeros)."""
    out = bytearray()
    if width == 0:
        tc.write_varint(out, len(values) << 1)
        return bytes(out)
    i, n = 0, len(values)
    while i < n:
        j = i
        while j < n and values[j] == values[i]:
            j += 1
        if j - i >= 8:
            tc.write_varint(out, (j - i) << 1)
            out += values[i].to_bytes((width + 7) // 8, "little")
            i = j
            continue
        group = list(values[i:i + 8]) + [0] * max(0, i + 8 - n)
        tc.write_varint(out, (1 << 1) | 1)
        out += sum(v << (k * width) for k, v in enumerate(group)).to_bytes(width, "little")
        i += 8
    return bytes(out)


def encode_bit_packed(values, width):
    """The deprecated BIT_PACKED level encoding: each value in `width` bits, most significant
    bit first, from the first byte's top bit; no length prefix."""
    bits = 0
    for v in values:
        bits = (bits << width) | v
    pad = -(len(values) * width) % 8
    return (bits << pad).to_bytes((len(values) * width + pad) // 8, "big")


def leaves(meta):
    """(max definition level, max repetition level, physical type, type length) of each leaf
    column, in column chunk order (schema elements: 1 type, 2 type_length, 3 repetition,
    5 children)."""
    elements = meta[2]
    out = []

    def walk(i, d, r, top):
        e = elements[i]
        rep = e.get(3, 0)
        if not top:
            d += rep != 0
            r += rep == 2
        i += 1
        if e.get(5, 0) == 0 and not top:
            out.append((d, r, e.get(1), e.get(2, 0)))
            return i
        for _ in range(e.get(5, 0)):
            i = walk(i, d, r, False)
        return i

    walk(0, 0, 0, True)
    return out


def plain_values(data, physical, type_length, n):
    """`n` PLAIN values, each as bytes (booleans as 0 or 1); and the bytes they took."""
    if physical == 0:
        bits = int.from_bytes(data[:(n + 7) // 8], "little")
        return [(bits >> k) & 1 for k in range(n)], (n + 7) // 8
    if physical == 6:
        out, pos = [], 0
        for _ in range(n):
            (size,) = struct.unpack_from("<I", data, pos)
            out.append(data[pos:pos + 4 + size])
            pos += 4 + size
        return out, pos
    width = FIXED_WIDTH.get(physical, type_length)
    return [data[k * width:(k + 1) * width] for k in range(n)], n * width


def encode_plain(values, physical):
    if physical == 0:
        return sum(v << k for k, v in enumerate(values)).to_bytes((len(values) + 7) // 8, "little")
    return b"".join(values)


def split_levels(body, max_level, n):
    """A v1 page's levels of one kind (4-byte length, then the hybrid) and the rest."""
    if max_level == 0:
        return [0] * n, body
    (size,) = struct.unpack_from("<I", body, 0)
    return decode_hybrid(body[4:4 + size], max_level.bit_length(), n), body[4 + size:]


def read_chunk(data, chunk, leaf):
    """A chunk's dictionary page (raw bytes or None), value encoding, and all its levels and
    values."""
    max_def, max_rep, physical, type_length = leaf
    dictionary, encoding, reps, defs, values = None, None, [], [], []
    for page in parquet_layout.pages(data, chunk):
        raw = data[page["offset"]:page["offset"] + page["header_len"] + page["compressed"]]
        if page["type"] == "DICTIONARY_PAGE":
            dictionary = (raw, page["header_len"] + page["uncompressed"])
            continue
        if page["type"] != "DATA_PAGE":
            raise ValueError(f"{chunk['path']}: a {page['type']} page (only v1 pages are re-paged)")
        if encoding not in (None, page["encoding"]):
            raise ValueError(f"{chunk['path']}: encodings {encoding} and {page['encoding']} in one chunk")
        encoding = page["encoding"]
        body = raw[page["header_len"]:]
        if chunk["codec"] != "UNCOMPRESSED":
            body = pa.decompress(body, page["uncompressed"], codec=chunk["codec"].lower()).to_pybytes()
        n = page["num_values"]
        rep, body = split_levels(body, max_rep, n)
        d, body = split_levels(body, max_def, n)
        count = sum(1 for x in d if x == max_def)
        if encoding in (PLAIN_DICTIONARY, RLE_DICTIONARY):
            values.extend(decode_hybrid(body[1:], body[0], count))
        elif encoding == PLAIN:
            values.extend(plain_values(body, physical, type_length, count)[0])
        else:
            raise ValueError(f"{chunk['path']}: value encoding {encoding} is not re-paged")
        reps.extend(rep)
        defs.extend(d)
    return dictionary, encoding, reps, defs, values


def new_pages(chunk, leaf, encoding, reps, defs, values, form):
    """The chunk's data pages cut every PAGE_LEVELS levels: (header + body bytes,
    uncompressed size with the header) each. `form`: "rle" (v1 pages, RLE levels),
    "bit_packed" (v1 pages, BIT_PACKED levels) or "v2" (data page v2)."""
    max_def, max_rep, physical, _ = leaf
    compress = (lambda b: pa.compress(b, codec=chunk["codec"].lower(), asbytes=True)
                if chunk["codec"] != "UNCOMPRESSED" else bytes(b))
    out, at, used, k = [], 0, 0, 0
    while at < len(defs):
        n = min(PAGE_LEVELS[k % len(PAGE_LEVELS)], len(defs) - at)
        k += 1
        levels = []
        for kind, max_level in [(reps, max_rep), (defs, max_def)]:
            if not max_level:
                levels.append(b"")
            elif form == "bit_packed":
                levels.append(encode_bit_packed(kind[at:at + n], max_level.bit_length()))
            elif form == "v2":
                levels.append(encode_hybrid(kind[at:at + n], max_level.bit_length()))
            else:
                encoded = encode_hybrid(kind[at:at + n], max_level.bit_length())
                levels.append(struct.pack("<I", len(encoded)) + encoded)
        count = sum(1 for x in defs[at:at + n] if x == max_def)
        page_values = values[used:used + count]
        if encoding in (PLAIN_DICTIONARY, RLE_DICTIONARY):
            width = max(page_values, default=0).bit_length()
            encoded_values = bytes([width]) + encode_hybrid(page_values, width)
        else:
            encoded_values = encode_plain(page_values, physical)
        header = bytearray()
        if form == "v2":
            # Levels stay uncompressed in front of the compressed values.
            stored = levels[0] + levels[1] + compress(encoded_values)
            size = len(levels[0]) + len(levels[1]) + len(encoded_values)
            rows = sum(1 for r in reps[at:at + n] if r == 0) if max_rep else n
            tc.write_struct_typed(header, {
                1: (tc.T_I32, 3), 2: (tc.T_I32, size), 3: (tc.T_I32, len(stored)),
                8: (tc.T_STRUCT, {1: (tc.T_I32, n), 2: (tc.T_I32, n - count), 3: (tc.T_I32, rows),
                                  4: (tc.T_I32, encoding), 5: (tc.T_I32, len(levels[1])),
                                  6: (tc.T_I32, len(levels[0])),
                                  7: (tc.T_TRUE, chunk["codec"] != "UNCOMPRESSED")})})
        else:
            body = levels[0] + levels[1] + encoded_values
            stored, size = compress(body), len(body)
            levels_encoding = BIT_PACKED if form == "bit_packed" else RLE
            tc.write_struct_typed(header, {
                1: (tc.T_I32, 0), 2: (tc.T_I32, size), 3: (tc.T_I32, len(stored)),
                5: (tc.T_STRUCT, {1: (tc.T_I32, n), 2: (tc.T_I32, encoding), 3: (tc.T_I32, levels_encoding),
                                  4: (tc.T_I32, levels_encoding)})})
        out.append((bytes(header) + stored, len(header) + size))
        at += n
        used += count
    return out


def repage(src, dst, form="rle"):
    """Writes `src` to `dst` with every data page cut again (see the module's comment), as
    `form` says (new_pages)."""
    with open(src, "rb") as f:
        data = f.read()
    (length,) = struct.unpack_from("<I", data, len(data) - 8)
    meta, _ = tc.read_struct_typed(data, len(data) - 8 - length)
    plain_meta = parquet_layout.footer(data)
    columns = leaves(plain_meta)
    out = bytearray(b"PAR1")
    # A typed list is (type, (element type, items)), a typed struct (type, fields).
    for group, rg in zip(parquet_layout.chunks(data, plain_meta), meta[4][1][1]):
        total_uncompressed = total_compressed = 0
        group_start = len(out)
        for chunk, leaf, cc in zip(group["columns"], columns, rg[1][1][1]):
            dictionary, encoding, reps, defs, values = read_chunk(data, chunk, leaf)
            md = cc[3][1]
            start = len(out)
            uncompressed = 0
            if dictionary is not None:
                out += dictionary[0]
                uncompressed += dictionary[1]
                md[11] = (tc.T_I64, start)
            md[9] = (tc.T_I64, len(out))
            for page, size in new_pages(chunk, leaf, encoding, reps, defs, values, form):
                out += page
                uncompressed += size
            md[6] = (tc.T_I64, uncompressed)
            md[7] = (tc.T_I64, len(out) - start)
            for stale in (13, 14, 15):  # page encoding stats, bloom filter offset and length
                md.pop(stale, None)
            cc[2] = (tc.T_I64, start)
            for stale in (4, 5, 6, 7):  # offset index and column index offsets and lengths
                cc.pop(stale, None)
            total_uncompressed += uncompressed
            total_compressed += len(out) - start
        rg[2] = (tc.T_I64, total_uncompressed)
        rg[5] = (tc.T_I64, group_start)
        rg[6] = (tc.T_I64, total_compressed)
    footer = bytearray()
    tc.write_struct_typed(footer, meta)
    out += footer + struct.pack("<I", len(footer)) + b"PAR1"
    with open(dst, "wb") as f:
        f.write(out)
