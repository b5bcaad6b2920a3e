//! The light-selection tree, built on the GPU in one dispatch (`lights/tree_build.comp`, after
//! the Traverse Research article "Fast CDF generation on the GPU for light picking"), and the
//! flat CDF that a down-sweep (`lights/tree_to_cdf.comp`) derives from it.
//!
//! The tree's arity is the device's subgroup size: each node is one lane of a
//! `subgroupInclusiveAdd` over its siblings and stores its prefix sum among them (layout in
//! `light_tree.glsl`). One workgroup builds `arity^block_levels` leaves and the levels above
//! them up to its block's root; survivor counters let the last workgroup of each group of
//! blocks carry on upwards, so one dispatch builds the whole tree without any workgroup
//! waiting on another.
//!
//! # Precision
//! Weights are float32. A flat float32 CDF over 10^7 lights whose weights span 1e-6 to 1e3 has
//! entries near the total (about 5e8 there), where one unit in the last place is 32: a light
//! lighter than that adds nothing to the running sum and can never be chosen (three quarters
//! of the lights, 1% of the power, measured). Summing in a tree keeps every sum over at most
//! `arity` siblings (rounding grows with the log_arity(n) levels, not with n), and sampling by
//! walking down the tree compares a light only with its siblings, so a light is lost only when
//! it is below one ulp of its own sibling group's sum (4e-8 of the power, measured). What remains lost is harmless for the image: the
//! probability that the MIS weight of a light hit uses comes from the same stored floats
//! through the same function as the sampler's, so a light that cannot be chosen has
//! probability exactly 0 there and BSDF sampling counts it in full. The measured figures (the
//! precision example, docs/BENCHMARKS.md) are why the tree walk is the default sampler and
//! the flat CDF an option.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult};
use crate::interface::{LightTreePush, LIGHT_CDF_GROUP};
use crate::scene::GpuScene;

/// Nodes in a block: a workgroup's share of a level, at least this many.
const MIN_BLOCK: u32 = 1024;
/// Workgroup width of the tree builder: each thread holds block / width nodes at a time.
const WORKGROUP: u32 = 256;
/// Nodes a thread holds in registers at most.
const MAX_ITEMS: u32 = 32;
/// Largest block.
const MAX_BLOCK: u32 = 1 << 16;
/// Leaves the shaders can index: levels and offsets stay inside u32 arithmetic.
pub const MAX_LIGHTS: u64 = 1 << 31;

/// Sizes and offsets of the tree over `count` leaves with a given arity, and how the builder
/// splits it into workgroups. Mirrors the arithmetic of `light_tree.glsl`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeShape {
    pub count: u32,
    pub arity: u32,
    /// Levels a workgroup builds per round: the fewest with `arity^block_levels` >= 1024.
    /// Its `workgroup` threads hold `block / workgroup` nodes each.
    pub block_levels: u32,
    /// Base-level nodes per workgroup: `arity^block_levels`.
    pub block: u32,
    pub workgroup: u32,
    /// Nodes per level, leaves first, up to the root (one node).
    pub level_sizes: Vec<u32>,
    /// Survivor counters: one per group of blocks in each round after the first.
    pub counters: u32,
}

impl TreeShape {
    pub fn new(count: u32, arity: u32) -> Result<Self, String> {
        Self::with_layout(count, arity, TreeLayout::default())
    }

    /// As `new`, with a chosen split into workgroups.
    pub fn with_layout(count: u32, arity: u32, layout: TreeLayout) -> Result<Self, String> {
        if count == 0 || u64::from(count) > MAX_LIGHTS {
            return Err(format!("{count} lights: the tree takes 1 to {MAX_LIGHTS}"));
        }
        if !(4..=WORKGROUP).contains(&arity) || !arity.is_power_of_two() {
            return Err(format!(
                "subgroup size {arity}: the tree needs a power of two from 4 to {WORKGROUP}"
            ));
        }
        let mut default_levels = 1;
        while arity.pow(default_levels) < MIN_BLOCK {
            default_levels += 1;
        }
        let block_levels = layout.block_levels.unwrap_or(default_levels);
        let block = match arity.checked_pow(block_levels) {
            Some(block) if block_levels >= 1 && block <= MAX_BLOCK => block,
            _ => {
                return Err(format!(
                    "{block_levels} levels per workgroup: arity^levels must be at most {MAX_BLOCK}"
                ))
            }
        };
        let workgroup = layout.workgroup.unwrap_or(WORKGROUP).min(block);
        if workgroup % arity != 0 || !workgroup.is_power_of_two() || block / workgroup > MAX_ITEMS {
            return Err(format!(
                "workgroups of {workgroup}: must be a power-of-two multiple of the subgroup size {arity}, \
                 holding at most {MAX_ITEMS} of the block's {block} nodes a thread"
            ));
        }
        let mut level_sizes = vec![count];
        let mut size = count;
        while size > 1 {
            size = size.div_ceil(arity);
            level_sizes.push(size);
        }
        let top = level_sizes.len() as u32 - 1;
        // A round with base level `level` hands on to one at `level + block_levels` while that
        // level is below the top (a lone root is written without a round); each of those
        // rounds counts arrivals per parent block.
        let mut counters = 0;
        let mut level = 0;
        while level + block_levels < top {
            level += block_levels;
            counters += level_sizes[level as usize].div_ceil(block);
        }
        Ok(Self {
            count,
            arity,
            block_levels,
            block,
            workgroup,
            level_sizes,
            counters,
        })
    }

