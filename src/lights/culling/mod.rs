//! Light culling for lights of finite range (`--light-culling bits|lists`): every cell (a
//! 16x16-pixel screen tile bounded by its primary hits' depths, or a cell of a grid over the
//! scene) lists the point and spot lights whose range sphere (and cone) can touch it, and
//! next-event estimation chooses among those of the shading point's cell
//! (light_culling.glsl). docs/LIGHT_CULLING.md compares the two list formats.
//!
//! Built on the GPU, all replayed when lights or the camera move: the depth of the primary hit
//! through every pixel corner (`cull_depth`, either trace backend), then either one workgroup
//! per tile and one per grid cell testing every light (`cull_tiles_*`, `cull_grid_*`), or, by
//! default, each light's footprint on the tiles, the tiles' depth bounds and every cell
//! emptied (`cull_scatter_prepare_*`), then one workgroup per light filling the tiles and grid
//! cells of its footprint, with the widest footprints' tiles split among a pool of workgroups
//! ahead of the lights' (`SPLIT_FROM`; `cull_scatter_tiles_*`, `cull_scatter_grid_*`) and,
//! for lists, a sort of each cell's entries (`cull_sort_*`; [`CullBuild`]).

pub mod reference;

use crate::gpu::shaders::{ids, ShaderId};
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuError, GpuResult, Profiler,
    TraceBackend,
};
use crate::interface::{
    GpuCullLight, GpuLightTile, LightCullingPush, PassConstants, LIGHT_CULLING_BITS, LIGHT_CULLING_GROUP,
    LIGHT_CULLING_LISTS, LIGHT_CULLING_MAX_LIST, LIGHT_CULLING_NARROW_GROUP, LIGHT_CULLING_OFF,
};
use crate::scene::{RenderCamera, Scene};
use crate::trace::{barrier, TraceKernel, TraceShaders};

use self::reference::CullGrid;
use super::emissive::EmissiveTriangles;
use super::punctual;
use super::sampler::timed;

/// How culled cells hold their lights (`--light-culling`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CullingFormat {
    /// No culling: ranged lights are chosen with the others.
    #[default]
    Off,
    /// A bit per light per cell.
    Bits,
    /// A compacted list of light indices per cell, of a fixed capacity.
    Lists,
}

impl CullingFormat {
    pub const ALL: [CullingFormat; 3] = [Self::Off, Self::Bits, Self::Lists];

    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Bits => "bits",
            Self::Lists => "lists",
        }
    }

    fn code(self) -> u32 {
        match self {
            Self::Off => LIGHT_CULLING_OFF,
            Self::Bits => LIGHT_CULLING_BITS,
            Self::Lists => LIGHT_CULLING_LISTS,
        }
    }
}

impl std::str::FromStr for CullingFormat {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        by_name(&Self::ALL, Self::name, text, "light culling")
    }
}

/// The one of `all` whose name is `text`, or an error naming `what` and listing the names.
fn by_name<T: Copy>(all: &[T], name: fn(T) -> &'static str, text: &str, what: &str) -> Result<T, String> {
    all.iter().copied().find(|&t| name(t) == text).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&t| name(t)).collect();
        format!("unknown {what} '{text}' (one of: {})", names.join(", "))
    })
}

/// How the cells are filled (`--cull-build`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CullBuild {
    /// Each cell tests every light, setting bits in shared memory or compacting the indices
    /// of the lights that touch it (the seed's way): cells x lights tests.
    Cells,
    /// Each light tests the cells of its footprint (a screen rectangle of tiles from its
    /// tangent planes, a box of grid cells) and, in those it touches, sets its bit or appends
    /// its index with global atomics (Drobot 2017's binning): only what the footprints hold
    /// is tested. Lists are then sorted per cell, so both builds give the same cells.
    #[default]
    Lights,
}

impl CullBuild {
    pub const ALL: [CullBuild; 2] = [Self::Cells, Self::Lights];

    pub fn name(self) -> &'static str {
        match self {
            Self::Cells => "cells",
            Self::Lights => "lights",
        }
    }
}

