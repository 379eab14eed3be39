//! Value syntaxes shared by the dialects: sizes, times, booleans, integers and fio's
//! per-direction comma lists. Each returns a [`ValueError`] (the reason, without a place) on
//! failure; the caller wraps it with the file, line and key it knows.

use iofit_model::units::{Bytes, SizeBase};
use std::time::Duration;

/// Why a value does not parse: the reason alone, in words a message can quote after the file,
/// line and key (`'8x' has an unknown size suffix...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ValueError(pub String);

impl From<String> for ValueError {
    fn from(reason: String) -> Self {
        ValueError(reason)
    }
}

impl From<&str> for ValueError {
    fn from(reason: &str) -> Self {
        ValueError(reason.to_string())
    }
}

/// Callers that build their own message take the reason as text.
impl From<ValueError> for String {
    fn from(error: ValueError) -> Self {
        error.0
    }
}

fn err<T>(reason: impl Into<String>) -> Result<T, ValueError> {
    Err(ValueError(reason.into()))
}

/// fio's `kb_base`: 1024 (default: every suffix is a power of two) or 1000 (SI suffixes are
/// powers of ten, `KiB` and friends stay binary).
pub fn size_base_from_kb_base(value: &str) -> Result<SizeBase, ValueError> {
    match value.trim() {
        "1024" => Ok(SizeBase::Binary),
        "1000" => Ok(SizeBase::Decimal),
        _ => err("kb_base must be 1024 or 1000".to_string()),
    }
}

/// A byte count: a number with an optional suffix (`8k`, `64KiB`, `30g`, `4096`). No suffix is
/// bytes. fio also writes a bare `0x` hex number; that is accepted too.
pub fn parse_size(text: &str, base: SizeBase) -> Result<Bytes, ValueError> {
    let trimmed = text.trim();
    if let Some(hex) = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        return u64::from_str_radix(hex, 16)
            .map(Bytes)
            .map_err(|_| ValueError(format!("'{trimmed}' is not a hexadecimal number")));
    }
    if trimmed.starts_with('-') {
        return err(format!(
            "'{trimmed}' is negative; sizes are counts of bytes"
        ));
    }
    // fio reads `45Gi` as `45GiB` (a power of two whatever kb_base says).
    let lower = trimmed.to_ascii_lowercase();
    let binary_short = ["ki", "mi", "gi", "ti", "pi"]
        .iter()
        .any(|suffix| lower.ends_with(suffix) && lower.len() > 2);
    if binary_short {
        return Bytes::parse_with_base(&format!("{trimmed}B"), base)
            .map_err(|e| ValueError(e.to_string()));
    }
    Bytes::parse_with_base(trimmed, base).map_err(|e| ValueError(e.to_string()))
}

/// fio's `bc_calc` (options.c): a value in which `$ncpus`, `$pagesize` or `$mb_memory` was
/// replaced is handed to `bc` when it holds `+ - * /`, so `10*1000*$mb_memory` is the product
/// (without a keyword, fio leaves unparenthesised arithmetic alone). Such a value made only of
/// numbers and operators becomes `(EXPRESSION)` for [`evaluate_arithmetic`] (which divides in
/// floating point where bc truncates).
pub fn bc_after_keywords(written: &str, substituted: String) -> String {
    let replaced = substituted != written;
    let math = substituted.contains(['+', '-', '*', '/']);
    let plain = substituted
        .chars()
        .all(|c| c.is_ascii_digit() || " +-*/()".contains(c));
    if replaced && math && plain && !substituted.starts_with('(') {
        format!("({substituted})")
    } else {
        substituted
    }
}

/// What fio 3.33 reads from a size written as arithmetic without parentheses
/// (`10*10*1000*24105`): `strtoll` takes the leading number and, as the next character is not a
/// letter, `get_mult_bytes` (parse.c) applies no unit, so the value is that number of bytes.
/// `None` when `text` is not a number followed by `*`, `/`, `+` or `^`.
pub fn fio_unparenthesized_size(text: &str) -> Option<u64> {
    let trimmed = text.trim();
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &trimmed[digits..];
    if digits == 0 || !rest.starts_with(['*', '/', '+', '^']) {
        return None;
    }
    trimmed[..digits].parse().ok()
}

/// The longest time any option takes: 10^9 s keeps every deadline in nanoseconds within a
/// `u64` (10^9 s = 10^18 ns < 1.8 x 10^19), so no later arithmetic on it can overflow.
pub const MAX_TIME_S: f64 = 1e9;

