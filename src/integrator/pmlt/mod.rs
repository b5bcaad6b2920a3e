//! Parallel Metropolis light transport: multiplexed MLT (Hachisuka et al. 2014) over the
//! bidirectional path tracer's paths, with the generalized Metropolis-Hastings step over many
//! proposals a chain (Calderhead 2014), on the GPU wavefront.
//!
//! A render is a bootstrap, then iterations:
//! 1. **Bootstrap**: `bootstrap` uniform samples per path length k are traced as BDPT paths of
//!    one strategy each (mlt.glsl chooses it from the sample's first number); b_k is their mean
//!    Y*. Chains are allotted to lengths in proportion to b_k, and each chain's first state is
//!    drawn from its length's samples in proportion to Y*: chains start in their stationary
//!    distribution (no start-up bias). While a length's b_k has a standard error above 2%
//!    (rare light), further rounds of as many samples under keys of their own refine every
//!    b_k, up to `bootstrap_rounds` rounds: b_k scales all of a length's light. With
//!    `pixel_importance`, Y* is the luminance times the pixel's importance (`importance.rs`),
//!    built from a round of its own before these.
//! 2. **Iterations**: every chain's `proposals` proposals are one batch of the BDPT kernels
//!    (their numbers recomputed from the chains' ids, `sample.rs`), each proposal's
//!    contribution lands in its record; then `pmlt/accept.comp`, a run of lanes a chain, splats
//!    every point with its transition probability and draws the next state. No read-back
//!    inside an iteration, every BDPT launch indirect from its queue.
//!
//! The image is sum_k W H b_k / (chains_k iterations) sum (weight F / Y*), splatted into the
//! float splat film and scaled by the resolve (docs/PMLT.md); with `large_step_mis`, Y* in
//! that sum becomes Y* + N p_large b_k and a large step's proposals weigh one more each.

pub mod importance;
pub mod sample;
pub mod start;

use std::time::Instant;

use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, MemoryLocation,
    Profiler, ScopeTiming,
};
use crate::interface::{
    MltChain, MltControl, MltFilmSumPush, MltRecord, MltScale, MltStatsPush, PassConstants, QueueState, WavefrontPush,
    MLT_MAX_PROPOSALS, MLT_STATS_GROUP, MLT_STATS_RUN,
};
use crate::lights::CullingFormat;
use crate::trace::{barrier, timed};

use super::bdpt::kernels::{BdptKernels, Recording};
use super::bdpt::Bdpt;
use super::contract::{render_before_record, Frame, Integrator, PassSamples, PassTimings, Setup, SUBMISSION_SCOPE};
use super::settings::{MltSettings, RenderSettings, SplatFilm};
use super::stats::{LengthStats, PmltStats, RenderStats};
use super::wavefront::path_state;
use start::{
    all_lengths, bootstrap_key, BootstrapTally, ChainStarter, LitRecord, StartPlan, StartSetup, MAX_BOOTSTRAP_ROUNDS,
};

/// The seed of the pass that starts at `first_sample`: the render's own for a whole render (and
/// a split render's first pass), a distinct one for every other start (an odd multiplier is a
/// bijection on u32), so that no two passes of a render share their chains' keys.
fn pass_seed(seed: u32, first_sample: u32) -> u32 {
    seed ^ first_sample.wrapping_mul(0x9E37_79B9)
}

/// Iterations are counted in the 24 bits a path keeps its sample index in.
const MAX_ITERATIONS: u32 = (1 << 24) - 1;
/// Iterations a submission records at most, and the proposals it aims to cover at least.
const MAX_ITERATIONS_PER_SUBMISSION: u32 = 16;
const PROPOSALS_PER_SUBMISSION: u64 = 1 << 21;
/// Dispatch groups along x; chains beyond go along y.
const MAX_GROUPS_X: u32 = 65_535;
/// A b_k standard error (over b_k) above which the bootstrap takes another round, and after its
/// last round warns that it was too small: the conventions' tolerance for an image's mean
/// (REFERENCE.md).
const B_ERROR_TARGET: f64 = 0.02;

/// The path lengths (from 1) with chains whose b_k, in `tally` (of Y*) or in `luminance`, has a
/// standard error above `B_ERROR_TARGET`.
fn uncertain_lengths(tally: &BootstrapTally, luminance: &BootstrapTally, chains_per_length: &[u32]) -> Vec<u32> {
    let (errors, luminance_errors) = (tally.relative_errors(), luminance.relative_errors());
    (0..chains_per_length.len())
        .filter(|&k| chains_per_length[k] > 0 && errors[k].max(luminance_errors[k]) > B_ERROR_TARGET)
        .map(|k| k as u32 + 1)
        .collect()
}

