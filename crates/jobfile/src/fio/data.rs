//! fio's data options: `verify=` and its family, and what write buffers hold
//! (`buffer_compress_percentage`, `dedupe_percentage`, patterns, ...). Kept apart from
//! `apply.rs` so the data keys are one place; each function is named by the table in
//! `fio_options.rs`.

use super::apply::{Arg, Ctx, DedupeKeys};
use crate::error::JobFileError;
use crate::values::{parse_percent, parse_u64};
use iofit_model::data::{DedupeSpec, PatternPart, VerifyMode};
use iofit_model::job::JobNote;
use iofit_model::job::JobSpec;
use iofit_model::units::Bytes;
use std::path::PathBuf;

type R = Result<(), JobFileError>;

pub(crate) fn verify(c: &mut Ctx, arg: &Arg) -> R {
    let value = arg.value()?.to_ascii_lowercase();
    // fio's other checksums run as the nearest one iofit has: iofit's blocks carry its own
    // header (neither tool reads the other's), so the kind of sum changes only how it is
    // computed; the note says which runs.
    let nearest = match value.as_str() {
        "crc32" | "crc16" | "crc7" | "crc64" => Some(("crc32c", VerifyMode::Crc32c)),
        "sha224" | "sha3-224" | "sha3-256" => Some(("sha256", VerifyMode::Sha256)),
        "sha384" | "sha3-384" | "sha3-512" => Some(("sha512", VerifyMode::Sha512)),
        _ => None,
    };
    if let Some((name, mode)) = nearest {
        c.job.data.verify.mode = mode;
        c.note(JobNote::VerifyRunsAs {
            written: value.to_string(),
            runs_as: name.to_string(),
        });
        return Ok(());
    }
    c.job.data.verify.mode = VerifyMode::from_fio_name(&value).ok_or_else(|| {
        arg.invalid(
            "not a verify mode",
            &format!("write one of {}", VerifyMode::FIO_NAMES),
        )
    })?;
    Ok(())
}
pub(crate) fn do_verify(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.do_verify = arg.flag()?;
    Ok(())
}
pub(crate) fn verify_only(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.only = arg.flag()?;
    Ok(())
}
pub(crate) fn verify_fatal(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.max_errors = arg.flag()?.then_some(1);
    Ok(())
}
pub(crate) fn verify_dump(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.dump = arg.flag()?;
    Ok(())
}
pub(crate) fn verify_header_seed(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.header_seed = arg.flag()?;
    Ok(())
}
/// fio keeps state files in the working directory (`NAME-CLONE-verify.state` here).
pub(crate) fn verify_state_save(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.state_save = arg.flag()?.then(|| PathBuf::from("."));
    Ok(())
}
pub(crate) fn verify_state_load(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.state_load = arg.flag()?.then(|| PathBuf::from("."));
    Ok(())
}
pub(crate) fn verify_interval(c: &mut Ctx, arg: &Arg) -> R {
    let bytes = arg.size(c.base)?;
    c.job.data.verify.interval_bytes = (bytes > Bytes::ZERO).then_some(bytes);
    Ok(())
}
pub(crate) fn verify_offset(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.header_offset_bytes = arg.size(c.base)?;
    Ok(())
}
fn count(arg: &Arg) -> Result<u64, JobFileError> {
    parse_u64(arg.value()?).map_err(|why| arg.invalid(why, "write a whole number"))
}
/// A count fio reads as FIO_OPT_STR_VAL: a number with an optional size suffix (`1m` is
/// 1,048,576 with fio's default kb_base=1024).
fn count_with_suffix(c: &Ctx, arg: &Arg) -> Result<u64, JobFileError> {
    count(arg).or_else(|e| arg.size(c.base).map(|b| b.as_u64()).map_err(|_| e))
}
pub(crate) fn verify_backlog(c: &mut Ctx, arg: &Arg) -> R {
    let n = count_with_suffix(c, arg)?;
    c.job.data.verify.backlog = (n > 0).then_some(n);
    Ok(())
}
pub(crate) fn verify_backlog_batch(c: &mut Ctx, arg: &Arg) -> R {
    let n = count_with_suffix(c, arg)?;
    c.job.data.verify.backlog_batch = (n > 0).then_some(n);
    Ok(())
}
pub(crate) fn verify_pattern(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.verify.pattern = parse_pattern(arg, true)?;
    Ok(())
}

