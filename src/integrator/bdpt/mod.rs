//! Bidirectional path tracing (Veach and Guibas 1995) on the wavefront's queues: light and
//! camera subpaths built one vertex per kernel pass, connected by every strategy (s, t),
//! weighted by MIS carried incrementally (`mis`; Georgiev 2012's two scalars per subpath).
//!
//! A render is a sequence of *batches* of as many camera paths as there are path slots
//! (`kernels.rs` records them): first every slot's light subpath is traced, vertex by vertex
//! (`generate_light`, then `extend` -> `shade_light` -> `connect` per segment), each vertex
//! stored (`LightVertex`) and splatted to the camera (t = 1); then every slot's camera
//! subpath (`generate_camera`, then `extend` -> `shade_camera` -> `connect`), whose vertices
//! add emission (s = 0), next-event estimation (s = 1) and a connection to each stored vertex
//! of the same slot's light subpath (s >= 2), or of the slot that traced the light subpath
//! its pixel's group shares (`light_groups`). All launches are indirect from the queue
//! counters, as the path tracer's are; the extend and connect kernels are the path tracer's.
//! docs/BDPT.md has the conventions and what was measured.

pub(crate) mod kernels;
mod light_vertices;
pub mod mis;
pub mod packed_normal;

use crate::gpu::{Buffer, BufferUsage, CommandBuffer, Context, GpuError, GpuResult};
use crate::interface::{
    KernelCounters, LightVertex, PassConstants, QueueState, BDPT_ALL_STRATEGIES, BDPT_COUNTED, BDPT_COUNTERS,
    LIGHT_SHARE_APART, LIGHT_VERTEX_CONNECTABLE, LIGHT_VERTEX_FRONT, LIGHT_VERTEX_TEXTURED_PLANES,
};
use crate::lights::CullingFormat;
use crate::scene::Material;
use glam::Vec3;

use super::contract::{render_before_record, Frame, Integrator, PassSamples, PassTimings, Setup};
use super::settings::{RenderSettings, SplatFilm};
use super::stats::{BdptStats, RenderStats, StrategyCount};
use super::wavefront::kernel_graph::GRAPH;
use super::wavefront::path_state::{self, PathState, Sorts};
use super::wavefront::{fill_ray_sort, Wavefront};
use kernels::{BdptKernels, Recording};
use light_vertices::{LightVertexLayout, LightVertexPlanes};

/// Path slots by default: as many as camera paths, within these bounds, an eighth of device
/// memory (a slot keeps `max_depth` light vertices and shadow paths) and the device's largest
/// allocation for half the light vertices' planes (`LightVertexPlanes`). Fewer, fuller
/// batches pay: on the H100 (Cornell box, 1024^2, 256 spp, depth 8) 2^20 slots rendered 154.8
/// Msamples/s, 2^21 169.4 and 2^22 177.0; at depth 5, 2^22 255.9 and 2^23 261.6
/// (docs/BENCHMARKS.md).
const MIN_DEFAULT_SLOTS: u32 = 1 << 16;
const MAX_DEFAULT_SLOTS: u32 = 1 << 23;
/// Camera paths a submission covers at least (several batches when slots are few), so that
/// waiting for each submission costs little.
const PATHS_PER_SUBMISSION: u64 = 1 << 20;
const MAX_BATCHES_PER_SUBMISSION: u32 = 16;

/// The most camera subpaths that may share a light subpath (`RenderSettings::bdpt_light_share`).
pub const MAX_LIGHT_SHARE: u32 = 4;

/// The groups of pixels that share a light subpath each sample, over an image of `width` x
/// `height`: pixels whose coordinates agree but for the bit `LIGHT_SHARE_APART` of x (and,
/// when `share` is 4, of y). Each group's first pixel has that bit clear.
pub fn light_groups(share: u32, width: u32, height: u32) -> u64 {
    let firsts = |n: u32| {
        let period = 2 * LIGHT_SHARE_APART;
        u64::from(n / period * LIGHT_SHARE_APART + (n % period).min(LIGHT_SHARE_APART))
    };
    match share {
        1 => u64::from(width) * u64::from(height),
        2 => firsts(width) * u64::from(height),
        _ => firsts(width) * firsts(height),
    }
}

/// Light subpaths a render traces per camera subpath: the light tracing strategy's (t = 1)
/// share of samples, by which MIS counts it and each splat is divided.
pub fn light_subpath_ratio(share: u32, width: u32, height: u32) -> f32 {
    (light_groups(share, width, height) as f64 / (f64::from(width) * f64::from(height))) as f32
}

