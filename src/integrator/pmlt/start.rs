//! The chains' first states, drawn from the bootstrap's records so that the chains start in
//! their stationary distribution (docs/PMLT.md, "Bootstrap").
//!
//! The GPU computes each record's Y* (`pmlt/start_luminance.comp`) and lists the records that
//! carry light, in order, with their Y* and pixel (a prefix sum, then `pmlt/start_compact.comp`). The
//! host reads that list back (2-6% of uniform samples carry light), sums it per path length
//! in f64 (b_k, and the running sums the draws search), allots chains to lengths and draws
//! each chain's entry; then the GPU builds each chain's state from its record and its key
//! (`pmlt/start_chains.comp`). Reading the whole 16-byte records back and drawing a million
//! keys on the host took most of a 0.3 s bootstrap on the H100. `host_chain` is the last
//! kernel's CPU twin, which the tests hold it to.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, BufferUsage, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, MemoryLocation};
use crate::integrator::settings::MltStart;
use crate::interface::{MltChain, MltRecord, MltStartPush, MLT_KEEP_CHAIN, MLT_START_GROUP};
use crate::primitives::{PrefixSum, ScanElement};
use crate::rng::{squares_key, squares_uniform};

/// `squares_key`'s chain number of the bootstrap's key, apart from every chain's.
const BOOTSTRAP_KEY_CHAIN: u32 = u32::MAX;
/// The draw of the chains' first states, apart from every path's numbers.
const START_DRAW_KEY_CHAIN: u32 = u32::MAX - 1;
/// Rounds a bootstrap may have for b_k (one more may go to the pixels' importance): their keys'
/// chain numbers lie just below the start draw's, far above any chain's.
pub const MAX_BOOTSTRAP_ROUNDS: u32 = 64;

/// What the chains start from: `bootstrap` samples a length for lengths 1 to `depth`, sample i
/// of length k + 1 at record k + i depth (mlt.glsl's `mlt_path_length`). Y* is the record's
/// luminance times its pixel's factor in `pixel_importance` (the address of `pixels` floats),
/// or the luminance alone where that is 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct StartSetup {
    pub seed: u32,
    /// The bootstrap round whose records the chains start from.
    pub round: u32,
    pub how: MltStart,
    pub depth: u32,
    pub bootstrap: u32,
    pub chains: u32,
    pub pixels: u32,
    pub pixel_importance: u64,
}

impl StartSetup {
    pub fn records(&self) -> usize {
        self.bootstrap as usize * self.depth as usize
    }

    fn bootstrap_key(&self) -> u64 {
        bootstrap_key(self.seed, self.round)
    }
}

/// The key a bootstrap round's uniform samples are drawn under, and so the first ids of the
/// chains that start from that round's samples.
pub fn bootstrap_key(seed: u32, round: u32) -> u64 {
    debug_assert!(round <= MAX_BOOTSTRAP_ROUNDS);
    let chain = match round {
        0 => BOOTSTRAP_KEY_CHAIN,
        later => START_DRAW_KEY_CHAIN - later,
    };
    squares_key(seed, chain)
}

/// A bootstrap record that carries light: its index, its Y*'s bits and its pixel.
pub type LitRecord = [u32; 3];

/// The bootstrap's uniform samples summed per path length, over one round or several: b_k (the
/// mean Y* of a length's samples) and its standard error. A round need not sample every length:
/// the rounds after the first go only to the lengths whose b_k is still uncertain.
#[derive(Clone, Debug, PartialEq)]
pub struct BootstrapTally {
    /// Per length: the samples it has had, the sum of their Y*, of their squares, and how many
    /// carry light.
    pub samples: Vec<u64>,
    pub sums: Vec<f64>,
    pub squares: Vec<f64>,
    pub lit: Vec<u64>,
}

/// The path lengths 1 to `depth`, every one of which the first rounds sample.
pub fn all_lengths(depth: u32) -> Vec<u32> {
    (1..=depth).collect()
}

impl BootstrapTally {
    pub fn new(depth: u32) -> Self {
        Self {
            samples: vec![0; depth as usize],
            sums: vec![0.0; depth as usize],
            squares: vec![0.0; depth as usize],
            lit: vec![0; depth as usize],
        }
    }

