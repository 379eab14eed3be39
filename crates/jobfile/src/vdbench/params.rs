//! One line's `key=value` parameters and the readers of their values: lists and ranges, sizes,
//! percentages, thread counts, `iorate=`, `xfersize=`, `openflags=`, `range=`, `shell=`.

use super::{lists, Arrivals, IoRate, RemoteShell, RunDef, Seek, SyncFlag, VdbenchNote, XferSize};
use crate::error::{ErrorKind, JobFileError, Location};
use crate::values::{parse_percent, parse_size, parse_time, parse_u32, ValueError};
use iofit_model::units::{Bytes, SizeBase};
use std::time::Duration;

/// One `key=value` of a line. `values` holds the list items (one for a plain value).
#[derive(Clone, Debug)]
pub(super) struct Param {
    pub(super) key: String,
    /// The key as written (an abbreviation, before `parse.rs`'s `check_keys` resolves `key`).
    pub(super) written: String,
    pub(super) raw: String,
    pub(super) values: Vec<String>,
}

pub(super) fn yes_no(value: &str, key: &str, loc: &Location) -> Result<bool, JobFileError> {
    match value.to_ascii_lowercase().as_str() {
        "yes" | "y" | "true" => Ok(true),
        "no" | "n" | "false" => Ok(false),
        _ => Err(loc.invalid(key, value, "not yes or no", "write yes or no")),
    }
}

/// `shell=`: iofit reaches every host through the OpenSSH client, whatever the file names.
/// vdbench's three shells only start vdbench on the host (rsh, ssh, or its own RMI daemon that
/// `vdbench rsh` left listening); what runs there and what comes back is the same. So rsh and
/// vdbench map onto iofit's worker over ssh, and the note returned says so (the host then
/// needs sshd and a key login for `user=`, as `shell=ssh` does in vdbench).
pub(super) fn check_shell(
    value: &str,
    loc: &Location,
) -> Result<Option<VdbenchNote>, JobFileError> {
    let instead = |shell: RemoteShell| {
        Some(VdbenchNote::ShellOverSsh {
            at: loc.clone(),
            written: value.to_string(),
            shell,
        })
    };
    match value.to_ascii_lowercase().as_str() {
        "ssh" => Ok(None),
        "rsh" => Ok(instead(RemoteShell::Rsh)),
        "vdbench" => Ok(instead(RemoteShell::VdbenchRmi)),
        _ => Err(loc.invalid(
            "shell",
            value,
            "vdbench knows shell=ssh, rsh and vdbench",
            "use shell=ssh",
        )),
    }
}

/// A numeric list with ranges (`(1k-64k,d)`, `(10-100,10)`), each item read by `parse`.
pub(super) fn numbers(
    p: &Param,
    loc: &Location,
    parse: impl Fn(&str) -> Result<f64, ValueError>,
) -> Result<Vec<f64>, JobFileError> {
    lists::expand_numeric(&p.values, parse).map_err(|why| {
        loc.invalid(
            &p.written,
            &p.raw,
            why.to_string(),
            "write a value, a list (a,b,c), or a range (LOW-HIGH,d) doubling or (LOW-HIGH,STEP)",
        )
    })
}

/// An rd's `iorate=` values (`max`, `curve`, numbers and numeric ranges) and whether
/// `curve` is among them.
pub(super) fn iorate_values(
    p: &Param,
    loc: &Location,
) -> Result<(Vec<IoRate>, bool), JobFileError> {
    let mut wants_curve = false;
    let mut rates = Vec::new();
    let mut numbers: Vec<String> = Vec::new();
    for (index, value) in p.values.iter().enumerate() {
        match value.to_ascii_lowercase().as_str() {
            "max" => rates.push(IoRate::Max),
            "curve" => {
                wants_curve = true;
                rates.push(IoRate::Curve(Vec::new()));
            }
            _ => numbers.push(value.clone()),
        }
        if is_last_or_keyword(&p.values, index) {
            // vdbench's numeric lists: (10000-300000,10000) steps, (100-800,d)
            // doubles (RD_entry reads iorate= through the same list code).
            for rate in iorate_list(&numbers, loc)? {
                rates.push(IoRate::Fixed(rate));
            }
            numbers.clear();
        }
    }
    Ok((rates, wants_curve))
}

