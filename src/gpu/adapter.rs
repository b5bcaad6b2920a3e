//! Physical devices: what each one can do (the capability probe), and which one we use.
//!
//! The probe reads features, properties and extensions once per device; `Capabilities`
//! is plain data, so `wavetrace info` can print it for devices we cannot use.

use std::ffi::CStr;

use ash::vk;
use serde::Serialize;

use super::error::{GpuError, GpuResult, VkResultExt};
use super::instance::{format_version, Instance, REQUIRED_API_VERSION};

/// Everything wavetrace asks of a device, as found by the probe.
#[derive(Clone, Debug, Serialize)]
pub struct Capabilities {
    pub api_version: String,
    pub acceleration_structure: bool,
    pub ray_query: bool,
    pub ray_tracing_pipeline: bool,
    pub buffer_device_address: bool,
    pub descriptor_indexing: bool,
    pub scalar_block_layout: bool,
    pub timeline_semaphore: bool,
    pub synchronization2: bool,
    pub shader_int64: bool,
    /// 64-bit integer atomics on buffers: the film's fixed-point sums.
    pub shader_buffer_int64_atomics: bool,
    /// 64-bit floats in shaders: the float splat film's sums (a 32-bit sum of millions of equal
    /// splats stops growing; docs/BDPT.md, "Why 64 bits").
    pub shader_float64: bool,
    /// 64-bit float atomic adds on buffers (VK_EXT_shader_atomic_float); without them the
    /// float splat film adds by compare-and-swap.
    pub shader_float64_atomics: bool,
    /// VK_KHR_pipeline_executable_properties: the driver reports what each kernel compiled
    /// to (`WAVETRACE_PIPELINE_STATS`).
    pub pipeline_statistics: bool,
    /// VK_NV_ray_tracing_invocation_reorder: raygen shaders may ask to regroup their threads
    /// by what they do after a trace (shader execution reordering; the H100 accepts it).
    pub invocation_reorder: bool,
    /// Whether the device says it actually regroups threads when asked
    /// (rayTracingInvocationReorderReorderingHint is REORDER); where it says NONE the calls are
    /// accepted and leave the threads where they are.
    pub invocation_reorder_regroups: bool,
    /// VK_KHR_swapchain: the device can present to a window (the viewer).
    pub swapchain: bool,
    pub subgroup_arithmetic: bool,
    pub subgroup_ballot: bool,
    /// Shuffles from any lane (the light BVH's climb merges its bottom levels with them).
    pub subgroup_shuffle: bool,
    /// Subgroup ballot and arithmetic in raygen shaders too (NVIDIA has them; lavapipe has no
    /// subgroup operations in ray-tracing stages).
    pub raygen_subgroups: bool,
    pub subgroup_size: u32,
    /// The subgroup sizes compute shaders may run with; equal on NVIDIA (32) and lavapipe (8).
    pub min_subgroup_size: u32,
    pub max_subgroup_size: u32,
    /// A compute pipeline can demand full subgroups of a given size (Vulkan 1.3
    /// subgroupSizeControl + computeFullSubgroups), which kernels whose tree arity is the
    /// subgroup size need on devices where the size varies.
    pub compute_subgroup_size_control: bool,
    pub max_compute_workgroup_size: [u32; 3],
    pub max_compute_workgroup_invocations: u32,
    pub max_compute_workgroup_count: [u32; 3],
    /// Sampled images one shader stage may see: bounds the bindless texture array.
    pub max_sampled_images: u32,
    pub max_push_constants_size: u32,
    pub timestamp_period_ns: f32,
    pub timestamp_valid_bits: u32,
    pub shader_group_handle_size: u32,
    pub max_ray_recursion_depth: u32,
    pub shader_group_handle_alignment: u32,
    pub shader_group_base_alignment: u32,
    /// minAccelerationStructureScratchOffsetAlignment.
    pub scratch_alignment: u32,
    /// The largest device-local memory heap: path slots are sized from it.
    pub device_local_bytes: u64,
    /// The largest single allocation (maxMemoryAllocationSize): no buffer may be larger.
    pub max_allocation_bytes: u64,
    /// The widest or tallest 2D image: larger textures are downscaled to fit.
    pub max_image_dimension_2d: u32,
    /// Instances a top-level acceleration structure may hold.
    pub max_instance_count: u64,
    /// Triangles all geometries of one bottom-level acceleration structure may hold.
    pub max_primitive_count: u64,
    #[serde(skip)]
    api_version_raw: u32,
    #[serde(skip)]
    pub(crate) queue_family: Option<u32>,
}

