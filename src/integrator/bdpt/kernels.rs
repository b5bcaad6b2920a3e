//! Bidirectional path tracing's kernels and the recording of its batches: every launch
//! indirect from the queue counters (`prepare_launch`, the path tracer's, turns a queue's
//! count into launch arguments), the path tracer's extend and connect trace kernels between
//! the subpath kernels.

use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuResult, MemoryLocation, Profiler,
};
use crate::interface::{QueueState, WavefrontPush, WAVEFRONT_GROUP};
use crate::trace::{barrier, timed, TraceBackend, TraceKernel};

use crate::integrator::contract::{Frame, SUBMISSION_SCOPE};
use crate::integrator::settings::SplatFilm;
use crate::integrator::wavefront::kernel_graph::Queue;
use crate::integrator::wavefront::kernels::{
    connect_kernel, extend_kernel, record_queue_sort, QueueSortArrays, CONNECT_GROUPS, CONNECT_LAUNCH, EXTEND_GROUPS,
    EXTEND_LAUNCH, GENERATE_GROUPS, SHADE_GROUPS, SORT_SCOPES,
};
use crate::integrator::wavefront::RAY_SORT_BUCKETS;
use crate::integrator::KernelFeatures;
use crate::interface::PassConstants;
use crate::primitives::CountingSort;

/// Which subpath a step of shading extends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Subpath {
    Light,
    Camera,
}

pub struct BdptKernels {
    backend: TraceBackend,
    prepare_batch: ComputePipeline<WavefrontPush>,
    prepare_launch: ComputePipeline<WavefrontPush>,
    generate_light: ComputePipeline<WavefrontPush>,
    shade_light: ComputePipeline<WavefrontPush>,
    generate_camera: ComputePipeline<WavefrontPush>,
    shade_camera: ComputePipeline<WavefrontPush>,
    resolve_splats: Option<ComputePipeline<WavefrontPush>>,
    extend: TraceKernel,
    connect: TraceKernel,
    /// Present when extend and connect sort their rays (`ray_sort_key` in queues.glsl), with
    /// the arrays of extend's sort and of connect's; shading keeps extend's order
    /// (route_hit.glsl's `shade_in_extend_order`).
    ray_sort: Option<(CountingSort, [QueueSortArrays; 2])>,
}

/// The recorded batches, the queue state copied to the host after them, and the splat
/// resolve for the float splat film.
pub struct Recording {
    pub batches: CommandBuffer,
    pub profiler: Profiler,
    pub status: Buffer,
    pub resolve: Option<CommandBuffer>,
}

impl BdptKernels {
    /// `constants`: the filled pass constants, whose `ray_sort_buckets` say whether rays are
    /// sorted and where the sorts' arrays are.
    pub fn new(
        context: &Context,
        backend: TraceBackend,
        features: KernelFeatures,
        splats: SplatFilm,
        reorder: bool,
        constants: &PassConstants,
    ) -> GpuResult<Self> {
        let specialization = features.specialization();
        let compute = |id| ComputePipeline::<WavefrontPush>::specialised(context, id, &specialization);
        Ok(Self {
            backend,
            prepare_batch: compute(ids::BDPT_PREPARE_BATCH)?,
            prepare_launch: compute(ids::WAVEFRONT_PREPARE_LAUNCH)?,
            generate_light: compute(ids::BDPT_GENERATE_LIGHT)?,
            shade_light: compute(ids::BDPT_SHADE_LIGHT)?,
            generate_camera: compute(ids::BDPT_GENERATE_CAMERA)?,
            shade_camera: compute(ids::BDPT_SHADE_CAMERA)?,
            resolve_splats: match splats {
                SplatFilm::Fixed => None,
                SplatFilm::FloatAtomic | SplatFilm::FloatCas => Some(compute(ids::BDPT_RESOLVE_SPLATS)?),
            },
            extend: extend_kernel(context, backend, features, reorder)?,
            connect: connect_kernel(context, backend, features, splats)?,
            ray_sort: if constants.ray_sort_buckets > 0 {
                Some((
                    CountingSort::new(context, RAY_SORT_BUCKETS)?,
                    [QueueSortArrays::extend(constants), QueueSortArrays::connect(constants)],
                ))
            } else {
                None
            },
        })
    }

    /// Profiler scopes of one batch at `max_depth`.
    pub(crate) fn batch_scopes(&self, max_depth: u32) -> u32 {
        // generate_light and generate_camera, three kernels per light and camera segment, and
        // where rays are sorted, the extend and connect queues' sorts.
        let per_segment = 3 + if self.ray_sort.is_some() { 2 * SORT_SCOPES } else { 0 };
        2 + per_segment * (2 * max_depth - 1)
    }

