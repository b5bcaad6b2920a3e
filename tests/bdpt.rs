//! Bidirectional path tracing (`--integrator bdpt`) on lavapipe, validation on: against
//! Mitsuba 3's references beside the path tracer at equal samples, each strategy alone against
//! the path tracer's image of its path length, the splats against a CPU splat of the same
//! light vertices, the float splat films against the fixed-point one, and determinism.
//! (The MIS weights of all strategies of a path summing to 1, on the GPU against a CPU
//! computation over the stored path, are tests/bdpt_mis.rs.)

use crate::common;

use glam::Vec3;
use wavetrace::bsdf::Bsdf;
use wavetrace::film::{metrics, RgbImage};
use wavetrace::integrator::bdpt::packed_normal::{pack_unit_vector, unpack_unit_vector};
use wavetrace::integrator::bdpt::{self, Bdpt};
use wavetrace::integrator::wavefront::tiled_pixel;
use wavetrace::integrator::{
    Crop, IntegratorKind, RenderSettings, Renderer, Sampler, SplatFilm, DEFAULT_RR_DEPTH, TILE_SIZE,
};
use wavetrace::interface::{
    LightVertex, PackedNormalProbePush, PackedNormalProbeResult, LIGHT_SHARE_APART, LIGHT_VERTEX_COAT_NORMAL_SHIFT,
    LIGHT_VERTEX_CONNECTABLE, LIGHT_VERTEX_FRONT,
};
use wavetrace::lights::LightSelection;
use wavetrace::scene::{RenderCamera, Scene};

/// The path tracer's image and BDPT's with the same settings.
fn path_traced_and_bdpt(
    context: &wavetrace::gpu::Context,
    scene: &Scene,
    base: &RenderSettings,
) -> (RgbImage, RgbImage) {
    let bdpt = RenderSettings {
        integrator: IntegratorKind::Bdpt,
        ..base.clone()
    };
    (
        common::render(context, scene, base),
        common::render(context, scene, &bdpt),
    )
}

/// BDPT and the path tracer at the same samples per pixel against the reference: BDPT's mean
/// within 2% on every channel and its relMSE at most `allowed` times the path tracer's; BDPT
/// the same bits on both backends. Both with Russian roulette from `rr_depth` (0: none).
///
/// The two integrators are held to each other with independent numbers, which compares the
/// estimators alone: the Sobol sampler (the default) stratifies each pixel's samples, which
/// helps the path tracer more than BDPT, whose splats land on any pixel (on the Cornell box at
/// depth 2 it took the path tracer's relMSE down 5.8x and BDPT's 1.6x; docs/BDPT.md). BDPT
/// with the Sobol sampler is then held to the reference and to its own error with independent
/// numbers.
fn against_reference(scene_name: &str, resolution: u32, depth: u32, spp: u32, rr_depth: u32, allowed: f64) {
    let gpu = common::gpu();
    let scene = common::load_scene(scene_name);
    let reference = common::reference(scene_name, resolution, depth);
    let mut bdpt_images = Vec::new();
    for &backend in gpu.context.trace_backends() {
        // BDPT chooses lights by power (its MIS weights need a choice that does not depend on
        // the receiver); the path tracer it is held to chooses the same way.
        let base = RenderSettings {
            rr_depth,
            light_selection: LightSelection::Tree,
            sampler: Sampler::Independent,
            ..RenderSettings::new(resolution, resolution, spp, depth, backend)
        };
        let (path_traced, bdpt) = path_traced_and_bdpt(&gpu.context, &scene, &base);
        let pt = metrics::compare(&path_traced, &reference).unwrap();
        let bd = metrics::compare(&bdpt, &reference).unwrap();
        eprintln!(
            "{scene_name} {resolution} d{depth} {spp} spp rr {rr_depth} {backend:?}: path tracer {pt:?}, bdpt {bd:?}"
        );
        assert_eq!(bd.non_finite_pixels, 0);
        common::assert_means_within(&bd, 0.02, "bdpt");
        assert!(
            bd.rel_mse <= allowed * pt.rel_mse,
            "bdpt relMSE {} over {allowed}x the path tracer's {}",
            bd.rel_mse,
            pt.rel_mse
        );
        let sobol = common::render(
            &gpu.context,
            &scene,
            &RenderSettings {
                integrator: IntegratorKind::Bdpt,
                sampler: Sampler::Sobol,
                ..base
            },
        );
        let so = metrics::compare(&sobol, &reference).unwrap();
        eprintln!("{scene_name} {resolution} d{depth} {spp} spp rr {rr_depth} {backend:?}: bdpt with Sobol {so:?}");
        common::assert_means_within(&so, 0.02, "bdpt with Sobol");
        assert!(
            so.rel_mse <= SOBOL_ALLOWED * bd.rel_mse,
            "bdpt relMSE with Sobol {} over {SOBOL_ALLOWED}x its relMSE with independent numbers {}",
            so.rel_mse,
            bd.rel_mse
        );
        bdpt_images.push((bdpt, sobol));
    }
    for image in &bdpt_images {
        assert_eq!(image, &bdpt_images[0], "both backends give the same bits");
    }
    gpu.finish();
}

