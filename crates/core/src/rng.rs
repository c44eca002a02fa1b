//! A small, fast, seedable random number generator for playouts and bots.

/// wyrand (Wang Yi): one 64-bit word of state, one multiplication per number,
/// passes the usual statistical test batteries, and fast enough that drawing
/// a random candidate costs less than testing it. Not for cryptography.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

/// 2⁶⁴ divided by the golden ratio, odd: SplitMix64's step between states.
/// Multiplying consecutive counts by it spreads them over all 64 bits, which
/// is how a seed is split into independent streams ([`stream_seed`]).
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output for the state `x`: a well-spread 64-bit value for
/// each input (nearby inputs give unrelated outputs), used to scramble
/// seeds and to make hash keys without a table. A sequence steps its state
/// by [`GOLDEN_GAMMA`] between calls.
pub const fn splitmix64(x: u64) -> u64 {
    mix64(x.wrapping_add(GOLDEN_GAMMA))
}

/// SplitMix64's finaliser (Stafford's variant 13): every input bit moves
/// about half of the output bits.
pub const fn mix64(x: u64) -> u64 {
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of stream `stream` of `seed`: a search's turn, an epoch, a
/// worker. Streams 0, 1, 2, ... of one seed differ in many bits, and stream
/// 0 is the seed itself.
pub const fn stream_seed(seed: u64, stream: u64) -> u64 {
    seed ^ stream.wrapping_mul(GOLDEN_GAMMA)
}

/// FNV-1a, 64 bits: a stable hash of bytes, the same on every run and
/// platform (checksums of model files, keys of games and matches). Not
/// for hash tables an adversary fills, nor against tampering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of no bytes.
    pub const fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    /// Feeds `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    /// The hash of everything fed.
    pub const fn finish(self) -> u64 {
        self.0
    }

    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> u64 {
        let mut hash = Fnv1a::new();
        hash.write(bytes);
        hash.finish()
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a::new()
    }
}

impl Rng {
    /// A generator whose whole sequence is determined by `seed`.
    pub fn new(seed: u64) -> Rng {
        // Scramble the seed once so that nearby seeds start far apart.
        Rng {
            state: splitmix64(seed),
        }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xa076_1d64_78bd_642f);
        let product = (self.state as u128) * ((self.state ^ 0xe703_7ed1_a0b4_28db) as u128);
        (product >> 64) as u64 ^ product as u64
    }

    /// A number in `0..bound` (`bound` > 0), by Lemire's multiply-shift; the bias
    /// is below `bound / 2^64`, far below anything a playout can notice.
    #[inline]
    pub fn below(&mut self, bound: usize) -> usize {
        ((self.next_u64() as u128 * bound as u128) >> 64) as usize
    }

    /// A number in `0..bound` for a small `bound` (below 2³²), from the top
    /// 32 bits with one 64-bit multiply: cheaper than [`Rng::below`], with a
    /// bias below `bound / 2³²`, which for the few hundred points of a board
    /// is under one in ten million. Playouts draw their moves with it.
    #[inline]
    pub fn below_small(&mut self, bound: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(bound)) >> 32) as u32
    }

    /// A float in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_gives_the_published_values() {
        // The reference vectors of FNV-1a, 64 bits.
        assert_eq!(Fnv1a::of(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(Fnv1a::of(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(Fnv1a::of(b"foobar"), 0x8594_4171_f739_67e8);
        let mut split = Fnv1a::new();
        split.write(b"foo");
        split.write(b"bar");
        assert_eq!(split.finish(), Fnv1a::of(b"foobar"));
    }

    #[test]
    fn deterministic_and_roughly_uniform() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut counts = [0usize; 7];
        for _ in 0..70_000 {
            counts[a.below(7)] += 1;
        }
        for &c in &counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        let mut counts = [0usize; 7];
        for _ in 0..70_000 {
            counts[a.below_small(7) as usize] += 1;
        }
        for &c in &counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }
}
