//! The scale-out command line: cameras by number, sample ranges, tiles and device lists
//! checked before any work, and `merge` refusing what it cannot add.

use crate::hostile;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

fn wavetrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavetrace"))
        .args(args)
        .output()
        .unwrap()
}

fn folder(test: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("wavetrace-scale-cli-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

fn failure(output: &Output) -> String {
    assert!(!output.status.success(), "should have failed");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn text(path: &Path) -> &str {
    path.to_str().unwrap()
}

const CORNELL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scenes/cornell-box/cornell-box.gltf");

#[test]
fn camera_n_looks_through_the_files_nth_camera() {
    let dir = folder("camera");
    // Two cameras; the second file lists them the other way round.
    let mut document = hostile::base_scene();
    document["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "side", "camera": 0, "translation": [3.0, 1.0, 1.0], "rotation": [0.0, 0.3826834, 0.0, 0.9238795]}));
    document["scenes"][0]["nodes"] = json!([0, 3, 4]);
    let first = dir.join("first.gltf");
    std::fs::write(&first, serde_json::to_vec(&document).unwrap()).unwrap();
    document["scenes"][0]["nodes"] = json!([0, 4, 3]);
    let swapped = dir.join("swapped.gltf");
    std::fs::write(&swapped, serde_json::to_vec(&document).unwrap()).unwrap();
    let common = ["--res", "16", "12", "--spp", "2", "--max-depth", "3"];
    let render = |scene: &Path, camera: &str, out: &str| {
        let output = dir.join(out);
        let args = [
            &["render", text(scene), "--camera", camera, "-o", text(&output)],
            &common[..],
        ]
        .concat();
        let run = wavetrace(&args);
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        wavetrace::film::read_exr(&output).unwrap()
    };
    let side = render(&first, "1", "side.exr");
    assert!(side.pixels == render(&swapped, "0", "side-first.exr").pixels);
    assert!(side.pixels != render(&first, "0", "eye.exr").pixels);
    let error = failure(&wavetrace(
        &[&["render", text(&first), "--camera", "2", "-o", "x.exr"], &common[..]].concat(),
    ));
    assert!(
        error.contains("first.gltf") && error.contains("2 usable cameras (0 to 1)"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ranges_tiles_and_devices_are_checked_before_rendering() {
    let dir = folder("checks");
    let out = dir.join("part.exr");
    let out = text(&out);
    for (args, expected) in [
        (vec!["--samples", "5..3"], "needs A < B"),
        (vec!["--samples", "3"], "a sample range is A..B"),
        (vec!["--samples", "0..4", "--spp", "4"], "cannot be used with"),
        (
            vec!["--tile", "10", "0", "30", "8"],
            "is not a non-empty part of the 32x24 image",
        ),
        (vec!["--frames", "2..2"], "needs A < B"),
        (vec!["--frames", "0..2", "--fps", "0"], "--fps 0: must be positive"),
        (vec!["--devices", "0,,1"], "entry 2 of the list is empty"),
        (vec!["--devices", "no-such-gpu"], "matches no Vulkan device"),
    ] {
        let base = ["render", CORNELL, "-o", out, "--res", "32", "24", "--max-depth", "2"];
        let error = failure(&wavetrace(&[&base[..], &args].concat()));
        assert!(error.contains(expected), "{args:?}: {error}");
    }
    let png = dir.join("part.png");
    let error = failure(&wavetrace(&["render", CORNELL, "--samples", "0..2", "-o", text(&png)]));
    assert!(
        error.contains("part.png") && error.contains("written as .exr"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn merge_adds_parts_and_refuses_doubles_gaps_and_strangers() {
    let dir = folder("merge");
    let render = |name: &str, extra: &[&str]| {
        let path = dir.join(name);
        let base = [
            "render",
            CORNELL,
            "-o",
            text(&path),
            "--res",
            "24",
            "16",
            "--max-depth",
            "3",
        ];
        let run = wavetrace(&[&base[..], extra].concat());
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        path
    };
    let whole = render("whole.exr", &["--spp", "4"]);
    let a = render("a.exr", &["--samples", "0..1"]);
    let b = render("b.exr", &["--samples", "1..4", "--devices", "0,0", "--chunk-spp", "1"]);
    let merged = dir.join("merged.exr");
    let run = wavetrace(&["merge", text(&b), text(&a), "-o", text(&merged)]);
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (expected, image) = (
        wavetrace::film::read_exr(&whole).unwrap(),
        wavetrace::film::read_exr(&merged).unwrap(),
    );
    assert!(
        expected.pixels == image.pixels,
        "merged parts differ from the whole render"
    );
    let error = failure(&wavetrace(&["merge", text(&a), text(&a), "-o", text(&merged)]));
    assert!(error.contains("count those samples twice"), "{error}");
    let tile = render("tile.exr", &["--samples", "1..4", "--tile", "0", "0", "8", "16"]);
    let error = failure(&wavetrace(&["merge", text(&a), text(&tile), "-o", text(&merged)]));
    assert!(
        error.contains("cover 384 of 384 pixels with 2 sample counts"),
        "{error}"
    );
    // Merged as a partial film, the gap may be filled later.
    let partial = dir.join("partial.exr");
    assert!(
        wavetrace(&["merge", text(&a), text(&tile), "--partial", "-o", text(&partial)])
            .status
            .success()
    );
    let rest = render("rest.exr", &["--samples", "1..4", "--tile", "8", "0", "16", "16"]);
    assert!(wavetrace(&["merge", text(&partial), text(&rest), "-o", text(&merged)])
        .status
        .success());
    assert!(wavetrace::film::read_exr(&merged).unwrap().pixels == expected.pixels);
    let stranger = render("stranger.exr", &["--samples", "1..4", "--rr-depth", "2"]);
    let error = failure(&wavetrace(&["merge", text(&a), text(&stranger), "-o", text(&merged)]));
    assert!(
        error.contains("stranger.exr") && error.contains("rr_depth 2"),
        "{error}"
    );
    let error = failure(&wavetrace(&["merge", text(&whole), "-o", text(&merged)]));
    assert!(
        error.contains("whole.exr") && error.contains("not a wavetrace partial film"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
