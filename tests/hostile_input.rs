//! Hostile input on the CPU side (no GPU): each class of issue 16's findings as a test of its
//! own, and a fuzzer that mutates glTF JSON and GLB, PNG, HDR and EXR bytes and drives the
//! importer and the image loaders in-process. The fuzzer runs `WAVETRACE_FUZZ_SECONDS`
//! (default 20) from seed `WAVETRACE_FUZZ_SEED` (default: the clock); `tools/fuzz.sh` runs it
//! for long. Every input that panicked is saved under `target/fuzz-findings/` and belongs in
//! `tests/fuzz-regressions/`, which every run replays.

use crate::common::warned;
use crate::hostile;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::Rng as _;
use serde_json::{json, Value};
use wavetrace::environment::EnvironmentMap;
use wavetrace::scene::{ImportOptions, Scene};

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wavetrace-{}-hostile-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, document: &Value) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(document).unwrap()).unwrap();
    path
}

fn load(dir: &Path, name: &str, document: &Value) -> Result<Scene, String> {
    Scene::load(&write(dir, name, document)).map_err(|e| e.to_string())
}

#[test]
fn the_base_scene_loads_cleanly() {
    let dir = temp_dir("base");
    let scene = load(&dir, "base.gltf", &hostile::base_scene()).unwrap();
    assert_eq!(scene.meshes.len(), 2);
    assert_eq!(scene.instances.len(), 2);
    assert_eq!(scene.lights.len(), 1);
    assert_eq!(scene.textures.len(), 1);
    assert!(scene.camera.is_some());
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
}

