//! The inputs of a merge: their footers, read one file at a time (so a thousand inputs never
//! hold a thousand open files), checked to share one schema, and the plan of output row
//! groups: big input row groups copied whole, runs of small ones coalesced.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::format::{read_metadata, ConvertedType, FileMetaData, LogicalType, PhysicalType, SchemaElement};
use crate::page::FileSource;
use crate::schema::SchemaDescriptor;

/// One input file and its footer.
#[derive(Debug)]
pub(crate) struct Input {
    pub path: PathBuf,
    pub metadata: FileMetaData,
}

impl Input {
    /// Reads `path`'s footer and refuses what a merge cannot copy (encrypted files).
    pub fn open(path: &Path) -> Result<Self> {
        let place = || format!("input {}", path.display());
        let mut file = File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
        let (metadata, _) = read_metadata(&mut file).map_err(|e| e.context(place()))?;
        let encrypted = metadata.encryption_algorithm.is_some()
            || metadata
                .row_groups
                .iter()
                .flat_map(|g| &g.columns)
                .any(|c| c.crypto_metadata.is_some() || c.meta_data.is_none());
        if encrypted {
            return Err(Error::unsupported("encrypted files cannot be merged").context(place()));
        }
        SchemaDescriptor::from_metadata(&metadata).map_err(|e| e.context(place()))?;
        Ok(Input { path: path.to_owned(), metadata })
    }

    /// A source over the file, opened for one column chunk's pages and closed after.
    /// Positional reads straight into the page buffers (no buffered reader's extra copy).
    pub fn source(&self) -> Result<FileSource> {
        let file = File::open(&self.path).map_err(|e| Error::io(format!("opening {}", self.path.display()), e))?;
        FileSource::new(file)
    }
}

/// Checks that `other`'s schema is `first`'s: names, types, annotations and repetition of
/// every node. The error names the first differing column and the file.
pub(crate) fn check_schema(first: &Input, other: &Input) -> Result<()> {
    let (a, b) = (&first.metadata.schema, &other.metadata.schema);
    let same = |x: &SchemaElement, y: &SchemaElement| {
        let (xc, yc) = (plain_annotation(x), plain_annotation(y));
        x.name == y.name
            && x.physical_type == y.physical_type
            && x.type_length == y.type_length
            && x.repetition == y.repetition
            && x.num_children == y.num_children
            && xc.0 == yc.0
            // Writers that set only the legacy annotation (duckdb) mean the same type.
            && (xc.1 == yc.1 || xc.1.is_none() || yc.1.is_none())
            && x.scale == y.scale
            && x.precision == y.precision
    };
    for i in 1..a.len().max(b.len()) {
        match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) if same(x, y) => {}
            (x, y) => {
                let show = |e: Option<&SchemaElement>| match e {
                    Some(e) => format!(
                        "'{}' ({}{}{}{})",
                        e.name,
                        e.repetition.map_or(String::new(), |r| format!("{r} ")),
                        e.physical_type.map_or("group".to_owned(), |t| t.to_string()),
                        e.logical_type.as_ref().map_or(String::new(), |l| format!(" {l}")),
                        e.converted_type.map_or(String::new(), |c| format!(" {c}")),
                    ),
                    None => "no column".to_owned(),
                };
                return Err(Error::invalid_argument(format!(
                    "{}: the schema differs from {}'s at schema node {i}: {} there, {} here",
                    other.path.display(),
                    first.path.display(),
                    show(x),
                    show(y)
                )));
            }
        }
    }
    Ok(())
}

/// A node's converted and logical annotations, with the ones that only restate the physical
/// type (INT_32 on INT32, INT_64 on INT64, and their logical forms) dropped: duckdb writes
/// them, other writers leave them out, and both mean a signed integer.
fn plain_annotation(e: &SchemaElement) -> (Option<ConvertedType>, Option<LogicalType>) {
    let restates = match e.physical_type {
        Some(PhysicalType::INT32) => (ConvertedType::INT_32, 32),
        Some(PhysicalType::INT64) => (ConvertedType::INT_64, 64),
        _ => return (e.converted_type, e.logical_type.clone()),
    };
    let converted = e.converted_type.filter(|&c| c != restates.0);
    let logical =
        e.logical_type.clone().filter(|l| *l != LogicalType::Integer { bit_width: restates.1, is_signed: true });
    (converted, logical)
}

/// An output row group: one input row group copied whole, or a run of small ones merged
/// column by column. Items are `(input, row group)`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Group {
    Copy(usize, usize),
    Coalesce(Vec<(usize, usize)>),
}

/// Plans the output row groups, keeping the inputs' row order: a row group at or above the
/// row or byte target is copied whole, consecutive smaller ones are coalesced up to the target.
pub(crate) fn plan(inputs: &[Input], target_rows: u64, target_bytes: u64, copy_whole: bool) -> Vec<Group> {
    let mut groups = Vec::new();
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let (mut rows, mut bytes) = (0u64, 0u64);
    for (i, input) in inputs.iter().enumerate() {
        for (g, rg) in input.metadata.row_groups.iter().enumerate() {
            let (r, b) = (rg.num_rows.max(0) as u64, group_bytes(rg));
            if copy_whole && (r >= target_rows || b >= target_bytes) {
                if !pending.is_empty() {
                    groups.push(Group::Coalesce(std::mem::take(&mut pending)));
                }
                groups.push(Group::Copy(i, g));
                (rows, bytes) = (0, 0);
                continue;
            }
            if !pending.is_empty() && (rows + r > target_rows || bytes + b > target_bytes) {
                groups.push(Group::Coalesce(std::mem::take(&mut pending)));
                (rows, bytes) = (0, 0);
            }
            pending.push((i, g));
            rows += r;
            bytes += b;
        }
    }
    if !pending.is_empty() {
        groups.push(Group::Coalesce(pending));
    }
    groups
}

fn group_bytes(rg: &crate::format::RowGroup) -> u64 {
    rg.total_compressed_size.filter(|&s| s > 0).map_or_else(
        || rg.columns.iter().filter_map(|c| c.meta_data.as_ref()).map(|m| m.total_compressed_size.max(0) as u64).sum(),
        |s| s as u64,
    )
}
