//! Evaluating a bound predicate on decoded Arrow arrays, with SQL's three-valued logic: each
//! test is true, false or null (on a null value), `and`/`or`/`not` combine them as SQL does,
//! and a row is kept where the result is true.
//!
//! Floating point values compare as IEEE 754 (as `pyarrow.compute` does): NaN is neither
//! equal to, less than nor greater than anything (so `x != 1.0` holds for NaN), and -0 equals
//! +0. A dictionary-encoded column is tested once per dictionary value, then through its keys.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_buffer::{BooleanBuffer, NullBuffer};
use arrow_schema::DataType;

use super::bind::Node;
use super::compare::{cmp_native, compare_each};
use super::expr::CmpOp;
use super::keys::through_keys;
use super::literal::{Key, Test};
use super::statistics::f16_to_f64;
use super::strings;
use crate::error::{Error, Result};

/// Where a predicate's column is in a record batch: a top-level column, then struct fields.
#[derive(Debug, Clone)]
pub(crate) struct ArrayPath {
    pub column: usize,
    pub fields: Vec<String>,
}

/// Rows where a test or predicate is true, and where it is false; neither where it is null.
struct Truth {
    t: BooleanBuffer,
    f: BooleanBuffer,
}

/// The column at `path` in `columns`, and the nulls of the structs above it (a value inside
/// a null struct is null, whatever the child array holds there).
pub(crate) fn find(columns: &[ArrayRef], path: &ArrayPath) -> Result<(ArrayRef, Option<NullBuffer>)> {
    let missing = || Error::invalid_argument(format!("filter: column path {path:?} is not in the batch"));
    let mut array = columns.get(path.column).ok_or_else(missing)?.clone();
    let mut nulls: Option<NullBuffer> = None;
    for name in &path.fields {
        let s: &StructArray = array.as_struct_opt().ok_or_else(missing)?;
        nulls = NullBuffer::union(nulls.as_ref(), s.nulls());
        array = s.column_by_name(name).ok_or_else(missing)?.clone();
    }
    Ok((array, nulls))
}

/// The results of tests on dictionary values, kept across batches: a column chunk read as a
/// dictionary shares one values array among its batches, so each test runs once per chunk
/// rather than once per batch. An entry holds the values array it was computed on, so that
/// array cannot be freed and another allocated at its address while the entry lives.
#[derive(Debug, Default)]
pub(crate) struct DictionaryTests {
    entries: Vec<(usize, Test, ArrayRef, Vec<bool>)>,
}

impl DictionaryTests {
    /// The result of `test` (of leaf column `column`) on each value of `values`.
    fn get(&mut self, column: usize, test: &Test, values: &ArrayRef) -> Result<&[bool]> {
        let found =
            self.entries.iter().position(|(c, t, v, _)| *c == column && std::sync::Arc::ptr_eq(v, values) && t == test);
        let at = match found {
            Some(at) => at,
            None => {
                let on_values: Vec<bool> = self::values(test, values.as_ref())?.iter().collect();
                // The entries of a column's previous chunk are of no further use.
                self.entries.retain(|(c, t, _, _)| !(*c == column && t == test));
                self.entries.push((column, test.clone(), values.clone(), on_values));
                self.entries.len() - 1
            }
        };
        Ok(&self.entries[at].3)
    }
}

/// The rows of `len` where `node` is true, given each bound column's array (with the nulls
/// of its parents) and each leaf test converted for that array's type. `tests` keeps the
/// results on dictionaries from one batch to the next.
pub(crate) fn evaluate(
    node: &Node,
    arrays: &[(ArrayRef, Option<NullBuffer>)],
    len: usize,
    tests: &mut DictionaryTests,
) -> Result<BooleanBuffer> {
    Ok(eval(node, arrays, len, tests)?.t)
}

