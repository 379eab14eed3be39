//! Non-uniform random offsets (fio `random_distribution`): which block of a file the next
//! random IO goes to. The formulas are fio's (lib/zipf.c, lib/gauss.c) so that a run's hit
//! distribution matches what `fio-genzipf` predicts: zipf by Gray et al.'s quick generator with
//! zeta(n) summed over at most 10 million ranks, pareto by `n * u^(log h / log(1-h))`, normal as
//! the mean of 12 uniform draws plus fio's deviation term. The rank is then scattered over the
//! file by a hash (fio hashes too), so the hot blocks are spread rather than all at the start.

use crate::random::{mix64, SplitMix64};
use iofit_model::job::{AccessZone, RandomDistribution, ZoneSize};

/// fio caps the zeta sum at this many ranks (ZIPF_MAX_GEN): "precision will take a slight hit".
const ZIPF_MAX_GEN: u64 = 10_000_000;

/// fio's gauss draws this many uniforms per value.
const GAUSS_ITERS: u64 = 12;

/// Picks block indices `0..blocks` by a distribution.
#[derive(Clone, Debug)]
pub struct BlockPicker {
    blocks: u64,
    rng: SplitMix64,
    /// Added to the hashed rank (fio's `rand_off`, or the center).
    offset: u64,
    kind: Kind,
    /// Ranks are scattered by a hash (fio's default); off for file choice, where fio keeps
    /// rank order (`zipf_disable_hash`).
    hashed: bool,
}

#[derive(Clone, Debug)]
enum Kind {
    Zipf {
        zeta_n: f64,
        alpha: f64,
        eta: f64,
        /// Below this, rank 2 (1 + 0.5^theta).
        rank2_limit: f64,
    },
    Pareto {
        power: f64,
    },
    Normal {
        stddev: u64,
    },
    /// Cumulative access percent and the block range of each zone.
    Zoned(Vec<(f64, u64, u64)>),
}

/// Why a `random_distribution`'s numbers cannot be used (a zipf theta of 1, zones that do not
/// add up to 100%...); the caller names the job.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct DistributionError(pub String);

impl BlockPicker {
    /// A picker over `blocks` blocks of `block_bytes` each; `None` for the uniform distribution
    /// (the caller's permutation or uniform draw does that). Errors say what is wrong with the
    /// distribution's numbers.
    pub fn new(
        distribution: &RandomDistribution,
        blocks: u64,
        block_bytes: u64,
        seed: u64,
    ) -> Result<Option<BlockPicker>, DistributionError> {
        let blocks = blocks.max(1);
        let mut rng = SplitMix64::new(seed ^ 0x2192_5eed_d157_0000);
        let rand_off = rng.next_u64();
        let centered = |center: Option<f64>, default: u64| match center {
            Some(c) => (blocks as f64 * c) as u64,
            None => default,
        };
        let (kind, offset) = match distribution {
            RandomDistribution::Uniform => return Ok(None),
            RandomDistribution::Zipf { theta, center } => {
                if !(theta.is_finite() && *theta > 0.0) || (*theta - 1.0).abs() < 1e-12 {
                    return Err(DistributionError(format!(
                        "zipf theta {theta} must be above 0 and not 1"
                    )));
                }
                let zeta_n: f64 = (1..=blocks.min(ZIPF_MAX_GEN))
                    .map(|i| (1.0 / i as f64).powf(*theta))
                    .sum();
                let zeta2 = 1.0 + 0.5f64.powf(*theta);
                let n = blocks as f64;
                let kind = Kind::Zipf {
                    zeta_n,
                    alpha: 1.0 / (1.0 - theta),
                    eta: (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta2 / zeta_n),
                    rank2_limit: zeta2,
                };
                (kind, centered(*center, rand_off))
            }
            RandomDistribution::Pareto { h, center } => {
                if !(*h > 0.0 && *h < 1.0) {
                    return Err(DistributionError(format!(
                        "pareto h {h} must be between 0 and 1"
                    )));
                }
                let kind = Kind::Pareto {
                    power: h.ln() / (1.0 - h).ln(),
                };
                (kind, centered(*center, rand_off))
            }
            RandomDistribution::Normal {
                deviation_pct,
                center,
            } => {
                if !(deviation_pct.is_finite() && *deviation_pct >= 0.0) {
                    return Err(DistributionError(format!(
                        "normal deviation {deviation_pct}% must be 0 or more"
                    )));
                }
                let stddev =
                    ((blocks as f64 * deviation_pct / 100.0).ceil() as u64).min(blocks / 2);
                // fio: without a center the hashed value is used as is; with one, shifted.
                let offset = match center {
                    Some(c) => (blocks as f64 * (c - 0.5)).rem_euclid(blocks as f64) as u64,
                    None => 0,
                };
                (Kind::Normal { stddev }, offset)
            }
            RandomDistribution::Zoned(zones) => (zoned(zones, blocks, block_bytes)?, 0),
        };
        Ok(Some(BlockPicker {
            blocks,
            rng,
            offset,
            kind,
            hashed: true,
        }))
    }