fn percent(arg: &Arg) -> Result<f64, JobFileError> {
    let fix = "write a percentage 0..100";
    let pct = parse_percent(arg.value()?).map_err(|why| arg.invalid(why, fix))?;
    if !(0.0..=100.0).contains(&pct) {
        return Err(arg.invalid("out of range", fix));
    }
    Ok(pct)
}
pub(crate) fn buffer_compress_percentage(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.content.compress_pct = percent(arg)?;
    Ok(())
}
pub(crate) fn buffer_compress_chunk(c: &mut Ctx, arg: &Arg) -> R {
    let bytes = arg.size(c.base)?;
    c.job.data.content.compress_chunk_bytes = if bytes == Bytes::ZERO {
        Bytes(512)
    } else {
        bytes
    };
    Ok(())
}
pub(crate) fn refill_buffers(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.content.refill = arg.flag()?;
    Ok(())
}
pub(crate) fn scramble_buffers(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.content.scramble = arg.flag()?;
    Ok(())
}
pub(crate) fn zero_buffers(c: &mut Ctx, arg: &Arg) -> R {
    c.job.data.content.zero = arg.flag()?;
    Ok(())
}
pub(crate) fn buffer_pattern(c: &mut Ctx, arg: &Arg) -> R {
    let parts = parse_pattern(arg, false)?;
    c.job.data.content.pattern = parts
        .into_iter()
        .flat_map(|p| match p {
            PatternPart::Bytes(b) => b,
            PatternPart::Offset => Vec::new(),
        })
        .collect();
    Ok(())
}
pub(crate) fn dedupe_percentage(c: &mut Ctx, arg: &Arg) -> R {
    c.b.dedupe.pct = Some(percent(arg)?);
    Ok(())
}
pub(crate) fn dedupe_mode(c: &mut Ctx, arg: &Arg) -> R {
    c.b.dedupe.working_set_mode = match arg.value()? {
        "repeat" => false,
        "working_set" => true,
        _ => return Err(arg.invalid("not a dedupe mode", "write repeat or working_set")),
    };
    Ok(())
}
/// fio `dedupe_global`: duplicates drawn from contents shared by every job that sets it.
pub(crate) fn dedupe_global(c: &mut Ctx, arg: &Arg) -> R {
    c.b.dedupe.global = arg.flag()?;
    Ok(())
}
pub(crate) fn dedupe_working_set_percentage(c: &mut Ctx, arg: &Arg) -> R {
    c.b.dedupe.working_set_pct = Some(percent(arg)?);
    Ok(())
}

/// Settles the keys that fio reads together, once the section is read.
pub(crate) fn finish(job: &mut JobSpec, keys: &DedupeKeys) {
    if let Some(pct) = keys.pct.filter(|&p| p > 0.0) {
        job.data.content.dedupe = Some(DedupeSpec::Fio {
            pct,
            // fio's default working set is 5% of the file.
            working_set_pct: keys
                .working_set_mode
                .then(|| keys.working_set_pct.unwrap_or(5.0)),
            global: keys.global,
        });
    }
    let verify = &mut job.data.verify;
    // fio: a pattern with no verify mode verifies the pattern.
    if !verify.pattern.is_empty() && !verify.mode.is_on() {
        verify.mode = VerifyMode::Pattern;
    }
    if verify.mode.is_on() && job.engine == iofit_model::job::EngineKind::Null {
        job.notes.push(JobNote::Accepted { option: "verify", how: "verify with ioengine=null: as in fio, the verify reads are issued and counted but no data moves, so nothing is checked" });
    }
    if verify.mode.is_on() && !job.rw.has_writes() && verify.state_load.is_none() && !verify.only {
        job.notes.push(JobNote::Accepted { option: "verify", how: "verify on a job that only reads: as fio, each block read is checked against its own header (a block iofit never wrote has none and is reported bad); iofit's header is its own, so the data must have been written by iofit with the same verify mode" });
    }
}

