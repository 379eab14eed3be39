//! The command line's overrides on a vdbench file ([`VdbenchOptions`]) and how they change each
//! run: `--elapsed`, `--warmup`, `--interval`, `--scale` and the SD size, bounded so a scaled run
//! still fits a `Duration`.

use crate::error::shown;
use crate::so_far::SoFar;
use crate::ProcedureError;
use iofit_jobfile::vdbench::{FsRun, Run};
use iofit_model::units::Bytes;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How a vdbench file runs: the command line's overrides.
#[derive(Clone, Debug)]
pub struct VdbenchOptions {
    /// Replaces every run's `elapsed=`.
    pub elapsed: Option<Duration>,
    /// Replaces every run's `warmup=`.
    pub warmup: Option<Duration>,
    /// Multiplies elapsed and warmup (after the overrides); 1.0 runs them as written.
    pub scale: f64,
    /// Replaces every SD's `size=` (the seed's 693g is not for a laptop).
    pub sd_size: Option<Bytes>,
    /// Where to write iofit's JSON of every run (after each one).
    pub json_output: Option<PathBuf>,
    /// `name=value` substitutions from the command line (`$name`/`!name` in the file).
    pub substitutions: Vec<String>,
    /// File system runs may use an anchor iofit did not create (`--allow-overwrite`).
    pub allow_overwrite: bool,
    /// Set on Ctrl-C: file system runs stop at once (raw runs stop through the executor).
    pub stop: Arc<AtomicBool>,
    /// Where to write vdbench's flatfile (tab-separated, vdbench's column names).
    pub flatfile: Option<PathBuf>,
    /// Replaces every run's `interval=` (vdbench's `-i`).
    pub interval: Option<Duration>,
    /// vdbench's `-v`: every run validates its data (validate=yes).
    pub validate: bool,
    /// vdbench's `-o DIR`: write summary.html, totals.html, flatfile.html... there after every
    /// run ([`crate::vdbench_output`]).
    pub output_dir: Option<PathBuf>,
    /// Where the results so far are kept renderable for a stop that cannot wait for the
    /// file's end ([`SoFar`]): the JSON document when `json_output` is set, else the running
    /// run's summary.
    pub so_far: Option<Arc<SoFar>>,
}

impl Default for VdbenchOptions {
    fn default() -> Self {
        VdbenchOptions {
            elapsed: None,
            warmup: None,
            scale: 1.0,
            sd_size: None,
            json_output: None,
            substitutions: Vec::new(),
            allow_overwrite: false,
            stop: Arc::new(AtomicBool::new(false)),
            flatfile: None,
            interval: None,
            validate: false,
            output_dir: None,
            so_far: None,
        }
    }
}

/// The command line's time overrides on a file system run.
pub(crate) fn adjust_fs(mut run: FsRun, options: &VdbenchOptions) -> Result<FsRun, ProcedureError> {
    if let Some(elapsed) = options.elapsed {
        run.elapsed = elapsed;
    }
    if let Some(warmup) = options.warmup {
        run.warmup = warmup;
    }
    run.elapsed = scaled(run.elapsed, options.scale, &run.rd, "elapsed")?;
    run.warmup = scaled(run.warmup, options.scale, &run.rd, "warmup")?;
    if run.elapsed.is_zero() {
        return Err(ProcedureError::bad_input(format!(
            "rd={}: elapsed is 0 after scaling; raise --scale or --elapsed",
            run.rd
        )));
    }
    Ok(run)
}

/// Applies the command line's overrides to a run.
pub fn adjust(mut run: Run, options: &VdbenchOptions) -> Result<Run, ProcedureError> {
    if let Some(elapsed) = options.elapsed {
        run.elapsed = elapsed;
    }
    if let Some(warmup) = options.warmup {
        run.warmup = warmup;
    }
    if let Some(interval) = options.interval.filter(|i| !i.is_zero()) {
        run.interval = interval;
    }
    if !(options.scale > 0.0 && options.scale <= MAX_SCALE) {
        return Err(ProcedureError::bad_input(format!(
            "--scale {}: write a number above 0 and at most {MAX_SCALE}",
            shown(options.scale)
        )));
    }
    run.elapsed = scaled(run.elapsed, options.scale, &run.rd, "elapsed")?;
    run.warmup = scaled(run.warmup, options.scale, &run.rd, "warmup")?;
    if run.elapsed.is_zero() {
        return Err(ProcedureError::bad_input(format!(
            "rd={}: elapsed is 0 after scaling; raise --scale or --elapsed",
            run.rd
        )));
    }
    if let Some(size) = options.sd_size {
        for w in &mut run.workloads {
            w.sd.size = Some(size);
        }
    }
    for w in &mut run.workloads {
        // range=/hitarea=/hotband= are shares of the lun: an existing file's size is known.
        if w.sd.size.is_none() {
            if let Ok(meta) = std::fs::metadata(&w.sd.lun) {
                if meta.is_file() && meta.len() > 0 {
                    w.sd.size = Some(Bytes(meta.len()));
                }
            }
        }
    }
    Ok(run)
}

/// The largest `--scale` a vdbench file takes (a year of 10-hour runs is far beyond any use).
pub const MAX_SCALE: f64 = 1e6;
/// The longest a run may last after scaling: about 31 years, far below `Duration`'s range.
const MAX_RUN_S: f64 = 1e9;

fn scaled(time: Duration, scale: f64, rd: &str, key: &str) -> Result<Duration, ProcedureError> {
    let seconds = time.as_secs_f64() * scale;
    if !(seconds.is_finite() && seconds <= MAX_RUN_S) {
        return Err(ProcedureError::bad_input(format!(
            "rd={rd}: {key} {seconds:e} s after --scale is beyond the {MAX_RUN_S:e} s a run may last; lower --scale or --{key}"
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_apply_and_scale() {
        let file = iofit_jobfile::vdbench::parse_str(
            "sd=sd1,lun=/tmp/x,size=693g\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=600,warmup=60\n",
            "t",
        )
        .unwrap();
        let run = file.runs().unwrap().remove(0);
        let common = VdbenchOptions {
            scale: 0.01,
            sd_size: Some(Bytes::mib(8)),
            ..Default::default()
        };
        let run = adjust(run, &common).unwrap();
        assert_eq!(run.elapsed, Duration::from_secs(6));
        assert_eq!(run.warmup, Duration::from_millis(600));
        assert_eq!(run.workloads[0].sd.size, Some(Bytes::mib(8)));
        // vdbench runs warmup= before elapsed=: a warmup longer than elapsed is allowed.
        let long_warmup = VdbenchOptions {
            warmup: Some(Duration::from_secs(700)),
            ..Default::default()
        };
        let run = adjust(file.runs().unwrap().remove(0), &long_warmup).unwrap();
        assert_eq!(run.interval_plan().runtime(), Duration::from_secs(1300));
        let bad = VdbenchOptions {
            scale: 0.0,
            ..Default::default()
        };
        assert!(adjust(file.runs().unwrap().remove(0), &bad).is_err());
    }
}