    /// Adds a round of `samples` samples of each of the path `lengths` (record i is of length
    /// `lengths[i mod lengths.len()]`: mlt.glsl's `mlt_path_length`) whose lit records are
    /// `lit`, summed in record order.
    pub fn add(&mut self, lit: &[LitRecord], samples: u32, lengths: &[u32]) {
        for &[record, bits, _] in lit {
            let k = lengths[record as usize % lengths.len()] as usize - 1;
            let y = f64::from(f32::from_bits(bits));
            self.sums[k] += y;
            self.squares[k] += y * y;
            self.lit[k] += 1;
        }
        for &length in lengths {
            self.samples[length as usize - 1] += u64::from(samples);
        }
    }

    /// Samples of all lengths together.
    pub fn total_samples(&self) -> u64 {
        self.samples.iter().sum()
    }

    pub fn b(&self) -> Vec<f64> {
        self.sums
            .iter()
            .zip(&self.samples)
            .map(|(&sum, &n)| sum / n.max(1) as f64)
            .collect()
    }

    /// Each b_k's standard error over b_k, from the spread of its samples' Y* (0 where b_k is).
    /// It scales the whole length's light in the image: a render is that far off for it.
    pub fn relative_errors(&self) -> Vec<f64> {
        self.sums
            .iter()
            .zip(&self.squares)
            .zip(&self.samples)
            .map(|((&sum, &squares), &n)| {
                let n = n.max(1) as f64;
                let mean = sum / n;
                match mean > 0.0 {
                    true => ((squares / n - mean * mean).max(0.0) / n).sqrt() / mean,
                    false => 0.0,
                }
            })
            .collect()
    }

