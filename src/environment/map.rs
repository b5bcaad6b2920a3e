//! Equirectangular environment maps from Radiance HDR (`.hdr`) or OpenEXR (`.exr`) files, as
//! linear RGB in row-major order from the top row (+Y) down.

use std::path::{Path, PathBuf};

use glam::{DVec3, Vec3};

/// The most pixels a map may have: its tree and texels stay far inside GPU limits.
pub const MAX_PIXELS: u64 = crate::input::MAX_IMAGE_PIXELS;

#[derive(Debug, thiserror::Error)]
pub enum EnvironmentError {
    #[error("{path}: environment maps must be .hdr or .exr")]
    UnsupportedFormat { path: PathBuf },
    #[error("{path}: cannot read the environment map: {problem}")]
    Unreadable { path: PathBuf, problem: String },
    #[error("{path}: environment map of {width}x{height} pixels: {problem}")]
    BadSize {
        path: PathBuf,
        width: u32,
        height: u32,
        problem: String,
    },
}

#[derive(Clone, PartialEq)]
pub struct EnvironmentMap {
    pub source: PathBuf,
    pub width: u32,
    pub height: u32,
    pub texels: Vec<Vec3>,
    /// What was changed on load, e.g. negative or NaN texels set to zero.
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for EnvironmentMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "EnvironmentMap({}, {}x{})",
            self.source.display(),
            self.width,
            self.height
        )
    }
}

impl EnvironmentMap {
    pub fn load(path: &Path) -> Result<Self, EnvironmentError> {
        let format = match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("hdr") => image::ImageFormat::Hdr,
            Some("exr") => image::ImageFormat::OpenExr,
            _ => {
                return Err(EnvironmentError::UnsupportedFormat {
                    path: path.to_path_buf(),
                })
            }
        };
        let unreadable = |problem: String| EnvironmentError::Unreadable {
            path: path.to_path_buf(),
            problem,
        };
        let decoded = crate::input::decode_image_file(path, format).map_err(unreadable)?;
        let rgb = decoded.into_rgb32f();
        let texels = rgb.pixels().map(|p| Vec3::from_array(p.0)).collect();
        Self::from_texels(path, rgb.width(), rgb.height(), texels)
    }

    /// A map from texels in memory (tests, generated skies); checks the size and clears
    /// texels that are not finite and non-negative, with a warning.
    pub fn from_texels(path: &Path, width: u32, height: u32, mut texels: Vec<Vec3>) -> Result<Self, EnvironmentError> {
        let bad_size = |problem: &str| EnvironmentError::BadSize {
            path: path.to_path_buf(),
            width,
            height,
            problem: problem.to_string(),
        };
        if width == 0 || height == 0 {
            return Err(bad_size("it is empty"));
        }
        if u64::from(width) * u64::from(height) > MAX_PIXELS {
            return Err(bad_size(&format!("more than {MAX_PIXELS} pixels")));
        }
        if texels.len() != width as usize * height as usize {
            return Err(bad_size(&format!("{} texels given", texels.len())));
        }
        let mut cleared = 0usize;
        for texel in &mut texels {
            if !texel.is_finite() || texel.min_element() < 0.0 {
                *texel = Vec3::ZERO;
                cleared += 1;
            }
        }
        let mut warnings = Vec::new();
        if cleared > 0 {
            let warning = format!("{cleared} texel(s) negative, NaN or infinite: set to black");
            log::warn!("{}: {warning}", path.display());
            warnings.push(warning);
        }
        Ok(Self {
            source: path.to_path_buf(),
            width,
            height,
            texels,
            warnings,
        })
    }

    /// The radiance at map coordinates (u, v) in [0, 1]^2, interpolated bilinearly between texel
    /// centres with u wrapping and v clamped: the CPU twin of `environment_interpolated`.
    pub fn interpolated(&self, u: f64, v: f64) -> DVec3 {
        let (width, height) = (i64::from(self.width), i64::from(self.height));
        let (px, py) = (u * width as f64 - 0.5, v * height as f64 - 0.5);
        let (cx, cy) = (px.floor(), py.floor());
        let (tx, ty) = (px - cx, py - cy);
        let texel = |x: i64, y: i64| {
            let (x, y) = (x.rem_euclid(width), y.clamp(0, height - 1));
            self.texels[(y * width + x) as usize].as_dvec3()
        };
        let (x, y) = (cx as i64, cy as i64);
        let upper = texel(x, y).lerp(texel(x + 1, y), tx);
        let lower = texel(x, y + 1).lerp(texel(x + 1, y + 1), tx);
        upper.lerp(lower, ty)
    }

    /// Each pixel's weight in the map's sampling distribution: the integral of the interpolated
    /// luminance over the pixel (in pixel units) x sin theta at the row's centre. The CPU twin
    /// of `environment/weights.comp`.
    pub fn sampling_weights(&self) -> Vec<f32> {
        const FOOTPRINT: [f64; 3] = [0.125, 0.75, 0.125];
        let (width, height) = (i64::from(self.width), i64::from(self.height));
        let mut weights = Vec::with_capacity(self.texels.len());
        for y in 0..height {
            let sin_theta = ((y as f64 + 0.5) / height as f64 * std::f64::consts::PI).sin();
            for x in 0..width {
                let mut integral = DVec3::ZERO;
                for (j, wy) in FOOTPRINT.iter().enumerate() {
                    let row = (y + j as i64 - 1).clamp(0, height - 1);
                    for (i, wx) in FOOTPRINT.iter().enumerate() {
                        let column = (x + i as i64 - 1).rem_euclid(width);
                        integral += wx * wy * self.texels[(row * width + column) as usize].as_dvec3();
                    }
                }
                let luminance = crate::lights::emissive::luminance(integral.as_vec3());
                weights.push((f64::from(luminance) * sin_theta) as f32);
            }
        }
        weights
    }

    /// Half the size (rounded up), each texel the mean of the 2 x 2 (or fewer, at an odd edge)
    /// it covers.
    pub fn halved(&self) -> EnvironmentMap {
        let (width, height) = (self.width.div_ceil(2), self.height.div_ceil(2));
        let mut texels = Vec::with_capacity(width as usize * height as usize);
        for y in 0..height {
            for x in 0..width {
                let mut sum = Vec3::ZERO;
                let mut count = 0.0;
                for (sx, sy) in [
                    (2 * x, 2 * y),
                    (2 * x + 1, 2 * y),
                    (2 * x, 2 * y + 1),
                    (2 * x + 1, 2 * y + 1),
                ] {
                    if sx < self.width && sy < self.height {
                        sum += self.texels[(sy * self.width + sx) as usize];
                        count += 1.0;
                    }
                }
                texels.push(sum / count);
            }
        }
        EnvironmentMap {
            source: self.source.clone(),
            width,
            height,
            texels,
            warnings: self.warnings.clone(),
        }
    }
}