/// How much worse than with independent numbers BDPT may be with the Sobol sampler: no worse
/// but for the noise of one seed.
const SOBOL_ALLOWED: f64 = 1.2;

#[test]
fn cornell_box_depth_2_matches_the_reference() {
    against_reference("cornell-box", 64, 2, 64, DEFAULT_RR_DEPTH, 2.0);
}

#[test]
fn cornell_box_depth_8_matches_the_reference() {
    against_reference("cornell-box", 64, 8, 64, DEFAULT_RR_DEPTH, 2.0);
}

#[test]
fn cornell_glass_matches_the_reference_better_than_path_tracing() {
    // Measured: a tenth of the path tracer's relMSE at equal samples (the caustics).
    against_reference("cornell-glass", 64, 8, 64, DEFAULT_RR_DEPTH, 0.5);
}

#[test]
fn ajar_matches_the_reference_better_than_path_tracing() {
    // Measured: a twentieth of the path tracer's relMSE at equal samples (light through the gap).
    against_reference("ajar", 128, 8, 16, DEFAULT_RR_DEPTH, 0.25);
}

#[test]
fn furnace_box_matches_the_reference() {
    // With roulette (the default) the path tracer's paths, whose throughput halves at every
    // bounce, are cut hard after five and BDPT is the better here: measured 0.80x.
    against_reference("furnace-box", 64, 8, 16, DEFAULT_RR_DEPTH, 2.0);
    // Without roulette, the one scene where BDPT is worse at equal samples: every wall emits,
    // so the path tracer's next-event estimation is close to ideal and BDPT's extra strategies
    // add noise the power heuristic cannot remove. Measured 2.2x at 16 and 64 spp: issue 13's
    // 2x is missed there, and this bound says so (docs/BDPT.md).
    against_reference("furnace-box", 64, 8, 16, 0, 2.5);
}

/// Camera subpaths that share light subpaths (`--bdpt-light-share`): the reference's mean, with
/// MIS counting the fewer light subpaths, and an error near that of a light subpath each
/// (measured on ajar at 64 spp: 1.28x with two sharers, 1.54x with four; on the Cornell box
/// lower than with a light subpath each).
#[test]
fn shared_light_subpaths_keep_the_reference_mean() {
    let gpu = common::gpu();
    let backend = gpu.context.trace_backends()[0];
    for (scene_name, resolution, spp) in [("cornell-box", 64, 64), ("ajar", 128, 64)] {
        let scene = common::load_scene(scene_name);
        let reference = common::reference(scene_name, resolution, 8);
        let mut own = None;
        for share in [1, 2, 4] {
            let settings = RenderSettings {
                integrator: IntegratorKind::Bdpt,
                bdpt_light_share: share,
                ..RenderSettings::new(resolution, resolution, spp, 8, backend)
            };
            let metrics = metrics::compare(&common::render(&gpu.context, &scene, &settings), &reference).unwrap();
            eprintln!("{scene_name} {resolution} d8 {spp} spp, share {share}: {metrics:?}");
            common::assert_means_within(&metrics, 0.01, &format!("{scene_name}, share {share}"));
            let own = *own.get_or_insert(metrics.rel_mse);
            assert!(
                metrics.rel_mse <= 2.0 * own,
                "{scene_name}, share {share}: relMSE {} over twice a light subpath each's {own}",
                metrics.rel_mse
            );
        }
    }
    gpu.finish();
}

