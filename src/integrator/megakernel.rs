//! The megakernel baseline: one kernel traces a whole path per pixel, from the camera ray to
//! its last vertex, keeping the path in registers (the design "Megakernels Considered Harmful"
//! measures the wavefront against). Same shading code (`path.glsl`) and random numbers as the
//! wavefront kernels, so the two estimate the same image; ray queries in a compute shader, or
//! a raygen shader that loops, with the wavefront trace kernels' miss and hit shaders.

use std::any::Any;

use crate::gpu::shaders::ids;
use crate::gpu::{
    CommandBuffer, ComputePipeline, Context, DispatchSize, GpuResult, Profiler, RayTracingPipeline, RayTracingShaders,
    TraceBackend,
};
use crate::interface::WavefrontPush;

use super::renderer::{barrier, timed};
use super::RenderSettings;

/// Threads per workgroup of the compute megakernel (`WAVEFRONT_GROUP`).
pub const GROUP: u32 = 64;
/// Profiler scopes `record_pass` opens.
pub const PROFILER_SCOPES: u32 = 1;

/// Records one sample pass: the path kernel, then the pass's bookkeeping.
pub fn record_pass(
    context: &Context,
    settings: &RenderSettings,
    pass: &mut CommandBuffer,
    profiler: &mut Profiler,
    push: &WavefrontPush,
) -> GpuResult<Box<dyn Any>> {
    let backend = settings.backend;
    let finish = ComputePipeline::<WavefrontPush>::new(context, ids::MEGAKERNEL_FINISH_PASS, &[])?;
    let kernels: Box<dyn Any> = match backend {
        TraceBackend::Query => {
            let trace_paths = ComputePipeline::<WavefrontPush>::new(context, ids::MEGAKERNEL_TRACE_PATHS_QUERY, &[])?;
            let groups = DispatchSize {
                x: (settings.width * settings.height).div_ceil(GROUP),
                y: 1,
            };
            timed(backend, profiler, pass, "trace_paths", &|pass| {
                pass.dispatch(&trace_paths, push, groups)
            })?;
            pass.dispatch(&finish, push, DispatchSize { x: 1, y: 1 });
            Box::new((trace_paths, finish))
        }
        TraceBackend::Pipeline => {
            let trace_paths = RayTracingPipeline::<WavefrontPush>::new(
                context,
                "trace_paths",
                &RayTracingShaders {
                    raygen: if context.adapter().capabilities.raygen_subgroups {
                        ids::MEGAKERNEL_TRACE_PATHS_SUBGROUP_RGEN
                    } else {
                        ids::MEGAKERNEL_TRACE_PATHS_LANES_RGEN
                    },
                    miss: &[ids::TRACE_EXTEND_RMISS, ids::TRACE_CONNECT_RMISS],
                    closest_hit: &[ids::TRACE_EXTEND_RCHIT],
                    any_hit: Some(ids::TRACE_ALPHA_RAHIT),
                },
            )?;
            timed(backend, profiler, pass, "trace_paths", &|pass| {
                pass.trace_rays(&trace_paths, push, settings.width, settings.height)
            })?;
            pass.dispatch(&finish, push, DispatchSize { x: 1, y: 1 });
            Box::new((trace_paths, finish))
        }
    };
    barrier(backend, pass);
    Ok(kernels)
}