    pub fn nodes(&self) -> u64 {
        self.level_sizes.iter().map(|&s| u64::from(s)).sum()
    }

    pub fn level_offset(&self, level: usize) -> u64 {
        self.level_sizes[..level].iter().map(|&s| u64::from(s)).sum()
    }

    /// Workgroups of the build: one per block of leaves.
    pub fn workgroups(&self) -> u64 {
        u64::from(self.count.div_ceil(self.block))
    }

    /// Specialization constants of `tree_build`: arity, block levels, block, shared partial
    /// sums (`arity^(block_levels - 1)`), nodes per thread, workgroup width.
    fn specialization(&self) -> [u32; 6] {
        [
            self.arity,
            self.block_levels,
            self.block,
            self.block / self.arity,
            self.block / self.workgroup,
            self.workgroup,
        ]
    }
}

/// How the build splits the tree into workgroups; `None` takes the default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeLayout {
    /// Levels a workgroup builds per round (default: the fewest that make a block of at least
    /// 1024 nodes). Smaller blocks mean more rounds of survivors, which tests use to exercise
    /// deep hand-offs with few lights.
    pub block_levels: Option<u32>,
    /// Threads per workgroup (default 256); each holds block / workgroup nodes at once.
    pub workgroup: Option<u32>,
}

/// Where the leaves' weights come from.
pub enum Leaves<'a> {
    /// One float per leaf (tests, and any distribution that is not triangles).
    Weights(&'a Buffer),
    /// The emitted power of the triangles that a flattened light array names.
    Triangles { scene: &'a GpuScene, map: &'a Buffer },
}

/// The GPU tree (and optionally its flat CDF) over a fixed number of leaves.
pub struct LightTree {
    shape: TreeShape,
    tree: Buffer,
    counters: Buffer,
    cdf: Option<Buffer>,
    from_triangles: ComputePipeline<LightTreePush>,
    from_weights: ComputePipeline<LightTreePush>,
    to_cdf: ComputePipeline<LightTreePush>,
    max_groups_x: u32,
}

impl LightTree {
    /// Buffers and pipelines for `count` leaves; `with_cdf` adds the flat CDF.
    pub fn new(context: &Context, count: u32, with_cdf: bool) -> GpuResult<Self> {
        Self::with_layout(context, count, with_cdf, TreeLayout::default())
    }

    /// As `new`, with a chosen split into workgroups.
    pub fn with_layout(context: &Context, count: u32, with_cdf: bool, layout: TreeLayout) -> GpuResult<Self> {
        let capabilities = &context.adapter().capabilities;
        let shape = TreeShape::with_layout(count, capabilities.subgroup_size, layout).map_err(|problem| {
            GpuError::InvalidUse {
                name: "light tree".into(),
                problem,
            }
        })?;
        let specialization = shape.specialization();
        let storage = |name: &str, bytes: u64| Buffer::gpu_storage(context, name, bytes);
        let tree = storage("light tree", shape.nodes() * 4)?;
        let counters = storage("light tree survivor counters", u64::from(shape.counters.max(1)) * 4)?;
        // The counters start at zero; the shader leaves them at zero after every build.
        context.run_once("clear light tree counters", |commands| {
            commands.fill_buffer(&counters, 0, counters.size(), 0);
            Ok(())
        })?;
        let cdf = if with_cdf {
            Some(storage("light cdf", u64::from(count) * 4)?)
        } else {
            None
        };
        Ok(Self {
            from_triangles: ComputePipeline::with_full_subgroups(
                context,
                ids::LIGHTS_TREE_BUILD_TRIANGLES,
                &specialization,
            )?,
            from_weights: ComputePipeline::with_full_subgroups(
                context,
                ids::LIGHTS_TREE_BUILD_WEIGHTS,
                &specialization,
            )?,
            to_cdf: ComputePipeline::new(context, ids::LIGHTS_TREE_TO_CDF, &[shape.arity])?,
            max_groups_x: capabilities.max_compute_workgroup_count[0],
            shape,
            tree,
            counters,
            cdf,
        })
    }

    pub fn shape(&self) -> &TreeShape {
        &self.shape
    }

    pub fn tree(&self) -> &Buffer {
        &self.tree
    }