/// fio's largest pattern (MAX_PATTERN_SIZE, stat.h).
const MAX_PATTERN_BYTES: usize = 512;

/// fio's pattern syntax (`parse_and_fill_pattern`, lib/pattern.c): hex (`0xdeadbeef`, bytes as
/// written), `"strings"`, `'FILE'` (the file's bytes), decimal numbers in the int range (as
/// their little-endian bytes, as many as the value needs: 66 is 0x42, -12 is f4 ff ff ff), and
/// `%o` (the block's offset) where `offsets` allows it, one after another, at most 512 bytes.
pub(crate) fn parse_pattern(arg: &Arg, offsets: bool) -> Result<Vec<PatternPart>, JobFileError> {
    let text = arg.value()?;
    let fix = "write hex (0xdeadbeef), a quoted string (\"abc\"), a file ('name'), a decimal number (-12, 66) or %o, one after another";
    let mut parts = Vec::new();
    let mut rest = text.trim();
    let mut total = 0;
    while !rest.is_empty() {
        let (part, after) = if let Some(after) = rest.strip_prefix("%o") {
            if !offsets {
                return Err(arg.invalid("%o is only for verify_pattern", fix));
            }
            total += 8;
            parts.push(PatternPart::Offset);
            rest = after;
            continue;
        } else if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            pattern_hex(hex).ok_or_else(|| arg.invalid("0x without hex digits", fix))?
        } else if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted
                .find('"')
                .ok_or_else(|| arg.invalid("a string without its closing quote", fix))?;
            (quoted.as_bytes()[..end].to_vec(), &quoted[end + 1..])
        } else if let Some(quoted) = rest.strip_prefix('\'') {
            let end = quoted
                .find('\'')
                .ok_or_else(|| arg.invalid("a file name without its closing quote", fix))?;
            let path = &quoted[..end];
            let mut bytes = std::fs::read(path).map_err(|e| {
                arg.invalid(format!("cannot read the pattern file {path}: {e}"), fix)
            })?;
            bytes.truncate(MAX_PATTERN_BYTES - total.min(MAX_PATTERN_BYTES));
            (bytes, &quoted[end + 1..])
        } else if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') {
            pattern_decimal(rest).ok_or_else(|| {
                arg.invalid(
                    format!("cannot read a number in the int range at {rest:?}"),
                    fix,
                )
            })?
        } else if let Some(after) = rest.strip_prefix([' ', ',']) {
            rest = after;
            continue;
        } else {
            return Err(arg.invalid(format!("cannot read {rest:?}"), fix));
        };
        total += part.len();
        if total > MAX_PATTERN_BYTES {
            return Err(arg.invalid(
                format!("the pattern is longer than fio's {MAX_PATTERN_BYTES} bytes"),
                fix,
            ));
        }
        parts.push(PatternPart::Bytes(part));
        rest = after;
    }
    if parts.is_empty() {
        return Err(arg.invalid("an empty pattern", fix));
    }
    Ok(parts)
}

/// The bytes of the hex digits at the start of `hex` (after `0x`), and what follows. As fio:
/// an odd count reads as if a 0 led, and in `0xff0x14` the `0` before the next `x` belongs to
/// the next number.
fn pattern_hex(hex: &str) -> Option<(Vec<u8>, &str)> {
    let mut end = hex
        .find(|c: char| !c.is_ascii_hexdigit())
        .unwrap_or(hex.len());
    if end > 1 && hex[end..].starts_with(['x', 'X']) && hex[..end].ends_with('0') {
        end -= 1;
    }
    let digits = &hex[..end];
    if digits.is_empty() {
        return None;
    }
    let padded = if digits.len() % 2 == 1 {
        format!("0{digits}")
    } else {
        digits.to_string()
    };
    let bytes = (0..padded.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&padded[i..i + 2], 16).expect("hex digits"))
        .collect();
    Some((bytes, &hex[end..]))
}

