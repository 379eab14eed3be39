//! Compact, lossless text form of latency histograms for sending results between processes
//! (the multi-host protocol): the HDR histogram in hdrhistogram's V2 format, deflated and
//! base64-encoded, plus the exact sum, sum of squares, minimum and maximum that give exact
//! means and deviations after a merge. A decoded histogram merges exactly like the original.

use crate::direction::{DirectionStats, PrioStats};
use crate::histogram::LatencyHistogram;
use base64::Engine as _;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use iofit_model::units::{Bytes, Nanos};
use serde::{Deserialize, Serialize};

/// Why a compact histogram could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    #[error("histogram is not base64: {0}")]
    Base64(String),
    #[error("histogram is not an HDR V2 (deflate) histogram: {0}")]
    Hdr(String),
}

/// One latency histogram as text. Empty histograms stay small (a few dozen bytes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompactHistogram {
    /// hdrhistogram V2 deflate serialization, standard base64.
    pub hdr_v2_deflate_b64: String,
    /// Exact sum of the samples, as a decimal string: JSON numbers beyond 2^64 do not survive
    /// every reader (serde's tagged enums among them).
    #[serde(with = "decimal_u128")]
    pub sum_ns: u128,
    pub sum_sq_ns2: f64,
    pub min_ns: Nanos<u64>,
    pub max_ns: Nanos<u64>,
}

impl CompactHistogram {
    /// Encodes `histogram`.
    pub fn encode(histogram: &LatencyHistogram) -> CompactHistogram {
        let (hdr, sum_ns, sum_sq_ns2, min_ns, max_ns) = histogram.parts();
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(&hdr, &mut bytes)
            .expect("serializing an in-memory histogram into a Vec cannot fail");
        CompactHistogram {
            hdr_v2_deflate_b64: base64::engine::general_purpose::STANDARD.encode(bytes),
            sum_ns,
            sum_sq_ns2,
            min_ns: Nanos(min_ns),
            max_ns: Nanos(max_ns),
        }
    }

    /// Decodes back into a histogram that merges and summarises exactly like the original.
    pub fn decode(&self) -> Result<LatencyHistogram, CompactError> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.hdr_v2_deflate_b64)
            .map_err(|e| CompactError::Base64(e.to_string()))?;
        let decoded: Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| CompactError::Hdr(format!("{e:?}")))?;
        // An empty histogram stays lazy (no HDR allocated until a sample arrives).
        if decoded.is_empty() {
            return Ok(LatencyHistogram::new());
        }
        // A histogram of the engine's own bounds is used as it is (the common case, and fast);
        // any other is re-homed into those bounds so it merges with every other. (No template
        // histogram is built for the check: a 270 KB allocation per decode costs more in page
        // faults than the whole decode.)
        let hdr = if decoded.low() == 1
            && decoded.high() == crate::histogram::MAX_TRACKED_NS
            && decoded.sigfig() == 3
        {
            decoded
        } else {
            let mut target = LatencyHistogram::new().parts().0.into_owned();
            target
                .add(&decoded)
                .map_err(|e| CompactError::Hdr(format!("{e:?}")))?;
            target
        };
        let histogram = LatencyHistogram::from_parts(
            hdr,
            self.sum_ns,
            self.sum_sq_ns2,
            self.min_ns.get(),
            self.max_ns.get(),
        );
        Ok(histogram)
    }
}

/// One direction's counters and its three histograms, as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompactDirection {
    pub ios: u64,
    pub io_bytes: Bytes,
    pub submission: CompactHistogram,
    pub completion: CompactHistogram,
    pub total: CompactHistogram,
    /// Per IO priority (fio `cmdprio*` jobs), so that a multi-host run's combined `prios`
    /// are merged histograms too. Absent from a worker of an older iofit: none then.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<CompactPrio>,
}

/// One IO priority's latencies, as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompactPrio {
    /// class << 13 | level.
    pub ioprio: u16,
    pub completion: CompactHistogram,
    pub total: CompactHistogram,
}

impl CompactDirection {
    pub fn encode(stats: &DirectionStats) -> CompactDirection {
        CompactDirection {
            ios: stats.ios,
            io_bytes: stats.io_bytes,
            submission: CompactHistogram::encode(&stats.submission),
            completion: CompactHistogram::encode(&stats.completion),
            total: CompactHistogram::encode(&stats.total),
            prios: stats
                .prios
                .iter()
                .map(|p| CompactPrio {
                    ioprio: p.ioprio,
                    completion: CompactHistogram::encode(&p.completion),
                    total: CompactHistogram::encode(&p.total),
                })
                .collect(),
        }
    }

