//! Textured glTF scenes, written here, whose pixels are predictable: a checkerboard base
//! colour (through KHR_texture_transform, nearest filtering) on a white Lambertian quad under
//! a uniform environment shows each check's linear colour; an emissive texture shows its
//! texels; a mirror whose normal texture tilts it by a known angle reflects the environment
//! map where the tilt says; an image that cannot be decoded renders magenta with a warning.

use crate::common;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use glam::{Vec2, Vec3};
use serde_json::{json, Value};
use wavetrace::environment::{Environment, EnvironmentMap};
use wavetrace::film::RgbImage;
use wavetrace::gpu::TraceBackend;
use wavetrace::integrator::{IntegratorKind, RenderSettings};
use wavetrace::scene::textures::srgb_to_linear;
use wavetrace::scene::{RenderCamera, Scene};

const SIZE: u32 = 64;

fn png_data_uri(width: u32, height: u32, rgba: &[u8]) -> String {
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, width, height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(rgba).unwrap();
    }
    format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A quad facing +Z: x and y ranges, depth, material.
#[derive(Clone, Copy)]
struct Quad {
    x: [f32; 2],
    y: [f32; 2],
    z: f32,
    material: usize,
}

/// A quad in the plane z = 0, `[x0, x1]` wide and 2 tall.
fn column(x: [f32; 2], material: usize) -> Quad {
    Quad {
        x,
        y: [-1.0, 1.0],
        z: 0.0,
        material,
    }
}

/// Quads facing +Z with UVs (0,0) at the top left; a camera at z = 3 looking down -Z.
/// `materials` and `images` are the file's.
fn quads_gltf(quads: &[Quad], materials: Value, images: Value, textures: Value, samplers: Value) -> Value {
    let mut bytes: Vec<u8> = Vec::new();
    let mut accessors = Vec::new();
    let mut views = Vec::new();
    let mut meshes = Vec::new();
    let mut nodes = Vec::new();
    for (i, quad) in quads.iter().enumerate() {
        let ([x0, x1], [y0, y1], z, material) = (quad.x, quad.y, quad.z, quad.material);
        let positions = [[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]];
        let normals = [[0.0, 0.0, 1.0f32]; 4];
        let uvs = [[0.0, 1.0f32], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
        let indices = [0u32, 1, 2, 0, 2, 3];
        let mut add = |data: Vec<u8>, count: usize, component: u32, kind: &str| {
            views.push(json!({"buffer": 0, "byteOffset": bytes.len(), "byteLength": data.len()}));
            accessors
                .push(json!({"bufferView": views.len() - 1, "componentType": component, "count": count, "type": kind}));
            bytes.extend(data);
            accessors.len() - 1
        };
        let floats = |v: &[f32]| v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>();
        let p = add(floats(positions.as_flattened()), 4, 5126, "VEC3");
        let n = add(floats(normals.as_flattened()), 4, 5126, "VEC3");
        let t = add(floats(uvs.as_flattened()), 4, 5126, "VEC2");
        let x = add(
            indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
            6,
            5125,
            "SCALAR",
        );
        meshes.push(json!({"name": format!("quad {i}"), "primitives": [{
            "attributes": {"POSITION": p, "NORMAL": n, "TEXCOORD_0": t}, "indices": x, "material": material}]}));
        nodes.push(json!({"mesh": i}));
    }
    nodes.push(json!({"camera": 0, "translation": [0.0, 0.0, 3.0]}));
    json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_texture_transform", "KHR_materials_specular"],
        "scene": 0,
        "scenes": [{"nodes": (0..nodes.len()).collect::<Vec<_>>()}],
        "nodes": nodes,
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.9, "aspectRatio": 1.0, "znear": 0.01}}],
        "meshes": meshes,
        "materials": materials,
        "images": images,
        "textures": textures,
        "samplers": samplers,
        "buffers": [{"byteLength": bytes.len(),
                     "uri": format!("data:application/octet-stream;base64,{}",
                                    base64::engine::general_purpose::STANDARD.encode(&bytes))}],
        "bufferViews": views,
        "accessors": accessors,
    })
}

fn write(name: &str, document: &Value) -> PathBuf {
    let dir = std::env::temp_dir().join("wavetrace-textures-test");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(document).unwrap()).unwrap();
    path
}

fn render(scene: &Scene, environment: Environment, spp: u32) -> Vec<RgbImage> {
    render_with(scene, environment, spp, &[IntegratorKind::Wavefront])
}