/// An rd's `curve=` percentages, each above 0 and at most 1000.
pub(super) fn curve_points(p: &Param, loc: &Location) -> Result<Vec<f64>, JobFileError> {
    p.values
        .iter()
        .map(|v| {
            let pct: f64 = v.parse().map_err(|_| {
                loc.invalid("curve", v, "not a percentage", "write curve=(10,50,100)")
            })?;
            if !(pct > 0.0 && pct <= 1000.0) {
                return Err(loc.invalid(
                    "curve",
                    v,
                    "a curve point must be above 0%",
                    "write curve=(10,50,100)",
                ));
            }
            Ok(pct)
        })
        .collect::<Result<_, _>>()
}

/// An rd's `elapsed=`, `warmup=`, `interval=` or `pause=` (elapsed and interval above 0).
pub(super) fn rd_time(rd: &mut RunDef, p: &Param, loc: &Location) -> Result<(), JobFileError> {
    let value = single(p, loc)?;
    let time = parse_time(&value, Duration::from_secs(1)).map_err(|why| {
        loc.invalid(
            &p.written,
            &value,
            why,
            "write seconds or a number with s, m or h such as 600 or 10m",
        )
    })?;
    match p.key.as_str() {
        "elapsed" => {
            if time.is_zero() {
                return Err(loc.invalid(
                    "elapsed",
                    &p.raw,
                    "an elapsed time of 0",
                    "write elapsed=30 or more",
                ));
            }
            rd.elapsed = time;
        }
        "interval" => {
            if time.is_zero() {
                return Err(loc.invalid(
                    "interval",
                    &p.raw,
                    "an interval of 0",
                    "write interval=1",
                ));
            }
            rd.interval = time;
        }
        "warmup" => rd.warmup = time,
        _ => rd.pause = time,
    }
    Ok(())
}

/// An rd's `distribution=`: how arrivals are spaced at a fixed IO rate.
pub(super) fn arrivals(p: &Param, loc: &Location) -> Result<Arrivals, JobFileError> {
    Ok(match single(p, loc)?.to_ascii_lowercase().as_str() {
        "exponential" | "e" => Arrivals::Exponential,
        "uniform" | "u" => Arrivals::Uniform,
        "deterministic" | "d" => Arrivals::Deterministic,
        other => {
            return Err(loc.invalid(
                "distribution",
                other,
                "not an arrival distribution",
                "write exponential, uniform or deterministic",
            ))
        }
    })
}

pub(super) fn size_number(text: &str) -> Result<f64, ValueError> {
    let size = parse_size(text, SizeBase::Binary)?;
    if size == Bytes::ZERO {
        return Err(ValueError("a size of 0".into()));
    }
    Ok(size.as_u64() as f64)
}

pub(super) fn pct_number(text: &str) -> Result<f64, ValueError> {
    parse_percent(text)
}

/// `sd=(sd1-sd8,sd10)`: a list of names, ranges expanded.
pub(super) fn name_list(p: &Param, loc: &Location) -> Result<Vec<String>, JobFileError> {
    lists::expand_names(&p.values).map_err(|why| {
        loc.invalid(
            &p.written,
            &p.raw,
            why.to_string(),
            "write names such as (sd1-sd8) or sd*",
        )
    })
}

