//! Light culling (src/lights/culling/): the culling kernels against brute force on random
//! lights and random depth bounds (no light that reaches a point of a cell is missing from the
//! cell; no listed light is far from it; bits and lists hold the same sets; lists overflow
//! where they should), and renders of the street scene with `bits`, `lists` and `off`: the
//! same expected image, converging as 1/spp, with overflowing lists too.

use crate::common;

use common::render_with_stats as render;

use glam::Vec3;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::film::metrics;
use wavetrace::gpu::{Buffer, BufferUsage, Context};
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::interface::{GpuCullLight, GpuLightTile, LIGHT_CULLING_DEPTH_BINS, LIGHT_CULLING_NO_DEPTH};
use wavetrace::lights::culling::reference::{self, CullGrid};
use wavetrace::lights::culling::{CellContents, CullLayout, NARROW_SCATTER_LIGHTS_PER_TILE};
use wavetrace::lights::{CullBuild, CullingFormat, CullingSettings, LightCulling};
use wavetrace::scene::{Instance, Material, Mesh, PunctualKind, PunctualLight, RenderCamera, Scene};

const WIDTH: u32 = 40;
const HEIGHT: u32 = 24;
const TILES: u32 = WIDTH.div_ceil(16) * HEIGHT.div_ceil(16);

/// A 20 m box of ground with `count` random point and spot lights of random range in front of
/// a camera at its edge, some of them outside the view.
fn random_lights(count: usize, seed: u64) -> (Scene, RenderCamera) {
    random_lights_seen(count, seed, (WIDTH, HEIGHT))
}

/// `random_lights` for an image of `width` x `height`.
fn random_lights_seen(count: usize, seed: u64, size: (u32, u32)) -> (Scene, RenderCamera) {
    random_lights_through(count, seed, size, false)
}

/// `random_lights_seen` through a pinhole or an orthographic camera (at the same place, its
/// image 12 units high: about what the pinhole sees 15 units away).
fn random_lights_through(
    count: usize,
    seed: u64,
    (width, height): (u32, u32),
    orthographic: bool,
) -> (Scene, RenderCamera) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let pinhole = RenderCamera::from_transform(
        glam::Mat4::look_at_rh(Vec3::new(0.0, 4.0, 12.0), Vec3::new(0.5, 0.0, 0.0), Vec3::Y).inverse(),
        0.9,
        width as f32 / height as f32,
    );
    let camera = if orthographic {
        RenderCamera {
            half_height: 6.0,
            orthographic: true,
            ..pinhole
        }
    } else {
        pinhole
    };
    let lights = (0..count)
        .map(|i| {
            // Inside the view at depths 0 to 35 mostly, anywhere in the box otherwise.
            let position = if rng.random::<f32>() < 0.8 {
                let sx = rng.random_range(-1.2f32..1.2) * camera.half_height * camera.aspect;
                let sy = rng.random_range(-1.2f32..1.2) * camera.half_height;
                let z = rng.random_range(0.0f32..35.0);
                let spread = if orthographic { 1.0 } else { z };
                camera.origin + z * camera.forward + spread * (sx * camera.right + sy * camera.up)
            } else {
                Vec3::new(rng.random(), rng.random(), rng.random()) * 20.0 - 10.0
            };
            let spot = rng.random::<f32>() < 0.5;
            let outer = rng.random_range(0.2f32..1.5);
            PunctualLight {
                name: format!("light {i}"),
                kind: if spot {
                    PunctualKind::Spot {
                        inner: outer * 0.5,
                        outer,
                    }
                } else {
                    PunctualKind::Point
                },
                position,
                direction: Vec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - Vec3::ONE,
                intensity: Vec3::splat(rng.random_range(1.0f32..100.0)),
                range: Some(10f32.powf(rng.random_range(-1.0f32..0.8))),
            }
        })
        .map(|mut light| {
            light.direction = light.direction.normalize_or(Vec3::NEG_Y);
            light
        })
        .collect();
    let ground = Mesh {
        name: "ground".into(),
        positions: vec![
            Vec3::new(-10.0, -10.0, -10.0),
            Vec3::new(10.0, -10.0, -10.0),
            Vec3::new(10.0, 10.0, 10.0),
        ],
        normals: None,
        uvs: None,
        second_uvs: None,
        tangents: None,
        colors: None,
        indices: vec![0, 1, 2],
        material: 0,
    };
    let scene = Scene {
        source: format!("{count} random ranged lights").into(),
        meshes: vec![ground],
        instances: vec![Instance {
            mesh: 0,
            world_from_object: glam::Mat4::IDENTITY,
            node: "ground".into(),
        }],
        materials: vec![Material::default()],
        textures: Vec::new(),
        lights,
        camera: None,
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    };
    (scene, camera)
}

