//! A small SQL-like condition language for predicates given as text (the CLI's `--where`):
//!
//! ```text
//! x > 5 AND (s = 'abc' OR s LIKE 'ab%') AND d BETWEEN DATE '2020-01-01' AND DATE '2020-02-01'
//! k IN (1, 2, 3)   k NOT IN (4)   v IS NULL   v IS NOT NULL   NOT (x <= 2.5)
//! rec.a = 1   "odd name" = 'x'   t >= TIMESTAMP '2021-06-01 12:00:00.5'   flag = true
//! ```
//!
//! Operators `= == != <> < <= > >=`; `LIKE` takes a prefix (`'ab%'`), a substring
//! (`'%ab%'`) or a pattern without wildcards (equality); keywords are case-insensitive. A number with a point
//! is an exact decimal (`12.50`), with an exponent a float (`1e3`).

use arrow_schema::TimeUnit;

use super::expr::{col, CmpOp, Literal, Predicate};
use crate::error::{Error, Result};

/// Parses a condition such as `x > 5 and s = 'abc'` into a predicate.
pub fn parse(text: &str) -> Result<Predicate> {
    let tokens = tokenize(text)?;
    let mut p = Parser { tokens, at: 0, text, depth: 0 };
    let predicate = p.or()?;
    match p.tokens.get(p.at) {
        None => Ok(predicate),
        Some(t) => Err(p.error(&format!("unexpected {t:?} after a complete condition"))),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Str(String),
    Number(String),
    Op(&'static str),
    Open,
    Close,
    Comma,
}

fn tokenize(text: &str) -> Result<Vec<Token>> {
    let bad = |msg: String| Error::invalid_argument(format!("--where: {msg} in '{text}'"));
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let quoted = |i: &mut usize, q: char| -> Result<String> {
            let mut s = String::new();
            *i += 1;
            loop {
                match chars.get(*i) {
                    None => return Err(bad(format!("unterminated {q}quote{q}"))),
                    Some(&ch) if ch == q && chars.get(*i + 1) == Some(&q) => {
                        s.push(q);
                        *i += 2;
                    }
                    Some(&ch) if ch == q => {
                        *i += 1;
                        return Ok(s);
                    }
                    Some(&ch) => {
                        s.push(ch);
                        *i += 1;
                    }
                }
            }
        };
        match c {
            _ if c.is_whitespace() => i += 1,
            '(' | ')' | ',' => {
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    _ => Token::Comma,
                });
                i += 1;
            }
            '\'' => out.push(Token::Str(quoted(&mut i, '\'')?)),
            '"' => out.push(Token::Quoted(quoted(&mut i, '"')?)),
            '0'..='9' | '-' | '.' if c != '-' || chars.get(i + 1).is_some_and(|d| d.is_ascii_digit() || *d == '.') => {
                let start = i;
                i += 1;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric()
                        || chars[i] == '.'
                        || chars[i] == '_'
                        || ((chars[i] == '-' || chars[i] == '+') && matches!(chars[i - 1], 'e' | 'E')))
                {
                    i += 1;
                }
                out.push(Token::Number(chars[start..i].iter().collect()));
            }
            '=' | '!' | '<' | '>' => {
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                let op = ["==", "!=", "<>", "<=", ">="].into_iter().find(|o| *o == two);
                let op = match (op, c) {
                    (Some(o), _) => o,
                    (None, '=') => "=",
                    (None, '<') => "<",
                    (None, '>') => ">",
                    _ => return Err(bad(format!("unknown operator at '{two}'"))),
                };
                i += op.len();
                out.push(Token::Op(op));
            }
            _ if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.') {
                    i += 1;
                }
                out.push(Token::Word(chars[start..i].iter().collect()));
            }
            _ => return Err(bad(format!("unexpected character '{c}'"))),
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Token>,
    at: usize,
    text: &'a str,
    /// Nesting of `NOT` and parentheses so far: bounded, so that no input overflows the stack.
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, msg: &str) -> Error {
        Error::invalid_argument(format!("--where: {msg} in '{}'", self.text))
    }

    fn peek_keyword(&self, k: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Token::Word(w)) if w.eq_ignore_ascii_case(k))
    }

    fn keyword(&mut self, k: &str) -> bool {
        let found = self.peek_keyword(k);
        self.at += found as usize;
        found
    }

    fn expect(&mut self, t: Token, what: &str) -> Result<()> {
        match self.tokens.get(self.at) {
            Some(x) if *x == t => {
                self.at += 1;
                Ok(())
            }
            other => Err(self.error(&format!("expected {what}, found {other:?}"))),
        }
    }

    fn or(&mut self) -> Result<Predicate> {
        let mut p = self.and()?;
        while self.keyword("or") {
            p = p.or(self.and()?);
        }
        Ok(p)
    }

    fn and(&mut self) -> Result<Predicate> {
        let mut p = self.not()?;
        while self.keyword("and") {
            p = p.and(self.not()?);
        }
        Ok(p)
    }

    fn not(&mut self) -> Result<Predicate> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(self.error("more than 200 nested NOTs and parentheses"));
        }
        let p = self.not_inner();
        self.depth -= 1;
        p
    }

    fn not_inner(&mut self) -> Result<Predicate> {
        if self.keyword("not") {
            return Ok(!self.not()?);
        }
        if self.tokens.get(self.at) == Some(&Token::Open) {
            self.at += 1;
            let p = self.or()?;
            self.expect(Token::Close, "')'")?;
            return Ok(p);
        }
        self.condition()
    }

    fn condition(&mut self) -> Result<Predicate> {
        let column = match self.tokens.get(self.at).cloned() {
            Some(Token::Word(w) | Token::Quoted(w)) => w,
            other => return Err(self.error(&format!("expected a column name, found {other:?}"))),
        };
        self.at += 1;
        let c = col(column.as_str());
        if let Some(Token::Op(op)) = self.tokens.get(self.at).cloned() {
            self.at += 1;
            let op = match op {
                "=" | "==" => CmpOp::Eq,
                "!=" | "<>" => CmpOp::Ne,
                "<" => CmpOp::Lt,
                "<=" => CmpOp::Le,
                ">" => CmpOp::Gt,
                _ => CmpOp::Ge,
            };
            return Ok(Predicate::Compare { column, op, value: self.literal()? });
        }
        if self.keyword("is") {
            let negated = self.keyword("not");
            if !self.keyword("null") {
                return Err(self.error("expected NULL after IS"));
            }
            return Ok(if negated { c.is_not_null() } else { c.is_null() });
        }
        if self.keyword("between") {
            let low = self.literal()?;
            if !self.keyword("and") {
                return Err(self.error("expected AND in BETWEEN"));
            }
            return Ok(c.between(low, self.literal()?));
        }
        let negated = self.keyword("not");
        let p = if self.keyword("in") {
            self.expect(Token::Open, "'(' after IN")?;
            let mut values = vec![self.literal()?];
            while self.tokens.get(self.at) == Some(&Token::Comma) {
                self.at += 1;
                values.push(self.literal()?);
            }
            self.expect(Token::Close, "')' to end the IN list")?;
            c.is_in(values)
        } else if self.keyword("like") {
            let Some(Token::Str(pattern)) = self.tokens.get(self.at).cloned() else {
                return Err(self.error("expected a quoted pattern after LIKE"));
            };
            self.at += 1;
            let (lead, body) = match pattern.strip_prefix('%') {
                Some(rest) if !rest.is_empty() => (true, rest),
                _ => (false, pattern.as_str()),
            };
            let (trail, body) = match body.strip_suffix('%') {
                Some(rest) => (true, rest),
                None => (false, body),
            };
            if body.contains(['%', '_']) || (lead && !trail) {
                return Err(Error::unsupported(format!(
                    "--where: LIKE '{pattern}': only a prefix ('abc%'), a substring ('%abc%') or no wildcard \
                     is supported yet"
                )));
            }
            match (lead, trail) {
                (true, _) => c.contains(body),
                (false, true) => c.starts_with(body),
                (false, false) => c.eq(body),
            }
        } else {
            return Err(self.error(&format!("expected an operator after column '{column}'")));
        };
        Ok(if negated { !p } else { p })
    }

    fn literal(&mut self) -> Result<Literal> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        Ok(match token {
            Some(Token::Str(s)) => Literal::Str(s),
            Some(Token::Number(n)) => number(&n).ok_or_else(|| self.error(&format!("'{n}' is not a number")))?,
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("true") => Literal::Bool(true),
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("false") => Literal::Bool(false),
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("nan") => Literal::Float(f64::NAN),
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("inf") => Literal::Float(f64::INFINITY),
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("date") || w.eq_ignore_ascii_case("timestamp") => {
                let Some(Token::Str(s)) = self.tokens.get(self.at).cloned() else {
                    return Err(self.error(&format!("expected a quoted value after {w}")));
                };
                self.at += 1;
                let bad = || self.error(&format!("'{s}' is not a {w} (YYYY-MM-DD[ HH:MM:SS[.fraction]])"));
                let (value, unit) = timestamp(&s).ok_or_else(bad)?;
                match w.eq_ignore_ascii_case("date") {
                    true if s.len() == 10 => Literal::Date((value / 86_400_000_000) as i32),
                    true => return Err(bad()),
                    false => Literal::Timestamp { value, unit },
                }
            }
            other => return Err(self.error(&format!("expected a value, found {other:?}"))),
        })
    }
}

