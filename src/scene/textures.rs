//! Texture images as the GPU takes them: decoded to RGBA8 and given a full mip chain at load
//! (box-filtered, in linear light for sRGB images so that colours do not darken). The glTF
//! importer decides which images are colour (sRGB) and which are data.

use std::sync::Arc;

use glam::{Affine2, Vec2};

use crate::gpu::SamplerDesc;

/// A texture of the scene: one image in one colour space with one sampler.
#[derive(Clone, PartialEq)]
pub struct Texture {
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// Colour (baseColor, emissive) rather than data (metallicRoughness, normal).
    pub srgb: bool,
    /// RGBA8 levels, largest first, each half the last (at least 1 texel), rows packed.
    pub levels: Arc<Vec<Vec<u8>>>,
    pub sampler: SamplerDesc,
}

impl std::fmt::Debug for Texture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Texture({}, {}x{}, {} levels, srgb {})",
            self.name,
            self.width,
            self.height,
            self.levels.len(),
            self.srgb
        )
    }
}

/// Where a material reads a texture.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TextureRef {
    /// Index into `Scene::textures`; `None` when the image could not be loaded (rendered
    /// magenta, with a warning).
    pub texture: Option<u32>,
    /// `KHR_texture_transform` applied to the texture coordinates.
    pub transform: Affine2,
    /// The normal texture's `scale`; 1 for the others.
    pub scale: f32,
    /// Which TEXCOORD_n set the file reads it at (`texCoord`, or KHR_texture_transform's).
    /// The importer gives each mesh the sets its material reads as its `uvs` and `second_uvs`
    /// (`Material::uv_sets`).
    pub tex_coord: u32,
}

impl TextureRef {
    pub fn plain(texture: u32) -> Self {
        Self {
            texture: Some(texture),
            transform: Affine2::IDENTITY,
            scale: 1.0,
            tex_coord: 0,
        }
    }
}

/// `KHR_texture_transform`: translation x rotation x scale, as the extension composes them.
pub fn uv_transform(offset: Vec2, rotation: f32, scale: Vec2) -> Affine2 {
    let (sin, cos) = rotation.sin_cos();
    Affine2::from_cols(
        Vec2::new(cos * scale.x, -sin * scale.x),
        Vec2::new(sin * scale.y, cos * scale.y),
        offset,
    )
}

/// The sRGB transfer function's inverse, for an 8-bit value.
pub fn srgb_to_linear(v: u8) -> f32 {
    let c = f32::from(v) / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

fn linear_to_srgb(c: f32) -> u8 {
    let s = if c <= 0.003_130_8 {
        c * 12.92
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The mip chain of an RGBA8 image: each level the 2x2 box average of the last (an odd edge
/// folds its last row or column into the previous pair), colour channels of sRGB images
/// averaged as linear light; alpha always linearly.
pub fn mip_chain(rgba: Vec<u8>, width: u32, height: u32, srgb: bool) -> Vec<Vec<u8>> {
    let mut levels = Vec::new();
    let mut last = rgba;
    let (mut w, mut h) = (width as usize, height as usize);
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = vec![0u8; nw * nh * 4];
        for y in 0..nh {
            for x in 0..nw {
                for c in 0..4 {
                    let (mut sum, mut n) = (0.0f32, 0.0f32);
                    // Source texels covering this one: 2x2, or 3 along an odd edge's end.
                    let xs = (2 * x)..(if x == nw - 1 { w } else { 2 * x + 2 }).max(2 * x + 1);
                    let ys = (2 * y)..(if y == nh - 1 { h } else { 2 * y + 2 }).max(2 * y + 1);
                    for sy in ys.clone() {
                        for sx in xs.clone() {
                            let v = last[(sy.min(h - 1) * w + sx.min(w - 1)) * 4 + c];
                            sum += if srgb && c < 3 {
                                srgb_to_linear(v)
                            } else {
                                f32::from(v) / 255.0
                            };
                            n += 1.0;
                        }
                    }
                    let mean = sum / n;
                    next[(y * nw + x) * 4 + c] = if srgb && c < 3 {
                        linear_to_srgb(mean)
                    } else {
                        (mean.clamp(0.0, 1.0) * 255.0).round() as u8
                    };
                }
            }
        }
        levels.push(std::mem::replace(&mut last, next));
        (w, h) = (nw, nh);
    }
    levels.push(last);
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_chains_end_at_one_texel_and_keep_the_mean() {
        let (w, h) = (5u32, 3u32);
        let rgba: Vec<u8> = (0..w * h * 4).map(|i| (i * 37 % 256) as u8).collect();
        let levels = mip_chain(rgba.clone(), w, h, false);
        let sizes: Vec<usize> = levels.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![5 * 3 * 4, 2 * 4, 4]);
        // A constant sRGB image stays constant at every level.
        let grey = mip_chain(vec![200u8; 8 * 8 * 4], 8, 8, true);
        assert!(grey.iter().all(|l| l.iter().all(|&v| v == 200)));
    }

    #[test]
    fn texture_transform_composes_as_the_extension_says() {
        let t = uv_transform(Vec2::new(0.5, 0.0), std::f32::consts::FRAC_PI_2, Vec2::new(2.0, 3.0));
        // Scale, then rotate by 90 degrees (u' = v, v' = -u in the extension's convention),
        // then offset.
        let p = t.transform_point2(Vec2::new(1.0, 1.0));
        assert!((p - Vec2::new(0.5 + 3.0, -2.0)).length() < 1e-5, "{p}");
    }
}
