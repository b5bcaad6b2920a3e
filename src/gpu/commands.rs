//! Command buffers: recording (dispatches, copies, barriers, debug labels) and submission,
//! one-shot or recorded once and replayed.

use std::ffi::CString;
use std::sync::Arc;

use ash::vk;
use bytemuck::Pod;

use super::buffer::Buffer;
use super::context::{Context, Shared, SubmitTicket};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::pipeline::ComputePipeline;

/// A primary command buffer with its own pool, so that it can be reset or freed alone.
pub struct CommandBuffer {
    shared: Arc<Shared>,
    pool: vk::CommandPool,
    pub(crate) raw: vk::CommandBuffer,
    name: String,
    recording: bool,
    recorded: bool,
    /// The last submission that used this buffer; it must finish before re-recording or drop.
    last_ticket: Option<SubmitTicket>,
    /// Bound as set 0 with every pipeline (`use_textures`); null: none.
    pub(crate) texture_set: vk::DescriptorSet,
    /// The kernels recorded since `begin`, in order of first use: a wait that times out names
    /// them, since one of them is the one that did not finish.
    kernels: Vec<String>,
}

/// Groups of a dispatch, 2D when one dimension cannot hold them all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchSize {
    pub x: u32,
    pub y: u32,
}

impl DispatchSize {
    /// Enough groups for `groups` in a grid no wider than `max_x` (the device's limit); shaders
    /// rebuild the flat id as `x + y * width`.
    pub fn covering(groups: u64, max_x: u32) -> Option<Self> {
        if groups == 0 {
            return Some(Self { x: 0, y: 0 });
        }
        let max_x = u64::from(max_x.max(1));
        let x = groups.min(max_x);
        let y = groups.div_ceil(x);
        Some(Self {
            x: u32::try_from(x).ok()?,
            y: u32::try_from(y).ok()?,
        })
    }
}

