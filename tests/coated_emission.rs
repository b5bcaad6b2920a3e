//! KHR_materials_clearcoat darkens the emission beneath a coat by the coat's Fresnel term:
//! radiance leaves an emitter of weight-c coat at cos_out as E (1 - c F(cos_out)), with
//! Schlick's F from ior 1.5. Seen directly (hits), and lighting a floor (next-event
//! estimation, hits by BSDF sampling, BDPT's light subpaths), against the CPU.

use crate::common;

use glam::{Mat4, Vec2, Vec3, Vec4};
use wavetrace::bsdf::fresnel_schlick;
use wavetrace::film::{metrics, RgbImage};
use wavetrace::integrator::{IntegratorKind, RenderSettings};
use wavetrace::interface::CLEARCOAT_F0;
use wavetrace::scene::{Camera, Material, Mesh, Projection, RenderCamera, Scene, Texture, TextureRef};

const SIZE: u32 = 32;
const EMISSION: f32 = 5.0;

fn darkening(clearcoat: f32, cos_out: f32) -> f32 {
    1.0 - clearcoat * fresnel_schlick(Vec3::splat(CLEARCOAT_F0), cos_out.abs()).x
}

fn coated_emitter(clearcoat: f32, texel: Option<u8>) -> (Material, Vec<Texture>) {
    let mut material = Material {
        name: "coated light".into(),
        base_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        metallic: 0.0,
        specular: 0.0,
        emission: Vec3::splat(EMISSION),
        clearcoat,
        clearcoat_roughness: 0.2,
        ..Material::default()
    };
    let Some(texel) = texel else {
        return (material, Vec::new());
    };
    material.layers.clearcoat = Some(TextureRef::plain(0));
    let texture = common::nearest_texture("coat weight", 1, 1, vec![texel, 0, 0, 255], false);
    (material, vec![texture])
}

fn quad(name: &str, corners: [Vec3; 4], material: u32) -> Mesh {
    Mesh {
        name: name.into(),
        positions: corners.to_vec(),
        uvs: Some(vec![Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y]),
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
        ..Mesh::default()
    }
}

