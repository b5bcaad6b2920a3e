//! Each pixel's importance in the chains' target, from the bootstrap's first round.
//!
//! With Y* = luminance, chains visit pixels in proportion to their brightness, so a dark
//! pixel gets few samples and a large relative error, and relative metrics (relMSE, what
//! REFERENCE.md measures) are ruled by dark pixels. Hoberock and Hart (2010) divide the target
//! by an estimate of the pixel's brightness instead: chains then spend about the same
//! relative effort on every pixel. The estimate is the bootstrap's uniform samples splatted
//! into blocks of pixels large enough to hold a few dozen lit samples each, and a floor keeps
//! the importance of a block the bootstrap saw (almost) dark bounded:
//!
//!     importance(p) = 1 / (brightness(block of p) / mean brightness + FLOOR).
//!
//! Any positive importance leaves the image unbiased (the splats divide by the same target);
//! only where the chains' effort goes changes.

use super::start::LitRecord;

/// The importance of a pixel the bootstrap saw dark, relative to a pixel of the image's mean
/// brightness, is 1 / FLOOR.
pub const FLOOR: f64 = 0.1;
/// Lit bootstrap samples a block should hold on average: the block grows (by powers of two)
/// until it does.
const LIT_SAMPLES_PER_BLOCK: usize = 32;

/// One factor a pixel (`width` x `height`, row-major) from the lit records of a bootstrap round
/// whose values are plain luminance (no importance applied).
pub fn pixel_importance(lit: &[LitRecord], width: u32, height: u32) -> Vec<f32> {
    let pixels = width as usize * height as usize;
    let mut block = 1u32;
    let blocks = |block: u32| (width.div_ceil(block) * height.div_ceil(block)) as usize;
    while block < width.max(height) && lit.len() < LIT_SAMPLES_PER_BLOCK * blocks(block) {
        block *= 2;
    }
    let blocks_x = width.div_ceil(block);
    let block_of = |pixel: u32| ((pixel / width) / block) * blocks_x + (pixel % width) / block;
    let mut sums = vec![0.0f64; blocks(block)];
    for &[_, bits, pixel] in lit {
        if (pixel as usize) < pixels {
            sums[block_of(pixel) as usize] += f64::from(f32::from_bits(bits));
        }
    }
    let total: f64 = sums.iter().sum();
    if total <= 0.0 {
        return vec![1.0; pixels];
    }
    let mean = total / pixels as f64;
    // A block's brightness: its sum over the pixels it covers (edge blocks cover fewer).
    let area = |b: usize| {
        let (bx, by) = (b as u32 % blocks_x, b as u32 / blocks_x);
        f64::from(block.min(width - bx * block) * block.min(height - by * block))
    };
    let factors: Vec<f64> = sums
        .iter()
        .enumerate()
        .map(|(b, &sum)| 1.0 / (sum / area(b) / mean + FLOOR))
        .collect();
    (0..pixels as u32)
        .map(|pixel| factors[block_of(pixel) as usize] as f32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(pixel: u32, y: f32) -> LitRecord {
        [0, y.to_bits(), pixel]
    }

    #[test]
    fn an_evenly_lit_image_has_the_same_importance_everywhere() {
        let records: Vec<LitRecord> = (0..64 * 32).map(|p| lit(p % (8 * 8), 2.0)).collect();
        let importance = pixel_importance(&records, 8, 8);
        for &m in &importance {
            assert!((f64::from(m) - 1.0 / (1.0 + FLOOR)).abs() < 1e-6, "{m}");
        }
    }

    #[test]
    fn dark_blocks_weigh_more_and_their_weight_is_bounded() {
        // Left half 9 times the right's brightness; no samples off the image count.
        let (width, height) = (16u32, 16u32);
        let mut records = Vec::new();
        for pixel in 0..width * height {
            let y = if pixel % width < width / 2 { 9.0 } else { 1.0 };
            for _ in 0..40 {
                records.push(lit(pixel, y));
            }
        }
        records.push(lit(width * height, 1e9));
        let importance = pixel_importance(&records, width, height);
        let (bright, dark) = (importance[0], importance[width as usize - 1]);
        // Mean brightness 5: left 1.8 of it, right 0.2.
        assert!((f64::from(bright) - 1.0 / (1.8 + FLOOR)).abs() < 1e-5, "{bright}");
        assert!((f64::from(dark) - 1.0 / (0.2 + FLOOR)).abs() < 1e-5, "{dark}");
        // A pixel no sample lit is at most 1 / FLOOR.
        let sparse = pixel_importance(&[lit(0, 1.0)], 4, 4);
        assert!(sparse.iter().all(|&m| f64::from(m) <= 1.0 / FLOOR + 1e-6));
        // Too few samples for single pixels: blocks grow until each holds a few dozen.
        let few: Vec<LitRecord> = (0..256)
            .map(|p| lit(p % 64, if p % 8 < 4 { 3.0 } else { 1.0 }))
            .collect();
        let blocky = pixel_importance(&few, 8, 8);
        assert_eq!(blocky[0], blocky[1]);
    }

    #[test]
    fn a_dark_bootstrap_leaves_the_target_as_it_is() {
        assert!(pixel_importance(&[], 3, 5).iter().all(|&m| m == 1.0));
    }
}