impl std::str::FromStr for CullBuild {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        by_name(&Self::ALL, Self::name, text, "culling build")
    }
}

/// Light culling's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CullingSettings {
    pub format: CullingFormat,
    /// Entries a cell's index list holds; a cell with more chooses among all ranged lights.
    pub list_capacity: u32,
    /// Cull spot lights by their cone, not only their range sphere.
    pub cones: bool,
    /// About this many cells in the world grid.
    pub grid_cells: u32,
    /// Tiles cull by the 2.5D mask of their primary hits' depths, not only by their bounds.
    pub depth_mask: bool,
    /// Lanes of a subgroup walk the union of their cells' bit arrays together (the seed's
    /// scalarisation), rather than each its own. Off by default: a path tracer's shading
    /// lanes are rarely in one cell, and on the H100 the union walk costs up to twice the
    /// shading time (docs/LIGHT_CULLING.md).
    pub scalarise: bool,
    /// How the cells are filled.
    pub build: CullBuild,
}

impl Default for CullingSettings {
    fn default() -> Self {
        Self {
            format: CullingFormat::Off,
            list_capacity: DEFAULT_LIST_CAPACITY,
            cones: true,
            grid_cells: DEFAULT_GRID_CELLS,
            depth_mask: true,
            scalarise: false,
            build: CullBuild::default(),
        }
    }
}

pub const DEFAULT_LIST_CAPACITY: u32 = 256;
pub const DEFAULT_GRID_CELLS: u32 = 16384;

/// Where culling's cells are: the image's tiles and the world grid.
#[derive(Clone, Copy, Debug)]
pub struct CullLayout {
    pub camera: RenderCamera,
    pub width: u32,
    pub height: u32,
    pub tiles_x: u32,
    pub tiles_y: u32,
    pub grid: CullGrid,
    pub margin: f32,
}

impl CullLayout {
    pub fn tiles(&self) -> u32 {
        self.tiles_x * self.tiles_y
    }

    pub fn cells(&self) -> u32 {
        self.tiles() + self.grid.cells()
    }
}

/// What the cells hold after a cull, read back.
pub struct CellContents {
    pub tiles: Vec<GpuLightTile>,
    /// Lights each cell lists (more than the capacity: the list overflowed).
    pub counts: Vec<u32>,
    /// Each cell's lights in increasing order (empty for an overflowed list).
    pub lights: Vec<Vec<u32>>,
    /// Bit arrays: each cell's summary words (a bit per word that holds any light).
    pub summaries: Vec<Vec<u32>>,
}

/// What the cells hold, for `--stats`: lights per tile and per grid cell (mean over the cells
/// with any, and the most), tiles with primary hits, and lists that overflowed.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct CullingStats {
    pub format: CullingFormat,
    pub ranged_lights: u32,
    pub tiles: u32,
    pub tiles_with_hits: u32,
    pub mean_lights_per_tile: f64,
    pub max_lights_per_tile: u32,
    pub grid_cells: u32,
    pub mean_lights_per_grid_cell: f64,
    pub max_lights_per_grid_cell: u32,
    pub overflowed_cells: u32,
}

pub struct LightCulling {
    settings: CullingSettings,
    layout: CullLayout,
    lights: Buffer,
    spheres: Buffer,
    count: u32,
    words: u32,
    summary_words: u32,
    ranged_cdf: Buffer,
    ranged_choice: f32,
    corner_depths: Buffer,
    tiles: Buffer,
    bits: Option<Buffer>,
    summaries: Option<Buffer>,
    lists: Option<Buffer>,
    counts: Buffer,
    /// Built by light: each light's tile footprint, and the queue of wide footprints' chunks.
    footprints: Option<Buffer>,
    split_queue: Option<Buffer>,
    depth: TraceKernel<LightCullingPush>,
    cells: CellKernels,
    backend: TraceBackend,
    max_groups_x: u32,
}

