//! `FileMetaData` and `RowGroup`: the root of the footer.

use std::sync::Arc;

use super::column_chunk::ColumnChunk;
use super::schema_element::SchemaElement;
use super::thrift::{check_required, required, ttype, ThriftReader, ThriftStruct, ThriftWriter};
use crate::error::Result;

/// The path of every leaf of a flattened schema, or none if the child counts do not add up
/// (the schema layer reports that; here the paths are only a decoding shortcut).
fn leaf_paths(schema: &[SchemaElement]) -> Vec<Arc<[String]>> {
    let mut paths = Vec::new();
    // (children left to visit, whether the group was pushed onto `path`) per open group.
    let mut open: Vec<(i32, bool)> = Vec::new();
    let mut path: Vec<String> = Vec::new();
    for (i, e) in schema.iter().enumerate() {
        while let Some((0, pushed)) = open.last().copied() {
            open.pop();
            if pushed {
                path.pop();
            }
        }
        if let Some(top) = open.last_mut() {
            top.0 -= 1;
        } else if i > 0 {
            return Vec::new();
        }
        let children = e.num_children.unwrap_or(0);
        if children > 0 || i == 0 {
            if children < 0 || open.len() > 128 {
                return Vec::new();
            }
            if i > 0 {
                path.push(e.name.clone());
            }
            open.push((children, i > 0));
        } else {
            let mut p = path.clone();
            p.push(e.name.clone());
            paths.push(p.into());
        }
    }
    paths
}

/// A key/value pair of application metadata (e.g. `ARROW:schema`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// The value, if any.
    pub value: Option<String>,
}

impl ThriftStruct for KeyValue {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut key, mut value) = (None, None);
        r.read_struct("KeyValue", |r, id, ty| {
            match id {
                1 => key = Some(r.string(ty)?),
                // Values are declared `string`, but some writers store arbitrary bytes; keep
                // what can be kept instead of failing the whole footer.
                2 => value = Some(String::from_utf8_lossy(r.binary(ty)?).into_owned()),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(KeyValue { key: required(key, "KeyValue.key")?, value })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.binary(1, self.key.as_bytes());
        w.opt_binary(2, self.value.as_deref().map(str::as_bytes));
        w.struct_end();
    }
}

/// One column by which a row group's rows are sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortingColumn {
    /// Leaf column index.
    pub column_idx: i32,
    /// Descending rather than ascending.
    pub descending: bool,
    /// Nulls before non-null values.
    pub nulls_first: bool,
}

impl ThriftStruct for SortingColumn {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let (mut column_idx, mut descending, mut nulls_first) = (None, None, None);
        r.read_struct("SortingColumn", |r, id, ty| {
            match id {
                1 => column_idx = Some(r.i32(ty)?),
                2 => descending = Some(r.bool(ty)?),
                3 => nulls_first = Some(r.bool(ty)?),
                _ => r.skip(ty)?,
            }
            Ok(())
        })?;
        Ok(SortingColumn {
            column_idx: required(column_idx, "SortingColumn.column_idx")?,
            descending: required(descending, "SortingColumn.descending")?,
            nulls_first: required(nulls_first, "SortingColumn.nulls_first")?,
        })
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.column_idx);
        w.bool(2, self.descending);
        w.bool(3, self.nulls_first);
        w.struct_end();
    }
}

/// A horizontal slice of the file: one column chunk per leaf column.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowGroup {
    /// One chunk per leaf, in schema order.
    pub columns: Vec<ColumnChunk>,
    /// Uncompressed bytes of all column data.
    pub total_byte_size: i64,
    /// Number of rows.
    pub num_rows: i64,
    /// Sort order of the rows, if declared.
    pub sorting_columns: Option<Vec<SortingColumn>>,
    /// File offset of the first page.
    pub file_offset: Option<i64>,
    /// Compressed bytes of all column data.
    pub total_compressed_size: Option<i64>,
    /// Position of the row group in the file.
    pub ordinal: Option<i16>,
}

