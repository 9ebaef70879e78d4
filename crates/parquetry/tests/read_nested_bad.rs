//! Corrupt levels in nested columns give an error that says where (row group, column path,
//! page), never a panic and never a silent success.
//!
//! tests/support/read_nested_write.py writes two small valid files with pyarrow (uncompressed,
//! PLAIN, data page v1 and v2, two row groups of many small pages). This test finds the level
//! bytes of one data page of the column `ll` (list<list<int32>>: repetition levels up to 2,
//! definition levels up to 5, so that a 2-bit or 3-bit level can hold a value above its
//! maximum) from the page headers (parquetry's public thrift decoder of `PageHeader`), and
//! rewrites them in place: a repetition level above the maximum, a first repetition level that
//! is not 0, a definition level above the maximum, a definition level raised to the maximum
//! (one more value than the page has), a value count in the header above the levels, a level
//! run cut short, a record start turned into a continuation. Each corrupt file is read whole at two batch sizes, with a
//! row selection that passes over the page without producing it, and with two threads.

mod common;
#[path = "common/read_compare.rs"]
mod read_compare;
#[path = "common/write_helpers.rs"]
mod write_helpers;

use std::ops::Range;

use parquetry::format::{read_metadata_from_bytes, thrift, PageHeader};
use parquetry::read::{ParquetFile, ReadOptions};
use read_compare::{catch, diff_tables, Table};
use serde_json::json;
use write_helpers::{run_python_json, TempDir};

/// The column whose levels are corrupted, its maxima and the row group and page hit.
const COLUMN: &str = "ll.list.element.list.element";
const MAX_REP: u8 = 2;
const MAX_DEF: u8 = 5;
const ROW_GROUP: usize = 1;

/// One data page of the column: its header and where its parts are in the file.
struct PageAt {
    header: PageHeader,
    header_at: Range<usize>,
    /// The repetition and definition level bytes (RLE/bit-packed hybrid, no length prefix).
    rep: Range<usize>,
    def: Range<usize>,
}

/// The data pages of column `column` (a dotted path) in row group `row_group`.
fn pages(bytes: &[u8], row_group: usize, column: &str) -> Vec<PageAt> {
    let meta = read_metadata_from_bytes(bytes).expect("a valid file");
    let rg = &meta.row_groups[row_group];
    let chunk = rg
        .columns
        .iter()
        .filter_map(|c| c.meta_data.as_ref())
        .find(|m| m.path_in_schema.join(".") == column)
        .expect("the column");
    let mut at = chunk.dictionary_page_offset.filter(|&d| d > 0).unwrap_or(chunk.data_page_offset) as usize;
    let end = at + chunk.total_compressed_size as usize;
    let mut out = Vec::new();
    while at < end {
        let (header, len): (PageHeader, usize) = thrift::decode(&bytes[at..]).expect("a page header");
        let body = at + len;
        let (rep, def) = match (&header.data_page_header, &header.data_page_header_v2) {
            // v1: each kind of level behind a 4-byte length (all the columns here have
            // definition levels; all but `s.a` repetition levels).
            (Some(_), _) => {
                let (rep, def_at) = match column {
                    "s.a" => (body..body, body),
                    _ => {
                        let len = u32::from_le_bytes(bytes[body..body + 4].try_into().unwrap()) as usize;
                        (body + 4..body + 4 + len, body + 4 + len)
                    }
                };
                let def_len = u32::from_le_bytes(bytes[def_at..def_at + 4].try_into().unwrap()) as usize;
                (rep, def_at + 4..def_at + 4 + def_len)
            }
            (_, Some(v2)) => {
                let (r, d) = (v2.repetition_levels_byte_length as usize, v2.definition_levels_byte_length as usize);
                (body..body + r, body + r..body + r + d)
            }
            // A dictionary page: no levels.
            _ => (body..body, body..body),
        };
        out.push(PageAt { header_at: at..body, rep, def, header: header.clone() });
        at = body + header.compressed_page_size as usize;
    }
    out
}

/// The first run of a hybrid section: (where its data starts, whether it is an RLE run).
fn first_run(bytes: &[u8], section: &Range<usize>) -> (usize, bool) {
    let mut at = section.start;
    while bytes[at] & 0x80 != 0 {
        at += 1;
    }
    (at + 1, bytes[section.start] & 1 == 0)
}

/// Sets the first level of a hybrid section to `level` (an RLE run's value, so every level of
/// the run; or the first value of a bit-packed run, of `width` bits).
fn set_first_level(bytes: &mut [u8], section: &Range<usize>, width: u8, level: u8) {
    let (data, rle) = first_run(bytes, section);
    if rle {
        bytes[data] = level;
    } else {
        let mask = (1u8 << width) - 1;
        bytes[data] = (bytes[data] & !mask) | level;
    }
}