    /// Records `batches` batches into one submission, then the copy of the queue state the
    /// host reads to learn whether camera paths are left.
    pub fn record(&self, frame: &Frame<'_>, batches: u32) -> GpuResult<Recording> {
        let context = frame.context;
        let max_depth = frame.settings.max_depth;
        let push = WavefrontPush {
            constants: frame.constants_address,
            argument: 0,
            pad0: 0,
        };
        let bytes = std::mem::size_of::<QueueState>() as u64;
        let mut status = Buffer::new(
            context,
            "bdpt queue status (host)",
            bytes,
            BufferUsage::STORAGE,
            MemoryLocation::GpuToCpu,
        )?;
        status.write(0, &[QueueState::default()])?;
        let mut commands = CommandBuffer::new(context, "bdpt batches")?;
        let mut profiler = Profiler::new(context, "bdpt batches", 1 + batches * self.batch_scopes(max_depth))?;
        commands.begin(context)?;
        commands.use_textures(&frame.scene.textures);
        profiler.reset(&mut commands);
        let whole = profiler.begin(&mut commands, SUBMISSION_SCOPE)?;
        for _ in 0..batches {
            self.record_batch(&mut commands, &mut profiler, &push, frame.queues, max_depth)?;
        }
        profiler.end(&mut commands, whole)?;
        barrier(self.backend, &mut commands);
        commands.copy_buffer(frame.queues, 0, &status, 0, bytes);
        commands.host_read_barrier();
        commands.end()?;
        let resolve = match &self.resolve_splats {
            None => None,
            Some(pipeline) => {
                let mut resolve = CommandBuffer::new(context, "bdpt splat resolve")?;
                resolve.begin(context)?;
                let pixels = frame.settings.width * frame.settings.height;
                resolve.dispatch(
                    pipeline,
                    &push,
                    DispatchSize {
                        x: pixels.div_ceil(WAVEFRONT_GROUP),
                        y: 1,
                    },
                );
                resolve.compute_barrier();
                resolve.end()?;
                Some(resolve)
            }
        };
        Ok(Recording {
            batches: commands,
            profiler,
            status,
            resolve,
        })
    }

    /// One batch: the next camera paths' light subpaths to their end, then their camera
    /// subpaths, a segment a step.
    pub(crate) fn record_batch(
        &self,
        pass: &mut CommandBuffer,
        profiler: &mut Profiler,
        push: &WavefrontPush,
        queues: &Buffer,
        max_depth: u32,
    ) -> GpuResult<()> {
        let backend = self.backend;
        pass.dispatch(&self.prepare_batch, push, DispatchSize { x: 1, y: 1 });
        barrier(backend, pass);
        timed(backend, profiler, pass, "generate_light", &|pass| {
            // At depth 1 it starts no light subpath (only emitters seen directly count), but a
            // Metropolis proposal's strategy is chosen there.
            pass.dispatch_indirect(&self.generate_light, push, queues, GENERATE_GROUPS);
        })?;
        // A light subpath's last vertex is max_depth - 1 segments from its light: with the
        // camera, that makes a path of max_depth.
        for _ in 1..max_depth {
            self.record_segment(pass, profiler, push, queues, Subpath::Light)?;
        }
        timed(backend, profiler, pass, "generate_camera", &|pass| {
            pass.dispatch_indirect(&self.generate_camera, push, queues, GENERATE_GROUPS)
        })?;
        for _ in 0..max_depth {
            self.record_segment(pass, profiler, push, queues, Subpath::Camera)?;
        }
        Ok(())
    }

    /// Extend, shade and connect for one segment of every queued subpath.
    fn record_segment(
        &self,
        pass: &mut CommandBuffer,
        profiler: &mut Profiler,
        push: &WavefrontPush,
        queues: &Buffer,
        subpath: Subpath,
    ) -> GpuResult<()> {
        let backend = self.backend;
        self.prepare(pass, push, Queue::Extend);
        self.record_ray_sort(pass, profiler, queues, Queue::Extend)?;
        timed(backend, profiler, pass, "extend", &|pass| {
            self.extend
                .record_indirect(pass, push, queues, EXTEND_GROUPS, EXTEND_LAUNCH)
        })?;
        self.prepare(pass, push, Queue::Shade);
        let (shade, name) = match subpath {
            Subpath::Light => (&self.shade_light, "shade_light"),
            Subpath::Camera => (&self.shade_camera, "shade_camera"),
        };
        timed(backend, profiler, pass, name, &|pass| {
            pass.dispatch_indirect(shade, push, queues, SHADE_GROUPS)
        })?;
        self.prepare(pass, push, Queue::Connect);
        self.record_ray_sort(pass, profiler, queues, Queue::Connect)?;
        timed(backend, profiler, pass, "connect", &|pass| {
            self.connect
                .record_indirect(pass, push, queues, CONNECT_GROUPS, CONNECT_LAUNCH)
        })
    }

    /// Where rays are sorted, the sort of `queue`'s launch (extend or connect).
    fn record_ray_sort(
        &self,
        pass: &mut CommandBuffer,
        profiler: &mut Profiler,
        queues: &Buffer,
        queue: Queue,
    ) -> GpuResult<()> {
        let Some((sort, [extend, connect])) = &self.ray_sort else {
            return Ok(());
        };
        let arrays = if queue == Queue::Extend { *extend } else { *connect };
        record_queue_sort(self.backend, sort, (pass, profiler), queues, queue, arrays)
    }

    fn prepare(&self, pass: &mut CommandBuffer, push: &WavefrontPush, queue: Queue) {
        let push = WavefrontPush {
            argument: queue.index() as u32,
            ..*push
        };
        pass.dispatch(&self.prepare_launch, &push, DispatchSize { x: 1, y: 1 });
        barrier(self.backend, pass);
    }
}