impl ThriftStruct for RowGroup {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut g = RowGroup::default();
        Self::read_into(&mut g, r)?;
        Ok(g)
    }

    fn read_into(g: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        let mut seen = 0u32;
        r.read_struct("RowGroup", |r, id, ty| {
            match id {
                1 => {
                    // Decoded element by element so each chunk's path can be checked against
                    // the schema's path of the same leaf (see `expect_string_list`).
                    let len = r.list_header(ty, ttype::STRUCT)?;
                    g.columns.clear();
                    // Defaults written in place (no temporary moved into the vector).
                    g.columns.resize_with(len, ColumnChunk::default);
                    for (i, chunk) in g.columns.iter_mut().enumerate() {
                        r.set_expected_index(i);
                        ColumnChunk::read_into(chunk, r).map_err(|e| e.context(format_args!("element {i}")))?;
                    }
                }
                2 => g.total_byte_size = r.i64(ty)?,
                3 => g.num_rows = r.i64(ty)?,
                4 => g.sorting_columns = Some(r.struct_list(ty)?),
                5 => g.file_offset = Some(r.i64(ty)?),
                6 => g.total_compressed_size = Some(r.i64(ty)?),
                7 => g.ordinal = Some(r.i16(ty)?),
                _ => return r.skip(ty),
            }
            seen |= 1 << id;
            Ok(())
        })?;
        check_required(seen, &[(1, "columns"), (2, "total_byte_size"), (3, "num_rows")], "RowGroup")
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.struct_list(1, &self.columns);
        w.i64(2, self.total_byte_size);
        w.i64(3, self.num_rows);
        if let Some(s) = &self.sorting_columns {
            w.struct_list(4, s);
        }
        w.opt_i64(5, self.file_offset);
        w.opt_i64(6, self.total_compressed_size);
        if let Some(o) = self.ordinal {
            w.i16(7, o);
        }
        w.struct_end();
    }
}

/// The order in which a column's min/max statistics were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnOrder {
    /// The order of the logical type (or physical type without one).
    TypeDefined,
    /// IEEE 754 total order (floating point).
    Ieee754TotalOrder,
    /// Chronological order of INT96 timestamps.
    Int96TimestampOrder,
    /// An order this version does not know; statistics must be ignored.
    Unknown(i16),
}

impl ThriftStruct for ColumnOrder {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut order = None;
        r.read_struct("ColumnOrder", |r, id, ty| {
            order = Some(match id {
                1 => ColumnOrder::TypeDefined,
                2 => ColumnOrder::Ieee754TotalOrder,
                3 => ColumnOrder::Int96TimestampOrder,
                other => ColumnOrder::Unknown(other),
            });
            r.skip(ty)
        })?;
        required(order, "ColumnOrder member")
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.empty_struct(match self {
            ColumnOrder::TypeDefined => 1,
            ColumnOrder::Ieee754TotalOrder => 2,
            ColumnOrder::Int96TimestampOrder => 3,
            ColumnOrder::Unknown(id) => *id,
        });
        w.struct_end();
    }
}

/// The encryption algorithm of a file with a plaintext footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncryptionAlgorithm {
    /// 1 = AES_GCM_V1, 2 = AES_GCM_CTR_V1.
    pub algorithm: i16,
    /// Additional authenticated data prefix.
    pub aad_prefix: Option<Vec<u8>>,
    /// Unique file identifier part of the AAD suffix.
    pub aad_file_unique: Option<Vec<u8>>,
    /// Whether readers must supply the AAD prefix.
    pub supply_aad_prefix: Option<bool>,
}

