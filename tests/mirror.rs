//! REFERENCE.md's perfect mirror (metallic 1, roughness 0) reflects its base colour at every
//! angle, as Mitsuba's conductor without a material does. A coloured mirror floor seen at a
//! glancing angle (cosines 0.06-0.3) reflects a wall of radiance 1: at depth 2 every sample of a
//! pixel that sees only the mirror's image of the wall is exactly the base colour, with every
//! integrator. Schlick's Fresnel, which glTF gives rough metals, made these pixels 15-24%
//! brighter than Mitsuba's reference before 2026-11-27.

use crate::common;

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use wavetrace::gpu::TraceBackend;
use wavetrace::integrator::RenderSettings;
use wavetrace::scene::{Camera, Instance, Material, Mesh, RenderCamera, Scene};

const SIZE: u32 = 48;
const BASE_COLOR: Vec4 = Vec4::new(0.5, 0.3, 0.9, 1.0);
const MIRROR: [Vec3; 4] = [
    Vec3::new(-2.0, 0.0, 2.0),
    Vec3::new(2.0, 0.0, 2.0),
    Vec3::new(2.0, 0.0, -3.0),
    Vec3::new(-2.0, 0.0, -3.0),
];
const WALL: [Vec3; 4] = [
    Vec3::new(-4.0, -1.0, -3.0),
    Vec3::new(4.0, -1.0, -3.0),
    Vec3::new(4.0, 4.0, -3.0),
    Vec3::new(-4.0, 4.0, -3.0),
];

fn camera_transform() -> Mat4 {
    Mat4::from_rotation_translation(Quat::from_rotation_x(-(0.3f32).atan2(4.0)), Vec3::new(0.0, 0.3, 3.0))
}

fn quad(name: &str, corners: [Vec3; 4], material: u32) -> Mesh {
    Mesh {
        name: name.into(),
        positions: corners.to_vec(),
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
        ..Mesh::default()
    }
}

fn scene() -> Scene {
    let instance = |mesh: u32, node: &str| Instance {
        mesh,
        world_from_object: Mat4::IDENTITY,
        node: node.into(),
    };
    Scene {
        source: "mirror at a glancing angle".into(),
        meshes: vec![quad("mirror", MIRROR, 0), quad("wall", WALL, 1)],
        instances: vec![instance(0, "mirror"), instance(1, "wall")],
        materials: vec![
            Material {
                name: "coloured mirror".into(),
                base_color: BASE_COLOR,
                metallic: 1.0,
                roughness: 0.0,
                ..Material::default()
            },
            Material {
                name: "glowing wall".into(),
                base_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
                metallic: 0.0,
                specular: 0.0,
                emission: Vec3::ONE,
                ..Material::default()
            },
        ],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: Some(Camera {
            world_from_camera: camera_transform(),
            projection: wavetrace::scene::Projection::Perspective { yfov: 0.5 },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

fn hits(origin: Vec3, direction: Vec3, corners: [Vec3; 4]) -> Option<f64> {
    let [a, b, c, d] = corners;
    common::intersect(origin, direction, [a, b, c]).or_else(|| common::intersect(origin, direction, [a, c, d]))
}

/// What a ray from the camera sees at depth 2: the wall (1), the mirror's image of the wall
/// (the base colour), or anything else (`None`).
fn seen(origin: Vec3, direction: Vec3) -> Option<Vec3> {
    let wall = hits(origin, direction, WALL);
    match hits(origin, direction, MIRROR) {
        Some(t) if wall.is_none_or(|w| t < w) => {
            let point = origin + direction * t as f32;
            let reflected = Vec3::new(direction.x, -direction.y, direction.z);
            hits(point, reflected, WALL).map(|_| BASE_COLOR.truncate())
        }
        _ => wall.map(|_| Vec3::ONE),
    }
}

#[test]
fn a_coloured_mirror_reflects_its_base_colour_at_glancing_angles() {
    let camera = RenderCamera::from_transform(camera_transform(), 0.5, 1.0);
    let base = RenderSettings::new(SIZE, SIZE, 4, 2, TraceBackend::Pipeline);
    for (what, image) in common::render_each_named(&scene(), &base, &common::PATH_INTEGRATORS) {
        let mut mirrored = 0;
        for y in 0..SIZE {
            for x in 0..SIZE {
                let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map(|(u, v)| {
                    let (origin, direction) = camera.ray(Vec2::new(x as f32, y as f32), Vec2::new(u, v), SIZE, SIZE);
                    seen(origin, direction)
                });
                // Pixels on an edge see two things; only whole ones are checked.
                let Some(expected) = corners[0].filter(|&e| corners.iter().all(|&c| c == Some(e))) else {
                    continue;
                };
                mirrored += usize::from(expected != Vec3::ONE);
                let value = Vec3::from_array(image.pixels[(y * SIZE + x) as usize]);
                assert!(
                    (value - expected).abs().max_element() < 1e-4,
                    "{what}, pixel ({x}, {y}): {value} where {expected} is expected"
                );
            }
        }
        assert!(
            mirrored > SIZE as usize * 8,
            "{what}: only {mirrored} pixels see the mirror whole"
        );
    }
}