pub struct Pmlt {
    bdpt: Bdpt,
    mlt: MltSettings,
    width: u32,
    height: u32,
    spp: u32,
    max_depth: u32,
    seed: u32,
    chains: Buffer,
    records: Buffer,
    /// Each pixel's factor on Y* (`--mlt-pixel-importance`), built from each pass's bootstrap.
    pixel_importance: Option<Buffer>,
    /// Its address while the current pass uses it, else 0; and its factors on the host, which
    /// turn a bootstrap record's Y* back into its luminance.
    importance_address: u64,
    importance_factors: Vec<f32>,
    starter: ChainStarter,
    chain_stats: ComputePipeline<MltStatsPush>,
    film_luminance: FilmLuminance,
    splat_film: u64,
    scales: Buffer,
    control: Buffer,
    /// The queues' state at the start of a bootstrap round, which `bootstrap_start` copies in:
    /// a round's samples depend on the lengths it samples.
    bootstrap_queue: Buffer,
    accept_groups: Buffer,
    _by_address: Vec<Buffer>,
    recorded: Option<Recorded>,
    stats: PmltStats,
}

/// The float splat film's luminance summed on the GPU a workgroup at a time
/// (`pmlt/film_luminance.comp`), the workgroups' sums added on the host in f64.
struct FilmLuminance {
    pipeline: ComputePipeline<MltFilmSumPush>,
    sums: Buffer,
    pixels: u32,
}

impl FilmLuminance {
    fn new(context: &Context, pixels: u32) -> GpuResult<Self> {
        Ok(Self {
            pipeline: ComputePipeline::new(context, ids::PMLT_FILM_LUMINANCE, &[])?,
            sums: Buffer::gpu_storage(
                context,
                "mlt film luminance sums",
                u64::from(pixels.div_ceil(MLT_STATS_GROUP)) * 4,
            )?,
            pixels,
        })
    }

    fn sum(&self, context: &Context, film: u64) -> GpuResult<f64> {
        let groups = self.pixels.div_ceil(MLT_STATS_GROUP);
        let grid = DispatchSize::covering(u64::from(groups), MAX_GROUPS_X).ok_or_else(|| GpuError::InvalidUse {
            name: "pmlt".into(),
            problem: format!("{} pixels exceed the dispatch limits", self.pixels),
        })?;
        let push = MltFilmSumPush {
            film,
            sums: self.sums.address(),
            pixels: self.pixels,
            pad0: 0,
        };
        context.run_once("mlt film luminance", |commands| {
            commands.dispatch(&self.pipeline, &push, grid);
            commands.compute_barrier();
            Ok(())
        })?;
        let sums: Vec<f32> = self.sums.read_back(context, groups as usize)?;
        Ok(sums.iter().map(|&sum| f64::from(sum)).sum())
    }
}

struct Recorded {
    /// The pipelines the recordings launch, kept alive as long as they are.
    _kernels: BdptKernels,
    _accept: ComputePipeline<WavefrontPush>,
    /// The bootstrap's batches (BDPT's recording: a batch per path slots' worth of samples).
    bootstrap: Recording,
    bootstrap_start: CommandBuffer,
    iterations_start: CommandBuffer,
    /// A submission of iterations, and one of the plan's last few when they are fewer.
    iterations: Submission,
    tail: Option<Submission>,
}

/// Recorded iterations: each a batch of every chain's proposals, then the acceptance.
struct Submission {
    commands: CommandBuffer,
    profiler: Profiler,
    iterations: u32,
}

impl Pmlt {
    /// What Metropolis asks of the settings: BDPT's, and chains and proposals the kernels hold.
    pub fn check(settings: &RenderSettings) -> GpuResult<()> {
        let invalid = |problem: String| {
            Err(GpuError::InvalidUse {
                name: "render settings".into(),
                problem,
            })
        };
        let mlt = &settings.mlt;
        if settings.crop.is_some() {
            return invalid("Metropolis light transport covers the whole image: --tile is not supported".into());
        }
        if settings.strategy.is_some() {
            return invalid("--strategy renders BDPT's strategies alone; Metropolis chooses one per path".into());
        }
        if settings.light_culling.format != CullingFormat::Off {
            return invalid(
                "Metropolis light transport chooses lights by power alone (use --light-culling off)".into(),
            );
        }
        if !(1..=MAX_BOOTSTRAP_ROUNDS).contains(&mlt.bootstrap_rounds) {
            return Err(GpuError::InvalidUse {
                name: "pmlt".into(),
                problem: format!(
                    "--mlt-bootstrap-rounds {}: between 1 and {MAX_BOOTSTRAP_ROUNDS}",
                    mlt.bootstrap_rounds
                ),
            });
        }
        if mlt.chains == 0 || mlt.proposals == 0 || mlt.proposals > MLT_MAX_PROPOSALS || mlt.bootstrap == 0 {
            return invalid(format!(
                "--mlt-chains {} --mlt-proposals {} --mlt-bootstrap {}: chains and bootstrap samples must be \
                 positive, proposals 1 to {MLT_MAX_PROPOSALS}",
                mlt.chains, mlt.proposals, mlt.bootstrap
            ));
        }
        let slots = u64::from(mlt.chains) * u64::from(mlt.proposals);
        let bootstrap = u64::from(mlt.bootstrap) * u64::from(settings.max_depth);
        if slots * u64::from(settings.max_depth) > u64::from(path_state::MAX_SLOTS)
            || bootstrap > u64::from(u32::MAX >> 2)
        {
            return invalid(format!(
                "{} chains x {} proposals at depth {} ({} bootstrap samples): too many path slots",
                mlt.chains, mlt.proposals, settings.max_depth, bootstrap
            ));
        }
        if !((0.0..=1.0).contains(&mlt.small_step) && mlt.sigma > 0.0 && mlt.sigma.is_finite()) {
            return invalid(format!(
                "--mlt-small-step {} must be in [0, 1] and --mlt-sigma {} positive",
                mlt.small_step, mlt.sigma
            ));
        }
        if mlt.iterations.is_some_and(|n| n == 0 || n > MAX_ITERATIONS)
            || mlt.time_seconds.is_some_and(|t| !(t > 0.0 && t.is_finite()))
        {
            return invalid(format!(
                "--mlt-iterations must be 1 to {MAX_ITERATIONS} and --time positive seconds"
            ));
        }
        Bdpt::check(&Self::bdpt_settings(settings))
    }

