//! Counting sort of u32 values by small integer keys, on the GPU: the wavefront integrator
//! groups the paths waiting for a surface shade by material with it, so that neighbouring
//! threads run the same BSDF code over the same material record.
//!
//! Three dispatches: `count` (per-workgroup shared histograms, added to global counts with one
//! atomic per bin and workgroup), `offsets` (one workgroup scans at most `MAX_BUCKETS` counts
//! and zeroes them for the next sort) and `scatter` (each workgroup ranks its items in shared
//! memory and reserves each bucket's run with one atomic). The item count is read by the
//! kernels from a device address, so it can be a queue length the GPU wrote; the launch is
//! then indirect. Not stable: the order within a bucket depends on the atomics.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult};
use crate::interface::SortPush;

/// Items per workgroup of `count` and `scatter`, and buckets one shared histogram holds.
pub use crate::interface::{SORT_ITEMS_PER_GROUP as ITEMS_PER_GROUP, SORT_MAX_BUCKETS as MAX_BUCKETS};

/// How many workgroups the item-parallel passes launch.
pub enum SortLaunch<'a> {
    /// Enough for this many items (tests, or counts known on the CPU).
    Direct(u32),
    /// From `VkDispatchIndirectCommand` arguments the GPU wrote: at the first offset for the
    /// item passes, at the second for the offsets pass (one group, or none for no items).
    Indirect(&'a Buffer, u64, u64),
}

/// The buffers of one sort, by device address: `keys[i]` is the bucket of `values[i]`; `count`
/// points to the u32 number of items; `sorted` receives the values grouped by bucket. A
/// `values` address of 0 sorts the item indices themselves. Where not 0, `unsorted_copy`
/// receives the values in their own order (so the shade queue keeps extend's order:
/// route_hit.glsl's `shade_in_extend_order`).
pub struct SortArrays {
    pub keys: u64,
    pub values: u64,
    pub sorted: u64,
    pub count: u64,
    pub unsorted_copy: u64,
}

/// Wraps the recording of one pass (`record`) under a name: a profiler scope, or nothing.
pub type PassTimer<'a> = dyn FnMut(&mut CommandBuffer, &str, &dyn Fn(&mut CommandBuffer)) -> GpuResult<()> + 'a;

pub struct CountingSort {
    count: ComputePipeline<SortPush>,
    offsets: ComputePipeline<SortPush>,
    scatter: ComputePipeline<SortPush>,
    bucket_counts: Buffer,
    bucket_offsets: Buffer,
    bucket_count: u32,
}

impl CountingSort {
    pub fn new(context: &Context, bucket_count: u32) -> GpuResult<Self> {
        if bucket_count == 0 || bucket_count > MAX_BUCKETS {
            return Err(GpuError::InvalidUse {
                name: "counting sort".into(),
                problem: format!("{bucket_count} buckets; between 1 and {MAX_BUCKETS} are supported"),
            });
        }
        let bytes = u64::from(bucket_count) * 4;
        let bucket_counts = Buffer::from_slice(
            context,
            "sort bucket counts",
            &vec![0u32; bucket_count as usize],
            BufferUsage::STORAGE,
        )?;
        let bucket_offsets = Buffer::new(
            context,
            "sort bucket offsets",
            bytes,
            BufferUsage::STORAGE,
            crate::gpu::MemoryLocation::GpuOnly,
        )?;
        Ok(Self {
            count: ComputePipeline::new(context, ids::PRIMITIVES_COUNTING_SORT_COUNT, &[])?,
            offsets: ComputePipeline::new(context, ids::PRIMITIVES_COUNTING_SORT_OFFSETS, &[])?,
            scatter: ComputePipeline::new(context, ids::PRIMITIVES_COUNTING_SORT_SCATTER, &[])?,
            bucket_counts,
            bucket_offsets,
            bucket_count,
        })
    }

    pub fn bucket_count(&self) -> u32 {
        self.bucket_count
    }

    /// Records the three passes with compute barriers between them and after the last;
    /// `time` wraps each pass (a profiler scope, or nothing).
    pub fn record(
        &self,
        commands: &mut CommandBuffer,
        arrays: &SortArrays,
        launch: SortLaunch<'_>,
        time: &mut PassTimer<'_>,
    ) -> GpuResult<()> {
        let push = SortPush {
            keys: arrays.keys,
            values: arrays.values,
            sorted: arrays.sorted,
            unsorted_copy: arrays.unsorted_copy,
            bucket_counts: self.bucket_counts.address(),
            bucket_offsets: self.bucket_offsets.address(),
            count: arrays.count,
            bucket_count: self.bucket_count,
            pad0: 0,
        };
        let item_pass = |commands: &mut CommandBuffer, pipeline: &ComputePipeline<SortPush>| match launch {
            SortLaunch::Direct(items) => commands.dispatch(
                pipeline,
                &push,
                DispatchSize {
                    x: items.div_ceil(ITEMS_PER_GROUP),
                    y: 1,
                },
            ),
            SortLaunch::Indirect(args, offset, _) => commands.dispatch_indirect(pipeline, &push, args, offset),
        };
        time(commands, "sort_count", &|commands| item_pass(commands, &self.count))?;
        commands.compute_barrier();
        time(commands, "sort_offsets", &|commands| match launch {
            SortLaunch::Direct(_) => commands.dispatch(&self.offsets, &push, DispatchSize { x: 1, y: 1 }),
            SortLaunch::Indirect(args, _, offset) => commands.dispatch_indirect(&self.offsets, &push, args, offset),
        })?;
        commands.compute_barrier();
        time(commands, "sort_scatter", &|commands| item_pass(commands, &self.scatter))?;
        commands.compute_barrier();
        Ok(())
    }
}
