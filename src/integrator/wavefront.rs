//! The wavefront path tracer (Laine, Karras and Aila 2013, "Megakernels Considered
//! Harmful"): path state in structure-of-arrays buffers, one kernel per stage, queues with
//! GPU-side counters, and every kernel after generate launched indirectly from those
//! counters. A sample pass is recorded once and replayed; nothing is read back inside it.
//!
//! Kernels per bounce: prepare_extend, extend, prepare_shade, shade_surface (emission with
//! MIS, a light sample, BSDF sampling of the three reference materials), prepare_connect,
//! connect; the shading itself is `path.glsl`'s, shared with the megakernel. Not yet: Russian
//! roulette (docs/WAVEFRONT.md).

use std::any::Any;

use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuResult, MemoryLocation, Profiler,
    RayTracingPipeline, RayTracingShaders, TraceBackend,
};
use crate::interface::{PassConstants, WavefrontPush};

use super::renderer::{barrier, timed};
use super::RenderSettings;

/// Threads per workgroup of the wavefront kernels (`WAVEFRONT_GROUP` in wavefront.glsl).
const GROUP: u32 = 64;
/// Byte offsets inside `QueueState` of the indirect arguments.
const EXTEND_GROUPS_OFFSET: u64 = 16;
const SHADE_GROUPS_OFFSET: u64 = 32;
const EXTEND_LAUNCH_OFFSET: u64 = 48;
const CONNECT_GROUPS_OFFSET: u64 = 64;
const CONNECT_LAUNCH_OFFSET: u64 = 80;

/// Bytes of path state per path: ray origin, direction, throughput, hit (16 each), shadow
/// origin, direction, contribution (16 each), three queue slots (4 each) and the film (16).
pub const BYTES_PER_PATH: u64 = 4 * 16 + 3 * 16 + 3 * 4 + 16;

/// A trace kernel (extend or connect) in whichever backend the settings chose.
enum TraceKernel {
    Query(ComputePipeline<WavefrontPush>),
    Pipeline(RayTracingPipeline<WavefrontPush>),
}

impl TraceKernel {
    fn record(&self, commands: &mut CommandBuffer, push: &WavefrontPush, queues: &Buffer, groups: u64, launch: u64) {
        match self {
            TraceKernel::Query(pipeline) => commands.dispatch_indirect(pipeline, push, queues, groups),
            TraceKernel::Pipeline(pipeline) => commands.trace_rays_indirect(pipeline, push, queues, launch),
        }
    }
}

/// The structure-of-arrays path state: one entry per path (pixel) of a pass.
pub struct PathState {
    ray_origins: Buffer,
    ray_directions: Buffer,
    throughputs: Buffer,
    hits: Buffer,
    extend_queue: Buffer,
    shade_queue: Buffer,
    shadow_origins: Buffer,
    shadow_directions: Buffer,
    shadow_contributions: Buffer,
    connect_queue: Buffer,
}

impl PathState {
    pub fn new(context: &Context, path_count: u32) -> GpuResult<Self> {
        let paths = u64::from(path_count);
        let storage =
            |name: &str, bytes: u64| Buffer::new(context, name, bytes, BufferUsage::STORAGE, MemoryLocation::GpuOnly);
        Ok(Self {
            ray_origins: storage("path ray origins", paths * 16)?,
            ray_directions: storage("path ray directions", paths * 16)?,
            throughputs: storage("path throughputs", paths * 16)?,
            hits: storage("path hits", paths * 16)?,
            extend_queue: storage("extend queue", paths * 4)?,
            shade_queue: storage("shade queue", paths * 4)?,
            shadow_origins: storage("shadow ray origins", paths * 16)?,
            shadow_directions: storage("shadow ray directions", paths * 16)?,
            shadow_contributions: storage("shadow contributions", paths * 16)?,
            connect_queue: storage("connect queue", paths * 4)?,
        })
    }

    /// Its addresses in the pass constants.
    pub fn fill(&self, constants: &mut PassConstants) {
        constants.ray_origins = self.ray_origins.address();
        constants.ray_directions = self.ray_directions.address();
        constants.throughputs = self.throughputs.address();
        constants.hits = self.hits.address();
        constants.extend_queue = self.extend_queue.address();
        constants.shade_queue = self.shade_queue.address();
        constants.shadow_origins = self.shadow_origins.address();
        constants.shadow_directions = self.shadow_directions.address();
        constants.shadow_contributions = self.shadow_contributions.address();
        constants.connect_queue = self.connect_queue.address();
    }
}

