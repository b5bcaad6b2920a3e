//! KHR_lights_punctual lights in next-event estimation: their table on the GPU, a CDF over
//! them by power, and the share of all light power they hold, with which a light sample goes
//! to them rather than to an emissive triangle. Together the two choices pick every light by
//! its power. With the light BVH, point and spot lights are its leaves and the CDF keeps only
//! the directional lights. Powers are in the emissive triangles' units (power over pi,
//! `EmissiveTriangle::weight`); radiant intensity in candela and irradiance in lux are taken
//! as they are, in wavetrace's radiometric units, as renderers without photometric units do.

use crate::gpu::{Buffer, BufferUsage, Context, GpuResult};
use crate::interface::{GpuPunctualLight, PassConstants, PUNCTUAL_DIRECTIONAL, PUNCTUAL_POINT, PUNCTUAL_SPOT};
use crate::scene::{PunctualKind, PunctualLight, Scene};

use super::culling::reference::without_ranged;
use super::emissive::{luminance, EmissiveTriangles};

/// Emitted power over pi: a point light sends 4 pi I, a spot light 2 pi I times the cone's
/// solid-angle fraction with the smooth edge counted half (as pbrt-v4 does), a directional
/// light E over the scene's cross-section pi r^2.
pub fn power(light: &PunctualLight, scene_radius: f32) -> f64 {
    let intensity = f64::from(luminance(light.intensity));
    let power = match light.kind {
        PunctualKind::Point => 4.0 * intensity,
        PunctualKind::Spot { inner, outer } => {
            let (cos_inner, cos_outer) = (f64::from(inner.cos()), f64::from(outer.cos()));
            2.0 * ((1.0 - cos_inner) + 0.5 * (cos_inner - cos_outer)) * intensity
        }
        PunctualKind::Directional => f64::from(scene_radius).powi(2) * intensity,
    };
    if power.is_finite() && power > 0.0 {
        power
    } else {
        0.0
    }
}

pub struct PunctualLights {
    table: Buffer,
    cdf: Buffer,
    count: u32,
    choice: f32,
    powered: u32,
}

impl PunctualLights {
    /// `beside_bvh`: point and spot lights are leaves of the light BVH, so the CDF and its
    /// share of the choice hold only the directional lights. `culled`: lights of finite range
    /// are chosen by light culling, before this choice, and count for nothing here.
    pub fn new(context: &Context, scene: &Scene, beside_bvh: bool, culled: bool) -> GpuResult<Self> {
        let radius = scene.radius();
        let lights = if culled {
            without_ranged(&scene.lights)
        } else {
            scene.lights.clone()
        };
        let powers: Vec<f64> = lights.iter().map(|l| power(l, radius)).collect();
        let total: f64 = powers.iter().sum();
        let in_cdf = |light: &PunctualLight| !beside_bvh || light.kind == PunctualKind::Directional;
        let cdf_powers: Vec<f64> = lights
            .iter()
            .zip(&powers)
            .map(|(light, &p)| if in_cdf(light) { p } else { 0.0 })
            .collect();
        let cdf_total: f64 = cdf_powers.iter().sum();
        let mut cdf = normalised_cdf(&cdf_powers);
        let triangles = if cdf_total > 0.0 {
            EmissiveTriangles::build(scene).total_power()
        } else {
            0.0
        };
        let choice = if cdf_total > 0.0 {
            (cdf_total / (total + triangles)) as f32
        } else {
            0.0
        };
        let table = table_entries(&scene.lights);
        if cdf.is_empty() {
            cdf.push(1.0);
        }
        Ok(Self {
            table: Buffer::from_slice(context, "punctual lights", &table, BufferUsage::STORAGE)?,
            cdf: Buffer::from_slice(context, "punctual light cdf", &cdf, BufferUsage::STORAGE)?,
            count: if cdf_total > 0.0 { scene.lights.len() as u32 } else { 0 },
            choice,
            powered: scene.lights.iter().filter(|l| power(l, radius) > 0.0).count() as u32,
        })
    }

    /// Lights with power, wherever next-event estimation chooses them.
    pub fn powered(&self) -> u32 {
        self.powered
    }

    pub fn fill(&self, constants: &mut PassConstants) {
        constants.punctual_lights = self.table.address();
        constants.punctual_cdf = self.cdf.address();
        constants.punctual_count = self.count;
        constants.punctual_choice = self.choice;
    }
}

/// The lights as the GPU reads them; one dark entry when there are none, as buffers cannot be
/// empty (the kernels never read it then).
pub fn table_entries(lights: &[PunctualLight]) -> Vec<GpuPunctualLight> {
    let mut table: Vec<GpuPunctualLight> = lights.iter().map(gpu_light).collect();
    if table.is_empty() {
        table.push(GpuPunctualLight::default());
    }
    table
}

fn gpu_light(light: &PunctualLight) -> GpuPunctualLight {
    let (kind, cos_inner, cos_outer) = match light.kind {
        PunctualKind::Point => (PUNCTUAL_POINT, 0.0, 0.0),
        PunctualKind::Spot { inner, outer } => (PUNCTUAL_SPOT, inner.cos(), outer.cos()),
        PunctualKind::Directional => (PUNCTUAL_DIRECTIONAL, 0.0, 0.0),
    };
    GpuPunctualLight {
        position: light.position,
        kind,
        direction: light.direction,
        range: light.range.unwrap_or(0.0),
        intensity: light.intensity,
        cos_inner,
        cos_outer,
        ..GpuPunctualLight::default()
    }
}

/// The inclusive CDF of `powers`, normalised, its last entry exactly 1 (the shaders' flat-CDF
/// sampler in light_tree.glsl reads it).
pub fn normalised_cdf(powers: &[f64]) -> Vec<f32> {
    let total: f64 = powers.iter().sum();
    let mut running = 0.0;
    let mut cdf: Vec<f32> = powers
        .iter()
        .map(|p| {
            running += p;
            (running / total) as f32
        })
        .collect();
    if let Some(last) = cdf.last_mut() {
        *last = 1.0;
    }
    cdf
}
