//! The sweep's Markdown report, built from its JSON report (`sweep.rs`) alone, so that what
//! the table shows is exactly what the JSON records: rows are files, columns are batch sizes
//! (or, for the selection and the whole-file peers, their figures).

use serde_json::Value;

use crate::sweep::{batch_key, WHOLE_FILE_KEY};
use crate::sweep_cells::{DEFAULT_KEY, LIMIT_IMPLS, LIMIT_KEY, SELECT_BATCH_SIZE, SELECT_KEY};

/// How a batch-size key reads in a column header.
fn label(key: &str) -> String {
    match key.parse::<u64>() {
        Ok(n) => {
            // Thousands separators: 65536 -> 65,536.
            let digits = n.to_string();
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    out.push(',');
                }
                out.push(c);
            }
            out
        }
        Err(_) if key == "row_group" => "row group".to_owned(),
        Err(_) => key.to_owned(),
    }
}

/// The file entries in the order the files were given.
fn files(report: &Value) -> Vec<&Value> {
    let order = report["meta"]["file_order"].as_array().cloned().unwrap_or_default();
    order.iter().filter_map(|p| p.as_str()).filter_map(|p| report["files"].get(p)).collect()
}

/// Whether the untimed check of `key` passed (rows and checksum equal for both readers).
fn check_ok(entry: &Value, key: &str) -> bool {
    entry["checks"][key]["ok"].as_bool() == Some(true)
}

/// One cell's median in ms, or what went wrong.
fn ms(cell: &Value) -> String {
    match (cell["median_s"].as_f64(), cell["error"].as_str()) {
        (_, Some(_)) => "error".to_owned(),
        (Some(m), _) if cell["rows_ok"].as_bool() == Some(false) => format!("{:.1} ✗ rows", m * 1e3),
        (Some(m), _) if cell["checksum_ok"].as_bool() == Some(false) => format!("{:.1} ✗ checksum", m * 1e3),
        (Some(m), _) => format!("{:.1}", m * 1e3),
        (None, None) => "–".to_owned(),
    }
}

/// A ratio of the slot's `ratios`, "–" when either side is missing.
fn ratio(slot: &Value, name: &str) -> String {
    slot["ratios"][name].as_f64().map_or("–".to_owned(), |r| format!("{r:.2}x"))
}

fn table(head: &[String], rows: Vec<Vec<String>>) -> Vec<String> {
    let mut out = vec![format!("| {} |", head.join(" | ")), format!("|---|{}", "---:|".repeat(head.len() - 1))];
    out.extend(rows.into_iter().map(|r| format!("| {} |", r.join(" | "))));
    out
}