impl LightCulling {
    /// Culling for the scene's ranged lights, seen by `camera` at `width` x `height`; `None`
    /// when culling is off or the scene has no ranged light.
    pub fn new(
        context: &Context,
        scene: &Scene,
        camera: RenderCamera,
        (width, height): (u32, u32),
        backend: TraceBackend,
        settings: CullingSettings,
    ) -> GpuResult<Option<Self>> {
        if settings.format == CullingFormat::Off {
            return Ok(None);
        }
        check_limits(&settings, (width, height))?;
        // The depth pass traces once a render, so our own traversal buys it nothing: it takes
        // the device's hardware backend and the acceleration structures every scene has.
        let backend = match backend {
            TraceBackend::Software => context.trace_backends()[0],
            hardware => hardware,
        };
        let table = reference::cull_lights(&scene.lights, settings.cones);
        if table.is_empty() {
            log::info!("light culling: the scene has no point or spot light with a range; nothing to cull");
            return Ok(None);
        }
        let (cdf, ranged_choice) = ranged_split(scene, &table);
        let bounds = scene.bounds();
        let margin = reference::margin(bounds);
        let (tiles_x, tiles_y) = reference::tiles(width, height);
        let layout = CullLayout {
            camera,
            width,
            height,
            tiles_x,
            tiles_y,
            grid: CullGrid::over(bounds, margin, settings.grid_cells),
            margin,
        };
        let count = table.len() as u32;
        let words = count.div_ceil(32);
        let cells = u64::from(layout.cells());
        let storage = |name: &str, bytes: u64| Buffer::gpu_storage(context, name, bytes);
        let corners = (u64::from(width) + 1) * (u64::from(height) + 1);
        let summary_words = words.div_ceil(32);
        let (bits, summaries, lists) = cell_buffers(context, &settings, cells, words)?;
        let cells_kernels = CellKernels::new(context, &settings, count, layout.tiles())?;
        let by_light = matches!(cells_kernels, CellKernels::PerLight { .. });
        let footprints = by_light
            .then(|| storage("light culling footprints", u64::from(count) * 16))
            .transpose()?;
        let split_queue = by_light
            .then(|| storage("light culling split queue", 16 + u64::from(SPLIT_CAPACITY) * 16))
            .transpose()?;
        let culling = Self {
            settings,
            layout,
            lights: Buffer::from_slice(context, "culled lights", &table, BufferUsage::STORAGE)?,
            spheres: Buffer::from_slice(
                context,
                "culled light spheres",
                &table.iter().map(|l| l.position.extend(l.range)).collect::<Vec<_>>(),
                BufferUsage::STORAGE,
            )?,
            count,
            words,
            summary_words,
            ranged_cdf: Buffer::from_slice(context, "ranged light cdf", &cdf, BufferUsage::STORAGE)?,
            ranged_choice,
            corner_depths: storage("light culling corner depths", corners * 4)?,
            tiles: storage(
                "light culling tiles",
                u64::from(layout.tiles().max(1)) * std::mem::size_of::<GpuLightTile>() as u64,
            )?,
            bits,
            summaries,
            lists,
            counts: storage("light culling counts", cells * 4)?,
            footprints,
            split_queue,
            depth: depth_kernel(context, backend)?,
            cells: cells_kernels,
            backend,
            max_groups_x: context.adapter().capabilities.max_compute_workgroup_count[0],
        };
        if let CellKernels::PerLight { .. } = culling.cells {
            // Built by light, a cull empties only the words the last one's summaries flag, and
            // the scatter's pool empties the split queue after itself.
            context.run_once("light culling: empty cells", |commands| {
                for buffer in [&culling.bits, &culling.summaries, &culling.split_queue]
                    .into_iter()
                    .flatten()
                {
                    commands.fill_buffer(buffer, 0, buffer.size(), 0);
                }
                Ok(())
            })?;
        }
        Ok(Some(culling))
    }

    pub fn settings(&self) -> &CullingSettings {
        &self.settings
    }

    pub fn layout(&self) -> &CullLayout {
        &self.layout
    }

    /// Ranged lights culled.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The corner depths the tiles are bounded by (written by `record`'s depth kernel; tests
    /// write their own).
    pub fn corner_depths(&self) -> &Buffer {
        &self.corner_depths
    }

