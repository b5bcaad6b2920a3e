//! The logical device and everything shared by the objects made from it: the queue, the
//! memory allocator, the extension loaders and the timeline semaphore that orders submits.
//!
//! `Context` is a cheap handle (an `Arc`); buffers, pipelines and command buffers keep one,
//! so the device outlives every object made from it and is destroyed last.

use std::ffi::CStr;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use super::adapter::{choose_adapter, enumerate_adapters, usable_adapters, Adapter, TraceBackend};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::instance::{Instance, MessageCounts, Validation};

/// The most textures a scene may have: the bound of the bindless array that is set 0 of every
/// pipeline layout (devices may allow fewer: `Shared::max_textures`).
pub const MAX_TEXTURES: u32 = 1 << 16;

/// How to open a device.
#[derive(Clone, Debug)]
pub struct ContextDesc {
    pub validation: Validation,
    /// Index or name substring; `None` reads `WAVETRACE_DEVICE`, then picks the best device.
    pub device: Option<String>,
    /// How long a GPU wait may take before it is a hang; `None` reads
    /// `WAVETRACE_GPU_TIMEOUT_S` (default 120 s).
    pub gpu_timeout: Option<Duration>,
    /// The display of the windows the context will present to (the viewer); `None`: it
    /// renders off screen only.
    pub presentation: Option<raw_window_handle::RawDisplayHandle>,
}

impl Default for ContextDesc {
    fn default() -> Self {
        Self {
            validation: Validation::FromEnv,
            device: None,
            gpu_timeout: None,
            presentation: None,
        }
    }
}

#[derive(Clone)]
pub struct Context {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) device: ash::Device,
    pub(crate) adapter: Adapter,
    queue: Mutex<vk::Queue>,
    pub(crate) queue_family: u32,
    allocator: ManuallyDrop<Mutex<Allocator>>,
    pub(crate) debug_utils: Option<ash::ext::debug_utils::Device>,
    acceleration_structure: ash::khr::acceleration_structure::Device,
    ray_tracing_pipeline: Option<ash::khr::ray_tracing_pipeline::Device>,
    /// Present when pipeline statistics were asked for and the driver has them.
    pub(crate) pipeline_statistics: Option<ash::khr::pipeline_executable_properties::Device>,
    timeline: vk::Semaphore,
    /// Set 0 of every pipeline layout: the bindless texture array (`gpu::textures`).
    pub(crate) texture_layout: vk::DescriptorSetLayout,
    pub(crate) max_textures: u32,
    last_submitted: AtomicU64,
    timeout: Duration,
    /// A wait timed out or the device was lost: teardown must not wait for the GPU again.
    hung: AtomicBool,
    backends: Vec<TraceBackend>,
    // Declared last: dropped after the device (fields drop in order, after Drop::drop).
    pub(crate) instance: ManuallyDrop<Instance>,
}

/// A point on the context's timeline; waiting on it waits for one submission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SubmitTicket(pub(crate) u64);

impl Context {
    pub fn new(desc: &ContextDesc) -> GpuResult<Self> {
        let timeout = match desc.gpu_timeout {
            Some(timeout) => timeout,
            None => gpu_timeout()?,
        };
        let instance = Instance::with_presentation(desc.validation, desc.presentation)?;
        // A list (`0,1`, `all`) is for renders over several devices; one context takes its first.
        let selector = desc
            .device
            .clone()
            .or_else(|| std::env::var("WAVETRACE_DEVICE").ok())
            .and_then(|s| s.split(',').map(str::trim).find(|s| !s.is_empty()).map(str::to_string))
            .filter(|s| s != "all");
        let adapter = choose_adapter(enumerate_adapters(&instance)?, selector.as_deref())?;
        log::info!("using device [{}] {} ({})", adapter.index, adapter.name, adapter.driver);
        let presents = desc.presentation.is_some();
        if presents && !adapter.capabilities.swapchain {
            return Err(GpuError::Presentation(format!(
                "device [{}] {} has no VK_KHR_swapchain",
                adapter.index, adapter.name
            )));
        }
        Self::open(instance, adapter, timeout, presents)
    }

