//! The wavefront integrator, first stage (emitters seen directly, max depth 1): exact on the
//! furnace box, equal to a CPU twin on the Cornell box, and identical across trace backends.

use crate::common;

use glam::{Vec2, Vec3};
use wavetrace::film::RgbImage;
use wavetrace::gpu::{Context, TraceBackend};
use wavetrace::integrator::Renderer;
use wavetrace::integrator::{wavefront::path_state, IntegratorKind, RenderSettings, Schedule};
use wavetrace::sampler::path_number;
use wavetrace::scene::{RenderCamera, Scene};

fn settings(width: u32, height: u32, spp: u32, backend: TraceBackend) -> RenderSettings {
    RenderSettings {
        seed: 7,
        ..RenderSettings::new(width, height, spp, 1, backend)
    }
}

/// The same estimate on the CPU: the same camera rays (same counter-based jitter), the
/// nearest triangle by brute force, its emission if seen from the front. Also how many rays
/// end on an instance whose material emits (from either side): at depth 1 only those have
/// anything to shade.
fn cpu_depth_one(scene: &Scene, settings: &RenderSettings) -> (RgbImage, u64) {
    let (camera, _) = RenderCamera::for_scene(scene, settings.width, settings.height);
    let emitter_hits = std::cell::Cell::new(0u64);
    let image = RgbImage::from_fn(settings.width as usize, settings.height as usize, |x, y| {
        let path = (y * settings.width as usize + x) as u32;
        let mut sum = Vec3::ZERO;
        for sample in 0..settings.spp {
            let jitter = Vec2::new(
                path_number(settings.sampler, settings.seed, path, sample, 0, 0),
                path_number(settings.sampler, settings.seed, path, sample, 0, 1),
            );
            let (origin, direction) =
                camera.ray(Vec2::new(x as f32, y as f32), jitter, settings.width, settings.height);
            let mut best: Option<(f32, Vec3, bool)> = None;
            for instance in &scene.instances {
                let mesh = &scene.meshes[instance.mesh as usize];
                for tri in mesh.indices.chunks_exact(3) {
                    let [a, b, c] = [0, 1, 2].map(|k| {
                        instance
                            .world_from_object
                            .transform_point3(mesh.positions[tri[k] as usize])
                    });
                    let Some(t) = common::intersect(origin, direction, [a, b, c]) else {
                        continue;
                    };
                    let t = t as f32;
                    if t <= 0.0 || best.is_some_and(|(bt, _, _)| t >= bt) {
                        continue;
                    }
                    let mut normal = (b - a).cross(c - a);
                    if instance.flips_winding() {
                        normal = -normal;
                    }
                    let material = &scene.materials[mesh.material as usize];
                    let seen = if normal.dot(direction) < 0.0 {
                        material.emission
                    } else {
                        Vec3::ZERO
                    };
                    best = Some((t, seen, material.is_emissive()));
                }
            }
            sum += best.map_or(Vec3::ZERO, |(_, e, _)| e);
            emitter_hits.set(emitter_hits.get() + u64::from(best.is_some_and(|(_, _, emits)| emits)));
        }
        (sum / settings.spp as f32).to_array()
    });
    (image, emitter_hits.get())
}

fn backends(context: &Context) -> Vec<TraceBackend> {
    context.trace_backends().to_vec()
}

#[test]
fn the_furnace_box_seen_directly_is_exactly_one() {
    let gpu = common::gpu();
    let scene = common::load_scene("furnace-box");
    for backend in backends(&gpu.context) {
        let image = common::render(&gpu.context, &scene, &settings(64, 64, 4, backend));
        assert!(!image.has_non_finite());
        let off = image
            .pixels
            .iter()
            .flatten()
            .filter(|&&v| (v - 1.0).abs() > 1e-6)
            .count();
        assert_eq!(
            off, 0,
            "{backend:?}: {off} channel values differ from (1 - 0.5^1) / (1 - 0.5) = 1"
        );
    }
    gpu.finish();
}

