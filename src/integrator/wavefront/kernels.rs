//! The wavefront's kernels, one per stage of `kernel_graph::GRAPH`, each launched indirectly
//! from its queue's GPU-side counter.
//!
//! Each kernel is recorded as a *step* (`record_step`): a one-thread `prepare_launch` (or
//! `prepare_regenerate`) turns its queue's count into launch arguments, then the kernel runs.
//! The shade step first sorts its queue by material (a counting sort); the regenerate step
//! compacts the active paths to the first slots and fills the slots after them with the next
//! tiles' camera paths, when fewer than a quarter of the slots are active
//! (`REGENERATION_SHARE`). The schedulers (`scheduler.rs`) decide in which order steps run.

use crate::gpu::shaders::ids;
use crate::gpu::TextureSet;
use crate::gpu::{Buffer, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuResult, Profiler};
use crate::integrator::{Crop, KernelFeatures};
use crate::interface::{PassConstants, QueueState, WavefrontPush, FEATURE_ALPHA};
use crate::primitives::{CountingSort, SortArrays, SortLaunch};
use crate::trace::{self, barrier, timed, TraceBackend, TraceKernel, TraceShaders};

use super::kernel_graph::{Kernel, Queue};
use crate::integrator::settings::SplatFilm;

/// Byte offsets inside `QueueState` of the indirect arguments.
const fn offset(field: usize) -> u64 {
    // usize -> u64 cannot lose bits on any target Vulkan runs on.
    field as u64
}
pub(crate) const EXTEND_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, extend_groups));
pub(crate) const EXTEND_LAUNCH: u64 = offset(std::mem::offset_of!(QueueState, extend_launch));
pub(crate) const SHADE_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, shade_groups));
const SORT_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, sort_groups));
const SORT_OFFSETS_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, sort_offsets_groups));
pub(crate) const CONNECT_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, connect_groups));
pub(crate) const CONNECT_LAUNCH: u64 = offset(std::mem::offset_of!(QueueState, connect_launch));
const COMPACT_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, compact_groups));
const MOVE_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, move_groups));
pub(crate) const GENERATE_GROUPS: u64 = offset(std::mem::offset_of!(QueueState, generate_groups));
const LAUNCHED: u64 = offset(std::mem::offset_of!(QueueState, launched));

/// Profiler scopes one step of `kernel` opens.
pub fn step_scopes(kernel: Kernel) -> u32 {
    match kernel {
        Kernel::Generate => 2,
        Kernel::ShadeSurface => 4,
        Kernel::Extend | Kernel::Connect => 1,
    }
}

/// The wavefront's kernels, ready to record.
pub struct WavefrontKernels {
    backend: TraceBackend,
    prepare_regenerate: ComputePipeline<WavefrontPush>,
    compact_find: ComputePipeline<WavefrontPush>,
    compact_move: ComputePipeline<WavefrontPush>,
    generate: ComputePipeline<WavefrontPush>,
    prepare_launch: ComputePipeline<WavefrontPush>,
    extend: TraceKernel,
    shade: ComputePipeline<WavefrontPush>,
    connect: TraceKernel,
    /// Present when shading sorts by material.
    sort: Option<CountingSort>,
    /// Present when extend sorts its rays (`ray_sort_key` in queues.glsl).
    ray_sort: Option<CountingSort>,
}

pub use crate::interface::RAY_SORT_BUCKETS;

/// The arrays a queue's sort reads and writes, by device address: `SortArrays` but the
/// count, which the queue state holds.
#[derive(Clone, Copy)]
pub struct QueueSortArrays {
    pub keys: u64,
    pub values: u64,
    pub sorted: u64,
    pub unsorted_copy: u64,
}

impl QueueSortArrays {
    /// The ray sort before extend: the queued paths, and the queue in its own order copied to
    /// the shade queue where shading keeps extend's order (route_hit.glsl).
    pub fn extend(constants: &PassConstants) -> Self {
        Self {
            keys: constants.extend_keys,
            values: constants.extend_queue,
            sorted: constants.sorted_extend_queue,
            unsorted_copy: if constants.shade_in_extend_order != 0 {
                constants.shade_queue
            } else {
                0
            },
        }
    }

