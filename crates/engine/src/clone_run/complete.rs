//! Accounting a completion: latency recorded (and logged), errors that `continue_on_error`
//! lets pass, latency limits and minimum rates checked, pacing and the latency target's
//! search stepped.

use super::{MinRateWindow, Run};
use crate::clock::Clock;
use crate::clone_plan::ERROR_LINES;
use crate::engine::SlotMeta;
use crate::error::IoFailure;
use crate::latency_target::SearchStep;
use iofit_model::units::{Millis, Nanos};

impl<'a, C: Clock> Run<'a, C> {
    /// Counts a completion towards the next thinktime pause and the minimum-rate window.
    #[inline]
    fn pace_completion(&mut self, is_read: bool, len: u32, done_ns: u64) {
        let pacing = &self.plan.pacing;
        if pacing.think_ns.get() > 0 {
            self.completed_since_think += 1;
            if self.completed_since_think >= pacing.think_blocks.max(1) {
                self.completed_since_think = 0;
                self.think_until = done_ns + pacing.think_ns.get();
                self.spin_until = done_ns + pacing.think_spin_ns.min(pacing.think_ns).get();
            }
        }
        let d = usize::from(!is_read);
        self.min_rate.ios[d] += 1;
        self.min_rate.bytes[d] += len as u64;
    }

