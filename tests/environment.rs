//! An equirectangular environment map, turned, lighting a white Lambertian sphere: the
//! background shows the map where the CPU's mapping says, and each pixel on the sphere shows
//! the irradiance the CPU integrates from the map at its normal. With a bright small "sun" in
//! the map, a wrong sampling density (or MIS weights that disagree with it) shows as bias;
//! both integrators and every trace backend must agree.

use crate::common;

use std::f64::consts::PI;
use std::path::Path;

use glam::{Vec2, Vec3, Vec4};
use wavetrace::environment::{Environment, EnvironmentError, EnvironmentMap, GpuEnvironment};
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::scene::{Material, RenderCamera};

const SIZE: u32 = 40;
const MAP_WIDTH: u32 = 32;
const MAP_HEIGHT: u32 = 16;
const ROTATION_DEGREES: f32 = 30.0;

/// A sky that varies with direction, and a sun 200 times brighter over four texels.
fn sky() -> Vec<Vec3> {
    let mut texels = Vec::new();
    for y in 0..MAP_HEIGHT {
        for x in 0..MAP_WIDTH {
            let u = (x as f32 + 0.5) / MAP_WIDTH as f32;
            let v = (y as f32 + 0.5) / MAP_HEIGHT as f32;
            let mut texel = Vec3::new(
                0.3 + 0.2 * (std::f32::consts::TAU * u).sin(),
                0.5 * (1.0 - v),
                0.2 + 0.3 * v,
            );
            if (5..7).contains(&x) && (4..6).contains(&y) {
                texel = Vec3::new(60.0, 50.0, 40.0);
            }
            texels.push(texel);
        }
    }
    texels
}

/// The shaders' mapping (environment.glsl), in f64: map (u, v) to a world direction.
fn direction_of(u: f64, v: f64) -> glam::DVec3 {
    let (theta, phi) = (v * PI, u * 2.0 * PI);
    let m = glam::DVec3::new(theta.sin() * phi.sin(), theta.cos(), -theta.sin() * phi.cos());
    let (s, k) = f64::from(ROTATION_DEGREES).to_radians().sin_cos();
    glam::DVec3::new(k * m.x + s * m.z, m.y, -s * m.x + k * m.z)
}

/// The map's radiance from direction d, interpolated as the shaders do.
fn lookup(map: &EnvironmentMap, d: glam::DVec3) -> glam::DVec3 {
    let (s, k) = f64::from(ROTATION_DEGREES).to_radians().sin_cos();
    let m = glam::DVec3::new(k * d.x - s * d.z, d.y, s * d.x + k * d.z);
    let u = (m.x.atan2(-m.z) / (2.0 * PI)).rem_euclid(1.0);
    let v = m.y.clamp(-1.0, 1.0).acos() / PI;
    map.interpolated(u, v)
}

/// Irradiance / pi at normal n: what a white Lambertian surface sends back, integrated over
/// the map on a grid of 6 x 6 cells a texel, whose edges include the texel centres where the
/// interpolation bends.
fn reflected(map: &EnvironmentMap, n: glam::DVec3) -> glam::DVec3 {
    let sub = 6;
    let mut sum = glam::DVec3::ZERO;
    for y in 0..MAP_HEIGHT * sub {
        for x in 0..MAP_WIDTH * sub {
            let u = (f64::from(x) + 0.5) / f64::from(MAP_WIDTH * sub);
            let v = (f64::from(y) + 0.5) / f64::from(MAP_HEIGHT * sub);
            let d = direction_of(u, v);
            let solid_angle =
                (PI / f64::from(MAP_HEIGHT * sub)) * (2.0 * PI / f64::from(MAP_WIDTH * sub)) * (v * PI).sin();
            sum += map.interpolated(u, v) * n.dot(d).max(0.0) * solid_angle / PI;
        }
    }
    sum
}

