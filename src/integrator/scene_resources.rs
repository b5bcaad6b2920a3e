//! The scene as every integrator reads it on the GPU: its tables and textures, acceleration
//! structures, light sampler, environment and punctual lights, and their part of the pass
//! constants (with the camera's).

use crate::accel::SceneAccel;
use crate::environment::GpuEnvironment;
use crate::gpu::{Buffer, CommandBuffer, Context, GpuResult, TraceBackend};
use crate::interface::PassConstants;
use crate::lights::{LightCulling, LightSampler, PunctualLights};
use crate::scene::{GpuScene, RenderCamera, Scene};
use crate::trace::software_bvh::GpuSoftwareBvh;

use super::settings::RenderSettings;

pub struct SceneResources {
    pub scene: GpuScene,
    pub accel: SceneAccel,
    /// Our own traversal's hierarchy, where the render traces with it.
    pub software: Option<GpuSoftwareBvh>,
    pub lights: LightSampler,
    pub environment: GpuEnvironment,
    pub punctual: PunctualLights,
    /// Culled lists of the lights of finite range, where culling is on.
    pub culling: Option<LightCulling>,
}

impl SceneResources {
    pub fn upload(context: &Context, scene: &Scene, settings: &RenderSettings) -> GpuResult<Self> {
        let gpu_scene = GpuScene::upload(context, scene)?;
        let accel = SceneAccel::build(context, scene, &gpu_scene.meshes, settings.merge_instances)?;
        let software = match settings.backend {
            TraceBackend::Software => Some(GpuSoftwareBvh::new(context, scene)?),
            _ => None,
        };
        let (camera, _) = RenderCamera::for_scene(scene, settings.width, settings.height);
        let culling = LightCulling::new(
            context,
            scene,
            camera,
            (settings.width, settings.height),
            settings.backend,
            settings.light_culling,
        )?;
        let culled = culling.is_some();
        let selection = settings.light_selection.for_scene(scene);
        let lights = LightSampler::new(context, scene, &gpu_scene, selection, culled)?;
        let environment = GpuEnvironment::new(context, settings.environment.as_ref())?;
        let punctual = PunctualLights::new(context, scene, selection.holds_punctual_lights(), culled)?;
        Ok(Self {
            scene: gpu_scene,
            accel,
            software,
            lights,
            environment,
            punctual,
            culling,
        })
    }

    /// Records what is built on the GPU before the first pass: the flattened lights, their
    /// selection structure, the light culling, the environment's sampling distribution.
    pub fn record_build(&self, commands: &mut CommandBuffer) -> GpuResult<()> {
        self.lights.record_flatten(commands, None)?;
        self.lights.record_build(commands, &self.scene, None)?;
        if let Some(culling) = &self.culling {
            culling.record(commands, self.accel.top_level.address(), None)?;
        }
        self.environment.record_build(commands)
    }

    /// The pass constants' scene, light, environment and camera fields.
    pub fn fill(&self, scene: &Scene, settings: &RenderSettings, constants: &mut PassConstants) {
        let meshes = &self.scene.meshes;
        constants.positions = meshes.positions.address();
        constants.indices = meshes.indices.address();
        constants.normals = meshes.normals.address();
        constants.uvs = meshes.uvs.address();
        constants.tangents = meshes.tangents.address();
        constants.second_uvs = meshes.second_uvs.as_ref().map_or(0, Buffer::address);
        constants.colors = meshes.colors.as_ref().map_or(0, Buffer::address);
        constants.instances = self.scene.instances.address();
        constants.meshes = self.scene.mesh_table.address();
        constants.materials = self.scene.materials.address();
        constants.layer_textures = self.scene.layer_textures.as_ref().map_or(0, Buffer::address);
        constants.material_count = scene.materials.len().max(1) as u32;
        constants.top_level = self.accel.top_level.address();
        if let Some(software) = &self.software {
            software.fill(constants);
        }
        (constants.scene_center, constants.scene_radius) = scene.bounding_sphere();

        let light_tables = self.lights.tables();
        constants.light_map = light_tables.map;
        constants.instance_light_offset = light_tables.instance_light_offset;
        constants.light_tree = light_tables.tree;
        constants.light_cdf = light_tables.cdf;
        constants.light_count = light_tables.count;
        constants.light_selection = light_tables.selection;
        constants.light_tree_arity = light_tables.arity;
        constants.light_bvh = light_tables.bvh;
        constants.light_bvh_leaf_of = light_tables.bvh_leaf_of;
        self.punctual.fill(constants);
        if let Some(culling) = &self.culling {
            culling.fill(constants);
        }
        let other_lights = light_tables.count + self.punctual.powered();
        self.environment.fill(constants, other_lights);

        let (camera, note) = RenderCamera::for_scene(scene, settings.width, settings.height);
        if let Some(note) = note {
            log::info!("{note}");
        }
        camera.fill(constants);
    }
}
