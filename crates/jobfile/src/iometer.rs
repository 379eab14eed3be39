//! Iometer access specifications: the seed's six built-in presets and user-defined ones from a
//! small TOML file, lowered to [`JobSpec`]s the way Iometer runs them.
//!
//! An Iometer access specification is a request size, a share of random IOs and a share of
//! reads. A worker is one thread that keeps `iodepth` IOs outstanding ("# of outstanding I/Os")
//! against the test file `iobw.tst` on the target volume, with unbuffered IO.
//!
//! The user file (see `examples/iometer/specs.toml`):
//!
//! ```toml
//! [[spec]]
//! name = "OLTP_8K_70R"      # what --preset names
//! request_size = "8k"       # a size, k = 1024 as Iometer counts (8 KB = 8192 bytes)
//! random_pct = 100          # % random (the rest sequential)
//! read_pct = 70             # % reads (the rest writes)
//! ```

use crate::error::{nearest, ErrorKind, JobFileError};
use crate::values::parse_size;
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::{Bytes, SizeBase};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::time::Duration;

/// The test file Iometer creates on a target volume (the seed: "iobw.tst", 200 GB).
pub const TEST_FILE_NAME: &str = "iobw.tst";

/// One access specification.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessSpec {
    pub name: String,
    pub request_size: Bytes,
    /// % of IOs at random offsets, 0..=100.
    pub random_pct: f64,
    /// % of IOs that read, 0..=100.
    pub read_pct: f64,
    /// Where the spec comes from (the seed's section, or the user's file).
    pub source: String,
}

const SEED_SOURCE: &str =
    "seed 000 (Azure Premium Storage performance guide, 2016-2018), Iometer access specifications";

/// The seed's six access specifications (its tables for max IOPS, max throughput and cache
/// warm-up). Iometer's "8 KB" and "1 MB" are 8,192 and 1,048,576 bytes.
pub fn builtin() -> Vec<AccessSpec> {
    let spec = |name: &str, size: Bytes, read_pct: f64| AccessSpec {
        name: name.to_string(),
        request_size: size,
        random_pct: 100.0,
        read_pct,
        source: SEED_SOURCE.to_string(),
    };
    vec![
        spec("RandomWrites_8K", Bytes::kib(8), 0.0),
        spec("RandomReads_8K", Bytes::kib(8), 100.0),
        spec("RandomWrites_64K", Bytes::kib(64), 0.0),
        spec("RandomReads_64K", Bytes::kib(64), 100.0),
        spec("RandomWrites_1MB", Bytes::mib(1), 0.0),
        spec("RandomReads_1MB", Bytes::mib(1), 100.0),
    ]
}

/// A built-in preset by name (exact, else ignoring case).
pub fn preset(name: &str) -> Option<AccessSpec> {
    find_in(name, &builtin())
}

fn find_in(name: &str, specs: &[AccessSpec]) -> Option<AccessSpec> {
    specs
        .iter()
        .find(|s| s.name == name)
        .or_else(|| specs.iter().find(|s| s.name.eq_ignore_ascii_case(name)))
        .cloned()
}