/// The three ways wavetrace can trace rays; see `src/trace/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceBackend {
    /// `rayQueryEXT` in compute shaders.
    Query,
    /// A ray-tracing pipeline (raygen over the ray queue).
    Pipeline,
    /// Our own traversal of a hierarchy built on the host (`trace::software_bvh`), in compute
    /// shaders: any device can run it, and on GPUs without ray-tracing cores (NVIDIA's H100
    /// and H200) it traces faster than the driver does (docs/BENCHMARKS.md). Not in
    /// `trace_backends`, which lists the hardware ones the device offers.
    Software,
}

impl Capabilities {
    /// What this device lacks of wavetrace's requirements, in words; empty when usable.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        let mut need = |ok: bool, what: &'static str| {
            if !ok {
                missing.push(what);
            }
        };
        need(self.api_version_raw >= REQUIRED_API_VERSION, "Vulkan 1.3");
        need(self.queue_family.is_some(), "a compute queue with timestamps");
        need(self.acceleration_structure, "VK_KHR_acceleration_structure");
        need(
            self.ray_query || self.ray_tracing_pipeline,
            "VK_KHR_ray_query or VK_KHR_ray_tracing_pipeline",
        );
        need(self.buffer_device_address, "bufferDeviceAddress");
        need(
            self.descriptor_indexing,
            "descriptor indexing (runtime arrays, non-uniform sampled images, partially bound)",
        );
        need(self.scalar_block_layout, "scalarBlockLayout");
        need(self.timeline_semaphore, "timelineSemaphore");
        need(self.synchronization2, "synchronization2");
        need(self.shader_int64, "shaderInt64");
        need(self.shader_buffer_int64_atomics, "shaderBufferInt64Atomics");
        need(self.subgroup_arithmetic, "subgroup arithmetic in compute shaders");
        need(self.subgroup_ballot, "subgroup ballot in compute shaders");
        need(self.subgroup_shuffle, "subgroup shuffle in compute shaders");
        missing
    }

    pub fn trace_backends(&self) -> Vec<TraceBackend> {
        let mut backends = Vec::new();
        if self.acceleration_structure && self.ray_query {
            backends.push(TraceBackend::Query);
        }
        if self.acceleration_structure && self.ray_tracing_pipeline {
            backends.push(TraceBackend::Pipeline);
        }
        backends
    }
}

/// One physical device and what the probe found.
#[derive(Clone, Debug, Serialize)]
pub struct Adapter {
    pub index: usize,
    pub name: String,
    pub device_type: String,
    pub driver: String,
    pub capabilities: Capabilities,
    #[serde(skip)]
    pub(crate) raw: vk::PhysicalDevice,
}

/// NVIDIA's data-centre GPUs without ray-tracing cores, by the first word of their name after
/// "NVIDIA" (up to a dash: "A100-SXM4-80GB"). Vulkan does not say whether a device traces in
/// hardware; their drivers trace in software, and wavetrace's own traversal is faster there.
const WITHOUT_RAY_TRACING_CORES: [&str; 8] = ["A100", "A800", "A30", "H100", "H800", "H200", "H20", "GH200"];

impl Adapter {
    /// Whether the device is known to have no ray-tracing cores (`WITHOUT_RAY_TRACING_CORES`).
    pub fn lacks_ray_tracing_cores(&self) -> bool {
        let model = self
            .name
            .strip_prefix("NVIDIA ")
            .and_then(|rest| rest.split_whitespace().next());
        model.is_some_and(|word| WITHOUT_RAY_TRACING_CORES.contains(&word.split('-').next().unwrap_or(word)))
    }

    /// The backend `--trace auto` takes: our own traversal where the device has no ray-tracing
    /// cores (1.5-2.3x faster renders on the H200: docs/BENCHMARKS.md), else the first of the
    /// hardware backends `enabled` (ray queries before the pipeline).
    pub fn auto_trace_backend(&self, enabled: &[TraceBackend]) -> Option<TraceBackend> {
        if self.lacks_ray_tracing_cores() {
            return Some(TraceBackend::Software);
        }
        enabled.first().copied()
    }