/// One image per integrator and trace backend.
fn render_with(scene: &Scene, environment: Environment, spp: u32, integrators: &[IntegratorKind]) -> Vec<RgbImage> {
    let base = RenderSettings {
        environment: Some(environment),
        ..RenderSettings::new(SIZE, SIZE, spp, 4, TraceBackend::Query)
    };
    common::render_each(scene, &base, integrators)
}

/// Where on the z = 0 plane each pixel's centre looks.
fn plane_points(scene: &Scene) -> Vec<Option<Vec2>> {
    let (camera, _) = RenderCamera::for_scene(scene, SIZE, SIZE);
    (0..SIZE * SIZE)
        .map(|i| {
            let (origin, d) = camera.ray(
                Vec2::new((i % SIZE) as f32, (i / SIZE) as f32),
                Vec2::splat(0.5),
                SIZE,
                SIZE,
            );
            let t = -origin.z / d.z;
            (t > 0.0).then(|| (origin + d * t).truncate())
        })
        .collect()
}

const CHECK_A: [u8; 4] = [200, 40, 30, 255];
const CHECK_B: [u8; 4] = [20, 90, 230, 255];
const GLOW_A: [u8; 4] = [255, 128, 0, 255];
const GLOW_B: [u8; 4] = [10, 200, 60, 255];

fn linear(texel: [u8; 4]) -> Vec3 {
    Vec3::new(
        srgb_to_linear(texel[0]),
        srgb_to_linear(texel[1]),
        srgb_to_linear(texel[2]),
    )
}

/// A checkerboard base colour (scaled by KHR_texture_transform) on the left quad, an emissive
/// texture on the right one, both with nearest filtering.
fn checker_and_glow() -> Value {
    let checker: Vec<u8> = [CHECK_A, CHECK_B, CHECK_B, CHECK_A].concat();
    let glow: Vec<u8> = [GLOW_A, GLOW_B, GLOW_B, GLOW_A].concat();
    quads_gltf(
        &[column([-1.9, -0.1], 0), column([0.1, 1.9], 1)],
        json!([
            {"name": "checker", "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorTexture": {"index": 0,
                "extensions": {"KHR_texture_transform": {"scale": [2.0, 2.0]}}}},
             "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}},
            {"name": "glow", "emissiveFactor": [1.0, 1.0, 1.0], "emissiveTexture": {"index": 1},
             "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorFactor": [0.0, 0.0, 0.0, 1.0]},
             "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}}
        ]),
        json!([{"uri": png_data_uri(2, 2, &checker)}, {"uri": png_data_uri(2, 2, &glow)}]),
        json!([{"source": 0, "sampler": 0}, {"source": 1, "sampler": 0}]),
        json!([{"magFilter": 9728, "minFilter": 9728}]),
    )
}

#[test]
fn base_colour_and_emissive_textures_show_their_texels() {
    let document = checker_and_glow();
    let scene = Scene::load(&write("checker.gltf", &document)).unwrap();
    assert!(
        scene.warnings.iter().all(|w| !w.contains("material")),
        "{:?}",
        scene.warnings
    );
    let points = plane_points(&scene);
    for image in render(&scene, Environment::constant(Vec3::ONE), 64) {
        let mut checked = 0;
        let (mut seen_sum, mut expected_sum) = (Vec3::ZERO, Vec3::ZERO);
        for (pixel, point) in image.pixels.iter().zip(&points) {
            let Some(p) = *point else { continue };
            let seen = Vec3::from_array(*pixel);
            // UV across a quad: u from x0 to x1, v from the top (y = 1) down.
            let (expected, u, v) = if (-1.85..-0.15).contains(&p.x) {
                // Scaled by 2: four checks of 2x2 texels across the quad.
                let (u, v) = ((p.x + 1.9) / 1.8 * 2.0, (1.0 - p.y) / 2.0 * 2.0);
                let texel = ((u * 2.0).floor() as i32 + (v * 2.0).floor() as i32) % 2;
                (linear(if texel == 0 { CHECK_A } else { CHECK_B }), u * 2.0, v * 2.0)
            } else if (0.15..1.85).contains(&p.x) {
                let (u, v) = ((p.x - 0.1) / 1.8, (1.0 - p.y) / 2.0);
                let texel = ((u * 2.0).floor() as i32 + (v * 2.0).floor() as i32) % 2;
                (linear(if texel == 0 { GLOW_A } else { GLOW_B }), u * 2.0, v * 2.0)
            } else {
                continue;
            };
            // Away from the checks' edges, where a pixel would straddle two.
            let near_edge = |x: f32| (x - x.round()).abs() < 0.08;
            if p.y.abs() > 0.95 || near_edge(u) || near_edge(v) {
                continue;
            }
            seen_sum += seen;
            expected_sum += expected;
            // Lambertian under a uniform sky: each pixel's estimate carries noise (2% at this
            // spp), their mean none; the other check's colour is far off either way.
            assert!(
                ((seen - expected).abs() / expected.max(Vec3::splat(0.05))).max_element() < 0.1,
                "at {p}: {seen} where the texture gives {expected}"
            );
            checked += 1;
        }
        assert!(checked > 500, "only {checked} pixels checked");
        let ratio = seen_sum / expected_sum;
        assert!((ratio - Vec3::ONE).abs().max_element() < 0.01, "mean ratio {ratio}");
    }
}

