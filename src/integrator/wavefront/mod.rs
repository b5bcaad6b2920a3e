//! The wavefront path tracer (Laine, Karras and Aila 2013, "Megakernels Considered Harmful";
//! scheduling after Cycles): path state in structure-of-arrays buffers over a fixed number of
//! path slots (`path_state`), one kernel per stage of the graph declared in `kernel_graph`,
//! queues with GPU-side counters, every kernel launched indirectly from those counters
//! (`kernels`), and two schedulers that decide in which order the kernels run (`scheduler`).

pub mod kernel_graph;
pub mod kernels;
pub mod path_state;
pub mod scheduler;

pub use kernels::{tiled_pixel, StepInputs, WavefrontKernels, RAY_SORT_BUCKETS};

use crate::gpu::{Buffer, BufferUsage, CommandBuffer, Context, GpuError, GpuResult, Profiler};
use crate::interface::{KernelCounters, PassConstants, QueueState, RAY_SORT_GRID};
use crate::primitives::counting_sort;
use crate::scene::Scene;

use super::contract::{render_before_record, Frame, Integrator, PassSamples, PassTimings, Setup};
use super::settings::{RenderSettings, Schedule};
use super::stats::RenderStats;
use kernel_graph::GRAPH;
use path_state::{PathState, Sorts};
use scheduler::{Prelude, Scheduler, Work};

/// Whether shading keeps extend's queue order after a ray sort (route_hit.glsl's
/// `shade_in_extend_order`): where the schedule runs shading right after every extend (the
/// GPU's) and shading is not sorted by material.
fn shade_in_extend_order(settings: &RenderSettings, sort_rays: bool) -> bool {
    sort_rays && settings.schedule == Schedule::Gpu && !settings.sort_by_material
}

/// The shade queue's sort: by material when asked, and by slot range after a ray sort where
/// shading does not keep extend's order, since the rays' order would scatter shading's reads
/// of the path state.
struct ShadeSort {
    material_buckets: u32,
    partitions: u32,
}

impl ShadeSort {
    fn new(settings: &RenderSettings, sort_rays: bool, material_count: u32) -> Self {
        let material_buckets = if settings.sort_by_material {
            material_count.min(counting_sort::MAX_BUCKETS)
        } else {
            1
        };
        let partitions = if sort_rays && !shade_in_extend_order(settings, sort_rays) {
            counting_sort::MAX_BUCKETS / material_buckets
        } else {
            1
        };
        Self {
            material_buckets,
            partitions,
        }
    }

    fn buckets(&self) -> u32 {
        self.material_buckets * self.partitions
    }

    /// Its sizes in the pass constants; a partition is a range of `slots / partitions` slots.
    fn fill(&self, slots: u32, constants: &mut PassConstants) {
        let buckets = self.buckets();
        constants.sort_buckets = if buckets > 1 { buckets } else { 0 };
        constants.material_sort_buckets = self.material_buckets;
        constants.sort_partitions = self.partitions;
        constants.sort_partition_size = slots.div_ceil(self.partitions);
    }
}

/// The ray sort's grid over the scene's bounds (a flat scene gets a unit extent).
pub(crate) fn fill_ray_sort(scene: &Scene, sort_rays: bool, constants: &mut PassConstants) {
    let (origin, scale) = scene
        .bounds()
        .map_or((glam::Vec3::ZERO, glam::Vec3::ONE), |(low, high)| {
            (low, RAY_SORT_GRID as f32 / (high - low).max(glam::Vec3::splat(1e-6)))
        });
    constants.ray_sort_origin = origin;
    constants.ray_sort_scale = scale;
    constants.ray_sort_buckets = if sort_rays { RAY_SORT_BUCKETS } else { 0 };
}

/// The path tracer as a wavefront: its state, kernels and scheduler.
pub struct Wavefront {
    state: PathState,
    counters: Buffer,
    sort_rays: bool,
    sort_by_material: bool,
    schedule: Schedule,
    camera_paths: u64,
    /// Made by `record`; the scheduler's recordings launch these kernels.
    recorded: Option<(Scheduler, WavefrontKernels)>,
}

