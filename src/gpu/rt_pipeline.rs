//! Ray-tracing pipelines: a raygen shader, miss shaders and triangle hit groups from the
//! embedded SPIR-V, with typed push constants and a shader binding table laid out to the
//! device's alignment rules.

use std::marker::PhantomData;
use std::sync::Arc;

use ash::vk;
use bytemuck::Pod;

use super::buffer::{Buffer, BufferUsage, MemoryLocation};
use super::commands::CommandBuffer;
use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::pipeline::{pipeline_layout, specialization_parts, ShaderModule, SpecializationConstant};
use super::pipeline_statistics;
use super::shaders::{ShaderId, ShaderStage};

/// The shaders of one pipeline. Hit groups are triangle groups with a closest-hit shader,
/// and all share `any_hit` if there is one. Every stage gets `specialization`.
pub struct RayTracingShaders<'a> {
    pub raygen: ShaderId,
    pub miss: &'a [ShaderId],
    pub closest_hit: &'a [ShaderId],
    pub any_hit: Option<ShaderId>,
    pub specialization: &'a [SpecializationConstant],
}

const PUSH_STAGES: vk::ShaderStageFlags = vk::ShaderStageFlags::from_raw(
    vk::ShaderStageFlags::RAYGEN_KHR.as_raw()
        | vk::ShaderStageFlags::MISS_KHR.as_raw()
        | vk::ShaderStageFlags::CLOSEST_HIT_KHR.as_raw()
        | vk::ShaderStageFlags::ANY_HIT_KHR.as_raw(),
);

pub struct RayTracingPipeline<P: Pod> {
    shared: Arc<Shared>,
    name: String,
    raw: vk::Pipeline,
    layout: vk::PipelineLayout,
    _table: Buffer,
    raygen: vk::StridedDeviceAddressRegionKHR,
    miss: vk::StridedDeviceAddressRegionKHR,
    hit: vk::StridedDeviceAddressRegionKHR,
    _push: PhantomData<P>,
}

fn align(value: u64, alignment: u64) -> u64 {
    value.div_ceil(alignment.max(1)) * alignment.max(1)
}

impl<P: Pod> RayTracingPipeline<P> {
    pub fn new(context: &Context, name: &str, shaders: &RayTracingShaders) -> GpuResult<Self> {
        let shared = &context.shared;
        let loader = shared.ray_tracing_pipeline().ok_or_else(|| GpuError::InvalidUse {
            name: name.into(),
            problem: "this device has no ray-tracing pipelines".into(),
        })?;
        let push_size = std::mem::size_of::<P>() as u32;
        if push_size % 4 != 0 || push_size > shared.adapter.capabilities.max_push_constants_size || push_size == 0 {
            return Err(GpuError::InvalidUse {
                name: name.into(),
                problem: format!("push constants of {push_size} bytes"),
            });
        }
        let stages = ordered_stages(shaders);
        let groups = shader_groups(&stages);
        let layout = pipeline_layout(shared, PUSH_STAGES, push_size)?;
        let raw = match create_pipeline(shared, loader, &stages, &groups, layout, shaders.specialization) {
            Ok(raw) => raw,
            Err(error) => {
                // SAFETY: the layout is unused.
                unsafe { shared.device.destroy_pipeline_layout(layout, None) };
                return Err(error);
            }
        };
        shared.set_name(raw, name);
        shared.set_name(layout, name);
        pipeline_statistics::log_statistics(shared, raw, name);
        pipeline_statistics::log_ray_tracing_stacks(shared, loader, raw, name, &groups);
        // From here on, `pipeline_guard` frees both if the table cannot be made.
        let pipeline_guard = PipelineGuard { shared, raw, layout };
        let table = BindingTable::new(context, loader, raw, shaders, groups.len(), name)?;
        std::mem::forget(pipeline_guard);
        Ok(Self {
            shared: Arc::clone(shared),
            name: name.to_string(),
            raw,
            layout,
            raygen: table.raygen,
            miss: table.miss,
            hit: table.hit,
            _table: table.buffer,
            _push: PhantomData,
        })
    }
}

