//! `parquetry inspect`: a file's schema, file-level facts and column chunks (and, with
//! `--pages`, every page header).
//!
//! The facts are gathered once into a JSON value; `--json` prints it as is and the default
//! output renders the same value for people, so the two can never disagree.

use std::fs::File;

use parquetry::format::{self, ColumnChunk, FileMetaData, PageHeader};
use parquetry::page::{has_parquet_816_bug, ChunkSource, PageStream, ReaderSource};
use parquetry::schema::{arrow_schema, SchemaDescriptor, SchemaNode};
use serde_json::{json, Map, Value};

use crate::values::stat_value;

const HELP: &str = "\
parquetry inspect: show what a Parquet file holds, without reading its values

USAGE:
    parquetry inspect [OPTIONS] FILE

A FILE that is a folder or a glob pattern is inspected as a dataset: its unified schema,
partition columns, and each file's rows, row groups and bytes.

Prints the schema as a tree (with the Arrow type each top-level field reads as), the file
facts (rows, row groups, writer, key/value metadata keys) and, for every column chunk of
every row group: physical and logical type, encodings, codec, compressed and uncompressed
bytes, value count, null count, min/max statistics, whether it has a dictionary page, and its
bloom filter (bitset bytes and file offset; 'bad' if its header does not check out).

OPTIONS:
    --pages     Also list every page header of every column chunk: page type, encoding,
                compressed and uncompressed size, value count, and whether a CRC is present
    --json      Print the same facts as one JSON document, for scripts
    -h, --help  Show this help
";

struct Options {
    pages: bool,
    json: bool,
    path: String,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let (mut pages, mut json, mut path) = (false, false, None);
    for a in args {
        match a.as_str() {
            "--pages" => pages = true,
            "--json" => json = true,
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(None);
            }
            s if s.starts_with('-') => return Err(format!("inspect: unknown option '{s}'\n\n{HELP}")),
            s if path.is_none() => path = Some(s.to_owned()),
            s => return Err(format!("inspect: unexpected argument '{s}' (one FILE only)")),
        }
    }
    let path = path.ok_or_else(|| format!("inspect: missing FILE\n\n{HELP}"))?;
    Ok(Some(Options { pages, json, path }))
}

/// Runs the command with the arguments after `inspect`.
pub fn run(args: &[String]) -> Result<(), String> {
    let Some(opts) = parse(args)? else { return Ok(()) };
    let dataset = parquetry::dataset::is_dataset_source(&opts.path);
    let report = match dataset {
        true => crate::inspect_dataset::gather(&opts.path),
        false => gather(&opts),
    }
    .map_err(|e| format!("{}: {e}", opts.path))?;
    let text = if opts.json {
        format!("{}\n", serde_json::to_string_pretty(&report).unwrap_or_default())
    } else if dataset {
        crate::inspect_dataset::render(&report)
    } else {
        render(&report)
    };
    // A reader that closes the pipe early (`| head`) is not an error, and never a panic.
    use std::io::Write;
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing the report: {e}")),
        _ => Ok(()),
    }
}

fn gather(opts: &Options) -> parquetry::Result<Value> {
    if parquetry::store::is_url(&opts.path) {
        let file = parquetry::store::open_url(&opts.path, &parquetry::store::StorageOptions::new())?;
        return gather_from(opts, file.metadata(), file.source());
    }
    let mut file = File::open(&opts.path).map_err(|e| parquetry::Error::io("opening the file", e))?;
    let (meta, _) = format::read_metadata(&mut file)?;
    gather_from(opts, &meta, &ReaderSource::new(file)?)
}

