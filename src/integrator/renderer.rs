//! A render: the scene, its acceleration structures, light sampler, film and pass constants on
//! the GPU, and one recorded sample pass of the chosen integrator (`wavefront` or
//! `megakernel`), replayed once per sample; nothing is read back inside a pass.

use std::any::Any;

use glam::Vec3;

use crate::accel::SceneAccel;
use crate::film::RgbImage;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, Context, GpuError, GpuResult, MemoryLocation, Profiler, TraceBackend,
};
use crate::interface::{PassConstants, QueueState, WavefrontPush};
use crate::lights::LightSampler;
use crate::scene::{GpuScene, PinholeCamera, Scene};

use super::{megakernel, wavefront, Integrator, RenderSettings};

/// What a render cost.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RenderStats {
    pub wall_seconds: f64,
    /// Sum of the `sample_pass` timestamp scopes: GPU time only.
    pub gpu_seconds: f64,
    pub samples_per_second: f64,
    /// Extension (closest-hit) and shadow rays traced, and per second of GPU time.
    pub extension_rays: u64,
    pub shadow_rays: u64,
    pub extension_rays_per_second: f64,
    pub shadow_rays_per_second: f64,
    /// Per kernel, summed over bounces and passes (`sample_pass` is the whole pass).
    pub kernel_milliseconds: Vec<(String, f64)>,
    pub bytes_per_path: u64,
    /// Emissive triangles, and how next-event estimation chose among them.
    pub lights: u32,
    pub light_selection: crate::lights::LightSelection,
}

/// How a recorded pass ends a kernel: hands its writes to the next one, including the
/// ray-tracing stage when the pipeline backend runs.
pub(super) fn barrier(backend: TraceBackend, commands: &mut CommandBuffer) {
    match backend {
        TraceBackend::Pipeline => commands.ray_tracing_barrier(),
        TraceBackend::Query => commands.compute_barrier(),
    }
}

/// Records `record` in a profiler scope of `name` (also a debug label), then the barrier.
pub(super) fn timed(
    backend: TraceBackend,
    profiler: &mut Profiler,
    pass: &mut CommandBuffer,
    name: &str,
    record: &dyn Fn(&mut CommandBuffer),
) -> GpuResult<()> {
    let scope = profiler.begin(pass, name)?;
    record(pass);
    profiler.end(pass, scope)?;
    barrier(backend, pass);
    Ok(())
}

pub struct Renderer {
    context: Context,
    settings: RenderSettings,
    pass: CommandBuffer,
    profiler: Profiler,
    film: Buffer,
    queues: Buffer,
    lights: LightSampler,
    bytes_per_path: u64,
    // Kept alive for the recorded pass, which reads them by address or binds them.
    _constants: Buffer,
    _path_state: Option<wavefront::PathState>,
    _accel: SceneAccel,
    _scene: GpuScene,
    _kernels: Box<dyn Any>,
}

impl Renderer {
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
        let film = Buffer::new(
            context,
            "film",
            u64::from(path_count) * 16,
            BufferUsage::STORAGE,
            MemoryLocation::GpuOnly,
        )?;
        let queue_usage = BufferUsage {
            indirect: true,
            ..BufferUsage::STORAGE
        };
        let queues = Buffer::from_slice(context, "queues", &[QueueState::default()], queue_usage)?;
        let path_state = match settings.integrator {
            Integrator::Wavefront => Some(wavefront::PathState::new(context, path_count)?),
            Integrator::Megakernel => None,
        };

        let (camera, note) = PinholeCamera::for_scene(scene, settings.width, settings.height);
        if let Some(note) = note {
            log::info!("{note}");
        }
        let light_tables = lights.tables();
        let mut constants = PassConstants {
            positions: gpu_scene.meshes.positions.address(),
            indices: gpu_scene.meshes.indices.address(),
            instances: gpu_scene.instances.address(),
            meshes: gpu_scene.mesh_table.address(),
            materials: gpu_scene.materials.address(),
            top_level: accel.top_level.address(),
            queues: queues.address(),
            film: film.address(),
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
            ..PassConstants::default()
        };
        if let Some(state) = &path_state {
            state.fill(&mut constants);
        }
        let constants_buffer = Buffer::from_slice(context, "pass constants", &[constants], BufferUsage::STORAGE)?;
        let push_at = |bounce: u32| WavefrontPush {
            constants: constants_buffer.address(),
            bounce,
            pad0: 0,
        };

        context.run_once("clear film and build lights", |commands| {
            commands.fill_buffer(&film, 0, film.size(), 0);
            lights.record_flatten(commands, None)?;
            lights.record_build(commands, &gpu_scene, None)
        })?;

        let kernel_scopes = match settings.integrator {
            Integrator::Wavefront => wavefront::profiler_scopes(settings),
            Integrator::Megakernel => megakernel::PROFILER_SCOPES,
        };
        let mut pass = CommandBuffer::new(context, "sample pass")?;
        let mut profiler = Profiler::new(
            context,
            "sample pass kernels",
            1 + kernel_scopes + lights.profiler_scopes(),
        )?;
        pass.begin(context)?;
        profiler.reset(&mut pass);
        let whole_pass = profiler.begin(&mut pass, "sample_pass")?;
        if settings.rebuild_lights_every_pass {
            lights.record_build(&mut pass, &gpu_scene, Some(&mut profiler))?;
        }
        barrier(settings.backend, &mut pass);
        let kernels = match settings.integrator {
            Integrator::Wavefront => {
                wavefront::record_pass(context, settings, &mut pass, &mut profiler, &push_at, &queues)?
            }
            Integrator::Megakernel => {
                megakernel::record_pass(context, settings, &mut pass, &mut profiler, &push_at(0))?
            }
        };
        profiler.end(&mut pass, whole_pass)?;
        pass.end()?;

        Ok(Self {
            context: context.clone(),
            settings: settings.clone(),
            pass,
            profiler,
            film,
            queues,
            lights,
            bytes_per_path: match settings.integrator {
                Integrator::Wavefront => wavefront::BYTES_PER_PATH,
                Integrator::Megakernel => megakernel::BYTES_PER_PATH,
            },
            _constants: constants_buffer,
            _path_state: path_state,
            _accel: accel,
            _scene: gpu_scene,
            _kernels: kernels,
        })
    }

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
            extension_rays: counters[0].extend_rays,
            shadow_rays: counters[0].shadow_rays,
            extension_rays_per_second: counters[0].extend_rays as f64 / gpu_seconds,
            shadow_rays_per_second: counters[0].shadow_rays as f64 / gpu_seconds,
            kernel_milliseconds: kernel_ms,
            bytes_per_path: self.bytes_per_path,
            lights: self.lights.light_count(),
            light_selection: self.settings.light_selection,
        };
        Ok((image, stats))
    }
}