    /// The shade queue's sort (by material or slot range).
    pub fn shade(constants: &PassConstants) -> Self {
        Self {
            keys: constants.shade_keys,
            values: constants.shade_queue,
            sorted: constants.sorted_shade_queue,
            unsorted_copy: 0,
        }
    }

    /// The ray sort before connect: shadow paths are stored in queue order, so the sort orders
    /// their indices.
    pub fn connect(constants: &PassConstants) -> Self {
        Self {
            keys: constants.connect_keys,
            values: 0,
            sorted: constants.sorted_connect_queue,
            unsorted_copy: 0,
        }
    }
}

/// What a step needs besides the kernels: the pass constants' address, the queue state
/// (indirect arguments live there) and the sorts' arrays.
pub struct StepInputs<'a> {
    pub constants: u64,
    pub queues: &'a Buffer,
    /// Set 0 of every step's pipelines.
    pub textures: &'a TextureSet,
    pub extend_sort: QueueSortArrays,
    pub shade_sort: QueueSortArrays,
    pub connect_sort: QueueSortArrays,
}

impl<'a> StepInputs<'a> {
    /// The inputs from filled pass constants that live in a buffer at `constants_address`.
    pub fn new(
        constants_address: u64,
        queues: &'a Buffer,
        constants: &PassConstants,
        textures: &'a TextureSet,
    ) -> Self {
        Self {
            textures,
            constants: constants_address,
            queues,
            extend_sort: QueueSortArrays::extend(constants),
            shade_sort: QueueSortArrays::shade(constants),
            connect_sort: QueueSortArrays::connect(constants),
        }
    }
}

impl WavefrontKernels {
    /// `sort_buckets`: the material sort's bucket count, or 0 for no sorting; `sort_rays`:
    /// whether extend sorts its rays first; `reorder`: extend with shader execution
    /// reordering where the device has it.
    pub fn new(
        context: &Context,
        backend: TraceBackend,
        features: KernelFeatures,
        sort_buckets: u32,
        sort_rays: bool,
        reorder: bool,
    ) -> GpuResult<Self> {
        let specialization = features.specialization();
        let compute = |id| ComputePipeline::<WavefrontPush>::specialised(context, id, &specialization);
        Ok(Self {
            backend,
            prepare_regenerate: compute(ids::WAVEFRONT_PREPARE_REGENERATE)?,
            compact_find: compute(ids::WAVEFRONT_COMPACT_FIND)?,
            compact_move: compute(ids::WAVEFRONT_COMPACT_MOVE)?,
            generate: compute(ids::WAVEFRONT_GENERATE)?,
            prepare_launch: compute(ids::WAVEFRONT_PREPARE_LAUNCH)?,
            extend: extend_kernel(context, backend, features, reorder)?,
            shade: compute(ids::WAVEFRONT_SHADE_SURFACE)?,
            connect: connect_kernel(context, backend, features, SplatFilm::Fixed)?,
            sort: if sort_buckets > 0 {
                Some(CountingSort::new(context, sort_buckets)?)
            } else {
                None
            },
            ray_sort: if sort_rays {
                Some(CountingSort::new(context, RAY_SORT_BUCKETS)?)
            } else {
                None
            },
        })
    }

    fn prepare(&self, pass: &mut CommandBuffer, inputs: &StepInputs<'_>, queue: Queue) {
        let push = WavefrontPush {
            constants: inputs.constants,
            argument: queue.index() as u32,
            pad0: 0,
        };
        pass.dispatch(&self.prepare_launch, &push, DispatchSize { x: 1, y: 1 });
        barrier(self.backend, pass);
    }

