//! Filtered reads return exactly the rows duckdb (or, for floating point conditions,
//! pyarrow.compute) finds for the same condition on the same file, prune row groups and pages
//! on sorted columns (counted, not timed), read a small part of the file for a selective
//! condition, and do not prune on statistics or page indexes that do not check out.
//!
//! pyarrow writes the files at test time (`support/filter_cases.py`): 100,000 rows in 10 row
//! groups of small pages, one file with a page index and one without.

mod common;
#[path = "common/filter_files.rs"]
mod filter_files;
#[path = "common/read_compare.rs"]
mod read_compare;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use arrow_array::cast::AsArray;
use arrow_schema::TimeUnit;
use filter_files::{files, ids, read, rewrite, SCRIPT};
use parquetry::filter::{col, lit, Literal, Predicate};
use parquetry::read::ReadOptions;
use read_compare::{diff_tables, Table};

/// A condition, in parquetry's terms and in the reference engine's.
struct Case {
    name: &'static str,
    predicate: Predicate,
    engine: &'static str,
    expr: &'static str,
}

fn duck(name: &'static str, predicate: Predicate, expr: &'static str) -> Case {
    Case { name, predicate, engine: "duckdb", expr }
}

fn pyarrow(name: &'static str, predicate: Predicate, expr: &'static str) -> Case {
    Case { name, predicate, engine: "pyarrow", expr }
}

const MAR_1_2020: i32 = 18322;
const JUN_2_2021_S: i64 = 1_622_592_000;
const JUN_1_2021_0030_S: i64 = 1_622_507_400;

