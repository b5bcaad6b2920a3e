//! What a render is asked for: image size, samples, path length, the integrator and its
//! options. Plain data, checked by the renderer before any GPU work.

use crate::environment::Environment;
use crate::gpu::TraceBackend;
use crate::lights::{CullingSettings, LightSelection};
pub use crate::sampler::Sampler;
use crate::scene::Scene;

/// What to render: size, samples, path length, seed and trace backend.
#[derive(Clone, Debug)]
pub struct RenderSettings {
    pub width: u32,
    pub height: u32,
    pub spp: u32,
    /// Mitsuba's `max_depth`: 1 = emitters seen directly.
    pub max_depth: u32,
    /// Russian roulette after this many scattering events (Mitsuba's `rr_depth`, default 5):
    /// a path goes on with probability min(max(throughput), 0.95) and is reweighted by its
    /// inverse. 0 turns it off.
    pub rr_depth: u32,
    pub seed: u32,
    /// Where a path's random numbers come from.
    pub sampler: Sampler,
    pub backend: TraceBackend,
    pub integrator: IntegratorKind,
    pub light_selection: LightSelection,
    /// Lights of finite range chosen among those culled to the shading point's cell.
    pub light_culling: CullingSettings,
    /// Rebuild the light tree at the start of every pass, as a scene with changing emission
    /// would, so that its cost shows in the statistics.
    pub rebuild_lights_every_pass: bool,
    /// How the wavefront chooses its next kernel.
    pub schedule: Schedule,
    /// Wavefront path slots; `None`: from device memory (`wavefront::path_state::default_path_slots`).
    pub path_slots: Option<u32>,
    /// Sort the paths waiting for shading by material (wavefront).
    pub sort_by_material: bool,
    /// Sort the rays waiting for extend and connect by direction and origin (the wavefront
    /// path tracer and BDPT); `None`: when the scene has `RAY_SORT_AUTO_TRIANGLES` triangles or
    /// more (`sorts_rays`), and never for PMLT.
    pub sort_rays: Option<bool>,
    /// Light from around the scene; `None`: black.
    pub environment: Option<Environment>,
    /// Where bidirectional path tracing adds light vertices seen by the camera.
    pub splat_film: SplatFilm,
    /// Bidirectional path tracing: render strategy (s, t) alone, unweighted (`None`: every
    /// strategy, weighted by MIS).
    pub strategy: Option<(u32, u32)>,
    /// Bidirectional path tracing: the camera subpaths that connect to each light subpath,
    /// pixels of a group 8 apart (1, 2 or 4; `bdpt::light_groups`). Fewer light subpaths trace
    /// fewer rays a sample; MIS counts them (docs/BDPT.md).
    pub bdpt_light_share: u32,
    /// Kernels that handle every scene feature, instead of kernels specialised to what the
    /// scene uses (`KernelFeatures`).
    pub general_kernels: bool,
    /// Record the rays extend and connect trace, up to this many of each kind, for the trace
    /// floor (`trace::floor`); 0: none. Integrators that trace through extend and connect only
    /// (the wavefront, bdpt).
    pub ray_log_capacity: u32,
    /// One bottom level for every instance instead of one per mesh (`accel`).
    pub merge_instances: bool,
    /// Shader execution reordering (VK_NV_ray_tracing_invocation_reorder) in the extend kernel,
    /// where the device has it.
    pub invocation_reorder: bool,
    /// The pixels to render (`render --tile`); `None`: the whole image. The film is the whole
    /// image's either way, and a pixel's samples do not depend on the crop.
    pub crop: Option<Crop>,
    /// Metropolis light transport's chains, proposals and mutations (`--integrator pmlt`).
    pub mlt: MltSettings,
}