/// The Markdown report: a header, the ratio tables and the absolute times.
pub fn markdown(report: &Value) -> String {
    let meta = &report["meta"];
    let keys: Vec<String> =
        meta["batch_sizes"].as_array().into_iter().flatten().filter_map(|k| k.as_str().map(str::to_owned)).collect();
    let files = files(report);
    let has = |key: &str, imp: &str| files.iter().any(|e| e["results"][key][imp].is_object());
    let has_peers = keys.iter().any(|k| has(k, "pyarrow_stream"));
    let has_threaded_peers = keys.iter().any(|k| has(k, "pyarrow_threads")) || has(WHOLE_FILE_KEY, "polars_read");
    let pm = &meta["peers_meta"];
    let pv = &pm["versions"];
    let mut out = vec![
        "## Batch-size sweep: reading Parquet into Arrow, batch by batch".to_owned(),
        String::new(),
        format!("- Date: {}", meta["started"].as_str().unwrap_or("unknown")),
        format!(
            "- Machine: {}, {} cores; parquetry {}; arrow-rs `parquet` {}{}{}",
            meta["cpu"].as_str().unwrap_or("?"),
            meta["nproc"],
            meta["versions"]["parquetry_git"].as_str().unwrap_or("?"),
            meta["versions"]["arrow_rs_parquet"].as_str().unwrap_or("?"),
            match pv["pyarrow"].as_str() {
                Some(v) => format!(
                    "; pyarrow {v} (`iter_batches`, use_threads=False{})",
                    match pm["pyarrow_cpu_count"].as_u64() {
                        Some(n) => format!("; with use_threads=True on {n} CPU threads"),
                        None => String::new(),
                    }
                ),
                None => String::new(),
            },
            match pv["polars"].as_str() {
                Some(v) => format!("; polars {v} ({} threads)", pm["polars_threads"]),
                None => String::new(),
            }
        ),
        format!(
            "- Medians of {} timed rounds after {} warm-up. The Rust cells of a file run in one \
             process, interleaved: round k runs every cell once before round k + 1 runs any; \
             pyarrow and polars run in bench/sweep_peers.py the same way.",
            meta["runs"], meta["warmup"]
        ),
        "- stream = each batch dropped as it arrives; collect = all batches kept in a Vec (freed \
         after the clock stops). Both readers open the file inside the timed region and output \
         Utf8/Binary. Row group: parquetry batches of a whole row group; arrow-rs and pyarrow \
         batches of the largest row group's row count."
            .to_owned(),
        "- Ratios = peer time ÷ parquetry time, same batch size and mode (> 1: parquetry is \
         faster). ✗ marks a batch size whose check failed (parquetry and arrow-rs disagree on \
         rows or checksum); its ratios are not shown. A pyarrow time marked ✗ read other rows or \
         values than parquetry and has no ratio."
            .to_owned(),
        "- Limit = read + decompress + memcpy, the medians of three separately timed parts: the \
         file's bytes read with `read_at` into one reused 1 MiB buffer; every compressed page \
         decompressed into one reused buffer (file in memory; 0 for uncompressed files); the \
         value bytes copied between two touched buffers."
            .to_owned(),
        format!(
            "- 2 threads: parquetry with `ReadOptions::with_threads({})`, streaming. Row selection: \
             1% of the rows in 100 ranges of equal length, evenly spaced (2,000,000 rows: 200 rows \
             from k × 20,000 + 7,777), streamed in batches of {} rows; arrow-rs with a \
             `RowSelection`, without and with its page index (`PageIndexPolicy::Optional`).",
            meta["threads_t2"],
            label(&SELECT_BATCH_SIZE.to_string())
        ),
    ];
    let key_head = |first: &str| -> Vec<String> {
        std::iter::once(first.to_owned()).chain(keys.iter().map(|k| label(k))).collect()
    };
    // One row per file, one column per batch size; `f` renders a checked slot.
    let per_key = |f: &dyn Fn(&Value, &Value) -> String| -> Vec<Vec<String>> {
        files
            .iter()
            .map(|e| {
                let name = e["name"].as_str().unwrap_or("?").to_owned();
                let cells = keys.iter().map(|k| {
                    if e["error"].is_string() {
                        "error".to_owned()
                    } else if !check_ok(e, k) {
                        "✗".to_owned()
                    } else {
                        f(e, &e["results"][k])
                    }
                });
                std::iter::once(name).chain(cells).collect()
            })
            .collect()
    };
    let section = |out: &mut Vec<String>, title: &str| out.extend(["".into(), format!("### {title}"), "".into()]);

    section(&mut out, "arrow-rs ÷ parquetry (stream / collect)");
    out.extend(table(
        &key_head("file"),
        per_key(&|_, s| {
            format!("{} / {}", ratio(s, "arrow_rs_over_parquetry_stream"), ratio(s, "arrow_rs_over_parquetry_collect"))
        }),
    ));
    if has_peers {
        section(&mut out, "pyarrow ÷ parquetry (stream)");
        out.extend(table(&key_head("file"), per_key(&|_, s| ratio(s, "pyarrow_over_parquetry_stream"))));
    }
    section(&mut out, "parquetry ÷ limit (stream; > 1: slower than the limit)");
    out.extend(table(&key_head("file"), per_key(&|_, s| ratio(s, "parquetry_stream_over_limit"))));
    section(&mut out, "parquetry 1 thread ÷ 2 threads (stream)");
    out.extend(table(&key_head("file"), per_key(&|_, s| ratio(s, "parquetry_1_over_2_threads_stream"))));
    if has_threaded_peers {
        threaded_peers(&mut out, &files, &keys);
    }
    select_table(&mut out, &files, &keys);

    let stream_head = if has_peers { "parquetry / arrow-rs / pyarrow" } else { "parquetry / arrow-rs" };
    section(&mut out, &format!("Median ms, stream: {stream_head}"));
    let mut head = key_head("file");
    head.push(format!("arrow-rs default ({})", label(&meta["arrow_rs_default_batch_size"].to_string())));
    head.push("limit = read + decompress + memcpy".into());
    let mut rows = per_key(&|_, s| {
        let mut v = vec![ms(&s["parquetry_stream"]), ms(&s["arrow_rs_stream"])];
        if has_peers {
            v.push(ms(&s["pyarrow_stream"]));
        }
        v.join(" / ")
    });
    for (row, e) in rows.iter_mut().zip(&files) {
        row.push(ms(&e["results"][DEFAULT_KEY]["arrow_rs_default_stream"]));
        row.push(limit_ms(&e["results"][LIMIT_KEY]));
    }
    out.extend(table(&head, rows));

    let t2_head = if keys.iter().any(|k| has(k, "pyarrow_threads")) {
        "parquetry / pyarrow (use_threads=True)"
    } else {
        "parquetry"
    };
    section(&mut out, &format!("Median ms, stream, 2 threads: {t2_head}"));
    out.extend(table(
        &key_head("file"),
        per_key(&|_, s| {
            let mut v = vec![ms(&s["parquetry_stream_t2"])];
            if s["pyarrow_threads"].is_object() {
                v.push(ms(&s["pyarrow_threads"]));
            }
            v.join(" / ")
        }),
    ));

    section(&mut out, "Median ms, collect: parquetry / arrow-rs");
    out.extend(table(
        &key_head("file"),
        per_key(&|_, s| format!("{} / {}", ms(&s["parquetry_collect"]), ms(&s["arrow_rs_collect"]))),
    ));

    section(&mut out, "parquetry GB/s of value bytes (stream / collect)");
    let gbps = |c: &Value| c["gb_per_s"].as_f64().map_or("–".to_owned(), |g| format!("{g:.3}"));
    let mut head = key_head("file");
    head.insert(1, "value MB".into());
    let mut rows = per_key(&|_, s| format!("{} / {}", gbps(&s["parquetry_stream"]), gbps(&s["parquetry_collect"])));
    for (row, e) in rows.iter_mut().zip(&files) {
        row.insert(1, e["value_bytes"].as_f64().map_or("?".to_owned(), |b| format!("{:.1}", b / 1e6)));
    }
    out.extend(table(&head, rows));

    let errors: Vec<String> = files
        .iter()
        .flat_map(|e| {
            let name = e["name"].as_str().unwrap_or("?").to_owned();
            let file_err = e["error"].as_str().map(|m| format!("- {name}: {m}"));
            let cell_errs = e["results"].as_object().into_iter().flatten().flat_map(move |(k, slot)| {
                let name = name.clone();
                slot.as_object().into_iter().flatten().filter_map(move |(imp, c)| {
                    c["error"].as_str().map(|m| format!("- {name}, batch {}, {imp}: {m}", label(k)))
                })
            });
            file_err.into_iter().chain(cell_errs).collect::<Vec<_>>()
        })
        .collect();
    if !errors.is_empty() {
        out.extend(["".into(), "### Errors".into(), "".into()]);
        out.extend(errors);
    }
    out.push(String::new());
    out.join("\n")
}

