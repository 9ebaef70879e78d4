//! A micro-benchmark of interning, ignored by default (timings do not belong in tests):
//!
//! `cargo test -p parquetry --release --lib dictionary::bench -- --ignored --nocapture`
//!
//! `intern_strings` interns the three columns of the guide's `strings` dataset 20,000 values (one page) at
//! a time, into one dictionary for the whole column ("unbounded": the `id` column then
//! inserts 2M values and grows the table to 2M) and into one that starts over whenever the
//! page passes 1 MiB (the writer's default limit: what it really interns), and compares with
//! the obvious code, a std `HashMap<Vec<u8>, u32>` (SipHash, or foldhash) beside the page.
//! `intern_fixed` does the same for 8-byte values. Times are this thread's CPU time, best of
//! five runs.

use std::collections::HashMap;
use std::hash::BuildHasher;

use super::*;
use crate::encoding::TestRng;

const ROWS: usize = 2_000_000;
const PAGE_ROWS: usize = 20_000;
const LIMIT: usize = 1 << 20;

/// One column as Arrow `Utf8` offsets and data.
struct Column {
    name: &'static str,
    offsets: Vec<i32>,
    data: Vec<u8>,
}

fn column(name: &'static str, mut value: impl FnMut(&mut Vec<u8>)) -> Column {
    let mut offsets = Vec::with_capacity(ROWS + 1);
    let mut data = Vec::new();
    offsets.push(0);
    for _ in 0..ROWS {
        value(&mut data);
        offsets.push(data.len() as i32);
    }
    Column { name, offsets, data }
}

fn columns() -> Vec<Column> {
    use std::io::Write;
    let mut rng = TestRng::new(42);
    let id = column("id", |d| {
        let (a, b) = (rng.next_u64(), rng.next_u64() as u32);
        write!(d, "{a:016x}-{b:08x}").unwrap();
    });
    let category = column("category", |d| write!(d, "category_{:03}", rng.below(100)).unwrap());
    let url = column("url", |d| {
        let (site, item) = (rng.below(50), rng.below(10_000_000));
        write!(d, "https://www.example{site}.com/path/to/resource/item/{item}").unwrap();
    });
    // The lists dataset's words: 5,000 of 8 bytes.
    let tags = column("tags", |d| write!(d, "tag_{:04}", rng.below(5000)).unwrap());
    vec![id, category, url, tags]
}

/// What is measured: something that interns one page of values and says how big the
/// dictionary page now is, and forgets everything on `clear`.
trait Interner {
    fn intern_page(&mut self, offsets: &[i32], data: &[u8], out: &mut Vec<u32>) -> usize;
    fn clear(&mut self);
}

impl Interner for ByteArrayDictionary {
    fn intern_page(&mut self, offsets: &[i32], data: &[u8], out: &mut Vec<u32>) -> usize {
        self.intern_offsets(offsets, data, out);
        self.page_len()
    }
    fn clear(&mut self) {
        ByteArrayDictionary::clear(self);
    }
}

/// The obvious dictionary: a map from owned values, and the page beside it.
struct Baseline<S> {
    map: HashMap<Vec<u8>, u32, S>,
    page: Vec<u8>,
}

impl<S: BuildHasher> Interner for Baseline<S> {
    fn intern_page(&mut self, offsets: &[i32], data: &[u8], out: &mut Vec<u32>) -> usize {
        for w in offsets.windows(2) {
            let v = &data[w[0] as usize..w[1] as usize];
            let i = match self.map.get(v) {
                Some(&i) => i,
                None => {
                    let i = self.map.len() as u32;
                    self.map.insert(v.to_vec(), i);
                    self.page.extend_from_slice(&(v.len() as u32).to_le_bytes());
                    self.page.extend_from_slice(v);
                    i
                }
            };
            out.push(i);
        }
        self.page.len()
    }
    fn clear(&mut self) {
        self.map.clear();
        self.page.clear();
    }
}

