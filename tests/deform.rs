//! Skins and morph targets (`scene::gltf::deform`): a skinned mesh lands where its weighted
//! joint matrices put it, whatever its own node's transform, posed by animations as its joints
//! move; morph weights come from the animation, else the node, else the mesh; and a skinned
//! scene renders as the scene it reproduces, not as the one its node's transform would give.
//! The scenes are `hostile`'s, which the importer's fuzzing mutates too.

use crate::common::{self, append_accessor, warned};
use crate::hostile::{self, floats, FLOAT, UNSIGNED_BYTE};

use std::path::{Path, PathBuf};

use glam::{Mat3, Mat4, Quat, Vec3};
use serde_json::{json, Value};
use wavetrace::film::metrics;
use wavetrace::integrator::RenderSettings;
use wavetrace::scene::{ImportOptions, Scene};

fn folder(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!("wavetrace-deform-{test}-{}", std::process::id()))
}

fn load(dir: &Path, name: &str, document: &Value, time: Option<f32>) -> Scene {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(document).unwrap()).unwrap();
    let options = ImportOptions {
        time,
        ..ImportOptions::default()
    };
    Scene::load_with(&path, &options).unwrap_or_else(|e| panic!("{e}"))
}

/// The mesh the node named `node` draws, and its instance's transform.
fn drawn<'a>(scene: &'a Scene, node: &str) -> (&'a wavetrace::scene::Mesh, Mat4) {
    let instance = scene.instances.iter().find(|i| i.node == node).unwrap();
    (&scene.meshes[instance.mesh as usize], instance.world_from_object)
}

fn assert_close(found: Vec3, expected: Vec3, what: &str) {
    assert!((found - expected).length() < 1e-5, "{what}: {found} against {expected}");
}

/// The floor's vertices as the hostile base scene has them.
const FLOOR: [Vec3; 4] = [
    Vec3::new(-1.0, 0.0, -1.0),
    Vec3::new(1.0, 0.0, -1.0),
    Vec3::new(1.0, 0.0, 1.0),
    Vec3::new(-1.0, 0.0, 1.0),
];

/// The joint matrices of `skinned_floor`, computed here from its definition: each joint's
/// world transform times its inverse bind matrix. `knee_turn`: the knee's rotation.
fn floor_joints(knee_turn: Quat) -> [Mat4; 2] {
    let room = Mat4::from_scale(Vec3::splat(2.0));
    let hip =
        room * Mat4::from_rotation_translation(Quat::from_rotation_y(hostile::HIP_ROTATION), Vec3::new(0.0, 0.5, 0.0));
    let knee = hip * Mat4::from_rotation_translation(knee_turn, Vec3::X);
    [hip * Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)), knee]
}

#[test]
fn a_skinned_mesh_lands_where_its_joints_put_it_whatever_its_nodes_transform() {
    let dir = folder("skin");
    let scene = load(&dir, "skinned.gltf", &hostile::skinned_floor(), None);
    let (floor, transform) = drawn(&scene, "floor");
    assert_eq!(transform, Mat4::IDENTITY, "a skinned mesh is placed in world space");
    let [hip, knee] = floor_joints(Quat::IDENTITY);
    let halves = (hip + knee) * 0.5;
    let expected = [
        hip.transform_point3(FLOOR[0]),
        knee.transform_point3(FLOOR[1]),
        halves.transform_point3(FLOOR[2]),
        halves.transform_point3(FLOOR[3]),
    ];
    for (vertex, (&found, &expected)) in floor.positions.iter().zip(&expected).enumerate() {
        assert_close(found, expected, &format!("vertex {vertex}"));
    }
    let normal = (Mat3::from_mat4(hip).inverse().transpose() * Vec3::Y).normalize();
    assert_close(floor.normals.as_ref().unwrap()[0], normal, "vertex 0's normal");
    // The undeformed floor is drawn by no node, so it is not kept: the skinned floor and the lamp.
    assert_eq!(
        scene.meshes.len(),
        2,
        "{:?}",
        scene.meshes.iter().map(|m| &m.name).collect::<Vec<_>>()
    );
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);

    // The control: without its skin the floor is drawn at its node, far from all of that.
    let mut unskinned = hostile::skinned_floor();
    unskinned["nodes"][1].as_object_mut().unwrap().remove("skin");
    let scene = load(&dir, "unskinned.gltf", &unskinned, None);
    let (floor, transform) = drawn(&scene, "floor");
    assert_close(
        transform.transform_point3(floor.positions[0]),
        Vec3::new(8.0, 10.0, 8.0),
        "unskinned vertex 0",
    );
}

