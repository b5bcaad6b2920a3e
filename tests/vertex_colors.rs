//! COLOR_0 vertex colours, which glTF multiplies into the base colour (alpha too): a
//! Lambertian triangle under a white sky shows its interpolated colour times its base colour,
//! whichever integrator renders it, and vertex alpha cuts a masked triangle where it falls
//! below the cutoff. Both expectations come from the CPU, not from another render.

use crate::common;

use glam::{Mat4, Vec2, Vec3, Vec4};
use wavetrace::environment::Environment;
use wavetrace::film::{metrics, RgbImage};
use wavetrace::gpu::TraceBackend;
use wavetrace::integrator::{IntegratorKind, MltSettings, RenderSettings};
use wavetrace::scene::{AlphaMode, Camera, Instance, Material, Mesh, RenderCamera, Scene};

const SIZE: u32 = 32;
const CAMERA_DISTANCE: f32 = 2.0;
const YFOV: f32 = 0.5;
/// Larger than the view (half-width 0.51 at the plane), so that every pixel sees it.
const TRIANGLE: [Vec3; 3] = [
    Vec3::new(-1.6, -0.7, 0.0),
    Vec3::new(1.6, -0.7, 0.0),
    Vec3::new(0.0, 1.9, 0.0),
];
const BASE_COLOR: Vec4 = Vec4::new(0.9, 0.8, 0.7, 1.0);