fn eval(
    node: &Node,
    arrays: &[(ArrayRef, Option<NullBuffer>)],
    len: usize,
    tests: &mut DictionaryTests,
) -> Result<Truth> {
    Ok(match node {
        Node::And(..) => {
            // The conjuncts in any order (AND is associative and commutative, NULLs too),
            // two comparisons of one integer column taken together as an interval.
            let mut parts = Vec::new();
            conjuncts(node, &mut parts);
            let mut taken = vec![false; parts.len()];
            let mut out: Option<Truth> = None;
            for i in 0..parts.len() {
                if std::mem::replace(&mut taken[i], true) {
                    continue;
                }
                let mut truth = None;
                if let Node::Leaf(column, _) = parts[i] {
                    let (array, parents) = &arrays[*column];
                    for j in i + 1..parts.len() {
                        if taken[j] {
                            continue;
                        }
                        if let Some(r) = super::interval::both(parts[i], parts[j], array.as_ref()) {
                            taken[j] = true;
                            truth = Some(with_nulls(r, array.as_ref(), parents.as_ref(), len));
                            break;
                        }
                    }
                }
                let b = match truth {
                    Some(t) => t,
                    None => eval(parts[i], arrays, len, tests)?,
                };
                out = Some(match out {
                    Some(a) => Truth { t: &a.t & &b.t, f: &a.f | &b.f },
                    None => b,
                });
            }
            out.ok_or_else(|| Error::invalid_argument("filter: an AND of nothing"))?
        }
        Node::Or(a, b) => {
            let (a, b) = (eval(a, arrays, len, tests)?, eval(b, arrays, len, tests)?);
            Truth { t: &a.t | &b.t, f: &a.f & &b.f }
        }
        Node::Not(p) => {
            let p = eval(p, arrays, len, tests)?;
            Truth { t: p.f, f: p.t }
        }
        Node::Leaf(i, test) => {
            let (array, parents) = &arrays[*i];
            if let Test::IsNull(not) = test {
                let valid = validity(array.as_ref(), parents.as_ref(), len);
                let null = !&valid;
                return Ok(if *not { Truth { t: valid, f: null } } else { Truth { t: null, f: valid } });
            }
            let r = match array.as_any_dictionary_opt() {
                Some(d) => through_keys(d, tests.get(*i, test, d.values())?),
                None => values(test, array.as_ref())?,
            };
            with_nulls(r, array.as_ref(), parents.as_ref(), len)
        }
    })
}

/// The operands of a tree of ANDs, left to right.
pub(super) fn conjuncts<'n>(node: &'n Node, out: &mut Vec<&'n Node>) {
    match node {
        Node::And(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        other => out.push(other),
    }
}

/// The rows where a value is there: not null, and no struct above it null.
fn validity(array: &dyn Array, parents: Option<&NullBuffer>, len: usize) -> BooleanBuffer {
    let valid = NullBuffer::union(array.logical_nulls().as_ref(), parents);
    valid.map_or_else(|| BooleanBuffer::new_set(len), |n| n.inner().clone())
}

/// A test's result `r` on each slot made true or false where there is a value, and neither
/// where there is none (a comparison with NULL is not true, nor is its negation).
fn with_nulls(r: BooleanBuffer, array: &dyn Array, parents: Option<&NullBuffer>, len: usize) -> Truth {
    let valid = validity(array, parents, len);
    Truth { t: &r & &valid, f: &!&r & &valid }
}

