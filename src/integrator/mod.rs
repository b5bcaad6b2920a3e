//! Integrators: how light transport is estimated. `wavefront` is the GPU path tracer.

pub mod wavefront;

use crate::gpu::TraceBackend;
use crate::lights::LightSelection;

/// What to render: size, samples, path length, seed and trace backend.
#[derive(Clone, Debug)]
pub struct RenderSettings {
    pub width: u32,
    pub height: u32,
    pub spp: u32,
    /// Mitsuba's `max_depth`: 1 = emitters seen directly.
    pub max_depth: u32,
    pub seed: u32,
    pub backend: TraceBackend,
    pub light_selection: LightSelection,
    /// Rebuild the light tree at the start of every pass, as a scene with changing emission
    /// would, so that its cost shows in the statistics.
    pub rebuild_lights_every_pass: bool,
}
