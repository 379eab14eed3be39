//! Time stamps as the tools print them. Only the time of day is read; the date part varies by
//! locale (11/22/2026, 22.11.2026, 2026-11-22, 2026年11月22日) and is needed only to notice
//! midnight, which [`Timeline`] does by watching the clock go backwards.

/// Seconds since midnight from the first clock in `text`: `HH:MM:SS[.fff]` (with an optional
/// AM/PM or 午前/午後 marker), ISO `...THH:MM:SS`, or Japanese `HH時MM分SS秒`.
pub fn time_of_day_s(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let found = (0..bytes.len()).find_map(|i| colon_clock(bytes, i));
    let (mut seconds, end) = match found {
        Some(f) => f,
        None => return kanji_clock(text),
    };
    let rest = text[end..].trim_start();
    let before = &text[..end];
    // The Japanese forms only occur in non-ASCII text (skips two searches per report).
    let japanese = !before.is_ascii();
    let pm =
        rest.starts_with("PM") || rest.starts_with("pm") || (japanese && before.contains("午後"));
    let am =
        rest.starts_with("AM") || rest.starts_with("am") || (japanese && before.contains("午前"));
    if pm && seconds < 12.0 * 3600.0 {
        seconds += 12.0 * 3600.0;
    } else if am && seconds >= 12.0 * 3600.0 {
        seconds -= 12.0 * 3600.0;
    }
    Some(seconds)
}

/// The time of day of a sadf record's time stamp: `2026-11-28 03:00:10 UTC` as sadf prints it
/// by default, or seconds since the epoch (`1764298810`, `sadf -U`), whose time of day is the
/// remainder of a day (UTC, as sadf's own stamps are).
pub fn sadf_time_of_day_s(text: &str) -> Option<f64> {
    const DAY_S: u64 = 86_400;
    let digits = text.trim();
    if !digits.is_empty() && digits.len() <= 12 && digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits
            .parse::<u64>()
            .ok()
            .map(|epoch| (epoch % DAY_S) as f64);
    }
    time_of_day_s(text)
}

/// `H:MM:SS` or `HH:MM:SS` starting at `i` (not preceded by a digit), optional fraction.
fn colon_clock(b: &[u8], i: usize) -> Option<(f64, usize)> {
    if i > 0 && b[i - 1].is_ascii_digit() {
        return None;
    }
    let digit = |k: usize| {
        b.get(k)
            .filter(|c| c.is_ascii_digit())
            .map(|c| (c - b'0') as u32)
    };
    let (hours, mut k) = match (digit(i), digit(i + 1)) {
        (Some(h1), Some(h2)) => (h1 * 10 + h2, i + 2),
        (Some(h), None) => (h, i + 1),
        _ => return None,
    };
    if b.get(k) != Some(&b':') {
        return None;
    }
    let minutes = digit(k + 1)? * 10 + digit(k + 2)?;
    k += 3;
    if b.get(k) != Some(&b':') {
        return None;
    }
    let secs = digit(k + 1)? * 10 + digit(k + 2)?;
    k += 3;
    if hours > 23 || minutes > 59 || secs > 60 {
        return None;
    }
    let mut value = (hours * 3600 + minutes * 60 + secs) as f64;
    if b.get(k) == Some(&b'.') || b.get(k) == Some(&b',') {
        let mut scale = 0.1;
        k += 1;
        while let Some(d) = digit(k) {
            value += d as f64 * scale;
            scale /= 10.0;
            k += 1;
        }
    }
    Some((value, k))
}

/// `HH時MM分SS秒` (glibc's ja_JP `%X`), `HH时MM分SS秒` (zh_CN) or `HH시 MM분 SS초` (ko_KR),
/// found after any label (`時間: ` of sysstat 7's `iostat -t`), with a morning or afternoon
/// marker (`午前`/`午後`, `上午`/`下午`, `오전`/`오후`) anywhere before it.
fn kanji_clock(text: &str) -> Option<f64> {
    for (at, c) in text.char_indices() {
        if !matches!(c, '時' | '时' | '시') {
            continue;
        }
        let Some((hours, _)) = number_before(&text[..at]) else {
            continue;
        };
        let rest = &text[at + c.len_utf8()..];
        let Some((minutes, rest)) = number_then(rest, &['分', '분']) else {
            continue;
        };
        let Some((seconds, _)) = number_then(rest, &['秒', '초']) else {
            continue;
        };
        let before = &text[..at];
        let mut hours = hours;
        let pm = ["午後", "下午", "오후"].iter().any(|m| before.contains(m));
        let am = ["午前", "上午", "오전"].iter().any(|m| before.contains(m));
        if pm && hours < 12 {
            hours += 12;
        } else if am && hours == 12 {
            hours = 0;
        }
        if hours > 23 || minutes > 59 || seconds > 60 {
            return None;
        }
        return Some((hours * 3600 + minutes * 60 + seconds) as f64);
    }
    None
}

/// The decimal number that ends `head` (spaces before the marker allowed), and its start.
fn number_before(head: &str) -> Option<(u32, usize)> {
    let head = head.trim_end();
    let start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_digit())
        .last()
        .map(|(i, _)| i)?;
    Some((head[start..].parse().ok()?, start))
}

/// A number (after optional spaces) followed by one of `markers`; returns it and the rest.
fn number_then<'a>(text: &'a str, markers: &[char]) -> Option<(u32, &'a str)> {
    let text = text.trim_start();
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 2 {
        return None;
    }
    let value = text[..digits].parse().ok()?;
    let rest = &text[digits..];
    let marker = rest.chars().next().filter(|c| markers.contains(c))?;
    Some((value, &rest[marker.len_utf8()..]))
}