    /// Records one step of `kernel`, each launch in a profiler scope of its kernel's name.
    pub fn record_step(
        &self,
        kernel: Kernel,
        pass: &mut CommandBuffer,
        profiler: &mut Profiler,
        inputs: &StepInputs<'_>,
    ) -> GpuResult<()> {
        let backend = self.backend;
        let push = WavefrontPush {
            constants: inputs.constants,
            argument: 0,
            pad0: 0,
        };
        let queues = inputs.queues;
        match kernel {
            Kernel::Generate => {
                pass.dispatch(&self.prepare_regenerate, &push, DispatchSize { x: 1, y: 1 });
                barrier(backend, pass);
                timed(backend, profiler, pass, "compact", &|pass| {
                    pass.dispatch_indirect(&self.compact_find, &push, queues, COMPACT_GROUPS);
                    barrier(backend, pass);
                    pass.dispatch_indirect(&self.compact_move, &push, queues, MOVE_GROUPS);
                })?;
                timed(backend, profiler, pass, "generate", &|pass| {
                    pass.dispatch_indirect(&self.generate, &push, queues, GENERATE_GROUPS)
                })?;
            }
            Kernel::Extend => self.record_queue_kernel(
                (pass, profiler),
                inputs,
                (Queue::Extend, self.ray_sort.as_ref()),
                inputs.extend_sort,
                &|pass| {
                    self.extend
                        .record_indirect(pass, &push, queues, EXTEND_GROUPS, EXTEND_LAUNCH)
                },
            )?,
            Kernel::ShadeSurface => self.record_queue_kernel(
                (pass, profiler),
                inputs,
                (Queue::Shade, self.sort.as_ref()),
                inputs.shade_sort,
                &|pass| pass.dispatch_indirect(&self.shade, &push, queues, SHADE_GROUPS),
            )?,
            Kernel::Connect => self.record_queue_kernel(
                (pass, profiler),
                inputs,
                (Queue::Connect, self.ray_sort.as_ref()),
                inputs.connect_sort,
                &|pass| {
                    self.connect
                        .record_indirect(pass, &push, queues, CONNECT_GROUPS, CONNECT_LAUNCH)
                },
            )?,
        }
        Ok(())
    }

    /// A queue kernel's step: its launch arguments from the queue's count, the sort where it is
    /// on (over `sort_arrays`), then the launch, timed under the kernel's name.
    fn record_queue_kernel(
        &self,
        (pass, profiler): (&mut CommandBuffer, &mut Profiler),
        inputs: &StepInputs<'_>,
        (queue, sort): (Queue, Option<&CountingSort>),
        sort_arrays: QueueSortArrays,
        launch: &dyn Fn(&mut CommandBuffer),
    ) -> GpuResult<()> {
        self.prepare(pass, inputs, queue);
        self.record_sort(sort, (pass, profiler), inputs, queue, sort_arrays)?;
        let name = super::kernel_graph::consumer(queue).name;
        timed(self.backend, profiler, pass, name, launch)
    }

    /// Where `sort` is on, sorts `queue`'s launch (`record_queue_sort`).
    fn record_sort(
        &self,
        sort: Option<&CountingSort>,
        (pass, profiler): (&mut CommandBuffer, &mut Profiler),
        inputs: &StepInputs<'_>,
        queue: Queue,
        sort_arrays: QueueSortArrays,
    ) -> GpuResult<()> {
        match sort {
            Some(sort) => record_queue_sort(self.backend, sort, (pass, profiler), inputs.queues, queue, sort_arrays),
            None => Ok(()),
        }
    }

    /// Profiler scopes of one step of `kernel` as this set records it.
    pub fn scopes(&self, kernel: Kernel) -> u32 {
        match kernel {
            Kernel::ShadeSurface if self.sort.is_none() => 1,
            Kernel::Extend | Kernel::Connect if self.ray_sort.is_some() => 1 + SORT_SCOPES,
            _ => step_scopes(kernel),
        }
    }
}