impl Wavefront {
    /// Allocates the path state and the kernel counters, and fills their addresses and the
    /// sorts' sizes into `constants`.
    pub fn new(setup: &Setup<'_>, constants: &mut PassConstants) -> GpuResult<Self> {
        let Setup {
            context,
            scene,
            settings,
            camera_paths,
            ..
        } = *setup;
        Self::check(settings)?;
        let material_count = scene.materials.len().max(1) as u32;
        let sort_rays = settings.sorts_rays(scene);
        let shade_sort = ShadeSort::new(settings, sort_rays, material_count);
        let sorts = Sorts {
            shade: shade_sort.buckets() > 1,
            rays: sort_rays,
        };
        let slots = settings
            .path_slots
            .unwrap_or_else(|| path_state::default_path_slots(context, camera_paths, sorts));
        let state = PathState::new(context, slots, sorts)?;
        let counters = Buffer::from_slice(
            context,
            "kernel counters",
            &[KernelCounters::default(); GRAPH.len()],
            BufferUsage::STORAGE,
        )?;
        constants.kernel_counters = counters.address();
        state.fill(constants);
        shade_sort.fill(state.slots(), constants);
        fill_ray_sort(scene, sort_rays, constants);
        constants.shade_in_extend_order = u32::from(shade_in_extend_order(settings, sort_rays));
        Ok(Self {
            state,
            counters,
            sort_rays,
            sort_by_material: settings.sort_by_material,
            schedule: settings.schedule,
            camera_paths,
            recorded: None,
        })
    }

    /// What the wavefront asks of the settings: a path slot count it supports.
    pub fn check(settings: &RenderSettings) -> GpuResult<()> {
        match settings.path_slots {
            Some(slots) if slots == 0 || slots > path_state::MAX_SLOTS => Err(GpuError::InvalidUse {
                name: "render settings".into(),
                problem: format!(
                    "{slots} path slots: between 1 and {} are supported",
                    path_state::MAX_SLOTS
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Adds the GPU-kept counts (launches with work, paths, lane and slot shares) to the
    /// queue kernels' and generate's statistics.
    fn add_counters(&self, context: &Context, stats: &mut RenderStats) -> GpuResult<()> {
        let counters: Vec<KernelCounters> = self.counters.read_back(context, GRAPH.len())?;
        let slots = f64::from(self.state.slots().max(1));
        for node in &GRAPH {
            let counter = counters[kernel_graph::counter_index(node.kernel)];
            if let Some(kernel) = stats.kernels.iter_mut().find(|k| k.name == node.name) {
                kernel.busy_launches = Some(u64::from(counter.busy_launches));
                kernel.items = Some(counter.items);
                kernel.active_lane_share = Some(if counter.lanes == 0 {
                    0.0
                } else {
                    counter.items as f64 / counter.lanes as f64
                });
                let busy = f64::from(counter.busy_launches.max(1));
                kernel.slot_share = Some(counter.items as f64 / (busy * slots));
            }
        }
        Ok(())
    }
}

impl Integrator for Wavefront {
    fn record(&mut self, frame: &Frame<'_>) -> GpuResult<()> {
        let settings = frame.settings;
        let kernels = WavefrontKernels::new(
            frame.context,
            settings.backend,
            frame.features,
            frame.constants.sort_buckets,
            self.sort_rays,
            settings.invocation_reorder,
        )?;
        let inputs = StepInputs::new(
            frame.constants_address,
            frame.queues,
            frame.constants,
            &frame.scene.textures,
        );
        let rebuild = |commands: &mut CommandBuffer, profiler: &mut Profiler| {
            frame.record_light_rebuild(commands, Some(profiler))
        };
        let prelude = Prelude {
            record: &rebuild,
            scopes: frame.light_rebuild_scopes(),
        };
        let work = Work {
            schedule: settings.schedule,
            backend: settings.backend,
            slots: self.state.slots(),
            camera_paths: self.camera_paths,
            max_depth: settings.max_depth,
        };
        let scheduler = Scheduler::new(frame.context, &work, &kernels, &inputs, &prelude)?;
        self.recorded = Some((scheduler, kernels));
        Ok(())
    }

    fn render(
        &mut self,
        context: &Context,
        pass: PassSamples,
        progress: &mut dyn FnMut(f64),
    ) -> GpuResult<PassTimings> {
        let camera_paths = pass.camera_paths;
        let (scheduler, _) = self.recorded.as_mut().ok_or_else(render_before_record)?;
        let run = scheduler.run(context, camera_paths, progress)?;
        Ok(PassTimings {
            timings: run.timings,
            submissions: run.submissions,
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn record_restart(&self, commands: &mut CommandBuffer, start: &QueueState) {
        self.state.record_free_every_slot(commands);
        if let Some((scheduler, _)) = &self.recorded {
            scheduler.record_restart(commands, start);
        }
    }

    fn add_stats(&self, context: &Context, stats: &mut RenderStats) -> GpuResult<()> {
        self.add_counters(context, stats)?;
        let sorts = self.state.sorts();
        stats.path_slots = self.state.slots();
        stats.bytes_per_path = path_state::bytes_per_slot(sorts);
        stats.unpacked_bytes_per_path = path_state::unpacked_bytes_per_slot();
        stats.sort_by_material = self.sort_by_material;
        stats.sort_rays = self.sort_rays;
        stats.schedule = Some(self.schedule);
        Ok(())
    }
}