/// Re-encodes a page header after `change`; the new header must have the old one's length.
fn rewrite_header(bytes: &mut [u8], page: &PageAt, change: impl FnOnce(&mut PageHeader)) {
    let mut header = page.header.clone();
    let mut same = Vec::new();
    thrift::encode(&header, &mut same);
    assert_eq!(same, bytes[page.header_at.clone()], "the header does not re-encode to its own bytes");
    change(&mut header);
    let mut new = Vec::new();
    thrift::encode(&header, &mut new);
    assert_eq!(new.len(), page.header_at.len(), "the changed header has another length");
    bytes[page.header_at.clone()].copy_from_slice(&new);
}

/// One corruption: its name, the page it hits, and the change.
type Corruption = (&'static str, usize, fn(&mut Vec<u8>, &PageAt));

fn corruptions() -> Vec<Corruption> {
    vec![
        ("a repetition level above the maximum", 2, |b, p| set_first_level(b, &p.rep, 2, MAX_REP + 1)),
        ("a first repetition level that is not 0", 0, |b, p| set_first_level(b, &p.rep, 2, 1)),
        ("a definition level above the maximum", 2, |b, p| set_first_level(b, &p.def, 3, MAX_DEF + 2)),
        ("a null raised to a value the page does not have", 3, |b, p| raise_a_null(b, &p.def)),
        ("a header value count one above the levels", 2, |b, p| {
            rewrite_header(b, p, |h| match (&mut h.data_page_header, &mut h.data_page_header_v2) {
                (Some(d), _) => d.num_values += 1,
                (_, Some(d)) => d.num_values += 1,
                _ => unreachable!(),
            })
        }),
        ("a repetition level run cut to half", 2, |b, p| match p.header.data_page_header_v2 {
            // v1: the length before the levels says half (the definition levels then start
            // inside the repetition levels too).
            None => {
                let at = p.rep.start - 4;
                let len = (p.rep.len() / 2) as u32;
                b[at..at + 4].copy_from_slice(&len.to_le_bytes());
            }
            // v2: the header gives half the repetition levels' bytes to the definition levels.
            Some(_) => rewrite_header(b, p, |h| {
                let d = h.data_page_header_v2.as_mut().unwrap();
                let half = d.repetition_levels_byte_length / 2;
                d.definition_levels_byte_length += d.repetition_levels_byte_length - half;
                d.repetition_levels_byte_length = half;
            }),
        }),
        // The page's first record start made a continuation of the record before: the chunk
        // then holds one record less than its row group (and a v2 page, which must begin a
        // record, does not).
        ("a record start turned into a continuation", 2, |b, p| set_first_level(b, &p.rep, 2, 1)),
    ]
}

/// Sets a definition level below the maximum to the maximum: the levels then promise one more
/// value than the page's values hold. (An RLE run of nulls becomes a run of values: more.)
fn raise_a_null(bytes: &mut [u8], section: &Range<usize>) {
    let width = 3;
    let mut at = section.start;
    while at < section.end {
        let (mut header, mut shift) = (0usize, 0);
        loop {
            let b = bytes[at];
            at += 1;
            header |= usize::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
        }
        if header & 1 == 0 {
            // An RLE run: its value in one byte.
            if bytes[at] < MAX_DEF {
                bytes[at] = MAX_DEF;
                return;
            }
            at += 1;
            continue;
        }
        // Bit-packed groups of 8 levels in 3 bytes, LSB first.
        for _ in 0..header >> 1 {
            let mut bits = (0..3).fold(0u32, |acc, i| acc | u32::from(bytes[at + i]) << (8 * i));
            if let Some(k) = (0..8).find(|k| (bits >> (width * k)) & 7 < u32::from(MAX_DEF)) {
                bits = (bits & !(7 << (width * k))) | (u32::from(MAX_DEF) << (width * k));
                for i in 0..3 {
                    bytes[at + i] = (bits >> (8 * i)) as u8;
                }
                return;
            }
            at += 3;
        }
    }
    panic!("no null in the page's definition levels: choose another page");
}

/// Reads `bytes` with `options`: `Ok(Ok(table))`, `Ok(Err(message))`, or `Err(panic)`.
fn read_bytes(bytes: Vec<u8>, options: &ReadOptions) -> Result<Result<Table, String>, String> {
    catch(|| {
        let file = ParquetFile::from_bytes(bytes).map_err(|e| e.to_string())?;
        let iter = common::batches(&file, options.clone()).map_err(|e| e.to_string())?;
        let schema = iter.schema();
        let batches = iter.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())?;
        Table::from_batches(&schema, &batches)
    })
}