/// Tiles that split groups of pixels sharing a light subpath: each tile traces the group's
/// light subpath where the group's first pixel lies elsewhere, and only that first pixel's
/// tile splats it, so the tiles' films add up to the whole render's bit for bit. The tiles
/// cut through groups (columns 8 apart; rows too with four a group) and through the pixels
/// of one batch (a few path slots, so that a group's camera paths also fall into two batches).
#[test]
fn tiles_that_split_groups_of_pixels_add_up_to_the_whole_render_bit_for_bit() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("cornell-box");
    let (width, height) = (26, 19);
    for share in [2, 4] {
        for path_slots in [None, Some(100)] {
            let settings = RenderSettings {
                integrator: IntegratorKind::Bdpt,
                bdpt_light_share: share,
                path_slots,
                ..RenderSettings::new(width, height, 3, 5, context.trace_backends()[0])
            };
            let sums = |crop: Option<Crop>| {
                let mut renderer = Renderer::new(
                    context,
                    &scene,
                    &RenderSettings {
                        crop,
                        ..settings.clone()
                    },
                )
                .unwrap();
                renderer.render().unwrap();
                renderer.film().read_sums(context).unwrap()
            };
            let whole = sums(None);
            for (first, second) in [
                (
                    Crop {
                        x: 0,
                        y: 0,
                        width: 12,
                        height,
                    },
                    Crop {
                        x: 12,
                        y: 0,
                        width: 14,
                        height,
                    },
                ),
                (
                    Crop {
                        x: 0,
                        y: 0,
                        width,
                        height: 12,
                    },
                    Crop {
                        x: 0,
                        y: 12,
                        width,
                        height: 7,
                    },
                ),
            ] {
                let parts: Vec<u64> = sums(Some(first))
                    .iter()
                    .zip(sums(Some(second)))
                    .map(|(a, b)| a + b)
                    .collect();
                let differing = parts.iter().zip(&whole).filter(|(a, b)| a != b).count();
                assert_eq!(
                    differing, 0,
                    "share {share}, {path_slots:?} slots, {first:?} and {second:?}"
                );
            }
        }
    }
    gpu.finish();
}

#[test]
fn splats_of_lights_close_to_a_surface_keep_the_reference_mean() {
    // cornell-many-lights: 1,024 lights 5 mm under the ceiling, which the camera sees at a
    // grazing angle. Directly lit (depth 2), most of the image is light vertices on the ceiling
    // splatted to the camera past the lights' edges. Shadow segments offset along the normal
    // moved sideways by an epsilon, and splats came out 0.6% dark; on the true segment, 0.1-0.2%
    // (the reference's and this render's own noise).
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-many-lights");
    let reference = common::reference("cornell-many-lights", 128, 2);
    let settings = RenderSettings {
        integrator: IntegratorKind::Bdpt,
        ..RenderSettings::new(128, 128, 64, 2, gpu.context.trace_backends()[0])
    };
    let c = metrics::compare(&common::render(&gpu.context, &scene, &settings), &reference).unwrap();
    eprintln!("cornell-many-lights 128 d2 64 spp, bdpt: {c:?}");
    common::assert_means_within(&c, 0.004, "bdpt");
    gpu.finish();
}

/// A point light's caustic: the floor under a mirror is lit by the light and, through the mirror,
/// by its image, exactly (`common::point_light_under_a_mirror_scene`). Light subpaths reach the
/// image's share from the light's end; the path tracer cannot reach it from either end, and must
/// give the light's share alone. (Random scenes with a punctual light and a mirror or glass are
/// brighter under BDPT than under Mitsuba's path tracer by that light: tools/mitsuba-check.sh.)
#[test]
fn a_point_light_seen_in_a_mirror_lights_the_floor_as_its_image_would() {
    let exact: f64 = common::mirrored_floor_radiance(32, true).iter().flatten().sum();
    let direct: f64 = common::mirrored_floor_radiance(32, false).iter().flatten().sum();
    assert!(
        exact / direct > 1.1,
        "the mirror adds {}x: too little to tell apart",
        exact / direct
    );
    let scene = common::point_light_under_a_mirror_scene();
    let base = RenderSettings::new(32, 32, 1024, 3, wavetrace::gpu::TraceBackend::Pipeline);
    let integrators = [IntegratorKind::Wavefront, IntegratorKind::Bdpt];
    for (what, image) in common::render_each_named(&scene, &base, &integrators) {
        let light_traced = what.starts_with("Bdpt");
        let (mean, furthest_block) = common::mirrored_floor_ratios(&image, light_traced);
        eprintln!("{what}: mean ratio {mean:.4}, furthest 8 x 8 block {furthest_block:.4}");
        assert!((mean - 1.0).abs() < 0.01, "{what}: mean {mean} of the exact image's");
        assert!(
            (furthest_block - 1.0).abs() < 0.02,
            "{what}: a block at {furthest_block}"
        );
    }
}

