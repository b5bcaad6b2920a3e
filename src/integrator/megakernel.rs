//! The megakernel baseline: one kernel traces a whole path per pixel, from the camera ray to
//! its last vertex, keeping the path in registers (the design "Megakernels Considered Harmful"
//! measures the wavefront against). Same shading code (`path.glsl`) and random numbers as the
//! wavefront kernels, so the two estimate the same image; ray queries in a compute shader, or
//! a raygen shader that loops, with the wavefront trace kernels' miss and hit shaders.

use crate::gpu::shaders::ids;
use crate::gpu::{CommandBuffer, ComputePipeline, Context, DispatchSize, GpuResult, Profiler};
use crate::interface::{QueueState, WavefrontPush, FEATURE_ALPHA};
use crate::trace::{self, TraceKernel, TraceShaders};

use super::contract::{render_before_record, Frame, Integrator, PassSamples, PassTimings, Setup, SUBMISSION_SCOPE};
use super::stats::RenderStats;

/// Profiler scopes a sample pass opens besides the light rebuild: the whole pass and the
/// path kernel.
const PROFILER_SCOPES: u32 = 2;

/// The kernels, and the sample pass once recorded.
pub struct Megakernel {
    trace_paths: TraceKernel,
    finish_pass: ComputePipeline<WavefrontPush>,
    recorded: Option<(CommandBuffer, Profiler)>,
    /// Pixels a sample covers.
    pixels: u64,
    /// Samples of each pixel one launch traces (`launch_samples`).
    samples_per_launch: u32,
}

/// Invocations one launch holds at most: 16 samples of a 1024 x 1024 image, about 60 ms on
/// an H100. A launch per sample leaves the GPU draining between samples (each waits for its
/// longest paths while fewer and fewer threads run): 16 samples a launch were 1-4.5% faster on
/// the H100, within 0.2% of a whole render in one launch (docs/BENCHMARKS.md). The bound keeps
/// a launch short enough for a display GPU's watchdog and for progress reports.
const MAX_LAUNCH_INVOCATIONS: u64 = 1 << 24;

/// Samples of each pixel one launch traces: as many as the render has, within the bound above
/// and the device's launch depth.
fn launch_samples(context: &Context, pixels: u64, spp: u32) -> u32 {
    let layers = context.adapter().capabilities.max_compute_workgroup_count[2];
    let by_invocations = u32::try_from(MAX_LAUNCH_INVOCATIONS / pixels.max(1)).unwrap_or(u32::MAX);
    spp.min(layers).min(by_invocations).max(1)
}

impl Megakernel {
    pub fn new(setup: &Setup<'_>) -> GpuResult<Self> {
        let context = setup.context;
        let trace_paths = TraceKernel::new(
            context,
            setup.settings.backend,
            "trace_paths",
            &TraceShaders {
                query: ids::MEGAKERNEL_TRACE_PATHS_QUERY,
                software: Some(ids::MEGAKERNEL_TRACE_PATHS_SOFTWARE),
                raygen: trace::appending_raygen(
                    context,
                    ids::MEGAKERNEL_TRACE_PATHS_SUBGROUP_RGEN,
                    ids::MEGAKERNEL_TRACE_PATHS_LANES_RGEN,
                ),
                miss: &[ids::TRACE_EXTEND_RMISS],
                closest_hit: ids::TRACE_EXTEND_RCHIT,
                alpha_holes: setup.features.contains(FEATURE_ALPHA),
                specialization: &setup.features.specialization(),
            },
        )?;
        Ok(Self {
            trace_paths,
            finish_pass: ComputePipeline::new(context, ids::MEGAKERNEL_FINISH_PASS, &[])?,
            recorded: None,
            pixels: setup.settings.covered().pixels(),
            samples_per_launch: launch_samples(context, setup.settings.covered().pixels(), setup.settings.spp),
        })
    }
}

impl Integrator for Megakernel {
    /// One pass of `samples_per_launch` samples: the light rebuild where asked, the path
    /// kernel, then the pass's bookkeeping (`finish_pass` moves the sample index on).
    fn record(&mut self, frame: &Frame<'_>) -> GpuResult<()> {
        let settings = frame.settings;
        let backend = settings.backend;
        let push = WavefrontPush {
            constants: frame.constants_address,
            argument: self.samples_per_launch,
            pad0: 0,
        };
        let mut pass = CommandBuffer::new(frame.context, "megakernel sample pass")?;
        let mut profiler = Profiler::new(
            frame.context,
            "sample pass kernels",
            PROFILER_SCOPES + frame.light_rebuild_scopes(),
        )?;
        pass.begin(frame.context)?;
        pass.use_textures(&frame.scene.textures);
        profiler.reset(&mut pass);
        let whole_pass = profiler.begin(&mut pass, SUBMISSION_SCOPE)?;
        frame.record_light_rebuild(&mut pass, Some(&mut profiler))?;
        trace::barrier(backend, &mut pass);
        trace::timed(backend, &mut profiler, &mut pass, "trace_paths", &|pass| {
            self.trace_paths.record_per_pixel_layers(
                pass,
                &push,
                settings.covered().width,
                settings.covered().height,
                self.samples_per_launch,
            )
        })?;
        pass.dispatch(&self.finish_pass, &push, DispatchSize { x: 1, y: 1 });
        trace::barrier(backend, &mut pass);
        profiler.end(&mut pass, whole_pass)?;
        pass.end()?;
        self.recorded = Some((pass, profiler));
        Ok(())
    }

    fn render(
        &mut self,
        context: &Context,
        samples_of_pass: PassSamples,
        progress: &mut dyn FnMut(f64),
    ) -> GpuResult<PassTimings> {
        let camera_paths = samples_of_pass.camera_paths;
        let (pass, profiler) = self.recorded.as_mut().ok_or_else(render_before_record)?;
        let samples = camera_paths / self.pixels;
        let submissions = samples.div_ceil(u64::from(self.samples_per_launch));
        let mut timings = Vec::new();
        for done in 1..=submissions {
            pass.submit_and_wait(context)?;
            timings.extend(profiler.resolve()?);
            progress(done as f64 / submissions as f64);
        }
        Ok(PassTimings { timings, submissions })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    /// The megakernel keeps no path state between passes: its sample index is in the queues.
    fn record_restart(&self, _commands: &mut CommandBuffer, _start: &QueueState) {}

    /// The megakernel keeps no counters of its own: the renderer's statistics are all there is.
    fn add_stats(&self, _context: &Context, _stats: &mut RenderStats) -> GpuResult<()> {
        Ok(())
    }
}
