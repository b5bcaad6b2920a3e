//! A render: the scene, its acceleration structures, light sampler, film and pass constants on
//! the GPU, and the chosen integrator: the wavefront (path slots, kernels and a scheduler) or
//! the megakernel (one recorded sample pass, replayed once per sample).

use std::any::Any;

use crate::accel::SceneAccel;
use crate::environment::GpuEnvironment;
use crate::film::RgbImage;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, Context, GpuError, GpuResult, MemoryLocation, Profiler, ScopeTiming,
    TraceBackend,
};
use crate::interface::{KernelCounters, PassConstants, QueueState, WavefrontPush};
use crate::lights::{LightSampler, PunctualLights};
use crate::primitives::counting_sort;
use crate::scene::{GpuScene, PinholeCamera, Scene};

use super::kernel_graph::{Kernel, GRAPH};
use super::path_state::{self, PathState, Sorts};
use super::scheduler::{Prelude, Scheduler, Work, SUBMISSION_SCOPE};
use super::wavefront::{StepInputs, WavefrontKernels};
use super::{megakernel, Integrator, RenderSettings, Schedule};

/// The film's fixed-point scale (film.glsl's FILM_SCALE).
const FILM_SCALE: f64 = 16_777_216.0;
/// Bytes of film per pixel: three 64-bit sums.
pub const FILM_BYTES_PER_PIXEL: u64 = 24;
/// Camera paths are handed out in tiles of this many pixels square.
pub const TILE_SIZE: u32 = 16;
/// The sample index has 24 bits and the segment 8 in a path's packed word.
const MAX_SPP: u32 = (1 << 24) - 1;
const MAX_DEPTH: u32 = 255;

/// One kernel's share of a render.
#[derive(Clone, Debug, serde::Serialize)]
pub struct KernelStats {
    pub name: String,
    pub milliseconds: f64,
    /// Launches recorded and run (an empty queue's zero-size launch included).
    pub launches: u64,
    /// For the queue kernels and generate, from the counts they were launched with: launches
    /// with work, paths processed, the share of launched lanes that had a path (lanes of a
    /// launch: its count rounded up to the workgroup or subgroup), and paths per launch with
    /// work as a share of the path slots.
    pub busy_launches: Option<u64>,
    pub items: Option<u64>,
    pub active_lane_share: Option<f64>,
    pub slot_share: Option<f64>,
}

/// What a render cost.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RenderStats {
    pub wall_seconds: f64,
    /// Sum of the per-submission timestamp scopes: the GPU's busy time.
    pub gpu_seconds: f64,
    /// Wall time outside the GPU's submissions: submits, fences and (Cycles-style) the
    /// read-back of the queue counts before each step.
    pub host_wait_seconds: f64,
    pub samples_per_second: f64,
    /// Extension (closest-hit) and shadow rays traced, and per second of GPU time.
    pub extension_rays: u64,
    pub shadow_rays: u64,
    pub extension_rays_per_second: f64,
    pub shadow_rays_per_second: f64,
    /// Per kernel, in order of first launch.
    pub kernels: Vec<KernelStats>,
    pub submissions: u64,
    pub schedule: Option<Schedule>,
    pub path_slots: u32,
    /// Path state per slot as stored, and as an unpacked layout would store it.
    pub bytes_per_path: u64,
    pub unpacked_bytes_per_path: u64,
    pub film_bytes_per_pixel: u64,
    pub sort_by_material: bool,
    pub sort_rays: bool,
    /// Emissive triangles, and how next-event estimation chose among them.
    pub lights: u32,
    pub light_selection: crate::lights::LightSelection,
}