    /// BDPT's settings under Metropolis: a path slot per proposal, splats to the float film
    /// (the acceptance kernel's weights are not integers), no Russian roulette (Y* must be
    /// a function of the primary sample, not of a coin whose outcome it cannot weigh).
    fn bdpt_settings(settings: &RenderSettings) -> RenderSettings {
        let mut bdpt = settings.clone();
        bdpt.path_slots = Some(settings.mlt.chains * settings.mlt.proposals);
        bdpt.splat_film = match settings.splat_film {
            SplatFilm::FloatCas => SplatFilm::FloatCas,
            SplatFilm::Fixed | SplatFilm::FloatAtomic => SplatFilm::FloatAtomic,
        };
        bdpt.rr_depth = 0;
        // A proposal's light subpath is its own primary sample's.
        bdpt.bdpt_light_share = 1;
        // Off unless asked: an iteration's launches hold a million proposals at most, too few
        // for 512 buckets of rays to be coherent. On the H100 the sort cost 16-17% of the
        // iterations a second on ajar and on the 1.02 M-triangle many-materials scene, where
        // BDPT's seven million slots a batch gain 7% (docs/BENCHMARKS.md).
        bdpt.sort_rays = Some(settings.sort_rays.unwrap_or(false));
        bdpt
    }

    pub fn new(setup: &Setup<'_>, constants: &mut PassConstants) -> GpuResult<Self> {
        Self::check(setup.settings)?;
        let settings = Self::bdpt_settings(setup.settings);
        let bdpt = Bdpt::new(
            &Setup {
                settings: &settings,
                ..*setup
            },
            constants,
        )?;
        let context = setup.context;
        let mlt = settings.mlt;
        let proposals = mlt.chains * mlt.proposals;
        let bootstrap_samples = mlt.bootstrap * settings.max_depth;
        let storage = |name: &str, bytes: u64, location: MemoryLocation| {
            Buffer::new(context, name, bytes.max(4), BufferUsage::STORAGE, location)
        };
        let record_bytes = std::mem::size_of::<MltRecord>() as u64;
        let chains = storage(
            "mlt chains",
            u64::from(mlt.chains) * std::mem::size_of::<MltChain>() as u64,
            MemoryLocation::GpuOnly,
        )?;
        let records = storage(
            "mlt records",
            u64::from(proposals.max(bootstrap_samples)) * record_bytes,
            MemoryLocation::GpuOnly,
        )?;
        let strategies = storage("mlt strategies", u64::from(proposals) * 4, MemoryLocation::GpuOnly)?;
        let scales = storage(
            "mlt scales",
            u64::from(settings.max_depth) * std::mem::size_of::<MltScale>() as u64,
            MemoryLocation::CpuToGpu,
        )?;
        // The control, then its table of a bootstrap round's path lengths.
        let control = storage(
            "mlt control",
            (std::mem::size_of::<MltControl>() + 4 * settings.max_depth as usize) as u64,
            MemoryLocation::CpuToGpu,
        )?;
        let queue_bytes = std::mem::size_of::<QueueState>() as u64;
        let bootstrap_queue = storage("mlt bootstrap queue start", queue_bytes, MemoryLocation::CpuToGpu)?;
        // Device-local: every proposal of every iteration reads it.
        let pixel_importance = match mlt.pixel_importance {
            true => Some(Buffer::gpu_storage(
                context,
                "mlt pixel importance",
                u64::from(settings.width) * u64::from(settings.height) * 4,
            )?),
            false => None,
        };
        let groups = sample::accept_workgroups(mlt.chains, mlt.proposals);
        let groups_x = groups.min(MAX_GROUPS_X);
        let accept_groups = Buffer::from_slice(
            context,
            "mlt acceptance groups",
            &[groups_x, groups.div_ceil(groups_x), 1, 0],
            BufferUsage {
                indirect: true,
                ..BufferUsage::STORAGE
            },
        )?;
        constants.rr_depth = 0;
        constants.mlt_chains = chains.address();
        constants.mlt_records = records.address();
        constants.mlt_strategies = strategies.address();
        constants.mlt_scales = scales.address();
        constants.mlt_control = control.address();
        constants.mlt_chain_count = mlt.chains;
        constants.mlt_proposals = mlt.proposals;
        constants.mlt_dimensions = sample::dimensions(settings.max_depth);
        constants.mlt_large_step = 1.0 - mlt.small_step;
        constants.mlt_sigma = mlt.sigma;
        Ok(Self {
            bdpt,
            mlt,
            width: settings.width,
            height: settings.height,
            spp: settings.spp,
            max_depth: settings.max_depth,
            seed: settings.seed,
            chains,
            pixel_importance,
            importance_address: 0,
            importance_factors: Vec::new(),
            starter: ChainStarter::new(context, bootstrap_samples as usize, mlt.chains)?,
            chain_stats: ComputePipeline::new(context, ids::PMLT_CHAIN_STATS, &[])?,
            film_luminance: FilmLuminance::new(context, settings.width * settings.height)?,
            splat_film: constants.splat_film,
            records,
            scales,
            control,
            bootstrap_queue,
            accept_groups,
            _by_address: vec![strategies],
            recorded: None,
            stats: PmltStats::default(),
        })
    }