/// Finds `name` among the user's specs (which win) and the built-ins; the error lists what exists
/// and suggests the nearest name.
pub fn find(name: &str, user_specs: &[AccessSpec]) -> Result<AccessSpec, JobFileError> {
    if let Some(spec) = find_in(name, user_specs).or_else(|| preset(name)) {
        return Ok(spec);
    }
    let all: Vec<String> = user_specs
        .iter()
        .chain(builtin().iter())
        .map(|s| s.name.clone())
        .collect();
    let hint = match nearest(name, all.iter().map(String::as_str)) {
        Some(near) => format!("did you mean '{near}'? "),
        None => String::new(),
    };
    Err(JobFileError::new(
        "--preset",
        0,
        Some("preset"),
        ErrorKind::Other(format!(
            "unknown Iometer access specification '{name}'; {hint}known: {}; define your own in a specs file (see examples/iometer/specs.toml)",
            all.join(", ")
        )),
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecFile {
    #[serde(default)]
    spec: Vec<SpecEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SpecEntry {
    name: String,
    request_size: toml::Value,
    random_pct: f64,
    read_pct: f64,
}

/// Reads user-defined access specifications from a TOML file.
pub fn load_specs(path: &Path) -> Result<Vec<AccessSpec>, JobFileError> {
    let source_name = path.display().to_string();
    let text = crate::fio::read_text(path, &source_name)?;
    parse_specs(&text, &source_name)
}

/// Parses user-defined access specifications; `source_name` names the text in errors.
pub fn parse_specs(text: &str, source_name: &str) -> Result<Vec<AccessSpec>, JobFileError> {
    let file: SpecFile = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|span| text[..span.start.min(text.len())].lines().count().max(1))
            .unwrap_or(0);
        let message = e.message().replace('\n', " ");
        JobFileError::new(
            source_name,
            line,
            None,
            ErrorKind::Other(format!(
                "{message}; each [[spec]] needs name, request_size, random_pct and read_pct"
            )),
        )
    })?;
    if file.spec.is_empty() {
        return Err(JobFileError::new(
            source_name,
            0,
            None,
            ErrorKind::Other("no [[spec]] entries; see examples/iometer/specs.toml".into()),
        ));
    }
    let line_of = |name: &str| {
        text.lines()
            .position(|l| l.contains(&format!("\"{name}\"")))
            .map(|i| i + 1)
            .unwrap_or(0)
    };
    let mut specs: Vec<AccessSpec> = Vec::new();
    for entry in file.spec {
        let line = line_of(&entry.name);
        let invalid = |key: &str, value: String, why: &str, fix: &str| {
            JobFileError::new(
                source_name,
                line,
                Some(key),
                ErrorKind::InvalidValue {
                    key: key.to_string(),
                    value,
                    why: why.to_string(),
                    fix: fix.to_string(),
                },
            )
        };
        if entry.name.trim().is_empty() || entry.name.contains(char::is_whitespace) {
            return Err(invalid(
                "name",
                entry.name.clone(),
                "a spec name must be one word",
                "use letters, digits and _ such as OLTP_8K",
            ));
        }
        if specs.iter().any(|s| s.name == entry.name) {
            return Err(invalid(
                "name",
                entry.name.clone(),
                "the name is used twice",
                "give each spec its own name",
            ));
        }
        let size_text = match &entry.request_size {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(n) => n.to_string(),
            other => other.to_string(),
        };
        let request_size = parse_size(&size_text, SizeBase::Binary).map_err(|why| {
            invalid(
                "request_size",
                size_text.clone(),
                &why.0,
                "write a size such as \"8k\" or \"1m\"",
            )
        })?;
        if request_size == Bytes::ZERO {
            return Err(invalid(
                "request_size",
                size_text,
                "a request size of 0",
                "write a size such as \"8k\"",
            ));
        }
        for (key, value) in [
            ("random_pct", entry.random_pct),
            ("read_pct", entry.read_pct),
        ] {
            if !(0.0..=100.0).contains(&value) {
                return Err(invalid(
                    key,
                    value.to_string(),
                    "outside 0..100",
                    "write a percentage between 0 and 100",
                ));
            }
        }
        specs.push(AccessSpec {
            name: entry.name,
            request_size,
            random_pct: entry.random_pct,
            read_pct: entry.read_pct,
            source: source_name.to_string(),
        });
    }
    Ok(specs)
}

/// The jobs that run `spec` as Iometer would: `workers` threads, each with `iodepth` IOs
/// outstanding, unbuffered, against `target_dir/iobw.tst` of `size`, for `runtime`.
/// Returns one job whose clones are the workers, reported as one group.
pub fn preset_to_jobs(
    spec: &AccessSpec,
    target_dir: &Path,
    workers: u32,
    iodepth: u32,
    runtime: Duration,
    size: Bytes,
) -> Vec<JobSpec> {
    let rw = RwMode::from_mix(spec.read_pct, spec.random_pct > 0.0);
    let mut job = JobSpec::new(
        spec.name.clone(),
        Target::Files(vec![target_dir.join(TEST_FILE_NAME)]),
    )
    .with_rw(rw);
    job.rwmix_read_pct = spec.read_pct;
    job.random_pct = spec.random_pct;
    job.block_size = BlockSizeSpec::fixed(spec.request_size);
    job.engine = EngineKind::IoUring;
    job.iodepth = iodepth.max(1);
    job.direct = true;
    job.numjobs = workers.max(1);
    job.group_reporting = true;
    job.size = Some(SizeSpec::Bytes(size));
    job.runtime = Some(runtime);
    job.time_based = true;
    vec![job]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_presets() {
        let specs = builtin();
        assert_eq!(specs.len(), 6);
        let p = preset("RandomWrites_8K").unwrap();
        assert_eq!(
            (p.request_size, p.random_pct, p.read_pct),
            (Bytes(8192), 100.0, 0.0)
        );
        let p = preset("randomreads_1mb").unwrap();
        assert_eq!(
            (p.request_size, p.random_pct, p.read_pct),
            (Bytes(1 << 20), 100.0, 100.0)
        );
        let p = preset("RandomReads_64K").unwrap();
        assert_eq!(p.request_size, Bytes(65536));
        assert!(preset("RandomReads_4K").is_none());
        let error = find("RandomRead_8K", &[]).unwrap_err();
        assert!(
            error.to_string().contains("did you mean 'RandomReads_8K'"),
            "{error}"
        );
    }

    #[test]
    fn preset_lowers_to_workers_with_queue_depth() {
        let spec = preset("RandomReads_8K").unwrap();
        let jobs = preset_to_jobs(
            &spec,
            Path::new("/mnt/readcache"),
            3,
            128,
            Duration::from_secs(60),
            Bytes::gib(200),
        );
        assert_eq!(jobs.len(), 1);
        let job = &jobs[0];
        assert_eq!(job.rw, RwMode::RandRead);
        assert_eq!(job.numjobs, 3);
        assert_eq!(job.effective_iodepth(), 128);
        assert!(job.direct && job.time_based && job.group_reporting);
        assert_eq!(
            job.target,
            Target::Files(vec!["/mnt/readcache/iobw.tst".into()])
        );
        assert_eq!(job.workload().read_pct, 100.0);
        assert_eq!(job.workload().threads, 3);
    }

    #[test]
    fn user_specs_from_the_example_file() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/iometer/specs.toml");
        let specs = load_specs(&path).unwrap();
        let oltp = find("OLTP_8K_70R", &specs).unwrap();
        assert_eq!(oltp.read_pct, 70.0);
        assert_eq!(oltp.request_size, Bytes(8192));
        let jobs = preset_to_jobs(
            &oltp,
            Path::new("/tmp"),
            1,
            8,
            Duration::from_secs(1),
            Bytes::mib(8),
        );
        assert_eq!(jobs[0].rw, RwMode::RandRw);
        assert_eq!(jobs[0].rwmix_read_pct, 70.0);
        let seq = find("DW_Scan_256K", &specs).unwrap();
        let jobs = preset_to_jobs(
            &seq,
            Path::new("/tmp"),
            1,
            8,
            Duration::from_secs(1),
            Bytes::mib(8),
        );
        assert_eq!(jobs[0].rw, RwMode::Read);
    }

    #[test]
    fn bad_spec_files() {
        let e = parse_specs(
            "[[spec]]\nname = \"A\"\nrequest_size = \"8q\"\nrandom_pct = 1\nread_pct = 1\n",
            "s.toml",
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("request_size"));
        assert_eq!(e.line, 2);
        let e = parse_specs(
            "[[spec]]\nname = \"A\"\nrequest_size = \"8k\"\nrandom_pct = 101\nread_pct = 1\n",
            "s.toml",
        )
        .unwrap_err();
        assert_eq!(e.key.as_deref(), Some("random_pct"));
        let e = parse_specs(
            "[[spec]]\nname = \"A\"\nrequest_size = \"8k\"\nrandom_pct = 1\nread_pct = 1\nqd = 4\n",
            "s.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("qd"), "{e}");
        assert!(e.line >= 1);
        assert!(parse_specs("", "s.toml").is_err());
    }
}
