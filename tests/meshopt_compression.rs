//! EXT_meshopt_compression through the importer: the Cornell box with every buffer view
//! compressed by meshoptimizer's own encoder (a dev-dependency) into one buffer, and the views
//! falling back to a placeholder buffer without data, as gltfpack writes files. It loads as
//! the plain file does, as .gltf and .glb, and renders as Mitsuba's reference; broken streams
//! and views are errors that name the file and the view.

use crate::common;
use crate::hostile;

use base64::Engine;
use serde_json::{json, Value};
use std::path::Path;
use wavetrace::film::metrics;
use wavetrace::integrator::{IntegratorKind, RenderSettings};
use wavetrace::scene::gltf::import_bytes;
use wavetrace::scene::{ImportOptions, Scene};

fn load(name: &str, bytes: &[u8]) -> Result<Scene, String> {
    import_bytes(Path::new(name), bytes, &ImportOptions::default()).map_err(|e| e.to_string())
}

fn load_json(name: &str, document: &Value) -> Result<Scene, String> {
    load(name, &serde_json::to_vec(document).unwrap())
}

/// The same meshes as the plain file's: positions bit for bit, each triangle the same up to a
/// turn of its corners (the index codec may turn them; the winding stays).
fn assert_same_meshes(scene: &Scene, plain: &Scene, what: &str) {
    assert_eq!(scene.meshes.len(), plain.meshes.len(), "{what}");
    for (mesh, plain) in scene.meshes.iter().zip(&plain.meshes) {
        assert_eq!(mesh.positions, plain.positions, "{what}: {}", mesh.name);
        assert_eq!(mesh.indices.len(), plain.indices.len(), "{what}: {}", mesh.name);
        for (got, want) in mesh.indices.chunks_exact(3).zip(plain.indices.chunks_exact(3)) {
            let turns = [[0, 1, 2], [1, 2, 0], [2, 0, 1]].map(|r| r.map(|k| want[k]));
            assert!(turns.iter().any(|t| t == got), "{what}: {got:?} is not {want:?} turned");
        }
    }
}

#[test]
fn compressed_views_load_as_the_plain_file_does() {
    let plain = common::load_scene("cornell-box");
    let document = hostile::meshopt_cornell_box();
    let scene = load_json("cornell-meshopt.gltf", &document).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !scene
            .warnings
            .iter()
            .any(|w| w.contains("meshopt") || w.contains("no uri")),
        "{:?}",
        scene.warnings
    );
    assert_same_meshes(&scene, &plain, ".gltf");
    // A fallback buffer that names a file not shipped with the scene is not read.
    let mut unshipped = document.clone();
    unshipped["buffers"][1]["uri"] = json!("not-shipped.bin");
    let scene = load_json("cornell-meshopt.gltf", &unshipped).unwrap_or_else(|e| panic!("{e}"));
    assert_same_meshes(&scene, &plain, "a fallback file not shipped");
    // As a .glb: the streams in the binary chunk, the placeholder the second buffer.
    let glb = hostile::to_glb(&document);
    let scene = load("cornell-meshopt.glb", &glb).unwrap_or_else(|e| panic!("{e}"));
    assert_same_meshes(&scene, &plain, ".glb");
}

/// Rendered, the compressed box is Mitsuba's box (means within 2%, relMSE within twice
/// Mitsuba's own at 64 spp) and the plain file's render as an estimate.
#[test]
fn the_compressed_box_renders_as_the_reference() {
    let scene = load_json("cornell-meshopt.gltf", &hostile::meshopt_cornell_box()).unwrap();
    let plain = common::load_scene("cornell-box");
    let gpu = common::gpu();
    let settings = RenderSettings {
        integrator: IntegratorKind::Wavefront,
        ..RenderSettings::new(64, 64, 64, 8, gpu.context.trace_backends()[0])
    };
    let image = common::render(&gpu.context, &scene, &settings);
    let plain_image = common::render(&gpu.context, &plain, &settings);
    gpu.finish();
    let c = metrics::compare(&image, &common::reference("cornell-box", 64, 8)).unwrap();
    eprintln!("the compressed Cornell box against Mitsuba's: {c:?}");
    common::assert_means_within(&c, 0.02, "compressed Cornell box");
    assert!(c.rel_mse < 2.0 * 4.0 * 0.00118, "{c:?}");
    let (agree, c) = common::agree_as_estimates(&image, &plain_image, 2e-4);
    assert!(agree, "against the plain file's render: {c:?}");
}

fn stream_bytes(document: &Value) -> Vec<u8> {
    let uri = document["buffers"][0]["uri"].as_str().unwrap();
    base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(',').unwrap().1)
        .unwrap()
}