    /// The largest relative error among the lengths `counted` (those with chains).
    pub fn worst_relative_error(&self, counted: &[u32]) -> Option<(usize, f64)> {
        self.relative_errors()
            .into_iter()
            .enumerate()
            .filter(|&(k, _)| counted[k] > 0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The host's half of a start: the bootstrap's first round per length, how many chains each
/// length gets and each chain's entry of the lit list.
#[derive(Clone, Debug, PartialEq)]
pub struct StartPlan {
    pub tally: BootstrapTally,
    pub chains_per_length: Vec<u32>,
    pub chosen: Vec<u32>,
}

/// One path length's lit samples as its chains draw from them.
#[derive(Default)]
struct StartingLength {
    /// Entries of the lit list, and the running sum of their Y*.
    entries: Vec<u32>,
    cumulative: Vec<f64>,
}

impl StartingLength {
    /// A round's lit records by path length (record i of length `lengths[i mod their count]`),
    /// indexed by length - 1.
    fn of_round(lit: &[LitRecord], lengths: &[u32]) -> Vec<Self> {
        let depth = lengths.iter().copied().max().unwrap_or(0) as usize;
        let mut by_length: Vec<Self> = (0..depth).map(|_| Self::default()).collect();
        for (entry, &[record, bits, _]) in lit.iter().enumerate() {
            let length = &mut by_length[lengths[record as usize % lengths.len()] as usize - 1];
            let sum = length.sum() + f64::from(f32::from_bits(bits));
            length.entries.push(entry as u32);
            length.cumulative.push(sum);
        }
        by_length
    }

    fn sum(&self) -> f64 {
        self.cumulative.last().copied().unwrap_or(0.0)
    }

    /// The entry a uniform `u` draws in proportion to Y*.
    fn draw(&self, u: f64) -> u32 {
        let at = self.cumulative.partition_point(|&c| c <= u * self.sum());
        self.entries[at.min(self.entries.len() - 1)]
    }
}

impl StartPlan {
    /// No bootstrap sample carried light: the estimate of every b_k, and so of the image, is 0,
    /// and no chain starts.
    pub fn is_dark(&self) -> bool {
        self.chosen.is_empty()
    }
}

/// b_k, the chains of each length, and each chain's entry of `lit` (the records that carry
/// light, in record order, as `start_compact.comp` lists them). Where none does, a dark plan.
pub fn plan(lit: &[LitRecord], setup: &StartSetup) -> GpuResult<StartPlan> {
    let depth = setup.depth as usize;
    let invalid = |problem: String| GpuError::InvalidUse {
        name: "pmlt".into(),
        problem,
    };
    if depth == 0 || lit.iter().any(|&[record, _, _]| record as usize >= setup.records()) {
        return Err(invalid(format!(
            "a lit record outside the {} samples at {} lengths",
            setup.bootstrap, setup.depth
        )));
    }
    let mut tally = BootstrapTally::new(setup.depth);
    tally.add(lit, setup.bootstrap, &all_lengths(setup.depth));
    if lit.is_empty() {
        return Ok(StartPlan {
            tally,
            chains_per_length: vec![0; depth],
            chosen: Vec::new(),
        });
    }
    let lengths = StartingLength::of_round(lit, &all_lengths(setup.depth));
    let chains_per_length = allot(setup.chains, &tally.b());
    let draw_key = squares_key(setup.seed, START_DRAW_KEY_CHAIN);
    // A length with chains has lit samples (allot gives none to the others).
    let chosen = per_chain(&chains_per_length, |chain, k| match setup.how {
        MltStart::Bootstrap => lengths[k].draw(f64::from(squares_uniform(u64::from(chain), draw_key))),
        MltStart::FixedState => lengths[k].entries[0],
    });
    Ok(StartPlan {
        tally,
        chains_per_length,
        chosen,
    })
}

/// A later bootstrap round's part in the chains' start (round `setup.round`, whose lit records
/// are `lit`): each chain of a length the round sampled moves to one of the round's lit
/// records of that length with probability the round's share of the length's summed Y*
/// (`before` holds the sums of the rounds the chains were drawn from so far), drawn in
/// proportion to Y*; every other chain keeps its state (`MLT_KEEP_CHAIN`). After each round
/// every chain's start is thus drawn in proportion to Y* from the samples of all the rounds so
/// far, the samples whose mean b_k is. A start from the first of them alone, scaled by b_k of
/// all, shared each length's light among the pixels as that round's samples did and scaled
/// its total by all the rounds': where a few rare samples of large Y* (a block the pixels'
/// importance saw dark) fell in one round and not in another, images came out up to 10% off
/// (docs/PMLT.md, "Bootstrap"). Fixed starts stay fixed.
pub fn redraw(
    lit: &[LitRecord],
    lengths: &[u32],
    before: &BootstrapTally,
    setup: &StartSetup,
    chains_per_length: &[u32],
) -> Vec<u32> {
    if setup.how == MltStart::FixedState {
        return vec![MLT_KEEP_CHAIN; chains_per_length.iter().sum::<u32>() as usize];
    }
    let by_length = StartingLength::of_round(lit, lengths);
    let draw_key = squares_key(setup.seed, START_DRAW_KEY_CHAIN);
    per_chain(chains_per_length, |chain, k| {
        let Some(length) = by_length.get(k).filter(|length| length.sum() > 0.0) else {
            return MLT_KEEP_CHAIN;
        };
        let share = length.sum() / (before.sums[k] + length.sum());
        let u = f64::from(squares_uniform(
            u64::from(setup.round) << 32 | u64::from(chain),
            draw_key,
        ));
        match u < share {
            // Below the share, u / share is uniform again: one number decides and draws.
            true => length.draw(u / share),
            false => MLT_KEEP_CHAIN,
        }
    })
}

/// `entry(chain, length - 1)` for every chain, the lengths taking consecutive chains in order
/// (`chains_per_length`), spread over the host's threads: a million draws by binary search.
fn per_chain(chains_per_length: &[u32], entry: impl Fn(u32, usize) -> u32 + Sync) -> Vec<u32> {
    let mut first_chain_of_length = Vec::with_capacity(chains_per_length.len());
    let mut next = 0u32;
    for &count in chains_per_length {
        first_chain_of_length.push(next);
        next += count;
    }
    let mut chosen = vec![0u32; next as usize];
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let per_thread = chosen.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (piece, chunk) in chosen.chunks_mut(per_thread).enumerate() {
            let (entry, first_chain_of_length) = (&entry, &first_chain_of_length);
            scope.spawn(move || {
                for (offset, slot) in chunk.iter_mut().enumerate() {
                    let chain = (piece * per_thread + offset) as u32;
                    *slot = entry(
                        chain,
                        first_chain_of_length.partition_point(|&first| first <= chain) - 1,
                    );
                }
            });
        }
    });
    chosen
}

/// `chains` shared among lengths in proportion to `b` (largest remainders), every length with
/// light getting one where there are enough.
fn allot(chains: u32, b: &[f64]) -> Vec<u32> {
    let total: f64 = b.iter().sum();
    let lit = b.iter().filter(|&&x| x > 0.0).count() as u32;
    let floor = u32::from(chains >= lit);
    let spare = chains - floor * lit;
    let quotas: Vec<f64> = b.iter().map(|&x| f64::from(spare) * x / total).collect();
    let mut counts: Vec<u32> = quotas
        .iter()
        .zip(b)
        .map(|(&q, &x)| if x > 0.0 { floor + q.floor() as u32 } else { 0 })
        .collect();
    let mut left = chains - counts.iter().sum::<u32>();
    let mut order: Vec<usize> = (0..b.len()).filter(|&k| b[k] > 0.0).collect();
    order.sort_by(|&i, &j| (quotas[j] - quotas[j].floor()).total_cmp(&(quotas[i] - quotas[i].floor())));
    for &k in order.iter().cycle() {
        if left == 0 {
            break;
        }
        counts[k] += 1;
        left -= 1;
    }
    counts
}

/// Chain `chain`'s first state as `start_chains.comp` builds it, from the records and the lit
/// list.
pub fn host_chain(
    records: &[MltRecord],
    lit: &[LitRecord],
    setup: &StartSetup,
    plan: &StartPlan,
    chain: u32,
) -> MltChain {
    let entry = plan.chosen[chain as usize];
    let path_length = lit[entry as usize][0] % setup.depth + 1;
    chain_on_entry(records, lit, setup, entry, chain, path_length)
}

/// Chain `chain` as `start_chains.comp` leaves it in a redraw (`chosen`, from `redraw`, over
/// the records and lit list of round `setup.round`), where it was `before`.
pub fn host_redrawn_chain(
    records: &[MltRecord],
    lit: &[LitRecord],
    setup: &StartSetup,
    chosen: &[u32],
    before: MltChain,
    chain: u32,
) -> MltChain {
    match chosen[chain as usize] {
        MLT_KEEP_CHAIN => before,
        entry => chain_on_entry(records, lit, setup, entry, chain, before.path_length),
    }
}

fn chain_on_entry(
    records: &[MltRecord],
    lit: &[LitRecord],
    setup: &StartSetup,
    entry: u32,
    chain: u32,
    path_length: u32,
) -> MltChain {
    let [p, bits, _] = lit[entry as usize];
    let record = records[p as usize];
    let index = u64::from(p) + 1;
    MltChain {
        key: squares_key(setup.seed, chain),
        base_key: setup.bootstrap_key(),
        base_index: index,
        offset_key: setup.bootstrap_key(),
        offset_index: index,
        contribution: record.contribution,
        luminance: f32::from_bits(bits),
        pixel: record.pixel,
        path_length,
        ..MltChain::default()
    }
}

/// How `ChainStarter::place_chains` treats the chains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Every chain starts on its entry, with the length of its record (a round of every length).
    Start,
    /// A later round's (`redraw`): chains whose entry is `MLT_KEEP_CHAIN` stay as they are, the
    /// others move and keep their lengths.
    Redraw,
}

