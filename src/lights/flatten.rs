//! Flattening: from the instances whose material emits to one array of lights, light index ->
//! its instance and its triangle's indices and material (`GpuLightEntry`), on the GPU. A kernel writes each emissive instance's triangle count,
//! the prefix sum (`primitives::scan`) turns counts into where each instance's lights end, and
//! a kernel per light finds its instance by binary search over those ends. Each instance's
//! first light index is recorded too, so a light hit by a path finds its own index directly.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult};
use crate::interface::{GpuLightEntry, LightFlattenPush, LIGHT_COUNT_GROUP, LIGHT_FLATTEN_GROUP};
use crate::primitives::{PrefixSum, ScanElement};
use crate::scene::GpuScene;

pub use crate::interface::NOT_A_LIGHT;

pub struct LightFlattening {
    emissive_instances: Buffer,
    emissive_instance_count: u32,
    light_count: u32,
    /// Per emissive instance: its triangle count, then where its lights end.
    ends: Buffer,
    scan_scratch: Buffer,
    /// Per light: its `GpuLightEntry` (instance, and its triangle's place in the mesh tables).
    pub map: Buffer,
    /// Per scene instance: its first light, or `NOT_A_LIGHT`.
    pub instance_light_offset: Buffer,
    count_triangles: ComputePipeline<LightFlattenPush>,
    flatten: ComputePipeline<LightFlattenPush>,
    scan: PrefixSum,
    max_groups_x: u32,
    instances: u64,
    meshes: u64,
}

impl LightFlattening {
    /// For the given emissive instances (scene order) whose triangles total `light_count`.
    pub fn new(
        context: &Context,
        scene: &GpuScene,
        scene_instances: u32,
        emissive_instances: &[u32],
        light_count: u32,
    ) -> GpuResult<Self> {
        let list: &[u32] = if emissive_instances.is_empty() {
            &[0]
        } else {
            emissive_instances
        };
        let entries = list.len() as u64;
        let map = Buffer::gpu_storage(
            context,
            "light map",
            u64::from(light_count.max(1)) * std::mem::size_of::<GpuLightEntry>() as u64,
        )?;
        let instance_light_offset = Buffer::from_slice(
            context,
            "instance first light",
            &vec![NOT_A_LIGHT; scene_instances.max(1) as usize],
            BufferUsage::STORAGE,
        )?;
        Ok(Self {
            emissive_instances: Buffer::from_slice(context, "emissive instances", list, BufferUsage::STORAGE)?,
            emissive_instance_count: emissive_instances.len() as u32,
            light_count,
            ends: Buffer::gpu_storage(context, "emissive instance light ends", entries * 4)?,
            scan_scratch: PrefixSum::new_scratch(context, entries)?,
            map,
            instance_light_offset,
            count_triangles: ComputePipeline::new(context, ids::LIGHTS_COUNT_TRIANGLES, &[])?,
            flatten: ComputePipeline::new(context, ids::LIGHTS_FLATTEN, &[])?,
            scan: PrefixSum::new(context, ScanElement::U32)?,
            max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
            instances: scene.instances.address(),
            meshes: scene.mesh_table.address(),
        })
    }

    pub fn light_count(&self) -> u32 {
        self.light_count
    }

    /// Records counts, scan and flattening; the map is visible to compute work after this.
    pub fn record(&self, commands: &mut CommandBuffer) -> GpuResult<()> {
        if self.light_count == 0 {
            return Ok(());
        }
        let push = LightFlattenPush {
            emissive_instances: self.emissive_instances.address(),
            instances: self.instances,
            meshes: self.meshes,
            counts: self.ends.address(),
            map: self.map.address(),
            instance_light_offset: self.instance_light_offset.address(),
            emissive_instance_count: self.emissive_instance_count,
            light_count: self.light_count,
        };
        let too_many = || GpuError::InvalidUse {
            name: "light flattening".into(),
            problem: format!("{} lights exceed the dispatch limits", self.light_count),
        };
        let count_groups = DispatchSize::covering(
            u64::from(self.emissive_instance_count.div_ceil(LIGHT_COUNT_GROUP)),
            self.max_groups_x,
        )
        .ok_or_else(too_many)?;
        commands.dispatch(&self.count_triangles, &push, count_groups);
        commands.compute_barrier();
        let entries = u64::from(self.emissive_instance_count);
        self.scan
            .record(commands, &self.ends, &self.ends, entries, &self.scan_scratch)?;
        let grid = DispatchSize::covering(
            u64::from(self.light_count.div_ceil(LIGHT_FLATTEN_GROUP)),
            self.max_groups_x,
        )
        .ok_or_else(too_many)?;
        commands.dispatch(&self.flatten, &push, grid);
        commands.compute_barrier();
        Ok(())
    }
}