    fn proposals(&self) -> u32 {
        self.mlt.chains * self.mlt.proposals
    }

    fn bootstrap_samples(&self) -> u32 {
        self.mlt.bootstrap * self.max_depth
    }

    /// Iterations to run for `spp` samples: as asked, else as many as make `spp` path
    /// evaluations per pixel, else (a time budget) as many as the time allows.
    fn planned_iterations(&self, spp: u32) -> u32 {
        match (self.mlt.iterations, self.mlt.time_seconds) {
            (Some(n), _) => n,
            (None, Some(_)) => MAX_ITERATIONS,
            (None, None) => {
                let evaluations = u64::from(self.width) * u64::from(self.height) * u64::from(spp);
                evaluations
                    .div_ceil(u64::from(self.proposals()))
                    .clamp(1, u64::from(MAX_ITERATIONS)) as u32
            }
        }
    }

    /// The phase of the pass under `seed` (`pass_seed`), in bootstrap round `round` (outside the
    /// bootstrap no kernel reads the round's key: 0).
    /// `lengths`: the path lengths of a bootstrap round; none outside the bootstrap.
    fn write_control(
        &mut self,
        seed: u32,
        round: u32,
        proposals: u32,
        lengths: &[u32],
        resolve_scale: f32,
    ) -> GpuResult<()> {
        self.control.write(
            0,
            &[MltControl {
                bootstrap_key: bootstrap_key(seed, round),
                proposals,
                lengths: lengths.len() as u32,
                resolve_scale,
                pad0: 0,
                pixel_importance: self.importance_address,
            }],
        )?;
        match lengths.is_empty() {
            true => Ok(()),
            false => self.control.write(std::mem::size_of::<MltControl>() as u64, lengths),
        }
    }

    /// A command buffer that sets the queues to the state `bootstrap_queue` holds.
    fn bootstrap_queue_start(&self, context: &Context, queues: &Buffer) -> GpuResult<CommandBuffer> {
        let mut commands = CommandBuffer::new(context, "mlt bootstrap start")?;
        commands.begin(context)?;
        let bytes = std::mem::size_of::<QueueState>() as u64;
        commands.copy_buffer(&self.bootstrap_queue, 0, queues, 0, bytes);
        commands.compute_barrier();
        commands.end()?;
        Ok(commands)
    }

    /// A command buffer that sets the queues to hand out `camera_paths` from the start.
    fn queue_start(context: &Context, queues: &Buffer, camera_paths: u64, name: &str) -> GpuResult<CommandBuffer> {
        let mut commands = CommandBuffer::new(context, name)?;
        commands.begin(context)?;
        commands.update_buffer(
            queues,
            0,
            &[QueueState {
                camera_paths,
                ..QueueState::default()
            }],
        );
        commands.compute_barrier();
        commands.end()?;
        Ok(commands)
    }

    /// The first bootstrap round b_k counts and the chains start from: round 0 is the pixels'
    /// importance's where that is on, so that b_k is measured on samples the importance was not
    /// built from (with the same samples, a block lit by one bright sample got a target that
    /// tamed that very sample, and b_k came out low: ajar 2.4% dark).
    fn start_round(&self) -> u32 {
        u32::from(self.pixel_importance.is_some())
    }

    fn start_setup(&self, seed: u32) -> StartSetup {
        StartSetup {
            seed,
            round: self.start_round(),
            how: self.mlt.start,
            depth: self.max_depth,
            bootstrap: self.mlt.bootstrap,
            chains: self.mlt.chains,
            pixels: self.width * self.height,
            pixel_importance: self.importance_address,
        }
    }