fn set_stream_bytes(document: &mut Value, bytes: &[u8]) {
    document["buffers"][0]["uri"] = json!(hostile::data_uri(bytes));
}

/// Each way a compressed view can be wrong is an error naming the file, the view and the
/// problem; none allocates what the file merely claims.
#[test]
fn broken_streams_and_views_are_named() {
    type Spoil = fn(&mut Value);
    let cases: [(Spoil, &[&str]); 8] = [
        (
            |d| {
                let mut bytes = stream_bytes(d);
                bytes[0] = 0x42;
                set_stream_bytes(d, &bytes);
            },
            &["bufferViews[0]", "header byte is 0x42"],
        ),
        (
            |d| {
                // The first view's stream a byte short: its tail is not where it should be.
                let length = d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["byteLength"]
                    .as_u64()
                    .unwrap();
                d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["byteLength"] = json!(length - 1);
            },
            &["bufferViews[0]", "tail"],
        ),
        (
            |d| d["bufferViews"][1]["extensions"]["EXT_meshopt_compression"]["count"] = json!(7),
            &["bufferViews[1]", "7 elements of 4 bytes are not the view's 24 bytes"],
        ),
        (
            |d| d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["mode"] = json!("SPLINES"),
            &["bufferViews[0]", "mode \"SPLINES\""],
        ),
        (
            |d| d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["filter"] = json!("QUATERNION"),
            &["bufferViews[0]", "stride of 12 bytes does not suit"],
        ),
        (
            |d| d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["byteOffset"] = json!(1u64 << 40),
            &["bufferViews[0]", "outside buffer 0"],
        ),
        (
            |d| d["bufferViews"][0]["extensions"]["EXT_meshopt_compression"]["buffer"] = json!(9),
            &["bufferViews[0]", "buffer 9 does not exist"],
        ),
        (
            |d| {
                // A view far into a placeholder that claims a terabyte: refused, not allocated.
                d["buffers"][1]["byteLength"] = json!(1u64 << 40);
                d["bufferViews"][2]["byteOffset"] = json!((1u64 << 40) - 48);
            },
            &["bufferViews[2]", "ends at byte"],
        ),
    ];
    for (spoil, words) in cases {
        let mut document = hostile::meshopt_cornell_box();
        spoil(&mut document);
        let error = load_json("broken-meshopt.gltf", &document).expect_err(words[1]);
        assert!(error.contains("broken-meshopt.gltf"), "{error}");
        assert!(error.contains("EXT_meshopt_compression"), "{error}");
        for word in words {
            assert!(error.contains(word), "{word:?} in {error}");
        }
    }
}

fn gltfpack_scene(name: &str, time: f32) -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenes/gltfpack")
        .join(name);
    let options = ImportOptions {
        time: Some(time),
        ..ImportOptions::default()
    };
    Scene::load_with(&path, &options).unwrap_or_else(|e| panic!("{e}"))
}

/// Every triangle corner of the scene in world space, instance by instance.
fn world_corners(scene: &Scene) -> Vec<glam::Vec3> {
    scene
        .instances
        .iter()
        .flat_map(|instance| {
            let mesh = &scene.meshes[instance.mesh as usize];
            mesh.indices
                .iter()
                .map(move |&i| instance.world_from_object.transform_point3(mesh.positions[i as usize]))
        })
        .collect()
}

/// A mesh's triangles as corner positions, each turned to start at its least corner (the
/// winding kept), sorted: the same shape whatever order the vertices and triangles are in.
fn triangle_set(mesh: &wavetrace::scene::Mesh) -> Vec<[[u32; 3]; 3]> {
    let mut triangles: Vec<[[u32; 3]; 3]> = mesh
        .indices
        .chunks_exact(3)
        .map(|t| {
            let c = [0, 1, 2].map(|k| mesh.positions[t[k] as usize].to_array().map(f32::to_bits));
            let least = (0..3).min_by_key(|&k| c[k]).unwrap_or(0);
            [0, 1, 2].map(|k| c[(least + k) % 3])
        })
        .collect();
    triangles.sort_unstable();
    triangles
}

fn bounds(corners: &[glam::Vec3]) -> (glam::Vec3, glam::Vec3) {
    corners.iter().fold((glam::Vec3::MAX, glam::Vec3::MIN), |(lo, hi), p| {
        (lo.min(*p), hi.max(*p))
    })
}

