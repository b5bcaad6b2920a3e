//! A render: the scene on the GPU (`SceneResources`), the film, the queue state and the pass
//! constants every kernel reads, and the integrator the settings chose (`registry::create`),
//! whose recorded passes it runs to the end. Knows no integrator by name.

use crate::film::{Film, RgbImage, FILM_BYTES_PER_PIXEL};
use crate::gpu::{Buffer, BufferUsage, Context, GpuError, GpuResult, TraceBackend};
use crate::interface::{PassConstants, QueueState, SAMPLE_MASK, WAVEFRONT_GROUP};
use crate::lights::LightSelection;
use crate::scene::{RenderCamera, Scene};
use crate::trace::floor::RayLog;

use super::contract::{Frame, Integrator, PassSamples, PassTimings, Setup, SUBMISSION_SCOPE};
use super::kernel_features::KernelFeatures;
use super::registry;
use super::scene_resources::SceneResources;
use super::settings::{IntegratorKind, RenderSettings};
use super::stats::{kernel_times, KernelStats, RenderStats};

/// Camera paths are handed out in tiles of this many pixels square.
pub const TILE_SIZE: u32 = 16;
/// A path's sample index has `SAMPLE_BITS` bits and its segment the 8 above them.
const MAX_SPP: u32 = SAMPLE_MASK;
const MAX_DEPTH: u32 = 255;

pub struct Renderer {
    context: Context,
    settings: RenderSettings,
    // Dropped before the buffers its recordings use.
    integrator: Box<dyn Integrator>,
    film: Film,
    queues: Buffer,
    /// What the recordings read from `constants_buffer`; kept to rewrite what a progressive
    /// render changes between passes (the first sample, the camera).
    constants: PassConstants,
    constants_buffer: Buffer,
    /// Whether passes have run: a second `render` must then reset film and queues first.
    rendered: bool,
    resources: SceneResources,
    features: KernelFeatures,
    ray_log: Option<RayLog>,
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
            "an image of {}x{} is {} pixels; at most {} are supported",
            settings.width,
            settings.height,
            u64::from(settings.width) * u64::from(settings.height),
            u32::MAX / 3
        ));
    }
    if let Some(crop) = settings.crop {
        if !crop.fits(settings.width, settings.height) {
            return invalid(format!(
                "the tile {}x{} at ({}, {}) is not a non-empty part of the {}x{} image",
                crop.width, crop.height, crop.x, crop.y, settings.width, settings.height
            ));
        }
    }
    if settings.ray_log_capacity > 0 && settings.integrator == IntegratorKind::Megakernel {
        return invalid("the megakernel traces its rays itself: only extend and connect record them".into());
    }
    // Our own traversal needs nothing of the device beyond what every render needs.
    if settings.backend != TraceBackend::Software && !context.trace_backends().contains(&settings.backend) {
        return invalid(format!("this device has no {:?} trace backend", settings.backend));
    }
    Ok(())
}

/// The queue state at the start of a pass: every camera path still to hand out, and the
/// megakernel's first sample.
fn initial_queue_state(camera_paths: u64, first_sample: u32) -> QueueState {
    QueueState {
        camera_paths,
        sample_index: first_sample,
        ..QueueState::default()
    }
}

fn initial_queues(context: &Context, camera_paths: u64) -> GpuResult<Buffer> {
    let indirect = BufferUsage {
        indirect: true,
        ..BufferUsage::STORAGE
    };
    Buffer::from_slice(context, "queues", &[initial_queue_state(camera_paths, 0)], indirect)
}

/// What one pass of a progressive render cost.
#[derive(Clone, Debug)]
pub struct PassReport {
    pub kernels: Vec<KernelStats>,
    pub gpu_seconds: f64,
    pub wall_seconds: f64,
}

