//! Stable least-significant-digit radix sort of (u32 key, u32 value) pairs on the GPU: the
//! light BVH sorts its emitters by Morton code with it, and rebuilds every frame where lights
//! move, so its cost is mostly the number of dispatches (each with its barrier, several
//! microseconds on an H100), not the work.
//!
//! One dispatch counts the first digit (`radix_count`: a shared histogram per tile of
//! `RADIX_TILE` keys, tile-major rows); then one dispatch a digit, `radix_scatter`: each
//! tile finds its first place for each digit value from the table, ranks its items stably
//! with subgroup ballots, writes them there, and counts each item's next digit into the next
//! table at the tile it lands in (a global atomic an item). A scatter workgroup is as wide as
//! 32 subgroups (1,024 threads on an H100), so that each subgroup ranks few rounds of the
//! tile. A tile sums the table itself when it has at most `DIRECT_TILES` rows; past that a
//! `radix_offsets` dispatch a digit scans its columns first, so that the work stays linear in
//! the keys. Keys and values ping-pong between the caller's arrays and the sort's own; only
//! as many digits are sorted as `key_bits` needs (at least two), so the result lies in the
//! caller's arrays after an even number of digits and in the sort's own after an odd one
//! (`SortedPairs`): a copy back would cost what a digit does. No workgroup waits on another
//! (unlike Onesweep's decoupled look-back, which Vulkan's forward-progress rules do not
//! allow).
//!
//! A caller whose own kernel writes the keys can count their first digit there
//! (`first_digit_counts`, `record_counted`), which saves the count's dispatch: on an H100 a
//! dispatch and its barrier cost several microseconds whatever their work. The first digit's
//! table is then the caller's to add into; the second digit's scatter clears it again for the
//! next sort.

use crate::gpu::shaders::ids;
use crate::gpu::{Buffer, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult};
use crate::interface::{RadixSortPush, RADIX_BITS, RADIX_BUCKETS, RADIX_GROUP, RADIX_TILE};

/// The most pairs one sort takes: the histogram tables stay within u32 indices.
pub const MAX_ITEMS: u32 = 1 << 30;
/// The longest table (in tiles) that every scatter workgroup sums for itself: 64 rows of
/// RADIX_BUCKETS words, 64 KiB read by each of 64 workgroups. Past it the reads would grow as
/// the square of the keys; a scan of the columns is one dispatch more a digit.
pub const DIRECT_TILES: u32 = 64;
/// Digits of a 32-bit key.
const MAX_PASSES: u64 = (32 / RADIX_BITS) as u64;

/// Subgroups of a scatter workgroup at most: their counts fill 16 KiB of shared memory.
const SCATTER_SUBGROUPS: u32 = 32;
/// Threads of a scatter workgroup at most (every device in use takes 1,024).
const SCATTER_GROUP: u32 = 1024;

// The count pass takes a thread per digit value.
const _: () = assert!(RADIX_GROUP == RADIX_BUCKETS);

pub struct RadixSort {
    count: ComputePipeline<RadixSortPush>,
    offsets: ComputePipeline<RadixSortPush>,
    scatter: ComputePipeline<RadixSortPush>,
    /// MAX_PASSES tables of tiles x RADIX_BUCKETS words, one a digit.
    histograms: Buffer,
    prefixes: Buffer,
    totals: Buffer,
    keys: Buffer,
    values: Buffer,
    max_items: u32,
    max_groups_x: u32,
}

/// Where a caller that writes the keys counts their first digit (`RadixSort::record_counted`):
/// `table` has a row of RADIX_BUCKETS words per tile of RADIX_TILE keys (the tile of key `i`
/// is `i / RADIX_TILE`), zero until the caller adds each tile's count of each value of the
/// key's low RADIX_BITS bits; the same kernel clears the `clear_words` words after it.
pub struct FirstDigitCounts {
    pub table: u64,
    pub clear_words: u32,
}