impl ThriftStruct for EncryptionAlgorithm {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut alg = None;
        r.read_struct("EncryptionAlgorithm", |r, id, ty| {
            let mut a =
                EncryptionAlgorithm { algorithm: id, aad_prefix: None, aad_file_unique: None, supply_aad_prefix: None };
            r.expect_struct(ty)?;
            r.read_struct("AesGcm", |r, id, ty| {
                match id {
                    1 => a.aad_prefix = Some(r.bytes(ty)?),
                    2 => a.aad_file_unique = Some(r.bytes(ty)?),
                    3 => a.supply_aad_prefix = Some(r.bool(ty)?),
                    _ => r.skip(ty)?,
                }
                Ok(())
            })?;
            alg = Some(a);
            Ok(())
        })?;
        required(alg, "EncryptionAlgorithm member")
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.struct_begin_field(self.algorithm);
        w.opt_binary(1, self.aad_prefix.as_deref());
        w.opt_binary(2, self.aad_file_unique.as_deref());
        w.opt_bool(3, self.supply_aad_prefix);
        w.struct_end();
        w.struct_end();
    }
}

/// The file footer: schema, row groups and file-level facts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileMetaData {
    /// Format version (1 or 2; readers treat both alike).
    pub version: i32,
    /// The schema tree, flattened depth first; element 0 is the root.
    pub schema: Vec<SchemaElement>,
    /// Total number of rows.
    pub num_rows: i64,
    /// The row groups.
    pub row_groups: Vec<RowGroup>,
    /// Application metadata (`ARROW:schema`, `pandas`, ...).
    pub key_value_metadata: Option<Vec<KeyValue>>,
    /// The writer, e.g. `parquet-cpp-arrow version 14.0.1`.
    pub created_by: Option<String>,
    /// The statistics order of each leaf column.
    pub column_orders: Option<Vec<ColumnOrder>>,
    /// Set in encrypted files with a plaintext footer.
    pub encryption_algorithm: Option<EncryptionAlgorithm>,
    /// Key metadata of the footer signing key (plaintext-footer encryption).
    pub footer_signing_key_metadata: Option<Vec<u8>>,
}

impl FileMetaData {
    /// The value of a key/value metadata entry, if present.
    pub fn key_value(&self, key: &str) -> Option<&str> {
        self.key_value_metadata.as_ref()?.iter().find(|kv| kv.key == key)?.value.as_deref()
    }
}

impl ThriftStruct for FileMetaData {
    fn read(r: &mut ThriftReader<'_>) -> Result<Self> {
        let mut m = FileMetaData::default();
        Self::read_into(&mut m, r)?;
        Ok(m)
    }

    fn read_into(m: &mut Self, r: &mut ThriftReader<'_>) -> Result<()> {
        let mut seen = 0u32;
        r.read_struct("FileMetaData", |r, id, ty| {
            match id {
                1 => m.version = r.i32(ty)?,
                2 => {
                    r.struct_list_into(ty, &mut m.schema)?;
                    r.set_expected_string_lists(leaf_paths(&m.schema));
                }
                3 => m.num_rows = r.i64(ty)?,
                4 => r.struct_list_into(ty, &mut m.row_groups)?,
                5 => m.key_value_metadata = Some(r.struct_list(ty)?),
                6 => m.created_by = Some(String::from_utf8_lossy(r.binary(ty)?).into_owned()),
                7 => m.column_orders = Some(r.struct_list(ty)?),
                8 => m.encryption_algorithm = Some(r.read_struct_field(ty)?),
                9 => m.footer_signing_key_metadata = Some(r.bytes(ty)?),
                _ => return r.skip(ty),
            }
            seen |= 1 << id;
            Ok(())
        })?;
        check_required(seen, &[(1, "version"), (2, "schema"), (3, "num_rows"), (4, "row_groups")], "FileMetaData")
    }

    fn write(&self, w: &mut ThriftWriter) {
        w.struct_begin();
        w.i32(1, self.version);
        w.struct_list(2, &self.schema);
        w.i64(3, self.num_rows);
        w.struct_list(4, &self.row_groups);
        if let Some(kv) = &self.key_value_metadata {
            w.struct_list(5, kv);
        }
        if let Some(c) = &self.created_by {
            w.binary(6, c.as_bytes());
        }
        if let Some(o) = &self.column_orders {
            w.struct_list(7, o);
        }
        if let Some(a) = &self.encryption_algorithm {
            w.struct_field(8, a);
        }
        w.opt_binary(9, self.footer_signing_key_metadata.as_deref());
        w.struct_end();
    }
}
