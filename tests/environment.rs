//! An equirectangular environment map, turned, lighting a white Lambertian sphere: the
//! background shows the map where the CPU's mapping says, and each pixel on the sphere shows
//! the irradiance the CPU integrates from the map at its normal. With a bright small "sun" in
//! the map, a wrong sampling density (or MIS weights that disagree with it) shows as bias;
//! both integrators and every trace backend must agree.

mod common;

use std::f64::consts::PI;
use std::path::Path;

use glam::{Vec2, Vec3, Vec4};
use wavetrace::environment::{Environment, EnvironmentError, EnvironmentMap};
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::scene::{Material, PinholeCamera};

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

fn lookup(texels: &[Vec3], d: glam::DVec3) -> glam::DVec3 {
    let (s, k) = f64::from(ROTATION_DEGREES).to_radians().sin_cos();
    let m = glam::DVec3::new(k * d.x - s * d.z, d.y, s * d.x + k * d.z);
    let u = (m.x.atan2(-m.z) / (2.0 * PI)).rem_euclid(1.0);
    let v = m.y.clamp(-1.0, 1.0).acos() / PI;
    let x = ((u * f64::from(MAP_WIDTH)) as u32).min(MAP_WIDTH - 1);
    let y = ((v * f64::from(MAP_HEIGHT)) as u32).min(MAP_HEIGHT - 1);
    texels[(y * MAP_WIDTH + x) as usize].as_dvec3()
}

/// Irradiance / pi at normal n: what a white Lambertian surface sends back, integrated over
/// the map texel by texel on a fine grid.
fn reflected(texels: &[Vec3], n: glam::DVec3) -> glam::DVec3 {
    let sub = 6;
    let mut sum = glam::DVec3::ZERO;
    for y in 0..MAP_HEIGHT * sub {
        for x in 0..MAP_WIDTH * sub {
            let u = (f64::from(x) + 0.5) / f64::from(MAP_WIDTH * sub);
            let v = (f64::from(y) + 0.5) / f64::from(MAP_HEIGHT * sub);
            let d = direction_of(u, v);
            let solid_angle =
                (PI / f64::from(MAP_HEIGHT * sub)) * (2.0 * PI / f64::from(MAP_WIDTH * sub)) * (v * PI).sin();
            let texel = texels[((y / sub) * MAP_WIDTH + x / sub) as usize].as_dvec3();
            sum += texel * n.dot(d).max(0.0) * solid_angle / PI;
        }
    }
    sum
}

#[test]
fn a_turned_map_lights_a_lambertian_sphere_as_the_cpu_integrates_it() {
    let texels = sky();
    let map = EnvironmentMap::from_texels(Path::new("sky"), MAP_WIDTH, MAP_HEIGHT, texels.clone()).unwrap();
    let environment = Environment {
        rotation_degrees: ROTATION_DEGREES,
        ..Environment::map(map)
    };
    let scene = common::sphere_scene(Material {
        name: "white".into(),
        base_color: Vec4::ONE,
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    });
    let (camera, _) = PinholeCamera::for_scene(&scene, SIZE, SIZE);

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
                        background += lookup(&texels, d) / 64.0;
                    }
                }
            }
            expected.push(match on_sphere {
                0 => Some((background, false)),
                64 => Some((reflected(&texels, normal), true)),
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
            for (pixel, expectation) in image.pixels.iter().zip(&expected) {
                let pixel = Vec3::from_array(*pixel).as_dvec3();
                match expectation {
                    Some((value, true)) => {
                        seen += pixel;
                        wanted += *value;
                    }
                    Some((value, false)) => {
                        background_error = background_error.max(
                            ((pixel - *value) / value.max(glam::DVec3::splat(1e-3)))
                                .abs()
                                .max_element(),
                        );
                    }
                    None => {}
                }
            }
            let label = format!("{integrator:?} {backend:?}");
            eprintln!("{label}: sphere sum {seen:.3} expected {wanted:.3}; background off by {background_error:.2e}");
            // The box filter over a pixel with texel edges in it is sampled at 256 points.
            assert!(background_error < 0.05, "{label}: background off by {background_error}");
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