/// Random pixel-corner depths: a block of tiles misses everything; elsewhere columns of near
/// hits (depths 2 to 3) and far ones (20 to 23) alternate with columns of misses between them,
/// so that no pixel spans both and tile masks have gaps; and a few random misses.
fn random_corner_depths(rng: &mut SmallRng) -> Vec<f32> {
    random_corner_depths_of(rng, (WIDTH, HEIGHT))
}

/// `random_corner_depths` for an image of `width` x `height`.
fn random_corner_depths_of(rng: &mut SmallRng, (width, height): (u32, u32)) -> Vec<f32> {
    let row = width as usize + 1;
    (0..row * (height as usize + 1))
        .map(|i| {
            let (x, y) = (i % row, i / row);
            let band = x % 8;
            if (x >= 32 && y <= 16) || band == 3 || band == 7 || rng.random::<f32>() < 0.05 {
                LIGHT_CULLING_NO_DEPTH
            } else if band < 3 {
                rng.random_range(2.0f32..3.0)
            } else {
                rng.random_range(20.0f32..23.0)
            }
        })
        .collect()
}

fn cull(
    context: &Context,
    scene: &Scene,
    camera: RenderCamera,
    depths: &[f32],
    format: CullingFormat,
    list_capacity: u32,
    build: CullBuild,
) -> (LightCulling, CellContents) {
    cull_image(
        context,
        scene,
        (camera, (WIDTH, HEIGHT)),
        depths,
        format,
        list_capacity,
        build,
    )
}

/// `cull` for an image of another size.
fn cull_image(
    context: &Context,
    scene: &Scene,
    (camera, size): (RenderCamera, (u32, u32)),
    depths: &[f32],
    format: CullingFormat,
    list_capacity: u32,
    build: CullBuild,
) -> (LightCulling, CellContents) {
    let settings = CullingSettings {
        format,
        list_capacity,
        cones: true,
        grid_cells: 500,
        depth_mask: true,
        scalarise: false,
        build,
    };
    let culling = LightCulling::new(context, scene, camera, size, context.trace_backends()[0], settings)
        .unwrap()
        .expect("the scene has ranged lights");
    // A first cull of other depths (every tile hit at depth 10) leaves cells that the second
    // must not keep: whatever a build does not overwrite, it has to clear.
    let other = vec![10.0f32; depths.len()];
    for depths in [&other[..], depths] {
        let staging = Buffer::from_slice(context, "test corner depths", depths, BufferUsage::STORAGE).unwrap();
        context
            .run_once("light culling test", |commands| {
                commands.copy_buffer(&staging, 0, culling.corner_depths(), 0, staging.size());
                commands.compute_barrier();
                culling.record_cells(commands, None)
            })
            .unwrap();
    }
    let cells = culling.read_cells(context).unwrap();
    (culling, cells)
}

/// The CPU's tile bounds: each pixel's corners' hits widened by the margin, their extremes,
/// and the slices they span (a pixel whose corners lie more than two slices apart marks only
/// its corners' slices).
fn expected_tile(layout: &CullLayout, depths: &[f32], tile: u32) -> GpuLightTile {
    let (tx, ty) = (tile % layout.tiles_x, tile / layout.tiles_x);
    let row = layout.width as usize + 1;
    let mut pixels = Vec::new();
    for y in ty * 16..((ty + 1) * 16).min(layout.height) {
        for x in tx * 16..((tx + 1) * 16).min(layout.width) {
            let (x, y) = (x as usize, y as usize);
            let hits: Vec<f32> = [
                depths[y * row + x],
                depths[y * row + x + 1],
                depths[(y + 1) * row + x],
                depths[(y + 1) * row + x + 1],
            ]
            .into_iter()
            .filter(|&d| d >= 0.0)
            .collect();
            if let (Some(lo), Some(hi)) = (
                hits.iter().copied().reduce(f32::min),
                hits.iter().copied().reduce(f32::max),
            ) {
                pixels.push(((lo - layout.margin).max(0.0), hi + layout.margin, hits));
            }
        }
    }
    let mut tile = GpuLightTile {
        z_min: f32::INFINITY,
        z_max: 0.0,
        ..GpuLightTile::default()
    };
    for (lo, hi, _) in &pixels {
        tile.z_min = tile.z_min.min(*lo);
        tile.z_max = tile.z_max.max(*hi);
    }
    let slices = |tile: &GpuLightTile, lo: f32, hi: f32| {
        (reference::tile_bin(tile, lo)..=reference::tile_bin(tile, hi)).fold(0u32, |mask, bin| mask | 1 << bin)
    };
    let slice = (tile.z_max - tile.z_min) / LIGHT_CULLING_DEPTH_BINS as f32;
    for (lo, hi, hits) in &pixels {
        tile.mask |= if hi - lo <= 2.0 * slice {
            slices(&tile, *lo, *hi)
        } else {
            hits.iter().fold(0, |mask, &d| {
                mask | slices(&tile, (d - layout.margin).max(0.0), d + layout.margin)
            })
        };
    }
    tile
}

