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
    // At most 15 digits (and one separator) take the fast path: the integer stays below 2^53.
    if digits.is_empty() || digits.len() > 16 {
        return if digits.is_empty() { None } else { slow(bytes) };
    }
    let digit = |b: u8| {
        let d = b.wrapping_sub(b'0');
        (d < 10).then_some(d as u64)
    };
    let mut mantissa: u64 = 0;
    let mut i = 0;
    while let Some(d) = digits.get(i).and_then(|&b| digit(b)) {
        mantissa = mantissa * 10 + d;
        i += 1;
    }
    let integer_digits = i;
    let mut fraction_digits = 0;
    if i < digits.len() {
        if !matches!(digits[i], b'.' | b',') {
            return slow(bytes);
        }
        i += 1;
        while let Some(d) = digits.get(i).and_then(|&b| digit(b)) {
            mantissa = mantissa * 10 + d;
            i += 1;
            fraction_digits += 1;
        }
        if i < digits.len() {
            return slow(bytes);
        }
    }
    match integer_digits + fraction_digits {
        0 => return None,
        16.. => return slow(bytes),
        _ => {}
    }
    let value = mantissa as f64 / POW10[fraction_digits];
    Some(if negative { -value } else { value })
}

/// The number in `line[start..end]`, read eight digits at a time when it has sysstat's
/// `%.2f` shape (up to eight integer digits, a point or comma, two decimals) and at least
/// eight bytes of the line lie before its point; otherwise [`parse_decimal`] of the cell.
/// Equal to `parse_decimal` for every cell (the same integer over the same power of ten).
#[inline]
pub fn parse_cell_in_line(line: &[u8], start: usize, end: usize) -> Option<f64> {
    let cell = &line[start..end];
    if let Some(point) = end.checked_sub(3) {
        let integer_digits = point.wrapping_sub(start);
        if (1..=8).contains(&integer_digits) && point >= 8 && matches!(line[point], b'.' | b',') {
            let window: [u8; 8] = line[point - 8..point].try_into().expect("8 bytes");
            let (tens, ones) = (
                line[point + 1].wrapping_sub(b'0'),
                line[point + 2].wrapping_sub(b'0'),
            );
            if let (Some(integer), true) =
                (eight_digits(window, integer_digits), tens < 10 && ones < 10)
            {
                let mantissa = integer * 100 + u64::from(tens) * 10 + u64::from(ones);
                return Some(mantissa as f64 / POW10[2]);
            }
        }
    }
    parse_decimal(cell)
}

/// The integer of the last `digits` bytes of `window` (1..=8), `None` unless they are all ASCII
/// digits. The bytes before them (the line's blanks or other cells) are replaced by '0' first.
#[inline]
fn eight_digits(window: [u8; 8], digits: usize) -> Option<u64> {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    let word = u64::from_le_bytes(window);
    // Little-endian: the bytes before the number are the low ones.
    let before = if digits == 8 {
        0
    } else {
        u64::MAX >> (digits * 8)
    };
    let word = (word & !before) | (ZEROS & before);
    let all_digits = (word & 0xf0f0_f0f0_f0f0_f0f0) == ZEROS
        && (word.wrapping_add(0x0606_0606_0606_0606) & 0xf0f0_f0f0_f0f0_f0f0) == ZEROS;
    if !all_digits {
        return None;
    }
    // Eight digits to one integer in three multiply-and-shift steps (the lowest byte holds the
    // most significant digit), as in Lemire's "parse_eight_digits".
    let value = (word & 0x0f0f_0f0f_0f0f_0f0f).wrapping_mul(2561) >> 8;
    let value = (value & 0x00ff_00ff_00ff_00ff).wrapping_mul(6_553_601) >> 16;
    Some((value & 0x0000_ffff_0000_ffff).wrapping_mul(42_949_672_960_001) >> 32)
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

/// One number cell of a table row, plain or as `--human` prints it (see [`parse_human`]): parsed,
/// or a syntax error naming the file, line and column that quotes the cell and says how to fix it.
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
    fn every_shape_of_digits_and_one_point_parses_as_std_does() {
        // Up to 18 digits with the point anywhere (or none), with and without a sign: both the
        // fast path (<= 15 digits) and the fallback must give exactly what `str::parse` gives.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..20_000 {
            let digits = next(19) as usize;
            let mut text: String = (0..digits)
                .map(|_| char::from(b'0' + next(10) as u8))
                .collect();
            if next(4) > 0 {
                text.insert(next(digits as u64 + 1) as usize, '.');
            }
            match next(3) {
                0 => text.insert(0, '-'),
                1 => text.insert(0, '+'),
                _ => {}
            }
            let expected = text.parse::<f64>().ok().filter(|v| v.is_finite());
            assert_eq!(parse_decimal(text.as_bytes()), expected, "{text}");
        }
    }

    #[test]
    fn cells_read_in_place_equal_parse_decimal() {
        // Cells of every width, right-aligned after varied padding and neighbours, including
        // non-digits where the window reaches into the cell before and damaged cells.
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let alphabet = b"0123456789.,-x ";
        for _ in 0..50_000 {
            let before: Vec<u8> = (0..next(12)).map(|_| alphabet[next(15) as usize]).collect();
            let cell: Vec<u8> = if next(3) > 0 {
                let int: String = (0..1 + next(10))
                    .map(|_| char::from(b'0' + next(10) as u8))
                    .collect();
                format!("{int}.{:02}", next(100)).into_bytes()
            } else {
                (0..1 + next(9))
                    .map(|_| alphabet[next(14) as usize])
                    .collect()
            };
            let mut line = before.clone();
            line.push(b' ');
            let start = line.len();
            line.extend_from_slice(&cell);
            let end = line.len();
            line.extend_from_slice(b"  9.99");
            assert_eq!(
                parse_cell_in_line(&line, start, end),
                parse_decimal(&cell),
                "{:?} in {:?}",
                String::from_utf8_lossy(&cell),
                String::from_utf8_lossy(&line)
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