/// A one-sided emitter seen from behind lights nothing the camera sees: its back face lies in its
/// own plane, which no emission reaches, and nothing else is there. Next-event estimation from a
/// point on the back face sampled points of the same light; its shadow origin, offset off the
/// surface, was in front of the light, and a segment from there back into the plane counted a
/// cosine of epsilon over the distance, which near the point blew up (values up to 67 where the
/// image is black; a random scene of tools/mitsuba-check.sh came out 33% too bright).
#[test]
fn an_emitter_seen_from_behind_lights_nothing_in_its_own_plane() {
    // Counter-clockwise seen from -Z: it emits away from the camera on +Z.
    let corners = [
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
    ];
    let camera = glam::Mat4::from_translation(Vec3::new(0.2, 0.1, 1.5));
    let scene = common::quad_emitter_scene("an emitter from behind", corners, Vec3::splat(5.0), camera, 1.0);
    for depth in [2, 8] {
        let base = RenderSettings::new(32, 32, 64, depth, wavetrace::gpu::TraceBackend::Pipeline);
        for (what, image) in common::render_each_named(&scene, &base, &common::PATH_INTEGRATORS) {
            let lit = image.pixels.iter().filter(|p| p.iter().any(|&v| v != 0.0)).count();
            let brightest = image.pixels.iter().flatten().fold(0.0f32, |a, &b| a.max(b));
            assert_eq!(lit, 0, "{what}, depth {depth}: {lit} pixels lit, up to {brightest}");
        }
    }
}

#[test]
fn splats_and_next_event_estimation_agree_on_normal_maps() {
    // all-features lit by its spot alone, so that both strategies see every surface with
    // little noise: light vertices splatted to the camera (2, 1) against next-event estimation
    // (1, 2), paths of two segments. The textures' filter width took its slant from the
    // segment that reached a point, so a light vertex read the floor's normal map at another
    // level than a camera vertex at the same point: the splats were 3-6% dark. Measured since,
    // three seeds: within 0.4%.
    let gpu = common::gpu();
    let mut scene = common::load_scene("all-features");
    scene.lights.retain(|light| light.name == "spot");
    for material in &mut scene.materials {
        material.emission = Vec3::ZERO;
        material.emissive_texture = None;
    }
    assert_eq!(scene.lights.len(), 1, "the scene's spot light");
    let backend = gpu.context.trace_backends()[0];
    let strategy = |s, t| {
        let settings = RenderSettings {
            integrator: IntegratorKind::Bdpt,
            strategy: Some((s, t)),
            ..RenderSettings::new(48, 48, 1024, 2, backend)
        };
        common::render(&gpu.context, &scene, &settings)
    };
    let c = metrics::compare(&strategy(2, 1), &strategy(1, 2)).unwrap();
    eprintln!("all-features lit by its spot, 48 d2 1024 spp, splats against next-event estimation: {c:?}");
    common::assert_means_within(&c, 0.012, "splats");
    gpu.finish();
}

#[test]
fn every_gltf_material_feature_gives_the_path_tracers_mean() {
    // Normal maps, textures, rough glass in a volume, alpha, punctual lights: a vertex must be
    // the same surface whichever subpath reaches it. With the shading frame chosen by wo and
    // texture filtering by segment length, BDPT was 2.2% darker than the path tracer here
    // (the floor's normal map); measured 0.5-0.8% at 256-1024 spp since, and 0.1% here once
    // the textures' filter took its slant from the camera (the test above).
    let gpu = common::gpu();
    let scene = common::load_scene("all-features");
    let backend = gpu.context.trace_backends()[0];
    let base = RenderSettings::new(64, 64, 256, 6, backend);
    let (path_traced, bdpt) = path_traced_and_bdpt(&gpu.context, &scene, &base);
    let c = metrics::compare(&bdpt, &path_traced).unwrap();
    eprintln!("all-features 64 d6 256 spp, bdpt against the path tracer: {c:?}");
    assert_eq!(c.non_finite_pixels, 0);
    common::assert_means_within(&c, 0.015, "bdpt");
    gpu.finish();
}