/// The pipeline's stages: raygen, the miss shaders, the closest-hit shaders, then the any-hit
/// shader last, so that group indices stay those of the stages before it.
fn ordered_stages(shaders: &RayTracingShaders) -> Vec<(ShaderId, ShaderStage)> {
    let mut stages = vec![(shaders.raygen, ShaderStage::RayGeneration)];
    stages.extend(shaders.miss.iter().map(|&s| (s, ShaderStage::Miss)));
    stages.extend(shaders.closest_hit.iter().map(|&s| (s, ShaderStage::ClosestHit)));
    stages.extend(shaders.any_hit.iter().map(|&s| (s, ShaderStage::AnyHit)));
    stages
}

/// A general group per raygen and miss stage, a triangle hit group per closest-hit stage with
/// the any-hit stage (if any) in every hit group.
fn shader_groups(stages: &[(ShaderId, ShaderStage)]) -> Vec<vk::RayTracingShaderGroupCreateInfoKHR<'static>> {
    let any_hit_stage = stages
        .iter()
        .position(|&(_, stage)| stage == ShaderStage::AnyHit)
        .map_or(vk::SHADER_UNUSED_KHR, |i| i as u32);
    stages
        .iter()
        .enumerate()
        .filter(|&(_, &(_, stage))| stage != ShaderStage::AnyHit)
        .map(|(i, &(_, stage))| {
            let group = vk::RayTracingShaderGroupCreateInfoKHR::default()
                .general_shader(vk::SHADER_UNUSED_KHR)
                .closest_hit_shader(vk::SHADER_UNUSED_KHR)
                .any_hit_shader(vk::SHADER_UNUSED_KHR)
                .intersection_shader(vk::SHADER_UNUSED_KHR);
            if stage == ShaderStage::ClosestHit {
                group
                    .ty(vk::RayTracingShaderGroupTypeKHR::TRIANGLES_HIT_GROUP)
                    .closest_hit_shader(i as u32)
                    .any_hit_shader(any_hit_stage)
            } else {
                group
                    .ty(vk::RayTracingShaderGroupTypeKHR::GENERAL)
                    .general_shader(i as u32)
            }
        })
        .collect()
}

