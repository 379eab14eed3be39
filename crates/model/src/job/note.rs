//! What iofit does differently from what a job file asked, as data: one kind per note with the
//! option, values and figures behind it, so a caller (and a test) tells the notes apart without
//! reading words. `Display` is the sentence printed with the job (after `note: `); in JSON
//! each note is that sentence, and one read back from JSON (a multi-host worker's copy of the
//! job) is the `Recorded` kind.

use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::PathBuf;

/// One note on a job. Two notes are equal when they are of one kind and say the same
/// sentence; a `Recorded` note equals any note saying its sentence, so a job sent to a
/// multi-host worker and read back there equals the job that was sent.
#[derive(Clone, Debug)]
pub enum JobNote {
    /// An option iofit accepts and runs differently from fio, in the words the option table
    /// (or the option's reader) keeps for it: `option` is the option's fio name.
    Accepted {
        option: &'static str,
        how: &'static str,
    },
    /// `--ignore-unknown` let an unknown option through; `at` is where it was written
    /// (`file:line`, or the command line's argument).
    UnknownIgnored { at: String, option: String },
    /// An option's value names an environment variable (`variable`, as quoted in messages)
    /// that is not set: read as empty.
    UnsetEnv {
        file: String,
        line: usize,
        option: String,
        variable: String,
    },
    /// `option` (as written: iodepth_batch_complete_min, iodepth_low...): iofit reaps every
    /// completion at once and refills to iodepth.
    CompletionBatching { option: String },
    /// `openfiles=count`: every file stays open.
    OpenFiles { count: u64 },
    /// `ioscheduler=scheduler` is not switched to.
    IoScheduler { scheduler: String },
    /// `wait_for=job` runs as a stonewall.
    WaitFor { job: String },
    /// `mem=value`: iofit's own buffers.
    Mem { value: String },
    /// `verify=written` runs as `verify=runs_as`, the nearest checksum iofit has.
    VerifyRunsAs { written: String, runs_as: String },
    /// `option=value` without parentheses: read as its leading number, `bytes`.
    UnparenthesizedSize {
        option: String,
        value: String,
        bytes: Bytes,
    },
    /// `filesize=range`: one size drawn for all the job's files.
    FileSizeDrawn { range: String, drawn: Bytes },
    /// `--parse-only`: the largest block size is over the size per file (a run refuses it).
    SizeTooSmall { block: Bytes, per_file: Bytes },
    /// rw=trimwrite with a write size other than the trim size: the write size is not used.
    TrimWriteSize {
        mode: String,
        trim: Bytes,
        write: Bytes,
    },
    /// `startdelay` over `--runtime`: the job waits `runtime_s` instead.
    StartDelayBounded {
        delay_s: Seconds,
        runtime_s: Seconds,
    },
    /// `startdelay` kept: `--size` alone shortens the IO, not the wait.
    StartDelayKept { delay_s: Seconds },
    /// A trim job (`rw=mode`) on a regular file punches holes.
    TrimOnFile { mode: String },
    /// verify on a trim job (`rw=mode`): nothing to check.
    TrimNotVerified { mode: String },
    /// read_iolog: the IOs come from these logs.
    Replay { logs: Vec<PathBuf> },
    /// vdbench `hotband=(low,high)` runs as zones.
    Hotband { low_pct: f64, high_pct: f64 },
    /// vdbench `rhpct`/`whpct` differ: `hit_pct` of all IOs go to the hit area.
    HitArea {
        rhpct: f64,
        whpct: f64,
        hit_pct: f64,
    },
    /// vdbench `stride=` with `seekpct=seek_pct` under 100: every IO strided.
    StrideMixed { seek_pct: f64 },
    /// vdbench `streams=streams`: the region is too small for them.
    StreamsTooSmall { streams: u32 },
    /// vdbench `streams=` with `threads=` not a multiple of it: `per_stream` threads each.
    StreamThreads {
        streams: u32,
        threads: u32,
        per_stream: u32,
    },
    /// vdbench `validate=yes` on a random workload: its `threads` as one io_uring clone.
    ValidateOneClone { threads: u32 },
    /// vdbench `distribution=` other than deterministic (`distribution` as vdbench's
    /// arrivals' name): iofit spaces IOs evenly.
    Arrivals { distribution: String },
    /// A note read back from a job's JSON: its sentence only.
    Recorded(String),
}

