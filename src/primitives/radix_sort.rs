//! Stable least-significant-digit radix sort of (u32 key, u32 value) pairs on the GPU: the
//! light BVH sorts its emitters by Morton code with it.
//!
//! Each digit of `RADIX_BITS` bits takes three steps: `radix_count` (a shared histogram per
//! tile of `RADIX_TILE` keys, written digit-major), the existing prefix sum over that table
//! (which gives each digit of each tile its first output place), and `radix_scatter` (each
//! tile ranks its items stably with subgroup ballots and writes them to their places). Keys
//! and values ping-pong between the caller's arrays and the sort's own; only as many digits
//! are sorted as `key_bits` needs. No workgroup waits on another (unlike Onesweep's
//! decoupled look-back, which Vulkan's forward-progress rules do not allow).

use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, MemoryLocation,
};
use crate::interface::{RadixSortPush, RADIX_BITS, RADIX_BUCKETS, RADIX_GROUP, RADIX_TILE};

use super::scan::{PrefixSum, ScanElement};

/// The most pairs one sort takes: the histogram table and its scan stay within u32 indices.
pub const MAX_ITEMS: u32 = 1 << 30;

pub struct RadixSort {
    count: ComputePipeline<RadixSortPush>,
    scatter: ComputePipeline<RadixSortPush>,
    scan: PrefixSum,
    scan_scratch: Buffer,
    histograms: Buffer,
    scanned: Buffer,
    keys: Buffer,
    values: Buffer,
    max_items: u32,
    max_groups_x: u32,
}

/// The pairs to sort, by device address, each array of `count` u32 words. The result ends in
/// `keys`/`values` again.
pub struct RadixArrays {
    pub keys: u64,
    pub values: u64,
    pub count: u32,
    /// The low bits that hold the keys: digits above them are not sorted.
    pub key_bits: u32,
}

impl RadixSort {
    /// A sort of up to `max_items` pairs. Needs subgroup ballots and full subgroups.
    pub fn new(context: &Context, max_items: u32) -> GpuResult<Self> {
        let invalid = |problem: String| GpuError::InvalidUse {
            name: "radix sort".into(),
            problem,
        };
        if max_items == 0 || max_items > MAX_ITEMS {
            return Err(invalid(format!("{max_items} items; 1 to {MAX_ITEMS} are supported")));
        }
        let capabilities = &context.adapter().capabilities;
        if !capabilities.subgroup_ballot {
            return Err(invalid("the device has no subgroup ballots".into()));
        }
        let subgroup = capabilities.subgroup_size;
        if subgroup == 0 || RADIX_GROUP % subgroup != 0 {
            return Err(invalid(format!(
                "subgroups of {subgroup} do not divide the workgroup of {RADIX_GROUP}"
            )));
        }
        let tiles = u64::from(max_items.div_ceil(RADIX_TILE));
        let table = tiles * u64::from(RADIX_BUCKETS);
        let storage = |name: &str, words: u64| {
            Buffer::new(context, name, words * 4, BufferUsage::STORAGE, MemoryLocation::GpuOnly)
        };
        Ok(Self {
            count: ComputePipeline::new(context, ids::PRIMITIVES_RADIX_COUNT, &[])?,
            scatter: ComputePipeline::with_full_subgroups(
                context,
                ids::PRIMITIVES_RADIX_SCATTER,
                &[RADIX_GROUP / subgroup],
            )?,
            scan: PrefixSum::new(context, ScanElement::U32)?,
            scan_scratch: PrefixSum::new_scratch(context, table)?,
            histograms: storage("radix sort histograms", table)?,
            scanned: storage("radix sort scanned histograms", table)?,
            keys: storage("radix sort keys", u64::from(max_items))?,
            values: storage("radix sort values", u64::from(max_items))?,
            max_items,
            max_groups_x: capabilities.max_compute_workgroup_count[0],
        })
    }

    /// Digits sorted for keys of `key_bits` bits: an even number, so that the result lands
    /// back in the caller's arrays.
    pub fn passes(key_bits: u32) -> u32 {
        let digits = key_bits.clamp(1, 32).div_ceil(RADIX_BITS);
        digits + digits % 2
    }

    /// Records the sort, with a compute barrier after each step. Earlier writes to the
    /// arrays must be visible to compute work.
    pub fn record(&self, commands: &mut CommandBuffer, arrays: &RadixArrays) -> GpuResult<()> {
        if arrays.count > self.max_items {
            return Err(GpuError::InvalidUse {
                name: "radix sort".into(),
                problem: format!("{} items, sized for {}", arrays.count, self.max_items),
            });
        }
        if arrays.count <= 1 {
            return Ok(());
        }
        let tiles = arrays.count.div_ceil(RADIX_TILE);
        let grid = DispatchSize::covering(u64::from(tiles), self.max_groups_x).ok_or_else(|| GpuError::InvalidUse {
            name: "radix sort".into(),
            problem: format!("{} items exceed the dispatch limits", arrays.count),
        })?;
        let table = u64::from(tiles) * u64::from(RADIX_BUCKETS);
        let ours = (self.keys.address(), self.values.address());
        let theirs = (arrays.keys, arrays.values);
        commands.begin_label("radix_sort");
        for pass in 0..Self::passes(arrays.key_bits) {
            let (from, to) = if pass % 2 == 0 { (theirs, ours) } else { (ours, theirs) };
            let push = RadixSortPush {
                keys_in: from.0,
                values_in: from.1,
                keys_out: to.0,
                values_out: to.1,
                histograms: self.histograms.address(),
                scanned: self.scanned.address(),
                count: arrays.count,
                shift: pass * RADIX_BITS,
                tiles,
                pad0: 0,
            };
            commands.dispatch(&self.count, &push, grid);
            commands.compute_barrier();
            self.scan
                .record(commands, &self.histograms, &self.scanned, table, &self.scan_scratch)?;
            commands.dispatch(&self.scatter, &push, grid);
            commands.compute_barrier();
        }
        commands.end_label();
        Ok(())
    }
}