/// The report of a file whose footer is `meta` and whose bytes `source` holds.
fn gather_from<S: ChunkSource>(opts: &Options, meta: &FileMetaData, source: &S) -> parquetry::Result<Value> {
    let file_len = source.len();
    let desc = SchemaDescriptor::from_metadata(meta)?;
    let arrow = arrow_schema(&desc, meta.key_value_metadata.as_deref())?;
    let arrow_types: Vec<String> = arrow.fields().iter().map(|f| f.data_type().to_string()).collect();

    let mut top = 0;
    let schema: Vec<Value> = desc
        .root
        .children
        .iter()
        .map(|n| {
            let v = schema_node(&desc, n, arrow_types.get(top).cloned());
            top += 1;
            v
        })
        .collect();

    let mut row_groups = Vec::with_capacity(meta.row_groups.len());
    for (i, rg) in meta.row_groups.iter().enumerate() {
        let mut columns = Vec::with_capacity(rg.columns.len());
        for (j, chunk) in rg.columns.iter().enumerate() {
            let mut c = column_chunk(&desc, j, chunk);
            c.insert("bloom_filter".into(), bloom_filter(source, chunk));
            if opts.pages {
                let padding = has_parquet_816_bug(meta.created_by.as_deref());
                let pages = chunk_pages(source, chunk, padding)
                    .map_err(|e| e.context(format_args!("row group {i}, column {j}")))?;
                c.insert("pages".into(), Value::Array(pages));
            }
            columns.push(Value::Object(c));
        }
        row_groups.push(json!({
            "index": i,
            "num_rows": rg.num_rows,
            "total_byte_size": rg.total_byte_size,
            "total_compressed_size": rg.total_compressed_size,
            "columns": columns,
        }));
    }
    Ok(json!({
        "file": opts.path,
        "file_size": file_len,
        "version": meta.version,
        "num_rows": meta.num_rows,
        "num_row_groups": meta.row_groups.len(),
        "num_columns": desc.columns.len(),
        "created_by": meta.created_by,
        "key_value_keys": kv_keys(meta),
        "schema": schema,
        "row_groups": row_groups,
    }))
}

fn kv_keys(meta: &FileMetaData) -> Vec<String> {
    meta.key_value_metadata.iter().flatten().map(|kv| kv.key.clone()).collect()
}

fn schema_node(desc: &SchemaDescriptor, node: &SchemaNode, arrow_type: Option<String>) -> Value {
    let e = desc.element(node);
    let mut m = Map::new();
    m.insert("name".into(), json!(e.name));
    m.insert("repetition".into(), json!(e.repetition.map(|r| r.to_string())));
    if let Some(t) = e.physical_type {
        m.insert("physical_type".into(), json!(t.to_string()));
    }
    if let Some(l) = e.type_length.filter(|_| node.leaf.is_some()) {
        m.insert("type_length".into(), json!(l));
    }
    if let Some(l) = &e.logical_type {
        m.insert("logical_type".into(), json!(l.to_string()));
    }
    if let Some(c) = e.converted_type {
        m.insert("converted_type".into(), json!(c.to_string()));
    }
    if let Some(id) = e.field_id {
        m.insert("field_id".into(), json!(id));
    }
    if node.leaf.is_some() {
        m.insert("max_definition_level".into(), json!(node.max_def_level));
        m.insert("max_repetition_level".into(), json!(node.max_rep_level));
    }
    if let Some(t) = arrow_type {
        m.insert("arrow_type".into(), json!(t));
    }
    if node.leaf.is_none() {
        let children: Vec<Value> = node.children.iter().map(|c| schema_node(desc, c, None)).collect();
        m.insert("children".into(), Value::Array(children));
    }
    Value::Object(m)
}

fn column_chunk(desc: &SchemaDescriptor, leaf: usize, chunk: &ColumnChunk) -> Map<String, Value> {
    let c = &desc.columns[leaf];
    let mut m = Map::new();
    m.insert("path".into(), json!(c.dotted_path()));
    m.insert("physical_type".into(), json!(c.physical_type.to_string()));
    m.insert("logical_type".into(), json!(c.logical_type.as_ref().map(|l| l.to_string())));
    let Some(md) = &chunk.meta_data else {
        m.insert("encrypted".into(), json!(chunk.encrypted_column_metadata.is_some()));
        return m;
    };
    let encodings: Vec<String> = md.encodings.iter().map(|e| e.to_string()).collect();
    m.insert("encodings".into(), json!(encodings));
    m.insert("codec".into(), json!(md.codec.to_string()));
    m.insert("compressed_bytes".into(), json!(md.total_compressed_size));
    m.insert("uncompressed_bytes".into(), json!(md.total_uncompressed_size));
    m.insert("num_values".into(), json!(md.num_values));
    let stats = md.statistics.as_ref();
    m.insert("null_count".into(), json!(stats.and_then(|s| s.null_count)));
    m.insert("min".into(), json!(stats.and_then(|s| s.min_bytes()).map(|b| stat_value(c, b))));
    m.insert("max".into(), json!(stats.and_then(|s| s.max_bytes()).map(|b| stat_value(c, b))));
    let has_dict = md.dictionary_page_offset.is_some_and(|o| o > 0)
        || md.encoding_stats.iter().flat_map(|s| s.iter()).any(|s| s.page_type == format::PageType::DICTIONARY_PAGE);
    m.insert("dictionary_page".into(), json!(has_dict));
    if let Some(u) = md.size_statistics.as_ref().and_then(|s| s.unencoded_byte_array_data_bytes) {
        m.insert("unencoded_byte_array_data_bytes".into(), json!(u));
    }
    m
}

