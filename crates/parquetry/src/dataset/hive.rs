//! Hive partitioning: folders named `key=value` between a dataset's base folder and its
//! files give every row of those files a column `key` holding `value`. (Directory
//! partitioning, whose folders are bare values of keys named up front, is read here too.)
//!
//! Values are percent-decoded (pyarrow and Spark write `a b/c` as `a%20b%2Fc`) and
//! `__HIVE_DEFAULT_PARTITION__` is null. Without a given type, a key whose every value is an
//! integer of 32 bits is `Int32` (pyarrow's inference), of 64 bits `Int64`, and otherwise a
//! string.

use std::path::Path;
use std::sync::Arc;

use arrow_array::{new_null_array, Array, ArrayRef, StringArray};
use arrow_schema::{DataType, Field, FieldRef};

use super::listing::Listed;
use crate::error::{Error, Result};

/// The folder name Hive writes for a null partition value.
pub const NULL_VALUE: &str = "__HIVE_DEFAULT_PARTITION__";

/// The `key=value` folders of one file, in order from the base, values decoded (`None`:
/// null).
pub(crate) fn segments(file: &Listed) -> Result<Vec<(String, Option<String>)>> {
    let dir = file.path.parent().unwrap_or(Path::new(""));
    let below = match &file.base {
        Some(base) => dir.strip_prefix(base).unwrap_or(dir),
        None => dir,
    };
    let mut out = Vec::new();
    for component in below.iter() {
        let text = component.to_string_lossy();
        let Some((key, value)) = text.split_once('=') else { continue };
        if key.is_empty() {
            continue;
        }
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s).decode_utf8().map(|s| s.into_owned()).map_err(|_| {
                Error::invalid_argument(format!(
                    "{}: partition folder '{text}' is not UTF-8 once decoded",
                    file.path.display()
                ))
            })
        };
        let key = decode(key)?;
        let value = match value {
            NULL_VALUE => None,
            v => Some(decode(v)?),
        };
        if out.iter().any(|(k, _): &(String, _)| *k == key) {
            return Err(Error::invalid_argument(format!(
                "{}: partition key '{key}' appears twice in the path",
                file.path.display()
            )));
        }
        out.push((key, value));
    }
    Ok(out)
}

/// The values of `keys` a file's folders give under directory partitioning: the folders
/// below the base, in order, one per key (percent-decoded); folders past the last key are
/// only folders. A file given by itself (no base) has none.
pub(crate) fn directory_segments(file: &Listed, keys: &[String]) -> Result<Vec<(String, Option<String>)>> {
    let Some(base) = &file.base else { return Ok(Vec::new()) };
    let dir = file.path.parent().unwrap_or(Path::new(""));
    let below = dir.strip_prefix(base).unwrap_or(dir);
    let mut out = Vec::new();
    for (key, component) in keys.iter().zip(below.iter()) {
        let text = component.to_string_lossy();
        let value = percent_encoding::percent_decode_str(&text).decode_utf8().map_err(|_| {
            Error::invalid_argument(format!(
                "{}: partition folder '{text}' is not UTF-8 once decoded",
                file.path.display()
            ))
        })?;
        out.push((key.clone(), Some(value.into_owned())));
    }
    Ok(out)
}

/// The partition fields of a dataset whose files have `values` (one row per file, one
/// entry per key; `None` where a file has no folder for the key or the value is null):
/// typed by `given` where it names the key, inferred otherwise. Partition columns are
/// nullable.
pub(crate) fn fields(keys: &[String], values: &[Vec<Option<String>>], given: Option<&[FieldRef]>) -> Vec<FieldRef> {
    keys.iter()
        .enumerate()
        .map(|(k, key)| {
            if let Some(f) = given.and_then(|g| g.iter().find(|f| f.name() == key)) {
                return Arc::new(Field::new(key, f.data_type().clone(), true));
            }
            let mut present = values.iter().filter_map(|row| row[k].as_deref()).peekable();
            let t = if present.peek().is_none() {
                DataType::Utf8
            } else if values.iter().filter_map(|row| row[k].as_deref()).all(|v| v.parse::<i32>().is_ok()) {
                DataType::Int32
            } else if values.iter().filter_map(|row| row[k].as_deref()).all(|v| v.parse::<i64>().is_ok()) {
                DataType::Int64
            } else {
                DataType::Utf8
            };
            Arc::new(Field::new(key, t, true))
        })
        .collect()
}