    /// One context a device of `selection`: `all` (every device with what wavetrace needs, in
    /// index order) or a comma-separated list of indices or name parts, as `WAVETRACE_DEVICE`
    /// takes one.
    pub fn open_each(desc: &ContextDesc, selection: &str) -> GpuResult<Vec<Self>> {
        let selectors: Vec<String> = if selection.trim() == "all" {
            let instance = Instance::with_presentation(desc.validation, None)?;
            usable_adapters(enumerate_adapters(&instance)?)?
                .iter()
                .map(|a| a.index.to_string())
                .collect()
        } else {
            selection.split(',').map(|s| s.trim().to_string()).collect()
        };
        if let Some(empty) = selectors.iter().position(String::is_empty) {
            return Err(GpuError::NoMatchingDevice {
                selector: selection.to_string(),
                devices: format!("entry {} of the list is empty", empty + 1),
            });
        }
        selectors
            .into_iter()
            .map(|device| {
                Self::new(&ContextDesc {
                    device: Some(device),
                    ..desc.clone()
                })
            })
            .collect()
    }

    fn open(instance: Instance, adapter: Adapter, timeout: Duration, presents: bool) -> GpuResult<Self> {
        let queue_family = adapter
            .capabilities
            .queue_family
            .expect("choose_adapter only returns devices with a compute queue");
        let backends = adapter.capabilities.trace_backends();
        let has_pipeline = backends.contains(&TraceBackend::Pipeline);
        let statistics = pipeline_statistics_requested();
        if statistics && !adapter.capabilities.pipeline_statistics {
            log::warn!(
                "WAVETRACE_PIPELINE_STATS: {} reports no pipeline statistics",
                adapter.name
            );
        }
        let statistics = statistics && adapter.capabilities.pipeline_statistics;
        let device = create_device(&instance, &adapter, &backends, queue_family, statistics, presents)?;
        // SAFETY: the family and index were requested in create_info.
        let queue = unsafe { device.get_device_queue(queue_family, 0) };

        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.raw.clone(),
            device: device.clone(),
            physical_device: adapter.raw,
            debug_settings: Default::default(),
            buffer_device_address: true,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| GpuError::OutOfMemory {
            name: "allocator".into(),
            bytes: 0,
            reason: e.to_string(),
        })?;

        let mut timeline_info = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let semaphore_info = vk::SemaphoreCreateInfo::default().push_next(&mut timeline_info);
        // SAFETY: a plain object creation on the live device.
        let timeline = unsafe { device.create_semaphore(&semaphore_info, None) }.vk("vkCreateSemaphore")?;

        let max_textures = adapter.capabilities.max_sampled_images.clamp(1, MAX_TEXTURES);
        let texture_layout = create_texture_layout(&device, max_textures)?;

        let debug_utils = instance
            .debug_utils
            .as_ref()
            .map(|_| ash::ext::debug_utils::Device::new(&instance.raw, &device));
        let acceleration_structure = ash::khr::acceleration_structure::Device::new(&instance.raw, &device);
        let ray_tracing_pipeline =
            has_pipeline.then(|| ash::khr::ray_tracing_pipeline::Device::new(&instance.raw, &device));
        let pipeline_statistics =
            statistics.then(|| ash::khr::pipeline_executable_properties::Device::new(&instance.raw, &device));

