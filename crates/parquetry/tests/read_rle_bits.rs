//! One-bit RLE/bit-packed data read against pyarrow: the definition levels of flat nullable
//! columns (validity) and RLE booleans, in run shapes that make pyarrow's writer alternate
//! repeated and bit-packed runs of every length, read in batches that end inside runs and
//! inside bit-packed groups (`RleDecoder::decode_bits`, `decode_bits_counted`).

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::path::PathBuf;
use std::process::Command;

use parquetry::read::ReadOptions;
use read_compare::{diff_tables, read_parquetry};

/// Writes the files: columns whose nulls and values come in runs of 1 to 300, random bits,
/// all valid, all null; PLAIN and RLE booleans; v1 and v2 pages; small pages.
const SCRIPT: &str = r#"
import sys, numpy as np, pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
rng = np.random.default_rng(28)
n = 30_011
def runs(max_len):
    bits, v = [], True
    while len(bits) < n:
        bits += [v] * int(rng.integers(1, max_len + 1))
        v = not v
    return np.array(bits[:n])
cols = {}
for name, mask in [("rand", rng.random(n) < 0.1), ("short", runs(9)), ("long", runs(300)),
                   ("none", np.zeros(n, bool)), ("all", np.ones(n, bool))]:
    cols["i_" + name] = pa.array(np.arange(n, dtype=np.int32), mask=mask)
    cols["b_" + name] = pa.array(runs(20) ^ (rng.random(n) < 0.05), mask=mask)
cols["b_req_rand"] = pa.array(rng.random(n) < 0.5)
cols["b_req_runs"] = pa.array(runs(500))
t = pa.table(cols)
bools = [c for c in t.column_names if c.startswith("b_")]
for version in ["1.0", "2.0"]:
    for enc in ["RLE", "PLAIN"]:
        pq.write_table(t, f"{out}/bits_{enc}_v{version}.parquet", use_dictionary=False,
                       column_encoding={c: enc for c in t.column_names if c in bools} | {c: "PLAIN" for c in t.column_names if c not in bools},
                       data_page_version=version, data_page_size=2000, compression="none")
"#;

#[test]
fn one_bit_levels_and_rle_booleans_match_pyarrow() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("parquetry-rle-bits-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(common::python()).arg("-c").arg(SCRIPT).arg(&dir).output().expect("python3");
    assert!(out.status.success(), "writing the files failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let paths: Vec<PathBuf> = ["RLE_v1.0", "RLE_v2.0", "PLAIN_v1.0", "PLAIN_v2.0"]
        .iter()
        .map(|s| dir.join(format!("bits_{s}.parquet")))
        .collect();
    let expected = read_compare::pyarrow_tables("rle-bits", &paths);
    let mut failures = Vec::new();
    for path in &paths {
        let want = expected[path].as_ref().expect("pyarrow reads its own file");
        for batch in [1, 7, 8, 63, 333, 4099, usize::MAX] {
            let diffs = match read_parquetry(path, &ReadOptions::default().with_batch_size(batch)) {
                Err(e) => vec![e],
                Ok(got) => diff_tables(want, &got),
            };
            if !diffs.is_empty() {
                failures.push(format!("{} (batches of {batch}):\n    {}", path.display(), diffs.join("\n    ")));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
