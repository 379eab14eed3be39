//! Units travel in types, not only in names: a public field whose name ends in a unit that
//! `iofit_model::units` has a type for (`_mb_s` MBps, `_mib_s` MiBps, `_iops` Iops, `_bytes`
//! Bytes, `_bytes_s` BytesPerSecond) but whose type is a bare number (`f64`, `u64`,
//! `Option<f64>` ...) is counted, per library crate. With the type, MB/s and MiB/s cannot be
//! added by mistake (EBS states volumes in MiB/s and instances in MB/s; Azure both in MB/s).
//!
//! `KNOWN` holds each crate's count today and may only shrink: a crate above its number fails
//! (use the unit's type for the new field), and a crate below it fails too (lower its number),
//! so the list stays the state of the code. Test modules and test files are not counted; the
//! binary crate and testkit are not library crates.

use iofit_testkit::{crates_dir, rust_files};
use std::collections::BTreeMap;
use std::path::Path;

/// Unit suffixes `iofit_model::units` has a type for.
const SUFFIXES: &[&str] = &["_mb_s", "_mib_s", "_iops", "_bytes", "_bytes_s"];
const BARE: &[&str] = &["f64", "f32", "u64", "u32", "usize", "i64"];
const NOT_LIBRARIES: &[&str] = &["iofit", "testkit"];

/// (crate, bare-typed unit fields) today. Lower a number when a crate's fields take their
/// unit's type; never raise one.
const KNOWN: &[(&str, usize)] = &[("emulate", 7), ("engine", 1), ("model", 1), ("verdict", 1)];

/// Time suffixes `iofit_model::units` has a type for: `Seconds`, `Millis`, `Micros`, `Nanos`
/// (and `UnixSeconds`/`UnixMillis` for instants). `_s` means seconds unless it ends a rate
/// (`_mb_s`, `_per_s` ...): a per-second count is named `_per_s` so that `_s` has one meaning.
const TIME_SUFFIXES: &[&str] = &["_seconds", "_secs", "_ms", "_us", "_ns", "_s"];
const RATE_ENDINGS: &[&str] = &["_mb_s", "_mib_s", "_kib_s", "_bytes_s", "_per_s"];

/// Which kind of unit a bare-typed field names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Bytes, IOPS, MB/s, MiB/s, bytes/s.
    Amount,
    /// Seconds, milliseconds, microseconds, nanoseconds.
    Time,
    /// KiB, GiB, TiB: a capacity as clouds state it.
    Capacity,
}

/// Capacity words `iofit_model::units` has a type for (`KiB`, `GiB`, `TiB`). A capacity's unit
/// may be followed by a qualifier (`size_gib_min`, `quota_tib_max`: units before qualifiers,
/// as TIGER_STYLE orders them), so the word counts anywhere in the name unless it starts a rate
/// (`_kib_s`).
const CAPACITY_WORDS: &[&str] = &["kib", "gib", "tib"];

/// (crate, bare-typed capacity fields) today, the same way.
const KNOWN_CAPACITY: &[(&str, usize)] = &[];

/// Whether a name holds a capacity word that is not the start of a rate.
fn names_a_capacity(name: &str) -> bool {
    let words: Vec<&str> = name.split('_').collect();
    words.iter().enumerate().any(|(at, word)| {
        CAPACITY_WORDS.contains(word) && words.get(at + 1).is_none_or(|next| *next != "s")
    })
}

/// A field line `pub size_gib: f64,` (or `Option<f64>`) naming a capacity with a bare type.
fn bare_capacity_field(line: &str) -> Option<&str> {
    bare_field(line).and_then(|(name, kind)| (kind == Kind::Capacity).then_some(name))
}

/// (crate, bare-typed time fields) today, the same way.
const KNOWN_TIME: &[(&str, usize)] = &[];

/// A field line `pub name_unit: f64,` (or `Option<u64>`) with a unit suffix and a bare type.
fn bare_unit_field(line: &str) -> Option<&str> {
    bare_field(line).and_then(|(name, kind)| (kind == Kind::Amount).then_some(name))
}

