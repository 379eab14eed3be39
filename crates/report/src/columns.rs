//! Text tables: columns two spaces apart, each as wide as its widest cell. Every text table
//! iofit prints (the catalog, compare's checks, the bench suite's results) is laid out here.

/// How a column's cells sit in its width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Text: padded on the right.
    Left,
    /// Numbers: padded on the left, so digits line up.
    Right,
}

/// Lays out `rows` (the first is the header) as aligned columns; `aligns[i]` places column
/// `i` (missing entries are left-aligned). Widths count characters, not bytes, so `µs` and
/// `≥` do not shift a column. Each line's trailing spaces are trimmed. With `rule`, a line of
/// dashes as wide as each column follows the header.
pub fn align(rows: &[Vec<String>], aligns: &[Align], rule: bool) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (index, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(widths[c] - cell.chars().count());
            if aligns.get(c) == Some(&Align::Right) {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
        if index == 0 && rule {
            let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&dashes.join("  "));
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn pads_by_characters_aligns_numbers_right_and_trims() {
        let text = align(
            &[
                row(&["name", "µs"]),
                row(&["a", "1.5"]),
                row(&["bbbb", "10"]),
            ],
            &[Align::Left, Align::Right],
            true,
        );
        assert_eq!(text, "name   µs\n----  ---\na     1.5\nbbbb   10\n");
        assert_eq!(align(&[], &[], true), "");
    }
}
