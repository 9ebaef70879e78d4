"""Read Parquet files with pyarrow and write each table as an Arrow IPC file.

Usage: pyarrow_to_ipc.py OUT_DIR < paths   (one Parquet path per stdin line)

Each file is read with `pq.read_table(path)` and default options, as pyarrow users do, and
written to OUT_DIR as an IPC *file* (`pa.ipc.new_file`, uncompressed). Extension types
(uuid, json, geoarrow, ...) are replaced by their storage type so that the Rust side sees plain
Arrow types. Prints to stdout, and writes to OUT_DIR/index.json, a JSON object
{parquet_path: ipc_path, or "error: <message>" when pyarrow could not read the file}.

One process handles every file so the Rust tests pay for the pyarrow import once.
"""
import json
import os
import re
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def storage_type(t: pa.DataType) -> pa.DataType:
    """`t` with every extension type (at any depth) replaced by its storage type."""
    if isinstance(t, pa.BaseExtensionType):
        return storage_type(t.storage_type)
    if pa.types.is_large_list(t):
        return pa.large_list(t.value_field.with_type(storage_type(t.value_type)))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(t.value_field.with_type(storage_type(t.value_type)), t.list_size)
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(storage_type(t.key_type)),
                       t.item_field.with_type(storage_type(t.item_type)), t.keys_sorted)
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(storage_type(t.value_type)))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(storage_type(t.field(i).type))
                          for i in range(t.num_fields)])
    return t


def storage_array(a: pa.Array) -> pa.Array:
    if isinstance(a, pa.ExtensionArray):
        return storage_array(a.storage)
    target = storage_type(a.type)
    if target != a.type:
        # A nested type holding an extension: same buffers, plain type.
        try:
            return a.view(target)
        except (pa.ArrowException, ValueError, TypeError):
            return a.cast(target)
    return a


def plain_table(table: pa.Table) -> pa.Table:
    fields, columns = [], []
    for field, column in zip(table.schema, table.columns):
        t = storage_type(field.type)
        fields.append(pa.field(field.name, t, field.nullable))
        if t == field.type:
            columns.append(column)
        else:
            columns.append(pa.chunked_array([storage_array(c) for c in column.chunks], type=t))
    return pa.Table.from_arrays(columns, schema=pa.schema(fields, metadata=table.schema.metadata))


def write_ipc(ipc_path: str, table: pa.Table) -> None:
    """Writes `table` as an IPC file. Chunks of a dictionary column with different
    dictionaries (row groups, or a dictionary that fell back mid-chunk) are unified first (same
    values, one dictionary): an IPC file holds one dictionary per field."""
    try:
        _write_ipc(ipc_path, table)
    except pa.ArrowInvalid as e:
        if "Dictionary replacement" not in str(e):
            raise
        _write_ipc(ipc_path, table.unify_dictionaries().combine_chunks())


def _write_ipc(ipc_path: str, table: pa.Table) -> None:
    with pa.OSFile(ipc_path, "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)


def main() -> None:
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    index = {}
    for n, line in enumerate(sys.stdin):
        path = line.rstrip("\n")
        if not path.strip():
            continue
        name = f"{n:04}_" + re.sub(r"[^A-Za-z0-9._-]", "_", path)[-120:] + ".arrow"
        ipc_path = os.path.join(out_dir, name)
        try:
            table = plain_table(pq.read_table(path))
            write_ipc(ipc_path, table)
            index[path] = ipc_path
        except Exception as e:  # noqa: BLE001 - the Rust test reports which files failed
            first = (str(e).splitlines() or [""])[0]
            index[path] = f"error: {type(e).__name__}: {first}"
    with open(os.path.join(out_dir, "index.json"), "w") as f:
        json.dump(index, f)
    json.dump(index, sys.stdout)


if __name__ == "__main__":
    main()