/// One file's partition values as one-row arrays of the fields' types; a value that does
/// not parse as its type is an error naming the file's folder.
pub(crate) fn values(path: &Path, fields: &[FieldRef], values: &[Option<String>]) -> Result<Vec<ArrayRef>> {
    fields
        .iter()
        .zip(values)
        .map(|(f, v)| {
            let Some(v) = v else { return Ok(new_null_array(f.data_type(), 1)) };
            let text: ArrayRef = Arc::new(StringArray::from(vec![v.as_str()]));
            if f.data_type() == &DataType::Utf8 {
                return Ok(text);
            }
            let options = arrow_cast::CastOptions { safe: false, ..Default::default() };
            let typed = arrow_cast::cast_with_options(&text, f.data_type(), &options);
            match typed {
                Ok(a) if a.null_count() == 0 => Ok(a),
                _ => Err(Error::invalid_argument(format!(
                    "{}: partition value {}={v:?} is not a {}",
                    path.parent().unwrap_or(path).display(),
                    f.name(),
                    f.data_type()
                ))),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn listed(path: &str, base: Option<&str>) -> Listed {
        Listed { path: PathBuf::from(path), base: base.map(PathBuf::from), size: 0 }
    }

    #[test]
    fn folders_below_the_base_are_decoded_and_the_hive_null_is_null() {
        let got = segments(&listed("/d/k=1/s=w%20w%2Fx/p/f.parquet", Some("/d"))).unwrap();
        assert_eq!(got, vec![("k".into(), Some("1".into())), ("s".into(), Some("w w/x".into()))]);
        let got = segments(&listed("/a=9/d/k=__HIVE_DEFAULT_PARTITION__/f.parquet", Some("/a=9/d"))).unwrap();
        assert_eq!(got, vec![("k".into(), None)]);
        assert!(segments(&listed("/d/k=1/k=2/f.parquet", Some("/d"))).is_err());
    }

    #[test]
    fn directory_folders_are_the_keys_values_in_order() {
        let keys = vec!["year".to_string(), "region".to_string()];
        let got = directory_segments(&listed("/d/2024/a%20b/x/f.parquet", Some("/d")), &keys).unwrap();
        assert_eq!(got, vec![("year".into(), Some("2024".into())), ("region".into(), Some("a b".into()))]);
        let got = directory_segments(&listed("/d/2024/f.parquet", Some("/d")), &keys).unwrap();
        assert_eq!(got, vec![("year".into(), Some("2024".into()))]);
        assert!(directory_segments(&listed("/d/2024/f.parquet", None), &keys).unwrap().is_empty());
    }

    #[test]
    fn types_are_inferred_as_pyarrow_infers_them() {
        let keys = vec!["a".to_string(), "b".to_string(), "c".to_string(), "d".to_string()];
        let s = |v: &str| Some(v.to_string());
        let rows = vec![
            vec![s("1"), s("1"), s("x"), None],
            vec![s("-2"), s("5000000000"), s("2"), None],
            vec![None, s("3"), s("3"), None],
        ];
        let got: Vec<DataType> = fields(&keys, &rows, None).iter().map(|f| f.data_type().clone()).collect();
        assert_eq!(got, vec![DataType::Int32, DataType::Int64, DataType::Utf8, DataType::Utf8]);
        let bad = values(Path::new("/d/a=x/f"), &[Arc::new(Field::new("a", DataType::Int32, true))], &[s("x")]);
        assert!(bad.unwrap_err().to_string().contains("a=\"x\" is not a Int32"));
    }
}