/// The box around a tile's volume (its frustum, or for an orthographic camera its box across
/// the view, between its depth bounds).
fn tile_box(layout: &CullLayout, tile: &GpuLightTile, index: u32) -> (Vec3, Vec3) {
    let camera = &layout.camera;
    let (tx, ty) = (index % layout.tiles_x, index / layout.tiles_x);
    let sx =
        |x: u32| (2.0 * x.min(layout.width) as f32 / layout.width as f32 - 1.0) * camera.half_height * camera.aspect;
    let sy = |y: u32| (1.0 - 2.0 * y.min(layout.height) as f32 / layout.height as f32) * camera.half_height;
    let mut lo = Vec3::INFINITY;
    let mut hi = Vec3::NEG_INFINITY;
    for z in [tile.z_min, tile.z_max] {
        for x in [sx(tx * 16), sx((tx + 1) * 16)] {
            for y in [sy(ty * 16), sy((ty + 1) * 16)] {
                let spread = if camera.orthographic { 1.0 } else { z };
                let p = camera.origin + z * camera.forward + spread * (x * camera.right + y * camera.up);
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
    }
    (lo, hi)
}

/// Random points the light reaches: inside its sphere (many close to its edge) and cone.
fn points_reached(light: &GpuCullLight, rng: &mut SmallRng, wanted: usize) -> Vec<Vec3> {
    let mut points = Vec::new();
    for _ in 0..wanted * 20 {
        if points.len() == wanted {
            break;
        }
        let direction = Vec3::new(rng.random(), rng.random(), rng.random()) * 2.0 - 1.0;
        if !(direction.length() > 1e-3 && direction.length() <= 1.0) {
            continue;
        }
        let edge = rng.random::<f32>() < 0.5;
        let r = light.range
            * if edge {
                1.0 - rng.random::<f32>() * 1e-3
            } else {
                rng.random::<f32>().cbrt()
            };
        let p = light.position + direction.normalize() * r;
        if reference::reaches(light, p) {
            points.push(p);
        }
    }
    points
}

/// Bits and lists, built by cell and by light, hold the same cells: the same tile bounds and
/// masks, counts, lights in light order and, for bits, summaries.
fn assert_builds_agree(
    what: &str,
    cells: &CellContents,
    list_cells: &CellContents,
    scattered: &CellContents,
    scattered_lists: &CellContents,
) {
    let tile_bits = |tiles: &[GpuLightTile]| -> Vec<(u32, u32, u32)> {
        tiles
            .iter()
            .map(|t| (t.z_min.to_bits(), t.z_max.to_bits(), t.mask))
            .collect()
    };
    assert_eq!(cells.counts, list_cells.counts, "{what}");
    assert_eq!(cells.lights, list_cells.lights, "{what}");
    for by_light in [scattered, scattered_lists] {
        assert_eq!(tile_bits(&by_light.tiles), tile_bits(&cells.tiles), "{what}");
        assert_eq!(by_light.counts, cells.counts, "{what}");
        assert_eq!(by_light.lights, cells.lights, "{what}");
    }
    assert_eq!(scattered.summaries, cells.summaries, "{what}");
}

fn check_conservative_and_tight(count: usize, seed: u64, orthographic: bool) {
    let gpu = common::gpu();
    let context = &gpu.context;
    let (scene, camera) = random_lights_through(count, seed, (WIDTH, HEIGHT), orthographic);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0x5eed);
    let depths = random_corner_depths(&mut rng);
    let cull_as = |format, capacity, build| cull(context, &scene, camera, &depths, format, capacity, build);
    let (bits, bit_cells) = cull_as(CullingFormat::Bits, 1024, CullBuild::Cells);
    let (_, scattered) = cull_as(CullingFormat::Bits, 1024, CullBuild::Lights);
    let (_, list_cells) = cull_as(CullingFormat::Lists, 1024, CullBuild::Cells);
    let (_, scattered_lists) = cull_as(CullingFormat::Lists, 1024, CullBuild::Lights);
    let (_, small_lists) = cull_as(CullingFormat::Lists, 3, CullBuild::Cells);
    let (_, small_scattered_lists) = cull_as(CullingFormat::Lists, 3, CullBuild::Lights);
    let layout = *bits.layout();
    let lights = bits.lights(context).unwrap();
    assert_eq!(lights.len(), count);

    // The tiles' bounds and masks are the CPU's.
    for (index, tile) in bit_cells.tiles.iter().enumerate() {
        let expected = expected_tile(&layout, &depths, index as u32);
        assert_eq!(
            (tile.z_min.to_bits(), tile.z_max.to_bits(), tile.mask),
            (expected.z_min.to_bits(), expected.z_max.to_bits(), expected.mask),
            "tile {index}: {tile:?}, expected {expected:?}"
        );
    }
    assert!(
        bit_cells.tiles.iter().any(|t| t.z_min > t.z_max),
        "some tiles have no hit"
    );
    assert!(
        bit_cells.tiles.iter().any(|t| t.mask != 0 && t.mask != u32::MAX),
        "some masks have gaps"
    );

    // Conservative: every point a light reaches is in a cell that lists it.
    let mut in_tiles = 0;
    let mut checked = 0;
    for (index, light) in lights.iter().enumerate() {
        for p in points_reached(light, &mut rng, 400) {
            // Outside the grid every ranged light is a candidate: nothing to check.
            let Some(cell) = reference::cell_of(&layout.camera, (WIDTH, HEIGHT), &bit_cells.tiles, &layout.grid, p)
            else {
                continue;
            };
            in_tiles += usize::from(cell < layout.tiles());
            checked += 1;
            assert!(
                bit_cells.lights[cell as usize].binary_search(&(index as u32)).is_ok(),
                "light {index} ({light:?}) reaches {p} in cell {cell}, which does not list it"
            );
        }
    }
    assert!(checked > count * 50, "{checked} points checked");
    if count > 1 {
        assert!(
            in_tiles > checked / 20,
            "only {in_tiles} of {checked} points fell in tiles"
        );
    }

    // Tight: a listed light's sphere (widened by the margin and rounding) meets the cell's box.
    let mut listed = 0;
    for (cell, list) in bit_cells.lights.iter().enumerate() {
        let (lo, hi) = if (cell as u32) < layout.tiles() {
            tile_box(&layout, &bit_cells.tiles[cell], cell as u32)
        } else {
            layout.grid.cell_box(cell as u32 - layout.tiles())
        };
        for &light in list {
            let l = &lights[light as usize];
            let gap = l.position.clamp(lo, hi) - l.position;
            let reach = l.range + 2.0 * layout.margin + 1e-4 * (1.0 + l.position.abs().max_element());
            assert!(
                gap.length() <= reach,
                "cell {cell} lists light {light} ({l:?}) {} away",
                gap.length()
            );
        }
        listed += list.len();
    }
    assert!(
        listed < bit_cells.lights.len() * count / 2,
        "{listed} entries: culling culls little"
    );

    // The summaries name exactly the words that hold lights.
    for (cell, lights) in bit_cells.lights.iter().enumerate() {
        let mut expected = vec![0u32; count.div_ceil(32 * 32)];
        for &light in lights {
            expected[light as usize / 1024] |= 1 << (light / 32 % 32);
        }
        assert_eq!(bit_cells.summaries[cell], expected, "cell {cell}");
    }

    // Bits and lists, built by cell and by light, hold the same sets, counted alike and in light
    // order (the lights' build reduces the tiles' bounds in a kernel of its own, to the same
    // bits, empties the cells itself and sorts its lists); small lists overflow exactly where a
    // cell holds more, whichever the build.
    assert_builds_agree(
        &format!("{count} lights"),
        &bit_cells,
        &list_cells,
        &scattered,
        &scattered_lists,
    );
    for (cell, &count) in bit_cells.counts.iter().enumerate() {
        assert_eq!(count as usize, bit_cells.lights[cell].len());
        let expected: &[u32] = if count > 3 { &[] } else { &bit_cells.lights[cell] };
        for small in [&small_lists, &small_scattered_lists] {
            assert_eq!(small.counts[cell], count);
            assert_eq!(small.lights[cell], expected, "cell {cell}");
        }
    }
    // Ten random lights need not crowd any cell past three; 33 do.
    if count > 10 {
        assert!(small_lists.counts.iter().any(|&c| c > 3), "some small lists overflow");
    }
    gpu.finish();
}

#[test]
fn culling_keeps_every_light_that_reaches_a_cell_and_few_others() {
    // Awkward counts: one light, one word and a bit, and past the bit arrays' shared chunk
    // of 65,536 lights; ten lights scatter into the tiles with wide workgroups, 33 and more with
    // narrow ones (fewer and more than NARROW_SCATTER_LIGHTS_PER_TILE a tile).
    const { assert!(10 < NARROW_SCATTER_LIGHTS_PER_TILE * TILES && 33 >= NARROW_SCATTER_LIGHTS_PER_TILE * TILES) };
    for (count, seed) in [(1, 1), (10, 5), (33, 2), (1000, 3)] {
        check_conservative_and_tight(count, seed, false);
    }
}

/// The same through an orthographic camera, whose tiles are boxes along its axis and whose
/// lights' footprints are their spheres' extents across the view.
#[test]
fn culling_an_orthographic_view_keeps_every_light_that_reaches_a_cell_and_few_others() {
    for (count, seed) in [(10, 15), (33, 12), (1000, 13)] {
        check_conservative_and_tight(count, seed, true);
    }
}

#[test]
fn footprints_split_among_the_scatter_pool_fill_the_cells_of_the_cells_build() {
    // 323 tiles: a light around the camera spans them all, more than a wide scatter workgroup
    // (256 tiles) or a narrow one (64) takes in a step, so its footprint is split and the
    // scatter's pool takes the rest. Twelve lights scatter wide; 700 narrow (more than
    // NARROW_SCATTER_LIGHTS_PER_TILE a tile), and their 120 lights around the camera queue 600
    // chunks, more than the queue holds: the lights that found it full take their own. An odd
    // count of tiles leaves the prepare kernel's last workgroup a tile short.
    const SIZE: (u32, u32) = (304, 272);
    let tiles = SIZE.0.div_ceil(16) * SIZE.1.div_ceil(16);
    const { assert!(12 < NARROW_SCATTER_LIGHTS_PER_TILE * 323 && 700 >= NARROW_SCATTER_LIGHTS_PER_TILE * 323) };
    assert_eq!(tiles, 323);
    let gpu = common::gpu();
    let context = &gpu.context;
    // Through a pinhole, and through an orthographic camera, whose footprints are the spheres'
    // extents across the view.
    let cases = [
        (12, 4, 7, false),
        (700, 120, 8, false),
        (12, 4, 17, true),
        (700, 120, 18, true),
    ];
    for (count, around_camera, seed, orthographic) in cases {
        let (mut scene, camera) = random_lights_through(count, seed, SIZE, orthographic);
        for light in scene.lights.iter_mut().take(around_camera) {
            light.kind = PunctualKind::Point;
            light.position = camera.origin + camera.forward * 0.5;
            light.range = Some(30.0);
        }
        let mut rng = SmallRng::seed_from_u64(seed);
        let depths = random_corner_depths_of(&mut rng, SIZE);
        let cull_as = |format, build| cull_image(context, &scene, (camera, SIZE), &depths, format, 1024, build).1;
        let cells = cull_as(CullingFormat::Bits, CullBuild::Cells);
        let list_cells = cull_as(CullingFormat::Lists, CullBuild::Cells);
        let scattered = cull_as(CullingFormat::Bits, CullBuild::Lights);
        let scattered_lists = cull_as(CullingFormat::Lists, CullBuild::Lights);
        assert_builds_agree(
            &format!("{count} lights, orthographic {orthographic}"),
            &cells,
            &list_cells,
            &scattered,
            &scattered_lists,
        );
        let (lit_tiles, _) = cells.lights.split_at(tiles as usize);
        let everywhere = lit_tiles.iter().filter(|lights| lights.len() >= around_camera).count();
        assert!(
            everywhere > tiles as usize / 2,
            "the lights around the camera reach {everywhere} of {tiles} tiles"
        );
    }
    gpu.finish();
}

#[test]
fn bit_arrays_past_one_shared_chunk_match_lists() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let (scene, camera) = random_lights(70_001, 4);
    let mut rng = SmallRng::seed_from_u64(4);
    let depths = random_corner_depths(&mut rng);
    let cull_as = |format, build| cull(context, &scene, camera, &depths, format, 1024, build);
    let (_, bits) = cull_as(CullingFormat::Bits, CullBuild::Cells);
    let (_, lists) = cull_as(CullingFormat::Lists, CullBuild::Cells);
    let (_, scattered) = cull_as(CullingFormat::Bits, CullBuild::Lights);
    let (_, scattered_lists) = cull_as(CullingFormat::Lists, CullBuild::Lights);
    assert_eq!(bits.counts, lists.counts);
    assert_eq!(scattered_lists.counts, lists.counts);
    assert_eq!(scattered_lists.lights, lists.lights);
    assert_eq!(scattered.counts, bits.counts);
    assert_eq!(scattered.lights, bits.lights);
    assert_eq!(scattered.summaries, bits.summaries);
    for (cell, (b, l)) in bits.lights.iter().zip(&lists.lights).enumerate() {
        if bits.counts[cell] <= 1024 {
            assert_eq!(b, l, "cell {cell}");
        }
        let occupied: std::collections::BTreeSet<u32> = b.iter().map(|light| light / 32).collect();
        let summarised: std::collections::BTreeSet<u32> = (0..bits.summaries[cell].len() as u32 * 32)
            .filter(|w| bits.summaries[cell][*w as usize / 32] >> (w % 32) & 1 != 0)
            .collect();
        assert_eq!(occupied, summarised, "cell {cell}");
    }
    assert!(
        bits.lights.iter().flatten().any(|&l| l >= 65_536),
        "lights past the first chunk are listed"
    );
    gpu.finish();
}

