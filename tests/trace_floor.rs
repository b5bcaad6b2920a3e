//! The trace floor (`trace::floor`): extend and connect record exactly the rays a render
//! traces, each tagged with its path, and tracing them again finds what the render found.

use crate::common;

use glam::Vec3;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::{Buffer, BufferUsage};
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::interface::ProbeRay;
use wavetrace::trace::floor::{SoftwareFloor, TraceFloor};
use wavetrace::trace::software_bvh::SoftwareBvh;

#[test]
fn recorded_rays_are_the_rays_the_render_traced_and_trace_again_alike() {
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let triangles = scene.world_triangles();
    for integrator in [IntegratorKind::Wavefront, IntegratorKind::Bdpt] {
        // The path tracer's hits on a path's last segment that cannot emit end unshaded
        // (tests/wavefront.rs checks that); at depth 64 roulette ends every path before then,
        // so here every hit is shaded.
        let max_depth = if integrator == IntegratorKind::Wavefront { 64 } else { 5 };
        let settings = RenderSettings {
            integrator,
            ray_log_capacity: 1 << 16,
            ..RenderSettings::new(24, 24, 4, max_depth, gpu.context.trace_backends()[0])
        };
        let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
        let (_, stats) = renderer.render_with_progress(|_| {}).unwrap();
        let log = renderer.ray_log().unwrap();
        let counts = log.counts(&gpu.context).unwrap();
        assert_eq!(u64::from(counts.extension), stats.extension_rays, "{integrator:?}");
        assert_eq!(u64::from(counts.shadow), stats.shadow_rays, "{integrator:?}");
        assert!(
            counts.extension > 1000 && counts.shadow > 1000,
            "{integrator:?}: {counts:?}"
        );

        // Runs of five rays a thread, every third slot a gap, hold the extension rays in order.
        let extension_rays = log.read(&gpu.context, false, counts.extension).unwrap();
        let mut runs = Vec::new();
        for ray in &extension_rays {
            if runs.len() % 3 == 2 {
                runs.push(ProbeRay { t_max: -1.0, ..*ray });
            }
            runs.push(*ray);
        }
        runs.resize(
            runs.len().div_ceil(5) * 5,
            ProbeRay {
                t_max: -1.0,
                ..extension_rays[0]
            },
        );
        let runs_buffer = Buffer::from_slice(&gpu.context, "runs", &runs, BufferUsage::STORAGE).unwrap();

        let mut found = Vec::new();
        for &backend in gpu.context.trace_backends() {
            let floor = TraceFloor::new(&gpu.context, backend).unwrap();
            let top_level = renderer.top_level_address();
            let extension = floor
                .trace(&gpu.context, top_level, log.rays(false), counts.extension, false)
                .unwrap();
            let shadow = floor
                .trace(&gpu.context, top_level, log.rays(true), counts.shadow, true)
                .unwrap();
            let in_runs = floor
                .trace_runs(&gpu.context, top_level, &runs_buffer, runs.len() as u32 / 5, 5, false)
                .unwrap();
            assert_eq!(
                in_runs.hits, extension.hits,
                "{integrator:?}, {backend:?}: runs of rays a thread"
            );
            found.push((extension.hits, shadow.hits));
        }
        assert!(
            found.windows(2).all(|w| w[0] == w[1]),
            "{integrator:?}: the backends disagree: {found:?}"
        );
        let (extension_hits, blocked) = found[0];

        // The wavefront shades exactly the extension rays that hit (BDPT shades misses too).
        if integrator == IntegratorKind::Wavefront {
            let shaded = stats
                .kernels
                .iter()
                .find(|k| k.name == "shade_surface")
                .unwrap()
                .items
                .unwrap();
            assert_eq!(u64::from(extension_hits), shaded);
        }
        // Tags: the path tracer's camera rays are one a pixel sample, every ray's tag names a
        // pixel, sample and segment of the render, and shadow rays carry their pixel alone.
        // (BDPT's light subpaths share the slots and their packing, so only its count is checked.)
        if integrator == IntegratorKind::Wavefront {
            let pixels = 24 * 24;
            let extension_tags = log.read_tags(&gpu.context, false, counts.extension).unwrap();
            assert_eq!(extension_tags.len(), counts.extension as usize);
            let mut camera_rays = vec![0u32; pixels * 4];
            for tag in &extension_tags {
                let (sample, bounce) = (tag.sample(), tag.bounce());
                assert!(
                    (tag.pixel as usize) < pixels && sample < 4 && bounce < max_depth,
                    "{integrator:?}: {tag:?}"
                );
                if bounce == 0 {
                    camera_rays[tag.pixel as usize * 4 + sample as usize] += 1;
                }
            }
            assert!(camera_rays.iter().all(|&n| n == 1), "camera rays a pixel sample");
            let shadow_tags = log.read_tags(&gpu.context, true, counts.shadow).unwrap();
            assert!(
                shadow_tags
                    .iter()
                    .all(|t| (t.pixel as usize) < pixels && t.sample_and_bounce == u32::MAX),
                "{integrator:?}: shadow tags"
            );
        }
        // Every extension ray hits the closed-behind box but for those leaving by its open front.
        let cpu_hits = extension_rays
            .iter()
            .filter(|r| {
                triangles
                    .iter()
                    .any(|&t| common::intersect(r.origin, r.direction, t).is_some_and(|d| d > 0.0))
            })
            .count();
        assert!(
            (cpu_hits as f64 - f64::from(extension_hits)).abs() <= 1e-3 * extension_rays.len() as f64,
            "{integrator:?}: {extension_hits} hits, the CPU finds {cpu_hits}"
        );
        // Shadow rays are blocked where the CPU finds a triangle before their end.
        let shadow_rays = log.read(&gpu.context, true, counts.shadow).unwrap();
        let cpu_blocked = shadow_rays
            .iter()
            .filter(|r| {
                triangles.iter().any(|&t| {
                    common::intersect(r.origin, r.direction, t)
                        .is_some_and(|d| d > f64::from(r.t_min) && d < f64::from(r.t_max))
                })
            })
            .count();
        assert!(
            (cpu_blocked as f64 - f64::from(blocked)).abs() <= 2e-3 * shadow_rays.len() as f64,
            "{integrator:?}: {blocked} blocked, the CPU finds {cpu_blocked}"
        );
        assert!(blocked > 0, "{integrator:?}: no shadow ray blocked");
    }
    let megakernel = RenderSettings {
        integrator: IntegratorKind::Megakernel,
        ray_log_capacity: 1 << 10,
        ..RenderSettings::new(8, 8, 1, 2, gpu.context.trace_backends()[0])
    };
    let error = Renderer::new(&gpu.context, &scene, &megakernel)
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("megakernel"), "{error}");
    gpu.finish();
}

