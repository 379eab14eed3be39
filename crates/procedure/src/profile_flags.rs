//! `iofit profile`'s sizing flags read into [`SizingOptions`]: the volumes (`--device` with its
//! `--label`, `--volume LABEL=DEV,DEV`), the sizing window and interval, and the percentile,
//! comfort and growth factors. Every mistake is bad input naming the flag and what to write.

use crate::ProcedureError;
use iofit_model::units::Seconds;
use iofit_profile::{SizingOptions, VolumeSpec};

fn bad(message: String) -> ProcedureError {
    ProcedureError::BadInput(message)
}

/// The sizing flags as given on the command line.
#[derive(Clone, Debug, Default)]
pub struct SizingFlags<'a> {
    /// `--device NAME`, each a volume of its own.
    pub devices: &'a [String],
    /// `--label NAME`, the label of the `--device` of the same position.
    pub labels: &'a [String],
    /// `--volume LABEL=DEV,DEV`: a volume over several devices.
    pub volumes: &'a [String],
    /// `--interval`: the capture's sampling interval (ignored with `--live`, which reads it
    /// itself).
    pub interval: Option<&'a str>,
    /// `--window`: the sizing window.
    pub window: Option<&'a str>,
    /// `--live` was given.
    pub live: bool,
    pub percentile: f64,
    pub comfort: f64,
    pub growth: f64,
    pub latency_target: bool,
}

pub fn sizing_options(args: &SizingFlags) -> Result<SizingOptions, ProcedureError> {
    if args.labels.len() > args.devices.len() {
        return Err(bad(format!(
            "{} --label but only {} --device; give one --device NAME before each --label",
            args.labels.len(),
            args.devices.len()
        )));
    }
    let mut volumes: Vec<VolumeSpec> = args
        .devices
        .iter()
        .enumerate()
        .map(|(i, device)| VolumeSpec {
            label: args
                .labels
                .get(i)
                .cloned()
                .unwrap_or_else(|| device.clone()),
            devices: vec![device.clone()],
        })
        .collect();
    for text in args.volumes {
        let Some((label, devices)) = text.split_once('=') else {
            return Err(bad(format!(
                "--volume '{text}' is not LABEL=DEV,DEV; write e.g. --volume data=sdb,sdc"
            )));
        };
        let devices: Vec<String> = devices
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_string)
            .collect();
        if label.trim().is_empty() || devices.is_empty() {
            return Err(bad(format!(
                "--volume '{text}' needs a label and at least one device; write e.g. --volume data=sdb,sdc"
            )));
        }
        volumes.push(VolumeSpec {
            label: label.trim().to_string(),
            devices,
        });
    }
    let mut labels: Vec<&str> = volumes.iter().map(|v| v.label.as_str()).collect();
    labels.sort_unstable();
    if let Some(pair) = labels.windows(2).find(|w| w[0] == w[1]) {
        return Err(bad(format!(
            "the label '{}' is given twice; give each volume its own --label",
            pair[0]
        )));
    }
    let interval_s = match args.interval {
        Some(text) if !args.live => Some(seconds_flag(text, "--interval")?),
        _ => None,
    };
    let window_s = match args.window {
        Some(text) => Some(seconds_flag(text, "--window")?),
        None => None,
    };
    Ok(SizingOptions {
        volumes,
        window_s,
        interval_s,
        percentile: args.percentile,
        comfort: args.comfort,
        growth: args.growth,
        latency_target: args.latency_target,
    })
}

/// A duration flag in seconds, above 0 and at most a week.
pub fn seconds_flag(text: &str, flag: &str) -> Result<Seconds, ProcedureError> {
    const MAX_S: f64 = 7.0 * 86_400.0;
    let seconds = crate::run_request::duration_flag(flag, text)?.as_secs_f64();
    if seconds > 0.0 && seconds <= MAX_S {
        Ok(Seconds(seconds))
    } else {
        Err(bad(format!(
            "{flag} '{text}': write a duration above 0 and at most 7 days (604800 s)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn durations() {
        let ok = |text, flag| seconds_flag(text, flag).unwrap().get();
        assert_eq!(ok("60s", "--live"), 60.0);
        assert_eq!(ok("10m", "--window"), 600.0);
        assert_eq!(ok("1h", "--window"), 3600.0);
        assert_eq!(ok("500ms", "--interval"), 0.5);
        assert_eq!(ok("2", "--interval"), 2.0);
        assert!(seconds_flag("ten", "--live").is_err());
        let zero = seconds_flag("0s", "--live").unwrap_err();
        assert!(zero.is_bad_input());
        assert_eq!(
            zero.to_string(),
            "--live '0s': write a duration above 0 and at most 7 days (604800 s)"
        );
    }

    #[test]
    fn devices_labels_and_volumes_become_volume_specs() {
        let devices = strings(&["sdb", "sdc"]);
        let labels = strings(&["data"]);
        let volumes = strings(&["logs=sdd, sde"]);
        let options = sizing_options(&SizingFlags {
            devices: &devices,
            labels: &labels,
            volumes: &volumes,
            interval: Some("5s"),
            window: Some("10m"),
            percentile: 95.0,
            ..SizingFlags::default()
        })
        .unwrap();
        let specs: Vec<(&str, Vec<&str>)> = options
            .volumes
            .iter()
            .map(|v| {
                (
                    v.label.as_str(),
                    v.devices.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            specs,
            vec![
                ("data", vec!["sdb"]),
                ("sdc", vec!["sdc"]),
                ("logs", vec!["sdd", "sde"])
            ]
        );
        assert_eq!(options.interval_s, Some(Seconds(5.0)));
        assert_eq!(options.window_s, Some(Seconds(600.0)));
        assert_eq!(options.percentile, 95.0);
    }

    #[test]
    fn mistakes_name_the_flag_and_the_fix() {
        let one = strings(&["sdb"]);
        let two = strings(&["a", "b"]);
        let error = |flags: SizingFlags| sizing_options(&flags).unwrap_err().to_string();
        assert_eq!(
            error(SizingFlags {
                devices: &one,
                labels: &two,
                ..SizingFlags::default()
            }),
            "2 --label but only 1 --device; give one --device NAME before each --label"
        );
        let bad_volume = strings(&["data"]);
        assert!(error(SizingFlags {
            volumes: &bad_volume,
            ..SizingFlags::default()
        })
        .starts_with("--volume 'data' is not LABEL=DEV,DEV"));
        let twice = strings(&["x=sdb", "x=sdc"]);
        assert_eq!(
            error(SizingFlags {
                volumes: &twice,
                ..SizingFlags::default()
            }),
            "the label 'x' is given twice; give each volume its own --label"
        );
        // With --live the interval is the live capture's own: not read here.
        let live = sizing_options(&SizingFlags {
            interval: Some("ten"),
            live: true,
            ..SizingFlags::default()
        })
        .unwrap();
        assert_eq!(live.interval_s, None);
    }
}