    fn type_rank(&self) -> u32 {
        match self.device_type.as_str() {
            "discrete" => 0,
            "integrated" => 1,
            "virtual" => 2,
            "cpu" => 3,
            _ => 4,
        }
    }
}

pub fn enumerate_adapters(instance: &Instance) -> GpuResult<Vec<Adapter>> {
    // SAFETY: plain queries on a live instance.
    let devices = unsafe { instance.raw.enumerate_physical_devices() }.vk("vkEnumeratePhysicalDevices")?;
    devices
        .into_iter()
        .enumerate()
        .map(|(index, raw)| probe(instance, index, raw))
        .collect()
}

/// Picks the device to run on: `selector` (an index, or a case-insensitive substring of the
/// name) when given, else the best-ranked usable device (discrete GPU first).
pub fn choose_adapter(mut adapters: Vec<Adapter>, selector: Option<&str>) -> GpuResult<Adapter> {
    if adapters.is_empty() {
        return Err(GpuError::NoDevice);
    }
    if let Some(selector) = selector {
        let wanted = selector.to_lowercase();
        let found = adapters
            .iter()
            .position(|a| selector.parse::<usize>().ok() == Some(a.index) || a.name.to_lowercase().contains(&wanted));
        let Some(position) = found else {
            let devices = adapters
                .iter()
                .map(|a| format!("[{}] {}", a.index, a.name))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(GpuError::NoMatchingDevice {
                selector: selector.to_string(),
                devices,
            });
        };
        let adapter = adapters.swap_remove(position);
        let missing = adapter.capabilities.missing();
        if !missing.is_empty() {
            return Err(GpuError::MissingCapabilities {
                index: adapter.index,
                name: adapter.name,
                missing: missing.join(", "),
            });
        }
        return Ok(adapter);
    }
    usable_adapters(adapters)?
        .into_iter()
        .min_by_key(|a| (a.type_rank(), a.index))
        .ok_or(GpuError::NoDevice)
}

