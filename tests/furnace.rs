//! White furnace: a sphere under a uniform environment of radiance 1. A lossless sphere
//! (white Lambertian, white smooth metal, clear smooth glass) disappears: every pixel is 1.
//! A white rough metal loses what single-scattering GGX loses and no more: each pixel is the
//! GGX directional albedo at the angle it sees the sphere under, computed on the CPU.

use crate::common;

use glam::{Vec2, Vec3, Vec4};
use wavetrace::bsdf::ggx_directional_albedo;
use wavetrace::environment::Environment;
use wavetrace::film::RgbImage;
use wavetrace::gpu::TraceBackend;
use wavetrace::integrator::{IntegratorKind, RenderSettings};
use wavetrace::scene::{Material, RenderCamera, Scene};

const SIZE: u32 = 48;

fn white(metallic: f32, roughness: f32, specular: f32, transmission: f32) -> Material {
    Material {
        name: format!("metallic {metallic} roughness {roughness} transmission {transmission}"),
        base_color: Vec4::ONE,
        metallic,
        roughness,
        specular,
        transmission,
        ..Material::default()
    }
}

/// Pixels wholly on the sphere, as (index, the cosine between the view ray through the
/// centre and the sphere's normal there), and the rim's pixels, which see it in part.
fn sphere_pixels(scene: &Scene) -> (Vec<(usize, f32)>, Vec<usize>) {
    let (camera, _) = RenderCamera::for_scene(scene, SIZE, SIZE);
    let hit = |pixel: Vec2, jitter: Vec2| -> Option<f32> {
        let (origin, direction) = camera.ray(pixel, jitter, SIZE, SIZE);
        let b = origin.dot(direction);
        let disc = b * b - (origin.length_squared() - 1.0);
        (disc > 0.0).then(|| {
            let t = -b - disc.sqrt();
            (origin + direction * t).normalize().dot(-direction)
        })
    };
    let (mut pixels, mut rim) = (Vec::new(), Vec::new());
    for y in 0..SIZE {
        for x in 0..SIZE {
            let p = Vec2::new(x as f32, y as f32);
            let index = (y * SIZE + x) as usize;
            let corners = [Vec2::ZERO, Vec2::X, Vec2::Y, Vec2::ONE];
            match corners.iter().filter(|&&c| hit(p, c * 0.999).is_some()).count() {
                4 => pixels.push((index, hit(p, Vec2::splat(0.5)).unwrap())),
                0 => {}
                _ => rim.push(index),
            }
        }
    }
    (pixels, rim)
}

fn render(scene: &Scene, integrator: IntegratorKind, spp: u32, depth: u32) -> Vec<RgbImage> {
    let base = RenderSettings {
        environment: Some(Environment::constant(Vec3::ONE)),
        ..RenderSettings::new(SIZE, SIZE, spp, depth, TraceBackend::Query)
    };
    common::render_each(scene, &base, &[integrator])
}

fn luminance(p: [f32; 3]) -> f64 {
    f64::from(p[0] + p[1] + p[2]) / 3.0
}

/// Every pixel 1: the image's mean within `mean_tolerance`, each pixel off the rim within
/// `pixel_tolerance`. At the rim the tessellation's facets and the smooth normals disagree
/// most, and a few directions that turn below a facet are dropped (shade_hit).
fn check_invisible(label: &str, scene: &Scene, image: &RgbImage, mean_tolerance: f64, pixel_tolerance: f64) {
    assert!(!image.has_non_finite(), "{label}: non-finite pixels");
    let mean = image.mean();
    eprintln!("{label}: mean {mean:?}");
    for channel in mean {
        assert!((channel - 1.0).abs() < mean_tolerance, "{label}: mean {mean:?}");
    }
    let (_, rim) = sphere_pixels(scene);
    let worst = (0..image.pixels.len())
        .filter(|i| !rim.contains(i))
        .map(|i| (luminance(image.pixels[i]) - 1.0).abs())
        .fold(0.0, f64::max);
    assert!(worst < pixel_tolerance, "{label}: a pixel {worst} away from 1");
}

#[test]
fn a_white_lambertian_sphere_disappears_in_both_integrators() {
    let scene = common::sphere_scene(white(0.0, 1.0, 0.0, 0.0));
    for integrator in [IntegratorKind::Wavefront, IntegratorKind::Megakernel] {
        for image in render(&scene, integrator, 64, 8) {
            check_invisible(&format!("lambertian {integrator:?}"), &scene, &image, 2e-3, 0.2);
        }
    }
}

#[test]
fn white_smooth_metal_and_clear_glass_disappear() {
    let mirror = common::sphere_scene(white(1.0, 0.0, 1.0, 0.0));
    for image in render(&mirror, IntegratorKind::Wavefront, 4, 8) {
        check_invisible("smooth metal", &mirror, &image, 5e-4, 1e-4);
    }
    // Glass keeps every path (Fresnel only splits it) until the depth limit; light that
    // bounces inside more than 16 times is the little that is missing.
    let glass = common::sphere_scene(white(0.0, 0.0, 1.0, 1.0));
    for image in render(&glass, IntegratorKind::Wavefront, 64, 16) {
        check_invisible("smooth glass", &glass, &image, 3e-3, 0.15);
    }
}

