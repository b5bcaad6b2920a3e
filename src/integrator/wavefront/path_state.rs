//! The wavefront's path state: structure-of-arrays over path slots, the queues' lists, and
//! the shadow paths, each array one buffer whose address goes into `PassConstants`.
//!
//! Packing (bytes per slot, `ARRAYS`): positions and directions are `vec3` (12 bytes, the
//! scalar layout has no vec4 padding), a hit keeps t, instance and triangle (12 bytes; the
//! mesh the trace also reports is only needed for the sort key, computed on the spot), a
//! path's sample index and segment share one word (24 + 8 bits), the last BSDF density rides
//! in the throughput's w, a free slot is marked by its pixel rather than a flag of its own,
//! the compaction lists borrow the shade queue and its keys (idle while every path waits for
//! extend), and the sorts' arrays exist only when that sort is on. Nothing is quantized: the
//! packing must not change a bit of the image.

use crate::gpu::{Buffer, CommandBuffer, Context, GpuError, GpuResult};
use crate::interface::PassConstants;

/// Which sorts a render does: their arrays exist only then.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sorts {
    /// The shade queue's (by material and/or slot range).
    pub shade: bool,
    /// The extend and connect queues' (by ray).
    pub rays: bool,
}

/// When an array is needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needed {
    Always,
    ShadeSort,
    RaySort,
    /// Never stored: the arrays an unpacked layout would have that this one folds away.
    Folded,
}

/// One array of the state: its name, bytes per slot as stored, and as a naive layout would
/// store it (every vector a vec4, hits with their mesh, sample and segment and an active
/// flag in words of their own, compaction lists of their own).
pub struct StateArray {
    pub name: &'static str,
    pub bytes: u64,
    pub unpacked_bytes: u64,
    pub needed: Needed,
}

const fn array(name: &'static str, bytes: u64, unpacked_bytes: u64, needed: Needed) -> StateArray {
    StateArray {
        name,
        bytes,
        unpacked_bytes,
        needed,
    }
}

#[rustfmt::skip]
pub const ARRAYS: [StateArray; 20] = [
    array("ray origins", 12, 16, Needed::Always),
    array("ray directions", 12, 16, Needed::Always),
    array("throughputs", 16, 16, Needed::Always),
    array("hits", 12, 16, Needed::Always),
    array("path pixels", 4, 8, Needed::Always),
    array("path samples", 4, 8, Needed::Always),
    array("light normals", 4, 4, Needed::Always),
    array("extend queue", 4, 4, Needed::Always),
    array("shade queue", 4, 4, Needed::Always),
    // The shade sort's keys, and the second compaction list.
    array("shade keys", 4, 4, Needed::Always),
    array("shadow origins", 16, 16, Needed::Always),
    array("shadow directions", 12, 16, Needed::Always),
    array("shadow contributions", 12, 16, Needed::Always),
    array("shadow pixels", 4, 4, Needed::Always),
    array("sorted shade queue", 4, 4, Needed::ShadeSort),
    array("extend keys", 4, 4, Needed::RaySort),
    array("sorted extend queue", 4, 4, Needed::RaySort),
    array("connect keys", 4, 4, Needed::RaySort),
    array("sorted connect queue", 4, 4, Needed::RaySort),
    // The first compaction list, had it not borrowed the shade queue.
    array("compaction list", 0, 4, Needed::Folded),
];

impl StateArray {
    /// Whether the array has an entry per shadow path (the connect queue's) rather than per
    /// path slot: bidirectional path tracing queues several shadow paths a slot.
    pub fn per_shadow_path(&self) -> bool {
        self.name.starts_with("shadow ") || self.name.contains("connect ")
    }
}

/// Bytes per shadow path of the arrays stored with these sorts that have one entry a shadow path.
pub fn bytes_per_shadow_path(sorts: Sorts) -> u64 {
    ARRAYS
        .iter()
        .filter(|a| a.needed.stored(sorts) && a.per_shadow_path())
        .map(|a| a.bytes)
        .sum()
}

impl Needed {
    fn stored(self, sorts: Sorts) -> bool {
        match self {
            Needed::Always => true,
            Needed::ShadeSort => sorts.shade,
            Needed::RaySort => sorts.rays,
            Needed::Folded => false,
        }
    }
}

/// Bytes of state per slot, as stored with these sorts.
pub fn bytes_per_slot(sorts: Sorts) -> u64 {
    ARRAYS.iter().filter(|a| a.needed.stored(sorts)).map(|a| a.bytes).sum()
}

/// Bytes per slot the same state takes unpacked: every array at its unpacked size, whether
/// its sort runs or not.
pub fn unpacked_bytes_per_slot() -> u64 {
    ARRAYS.iter().map(|a| a.unpacked_bytes).sum()
}

