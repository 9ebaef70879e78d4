//! The settings a write is measured with, read from the input file's footer so that every
//! writer reproduces the file it was given (GUIDE.md, "Measuring": writers differ on almost
//! every default, so each one is set explicitly, on both sides):
//!
//! - per column: the codec (ZSTD at level 1, what Arrow C++ and arrow-rs default to), and
//!   either dictionary encoding (the chunk's data pages are RLE_DICTIONARY) or the single
//!   encoding of its data pages (PLAIN, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, ...)
//!   with the dictionary off;
//! - for the file: row groups as large as the input's largest, v1 data pages of at most
//!   1 MiB and 20,000 rows, a dictionary page limit high enough that no column falls back
//!   (as bench/datasets.py writes the dict files), page-level statistics (chunk statistics
//!   plus the column index) and the page index.
//!
//! [`WriteSpec::parquetry`] and [`WriteSpec::arrow_rs`] turn it into each writer's options;
//! [`OutputShape::read`] reads a written file's page headers back so the cell can check
//! that the writer did what it was told.

use std::collections::{BTreeMap, BTreeSet};

use parquet::basic::{Compression, Encoding as ArrowRsEncoding, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use parquetry::compress::Codec;
use parquetry::format::{Encoding, FileMetaData, PageType};
use parquetry::page::{BytesSource, PageStream};
use parquetry::write::{DataPageVersion, StatisticsLevel, WriteOptions};
use serde_json::{json, Value};

/// Data page size limit: 1 MiB, the default of Arrow C++, arrow-rs and parquetry.
pub const DATA_PAGE_SIZE: usize = 1 << 20;
/// Data page row limit: 20,000, the default of Arrow C++, arrow-rs and parquetry.
pub const DATA_PAGE_ROWS: usize = 20_000;
/// Dictionary page limit: raised (as bench/datasets.py does) so that no column falls back.
pub const DICTIONARY_PAGE_LIMIT: usize = 1 << 30;
/// The ZSTD level of every writer: 1, Arrow C++'s and arrow-rs's default.
pub const ZSTD_LEVEL: i32 = 1;

/// How one leaf column is written.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    /// The column's dotted path (`id`, or `tags.list.element` inside a list).
    pub name: String,
    /// Codec of every page.
    pub codec: Codec,
    /// Dictionary encoding on (RLE_DICTIONARY data pages) or off.
    pub dictionary: bool,
    /// The data page encoding when the dictionary is off (PLAIN as the fallback otherwise).
    pub encoding: Encoding,
}

/// How a whole file is written.
#[derive(Debug, Clone)]
pub struct WriteSpec {
    /// One entry per leaf column, in schema order.
    pub columns: Vec<ColumnSpec>,
    /// Rows per row group (the input's largest row group).
    pub row_group_rows: usize,
}

fn is_dictionary(e: Encoding) -> bool {
    e == Encoding::RLE_DICTIONARY || e == Encoding::PLAIN_DICTIONARY
}

/// The encodings of a chunk's data pages (from `encoding_stats`; without them, the chunk's
/// `encodings` less the level encodings).
fn data_page_encodings(cm: &parquetry::format::ColumnMetaData) -> BTreeSet<Encoding> {
    match &cm.encoding_stats {
        Some(stats) => stats
            .iter()
            .filter(|s| s.page_type == PageType::DATA_PAGE || s.page_type == PageType::DATA_PAGE_V2)
            .map(|s| s.encoding)
            .collect(),
        None => {
            let dict = cm.dictionary_page_offset.is_some();
            cm.encodings
                .iter()
                .copied()
                .filter(|&e| e != Encoding::RLE && e != Encoding::BIT_PACKED)
                .filter(|&e| !(dict && e == Encoding::PLAIN))
                .collect()
        }
    }
}

impl WriteSpec {
    /// Reads the settings from the footer of the input file.
    pub fn from_footer(meta: &FileMetaData) -> Result<WriteSpec, String> {
        let first = meta.row_groups.first().ok_or("the input file has no row group")?;
        let mut columns = Vec::new();
        for (c, chunk) in first.columns.iter().enumerate() {
            let cm = chunk.meta_data.as_ref().ok_or_else(|| format!("column {c}: no metadata"))?;
            let codec = Codec::from_thrift(cm.codec.0).map_err(|e| e.to_string())?;
            let encodings = data_page_encodings(cm);
            let dictionary = encodings.iter().any(|&e| is_dictionary(e));
            let encoding = match (dictionary, encodings.len()) {
                (true, 1) => Encoding::PLAIN,
                (false, 1) => *encodings.first().expect("one"),
                _ => {
                    return Err(format!(
                        "column {}: data pages in {encodings:?}: the input mixes encodings \
                         (a dictionary that fell back?), so there is no one setting to reproduce",
                        cm.path_in_schema.join(".")
                    ))
                }
            };
            columns.push(ColumnSpec { name: cm.path_in_schema.join("."), codec, dictionary, encoding });
        }
        let row_group_rows = meta.row_groups.iter().map(|g| g.num_rows.max(1) as usize).max().unwrap_or(1);
        Ok(WriteSpec { columns, row_group_rows })
    }

