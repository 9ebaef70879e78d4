//! The order min/max statistics and page indexes are kept in, for one leaf column: the
//! spec's column orders (`TypeDefinedOrder`), derived from the column's physical and logical
//! types in one place, for the writer, merge and filters alike.

use std::cmp::Ordering;

use crate::format::{ConvertedType, LogicalType, PhysicalType};

use super::ColumnDescriptor;

/// How two PLAIN-encoded values of a column compare, as the spec's column orders define it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    /// false < true.
    Boolean,
    /// Two's complement integers.
    Signed,
    /// Unsigned integers (UINT_* annotations).
    Unsigned,
    /// IEEE floats, NaN excluded.
    Float,
    /// Bytes compared as unsigned, lexicographically.
    Bytes,
    /// Big-endian two's complement bytes (decimals in BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY).
    SignedBytes,
    /// Half floats in 2 little-endian bytes.
    Float16,
    /// No order defined (INT96, INTERVAL): no statistics are written, none are trusted.
    Undefined,
}

impl SortOrder {
    /// The order of a column of `physical` type with these annotations.
    pub fn of(physical: PhysicalType, logical: Option<&LogicalType>, converted: Option<ConvertedType>) -> SortOrder {
        let unsigned = matches!(logical, Some(LogicalType::Integer { is_signed: false, .. }))
            || matches!(
                converted,
                Some(ConvertedType::UINT_8 | ConvertedType::UINT_16 | ConvertedType::UINT_32 | ConvertedType::UINT_64)
            );
        let decimal = matches!(logical, Some(LogicalType::Decimal { .. })) || converted == Some(ConvertedType::DECIMAL);
        let interval = converted == Some(ConvertedType::INTERVAL);
        match physical {
            PhysicalType::BOOLEAN => SortOrder::Boolean,
            PhysicalType::INT32 | PhysicalType::INT64 if unsigned => SortOrder::Unsigned,
            PhysicalType::INT32 | PhysicalType::INT64 => SortOrder::Signed,
            PhysicalType::FLOAT | PhysicalType::DOUBLE => SortOrder::Float,
            PhysicalType::FIXED_LEN_BYTE_ARRAY if matches!(logical, Some(LogicalType::Float16)) => SortOrder::Float16,
            PhysicalType::FIXED_LEN_BYTE_ARRAY if interval => SortOrder::Undefined,
            PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY if decimal => SortOrder::SignedBytes,
            PhysicalType::BYTE_ARRAY | PhysicalType::FIXED_LEN_BYTE_ARRAY => SortOrder::Bytes,
            _ => SortOrder::Undefined,
        }
    }

    /// The order of a stored column.
    pub fn of_column(c: &ColumnDescriptor) -> SortOrder {
        SortOrder::of(c.physical_type, c.logical_type.as_ref(), c.converted_type)
    }

    /// Compares two PLAIN-encoded values in the column's order.
    pub fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        let le4 = |v: &[u8]| u32::from_le_bytes(v[..4].try_into().unwrap_or([0; 4]));
        let le8 = |v: &[u8]| u64::from_le_bytes(v[..8].try_into().unwrap_or([0; 8]));
        match self {
            SortOrder::Boolean | SortOrder::Bytes | SortOrder::Undefined => a.cmp(b),
            SortOrder::Signed if a.len() == 4 => (le4(a) as i32).cmp(&(le4(b) as i32)),
            SortOrder::Signed => (le8(a) as i64).cmp(&(le8(b) as i64)),
            SortOrder::Unsigned if a.len() == 4 => le4(a).cmp(&le4(b)),
            SortOrder::Unsigned => le8(a).cmp(&le8(b)),
            SortOrder::Float if a.len() == 4 => f32::from_bits(le4(a)).total_cmp(&f32::from_bits(le4(b))),
            SortOrder::Float => f64::from_bits(le8(a)).total_cmp(&f64::from_bits(le8(b))),
            SortOrder::Float16 => f16_to_f32(a).total_cmp(&f16_to_f32(b)),
            SortOrder::SignedBytes => match (a.first(), b.first()) {
                (Some(&x), Some(&y)) if x != y => (x as i8).cmp(&(y as i8)),
                _ => a.cmp(b),
            },
        }
    }
}

/// A half float's value (2 little-endian bytes).
fn f16_to_f32(v: &[u8]) -> f32 {
    // Statistics come from files: a short value compares as if zero-padded, never panics.
    let bits = u16::from_le_bytes([v.first().copied().unwrap_or(0), v.get(1).copied().unwrap_or(0)]) as u32;
    let sign = (bits >> 15) << 31;
    let exp = (bits >> 10) & 0x1f;
    let frac = bits & 0x3ff;
    let f = match exp {
        0 => {
            let magnitude = frac as f32 * (1.0 / (1u32 << 24) as f32);
            return if sign != 0 { -magnitude } else { magnitude };
        }
        0x1f => sign | 0x7f80_0000 | (frac << 13),
        e => sign | ((e + 112) << 23) | (frac << 13),
    };
    f32::from_bits(f)
}
