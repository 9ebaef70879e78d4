//! Footer decoding: a wide footer (1,000 columns × 10 row groups, with statistics) decoded by
//! parquetry and by the arrow-rs `parquet` crate, from the same bytes, in the same run.

use parquetry::format::{
    self, thrift, ColumnChunk, ColumnMetaData, CompressionCodec, ConvertedType, Encoding, FileMetaData, KeyValue,
    LogicalType, PageEncodingStats, PageType, PhysicalType, Repetition, RowGroup, SchemaElement, SizeStatistics,
    Statistics,
};
use parquetry::schema::SchemaDescriptor;

use crate::timing::measure;

/// Builds the footer bytes (Thrift only, as both decoders take them) of a file shaped like
/// what pyarrow writes: string, int64 and double columns, statistics on every chunk,
/// encoding stats, size statistics on strings.
pub fn wide_footer(columns: usize, row_groups: usize) -> Vec<u8> {
    let mut schema = vec![SchemaElement {
        name: "schema".into(),
        num_children: Some(columns as i32),
        repetition: Some(Repetition::REQUIRED),
        ..Default::default()
    }];
    let kind = |c: usize| c % 3;
    for c in 0..columns {
        let (t, lt, ct) = match kind(c) {
            0 => (PhysicalType::BYTE_ARRAY, Some(LogicalType::String), Some(ConvertedType::UTF8)),
            1 => (PhysicalType::INT64, None, None),
            _ => (PhysicalType::DOUBLE, None, None),
        };
        schema.push(SchemaElement {
            physical_type: Some(t),
            repetition: Some(Repetition::OPTIONAL),
            name: format!("column_{c:04}"),
            logical_type: lt,
            converted_type: ct,
            ..Default::default()
        });
    }
    let mut offset = 4i64;
    let mut groups = Vec::with_capacity(row_groups);
    for g in 0..row_groups {
        let mut chunks = Vec::with_capacity(columns);
        for c in 0..columns {
            let size = 10_000 + (c as i64 * 37) % 5_000;
            let (t, min, max) = match kind(c) {
                0 => (
                    PhysicalType::BYTE_ARRAY,
                    format!("aaaa-{g:04}-{c:06}").into_bytes(),
                    format!("zzzz-{g:04}-{c:06}").into_bytes(),
                ),
                1 => (
                    PhysicalType::INT64,
                    (-(c as i64)).to_le_bytes().to_vec(),
                    (c as i64 * 1000).to_le_bytes().to_vec(),
                ),
                _ => (PhysicalType::DOUBLE, (-1.5f64).to_le_bytes().to_vec(), (c as f64).to_le_bytes().to_vec()),
            };
            let meta = ColumnMetaData {
                physical_type: t,
                encodings: vec![Encoding::PLAIN, Encoding::RLE, Encoding::RLE_DICTIONARY].into(),
                path_in_schema: vec![format!("column_{c:04}")].into(),
                codec: CompressionCodec::SNAPPY,
                num_values: 100_000,
                total_uncompressed_size: size * 2,
                total_compressed_size: size,
                key_value_metadata: None,
                data_page_offset: offset + 300,
                index_page_offset: None,
                dictionary_page_offset: Some(offset),
                statistics: Some(Statistics {
                    null_count: Some((c % 7) as i64),
                    max_value: Some(max.into()),
                    min_value: Some(min.into()),
                    ..Default::default()
                }),
                encoding_stats: Some(
                    vec![
                        PageEncodingStats { page_type: PageType::DICTIONARY_PAGE, encoding: Encoding::PLAIN, count: 1 },
                        PageEncodingStats {
                            page_type: PageType::DATA_PAGE,
                            encoding: Encoding::RLE_DICTIONARY,
                            count: 1,
                        },
                    ]
                    .into(),
                ),
                bloom_filter_offset: None,
                bloom_filter_length: None,
                size_statistics: (kind(c) == 0)
                    .then(|| SizeStatistics { unencoded_byte_array_data_bytes: Some(size * 3), ..Default::default() }),
                geospatial_statistics: None,
            };
            chunks.push(ColumnChunk { file_offset: offset, meta_data: Some(meta), ..Default::default() });
            offset += size;
        }
        groups.push(RowGroup {
            columns: chunks,
            total_byte_size: offset,
            num_rows: 100_000,
            file_offset: Some(4),
            total_compressed_size: Some(offset),
            ordinal: Some(g as i16),
            ..Default::default()
        });
    }
    let meta = FileMetaData {
        version: 2,
        schema,
        num_rows: (100_000 * row_groups) as i64,
        row_groups: groups,
        key_value_metadata: Some(vec![KeyValue { key: "writer".into(), value: Some("parquetry-bench".into()) }]),
        created_by: Some("parquetry-bench wide footer".into()),
        ..Default::default()
    };
    let mut out = Vec::new();
    thrift::encode(&meta, &mut out);
    out
}

/// Runs the footer benchmark and prints a Markdown table.
pub fn run(runs: usize) {
    let (columns, row_groups) = (1000, 10);
    let bytes = wide_footer(columns, row_groups);

    // Both decoders must agree on the footer before either is timed.
    let ours = format::footer::decode_file_metadata(&bytes).expect("parquetry decodes");
    let theirs = parquet::file::metadata::ParquetMetaDataReader::decode_metadata(&bytes)
        .expect("arrow-rs decodes parquetry's encoding");
    assert_eq!(theirs.num_row_groups(), ours.row_groups.len());
    assert_eq!(theirs.file_metadata().schema_descr().num_columns(), columns);
    assert_eq!(
        theirs.row_group(9).column(999).compressed_size(),
        ours.row_groups[9].columns[999].meta_data.as_ref().unwrap().total_compressed_size
    );

    let t_ours = measure(3, runs, || {
        let meta = format::footer::decode_file_metadata(&bytes).unwrap();
        let desc = SchemaDescriptor::from_metadata(&meta).unwrap();
        (meta, desc)
    });
    let t_arrow = measure(3, runs, || parquet::file::metadata::ParquetMetaDataReader::decode_metadata(&bytes).unwrap());
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!("### Footer decode: {columns} columns × {row_groups} row groups, {} KiB of Thrift", bytes.len() / 1024);
    println!();
    println!("median of {runs} runs after 3 warm-ups; both build the schema descriptor too");
    println!();
    println!("| implementation | median ms | MB/s | parquetry speed-up |");
    println!("|---|---:|---:|---:|");
    let mbps = |d: std::time::Duration| bytes.len() as f64 / d.as_secs_f64() / 1e6;
    let (o, a) = (t_ours.median(), t_arrow.median());
    println!("| parquetry | {:.2} | {:.0} | 1.00x |", ms(o), mbps(o));
    println!("| arrow-rs parquet 60.1 | {:.2} | {:.0} | {:.2}x |", ms(a), mbps(a), a.as_secs_f64() / o.as_secs_f64());
}