        let shared = Shared {
            device,
            adapter,
            queue: Mutex::new(queue),
            queue_family,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            debug_utils,
            acceleration_structure,
            ray_tracing_pipeline,
            pipeline_statistics,
            timeline,
            texture_layout,
            max_textures,
            last_submitted: AtomicU64::new(0),
            hung: AtomicBool::new(false),
            timeout,
            backends,
            instance: ManuallyDrop::new(instance),
        };
        let context = Self {
            shared: Arc::new(shared),
        };
        context.set_name(timeline, "timeline");
        Ok(context)
    }

    pub fn adapter(&self) -> &Adapter {
        &self.shared.adapter
    }

    /// The trace backends this context enabled, in order of preference for `auto`.
    pub fn trace_backends(&self) -> &[TraceBackend] {
        &self.shared.backends
    }

    pub fn subgroup_size(&self) -> u32 {
        self.shared.adapter.capabilities.subgroup_size
    }

    pub fn validation_enabled(&self) -> bool {
        self.shared.instance.validation_enabled()
    }

    /// Validation message counts; the returned handle stays valid after the context is dropped.
    pub fn message_counts(&self) -> Arc<MessageCounts> {
        self.shared.instance.message_counts()
    }

    /// The wait limit after which a submission counts as a GPU hang.
    pub fn timeout(&self) -> Duration {
        self.shared.timeout
    }

    /// Gives a Vulkan object a debug name, shown by validation messages, RenderDoc and Nsight.
    pub(crate) fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        self.shared.set_name(handle, name);
    }

    /// Submits recorded command buffers; returns the ticket to wait on.
    pub(crate) fn submit_raw(&self, command_buffers: &[vk::CommandBuffer], what: &str) -> GpuResult<SubmitTicket> {
        self.submit_raw_with(command_buffers, &[], &[], what)
    }

    /// `submit_raw` that also waits for binary semaphores (each before its stages) and
    /// signals others: a swapchain image's acquisition and presentation.
    pub(crate) fn submit_raw_with(
        &self,
        command_buffers: &[vk::CommandBuffer],
        waits: &[(vk::Semaphore, vk::PipelineStageFlags2)],
        signals: &[vk::Semaphore],
        what: &str,
    ) -> GpuResult<SubmitTicket> {
        let shared = &self.shared;
        let queue = shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        // The value is taken under the queue lock so that signals reach the queue in order.
        let value = shared.last_submitted.load(Ordering::Acquire) + 1;
        let command_infos: Vec<_> = command_buffers
            .iter()
            .map(|&cb| vk::CommandBufferSubmitInfo::default().command_buffer(cb))
            .collect();
        let mut signal = vec![vk::SemaphoreSubmitInfo::default()
            .semaphore(shared.timeline)
            .value(value)
            .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
        signal.extend(signals.iter().map(|&semaphore| {
            vk::SemaphoreSubmitInfo::default()
                .semaphore(semaphore)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        }));
        let wait: Vec<_> = waits
            .iter()
            .map(|&(semaphore, stages)| {
                vk::SemaphoreSubmitInfo::default()
                    .semaphore(semaphore)
                    .stage_mask(stages)
            })
            .collect();
        let submit = vk::SubmitInfo2::default()
            .command_buffer_infos(&command_infos)
            .wait_semaphore_infos(&wait)
            .signal_semaphore_infos(&signal);
        // SAFETY: the queue is externally synchronised by the mutex; the command buffers are
        // in the executable state (guaranteed by CommandBuffer) and outlive their execution
        // because their owners wait on the ticket before freeing them.
        unsafe { shared.device.queue_submit2(*queue, &[submit], vk::Fence::null()) }.map_err(|result| {
            if result == vk::Result::ERROR_DEVICE_LOST {
                GpuError::DeviceLost(what.to_string())
            } else {
                GpuError::Vulkan {
                    call: "vkQueueSubmit2",
                    result,
                }
            }
        })?;
        shared.last_submitted.store(value, Ordering::Release);
        Ok(SubmitTicket(value))
    }

    /// Waits until the queue is idle, presentation included. A semaphore that a present waited
    /// on is free to destroy only then: the submissions' timeline says nothing of the presents
    /// that followed them (the validation layer caught a window's swapchain semaphore destroyed
    /// while in use, under load). Call after `wait_for_all`, which bounds the wait by the hang
    /// timeout; what is left is the last present.
    pub(crate) fn wait_queue_idle(&self) -> GpuResult<()> {
        let queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: the queue is externally synchronised by the mutex.
        unsafe { self.shared.device.queue_wait_idle(*queue) }.vk("vkQueueWaitIdle")
    }

    /// Presents swapchain image `index` once `wait` is signalled, on the queue the renders use;
    /// returns whether the swapchain no longer matches the surface (resized: make it again).
    pub(crate) fn present(
        &self,
        loader: &ash::khr::swapchain::Device,
        swapchain: vk::SwapchainKHR,
        index: u32,
        wait: vk::Semaphore,
    ) -> GpuResult<bool> {
        let queue = self.shared.queue.lock().unwrap_or_else(|e| e.into_inner());
        let swapchains = [swapchain];
        let indices = [index];
        let waits = [wait];
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the queue is externally synchronised by the mutex; the swapchain and the
        // semaphore belong to this device and outlive the call.
        match unsafe { loader.queue_present(*queue, &info) } {
            Ok(suboptimal) => Ok(suboptimal),
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => Ok(true),
            Err(result) => Err(GpuError::Vulkan {
                call: "vkQueuePresentKHR",
                result,
            }),
        }
    }

    /// Waits until the GPU has passed `ticket`, or fails with `GpuError::Timeout` after `timeout`.
    pub fn wait_for(&self, ticket: SubmitTicket, timeout: Duration, what: &str) -> GpuResult<()> {
        let semaphores = [self.shared.timeline];
        let values = [ticket.0];
        let info = vk::SemaphoreWaitInfo::default().semaphores(&semaphores).values(&values);
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the semaphore is alive for as long as the context.
        match unsafe { self.shared.device.wait_semaphores(&info, nanos) } {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => {
                self.shared.hung.store(true, Ordering::Release);
                Err(GpuError::Timeout {
                    what: what.to_string(),
                    seconds: timeout.as_secs_f64(),
                })
            }
            Err(vk::Result::ERROR_DEVICE_LOST) => {
                self.shared.hung.store(true, Ordering::Release);
                Err(GpuError::DeviceLost(what.to_string()))
            }
            Err(result) => Err(GpuError::Vulkan {
                call: "vkWaitSemaphores",
                result,
            }),
        }
    }

    /// Waits for everything submitted so far (before a swapchain is replaced).
    pub fn wait_for_all(&self, what: &str) -> GpuResult<()> {
        let last = SubmitTicket(self.shared.last_submitted.load(Ordering::Acquire));
        self.wait(last, what)
    }

    /// Waits for `ticket` with the context's hang timeout.
    pub fn wait(&self, ticket: SubmitTicket, what: &str) -> GpuResult<()> {
        self.wait_for(ticket, self.shared.timeout, what)
    }

    /// A ticket no submission has reached yet; waiting on it can only time out. For tests of
    /// the hang path.
    pub fn unreached_ticket(&self) -> SubmitTicket {
        SubmitTicket(u64::MAX / 2)
    }
}