/// The test on every slot of `array` (what a null slot gets does not matter).
fn values(test: &Test, array: &dyn Array) -> Result<BooleanBuffer> {
    let len = array.len();
    macro_rules! ints {
        ($t:ty, $conv:expr) => {{
            let v = array.as_primitive::<$t>().values();
            int_values(v, $conv, test)
        }};
    }
    // Types whose values all fit in i64: compared as i64, which vectorizes.
    macro_rules! ints64 {
        ($t:ty) => {{
            let v = array.as_primitive::<$t>().values();
            match test {
                Test::Cmp(op, Key::Int(k)) => Ok(cmp_native(v, *op, *k)),
                _ => int_values(v, |x| x as i128, test),
            }
        }};
    }
    // A comparison is a loop per operator, which vectorizes (a boxed matcher per row was 8%
    // of a read of 200 small files filtered on a double); f64's operators are IEEE's, as
    // `float_matcher`'s (NaN: only `!=` holds).
    macro_rules! floats {
        ($t:ty, $conv:expr) => {{
            let v = array.as_primitive::<$t>().values();
            match test {
                Test::Cmp(op, Key::Float(k)) => Ok(compare_each(v, $conv, *op, *k)),
                _ => {
                    let m = float_matcher(test)?;
                    #[allow(clippy::redundant_closure_call)]
                    Ok(BooleanBuffer::collect_bool(len, |i| m($conv(v[i]))))
                }
            }
        }};
    }
    macro_rules! bytes {
        ($a:expr) => {{
            let m = bytes_matcher(test)?;
            let a = $a;
            Ok(BooleanBuffer::collect_bool(len, |i| m(a.value(i).as_ref())))
        }};
    }
    // A substring test searches the bytes the values lie in at once (see `strings`), where
    // they are not spread too thinly for that to pay.
    macro_rules! offsets {
        ($a:expr) => {{
            let a = $a;
            match test {
                Test::Contains(p, not) => match strings::in_offsets(a, p, *not) {
                    Some(r) => Ok(r),
                    None => bytes!(a),
                },
                _ => bytes!(a),
            }
        }};
    }
    // Views also answer `=`, `!=` and prefixes on the views themselves, most values without
    // a look at their bytes (see `strings`).
    macro_rules! views {
        ($a:expr) => {{
            let a = $a;
            match test {
                Test::Cmp(op @ (CmpOp::Eq | CmpOp::Ne), Key::Bytes(v)) => {
                    Ok(strings::view_equality(a, v, *op == CmpOp::Ne))
                }
                Test::StartsWith(p, not) => Ok(strings::view_starts_with(a, p, *not)),
                Test::Contains(p, not) => match strings::in_views(a, p, *not) {
                    Some(r) => Ok(r),
                    None => bytes!(a),
                },
                _ => bytes!(a),
            }
        }};
    }
    match array.data_type() {
        DataType::Int8 => ints64!(Int8Type),
        DataType::Int16 => ints64!(Int16Type),
        DataType::Int32 => ints64!(Int32Type),
        DataType::Int64 => ints64!(Int64Type),
        DataType::UInt8 => ints64!(UInt8Type),
        DataType::UInt16 => ints64!(UInt16Type),
        DataType::UInt32 => ints64!(UInt32Type),
        DataType::UInt64 => ints!(UInt64Type, |x| x as i128),
        DataType::Date32 => ints64!(Date32Type),
        DataType::Date64 => ints64!(Date64Type),
        DataType::Time32(arrow_schema::TimeUnit::Second) => ints64!(Time32SecondType),
        DataType::Time32(_) => ints64!(Time32MillisecondType),
        DataType::Time64(arrow_schema::TimeUnit::Microsecond) => ints64!(Time64MicrosecondType),
        DataType::Time64(_) => ints64!(Time64NanosecondType),
        DataType::Timestamp(arrow_schema::TimeUnit::Second, _) => ints64!(TimestampSecondType),
        DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, _) => ints64!(TimestampMillisecondType),
        DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, _) => ints64!(TimestampMicrosecondType),
        DataType::Timestamp(arrow_schema::TimeUnit::Nanosecond, _) => ints64!(TimestampNanosecondType),
        DataType::Decimal32(..) => ints64!(Decimal32Type),
        DataType::Decimal64(..) => ints64!(Decimal64Type),
        DataType::Decimal128(..) => ints!(Decimal128Type, |x| x),
        // Past i128 a value saturates: every literal is inside i128, so order is kept.
        DataType::Decimal256(..) => ints!(Decimal256Type, |x: arrow_buffer::i256| x
            .to_i128()
            .unwrap_or(if x.is_negative() { i128::MIN } else { i128::MAX })),
        DataType::Float16 => {
            let m = float_matcher(test)?;
            let bits: &[u16] = array.as_primitive::<Float16Type>().values().inner().typed_data();
            Ok(BooleanBuffer::collect_bool(len, |i| m(f16_to_f64(bits[i]))))
        }
        DataType::Float32 => floats!(Float32Type, |x| x as f64),
        DataType::Float64 => floats!(Float64Type, |x| x),
        DataType::Boolean => {
            let m = bool_matcher(test)?;
            let v = array.as_boolean().values();
            Ok(BooleanBuffer::collect_bool(len, |i| m(v.value(i))))
        }
        DataType::Utf8 => offsets!(array.as_string::<i32>()),
        DataType::LargeUtf8 => offsets!(array.as_string::<i64>()),
        DataType::Utf8View => views!(array.as_string_view()),
        DataType::Binary => offsets!(array.as_binary::<i32>()),
        DataType::LargeBinary => offsets!(array.as_binary::<i64>()),
        DataType::BinaryView => views!(array.as_binary_view()),
        DataType::FixedSizeBinary(_) => bytes!(array.as_fixed_size_binary()),
        other => Err(Error::unsupported(format!("filter: cannot test values of type {other}"))),
    }
}

