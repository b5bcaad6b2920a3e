//! The film on the GPU: per pixel three 64-bit fixed-point sums of radiance (`film.glsl`), in
//! units of 1 / `FILM_SCALE`. Integer addition does not depend on order, so every schedule,
//! slot count and integrator adds up to the same bits; the mean is taken on the way back.

use crate::gpu::{Buffer, CommandBuffer, Context, GpuResult};
use crate::interface::FILM_SCALE;

use super::RgbImage;

/// Bytes of film per pixel: three 64-bit sums.
pub const FILM_BYTES_PER_PIXEL: u64 = 24;

pub struct Film {
    sums: Buffer,
    width: u32,
    height: u32,
}

impl Film {
    pub fn new(context: &Context, width: u32, height: u32) -> GpuResult<Self> {
        let pixels = u64::from(width) * u64::from(height);
        let sums = Buffer::gpu_storage(context, "film", pixels * FILM_BYTES_PER_PIXEL)?;
        Ok(Self { sums, width, height })
    }

    /// The address kernels add to (`PassConstants::film`).
    pub fn address(&self) -> u64 {
        self.sums.address()
    }

    pub fn record_clear(&self, commands: &mut CommandBuffer) {
        commands.fill_buffer(&self.sums, 0, self.sums.size(), 0);
    }

    /// The mean radiance of `spp` samples per pixel.
    pub fn read_mean(&self, context: &Context, spp: u32) -> GpuResult<RgbImage> {
        let sums = self.read_sums(context)?;
        Ok(mean_of_sums(self.width as usize, self.height as usize, &sums, spp))
    }

    /// The raw sums, three a pixel, in units of 1 / `FILM_SCALE`: what several devices' or
    /// a farm's partial films add up exactly (`scale`).
    pub fn read_sums(&self, context: &Context) -> GpuResult<Vec<u64>> {
        let pixels = self.width as usize * self.height as usize;
        self.sums.read_back(context, pixels * 3)
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }
}

/// The image of fixed-point sums (three a pixel) over `spp` samples a pixel: one rounding
/// from the exact sum, so equal sums give equal bits wherever they were added.
pub fn mean_of_sums(width: usize, height: usize, sums: &[u64], spp: u32) -> RgbImage {
    let scale = 1.0 / (f64::from(FILM_SCALE) * f64::from(spp));
    RgbImage {
        width,
        height,
        pixels: sums
            .chunks_exact(3)
            .map(|s| [s[0], s[1], s[2]].map(|v| (v as f64 * scale) as f32))
            .collect(),
    }
}