/// A stored light vertex (bdpt.glsl's store_light_vertex and load_light_vertex, which say why
/// the rest is not stored): the offset epsilon from the position; in the Lambertian layout
/// (five planes) the base colour from the fourth components and the rest a Lambertian
/// surface's values (a white specular colour, no transmission, GGX alpha 1, ior 1.5); in the
/// glossy one (six planes) the material's constants from its index; in the textured one
/// (eight) the layers' factors from the last two planes.
fn decode_light_vertex(
    p: [[f32; 4]; LIGHT_VERTEX_TEXTURED_PLANES as usize],
    layout: LightVertexLayout,
    materials: &[Material],
) -> LightVertex {
    let xyz = |plane: [f32; 4]| Vec3::new(plane[0], plane[1], plane[2]);
    let position = xyz(p[0]);
    let lambertian_vertex = LightVertex {
        position,
        d_vcm: p[0][3],
        wo: xyz(p[1]),
        d_vc: p[1][3],
        throughput: xyz(p[2]),
        flags: LIGHT_VERTEX_FRONT | LIGHT_VERTEX_CONNECTABLE,
        shading: xyz(p[3]),
        epsilon: offset_epsilon(position),
        facing: xyz(p[4]),
        metallic: 0.0,
        base_color: Vec3::new(p[2][3], p[3][3], p[4][3]),
        specular: 0.0,
        specular_color: Vec3::ONE,
        transmission: 0.0,
        alpha: 1.0,
        ior: 1.5,
        material: 0,
        clearcoat: 0.0,
        coat_alpha: 0.0,
        pad0: 0,
        pad1: 0,
        pad2: 0,
    };
    if layout == LightVertexLayout::Lambertian {
        return lambertian_vertex;
    }
    let material = p[5][3].to_bits();
    // A vertex past its slot's count was never written, and may name no material.
    let (mut specular, mut specular_color, mut transmission, ior, mut clearcoat, mut coat_alpha) = materials
        .get(material as usize)
        .map_or((0.0, Vec3::ONE, 0.0, 1.5, 0.0, 0.0), |m| {
            (
                m.specular,
                m.specular_color,
                m.transmission,
                m.ior,
                m.clearcoat,
                m.clearcoat_roughness * m.clearcoat_roughness,
            )
        });
    if layout == LightVertexLayout::Textured {
        (specular_color, specular) = (xyz(p[6]), p[6][3]);
        (transmission, clearcoat, coat_alpha) = (p[7][0], p[7][1], p[7][2]);
    }
    LightVertex {
        flags: p[2][3].to_bits(),
        metallic: p[3][3],
        base_color: xyz(p[5]),
        specular,
        specular_color,
        transmission,
        alpha: p[4][3],
        ior,
        material,
        clearcoat,
        coat_alpha,
        ..lambertian_vertex
    }
}

/// How far rays leaving `p` start off its surface (surface.glsl's offset_epsilon).
fn offset_epsilon(p: Vec3) -> f32 {
    1e-4 * p.abs().max_element().max(1.0)
}

/// Bytes a path slot needs: the path state, `max_depth` shadow paths and light vertices, the
/// MIS scalars and the light vertex count.
fn bytes_per_slot(max_depth: u32, sorts: Sorts, layout: LightVertexLayout) -> u64 {
    let depth = u64::from(max_depth);
    path_state::bytes_per_slot(sorts)
        + (depth - 1) * path_state::bytes_per_shadow_path(sorts)
        + depth * layout.bytes()
        + 8
        + 4
}

/// Room for shadow paths (and light vertices) of `slots` path slots at `max_depth`: a slot
/// queues at most `max_depth` shadow paths a step and stores as many light vertices. Shadow
/// paths and each plane of light vertices (a vec4 per shadow slot) are indexed by 32-bit
/// offsets in the shaders, which stay below 4 GiB within `path_state::MAX_SLOTS`.
fn shadow_slots(slots: u32, max_depth: u32) -> GpuResult<u32> {
    u32::try_from(u64::from(slots) * u64::from(max_depth))
        .ok()
        .filter(|&n| n <= path_state::MAX_SLOTS)
        .ok_or_else(|| GpuError::InvalidUse {
            name: "render settings".into(),
            problem: format!(
                "{slots} path slots at depth {max_depth}: more than {} shadow paths",
                path_state::MAX_SLOTS
            ),
        })
}

