//! `parquetry inspect` of a dataset (a folder or a glob): the unified schema, the partition
//! columns, and one line per file (rows, row groups, bytes, partition values), from the
//! footers alone.

use arrow_array::Array;
use serde_json::{json, Value};

/// The report of the dataset at `source`, as JSON.
pub fn gather(source: &str) -> parquetry::Result<Value> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let dataset = parquetry::dataset::DatasetBuilder::new([source]).with_threads(threads).build()?;
    let schema = dataset.schema();
    let fields: Vec<Value> = schema
        .fields()
        .iter()
        .map(|f| json!({"name": f.name(), "arrow_type": f.data_type().to_string(), "nullable": f.is_nullable()}))
        .collect();
    let partitions: Vec<&String> = dataset.partition_fields().iter().map(|f| f.name()).collect();
    let files: Vec<Value> = dataset
        .files()
        .iter()
        .map(|f| {
            let values: serde_json::Map<String, Value> = partitions
                .iter()
                .zip(f.partition_values())
                .map(|(k, v)| {
                    let text = match v.is_null(0) {
                        true => Value::Null,
                        false => Value::String(arrow_cast::display::array_value_to_string(v, 0).unwrap_or_default()),
                    };
                    ((*k).clone(), text)
                })
                .collect();
            json!({
                "path": f.path().display().to_string(),
                "rows": f.metadata().num_rows,
                "row_groups": f.metadata().row_groups.len(),
                "bytes": f.size(),
                "partition": values,
            })
        })
        .collect();
    Ok(json!({
        "dataset": source,
        "files": dataset.files().len(),
        "rows": dataset.num_rows(),
        "bytes": dataset.files().iter().map(|f| f.size()).sum::<u64>(),
        "partition_columns": partitions,
        "schema": fields,
        "file_list": files,
    }))
}

/// The report as text.
pub fn render(report: &Value) -> String {
    let mut out = String::new();
    let n = |k: &str| report[k].as_u64().unwrap_or(0);
    out += &format!(
        "dataset {}: {} files, {} rows, {} bytes\n",
        report["dataset"].as_str().unwrap_or(""),
        n("files"),
        n("rows"),
        n("bytes")
    );
    out += "schema:\n";
    for f in report["schema"].as_array().into_iter().flatten() {
        out += &format!("  {}: {}\n", f["name"].as_str().unwrap_or(""), f["arrow_type"].as_str().unwrap_or(""));
    }
    let parts: Vec<&str> =
        report["partition_columns"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    if !parts.is_empty() {
        out += &format!("partition columns: {}\n", parts.join(", "));
    }
    out += "files:\n";
    for f in report["file_list"].as_array().into_iter().flatten() {
        out += &format!(
            "  {}  rows {}  row groups {}  bytes {}\n",
            f["path"].as_str().unwrap_or(""),
            f["rows"],
            f["row_groups"],
            f["bytes"]
        );
    }
    out
}