impl Shared {
    /// Whether a wait timed out or the device was lost (see `hung`).
    pub(crate) fn is_hung(&self) -> bool {
        self.hung.load(Ordering::Acquire)
    }

    /// Whether, after a hang, the GPU still runs submitted work: objects it may use must then
    /// be leaked, not destroyed (destroying them is invalid, and lavapipe blocks on it until
    /// the work ends). Does not wait.
    pub(crate) fn busy_after_hang(&self) -> bool {
        self.is_hung() && !self.reached(SubmitTicket(self.last_submitted.load(Ordering::Acquire)))
    }

    /// Whether the GPU has passed `ticket`, without waiting.
    pub(crate) fn reached(&self, ticket: SubmitTicket) -> bool {
        // SAFETY: the semaphore is alive for as long as `self`.
        unsafe { self.device.get_semaphore_counter_value(self.timeline) }.is_ok_and(|value| value >= ticket.0)
    }

    /// After a hang, whether `ticket` is reached within a second (a timed-out wait need not
    /// mean that the GPU is stuck: the ticket may have been one never submitted).
    pub(crate) fn finishes_soon(&self, ticket: SubmitTicket) -> bool {
        let semaphores = [self.timeline];
        let values = [ticket.0];
        let info = vk::SemaphoreWaitInfo::default().semaphores(&semaphores).values(&values);
        // SAFETY: the semaphore is alive for as long as `self`.
        unsafe { self.device.wait_semaphores(&info, 1_000_000_000) }.is_ok()
    }