    /// Where `--mlt-pixel-importance` is on: each pixel's factor on Y* from round 0's records
    /// (read as plain luminance), for every later use of Y*. Their luminance also goes to
    /// `luminance`.
    fn build_pixel_importance(
        &mut self,
        context: &Context,
        seed: u32,
        luminance: &mut BootstrapTally,
    ) -> GpuResult<()> {
        // Round 0's Y* read without the last pass's map.
        self.importance_address = 0;
        self.importance_factors.clear();
        if self.pixel_importance.is_none() {
            return Ok(());
        }
        let setup = self.start_setup(seed);
        let lit = self
            .starter
            .lit_of_round(context, &self.records, &setup, self.max_depth)?;
        luminance.add(&lit, self.mlt.bootstrap, &all_lengths(self.max_depth));
        let factors = importance::pixel_importance(&lit, self.width, self.height);
        if let Some(buffer) = &self.pixel_importance {
            buffer.upload(context, &factors)?;
            self.importance_address = buffer.address();
            self.importance_factors = factors;
        }
        Ok(())
    }

    /// Lit records of a round with Y* as luminance alone: Y* over the pixel's importance.
    fn luminance_records(&self, lit: &[LitRecord]) -> Vec<LitRecord> {
        lit.iter()
            .map(|&[record, bits, pixel]| {
                let target = f32::from_bits(bits);
                let luminance = match self.importance_factors.get(pixel as usize) {
                    Some(&factor) if factor > 0.0 => (f64::from(target) / f64::from(factor)) as f32,
                    _ => target,
                };
                [record, luminance.to_bits(), pixel]
            })
            .collect()
    }

    /// One round of the bootstrap: `bootstrap` uniform samples of each of the path `lengths`
    /// under round `round`'s key, their records left in `records`.
    fn run_bootstrap_round(
        &mut self,
        context: &Context,
        seed: u32,
        round: u32,
        lengths: &[u32],
        timings: &mut Vec<ScopeTiming>,
        submissions: &mut u64,
    ) -> GpuResult<()> {
        let samples = self.mlt.bootstrap * lengths.len() as u32;
        self.write_control(seed, round, samples, lengths, 0.0)?;
        self.bootstrap_queue.write(
            0,
            &[QueueState {
                camera_paths: u64::from(samples),
                ..QueueState::default()
            }],
        )?;
        let samples = u64::from(samples);
        let recorded = self.recorded.as_mut().ok_or_else(render_before_record)?;
        recorded.bootstrap_start.submit_and_wait(context)?;
        recorded.bootstrap.status.write(0, &[QueueState::default()])?;
        loop {
            let status: QueueState = recorded.bootstrap.status.read::<QueueState>(0, 1)?[0];
            if status.next_camera_path >= samples {
                return Ok(());
            }
            recorded.bootstrap.batches.submit_and_wait(context)?;
            timings.extend(recorded.bootstrap.profiler.resolve()?);
            *submissions += 1;
        }
    }

    /// Further bootstrap rounds while a length with chains has a b_k, of Y* or of luminance
    /// alone (`luminance`, which sets the image's mean where it is normalised), less certain
    /// than `B_ERROR_TARGET`: each round samples only such lengths (the light seen directly
    /// needs rounds that the longer paths do not), adding its samples to `tally` and
    /// `luminance`. The chains started from the start round's records; after each round some
    /// of them move to its records (`start::redraw`), so that every chain's start is drawn from
    /// all the rounds' samples of its length, whose mean b_k is. The allotment of chains to
    /// lengths stays. Returns the tally and the rounds run.
    fn refine_bootstrap(
        &mut self,
        context: &Context,
        seed: u32,
        plan: &StartPlan,
        luminance: &mut BootstrapTally,
        timings: &mut Vec<ScopeTiming>,
        submissions: &mut u64,
    ) -> GpuResult<(BootstrapTally, u32)> {
        let mut tally = plan.tally.clone();
        let setup = self.start_setup(seed);
        let first = setup.round;
        let mut rounds = 1;
        for round in first + 1..first + self.mlt.bootstrap_rounds {
            let uncertain = uncertain_lengths(&tally, luminance, &plan.chains_per_length);
            if uncertain.is_empty() {
                break;
            }
            self.run_bootstrap_round(context, seed, round, &uncertain, timings, submissions)?;
            let lit = self
                .starter
                .lit_of_round(context, &self.records, &setup, uncertain.len() as u32)?;
            let round_setup = StartSetup { round, ..setup };
            let chosen = start::redraw(&lit, &uncertain, &tally, &round_setup, &plan.chains_per_length);
            let placement = start::Placement::Redraw;
            self.starter
                .place_chains(context, &self.records, &self.chains, &round_setup, &chosen, placement)?;
            tally.add(&lit, self.mlt.bootstrap, &uncertain);
            luminance.add(&self.luminance_records(&lit), self.mlt.bootstrap, &uncertain);
            rounds += 1;
        }
        Ok((tally, rounds))
    }