/// `stride=(min,max)`: two sizes, min <= max (vdbench WD_entry.parseStride).
pub(super) fn parse_stride(p: &Param, loc: &Location) -> Result<(Bytes, Bytes), JobFileError> {
    let fix = "write stride=(MIN,MAX) with two sizes, e.g. stride=(64k,1m)";
    let sizes: Vec<Bytes> = p
        .values
        .iter()
        .map(|v| parse_size(v, SizeBase::Binary).map_err(|why| loc.invalid("stride", v, why, fix)))
        .collect::<Result<_, _>>()?;
    match sizes[..] {
        [min, max] if min <= max => Ok((min, max)),
        [_, _] => Err(loc.invalid("stride", &p.raw, "the maximum is below the minimum", fix)),
        _ => Err(loc.invalid("stride", &p.raw, "not two values", fix)),
    }
}

pub(super) fn any_size(p: &Param, loc: &Location) -> Result<Bytes, JobFileError> {
    let value = single(p, loc)?;
    parse_size(&value, SizeBase::Binary)
        .map_err(|why| loc.invalid(&p.written, &value, why, "write a size such as 693g or 64m"))
}

/// Whether `values[index]` ends a run of numbers in an `iorate=` list (the list's end, or
/// `max`/`curve` next).
fn is_last_or_keyword(values: &[String], index: usize) -> bool {
    values
        .get(index + 1)
        .is_none_or(|next| matches!(next.to_ascii_lowercase().as_str(), "max" | "curve"))
}

/// The IO rates of a run of `iorate=` numbers, ranges expanded.
fn iorate_list(numbers: &[String], loc: &Location) -> Result<Vec<f64>, JobFileError> {
    let parse = |text: &str| -> Result<f64, ValueError> {
        text.parse::<f64>()
            .ok()
            .filter(|r| r.is_finite() && *r > 0.0)
            .ok_or_else(|| ValueError(format!("'{text}' is not an IO rate")))
    };
    lists::expand_numeric(numbers, parse).map_err(|why| {
        loc.invalid(
            "iorate",
            &numbers.join(","),
            why.to_string(),
            "write iorate=max, iorate=curve, a number of IOs per second such as iorate=5000, or a list such as iorate=(1000-5000,1000)",
        )
    })
}

pub(super) fn nonzero_size(p: &Param, loc: &Location) -> Result<Bytes, JobFileError> {
    let size = any_size(p, loc)?;
    if size == Bytes::ZERO {
        return Err(loc.invalid(
            &p.written,
            &p.raw,
            "a size of 0",
            "write a size such as 64m",
        ));
    }
    Ok(size)
}

/// `openflags=`: o_direct (directio), o_dsync, o_sync, fsync; a list of them.
pub(super) fn parse_openflags(
    p: &Param,
    loc: &Location,
) -> Result<(bool, Option<SyncFlag>), JobFileError> {
    let mut direct = false;
    let mut sync = None;
    for flag in &p.values {
        match flag.to_ascii_lowercase().as_str() {
            "o_direct" | "directio" => direct = true,
            "o_dsync" => sync = Some(SyncFlag::DataSync),
            "o_sync" | "fsync" | "o_rsync" => sync = Some(SyncFlag::Sync),
            "" => {}
            other => {
                return Err(loc.unsupported_value(
                    "openflags",
                    other,
                    format!("openflags={other}"),
                    "use o_direct, o_dsync, o_sync or fsync, or leave it out",
                ))
            }
        }
    }
    Ok((direct, sync))
}