impl fmt::Display for JobNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobNote::Accepted { how, .. } => f.write_str(how),
            JobNote::UnknownIgnored { at, option } => {
                write!(
                    f,
                    "{at}: unknown option '{option}' ignored (--ignore-unknown)"
                )
            }
            JobNote::UnsetEnv {
                file,
                line,
                option,
                variable,
            } => write!(
                f,
                "{file}:{line}: {option}: environment variable '{variable}' is not set; read as \
                 empty, as fio reads it (set it to give the value)"
            ),
            JobNote::CompletionBatching { option } => write!(
                f,
                "{option}: iofit reaps every completed IO at once (waiting for at least one) and \
                 refills the queue to iodepth as soon as a slot frees (fio's defaults)"
            ),
            JobNote::OpenFiles { count } => write!(
                f,
                "openfiles={count}: iofit keeps every file of a job open for the whole run (no \
                 open/close between IOs)"
            ),
            JobNote::IoScheduler { scheduler } => write!(
                f,
                "ioscheduler={scheduler}: iofit does not switch the device's IO scheduler (it \
                 would outlive the run); the run uses the scheduler the device has"
            ),
            JobNote::WaitFor { job } => write!(
                f,
                "wait_for={job}: iofit starts this job when every earlier job has finished (a \
                 stonewall), which waits for {job} and for any other job still running before it"
            ),
            JobNote::Mem { value } => write!(
                f,
                "mem={value}: iofit's IO buffers are one page-aligned allocation of its own, as \
                 fio's mem=malloc; where a buffer lives does not change what the storage sees"
            ),
            JobNote::VerifyRunsAs { written, runs_as } => write!(
                f,
                "verify={written} runs as verify={runs_as}: iofit writes its own block header \
                 (fio's and iofit's verified data do not read back in the other tool), so only \
                 the checksum's kind differs, and every bad block either sum catches is reported"
            ),
            JobNote::UnparenthesizedSize {
                option,
                value,
                bytes,
            } => write!(
                f,
                "{option}={value}: fio 3.33 reads this as {} bytes (it evaluates arithmetic only \
                 inside parentheses) and so does iofit; write {option}=({value}) for the product",
                bytes.as_u64()
            ),
            JobNote::FileSizeDrawn { range, drawn } => write!(
                f,
                "filesize={range}: iofit drew one size for all the job's files, {} bytes (fio \
                 draws one per file)",
                drawn.as_u64()
            ),
            JobNote::SizeTooSmall { block, per_file } => write!(
                f,
                "block size {block} is larger than the size per file {per_file}: fio \
                 --parse-only accepts this, a run refuses it (as fio does: 'size too small')"
            ),
            JobNote::TrimWriteSize { mode, trim, write } => write!(
                f,
                "bs: in rw={mode} each write has the length of the trim before it ({} bytes); \
                 the write size {} bytes is not used (fio's sequential trimwrite uses it)",
                trim.as_u64(),
                write.as_u64()
            ),
            JobNote::StartDelayBounded { .. }
            | JobNote::StartDelayKept { .. }
            | JobNote::TrimOnFile { .. }
            | JobNote::TrimNotVerified { .. }
            | JobNote::Replay { .. }
            | JobNote::Hotband { .. }
            | JobNote::HitArea { .. }
            | JobNote::StrideMixed { .. }
            | JobNote::StreamsTooSmall { .. }
            | JobNote::StreamThreads { .. }
            | JobNote::ValidateOneClone { .. }
            | JobNote::Arrivals { .. }
            | JobNote::Recorded(_) => self.fmt_more(f),
        }
    }
}