/// Sorts `queue`'s launch (prepared by `prepare_launch`, whose count and sort arguments are in
/// `queues`); its passes are timed as `sort_*` (shade queue), `ray_sort_*` (extend) or
/// `shadow_sort_*` (connect), `SORT_SCOPES` of them.
pub(crate) fn record_queue_sort(
    backend: TraceBackend,
    sort: &CountingSort,
    (pass, profiler): (&mut CommandBuffer, &mut Profiler),
    queues: &Buffer,
    queue: Queue,
    sort_arrays: QueueSortArrays,
) -> GpuResult<()> {
    let QueueSortArrays {
        keys,
        values,
        sorted,
        unsorted_copy,
    } = sort_arrays;
    let arrays = SortArrays {
        keys,
        values,
        sorted,
        count: queues.address() + LAUNCHED + 4 * queue.index() as u64,
        unsorted_copy,
    };
    let prefix = match queue {
        Queue::Extend => "ray_sort_",
        Queue::Shade => "sort_",
        Queue::Connect => "shadow_sort_",
    };
    sort.record(
        pass,
        &arrays,
        SortLaunch::Indirect(queues, SORT_GROUPS, SORT_OFFSETS_GROUPS),
        &mut |pass, name, record| {
            let name = name.replace("sort_", prefix);
            timed(backend, profiler, pass, &name, record)
        },
    )
}

/// Profiler scopes of one sort (`record_queue_sort`): its count, offsets and scatter passes.
pub(crate) const SORT_SCOPES: u32 = 3;

/// The extend kernel: each queued path's closest hit, routed to the shade queue.
/// `reorder`: with shader execution reordering (reorder.glsl) where the device has it.
pub fn extend_kernel(
    context: &Context,
    backend: TraceBackend,
    features: KernelFeatures,
    reorder: bool,
) -> GpuResult<TraceKernel> {
    let capabilities = &context.adapter().capabilities;
    // The reordering variant appends to queues per subgroup, as `appending_raygen`'s does.
    let raygen = if reorder && capabilities.invocation_reorder && capabilities.raygen_subgroups {
        ids::TRACE_EXTEND_REORDER_RGEN
    } else {
        trace::appending_raygen(context, ids::TRACE_EXTEND_SUBGROUP_RGEN, ids::TRACE_EXTEND_LANES_RGEN)
    };
    TraceKernel::new(
        context,
        backend,
        "extend",
        &TraceShaders {
            query: ids::TRACE_EXTEND_QUERY,
            software: Some(ids::TRACE_EXTEND_SOFTWARE),
            raygen,
            miss: &[ids::TRACE_EXTEND_RMISS],
            closest_hit: ids::TRACE_EXTEND_RCHIT,
            alpha_holes: features.contains(FEATURE_ALPHA),
            specialization: &features.specialization(),
        },
    )
}

/// The connect kernel: each queued shadow path's visibility, its contribution to the film
/// if nothing blocks it; bidirectional splats go to the film `splats` names.
pub fn connect_kernel(
    context: &Context,
    backend: TraceBackend,
    features: KernelFeatures,
    splats: SplatFilm,
) -> GpuResult<TraceKernel> {
    let (query, software, raygen) = match splats {
        SplatFilm::Fixed => (
            ids::TRACE_CONNECT_QUERY_FIXED,
            ids::TRACE_CONNECT_SOFTWARE_FIXED,
            ids::TRACE_CONNECT_FIXED_RGEN,
        ),
        SplatFilm::FloatAtomic => (
            ids::TRACE_CONNECT_QUERY_FLOAT_ATOMIC,
            ids::TRACE_CONNECT_SOFTWARE_FLOAT_ATOMIC,
            ids::TRACE_CONNECT_FLOAT_ATOMIC_RGEN,
        ),
        SplatFilm::FloatCas => (
            ids::TRACE_CONNECT_QUERY_FLOAT_CAS,
            ids::TRACE_CONNECT_SOFTWARE_FLOAT_CAS,
            ids::TRACE_CONNECT_FLOAT_CAS_RGEN,
        ),
    };
    TraceKernel::new(
        context,
        backend,
        "connect",
        &TraceShaders {
            query,
            software: Some(software),
            raygen,
            miss: &[ids::TRACE_CONNECT_RMISS],
            closest_hit: ids::TRACE_CONNECT_RCHIT,
            alpha_holes: features.contains(FEATURE_ALPHA),
            specialization: &features.specialization(),
        },
    )
}