fn scene(meshes: Vec<Mesh>, materials: Vec<Material>, textures: Vec<Texture>, camera: Camera) -> Scene {
    Scene {
        source: "coated emission".into(),
        instances: common::one_instance_of_each(meshes.len() as u32),
        meshes,
        materials,
        textures,
        lights: Vec::new(),
        camera: Some(camera),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A coated emitter filling an orthographic view 75 degrees off its normal: every pixel is
/// E (1 - c F(cos 75)) at depth 1, whichever integrator hits it.
#[test]
fn a_coated_emitter_seen_directly_is_darkened_by_the_coats_fresnel() {
    let angle = 75f32.to_radians();
    let forward = -Vec3::new(angle.sin(), 0.0, angle.cos());
    let world_from_camera = Mat4::look_to_rh(forward * -3.0, forward, Vec3::Y).inverse();
    let camera = Camera {
        world_from_camera,
        projection: Projection::Orthographic { xmag: 0.5, ymag: 0.5 },
        znear: 0.0,
        aspect_ratio: Some(1.0),
    };
    let gpu = common::gpu();
    for (clearcoat, texel) in [(1.0, None), (0.8, Some(128u8))] {
        let (material, textures) = coated_emitter(clearcoat, texel);
        let weight = clearcoat * texel.map_or(1.0, |t| f32::from(t) / 255.0);
        let corners = [(-4.0, -4.0), (4.0, -4.0), (4.0, 4.0), (-4.0, 4.0)].map(|(x, y)| Vec3::new(x, y, 0.0));
        let scene = scene(
            vec![quad("light", corners, 0)],
            vec![material],
            textures,
            camera.clone(),
        );
        let expected = EMISSION * darkening(weight, angle.cos());
        assert!(expected < 0.95 * EMISSION, "the test needs a visible darkening");
        for &backend in gpu.context.trace_backends() {
            for integrator in common::PATH_INTEGRATORS {
                let settings = RenderSettings {
                    integrator,
                    ..RenderSettings::new(SIZE, SIZE, 4, 1, backend)
                };
                let image = common::render(&gpu.context, &scene, &settings);
                for pixel in &image.pixels {
                    for &value in pixel {
                        assert!(
                            (value - expected).abs() < 1e-4 * expected,
                            "{integrator:?} on {backend:?}, coat {weight}: {value}, expected {expected}"
                        );
                    }
                }
            }
        }
    }
    gpu.finish();
}

/// A floor lit by a coated emitter above it (out of view), at depth 2: the floor's radiance
/// at each pixel from a CPU quadrature over the emitter, E (1 - c F(cos_light)) included.
#[test]
fn a_floor_lit_by_a_coated_emitter_gets_the_darkened_light_from_every_strategy() {
    let (half, height, albedo) = (0.3f32, 1.0f32, 0.8f32);
    let world_from_camera = Mat4::look_at_rh(Vec3::new(0.0, 0.8, 2.5), Vec3::ZERO, Vec3::Y).inverse();
    let yfov = 0.5;
    let camera = Camera {
        world_from_camera,
        projection: Projection::Perspective { yfov },
        znear: 0.0,
        aspect_ratio: Some(1.0),
    };
    let floor = Material {
        name: "floor".into(),
        base_color: Vec4::new(albedo, albedo, albedo, 1.0),
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    };
    let cpu_camera = RenderCamera::from_transform(world_from_camera, yfov, 1.0);
    // The floor's radiance where pixel (x, y)'s ray meets it, averaged over 3 x 3 places in
    // the pixel (the box filter), for a coat of weight `clearcoat`.
    let expected = |clearcoat: f32| -> RgbImage {
        let steps = 24;
        let cell = 2.0 * half / steps as f32;
        let mut image = RgbImage::new(SIZE as usize, SIZE as usize);
        for y in 0..SIZE {
            for x in 0..SIZE {
                let mut sum = 0.0f64;
                for j in 0..3 {
                    for i in 0..3 {
                        let jitter = Vec2::new((i as f32 + 0.5) / 3.0, (j as f32 + 0.5) / 3.0);
                        let (origin, direction) = cpu_camera.ray(Vec2::new(x as f32, y as f32), jitter, SIZE, SIZE);
                        let p = origin - direction * (origin.y / direction.y);
                        let mut irradiance = 0.0f64;
                        for b in 0..steps {
                            for a in 0..steps {
                                let q =
                                    Vec3::new(-half + (a as f32 + 0.5) * cell, height, -half + (b as f32 + 0.5) * cell);
                                let d = q - p;
                                let r2 = d.length_squared();
                                let cos_floor = d.y / r2.sqrt();
                                let cos_light = cos_floor;
                                let radiance = EMISSION * darkening(clearcoat, cos_light);
                                irradiance += f64::from(radiance * cos_floor * cos_light / r2 * cell * cell);
                            }
                        }
                        sum += irradiance * f64::from(albedo) / std::f64::consts::PI;
                    }
                }
                image.pixels[(y * SIZE + x) as usize] = [(sum / 9.0) as f32; 3];
            }
        }
        image
    };
    let bright = expected(0.0);
    let gpu = common::gpu();
    for (clearcoat, texel) in [(1.0, None), (1.0, Some(200u8))] {
        let (light, textures) = coated_emitter(clearcoat, texel);
        let darkened = expected(clearcoat * texel.map_or(1.0, |t| f32::from(t) / 255.0));
        // Counter-clockwise seen from below: it emits down.
        let corners =
            [(-half, -half), (half, -half), (half, half), (-half, half)].map(|(x, z)| Vec3::new(x, height, z));
        let floor_corners = [(-3.0, 3.0), (3.0, 3.0), (3.0, -3.0), (-3.0, -3.0)].map(|(x, z)| Vec3::new(x, 0.0, z));
        let scene = scene(
            vec![quad("light", corners, 0), quad("floor", floor_corners, 1)],
            vec![light, floor.clone()],
            textures,
            camera.clone(),
        );
        for &backend in gpu.context.trace_backends() {
            // And BDPT's three strategies alone, unweighted: the light's hit, next-event
            // estimation, and light tracing from its emission samples.
            let runs = common::PATH_INTEGRATORS
                .map(|integrator| (integrator, None))
                .into_iter()
                .chain([(0, 3), (1, 2), (2, 1)].map(|strategy| (IntegratorKind::Bdpt, Some(strategy))));
            for (integrator, strategy) in runs {
                let what = format!("{integrator:?} {strategy:?} on {backend:?}, coat texture {texel:?}");
                let settings = RenderSettings {
                    integrator,
                    strategy,
                    ..RenderSettings::new(SIZE, SIZE, 1024, 2, backend)
                };
                let image = common::render(&gpu.context, &scene, &settings);
                let c = metrics::compare(&image, &darkened).unwrap();
                let uncoated = metrics::compare(&image, &bright).unwrap();
                eprintln!(
                    "{what}: {c:?}; against the uncoated light's: means {:?}",
                    uncoated.mean_ratio
                );
                common::assert_means_within(&c, 0.01, &what);
                assert!(c.block8_rel_mse < 2e-3, "{what}: block relMSE {}", c.block8_rel_mse);
                assert!(
                    uncoated.mean_ratio.iter().all(|r| (r - 1.0).abs() > 0.025),
                    "{what}: the coat's darkening is too small to be tested: {uncoated:?}"
                );
            }
        }
    }
    gpu.finish();
}
