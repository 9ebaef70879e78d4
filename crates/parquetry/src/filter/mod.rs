//! Selective reads: a predicate pushed down to row groups and pages, and evaluated exactly on
//! the rows decoded.
//!
//! ```no_run
//! use parquetry::filter::{col, lit};
//! use parquetry::read::{ParquetReaderBuilder, ReadOptions};
//! let predicate = col("x").gt(lit(5)).and(col("s").eq(lit("abc")));
//! let options = ReadOptions::default().with_filter(predicate);
//! let reader = ParquetReaderBuilder::open("data.parquet")?.with_options(options).build()?;
//! for batch in reader {
//!     println!("{} matching rows", batch?.num_rows());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Pruning goes cheapest first and never loses a row (see `docs/filter.md`): row groups by
//! the footer's statistics, then pages by the page index (ColumnIndex and OffsetIndex),
//! which become a row selection the reader uses to pass over pages unread. The candidate rows
//! are then decoded and the predicate evaluated on them, so the output is exactly the
//! matching rows. [`ScanMetrics`] counts what each level pruned.

mod batch;
mod bind;
pub(crate) mod bloom;
mod compare;
mod decimals;
mod dictionary;
mod evaluate;
mod expr;
mod interval;
mod keys;
mod late;
mod literal;
mod masks;
mod metrics;
mod page_index;
mod parse;
mod ranges;
mod scan;
mod select;
mod statistics;
mod strings;
mod views;

pub use batch::BatchFilter;
pub use expr::{col, lit, not, CmpOp, Column, Literal, Predicate};
pub use metrics::ScanMetrics;
pub use parse::parse;
pub(crate) use scan::{prepare, Filtering};