fn cases() -> Vec<Case> {
    let date = Literal::Date;
    let seconds = |value| Literal::Timestamp { value, unit: TimeUnit::Second };
    vec![
        duck("id_range", col("id").between(25_000, 25_099), "id BETWEEN 25000 AND 25099"),
        duck("id_point", col("id").eq(77_777), "id = 77777"),
        duck("id_lt_fraction", col("id").lt(10.5), "id < 10.5"),
        duck("id_or", col("id").lt(100).or(col("id").ge(99_950)), "id < 100 OR id >= 99950"),
        duck("k_eq", col("k").eq(500), "k = 500"),
        duck("k_ne", col("k").ne(3), "k <> 3"),
        duck("k_in", col("k").is_in([1, 2, 3, 999]), "k IN (1, 2, 3, 999)"),
        duck("k_empty_in", col("k").is_in(Vec::<i32>::new()), "false"),
        duck("k_null", col("k").is_null(), "k IS NULL"),
        duck("k_not_null_and", col("k").is_not_null().and(col("id").lt(300)), "k IS NOT NULL AND id < 300"),
        duck("not_k_lt", !col("k").lt(500), "NOT (k < 500)"),
        duck("not_k_in_or_null", !(col("k").is_in([5, 6]).or(col("k").is_null())), "NOT (k IN (5, 6) OR k IS NULL)"),
        duck("s_eq", col("s").eq("key_054321"), "s = 'key_054321'"),
        duck("s_prefix", col("s").starts_with("key_0123"), "s LIKE 'key_0123%'"),
        duck("s_gt", col("s").gt("key_099990"), "s > 'key_099990'"),
        duck("cat_in", col("cat").is_in(["cherry", "\u{e9}clair"]), "cat IN ('cherry', '\u{e9}clair')"),
        duck("cat_not_prefix", !col("cat").starts_with("ap"), "NOT (cat LIKE 'ap%')"),
        duck("cat_ne", col("cat").ne("banana"), "cat <> 'banana'"),
        duck("cat_unicode_gt", col("cat").gt("zebra"), "cat > 'zebra'"),
        duck(
            "d_range",
            col("d").between(date(MAR_1_2020), date(MAR_1_2020 + 4)),
            "d BETWEEN DATE '2020-03-01' AND DATE '2020-03-05'",
        ),
        duck("ts_ge", col("ts").ge(seconds(JUN_2_2021_S)), "ts >= TIMESTAMP '2021-06-02 00:00:00'"),
        duck(
            "ts_lt_ns",
            col("ts")
                .lt(Literal::Timestamp { value: JUN_1_2021_0030_S * 1_000_000_000 + 1500, unit: TimeUnit::Nanosecond }),
            "ts < TIMESTAMP '2021-06-01 00:30:00.0000015'",
        ),
        duck("dec_gt", col("dec").gt(Literal::Decimal { unscaled: 12_345, scale: 2 }), "dec > 123.45"),
        duck("dec_eq_int", col("dec").eq(5), "dec = 5"),
        duck("dec_le_finer", col("dec").le(Literal::Decimal { unscaled: 12_345, scale: 3 }), "dec <= 12.345"),
        duck("u_big", col("u").gt(lit(u64::MAX / 2)), "u > 9223372036854775807"),
        duck("rec_a", col("rec.a").eq(7), "rec.a = 7"),
        duck("rec_b_prefix", col("rec.b").starts_with("b01"), "rec.b LIKE 'b01%'"),
        duck(
            "mixed",
            col("k")
                .lt(10)
                .or(col("cat").eq("apple"))
                .and(col("d").ge(date(MAR_1_2020)))
                .and(!col("s").starts_with("key_09")),
            "(k < 10 OR cat = 'apple') AND d >= DATE '2020-03-01' AND NOT (s LIKE 'key_09%')",
        ),
        duck("cat_contains", col("cat").contains("err"), "cat LIKE '%err%'"),
        duck("s_contains", col("s").contains("999"), "s LIKE '%999%'"),
        duck("not_cat_contains", !col("cat").contains("an"), "NOT (cat LIKE '%an%')"),
        duck("grp_eq", col("grp").eq("mid_3"), "grp = 'mid_3'"),
        duck("grp_in", col("grp").is_in(["mid_3", "mid_7", "nope"]), "grp IN ('mid_3', 'mid_7', 'nope')"),
        duck("grp_prefix", col("grp").starts_with("mid_1"), "grp LIKE 'mid_1%'"),
        duck("grp_none", col("grp").eq("bbb"), "grp = 'bbb'"),
        pyarrow("f_gt", col("f").gt(50.0), "pc.field('f') > 50.0"),
        pyarrow("f_ne", col("f").ne(0.0), "pc.field('f') != 0.0"),
        pyarrow("f_not_lt", !col("f").lt(0.0), "~(pc.field('f') < 0.0)"),
        pyarrow("f_eq_neg_zero", col("f").eq(-0.0), "pc.field('f') == -0.0"),
        pyarrow("f_inf", col("f").ge(f64::INFINITY), "pc.field('f') >= float('inf')"),
        pyarrow("f32_eq", col("f32").eq(12.5), "pc.field('f32') == 12.5"),
        pyarrow("f_in", col("f").is_in([1.5, -100.0]), "pc.field('f').isin([1.5, -100.0])"),
        pyarrow("f_eq_zero", col("f").eq(0.0), "pc.field('f') == 0.0"),
        // (pyarrow's `isin` tells -0.0 from 0.0; `==` does not, as SQL and parquetry.)
        pyarrow("f_in_zero", col("f").is_in([-0.0, 7.5]), "(pc.field('f') == -0.0) | (pc.field('f') == 7.5)"),
        pyarrow("f_absent", col("f").eq(0.05), "pc.field('f') == 0.05"),
        pyarrow("f32_absent", col("f32").eq(0.1), "pc.field('f32') == pa.scalar(0.1, pa.float32())"),
    ]
}