#[test]
fn a_turned_map_lights_a_lambertian_sphere_as_the_cpu_integrates_it() {
    let map = EnvironmentMap::from_texels(Path::new("sky"), MAP_WIDTH, MAP_HEIGHT, sky()).unwrap();
    let environment = Environment {
        rotation_degrees: ROTATION_DEGREES,
        ..Environment::map(map.clone())
    };
    let scene = common::sphere_scene(Material {
        name: "white".into(),
        base_color: Vec4::ONE,
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    });
    let (camera, _) = RenderCamera::for_scene(&scene, SIZE, SIZE);

    // What each pixel should show: the map itself off the sphere (averaged over the pixel),
    // the reflected irradiance at the centre's normal on it (None at the rim).
    let mut expected = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let mut background = glam::DVec3::ZERO;
            let mut on_sphere = 0;
            let mut normal = glam::DVec3::ZERO;
            for j in 0..8 {
                for i in 0..8 {
                    let jitter = Vec2::new((i as f32 + 0.5) / 8.0, (j as f32 + 0.5) / 8.0);
                    let (origin, d) = camera.ray(Vec2::new(x as f32, y as f32), jitter, SIZE, SIZE);
                    let (origin, d) = (origin.as_dvec3(), d.as_dvec3());
                    let b = origin.dot(d);
                    let disc = b * b - (origin.length_squared() - 1.0);
                    if disc > 0.0 {
                        on_sphere += 1;
                        if (i, j) == (4, 4) {
                            normal = (origin + d * (-b - disc.sqrt())).normalize();
                        }
                    } else {
                        background += lookup(&map, d) / 64.0;
                    }
                }
            }
            expected.push(match on_sphere {
                0 => Some((background, false)),
                64 => Some((reflected(&map, normal), true)),
                _ => None,
            });
        }
    }

    let gpu = common::gpu();
    let mut images = Vec::new();
    for integrator in [IntegratorKind::Wavefront, IntegratorKind::Megakernel] {
        for &backend in gpu.context.trace_backends() {
            let settings = RenderSettings {
                integrator,
                environment: Some(environment.clone()),
                ..RenderSettings::new(SIZE, SIZE, 256, 4, backend)
            };
            let image = Renderer::new(&gpu.context, &scene, &settings)
                .unwrap()
                .render()
                .unwrap();
            let (mut seen, mut wanted, mut background_error) = (glam::DVec3::ZERO, glam::DVec3::ZERO, 0.0f64);
            let (mut background_error_sum, mut background_pixels) = (0.0f64, 0u32);
            for (pixel, expectation) in image.pixels.iter().zip(&expected) {
                let pixel = Vec3::from_array(*pixel).as_dvec3();
                match expectation {
                    Some((value, true)) => {
                        seen += pixel;
                        wanted += *value;
                    }
                    Some((value, false)) => {
                        let error = ((pixel - *value) / value.max(glam::DVec3::splat(1e-3)))
                            .abs()
                            .max_element();
                        background_error = background_error.max(error);
                        background_error_sum += error;
                        background_pixels += 1;
                    }
                    None => {}
                }
            }
            let label = format!("{integrator:?} {backend:?}");
            let background_mean_error = background_error_sum / f64::from(background_pixels);
            eprintln!(
                "{label}: sphere sum {seen:.3} expected {wanted:.3}; background off by {background_error:.2e} at most, \
                 {background_mean_error:.2e} on average"
            );
            // The box filter over a pixel with texel edges in it is sampled at 256 points.
            assert!(background_error < 0.05, "{label}: background off by {background_error}");
            // Texels shown as steps instead of interpolated are 3% off on average.
            assert!(
                background_mean_error < 2e-3,
                "{label}: background off by {background_mean_error} on average"
            );
            let ratio = seen / wanted;
            assert!(
                (ratio - glam::DVec3::ONE).abs().max_element() < 0.01,
                "{label}: sphere {seen} where the map's irradiance gives {wanted}"
            );
            images.push(image);
        }
    }
    for image in &images[1..] {
        let c = wavetrace::film::metrics::compare(image, &images[0]).unwrap();
        assert!(c.rel_mse < 1e-6, "integrators or backends disagree: {c:?}");
    }
    drop(images);
    gpu.finish();
}