/// Parallel Metropolis light transport (`pmlt/`, docs/PMLT.md).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MltSettings {
    /// Chains, each of one path length, allotted to lengths in proportion to their b_k.
    pub chains: u32,
    /// Proposals a chain makes each iteration (at most MLT_MAX_PROPOSALS).
    pub proposals: u32,
    /// Uniform samples per path length that estimate b_k and start the chains.
    pub bootstrap: u32,
    /// Rounds of `bootstrap` samples a length a bootstrap may take at most: a round more, of
    /// the lengths whose b_k has a standard error above 2%, while there are any (the chains
    /// start from the first round's).
    pub bootstrap_rounds: u32,
    /// Iterations; `None`: as many as make `spp` path evaluations per pixel (or as fit `time`).
    pub iterations: Option<u32>,
    /// Iterate until this many seconds have passed (instead of a count).
    pub time_seconds: Option<f64>,
    /// The chance that an iteration's proposals are small steps (else large steps).
    pub small_step: f32,
    /// Small steps' deviation in primary sample space.
    pub sigma: f32,
    /// Large steps' proposals count as uniform samples of their own besides the chains', the
    /// two weighed by the balance heuristic (Kelemen et al. 2002); else the chains alone.
    pub large_step_mis: bool,
    /// The chains' target is Y* times each pixel's importance, the inverse of its brightness
    /// as the bootstrap saw it (Hoberock and Hart 2010): chains spend about the same relative
    /// effort on every pixel instead of effort in proportion to brightness (pmlt/importance.rs).
    pub pixel_importance: bool,
    /// The image scaled so that its mean luminance is the bootstrap's estimate of it, instead of
    /// whatever the chains' splats add up to (pmlt/mod.rs, `normalisation`): the image's mean
    /// then does not move with how the chains spread over bright and dim pixels.
    pub normalise: bool,
    /// Where chains start.
    pub start: MltStart,
}

/// Where Metropolis chains start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum MltStart {
    /// Drawn from the bootstrap's samples in proportion to their contribution: already
    /// distributed as the chains' target, so no iteration is start-up bias.
    #[default]
    Bootstrap,
    /// Every chain of a path length at one state (the length's first bootstrap sample that
    /// carries light), the start that leaves start-up bias; for tests that show what the
    /// bootstrap avoids.
    FixedState,
}

impl Default for MltSettings {
    fn default() -> Self {
        Self {
            // Many chains of one proposal converged fastest on the H100 at equal time (ajar,
            // docs/PMLT.md): a chain's proposals share its base, where chains do not. A larger
            // bootstrap gives the chains more distinct first states and b_k within a few tenths
            // of a percent.
            chains: 1 << 20,
            proposals: 1,
            bootstrap: 1 << 20,
            // Up to 4x less error in b_k where light is rare (a 6% error to 1.5%); none of the
            // benchmark scenes needs a second round (b_k within 1.3%).
            bootstrap_rounds: 16,
            iterations: None,
            time_seconds: None,
            small_step: 0.7,
            // With 2^20 chains, 1/128 beat 1/64 by 12% on ajar and 31% on the 2560 x 1920
            // Cornell box at equal time; 1/256 and 1/32 were worse on ajar (docs/BENCHMARKS.md).
            sigma: 1.0 / 128.0,
            large_step_mis: true,
            pixel_importance: true,
            normalise: true,
            start: MltStart::Bootstrap,
        }
    }
}

/// A rectangle of the image's pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Crop {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

impl Crop {
    pub fn whole(width: u32, height: u32) -> Self {
        Self {
            x: 0,
            y: 0,
            width,
            height,
        }
    }

    pub fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }

    /// Whether the rectangle is non-empty and inside an image of `width` x `height`.
    pub fn fits(&self, width: u32, height: u32) -> bool {
        self.width > 0
            && self.height > 0
            && u64::from(self.x) + u64::from(self.width) <= u64::from(width)
            && u64::from(self.y) + u64::from(self.height) <= u64::from(height)
    }

    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.x && y >= self.y && x - self.x < self.width && y - self.y < self.height
    }
}

impl RenderSettings {
    /// Whether extend and connect sort their rays for `scene`: as asked, or where the scene is
    /// large enough for the sort to pay (`RAY_SORT_AUTO_TRIANGLES`).
    pub fn sorts_rays(&self, scene: &Scene) -> bool {
        self.sort_rays
            .unwrap_or(scene.triangle_count() >= RAY_SORT_AUTO_TRIANGLES)
    }