/// The default slot count (see `MIN_DEFAULT_SLOTS`).
fn default_slots(context: &Context, max_depth: u32, camera_paths: u64, sorts: Sorts, layout: LightVertexLayout) -> u32 {
    let capabilities = &context.adapter().capabilities;
    let by_memory = capabilities.device_local_bytes / 8 / bytes_per_slot(max_depth, sorts, layout);
    let by_allocation = match capabilities.max_allocation_bytes {
        0 => u64::MAX,
        limit => limit / layout.larger_buffer_bytes_per_slot(max_depth),
    };
    by_memory
        .min(by_allocation)
        .clamp(u64::from(MIN_DEFAULT_SLOTS), u64::from(MAX_DEFAULT_SLOTS))
        .min(camera_paths.max(1)) as u32
}

pub struct Bdpt {
    state: PathState,
    light_vertices: LightVertexPlanes,
    light_vertex_counts: Buffer,
    counters: Buffer,
    splat_film: SplatFilm,
    /// The planes light vertices keep.
    layout: LightVertexLayout,
    /// Whether extend and connect sort their rays.
    sort_rays: bool,
    /// Read by the kernels through their addresses only: the MIS scalars, the kernel
    /// counters, the float splat film.
    _by_address: Vec<Buffer>,
    batches_per_submission: u32,
    /// The recorded batches, and the kernels they launch (dropped after them).
    recorded: Option<(Recording, BdptKernels)>,
}

impl Bdpt {
    /// What bidirectional path tracing asks of the settings: what the wavefront asks (a
    /// supported slot count), and a strategy that exists.
    pub fn check(settings: &RenderSettings) -> GpuResult<()> {
        let invalid = |problem: String| {
            Err(GpuError::InvalidUse {
                name: "render settings".into(),
                problem,
            })
        };
        Wavefront::check(settings)?;
        let share = settings.bdpt_light_share;
        if !(share.is_power_of_two() && share <= MAX_LIGHT_SHARE) {
            return invalid(format!(
                "--bdpt-light-share {share}: camera subpaths a light subpath serves must be 1, 2 or {MAX_LIGHT_SHARE}"
            ));
        }
        if settings.light_culling.format != CullingFormat::Off {
            // Light subpaths start from lights chosen by power, and MIS needs the same choice
            // from every vertex: a choice that depends on the shading point's cell has no place.
            return invalid(format!(
                "--light-culling {} serves the path tracers; bidirectional path tracing chooses lights by \
                 power alone (use --light-culling off)",
                settings.light_culling.format.name()
            ));
        }
        if let Some((s, t)) = settings.strategy {
            if t == 0 || s + t < 2 || s + t - 1 > settings.max_depth {
                return invalid(format!(
                    "strategy ({s}, {t}): t must be at least 1 (the camera) and the path's {} segments at most \
                     --max-depth {}",
                    (s + t).saturating_sub(1),
                    settings.max_depth
                ));
            }
        }
        Ok(())
    }

