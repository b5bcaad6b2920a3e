//! glTF import: the reference scenes load as their makers describe them, and bad input of
//! every kind is an error or a warning that names the file and the part at fault.

use std::path::{Path, PathBuf};

use crate::common::{append_accessor, warned};
use base64::Engine as _;
use glam::Vec3;
use serde_json::{json, Value};
use wavetrace::scene::{Scene, SceneError};

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenes")
        .join(name)
        .join(format!("{name}.gltf"))
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wavetrace-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A one-primitive glTF with an embedded buffer: `positions` (and optional `indices`),
/// one material with the given emission, and a camera node unless `camera` is false.
fn tiny_gltf(positions: &[[f32; 3]], indices: Option<&[u32]>, emission: [f32; 3], camera: bool) -> Value {
    let mut bytes: Vec<u8> = positions.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    let position_bytes = bytes.len();
    let mut accessors = vec![json!({"bufferView": 0, "componentType": 5126, "count": positions.len(), "type": "VEC3"})];
    let mut views = vec![json!({"buffer": 0, "byteOffset": 0, "byteLength": position_bytes})];
    let mut primitive = json!({"attributes": {"POSITION": 0}, "material": 0});
    if let Some(indices) = indices {
        bytes.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
        views.push(json!({"buffer": 0, "byteOffset": position_bytes, "byteLength": indices.len() * 4}));
        accessors.push(json!({"bufferView": 1, "componentType": 5125, "count": indices.len(), "type": "SCALAR"}));
        primitive["indices"] = json!(1);
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let mut nodes = vec![json!({"name": "thing", "mesh": 0})];
    let mut scene_nodes = vec![0];
    if camera {
        nodes.push(json!({"name": "eye", "camera": 0, "translation": [0.0, 0.0, 3.0]}));
        scene_nodes.push(1);
    }
    json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": scene_nodes}],
        "nodes": nodes,
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.8, "znear": 0.01}}],
        "meshes": [{"name": "tiny", "primitives": [primitive]}],
        "materials": [{"name": "glow", "emissiveFactor": emission,
                       "pbrMetallicRoughness": {"metallicFactor": 0.0}}],
        "buffers": [{"byteLength": bytes.len(), "uri": uri}],
        "bufferViews": views,
        "accessors": accessors,
    })
}

const QUAD: [[f32; 3]; 4] = [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]];
const QUAD_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];

fn write(dir: &Path, name: &str, document: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(document).unwrap()).unwrap();
    path
}

#[test]
fn cornell_box_loads_as_mitsuba_describes_it() {
    let scene = Scene::load(&scene_path("cornell-box")).unwrap();
    assert_eq!(scene.meshes.len(), 8);
    assert_eq!(scene.instances.len(), 8);
    let camera = scene.camera.as_ref().expect("the file has a camera");
    let wavetrace::scene::Projection::Perspective { yfov } = camera.projection else {
        panic!("{:?}", camera.projection)
    };
    assert!((yfov - 0.686_048_8).abs() < 1e-6);
    assert!((camera.znear - 0.001).abs() < 1e-9, "{}", camera.znear);
    assert!((camera.world_from_camera.w_axis.truncate() - Vec3::new(0.0, 0.0, 3.9)).length() < 1e-6);
    let light = scene.materials.iter().find(|m| m.name == "light").unwrap();
    assert!(
        (light.emission - Vec3::new(18.387, 13.9873, 6.75357))
            .abs()
            .max_element()
            < 1e-3,
        "{:?}",
        light.emission
    );
    assert_eq!(light.specular, 0.0);
    assert_eq!(scene.emissive_triangle_count(), 2);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let (lo, hi) = scene.bounds().unwrap();
    assert!(lo.min_element() >= -1.01 && hi.max_element() <= 1.01, "{lo} {hi}");
}

#[test]
fn the_other_reference_scenes_load() {
    let furnace = Scene::load(&scene_path("furnace-box")).unwrap();
    assert_eq!(furnace.emissive_triangle_count(), furnace.triangle_count());
    let glass = Scene::load(&scene_path("cornell-glass")).unwrap();
    assert!(glass
        .materials
        .iter()
        .any(|m| m.transmission == 1.0 && m.roughness == 0.0 && m.ior == 1.5));
    assert!(glass.meshes.iter().any(|m| m.triangle_count() == 5120));
    let many = Scene::load(&scene_path("cornell-many-lights")).unwrap();
    assert_eq!(many.emissive_triangle_count(), 2048);
}