/// The chunk's bloom filter: where the footer puts it and, from its header, the bitset's
/// size (or why the header does not check out).
fn bloom_filter<S: ChunkSource>(source: &S, chunk: &ColumnChunk) -> Value {
    let Some(md) = &chunk.meta_data else { return Value::Null };
    let Some(offset) = md.bloom_filter_offset else { return Value::Null };
    let mut m = Map::new();
    m.insert("offset".into(), json!(offset));
    m.insert("length".into(), json!(md.bloom_filter_length));
    let header = u64::try_from(offset).ok().filter(|&o| o < source.len()).and_then(|o| {
        let n = (source.len() - o).min(64) as usize;
        source.read_at(o, n).ok()
    });
    let checked = match header {
        None => Err("the offset is outside the file".to_owned()),
        Some(bytes) => format::bloom_filter::decode_header(bytes.as_slice()).and_then(|(bitset, used)| {
            let end = offset as u64 + (used + bitset) as u64;
            match md.bloom_filter_length {
                _ if end > source.len() => Err(format!("its {bitset}-byte bitset runs past the end of the file")),
                Some(len) if len as i64 != (used + bitset) as i64 => {
                    Err(format!("the footer's length {len} is not the header's {used} and the bitset's {bitset}"))
                }
                _ => Ok(bitset),
            }
        }),
    };
    match checked {
        Ok(bitset) => m.insert("bitset_bytes".into(), json!(bitset)),
        Err(why) => m.insert("error".into(), json!(why)),
    };
    Value::Object(m)
}

fn chunk_pages<S: ChunkSource>(source: &S, chunk: &ColumnChunk, padding: bool) -> parquetry::Result<Vec<Value>> {
    let Some(md) = &chunk.meta_data else { return Ok(Vec::new()) };
    let mut stream = PageStream::new(md, source.len(), padding)?;
    let mut pages = Vec::new();
    while let Some(page) = stream.next_page(source)? {
        pages.push(page_json(&page.header, page.offset));
    }
    Ok(pages)
}

fn page_json(h: &PageHeader, offset: u64) -> Value {
    let (encoding, num_values, extra) = if let Some(d) = &h.data_page_header {
        (
            Some(d.encoding),
            Some(d.num_values),
            json!({
                "definition_level_encoding": d.definition_level_encoding.to_string(),
                "repetition_level_encoding": d.repetition_level_encoding.to_string(),
            }),
        )
    } else if let Some(d) = &h.data_page_header_v2 {
        (
            Some(d.encoding),
            Some(d.num_values),
            json!({
                "num_nulls": d.num_nulls,
                "num_rows": d.num_rows,
                "definition_levels_byte_length": d.definition_levels_byte_length,
                "repetition_levels_byte_length": d.repetition_levels_byte_length,
                "is_compressed": d.is_compressed.unwrap_or(true),
            }),
        )
    } else if let Some(d) = &h.dictionary_page_header {
        (Some(d.encoding), Some(d.num_values), json!({ "is_sorted": d.is_sorted }))
    } else {
        (None, None, json!({}))
    };
    let mut m = Map::new();
    m.insert("offset".into(), json!(offset));
    m.insert("type".into(), json!(h.page_type.to_string()));
    m.insert("encoding".into(), json!(encoding.map(|e| e.to_string())));
    m.insert("compressed_size".into(), json!(h.compressed_page_size));
    m.insert("uncompressed_size".into(), json!(h.uncompressed_page_size));
    m.insert("num_values".into(), json!(num_values));
    m.insert("crc".into(), json!(h.crc.is_some()));
    if let Value::Object(extra) = extra {
        m.extend(extra);
    }
    Value::Object(m)
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => {
            if *b {
                "yes".into()
            } else {
                "no".into()
            }
        }
        other => other.to_string(),
    }
}

