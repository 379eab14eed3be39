//! vdbench's data parameters (general lines before hd=/sd=): `validate=yes`,
//! `data_errors=N`, `compratio=R`, `dedupratio=D`, `dedupunit=SIZE`, `dedupsets=N|N%`, read
//! from the [`DataParam`]s the parser keeps, into the `DataSpec` every job of the file gets.
//! Kept apart from the parser so that it changes in one small place.

use super::DataParam;
use crate::error::{ErrorKind, JobFileError, Location};
use crate::values::{parse_percent, parse_size};
use iofit_model::data::{DataSpec, DedupSets, DedupeSpec, VerifyMode, VerifySpec};
use iofit_model::units::SizeBase;

/// The general parameters this module runs (others, and per-wd/rd ones, are refused).
const KEYS: &[&str] = &[
    "validate",
    "data_errors",
    "compratio",
    "dedupratio",
    "dedupunit",
    "dedupsets",
];

/// Whether iofit runs this parameter.
pub(super) fn runs(param: &DataParam) -> bool {
    KEYS.contains(&param.key.as_str())
}

impl DataParam {
    /// Whether a run honours this parameter (`validate`, `compratio`...) or refuses it
    /// (`journal`, `pattern`...).
    pub fn runs(&self) -> bool {
        runs(self)
    }
}

fn bad(loc: &Location, key: &str, why: &str, fix: &str) -> JobFileError {
    loc.error(Some(key), ErrorKind::Other(format!("{key}= {why}; {fix}")))
}

fn value(p: &DataParam) -> String {
    p.value
        .trim()
        .trim_matches(|c| c == '(' || c == ')')
        .trim()
        .to_string()
}

fn ratio(p: &DataParam) -> Result<f64, JobFileError> {
    let text = value(p);
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && (1.0..=1000.0).contains(&r) => Ok(r),
        _ => Err(bad(
            &p.loc,
            &p.key,
            &format!("'{text}' is not a ratio of 1 or more"),
            "write a number such as 2 or 3.5",
        )),
    }
}

/// What the file said, settled by [`Keys::spec`].
#[derive(Default)]
struct Keys {
    validate: bool,
    data_errors: Option<u64>,
    compratio: Option<f64>,
    dedupratio: Option<f64>,
    dedupunit: Option<u64>,
    dedupsets: Option<DedupSets>,
}

/// The data settings of the file's jobs. `strict`: bad values are errors (the check before a
/// run); otherwise they are skipped (listing runs).
pub(super) fn spec(params: &[DataParam], strict: bool) -> Result<DataSpec, JobFileError> {
    let mut keys = Keys::default();
    for p in params.iter().filter(|p| runs(p)) {
        match keys.read(p) {
            Ok(()) => {}
            Err(e) if strict => return Err(e),
            Err(_) => {}
        }
    }
    Ok(keys.spec())
}