    /// The next block index, `< blocks`.
    #[inline]
    pub fn next_block(&mut self) -> u64 {
        let n = self.blocks;
        let rng = &mut self.rng;
        let rank = match &self.kind {
            Kind::Zipf {
                zeta_n,
                alpha,
                eta,
                rank2_limit,
            } => {
                let (zeta_n, alpha, eta, rank2_limit) = (*zeta_n, *alpha, *eta, *rank2_limit);
                let u = unit(rng);
                let z = u * zeta_n;
                let rank = if z < 1.0 {
                    1
                } else if z < rank2_limit {
                    2
                } else {
                    1 + (n as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64
                };
                rank - 1
            }
            Kind::Pareto { power } => ((n - 1) as f64 * unit(rng).powf(*power)) as u64,
            Kind::Normal { stddev } => {
                let stddev = *stddev;
                let mut sum = 0u64;
                for _ in 0..GAUSS_ITERS {
                    sum += rng.below(n + 1);
                }
                sum = sum.div_ceil(GAUSS_ITERS);
                if stddev > 0 {
                    let mut dev = (stddev as f64 * unit(rng)) as i64 - (stddev / 2) as i64;
                    while dev > 0 && sum + dev as u64 >= n {
                        dev /= 2;
                    }
                    sum = sum.saturating_add_signed(dev);
                }
                sum
            }
            Kind::Zoned(zones) => {
                let pct = unit(rng) * 100.0;
                let &(_, start, len) = zones
                    .iter()
                    .find(|(cumulative, _, _)| pct < *cumulative)
                    .unwrap_or(&zones[zones.len() - 1]);
                // Zones are contiguous and unhashed: return directly.
                return start + rng.below(len.max(1));
            }
        };
        let rank = if self.hashed { mix64(rank) } else { rank };
        rank.wrapping_add(self.offset) % n
    }

    /// The same picker with ranks in order (rank 0 at `offset`), as fio picks files.
    pub fn without_hash(mut self) -> BlockPicker {
        self.hashed = false;
        self
    }
}

/// A uniform number in [0, 1).
#[inline]
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Zones from the start of the file, in order; each `(cumulative access %, first block, blocks)`.
fn zoned(zones: &[AccessZone], blocks: u64, block_bytes: u64) -> Result<Kind, DistributionError> {
    if zones.is_empty() {
        return Err(DistributionError(
            "a zoned distribution needs at least one zone".to_string(),
        ));
    }
    let mut out = Vec::with_capacity(zones.len());
    let (mut cumulative, mut start) = (0.0, 0u64);
    for zone in zones {
        let len = match zone.size {
            ZoneSize::Percent(pct) => ((blocks as f64) * pct / 100.0).round() as u64,
            ZoneSize::Bytes(bytes) => bytes.as_u64() / block_bytes.max(1),
        }
        .max(1);
        if start >= blocks {
            return Err(DistributionError(
                "the zones are larger than the file".to_string(),
            ));
        }
        let len = len.min(blocks - start);
        cumulative += zone.access_pct;
        out.push((cumulative, start, len));
        start += len;
    }
    if (cumulative - 100.0).abs() > 1e-6 {
        return Err(DistributionError(format!(
            "the zones' access shares add up to {cumulative}%, not 100%"
        )));
    }
    Ok(Kind::Zoned(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::units::Bytes;

    /// Share of hits, in percent, on the most-hit `top_fraction` of the blocks that were hit
    /// at all: fio-genzipf's "Top" row, which ranks the distinct blocks a run of `draws` IOs hit.
    fn top_share(picker: &mut BlockPicker, blocks: u64, draws: u64, top_fraction: f64) -> f64 {
        let mut hits = vec![0u64; blocks as usize];
        for _ in 0..draws {
            hits[picker.next_block() as usize] += 1;
        }
        hits.retain(|&h| h > 0);
        hits.sort_unstable_by(|a, b| b.cmp(a));
        let top = ((hits.len() as f64 * top_fraction) as usize).max(1);
        100.0 * hits[..top].iter().sum::<u64>() as f64 / draws as f64
    }

    /// fio-genzipf's "Top 10%" row for the same distribution and size, when Debian's fio is
    /// installed (it ships the tool); `None` otherwise.
    fn genzipf_top10(kind: &str, input: f64) -> Option<f64> {
        let out = std::process::Command::new("fio-genzipf")
            .args([
                "-t",
                kind,
                "-i",
                &input.to_string(),
                "-g",
                "1",
                "-b",
                "4096",
                "-o",
                "10",
            ])
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().find(|l| l.starts_with("Top"))?;
        line.split_whitespace()
            .nth(2)?
            .trim_end_matches('%')
            .parse()
            .ok()
    }

    const BLOCKS_1GIB_4K: u64 = 262_144;

    #[test]
    fn zipf_matches_fio_genzipf() {
        let dist = RandomDistribution::Zipf {
            theta: 1.2,
            center: None,
        };
        let mut picker = BlockPicker::new(&dist, BLOCKS_1GIB_4K, 4096, 1)
            .unwrap()
            .unwrap();
        let share = top_share(&mut picker, BLOCKS_1GIB_4K, BLOCKS_1GIB_4K, 0.10);
        // fio-genzipf 3.33 prints 88.76% for this size (its own generator and seed).
        let expected = genzipf_top10("zipf", 1.2).unwrap_or(88.76);
        assert!(
            (share - expected).abs() < 2.0,
            "top 10%: {share:.2}% vs fio {expected:.2}%"
        );
    }

    #[test]
    fn pareto_matches_fio_genzipf() {
        let dist = RandomDistribution::Pareto {
            h: 0.2,
            center: None,
        };
        let mut picker = BlockPicker::new(&dist, BLOCKS_1GIB_4K, 4096, 2)
            .unwrap()
            .unwrap();
        let share = top_share(&mut picker, BLOCKS_1GIB_4K, BLOCKS_1GIB_4K, 0.10);
        // fio-genzipf 3.33 prints 63.55% for this size.
        let expected = genzipf_top10("pareto", 0.2).unwrap_or(63.55);
        assert!(
            (share - expected).abs() < 2.5,
            "top 10%: {share:.2}% vs fio {expected:.2}%"
        );
        // A pareto(0.2) workload is skewed: far more than 10% of hits on 10% of blocks.
        assert!(share > 30.0, "{share}");
    }

    #[test]
    fn normal_matches_fio_genzipf() {
        let dist = RandomDistribution::Normal {
            deviation_pct: 0.0,
            center: None,
        };
        let mut picker = BlockPicker::new(&dist, BLOCKS_1GIB_4K, 4096, 3)
            .unwrap()
            .unwrap();
        let share = top_share(&mut picker, BLOCKS_1GIB_4K, BLOCKS_1GIB_4K, 0.10);
        // fio-genzipf 3.33 prints 23.72% for this size: the mean of 12 uniform draws.
        let expected = genzipf_top10("normal", 0.0).unwrap_or(23.72);
        assert!(
            (share - expected).abs() < 2.0,
            "top 10%: {share:.2}% vs fio {expected:.2}%"
        );
    }

    #[test]
    fn zoned_puts_each_share_in_its_zone() {
        let zones = vec![
            AccessZone {
                access_pct: 60.0,
                size: ZoneSize::Percent(10.0),
            },
            AccessZone {
                access_pct: 40.0,
                size: ZoneSize::Percent(90.0),
            },
        ];
        let mut picker = BlockPicker::new(&RandomDistribution::Zoned(zones), 1000, 4096, 4)
            .unwrap()
            .unwrap();
        let draws = 100_000;
        let first = (0..draws).filter(|_| picker.next_block() < 100).count();
        let pct = 100.0 * first as f64 / draws as f64;
        assert!((pct - 60.0).abs() < 1.0, "{pct}");

        let abs = vec![
            AccessZone {
                access_pct: 90.0,
                size: ZoneSize::Bytes(Bytes::kib(40)),
            },
            AccessZone {
                access_pct: 10.0,
                size: ZoneSize::Bytes(Bytes::mib(100)),
            },
        ];
        let mut picker = BlockPicker::new(&RandomDistribution::Zoned(abs), 1000, 4096, 5)
            .unwrap()
            .unwrap();
        let first = (0..draws).filter(|_| picker.next_block() < 10).count();
        assert!((100.0 * first as f64 / draws as f64 - 90.0).abs() < 1.0);
        // Zones must account for every access.
        let bad = vec![AccessZone {
            access_pct: 50.0,
            size: ZoneSize::Percent(10.0),
        }];
        assert!(BlockPicker::new(&RandomDistribution::Zoned(bad), 1000, 4096, 5).is_err());
    }

    #[test]
    fn every_pick_is_inside_the_file() {
        for dist in [
            RandomDistribution::Zipf {
                theta: 0.8,
                center: Some(0.5),
            },
            RandomDistribution::Pareto {
                h: 0.9,
                center: None,
            },
            RandomDistribution::Normal {
                deviation_pct: 30.0,
                center: Some(0.9),
            },
        ] {
            for blocks in [1u64, 2, 7, 1000] {
                let mut picker = BlockPicker::new(&dist, blocks, 4096, 9).unwrap().unwrap();
                assert!(
                    (0..2000).all(|_| picker.next_block() < blocks),
                    "{dist:?} {blocks}"
                );
            }
        }
        assert!(BlockPicker::new(&RandomDistribution::Uniform, 10, 4096, 1)
            .unwrap()
            .is_none());
    }
}