/// Integer values tested as i128: comparisons with a loop per operator (a boxed matcher
/// per row took a third of a date range query's time), other tests through [`int_matcher`].
fn int_values<N: Copy>(v: &[N], conv: impl Fn(N) -> i128 + Copy, test: &Test) -> Result<BooleanBuffer> {
    let n = v.len();
    if let Test::Cmp(op, Key::Int(k)) = test {
        return Ok(compare_each(v, conv, *op, *k));
    }
    let m = int_matcher(test)?;
    Ok(BooleanBuffer::collect_bool(n, |i| m(conv(v[i]))))
}

fn mismatch(test: &Test, kind: &str) -> Error {
    Error::invalid_argument(format!("filter: the test {test:?} does not apply to {kind} values"))
}

pub(super) fn ordered(o: Ordering, op: CmpOp) -> bool {
    match op {
        CmpOp::Eq => o == Ordering::Equal,
        CmpOp::Ne => o != Ordering::Equal,
        CmpOp::Lt => o == Ordering::Less,
        CmpOp::Le => o != Ordering::Greater,
        CmpOp::Gt => o == Ordering::Greater,
        CmpOp::Ge => o != Ordering::Less,
    }
}

type Matcher<T> = Box<dyn Fn(T) -> bool + Send + Sync>;

fn int_matcher(test: &Test) -> Result<Matcher<i128>> {
    let ints = |keys: &[Key]| {
        keys.iter()
            .map(|k| if let Key::Int(v) = k { Ok(*v) } else { Err(mismatch(test, "integer")) })
            .collect::<Result<Vec<i128>>>()
    };
    Ok(match test {
        Test::Cmp(op, Key::Int(v)) => {
            let (op, v) = (*op, *v);
            Box::new(move |x: i128| ordered(x.cmp(&v), op))
        }
        Test::In(keys, not) => {
            let (mut keys, not) = (ints(keys)?, *not);
            keys.sort_unstable();
            Box::new(move |x| keys.binary_search(&x).is_ok() != not)
        }
        _ => return Err(mismatch(test, "integer")),
    })
}

