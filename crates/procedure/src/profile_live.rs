//! `iofit profile --live`: a snapshot of /proc every `interval_s` for `duration_s`. The stop
//! flag (the binary's Ctrl-C) ends the sampling early: what was sampled is kept when it spans
//! one interval at least, so a long capture is not lost to an impatient key.

use crate::ending::{Ending, Exit, Note};
use crate::profile_flags::seconds_flag;
use crate::ProcedureError;
use iofit_model::units::Seconds;
use iofit_profile::procfs::{LiveRecorder, Snapshot, LIVE_MAX_SAMPLES};
use iofit_profile::{Capture, CaptureNote};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// A capture, and whether the stop flag cut it short (in words).
#[derive(Clone, Debug)]
pub struct LiveCapture {
    pub capture: Capture,
    pub cut_short: Option<String>,
}

impl LiveCapture {
    /// A capture read whole from files (nothing cut it short).
    pub fn whole(capture: Capture) -> Self {
        LiveCapture {
            capture,
            cut_short: None,
        }
    }
}

/// `--live DURATION [--interval T] [--proc-root DIR]` as read: what to sample, how long, how
/// often (1 s unless given).
#[derive(Clone, Debug, PartialEq)]
pub struct LiveSampling {
    pub root: PathBuf,
    pub duration_s: Seconds,
    pub interval_s: Seconds,
}

impl LiveSampling {
    /// Reads the flags (each a duration above 0 and at most a week); [`check_sampling`] checks
    /// them together.
    pub fn from_flags(
        live: &str,
        interval: Option<&str>,
        proc_root: Option<&Path>,
    ) -> Result<Self> {
        let duration_s = seconds_flag(live, "--live")?;
        let interval_s = match interval {
            Some(text) => seconds_flag(text, "--interval")?,
            None => Seconds(1.0),
        };
        let root = proc_root.map_or_else(|| PathBuf::from("/proc"), Path::to_path_buf);
        Ok(LiveSampling {
            root,
            duration_s,
            interval_s,
        })
    }

    /// [`sample_live`] as these flags say.
    pub fn sample(
        &self,
        stop: &AtomicBool,
        countdown: &mut dyn FnMut(u64, u32),
    ) -> Result<Option<LiveCapture>> {
        sample_live(
            &self.root,
            self.duration_s.get(),
            self.interval_s.get(),
            stop,
            countdown,
        )
    }

    /// The line said before sampling starts.
    pub fn start_line(&self) -> String {
        format!(
            "sampling {} every {} s for {} s (Ctrl-C stops early and sizes what was sampled)",
            self.root.display(),
            self.interval_s.get(),
            self.duration_s.get()
        )
    }
}

/// How `profile` ends: 130 when the stop cut the sampling short (`cut_short`, in words; what
/// was sampled is sized), else 0.
pub fn profile_ending(cut_short: Option<&str>) -> Ending {
    match cut_short {
        Some(words) => Ending::with(
            Exit::Interrupted,
            Note::SamplingCutShort {
                words: words.to_string(),
            },
        ),
        None => Ending::quiet(Exit::Success),
    }
}

/// How `profile --live` ends when the stop came before two samples: 130, nothing sized.
pub fn nothing_sampled() -> Ending {
    Ending::with(Exit::Interrupted, Note::NothingSampled)
}

/// Refuses an interval longer than the duration, or more samples than a capture holds.
pub fn check_sampling(duration_s: f64, interval_s: f64) -> Result<()> {
    if interval_s > duration_s {
        return Err(bad(format!(
            "--interval {interval_s} s is longer than --live {duration_s} s; sample at least once"
        )));
    }
    let steps = (duration_s / interval_s).round().max(1.0);
    if steps > LIVE_MAX_SAMPLES {
        return Err(bad(format!(
            "--interval {interval_s} s over --live {duration_s} s is {steps} samples; at most \
             {LIVE_MAX_SAMPLES}: raise --interval"
        )));
    }
    Ok(())
}