#[test]
fn a_shared_mesh_is_stored_once_and_mirrors_flip_the_winding() {
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    document["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "mirror", "mesh": 0, "scale": [-1.0, 1.0, 1.0]}));
    document["scenes"][0]["nodes"].as_array_mut().unwrap().push(json!(2));
    let dir = temp_dir("shared");
    let scene = Scene::load(&write(&dir, "shared.gltf", &document)).unwrap();
    assert_eq!(scene.meshes.len(), 1);
    assert_eq!(scene.instances.len(), 2);
    assert!(!scene.instances[0].flips_winding());
    assert!(scene.instances[1].flips_winding());
}

#[test]
fn glb_and_gltf_give_the_same_scene() {
    let gltf_path = scene_path("cornell-box");
    let mut document: Value = serde_json::from_slice(&std::fs::read(&gltf_path).unwrap()).unwrap();
    let mut bin = std::fs::read(gltf_path.with_extension("bin")).unwrap();
    document["buffers"][0].as_object_mut().unwrap().remove("uri");
    let mut json_chunk = serde_json::to_vec(&document).unwrap();
    while json_chunk.len() % 4 != 0 {
        json_chunk.push(b' ');
    }
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let total = 12 + 8 + json_chunk.len() + 8 + bin.len();
    let mut glb = Vec::new();
    glb.extend(b"glTF");
    glb.extend(2u32.to_le_bytes());
    glb.extend((total as u32).to_le_bytes());
    glb.extend((json_chunk.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&json_chunk);
    glb.extend((bin.len() as u32).to_le_bytes());
    glb.extend(b"BIN\0");
    glb.extend(&bin);
    let dir = temp_dir("glb");
    let glb_path = dir.join("cornell-box.glb");
    std::fs::write(&glb_path, glb).unwrap();
    let from_glb = Scene::load(&glb_path).unwrap();
    let from_gltf = Scene::load(&gltf_path).unwrap();
    assert_eq!(from_glb.meshes.len(), from_gltf.meshes.len());
    for (a, b) in from_glb.meshes.iter().zip(&from_gltf.meshes) {
        assert_eq!(a.positions, b.positions);
        assert_eq!(a.indices, b.indices);
    }
    assert_eq!(from_glb.materials, from_gltf.materials);
}

#[test]
fn non_indexed_strips_and_fans_become_triangle_lists() {
    let dir = temp_dir("modes");
    let plain = Scene::load(&write(&dir, "plain.gltf", &tiny_gltf(&QUAD[..3], None, [1.0; 3], true))).unwrap();
    assert_eq!(plain.meshes[0].indices, [0, 1, 2]);
    // Strip 0,1,2,3 is triangles (0,1,2) and (2,1,3): every second one reversed to keep the winding.
    for (mode, want) in [(5, [0, 1, 2, 2, 1, 3]), (6, [0, 1, 2, 0, 2, 3])] {
        let mut document = tiny_gltf(&QUAD, None, [1.0; 3], true);
        document["meshes"][0]["primitives"][0]["mode"] = json!(mode);
        let scene = Scene::load(&write(&dir, &format!("mode{mode}.gltf"), &document)).unwrap();
        assert_eq!(scene.meshes[0].indices, want, "mode {mode}");
    }
}

#[test]
fn a_missing_file_names_the_file() {
    let error = Scene::load(Path::new("/nonexistent/scene.gltf")).unwrap_err();
    assert!(matches!(error, SceneError::Io { .. }));
    assert!(error.to_string().contains("/nonexistent/scene.gltf"), "{error}");
    let error = Scene::load(Path::new("scene.obj")).unwrap_err().to_string();
    assert!(error.contains("scene.obj") && error.contains(".gltf"), "{error}");
}

#[test]
fn a_truncated_bin_is_an_error_naming_the_buffer() {
    let dir = temp_dir("truncated");
    std::fs::copy(scene_path("cornell-box"), dir.join("box.gltf")).unwrap();
    let bin = std::fs::read(scene_path("cornell-box").with_extension("bin")).unwrap();
    std::fs::write(dir.join("cornell-box.bin"), &bin[..bin.len() / 2]).unwrap();
    let error = Scene::load(&dir.join("box.gltf")).unwrap_err().to_string();
    assert!(
        error.contains("box.gltf") && error.contains("cornell-box.bin") && error.contains("truncated"),
        "{error}"
    );
    std::fs::remove_file(dir.join("cornell-box.bin")).unwrap();
    let error = Scene::load(&dir.join("box.gltf")).unwrap_err().to_string();
    assert!(
        error.contains("cannot read") && error.contains("cornell-box.bin"),
        "{error}"
    );
}

#[test]
fn malformed_json_is_an_error_naming_the_file() {
    let dir = temp_dir("malformed");
    let path = dir.join("broken.gltf");
    std::fs::write(&path, b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [").unwrap();
    let error = Scene::load(&path).unwrap_err();
    assert!(matches!(error, SceneError::Malformed { .. }), "{error}");
    assert!(error.to_string().contains("broken.gltf"));
    let mut dangling = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    dangling["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(7);
    let error = Scene::load(&write(&dir, "dangling.gltf", &dangling))
        .unwrap_err()
        .to_string();
    assert!(error.contains("dangling.gltf"), "{error}");
}

#[test]
fn an_accessor_out_of_range_is_an_error_naming_the_mesh() {
    let dir = temp_dir("accessor");
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    document["accessors"][0]["count"] = json!(1000);
    let error = Scene::load(&write(&dir, "long.gltf", &document))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("long.gltf") && error.contains("tiny/0") && error.contains("past the end"),
        "{error}"
    );

    let mut document = tiny_gltf(&QUAD, Some(&[0, 1, 9]), [1.0; 3], true);
    document["meshes"][0]["name"] = json!("bad-index");
    let error = Scene::load(&write(&dir, "index.gltf", &document))
        .unwrap_err()
        .to_string();
    assert!(error.contains("bad-index") && error.contains("index 9"), "{error}");
}

#[test]
fn nan_and_infinite_positions_skip_their_triangles_with_a_warning() {
    let dir = temp_dir("nan");
    let mut positions = QUAD.to_vec();
    positions.push([f32::NAN, 0.0, 0.0]);
    positions.push([0.0, f32::INFINITY, 0.0]);
    let indices = [0, 1, 2, 0, 2, 3, 0, 1, 4, 2, 3, 5];
    let scene = Scene::load(&write(
        &dir,
        "nan.gltf",
        &tiny_gltf(&positions, Some(&indices), [1.0; 3], true),
    ))
    .unwrap();
    assert_eq!(scene.meshes[0].indices, QUAD_INDICES);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("tiny/0") && w.contains("2 triangle(s)")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn no_emitters_and_no_camera_are_warnings() {
    let dir = temp_dir("dark");
    let scene = Scene::load(&write(
        &dir,
        "dark.gltf",
        &tiny_gltf(&QUAD, Some(&QUAD_INDICES), [0.0; 3], false),
    ))
    .unwrap();
    assert!(scene.camera.is_none());
    assert!(
        scene.warnings.iter().any(|w| w.contains("no emissive")),
        "{:?}",
        scene.warnings
    );
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("no usable perspective camera")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn points_and_lines_are_skipped_with_a_warning_naming_the_mesh() {
    let dir = temp_dir("points");
    let mut document = tiny_gltf(&QUAD, None, [1.0; 3], true);
    document["meshes"][0]["primitives"][0]["mode"] = json!(0);
    let scene = Scene::load(&write(&dir, "points.gltf", &document)).unwrap();
    assert!(scene.meshes.is_empty() && scene.instances.is_empty());
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("tiny/0") && w.contains("Points")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn mutated_files_never_panic() {
    // Each number in the file replaced, one at a time, by a hostile value: every load must
    // end in a scene or an error.
    let dir = temp_dir("mutated");
    let text = std::fs::read_to_string(scene_path("cornell-box")).unwrap();
    std::fs::copy(
        scene_path("cornell-box").with_extension("bin"),
        dir.join("cornell-box.bin"),
    )
    .unwrap();
    let numbers: Vec<(usize, usize)> = {
        let bytes = text.as_bytes();
        let mut spans = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_digit() {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                spans.push((start, i));
            } else {
                i += 1;
            }
        }
        spans
    };
    let path = dir.join("mutated.gltf");
    let mut outcomes = [0usize; 2];
    for (n, &(start, end)) in numbers.iter().enumerate() {
        let hostile = ["99999999", "0", "-1", "3", "1e39"][n % 5];
        let mutated = format!("{}{hostile}{}", &text[..start], &text[end..]);
        std::fs::write(&path, mutated).unwrap();
        outcomes[Scene::load(&path).is_ok() as usize] += 1;
    }
    assert!(
        outcomes[0] > 0 && outcomes[1] > 0,
        "some mutations must fail and some load: {outcomes:?}"
    );
}

#[test]
fn a_scene_without_camera_is_framed_whole_and_says_so() {
    let mut scene = Scene::load(&scene_path("cornell-box")).unwrap();
    scene.camera = None;
    let (camera, note) = wavetrace::scene::RenderCamera::for_scene(&scene, 64, 48);
    assert!(note.unwrap().contains("no camera"));
    // Every bounding-box corner projects inside the image.
    let (lo, hi) = scene.bounds().unwrap();
    for i in 0..8 {
        let corner = Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        );
        let d = corner - camera.origin;
        let depth = d.dot(camera.forward);
        assert!(depth > 0.0);
        let x = d.dot(camera.right) / depth / (camera.half_height * camera.aspect);
        let y = d.dot(camera.up) / depth / camera.half_height;
        assert!(x.abs() <= 1.0 && y.abs() <= 1.0, "corner {corner} at ({x}, {y})");
    }
    let with_camera = Scene::load(&scene_path("cornell-box")).unwrap();
    assert!(wavetrace::scene::RenderCamera::for_scene(&with_camera, 64, 64)
        .1
        .is_none());
}

#[test]
fn material_parameters_that_are_not_rendered_are_named_once() {
    let dir = temp_dir("ignored");
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    // A 1x1 PNG is enough for a texture reference; its content is not read.
    document["images"] = json!([{"uri": "leaf.png"}]);
    document["textures"] = json!([{"source": 0}]);
    document["extensionsUsed"] = json!(["KHR_materials_volume", "KHR_materials_clearcoat", "KHR_materials_sheen"]);
    document["materials"] = json!([
        {"name": "leaf", "alphaMode": "MASK", "alphaCutoff": 0.4,
         "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}},
         "occlusionTexture": {"index": 0},
         "extensions": {"KHR_materials_volume": {"thicknessFactor": 0.1, "thicknessTexture": {"index": 0}},
                        "KHR_materials_clearcoat": {"clearcoatFactor": 1.0, "clearcoatTexture": {"index": 0}},
                        "KHR_materials_sheen": {"sheenColorFactor": [1.0, 1.0, 1.0]}}},
        {"name": "plain", "pbrMetallicRoughness": {"metallicFactor": 0.0}}
    ]);
    let scene = Scene::load(&write(&dir, "ignored.gltf", &document)).unwrap();
    let about_leaf: Vec<&String> = scene
        .warnings
        .iter()
        .filter(|w| w.contains("material leaf: ignored"))
        .collect();
    assert_eq!(about_leaf.len(), 1, "{:?}", scene.warnings);
    for name in [
        "occlusionTexture",
        "KHR_materials_volume.thicknessTexture",
        "KHR_materials_sheen",
    ] {
        assert!(about_leaf[0].contains(name), "{name} missing from {}", about_leaf[0]);
    }
    // The coat's texture is rendered (tests/layer_textures.rs).
    assert!(!about_leaf[0].contains("clearcoatTexture"), "{}", about_leaf[0]);
    assert!(scene.materials[0].layers.clearcoat.is_some());
    assert!(
        !scene.warnings.iter().any(|w| w.contains("material plain")),
        "{:?}",
        scene.warnings
    );
    // Its image is not there: one more warning, and magenta.
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("material leaf: image 0") && w.contains("magenta")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn a_volume_absorbs_only_where_its_thickness_makes_it_one() {
    let dir = temp_dir("thin-walled");
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    document["extensionsUsed"] = json!(["KHR_materials_transmission", "KHR_materials_volume"]);
    let glass = |name: &str, volume: Value| {
        json!({"name": name, "pbrMetallicRoughness": {"metallicFactor": 0.0, "roughnessFactor": 0.0},
               "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1.0}, "KHR_materials_volume": volume}})
    };
    let attenuation = json!({"attenuationColor": [0.5, 0.25, 1.0], "attenuationDistance": 2.0});
    let mut thick = attenuation.clone();
    thick["thicknessFactor"] = json!(0.3);
    let mut zero = attenuation.clone();
    zero["thicknessFactor"] = json!(0.0);
    document["materials"] = json!([
        glass("thick", thick),
        glass("default", attenuation),
        glass("zero", zero)
    ]);
    let scene = Scene::load(&write(&dir, "thin-walled.gltf", &document)).unwrap();
    // Beer's law: -ln(colour) / distance per unit length.
    let expected = Vec3::new(0.5f32.ln(), 0.25f32.ln(), 0.0) / -2.0;
    assert!(
        scene.materials[0].absorption.abs_diff_eq(expected, 1e-6),
        "{}",
        scene.materials[0].absorption
    );
    // thicknessFactor 0, the default, is thin-walled in glTF: no volume, nothing absorbed, and said so.
    for (index, name) in [(1, "default"), (2, "zero")] {
        assert_eq!(scene.materials[index].absorption, Vec3::ZERO, "{name}");
        let about = format!("material {name}: ignored");
        assert!(warned(&scene, &[&about, "thin-walled"]), "{name}: {:?}", scene.warnings);
    }
    assert!(
        !scene.warnings.iter().any(|w| w.contains("material thick")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn punctual_lights_are_placed_by_their_nodes() {
    let dir = temp_dir("punctual");
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [0.0; 3], true);
    document["extensionsUsed"] = json!(["KHR_lights_punctual"]);
    document["extensions"] = json!({"KHR_lights_punctual": {"lights": [
        {"name": "bulb", "type": "point", "color": [1.0, 0.5, 0.25], "intensity": 4.0, "range": 3.0},
        {"type": "spot", "intensity": 2.0, "spot": {"innerConeAngle": 0.2, "outerConeAngle": 0.4}},
        {"type": "directional", "intensity": -1.0}
    ]}});
    // Rotated 90 degrees about +X: the spot's -Z turns to +Y.
    let half = std::f32::consts::FRAC_PI_4;
    let nodes = document["nodes"].as_array_mut().unwrap();
    nodes.push(json!({"name": "bulb node", "translation": [1.0, 2.0, 3.0],
                      "extensions": {"KHR_lights_punctual": {"light": 0}}}));
    nodes.push(
        json!({"name": "spot node", "rotation": [half.sin(), 0.0, 0.0, half.cos()],
                      "extensions": {"KHR_lights_punctual": {"light": 1}}}),
    );
    nodes.push(json!({"name": "sun node", "extensions": {"KHR_lights_punctual": {"light": 2}}}));
    let count = nodes.len();
    document["scenes"][0]["nodes"] = json!((0..count).collect::<Vec<_>>());
    let scene = Scene::load(&write(&dir, "punctual.gltf", &document)).unwrap();
    assert_eq!(scene.lights.len(), 2, "{:?}", scene.lights);
    let bulb = &scene.lights[0];
    assert_eq!(bulb.name, "bulb");
    assert_eq!(bulb.position, glam::Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(bulb.intensity, glam::Vec3::new(4.0, 2.0, 1.0));
    assert_eq!(bulb.range, Some(3.0));
    let spot = &scene.lights[1];
    assert!((spot.direction - glam::Vec3::Y).length() < 1e-5, "{}", spot.direction);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("sun node") && w.contains("intensity")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn every_usable_camera_is_kept_in_node_order_and_the_first_renders() {
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    let cameras = document["cameras"].as_array_mut().unwrap();
    cameras
        .push(json!({"type": "orthographic", "orthographic": {"xmag": 1.0, "ymag": 1.5, "znear": 0.1, "zfar": 10.0}}));
    cameras
        .push(json!({"type": "orthographic", "orthographic": {"xmag": 1.0, "ymag": 0.0, "znear": 0.1, "zfar": 10.0}}));
    let nodes = document["nodes"].as_array_mut().unwrap();
    nodes.push(json!({"name": "parallel", "camera": 1, "translation": [0.0, 0.0, -1.0]}));
    nodes.push(json!({"name": "flat", "camera": 2}));
    nodes.push(json!({"name": "second", "camera": 0, "translation": [0.0, 2.0, 5.0]}));
    nodes.push(json!({"name": "third", "camera": 0, "translation": [4.0, 0.0, 0.0]}));
    document["scenes"][0]["nodes"] = json!([0, 1, 2, 3, 4, 5]);
    let dir = temp_dir("cameras");
    let scene = Scene::load(&write(&dir, "cameras.gltf", &document)).unwrap();
    let origin = |c: &wavetrace::scene::Camera| c.world_from_camera.transform_point3(glam::Vec3::ZERO);
    assert_eq!(origin(scene.camera.as_ref().unwrap()), glam::Vec3::new(0.0, 0.0, 3.0));
    let more: Vec<glam::Vec3> = scene.more_cameras.iter().map(origin).collect();
    assert_eq!(
        more,
        [
            glam::Vec3::new(0.0, 0.0, -1.0),
            glam::Vec3::new(0.0, 2.0, 5.0),
            glam::Vec3::new(4.0, 0.0, 0.0)
        ]
    );
    assert_eq!(
        scene.more_cameras[0].projection,
        wavetrace::scene::Projection::Orthographic { xmag: 1.0, ymag: 1.5 }
    );
    assert!(scene
        .warnings
        .iter()
        .any(|w| w.contains("flat") && w.contains("camera ignored") && w.contains("magnification")));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `document` (from `tiny_gltf`) with a COLOR_0 accessor of `count` elements of `kind` made of
/// `component_type` components, `normalized` or not, read from `bytes`.
fn with_colors(
    mut document: Value,
    component_type: u32,
    kind: &str,
    normalized: bool,
    count: usize,
    bytes: &[u8],
) -> Value {
    let engine = base64::engine::general_purpose::STANDARD;
    let uri = document["buffers"][0]["uri"].as_str().unwrap().to_string();
    let mut buffer = engine.decode(uri.split_once(',').unwrap().1).unwrap();
    let offset = buffer.len();
    buffer.extend_from_slice(bytes);
    document["buffers"][0] = json!({
        "byteLength": buffer.len(),
        "uri": format!("data:application/octet-stream;base64,{}", engine.encode(&buffer)),
    });
    let views = document["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": bytes.len()}));
    let view = views.len() - 1;
    let accessors = document["accessors"].as_array_mut().unwrap();
    accessors.push(
        json!({"bufferView": view, "componentType": component_type, "normalized": normalized,
                          "count": count, "type": kind}),
    );
    let accessor = accessors.len() - 1;
    document["meshes"][0]["primitives"][0]["attributes"]["COLOR_0"] = json!(accessor);
    document
}

#[test]
fn vertex_colors_load_as_rgba_multipliers_in_every_encoding() {
    let dir = temp_dir("colors");
    let quad = || tiny_gltf(&QUAD, Some(&QUAD_INDICES), [0.0; 3], true);
    let load = |name: &str, document: &Value| Scene::load(&write(&dir, name, document)).unwrap();
    let load_error = |name: &str, document: &Value| Scene::load(&write(&dir, name, document)).unwrap_err().to_string();

    let rgb = [
        [1.0f32, 0.5, 0.25],
        [0.0, 1.0, 0.0],
        [0.125, 0.75, 1.0],
        [1.0, 1.0, 1.0],
    ];
    let bytes: Vec<u8> = rgb.iter().flatten().flat_map(|v| v.to_le_bytes()).collect();
    let scene = load("float.gltf", &with_colors(quad(), 5126, "VEC3", false, 4, &bytes));
    let colors = scene.meshes[0].colors.as_ref().expect("COLOR_0 is read");
    assert_eq!(colors[0], glam::Vec4::new(1.0, 0.5, 0.25, 1.0), "RGB gets alpha 1");
    assert_eq!(colors[2], glam::Vec4::new(0.125, 0.75, 1.0, 1.0));

    let scene = load(
        "bytes.gltf",
        &with_colors(
            quad(),
            5121,
            "VEC4",
            true,
            4,
            &[255, 0, 51, 102, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255],
        ),
    );
    let colors = scene.meshes[0].colors.as_ref().unwrap();
    assert_eq!(colors[0], glam::Vec4::new(1.0, 0.0, 0.2, 0.4), "normalized bytes");

    let shorts: Vec<u8> = [65535u16, 32768, 0, 65535]
        .iter()
        .cycle()
        .take(16)
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let scene = load("shorts.gltf", &with_colors(quad(), 5123, "VEC4", true, 4, &shorts));
    let colors = scene.meshes[0].colors.as_ref().unwrap();
    assert_eq!(
        colors[1],
        glam::Vec4::new(1.0, 32768.0 / 65535.0, 0.0, 1.0),
        "normalized shorts"
    );

    let white: Vec<u8> = [1.0f32; 16].iter().flat_map(|v| v.to_le_bytes()).collect();
    let scene = load("white.gltf", &with_colors(quad(), 5126, "VEC4", false, 4, &white));
    assert!(
        scene.meshes[0].colors.is_none(),
        "white vertex colours change nothing and are dropped"
    );

    let mut wild = [0.5f32; 16];
    (wild[0], wild[5], wild[10]) = (2.0, -1.0, f32::NAN);
    let wild: Vec<u8> = wild.iter().flat_map(|v| v.to_le_bytes()).collect();
    let scene = load("wild.gltf", &with_colors(quad(), 5126, "VEC4", false, 4, &wild));
    let colors = scene.meshes[0].colors.as_ref().unwrap();
    assert_eq!(
        (colors[0].x, colors[1].y, colors[2].z),
        (1.0, 0.0, 1.0),
        "clamped, NaN as 1"
    );
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("tiny/0") && w.contains("3 COLOR_0 entries")),
        "{:?}",
        scene.warnings
    );

    let error = load_error("short.gltf", &with_colors(quad(), 5126, "VEC3", false, 3, &bytes[..36]));
    assert!(
        error.contains("short.gltf") && error.contains("tiny/0") && error.contains("COLOR_0 has 3 entries"),
        "{error}"
    );
    let error = load_error(
        "scalar.gltf",
        &with_colors(quad(), 5126, "SCALAR", false, 4, &bytes[..16]),
    );
    assert!(error.contains("tiny/0") && error.contains("COLOR_0"), "{error}");
}

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The tiny quad's node placed at z = -1 and scaled by 2, drawn three times by
/// EXT_mesh_gpu_instancing: `translations` (three copies), rotations as normalized shorts (as
/// quantized files store them) and scales, three of each (the scales one fewer when
/// `short_scales`).
fn instanced_quad(translations: &[f32], short_scales: bool) -> Value {
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [1.0; 3], true);
    document["extensionsUsed"] = json!(["EXT_mesh_gpu_instancing"]);
    document["extensionsRequired"] = json!(["EXT_mesh_gpu_instancing"]);
    let t = append_accessor(&mut document, &floats(translations), 5126, 3, "VEC3", false);
    // Identity; a quarter turn about z; a half turn about y (x, y, z, w).
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let rotations: Vec<u8> = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, h, h, 0.0, 1.0, 0.0, 0.0]
        .iter()
        .flat_map(|&c: &f32| ((c * 32767.0).round() as i16).to_le_bytes())
        .collect();
    let r = append_accessor(&mut document, &rotations, 5122, 3, "VEC4", true);
    let scale_count = if short_scales { 2 } else { 3 };
    let s = append_accessor(
        &mut document,
        &floats(&[1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 1.0, 3.0, 1.0][..3 * scale_count]),
        5126,
        scale_count,
        "VEC3",
        false,
    );
    document["nodes"][0]["translation"] = json!([0.0, 0.0, -1.0]);
    document["nodes"][0]["scale"] = json!([2.0, 2.0, 2.0]);
    document["nodes"][0]["extensions"] =
        json!({"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": t, "ROTATION": r, "SCALE": s}}});
    document
}

#[test]
fn an_instanced_node_places_one_copy_per_transform_in_its_own_space() {
    use glam::{Mat4, Quat};
    let translations = [0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, -2.0, 1.0];
    let dir = temp_dir("instancing");
    let scene = Scene::load(&write(&dir, "instanced.gltf", &instanced_quad(&translations, false))).unwrap();
    assert!(
        scene.warnings.iter().all(|w| !w.contains("EXT_mesh_gpu_instancing")),
        "{:?}",
        scene.warnings
    );
    assert_eq!(scene.meshes.len(), 1, "the copies share one mesh");
    let node = Mat4::from_translation(Vec3::new(0.0, 0.0, -1.0)) * Mat4::from_scale(Vec3::splat(2.0));
    let rotations = [
        Quat::IDENTITY,
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        Quat::from_rotation_y(std::f32::consts::PI),
    ];
    let scales = [Vec3::ONE, Vec3::splat(0.5), Vec3::new(1.0, 3.0, 1.0)];
    assert_eq!(scene.instances.len(), 3);
    for (i, instance) in scene.instances.iter().enumerate() {
        let copy = Mat4::from_scale_rotation_translation(
            scales[i],
            rotations[i],
            Vec3::from_slice(&translations[3 * i..3 * i + 3]),
        );
        let expected = node * copy;
        // Rotations as 16-bit integers: a few 1e-5 off.
        assert!(
            instance.world_from_object.abs_diff_eq(expected, 1e-4),
            "copy {i}: {:?} where the node's transform times the copy's gives {expected:?}",
            instance.world_from_object
        );
    }
    // The half turn about y shows the copy's back: its winding is not flipped (only mirrors are).
    assert!(scene.instances.iter().all(|i| !i.flips_winding()));
}

#[test]
fn instancing_accessors_of_different_lengths_are_an_error_naming_the_node() {
    let dir = temp_dir("instancing-lengths");
    let document = instanced_quad(&[0.0; 9], true);
    let error = Scene::load(&write(&dir, "lengths.gltf", &document))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("lengths.gltf") && error.contains("node 0 (thing)") && error.contains("different numbers"),
        "{error}"
    );
}

#[test]
fn an_instanced_copy_with_a_non_finite_transform_is_skipped_with_a_warning() {
    let dir = temp_dir("instancing-nan");
    let document = instanced_quad(&[0.0, 0.0, 0.0, f32::NAN, 0.0, 0.0, 0.0, 1.0, 0.0], false);
    let scene = Scene::load(&write(&dir, "nan.gltf", &document)).unwrap();
    assert_eq!(scene.instances.len(), 2);
    assert!(
        warned(&scene, &["node 0 (thing)", "1 EXT_mesh_gpu_instancing"]),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn a_clearcoat_is_read_clamped_and_a_texture_it_names_that_is_not_there_is_a_warning() {
    let dir = temp_dir("clearcoat");
    let mut document = tiny_gltf(
        &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        None,
        [1.0; 3],
        true,
    );
    document["extensionsUsed"] = json!(["KHR_materials_clearcoat"]);
    document["extensionsRequired"] = json!(["KHR_materials_clearcoat"]);
    document["materials"][0]["extensions"] = json!({"KHR_materials_clearcoat": {
        "clearcoatFactor": 0.75, "clearcoatRoughnessFactor": 0.3}});
    let scene = Scene::load(&write(&dir, "coat.gltf", &document)).unwrap();
    let material = &scene.materials[0];
    assert_eq!((material.clearcoat, material.clearcoat_roughness), (0.75, 0.3));
    assert!(
        scene.warnings.iter().all(|w| !w.contains("clearcoat")),
        "{:?}",
        scene.warnings
    );

    // Out of range factors are clamped; a texture the file does not have is named as rendered
    // without.
    document["materials"][0]["extensions"] = json!({"KHR_materials_clearcoat": {
        "clearcoatFactor": 3.0, "clearcoatRoughnessFactor": -1.0,
        "clearcoatNormalTexture": {"index": 0}}});
    let scene = Scene::load(&write(&dir, "coat-out-of-range.gltf", &document)).unwrap();
    let material = &scene.materials[0];
    assert_eq!((material.clearcoat, material.clearcoat_roughness), (1.0, 0.0));
    assert!(warned(&scene, &["clearcoatFactor", "clamped"]), "{:?}", scene.warnings);
    assert!(
        warned(
            &scene,
            &[
                "KHR_materials_clearcoat.clearcoatNormalTexture names texture 0, which the file does not have",
                "rendered without it"
            ]
        ),
        "{:?}",
        scene.warnings
    );
    // Without the extension there is no coat.
    let scene = Scene::load(&write(
        &dir,
        "plain.gltf",
        &tiny_gltf(&[[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], None, [1.0; 3], true),
    ))
    .unwrap();
    assert_eq!(scene.materials[0].clearcoat, 0.0);
}

/// EXT_texture_webp: the WebP image the extension names is the one read, beside a PNG
/// `source` other readers fall back to, and alone where the file requires the extension.
#[test]
fn webp_images_are_read_where_ext_texture_webp_names_them() {
    let dir = temp_dir("webp");
    let mut document = crate::hostile::base_scene();
    document["images"]
        .as_array_mut()
        .unwrap()
        .push(json!({"uri": crate::hostile::data_uri(&crate::hostile::webp(5, 3))}));
    document["textures"][0]["extensions"] = json!({"EXT_texture_webp": {"source": 1}});
    document["extensionsUsed"] = json!(["EXT_texture_webp"]);
    let expected: Vec<u8> = (0..15).flat_map(|i| crate::hostile::webp_texel(i % 5, i / 5)).collect();
    let with_fallback = write(&dir, "webp-fallback.gltf", &document);
    document["textures"][0].as_object_mut().unwrap().remove("source");
    document["extensionsRequired"] = json!(["EXT_texture_webp"]);
    let required = write(&dir, "webp-required.gltf", &document);
    for path in [with_fallback, required] {
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scene.textures.len(), 1, "{}", path.display());
        let texture = &scene.textures[0];
        assert_eq!((texture.width, texture.height), (5, 3));
        assert_eq!(texture.levels[0], expected, "{}", path.display());
        assert!(
            !scene
                .warnings
                .iter()
                .any(|w| w.contains("EXT_texture_webp") || w.contains("magenta")),
            "{:?}",
            scene.warnings
        );
    }
}

/// The textures of the layers' factors: each read with its texCoord, its KHR_texture_transform
/// and (the coat's normal texture) its scale; the specular colour in sRGB, the others as data;
/// none named among what is not rendered.
#[test]
fn the_layers_textures_are_read_with_their_sets_transforms_and_colour_spaces() {
    let dir = temp_dir("layer-textures");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/all-features/leaf.png"),
        dir.join("leaf.png"),
    )
    .unwrap();
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [0.0; 3], true);
    document["images"] = json!([{"uri": "leaf.png"}]);
    document["textures"] = json!([{"source": 0}]);
    document["extensionsUsed"] = json!([
        "KHR_materials_specular",
        "KHR_materials_transmission",
        "KHR_materials_clearcoat",
        "KHR_texture_transform"
    ]);
    let transform = json!({"KHR_texture_transform": {"offset": [0.25, 0.5], "scale": [2.0, 3.0]}});
    document["materials"] = json!([{"name": "layered", "extensions": {
        "KHR_materials_specular": {"specularTexture": {"index": 0, "texCoord": 1},
                                   "specularColorTexture": {"index": 0}},
        "KHR_materials_transmission": {"transmissionFactor": 0.5, "transmissionTexture": {"index": 0}},
        "KHR_materials_clearcoat": {"clearcoatFactor": 1.0,
                                    "clearcoatTexture": {"index": 0, "extensions": transform},
                                    "clearcoatRoughnessTexture": {"index": 0, "texCoord": 1},
                                    "clearcoatNormalTexture": {"index": 0, "scale": 0.5}}}}]);
    let scene = Scene::load(&write(&dir, "layered.gltf", &document)).unwrap();
    assert!(
        !scene.warnings.iter().any(|w| w.contains("ignored (rendered without)")),
        "{:?}",
        scene.warnings
    );
    let layers = scene.materials[0].layers;
    let texture = |reference: Option<wavetrace::scene::TextureRef>| {
        let reference = reference.expect("a layer texture was not read");
        (reference, &scene.textures[reference.texture.unwrap() as usize])
    };
    let (specular, image) = texture(layers.specular);
    assert_eq!((specular.tex_coord, image.srgb), (1, false));
    let (_, image) = texture(layers.specular_color);
    assert!(image.srgb, "specularColorTexture is colour");
    let (transmission, image) = texture(layers.transmission);
    assert_eq!((transmission.tex_coord, image.srgb), (0, false));
    let (coat, _) = texture(layers.clearcoat);
    assert_eq!(coat.transform.translation, glam::Vec2::new(0.25, 0.5));
    assert_eq!(coat.transform.matrix2.x_axis.x, 2.0);
    assert_eq!(coat.transform.matrix2.y_axis.y, 3.0);
    assert_eq!(texture(layers.clearcoat_roughness).0.tex_coord, 1);
    let (normal, image) = texture(layers.clearcoat_normal);
    assert_eq!((normal.scale, image.srgb), (0.5, false));
    // TEXCOORD_1, which the quad lacks, is named for the textures that read it.
    assert!(warned(&scene, &["TEXCOORD_1"]), "{:?}", scene.warnings);
}

/// KHR_materials_variants: `ImportOptions::variant` gives each primitive the material its
/// mappings name for that variant, its own where none does; without one the file's default
/// look renders; an unknown name is an error listing the file's variants.
#[test]
fn a_material_variant_is_chosen_by_name_and_an_unknown_one_is_an_error_naming_the_variants() {
    let dir = temp_dir("variants");
    let mut document = tiny_gltf(&QUAD, Some(&QUAD_INDICES), [0.0; 3], true);
    document["materials"] = json!([
        {"name": "plain"},
        {"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.0, 0.0, 1.0]}},
        {"name": "blue", "pbrMetallicRoughness": {"baseColorFactor": [0.0, 0.0, 1.0, 1.0]}}
    ]);
    document["extensionsUsed"] = json!(["KHR_materials_variants"]);
    document["extensions"] = json!({"KHR_materials_variants": {
        "variants": [{"name": "Red"}, {"name": "Blue"}, {"name": "Bare"}]}});
    document["meshes"][0]["primitives"][0]["extensions"] = json!({"KHR_materials_variants": {"mappings": [
        {"material": 1, "variants": [0]}, {"material": 2, "variants": [1]}]}});
    let path = write(&dir, "variants.gltf", &document);
    let load = |variant: Option<&str>| {
        Scene::load_with(
            &path,
            &wavetrace::scene::ImportOptions {
                variant: variant.map(str::to_string),
                ..Default::default()
            },
        )
    };
    let material_of = |scene: &Scene| scene.materials[scene.meshes[0].material as usize].name.clone();
    for (variant, expected) in [
        (None, "plain"),
        (Some("Red"), "red"),
        (Some("Blue"), "blue"),
        (Some("Bare"), "plain"),
    ] {
        let scene = load(variant).unwrap();
        assert_eq!(material_of(&scene), expected, "variant {variant:?}");
        assert!(
            !scene.warnings.iter().any(|w| w.contains("KHR_materials_variants")),
            "{:?}",
            scene.warnings
        );
    }
    let error = load(Some("Green")).unwrap_err().to_string();
    assert!(
        error.contains("variants.gltf") && error.contains("\"Green\"") && error.contains("Red, Blue, Bare"),
        "{error}"
    );
    // A mapping naming a material the file does not have is a warning; the primitive keeps its own.
    document["meshes"][0]["primitives"][0]["extensions"]["KHR_materials_variants"]["mappings"][1]["material"] =
        json!(99);
    std::fs::write(&path, serde_json::to_vec(&document).unwrap()).unwrap();
    let scene = load(Some("Blue")).unwrap();
    assert_eq!(material_of(&scene), "plain");
    assert!(
        warned(&scene, &["mesh tiny/0", "names a material the file does not have"]),
        "{:?}",
        scene.warnings
    );
    // A file without variants names that instead.
    let plain = write(
        &dir,
        "plain.gltf",
        &tiny_gltf(&QUAD, Some(&QUAD_INDICES), [0.0; 3], true),
    );
    let error = Scene::load_with(
        &plain,
        &wavetrace::scene::ImportOptions {
            variant: Some("Red".into()),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("has no KHR_materials_variants"), "{error}");
}
