//! fio's log files, as fio 3.33 writes them: the line formats live in
//! [`iofit_stats::fio_log`] (re-exported here), because the engine writes the logs while the
//! run goes, from each clone's intervals as they close (fio's averaged, histogram and per-IO
//! logs are streamed to disk, never held whole in memory). Files are `PREFIX_bw.N.log` (N the
//! clone's number in the run), or one `PREFIX_bw.log` for every clone with `per_job_logs=0`.

pub use iofit_stats::fio_log::{
    directions_of, render, render_sample, render_with, LogKind, LogStyle,
};

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::fio_bins;
    use iofit_stats::result::IntervalSample;

    const READS: [bool; 3] = [true, false, false];

    fn sample(
        start_ms: u64,
        read_ios: u64,
        write_ios: u64,
        latency_mean_ns: f64,
    ) -> IntervalSample {
        IntervalSample {
            clat_mean_ns: Default::default(),
            slat_mean_ns: Default::default(),
            latency_bins: vec![(1_000, read_ios + write_ios)],
            by_direction: None,
            start_ms: iofit_model::units::Millis(start_ms),
            interval_ms: iofit_model::units::Millis(250),
            read_ios,
            read_bytes: iofit_model::Bytes(read_ios * 4096),
            write_ios,
            write_bytes: iofit_model::Bytes(write_ios * 4096),
            trim_ios: 0,
            trim_bytes: iofit_model::Bytes(0),
            latency_mean_ns: iofit_model::units::Nanos(latency_mean_ns),
            latency_p99_ns: iofit_model::units::Nanos(0),
            ..Default::default()
        }
    }

    #[test]
    fn lines_are_fios_columns() {
        let series = [sample(0, 1000, 0, 81.4), sample(250, 0, 0, 0.0)];
        // 1000 IOs of 4 KiB in 250 ms: 16,000 KiB/s and 4,000 IOPS.
        assert_eq!(
            render(&series, LogKind::Bandwidth, READS),
            "250, 16000, 0, 0, 0\n500, 0, 0, 0, 0\n"
        );
        assert_eq!(
            render(&series, LogKind::Iops, READS),
            "250, 4000, 0, 0, 0\n500, 0, 0, 0, 0\n"
        );
        assert_eq!(
            render(&series, LogKind::Latency, READS),
            "250, 81, 0, 0, 0\n"
        );
        // log_offset=1 adds fio's offset column; log_unix_epoch moves every time.
        let style = LogStyle {
            with_offset: true,
            time_base_ms: iofit_model::units::Millis(1_795_000_000_000),
            block_size: 4096,
            with_prio: false,
            log_max: false,
        };
        assert_eq!(
            render_with(&series[..1], LogKind::Iops, READS, &style),
            "1795000000250, 4000, 0, 0, 0, 0\n"
        );
        // Histogram lines: time, direction, block size, then fio's 1856 bins; the window's
        // 1000 IOs at 1 µs sit in the bin of 1000 ns.
        let hist = render_with(&series[..1], LogKind::Histogram, READS, &style);
        let fields: Vec<u64> = hist
            .trim()
            .split(", ")
            .map(|f| f.parse().unwrap())
            .collect();
        assert_eq!(fields.len(), 3 + 1856);
        assert_eq!(&fields[..3], [1_795_000_000_250, 0, 4096]);
        assert_eq!(fields[3 + fio_bins::index_of(1_000) as usize], 1000);
        assert_eq!(fields[3..].iter().sum::<u64>(), 1000);
        let mixed = [sample(0, 10, 30, 5.0)];
        assert_eq!(
            render(&mixed, LogKind::Iops, [true, true, false]),
            "250, 40, 0, 0, 0\n250, 120, 1, 0, 0\n"
        );
    }
}