    pub(crate) fn ray_tracing_pipeline(&self) -> Option<&ash::khr::ray_tracing_pipeline::Device> {
        self.ray_tracing_pipeline.as_ref()
    }

    pub(crate) fn acceleration_structure(&self) -> &ash::khr::acceleration_structure::Device {
        &self.acceleration_structure
    }

    pub(crate) fn allocator(&self) -> MutexGuard<'_, Allocator> {
        self.allocator.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn set_name<H: vk::Handle>(&self, handle: H, name: &str) {
        let Some(debug_utils) = &self.debug_utils else { return };
        let Ok(name) = std::ffi::CString::new(name.replace('\0', " ")) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: the handle belongs to this device; naming has no effect on the object.
        // A failure here only loses a debug name, so it is ignored on purpose.
        let _ = unsafe { debug_utils.set_debug_utils_object_name(&info) };
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if self.is_hung() && !self.finishes_soon(SubmitTicket(self.last_submitted.load(Ordering::Acquire))) {
            // Destroying a device with work that never ends blocks or is invalid; the device
            // and instance are leaked and the process, which has an error to report, exits
            // without them.
            log::error!("the GPU is hung: its device is left for the process exit to reclaim");
            return;
        }
        // SAFETY: every object made from the device holds an Arc<Shared>, so all of them are
        // gone; waiting idle first makes sure the GPU no longer uses any of them.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_semaphore(self.timeline, None);
            self.device.destroy_descriptor_set_layout(self.texture_layout, None);
            ManuallyDrop::drop(&mut self.allocator);
            self.device.destroy_device(None);
            ManuallyDrop::drop(&mut self.instance);
        }
    }
}