/// The reference engines' matching ids for each case on `path`.
fn answers(path: &Path, cases: &[Case]) -> HashMap<String, Vec<i64>> {
    let mut child = Command::new(common::python())
        .args([SCRIPT, "answer", path.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 with duckdb and pyarrow");
    let input: serde_json::Map<String, serde_json::Value> =
        cases.iter().map(|c| (c.name.to_owned(), serde_json::json!([c.engine, c.expr]))).collect();
    child.stdin.take().unwrap().write_all(serde_json::Value::Object(input).to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "filter_cases.py answer: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    cases
        .iter()
        .map(|c| (c.name.to_owned(), v[c.name].as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()))
        .collect()
}

/// The rows of `whole` at `ids` (which are row numbers).
fn rows_at(whole: &Table, ids: &[i64]) -> Table {
    let mut out = whole.slice(0, 0);
    let mut i = 0;
    while i < ids.len() {
        let mut j = i + 1;
        while j < ids.len() && ids[j] == ids[j - 1] + 1 {
            j += 1;
        }
        out = out.append(&whole.slice(ids[i] as usize, j - i));
        i = j;
    }
    out
}

#[test]
fn filtered_reads_return_the_reference_engines_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, plain) = files();
    let cases = cases();
    let want = answers(indexed, &cases);
    let whole = read_compare::pyarrow_tables("filter", std::slice::from_ref(indexed)).remove(indexed).unwrap().unwrap();
    for path in [indexed, plain] {
        let bytes = std::fs::read(path).unwrap();
        for case in &cases {
            let expected = &want[case.name];
            for batch_size in [65_536, 3_000] {
                let options = ReadOptions::default().with_batch_size(batch_size).with_filter(case.predicate.clone());
                let (batches, metrics, _) = read(&bytes, options).unwrap_or_else(|e| panic!("{}: {e}", case.name));
                let got = ids(&batches);
                assert_eq!(
                    got.len(),
                    expected.len(),
                    "{} on {}: {} ({})",
                    case.name,
                    path.display(),
                    case.predicate,
                    metrics
                );
                assert_eq!(&got, expected, "{} on {}", case.name, path.display());
                assert_eq!(metrics.rows_selected, expected.len() as u64, "{}", case.name);
                assert!(batches.iter().all(|b| b.num_rows() <= batch_size && b.num_rows() > 0));
                // Every column's values, against pyarrow's read, where few enough runs.
                if let (true, Some(first)) = (expected.len() < 3_000 && batch_size == 3_000, batches.first()) {
                    let table = Table::from_batches(&first.schema(), &batches).unwrap();
                    let diffs = diff_tables(&rows_at(&whole, expected), &table);
                    assert!(diffs.is_empty(), "{}: {diffs:?}", case.name);
                }
            }
        }
    }
}

#[test]
fn sorted_columns_prune_row_groups_and_pages_and_read_little() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, plain) = files();
    let bytes = std::fs::read(indexed).unwrap();
    let (_, _, all_bytes) = read(&bytes, ReadOptions::default()).unwrap();
    let (batches, m, read_bytes) =
        read(&bytes, ReadOptions::default().with_filter(col("id").between(25_000, 25_099))).unwrap();
    assert_eq!(ids(&batches), (25_000..25_100).collect::<Vec<_>>());
    assert_eq!((m.row_groups_total, m.row_groups_pruned), (10, 9), "{m}");
    assert!(m.pages_pruned > 0 && m.pages_pruned < m.pages_total, "{m}");
    assert!(m.rows_candidate < 2_000 && m.rows_decoded == 100, "{m}");
    assert!(m.index_bytes_read > 0);
    assert!(read_bytes * 20 < all_bytes, "read {read_bytes} of a whole read's {all_bytes} bytes");
    // Without a page index, statistics alone prune the row groups.
    let bytes = std::fs::read(plain).unwrap();
    let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(col("id").between(25_000, 25_099))).unwrap();
    assert_eq!(ids(&batches).len(), 100);
    assert_eq!((m.row_groups_pruned, m.pages_total, m.rows_candidate), (9, 0, 10_000), "{m}");
    // A string prefix on a sorted column and a date range prune as well.
    let bytes = std::fs::read(indexed).unwrap();
    for p in
        [col("s").starts_with("key_0123"), col("d").between(Literal::Date(MAR_1_2020), Literal::Date(MAR_1_2020 + 4))]
    {
        let (_, m, _) = read(&bytes, ReadOptions::default().with_filter(p.clone())).unwrap();
        assert_eq!(m.row_groups_pruned, 9, "{p}: {m}");
        assert!(m.pages_pruned > 0, "{p}: {m}");
    }
}