    fn cull_push(&self, groups_x: u32) -> LightCullingPush {
        let camera = &self.layout.camera;
        let grid = &self.layout.grid;
        LightCullingPush {
            top_level: 0,
            lights: self.lights.address(),
            spheres: self.spheres.address(),
            corner_depths: self.corner_depths.address(),
            tiles: self.tiles.address(),
            bits: self.bits.as_ref().map_or(0, Buffer::address),
            summaries: self.summaries.as_ref().map_or(0, Buffer::address),
            counts: self.counts.address(),
            lists: self.lists.as_ref().map_or(0, Buffer::address),
            camera_origin: camera.origin,
            camera_half_height: camera.half_height,
            camera_right: camera.right,
            aspect: camera.aspect,
            camera_up: camera.up,
            width: self.layout.width,
            camera_forward: camera.forward,
            height: self.layout.height,
            grid_lower: grid.lower,
            margin: self.layout.margin,
            grid_scale: grid.scale,
            count: self.count,
            tiles_x: self.layout.tiles_x,
            tiles_y: self.layout.tiles_y,
            grid_x: grid.dims.x,
            grid_y: grid.dims.y,
            grid_z: grid.dims.z,
            words: self.words,
            summary_words: self.summary_words,
            list_capacity: self.settings.list_capacity,
            groups_x,
            depth_mask: u32::from(self.settings.depth_mask),
            footprints: self.footprints.as_ref().map_or(0, Buffer::address),
            split_queue: self.split_queue.as_ref().map_or(0, Buffer::address),
            split_chunk: self.cells.split_chunk(),
            split_capacity: SPLIT_CAPACITY,
            split_from: SPLIT_FROM,
            split_pool: self.cells.split_pool(),
            camera_near: camera.near,
            camera_orthographic: u32::from(camera.orthographic),
        }
    }

    fn groups(&self, cells: u32) -> GpuResult<DispatchSize> {
        DispatchSize::covering(u64::from(cells), self.max_groups_x).ok_or_else(|| GpuError::InvalidUse {
            name: "light culling".into(),
            problem: format!("{cells} cells are more workgroups than this device launches"),
        })
    }

    /// Records the whole cull: the corner depths through `top_level`, then the tiles and the
    /// grid (`record_cells`), each in a profiler scope when given one.
    pub fn record(
        &self,
        commands: &mut CommandBuffer,
        top_level: u64,
        mut profiler: Option<&mut Profiler>,
    ) -> GpuResult<()> {
        let push = LightCullingPush {
            top_level,
            ..self.cull_push(0)
        };
        let (corners_x, corners_y) = (self.layout.width + 1, self.layout.height + 1);
        timed(commands, profiler.as_deref_mut(), "light_cull_depth", &|commands| {
            match &self.depth {
                // 8x8 corners a group (cull_depth_query.comp), so that 4K images stay within
                // the group count limits where a 1D launch would not.
                TraceKernel::Compute(pipeline) => commands.dispatch(
                    pipeline,
                    &push,
                    DispatchSize {
                        x: corners_x.div_ceil(8),
                        y: corners_y.div_ceil(8),
                    },
                ),
                TraceKernel::Pipeline(_) => self.depth.record_per_pixel(commands, &push, corners_x, corners_y),
            }
            Ok(())
        })?;
        barrier(self.backend, commands);
        self.record_cells(commands, profiler)
    }