/// A time as fio reads it: no unit is `default_unit`; suffixes `us`/`usec`, `ms`/`msec`,
/// `s`/`sec`, `m`/`min`, `h`/`hour`, `d`/`day` (fio's `m` is minutes).
pub fn parse_time(text: &str, default_unit: Duration) -> Result<Duration, ValueError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return err(
            "empty time; write a number with an optional unit such as 30, 30s, 500ms or 2m",
        );
    }
    let split_at = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number_text, unit_text) = trimmed.split_at(split_at);
    let number: f64 = number_text.parse().map_err(|_| {
        format!("'{trimmed}' is not a time; write a number with an optional unit such as 30, 30s, 500ms or 2m")
    })?;
    let unit_secs = match unit_text.trim().to_ascii_lowercase().as_str() {
        "" => default_unit.as_secs_f64(),
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "s" | "sec" => 1.0,
        "m" | "min" => 60.0,
        "h" | "hour" => 3600.0,
        "d" | "day" => 86400.0,
        other => {
            return err(format!(
                "'{trimmed}' has an unknown time unit '{other}'; use us, ms, s, m, h or d"
            ))
        }
    };
    let secs = number * unit_secs;
    if !secs.is_finite() || secs > MAX_TIME_S {
        return err(format!(
            "'{trimmed}' is out of range; a time is 0 to {MAX_TIME_S:e} s (about 31 years)"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// fio booleans: `1`/`0`, also `true`/`false`, `yes`/`no`, `on`/`off`. A bare flag is `true`.
pub fn parse_bool(value: Option<&str>) -> Result<bool, ValueError> {
    match value.map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(v) => match v.as_str() {
            "" | "1" | "true" | "yes" | "on" => Ok(true),
            "0" | "false" | "no" | "off" => Ok(false),
            _ => err(format!("'{v}' is not a boolean; write 1 or 0")),
        },
    }
}

/// A whole number, decimal or `0x` hex, optionally with fio's integer suffixes (`k` = 1000 for
/// counts would be ambiguous, so counts take plain numbers only).
pub fn parse_u64(text: &str) -> Result<u64, ValueError> {
    let trimmed = text.trim();
    let parsed = if let Some(hex) = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16)
    } else {
        trimmed.parse::<u64>()
    };
    parsed.map_err(|_| {
        ValueError(
            if trimmed.starts_with('-') && trimmed[1..].parse::<u64>().is_ok() {
                format!("'{trimmed}' is negative, and a count or size cannot be")
            } else {
                format!("'{trimmed}' is not a whole number")
            },
        )
    })
}

pub fn parse_u32(text: &str) -> Result<u32, ValueError> {
    let value = parse_u64(text)?;
    u32::try_from(value).map_err(|_| ValueError(format!("'{}' is too large", text.trim())))
}

/// A percentage 0..=100 (whole or decimal number).
pub fn parse_percent(text: &str) -> Result<f64, ValueError> {
    let trimmed = text.trim().trim_end_matches('%');
    let value: f64 = trimmed
        .parse()
        .map_err(|_| format!("'{}' is not a percentage", text.trim()))?;
    if !(0.0..=100.0).contains(&value) || !value.is_finite() {
        return err(format!("{value} is outside 0..100"));
    }
    Ok(value)
}

/// fio's per-direction list `read[,write[,trim]]`: a value not followed by a comma carries over to
/// the directions after it; an empty entry leaves that direction at its default (`None`).
/// Returns (read, write); [`split_per_ddir`] keeps the trim entry too.
pub fn split_per_direction(value: &str) -> Result<(Option<String>, Option<String>), ValueError> {
    let (read, write, _trim) = split_per_ddir(value)?;
    Ok((read, write))
}

/// fio's `READ,WRITE,TRIM` values (options.c: `bs`, `bssplit` and `bsrange` take up to three):
/// an empty entry is `None` (fio's default), and missing ones repeat the last one given, so
/// `bs=4k,64k` trims in 64k.
pub type PerDdirText = (Option<String>, Option<String>, Option<String>);

/// Splits `value` as [`PerDdirText`].
pub fn split_per_ddir(value: &str) -> Result<PerDdirText, ValueError> {
    let parts: Vec<&str> = value.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return err("at most three comma-separated values (read,write,trim)".to_string());
    }
    let pick = |index: usize| -> Option<String> {
        let part = if index < parts.len() {
            parts[index]
        } else {
            parts[parts.len() - 1]
        };
        if part.is_empty() {
            None
        } else {
            Some(part.to_string())
        }
    };
    Ok((pick(0), pick(1), pick(2)))
}

/// The machine facts fio substitutes in job files: `$ncpus` (online CPUs), `$pagesize` (bytes)
/// and `$mb_memory` (physical memory in MiB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemVars {
    pub ncpus: u64,
    pub pagesize: u64,
    pub mb_memory: u64,
}

