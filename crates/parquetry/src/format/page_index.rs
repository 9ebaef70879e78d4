//! The page index (`ColumnIndex`, `OffsetIndex`) and the `BloomFilterHeader`: structures
//! stored between the row groups and the footer, pointed to by each `ColumnChunk`.

use super::enums::BoundaryOrder;
use super::thrift::{required, ThriftReader, ThriftStruct, ThriftWriter};
use crate::error::Result;

/// Where one data page is, and its first row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLocation {
    /// File offset of the page header.
    pub offset: i64,
    /// Page size including its header.
    pub compressed_page_size: i32,
    /// Index within the row group of the page's first row.
    pub first_row_index: i64,
}

impl ThriftStruct for PageLocation {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut offset, mut size, mut first) = (None, None, None);
        r.read_struct("PageLocation", |r, id, ty| {
            match id {
                1 => offset = Some(r.i64(ty)?),
                2 => size = Some(r.i32(ty)?),
                3 => first = Some(r.i64(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(PageLocation {
            offset: required(offset, "PageLocation.offset")?,
            compressed_page_size: required(size, "PageLocation.compressed_page_size")?,
            first_row_index: required(first, "PageLocation.first_row_index")?,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i64(1, self.offset);
        w.i32(2, self.compressed_page_size);
        w.i64(3, self.first_row_index);
        w.struct_end();
    }
}

/// The location of every data page of a column chunk, for seeking by row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OffsetIndex {
    /// Pages in file order.
    pub page_locations: Vec<PageLocation>,
    /// Per page, the bytes of BYTE_ARRAY values without length prefixes.
    pub unencoded_byte_array_data_bytes: Option<Vec<i64>>,
}

impl ThriftStruct for OffsetIndex {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut o = OffsetIndex::default();
        let mut locations = None;
        r.read_struct("OffsetIndex", |r, id, ty| {
            match id {
                1 => locations = Some(r.struct_list(ty)?),
                2 => o.unencoded_byte_array_data_bytes = Some(r.i64_list(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        o.page_locations = required(locations, "OffsetIndex.page_locations")?;
        Ok(o)
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.struct_list(1, &self.page_locations);
        if let Some(u) = &self.unencoded_byte_array_data_bytes {
            w.i64_list(2, u);
        }
        w.struct_end();
    }
}

/// Per-page min/max and null counts of a column chunk, for skipping pages by value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnIndex {
    /// Per page: true if the page holds only nulls.
    pub null_pages: Vec<bool>,
    /// Per page lower bounds (empty for null pages).
    pub min_values: Vec<Vec<u8>>,
    /// Per page upper bounds.
    pub max_values: Vec<Vec<u8>>,
    /// Whether the bounds are sorted across pages.
    pub boundary_order: BoundaryOrder,
    /// Per page null counts.
    pub null_counts: Option<Vec<i64>>,
    /// Per page repetition level histograms, concatenated.
    pub repetition_level_histograms: Option<Vec<i64>>,
    /// Per page definition level histograms, concatenated.
    pub definition_level_histograms: Option<Vec<i64>>,
    /// Per page NaN counts.
    pub nan_counts: Option<Vec<i64>>,
}

impl ThriftStruct for ColumnIndex {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut c = ColumnIndex::default();
        let (mut null_pages, mut min_values, mut max_values, mut order) = (None, None, None, None);
        r.read_struct("ColumnIndex", |r, id, ty| {
            match id {
                1 => null_pages = Some(r.bool_list(ty)?),
                2 => min_values = Some(r.binary_list(ty)?),
                3 => max_values = Some(r.binary_list(ty)?),
                4 => order = Some(BoundaryOrder(r.i32(ty)?)),
                5 => c.null_counts = Some(r.i64_list(ty)?),
                6 => c.repetition_level_histograms = Some(r.i64_list(ty)?),
                7 => c.definition_level_histograms = Some(r.i64_list(ty)?),
                8 => c.nan_counts = Some(r.i64_list(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        c.null_pages = required(null_pages, "ColumnIndex.null_pages")?;
        c.min_values = required(min_values, "ColumnIndex.min_values")?;
        c.max_values = required(max_values, "ColumnIndex.max_values")?;
        c.boundary_order = required(order, "ColumnIndex.boundary_order")?;
        Ok(c)
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.bool_list(1, &self.null_pages);
        w.binary_list(2, &self.min_values);
        w.binary_list(3, &self.max_values);
        w.i32(4, self.boundary_order.0);
        for (id, list) in [
            (5, &self.null_counts),
            (6, &self.repetition_level_histograms),
            (7, &self.definition_level_histograms),
            (8, &self.nan_counts),
        ] {
            if let Some(l) = list {
                w.i64_list(id, l);
            }
        }
        w.struct_end();
    }
}

/// The header in front of a column chunk's bloom filter bitset.
///
/// The specification defines one algorithm (split block), one hash (xxHash64) and no
/// compression; each is a union, and a member this version does not know is kept by id so the
/// caller can refuse the filter rather than misread it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilterHeader {
    /// Size of the bitset in bytes.
    pub num_bytes: i32,
    /// Union member id of the algorithm (1 = split block).
    pub algorithm: i16,
    /// Union member id of the hash (1 = xxHash64).
    pub hash: i16,
    /// Union member id of the compression (1 = uncompressed).
    pub compression: i16,
}

fn read_union_id(r: &mut ThriftReader<'_>, ty: u8, name: &'static str) -> Result<i16> {
    r.expect_struct(ty)?;
    let mut member = None;
    r.read_struct(name, |r, id, ty| {
        member = Some(id);
        r.skip(ty)
    })?;
    required(member, name)
}

impl ThriftStruct for BloomFilterHeader {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut num_bytes, mut algorithm, mut hash, mut compression) = (None, None, None, None);
        r.read_struct("BloomFilterHeader", |r, id, ty| {
            match id {
                1 => num_bytes = Some(r.i32(ty)?),
                2 => algorithm = Some(read_union_id(r, ty, "BloomFilterAlgorithm")?),
                3 => hash = Some(read_union_id(r, ty, "BloomFilterHash")?),
                4 => compression = Some(read_union_id(r, ty, "BloomFilterCompression")?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(BloomFilterHeader {
            num_bytes: required(num_bytes, "BloomFilterHeader.numBytes")?,
            algorithm: required(algorithm, "BloomFilterHeader.algorithm")?,
            hash: required(hash, "BloomFilterHeader.hash")?,
            compression: required(compression, "BloomFilterHeader.compression")?,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.num_bytes);
        for (id, member) in [(2, self.algorithm), (3, self.hash), (4, self.compression)] {
            w.struct_begin_field(id);
            w.empty_struct(member);
            w.struct_end();
        }
        w.struct_end();
    }
}

/// The page index of a file: every column index, then every offset index (as Arrow C++ and
/// arrow-rs lay them out), encoded to be written at file offset `start`, right after the last
/// row group. `indexes[g][c]` belongs to column chunk `c` of row group `g`, whose
/// `column_index_*` and `offset_index_*` fields are pointed at its entries.
pub fn encode_page_indexes(
    start: u64,
    groups: &mut [super::RowGroup],
    indexes: &[Vec<(Option<ColumnIndex>, Option<OffsetIndex>)>],
) -> Vec<u8> {
    let mut out = Vec::new();
    for (group, row_group) in indexes.iter().zip(groups.iter_mut()) {
        for ((column_index, _), chunk) in group.iter().zip(row_group.columns.iter_mut()) {
            if let Some(index) = column_index {
                let at = out.len();
                super::thrift::encode(index, &mut out);
                chunk.column_index_offset = Some((start + at as u64) as i64);
                chunk.column_index_length = Some((out.len() - at) as i32);
            }
        }
    }
    for (group, row_group) in indexes.iter().zip(groups.iter_mut()) {
        for ((_, offset_index), chunk) in group.iter().zip(row_group.columns.iter_mut()) {
            if let Some(index) = offset_index {
                let at = out.len();
                super::thrift::encode(index, &mut out);
                chunk.offset_index_offset = Some((start + at as u64) as i64);
                chunk.offset_index_length = Some((out.len() - at) as i32);
            }
        }
    }
    out
}