    /// Records the tiles' cull (from the corner depths) and the grid's, then a barrier. Built
    /// by light, the tiles' scope also holds the tiles' bounds and the emptying of every cell
    /// (the grid's included), on which the grid's scatter waits, and each scope its cells'
    /// sort where the cells are lists.
    pub fn record_cells(&self, commands: &mut CommandBuffer, mut profiler: Option<&mut Profiler>) -> GpuResult<()> {
        let tile_groups = self.groups(self.layout.tiles())?;
        match &self.cells {
            CellKernels::PerCell { tiles, grid } => {
                let grid_groups = self.groups(self.layout.grid.cells())?;
                timed(commands, profiler.as_deref_mut(), "light_cull_tiles", &|commands| {
                    commands.dispatch(tiles, &self.cull_push(tile_groups.x), tile_groups);
                    Ok(())
                })?;
                timed(commands, profiler, "light_cull_grid", &|commands| {
                    commands.dispatch(grid, &self.cull_push(grid_groups.x), grid_groups);
                    Ok(())
                })?;
            }
            CellKernels::PerLight {
                prepare,
                tiles,
                grid,
                sort,
                ..
            } => {
                let light_groups = self.groups(self.count)?;
                let tiles_groups = self.groups(self.count.saturating_add(self.cells.split_pool()))?;
                let grid_groups = self.groups(self.layout.grid.cells())?;
                // One scope for the tiles' whole cull, as the cells' build has.
                timed(commands, profiler.as_deref_mut(), "light_cull_tiles", &|commands| {
                    commands.dispatch(prepare, &self.cull_push(tile_groups.x), tile_groups);
                    commands.shader_barrier();
                    commands.dispatch(tiles, &self.cull_push(tiles_groups.x), tiles_groups);
                    if let Some([sort_tiles, _]) = sort {
                        commands.shader_barrier();
                        commands.dispatch(sort_tiles, &self.cull_push(tile_groups.x), tile_groups);
                    }
                    Ok(())
                })?;
                timed(commands, profiler, "light_cull_grid", &|commands| {
                    commands.dispatch(grid, &self.cull_push(light_groups.x), light_groups);
                    if let Some([_, sort_grid]) = sort {
                        commands.shader_barrier();
                        commands.dispatch(sort_grid, &self.cull_push(grid_groups.x), grid_groups);
                    }
                    Ok(())
                })?;
            }
        }
        barrier(self.backend, commands);
        Ok(())
    }

    /// Profiler scopes `record` opens.
    pub fn profiler_scopes(&self) -> u32 {
        3
    }

    pub fn fill(&self, constants: &mut PassConstants) {
        let grid = &self.layout.grid;
        constants.cull_lights = self.lights.address();
        constants.cull_tiles = self.tiles.address();
        constants.cull_bits = self.bits.as_ref().map_or(0, Buffer::address);
        constants.cull_summaries = self.summaries.as_ref().map_or(0, Buffer::address);
        constants.cull_summary_words = self.summary_words;
        constants.cull_counts = self.counts.address();
        constants.cull_lists = self.lists.as_ref().map_or(0, Buffer::address);
        constants.ranged_cdf = self.ranged_cdf.address();
        constants.light_culling = self.settings.format.code();
        constants.ranged_count = self.count;
        constants.ranged_choice = self.ranged_choice;
        constants.cull_words = self.words;
        constants.cull_list_capacity = self.settings.list_capacity;
        constants.cull_tiles_x = self.layout.tiles_x;
        constants.cull_tiles_y = self.layout.tiles_y;
        constants.cull_grid_x = grid.dims.x;
        constants.cull_grid_y = grid.dims.y;
        constants.cull_grid_z = grid.dims.z;
        constants.cull_grid_lower = grid.lower;
        constants.cull_grid_scale = grid.scale;
        constants.cull_scalarise = u32::from(self.settings.scalarise);
    }

    /// Reads every cell back (tests, statistics).
    pub fn read_cells(&self, context: &Context) -> GpuResult<CellContents> {
        let cells = self.layout.cells() as usize;
        let tiles: Vec<GpuLightTile> = self.tiles.read_back(context, self.layout.tiles() as usize)?;
        let counts: Vec<u32> = self.counts.read_back(context, cells)?;
        let summaries = match &self.summaries {
            Some(summaries) => {
                let words = self.summary_words as usize;
                let all: Vec<u32> = summaries.read_back(context, cells * words)?;
                all.chunks(words).map(<[u32]>::to_vec).collect()
            }
            None => Vec::new(),
        };
        let lights = if let Some(bits) = &self.bits {
            let words = self.words as usize;
            let all: Vec<u32> = bits.read_back(context, cells * words)?;
            all.chunks(words)
                .map(|cell| {
                    let mut lights = Vec::new();
                    for (w, &word) in cell.iter().enumerate() {
                        for bit in 0..32 {
                            if word >> bit & 1 != 0 {
                                lights.push((w * 32 + bit) as u32);
                            }
                        }
                    }
                    lights
                })
                .collect()
        } else {
            let capacity = self.settings.list_capacity as usize;
            let all: Vec<u32> = self
                .lists
                .as_ref()
                .map_or(Ok(Vec::new()), |lists| lists.read_back(context, cells * capacity))?;
            all.chunks(capacity)
                .zip(&counts)
                .map(|(list, &count)| {
                    if count as usize > capacity {
                        Vec::new()
                    } else {
                        list[..count as usize].to_vec()
                    }
                })
                .collect()
        };
        Ok(CellContents {
            tiles,
            counts,
            lights,
            summaries,
        })
    }