/// The time of a line that is only a time stamp, as `iostat -t` prints one before each
/// report: `11/22/26 17:19:57` and every locale's `%x %X` (sysstat 8-12), ISO, or sysstat 7's
/// `Time: 20:44:31` with its label translated (`Zeit:`, `Heure :`, `Время:`, `時間: 20時45分13秒`,
/// `時間： ...`). A label is at most three words without digits, ending in a colon.
pub fn stamp_line(line: &str) -> Option<f64> {
    let line = line.trim();
    let first = line.chars().next()?;
    if first.is_ascii_digit() || is_meridiem_start(line) {
        return time_of_day_s(line);
    }
    let colon = line.find([':', '：'])?;
    let label = &line[..colon];
    let words = label.split_whitespace().count();
    if words == 0 || words > 3 || label.chars().count() > 24 {
        return None;
    }
    if label
        .chars()
        .any(|c| c.is_ascii_digit() || c == '%' || c == '/')
    {
        return None;
    }
    let rest = line[colon..].trim_start_matches([':', '：']).trim_start();
    let rest_first = rest.chars().next()?;
    if !rest_first.is_ascii_digit() && !is_meridiem_start(rest) {
        return None;
    }
    time_of_day_s(rest)
}

/// A 12-hour clock whose marker comes first (`午後 8:45:13`, `오후 08시 45분 13초`).
fn is_meridiem_start(text: &str) -> bool {
    ["午前", "午後", "上午", "下午", "오전", "오후"]
        .iter()
        .any(|m| text.starts_with(m))
}

/// Turns times of day into seconds since the first one, adding a day whenever the clock goes
/// backwards (a capture over midnight).
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    first: Option<f64>,
    last: f64,
    days: f64,
}

impl Timeline {
    pub fn elapsed_s(&mut self, time_of_day_s: f64) -> f64 {
        let first = *self.first.get_or_insert(time_of_day_s);
        if time_of_day_s + 1.0 < self.last {
            self.days += 1.0;
        }
        self.last = time_of_day_s;
        time_of_day_s + self.days * 86400.0 - first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_formats() {
        assert_eq!(time_of_day_s("11/22/26 17:19:57"), Some(62397.0));
        assert_eq!(time_of_day_s("11/22/2026 05:19:57 PM"), Some(62397.0));
        assert_eq!(time_of_day_s("11/22/2026 12:00:01 AM"), Some(1.0));
        assert_eq!(time_of_day_s("2026-11-22T17:19:57+0000"), Some(62397.0));
        assert_eq!(time_of_day_s("22.11.2026 17:19:57"), Some(62397.0));
        assert_eq!(time_of_day_s("2026年11月22日 17時19分57秒"), Some(62397.0));
        assert_eq!(time_of_day_s("2026/11/22 午後 5:19:57"), Some(62397.0));
        assert_eq!(time_of_day_s("11/22/2026 17:19:57.250"), Some(62397.25));
        assert_eq!(time_of_day_s("Device r/s"), None);
        assert_eq!(time_of_day_s("2026年11月27日 20時45分13秒"), Some(74713.0));
        assert_eq!(time_of_day_s("2026年11月27日 20时45分13秒"), Some(74713.0));
        assert_eq!(
            time_of_day_s("2026년 11월 27일 (금) 오후 08시 45분 13초"),
            Some(74713.0)
        );
        assert_eq!(time_of_day_s("27.11.2026 20:45:13"), Some(74713.0));
        assert_eq!(time_of_day_s("1.2.3"), None);
    }

    /// Stamp lines of every sysstat version and locale; device rows, headers and the banner are
    /// not stamps.
    #[test]
    fn stamp_lines() {
        let at = Some(74713.0); // 20:45:13
        for line in [
            "Time: 20:45:13",
            "Time: 08:45:13 PM",
            "Zeit: 20:45:13",
            "Heure : 20:45:13",
            "Tiempo: 20:45:13",
            "Время: 20:45:13",
            "時間: 20時45分13秒",
            "時間： 20時45分13秒",
            "时间: 20时45分13秒",
            "11/27/2026 08:45:13 PM",
            "11/27/26 20:45:13",
            "27.11.2026 20:45:13",
            "27/11/2026 20:45:13",
            "2026年11月27日 20時45分13秒",
            "2026-11-27T20:45:13+0000",
            "  2026/11/27 午後 8:45:13",
        ] {
            assert_eq!(stamp_line(line), at, "{line}");
        }
        for line in [
            "avg-cpu:  %user   %nice %system %iowait  %steal   %idle",
            "Device:         rrqm/s   wrqm/s     r/s     w/s",
            "sda               0.00     0.00    1.00",
            "Linux 2.6.18-398.el5 (db01)     04/08/2016",
            "Time: 17:-5:10",
            "Time: 25:00:00",
            "Average:     dev8-0    600.00",
        ] {
            assert_eq!(stamp_line(line), None, "{line}");
        }
    }

    #[test]
    fn midnight_rollover() {
        let mut timeline = Timeline::default();
        assert_eq!(timeline.elapsed_s(86399.0), 0.0);
        assert_eq!(timeline.elapsed_s(0.0), 1.0);
        assert_eq!(timeline.elapsed_s(1.0), 2.0);
    }
}