#[test]
fn projections_row_selections_and_threads_combine_with_a_filter() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, _) = files();
    let bytes = std::fs::read(indexed).unwrap();
    let p = col("k").eq(500).or(col("id").lt(50));
    let (all, _, _) = read(&bytes, ReadOptions::default().with_filter(p.clone())).unwrap();
    let want = ids(&all);
    // The predicate's columns are read for it and dropped from the output.
    let options = ReadOptions::default().with_columns(["s"]).with_filter(p.clone());
    let (batches, _, _) = read(&bytes, options).unwrap();
    let names: Vec<String> = batches[0].schema().fields().iter().map(|f| f.name().clone()).collect();
    assert_eq!(names, ["s"]);
    let s: Vec<String> = batches
        .iter()
        .flat_map(|b| b.column(0).as_string::<i32>().iter().map(|v| v.unwrap().to_owned()).collect::<Vec<_>>())
        .collect();
    assert_eq!(s, want.iter().map(|i| format!("key_{i:06}")).collect::<Vec<_>>());
    // A row selection and the filter: the rows in both.
    let options = ReadOptions::default().with_row_selection([10..20, 30_000..60_000]).with_filter(p.clone());
    let (batches, _, _) = read(&bytes, options).unwrap();
    let both: Vec<i64> =
        want.iter().copied().filter(|&i| (10..20).contains(&i) || (30_000..60_000).contains(&i)).collect();
    assert_eq!(ids(&batches), both);
    // Matches a few rows apart are read as one range inside a row group, never past the
    // caller's selection.
    let options = ReadOptions::default().with_row_selection([0..10, 15..25]).with_filter(col("id").lt(50));
    let (batches, _, _) = read(&bytes, options).unwrap();
    assert_eq!(ids(&batches), (0..10).chain(15..25).collect::<Vec<i64>>());
    // Row groups chosen by the caller, in their order.
    let options = ReadOptions::default().with_row_groups([5, 0]).with_filter(p.clone());
    let (batches, _, _) = read(&bytes, options).unwrap();
    let mut chosen: Vec<i64> = want.iter().copied().filter(|&i| (50_000..60_000).contains(&i)).collect();
    chosen.extend(want.iter().copied().filter(|&i| i < 10_000));
    assert_eq!(ids(&batches), chosen);
    // Every column's values on two threads, the predicate's columns taken from late
    // materialization's first pass, against pyarrow's rows.
    let whole = read_compare::pyarrow_tables("filter", std::slice::from_ref(indexed)).remove(indexed).unwrap().unwrap();
    for batch_size in [100_000, 1_000] {
        let options = ReadOptions::default().with_threads(2).with_batch_size(batch_size).with_filter(p.clone());
        let (batches, m, _) = read(&bytes, options).unwrap();
        assert_eq!(ids(&batches), want, "two threads, batch {batch_size}");
        assert!(m.late_row_groups > 0, "{m}");
        let table = Table::from_batches(&batches[0].schema(), &batches).unwrap();
        let diffs = diff_tables(&rows_at(&whole, &want), &table);
        assert!(diffs.is_empty(), "two threads, batch {batch_size}: {diffs:?}");
    }
}

#[test]
fn bad_predicates_are_errors_naming_the_column() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, _) = files();
    let bytes = std::fs::read(indexed).unwrap();
    let cases: Vec<(Predicate, &str)> = vec![
        (col("nope").eq(1), "no column 'nope'"),
        (col("s").gt(5), "column 's'"),
        (col("d").eq(5), "column 'd'"),
        (col("rec").eq(1), "'rec' is a group"),
        (col("k").starts_with("a"), "'k'"),
        (col("k").eq(f64::NAN), "'k'"),
        (col("dec").eq("5"), "'dec'"),
    ];
    for (p, needle) in cases {
        let e = read(&bytes, ReadOptions::default().with_filter(p.clone())).err().unwrap_or_else(|| panic!("{p} read"));
        assert!(e.to_string().contains(needle), "{p}: {e}");
    }
}

#[test]
fn late_materialization_reads_the_other_columns_only_at_matching_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, plain) = files();
    // Without a page index, statistics leave one row group of 10,000 candidate rows: `id` is
    // decoded there, and the other columns only at the one matching row.
    let bytes = std::fs::read(plain).unwrap();
    let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(col("id").eq(77_777))).unwrap();
    assert_eq!(ids(&batches), [77_777]);
    assert_eq!(batches[0].num_columns(), 12);
    assert_eq!((m.late_row_groups, m.predicate_rows_decoded, m.rows_decoded), (1, 10_000, 1), "{m}");
    // `dec` is unsorted (in runs) and has no dictionary or bloom filter: a quarter of its
    // pages may hold the value, one row does, and the other columns' pages without it are
    // not read.
    let indexed_bytes = std::fs::read(indexed).unwrap();
    let (_, _, all_bytes) = read(&indexed_bytes, ReadOptions::default()).unwrap();
    let (batches, m, read_bytes) = read(
        &indexed_bytes,
        ReadOptions::default().with_filter(col("dec").eq(Literal::Decimal { unscaled: -5554, scale: 2 })),
    )
    .unwrap();
    assert_eq!(ids(&batches), [77_778]);
    assert!(m.rows_candidate > 20_000 && m.rows_decoded == 1, "{m}");
    assert!(read_bytes * 4 < all_bytes, "read {read_bytes} of a whole read's {all_bytes} bytes: {m}");
    // When the output holds only the predicate's columns there is nothing to read late.
    let options = ReadOptions::default().with_columns(["id"]).with_filter(col("id").eq(77_777));
    let (batches, m, _) = read(&bytes, options).unwrap();
    assert_eq!((ids(&batches), m.late_row_groups, m.rows_decoded), (vec![77_777], 0, 10_000), "{m}");
    // Dense matches switch it off after two row groups; the rows stay exact.
    let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(col("k").is_not_null())).unwrap();
    let want: Vec<i64> = (0..100_000).filter(|i| i % 13 != 0).collect();
    assert_eq!(ids(&batches), want);
    assert_eq!(m.late_row_groups, 2, "{m}");
}