    /// The camera the screen tiles are seen by at the next `record` (a progressive render's
    /// camera moved); the grid does not depend on it.
    pub fn set_camera(&mut self, camera: RenderCamera) {
        self.layout.camera = camera;
    }

    pub fn stats(&self, context: &Context) -> GpuResult<CullingStats> {
        let tiles_bounds: Vec<GpuLightTile> = self.tiles.read_back(context, self.layout.tiles() as usize)?;
        let counts: Vec<u32> = self.counts.read_back(context, self.layout.cells() as usize)?;
        let (tiles, grid) = counts.split_at(self.layout.tiles() as usize);
        let mean = |cells: &[u32]| {
            let lit: Vec<u32> = cells.iter().copied().filter(|&c| c > 0).collect();
            lit.iter().map(|&c| f64::from(c)).sum::<f64>() / lit.len().max(1) as f64
        };
        let capacity = self.settings.list_capacity;
        Ok(CullingStats {
            format: self.settings.format,
            ranged_lights: self.count,
            tiles: tiles.len() as u32,
            tiles_with_hits: tiles_bounds.iter().filter(|t| t.z_min <= t.z_max).count() as u32,
            mean_lights_per_tile: mean(tiles),
            max_lights_per_tile: tiles.iter().copied().max().unwrap_or(0),
            grid_cells: grid.len() as u32,
            mean_lights_per_grid_cell: mean(grid),
            max_lights_per_grid_cell: grid.iter().copied().max().unwrap_or(0),
            overflowed_cells: match self.settings.format {
                CullingFormat::Lists => counts.iter().filter(|&&c| c > capacity).count() as u32,
                _ => 0,
            },
        })
    }

    /// The table of culled lights (index = the light's number in the cells).
    pub fn lights(&self, context: &Context) -> GpuResult<Vec<GpuCullLight>> {
        self.lights.read_back(context, self.count as usize)
    }
}

/// Refuses a list capacity the shaders cannot hold, and an image whose tiles a footprint
/// cannot name (it packs its first column and row into 16 bits each: cull.comp).
fn check_limits(settings: &CullingSettings, (width, height): (u32, u32)) -> GpuResult<()> {
    let invalid = |problem: String| GpuError::InvalidUse {
        name: "light culling".into(),
        problem,
    };
    if settings.list_capacity == 0 || settings.list_capacity > LIGHT_CULLING_MAX_LIST {
        return Err(invalid(format!(
            "a list capacity of {} (from 1 to {LIGHT_CULLING_MAX_LIST})",
            settings.list_capacity
        )));
    }
    let (tiles_x, tiles_y) = reference::tiles(width, height);
    if tiles_x > 0xffff || tiles_y > 0xffff {
        return Err(invalid(format!(
            "{width} x {height} pixels: more than 65,535 tiles across"
        )));
    }
    Ok(())
}