#[test]
fn the_grid_spans_the_scene_in_cells_of_equal_size() {
    let grid = CullGrid::over(Some((Vec3::new(-5.0, 0.0, -5.0), Vec3::new(5.0, 0.1, 5.0))), 0.01, 1000);
    assert_eq!(grid.dims.y, 1, "a flat scene is one cell high: {grid:?}");
    assert!(grid.cells() >= 500 && grid.cells() <= 2000, "{grid:?}");
    let cell = grid.cell_of(Vec3::new(4.99, 0.05, -4.99)).unwrap();
    let (lo, hi) = grid.cell_box(cell);
    assert!(lo.x <= 4.99 && hi.x >= 4.99 && lo.z <= -4.99 && hi.z >= -4.99);
    assert_eq!(grid.cell_of(Vec3::new(-5.0, 0.0, -5.0)), Some(0));
    assert_eq!(grid.cell_of(Vec3::new(5.0, 0.1, 5.0)), Some(grid.cells() - 1));
    assert_eq!(grid.cell_of(Vec3::splat(-100.0)), None);
    assert_eq!(grid.cell_of(Vec3::new(0.0, 0.2, 0.0)), None);
}

fn street_settings(context: &Context, spp: u32, format: CullingFormat, seed: u32) -> RenderSettings {
    RenderSettings {
        seed,
        light_culling: CullingSettings {
            format,
            ..CullingSettings::default()
        },
        ..RenderSettings::new(64, 64, spp, 2, context.trace_backends()[0])
    }
}