/// The GPU's kernels of a start and their buffers.
pub struct ChainStarter {
    luminance: ComputePipeline<MltStartPush>,
    compact: ComputePipeline<MltStartPush>,
    fetch: ComputePipeline<MltStartPush>,
    scan: PrefixSum,
    scratch: Buffer,
    luminances: Buffer,
    positions: Buffer,
    lit: Buffer,
    lit_count: Buffer,
    chosen: Buffer,
    max_groups_x: u32,
}

impl ChainStarter {
    /// For starts of up to `records` bootstrap records and `chains` chains.
    pub fn new(context: &Context, records: usize, chains: u32) -> GpuResult<Self> {
        let storage = |name: &str, words: u64, location: MemoryLocation| {
            Buffer::new(context, name, words.max(1) * 4, BufferUsage::STORAGE, location)
        };
        let records = records as u64;
        Ok(Self {
            luminance: ComputePipeline::new(context, ids::PMLT_START_LUMINANCE, &[])?,
            compact: ComputePipeline::new(context, ids::PMLT_START_COMPACT, &[])?,
            fetch: ComputePipeline::new(context, ids::PMLT_START_CHAINS, &[])?,
            scan: PrefixSum::new(context, ScanElement::U32)?,
            scratch: PrefixSum::new_scratch(context, records.max(1))?,
            luminances: storage("mlt start luminances", records, MemoryLocation::GpuOnly)?,
            positions: storage("mlt start positions", records, MemoryLocation::GpuOnly)?,
            lit: storage("mlt start lit records", 3 * records, MemoryLocation::GpuOnly)?,
            lit_count: storage("mlt start lit count", 1, MemoryLocation::GpuOnly)?,
            chosen: storage("mlt start chosen", u64::from(chains), MemoryLocation::CpuToGpu)?,
            max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
        })
    }

