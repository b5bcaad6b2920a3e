//! Textures on the layers' factors (KHR_materials_specular's specularTexture and
//! specularColorTexture, KHR_materials_transmission's transmissionTexture,
//! KHR_materials_clearcoat's clearcoatTexture, clearcoatRoughnessTexture and
//! clearcoatNormalTexture): a texture multiplies its factor, so a quad whose texture holds two
//! texels, one a half, renders as the quad cut in two whose halves carry the products as
//! plain factors. The halves take the glossy light vertex layout in BDPT and the textured quad
//! the textured one, so the comparison also checks what light vertices keep. Each texel's
//! channels differ, so that a texture read in the wrong channel fails as one not read.

use crate::common;

use glam::{Mat4, Vec2, Vec3, Vec4};
use wavetrace::environment::Environment;
use wavetrace::film::{metrics, RgbImage};
use wavetrace::integrator::{IntegratorKind, RenderSettings};
use wavetrace::scene::textures::srgb_to_linear;
use wavetrace::scene::{Camera, Material, Mesh, Projection, Scene, Texture, TextureRef};

const SIZE: u32 = 32;
/// The texture's two texels, RGBA8: the left half of the quad reads the first.
const TEXELS: [[u8; 4]; 2] = [[64, 200, 150, 255], [255, 32, 96, 48]];
const HALF_WIDTH: f32 = 1.2;

fn base_material() -> Material {
    Material {
        name: "layered".into(),
        base_color: Vec4::new(0.6, 0.3, 0.2, 1.0),
        metallic: 0.0,
        roughness: 0.5,
        ..Material::default()
    }
}

/// A quad in z = 0 from x0 to x1 (y from -HALF_WIDTH to HALF_WIDTH), facing +Z, with texture
/// coordinates that put u = 0.5 at x = 0 and a tangent along +X.
fn quad(name: &str, x0: f32, x1: f32, material: u32) -> Mesh {
    let corners = [(x0, -HALF_WIDTH), (x1, -HALF_WIDTH), (x1, HALF_WIDTH), (x0, HALF_WIDTH)];
    Mesh {
        name: name.into(),
        positions: corners.iter().map(|&(x, y)| Vec3::new(x, y, 0.0)).collect(),
        normals: Some(vec![Vec3::Z; 4]),
        uvs: Some(
            corners
                .iter()
                .map(|&(x, y)| Vec2::new(0.5 + x / (2.0 * HALF_WIDTH), 0.5 - y / (2.0 * HALF_WIDTH)))
                .collect(),
        ),
        tangents: Some(vec![Vec4::new(1.0, 0.0, 0.0, 1.0); 4]),
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
        ..Mesh::default()
    }
}

