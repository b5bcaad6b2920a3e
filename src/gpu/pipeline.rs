//! Compute pipelines from embedded SPIR-V, with typed push constants and specialization
//! constants (positional: ids 0, 1, … in the order given; or by id).

use std::marker::PhantomData;
use std::sync::Arc;

use ash::vk;
use bytemuck::Pod;

use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::pipeline_statistics;
use super::shaders::{ShaderId, ShaderStage};

/// A 32-bit specialization constant by its `constant_id`. A pipeline may be given constants
/// its shaders do not declare: Vulkan ignores those, so one list can serve every kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecializationConstant {
    pub id: u32,
    pub value: u32,
}

/// Positional constants as constants by id.
fn positional(values: &[u32]) -> Vec<SpecializationConstant> {
    (0..)
        .zip(values)
        .map(|(id, &value)| SpecializationConstant { id, value })
        .collect()
}

/// The `vk::SpecializationInfo` parts of `constants`: map entries and their data.
pub(crate) fn specialization_parts(
    constants: &[SpecializationConstant],
) -> (Vec<vk::SpecializationMapEntry>, Vec<u32>) {
    let entries = (0..)
        .zip(constants)
        .map(|(index, constant): (u32, _)| vk::SpecializationMapEntry {
            constant_id: constant.id,
            offset: index * 4,
            size: 4,
        })
        .collect();
    (entries, constants.iter().map(|c| c.value).collect())
}

/// A compute pipeline whose push constants are a `P` (one of `crate::shader_interface`'s
/// structs), so a dispatch cannot pass the wrong block.
pub struct ComputePipeline<P: Pod> {
    shared: Arc<Shared>,
    pub(crate) raw: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    kernel: &'static str,
    _push: PhantomData<P>,
}

impl<P: Pod> ComputePipeline<P> {
    pub fn new(context: &Context, shader: ShaderId, specialization: &[u32]) -> GpuResult<Self> {
        Self::create(context, shader, &positional(specialization), false)
    }

    /// A pipeline with specialization constants by id.
    pub fn specialised(context: &Context, shader: ShaderId, constants: &[SpecializationConstant]) -> GpuResult<Self> {
        Self::create(context, shader, constants, false)
    }

    /// A pipeline whose subgroups are all full and of the device's `subgroup_size`, for
    /// kernels that build trees with the subgroup size as arity. Its workgroup width must be a
    /// multiple of that size.
    pub fn with_full_subgroups(context: &Context, shader: ShaderId, specialization: &[u32]) -> GpuResult<Self> {
        Self::create(context, shader, &positional(specialization), true)
    }

    fn create(
        context: &Context,
        shader: ShaderId,
        specialization: &[SpecializationConstant],
        full_subgroups: bool,
    ) -> GpuResult<Self> {
        let shared = &context.shared;
        let embedded = shader.get();
        let kernel = embedded.kernel;
        let invalid = |problem: String| GpuError::InvalidUse {
            name: embedded.name.to_string(),
            problem,
        };
        if embedded.stage != ShaderStage::Compute {
            return Err(invalid(format!(
                "is a {:?} shader, not a compute shader",
                embedded.stage
            )));
        }
        let push_size = std::mem::size_of::<P>() as u32;
        let max_push = shared.adapter.capabilities.max_push_constants_size;
        if push_size % 4 != 0 || push_size > max_push {
            return Err(invalid(format!(
                "push constants of {push_size} bytes (must be a multiple of 4 and at most {max_push})"
            )));
        }

        let capabilities = &shared.adapter.capabilities;
        // Where the size cannot vary, full subgroups of that size come with any workgroup
        // width that is a multiple of it; only devices with varying sizes need the request.
        let size_varies = capabilities.min_subgroup_size != capabilities.max_subgroup_size;
        let request_size = full_subgroups && size_varies;
        if request_size && !capabilities.compute_subgroup_size_control {
            return Err(invalid(format!(
                "needs full subgroups of {} lanes, and this device's subgroup size varies ({} to {}) without subgroup size control",
                capabilities.subgroup_size, capabilities.min_subgroup_size, capabilities.max_subgroup_size
            )));
        }

        let module = ShaderModule::new(shared, shader)?;
        let layout = pipeline_layout(shared, vk::ShaderStageFlags::COMPUTE, push_size)?;
        let raw = match create_compute_pipeline(shared, &module, layout, specialization, request_size) {
            Ok(raw) => raw,
            Err(error) => {
                // SAFETY: the layout is unused.
                unsafe { shared.device.destroy_pipeline_layout(layout, None) };
                return Err(error);
            }
        };
        shared.set_name(raw, kernel);
        shared.set_name(layout, kernel);
        pipeline_statistics::log_statistics(shared, raw, kernel);
        Ok(Self {
            shared: Arc::clone(shared),
            raw,
            layout,
            kernel,
            _push: PhantomData,
        })
    }