/// An integer, an exact decimal (`12.50`), or a float (with an exponent, `nan`, `inf`).
fn number(n: &str) -> Option<Literal> {
    let n = n.replace('_', "");
    if let Ok(v) = n.parse::<i64>() {
        return Some(Literal::Int(v));
    }
    if let Ok(v) = n.parse::<u64>() {
        return Some(Literal::UInt(v));
    }
    if !n.contains(['e', 'E']) {
        if let Some((int, frac)) = n.split_once('.') {
            let digits = format!("{int}{frac}");
            if frac.len() <= 38 && frac.chars().all(|c| c.is_ascii_digit()) {
                if let Ok(unscaled) = digits.parse::<i128>() {
                    return Some(Literal::Decimal { unscaled, scale: frac.len() as u8 });
                }
            }
        }
    }
    n.parse::<f64>().ok().map(Literal::Float)
}

/// `YYYY-MM-DD[ HH:MM:SS[.fraction]]` as microseconds (nanoseconds with more than six
/// fraction digits) since the epoch.
fn timestamp(s: &str) -> Option<(i64, TimeUnit)> {
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut parts = date.splitn(3, '-');
    let (y, m, d): (i64, i64, i64) =
        (parts.next()?.parse().ok()?, parts.next()?.parse().ok()?, parts.next()?.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || !(-999_999..=999_999).contains(&y) {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let (mut secs, mut frac, mut digits) = (days.checked_mul(86_400)?, 0i64, 0u32);
    if let Some(t) = time {
        let (hms, f) = match t.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (t, None),
        };
        let v: Vec<i64> = hms.split(':').map(|x| x.parse().ok()).collect::<Option<_>>()?;
        let [h, mi, s] = v[..] else { return None };
        if !(0..24).contains(&h) || !(0..60).contains(&mi) || !(0..=60).contains(&s) {
            return None;
        }
        secs += h * 3600 + mi * 60 + s;
        if let Some(f) = f {
            if f.is_empty() || f.len() > 9 || !f.chars().all(|c| c.is_ascii_digit()) {
                return None;
            }
            (frac, digits) = (f.parse().ok()?, f.len() as u32);
        }
    }
    match digits > 6 {
        true => {
            Some((secs.checked_mul(1_000_000_000)?.checked_add(frac * 10i64.pow(9 - digits))?, TimeUnit::Nanosecond))
        }
        false => Some((secs.checked_mul(1_000_000)?.checked_add(frac * 10i64.pow(6 - digits))?, TimeUnit::Microsecond)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_parse_with_sql_precedence() {
        let p = parse("x > 5 and s = 'it''s' or not rec.a is null").unwrap();
        assert_eq!(p.to_string(), "((x > 5 AND s = 'it''s') OR NOT rec.a IS NULL)");
        let p = parse("k NOT IN (1, -2) AND s LIKE 'ab%' AND v BETWEEN 1.50 AND 2e3").unwrap();
        assert_eq!(p.to_string(), "((NOT k IN (1, -2) AND s LIKE 'ab%') AND (v >= 1.50 AND v <= 2000.0))");
        assert_eq!(parse("\"odd name\" <> 3").unwrap(), col("odd name").ne(3));
        assert_eq!(parse("s LIKE '%b c%'").unwrap(), col("s").contains("b c"));
        assert_eq!(parse("s LIKE 'abc'").unwrap(), col("s").eq("abc"));
    }

    #[test]
    fn dates_and_timestamps_count_from_the_epoch() {
        assert_eq!(parse("d = DATE '2020-03-01'").unwrap(), col("d").eq(Literal::Date(18322)));
        let t = Literal::Timestamp { value: 1_622_592_000_500_000, unit: TimeUnit::Microsecond };
        assert_eq!(parse("t >= timestamp '2021-06-02 00:00:00.5'").unwrap(), col("t").ge(t));
        assert_eq!(timestamp("1969-12-31 23:59:59"), Some((-1_000_000, TimeUnit::Microsecond)));
    }

    #[test]
    fn bad_conditions_say_what_is_wrong() {
        for (text, needle) in [
            ("x >", "expected a value"),
            ("x = 'a", "unterminated"),
            ("(x = 1", "')'"),
            ("x = 1 y", "unexpected"),
            ("s LIKE '%a'", "prefix"),
            ("d = DATE '2020-13-01'", "is not a DATE"),
            ("x ~ 1", "unexpected character"),
            ("(".repeat(100_000).as_str(), "nested"),
            ("t = TIMESTAMP '2020-01-01 99999999999999:00:00'", "is not a TIMESTAMP"),
            ("t = TIMESTAMP '99999999999999999-01-01'", "is not a TIMESTAMP"),
        ] {
            let e = parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }
}