/// The pipeline from its stages' modules (made and destroyed here) and groups.
fn create_pipeline(
    shared: &Shared,
    loader: &ash::khr::ray_tracing_pipeline::Device,
    stages: &[(ShaderId, ShaderStage)],
    groups: &[vk::RayTracingShaderGroupCreateInfoKHR<'_>],
    layout: vk::PipelineLayout,
    specialization: &[SpecializationConstant],
) -> GpuResult<vk::Pipeline> {
    let (entries, values) = specialization_parts(specialization);
    let specialization_info = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(bytemuck::cast_slice(&values));
    let mut modules = Vec::new();
    for &(id, expected) in stages {
        let embedded = id.get();
        if embedded.stage != expected {
            return Err(GpuError::InvalidUse {
                name: embedded.name.into(),
                problem: format!("is a {:?} shader, used as {expected:?}", embedded.stage),
            });
        }
        modules.push(ShaderModule::new(shared, id)?);
    }
    let stage_infos: Vec<_> = stages
        .iter()
        .zip(&modules)
        .map(|(&(_, stage), module)| {
            let flags = match stage {
                ShaderStage::RayGeneration => vk::ShaderStageFlags::RAYGEN_KHR,
                ShaderStage::Miss => vk::ShaderStageFlags::MISS_KHR,
                ShaderStage::AnyHit => vk::ShaderStageFlags::ANY_HIT_KHR,
                _ => vk::ShaderStageFlags::CLOSEST_HIT_KHR,
            };
            vk::PipelineShaderStageCreateInfo::default()
                .stage(flags)
                .module(module.raw)
                .name(c"main")
                .specialization_info(&specialization_info)
        })
        .collect();
    // Paths are traced iteratively by raygen: no shader calls traceRayEXT recursively.
    let info = vk::RayTracingPipelineCreateInfoKHR::default()
        .flags(pipeline_statistics::capture_flags(shared))
        .stages(&stage_infos)
        .groups(groups)
        .max_pipeline_ray_recursion_depth(1)
        .layout(layout);
    // SAFETY: modules and layout are alive; all pointers live until the call returns.
    let created = unsafe {
        loader.create_ray_tracing_pipelines(
            vk::DeferredOperationKHR::null(),
            vk::PipelineCache::null(),
            &[info],
            None,
        )
    };
    created
        .map(|pipelines| pipelines[0])
        .map_err(|(_, result)| GpuError::Vulkan {
            call: "vkCreateRayTracingPipelinesKHR",
            result,
        })
}

/// The shader binding table: the raygen record, then the miss records, then the hit
/// records, each region starting at the device's base alignment.
struct BindingTable {
    buffer: Buffer,
    raygen: vk::StridedDeviceAddressRegionKHR,
    miss: vk::StridedDeviceAddressRegionKHR,
    hit: vk::StridedDeviceAddressRegionKHR,
}

impl BindingTable {
    fn new(
        context: &Context,
        loader: &ash::khr::ray_tracing_pipeline::Device,
        pipeline: vk::Pipeline,
        shaders: &RayTracingShaders,
        group_count: usize,
        name: &str,
    ) -> GpuResult<Self> {
        let caps = &context.shared.adapter.capabilities;
        let handle_size = u64::from(caps.shader_group_handle_size);
        let handle_stride = align(handle_size, u64::from(caps.shader_group_handle_alignment));
        let base = u64::from(caps.shader_group_base_alignment).max(1);
        let raygen_size = align(handle_stride, base);
        let miss_size = align(handle_stride * shaders.miss.len() as u64, base);
        let hit_size = align(handle_stride * shaders.closest_hit.len() as u64, base);
        // SAFETY: the pipeline was created with `group_count` groups.
        let handles = unsafe {
            loader.get_ray_tracing_shader_group_handles(
                pipeline,
                0,
                group_count as u32,
                (handle_size as usize) * group_count,
            )
        }
        .vk("vkGetRayTracingShaderGroupHandlesKHR")?;
        let mut table_bytes = vec![0u8; (raygen_size + miss_size + hit_size) as usize];
        let handle = |g: usize| &handles[g * handle_size as usize..(g + 1) * handle_size as usize];
        let mut place = |offset: u64, group: usize| {
            table_bytes[offset as usize..(offset + handle_size) as usize].copy_from_slice(handle(group));
        };
        place(0, 0);
        for m in 0..shaders.miss.len() {
            place(raygen_size + m as u64 * handle_stride, 1 + m);
        }
        for h in 0..shaders.closest_hit.len() {
            place(
                raygen_size + miss_size + h as u64 * handle_stride,
                1 + shaders.miss.len() + h,
            );
        }
        let usage = BufferUsage {
            shader_binding_table: true,
            ..BufferUsage::STORAGE
        };
        // Extra room so the table's start can be moved up to the base alignment.
        let mut buffer = Buffer::new(
            context,
            &format!("{name} shader binding table"),
            table_bytes.len() as u64 + base,
            usage,
            MemoryLocation::CpuToGpu,
        )?;
        let start = align(buffer.address(), base) - buffer.address();
        buffer.write(start, &table_bytes)?;
        let address = buffer.address() + start;
        let region = |offset: u64, stride: u64, size: u64| vk::StridedDeviceAddressRegionKHR {
            device_address: if size == 0 { 0 } else { address + offset },
            stride,
            size,
        };
        Ok(Self {
            raygen: region(0, raygen_size, raygen_size),
            miss: region(raygen_size, handle_stride, miss_size),
            hit: region(raygen_size + miss_size, handle_stride, hit_size),
            buffer,
        })
    }
}

struct PipelineGuard<'a> {
    shared: &'a Shared,
    raw: vk::Pipeline,
    layout: vk::PipelineLayout,
}