    /// The kernel's name, as shown in profiles and debuggers.
    pub fn kernel(&self) -> &'static str {
        self.kernel
    }
}

impl<P: Pod> Drop for ComputePipeline<P> {
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

/// A shader module that lives while a pipeline is created from it: a pipeline keeps what it
/// needs of its modules, so they are destroyed (on drop) right after.
pub(crate) struct ShaderModule<'a> {
    shared: &'a Shared,
    pub(crate) raw: vk::ShaderModule,
}

impl<'a> ShaderModule<'a> {
    pub(crate) fn new(shared: &'a Shared, shader: ShaderId) -> GpuResult<Self> {
        let words = shader.get().words();
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        // SAFETY: the words are SPIR-V that build.rs produced with shaderc.
        let raw = unsafe { shared.device.create_shader_module(&info, None) }.vk("vkCreateShaderModule")?;
        Ok(Self { shared, raw })
    }
}

impl Drop for ShaderModule<'_> {
    fn drop(&mut self) {
        // SAFETY: modules are only used while pipelines are created from them.
        unsafe { self.shared.device.destroy_shader_module(self.raw, None) };
    }
}

/// A pipeline layout: the bindless texture array as set 0 (every layout has it, so one
/// binding serves every pipeline) and one push-constant range of `push_size` bytes for
/// `stages` (none when the size is 0).
pub(crate) fn pipeline_layout(
    shared: &Shared,
    stages: vk::ShaderStageFlags,
    push_size: u32,
) -> GpuResult<vk::PipelineLayout> {
    let push_ranges = [vk::PushConstantRange::default()
        .stage_flags(stages)
        .offset(0)
        .size(push_size)];
    let set_layouts = [shared.texture_layout];
    let layout_info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(&set_layouts)
        .push_constant_ranges(if push_size > 0 { &push_ranges[..] } else { &[] });
    // SAFETY: plain object creation on the live device.
    unsafe { shared.device.create_pipeline_layout(&layout_info, None) }.vk("vkCreatePipelineLayout")
}

/// The pipeline of one compute module with specialization `constants`, with full subgroups
/// of the device's size where `full_subgroups`.
fn create_compute_pipeline(
    shared: &Shared,
    module: &ShaderModule<'_>,
    layout: vk::PipelineLayout,
    constants: &[SpecializationConstant],
    full_subgroups: bool,
) -> GpuResult<vk::Pipeline> {
    let (entries, values) = specialization_parts(constants);
    let specialization_info = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(bytemuck::cast_slice(&values));
    let mut required_size = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
        .required_subgroup_size(shared.adapter.capabilities.subgroup_size);
    let mut stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module.raw)
        .name(c"main")
        .specialization_info(&specialization_info);
    if full_subgroups {
        stage = stage
            .flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS)
            .push_next(&mut required_size);
    }
    let info = vk::ComputePipelineCreateInfo::default()
        .flags(pipeline_statistics::capture_flags(shared))
        .stage(stage)
        .layout(layout);
    // SAFETY: module and layout are alive; all pointers live until the call returns.
    let created = unsafe {
        shared
            .device
            .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
    };
    created
        .map(|pipelines| pipelines[0])
        .map_err(|(_, result)| GpuError::Vulkan {
            call: "vkCreateComputePipelines",
            result,
        })
}