/// Our own traversal (`trace::software_bvh`, `include/software_bvh.glsl`) against its CPU twin
/// on random triangles and rays of awkward counts: the same nearest triangle at the same
/// distance, and a shadow ray blocked exactly where the twin finds a hit.
#[test]
fn our_own_traversal_finds_what_its_cpu_twin_finds() {
    let gpu = common::gpu();
    for (triangle_count, ray_count, seed) in [
        (1, 33, 1u64),
        (2, 31, 2),
        (33, 1000, 3),
        (1000, 4097, 4),
        (100_007, 4099, 5),
    ] {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut point = || Vec3::new(rng.random(), rng.random(), rng.random());
        let triangles: Vec<[Vec3; 3]> = (0..triangle_count)
            .map(|_| {
                let centre = point() * 20.0;
                let size = 0.2 + 2.0 * point().x;
                std::array::from_fn(|_| centre + (point() - 0.5) * size)
            })
            .collect();
        let rays: Vec<ProbeRay> = (0..ray_count)
            .map(|_| ProbeRay {
                origin: point() * 24.0 - 2.0,
                t_min: 1e-3,
                direction: (point() - 0.5).normalize(),
                t_max: 5.0 + 40.0 * point().x,
            })
            .collect();
        let bvh = SoftwareBvh::build(&triangles).unwrap();
        let floor = SoftwareFloor::new(&gpu.context, &bvh).unwrap();
        let ray_buffer = Buffer::from_slice(&gpu.context, "rays", &rays, BufferUsage::STORAGE).unwrap();
        let results = Buffer::gpu_storage(&gpu.context, "results", 8 * ray_count as u64).unwrap();
        for shadow in [false, true] {
            let traced = floor
                .trace(&gpu.context, &ray_buffer, ray_count, shadow, Some(&results))
                .unwrap();
            let found: Vec<[u32; 2]> = results.read_back(&gpu.context, ray_count as usize).unwrap();
            let mut expected_hits = 0;
            for (ray, &[t_bits, slot]) in rays.iter().zip(&found) {
                let expected = bvh.intersect(ray.origin, ray.direction, ray.t_min, ray.t_max, shadow);
                expected_hits += u32::from(expected.is_some());
                let slot = slot as i32;
                assert_eq!(slot >= 0, expected.is_some(), "{triangle_count} triangles: {ray:?}");
                if let (Some(hit), false) = (expected, shadow) {
                    assert_eq!(
                        bvh.triangle_ids[slot as usize], hit.triangle,
                        "{triangle_count}: {ray:?}"
                    );
                    // The distance is a difference of terms as large as the origin's distance
                    // from the triangle's plane, which a device may round otherwise (NVIDIA
                    // contracts multiply-adds): equal to that rounding.
                    let t = f32::from_bits(t_bits);
                    assert!(
                        (t - hit.t).abs() <= 1e-5 * (hit.t + ray.origin.length()),
                        "{triangle_count}: {t} against {}",
                        hit.t
                    );
                }
            }
            assert_eq!(traced.hits, expected_hits, "{triangle_count} triangles");
            assert!(
                triangle_count < 1000 || expected_hits as usize > ray_count as usize / 20,
                "{triangle_count}: {expected_hits} hits"
            );
        }
    }
    gpu.finish();
}

