//! The three trace backends behind one interface: a kernel that traces rays is either a
//! compute shader with ray queries (`VK_KHR_ray_query`), a ray-tracing pipeline (raygen, miss
//! and closest-hit shaders, `VK_KHR_ray_tracing_pipeline`), or a compute shader with our own
//! traversal of a hierarchy built on the host (`software_bvh`), chosen by `TraceBackend`.
//! Integrators create a `TraceKernel` from the shaders of every backend and launch it without
//! asking which one runs; the barriers between kernels, which must include the ray-tracing
//! stage when the pipeline backend runs, come from here too.
//!
//! The GLSL side is split the same way: `shaders-glsl/trace/` holds each kernel's compute body
//! (`*_compute.glsl`, tracing through `include/trace_rays.glsl`), compiled once for ray queries
//! and once for our own traversal, and its pipeline shaders; all share the routing of hits into
//! queues (`include/route_hit.glsl`, `include/connect.glsl`); only the traversal differs, as in
//! nvpro-samples' vk_raytrace.

use crate::gpu::shaders::{ids, ShaderId};
use crate::gpu::{
    Buffer, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, Profiler, RayTracingPipeline,
    RayTracingShaders, SpecializationConstant,
};
use crate::interface::{WavefrontPush, WAVEFRONT_GROUP};
use bytemuck::Pod;

pub mod floor;
pub mod software_bvh;

pub use crate::gpu::TraceBackend;

/// Vulkan's least `maxComputeWorkGroupCount[0]`: every device launches this many groups a row.
const MIN_MAX_GROUPS_X: u32 = 65_535;

/// The shaders of one trace kernel in each backend.
pub struct TraceShaders<'a> {
    /// The compute shader that traces with ray queries.
    pub query: ShaderId,
    /// The pipeline backend's raygen, miss and closest-hit shaders; where the scene has alpha
    /// holes every hit group also gets the alpha any-hit shader, so cut-outs are holes in both
    /// backends alike.
    pub raygen: ShaderId,
    pub miss: &'a [ShaderId],
    pub closest_hit: ShaderId,
    pub alpha_holes: bool,
    /// The compute shader that traces with our own traversal (`software_bvh`), where the
    /// kernel has one.
    pub software: Option<ShaderId>,
    /// Given to every shader (the scene's kernel features).
    pub specialization: &'a [SpecializationConstant],
}

/// A kernel that traces rays, in whichever backend the render uses, with push constants `P`
/// (the wavefront's, unless a kernel has its own, as the trace floor does).
// A handful exist per renderer, so the size of the pipeline variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum TraceKernel<P: Pod = WavefrontPush> {
    /// Ray queries or our own traversal, in a compute shader.
    Compute(ComputePipeline<P>),
    Pipeline(RayTracingPipeline<P>),
}

impl<P: Pod> TraceKernel<P> {
    /// `name` labels the pipeline for debuggers and profilers.
    pub fn new(context: &Context, backend: TraceBackend, name: &str, shaders: &TraceShaders<'_>) -> GpuResult<Self> {
        Ok(match backend {
            TraceBackend::Query => TraceKernel::Compute(ComputePipeline::specialised(
                context,
                shaders.query,
                shaders.specialization,
            )?),
            TraceBackend::Software => TraceKernel::Compute(ComputePipeline::specialised(
                context,
                shaders.software.ok_or_else(|| GpuError::InvalidUse {
                    name: name.to_string(),
                    problem: "has no kernel for the software trace backend".into(),
                })?,
                shaders.specialization,
            )?),
            TraceBackend::Pipeline => TraceKernel::Pipeline(RayTracingPipeline::new(
                context,
                name,
                &RayTracingShaders {
                    raygen: shaders.raygen,
                    miss: shaders.miss,
                    closest_hit: &[shaders.closest_hit],
                    any_hit: shaders.alpha_holes.then_some(ids::TRACE_ALPHA_RAHIT),
                    specialization: shaders.specialization,
                },
            )?),
        })
    }

    /// Launches over a GPU-written count: workgroups at `groups_offset` of `arguments` for
    /// ray queries, a launch size at `launch_offset` for the pipeline.
    pub fn record_indirect(
        &self,
        commands: &mut CommandBuffer,
        push: &P,
        arguments: &Buffer,
        groups_offset: u64,
        launch_offset: u64,
    ) {
        match self {
            TraceKernel::Compute(pipeline) => commands.dispatch_indirect(pipeline, push, arguments, groups_offset),
            TraceKernel::Pipeline(pipeline) => commands.trace_rays_indirect(pipeline, push, arguments, launch_offset),
        }
    }

    /// Launches one invocation per pixel of a `width` x `height` image: a 2D launch for the
    /// pipeline, workgroups of `WAVEFRONT_GROUP` over the pixels in row-major order for ray
    /// queries, in rows of at most 65,535 groups (the least maximum Vulkan allows): the shader's
    /// index is `x + y * groups_x * WAVEFRONT_GROUP`.
    pub fn record_per_pixel(&self, commands: &mut CommandBuffer, push: &P, width: u32, height: u32) {
        self.record_per_pixel_layers(commands, push, width, height, 1);
    }

    /// As `record_per_pixel`, `layers` times over: the layer is `gl_LaunchIDEXT.z` or
    /// `gl_WorkGroupID.z`.
    pub fn record_per_pixel_layers(
        &self,
        commands: &mut CommandBuffer,
        push: &P,
        width: u32,
        height: u32,
        layers: u32,
    ) {
        match self {
            TraceKernel::Compute(pipeline) => {
                let groups = (u64::from(width) * u64::from(height)).div_ceil(u64::from(WAVEFRONT_GROUP));
                let size = DispatchSize::covering(groups, MIN_MAX_GROUPS_X).unwrap_or(DispatchSize { x: 0, y: 0 });
                commands.dispatch_layers(pipeline, push, size, layers)
            }
            TraceKernel::Pipeline(pipeline) => commands.trace_rays_layers(pipeline, push, width, height, layers),
        }
    }
}

/// The raygen shader of a kernel that appends to queues: one atomic per subgroup where raygen
/// shaders have subgroup ballot, one per lane where they do not.
pub fn appending_raygen(context: &Context, subgroup: ShaderId, lanes: ShaderId) -> ShaderId {
    if context.adapter().capabilities.raygen_subgroups {
        subgroup
    } else {
        lanes
    }
}

/// How a recorded chain of kernels hands one kernel's writes to the next, including the
/// ray-tracing stage when the pipeline backend runs.
pub fn barrier(backend: TraceBackend, commands: &mut CommandBuffer) {
    match backend {
        TraceBackend::Pipeline => commands.ray_tracing_barrier(),
        TraceBackend::Query | TraceBackend::Software => commands.compute_barrier(),
    }
}

/// Records `record` in a profiler scope of `name` (also a debug label), then the barrier.
pub fn timed(
    backend: TraceBackend,
    profiler: &mut Profiler,
    commands: &mut CommandBuffer,
    name: &str,
    record: &dyn Fn(&mut CommandBuffer),
) -> GpuResult<()> {
    let scope = profiler.begin(commands, name)?;
    record(commands);
    profiler.end(commands, scope)?;
    barrier(backend, commands);
    Ok(())
}
