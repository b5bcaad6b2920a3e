//! The trace floor: the rays a render traced, recorded by its extend and connect kernels
//! (`RayLog`, `include/ray_log.glsl`), traced again with trivial shaders (`TraceFloor`), so that
//! a render's time can be set against the cost of its rays alone
//! (`examples/bench_trace_floor.rs`, docs/BENCHMARKS.md).
//!
//! The floor traces each log in recorded order, every ray opaque (the alpha any-hit shader is
//! left out with the rest of the shading), extension rays to their closest hit and shadow rays
//! to their first.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, GpuError, GpuResult, Profiler};
use crate::interface::{PassConstants, ProbeRay, SoftwareFloorPush, TraceFloorPush, SAMPLE_BITS, SAMPLE_MASK};

use super::software_bvh::SoftwareBvh;
use super::{appending_raygen, barrier, TraceBackend, TraceKernel, TraceShaders};

/// Where a render's extend and connect kernels record the rays they trace.
pub struct RayLog {
    extension: Buffer,
    shadow: Buffer,
    counts: Buffer,
    capacity: u32,
}

/// How many rays each log recorded. A count above the capacity means the rays past it were
/// traced but not stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RayCounts {
    pub extension: u32,
    pub shadow: u32,
}

impl RayLog {
    /// Room for `capacity` rays in each log: 32 bytes a ray, then 8 bytes a ray's tag
    /// (`include/ray_log.glsl`).
    pub fn new(context: &Context, capacity: u32) -> GpuResult<Self> {
        let bytes =
            u64::from(capacity.max(1)) * (std::mem::size_of::<ProbeRay>() + std::mem::size_of::<RayTag>()) as u64;
        let log = |name| Buffer::gpu_storage(context, name, bytes);
        Ok(Self {
            extension: log("extension ray log")?,
            shadow: log("shadow ray log")?,
            counts: Buffer::from_slice(context, "ray log counts", &[0u32; 2], BufferUsage::STORAGE)?,
            capacity,
        })
    }

    /// Points the kernels' recording at these logs.
    pub fn fill(&self, constants: &mut PassConstants) {
        constants.extension_ray_log = self.extension.address();
        constants.shadow_ray_log = self.shadow.address();
        constants.ray_log_counts = self.counts.address();
        constants.ray_log_capacity = self.capacity;
    }

    pub fn counts(&self, context: &Context) -> GpuResult<RayCounts> {
        let counts: Vec<u32> = self.counts.read_back(context, 2)?;
        Ok(RayCounts {
            extension: counts[0],
            shadow: counts[1],
        })
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The log of shadow rays, or of extension rays.
    pub fn rays(&self, shadow: bool) -> &Buffer {
        if shadow {
            &self.shadow
        } else {
            &self.extension
        }
    }

    /// The first `count` rays of a log, on the host (for tests).
    pub fn read(&self, context: &Context, shadow: bool, count: u32) -> GpuResult<Vec<ProbeRay>> {
        self.rays(shadow).read_back(context, count.min(self.capacity) as usize)
    }

    /// The tags of the first `count` rays of a log, in the rays' order.
    pub fn read_tags(&self, context: &Context, shadow: bool, count: u32) -> GpuResult<Vec<RayTag>> {
        let tags_start = u64::from(self.capacity) * std::mem::size_of::<ProbeRay>() as u64;
        self.rays(shadow)
            .read_back_at(context, tags_start, count.min(self.capacity) as usize)
    }
}

/// Whose a recorded ray was: its path's pixel (row-major over the whole image) and, for
/// extension rays, the path's sample and bounce as the path state packs them
/// (`include/wavefront.glsl`: `path_sample`, `path_bounce`); `u32::MAX` where not kept.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RayTag {
    pub pixel: u32,
    pub sample_and_bounce: u32,
}

impl RayTag {
    /// The path's sample index (meaningless for shadow rays).
    pub fn sample(&self) -> u32 {
        self.sample_and_bounce & SAMPLE_MASK
    }