#[test]
fn files_that_are_not_regular_are_refused_by_name() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("scene.gltf");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let started = Instant::now();
    let error = Scene::load(&fifo).unwrap_err().to_string();
    assert!(error.contains("scene.gltf") && error.contains("FIFO"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let error = Scene::load(&dir).unwrap_err().to_string();
    assert!(error.contains("gltf"), "{error}");

    // The FIFO as a buffer URI, /dev/zero as an image URI (allowed outside the folder).
    let mut document = hostile::base_scene();
    document["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 4, "uri": "scene.gltf"}));
    let error = load(&dir, "fifo-buffer.gltf", &document).unwrap_err();
    assert!(error.contains("buffer 1") && error.contains("FIFO"), "{error}");
    let mut document = hostile::base_scene();
    document["images"] = json!([{"uri": "/dev/zero"}]);
    let path = write(&dir, "zero.gltf", &document);
    let allowed = ImportOptions {
        allow_outside_uris: true,
        ..ImportOptions::default()
    };
    let scene = Scene::load_with(&path, &allowed).unwrap();
    assert!(
        warned(&scene, &["image 0", "not a regular file (a device)"]),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn uris_stay_inside_the_scene_folder_unless_allowed() {
    let dir = temp_dir("outside");
    let inside = dir.join("inside");
    std::fs::create_dir_all(&inside).unwrap();
    let mut document = hostile::base_scene();
    std::fs::write(dir.join("outside.bin"), [0u8; 8]).unwrap();
    document["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 2, "uri": "../outside.bin"}));
    let path = write(&inside, "scene.gltf", &document);
    let error = Scene::load(&path).unwrap_err().to_string();
    assert!(
        error.contains("outside the scene's folder") && error.contains("--allow-outside-uris"),
        "{error}"
    );
    let allowed = ImportOptions {
        allow_outside_uris: true,
        ..ImportOptions::default()
    };
    Scene::load_with(&path, &allowed).unwrap();
    for absolute in ["/etc/hostname", "/etc/passwd"] {
        document["buffers"][1]["uri"] = json!(absolute);
        let error = load(&inside, "absolute.gltf", &document).unwrap_err();
        assert!(error.contains("outside the scene's folder"), "{error}");
    }
}

#[test]
fn uris_are_percent_decoded_and_data_uris_need_not_be_base64() {
    let dir = temp_dir("percent");
    let mut document = hostile::base_scene();
    let uri = document["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bytes = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        uri.split_once(',').unwrap().1,
    )
    .unwrap();
    std::fs::write(dir.join("a_b c.bin"), &bytes).unwrap();
    document["buffers"][0]["uri"] = json!("a%5Fb%20c.bin");
    let from_file = load(&dir, "percent.gltf", &document).unwrap();
    let encoded: String = bytes.iter().map(|b| format!("%{b:02X}")).collect();
    document["buffers"][0]["uri"] = json!(format!("data:application/octet-stream,{encoded}"));
    let from_data = load(&dir, "percent-data.gltf", &document).unwrap();
    assert_eq!(from_file.meshes[0].positions, from_data.meshes[0].positions);
    document["buffers"][0]["uri"] = json!("https://example.com/scene.bin");
    let scene = load(&dir, "remote.gltf", &document).unwrap();
    assert!(warned(&scene, &["buffer 0", "scheme https"]), "{:?}", scene.warnings);
    assert!(scene.meshes.is_empty());
    // An empty URI is valid glTF (RFC 3986: the document itself), and holds no binary data.
    document["buffers"][0]["uri"] = json!("");
    let scene = load(&dir, "empty-uri.gltf", &document).unwrap();
    assert!(warned(&scene, &["buffer 0", "empty URI"]), "{:?}", scene.warnings);
    assert!(scene.meshes.is_empty());
}

#[test]
fn extensions_not_read_are_named_once() {
    let dir = temp_dir("unread-extensions");
    let mut document = hostile::base_scene();
    document["extensionsUsed"] = json!([
        "KHR_lights_punctual",
        "KHR_materials_variants",
        "KHR_materials_emissive_strength",
        "KHR_materials_sheen",
        "EXT_lights_image_based",
        "KHR_animation_pointer",
        "KHR_materials_variants",
        "KHR_animation_pointer"
    ]);
    document["extensions"]["KHR_materials_variants"] = json!({"variants": [{"name": "red"}]});
    document["meshes"][0]["primitives"][0]["extensions"] =
        json!({"KHR_materials_variants": {"mappings": [{"material": 1, "variants": [0]}]}});
    document["materials"][0]["extensions"] = json!({"KHR_materials_sheen": {"sheenRoughnessFactor": 0.5}});
    let scene = load(&dir, "variants.gltf", &document).unwrap();
    let named: Vec<&String> = scene.warnings.iter().filter(|w| w.contains("extensionsUsed")).collect();
    assert_eq!(named.len(), 1, "{:?}", scene.warnings);
    // Sorted, each once; the material's extension is named with its material instead, and
    // the variants are read (the default look renders).
    assert!(
        named[0].contains("EXT_lights_image_based, KHR_animation_pointer, which"),
        "{named:?}"
    );
    assert!(
        !named[0].contains("sheen") && !named[0].contains("emissive_strength") && !named[0].contains("variants"),
        "{named:?}"
    );
    assert!(warned(&scene, &["KHR_materials_sheen"]), "{:?}", scene.warnings);
    assert_eq!(scene.meshes.len(), 2);

    // The archived specular-glossiness model: named with its material, and what renders instead.
    let mut document = hostile::base_scene();
    document["extensionsUsed"] = json!(["KHR_materials_pbrSpecularGlossiness"]);
    document["materials"][0]["extensions"] = json!({"KHR_materials_pbrSpecularGlossiness": {"diffuseFactor": [0.5, 0.5, 0.5, 1.0], "glossinessFactor": 0.2}});
    let scene = load(&dir, "specular-glossiness.gltf", &document).unwrap();
    assert!(
        warned(
            &scene,
            &[
                "KHR_materials_pbrSpecularGlossiness",
                "white rough metal where it has none"
            ]
        ),
        "{:?}",
        scene.warnings
    );
    assert!(
        !scene.warnings.iter().any(|w| w.contains("extensionsUsed")),
        "{:?}",
        scene.warnings
    );
}

#[test]
fn valid_files_the_strict_model_refuses_are_taken_with_warnings() {
    let dir = temp_dir("valid");
    // extras of every JSON type, animations (one without a target node), a skin no node uses.
    let mut document = hostile::base_scene();
    document["extras"] = json!(5);
    document["nodes"][1]["extras"] = json!("a string");
    document["materials"][0]["extras"] = json!([1, 2]);
    document["animations"] = json!([{"channels": [{"sampler": 0, "target": {"path": "translation"}}],
                                     "samplers": [{"input": 0, "output": 0}]}]);
    document["skins"] = json!([{"joints": [1]}]);
    let scene = load(&dir, "extras.gltf", &document).unwrap();
    assert!(warned(&scene, &["1 animation(s) ignored"]), "{:?}", scene.warnings);
    assert!(!warned(&scene, &["skin"]), "{:?}", scene.warnings);
    assert_eq!(scene.meshes.len(), 2);

    // A scene without nodes; a second scene that is the default.
    let mut document = hostile::base_scene();
    document["scenes"] = json!([{"nodes": [0, 3]}, {"name": "empty"}]);
    document["scene"] = json!(1);
    let scene = load(&dir, "no-nodes.gltf", &document).unwrap();
    assert!(scene.instances.is_empty());

    // A light of an unknown type before the light in use: removed, the reference renumbered.
    let mut document = hostile::base_scene();
    let lights = &mut document["extensions"]["KHR_lights_punctual"]["lights"];
    lights
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"type": "area", "name": "panel"}));
    document["nodes"][2]["extensions"]["KHR_lights_punctual"]["light"] = json!(1);
    let scene = load(&dir, "light.gltf", &document).unwrap();
    assert!(warned(&scene, &["light 0 (panel)", "\"area\""]), "{:?}", scene.warnings);
    assert_eq!(scene.lights.len(), 1);
    assert!(matches!(
        scene.lights[0].kind,
        wavetrace::scene::PunctualKind::Spot { .. }
    ));
    // Renumbering leaves a dangling reference dangling, for validation to name.
    document["nodes"][1]["extensions"] = json!({"KHR_lights_punctual": {"light": 7}});
    let error = load(&dir, "dangling-light.gltf", &document).unwrap_err();
    assert!(error.contains("nodes[1]") && error.contains("out of range"), "{error}");

    // A texture without a source (an extension's image) before the one in use.
    let mut document = hostile::base_scene();
    document["textures"]
        .as_array_mut()
        .unwrap()
        .insert(0, json!({"extensions": {"KHR_texture_basisu": {"source": 0}}}));
    document["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"]["index"] = json!(1);
    document["materials"][1]["emissiveTexture"] = json!({"index": 0});
    let scene = load(&dir, "texture.gltf", &document).unwrap();
    assert!(
        warned(&scene, &["texture 0", "KHR_texture_basisu"]),
        "{:?}",
        scene.warnings
    );
    assert!(scene.materials[0]
        .base_color_texture
        .is_some_and(|t| t.texture.is_some()));
    assert!(scene.materials[1].emissive_texture.is_none());
    // The same texture used by no material: dropped without a word.
    document["materials"][1]
        .as_object_mut()
        .unwrap()
        .remove("emissiveTexture");
    let scene = load(&dir, "unused-texture.gltf", &document).unwrap();
    assert!(!warned(&scene, &["texture 0"]), "{:?}", scene.warnings);
    assert!(scene.materials[0]
        .base_color_texture
        .is_some_and(|t| t.texture.is_some()));

    // Trailing bytes after a GLB.
    let mut glb = hostile::to_glb(&hostile::base_scene());
    glb.extend_from_slice(&[0; 16]);
    let path = dir.join("padded.glb");
    std::fs::write(&path, &glb).unwrap();
    assert_eq!(Scene::load(&path).unwrap().meshes.len(), 2);
}

#[test]
fn accessors_without_views_are_zeros_and_sparse_substitutions_apply() {
    let dir = temp_dir("sparse");
    let mut document = hostile::base_scene();
    // Normals without a view (zeros: flat shading, warned), and the floor's positions with
    // a sparse substitution of vertex 2 from the lamp's positions' view.
    document["accessors"][1].as_object_mut().unwrap().remove("bufferView");
    document["accessors"][0]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": 4, "componentType": 5123},
        "values": {"bufferView": 3}
    });
    let scene = load(&dir, "sparse.gltf", &document).unwrap();
    let floor = &scene.meshes[0];
    assert!(floor.normals.is_none());
    assert!(warned(&scene, &["NORMAL has zero"]), "{:?}", scene.warnings);
    // The first sparse index is 0 (the index view's first entry): vertex 0 becomes the
    // lamp's first vertex.
    assert_eq!(floor.positions[0], glam::Vec3::new(-0.3, 1.0, -0.3));
    assert_eq!(floor.positions[1], glam::Vec3::new(1.0, 0.0, -1.0));
}