/// Per pixel, the path tracer's light of paths of exactly `length` segments: its image at that
/// depth less its image at one segment fewer (same samples, so most noise cancels).
fn path_tracer_length(
    context: &wavetrace::gpu::Context,
    scene: &Scene,
    size: u32,
    spp: u32,
    length: u32,
    backend: wavetrace::gpu::TraceBackend,
) -> Vec<f64> {
    let at = |depth| common::render(context, scene, &RenderSettings::new(size, size, spp, depth, backend));
    let longer = at(length);
    let shorter = (length > 1).then(|| at(length - 1));
    (0..longer.pixels.len())
        .map(|i| {
            let l: f64 = longer.pixels[i].iter().map(|&v| f64::from(v)).sum();
            let s: f64 = shorter
                .as_ref()
                .map_or(0.0, |s| s.pixels[i].iter().map(|&v| f64::from(v)).sum());
            l - s
        })
        .collect()
}

/// Means of `block` x `block` pixel blocks of a per-pixel sum.
fn block_means(values: &[f64], size: u32, block: u32) -> Vec<f64> {
    let blocks = size / block;
    let mut means = vec![0.0; (blocks * blocks) as usize];
    for y in 0..blocks * block {
        for x in 0..blocks * block {
            means[((y / block) * blocks + x / block) as usize] +=
                values[(y * size + x) as usize] / f64::from(block * block);
        }
    }
    means
}

#[test]
fn every_strategy_alone_converges_to_the_light_of_its_path_length() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let backend = gpu.context.trace_backends()[0];
    let (size, depth) = (32, 3);
    for length in 1..=depth {
        let expected = path_tracer_length(&gpu.context, &scene, size, 1024, length, backend);
        let expected_blocks = block_means(&expected, size, 16);
        let expected_mean: f64 = expected.iter().sum::<f64>() / expected.len() as f64;
        // Strategy (1, 1), the light point seen by the camera, is not used: paths of one
        // segment come from (0, 2) alone.
        let strategies: Vec<(u32, u32)> = if length == 1 {
            vec![(0, 2)]
        } else {
            (0..=length).map(|s| (s, length + 1 - s)).collect()
        };
        // Strategies that use a light subpath (s >= 2) also with each light subpath shared by
        // two camera subpaths: a splat then stands for two camera paths' share of the image.
        let runs = strategies
            .iter()
            .flat_map(|&(s, t)| [(s, t, 1)].into_iter().chain((s >= 2).then_some((s, t, 2))));
        for (s, t, share) in runs {
            // A camera subpath that must find the small light by itself (s = 0) is by far the
            // noisiest strategy: it gets four times the samples.
            let spp = if s == 0 { 4096 } else { 1024 };
            let settings = RenderSettings {
                integrator: IntegratorKind::Bdpt,
                strategy: Some((s, t)),
                bdpt_light_share: share,
                ..RenderSettings::new(size, size, spp, depth, backend)
            };
            let image = common::render(&gpu.context, &scene, &settings);
            let sums: Vec<f64> = image
                .pixels
                .iter()
                .map(|p| p.iter().map(|&v| f64::from(v)).sum())
                .collect();
            let mean: f64 = sums.iter().sum::<f64>() / sums.len() as f64;
            let blocks = block_means(&sums, size, 16);
            let worst = blocks
                .iter()
                .zip(&expected_blocks)
                .map(|(b, e)| (b - e).abs() / expected_mean)
                .fold(0.0, f64::max);
            eprintln!("length {length} strategy ({s}, {t}), share {share}: mean {mean:.5} vs {expected_mean:.5}, worst 16x16 block off by {worst:.4} of the mean");
            assert!(
                (mean / expected_mean - 1.0).abs() < 0.03,
                "strategy ({s}, {t}), share {share}: mean {mean} against {expected_mean}"
            );
            assert!(
                worst < 0.1,
                "strategy ({s}, {t}), share {share}: a 16x16 block off by {worst} of the mean"
            );
        }
    }
    gpu.finish();
}

fn visible(triangles: &[[Vec3; 3]], from: Vec3, to: Vec3) -> bool {
    let distance = (to - from).length();
    let direction = (to - from) / distance;
    let t_max = f64::from(distance * (1.0 - 1e-4));
    !triangles
        .iter()
        .any(|&v| common::intersect(from, direction, v).is_some_and(|t| t > 0.0 && t < t_max))
}