impl RenderStats {
    /// The named kernel's milliseconds, if it ran.
    pub fn kernel_ms(&self, name: &str) -> Option<f64> {
        self.kernels.iter().find(|k| k.name == name).map(|k| k.milliseconds)
    }
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

/// The shade queue's sort: by material when asked, and by slot range after a ray sort, whose
/// order would otherwise scatter shading's reads of the path state.
struct ShadeSort {
    material_buckets: u32,
    partitions: u32,
    partition_size: u32,
}

fn shade_sort(settings: &RenderSettings, sort_rays: bool, material_count: u32, slots: u32) -> ShadeSort {
    let material_buckets = if settings.sort_by_material {
        material_count.min(counting_sort::MAX_BUCKETS)
    } else {
        1
    };
    let partitions = if sort_rays {
        counting_sort::MAX_BUCKETS / material_buckets
    } else {
        1
    };
    ShadeSort {
        material_buckets,
        partitions,
        partition_size: slots.div_ceil(partitions),
    }
}

impl ShadeSort {
    fn buckets(&self) -> u32 {
        self.material_buckets * self.partitions
    }

    fn fill(&self, constants: &mut PassConstants) {
        let buckets = self.buckets();
        constants.sort_buckets = if buckets > 1 { buckets } else { 0 };
        constants.material_sort_buckets = self.material_buckets;
        constants.sort_partitions = self.partitions;
        constants.sort_partition_size = self.partition_size;
    }
}

enum Run {
    Wavefront {
        scheduler: Box<Scheduler>,
        _kernels: Box<WavefrontKernels>,
        _state: PathState,
    },
    Megakernel {
        pass: CommandBuffer,
        profiler: Profiler,
        _kernels: Box<dyn Any>,
    },
}

pub struct Renderer {
    context: Context,
    settings: RenderSettings,
    run: Run,
    film: Buffer,
    queues: Buffer,
    counters: Buffer,
    lights: LightSampler,
    path_slots: u32,
    sort_rays: bool,
    /// The wavefront's sorts (None for the megakernel).
    sorts: Option<Sorts>,
    // Kept alive for the recordings, which read them by address or bind them.
    _constants: Buffer,
    _accel: SceneAccel,
    _scene: GpuScene,
    _environment: GpuEnvironment,
    _punctual: PunctualLights,
}

fn check_settings(settings: &RenderSettings, context: &Context) -> GpuResult<()> {
    let invalid = |problem: String| {
        Err(GpuError::InvalidUse {
            name: "render settings".into(),
            problem,
        })
    };
    if settings.width == 0 || settings.height == 0 || settings.spp == 0 || settings.max_depth == 0 {
        return invalid(format!(
            "{}x{} at {} spp, depth {}: all must be positive",
            settings.width, settings.height, settings.spp, settings.max_depth
        ));
    }
    if settings.spp > MAX_SPP || settings.max_depth > MAX_DEPTH {
        return invalid(format!(
            "{} spp at depth {}: at most {MAX_SPP} spp and depth {MAX_DEPTH} are supported",
            settings.spp, settings.max_depth
        ));
    }
    if u64::from(settings.width) * u64::from(settings.height) > u64::from(u32::MAX / 3) {
        return invalid(format!(
            "{}x{}: at most {} pixels are supported",
            settings.width,
            settings.height,
            u32::MAX / 3
        ));
    }
    if let Some(slots) = settings.path_slots {
        if slots == 0 || slots > path_state::MAX_SLOTS {
            return invalid(format!(
                "{slots} path slots: between 1 and {} are supported",
                path_state::MAX_SLOTS
            ));
        }
    }
    if !context.trace_backends().contains(&settings.backend) {
        return invalid(format!("this device has no {:?} trace backend", settings.backend));
    }
    Ok(())
}

impl Renderer {
    pub fn new(context: &Context, scene: &Scene, settings: &RenderSettings) -> GpuResult<Self> {
        check_settings(settings, context)?;
        let pixels = u64::from(settings.width) * u64::from(settings.height);
        let camera_paths = pixels * u64::from(settings.spp);

        let gpu_scene = GpuScene::upload(context, scene)?;
        let accel = SceneAccel::build(context, scene, &gpu_scene.meshes)?;
        let lights = LightSampler::new(context, scene, &gpu_scene, settings.light_selection)?;
        let environment = GpuEnvironment::new(context, settings.environment.as_ref())?;
        let punctual = PunctualLights::new(context, scene)?;
        let film = Buffer::new(
            context,
            "film",
            pixels * FILM_BYTES_PER_PIXEL,
            BufferUsage::STORAGE,
            MemoryLocation::GpuOnly,
        )?;
        let indirect = BufferUsage {
            indirect: true,
            ..BufferUsage::STORAGE
        };
        let queues = Buffer::from_slice(
            context,
            "queues",
            &[QueueState {
                camera_paths,
                ..QueueState::default()
            }],
            indirect,
        )?;
        let counters = Buffer::from_slice(
            context,
            "kernel counters",
            &[KernelCounters::default(); GRAPH.len()],
            BufferUsage::STORAGE,
        )?;
        let material_count = scene.materials.len().max(1) as u32;
        let wavefront = settings.integrator == Integrator::Wavefront;
        let sort_rays = wavefront
            && settings
                .sort_rays
                .unwrap_or(scene.triangle_count() >= super::RAY_SORT_AUTO_TRIANGLES);
        let state = match settings.integrator {
            Integrator::Wavefront => {
                let sorts = Sorts {
                    shade: shade_sort(settings, sort_rays, material_count, 1).buckets() > 1,
                    rays: sort_rays,
                };
                let slots = settings
                    .path_slots
                    .unwrap_or_else(|| path_state::default_path_slots(context, camera_paths, sorts));
                Some(PathState::new(context, slots, sorts)?)
            }
            Integrator::Megakernel => None,
        };

        let (camera, note) = PinholeCamera::for_scene(scene, settings.width, settings.height);
        if let Some(note) = note {
            log::info!("{note}");
        }
        // The ray sort's 4x4x4 grid over the scene's bounds (a flat scene gets a unit extent).
        let ray_grid = scene
            .bounds()
            .map_or((glam::Vec3::ZERO, glam::Vec3::ONE), |(low, high)| {
                (low, 4.0 / (high - low).max(glam::Vec3::splat(1e-6)))
            });
        let light_tables = lights.tables();
        let mut constants = PassConstants {
            positions: gpu_scene.meshes.positions.address(),
            indices: gpu_scene.meshes.indices.address(),
            instances: gpu_scene.instances.address(),
            meshes: gpu_scene.mesh_table.address(),
            materials: gpu_scene.materials.address(),
            normals: gpu_scene.meshes.normals.address(),
            uvs: gpu_scene.meshes.uvs.address(),
            tangents: gpu_scene.meshes.tangents.address(),
            top_level: accel.top_level.address(),
            queues: queues.address(),
            kernel_counters: counters.address(),
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
            width: settings.width,
            height: settings.height,
            max_depth: settings.max_depth,
            tile_size: TILE_SIZE,
            material_count,
            ray_sort_origin: ray_grid.0,
            ray_sort_scale: ray_grid.1,
            ray_sort_buckets: if sort_rays {
                super::wavefront::RAY_SORT_BUCKETS
            } else {
                0
            },
            launch_lanes: match settings.backend {
                TraceBackend::Query => megakernel::GROUP,
                TraceBackend::Pipeline => context.subgroup_size(),
            },
            ..PassConstants::default()
        };
        punctual.fill(&mut constants);
        let other_lights = light_tables.count + constants.punctual_count;
        environment.fill(&mut constants, other_lights);
        if let Some(state) = &state {
            state.fill(&mut constants);
            shade_sort(settings, sort_rays, material_count, state.slots()).fill(&mut constants);
        }
        let sort_buckets = constants.sort_buckets;
        let constants_buffer = Buffer::from_slice(context, "pass constants", &[constants], BufferUsage::STORAGE)?;

        context.run_once("clear film and build lights", |commands| {
            commands.fill_buffer(&film, 0, film.size(), 0);
            lights.record_flatten(commands, None)?;
            lights.record_build(commands, &gpu_scene, None)?;
            environment.record_build(commands)
        })?;

        let sorts = state.as_ref().map(PathState::sorts);
        let run = match state {
            Some(state) => {
                let kernels = WavefrontKernels::new(context, settings.backend, sort_buckets, sort_rays)?;
                let inputs = StepInputs::new(constants_buffer.address(), &queues, &constants, &gpu_scene.textures);
                let rebuild = |commands: &mut CommandBuffer, profiler: &mut Profiler| {
                    if settings.rebuild_lights_every_pass {
                        lights.record_build(commands, &gpu_scene, Some(profiler))?;
                    }
                    Ok(())
                };
                let prelude = Prelude {
                    record: &rebuild,
                    scopes: if settings.rebuild_lights_every_pass {
                        lights.profiler_scopes()
                    } else {
                        0
                    },
                };
                let work = Work {
                    schedule: settings.schedule,
                    backend: settings.backend,
                    slots: state.slots(),
                    camera_paths,
                    max_depth: settings.max_depth,
                };
                let scheduler = Scheduler::new(context, &work, &kernels, &inputs, &prelude)?;
                Run::Wavefront {
                    scheduler: Box::new(scheduler),
                    _kernels: Box::new(kernels),
                    _state: state,
                }
            }
            None => {
                let push = WavefrontPush {
                    constants: constants_buffer.address(),
                    argument: 0,
                    pad0: 0,
                };
                let mut pass = CommandBuffer::new(context, "megakernel sample pass")?;
                let mut profiler = Profiler::new(
                    context,
                    "sample pass kernels",
                    1 + megakernel::PROFILER_SCOPES + lights.profiler_scopes(),
                )?;
                pass.begin(context)?;
                pass.use_textures(&gpu_scene.textures);
                profiler.reset(&mut pass);
                let whole_pass = profiler.begin(&mut pass, SUBMISSION_SCOPE)?;
                if settings.rebuild_lights_every_pass {
                    lights.record_build(&mut pass, &gpu_scene, Some(&mut profiler))?;
                }
                barrier(settings.backend, &mut pass);
                let kernels = megakernel::record_pass(context, settings, &mut pass, &mut profiler, &push)?;
                profiler.end(&mut pass, whole_pass)?;
                pass.end()?;
                Run::Megakernel {
                    pass,
                    profiler,
                    _kernels: kernels,
                }
            }
        };

        Ok(Self {
            context: context.clone(),
            settings: settings.clone(),
            path_slots: constants.path_slots,
            sort_rays,
            sorts,
            run,
            film,
            queues,
            counters,
            lights,
            _constants: constants_buffer,
            _accel: accel,
            _environment: environment,
            _punctual: punctual,
            _scene: gpu_scene,
        })
    }