#[test]
fn offsets_past_two_to_the_sixty_four_are_errors_naming_the_accessor() {
    let dir = temp_dir("wrap");
    for (field, at) in [("byteOffset", "accessors"), ("byteOffset", "bufferViews")] {
        let mut document = hostile::base_scene();
        document[at][0][field] = json!(18446744073709551612u64);
        let error = load(&dir, "wrap.gltf", &document).unwrap_err();
        assert!(error.contains("floor/0") && error.contains("POSITION"), "{error}");
    }
    let mut document = hostile::base_scene();
    document["accessors"][0]["count"] = json!(4294967295u64);
    let error = load(&dir, "count.gltf", &document).unwrap_err();
    assert!(
        error.contains("accessor 0") && error.contains("past the end"),
        "{error}"
    );
}

#[test]
fn node_graphs_deep_shared_or_cyclic() {
    let dir = temp_dir("nodes");
    // A legal 300-deep chain, each link 0.01 up.
    let mut document = hostile::base_scene();
    let nodes = document["nodes"].as_array_mut().unwrap();
    let first = nodes.len();
    for i in 0..300 {
        let mut link = json!({"translation": [0.0, 0.01, 0.0]});
        if i < 299 {
            link["children"] = json!([first + i + 1]);
        } else {
            link["mesh"] = json!(1);
        }
        nodes.push(link);
    }
    document["scenes"][0]["nodes"] = json!([first, 3]);
    let scene = load(&dir, "deep.gltf", &document).unwrap();
    assert_eq!(scene.instances.len(), 1);
    let height = scene.instances[0].world_from_object.w_axis.y;
    assert!((height - 3.0).abs() < 1e-3, "{height}");

    // A DAG: 24 levels of two references to the next node expand to 2^24 instances.
    let mut document = hostile::base_scene();
    let nodes = document["nodes"].as_array_mut().unwrap();
    let first = nodes.len();
    for level in 0..24 {
        nodes.push(json!({"children": [first + level + 1, first + level + 1]}));
    }
    nodes.push(json!({"mesh": 1}));
    document["scenes"][0]["nodes"] = json!([first, 3]);
    let started = Instant::now();
    let error = load(&dir, "dag.gltf", &document).unwrap_err();
    assert!(error.contains("16777216 mesh instances"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // A cycle.
    let mut document = hostile::base_scene();
    document["nodes"][1]["children"] = json!([0]);
    let error = load(&dir, "cycle.gltf", &document).unwrap_err();
    assert!(error.contains("cycle") && error.contains("node 0 (room)"), "{error}");
}

#[test]
fn truncated_glbs_say_so_with_both_lengths() {
    let dir = temp_dir("glb");
    let glb = hostile::to_glb(&hostile::base_scene());
    for keep in [8, 30, glb.len() - 10] {
        let path = dir.join("cut.glb");
        std::fs::write(&path, &glb[..keep]).unwrap();
        let error = Scene::load(&path).unwrap_err().to_string();
        assert!(
            error.contains("cut.glb") && error.contains("truncated"),
            "{keep}: {error}"
        );
        assert!(!error.contains("could not completely read"), "{error}");
    }
    let mut bad_chunk = glb.clone();
    bad_chunk[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let path = dir.join("chunk.glb");
    std::fs::write(&path, &bad_chunk).unwrap();
    let error = Scene::load(&path).unwrap_err().to_string();
    assert!(error.contains("GLB chunk 0 declares 4294967295 bytes"), "{error}");
}

#[test]
fn degenerate_cameras_are_named_and_not_used() {
    let dir = temp_dir("camera");
    type Spoil = fn(&mut Value);
    let cases: [(Spoil, &str); 3] = [
        (|d| d["cameras"][0]["perspective"]["yfov"] = json!(3.2), "field of view"),
        (|d| d["cameras"][0]["perspective"]["yfov"] = json!(0.0), "field of view"),
        (|d| d["nodes"][3]["scale"] = json!([0.0, 0.0, 0.0]), "collapses"),
    ];
    for (spoil, words) in cases {
        let mut document = hostile::base_scene();
        spoil(&mut document);
        let scene = load(&dir, "camera.gltf", &document).unwrap();
        assert!(scene.camera.is_none(), "{words}");
        assert!(warned(&scene, &["node 3 (eye)", words]), "{:?}", scene.warnings);
    }
    let mut document = hostile::base_scene();
    document["cameras"][0]["perspective"]["aspectRatio"] = json!(-1.0);
    let scene = load(&dir, "aspect.gltf", &document).unwrap();
    assert_eq!(scene.camera.as_ref().unwrap().aspect_ratio, None);
    assert!(warned(&scene, &["aspect ratio -1"]), "{:?}", scene.warnings);
    let mut document = hostile::base_scene();
    document["cameras"][0]["perspective"]["znear"] = json!(-1.0);
    let scene = load(&dir, "znear.gltf", &document).unwrap();
    assert_eq!(scene.camera.as_ref().unwrap().znear, 0.0);
    assert!(warned(&scene, &["node 3 (eye)", "znear -1"]), "{:?}", scene.warnings);
}

#[test]
fn required_extensions_are_read_or_named() {
    let dir = temp_dir("extensions");
    // KHR_mesh_quantization: the lamp's positions as normalized 16-bit integers.
    let mut document = hostile::base_scene();
    document["extensionsRequired"] = json!(["KHR_mesh_quantization"]);
    let shorts: Vec<u8> = [
        -9830i16, 32767, -9830, 9830, 32767, -9830, 0, 32767, 9830, 9830, 32767, 9830,
    ]
    .iter()
    .flat_map(|v| v.to_le_bytes())
    .collect();
    hostile::mutate_buffer(&mut document, |bytes| {
        let offset = document_view_offset();
        bytes[offset..offset + shorts.len()].copy_from_slice(&shorts);
    });
    document["bufferViews"][3]["byteLength"] = json!(shorts.len());
    document["accessors"][3] = json!({"bufferView": 3, "componentType": 5122, "normalized": true,
                                      "count": 4, "type": "VEC3"});
    let scene = load(&dir, "quantized.gltf", &document).unwrap();
    let lamp = scene.meshes[1].positions[0];
    assert!((lamp - glam::Vec3::new(-0.3, 1.0, -0.3)).length() < 1e-4, "{lamp}");

    let mut document = hostile::base_scene();
    document["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    let error = load(&dir, "draco.gltf", &document).unwrap_err();
    assert!(
        error.contains("requires extension KHR_draco_mesh_compression"),
        "{error}"
    );
}

/// Where the base scene's lamp positions start in its buffer (view 3).
fn document_view_offset() -> usize {
    hostile::base_scene()["bufferViews"][3]["byteOffset"].as_u64().unwrap() as usize
}

#[test]
fn image_headers_are_checked_before_decoding() {
    let dir = temp_dir("images");
    let path = dir.join("huge.hdr");
    let mut bytes = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 100000 +X 100000\n".to_vec();
    bytes.extend_from_slice(&[0; 64]);
    std::fs::write(&path, &bytes).unwrap();
    let error = EnvironmentMap::load(&path).unwrap_err().to_string();
    assert!(error.contains("huge.hdr") && error.contains("100000x100000"), "{error}");
    let error = wavetrace::input::decode_image(&hostile::png(1, 1)[..20]).unwrap_err();
    assert!(!error.is_empty());
    let path = dir.join("ok.hdr");
    std::fs::write(&path, hostile::hdr(8, 4)).unwrap();
    let map = EnvironmentMap::load(&path).unwrap();
    assert_eq!((map.width, map.height), (8, 4));

    // An OpenEXR data window far larger than its display window (the size the image crate
    // reports): found by the fuzzer in CI, where the exr crate's allocation of 25.8 GB for a
    // block aborted the process. Every EXR reader now sizes the data windows first.
    let mut exr =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box/ref/cornell-box-64-d2.exr"))
            .unwrap();
    let attribute = b"dataWindow\0box2i\0";
    let at = exr.windows(attribute.len()).position(|w| w == attribute).unwrap() + attribute.len() + 4;
    // xMax, after xMin and yMin: 2^27 columns.
    exr[at + 8..at + 12].copy_from_slice(&((1i32 << 27) - 1).to_le_bytes());
    let error = wavetrace::input::decode_image(&exr).unwrap_err();
    assert!(error.contains("data window of 134217728x64"), "{error}");
    let path = dir.join("wide-data-window.exr");
    std::fs::write(&path, &exr).unwrap();
    let error = wavetrace::film::read_exr(&path).unwrap_err().to_string();
    assert!(
        error.contains("wide-data-window.exr") && error.contains("data window"),
        "{error}"
    );
    let error = wavetrace::scale::read_partial(&path).unwrap_err().to_string();
    assert!(error.contains("data window"), "{error}");

    // A display window of 2^28 pixels around the same 64 x 64 of data (found by the fuzzer:
    // 11 s and 6 GB when the image crate filled the display window with black). The data
    // window is what an image is, as for `read_exr`, so it decodes as the unaltered file does.
    let plain =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box/ref/cornell-box-64-d2.exr"))
            .unwrap();
    let mut wide_display = plain.clone();
    let attribute = b"displayWindow\0box2i\0";
    let at = wide_display
        .windows(attribute.len())
        .position(|w| w == attribute)
        .unwrap()
        + attribute.len()
        + 4;
    wide_display[at + 8..at + 12].copy_from_slice(&((1i32 << 22) - 1).to_le_bytes());
    let decoded = wavetrace::input::decode_image(&wide_display).unwrap();
    assert_eq!((decoded.width(), decoded.height()), (64, 64));
    let expected = wavetrace::input::decode_image(&plain).unwrap().into_rgb32f();
    assert_eq!(decoded.into_rgb32f().as_raw(), expected.as_raw());
    let path = dir.join("wide-display-window.exr");
    std::fs::write(&path, &wide_display).unwrap();
    let expected_image = wavetrace::film::read_exr(&path).unwrap();
    let map = EnvironmentMap::load(&path).unwrap();
    assert_eq!((map.width, map.height), (64, 64));
    assert_eq!(map.texels[64 * 20 + 33].to_array(), expected_image.pixel(33, 20));
}

#[test]
fn meshes_over_the_device_limit_split_into_parts_with_the_same_triangles() {
    let scene = wavetrace::scene::Scene::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box/cornell-box.gltf"),
    )
    .unwrap();
    let largest = scene.meshes.iter().map(|m| m.triangle_count()).max().unwrap();
    assert!(scene.split_large_meshes(largest).is_none());
    let limit = 3;
    let split = scene.split_large_meshes(limit).unwrap();
    assert!(split.meshes.iter().all(|m| m.triangle_count() <= limit));
    let triangles = |scene: &Scene| {
        let mut all: Vec<[[u32; 3]; 3]> = scene
            .instances
            .iter()
            .flat_map(|instance| {
                let mesh = &scene.meshes[instance.mesh as usize];
                mesh.indices.chunks(3).map(move |t| {
                    t.iter()
                        .map(|&i| {
                            instance
                                .world_from_object
                                .transform_point3(mesh.positions[i as usize])
                                .to_array()
                                .map(f32::to_bits)
                        })
                        .collect::<Vec<_>>()
                        .try_into()
                        .unwrap()
                })
            })
            .collect();
        all.sort();
        all
    };
    assert_eq!(triangles(&scene), triangles(&split));
    assert_eq!(scene.emissive_triangle_count(), split.emissive_triangle_count());
    assert!(split.warnings.iter().any(|w| w.contains("split into")));
}

fn fuzz_seconds() -> f64 {
    std::env::var("WAVETRACE_FUZZ_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20.0)
}

/// One fuzz input: which loader it drives and its bytes.
#[derive(Clone, Copy, Debug)]
enum Target {
    Gltf,
    Glb,
    Image,
}

impl Target {
    fn extension(self) -> &'static str {
        match self {
            Target::Gltf => "gltf",
            Target::Glb => "glb",
            Target::Image => "img",
        }
    }
}

/// Runs one input through its loader; `Err` is fine, a panic is a finding.
fn drive(target: Target, bytes: &[u8], folder: &Path) {
    match target {
        Target::Gltf | Target::Glb => {
            let path = folder.join(format!("fuzz.{}", target.extension()));
            let _ = wavetrace::scene::gltf::import_bytes(&path, bytes, &ImportOptions::default());
            // Posed at a time, the animations are read too (`render --frames`).
            let posed = ImportOptions {
                time: Some(0.7),
                ..ImportOptions::default()
            };
            let _ = wavetrace::scene::gltf::import_bytes(&path, bytes, &posed);
            // With a material variant chosen, the primitives' mappings (`layered_scene`'s "lit").
            if bytes.windows(22).any(|w| w == b"KHR_materials_variants") {
                let lit = ImportOptions {
                    variant: Some("lit".into()),
                    ..ImportOptions::default()
                };
                let _ = wavetrace::scene::gltf::import_bytes(&path, bytes, &lit);
            }
        }
        Target::Image => {
            // OpenEXR also goes through the reader `wavetrace compare` uses for references.
            if bytes.starts_with(&[0x76, 0x2F, 0x31, 0x01]) {
                let path = folder.join(format!("fuzz-{:?}.exr", std::thread::current().id()));
                std::fs::write(&path, bytes).unwrap();
                let _ = wavetrace::film::read_exr(&path);
                // And the reader `wavetrace merge` uses for partial films.
                if let Ok(film) = wavetrace::scale::read_partial(&path) {
                    let _ = film.mean();
                }
            }
            if let Ok(image) = wavetrace::input::decode_image(bytes) {
                let rgb = image.into_rgb32f();
                let texels = rgb.pixels().map(|p| glam::Vec3::from_array(p.0)).collect();
                let _ = EnvironmentMap::from_texels(Path::new("fuzz"), rgb.width(), rgb.height(), texels);
            }
        }
    }
}

/// A small partial film (`render --samples`) as the fuzzer's base for `merge`'s reader: a tile
/// with samples, splats outside it, two parts.
fn partial_film(folder: &Path) -> Vec<u8> {
    use wavetrace::integrator::Crop;
    use wavetrace::scale::{Fingerprint, Part, PartialFilm};
    let fingerprint = Fingerprint {
        lines: vec!["scene 00".into(), "seed 1".into()],
    };
    let sums: Vec<u64> = (0..3 * 6 * 5).map(|i| (i as u64) << 30).collect();
    let tile = Crop {
        x: 1,
        y: 1,
        width: 3,
        height: 2,
    };
    let part = |first_sample, end_sample| Part {
        tile,
        first_sample,
        end_sample,
    };
    let mut film = PartialFilm::of_render(6, 5, sums, part(0, 4), fingerprint);
    film.parts.push(part(4, 9));
    let path = folder.join("partial-base.exr");
    wavetrace::scale::write_partial(&path, &film).unwrap();
    std::fs::read(&path).unwrap()
}

fn regressions_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions")
}

fn target_of(path: &Path) -> Target {
    match path.extension().and_then(|e| e.to_str()) {
        Some("gltf") => Target::Gltf,
        Some("glb") => Target::Glb,
        _ => Target::Image,
    }
}

/// An input that takes longer than this is a finding, as one that panics is.
const SLOW_INPUT: Duration = Duration::from_secs(10);

#[test]
fn every_earlier_fuzz_finding_stays_fixed() {
    let folder = temp_dir("regressions");
    let files: Vec<PathBuf> = std::fs::read_dir(regressions_folder())
        .map(|entries| entries.flatten().map(|e| e.path()).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    for file in &files {
        if file.extension().is_some_and(|e| e == "md") {
            continue;
        }
        let bytes = std::fs::read(file).unwrap();
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| drive(target_of(file), &bytes, &folder));
        assert!(outcome.is_ok(), "{} panics again", file.display());
        let took = started.elapsed();
        assert!(took < SLOW_INPUT, "{} takes {took:?} again", file.display());
    }
}

#[test]
fn fuzzing_the_importer_and_the_image_loaders_finds_no_panic() {
    let seconds = fuzz_seconds();
    let seed = std::env::var("WAVETRACE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        });
    // Straight to the process's stderr, past the test harness's capture: an input that aborts
    // the process (an allocation that fails) loses the captured output, and the seed replays
    // the same inputs (`WAVETRACE_FUZZ_SEED`).
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "fuzz: seed {seed}");
    let folder = temp_dir("fuzz");
    let mut deformed = hostile::skinned_floor();
    hostile::add_floor_morph_targets(&mut deformed, [0.5, 0.25]);
    // The compressed scene's buffer 0 holds its streams, which mutate_buffer mutates.
    let bases = [
        hostile::base_scene(),
        hostile::animated_scene([0.0, 1.0, 2.0]),
        deformed,
        hostile::meshopt_cornell_box(),
        hostile::khr_meshopt_box(),
        hostile::layered_scene(),
    ];
    let glb = hostile::to_glb(&bases[0]);
    let images = [
        hostile::png(4, 4),
        hostile::png(37, 5),
        hostile::hdr(8, 4),
        hostile::hdr(3, 17),
        hostile::webp(6, 5),
    ];
    let exr =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box/ref/cornell-box-64-d2.exr"))
            .unwrap();
    let partial = partial_film(&folder);
    let mut mutator = hostile::Mutator::new(seed);
    let findings_folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-findings");
    let mut findings = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    let mut executions = [0u64; 3];
    let started = Instant::now();
    while started.elapsed().as_secs_f64() < seconds {
        let choice = mutator.rng.random_range(0..10);
        let (target, bytes) = match choice {
            0..=4 => {
                let mut document = bases[mutator.rng.random_range(0..bases.len())].clone();
                mutator.mutate_json(&mut document);
                if mutator.rng.random_bool(0.2) {
                    hostile::mutate_buffer(&mut document, |bytes| mutator.mutate_bytes(bytes, 0));
                }
                (Target::Gltf, serde_json::to_vec(&document).unwrap())
            }
            5 | 6 => {
                let mut bytes = glb.clone();
                mutator.mutate_bytes(&mut bytes, 12);
                (Target::Glb, bytes)
            }
            _ => {
                let mut bytes = match mutator.rng.random_range(0..images.len() + 2) {
                    i if i == images.len() => exr.clone(),
                    i if i == images.len() + 1 => partial.clone(),
                    i => images[i].clone(),
                };
                mutator.mutate_bytes(&mut bytes, 16);
                (Target::Image, bytes)
            }
        };
        let one = Instant::now();
        let outcome = std::panic::catch_unwind(|| drive(target, &bytes, &folder));
        let took = one.elapsed();
        executions[target as usize] += 1;
        let name = format!("{seed}-{}.{}", executions.iter().sum::<u64>(), target.extension());
        if took > slowest.0 {
            slowest = (took, name.clone());
        }
        if outcome.is_err() || took > SLOW_INPUT {
            std::fs::create_dir_all(&findings_folder).unwrap();
            std::fs::write(findings_folder.join(&name), &bytes).unwrap();
            findings.push(format!("{name} ({})", if outcome.is_err() { "panic" } else { "slow" }));
        }
    }
    let total: u64 = executions.iter().sum();
    println!(
        "fuzz: seed {seed}, {total} executions in {:.1} s (gltf {}, glb {}, images {}), slowest {:?} ({}), {} findings",
        started.elapsed().as_secs_f64(),
        executions[0],
        executions[1],
        executions[2],
        slowest.0,
        slowest.1,
        findings.len()
    );
    assert!(total > 0);
    assert!(
        findings.is_empty(),
        "inputs that panicked or took over 10 s, saved in {}: {findings:?}",
        findings_folder.display()
    );
}
