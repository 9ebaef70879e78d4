//! Dictionary pages read lazily: runs of indexes of new values decoded straight from the
//! dictionary page, other indexes gathered from values walked just before. Every output kind
//! must read the same rows whatever order the indexes come in, and bad dictionary values are
//! errors once a page's indexes reach them.

use arrow_array::cast::AsArray;
use arrow_array::ArrayRef;
use arrow_schema::DataType;

use super::tests::{append, decoder, encode, finish, indexes, rows, Page, OUTPUTS};
use crate::encoding::TestRng;
use crate::error::Result;
use crate::format::Encoding;

/// The bit width that holds every index below `n`.
fn width(n: usize) -> u8 {
    (usize::BITS - n.max(2).saturating_sub(1).leading_zeros()) as u8
}

/// A dictionary of `n` values: short strings with non-ASCII text, some empty, and every
/// 97th value longer than the kernels' block copies and than 127 bytes (a length prefix
/// that is not ASCII).
fn words(n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| match i % 97 {
            5 => Vec::new(),
            50 => format!("{i}-{}", "ü".repeat(90)).into_bytes(),
            _ => format!("w{i}{}", "é".repeat(i % 7)).into_bytes(),
        })
        .collect()
}

/// Indexes as a writer that numbers values by first appearance makes them (runs of new
/// values of every length, repeats of earlier values), with `forward` in 1,000 pointing
/// anywhere in the dictionary, as writers that order the dictionary otherwise do.
fn writer_indexes(rng: &mut TestRng, n: usize, rows: usize, forward: u64) -> Vec<u32> {
    let mut out = Vec::with_capacity(rows);
    let mut next = 0usize;
    while out.len() < rows {
        match rng.below(4) {
            0 if next < n => {
                let run = [1, 3, 15, 16, 17, 40, 300][rng.below(7) as usize];
                for _ in 0..run.min(n - next) {
                    out.push(next as u32);
                    next += 1;
                }
            }
            _ if rng.below(1000) < forward => out.push(rng.below(n as u64) as u32),
            _ => out.push(rng.below(next.max(1) as u64) as u32),
        }
    }
    out.truncate(rows);
    out
}

#[test]
fn indexes_in_any_order_read_the_dictionary_values() {
    let mut rng = TestRng::new(11);
    let n = 3000;
    let owned = words(n);
    let values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let dict = encode(Encoding::PLAIN, &values);
    let total: usize = values.iter().map(|v| v.len()).sum();
    for forward in [0, 5, 300] {
        let ix = writer_indexes(&mut rng, n, 9000, forward);
        for output in OUTPUTS.map(|f| f()) {
            if matches!(&output, DataType::Dictionary(k, _) if **k == DataType::Int8) {
                continue;
            }
            for reserve in [false, true] {
                let mut d = decoder(&output);
                d.set_dictionary(&dict.values()).unwrap();
                if reserve {
                    d.reserve(ix.len(), ix.iter().map(|&i| values[i as usize].len()).sum());
                }
                // Pages of uneven sizes, and a batch finished part way: the dictionary and
                // how far it was walked carry over to the next batch.
                let (mut at, mut batch_start) = (0, 0);
                while at < ix.len() {
                    let len = (1 + rng.below(700) as usize).min(ix.len() - at);
                    append(d.as_mut(), &indexes(&ix[at..at + len], width(n)), None).unwrap();
                    at += len;
                    if (at >= ix.len() / 2 && batch_start == 0) || at == ix.len() {
                        let a = finish(d.as_mut(), &vec![true; at - batch_start]);
                        let want: Vec<_> =
                            ix[batch_start..at].iter().map(|&i| Some(values[i as usize].to_vec())).collect();
                        assert!(rows(a.as_ref()) == want, "{output} forward {forward} reserve {reserve}");
                        batch_start = at;
                    }
                }
            }
        }
        // A dictionary read whole in order fits an exact reservation without growing it.
        let all: Vec<u32> = (0..n as u32).collect();
        let mut d = decoder(&DataType::Utf8);
        d.set_dictionary(&dict.values()).unwrap();
        d.reserve(n, total);
        append(d.as_mut(), &indexes(&all, width(n)), None).unwrap();
        let a = finish(d.as_mut(), &vec![true; n]);
        assert_eq!(a.as_string::<i32>().values().capacity(), total);
    }
}

