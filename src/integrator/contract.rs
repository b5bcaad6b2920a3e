//! The contract between the renderer and an integrator.
//!
//! The renderer owns what every integrator shares: the scene and its acceleration structures
//! on the GPU, the light sampler, the environment, the film, the queue state (ray counters,
//! camera paths handed out) and the pass constants. An integrator owns the rest (its path
//! state, kernels and recordings) and goes through three steps:
//!
//! 1. **create** (`integrator::create`), given a `Setup`: allocate its own buffers and fill
//!    the fields of `PassConstants` that are its own (path state addresses, sort sizes);
//! 2. **record** (`Integrator::record`), given a `Frame` once the constants are on the GPU:
//!    record its passes, which are then replayed;
//! 3. **render** (`Integrator::render`) every sample, reporting progress, then add its part
//!    of the statistics (`Integrator::add_stats`).

use crate::gpu::{Buffer, CommandBuffer, Context, GpuError, GpuResult, Profiler, ScopeTiming};
use crate::interface::{PassConstants, QueueState};
use crate::lights::{LightCulling, LightSampler};
use crate::scene::{GpuScene, Scene};

use super::kernel_features::KernelFeatures;
use super::settings::RenderSettings;
use super::stats::RenderStats;

/// What an integrator is created from.
pub struct Setup<'a> {
    pub context: &'a Context,
    pub scene: &'a Scene,
    pub settings: &'a RenderSettings,
    /// Pixels x samples per pixel.
    pub camera_paths: u64,
    /// What the scene's kernels are specialised to.
    pub features: KernelFeatures,
}

/// The render's shared GPU resources, as an integrator records its passes against them.
pub struct Frame<'a> {
    pub context: &'a Context,
    pub settings: &'a RenderSettings,
    /// The constants as filled, and the buffer device address kernels read them from.
    pub constants: &'a PassConstants,
    pub constants_address: u64,
    /// `QueueState`: counters and indirect arguments.
    pub queues: &'a Buffer,
    /// The scene's tables and its textures (set 0 of every pipeline).
    pub scene: &'a GpuScene,
    /// For `--rebuild-lights`, which records the light build and the light culling into
    /// every pass (`record_light_rebuild`).
    pub lights: &'a LightSampler,
    pub culling: Option<&'a LightCulling>,
    /// The scene's top-level acceleration structure, which culling's depth kernel traces.
    pub top_level: u64,
    /// What the scene's kernels are specialised to.
    pub features: KernelFeatures,
}

impl Frame<'_> {
    /// Records what `--rebuild-lights` replays at the start of every pass: the light
    /// selection's build and the light culling, as moving lights or a moving camera need.
    pub fn record_light_rebuild(
        &self,
        commands: &mut CommandBuffer,
        mut profiler: Option<&mut Profiler>,
    ) -> GpuResult<()> {
        if !self.settings.rebuild_lights_every_pass {
            return Ok(());
        }
        self.lights
            .record_build(commands, self.scene, profiler.as_deref_mut())?;
        match self.culling {
            Some(culling) => culling.record(commands, self.top_level, profiler),
            None => Ok(()),
        }
    }

    /// Profiler scopes `record_light_rebuild` opens.
    pub fn light_rebuild_scopes(&self) -> u32 {
        if !self.settings.rebuild_lights_every_pass {
            return 0;
        }
        self.lights.profiler_scopes() + self.culling.map_or(0, LightCulling::profiler_scopes)
    }
}

/// What running a render's passes took.
pub struct PassTimings {
    /// Every timestamp scope of every submission, in order.
    pub timings: Vec<ScopeTiming>,
    pub submissions: u64,
}

/// The error of an integrator asked to render before it recorded its passes.
pub fn render_before_record() -> GpuError {
    GpuError::InvalidUse {
        name: "integrator".into(),
        problem: "render called before record".into(),
    }
}

/// The name of the scope each integrator opens around a whole submission: the GPU's busy time.
pub const SUBMISSION_SCOPE: &str = "submission";

/// What one pass renders: samples `first_sample ..` of the render's sequence over the pixels it
/// covers, `camera_paths` (covered pixels x samples) in all. A whole render is one pass from
/// sample 0; a progressive or split render runs several.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassSamples {
    pub first_sample: u32,
    pub camera_paths: u64,
}

/// One way of estimating the image (path tracing as a wavefront or as a megakernel; later
/// bidirectional and Metropolis methods). `docs/EXTENDING.md` says how to add one.
pub trait Integrator {
    /// Records the passes that `render` replays.
    fn record(&mut self, frame: &Frame<'_>) -> GpuResult<()>;

    /// Runs the pass's samples (at most the camera paths `Setup` said), calling `progress` with
    /// the share of the work started.
    fn render(&mut self, context: &Context, pass: PassSamples, progress: &mut dyn FnMut(f64))
        -> GpuResult<PassTimings>;

    /// Records what returns the integrator's own state to how `record` found it, so that a
    /// progressive render's next pass (`Renderer::render_samples`) starts as a render does:
    /// the renderer resets what it owns (queues to `start`, constants) itself.
    fn record_restart(&self, commands: &mut CommandBuffer, start: &QueueState);

    /// Adds what only this integrator knows to the statistics the renderer filled.
    fn add_stats(&self, context: &Context, stats: &mut RenderStats) -> GpuResult<()>;

    /// The integrator itself, for tests and tools that inspect one kind's state.
    fn as_any(&self) -> &dyn std::any::Any;
}