    /// Renders every sample and returns the mean radiance.
    pub fn render(&mut self) -> GpuResult<RgbImage> {
        self.render_with_progress(|_| {}).map(|(image, _)| image)
    }

    /// As `render`, calling `progress` with the share of the work started, and returning GPU
    /// timings and counts.
    pub fn render_with_progress(&mut self, mut progress: impl FnMut(f64)) -> GpuResult<(RgbImage, RenderStats)> {
        let started = std::time::Instant::now();
        let (timings, submissions) = match &mut self.run {
            Run::Wavefront { scheduler, .. } => {
                let run = scheduler.run(&self.context, &mut progress)?;
                (run.timings, run.submissions)
            }
            Run::Megakernel { pass, profiler, .. } => {
                let mut timings = Vec::new();
                for done in 1..=self.settings.spp {
                    pass.submit_and_wait(&self.context)?;
                    timings.extend(profiler.resolve()?);
                    progress(f64::from(done) / f64::from(self.settings.spp));
                }
                (timings, u64::from(self.settings.spp))
            }
        };
        let wall_seconds = started.elapsed().as_secs_f64();
        let image = self.read_film()?;
        let stats = self.stats(&timings, submissions, wall_seconds)?;
        Ok((image, stats))
    }

    fn read_film(&self) -> GpuResult<RgbImage> {
        let (width, height) = (self.settings.width as usize, self.settings.height as usize);
        let sums: Vec<u64> = self.film.read_back(&self.context, width * height * 3)?;
        let scale = 1.0 / (FILM_SCALE * f64::from(self.settings.spp));
        Ok(RgbImage {
            width,
            height,
            pixels: sums
                .chunks_exact(3)
                .map(|s| [s[0], s[1], s[2]].map(|v| (v as f64 * scale) as f32))
                .collect(),
        })
    }

