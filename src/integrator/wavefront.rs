//! The wavefront path tracer (Laine, Karras and Aila 2013, "Megakernels Considered
//! Harmful"): path state in structure-of-arrays buffers, one kernel per stage, queues with
//! GPU-side counters, and every kernel after generate launched indirectly from those
//! counters. A sample pass is recorded once and replayed; nothing is read back inside it.
//!
//! Kernels per bounce: prepare_extend, extend, prepare_shade, shade_surface (emission with
//! MIS, a light sample, BSDF sampling of the three reference materials), prepare_connect,
//! connect. Not yet: Russian roulette, the CLI, per-kernel statistics (docs/WAVEFRONT.md).

use glam::Vec3;

use crate::accel::SceneAccel;
use crate::film::RgbImage;
use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, MemoryLocation,
    Profiler, RayTracingPipeline, RayTracingShaders, TraceBackend,
};
use crate::interface::{PassConstants, QueueState, WavefrontPush};
use crate::lights::LightSampler;
use crate::scene::{GpuScene, PinholeCamera, Scene};

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

/// What a render cost.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RenderStats {
    pub wall_seconds: f64,
    /// Sum of the `sample_pass` timestamp scopes: GPU time only.
    pub gpu_seconds: f64,
    pub samples_per_second: f64,
    /// Extension (closest-hit) and shadow rays traced, per second of GPU time.
    pub extension_rays_per_second: f64,
    pub shadow_rays_per_second: f64,
    /// Per kernel, summed over bounces and passes (`sample_pass` is the whole pass).
    pub kernel_milliseconds: Vec<(String, f64)>,
    pub bytes_per_path: u64,
    /// Emissive triangles, and how next-event estimation chose among them.
    pub lights: u32,
    pub light_selection: crate::lights::LightSelection,
}

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

pub struct WavefrontRenderer {
    context: Context,
    settings: RenderSettings,
    pass: CommandBuffer,
    profiler: Profiler,
    film: Buffer,
    queues: Buffer,
    // Kept alive for the recorded pass, which reads them by address.
    _buffers: Vec<Buffer>,
    _accel: SceneAccel,
    lights: LightSampler,
    _scene: GpuScene,
    _pipelines: (Vec<ComputePipeline<WavefrontPush>>, [TraceKernel; 2]),
}

fn storage(context: &Context, name: &str, bytes: u64) -> GpuResult<Buffer> {
    Buffer::new(context, name, bytes, BufferUsage::STORAGE, MemoryLocation::GpuOnly)
}

