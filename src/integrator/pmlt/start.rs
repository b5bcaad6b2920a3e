//! The chains' first states, drawn from the bootstrap's records so that the chains start in
//! their stationary distribution (docs/PMLT.md, "Bootstrap").
//!
//! The GPU computes each record's Y* (`pmlt/start_luminance.comp`), the host reads those four
//! bytes a record back, sums them per path length in f64 (b_k, and the running sums the draws
//! search), allots chains to lengths and draws each chain's record; then the GPU builds each
//! chain's state from its record and its key (`pmlt/start_chains.comp`). Reading the whole
//! 16-byte records back and drawing a million keys on the host took most of a 0.3 s bootstrap
//! on the H100. `host_chain` is the last kernel's CPU twin, which the tests hold it to.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, BufferUsage, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, MemoryLocation};
use crate::interface::{MltChain, MltRecord, MltStartPush, MLT_START_GROUP};
use crate::rng::{squares_key, squares_uniform};

use crate::integrator::settings::MltStart;

/// `squares_key`'s chain number of the bootstrap's key, apart from every chain's.
pub const BOOTSTRAP_KEY_CHAIN: u32 = u32::MAX;
/// The draw of the chains' first states, apart from every path's numbers.
const START_DRAW_KEY_CHAIN: u32 = u32::MAX - 1;

/// What the chains start from: `bootstrap` samples a length for lengths 1 to `depth`, sample i
/// of length k + 1 at record k + i depth (mlt.glsl's `mlt_path_length`).
#[derive(Clone, Copy, Debug)]
pub struct StartSetup {
    pub seed: u32,
    pub how: MltStart,
    pub depth: u32,
    pub bootstrap: u32,
    pub chains: u32,
}

impl StartSetup {
    pub fn records(&self) -> usize {
        self.bootstrap as usize * self.depth as usize
    }

    fn bootstrap_key(&self) -> u64 {
        squares_key(self.seed, BOOTSTRAP_KEY_CHAIN)
    }
}

/// The host's half of a start: per length, b_k (the mean Y* of its samples), how many of its
/// samples carry light and how many chains it gets; and each chain's record.
#[derive(Clone, Debug, PartialEq)]
pub struct StartPlan {
    pub b: Vec<f64>,
    pub nonzero: Vec<u64>,
    pub chains_per_length: Vec<u32>,
    pub first_records: Vec<u32>,
}

/// One path length's samples as its chains draw from them.
struct StartingLength {
    /// The running sum of the samples' Y*.
    cumulative: Vec<f64>,
    nonzero: u64,
    first_lit: usize,
}

impl StartingLength {
    fn new(luminances: &[f32], k: usize, depth: usize) -> Self {
        let mut sum = 0f64;
        let mut nonzero = 0;
        let mut first_lit = None;
        let cumulative = luminances
            .iter()
            .skip(k)
            .step_by(depth)
            .enumerate()
            .map(|(i, &y)| {
                if y > 0.0 {
                    nonzero += 1;
                    first_lit.get_or_insert(i);
                }
                sum += f64::from(y);
                sum
            })
            .collect();
        Self {
            cumulative,
            nonzero,
            first_lit: first_lit.unwrap_or(0),
        }
    }

    fn sum(&self) -> f64 {
        self.cumulative.last().copied().unwrap_or(0.0)
    }
}

/// b_k, the chains of each length, and each chain's record, from the records' Y* (0 where a
/// record carries no light). Fails when no record carries light.
pub fn plan(luminances: &[f32], setup: &StartSetup) -> GpuResult<StartPlan> {
    let depth = setup.depth as usize;
    if luminances.len() != setup.records() || depth == 0 {
        return Err(GpuError::InvalidUse {
            name: "pmlt".into(),
            problem: format!(
                "{} luminances for {} samples at {} lengths",
                luminances.len(),
                setup.bootstrap,
                setup.depth
            ),
        });
    }
    // Millions of samples: a thread a length.
    let lengths: Vec<StartingLength> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..depth)
            .map(|k| scope.spawn(move || StartingLength::new(luminances, k, depth)))
            .collect();
        threads
            .into_iter()
            .map(|thread| thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    let b: Vec<f64> = lengths.iter().map(|l| l.sum() / f64::from(setup.bootstrap)).collect();
    if b.iter().sum::<f64>() <= 0.0 {
        return Err(GpuError::InvalidUse {
            name: "pmlt".into(),
            problem: format!(
                "none of the bootstrap's {} uniform samples carries light: nothing to start a chain on (raise \
                 --mlt-bootstrap, or the scene is black)",
                luminances.len()
            ),
        });
    }
    let chains_per_length = allot(setup.chains, &b);
    let draw_key = squares_key(setup.seed, START_DRAW_KEY_CHAIN);
    let mut first_records = vec![0u32; setup.chains as usize];
    // Each chain's length: the lengths take consecutive chains in order.
    let mut first_chain_of_length = Vec::with_capacity(depth);
    let mut next = 0u32;
    for &count in &chains_per_length {
        first_chain_of_length.push(next);
        next += count;
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let per_thread = first_records.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for (piece, chunk) in first_records.chunks_mut(per_thread).enumerate() {
            let (lengths, first_chain_of_length) = (&lengths, &first_chain_of_length);
            scope.spawn(move || {
                for (offset, record) in chunk.iter_mut().enumerate() {
                    let chain = (piece * per_thread + offset) as u32;
                    let k = first_chain_of_length.partition_point(|&first| first <= chain) - 1;
                    let length = &lengths[k];
                    let at = match setup.how {
                        MltStart::Bootstrap => {
                            let u = f64::from(squares_uniform(u64::from(chain), draw_key)) * length.sum();
                            length
                                .cumulative
                                .partition_point(|&c| c <= u)
                                .min(length.cumulative.len() - 1)
                        }
                        MltStart::FixedState => length.first_lit,
                    };
                    *record = (k + at * depth) as u32;
                }
            });
        }
    });
    Ok(StartPlan {
        b,
        nonzero: lengths.iter().map(|l| l.nonzero).collect(),
        chains_per_length,
        first_records,
    })
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