impl SystemVars {
    pub fn of_this_machine() -> SystemVars {
        // SAFETY: sysconf only reads system constants; it has no memory-safety preconditions.
        let (ncpus, pagesize, pages) = unsafe {
            (
                libc::sysconf(libc::_SC_NPROCESSORS_ONLN),
                libc::sysconf(libc::_SC_PAGESIZE),
                libc::sysconf(libc::_SC_PHYS_PAGES),
            )
        };
        let positive = |v: libc::c_long, default: u64| {
            u64::try_from(v).ok().filter(|&v| v > 0).unwrap_or(default)
        };
        let pagesize = positive(pagesize, 4096);
        SystemVars {
            ncpus: positive(ncpus, 1),
            pagesize,
            mb_memory: positive(pages, 0).saturating_mul(pagesize) >> 20,
        }
    }

    /// `value` with fio's `$ncpus`, `$pagesize` and `$mb_memory` replaced by their numbers.
    pub fn substitute(&self, value: &str) -> String {
        if !value.contains('$') {
            return value.to_string();
        }
        value
            .replace("$ncpus", &self.ncpus.to_string())
            .replace("$pagesize", &self.pagesize.to_string())
            .replace("$mb_memory", &self.mb_memory.to_string())
    }
}

/// fio's arithmetic in values: each comma-separated part that starts with `(` has its
/// parenthesised expression (`+ - * / % ^`, numbers, nested parentheses) replaced by the
/// result; what follows the closing parenthesis (a unit such as `k`) stays. A time option's
/// expression without a unit is in microseconds, as fio reads it. Values without `(` pass
/// through unchanged.
pub fn evaluate_arithmetic(value: &str, is_time: bool) -> Result<String, ValueError> {
    if !value.contains('(') {
        return Ok(value.to_string());
    }
    let mut parts = Vec::new();
    for part in value.split(',') {
        let trimmed = part.trim();
        if !trimmed.starts_with('(') {
            parts.push(part.to_string());
            continue;
        }
        let close = matching_paren(trimmed).ok_or("a '(' is not closed")?;
        let mut parser = Expr {
            text: &trimmed.as_bytes()[1..close],
            at: 0,
            depth: 0,
        };
        let result = parser.sum()?;
        parser.skip_space();
        if parser.at != parser.text.len() {
            return err(format!(
                "'{}' is not an arithmetic expression",
                &trimmed[..=close]
            ));
        }
        if !result.is_finite() || result < 0.0 {
            return err(format!(
                "'{}' is {result}, not a size, count or time",
                &trimmed[..=close]
            ));
        }
        let suffix = trimmed[close + 1..].trim();
        let number = if result.fract() == 0.0 && result < 1e18 {
            format!("{}", result as u64)
        } else {
            format!("{result}")
        };
        let unit = if is_time && suffix.is_empty() {
            "us"
        } else {
            suffix
        };
        parts.push(format!("{number}{unit}"));
    }
    Ok(parts.join(","))
}

fn matching_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (index, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
    }
    None
}

/// A recursive-descent evaluator over f64 (nesting is bounded by the line length and
/// [`MAX_EXPR_DEPTH`]).
struct Expr<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

const MAX_EXPR_DEPTH: usize = 64;