impl JobNote {
    /// The option an [`JobNote::Accepted`] note is about; `None` for the other kinds.
    pub fn accepted_option(&self) -> Option<&'static str> {
        match self {
            JobNote::Accepted { option, .. } => Some(option),
            _ => None,
        }
    }

    /// The sentences of the run-shaping, trim, replay and vdbench kinds.
    fn fmt_more(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobNote::StartDelayBounded { delay_s, runtime_s } => write!(
                f,
                "startdelay={}s is longer than --runtime: the job waits {}s instead (the \
                 --runtime given to shorten the file bounds its waits too)",
                delay_s.0, runtime_s.0
            ),
            JobNote::StartDelayKept { delay_s } => write!(
                f,
                "startdelay={}s is kept: --size shortens the IO, not the wait; add --runtime to \
                 bound the wait as well",
                delay_s.0
            ),
            JobNote::TrimOnFile { mode } => write!(
                f,
                "rw={mode} on a regular file: fio's psync, libaio and io_uring engines fail the \
                 first trim with error 25 (ENOTTY: they send BLKDISCARD, which only a block \
                 device takes); iofit punches a hole instead (fallocate PUNCH_HOLE, what fio's \
                 falloc engine does), so the job runs and the range reads back as zeros. On a \
                 block device both send BLKDISCARD"
            ),
            JobNote::TrimNotVerified { mode } => write!(
                f,
                "verify on rw={mode}: fio verifies only blocks the job wrote, and a trim job \
                 writes none, so nothing is checked (as in fio)"
            ),
            JobNote::Replay { logs } => {
                let logs: Vec<String> = logs.iter().map(|l| l.display().to_string()).collect();
                write!(
                    f,
                    "read_iolog: the IOs, their files and directions come from {} (read when \
                     the job runs), not from rw, bs, size or filename",
                    logs.join(", ")
                )
            }
            JobNote::Hotband { low_pct, high_pct } => write!(
                f,
                "hotband=({low_pct},{high_pct}): IOs spread over the band by vdbench's \
                 cache-access curve (HotBand.java) as zones"
            ),
            JobNote::HitArea {
                rhpct,
                whpct,
                hit_pct,
            } => write!(
                f,
                "rhpct={rhpct} whpct={whpct}: iofit sends {hit_pct:.1}% of all IOs (reads and \
                 writes alike) to the hit area"
            ),
            JobNote::StrideMixed { seek_pct } => write!(
                f,
                "stride= with seekpct={seek_pct}: vdbench mixes {seek_pct}% strided and \
                 sequential IOs; iofit strides every IO"
            ),
            JobNote::StreamsTooSmall { streams } => write!(
                f,
                "streams={streams}: the region is too small for {streams} streams"
            ),
            JobNote::StreamThreads {
                streams,
                threads,
                per_stream,
            } => write!(
                f,
                "streams={streams} with threads={threads}: vdbench needs threads a multiple of \
                 streams; each stream gets {per_stream}"
            ),
            JobNote::ValidateOneClone { threads } => write!(
                f,
                "validate=yes: the {threads} threads run as one io_uring clone with {threads} IOs \
                 in flight, so one key table sees every write (as vdbench keeps one per SD)"
            ),
            // vdbench's words for the arrivals, lower-cased whole as the note always was.
            JobNote::Arrivals { distribution } => f.write_str(
                &format!(
                    "distribution={distribution}: iofit spaces IOs evenly at the rate \
                     (deterministic arrivals), vdbench draws {distribution} arrival times; the \
                     mean rate is the same"
                )
                .to_ascii_lowercase(),
            ),
            JobNote::Recorded(sentence) => f.write_str(sentence),
            // The option kinds are written by `fmt`, which sends only the kinds above here.
            _ => Ok(()),
        }
    }
}

impl PartialEq for JobNote {
    fn eq(&self, other: &Self) -> bool {
        let recorded =
            matches!(self, JobNote::Recorded(_)) || matches!(other, JobNote::Recorded(_));
        (recorded || std::mem::discriminant(self) == std::mem::discriminant(other))
            && self.to_string() == other.to_string()
    }
}

