//! The wavefront's path state: structure-of-arrays over path slots, the queues' lists, and
//! the shadow paths, each array one buffer whose address goes into `PassConstants`.
//!
//! Packing (bytes per slot, `ARRAYS`): positions and directions are `vec3` (12 bytes, the
//! scalar layout has no vec4 padding), a path's sample index and segment share one word (24 +
//! 8 bits), the last BSDF density rides in the throughput's w, and a free slot is marked by its
//! pixel, not a flag of its own. The compaction lists borrow the shade queue and its keys,
//! which are idle while every path waits for extend. Nothing is quantized: the packing must
//! not change a bit of the image.

use crate::gpu::{Buffer, BufferUsage, Context, GpuError, GpuResult, MemoryLocation};
use crate::interface::PassConstants;

/// One array of the state: its name, bytes per slot as stored, and as a naive layout would
/// store it (every vector a vec4, sample and segment in words of their own).
pub struct StateArray {
    pub name: &'static str,
    pub bytes: u64,
    pub unpacked_bytes: u64,
}

pub const ARRAYS: [StateArray; 17] = [
    StateArray {
        name: "ray origins",
        bytes: 12,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "ray directions",
        bytes: 12,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "throughputs",
        bytes: 16,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "hits",
        bytes: 16,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "path pixels",
        bytes: 4,
        unpacked_bytes: 8,
    },
    StateArray {
        name: "path samples",
        bytes: 4,
        unpacked_bytes: 8,
    },
    StateArray {
        name: "extend queue",
        bytes: 4,
        unpacked_bytes: 4,
    },
    StateArray {
        name: "extend keys",
        bytes: 4,
        unpacked_bytes: 4,
    },
    StateArray {
        name: "sorted extend queue",
        bytes: 4,
        unpacked_bytes: 4,
    },
    StateArray {
        name: "shade queue",
        bytes: 4,
        unpacked_bytes: 4,
    },
    StateArray {
        name: "shade keys",
        bytes: 4,
        unpacked_bytes: 4,
    },
    StateArray {
        name: "sorted shade queue",
        bytes: 4,
        unpacked_bytes: 4,
    },
    StateArray {
        name: "shadow origins",
        bytes: 16,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "shadow directions",
        bytes: 12,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "shadow contributions",
        bytes: 12,
        unpacked_bytes: 16,
    },
    StateArray {
        name: "shadow pixels",
        bytes: 4,
        unpacked_bytes: 4,
    },
    // The compaction lists' own arrays, had they not borrowed the shade queue and keys.
    StateArray {
        name: "compaction lists",
        bytes: 0,
        unpacked_bytes: 8,
    },
];

/// Bytes of state per path slot, as stored.
pub fn bytes_per_slot() -> u64 {
    ARRAYS.iter().map(|a| a.bytes).sum()
}

/// Bytes per slot the same state would take unpacked (see `ARRAYS`).
pub fn unpacked_bytes_per_slot() -> u64 {
    ARRAYS.iter().map(|a| a.unpacked_bytes).sum()
}

/// The share of the largest device-local heap the path state may take by default.
const MEMORY_SHARE: u64 = 8;
/// Beyond this many slots the H100 gains nothing measurable (docs/BENCHMARKS.md), and the
/// compaction pass over all slots costs more.
pub const MAX_DEFAULT_SLOTS: u32 = 1 << 22;
/// A GPU needs tens of thousands of threads in flight; fewer slots starve it.
pub const MIN_DEFAULT_SLOTS: u32 = 1 << 16;
/// The largest slot count `--path-slots` takes: indices and counts stay in u32 with room to
/// spare, and a queue's list stays below 4 GiB.
pub const MAX_SLOTS: u32 = 1 << 28;

/// Path slots for a render of `camera_paths` paths: an eighth of device memory, between the
/// default bounds, and no more than there are camera paths.
pub fn default_path_slots(context: &Context, camera_paths: u64) -> u32 {
    let by_memory = context.adapter().capabilities.device_local_bytes / MEMORY_SHARE / bytes_per_slot();
    let slots = by_memory.clamp(u64::from(MIN_DEFAULT_SLOTS), u64::from(MAX_DEFAULT_SLOTS));
    slots.min(camera_paths.max(1)) as u32
}

pub struct PathState {
    buffers: Vec<Buffer>,
    slots: u32,
}

impl PathState {
    pub fn new(context: &Context, slots: u32) -> GpuResult<Self> {
        if slots == 0 || slots > MAX_SLOTS {
            return Err(GpuError::InvalidUse {
                name: "path slots".into(),
                problem: format!("{slots}; between 1 and {MAX_SLOTS} are supported"),
            });
        }
        let mut buffers = Vec::new();
        for array in ARRAYS.iter().filter(|a| a.bytes > 0) {
            let buffer = Buffer::new(
                context,
                array.name,
                u64::from(slots) * array.bytes,
                BufferUsage::STORAGE,
                MemoryLocation::GpuOnly,
            )?;
            buffers.push(buffer);
        }
        let state = Self { buffers, slots };
        // Every slot starts free (pixel = INACTIVE_PATH, all bits set).
        let pixels = state.buffer("path pixels");
        context.run_once("free every path slot", |commands| {
            commands.fill_buffer(pixels, 0, pixels.size(), u32::MAX);
            Ok(())
        })?;
        Ok(state)
    }

    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// The array called `name` in `ARRAYS`.
    pub fn buffer(&self, name: &str) -> &Buffer {
        self.buffers
            .iter()
            .find(|b| b.name() == name)
            .expect("every stored array has a buffer")
    }

    /// Its addresses in the pass constants.
    pub fn fill(&self, constants: &mut PassConstants) {
        let address = |name: &str| self.buffer(name).address();
        constants.ray_origins = address("ray origins");
        constants.ray_directions = address("ray directions");
        constants.throughputs = address("throughputs");
        constants.hits = address("hits");
        constants.path_pixels = address("path pixels");
        constants.path_samples = address("path samples");
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
        constants.path_slots = self.slots;
    }
}