fn render(r: &Value) -> String {
    let mut out = String::new();
    out += &format!("file: {} ({} bytes)\n", text(&r["file"]), r["file_size"]);
    out += &format!(
        "rows: {}   row groups: {}   columns: {}   format version: {}\n",
        r["num_rows"], r["num_row_groups"], r["num_columns"], r["version"]
    );
    out += &format!("created by: {}\n", text(&r["created_by"]));
    let keys: Vec<String> = r["key_value_keys"].as_array().into_iter().flatten().map(text).collect();
    out += &format!("key/value metadata: {}\n", if keys.is_empty() { "-".into() } else { keys.join(", ") });
    out += "\nschema:\n";
    for n in r["schema"].as_array().into_iter().flatten() {
        render_node(n, 1, &mut out);
    }
    for rg in r["row_groups"].as_array().into_iter().flatten() {
        out += &format!(
            "\nrow group {}: {} rows, {} bytes compressed, {} uncompressed\n",
            rg["index"],
            rg["num_rows"],
            text(&rg["total_compressed_size"]),
            rg["total_byte_size"]
        );
        let headers = [
            "column",
            "type",
            "encodings",
            "codec",
            "compressed",
            "uncompressed",
            "values",
            "nulls",
            "min",
            "max",
            "dict",
            "bloom",
        ];
        let mut rows = vec![headers.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        for c in rg["columns"].as_array().into_iter().flatten() {
            let ty = match c["logical_type"].as_str() {
                Some(l) => format!("{} {}", text(&c["physical_type"]), l),
                None => text(&c["physical_type"]),
            };
            let enc: Vec<String> = c["encodings"].as_array().into_iter().flatten().map(text).collect();
            rows.push(vec![
                text(&c["path"]),
                ty,
                enc.join(","),
                text(&c["codec"]),
                text(&c["compressed_bytes"]),
                text(&c["uncompressed_bytes"]),
                text(&c["num_values"]),
                text(&c["null_count"]),
                text(&c["min"]),
                text(&c["max"]),
                text(&c["dictionary_page"]),
                bloom_text(&c["bloom_filter"]),
            ]);
        }
        out += &table(&rows, "  ");
        for c in rg["columns"].as_array().into_iter().flatten() {
            let Some(pages) = c["pages"].as_array() else { continue };
            out += &format!("  pages of {}:\n", text(&c["path"]));
            let mut rows = vec![["offset", "type", "encoding", "compressed", "uncompressed", "values", "crc"]
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()];
            for p in pages {
                rows.push(
                    ["offset", "type", "encoding", "compressed_size", "uncompressed_size", "num_values", "crc"]
                        .iter()
                        .map(|k| text(&p[*k]))
                        .collect(),
                );
            }
            out += &table(&rows, "    ");
        }
    }
    out
}

fn bloom_text(b: &Value) -> String {
    match (b["bitset_bytes"].as_u64(), b["offset"].as_i64()) {
        (Some(bytes), Some(at)) => format!("{bytes} B at {at}"),
        (None, Some(_)) => "bad".into(),
        _ => "-".into(),
    }
}

fn render_node(n: &Value, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let rep = text(&n["repetition"]).to_lowercase();
    let mut line = format!("{indent}{rep} ");
    match n["physical_type"].as_str() {
        Some(t) => {
            line += &t.to_lowercase();
            if let Some(l) = n["type_length"].as_i64() {
                line += &format!("({l})");
            }
        }
        None => line += "group",
    }
    line += &format!(" {}", text(&n["name"]));
    let notes: Vec<String> =
        ["logical_type", "converted_type"].iter().filter_map(|k| n[*k].as_str().map(str::to_owned)).collect();
    if !notes.is_empty() {
        line += &format!(" ({})", notes.join(", "));
    }
    if let Some(a) = n["arrow_type"].as_str() {
        line += &format!("  → arrow {a}");
    }
    *out += &line;
    *out += "\n";
    for c in n["children"].as_array().into_iter().flatten() {
        render_node(c, depth + 1, out);
    }
}

fn table(rows: &[Vec<String>], indent: &str) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..cols).map(|i| rows.iter().map(|r| r.get(i).map_or(0, |s| s.chars().count())).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r.iter().enumerate().map(|(i, s)| format!("{s:<w$}", w = widths[i])).collect();
        out += indent;
        out += cells.join("  ").trim_end();
        out += "\n";
    }
    out
}
