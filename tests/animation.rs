//! glTF animations posed at a time (`ImportOptions::time`, `render --frames`): LINEAR, STEP
//! and CUBICSPLINE channels move nodes and their children as the specification defines, keys
//! clamp at both ends, a malformed sampler names its animation, and `render --frames` writes
//! one image a frame whose partial films cannot be merged across frames.

use crate::hostile;

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Quat, Vec3};
use serde_json::{json, Value};
use wavetrace::scene::{ImportOptions, Scene};

fn write(folder: &Path, name: &str, document: &Value) -> PathBuf {
    std::fs::create_dir_all(folder).unwrap();
    let path = folder.join(name);
    std::fs::write(&path, serde_json::to_vec(document).unwrap()).unwrap();
    path
}

fn folder(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!("wavetrace-animation-{test}-{}", std::process::id()))
}

fn at(path: &Path, time: Option<f32>) -> Result<Scene, String> {
    let options = ImportOptions {
        time,
        ..ImportOptions::default()
    };
    Scene::load_with(path, &options).map_err(|e| e.to_string())
}

fn lamp_position(scene: &Scene) -> Vec3 {
    let lamp = scene.instances.iter().find(|i| i.node == "lamp").unwrap();
    lamp.world_from_object.transform_point3(Vec3::ZERO)
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).abs().max_element() < 1e-5
}