#[test]
fn corrupt_nested_levels_give_errors_that_say_where() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("read-nested-bad");
    let written = run_python_json("read_nested_write.py", &json!({"out_dir": dir.0, "corruptible": true}));
    let mut failures = Vec::new();
    let mut reads = 0;
    // PLAIN values: one value more than the page holds is then an error, where a
    // dictionary page's bit-packed indices may have padding to read it from.
    for file in written["files"].as_array().expect("files").iter().filter(|f| f["dictionary"] == false) {
        let version = file["version"].as_str().unwrap();
        let original = std::fs::read(file["parquet"].as_str().unwrap()).unwrap();
        let rows = file["rows"].as_u64().unwrap();
        // The valid file reads: the corruption, not the file, makes the errors.
        if let Ok(Err(e)) | Err(e) = read_bytes(original.clone(), &ReadOptions::default()) {
            failures.push(format!("v{version}: the valid file fails: {e}"));
            continue;
        }
        let pages: Vec<PageAt> = pages(&original, ROW_GROUP, COLUMN)
            .into_iter()
            .filter(|p| p.header.dictionary_page_header.is_none())
            .collect();
        // Rows of row group 1 before and after the corrupt page's: the read passes over it.
        let half = rows / 2;
        let around = [0..1, half + 1..half + 2, rows - 1..rows];
        for (what, page, corrupt) in corruptions() {
            let mut bytes = original.clone();
            corrupt(&mut bytes, &pages[page]);
            for (how, options) in [
                ("whole", ReadOptions::default()),
                ("batch size 7", ReadOptions::default().with_batch_size(7)),
                ("rows around it", ReadOptions::default().with_row_selection(around.clone())),
                ("2 threads", ReadOptions::default().with_threads(2)),
            ] {
                reads += 1;
                let place = format!("v{version}, {what} in page {page}, read {how}");
                match read_bytes(bytes.clone(), &options) {
                    Err(panic) => failures.push(format!("{place}: {panic}")),
                    // Passing over a page walks its levels (where records end) but not its
                    // values, as a flat column's skip does not decode them: a page whose values
                    // are short may pass, if what is read is right.
                    Ok(Ok(got)) if how == "rows around it" && what.contains("null raised") => {
                        let want = read_bytes(original.clone(), &options);
                        let want = want.expect("the valid file reads").expect("the valid file reads");
                        for d in diff_tables(&want, &got) {
                            failures.push(format!("{place}: {d}"));
                        }
                    }
                    Ok(Ok(got)) => failures.push(format!("{place}: read {} rows without an error", got.num_rows())),
                    Ok(Err(e)) => {
                        // A chunk one record short is only seen at its end: the error must
                        // say how far the chunk went, counted over the whole chunk.
                        let at = match what.contains("continuation") {
                            true => format!("ended after {} of its {} rows", rows / 2 - 1, rows / 2),
                            false => format!("page {page}"),
                        };
                        let wanted = [format!("row group {ROW_GROUP}"), format!("column '{COLUMN}'"), at];
                        let missing: Vec<&String> = wanted.iter().filter(|w| !e.contains(w.as_str())).collect();
                        if !missing.is_empty() {
                            failures.push(format!("{place}: the error does not name {missing:?}: {e}"));
                        }
                        if std::env::var_os("PARQUETRY_SHOW_ERRORS").is_some() {
                            eprintln!("{place}: {e}");
                        }
                    }
                }
            }
        }
    }
    assert!(reads > 0 && failures.is_empty(), "{} of {reads} corrupt reads:\n{}", failures.len(), failures.join("\n"));
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize
    }
}

/// Byte flips anywhere in the level bytes of every data page of `COLUMN` (and, less often,
/// anywhere in its pages), read at batch sizes that end batches inside pages and with a row
/// selection: never a panic.
#[test]
fn flipped_bytes_in_nested_pages_never_panic() {
    if common::pyarrow_missing() {
        return;
    }
    let dir = TempDir::new("read-nested-flip");
    let written = run_python_json("read_nested_write.py", &json!({"out_dir": dir.0, "corruptible": true}));
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut panics, mut reads, mut errors) = (Vec::new(), 0, 0);
    for file in written["files"].as_array().expect("files") {
        let original = std::fs::read(file["parquet"].as_str().unwrap()).unwrap();
        let mut all = Vec::new();
        for rg in 0..2 {
            for column in ["l.list.element", COLUMN, "s.a", "s.b.list.element"] {
                all.extend(pages(&original, rg, column));
            }
        }
        let levels: Vec<usize> = all.iter().flat_map(|p| p.rep.clone().chain(p.def.clone())).collect();
        // Headers, levels and the first bytes of values.
        let anywhere: Vec<usize> = all.iter().flat_map(|p| p.header_at.start..p.def.end + 8).collect();
        for variant in 0..600 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(3) {
                let at = if variant % 4 == 3 {
                    anywhere[rng.below(anywhere.len())]
                } else {
                    levels[rng.below(levels.len())]
                };
                bytes[at] ^= 1 + rng.below(255) as u8;
            }
            let options = match variant % 3 {
                0 => ReadOptions::default(),
                1 => ReadOptions::default().with_batch_size(3),
                _ => ReadOptions::default().with_row_selection([7..9, 130..131, 200..230]),
            };
            reads += 1;
            match read_bytes(bytes, &options) {
                Err(p) => panics.push(format!("{} variant {variant}: {p}", file["name"])),
                Ok(Err(_)) => errors += 1,
                Ok(Ok(_)) => {}
            }
        }
    }
    panics.truncate(20);
    assert!(panics.is_empty(), "of {reads} corrupted reads ({errors} errors), these panicked:\n{}", panics.join("\n"));
}
