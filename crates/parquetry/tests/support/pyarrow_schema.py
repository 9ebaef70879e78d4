"""Print, as JSON, the Arrow schema pyarrow reads for each Parquet file named on stdin.

Types are written in a small canonical grammar shared with the Rust test (tests/arrow_schema.rs)
so the two sides compare without depending on either library's display format.
Extension types are shown as their storage type.
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def canon(t: pa.DataType) -> str:
    if isinstance(t, pa.BaseExtensionType):
        return canon(t.storage_type)
    if pa.types.is_dictionary(t):
        return f"dictionary<{canon(t.index_type)},{canon(t.value_type)}>"
    if pa.types.is_large_list(t):
        return f"large_list<{canon(t.value_type)}>"
    if pa.types.is_fixed_size_list(t):
        return f"fixed_size_list<{canon(t.value_type)},{t.list_size}>"
    if pa.types.is_list(t):
        return f"list<{canon(t.value_type)}>"
    if pa.types.is_map(t):
        return f"map<{canon(t.key_type)},{canon(t.item_type)}>"
    if pa.types.is_struct(t):
        inner = ",".join(f"{t.field(i).name}:{canon(t.field(i).type)}" for i in range(t.num_fields))
        return f"struct<{inner}>"
    if pa.types.is_timestamp(t):
        return f"timestamp[{t.unit},{t.tz or ''}]"
    if pa.types.is_time(t):
        return f"time[{t.unit}]"
    if pa.types.is_duration(t):
        return f"duration[{t.unit}]"
    if pa.types.is_decimal(t):
        return f"decimal{t.bit_width}({t.precision},{t.scale})"
    if pa.types.is_fixed_size_binary(t):
        return f"fixed_size_binary[{t.byte_width}]"
    return {
        "halffloat": "float16", "float": "float32", "double": "float64",
        "date32[day]": "date32", "date64[ms]": "date64",
    }.get(str(t), str(t))


out = {}
for line in sys.stdin:
    path = line.strip()
    if not path:
        continue
    try:
        schema = pq.read_schema(path)
        out[path] = [[f.name, canon(f.type), f.nullable] for f in schema]
    except Exception as e:  # noqa: BLE001 - the test reports which files pyarrow refused
        out[path] = f"error: {e}"
json.dump(out, sys.stdout)
