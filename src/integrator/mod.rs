//! Integrators: how light transport is estimated. `wavefront` is the GPU path tracer.

pub mod wavefront;

use crate::gpu::TraceBackend;

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
}
