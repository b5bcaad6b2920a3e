//! The kernels' camera projection (camera.glsl, for light subpaths that connect to the camera)
//! against its CPU twin (`RenderCamera::project`, `importance`) on random points around a
//! turned camera with a wide image and a near plane: the same pixels, cosines and importance,
//! and nothing before the near plane.

use crate::common;

use glam::{Mat4, Vec3, Vec4};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline};
use wavetrace::interface::{CameraProbePush, PassConstants};
use wavetrace::scene::RenderCamera;

#[test]
fn the_gpu_projects_as_the_cpu_twin() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let (width, height) = (123u32, 77u32);
    let camera = RenderCamera {
        near: 2.0,
        ..RenderCamera::from_transform(
            Mat4::from_translation(Vec3::new(0.5, 1.0, -2.0))
                * Mat4::from_rotation_x(-0.3)
                * Mat4::from_rotation_y(2.0),
            0.7,
            width as f32 / height as f32,
        )
    };
    let constants = PassConstants {
        camera_origin: camera.origin,
        camera_right: camera.right,
        camera_up: camera.up,
        camera_forward: camera.forward,
        camera_half_height: camera.half_height,
        aspect: camera.aspect,
        camera_near: camera.near,
        width,
        height,
        ..PassConstants::default()
    };
    let mut rng = SmallRng::seed_from_u64(21);
    // An awkward count; points all around the camera, a third of them on the image.
    let points: Vec<Vec3> = (0..10_007)
        .map(|_| {
            let direction = Vec3::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            );
            let toward_image = camera.forward * 0.8 + direction * 0.5;
            let d = if rng.random_bool(0.5) { toward_image } else { direction };
            camera.origin + d * rng.random_range(0.05f32..50.0)
        })
        .collect();
    let constants_buffer = Buffer::from_slice(context, "camera constants", &[constants], BufferUsage::STORAGE).unwrap();
    let points_buffer = Buffer::from_slice(context, "camera points", &points, BufferUsage::STORAGE).unwrap();
    let results = Buffer::gpu_storage(context, "camera results", (points.len() * 16) as u64).unwrap();
    let pipeline = ComputePipeline::<CameraProbePush>::new(context, ids::DIAGNOSTICS_CAMERA_PROBE, &[]).unwrap();
    let push = CameraProbePush {
        constants: constants_buffer.address(),
        points: points_buffer.address(),
        results: results.address(),
        count: points.len() as u32,
        pad0: 0,
    };
    common::run_probe(context, &pipeline, &push, push.count);
    let gpu_results: Vec<Vec4> = results.read_back(context, points.len()).unwrap();
    let mut visible = 0;
    let mut before_the_near_plane = 0;
    for (point, got) in points.iter().zip(&gpu_results) {
        let near_edge = |x: f32, size: u32| x.abs() < 1e-3 || (x - size as f32).abs() < 1e-3;
        match camera.project(*point, width, height) {
            Some((position, cos_theta)) => {
                if got.x < 0.0 {
                    assert!(
                        near_edge(position.x, width) || near_edge(position.y, height),
                        "{point}: {position}"
                    );
                    continue;
                }
                visible += 1;
                assert!(
                    (got.x - position.x).abs() < 2e-3 && (got.y - position.y).abs() < 2e-3,
                    "{point}"
                );
                assert!((got.z - cos_theta).abs() < 1e-5, "{point}");
                let importance = camera.importance(cos_theta, width, height);
                assert!(
                    (got.w / importance - 1.0).abs() < 1e-4,
                    "{point}: {} vs {importance}",
                    got.w
                );
            }
            None => {
                let unclipped = RenderCamera { near: 0.0, ..camera };
                if unclipped.project(*point, width, height).is_some() {
                    before_the_near_plane += 1;
                    assert!(got.x < 0.0, "{point} lies before the near plane: {got}");
                }
                assert!(
                    got.x < 0.0 || got.z > 0.0 && got.x < 1e-3 || got.y < 1e-3,
                    "{point}: {got}"
                );
            }
        }
    }
    assert!(visible > 2000, "{visible}");
    assert!(before_the_near_plane > 100, "{before_the_near_plane}");
    gpu.finish();
}