/// A decimal number at the start of `text` (fio reads up to the next `0x`, so `-120xff` is -12
/// then 0xff), as the little-endian bytes of its 32-bit value up to the last non-zero one.
fn pattern_decimal(text: &str) -> Option<(Vec<u8>, &str)> {
    let limit = text.to_ascii_lowercase().find("0x").unwrap_or(text.len());
    let head = &text[..limit];
    let sign_len = usize::from(head.starts_with(['-', '+']));
    let digits_end = head[sign_len..]
        .find(|c: char| !c.is_ascii_digit())
        .map_or(head.len(), |i| i + sign_len);
    let value: i64 = head[..digits_end].parse().ok()?;
    if value < i64::from(i32::MIN) || value > i64::from(i32::MAX) {
        return None;
    }
    let mut bits = value as i32 as u32;
    let mut bytes = Vec::new();
    if bits == 0 {
        bytes.push(0);
    }
    while bits != 0 {
        bytes.push((bits & 0xff) as u8);
        bits >>= 8;
    }
    Some((bytes, &text[digits_end..]))
}

#[cfg(test)]
mod tests {
    use crate::fio::parse_str;
    use crate::ParseOptions;
    use iofit_model::data::{DedupeSpec, PatternPart, VerifyMode};
    use iofit_model::units::Bytes;

    fn job(body: &str) -> iofit_model::job::JobSpec {
        let text = format!("[a]\nsize=1m\ndirectory=/tmp\n{body}");
        let jobs = parse_str(&text, "t.fio", &ParseOptions::default()).expect("parses");
        jobs.into_iter().next().expect("one job")
    }

    #[test]
    fn verify_family_lands_in_the_job() {
        let j = job("rw=randwrite\nbs=8k\nverify=crc32c-intel\nverify_interval=4k\nverify_offset=512\nverify_fatal=1\nverify_dump=1\nverify_backlog=16\nverify_backlog_batch=8\nverify_header_seed=0\ndo_verify=0\nverify_state_save=1\n");
        let v = &j.data.verify;
        assert_eq!(v.mode, VerifyMode::Crc32c);
        assert_eq!(v.interval_bytes, Some(Bytes(4096)));
        assert_eq!(v.header_offset_bytes, Bytes(512));
        assert_eq!(v.max_errors, Some(1));
        assert!(v.dump && !v.header_seed && !v.do_verify);
        assert_eq!((v.backlog, v.backlog_batch), (Some(16), Some(8)));
        assert!(v.state_save.is_some() && v.state_load.is_none());
        for name in ["md5", "sha1", "sha256", "sha512", "xxhash", "meta", "null"] {
            assert!(job(&format!("rw=write\nverify={name}\n"))
                .data
                .verify
                .mode
                .is_on());
        }
        // A pattern alone verifies the pattern, %o places the offset.
        let j = job("rw=write\nverify_pattern=0xdead\"ab\"%o7\n");
        assert_eq!(j.data.verify.mode, VerifyMode::Pattern);
        assert_eq!(
            j.data.verify.pattern,
            vec![
                PatternPart::Bytes(vec![0xde, 0xad]),
                PatternPart::Bytes(b"ab".to_vec()),
                PatternPart::Offset,
                PatternPart::Bytes(vec![7])
            ]
        );
        // A read-only job says what it checks.
        assert!(job("rw=read\nverify=md5\n")
            .notes
            .iter()
            .any(|n| n.accepted_option() == Some("verify")
                && n.to_string().contains("checked against its own header")));
    }