/// At each time the same triangles as the uncompressed twin, each instance placed within the
/// filters' precision of the twin's, the whole within the quantization's of the original file;
/// and the boxes do move.
fn assert_poses_as_twin(compressed_name: &str, twin_name: &str) {
    let mut at_zero = None;
    for time in [0.0, 0.6, 1.25, 2.5] {
        let compressed = gltfpack_scene(compressed_name, time);
        let twin = gltfpack_scene(twin_name, time);
        let original = gltfpack_scene("animated-box.gltf", time);
        let what = format!("{compressed_name} at {time} s");
        assert_eq!(compressed.instances.len(), twin.instances.len(), "{what}");
        for (a, b) in compressed.instances.iter().zip(&twin.instances) {
            let (mesh, twin_mesh) = (&compressed.meshes[a.mesh as usize], &twin.meshes[b.mesh as usize]);
            assert_eq!(triangle_set(mesh), triangle_set(twin_mesh), "{what}: {}", mesh.name);
            let (lo, hi) = bounds(&mesh.positions);
            let box_corners =
                (0..8).map(|k| glam::Vec3::select(glam::BVec3::new(k & 1 != 0, k & 2 != 0, k & 4 != 0), hi, lo));
            let moved = box_corners
                .map(|p| {
                    a.world_from_object
                        .transform_point3(p)
                        .distance(b.world_from_object.transform_point3(p))
                })
                .fold(0.0, f32::max);
            assert!(moved < 2e-3, "{what}: {} placed {moved} m from the twin's", a.node);
        }
        let corners = world_corners(&compressed);
        let ((lo, hi), (original_lo, original_hi)) = (bounds(&corners), bounds(&world_corners(&original)));
        assert!(
            lo.distance(original_lo) < 5e-3 && hi.distance(original_hi) < 5e-3,
            "{what}: bounds {lo}..{hi} against the original's {original_lo}..{original_hi}"
        );
        let still = at_zero.get_or_insert_with(|| corners.clone());
        if time > 1.0 {
            let largest = still
                .iter()
                .zip(&corners)
                .map(|(p, q)| p.distance(*q))
                .fold(0.0, f32::max);
            assert!(largest > 0.1, "{what}: nothing moved");
        }
    }
}

/// gltfpack's own compression of an animated Cornell box (tests/scenes/gltfpack: QUATERNION
/// and EXPONENTIAL filters on the animation, quantized positions, vertices reordered) against
/// its uncompressed twin: EXT_meshopt_compression, and KHR_meshopt_compression's version 1
/// attribute streams over quantized and over float positions (whose channels take 16-bit
/// and XOR deltas).
#[test]
fn gltfpack_s_compression_poses_as_its_uncompressed_twin() {
    assert_poses_as_twin("animated-box-meshopt.gltf", "animated-box-quantized.gltf");
    assert_poses_as_twin("animated-box-khr.gltf", "animated-box-quantized.gltf");
    assert_poses_as_twin("animated-box-khr-float.gltf", "animated-box-float.gltf");
}

/// all-features through gltfpack's KHR_meshopt_compression (version 1 streams, the COLOR
/// filter on its vertex colours, OCTAHEDRAL on normals and tangents) against gltfpack's
/// uncompressed twin: the same triangles, vertex colours within the filter's precision, and
/// the same image as an estimate.
#[test]
fn khr_meshopt_all_features_renders_as_its_uncompressed_twin() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/all-features");
    let load = |name: &str| Scene::load(&folder.join(name)).unwrap_or_else(|e| panic!("{e}"));
    let (compressed, twin) = (
        load("all-features-khr-meshopt.gltf"),
        load("all-features-quantized.gltf"),
    );
    assert_eq!(compressed.meshes.len(), twin.meshes.len());
    let mut coloured = 0;
    for (mesh, twin_mesh) in compressed.meshes.iter().zip(&twin.meshes) {
        assert_eq!(triangle_set(mesh), triangle_set(twin_mesh), "{}", mesh.name);
        if let (Some(colors), Some(twin_colors)) = (&mesh.colors, &twin_mesh.colors) {
            let mean = |c: &[glam::Vec4]| c.iter().copied().sum::<glam::Vec4>() / c.len() as f32;
            let (a, b) = (mean(colors), mean(twin_colors));
            assert!(
                (a - b).abs().max_element() < 2.0 / 255.0,
                "{}: mean colour {a} against {b}",
                mesh.name
            );
            coloured += 1;
        }
    }
    assert!(coloured > 0, "the COLOR filter has vertex colours to decode");
    let gpu = common::gpu();
    let settings = RenderSettings::new(48, 48, 64, 8, gpu.context.trace_backends()[0]);
    let image = common::render(&gpu.context, &compressed, &settings);
    let twin_image = common::render(&gpu.context, &twin, &settings);
    gpu.finish();
    let (agree, c) = common::agree_as_estimates(&image, &twin_image, 5e-4);
    eprintln!("all-features, KHR_meshopt_compression against uncompressed: {c:?}");
    assert!(agree, "{c:?}");
}
