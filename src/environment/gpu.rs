//! The environment on the GPU: a map's texels, its per-pixel sampling weights and the light
//! tree over them, built in two dispatches (`environment/weights.comp`, then the light tree's
//! one-dispatch builder); and the pass constants that tell the kernels what they have.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult};
use crate::interface::{
    EnvironmentWeightsPush, PassConstants, ENVIRONMENT_CONSTANT, ENVIRONMENT_MAP, ENVIRONMENT_NONE,
    ENVIRONMENT_WEIGHTS_GROUP,
};
use crate::lights::{Leaves, LightTree};

use super::{Environment, EnvironmentMap, EnvironmentRadiance};

/// Next-event estimation's chance of aiming at the environment when the scene has emissive
/// triangles too. Their powers cannot be compared (the environment's depends on how much of
/// it the scene hides), so each gets half; MIS keeps either choice unbiased.
pub const ENVIRONMENT_CHOICE_WITH_TRIANGLES: f32 = 0.5;

struct MapTables {
    texels: Buffer,
    weights: Buffer,
    tree: LightTree,
    weights_pipeline: ComputePipeline<EnvironmentWeightsPush>,
    width: u32,
    height: u32,
    max_groups_x: u32,
}

pub struct GpuEnvironment {
    kind: u32,
    color: glam::Vec3,
    rotation: f32,
    map: Option<MapTables>,
}

/// Bytes per texel of the largest per-texel table (texels: 12, weights: 4; the tree's
/// nodes bound it from above).
const BYTES_PER_TEXEL_BOUND: u64 = 16;

/// The map halved (2 x 2 box filter, which keeps its mean radiance) until its tables fit the
/// device's largest allocation, with a warning; `None` when it fits as it is.
fn fit_to_allocation(map: &EnvironmentMap, max_allocation_bytes: u64) -> Option<EnvironmentMap> {
    let fits = |m: &EnvironmentMap| {
        max_allocation_bytes == 0
            || u64::from(m.width) * u64::from(m.height) * BYTES_PER_TEXEL_BOUND <= max_allocation_bytes
    };
    if fits(map) {
        return None;
    }
    let mut fitted = map.halved();
    while !fits(&fitted) && fitted.width > 1 && fitted.height > 1 {
        fitted = fitted.halved();
    }
    log::warn!(
        "{}: environment map of {}x{} is larger than this device allocates at once; used at {}x{}",
        map.source.display(),
        map.width,
        map.height,
        fitted.width,
        fitted.height
    );
    Some(fitted)
}

impl GpuEnvironment {
    pub fn new(context: &Context, environment: Option<&Environment>) -> GpuResult<Self> {
        let Some(environment) = environment else {
            return Ok(Self {
                kind: ENVIRONMENT_NONE,
                color: glam::Vec3::ZERO,
                rotation: 0.0,
                map: None,
            });
        };
        let rotation = environment.rotation_degrees.to_radians();
        Ok(match &environment.radiance {
            EnvironmentRadiance::Constant(radiance) => Self {
                kind: ENVIRONMENT_CONSTANT,
                color: *radiance * environment.strength,
                rotation,
                map: None,
            },
            EnvironmentRadiance::Map(map) => {
                let fitted = fit_to_allocation(map, context.adapter().capabilities.max_allocation_bytes);
                let map = fitted.as_ref().unwrap_or(map);
                let texels: Vec<[f32; 3]> = map.texels.iter().map(|t| t.to_array()).collect();
                let pixels = u64::from(map.width) * u64::from(map.height);
                Self {
                    kind: ENVIRONMENT_MAP,
                    color: glam::Vec3::splat(environment.strength),
                    rotation,
                    map: Some(MapTables {
                        texels: Buffer::from_slice(context, "environment texels", &texels, BufferUsage::STORAGE)?,
                        weights: Buffer::gpu_storage(context, "environment weights", pixels * 4)?,
                        tree: LightTree::new(context, pixels as u32, false)?,
                        weights_pipeline: ComputePipeline::new(context, ids::ENVIRONMENT_WEIGHTS, &[])?,
                        width: map.width,
                        height: map.height,
                        max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
                    }),
                }
            }
        })
    }