/// Any orthonormal frame about n: the BSDF is isotropic.
fn local(v: Vec3, n: Vec3) -> Vec3 {
    let t = n.any_orthonormal_vector();
    let b = n.cross(t);
    Vec3::new(v.dot(t), v.dot(b), v.dot(n))
}

/// What one stored light vertex adds to the image when the camera sees it (unweighted), and
/// where, following the reference conventions rather than the shader: the adjoint BSDF
/// towards the camera over the squared distance, times the camera's density of that direction.
fn cpu_splat(v: &LightVertex, camera: &RenderCamera, size: u32) -> Option<(usize, Vec3, Vec3)> {
    let position = v.position;
    let (image, cos_camera) = camera.project(position, size, size)?;
    let to_camera = camera.origin - position;
    let distance2 = to_camera.length_squared();
    let w = to_camera / distance2.sqrt();
    let bsdf = Bsdf {
        base_color: v.base_color,
        metallic: v.metallic,
        specular_color: v.specular_color,
        specular: v.specular,
        alpha: v.alpha,
        transmission: v.transmission,
        ior: v.ior,
        clearcoat: v.clearcoat,
        coat_alpha: v.coat_alpha,
        // It rides packed in the flags.
        coat_normal: unpack_unit_vector(v.flags >> LIGHT_VERTEX_COAT_NORMAL_SHIFT),
    };
    let (wo, wi) = (local(v.wo, v.shading), local(w, v.shading));
    let below = w.dot(v.facing) < 0.0;
    if (wi.z < 0.0) != below {
        return None;
    }
    let front = v.flags & LIGHT_VERTEX_FRONT != 0;
    let (f, _) = bsdf.eval(wo, wi, front);
    let eta = if front { v.ior } else { 1.0 / v.ior };
    let refraction = if below { eta * eta } else { 1.0 };
    let shading = wo.z.abs() * w.dot(v.facing).abs() / (v.wo.dot(v.facing).abs() * wi.z.abs());
    let contribution = v.throughput * f * (refraction * shading) * camera.direction_pdf(cos_camera) / distance2;
    let pixel = (image.y as u32).min(size - 1) * size + (image.x as u32).min(size - 1);
    let offset = if w.dot(v.facing) < 0.0 { -v.facing } else { v.facing };
    Some((pixel as usize, contribution, position + offset * v.epsilon))
}

#[test]
fn splats_equal_a_cpu_splat_of_the_same_light_vertices() {
    let gpu = common::gpu();
    // Both layouts of stored light vertices: without glossy lobes, and with (the glass, and
    // coats whose normal the flags carry); light subpaths of their own, and shared by two camera
    // subpaths.
    for (name, coated) in [("cornell-box", false), ("cornell-glass", false), ("cornell-box", true)] {
        for share in [1, 2] {
            splats_equal_a_cpu_splat(&gpu, name, share, coated);
        }
    }
    gpu.finish();
}