impl Expr<'_> {
    fn skip_space(&mut self) {
        while self
            .text
            .get(self.at)
            .is_some_and(|c| c.is_ascii_whitespace())
        {
            self.at += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.text.get(self.at).copied()
    }
    fn sum(&mut self) -> Result<f64, ValueError> {
        let mut value = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.at += 1;
            let rhs = self.product()?;
            value = if op == b'+' { value + rhs } else { value - rhs };
        }
        Ok(value)
    }
    fn product(&mut self) -> Result<f64, ValueError> {
        let mut value = self.power()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.at += 1;
            let rhs = self.power()?;
            if op != b'*' && rhs == 0.0 {
                return err("division by zero");
            }
            value = match op {
                b'*' => value * rhs,
                b'/' => value / rhs,
                _ => value % rhs,
            };
        }
        Ok(value)
    }
    fn power(&mut self) -> Result<f64, ValueError> {
        let base = self.atom()?;
        if self.peek() == Some(b'^') {
            self.at += 1;
            let exponent = self.power()?;
            return Ok(base.powf(exponent));
        }
        Ok(base)
    }
    fn atom(&mut self) -> Result<f64, ValueError> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            return err("the expression nests too deep");
        }
        let value = match self.peek() {
            Some(b'(') => {
                self.at += 1;
                let value = self.sum()?;
                if self.peek() != Some(b')') {
                    return err("a '(' is not closed");
                }
                self.at += 1;
                value
            }
            Some(b'-') => {
                self.at += 1;
                -self.atom()?
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let start = self.at;
                while self
                    .text
                    .get(self.at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.')
                {
                    self.at += 1;
                }
                let word = std::str::from_utf8(&self.text[start..self.at]).unwrap_or_default();
                parse_u64(word).map(|n| n as f64).or_else(|_| {
                    word.parse::<f64>()
                        .map_err(|_| format!("'{word}' is not a number"))
                })?
            }
            _ => return err("an operand is missing"),
        };
        self.depth -= 1;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_kb_base() {
        assert_eq!(parse_size("8k", SizeBase::Binary).unwrap(), Bytes(8192));
        assert_eq!(parse_size("8KB", SizeBase::Binary).unwrap(), Bytes(8192));
        assert_eq!(parse_size("8KB", SizeBase::Decimal).unwrap(), Bytes(8000));
        assert_eq!(parse_size("8KiB", SizeBase::Decimal).unwrap(), Bytes(8192));
        assert_eq!(parse_size("4096", SizeBase::Binary).unwrap(), Bytes(4096));
        assert_eq!(parse_size("0x1000", SizeBase::Binary).unwrap(), Bytes(4096));
        assert!(parse_size("12q", SizeBase::Binary).is_err());
        assert!(parse_size("-1", SizeBase::Binary).is_err());
    }

    #[test]
    fn times_follow_fio_units() {
        let secs = Duration::from_secs(1);
        assert_eq!(parse_time("30", secs).unwrap(), Duration::from_secs(30));
        assert_eq!(parse_time("2m", secs).unwrap(), Duration::from_secs(120));
        assert_eq!(parse_time("1h", secs).unwrap(), Duration::from_secs(3600));
        assert_eq!(
            parse_time("500ms", secs).unwrap(),
            Duration::from_millis(500)
        );
        assert_eq!(
            parse_time("250us", secs).unwrap(),
            Duration::from_micros(250)
        );
        assert!(parse_time("3 fortnights", secs).is_err());
    }

    #[test]
    fn per_direction_carries_over() {
        let s = |v: &str| split_per_direction(v).unwrap();
        assert_eq!(s("256k"), (Some("256k".into()), Some("256k".into())));
        assert_eq!(s("8k,32k"), (Some("8k".into()), Some("32k".into())));
        assert_eq!(s(",8k"), (None, Some("8k".into())));
        assert_eq!(s("500k,"), (Some("500k".into()), None));
        assert!(split_per_direction("1,2,3,4").is_err());
    }

    #[test]
    fn arithmetic_like_fio() {
        assert_eq!(evaluate_arithmetic("(1024*8)k", false).unwrap(), "8192k");
        assert_eq!(
            evaluate_arithmetic("(2^10+(3-1)*2)", false).unwrap(),
            "1028"
        );
        assert_eq!(evaluate_arithmetic("(10%4),(6/3)", false).unwrap(), "2,2");
        assert_eq!(
            evaluate_arithmetic("(1000*1000)", true).unwrap(),
            "1000000us"
        );
        assert_eq!(evaluate_arithmetic("(1+2)s", true).unwrap(), "3s");
        assert_eq!(evaluate_arithmetic("4k", false).unwrap(), "4k");
        // fio pipes a value whose keyword it replaced through bc: the product, not 10.
        let bc = bc_after_keywords("10*1000*$mb_memory", "10*1000*24105".to_string());
        assert_eq!(evaluate_arithmetic(&bc, false).unwrap(), "241050000");
        assert_eq!(
            bc_after_keywords("10*1000", "10*1000".to_string()),
            "10*1000",
            "no keyword: fio reads the leading number"
        );
        assert_eq!(
            bc_after_keywords("$pagesize-64k", "4096-64k".to_string()),
            "4096-64k"
        );
        assert!(evaluate_arithmetic("(1+", false).is_err());
        assert!(evaluate_arithmetic("(1/0)", false).is_err());
        assert!(evaluate_arithmetic("(2-5)", false).is_err());
        assert!(
            evaluate_arithmetic(&format!("{}1{}", "(".repeat(200), ")".repeat(200)), false)
                .is_err()
        );
    }

    #[test]
    fn system_variables() {
        let vars = SystemVars {
            ncpus: 8,
            pagesize: 4096,
            mb_memory: 16000,
        };
        assert_eq!(vars.substitute("$ncpus"), "8");
        assert_eq!(vars.substitute("($mb_memory/2)m"), "(16000/2)m");
        assert_eq!(vars.substitute("$pagesize"), "4096");
        let here = SystemVars::of_this_machine();
        assert!(here.ncpus >= 1 && here.pagesize >= 512 && here.mb_memory > 0);
    }

    #[test]
    fn booleans() {
        assert!(parse_bool(None).unwrap());
        assert!(!parse_bool(Some("0")).unwrap());
        assert!(parse_bool(Some("2")).is_err());
    }
}
