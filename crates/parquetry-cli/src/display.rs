//! Turning Arrow values into text for `cat`: one function per value, by Arrow type.

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};
use serde_json::Value;

/// A value as text (`None` for null); lists, maps and structs as compact JSON.
pub fn text(array: &ArrayRef, row: usize) -> Option<String> {
    if array.is_null(row) {
        return None;
    }
    if array.data_type().is_nested() {
        return Some(json(array, row).to_string());
    }
    Some(match value(array, row) {
        Scalar::Str(s) => s,
        Scalar::Num(s) => s,
        Scalar::Bool(b) => b.to_string(),
    })
}

/// A value as JSON: numbers stay numbers, lists become arrays, structs objects, maps objects
/// keyed by the keys' text; everything else becomes a string.
pub fn json(array: &ArrayRef, row: usize) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    if let Some(v) = nested_json(array, row) {
        return v;
    }
    match value(array, row) {
        Scalar::Str(s) => Value::String(s),
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Num(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
    }
}

/// A list, map or struct value as JSON; `None` for other types.
fn nested_json(a: &ArrayRef, i: usize) -> Option<Value> {
    use DataType as D;
    let items =
        |values: &ArrayRef, range: std::ops::Range<usize>| Value::Array(range.map(|j| json(values, j)).collect());
    Some(match a.data_type() {
        D::List(_) => {
            let l = a.as_list::<i32>();
            let o = l.value_offsets();
            items(l.values(), o[i] as usize..o[i + 1] as usize)
        }
        D::LargeList(_) => {
            let l = a.as_list::<i64>();
            let o = l.value_offsets();
            items(l.values(), o[i] as usize..o[i + 1] as usize)
        }
        D::FixedSizeList(_, n) => {
            let n = *n as usize;
            items(a.as_fixed_size_list().values(), i * n..(i + 1) * n)
        }
        D::Struct(fields) => {
            let s = a.as_struct();
            let object = fields.iter().zip(s.columns()).map(|(f, c)| (f.name().clone(), json(c, i)));
            Value::Object(object.collect())
        }
        D::Map(..) => {
            let m = a.as_map();
            let o = m.value_offsets();
            let (keys, values) = (m.keys(), m.values());
            let object =
                (o[i] as usize..o[i + 1] as usize).map(|j| (text(keys, j).unwrap_or_default(), json(values, j)));
            Value::Object(object.collect())
        }
        _ => return None,
    })
}

enum Scalar {
    Str(String),
    Num(String),
    Bool(bool),
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + 2);
    s.push_str("0x");
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn value(a: &ArrayRef, i: usize) -> Scalar {
    use DataType as D;
    use Scalar::*;
    match a.data_type() {
        D::Boolean => Bool(a.as_boolean().value(i)),
        D::Int8 => Num(a.as_primitive::<Int8Type>().value(i).to_string()),
        D::Int16 => Num(a.as_primitive::<Int16Type>().value(i).to_string()),
        D::Int32 => Num(a.as_primitive::<Int32Type>().value(i).to_string()),
        D::Int64 => Num(a.as_primitive::<Int64Type>().value(i).to_string()),
        D::UInt8 => Num(a.as_primitive::<UInt8Type>().value(i).to_string()),
        D::UInt16 => Num(a.as_primitive::<UInt16Type>().value(i).to_string()),
        D::UInt32 => Num(a.as_primitive::<UInt32Type>().value(i).to_string()),
        D::UInt64 => Num(a.as_primitive::<UInt64Type>().value(i).to_string()),
        D::Float16 => Num(a.as_primitive::<Float16Type>().value(i).to_string()),
        D::Float32 => float(f64::from(a.as_primitive::<Float32Type>().value(i))),
        D::Float64 => float(a.as_primitive::<Float64Type>().value(i)),
        D::Utf8 => Str(a.as_string::<i32>().value(i).to_owned()),
        D::LargeUtf8 => Str(a.as_string::<i64>().value(i).to_owned()),
        D::Utf8View => Str(a.as_string_view().value(i).to_owned()),
        D::Binary => Str(hex(a.as_binary::<i32>().value(i))),
        D::LargeBinary => Str(hex(a.as_binary::<i64>().value(i))),
        D::BinaryView => Str(hex(a.as_binary_view().value(i))),
        D::FixedSizeBinary(_) => Str(hex(a.as_fixed_size_binary().value(i))),
        D::Date32 => Str(date(i64::from(a.as_primitive::<Date32Type>().value(i)))),
        D::Date64 => Str(date(a.as_primitive::<Date64Type>().value(i).div_euclid(86_400_000))),
        D::Timestamp(unit, tz) => {
            let mut s = timestamp(i64_at(a, i), *unit);
            if tz.is_some() {
                s.push('Z');
            }
            Str(s)
        }
        D::Time32(unit) => {
            let v = match unit {
                TimeUnit::Second => i64::from(a.as_primitive::<Time32SecondType>().value(i)),
                _ => i64::from(a.as_primitive::<Time32MillisecondType>().value(i)),
            };
            Str(time_of_day(v, *unit))
        }
        D::Time64(unit) => {
            let v = match unit {
                TimeUnit::Microsecond => a.as_primitive::<Time64MicrosecondType>().value(i),
                _ => a.as_primitive::<Time64NanosecondType>().value(i),
            };
            Str(time_of_day(v, *unit))
        }
        D::Duration(_) => Num(i64_at(a, i).to_string()),
        D::Decimal128(_, s) => Num(decimal(a.as_primitive::<Decimal128Type>().value(i).to_string(), *s)),
        D::Decimal256(_, s) => Num(decimal(a.as_primitive::<Decimal256Type>().value(i).to_string(), *s)),
        D::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let key = d.normalized_keys()[i];
            value(d.values(), key)
        }
        D::Null => Str(String::new()),
        other => Str(format!("<{other}>")),
    }
}