#[test]
fn cornell_box_depth_one_equals_the_cpu_twin_on_both_backends() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let settings_query = settings(64, 56, 3, TraceBackend::Query);
    let (want, emitter_hits) = cpu_depth_one(&scene, &settings_query);
    let lit = want.pixels.iter().filter(|p| p[0] > 0.0).count();
    assert!(
        lit > 10,
        "the light must cover some pixels for this test to say anything: {lit}"
    );
    let mut images = Vec::new();
    for backend in backends(&gpu.context) {
        let (image, stats) = common::render_with_stats(
            &gpu.context,
            &scene,
            &RenderSettings {
                backend,
                ..settings_query.clone()
            },
        );
        // A last segment that ends on a surface which does not emit has nothing to shade, so
        // it ends where extend finds it (the same rays as the CPU's, up to grazing ones).
        let shaded = stats
            .kernels
            .iter()
            .find(|k| k.name == "shade_surface")
            .and_then(|k| k.items);
        assert!(
            shaded.is_some_and(|n| n.abs_diff(emitter_hits) <= 3),
            "{backend:?}: {shaded:?} paths shaded, {emitter_hits} rays end on the light"
        );
        // Rays that graze the light's edge may land either side in the two intersectors.
        // Equal up to float rounding (the GPU scales the sum by 1/spp, the CPU divides).
        let close = |a: &[f32; 3], b: &[f32; 3]| (0..3).all(|c| (a[c] - b[c]).abs() <= 1e-5 * b[c].abs().max(1.0));
        let differing = image
            .pixels
            .iter()
            .zip(&want.pixels)
            .filter(|(a, b)| !close(a, b))
            .count();
        assert!(
            differing <= 3,
            "{backend:?}: {differing} pixels differ from the CPU twin"
        );
        images.push(image);
    }
    if let [a, b] = &images[..] {
        assert_eq!(a, b, "the two trace backends must give the same image");
    }
    gpu.finish();
}

#[test]
fn the_furnace_box_matches_its_analytic_value_at_every_depth() {
    // Walls of albedo 0.5 emitting 1: every path gathers exactly sum_{k<d} 0.5^k.
    let gpu = common::gpu();
    let scene = common::load_scene("furnace-box");
    for backend in backends(&gpu.context) {
        for depth in [1u32, 2, 8] {
            let want = (1.0 - 0.5f64.powi(depth as i32)) / (1.0 - 0.5);
            let image = common::render(
                &gpu.context,
                &scene,
                &RenderSettings {
                    max_depth: depth,
                    ..settings(64, 64, 4, backend)
                },
            );
            for mean in image.mean() {
                assert!(
                    (mean / want - 1.0).abs() < 0.005,
                    "{backend:?} depth {depth}: mean {mean}, want {want}"
                );
            }
        }
    }
    gpu.finish();
}

#[test]
fn the_same_seed_gives_the_same_image() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let backend = backends(&gpu.context)[0];
    let a = common::render(&gpu.context, &scene, &settings(32, 32, 2, backend));
    let b = common::render(&gpu.context, &scene, &settings(32, 32, 2, backend));
    assert_eq!(a, b);
    let deep = RenderSettings {
        max_depth: 8,
        ..settings(32, 32, 2, backend)
    };
    let deep_a = common::render(&gpu.context, &scene, &deep);
    assert_eq!(deep_a, common::render(&gpu.context, &scene, &deep));
    assert!(deep_a.mean()[0] > a.mean()[0], "indirect light adds to the direct view");
    let error = Renderer::new(&gpu.context, &scene, &RenderSettings { spp: 0, ..deep })
        .err()
        .expect("0 spp is refused");
    assert!(error.to_string().contains("must be positive"), "{error}");
    gpu.finish();
}

#[test]
fn a_scene_without_emitters_renders_black_and_one_without_camera_renders_framed() {
    let gpu = common::gpu();
    let backend = backends(&gpu.context)[0];
    let mut dark = common::load_scene("cornell-box");
    for material in &mut dark.materials {
        material.emission = Vec3::ZERO;
    }
    let image = common::render(
        &gpu.context,
        &dark,
        &RenderSettings {
            max_depth: 8,
            ..settings(16, 16, 2, backend)
        },
    );
    assert!(image.pixels.iter().flatten().all(|&v| v == 0.0));

    let mut framed = common::load_scene("cornell-box");
    framed.camera = None;
    let image = common::render(
        &gpu.context,
        &framed,
        &RenderSettings {
            max_depth: 2,
            ..settings(32, 32, 2, backend)
        },
    );
    // Framed from outside the open front: the lit interior shows, and rays past the box miss.
    assert!(image.mean()[0] > 0.0 && !image.has_non_finite());
    assert!(image.pixels.contains(&[0.0; 3]), "the frame leaves room around the box");
    gpu.finish();
}