/// `range=(start%,end%)` or `hotband=(start%,end%)`; a single value means (0,value).
pub(super) fn parse_range(p: &Param, loc: &Location) -> Result<(f64, f64), JobFileError> {
    let fix = "write two percentages such as (0,50)";
    let values = p
        .values
        .iter()
        .map(|v| {
            v.trim()
                .trim_end_matches('%')
                .parse::<f64>()
                .map_err(|_| loc.invalid(&p.written, v, "not a percentage", fix))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (start, end) = match values.as_slice() {
        [end] => (0.0, *end),
        [start, end] => (*start, *end),
        _ => return Err(loc.invalid(&p.written, &p.raw, "needs a start and an end", fix)),
    };
    if !(start >= 0.0 && end > start && end <= 100.0) {
        return Err(loc.invalid(
            &p.written,
            &p.raw,
            "the range must lie within 0..100 and end after it starts",
            fix,
        ));
    }
    Ok((start, end))
}

pub(super) fn single(p: &Param, loc: &Location) -> Result<String, JobFileError> {
    match p.values.as_slice() {
        [one] if !one.is_empty() => Ok(one.clone()),
        [] | [_] => Err(loc.error(Some(&p.written), ErrorKind::MissingValue(p.written.clone()))),
        _ => Err(loc.invalid(
            &p.written,
            &p.raw,
            "a list where one value is expected",
            "give one value",
        )),
    }
}

pub(super) fn positive_u32(value: &str, key: &str, loc: &Location) -> Result<u32, JobFileError> {
    let n = parse_u32(value)
        .map_err(|why| loc.invalid(key, value, why, "write a whole number such as 8"))?;
    if n == 0 {
        return Err(loc.invalid(key, value, "0 threads issue no IO", "write 1 or more"));
    }
    Ok(n)
}

pub(super) fn pct_value(value: &str, key: &str, loc: &Location) -> Result<f64, JobFileError> {
    parse_percent(value)
        .map_err(|why| loc.invalid(key, value, why, "write a percentage between 0 and 100"))
}

pub(super) fn parse_seek(value: &str, loc: &Location) -> Result<Seek, JobFileError> {
    let lower = value.to_ascii_lowercase();
    // vdbench takes any leading part of "sequential" and "random" (seq, s, rand, r).
    match lower.as_str() {
        "eof" | "-1" => Ok(Seek::Eof),
        w if !w.is_empty() && "sequential".starts_with(w) => Ok(Seek::RandomPct(0.0)),
        w if !w.is_empty() && "random".starts_with(w) => Ok(Seek::RandomPct(100.0)),
        other => parse_percent(other).map(Seek::RandomPct).map_err(|why| {
            loc.invalid(
                "seekpct",
                value,
                why,
                "write seekpct=0 (sequential), 100 (random), a percentage, or eof",
            )
        }),
    }
}

pub(super) fn parse_xfersize(p: &Param, loc: &Location) -> Result<XferSize, JobFileError> {
    let fix = "write xfersize=8k or a distribution (size,pct,size,pct...) such as (4k,30,64k,70)";
    let size = |text: &str| -> Result<Bytes, JobFileError> {
        let size = parse_size(text, SizeBase::Binary)
            .map_err(|why| loc.invalid("xfersize", text, why, fix))?;
        if size == Bytes::ZERO {
            return Err(loc.invalid("xfersize", text, "a transfer size of 0", fix));
        }
        Ok(size)
    };
    if p.values.len() == 1 {
        return Ok(XferSize::Fixed(size(&p.values[0])?));
    }
    if !p.values.len().is_multiple_of(2) {
        return Err(loc.invalid(
            "xfersize",
            &p.raw,
            "a distribution needs size,percent pairs",
            fix,
        ));
    }
    let mut parts = Vec::new();
    for pair in p.values.chunks(2) {
        let pct =
            parse_percent(&pair[1]).map_err(|why| loc.invalid("xfersize", &p.raw, why, fix))?;
        parts.push((size(&pair[0])?, pct));
    }
    let total: f64 = parts.iter().map(|(_, pct)| pct).sum();
    // Shares copied from a measured histogram often add up to 99.99 or 100.01: within 0.1
    // they are scaled to 100, further off they are refused.
    if (total - 100.0).abs() > 0.1 {
        return Err(loc.invalid(
            "xfersize",
            &p.raw,
            format!("the percentages add up to {total}, not 100"),
            fix,
        ));
    }
    for part in &mut parts {
        part.1 *= 100.0 / total;
    }
    Ok(XferSize::Distribution(parts))
}

/// `threads=25`, `forthreads=(1,2,4)`, `forthreads=(1-32,d)` (doubling), `(1-10,2)` (step).
/// The most threads one `threads=` (rd, sd or fwd) may ask for: fio's numjobs limit, and the
/// engine's and file system runs' limit of threads started at once.
pub const MAX_THREADS: u32 = 4096;

/// Refuses, while the file is read and before any thread exists, a thread count beyond
/// [`MAX_THREADS`] (`threads=100000` once panicked a minute into spawning).
pub(super) fn capped_threads(
    counts: Vec<u32>,
    p: &Param,
    loc: &Location,
) -> Result<Vec<u32>, JobFileError> {
    match counts.iter().find(|n| **n > MAX_THREADS) {
        Some(n) => Err(loc.invalid(
            &p.written,
            &p.raw,
            format!(
                "{n} threads is more than iofit starts (at most {MAX_THREADS}, as fio's numjobs)"
            ),
            format!("write threads={MAX_THREADS} or fewer"),
        )),
        None => Ok(counts),
    }
}

pub(super) fn expand_counts(p: &Param, loc: &Location) -> Result<Vec<u32>, JobFileError> {
    numbers(p, loc, |v| {
        parse_u32(v).map(f64::from).and_then(|n| {
            if n == 0.0 {
                Err(ValueError("0 is not a count; write 1 or more".into()))
            } else {
                Ok(n)
            }
        })
    })?
    .into_iter()
    .map(|n| {
        if n.fract() != 0.0 || n > f64::from(u32::MAX) {
            Err(loc.invalid(
                &p.written,
                &p.raw,
                format!("{n} is not a whole count"),
                "write whole numbers",
            ))
        } else {
            Ok(n as u32)
        }
    })
    .collect()
}

/// Depth of unclosed parentheses outside quotes.
pub(super) fn paren_depth(text: &str) -> i32 {
    let mut depth = 0;
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// Splits `sd=sd1,lun=/x,openflags=(o_direct)` into params; commas inside parentheses or quotes
/// stay in their value.
pub(super) fn split_params(line: &str, loc: &Location) -> Result<Vec<Param>, JobFileError> {
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            '(' if !quoted => {
                depth += 1;
                current.push(c);
            }
            ')' if !quoted => {
                depth -= 1;
                if depth < 0 {
                    return Err(loc.error(
                        None,
                        ErrorKind::Syntax("a ')' closes no '('; balance the parentheses".into()),
                    ));
                }
                current.push(c);
            }
            ',' if !quoted && depth == 0 => pieces.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if quoted {
        return Err(loc.error(
            None,
            ErrorKind::Syntax("a '\"' is not closed; close the quoted value".into()),
        ));
    }
    if depth != 0 {
        return Err(loc.error(
            None,
            ErrorKind::Syntax("a '(' is not closed; close the list with ')'".into()),
        ));
    }
    pieces.push(current);
    let mut params = Vec::new();
    for piece in pieces {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let Some((key, value)) = piece.split_once('=') else {
            return Err(loc.error(
                None,
                ErrorKind::Syntax(format!("'{piece}' is not keyword=value; vdbench parameters are written key=value separated by commas")),
            ));
        };
        let key = key.trim().to_ascii_lowercase();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(loc.error(
                None,
                ErrorKind::Syntax(format!("'{piece}' has no keyword before '='")),
            ));
        }
        let value = value.trim();
        let inner = value.strip_prefix('(').and_then(|v| v.strip_suffix(')'));
        let values: Vec<String> = match inner {
            Some(list) => split_list(list),
            None => vec![unquote(value)],
        };
        params.push(Param {
            written: key.clone(),
            key,
            raw: value.to_string(),
            values,
        });
    }
    if params.is_empty() {
        return Err(loc.error(None, ErrorKind::Syntax("an empty parameter line".into())));
    }
    Ok(params)
}

fn split_list(list: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in list.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    items
        .into_iter()
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
        .collect()
}

fn unquote(value: &str) -> String {
    value.trim().trim_matches('"').to_string()
}