/// The GPU's sampling weights (the interpolated luminance's integral over each pixel) equal the
/// CPU twin's on random maps of awkward sizes, black texels among them; and a black pixel next to
/// a lit one keeps a weight, since the interpolated radiance reaches into it.
#[test]
fn sampling_weights_on_the_gpu_are_the_cpu_twin_s() {
    let gpu = common::gpu();
    for (seed, (width, height)) in [(1, 1), (2, 1), (1, 3), (7, 5), (33, 17), (257, 3)]
        .into_iter()
        .enumerate()
    {
        let texels: Vec<Vec3> = (0..width * height)
            .map(|i| {
                let r = |d| wavetrace::rng::random(seed as u32, i, 0, 0, d);
                // A third of the texels black, a few very bright.
                let scale = if r(3) < 0.33 {
                    0.0
                } else if r(4) < 0.05 {
                    500.0
                } else {
                    1.0
                };
                Vec3::new(r(0), r(1), r(2)) * scale
            })
            .collect();
        let map = EnvironmentMap::from_texels(Path::new("random"), width, height, texels).unwrap();
        let environment = GpuEnvironment::new(&gpu.context, Some(&Environment::map(map.clone()))).unwrap();
        gpu.context
            .run_once("environment weights", |commands| environment.record_build(commands))
            .unwrap();
        let weights = environment.read_weights(&gpu.context).unwrap().unwrap();
        let expected = map.sampling_weights();
        assert_eq!(weights.len(), expected.len());
        let scale = expected.iter().fold(0.0f32, |m, &w| m.max(w));
        for (pixel, (gpu_weight, cpu_weight)) in weights.iter().zip(&expected).enumerate() {
            assert!(
                (gpu_weight - cpu_weight).abs() <= 1e-5 * scale.max(1e-30),
                "{width}x{height}, pixel {pixel}: GPU {gpu_weight}, CPU {cpu_weight}"
            );
            let (x, y) = (pixel as u32 % width, pixel as u32 / width);
            let lit_near = (-1i64..=1).any(|dy| {
                (-1i64..=1).any(|dx| {
                    let row = (i64::from(y) + dy).clamp(0, i64::from(height) - 1);
                    let column = (i64::from(x) + dx).rem_euclid(i64::from(width));
                    map.texels[(row * i64::from(width) + column) as usize] != Vec3::ZERO
                })
            });
            let sin_theta = ((f64::from(y) + 0.5) / f64::from(height) * PI).sin();
            assert_eq!(
                *gpu_weight > 0.0,
                lit_near && sin_theta > 0.0,
                "{width}x{height}, pixel {pixel}: weight {gpu_weight} with lit neighbours: {lit_near}"
            );
        }
    }
    gpu.finish();
}

/// Half-way between a black texel's centre and a white one's the map is grey, on both sides of
/// the u = 0 seam, and rows beyond the first centre keep the first row's value.
#[test]
fn the_map_is_interpolated_between_texel_centres() {
    let (width, height) = (4, 2);
    let texels: Vec<Vec3> = (0..width * height)
        .map(|i| if i % width == 0 { Vec3::ONE } else { Vec3::ZERO })
        .collect();
    let map = EnvironmentMap::from_texels(Path::new("stripes"), width, height, texels).unwrap();
    let at = |u: f64, v: f64| map.interpolated(u, v).x;
    assert!((at(0.125, 0.25) - 1.0).abs() < 1e-12);
    assert!((at(0.25, 0.25) - 0.5).abs() < 1e-12);
    assert!((at(0.0, 0.25) - 0.5).abs() < 1e-12, "u wraps: {}", at(0.0, 0.25));
    assert!((at(1.0, 0.25) - 0.5).abs() < 1e-12);
    assert!((at(0.125, 0.0) - 1.0).abs() < 1e-12 && (at(0.125, 1.0) - 1.0).abs() < 1e-12);
    assert!(at(0.5, 0.5).abs() < 1e-12);
}

#[test]
fn bad_maps_are_errors_naming_the_file() {
    let missing = EnvironmentMap::load(Path::new("/nonexistent/sky.hdr")).unwrap_err();
    assert!(
        matches!(missing, EnvironmentError::Unreadable { .. }) && missing.to_string().contains("/nonexistent/sky.hdr")
    );
    let wrong = EnvironmentMap::load(Path::new("sky.png")).unwrap_err();
    assert!(wrong.to_string().contains("sky.png") && wrong.to_string().contains(".hdr or .exr"));
    let dir = std::env::temp_dir().join("wavetrace-environment-test");
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.exr");
    std::fs::write(&garbage, b"not an image").unwrap();
    let error = EnvironmentMap::load(&garbage).unwrap_err();
    assert!(error.to_string().contains("garbage.exr"), "{error}");
    let empty = EnvironmentMap::from_texels(Path::new("empty"), 0, 4, Vec::new()).unwrap_err();
    assert!(empty.to_string().contains("empty"));
    let nan = EnvironmentMap::from_texels(Path::new("nan"), 2, 1, vec![Vec3::NAN, Vec3::ONE]).unwrap();
    assert_eq!(nan.texels[0], Vec3::ZERO);
    assert_eq!(nan.warnings.len(), 1);
}

#[test]
fn an_exr_map_loads_as_written() {
    let dir = std::env::temp_dir().join("wavetrace-environment-test");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sky.exr");
    let texels = sky();
    let image = wavetrace::film::RgbImage::from_fn(MAP_WIDTH as usize, MAP_HEIGHT as usize, |x, y| {
        texels[y * MAP_WIDTH as usize + x].to_array()
    });
    wavetrace::film::write_exr(&path, &image).unwrap();
    let map = EnvironmentMap::load(&path).unwrap();
    assert_eq!((map.width, map.height), (MAP_WIDTH, MAP_HEIGHT));
    assert_eq!(map.texels, texels);
}