/// This thread's CPU time in seconds: the machines are shared, and wall time would count the
/// time other processes hold the core.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Nanoseconds per value interning the whole column a page at a time, best of five runs;
/// `limit` starts the dictionary over once its page passes that many bytes.
fn time(dict: &mut dyn Interner, col: &Column, limit: usize) -> f64 {
    let mut out = Vec::with_capacity(PAGE_ROWS);
    best_of_five(|| {
        dict.clear();
        for first in (0..ROWS).step_by(PAGE_ROWS) {
            out.clear();
            let offsets = &col.offsets[first..=(first + PAGE_ROWS).min(ROWS)];
            if dict.intern_page(offsets, &col.data, &mut out) > limit {
                dict.clear();
            }
            std::hint::black_box(&out);
        }
    })
}

/// Nanoseconds per value of `ROWS` values for `run`, best of five.
fn best_of_five(mut run: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = cpu_seconds();
        run();
        best = best.min(cpu_seconds() - start);
    }
    best * 1e9 / ROWS as f64
}

#[test]
#[ignore = "a benchmark: run with --release -- --ignored --nocapture"]
fn intern_strings() {
    // DICT_BENCH=name,... times only the columns and modes (`1mib`, `unbounded`) named, and
    // only parquetry (for profiling).
    let only = std::env::var("DICT_BENCH").ok();
    let named = |name: &str| only.as_ref().is_none_or(|o| o.split(',').any(|n| n == name));
    let any_mode = only.as_ref().is_none_or(|o| !o.contains("1mib") && !o.contains("unbounded"));
    let cols: Vec<Column> = columns().into_iter().filter(|c| named(c.name)).collect();
    println!("ns/value        {:>10} {:>10} {:>10}", "parquetry", "std+sip", "std+fold");
    for (limit, mode) in [(LIMIT, "1mib"), (usize::MAX, "unbounded")] {
        if !any_mode && !named(mode) {
            continue;
        }
        for col in &cols {
            let ours = time(&mut ByteArrayDictionary::new(), col, limit);
            let (mut sip, mut fold) = (f64::NAN, f64::NAN);
            if only.is_none() {
                sip = time(&mut Baseline { map: HashMap::new(), page: Vec::new() }, col, limit);
                let hasher = FixedState::with_seed(SEED);
                let map = HashMap::with_hasher(hasher);
                fold = time(&mut Baseline { map, page: Vec::new() }, col, limit);
            }
            println!("{:<9} {mode:<9} {ours:>6.1} {sip:>10.1} {fold:>10.1}", col.name);
        }
    }
}

/// [`FixedDictionary`] on 8-byte values, 20,000 at a time, starting over past 1 MiB: 100
/// distinct values, and all distinct; against a std `HashMap<u64, u32>` with foldhash.
#[test]
#[ignore = "a benchmark: run with --release -- --ignored --nocapture"]
fn intern_fixed() {
    let mut rng = TestRng::new(43);
    let few: Vec<u64> = (0..ROWS).map(|_| rng.below(100) * 1_000_003).collect();
    let all: Vec<u64> = (0..ROWS).map(|_| rng.next_u64()).collect();
    println!("ns/value        {:>10} {:>10}", "parquetry", "std+fold");
    for (name, values) in [("100 values", &few), ("distinct", &all)] {
        let mut out = Vec::with_capacity(PAGE_ROWS);
        let mut dict = FixedDictionary::new(8);
        let ours = best_of_five(|| {
            dict.clear();
            for page in values.chunks(PAGE_ROWS) {
                out.clear();
                dict.intern_u64s(page, &mut out);
                std::hint::black_box(&out);
                if dict.page_len() > LIMIT {
                    dict.clear();
                }
            }
        });
        let mut map: HashMap<u64, u32, FixedState> = HashMap::with_hasher(FixedState::with_seed(SEED));
        let mut page = Vec::new();
        let std = best_of_five(|| {
            map.clear();
            page.clear();
            for chunk in values.chunks(PAGE_ROWS) {
                out.clear();
                for &v in chunk {
                    let n = map.len() as u32;
                    let i = *map.entry(v).or_insert_with(|| {
                        page.extend_from_slice(&v.to_le_bytes());
                        n
                    });
                    out.push(i);
                }
                std::hint::black_box(&out);
                if page.len() > LIMIT {
                    map.clear();
                    page.clear();
                }
            }
        });
        println!("{name:<15} {ours:>9.1} {std:>10.1}");
    }
}
