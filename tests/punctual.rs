//! KHR_lights_punctual lights against their closed forms: a white Lambertian floor under a
//! point light shows I cos / (pi d^2) (with the range window), under a spot light the same
//! inside the cone and the glTF smooth edge outside it, under a directional light E cos / pi;
//! and a punctual light beside an emissive quad adds up to the two rendered alone (the choice
//! between them by power is unbiased).

use crate::common;

use glam::{Mat4, Vec2, Vec3, Vec4};
use wavetrace::film::RgbImage;
use wavetrace::gpu::TraceBackend;
use wavetrace::integrator::{IntegratorKind, RenderSettings};
use wavetrace::scene::{Camera, Material, Mesh, PunctualKind, PunctualLight, RenderCamera, Scene};

const SIZE: u32 = 48;

fn quad(x: [f32; 2], y: [f32; 2], z: f32, material: u32) -> Mesh {
    Mesh {
        name: "quad".into(),
        positions: vec![
            Vec3::new(x[0], y[0], z),
            Vec3::new(x[1], y[0], z),
            Vec3::new(x[1], y[1], z),
            Vec3::new(x[0], y[1], z),
        ],
        normals: None,
        uvs: None,
        second_uvs: None,
        tangents: None,
        colors: None,
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
    }
}

/// A white Lambertian floor (z = 0, facing the camera at z = 3), the given lights, and an
/// optional emissive quad facing the floor.
fn floor_scene(lights: Vec<PunctualLight>, emitter: bool) -> Scene {
    let white = Material {
        name: "white".into(),
        base_color: Vec4::ONE,
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    };
    let glow = Material {
        name: "glow".into(),
        base_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        emission: Vec3::splat(4.0),
        ..white.clone()
    };
    let mut meshes = vec![quad([-3.0, 3.0], [-3.0, 3.0], 0.0, 0)];
    if emitter {
        // Small, high and to the side, wound to face down onto the floor.
        let mut light = quad([0.8, 1.2], [-0.2, 0.2], 1.5, 1);
        light.indices = vec![0, 2, 1, 0, 3, 2];
        meshes.push(light);
    }
    Scene {
        source: "floor".into(),
        instances: common::one_instance_of_each(meshes.len() as u32),
        meshes,
        materials: vec![white, glow],
        textures: Vec::new(),
        lights,
        camera: Some(Camera {
            world_from_camera: Mat4::from_translation(Vec3::Z * 3.0),
            projection: wavetrace::scene::Projection::Perspective {
                yfov: 60f32.to_radians(),
            },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

fn light(kind: PunctualKind, position: Vec3, direction: Vec3, intensity: f32, range: Option<f32>) -> PunctualLight {
    PunctualLight {
        name: "lamp".into(),
        kind,
        position,
        direction: direction.normalize(),
        intensity: Vec3::splat(intensity),
        range,
    }
}

fn render(scene: &Scene, spp: u32, integrators: &[IntegratorKind]) -> Vec<RgbImage> {
    common::render_each(
        scene,
        &RenderSettings::new(SIZE, SIZE, spp, 2, TraceBackend::Query),
        integrators,
    )
}

/// The floor points a 4x4 grid over each pixel sees.
fn floor_points(scene: &Scene) -> Vec<[Vec3; 16]> {
    let (camera, _) = RenderCamera::for_scene(scene, SIZE, SIZE);
    (0..SIZE * SIZE)
        .map(|i| {
            std::array::from_fn(|k| {
                let jitter = Vec2::new((k % 4) as f32 + 0.5, (k / 4) as f32 + 0.5) / 4.0;
                let (origin, d) = camera.ray(Vec2::new((i % SIZE) as f32, (i / SIZE) as f32), jitter, SIZE, SIZE);
                origin + d * (-origin.z / d.z)
            })
        })
        .collect()
}

/// Each pixel against `expected(floor point)` averaged over the pixel (the box filter),
/// where it is smooth (`None` anywhere in the pixel: skipped).
fn check(label: &str, scene: &Scene, expected: impl Fn(Vec3) -> Option<f32>) {
    let points = floor_points(scene);
    for image in render(scene, 64, &[IntegratorKind::Wavefront, IntegratorKind::Megakernel]) {
        let mut checked = 0;
        for (pixel, grid) in image.pixels.iter().zip(&points) {
            let Some(values) = grid.iter().map(|&p| expected(p)).collect::<Option<Vec<f32>>>() else {
                continue;
            };
            let want = values.iter().sum::<f32>() / 16.0;
            let spread = values.iter().fold(0.0f32, |m, &v| m.max(v)) - values.iter().fold(f32::MAX, |m, &v| m.min(v));
            let seen = pixel[0];
            // The renderer's jittered samples against a 4x4 grid differ by a share of the
            // value's spread over the pixel; where it is flat, by rounding only.
            assert!(
                (seen - want).abs() <= 0.01 * want + 2e-4 + 0.25 * spread,
                "{label} at {}: {seen} where the closed form gives {want}",
                grid[5]
            );
            checked += 1;
        }
        assert!(checked > 1000, "{label}: only {checked} pixels checked");
    }
}

#[test]
fn a_point_light_falls_off_with_distance_and_range() {
    let position = Vec3::new(0.3, -0.2, 1.0);
    let (intensity, range) = (2.0, 2.0);
    let scene = floor_scene(
        vec![light(
            PunctualKind::Point,
            position,
            Vec3::NEG_Z,
            intensity,
            Some(range),
        )],
        false,
    );
    check("point", &scene, |p| {
        let d = position - p;
        let distance = d.length();
        let window = (1.0 - (distance / range).powi(4)).clamp(0.0, 1.0);
        // Skip where the window's edge crosses a pixel.
        ((distance - range).abs() > 0.05)
            .then(|| intensity * window * (d.z / distance) / (std::f32::consts::PI * distance * distance))
    });
}

#[test]
fn a_spot_light_lights_its_cone_with_the_smooth_edge_of_the_extension() {
    let position = Vec3::new(0.0, 0.0, 1.5);
    let direction = Vec3::new(0.2, 0.1, -1.0).normalize();
    let (inner, outer) = (0.3f32, 0.5f32);
    let scene = floor_scene(
        vec![light(
            PunctualKind::Spot { inner, outer },
            position,
            direction,
            3.0,
            None,
        )],
        false,
    );
    check("spot", &scene, |p| {
        let d = position - p;
        let distance = d.length();
        let cd = direction.dot(-d / distance);
        let t = ((cd - outer.cos()) / (inner.cos() - outer.cos())).clamp(0.0, 1.0);
        let near_edge = (cd - outer.cos()).abs() < 0.01 || (cd - inner.cos()).abs() < 0.01;
        (!near_edge).then(|| 3.0 * t * t * (d.z / distance) / (std::f32::consts::PI * distance * distance))
    });
}

#[test]
fn a_directional_light_gives_lux_times_cosine_over_pi() {
    let direction = Vec3::new(1.0, 0.5, -2.0).normalize();
    let scene = floor_scene(
        vec![light(PunctualKind::Directional, Vec3::ZERO, direction, 1.5, None)],
        false,
    );
    check("directional", &scene, |_| {
        Some(1.5 * -direction.z / std::f32::consts::PI)
    });
}

#[test]
fn punctual_and_emissive_lights_add_up() {
    let lamp = light(PunctualKind::Point, Vec3::new(-0.7, 0.4, 0.8), Vec3::NEG_Z, 1.0, None);
    let both = floor_scene(vec![lamp.clone()], true);
    let lamp_alone = floor_scene(vec![lamp], false);
    let quad_alone = floor_scene(Vec::new(), true);
    let spp = 256;
    let both = &render(&both, spp, &[IntegratorKind::Wavefront])[0];
    let lamp_alone = &render(&lamp_alone, spp, &[IntegratorKind::Wavefront])[0];
    let quad_alone = &render(&quad_alone, spp, &[IntegratorKind::Wavefront])[0];
    let mean = |image: &RgbImage| image.mean()[0];
    let sum = mean(lamp_alone) + mean(quad_alone);
    assert!(
        (mean(both) - sum).abs() < 0.01 * sum,
        "lamp and quad together {} where apart they add to {sum}",
        mean(both)
    );
}