    /// The lit records of the last start, in record order.
    pub fn lit_records(&self, context: &Context) -> GpuResult<Vec<LitRecord>> {
        let count: Vec<u32> = self.lit_count.read_back(context, 1)?;
        self.lit.read_back(context, count[0] as usize)
    }

    /// Starts `setup.chains` chains into `chains` from the bootstrap's `records`.
    pub fn start(
        &mut self,
        context: &Context,
        records: &Buffer,
        chains: &Buffer,
        setup: &StartSetup,
    ) -> GpuResult<StartPlan> {
        let lit = self.lit_of_round(context, records, setup, setup.depth)?;
        let plan = plan(&lit, setup)?;
        if plan.is_dark() {
            return Ok(plan);
        }
        self.place_chains(context, records, chains, setup, &plan.chosen, Placement::Start)?;
        Ok(plan)
    }

    /// Places the chains from `chosen`, an entry of the last lit list listed each (a record of
    /// round `setup.round`), as `placement` says.
    pub fn place_chains(
        &mut self,
        context: &Context,
        records: &Buffer,
        chains: &Buffer,
        setup: &StartSetup,
        chosen: &[u32],
        placement: Placement,
    ) -> GpuResult<()> {
        if chosen.iter().all(|&entry| entry == MLT_KEEP_CHAIN) {
            return Ok(());
        }
        self.chosen.write(0, chosen)?;
        let count = chosen.len() as u32;
        let push = MltStartPush {
            chosen: self.chosen.address(),
            chains: chains.address(),
            bootstrap_key: setup.bootstrap_key(),
            count,
            seed: setup.seed,
            redraw: u32::from(placement == Placement::Redraw),
            ..self.push(records, setup)?
        };
        context.run_once("mlt start chains", |commands| {
            commands.dispatch(&self.fetch, &push, self.grid(count)?);
            commands.compute_barrier();
            Ok(())
        })
    }

    /// The lit records among the first `setup.bootstrap` x `lengths` of `records` (those of a
    /// bootstrap round of that many path lengths), read back: for `plan`,
    /// `BootstrapTally::add` or `importance::pixel_importance`.
    pub fn lit_of_round(
        &mut self,
        context: &Context,
        records: &Buffer,
        setup: &StartSetup,
        lengths: u32,
    ) -> GpuResult<Vec<LitRecord>> {
        let push = MltStartPush {
            count: Self::record_count(setup.bootstrap as usize * lengths as usize)?,
            ..self.push(records, setup)?
        };
        self.list_lit(context, &push)?;
        self.lit_records(context)
    }

    /// The push constants of the lit list's kernels over `setup.records()` of `records`.
    fn push(&self, records: &Buffer, setup: &StartSetup) -> GpuResult<MltStartPush> {
        Ok(MltStartPush {
            records: records.address(),
            luminances: self.luminances.address(),
            positions: self.positions.address(),
            lit: self.lit.address(),
            lit_count: self.lit_count.address(),
            count: Self::record_count(setup.records())?,
            depth: setup.depth,
            pixels: setup.pixels,
            pixel_importance: setup.pixel_importance,
            ..MltStartPush::default()
        })
    }

    /// start_luminance, the prefix sum of its flags and start_compact over `push.count` records.
    fn list_lit(&self, context: &Context, push: &MltStartPush) -> GpuResult<()> {
        context.run_once("mlt start lit records", |commands| {
            let grid = self.grid(push.count)?;
            commands.dispatch(&self.luminance, push, grid);
            commands.compute_barrier();
            self.scan.record(
                commands,
                &self.positions,
                &self.positions,
                u64::from(push.count),
                &self.scratch,
            )?;
            commands.dispatch(&self.compact, push, grid);
            commands.compute_barrier();
            Ok(())
        })
    }

    fn record_count(records: usize) -> GpuResult<u32> {
        u32::try_from(records).map_err(|_| GpuError::InvalidUse {
            name: "pmlt".into(),
            problem: format!("{records} bootstrap records exceed 32-bit indices"),
        })
    }

    fn grid(&self, items: u32) -> GpuResult<DispatchSize> {
        DispatchSize::covering(u64::from(items.div_ceil(MLT_START_GROUP)), self.max_groups_x).ok_or_else(|| {
            GpuError::InvalidUse {
                name: "pmlt".into(),
                problem: format!("{items} items exceed the dispatch limits"),
            }
        })
    }
}