#[test]
fn an_animated_joint_carries_its_vertices_with_it() {
    let dir = folder("animated-skin");
    let mut document = hostile::skinned_floor();
    let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let times = append_accessor(&mut document, &floats(&[0.0, 1.0]), FLOAT, 2, "SCALAR", false);
    let turns = [Quat::IDENTITY.to_array(), turn.to_array()].concat();
    let turns = append_accessor(&mut document, &floats(&turns), FLOAT, 2, "VEC4", false);
    document["accessors"][times]["min"] = json!([0.0]);
    document["accessors"][times]["max"] = json!([1.0]);
    document["animations"] = json!([{"channels": [{"sampler": 0, "target": {"node": 5, "path": "rotation"}}],
                                     "samplers": [{"input": times, "output": turns}]}]);
    for (time, knee_turn) in [(0.0, Quat::IDENTITY), (1.0, turn)] {
        let scene = load(&dir, "animated.gltf", &document, Some(time));
        let (floor, _) = drawn(&scene, "floor");
        let [_, knee] = floor_joints(knee_turn);
        assert_close(
            floor.positions[1],
            knee.transform_point3(FLOOR[1]),
            &format!("vertex 1 at {time} s"),
        );
    }
}

#[test]
fn a_joint_whose_matrix_is_not_finite_skips_its_skinned_mesh_with_a_warning() {
    let dir = folder("infinite-joint");
    let mut document = hostile::skinned_floor();
    let inverse_binds = [
        Mat4::from_scale(Vec3::splat(f32::INFINITY)).to_cols_array(),
        Mat4::IDENTITY.to_cols_array(),
    ]
    .concat();
    let accessor = append_accessor(&mut document, &floats(&inverse_binds), FLOAT, 2, "MAT4", false);
    document["skins"][0]["inverseBindMatrices"] = json!(accessor);
    let scene = load(&dir, "infinite.gltf", &document, None);
    assert!(
        warned(&scene, &["floor", "joint 0", "not finite", "skipped"]),
        "{:?}",
        scene.warnings
    );
    assert!(scene.instances.iter().all(|i| i.node != "floor"));
    assert!(scene.instances.iter().any(|i| i.node == "lamp"));
}

#[test]
fn a_joint_index_the_skin_lacks_is_an_error_naming_the_mesh() {
    let dir = folder("bad-joint");
    let mut document = hostile::skinned_floor();
    document["skins"][0]["joints"] = json!([4]);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.gltf");
    std::fs::write(&path, serde_json::to_vec(&document).unwrap()).unwrap();
    let error = Scene::load(&path).unwrap_err().to_string();
    assert!(
        error.contains("bad.gltf") && error.contains("floor/0") && error.contains("joint 1"),
        "{error}"
    );
}

/// The base scene with `hostile::add_floor_morph_targets`.
fn morphed_floor(mesh_weights: [f32; 2]) -> Value {
    let mut document = hostile::base_scene();
    hostile::add_floor_morph_targets(&mut document, mesh_weights);
    document
}