fn splats_equal_a_cpu_splat(gpu: &common::TestGpu, name: &str, share: u32, coated: bool) {
    let mut scene = common::load_scene(name);
    if coated {
        for material in &mut scene.materials {
            material.clearcoat = 0.8;
            material.clearcoat_roughness = 0.3;
        }
    }
    let triangles = scene.world_triangles();
    let (size, depth) = (24, 4);
    let (camera, _) = RenderCamera::for_scene(&scene, size, size);
    let camera_paths = size * size;
    // Each splat stands for the camera paths that share its light subpath.
    let scale = 1.0 / bdpt::light_subpath_ratio(share, size, size);
    for s in 2..=depth {
        let settings = RenderSettings {
            integrator: IntegratorKind::Bdpt,
            strategy: Some((s, 1)),
            seed: 7,
            bdpt_light_share: share,
            ..RenderSettings::new(size, size, 1, depth, gpu.context.trace_backends()[0])
        };
        let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
        let image = renderer.render().unwrap();
        let bdpt: &Bdpt = renderer.integrator().as_any().downcast_ref().unwrap();
        let (vertices, counts) = bdpt.light_vertices(&gpu.context, depth, &scene.materials).unwrap();
        let mut expected = vec![Vec3::ZERO; (size * size) as usize];
        let mut splats = 0;
        // One batch of the whole image: slot i holds camera path i's light subpath, or none
        // where its pixel's group starts at another pixel; vertex s - 2 has s - 1 segments.
        for (slot, &count) in counts.iter().enumerate().take(camera_paths as usize) {
            let pixel = tiled_pixel(size, Crop::whole(size, size), TILE_SIZE, slot as u32);
            let x = pixel % size;
            assert!(
                count == 0 || share == 1 || x & LIGHT_SHARE_APART == 0,
                "{name}: the slot of pixel {pixel} traced a light subpath its group's first pixel traces"
            );
            let index = (s - 2) as usize;
            let v = &vertices[slot * depth as usize + index];
            if index >= count as usize || v.flags & LIGHT_VERTEX_CONNECTABLE == 0 {
                continue;
            }
            if let Some((pixel, contribution, from)) = cpu_splat(v, &camera, size) {
                if visible(&triangles, from, camera.origin) {
                    expected[pixel] += contribution * scale;
                    splats += 1;
                }
            }
        }
        let total_gpu: f64 = image.pixels.iter().flatten().map(|&v| f64::from(v)).sum();
        let total_cpu: f64 = expected.iter().map(|v| f64::from(v.x + v.y + v.z)).sum();
        let mut differing = 0;
        for (gpu_pixel, cpu_pixel) in image.pixels.iter().zip(&expected) {
            let g = Vec3::from_array(*gpu_pixel);
            if (g - *cpu_pixel).abs().max_element() > 1e-4 * cpu_pixel.max_element().max(1e-2) {
                differing += 1;
            }
        }
        eprintln!(
            "{name}, s = {s}, share {share}: {splats} splats, GPU total {total_gpu:.6}, CPU total {total_cpu:.6}, {differing} pixels differ"
        );
        assert!(splats > 100, "{name}: too few splats to test: {splats}");
        assert!((total_gpu / total_cpu - 1.0).abs() < 1e-3, "{name}");
        // A splat whose visibility lies within rounding of an edge may go either way.
        assert!(
            differing <= (size * size / 100) as usize,
            "{name}: {differing} pixels differ"
        );
    }
}

#[test]
fn float_splat_films_give_the_fixed_point_films_image() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-glass");
    let base = RenderSettings {
        integrator: IntegratorKind::Bdpt,
        ..RenderSettings::new(32, 32, 4, 6, gpu.context.trace_backends()[0])
    };
    let fixed = common::render(&gpu.context, &scene, &base);
    assert_eq!(
        fixed,
        common::render(&gpu.context, &scene, &base),
        "deterministic per seed"
    );
    for splat_film in [SplatFilm::FloatAtomic, SplatFilm::FloatCas] {
        let image = common::render(
            &gpu.context,
            &scene,
            &RenderSettings {
                splat_film,
                ..base.clone()
            },
        );
        let c = metrics::compare(&image, &fixed).unwrap();
        eprintln!("{splat_film:?} against fixed: {c:?}");
        assert!(c.rel_mse < 1e-8, "{splat_film:?}: {c:?}");
    }
    gpu.finish();
}

/// Sorting the rays before extend and connect (the default on large scenes) changes only the
/// order in which subpaths are traced: the same bits with the sort on and off, on both backends
/// and with few slots (many batches, the queues refilled often), and the sorts ran.
#[test]
fn sorted_rays_give_the_same_bits() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-glass");
    let mut images = Vec::new();
    for &backend in gpu.context.trace_backends() {
        for path_slots in [None, Some(96)] {
            for sort_rays in [false, true] {
                let settings = RenderSettings {
                    integrator: IntegratorKind::Bdpt,
                    sort_rays: Some(sort_rays),
                    path_slots,
                    ..RenderSettings::new(32, 32, 4, 6, backend)
                };
                let (image, stats) = common::render_with_stats(&gpu.context, &scene, &settings);
                assert_eq!(stats.sort_rays, sort_rays);
                for sort in ["ray_sort_scatter", "shadow_sort_scatter"] {
                    let launches = stats.kernels.iter().find(|k| k.name == sort).map_or(0, |k| k.launches);
                    assert_eq!(launches > 0, sort_rays, "{sort}: {launches} launches");
                }
                images.push((format!("{backend:?}, {path_slots:?} slots, sort {sort_rays}"), image));
            }
        }
    }
    for (name, image) in &images {
        assert_eq!(image, &images[0].1, "{name} against {}", images[0].0);
    }
    gpu.finish();
}