/// A field line `pub name_ms: f64,` (or `Option<u64>`) with a time suffix and a bare type.
fn bare_time_field(line: &str) -> Option<&str> {
    bare_field(line).and_then(|(name, kind)| (kind == Kind::Time).then_some(name))
}

fn bare_field(line: &str) -> Option<(&str, Kind)> {
    let rest = line.trim().strip_prefix("pub ")?;
    let (name, ty) = rest.split_once(':')?;
    let name = name.trim();
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    // `mb_s` alone names its unit as much as `throughput_mb_s` does.
    let underscored = format!("_{name}");
    let ends = |suffixes: &[&str]| suffixes.iter().any(|s| underscored.ends_with(s));
    // `x_per_y` is a ratio (MiB/s per 1,000 IOPS, IOPS per MiB/s), not an amount of the unit
    // its name ends in: no unit type fits it.
    let kind = if name.contains("_per_") {
        return None;
    } else if ends(SUFFIXES) {
        Kind::Amount
    } else if ends(TIME_SUFFIXES) && !ends(RATE_ENDINGS) {
        Kind::Time
    } else if names_a_capacity(name) {
        Kind::Capacity
    } else {
        return None;
    };
    let ty = ty.trim().trim_end_matches(',').trim();
    let inner = ty
        .strip_prefix("Option<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(ty);
    BARE.contains(&inner).then_some((name, kind))
}

/// The lines of a file outside its top-level `#[cfg(test)]` modules.
fn library_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let next = lines.get(i + 1).map(|l| l.trim_end()).unwrap_or("");
        if lines[i].trim_end() == "#[cfg(test)]" && next.starts_with("mod ") {
            if next.ends_with(';') {
                i += 2;
                continue;
            }
            i = lines[i + 1..]
                .iter()
                .position(|l| l.trim_end() == "}")
                .map_or(lines.len(), |at| i + 1 + at + 1);
            continue;
        }
        out.push(lines[i]);
        i += 1;
    }
    out
}

fn is_test_file(path: &Path) -> bool {
    path.file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s == "tests" || s.ends_with("_tests"))
}

/// Each library crate's bare-typed unit fields, with where they are.
fn found(scan: fn(&str) -> Option<&str>) -> BTreeMap<String, Vec<String>> {
    let root = crates_dir();
    let mut by_crate = BTreeMap::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if NOT_LIBRARIES.contains(&name.as_str()) {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&entry.path().join("src"), &mut files);
        let mut fields = Vec::new();
        for file in files.iter().filter(|f| !is_test_file(f)) {
            let text = std::fs::read_to_string(file).unwrap();
            for line in library_lines(&text) {
                if let Some(field) = scan(line) {
                    let at = file.strip_prefix(&root).unwrap().display();
                    fields.push(format!("{at}: {field}"));
                }
            }
        }
        if !fields.is_empty() {
            by_crate.insert(name, fields);
        }
    }
    by_crate
}

/// The crates above their KNOWN number (a new bare field) or below it (KNOWN is stale).
fn over_or_under(
    found: &BTreeMap<String, Vec<String>>,
    known: &[(&str, usize)],
    types: &str,
) -> Vec<String> {
    let known: BTreeMap<&str, usize> = known.iter().copied().collect();
    let mut problems = Vec::new();
    for (krate, fields) in found {
        let allowed = known.get(krate.as_str()).copied().unwrap_or(0);
        if fields.len() > allowed {
            problems.push(format!(
                "{krate}: {} public fields name a unit but hold a bare number (at most {allowed}); \
                 give the new one its type from iofit_model::units ({types}):\n  {}",
                fields.len(),
                fields.join("\n  ")
            ));
        }
    }
    for (krate, allowed) in &known {
        let now = found.get(*krate).map_or(0, Vec::len);
        if now < *allowed {
            problems.push(format!(
                "{krate}: {now} bare-typed unit fields, fewer than KNOWN's {allowed}: lower its number to {now}"
            ));
        }
    }
    problems
}

