//! Statistics and page indexes that do not check out (min above max, offsets past the
//! chunk, page locations that disagree) prune nothing: the rows read are still the matching
//! rows. The files are the filter tests' (`common/filter_files.rs`), edited here.

mod common;
#[path = "common/filter_files.rs"]
mod filter_files;

use filter_files::{files, ids, read, rewrite};
use parquetry::filter::col;
use parquetry::format::thrift::{decode, encode};
use parquetry::format::{ColumnIndex, ColumnOrder, FileMetaData, StatBytes};
use parquetry::read::ReadOptions;

// ---------------------------------------------------------------------------------------------
// Statistics and page indexes that do not check out.

fn column(meta: &FileMetaData, name: &str) -> usize {
    meta.row_groups[0]
        .columns
        .iter()
        .position(|c| c.meta_data.as_ref().unwrap().path_in_schema.join(".") == name)
        .unwrap()
}

#[test]
fn statistics_that_do_not_check_out_prune_nothing() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, _) = files();
    let bytes = std::fs::read(indexed).unwrap();
    let want: Vec<i64> = (25_000..25_100).collect();
    let p = col("id").between(25_000, 25_099);
    let swapped = rewrite(&bytes, |meta, _, _| {
        let c = column(meta, "id");
        for rg in &mut meta.row_groups {
            let s = rg.columns[c].meta_data.as_mut().unwrap().statistics.as_mut().unwrap();
            std::mem::swap(&mut s.min_value, &mut s.max_value);
        }
    });
    let short = rewrite(&bytes, |meta, _, _| {
        let c = column(meta, "id");
        for rg in &mut meta.row_groups {
            let s = rg.columns[c].meta_data.as_mut().unwrap().statistics.as_mut().unwrap();
            s.min_value = Some(StatBytes::new(&[1, 2, 3]));
            s.null_count = Some(-4);
        }
    });
    let unknown_order = rewrite(&bytes, |meta, _, _| {
        let n = meta.row_groups[0].columns.len();
        meta.column_orders = Some(vec![ColumnOrder::Unknown(9); n]);
    });
    for (name, file) in [("min > max", &swapped), ("short bound", &short), ("unknown column order", &unknown_order)] {
        let (batches, m, _) = read(file, ReadOptions::default().with_filter(p.clone())).unwrap();
        assert_eq!(ids(&batches), want, "{name}");
        assert_eq!(m.row_groups_pruned, 0, "{name}: {m}");
    }
    // An unknown order also leaves the page index unused.
    let (_, m, _) = read(&unknown_order, ReadOptions::default().with_filter(p.clone())).unwrap();
    assert_eq!(m.pages_pruned, 0, "{m}");
}

#[test]
fn page_indexes_that_do_not_check_out_prune_nothing() {
    if common::pyarrow_missing() {
        return;
    }
    let (indexed, _) = files();
    let bytes = std::fs::read(indexed).unwrap();
    let want: Vec<i64> = (25_000..25_100).collect();
    let p = col("id").between(25_000, 25_099);
    // Every page's bounds swapped (min > max), or one page too few, or the OffsetIndex cut short.
    let edit_index = |f: &dyn Fn(&mut ColumnIndex)| {
        rewrite(&bytes, |meta, extra, base| {
            let c = column(meta, "id");
            for rg in &mut meta.row_groups {
                let chunk = &mut rg.columns[c];
                let (at, len) =
                    (chunk.column_index_offset.unwrap() as usize, chunk.column_index_length.unwrap() as usize);
                let (mut index, _) = decode::<ColumnIndex>(&bytes[at..at + len]).unwrap();
                f(&mut index);
                let mut encoded = Vec::new();
                encode(&index, &mut encoded);
                chunk.column_index_offset = Some((base + extra.len() as u64) as i64);
                chunk.column_index_length = Some(encoded.len() as i32);
                extra.extend_from_slice(&encoded);
            }
        })
    };
    let swapped = edit_index(&|i| std::mem::swap(&mut i.min_values, &mut i.max_values));
    let fewer = edit_index(&|i| {
        i.min_values.pop();
        i.max_values.pop();
        i.null_pages.pop();
    });
    let garbage = edit_index(&|i| {
        for v in i.min_values.iter_mut() {
            v.truncate(3);
        }
    });
    let cut = rewrite(&bytes, |meta, _, _| {
        for rg in &mut meta.row_groups {
            for c in &mut rg.columns {
                c.offset_index_length = Some(5);
            }
        }
    });
    for (name, file) in [("min > max", &swapped), ("a page short", &fewer), ("3-byte bounds", &garbage), ("cut", &cut)]
    {
        let (batches, m, _) = read(file, ReadOptions::default().with_filter(p.clone())).unwrap();
        assert_eq!(ids(&batches), want, "{name}");
        assert_eq!(m.row_groups_pruned, 9, "{name}: the footer's statistics still hold: {m}");
        assert_eq!(m.pages_pruned, 0, "{name}: {m}");
    }
}