#[test]
fn a_normal_texture_tilts_a_mirror_by_its_angle() {
    tilted_mirror(true);
}

/// glTF: a mesh without NORMAL gets flat normals, and a normal texture then applies on them
/// with tangents made from them (not ignored, as it once was).
#[test]
fn a_normal_texture_tilts_a_mirror_without_normals_too() {
    tilted_mirror(false);
}

fn tilted_mirror(with_normals: bool) {
    // Tangent-space normal tilted 20 degrees towards +u (the tangent, +X here).
    let tilt = 20f32.to_radians();
    let encode = |x: f32| ((x * 0.5 + 0.5) * 255.0).round() as u8;
    let texel = [encode(tilt.sin()), encode(0.0), encode(tilt.cos()), 255];
    let mut document = quads_gltf(
        &[column([-1.5, 1.5], 0)],
        json!([{"name": "tilted mirror", "normalTexture": {"index": 0},
                "pbrMetallicRoughness": {"metallicFactor": 1.0, "roughnessFactor": 0.0}}]),
        json!([{"uri": png_data_uri(1, 1, &texel)}]),
        json!([{"source": 0}]),
        json!([]),
    );
    if !with_normals {
        document["meshes"][0]["primitives"][0]["attributes"]
            .as_object_mut()
            .unwrap()
            .remove("NORMAL");
    }
    let scene = Scene::load(&write(&format!("tilted-{with_normals}.gltf"), &document)).unwrap();
    assert!(
        scene.warnings.iter().all(|w| !w.contains("mesh")),
        "{:?}",
        scene.warnings
    );
    let mesh = &scene.meshes[0];
    assert!(mesh.tangents.is_some(), "MikkTSpace tangents were not generated");
    // The quad faces +Z: flat normals are its own (and the split keeps its four corners).
    assert!(
        mesh.normals
            .as_ref()
            .is_some_and(|n| n.iter().all(|n| n.abs_diff_eq(Vec3::Z, 1e-6))),
        "{:?}",
        mesh.normals
    );
    assert_eq!(mesh.positions.len(), 4);
    // A map that changes with azimuth: red rises with u.
    let (width, height) = (256u32, 8u32);
    let texels: Vec<Vec3> = (0..width * height)
        .map(|i| {
            let u = ((i % width) as f32 + 0.5) / width as f32;
            Vec3::new(u, 1.0 - u, 0.25)
        })
        .collect();
    let map = EnvironmentMap::from_texels(Path::new("azimuth"), width, height, texels).unwrap();
    let decoded = Vec3::new(f32::from(texel[0]), f32::from(texel[1]), f32::from(texel[2])) / 255.0 * 2.0 - 1.0;
    let normal = decoded.normalize();
    let points = plane_points(&scene);
    let (camera, _) = RenderCamera::for_scene(&scene, SIZE, SIZE);
    for image in render(&scene, Environment::map(map), 4) {
        let mut checked = 0;
        for (i, (pixel, point)) in image.pixels.iter().zip(&points).enumerate() {
            let Some(p) = *point else { continue };
            if p.x.abs() > 1.4 || p.y.abs() > 0.9 {
                continue;
            }
            let (_, d) = camera.ray(
                Vec2::new((i as u32 % SIZE) as f32, (i as u32 / SIZE) as f32),
                Vec2::splat(0.5),
                SIZE,
                SIZE,
            );
            let r = d - 2.0 * d.dot(normal) * normal;
            let u = (r.x.atan2(-r.z) / std::f32::consts::TAU).rem_euclid(1.0);
            let seen = Vec3::from_array(*pixel);
            assert!(
                (seen.x - u).abs() < 0.02,
                "at {p}: red {} where the tilt reflects towards u = {u}",
                seen.x
            );
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} pixels checked");
    }
}