impl CommandBuffer {
    pub fn new(context: &Context, name: &str) -> GpuResult<Self> {
        let shared = &context.shared;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(shared.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: plain object creation on the live device.
        let pool = unsafe { shared.device.create_command_pool(&pool_info, None) }.vk("vkCreateCommandPool")?;
        let alloc_info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the pool was just created on this device.
        let raw = match unsafe { shared.device.allocate_command_buffers(&alloc_info) } {
            Ok(buffers) => buffers[0],
            Err(result) => {
                // SAFETY: the pool holds nothing yet.
                unsafe { shared.device.destroy_command_pool(pool, None) };
                return Err(GpuError::Vulkan {
                    call: "vkAllocateCommandBuffers",
                    result,
                });
            }
        };
        shared.set_name(pool, name);
        shared.set_name(raw, name);
        Ok(Self {
            shared: Arc::clone(shared),
            pool,
            raw,
            name: name.to_string(),
            recording: false,
            recorded: false,
            last_ticket: None,
            texture_set: vk::DescriptorSet::null(),
            kernels: Vec::new(),
        })
    }

    /// Starts recording, discarding what was recorded before. Waits for the previous
    /// submission of this buffer, since Vulkan forbids resetting a buffer in flight.
    pub fn begin(&mut self, context: &Context) -> GpuResult<()> {
        self.wait_idle(context)?;
        let info = vk::CommandBufferBeginInfo::default();
        // SAFETY: the buffer is not pending (waited above) and its pool allows resets.
        unsafe {
            self.shared
                .device
                .reset_command_buffer(self.raw, vk::CommandBufferResetFlags::empty())
                .vk("vkResetCommandBuffer")?;
            self.shared
                .device
                .begin_command_buffer(self.raw, &info)
                .vk("vkBeginCommandBuffer")?;
        }
        self.recording = true;
        self.recorded = false;
        self.kernels.clear();
        Ok(())
    }

    pub fn end(&mut self) -> GpuResult<()> {
        self.expect_recording("end")?;
        // SAFETY: the buffer is in the recording state.
        unsafe { self.shared.device.end_command_buffer(self.raw) }.vk("vkEndCommandBuffer")?;
        self.recording = false;
        self.recorded = true;
        Ok(())
    }

    /// Submits what was recorded; the same recording may be submitted again after this one
    /// finishes (record once, replay).
    pub fn submit(&mut self, context: &Context) -> GpuResult<SubmitTicket> {
        if !self.recorded {
            return Err(GpuError::InvalidUse {
                name: self.name.clone(),
                problem: "submitted before a recording was ended".into(),
            });
        }
        // Replaying while the previous replay runs would need SIMULTANEOUS_USE; waiting is
        // cheap because a pass is long compared to a submit.
        self.wait_idle(context)?;
        let ticket = context.submit_raw(&[self.raw], &self.name)?;
        self.last_ticket = Some(ticket);
        Ok(ticket)
    }

    /// Notes a submission made outside `submit` (one that waits on or signals semaphores of
    /// its own), which must finish before the buffer is recorded again or dropped.
    pub(crate) fn note_submission(&mut self, ticket: SubmitTicket) {
        self.last_ticket = Some(ticket);
    }

    /// Submits and waits, turning a hang into `GpuError::Timeout`.
    pub fn submit_and_wait(&mut self, context: &Context) -> GpuResult<()> {
        let ticket = self.submit(context)?;
        self.wait_for(context, ticket)
    }

    fn wait_idle(&mut self, context: &Context) -> GpuResult<()> {
        if let Some(ticket) = self.last_ticket {
            self.wait_for(context, ticket)?;
            self.last_ticket = None;
        }
        Ok(())
    }

    /// Waits for a submission of this buffer; a hang names the buffer and its kernels.
    fn wait_for(&self, context: &Context, ticket: SubmitTicket) -> GpuResult<()> {
        context.wait(ticket, &self.name).map_err(|error| match error {
            GpuError::Timeout { what, seconds } if !self.kernels.is_empty() => GpuError::Timeout {
                what: format!("{what} (its kernels: {})", self.kernels.join(", ")),
                seconds,
            },
            other => other,
        })
    }

    /// Notes a kernel bound for this recording.
    pub(crate) fn note_kernel(&mut self, name: &str) {
        if !self.kernels.iter().any(|k| k == name) {
            self.kernels.push(name.to_string());
        }
    }

    fn expect_recording(&self, what: &str) -> GpuResult<()> {
        if self.recording {
            Ok(())
        } else {
            Err(GpuError::InvalidUse {
                name: self.name.clone(),
                problem: format!("{what} outside begin()/end()"),
            })
        }
    }

    pub(crate) fn has_ray_tracing_pipeline(&self) -> bool {
        self.shared.ray_tracing_pipeline().is_some()
    }

    pub(crate) fn shared_ray_tracing(&self) -> &ash::khr::ray_tracing_pipeline::Device {
        self.shared
            .ray_tracing_pipeline()
            .expect("a RayTracingPipeline exists only where the device has them")
    }

    pub(crate) fn raw_device(&self) -> &ash::Device {
        &self.shared.device
    }

    /// Records a compute dispatch with its push constants.
    pub fn dispatch<P: Pod>(&mut self, pipeline: &ComputePipeline<P>, push: &P, size: DispatchSize) {
        self.dispatch_layers(pipeline, push, size, 1);
    }

    /// As `dispatch`, `layers` times over (`gl_WorkGroupID.z`).
    pub fn dispatch_layers<P: Pod>(
        &mut self,
        pipeline: &ComputePipeline<P>,
        push: &P,
        size: DispatchSize,
        layers: u32,
    ) {
        if size.x == 0 || size.y == 0 || layers == 0 {
            return;
        }
        self.bind_compute(pipeline, push);
        // SAFETY: recording state is upheld by the caller's begin(); the pipeline and its
        // layout are alive for as long as `pipeline` is borrowed by the caller.
        unsafe { self.raw_device().cmd_dispatch(self.raw, size.x, size.y, layers) };
    }

    /// Records a dispatch whose group counts the GPU reads from `args` at `offset` (three u32).
    pub fn dispatch_indirect<P: Pod>(&mut self, pipeline: &ComputePipeline<P>, push: &P, args: &Buffer, offset: u64) {
        self.bind_compute(pipeline, push);
        // SAFETY: as in `dispatch`; `args` carries INDIRECT usage when created for it, which
        // validation checks.
        unsafe { self.raw_device().cmd_dispatch_indirect(self.raw, args.raw, offset) };
    }

    /// Binds the texture set, if any, for a pipeline of `layout` just bound. Layouts differ in
    /// their push-constant ranges, so a set bound for one is not kept for the next.
    pub(crate) fn bind_textures(&mut self, bind_point: vk::PipelineBindPoint, layout: vk::PipelineLayout) {
        if self.texture_set == vk::DescriptorSet::null() {
            return;
        }
        // SAFETY: every pipeline layout has the texture layout as set 0 (pipeline.rs,
        // rt_pipeline.rs); the set outlives the recording (its owner's contract).
        unsafe {
            self.raw_device()
                .cmd_bind_descriptor_sets(self.raw, bind_point, layout, 0, &[self.texture_set], &[])
        };
    }

    fn bind_compute<P: Pod>(&mut self, pipeline: &ComputePipeline<P>, push: &P) {
        self.note_kernel(pipeline.kernel());
        // SAFETY: the layout's push range covers size_of::<P>() (checked at pipeline creation).
        unsafe {
            self.raw_device()
                .cmd_bind_pipeline(self.raw, vk::PipelineBindPoint::COMPUTE, pipeline.raw);
            self.bind_textures(vk::PipelineBindPoint::COMPUTE, pipeline.layout);
            self.raw_device().cmd_push_constants(
                self.raw,
                pipeline.layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                bytemuck::bytes_of(push),
            );
        }
    }

    /// Makes every earlier compute or transfer write visible to later compute shaders,
    /// indirect-argument reads and transfers. Coarse on purpose: the kernels of a pass form
    /// a chain, each reading what the one before wrote.
    pub fn compute_barrier(&mut self) {
        let stages = vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::ALL_TRANSFER;
        self.chain_barrier(stages);
    }

    /// Makes earlier compute writes visible to later compute shaders only: between direct
    /// dispatches of a chain whose next link reads no indirect arguments and no transfer
    /// follows. (`compute_barrier` also orders the command processor's reads of indirect
    /// arguments, which a driver may pay for at every barrier.)
    pub fn shader_barrier(&mut self) {
        self.memory_barrier(
            vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::SHADER_WRITE,
            vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::SHADER_READ | vk::AccessFlags2::SHADER_WRITE,
        );
    }

    /// Writes of `stages` before, any shader, transfer or indirect-argument use by `stages`
    /// after: the barrier between two links of a kernel chain.
    pub(crate) fn chain_barrier(&mut self, stages: vk::PipelineStageFlags2) {
        self.memory_barrier(
            stages,
            vk::AccessFlags2::SHADER_WRITE | vk::AccessFlags2::TRANSFER_WRITE,
            stages | vk::PipelineStageFlags2::DRAW_INDIRECT,
            vk::AccessFlags2::SHADER_READ
                | vk::AccessFlags2::SHADER_WRITE
                | vk::AccessFlags2::INDIRECT_COMMAND_READ
                | vk::AccessFlags2::TRANSFER_READ
                | vk::AccessFlags2::TRANSFER_WRITE,
        );
    }

    /// One global memory barrier; the named barriers above and in the other files use it.
    pub(crate) fn memory_barrier(
        &mut self,
        src_stages: vk::PipelineStageFlags2,
        src_access: vk::AccessFlags2,
        dst_stages: vk::PipelineStageFlags2,
        dst_access: vk::AccessFlags2,
    ) {
        let barrier = vk::MemoryBarrier2::default()
            .src_stage_mask(src_stages)
            .src_access_mask(src_access)
            .dst_stage_mask(dst_stages)
            .dst_access_mask(dst_access);
        let barriers = [barrier];
        let dependency = vk::DependencyInfo::default().memory_barriers(&barriers);
        // SAFETY: recording state is upheld by the caller.
        unsafe { self.raw_device().cmd_pipeline_barrier2(self.raw, &dependency) };
    }

    /// Makes transfer writes (a copy into host-visible memory) visible to the CPU once the
    /// submission's fence has signalled.
    pub fn host_read_barrier(&mut self) {
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_TRANSFER,
            vk::AccessFlags2::TRANSFER_WRITE,
            vk::PipelineStageFlags2::HOST,
            vk::AccessFlags2::HOST_READ,
        );
    }