/// The pairs to sort, by device address, each array of `count` u32 words. The result ends in
/// `keys`/`values` again after an even number of digits (`RadixSort::sorted_pairs`).
pub struct RadixArrays {
    pub keys: u64,
    pub values: u64,
    pub count: u32,
    /// The low bits that hold the keys: digits above them are not sorted.
    pub key_bits: u32,
}

/// Where a sort leaves its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortedPairs {
    /// `RadixArrays::keys` and `values`.
    InCallers,
    /// The sort's own arrays (`RadixSort::sorted_buffers`).
    InOwn,
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
        let storage = |name: &str, words: u64| Buffer::gpu_storage(context, name, words * 4);
        // The scatter's workgroup is as wide as SCATTER_SUBGROUPS subgroups (a tile ranked in
        // fewer rounds each), with at least a thread a digit value, and divides a tile.
        let limits = (capabilities.max_compute_workgroup_invocations).min(capabilities.max_compute_workgroup_size[0]);
        let scatter_group = (subgroup * SCATTER_SUBGROUPS)
            .min(SCATTER_GROUP)
            .min(limits)
            .max(RADIX_GROUP);
        if scatter_group % subgroup != 0 || RADIX_TILE % scatter_group != 0 || scatter_group > limits {
            return Err(invalid(format!(
                "no scatter workgroup fits subgroups of {subgroup} and workgroups of {limits} threads"
            )));
        }
        let subgroups = [RADIX_GROUP / subgroup];
        let scatter_shape = [scatter_group / subgroup, scatter_group];
        let histograms = storage("radix sort histograms", MAX_PASSES * table)?;
        // The first digit's table starts empty for a caller that counts into it.
        context.run_once("radix sort tables", |commands| {
            commands.fill_buffer(&histograms, 0, histograms.size(), 0);
            commands.compute_barrier();
            Ok(())
        })?;
        Ok(Self {
            count: ComputePipeline::new(context, ids::PRIMITIVES_RADIX_COUNT, &[])?,
            offsets: ComputePipeline::with_full_subgroups(context, ids::PRIMITIVES_RADIX_OFFSETS, &subgroups)?,
            scatter: ComputePipeline::with_full_subgroups(context, ids::PRIMITIVES_RADIX_SCATTER, &scatter_shape)?,
            histograms,
            prefixes: storage("radix sort prefixes", table)?,
            totals: storage("radix sort totals", u64::from(RADIX_BUCKETS))?,
            keys: storage("radix sort keys", u64::from(max_items))?,
            values: storage("radix sort values", u64::from(max_items))?,
            max_items,
            max_groups_x: capabilities.max_compute_workgroup_count[0],
        })
    }

    /// Digits sorted for keys of `key_bits` bits: at least two, as the second digit's scatter
    /// clears the first digit's table for the next sort.
    pub fn passes(key_bits: u32) -> u32 {
        key_bits.clamp(1, 32).div_ceil(RADIX_BITS).max(2)
    }

    /// Where a sort of keys of `key_bits` bits leaves the sorted pairs.
    pub fn sorted_pairs(key_bits: u32) -> SortedPairs {
        if Self::passes(key_bits) % 2 == 0 {
            SortedPairs::InCallers
        } else {
            SortedPairs::InOwn
        }
    }

    /// The buffers that hold the sorted keys and values of a sort of keys of `key_bits` bits
    /// whose caller's arrays are `keys` and `values`.
    pub fn sorted_buffers<'a>(
        &'a self,
        key_bits: u32,
        keys: &'a Buffer,
        values: &'a Buffer,
    ) -> (&'a Buffer, &'a Buffer) {
        match Self::sorted_pairs(key_bits) {
            SortedPairs::InCallers => (keys, values),
            SortedPairs::InOwn => (&self.keys, &self.values),
        }
    }

    /// Records the sort: 1 + digits dispatches (one more a digit past `DIRECT_TILES` tiles),
    /// with a compute-to-compute barrier between two. Earlier writes to the arrays must be
    /// visible to compute work; the caller orders what reads the result (`sorted_buffers`)
    /// after the last.
    pub fn record(&self, commands: &mut CommandBuffer, arrays: &RadixArrays) -> GpuResult<()> {
        self.record_passes(commands, arrays, true)
    }

    /// Where the kernel that writes `count` keys of `key_bits` bits counts their first digit
    /// for `record_counted`.
    pub fn first_digit_counts(&self, count: u32, key_bits: u32) -> FirstDigitCounts {
        let table_words = count.div_ceil(RADIX_TILE) * RADIX_BUCKETS;
        FirstDigitCounts {
            table: self.histograms.address(),
            clear_words: (Self::passes(key_bits) - 1) * table_words,
        }
    }

    /// As `record`, without the count's dispatch: the first digit was counted into
    /// `first_digit_counts`' table, and the words after it cleared, by work visible to
    /// compute work now.
    pub fn record_counted(&self, commands: &mut CommandBuffer, arrays: &RadixArrays) -> GpuResult<()> {
        self.record_passes(commands, arrays, false)
    }

    fn record_passes(&self, commands: &mut CommandBuffer, arrays: &RadixArrays, count_first: bool) -> GpuResult<()> {
        if arrays.count > self.max_items {
            return Err(GpuError::InvalidUse {
                name: "radix sort".into(),
                problem: format!("{} items, sized for {}", arrays.count, self.max_items),
            });
        }
        if arrays.count == 0 {
            // Nothing to move, but a counted first digit must not stay for the next sort (full
            // barriers: a transfer between compute work). One pair is sorted as any other, so
            // that it too lands where `sorted_pairs` says.
            if !count_first {
                commands.compute_barrier();
                commands.fill_buffer(&self.histograms, 0, u64::from(RADIX_BUCKETS) * 4, 0);
                commands.compute_barrier();
            }
            return Ok(());
        }
        let tiles = arrays.count.div_ceil(RADIX_TILE);
        let grid = DispatchSize::covering(u64::from(tiles), self.max_groups_x).ok_or_else(|| GpuError::InvalidUse {
            name: "radix sort".into(),
            problem: format!("{} items exceed the dispatch limits", arrays.count),
        })?;
        let table_bytes = u64::from(tiles) * u64::from(RADIX_BUCKETS) * 4;
        let table = |digit: u32| self.histograms.address() + u64::from(digit) * table_bytes;
        let passes = Self::passes(arrays.key_bits);
        let direct = tiles <= DIRECT_TILES;
        let ours = (self.keys.address(), self.values.address());
        let theirs = (arrays.keys, arrays.values);
        // The count pass clears the later digits' tables as a caller that counts does.
        let first_digit = self.first_digit_counts(arrays.count, arrays.key_bits);
        let push = |pass: u32| {
            let (from, to) = if pass % 2 == 0 { (theirs, ours) } else { (ours, theirs) };
            RadixSortPush {
                keys_in: from.0,
                values_in: from.1,
                keys_out: to.0,
                values_out: to.1,
                histograms: table(pass),
                next_histograms: if pass + 1 < passes { table(pass + 1) } else { 0 },
                spent_histograms: if pass == 1 { table(0) } else { 0 },
                prefixes: if direct { 0 } else { self.prefixes.address() },
                totals: if direct { 0 } else { self.totals.address() },
                count: arrays.count,
                shift: pass * RADIX_BITS,
                tiles,
                clear_words: first_digit.clear_words,
            }
        };
        commands.begin_label("radix_sort");
        // Its dispatches are all direct: compute-to-compute barriers between them, lighter on
        // an H100 than one that also orders indirect-argument reads (2.5 us each).
        if count_first {
            commands.dispatch(&self.count, &push(0), grid);
            commands.shader_barrier();
        }
        for pass in 0..passes {
            if !direct {
                commands.dispatch(&self.offsets, &push(pass), DispatchSize { x: RADIX_BUCKETS, y: 1 });
                commands.shader_barrier();
            }
            commands.dispatch(&self.scatter, &push(pass), grid);
            if pass + 1 < passes {
                commands.shader_barrier();
            }
        }
        commands.end_label();
        Ok(())
    }
}
