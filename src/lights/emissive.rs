//! The scene's lights on the CPU, in the order the GPU flattening gives them: every triangle
//! of every instance whose material emits, instances in scene order, triangles in mesh order.
//! Their weights (luminance of radiance x world-space area) and a float64 CDF over them are
//! the reference the GPU light tree is tested against, and the `cpu-cdf` light selection.

use glam::Vec3;

use crate::scene::Scene;

/// Rec. 709 luminance, the weight of a colour in light selection (as in scene.glsl).
pub fn luminance(rgb: Vec3) -> f32 {
    rgb.dot(Vec3::new(0.2126, 0.7152, 0.0722))
}

/// One emissive triangle in world space, wound so that `cross(p1 - p0, p2 - p0)` points to
/// the emitting (front) side, whatever the instance's transform did to the winding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmissiveTriangle {
    pub instance: u32,
    pub triangle: u32,
    pub p0: Vec3,
    pub p1: Vec3,
    pub p2: Vec3,
    pub radiance: Vec3,
}

impl EmissiveTriangle {
    pub fn area(&self) -> f64 {
        let [p0, p1, p2] = [self.p0, self.p1, self.p2].map(|p| p.as_dvec3());
        0.5 * (p1 - p0).cross(p2 - p0).length()
    }

    /// Emitted power up to the constant pi: luminance(radiance) x area; 0 for anything not
    /// finite and positive, as the GPU builder does.
    pub fn weight(&self) -> f64 {
        let weight = f64::from(luminance(self.radiance)) * self.area();
        if weight > 0.0 && weight.is_finite() {
            weight
        } else {
            0.0
        }
    }
}

/// The instances whose material emits and whose mesh has triangles, in scene order: what the
/// GPU flattening starts from.
pub fn emissive_instances(scene: &Scene) -> Vec<u32> {
    (0..scene.instances.len() as u32)
        .filter(|&i| {
            let mesh = &scene.meshes[scene.instances[i as usize].mesh as usize];
            luminance(scene.materials[mesh.material as usize].emission) > 0.0 && !mesh.indices.is_empty()
        })
        .collect()
}

/// The emissive triangles of `emissive`'s instances (from `emissive_instances`): the lights
/// the selection chooses among.
pub fn emissive_triangle_count(scene: &Scene, emissive: &[u32]) -> u64 {
    emissive
        .iter()
        .map(|&i| scene.meshes[scene.instances[i as usize].mesh as usize].triangle_count() as u64)
        .sum()
}

pub struct EmissiveTriangles {
    /// Instances whose material emits, in scene order: what the GPU flattening starts from.
    pub emissive_instances: Vec<u32>,
    pub triangles: Vec<EmissiveTriangle>,
    /// Inclusive prefix sums of the weights, in float64.
    pub cdf: Vec<f64>,
}

impl EmissiveTriangles {
    pub fn build(scene: &Scene) -> Self {
        let emissive_instances = emissive_instances(scene);
        let mut triangles = Vec::new();
        for &instance_index in &emissive_instances {
            let instance = &scene.instances[instance_index as usize];
            let mesh = &scene.meshes[instance.mesh as usize];
            let radiance = scene.materials[mesh.material as usize].emission;
            let flip = instance.flips_winding();
            for (triangle, corners) in mesh.indices.chunks_exact(3).enumerate() {
                let [p0, mut p1, mut p2] = [0, 1, 2].map(|k| {
                    instance
                        .world_from_object
                        .transform_point3(mesh.positions[corners[k] as usize])
                });
                if flip {
                    std::mem::swap(&mut p1, &mut p2);
                }
                triangles.push(EmissiveTriangle {
                    instance: instance_index,
                    triangle: triangle as u32,
                    p0,
                    p1,
                    p2,
                    radiance,
                });
            }
        }
        let mut running = 0.0f64;
        let cdf = triangles
            .iter()
            .map(|t| {
                running += t.weight();
                running
            })
            .collect();
        Self {
            emissive_instances,
            triangles,
            cdf,
        }
    }

    pub fn total_power(&self) -> f64 {
        self.cdf.last().copied().unwrap_or(0.0)
    }

    /// The light whose CDF interval holds `u` x total, for `u` in [0, 1); `None` when no
    /// light has power.
    pub fn sample(&self, u: f64) -> Option<usize> {
        let total = self.total_power();
        let any_power = total > 0.0;
        if !any_power {
            return None;
        }
        let x = u * total;
        Some(self.cdf.partition_point(|&c| c <= x).min(self.cdf.len() - 1))
    }

    /// Probability of choosing light `index`.
    pub fn probability(&self, index: usize) -> f64 {
        self.triangles[index].weight() / self.total_power()
    }

    /// The CDF as the `cpu-cdf` selection uploads it: float32 of the float64 sums.
    pub fn cdf_f32(&self) -> Vec<f32> {
        self.cdf.iter().map(|&c| c as f32).collect()
    }
}