#[test]
fn unit_fields_take_their_units_type_and_the_count_only_shrinks() {
    let found = found(bare_unit_field);
    let problems = over_or_under(&found, KNOWN, "MBps, MiBps, Iops, Bytes, BytesPerSecond");
    let total: usize = found.values().map(Vec::len).sum();
    eprintln!("bare-typed unit fields in library crates: {total}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn time_fields_take_their_units_type_and_the_count_only_shrinks() {
    let found = found(bare_time_field);
    let problems = over_or_under(
        &found,
        KNOWN_TIME,
        "Seconds, Millis, Micros, Nanos, UnixSeconds, UnixMillis",
    );
    let total: usize = found.values().map(Vec::len).sum();
    eprintln!("bare-typed time fields in library crates: {total}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn capacity_fields_take_their_units_type_and_the_count_only_shrinks() {
    let found = found(bare_capacity_field);
    let problems = over_or_under(&found, KNOWN_CAPACITY, "KiB, GiB, TiB");
    let total: usize = found.values().map(Vec::len).sum();
    eprintln!("bare-typed capacity fields in library crates: {total}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scan_sees_bare_capacity_fields_and_not_rates_or_ratios() {
    assert_eq!(
        bare_capacity_field("    pub size_gib: f64,"),
        Some("size_gib")
    );
    assert_eq!(
        bare_capacity_field("    pub quota_tib_max: Option<f64>,"),
        Some("quota_tib_max")
    );
    assert_eq!(
        bare_capacity_field("    pub operation_unit_kib: Option<u64>,"),
        Some("operation_unit_kib")
    );
    assert_eq!(bare_capacity_field("    pub size_gib: GiB,"), None);
    assert_eq!(
        bare_capacity_field("    pub size_gib_min: Option<GiB>,"),
        None
    );
    assert_eq!(bare_capacity_field("    pub iops_per_gib: f64,"), None);
    assert_eq!(bare_capacity_field("    pub throughput_kib_s: f64,"), None);
    assert_eq!(bare_capacity_field("    pub gibberish: f64,"), None);
}

#[test]
fn the_scan_sees_bare_unit_fields_and_not_typed_ones() {
    assert_eq!(
        bare_unit_field("    pub throughput_mb_s: f64,"),
        Some("throughput_mb_s")
    );
    assert_eq!(
        bare_unit_field("pub burst_iops: Option<f64>,"),
        Some("burst_iops")
    );
    assert_eq!(bare_unit_field("    pub throughput_mb_s: MBps,"), None);
    assert_eq!(bare_unit_field("    pub io_size_bytes: Bytes,"), None);
    assert_eq!(bare_unit_field("    pub read_pct: f64,"), None);
    assert_eq!(
        bare_unit_field("    pub mib_s_per_1000_iops: Option<f64>,"),
        None
    );
    assert_eq!(
        bare_unit_field("    pub fn iops_mb_s(x: f64) -> f64 {"),
        None
    );
    let text =
        "pub a_iops: f64,\n#[cfg(test)]\nmod tests {\n    pub b_iops: f64,\n}\npub c_bytes: u64,\n";
    assert_eq!(bare_unit_field("    pub mb_s: Option<f64>,"), Some("mb_s"));
    assert_eq!(
        bare_time_field("    pub runtime_ns: u64,"),
        Some("runtime_ns")
    );
    assert_eq!(
        bare_time_field("    pub elapsed_s: f64,"),
        Some("elapsed_s")
    );
    assert_eq!(bare_time_field("    pub reads_per_s: f64,"), None);
    assert_eq!(bare_time_field("    pub throughput_mb_s: f64,"), None);
    assert_eq!(bare_time_field("    pub runtime: Seconds,"), None);
    assert_eq!(bare_time_field("    pub runtime_ns: Nanos<u64>,"), None);
    let counted: Vec<_> = library_lines(text)
        .into_iter()
        .filter_map(bare_unit_field)
        .collect();
    assert_eq!(counted, vec!["a_iops", "c_bytes"]);
}