    /// Each length's splat scales from its b_k (all rounds) and its chains (allotted from the
    /// start round), and `--stats`' per-length figures; a warning where a b_k stays uncertain.
    fn apply_bootstrap(&mut self, plan: &StartPlan, tally: &BootstrapTally) -> GpuResult<()> {
        let pixels = f64::from(self.width) * f64::from(self.height);
        let uniform_samples = match self.mlt.large_step_mis {
            true => f64::from(self.mlt.proposals) * f64::from(1.0 - self.mlt.small_step),
            false => 0.0,
        };
        let b = tally.b();
        let errors = tally.relative_errors();
        let scales: Vec<MltScale> = b
            .iter()
            .zip(&plan.chains_per_length)
            .map(|(&b, &count)| match count {
                0 => MltScale::default(),
                count => MltScale {
                    image: (pixels * b / f64::from(count)) as f32,
                    uniform_luminance: (uniform_samples * b) as f32,
                },
            })
            .collect();
        self.scales.write(0, &scales)?;
        self.stats.lengths = (0..self.max_depth as usize)
            .map(|k| LengthStats {
                length: k as u32 + 1,
                b: b[k],
                b_relative_error: errors[k],
                bootstrap_samples: tally.samples[k],
                nonzero_share: tally.lit[k] as f64 / tally.samples[k].max(1) as f64,
                chains: plan.chains_per_length[k],
                ..LengthStats::default()
            })
            .collect();
        // b_k scales all of a length's light: an error there moves the whole image at once,
        // which no number of iterations averages out (docs/PMLT.md, "Bootstrap").
        if let Some((k, error)) = tally
            .worst_relative_error(&plan.chains_per_length)
            .filter(|&(_, error)| error > B_ERROR_TARGET)
        {
            log::warn!(
                "pmlt: b_k of paths of length {} rests on {} lit samples of the bootstrap's {}: their light, and so \
                 the image's, may be {:.1}% off (a standard error); raise --mlt-bootstrap or --mlt-bootstrap-rounds",
                k + 1,
                tally.lit[k],
                tally.samples[k],
                100.0 * error
            );
        }
        Ok(())
    }

    /// The pass's bootstrap under `seed`: the pixels' importance where it is on, the start round
    /// and the chains' start, then the rounds that refine b_k; each length's scale written. The
    /// start's plan and the luminance tally (which normalises the image).
    fn bootstrap(
        &mut self,
        context: &Context,
        seed: u32,
        timings: &mut Vec<ScopeTiming>,
        submissions: &mut u64,
    ) -> GpuResult<(StartPlan, BootstrapTally)> {
        let started = Instant::now();
        let every_length = all_lengths(self.max_depth);
        self.run_bootstrap_round(context, seed, 0, &every_length, timings, submissions)?;
        let mut luminance = BootstrapTally::new(self.max_depth);
        self.build_pixel_importance(context, seed, &mut luminance)?;
        if self.start_round() > 0 {
            self.run_bootstrap_round(context, seed, self.start_round(), &every_length, timings, submissions)?;
        }
        let starting = Instant::now();
        let setup = self.start_setup(seed);
        let plan = self.starter.start(context, &self.records, &self.chains, &setup)?;
        luminance.add(
            &self.luminance_records(&self.starter.lit_records(context)?),
            self.mlt.bootstrap,
            &every_length,
        );
        self.stats.chain_start_seconds = starting.elapsed().as_secs_f64();
        if plan.is_dark() {
            // The estimate a Metropolis render can give then: b_k = 0 for every length. A
            // scene whose light is rarer than one sample in the bootstrap's comes out black too.
            log::warn!(
                "pmlt: none of the bootstrap's {} uniform samples carries light, so the image is black \
                 (raise --mlt-bootstrap if the scene has light)",
                self.bootstrap_samples()
            );
        }
        let (tally, rounds) = self.refine_bootstrap(context, seed, &plan, &mut luminance, timings, submissions)?;
        self.apply_bootstrap(&plan, &tally)?;
        self.stats.bootstrap_rounds = rounds;
        let importance_samples = u64::from(self.start_round()) * u64::from(self.bootstrap_samples());
        self.stats.bootstrap_samples = tally.total_samples() + importance_samples;
        self.stats.bootstrap_seconds = started.elapsed().as_secs_f64();
        Ok((plan, luminance))
    }

    /// `count` iterations in one command buffer: each a BDPT batch of every chain's proposals,
    /// then the acceptance.
    fn record_iterations(
        &self,
        frame: &Frame<'_>,
        kernels: &BdptKernels,
        accept: &ComputePipeline<WavefrontPush>,
        count: u32,
    ) -> GpuResult<Submission> {
        let context = frame.context;
        let backend = frame.settings.backend;
        let max_depth = frame.settings.max_depth;
        let push = WavefrontPush {
            constants: frame.constants_address,
            argument: 0,
            pad0: 0,
        };
        let mut profiler = Profiler::new(
            context,
            "mlt iterations",
            1 + count * (kernels.batch_scopes(max_depth) + 1),
        )?;
        let mut commands = CommandBuffer::new(context, "mlt iterations")?;
        commands.begin(context)?;
        commands.use_textures(&frame.scene.textures);
        profiler.reset(&mut commands);
        let whole = profiler.begin(&mut commands, SUBMISSION_SCOPE)?;
        for _ in 0..count {
            kernels.record_batch(&mut commands, &mut profiler, &push, frame.queues, max_depth)?;
            timed(backend, &mut profiler, &mut commands, "accept", &|pass| {
                pass.dispatch_indirect(accept, &push, &self.accept_groups, 0)
            })?;
        }
        profiler.end(&mut commands, whole)?;
        barrier(backend, &mut commands);
        commands.end()?;
        Ok(Submission {
            commands,
            profiler,
            iterations: count,
        })
    }

