//! Random numbers for offsets and read/write choice: splitmix64 (fast, seedable, good enough
//! for workload generation) and a memory-free random permutation for fio's default "random
//! map" behaviour (every block touched exactly once per pass).

/// splitmix64: one add, two multiplies, three shifts per number.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.state)
    }

    /// A number in `0..n` (Lemire's multiply-shift; the bias is below 2^-32 for n < 2^32).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// A number in `0.0..100.0`.
    #[inline]
    pub fn percent(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (100.0 / (1u64 << 53) as f64)
    }
}

/// The splitmix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A keyed permutation of `0..n` computed on the fly: a bijection on the smallest power-of-two
/// domain holding `n` (xor with key, multiply by an odd constant, xorshift, three rounds),
/// restricted to `0..n` by cycle walking. Needs no memory, so a 30 GiB file's 4 million blocks
/// cost nothing, and each pass visits every block exactly once.
#[derive(Clone, Debug)]
pub struct Permutation {
    n: u64,
    mask: u64,
    shift: u32,
    keys: [u64; 3],
}

const MULTIPLIERS: [u64; 3] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
];

impl Permutation {
    pub fn new(n: u64, key: u64) -> Permutation {
        let n = n.max(1);
        let bits = 64 - (n - 1).leading_zeros();
        let bits = bits.max(1);
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut keygen = SplitMix64::new(key);
        Permutation {
            n,
            mask,
            shift: (bits / 2).max(1),
            keys: [keygen.next_u64(), keygen.next_u64(), keygen.next_u64()],
        }
    }

    #[inline]
    fn round(&self, mut x: u64) -> u64 {
        for (key, multiplier) in self.keys.iter().zip(MULTIPLIERS) {
            x = (x ^ key) & self.mask;
            x = x.wrapping_mul(multiplier) & self.mask;
            x ^= x >> self.shift;
        }
        x
    }

    /// The `i`-th element (`i < n`) of the permutation.
    #[inline]
    pub fn get(&self, i: u64) -> u64 {
        debug_assert!(i < self.n);
        if self.n == 1 {
            return 0;
        }
        let mut x = self.round(i);
        while x >= self.n {
            x = self.round(x);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_visits_every_block_once() {
        for n in [1u64, 2, 3, 7, 8, 1000, 4097] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let x = p.get(i) as usize;
                assert!(!seen[x], "n={n}: {x} twice");
                seen[x] = true;
            }
        }
    }

    #[test]
    fn permutation_is_not_the_identity() {
        let p = Permutation::new(1 << 16, 7);
        let fixed = (0..1u64 << 16).filter(|&i| p.get(i) == i).count();
        assert!(fixed < 100, "{fixed} fixed points");
    }

    #[test]
    fn below_is_in_range_and_seeded() {
        let mut a = SplitMix64::new(1);
        let mut b = SplitMix64::new(1);
        for _ in 0..1000 {
            let x = a.below(10);
            assert!(x < 10);
            assert_eq!(x, b.below(10));
        }
        let p = a.percent();
        assert!((0.0..100.0).contains(&p));
    }
}