/// The devices with everything wavetrace needs, in index order; none is an error that says
/// what each device lacks.
pub fn usable_adapters(adapters: Vec<Adapter>) -> GpuResult<Vec<Adapter>> {
    if adapters.is_empty() {
        return Err(GpuError::NoDevice);
    }
    let report = adapters
        .iter()
        .map(|a| {
            format!(
                "  [{}] {}: lacks {}",
                a.index,
                a.name,
                a.capabilities.missing().join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    let usable: Vec<Adapter> = adapters
        .into_iter()
        .filter(|a| a.capabilities.missing().is_empty())
        .collect();
    if usable.is_empty() {
        return Err(GpuError::NoCapableDevice(report));
    }
    Ok(usable)
}

fn device_type_name(kind: vk::PhysicalDeviceType) -> &'static str {
    match kind {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual",
        vk::PhysicalDeviceType::CPU => "cpu",
        _ => "other",
    }
}

fn probe(instance: &Instance, index: usize, raw: vk::PhysicalDevice) -> GpuResult<Adapter> {
    let vki = &instance.raw;
    // SAFETY: plain queries on a physical device of this instance.
    let (extensions, base_properties, families, memory) = unsafe {
        let extensions: Vec<String> = vki
            .enumerate_device_extension_properties(raw)
            .vk("vkEnumerateDeviceExtensionProperties")?
            .iter()
            .filter_map(|e| {
                e.extension_name_as_c_str()
                    .ok()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .collect();
        (
            extensions,
            vki.get_physical_device_properties(raw),
            vki.get_physical_device_queue_family_properties(raw),
            vki.get_physical_device_memory_properties(raw),
        )
    };
    let has = |name: &CStr| {
        let name = name.to_string_lossy();
        extensions.iter().any(|e| *e == name)
    };
    let api = base_properties.api_version;
    let features = query_features(vki, raw, api, &has);
    let properties = query_properties(vki, raw, api, &has);
    let limits = base_properties.limits;
    let queue_family = families
        .iter()
        .enumerate()
        .filter(|(_, f)| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.timestamp_valid_bits > 0)
        // A universal (graphics + compute) queue can also present in the viewer.
        .min_by_key(|(_, f)| !f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
        .map(|(i, _)| i as u32);
    let name = base_properties
        .device_name_as_c_str()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let subgroup_ops = properties.compute_subgroup_ops;
    let capabilities = Capabilities {
        api_version: format_version(api),
        acceleration_structure: features.acceleration_structure,
        ray_query: features.ray_query,
        ray_tracing_pipeline: features.ray_tracing_pipeline,
        buffer_device_address: features.buffer_device_address,
        descriptor_indexing: features.descriptor_indexing,
        scalar_block_layout: features.scalar_block_layout,
        timeline_semaphore: features.timeline_semaphore,
        synchronization2: features.synchronization2,
        shader_int64: features.shader_int64,
        shader_buffer_int64_atomics: features.shader_buffer_int64_atomics,
        shader_float64: features.shader_float64,
        shader_float64_atomics: features.shader_float64_atomics,
        pipeline_statistics: features.pipeline_statistics,
        invocation_reorder: features.invocation_reorder && features.ray_tracing_pipeline,
        invocation_reorder_regroups: features.invocation_reorder && properties.invocation_reorder_regroups,
        swapchain: has(ash::khr::swapchain::NAME),
        subgroup_arithmetic: subgroup_ops.contains(vk::SubgroupFeatureFlags::ARITHMETIC),
        subgroup_ballot: subgroup_ops.contains(vk::SubgroupFeatureFlags::BALLOT),
        subgroup_shuffle: subgroup_ops.contains(vk::SubgroupFeatureFlags::SHUFFLE),
        raygen_subgroups: properties.raygen_subgroups,
        subgroup_size: properties.subgroup_size,
        min_subgroup_size: properties.min_subgroup_size,
        max_subgroup_size: properties.max_subgroup_size,
        compute_subgroup_size_control: features.subgroup_size_control && properties.compute_size_control,
        max_compute_workgroup_size: limits.max_compute_work_group_size,
        max_compute_workgroup_invocations: limits.max_compute_work_group_invocations,
        max_compute_workgroup_count: limits.max_compute_work_group_count,
        max_sampled_images: sampled_image_limit(&limits),
        max_push_constants_size: limits.max_push_constants_size,
        timestamp_period_ns: limits.timestamp_period,
        timestamp_valid_bits: queue_family.map_or(0, |i| families[i as usize].timestamp_valid_bits),
        shader_group_handle_size: properties.shader_group_handle_size,
        max_ray_recursion_depth: properties.max_ray_recursion_depth,
        shader_group_handle_alignment: properties.shader_group_handle_alignment,
        shader_group_base_alignment: properties.shader_group_base_alignment,
        scratch_alignment: properties.scratch_alignment,
        max_allocation_bytes: properties.max_allocation_bytes,
        max_image_dimension_2d: limits.max_image_dimension2_d,
        max_instance_count: properties.max_instance_count,
        max_primitive_count: properties.max_primitive_count,
        device_local_bytes: memory.memory_heaps[..memory.memory_heap_count as usize]
            .iter()
            .filter(|heap| heap.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|heap| heap.size)
            .max()
            .unwrap_or(0),
        api_version_raw: api,
        queue_family,
    };
    Ok(Adapter {
        index,
        name,
        device_type: device_type_name(base_properties.device_type).to_string(),
        driver: properties.driver,
        capabilities,
        raw,
    })
}

/// The features wavetrace needs, each as one flag.
struct FeatureFlags {
    acceleration_structure: bool,
    ray_query: bool,
    ray_tracing_pipeline: bool,
    buffer_device_address: bool,
    descriptor_indexing: bool,
    scalar_block_layout: bool,
    timeline_semaphore: bool,
    synchronization2: bool,
    shader_int64: bool,
    shader_buffer_int64_atomics: bool,
    shader_float64: bool,
    shader_float64_atomics: bool,
    pipeline_statistics: bool,
    invocation_reorder: bool,
    /// Subgroup size control and full subgroups in compute.
    subgroup_size_control: bool,
}

fn query_features(vki: &ash::Instance, raw: vk::PhysicalDevice, api: u32, has: &dyn Fn(&CStr) -> bool) -> FeatureFlags {
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut accel = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default();
    let mut query = vk::PhysicalDeviceRayQueryFeaturesKHR::default();
    let mut pipeline = vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default();
    let mut float_atomics = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
    let mut executables = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let mut reorder = vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV::default();
    let mut features = vk::PhysicalDeviceFeatures2::default();
    // Chaining a struct the device does not know is invalid, so chain only what it offers.
    if api >= vk::API_VERSION_1_2 {
        features = features.push_next(&mut f12);
    }
    if api >= vk::API_VERSION_1_3 {
        features = features.push_next(&mut f13);
    }
    if has(ash::khr::acceleration_structure::NAME) {
        features = features.push_next(&mut accel);
    }
    if has(ash::khr::ray_query::NAME) {
        features = features.push_next(&mut query);
    }
    if has(ash::khr::ray_tracing_pipeline::NAME) {
        features = features.push_next(&mut pipeline);
    }
    if has(ash::ext::shader_atomic_float::NAME) {
        features = features.push_next(&mut float_atomics);
    }
    if has(ash::khr::pipeline_executable_properties::NAME) {
        features = features.push_next(&mut executables);
    }
    if has(ash::nv::ray_tracing_invocation_reorder::NAME) {
        features = features.push_next(&mut reorder);
    }
    // SAFETY: a plain query on a physical device of this instance; every struct in the
    // p_next chain lives on this stack frame until the query returns.
    unsafe { vki.get_physical_device_features2(raw, &mut features) };
    let shader_int64 = features.features.shader_int64 == vk::TRUE;
    let shader_float64 = features.features.shader_float64 == vk::TRUE;
    FeatureFlags {
        acceleration_structure: accel.acceleration_structure == vk::TRUE
            && has(ash::khr::deferred_host_operations::NAME),
        ray_query: query.ray_query == vk::TRUE,
        ray_tracing_pipeline: pipeline.ray_tracing_pipeline == vk::TRUE
            && pipeline.ray_tracing_pipeline_trace_rays_indirect == vk::TRUE,
        buffer_device_address: f12.buffer_device_address == vk::TRUE,
        descriptor_indexing: f12.descriptor_indexing == vk::TRUE
            && f12.runtime_descriptor_array == vk::TRUE
            && f12.shader_sampled_image_array_non_uniform_indexing == vk::TRUE
            && f12.descriptor_binding_partially_bound == vk::TRUE
            && f12.descriptor_binding_variable_descriptor_count == vk::TRUE,
        scalar_block_layout: f12.scalar_block_layout == vk::TRUE,
        timeline_semaphore: f12.timeline_semaphore == vk::TRUE,
        synchronization2: f13.synchronization2 == vk::TRUE,
        shader_int64,
        shader_buffer_int64_atomics: f12.shader_buffer_int64_atomics == vk::TRUE,
        shader_float64,
        shader_float64_atomics: float_atomics.shader_buffer_float64_atomic_add == vk::TRUE,
        pipeline_statistics: executables.pipeline_executable_info == vk::TRUE,
        invocation_reorder: reorder.ray_tracing_invocation_reorder == vk::TRUE,
        subgroup_size_control: f13.subgroup_size_control == vk::TRUE && f13.compute_full_subgroups == vk::TRUE,
    }
}

/// Combined image samplers one stage may see: the least of the limits that bound them.
fn sampled_image_limit(limits: &vk::PhysicalDeviceLimits) -> u32 {
    limits
        .max_per_stage_descriptor_sampled_images
        .min(limits.max_per_stage_descriptor_samplers)
        .min(limits.max_descriptor_set_sampled_images)
        .min(limits.max_descriptor_set_samplers)
        .min(limits.max_per_stage_resources)
}

/// The properties wavetrace reads beyond the core limits.
struct PropertyValues {
    /// Subgroup operations compute shaders have (none if compute has no subgroups).
    compute_subgroup_ops: vk::SubgroupFeatureFlags,
    raygen_subgroups: bool,
    subgroup_size: u32,
    min_subgroup_size: u32,
    max_subgroup_size: u32,
    /// Compute shaders may require a subgroup size.
    compute_size_control: bool,
    driver: String,
    shader_group_handle_size: u32,
    max_ray_recursion_depth: u32,
    shader_group_handle_alignment: u32,
    shader_group_base_alignment: u32,
    scratch_alignment: u32,
    max_allocation_bytes: u64,
    invocation_reorder_regroups: bool,
    max_instance_count: u64,
    max_primitive_count: u64,
}

fn query_properties(
    vki: &ash::Instance,
    raw: vk::PhysicalDevice,
    api: u32,
    has: &dyn Fn(&CStr) -> bool,
) -> PropertyValues {
    let api_1_2 = api >= vk::API_VERSION_1_2;
    let api_1_3 = api >= vk::API_VERSION_1_3;
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut rt_properties = vk::PhysicalDeviceRayTracingPipelinePropertiesKHR::default();
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut accel_properties = vk::PhysicalDeviceAccelerationStructurePropertiesKHR::default();
    let mut size_control = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut maintenance3 = vk::PhysicalDeviceMaintenance3Properties::default();
    let mut reorder = vk::PhysicalDeviceRayTracingInvocationReorderPropertiesNV::default();
    let mut properties = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut subgroup)
        .push_next(&mut maintenance3);
    if api_1_3 {
        properties = properties.push_next(&mut size_control);
    }
    if api_1_2 {
        properties = properties.push_next(&mut driver);
    }
    if has(ash::khr::ray_tracing_pipeline::NAME) {
        properties = properties.push_next(&mut rt_properties);
    }
    if has(ash::khr::acceleration_structure::NAME) {
        properties = properties.push_next(&mut accel_properties);
    }
    if has(ash::nv::ray_tracing_invocation_reorder::NAME) {
        properties = properties.push_next(&mut reorder);
    }
    // SAFETY: a plain query on a physical device of this instance; every struct in the
    // p_next chain lives on this stack frame until the query returns.
    unsafe { vki.get_physical_device_properties2(raw, &mut properties) };
    let ops = subgroup.supported_operations;
    let driver_name = if api_1_2 {
        let text = |name: Result<&CStr, _>| name.map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name = text(driver.driver_name_as_c_str());
        let info = text(driver.driver_info_as_c_str());
        format!("{name} {info}").trim().to_string()
    } else {
        String::new()
    };
    PropertyValues {
        compute_subgroup_ops: if subgroup.supported_stages.contains(vk::ShaderStageFlags::COMPUTE) {
            ops
        } else {
            vk::SubgroupFeatureFlags::empty()
        },
        raygen_subgroups: subgroup.supported_stages.contains(vk::ShaderStageFlags::RAYGEN_KHR)
            && ops.contains(vk::SubgroupFeatureFlags::BALLOT | vk::SubgroupFeatureFlags::ARITHMETIC),
        subgroup_size: subgroup.subgroup_size,
        min_subgroup_size: if api_1_3 {
            size_control.min_subgroup_size
        } else {
            subgroup.subgroup_size
        },
        max_subgroup_size: if api_1_3 {
            size_control.max_subgroup_size
        } else {
            subgroup.subgroup_size
        },
        compute_size_control: size_control
            .required_subgroup_size_stages
            .contains(vk::ShaderStageFlags::COMPUTE),
        driver: driver_name,
        shader_group_handle_size: rt_properties.shader_group_handle_size,
        max_ray_recursion_depth: rt_properties.max_ray_recursion_depth,
        shader_group_handle_alignment: rt_properties.shader_group_handle_alignment,
        shader_group_base_alignment: rt_properties.shader_group_base_alignment,
        scratch_alignment: accel_properties.min_acceleration_structure_scratch_offset_alignment,
        max_allocation_bytes: maintenance3.max_memory_allocation_size,
        invocation_reorder_regroups: reorder.ray_tracing_invocation_reorder_reordering_hint
            == vk::RayTracingInvocationReorderModeNV::REORDER,
        max_instance_count: accel_properties.max_instance_count,
        max_primitive_count: accel_properties.max_primitive_count,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capabilities(ray_query: bool, ray_tracing_pipeline: bool) -> Capabilities {
        Capabilities {
            api_version: "1.3.0".into(),
            acceleration_structure: true,
            ray_query,
            ray_tracing_pipeline,
            buffer_device_address: true,
            descriptor_indexing: true,
            scalar_block_layout: true,
            timeline_semaphore: true,
            synchronization2: true,
            shader_int64: true,
            shader_buffer_int64_atomics: true,
            shader_float64: true,
            shader_float64_atomics: false,
            pipeline_statistics: false,
            invocation_reorder: false,
            invocation_reorder_regroups: false,
            swapchain: false,
            subgroup_arithmetic: true,
            subgroup_ballot: true,
            subgroup_shuffle: true,
            raygen_subgroups: true,
            subgroup_size: 32,
            min_subgroup_size: 32,
            max_subgroup_size: 32,
            compute_subgroup_size_control: true,
            max_compute_workgroup_size: [1024, 1024, 64],
            max_compute_workgroup_invocations: 1024,
            max_compute_workgroup_count: [65535; 3],
            max_sampled_images: 1 << 20,
            max_push_constants_size: 128,
            timestamp_period_ns: 1.0,
            timestamp_valid_bits: 64,
            shader_group_handle_size: 32,
            max_ray_recursion_depth: 31,
            shader_group_handle_alignment: 32,
            shader_group_base_alignment: 64,
            scratch_alignment: 128,
            device_local_bytes: 1 << 30,
            max_allocation_bytes: 1 << 31,
            max_image_dimension_2d: 16384,
            max_instance_count: 1 << 24,
            max_primitive_count: 1 << 24,
            api_version_raw: vk::API_VERSION_1_3,
            queue_family: Some(0),
        }
    }

    fn adapter(index: usize, name: &str, device_type: &str, capabilities: Capabilities) -> Adapter {
        Adapter {
            index,
            name: name.into(),
            device_type: device_type.into(),
            driver: String::new(),
            capabilities,
            raw: vk::PhysicalDevice::null(),
        }
    }

    #[test]
    fn auto_traces_with_our_own_traversal_on_gpus_without_ray_tracing_cores() {
        let auto = |name: &str| {
            let adapter = adapter(0, name, "discrete", capabilities(false, true));
            adapter.auto_trace_backend(&adapter.capabilities.trace_backends())
        };
        for name in [
            "NVIDIA H100 80GB HBM3",
            "NVIDIA H200",
            "NVIDIA A100-SXM4-40GB",
            "NVIDIA GH200 480GB",
            "NVIDIA A30",
        ] {
            assert_eq!(auto(name), Some(TraceBackend::Software), "{name}");
        }
        for name in [
            "NVIDIA GeForce RTX 4090",
            "NVIDIA RTX A3000 Laptop GPU",
            "NVIDIA A10",
            "NVIDIA L40S",
            "AMD Radeon RX 6800",
            "llvmpipe (LLVM 15.0.6, 256 bits)",
        ] {
            assert_eq!(auto(name), Some(TraceBackend::Pipeline), "{name}");
        }
    }

    #[test]
    fn one_trace_backend_is_enough() {
        assert!(capabilities(false, true).missing().is_empty());
        assert_eq!(capabilities(false, true).trace_backends(), [TraceBackend::Pipeline]);
        assert_eq!(
            capabilities(true, true).trace_backends(),
            [TraceBackend::Query, TraceBackend::Pipeline]
        );
    }

    #[test]
    fn missing_lists_every_gap_by_name() {
        let mut caps = capabilities(false, false);
        caps.shader_int64 = false;
        caps.subgroup_shuffle = false;
        caps.api_version_raw = vk::API_VERSION_1_2;
        let missing = caps.missing();
        assert_eq!(
            missing,
            [
                "Vulkan 1.3",
                "VK_KHR_ray_query or VK_KHR_ray_tracing_pipeline",
                "shaderInt64",
                "subgroup shuffle in compute shaders"
            ],
            "{missing:?}"
        );
    }

    #[test]
    fn discrete_gpus_are_preferred_and_unusable_devices_skipped() {
        let no_rt = {
            let mut caps = capabilities(false, false);
            caps.acceleration_structure = false;
            caps
        };
        let adapters = vec![
            adapter(0, "llvmpipe", "cpu", capabilities(true, true)),
            adapter(1, "Old GPU", "discrete", no_rt.clone()),
            adapter(2, "Big GPU", "discrete", capabilities(false, true)),
        ];
        assert_eq!(choose_adapter(adapters.clone(), None).unwrap().name, "Big GPU");
        assert_eq!(choose_adapter(adapters.clone(), Some("LLVM")).unwrap().index, 0);
        let error = choose_adapter(adapters.clone(), Some("1")).unwrap_err().to_string();
        assert!(
            error.contains("Old GPU") && error.contains("VK_KHR_acceleration_structure"),
            "{error}"
        );
        let error = choose_adapter(vec![adapter(0, "Old GPU", "discrete", no_rt)], None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("no Vulkan device has what wavetrace needs") && error.contains("Old GPU"),
            "{error}"
        );
    }
}
