//! Keys of the output formats iofit writes, where they coincide with a fio option's name:
//! fio's JSON (`"iodepth"` in a job's `"job options"` and in iofit's extra block, `"runtime"`
//! of a direction, in ms) and the CSV's metric column. They are the formats' words, fixed by
//! fio's output and by the CSV readers people have, not names looked up in the job-option
//! registry; each is written once here.

/// fio JSON: the queue depth, in `"job options"` (as text) and in `"iofit"` (a number).
pub const FIO_IODEPTH: &str = "iodepth";
/// fio JSON: a direction's runtime in milliseconds.
pub const FIO_RUNTIME: &str = "runtime";
/// CSV: the metric of a direction's runtime in seconds.
pub const CSV_RUNTIME: &str = "runtime";
