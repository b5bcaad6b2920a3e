//! Counter-based random numbers, the CPU twin of `shaders-glsl/include/rng.glsl`: every
//! number is a pure function of (seed, path, sample, bounce, dimension). Both sides must
//! give identical bits; `tests/rng.rs` checks that on the device.

use crate::interface::SQUARES_KEY_BOUNCE;

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

/// Squares32 (Widynski 2020, "Squares: A Fast Counter-Based RNG"): four rounds of squaring
/// `counter x key` with the halves swapped between them. Metropolis light transport (issue
/// 14) never stores a primary sample: each chain has a key, and every number of every
/// proposal is this function of its counter, recomputed where it is needed. The twin of
/// `squares32` in `shaders-glsl/include/squares.glsl`; `tests/rng.rs` holds them together.
pub fn squares32(counter: u64, key: u64) -> u32 {
    let y = counter.wrapping_mul(key);
    let z = y.wrapping_add(key);
    let mut x = y;
    x = x.wrapping_mul(x).wrapping_add(y).rotate_left(32);
    x = x.wrapping_mul(x).wrapping_add(z).rotate_left(32);
    x = x.wrapping_mul(x).wrapping_add(y).rotate_left(32);
    (x.wrapping_mul(x).wrapping_add(z) >> 32) as u32
}

/// Uniform in [0, 1) from Squares32, the top 24 bits as `random` takes them.
pub fn squares_uniform(counter: u64, key: u64) -> f32 {
    (squares32(counter, key) >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// The Squares key of `chain` under `seed` (twin: squares.glsl's `squares_key`), built as the
/// paper's key generator builds keys (squaring mixes poorly with keys of few or repeated
/// digits): the lowest hexadecimal digit odd; the lowest eight digits non-zero and all
/// different; each upper digit non-zero and different from the one below it. A pure function
/// of (seed, chain), so a render needs no stored state to reproduce a chain.
pub fn squares_key(seed: u32, chain: u32) -> u64 {
    let draw = |digit: u32| random_bits(seed, chain, 0, SQUARES_KEY_BOUNCE, digit);
    let mut unused: Vec<u64> = (1..16).collect();
    let mut key = 0u64;
    let mut previous = 0u64;
    for digit in 0..16u32 {
        let value = if digit == 0 {
            let odd = 2 * u64::from(draw(digit) % 8) + 1;
            unused.retain(|&v| v != odd);
            odd
        } else if digit < 8 {
            unused.remove(draw(digit) as usize % unused.len())
        } else {
            // 1..=15 without `previous`: 14 choices, shifted past it.
            let v = 1 + u64::from(draw(digit) % 14);
            if v >= previous {
                v + 1
            } else {
                v
            }
        };
        key |= value << (4 * digit);
        previous = value;
    }
    key
}
