//! The image metrics of the reference conventions, for a render `x` against a reference `r`:
//! relMSE = mean((x - r)^2 / (r^2 + 0.01)); the same on 8x8-pixel block means with offset
//! 0.001 (damps noise, shows bias); and the per-channel ratio of means.

use serde::Serialize;

use super::RgbImage;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub rel_mse: f64,
    pub block8_rel_mse: f64,
    pub mean_ratio: [f64; 3],
    /// NaN or infinite pixels in the render; any fails a comparison.
    pub non_finite_pixels: usize,
}

#[derive(Debug, thiserror::Error)]
#[error("images differ in size: {0}x{1} against a {2}x{3} reference")]
pub struct SizeMismatch(pub usize, pub usize, pub usize, pub usize);

fn rel_mse(a: &[[f64; 3]], b: &[[f64; 3]], offset: f64) -> f64 {
    let sum: f64 = a
        .iter()
        .zip(b)
        .flat_map(|(x, r)| (0..3).map(move |c| (x[c] - r[c]).powi(2) / (r[c] * r[c] + offset)))
        .sum();
    sum / (3 * a.len().max(1)) as f64
}

/// Means of 8x8 blocks; a partial block at the right or bottom edge is averaged over what it holds.
fn block_means(image: &RgbImage) -> Vec<[f64; 3]> {
    let (bw, bh) = (image.width.div_ceil(8), image.height.div_ceil(8));
    let mut sums = vec![([0.0f64; 3], 0usize); bw * bh];
    for y in 0..image.height {
        for x in 0..image.width {
            let (sum, count) = &mut sums[(y / 8) * bw + x / 8];
            let p = image.pixel(x, y);
            for c in 0..3 {
                sum[c] += f64::from(p[c]);
            }
            *count += 1;
        }
    }
    sums.into_iter()
        .map(|(sum, count)| sum.map(|s| s / count as f64))
        .collect()
}

pub fn compare(render: &RgbImage, reference: &RgbImage) -> Result<Comparison, SizeMismatch> {
    if (render.width, render.height) != (reference.width, reference.height) {
        return Err(SizeMismatch(
            render.width,
            render.height,
            reference.width,
            reference.height,
        ));
    }
    let widen = |image: &RgbImage| image.pixels.iter().map(|p| p.map(f64::from)).collect::<Vec<_>>();
    let (x, r) = (widen(render), widen(reference));
    let (mx, mr) = (render.mean(), reference.mean());
    Ok(Comparison {
        rel_mse: rel_mse(&x, &r, 0.01),
        block8_rel_mse: rel_mse(&block_means(render), &block_means(reference), 0.001),
        mean_ratio: [0, 1, 2].map(|c| mx[c] / mr[c]),
        non_finite_pixels: render
            .pixels
            .iter()
            .filter(|p| p.iter().any(|v| !v.is_finite()))
            .count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_images_compare_perfectly() {
        let image = RgbImage::from_fn(13, 9, |x, y| [x as f32, y as f32, 1.0]);
        let c = compare(&image, &image).unwrap();
        assert_eq!(
            (c.rel_mse, c.block8_rel_mse, c.mean_ratio, c.non_finite_pixels),
            (0.0, 0.0, [1.0; 3], 0)
        );
    }

    #[test]
    fn metrics_follow_their_definitions() {
        let reference = RgbImage::from_fn(16, 16, |_, _| [1.0, 2.0, 0.0]);
        let render = RgbImage::from_fn(
            16,
            16,
            |x, _| if x % 2 == 0 { [1.5, 2.0, 0.0] } else { [0.5, 2.0, 0.0] },
        );
        let c = compare(&render, &reference).unwrap();
        // Red: every pixel off by 0.5 -> 0.25 / 1.01; green and blue exact.
        assert!((c.rel_mse - 0.25 / 1.01 / 3.0).abs() < 1e-12, "{c:?}");
        // Block means are exact: the noise cancels inside each 8x8 block.
        assert!(c.block8_rel_mse < 1e-15);
        assert!((c.mean_ratio[0] - 1.0).abs() < 1e-12 && c.mean_ratio[2].is_nan());
        let biased = RgbImage::from_fn(16, 16, |_, _| [1.1, 2.0, 0.0]);
        let b = compare(&biased, &reference).unwrap();
        assert!((b.block8_rel_mse - 0.01 / 1.001 / 3.0).abs() < 1e-7 && (b.mean_ratio[0] - 1.1).abs() < 1e-6);
    }

    #[test]
    fn non_finite_pixels_are_counted_and_sizes_must_match() {
        let reference = RgbImage::new(4, 4);
        let mut render = RgbImage::new(4, 4);
        render.pixels[5] = [f32::NAN, 0.0, 0.0];
        render.pixels[6] = [0.0, f32::INFINITY, 0.0];
        assert_eq!(compare(&render, &reference).unwrap().non_finite_pixels, 2);
        assert!(compare(&RgbImage::new(4, 5), &reference).is_err());
    }
}