    pub fn cdf(&self) -> Option<&Buffer> {
        self.cdf.as_ref()
    }

    fn push(&self, leaves: &Leaves) -> LightTreePush {
        let mut push = LightTreePush {
            tree: self.tree.address(),
            counters: self.counters.address(),
            cdf: self.cdf.as_ref().map_or(0, Buffer::address),
            count: self.shape.count,
            ..LightTreePush::default()
        };
        match leaves {
            Leaves::Weights(weights) => push.weights = weights.address(),
            Leaves::Triangles { scene, map } => {
                push.map = map.address();
                push.positions = scene.meshes.positions.address();
                push.indices = scene.meshes.indices.address();
                push.instances = scene.instances.address();
                push.materials = scene.materials.address();
            }
        }
        push
    }

    fn grid(&self, groups: u64) -> GpuResult<DispatchSize> {
        DispatchSize::covering(groups, self.max_groups_x).ok_or_else(|| GpuError::InvalidUse {
            name: "light tree".into(),
            problem: format!("{} lights exceed the dispatch limits", self.shape.count),
        })
    }

    /// Records the build: one dispatch. Writes to the leaves' sources must be visible; the
    /// tree is visible to compute work recorded after this.
    pub fn record_build(&self, commands: &mut CommandBuffer, leaves: &Leaves) -> GpuResult<()> {
        if let Leaves::Weights(weights) = leaves {
            if weights.size() < u64::from(self.shape.count) * 4 {
                return Err(GpuError::InvalidUse {
                    name: weights.name().to_string(),
                    problem: format!("too small for {} light weights", self.shape.count),
                });
            }
        }
        let pipeline = match leaves {
            Leaves::Weights(_) => &self.from_weights,
            Leaves::Triangles { .. } => &self.from_triangles,
        };
        commands.dispatch(pipeline, &self.push(leaves), self.grid(self.shape.workgroups())?);
        commands.compute_barrier();
        Ok(())
    }

    /// Records the down-sweep from the tree to the flat CDF (a no-op without one).
    pub fn record_cdf(&self, commands: &mut CommandBuffer) -> GpuResult<()> {
        if self.cdf.is_none() {
            return Ok(());
        }
        let groups = u64::from(self.shape.count.div_ceil(LIGHT_CDF_GROUP));
        let push = LightTreePush {
            tree: self.tree.address(),
            cdf: self.cdf.as_ref().map_or(0, Buffer::address),
            count: self.shape.count,
            ..LightTreePush::default()
        };
        commands.dispatch(&self.to_cdf, &push, self.grid(groups)?);
        commands.compute_barrier();
        Ok(())
    }
}

/// The tree of `weights` in float64, in the GPU's layout: the reference its build is tested
/// against. Weights that are not finite and positive count as 0, as on the GPU.
pub fn reference_tree(weights: &[f64], arity: u32) -> Vec<f64> {
    let arity = arity as usize;
    let mut level: Vec<f64> = weights
        .iter()
        .map(|&w| if w > 0.0 && w.is_finite() { w } else { 0.0 })
        .collect();
    let mut tree = Vec::new();
    loop {
        let mut sums = Vec::with_capacity(level.len().div_ceil(arity));
        for group in level.chunks(arity) {
            let mut running = 0.0;
            for &value in group {
                running += value;
                tree.push(running);
            }
            sums.push(running);
        }
        if level.len() == 1 {
            return tree;
        }
        level = sums;
    }
}

/// Each leaf's selection probability under the tree walk, from a stored tree (float32 as the
/// GPU wrote it, evaluated in float64): the product of its ancestors' shares of their groups.
pub fn tree_probabilities(tree: &[f32], shape: &TreeShape) -> Vec<f64> {
    let arity = shape.arity as usize;
    let levels = shape.level_sizes.len();
    let mut probabilities = vec![0.0f64; shape.count as usize];
    let root = f64::from(tree[shape.level_offset(levels - 1) as usize]);
    let any_power = root > 0.0;
    if !any_power {
        return probabilities;
    }
    // Share of each node of each level within its sibling group, top-down products.
    let mut above = vec![1.0f64];
    for level in (0..levels - 1).rev() {
        let offset = shape.level_offset(level) as usize;
        let size = shape.level_sizes[level] as usize;
        let nodes = &tree[offset..offset + size];
        above = (0..size)
            .map(|node| {
                let first = node - node % arity;
                let last = (first + arity).min(size) - 1;
                let before = if node > first { f64::from(nodes[node - 1]) } else { 0.0 };
                let share = f64::from(nodes[node]) - before;
                let total = f64::from(nodes[last]);
                if share > 0.0 {
                    above[node / arity] * share / total
                } else {
                    0.0
                }
            })
            .collect();
    }
    probabilities.copy_from_slice(&above[..shape.count as usize]);
    probabilities
}