/// The chance of choosing a ranged light (their share of all light power, 1 when nothing else
/// emits) and the CDF over them by power, with which cells outside the grid or with an
/// overflowed list choose.
fn ranged_split(scene: &Scene, table: &[GpuCullLight]) -> (Vec<f32>, f32) {
    let radius = scene.radius();
    // What is chosen beside culling: emissive triangles and punctual lights without range.
    let other_power = EmissiveTriangles::build(scene).total_power()
        + scene
            .lights
            .iter()
            .filter(|l| !reference::is_ranged(l))
            .map(|l| punctual::power(l, radius))
            .sum::<f64>();
    let powers: Vec<f64> = table
        .iter()
        .map(|l| punctual::power(&scene.lights[l.punctual as usize], radius))
        .collect();
    let ranged_power: f64 = powers.iter().sum();
    let choice = if other_power > 0.0 {
        (ranged_power / (ranged_power + other_power)) as f32
    } else {
        1.0
    };
    (punctual::normalised_cdf(&powers), choice)
}

/// The kernels that fill the cells after the depth kernel.
enum CellKernels {
    /// A workgroup per cell tests every light: one dispatch for the tiles, one for the grid.
    PerCell {
        tiles: ComputePipeline<LightCullingPush>,
        grid: ComputePipeline<LightCullingPush>,
    },
    /// By light: the tiles' bounds and every cell emptied, then a workgroup per light for the
    /// tiles and one for the grid; lists are then sorted, the tiles' and the grid's cells.
    PerLight {
        prepare: ComputePipeline<LightCullingPush>,
        tiles: ComputePipeline<LightCullingPush>,
        /// The tiles' scatter takes its lights with narrow workgroups.
        narrow_tiles: bool,
        grid: ComputePipeline<LightCullingPush>,
        sort: Option<[ComputePipeline<LightCullingPush>; 2]>,
    },
}

/// From this many lights on, a cull by light scatters into the grid with narrow workgroups
/// (LIGHT_CULLING_NARROW_GROUP threads a light instead of LIGHT_CULLING_GROUP); into the tiles,
/// from NARROW_SCATTER_LIGHTS_PER_TILE lights a tile (docs/BENCHMARKS.md, "Narrow scatter
/// workgroups where lights are many": on the H200 a wide workgroup takes the lights near the
/// camera, whose footprints span much of the image, in fewer steps, and a narrow one idles less
/// on the many small footprints; which matters more turns on how many lights share a tile).
pub const NARROW_SCATTER_LIGHTS: u32 = 8192;
pub const NARROW_SCATTER_LIGHTS_PER_TILE: u32 = 2;

/// A cull by light splits the footprint of a light that spans SPLIT_FROM steps of its tiles'
/// scatter workgroup or more: the workgroup takes the first step's tiles, and the rest are
/// queued, a step's worth an entry, for the first SPLIT_POOL workgroups of the launch, which
/// take every SPLIT_POOL-th entry; up to SPLIT_CAPACITY entries, past which a light takes its
/// whole footprint itself. Without it the light nearest the camera, whose footprint can be
/// most of the image, sets the launch's length alone (docs/BENCHMARKS.md, "Wide footprints
/// split among a pool": 10^3 lights at 1080p, the tiles' cull 0.028 -> 0.025 ms on the H200,
/// 10^4 lights 0.046 -> 0.036; a pool of 64 was slower, one of 256 no faster, and splitting
/// from 3 or 4 steps no faster).
const SPLIT_FROM: u32 = 2;
const SPLIT_POOL: u32 = 128;
const SPLIT_CAPACITY: u32 = 4 * SPLIT_POOL;