/// One triangle in the plane z = 0, facing the camera on +Z, with `colors` at its corners.
fn triangle_scene(colors: [Vec4; 3], material: Material) -> Scene {
    Scene {
        source: "vertex colours".into(),
        meshes: vec![Mesh {
            name: "triangle".into(),
            positions: TRIANGLE.to_vec(),
            normals: Some(vec![Vec3::Z; 3]),
            colors: Some(colors.to_vec()),
            indices: vec![0, 1, 2],
            material: 0,
            ..Mesh::default()
        }],
        instances: vec![Instance {
            mesh: 0,
            world_from_object: Mat4::IDENTITY,
            node: "triangle".into(),
        }],
        materials: vec![material],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: Some(Camera {
            world_from_camera: Mat4::from_translation(Vec3::Z * CAMERA_DISTANCE),
            projection: wavetrace::scene::Projection::Perspective { yfov: YFOV },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The triangle's barycentric weights where the ray of pixel (x, y) + `jitter` meets its plane.
fn weights_at(x: u32, y: u32, jitter: Vec2) -> Vec3 {
    let camera = RenderCamera::from_transform(Mat4::from_translation(Vec3::Z * CAMERA_DISTANCE), YFOV, 1.0);
    let (origin, direction) = camera.ray(Vec2::new(x as f32, y as f32), jitter, SIZE, SIZE);
    let p = origin - direction * (origin.z / direction.z);
    let [a, b, c] = TRIANGLE;
    let area = (b - a).cross(c - a).z;
    Vec3::new(
        (b - p).cross(c - p).z / area,
        (c - p).cross(a - p).z / area,
        (a - p).cross(b - p).z / area,
    )
}

fn lambertian(base_color: Vec4, alpha: AlphaMode) -> Material {
    Material {
        name: "coloured".into(),
        base_color,
        metallic: 0.0,
        specular: 0.0,
        alpha,
        ..Material::default()
    }
}

/// Under a sky of radiance 1 an unoccluded Lambertian surface reflects its albedo. The albedo
/// is linear in the plane, and a pixel's footprint on a plane square to the view is a square,
/// so a pixel's mean is the albedo at its centre's ray.
#[test]
fn a_lambertian_triangle_under_a_white_sky_shows_its_interpolated_colours_with_every_integrator() {
    let colors = [
        Vec4::new(0.9, 0.2, 0.1, 1.0),
        Vec4::new(0.1, 0.8, 0.3, 1.0),
        Vec4::new(0.2, 0.3, 1.0, 1.0),
    ];
    let scene = triangle_scene(colors, lambertian(BASE_COLOR, AlphaMode::Opaque));
    let mut expected = RgbImage::new(SIZE as usize, SIZE as usize);
    for y in 0..SIZE {
        for x in 0..SIZE {
            let w = weights_at(x, y, Vec2::splat(0.5));
            assert!(w.min_element() > 0.0, "pixel ({x}, {y}) misses the triangle");
            let color = (colors[0] * w.x + colors[1] * w.y + colors[2] * w.z) * BASE_COLOR;
            expected.pixels[(y * SIZE + x) as usize] = color.truncate().to_array();
        }
    }

    let gpu = common::gpu();
    for &backend in gpu.context.trace_backends() {
        for (integrator, spp) in [
            (IntegratorKind::Wavefront, 64),
            (IntegratorKind::Megakernel, 64),
            (IntegratorKind::Bdpt, 64),
            (IntegratorKind::Pmlt, 1),
        ] {
            let settings = RenderSettings {
                integrator,
                environment: Some(Environment::constant(Vec3::ONE)),
                mlt: MltSettings {
                    chains: 1024,
                    bootstrap: 1 << 16,
                    iterations: Some(64),
                    ..MltSettings::default()
                },
                ..RenderSettings::new(SIZE, SIZE, spp, 4, backend)
            };
            let image = common::render(&gpu.context, &scene, &settings);
            let c = metrics::compare(&image, &expected).unwrap();
            let what = format!("{integrator:?} on {backend:?}");
            eprintln!("{what}: {c:?}");
            common::assert_means_within(&c, 0.015, &what);
            // Without the colours the block error is about 2 (each channel wrong by 2-9x).
            let bound = if integrator == IntegratorKind::Pmlt {
                0.01
            } else {
                0.002
            };
            assert!(c.block8_rel_mse < bound, "{what}: block relMSE {}", c.block8_rel_mse);
        }
    }
    gpu.finish();
}

/// Vertex alpha multiplies the base colour's alpha in the alpha test: a masked triangle whose
/// alpha falls from 1 to 0 across the view is a hole where it is below the cutoff. At depth
/// 1 the surface is black and the holes show the sky.
#[test]
fn vertex_alpha_cuts_a_masked_triangle_at_its_cutoff() {
    let colors = [
        Vec4::new(1.0, 1.0, 1.0, 1.0),
        Vec4::new(1.0, 1.0, 1.0, 0.0),
        Vec4::new(1.0, 1.0, 1.0, 0.5),
    ];
    let cutoff = 0.4;
    let scene = triangle_scene(colors, lambertian(Vec4::ONE, AlphaMode::Mask(cutoff)));
    let alpha = |x: u32, y: u32, jitter: Vec2| {
        let w = weights_at(x, y, jitter);
        colors[0].w * w.x + colors[1].w * w.y + colors[2].w * w.z
    };
    let base = RenderSettings {
        environment: Some(Environment::constant(Vec3::ONE)),
        ..RenderSettings::new(SIZE, SIZE, 4, 1, TraceBackend::Pipeline)
    };
    for (what, image) in common::render_each_named(&scene, &base, &common::PATH_INTEGRATORS) {
        let (mut holes, mut solid) = (0, 0);
        for y in 0..SIZE {
            for x in 0..SIZE {
                let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
                    .map(|(u, v)| alpha(x, y, Vec2::new(u, v)) < cutoff);
                let value = image.pixels[(y * SIZE + x) as usize][1];
                // A pixel that the cutoff's line crosses is part sky, part surface.
                if corners.iter().all(|&hole| hole) {
                    holes += 1;
                    assert_eq!(value, 1.0, "{what}: pixel ({x}, {y}) should be sky");
                } else if corners.iter().all(|&hole| !hole) {
                    solid += 1;
                    assert_eq!(value, 0.0, "{what}: pixel ({x}, {y}) should be the surface");
                }
            }
        }
        assert!(
            holes > 100 && solid > 100,
            "{what}: {holes} hole and {solid} solid pixels"
        );
    }
}
