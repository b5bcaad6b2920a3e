//! Inclusive prefix sum (scan) over u32 or f32 of any length, on the GPU.
//!
//! A multi-level reduce-then-scan: `scan_block` scans blocks of `BLOCK` elements and writes
//! each block's total one level up; the levels above are scanned the same way until one
//! block remains; then `scan_add_offsets` walks back down adding each block's offset. Within
//! a block the work is split over subgroups with `subgroupExclusiveAdd`, so a level is one
//! dispatch whatever the subgroup size. Levels are ceil(log_BLOCK(n)), so 10^6 elements take
//! two levels and three dispatches.
//!
//! Chosen over a single-pass decoupled look-back scan (Merrill and Garland 2016) because that
//! one depends on forward-progress guarantees between workgroups that Vulkan does not make,
//! and lavapipe does not give. The one-dispatch CDF of the lights issue avoids waiting
//! altogether with survivor counters instead.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult};
use crate::interface::ScanPush;

/// Threads per workgroup of both scan kernels.
pub const WORKGROUP_SIZE: u32 = 256;
/// Elements each thread scans sequentially before the subgroup step.
pub const ITEMS_PER_THREAD: u32 = 4;
/// Elements per block: one workgroup's share.
pub const BLOCK: u64 = (WORKGROUP_SIZE * ITEMS_PER_THREAD) as u64;
/// The largest scan: indices stay well inside u32 arithmetic in the shaders.
pub const MAX_COUNT: u64 = 1 << 31;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanElement {
    U32,
    F32,
}

pub struct PrefixSum {
    scan_block: ComputePipeline<ScanPush>,
    add_offsets: ComputePipeline<ScanPush>,
    max_groups_x: u32,
}

/// Element counts of each level: the input, then one total per block of the level below,
/// until a level fits in one block.
fn level_sizes(count: u64) -> Vec<u64> {
    let mut sizes = vec![count];
    let mut n = count;
    while n > BLOCK {
        n = n.div_ceil(BLOCK);
        sizes.push(n);
    }
    sizes
}

impl PrefixSum {
    pub fn new(context: &Context, element: ScanElement) -> GpuResult<Self> {
        let (block_id, add_id) = match element {
            ScanElement::U32 => (ids::PRIMITIVES_SCAN_BLOCK_U32, ids::PRIMITIVES_SCAN_ADD_OFFSETS_U32),
            ScanElement::F32 => (ids::PRIMITIVES_SCAN_BLOCK_F32, ids::PRIMITIVES_SCAN_ADD_OFFSETS_F32),
        };
        let specialization = [WORKGROUP_SIZE, ITEMS_PER_THREAD];
        Ok(Self {
            scan_block: ComputePipeline::new(context, block_id, &specialization)?,
            add_offsets: ComputePipeline::new(context, add_id, &specialization)?,
            max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
        })
    }

    /// Elements of scratch space (4 bytes each) that a scan of `count` elements needs.
    pub fn scratch_elements(count: u64) -> u64 {
        level_sizes(count).iter().skip(1).sum()
    }

    /// A scratch buffer for scans of up to `max_count` elements.
    pub fn new_scratch(context: &Context, max_count: u64) -> GpuResult<Buffer> {
        let bytes = Self::scratch_elements(max_count) * 4;
        Buffer::gpu_storage(context, "prefix_sum scratch", bytes)
    }

    /// Records the scan of the first `count` elements of `input` into `output` (which may be
    /// the same buffer). Earlier writes to `input` must be made visible by the caller; the
    /// result is visible to compute and transfer work recorded after this.
    pub fn record(
        &self,
        commands: &mut CommandBuffer,
        input: &Buffer,
        output: &Buffer,
        count: u64,
        scratch: &Buffer,
    ) -> GpuResult<()> {
        if count == 0 {
            return Ok(());
        }
        let invalid = |name: &str, problem: String| GpuError::InvalidUse {
            name: name.to_string(),
            problem,
        };
        if count > MAX_COUNT {
            return Err(invalid(
                "prefix_sum",
                format!("{count} elements, more than the {MAX_COUNT} supported"),
            ));
        }
        for buffer in [input, output] {
            if buffer.size() < count * 4 {
                return Err(invalid(
                    buffer.name(),
                    format!("{} bytes, too small for {count} elements", buffer.size()),
                ));
            }
        }
        if scratch.size() < Self::scratch_elements(count) * 4 {
            return Err(invalid(
                scratch.name(),
                format!("too small for a scan of {count} elements"),
            ));
        }

        let levels = level_sizes(count);
        let mut level_addresses = vec![output.address()];
        let mut offset = 0;
        for &size in &levels[1..] {
            level_addresses.push(scratch.address() + offset * 4);
            offset += size;
        }
        let groups = |size: u64| {
            DispatchSize::covering(size.div_ceil(BLOCK), self.max_groups_x)
                .ok_or_else(|| invalid("prefix_sum", format!("{size} elements exceed the dispatch limits")))
        };

        commands.begin_label("prefix_sum");
        for (level, &size) in levels.iter().enumerate() {
            let grid = groups(size)?;
            let push = ScanPush {
                values_in: if level == 0 {
                    input.address()
                } else {
                    level_addresses[level]
                },
                values_out: level_addresses[level],
                block_sums: level_addresses.get(level + 1).copied().unwrap_or(0),
                count: size as u32,
                groups_x: grid.x,
            };
            commands.dispatch(&self.scan_block, &push, grid);
            commands.compute_barrier();
        }
        for level in (0..levels.len() - 1).rev() {
            let grid = groups(levels[level])?;
            let push = ScanPush {
                values_in: 0,
                values_out: level_addresses[level],
                block_sums: level_addresses[level + 1],
                count: levels[level] as u32,
                groups_x: grid.x,
            };
            commands.dispatch(&self.add_offsets, &push, grid);
            commands.compute_barrier();
        }
        commands.end_label();
        Ok(())
    }

    /// Scans and waits: allocates scratch, records, submits. For tests and one-off use.
    pub fn run(&self, context: &Context, input: &Buffer, output: &Buffer, count: u64) -> GpuResult<()> {
        let scratch = Self::new_scratch(context, count)?;
        context.run_once("prefix_sum", |commands| {
            self.record(commands, input, output, count, &scratch)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_shrink_to_one_block() {
        assert_eq!(level_sizes(1), vec![1]);
        assert_eq!(level_sizes(BLOCK), vec![BLOCK]);
        assert_eq!(level_sizes(BLOCK + 1), vec![BLOCK + 1, 2]);
        assert_eq!(level_sizes(1_000_007), vec![1_000_007, 977]);
        assert_eq!(level_sizes(BLOCK * BLOCK + 1), vec![BLOCK * BLOCK + 1, BLOCK + 1, 2]);
        assert_eq!(PrefixSum::scratch_elements(BLOCK * BLOCK + 1), BLOCK + 3);
    }
}