    /// The same settings with dictionary encoding on for every column (the dictionary-input
    /// cells: `DictionaryArray` columns written as dictionaries).
    pub fn with_dictionary_everywhere(&self) -> WriteSpec {
        let mut spec = self.clone();
        for c in &mut spec.columns {
            (c.dictionary, c.encoding) = (true, Encoding::PLAIN);
        }
        spec
    }

    /// Whether every column is dictionary-encoded.
    pub fn all_dictionary(&self) -> bool {
        self.columns.iter().all(|c| c.dictionary)
    }

    fn level(codec: Codec) -> Option<i32> {
        (codec == Codec::Zstd).then_some(ZSTD_LEVEL)
    }

    /// parquetry's options: every setting explicit, none left to a default.
    pub fn parquetry(&self) -> WriteOptions {
        let mut o = WriteOptions::new()
            .with_data_page_version(DataPageVersion::V1)
            .with_data_page_size(DATA_PAGE_SIZE)
            .with_data_page_row_limit(DATA_PAGE_ROWS)
            .with_row_group_rows(self.row_group_rows)
            .with_dictionary_page_size_limit(DICTIONARY_PAGE_LIMIT)
            .with_statistics(StatisticsLevel::Page)
            .with_page_index(true)
            .with_page_header_statistics(false)
            .with_crc(false);
        for c in &self.columns {
            o = o
                .with_column_compression(&c.name, parquetry::compress::Compression::new(c.codec, Self::level(c.codec)));
            o = if c.dictionary {
                o.with_column_dictionary(&c.name, true)
            } else {
                o.with_column_encoding(&c.name, c.encoding)
            };
        }
        o
    }

    /// arrow-rs's `WriterProperties`: every setting explicit except the write batch size
    /// (its default, 1,024 rows: arrow-rs checks page limits between write batches).
    pub fn arrow_rs(&self) -> Result<WriterProperties, String> {
        let mut b = WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_1_0)
            .set_data_page_size_limit(DATA_PAGE_SIZE)
            .set_data_page_row_count_limit(DATA_PAGE_ROWS)
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .set_dictionary_page_size_limit(DICTIONARY_PAGE_LIMIT)
            .set_statistics_enabled(EnabledStatistics::Page)
            .set_write_page_header_statistics(false)
            .set_offset_index_disabled(false);
        for c in &self.columns {
            let path = ColumnPath::new(c.name.split('.').map(str::to_owned).collect());
            let compression = match c.codec {
                Codec::Uncompressed => Compression::UNCOMPRESSED,
                Codec::Snappy => Compression::SNAPPY,
                Codec::Zstd => Compression::ZSTD(ZstdLevel::try_new(ZSTD_LEVEL).map_err(|e| e.to_string())?),
                other => return Err(format!("codec {} is not set up for arrow-rs here", other.name())),
            };
            let encoding = arrow_rs_encoding(c.encoding)?;
            b = b
                .set_column_compression(path.clone(), compression)
                .set_column_dictionary_enabled(path.clone(), c.dictionary)
                .set_column_encoding(path, encoding);
        }
        Ok(b.build())
    }

    /// The settings, for `impl_info`.
    pub fn describe(&self) -> Value {
        let columns: BTreeMap<&str, Value> = self
            .columns
            .iter()
            .map(|c| {
                let enc = if c.dictionary { "dictionary".to_owned() } else { c.encoding.to_string() };
                (c.name.as_str(), json!({"codec": c.codec.name(), "level": Self::level(c.codec), "encoding": enc}))
            })
            .collect();
        json!({
            "columns": columns,
            "row_group_rows": self.row_group_rows,
            "data_page_version": 1,
            "data_page_size": DATA_PAGE_SIZE,
            "data_page_rows": DATA_PAGE_ROWS,
            "dictionary_page_limit": DICTIONARY_PAGE_LIMIT,
            "statistics": "page (chunk statistics + column index)",
            "page_index": true,
        })
    }

    /// The data page encodings each column must show in the output.
    pub fn expected_encodings(&self) -> BTreeMap<String, Vec<String>> {
        self.columns
            .iter()
            .map(|c| {
                let e = if c.dictionary { Encoding::RLE_DICTIONARY } else { c.encoding };
                (c.name.clone(), vec![e.to_string()])
            })
            .collect()
    }
}