#[test]
fn bits_lists_and_off_render_the_street_alike() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("street-300");
    let (reference, _) = render(context, &scene, &street_settings(context, 4096, CullingFormat::Off, 11));
    let mut errors = Vec::new();
    for spp in [16, 64] {
        let (bits, stats) = render(context, &scene, &street_settings(context, spp, CullingFormat::Bits, 3));
        let culling = stats.culling.expect("culling ran");
        assert_eq!(culling.ranged_lights, 300);
        assert!(
            culling.tiles_with_hits > 0 && culling.mean_lights_per_tile > 0.0,
            "{culling:?}"
        );
        // Lights come out of both formats in the same order: the same choices, bit for bit.
        let (lists, _) = render(context, &scene, &street_settings(context, spp, CullingFormat::Lists, 3));
        assert!(bits == lists, "bits and lists render different images at {spp} spp");
        let mut per_lane = street_settings(context, spp, CullingFormat::Bits, 3);
        per_lane.light_culling.scalarise = false;
        assert!(
            render(context, &scene, &per_lane).0 == bits,
            "scalarised and per-lane walks differ"
        );
        let (off, _) = render(context, &scene, &street_settings(context, spp, CullingFormat::Off, 3));
        let c_bits = metrics::compare(&bits, &reference).unwrap();
        let c_off = metrics::compare(&off, &reference).unwrap();
        eprintln!("street-300 64x64 d2 {spp} spp: bits {c_bits:?}, off {c_off:?}");
        // The global choice's heavier tail leaves its mean noisier at equal samples.
        for (c, tolerance) in [(&c_bits, 0.03), (&c_off, 0.06)] {
            assert_eq!(c.non_finite_pixels, 0);
            common::assert_means_within(c, tolerance, &format!("{spp} spp"));
        }
        errors.push(c_bits.rel_mse);
    }
    // Unbiased against the reference: error falls as 1/spp (x4 for 4x the samples). Depth 2,
    // direct light alone, is what culling changes; deeper bounces add the heavy tail of
    // light reflected off the walls right beside window lights, which no light choice tames.
    let ratio = errors[0] / errors[1];
    assert!(
        (2.5..6.0).contains(&ratio),
        "relMSE {errors:?}: ratio {ratio}, expected about 4"
    );

    // Lists too small for some cells (deep tiles): those choose among all ranged lights by
    // power, and the image is still the same in expectation; at 4 entries nearly every cell
    // overflows, and the error grows.
    let mut small = street_settings(context, 1024, CullingFormat::Lists, 3);
    small.light_culling.list_capacity = 24;
    let (image, stats) = render(context, &scene, &small);
    let culling = stats.culling.unwrap();
    assert!(culling.overflowed_cells > 0, "{culling:?}");
    let c = metrics::compare(&image, &reference).unwrap();
    eprintln!(
        "street-300 lists of 24, 1024 spp: {c:?}, {} cells overflowed",
        culling.overflowed_cells
    );
    common::assert_means_within(&c, 0.03, "overflowing lists");
    small.light_culling.list_capacity = 4;
    small.spp = 64;
    let (image, stats) = render(context, &scene, &small);
    assert!(stats.culling.unwrap().overflowed_cells > culling.overflowed_cells);
    let c = metrics::compare(&image, &reference).unwrap();
    assert!(c.rel_mse > errors[1], "falling back to all lights costs quality: {c:?}");
    gpu.finish();
}