    /// The segment the ray traces, 0 for a camera ray (meaningless for shadow rays).
    pub fn bounce(&self) -> u32 {
        self.sample_and_bounce >> SAMPLE_BITS
    }
}

/// What tracing one log took.
#[derive(Clone, Copy, Debug)]
pub struct FloorTrace {
    /// The fastest of the timed runs.
    pub milliseconds: f64,
    /// Rays that hit something.
    pub hits: u32,
}

/// Traces recorded rays with trivial shaders.
pub struct TraceFloor {
    kernel: TraceKernel<TraceFloorPush>,
    backend: TraceBackend,
    hits: Buffer,
}

/// Rays per launch: a compute dispatch's group count stays under 65,536.
pub const RAYS_PER_LAUNCH: u32 = 1 << 21;
const WARM_UP_RUNS: usize = 1;
const TIMED_RUNS: usize = 3;

impl TraceFloor {
    pub fn new(context: &Context, backend: TraceBackend) -> GpuResult<Self> {
        let kernel = TraceKernel::new(
            context,
            backend,
            "trace floor",
            &TraceShaders {
                query: ids::TRACE_FLOOR_QUERY,
                // Our own traversal's floor has a push of its own (`SoftwareFloor`).
                software: None,
                raygen: appending_raygen(context, ids::TRACE_FLOOR_SUBGROUP_RGEN, ids::TRACE_FLOOR_LANES_RGEN),
                miss: &[ids::TRACE_FLOOR_RMISS],
                closest_hit: ids::TRACE_FLOOR_RCHIT,
                // Every ray opaque: the floor leaves the alpha test out with the other shading.
                alpha_holes: false,
                specialization: &[],
            },
        )?;
        Ok(Self {
            kernel,
            backend,
            hits: Buffer::from_slice(context, "trace floor hits", &[0u32], BufferUsage::STORAGE)?,
        })
    }

    /// Traces the first `count` rays of `rays` through the top level at `top_level`, as shadow
    /// rays or extension rays: one warm-up run, then the fastest of three.
    pub fn trace(
        &self,
        context: &Context,
        top_level: u64,
        rays: &Buffer,
        count: u32,
        shadow: bool,
    ) -> GpuResult<FloorTrace> {
        self.trace_runs(context, top_level, rays, count, 1, shadow)
    }

    /// Traces `threads` runs of `rays_per_thread` rays each, a thread a run, its rays one after
    /// the other (a megakernel thread's order; 1 is `trace`); rays with `t_max` <= 0 pad the
    /// runs and are not traced.
    pub fn trace_runs(
        &self,
        context: &Context,
        top_level: u64,
        rays: &Buffer,
        threads: u32,
        rays_per_thread: u32,
        shadow: bool,
    ) -> GpuResult<FloorTrace> {
        check_room(rays, u64::from(threads) * u64::from(rays_per_thread))?;
        time_launches(
            context,
            self.backend,
            &self.hits,
            shadow,
            threads,
            &|commands, first, count| {
                let push = TraceFloorPush {
                    top_level,
                    rays: rays.address(),
                    hits: self.hits.address(),
                    first,
                    count,
                    shadow: u32::from(shadow),
                    rays_per_thread,
                };
                self.kernel.record_per_pixel(commands, &push, count, 1);
            },
        )
    }
}

/// The same floor traced by our own traversal of a software hierarchy (`software_bvh`) rather
/// than the driver's: a compute shader on any device, whatever its trace backends.
pub struct SoftwareFloor {
    kernel: TraceKernel<SoftwareFloorPush>,
    nodes: Buffer,
    triangles: Buffer,
    hits: Buffer,
}