#[test]
fn an_undecodable_image_is_a_warning_and_magenta() {
    let document = quads_gltf(
        &[column([-1.5, 1.5], 0)],
        json!([{"name": "broken", "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorTexture": {"index": 0}},
                "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}}]),
        json!([{"uri": "data:image/png;base64,bm90IGEgcG5n"}]),
        json!([{"source": 0}]),
        json!([]),
    );
    let scene = Scene::load(&write("broken.gltf", &document)).unwrap();
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("material broken") && w.contains("magenta")),
        "{:?}",
        scene.warnings
    );
    let image = render(&scene, Environment::constant(Vec3::ONE), 64).remove(0);
    let centre = Vec3::from_array(image.pixel(SIZE as usize / 2, SIZE as usize / 2));
    assert!(
        (centre - Vec3::new(1.0, 0.0, 1.0)).abs().max_element() < 0.08,
        "{centre}"
    );
}

/// Mean of each 8x8 block of pixels.
fn block_means(image: &RgbImage) -> Vec<f32> {
    let blocks = SIZE as usize / 8;
    let mut means = vec![0.0f32; blocks * blocks];
    for (i, p) in image.pixels.iter().enumerate() {
        let (x, y) = (i % SIZE as usize / 8, i / SIZE as usize / 8);
        means[y * blocks + x] += (p[0] + p[1] + p[2]) / 3.0 / 64.0;
    }
    means
}

#[test]
fn a_masked_texture_cuts_out_like_geometry_and_its_shadows_too() {
    // A white floor, and above it a black quad whose alpha texture keeps a 4x4 checker of
    // squares; under a uniform sky the floor shows the cut-out's shadow through its holes.
    // The same squares as real geometry must give the same image, up to noise.
    let mut alpha = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            alpha.extend_from_slice(&[0, 0, 0, if (x + y) % 2 == 0 { 255 } else { 0 }]);
        }
    }
    let materials = json!([
        {"name": "floor", "pbrMetallicRoughness": {"metallicFactor": 0.0},
         "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}},
        {"name": "leaf", "alphaMode": "MASK", "alphaCutoff": 0.5,
         "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorTexture": {"index": 0}},
         "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}},
        {"name": "black", "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorFactor": [0.0, 0.0, 0.0, 1.0]},
         "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}}
    ]);
    let floor = Quad {
        x: [-2.0, 2.0],
        y: [-2.0, 2.0],
        z: 0.0,
        material: 0,
    };
    let leaf = Quad {
        x: [-0.8, 0.8],
        y: [-0.8, 0.8],
        z: 0.4,
        material: 1,
    };
    let images = json!([{"uri": png_data_uri(4, 4, &alpha)}]);
    let textures = json!([{"source": 0, "sampler": 0}]);
    let samplers = json!([{"magFilter": 9728, "minFilter": 9728}]);
    let masked = quads_gltf(
        &[floor, leaf],
        materials.clone(),
        images.clone(),
        textures.clone(),
        samplers.clone(),
    );
    // Texel (x, y) covers u in [x/4, (x+1)/4], v in [y/4, (y+1)/4], v from the top.
    let mut squares = vec![floor];
    for y in 0..4 {
        for x in 0..4 {
            if (x + y) % 2 == 0 {
                let x0 = -0.8 + 0.4 * x as f32;
                let y1 = 0.8 - 0.4 * y as f32;
                squares.push(Quad {
                    x: [x0, x0 + 0.4],
                    y: [y1 - 0.4, y1],
                    z: 0.4,
                    material: 2,
                });
            }
        }
    }
    let geometric = quads_gltf(&squares, materials, images, textures, samplers);
    let masked = Scene::load(&write("masked.gltf", &masked)).unwrap();
    let geometric = Scene::load(&write("geometric.gltf", &geometric)).unwrap();
    let sky = Environment::constant(Vec3::ONE);
    let integrators = [IntegratorKind::Wavefront, IntegratorKind::Megakernel];
    let reference = block_means(&render_with(&geometric, sky.clone(), 64, &integrators[..1])[0]);
    for image in render_with(&masked, sky, 64, &integrators) {
        let blocks = block_means(&image);
        let worst = blocks
            .iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        // Blocks wholly on a solid square are black, wholly in a hole about 0.5 to 1.
        assert!(
            worst < 0.04,
            "the cut-out and the geometry differ by {worst} in an 8x8 block"
        );
        // The solid squares cover about 800 pixels: they are black.
        let dark = image.pixels.iter().filter(|p| p[0] + p[1] + p[2] < 0.01).count();
        assert!(dark > 500, "only {dark} black pixels: where are the solid squares?");
    }
}

