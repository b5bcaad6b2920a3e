//! The light BVH: emitters (emissive triangles and point and spot lights) in a binary tree
//! whose nodes bound their position, orientation and power, so that next-event estimation can
//! descend towards the lights that matter at the shading point (light_bvh.glsl), after Conty
//! Estevez and Kulla 2018. docs/LIGHTS.md explains the importance bound and the build.
//!
//! Built on the GPU in a few dispatches, all of them replayed when emission or transforms
//! change: `bvh_leaves` (one leaf and one Morton key per light, and the count of the keys'
//! first digit for the sort), a stable radix sort of the keys, and `bvh_climb` (Karras
//! 2012's tree over the sorted keys, found bottom-up as in Apetrei 2014 while bounds, cones
//! and power are merged from the leaves up, with survivor slots). `reference` is its CPU
//! twin, which the tests hold it to; `saoh` a CPU builder by the surface-area-orientation
//! heuristic, against which its quality is measured.

pub mod importance;
pub mod reference;
pub mod saoh;

use glam::Vec3;

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, Profiler};
use crate::interface::{GpuLightBvhNode, LightBvhPush, LIGHT_BVH_GROUP, LIGHT_BVH_KEY_BITS, RADIX_BUCKETS, RADIX_TILE};
use crate::primitives::{RadixArrays, RadixSort};
use crate::scene::GpuScene;

use super::sampler::timed;

/// Bits of the sort keys (see `LIGHT_BVH_KEY_BITS`).
pub const KEY_BITS: u32 = LIGHT_BVH_KEY_BITS;

// The leaves kernel counts its keys' first digit for the sort, a thread a digit value, and a
// workgroup's lights lie in one tile of the sort.
const _: () = assert!(LIGHT_BVH_GROUP == RADIX_BUCKETS && RADIX_TILE % LIGHT_BVH_GROUP == 0);

/// Lights the BVH takes: node indices (2n - 1) and the tree's depth stay in range.
pub const MAX_LIGHTS: u32 = 1 << 30;

/// How the build orders the leaves before linking them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BvhKeys {
    /// The cube the Morton grid spans: 1024 cells an axis from `lower`, of which the keys
    /// keep the top bits.
    pub lower: Vec3,
    pub extent: Vec3,
    /// Whether the top three bits hold the bucket of the light's normal direction.
    pub direction_buckets: bool,
}

impl BvhKeys {
    /// A grid over `bounds`, cells of equal size on the three axes (a cube keeps clusters
    /// round in the tree; a flat scene only wastes a few bits of its short axis).
    pub fn over(bounds: Option<(Vec3, Vec3)>, direction_buckets: bool) -> Self {
        let (lower, upper) = bounds.unwrap_or((Vec3::ZERO, Vec3::ONE));
        let side = (upper - lower).max_element();
        Self {
            lower,
            extent: Vec3::splat(if side > 0.0 && side.is_finite() { side } else { 1.0 }),
            direction_buckets,
        }
    }

    pub fn scale(&self) -> Vec3 {
        Vec3::splat(1024.0) / self.extent
    }
}

/// Where the leaves come from: the flattened emissive triangles of a scene, then its
/// punctual lights.
pub struct BvhSources<'a> {
    pub scene: &'a GpuScene,
    pub map: &'a Buffer,
    pub punctual_lights: &'a Buffer,
}

pub struct LightBvh {
    triangles: u32,
    count: u32,
    keys: BvhKeys,
    leaves: Buffer,
    sort_keys: Buffer,
    sort_values: Buffer,
    nodes: Buffer,
    parents: Buffer,
    leaf_of: Buffer,
    counters: Buffer,
    sort: RadixSort,
    make_leaves: ComputePipeline<LightBvhPush>,
    climb: ComputePipeline<LightBvhPush>,
    max_groups_x: u32,
}

impl LightBvh {
    /// Buffers and pipelines for `triangles` emissive triangles and `punctual` punctual lights.
    pub fn new(context: &Context, triangles: u32, punctual: u32, keys: BvhKeys) -> GpuResult<Self> {
        let count = u64::from(triangles) + u64::from(punctual);
        if count == 0 || count > u64::from(MAX_LIGHTS) {
            return Err(GpuError::InvalidUse {
                name: "light bvh".into(),
                problem: format!("{count} lights; the light BVH takes 1 to {MAX_LIGHTS}"),
            });
        }
        let node_bytes = std::mem::size_of::<GpuLightBvhNode>() as u64;
        let storage = |name: &str, bytes: u64| Buffer::gpu_storage(context, name, bytes);
        let counters = storage("light bvh split slots", (count - 1).max(1) * 4)?;
        // The split slots start at zero; the climb leaves them at zero after every build.
        context.run_once("clear light bvh counters", |commands| {
            commands.fill_buffer(&counters, 0, counters.size(), 0);
            Ok(())
        })?;
        Ok(Self {
            triangles,
            count: count as u32,
            keys,
            leaves: storage("light bvh leaves", count * node_bytes)?,
            sort_keys: storage("light bvh keys", count * 4)?,
            sort_values: storage("light bvh order", count * 4)?,
            nodes: storage("light bvh nodes", (2 * count - 1) * node_bytes)?,
            parents: storage("light bvh parents", (2 * count - 1) * 4)?,
            leaf_of: storage("light bvh leaf of light", count * 4)?,
            counters,
            sort: RadixSort::new(context, count as u32)?,
            make_leaves: ComputePipeline::new(context, ids::LIGHTS_BVH_LEAVES, &[])?,
            // Its lanes merge the bottom levels among consecutive leaves.
            climb: ComputePipeline::with_full_subgroups(context, ids::LIGHTS_BVH_CLIMB, &[])?,
            max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
        })
    }