    /// The latency_target search at `now`, with `in_flight` IOs issued and not complete: a
    /// converged search, once those are in, restarts the statistics for its final window;
    /// after that window the job ends (with latency_run the search never converges).
    pub(crate) fn step_latency_search(&mut self, now: u64, in_flight: usize) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        let limit_before = search.issue_limit();
        let step = search.check(now, in_flight);
        if search.issue_limit() > limit_before {
            self.depth_opened_ns = now;
        }
        self.out.latency_depth = Some(search.depth);
        match step {
            SearchStep::Continue => {}
            SearchStep::RestartStats => {
                if self.measuring {
                    self.begin_measuring(now);
                }
            }
            SearchStep::Done => self.search_done = true,
        }
    }

    /// The most IOs the queue may hold now: iodepth, or the latency_target search's depth.
    #[inline]
    pub(crate) fn depth_limit(&self, depth: usize) -> usize {
        self.search
            .as_ref()
            .map_or(depth, |s| (s.issue_limit() as usize).min(depth))
    }

    /// fio's `rate_min`/`rate_iops_min`: at the end of each `rate_cycle` window (while
    /// measuring), a direction the job does IO in that fell below its minimum ends the clone.
    pub(crate) fn check_min_rate(&mut self, now: u64) -> Result<(), IoFailure> {
        let pacing = &self.plan.pacing;
        if !self.measuring || !pacing.checks_min_rate() {
            return Ok(());
        }
        let elapsed_ns = now.saturating_sub(self.min_rate.start_ns);
        if elapsed_ns < pacing.rate_cycle_ns.get() {
            return Ok(());
        }
        let seconds = elapsed_ns as f64 / 1e9;
        let reads = self.plan.rwmix_read_pct > 0.0;
        let writes = self.plan.rwmix_read_pct < 100.0;
        for (d, name, active) in [(0, "read", reads), (1, "write", writes)] {
            if !active {
                continue;
            }
            let bw = self.min_rate.bytes[d] as f64 / seconds;
            let iops = self.min_rate.ios[d] as f64 / seconds;
            if let Some(min) = pacing.min_bytes_per_second[d].filter(|&m| bw < m as f64) {
                return Err(IoFailure::BelowMinRate(format!(
                    "{name} bandwidth {bw:.0} B/s over the last {} ms is below rate_min {min} B/s",
                    elapsed_ns / 1_000_000
                )));
            }
            if let Some(min) = pacing.min_iops[d].filter(|&m| iops < m as f64) {
                return Err(IoFailure::BelowMinRate(format!(
                    "{name} IOPS {iops:.1} over the last {} ms are below rate_iops_min {min}",
                    elapsed_ns / 1_000_000
                )));
            }
        }
        self.min_rate = MinRateWindow {
            start_ns: now,
            ..MinRateWindow::default()
        };
        Ok(())
    }

    /// Accounts one completed IO: `Ok(true)` when it counts, `Ok(false)` when it failed in a
    /// way the job goes on after (fio's continue_on_error, fill_device). Returns an error for
    /// a failed or short IO that ends the clone.
    #[inline]
    pub(crate) fn complete(
        &mut self,
        meta: &SlotMeta,
        result: i64,
        done_ns: u64,
        inline: bool,
    ) -> Result<bool, IoFailure> {
        if result < 0 && self.plan.errors.continue_on != 0 && self.non_fatal(meta, result) {
            return Ok(false);
        }
        if self.plan.fill_device
            && !meta.op_is_read
            && !meta.trim
            && (result == -(libc::ENOSPC as i64) || (0..meta.len as i64).contains(&result))
        {
            // fio fill_device: the file system is full, which is the job's end, not a failure.
            // The write that found it full is not counted (fio neither).
            self.filled = true;
            return Ok(false);
        }
        if result != meta.len as i64 {
            let path = self.plan.files[meta.file as usize].0.clone();
            let what = match (meta.op_is_read, meta.trim) {
                (true, _) => "read",
                (false, true) => "trim",
                (false, false) => "write",
            };
            return Err(if result < 0 {
                IoFailure::Failed {
                    what,
                    len: meta.len,
                    offset: meta.offset,
                    path,
                    error: std::io::Error::from_raw_os_error(-result as i32),
                }
            } else {
                IoFailure::Short {
                    what,
                    done: result,
                    len: meta.len,
                    offset: meta.offset,
                    path,
                }
            });
        }
        self.completed += 1;
        self.completed_bytes += meta.len as u64;
        self.pace_completion(meta.op_is_read, meta.len, done_ns);
        if let Some(search) = self.search.as_mut() {
            // fio judges the target on total latency, and only while it is measured.
            let latency_ns = if self.plan.measure.lat {
                done_ns.saturating_sub(meta.issue_ns)
            } else {
                0
            };
            if search.record(meta.issue_ns, latency_ns) {
                return Err(IoFailure::MaxLatency {
                    latency_ns,
                    max_ns: search.target_ns(),
                    path: self.plan.files[meta.file as usize].0.clone(),
                    what: if meta.op_is_read { "read" } else { "write" },
                    offset: meta.offset,
                    len: meta.len,
                });
            }
        }
        self.longest_ns = self.longest_ns.max(done_ns.saturating_sub(meta.issue_ns));
        if self.measuring {
            self.record(meta, done_ns, inline);
        }
        if !meta.op_is_read && !meta.trim {
            self.writes_since_sync += 1;
        }
        self.check_max_latency(meta, done_ns).map(|()| true)
    }

    /// fio's td_non_fatal_error for a failed IO: when the job goes on after it, the error is
    /// counted (and a line kept, unless error_dump=0) and the IO is not.
    #[cold]
    fn non_fatal(&mut self, meta: &SlotMeta, result: i64) -> bool {
        let errno = (-result) as i32;
        let policy = &self.plan.errors;
        let error_type = iofit_model::job::ErrorPolicy::error_type(meta.op_is_read, errno);
        if !policy.non_fatal(error_type, errno) {
            return false;
        }
        self.out.total_err += 1;
        if self.out.first_error == 0 {
            self.out.first_error = errno;
        }
        if !policy.quiet && self.out.error_lines.len() < ERROR_LINES {
            let what = match (meta.op_is_read, meta.trim) {
                (true, _) => "read",
                (false, true) => "trim",
                (false, false) => "write",
            };
            // fio's "io_u error on file F: STRERROR: DDIR offset=N, buflen=N".
            let text = std::io::Error::from_raw_os_error(errno).to_string();
            let strerror = text.split(" (os error").next().unwrap_or(&text);
            self.out.error_lines.push(format!(
                "io_u error on file {}: {strerror}: {what} offset={}, buflen={}",
                self.plan.files[meta.file as usize].0.display(),
                meta.offset,
                meta.len
            ));
        }
        true
    }

    /// Adds a completed IO to the clone's counters and to the histograms the job measures
    /// (fio's `disable_*` leave theirs empty, as fio's JSON shows zeros for them).
    #[inline]
    fn record(&mut self, meta: &SlotMeta, done_ns: u64, inline: bool) {
        let measure = &self.plan.measure;
        let stats = if meta.op_is_read {
            &mut self.out.read
        } else if meta.trim {
            &mut self.out.trim
        } else {
            &mut self.out.write
        };
        stats.ios += 1;
        stats.io_bytes += iofit_model::Bytes(meta.len as u64);
        let total = done_ns.saturating_sub(meta.issue_ns);
        if inline {
            // Completion and total latency are the same sample for a synchronous IO: with
            // both measured, record it once; `finish` copies the histogram.
            if measure.clat {
                stats.completion.record(total);
            } else if measure.lat {
                stats.total.record(total);
            }
        } else {
            if measure.slat {
                stats
                    .submission
                    .record(meta.submit_ns.saturating_sub(meta.issue_ns));
            }
            if measure.clat {
                stats
                    .completion
                    .record(done_ns.saturating_sub(meta.submit_ns));
            }
            if measure.lat {
                stats.total.record(total);
            }
        }
        if self.plan.cmdprio.is_some() {
            // fio's per-priority latencies (its JSON `prios`).
            let completion = if inline {
                total
            } else {
                done_ns.saturating_sub(meta.submit_ns)
            };
            stats.record_prio(meta.ioprio, completion, total);
        }
        if let Some(log) = &self.plan.io_log {
            self.log_io(log, meta, done_ns, inline);
        }
        let ddir = meta.ddir();
        self.series.record(ddir, meta.len as u64, 1, total);
        if inline {
            self.series.record_parts(ddir, total, None);
        } else {
            self.series.record_parts(
                ddir,
                done_ns.saturating_sub(meta.submit_ns),
                Some(meta.submit_ns.saturating_sub(meta.issue_ns)),
            );
        }
    }

    /// fio's `max_latency`: a total latency above it fails the clone with ETIMEDOUT (checked
    /// only while total latency is measured, as fio checks it).
    #[inline]
    fn check_max_latency(&self, meta: &SlotMeta, done_ns: u64) -> Result<(), IoFailure> {
        let max_ns = self.plan.measure.max_latency_ns[usize::from(!meta.op_is_read)];
        let latency_ns = done_ns.saturating_sub(meta.issue_ns);
        match max_ns {
            Some(max_ns) if self.plan.measure.lat && latency_ns > max_ns => {
                Err(IoFailure::MaxLatency {
                    latency_ns,
                    max_ns,
                    path: self.plan.files[meta.file as usize].0.clone(),
                    what: if meta.op_is_read { "read" } else { "write" },
                    offset: meta.offset,
                    len: meta.len,
                })
            }
            _ => Ok(()),
        }
    }

    /// One line per per-IO log for a measured completion; a write error ends the job (its
    /// logs would be partial).
    #[cold]
    fn log_io(
        &mut self,
        log: &crate::iolog::IoLogPlan,
        meta: &SlotMeta,
        done_ns: u64,
        inline: bool,
    ) {
        if self.out.error.is_some() {
            return;
        }
        let base_ms = if log.unix_epoch {
            self.out.start_epoch_ms.get()
        } else {
            0
        };
        let total_ns = Nanos(done_ns.saturating_sub(meta.issue_ns));
        let record = crate::iolog::IoRecord {
            time_ms: Millis(base_ms + done_ns.saturating_sub(self.measure_start) / 1_000_000),
            is_read: meta.op_is_read,
            is_trim: meta.trim,
            len: meta.len,
            offset: meta.offset,
            total_ns,
            completion_ns: if inline {
                total_ns
            } else {
                Nanos(done_ns.saturating_sub(meta.submit_ns))
            },
            submission_ns: (!inline).then(|| Nanos(meta.submit_ns.saturating_sub(meta.issue_ns))),
            ioprio: meta.ioprio,
        };
        if let Err(e) = log.record(&record) {
            self.out.error = Some(e.to_string());
        }
    }
}
