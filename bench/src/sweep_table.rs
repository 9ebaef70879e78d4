//! The sweep's Markdown report, built from its JSON report (`sweep.rs`) alone, so that what
//! the table shows is exactly what the JSON records: rows are files, columns are batch sizes.

use serde_json::Value;

use crate::sweep_cells::DEFAULT_KEY;

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
    let has_peers = files.iter().any(|e| keys.iter().any(|k| e["results"][k]["pyarrow_stream"].is_object()));
    let pv = &meta["peers_meta"]["versions"];
    let mut out = vec![
        "## Batch-size sweep: reading Parquet into Arrow, batch by batch".to_owned(),
        String::new(),
        format!("- Date: {}", meta["started"].as_str().unwrap_or("unknown")),
        format!(
            "- Machine: {}, {} cores; parquetry {}; arrow-rs `parquet` {}{}",
            meta["cpu"].as_str().unwrap_or("?"),
            meta["nproc"],
            meta["versions"]["parquetry_git"].as_str().unwrap_or("?"),
            meta["versions"]["arrow_rs_parquet"].as_str().unwrap_or("?"),
            match pv["pyarrow"].as_str() {
                Some(v) => format!("; pyarrow {v} (`iter_batches`, use_threads=False)"),
                None => String::new(),
            }
        ),
        format!(
            "- Medians of {} timed rounds after {} warm-up. The Rust cells of a file run in one \
             process, interleaved: round k runs every cell once before round k + 1 runs any; \
             pyarrow runs in bench/sweep_peers.py the same way.",
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

    out.extend(["".into(), "### arrow-rs ÷ parquetry (stream / collect)".into(), "".into()]);
    out.extend(table(
        &key_head("file"),
        per_key(&|_, s| {
            format!("{} / {}", ratio(s, "arrow_rs_over_parquetry_stream"), ratio(s, "arrow_rs_over_parquetry_collect"))
        }),
    ));
    if has_peers {
        out.extend(["".into(), "### pyarrow ÷ parquetry (stream)".into(), "".into()]);
        out.extend(table(&key_head("file"), per_key(&|_, s| ratio(s, "pyarrow_over_parquetry_stream"))));
    }

    let stream_head = if has_peers { "parquetry / arrow-rs / pyarrow" } else { "parquetry / arrow-rs" };
    out.extend(["".into(), format!("### Median ms, stream: {stream_head}"), "".into()]);
    let mut head = key_head("file");
    head.push(format!("arrow-rs default ({})", label(&meta["arrow_rs_default_batch_size"].to_string())));
    let mut rows = per_key(&|_, s| {
        let mut v = vec![ms(&s["parquetry_stream"]), ms(&s["arrow_rs_stream"])];
        if has_peers {
            v.push(ms(&s["pyarrow_stream"]));
        }
        v.join(" / ")
    });
    for (row, e) in rows.iter_mut().zip(&files) {
        row.push(ms(&e["results"][DEFAULT_KEY]["arrow_rs_default_stream"]));
    }
    out.extend(table(&head, rows));

    out.extend(["".into(), "### Median ms, collect: parquetry / arrow-rs".into(), "".into()]);
    out.extend(table(
        &key_head("file"),
        per_key(&|_, s| format!("{} / {}", ms(&s["parquetry_collect"]), ms(&s["arrow_rs_collect"]))),
    ));

    out.extend(["".into(), "### parquetry GB/s of value bytes (stream / collect)".into(), "".into()]);
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
