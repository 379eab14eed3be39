//! Fast pseudo-random bytes keyed by a seed: the same seed gives the same bytes, so a block's
//! expected content can be made again when it is checked or dumped.

/// A 64-bit mix (splitmix64's finaliser): spreads a key over all bits.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Several keys into one seed.
#[inline]
pub fn key(parts: &[u64]) -> u64 {
    parts
        .iter()
        .fold(0x1f0f_17a5_0000_0001, |acc, p| mix64(acc ^ p))
}

/// wyrand: one multiply per 8 bytes, which keeps buffer generation far below the cost of the
/// IO it feeds (several GB/s per core).
#[derive(Clone, Debug)]
pub struct WyRand(u64);

impl WyRand {
    pub fn new(seed: u64) -> WyRand {
        WyRand(seed)
    }
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.0) * u128::from(self.0 ^ 0xe703_7ed1_a0b4_28db);
        (t >> 64) as u64 ^ t as u64
    }
    /// A number in 0..100.
    #[inline]
    pub fn percent(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 100.0
    }
}

/// Fills `buf` with bytes from `seed`.
pub fn fill_random(buf: &mut [u8], seed: u64) {
    let mut rng = WyRand::new(seed);
    let mut chunks = buf.chunks_exact_mut(8);
    for chunk in &mut chunks {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let rest = chunks.into_remainder();
    let last = rng.next_u64().to_le_bytes();
    let n = rest.len();
    rest.copy_from_slice(&last[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let (mut a, mut b, mut c) = (vec![0u8; 1001], vec![0u8; 1001], vec![0u8; 1001]);
        fill_random(&mut a, 7);
        fill_random(&mut b, 7);
        fill_random(&mut c, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().filter(|&&x| x == 0).count() < 20);
    }
}
