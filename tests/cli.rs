//! The command line: `wavetrace info` on this machine, and the errors a user sees when
//! Vulkan is missing.

use std::process::Command;

fn wavetrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_wavetrace"))
}

/// `wavetrace render SCENE ARGS -o OUT` fails, without a panic, with an error that contains
/// `needle`.
const CORNELL_BOX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/cornell-box/cornell-box.gltf");

/// An output path of this process's own, so that test binaries running at once do not clash.
fn scratch_exr(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("wavetrace-cli-{name}-{}.exr", std::process::id()))
}

/// An 8 x 8 render of one sample a pixel with `args` fails with `needle` in its message.
fn assert_render_refused(scene: &str, args: &[&str], out: &std::path::Path, needle: &str) {
    let output = wavetrace()
        .args(["render", scene, "--res", "8", "8", "--spp", "1"])
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && text.contains(needle) && !text.contains("panicked"),
        "{args:?}: {text}"
    );
}

#[test]
fn info_json_lists_devices_with_their_backends() {
    let output = wavetrace().args(["info", "--json"]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let devices = report["devices"].as_array().unwrap();
    assert!(!devices.is_empty());
    for device in devices {
        let backends = device["trace_backends"].as_array().unwrap();
        assert_eq!(
            device["capabilities"]["ray_query"].as_bool().unwrap(),
            backends.contains(&"query".into())
        );
        assert!(device["capabilities"]["subgroup_size"].as_u64().unwrap() >= 1);
        // Lavapipe (Mesa 24.1+) has both backends; the tests rely on that.
        if device["name"].as_str().unwrap().starts_with("llvmpipe") {
            assert_eq!(
                backends.len(),
                2,
                "lavapipe should offer ray query and pipeline: {device}"
            );
            assert_eq!(device["usable"], true);
            // Lavapipe is not a GPU without ray-tracing cores: auto keeps ray queries.
            assert_eq!(device["auto_trace_backend"], "query", "{device}");
        }
    }
}

#[test]
fn info_text_names_backends() {
    let output = wavetrace().arg("info").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("trace backends: ray query"), "{text}");
    assert!(text.contains("subgroup size"), "{text}");
}

#[test]
fn a_missing_loader_is_a_clear_error() {
    let output = wavetrace()
        .arg("info")
        .env("WAVETRACE_VULKAN_LOADER", "/nonexistent/libvulkan.so.1")
        .output()
        .unwrap();
    assert!(!output.status.success());
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(text.contains("libvulkan1") && !text.contains("panicked"), "{text}");
}

#[test]
fn no_driver_is_a_clear_error() {
    let output = wavetrace()
        .arg("info")
        .env("VK_DRIVER_FILES", "/nonexistent/icd.json")
        .env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Loaders either refuse the instance (an error naming the cure) or list no device.
    assert!(
        (!output.status.success() && stderr.contains("no Vulkan device")) || stdout.contains("0 device(s)"),
        "stdout: {stdout}\nstderr: {stderr}"
    );
}

#[test]
fn render_writes_exr_and_png_and_bad_scenes_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("wavetrace-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = CORNELL_BOX;
    let (exr, png) = (dir.join("out.exr"), dir.join("out.png"));
    let output = wavetrace()
        .args([
            "render", scene, "--res", "24", "16", "--spp", "2", "--stats", "--json", "-o",
        ])
        .arg(&exr)
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(stats["samples_per_second"].as_f64().unwrap() > 0.0);
    let image = wavetrace::film::read_exr(&exr).unwrap();
    assert_eq!((image.width, image.height), (24, 16));
    assert!(std::fs::metadata(&png).unwrap().len() > 0);

    let missing = wavetrace()
        .args(["render", "/nonexistent/scene.gltf", "-o"])
        .arg(&exr)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&missing.stderr);
    assert!(
        !missing.status.success() && text.contains("/nonexistent/scene.gltf") && !text.contains("panicked"),
        "{text}"
    );
    let bad_output = wavetrace()
        .args(["render", scene, "--res", "8", "8", "--spp", "1", "-o", "out.tiff"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&bad_output.stderr);
    assert!(!bad_output.status.success() && text.contains("out.tiff"), "{text}");
}

#[test]
fn environment_options_render_and_bad_ones_are_clear_errors() {
    let dir = std::env::temp_dir().join(format!("wavetrace-cli-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/scenes/all-features/all-features.gltf"
    );
    let exr = dir.join("env.exr");
    // A tiny map written as EXR, turned and scaled.
    let map = dir.join("sky.exr");
    let sky = wavetrace::film::RgbImage::from_fn(16, 8, |x, y| [x as f32 / 16.0, y as f32 / 8.0, 0.5]);
    wavetrace::film::write_exr(&map, &sky).unwrap();
    let output = wavetrace()
        .args([
            "render",
            scene,
            "--res",
            "16",
            "16",
            "--spp",
            "2",
            "--env-strength",
            "2",
            "--env-rotation",
            "30",
            "--env",
        ])
        .arg(&map)
        .arg("-o")
        .arg(&exr)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let constant = wavetrace()
        .args([
            "render",
            scene,
            "--res",
            "16",
            "16",
            "--spp",
            "2",
            "--env-color",
            "0.2",
            "0.3",
            "0.4",
            "-o",
        ])
        .arg(&exr)
        .output()
        .unwrap();
    assert!(
        constant.status.success(),
        "{}",
        String::from_utf8_lossy(&constant.stderr)
    );

    for (args, needle) in [
        (vec!["--env", "/nonexistent/sky.hdr"], "/nonexistent/sky.hdr"),
        (vec!["--env", "sky.png"], "sky.png"),
        (vec!["--env-color", "1", "-1", "1"], "--env-color"),
        (
            vec!["--env-color", "1", "1", "1", "--env-strength", "nan"],
            "--env-strength",
        ),
    ] {
        assert_render_refused(scene, &args, &exr, needle);
    }
}

#[test]
fn more_bdpt_shadow_paths_than_32_bit_offsets_reach_are_a_clear_error() {
    // 2^26 slots at depth 8 are 2^29 shadow paths: their arrays and light vertex planes would
    // pass 4 GiB, where the shaders' offsets wrap. Refused before anything is allocated.
    let scene = CORNELL_BOX;
    let out = scratch_exr("slots");
    let args = ["--max-depth", "8", "--integrator", "bdpt", "--path-slots", "67108864"];
    assert_render_refused(scene, &args, &out, "67108864 path slots at depth 8");
}

#[test]
fn an_unknown_material_variant_is_a_clear_error() {
    assert_render_refused(
        CORNELL_BOX,
        &["--variant", "Midnight"],
        &scratch_exr("variant"),
        "no material variant \"Midnight\": the file has no KHR_materials_variants",
    );
}

#[test]
fn a_light_share_other_than_1_2_or_4_is_a_clear_error() {
    let scene = CORNELL_BOX;
    let out = scratch_exr("share");
    for (share, needle) in [
        ("3", "must be 1, 2 or 4"),
        ("8", "--bdpt-light-share"),
        ("0", "--bdpt-light-share"),
    ] {
        let args = ["--integrator", "bdpt", "--bdpt-light-share", share];
        assert_render_refused(scene, &args, &out, needle);
    }
}

#[test]
fn an_unknown_culling_build_is_a_clear_error() {
    let scene = CORNELL_BOX;
    let out = scratch_exr("cull-build");
    let args = ["--light-culling", "bits", "--cull-build", "tiles"];
    assert_render_refused(
        scene,
        &args,
        &out,
        "unknown culling build 'tiles' (one of: cells, lights)",
    );
}