/// A small deterministic generator (SplitMix64), for conditions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A random condition in the SQL both `filter::parse` and duckdb read.
fn condition(rng: &mut Rng, depth: u32) -> String {
    if depth > 0 && rng.below(3) > 0 {
        let (a, b) = (condition(rng, depth - 1), condition(rng, depth - 1));
        return match rng.below(3) {
            0 => format!("({a} AND {b})"),
            1 => format!("({a} OR {b})"),
            _ => format!("NOT ({a})"),
        };
    }
    let value = |rng: &mut Rng, column: &str| -> String {
        match column {
            "id" => rng.below(100_000).to_string(),
            "k" | "rec.a" => rng.below(1_000).to_string(),
            "u" => (rng.below(100_000) * if rng.below(2) == 0 { 1 } else { 2_654_435_761 }).to_string(),
            "f32" => format!("{}", rng.below(1_000) as f64 / 8.0),
            "s" => format!("'key_{:06}'", rng.below(100_000)),
            "cat" | "rec.b" => {
                let v = rng.pick(&[
                    "apple",
                    "apricot",
                    "banana",
                    "blueberry",
                    "cherry",
                    "\u{e9}clair",
                    "zucchini",
                    "b",
                    "b050",
                    "c",
                ]);
                format!("'{v}'")
            }
            "d" => format!("DATE '2020-{:02}-{:02}'", 1 + rng.below(12), 1 + rng.below(28)),
            "ts" => format!("TIMESTAMP '2021-06-{:02} {:02}:{:02}:00'", 1 + rng.below(4), rng.below(24), rng.below(60)),
            _ => format!("{}.{:02}", rng.below(1_000) as i64 - 500, rng.below(100)), // dec
        }
    };
    let column = rng.pick(&["id", "k", "u", "f32", "s", "cat", "d", "ts", "dec", "rec.a", "rec.b"]);
    let strings = matches!(column, "s" | "cat" | "rec.b");
    match rng.below(if strings { 8 } else { 7 }) {
        0..=2 => {
            let op = rng.pick(&["=", "!=", "<", "<=", ">", ">="]);
            format!("{column} {op} {}", value(rng, column))
        }
        3 => format!("{column} BETWEEN {} AND {}", value(rng, column), value(rng, column)),
        4 => {
            let n = 1 + rng.below(4);
            let list: Vec<String> = (0..n).map(|_| value(rng, column)).collect();
            let not = if rng.below(2) == 0 { "NOT " } else { "" };
            format!("{column} {not}IN ({})", list.join(", "))
        }
        5 => format!("{column} IS {}NULL", if rng.below(2) == 0 { "NOT " } else { "" }),
        6 => format!("{column} >= {} AND {column} < {}", value(rng, column), value(rng, column)),
        _ => {
            // A prefix or a substring without '_' (a wildcard in LIKE, refused by `parse`).
            let v = value(rng, column);
            let inner: Vec<char> = v[1..v.len() - 1].chars().collect();
            if rng.below(2) == 0 {
                let part: Vec<char> = inner.iter().copied().take_while(|&c| c != '_').collect();
                let cut = 1 + rng.below(part.len() as u64) as usize;
                return format!("{column} LIKE '{}%'", part[..cut].iter().collect::<String>());
            }
            let segments: Vec<&[char]> = inner.split(|&c| c == '_').filter(|s| !s.is_empty()).collect();
            let seg = segments[rng.below(segments.len() as u64) as usize];
            let from = rng.below(seg.len() as u64) as usize;
            let to = from + 1 + rng.below((seg.len() - from) as u64) as usize;
            format!("{column} LIKE '%{}%'", seg[from..to].iter().collect::<String>())
        }
    }
}