#[test]
fn rough_white_metal_loses_what_single_scattering_ggx_predicts() {
    for roughness in [0.3f32, 0.6, 1.0] {
        let alpha = roughness * roughness;
        let scene = common::sphere_scene(white(1.0, roughness, 1.0, 0.0));
        // E(mu) tabulated and interpolated: the CPU's expectation for each pixel.
        let table: Vec<f64> = (0..=64)
            .map(|i| ggx_directional_albedo((i as f32 / 64.0).max(1e-3), alpha, 48))
            .collect();
        let albedo = |mu: f32| {
            let x = mu.clamp(0.0, 1.0) * 64.0;
            let i = (x as usize).min(63);
            let f = f64::from(x - i as f32);
            table[i] * (1.0 - f) + table[i + 1] * f
        };
        let (pixels, _) = sphere_pixels(&scene);
        assert!(pixels.len() > 800, "{} pixels on the sphere", pixels.len());
        for image in render(&scene, IntegratorKind::Wavefront, 64, 8) {
            let label = format!("roughness {roughness}");
            let (mut seen, mut expected) = (0.0, 0.0);
            for &(index, mu) in &pixels {
                seen += luminance(image.pixels[index]);
                expected += albedo(mu);
            }
            seen /= pixels.len() as f64;
            expected /= pixels.len() as f64;
            eprintln!("{label}: sphere mean {seen:.4}, single-scattering GGX {expected:.4}");
            assert!(expected < 0.99, "{label}: the prediction must show a loss");
            assert!(
                (seen - expected).abs() < 0.01,
                "{label}: sphere mean {seen} where single-scattering GGX gives {expected}"
            );
            // Off the sphere the camera sees the environment itself.
            let background = luminance(image.pixels[0]);
            assert!((background - 1.0).abs() < 1e-3, "{label}: background {background}");
        }
    }
}

#[test]
fn coloured_glass_absorbs_by_beers_law_along_each_chord() {
    // Index-matched (ior 1): nothing reflects or bends, so each pixel sees the environment
    // through the sphere along a straight chord, dimmed by exp(-absorption x length).
    let absorption = Vec3::new(0.2, 0.7, 1.5);
    let scene = common::sphere_scene(Material {
        ior: 1.0,
        absorption,
        ..white(0.0, 0.0, 1.0, 1.0)
    });
    let (camera, _) = RenderCamera::for_scene(&scene, SIZE, SIZE);
    let (pixels, _) = sphere_pixels(&scene);
    for image in render(&scene, IntegratorKind::Wavefront, 256, 4) {
        let (mut worst, mut signed) = (0.0f32, glam::DVec3::ZERO);
        for &(index, _) in &pixels {
            let (x, y) = ((index as u32 % SIZE) as f32, (index as u32 / SIZE) as f32);
            // The box filter's average over a 4x4 grid of the pixel.
            let mut expected = Vec3::ZERO;
            for j in 0..4 {
                for i in 0..4 {
                    let jitter = Vec2::new((i as f32 + 0.5) / 4.0, (j as f32 + 0.5) / 4.0);
                    let (origin, d) = camera.ray(Vec2::new(x, y), jitter, SIZE, SIZE);
                    let b = origin.dot(d);
                    let chord = 2.0 * (b * b - (origin.length_squared() - 1.0)).max(0.0).sqrt();
                    expected += (-absorption * chord).exp() / 16.0;
                }
            }
            let seen = Vec3::from_array(image.pixels[index]);
            let error = (seen - expected) / expected;
            worst = worst.max(error.abs().max_element());
            signed += error.as_dvec3() / pixels.len() as f64;
        }
        // Single pixels carry the box filter's sampling noise (the chord changes across a
        // pixel); their mean carries none of it, and no bias.
        assert!(
            worst < 0.03,
            "Beer's law off by {worst} (relative) somewhere on the sphere"
        );
        assert!(
            signed.abs().max_element() < 2e-3,
            "Beer's law off by {signed} on average"
        );
    }
}

#[test]
fn bidirectional_path_tracing_makes_white_spheres_disappear_too() {
    // Lights at infinity start light subpaths on a disk across the scene, and the environment
    // is found, connected to and sampled by every strategy: all of it must add up to 1 again.
    let lambertian = common::sphere_scene(white(0.0, 1.0, 0.0, 0.0));
    for image in render(&lambertian, IntegratorKind::Bdpt, 64, 8) {
        check_invisible("lambertian bdpt", &lambertian, &image, 3e-3, 0.25);
    }
    // Smooth glass: every surface vertex is delta, so only camera subpaths that find the
    // environment count, with the MIS weights of a light that can also be connected to.
    let glass = common::sphere_scene(white(0.0, 0.0, 1.0, 1.0));
    for image in render(&glass, IntegratorKind::Bdpt, 64, 16) {
        check_invisible("smooth glass bdpt", &glass, &image, 3e-3, 0.15);
    }
}
