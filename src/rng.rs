//! Counter-based random numbers, the CPU twin of `shaders-glsl/include/rng.glsl`: every
//! number is a pure function of (seed, path, sample, bounce, dimension). Both sides must
//! give identical bits; `tests/rng.rs` checks that on the device.

/// The PCG output permutation used as a hash (Jarzynski and Olano 2020, "pcg_hash").
pub fn hash(value: u32) -> u32 {
    let state = value.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

pub fn random_bits(seed: u32, path: u32, sample: u32, bounce: u32, dimension: u32) -> u32 {
    let mut h = hash(seed);
    h = hash(h ^ path);
    h = hash(h ^ sample);
    h = hash(h ^ bounce);
    hash(h ^ dimension)
}

/// Uniform in [0, 1), from the top 24 bits so that it is exact in f32.
pub fn random(seed: u32, path: u32, sample: u32, bounce: u32, dimension: u32) -> f32 {
    (random_bits(seed, path, sample, bounce, dimension) >> 8) as f32 * (1.0 / 16_777_216.0)
}