    pub fn new(setup: &Setup<'_>, constants: &mut PassConstants) -> GpuResult<Self> {
        let Setup {
            context,
            scene,
            settings,
            camera_paths,
            ..
        } = *setup;
        Self::check(settings)?;
        let max_depth = settings.max_depth;
        let sort_rays = settings.sorts_rays(scene);
        let layout = LightVertexLayout::of(setup.features);
        let sorts = Sorts {
            shade: false,
            rays: sort_rays,
        };
        let slots = settings
            .path_slots
            .unwrap_or_else(|| default_slots(context, max_depth, camera_paths, sorts, layout));
        let shadow_slots = shadow_slots(slots, max_depth)?;
        let state = PathState::with_shadow_slots(context, slots, shadow_slots, sorts)?;
        let storage = |name: &str, bytes: u64| Buffer::gpu_storage(context, name, bytes);
        let light_vertices = LightVertexPlanes::new(context, shadow_slots, layout.planes())?;
        let light_vertex_counts = storage("light vertex counts", u64::from(slots) * 4)?;
        let light_subpath_slots = storage("light subpath slots", u64::from(slots) * 4)?;
        let subpath_mis = storage("subpath MIS", u64::from(slots) * 8)?;
        let kernel_counters = Buffer::from_slice(
            context,
            "kernel counters",
            &[KernelCounters::default(); GRAPH.len()],
            BufferUsage::STORAGE,
        )?;
        let counters = Buffer::from_slice(
            context,
            "bdpt counters",
            &vec![0u64; BDPT_COUNTERS as usize],
            BufferUsage::STORAGE,
        )?;
        let (splat_film, splats) = splat_film(context, settings)?;
        state.fill(constants);
        fill_ray_sort(scene, sort_rays, constants);
        // Batches run extend, shade and connect in turn.
        constants.shade_in_extend_order = u32::from(sort_rays);
        constants.kernel_counters = kernel_counters.address();
        light_vertices.fill(constants);
        constants.light_vertex_counts = light_vertex_counts.address();
        constants.subpath_mis = subpath_mis.address();
        constants.bdpt_counters = counters.address();
        constants.splat_film = splats.as_ref().map_or(0, Buffer::address);
        constants.shade_misses = 1;
        let (s, t) = settings.strategy.unwrap_or((BDPT_ALL_STRATEGIES, BDPT_ALL_STRATEGIES));
        constants.strategy_s = s;
        constants.strategy_t = t;
        constants.light_share = settings.bdpt_light_share;
        constants.light_subpath_ratio = light_subpath_ratio(settings.bdpt_light_share, settings.width, settings.height);
        constants.light_subpath_slots = light_subpath_slots.address();
        let batches_per_submission =
            (PATHS_PER_SUBMISSION / u64::from(slots)).clamp(1, u64::from(MAX_BATCHES_PER_SUBMISSION)) as u32;
        Ok(Self {
            state,
            light_vertices,
            light_vertex_counts,
            counters,
            splat_film,
            layout,
            sort_rays,
            _by_address: [subpath_mis, kernel_counters, light_subpath_slots]
                .into_iter()
                .chain(splats)
                .collect(),
            batches_per_submission,
            recorded: None,
        })
    }

    /// The light vertices of the last batch, slot by slot (`max_depth` a slot), with each
    /// slot's count: for tests that redo the splats on the CPU.
    pub fn light_vertices(
        &self,
        context: &Context,
        max_depth: u32,
        materials: &[Material],
    ) -> GpuResult<(Vec<LightVertex>, Vec<u32>)> {
        let slots = self.state.slots() as usize;
        let depth = max_depth as usize;
        let planes = self.light_vertices.read_back(context)?;
        // Stored [plane][vertex][slot] in one of two layouts (bdpt.glsl).
        let vertices = (0..slots * depth)
            .map(|i| {
                let (slot, index) = (i / depth, i % depth);
                let plane = |plane: usize| planes[(plane * depth + index) * slots + slot];
                decode_light_vertex(std::array::from_fn(plane), self.layout, materials)
            })
            .collect();
        let counts = self.light_vertex_counts.read_back(context, slots)?;
        Ok((vertices, counts))
    }

    /// Where splats are summed: the settings' choice, the CAS loop where float atomics were
    /// asked of a device without them.
    pub(crate) fn splat_film(&self) -> SplatFilm {
        self.splat_film
    }

    /// The counters as --stats reports them.
    pub(crate) fn read_counters(&self, context: &Context) -> GpuResult<BdptStats> {
        let counts: Vec<u64> = self.counters.read_back(context, BDPT_COUNTERS as usize)?;
        let mut stats = BdptStats {
            path_slots: self.state.slots(),
            splat_film: self.splat_film,
            light_subpath_rays: counts[(BDPT_COUNTED * BDPT_COUNTED) as usize],
            camera_subpath_rays: counts[(BDPT_COUNTED * BDPT_COUNTED + 1) as usize],
            next_event: 0,
            connections: 0,
            splats: 0,
            strategies: Vec::new(),
        };
        for s in 0..BDPT_COUNTED {
            for t in 0..BDPT_COUNTED {
                let shadow_rays = counts[(s * BDPT_COUNTED + t) as usize];
                if shadow_rays == 0 {
                    continue;
                }
                match (s, t) {
                    (_, 1) => stats.splats += shadow_rays,
                    (1, _) => stats.next_event += shadow_rays,
                    _ => stats.connections += shadow_rays,
                }
                stats.strategies.push(StrategyCount { s, t, shadow_rays });
            }
        }
        Ok(stats)
    }
}

impl Integrator for Bdpt {
    fn record(&mut self, frame: &Frame<'_>) -> GpuResult<()> {
        let kernels = BdptKernels::new(
            frame.context,
            frame.settings.backend,
            frame.features,
            self.splat_film,
            frame.settings.invocation_reorder,
            frame.constants,
        )?;
        let recording = kernels.record(frame, self.batches_per_submission)?;
        self.recorded = Some((recording, kernels));
        Ok(())
    }