/// Whether the user asked for pipeline statistics (`WAVETRACE_PIPELINE_STATS`, not empty or 0;
/// logged by `gpu::pipeline_statistics`).
fn pipeline_statistics_requested() -> bool {
    std::env::var("WAVETRACE_PIPELINE_STATS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The logical device with one queue of `queue_family` and the extensions and features of
/// the trace backends the adapter has.
fn create_device(
    instance: &Instance,
    adapter: &Adapter,
    backends: &[TraceBackend],
    queue_family: u32,
    pipeline_statistics: bool,
    presents: bool,
) -> GpuResult<ash::Device> {
    let caps = &adapter.capabilities;
    let has_query = backends.contains(&TraceBackend::Query);
    let has_pipeline = backends.contains(&TraceBackend::Pipeline);
    let mut extensions: Vec<&CStr> = vec![
        ash::khr::acceleration_structure::NAME,
        ash::khr::deferred_host_operations::NAME,
    ];
    if has_query {
        extensions.push(ash::khr::ray_query::NAME);
    }
    if has_pipeline {
        extensions.push(ash::khr::ray_tracing_pipeline::NAME);
    }
    if caps.shader_float64_atomics {
        extensions.push(ash::ext::shader_atomic_float::NAME);
    }
    if pipeline_statistics {
        extensions.push(ash::khr::pipeline_executable_properties::NAME);
    }
    if presents {
        extensions.push(ash::khr::swapchain::NAME);
    }
    let reorder = has_pipeline && caps.invocation_reorder;
    if reorder {
        extensions.push(ash::nv::ray_tracing_invocation_reorder::NAME);
    }
    let extension_ptrs: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();

    let base = vk::PhysicalDeviceFeatures::default()
        .shader_int64(true)
        .shader_float64(caps.shader_float64);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
        .buffer_device_address(true)
        .descriptor_indexing(true)
        .runtime_descriptor_array(true)
        .shader_sampled_image_array_non_uniform_indexing(true)
        .descriptor_binding_partially_bound(true)
        .descriptor_binding_variable_descriptor_count(true)
        .scalar_block_layout(true)
        .shader_buffer_int64_atomics(true)
        .timeline_semaphore(true);
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
        .synchronization2(true)
        .subgroup_size_control(caps.compute_subgroup_size_control)
        .compute_full_subgroups(caps.compute_subgroup_size_control);
    let mut accel = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default().acceleration_structure(true);
    let mut query = vk::PhysicalDeviceRayQueryFeaturesKHR::default().ray_query(true);
    let mut pipeline = vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default()
        .ray_tracing_pipeline(true)
        .ray_tracing_pipeline_trace_rays_indirect(true);
    let mut float_atomics =
        vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default().shader_buffer_float64_atomic_add(true);
    let mut features = vk::PhysicalDeviceFeatures2::default()
        .features(base)
        .push_next(&mut f12)
        .push_next(&mut f13)
        .push_next(&mut accel);
    if has_query {
        features = features.push_next(&mut query);
    }
    if has_pipeline {
        features = features.push_next(&mut pipeline);
    }
    if caps.shader_float64_atomics {
        features = features.push_next(&mut float_atomics);
    }
    let mut executables =
        vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
    if pipeline_statistics {
        features = features.push_next(&mut executables);
    }
    let mut reorder_features =
        vk::PhysicalDeviceRayTracingInvocationReorderFeaturesNV::default().ray_tracing_invocation_reorder(true);
    if reorder {
        features = features.push_next(&mut reorder_features);
    }
    let priorities = [1.0];
    let queue_infos = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let create_info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queue_infos)
        .enabled_extension_names(&extension_ptrs)
        .push_next(&mut features);
    // SAFETY: the adapter belongs to this instance; every pointer in create_info lives
    // until the call returns.
    unsafe { instance.raw.create_device(adapter.raw, &create_info, None) }.vk("vkCreateDevice")
}

/// Set 0 of every pipeline layout: `max_textures` combined image samplers, partially bound,
/// as many as a scene has.
fn create_texture_layout(device: &ash::Device, max_textures: u32) -> GpuResult<vk::DescriptorSetLayout> {
    let binding_flags =
        [vk::DescriptorBindingFlags::PARTIALLY_BOUND | vk::DescriptorBindingFlags::VARIABLE_DESCRIPTOR_COUNT];
    let mut flags_info = vk::DescriptorSetLayoutBindingFlagsCreateInfo::default().binding_flags(&binding_flags);
    let bindings = [vk::DescriptorSetLayoutBinding::default()
        .binding(0)
        .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
        .descriptor_count(max_textures)
        .stage_flags(vk::ShaderStageFlags::ALL)];
    let layout_info = vk::DescriptorSetLayoutCreateInfo::default()
        .bindings(&bindings)
        .push_next(&mut flags_info);
    // SAFETY: a plain object creation on the live device.
    unsafe { device.create_descriptor_set_layout(&layout_info, None) }.vk("vkCreateDescriptorSetLayout")
}

/// The longest `WAVETRACE_GPU_TIMEOUT_S` taken: a week (a longer wait is no hang check).
const MAX_GPU_TIMEOUT_S: f64 = 7.0 * 24.0 * 3600.0;

/// How long a wait on the GPU may take before it counts as a hang (`WAVETRACE_GPU_TIMEOUT_S`,
/// seconds; 120 when unset).
fn gpu_timeout() -> GpuResult<Duration> {
    const VARIABLE: &str = "WAVETRACE_GPU_TIMEOUT_S";
    let Ok(value) = std::env::var(VARIABLE) else {
        return Ok(Duration::from_secs(120));
    };
    match value.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && (0.001..=MAX_GPU_TIMEOUT_S).contains(&seconds) => {
            Ok(Duration::from_secs_f64(seconds))
        }
        _ => Err(GpuError::BadEnvironment {
            variable: VARIABLE,
            value,
            expected: format!("a number of seconds from 0.001 to {MAX_GPU_TIMEOUT_S}"),
        }),
    }
}