impl Keys {
    fn read(&mut self, p: &DataParam) -> Result<(), JobFileError> {
        let loc = &p.loc;
        let v = value(p);
        match p.key.as_str() {
            "validate" => {
                self.validate = match v.to_ascii_lowercase().as_str() {
                    "yes" | "y" | "read_after_write" => true,
                    "no" | "n" => false,
                    _ => {
                        return Err(bad(
                            loc,
                            "validate",
                            &format!("'{v}' is not supported"),
                            "write validate=yes or validate=no",
                        ))
                    }
                };
            }
            "data_errors" => {
                let n: u64 = v.parse().map_err(|_| {
                    bad(
                        loc,
                        "data_errors",
                        &format!("'{v}' is not a count"),
                        "write the number of data errors to stop after, e.g. data_errors=1",
                    )
                })?;
                self.data_errors = Some(n.max(1));
            }
            "compratio" => self.compratio = Some(ratio(p)?),
            "dedupratio" => self.dedupratio = Some(ratio(p)?),
            "dedupunit" => {
                let bytes = parse_size(&v, SizeBase::Binary)
                    .ok()
                    .map(|b| b.as_u64())
                    .filter(|&b| b >= 512 && b % 512 == 0)
                    .ok_or_else(|| {
                        bad(
                            loc,
                            "dedupunit",
                            &format!("'{v}' is not a size in 512-byte sectors"),
                            "write a size such as 4k or 128k",
                        )
                    })?;
                self.dedupunit = Some(bytes);
            }
            "dedupsets" => {
                let fix = "write a count (dedupsets=100) or a percentage of the dedup units (dedupsets=5%)";
                self.dedupsets = Some(if v.ends_with('%') {
                    let pct = parse_percent(&v)
                        .map_err(|why| bad(loc, "dedupsets", &why.to_string(), fix))?;
                    if !(0.0..=100.0).contains(&pct) || pct == 0.0 {
                        return Err(bad(
                            loc,
                            "dedupsets",
                            "must be above 0% and at most 100%",
                            fix,
                        ));
                    }
                    DedupSets::Pct(pct)
                } else {
                    let n: u64 = v.parse().map_err(|_| {
                        bad(loc, "dedupsets", &format!("'{v}' is not a count"), fix)
                    })?;
                    DedupSets::Count(n.max(1))
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// The data settings every job of the file gets.
    fn spec(&self) -> DataSpec {
        let mut spec = DataSpec::default();
        if self.validate {
            // vdbench validates as it goes: every read of a block written earlier in the run
            // is checked against the key (generation) remembered for it.
            spec.verify = VerifySpec {
                mode: VerifyMode::Crc32c,
                check_reads: true,
                do_verify: false,
                // vdbench's default: stop after 50 data errors.
                max_errors: Some(self.data_errors.unwrap_or(50)),
                ..VerifySpec::default()
            };
        }
        if let Some(r) = self.compratio {
            spec.content.compress_pct = 100.0 * (1.0 - 1.0 / r);
        }
        if let Some(ratio) = self.dedupratio.filter(|&r| r > 1.0) {
            spec.content.dedupe = Some(DedupeSpec::Vdbench {
                ratio,
                // vdbench's defaults.
                unit_bytes: self.dedupunit.unwrap_or(128 * 1024),
                sets: self.dedupsets.unwrap_or(DedupSets::Pct(5.0)),
            });
        }
        spec
    }
}

/// The smallest transfer size of a job: its validation key unit.
pub(super) fn min_block(spec: &iofit_model::job::BlockSizeSpec) -> u64 {
    use iofit_model::job::BlockSizeSpec;
    match spec {
        BlockSizeSpec::Fixed(s) => s.read.min(s.write).as_u64(),
        BlockSizeSpec::Split { read, write } => read
            .iter()
            .chain(write)
            .map(|s| s.size.as_u64())
            .min()
            .unwrap_or(4096),
    }
}

#[cfg(test)]
mod tests {
    use crate::vdbench::parse_str;
    use iofit_model::data::{DedupSets, DedupeSpec, VerifyMode};

    const SD_WD_RD: &str = "sd=sd1,lun=/tmp/x,size=1m\nwd=wd1,sd=sd1,xfersize=4k,rdpct=50,seekpct=100\nrd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1\n";

    #[test]
    fn data_keys_reach_every_job() {
        let text = format!("validate=yes\ndata_errors=3\ncompratio=4\ndedupratio=2\ndedupunit=8k\ndedupsets=10%\n{SD_WD_RD}");
        let file = parse_str(&text, "t.vdb").expect("parses");
        let runs = file.runs().expect("runs");
        let job = &runs[0].to_jobs(None)[0];
        let v = &job.data.verify;
        assert_eq!(v.mode, VerifyMode::Crc32c);
        assert!(v.check_reads && !v.do_verify);
        assert_eq!(v.max_errors, Some(3));
        assert_eq!(v.interval_bytes, Some(iofit_model::Bytes(4096)));
        assert_eq!(job.data.content.compress_pct, 75.0);
        assert_eq!(
            job.data.content.dedupe,
            Some(DedupeSpec::Vdbench {
                ratio: 2.0,
                unit_bytes: 8192,
                sets: DedupSets::Pct(10.0)
            })
        );
        // Without them nothing changes.
        let plain = parse_str(SD_WD_RD, "t.vdb").unwrap().runs().unwrap()[0].to_jobs(None);
        assert!(plain[0].data.is_default());
    }

    #[test]
    fn bad_data_keys_name_line_and_key() {
        for (line, key) in [
            ("validate=maybe", "validate"),
            ("data_errors=lots", "data_errors"),
            ("compratio=0.5", "compratio"),
            ("dedupratio=x", "dedupratio"),
            ("dedupunit=100", "dedupunit"),
            ("dedupsets=0%", "dedupsets"),
        ] {
            let file = parse_str(&format!("{line}\n{SD_WD_RD}"), "t.vdb").unwrap();
            let e = file.check_runnable().unwrap_err();
            assert_eq!(e.key.as_deref(), Some(key), "{e}");
            assert_eq!(e.line, 1, "{e}");
        }
    }
}