    /// Acceptance and moves per length, summed on the GPU from the chains' counters
    /// (`pmlt/chain_stats.comp`, a run of at most MLT_STATS_RUN chains of one length a
    /// workgroup). Every chain makes every iteration, so a length's iterations are its chains
    /// times the render's.
    fn finish_stats(&mut self, context: &Context) -> GpuResult<()> {
        let mut runs: Vec<[u32; 2]> = Vec::new();
        let mut run_lengths: Vec<usize> = Vec::new();
        let mut first = 0u32;
        for (k, length) in self.stats.lengths.iter().enumerate() {
            let end = first + length.chains;
            while first < end {
                let count = (end - first).min(MLT_STATS_RUN);
                runs.push([first, count]);
                run_lengths.push(k);
                first += count;
            }
        }
        if runs.is_empty() {
            return Ok(());
        }
        let table = Buffer::from_slice(context, "mlt stats runs", &runs, BufferUsage::STORAGE)?;
        let sums = Buffer::gpu_storage(context, "mlt stats sums", runs.len() as u64 * 8)?;
        let push = MltStatsPush {
            chains: self.chains.address(),
            table: table.address(),
            sums: sums.address(),
            runs: runs.len() as u32,
            pad0: 0,
        };
        let grid = DispatchSize::covering(runs.len() as u64, MAX_GROUPS_X).ok_or_else(|| GpuError::InvalidUse {
            name: "pmlt".into(),
            problem: format!("{} runs of chains exceed the dispatch limits", runs.len()),
        })?;
        context.run_once("mlt chain stats", |commands| {
            commands.dispatch(&self.chain_stats, &push, grid);
            commands.compute_barrier();
            Ok(())
        })?;
        let sums: Vec<[f32; 2]> = sums.read_back(context, runs.len())?;
        let mut totals = vec![[0f64; 2]; self.stats.lengths.len()];
        for (&k, [acceptance, moves]) in run_lengths.iter().zip(sums) {
            totals[k][0] += f64::from(acceptance);
            totals[k][1] += f64::from(moves);
        }
        let iterations = f64::from(self.stats.iterations);
        for (length, [acceptance, moves]) in self.stats.lengths.iter_mut().zip(totals) {
            let length_iterations = f64::from(length.chains) * iterations;
            if length_iterations > 0.0 {
                length.acceptance = acceptance / length_iterations;
                length.move_rate = moves / length_iterations;
            }
        }
        Ok(())
    }

    /// The factor that makes the image's mean luminance the bootstrap's estimate of it: the
    /// sum of luminance b_k over the lengths with chains (`--mlt-normalise`; docs/PMLT.md,
    /// "Self-normalised"). The splats' luminance is not the same for every point: each pixel's
    /// importance divides it, and the large steps' balance weighs it. So how the chains happen
    /// to spread over bright and dim pixels moves the image's mean, by 4-11% on some random
    /// scenes; this takes that out and leaves the mean to the bootstrap's estimate (a length's
    /// shortfall is then spread over every pixel: docs/PMLT.md says what that costs). Ratio estimators like it are consistent, not unbiased, as b_k
    /// itself is. 1 where it is off or nothing was splatted.
    fn normalisation(
        &self,
        context: &Context,
        plan: &StartPlan,
        luminance: &BootstrapTally,
        iterations: u32,
    ) -> GpuResult<f64> {
        if !self.mlt.normalise || iterations == 0 || self.splat_film == 0 {
            return Ok(1.0);
        }
        let splatted = self.film_luminance.sum(context, self.splat_film)?;
        let mean: f64 = luminance
            .b()
            .iter()
            .zip(&plan.chains_per_length)
            .filter(|&(_, &chains)| chains > 0)
            .map(|(&b, _)| b)
            .sum();
        let expected = mean * f64::from(self.width * self.height) * f64::from(iterations);
        Ok(match expected > 0.0 && splatted > 0.0 && splatted.is_finite() {
            true => expected / splatted,
            false => 1.0,
        })
    }

    /// The chains' states (tests).
    pub fn chains(&self) -> &Buffer {
        &self.chains
    }
}

