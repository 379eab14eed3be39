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

fn kanji_clock(text: &str) -> Option<f64> {
    let hour_at = text.find('時')?;
    let minute_at = text.find('分')?;
    let second_at = text.find('秒')?;
    let number_before = |end: usize| -> Option<u32> {
        let head = &text[..end];
        let start = head
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_digit())
            .last()
            .map(|(i, _)| i)?;
        head[start..].parse().ok()
    };
    let mut hours = number_before(hour_at)?;
    let minutes = number_before(minute_at)?;
    let seconds = number_before(second_at)?;
    if text.contains("午後") && hours < 12 {
        hours += 12;
    }
    if hours > 23 || minutes > 59 || seconds > 60 {
        return None;
    }
    Some((hours * 3600 + minutes * 60 + seconds) as f64)
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
        assert_eq!(time_of_day_s("1.2.3"), None);
    }

    #[test]
    fn midnight_rollover() {
        let mut timeline = Timeline::default();
        assert_eq!(timeline.elapsed_s(86399.0), 0.0);
        assert_eq!(timeline.elapsed_s(0.0), 1.0);
        assert_eq!(timeline.elapsed_s(1.0), 2.0);
    }
}