/// The pixel of the `index`-th camera path of a sample over `crop` of an image `image_width`
/// pixels wide: the CPU twin of wavefront.glsl's `tiled_pixel`. Tiles of `tile` pixels square
/// in row-major order over the crop (clipped at its right and bottom edges), row-major pixels
/// inside a tile.
pub fn tiled_pixel(image_width: u32, crop: Crop, tile: u32, index: u32) -> u32 {
    let (width, height) = (crop.width, crop.height);
    let tile_row = index / (tile * width);
    let mut rest = index - tile_row * tile * width;
    let tile_height = tile.min(height - tile_row * tile);
    let tile_column = rest / (tile * tile_height);
    rest -= tile_column * tile * tile_height;
    let tile_width = tile.min(width - tile_column * tile);
    let x = crop.x + tile_column * tile + rest % tile_width;
    let y = crop.y + tile_row * tile + rest / tile_width;
    y * image_width + x
}

/// Where pixel (`x`, `y`) of `crop` (counted from the crop's corner) comes in tile order:
/// `tiled_pixel`'s inverse, the CPU twin of wavefront.glsl's `tiled_index`.
pub fn tiled_index(crop: Crop, tile: u32, x: u32, y: u32) -> u32 {
    let (tile_row, tile_column) = (y / tile, x / tile);
    let tile_height = tile.min(crop.height - tile_row * tile);
    let tile_width = tile.min(crop.width - tile_column * tile);
    tile_row * tile * crop.width + tile_column * tile * tile_height + (y - tile_row * tile) * tile_width + x
        - tile_column * tile
}

#[cfg(test)]
mod tests {
    use super::{tiled_index, tiled_pixel};
    use crate::integrator::Crop;

    #[test]
    fn tiled_index_inverts_tiled_pixel() {
        for (width, height, tile) in [(1, 1, 16), (17, 5, 16), (64, 48, 16), (33, 70, 8), (100, 1, 16)] {
            let image_width = width + 5;
            let crop = Crop {
                x: 3,
                y: 2,
                width,
                height,
            };
            for index in 0..width * height {
                let pixel = tiled_pixel(image_width, crop, tile, index);
                let (x, y) = (pixel % image_width - crop.x, pixel / image_width - crop.y);
                assert_eq!(tiled_index(crop, tile, x, y), index, "{width}x{height} tile {tile}");
            }
        }
    }

    #[test]
    fn tile_order_visits_every_pixel_once() {
        for (width, height, tile) in [
            (1, 1, 16),
            (17, 5, 16),
            (64, 48, 16),
            (33, 70, 8),
            (7, 3, 1),
            (100, 1, 16),
        ] {
            let mut seen = vec![false; (width * height) as usize];
            for index in 0..width * height {
                let pixel = tiled_pixel(width, Crop::whole(width, height), tile, index) as usize;
                assert!(!seen[pixel], "{width}x{height} tile {tile}: pixel {pixel} twice");
                seen[pixel] = true;
            }
            // Consecutive paths stay inside one tile: the first tile's pixels come first.
            let first = tiled_pixel(width, Crop::whole(width, height), tile, 0);
            assert_eq!(first, 0);
        }
    }

    #[test]
    fn a_crop_visits_its_own_pixels_once() {
        let crop = Crop {
            x: 5,
            y: 3,
            width: 23,
            height: 19,
        };
        let image_width = 40;
        let mut seen = vec![false; 40 * 30];
        for index in 0..crop.width * crop.height {
            let pixel = tiled_pixel(image_width, crop, 16, index);
            let (x, y) = (pixel % image_width, pixel / image_width);
            assert!(crop.contains(x, y), "pixel ({x}, {y}) outside the crop");
            assert!(!seen[pixel as usize], "pixel ({x}, {y}) twice");
            seen[pixel as usize] = true;
        }
    }
}