    fn stats(&self, timings: &[ScopeTiming], submissions: u64, wall_seconds: f64) -> GpuResult<RenderStats> {
        let mut kernels: Vec<KernelStats> = Vec::new();
        let mut gpu_ms = 0.0;
        for timing in timings {
            if timing.name == SUBMISSION_SCOPE {
                gpu_ms += timing.milliseconds;
                continue;
            }
            match kernels.iter_mut().find(|k| k.name == timing.name) {
                Some(kernel) => {
                    kernel.milliseconds += timing.milliseconds;
                    kernel.launches += 1;
                }
                None => kernels.push(KernelStats {
                    name: timing.name.clone(),
                    milliseconds: timing.milliseconds,
                    launches: 1,
                    busy_launches: None,
                    items: None,
                    active_lane_share: None,
                    slot_share: None,
                }),
            }
        }
        let wavefront = matches!(self.run, Run::Wavefront { .. });
        if wavefront {
            let counters: Vec<KernelCounters> = self.counters.read_back(&self.context, GRAPH.len())?;
            // Counter 0 is generate's, then one per queue in queue order (prepare_launch).
            let names = [
                (Kernel::Generate, 0usize),
                (Kernel::Extend, 1),
                (Kernel::ShadeSurface, 2),
                (Kernel::Connect, 3),
            ];
            for (kernel, index) in names {
                let name = super::kernel_graph::node(kernel).name;
                let counter = counters[index];
                if let Some(stats) = kernels.iter_mut().find(|k| k.name == name) {
                    stats.busy_launches = Some(u64::from(counter.busy_launches));
                    stats.items = Some(counter.items);
                    stats.active_lane_share = Some(if counter.lanes == 0 {
                        0.0
                    } else {
                        counter.items as f64 / counter.lanes as f64
                    });
                    let busy = f64::from(counter.busy_launches.max(1));
                    stats.slot_share = Some(counter.items as f64 / (busy * f64::from(self.path_slots.max(1))));
                }
            }
        }
        let gpu_seconds = if gpu_ms > 0.0 { gpu_ms * 1e-3 } else { wall_seconds };
        let queues: Vec<QueueState> = self.queues.read_back(&self.context, 1)?;
        let samples = f64::from(self.settings.width) * f64::from(self.settings.height) * f64::from(self.settings.spp);
        Ok(RenderStats {
            wall_seconds,
            gpu_seconds,
            host_wait_seconds: (wall_seconds - gpu_seconds).max(0.0),
            samples_per_second: samples / gpu_seconds,
            extension_rays: queues[0].extend_rays,
            shadow_rays: queues[0].shadow_rays,
            extension_rays_per_second: queues[0].extend_rays as f64 / gpu_seconds,
            shadow_rays_per_second: queues[0].shadow_rays as f64 / gpu_seconds,
            kernels,
            submissions,
            schedule: wavefront.then_some(self.settings.schedule),
            path_slots: if wavefront { self.path_slots } else { 0 },
            bytes_per_path: self.sorts.map_or(0, path_state::bytes_per_slot),
            unpacked_bytes_per_path: if wavefront {
                path_state::unpacked_bytes_per_slot()
            } else {
                0
            },
            film_bytes_per_pixel: FILM_BYTES_PER_PIXEL,
            sort_by_material: wavefront && self.settings.sort_by_material,
            sort_rays: self.sort_rays,
            lights: self.lights.light_count(),
            light_selection: self.settings.light_selection,
        })
    }
}