/// Samples `root` (a /proc). `countdown(seconds_left, samples_taken)` is called as the
/// seconds left change. `None`: stopped before two samples, nothing to size.
pub fn sample_live(
    root: &Path,
    duration_s: f64,
    interval_s: f64,
    stop: &AtomicBool,
    countdown: &mut dyn FnMut(u64, u32),
) -> Result<Option<LiveCapture>> {
    check_sampling(duration_s, interval_s)?;
    let steps = (duration_s / interval_s).round().max(1.0);
    let start = std::time::Instant::now();
    let mut recorder = LiveRecorder::new(&format!("{} (live)", root.display()), interval_s);
    let mut taken = 0u32;
    let mut shown_s = u64::MAX;
    'sampling: for step in 0..=steps as u32 {
        let due_s = interval_s * f64::from(step);
        loop {
            if stop.load(Ordering::SeqCst) {
                break 'sampling;
            }
            let now_s = start.elapsed().as_secs_f64();
            let left_s = (duration_s - now_s).max(0.0).ceil() as u64;
            if left_s != shown_s {
                countdown(left_s, taken);
                shown_s = left_s;
            }
            if now_s >= due_s {
                break;
            }
            // Short naps: a stop is seen within 0.1 s, the countdown ticks every second.
            std::thread::sleep(std::time::Duration::from_secs_f64((due_s - now_s).min(0.1)));
        }
        let snapshot = Snapshot::read(root).map_err(|e| bad(e.to_string()))?;
        recorder.push(snapshot, start.elapsed().as_secs_f64());
        taken += 1;
    }
    let stopped = stop.load(Ordering::SeqCst);
    if stopped && taken < 2 {
        return Ok(None);
    }
    let cut_short = stopped.then(|| CaptureNote::CutShort {
        elapsed_s: Seconds(start.elapsed().as_secs_f64()),
        duration_s: Seconds(duration_s),
        samples: u64::from(taken),
    });
    let mut capture = recorder.finish();
    // The same words go into the requirements' source and the ending's note.
    let words = cut_short.as_ref().map(CaptureNote::to_string);
    capture.notes.extend(cut_short);
    let cut_short = words;
    Ok(Some(LiveCapture { capture, cut_short }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_flags_say_what_is_sampled() {
        let sampling = LiveSampling::from_flags("2m", Some("5"), None).unwrap();
        assert_eq!(sampling.root, PathBuf::from("/proc"));
        assert_eq!(
            (sampling.duration_s, sampling.interval_s),
            (Seconds(120.0), Seconds(5.0))
        );
        assert_eq!(
            sampling.start_line(),
            "sampling /proc every 5 s for 120 s (Ctrl-C stops early and sizes what was sampled)"
        );
        let own = LiveSampling::from_flags("10", None, Some(Path::new("/tmp/p"))).unwrap();
        assert_eq!(
            (own.root, own.interval_s),
            (PathBuf::from("/tmp/p"), Seconds(1.0))
        );
        let error = LiveSampling::from_flags("0", None, None).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().starts_with("--live '0'"));
    }

    #[test]
    fn a_capture_cut_short_ends_interrupted_and_says_so() {
        let ending = profile_ending(Some("stopped after 3 of 10 s"));
        assert_eq!(ending.exit, Exit::Interrupted);
        assert_eq!(
            ending.notes,
            vec![Note::SamplingCutShort {
                words: "stopped after 3 of 10 s".into()
            }]
        );
        assert_eq!(
            ending.notes[0].to_string(),
            "stopped after 3 of 10 s; the requirements cover what was sampled"
        );
        assert_eq!(profile_ending(None), Ending::quiet(Exit::Success));
    }

    /// A /proc of its own with disk `vdz` after `reads` reads.
    fn fake_proc(root: &Path, reads: u64) {
        std::fs::write(root.join("stat"), "cpu  100 0 100 800 0 0 0 0 0 0\n").unwrap();
        std::fs::write(
            root.join("meminfo"),
            "MemTotal: 1000 kB\nMemAvailable: 500 kB\n",
        )
        .unwrap();
        let line = format!(
            " 254       0 vdz {reads} 0 {} {} 0 0 0 0 0 {} {} 0 0 0 0 0 0\n",
            reads * 16,
            reads / 2,
            reads / 2,
            reads / 2
        );
        std::fs::write(root.join("diskstats"), line).unwrap();
    }

    #[test]
    fn a_short_live_capture_samples_every_interval_and_counts_down() {
        let dir = tempfile::tempdir().unwrap();
        fake_proc(dir.path(), 1000);
        let mut shown = Vec::new();
        let live = sample_live(
            dir.path(),
            0.2,
            0.1,
            &AtomicBool::new(false),
            &mut |left, n| shown.push((left, n)),
        )
        .unwrap()
        .unwrap();
        assert!(live.cut_short.is_none());
        // Three snapshots (0, 0.1, 0.2 s) make two intervals.
        assert_eq!(live.capture.reports(), 2);
        assert_eq!(shown.first(), Some(&(1, 0)));
        let whole = LiveCapture::whole(live.capture.clone());
        assert!(whole.cut_short.is_none() && whole.capture.reports() == 2);
    }

    #[test]
    fn a_stop_after_some_samples_keeps_them_and_notes_it() {
        let dir = tempfile::tempdir().unwrap();
        fake_proc(dir.path(), 1000);
        let stop = AtomicBool::new(false);
        // The countdown ticks once a second: the second tick (after about ten samples) stops.
        let live = sample_live(dir.path(), 2.0, 0.1, &stop, &mut |_, taken| {
            if taken >= 2 {
                stop.store(true, Ordering::SeqCst);
            }
        })
        .unwrap()
        .unwrap();
        let [CaptureNote::CutShort {
            elapsed_s,
            duration_s,
            samples,
        }] = live.capture.notes.as_slice()
        else {
            panic!("{:?}", live.capture.notes)
        };
        assert_eq!(*duration_s, Seconds(2.0));
        assert!(
            *samples >= 2 && elapsed_s.0 < 2.0,
            "{samples} {elapsed_s:?}"
        );
        assert_eq!(live.capture.reports() as u64, samples - 1);
        let words = live.cut_short.unwrap();
        assert_eq!(words, live.capture.notes[0].to_string());
        assert!(
            words.starts_with("cut short by a signal after ")
                && words.ends_with(&format!(" of 2 s, {samples} samples")),
            "{words}"
        );
    }

    #[test]
    fn a_stop_before_two_samples_leaves_nothing_to_size() {
        let dir = tempfile::tempdir().unwrap();
        fake_proc(dir.path(), 1000);
        let stopped = AtomicBool::new(true);
        let sampling = LiveSampling::from_flags("5", Some("1"), Some(dir.path())).unwrap();
        assert!(sampling.sample(&stopped, &mut |_, _| {}).unwrap().is_none());
        let ending = nothing_sampled();
        assert_eq!(ending.exit, Exit::Interrupted);
        assert_eq!(ending.notes, vec![Note::NothingSampled]);
        assert_eq!(
            ending.notes[0].to_string(),
            "stopped before two samples: nothing to size, no file written"
        );
    }

    #[test]
    fn sampling_flags_out_of_range_are_bad_input() {
        let error = check_sampling(1.0, 2.0).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--interval 2 s is longer than --live 1 s; sample at least once"
        );
        let error = check_sampling(1e9, 0.001).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().contains("raise --interval"));
        assert!(check_sampling(60.0, 1.0).is_ok());
    }
}