#[test]
fn the_megakernel_traces_the_same_rays_and_makes_the_same_image() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-glass");
    for backend in backends(&gpu.context) {
        let wavefront = RenderSettings {
            max_depth: 8,
            ..settings(24, 20, 3, backend)
        };
        let megakernel = RenderSettings {
            integrator: IntegratorKind::Megakernel,
            ..wavefront.clone()
        };
        let (a, a_stats) = Renderer::new(&gpu.context, &scene, &wavefront)
            .unwrap()
            .render_with_progress(|_| {})
            .unwrap();
        let (b, b_stats) = Renderer::new(&gpu.context, &scene, &megakernel)
            .unwrap()
            .render_with_progress(|_| {})
            .unwrap();
        // Equal up to multiply-add contraction, which a driver may do differently in the two
        // kernels (bit for bit on lavapipe); a rounding can rarely send a path elsewhere.
        let c = wavetrace::film::metrics::compare(&b, &a).unwrap();
        assert!(c.rel_mse < 1e-6, "{backend:?}: {c:?}");
        assert!(a_stats.extension_rays > 24 * 20 * 3 && a_stats.shadow_rays > 0);
        let close = |x: u64, y: u64| x.abs_diff(y) as f64 <= 1e-3 * x as f64;
        assert!(
            close(a_stats.extension_rays, b_stats.extension_rays) && close(a_stats.shadow_rays, b_stats.shadow_rays),
            "{backend:?}: rays {} / {} against {} / {}",
            a_stats.extension_rays,
            a_stats.shadow_rays,
            b_stats.extension_rays,
            b_stats.shadow_rays
        );
        assert_eq!(
            (a_stats.bytes_per_path, b_stats.bytes_per_path),
            (path_state::bytes_per_slot(path_state::Sorts::default()), 0)
        );
        assert!(b_stats.kernel_ms("trace_paths").is_some());
    }
    gpu.finish();
}

/// Path slots, schedulers and the material sort change the order of work, never the image:
/// the film sums fixed-point integers. Few slots force many regenerations (compaction, tiles
/// across sample boundaries); the Cycles-style scheduler runs kernels in data-dependent order.
#[test]
fn slots_schedulers_and_sorting_give_the_same_image() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-glass");
    let backend = gpu.context.trace_backends()[0];
    let base = RenderSettings {
        max_depth: 8,
        ..settings(24, 20, 3, backend)
    };
    let (reference, reference_stats) = Renderer::new(&gpu.context, &scene, &base)
        .unwrap()
        .render_with_progress(|_| {})
        .unwrap();
    assert_eq!(
        reference_stats.path_slots,
        24 * 20 * 3,
        "default slots: every camera path at once"
    );
    for schedule in [Schedule::Gpu, Schedule::Cycles] {
        // Shader execution reordering (on by default) moves extend's threads, not its
        // arithmetic: where the device has it (the H100), off gives the same bits.
        for (slots, sort, sort_rays, reorder) in [
            (3, true, false, false),
            (100, false, true, true),
            (333, true, true, false),
            (1440, false, false, false),
        ] {
            let variant = RenderSettings {
                schedule,
                path_slots: Some(slots),
                sort_by_material: sort,
                sort_rays: Some(sort_rays),
                invocation_reorder: reorder,
                ..base.clone()
            };
            let (image, stats) = Renderer::new(&gpu.context, &scene, &variant)
                .unwrap()
                .render_with_progress(|_| {})
                .unwrap();
            assert_eq!(
                image, reference,
                "{schedule:?}, {slots} slots, sorts {sort} {sort_rays}"
            );
            assert_eq!(
                (stats.extension_rays, stats.shadow_rays),
                (reference_stats.extension_rays, reference_stats.shadow_rays)
            );
            // Counts from the GPU: every camera path generated once; lanes never below paths.
            let generate = stats.kernels.iter().find(|k| k.name == "generate").unwrap();
            assert_eq!(generate.items, Some(24 * 20 * 3));
            for kernel in stats.kernels.iter().filter(|k| k.items.is_some()) {
                let share = kernel.active_lane_share.unwrap();
                assert!(share > 0.0 && share <= 1.0, "{}: {share}", kernel.name);
                assert!(kernel.busy_launches.unwrap() <= kernel.launches);
            }
            let extend = stats.kernels.iter().find(|k| k.name == "extend").unwrap();
            assert_eq!(extend.items, Some(stats.extension_rays));
            // After a ray sort the cycles scheduler sorts the shade queue by slot range even
            // without materials; under the GPU's schedule shading keeps extend's order.
            let slot_ranges = sort_rays && schedule == Schedule::Cycles;
            assert_eq!(
                stats.kernels.iter().any(|k| k.name == "sort_count"),
                sort || slot_ranges
            );
            assert_eq!(stats.kernels.iter().any(|k| k.name == "ray_sort_count"), sort_rays);
        }
    }
    gpu.finish();
}

/// Bad settings are refused with the setting named, before any GPU work.
#[test]
fn out_of_range_settings_are_refused() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let backend = gpu.context.trace_backends()[0];
    for (settings, expected) in [
        (
            RenderSettings {
                path_slots: Some(0),
                ..settings(8, 8, 1, backend)
            },
            "path slots",
        ),
        (
            RenderSettings {
                max_depth: 256,
                ..settings(8, 8, 1, backend)
            },
            "depth",
        ),
    ] {
        let error = Renderer::new(&gpu.context, &scene, &settings)
            .err()
            .expect("refused")
            .to_string();
        assert!(error.contains(expected), "{error}");
    }
    gpu.finish();
}
