//! The CPU twin of `shaders-glsl/include/mlt.glsl`: a primary sample reproduced from the ids
//! of its state (never stored), the strategy a proposal evaluates, and the generalized
//! Metropolis-Hastings step over a chain's proposals (`pmlt/accept.comp`). `tests/pmlt.rs`
//! holds the two sides together and checks the step's distribution.

use crate::interface::{MLT_ACCEPT_GROUP, MLT_DIMENSIONS_PER_BOUNCE, MLT_LEADING_DIMENSIONS};
use crate::rng::squares_uniform;

/// What reproduces a primary sample: x[d] = frac(base[d] + sigma N(offset[d])), base and
/// offset Squares32 numbers of their key and index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ids {
    pub base_key: u64,
    pub base_index: u64,
    pub offset_key: u64,
    pub offset_index: u64,
}

/// Numbers in a primary sample at `max_depth`: the strategy, the image position, then 8 a
/// bounce of the camera subpath and of the light subpath.
pub fn dimensions(max_depth: u32) -> u32 {
    MLT_LEADING_DIMENSIONS + 2 * MLT_DIMENSIONS_PER_BOUNCE * (max_depth + 1)
}

/// The standard normal's inverse CDF at `u` in [0, 1) (Giles 2010's single-precision erfinv),
/// `u` moved to the middle of its 2^-24 cell.
pub fn standard_normal(u: f32) -> f32 {
    let x = 2.0 * (u + 0.5 / 16_777_216.0) - 1.0;
    let mut w = -((1.0 - x) * (1.0 + x)).ln();
    let p = if w < 5.0 {
        w -= 2.5;
        [
            3.432_739_4e-7,
            -3.523_387_7e-6,
            -4.391_506_5e-6,
            0.000_218_580_87,
            -0.001_253_725,
            -0.004_177_681_6,
            0.246_640_73,
            1.501_409_4,
        ]
        .iter()
        .fold(2.810_226_4e-8_f32, |p, &c| c + p * w)
    } else {
        w = w.sqrt() - 3.0;
        [
            0.000_100_950_56,
            0.001_349_343_2,
            -0.003_673_428_4,
            0.005_739_507_7,
            -0.007_622_461,
            0.009_438_870_5,
            1.001_674,
            2.832_976_8,
        ]
        .iter()
        .fold(-0.000_200_214_26_f32, |p, &c| c + p * w)
    };
    std::f32::consts::SQRT_2 * p * x
}

/// Number `dimension` of the primary sample `ids` reproduce.
pub fn number(ids: Ids, dimensions: u32, sigma: f32, dimension: u32) -> f32 {
    let stride = 2 * u64::from(dimensions);
    let base = squares_uniform(ids.base_index * stride + u64::from(dimension), ids.base_key);
    let u = squares_uniform(
        ids.offset_index * stride + u64::from(dimensions + dimension),
        ids.offset_key,
    );
    let x = base + sigma * standard_normal(u);
    (x - x.floor()).min(0.999_999_94)
}

/// Index `within` of iteration `iteration` of a chain with `proposals` proposals: 0 for the
/// chain's own numbers, 1 to `proposals` for its proposals.
pub fn index(proposals: u32, iteration: u32, within: u32) -> u64 {
    u64::from(iteration) * u64::from(proposals + 1) + u64::from(within)
}

/// The chain's own number `which` of an iteration (0: large step or not, 1: the draw).
pub fn chain_number(key: u64, proposals: u32, dimensions: u32, iteration: u32, which: u32) -> f32 {
    squares_uniform(
        index(proposals, iteration, 0) * 2 * u64::from(dimensions) + u64::from(which),
        key,
    )
}

pub const STEP_NUMBER: u32 = 0;
pub const DRAW_NUMBER: u32 = 1;

/// The ids of proposal `j` (0-based) of a chain with key `key` and current state `current` at
/// `iteration`: a large step draws base and offset afresh, a small step the offset only.
pub fn proposal_ids(key: u64, current: Ids, proposals: u32, iteration: u32, j: u32, large: bool) -> Ids {
    let index = index(proposals, iteration, j + 1);
    if large {
        Ids {
            base_key: key,
            base_index: index,
            offset_key: key,
            offset_index: index,
        }
    } else {
        Ids {
            offset_key: key,
            offset_index: index,
            ..current
        }
    }
}

/// Strategies of a path of `length` segments (s = 0 to length; at length 1 only (0, 2)).
pub fn strategy_count(length: u32) -> u32 {
    if length == 1 {
        1
    } else {
        length + 1
    }
}

/// The strategy (s, t) number `u` chooses for a path of `length` segments.
pub fn strategy(length: u32, u: f32) -> (u32, u32) {
    let count = strategy_count(length);
    let s = ((u * count as f32) as u32).min(count - 1);
    (s, length + 1 - s)
}

/// Y*: the scalar contribution a chain's target is proportional to.
pub fn luminance(rgb: [f32; 3]) -> f32 {
    0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]
}

/// min(1, Y*(x_j) / Y*(x_i)): nothing for a proposal without light; everything when the
/// current state has none.
pub fn acceptance(current: f32, proposed: f32) -> f32 {
    if proposed.is_nan() || proposed <= 0.0 {
        0.0
    } else if current > 0.0 {
        (proposed / current).min(1.0)
    } else {
        1.0
    }
}

/// The generalized Metropolis-Hastings transition from the current state (Y* `current`) over
/// the proposals (`proposed`): A(i, j) = min(1, Y*_j / Y*_i) / N for each, and what is left on
/// staying. They sum to 1.
pub fn transition(current: f32, proposed: &[f32]) -> (Vec<f32>, f32) {
    let share = 1.0 / proposed.len() as f32;
    let moves: Vec<f32> = proposed.iter().map(|&y| acceptance(current, y) * share).collect();
    let stay = (1.0 - moves.iter().sum::<f32>()).max(0.0);
    (moves, stay)
}

/// The next state drawn from `moves` (the proposals' A) with `u`: the first proposal whose
/// prefix sum passes u, or `None` (stay) past them all, as the acceptance kernel draws it.
pub fn draw(moves: &[f32], u: f32) -> Option<usize> {
    let mut sum = 0.0;
    for (j, &a) in moves.iter().enumerate() {
        sum += a;
        if sum > u {
            return Some(j);
        }
    }
    None
}

/// Lanes of the acceptance workgroup one chain takes (GLSL: mlt_accept_lanes): the least power
/// of two that holds its proposals, at most the workgroup, so that chains of few proposals
/// share a workgroup.
pub fn accept_lanes(proposals: u32) -> u32 {
    proposals.next_power_of_two().min(MLT_ACCEPT_GROUP)
}

/// Workgroups of the acceptance kernel for `chains` chains of `proposals` proposals.
pub fn accept_workgroups(chains: u32, proposals: u32) -> u32 {
    chains.div_ceil(MLT_ACCEPT_GROUP / accept_lanes(proposals))
}
