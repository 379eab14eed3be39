//! A prediction in JSON, with unknown kept unknown: where a rate runs into a limit the catalog
//! does not publish, the figures the solver holds are only what the published limits allow,
//! so JSON writes `null` for them (a volume's rates and latency, the totals, what a limit is
//! used and its headroom, the binding limit's load) and never a number a reader could take for
//! the design's. The structs are serialised by serde's derive (`remote = "Self"`) and the
//! unknown fields are then set to `null`; reading JSON back takes `null` as NaN.

use crate::{LimitCheck, LimitStatus, Prediction, VolumePrediction};
use iofit_model::units::{Iops, MBps, Millis};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A figure JSON may write as `null` (unknown): a bare number or one of the unit types.
pub(crate) trait Figure {
    fn from_f64(value: f64) -> Self;
}

impl Figure for f64 {
    fn from_f64(value: f64) -> Self {
        value
    }
}

impl Figure for Iops {
    fn from_f64(value: f64) -> Self {
        Iops(value)
    }
}

impl Figure for Millis {
    fn from_f64(value: f64) -> Self {
        Millis(value)
    }
}

impl Figure for MBps {
    fn from_f64(value: f64) -> Self {
        MBps(value)
    }
}

/// A number, or `null` (an unknown figure) read as NaN.
pub(crate) fn number_or_null<'de, D: Deserializer<'de>, T: Figure>(
    deserializer: D,
) -> Result<T, D::Error> {
    Ok(T::from_f64(
        Option::<f64>::deserialize(deserializer)?.unwrap_or(f64::NAN),
    ))
}

/// A limit's status; `null` (a published limit whose load is unknown) reads as unknown.
pub(crate) fn status_or_unknown<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<LimitStatus, D::Error> {
    Ok(Option::<LimitStatus>::deserialize(deserializer)?.unwrap_or(LimitStatus::Unknown))
}

fn set_null(value: &mut Value, keys: &[&str]) {
    if let Value::Object(map) = value {
        for key in keys {
            if let Some(field) = map.get_mut(*key) {
                *field = Value::Null;
            }
        }
    }
}

/// Serialises `derived` (serde's derived form as a JSON value) after `edit` nulls what is
/// unknown.
fn edited<S: Serializer>(
    derived: Result<Value, serde_json::Error>,
    edit: impl FnOnce(&mut Value),
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut value = derived.map_err(S::Error::custom)?;
    edit(&mut value);
    value.serialize(serializer)
}

/// A volume's rates at the operating point that are unknown flat out.
const OPERATING_RATES: &[&str] = &[
    "iops",
    "throughput_mb_s",
    "read_iops",
    "write_iops",
    "cache_read_iops",
    "disk_iops",
    "latency_ms",
];

impl Serialize for LimitCheck {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let derived = LimitCheck::serialize(self, serde_json::value::Serializer);
        edited(
            derived,
            |value| {
                if self.load_unknown {
                    set_null(value, &["used", "headroom", "headroom_pct"]);
                    // Published, but with its load unknown the limit has no status.
                    if self.limit.is_some() {
                        set_null(value, &["status"]);
                    }
                }
            },
            serializer,
        )
    }
}

impl<'de> Deserialize<'de> for LimitCheck {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut check = LimitCheck::deserialize(deserializer)?;
        check.load_unknown = check.used.is_nan();
        Ok(check)
    }
}

impl Serialize for VolumePrediction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let derived = VolumePrediction::serialize(self, serde_json::value::Serializer);
        edited(
            derived,
            |value| {
                if !self.rates_known() {
                    set_null(value, &["max_iops", "max_throughput_mb_s"]);
                    // With a target the volume runs at its target: those rates stand.
                    if self.target_iops.is_none() {
                        set_null(value, OPERATING_RATES);
                    }
                }
            },
            serializer,
        )
    }
}

impl<'de> Deserialize<'de> for VolumePrediction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        VolumePrediction::deserialize(deserializer)
    }
}

impl Serialize for Prediction {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let derived = Prediction::serialize(self, serde_json::value::Serializer);
        edited(
            derived,
            |value| {
                if !self.delivered_known() {
                    set_null(value, &["total_iops", "total_throughput_mb_s"]);
                }
                if !self.max_known() {
                    set_null(value, &["max_total_iops", "max_total_throughput_mb_s"]);
                }
                let binding_unknown = self.binding.as_ref().is_some_and(|binding| {
                    self.limit(binding.kind, &binding.scope)
                        .is_some_and(|check| check.load_unknown)
                });
                if binding_unknown {
                    if let Some(binding) = value.get_mut("binding") {
                        set_null(binding, &["used"]);
                    }
                }
            },
            serializer,
        )
    }
}

impl<'de> Deserialize<'de> for Prediction {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Prediction::deserialize(deserializer)
    }
}