impl CellKernels {
    fn new(context: &Context, settings: &CullingSettings, lights: u32, tiles: u32) -> GpuResult<Self> {
        let pipeline = |id: ShaderId| ComputePipeline::new(context, id, &[]);
        let bits = settings.format == CullingFormat::Bits;
        let narrow_tiles = u64::from(lights) >= u64::from(NARROW_SCATTER_LIGHTS_PER_TILE) * u64::from(tiles);
        let narrow_grid = lights >= NARROW_SCATTER_LIGHTS;
        // Built by light: (prepare, tiles wide and narrow, grid wide and narrow) for the format.
        let (prepare, tiles, grid) = if bits {
            (
                ids::LIGHTS_CULL_SCATTER_PREPARE_BITS,
                [
                    ids::LIGHTS_CULL_SCATTER_TILES_BITS,
                    ids::LIGHTS_CULL_SCATTER_TILES_BITS_NARROW,
                ],
                [
                    ids::LIGHTS_CULL_SCATTER_GRID_BITS,
                    ids::LIGHTS_CULL_SCATTER_GRID_BITS_NARROW,
                ],
            )
        } else {
            (
                ids::LIGHTS_CULL_SCATTER_PREPARE_LISTS,
                [
                    ids::LIGHTS_CULL_SCATTER_TILES_LISTS,
                    ids::LIGHTS_CULL_SCATTER_TILES_LISTS_NARROW,
                ],
                [
                    ids::LIGHTS_CULL_SCATTER_GRID_LISTS,
                    ids::LIGHTS_CULL_SCATTER_GRID_LISTS_NARROW,
                ],
            )
        };
        Ok(match settings.build {
            CullBuild::Lights => Self::PerLight {
                prepare: pipeline(prepare)?,
                tiles: pipeline(tiles[usize::from(narrow_tiles)])?,
                narrow_tiles,
                grid: pipeline(grid[usize::from(narrow_grid)])?,
                sort: if bits {
                    None
                } else {
                    Some([
                        pipeline(ids::LIGHTS_CULL_SORT_TILES)?,
                        pipeline(ids::LIGHTS_CULL_SORT_GRID)?,
                    ])
                },
            },
            CullBuild::Cells if bits => Self::PerCell {
                tiles: pipeline(ids::LIGHTS_CULL_TILES_BITS)?,
                grid: pipeline(ids::LIGHTS_CULL_GRID_BITS)?,
            },
            CullBuild::Cells => Self::PerCell {
                tiles: pipeline(ids::LIGHTS_CULL_TILES_LISTS)?,
                grid: pipeline(ids::LIGHTS_CULL_GRID_LISTS)?,
            },
        })
    }
}

impl CellKernels {
    /// Tiles a queued chunk of a footprint holds: a step of the tiles' scatter workgroup.
    fn split_chunk(&self) -> u32 {
        match self {
            Self::PerLight { narrow_tiles: true, .. } => LIGHT_CULLING_NARROW_GROUP,
            Self::PerLight { .. } => LIGHT_CULLING_GROUP,
            Self::PerCell { .. } => 0,
        }
    }

    /// Workgroups of the tiles' scatter that take the queued chunks.
    fn split_pool(&self) -> u32 {
        match self {
            Self::PerLight { .. } => SPLIT_POOL,
            Self::PerCell { .. } => 0,
        }
    }
}

/// The format's cell storage: bit arrays and their summaries, or index lists.
fn cell_buffers(
    context: &Context,
    settings: &CullingSettings,
    cells: u64,
    words: u32,
) -> GpuResult<(Option<Buffer>, Option<Buffer>, Option<Buffer>)> {
    let storage = |name: &str, bytes: u64| Buffer::gpu_storage(context, name, bytes);
    Ok(match settings.format {
        CullingFormat::Bits => (
            Some(storage("light culling bits", cells * u64::from(words) * 4)?),
            Some(storage(
                "light culling summaries",
                cells * u64::from(words.div_ceil(32)) * 4,
            )?),
            None,
        ),
        _ => (
            None,
            None,
            Some(storage(
                "light culling lists",
                cells * u64::from(settings.list_capacity) * 4,
            )?),
        ),
    })
}

/// The depth kernel: the primary hit through every pixel corner, in the render's backend.
fn depth_kernel(context: &Context, backend: TraceBackend) -> GpuResult<TraceKernel<LightCullingPush>> {
    TraceKernel::new(
        context,
        backend,
        "light culling depth",
        &TraceShaders {
            query: ids::LIGHTS_CULL_DEPTH_QUERY,
            software: None,
            raygen: ids::LIGHTS_CULL_DEPTH_RGEN,
            miss: &[ids::LIGHTS_CULL_DEPTH_RMISS],
            closest_hit: ids::LIGHTS_CULL_DEPTH_RCHIT,
            alpha_holes: false,
            specialization: &[],
        },
    )
}