    /// Records the map's sampling weights and tree (nothing for a constant or no environment);
    /// the tree is visible to compute and ray-tracing work recorded after this.
    pub fn record_build(&self, commands: &mut CommandBuffer) -> GpuResult<()> {
        let Some(map) = &self.map else {
            return Ok(());
        };
        let pixels = u64::from(map.width) * u64::from(map.height);
        let grid = DispatchSize::covering(pixels.div_ceil(u64::from(ENVIRONMENT_WEIGHTS_GROUP)), map.max_groups_x)
            .ok_or_else(|| GpuError::InvalidUse {
                name: "environment weights".into(),
                problem: format!("{pixels} pixels exceed the dispatch limits"),
            })?;
        let push = EnvironmentWeightsPush {
            texels: map.texels.address(),
            weights: map.weights.address(),
            width: map.width,
            height: map.height,
            groups_x: grid.x,
            pad0: 0,
        };
        commands.dispatch(&map.weights_pipeline, &push, grid);
        commands.compute_barrier();
        map.tree.record_build(commands, &Leaves::Weights(&map.weights))
    }

    /// The map's sampling weights as `record_build` left them (`None` without a map): what
    /// tests compare with `EnvironmentMap::sampling_weights`.
    pub fn read_weights(&self, context: &Context) -> GpuResult<Option<Vec<f32>>> {
        let Some(map) = &self.map else {
            return Ok(None);
        };
        let pixels = map.width as usize * map.height as usize;
        map.weights.read_back(context, pixels).map(Some)
    }

    /// The environment's part of the pass constants; `triangle_lights` is how many emissive
    /// triangles next-event estimation can choose besides.
    pub fn fill(&self, constants: &mut PassConstants, triangle_lights: u32) {
        constants.environment_kind = self.kind;
        constants.environment_color = self.color;
        constants.environment_rotation = self.rotation;
        constants.environment_choice = match (self.kind, triangle_lights) {
            (ENVIRONMENT_NONE, _) => 0.0,
            (_, 0) => 1.0,
            _ => ENVIRONMENT_CHOICE_WITH_TRIANGLES,
        };
        if let Some(map) = &self.map {
            constants.environment_texels = map.texels.address();
            constants.environment_tree = map.tree.tree().address();
            constants.environment_tree_arity = map.tree.shape().arity;
            constants.environment_width = map.width;
            constants.environment_height = map.height;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn a_map_too_large_to_allocate_is_halved_until_it_fits_keeping_its_mean() {
        let (width, height) = (37, 21);
        let texels: Vec<Vec3> = (0..width * height)
            .map(|i| Vec3::new((i % 7) as f32, (i % 5) as f32 * 0.5, 1.0))
            .collect();
        let map = EnvironmentMap::from_texels(std::path::Path::new("sky.hdr"), width, height, texels).unwrap();
        assert!(fit_to_allocation(&map, 0).is_none());
        assert!(fit_to_allocation(&map, u64::from(width * height) * BYTES_PER_TEXEL_BOUND).is_none());
        let limit = 60 * BYTES_PER_TEXEL_BOUND;
        let fitted = fit_to_allocation(&map, limit).unwrap();
        assert_eq!((fitted.width, fitted.height), (10, 6));
        let mean = |m: &EnvironmentMap| m.texels.iter().copied().sum::<Vec3>() / m.texels.len() as f32;
        // Edge texels of an odd size average fewer texels, so the means agree only closely.
        assert!(
            (mean(&map) - mean(&fitted)).abs().max_element() < 0.1,
            "{} {}",
            mean(&map),
            mean(&fitted)
        );
    }
}