#[test]
fn stats_count_every_strategy_and_a_strategy_that_cannot_be_is_refused() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let depth = 5;
    let settings = RenderSettings {
        integrator: IntegratorKind::Bdpt,
        ..RenderSettings::new(16, 16, 2, depth, gpu.context.trace_backends()[0])
    };
    let (_, stats) = Renderer::new(&gpu.context, &scene, &settings)
        .unwrap()
        .render_with_progress(|_| {})
        .unwrap();
    let bdpt = stats.bdpt.expect("bdpt stats");
    // Every strategy with a shadow path: s >= 1, t >= 1, s + t - 1 <= depth, (1, 1) unused.
    for s in 1..=depth {
        for t in 1..=depth + 1 - s {
            let used = bdpt
                .strategies
                .iter()
                .any(|c| c.s == s && c.t == t && c.shadow_rays > 0);
            assert_eq!(used, (s, t) != (1, 1), "strategy ({s}, {t})");
        }
    }
    let queued: u64 = bdpt.strategies.iter().map(|c| c.shadow_rays).sum();
    assert_eq!(queued, bdpt.next_event + bdpt.connections + bdpt.splats);
    assert_eq!(queued, stats.shadow_rays, "every shadow path traced is counted once");
    assert_eq!(bdpt.light_subpath_rays + bdpt.camera_subpath_rays, stats.extension_rays);
    for strategy in [(0, 1), (2, 0), (3, 4)] {
        let wrong = RenderSettings {
            strategy: Some(strategy),
            ..settings.clone()
        };
        let error = Renderer::new(&gpu.context, &scene, &wrong).err().expect("refused");
        assert!(error.to_string().contains("strategy"), "{error}");
    }
    gpu.finish();
}

#[test]
fn coat_normals_pack_into_thirty_bits_alike_on_cpu_and_gpu() {
    // Unit vectors of every octant, the poles and the axes among them, an awkward count.
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut normals = vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    while normals.len() < 1031 {
        let v = Vec3::new(
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
            rng.random_range(-1.0..1.0),
        );
        if v.length_squared() > 1e-4 && v.length_squared() <= 1.0 {
            normals.push(v.normalize());
        }
    }
    let gpu = common::gpu();
    let context = &gpu.context;
    let pipeline = wavetrace::gpu::ComputePipeline::<PackedNormalProbePush>::new(
        context,
        wavetrace::gpu::shaders::ids::DIAGNOSTICS_PACKED_NORMAL_PROBE,
        &[],
    )
    .unwrap();
    let padded: Vec<glam::Vec4> = normals.iter().map(|n| n.extend(0.0)).collect();
    let input =
        wavetrace::gpu::Buffer::from_slice(context, "normals", &padded, wavetrace::gpu::BufferUsage::STORAGE).unwrap();
    let output = wavetrace::gpu::Buffer::gpu_storage(
        context,
        "packed normals",
        (normals.len() * std::mem::size_of::<PackedNormalProbeResult>()) as u64,
    )
    .unwrap();
    let push = PackedNormalProbePush {
        normals: input.address(),
        results: output.address(),
        count: normals.len() as u32,
        pad0: 0,
    };
    common::run_probe(context, &pipeline, &push, normals.len() as u32);
    let results: Vec<PackedNormalProbeResult> = output.read_back(context, normals.len()).unwrap();
    for (n, r) in normals.iter().zip(&results) {
        let bits = pack_unit_vector(*n);
        assert!(bits < 1 << 30, "{n}: {bits:#x} spills past 30 bits");
        // A step either way where a GPU rounds a division differently.
        let steps = |b: u32| [b & 0x7FFF, b >> 15];
        let [cx, cy] = steps(bits);
        let [gx, gy] = steps(r.bits);
        assert!(
            cx.abs_diff(gx) <= 1 && cy.abs_diff(gy) <= 1,
            "{n}: CPU {bits:#x}, GPU {:#x}",
            r.bits
        );
        let unpacked = unpack_unit_vector(bits);
        assert!((*n - unpacked).length() < 1.5e-4, "{n} comes back as {unpacked}");
        if n.abs().max_element() == 1.0 {
            assert_eq!(unpacked, *n, "an axis comes back exactly");
        }
        assert!(
            (unpack_unit_vector(r.bits) - r.unpacked).length() < 1e-6,
            "{n}: GPU unpacks {}",
            r.unpacked
        );
        // What rides below the vector, the vertex's flags, is left alone.
        assert_eq!(
            unpack_unit_vector(bits << LIGHT_VERTEX_COAT_NORMAL_SHIFT >> LIGHT_VERTEX_COAT_NORMAL_SHIFT),
            unpacked
        );
    }
    gpu.finish();
}
