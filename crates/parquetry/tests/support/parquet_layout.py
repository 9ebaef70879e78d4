"""The layout of a Parquet file as the bytes say it, decoded with thrift_compact.py (no Parquet
library involved): the footer's column chunks, every page header, and the page index
(ColumnIndex and OffsetIndex). Field numbers are those of parquet.thrift.
"""
import struct

import thrift_compact as tc

CODECS = ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"]
PAGE_TYPES = {0: "DATA_PAGE", 1: "INDEX_PAGE", 2: "DICTIONARY_PAGE", 3: "DATA_PAGE_V2"}


def footer(data):
    """The FileMetaData struct of a whole file's bytes."""
    if data[-4:] != b"PAR1":
        raise ValueError("no PAR1 magic at the end")
    (length,) = struct.unpack_from("<I", data, len(data) - 8)
    meta, _ = tc.read_struct(data, len(data) - 8 - length)
    return meta


def chunks(data, meta=None):
    """For each row group, a list of its column chunks: dicts with the path, codec name,
    metadata fields and the page index locations."""
    meta = meta or footer(data)
    out = []
    for rg in meta.get(4, []):
        group = []
        for cc in rg[1]:
            md = cc[3]
            group.append({
                "path": ".".join(p.decode() for p in md[3]),
                "codec": CODECS[md[4]],
                "num_values": md[5],
                "total_uncompressed_size": md[6],
                "total_compressed_size": md[7],
                "data_page_offset": md[9],
                "dictionary_page_offset": md.get(11),
                "statistics": md.get(12),
                "offset_index": (cc.get(4), cc.get(5)),
                "column_index": (cc.get(6), cc.get(7)),
            })
        out.append({"num_rows": rg[3], "columns": group})
    return out


def pages(data, chunk):
    """Every page header of a column chunk, in file order: dicts with the offset, type,
    sizes and, for data pages, the value, null and row counts."""
    start = chunk["dictionary_page_offset"]
    if start is None or start <= 0:
        start = chunk["data_page_offset"]
    end = start + chunk["total_compressed_size"]
    pos, out = start, []
    while pos < end:
        h, body = tc.read_struct(data, pos)
        page = {"offset": pos, "header_len": body - pos, "type": PAGE_TYPES.get(h[1], h[1]),
                "uncompressed": h[2], "compressed": h[3]}
        if 5 in h:  # DataPageHeader
            page.update(num_values=h[5][1], encoding=h[5][2], def_encoding=h[5][3], rep_encoding=h[5][4],
                        statistics=h[5].get(5))
        if 8 in h:  # DataPageHeaderV2
            v2 = h[8]
            page.update(num_values=v2[1], num_nulls=v2[2], num_rows=v2[3], encoding=v2[4],
                        def_len=v2[5], rep_len=v2[6], is_compressed=v2.get(7, True),
                        statistics=v2.get(8))
        if 7 in h:  # DictionaryPageHeader
            page.update(num_values=h[7][1], encoding=h[7][2])
        out.append(page)
        pos = body + h[3]
    return out


def column_index(data, chunk):
    """The ColumnIndex of a chunk as a dict, or None when it has none."""
    offset, length = chunk["column_index"]
    if offset is None:
        return None
    ci, end = tc.read_struct(data, offset)
    if end - offset != length:
        raise ValueError(f"ColumnIndex at {offset}: {end - offset} bytes, footer says {length}")
    return {
        "null_pages": ci[1],
        "min_values": ci[2],
        "max_values": ci[3],
        "boundary_order": ci[4],
        "null_counts": ci.get(5),
    }


def offset_index(data, chunk):
    """The OffsetIndex of a chunk: a list of (offset, compressed_page_size, first_row_index),
    or None."""
    offset, length = chunk["offset_index"]
    if offset is None:
        return None
    oi, end = tc.read_struct(data, offset)
    if end - offset != length:
        raise ValueError(f"OffsetIndex at {offset}: {end - offset} bytes, footer says {length}")
    return [(loc[1], loc[2], loc[3]) for loc in oi[1]]
