//! The environment on the GPU: a map's texels, its per-pixel sampling weights and the light
//! tree over them, built in two dispatches (`environment/weights.comp`, then the light tree's
//! one-dispatch builder); and the pass constants that tell the kernels what they have.

use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, MemoryLocation,
};
use crate::interface::{
    EnvironmentWeightsPush, PassConstants, ENVIRONMENT_CONSTANT, ENVIRONMENT_MAP, ENVIRONMENT_NONE,
    ENVIRONMENT_WEIGHTS_GROUP,
};
use crate::lights::{Leaves, LightTree};

use super::{Environment, EnvironmentRadiance};

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
                let texels: Vec<[f32; 3]> = map.texels.iter().map(|t| t.to_array()).collect();
                let pixels = u64::from(map.width) * u64::from(map.height);
                Self {
                    kind: ENVIRONMENT_MAP,
                    color: glam::Vec3::splat(environment.strength),
                    rotation,
                    map: Some(MapTables {
                        texels: Buffer::from_slice(context, "environment texels", &texels, BufferUsage::STORAGE)?,
                        weights: Buffer::new(
                            context,
                            "environment weights",
                            pixels * 4,
                            BufferUsage::STORAGE,
                            MemoryLocation::GpuOnly,
                        )?,
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