/// A render's recorded rays traced by our own traversal and by the driver's (or lavapipe's):
/// the same rays hit, but for the few whose hit depends on how each rounds an edge.
#[test]
fn our_own_traversal_finds_the_hits_the_trace_backends_find() {
    let gpu = common::gpu();
    for name in ["cornell-glass", "all-features"] {
        let scene = common::load_scene(name);
        let settings = RenderSettings {
            ray_log_capacity: 1 << 17,
            ..RenderSettings::new(32, 32, 4, 8, gpu.context.trace_backends()[0])
        };
        let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
        renderer.render_with_progress(|_| {}).unwrap();
        let log = renderer.ray_log().unwrap();
        let counts = log.counts(&gpu.context).unwrap();
        assert!(counts.extension < log.capacity() && counts.shadow < log.capacity());
        let bvh = SoftwareBvh::build(&scene.world_triangles()).unwrap();
        let software = SoftwareFloor::new(&gpu.context, &bvh).unwrap();
        for &backend in gpu.context.trace_backends() {
            let floor = TraceFloor::new(&gpu.context, backend).unwrap();
            for (shadow, count) in [(false, counts.extension), (true, counts.shadow)] {
                let ours = software
                    .trace(&gpu.context, log.rays(shadow), count, shadow, None)
                    .unwrap();
                let theirs = floor
                    .trace(
                        &gpu.context,
                        renderer.top_level_address(),
                        log.rays(shadow),
                        count,
                        shadow,
                    )
                    .unwrap();
                assert!(
                    (f64::from(ours.hits) - f64::from(theirs.hits)).abs() <= 1e-3 * f64::from(count),
                    "{name}, {backend:?}, shadow {shadow}: {} hits, the backend {} of {count}",
                    ours.hits,
                    theirs.hits
                );
                let least = if shadow { count / 100 } else { count / 2 };
                assert!(
                    theirs.hits > least,
                    "{name}, shadow {shadow}: {} of {count}",
                    theirs.hits
                );
            }
        }
    }
    gpu.finish();
}

/// A wall of jittered grid triangles, and rays from one point aimed at their shared vertices
/// and at points of their shared edges, where a test that is not watertight (or a box test
/// that rounding can cull) lets some through. The wall is nearly flat and seen from in front
/// of it (no ray meets it at less than 30 degrees, and it leans by at most 7), so that no edge
/// is a silhouette that a ray could graze past.
fn wall_and_rays_at_its_edges(n: usize) -> (Vec<[Vec3; 3]>, Vec<ProbeRay>) {
    let mut rng = SmallRng::seed_from_u64(17);
    let grid: Vec<Vec<Vec3>> = (0..=n)
        .map(|i| {
            (0..=n)
                .map(|j| {
                    let jitter = Vec3::new(rng.random(), rng.random(), rng.random()) - 0.5;
                    Vec3::new(i as f32, j as f32, 5.0) + jitter * Vec3::new(0.6, 0.6, 0.1)
                })
                .collect()
        })
        .collect();
    let mut triangles = Vec::new();
    for i in 0..n {
        for j in 0..n {
            triangles.push([grid[i][j], grid[i + 1][j], grid[i + 1][j + 1]]);
            triangles.push([grid[i][j], grid[i + 1][j + 1], grid[i][j + 1]]);
        }
    }
    let origin = Vec3::new(n as f32 * 0.47, n as f32 * 0.52, 5.0 - n as f32);
    let mut rays = Vec::new();
    for i in 1..n {
        for j in 1..n {
            let corner = grid[i][j];
            for target in [
                corner,
                corner.lerp(grid[i + 1][j + 1], 0.3),
                corner.lerp(grid[i + 1][j], 0.7),
                corner.lerp(grid[i][j + 1], 0.45),
            ] {
                rays.push(ProbeRay {
                    origin,
                    t_min: 0.0,
                    direction: (target - origin).normalize(),
                    t_max: 1e30,
                });
            }
        }
    }
    (triangles, rays)
}

#[test]
fn no_ray_leaks_between_the_triangles_of_a_closed_surface() {
    let gpu = common::gpu();
    let (triangles, rays) = wall_and_rays_at_its_edges(40);
    let bvh = SoftwareBvh::build(&triangles).unwrap();
    for ray in &rays {
        let hit = bvh.intersect(ray.origin, ray.direction, ray.t_min, ray.t_max, false);
        assert!(hit.is_some(), "the CPU twin lets {ray:?} through");
    }
    let floor = SoftwareFloor::new(&gpu.context, &bvh).unwrap();
    let buffer = Buffer::from_slice(&gpu.context, "rays", &rays, BufferUsage::STORAGE).unwrap();
    for shadow in [false, true] {
        let traced = floor
            .trace(&gpu.context, &buffer, rays.len() as u32, shadow, None)
            .unwrap();
        assert_eq!(
            traced.hits as usize,
            rays.len(),
            "shadow {shadow}: rays leak through the wall"
        );
    }
    gpu.finish();
}
