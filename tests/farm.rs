//! The Ray driver (tools/farm/ray_render.py) on a local Ray cluster of 3 worker nodes on
//! lavapipe: 16 partial renders (4 sample ranges x 2 x 2 tiles), one worker node killed while
//! it renders a part, and the merged image must be the one-machine render bit for bit.

use std::path::Path;
use std::process::Command;

fn python() -> std::path::PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/farm/.venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: tools/setup.sh installs Ray there (tools/farm/requirements.txt)",
        python.display()
    );
    python
}

#[test]
fn a_ray_cluster_with_a_worker_killed_renders_the_one_machine_image() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wavetrace = env!("CARGO_BIN_EXE_wavetrace");
    let folder = std::env::temp_dir().join(format!("wavetrace-farm-test-{}", std::process::id()));
    let markers = folder.join("markers");
    std::fs::create_dir_all(&markers).unwrap();
    let scene = root.join("tests/scenes/cornell-box/cornell-box.gltf");
    let options = ["--res", "40", "30", "--spp", "8", "--max-depth", "5", "--seed", "3"];

    let whole = folder.join("whole.exr");
    let status = Command::new(wavetrace)
        .arg("render")
        .arg(&scene)
        .arg("-o")
        .arg(&whole)
        .args(options)
        .status()
        .unwrap();
    assert!(status.success());

    let farmed = folder.join("farmed.exr");
    let output = Command::new(python())
        .arg(root.join("tools/farm/ray_render.py"))
        .arg(&scene)
        .arg("-o")
        .arg(&farmed)
        .args(["--local-workers", "3", "--sample-parts", "4", "--tiles", "2x2"])
        .args(["--kill-worker-after", "3", "--trace-dir"])
        .arg(&markers)
        .args(["--wavetrace", wavetrace, "--"])
        .args(options)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("killed worker node"), "{stdout}");
    // The report is the first JSON value; the killed node's raylet may print after it.
    let report: serde_json::Value = serde_json::Deserializer::from_str(&stdout[stdout.find('{').unwrap()..])
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(report["parts"], 16, "{stdout}");
    assert_eq!(report["gpu_nodes"], 3, "{stdout}");
    // Every attempt leaves a marker: the part the dead node was rendering ran again.
    let attempts = std::fs::read_dir(&markers).unwrap().count();
    assert!(
        attempts > 16,
        "{attempts} task attempts for 16 parts: nothing was retried"
    );

    let expected = wavetrace::film::read_exr(&whole).unwrap();
    let image = wavetrace::film::read_exr(&farmed).unwrap();
    let differing = image
        .pixels
        .iter()
        .zip(&expected.pixels)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 0, "{differing} pixels differ from the one-machine render");
    std::fs::remove_dir_all(&folder).ok();
}
