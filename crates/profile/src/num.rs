//! Number parsing for the hot loops: sysstat prints fixed-point decimals ("1234.56", or
//! "1234,56" under a locale with a decimal comma), so a digits-only fast path avoids the general
//! float parser for nearly every field. Anything unusual falls back to `str::parse`.

use crate::error::{excerpt, ProfileError};

const POW10: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];

/// Parses a decimal number; a comma is accepted as the decimal separator. `None` if not a number.
///
/// The fast path is exact: the digits form an integer below 2^53 and one division by an exact
/// power of ten rounds correctly, so results equal `str::parse::<f64>`.
#[inline]
pub fn parse_decimal(bytes: &[u8]) -> Option<f64> {
    let (negative, digits) = match bytes.first()? {
        b'-' => (true, &bytes[1..]),
        b'+' => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut count = 0usize;
    let mut fraction_digits: Option<usize> = None;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa.wrapping_mul(10).wrapping_add((b - b'0') as u64);
                count += 1;
                if let Some(f) = fraction_digits.as_mut() {
                    *f += 1;
                }
            }
            b'.' | b',' if fraction_digits.is_none() => fraction_digits = Some(0),
            _ => return slow(bytes),
        }
    }
    if count == 0 {
        return None;
    }
    if count > 15 {
        return slow(bytes);
    }
    let scale = fraction_digits.unwrap_or(0);
    let value = mantissa as f64 / POW10[scale];
    Some(if negative { -value } else { value })
}

#[cold]
fn slow(bytes: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(bytes).ok()?;
    let value: f64 = if text.contains(',') && !text.contains('.') {
        text.replace(',', ".").parse().ok()?
    } else {
        text.parse().ok()?
    };
    value.is_finite().then_some(value)
}

/// One number cell of a table row: parsed, or a syntax error naming the file, line and column
/// that quotes the cell and says how to fix it.
#[inline]
pub(crate) fn number_cell(
    bytes: &[u8],
    file: &str,
    line: u64,
    column: &str,
    fix: &str,
) -> Result<f64, ProfileError> {
    parse_decimal(bytes).ok_or_else(|| {
        ProfileError::syntax(
            file,
            line,
            Some(column),
            format!(
                "'{}' is not a number",
                excerpt(&String::from_utf8_lossy(bytes))
            ),
            fix,
        )
    })
}

/// A number as `sar -h` / `iostat -h` (sysstat's `--human`) print it: `85.4%`, or a size with a
/// unit letter of sysstat's `units[]` (`B`, `k`, `M`, `G`, `T`, `P`: bytes and powers of 1024
/// bytes, whatever the column's own unit). Returns the number and, for a size, the bytes one
/// unit stands for; plain numbers go through [`parse_decimal`].
#[inline]
pub fn parse_human(bytes: &[u8]) -> Option<(f64, Option<f64>)> {
    if let Some(value) = parse_decimal(bytes) {
        return Some((value, None));
    }
    let (&last, number) = bytes.split_last()?;
    let unit_bytes = match last {
        b'%' => return parse_decimal(number).map(|v| (v, None)),
        b'B' => 1.0,
        b'k' => 1024.0,
        b'M' => 1024.0 * 1024.0,
        b'G' => 1024.0 * 1024.0 * 1024.0,
        b'T' => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        b'P' => 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    parse_decimal(number).map(|v| (v, Some(unit_bytes)))
}

/// Like [`number_cell`], also reading `--human` cells (see [`parse_human`]).
#[inline]
pub(crate) fn human_cell(
    bytes: &[u8],
    file: &str,
    line: u64,
    column: &str,
    fix: &str,
) -> Result<(f64, Option<f64>), ProfileError> {
    parse_human(bytes).ok_or_else(|| {
        ProfileError::syntax(
            file,
            line,
            Some(column),
            format!(
                "'{}' is not a number",
                excerpt(&String::from_utf8_lossy(bytes))
            ),
            fix,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_matches_std() {
        for text in [
            "0.00",
            "1234.56",
            "7616.00",
            "0",
            "12",
            "-3.5",
            "99.999",
            "484828.00",
        ] {
            assert_eq!(
                parse_decimal(text.as_bytes()),
                Some(text.parse::<f64>().unwrap()),
                "{text}"
            );
        }
    }

    #[test]
    fn decimal_comma_and_exponent() {
        assert_eq!(parse_decimal(b"0,0123"), Some(0.0123));
        assert_eq!(parse_decimal(b"1.5e3"), Some(1500.0));
        assert_eq!(
            parse_decimal(b"12345678901234567890.5"),
            Some(12345678901234567890.5)
        );
    }

    #[test]
    fn human_units() {
        assert_eq!(parse_human(b"7.9k"), Some((7.9, Some(1024.0))));
        assert_eq!(parse_human(b"40.5M"), Some((40.5, Some(1048576.0))));
        assert_eq!(parse_human(b"85.4%"), Some((85.4, None)));
        assert_eq!(parse_human(b"12.00"), Some((12.0, None)));
        assert_eq!(parse_human(b"0.0B"), Some((0.0, Some(1.0))));
        assert_eq!(parse_human(b"k"), None);
        assert_eq!(parse_human(b"1.2x"), None);
    }

    #[test]
    fn rejects_non_numbers() {
        for text in ["", "-", "abc", "1.2.3", "1.2k", "nan", "inf", "."] {
            assert_eq!(parse_decimal(text.as_bytes()), None, "{text}");
        }
    }
}