impl Integrator for Pmlt {
    fn record(&mut self, frame: &Frame<'_>) -> GpuResult<()> {
        let context = frame.context;
        let settings = frame.settings;
        let splat_film = self.bdpt.splat_film();
        let kernels = BdptKernels::new(
            context,
            settings.backend,
            frame.features,
            splat_film,
            settings.invocation_reorder,
            frame.constants,
        )?;
        let specialization = frame.features.specialization();
        let accept = ComputePipeline::<WavefrontPush>::specialised(
            context,
            match splat_film {
                SplatFilm::FloatCas => ids::PMLT_ACCEPT_FLOAT_CAS,
                SplatFilm::Fixed | SplatFilm::FloatAtomic => ids::PMLT_ACCEPT_FLOAT_ATOMIC,
            },
            &specialization,
        )?;
        let bootstrap_batches = self.bootstrap_samples().div_ceil(self.proposals());
        let bootstrap = kernels.record(frame, bootstrap_batches.min(MAX_ITERATIONS_PER_SUBMISSION))?;
        let bootstrap_start = self.bootstrap_queue_start(context, frame.queues)?;
        let iterations_start = Self::queue_start(
            context,
            frame.queues,
            u64::from(self.proposals()) * u64::from(self.planned_iterations(self.spp)),
            "mlt iterations start",
        )?;

        let per_submission = (PROPOSALS_PER_SUBMISSION / u64::from(self.proposals()))
            .clamp(1, u64::from(MAX_ITERATIONS_PER_SUBMISSION)) as u32;
        let planned = self.planned_iterations(self.spp);
        let iterations = self.record_iterations(frame, &kernels, &accept, per_submission.min(planned))?;
        let tail = match (self.mlt.time_seconds, planned % per_submission) {
            (None, left) if left > 0 && planned > per_submission => {
                Some(self.record_iterations(frame, &kernels, &accept, left)?)
            }
            _ => None,
        };
        self.recorded = Some(Recorded {
            _kernels: kernels,
            _accept: accept,
            bootstrap,
            bootstrap_start,
            iterations_start,
            iterations,
            tail,
        });
        Ok(())
    }

    fn render(
        &mut self,
        context: &Context,
        pass: PassSamples,
        progress: &mut dyn FnMut(f64),
    ) -> GpuResult<PassTimings> {
        if self.recorded.is_none() {
            return Err(render_before_record());
        }
        let mut timings = Vec::new();
        let mut submissions = 0u64;
        // A pass of a split render (chunks of samples on several devices, or `--samples`
        // parts) is a Metropolis render of its own: its own bootstrap and chains, under keys
        // of its own, weighted by its samples, so that the passes average as independent
        // estimates. A whole render is the one pass from sample 0, under the render's seed.
        let pixels = u64::from(self.width) * u64::from(self.height);
        let spp = u32::try_from(pass.camera_paths / pixels.max(1))
            .unwrap_or(u32::MAX)
            .max(1);
        let seed = pass_seed(self.seed, pass.first_sample);

        let (plan, luminance) = self.bootstrap(context, seed, &mut timings, &mut submissions)?;
        let lit = !plan.is_dark();

        self.write_control(seed, 0, self.proposals(), &[], 0.0)?;
        let planned = if lit { self.planned_iterations(spp) } else { 0 };
        let budget = self.mlt.time_seconds;
        let iterating = Instant::now();
        let mut done = 0u32;
        {
            let recorded = self.recorded.as_mut().ok_or_else(render_before_record)?;
            recorded.iterations_start.submit_and_wait(context)?;
            while done < planned && budget.is_none_or(|seconds| iterating.elapsed().as_secs_f64() < seconds) {
                // The plan's last iterations, when fewer than a submission, have their own.
                let submission = match &mut recorded.tail {
                    Some(tail) if planned - done < recorded.iterations.iterations => tail,
                    _ => &mut recorded.iterations,
                };
                submission.commands.submit_and_wait(context)?;
                timings.extend(submission.profiler.resolve()?);
                submissions += 1;
                done += submission.iterations;
                progress(match budget {
                    Some(seconds) => (iterating.elapsed().as_secs_f64() / seconds).min(1.0),
                    None => f64::from(done) / f64::from(planned),
                });
            }
        }
        self.stats.iterations = done;
        self.stats.iteration_seconds = iterating.elapsed().as_secs_f64();
        progress(1.0);

        self.stats.normalisation = self.normalisation(context, &plan, &luminance, done)?;
        // The film divides by spp; the splats were scaled per iteration's sample.
        let resolve_scale = (f64::from(spp) / f64::from(done.max(1)) * self.stats.normalisation) as f32;
        self.write_control(seed, 0, self.proposals(), &[], resolve_scale)?;
        let recorded = self.recorded.as_mut().ok_or_else(render_before_record)?;
        if let Some(resolve) = recorded.bootstrap.resolve.as_mut() {
            resolve.submit_and_wait(context)?;
        }
        self.finish_stats(context)?;
        Ok(PassTimings { timings, submissions })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn record_restart(&self, commands: &mut CommandBuffer, start: &QueueState) {
        // Every render starts with its own bootstrap and chains; BDPT's slots start empty.
        self.bdpt.record_restart(commands, start);
    }

    fn add_stats(&self, context: &Context, stats: &mut RenderStats) -> GpuResult<()> {
        self.bdpt.add_stats(context, stats)?;
        let mut pmlt = self.stats.clone();
        pmlt.chains = self.mlt.chains;
        pmlt.proposals = self.mlt.proposals;
        if pmlt.iteration_seconds > 0.0 {
            pmlt.iterations_per_second = f64::from(pmlt.iterations) / pmlt.iteration_seconds;
            pmlt.splats_per_second =
                f64::from(pmlt.iterations) * f64::from(self.proposals() + self.mlt.chains) / pmlt.iteration_seconds;
        }
        stats.pmlt = Some(pmlt);
        Ok(())
    }
}