    /// Lights: the triangles, then the punctual lights.
    pub fn count(&self) -> u32 {
        self.count
    }

    pub fn nodes(&self) -> &Buffer {
        &self.nodes
    }

    pub fn parents(&self) -> &Buffer {
        &self.parents
    }

    pub fn leaf_of(&self) -> &Buffer {
        &self.leaf_of
    }

    /// Each light's leaf as `bvh_leaves` made it, indexed by light.
    pub fn leaves(&self) -> &Buffer {
        &self.leaves
    }

    /// After a build: the sorted keys, and the light each belongs to.
    pub fn sorted_keys(&self) -> &Buffer {
        self.sorted().0
    }

    pub fn order(&self) -> &Buffer {
        self.sorted().1
    }

    fn sorted(&self) -> (&Buffer, &Buffer) {
        self.sort.sorted_buffers(KEY_BITS, &self.sort_keys, &self.sort_values)
    }

    /// Reads the built tree back (tests, quality measures).
    pub fn read_back(&self, context: &Context) -> GpuResult<reference::BvhTree> {
        let n = self.count as usize;
        Ok(reference::BvhTree {
            nodes: self.nodes.read_back(context, 2 * n - 1)?,
            parents: self.parents.read_back(context, 2 * n - 1)?,
            leaf_of: self.leaf_of.read_back(context, n)?,
        })
    }

    pub fn keys(&self) -> &BvhKeys {
        &self.keys
    }

    fn push(&self, sources: &BvhSources) -> LightBvhPush {
        let first_digit = self.sort.first_digit_counts(self.count, KEY_BITS);
        LightBvhPush {
            map: sources.map.address(),
            positions: sources.scene.meshes.positions.address(),
            indices: sources.scene.meshes.indices.address(),
            instances: sources.scene.instances.address(),
            materials: sources.scene.materials.address(),
            punctual_lights: sources.punctual_lights.address(),
            leaves: self.leaves.address(),
            keys: self.sort_keys.address(),
            values: self.sort_values.address(),
            nodes: self.nodes.address(),
            parents: self.parents.address(),
            leaf_of: self.leaf_of.address(),
            counters: self.counters.address(),
            first_digit_counts: first_digit.table,
            grid_lower: self.keys.lower,
            triangle_count: self.triangles,
            grid_scale: self.keys.scale(),
            count: self.count,
            direction_bits: u32::from(self.keys.direction_buckets),
            clear_words: first_digit.clear_words,
        }
    }

    /// Records the whole build (leaves, sort, climb) with compute barriers between the steps
    /// and after the last, each step in a profiler scope of its own when given one
    /// (`light_bvh_leaves`, `_sort`, `_climb`). The flattened light map must be visible to
    /// compute work.
    pub fn record_build(
        &self,
        commands: &mut CommandBuffer,
        sources: &BvhSources,
        mut profiler: Option<&mut Profiler>,
    ) -> GpuResult<()> {
        let push = self.push(sources);
        let grid = DispatchSize::covering(u64::from(self.count.div_ceil(LIGHT_BVH_GROUP)), self.max_groups_x)
            .ok_or_else(|| GpuError::InvalidUse {
                name: "light bvh".into(),
                problem: format!("{} lights exceed the dispatch limits", self.count),
            })?;
        // The leaves go to the sort's compute dispatches only: a compute-to-compute barrier.
        timed(commands, profiler.as_deref_mut(), "light_bvh_leaves", &|commands| {
            commands.dispatch(&self.make_leaves, &push, grid);
            commands.shader_barrier();
            Ok(())
        })?;
        let arrays = RadixArrays {
            keys: self.sort_keys.address(),
            values: self.sort_values.address(),
            count: self.count,
            key_bits: KEY_BITS,
        };
        timed(commands, profiler.as_deref_mut(), "light_bvh_sort", &|commands| {
            self.sort.record_counted(commands, &arrays)?;
            commands.shader_barrier();
            Ok(())
        })?;
        let (keys, values) = self.sorted();
        let climb_push = LightBvhPush {
            keys: keys.address(),
            values: values.address(),
            ..push
        };
        timed(commands, profiler, "light_bvh_climb", &|commands| {
            commands.dispatch(&self.climb, &climb_push, grid);
            commands.compute_barrier();
            Ok(())
        })
    }
}