/// The quads seen from z = 2 (every pixel sees them), lit by a constant sky and by an emitter
/// above and in front, whose glossy reflections show roughness; below them a white wall out
/// of view, where camera subpaths meet light vertices on the quads (which no vertex on their
/// own plane can see).
fn scene(meshes: Vec<Mesh>, mut materials: Vec<Material>, textures: Vec<Texture>) -> Scene {
    let wall = materials.len() as u32;
    materials.push(Material {
        name: "wall".into(),
        base_color: Vec4::new(0.8, 0.8, 0.8, 1.0),
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    });
    let light = materials.len() as u32;
    materials.push(Material {
        name: "light".into(),
        base_color: Vec4::ZERO,
        metallic: 0.0,
        specular: 0.0,
        emission: Vec3::splat(12.0),
        ..Material::default()
    });
    let mut meshes = meshes;
    meshes.push(Mesh {
        name: "light".into(),
        positions: vec![
            Vec3::new(-0.5, 1.4, 0.3),
            Vec3::new(-0.5, 1.4, 1.3),
            Vec3::new(0.5, 1.4, 1.3),
            Vec3::new(0.5, 1.4, 0.3),
        ],
        indices: vec![0, 1, 2, 0, 2, 3],
        material: light,
        ..Mesh::default()
    });
    meshes.push(Mesh {
        name: "wall".into(),
        positions: vec![
            Vec3::new(-2.0, -1.0, 0.05),
            Vec3::new(2.0, -1.0, 0.05),
            Vec3::new(2.0, -1.0, 1.5),
            Vec3::new(-2.0, -1.0, 1.5),
        ],
        indices: vec![0, 2, 1, 0, 3, 2],
        material: wall,
        ..Mesh::default()
    });
    Scene {
        source: "layer textures".into(),
        instances: common::one_instance_of_each(meshes.len() as u32),
        meshes,
        materials,
        textures,
        lights: Vec::new(),
        camera: Some(Camera {
            world_from_camera: Mat4::from_translation(Vec3::Z * 2.0),
            projection: Projection::Perspective { yfov: 0.9 },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The two-texel texture, NEAREST without mipmaps, so that each half reads its own texel only.
fn texture(srgb: bool) -> Texture {
    common::nearest_texture("two texels", 2, 1, TEXELS.concat(), srgb)
}

/// One layer texture under test: where the material holds it, and what a texel multiplies
/// its factor by, as the material's factor changed.
struct Layer {
    name: &'static str,
    srgb: bool,
    attach: fn(&mut Material, TextureRef),
    /// The material with its factor multiplied by the texel's value.
    scale: fn(&mut Material, [u8; 4]),
    /// The material's factors before the texture.
    setup: fn(&mut Material),
}

fn data(v: u8) -> f32 {
    f32::from(v) / 255.0
}

const LAYERS: [Layer; 5] = [
    Layer {
        name: "specularTexture (alpha)",
        srgb: false,
        attach: |m, t| m.layers.specular = Some(t),
        scale: |m, texel| m.specular *= data(texel[3]),
        setup: |m| m.specular = 1.0,
    },
    Layer {
        name: "specularColorTexture (sRGB)",
        srgb: true,
        attach: |m, t| m.layers.specular_color = Some(t),
        scale: |m, texel| {
            m.specular_color *= Vec3::new(
                srgb_to_linear(texel[0]),
                srgb_to_linear(texel[1]),
                srgb_to_linear(texel[2]),
            )
        },
        setup: |m| m.specular_color = Vec3::new(1.0, 0.9, 0.8),
    },
    Layer {
        name: "transmissionTexture (red)",
        srgb: false,
        attach: |m, t| m.layers.transmission = Some(t),
        scale: |m, texel| m.transmission *= data(texel[0]),
        setup: |m| {
            m.transmission = 1.0;
            m.roughness = 0.2;
        },
    },
    Layer {
        name: "clearcoatTexture (red)",
        srgb: false,
        attach: |m, t| m.layers.clearcoat = Some(t),
        scale: |m, texel| m.clearcoat *= data(texel[0]),
        setup: |m| {
            m.clearcoat = 1.0;
            m.clearcoat_roughness = 0.15;
        },
    },
    Layer {
        name: "clearcoatRoughnessTexture (green)",
        srgb: false,
        attach: |m, t| m.layers.clearcoat_roughness = Some(t),
        scale: |m, texel| m.clearcoat_roughness *= data(texel[1]),
        setup: |m| {
            m.clearcoat = 1.0;
            m.clearcoat_roughness = 0.6;
        },
    },
];

fn settings(integrator: IntegratorKind, backend: wavetrace::gpu::TraceBackend) -> RenderSettings {
    RenderSettings {
        integrator,
        environment: Some(Environment::constant(Vec3::splat(0.3))),
        ..RenderSettings::new(SIZE, SIZE, 64, 4, backend)
    }
}

#[test]
fn a_layer_texture_renders_as_its_texels_times_the_factor() {
    let gpu = common::gpu();
    for layer in &LAYERS {
        let mut material = base_material();
        (layer.setup)(&mut material);
        let mut textured = material.clone();
        (layer.attach)(&mut textured, TextureRef::plain(0));
        let halves: Vec<Material> = TEXELS
            .iter()
            .map(|&texel| {
                let mut half = material.clone();
                (layer.scale)(&mut half, texel);
                half
            })
            .collect();
        let textured_scene = scene(
            vec![quad("quad", -HALF_WIDTH, HALF_WIDTH, 0)],
            vec![textured],
            vec![texture(layer.srgb)],
        );
        let split_scene = scene(
            vec![quad("left", -HALF_WIDTH, 0.0, 0), quad("right", 0.0, HALF_WIDTH, 1)],
            halves,
            Vec::new(),
        );
        // The factor alone: what a texture read as 1 would give.
        let untextured_scene = scene(
            vec![quad("quad", -HALF_WIDTH, HALF_WIDTH, 0)],
            vec![material],
            Vec::new(),
        );
        for &backend in gpu.context.trace_backends() {
            // BDPT's strategy (2, 3) alone: a light vertex on the quad, loaded where a camera
            // subpath's vertex on the wall connects to it (textured: its stored planes).
            let strategies = common::PATH_INTEGRATORS
                .map(|integrator| (integrator, None))
                .into_iter()
                .chain([(IntegratorKind::Bdpt, Some((2, 3)))]);
            for (integrator, strategy) in strategies {
                let what = format!("{} with {integrator:?} {strategy:?} on {backend:?}", layer.name);
                let settings = RenderSettings {
                    strategy,
                    ..settings(integrator, backend)
                };
                let render = |scene: &Scene| -> RgbImage { common::render(&gpu.context, scene, &settings) };
                let split = render(&split_scene);
                let with_texture = metrics::compare(&render(&textured_scene), &split).unwrap();
                let without = metrics::compare(&render(&untextured_scene), &split).unwrap();
                eprintln!(
                    "{what}: textured against the halves {with_texture:?}; the factor alone {:.5}",
                    without.block8_rel_mse
                );
                common::assert_means_within(&with_texture, 0.01, &what);
                assert!(
                    with_texture.block8_rel_mse < 0.002 && without.block8_rel_mse > 10.0 * with_texture.block8_rel_mse,
                    "{what}: block relMSE {} against the halves, {} for the factor alone",
                    with_texture.block8_rel_mse,
                    without.block8_rel_mse
                );
            }
        }
    }
    gpu.finish();
}

/// glTF maps a clearcoatNormalTexture through the base's tangent frame, as the normalTexture.
/// With both textures holding one tilted texel, shading normal and coat normal turn as vertex
/// normals along the mapped direction turn them; with the normalTexture alone the coat keeps
/// the interpolated normal, and the image differs. A black base without a specular layer
/// leaves the coat alone to reflect.
#[test]
fn a_clearcoat_normal_texture_turns_the_coat_as_the_normal_texture_turns_the_base() {
    let texel = [204u8, 128, 230, 255];
    let tangent_space = Vec3::new(data(texel[0]), data(texel[1]), data(texel[2])) * 2.0 - Vec3::ONE;
    let scale = 0.8;
    // Tangent +X, bitangent Z x X = +Y, normal +Z.
    let tilted = Vec3::new(tangent_space.x * scale, tangent_space.y * scale, tangent_space.z).normalize();
    let coat = Material {
        base_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        specular: 0.0,
        clearcoat: 1.0,
        clearcoat_roughness: 0.25,
        ..base_material()
    };
    let map = TextureRef {
        scale,
        ..TextureRef::plain(0)
    };
    let mut base_mapped = coat.clone();
    base_mapped.normal_texture = Some(map);
    let mut both_mapped = base_mapped.clone();
    both_mapped.layers.clearcoat_normal = Some(map);
    let constant = common::nearest_texture("tilted normal", 1, 1, texel.to_vec(), false);
    let whole = || quad("quad", -HALF_WIDTH, HALF_WIDTH, 0);
    let both_scene = scene(vec![whole()], vec![both_mapped], vec![constant.clone()]);
    let base_scene = scene(vec![whole()], vec![base_mapped], vec![constant]);
    let mut tilted_quad = whole();
    tilted_quad.normals = Some(vec![tilted; 4]);
    let tilted_scene = scene(vec![tilted_quad], vec![coat], Vec::new());

    let gpu = common::gpu();
    for &backend in gpu.context.trace_backends() {
        for integrator in common::PATH_INTEGRATORS {
            let what = format!("{integrator:?} on {backend:?}");
            let settings = settings(integrator, backend);
            let tilted = common::render(&gpu.context, &tilted_scene, &settings);
            let both = metrics::compare(&common::render(&gpu.context, &both_scene, &settings), &tilted).unwrap();
            let base = metrics::compare(&common::render(&gpu.context, &base_scene, &settings), &tilted).unwrap();
            eprintln!(
                "{what}: both normals mapped against tilted normals {both:?}; the base's alone {:.5}, means {:?}",
                base.block8_rel_mse, base.mean_ratio
            );
            common::assert_means_within(&both, 0.001, &what);
            assert!(
                both.block8_rel_mse < 1e-5 && base.block8_rel_mse > 1000.0 * both.block8_rel_mse,
                "{what}: block relMSE {} against tilted normals, {} with the base's texture alone",
                both.block8_rel_mse,
                base.block8_rel_mse
            );
        }
    }
    gpu.finish();
}