#[test]
fn every_integrator_and_backend_chooses_the_same_culled_lights() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("street-300");
    let mut images = Vec::new();
    for integrator in [IntegratorKind::Wavefront, IntegratorKind::Megakernel] {
        for &backend in context.trace_backends() {
            let settings = RenderSettings {
                integrator,
                backend,
                rebuild_lights_every_pass: true,
                ..street_settings(context, 8, CullingFormat::Bits, 5)
            };
            let (image, stats) = render(context, &scene, &settings);
            let names: Vec<&str> = stats.kernels.iter().map(|k| k.name.as_str()).collect();
            for scope in ["light_cull_depth", "light_cull_tiles", "light_cull_grid"] {
                assert!(names.contains(&scope), "{scope} timed with --rebuild-lights: {names:?}");
            }
            images.push(image);
        }
    }
    for image in &images[1..] {
        let (agree, c) = common::agree_as_estimates(image, &images[0], 1e-3);
        assert!(agree, "the integrators or backends disagree: {c:?}");
    }
    gpu.finish();
}

#[test]
fn bidirectional_path_tracing_refuses_culling() {
    let gpu = common::gpu();
    let scene = common::load_scene("street-300");
    let settings = RenderSettings {
        integrator: IntegratorKind::Bdpt,
        ..street_settings(&gpu.context, 1, CullingFormat::Bits, 1)
    };
    let error = Renderer::new(&gpu.context, &scene, &settings)
        .err()
        .expect("refused")
        .to_string();
    assert!(error.contains("--light-culling bits"), "{error}");
    gpu.finish();
}