fn float_matcher(test: &Test) -> Result<Matcher<f64>> {
    let floats = |keys: &[Key]| {
        keys.iter()
            .map(|k| if let Key::Float(v) = k { Ok(*v) } else { Err(mismatch(test, "floating point")) })
            .collect::<Result<Vec<f64>>>()
    };
    Ok(match test {
        Test::Cmp(op, Key::Float(v)) => {
            let (op, v) = (*op, *v);
            // IEEE: every comparison with NaN is false, except `!=`.
            Box::new(move |x: f64| match x.partial_cmp(&v) {
                Some(o) => ordered(o, op),
                None => op == CmpOp::Ne,
            })
        }
        Test::In(keys, not) => {
            let (keys, not) = (floats(keys)?, *not);
            Box::new(move |x| keys.contains(&x) != not)
        }
        _ => return Err(mismatch(test, "floating point")),
    })
}

fn bool_matcher(test: &Test) -> Result<Matcher<bool>> {
    Ok(match test {
        Test::Cmp(op, Key::Bool(v)) => {
            let (op, v) = (*op, *v);
            Box::new(move |x: bool| ordered(x.cmp(&v), op))
        }
        Test::In(keys, not) => {
            let (has_true, has_false, not) = (keys.contains(&Key::Bool(true)), keys.contains(&Key::Bool(false)), *not);
            Box::new(move |x| (if x { has_true } else { has_false }) != not)
        }
        _ => return Err(mismatch(test, "boolean")),
    })
}

type BytesMatcher = Box<dyn Fn(&[u8]) -> bool + Send + Sync>;