impl WavefrontRenderer {
    pub fn new(context: &Context, scene: &Scene, settings: &RenderSettings) -> GpuResult<Self> {
        let invalid = |problem: String| GpuError::InvalidUse {
            name: "render settings".into(),
            problem,
        };
        if settings.width == 0 || settings.height == 0 || settings.spp == 0 || settings.max_depth == 0 {
            return Err(invalid(format!(
                "{}x{} at {} spp, depth {}: all must be positive",
                settings.width, settings.height, settings.spp, settings.max_depth
            )));
        }
        if !context.trace_backends().contains(&settings.backend) {
            return Err(invalid(format!(
                "this device has no {:?} trace backend",
                settings.backend
            )));
        }
        let path_count = settings.width * settings.height;

        let gpu_scene = GpuScene::upload(context, scene)?;
        let accel = SceneAccel::build(context, scene, &gpu_scene.meshes)?;
        let lights = LightSampler::new(context, scene, &gpu_scene, settings.light_selection)?;

        let paths = u64::from(path_count);
        let ray_origins = storage(context, "path ray origins", paths * 16)?;
        let ray_directions = storage(context, "path ray directions", paths * 16)?;
        let throughputs = storage(context, "path throughputs", paths * 16)?;
        let hits = storage(context, "path hits", paths * 16)?;
        let extend_queue = storage(context, "extend queue", paths * 4)?;
        let shade_queue = storage(context, "shade queue", paths * 4)?;
        let film = storage(context, "film", paths * 16)?;
        let shadow_origins = storage(context, "shadow ray origins", paths * 16)?;
        let shadow_directions = storage(context, "shadow ray directions", paths * 16)?;
        let shadow_contributions = storage(context, "shadow contributions", paths * 16)?;
        let connect_queue = storage(context, "connect queue", paths * 4)?;
        let queue_usage = BufferUsage {
            indirect: true,
            ..BufferUsage::STORAGE
        };
        let queues = Buffer::from_slice(context, "queues", &[QueueState::default()], queue_usage)?;

        let (camera, note) = PinholeCamera::for_scene(scene, settings.width, settings.height);
        if let Some(note) = note {
            log::info!("{note}");
        }
        let light_tables = lights.tables();
        let constants = PassConstants {
            positions: gpu_scene.meshes.positions.address(),
            indices: gpu_scene.meshes.indices.address(),
            instances: gpu_scene.instances.address(),
            meshes: gpu_scene.mesh_table.address(),
            materials: gpu_scene.materials.address(),
            top_level: accel.top_level.address(),
            ray_origins: ray_origins.address(),
            ray_directions: ray_directions.address(),
            throughputs: throughputs.address(),
            hits: hits.address(),
            queues: queues.address(),
            extend_queue: extend_queue.address(),
            shade_queue: shade_queue.address(),
            film: film.address(),
            shadow_origins: shadow_origins.address(),
            shadow_directions: shadow_directions.address(),
            shadow_contributions: shadow_contributions.address(),
            connect_queue: connect_queue.address(),
            light_map: light_tables.map,
            instance_light_offset: light_tables.instance_light_offset,
            light_tree: light_tables.tree,
            light_cdf: light_tables.cdf,
            light_count: light_tables.count,
            light_selection: light_tables.selection,
            light_tree_arity: light_tables.arity,
            camera_origin: camera.origin,
            tan_half_yfov: camera.tan_half_yfov,
            camera_right: camera.right,
            aspect: camera.aspect,
            camera_up: camera.up,
            seed: settings.seed,
            camera_forward: camera.forward,
            path_count,
            width: settings.width,
            height: settings.height,
            max_depth: settings.max_depth,
        };
        let constants_buffer = Buffer::from_slice(context, "pass constants", &[constants], BufferUsage::STORAGE)?;
        let push_at = |bounce: u32| WavefrontPush {
            constants: constants_buffer.address(),
            bounce,
            pad0: 0,
        };
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
        let extend = trace_kernel(
            "extend",
            ids::TRACE_EXTEND_QUERY,
            ids::TRACE_EXTEND_RGEN,
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

        context.run_once("clear film and build lights", |commands| {
            commands.fill_buffer(&film, 0, film.size(), 0);
            lights.record_flatten(commands, None)?;
            lights.record_build(commands, &gpu_scene, None)
        })?;

        let mut pass = CommandBuffer::new(context, "sample pass")?;
        let mut profiler = Profiler::new(
            context,
            "wavefront kernels",
            2 + 4 * settings.max_depth + lights.profiler_scopes(),
        )?;
        pass.begin(context)?;
        profiler.reset(&mut pass);
        let whole_pass = profiler.begin(&mut pass, "sample_pass")?;
        if settings.rebuild_lights_every_pass {
            lights.record_build(&mut pass, &gpu_scene, Some(&mut profiler))?;
        }
        let one = DispatchSize { x: 1, y: 1 };
        let barrier = |commands: &mut CommandBuffer| match settings.backend {
            TraceBackend::Pipeline => commands.ray_tracing_barrier(),
            TraceBackend::Query => commands.compute_barrier(),
        };
        barrier(&mut pass);
        // Each timed kernel: a profiler scope (also a debug label) around it, then the barrier
        // that hands its writes to the next kernel of the chain.
        let mut timed = |pass: &mut CommandBuffer, name: &str, record: &dyn Fn(&mut CommandBuffer)| -> GpuResult<()> {
            let scope = profiler.begin(pass, name)?;
            record(pass);
            profiler.end(pass, scope)?;
            barrier(pass);
            Ok(())
        };
        let generate_groups = DispatchSize {
            x: path_count.div_ceil(GROUP),
            y: 1,
        };
        timed(&mut pass, "generate", &|pass| {
            pass.dispatch(&generate, &push, generate_groups)
        })?;
        for bounce in 0..settings.max_depth {
            let push = push_at(bounce);
            pass.dispatch(&prepare_extend, &push, one);
            barrier(&mut pass);
            timed(&mut pass, "extend", &|pass| {
                extend.record(pass, &push, &queues, EXTEND_GROUPS_OFFSET, EXTEND_LAUNCH_OFFSET)
            })?;
            pass.dispatch(&prepare_shade, &push, one);
            barrier(&mut pass);
            timed(&mut pass, "shade_surface", &|pass| {
                pass.dispatch_indirect(&shade, &push, &queues, SHADE_GROUPS_OFFSET)
            })?;
            pass.dispatch(&prepare_connect, &push, one);
            barrier(&mut pass);
            timed(&mut pass, "connect", &|pass| {
                connect.record(pass, &push, &queues, CONNECT_GROUPS_OFFSET, CONNECT_LAUNCH_OFFSET)
            })?;
        }
        pass.dispatch(&finish, &push, one);
        barrier(&mut pass);
        profiler.end(&mut pass, whole_pass)?;
        pass.end()?;

        let buffers = vec![
            ray_origins,
            ray_directions,
            throughputs,
            hits,
            extend_queue,
            shade_queue,
            shadow_origins,
            shadow_directions,
            shadow_contributions,
            connect_queue,
            constants_buffer,
        ];
        Ok(Self {
            context: context.clone(),
            settings: settings.clone(),
            pass,
            profiler,
            film,
            queues,
            _buffers: buffers,
            _accel: accel,
            lights,
            _scene: gpu_scene,
            _pipelines: (
                vec![generate, prepare_extend, prepare_shade, shade, prepare_connect, finish],
                [extend, connect],
            ),
        })
    }

    /// Renders every sample pass (replaying one recording) and returns the mean radiance.
    /// Renders every sample pass (replaying one recording) and returns the mean radiance.
    pub fn render(&mut self) -> GpuResult<RgbImage> {
        self.render_with_progress(|_| {}).map(|(image, _)| image)
    }

    /// As `render`, calling `progress` with the number of finished passes after each, and
    /// returning GPU timings: per kernel, summed over bounces and passes.
    pub fn render_with_progress(&mut self, mut progress: impl FnMut(u32)) -> GpuResult<(RgbImage, RenderStats)> {
        let started = std::time::Instant::now();
        let mut kernel_ms: Vec<(String, f64)> = Vec::new();
        for done in 1..=self.settings.spp {
            self.pass.submit_and_wait(&self.context)?;
            for timing in self.profiler.resolve()? {
                match kernel_ms.iter_mut().find(|(name, _)| *name == timing.name) {
                    Some((_, total)) => *total += timing.milliseconds,
                    None => kernel_ms.push((timing.name, timing.milliseconds)),
                }
            }
            progress(done);
        }
        let seconds = started.elapsed().as_secs_f64();
        let (width, height) = (self.settings.width as usize, self.settings.height as usize);
        let sums: Vec<[f32; 4]> = self.film.read_back(&self.context, width * height)?;
        let scale = 1.0 / self.settings.spp as f32;
        let image = RgbImage {
            width,
            height,
            pixels: sums
                .iter()
                .map(|s| (Vec3::new(s[0], s[1], s[2]) * scale).to_array())
                .collect(),
        };
        let samples = (width * height) as f64 * f64::from(self.settings.spp);
        let gpu_seconds = kernel_ms
            .iter()
            .find(|(n, _)| n == "sample_pass")
            .map_or(seconds, |(_, ms)| ms * 1e-3);
        let counters: Vec<QueueState> = self.queues.read_back(&self.context, 1)?;
        let stats = RenderStats {
            wall_seconds: seconds,
            gpu_seconds,
            samples_per_second: samples / gpu_seconds,
            extension_rays_per_second: counters[0].extend_rays as f64 / gpu_seconds,
            shadow_rays_per_second: counters[0].shadow_rays as f64 / gpu_seconds,
            kernel_milliseconds: kernel_ms,
            bytes_per_path: BYTES_PER_PATH,
            lights: self.lights.light_count(),
            light_selection: self.settings.light_selection,
        };
        Ok((image, stats))
    }
}
