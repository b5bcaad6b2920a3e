//! What a render cost: GPU and wall time, rays, and per kernel its time, launches and the
//! paths it processed. The renderer fills what every integrator shares; each integrator adds
//! its own (`Integrator::add_stats`).

use crate::gpu::ScopeTiming;
use crate::lights::LightSelection;

use super::settings::{Schedule, SplatFilm};

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
    pub light_selection: LightSelection,
    /// The scene features the kernels were specialised to (`KernelFeatures`).
    pub kernel_features: String,
    /// Bidirectional path tracing's own counts.
    pub bdpt: Option<BdptStats>,
    /// Metropolis light transport's chains (`--integrator pmlt`).
    pub pmlt: Option<PmltStats>,
    /// What light culling's cells hold, where culling is on.
    pub culling: Option<CullingStats>,
}

pub use crate::lights::culling::CullingStats;

/// The shadow paths one bidirectional strategy queued.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct StrategyCount {
    pub s: u32,
    pub t: u32,
    pub shadow_rays: u64,
}

/// What bidirectional path tracing traced, by subpath and by strategy.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BdptStats {
    pub path_slots: u32,
    pub splat_film: SplatFilm,
    pub light_subpath_rays: u64,
    pub camera_subpath_rays: u64,
    /// Shadow paths of next-event estimation (s = 1), of connections (s, t >= 2) and of
    /// splats (t = 1).
    pub next_event: u64,
    pub connections: u64,
    pub splats: u64,
    /// Every strategy that queued a shadow path.
    pub strategies: Vec<StrategyCount>,
}

impl RenderStats {
    /// The named kernel's milliseconds, if it ran.
    pub fn kernel_ms(&self, name: &str) -> Option<f64> {
        self.kernels.iter().find(|k| k.name == name).map(|k| k.milliseconds)
    }
}

impl KernelStats {
    /// A kernel seen once, with `milliseconds` in its first launch.
    pub fn new(name: &str, milliseconds: f64) -> Self {
        Self {
            name: name.to_string(),
            milliseconds,
            launches: 1,
            busy_launches: None,
            items: None,
            active_lane_share: None,
            slot_share: None,
        }
    }
}

/// Per-kernel time and launches from a render's timestamp scopes, in order of first launch,
/// and the GPU's busy time: the sum of the scopes named `whole_submission`.
pub fn kernel_times(timings: &[ScopeTiming], whole_submission: &str) -> (Vec<KernelStats>, f64) {
    let mut kernels: Vec<KernelStats> = Vec::new();
    let mut gpu_ms = 0.0;
    for timing in timings {
        if timing.name == whole_submission {
            gpu_ms += timing.milliseconds;
            continue;
        }
        match kernels.iter_mut().find(|k| k.name == timing.name) {
            Some(kernel) => {
                kernel.milliseconds += timing.milliseconds;
                kernel.launches += 1;
            }
            None => kernels.push(KernelStats::new(&timing.name, timing.milliseconds)),
        }
    }
    (kernels, gpu_ms)
}

/// Metropolis light transport's run (`--integrator pmlt`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PmltStats {
    pub chains: u32,
    pub proposals: u32,
    pub iterations: u32,
    /// The bootstrap's rounds for b_k (the first of every length, later ones of the lengths
    /// still uncertain), its uniform samples (all rounds and lengths, the pixels' importance's
    /// round included) and its seconds.
    pub bootstrap_rounds: u32,
    pub bootstrap_samples: u64,
    pub bootstrap_seconds: f64,
    /// Of those, the seconds spent reading the bootstrap's records back and starting the chains
    /// on the host.
    pub chain_start_seconds: f64,
    /// Iterations' seconds, wall clock, after the bootstrap.
    pub iteration_seconds: f64,
    pub iterations_per_second: f64,
    /// Points splatted a second: every proposal and every chain's current state each iteration.
    pub splats_per_second: f64,
    /// What the image was scaled by so that its mean luminance is the bootstrap's estimate of
    /// it (1 with `--mlt-normalise off`).
    pub normalisation: f64,
    pub lengths: Vec<LengthStats>,
}

/// One path length's chains.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LengthStats {
    pub length: u32,
    /// b_k: the mean Y* of the bootstrap's uniform samples of this length.
    pub b: f64,
    /// b_k's standard error over b_k: how far this render's light of this length may be off.
    pub b_relative_error: f64,
    /// The bootstrap's uniform samples of this length, over the rounds that sampled it (those
    /// of the pixels' importance apart).
    pub bootstrap_samples: u64,
    /// Share of the bootstrap's samples of this length with Y* > 0.
    pub nonzero_share: f64,
    pub chains: u32,
    /// Mean probability of leaving the current state an iteration (sum over proposals of A).
    pub acceptance: f64,
    /// Share of iterations whose drawn next state was a proposal.
    pub move_rate: f64,
}
