//! The numbers a path draws, the CPU twin of `shaders-glsl/include/sampler.glsl`:
//! Owen-scrambled Sobol points in sets of two or three dimensions, each set's sequence shuffled
//! per (pixel, bounce, set) (Burley 2020, "Practical Hash-based Owen Scrambling"), or
//! independent numbers (`crate::rng`). Both sides give identical bits; `tests/sampler.rs`
//! checks that on the device and that the points keep the Sobol sequence's stratification.

use crate::interface::{LIGHT_SUBPATH_BOUNCE, RR_DIMENSION, SAMPLER_INDEPENDENT, SAMPLER_SOBOL, SOBOL_SET_SAMPLE};
use crate::rng;

/// Where a path's random numbers come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sampler {
    /// Owen-scrambled Sobol points: each pixel's samples spread evenly over the pixel, a BSDF's
    /// directions and a light's points, so images converge faster than with independent
    /// numbers (docs/SAMPLING.md).
    #[default]
    Sobol,
    /// Independent numbers from a hash of the counters (`include/rng.glsl`).
    Independent,
}

impl Sampler {
    /// `PassConstants::path_sampler`.
    pub fn code(self) -> u32 {
        match self {
            Sampler::Independent => SAMPLER_INDEPENDENT,
            Sampler::Sobol => SAMPLER_SOBOL,
        }
    }
}

impl std::str::FromStr for Sampler {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "sobol" => Ok(Sampler::Sobol),
            "independent" => Ok(Sampler::Independent),
            other => Err(format!("unknown sampler `{other}`: sobol or independent")),
        }
    }
}

/// Joe and Kuo's primitive polynomials and initial direction numbers of Sobol dimensions 2 and 3
/// (degree, the polynomial's inner coefficients as bits, the initial numbers m_k).
const SOBOL_POLYNOMIALS: [(usize, u32, [u32; 2]); 2] = [(1, 0, [1, 0]), (2, 1, [1, 3])];

/// The generator matrix of Sobol dimension `axis` + 1 (`axis` 0-2), a column per bit of the
/// index, each column the fraction's bits (Bratley and Fox's recurrence; axis 0 is the van der
/// Corput sequence). The shader computes the same columns otherwise (sampler.glsl).
pub fn sobol_directions(axis: usize) -> [u32; 32] {
    let mut v = [0u32; 32];
    if axis == 0 {
        for (bit, column) in v.iter_mut().enumerate() {
            *column = 1 << (31 - bit);
        }
        return v;
    }
    let (degree, inner, initial) = SOBOL_POLYNOMIALS[axis - 1];
    for i in 0..32 {
        v[i] = if i < degree {
            initial[i] << (31 - i)
        } else {
            let mut column = v[i - degree] ^ (v[i - degree] >> degree);
            for k in 1..degree {
                if (inner >> (degree - 1 - k)) & 1 == 1 {
                    column ^= v[i - k];
                }
            }
            column
        };
    }
    v
}

/// Coordinate `axis` of Sobol point `index`, as 32 fraction bits.
pub fn sobol_coordinate(index: u32, axis: usize) -> u32 {
    let directions = sobol_directions(axis);
    (0..32)
        .filter(|bit| (index >> bit) & 1 == 1)
        .fold(0, |bits, bit| bits ^ directions[bit])
}

/// Owen's nested uniform scrambling in base 2: each bit of the fraction flipped by a hash of
/// the bits above it (Vegdahl's variant of Laine and Karras's hash, on the reversed bits).
pub fn owen_scramble(fraction: u32, seed: u32) -> u32 {
    let mut x = fraction.reverse_bits();
    x ^= x.wrapping_mul(0x3d20_adea);
    x = x.wrapping_add(seed);
    x = x.wrapping_mul((seed >> 16) | 1);
    x ^= x.wrapping_mul(0x0552_6c56);
    x ^= x.wrapping_mul(0x53a2_2864);
    x.reverse_bits()
}

/// The set a dimension of a bounce belongs to and its coordinate there (the callers'
/// conventions, spelled out in sampler.glsl's `sample_set`).
pub fn sample_set(bounce: u32, dimension: u32) -> (u32, u32) {
    let grouped = if bounce == LIGHT_SUBPATH_BOUNCE {
        match dimension {
            0 => Some((1, 2)),
            1 | 2 => Some((1, dimension - 1)),
            3 | 4 => Some((0, dimension - 3)),
            _ => None,
        }
    } else if bounce > LIGHT_SUBPATH_BOUNCE {
        (dimension <= 3).then_some((dimension >> 1, dimension & 1))
    } else {
        match dimension {
            0 | 1 => Some((0, dimension)),
            2 => Some((1, 2)),
            3 | 4 => Some((1, dimension - 3)),
            5 => Some((2, 0)),
            d if d == RR_DIMENSION => Some((2, 1)),
            _ => None,
        }
    };
    grouped.unwrap_or((3 + dimension, 0))
}

/// The Sobol sampler's number as 32 bits: sample `sample` of the pixel's shuffled sequence for
/// the dimension's set.
pub fn sobol_sample_bits(seed: u32, pixel: u32, sample: u32, bounce: u32, dimension: u32) -> u32 {
    let (set, coordinate) = sample_set(bounce, dimension);
    let set_seed = rng::random_bits(seed, pixel, SOBOL_SET_SAMPLE, bounce, set);
    // The shuffle maps the first 2^m indices onto an aligned block of 2^m points; XORing the
    // first index's image in brings the block to the first one (sampler.glsl says why that
    // keeps Burley's distribution).
    let index = owen_scramble(sample, set_seed) ^ owen_scramble(0, set_seed);
    owen_scramble(
        sobol_coordinate(index, coordinate as usize),
        rng::hash(set_seed ^ coordinate),
    )
}

/// Number `dimension` of a path's bounce under `sampler`, in [0, 1) from the top 24 bits.
pub fn path_number(sampler: Sampler, seed: u32, pixel: u32, sample: u32, bounce: u32, dimension: u32) -> f32 {
    match sampler {
        Sampler::Sobol => {
            (sobol_sample_bits(seed, pixel, sample, bounce, dimension) >> 8) as f32 * (1.0 / 16_777_216.0)
        }
        Sampler::Independent => rng::random(seed, pixel, sample, bounce, dimension),
    }
}