    /// Defaults for everything but the image, samples, depth and backend.
    pub fn new(width: u32, height: u32, spp: u32, max_depth: u32, backend: TraceBackend) -> Self {
        Self {
            width,
            height,
            spp,
            max_depth,
            rr_depth: DEFAULT_RR_DEPTH,
            seed: 1,
            sampler: Sampler::default(),
            backend,
            integrator: IntegratorKind::default(),
            light_selection: LightSelection::default(),
            light_culling: CullingSettings::default(),
            rebuild_lights_every_pass: false,
            schedule: Schedule::default(),
            path_slots: None,
            sort_by_material: false,
            sort_rays: None,
            environment: None,
            splat_film: SplatFilm::default(),
            strategy: None,
            bdpt_light_share: DEFAULT_BDPT_LIGHT_SHARE,
            general_kernels: false,
            ray_log_capacity: 0,
            merge_instances: false,
            invocation_reorder: true,
            crop: None,
            mlt: MltSettings::default(),
        }
    }

    /// The pixels this render covers: `crop`, or the whole image.
    pub fn covered(&self) -> Crop {
        self.crop.unwrap_or(Crop::whole(self.width, self.height))
    }
}

/// Camera subpaths a light subpath serves in bidirectional path tracing, by default.
pub const DEFAULT_BDPT_LIGHT_SHARE: u32 = 2;

/// Mitsuba's default `rr_depth`.
pub const DEFAULT_RR_DEPTH: u32 = 5;

/// From this many triangles the ray sort pays for itself on the H100: traversal dominates and
/// coherent warps traverse faster (path tracer: 1.02 M triangles +8%, the Cornell box's 32
/// -14%; bidirectional: +8% and -7%; docs/BENCHMARKS.md).
pub const RAY_SORT_AUTO_TRIANGLES: usize = 100_000;

/// The wavefront's scheduler (`wavefront/scheduler.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Schedule {
    /// A fixed sequence of indirect launches per iteration; no count is read back.
    #[default]
    Gpu,
    /// The kernel with the most queued paths next, chosen on the CPU from read-back counts.
    Cycles,
}

impl Schedule {
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Gpu => "gpu",
            Schedule::Cycles => "cycles",
        }
    }
}

impl std::str::FromStr for Schedule {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "gpu" => Ok(Schedule::Gpu),
            "cycles" => Ok(Schedule::Cycles),
            other => Err(format!("unknown schedule `{other}`: gpu or cycles")),
        }
    }
}

/// Which integrator renders (`integrator::create` makes it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntegratorKind {
    /// The path tracer as one kernel per stage over queues of paths (`wavefront/`).
    #[default]
    Wavefront,
    /// The path tracer as one kernel that traces each path from the camera to its end
    /// (`megakernel.rs`).
    Megakernel,
    /// Bidirectional path tracing on the wavefront's queues (`bdpt/`).
    Bdpt,
    /// Parallel Metropolis light transport over BDPT's paths (`pmlt/`).
    Pmlt,
}

/// Where bidirectional path tracing's splats (light vertices seen by the camera, which land on
/// any pixel) are summed (`--splat-film`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplatFilm {
    /// The fixed-point film every other contribution goes to: integer atomics, whose sums do
    /// not depend on their order, so an image is the same bits on every run.
    #[default]
    Fixed,
    /// A film of 64-bit float sums with float atomic adds (a compare-and-swap loop where the
    /// device has no 64-bit float atomics), added into the fixed-point film at the end.
    FloatAtomic,
    /// The float film with the compare-and-swap loop on every device.
    FloatCas,
}

impl std::str::FromStr for SplatFilm {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "fixed" => Ok(SplatFilm::Fixed),
            "float" => Ok(SplatFilm::FloatAtomic),
            "cas" => Ok(SplatFilm::FloatCas),
            other => Err(format!("unknown splat film `{other}`: fixed, float or cas")),
        }
    }
}
