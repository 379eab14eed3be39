//! The keys of fio's JSON output the reader looks up where they coincide with a fio option's
//! name: fio writes each job's options back under `"job options"` with the option's name as
//! the key, and a direction's runtime (ms) as `"runtime"`. They are keys of fio's output
//! format, fixed by fio, not names looked up in iofit's job-option registry (`verdict` reads
//! any fio's output and does not depend on the job-file parser); each is written once here.

/// `"job options"`: the queue depth, as text.
pub const IODEPTH: &str = "iodepth";
/// `"job options"`: how many clones of the job ran, as text.
pub const NUMJOBS: &str = "numjobs";
/// A direction's runtime in milliseconds.
pub const RUNTIME: &str = "runtime";