/// The share of the largest device-local heap the path state may take by default.
const MEMORY_SHARE: u64 = 8;
/// On the H100, 2^23 slots beat 2^22 by 1% (Cornell box) to 5% (many-material scene, ray sort
/// on), and 2^24 gain 1-2% more for twice the memory (docs/BENCHMARKS.md).
pub const MAX_DEFAULT_SLOTS: u32 = 1 << 23;
/// A GPU needs tens of thousands of threads in flight; fewer slots starve it.
pub const MIN_DEFAULT_SLOTS: u32 = 1 << 16;
/// The largest slot count `--path-slots` takes: indices and counts stay in u32 with room to
/// spare, and a queue's list stays below 4 GiB.
pub const MAX_SLOTS: u32 = 1 << 28;

/// Path slots for a render of `camera_paths` paths: an eighth of device memory, between the
/// default bounds, and no more than there are camera paths.
pub fn default_path_slots(context: &Context, camera_paths: u64, sorts: Sorts) -> u32 {
    let by_memory = context.adapter().capabilities.device_local_bytes / MEMORY_SHARE / bytes_per_slot(sorts);
    let slots = by_memory.clamp(u64::from(MIN_DEFAULT_SLOTS), u64::from(MAX_DEFAULT_SLOTS));
    slots.min(camera_paths.max(1)) as u32
}

pub struct PathState {
    buffers: Vec<Buffer>,
    slots: u32,
    shadow_slots: u32,
    sorts: Sorts,
}

impl PathState {
    pub fn new(context: &Context, slots: u32, sorts: Sorts) -> GpuResult<Self> {
        Self::with_shadow_slots(context, slots, slots, sorts)
    }

    /// As `new`, with room for `shadow_slots` shadow paths between two connect launches
    /// (bidirectional path tracing queues several a path).
    pub fn with_shadow_slots(context: &Context, slots: u32, shadow_slots: u32, sorts: Sorts) -> GpuResult<Self> {
        if slots == 0 || slots > MAX_SLOTS {
            return Err(GpuError::InvalidUse {
                name: "path slots".into(),
                problem: format!("{slots}; between 1 and {MAX_SLOTS} are supported"),
            });
        }
        let mut buffers = Vec::new();
        for array in ARRAYS.iter().filter(|a| a.needed.stored(sorts)) {
            let entries = if array.per_shadow_path() { shadow_slots } else { slots };
            let buffer = Buffer::gpu_storage(context, array.name, u64::from(entries) * array.bytes)?;
            buffers.push(buffer);
        }
        let state = Self {
            buffers,
            slots,
            shadow_slots,
            sorts,
        };
        context.run_once("free every path slot", |commands| {
            state.record_free_every_slot(commands);
            Ok(())
        })?;
        Ok(state)
    }

    /// Marks every slot free (pixel = INACTIVE_PATH, all bits set), as a render starts: a
    /// finished render leaves paths that compaction would otherwise move.
    pub fn record_free_every_slot(&self, commands: &mut CommandBuffer) {
        let pixels = self.buffer("path pixels").expect("always stored");
        commands.fill_buffer(pixels, 0, pixels.size(), u32::MAX);
        commands.compute_barrier();
    }

    pub fn slots(&self) -> u32 {
        self.slots
    }

    pub fn sorts(&self) -> Sorts {
        self.sorts
    }

    /// The array called `name` in `ARRAYS`, if this state stores it.
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name() == name)
    }

    /// Its addresses in the pass constants.
    pub fn fill(&self, constants: &mut PassConstants) {
        // An array a sort that is off would use has address 0; no kernel reads it then.
        let address = |name: &str| self.buffer(name).map_or(0, Buffer::address);
        constants.ray_origins = address("ray origins");
        constants.ray_directions = address("ray directions");
        constants.throughputs = address("throughputs");
        constants.hits = address("hits");
        constants.path_pixels = address("path pixels");
        constants.path_samples = address("path samples");
        constants.light_normals = address("light normals");
        constants.extend_queue = address("extend queue");
        constants.extend_keys = address("extend keys");
        constants.sorted_extend_queue = address("sorted extend queue");
        constants.shade_queue = address("shade queue");
        constants.shade_keys = address("shade keys");
        constants.sorted_shade_queue = address("sorted shade queue");
        constants.shadow_origins = address("shadow origins");
        constants.shadow_directions = address("shadow directions");
        constants.shadow_contributions = address("shadow contributions");
        constants.shadow_pixels = address("shadow pixels");
        constants.connect_keys = address("connect keys");
        constants.sorted_connect_queue = address("sorted connect queue");
        constants.path_slots = self.slots;
        constants.shadow_capacity = self.shadow_slots;
    }
}
