//! What no device can report: a negative rate, size or wait, or a rate beyond any storage
//! built (a capture edited by hand, a line damaged in transfer, a counter that wrapped). Such a
//! cell is refused with its file, line and column rather than sized.

use crate::error::ProfileError;

/// What a cell measures, for its bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Meaning {
    /// IOs or merges per second.
    Iops,
    /// Bytes per second once multiplied by the column's unit (1024 for kB/s, 512 for sectors).
    Bytes(f64),
    /// Milliseconds per IO (await, r_await, w_await).
    LatencyMs,
    /// IOs outstanding (aqu-sz).
    Queue,
    /// Not checked.
    Other,
}

/// Above any device: 100 million IOPS, 1 TB/s, a wait of a day, a million IOs queued. The
/// fastest NVMe arrays are two orders of magnitude below each.
const MAX_IOPS: f64 = 1e8;
const MAX_BYTES_S: f64 = 1e12;
const MAX_LATENCY_MS: f64 = 86_400_000.0;
const MAX_QUEUE: f64 = 1e6;

/// Checks one cell's value; `column` is its header name.
pub(crate) fn check(
    meaning: Meaning,
    value: f64,
    file: &str,
    line: u64,
    column: &str,
) -> Result<(), ProfileError> {
    let (scaled, most, what) = match meaning {
        Meaning::Iops => (value, MAX_IOPS, "100 million per second"),
        Meaning::Bytes(unit) => (value * unit, MAX_BYTES_S, "1 TB/s"),
        Meaning::LatencyMs => (value, MAX_LATENCY_MS, "a day per IO"),
        Meaning::Queue => (value, MAX_QUEUE, "a million IOs queued"),
        Meaning::Other => return Ok(()),
    };
    if value < 0.0 {
        return Err(ProfileError::syntax(
            file,
            line,
            Some(column),
            format!("{column} is negative ({value}); no device reports that"),
            "the line is damaged or edited: remove it or re-capture",
        ));
    }
    if scaled.is_nan() || scaled > most {
        return Err(ProfileError::syntax(
            file,
            line,
            Some(column),
            format!("{column} {value} is beyond any device (over {what})"),
            "the line is damaged or edited: remove it or re-capture",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds() {
        assert!(check(Meaning::Iops, 0.0, "f", 1, "r/s").is_ok());
        assert!(check(Meaning::Bytes(1024.0), 7e6, "f", 1, "wkB/s").is_ok());
        let error = check(Meaning::Bytes(1024.0), 1e26, "f", 7, "wkB/s")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(
                "f:7, column 'wkB/s': wkB/s 100000000000000000000000000 is beyond any device"
            ),
            "{error}"
        );
        let error = check(Meaning::LatencyMs, -3.5, "f", 9, "await")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("f:9, column 'await': await is negative (-3.5)"),
            "{error}"
        );
        assert!(check(Meaning::Queue, f64::NAN, "f", 1, "aqu-sz").is_err());
        assert!(check(Meaning::Other, -1.0, "f", 1, "%util").is_ok());
    }
}