    pub fn copy_buffer(&mut self, src: &Buffer, src_offset: u64, dst: &Buffer, dst_offset: u64, bytes: u64) {
        let region = vk::BufferCopy {
            src_offset,
            dst_offset,
            size: bytes,
        };
        // SAFETY: both buffers carry TRANSFER usage (every Buffer does); callers check ranges.
        unsafe { self.raw_device().cmd_copy_buffer(self.raw, src.raw, dst.raw, &[region]) };
    }

    /// Fills `bytes` bytes (a multiple of 4) at `offset` with the u32 `value`.
    pub fn fill_buffer(&mut self, buffer: &Buffer, offset: u64, bytes: u64, value: u32) {
        // SAFETY: every Buffer has TRANSFER_DST usage.
        unsafe {
            self.raw_device()
                .cmd_fill_buffer(self.raw, buffer.raw, offset, bytes, value)
        };
    }

    /// Writes `data` at `offset` in command order: small updates between passes (Vulkan
    /// allows at most 65,536 bytes, a multiple of 4).
    pub fn update_buffer<T: Pod>(&mut self, buffer: &Buffer, offset: u64, data: &[T]) {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        assert!(
            bytes.len() <= 65_536 && bytes.len() % 4 == 0 && offset % 4 == 0,
            "update_buffer of {} bytes at {offset} into `{}`",
            bytes.len(),
            buffer.name()
        );
        assert!(
            offset + bytes.len() as u64 <= buffer.size(),
            "update_buffer past the end of `{}`",
            buffer.name()
        );
        // SAFETY: every Buffer has TRANSFER_DST usage; the size and alignment are checked above.
        unsafe { self.raw_device().cmd_update_buffer(self.raw, buffer.raw, offset, bytes) };
    }

