//! Emissive triangles and a CPU-built CDF over their emitted power, for next-event
//! estimation: pick a triangle with probability proportional to luminance(radiance) x area,
//! then a point uniformly on it.
//!
//! The probability density of a point, per unit area, is then luminance(radiance) / total
//! power for every emitter, so the MIS weight of a light found by BSDF sampling needs only
//! the hit's own radiance and the total, not a look-up of its index. The GPU one-dispatch
//! builder (the lights issue) replaces `build`, not this interface.

use glam::Vec3;

use crate::interface::EmissiveTriangle;
use crate::scene::Scene;

/// Rec. 709 luminance, the weight of a colour in the power CDF.
pub fn luminance(rgb: Vec3) -> f32 {
    rgb.dot(Vec3::new(0.2126, 0.7152, 0.0722))
}

pub struct EmissiveTriangles {
    pub triangles: Vec<EmissiveTriangle>,
    /// Inclusive CDF of power, normalised, last entry exactly 1.
    pub cdf: Vec<f32>,
    /// Sum of luminance(radiance) x area over all emitters.
    pub total_power: f64,
}

impl EmissiveTriangles {
    pub fn build(scene: &Scene) -> Self {
        let mut triangles = Vec::new();
        for (instance_index, instance) in scene.instances.iter().enumerate() {
            let mesh = &scene.meshes[instance.mesh as usize];
            let radiance = scene.materials[mesh.material as usize].emission;
            if luminance(radiance) <= 0.0 {
                continue;
            }
            let flip = instance.flips_winding();
            for (primitive, tri) in mesh.indices.chunks_exact(3).enumerate() {
                let [p0, mut p1, mut p2] = [0, 1, 2].map(|k| {
                    instance
                        .world_from_object
                        .transform_point3(mesh.positions[tri[k] as usize])
                });
                if flip {
                    std::mem::swap(&mut p1, &mut p2);
                }
                let area = 0.5 * (p1 - p0).cross(p2 - p0).length();
                if !(area > 0.0 && area.is_finite()) {
                    continue;
                }
                triangles.push(EmissiveTriangle {
                    p0,
                    instance: instance_index as u32,
                    p1,
                    primitive: primitive as u32,
                    p2,
                    area,
                    radiance,
                    pad0: 0,
                });
            }
        }
        // Summed in f64 so that a million small lights after a bright one still get their share.
        let mut running = 0.0f64;
        let mut sums = Vec::with_capacity(triangles.len());
        for t in &triangles {
            running += f64::from(luminance(t.radiance)) * f64::from(t.area);
            sums.push(running);
        }
        let mut cdf: Vec<f32> = sums.iter().map(|&s| (s / running) as f32).collect();
        if let Some(last) = cdf.last_mut() {
            *last = 1.0;
        }
        Self {
            triangles,
            cdf,
            total_power: running,
        }
    }

    /// The index whose CDF interval holds `u` in [0, 1): the first entry greater than `u`.
    pub fn sample(&self, u: f32) -> Option<usize> {
        if self.cdf.is_empty() {
            return None;
        }
        Some(self.cdf.partition_point(|&c| c <= u).min(self.cdf.len() - 1))
    }

    /// Probability of choosing triangle `index`.
    pub fn probability(&self, index: usize) -> f64 {
        let t = &self.triangles[index];
        f64::from(luminance(t.radiance)) * f64::from(t.area) / self.total_power
    }

    /// Density per unit area of a light point chosen by `sample` then uniformly on its
    /// triangle, for a point on an emitter of the given radiance.
    pub fn area_density(&self, radiance: Vec3) -> f64 {
        f64::from(luminance(radiance)) / self.total_power
    }
}