impl Renderer {
    pub fn new(context: &Context, scene: &Scene, settings: &RenderSettings) -> GpuResult<Self> {
        check_settings(settings, context)?;
        let crop = settings.covered();
        let camera_paths = crop.pixels() * u64::from(settings.spp);
        registry::check(settings)?;
        let split = match context.adapter().capabilities.max_primitive_count {
            0 => None,
            limit => scene.split_large_meshes(usize::try_from(limit).unwrap_or(usize::MAX)),
        };
        if let Some(split) = &split {
            for warning in &split.warnings[scene.warnings.len()..] {
                log::warn!("{}: {warning}", scene.source.display());
            }
        }
        let scene = split.as_ref().unwrap_or(scene);
        let resources = SceneResources::upload(context, scene, settings)?;
        let film = Film::new(context, settings.width, settings.height)?;
        let queues = initial_queues(context, camera_paths)?;

        let mut constants = PassConstants {
            queues: queues.address(),
            film: film.address(),
            seed: settings.seed,
            path_sampler: settings.sampler.code(),
            width: settings.width,
            height: settings.height,
            max_depth: settings.max_depth,
            rr_depth: settings.rr_depth,
            // Every instance and a miss (0), at most the 16 bits NVIDIA sorts on.
            reorder_hint_bits: (u32::BITS - (scene.instances.len() as u32 + 1).leading_zeros()).min(16),
            tile_size: TILE_SIZE,
            crop_x: crop.x,
            crop_y: crop.y,
            crop_width: crop.width,
            crop_height: crop.height,
            launch_lanes: match settings.backend {
                TraceBackend::Query | TraceBackend::Software => WAVEFRONT_GROUP,
                TraceBackend::Pipeline => context.subgroup_size(),
            },
            ..PassConstants::default()
        };
        resources.fill(scene, settings, &mut constants);
        let ray_log = match settings.ray_log_capacity {
            0 => None,
            capacity => Some(RayLog::new(context, capacity)?),
        };
        if let Some(log) = &ray_log {
            log.fill(&mut constants);
        }
        let features = if settings.general_kernels {
            KernelFeatures::ALL
        } else {
            KernelFeatures::of(scene, settings.environment.is_some(), constants.light_selection)
                .with_sampler(settings.sampler)
        };
        log::info!("kernels specialised to the scene's features: {features}");
        // Created after the scene's buffers, as before the integrator contract: allocated first,
        // the path state cost the 1 M-triangle scene 0.6% on the H100 (docs/BENCHMARKS.md).
        let setup = Setup {
            context,
            scene,
            settings,
            camera_paths,
            features,
        };
        let mut integrator = registry::create(&setup, &mut constants)?;
        let constants_buffer = Buffer::from_slice(context, "pass constants", &[constants], BufferUsage::STORAGE)?;

        context.run_once("clear film and build lights", |commands| {
            film.record_clear(commands);
            resources.record_build(commands)
        })?;
        integrator.record(&Frame {
            context,
            settings,
            constants: &constants,
            constants_address: constants_buffer.address(),
            queues: &queues,
            scene: &resources.scene,
            lights: &resources.lights,
            culling: resources.culling.as_ref(),
            top_level: resources.accel.top_level.address(),
            features,
        })?;
        Ok(Self {
            context: context.clone(),
            settings: settings.clone(),
            integrator,
            film,
            queues,
            constants,
            constants_buffer,
            rendered: false,
            resources,
            features,
            ray_log,
        })
    }

    /// The rays recorded for the trace floor, where the settings asked for them.
    pub fn ray_log(&self) -> Option<&RayLog> {
        self.ray_log.as_ref()
    }

    /// The device address of the scene's top-level acceleration structure.
    pub fn top_level_address(&self) -> u64 {
        self.resources.accel.top_level.address()
    }

    /// The integrator the settings chose (downcast through `Integrator::as_any`).
    pub fn integrator(&self) -> &dyn Integrator {
        self.integrator.as_ref()
    }

    /// Renders every sample and returns the mean radiance.
    pub fn render(&mut self) -> GpuResult<RgbImage> {
        self.render_with_progress(|_| {}).map(|(image, _)| image)
    }

    /// As `render`, calling `progress` with the share of the work started, and returning GPU
    /// timings and counts.
    pub fn render_with_progress(&mut self, mut progress: impl FnMut(f64)) -> GpuResult<(RgbImage, RenderStats)> {
        // A renderer that has rendered before starts from an empty film and full queues.
        if self.rendered {
            self.clear_film()?;
            self.restart(0, self.settings.spp)?;
        }
        self.rendered = true;
        let started = std::time::Instant::now();
        let pass = PassSamples {
            first_sample: 0,
            camera_paths: self.camera_paths(self.settings.spp),
        };
        let passes = self.integrator.render(&self.context, pass, &mut progress)?;
        let wall_seconds = started.elapsed().as_secs_f64();
        let image = self.film.read_mean(&self.context, self.settings.spp)?;
        let mut stats = self.stats(&passes, wall_seconds)?;
        self.integrator.add_stats(&self.context, &mut stats)?;
        Ok((image, stats))
    }

    /// The samples per pixel a progressive render may reach: a path's sample index has
    /// `SAMPLE_BITS` bits.
    pub const MAX_SAMPLES: u32 = MAX_SPP;

    /// Progressive rendering, as the viewer does it: adds samples `first_sample ..
    /// first_sample + settings.spp` of the render's sample sequence to the film, which keeps
    /// what earlier passes added (`clear_film` empties it). Passes 0, k, 2k, ... of k samples
    /// give the film of one render of their total, bit for bit (the film adds integers). The
    /// mean is `film()` over the samples added; nothing is read back.
    pub fn render_pass(&mut self, first_sample: u32) -> GpuResult<PassReport> {
        self.render_samples(first_sample, self.settings.spp)
    }