fn bytes_matcher(test: &Test) -> Result<BytesMatcher> {
    Ok(match test {
        Test::Cmp(op, Key::Bytes(v)) => {
            let (op, v) = (*op, v.clone());
            match op {
                // Equality looks at the lengths before any byte.
                CmpOp::Eq => Box::new(move |x: &[u8]| x == v.as_slice()),
                CmpOp::Ne => Box::new(move |x: &[u8]| x != v.as_slice()),
                _ => Box::new(move |x: &[u8]| ordered(x.cmp(v.as_slice()), op)),
            }
        }
        Test::In(keys, not) => {
            let mut keys = keys
                .iter()
                .map(|k| if let Key::Bytes(v) = k { Ok(v.clone()) } else { Err(mismatch(test, "string")) })
                .collect::<Result<Vec<Vec<u8>>>>()?;
            keys.sort_unstable();
            let not = *not;
            Box::new(move |x: &[u8]| keys.binary_search_by(|k| k.as_slice().cmp(x)).is_ok() != not)
        }
        Test::StartsWith(prefix, not) => {
            let (prefix, not) = (prefix.clone(), *not);
            Box::new(move |x: &[u8]| x.starts_with(&prefix) != not)
        }
        Test::Contains(pattern, not) => {
            // A naive search over every window took 2.4x as long as decoding the column.
            let (finder, not) = (memchr::memmem::Finder::new(pattern).into_owned(), *not);
            Box::new(move |x: &[u8]| finder.find(x).is_some() != not)
        }
        _ => return Err(mismatch(test, "string")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, Float64Array, Int32Array, StringArray};
    use std::sync::Arc;

    fn run(node: &Node, a: ArrayRef) -> Vec<bool> {
        let len = a.len();
        evaluate(node, &[(a, None)], len, &mut DictionaryTests::default()).unwrap().iter().collect()
    }

    fn leaf(t: Test) -> Node {
        Node::Leaf(0, t)
    }

    #[test]
    fn an_and_of_a_range_and_another_column_pairs_the_range_wherever_it_stands() {
        let d: Vec<Option<i32>> = (0..50).map(|i| (i % 7 != 3).then_some(i)).collect();
        let s: Vec<Option<&str>> = (0..50).map(|i| Some(if i % 2 == 0 { "a" } else { "b" })).collect();
        let arrays: Vec<(ArrayRef, Option<NullBuffer>)> = vec![
            (Arc::new(arrow_array::Date32Array::from(d.clone())), None),
            (Arc::new(StringArray::from(s.clone())), None),
        ];
        let ge = leaf(Test::Cmp(CmpOp::Ge, Key::Int(10)));
        let lt = leaf(Test::Cmp(CmpOp::Lt, Key::Int(40)));
        let is_a = Node::Leaf(1, Test::Cmp(CmpOp::Eq, Key::Bytes(b"a".to_vec())));
        let and = |a: Node, b: Node| Node::And(Box::new(a), Box::new(b));
        let want: Vec<bool> =
            (0..50).map(|i| d[i].is_some_and(|v| (10..40).contains(&v)) && s[i] == Some("a")).collect();
        for node in [
            and(and(ge.clone(), is_a.clone()), lt.clone()),
            and(is_a.clone(), and(lt.clone(), ge.clone())),
            Node::Not(Box::new(Node::Not(Box::new(and(and(ge.clone(), lt.clone()), is_a.clone()))))),
        ] {
            let got: Vec<bool> =
                evaluate(&node, &arrays, 50, &mut DictionaryTests::default()).unwrap().iter().collect();
            assert_eq!(got, want);
        }
        // Under NOT, a null date is neither: the rows of NOT (range AND 'a') skip it.
        let not = Node::Not(Box::new(and(and(ge, is_a), lt)));
        let got: Vec<bool> = evaluate(&not, &arrays, 50, &mut DictionaryTests::default()).unwrap().iter().collect();
        let want: Vec<bool> = (0..50)
            .map(|i| match d[i] {
                None => s[i] != Some("a"),
                Some(v) => !((10..40).contains(&v) && s[i] == Some("a")),
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn comparisons_with_null_are_not_true_even_under_not() {
        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
        let lt = leaf(Test::Cmp(CmpOp::Lt, Key::Int(2)));
        assert_eq!(run(&lt, a.clone()), [true, false, false]);
        assert_eq!(run(&Node::Not(Box::new(lt.clone())), a.clone()), [false, false, true]);
        let or_null = Node::Or(Box::new(lt), Box::new(leaf(Test::IsNull(false))));
        assert_eq!(run(&or_null, a), [true, true, false]);
    }

    #[test]
    fn equality_on_views_matches_byte_equality() {
        use arrow_array::StringViewArray;
        let words: Vec<String> =
            (0..40).map(|i| "abcdefghijklmnopq".chars().cycle().skip(i % 5).take(i % 18).collect()).collect();
        let a: ArrayRef = Arc::new(StringViewArray::from_iter_values(words.iter()));
        for lit in
            ["", "abc", "abcdefghijkl", "bcdefghijklm", "abcdefghijklm", "abcdefghijklmnopq", "abcdefghijklmnopz"]
        {
            for (op, not) in [(CmpOp::Eq, false), (CmpOp::Ne, true)] {
                let got = run(&leaf(Test::Cmp(op, Key::Bytes(lit.as_bytes().to_vec()))), a.clone());
                let want: Vec<bool> = words.iter().map(|w| (w == lit) != not).collect();
                assert_eq!(got, want, "{op:?} {lit:?}");
            }
        }
    }

    #[test]
    fn comparisons_over_many_words_agree_with_each_value_compared_alone() {
        use arrow_array::{Date32Array, Int64Array, UInt32Array};
        let ops = [CmpOp::Eq, CmpOp::Ne, CmpOp::Lt, CmpOp::Le, CmpOp::Gt, CmpOp::Ge];
        let holds = |op: CmpOp, v: i128, k: i128| ordered(v.cmp(&k), op);
        for n in [0usize, 1, 63, 64, 65, 200, 1000] {
            let v: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 41 - 20).collect();
            let arrays: Vec<(ArrayRef, Vec<i128>)> = vec![
                (Arc::new(Int64Array::from(v.clone())), v.iter().map(|&x| x.into()).collect()),
                (
                    Arc::new(Date32Array::from(v.iter().map(|&x| x as i32).collect::<Vec<_>>())),
                    v.iter().map(|&x| x.into()).collect(),
                ),
                (
                    Arc::new(UInt32Array::from(v.iter().map(|&x| x as u32).collect::<Vec<_>>())),
                    v.iter().map(|&x| (x as u32).into()).collect(),
                ),
            ];
            for (a, values) in &arrays {
                for op in ops {
                    for k in [-21i128, -3, 0, 5, 20, i128::from(i32::MAX) + 1, i128::from(u32::MAX) - 3] {
                        let got = run(&leaf(Test::Cmp(op, Key::Int(k))), a.clone());
                        let want: Vec<bool> = values.iter().map(|&x| holds(op, x, k)).collect();
                        assert_eq!(got, want, "{} {op:?} {k}, {n} values", a.data_type());
                    }
                }
            }
        }
    }

    #[test]
    fn integer_comparisons_hold_at_the_edges_of_the_type() {
        use arrow_array::{Int64Array, UInt64Array};
        let a: ArrayRef = Arc::new(Int64Array::from(vec![i64::MIN, -1, 0, i64::MAX]));
        let cmp = |op, k: i128| run(&leaf(Test::Cmp(op, Key::Int(k))), a.clone());
        assert_eq!(cmp(CmpOp::Lt, 0), [true, true, false, false]);
        assert_eq!(cmp(CmpOp::Ge, i64::MAX as i128), [false, false, false, true]);
        assert_eq!(cmp(CmpOp::Lt, i64::MAX as i128 + 1), [true; 4]);
        assert_eq!(cmp(CmpOp::Eq, i64::MAX as i128 + 1), [false; 4]);
        assert_eq!(cmp(CmpOp::Gt, i64::MIN as i128 - 1), [true; 4]);
        assert_eq!(cmp(CmpOp::Ne, -1), [true, false, true, true]);
        let u: ArrayRef = Arc::new(UInt64Array::from(vec![0, u64::MAX]));
        let ucmp = |op, k: i128| run(&leaf(Test::Cmp(op, Key::Int(k))), u.clone());
        assert_eq!(ucmp(CmpOp::Gt, i64::MAX as i128), [false, true]);
        assert_eq!(ucmp(CmpOp::Le, u64::MAX as i128), [true, true]);
    }

    #[test]
    fn floats_compare_as_ieee() {
        let a: ArrayRef = Arc::new(Float64Array::from(vec![f64::NAN, -0.0, 1.0]));
        assert_eq!(run(&leaf(Test::Cmp(CmpOp::Eq, Key::Float(0.0))), a.clone()), [false, true, false]);
        assert_eq!(run(&leaf(Test::Cmp(CmpOp::Ne, Key::Float(1.0))), a.clone()), [true, true, false]);
        assert_eq!(run(&leaf(Test::Cmp(CmpOp::Gt, Key::Float(-1.0))), a.clone()), [false, true, true]);
        let not_lt = Node::Not(Box::new(leaf(Test::Cmp(CmpOp::Lt, Key::Float(0.5)))));
        assert_eq!(run(&not_lt, a), [true, false, true]);
    }

    #[test]
    fn dictionaries_are_tested_per_value() {
        let d: DictionaryArray<Int32Type> = vec![Some("ab"), None, Some("b"), Some("abc")].into_iter().collect();
        let a: ArrayRef = Arc::new(d);
        assert_eq!(run(&leaf(Test::StartsWith(b"ab".to_vec(), false)), a.clone()), [true, false, false, true]);
        assert_eq!(run(&leaf(Test::In(vec![Key::Bytes(b"b".to_vec())], true)), a), [true, false, false, true]);
        let s: ArrayRef = Arc::new(StringArray::from(vec!["b", "a"]));
        assert_eq!(run(&leaf(Test::Cmp(CmpOp::Ge, Key::Bytes(b"ab".to_vec()))), s), [true, false]);
    }
}