/// Reads a dictionary page of `values` and a data page of the indexes `ix`.
fn read(output: &DataType, values: &[&[u8]], ix: &[u32]) -> Result<ArrayRef> {
    let mut d = decoder(output);
    d.set_dictionary(&encode(Encoding::PLAIN, values).values())?;
    append(d.as_mut(), &indexes(ix, width(values.len())), None)?;
    Ok(finish(d.as_mut(), &vec![true; ix.len()]))
}

#[test]
fn bad_values_are_errors_once_indexes_reach_them() {
    let owned = words(40_000);
    for output in [DataType::Utf8, DataType::LargeBinary] {
        let utf8 = output == DataType::Utf8;
        for bad in [0, 3, 17, 20_000, 39_999] {
            let mut values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
            let bad_value = [values[bad], b"\xC3"].concat();
            values[bad] = &bad_value;
            // Reached by a run of new values, by a gather, and by an index far ahead.
            let in_order: Vec<u32> = (0..values.len() as u32).collect();
            let backwards: Vec<u32> = in_order.iter().rev().copied().collect();
            for ix in [&in_order[..], &backwards, &[0, 39_999]] {
                let got = read(&output, &values, ix);
                if !utf8 {
                    got.unwrap();
                    continue;
                }
                let e = got.unwrap_err().to_string();
                assert!(e.contains(&format!("dictionary page: value {bad} of the page")), "{bad}: {e}");
            }
        }
        // A value past the stretches a page's indexes reach is never read, so never an
        // error. After an error the decoder goes on; the values that share the bad one's
        // 64 KiB stretch fail too, every time, and are never read unchecked.
        let mut values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        values[39_999] = b"\xFF";
        let a = read(&output, &values, &[0, 1, 2]).unwrap();
        assert_eq!(rows(a.as_ref()).len(), 3);
        if utf8 {
            let mut d = decoder(&output);
            d.set_dictionary(&encode(Encoding::PLAIN, &values).values()).unwrap();
            let all: Vec<u32> = (0..40_000).collect();
            for ix in [&all[..], &[39_999], &[39_998, 0], &all[..]] {
                assert!(append(d.as_mut(), &indexes(ix, 16), None).is_err());
            }
            assert_eq!(d.len(), 0);
            append(d.as_mut(), &indexes(&[2, 0], 16), None).unwrap();
            let a = finish(d.as_mut(), &[true; 2]);
            assert_eq!(rows(a.as_ref()), [Some(values[2].to_vec()), Some(values[0].to_vec())]);
        }
    }
}

#[test]
fn truncated_dictionaries_fail_where_indexes_reach_past_them() {
    let owned = words(50);
    let values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let full = encode(Encoding::PLAIN, &values);
    let all: Vec<u32> = (0..50).collect();
    for cut in [0, 2, 7, full.values().data().len() / 2, full.values().data().len() - 1] {
        let page = Page::new(Encoding::PLAIN, &full.bytes()[..cut], values.len());
        for output in [DataType::Utf8, DataType::Binary, DataType::LargeUtf8] {
            let mut d = decoder(&output);
            d.set_dictionary(&page.values()).unwrap();
            for ix in [&all[..], &[49], &all[20..]] {
                let e = append(d.as_mut(), &indexes(ix, 6), None).unwrap_err().to_string();
                assert!(e.contains("dictionary page: value"), "{output} cut {cut}: {e}");
            }
        }
    }
}

#[test]
fn runs_longer_than_one_scan_and_past_the_room() {
    // One page of 70,000 new values in order: longer than one scan for a run, and read both
    // with no room reserved (each part of the run stops where the room ends) and with the
    // exact room.
    let owned = words(70_000);
    let values: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
    let all: Vec<u32> = (0..values.len() as u32).collect();
    let total: usize = values.iter().map(|v| v.len()).sum();
    for output in [DataType::Utf8, DataType::LargeBinary] {
        for reserve in [false, true] {
            let mut d = decoder(&output);
            d.set_dictionary(&encode(Encoding::PLAIN, &values).values()).unwrap();
            if reserve {
                d.reserve(all.len(), total);
            }
            append(d.as_mut(), &indexes(&all, width(all.len())), None).unwrap();
            let a = finish(d.as_mut(), &vec![true; all.len()]);
            let want: Vec<_> = values.iter().map(|v| Some(v.to_vec())).collect();
            assert!(rows(a.as_ref()) == want, "{output} reserve {reserve}");
        }
    }
}