    /// As `render_pass`, for `count` samples, at most `settings.spp` (the samples the
    /// integrator's state was sized for): the last chunk of a split render may be short.
    pub fn render_samples(&mut self, first_sample: u32, count: u32) -> GpuResult<PassReport> {
        let spp = self.settings.spp;
        if count == 0 || count > spp || first_sample.checked_add(count).is_none_or(|end| end > MAX_SPP) {
            return Err(GpuError::InvalidUse {
                name: "progressive render".into(),
                problem: format!(
                    "samples {first_sample}..{first_sample}+{count}: 1 to {spp} a pass, at most {MAX_SPP} in all"
                ),
            });
        }
        let started = std::time::Instant::now();
        self.restart(first_sample, count)?;
        self.rendered = true;
        let pass = PassSamples {
            first_sample,
            camera_paths: self.camera_paths(count),
        };
        let passes = self.integrator.render(&self.context, pass, &mut |_| {})?;
        let wall_seconds = started.elapsed().as_secs_f64();
        let (kernels, gpu_ms) = kernel_times(&passes.timings, SUBMISSION_SCOPE);
        Ok(PassReport {
            kernels,
            gpu_seconds: gpu_ms * 1e-3,
            wall_seconds,
        })
    }

    /// Camera paths of `spp` samples over the pixels the render covers.
    fn camera_paths(&self, spp: u32) -> u64 {
        self.settings.covered().pixels() * u64::from(spp)
    }

    /// Resets what a pass starts from: the first sample in the constants, the queues (every
    /// camera path of `spp` samples to hand out) and the integrator's own state.
    fn restart(&mut self, first_sample: u32, spp: u32) -> GpuResult<()> {
        self.constants.first_sample = first_sample;
        let queues = initial_queue_state(self.camera_paths(spp), first_sample);
        self.context.run_once("start pass", |commands| {
            commands.update_buffer(&self.constants_buffer, 0, &[self.constants]);
            commands.update_buffer(&self.queues, 0, &[queues]);
            commands.compute_barrier();
            self.integrator.record_restart(commands, &queues);
            Ok(())
        })
    }

    /// Empties the film, as a progressive render does when the view changes.
    pub fn clear_film(&self) -> GpuResult<()> {
        self.context.run_once("clear film", |commands| {
            self.film.record_clear(commands);
            commands.compute_barrier();
            Ok(())
        })
    }

    /// The film passes add to: fixed-point sums per pixel (`film.glsl`).
    pub fn film(&self) -> &Film {
        &self.film
    }

    /// The light selection the kernels use: the settings' as `LightSelection::for_scene`
    /// resolves it for this scene.
    pub fn light_selection(&self) -> LightSelection {
        self.resources.lights.selection()
    }

    /// The settings the renderer was made with (`spp`: the samples of one pass).
    pub fn settings(&self) -> &RenderSettings {
        &self.settings
    }

    /// The camera of the passes to come; light culling's screen tiles follow it. The film is
    /// not cleared (`clear_film`).
    pub fn set_camera(&mut self, camera: &RenderCamera) -> GpuResult<()> {
        if self.settings.rebuild_lights_every_pass && self.resources.culling.is_some() {
            return Err(GpuError::InvalidUse {
                name: "camera".into(),
                problem: "--rebuild-lights replays light culling with the camera it was recorded with".into(),
            });
        }
        camera.fill(&mut self.constants);
        self.context.run_once("move camera", |commands| {
            commands.update_buffer(&self.constants_buffer, 0, &[self.constants]);
            commands.compute_barrier();
            Ok(())
        })?;
        let top_level = self.resources.accel.top_level.address();
        if let Some(culling) = &mut self.resources.culling {
            culling.set_camera(*camera);
            self.context.run_once("cull lights for the camera", |commands| {
                culling.record(commands, top_level, None)
            })?;
        }
        Ok(())
    }

    /// What every integrator's render shares: times, rays, lights.
    fn stats(&self, passes: &PassTimings, wall_seconds: f64) -> GpuResult<RenderStats> {
        let (kernels, gpu_ms) = kernel_times(&passes.timings, SUBMISSION_SCOPE);
        let gpu_seconds = if gpu_ms > 0.0 { gpu_ms * 1e-3 } else { wall_seconds };
        let queues: Vec<QueueState> = self.queues.read_back(&self.context, 1)?;
        let settings = &self.settings;
        let samples = self.camera_paths(settings.spp) as f64;
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
            submissions: passes.submissions,
            schedule: None,
            path_slots: 0,
            bytes_per_path: 0,
            unpacked_bytes_per_path: 0,
            film_bytes_per_pixel: FILM_BYTES_PER_PIXEL,
            sort_by_material: false,
            sort_rays: false,
            lights: self.resources.lights.light_count(),
            light_selection: self.resources.lights.selection(),
            kernel_features: self.features.to_string(),
            bdpt: None,
            pmlt: None,
            culling: match &self.resources.culling {
                Some(culling) => Some(culling.stats(&self.context)?),
                None => None,
            },
        })
    }
}