/// Chain `chain`'s first state as `start_chains.comp` builds it, from the records and their Y*.
pub fn host_chain(
    records: &[MltRecord],
    luminances: &[f32],
    setup: &StartSetup,
    plan: &StartPlan,
    chain: u32,
) -> MltChain {
    let p = plan.first_records[chain as usize] as usize;
    let record = records[p];
    let index = p as u64 + 1;
    MltChain {
        key: squares_key(setup.seed, chain),
        base_key: setup.bootstrap_key(),
        base_index: index,
        offset_key: setup.bootstrap_key(),
        offset_index: index,
        contribution: record.contribution,
        luminance: luminances[p],
        pixel: record.pixel,
        path_length: (p % setup.depth as usize) as u32 + 1,
        ..MltChain::default()
    }
}

/// The GPU's two kernels of a start and their buffers.
pub struct ChainStarter {
    luminance: ComputePipeline<MltStartPush>,
    fetch: ComputePipeline<MltStartPush>,
    luminances: Buffer,
    first_records: Buffer,
    max_groups_x: u32,
}

impl ChainStarter {
    /// For starts of up to `records` bootstrap records and `chains` chains.
    pub fn new(context: &Context, records: usize, chains: u32) -> GpuResult<Self> {
        let storage = |name: &str, words: u64, location: MemoryLocation| {
            Buffer::new(context, name, words.max(1) * 4, BufferUsage::STORAGE, location)
        };
        Ok(Self {
            luminance: ComputePipeline::new(context, ids::PMLT_START_LUMINANCE, &[])?,
            fetch: ComputePipeline::new(context, ids::PMLT_START_CHAINS, &[])?,
            luminances: storage("mlt start luminances", records as u64, MemoryLocation::GpuOnly)?,
            first_records: storage("mlt first records", u64::from(chains), MemoryLocation::CpuToGpu)?,
            max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
        })
    }

    /// Each record's Y*, as the last start computed them.
    pub fn luminances(&self) -> &Buffer {
        &self.luminances
    }

    /// Starts `setup.chains` chains into `chains` from the bootstrap's `records`.
    pub fn start(
        &mut self,
        context: &Context,
        records: &Buffer,
        chains: &Buffer,
        setup: &StartSetup,
    ) -> GpuResult<StartPlan> {
        let count = u32::try_from(setup.records()).map_err(|_| GpuError::InvalidUse {
            name: "pmlt".into(),
            problem: format!("{} bootstrap records exceed 32-bit indices", setup.records()),
        })?;
        let mut push = MltStartPush {
            records: records.address(),
            luminances: self.luminances.address(),
            first_records: self.first_records.address(),
            chains: chains.address(),
            bootstrap_key: setup.bootstrap_key(),
            count,
            depth: setup.depth,
            seed: setup.seed,
            pad0: 0,
        };
        context.run_once("mlt start luminances", |commands| {
            commands.dispatch(&self.luminance, &push, self.grid(count)?);
            commands.compute_barrier();
            Ok(())
        })?;
        let luminances: Vec<f32> = self.luminances.read_back(context, setup.records())?;
        let plan = plan(&luminances, setup)?;
        self.first_records.write(0, &plan.first_records)?;
        push.count = setup.chains;
        context.run_once("mlt start chains", |commands| {
            commands.dispatch(&self.fetch, &push, self.grid(setup.chains)?);
            commands.compute_barrier();
            Ok(())
        })?;
        Ok(plan)
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