#[test]
fn nodes_take_the_pose_their_animations_give_at_a_time() {
    let dir = folder("pose");
    let path = write(&dir, "animated.gltf", &hostile::animated_scene([0.0, 1.0, 2.0]));
    let rest = at(&path, None).unwrap();
    assert!(
        rest.warnings.iter().any(|w| w.contains("3 animation(s) ignored")),
        "{:?}",
        rest.warnings
    );
    assert!(close(lamp_position(&rest), Vec3::new(0.0, 0.4, 0.0)));
    // Half way through the first key interval: x 0.25 in the room, scaled by 2; no turn yet.
    let half = at(&path, Some(0.5)).unwrap();
    assert!(
        close(lamp_position(&half), Vec3::new(0.5, 0.4, 0.0)),
        "{}",
        lamp_position(&half)
    );
    let eye = half
        .camera
        .as_ref()
        .unwrap()
        .world_from_camera
        .transform_point3(Vec3::ZERO);
    assert!(close(eye, Vec3::new(0.0, 1.5, 4.0)), "smoothstep half way: {eye}");
    // At 1.5 s the room has turned a quarter (STEP), taking the lamp (x 0.75 in it) along.
    let turned = at(&path, Some(1.5)).unwrap();
    let expected = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2) * Vec3::new(1.5, 0.4, 0.0);
    assert!(close(lamp_position(&turned), expected), "{}", lamp_position(&turned));
    // Past the last key (and before the first) the keys clamp.
    let late = at(&path, Some(9.0)).unwrap();
    let end = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2) * Vec3::new(2.0, 0.4, 0.0);
    assert!(close(lamp_position(&late), end));
    let early = at(&path, Some(-3.0)).unwrap();
    assert!(close(lamp_position(&early), Vec3::new(0.0, 0.4, 0.0)));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_malformed_sampler_is_an_error_naming_its_animation() {
    let dir = folder("malformed");
    let path = write(&dir, "backwards.gltf", &hostile::animated_scene([0.0, 2.0, 1.0]));
    let error = at(&path, Some(0.5)).unwrap_err();
    assert!(
        error.contains("backwards.gltf") && error.contains("animation slide") && error.contains("increasing"),
        "{error}"
    );
    // The rest pose does not read the animations at all.
    at(&path, None).unwrap();
    let mut short = hostile::animated_scene([0.0, 1.0, 2.0]);
    // The slide's values (accessor 6, after the scene's 5 and the key times) one short.
    short["accessors"][6]["count"] = json!(2);
    let path = write(&dir, "short.gltf", &short);
    let error = at(&path, Some(0.5)).unwrap_err();
    assert!(
        error.contains("animation slide") && error.contains("2 values for 3 keys"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn channels_of_missing_nodes_are_errors_and_channels_without_one_or_without_data_are_skipped() {
    let dir = folder("channels");
    // The glTF crate checks a channel's sampler, not its node, and indexes the node unchecked.
    let mut dangling = hostile::animated_scene([0.0, 1.0, 2.0]);
    dangling["animations"][0]["channels"][0]["target"]["node"] = json!(99);
    let path = write(&dir, "dangling.gltf", &dangling);
    let error = at(&path, Some(0.5)).unwrap_err();
    assert!(
        error.contains("dangling.gltf") && error.contains("animations[0].channels[0] targets node 99"),
        "{error}"
    );
    // A path the crate cannot read stays `Invalid` in its model, which it unwraps unchecked.
    let mut unknown = hostile::animated_scene([0.0, 1.0, 2.0]);
    unknown["animations"][2]["channels"][0]["target"]["path"] = json!("scal");
    let path = write(&dir, "unknown-path.gltf", &unknown);
    let error = at(&path, Some(0.5)).unwrap_err();
    assert!(error.contains("animations[2].channels[0].target.path"), "{error}");
    // No node: valid glTF (an extension names the target); skipped with a warning, the rest posed.
    let mut pointer = hostile::animated_scene([0.0, 1.0, 2.0]);
    pointer["animations"][1]["channels"][0]["target"] = json!({"path": "rotation"});
    let path = write(&dir, "pointer.gltf", &pointer);
    let scene = at(&path, Some(1.5)).unwrap();
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.contains("1 animation channel(s) without a target node ignored")),
        "{:?}",
        scene.warnings
    );
    assert!(
        close(lamp_position(&scene), Vec3::new(1.5, 0.4, 0.0)),
        "slid, not turned"
    );
    // Values with no buffer view: valid glTF (the accessor holds zeros; the glTF-Validator's
    // animation/valid_full.gltf has such keys), nothing a sampler can play: that channel is
    // skipped with a warning, the rest posed.
    let mut unstored = hostile::animated_scene([0.0, 1.0, 2.0]);
    let turn_values = unstored["animations"][1]["samplers"][0]["output"].as_u64().unwrap() as usize;
    unstored["accessors"][turn_values]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let path = write(&dir, "unstored.gltf", &unstored);
    let scene = at(&path, Some(1.5)).unwrap();
    let expected = format!("animation turn: channel 0: its values (accessor {turn_values}) have no buffer view");
    assert!(
        scene.warnings.iter().any(|w| w.contains(&expected)),
        "{:?}",
        scene.warnings
    );
    assert!(
        close(lamp_position(&scene), Vec3::new(1.5, 0.4, 0.0)),
        "slid, not turned"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_frames_writes_a_posed_image_a_frame() {
    let dir = folder("frames");
    let path = write(&dir, "animated.gltf", &hostile::animated_scene([0.0, 1.0, 2.0]));
    let wavetrace = || Command::new(env!("CARGO_BIN_EXE_wavetrace"));
    let common = ["--res", "16", "12", "--spp", "2", "--max-depth", "3", "--fps", "2"];
    let output = wavetrace()
        .arg("render")
        .arg(&path)
        .args(common)
        .args(["--frames", "0..3", "-o"])
        .arg(dir.join("frame.##.exr"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let frames: Vec<_> = (0..3)
        .map(|f| wavetrace::film::read_exr(&dir.join(format!("frame.{f:02}.exr"))).unwrap())
        .collect();
    assert!(
        frames[0].pixels != frames[2].pixels,
        "the lamp moved between frame 0 and 2"
    );
    // Frame 2 at 2 fps is the scene at 1 s: the same image as a still render posed there.
    let still = wavetrace()
        .arg("render")
        .arg(&path)
        .args(common)
        .args(["--frames", "2..3", "-o"])
        .arg(dir.join("still.exr"))
        .status()
        .unwrap();
    assert!(still.success());
    let still = wavetrace::film::read_exr(&dir.join("still.0002.exr")).unwrap();
    assert!(still.pixels == frames[2].pixels);
    // Partial films of two frames are of two scenes: merge refuses them, naming the scene.
    for frame in ["0..1", "1..2"] {
        let status = wavetrace()
            .arg("render")
            .arg(&path)
            .args([
                "--res",
                "16",
                "12",
                "--max-depth",
                "3",
                "--fps",
                "2",
                "--samples",
                "0..1",
            ])
            .args(["--frames", frame, "-o"])
            .arg(dir.join("part.#.exr"))
            .status()
            .unwrap();
        assert!(status.success());
    }
    let merge = wavetrace()
        .arg("merge")
        .args([dir.join("part.0.exr"), dir.join("part.1.exr")])
        .arg("-o")
        .arg(dir.join("merged.exr"))
        .output()
        .unwrap();
    let error = String::from_utf8_lossy(&merge.stderr);
    assert!(!merge.status.success() && error.contains("`scene "), "{error}");
    std::fs::remove_dir_all(&dir).ok();
}