/// The limit's ms and its parts: "total (read + decompress + memcpy)".
fn limit_ms(slot: &Value) -> String {
    let parts: Vec<String> = LIMIT_IMPLS
        .iter()
        .map(|p| if slot[*p]["skipped"].is_string() { "0".to_owned() } else { ms(&slot[*p]) })
        .collect();
    match slot["limit_total"]["median_s"].as_f64() {
        Some(t) => format!("{:.1} ({})", t * 1e3, parts.join(" + ")),
        None if slot.is_object() => format!("– ({})", parts.join(" + ")),
        None => "–".to_owned(),
    }
}

/// pyarrow with threads and polars against parquetry on 2 threads, at whole row groups (polars
/// reads the whole file at once, so only that batch size compares).
fn threaded_peers(out: &mut Vec<String>, files: &[&Value], keys: &[String]) {
    let rg = batch_key(0);
    out.extend([
        "".into(),
        "### pyarrow (use_threads=True) and polars ÷ parquetry 2 threads (row group, stream)".into(),
        "".into(),
    ]);
    if !keys.contains(&rg) {
        out.push("(the sweep has no row-group batch size)".into());
        return;
    }
    let head: Vec<String> = [
        "file",
        "pyarrow threads",
        "polars `read_parquet`",
        "polars `scan_parquet().collect()`",
        "ms: parquetry 2 threads / pyarrow threads / polars read / polars scan",
    ]
    .map(str::to_owned)
    .to_vec();
    let rows = files
        .iter()
        .map(|e| {
            let (s, w) = (&e["results"][rg.as_str()], &e["results"][WHOLE_FILE_KEY]);
            let mut row = vec![e["name"].as_str().unwrap_or("?").to_owned()];
            if !check_ok(e, &rg) {
                row.extend(["✗".to_owned(), "✗".to_owned(), "✗".to_owned()]);
            } else {
                row.push(ratio(s, "pyarrow_threads_over_parquetry_t2_stream"));
                row.push(ratio(w, "polars_read_over_parquetry_t2_row_group"));
                row.push(ratio(w, "polars_scan_over_parquetry_t2_row_group"));
            }
            let times = [&s["parquetry_stream_t2"], &s["pyarrow_threads"], &w["polars_read"], &w["polars_scan"]];
            row.push(times.iter().map(|c| ms(c)).collect::<Vec<_>>().join(" / "));
            row
        })
        .collect();
    out.extend(table(&head, rows));
}