impl SoftwareFloor {
    pub fn new(context: &Context, bvh: &SoftwareBvh) -> GpuResult<Self> {
        Ok(Self {
            kernel: TraceKernel::Compute(ComputePipeline::new(context, ids::TRACE_FLOOR_SOFTWARE, &[])?),
            nodes: Buffer::from_slice(context, "software hierarchy nodes", &bvh.nodes, BufferUsage::STORAGE)?,
            triangles: Buffer::from_slice(
                context,
                "software hierarchy triangles",
                &bvh.triangles,
                BufferUsage::STORAGE,
            )?,
            hits: Buffer::from_slice(context, "software floor hits", &[0u32], BufferUsage::STORAGE)?,
        })
    }

    /// As `TraceFloor::trace`; with `results`, each ray's (distance, triangle slot or -1) as
    /// the shader writes them (`SoftwareFloorPush`).
    pub fn trace(
        &self,
        context: &Context,
        rays: &Buffer,
        count: u32,
        shadow: bool,
        results: Option<&Buffer>,
    ) -> GpuResult<FloorTrace> {
        self.trace_runs(context, rays, count, 1, shadow, results)
    }

    /// As `TraceFloor::trace_runs`.
    pub fn trace_runs(
        &self,
        context: &Context,
        rays: &Buffer,
        threads: u32,
        rays_per_thread: u32,
        shadow: bool,
        results: Option<&Buffer>,
    ) -> GpuResult<FloorTrace> {
        check_room(rays, u64::from(threads) * u64::from(rays_per_thread))?;
        time_launches(
            context,
            TraceBackend::Software,
            &self.hits,
            shadow,
            threads,
            &|commands, first, count| {
                let push = SoftwareFloorPush {
                    nodes: self.nodes.address(),
                    triangles: self.triangles.address(),
                    rays: rays.address(),
                    hits: self.hits.address(),
                    results: results.map_or(0, Buffer::address),
                    first,
                    count,
                    shadow: u32::from(shadow),
                    rays_per_thread,
                };
                self.kernel.record_per_pixel(commands, &push, count, 1);
            },
        )
    }
}

fn check_room(rays: &Buffer, count: u64) -> GpuResult<()> {
    let needed = count * std::mem::size_of::<ProbeRay>() as u64;
    if needed > rays.size() {
        return Err(GpuError::InvalidUse {
            name: "trace floor".into(),
            problem: format!("{needed} bytes of rays asked of a log of {} bytes", rays.size()),
        });
    }
    Ok(())
}

/// Records `launch` for every `RAYS_PER_LAUNCH` of `threads` in one timed scope, after zeroing
/// `hits`; runs it once to warm up, then `TIMED_RUNS` times, and gives the fastest.
fn time_launches(
    context: &Context,
    backend: TraceBackend,
    hits: &Buffer,
    shadow: bool,
    threads: u32,
    launch: &dyn Fn(&mut CommandBuffer, u32, u32),
) -> GpuResult<FloorTrace> {
    let mut commands = CommandBuffer::new(context, "trace floor")?;
    let mut profiler = Profiler::new(context, "trace floor", 1)?;
    commands.begin(context)?;
    profiler.reset(&mut commands);
    commands.fill_buffer(hits, 0, 4, 0);
    barrier(backend, &mut commands);
    let scope = profiler.begin(&mut commands, if shadow { "shadow rays" } else { "extension rays" })?;
    for first in (0..threads).step_by(RAYS_PER_LAUNCH as usize) {
        launch(&mut commands, first, (threads - first).min(RAYS_PER_LAUNCH));
    }
    profiler.end(&mut commands, scope)?;
    commands.end()?;
    let mut fastest = f64::INFINITY;
    for run in 0..WARM_UP_RUNS + TIMED_RUNS {
        commands.submit_and_wait(context)?;
        if run >= WARM_UP_RUNS {
            fastest = fastest.min(profiler.resolve()?[0].milliseconds);
        }
    }
    let hits: Vec<u32> = hits.read_back(context, 1)?;
    Ok(FloorTrace {
        milliseconds: fastest,
        hits: hits[0],
    })
}