/// The stored i64 of a timestamp or duration value, whatever its unit.
fn i64_at(a: &ArrayRef, i: usize) -> i64 {
    use DataType as D;
    use TimeUnit as U;
    match a.data_type() {
        D::Timestamp(U::Second, _) => a.as_primitive::<TimestampSecondType>().value(i),
        D::Timestamp(U::Millisecond, _) => a.as_primitive::<TimestampMillisecondType>().value(i),
        D::Timestamp(U::Microsecond, _) => a.as_primitive::<TimestampMicrosecondType>().value(i),
        D::Timestamp(U::Nanosecond, _) => a.as_primitive::<TimestampNanosecondType>().value(i),
        D::Duration(U::Second) => a.as_primitive::<DurationSecondType>().value(i),
        D::Duration(U::Millisecond) => a.as_primitive::<DurationMillisecondType>().value(i),
        D::Duration(U::Microsecond) => a.as_primitive::<DurationMicrosecondType>().value(i),
        D::Duration(U::Nanosecond) => a.as_primitive::<DurationNanosecondType>().value(i),
        _ => 0,
    }
}

fn float(v: f64) -> Scalar {
    if v.is_finite() {
        Scalar::Num(v.to_string())
    } else {
        Scalar::Str(v.to_string())
    }
}

fn decimal(digits: String, scale: i8) -> String {
    if scale <= 0 {
        return format!("{digits}{}", "0".repeat((-scale) as usize));
    }
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(d) => ("-", d.to_owned()),
        None => ("", digits),
    };
    let scale = scale as usize;
    let padded = format!("{digits:0>width$}", width = scale + 1);
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

/// Days since 1970-01-01 to `YYYY-MM-DD` (proleptic Gregorian), by Howard Hinnant's
/// civil-from-days algorithm.
fn date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02}")
}

fn per_second(unit: TimeUnit) -> i64 {
    match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    }
}

fn fraction(sub: i64, unit: TimeUnit) -> String {
    match unit {
        TimeUnit::Second => String::new(),
        TimeUnit::Millisecond => format!(".{sub:03}"),
        TimeUnit::Microsecond => format!(".{sub:06}"),
        TimeUnit::Nanosecond => format!(".{sub:09}"),
    }
}

fn timestamp(v: i64, unit: TimeUnit) -> String {
    let per = per_second(unit);
    let secs = v.div_euclid(per);
    let sub = v.rem_euclid(per);
    let days = secs.div_euclid(86_400);
    let s = secs.rem_euclid(86_400);
    format!("{}T{:02}:{:02}:{:02}{}", date(days), s / 3600, s / 60 % 60, s % 60, fraction(sub, unit))
}

fn time_of_day(v: i64, unit: TimeUnit) -> String {
    let per = per_second(unit);
    let (secs, sub) = (v.div_euclid(per), v.rem_euclid(per));
    format!("{:02}:{:02}:{:02}{}", secs / 3600, secs / 60 % 60, secs % 60, fraction(sub, unit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_decimals() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(-1), "1969-12-31");
        assert_eq!(date(19_723), "2024-01-01");
        assert_eq!(timestamp(1_704_067_200_123, TimeUnit::Millisecond), "2024-01-01T00:00:00.123");
        assert_eq!(decimal("-5".into(), 2), "-0.05");
        assert_eq!(decimal("12345".into(), 2), "123.45");
        assert_eq!(decimal("7".into(), -2), "700");
    }
}