#[test]
fn random_conditions_return_duckdbs_rows() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, plain) = files();
    // FILTER_SEED=n tries other conditions.
    let seed = std::env::var("FILTER_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let mut rng = Rng(seed);
    let texts: Vec<String> = (0..120).map(|_| condition(&mut rng, 3)).collect();
    let names: Vec<String> = (0..texts.len()).map(|i| format!("random_{i}")).collect();
    let cases: Vec<Case> = texts
        .iter()
        .zip(&names)
        .map(|(t, n)| Case {
            name: Box::leak(n.clone().into_boxed_str()),
            predicate: parquetry::filter::parse(t).unwrap_or_else(|e| panic!("{t}: {e}")),
            engine: "duckdb",
            expr: Box::leak(t.clone().into_boxed_str()),
        })
        .collect();
    let want = answers(indexed, &cases);
    for (path, every) in [(indexed, 1), (plain, 3)] {
        let bytes = std::fs::read(path).unwrap();
        for case in cases.iter().step_by(every) {
            let options = ReadOptions::default().with_batch_size(20_000).with_filter(case.predicate.clone());
            let (batches, m, _) = read(&bytes, options).unwrap_or_else(|e| panic!("{}: {e}", case.expr));
            let got = ids(&batches);
            assert!(
                got == want[case.name],
                "{} on {}: {} rows, duckdb {}\n{m}",
                case.expr,
                path.display(),
                got.len(),
                want[case.name].len()
            );
        }
    }
}

#[test]
fn dictionaries_prune_row_groups_their_statistics_cannot() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, _) = files();
    let bytes = std::fs::read(indexed).unwrap();
    for (p, pruned, rows) in [
        (col("grp").eq("mid_3"), 9, 10),
        (col("grp").is_in(["mid_3", "mid_7"]), 8, 20),
        (col("grp").starts_with("mid_1"), 9, 10),
        (col("grp").contains("d_4"), 9, 10),
        (col("grp").eq("bbb"), 10, 0),
        // A test many values pass is not worth a dictionary read; nor is one on a chunk whose
        // pages are not all dictionary-encoded.
        (col("grp").ne("aaa"), 0, 50_000),
        // Statistics cannot rule out `grp = 'bbb'` ('aaa' <= 'bbb' <= 'zzz'), the dictionaries
        // can, leaving the row group that holds `s = 'key_000007'`.
        (col("s").eq("key_000007").or(col("grp").eq("bbb")), 9, 1),
    ] {
        let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(p.clone())).unwrap();
        assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), rows, "{p}");
        assert_eq!((m.row_groups_pruned, m.row_groups_pruned_by_dictionary), (0, pruned), "{p}: {m}");
    }
    // Without encoding_stats nothing says every page is dictionary-encoded: no pruning.
    let without = rewrite(&bytes, |meta, _, _| {
        for rg in &mut meta.row_groups {
            for c in &mut rg.columns {
                c.meta_data.as_mut().unwrap().encoding_stats = None;
            }
        }
    });
    let (batches, m, _) = read(&without, ReadOptions::default().with_filter(col("grp").eq("mid_3"))).unwrap();
    assert_eq!((ids(&batches).len(), m.row_groups_pruned_by_dictionary, m.dictionary_bytes_read), (10, 0, 0), "{m}");
}

