//! Printing statistics values: PLAIN bytes shown as the value they stand for.

use parquetry::format::{ConvertedType, LogicalType, PhysicalType};
use parquetry::schema::ColumnDescriptor;

/// Longest text shown for a string statistic before it is cut with an ellipsis.
const MAX_TEXT: usize = 48;

/// Renders a PLAIN-encoded statistics value (no length prefix) of column `c` for people.
pub fn stat_value(c: &ColumnDescriptor, bytes: &[u8]) -> String {
    let le4 = || bytes.try_into().ok().map(i32::from_le_bytes);
    let le8 = || bytes.try_into().ok().map(i64::from_le_bytes);
    let shown = match c.physical_type {
        PhysicalType::BOOLEAN => bytes.first().map(|b| (*b != 0).to_string()),
        PhysicalType::INT32 => le4().map(|v| if is_unsigned(c) { (v as u32).to_string() } else { v.to_string() }),
        PhysicalType::INT64 => le8().map(|v| if is_unsigned(c) { (v as u64).to_string() } else { v.to_string() }),
        PhysicalType::FLOAT => bytes.try_into().ok().map(|b| f32::from_le_bytes(b).to_string()),
        PhysicalType::DOUBLE => bytes.try_into().ok().map(|b| f64::from_le_bytes(b).to_string()),
        PhysicalType::BYTE_ARRAY if is_text(c) => std::str::from_utf8(bytes).ok().map(cut),
        _ => None,
    };
    shown.unwrap_or_else(|| hex(bytes))
}

fn is_unsigned(c: &ColumnDescriptor) -> bool {
    matches!(c.logical_type, Some(LogicalType::Integer { is_signed: false, .. }))
        || matches!(
            c.converted_type,
            Some(ConvertedType::UINT_8 | ConvertedType::UINT_16 | ConvertedType::UINT_32 | ConvertedType::UINT_64)
        )
}

fn is_text(c: &ColumnDescriptor) -> bool {
    matches!(c.logical_type, Some(LogicalType::String | LogicalType::Enum | LogicalType::Json))
        || matches!(c.converted_type, Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON))
}

fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_TEXT {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(MAX_TEXT).collect();
    out.push('…');
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::from("0x");
    for b in bytes.iter().take(MAX_TEXT / 2) {
        out.push_str(&format!("{b:02x}"));
    }
    if bytes.len() > MAX_TEXT / 2 {
        out.push('…');
    }
    out
}