impl Serialize for JobNote {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for JobNote {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(JobNote::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vdbench kinds' sentences, as the lowering wrote them before the notes were typed.
    #[test]
    fn vdbench_kinds_say_their_sentences() {
        let said = |note: JobNote| note.to_string();
        assert_eq!(
            said(JobNote::Hotband {
                low_pct: 10.0,
                high_pct: 20.5
            }),
            "hotband=(10,20.5): IOs spread over the band by vdbench's cache-access curve \
             (HotBand.java) as zones"
        );
        assert_eq!(
            said(JobNote::HitArea {
                rhpct: 10.0,
                whpct: 20.0,
                hit_pct: 15.04
            }),
            "rhpct=10 whpct=20: iofit sends 15.0% of all IOs (reads and writes alike) to the hit \
             area"
        );
        assert_eq!(
            said(JobNote::StrideMixed { seek_pct: 50.0 }),
            "stride= with seekpct=50: vdbench mixes 50% strided and sequential IOs; iofit strides \
             every IO"
        );
        assert_eq!(
            said(JobNote::StreamsTooSmall { streams: 3 }),
            "streams=3: the region is too small for 3 streams"
        );
        assert_eq!(
            said(JobNote::StreamThreads {
                streams: 3,
                threads: 4,
                per_stream: 1
            }),
            "streams=3 with threads=4: vdbench needs threads a multiple of streams; each stream \
             gets 1"
        );
        assert_eq!(
            said(JobNote::ValidateOneClone { threads: 8 }),
            "validate=yes: the 8 threads run as one io_uring clone with 8 IOs in flight, so one \
             key table sees every write (as vdbench keeps one per SD)"
        );
        assert_eq!(
            said(JobNote::Arrivals {
                distribution: "Exponential".into()
            }),
            "distribution=exponential: iofit spaces ios evenly at the rate (deterministic \
             arrivals), vdbench draws exponential arrival times; the mean rate is the same"
        );
    }

    #[test]
    fn figures_print_as_they_always_did() {
        assert_eq!(
            JobNote::SizeTooSmall {
                block: Bytes(16384),
                per_file: Bytes(10)
            }
            .to_string(),
            "block size 16KiB is larger than the size per file 10B: fio --parse-only accepts \
             this, a run refuses it (as fio does: 'size too small')"
        );
        assert_eq!(
            JobNote::StartDelayBounded {
                delay_s: Seconds(100.0),
                runtime_s: Seconds(2.5)
            }
            .to_string(),
            "startdelay=100s is longer than --runtime: the job waits 2.5s instead (the --runtime \
             given to shorten the file bounds its waits too)"
        );
        assert_eq!(
            JobNote::Replay {
                logs: vec![PathBuf::from("a.log"), PathBuf::from("/t/b.log")]
            }
            .to_string(),
            "read_iolog: the IOs, their files and directions come from a.log, /t/b.log (read when \
             the job runs), not from rw, bs, size or filename"
        );
    }

    /// The fio kinds' sentences, as `iofit run --parse-only` printed them before the notes were
    /// typed.
    #[test]
    fn fio_kinds_say_their_sentences() {
        let cases = [
            (
                JobNote::UnknownIgnored {
                    at: "d.fio:13".into(),
                    option: "bogus_option".into(),
                },
                "d.fio:13: unknown option 'bogus_option' ignored (--ignore-unknown)",
            ),
            (
                JobNote::UnsetEnv {
                    file: "a.fio".into(),
                    line: 33,
                    option: "write_bw_log".into(),
                    variable: "NEVER_SET".into(),
                },
                "a.fio:33: write_bw_log: environment variable 'NEVER_SET' is not set; read as \
                 empty, as fio reads it (set it to give the value)",
            ),
            (
                JobNote::CompletionBatching {
                    option: "iodepth_low".into(),
                },
                "iodepth_low: iofit reaps every completed IO at once (waiting for at least one) \
                 and refills the queue to iodepth as soon as a slot frees (fio's defaults)",
            ),
            (
                JobNote::UnparenthesizedSize {
                    option: "filesize".into(),
                    value: "10*1000".into(),
                    bytes: Bytes(10),
                },
                "filesize=10*1000: fio 3.33 reads this as 10 bytes (it evaluates arithmetic only \
                 inside parentheses) and so does iofit; write filesize=(10*1000) for the product",
            ),
            (
                JobNote::FileSizeDrawn {
                    range: "1m:2m".into(),
                    drawn: Bytes(1_634_304),
                },
                "filesize=1m:2m: iofit drew one size for all the job's files, 1634304 bytes (fio \
                 draws one per file)",
            ),
            (
                JobNote::TrimWriteSize {
                    mode: "trimwrite".into(),
                    trim: Bytes(4096),
                    write: Bytes(8192),
                },
                "bs: in rw=trimwrite each write has the length of the trim before it (4096 \
                 bytes); the write size 8192 bytes is not used (fio's sequential trimwrite uses it)",
            ),
            (
                JobNote::StartDelayKept {
                    delay_s: Seconds(100.0),
                },
                "startdelay=100s is kept: --size shortens the IO, not the wait; add --runtime to \
                 bound the wait as well",
            ),
            (
                JobNote::VerifyRunsAs {
                    written: "crc32".into(),
                    runs_as: "crc32c".into(),
                },
                "verify=crc32 runs as verify=crc32c: iofit writes its own block header (fio's and \
                 iofit's verified data do not read back in the other tool), so only the \
                 checksum's kind differs, and every bad block either sum catches is reported",
            ),
        ];
        for (note, sentence) in cases {
            assert_eq!(note.to_string(), sentence);
        }
    }

    /// In JSON a note is its sentence, and read back it is that sentence again.
    #[test]
    fn json_holds_the_sentence() {
        let note = JobNote::WaitFor { job: "a".into() };
        let json = serde_json::to_string(&note).unwrap();
        assert_eq!(json, serde_json::to_string(&note.to_string()).unwrap());
        let back: JobNote = serde_json::from_str(&json).unwrap();
        assert!(matches!(&back, JobNote::Recorded(sentence) if *sentence == note.to_string()));
        // Read back, it equals the note it was written from, and no other.
        assert_eq!(back, note);
        assert_ne!(back, JobNote::WaitFor { job: "b".into() });
        assert_ne!(
            JobNote::IoScheduler {
                scheduler: "a".into()
            },
            JobNote::Mem { value: "a".into() }
        );
        assert_eq!(back.to_string(), note.to_string());
        assert_eq!(back.accepted_option(), None);
    }
}