fn arrow_rs_encoding(e: Encoding) -> Result<ArrowRsEncoding, String> {
    Ok(match e {
        Encoding::PLAIN => ArrowRsEncoding::PLAIN,
        Encoding::DELTA_LENGTH_BYTE_ARRAY => ArrowRsEncoding::DELTA_LENGTH_BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY => ArrowRsEncoding::DELTA_BYTE_ARRAY,
        Encoding::DELTA_BINARY_PACKED => ArrowRsEncoding::DELTA_BINARY_PACKED,
        Encoding::BYTE_STREAM_SPLIT => ArrowRsEncoding::BYTE_STREAM_SPLIT,
        Encoding::RLE => ArrowRsEncoding::RLE,
        other => return Err(format!("encoding {other} is not set up for arrow-rs here")),
    })
}

/// What a written file holds: row groups, data pages, and the data page encodings of each
/// column, read from the page headers themselves (PLAIN_DICTIONARY counted as
/// RLE_DICTIONARY: both are dictionary indexes), not from the footer's `encoding_stats`,
/// which a writer may get wrong; whether those agree is recorded too.
pub struct OutputShape {
    /// Row groups in the file.
    pub row_groups: usize,
    /// Data pages over all chunks.
    pub data_pages: u64,
    /// Column name → its data page encodings over all row groups.
    pub encodings: BTreeMap<String, BTreeSet<String>>,
    /// Whether every chunk's `encoding_stats` (when present) counts exactly its data pages
    /// by encoding, as the page headers say.
    pub encoding_stats_match: bool,
    /// Whether every chunk has a column index and an offset index.
    pub page_index: bool,
    /// Whether every chunk has min/max statistics (or is all nulls).
    pub statistics: bool,
}

impl OutputShape {
    /// Walks every page header of the written `file` (footer `meta`).
    pub fn read(file: &[u8], meta: &FileMetaData) -> Result<OutputShape, String> {
        let mut source = BytesSource::new(file.to_vec());
        let mut shape = OutputShape {
            row_groups: meta.row_groups.len(),
            data_pages: 0,
            encodings: BTreeMap::new(),
            encoding_stats_match: true,
            page_index: true,
            statistics: true,
        };
        for (g, rg) in meta.row_groups.iter().enumerate() {
            for (c, chunk) in rg.columns.iter().enumerate() {
                let at = |e: String| format!("row group {g} column {c}: {e}");
                shape.page_index &= chunk.column_index_offset.is_some() && chunk.offset_index_offset.is_some();
                let cm = chunk.meta_data.as_ref().ok_or_else(|| at("no column metadata".into()))?;
                shape.statistics &= cm.statistics.as_ref().is_some_and(|s| {
                    (s.min_value.is_some() && s.max_value.is_some()) || s.null_count == Some(rg.num_rows)
                });
                let mut counts: BTreeMap<Encoding, i32> = BTreeMap::new();
                let mut stream = PageStream::new(cm, file.len() as u64, false).map_err(|e| at(e.to_string()))?;
                while let Some(page) = stream.next_page(&mut source).map_err(|e| at(e.to_string()))? {
                    let h = &page.header;
                    let encoding = match (&h.data_page_header, &h.data_page_header_v2) {
                        (Some(v1), _) => v1.encoding,
                        (_, Some(v2)) => v2.encoding,
                        _ => continue,
                    };
                    *counts.entry(encoding).or_default() += 1;
                }
                if let Some(stats) = &cm.encoding_stats {
                    let mut listed: BTreeMap<Encoding, i32> = BTreeMap::new();
                    for s in stats
                        .iter()
                        .filter(|s| s.page_type == PageType::DATA_PAGE || s.page_type == PageType::DATA_PAGE_V2)
                    {
                        *listed.entry(s.encoding).or_default() += s.count;
                    }
                    shape.encoding_stats_match &= listed == counts;
                }
                shape.data_pages += counts.values().map(|&n| n as u64).sum::<u64>();
                let set = shape.encodings.entry(cm.path_in_schema.join(".")).or_default();
                for e in counts.into_keys() {
                    set.insert(if is_dictionary(e) { Encoding::RLE_DICTIONARY } else { e }.to_string());
                }
            }
        }
        Ok(shape)
    }

    /// Whether each column's data pages use exactly the `expected` encodings.
    pub fn matches(&self, expected: &BTreeMap<String, Vec<String>>) -> bool {
        expected.len() == self.encodings.len()
            && expected.iter().all(|(name, want)| {
                let want: BTreeSet<String> = want.iter().cloned().collect();
                self.encodings.get(name) == Some(&want)
            })
    }
}