#[test]
fn bloom_filters_prune_row_groups_without_the_value() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, _) = files();
    let bytes = std::fs::read(indexed).unwrap();
    // Inside the statistics' and pages' bounds, but in no row group: only a bloom filter
    // (pyarrow's, on `s` and `u`) says so.
    for (p, by_stats) in
        [(col("s").eq("key_054321x"), 9), (col("u").eq(lit(4u64)), 9), (col("s").is_in(["key_00000a", "key_09999"]), 8)]
    {
        let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(p.clone())).unwrap();
        assert!(batches.is_empty(), "{p}");
        assert_eq!((m.row_groups_pruned, m.row_groups_pruned_by_bloom_filter), (by_stats, 10 - by_stats), "{p}: {m}");
        assert!(m.bloom_filter_bytes_read > 0, "{m}");
    }
    // Floats: values between the row groups' values (`f` holds tenths; every row group the
    // same ones, so a false positive, as 0.15's, is in all ten) and one `f32` does not hold
    // (its values are eighths); zero, stored as both -0 and +0, is found.
    for p in [col("f").eq(0.05), col("f32").eq(0.1), col("f").is_in([0.05, 0.25])] {
        let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(p.clone())).unwrap();
        assert!(batches.is_empty(), "{p}");
        assert_eq!(m.row_groups_pruned_by_bloom_filter, 10, "{p}: {m}");
    }
    // (All of the rows: the `f_eq_zero` case above.) Row 21 holds -0.0, row 42 +0.0.
    let (batches, m, _) = read(&bytes, ReadOptions::default().with_filter(col("f").eq(0.0))).unwrap();
    let got = ids(&batches);
    assert!(got.contains(&21) && got.contains(&42), "{m}");
    assert_eq!(m.row_groups_pruned_by_bloom_filter, 0, "{m}");
    // Decimals stored as 4- and 9-byte FIXED_LEN_BYTE_ARRAY: each value is in one row group,
    // which the bloom filters alone find.
    let decimals = std::fs::read(indexed.with_file_name("decimals.parquet")).unwrap();
    for (column, unscaled) in [("d9", -15_554i128), ("d20", -15_554 * 10i128.pow(15))] {
        let want: Vec<i64> = (0..100_000i64).filter(|i| (i * 7) % 100_000 - 50_000 == -15_554).collect();
        let p = col(column).eq(Literal::Decimal { unscaled, scale: 2 });
        let (batches, m, _) = read(&decimals, ReadOptions::default().with_columns(["id"]).with_filter(p)).unwrap();
        assert_eq!(ids(&batches), want, "{column}: {m}");
        assert_eq!(m.row_groups_pruned_by_bloom_filter, 9, "{column}: {m}");
    }
    // Every value present is found (no false negative): 400 rows' `s` or `u`.
    let mut want = Vec::new();
    let mut p = col("s").eq("key_000000");
    for i in (0..100_000i64).step_by(250) {
        want.push(i);
        let u = if i % 3 != 0 { (i as u64 * 2_654_435_761) as i128 } else { i as i128 };
        let one = if i % 2 == 0 { col("s").eq(format!("key_{i:06}")) } else { col("u").eq(lit(u as u64)) };
        p = if i == 0 { one } else { p.or(one) };
    }
    let (batches, m, _) = read(&bytes, ReadOptions::default().with_columns(["id"]).with_filter(p)).unwrap();
    let mut got = ids(&batches);
    got.sort_unstable();
    got.dedup();
    assert!(want.iter().all(|i| got.binary_search(i).is_ok()), "{m}");
    assert_eq!(m.row_groups_pruned_by_bloom_filter, 0, "{m}");
    // Bloom filters that do not check out are not used.
    let broken = rewrite(&bytes, |meta, _, _| {
        for rg in &mut meta.row_groups {
            for c in &mut rg.columns {
                let m = c.meta_data.as_mut().unwrap();
                if let Some(o) = m.bloom_filter_offset.as_mut() {
                    *o += 3;
                }
            }
        }
    });
    let (batches, m, _) = read(&broken, ReadOptions::default().with_filter(col("s").eq("key_054321"))).unwrap();
    assert_eq!((ids(&batches), m.row_groups_pruned_by_bloom_filter), (vec![54_321], 0), "{m}");
}

#[test]
fn counts_without_columns_match_the_reference_engines() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, plain) = files();
    // Dense (rows filtered out of decoded batches), selective, and on a dictionary column.
    let cases = vec![
        duck("count_k", col("k").gt(100), "k > 100"),
        duck(
            "count_id",
            col("id").lt(50_000).and(col("d").ge(Literal::Date(MAR_1_2020))),
            "id < 50000 AND d >= DATE '2020-03-01'",
        ),
        duck("count_cat", col("cat").eq("apple"), "cat = 'apple'"),
        duck("count_none", col("s").eq("nope"), "s = 'nope'"),
    ];
    for path in [indexed, plain] {
        let want = answers(path, &cases);
        let bytes = std::fs::read(path).unwrap();
        for c in &cases {
            let options =
                ReadOptions::default().with_columns(std::iter::empty::<&str>()).with_filter(c.predicate.clone());
            let (batches, m, _) = read(&bytes, options).unwrap();
            assert!(batches.iter().all(|b| b.num_columns() == 0), "{}", c.name);
            let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
            assert_eq!(rows, want[c.name].len(), "{}: {m}", c.name);
        }
    }
}