/// The row-selection table: parquetry's selected read against its full read at the same batch
/// size (the target is 10x or more) and against arrow-rs's.
fn select_table(out: &mut Vec<String>, files: &[&Value], keys: &[String]) {
    let full_key = batch_key(SELECT_BATCH_SIZE);
    out.extend([
        "".into(),
        format!("### Row selection: 1% of the rows in 100 ranges, {}-row batches (stream)", label(&full_key)),
        "".into(),
    ]);
    let head: Vec<String> = [
        "file",
        "rows selected",
        "parquetry select ms",
        &format!("parquetry full ms ({})", label(&full_key)),
        "full ÷ select (target ≥ 10x)",
        "arrow-rs select ms",
        "arrow-rs ÷ parquetry",
        "arrow-rs + page index ms",
        "arrow-rs + page index ÷ parquetry",
    ]
    .map(str::to_owned)
    .to_vec();
    let rows = files
        .iter()
        .map(|e| {
            let (s, c) = (&e["results"][SELECT_KEY], &e["checks"][SELECT_KEY]);
            let name = e["name"].as_str().unwrap_or("?").to_owned();
            if c["ok"].as_bool() != Some(true) {
                return std::iter::once(name).chain(std::iter::repeat_n("✗".to_owned(), 8)).collect();
            }
            let full = if keys.contains(&full_key) && check_ok(e, &full_key) {
                ms(&e["results"][full_key.as_str()]["parquetry_stream"])
            } else {
                "–".to_owned()
            };
            vec![
                name,
                c["rows"].as_u64().map_or("?".to_owned(), |r| label(&r.to_string())),
                ms(&s["parquetry_select"]),
                full,
                ratio(s, "full_over_select"),
                ms(&s["arrow_rs_select"]),
                ratio(s, "arrow_rs_over_parquetry_select"),
                ms(&s["arrow_rs_select_page_index"]),
                ratio(s, "arrow_rs_page_index_over_parquetry_select"),
            ]
        })
        .collect();
    out.extend(table(&head, rows));
}