#[test]
fn blended_alpha_lets_through_one_minus_alpha() {
    let document = quads_gltf(
        &[column([-1.5, 1.5], 0)],
        json!([{"name": "veil", "alphaMode": "BLEND",
                "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorFactor": [0.0, 0.0, 0.0, 0.25]},
                "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}}]),
        json!([]),
        json!([]),
        json!([]),
    );
    let scene = Scene::load(&write("veil.gltf", &document)).unwrap();
    let points = plane_points(&scene);
    for image in render_with(
        &scene,
        Environment::constant(Vec3::ONE),
        64,
        &[IntegratorKind::Wavefront, IntegratorKind::Megakernel],
    ) {
        let (mut sum, mut count) = (0.0f64, 0);
        for (pixel, point) in image.pixels.iter().zip(&points) {
            if point.is_some_and(|p| p.x.abs() < 1.4 && p.y.abs() < 0.9) {
                sum += f64::from(pixel[0]);
                count += 1;
            }
        }
        let mean = sum / f64::from(count);
        assert!((mean - 0.75).abs() < 0.01, "a veil of alpha 0.25 lets {mean} through");
    }
}

#[test]
fn a_jpeg_texture_decodes() {
    // A flat colour survives JPEG within a step or two of 8 bits.
    let rgb = vec![[180u8, 60, 90]; 16 * 16].concat();
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 95)
        .encode(&rgb, 16, 16, image::ExtendedColorType::Rgb8)
        .unwrap();
    let uri = format!(
        "data:image/jpeg;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&jpeg)
    );
    let document = quads_gltf(
        &[column([-1.5, 1.5], 0)],
        json!([{"name": "photo", "emissiveFactor": [1.0, 1.0, 1.0], "emissiveTexture": {"index": 0},
                "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorFactor": [0.0, 0.0, 0.0, 1.0]},
                "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}}]),
        json!([{"uri": uri}]),
        json!([{"source": 0}]),
        json!([]),
    );
    let scene = Scene::load(&write("photo.gltf", &document)).unwrap();
    assert!(
        scene.warnings.iter().all(|w| !w.contains("photo")),
        "{:?}",
        scene.warnings
    );
    let image = render(&scene, Environment::constant(Vec3::ZERO), 1).remove(0);
    let centre = Vec3::from_array(image.pixel(SIZE as usize / 2, SIZE as usize / 2));
    let expected = linear([180, 60, 90, 255]);
    assert!(
        (centre - expected).abs().max_element() < 0.02,
        "{centre} against {expected}"
    );
}

/// glTF's `minFilter` NEAREST and LINEAR name no mipmap: a minified lookup reads the
/// full-size image (the spec follows OpenGL). A fine checker of red and blue texels, minified
/// about six times, seen at one sample a pixel: through a NEAREST sampler every pixel is one
/// texel's colour; through the default sampler (trilinear) the pixels are the mip levels'
/// purple, which shows that the footprint does reach past level 0 here. (Until 2026-11-28
/// NEAREST read the nearest mip level, and its pixels were purple too.)
#[test]
fn minification_without_a_mipmap_reads_the_full_image() {
    const TEXELS: u32 = 256;
    const RED: [u8; 4] = [255, 0, 0, 255];
    const BLUE: [u8; 4] = [0, 0, 255, 255];
    let checker: Vec<u8> = (0..TEXELS * TEXELS)
        .flat_map(|i| if (i % TEXELS + i / TEXELS) % 2 == 0 { RED } else { BLUE })
        .collect();
    let glow = |sampler: usize| {
        json!({"name": format!("glow {sampler}"), "emissiveFactor": [1.0, 1.0, 1.0],
               "emissiveTexture": {"index": sampler},
               "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorFactor": [0.0, 0.0, 0.0, 1.0]},
               "extensions": {"KHR_materials_specular": {"specularFactor": 0.0}}})
    };
    let document = quads_gltf(
        &[column([-1.9, -0.1], 0), column([0.1, 1.9], 1)],
        json!([glow(0), glow(1)]),
        json!([{"uri": png_data_uri(TEXELS, TEXELS, &checker)}]),
        json!([{"source": 0, "sampler": 0}, {"source": 0}]),
        json!([{"magFilter": 9728, "minFilter": 9728}]),
    );
    let scene = Scene::load(&write("minified.gltf", &document)).unwrap();
    let points = plane_points(&scene);
    let settings = RenderSettings {
        environment: Some(Environment::constant(Vec3::ZERO)),
        ..RenderSettings::new(SIZE, SIZE, 1, 1, TraceBackend::Query)
    };
    let (red, blue) = (linear(RED), linear(BLUE));
    for (what, image) in common::render_each_named(&scene, &settings, &common::PATH_INTEGRATORS) {
        let (mut texels, mut purple) = (0, 0);
        for (pixel, point) in image.pixels.iter().zip(&points) {
            let Some(p) = *point else { continue };
            if p.y.abs() > 0.95 {
                continue;
            }
            let seen = Vec3::from_array(*pixel);
            if (-1.85..-0.15).contains(&p.x) {
                let off = (seen - red).abs().max_element().min((seen - blue).abs().max_element());
                assert!(off < 0.01, "{what}: at {p}, {seen} is neither texel through NEAREST");
                texels += 1;
            } else if (0.15..1.85).contains(&p.x) && seen.x > 0.2 && seen.x < 0.8 && seen.z > 0.2 && seen.z < 0.8 {
                purple += 1;
            }
        }
        assert!(texels > 500, "{what}: only {texels} pixels checked");
        assert!(
            purple > texels / 2,
            "{what}: {purple} purple pixels through the trilinear sampler: the checker is not minified"
        );
    }
}

/// `document` with `set` (TEXCOORD_n) of every primitive at `uvs`, one entry a quad corner.
fn with_coordinates(document: &Value, set: &str, uvs: [[f32; 2]; 4]) -> Value {
    let mut document = document.clone();
    let bytes: Vec<u8> = uvs.as_flattened().iter().flat_map(|f| f.to_le_bytes()).collect();
    let accessor = common::append_accessor(&mut document, &bytes, 5126, 4, "VEC2", false);
    for mesh in document["meshes"].as_array_mut().unwrap() {
        for primitive in mesh["primitives"].as_array_mut().unwrap() {
            primitive["attributes"][set] = json!(accessor);
        }
    }
    document
}

/// The quads' own texture coordinates (`quads_gltf`), times `scale`.
fn quad_uvs(scale: f32) -> [[f32; 2]; 4] {
    [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]].map(|[u, v]| [u * scale, v * scale])
}

/// `document` with each primitive's texture coordinates moved to TEXCOORD_1, and TEXCOORD_0
/// replaced by one point of the textures (0.3, 0.7) for every vertex, which a renderer that
/// read TEXCOORD_0 would show as flat colour.
fn coordinates_moved_to_set_one(document: &Value) -> Value {
    let moved = with_coordinates(document, "TEXCOORD_1", quad_uvs(1.0));
    with_coordinates(&moved, "TEXCOORD_0", [[0.3, 0.7]; 4])
}

/// The first image of each render, every pixel's bits.
fn pixels(document: &Value, name: &str) -> (Vec<[f32; 3]>, Vec<String>) {
    let scene = Scene::load(&write(name, document)).unwrap();
    let image = render(&scene, Environment::constant(Vec3::ONE), 4).swap_remove(0);
    (image.pixels, scene.warnings)
}

#[test]
fn textures_read_at_texcoord_1_render_as_they_do_at_texcoord_0() {
    let original = checker_and_glow();
    let (expected, _) = pixels(&original, "set-zero.gltf");
    let moved = coordinates_moved_to_set_one(&original);
    // The control: the materials still read TEXCOORD_0, which now holds one point.
    let (unread, _) = pixels(&moved, "set-one-unread.gltf");
    assert_ne!(
        unread, expected,
        "TEXCOORD_0's replacement changes nothing: the test cannot fail"
    );
    // The base colour names its set in the texture info, the emission in KHR_texture_transform,
    // which overrides the texture info's.
    let mut reading = moved.clone();
    reading["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] = json!(1);
    reading["materials"][1]["emissiveTexture"]["extensions"] = json!({"KHR_texture_transform": {"texCoord": 1}});
    let (seen, warnings) = pixels(&reading, "set-one.gltf");
    assert!(warnings.iter().all(|w| !w.contains("TEXCOORD")), "{warnings:?}");
    assert!(
        seen == expected,
        "textures read at TEXCOORD_1 render differently from the same at TEXCOORD_0"
    );
}

#[test]
fn a_material_whose_textures_read_two_sets_reads_each_at_its_own() {
    // The glow quad gets a white base colour with the checker on it, read at twice its
    // coordinates: through KHR_texture_transform's scale in the reference, from a TEXCOORD_1
    // of doubled coordinates in the file under test, whose emission reads TEXCOORD_0 still.
    let mut reference = checker_and_glow();
    reference["materials"][1]["pbrMetallicRoughness"] = json!({"metallicFactor": 0.0, "baseColorTexture":
        {"index": 0, "extensions": {"KHR_texture_transform": {"scale": [2.0, 2.0]}}}});
    let (expected, _) = pixels(&reference, "two-sets-reference.gltf");
    let mut two_sets = with_coordinates(&reference, "TEXCOORD_1", quad_uvs(2.0));
    two_sets["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0, "texCoord": 1});
    let (seen, warnings) = pixels(&two_sets, "two-sets.gltf");
    assert!(warnings.iter().all(|w| !w.contains("TEXCOORD")), "{warnings:?}");
    // The control: the same file reading the base colour at TEXCOORD_0 shows the checks at half
    // the frequency.
    let mut one_set = two_sets.clone();
    one_set["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"]["texCoord"] = json!(0);
    let (unread, _) = pixels(&one_set, "two-sets-unread.gltf");
    assert_ne!(
        unread, expected,
        "the doubled coordinates change nothing: the test cannot fail"
    );
    assert!(
        seen == expected,
        "a texture read at TEXCOORD_1 beside one at TEXCOORD_0 renders differently"
    );
}

#[test]
fn a_material_reading_three_sets_and_a_mesh_lacking_its_set_are_warnings() {
    let mut three = checker_and_glow();
    three["materials"][1]["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0, "texCoord": 2});
    three["materials"][1]["pbrMetallicRoughness"]["metallicRoughnessTexture"] = json!({"index": 0, "texCoord": 1});
    let scene = Scene::load(&write("three-sets.gltf", &three)).unwrap();
    let warned = |words: &[&str]| common::warned(&scene, words);
    assert!(
        warned(&["material glow", "TEXCOORD_0, TEXCOORD_1, TEXCOORD_2"]),
        "{:?}",
        scene.warnings
    );
    // The mesh lacks TEXCOORD_2, which the glow material's base colour reads.
    assert!(
        warned(&["mesh quad 1/0", "TEXCOORD_2", "lacks"]),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn a_normal_texture_gets_tangents_of_the_set_it_reads() {
    let texel = [128u8, 128, 255, 255];
    let tangents = |normal_set: u32| {
        let document = quads_gltf(
            &[column([-1.5, 1.5], 0)],
            json!([{"name": "two sets", "normalTexture": {"index": 0, "texCoord": normal_set},
                    "pbrMetallicRoughness": {"metallicFactor": 0.0, "baseColorTexture": {"index": 0}}}]),
            json!([{"uri": png_data_uri(1, 1, &texel)}]),
            json!([{"source": 0}]),
            json!([]),
        );
        // TEXCOORD_1 runs u the other way along the quad: its tangents point along -X.
        let document = with_coordinates(
            &document,
            "TEXCOORD_1",
            [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]],
        );
        let scene = Scene::load(&write(&format!("tangents-set-{normal_set}.gltf"), &document)).unwrap();
        assert!(
            scene.warnings.iter().all(|w| !w.contains("mesh")),
            "{:?}",
            scene.warnings
        );
        scene.meshes[0]
            .tangents
            .clone()
            .expect("MikkTSpace tangents were not generated")
    };
    for (set, along) in [(0, Vec3::X), (1, -Vec3::X)] {
        let generated = tangents(set);
        assert!(
            generated.iter().all(|t| t.truncate().abs_diff_eq(along, 1e-5)),
            "normal texture at TEXCOORD_{set}: tangents {generated:?}, not along {along}"
        );
    }
}
