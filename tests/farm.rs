//! The farm tools on lavapipe. The Ray driver (tools/farm/ray_render.py) on a local Ray
//! cluster of 3 worker nodes: 16 partial renders (4 sample ranges x 2 x 2 tiles), one worker
//! node killed while it renders a part, one wavetrace process dying of SIGABRT, and the merged
//! image must be the one-machine render bit for bit. The Flamenco job type, compiled outside
//! Flamenco, likewise.

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

    // wavetrace, except that the first process the farm starts aborts, as a crash would.
    let crash_once = folder.join("wavetrace-crashing-once");
    std::fs::write(
        &crash_once,
        format!(
            "#!/bin/sh\nif mkdir '{}' 2>/dev/null; then kill -ABRT $$; fi\nexec '{wavetrace}' \"$@\"\n",
            folder.join("crashed").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&crash_once, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let farmed = folder.join("farmed.exr");
    let output = Command::new(python())
        .arg(root.join("tools/farm/ray_render.py"))
        .arg(&scene)
        .arg("-o")
        .arg(&farmed)
        .args(["--local-workers", "3", "--sample-parts", "4", "--tiles", "2x2"])
        .args(["--kill-worker-after", "3", "--trace-dir"])
        .arg(&markers)
        .arg("--wavetrace")
        .arg(&crash_once)
        .arg("--")
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
    // A wavetrace that died of a signal is run again, as a lost node's part is, and the driver
    // reports each death (here the one the wrapper caused, and any other the log then shows).
    let deaths = report["renderer_deaths"]
        .as_array()
        .expect("the report lists renderer deaths");
    eprintln!("renderer deaths the farm retried: {deaths:#?}");
    assert!(
        deaths
            .iter()
            .any(|d| d.as_str().is_some_and(|d| d.contains("died of signal 6"))),
        "the aborted wavetrace is not among the deaths: {stdout}"
    );
    // Every attempt leaves a marker: the part the dead node was rendering ran again, and so
    // did the aborted one.
    let attempts = std::fs::read_dir(&markers)
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().extension().is_some_and(|e| e == "json"))
        .count();
    assert!(
        attempts >= 18,
        "{attempts} task attempts for 16 parts, a node lost and a process aborted"
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

/// Runs the Flamenco job type's compileJob() under node with stand-ins for the Manager's API
/// (tools/farm/flamenco/compile_locally.js), then every task's `exec` command in dependency
/// order, as Flamenco workers would: the merge task's image must be the one-machine render.
#[test]
fn the_flamenco_job_type_compiles_to_tasks_that_render_the_image() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wavetrace = env!("CARGO_BIN_EXE_wavetrace");
    let folder = std::env::temp_dir().join(format!("wavetrace-flamenco-test-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let scene = root.join("tests/scenes/cornell-box/cornell-box.gltf");
    let image = folder.join("image.exr");
    let settings = serde_json::json!({
        "wavetrace": wavetrace, "scene": scene, "output": image, "width": 24, "height": 16, "spp": 5,
        "max_depth": 4, "seed": 2, "sample_parts": 2, "tiles_x": 3, "tiles_y": 1,
    });
    let compiled = Command::new("node")
        .arg(root.join("tools/farm/flamenco/compile_locally.js"))
        .arg(root.join("tools/farm/flamenco/wavetrace_partials.js"))
        .arg(settings.to_string())
        .output()
        .expect("node runs the job type (tools/setup.sh installs nodejs)");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let tasks: Vec<serde_json::Value> = serde_json::from_slice(&compiled.stdout).unwrap();
    assert_eq!(tasks.len(), 2 * 3 + 1, "6 parts and a merge");
    let mut done: Vec<String> = Vec::new();
    while done.len() < tasks.len() {
        let ready = tasks
            .iter()
            .find(|t| {
                let name = t["name"].as_str().unwrap().to_string();
                !done.contains(&name)
                    && t["dependencies"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|d| done.contains(&d.as_str().unwrap().to_string()))
            })
            .expect("a task whose dependencies are done");
        for command in ready["commands"].as_array().unwrap() {
            assert_eq!(command["name"], "exec");
            let parameters = &command["parameters"];
            let args: Vec<&str> = parameters["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            let run = Command::new(parameters["exe"].as_str().unwrap())
                .args(&args)
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
        done.push(ready["name"].as_str().unwrap().to_string());
    }
    assert!(tasks.last().unwrap()["name"]
        .as_str()
        .unwrap()
        .contains("merge 6 parts"));
    let whole = folder.join("whole.exr");
    let args = ["--res", "24", "16", "--spp", "5", "--max-depth", "4", "--seed", "2"];
    let status = Command::new(wavetrace)
        .arg("render")
        .arg(&scene)
        .arg("-o")
        .arg(&whole)
        .args(args)
        .status()
        .unwrap();
    assert!(status.success());
    let expected = wavetrace::film::read_exr(&whole).unwrap();
    assert!(wavetrace::film::read_exr(&image).unwrap().pixels == expected.pixels);
    std::fs::remove_dir_all(&folder).ok();
}