#[test]
fn depth_bins_cover_the_tile() {
    assert_eq!(LIGHT_CULLING_DEPTH_BINS, 32);
    let tile = GpuLightTile {
        z_min: 1.0,
        z_max: 3.0,
        mask: 0,
        pad0: 0,
    };
    assert_eq!(reference::tile_bin(&tile, 1.0), 0);
    assert_eq!(reference::tile_bin(&tile, 3.0), 31);
    assert_eq!(reference::tile_bin(&tile, 2.0), 16);
    assert_eq!(reference::tile_bin(&tile, -5.0), 0);
}

#[test]
fn ranged_lights_share_the_choice_with_triangles_and_unranged_lights() {
    let gpu = common::gpu();
    let context = &gpu.context;
    // The Cornell box (an emissive ceiling quad) with ranged point and spot lights and one
    // point light without range: next-event estimation splits between the culled choice and
    // the rest, and the MIS weight of the ceiling light hit by BSDF sampling must use the same
    // split. Four strong ranged lights above the ceiling reach every cell but light nothing
    // inside (the ceiling shadows them): they take most of the choice, so a weight that left
    // the split out would lose most of what BSDF sampling finds.
    let mut scene = common::load_scene("cornell-box");
    let mut rng = SmallRng::seed_from_u64(12);
    for i in 0..4 {
        scene.lights.push(PunctualLight {
            name: format!("above the ceiling {i}"),
            kind: PunctualKind::Point,
            position: Vec3::new(rng.random_range(-0.8f32..0.8), 1.5, rng.random_range(-0.8f32..0.8)),
            direction: Vec3::NEG_Y,
            intensity: Vec3::splat(20.0),
            range: Some(4.0),
        });
    }
    for i in 0..4 {
        scene.lights.push(PunctualLight {
            name: format!("ranged {i}"),
            kind: if i % 2 == 0 {
                PunctualKind::Point
            } else {
                PunctualKind::Spot { inner: 0.3, outer: 0.9 }
            },
            position: Vec3::new(rng.random(), rng.random(), rng.random()) * 1.6 - 0.8,
            direction: (Vec3::new(rng.random(), rng.random(), rng.random()) - Vec3::new(0.5, 1.0, 0.5)).normalize(),
            intensity: Vec3::new(1.0, 0.8, 0.6) * rng.random_range(0.1f32..0.4),
            range: Some(rng.random_range(0.5f32..1.2)),
        });
    }
    scene.lights.push(PunctualLight {
        name: "unranged".into(),
        kind: PunctualKind::Point,
        position: Vec3::new(0.5, 0.6, 0.4),
        direction: Vec3::NEG_Y,
        intensity: Vec3::splat(0.2),
        range: None,
    });
    let settings = |spp: u32, format: CullingFormat, seed: u32| RenderSettings {
        seed,
        light_culling: CullingSettings {
            format,
            ..CullingSettings::default()
        },
        ..RenderSettings::new(48, 48, spp, 3, context.trace_backends()[0])
    };
    let (reference, _) = render(context, &scene, &settings(4096, CullingFormat::Off, 21));
    for format in [CullingFormat::Bits, CullingFormat::Lists] {
        let (image, stats) = render(context, &scene, &settings(1024, format, 4));
        assert_eq!(stats.culling.unwrap().ranged_lights, 8);
        let c = metrics::compare(&image, &reference).unwrap();
        eprintln!("cornell box with ranged lights, {format:?}: {c:?}");
        assert_eq!(c.non_finite_pixels, 0);
        common::assert_means_within(&c, 0.015, &format!("{format:?}"));
        assert!(c.block8_rel_mse < 2e-3, "{format:?}: {c:?}");
    }
    gpu.finish();
}