/// Profiler scopes `record_pass` opens.
pub fn profiler_scopes(settings: &RenderSettings) -> u32 {
    1 + 3 * settings.max_depth
}

/// Records one sample pass's kernels; returns what must live as long as the recording.
pub fn record_pass(
    context: &Context,
    settings: &RenderSettings,
    pass: &mut CommandBuffer,
    profiler: &mut Profiler,
    push_at: &dyn Fn(u32) -> WavefrontPush,
    queues: &Buffer,
) -> GpuResult<Box<dyn Any>> {
    let path_count = settings.width * settings.height;
    let push = push_at(0);
    let generate = ComputePipeline::new(context, ids::WAVEFRONT_GENERATE, &[])?;
    let prepare_extend = ComputePipeline::new(context, ids::WAVEFRONT_PREPARE_EXTEND, &[])?;
    let prepare_shade = ComputePipeline::new(context, ids::WAVEFRONT_PREPARE_SHADE, &[])?;
    let shade = ComputePipeline::new(context, ids::WAVEFRONT_SHADE_SURFACE, &[])?;
    let finish = ComputePipeline::new(context, ids::WAVEFRONT_FINISH_PASS, &[])?;
    let prepare_connect = ComputePipeline::new(context, ids::WAVEFRONT_PREPARE_CONNECT, &[])?;
    let trace_kernel = |name: &str, query, raygen, miss, closest_hit| -> GpuResult<TraceKernel> {
        Ok(match settings.backend {
            TraceBackend::Query => TraceKernel::Query(ComputePipeline::new(context, query, &[])?),
            TraceBackend::Pipeline => TraceKernel::Pipeline(RayTracingPipeline::new(
                context,
                name,
                &RayTracingShaders {
                    raygen,
                    miss: &[miss],
                    closest_hit: &[closest_hit],
                },
            )?),
        })
    };
    // Queue appends with one atomic per subgroup where raygen shaders have subgroup ballot.
    let extend_raygen = if context.adapter().capabilities.raygen_subgroups {
        ids::TRACE_EXTEND_SUBGROUP_RGEN
    } else {
        ids::TRACE_EXTEND_LANES_RGEN
    };
    let extend = trace_kernel(
        "extend",
        ids::TRACE_EXTEND_QUERY,
        extend_raygen,
        ids::TRACE_EXTEND_RMISS,
        ids::TRACE_EXTEND_RCHIT,
    )?;
    let connect = trace_kernel(
        "connect",
        ids::TRACE_CONNECT_QUERY,
        ids::TRACE_CONNECT_RGEN,
        ids::TRACE_CONNECT_RMISS,
        ids::TRACE_CONNECT_RCHIT,
    )?;

    let one = DispatchSize { x: 1, y: 1 };
    let backend = settings.backend;
    // Each timed kernel: a profiler scope (also a debug label) around it, then the barrier
    // that hands its writes to the next kernel of the chain.
    let generate_groups = DispatchSize {
        x: path_count.div_ceil(GROUP),
        y: 1,
    };
    timed(backend, profiler, pass, "generate", &|pass| {
        pass.dispatch(&generate, &push, generate_groups)
    })?;
    for bounce in 0..settings.max_depth {
        let push = push_at(bounce);
        pass.dispatch(&prepare_extend, &push, one);
        barrier(backend, pass);
        timed(backend, profiler, pass, "extend", &|pass| {
            extend.record(pass, &push, queues, EXTEND_GROUPS_OFFSET, EXTEND_LAUNCH_OFFSET)
        })?;
        pass.dispatch(&prepare_shade, &push, one);
        barrier(backend, pass);
        timed(backend, profiler, pass, "shade_surface", &|pass| {
            pass.dispatch_indirect(&shade, &push, queues, SHADE_GROUPS_OFFSET)
        })?;
        pass.dispatch(&prepare_connect, &push, one);
        barrier(backend, pass);
        timed(backend, profiler, pass, "connect", &|pass| {
            connect.record(pass, &push, queues, CONNECT_GROUPS_OFFSET, CONNECT_LAUNCH_OFFSET)
        })?;
    }
    pass.dispatch(&finish, &push, one);
    barrier(backend, pass);
    Ok(Box::new((
        vec![generate, prepare_extend, prepare_shade, shade, prepare_connect, finish],
        [extend, connect],
    )))
}