    #[test]
    fn content_keys_land_in_the_job() {
        let j = job("rw=write\nbuffer_compress_percentage=60\nbuffer_compress_chunk=4k\nrefill_buffers=1\nscramble_buffers=0\ndedupe_working_set_percentage=10\ndedupe_percentage=30\ndedupe_mode=working_set\n");
        let c = &j.data.content;
        assert_eq!(
            (c.compress_pct, c.compress_chunk_bytes),
            (60.0, Bytes(4096))
        );
        assert!(c.refill && !c.scramble);
        assert_eq!(
            c.dedupe,
            Some(DedupeSpec::Fio {
                pct: 30.0,
                working_set_pct: Some(10.0),
                global: false,
            })
        );
        assert_eq!(
            job("rw=write\nbuffer_pattern=0x0102\n")
                .data
                .content
                .pattern,
            vec![1, 2]
        );
        assert!(job("rw=write\nzero_buffers\n").data.content.zero);
        // fio's t/jobs t0009: a count with a size suffix.
        assert_eq!(
            job("rw=write\nverify=crc32c\nverify_backlog=1m\n")
                .data
                .verify
                .backlog,
            Some(1 << 20)
        );
    }

    /// fio's own examples (lib/pattern.c) and t/jobs/t0028's mixed pattern.
    #[test]
    fn patterns_read_as_fio_reads_them() {
        let pattern = |p: &str| {
            job(&format!("rw=write\nbuffer_pattern={p}\n"))
                .data
                .content
                .pattern
        };
        assert_eq!(pattern("\"abcd\""), b"abcd".to_vec());
        assert_eq!(pattern("-1024"), vec![0x00, 0xfc, 0xff, 0xff]);
        assert_eq!(pattern("66"), vec![0x42]);
        assert_eq!(pattern("0"), vec![0x00]);
        assert_eq!(pattern("0xFF0X1"), vec![0xff, 0x01]);
        assert_eq!(
            pattern("\"123\"0xFFeeCC"),
            vec![0x31, 0x32, 0x33, 0xff, 0xee, 0xcc]
        );
        assert_eq!(
            pattern("\"abcd\"-120xdeadface"),
            vec![0x61, 0x62, 0x63, 0x64, 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce]
        );
        assert_eq!(pattern("0xff0x14"), vec![0xff, 0x14]);
        assert_eq!(pattern("300"), vec![0x2c, 0x01]);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.bin");
        std::fs::write(&file, [9u8, 8, 7]).unwrap();
        assert_eq!(
            pattern(&format!("0x01'{}'\"z\"", file.display())),
            vec![1, 9, 8, 7, b'z']
        );
        let v = job("rw=write\nverify=pattern\nverify_pattern=-120xab\"1\"%o\"2\"\n")
            .data
            .verify;
        assert_eq!(
            v.pattern,
            vec![
                PatternPart::Bytes(vec![0xf4, 0xff, 0xff, 0xff]),
                PatternPart::Bytes(vec![0xab]),
                PatternPart::Bytes(b"1".to_vec()),
                PatternPart::Offset,
                PatternPart::Bytes(b"2".to_vec()),
            ]
        );
    }

    #[test]
    fn bad_values_name_the_key_and_a_fix() {
        for (body, key) in [
            ("verify=md6\n", "verify"),
            ("verify_pattern=0xzz\n", "verify_pattern"),
            ("verify_pattern=\"abc\n", "verify_pattern"),
            ("buffer_pattern=%o\n", "buffer_pattern"),
            ("buffer_pattern=3000000000\n", "buffer_pattern"),
            ("buffer_pattern='/nonexistent/p'\n", "buffer_pattern"),
            (
                "buffer_compress_percentage=120\n",
                "buffer_compress_percentage",
            ),
            ("dedupe_mode=sometimes\n", "dedupe_mode"),
            ("verify_backlog=-1\n", "verify_backlog"),
        ] {
            let text = format!("[a]\nsize=1m\ndirectory=/tmp\n{body}");
            let e = parse_str(&text, "t.fio", &ParseOptions::default()).unwrap_err();
            assert_eq!(e.key.as_deref(), Some(key), "{e}");
            assert_eq!(e.line, 4, "{e}");
            assert!(e.to_string().contains("t.fio:4"), "{e}");
        }
    }
}