#[test]
fn morph_weights_come_from_the_animation_else_the_node_else_the_mesh() {
    let dir = folder("morph");
    let scene = load(&dir, "mesh-weights.gltf", &morphed_floor([0.5, 0.0]), None);
    let (floor, transform) = drawn(&scene, "floor");
    assert_eq!(
        transform,
        Mat4::from_scale(Vec3::splat(2.0)),
        "a morphed mesh keeps its node's transform"
    );
    assert_close(
        floor.positions[0],
        Vec3::new(-1.0, 0.5, -1.0),
        "raised by the mesh's weight",
    );
    assert_close(floor.positions[1], FLOOR[1], "a vertex the first target leaves");
    assert!(warned(&scene, &["TEXCOORD_0", "morph"]), "{:?}", scene.warnings);

    let mut document = morphed_floor([0.5, 0.0]);
    document["nodes"][1]["weights"] = json!([0.0, 0.25]);
    let scene = load(&dir, "node-weights.gltf", &document, None);
    let (floor, _) = drawn(&scene, "floor");
    assert_close(
        floor.positions[0],
        Vec3::new(-0.75, 0.0, -1.0),
        "shifted by the node's weight",
    );
    let tilted = Vec3::new(0.25, 1.0, 0.0).normalize();
    assert_close(
        floor.normals.as_ref().unwrap()[2],
        tilted,
        "a normal tilted and made unit again",
    );

    let times = append_accessor(&mut document, &floats(&[0.0, 1.0]), FLOAT, 2, "SCALAR", false);
    document["accessors"][times]["min"] = json!([0.0]);
    document["accessors"][times]["max"] = json!([1.0]);
    let weights = append_accessor(&mut document, &floats(&[0.0, 0.0, 1.0, 1.0]), FLOAT, 4, "SCALAR", false);
    document["animations"] = json!([{"channels": [{"sampler": 0, "target": {"node": 1, "path": "weights"}}],
                                     "samplers": [{"input": times, "output": weights}]}]);
    let scene = load(&dir, "animated-weights.gltf", &document, Some(0.5));
    let (floor, _) = drawn(&scene, "floor");
    assert_close(
        floor.positions[0],
        Vec3::new(-0.5, 0.5, -1.0),
        "both targets half way at 0.5 s",
    );
}

#[test]
fn nodes_that_morph_a_mesh_alike_share_it_and_zero_weights_keep_the_base_shape() {
    let dir = folder("morph-shared");
    let mut document = morphed_floor([0.5, 0.0]);
    document["nodes"][0]["children"] = json!([1, 2, 4]);
    document["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "second floor", "mesh": 0}));
    let scene = load(&dir, "shared.gltf", &document, None);
    assert_eq!(scene.instances.len(), 3);
    assert_eq!(drawn(&scene, "floor").0.name, drawn(&scene, "second floor").0.name);
    assert_eq!(scene.meshes.len(), 2, "one morphed floor and the lamp");

    let scene = load(&dir, "rest.gltf", &morphed_floor([0.0, 0.0]), None);
    let (floor, _) = drawn(&scene, "floor");
    assert_eq!(floor.positions, FLOOR.to_vec());
    assert_eq!(floor.name, "floor/0");
}

/// The base scene rendered small with validation on.
fn render(scene: &Scene) -> wavetrace::film::RgbImage {
    let gpu = common::gpu();
    let backend = gpu.context.trace_backends()[0];
    let image = common::render(&gpu.context, scene, &RenderSettings::new(32, 32, 16, 3, backend));
    gpu.finish();
    image
}

#[test]
fn a_skinned_floor_renders_where_its_joint_puts_it_not_where_its_node_is() {
    let dir = folder("render");
    let plain = load(&dir, "plain.gltf", &hostile::base_scene(), None);
    // One joint under the room where the floor's node was, the floor's node moved away.
    let mut document = hostile::base_scene();
    document["nodes"][0]["children"] = json!([1, 2, 4]);
    document["nodes"].as_array_mut().unwrap().push(json!({"name": "bone"}));
    document["nodes"][1]["translation"] = json!([5.0, 5.0, 5.0]);
    let moved = load(&dir, "moved.gltf", &document, None);
    document["nodes"][1]["skin"] = json!(0);
    document["skins"] = json!([{"joints": [4]}]);
    let joints = append_accessor(&mut document, &[0u8; 16], UNSIGNED_BYTE, 4, "VEC4", false);
    let weights = append_accessor(
        &mut document,
        &floats(&[1.0, 0.0, 0.0, 0.0].repeat(4)),
        FLOAT,
        4,
        "VEC4",
        false,
    );
    let attributes = &mut document["meshes"][0]["primitives"][0]["attributes"];
    attributes["JOINTS_0"] = json!(joints);
    attributes["WEIGHTS_0"] = json!(weights);
    let skinned = load(&dir, "skinned.gltf", &document, None);

    let reference = render(&plain);
    let same = metrics::compare(&render(&skinned), &reference).unwrap();
    let control = metrics::compare(&render(&moved), &reference).unwrap();
    // The same rays hit the same floor, in world space instead of through the instance's
    // transform: only rounding may differ (on lavapipe nothing does). Without the floor the
    // room is 11-13% darker (relMSE 0.0043).
    assert!(control.rel_mse > 1e-3, "moved (the control): {control:?}");
    assert!(
        same.rel_mse < control.rel_mse * 1e-3,
        "skinned: {same:?}, moved: {control:?}"
    );
}