    pub fn decode(&self) -> Result<DirectionStats, CompactError> {
        let prios = self
            .prios
            .iter()
            .map(|p| {
                Ok(PrioStats {
                    ioprio: p.ioprio,
                    completion: p.completion.decode()?,
                    total: p.total.decode()?,
                })
            })
            .collect::<Result<Vec<_>, CompactError>>()?;
        Ok(DirectionStats {
            ios: self.ios,
            io_bytes: self.io_bytes,
            submission: self.submission.decode()?,
            completion: self.completion.decode()?,
            total: self.total.decode()?,
            prios,
        })
    }
}

mod decimal_u128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u128, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&value.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u128, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal except for the standard deviation's last bits (its sum of squares is a float
    /// summed in another order).
    fn assert_same(a: &crate::LatencySummary, b: &crate::LatencySummary) {
        assert_eq!(
            (a.count, a.min_ns, a.max_ns, a.mean_ns),
            (b.count, b.min_ns, b.max_ns, b.mean_ns)
        );
        assert_eq!(a.percentiles_ns, b.percentiles_ns);
        assert!((a.stdev_ns - b.stdev_ns).get().abs() <= a.stdev_ns.get() * 1e-9);
    }

    #[test]
    fn round_trip_is_lossless_and_merges_exactly() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        let mut all = LatencyHistogram::new();
        for v in 1..=50_000u64 {
            let ns = v * 37 % 9_000_000 + 1_000;
            if v % 3 == 0 {
                a.record(ns)
            } else {
                b.record(ns)
            }
            all.record(ns);
        }
        let mut merged = CompactHistogram::encode(&a).decode().unwrap();
        merged.merge(&CompactHistogram::encode(&b).decode().unwrap());
        assert_same(&merged.summary(), &all.summary());
        let empty = CompactHistogram::encode(&LatencyHistogram::new());
        assert!(
            empty.hdr_v2_deflate_b64.len() < 100,
            "{}",
            empty.hdr_v2_deflate_b64.len()
        );
        assert_eq!(empty.decode().unwrap().count(), 0);
        // Through JSON (u128 sums included).
        let json = serde_json::to_string(&CompactHistogram::encode(&all)).unwrap();
        let back: CompactHistogram = serde_json::from_str(&json).unwrap();
        assert_same(&back.decode().unwrap().summary(), &all.summary());
    }

    #[test]
    fn per_priority_latencies_cross_and_merge_exactly() {
        let host = |seed: u64| {
            let mut d = DirectionStats::default();
            for i in 0..1000u64 {
                let ioprio = if (i + seed).is_multiple_of(4) {
                    1 << 13
                } else {
                    2 << 13 | 4
                };
                let ns = 10_000 + (i * 7919 + seed) % 90_000;
                d.ios += 1;
                d.io_bytes += Bytes(4096);
                d.completion.record(ns);
                d.total.record(ns + 500);
                d.record_prio(ioprio, ns, ns + 500);
            }
            d
        };
        let (a, b) = (host(1), host(2));
        let wire = |d: &DirectionStats| {
            let text = serde_json::to_string(&CompactDirection::encode(d)).unwrap();
            serde_json::from_str::<CompactDirection>(&text)
                .unwrap()
                .decode()
                .unwrap()
        };
        let mut crossed = wire(&a);
        crossed.merge(&wire(&b));
        let mut local = a.clone();
        local.merge(&b);
        let (crossed, local) = (crossed.to_result(1).prios, local.to_result(1).prios);
        assert_eq!(crossed.len(), 2);
        let counts: u64 = crossed.iter().map(|p| p.total_latency.count).sum();
        assert_eq!(
            counts, 2000,
            "the priorities' counts add up to every IO of both hosts"
        );
        for (c, l) in crossed.iter().zip(&local) {
            assert_eq!(c.ioprio, l.ioprio);
            assert_same(&c.completion_latency, &l.completion_latency);
            assert_same(&c.total_latency, &l.total_latency);
        }
        // A worker of an older iofit sends no prios: none, not an error.
        let mut old =
            serde_json::to_value(CompactDirection::encode(&DirectionStats::default())).unwrap();
        old.as_object_mut().unwrap().remove("prios");
        let old: CompactDirection = serde_json::from_value(old).unwrap();
        assert!(old.decode().unwrap().prios.is_empty());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let mut h = CompactHistogram::encode(&LatencyHistogram::new());
        h.hdr_v2_deflate_b64 = "not base64!".into();
        assert!(h.decode().is_err());
        h.hdr_v2_deflate_b64 = "AAAA".into();
        assert!(h.decode().is_err());
    }
}