impl Drop for PipelineGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: reached only on an error path, before the pipeline was ever used.
        unsafe {
            self.shared.device.destroy_pipeline(self.raw, None);
            self.shared.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}

impl<P: Pod> Drop for RayTracingPipeline<P> {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        // SAFETY: owners wait for the command buffers that use a pipeline before dropping it.
        unsafe {
            self.shared.device.destroy_pipeline(self.raw, None);
            self.shared.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}

impl CommandBuffer {
    /// Orders compute, transfer and ray-tracing shader work both ways (writes before, reads
    /// and indirect launches after), for passes that mix the two kinds of kernel. Only valid
    /// on devices with ray-tracing pipelines.
    pub fn ray_tracing_barrier(&mut self) {
        self.chain_barrier(
            vk::PipelineStageFlags2::COMPUTE_SHADER
                | vk::PipelineStageFlags2::ALL_TRANSFER
                | vk::PipelineStageFlags2::RAY_TRACING_SHADER_KHR,
        );
    }

    fn bind_ray_tracing<P: Pod>(&mut self, pipeline: &RayTracingPipeline<P>, push: &P) {
        self.note_kernel(&pipeline.name);
        // SAFETY: recording state is upheld by the caller; the push range covers P.
        unsafe {
            self.raw_device()
                .cmd_bind_pipeline(self.raw, vk::PipelineBindPoint::RAY_TRACING_KHR, pipeline.raw);
            self.bind_textures(vk::PipelineBindPoint::RAY_TRACING_KHR, pipeline.layout);
            self.raw_device()
                .cmd_push_constants(self.raw, pipeline.layout, PUSH_STAGES, 0, bytemuck::bytes_of(push));
        }
    }

    /// Launches `width` x `height` raygen invocations.
    pub fn trace_rays<P: Pod>(&mut self, pipeline: &RayTracingPipeline<P>, push: &P, width: u32, height: u32) {
        self.trace_rays_layers(pipeline, push, width, height, 1);
    }

    /// As `trace_rays`, `layers` times over (`gl_LaunchIDEXT.z`).
    pub fn trace_rays_layers<P: Pod>(
        &mut self,
        pipeline: &RayTracingPipeline<P>,
        push: &P,
        width: u32,
        height: u32,
        layers: u32,
    ) {
        if width == 0 || height == 0 || layers == 0 {
            return;
        }
        self.bind_ray_tracing(pipeline, push);
        let loader = self.shared_ray_tracing();
        let callable = vk::StridedDeviceAddressRegionKHR::default();
        // SAFETY: the table regions point into the pipeline's live table buffer.
        unsafe {
            loader.cmd_trace_rays(
                self.raw,
                &pipeline.raygen,
                &pipeline.miss,
                &pipeline.hit,
                &callable,
                width,
                height,
                layers,
            )
        };
    }

    /// Launches as many raygen invocations as the GPU wrote to `args` at `offset`
    /// (`VkTraceRaysIndirectCommandKHR`: width, height, depth), so counts stay on the GPU.
    pub fn trace_rays_indirect<P: Pod>(
        &mut self,
        pipeline: &RayTracingPipeline<P>,
        push: &P,
        args: &Buffer,
        offset: u64,
    ) {
        self.bind_ray_tracing(pipeline, push);
        let loader = self.shared_ray_tracing();
        let callable = vk::StridedDeviceAddressRegionKHR::default();
        // SAFETY: as in trace_rays; `args` must have INDIRECT usage, which validation checks.
        unsafe {
            loader.cmd_trace_rays_indirect(
                self.raw,
                &pipeline.raygen,
                &pipeline.miss,
                &pipeline.hit,
                &callable,
                args.address() + offset,
            )
        };
    }
}
