//! Integrators: how light transport is estimated. `Renderer` puts the scene on the GPU and
//! runs the integrator the settings name; each integrator implements the `Integrator`
//! contract (`contract.rs`): the path tracer as a wavefront of kernels over queues
//! (`wavefront/`) or as one megakernel (`megakernel.rs`), and bidirectional path tracing on
//! the wavefront's queues (`bdpt/`), and parallel Metropolis light transport over its paths
//! (`pmlt/`).

pub mod bdpt;
mod contract;
mod kernel_features;
pub mod megakernel;
pub mod pmlt;
mod registry;
mod renderer;
pub mod scene_resources;
mod settings;
mod stats;
pub mod wavefront;

pub use contract::{Frame, Integrator, PassSamples, PassTimings, Setup, SUBMISSION_SCOPE};
pub use kernel_features::KernelFeatures;
pub use renderer::{PassReport, Renderer, TILE_SIZE};
pub use scene_resources::SceneResources;
pub use settings::{
    Crop, IntegratorKind, MltSettings, MltStart, RenderSettings, Sampler, Schedule, SplatFilm,
    DEFAULT_BDPT_LIGHT_SHARE, DEFAULT_RR_DEPTH, RAY_SORT_AUTO_TRIANGLES,
};
pub use stats::{BdptStats, KernelStats, LengthStats, PmltStats, RenderStats, StrategyCount};