    fn render(
        &mut self,
        context: &Context,
        pass: PassSamples,
        progress: &mut dyn FnMut(f64),
    ) -> GpuResult<PassTimings> {
        let camera_paths = pass.camera_paths;
        let (recording, _) = self.recorded.as_mut().ok_or_else(render_before_record)?;
        let mut timings = Vec::new();
        let mut submissions = 0u64;
        let batches = camera_paths.div_ceil(u64::from(self.state.slots()));
        let needed = batches.div_ceil(u64::from(self.batches_per_submission));
        loop {
            let status: QueueState = recording.status.read::<QueueState>(0, 1)?[0];
            progress(status.next_camera_path as f64 / camera_paths as f64);
            if status.next_camera_path >= camera_paths {
                break;
            }
            if submissions > needed {
                return Err(GpuError::InvalidUse {
                    name: "bdpt".into(),
                    problem: format!(
                        "{} of {} camera paths started after {submissions} submissions: a scheduling bug",
                        status.next_camera_path, camera_paths
                    ),
                });
            }
            recording.batches.submit_and_wait(context)?;
            timings.extend(recording.profiler.resolve()?);
            submissions += 1;
        }
        if let Some(resolve) = recording.resolve.as_mut() {
            resolve.submit_and_wait(context)?;
        }
        Ok(PassTimings { timings, submissions })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn record_restart(&self, commands: &mut CommandBuffer, _start: &QueueState) {
        self.state.record_free_every_slot(commands);
        // `render` reads the host's copy of the queues before its first submission.
        if let Some((recording, _)) = &self.recorded {
            commands.update_buffer(&recording.status, 0, &[QueueState::default()]);
            commands.host_read_barrier();
        }
    }

    fn add_stats(&self, context: &Context, stats: &mut RenderStats) -> GpuResult<()> {
        stats.path_slots = self.state.slots();
        stats.sort_rays = self.sort_rays;
        stats.bdpt = Some(self.read_counters(context)?);
        Ok(())
    }
}

/// The splat film `settings` ask for on this device (the CAS loop where 64-bit float atomics
/// are missing) and, for the float films, its cleared buffer: three f64 sums a pixel
/// (splat_film.glsl says why not f32).
fn splat_film(context: &Context, settings: &RenderSettings) -> GpuResult<(SplatFilm, Option<Buffer>)> {
    let adapter = context.adapter();
    let capabilities = &adapter.capabilities;
    if settings.splat_film != SplatFilm::Fixed && !capabilities.shader_float64 {
        return Err(GpuError::InvalidUse {
            name: "splat film".into(),
            problem: format!(
                "{} has no 64-bit floats in shaders (shaderFloat64), which the float splat film sums in \
                 (and so Metropolis light transport); use --splat-film fixed with bdpt",
                adapter.name
            ),
        });
    }
    let splat_film = match settings.splat_film {
        SplatFilm::FloatAtomic if !capabilities.shader_float64_atomics => SplatFilm::FloatCas,
        chosen => chosen,
    };
    if splat_film == SplatFilm::Fixed {
        return Ok((splat_film, None));
    }
    let pixels = u64::from(settings.width) * u64::from(settings.height);
    let buffer = Buffer::gpu_storage(context, "splat film", pixels * 24)?;
    context.run_once("clear splat film", |commands| {
        commands.fill_buffer(&buffer, 0, buffer.size(), 0);
        Ok(())
    })?;
    Ok((splat_film, Some(buffer)))
}

#[cfg(test)]
mod tests {
    use super::{light_groups, LIGHT_SHARE_APART};

    #[test]
    fn light_groups_count_the_pixels_that_start_one() {
        let bit = LIGHT_SHARE_APART;
        for (width, height) in [
            (1, 1),
            (7, 3),
            (8, 9),
            (9, 8),
            (16, 16),
            (17, 31),
            (24, 24),
            (100, 33),
            (1024, 768),
        ] {
            for share in [1, 2, 4] {
                let firsts = (0..height)
                    .flat_map(|y| (0..width).map(move |x| (x, y)))
                    .filter(|&(x, y)| (share == 1 || x & bit == 0) && (share != 4 || y & bit == 0))
                    .count() as u64;
                assert_eq!(
                    light_groups(share, width, height),
                    firsts,
                    "{width}x{height}, share {share}"
                );
            }
        }
    }
}