    /// Opens a named region, shown by RenderDoc and Nsight; close it with `end_label`.
    pub fn begin_label(&mut self, name: &str) {
        let Some(debug_utils) = &self.shared.debug_utils else {
            return;
        };
        let Ok(name) = CString::new(name.replace('\0', " ")) else {
            return;
        };
        let label = vk::DebugUtilsLabelEXT::default().label_name(&name);
        // SAFETY: recording state is upheld by the caller.
        unsafe { debug_utils.cmd_begin_debug_utils_label(self.raw, &label) };
    }

    pub fn end_label(&mut self) {
        let Some(debug_utils) = &self.shared.debug_utils else {
            return;
        };
        // SAFETY: paired with begin_label by the caller (the profiler's scopes do this).
        unsafe { debug_utils.cmd_end_debug_utils_label(self.raw) };
    }
}

impl Drop for CommandBuffer {
    fn drop(&mut self) {
        if let Some(ticket) = self.last_ticket {
            // After a hang no wait is taken: the buffer's submission has finished or it has not.
            let finished = if self.shared.is_hung() {
                self.shared.reached(ticket)
            } else {
                let context = Context {
                    shared: Arc::clone(&self.shared),
                };
                context.wait(ticket, &self.name).is_ok()
            };
            if !finished {
                // Freeing a pending buffer is invalid and waiting for a hung GPU never ends: the
                // pool is leaked, and the error that found the hang is reported by its caller.
                log::error!("dropping `{}` while the GPU still runs it: leaked", self.name);
                return;
            }
        }
        // SAFETY: the buffer is no longer pending (waited above); freeing the pool frees it.
        unsafe { self.shared.device.destroy_command_pool(self.pool, None) };
    }
}

impl Context {
    /// Records `record` into a fresh command buffer, submits it and waits for it: for uploads,
    /// read-backs, and tests. Never use it inside a sample pass.
    pub fn run_once(&self, name: &str, record: impl FnOnce(&mut CommandBuffer) -> GpuResult<()>) -> GpuResult<()> {
        let mut commands = CommandBuffer::new(self, name)?;
        commands.begin(self)?;
        record(&mut commands)?;
        commands.end()?;
        commands.submit_and_wait(self)
    }
}