#[test]
fn images_past_65535_groups_of_pixels_launch_within_the_limits() {
    // 2100 x 2100 pixels (and 2101 x 2101 corners) are more than 65,535 groups of 64: the
    // depth kernel and the ray-query megakernel launch them in rows (any validation error
    // fails the test), and every pixel is rendered.
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("street-300");
    let mut images = Vec::new();
    for integrator in [IntegratorKind::Wavefront, IntegratorKind::Megakernel] {
        let settings = RenderSettings {
            integrator,
            light_culling: CullingSettings {
                format: CullingFormat::Lists,
                ..CullingSettings::default()
            },
            ..RenderSettings::new(2100, 2100, 1, 2, context.trace_backends()[0])
        };
        images.push(render(context, &scene, &settings).0);
    }
    let (agree, c) = common::agree_as_estimates(&images[1], &images[0], 1e-2);
    assert!(agree, "the megakernel differs from the wavefront at 2100 x 2100: {c:?}");
    let last_rows = &images[1].pixels[2100 * 2000..];
    assert!(
        last_rows.iter().any(|p| p.iter().any(|&c| c > 0.0)),
        "the last rows were rendered"
    );
    gpu.finish();
}

#[test]
fn an_image_too_wide_for_a_footprint_is_refused_with_its_size() {
    // 65,537 tiles across do not fit a footprint's 16-bit first column.
    let gpu = common::gpu();
    let (scene, camera) = random_lights(10, 9);
    let settings = CullingSettings {
        format: CullingFormat::Bits,
        ..CullingSettings::default()
    };
    let size = (65_537 * 16, 16);
    let result = LightCulling::new(
        &gpu.context,
        &scene,
        camera,
        size,
        gpu.context.trace_backends()[0],
        settings,
    );
    let error = result.err().expect("refused").to_string();
    assert!(
        error.contains("1048592 x 16") && error.contains("65,535 tiles"),
        "{error}"
    );
    gpu.finish();
}
