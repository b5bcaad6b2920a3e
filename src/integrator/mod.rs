//! Integrators: how light transport is estimated. The path tracer runs as a wavefront of kernels
//! over queues or as one megakernel; `Renderer` sets up either and replays its sample pass.

pub mod megakernel;
mod renderer;
pub mod wavefront;

pub use renderer::{RenderStats, Renderer};

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
    pub integrator: Integrator,
    pub light_selection: LightSelection,
    /// Rebuild the light tree at the start of every pass, as a scene with changing emission
    /// would, so that its cost shows in the statistics.
    pub rebuild_lights_every_pass: bool,
}

/// How a sample pass is organised on the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Integrator {
    /// One kernel per stage over queues of paths (`wavefront.rs`).
    #[default]
    Wavefront,
    /// One kernel traces each path from the camera to its end (`megakernel.rs`).
    Megakernel,
}
